"""Ops that pick, order and move entries: ``take_along_axis`` and its adjoint, ``top_k``, ``sort``,
``argsort``, ``reverse``, ``roll``, the segment maxima/minima, ``cumprod``, and the boolean reductions.

Each differentiable op is its NumPy forward followed by its VJP (descend ops, so differentiable
again). Picking ops send the gradient back to the entries picked; ties (segment maxima) share it
equally, as TensorFlow's rule for ``unsorted_segment_max``.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from ._util import normalize_axis
from .array_ops import gather, unsorted_segment_sum
from .math_ops import cast, cumsum, divide, equal, maximum, multiply, where, zeros_like

__all__ = [
    "take_along_axis", "top_k", "sort", "argsort", "reverse", "roll", "cumprod", "reduce_all", "reduce_any",
    "count_nonzero", "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_mean",
    "unsorted_segment_sqrt_n", "segment_sum", "segment_mean", "segment_max", "segment_min", "in_top_k",
]


def _axis(axis, ndim: int, owner: str) -> int:
    if not -ndim <= int(axis) < max(ndim, 1):
        raise InvalidArgumentError(f"{owner}: axis {axis} is out of range for a tensor of rank {ndim}")
    return int(axis) % max(ndim, 1)


# ---------------------------------------------------------------- take_along_axis and its adjoint
@defop
def take_along_axis(arr, indices, axis=-1):
    """``arr`` picked at ``indices`` along ``axis`` (NumPy's ``take_along_axis``; the other axes broadcast)."""
    idx = np.asarray(indices)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"take_along_axis: `indices` must be integers. Received: dtype {idx.dtype.name}")
    ax = _axis(axis, arr.ndim, "take_along_axis")
    n = arr.shape[ax]
    if idx.size and (idx.min() < -n or idx.max() >= n):
        raise InvalidArgumentError(f"take_along_axis: indices must be in [-{n}, {n}) along axis {axis}. "
                                   f"Received: min {idx.min()}, max {idx.max()}")
    return np.take_along_axis(arr, idx, axis=ax)


@take_along_axis.defvjp
def _(g, ans, arr, indices, axis=-1):
    return put_along_axis_add(g, indices, shape=tuple(arr.shape), axis=axis), None


@defop
def put_along_axis_add(updates, indices, shape=(), axis=-1):
    """Zeros of ``shape`` with ``updates`` added at ``indices`` along ``axis`` (the adjoint of
    ``take_along_axis``; repeated indices add up)."""
    ax = int(axis) % len(shape)
    idx = np.asarray(indices)
    out = np.zeros(shape, updates.dtype)
    full = np.broadcast_shapes(idx.shape, updates.shape)
    idx = np.broadcast_to(idx, full) % shape[ax]
    grid = list(np.indices(full, sparse=True))
    grid[ax] = idx
    np.add.at(out, tuple(grid), np.broadcast_to(updates, full))
    return out


@put_along_axis_add.defvjp
def _(g, ans, updates, indices, shape=(), axis=-1):
    picked = take_along_axis(g, indices, axis=axis)
    if tuple(picked.shape) != tuple(updates.shape):  # updates broadcast against indices
        from .core_ops import unbroadcast

        picked = unbroadcast(picked, updates)
    return picked, None


# ---------------------------------------------------------------- ordering
def _descending(x: np.ndarray, axis: int) -> np.ndarray:
    if x.dtype.kind in "iu":
        key = -x.astype(np.int64)
    elif x.dtype.kind == "b":
        key = ~x
    else:
        key = -x
    return np.argsort(key, axis=axis, kind="stable")


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """The indices that sort ``values`` along ``axis`` (``tf.argsort``; ties keep their order)."""
    x = convert_to_tensor(values)
    ax = _axis(axis, x.ndim, "argsort")
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"argsort: `direction` must be 'ASCENDING' or 'DESCENDING'. Received: {direction!r}")
    order = np.argsort(x.numpy(), axis=ax, kind="stable") if direction == "ASCENDING" else _descending(
        x.numpy(), ax)
    return Tensor(order.astype(np.int32))


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` (``tf.sort``); the gradient goes back to each value's position."""
    x = convert_to_tensor(values)
    return take_along_axis(x, argsort(x, axis=axis, direction=direction), axis=axis)


def top_k(input, k=1, sorted=True, index_type="int32", name=None):  # noqa: A002 - TF's names
    """The ``k`` largest entries of the last axis and their indices (``tf.math.top_k``): a pair
    ``(values, indices)``; among equal values the lower index comes first."""
    x = convert_to_tensor(input)
    if x.ndim < 1:
        raise ValueError(f"top_k: `input` must have rank >= 1. Received shape {tuple(x.shape)}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 0 <= k <= x.shape[-1]:
        raise InvalidArgumentError(f"top_k: `k` must be an integer in [0, {x.shape[-1]}] (the last axis). "
                                   f"Received: k={k!r}")
    idx = _descending(x.numpy(), x.ndim - 1)[..., :int(k)].astype(backend.np_dtype(index_type))
    return take_along_axis(x, Tensor(idx), axis=-1), Tensor(idx)


def in_top_k(targets, predictions, k, name=None):
    """Whether ``targets[i]`` is among the ``k`` largest of ``predictions[i]`` (``tf.math.in_top_k``; a tie
    at the k-th value counts as in, a non-finite row as out)."""
    p = np.asarray(convert_to_tensor(predictions).numpy())
    t = np.asarray(convert_to_tensor(targets).numpy()).astype(np.int64)
    if p.ndim != 2 or t.shape != (p.shape[0],):
        raise ValueError(f"in_top_k: expected predictions of shape (batch, classes) and targets of shape (batch,). "
                         f"Received: {p.shape} and {t.shape}")
    valid = (t >= 0) & (t < p.shape[1])
    target_value = p[np.arange(p.shape[0]), np.clip(t, 0, max(p.shape[1] - 1, 0))]
    larger = np.sum(p > target_value[:, None], axis=1)
    ok = valid & np.isfinite(p).all(axis=1) & (larger < int(k))
    return Tensor(ok)


@defop(view=True)
def reverse(tensor, axis=()):
    """``tensor`` with the order of ``axis`` (a list of axes) reversed (``tf.reverse``)."""
    axes = normalize_axis(axis, tensor.ndim)
    return np.flip(tensor, axis=axes) if axes else tensor


@reverse.defvjp
def _(g, ans, x, axis=()):
    return reverse(g, axis=axis)


@defop
def roll(input, shift=0, axis=0):  # noqa: A002 - TF's name
    """Entries moved ``shift`` places along ``axis``, wrapping around (``tf.roll``; both may be lists)."""
    return np.roll(input, shift, axis=axis)


@roll.defvjp
def _(g, ans, x, shift=0, axis=0):
    back = tuple(-int(s) for s in shift) if isinstance(shift, (list, tuple)) else -int(shift)
    return roll(g, shift=back, axis=axis)


# ---------------------------------------------------------------- products and boolean reductions
@defop
def cumprod(x, axis=0, exclusive=False, reverse=False):
    """Cumulative product along ``axis`` (TF's ``exclusive``/``reverse`` flags)."""
    a = np.flip(x, axis) if reverse else x
    if exclusive:
        ones = np.ones_like(np.take(a, [0], axis=axis))
        a = np.concatenate([ones, np.take(a, range(a.shape[axis] - 1), axis=axis)], axis=axis)
    out = np.cumprod(a, axis=axis, dtype=x.dtype)
    return np.flip(out, axis) if reverse else out


@cumprod.defvjp
def _(g, ans, x, axis=0, exclusive=False, reverse=False):
    # d out_j / d x_i = out_j / x_i for every j that includes i: the reversed cumulative sum of g * out,
    # divided by x (TF's rule: needs x != 0)
    summed = cumsum(multiply(g, ans), axis=axis, exclusive=exclusive, reverse=not reverse)
    return divide(summed, x)


def _bool_reduce(name, fn):
    def forward(input_tensor, axis=None, keepdims=False):
        axes = None if axis is None else normalize_axis(axis, input_tensor.ndim)
        return fn(input_tensor.astype(bool, copy=False), axis=axes, keepdims=bool(keepdims))

    forward.__name__ = name
    op = defop(name, differentiable=False)(forward)
    return op


reduce_all = _bool_reduce("reduce_all", np.all)
reduce_all.__doc__ = "Logical and over ``axis`` (all axes by default), as ``tf.reduce_all``."
reduce_any = _bool_reduce("reduce_any", np.any)
reduce_any.__doc__ = "Logical or over ``axis`` (all axes by default), as ``tf.reduce_any``."


def count_nonzero(input, axis=None, keepdims=False, dtype="int64", name=None):  # noqa: A002 - TF's name
    """How many entries along ``axis`` are not zero (``tf.math.count_nonzero``)."""
    x = convert_to_tensor(input)
    axes = None if axis is None else normalize_axis(axis, x.ndim)
    return Tensor(np.count_nonzero(x.numpy(), axis=axes, keepdims=bool(keepdims)).astype(backend.np_dtype(dtype)))


# ---------------------------------------------------------------- segments
def _segment_ids(segment_ids, owner: str) -> np.ndarray:
    ids = np.asarray(convert_to_tensor(segment_ids).numpy())
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{owner}: `segment_ids` must be integers. Received: dtype {ids.dtype.name}")
    return ids


def _extremum_forward(name, ufunc, fill):
    def forward(data, segment_ids, num_segments=None):
        ids = np.asarray(segment_ids)
        n = int(num_segments)
        if data.shape[:ids.ndim] != ids.shape:
            raise InvalidArgumentError(f"{name}: segment_ids shape {ids.shape} must be a prefix of data shape "
                                       f"{data.shape}")
        kept = ids >= 0
        if not kept.all():  # an entry whose id is negative is dropped (TF's rule)
            ids, data = ids[kept], data[kept]
        if ids.size and ids.max() >= n:
            raise InvalidArgumentError(f"{name}: segment_ids must be in [0, {n}) (a negative id drops its entry). "
                                       f"Received: max {ids.max()}")
        out = np.full((n,) + data.shape[ids.ndim:], fill(data.dtype), data.dtype)
        ufunc.at(out, ids, data)
        return out

    return forward


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


def _extremum_vjp(g, ans, data, segment_ids, num_segments=None):
    # the gradient of each segment goes to the entries equal to its extremum, shared among ties
    kept = np.asarray(segment_ids) >= 0
    if not kept.all():  # the dropped entries (negative ids) get no gradient
        safe = Tensor(np.where(kept, np.asarray(segment_ids), 0))
        picked = gather(ans, safe)
        mask = kept.reshape(kept.shape + (1,) * (data.ndim - kept.ndim))
        chosen = multiply(cast(equal(data, picked), data.dtype), Tensor(mask.astype(data.dtype.name)))
        count = unsorted_segment_sum(chosen, segment_ids, num_segments=num_segments)
        share = divide(g, maximum(count, 1.0))
        return multiply(chosen, gather(share, safe)), None
    picked = gather(ans, segment_ids)
    chosen = cast(equal(data, picked), data.dtype)
    count = unsorted_segment_sum(chosen, segment_ids, num_segments=num_segments)
    share = divide(g, maximum(count, 1.0))
    return multiply(chosen, gather(share, segment_ids)), None


unsorted_segment_max = defop("unsorted_segment_max")(_extremum_forward("unsorted_segment_max", np.maximum, _lowest))
unsorted_segment_max.__doc__ = ("The largest entry of each segment (``tf.math.unsorted_segment_max``); an empty "
                                "segment holds the dtype's lowest value.")
unsorted_segment_max.defvjp(_extremum_vjp)
unsorted_segment_min = defop("unsorted_segment_min")(_extremum_forward("unsorted_segment_min", np.minimum, _highest))
unsorted_segment_min.__doc__ = ("The smallest entry of each segment (``tf.math.unsorted_segment_min``); an empty "
                                "segment holds the dtype's highest value.")
unsorted_segment_min.defvjp(_extremum_vjp)


def _counts(data, segment_ids, num_segments):
    ids = _segment_ids(segment_ids, "unsorted_segment_mean")
    ids = ids[ids >= 0]  # (an entry whose id is negative is dropped)
    counts = np.bincount(ids.reshape(-1), minlength=int(num_segments))[:int(num_segments)]
    shape = (int(num_segments),) + (1,) * (data.ndim - ids.ndim)
    return np.maximum(counts, 1).reshape(shape).astype(data.dtype.dtype)


def unsorted_segment_mean(data, segment_ids, num_segments, name=None):
    """The mean of each segment (``tf.math.unsorted_segment_mean``; an empty segment is 0)."""
    data = convert_to_tensor(data)
    total = unsorted_segment_sum(data, segment_ids, num_segments=num_segments)
    return divide(total, Tensor(_counts(data, segment_ids, num_segments)))


def unsorted_segment_sqrt_n(data, segment_ids, num_segments, name=None):
    """Each segment's sum divided by the square root of its size (``tf.math.unsorted_segment_sqrt_n``)."""
    data = convert_to_tensor(data)
    total = unsorted_segment_sum(data, segment_ids, num_segments=num_segments)
    return divide(total, Tensor(np.sqrt(_counts(data, segment_ids, num_segments))))


def _sorted_segments(segment_ids, owner: str) -> int:
    ids = _segment_ids(segment_ids, owner)
    if ids.ndim != 1:
        raise InvalidArgumentError(f"{owner}: `segment_ids` must be a vector. Received shape {ids.shape}")
    if ids.size and np.any(np.diff(ids) < 0):
        raise InvalidArgumentError(f"{owner}: `segment_ids` must be sorted. Received: {ids.tolist()[:20]}")
    if ids.size and ids[0] < 0:
        raise InvalidArgumentError(f"{owner}: `segment_ids` must be non-negative. Received: {ids[0]}")
    return int(ids[-1]) + 1 if ids.size else 0


def segment_sum(data, segment_ids, name=None):
    """The sum of each segment of sorted ``segment_ids`` (``tf.math.segment_sum``)."""
    return unsorted_segment_sum(data, segment_ids, num_segments=_sorted_segments(segment_ids, "segment_sum"))


def segment_mean(data, segment_ids, name=None):
    """The mean of each segment of sorted ``segment_ids`` (``tf.math.segment_mean``)."""
    return unsorted_segment_mean(data, segment_ids, _sorted_segments(segment_ids, "segment_mean"))


def segment_max(data, segment_ids, name=None):
    """The largest entry of each segment of sorted ``segment_ids`` (``tf.math.segment_max``; an empty segment
    is 0, as TF's sorted segment ops)."""
    n = _sorted_segments(segment_ids, "segment_max")
    out = unsorted_segment_max(data, segment_ids, num_segments=n)
    return _zero_empty(out, segment_ids, n)


def segment_min(data, segment_ids, name=None):
    """The smallest entry of each segment of sorted ``segment_ids`` (``tf.math.segment_min``; an empty segment
    is 0)."""
    n = _sorted_segments(segment_ids, "segment_min")
    out = unsorted_segment_min(data, segment_ids, num_segments=n)
    return _zero_empty(out, segment_ids, n)


def _zero_empty(out, segment_ids, n):
    present = np.zeros(n, bool)
    present[np.asarray(convert_to_tensor(segment_ids).numpy())] = True
    if present.all():
        return out
    mask = Tensor(present.reshape((n,) + (1,) * (out.ndim - 1)))
    return where(mask, out, zeros_like(out))

