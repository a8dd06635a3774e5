"""Op cases for the ops registered by ``descend/ops/conv_ops.py`` (``im2col``, ``col2im``, ``max_pool_windows``,
``max_pool_scatter``, ``max_pool_gather``), ``lstm_sequence`` (``descend/ops/rnn_ops.py``) and the
functions composed from them (``conv2d``, ``max_pool2d``, ``conv1d``, ``max_pool1d``, ``avg_pool1d``,
``avg_pool2d``).

Same format as ``op_cases_core.py``/``op_cases_nn.py``: ``CASES`` drives the
float64 numerical gradient checks of ``tests/test_op_gradients.py`` (and its
coverage test: both ops must be recorded by some case), ``REFERENCES`` maps
case names to direct NumPy loop implementations of the forward.

Convolutions are bilinear, so they also get a second-order check (which runs
``col2im`` under the tape, as the VJP of ``im2col``, and ``im2col`` again as
the VJP of ``col2im``). Max-pooling inputs are spaced at least 0.05 apart so
that no window has a near-tie (a kink of the max).
"""

from __future__ import annotations

import math

import numpy as np

import descend as ds
from descend.ops.conv_ops import (avg_pool1d, avg_pool2d, col2im, conv1d, conv2d, im2col, max_pool1d, max_pool2d,
                                  max_pool_gather, max_pool_scatter, max_pool_windows)
from descend.ops.rnn_ops import lstm_sequence

try:
    from op_case import Case  # how tests/test_op_gradients.py imports it (tests/ is on sys.path)
except ImportError:
    from tests.op_case import Case

_rng = np.random.default_rng(20240613)

CASES: list = []
REFERENCES: dict = {}


def _case(name, fn, args, ref, second_order=False):
    CASES.append(Case(name, fn, args, second_order))
    REFERENCES[name] = ref


def _normal(*shape):
    return _rng.standard_normal(shape).astype(np.float64)


def _spread(*shape):
    """Distinct values at least 0.05 apart, in random order: no near-ties inside a pooling window."""
    n = int(np.prod(shape))
    return (_rng.permutation(n) * 0.05 - n * 0.025).reshape(shape).astype(np.float64)


# ---------------------------------------------------------------- NumPy loop references
def _axis_padding(n, k, s, d, padding):
    """TensorFlow's rule, written independently of descend: "same" gives ceil(n / s) outputs and
    pads max((out - 1) * s + k_eff - n, 0) in total, the odd element after."""
    k_eff = (k - 1) * d + 1
    if padding == "valid":
        return (n - k_eff) // s + 1, (0, 0)
    out = math.ceil(n / s)
    total = max((out - 1) * s + k_eff - n, 0)
    return out, (total // 2, total - total // 2)


def _pads(h, w, kh, kw, sh, sw, dh, dw, padding):
    oh, rows = _axis_padding(h, kh, sh, dh, padding)
    ow, cols = _axis_padding(w, kw, sw, dw, padding)
    return oh, ow, rows, cols


def ref_conv2d(x, k, strides=(1, 1), padding="valid", dilations=(1, 1), nchw=False):
    """``out[n, i, j, f] = sum_{a, b, c} xpad[n, i*sh + a*dh, j*sw + b*dw, c] * k[a, b, c, f]``, as loops."""
    if nchw:
        x = x.transpose(0, 2, 3, 1)
    n, h, w, c = x.shape
    kh, kw, _, f = k.shape
    (sh, sw), (dh, dw) = strides, dilations
    oh, ow, (pt, pb), (pl, pr) = _pads(h, w, kh, kw, sh, sw, dh, dw, padding)
    xp = np.zeros((n, h + pt + pb, w + pl + pr, c))
    xp[:, pt:pt + h, pl:pl + w, :] = x
    out = np.zeros((n, oh, ow, f))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    out[:, i, j, :] += xp[:, i * sh + a * dh, j * sw + b * dw, :] @ k[a, b]
    return out.transpose(0, 3, 1, 2) if nchw else out


def ref_max_pool2d(x, ksize, strides, padding="valid", nchw=False):
    """The largest element of each window (padding is ignored), as loops."""
    if nchw:
        x = x.transpose(0, 2, 3, 1)
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = ksize, strides
    oh, ow, (pt, _), (pl, _) = _pads(h, w, kh, kw, sh, sw, 1, 1, padding)
    out = np.empty((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * sh - pt, j * sw - pl
            window = x[:, max(r0, 0):r0 + kh, max(c0, 0):c0 + kw, :]
            out[:, i, j, :] = window.max(axis=(1, 2))
    return out.transpose(0, 3, 1, 2) if nchw else out


def ref_im2col(x, ksize, strides, dilations, pads):
    n, h, w, c = x.shape
    (kh, kw), (sh, sw), (dh, dw), ((pt, pb), (pl, pr)) = ksize, strides, dilations, pads
    xp = np.zeros((n, h + pt + pb, w + pl + pr, c))
    xp[:, pt:pt + h, pl:pl + w, :] = x
    oh = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    ow = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = np.empty((n, oh, ow, kh, kw, c))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    out[:, i, j, a, b, :] = xp[:, i * sh + a * dh, j * sw + b * dw, :]
    return out


def ref_col2im(cols, shape, ksize, strides, dilations, pads):
    n, h, w, c = shape
    (kh, kw), (sh, sw), (dh, dw), ((pt, pb), (pl, pr)) = ksize, strides, dilations, pads
    xp = np.zeros((n, h + pt + pb, w + pl + pr, c))
    for i in range(cols.shape[1]):
        for j in range(cols.shape[2]):
            for a in range(kh):
                for b in range(kw):
                    xp[:, i * sh + a * dh, j * sw + b * dw, :] += cols[:, i, j, a, b, :]
    return xp[:, pt:pt + h, pl:pl + w, :]


# ---------------------------------------------------------------- conv2d
_case("conv2d_valid_3x3", lambda x, k: conv2d(x, k), [_normal(2, 5, 5, 2), _normal(3, 3, 2, 3)],
      lambda x, k: ref_conv2d(x, k), True)
_case("conv2d_same_stride2_odd_sizes", lambda x, k: conv2d(x, k, strides=2, padding="SAME"),
      [_normal(1, 6, 5, 2), _normal(3, 3, 2, 2)],
      lambda x, k: ref_conv2d(x, k, (2, 2), "same"), True)
_case("conv2d_same_even_kernel_asymmetric_padding", lambda x, k: conv2d(x, k, padding="same"),
      [_normal(1, 4, 5, 2), _normal(2, 4, 2, 2)],
      lambda x, k: ref_conv2d(x, k, (1, 1), "same"), True)
_case("conv2d_valid_strides_2_3", lambda x, k: conv2d(x, k, strides=(2, 3)),
      [_normal(2, 7, 8, 1), _normal(3, 2, 1, 2)],
      lambda x, k: ref_conv2d(x, k, (2, 3), "valid"))
_case("conv2d_dilation2_same", lambda x, k: conv2d(x, k, padding="same", dilations=2),
      [_normal(1, 6, 6, 2), _normal(3, 3, 2, 2)],
      lambda x, k: ref_conv2d(x, k, (1, 1), "same", (2, 2)), True)
_case("conv2d_nchw_same_stride2", lambda x, k: conv2d(x, k, strides=2, padding="same", data_format="NCHW"),
      [_normal(2, 2, 5, 4), _normal(2, 3, 2, 3)],
      lambda x, k: ref_conv2d(x, k, (2, 2), "same", nchw=True))

# ---------------------------------------------------------------- max_pool2d
_case("max_pool2d_valid_2x2", lambda x: max_pool2d(x, 2, 2), [_spread(2, 4, 5, 2)],
      lambda x: ref_max_pool2d(x, (2, 2), (2, 2)), True)
_case("max_pool2d_same_3x3_stride2", lambda x: max_pool2d(x, 3, 2, padding="SAME"), [_spread(1, 5, 6, 2)],
      lambda x: ref_max_pool2d(x, (3, 3), (2, 2), "same"), True)
_case("max_pool2d_same_overlapping_stride1", lambda x: max_pool2d(x, (2, 3), 1, padding="same"),
      [_spread(1, 4, 4, 1)], lambda x: ref_max_pool2d(x, (2, 3), (1, 1), "same"))
_case("max_pool2d_nchw_valid", lambda x: max_pool2d(x, 2, (1, 2), data_format="NCHW"), [_spread(1, 2, 3, 4)],
      lambda x: ref_max_pool2d(x, (2, 2), (1, 2), nchw=True))

# ---------------------------------------------------------------- the ops themselves
_IM2COL = dict(ksize=(2, 3), strides=(2, 1), dilations=(1, 2), pads=((1, 0), (2, 1)))
_case("im2col_padded_strided_dilated", lambda x: im2col(x, **_IM2COL), [_normal(1, 5, 4, 2)],
      lambda x: ref_im2col(x, **_IM2COL), True)
_COL2IM = dict(shape=(1, 5, 4, 2), **_IM2COL)
_case("col2im_padded_strided_dilated", lambda p: col2im(p, **_COL2IM), [_normal(1, 3, 3, 2, 3, 2)],
      lambda p: ref_col2im(p, **_COL2IM), True)


def ref_max_pool_scatter(g, offsets, shape, ksize, strides, pads):
    """Each window's ``g`` added at its offset ``a * kw + b`` of the padded image, as loops (TF's MaxPoolGrad)."""
    n, h, w, c = shape
    (kh, kw), (sh, sw), ((pt, pb), (pl, pr)) = ksize, strides, pads
    xp = np.zeros((n, h + pt + pb, w + pl + pr, c))
    for q, i, j, ch in np.ndindex(*g.shape):
        a, b = divmod(int(offsets[q, i, j, ch]), kw)
        xp[q, i * sh + a, j * sw + b, ch] += g[q, i, j, ch]
    return xp[:, pt:pt + h, pl:pl + w, :]


def ref_max_pool_gather(x, offsets, ksize, strides, pads):
    """The element of ``x`` at each window's offset, as loops."""
    (kh, kw), (sh, sw), ((pt, _), (pl, _)) = ksize, strides, pads
    out = np.empty(offsets.shape)
    for q, i, j, ch in np.ndindex(*offsets.shape):
        a, b = divmod(int(offsets[q, i, j, ch]), kw)
        out[q, i, j, ch] = x[q, i * sh + a - pt, j * sw + b - pl, ch]
    return out


# the offsets of an image's overlapping, padded 3x3 windows (stride 2): several windows share a maximum
_POOL = dict(ksize=(3, 3), strides=(2, 2), pads=((1, 1), (1, 1)))
_POOLED = _spread(2, 5, 5, 2)
_OFFSETS = max_pool_windows.forward(_POOLED, **_POOL)[1]
_case("max_pool_windows_values", lambda x: max_pool_windows(x, **_POOL)[0], [_POOLED],
      lambda x: ref_max_pool2d(x, (3, 3), (2, 2), "same"), True)
_case("max_pool_scatter_overlapping", lambda g: max_pool_scatter(g, ds.constant(_OFFSETS), shape=_POOLED.shape,
                                                                  **_POOL), [_normal(*_OFFSETS.shape)],
      lambda g: ref_max_pool_scatter(g, _OFFSETS, _POOLED.shape, **_POOL), True)
_case("max_pool_gather_overlapping", lambda x: max_pool_gather(x, ds.constant(_OFFSETS), **_POOL), [_normal(2, 5, 5, 2)],
      lambda x: ref_max_pool_gather(x, _OFFSETS, **_POOL), True)


# ---------------------------------------------------------------- compositions (issue 17): conv1d, avg/max 1-D and 2-D
def ref_avg_pool2d(x, ksize, strides, padding="valid"):
    """The mean of the real elements of each window (TF leaves "same" padding out of the count), as loops."""
    n, h, w, c = x.shape
    (kh, kw), (sh, sw) = ksize, strides
    oh, ow, (pt, _), (pl, _) = _pads(h, w, kh, kw, sh, sw, 1, 1, padding)
    out = np.empty((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r0, c0 = i * sh - pt, j * sw - pl
            out[:, i, j, :] = x[:, max(r0, 0):r0 + kh, max(c0, 0):c0 + kw, :].mean(axis=(1, 2))
    return out


def ref_conv1d(x, k, stride=1, padding="valid", dilation=1):
    """``out[n, i, f] = sum_{a, c} xpad[n, i*s + a*d, c] * k[a, c, f]``; "causal" pads (k-1)*d on the left."""
    if padding == "causal":
        x = np.concatenate([np.zeros((x.shape[0], (k.shape[0] - 1) * dilation, x.shape[2])), x], axis=1)
        padding = "valid"
    return ref_conv2d(x[:, None], k[None], (1, stride), padding, (1, dilation))[:, 0]


_case("avg_pool2d_valid_2x2", lambda x: avg_pool2d(x, 2, 2), [_normal(2, 4, 5, 2)],
      lambda x: ref_avg_pool2d(x, (2, 2), (2, 2)), True)
_case("avg_pool2d_same_3x3_stride2_uncounted_padding", lambda x: avg_pool2d(x, 3, 2, padding="SAME"),
      [_normal(1, 5, 6, 2)], lambda x: ref_avg_pool2d(x, (3, 3), (2, 2), "same"))
_case("avg_pool2d_nchw", lambda x: avg_pool2d(x, (2, 1), 1, data_format="NCHW"), [_normal(1, 2, 3, 3)],
      lambda x: ref_avg_pool2d(x.transpose(0, 2, 3, 1), (2, 1), (1, 1)).transpose(0, 3, 1, 2))
_case("conv1d_valid", lambda x, k: conv1d(x, k), [_normal(2, 6, 2), _normal(3, 2, 3)],
      lambda x, k: ref_conv1d(x, k), True)
_case("conv1d_same_stride2", lambda x, k: conv1d(x, k, stride=2, padding="SAME"), [_normal(1, 7, 2), _normal(2, 2, 2)],
      lambda x, k: ref_conv1d(x, k, 2, "same"))
_case("conv1d_causal_dilated", lambda x, k: conv1d(x, k, padding="causal", dilations=2),
      [_normal(1, 6, 1), _normal(3, 1, 2)], lambda x, k: ref_conv1d(x, k, 1, "causal", 2))
_case("conv1d_ncw", lambda x, k: conv1d(x, k, data_format="NCW"), [_normal(1, 2, 5), _normal(2, 2, 2)],
      lambda x, k: ref_conv1d(x.transpose(0, 2, 1), k).transpose(0, 2, 1))
_case("max_pool1d_same", lambda x: max_pool1d(x, 3, 2, padding="SAME"), [_spread(2, 5, 2)],
      lambda x: ref_max_pool2d(x[:, None], (1, 3), (1, 2), "same")[:, 0])
_case("avg_pool1d_same", lambda x: avg_pool1d(x, 3, 2, padding="SAME"), [_normal(2, 5, 2)],
      lambda x: ref_avg_pool2d(x[:, None], (1, 3), (1, 2), "same")[:, 0])


# ---------------------------------------------------------------- lstm_sequence (descend/ops/rnn_ops.py, issue 34)
def ref_lstm_sequence(xw, h0, c0, u):
    """Keras' LSTM step (gates i, f, c, o) over time-major projections, as a plain loop: ``[h, c]`` of every step."""
    n = u.shape[0]
    h, c, hs, cs = h0, c0, [], []
    for t in range(xw.shape[0]):
        z = xw[t] + h @ u
        i, f, o = (1 / (1 + np.exp(-z[:, k * n:(k + 1) * n])) for k in (0, 1, 3))
        c = f * c + i * np.tanh(z[:, 2 * n:3 * n])
        h = o * np.tanh(c)
        hs.append(h)
        cs.append(c)
    return [np.stack(hs), np.stack(cs)]


def _lstm_hc(*args):
    return list(lstm_sequence(*args)[:2])


# both outputs get a gradient (h of every step, and c), through 4 steps, from non-zero initial states
_case("lstm_sequence_h_and_c", _lstm_hc, [_normal(4, 3, 8), _normal(3, 2) * 0.5, _normal(3, 2) * 0.5,
                                          _normal(2, 8) * 0.7], ref_lstm_sequence)
_case("lstm_sequence_one_step", _lstm_hc, [_normal(1, 2, 4) * 2.0, _normal(2, 1), _normal(2, 1), _normal(1, 4)],
      ref_lstm_sequence)
