"""Sharded dense optimizer state (ZeRO stage 1) over MPI: ``shard_optimizer_state=True`` on a strategy.

With ``MultiWorkerMirroredStrategy(shard_optimizer_state=True)`` every replica
still holds every variable, but the optimizer's slots (Adam's ``m`` and ``v``,
momentum, ...) of each dense variable live on one replica only, its *owner*:

* **partition**: whole variables, balanced by bytes. The first update that
  names a variable gives it an owner: the variables new to that update, largest
  first (ties in the order given), each go to the replica that owns the fewest
  bytes so far (ties to the lowest rank). An owner never changes while the
  process lives, so slots never move; the rule depends only on the list of
  variables, which every rank checks against the others (the model check).
* **reduce-scatter**: the dense gradients are packed per dtype, owner by owner,
  into one buffer and summed with one ``MPI_Reduce_scatter``: each replica
  receives the sums of the variables it owns only.
* **update**: the owner runs the optimizer's pipeline (clipping, the
  non-finite policy, schedules, weight decay, the rule) on its share; the other
  replicas create no slot for it. ``iterations``, step state and schedules
  advance on every replica.
* **all-gather**: after the update, one ``MPI_Allgatherv`` per dtype gives
  every replica the owners' new values, so the variables stay identical.

What needs all the gradients is computed across the replicas: ``global_clipnorm``
uses the norm of all of them (each owner's per-variable squared sums,
all-reduced, then added in the variables' order, as one process adds them), and
``on_nonfinite`` decides once for all replicas (a NaN or Inf on one replica
skips the step, or raises, on every one). Sparse gradients (``IndexedSlices``,
embeddings) keep the replicated path: their rows are all-gathered and every
replica updates the table and its slots (``sparse_as_dense=True`` makes them
dense, hence sharded). ``use_ema`` is refused (the averages would be sharded
but ``finalize_variable_values`` is not).

**Checkpoints.** ``Checkpoint.write``/``save`` of objects trained under such a
strategy is collective (*every rank calls it*, as any checkpoint under a strategy
of several replicas): rank ``r > 0`` writes the slots it owns to ``shard-<r>/``
inside the checkpoint directory; rank 0 writes everything else and the manifest,
whose ``zero`` field says which rank owned which variable's slots (see
:mod:`descend.persistence.checkpoint.collective`). ``Checkpoint.read``/``restore`` reads all
the shards, on any number of processes, with or without ZeRO: each replica
restores the slots it owns and drops the rest at its next update; an unsharded
checkpoint restores into a ZeRO job the same way.

Example:
    >>> import numpy as np
    >>> import descend as ds
    >>> strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=True)
    >>> with strategy.scope():
    ...     w = ds.Variable(np.ones(3), name="w")
    ...     opt = ds.optimizers.Adam(0.1)
    >>> _ = strategy.run(lambda: opt.apply_gradients([(np.ones(3), w)]))
    >>> strategy.shard_optimizer_state, int(opt.iterations)
    (True, 1)
"""

from __future__ import annotations

import weakref

import numpy as np

from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from ..ops.math_ops import reduce_sum, sqrt, square
from .aggregation import ReplicaSum
from .collectives import _densify

__all__ = ["ZeroAggregation", "ZeroRedundancy", "checkpoint_owners", "owners", "slot_bytes", "partition"]

# optimizer -> the ZeroRedundancy that updated it last (set by the aggregate stage)
_REGISTRY: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def partition(sizes, ranks: int, load=None) -> list:
    """Owners for variables of ``sizes`` bytes over ``ranks`` replicas, balanced by bytes: largest first (ties in
    the order given), each to the replica with the fewest bytes so far (ties to the lowest rank). ``load`` (the
    bytes each replica owns already) is updated in place.

    Example:
        >>> from descend.distribute.zero import partition
        >>> partition([400, 40, 4000, 8], 2)
        [1, 1, 0, 1]
    """
    if not isinstance(ranks, (int, np.integer)) or ranks < 1:
        raise ValueError(f"`ranks` must be a positive integer. Received: ranks={ranks!r}")
    load = [0] * ranks if load is None else load
    out = [0] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (-int(sizes[i]), i)):
        r = min(range(ranks), key=lambda r: (load[r], r))
        out[i] = r
        load[r] += int(sizes[i])
    return out


class _Shards:
    """One optimizer's partition: owners (by variable id), bytes per replica, and the layout of the update
    in progress (set by the aggregate stage, used by the global norm and the all-gather)."""

    def __init__(self, ranks: int):
        self.owner: dict[int, int] = {}
        self.refs: dict[int, weakref.ref] = {}
        self.load = [0] * ranks
        self.layout = None


class _Layout:
    __slots__ = ("order", "groups")

    def __init__(self):
        self.order: list = []   # (var, kind, owner) for every gradient of the call, in order
        self.groups: list = []  # (dtype, [(var, owner)] owner-major, counts per rank)


class ZeroRedundancy:
    """The sharded update of a strategy (``shard_optimizer_state=True``); one per strategy."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.group = strategy.group
        self._shards: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self.stats = {"reduce_scatter_bytes": 0, "allgather_bytes": 0, "collectives": 0}

    def aggregation(self) -> ZeroAggregation:
        """The ``aggregate`` stage of optimizers updating under this strategy."""
        return ZeroAggregation(self)

    def shards_of(self, optimizer) -> _Shards:
        sh = self._shards.get(optimizer)
        if sh is None:
            sh = self._shards[optimizer] = _Shards(self.group.size)
        return sh

    # ------------------------------------------------------------------------------------ aggregate stage
    def aggregate(self, optimizer, pairs: list) -> list:
        """The ``aggregate`` stage: sparse gradients all-gathered (every replica gets them), dense ones
        reduce-scattered; returns the pairs this replica applies (its dense variables and every sparse one)."""
        if optimizer.use_ema:
            raise ValueError("shard_optimizer_state=True does not support use_ema=True (the moving averages would "
                             "be sharded); received an optimizer with use_ema=True")
        group, ex = self.group, self.strategy.exchange
        grads = [g for g, _ in pairs]
        names = [v.scoped_name for _, v in pairs]
        shapes = [v.shape for _, v in pairs]
        ex.check_signature(ex.signature(grads, names, shapes))
        if ex.sparse_as_dense:
            grads = [_densify(g, v.shape) if isinstance(g, IndexedSlices) else g for g, (_, v) in zip(grads, pairs)]
        out = list(grads)
        sparse = {k for k, g in enumerate(grads) if isinstance(g, IndexedSlices)}
        if sparse:
            ks = sorted(sparse)
            summed = ex.exchange([grads[k] for k in ks], [names[k] for k in ks], shapes=[shapes[k] for k in ks])
            for k, g in zip(ks, summed):
                out[k] = g
        sh = self.shards_of(optimizer)
        dense = [k for k, g in enumerate(grads) if not isinstance(g, IndexedSlices)]
        new = [k for k in dense if id(pairs[k][1]) not in sh.owner]
        if new:
            owners_new = partition([pairs[k][1]._value.nbytes for k in new], group.size, sh.load)
            for k, r in zip(new, owners_new):
                var = pairs[k][1]
                sh.owner[id(var)] = r
                sh.refs[id(var)] = weakref.ref(var)
                if r != group.rank:  # restored slots of a variable another replica owns are not kept here
                    optimizer.state.drop_pending_of(var)
        layout = _Layout()
        by_dtype: dict = {}
        for k, (g, var) in enumerate(zip(grads, (p[1] for p in pairs))):
            if isinstance(g, IndexedSlices):
                layout.order.append((var, "sparse", -1))
            else:
                r = sh.owner[id(var)]
                layout.order.append((var, "dense", r))
                by_dtype.setdefault(g.dtype, []).append(k)
        for dtype, ks in by_dtype.items():
            ks = sorted(ks, key=lambda k: (sh.owner[id(pairs[k][1])], k))
            counts = np.zeros(group.size, np.int64)
            for k in ks:
                counts[sh.owner[id(pairs[k][1])]] += grads[k].size
            buf = np.empty(int(counts.sum()), dtype)
            offset = 0
            for k in ks:
                m = grads[k].size
                buf[offset:offset + m] = grads[k].reshape(-1)
                offset += m
            mine = _reduce_scatter(group, buf, counts)
            self.stats["collectives"] += 1
            self.stats["reduce_scatter_bytes"] += buf.nbytes
            ex.stats["collectives"] += 1
            ex.stats["dense_bytes"] += buf.nbytes
            offset = 0
            for k in ks:
                if sh.owner[id(pairs[k][1])] == group.rank:
                    m = grads[k].size
                    out[k] = mine[offset:offset + m].reshape(grads[k].shape)
                    offset += m
            layout.groups.append((dtype, [(pairs[k][1], sh.owner[id(pairs[k][1])]) for k in ks], counts))
        sh.layout = layout
        _REGISTRY[optimizer] = self
        return [(out[k], pairs[k][1]) for k in range(len(pairs))
                if k in sparse or sh.owner[id(pairs[k][1])] == group.rank]

    # ------------------------------------------------------------------------------------ after the commit
    def gather(self, optimizer) -> None:
        """Every replica gets the owners' new values of the variables of the update just committed."""
        sh = self._shards.get(optimizer)
        layout = None if sh is None else sh.layout
        if layout is None:
            return
        sh.layout = None
        group = self.group
        for dtype, members, counts in layout.groups:
            own = [var._value.reshape(-1) for var, r in members if r == group.rank]
            mine = np.concatenate(own) if own else np.empty(0, dtype)
            full = group.allgatherv(mine.astype(dtype, copy=False), counts)
            self.stats["collectives"] += 1
            self.stats["allgather_bytes"] += full.nbytes
            offset = 0
            for var, r in members:
                m = var._value.size
                if r != group.rank:
                    var._value[...] = full[offset:offset + m].reshape(var._value.shape)
                    var._mark_updated()
                offset += m

    # ------------------------------------------------------------------------------------ global norm
    def global_norm(self, optimizer, pairs):
        """The norm of every gradient of the update in progress (None when none is): per-variable squared sums
        of this replica's, all-reduced (each position has one non-zero contribution: exact), added in order."""
        sh = self._shards.get(optimizer)
        layout = None if sh is None else sh.layout
        if layout is None:
            return None
        local = {id(v): g for g, v in pairs}
        sums: list = []
        by_dtype: dict = {}
        for i, (var, kind, r) in enumerate(layout.order):
            g = local.get(id(var))
            if kind == "sparse" or r == self.group.rank:
                values = g.values._value if isinstance(g, IndexedSlices) else g
                sums.append(np.asarray(reduce_sum(square(Tensor(values)))._value))
            else:
                sums.append(None)
            if kind == "dense":
                by_dtype.setdefault(var._value.dtype, []).append(i)
        for dtype, positions in by_dtype.items():
            buf = np.array([sums[i] if sums[i] is not None else 0 for i in positions], dtype)
            self.group.allreduce_sum(buf)
            self.stats["collectives"] += 1
            for i, value in zip(positions, buf):
                sums[i] = np.asarray(value, dtype)
        total = None
        for s in sums:
            t = Tensor(s)
            total = t if total is None else total + t
        return sqrt(total) if total is not None else None

    def any(self, found: bool) -> bool:
        self.stats["collectives"] += 1
        return self.group.any(found)

    def checkpoint_owners(self, graph) -> dict:
        """Which rank holds the slots of each variable of a checkpoint's ``graph`` (see :func:`checkpoint_owners`)."""
        return checkpoint_owners(self, graph)


def _reduce_scatter(group, buf: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """The sum of ``buf`` over the group, of which this rank receives its ``counts[rank]`` elements (rank
    ``r``'s part starts at ``sum(counts[:r])``)."""
    if group.size == 1:
        return buf.copy()
    comm = getattr(group, "comm", None)
    if comm is not None:
        from mpi4py import MPI

        out = np.empty(int(counts[group.rank]), buf.dtype)
        comm.Reduce_scatter(buf, out, recvcounts=[int(c) for c in counts], op=MPI.SUM)
        return out
    group.allreduce_sum(buf)  # a group without Reduce_scatter: all-reduce and keep this rank's part
    start = int(counts[:group.rank].sum())
    return buf[start:start + int(counts[group.rank])].copy()


# -------------------------------------------------------------------------------------------- the stage
class ZeroAggregation(ReplicaSum):
    """The ``aggregate`` stage under ``shard_optimizer_state=True``: dense gradients reduce-scattered to their
    owners (each replica applies its share), sparse ones all-gathered; on_nonfinite decided together; the
    global norm over every replica's share; the owners' new values all-gathered when the update is done."""

    def __init__(self, zr: ZeroRedundancy):
        super().__init__(zr.strategy)
        self.zr = zr

    def replicated(self, optimizer, pairs) -> bool:
        return False  # each replica holds the sums of its share only

    def sum_shared(self, optimizer, pairs: list) -> list:
        return self.zr.aggregate(optimizer, pairs)

    def any(self, optimizer, pairs, found: bool) -> bool:
        anywhere = self.zr.any(found)
        sh = self.zr._shards.get(optimizer)
        if anywhere and sh is not None:  # the step is skipped or raises on every rank: no all-gather follows
            sh.layout = None
        return anywhere

    def global_norm(self, optimizer, pairs):
        return self.zr.global_norm(optimizer, pairs)

    def finish(self, plan) -> None:
        self.zr.gather(plan.optimizer)


# -------------------------------------------------------------------------------------------- facts
def owners(optimizer) -> dict:
    """``{variable name: owning rank}`` of the dense variables ``optimizer`` has updated under ZeRO."""
    zr = _REGISTRY.get(optimizer)
    if zr is None:
        return {}
    sh = zr._shards[optimizer]
    out = {}
    for vid, r in sh.owner.items():
        var = sh.refs[vid]()
        if var is not None:
            out[var.scoped_name] = r
    return out


def slot_bytes(optimizer) -> int:
    """The bytes of the slots ``optimizer`` holds in this process.

    Example:
        >>> import descend as ds
        >>> from descend.distribute.zero import slot_bytes
        >>> w = ds.Variable([1.0, 2.0], name="w")
        >>> opt = ds.optimizers.Adam(0.1)
        >>> _ = opt.apply_gradients([(ds.constant([1.0, 1.0]), w)])
        >>> slot_bytes(opt)  # m and v, 2 float32 each
        16
    """
    skip = {id(optimizer.iterations)} | {id(v) for v in optimizer.state.step_vars.values()}
    return int(sum(v._value.nbytes for v in optimizer.variables if id(v) not in skip))


# -------------------------------------------------------------------------------------------- checkpoints
def checkpoint_owners(zr: ZeroRedundancy, graph) -> dict:
    """``{"<optimizer path>/<variable path>": rank}``: which rank holds the slots of each variable the
    optimizers of a checkpoint's ``graph`` have updated under ``zr`` (see
    :mod:`descend.persistence.checkpoint.collective`)."""
    owners = {}
    for leaf in graph.leaves:
        if leaf.kind == "optimizer":
            sh = zr._shards.get(leaf.obj)
            for vid, r in (sh.owner.items() if sh is not None else ()):
                var = sh.refs[vid]()
                if var is not None:
                    owners[f"{leaf.path}/{graph.var_key(var)}"] = r
    return owners
