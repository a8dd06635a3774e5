"""Small helpers the ops share (no op lives here)."""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..framework.validation import check_axis

__all__ = ["check_segment_prefix", "normalize_axis"]


def normalize_axis(axis, ndim: int):
    """``None`` -> all axes; an int or sequence -> a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if hasattr(axis, "_value"):
        axis = axis._value.tolist()
    axes = (axis,) if isinstance(axis, int) or getattr(axis, "ndim", 1) == 0 else tuple(axis)
    return tuple(sorted({check_axis(a, ndim) for a in axes}))


def check_segment_prefix(op: str, data, ids) -> None:
    """The segment ops' shape rule: ``segment_ids``' shape must be a prefix of ``data``'s.

    Raises:
        InvalidArgumentError: naming ``op`` and both shapes.
    """
    if data.shape[:ids.ndim] != ids.shape:
        raise InvalidArgumentError(f"{op}: segment_ids shape {ids.shape} must be a prefix of data shape {data.shape}")
