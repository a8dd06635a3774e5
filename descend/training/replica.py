"""The data-parallel context of a training step: what the one step asks -- how to split the data, how
to share the loss so that the replicas' summed gradient is the gradient of the global batch, how to
combine the metrics, whether every replica agrees -- and nothing else. One process has the trivial
:class:`Replica`; a distribution strategy hands its own (``strategy.fit_replica()``), so ``fit`` runs the
same step with or without one.

Example:
    >>> import descend as ds
    >>> from descend.training.replica import replica_for
    >>> replica_for(ds.Sequential([ds.layers.Dense(1)])).num_replicas
    1
"""

from __future__ import annotations

import contextlib

from ..framework import context

__all__ = ["Replica", "LOCAL", "replica_for"]


class Replica:
    """One process: the whole batch is this replica's, its loss is the loss, its metrics are the metrics."""

    num_replicas = 1
    is_chief = True

    def shard(self, dataset):
        """This replica's rows of every global batch of ``dataset``."""
        return dataset

    def global_rows(self, local_rows: int) -> int:
        """The rows of the global batch this replica holds ``local_rows`` of."""
        return local_rows

    def loss_share(self, loss, penalties: list, local_rows: int, global_rows: int, summed: bool):
        """This replica's share of the loss to differentiate, so that the replicas' gradients summed are the
        gradient of the global batch's loss. ``loss`` is the model's loss on this replica's rows (a mean, or
        a sum over the rows when ``summed``) including the ``penalties`` (regularization, the same on every
        replica); one process: ``loss`` itself."""
        return loss

    def empty_share(self, model, y_pred, regularization: list):
        """The loss share of a replica whose part of a (short, last) batch has no rows."""
        return None

    def compiles(self, model) -> bool:
        """Whether ``model``'s steps may run compiled (``descend.function``) in this context."""
        return True

    def any(self, flag: bool) -> bool:
        """Whether ``flag`` is set on any replica (every replica gets the same answer)."""
        return bool(flag)

    def from_chief(self, value):
        """The chief's (rank 0's) ``value`` (a small Python object) on every replica."""
        return value

    def run(self, fn, *args, local_rows: int | None = None, global_rows: int | None = None):
        """Call ``fn(*args)`` as this replica (a user's ``train_step``): under a strategy its gradients are
        weighted by this replica's share of the global batch when they are summed."""
        return fn(*args)

    def results(self, metrics: list, batch_loss=None) -> tuple[dict, float | None]:
        """``({metric name: result over every replica's rows}, the global batch's loss)``; ``batch_loss`` is
        ``(this replica's loss, its rows)``."""
        logs = {m.name: float(m.result()) for m in metrics}
        return logs, (float("nan") if batch_loss is None else batch_loss[0])

    def summed_metrics(self, metrics: list):
        """A context inside which the metrics' states hold the sums over every replica (what a checkpoint of
        the replicated run saves)."""
        return contextlib.nullcontext()

    def after_restore(self, metrics: list) -> None:
        """After every replica restored the same checkpoint (metric totals are the sums over the replicas)."""

    def write_once(self, what: str, write, path=None) -> None:
        """``write()`` once for every replica: the chief writes; every replica returns when the file is in
        place, or raises the chief's error. With ``path``, the replicas first check they all name it (else
        every one raises and nothing is written)."""
        write()


#: the one-process context
LOCAL = Replica()


def replica_for(model) -> Replica:
    """The data-parallel context of ``model``'s training: the active strategy's, else that of the strategy
    the model was built under, else that of the strategy its variables were created under; one process:
    :data:`LOCAL`."""
    strategy = context.current_strategy()
    if strategy is None:
        built_under = getattr(model, "distribute_strategy", None)
        strategy = built_under
    if strategy is None:
        strategy = context.strategy_for(getattr(model, "trainable_weights", []) or [])
    if strategy is None or strategy.num_replicas_in_sync == 1:
        return LOCAL
    return strategy.fit_replica()
