"""``fit`` and ``evaluate`` under a strategy: the global batch split over the ranks, the loss scaled so
that the summed gradient is the one-process gradient, metrics aggregated from totals and counts.

A model whose variables were created under a strategy's ``scope()`` (or that is fitted inside one)
trains data-parallel: each global batch of ``batch_size`` rows is split over the replicas
(``numpy.array_split``), each replica's compiled loss (a mean over its rows) is scaled by
``rows here / rows in the global batch`` and its regularization losses by ``1 / replicas``, so the
optimizer's cross-replica sum is the gradient one process computes on the whole batch. Metric states
are summed over the replicas before each ``result()``: totals and counts, never means of means. Only
rank 0 shows a progress bar.

Example:
    >>> import descend as ds
    >>> from descend.distribute import training
    >>> model = ds.Sequential([ds.layers.Dense(1)])
    >>> training.replica_for(model) is None   # no strategy: fit is the one-process loop
    True
"""

from __future__ import annotations

import contextlib

import numpy as np

from ..framework import context
from ..framework.tape import GradientTape
from ..framework.tensor import to_array
from ..ops import add_n, cast
from . import strategy as _strategy

__all__ = ["FitReplica", "replica_for", "global_result", "summed_metric_states", "after_restore"]


def replica_for(model) -> FitReplica | None:
    """The data-parallel context ``fit`` uses for ``model``: the active strategy, else the one it was built
    under (``scope()``), else the one its variables were created under; None for one replica."""
    built_under = getattr(model, "_distribute_strategy", None)
    strategy = context.current_strategy() or (built_under() if built_under is not None else None)
    if strategy is None:
        strategy = context.strategy_for(getattr(model, "trainable_weights", []) or [])
    if strategy is None or strategy.num_replicas_in_sync == 1:
        return None
    return FitReplica(strategy)


def global_result(metric, strategy):
    """``metric.result()`` over every replica's examples: its state variables summed across replicas
    (metric states are totals and counts), the local state left as it was."""
    return _global_results([metric], strategy)[0]


def _global_results(metrics, strategy, extra=None):
    """The metrics' global results; with ``extra`` (a float64 array), also its sum over the replicas
    (exchanged in the same bucket): ``(results, summed extra)``."""
    variables = [v for m in metrics for v in m.variables]
    local = [v._value.copy() for v in variables]
    arrays, names = list(local), [f"metric/{v.name}" for v in variables]
    if extra is not None:
        arrays.append(np.asarray(extra, np.float64))
        names.append("extra")
    summed = strategy.exchange.exchange(arrays, names) if arrays else []
    extra_sum = summed.pop() if extra is not None else None
    if not variables:
        results = [m.result() for m in metrics]
        return results if extra is None else (results, extra_sum)
    try:
        for v, s in zip(variables, summed):
            v._value[...] = s
        results = [m.result() for m in metrics]
        return results if extra is None else (results, extra_sum)
    finally:
        for v, a in zip(variables, local):
            v._value[...] = a


@contextlib.contextmanager
def summed_metric_states(model):
    """Inside, ``model``'s metric states hold the sums over every replica (what a checkpoint of the
    replicated run saves); afterwards each replica's own again. A no-op for one replica. Every replica
    must enter it (a collective)."""
    replica = replica_for(model)
    metrics = list(getattr(model, "metrics", []) or [])
    variables = [v for m in metrics for v in m.variables]
    if replica is None or not variables:
        yield
        return
    local = [v._value.copy() for v in variables]
    summed = replica.strategy.exchange.exchange(local, [f"metric/{v.name}" for v in variables])
    try:
        for v, s in zip(variables, summed):
            v._value[...] = s
        yield
    finally:
        for v, a in zip(variables, local):
            v._value[...] = a


def after_restore(model) -> None:
    """After every replica restored the same checkpoint: its metric states are the sums over the replicas,
    so rank 0 keeps them and the others start from zero (their sum stays the saved total)."""
    replica = replica_for(model)
    if replica is None or replica.is_chief:
        return
    for m in getattr(model, "metrics", []) or []:
        for v in m.variables:
            v._value[...] = 0
            v._mark_updated()


def _has_sharded_layer(model) -> bool:
    from .sharded import ShardedEmbedding

    flatten = getattr(model, "_flatten_layers", None)
    layers = flatten() if callable(flatten) else []
    return any(isinstance(layer, ShardedEmbedding) and layer.num_shards > 1 for layer in layers)


def _empty_sum(y_pred):
    """The sum of the (zero-row) predictions: a loss of 0 whose gradient reaches every layer the batch went through."""
    from ..ops import math_ops

    leaves = y_pred if isinstance(y_pred, (list, tuple)) else list(y_pred.values()) if isinstance(y_pred, dict) \
        else [y_pred]
    return add_n([math_ops.reduce_sum(leaf) for leaf in leaves])


class FitReplica:
    """One replica's share of ``fit``/``evaluate`` (see the module docstring)."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.n = strategy.num_replicas_in_sync
        self.rank = strategy.group.rank

    @property
    def is_chief(self) -> bool:
        return self.rank == 0

    def from_rank0(self, value):
        """Rank 0's ``value`` (a small Python object) on every rank."""
        return self.strategy.group.allgather_object(value)[0]

    def any(self, flag: bool) -> bool:
        """Whether ``flag`` is set on any replica: every rank decides alike."""
        return self.strategy.group.any(flag)

    def shard(self, dataset):
        """This replica's rows of every global batch of ``dataset`` (a descend Dataset)."""
        n, r = self.n, self.rank

        def take(*parts):
            return _strategy._slice_batch(parts[0] if len(parts) == 1 else tuple(parts), n, r)

        return dataset.map(take)

    def logs(self, model, batch_loss_sum=None) -> dict:
        """The metrics' values over every replica's rows. With ``batch_loss_sum`` (this replica's compiled
        loss times its rows), ``model._last_batch_loss`` (the CLI's per-batch record) becomes the global
        batch's loss."""
        if batch_loss_sum is None:
            results = _global_results(model.metrics, self.strategy)
        else:
            results, summed = _global_results(model.metrics, self.strategy,
                                              np.array([batch_loss_sum, self._rows], np.float64))
            if hasattr(model, "_last_batch_loss") and summed[1] > 0:
                model._last_batch_loss = float(summed[0] / summed[1])
        return {m.name: float(to_array(v)) for m, v in zip(model.metrics, results)}

    def train_step(self, model, data) -> dict:
        """The default ``train_step`` as one replica: returns the global logs."""
        from ..trainer import Trainer, _batch_size, _unpack

        if type(model).train_step is not Trainer.train_step:  # the user's own step: run it as this replica
            self.strategy.run(model.train_step, args=(data,))
            return self.logs(model)
        x, y, sample_weight = _unpack(data)
        n_local = _batch_size(x)
        n_global = int(self.strategy.exchange.exchange([np.array([n_local], np.int64)], ["batch rows"])[0][0])
        recorded = [0.0]
        self._rows = n_local

        def step():
            with GradientTape() as tape:
                y_pred = model(x, training=True)
                variables = model.trainable_weights  # after the call: a model built lazily has them now
                extra = list(model.losses)
                if n_local == 0:  # a short last batch left this replica no rows: only its share of the penalties
                    replica_loss = add_n([cast(e, dtype=extra[0].dtype) for e in extra]) * (1.0 / self.n) if extra \
                        else None
                    if replica_loss is None and _has_sharded_layer(model):  # its backward pass is a collective:
                        replica_loss = _empty_sum(y_pred)                    # take part with zero gradient rows
                else:
                    data_loss = (model.loss(y, y_pred, sample_weight) if sample_weight is not None
                                 else model.loss(y, y_pred))
                    scale = 1.0 if getattr(model.loss, "reduction", None) == "sum" else n_local / n_global
                    replica_loss = data_loss * scale
                    recorded[0] = float(to_array(data_loss)) * n_local
                    if extra:
                        reg = add_n([cast(e, dtype=data_loss.dtype) for e in extra])
                        replica_loss = replica_loss + reg * (1.0 / self.n)
                        data_loss = data_loss + reg
            if replica_loss is None:
                grads = [np.zeros(v.shape, v._value.dtype) for v in variables]
            else:
                grads = [np.zeros(v.shape, v._value.dtype) if g is None else g
                         for g, v in zip(tape.gradient(replica_loss, variables), variables)]
            model.optimizer.apply_gradients(zip(grads, variables))
            if n_local:
                model._update_metrics(data_loss, y, y_pred, sample_weight)

        self.strategy.run(step)
        return self.logs(model, recorded[0])

    def test_step(self, model, data) -> dict:
        """``model.test_step`` on this replica's rows (the local logs; :meth:`logs` gives the global ones)."""
        from ..trainer import _batch_size, _unpack

        x, _, _ = _unpack(data)
        if _batch_size(x) == 0:
            return {}
        return model.test_step(data)

