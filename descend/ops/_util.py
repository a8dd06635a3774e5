"""Small helpers the ops share (no op lives here: this module imports no descend module)."""

from __future__ import annotations

__all__ = ["normalize_axis"]


def normalize_axis(axis, ndim: int):
    """``None`` -> all axes; an int or sequence -> a sorted tuple of non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    if hasattr(axis, "_value"):
        axis = axis._value.tolist()
    axes = (axis,) if isinstance(axis, int) or getattr(axis, "ndim", 1) == 0 else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1):
            raise ValueError(f"axis {a} is out of range for a tensor of rank {ndim}")
        out.append(a % ndim if ndim else 0)
    return tuple(sorted(set(out)))
