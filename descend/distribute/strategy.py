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

import numpy as np

from ..framework import context, nest
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable
from ..optimizers.pipeline import Aggregation
from . import comm
from .aggregation import ReplicaSum
from .collectives import DEFAULT_BUCKET_BYTES, GradientExchange, broadcast_arrays
from .split import slice_batch

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
def has_strategy() -> bool:
    """Whether a strategy's ``scope()`` or ``run()`` is active (``tf.distribute.has_strategy``)."""
    return context.current_strategy() is not None


def get_strategy() -> Strategy:
    """The strategy whose ``scope()`` or ``run()`` is active, else the default strategy (one replica)."""
    s = context.current_strategy()
    return _default() if s is None else s


def in_cross_replica_context() -> bool:
    """True inside ``scope()`` but outside ``run()`` (``tf.distribute.in_cross_replica_context``)."""
    return context.in_replica() is False


def get_replica_context() -> ReplicaContext | None:
    """The replica context: inside ``run()`` this replica's, outside any strategy the default one's, and
    None in a cross-replica context (inside ``scope()``, outside ``run()``), as TF."""
    strategy, in_replica = context.current_strategy(), context.in_replica()
    if strategy is None:
        return ReplicaContext(_default())
    return ReplicaContext(strategy) if in_replica else None


#: the strategy a variable was created under, rank-local variables: kept by the distribution context
strategy_of = context.strategy_of
local_variables = context.local_variables
is_local = context.is_local


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
            from .zero import ZeroRedundancy  # the sharded update (a module of its own, used only here)

            self._zero = ZeroRedundancy(self)
        self._aggregation = None if self._zero is None else self._zero.aggregation()
        self._gradient_weight = None

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
        return context.entered(self, False)

    def run(self, fn, args=(), kwargs=None, options=None):
        """Call ``fn(*args, **kwargs)`` as this process's replica (in a replica context); returns its result."""
        if not callable(fn):
            raise TypeError(f"`fn` must be callable. Received: {fn!r}")
        with context.entered(self, True):
            return fn(*tuple(args), **(kwargs or {}))

    # -- what the layers below ask (descend.framework.context.StrategyProtocol)
    def variable_created(self, var: Variable) -> None:
        """A Variable created under this strategy: it belongs to it, and (several replicas, not rank-local)
        every rank must be creating the same variable, which then takes rank 0's value."""
        if self.is_default:
            return
        context.owned_by(var, self)
        if self.num_replicas_in_sync > 1 and not is_local(var):
            self.exchange.check_signature(((var.scoped_name, var.shape, var._value.dtype.str, "variable"),))
            broadcast_arrays(self.group, [var._value], 0)
            var._mark_updated()

    def aggregation_for(self, optimizer) -> Aggregation | None:
        """The ``aggregate`` stage of optimizers updating under this strategy (None: one replica)."""
        if self.num_replicas_in_sync == 1:
            return None
        if self._aggregation is None:
            self._aggregation = ReplicaSum(self)
        return self._aggregation

    def fit_replica(self):
        """This process's replica in ``fit`` (:class:`descend.distribute.strategy_replica.StrategyReplica`)."""
        from .strategy_replica import StrategyReplica  # fit's side of the strategy, in its own module

        return StrategyReplica(self)

    @contextlib.contextmanager
    def gradient_weight(self, weight: float | None):
        """Inside, the gradients this replica contributes to the sum across replicas are multiplied by
        ``weight`` (its share of the global batch: a model's own ``train_step`` under ``fit``); None: 1."""
        previous, self._gradient_weight = self._gradient_weight, weight
        try:
            yield
        finally:
            self._gradient_weight = previous

    def checkpoint_owners(self, graph) -> dict | None:
        """Which rank holds the optimizer slots of each variable of a checkpoint's ``graph`` when this strategy
        shards the optimizer state (None: every rank holds them all; see
        :mod:`descend.persistence.checkpoint.collective`)."""
        if self._zero is None or self.num_replicas_in_sync == 1:
            return None
        return self._zero.checkpoint_owners(graph)

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
        grads = self.exchange.exchange([g for g, _ in pairs], [v.scoped_name for _, v in pairs], average=average,
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
        leaves = nest.flatten(value)
        grads = [v if isinstance(v, IndexedSlices) else np.asarray(to_array(v)) for v in leaves]
        if self.num_replicas_in_sync == 1:
            out = [g if isinstance(g, IndexedSlices) else np.array(g) for g in grads]
        else:
            out = self.strategy.exchange.exchange(grads, [f"all_reduce/{k}" for k in range(len(grads))],
                                                  average=op is ReduceOp.MEAN)
        return nest.pack_like(value, [g if isinstance(g, IndexedSlices) else Tensor(g) for g in out])


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


class DistributedDataset:
    """Iterates this replica's share of a dataset (from :meth:`Strategy.experimental_distribute_dataset`)."""

    def __init__(self, dataset, strategy: Strategy, *, split: bool):
        self.dataset = dataset
        self.strategy = strategy
        self.split = split

    def __iter__(self):
        n, r = self.strategy.num_replicas_in_sync, self.strategy.group.rank
        for element in self.dataset:
            yield slice_batch(element, n, r) if self.split else element
