"""Keras 3's ``losses.ctc`` and ``losses.circle`` (issue 37); their classes ``CTC`` and ``Circle`` are in
``descend.losses`` with the other loss classes.

Example:
    >>> import numpy as np
    >>> from descend.losses import ctc
    >>> round(float(ctc(np.array([[1, 0]]), np.zeros((1, 2, 3), np.float32))[0]), 5)  # p = 3/9, as ctc_loss
    1.09861
"""

from __future__ import annotations

import numpy as np

from ..framework import Tensor, Variable
from ..framework import convert_to_tensor as _to_tensor
from ..ops import array_ops, ctc_ops, math_ops, nn_ops

__all__ = ["ctc", "circle"]


def _t(x):
    if isinstance(x, Variable):
        return x.value() if callable(getattr(x, "value", None)) else _to_tensor(x)
    return x if isinstance(x, Tensor) else _to_tensor(x)


def ctc(y_true, y_pred):
    """The CTC loss of each sequence: ``y_true`` (batch, max_length) int labels, 0 the blank and the padding (a
    sequence's labels are its non-zero entries' count, from the start); ``y_pred`` (batch, time, classes)
    unnormalized logits, every step used."""
    labels = np.asarray(y_true.numpy() if hasattr(y_true, "numpy") else y_true)
    y_pred = _t(y_pred)
    if labels.ndim != 2:
        raise ValueError(f"ctc: `y_true` must have shape (batch_size, max_length) of integer labels. Received "
                         f"y_true.shape={labels.shape}")
    if y_pred.ndim != 3:
        raise ValueError(f"ctc: `y_pred` must have shape (batch_size, max_length, num_classes). Received "
                         f"y_pred.shape={tuple(y_pred.shape)}")
    labels = labels.astype(np.int32)
    if y_pred.dtype.kind != "f":
        y_pred = math_ops.cast(y_pred, "float32")
    elif y_pred.dtype.name == "float16":
        y_pred = math_ops.cast(y_pred, "float32")
    batch, steps = y_pred.shape[0], y_pred.shape[1]
    label_length = np.sum(labels != 0, axis=-1).astype(np.int32)
    return ctc_ops.ctc_loss_dense(labels, y_pred, label_length, np.full(batch, steps, np.int32), blank_index=0)


def circle(y_true, y_pred, ref_labels=None, ref_embeddings=None, remove_diagonal=True, gamma=80, margin=0.4):
    """The Circle loss (Sun et al. 2020) of L2-normalized embeddings ``y_pred`` (batch, dim) with integer labels
    ``y_true``, against ``ref_embeddings``/``ref_labels`` (default: the batch itself), as Keras 3 computes it.

    With cosine distances ``d = max(1 - y_pred @ ref^T, 0)``, positives (same label; the diagonal removed with
    ``remove_diagonal``) and negatives (other labels):

        p = logsumexp over positives of  -gamma * max(margin + d, 0) * (margin - d)
        n = logsumexp over negatives of   gamma * max(1 + margin - d, 0) * (1 - margin - d)
        loss = softplus(p + n)

    The losses carry a Keras mask (``loss > 0``), so a reduction averages over the rows with a non-zero loss."""
    from ..layers.base import set_mask  # the layers' mask registry (imported here: layers import losses)

    y_pred = _t(y_pred)
    if y_pred.dtype.kind != "f":
        y_pred = math_ops.cast(y_pred, "float32")
    labels = np.asarray(y_true.numpy() if hasattr(y_true, "numpy") else y_true).astype(np.int32).reshape(-1)
    ref = y_pred if ref_embeddings is None else math_ops.cast(_t(ref_embeddings), y_pred.dtype.name)
    ref_lab = labels if ref_labels is None else np.asarray(
        ref_labels.numpy() if hasattr(ref_labels, "numpy") else ref_labels).astype(np.int32).reshape(-1)
    if y_pred.ndim != 2 or ref.ndim != 2 or y_pred.shape[-1] != ref.shape[-1]:
        raise ValueError(f"circle: `y_pred` and `ref_embeddings` must be (batch, dim) with the same dim. Received "
                         f"shapes {tuple(y_pred.shape)} and {tuple(ref.shape)}")
    if labels.size != y_pred.shape[0] or ref_lab.size != ref.shape[0]:
        raise ValueError(f"circle: one label per embedding expected. Received {labels.size} labels for "
                         f"{y_pred.shape[0]} embeddings and {ref_lab.size} reference labels for {ref.shape[0]}")
    dtype = y_pred.dtype.name
    positive = labels[:, None] == ref_lab[None, :]
    negative = ~positive
    if remove_diagonal:
        positive = positive & ~np.eye(labels.size, ref_lab.size, dtype=bool)
    pos_f, neg_f = positive.astype(dtype), negative.astype(dtype)
    gamma, margin = float(gamma), float(margin)
    dist = math_ops.maximum(math_ops.subtract(1.0, math_ops.matmul(y_pred, array_ops.transpose(ref))), 0.0)
    pos_w = math_ops.maximum(math_ops.multiply(math_ops.add(dist, margin), pos_f), 0.0)
    neg_w = math_ops.maximum(math_ops.multiply(math_ops.subtract(1.0 + margin, dist), neg_f), 0.0)
    pos_terms = math_ops.multiply(math_ops.multiply(pos_w, -gamma), math_ops.subtract(margin, dist))
    neg_terms = math_ops.multiply(math_ops.multiply(neg_w, gamma), math_ops.subtract(1.0 - margin, dist))
    minus_inf = np.asarray(-np.inf, dtype)
    p_loss = math_ops.reduce_logsumexp(math_ops.where(positive, pos_terms, minus_inf), axis=1)
    n_loss = math_ops.reduce_logsumexp(math_ops.where(negative, neg_terms, minus_inf), axis=1)
    loss = nn_ops.softplus(math_ops.add(p_loss, n_loss))
    set_mask(loss, math_ops.greater(loss, 0.0))
    return loss
