"""Gradient clipping: by value, by norm, by global norm. ``None`` entries pass
through and ``IndexedSlices`` stay sparse (their values are clipped)."""

from __future__ import annotations

import math

import numpy as np

from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.validation import check_number
from .math_ops import cast, maximum, minimum, multiply, reduce_sum, sqrt, square, where
from .math_ops import clip_by_value as _clip_by_value_op

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm"]


def _values(t):
    return t.values if isinstance(t, IndexedSlices) else t


def _rewrap(t, values):
    return IndexedSlices(values, t.indices, t.dense_shape) if isinstance(t, IndexedSlices) else values


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clamp to ``[clip_value_min, clip_value_max]`` (the values of an IndexedSlices)."""
    if t is None:
        return None
    return _rewrap(t, _clip_by_value_op(_values(t), clip_value_min, clip_value_max))


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """``t * clip_norm / max(||t||_2, clip_norm)`` (as ``tf.clip_by_norm``).

    The norm is over ``axes`` (all by default); a zero tensor stays zero.
    """
    if t is None:
        return None
    clip_norm = check_number(clip_norm, "clip_norm", low=0.0, finite=False, owner="clip_by_norm")
    v = _values(t)
    if not isinstance(v, Tensor):
        v = convert_to_tensor(v)
    l2sum = reduce_sum(square(v), axis=axes, keepdims=True)
    positive = l2sum > 0
    # sqrt only where positive, so the gradient at 0 stays finite (as TF)
    l2norm = where(positive, sqrt(where(positive, l2sum, 1.0)), l2sum)
    return _rewrap(t, multiply(v, clip_norm) / maximum(l2norm, clip_norm))


def global_norm(t_list, name=None):
    """``sqrt(sum of squares of every element of every tensor)``; ``None`` entries are skipped."""
    total = None
    for t in t_list:
        if t is None:
            continue
        s = reduce_sum(square(_values(t)))
        total = s if total is None else total + s
    if total is None:
        return Tensor(np.zeros((), np.float32))
    return sqrt(total)


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor by ``clip_norm / max(global_norm, clip_norm)``.

    Returns ``(clipped_list, global_norm)``. A non-finite global norm makes
    every value NaN (as TensorFlow), so an overflow cannot pass unnoticed.
    """
    t_list = list(t_list)
    clip_norm = check_number(clip_norm, "clip_norm", low=0.0, finite=False, owner="clip_by_global_norm")
    norm = global_norm(t_list) if use_norm is None else convert_to_tensor(use_norm)
    n = float(norm)
    if math.isfinite(n):
        # scale = clip_norm * min(1/norm, 1/clip_norm)
        # scale = clip_norm * min(1/norm, 1/clip_norm); clip_norm 0 zeroes everything (as TF)
        inv_clip = math.inf if clip_norm == 0 else 1.0 / clip_norm
        scale = clip_norm * minimum(1.0 / norm, inv_clip) if n > 0 else None
    else:
        scale = norm * np.nan
    out = []
    for t in t_list:
        if t is None or scale is None:
            out.append(t)
            continue
        v = _values(t)
        s = scale if scale.dtype == v.dtype else cast(scale, dtype=v.dtype)  # keeps the path through the norm
        out.append(_rewrap(t, multiply(v, s)))
    return out, norm
