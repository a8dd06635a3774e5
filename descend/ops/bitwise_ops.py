"""``tf.bitwise``: bitwise operations on integer tensors of one dtype (no gradient), with TF's shift rule:
a shift count is clamped to ``[0, bits - 1]`` (TF's CPU kernels), so ``int8(5) << 9`` is ``5 << 7``.

Example:
    >>> import descend as ds
    >>> ds.bitwise.bitwise_and([12, 10], [10, 6]).numpy()
    array([8, 2], dtype=int32)
    >>> ds.bitwise.left_shift(ds.constant([1], ds.int8), ds.constant([9], ds.int8)).numpy()
    array([-128], dtype=int8)
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "invert", "left_shift", "right_shift"]

_INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _integer(x, op: str, arg: str) -> np.ndarray:
    a = np.asarray(convert_to_tensor(x).numpy())
    if a.dtype.name not in _INTEGERS:
        raise TypeError(f"bitwise.{op}: `{arg}` must be an integer tensor ({', '.join(_INTEGERS)}). "
                        f"Received dtype {a.dtype.name}")
    return a


def _pair(x, y, op: str):
    a, b = _integer(x, op, "x"), _integer(y, op, "y")
    if a.dtype != b.dtype:
        raise TypeError(f"bitwise.{op}: `x` and `y` must have the same dtype. Received {a.dtype.name} and "
                        f"{b.dtype.name}")
    return a, b


def bitwise_and(x, y, name=None):
    """``x & y`` elementwise (broadcasting)."""
    a, b = _pair(x, y, "bitwise_and")
    return Tensor(np.bitwise_and(a, b))


def bitwise_or(x, y, name=None):
    """``x | y`` elementwise (broadcasting)."""
    a, b = _pair(x, y, "bitwise_or")
    return Tensor(np.bitwise_or(a, b))


def bitwise_xor(x, y, name=None):
    """``x ^ y`` elementwise (broadcasting)."""
    a, b = _pair(x, y, "bitwise_xor")
    return Tensor(np.bitwise_xor(a, b))


def invert(x, name=None):
    """``~x``: every bit flipped."""
    return Tensor(np.invert(_integer(x, "invert", "x")))


def _shift_count(a, b):
    bits = a.dtype.itemsize * 8
    if b.dtype.kind == "u":
        return np.minimum(b, bits - 1).astype(a.dtype)
    return np.clip(b, 0, bits - 1).astype(a.dtype)


def left_shift(x, y, name=None):
    """``x << y``, the count clamped to ``[0, bits - 1]``; bits shifted out are lost (wrapping)."""
    a, b = _pair(x, y, "left_shift")
    with np.errstate(over="ignore"):
        return Tensor(np.left_shift(a, _shift_count(a, b)))


def right_shift(x, y, name=None):
    """``x >> y`` (arithmetic for signed integers), the count clamped to ``[0, bits - 1]``."""
    a, b = _pair(x, y, "right_shift")
    return Tensor(np.right_shift(a, _shift_count(a, b)))
