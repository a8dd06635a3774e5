"""The gradient exchange: fused dense buckets, sparse rows all-gathered, a model check at the first step.

Dense gradients are packed, in the order given and grouped by dtype, into
contiguous buckets of at most ``bucket_bytes`` (a larger tensor is a bucket of
its own) and summed with one in-place ``Allreduce`` per bucket: never one
collective, and never a pickle, per tensor. The layout depends only on the
list of gradients, so every rank builds the same buckets, and MPI's reduction
of a fixed count over a fixed number of ranks is the same every run: repeated
runs with the same number of processes are bitwise identical.

Sparse gradients (``IndexedSlices``) are de-duplicated locally, then every
rank's rows are all-gathered (row counts with one ``Allgather``, the indices
and the values of all sparse gradients with one ``Allgatherv`` each per dtype)
and concatenated in rank order: the result is an ``IndexedSlices`` whose
repeated rows the optimizer's de-duplication sums, never a dense table.
``sparse_as_dense=True`` densifies them into the dense buckets instead (cheaper
when most rows are touched).

Example:
    >>> import numpy as np
    >>> from descend.distribute import collectives, comm
    >>> ex = collectives.GradientExchange(comm.LocalGroup())
    >>> ex.exchange([np.ones(3)], ["w"])[0]
    array([1., 1., 1.])
"""

from __future__ import annotations

import numpy as np

from ..framework.indexed_slices import IndexedSlices, deduplicate
from ..framework.tensor import Tensor

__all__ = ["GradientExchange", "ReplicaMismatchError", "DEFAULT_BUCKET_BYTES", "broadcast_arrays"]

#: fused bucket size (Horovod's default fusion threshold)
DEFAULT_BUCKET_BYTES = 64 << 20


class ReplicaMismatchError(ValueError):
    """The ranks disagree on the variables they exchange (names, shapes, dtypes or dense/sparse)."""


def _describe(entry) -> str:
    name, shape, dtype, kind = entry
    return f"'{name}' ({kind}, shape {shape}, dtype {np.dtype(dtype).name})" if kind != "none" else f"'{name}' (no gradient)"


def _first_difference(signatures: list) -> str:
    ref = signatures[0]
    for r, sig in enumerate(signatures[1:], start=1):
        if sig == ref:
            continue
        for k, (a, b) in enumerate(zip(ref, sig)):
            if a != b:
                return f"at gradient {k}, rank 0 has {_describe(a)} and rank {r} has {_describe(b)}"
        longer, which = (ref, 0) if len(ref) > len(sig) else (sig, r)
        return (f"rank 0 has {len(ref)} gradients and rank {r} has {len(sig)}; the first extra one is "
                f"{_describe(longer[min(len(ref), len(sig))])} on rank {which}")
    return "no difference"


class GradientExchange:
    """Sums (or averages) lists of gradients over a process group.

    Args:
        group: a :class:`~descend.distribute.comm.Group`.
        bucket_bytes: the most bytes one fused ``Allreduce`` carries.
        sparse_as_dense: densify ``IndexedSlices`` and all-reduce them with the dense gradients.
    """

    def __init__(self, group, *, bucket_bytes: int = DEFAULT_BUCKET_BYTES, sparse_as_dense: bool = False):
        if not isinstance(bucket_bytes, (int, np.integer)) or isinstance(bucket_bytes, bool) or bucket_bytes < 1:
            raise ValueError(f"`bucket_bytes` must be a positive integer. Received: bucket_bytes={bucket_bytes!r}")
        self.group = group
        self.bucket_bytes = int(bucket_bytes)
        self.sparse_as_dense = bool(sparse_as_dense)
        self._verified: set = set()
        self._buffers: dict = {}  # signature -> {(dtype, first position): bucket} (reuse=True)
        self.stats = {"exchanges": 0, "dense_bytes": 0, "sparse_bytes": 0, "collectives": 0}

    # ---------------------------------------------------------------------------------------------- checks
    def check_signature(self, signature: tuple) -> None:
        """Raise :class:`ReplicaMismatchError` on every rank, naming the first difference, unless all ranks
        exchange the same list (checked once per distinct list: one small all-gather)."""
        if self.group.size == 1 or signature in self._verified:
            return
        signatures = self.group.allgather_object(signature)
        if any(s != signatures[0] for s in signatures):
            raise ReplicaMismatchError(f"the ranks disagree on the model: {_first_difference(signatures)}. Every rank "
                                       "must build the same variables in the same order")
        self._verified.add(signature)

    @staticmethod
    def signature(grads, names, shapes=None) -> tuple:
        out = []
        for k, (g, name) in enumerate(zip(grads, names)):
            if g is None:
                out.append((name, (), "V", "none"))
            elif isinstance(g, IndexedSlices):
                shape = tuple(g.dense_shape) if g.dense_shape is not None else (
                    tuple(shapes[k]) if shapes is not None else (-1,) + tuple(g.values.shape[1:]))
                out.append((name, shape, g.values._value.dtype.str, "sparse"))
            else:
                out.append((name, tuple(g.shape), g.dtype.str, "dense"))
        return tuple(out)

    # ---------------------------------------------------------------------------------------------- exchange
    def exchange(self, grads: list, names: list, *, average: bool = False, shapes: list | None = None,
                 reuse: bool = False) -> list:
        """The cross-replica sum (or mean) of ``grads`` (NumPy arrays, ``IndexedSlices`` or None).

        Returns a new list: dense results are new arrays (the inputs are never written), sparse ones
        ``IndexedSlices`` of every rank's de-duplicated rows. ``names`` name the gradients in the model
        check; ``shapes`` give the dense shapes of sparse gradients that do not carry one.

        ``reuse=True`` (the optimizers' ``aggregate`` stage) packs into buckets kept from the previous
        exchange of the same list of gradients, so the dense results are only valid until then: an
        optimizer's plan is committed before its next exchange."""
        grads = [g if g is None or isinstance(g, IndexedSlices) else np.asarray(g) for g in grads]
        signature = self.signature(grads, names, shapes)
        self.check_signature(signature)
        group = self.group
        self.stats["exchanges"] += 1
        out = list(grads)
        dense, sparse = [], []
        for k, g in enumerate(grads):
            if g is None:
                continue
            if isinstance(g, IndexedSlices):
                shape = tuple(g.dense_shape) if g.dense_shape is not None else (
                    tuple(shapes[k]) if shapes is not None else None)
                if self.sparse_as_dense:
                    if shape is None:
                        raise ValueError(f"sparse_as_dense needs the dense shape of gradient '{names[k]}'")
                    out[k] = _densify(g, shape)
                    dense.append(k)
                else:
                    sparse.append((k, shape))
            else:
                dense.append(k)
        if group.size == 1:
            for k, shape in sparse:
                out[k] = deduplicate(_with_shape(out[k], shape))
            return out
        self._dense(out, dense, average, self._buffers.setdefault(signature, {}) if reuse else None)
        if sparse:
            self._sparse(out, sparse, average)
        return out

    def _dense(self, out, positions, average, cache=None):
        group = self.group
        by_dtype: dict = {}
        for k in positions:
            by_dtype.setdefault(out[k].dtype, []).append(k)
        for dtype, ks in by_dtype.items():
            limit = max(1, self.bucket_bytes // dtype.itemsize)
            bucket, size = [], 0
            for k in ks + [None]:
                n = None if k is None else out[k].size
                if bucket and (k is None or size + n > limit):
                    if cache is None:
                        buf = np.empty(size, dtype)
                    else:
                        buf = cache.get((dtype, bucket[0]))
                        if buf is None:
                            buf = cache[(dtype, bucket[0])] = np.empty(size, dtype)
                    offset = 0
                    for j in bucket:
                        m = out[j].size
                        buf[offset:offset + m] = out[j].reshape(-1)
                        offset += m
                    group.allreduce_sum(buf)
                    if average:
                        np.divide(buf, dtype.type(group.size), out=buf)
                    self.stats["collectives"] += 1
                    self.stats["dense_bytes"] += buf.nbytes
                    offset = 0
                    for j in bucket:
                        shape, m = out[j].shape, out[j].size
                        out[j] = buf[offset:offset + m].reshape(shape)
                        offset += m
                    bucket, size = [], 0
                if k is not None:
                    bucket.append(k)
                    size += n

    def _sparse(self, out, sparse, average):
        group = self.group
        local = []
        for k, shape in sparse:
            d = deduplicate(_with_shape(out[k], shape))
            local.append((k, d.indices._value.astype(np.int64, copy=False), d.values._value, d.dense_shape))
        counts = group.allgather_counts(np.array([idx.size for _, idx, _, _ in local], np.int64))  # (ranks, S)
        all_idx = group.allgatherv(np.concatenate([idx for _, idx, _, _ in local]), counts.sum(axis=1))
        self.stats["collectives"] += 2
        self.stats["sparse_bytes"] += counts.nbytes + all_idx.nbytes
        # rank-major offsets of each gradient's indices in the gathered vector
        idx_start = np.concatenate([np.zeros((counts.shape[0], 1), np.int64), np.cumsum(counts, axis=1)[:, :-1]],
                                   axis=1) + np.concatenate([[0], np.cumsum(counts.sum(axis=1))[:-1]])[:, None]
        by_dtype: dict = {}
        for s, (_, _, vals, _) in enumerate(local):
            by_dtype.setdefault(vals.dtype, []).append(s)
        gathered_vals = {}
        for dtype, ss in by_dtype.items():
            row = [int(np.prod(local[s][2].shape[1:], dtype=np.int64)) for s in ss]
            per_rank = (counts[:, ss] * np.array(row, np.int64)).astype(np.int64)  # (ranks, len(ss)) elements
            mine = np.concatenate([local[s][2].reshape(-1) for s in ss]) if ss else np.empty(0, dtype)
            flat = group.allgatherv(mine, per_rank.sum(axis=1))
            self.stats["collectives"] += 1
            self.stats["sparse_bytes"] += flat.nbytes
            starts = np.concatenate([np.zeros((per_rank.shape[0], 1), np.int64), np.cumsum(per_rank, axis=1)[:, :-1]],
                                    axis=1) + np.concatenate([[0], np.cumsum(per_rank.sum(axis=1))[:-1]])[:, None]
            for j, s in enumerate(ss):
                gathered_vals[s] = [flat[starts[r, j]:starts[r, j] + per_rank[r, j]] for r in range(group.size)]
        for s, (k, _, vals, dense_shape) in enumerate(local):
            idx = np.concatenate([all_idx[idx_start[r, s]:idx_start[r, s] + counts[r, s]] for r in range(group.size)])
            values = np.concatenate(gathered_vals[s]).reshape((idx.size,) + vals.shape[1:])
            if average:
                values = values / vals.dtype.type(group.size)
            out[k] = IndexedSlices(Tensor(values), Tensor(idx), dense_shape)


def _with_shape(g: IndexedSlices, shape) -> IndexedSlices:
    if g.dense_shape is None and shape is not None:
        return IndexedSlices(g.values, g.indices, shape)
    return g


def _densify(g: IndexedSlices, shape) -> np.ndarray:
    d = deduplicate(_with_shape(g, shape))
    dense = np.zeros(shape, d.values._value.dtype)
    dense[d.indices._value] = d.values._value
    return dense


def broadcast_arrays(group, arrays: list, root: int = 0) -> None:
    """Overwrite every array in ``arrays`` with rank ``root``'s, in place: one ``Bcast`` per dtype."""
    if group.size == 1:
        group.bcast(np.empty(0), root)
        return
    by_dtype: dict = {}
    for a in arrays:
        by_dtype.setdefault(a.dtype, []).append(a)
    for dtype, items in by_dtype.items():
        buf = np.concatenate([a.reshape(-1) for a in items]) if items else np.empty(0, dtype)
        group.bcast(buf, root)
        offset = 0
        for a in items:
            a[...] = buf[offset:offset + a.size].reshape(a.shape)
            offset += a.size
