"""``BackupAndRestore``: fault-tolerant ``fit`` (Keras's callback of that name).

Every ``save_freq`` steps (or at each epoch's end) it saves the model, the
optimizer (slots, iterations, accumulator), the metrics' state and the
position in the data (epoch, step, the data iterator's state) with a
``CheckpointManager`` (under a strategy, a collective checkpoint: tables
sharded over the ranks and sharded optimizer state included); when ``fit`` starts and a backup exists, it restores it
and ``fit`` continues at the saved step, so that a run killed at any moment
and restarted ends exactly where an uninterrupted run ends (given pure
``map`` functions and a seeded shuffle).
"""

from __future__ import annotations

import numpy as np

from ..checkpoint import Checkpoint, CheckpointManager
from ..training import compile_utils
from ..training.callbacks import Callback
from ..training.replica import replica_for

__all__ = ["BackupAndRestore"]


class _Position:
    """The position in training, saved as JSON through the state protocol: the epoch, the steps
    done in it, the data iterator's state mid-epoch, and at an epoch's end the finished
    iterator's state (so the next epoch's shuffle is the one an uninterrupted run draws)."""

    _KEYS = ("epoch", "step", "iterator", "data_epoch", "learning_rate")

    def __init__(self):
        self.state = {"epoch": 0, "step": 0, "iterator": None, "data_epoch": None, "learning_rate": None}

    def state_dict(self) -> dict:
        return {"position": dict(self.state)}

    def restore_plan(self, state: dict):
        pos = state.get("position") if isinstance(state, dict) else None
        if not isinstance(pos, dict) or not {"epoch", "step", "iterator"} <= set(pos) or set(pos) - set(self._KEYS):
            raise ValueError(f"not a training position: {str(pos)[:200]}")
        for k in ("epoch", "step"):
            v = pos[k]
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"training position: '{k}' must be an integer >= 0; found {str(v)[:50]}")
        for k in ("iterator", "data_epoch"):
            if pos.get(k) is not None and not isinstance(pos[k], dict):
                raise ValueError(f"training position: '{k}' must be an iterator state or null")
        lr = pos.get("learning_rate")
        if lr is not None and (isinstance(lr, bool) or not isinstance(lr, (int, float))):
            raise ValueError(f"training position: 'learning_rate' must be a number or null; found {str(lr)[:50]}")
        value = {"data_epoch": None, "learning_rate": None, **pos}

        def commit():
            self.state = value
        return commit


class BackupAndRestore(Callback):
    """Back up training state periodically; restore it when ``fit`` starts again.

    Put it last in ``callbacks``: it saves at the end of a step, after the
    callbacks before it have recorded that step (their state can be saved
    through ``extra`` when they have ``get_state``/``set_state``).

    Args:
        backup_dir: where the checkpoints go (one writer at a time).
        save_freq: ``"epoch"`` or a number of steps.
        max_to_keep: how many backups to keep (default 2).
        delete_checkpoint: remove the backups when training ends normally.
        extra: more trackables to save (e.g. ``{"rng": generator}``).

    Example:
        >>> import tempfile, numpy as np, descend as ds
        >>> model = ds.Sequential([ds.layers.Dense(1)])
        >>> _ = model.compile(optimizer="sgd", loss="mse")
        >>> backup = ds.train.BackupAndRestore(tempfile.mkdtemp(), save_freq=2)
        >>> _ = model.fit(np.ones((8, 2)), np.ones((8, 1)), batch_size=2, epochs=1, verbose=0, callbacks=[backup])
    """

    def __init__(self, backup_dir, save_freq="epoch", max_to_keep: int = 2, delete_checkpoint: bool = False,
                 extra: dict | None = None):
        super().__init__()
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq >= 1):
            raise ValueError(f"save_freq must be 'epoch' or a positive number of steps. Received: {save_freq!r}")
        self.backup_dir, self.save_freq = backup_dir, save_freq
        self.max_to_keep, self.delete_checkpoint, self.extra = max_to_keep, delete_checkpoint, dict(extra or {})
        self.restored_from = None
        self._position = _Position()
        self._manager = None
        self._steps = 0

    def _checkpoint(self):
        return Checkpoint(model=self.model, optimizer=self.model.optimizer, metrics=compile_utils.flat_metrics(self.model.metrics),
                          position=self._position, **self.extra)

    def on_train_begin(self, logs=None):
        replica = replica_for(self.model)
        checkpoint = self._checkpoint()
        self._manager = CheckpointManager(checkpoint, self.backup_dir, max_to_keep=self.max_to_keep)
        if not replica.is_chief:  # under a strategy rank 0 keeps the directory; every rank writes its part
            self._manager.close()
        latest = self._manager.latest_checkpoint
        self._steps = 0
        # under several replicas a collective, None included: every rank must restore the same checkpoint
        # (or none), else it raises on every rank ("the ranks disagree") before anything changes
        checkpoint.restore(latest, strict=True)
        if latest is not None:
            self.restored_from = latest
            self._steps = int(np.asarray(self.model.optimizer.iterations.numpy()))
            self.model.fit_state.resume = dict(self._position.state)
            # values restored into a model that is not built yet wait for its variables: the model keeps the
            # checkpoint holding them (a finished run has no step left to build it)
            self.model.keep_restored(checkpoint if checkpoint.pending else None)
            replica.after_restore(compile_utils.flat_metrics(self.model.metrics))  # the saved metric totals count once across replicas

    def _save(self, epoch, step, iterator_state, data_epoch=None):
        state = self.model.fit_state
        if iterator_state is None and data_epoch is None:  # at an epoch's end: the finished epoch's iterator
            it = state.iterator
            data_epoch = it.get_state() if it is not None and hasattr(it, "get_state") else None
        # the learning rate the last step logged: a run resumed mid-way through an accumulation cycle logs
        # it (as the uninterrupted run does) until its next real update
        lr = state.learning_rate
        self._position.state = {"epoch": epoch, "step": step, "iterator": iterator_state, "data_epoch": data_epoch,
                                "learning_rate": None if lr is None else float(lr)}
        replica = state.replica
        with replica.summed_metrics(compile_utils.flat_metrics(self.model.metrics)):  # under a strategy: the replicas' metric totals
            if self._manager.checkpoint.collective_group() is not None:
                self._manager.save()  # state that differs by rank: every rank writes its part
            elif replica.is_chief:  # the same on every replica: written by rank 0
                self._manager.save()

    def save_now(self) -> None:
        """Back up the current position now (mid-epoch), as a step-count save would."""
        state = self.model.fit_state
        self._save(state.epoch, state.step, state.position()["iterator"])

    def on_train_batch_end(self, batch, logs=None):
        self._steps += 1
        if self.save_freq != "epoch" and self._steps % self.save_freq == 0:
            self.save_now()

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            state = self.model.fit_state
            # with steps_per_epoch the next epoch may continue this epoch's pass over the data: its position
            self._save(epoch + 1, 0, state.position()["iterator"] if state.continues else None)

    def on_train_end(self, logs=None):
        if self._manager is not None:
            self._manager.close()
        if self.delete_checkpoint and self._manager is not None:
            import shutil

            shutil.rmtree(self.backup_dir, ignore_errors=True)
