"""``tf``'s array-manipulation functions built from the registered ops: ``repeat``, ``boolean_mask``,
``sequence_mask``, ``meshgrid``, ``unique``, ``slice``, the ``tensor_scatter_nd_*`` family,
``searchsorted`` and the shape helpers.

No op is registered here: each function is a composition of ops (``gather``, ``scatter_nd``,
``where``, ``getitem``...) whose VJPs give its gradient, or returns a value without one (masks,
indices, shapes).
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from .array_ops import broadcast_to, gather, getitem, reshape, scatter_nd
from .math_ops import add, cast, identity, maximum, minimum, subtract, where

__all__ = [
    "repeat", "boolean_mask", "sequence_mask", "meshgrid", "unique", "unique_with_counts", "slice",
    "tensor_scatter_nd_update", "tensor_scatter_nd_add", "tensor_scatter_nd_sub", "tensor_scatter_nd_max",
    "tensor_scatter_nd_min", "searchsorted", "identity_n", "shape_n", "ensure_shape", "broadcast_static_shape",
    "broadcast_dynamic_shape", "saturate_cast", "invert_permutation",
]


def _int_array(x, what: str, owner: str) -> np.ndarray:
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    if a.dtype.kind not in "iu":
        raise TypeError(f"{owner}: `{what}` must be integers. Received: dtype {a.dtype.name}")
    return a


def repeat(input, repeats, axis=None, name=None):  # noqa: A002 - TF's name
    """Each entry repeated ``repeats`` times along ``axis`` (flattened first when ``axis`` is None), as
    ``tf.repeat`` / ``np.repeat``."""
    x = convert_to_tensor(input)
    if axis is None:
        x, axis = reshape(x, shape=(-1,)), 0
    ax = int(axis) % max(x.ndim, 1)
    reps = _int_array(repeats, "repeats", "repeat")
    if np.any(reps < 0):
        raise InvalidArgumentError(f"repeat: `repeats` must be non-negative. Received: {reps.tolist()}")
    idx = np.repeat(np.arange(x.shape[ax]), reps)
    return gather(x, Tensor(idx.astype(np.int64)), axis=ax)


def boolean_mask(tensor, mask, axis=None, name=None):
    """The entries of ``tensor`` where ``mask`` (a bool tensor over the axes ``axis, axis + 1, ...``) is
    True, flattened over the mask's axes (``tf.boolean_mask``)."""
    x = convert_to_tensor(tensor)
    m = np.asarray(convert_to_tensor(mask).numpy())
    if m.dtype != np.bool_:
        raise TypeError(f"boolean_mask: `mask` must be a bool tensor. Received: dtype {m.dtype.name}")
    ax = 0 if axis is None else int(axis) % x.ndim
    if m.ndim == 0 or tuple(x.shape[ax:ax + m.ndim]) != m.shape:
        raise ValueError(f"boolean_mask: the mask's shape {m.shape} must match the tensor's shape "
                         f"{tuple(x.shape)} from axis {ax}")
    merged = reshape(x, shape=(*x.shape[:ax], -1, *x.shape[ax + m.ndim:])) if m.ndim != 1 else x
    return gather(merged, Tensor(np.flatnonzero(m).astype(np.int64)), axis=ax)


def sequence_mask(lengths, maxlen=None, dtype="bool", name=None):
    """``mask[..., j] = j < lengths[...]`` (``tf.sequence_mask``; ``maxlen`` defaults to the longest)."""
    n = _int_array(convert_to_tensor(lengths), "lengths", "sequence_mask")
    width = int(n.max()) if maxlen is None and n.size else int(maxlen or 0)
    mask = np.arange(width) < n[..., None]
    return Tensor(mask.astype(backend.np_dtype(dtype)))


def meshgrid(*args, indexing="xy", name=None):
    """Coordinate grids of the 1-D inputs (``tf.meshgrid``; ``indexing`` is ``"xy"`` or ``"ij"``)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: `indexing` must be 'xy' or 'ij'. Received: {indexing!r}")
    xs = [reshape(convert_to_tensor(a), shape=(-1,)) for a in args]
    shape = [int(x.shape[0]) for x in xs]
    if indexing == "xy" and len(xs) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(xs):
        pos = (1 - i if i < 2 else i) if indexing == "xy" and len(xs) >= 2 else i
        view = [1] * len(xs)
        view[pos] = -1
        out.append(broadcast_to(reshape(x, shape=tuple(view)), shape=tuple(shape)))
    return out


def unique(x, out_idx="int32", name=None):
    """The distinct values of the vector ``x`` in order of first appearance, and for each entry the index
    of its value among them (``tf.unique``)."""
    y, idx, _ = _unique(x, out_idx)
    return y, idx


def unique_with_counts(x, out_idx="int32", name=None):
    """As :func:`unique`, and how many times each distinct value appears."""
    return _unique(x, out_idx)


def _unique(x, out_idx):
    a = np.asarray(convert_to_tensor(x).numpy())
    if a.ndim != 1:
        raise InvalidArgumentError(f"unique: `x` must be a vector. Received shape {a.shape}")
    _, first, inverse, counts = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
    order = np.argsort(first, kind="stable")  # by first appearance, as TF
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    dt = backend.np_dtype(out_idx)
    return (Tensor(a[first[order]]), Tensor(rank[inverse.reshape(-1)].astype(dt)),
            Tensor(counts[order].astype(dt)))


def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """The block of ``input_`` starting at ``begin`` with ``size`` entries per axis (-1: to the end), as
    ``tf.slice``."""
    x = convert_to_tensor(input_)
    b = [int(v) for v in np.asarray(begin).reshape(-1)]
    s = [int(v) for v in np.asarray(size).reshape(-1)]
    if len(b) != x.ndim or len(s) != x.ndim:
        raise InvalidArgumentError(f"slice: `begin` and `size` need one entry per axis ({x.ndim}). Received: "
                                   f"begin={b}, size={s}")
    key = []
    for axis, (start, length) in enumerate(zip(b, s)):
        stop = x.shape[axis] if length == -1 else start + length
        if start < 0 or stop > x.shape[axis] or stop < start:
            raise InvalidArgumentError(f"slice: axis {axis} of size {x.shape[axis]} cannot hold begin={start}, "
                                       f"size={length}")
        key.append(builtins.slice(start, stop))
    return getitem(x, tuple(key))


def _scatter_parts(tensor, indices, updates, owner):
    t = convert_to_tensor(tensor)
    u = convert_to_tensor(updates, dtype=t.dtype)
    idx = _int_array(convert_to_tensor(indices), "indices", owner)
    return t, Tensor(idx), u


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """``tensor`` with ``updates`` added at ``indices`` (repeats add up), as ``tf.tensor_scatter_nd_add``."""
    t, idx, u = _scatter_parts(tensor, indices, updates, "tensor_scatter_nd_add")
    return add(t, scatter_nd(idx, u, shape=t.shape))


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """``tensor`` with ``updates`` subtracted at ``indices``, as ``tf.tensor_scatter_nd_sub``."""
    t, idx, u = _scatter_parts(tensor, indices, updates, "tensor_scatter_nd_sub")
    return subtract(t, scatter_nd(idx, u, shape=t.shape))


def _hit_mask(t, idx):
    """1 where ``idx`` points (in ``t``'s dtype), else 0: a constant."""
    hit = np.zeros(t.shape, bool)
    i = idx.numpy()
    hit[tuple(i[..., d] for d in range(i.shape[-1]))] = True
    return hit


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """``tensor`` with the entries at ``indices`` replaced by ``updates`` (``tf.tensor_scatter_nd_update``;
    indices must not repeat)."""
    t, idx, u = _scatter_parts(tensor, indices, updates, "tensor_scatter_nd_update")
    i = idx.numpy()
    flat = i.reshape(-1, i.shape[-1])
    if len({tuple(r) for r in flat.tolist()}) != flat.shape[0]:
        raise InvalidArgumentError("tensor_scatter_nd_update: `indices` repeat an index; the result would "
                                   "depend on the order of the updates")
    hit = Tensor(_hit_mask(t, idx))
    return where(hit, scatter_nd(idx, u, shape=t.shape), t)


def _scatter_extremum(tensor, indices, updates, pick, owner):
    t, idx, u = _scatter_parts(tensor, indices, updates, owner)
    hit = Tensor(_hit_mask(t, idx))
    i = idx.numpy()
    best = t.numpy().copy()
    pick.at(best, tuple(i[..., d] for d in range(i.shape[-1])), u.numpy())
    # the gradient goes to whichever of tensor/updates holds the result
    from_updates = scatter_nd(idx, u, shape=t.shape)
    chosen = Tensor(best)
    take_update = Tensor(np.logical_and(hit.numpy(), best == from_updates.numpy()))
    return where(take_update, from_updates, where(Tensor(best == t.numpy()), t, chosen))


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """The larger of ``tensor``'s entry and the update at each index (``tf.tensor_scatter_nd_max``)."""
    return _scatter_extremum(tensor, indices, updates, np.maximum, "tensor_scatter_nd_max")


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """The smaller of ``tensor``'s entry and the update at each index (``tf.tensor_scatter_nd_min``)."""
    return _scatter_extremum(tensor, indices, updates, np.minimum, "tensor_scatter_nd_min")


def searchsorted(sorted_sequence, values, side="left", out_type="int32", name=None):
    """For each row, where ``values`` would be inserted into the sorted last axis of ``sorted_sequence``
    (``tf.searchsorted``; ``side`` is ``"left"`` or ``"right"``)."""
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: `side` must be 'left' or 'right'. Received: {side!r}")
    s = np.asarray(convert_to_tensor(sorted_sequence).numpy())
    v = np.asarray(convert_to_tensor(values).numpy())
    if s.shape[:-1] != v.shape[:-1]:
        raise InvalidArgumentError(f"searchsorted: the leading axes must match. Received: {s.shape} and {v.shape}")
    rows_s, rows_v = s.reshape(-1, s.shape[-1]), v.reshape(-1, v.shape[-1])
    out = np.stack([np.searchsorted(a, b, side=side) for a, b in zip(rows_s, rows_v)]) if rows_s.shape[0] else \
        np.zeros(rows_v.shape, np.int64)
    return Tensor(out.reshape(v.shape).astype(backend.np_dtype(out_type)))


def identity_n(input, name=None):  # noqa: A002 - TF's name
    """Each tensor of the list passed through ``identity`` (``tf.identity_n``)."""
    return [identity(convert_to_tensor(x)) for x in input]


def shape_n(input, out_type="int32", name=None):  # noqa: A002 - TF's name
    """The shape of each tensor of the list, as int tensors (``tf.shape_n``)."""
    return [Tensor(np.asarray(convert_to_tensor(x).shape, backend.np_dtype(out_type))) for x in input]


def ensure_shape(x, shape, name=None):
    """``x`` unchanged if its shape matches ``shape`` (None: any size), else ``InvalidArgumentError``
    (``tf.ensure_shape``)."""
    x = convert_to_tensor(x)
    want = None if shape is None else tuple(None if s is None else int(s) for s in shape)
    if want is not None and (len(want) != x.ndim or any(w is not None and w != s for w, s in zip(want, x.shape))):
        raise InvalidArgumentError(f"Shape of tensor x {list(x.shape)} is not compatible with expected shape "
                                   f"{list(want)}.")
    return identity(x)


def broadcast_static_shape(shape_x, shape_y):
    """The shape two shapes broadcast to (``tf.broadcast_static_shape``), as a tuple."""
    try:
        return tuple(np.broadcast_shapes(tuple(shape_x), tuple(shape_y)))
    except ValueError as e:
        raise ValueError(f"Incompatible shapes for broadcasting: {tuple(shape_x)} and {tuple(shape_y)}") from e


def broadcast_dynamic_shape(shape_x, shape_y):
    """The shape two shapes broadcast to, as an int32 tensor (``tf.broadcast_dynamic_shape``)."""
    sx = np.asarray(convert_to_tensor(shape_x).numpy()).tolist()
    sy = np.asarray(convert_to_tensor(shape_y).numpy()).tolist()
    return Tensor(np.asarray(broadcast_static_shape(sx, sy), np.int32))


def saturate_cast(value, dtype, name=None):
    """``value`` cast to ``dtype``, clamped to the range ``dtype`` can hold (``tf.saturate_cast``)."""
    x = convert_to_tensor(value)
    target = np.dtype(backend.np_dtype(dtype))
    if target.kind in "iu":
        info = np.iinfo(target)
        lo, hi = info.min, info.max
        src = x.numpy()
        if src.dtype.kind == "f":
            clipped = np.clip(np.nan_to_num(src, nan=0.0), lo, hi)
            return Tensor(clipped.astype(target))
        return Tensor(np.clip(src, lo, hi).astype(target))
    if target.kind == "f" and x.dtype.dtype.kind == "f" and target.itemsize < x.dtype.dtype.itemsize:
        info = np.finfo(target)
        lo = Tensor(np.asarray(info.min, x.dtype.dtype))
        hi = Tensor(np.asarray(info.max, x.dtype.dtype))
        return cast(minimum(maximum(x, lo), hi), target.name)
    return cast(x, target.name)


def invert_permutation(x, name=None):
    """The inverse of the permutation ``x`` (``y[x[i]] = i``), as ``tf.math.invert_permutation``."""
    p = _int_array(convert_to_tensor(x), "x", "invert_permutation")
    if p.ndim != 1 or sorted(p.tolist()) != list(range(p.size)):
        raise InvalidArgumentError(f"invert_permutation: `x` must be a permutation of 0..n-1. Received: "
                                   f"{p.tolist()[:20]}")
    out = np.empty_like(p)
    out[p] = np.arange(p.size, dtype=p.dtype)
    return Tensor(out)



# ---------------------------------------------------------------- more of tf's top level (issue 37)
def unravel_index(indices, dims, name=None):
    """The coordinates of flat ``indices`` in an array of shape ``dims``, one row per axis
    (``tf.unravel_index``)."""
    idx = _int_array(convert_to_tensor(indices), "indices", "unravel_index")
    shape = [int(d) for d in np.asarray(getattr(dims, "_value", dims)).reshape(-1)]
    return Tensor(np.stack(np.unravel_index(idx, shape)).astype(idx.dtype))


def strided_slice(input_, begin, end, strides=None, name=None):
    """``input_[begin[0]:end[0]:strides[0], ...]`` over the leading axes (``tf.strided_slice`` without the
    mask arguments)."""
    x = convert_to_tensor(input_)
    b = np.asarray(begin).reshape(-1).tolist()
    e = np.asarray(end).reshape(-1).tolist()
    s = [1] * len(b) if strides is None else np.asarray(strides).reshape(-1).tolist()
    if not len(b) == len(e) == len(s) or len(b) > x.ndim:
        raise InvalidArgumentError(f"strided_slice: begin, end and strides need one entry per sliced axis (at "
                                   f"most {x.ndim}). Received: {b}, {e}, {s}")
    return getitem(x, builtins.tuple(builtins.slice(int(p), int(q), int(r)) for p, q, r in zip(b, e, s)))


def parallel_stack(values, name=None):
    """``stack(values, axis=0)`` (``tf.parallel_stack``)."""
    from .array_ops import stack

    return stack([convert_to_tensor(v) for v in values], axis=0)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=0, name=None):  # noqa: A002 - TF's name
    """Each example's first ``seq_lengths[i]`` steps along ``seq_axis`` reversed, the rest unchanged
    (``tf.reverse_sequence``): a gather, so the gradient goes back to each step."""
    x = convert_to_tensor(input)
    lengths = _int_array(convert_to_tensor(seq_lengths), "seq_lengths", "reverse_sequence")
    seq_axis = 1 if seq_axis is None else int(seq_axis) % x.ndim
    batch_axis = int(batch_axis) % x.ndim
    n, t = x.shape[batch_axis], x.shape[seq_axis]
    if lengths.shape != (n,) or np.any(lengths > t) or np.any(lengths < 0):
        raise InvalidArgumentError(f"reverse_sequence: seq_lengths must be {n} values in [0, {t}]. Received: "
                                   f"{lengths.tolist()}")
    # flat index of (example b, step s) in the (batch, seq) plane, reversed within the first lengths[b]
    steps = np.arange(t)[None, :]
    source = np.where(steps < lengths[:, None], lengths[:, None] - 1 - steps, steps)
    moved = _move_to_front(x, batch_axis, seq_axis)
    flat = reshape(moved, shape=(n * t, *moved.shape[2:]))
    picked = gather(flat, Tensor((np.arange(n)[:, None] * t + source).reshape(-1).astype(np.int64)))
    return _move_back(reshape(picked, shape=builtins.tuple(moved.shape)), batch_axis, seq_axis, x.ndim)


def _move_to_front(x, a, b):
    from .array_ops import transpose

    rest = [k for k in range(x.ndim) if k not in (a, b)]
    return transpose(x, perm=(a, b, *rest))


def _move_back(y, a, b, ndim):
    from .array_ops import transpose

    rest = [k for k in range(ndim) if k not in (a, b)]
    order = [a, b, *rest]
    return transpose(y, perm=builtins.tuple(int(i) for i in np.argsort(order)))


def histogram_fixed_width_bins(values, value_range, nbins=100, dtype="int32", name=None):
    """The bin of each value among ``nbins`` equal bins of ``value_range`` (values outside go to the end
    bins), as ``tf.histogram_fixed_width_bins``."""
    v = np.asarray(convert_to_tensor(values).numpy(), np.float64)
    lo, hi = (float(r) for r in np.asarray(getattr(value_range, "_value", value_range)).reshape(-1))
    if not hi > lo:
        raise InvalidArgumentError(f"histogram: value_range must be increasing. Received: {[lo, hi]}")
    bins = np.clip(np.floor((v - lo) / (hi - lo) * nbins), 0, nbins - 1)
    return Tensor(bins.astype(backend.np_dtype(dtype)))


def histogram_fixed_width(values, value_range, nbins=100, dtype="int32", name=None):
    """How many values fall in each of ``nbins`` equal bins of ``value_range`` (``tf.histogram_fixed_width``)."""
    bins = histogram_fixed_width_bins(values, value_range, nbins).numpy().reshape(-1)
    return Tensor(np.bincount(bins, minlength=int(nbins)).astype(backend.np_dtype(dtype)))


def dynamic_partition(data, partitions, num_partitions, name=None):
    """``data``'s rows split by ``partitions`` (a row index -> partition number), in order
    (``tf.dynamic_partition``); each part is a gather, so gradients flow back."""
    x = convert_to_tensor(data)
    p = _int_array(convert_to_tensor(partitions), "partitions", "dynamic_partition")
    if p.shape != builtins.tuple(x.shape[:p.ndim]):
        raise InvalidArgumentError(f"dynamic_partition: partitions' shape {p.shape} must be a prefix of data's "
                                   f"{builtins.tuple(x.shape)}")
    flat = reshape(x, shape=(-1, *x.shape[p.ndim:]))
    flat_p = p.reshape(-1)
    return [gather(flat, Tensor(np.flatnonzero(flat_p == k).astype(np.int64))) for k in range(int(num_partitions))]


def dynamic_stitch(indices, data, name=None):
    """``merged[indices[m][i]] = data[m][i]`` (later ones win), as ``tf.dynamic_stitch``."""
    from .array_ops import concat

    idx = [_int_array(convert_to_tensor(i), "indices", "dynamic_stitch").reshape(-1) for i in indices]
    rows = [reshape(convert_to_tensor(d), shape=(len(i), *convert_to_tensor(d).shape[np.ndim(ii):]))
            for d, i, ii in zip(data, idx, indices)]
    allidx = np.concatenate(idx)
    size = int(allidx.max()) + 1 if allidx.size else 0
    winner = np.full(size, -1)
    winner[allidx] = np.arange(allidx.size)  # the last writer of each index
    stacked = concat(rows, axis=0)
    return gather(stacked, Tensor(winner.astype(np.int64)))


__all__ += ["unravel_index", "strided_slice", "parallel_stack", "reverse_sequence", "histogram_fixed_width_bins",
            "histogram_fixed_width", "dynamic_partition", "dynamic_stitch"]
