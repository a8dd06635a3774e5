"""Shared checks and dtype conversion of the image ops (``tf.image``'s conventions).

An image is ``[height, width, channels]``; a batch of images ``[batch, height, width, channels]``.
Float images hold values in ``[0, 1]``; integer images span their dtype's range (``uint8``: 0..255).
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..framework.tensor import Tensor, convert_to_tensor, to_array
from ..ops import array_ops, math_ops


def as_image(image, fn: str, *, ranks=(3, 4), what: str = "image") -> Tensor:
    """``image`` as a Tensor whose rank is one of ``ranks`` (else a ``ValueError`` naming ``fn``)."""
    t = convert_to_tensor(image)
    if t.ndim not in ranks:
        want = " or ".join(str(r) for r in ranks)
        raise ValueError(f"{fn}: '{what}' must have rank {want} ([height, width, channels] or "
                         f"[batch, height, width, channels]); received shape {t.shape}")
    if t.dtype.kind not in "biuf":
        raise TypeError(f"{fn}: '{what}' must be numeric; received dtype {t.dtype.name}")
    return t


def batched(image: Tensor):
    """``(image as rank 4, whether it was batched)``."""
    if image.ndim == 3:
        return array_ops.expand_dims(image, axis=0), False
    return image, True


def unbatched(images: Tensor, was_batched: bool) -> Tensor:
    return images if was_batched else array_ops.squeeze(images, axis=0)


def static_int(value, fn: str, what: str) -> int:
    """A Python int from an int, NumPy scalar or scalar int Tensor."""
    if isinstance(value, Tensor):
        value = to_array(value)
    arr = np.asarray(value)
    if arr.ndim != 0 or arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and float(arr) == int(arr)):
        raise TypeError(f"{fn}: '{what}' must be an integer; received {what}={value!r}")
    if isinstance(value, bool):
        raise TypeError(f"{fn}: '{what}' must be an integer; received {what}={value!r}")
    return int(arr)


def static_float(value, fn: str, what: str) -> float:
    if isinstance(value, Tensor):
        value = to_array(value)
    arr = np.asarray(value)
    if arr.ndim != 0 or arr.dtype.kind not in "iuf" or isinstance(value, bool):
        raise TypeError(f"{fn}: '{what}' must be a real number; received {what}={value!r}")
    return float(arr)


def _limits(d: np.dtype):
    info = np.iinfo(d)
    return info.min, info.max


def convert_image_dtype(image, dtype, saturate: bool = False, name=None) -> Tensor:
    """Convert ``image`` to ``dtype``, rescaling values (``tf.image.convert_image_dtype``).

    Integer images span ``[0, MAX]`` of their dtype and float images ``[0, 1)``: int -> float multiplies
    by ``1 / MAX``; float -> int multiplies by ``MAX + 0.5`` and truncates (clipping first when
    ``saturate``); int -> int shifts by the ratio of the ranges; float -> float casts. Differentiable
    between float dtypes.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.convert_image_dtype(np.array([0, 255], np.uint8), ds.float32).numpy()
        array([0., 1.], dtype=float32)
    """
    image = convert_to_tensor(image)
    src = np.dtype(image.dtype)
    dst = backend.np_dtype(dtype)
    for d, what in ((src, "image"), (dst, "dtype")):
        if d.kind not in "iuf":
            raise AttributeError(f"convert_image_dtype: '{what}' must be a floating point or integer dtype; "
                                 f"received {d.name}")
    if src == dst:
        return math_ops.identity(image)
    if src.kind in "iu" and dst.kind in "iu":
        smax, dmax = _limits(src)[1], _limits(dst)[1]
        if smax > dmax:  # narrowing: divide by the ratio of the ranges, then cast
            scale = (smax + 1) // (dmax + 1)
            return math_ops.cast(math_ops.floordiv(image, np.array(scale, src)), dtype=dst)
        scale = (dmax + 1) // (smax + 1)
        return math_ops.multiply(math_ops.cast(image, dtype=dst), np.array(scale, dst))
    if src.kind == "f" and dst.kind == "f":
        return math_ops.cast(image, dtype=dst)
    if src.kind in "iu":  # int -> float: x * (1 / MAX)
        scale = np.array(1.0 / _limits(src)[1], dst)
        return math_ops.multiply(math_ops.cast(image, dtype=dst), scale)
    # float -> int: x * (MAX + 0.5), truncated
    lo, hi = _limits(dst)
    scaled = math_ops.multiply(image, np.array(hi + 0.5, src))
    if saturate:
        scaled = math_ops.clip_by_value(scaled, np.array(lo, src), np.array(hi, src))
    return math_ops.cast(scaled, dtype=dst)


def to_float(image: Tensor) -> Tensor:
    """Float images as they are; integer ones converted to float32 in [0, 1] (as TF's adjust_* do).

    float64 stays float64 (TF computes such images in float32; descend keeps the precision, see docs/api.md).
    """
    if image.dtype.kind == "f":
        return image
    return convert_image_dtype(image, "float32")


def back_to(image: Tensor, dtype) -> Tensor:
    """Convert a float result back to the input's dtype, saturating (TF's ``convert_image_dtype(..., saturate=True)``)."""
    return convert_image_dtype(image, dtype, saturate=True)


class Arith:
    """The few operations resampling and blurring need, on Tensors (differentiable ops) or on NumPy arrays (the
    form an augmentation layer runs inside a recorded random draw): one formula, two kinds of operands."""

    def __init__(self, add, mul, where, gather, reshape, cast, pad):
        self.add, self.mul, self.where, self.gather, self.reshape = add, mul, where, gather, reshape
        self.cast, self.pad = cast, pad


TENSOR_ARITH = Arith(math_ops.add, math_ops.multiply, math_ops.where, lambda a, i: array_ops.gather(a, i),
                     lambda a, s: array_ops.reshape(a, shape=s), lambda a, d: math_ops.cast(a, dtype=d),
                     lambda a, p: array_ops.pad(a, p))
NUMPY_ARITH = Arith(np.add, np.multiply, np.where, lambda a, i: a[i], np.reshape, lambda a, d: a.astype(d),
                    np.pad)


def arith(x) -> Arith:
    """:data:`NUMPY_ARITH` for a NumPy array, :data:`TENSOR_ARITH` for anything else (Tensors, Variables)."""
    return NUMPY_ARITH if isinstance(x, np.ndarray) else TENSOR_ARITH
