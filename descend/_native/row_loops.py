"""The exact row kernels (:func:`descend._native.loops.rows` documents ``row_sum`` and ``row_max``) and a softmax over
the last axis made of them, on the numba CPU backend, with a call of NumPy's own ufunc loops from a kernel.

``softmax(x, m, sh, e, total, out, loop, context, auxdata, calls, parts) -> bool`` computes, for a C-contiguous 2-D
``x``, what the softmax op's NumPy calls compute: ``m = max(x)`` per row (``row_max``), ``sh = x - m``, ``e =
exp(sh)`` (NumPy's own ``exp`` loop: ``loop``, ``context``, ``auxdata`` from
:func:`descend._native.numpy_loops.strided_loop`), ``total = sum(e)`` per row (``row_sum``), ``out = e / total``: the
same bits, in one call, ``parts`` threads each taking a run of rows (1: on the calling thread), each step of a run in
cache. It returns False where ``row_max`` or ``row_sum`` refuses a row (a maximum that is zero or NaN, a sum that is
not finite): the caller then makes the NumPy calls, which write every output again. ``calls`` is an int64 scratch
array of ``(parts, CALL_WORDS)``.

The kernels are module-level functions that call each other as globals, so numba loads them from its disk cache
(``tests/test_kernel_cache.py``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

__all__ = ["call_unary", "row_max", "row_sum", "softmax"]

_OPTS = dict(cache=True, nogil=True, error_model="numpy")


@numba.njit(**_OPTS)
def call_unary(loop, context, auxdata, call, source, target, count, size):
    """NumPy's strided loop (:mod:`descend._native.numpy_loops`) over ``count`` contiguous elements of ``size`` bytes
    from address ``source`` into ``target``, its arguments written into ``call`` (a row of int64 scratch words)."""
    call[0] = source
    call[1] = target
    call[2] = count
    call[3] = size
    call[4] = size
    at = np.int64(call.ctypes.data)
    return loop(context, at, at + 16, at + 24, auxdata)


@numba.njit(**_OPTS)
def row_sum(x, out):
    # NumPy's pairwise sum of each row of at most 128 elements (its float loops' order, term by term), written
    # out here: numba reloads a kernel from its cache only when it captures no other compiled function (and a
    # recursive one, as NumPy's longer runs would need, it compiles again in every process)
    m, n = x.shape
    if n > 128:  # (NumPy splits longer runs in two: the callers reduce those with NumPy)
        return False
    zero = np.zeros(1, x.dtype)[0]  # (a literal 0 would make the sums float64)
    for i in range(m):
        if n < 8:
            res = zero
            for k in range(n):
                res = res + x[i, k]
        else:
            r0, r1, r2, r3 = x[i, 0], x[i, 1], x[i, 2], x[i, 3]
            r4, r5, r6, r7 = x[i, 4], x[i, 5], x[i, 6], x[i, 7]
            k = 8
            while k < n - n % 8:
                r0 = r0 + x[i, k]
                r1 = r1 + x[i, k + 1]
                r2 = r2 + x[i, k + 2]
                r3 = r3 + x[i, k + 3]
                r4 = r4 + x[i, k + 4]
                r5 = r5 + x[i, k + 5]
                r6 = r6 + x[i, k + 6]
                r7 = r7 + x[i, k + 7]
                k += 8
            res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
            while k < n:
                res = res + x[i, k]
                k += 1
        v = zero + res  # (the reduction starts from add's identity)
        if v - v != 0:  # an infinity or a NaN
            return False
        out[i] = v
    return True

@numba.njit(**_OPTS)
def row_max(x, out):
    m, n = x.shape
    for i in range(m):
        best = x[i, 0]
        nan = best != best
        for k in range(1, n):
            v = x[i, k]
            nan |= v != v
            best = v if v > best else best
        if best == 0 or nan:
            return False
        out[i] = best
    return True


#: rows the softmax kernel takes through all its steps at a time (in cache: 64 rows of 32 float32 are 8 KiB)
_CHUNK_ELEMENTS = 2048


@numba.njit(**_OPTS)
def _softmax_rows(x, m, sh, e, total, out, r0, r1, loop, context, auxdata, call):
    n = x.shape[1]
    size = x.itemsize
    step = max(_CHUNK_ELEMENTS // n, 1)
    for c0 in range(r0, r1, step):
        c1 = min(c0 + step, r1)
        if not row_max(x[c0:c1], m[c0:c1]):
            return False
        for i in range(c0, c1):
            for j in range(n):
                sh[i, j] = x[i, j] - m[i]
        call_unary(loop, context, auxdata, call, np.int64(sh.ctypes.data) + c0 * n * size,
                   np.int64(e.ctypes.data) + c0 * n * size, (c1 - c0) * n, size)
        if not row_sum(e[c0:c1], total[c0:c1]):
            return False
        for i in range(c0, c1):
            for j in range(n):
                out[i, j] = e[i, j] / total[i]
    return True


@numba.njit(parallel=True, **_OPTS)
def softmax(x, m, sh, e, total, out, loop, context, auxdata, calls, parts):
    rows = x.shape[0]
    ok = np.zeros(parts, np.int64)
    for p in prange(parts):
        if _softmax_rows(x, m, sh, e, total, out, rows * p // parts, rows * (p + 1) // parts, loop, context, auxdata,
                         calls[p]):
            ok[p] = 1
    return ok.sum() == parts
