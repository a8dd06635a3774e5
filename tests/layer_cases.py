"""The layer-case table of the layers added for issue 17: each layer with float64 inputs, its
call arguments and an independent NumPy reference of its forward pass.

Every case drives four checks in ``tests/test_layer_cases.py``: the forward
against the reference, the tape's gradients (inputs and every trainable weight)
against central differences in float64, a config round trip (the rebuilt layer
with the same weights computes the same outputs), and a checkpoint save/restore
into the rebuilt layer.

A case's ``ref(weights, *inputs)`` receives the layer's weights as NumPy
arrays in ``layer.weights`` order and the inputs, and returns the output (or a
list of outputs). The references are written from the Keras documentation's
formulas with plain NumPy loops, not from descend's code.
"""

from __future__ import annotations

import math
from collections import namedtuple

import numpy as np

import descend.layers as L
import descend.saving as saving

LayerCase = namedtuple("LayerCase", "name make inputs kwargs ref wrt_input", defaults=({}, None, True))
# wrt_input: also check the gradients with respect to the inputs (False where the output is a step
# function of the inputs, as a mask computed from them)

_rng = np.random.default_rng(20261123)
F64 = {"dtype": "float64"}


def _normal(*shape):
    return _rng.standard_normal(shape)


def _spread(*shape):
    """Distinct values at least 0.05 apart: no near-ties inside a max window."""
    n = int(np.prod(shape))
    return (_rng.permutation(n) * 0.05 - n * 0.025).reshape(shape)


# ------------------------------------------------------------------------------------ references
def _same_pads(n, k, s, d=1):
    """TF's "same" rule: ceil(n / s) outputs, total padding max((out - 1) * s + k_eff - n, 0), extra after."""
    k_eff = (k - 1) * d + 1
    out = -(-n // s)
    total = max((out - 1) * s + k_eff - n, 0)
    return out, total // 2


def ref_conv1d(x, kernel, bias, stride=1, padding="valid", dilation=1):
    n, w, c = x.shape
    k, _, f = kernel.shape
    if padding == "causal":
        x = np.concatenate([np.zeros((n, (k - 1) * dilation, c)), x], axis=1)
        padding = "valid"
    if padding == "same":
        out, before = _same_pads(w, k, stride, dilation)
    else:
        out, before = (x.shape[1] - (k - 1) * dilation - 1) // stride + 1, 0
    y = np.zeros((n, out, f))
    for i in range(out):
        for a in range(k):
            pos = i * stride + a * dilation - before
            if 0 <= pos < x.shape[1]:
                y[:, i, :] += x[:, pos, :] @ kernel[a]
    return y + bias


def ref_pool1d(x, k, s, padding, how):
    n, w, c = x.shape
    if padding == "same":
        out, before = _same_pads(w, k, s)
    else:
        out, before = (w - k) // s + 1, 0
    y = np.empty((n, out, c))
    for i in range(out):
        lo = i * s - before
        window = x[:, max(lo, 0):lo + k, :]  # only real elements (padding never counts)
        y[:, i, :] = window.max(axis=1) if how == "max" else window.mean(axis=1)
    return y


def ref_avg_pool2d(x, k, s, padding):
    n, h, w, c = x.shape
    if padding == "same":
        (oh, bh), (ow, bw) = _same_pads(h, k[0], s[0]), _same_pads(w, k[1], s[1])
    else:
        oh, bh, ow, bw = (h - k[0]) // s[0] + 1, 0, (w - k[1]) // s[1] + 1, 0
    y = np.empty((n, oh, ow, c))
    for i in range(oh):
        for j in range(ow):
            r, q = i * s[0] - bh, j * s[1] - bw
            y[:, i, j, :] = x[:, max(r, 0):r + k[0], max(q, 0):q + k[1], :].mean(axis=(1, 2))
    return y


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def ref_rnn(kind, w, x, mask=None, return_sequences=False, go_backwards=False, return_state=False,
            reset_after=True):
    """SimpleRNN / LSTM / GRU as the step equations of the Keras docs, one sample at a time."""
    kernel, rec, bias = w
    b, t, _ = x.shape
    u = rec.shape[0]
    outs_all, final = [], []
    for n in range(b):
        h, c, prev_out = np.zeros(u), np.zeros(u), np.zeros(u)
        seq = []
        steps = range(t - 1, -1, -1) if go_backwards else range(t)
        for step in steps:
            xt = x[n, step]
            if kind == "simple":
                h_new = np.tanh(xt @ kernel + h @ rec + bias)
                c_new, out = c, h_new
            elif kind == "lstm":
                z = xt @ kernel + h @ rec + bias
                i, f, g, o = z[:u], z[u:2 * u], z[2 * u:3 * u], z[3 * u:]
                c_new = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
                h_new = _sigmoid(o) * np.tanh(c_new)
                out = h_new
            else:
                if reset_after:
                    xz = xt @ kernel + bias[0]
                    hz = h @ rec + bias[1]
                    z_gate = _sigmoid(xz[:u] + hz[:u])
                    r_gate = _sigmoid(xz[u:2 * u] + hz[u:2 * u])
                    cand = np.tanh(xz[2 * u:] + r_gate * hz[2 * u:])
                else:
                    xz = xt @ kernel + bias
                    z_gate = _sigmoid(xz[:u] + h @ rec[:, :u])
                    r_gate = _sigmoid(xz[u:2 * u] + h @ rec[:, u:2 * u])
                    cand = np.tanh(xz[2 * u:] + (r_gate * h) @ rec[:, 2 * u:])
                h_new = z_gate * h + (1 - z_gate) * cand
                c_new, out = c, h_new
            if mask is not None and not mask[n, step]:
                out = prev_out  # a masked step keeps the states and repeats the previous output
            else:
                h, c = h_new, c_new
            prev_out = out
            seq.append(out)
        outs_all.append(np.stack(seq) if return_sequences else prev_out)
        final.append((h, c))
    y = np.stack(outs_all)
    if not return_state:
        return y
    states = [np.stack([f[0] for f in final])]
    if kind == "lstm":
        states.append(np.stack([f[1] for f in final]))
    return [y] + states


def ref_mha(w, q, v, heads, key_dim, mask=None):
    wq, bq, wk, bk, wv, bv, wo, bo = w
    b, tq, _ = q.shape
    out = np.zeros((b, tq, wo.shape[-1]))
    for n in range(b):
        for h in range(heads):
            qh = q[n] @ wq[:, h, :] + bq[h]
            kh = v[n] @ wk[:, h, :] + bk[h]
            vh = v[n] @ wv[:, h, :] + bv[h]
            scores = qh @ kh.T / math.sqrt(key_dim)
            if mask is not None:
                scores = scores + (1.0 - mask[n]) * -1e9
            p = np.exp(scores - scores.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            if mask is not None:
                p = p * mask[n]
            out[n] += (p @ vh) @ wo[h]
    return out + bo


@saving.register_serializable(package="layer_cases")  # a Lambda's function is found by name, never imported
def _square_plus_one(x):
    return x * x + 1.0


class _MaskedLSTM(L.Layer):
    """Masking feeding an LSTM: the mask Masking attaches reaches the LSTM."""

    def __init__(self, **kwargs):
        super().__init__(dtype="float64", **kwargs)
        self.masking = L.Masking(dtype="float64")
        self.lstm = L.LSTM(2, return_sequences=True, dtype="float64")

    def call(self, inputs):
        return self.lstm(self.masking(inputs))

    def get_config(self):
        return {k: v for k, v in super().get_config().items() if k != "dtype"}


# ------------------------------------------------------------------------------------ the table
CASES: list = []


def case(*args, **kwargs):
    CASES.append(LayerCase(*args, **kwargs))


_seq = _normal(2, 4, 3)
_img = _normal(2, 5, 4, 2)
_mask = np.array([[True, True, False, False], [True, True, True, False]])

case("activation_tanh", lambda: L.Activation("tanh", **F64), [_normal(2, 3)], {}, lambda w, x: np.tanh(x))
case("conv1d_valid", lambda: L.Conv1D(2, 2, **F64), [_seq], {}, lambda w, x: ref_conv1d(x, *w))
case("conv1d_same_stride2", lambda: L.Conv1D(2, 3, strides=2, padding="same", **F64), [_normal(2, 5, 3)], {},
     lambda w, x: ref_conv1d(x, *w, stride=2, padding="same"))
case("conv1d_causal_dilated", lambda: L.Conv1D(2, 2, padding="causal", dilation_rate=2, activation="tanh", **F64),
     [_seq], {}, lambda w, x: np.tanh(ref_conv1d(x, *w, padding="causal", dilation=2)))
case("max_pooling1d_same", lambda: L.MaxPooling1D(3, 2, padding="same", **F64), [_spread(2, 5, 2)], {},
     lambda w, x: ref_pool1d(x, 3, 2, "same", "max"))
case("average_pooling1d_same", lambda: L.AveragePooling1D(3, 2, padding="same", **F64), [_normal(2, 5, 2)], {},
     lambda w, x: ref_pool1d(x, 3, 2, "same", "avg"))
case("average_pooling2d_valid", lambda: L.AveragePooling2D(**F64), [_img], {},
     lambda w, x: ref_avg_pool2d(x, (2, 2), (2, 2), "valid"))
case("average_pooling2d_same_3x3_stride2", lambda: L.AveragePooling2D(3, 2, padding="same", **F64), [_img], {},
     lambda w, x: ref_avg_pool2d(x, (3, 3), (2, 2), "same"))
case("global_average_pooling1d", lambda: L.GlobalAveragePooling1D(**F64), [_seq], {}, lambda w, x: x.mean(axis=1))
case("global_average_pooling1d_masked", lambda: L.GlobalAveragePooling1D(**F64), [_seq], {"mask": _mask},
     lambda w, x: np.stack([x[n][_mask[n]].mean(axis=0) for n in range(2)]))
case("global_max_pooling1d", lambda: L.GlobalMaxPooling1D(**F64), [_spread(2, 4, 3)], {}, lambda w, x: x.max(axis=1))
case("global_average_pooling2d_keepdims", lambda: L.GlobalAveragePooling2D(keepdims=True, **F64), [_img], {},
     lambda w, x: x.mean(axis=(1, 2), keepdims=True))
case("global_max_pooling2d_channels_first", lambda: L.GlobalMaxPooling2D(data_format="channels_first", **F64),
     [_spread(2, 3, 2, 2)], {}, lambda w, x: x.max(axis=(2, 3)))
case("reshape_infer", lambda: L.Reshape((2, -1), **F64), [_normal(2, 3, 4)], {}, lambda w, x: x.reshape(2, 2, 6))
case("permute", lambda: L.Permute((2, 1), **F64), [_seq], {}, lambda w, x: x.transpose(0, 2, 1))
case("repeat_vector", lambda: L.RepeatVector(3, **F64), [_normal(2, 4)], {},
     lambda w, x: np.repeat(x[:, None, :], 3, axis=1))
_padded = _normal(2, 4, 3)
_padded[0, 2:] = 0.0
_padded[1, 3] = 0.0
# the mask is a step function of the input (a padded step stops being padding when any entry moves), so
# the masking cases check the gradients of the weights only
case("masking", lambda: L.Masking(**F64), [_padded], {},
     lambda w, x: x * np.any(x != 0.0, axis=-1, keepdims=True), False)
case("masking_then_lstm", lambda: _MaskedLSTM(), [_padded], {},
     lambda w, x: ref_rnn("lstm", w, x, mask=np.any(x != 0.0, axis=-1), return_sequences=True), False)
case("lambda_named_function", lambda: L.Lambda(_square_plus_one, **F64), [_normal(2, 3)],
     {}, lambda w, x: x * x + 1.0)
case("concatenate_axis1", lambda: L.Concatenate(axis=1, **F64), [[_normal(2, 3), _normal(2, 2)]], {},
     lambda w, xs: np.concatenate(xs, axis=1))
case("add_three", lambda: L.Add(**F64), [[_normal(2, 3), _normal(2, 3), _normal(2, 3)]], {}, lambda w, xs: sum(xs))
case("subtract", lambda: L.Subtract(**F64), [[_normal(2, 3), _normal(2, 3)]], {}, lambda w, xs: xs[0] - xs[1])
case("multiply", lambda: L.Multiply(**F64), [[_normal(2, 3), _normal(2, 3)]], {}, lambda w, xs: xs[0] * xs[1])
case("average", lambda: L.Average(**F64), [[_normal(2, 3), _normal(2, 3)]], {}, lambda w, xs: (xs[0] + xs[1]) / 2)
case("maximum", lambda: L.Maximum(**F64), [[_spread(2, 3), _spread(2, 3) + 0.025]], {},
     lambda w, xs: np.maximum(*xs))
case("minimum", lambda: L.Minimum(**F64), [[_spread(2, 3), _spread(2, 3) + 0.025]], {},
     lambda w, xs: np.minimum(*xs))
case("simple_rnn_sequences", lambda: L.SimpleRNN(3, return_sequences=True, **F64), [_seq], {},
     lambda w, x: ref_rnn("simple", w, x, return_sequences=True))
case("simple_rnn_backwards_masked", lambda: L.SimpleRNN(2, go_backwards=True, **F64), [_seq], {"mask": _mask},
     lambda w, x: ref_rnn("simple", w, x, mask=_mask, go_backwards=True))
case("lstm_last", lambda: L.LSTM(2, **F64), [_seq], {}, lambda w, x: ref_rnn("lstm", w, x))
case("lstm_sequences_state_masked", lambda: L.LSTM(2, return_sequences=True, return_state=True, **F64), [_seq],
     {"mask": _mask}, lambda w, x: ref_rnn("lstm", w, x, mask=_mask, return_sequences=True, return_state=True))
case("gru_reset_after", lambda: L.GRU(2, return_sequences=True, **F64), [_seq], {},
     lambda w, x: ref_rnn("gru", w, x, return_sequences=True))
case("gru_reset_before_state_backwards", lambda: L.GRU(2, reset_after=False, return_state=True, go_backwards=True,
                                                       **F64),
     [_seq], {}, lambda w, x: ref_rnn("gru", w, x, reset_after=False, return_state=True, go_backwards=True))
case("bidirectional_lstm_concat", lambda: L.Bidirectional(L.LSTM(2, return_sequences=True, **F64), **F64), [_seq],
     {}, lambda w, x: np.concatenate([ref_rnn("lstm", w[:3], x, return_sequences=True),
                                      ref_rnn("lstm", w[3:], x, return_sequences=True, go_backwards=True)[:, ::-1]],
                                     axis=-1))
case("bidirectional_gru_sum_masked", lambda: L.Bidirectional(L.GRU(2, **F64), merge_mode="sum", **F64), [_seq],
     {"mask": _mask}, lambda w, x: ref_rnn("gru", w[:3], x, mask=_mask)
     + ref_rnn("gru", w[3:], x, mask=_mask, go_backwards=True))
case("time_distributed_dense", lambda: L.TimeDistributed(L.Dense(2, **F64), **F64), [_seq], {},
     lambda w, x: x @ w[0] + w[1])
case("multi_head_attention_cross", lambda: L.MultiHeadAttention(2, 2, **F64), [_seq, _normal(2, 3, 3)], {},
     lambda w, q, v: ref_mha(w, q, v, 2, 2))
_att = np.tril(np.ones((4, 4), bool))[None].repeat(2, 0)
case("multi_head_attention_causal_masked", lambda: L.MultiHeadAttention(2, 2, value_dim=3, output_shape=2, **F64),
     [_seq, _seq], {"use_causal_mask": True, "query_mask": _mask},
     lambda w, q, v: ref_mha(w, q, v, 2, 2, mask=(_att & _mask[:, :, None]).astype(float)))



# ------------------------------------------------------------------------------------ issue 37's layers
def ref_conv2d(x, kernel, stride=(1, 1), padding="valid", dilation=(1, 1)):
    """TF's conv2d (cross-correlation) by loops over the output and the window."""
    n, h, w, c = x.shape
    kh, kw, _, f = kernel.shape
    if padding == "same":
        oh, top = _same_pads(h, kh, stride[0], dilation[0])
        ow, left = _same_pads(w, kw, stride[1], dilation[1])
    else:
        oh = (h - (kh - 1) * dilation[0] - 1) // stride[0] + 1
        ow = (w - (kw - 1) * dilation[1] - 1) // stride[1] + 1
        top = left = 0
    y = np.zeros((n, oh, ow, f))
    for i in range(oh):
        for j in range(ow):
            for a in range(kh):
                for b in range(kw):
                    r, s = i * stride[0] + a * dilation[0] - top, j * stride[1] + b * dilation[1] - left
                    if 0 <= r < h and 0 <= s < w:
                        y[:, i, j, :] += x[:, r, s, :] @ kernel[a, b]
    return y


def ref_conv2d_transpose(x, kernel, out_hw, stride, padding):
    """The transpose by its definition: each input pixel scatters ``x[n, i, j] @ kernel[a, b]^T`` to output
    position ``(i*s + a - pad, j*s + b - pad)``, the pad TF's for the forward convolution from ``out_hw``."""
    n, h, w, _ = x.shape
    kh, kw, f, _ = kernel.shape
    tops = [(_same_pads(o, k, s)[1] if padding == "same" else 0) for o, k, s in zip(out_hw, (kh, kw), stride)]
    y = np.zeros((n, *out_hw, f))
    for i in range(h):
        for j in range(w):
            for a in range(kh):
                for b in range(kw):
                    r, s = i * stride[0] + a - tops[0], j * stride[1] + b - tops[1]
                    if 0 <= r < out_hw[0] and 0 <= s < out_hw[1]:
                        y[:, r, s, :] += x[:, i, j, :] @ kernel[a, b].T
    return y


def ref_depthwise(x, kernel, stride=(1, 1), padding="valid"):
    c, m = kernel.shape[2:]
    outs = [ref_conv2d(x[..., ci:ci + 1], kernel[:, :, ci:ci + 1, :], stride, padding) for ci in range(c)]
    return np.concatenate(outs, axis=-1)  # channel ci * m + mi


def ref_conv3d(x, kernel, padding="valid"):
    kd = kernel.shape[0]
    d = x.shape[1]
    if padding == "same":
        od, front = _same_pads(d, kd, 1)
    else:
        od, front = d - kd + 1, 0
    outs = []
    for z in range(od):
        acc = 0
        for a in range(kd):
            pos = z + a - front
            if 0 <= pos < d:
                acc = acc + ref_conv2d(x[:, pos], kernel[a], padding=padding)
        outs.append(acc)
    return np.stack(outs, axis=1)


def _softmax(z, axis=-1):
    e = np.exp(z - z.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def ref_attention(q, v, k=None, scale=1.0, mask_v=None, causal=False, mask_q=None):
    k = v if k is None else k
    scores = scale * q @ k.transpose(0, 2, 1)
    keep = np.ones(scores.shape, bool)
    if mask_v is not None:
        keep &= mask_v[:, None, :]
    if causal:
        keep &= np.tril(np.ones(scores.shape[1:], bool))[None]
    scores = np.where(keep, scores, scores - 1e9)
    out = _softmax(scores) @ v
    return out if mask_q is None else out * mask_q[..., None]


def ref_additive(q, v, scale):
    scores = np.sum(scale * np.tanh(q[:, :, None, :] + v[:, None, :, :]), axis=-1)
    return _softmax(scores) @ v


_img3 = _normal(2, 4, 5, 3)
_q, _v = _normal(2, 3, 4), _normal(2, 5, 4)
_vmask = np.array([[True, True, False, True, False], [True, False, True, True, True]])
case("relu_capped_sloped", lambda: L.ReLU(max_value=1.0, negative_slope=0.1, threshold=0.2, **F64),
     [_spread(2, 6) + 0.013], {}, lambda w, x: np.where(x > 0.2, np.minimum(x, 1.0), 0.1 * (x - 0.2)))
case("leaky_relu", lambda: L.LeakyReLU(negative_slope=0.2, **F64), [_spread(2, 5) + 0.013], {},
     lambda w, x: np.where(x > 0, x, 0.2 * x))
case("elu_alpha", lambda: L.ELU(alpha=0.5, **F64), [_spread(2, 5) + 0.013], {},
     lambda w, x: np.where(x > 0, x, 0.5 * np.expm1(x)))
case("prelu_shared", lambda: L.PReLU(shared_axes=[1], **F64), [_spread(2, 3, 4) + 0.013], {},
     lambda w, x: np.where(x > 0, x, w[0] * x))
case("softmax_masked", lambda: L.Softmax(**F64), [_normal(2, 5)], {"mask": _vmask},
     lambda w, x: _softmax(np.where(_vmask, x, x - 1e9)))
case("zero_padding1d", lambda: L.ZeroPadding1D((1, 2), **F64), [_seq], {},
     lambda w, x: np.pad(x, ((0, 0), (1, 2), (0, 0))))
case("zero_padding2d_asymmetric", lambda: L.ZeroPadding2D(((1, 0), (2, 1)), **F64), [_img], {},
     lambda w, x: np.pad(x, ((0, 0), (1, 0), (2, 1), (0, 0))))
case("zero_padding3d", lambda: L.ZeroPadding3D(1, **F64), [_normal(1, 2, 2, 2, 1)], {},
     lambda w, x: np.pad(x, ((0, 0), (1, 1), (1, 1), (1, 1), (0, 0))))
case("up_sampling1d", lambda: L.UpSampling1D(3, **F64), [_seq], {}, lambda w, x: np.repeat(x, 3, axis=1))
case("up_sampling2d_nearest", lambda: L.UpSampling2D((2, 3), **F64), [_img], {},
     lambda w, x: np.repeat(np.repeat(x, 2, axis=1), 3, axis=2))
case("up_sampling2d_bilinear_channels_first",
     lambda: L.UpSampling2D(2, data_format="channels_first", interpolation="bilinear", **F64),
     [_normal(1, 2, 3, 2)], {},
     # half-pixel centres: output 2i reads i - 1/4, 2i + 1 reads i + 1/4 (clamped at the edges)
     lambda w, x: _bilinear_ref(x))
case("up_sampling3d", lambda: L.UpSampling3D((1, 2, 1), **F64), [_normal(1, 2, 2, 2, 1)], {},
     lambda w, x: np.repeat(x, 2, axis=2))
case("cropping1d", lambda: L.Cropping1D((1, 2), **F64), [_normal(2, 5, 3)], {}, lambda w, x: x[:, 1:3])
case("cropping2d", lambda: L.Cropping2D(((1, 0), (1, 2)), **F64), [_img], {}, lambda w, x: x[:, 1:, 1:2])
case("cropping3d", lambda: L.Cropping3D(((0, 1), (1, 0), (0, 0)), **F64), [_normal(1, 3, 3, 2, 1)], {},
     lambda w, x: x[:, :2, 1:, :])
case("conv2d_transpose_same_stride2", lambda: L.Conv2DTranspose(2, 3, strides=2, padding="same", **F64), [_img3],
     {}, lambda w, x: ref_conv2d_transpose(x, w[0], (8, 10), (2, 2), "same") + w[1])
case("conv2d_transpose_valid", lambda: L.Conv2DTranspose(2, (2, 3), activation="tanh", **F64), [_img3], {},
     lambda w, x: np.tanh(ref_conv2d_transpose(x, w[0], (5, 7), (1, 1), "valid") + w[1]))
case("conv2d_transpose_output_padding", lambda: L.Conv2DTranspose(1, 3, strides=2, output_padding=1, **F64),
     [_img3], {}, lambda w, x: ref_conv2d_transpose(x, w[0], (10, 12), (2, 2), "valid") + w[1])
case("conv1d_transpose", lambda: L.Conv1DTranspose(2, 3, strides=2, padding="same", **F64), [_seq], {},
     lambda w, x: ref_conv2d_transpose(x[:, None], w[0][None], (1, 8), (1, 2), "same")[:, 0] + w[1])
case("depthwise_conv2d_multiplier2", lambda: L.DepthwiseConv2D(3, depth_multiplier=2, padding="same", **F64),
     [_img3], {}, lambda w, x: ref_depthwise(x, w[0], padding="same") + w[1])
case("depthwise_conv1d", lambda: L.DepthwiseConv1D(2, **F64), [_seq], {},
     lambda w, x: ref_depthwise(x[:, None], w[0][None])[:, 0] + w[1])
case("separable_conv2d", lambda: L.SeparableConv2D(4, 2, strides=2, **F64), [_img3], {},
     lambda w, x: ref_depthwise(x, w[0], stride=(2, 2)) @ w[1][0, 0] + w[2])
case("separable_conv1d", lambda: L.SeparableConv1D(3, 2, depth_multiplier=2, **F64), [_seq], {},
     lambda w, x: ref_depthwise(x[:, None], w[0][None])[:, 0] @ w[1][0] + w[2])
case("conv3d_same", lambda: L.Conv3D(2, (2, 2, 3), padding="same", **F64), [_normal(1, 3, 3, 4, 2)], {},
     lambda w, x: ref_conv3d(x, w[0], "same") + w[1])
case("attention_dot_scaled_masked", lambda: L.Attention(use_scale=True, **F64), [[_q, _v]],
     {"mask": [None, _vmask]}, lambda w, xs: ref_attention(*xs, scale=w[0], mask_v=_vmask))
case("attention_causal_with_key", lambda: L.Attention(**F64), [[_normal(2, 4, 4), _normal(2, 4, 3),
                                                               _normal(2, 4, 4)]],
     {"use_causal_mask": True}, lambda w, xs: ref_attention(xs[0], xs[1], xs[2], causal=True))
case("attention_concat", lambda: L.Attention(score_mode="concat", **F64), [[_q, _v]], {},
     lambda w, xs: _softmax(w[0] * np.sum(np.tanh(xs[0][:, :, None] + xs[1][:, None]), -1)) @ xs[1])
case("additive_attention", lambda: L.AdditiveAttention(**F64), [[_q, _v]], {},
     lambda w, xs: ref_additive(*xs, w[0]))


def _bilinear_ref(x):
    """UpSampling2D(2, bilinear) of an NCHW input, entry by entry from TF's half-pixel rule."""
    def axis_weights(n):
        rows = []
        for i in range(2 * n):
            src = (i + 0.5) / 2 - 0.5
            lo = int(np.floor(src))
            frac = src - lo
            row = np.zeros(n)
            row[max(lo, 0)] += 1 - frac
            row[min(lo + 1, n - 1)] += frac
            rows.append(row)
        return np.array(rows)

    a, b = axis_weights(x.shape[2]), axis_weights(x.shape[3])
    return np.einsum("ih,nchw,jw->ncij", a, x, b)


def _group_norm_ref(x, gamma, beta, groups, eps=1e-3):
    n, t, c = x.shape
    g = x.reshape(n, t, groups, c // groups)
    mean = g.mean(axis=(1, 3), keepdims=True)
    var = g.var(axis=(1, 3), keepdims=True)
    return ((g - mean) / np.sqrt(var + eps)).reshape(n, t, c) * gamma + beta


case("dot_normalized", lambda: L.Dot(axes=(2, 2), normalize=True, **F64), [[_seq, _normal(2, 3, 3)]], {},
     lambda w, xs: np.einsum("nik,njk->nij", xs[0] / np.linalg.norm(xs[0], axis=2, keepdims=True),
                             xs[1] / np.linalg.norm(xs[1], axis=2, keepdims=True)))
case("identity", lambda: L.Identity(**F64), [_normal(2, 3)], {}, lambda w, x: x)
case("rescaling", lambda: L.Rescaling(0.5, offset=-1.0, **F64), [_normal(2, 3)], {}, lambda w, x: x * 0.5 - 1.0)
case("unit_normalization", lambda: L.UnitNormalization(**F64), [_normal(2, 3)], {},
     lambda w, x: x / np.linalg.norm(x, axis=-1, keepdims=True))
case("global_average_pooling3d", lambda: L.GlobalAveragePooling3D(**F64), [_normal(2, 2, 2, 2, 3)], {},
     lambda w, x: x.mean(axis=(1, 2, 3)))
case("global_max_pooling3d", lambda: L.GlobalMaxPooling3D(**F64), [_spread(2, 2, 2, 2, 3)], {},
     lambda w, x: x.max(axis=(1, 2, 3)))
case("group_normalization", lambda: L.GroupNormalization(groups=2, **F64), [_normal(2, 3, 4)], {},
     lambda w, x: _group_norm_ref(x, w[0], w[1], 2))
case("rms_normalization", lambda: L.RMSNormalization(**F64), [_normal(2, 3)], {},
     lambda w, x: x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * w[0])
case("activity_regularization", lambda: L.ActivityRegularization(l1=0.1, **F64), [_normal(2, 3)], {}, lambda w, x: x)
for _name, _make in (("gaussian_noise", lambda: L.GaussianNoise(0.5, seed=1, **F64)),
                     ("gaussian_dropout", lambda: L.GaussianDropout(0.3, seed=1, **F64)),
                     ("alpha_dropout", lambda: L.AlphaDropout(0.3, seed=1, **F64)),
                     ("spatial_dropout1d", lambda: L.SpatialDropout1D(0.3, seed=1, **F64))):
    case(_name + "_inference", _make, [_seq], {}, lambda w, x: x)  # the identity unless training
case("normalization_given", lambda: L.Normalization(mean=[0.5, -1.0, 2.0], variance=[4.0, 0.25, 1.0], **F64), [_seq],
     {}, lambda w, x: (x - np.array([0.5, -1.0, 2.0])) / np.array([2.0, 0.5, 1.0]))
case("resizing_nearest", lambda: L.Resizing(2, 8, interpolation="nearest", **F64), [_img], {},
     lambda w, x: x[:, [1, 3]][:, :, [0, 0, 1, 1, 2, 2, 3, 3]])
case("center_crop", lambda: L.CenterCrop(3, 2, **F64), [_img], {}, lambda w, x: x[:, 1:4, 1:3])


def _ref_pool3d(x, k, s, padding, kind):
    """Loops over every output position of a channels-last 3-D pooling (padding excluded from means)."""
    n = x.shape[1:4]
    outs, befores = [], []
    for size, kk, ss in zip(n, k, s):
        out = -(-size // ss) if padding == "same" else (size - kk) // ss + 1
        befores.append(max((out - 1) * ss + kk - size, 0) // 2 if padding == "same" else 0)
        outs.append(out)
    y = np.zeros((x.shape[0], *outs, x.shape[4]))
    for i in range(outs[0]):
        for j in range(outs[1]):
            for m in range(outs[2]):
                lo = [max(p * ss - b, 0) for p, ss, b in zip((i, j, m), s, befores)]
                hi = [min(p * ss - b + kk, size) for p, ss, b, kk, size in zip((i, j, m), s, befores, k, n)]
                w = x[:, lo[0]:hi[0], lo[1]:hi[1], lo[2]:hi[2]]
                y[:, i, j, m] = w.max(axis=(1, 2, 3)) if kind == "max" else w.mean(axis=(1, 2, 3))
    return y


def _ref_adaptive(x, sizes, kind):
    """Channels-last adaptive pooling, window by window with PyTorch's bins."""
    n = x.shape[1:-1]
    bins = [[(i * a // b, -(-(i + 1) * a // b)) for i in range(b)] for a, b in zip(n, sizes)]
    y = np.zeros((x.shape[0], *sizes, x.shape[-1]))
    for pos in np.ndindex(*sizes):
        window = x[(slice(None), *(slice(*bins[d][p]) for d, p in enumerate(pos)))]
        axes = tuple(range(1, len(sizes) + 1))
        y[(slice(None), *pos)] = window.max(axis=axes) if kind == "max" else window.mean(axis=axes)
    return y


case("max_pooling3d_same", lambda: L.MaxPooling3D(3, 2, padding="same", **F64), [_spread(2, 5, 4, 3, 2)], {},
     lambda w, x: _ref_pool3d(x, (3, 3, 3), (2, 2, 2), "same", "max"))
case("average_pooling3d_same", lambda: L.AveragePooling3D(3, 2, padding="same", **F64), [_normal(2, 5, 4, 3, 2)], {},
     lambda w, x: _ref_pool3d(x, (3, 3, 3), (2, 2, 2), "same", "avg"))
case("average_pooling3d_valid_uneven", lambda: L.AveragePooling3D((2, 1, 3), (1, 2, 1), **F64),
     [_normal(2, 4, 5, 4, 2)], {}, lambda w, x: _ref_pool3d(x, (2, 1, 3), (1, 2, 1), "valid", "avg"))
case("max_pooling3d_channels_first", lambda: L.MaxPooling3D(2, data_format="channels_first", **F64),
     [_spread(2, 2, 4, 4, 5)], {},
     lambda w, x: _ref_pool3d(x.transpose(0, 2, 3, 4, 1), (2, 2, 2), (2, 2, 2), "valid", "max").transpose(0, 4, 1, 2, 3))
case("adaptive_average_pooling1d", lambda: L.AdaptiveAveragePooling1D(3, **F64), [_normal(2, 7, 3)], {},
     lambda w, x: _ref_adaptive(x, (3,), "avg"))
case("adaptive_max_pooling2d", lambda: L.AdaptiveMaxPooling2D((3, 2), **F64), [_spread(2, 7, 5, 2)], {},
     lambda w, x: _ref_adaptive(x, (3, 2), "max"))
case("adaptive_average_pooling3d", lambda: L.AdaptiveAveragePooling3D((2, 3, 2), **F64), [_normal(2, 5, 7, 4, 2)], {},
     lambda w, x: _ref_adaptive(x, (2, 3, 2), "avg"))
case("adaptive_max_pooling1d_channels_first", lambda: L.AdaptiveMaxPooling1D(2, data_format="channels_first", **F64),
     [_spread(2, 3, 5)], {}, lambda w, x: _ref_adaptive(x.transpose(0, 2, 1), (2,), "max").transpose(0, 2, 1))
case("einsum_dense_bias_de", lambda: L.EinsumDense("abc,cde->abde", (None, 4, 2), bias_axes="de", **F64), [_seq], {},
     lambda w, x: np.einsum("abc,cde->abde", x, w[0]) + w[1])
case("einsum_dense_left_ellipsis", lambda: L.EinsumDense("...b,bc->...c", 4, activation="tanh", bias_axes="c", **F64),
     [_normal(2, 3, 2, 3)], {}, lambda w, x: np.tanh(np.einsum("...b,bc->...c", x, w[0]) + w[1]))
case("einsum_dense_right_ellipsis", lambda: L.EinsumDense("abc...,cd->abd...", (4, 3), bias_axes="d", **F64),
     [_normal(2, 4, 3, 2)], {}, lambda w, x: np.einsum("abc...,cd->abd...", x, w[0]) + w[1])
case("auto_contrast_unit_range", lambda: L.AutoContrast(value_range=(0, 1), **F64), [_spread(2, 3, 4, 2) + 1.0], {},
     lambda w, x: np.clip((x - x.min(axis=(1, 2), keepdims=True))
                          / (x.max(axis=(1, 2), keepdims=True) - x.min(axis=(1, 2), keepdims=True)), 0, 1))
