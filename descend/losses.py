"""Losses, as ``keras.losses`` (Keras 3): classes, functions and ``get``.

A loss *function* ``fn(y_true, y_pred)`` returns one value per sample: the
elementwise loss averaged (or, for the cross-entropies, summed) over the last
axis. A :class:`Loss` *object* calls its ``call(y_true, y_pred)`` to get those
per-sample losses, weights them by ``sample_weight`` and reduces them:

* ``"sum_over_batch_size"`` (default; ``"auto"`` and ``"mean"`` are aliases):
  ``sum(w * loss) / number_of_loss_elements``, as Keras 3 (not divided by the
  sum of the weights);
* ``"sum"``: ``sum(w * loss)``;
* ``"mean_with_sample_weight"``: ``sum(w * loss) / sum(w)``;
* ``"none"`` or ``None``: the weighted per-sample losses.

Everything is built from descend ops, so gradients flow to ``y_pred`` (and to
``y_true`` where the math allows). The cross-entropies on logits use the
stable ``descend.nn`` ops (finite for logits of any size); on probabilities
they clip to ``[1e-7, 1 - 1e-7]`` as Keras does (``keras.backend.epsilon()``).

Example:
    >>> import descend as ds, numpy as np
    >>> import descend.losses as losses
    >>> loss_fn = losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> logits = ds.constant([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
    >>> round(float(loss_fn([0, 2], logits)), 4)
    0.1755
"""

from __future__ import annotations

import inspect
import math
import re
import warnings

import numpy as np

from . import activations, backend
from .framework.tensor import Tensor, convert_to_tensor
from .framework.variable import Variable
from .ops import array_ops, math_ops, nn_ops
from .persistence.object_config import get_object
from .persistence.registry import register_builtins

__all__ = [
    "Loss", "LossFunctionWrapper", "Reduction",
    "MeanSquaredError", "MeanAbsoluteError", "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError",
    "Huber", "LogCosh", "CosineSimilarity", "KLDivergence", "Poisson", "Hinge", "SquaredHinge",
    "CategoricalHinge", "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
    "mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error", "huber", "log_cosh", "cosine_similarity", "kl_divergence", "poisson",
    "hinge", "squared_hinge", "categorical_hinge", "binary_crossentropy", "categorical_crossentropy",
    "sparse_categorical_crossentropy", "BinaryFocalCrossentropy", "CategoricalFocalCrossentropy",
    "binary_focal_crossentropy", "categorical_focal_crossentropy", "Dice", "Tversky",
    "CategoricalGeneralizedCrossEntropy", "dice", "tversky", "categorical_generalized_cross_entropy",
    "reduce_weighted_values", "squeeze_or_expand_to_same_rank",
    "get", "serialize", "deserialize", "EPSILON",
]

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


# ---------------------------------------------------------------- Loss classes
class Loss:
    """Base class of losses: subclass it and implement ``call(y_true, y_pred)``.

    ``call`` returns the per-sample losses (or any tensor of losses); calling
    the object weights them by ``sample_weight`` and applies ``reduction``.

    Args:
        name: the loss's name (default: the class name in snake case).
        reduction: ``"sum_over_batch_size"`` (default; also ``"auto"``),
            ``"sum"``, ``"mean"``, ``"mean_with_sample_weight"``, ``"none"`` or ``None``.
        dtype: the dtype of the computation (a float dtype or a dtype policy, whose compute dtype is taken):
            ``y_true`` and ``y_pred`` are cast to it. ``None``: :func:`descend.floatx` when the loss is made
            (float32), as Keras 3, so float64 data gives a float32 loss unless ``dtype="float64"``.

    A Keras mask attached to ``y_pred`` (:func:`descend.layers.set_mask`, or the mask of the layer that made it)
    leaves the masked entries out, as in Keras 3.

    Example:
        >>> import descend as ds
        >>> import descend.losses as losses
        >>> class CustomMSE(losses.Loss):
        ...     def call(self, y_true, y_pred):
        ...         return ds.reduce_mean(ds.square(y_true - y_pred), axis=-1)
        >>> float(CustomMSE()([[0.0, 1.0]], [[1.0, 1.0]]))
        0.5
    """

    def __init__(self, name: str | None = None, reduction: str | None = "sum_over_batch_size", dtype=None):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be a string. Received: name={name!r}")
        self.name = name or _to_snake_case(type(self).__name__)
        self.reduction = standardize_reduction(reduction)
        if dtype is not None:
            d = backend.as_dtype(getattr(dtype, "compute_dtype", dtype))
            if not d.is_floating:
                raise ValueError(f"A loss's dtype must be a float dtype. Received: dtype={dtype!r}")
            dtype = d.name
        self._dtype_arg = dtype  # what the config records: only a dtype that was asked for
        self._dtype = dtype or backend.as_dtype(backend.floatx()).name

    @property
    def dtype(self) -> str:
        """The dtype the loss computes in."""
        return self._dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        """The reduced (weighted) loss of a batch."""
        from .layers.base import get_mask

        in_mask = get_mask(y_pred)
        y_pred = _float_tensor(y_pred, self._dtype)
        y_true = _like(y_true, y_pred)
        losses, mask = self._call_with_mask(y_true, y_pred)
        out_mask = get_mask(losses)
        for m in (in_mask, out_mask):
            if m is not None:
                m = _tensor(m)
                mask = m if mask is None else math_ops.logical_and(mask, m)
        return reduce_weighted_values(losses, sample_weight=sample_weight, mask=mask, reduction=self.reduction)

    def _call_with_mask(self, y_true, y_pred):
        """``call``'s losses and an optional boolean mask of the samples to keep."""
        out = self.call(y_true, y_pred)
        if out is None:
            raise TypeError(f"{type(self).__name__}.call returned None; it must return the losses")
        return _tensor(out), None

    def call(self, y_true, y_pred):
        """The per-sample losses of ``y_pred`` against ``y_true``."""
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred)")

    def get_config(self) -> dict:
        config = {"name": self.name, "reduction": self.reduction}
        if self._dtype_arg is not None:
            config["dtype"] = self._dtype_arg
        return config

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r} reduction={self.reduction!r}>"


class LossFunctionWrapper(Loss):
    """A :class:`Loss` around a loss function ``fn(y_true, y_pred, **kwargs)``.

    Example:
        >>> import descend.losses as losses
        >>> loss = losses.LossFunctionWrapper(losses.mean_absolute_error, reduction="sum")
        >>> float(loss([[0.0, 1.0]], [[1.0, 1.0]]))
        0.5
    """

    def __init__(self, fn, reduction: str | None = "sum_over_batch_size", name: str | None = None, dtype=None,
                 **kwargs):
        if not callable(fn):
            raise TypeError(f"`fn` must be callable. Received: fn={fn!r}")
        super().__init__(name=name or getattr(fn, "__name__", None), reduction=reduction, dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = squeeze_or_expand_to_same_rank(y_true, y_pred)
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self) -> dict:
        config = super().get_config()
        config["fn"] = _function_name(self.fn)
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        fn = config.get("fn")
        if isinstance(fn, (str, dict)):
            found = _find_function(fn)
            if found is None:
                raise ValueError(f"Unknown loss function {str(fn)[:200]!r}. Known functions: "
                                 f"{', '.join(_function_names())}, or one registered with "
                                 "descend.saving.register_serializable or passed in custom_objects")
            config["fn"] = found
        return cls(**config)

    def __repr__(self):
        return f"<LossFunctionWrapper({getattr(self.fn, '__name__', self.fn)}, kwargs={self._fn_kwargs})>"


class _BuiltinLoss(LossFunctionWrapper):
    """A built-in loss class: its config is its constructor arguments. Those named in ``_params`` are passed
    on to the loss function and are also the instance's attributes (``loss.from_logits``, ``loss.axis``)."""

    _params: tuple = ()

    def __init__(self, fn, **kwargs):
        super().__init__(fn, **kwargs)
        for k in self._params:
            setattr(self, k, self._fn_kwargs[k])

    def get_config(self) -> dict:
        config = Loss.get_config(self)
        config.update({k: getattr(self, k) for k in self._params})
        return config

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    __repr__ = Loss.__repr__


class MeanSquaredError(_BuiltinLoss):
    """Mean of squared errors: ``mean(square(y_true - y_pred), axis=-1)``, then reduced.

    Example:
        >>> import descend.losses as losses
        >>> float(losses.MeanSquaredError()([[0.0, 1.0], [0.0, 0.0]], [[1.0, 1.0], [1.0, 0.0]]))
        0.5
    """

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_error", dtype=None):
        super().__init__(mean_squared_error, name=name, reduction=reduction, dtype=dtype)


class MeanAbsoluteError(_BuiltinLoss):
    """Mean of absolute errors: ``mean(abs(y_true - y_pred), axis=-1)``, then reduced."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_error", dtype=None):
        super().__init__(mean_absolute_error, name=name, reduction=reduction, dtype=dtype)


class MeanAbsolutePercentageError(_BuiltinLoss):
    """``100 * mean(abs((y_true - y_pred) / y_true), axis=-1)``, then reduced."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_absolute_percentage_error", dtype=None):
        super().__init__(mean_absolute_percentage_error, name=name, reduction=reduction, dtype=dtype)


class MeanSquaredLogarithmicError(_BuiltinLoss):
    """``mean(square(log(1 + y_pred) - log(1 + y_true)), axis=-1)``, then reduced."""

    def __init__(self, reduction="sum_over_batch_size", name="mean_squared_logarithmic_error", dtype=None):
        super().__init__(mean_squared_logarithmic_error, name=name, reduction=reduction, dtype=dtype)


class Huber(_BuiltinLoss):
    """Huber loss: quadratic for errors up to ``delta``, linear beyond; mean over the last axis.

    Example:
        >>> import descend.losses as losses
        >>> round(float(losses.Huber()([[0.0, 1.0], [0.0, 0.0]], [[0.6, 0.4], [0.4, 0.6]])), 3)
        0.155
    """

    _params = ("delta",)

    def __init__(self, delta=1.0, reduction="sum_over_batch_size", name="huber_loss", dtype=None):
        if not float(delta) > 0:
            raise ValueError(f"`delta` must be > 0. Received: delta={delta}")
        super().__init__(huber, name=name, reduction=reduction, dtype=dtype, delta=float(delta))


class LogCosh(_BuiltinLoss):
    """``mean(log(cosh(y_pred - y_true)), axis=-1)``, then reduced."""

    def __init__(self, reduction="sum_over_batch_size", name="log_cosh", dtype=None):
        super().__init__(log_cosh, name=name, reduction=reduction, dtype=dtype)


class CosineSimilarity(_BuiltinLoss):
    """Negative cosine similarity along ``axis``, then reduced."""

    _params = ("axis",)

    def __init__(self, axis=-1, reduction="sum_over_batch_size", name="cosine_similarity", dtype=None):
        super().__init__(cosine_similarity, name=name, reduction=reduction, dtype=dtype, axis=axis)


class KLDivergence(_BuiltinLoss):
    """``sum(y_true * log(y_true / y_pred), axis=-1)``, then reduced."""

    def __init__(self, reduction="sum_over_batch_size", name="kl_divergence", dtype=None):
        super().__init__(kl_divergence, name=name, reduction=reduction, dtype=dtype)


class Poisson(_BuiltinLoss):
    """``mean(y_pred - y_true * log(y_pred), axis=-1)``, then reduced."""

    def __init__(self, reduction="sum_over_batch_size", name="poisson", dtype=None):
        super().__init__(poisson, name=name, reduction=reduction, dtype=dtype)


class Dice(_BuiltinLoss):
    """The Dice loss (:func:`dice`) over ``axis``, then reduced (``axis=None``: one value for the batch)."""

    _params = ("axis",)

    def __init__(self, reduction="sum_over_batch_size", name="dice", axis=None, dtype=None):
        super().__init__(dice, name=name, reduction=reduction, dtype=dtype, axis=_axis_arg(axis))


class Tversky(_BuiltinLoss):
    """The Tversky loss (:func:`tversky`, Keras 3's formula: ``alpha`` weighs ``sum(y_true * (1 - y_pred))``,
    ``beta`` ``sum((1 - y_true) * y_pred)``)."""

    _params = ("alpha", "beta", "axis")

    def __init__(self, alpha=0.5, beta=0.5, reduction="sum_over_batch_size", name="tversky", axis=None,
                 dtype=None):
        super().__init__(tversky, name=name, reduction=reduction, dtype=dtype, alpha=float(alpha), beta=float(beta),
                         axis=_axis_arg(axis))


class CategoricalGeneralizedCrossEntropy(_BuiltinLoss):
    """The generalized cross-entropy (:func:`categorical_generalized_cross_entropy`) of integer labels."""

    _params = ("q",)

    def __init__(self, q=0.5, reduction="sum_over_batch_size", name="categorical_generalized_cross_entropy",
                 dtype=None):
        if not 0 < float(q) < 1:
            raise ValueError(f"q must be in the interval (0, 1). Received: q={q}")
        super().__init__(categorical_generalized_cross_entropy, name=name, reduction=reduction, dtype=dtype,
                         q=float(q))


class Hinge(_BuiltinLoss):
    """``mean(maximum(1 - y_true * y_pred, 0), axis=-1)`` with labels in {-1, 1} (0/1 are converted)."""

    def __init__(self, reduction="sum_over_batch_size", name="hinge", dtype=None):
        super().__init__(hinge, name=name, reduction=reduction, dtype=dtype)


class SquaredHinge(_BuiltinLoss):
    """``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)``."""

    def __init__(self, reduction="sum_over_batch_size", name="squared_hinge", dtype=None):
        super().__init__(squared_hinge, name=name, reduction=reduction, dtype=dtype)


class CategoricalHinge(_BuiltinLoss):
    """``maximum(neg - pos + 1, 0)`` for one-hot labels."""

    def __init__(self, reduction="sum_over_batch_size", name="categorical_hinge", dtype=None):
        super().__init__(categorical_hinge, name=name, reduction=reduction, dtype=dtype)


class BinaryCrossentropy(_BuiltinLoss):
    """Binary cross-entropy of labels in [0, 1] and probabilities (or logits), averaged over ``axis``.

    Args:
        from_logits: ``y_pred`` holds logits (uses the stable
            ``sigmoid_cross_entropy_with_logits``); otherwise probabilities,
            clipped to ``[1e-7, 1 - 1e-7]``.
        label_smoothing: ``s`` in [0, 1]: labels become ``t (1 - s) + s / 2``.
        axis: the axis the mean is taken over.

    Example:
        >>> import descend.losses as losses
        >>> round(float(losses.BinaryCrossentropy()([[0.0, 1.0], [0.0, 0.0]], [[0.6, 0.4], [0.4, 0.6]])), 3)
        0.815
    """

    _params = ("from_logits", "label_smoothing", "axis")

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="binary_crossentropy", dtype=None):
        label_smoothing = _check_smoothing(label_smoothing)
        super().__init__(binary_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=bool(from_logits), label_smoothing=label_smoothing, axis=axis)


class CategoricalCrossentropy(_BuiltinLoss):
    """Cross-entropy of one-hot (or soft) labels and class probabilities (or logits).

    Args:
        from_logits: ``y_pred`` holds logits (stable
            ``softmax_cross_entropy_with_logits``); otherwise probabilities,
            normalised along ``axis`` and clipped to ``[1e-7, 1 - 1e-7]``.
        label_smoothing: ``s`` in [0, 1]: labels become ``t (1 - s) + s / num_classes``.
        axis: the class axis.

    Example:
        >>> import descend.losses as losses
        >>> y_true = [[0, 1, 0], [0, 0, 1]]
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> round(float(losses.CategoricalCrossentropy()(y_true, y_pred)), 3)
        1.177
    """

    _params = ("from_logits", "label_smoothing", "axis")

    def __init__(self, from_logits=False, label_smoothing=0.0, axis=-1, reduction="sum_over_batch_size",
                 name="categorical_crossentropy", dtype=None):
        label_smoothing = _check_smoothing(label_smoothing)
        super().__init__(categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=bool(from_logits), label_smoothing=label_smoothing, axis=axis)


class BinaryFocalCrossentropy(_BuiltinLoss):
    """Focal binary cross-entropy (:func:`binary_focal_crossentropy`), as Keras 3.

    Args:
        apply_class_balancing: weight positives by ``alpha`` and negatives by ``1 - alpha``.
        alpha: the balancing weight in [0, 1].
        gamma: the focusing exponent (>= 0; 0 is plain binary cross-entropy).
        from_logits, label_smoothing, axis: as :class:`BinaryCrossentropy`.

    Example:
        >>> import descend.losses as losses
        >>> round(float(losses.BinaryFocalCrossentropy(gamma=2.0)([[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]])), 4)
        0.2678
    """

    _params = ("apply_class_balancing", "alpha", "gamma", "from_logits", "label_smoothing", "axis")

    def __init__(self, apply_class_balancing=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0,
                 axis=-1, reduction="sum_over_batch_size", name="binary_focal_crossentropy", dtype=None):
        alpha, gamma = _check_focal(name, alpha, gamma)
        label_smoothing = _check_smoothing(label_smoothing)
        super().__init__(binary_focal_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         apply_class_balancing=bool(apply_class_balancing), alpha=alpha, gamma=gamma,
                         from_logits=bool(from_logits), label_smoothing=label_smoothing, axis=axis)


class CategoricalFocalCrossentropy(_BuiltinLoss):
    """Focal categorical cross-entropy (:func:`categorical_focal_crossentropy`), as Keras 3.

    Args:
        alpha: the weight of every class's term.
        gamma: the focusing exponent (>= 0).
        from_logits, label_smoothing, axis: as :class:`CategoricalCrossentropy`.
    """

    _params = ("alpha", "gamma", "from_logits", "label_smoothing", "axis")

    def __init__(self, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0, axis=-1,
                 reduction="sum_over_batch_size", name="categorical_focal_crossentropy", dtype=None):
        alpha, gamma = _check_focal(name, alpha, gamma)
        label_smoothing = _check_smoothing(label_smoothing)
        super().__init__(categorical_focal_crossentropy, name=name, reduction=reduction, dtype=dtype, alpha=alpha,
                         gamma=gamma, from_logits=bool(from_logits), label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(_BuiltinLoss):
    """Cross-entropy of integer labels and class probabilities (or logits).

    Args:
        from_logits: ``y_pred`` holds logits (stable
            ``sparse_softmax_cross_entropy_with_logits``); otherwise probabilities.
        ignore_class: a label value (e.g. -1 or 255) whose samples contribute
            nothing: their loss is 0 and the mean is over the other samples.
        axis: the class axis of ``y_pred`` (default the last; ``axis=1`` for channels-first
            segmentation maps).

    Example:
        >>> import descend.losses as losses
        >>> y_pred = [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
        >>> round(float(losses.SparseCategoricalCrossentropy()([1, 2], y_pred)), 3)
        1.177
    """

    _params = ("from_logits", "ignore_class", "axis")

    def __init__(self, from_logits=False, ignore_class=None, reduction="sum_over_batch_size", axis=-1,
                 name="sparse_categorical_crossentropy", dtype=None):
        _check_ignore_class(ignore_class)
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise ValueError(f"`axis` must be an int (the class axis of y_pred). Received: axis={axis!r}")
        super().__init__(sparse_categorical_crossentropy, name=name, reduction=reduction, dtype=dtype,
                         from_logits=bool(from_logits), ignore_class=ignore_class, axis=int(axis))

    def call(self, y_true, y_pred):
        return self._call_with_mask(y_true, y_pred)[0]

    def _call_with_mask(self, y_true, y_pred):
        return _sparse_categorical_crossentropy(y_true, y_pred, from_logits=self.from_logits,
                                                ignore_class=self.ignore_class, axis=self.axis)


# ---------------------------------------------------------------- lookup
ALL_OBJECTS = (
    Loss, LossFunctionWrapper,
    MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError, MeanSquaredLogarithmicError, Huber,
    LogCosh, CosineSimilarity, KLDivergence, Poisson, Hinge, SquaredHinge, CategoricalHinge,
    BinaryCrossentropy, CategoricalCrossentropy, SparseCategoricalCrossentropy, BinaryFocalCrossentropy,
    CategoricalFocalCrossentropy, Dice, Tversky, CategoricalGeneralizedCrossEntropy,
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error, mean_squared_logarithmic_error,
    huber, log_cosh, cosine_similarity, kl_divergence, poisson, hinge, squared_hinge, categorical_hinge,
    binary_crossentropy, categorical_crossentropy, sparse_categorical_crossentropy, binary_focal_crossentropy,
    categorical_focal_crossentropy, dice, tversky, categorical_generalized_cross_entropy,
)
ALL_OBJECTS_DICT: dict = {obj.__name__: obj for obj in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({
    "bce": binary_crossentropy, "BCE": binary_crossentropy,
    "kld": kl_divergence, "KLD": kl_divergence, "kullback_leibler_divergence": kl_divergence,
    "mae": mean_absolute_error, "MAE": mean_absolute_error,
    "mse": mean_squared_error, "MSE": mean_squared_error,
    "mape": mean_absolute_percentage_error, "MAPE": mean_absolute_percentage_error,
    "msle": mean_squared_logarithmic_error, "MSLE": mean_squared_logarithmic_error,
    "logcosh": log_cosh, "huber_loss": huber,
})
register_builtins("losses", ALL_OBJECTS_DICT)


def _function_name(fn) -> str:
    from .persistence.object_config import function_name

    return function_name(fn, ALL_OBJECTS_DICT)


def _find_function(name):
    from .persistence.object_config import find_function

    return find_function(name, ALL_OBJECTS_DICT)


def _function_names() -> list:
    return sorted(k for k, v in ALL_OBJECTS_DICT.items() if not inspect.isclass(v))


def serialize(loss):
    """A loss as a config: ``{"class_name": ..., "config": ...}`` for objects, the name for built-in functions."""
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    name = getattr(loss, "__name__", None)
    if name is not None and ALL_OBJECTS_DICT.get(name) is loss:
        return name
    raise ValueError(f"Cannot serialize {loss!r}: not a Loss object or a built-in loss function")


def deserialize(config, custom_objects: dict | None = None):
    """The loss that :func:`serialize` described: a name, a ``{"class_name", "config"}`` dict or Keras'
    function config. ``custom_objects``, an active ``custom_object_scope`` and registered objects are
    searched before the built-in losses."""
    from .persistence.object_config import extend_scope, find_object

    with extend_scope(custom_objects):
        if isinstance(config, str):
            found = find_object(config, loose=False)
            return found if found is not None else get(config)
        if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
            raise ValueError(f"A loss config must be a dict with 'class_name' and 'config'. Received: "
                             f"{str(config)[:200]}")
        name = config["class_name"]
        if name == "function":
            fn = _find_function(config)
            if fn is None:
                raise ValueError(f"Unknown loss function {str(config.get('config'))[:200]!r}. Known functions: "
                                 f"{', '.join(_function_names())}, or one registered or passed in custom_objects")
            return fn
        registered = config.get("registered_name")
        cls = find_object(registered) if isinstance(registered, str) and registered != name else None
        cls = cls or find_object(name, loose=False) or ALL_OBJECTS_DICT.get(name) or find_object(name)
        if cls is None or not inspect.isclass(cls):
            known = sorted(k for k, v in ALL_OBJECTS_DICT.items() if inspect.isclass(v))
            raise ValueError(f"Unknown loss class {name[:200]!r}. Known classes: {', '.join(known)}, or one "
                             "registered with descend.saving.register_serializable or passed in custom_objects")
        inner = config.get("config") or {}
        if not isinstance(inner, dict):
            raise ValueError(f"The config of loss {name!r} must be a dict. Received: {str(inner)[:200]}")
        return cls.from_config(dict(inner))


def get(identifier):
    """The loss an identifier names, as Keras's ``losses.get``.

    A function name (``"mse"``, ``"sparse_categorical_crossentropy"``) gives
    the function (per-sample losses, no reduction); a class name
    (``"SparseCategoricalCrossentropy"``) gives an instance with default
    arguments; a ``{"class_name", "config"}`` dict gives the configured object;
    a callable or ``Loss`` object is returned as it is; ``None`` gives ``None``.

    Raises:
        ValueError: for an unknown name (the message lists the known names).

    Example:
        >>> import descend.losses as losses
        >>> losses.get("mse") is losses.mean_squared_error
        True
    """
    return get_object(identifier, "losses", Loss, "loss", deserialize)
