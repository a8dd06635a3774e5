"""Small helpers the ops share (no op lives here)."""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..framework.validation import check_axis

__all__ = ["check_segment_prefix", "normalize_axis"]


def normalize_axis(axis, ndim: int):
    """``None`` -> all axes; an int or sequence -> a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if type(axis) is int and -ndim <= axis < max(ndim, 1):  # the common case, as check_axis answers it
        return (axis % ndim if ndim else 0,)
    if hasattr(axis, "_value"):
        axis = axis._value.tolist()
    axes = (axis,) if isinstance(axis, int) or getattr(axis, "ndim", 1) == 0 else tuple(axis)
    return tuple(sorted({check_axis(a, ndim) for a in axes}))


def check_segment_prefix(op: str, data, ids) -> None:
    """The segment ops' shape rule: ``data`` has rank 1 or more and ``segment_ids``' shape is a prefix of its shape.

    Raises:
        InvalidArgumentError: naming ``op`` and both shapes.
    """
    if data.ndim == 0:
        raise InvalidArgumentError(f"{op}: `data` must be at least rank 1; received a scalar")
    if data.shape[:ids.ndim] != ids.shape:
        raise InvalidArgumentError(f"{op}: segment_ids shape {ids.shape} must be a prefix of data shape {data.shape}")
