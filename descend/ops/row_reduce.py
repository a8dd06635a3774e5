"""Sums and maxima over the last axis of short rows: NumPy's bits, at the speed of the backend's row kernels.

NumPy reduces a short contiguous row (a softmax over a sequence, a loss over classes) one row at a time, a few
hundred nanoseconds each; :func:`descend._native.backend.row_kernels` does the same arithmetic (NumPy's pairwise
order for sums) in one pass over all rows. The eager ops and the compiled plan both reduce through
:func:`reduce_last`, which gives NumPy's result bit for bit whichever way it ran.
"""

from __future__ import annotations

import numpy as np

from .._native import backend as kb

__all__ = ["MAX_ROW", "reduce_last"]

#: the longest row the kernels take: NumPy's vector loops are faster on longer ones
MAX_ROW = 128


def reduce_last(ufunc, x: np.ndarray, keepdims: bool, out: np.ndarray | None = None) -> np.ndarray:
    """``ufunc.reduce(x, axis=-1, keepdims=keepdims, out=out)`` for ``ufunc`` ``np.add`` or ``np.maximum``, by the
    row kernels where they take ``x`` (C-contiguous float32/float64 rows of 1 to :data:`MAX_ROW` elements; a row
    summing to an infinity or NaN, or whose maximum is zero or NaN, goes back to NumPy), else by NumPy.

    Example:
        >>> import numpy as np
        >>> x = np.arange(12, dtype=np.float32).reshape(3, 4)
        >>> reduce_last(np.add, x, keepdims=False)
        array([ 6., 22., 38.], dtype=float32)
    """
    n = x.shape[-1] if x.ndim else 0
    if 0 < n <= MAX_ROW and type(x) is np.ndarray and x.flags.c_contiguous and (out is not None or x.ndim >= 2):
        kernels = kb.row_kernels(x.dtype)
        if kernels is not None:
            if out is None:
                out = np.empty(x.shape[:-1] + ((1,) if keepdims else ()), x.dtype)
            if out.dtype == x.dtype and out.flags.c_contiguous and out.size == x.size // n \
                    and kernels[0 if ufunc is np.add else 1](x.reshape(-1, n), out.reshape(-1)):
                return out
    return ufunc.reduce(x, axis=-1, keepdims=keepdims, out=out)
