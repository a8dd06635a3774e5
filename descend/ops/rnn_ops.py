"""The LSTM over a whole sequence as one op (Keras' gates ``i, f, c, o``, ``tanh`` and ``sigmoid``), as cuDNN's.

``lstm_sequence(xw, h0, c0, recurrent_kernel)`` takes the input projection of every step, time major
(``xw[t] = x_t @ kernel + bias``, ``(T, batch, 4 U)``), the initial states ``(batch, U)`` and the recurrent kernel
``(U, 4 U)``, and returns ``[h, c, gates, tanh_c]``, each time major: the hidden and cell states of every step
``(T, batch, U)``, the four gates' activations ``(T, batch, 4 U)`` and ``tanh(c)`` ``(T, batch, U)``. The last two are
what the backward pass reads (cuDNN's reserve space): as TF's ``CudnnRNN``, they carry no gradient. Step ``t``::

    z = xw[t] + h @ recurrent_kernel
    i, f, o = sigmoid(z_i, z_f, z_o); g = tanh(z_c)
    c = f * c + i * g; h = o * tanh(c)

with the ``sigmoid`` op's formula (``1 / (1 + e)`` where ``z >= 0``, else ``e * (1 / (1 + e))``, ``e = exp(-|z|)``),
so the forward makes the same arithmetic as the step written with the ops ``matmul``, ``add``, ``sigmoid``, ``tanh`` and
``multiply`` (the LSTM layer's general path).

Its VJP is the op ``lstm_sequence_grad``: back through time, one product ``dz_t @ recurrent_kernel^T`` per step, and
the recurrent kernel's gradient as one product ``h_prev^T @ dz`` over all steps at the end. That op has no gradient
of its own (as TF's ``CudnnRNNBackprop``): a second derivative through it raises ``NoGradientError`` (the LSTM layer
with ``use_cudnn=False`` takes the general path, which has them).

The batch is cut into blocks of rows by its size alone (:func:`batch_cuts`: a batch under 64 is one block), and
each block runs its own time loop: a step's product is one single-threaded BLAS call per block
(:func:`descend._native.blas.matmul` on the block's rows). Where numba runs (float32, the main thread), both ops run
the whole sequence as one call of the kernels of :mod:`descend._native.rnn_loops`, the blocks on threads of their
own when a core is free; otherwise they make the same calls one after another from NumPy, with the same bits, and
the thread count never changes a bit. A compiled plan calls the same functions (:func:`forward_into`,
:func:`backward_into`) into its buffers: the eager op's bits.

The bits of a product depend on the BLAS kernel (the CPU): on OpenBLAS's AVX-512 kernels a block of rows is the
whole product's rows, and the forward above gives the general path's bits; on others (Haswell: every AVX2 CPU) the
last bits of the two paths may differ, as cuDNN's LSTM differs from TF's general one.
"""

from __future__ import annotations

import numpy as np

from .. import _native
from .._native import backend as kb
from .._native import blas, numpy_loops
from ..errors import InvalidArgumentError
from ..framework.op import defop
from .math_ops import zeros_like

__all__ = ["backward_into", "batch_cuts", "forward_into", "lstm_sequence"]


def _check(xw, h0, c0, u):
    if xw.ndim != 3 or h0.ndim != 2 or c0.ndim != 2 or u.ndim != 2:
        raise InvalidArgumentError(f"lstm_sequence: expected xw (T, batch, 4 units), h0 and c0 (batch, units) and "
                                   f"recurrent_kernel (units, 4 units); received shapes {xw.shape}, {h0.shape}, "
                                   f"{c0.shape}, {u.shape}")
    t, b, n = xw.shape
    units = u.shape[0]
    if n != 4 * units or u.shape[1] != n or h0.shape != (b, units) or c0.shape != (b, units):
        raise InvalidArgumentError(f"lstm_sequence: expected xw (T, batch, 4 units), h0 and c0 (batch, units) and "
                                   f"recurrent_kernel (units, 4 units); received shapes {xw.shape}, {h0.shape}, "
                                   f"{c0.shape}, {u.shape}")
    if xw.dtype.kind != "f" or not xw.dtype == h0.dtype == c0.dtype == u.dtype:
        raise TypeError(f"lstm_sequence: expected inputs of one float dtype; received {xw.dtype}, {h0.dtype}, "
                        f"{c0.dtype}, {u.dtype}")


def _empty_outputs(t, b, units, dtype):
    return (np.empty((t, b, units), dtype), np.empty((t, b, units), dtype), np.empty((t, b, 4 * units), dtype),
            np.empty((t, b, units), dtype))


# --------------------------------------------------------------------------------------------- forward
def _gates_numpy(xw, p, z, ne, zc):
    u = zc.shape[1]
    np.add(xw, p, out=z)
    for k, gate in ((0, 0), (1, 1), (2, 3)):  # -|z| of the i, f, o gates
        part = ne[:, k * u:(k + 1) * u]
        np.abs(z[:, gate * u:(gate + 1) * u], out=part)
        np.negative(part, out=part)
    np.copyto(zc, z[:, 2 * u:3 * u])


def _cell_numpy(z, e, g, c_prev, a, c_out, one):
    u = g.shape[1]
    r = np.empty_like(g)
    for k, gate in ((0, 0), (1, 1), (2, 3)):  # sigmoid: 1 / (1 + e) where z >= 0, else e * (1 / (1 + e))
        ek, ak = e[:, k * u:(k + 1) * u], a[:, gate * u:(gate + 1) * u]
        np.add(one, ek, out=r)
        np.true_divide(one, r, out=r)
        np.multiply(ek, r, out=ak)
        np.copyto(ak, r, where=z[:, gate * u:(gate + 1) * u] >= 0)
    np.copyto(a[:, 2 * u:3 * u], g)
    np.multiply(a[:, u:2 * u], c_prev, out=c_out)  # c = f * c_prev + i * g
    np.multiply(a[:, :u], g, out=r)
    np.add(c_out, r, out=c_out)


def batch_cuts(batch: int) -> np.ndarray:
    """Where the op cuts a batch into blocks of rows, each running its own time loop (on a thread of its own when
    one is free): blocks of at least :data:`~descend._native.blas.BLOCK_ROWS` rows, at most
    :data:`~descend._native.blas.DETERMINISTIC_BLOCKS` of them, by the batch size alone, so the bits never depend
    on the thread count. Each step's product is one BLAS call per block.

    Example:
        >>> from descend.ops.rnn_ops import batch_cuts
        >>> batch_cuts(64).tolist(), batch_cuts(40).tolist()
        ([0, 32, 64], [0, 40])
    """
    return blas.cuts(batch, blas.DETERMINISTIC_BLOCKS)


def _native_parts(dtype, arrays):
    """``(kernels, gemm, exp_loop, tanh_loop)`` where the whole-sequence kernels can run now on ``arrays`` (all
    C-contiguous, the main thread, numba loaded, NumPy's ``cblas_sgemm`` and loops found), else None."""
    kernels = kb.lstm_kernels(dtype)
    if kernels is None or not all(a.flags.c_contiguous for a in arrays) or not blas.own_pool():
        return None
    gemm = blas.gemm_function(dtype)
    exp_loop, tanh_loop = numpy_loops.strided_loop(np.exp, dtype), numpy_loops.strided_loop(np.tanh, dtype)
    if gemm is None or exp_loop is None or tanh_loop is None:
        return None
    return kernels, gemm, exp_loop, tanh_loop


def forward_into(xw, h0, c0, u, out):
    """The forward of :func:`lstm_sequence` into ``out = (h, c, gates, tanh_c)`` (arrays of the output shapes)."""
    hs, cs, acts, tcs = out
    steps, b, n = xw.shape
    units = n // 4
    dtype = xw.dtype
    h0, c0, u = np.ascontiguousarray(h0), np.ascontiguousarray(c0), np.ascontiguousarray(u)
    cuts = batch_cuts(b)
    one = dtype.type(1)
    p, z = np.empty((b, n), dtype), np.empty((b, n), dtype)
    ne, zc, g = np.empty((b, 3 * units), dtype), np.empty((b, units), dtype), np.empty((b, units), dtype)
    native = _native_parts(dtype, (xw, hs, cs, acts, tcs))
    if native is not None:
        kernels, gemm, exp_loop, tanh_loop = native
        calls = np.empty((len(cuts) - 1, numpy_loops.CALL_WORDS), np.int64)
        kernels[0](xw, h0, c0, u, hs, cs, acts, tcs, p, z, ne, zc, g, cuts, gemm, exp_loop.function,
                   exp_loop.context, exp_loop.auxdata, tanh_loop.function, tanh_loop.context, tanh_loop.auxdata,
                   calls, one, len(cuts) == 2 or _native.serial(xw.size))
        return
    h, c = h0, c0
    for t in range(steps):
        for r0, r1 in zip(cuts[:-1], cuts[1:]):
            blas.matmul(h[r0:r1], u, out=p[r0:r1])
        _gates_numpy(xw[t], p, z, ne, zc)
        np.exp(ne, out=ne)
        np.tanh(zc, out=g)
        _cell_numpy(z, ne, g, c, acts[t], cs[t], one)
        np.tanh(cs[t], out=tcs[t])
        np.multiply(acts[t, :, 3 * units:], tcs[t], out=hs[t])  # h = o * tanh(c)
        h, c = hs[t], cs[t]


@defop("lstm_sequence", same_dtype="all", multi_output=True)
def _lstm_sequence(xw, h0, c0, recurrent_kernel):
    _check(xw, h0, c0, recurrent_kernel)
    t, b, n = xw.shape
    out = _empty_outputs(t, b, n // 4, xw.dtype)
    forward_into(xw, h0, c0, recurrent_kernel, out)
    return list(out)


# --------------------------------------------------------------------------------------------- backward
def _backward_numpy(gh, dhr, gc, dcn, a, tc, c_prev, dz, dc_out, one):
    u = tc.shape[1]
    ig, fg, gg, og = a[:, :u], a[:, u:2 * u], a[:, 2 * u:3 * u], a[:, 3 * u:]
    dh, dc, s, w = (np.empty_like(tc) for _ in range(4))
    np.add(gh, dhr, out=dh)
    np.add(gc, dcn, out=dc)  # dc = (gc + dcn) + (dh * o) * (1 - tc * tc)
    np.multiply(dh, og, out=s)
    np.multiply(tc, tc, out=w)
    np.subtract(one, w, out=w)
    np.multiply(s, w, out=s)
    np.add(dc, s, out=dc)
    for k, (x, y) in enumerate(((dc, gg), (dc, c_prev))):  # (dc * g) * (i (1 - i)), (dc * c_prev) * (f (1 - f))
        gate = (ig, fg)[k]
        np.multiply(x, y, out=s)
        np.subtract(one, gate, out=w)
        np.multiply(gate, w, out=w)
        np.multiply(s, w, out=dz[:, k * u:(k + 1) * u])
    np.multiply(dc, ig, out=s)  # (dc * i) * (1 - g g)
    np.multiply(gg, gg, out=w)
    np.subtract(one, w, out=w)
    np.multiply(s, w, out=dz[:, 2 * u:3 * u])
    np.multiply(dh, tc, out=s)  # (dh * tc) * (o (1 - o))
    np.subtract(one, og, out=w)
    np.multiply(og, w, out=w)
    np.multiply(s, w, out=dz[:, 3 * u:])
    np.multiply(dc, fg, out=dc_out)


def backward_into(gh, gc, hs, cs, acts, tcs, h0, c0, u, out):
    """The gradients of :func:`lstm_sequence`'s inputs ``(xw, h0, c0, recurrent_kernel)`` into ``out`` (arrays of
    their shapes), from those of its outputs ``h`` and ``c`` (``gh``, ``gc``, time major) and its outputs."""
    dxw, dh0, dc0, du = out
    steps, b, units = hs.shape
    dtype = hs.dtype
    c0 = np.ascontiguousarray(c0)
    cuts = batch_cuts(b)
    one = dtype.type(1)
    dc = np.empty((b, units), dtype)
    ut = np.ascontiguousarray(u.T)  # (a contiguous operand: the product is faster than with the transposed view)
    native = _native_parts(dtype, (gh, gc, hs, cs, acts, tcs, dxw, dh0, dc0))
    if native is not None:
        kernels, gemm = native[0], native[1]
        kernels[1](gh, gc, hs, cs, acts, tcs, c0, ut, dxw, dh0, dc0, dc, cuts, gemm, one,
                   len(cuts) == 2 or _native.serial(dxw.size))
    else:
        dhr, dcn = np.zeros((b, units), dtype), np.zeros((b, units), dtype)
        for t in range(steps - 1, -1, -1):
            _backward_numpy(gh[t], dhr, gc[t], dcn, acts[t], tcs[t], cs[t - 1] if t else c0, dxw[t], dc, one)
            for r0, r1 in zip(cuts[:-1], cuts[1:]):
                blas.matmul(dxw[t, r0:r1], ut, out=dhr[r0:r1])  # dh_prev = dz @ U^T
            dcn, dc = dc, dcn
        np.copyto(dh0, dhr)
        np.copyto(dc0, dcn)
    prev = np.empty((steps, b, units), dtype)  # h_{t-1} of every step: dU = sum_t h_{t-1}^T dz_t, one product
    prev[0] = h0
    prev[1:] = hs[:-1]
    blas.matmul(prev.reshape(steps * b, units).T, dxw.reshape(steps * b, 4 * units), out=du)


@defop("lstm_sequence_grad", same_dtype="all", multi_output=True)
def _lstm_sequence_grad(gh, gc, h, c, gates, tanh_c, h0, c0, recurrent_kernel):
    """The gradients of ``lstm_sequence``'s inputs ``[xw, h0, c0, recurrent_kernel]`` (no gradient of its own)."""
    t, b, units = h.shape
    dtype = h.dtype
    out = (np.empty((t, b, 4 * units), dtype), np.empty((b, units), dtype), np.empty((b, units), dtype),
           np.empty((units, 4 * units), dtype))
    backward_into(gh, gc, h, c, gates, tanh_c, h0, c0, recurrent_kernel, out)
    return list(out)


@_lstm_sequence.defvjp
def _(gs, ans, xw, h0, c0, recurrent_kernel):
    h, c, gates, tanh_c = ans
    gh = gs[0] if gs[0] is not None else zeros_like(h)
    gc = gs[1] if gs[1] is not None else zeros_like(c)
    # (gs[2], gs[3]: the saved gates and tanh(c) carry no gradient, as cuDNN's reserve space)
    return tuple(_lstm_sequence_grad(gh, gc, h, c, gates, tanh_c, h0, c0, recurrent_kernel))


def lstm_sequence(xw, h0, c0, recurrent_kernel):
    """An LSTM over a whole time-major sequence: ``[h, c, gates, tanh_c]`` of every step (see the module docs).

    Args:
        xw: ``(T, batch, 4 units)``, each step's input projection ``x_t @ kernel + bias``.
        h0, c0: the initial states, ``(batch, units)``.
        recurrent_kernel: ``(units, 4 units)``, Keras' gate order ``i, f, c, o``.

    Example:
        >>> import numpy as np
        >>> from descend.ops.rnn_ops import lstm_sequence
        >>> h, c, _, _ = lstm_sequence(np.zeros((3, 2, 8), np.float32), np.zeros((2, 2), np.float32),
        ...                            np.ones((2, 2), np.float32), np.zeros((2, 8), np.float32))
        >>> round(float(c[-1, 0, 0]), 4)  # c_t = c_{t-1} / 2: the gates are all sigmoid(0) = 0.5, g = 0
        0.125
    """
    return _lstm_sequence(xw, h0, c0, recurrent_kernel)
