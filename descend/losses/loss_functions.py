"""Keras 3's loss functions (one value per sample), the Reduction names and the reduction of weighted
losses; the Loss classes built on them are in :mod:`.keras_losses` (public as ``descend.losses``)."""

from __future__ import annotations

import math
import re
import warnings

import numpy as np

from .. import activations, backend
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from ..ops import array_ops, math_ops, nn_ops

EPSILON = 1e-7  # keras.backend.epsilon(): the clip margin for probabilities


class Reduction:
    """The names a :class:`Loss` accepts for ``reduction``."""

    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"
    SUM = "sum"
    NONE = "none"
    MEAN = "mean"
    MEAN_WITH_SAMPLE_WEIGHT = "mean_with_sample_weight"
    AUTO = "auto"

    @classmethod
    def all(cls) -> tuple:
        return (cls.SUM_OVER_BATCH_SIZE, cls.SUM, cls.NONE, None, cls.MEAN, cls.MEAN_WITH_SAMPLE_WEIGHT, cls.AUTO)


def standardize_reduction(reduction):
    """Validate ``reduction``; ``"auto"`` becomes ``"sum_over_batch_size"``."""
    if reduction == Reduction.AUTO:
        return Reduction.SUM_OVER_BATCH_SIZE
    if (reduction is not None and not isinstance(reduction, str)) or reduction not in Reduction.all():
        raise ValueError(
            "Invalid value for argument `reduction`. Expected one of "
            f"{[r for r in Reduction.all()]}. Received: reduction={reduction!r}"
        )
    return reduction


# ---------------------------------------------------------------- helpers
def _to_snake_case(name: str) -> str:
    """``"CustomMSE"`` -> ``"custom_mse"`` (Keras's rule)."""
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def _tensor(x):
    """``x`` as a Tensor; Tensors and Variables are returned as they are, so the tape follows them."""
    if isinstance(x, (Tensor, Variable)):
        return x
    if hasattr(x, "_to_dense"):  # IndexedSlices
        return x._to_dense()
    return convert_to_tensor(x)


def _keras_logits(y_pred, from_logits, kind, axis):
    """``(y_pred, from_logits)`` for a cross-entropy: the logits and True when ``y_pred`` is the output of
    :func:`descend.activations.softmax` (``kind="softmax"``, along ``axis``) or ``sigmoid`` -- Keras 3 computes
    from them too, which stays exact where probabilities below 1e-7 would be clipped."""
    if not from_logits and isinstance(axis, (int, np.integer)) and not isinstance(axis, bool):
        logits = activations.logits_of(y_pred, kind, int(axis))
        if logits is not None:
            return logits, True
    return y_pred, from_logits


def _float_tensor(x, dtype=None):
    """``x`` as a floating Tensor: ``dtype`` if given, else its own float dtype, else floatx."""
    t = _tensor(x)
    if dtype is None:
        dtype = t.dtype.dtype if t.dtype.is_floating else backend.floatx()
    dtype = backend.np_dtype(dtype)
    return t if t.dtype == dtype else math_ops.cast(t, dtype=dtype)


def _like(x, ref):
    """``x`` converted to ``ref``'s dtype (a cast op for Tensors, so gradients still flow)."""
    dtype = ref.dtype.dtype
    if isinstance(x, (Tensor, Variable)) or hasattr(x, "_to_dense"):
        t = _tensor(x)
        return t if t.dtype == dtype else math_ops.cast(t, dtype=dtype)
    return convert_to_tensor(np.asarray(x, dtype=dtype))


def _expand_last(x):
    return np.expand_dims(x, -1) if isinstance(x, np.ndarray) else array_ops.expand_dims(x, axis=-1)


def _squeeze_last(x):
    return np.squeeze(x, -1) if isinstance(x, np.ndarray) else array_ops.squeeze(x, axis=-1)


def squeeze_or_expand_to_same_rank(x1, x2, expand_rank_1: bool = True):
    """Make the ranks equal when they differ by one and the longer one ends in a size-1 axis.

    The longer one's last axis is squeezed, except that a rank-1 partner is
    expanded instead when ``expand_rank_1`` (Keras's rule: ``(n,)`` against
    ``(n, 1)`` becomes ``(n, 1)`` and ``(n, 1)``). Works on Tensors and NumPy arrays.
    """
    r1, r2 = len(x1.shape), len(x2.shape)
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = _expand_last(x2)
        else:
            x1 = _squeeze_last(x1)
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = _expand_last(x1)
        else:
            x2 = _squeeze_last(x2)
    return x1, x2


def _prepare(name: str, y_true, y_pred, *, broadcast: bool = True):
    """Float ``y_pred``, ``y_true`` of its dtype, ranks aligned and shapes checked: shapes that broadcast
    together are fine (Keras computes the loss on the broadcast shapes), except where ``broadcast=False``
    (Keras' cross-entropies insist on one shape)."""
    y_pred = _float_tensor(y_pred)
    y_true = _like(y_true, y_pred)
    y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
    shapes = tuple(y_true.shape), tuple(y_pred.shape)
    if shapes[0] != shapes[1]:
        try:
            np.broadcast_shapes(*shapes)
            ok = broadcast
        except ValueError:
            ok = False
        if not ok:
            also = " or shapes that broadcast together" if broadcast else ""
            raise ValueError(f"{name}: y_true and y_pred must have the same shape{also}. "
                             f"Received: y_true.shape={shapes[0]}, y_pred.shape={shapes[1]}")
    return y_true, y_pred


def _mean_last(x, axis=-1):
    """Mean over ``axis`` (a scalar stays a scalar)."""
    return x if x.ndim == 0 else math_ops.reduce_mean(x, axis=axis)


def _sum_last(x, axis=-1):
    return x if x.ndim == 0 else math_ops.reduce_sum(x, axis=axis)


def _check_axis(name: str, axis, ndim: int) -> int:
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
        raise ValueError(f"{name}: `axis` must be an int. Received: axis={axis!r}")
    if ndim < 1:
        raise ValueError(f"{name}: y_pred must have rank >= 1; received a scalar")
    if not -ndim <= axis < ndim:
        raise ValueError(f"{name}: axis {axis} is out of range for y_pred of rank {ndim}")
    return int(axis)


def _check_smoothing(label_smoothing) -> float:
    ls = float(label_smoothing)
    if not 0.0 <= ls <= 1.0:
        raise ValueError(f"`label_smoothing` must be in [0, 1]. Received: label_smoothing={label_smoothing}")
    return ls


# ---------------------------------------------------------------- regression losses
def mean_squared_error(y_true, y_pred):
    """``mean(square(y_true - y_pred), axis=-1)``.

    Example:
        >>> import descend.losses as losses
        >>> losses.mean_squared_error([[0.0, 1.0]], [[1.0, 1.0]]).numpy()
        array([0.5], dtype=float32)
    """
    y_true, y_pred = _prepare("mean_squared_error", y_true, y_pred)
    return _mean_last(math_ops.square(math_ops.subtract(y_true, y_pred)))


def mean_absolute_error(y_true, y_pred):
    """``mean(abs(y_true - y_pred), axis=-1)``."""
    y_true, y_pred = _prepare("mean_absolute_error", y_true, y_pred)
    return _mean_last(math_ops.abs(math_ops.subtract(y_true, y_pred)))


def mean_absolute_percentage_error(y_true, y_pred):
    """``100 * mean(abs((y_true - y_pred) / maximum(abs(y_true), 1e-7)), axis=-1)``."""
    y_true, y_pred = _prepare("mean_absolute_percentage_error", y_true, y_pred)
    diff = math_ops.abs(math_ops.divide(math_ops.subtract(y_true, y_pred),
                                        math_ops.maximum(math_ops.abs(y_true), EPSILON)))
    return math_ops.multiply(_mean_last(diff), 100.0)


def mean_squared_logarithmic_error(y_true, y_pred):
    """``mean(square(log(1 + max(y_pred, eps)) - log(1 + max(y_true, eps))), axis=-1)``."""
    y_true, y_pred = _prepare("mean_squared_logarithmic_error", y_true, y_pred)
    first = math_ops.log1p(math_ops.maximum(y_pred, EPSILON))
    second = math_ops.log1p(math_ops.maximum(y_true, EPSILON))
    return _mean_last(math_ops.square(math_ops.subtract(first, second)))


def huber(y_true, y_pred, delta: float = 1.0):
    """Huber loss: ``0.5 x^2`` for ``|x| <= delta``, else ``delta |x| - 0.5 delta^2``; mean over the last axis.

    ``x = y_pred - y_true``.
    """
    y_true, y_pred = _prepare("huber", y_true, y_pred)
    delta = float(delta)
    err = math_ops.subtract(y_pred, y_true)
    abs_err = math_ops.abs(err)
    quadratic = math_ops.multiply(math_ops.square(err), 0.5)
    linear = math_ops.subtract(math_ops.multiply(abs_err, delta), 0.5 * delta * delta)
    return _mean_last(math_ops.where(math_ops.less_equal(abs_err, delta), quadratic, linear))


def log_cosh(y_true, y_pred):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, as ``x + softplus(-2x) - log 2`` (finite for any x)."""
    y_true, y_pred = _prepare("log_cosh", y_true, y_pred)
    x = math_ops.subtract(y_pred, y_true)
    value = math_ops.subtract(math_ops.add(x, nn_ops.softplus(math_ops.multiply(x, -2.0))), math.log(2.0))
    return _mean_last(value)


def _l2_normalize(x, axis):
    # x / sqrt(max(sum(x^2), 1e-12))  (tf.nn.l2_normalize)
    sq = math_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
    return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(sq, 1e-12)))


def cosine_similarity(y_true, y_pred, axis: int = -1):
    """``-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: -1 for parallel vectors, 0 if either is 0."""
    y_true, y_pred = _prepare("cosine_similarity", y_true, y_pred)
    axis = _check_axis("cosine_similarity", axis, y_pred.ndim)
    return math_ops.negative(math_ops.reduce_sum(
        math_ops.multiply(_l2_normalize(y_true, axis), _l2_normalize(y_pred, axis)), axis=axis))


def kl_divergence(y_true, y_pred):
    """``sum(y_true * log(y_true / y_pred), axis=-1)``, both clipped to ``[1e-7, 1]``."""
    y_true, y_pred = _prepare("kl_divergence", y_true, y_pred)
    t = math_ops.clip_by_value(y_true, EPSILON, 1.0)
    p = math_ops.clip_by_value(y_pred, EPSILON, 1.0)
    return _sum_last(math_ops.multiply(t, math_ops.log(math_ops.divide(t, p))))


def poisson(y_true, y_pred):
    """``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)``."""
    y_true, y_pred = _prepare("poisson", y_true, y_pred)
    return _mean_last(math_ops.subtract(y_pred, math_ops.multiply(y_true, math_ops.log(math_ops.add(y_pred, EPSILON)))))


def _axis_arg(axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    return int(axis)


def dice(y_true, y_pred, axis=None):
    """Dice loss, ``1 - 2 sum(y_true * y_pred) / (sum(y_true) + sum(y_pred) + 1e-7)`` over ``axis`` (None:
    every element, one value for the batch; a tuple such as ``(1, 2, 3)``: one value per image).

    Example:
        >>> import descend.losses as losses
        >>> y_true = [[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]]
        >>> y_pred = [[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]]
        >>> [round(float(v), 4) for v in losses.dice(y_true, y_pred, axis=(1, 2, 3))]
        [0.5, 0.7576]
        >>> round(float(losses.dice(y_true, y_pred)), 4)
        0.6164
    """
    y_pred = _float_tensor(y_pred)
    y_true = _like(y_true, y_pred)
    axis = _axis_arg(axis)
    overlap = math_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=axis)
    total = math_ops.add(math_ops.add(math_ops.reduce_sum(y_true, axis=axis), math_ops.reduce_sum(y_pred, axis=axis)),
                         EPSILON)
    return math_ops.subtract(1.0, math_ops.divide(math_ops.multiply(overlap, 2.0), total))


def tversky(y_true, y_pred, alpha=0.5, beta=0.5, axis=None):
    """Tversky loss (Salehi et al. 2017) as Keras 3 computes it: ``1 - TP / (TP + alpha A + beta B + 1e-7)``
    with ``TP = sum(y_true * y_pred)``, ``A = sum(y_true * (1 - y_pred))`` and ``B = sum((1 - y_true) *
    y_pred)`` over ``axis``. (Keras' documentation calls ``alpha`` the weight of false positives, but its
    formula, followed here so that ported programs get Keras' numbers, gives ``alpha`` the missed positives
    ``A``.) ``alpha = beta = 0.5`` is the Dice loss."""
    y_pred = _float_tensor(y_pred)
    y_true = _like(y_true, y_pred)
    axis = _axis_arg(axis)
    tp = math_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=axis)
    missed = math_ops.reduce_sum(math_ops.multiply(y_true, math_ops.subtract(1.0, y_pred)), axis=axis)
    spurious = math_ops.reduce_sum(math_ops.multiply(math_ops.subtract(1.0, y_true), y_pred), axis=axis)
    denominator = math_ops.add(math_ops.add(math_ops.add(tp, math_ops.multiply(missed, float(alpha))),
                                            math_ops.multiply(spurious, float(beta))), EPSILON)
    return math_ops.subtract(1.0, math_ops.divide(tp, denominator))


def categorical_generalized_cross_entropy(y_true, y_pred, q):
    """Generalized cross-entropy (Zhang and Sabuncu 2018), robust to noisy labels: ``(1 - p**q) / q`` where
    ``p`` is the predicted probability of the true class (``y_true``: integer class indices, shape
    ``(batch,)`` or ``(batch, 1)``; ``y_pred``: probabilities ``(batch, classes)``). ``q`` in (0, 1): near 0
    it behaves as the cross-entropy, at 1 as the mean absolute error."""
    y_pred = _float_tensor(y_pred)
    labels = np.asarray(y_true.numpy() if isinstance(y_true, (Tensor, Variable)) else y_true)
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = labels[..., 0]
    picked = array_ops.one_hot(convert_to_tensor(labels.astype(np.int64)), depth=int(y_pred.shape[-1]),
                               dtype=y_pred.dtype.dtype)
    p = math_ops.reduce_sum(math_ops.multiply(y_pred, picked), axis=-1)
    return math_ops.divide(math_ops.subtract(1.0, math_ops.pow(p, float(q))), float(q))


def _hinge_labels(y_true):
    """Labels in {0, 1} become {-1, 1}; other labels are used as they are (Keras's rule)."""
    v = np.asarray(y_true)
    if v.size and np.all((v == 0) | (v == 1)):
        return math_ops.subtract(math_ops.multiply(y_true, 2.0), 1.0)
    return y_true


def hinge(y_true, y_pred):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)``; 0/1 labels are mapped to -1/1."""
    y_true, y_pred = _prepare("hinge", y_true, y_pred)
    y_true = _hinge_labels(y_true)
    return _mean_last(math_ops.maximum(math_ops.subtract(1.0, math_ops.multiply(y_true, y_pred)), 0.0))


def squared_hinge(y_true, y_pred):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``; 0/1 labels are mapped to -1/1."""
    y_true, y_pred = _prepare("squared_hinge", y_true, y_pred)
    y_true = _hinge_labels(y_true)
    margin = math_ops.maximum(math_ops.subtract(1.0, math_ops.multiply(y_true, y_pred)), 0.0)
    return _mean_last(math_ops.square(margin))


def categorical_hinge(y_true, y_pred):
    """``maximum(neg - pos + 1, 0)`` with ``pos = sum(y_true * y_pred)``, ``neg = max((1 - y_true) * y_pred)``."""
    y_true, y_pred = _prepare("categorical_hinge", y_true, y_pred)
    if y_pred.ndim < 1:
        raise ValueError("categorical_hinge: y_pred must have rank >= 1; received a scalar")
    pos = math_ops.reduce_sum(math_ops.multiply(y_true, y_pred), axis=-1)
    neg = math_ops.reduce_max(math_ops.multiply(math_ops.subtract(1.0, y_true), y_pred), axis=-1)
    return math_ops.maximum(math_ops.add(math_ops.subtract(neg, pos), 1.0), 0.0)


# ---------------------------------------------------------------- cross-entropies
def binary_crossentropy(y_true, y_pred, from_logits: bool = False, label_smoothing: float = 0.0, axis: int = -1):
    """Binary cross-entropy, averaged over ``axis``.

    ``-(t log p + (1 - t) log(1 - p))`` with ``p`` clipped to ``[1e-7, 1 - 1e-7]``;
    with ``from_logits`` it is ``descend.nn.sigmoid_cross_entropy_with_logits``
    (no clipping, finite for any logit). Label smoothing ``s`` replaces ``t`` by
    ``t (1 - s) + s / 2``.

    Example:
        >>> import descend.losses as losses
        >>> losses.binary_crossentropy([[0.0, 1.0], [0.0, 0.0]], [[0.6, 0.4], [0.4, 0.6]]).numpy().round(3)
        array([0.916, 0.714], dtype=float32)
    """
    y_pred, from_logits = _keras_logits(y_pred, from_logits, "sigmoid", -1)
    y_true, y_pred = _prepare("binary_crossentropy", y_true, y_pred, broadcast=False)
    ls = _check_smoothing(label_smoothing)
    if ls:
        # t <- t (1 - s) + s / 2
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - ls), 0.5 * ls)
    if from_logits:
        bce = nn_ops.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    else:
        p = math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
        # -(t log p + (1 - t) log(1 - p))
        bce = math_ops.negative(math_ops.add(
            math_ops.multiply(y_true, math_ops.log(p)),
            math_ops.multiply(math_ops.subtract(1.0, y_true), math_ops.log(math_ops.subtract(1.0, p)))))
    if bce.ndim == 0:
        return bce
    return math_ops.reduce_mean(bce, axis=_check_axis("binary_crossentropy", axis, bce.ndim))


def categorical_crossentropy(y_true, y_pred, from_logits: bool = False, label_smoothing: float = 0.0,
                             axis: int = -1):
    """Categorical cross-entropy ``-sum(y_true * log p, axis)`` for one-hot (or soft) labels.

    On probabilities, ``p = y_pred / sum(y_pred, axis)`` clipped to
    ``[1e-7, 1 - 1e-7]``; with ``from_logits``,
    ``descend.nn.softmax_cross_entropy_with_logits`` (log-sum-exp, finite for
    any logit). Label smoothing ``s`` replaces ``y_true`` by
    ``y_true (1 - s) + s / num_classes``.

    Example:
        >>> import descend.losses as losses
        >>> y_true = [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> losses.categorical_crossentropy(y_true, y_pred).numpy().round(4)
        array([0.0513, 2.3026], dtype=float32)
    """
    y_pred, from_logits = _keras_logits(y_pred, from_logits, "softmax", axis)
    y_true, y_pred = _prepare("categorical_crossentropy", y_true, y_pred, broadcast=False)
    axis = _check_axis("categorical_crossentropy", axis, y_pred.ndim)
    if y_pred.shape[axis] == 1:
        warnings.warn(
            "In loss categorical_crossentropy, expected y_pred.shape to be (batch_size, num_classes) with "
            f"num_classes > 1. Received: y_pred.shape={tuple(y_pred.shape)}. Consider using 'binary_crossentropy' "
            "if you only have 2 classes.",
            SyntaxWarning,  # Keras' category for this warning
            stacklevel=2,
        )
    ls = _check_smoothing(label_smoothing)
    if ls:
        # t <- t (1 - s) + s / num_classes
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - ls), ls / y_true.shape[axis])
    if from_logits:
        return nn_ops.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = math_ops.divide(y_pred, math_ops.reduce_sum(y_pred, axis=axis, keepdims=True))
    p = math_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return math_ops.negative(math_ops.reduce_sum(math_ops.multiply(y_true, math_ops.log(p)), axis=axis))


def _integer_labels(name: str, y_true) -> np.ndarray:
    labels = np.asarray(y_true._to_dense() if hasattr(y_true, "_to_dense") else y_true)
    if labels.dtype.kind == "f":
        if not np.all(np.isfinite(labels)) or not np.all(labels == np.round(labels)):
            raise ValueError(f"{name}: y_true must hold integer class indices; received non-integer values")
        labels = labels.astype(np.int64)
    elif labels.dtype.kind == "b":
        labels = labels.astype(np.int64)
    elif labels.dtype.kind not in "iu":
        raise TypeError(f"{name}: y_true must hold integer class indices; received dtype {labels.dtype}")
    return labels


def _sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    """The per-sample losses and the mask of valid (not ignored) samples (``None`` without ``ignore_class``)."""
    name = "sparse_categorical_crossentropy"
    y_pred, from_logits = _keras_logits(y_pred, from_logits, "softmax", axis)
    y_pred = _float_tensor(y_pred)
    # integer labels in a Tensor stay in ops (a trace of descend.function records them); the checks read
    # their values as they are now
    as_ops = ignore_class is None and isinstance(y_true, (Tensor, Variable)) and y_true._value.dtype.kind in "iufb"
    labels = _integer_labels(name, y_true._value if as_ops else y_true)
    axis = _check_axis(name, axis, y_pred.ndim)
    if axis % y_pred.ndim != y_pred.ndim - 1:
        # move the class axis last
        perm = [i for i in range(y_pred.ndim) if i != axis % y_pred.ndim] + [axis % y_pred.ndim]
        y_pred = array_ops.transpose(y_pred, perm=perm)
    if labels.ndim == y_pred.ndim and labels.shape[-1] == 1:
        labels = np.squeeze(labels, -1)
    if labels.shape != tuple(y_pred.shape[:-1]):
        raise ValueError(
            f"{name}: y_true must have the shape of y_pred without its class axis. "
            f"Received: y_true.shape={np.shape(labels)}, y_pred.shape={tuple(y_pred.shape)}"
        )
    valid = None
    if ignore_class is not None:
        valid = labels != int(ignore_class)
        labels = np.where(valid, labels, 0)
    n = y_pred.shape[-1]
    bad = (labels < 0) | (labels >= n)
    if bad.any():
        raise ValueError(
            f"{name}: received a label value of {int(labels[bad][0])} which is outside the valid range "
            f"of [0, {n})"
        )
    if as_ops:
        labels_t = y_true if y_true.ndim == labels.ndim else array_ops.reshape(y_true, shape=labels.shape)
        labels_t = math_ops.cast(labels_t, np.int64)
    else:
        labels_t = convert_to_tensor(labels.astype(np.int64))
    if from_logits:
        res = nn_ops.sparse_softmax_cross_entropy_with_logits(labels=labels_t, logits=y_pred)
    else:
        p = math_ops.divide(y_pred, math_ops.reduce_sum(y_pred, axis=-1, keepdims=True))
        p = math_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
        picked = array_ops.one_hot(labels_t, depth=n, dtype=y_pred.dtype.dtype)
        res = math_ops.negative(math_ops.reduce_sum(math_ops.multiply(picked, math_ops.log(p)), axis=-1))
    if valid is not None:
        res = math_ops.where(convert_to_tensor(valid), res, math_ops.zeros_like(res))
    return res, valid


def _check_focal(name: str, alpha, gamma) -> tuple:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 <= alpha <= 1:
        raise ValueError(f"{name}: `alpha` must be a number in [0, 1]. Received: alpha={alpha!r}")
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float)) or not (math.isfinite(gamma) and gamma >= 0):
        raise ValueError(f"{name}: `gamma` must be a number >= 0. Received: gamma={gamma!r}")
    return float(alpha), float(gamma)


def binary_focal_crossentropy(y_true, y_pred, apply_class_balancing: bool = False, alpha: float = 0.25,
                              gamma: float = 2.0, from_logits: bool = False, label_smoothing: float = 0.0,
                              axis: int = -1):
    """Focal binary cross-entropy (Lin et al.), averaged over ``axis``, as Keras 3.

    ``(1 - p_t) ** gamma * bce`` with ``p_t = t p + (1 - t)(1 - p)`` down-weights the examples the
    model already gets right; with ``apply_class_balancing`` each term is also weighted by ``alpha``
    (positives) or ``1 - alpha`` (negatives). Logits go through a sigmoid first; the cross-entropy is
    the clipped one of :func:`binary_crossentropy` on probabilities.

    Example:
        >>> import descend.losses as losses
        >>> losses.binary_focal_crossentropy([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]], gamma=2.0).numpy().round(4)
        array([0.3299, 0.2058], dtype=float32)
    """
    name = "binary_focal_crossentropy"
    alpha, gamma = _check_focal(name, alpha, gamma)
    y_true, y_pred = _prepare(name, y_true, y_pred, broadcast=False)
    ls = _check_smoothing(label_smoothing)
    if ls:
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - ls), 0.5 * ls)
    if from_logits:
        y_pred = nn_ops.sigmoid(y_pred)
    p = math_ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
    not_t = math_ops.subtract(1.0, y_true)
    bce = math_ops.negative(math_ops.add(math_ops.multiply(y_true, math_ops.log(p)),
                                         math_ops.multiply(not_t, math_ops.log(math_ops.subtract(1.0, p)))))
    p_t = math_ops.add(math_ops.multiply(y_true, y_pred), math_ops.multiply(not_t, math_ops.subtract(1.0, y_pred)))
    focal = math_ops.multiply(math_ops.pow(math_ops.subtract(1.0, p_t), gamma), bce)
    if apply_class_balancing:
        focal = math_ops.multiply(math_ops.add(math_ops.multiply(y_true, alpha), math_ops.multiply(not_t, 1.0 - alpha)),
                                  focal)
    if focal.ndim == 0:
        return focal
    return math_ops.reduce_mean(focal, axis=_check_axis(name, axis, focal.ndim))


def categorical_focal_crossentropy(y_true, y_pred, alpha: float = 0.25, gamma: float = 2.0, from_logits: bool = False,
                                   label_smoothing: float = 0.0, axis: int = -1):
    """Focal categorical cross-entropy, as Keras 3: ``sum(alpha * (1 - p) ** gamma * -y_true * log p, axis)``
    with ``p`` the class probabilities (a softmax of logits), normalised and clipped to ``[1e-7, 1 - 1e-7]``.

    Example:
        >>> import descend.losses as losses
        >>> y_true, y_pred = [[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> losses.categorical_focal_crossentropy(y_true, y_pred).numpy().round(4)
        array([0.    , 0.4663], dtype=float32)
    """
    name = "categorical_focal_crossentropy"
    alpha, gamma = _check_focal(name, alpha, gamma)
    y_true, y_pred = _prepare(name, y_true, y_pred, broadcast=False)
    axis = _check_axis(name, axis, y_pred.ndim)
    if y_pred.shape[axis] == 1:
        warnings.warn(f"In loss {name}, expected y_pred.shape to be (batch_size, num_classes) with num_classes > 1. "
                      f"Received: y_pred.shape={tuple(y_pred.shape)}. Consider using 'binary_crossentropy' if you "
                      "only have 2 classes.",
                      SyntaxWarning, stacklevel=2)
    ls = _check_smoothing(label_smoothing)
    if ls:
        y_true = math_ops.add(math_ops.multiply(y_true, 1.0 - ls), ls / y_true.shape[axis])
    if from_logits:
        y_pred = nn_ops.softmax(y_pred, axis=axis)
    p = math_ops.divide(y_pred, math_ops.reduce_sum(y_pred, axis=axis, keepdims=True))
    p = math_ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    cce = math_ops.negative(math_ops.multiply(y_true, math_ops.log(p)))
    weight = math_ops.multiply(math_ops.pow(math_ops.subtract(1.0, p), gamma), alpha)
    return math_ops.reduce_sum(math_ops.multiply(weight, cce), axis=axis)


def _check_ignore_class(ignore_class) -> None:
    if ignore_class is not None and (isinstance(ignore_class, bool) or not isinstance(ignore_class, (int, np.integer))):
        raise ValueError(f"`ignore_class` must be an int or None. Received: ignore_class={ignore_class!r}")


def sparse_categorical_crossentropy(y_true, y_pred, from_logits: bool = False, ignore_class=None, axis: int = -1):
    """Categorical cross-entropy with integer labels ``y_true`` (shape ``y_pred.shape[:-1]``, or with a trailing 1).

    With ``from_logits`` it is ``descend.nn.sparse_softmax_cross_entropy_with_logits``
    (finite for any logit); on probabilities, ``-log(p[label])`` with ``p``
    normalised and clipped to ``[1e-7, 1 - 1e-7]``. Samples whose label is
    ``ignore_class`` get loss 0 (and the :class:`SparseCategoricalCrossentropy`
    object leaves them out of the mean).

    Example:
        >>> import descend.losses as losses
        >>> losses.sparse_categorical_crossentropy([1, 2], [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]).numpy().round(4)
        array([0.0513, 2.3026], dtype=float32)
    """
    return _sparse_categorical_crossentropy(y_true, y_pred, from_logits, ignore_class, axis)[0]


# ---------------------------------------------------------------- reduction
def _broadcast_weights(values, sample_weight):
    """Align ``sample_weight``'s rank with ``values`` and check that they broadcast.

    Only the weights are reshaped, so the losses keep their shape (weights
    ``(n, 1)`` on losses ``(n,)`` give ``(n,)``, where Keras 3 would give
    ``(n, 1)``): a trailing unit axis the weights have and the losses lack is
    squeezed, one the losses have and the weights lack is added, and weights of
    shape ``values.shape[:k]`` (per-sample weights for per-timestep losses) get
    trailing unit axes.
    """
    vs, ws = tuple(values.shape), tuple(sample_weight.shape)
    given = ws
    if len(ws) == len(vs) + 1 and ws[-1] == 1:
        sample_weight = array_ops.squeeze(sample_weight, axis=-1)
    elif len(vs) == len(ws) + 1 and vs[-1] == 1:
        sample_weight = array_ops.expand_dims(sample_weight, axis=-1)
    ws = tuple(sample_weight.shape)
    if 0 < len(ws) < len(vs) and vs[: len(ws)] == ws:
        sample_weight = array_ops.reshape(sample_weight, shape=ws + (1,) * (len(vs) - len(ws)))
    try:
        np.broadcast_shapes(vs, tuple(sample_weight.shape))
    except ValueError:
        raise ValueError(
            f"sample_weight of shape {given} cannot be broadcast to the per-sample losses of shape {vs}"
        ) from None
    return values, sample_weight


def reduce_values(values, sample_weight=None, reduction: str | None = "sum_over_batch_size"):
    """Reduce already weighted per-sample ``values`` (a scalar is returned as it is)."""
    if reduction is None or reduction == "none" or values.ndim == 0:
        return values
    loss = math_ops.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean", "mean_with_sample_weight"):
        if reduction == "mean_with_sample_weight" and sample_weight is not None:
            # sum(w * loss) / sum(w)   (0 when the weights sum to 0)
            total = float(np.sum(np.broadcast_to(np.asarray(sample_weight), values.shape)))
        else:
            # sum(w * loss) / number of loss elements
            total = float(values.size)
        loss = math_ops.divide(loss, total) if total != 0 else math_ops.multiply(loss, 0.0)
    return loss


def reduce_weighted_values(values, sample_weight=None, mask=None, reduction: str | None = "sum_over_batch_size"):
    """Weight per-sample ``values`` by ``sample_weight`` (and a boolean ``mask``) and reduce them.

    The mask zeroes the weights of masked-out samples; for the mean reductions
    it also rescales the rest so that the mean is over the valid samples only.
    """
    reduction = standardize_reduction(reduction)
    values = _float_tensor(values)
    if mask is not None:
        m = np.asarray(mask).astype(values.dtype.dtype)
        if reduction in ("mean", "sum_over_batch_size"):
            # valid entries weigh total / valid, so sum(w * loss) / total = mean over the valid ones
            valid = float(m.sum())
            m = m * (m.size / valid if valid else 0.0)
        m = convert_to_tensor(m)
        if sample_weight is None:
            sample_weight = m
        else:
            sw = _like(sample_weight, values)
            m, sw = squeeze_or_expand_to_same_rank(m, sw, expand_rank_1=False)
            sample_weight = math_ops.multiply(sw, m)
    if sample_weight is not None:
        sample_weight = _like(sample_weight, values)
        values, sample_weight = _broadcast_weights(values, sample_weight)
        values = math_ops.multiply(values, sample_weight)
    return reduce_values(values, sample_weight, reduction)
