"""The connectionist temporal classification (CTC) loss on dense, padded labels, with its gradient (issue 37:
Keras 3's ``ops.ctc_loss`` and ``losses.CTC``; ``tf.nn.ctc_loss`` may alias ``ctc_loss_dense``).

For one sequence of logits ``u`` (``T`` steps, ``C`` classes, ``y = softmax(u)``) and labels ``l`` (``U`` of
them), the extended labels ``l'`` put a blank before, between and after them (``S = 2U + 1``). The loss is
``-log p(l | u)``, the sum over the alignments that collapse to ``l`` (repeats merged, blanks removed), computed
by the forward recursion in log space:

    alpha_0(0) = log y_0(blank),  alpha_0(1) = log y_0(l'_1)
    alpha_t(s) = log y_t(l'_s) + logsumexp(alpha_{t-1}(s), alpha_{t-1}(s-1), alpha_{t-1}(s-2))
                 (the s-2 term only where l'_s is a label different from l'_{s-2})
    -log p = -logsumexp(alpha_{T-1}(S-1), alpha_{T-1}(S-2))

With the backward recursion ``beta`` (the same rule from the end), the posterior of state ``s`` at step ``t`` is
``gamma_t(s) = exp(alpha_t(s) + beta_t(s) - log y_t(l'_s) + loss)``, and the gradient of the loss by the logits is

    d loss / d u_t(k) = y_t(k) - sum_{s : l'_s = k} gamma_t(s)

zero at the steps past the sequence's ``logit_length``. The gradient is computed with the forward pass (one op,
``ctc_loss_gradient``); as TensorFlow's CTC loss, it has no second derivative (asking for one raises
``NoGradientError`` naming that op).

Example:
    >>> import numpy as np
    >>> from descend.ops.ctc_ops import ctc_loss_dense
    >>> logits = np.zeros((1, 2, 3))  # two steps, uniform over {blank, 1, 2}
    >>> round(float(ctc_loss_dense([[1]], logits, [1], [2])[0]), 6)  # alignments "1-", "-1", "11": p = 3/9
    1.098612
"""

from __future__ import annotations

import numpy as np

from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from . import array_ops, math_ops

__all__ = ["ctc_loss_dense"]

_NEG_INF = -np.inf


def _logsumexp(*xs):
    stacked = np.stack(xs)
    top = np.max(stacked, axis=0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(stacked - safe), axis=0))


def _log_softmax(u):
    top = np.max(u, axis=-1, keepdims=True)
    shifted = u - top
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _forward_backward(logits, labels, label_length, logit_length, blank, need_grad):
    """The per-sequence loss and (with ``need_grad``) the gradient by ``logits`` (B, T, C), in float64."""
    u = logits.astype(np.float64)
    b_size, t_size, _ = u.shape
    logy = _log_softmax(u)
    u_max = labels.shape[1]
    s_size = 2 * u_max + 1
    ext = np.full((b_size, s_size), blank, np.int64)  # l': blank, l_1, blank, l_2, ..., blank
    ext[:, 1::2] = labels
    s_len = 2 * label_length + 1
    valid = np.arange(s_size)[None, :] < s_len[:, None]
    # the skip s-2 -> s is allowed onto a label that differs from the label two states back
    skip = np.zeros((b_size, s_size), bool)
    skip[:, 2:] = (ext[:, 2:] != blank) & (ext[:, 2:] != ext[:, :-2])
    rows = np.arange(b_size)[:, None]
    emit = logy[rows, :, ext].transpose(0, 2, 1) if s_size else np.zeros((b_size, t_size, 0))  # (B, T, S)

    def shift(a, k):
        out = np.full_like(a, _NEG_INF)
        out[:, k:] = a[:, :-k]
        return out

    alpha = np.full((t_size, b_size, s_size), _NEG_INF)
    first = np.full((b_size, s_size), _NEG_INF)
    first[:, 0] = emit[:, 0, 0] if t_size else _NEG_INF
    if s_size > 1:
        first[:, 1] = np.where(label_length > 0, emit[:, 0, 1], _NEG_INF) if t_size else _NEG_INF
    if t_size:
        alpha[0] = np.where(valid, first, _NEG_INF)
    for t in range(1, t_size):
        prev = alpha[t - 1]
        step = _logsumexp(prev, shift(prev, 1), np.where(skip, shift(prev, 2), _NEG_INF)) + emit[:, t]
        alpha[t] = np.where(valid & (t < logit_length)[:, None], step, _NEG_INF)
    last_t = np.maximum(logit_length - 1, 0)
    final = alpha[last_t, np.arange(b_size)]  # (B, S)
    end_blank = final[np.arange(b_size), s_len - 1]
    end_label = np.where(label_length > 0, final[np.arange(b_size), np.maximum(s_len - 2, 0)], _NEG_INF)
    log_p = _logsumexp(end_blank, end_label)
    log_p = np.where(logit_length > 0, log_p, np.where(label_length > 0, _NEG_INF, 0.0))
    loss = -log_p
    if not need_grad:
        return loss, None
    beta = np.full((t_size, b_size, s_size), _NEG_INF)
    for t in range(t_size - 1, -1, -1):
        init = np.full((b_size, s_size), _NEG_INF)
        init[np.arange(b_size), s_len - 1] = emit[np.arange(b_size), t, s_len - 1]
        has_label = label_length > 0
        init[np.arange(b_size)[has_label], (s_len - 2)[has_label]] = emit[np.arange(b_size)[has_label], t,
                                                                           (s_len - 2)[has_label]]
        if t + 1 < t_size:
            nxt = beta[t + 1]
            back = np.full_like(nxt, _NEG_INF)
            back[:, :-1] = nxt[:, 1:]
            back2 = np.full_like(nxt, _NEG_INF)
            back2[:, :-2] = np.where(skip[:, 2:], nxt[:, 2:], _NEG_INF)
            step = _logsumexp(nxt, back, back2) + emit[:, t]
        else:
            step = np.full((b_size, s_size), _NEG_INF)
        here = np.where((t == logit_length - 1)[:, None], init, np.where((t < logit_length - 1)[:, None], step,
                                                                        _NEG_INF))
        beta[t] = np.where(valid, here, _NEG_INF)
    with np.errstate(invalid="ignore"):
        gamma = np.exp(alpha + beta - emit.transpose(1, 0, 2) + loss[None, :, None])  # (T, B, S)
    gamma = np.where(np.isfinite(gamma), gamma, 0.0)
    occupancy = np.zeros_like(u)  # (B, T, C)
    b_idx = np.broadcast_to(np.arange(b_size)[None, :, None], gamma.shape)
    t_idx = np.broadcast_to(np.arange(t_size)[:, None, None], gamma.shape)
    k_idx = np.broadcast_to(ext[None, :, :], gamma.shape)
    np.add.at(occupancy, (b_idx, t_idx, k_idx), gamma)
    grad = np.exp(logy) - occupancy
    grad[np.arange(t_size)[None, :] >= logit_length[:, None]] = 0.0
    return loss, grad


@defop("ctc_loss_dense")
def _ctc_loss(logits, labels, label_length, logit_length, blank_index=0):
    loss, _ = _forward_backward(logits, labels, label_length, logit_length, blank_index, False)
    return loss.astype(logits.dtype)


@defop("ctc_loss_gradient")
def _ctc_loss_gradient(logits, labels, label_length, logit_length, blank_index=0):
    _, grad = _forward_backward(logits, labels, label_length, logit_length, blank_index, True)
    return grad.astype(logits.dtype)


@_ctc_loss.defvjp
def _(g, ans, logits, labels, label_length, logit_length, blank_index=0):
    # d loss_b / d u_b = softmax(u_b) - occupancy_b, scaled by the upstream gradient of each sequence
    grad = _ctc_loss_gradient(logits, labels, label_length, logit_length, blank_index=blank_index)
    return math_ops.multiply(grad, math_ops.reshape(g, (-1, 1, 1))), None, None, None


def _ints(x, name):
    a = np.asarray(x.numpy() if hasattr(x, "numpy") else x)
    if a.dtype.kind not in "iu":
        raise TypeError(f"ctc_loss: `{name}` must be integers. Received dtype {a.dtype}")
    return a.astype(np.int64)


def ctc_loss_dense(labels, logits, label_length, logit_length, blank_index: int = 0,
                   logits_time_major: bool = False) -> Tensor:
    """The CTC loss ``-log p(labels | logits)`` of each sequence of the batch.

    Args:
        labels: int tensor ``(batch, max_label_length)``, padded; only the first ``label_length[b]`` count.
        logits: float tensor ``(batch, time, classes)`` (``(time, batch, classes)`` with
            ``logits_time_major``), unnormalized (softmax is applied over the classes).
        label_length: int ``(batch,)``, the number of labels of each sequence.
        logit_length: int ``(batch,)``, the number of steps of each sequence.
        blank_index: the class of the blank (negative counts from the last class).

    Returns:
        float tensor ``(batch,)`` of the logits' dtype; ``inf`` where no alignment exists.
    """
    logits = convert_to_tensor(logits)
    if logits.dtype.kind != "f":
        raise TypeError(f"ctc_loss: `logits` must be a float tensor. Received dtype {logits.dtype.name}")
    if logits.ndim != 3:
        raise ValueError(f"ctc_loss: `logits` must have rank 3 (batch, time, classes). Received shape "
                         f"{tuple(logits.shape)}")
    if logits_time_major:
        logits = array_ops.transpose(logits, (1, 0, 2))
    b_size, t_size, classes = logits.shape
    lab = _ints(labels, "labels")
    if lab.ndim != 2 or lab.shape[0] != b_size:
        raise ValueError(f"ctc_loss: `labels` must have shape (batch={b_size}, max_label_length). Received shape "
                         f"{lab.shape}")
    lab_len, log_len = _ints(label_length, "label_length"), _ints(logit_length, "logit_length")
    for name, arr, top in (("label_length", lab_len, lab.shape[1]), ("logit_length", log_len, t_size)):
        if arr.shape != (b_size,):
            raise ValueError(f"ctc_loss: `{name}` must have shape ({b_size},). Received shape {arr.shape}")
        if arr.size and (arr.min() < 0 or arr.max() > top):
            raise ValueError(f"ctc_loss: `{name}` must be in [0, {top}]. Received {arr.tolist()}")
    blank = int(blank_index) + (classes if int(blank_index) < 0 else 0)
    if not 0 <= blank < classes:
        raise ValueError(f"ctc_loss: `blank_index` must be in [-{classes}, {classes}). Received: "
                         f"blank_index={blank_index}")
    used = lab[np.arange(lab.shape[1])[None, :] < lab_len[:, None]]
    if used.size and (used.min() < 0 or used.max() >= classes or np.any(used == blank)):
        raise ValueError(f"ctc_loss: `labels` must be classes in [0, {classes}) other than the blank {blank}. "
                         f"Received {lab.tolist()}")
    lab = np.where(np.arange(lab.shape[1])[None, :] < lab_len[:, None], lab, blank)  # the padding is never read
    return _ctc_loss(logits, lab.astype(np.int32), lab_len.astype(np.int32), log_len.astype(np.int32),
                     blank_index=blank)
