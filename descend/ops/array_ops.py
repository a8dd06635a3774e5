"""Shape manipulation, indexing, gathers and scatters.

Gathers along axis 0 return ``IndexedSlices`` gradients: only the rows that
were read get a gradient, and it stays sparse until it meets a dense one.
"""

from __future__ import annotations

import numpy as np

from .. import _native, backend
from ..errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.op import defop
from ..framework.tensor import Tensor, to_array
from ..framework.validation import check_axis, check_index_range, check_number
from ._util import check_segment_prefix, normalize_axis
from .core_ops import broadcast_to, reduce_sum, reshape

__all__ = [
    "reshape", "transpose", "expand_dims", "squeeze", "concat", "stack", "unstack", "split",
    "pad", "tile", "broadcast_to", "gather", "gather_nd", "scatter_nd", "unsorted_segment_sum",
    "one_hot", "fill", "zeros", "ones", "range", "shape", "size", "rank", "getitem",
]

_builtin_range = range


# ---------------------------------------------------------------- shapes
@defop(view=True)
def transpose(a, perm=None):
    """Permute axes (reverse them by default)."""
    if perm is None:
        perm = tuple(_builtin_range(a.ndim - 1, -1, -1))
    perm = tuple(int(p) for p in perm)
    if sorted(perm) != list(_builtin_range(a.ndim)):
        raise InvalidArgumentError(f"transpose: perm {perm} is not a permutation of the {a.ndim} axes")
    return np.transpose(a, perm)


@transpose.defvjp
def _(g, ans, x, perm=None):
    if perm is None:
        return transpose(g)
    return transpose(g, perm=tuple(int(i) for i in np.argsort(perm)))


@defop(view=True)
def expand_dims(input, axis=0):  # noqa: A002 - TF's name
    """Insert a length-1 axis at ``axis``."""
    return np.expand_dims(input, check_axis(axis, input.ndim, "expand_dims", extra=1))


@expand_dims.defvjp
def _(g, ans, x, axis=0):
    return reshape(g, shape=x.shape)


@defop(view=True)
def squeeze(input, axis=None):  # noqa: A002
    """Remove length-1 axes (all, or those in ``axis``)."""
    if axis is not None:
        axes = normalize_axis(axis, input.ndim)
        bad = [a for a in axes if input.shape[a] != 1]
        if bad:
            raise InvalidArgumentError(f"squeeze: axis {bad[0]} of shape {input.shape} is not of length 1")
        return np.squeeze(input, axis=axes)
    return np.squeeze(input)


@squeeze.defvjp
def _(g, ans, x, axis=None):
    return reshape(g, shape=x.shape)


@defop("concat", same_dtype="all")
def _concat(*values, axis=0):
    if not values:
        raise ValueError("concat needs at least one tensor")
    try:
        return np.concatenate(values, axis=axis)
    except ValueError:
        shapes = [v.shape for v in values]
        raise InvalidArgumentError(f"concat: shapes {shapes} do not match except along axis {axis}") from None


@_concat.defvjp
def _(g, ans, *values, axis=0):
    ax = axis % g.ndim
    sizes = [v.shape[ax] for v in values]
    return tuple(split(g, sizes, axis=ax))


def concat(values, axis=0, name=None):
    """Join tensors along an existing axis."""
    return _concat(*values, axis=axis)


@defop("stack", same_dtype="all")
def _stack(*values, axis=0):
    if not values:
        raise ValueError("stack needs at least one tensor")
    shapes = {v.shape for v in values}
    if len(shapes) > 1:
        raise InvalidArgumentError(f"stack: all tensors must have one shape; received {sorted(shapes)}")
    return np.stack(values, axis=axis)


@_stack.defvjp
def _(g, ans, *values, axis=0):
    return tuple(unstack(g, axis=axis))


def stack(values, axis=0, name=None):
    """Join same-shaped tensors along a new axis."""
    return _stack(*values, axis=axis)


@defop("split", multi_output=True, view=True)
def _split(value, sizes=(), axis=0):
    offsets = np.cumsum(sizes)[:-1]
    return np.split(value, offsets, axis=axis)


@_split.defvjp
def _(gs, ans, x, sizes=(), axis=0):
    parts = [g if g is not None else Tensor(np.zeros(a.shape, a.dtype)) for g, a in zip(gs, ans)]
    return concat(parts, axis=axis)


def split(value, num_or_size_splits, axis=0, name=None):
    """Split into ``num`` equal parts or parts of the given sizes (one may be -1)."""
    v = value if hasattr(value, "shape") else Tensor(np.asarray(value))
    n = v.shape[axis]
    if isinstance(num_or_size_splits, (int, np.integer)):
        k = int(num_or_size_splits)
        if k <= 0 or n % k:
            raise InvalidArgumentError(f"split: cannot split axis of length {n} into {k} equal parts")
        sizes = (n // k,) * k
    else:
        sizes = [int(s) for s in num_or_size_splits]
        if sizes.count(-1) > 1:
            raise InvalidArgumentError("split: at most one size may be -1")
        if -1 in sizes:
            sizes[sizes.index(-1)] = n - (sum(sizes) + 1)
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise InvalidArgumentError(f"split: sizes {sizes} do not add up to the axis length {n}")
        sizes = tuple(sizes)
    return list(_split(value, sizes=sizes, axis=axis))


def unstack(value, axis=0, name=None):
    """The slices of ``value`` along ``axis``, as a list."""
    n = value.shape[axis]
    return [squeeze(p, axis=axis) for p in split(value, [1] * n, axis=axis)]


@defop
def pad(tensor, paddings=None, mode="CONSTANT", constant_values=0):
    """Pad with ``paddings[i] = (before, after)`` per axis; CONSTANT, REFLECT or SYMMETRIC."""
    p = np.asarray(paddings, dtype=np.int64)
    if p.shape != (tensor.ndim, 2) or np.any(p < 0):
        raise InvalidArgumentError(f"pad: paddings must be non-negative of shape ({tensor.ndim}, 2); received {p.tolist()}")
    m = mode.upper()
    if m == "CONSTANT":
        return np.pad(tensor, p, mode="constant", constant_values=constant_values)
    if m in ("REFLECT", "SYMMETRIC"):
        return np.pad(tensor, p, mode=m.lower())
    raise ValueError(f"pad: mode must be CONSTANT, REFLECT or SYMMETRIC. Received: {mode!r}")


@pad.defvjp
def _(g, ans, x, paddings=None, mode="CONSTANT", constant_values=0):
    p = np.asarray(paddings, dtype=np.int64)
    if mode.upper() == "CONSTANT":
        key = tuple(slice(int(b), int(b) + n) for (b, _), n in zip(p, x.shape))
        return getitem(g, key)
    return _pad_reflect_grad(g, paddings=p.tolist(), mode=mode.upper(), shape=x.shape)


@defop
def _pad_reflect_grad(g, paddings=None, mode="REFLECT", shape=()):
    # the transpose of reflect/symmetric padding: add each padded cell back to its source
    src = np.arange(int(np.prod(shape))).reshape(shape)
    idx = np.pad(src, np.asarray(paddings), mode=mode.lower())
    out = np.zeros(int(np.prod(shape)), g.dtype)
    np.add.at(out, idx.reshape(-1), g.reshape(-1))
    return out.reshape(shape)


@_pad_reflect_grad.defvjp
def _(gg, ans, g, paddings=None, mode="REFLECT", shape=()):
    return pad(gg, paddings=paddings, mode=mode)


@defop
def tile(input, multiples=None):  # noqa: A002
    """Repeat ``input`` ``multiples[i]`` times along axis i."""
    m = tuple(int(k) for k in multiples)
    if len(m) != input.ndim:
        raise InvalidArgumentError(f"tile: multiples has length {len(m)}; expected the rank {input.ndim}")
    return np.tile(input, m)


@tile.defvjp
def _(g, ans, x, multiples=None):
    # view g as (m0, d0, m1, d1, ...) and sum the m axes
    m = tuple(int(k) for k in multiples)
    inter = []
    for k, d in zip(m, x.shape):
        inter += [k, d]
    return reduce_sum(reshape(g, shape=inter), axis=tuple(_builtin_range(0, 2 * len(m), 2)))


# ---------------------------------------------------------------- indexing
def _index_array(indices) -> np.ndarray:
    arr = indices if isinstance(indices, np.ndarray) else np.asarray(indices)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"indices must be integers. Received dtype {arr.dtype.name}")
    return arr


@defop
def gather(params, indices, axis=0, batch_dims=0):
    """``params`` sliced at ``indices`` along ``axis``; the gradient for axis 0 is an IndexedSlices."""
    idx = _index_array(indices)
    if batch_dims:
        raise NotImplementedError("gather: batch_dims != 0 is not supported yet")
    if params.ndim == 0:
        raise InvalidArgumentError("gather: params must have rank >= 1; received a scalar")
    ax = check_axis(axis, params.ndim, "gather")
    check_index_range(idx, params.shape[ax], "gather")
    return np.take(params, idx, axis=ax)


@gather.defvjp
def _(g, ans, params, indices, axis=0, batch_dims=0):
    idx = indices._value
    ax = axis % params.ndim
    if ax == 0:
        rows = idx.size
        values = reshape(g, shape=(rows,) + tuple(params.shape[1:]))
        return IndexedSlices(values, Tensor(idx.reshape(-1)), params.shape), None
    # move the gathered axis to the front, scatter-add rows, move it back
    nd = idx.ndim
    perm = [ax + k for k in _builtin_range(nd)] + list(_builtin_range(ax)) + list(
        _builtin_range(ax + nd, g.ndim))
    gt = transpose(g, perm=perm)
    summed = unsorted_segment_sum(gt, indices, num_segments=params.shape[ax])
    back = [0] * params.ndim
    order = [ax] + list(_builtin_range(ax)) + list(_builtin_range(ax + 1, params.ndim))
    for pos, a in enumerate(order):
        back[a] = pos
    return transpose(summed, perm=back), None


@defop
def unsorted_segment_sum(data, segment_ids, num_segments=None):
    """``out[k] = sum of data[i] with segment_ids[i] == k`` for k < num_segments; an entry whose id is negative
    is dropped (TF's rule)."""
    ids = _index_array(segment_ids)
    check_segment_prefix("unsorted_segment_sum", data, ids)
    n = check_number(num_segments, "num_segments", low=0, integer=True)
    rest = data.shape[ids.ndim:]
    keep = ids >= 0
    if not keep.all():  # a negative id drops its entry, as TF's unsorted segment ops
        ids, data = ids[keep], data[keep]
    check_index_range(ids, n, "unsorted_segment_sum", name="segment_ids")
    out = np.zeros((n,) + rest, data.dtype)
    if not _native.segment_sum(out, ids.reshape(-1), data):  # a parallel kernel, same order of additions
        np.add.at(out, ids, data)
    return out


def segment_rows(params, segment_ids, fill=0):
    """``gather(params, segment_ids)`` where a negative id (an entry an unsorted segment op dropped) gives a row of
    ``fill``: the VJPs of the unsorted segment ops use it."""
    ids = _index_array(segment_ids.numpy() if isinstance(segment_ids, Tensor) else segment_ids)
    if not ids.size or ids.min() >= 0:
        return gather(params, segment_ids)
    params = params if isinstance(params, Tensor) else Tensor(np.asarray(params))
    pad = Tensor(np.full((1,) + tuple(params.shape[1:]), fill, backend.np_dtype(params.dtype)))
    return gather(concat([params, pad], axis=0), Tensor(np.where(ids < 0, params.shape[0], ids)))


@unsorted_segment_sum.defvjp
def _(g, ans, data, segment_ids, num_segments=None):
    return segment_rows(g, segment_ids), None


@defop
def gather_nd(params, indices):
    """``params[indices[..., 0], indices[..., 1], ...]`` (TF's gather_nd, batch_dims=0)."""
    idx = _index_array(indices)
    k = idx.shape[-1]
    if k > params.ndim:
        raise InvalidArgumentError(f"gather_nd: index depth {k} exceeds params rank {params.ndim}")
    for d in _builtin_range(k):
        check_index_range(idx[..., d], params.shape[d], f"gather_nd (axis {d})")
    return params[tuple(idx[..., d] for d in _builtin_range(k))]


@gather_nd.defvjp
def _(g, ans, params, indices):
    return scatter_nd(indices, g, shape=params.shape), None


@defop
def scatter_nd(indices, updates, shape=None):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` (repeats add up)."""
    idx = _index_array(indices)
    shape = tuple(int(s) for s in shape)
    out = np.zeros(shape, updates.dtype)
    k = idx.shape[-1]
    for d in _builtin_range(k):
        check_index_range(idx[..., d], shape[d], f"scatter_nd (axis {d})")
    np.add.at(out, tuple(idx[..., d] for d in _builtin_range(k)), updates)
    return out


@scatter_nd.defvjp
def _(g, ans, indices, updates, shape=None):
    return None, gather_nd(g, indices)


def _normalize_key(key):
    """Make an index hashable-free and array-based: Tensors become arrays."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor) or hasattr(k, "_value"):
            k = k._value
        if isinstance(k, list):
            k = np.asarray(k)
        if isinstance(k, np.ndarray) and k.dtype.kind not in "iub":
            raise TypeError(f"index arrays must be integers or bools. Received dtype {k.dtype.name}")
        out.append(k)
    return tuple(out)


@defop("getitem", view=True)
def _getitem(x, key=()):
    try:
        return x[key]
    except IndexError as e:
        raise InvalidArgumentError(f"index {key!r} is out of range for shape {x.shape}: {e}") from None


@_getitem.defvjp
def _(g, ans, x, key=()):
    return _getitem_grad(g, key=key, shape=x.shape)


@defop
def _getitem_grad(g, key=(), shape=()):
    out = np.zeros(shape, g.dtype)
    np.add.at(out, key, g)
    return out


@_getitem_grad.defvjp
def _(gg, ans, g, key=(), shape=()):
    return _getitem(gg, key=key)


def getitem(tensor, key):
    """``tensor[key]`` with NumPy's basic and integer-array indexing, differentiable."""
    return _getitem(tensor, key=_normalize_key(key))


# ---------------------------------------------------------------- creation (no gradient)
@defop(differentiable=False)
def one_hot(indices, depth=None, on_value=1.0, off_value=0.0, axis=-1, dtype="float32"):
    """One-hot vectors; out-of-range indices give all-``off_value`` rows (as TF)."""
    idx = _index_array(indices)
    d = check_number(depth, "depth", low=0, integer=True)
    out = np.where(np.arange(d) == idx[..., None], on_value, off_value).astype(backend.np_dtype(dtype))
    return np.moveaxis(out, -1, axis) if axis != -1 else out


def fill(dims, value, dtype=None, name=None) -> Tensor:
    """A tensor of shape ``dims`` filled with ``value``."""
    v = to_array(value, None if dtype is None else backend.np_dtype(dtype))
    return Tensor(np.full(tuple(int(d) for d in dims), v, dtype=v.dtype))


def zeros(shape, dtype="float32", name=None) -> Tensor:
    """Zeros of ``shape`` (float32 by default)."""
    return Tensor(np.zeros(tuple(int(d) for d in np.atleast_1d(shape)) if np.ndim(shape) else (int(shape),),
                           backend.np_dtype(dtype)))


def ones(shape, dtype="float32", name=None) -> Tensor:
    """Ones of ``shape`` (float32 by default)."""
    return Tensor(np.ones(tuple(int(d) for d in np.atleast_1d(shape)) if np.ndim(shape) else (int(shape),),
                          backend.np_dtype(dtype)))


def range(start, limit=None, delta=1, dtype=None, name="range") -> Tensor:  # noqa: A001 - TF's name
    """``[start, start + delta, ...)`` up to ``limit`` (int32 for ints, float32 for floats)."""
    if limit is None:
        start, limit = 0, start
    arr = np.arange(start, limit, delta)
    if dtype is None:
        dtype = backend.floatx() if arr.dtype.kind == "f" else backend.int32
    return Tensor(arr.astype(backend.np_dtype(dtype)))


def shape(input, name=None) -> Tensor:  # noqa: A002
    """The shape as an int32 tensor."""
    return Tensor(np.asarray(input.shape if hasattr(input, "shape") else np.shape(input), np.int32))


def size(input, name=None) -> Tensor:  # noqa: A002
    """The number of elements as an int32 scalar tensor."""
    return Tensor(np.asarray(int(np.prod(shape(input)._value)), np.int32))


def rank(input, name=None) -> Tensor:  # noqa: A002
    """The number of axes as an int32 scalar tensor."""
    return Tensor(np.asarray(len(input.shape), np.int32))
