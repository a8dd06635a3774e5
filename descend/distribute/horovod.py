"""Horovod's surface, for code written against ``horovod.tensorflow``: ``import descend.distribute.horovod as hvd``.

As in Horovod, gradients are **averaged** across ranks by default (``op=Average``):
each rank computes the mean loss of its own batch, and the mean of those
gradients is the gradient of the mean over the global batch (equal local
batches). ``op=Sum`` gives TF's sum instead. The averaging is a division by the
number of ranks after the sum.

Example:
    >>> import descend as ds
    >>> import descend.distribute.horovod as hvd
    >>> hvd.init()
    >>> w = ds.Variable([1.0, 2.0], name="w")
    >>> hvd.broadcast_variables([w], root_rank=0)
    >>> with ds.GradientTape() as tape:
    ...     loss = ds.reduce_sum(w * w)
    >>> tape = hvd.DistributedGradientTape(tape)
    >>> tape.gradient(loss, [w])[0].numpy()
    array([2., 4.], dtype=float32)
"""

from __future__ import annotations

import types

import numpy as np

from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable
from ..optimizers.pipeline import Aggregation
from ..training.callbacks import Callback
from . import comm
from .collectives import DEFAULT_BUCKET_BYTES, GradientExchange, agree_on_error, broadcast_arrays

__all__ = ["Average", "Sum", "init", "is_initialized", "rank", "size", "local_rank", "local_size", "allreduce",
           "allgather", "broadcast", "allgather_object", "broadcast_object", "broadcast_variables",
           "DistributedGradientTape", "DistributedOptimizer", "BroadcastGlobalVariablesCallback",
           "MetricAverageCallback", "callbacks"]

#: reduction ops (Horovod's names)
Average = "Average"
Sum = "Sum"

_EXCHANGES: dict = {}


def init() -> None:
    """Join the job's process group (a group of one without mpiexec). Idempotent."""
    comm.world()


def is_initialized() -> bool:
    return comm._WORLD is not None


def rank() -> int:
    """This process's rank in the job."""
    return comm.world().rank


def size() -> int:
    """The number of processes in the job."""
    return comm.world().size


def local_rank() -> int:
    """This process's rank among the processes on its host."""
    return comm.world().local_rank


def local_size() -> int:
    """The number of processes on this host."""
    return comm.world().local_size


def _op(op) -> bool:
    if op in (Average, "average", "AVERAGE", "MEAN"):
        return True
    if op in (Sum, "sum", "SUM"):
        return False
    raise ValueError(f"`op` must be hvd.Average or hvd.Sum. Received: op={op!r}")


def _exchange(sparse_as_dense: bool, bucket_bytes: int) -> GradientExchange:
    key = (bool(sparse_as_dense), int(bucket_bytes))
    if key not in _EXCHANGES:
        _EXCHANGES[key] = GradientExchange(comm.world(), bucket_bytes=bucket_bytes, sparse_as_dense=sparse_as_dense)
    return _EXCHANGES[key]


def allreduce(tensor, op=Average, name: str | None = None):
    """The average (or sum) of ``tensor`` over all ranks: a Tensor (an ``IndexedSlices`` stays sparse)."""
    average = _op(op)
    value = tensor if isinstance(tensor, IndexedSlices) else np.asarray(to_array(tensor))
    if size() == 1:
        return value if isinstance(value, IndexedSlices) else Tensor(np.array(value))
    out = _exchange(False, DEFAULT_BUCKET_BYTES).exchange([value], [name or "allreduce"], average=average)[0]
    return out if isinstance(out, IndexedSlices) else Tensor(out)


def _check_root(root_rank) -> int:
    n = size()
    if isinstance(root_rank, bool) or not isinstance(root_rank, (int, np.integer)) or not 0 <= root_rank < n:
        raise ValueError(f"`root_rank` must be an integer in [0, {n}). Received: root_rank={root_rank!r}")
    return int(root_rank)


def _same_everywhere(what: str, value: np.ndarray, shape) -> None:
    """Raise on every rank, naming the first rank that differs, unless all ranks pass the same shape and dtype."""
    mine = (tuple(shape), value.dtype.str)
    everyone = comm.world().allgather_object(mine)
    for r, theirs in enumerate(everyone):
        if theirs != everyone[0]:
            raise ValueError(f"{what}: rank 0 has shape {everyone[0][0]} and dtype {np.dtype(everyone[0][1]).name}, "
                             f"rank {r} has shape {theirs[0]} and dtype {np.dtype(theirs[1]).name}")


def allgather(tensor, name: str | None = None):
    """Every rank's ``tensor`` concatenated along the first axis, in rank order (a Tensor). The first
    dimension may differ between ranks; the other dimensions and the dtype must agree."""
    value = np.ascontiguousarray(to_array(tensor))
    if value.ndim == 0:
        raise ValueError(f"allgather expects a tensor of rank >= 1. Received a scalar ({name or 'tensor'})")
    group = comm.world()
    if group.size == 1:
        return Tensor(value.copy())
    _same_everywhere("allgather", value, value.shape[1:])
    counts = group.allgather_counts(np.array([value.shape[0]], np.int64))[:, 0]
    row = int(np.prod(value.shape[1:], dtype=np.int64))
    flat = group.allgatherv(value.reshape(-1), counts * row)
    return Tensor(flat.reshape((int(counts.sum()),) + value.shape[1:]))


def broadcast(tensor, root_rank: int = 0, name: str | None = None):
    """Rank ``root_rank``'s ``tensor`` on every rank (a Tensor; every rank passes the same shape and dtype)."""
    root = _check_root(root_rank)
    value = np.array(to_array(tensor), order="C")
    if size() > 1:
        _same_everywhere("broadcast", value, value.shape)
        comm.world().bcast(value, root)
    return Tensor(value)


def allgather_object(obj, name: str | None = None) -> list:
    """Every rank's picklable ``obj``, in rank order."""
    return comm.world().allgather_object(obj)


def broadcast_object(obj, root_rank: int = 0, name: str | None = None):
    """Rank ``root_rank``'s picklable ``obj`` on every rank."""
    return comm.world().allgather_object(obj)[_check_root(root_rank)]


def broadcast_variables(variables, root_rank: int = 0) -> None:
    """Overwrite every variable with rank ``root_rank``'s value (one ``Bcast`` per dtype)."""
    variables = list(variables)
    for v in variables:
        if not isinstance(v, Variable):
            raise TypeError(f"broadcast_variables expects descend.Variable objects. Received: {type(v).__name__}")
    broadcast_arrays(comm.world(), [v._value for v in variables], int(root_rank))
    for v in variables:
        v._mark_updated()


class DistributedGradientTape:
    """Wraps a ``GradientTape``: ``gradient`` returns the gradients averaged (or summed) over all ranks,
    dense ones in fused buckets and sparse ones all-gathered as rows."""

    def __init__(self, gradtape, device_dense="", device_sparse="", compression=None, sparse_as_dense=False,
                 op=Average, *, bucket_bytes: int = DEFAULT_BUCKET_BYTES):
        self._tape = gradtape
        self._average = _op(op)
        self._exchange = _exchange(sparse_as_dense, bucket_bytes)

    def __enter__(self):
        self._tape.__enter__()
        return self

    def __exit__(self, *exc):
        return self._tape.__exit__(*exc)

    def __getattr__(self, name):
        return getattr(self._tape, name)

    def gradient(self, target, sources, output_gradients=None, **kwargs):
        grads = self._tape.gradient(target, sources, output_gradients=output_gradients, **kwargs)
        single = not isinstance(sources, (list, tuple))
        src = [sources] if single else list(sources)
        grads = [grads] if single else list(grads)
        if comm.world().size == 1:
            return grads[0] if single else grads
        arrays = [g if g is None or isinstance(g, IndexedSlices) else np.asarray(to_array(g)) for g in grads]
        names = [s.scoped_name if isinstance(s, Variable) else f"source_{k}" for k, s in enumerate(src)]
        shapes = [tuple(s.shape) for s in src]
        out = self._exchange.exchange(arrays, names, average=self._average, shapes=shapes)
        out = [g if g is None or isinstance(g, IndexedSlices) else Tensor(g) for g in out]
        return out[0] if single else out


class HorovodAggregation(Aggregation):
    """The ``aggregate`` stage of Horovod's ``DistributedOptimizer``: every gradient averaged (or summed)
    over all the ranks, whatever strategy is active; every rank then holds the same values."""

    def __init__(self, exchange: GradientExchange, average: bool):
        self.exchange, self.average = exchange, average

    def replicated(self, optimizer, pairs) -> bool:
        return self.exchange.group.size > 1

    def any(self, optimizer, pairs, found: bool) -> bool:
        return self.exchange.group.any(found)

    def agree(self, optimizer, error) -> None:
        agree_on_error(self.exchange.group, error, f"apply_gradients of optimizer '{optimizer.name}'")

    def prepare(self, plan) -> None:
        pairs = plan.pairs
        if self.exchange.group.size == 1:
            return
        grads = self.exchange.exchange([g for g, _ in pairs], [v.scoped_name for _, v in pairs], average=self.average,
                                       shapes=[v.shape for _, v in pairs], reuse=True)
        plan.pairs = [(g, v) for g, (_, v) in zip(grads, pairs)]
        plan.changed = [True] * len(pairs)  # a sum of finite values can overflow


def DistributedOptimizer(optimizer, name=None, device_dense="", device_sparse="", compression=None,  # noqa: N802
                         sparse_as_dense=False, backward_passes_per_step=1, op=Average, *,
                         bucket_bytes: int = DEFAULT_BUCKET_BYTES):
    """Make ``optimizer`` average (or sum) its gradients over all ranks before each update; returns it.

    The exchange is the optimizer's ``aggregate`` stage: after gradient accumulation (once per applied
    update), before de-duplication and clipping. For Horovod's ``backward_passes_per_step`` use the
    optimizer's ``gradient_accumulation_steps``."""
    if not callable(getattr(optimizer, "set_aggregation", None)):
        raise TypeError(f"DistributedOptimizer expects a descend optimizer. Received: {type(optimizer).__name__}")
    if backward_passes_per_step != 1:
        raise ValueError("backward_passes_per_step is not supported; create the optimizer with "
                         f"gradient_accumulation_steps={backward_passes_per_step} instead (the exchange then runs "
                         "once per applied update)")
    optimizer.set_aggregation(HorovodAggregation(_exchange(sparse_as_dense, bucket_bytes), _op(op)))
    return optimizer


# ---------------------------------------------------------------------------------------------- Keras callbacks
class BroadcastGlobalVariablesCallback(Callback):
    """Horovod's Keras callback: every rank takes rank ``root_rank``'s weights and optimizer state, so that
    ranks that built their models apart (each its own random init) train alike. It broadcasts when
    training begins and again after the first batch (the optimizer's slots exist only then), as Horovod."""

    def __init__(self, root_rank: int = 0, device: str = ""):
        super().__init__()
        self.root_rank = int(root_rank)
        self._done = False

    def _broadcast(self, with_optimizer: bool) -> None:
        variables = list(getattr(self.model, "variables", []) or [])
        optimizer = getattr(self.model, "optimizer", None)
        if with_optimizer and optimizer is not None:
            variables += [v for v in optimizer.variables if not any(v is w for w in variables)]
        broadcast_variables([v for v in variables if isinstance(v, Variable)], self.root_rank)

    def on_train_begin(self, logs=None):
        self._done = False
        self._broadcast(with_optimizer=False)

    def on_train_batch_end(self, batch, logs=None):
        if not self._done:
            self._broadcast(with_optimizer=True)
            self._done = True


class MetricAverageCallback(Callback):
    """Horovod's Keras callback: each epoch's logged metrics averaged over the ranks (every rank logs the
    same numbers), for programs in which each rank fits its own shard of the data."""

    def on_epoch_end(self, epoch, logs=None):
        if logs is None or size() == 1:
            return
        keys = sorted(k for k, v in logs.items() if isinstance(v, (int, float, np.number)) and not isinstance(v, bool))
        values = np.array([float(logs[k]) for k in keys], np.float64)
        everyone = comm.world().allgather_object(keys)
        if any(k != keys for k in everyone):
            raise ValueError(f"MetricAverageCallback: the ranks log different metrics: {everyone}")
        comm.world().allreduce_sum(values)
        for k, v in zip(keys, values / size()):
            logs[k] = float(v)


#: ``hvd.callbacks.BroadcastGlobalVariablesCallback`` and ``hvd.callbacks.MetricAverageCallback`` (the names of
#: ``horovod.tensorflow.keras.callbacks``)
callbacks = types.SimpleNamespace(BroadcastGlobalVariablesCallback=BroadcastGlobalVariablesCallback,
                                  MetricAverageCallback=MetricAverageCallback)
