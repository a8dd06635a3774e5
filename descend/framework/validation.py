"""The two checks every layer shares: an index range, and a number against a range.

This module imports nothing from descend but :mod:`descend.errors`, so any
module (framework, ops, optimizers, layers) can use it without an import
cycle. One wording for each failure, everywhere:

- an index out of range: ``"gather: indices[3] = 7 is not in [0, 5)"``
  (TensorFlow's wording), raised as :class:`~descend.errors.InvalidArgumentError`;
- a number out of range: ``"dropout: `rate` must be in [0, 1). Received: rate=1.5"``,
  raised as ``ValueError`` (``TypeError`` when it is not a real number at all).

Example:
    >>> import numpy as np
    >>> from descend.framework.validation import check_index_range, check_number
    >>> check_index_range(np.array([0, 2]), 3, "gather")
    >>> check_number(0.5, "rate", low=0.0, high=1.0, high_open=True)
    0.5
    >>> check_number(2, "rate", low=0.0, high=1.0, owner="dropout")
    Traceback (most recent call last):
    ...
    ValueError: dropout: `rate` must be in [0, 1]. Received: rate=2
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..errors import InvalidArgumentError

__all__ = ["check_axis", "check_index_range", "check_number", "format_range"]


def check_index_range(indices, size: int, what: str, *, name: str = "indices", hint: str = "") -> None:
    """Raise unless every entry of ``indices`` is in ``[0, size)``.

    Args:
        indices: an integer NumPy array (any shape) or a sequence of ints.
        size: the exclusive upper bound (the length of the indexed axis).
        what: who checks, the start of the message (``"gather"``,
            ``"scatter_add to variable 'w'"``).
        name: what the indices are called in the message (``"ids"``, ``"labels"``).
        hint: an optional explanation appended in parentheses.

    Raises:
        InvalidArgumentError: naming the first offending position and value:
            ``"{what}: {name}[pos] = value is not in [0, size)"``.
    """
    idx = indices if isinstance(indices, np.ndarray) else np.asarray(indices)
    if idx.size == 0:
        return
    n = int(size)
    if idx.min() >= 0 and idx.max() < n:
        return
    bad = np.argwhere((idx < 0) | (idx >= n))[0]
    pos = tuple(int(i) for i in bad)
    where = f"{name}[{', '.join(map(str, pos))}]" if pos else name
    extra = f" ({hint})" if hint else ""
    raise InvalidArgumentError(f"{what}: {where} = {int(idx[pos])} is not in [0, {n}){extra}")


def check_axis(axis, ndim: int, what: str | None = None, *, extra: int = 0) -> int:
    """Return ``axis`` as a non-negative axis of a rank-``ndim`` tensor, or raise.

    Negative axes count from the end, as in NumPy and TF. ``extra`` widens the
    range for ops that create axes (``expand_dims`` takes ``extra=1``). A
    scalar (``ndim == 0``) accepts axis 0 only, as the reductions do.

    Args:
        axis: an integer (Python, NumPy, or a 0-d integer Tensor).
        ndim: the rank of the tensor.
        what: who checks, the start of the message; without it the error is a
            plain ``ValueError``, which an op's forward lets the op runner name
            (``"reduce_sum: axis 3 is out of range ... (input shapes: ...)"``).
        extra: axes the op adds.

    Raises:
        TypeError: ``axis`` is not an integer.
        InvalidArgumentError: ``"{what}: axis 3 is out of range for a tensor of rank 2"``
            (``ValueError`` without ``what``).
    """
    a = getattr(axis, "_value", axis)
    if isinstance(a, np.ndarray) and a.ndim == 0:
        a = a[()]
    prefix = f"{what}: " if what else ""
    if isinstance(a, (bool, np.bool_)) or not isinstance(a, numbers.Integral):
        raise TypeError(f"{prefix}axis must be an integer. Received: axis={axis!r}")
    a = int(a)
    n = int(ndim) + extra
    if not -n <= a < max(n, 1):
        error = InvalidArgumentError if what else ValueError
        raise error(f"{prefix}axis {a} is out of range for a tensor of rank {ndim}")
    return a % n if n else 0


def _fmt(v) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e16:
        return str(int(v))
    return repr(v) if isinstance(v, float) else str(v)


def format_range(low=None, high=None, low_open: bool = False, high_open: bool = False) -> str:
    """``[low, high]`` in interval notation, open ends as ``(``/``)``, missing ends as infinities."""
    lo = "-inf" if low is None else _fmt(low)
    hi = "inf" if high is None else _fmt(high)
    return f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"


def check_number(value, name: str, *, low=None, high=None, low_open: bool = False, high_open: bool = False,
                 integer: bool = False, finite: bool = True, owner: str = ""):
    """Return ``value`` as a finite Python number in the given range, or raise.

    Args:
        value: a Python or NumPy real number, or a 0-d array/Tensor (bools are
            refused: ``True`` is not a rate).
        name: the argument's name, used in the message.
        low, high: the bounds (``None`` for no bound).
        low_open, high_open: exclude ``low``/``high`` themselves.
        integer: require an integral value; return an ``int``.
        finite: refuse infinities (NaN is always refused); with ``finite=False``
            an infinity passes if the range allows it.
        owner: who checks (``"dropout"``), prefixed to the message.

    Returns:
        ``float(value)``, or ``int(value)`` when ``integer``.

    Raises:
        TypeError: ``value`` is not a real number.
        ValueError: it is NaN (or infinite, with ``finite``), not integral when ``integer``,
            or out of range.
    """
    prefix = f"{owner}: " if owner else ""
    arr = getattr(value, "_value", value)  # a Tensor or Variable: its array
    if isinstance(arr, np.ndarray) and arr.ndim == 0:
        arr = arr[()]
    if isinstance(arr, (bool, np.bool_)) or not isinstance(arr, numbers.Real):
        raise TypeError(f"{prefix}`{name}` must be a{'n integer' if integer else ' number'}. Received: {name}={value!r}")
    v = float(arr)
    if math.isnan(v) or (finite and math.isinf(v)):
        raise ValueError(f"{prefix}`{name}` must be a finite number. Received: {name}={value!r}")
    if integer:
        if not math.isfinite(v) or not v.is_integer():
            raise ValueError(f"{prefix}`{name}` must be an integer. Received: {name}={value!r}")
        v = int(arr)
    if (low is not None and (v < low or (low_open and v == low))) or (
            high is not None and (v > high or (high_open and v == high))):
        raise ValueError(f"{prefix}`{name}` must be in {format_range(low, high, low_open, high_open)}. "
                         f"Received: {name}={_fmt(v)}")
    return v
