"""TensorFlow's distribution surface on MPI: strategies, replica contexts, distributed datasets.

Every process of an ``mpiexec -n N`` job is one replica. A strategy's
``scope()`` marks the variables created inside as replicated: each is
broadcast from rank 0 when it is created, so all ranks start identical; an
optimizer updating them (or called inside ``scope()`` or ``run()``) sums the
gradients across the replicas in its ``aggregate`` stage before one update, as
TF's ``apply_gradients`` in a replica context does. The loss is scaled by the
user (``descend.nn.compute_average_loss``) or by ``fit``, never by the
exchange.

Example:
    >>> import descend as ds
    >>> strategy = ds.distribute.MultiWorkerMirroredStrategy()
    >>> with strategy.scope():
    ...     w = ds.Variable([1.0, 2.0], name="w")
    >>> strategy.num_replicas_in_sync >= 1
    True
    >>> float(strategy.reduce("SUM", ds.constant(1.0))) == strategy.num_replicas_in_sync
    True
"""

from __future__ import annotations

import contextlib
import enum
import threading
import weakref

import numpy as np

from ..framework import variable as _variable
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable
from ..optimizers import base as _optimizer_base
from ..optimizers import pipeline as _pipeline
from . import comm
from .collectives import DEFAULT_BUCKET_BYTES, GradientExchange, broadcast_arrays

__all__ = ["ReduceOp", "Strategy", "MultiWorkerMirroredStrategy", "MirroredStrategy", "ReplicaContext",
           "InputContext", "DistributedDataset", "get_strategy", "has_strategy", "get_replica_context",
           "in_cross_replica_context", "strategy_of", "local_variables", "is_local"]


class ReduceOp(enum.Enum):
    """How values from the replicas combine: ``SUM`` or ``MEAN``."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(value):
        return ReduceOp(_reduce_op(value).value)


def _reduce_op(op) -> ReduceOp:
    if isinstance(op, ReduceOp):
        return op
    if isinstance(op, str) and op.upper() in ("SUM", "MEAN"):
        return ReduceOp(op.upper())
    raise ValueError(f"`reduce_op` must be ReduceOp.SUM or ReduceOp.MEAN. Received: {op!r}")


# ---------------------------------------------------------------------------------------------- the context
_state = threading.local()


def _stack() -> list:
    s = getattr(_state, "stack", None)
    if s is None:
        s = _state.stack = []
    return s


def has_strategy() -> bool:
    """Whether a strategy's ``scope()`` or ``run()`` is active (``tf.distribute.has_strategy``)."""
    return bool(_stack())


def get_strategy() -> Strategy:
    """The strategy whose ``scope()`` or ``run()`` is active, else the default strategy (one replica)."""
    s = _stack()
    return s[-1][0] if s else _default()


def in_cross_replica_context() -> bool:
    """True inside ``scope()`` but outside ``run()`` (``tf.distribute.in_cross_replica_context``)."""
    s = _stack()
    return bool(s) and not s[-1][1]


def get_replica_context() -> ReplicaContext | None:
    """The replica context: inside ``run()`` this replica's, outside any strategy the default one's, and
    None in a cross-replica context (inside ``scope()``, outside ``run()``), as TF."""
    s = _stack()
    if not s:
        return ReplicaContext(_default())
    strategy, in_replica = s[-1]
    return ReplicaContext(strategy) if in_replica else None


@contextlib.contextmanager
def _entered(strategy, in_replica):
    s = _stack()
    if s and s[-1][0] is not strategy:
        raise ValueError(f"Mixing different distribution strategies: {s[-1][0]!r} is active and "
                         f"{strategy!r} was entered")
    s.append((strategy, in_replica))
    try:
        yield strategy
    finally:
        s.pop()


# variables created under a strategy's scope: id -> (weak reference, strategy)
_MIRRORED: dict = {}


def strategy_of(variable: Variable) -> Strategy | None:
    """The strategy under whose ``scope()`` (or ``run()``) ``variable`` was created, or None."""
    entry = _MIRRORED.get(id(variable))
    if entry is None or entry[0]() is not variable:
        return None
    return entry[1]


# variables whose value differs by rank (a shard of a sharded table, and its optimizer slots): id -> weak reference
_LOCAL: dict = {}


@contextlib.contextmanager
def local_variables():
    """Variables created inside are rank-local: not broadcast at creation, and their gradients skip the
    cross-replica sum (each rank holds and updates its own part, e.g. a
    :class:`~descend.distribute.ShardedEmbedding` shard). The slots an optimizer makes for them are
    rank-local too."""
    _state.local = getattr(_state, "local", 0) + 1
    try:
        yield
    finally:
        _state.local -= 1


def is_local(variable) -> bool:
    """Whether ``variable`` was created inside :func:`local_variables` (its value is this rank's own)."""
    entry = _LOCAL.get(id(variable))
    return entry is not None and entry() is variable


def _slot_scope(var):
    return local_variables() if is_local(var) else contextlib.nullcontext()


_optimizer_base.slot_scope = _slot_scope


def _on_variable_created(var: Variable) -> None:
    if getattr(_state, "local", 0):
        key = id(var)
        _LOCAL[key] = weakref.ref(var, lambda _r, key=key: _LOCAL.pop(key, None))
    s = _stack()
    if not s or s[-1][0].is_default:
        return
    strategy = s[-1][0]
    if strategy._zero is not None and strategy._zero.is_own_slot(var):
        return  # ZeRO-1: the optimizer slot of a variable this replica owns exists here only
    key = id(var)
    _MIRRORED[key] = (weakref.ref(var, lambda _r, key=key: _MIRRORED.pop(key, None)), strategy)
    if strategy.num_replicas_in_sync > 1 and not is_local(var):  # every rank must be creating the same variable: checked first
        strategy.exchange.check_signature(((var.name, var.shape, var._value.dtype.str, "variable"),))
        broadcast_arrays(strategy.group, [var._value], 0)
        var._mark_updated()


_variable.creation_hooks.append(_on_variable_created)


def _strategy_for(pairs):
    """The active strategy, else the one that owns the variables of ``pairs`` (None: neither)."""
    s = _stack()
    if s:
        return s[-1][0]
    if not _MIRRORED:
        return None
    return next((st for st in (strategy_of(v) for _, v in pairs) if st is not None), None)


# optimizers whose ``aggregate`` stage Horovod's ``DistributedOptimizer`` replaced: optimizer -> its group
_WRAPPED: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def sums_over(optimizer, group) -> None:
    """Declare that ``optimizer``'s ``aggregate`` stage sums every gradient over ``group`` (Horovod's
    ``DistributedOptimizer``): its ``on_nonfinite`` decisions are then taken together with that group."""
    _WRAPPED[optimizer] = group


def _summing_group(optimizer, pairs):
    """The group that the ``aggregate`` stage sums these gradients over (None: one replica), and whether every
    replica then holds the same sum of every one of them (nothing sharded, nothing rank-local)."""
    group = _WRAPPED.get(optimizer)
    if group is not None:
        return (group, True) if group.size > 1 else (None, False)
    strategy = _strategy_for(pairs)
    if strategy is None or strategy.num_replicas_in_sync == 1:
        return None, False
    return strategy.group, strategy._zero is None and not any(is_local(v) for _, v in pairs)


def _replicated_sum(optimizer, pairs) -> bool:
    return _summing_group(optimizer, pairs)[1]


def cross_replica_any(optimizer, pairs, found: bool) -> bool:
    """Whether any replica found a non-finite gradient in this update (one integer all-reduced), so that
    every replica skips, raises or applies together; ``found`` itself with one replica."""
    group, _ = _summing_group(optimizer, pairs)
    return found if group is None else group.any(found)


def _cross_replica_sum(optimizer, pairs: list) -> list:
    """The optimizers' ``aggregate`` stage under a strategy: the active one, else the one that owns the
    variables; identity for one replica."""
    strategy = _strategy_for(pairs)
    if strategy is None or strategy.num_replicas_in_sync == 1:
        return pairs
    if not any(is_local(v) for _, v in pairs):
        if strategy._zero is not None:  # ZeRO-1: this replica receives the sums of what it owns (distribute.zero)
            return strategy._zero.aggregate(optimizer, pairs)
        return strategy._exchange_pairs(pairs)
    # rank-local variables (sharded tables) already hold their gradient on their owner: never summed
    clip = [a for a in ("clipnorm", "global_clipnorm") if getattr(optimizer, a, None) is not None]
    if clip:  # the same on every rank: every rank raises, none waits
        raise ValueError(f"`{clip[0]}` cannot clip the gradient of a table sharded over the ranks (each rank would "
                         "measure the norm of its own rows only and clip by another factor); use `clipvalue`, or no "
                         f"clipping. Received: {clip[0]}={getattr(optimizer, clip[0])!r} with rank-local variables "
                         f"{[v.name for _, v in pairs if is_local(v)]}")
    shared = [k for k, (_, v) in enumerate(pairs) if not is_local(v)]
    if strategy._zero is not None:  # the shared variables' share this replica owns, then its own table rows
        owned = strategy._zero.aggregate(optimizer, [pairs[k] for k in shared]) if shared else []
        return [*owned, *(p for p in pairs if is_local(p[1]))]
    out = list(pairs)
    if shared:
        for k, pair in zip(shared, strategy._exchange_pairs([pairs[k] for k in shared])):
            out[k] = pair
    return out


_pipeline.cross_replica_sum = _cross_replica_sum
_pipeline.replicated_sum = _replicated_sum
_pipeline.cross_replica_any = cross_replica_any  # descend.distribute.zero adds its sharded case


# ---------------------------------------------------------------------------------------------- strategies
class Strategy:
    """A data-parallel strategy over a process group (one replica per process).

    Args:
        bucket_bytes: the most bytes one fused gradient ``Allreduce`` carries.
        sparse_as_dense: exchange ``IndexedSlices`` gradients as dense tensors (all-reduced) instead of
            all-gathering their rows.
        shard_optimizer_state: ZeRO stage 1 (DeepSpeed's ``zero_optimization.stage=1``, PyTorch's
            ``ZeroRedundancyOptimizer``): each replica keeps the optimizer slots of its share of the dense
            variables only; gradients are reduce-scattered, each owner updates its variables and the new
            values are all-gathered. See :mod:`descend.distribute.zero`.
    """

    is_default = False

    def __init__(self, *, bucket_bytes: int = DEFAULT_BUCKET_BYTES, sparse_as_dense: bool = False, group=None,
                 shard_optimizer_state: bool = False):
        self.group = comm.world() if group is None else group
        self.exchange = GradientExchange(self.group, bucket_bytes=bucket_bytes, sparse_as_dense=sparse_as_dense)
        if not isinstance(shard_optimizer_state, (bool, np.bool_)):
            raise TypeError(f"`shard_optimizer_state` must be a bool. Received: "
                            f"shard_optimizer_state={shard_optimizer_state!r}")
        self._zero = None
        if shard_optimizer_state:
            from .zero import ZeroRedundancy

            self._zero = ZeroRedundancy(self)

    @property
    def shard_optimizer_state(self) -> bool:
        """Whether optimizers under this strategy shard their state across the replicas (ZeRO-1)."""
        return self._zero is not None

    # -- facts
    @property
    def num_replicas_in_sync(self) -> int:
        """The number of replicas (processes) that step together."""
        return self.group.size

    @property
    def replica_id(self) -> int:
        """This process's replica id (its MPI rank)."""
        return self.group.rank

    @property
    def extended(self):
        return self

    def __repr__(self):
        return f"<{type(self).__name__} replicas={self.num_replicas_in_sync} rank={self.group.rank}>"

    # -- contexts
    def scope(self):
        """A context in which created variables are replicated (broadcast from rank 0 at creation) and
        optimizers sum gradients across replicas."""
        return _entered(self, False)

    def run(self, fn, args=(), kwargs=None, options=None):
        """Call ``fn(*args, **kwargs)`` as this process's replica (in a replica context); returns its result."""
        if not callable(fn):
            raise TypeError(f"`fn` must be callable. Received: {fn!r}")
        with _entered(self, True):
            return fn(*tuple(args), **(kwargs or {}))

    # -- reductions
    def reduce(self, reduce_op, value, axis=None):
        """Combine ``value`` (this replica's) across replicas: ``SUM`` or ``MEAN``; with ``axis``, also over
        that axis of every replica's value (a MEAN then divides by the total count along it, so replicas with
        different batch sizes weigh each example equally)."""
        op = _reduce_op(reduce_op)
        arr = np.asarray(to_array(value))
        if axis is None:
            total = self._allreduce([arr], ["reduce"])[0]
            return Tensor(total / arr.dtype.type(self.num_replicas_in_sync) if op is ReduceOp.MEAN else total)
        if not isinstance(axis, (int, np.integer)) or not -arr.ndim <= axis < max(arr.ndim, 1):
            raise ValueError(f"`axis` must be an integer in [{-arr.ndim}, {arr.ndim}). Received: axis={axis!r}")
        local = arr.sum(axis=int(axis))
        if op is ReduceOp.SUM:
            return Tensor(self._allreduce([local], ["reduce"])[0])
        total, count = self._allreduce([local, np.array([arr.shape[axis]], np.float64)], ["reduce", "count"])
        return Tensor((total / total.dtype.type(count[0])) if total.dtype.kind == "f" else total / count[0])

    def experimental_local_results(self, value) -> tuple:
        """This process's values: a tuple of one (each process holds one replica)."""
        return (value,)

    def gather(self, value, axis: int = 0):
        """Concatenate every replica's ``value`` along ``axis`` (they may differ in size along it)."""
        arr = np.asarray(to_array(value))
        moved = np.moveaxis(arr, axis, 0)
        sizes = self.group.allgather_counts(np.array([moved.shape[0]], np.int64))[:, 0]
        row = int(np.prod(moved.shape[1:], dtype=np.int64))
        flat = self.group.allgatherv(np.ascontiguousarray(moved).reshape(-1), sizes * row)
        return Tensor(np.moveaxis(flat.reshape((int(sizes.sum()),) + moved.shape[1:]), 0, axis))

    def _allreduce(self, arrays, names):
        if self.num_replicas_in_sync == 1:
            return [np.array(a) for a in arrays]
        return self.exchange.exchange([np.asarray(a) for a in arrays], names)

    def _exchange_pairs(self, pairs, average=False):
        grads = self.exchange.exchange([g for g, _ in pairs], [v.name for _, v in pairs], average=average,
                                       shapes=[v.shape for _, v in pairs], reuse=True)
        return [(g, v) for g, (_, v) in zip(grads, pairs)]

    # -- input
    def experimental_distribute_dataset(self, dataset, options=None) -> DistributedDataset:
        """Each replica gets its slice of every global batch of ``dataset``, in rank order.

        A global batch of ``B`` rows is split as ``numpy.array_split`` does: the first ``B % N`` replicas get
        ``B // N + 1`` rows, the others ``B // N`` (TF's rebatching; a short last batch can leave a replica
        with zero rows). Scale the loss by the global batch (``compute_average_loss``)."""
        return DistributedDataset(dataset, self, split=True)

    def distribute_datasets_from_function(self, dataset_fn, options=None) -> DistributedDataset:
        """Call ``dataset_fn(InputContext)`` in each process; its dataset yields this replica's batches."""
        if not callable(dataset_fn):
            raise TypeError(f"`dataset_fn` must be callable. Received: {dataset_fn!r}")
        ctx = InputContext(self.num_replicas_in_sync, self.group.rank, self.num_replicas_in_sync)
        return DistributedDataset(dataset_fn(ctx), self, split=False)


class MultiWorkerMirroredStrategy(Strategy):
    """Synchronous data parallelism over the processes of an ``mpiexec`` job (one replica each);
    one replica when the script is not started by mpiexec.

    ``cluster_resolver`` and ``communication_options`` are accepted for TF compatibility and ignored
    (MPI's launcher says who the workers are).
    """

    def __init__(self, cluster_resolver=None, communication_options=None, *,
                 bucket_bytes: int = DEFAULT_BUCKET_BYTES, sparse_as_dense: bool = False,
                 shard_optimizer_state: bool = False):
        super().__init__(bucket_bytes=bucket_bytes, sparse_as_dense=sparse_as_dense,
                         shard_optimizer_state=shard_optimizer_state)


class MirroredStrategy(Strategy):
    """The same as :class:`MultiWorkerMirroredStrategy` (processes on one host); ``devices`` and
    ``cross_device_ops`` are accepted for TF compatibility and ignored."""

    def __init__(self, devices=None, cross_device_ops=None, *, bucket_bytes: int = DEFAULT_BUCKET_BYTES,
                 sparse_as_dense: bool = False, shard_optimizer_state: bool = False):
        super().__init__(bucket_bytes=bucket_bytes, sparse_as_dense=sparse_as_dense,
                         shard_optimizer_state=shard_optimizer_state)


class _DefaultStrategy(Strategy):
    is_default = True

    def __init__(self):
        super().__init__(group=comm.LocalGroup())


_DEFAULT = None


def _default() -> Strategy:
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = _DefaultStrategy()
    return _DEFAULT


class ReplicaContext:
    """This replica's view inside ``strategy.run`` (``tf.distribute.get_replica_context()``)."""

    def __init__(self, strategy: Strategy):
        self.strategy = strategy

    @property
    def num_replicas_in_sync(self) -> int:
        return self.strategy.num_replicas_in_sync

    @property
    def replica_id_in_sync_group(self) -> int:
        return self.strategy.group.rank

    def all_reduce(self, reduce_op, value, options=None):
        """``SUM`` or ``MEAN`` of ``value`` (a Tensor, array, ``IndexedSlices`` or a list/tuple/dict of them)
        across replicas; every replica gets the result."""
        op = _reduce_op(reduce_op)
        leaves, rebuild = _flatten(value)
        grads = [v if isinstance(v, IndexedSlices) else np.asarray(to_array(v)) for v in leaves]
        if self.num_replicas_in_sync == 1:
            out = [g if isinstance(g, IndexedSlices) else np.array(g) for g in grads]
        else:
            out = self.strategy.exchange.exchange(grads, [f"all_reduce/{k}" for k in range(len(grads))],
                                                  average=op is ReduceOp.MEAN)
        return rebuild([g if isinstance(g, IndexedSlices) else Tensor(g) for g in out])


def _flatten(value):
    if isinstance(value, (list, tuple)):
        parts = [_flatten(v) for v in value]
        sizes = [len(p[0]) for p in parts]

        def rebuild(leaves):
            out, k = [], 0
            for (_, rb), n in zip(parts, sizes):
                out.append(rb(leaves[k:k + n]))
                k += n
            return type(value)(out)

        return [leaf for p in parts for leaf in p[0]], rebuild
    if isinstance(value, dict):
        keys = list(value)
        inner_leaves, inner_rebuild = _flatten([value[k] for k in keys])
        return inner_leaves, lambda leaves: dict(zip(keys, inner_rebuild(leaves)))
    return [value], lambda leaves: leaves[0]


class InputContext:
    """What ``dataset_fn`` of :meth:`Strategy.distribute_datasets_from_function` gets (TF's ``InputContext``)."""

    def __init__(self, num_input_pipelines: int = 1, input_pipeline_id: int = 0, num_replicas_in_sync: int = 1):
        self.num_input_pipelines = int(num_input_pipelines)
        self.input_pipeline_id = int(input_pipeline_id)
        self.num_replicas_in_sync = int(num_replicas_in_sync)

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        """``global_batch_size // num_replicas_in_sync``; raises ``ValueError`` when it does not divide."""
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync

    def __repr__(self):
        return (f"InputContext(num_input_pipelines={self.num_input_pipelines}, input_pipeline_id="
                f"{self.input_pipeline_id}, num_replicas_in_sync={self.num_replicas_in_sync})")


def split_bounds(n: int, parts: int, index: int) -> tuple[int, int]:
    """Rows ``[start, stop)`` of replica ``index`` when ``n`` rows split over ``parts`` replicas (array_split)."""
    base, extra = divmod(n, parts)
    start = index * base + min(index, extra)
    return start, start + base + (1 if index < extra else 0)


class DistributedDataset:
    """Iterates this replica's share of a dataset (from :meth:`Strategy.experimental_distribute_dataset`)."""

    def __init__(self, dataset, strategy: Strategy, *, split: bool):
        self.dataset = dataset
        self.strategy = strategy
        self.split = split

    def __iter__(self):
        n, r = self.strategy.num_replicas_in_sync, self.strategy.group.rank
        for element in self.dataset:
            yield _slice_batch(element, n, r) if self.split else element


def _slice_batch(element, parts, index):
    leaves, rebuild = _flatten(element)
    sizes = set()
    for leaf in leaves:
        shape = np.shape(to_array(leaf)) if not isinstance(leaf, np.ndarray) else leaf.shape
        if len(shape) == 0:
            raise ValueError("experimental_distribute_dataset expects a batched dataset (every component with a "
                             f"leading batch dimension). Received a scalar component: {leaf!r}")
        sizes.add(shape[0])
    if len(sizes) > 1:
        raise ValueError(f"the components of a batch have different batch sizes: {sorted(sizes)}")
    start, stop = split_bounds(sizes.pop(), parts, index)
    out = []
    for leaf in leaves:
        if isinstance(leaf, Tensor):
            out.append(Tensor(leaf._value[start:stop]))
        elif isinstance(leaf, np.ndarray):
            out.append(leaf[start:stop])
        else:
            out.append(Tensor(np.asarray(to_array(leaf))[start:stop]))
    return rebuild(out)
