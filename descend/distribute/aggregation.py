"""The ``aggregate`` stage of a strategy: every gradient summed over the replicas, except those of
rank-local variables (a sharded table's rows already hold their gradient on their owner)."""

from __future__ import annotations

from ..framework.context import is_local
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from ..optimizers.pipeline import Aggregation
from .collectives import agree_on_error

__all__ = ["ReplicaSum"]


def _scaled(g, weight: float):
    if isinstance(g, IndexedSlices):
        values = g.values._value
        return IndexedSlices(Tensor(values * values.dtype.type(weight)), g.indices, g.dense_shape)
    return g * g.dtype.type(weight)


class ReplicaSum(Aggregation):
    """A strategy's ``aggregate`` stage: every gradient summed over the replicas (one fused exchange), except
    those of rank-local variables (a sharded table's rows already hold their gradient on their owner)."""

    def __init__(self, strategy):
        self.strategy = strategy

    def replicated(self, optimizer, pairs) -> bool:
        return not any(is_local(v) for _, v in pairs)

    def any(self, optimizer, pairs, found: bool) -> bool:
        return self.strategy.group.any(found)

    def agree(self, optimizer, error) -> None:
        agree_on_error(self.strategy.group, error, f"apply_gradients of optimizer '{optimizer.name}'")

    def prepare(self, plan) -> None:
        pairs = plan.pairs
        weight = self.strategy._gradient_weight
        if weight is not None:  # this replica's share of the global batch (a model's own train_step under fit)
            pairs = [(_scaled(g, weight), v) for g, v in pairs]
        out = self.sum(plan.optimizer, pairs)
        if out is not pairs:  # summed across replicas: a sum of finite values can overflow
            plan.changed = [True] * len(out)
        plan.pairs = out

    def sum(self, optimizer, pairs: list) -> list:
        if not any(is_local(v) for _, v in pairs):
            return self.sum_shared(optimizer, pairs)
        clip = [a for a in ("clipnorm", "global_clipnorm") if getattr(optimizer, a, None) is not None]
        if clip:  # the same on every rank: every rank raises, none waits
            raise ValueError(f"`{clip[0]}` cannot clip the gradient of a table sharded over the ranks (each rank "
                             "would measure the norm of its own rows only and clip by another factor); use "
                             f"`clipvalue`, or no clipping. Received: {clip[0]}={getattr(optimizer, clip[0])!r} with "
                             f"rank-local variables {[v.name for _, v in pairs if is_local(v)]}")
        shared = [k for k, (_, v) in enumerate(pairs) if not is_local(v)]
        summed = self.sum_shared(optimizer, [pairs[k] for k in shared]) if shared else []
        if len(summed) != len(shared):  # a share of them (sharded optimizer state), then the rank-local rows
            return [*summed, *(p for p in pairs if is_local(p[1]))]
        out = list(pairs)
        for k, pair in zip(shared, summed):
            out[k] = pair
        return out

    def sum_shared(self, optimizer, pairs: list) -> list:
        """The sums of gradients every replica holds a copy of."""
        return self.strategy._exchange_pairs(pairs)
