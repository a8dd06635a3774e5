"""The LSTM sequence op's kernels (:mod:`descend.ops.rnn_ops`) on the numba CPU backend: a whole sequence, forward or
back through time, in one call.

The batch is cut into blocks of rows (``cuts``, by the shape alone: :func:`descend.ops.rnn_ops.batch_cuts`), and
each block runs its own time loop, on a thread of its own unless ``serial``: an LSTM's rows never meet, so no block
waits for another. Each step of a block makes the op's calls on the block's rows, in the op's order, so the kernels
give the bits of the op's NumPy path (``rnn_ops``), which makes the same calls one after another:

* the step's product as one single-threaded BLAS call on the block's rows (``gemm``: NumPy's own ``cblas_sgemm``,
  :func:`descend._native.blas.gemm_function`), with the arguments ``np.matmul`` passes it for those rows;
* the elementwise ``+ - * /``, ``abs`` and comparisons in loops of their own (numba neither reassociates nor
  contracts them: no fastmath);
* ``exp`` and ``tanh`` through NumPy's own loops (:mod:`descend._native.numpy_loops`), called on the block's
  contiguous rows: the ufuncs' bits.

Gates are Keras' ``i, f, c, o``, ``U`` columns each, of a ``(batch, 4 U)`` array; the scratch arrays ``p``, ``z``
(``(batch, 4 U)``), ``ne`` (``(batch, 3 U)``), ``zc`` and ``g`` (``(batch, U)``) and ``calls`` (``(blocks,
CALL_WORDS)`` int64, the loops' arguments) are the caller's, each block using its own rows. All arrays C-contiguous.

``forward``: step ``t`` of a block: ``p = h @ U``; ``z = xw[t] + p``; ``ne = -|z|`` of the ``i, f, o`` gates and
``zc = z_c``; ``ne = exp(ne)``, ``g = tanh(zc)``; the activations (``sigmoid(z) = 1 / (1 + e)`` where ``z >= 0``, else
``e * (1 / (1 + e))``, as the ``sigmoid`` op) and ``c = f * c_prev + i * g``; ``tanh_c = tanh(c)``; ``h = o * tanh_c``.

``backward``: one step back through time: ``dh = gh + dhr``, ``dc = (gc + dcn) + (dh * o) * (1 - tc * tc)``, the
gates' gradients ``dz`` (``(dc * g) * (i * (1 - i))``, ``(dc * c_prev) * (f * (1 - f))``, ``(dc * i) * (1 - g *
g)``, ``(dh * tc) * (o * (1 - o))``), the cell's ``dcn = dc * f`` and the hidden state's ``dhr = dz @ U^T`` (``ut``,
``U`` transposed, contiguous). ``dh0`` and ``dc0`` end holding the gradients of the initial states.

The kernels are module-level functions that call each other as globals, so numba loads them from its disk cache
(``tests/test_kernel_cache.py``).
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

from .row_loops import call_unary

__all__ = ["backward", "forward", "lstm"]

_OPTS = dict(cache=True, nogil=True, error_model="numpy")
_ROW_MAJOR, _NO_TRANS = 101, 111


def lstm() -> tuple:
    """``(forward, backward)``: the whole-sequence kernels (numba loads them from its disk cache when it can)."""
    return forward, backward


@numba.njit(**_OPTS)
def _forward_rows(xw, h0, c0, u, hs, cs, acts, tcs, p, z, ne, zc, g, r0, r1, gemm, exp_loop, exp_context,
                  exp_auxdata, tanh_loop, tanh_context, tanh_auxdata, call, one):
    steps, b, n = xw.shape
    units = n // 4
    rows = r1 - r0
    size = xw.itemsize
    state = b * units * size  # (bytes of one step's h or c)
    for t in range(steps):
        h_at = np.int64(h0.ctypes.data) if t == 0 else np.int64(hs.ctypes.data) + (t - 1) * state
        gemm(_ROW_MAJOR, _NO_TRANS, _NO_TRANS, rows, n, units, 1.0, h_at + r0 * units * size, units,
             np.int64(u.ctypes.data), n, 0.0, np.int64(p.ctypes.data) + r0 * n * size, n)
        for i in range(r0, r1):
            for j in range(n):
                z[i, j] = xw[t, i, j] + p[i, j]
            for j in range(2 * units):
                ne[i, j] = -abs(z[i, j])
            for j in range(units):
                zc[i, j] = z[i, 2 * units + j]
            for j in range(units):
                ne[i, 2 * units + j] = -abs(z[i, 3 * units + j])
        at = np.int64(ne.ctypes.data) + r0 * 3 * units * size
        call_unary(exp_loop, exp_context, exp_auxdata, call, at, at, rows * 3 * units, size)
        call_unary(tanh_loop, tanh_context, tanh_auxdata, call, np.int64(zc.ctypes.data) + r0 * units * size,
               np.int64(g.ctypes.data) + r0 * units * size, rows * units, size)
        c_prev = c0 if t == 0 else cs[t - 1]
        a, c = acts[t], cs[t]
        for i in range(r0, r1):
            for q in range(3):  # the i, f, o gates: columns q * units of ne, gate (0, 1, 3)[q] of z and a
                gate = (q if q < 2 else 3) * units
                for j in range(units):
                    e = ne[i, q * units + j]
                    r = one / (one + e)
                    a[i, gate + j] = r if z[i, gate + j] >= 0 else e * r
            for j in range(units):
                a[i, 2 * units + j] = g[i, j]
            for j in range(units):
                c[i, j] = a[i, units + j] * c_prev[i, j] + a[i, j] * g[i, j]
        at = r0 * units * size
        call_unary(tanh_loop, tanh_context, tanh_auxdata, call, np.int64(cs.ctypes.data) + t * state + at,
               np.int64(tcs.ctypes.data) + t * state + at, rows * units, size)
        tc, h = tcs[t], hs[t]
        for i in range(r0, r1):
            for j in range(units):
                h[i, j] = a[i, 3 * units + j] * tc[i, j]


@numba.njit(parallel=True, **_OPTS)
def forward(xw, h0, c0, u, hs, cs, acts, tcs, p, z, ne, zc, g, cuts, gemm, exp_loop, exp_context, exp_auxdata,
            tanh_loop, tanh_context, tanh_auxdata, calls, one, serial):
    blocks = cuts.shape[0] - 1
    parts = 1 if serial else blocks  # (a thread a block; serial: the same blocks in turn)
    for q in prange(parts):
        for k in range(blocks * q // parts, blocks * (q + 1) // parts):
            _forward_rows(xw, h0, c0, u, hs, cs, acts, tcs, p, z, ne, zc, g, cuts[k], cuts[k + 1], gemm, exp_loop,
                          exp_context, exp_auxdata, tanh_loop, tanh_context, tanh_auxdata, calls[k], one)


@numba.njit(**_OPTS)
def _backward_rows(gh, gc, hs, cs, acts, tcs, c0, ut, dxw, dh0, dc0, dc, r0, r1, gemm, one):
    steps, b, units = hs.shape
    n = 4 * units
    rows = r1 - r0
    size = hs.itemsize
    for i in range(r0, r1):
        for j in range(units):
            dh0[i, j] = 0
            dc0[i, j] = 0
    dhr, dcn, dc_out = dh0, dc0, dc  # (dhr: dz_{t+1} @ U^T; dcn: the cell's gradient from step t + 1)
    for t in range(steps - 1, -1, -1):
        a, tc, c_prev, dz, ght, gct = acts[t], tcs[t], c0 if t == 0 else cs[t - 1], dxw[t], gh[t], gc[t]
        for i in range(r0, r1):
            for j in range(units):  # dc (held in dc_out until the last loop)
                v = tc[i, j]
                dc_out[i, j] = (gct[i, j] + dcn[i, j]) + ((ght[i, j] + dhr[i, j]) * a[i, 3 * units + j]) * (one - v * v)
            for j in range(units):
                ig = a[i, j]
                dz[i, j] = (dc_out[i, j] * a[i, 2 * units + j]) * (ig * (one - ig))
            for j in range(units):
                fg = a[i, units + j]
                dz[i, units + j] = (dc_out[i, j] * c_prev[i, j]) * (fg * (one - fg))
            for j in range(units):
                gg = a[i, 2 * units + j]
                dz[i, 2 * units + j] = (dc_out[i, j] * a[i, j]) * (one - gg * gg)
            for j in range(units):
                og = a[i, 3 * units + j]
                dz[i, 3 * units + j] = ((ght[i, j] + dhr[i, j]) * tc[i, j]) * (og * (one - og))
            for j in range(units):
                dc_out[i, j] = dc_out[i, j] * a[i, units + j]
        gemm(_ROW_MAJOR, _NO_TRANS, _NO_TRANS, rows, units, n, 1.0, np.int64(dz.ctypes.data) + r0 * n * size, n,
             np.int64(ut.ctypes.data), units, 0.0, np.int64(dhr.ctypes.data) + r0 * units * size, units)
        dcn, dc_out = dc_out, dcn
    if steps % 2:  # (an odd number of steps leaves the cell's gradient in the scratch array)
        for i in range(r0, r1):
            for j in range(units):
                dc0[i, j] = dcn[i, j]


@numba.njit(parallel=True, **_OPTS)
def backward(gh, gc, hs, cs, acts, tcs, c0, ut, dxw, dh0, dc0, dc, cuts, gemm, one, serial):
    blocks = cuts.shape[0] - 1
    parts = 1 if serial else blocks
    for q in prange(parts):
        for k in range(blocks * q // parts, blocks * (q + 1) // parts):
            _backward_rows(gh, gc, hs, cs, acts, tcs, c0, ut, dxw, dh0, dc0, dc, cuts[k], cuts[k + 1], gemm, one)
