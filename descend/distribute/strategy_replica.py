"""``fit``, ``evaluate`` and file writes under a strategy: the data-parallel context of the one training
step (:mod:`descend.training.replica`), handed to ``fit`` by ``strategy.fit_replica()``.

Each global batch of ``batch_size`` rows is split over the replicas (``numpy.array_split``); each
replica's loss share is its loss (a mean over its rows) times ``rows here / rows in the global batch``
-- a sum-reduced loss keeps its sum and the penalties take that share -- so the optimizer's
cross-replica sum is the gradient one process computes on the whole batch. A model's own
``train_step`` runs as the replica, its gradients weighted by that share when they are summed.
Metric states are summed over the replicas before each ``result()``: totals and counts, never means of
means. Only rank 0 shows a progress bar and writes files.

Example:
    >>> import descend as ds
    >>> from descend.training.replica import replica_for
    >>> strategy = ds.distribute.MultiWorkerMirroredStrategy()
    >>> with strategy.scope():
    ...     model = ds.Sequential([ds.layers.Dense(1)])
    >>> replica_for(model).num_replicas == strategy.num_replicas_in_sync
    True
"""

from __future__ import annotations

import contextlib
import os

import numpy as np

from ..framework.tensor import to_array
from ..ops import add_n, math_ops
from ..training.replica import Replica
from .split import slice_batch

__all__ = ["StrategyReplica"]


@contextlib.contextmanager
def _summed_states(metrics, strategy, extra=None):
    """While open, the metrics' variables hold their sums over the replicas (this replica's own values come back
    on exit, whatever happens). With ``extra`` (a float64 array, exchanged in the same bucket) it yields that
    array's sum over the replicas, else ``None``."""
    variables = [v for m in metrics for v in m.variables]
    local = [v._value.copy() for v in variables]
    arrays, names = list(local), [f"metric/{v.scoped_name}" for v in variables]
    if extra is not None:
        arrays.append(np.asarray(extra, np.float64))
        names.append("extra")
    summed = list(strategy.exchange.exchange(arrays, names)) if arrays else []
    extra_sum = summed.pop() if extra is not None else None
    try:
        for v, s in zip(variables, summed):
            v._value[...] = s
        yield extra_sum
    finally:
        for v, a in zip(variables, local):
            v._value[...] = a


def _has_collective_layer(model) -> bool:
    """Whether a layer's backward pass is a collective every replica must take part in (a table sharded over
    the ranks declares it with ``collective_backward``)."""
    flatten = getattr(model, "_flatten_layers", None)
    layers = flatten() if callable(flatten) else []
    return any(getattr(layer, "collective_backward", False) for layer in layers)


def _empty_sum(y_pred):
    """The sum of the (zero-row) predictions: a loss of 0 whose gradient reaches every layer the batch went through."""
    leaves = y_pred if isinstance(y_pred, (list, tuple)) else list(y_pred.values()) if isinstance(y_pred, dict) \
        else [y_pred]
    return add_n([math_ops.reduce_sum(leaf) for leaf in leaves])


class StrategyReplica(Replica):
    """This process's replica of a strategy with several (see the module docstring)."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.num_replicas = strategy.num_replicas_in_sync
        self.rank = strategy.group.rank

    @property
    def is_chief(self) -> bool:
        return self.rank == 0

    def shard(self, dataset):
        n, r = self.num_replicas, self.rank

        def take(*parts):
            return slice_batch(parts[0] if len(parts) == 1 else tuple(parts), n, r)

        return dataset.map(take)

    def global_rows(self, local_rows: int) -> int:
        return int(self.strategy.exchange.exchange([np.array([local_rows], np.int64)], ["batch rows"])[0][0])

    def loss_share(self, loss, penalties, local_rows, global_rows, summed):
        share = local_rows / global_rows
        if not summed:
            return loss * share
        if not penalties:  # a sum over the rows: the replicas' sums add up to the global one
            return loss
        return loss + add_n([math_ops.cast(p, dtype=loss.dtype) for p in penalties]) * (share - 1.0)

    def empty_share(self, model, y_pred, regularization):
        # the penalties are shared by the replicas that hold rows; a sharded layer's backward pass is a
        # collective: take part with zero gradient rows
        return _empty_sum(y_pred) if _has_collective_layer(model) else None

    def compiles(self, model) -> bool:
        # a layer whose lookup is a collective (a sharded table) talks in the forward pass: op by op
        return not _has_collective_layer(model)

    def any(self, flag: bool) -> bool:
        return self.strategy.group.any(flag)

    def from_chief(self, value):
        return self.strategy.group.allgather_object(value)[0]

    def run(self, fn, *args, local_rows=None, global_rows=None):
        weight = None if not global_rows else local_rows / global_rows
        with self.strategy.gradient_weight(weight):
            return self.strategy.run(fn, args=args)

    def results(self, metrics, batch_loss=None):
        extra = None if batch_loss is None else np.array([batch_loss[0] * batch_loss[1], batch_loss[1]], np.float64)
        if batch_loss is None:
            extra = np.zeros(2, np.float64)  # every replica takes part in the same exchange
        with _summed_states(metrics, self.strategy, extra) as summed:
            logs = {m.name: float(to_array(m.result())) for m in metrics}
        return logs, (float(summed[0] / summed[1]) if summed[1] > 0 else float("nan"))

    @contextlib.contextmanager
    def summed_metrics(self, metrics):
        with _summed_states(metrics, self.strategy):
            yield

    def after_restore(self, metrics) -> None:
        # the restored metric states are the sums over the replicas: rank 0 keeps them, the others start from
        # zero (their sum stays the saved total)
        if self.is_chief:
            return
        for m in metrics:
            for v in m.variables:
                v._value[...] = 0
                v._mark_updated()

    def write_once(self, what, write, path=None) -> None:
        if path is not None:  # every rank names the same file, or none is written (rank 0 would write its own)
            paths = self.strategy.group.allgather_object(os.path.abspath(os.fspath(path)))
            if any(p != paths[0] for p in paths):
                shown = "; ".join(f"rank {r}: '{p}'" for r, p in enumerate(paths))
                raise ValueError(f"{what}: the ranks disagree on the path ({shown}); every rank of the "
                                 f"{len(paths)} must name the same one. Nothing was written")
        error = None
        if self.is_chief:
            try:
                write()
            except Exception as e:  # noqa: BLE001 (every rank hears of it below, rank 0 re-raises it)
                error = e
        outcome = self.strategy.group.allgather_object(None if error is None else f"{type(error).__name__}: {error}")
        if error is not None:
            raise error
        if outcome[0] is not None:
            raise OSError(f"{what} failed on rank 0, which writes for every rank: {outcome[0]}")
