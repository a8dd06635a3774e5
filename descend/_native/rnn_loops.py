"""The exact elementwise kernels of the LSTM sequence op (:mod:`descend.ops.rnn_ops`), on the numba CPU backend.

Each kernel does the ``+ - * /``, ``abs`` and comparisons of one time step in one pass (numba neither reassociates
nor contracts them: no fastmath), so it gives the bits of the op's NumPy calls that it replaces; the exponentials
and hyperbolic tangents stay NumPy's ufuncs, called by the op between the kernels. Gates are Keras' ``i, f, c, o``,
``U`` columns each, of a ``(batch, 4 U)`` array.

``gates(xw, p, z, ne, zc)``: ``z = xw + p``; ``ne`` (``(batch, 3 U)``: the ``i, f, o`` gates) ``= -|z|``, the first
step of the sigmoid ``exp(-|z|)``; ``zc`` (``(batch, U)``) the ``c`` gate's ``z``.

``cell(z, e, g, c_prev, a, c_out, one)``: with ``e = exp(-|z|)`` of the ``i, f, o`` gates and ``g = tanh(z_c)``:
``a`` the four activations (``sigmoid(z) = 1 / (1 + e)`` where ``z >= 0``, else ``e * (1 / (1 + e))``, as the
``sigmoid`` op) and ``c_out = f * c_prev + i * g``.

``backward(gh, dhr, gc, dcn, a, tc, c_prev, dz, dc_out, one)``: one step back through time: ``dh = gh + dhr``,
``dc = (gc + dcn) + (dh * o) * (1 - tc * tc)``, the gates' gradients ``dz`` (``(dc * g) * (i * (1 - i))``,
``(dc * c_prev) * (f * (1 - f))``, ``(dc * i) * (1 - g * g)``, ``(dh * tc) * (o * (1 - o))``) and ``dc_out = dc *
f``.
"""

from __future__ import annotations

import threading

__all__ = ["lstm"]

_LSTM: list = []
_lock = threading.Lock()


def lstm() -> tuple:
    """``(gates, cell, backward)``, compiled once (numba loads them from its disk cache when it can)."""
    if not _LSTM:
        with _lock:
            if not _LSTM:
                _LSTM.extend(_build())
    return tuple(_LSTM)


def _build():
    import numba

    # (each inner loop runs over one gate's contiguous columns, without branches: LLVM vectorizes it)
    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def gates(xw, p, z, ne, zc):
        b, n = z.shape
        u = n // 4
        for i in range(b):
            for j in range(n):
                z[i, j] = xw[i, j] + p[i, j]
            for j in range(2 * u):
                ne[i, j] = -abs(z[i, j])
            for j in range(u):
                zc[i, j] = z[i, 2 * u + j]
            for j in range(u):
                ne[i, 2 * u + j] = -abs(z[i, 3 * u + j])

    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def cell(z, e, g, c_prev, a, c_out, one):
        b, u = g.shape
        for i in range(b):
            for q in range(3):  # the i, f, o gates: columns q * u of e, gate (0, 1, 3)[q] of z and a
                at = (q if q < 2 else 3) * u
                for j in range(u):
                    ev = e[i, q * u + j]
                    r = one / (one + ev)
                    a[i, at + j] = r if z[i, at + j] >= 0 else ev * r
            for j in range(u):
                a[i, 2 * u + j] = g[i, j]
            for j in range(u):
                c_out[i, j] = a[i, u + j] * c_prev[i, j] + a[i, j] * g[i, j]

    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def backward(gh, dhr, gc, dcn, a, tc, c_prev, dz, dc_out, one):
        b, u = tc.shape
        for i in range(b):
            for j in range(u):  # dc (held in dc_out until the last loop)
                t = tc[i, j]
                dc_out[i, j] = (gc[i, j] + dcn[i, j]) + ((gh[i, j] + dhr[i, j]) * a[i, 3 * u + j]) * (one - t * t)
            for j in range(u):
                ig = a[i, j]
                dz[i, j] = (dc_out[i, j] * a[i, 2 * u + j]) * (ig * (one - ig))
            for j in range(u):
                fg = a[i, u + j]
                dz[i, u + j] = (dc_out[i, j] * c_prev[i, j]) * (fg * (one - fg))
            for j in range(u):
                gg = a[i, 2 * u + j]
                dz[i, 2 * u + j] = (dc_out[i, j] * a[i, j]) * (one - gg * gg)
            for j in range(u):
                og = a[i, 3 * u + j]
                dz[i, 3 * u + j] = ((gh[i, j] + dhr[i, j]) * tc[i, j]) * (og * (one - og))
            for j in range(u):
                dc_out[i, j] = dc_out[i, j] * a[i, u + j]

    return gates, cell, backward
