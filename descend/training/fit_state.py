"""``FitState``: where ``fit`` is, as one public object (``model.fit_state``) that callbacks, the backup
and the command line read, instead of private attributes of the model."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FitState"]


@dataclass
class FitState:
    """The position of a ``fit`` in progress (and of the last one, after it returns).

    Attributes:
        epoch: the epoch running (0-based).
        step: the steps done in it.
        iterator: the epoch's data iterator (its ``get_state()`` is the position in the data).
        learning_rate: the rate the last step logged.
        batch_loss: the last batch's loss (under a strategy, the global batch's), NaN before a step.
        resume: where ``fit`` continues, set by a restore before training starts (a backup's
            ``{"epoch", "step", "iterator", "data_epoch", "learning_rate"}``); ``fit`` consumes it.
        replica: the data-parallel context of this ``fit`` (:class:`~descend.training.replica.Replica`).
        batch_rows: the examples in the last batch (this replica's rows).
        continues: whether the next epoch continues ``iterator`` (``steps_per_epoch`` with data left, as
            Keras), so that a backup at this epoch's end saves the iterator's position.
        metrics: the metrics the training steps log (``model.metrics`` flattened), found by the epoch's first
            step and kept for its others (None until then): Keras' compiled step fixes them when it traces.
    """

    epoch: int = 0
    step: int = 0
    iterator: object = None
    learning_rate: float | None = None
    batch_loss: float = float("nan")
    resume: dict | None = None
    replica: object = None
    batch_rows: int = 0
    continues: bool = False
    metrics: list | None = None

    def position(self) -> dict:
        """The position as JSON-able values (the iterator's state mid-epoch)."""
        it = self.iterator
        return {"epoch": self.epoch, "step": self.step,
                "iterator": it.get_state() if it is not None and hasattr(it, "get_state") else None,
                "learning_rate": None if self.learning_rate is None else float(self.learning_rate)}
