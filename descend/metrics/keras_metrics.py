"""Keras 3's metrics: accuracy, regression and probabilistic metrics, correlations, intersection over union and
the look-up of metrics by name (public as ``descend.metrics``, with :mod:`.metric` and :mod:`.confusion_metrics`)."""

from __future__ import annotations

import warnings

import numpy as np

from .. import backend
from ..losses import keras_losses as _losses
from ..persistence.object_config import get_object
from ..persistence.registry import register_builtins
from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import math_ops
from .metric import (
    _np, _detach, _tensor_result, _divide_no_nan, _check_same_shape, Metric, Sum, Mean,
    MeanMetricWrapper, _BuiltinWrapper, config_functions,
)
from .confusion_metrics import (
    TruePositives, FalsePositives, TrueNegatives, FalseNegatives, Precision, Recall, AUC, FBetaScore, F1Score,
    SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall, RecallAtPrecision,
)

__all__ = [
    "Metric", "Mean", "Sum", "MeanMetricWrapper",
    "Accuracy", "BinaryAccuracy", "CategoricalAccuracy", "SparseCategoricalAccuracy",
    "TopKCategoricalAccuracy", "SparseTopKCategoricalAccuracy",
    "AUC", "Precision", "Recall", "TruePositives", "FalsePositives", "TrueNegatives", "FalseNegatives",
    "MeanSquaredError", "MeanAbsoluteError", "RootMeanSquaredError", "R2Score",
    "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
    "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "LogCoshError", "Hinge", "SquaredHinge",
    "CategoricalHinge", "KLDivergence", "Poisson", "CosineSimilarity", "cosine_similarity",
    "accuracy", "binary_accuracy", "categorical_accuracy", "sparse_categorical_accuracy",
    "top_k_categorical_accuracy", "sparse_top_k_categorical_accuracy",
    "get", "serialize", "deserialize",
]

# ---------------------------------------------------------------- accuracy functions
def _floatx_result(a) -> Tensor:
    return convert_to_tensor(np.asarray(a, dtype=backend.floatx()))


def accuracy(y_true, y_pred):
    """``y_true == y_pred`` element by element, as 1.0 or 0.0 (Keras 3; the metric averages them, so a
    ``sample_weight`` may weigh each element or each sample)."""
    p = _np(y_pred)
    t = _np(y_true).astype(p.dtype, copy=False)
    t, p = _losses.squeeze_or_expand_to_same_rank(t, p)
    _check_same_shape("accuracy", t, p)
    return _floatx_result((t == p).astype(backend.floatx()))


def binary_accuracy(y_true, y_pred, threshold: float = 0.5):
    """``y_true == (y_pred > threshold)`` element by element, as 1.0 or 0.0 (Keras 3)."""
    t, p = _np(y_true), _np(y_pred)
    t, p = _losses.squeeze_or_expand_to_same_rank(t, p)
    _check_same_shape("binary_accuracy", t, p)
    predicted = (p > threshold).astype(t.dtype)
    return _floatx_result((t == predicted).astype(backend.floatx()))


def categorical_accuracy(y_true, y_pred):
    """``argmax(y_true, -1) == argmax(y_pred, -1)`` per sample (one-hot labels)."""
    t, p = _np(y_true), _np(y_pred)
    _check_same_shape("categorical_accuracy", t, p)
    if p.ndim < 1:
        raise ValueError("categorical_accuracy: y_pred must have rank >= 1; received a scalar")
    return _floatx_result(np.argmax(t, axis=-1) == np.argmax(p, axis=-1))


def _sparse_labels(name: str, y_true, y_pred) -> np.ndarray:
    t, p = _np(y_true), _np(y_pred)
    if p.ndim < 1:
        raise ValueError(f"{name}: y_pred must have rank >= 1; received a scalar")
    if t.ndim == p.ndim and t.shape[-1] == 1:
        t = np.squeeze(t, -1)
    if t.shape != p.shape[:-1]:
        raise ValueError(
            f"{name}: y_true must have the shape of y_pred without its last axis. "
            f"Received: y_true.shape={np.shape(_np(y_true))}, y_pred.shape={p.shape}"
        )
    return t


def sparse_categorical_accuracy(y_true, y_pred):
    """``y_true == argmax(y_pred, -1)`` per sample (integer labels, optionally with a trailing 1)."""
    t = _sparse_labels("sparse_categorical_accuracy", y_true, y_pred)
    return _floatx_result(t == np.argmax(_np(y_pred), axis=-1))


def _in_top_k(labels: np.ndarray, scores: np.ndarray, k: int) -> np.ndarray:
    """``tf.math.in_top_k``: fewer than ``k`` classes score strictly higher (ties count as in)."""
    scores = scores.reshape(-1, scores.shape[-1])
    labels = labels.reshape(-1).astype(np.int64)
    n = scores.shape[-1]
    ok = (labels >= 0) & (labels < n)
    target = np.take_along_axis(scores, np.clip(labels, 0, n - 1)[:, None], axis=-1)
    higher = np.sum(scores > target, axis=-1)
    return ok & (higher < k) & np.all(np.isfinite(scores), axis=-1)


def top_k_categorical_accuracy(y_true, y_pred, k: int = 5):
    """Whether the one-hot target's class is among the ``k`` highest predictions, per sample."""
    t, p = _np(y_true), _np(y_pred)
    _check_same_shape("top_k_categorical_accuracy", t, p)
    if p.ndim < 1:
        raise ValueError("top_k_categorical_accuracy: y_pred must have rank >= 1; received a scalar")
    labels = np.argmax(t, axis=-1)
    return _floatx_result(_in_top_k(labels, p, int(k)).reshape(labels.shape))


def sparse_top_k_categorical_accuracy(y_true, y_pred, k: int = 5, from_sorted_ids: bool = False):
    """Whether the integer target is among the ``k`` highest predictions, per sample.

    ``from_sorted_ids=True``: ``y_pred`` holds class ids, best first (a retrieval model's top ``N >= k``),
    and the target counts as found when it is among the first ``k`` of them."""
    labels = _sparse_labels("sparse_top_k_categorical_accuracy", y_true, y_pred)
    if from_sorted_ids:
        ids = _np(y_pred)[..., :int(k)]
        found = np.any(ids == labels.reshape(labels.shape + (1,)).astype(ids.dtype, copy=False), axis=-1)
        return _floatx_result(found.reshape(labels.shape))
    return _floatx_result(_in_top_k(labels, _np(y_pred), int(k)).reshape(labels.shape))


# ---------------------------------------------------------------- accuracy metrics
class Accuracy(_BuiltinWrapper):
    """How often ``y_pred`` equals ``y_true``.

    Rank-1 inputs count one value per sample (Keras 3 would average a rank-1
    batch into a single value).

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.Accuracy()
        >>> m.update_state([[1], [2], [3], [4]], [[0], [2], [3], [4]], sample_weight=[1, 1, 0, 0])
        >>> float(m.result())
        0.5
    """

    _rank_1_per_sample = True

    def __init__(self, name="accuracy", dtype=None):
        super().__init__(accuracy, name=name, dtype=dtype)


class BinaryAccuracy(_BuiltinWrapper):
    """How often ``y_pred > threshold`` matches the binary labels.

    ``threshold`` is in [0, 1); use 0 when ``y_pred`` holds logits (Keras
    accepts only (0, 1)).

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.BinaryAccuracy()
        >>> m.update_state([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]])
        >>> float(m.result())
        0.75
    """

    _rank_1_per_sample = True
    _params = ("threshold",)

    def __init__(self, name="binary_accuracy", dtype=None, threshold=0.5):
        # Keras requires (0, 1); 0 is allowed here too, the threshold for logits
        if threshold is not None and not 0 <= threshold < 1:
            raise ValueError(
                "Invalid value for argument `threshold`. Expected a value in [0, 1) (0 for logits). "
                f"Received: threshold={threshold}"
            )
        super().__init__(binary_accuracy, name=name, dtype=dtype, threshold=0.5 if threshold is None else threshold)
        self.threshold = threshold


class CategoricalAccuracy(_BuiltinWrapper):
    """How often the argmax of ``y_pred`` is the argmax of the one-hot ``y_true``.

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.CategoricalAccuracy()
        >>> m.update_state([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]], sample_weight=[0.7, 0.3])
        >>> round(float(m.result()), 6)
        0.3
    """

    def __init__(self, name="categorical_accuracy", dtype=None):
        super().__init__(categorical_accuracy, name=name, dtype=dtype)


class SparseCategoricalAccuracy(_BuiltinWrapper):
    """How often the argmax of ``y_pred`` (probabilities or logits) is the integer label.

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.SparseCategoricalAccuracy()
        >>> m.update_state([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]], sample_weight=[0.7, 0.3])
        >>> round(float(m.result()), 6)
        0.3
    """

    def __init__(self, name="sparse_categorical_accuracy", dtype=None):
        super().__init__(sparse_categorical_accuracy, name=name, dtype=dtype)


class TopKCategoricalAccuracy(_BuiltinWrapper):
    """How often the one-hot target is among the ``k`` highest predictions (ties count as in).

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.TopKCategoricalAccuracy(k=1)
        >>> float(m([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]))
        0.5
    """

    _params = ("k",)

    def __init__(self, k=5, name="top_k_categorical_accuracy", dtype=None):
        if isinstance(k, bool) or int(k) != k or k < 1:
            raise ValueError(f"`k` must be a positive int. Received: k={k!r}")
        super().__init__(top_k_categorical_accuracy, name=name, dtype=dtype, k=int(k))


class SparseTopKCategoricalAccuracy(_BuiltinWrapper):
    """How often the integer target is among the ``k`` highest predictions (ties count as in), or, with
    ``from_sorted_ids=True``, among the first ``k`` of the class ids ``y_pred`` lists best first."""

    _params = ("k", "from_sorted_ids")

    def __init__(self, k=5, name="sparse_top_k_categorical_accuracy", dtype=None, from_sorted_ids=False):
        if isinstance(k, bool) or int(k) != k or k < 1:
            raise ValueError(f"`k` must be a positive int. Received: k={k!r}")
        super().__init__(sparse_top_k_categorical_accuracy, name=name, dtype=dtype, k=int(k),
                         from_sorted_ids=bool(from_sorted_ids))


# ---------------------------------------------------------------- regression / probabilistic metrics
class MeanSquaredError(_BuiltinWrapper):
    """The mean over samples of ``mean(square(y_true - y_pred), axis=-1)``.

    Example:
        >>> import descend.metrics as metrics
        >>> float(metrics.MeanSquaredError()([[0, 1], [0, 0]], [[1, 1], [0, 0]]))
        0.25
    """

    _rank_1_per_sample = True

    def __init__(self, name="mean_squared_error", dtype=None):
        super().__init__(_losses.mean_squared_error, name=name, dtype=dtype)


class MeanAbsoluteError(_BuiltinWrapper):
    """The mean over samples of ``mean(abs(y_true - y_pred), axis=-1)``."""

    _rank_1_per_sample = True

    def __init__(self, name="mean_absolute_error", dtype=None):
        super().__init__(_losses.mean_absolute_error, name=name, dtype=dtype)


def _loss_metric(cls_name: str, metric_name: str, fn, doc: str, rank_1: bool = False):
    """A metric class that averages the loss function ``fn`` over the samples seen (Keras' metric of it)."""

    def __init__(self, name=metric_name, dtype=None):
        _BuiltinWrapper.__init__(self, fn, name=name, dtype=dtype)

    return type(cls_name, (_BuiltinWrapper,), {"__init__": __init__, "__doc__": doc, "_rank_1_per_sample": rank_1,
                                                "__module__": __name__, "__qualname__": cls_name})


MeanAbsolutePercentageError = _loss_metric(
    "MeanAbsolutePercentageError", "mean_absolute_percentage_error", _losses.mean_absolute_percentage_error,
    "The mean over samples of ``100 * mean(abs((y_true - y_pred) / y_true), axis=-1)``.", rank_1=True)
MeanSquaredLogarithmicError = _loss_metric(
    "MeanSquaredLogarithmicError", "mean_squared_logarithmic_error", _losses.mean_squared_logarithmic_error,
    "The mean over samples of ``mean(square(log(y_pred + 1) - log(y_true + 1)), axis=-1)``.", rank_1=True)
LogCoshError = _loss_metric(
    "LogCoshError", "logcosh", _losses.log_cosh,
    "The mean over samples of ``mean(log(cosh(y_pred - y_true)), axis=-1)``.", rank_1=True)
Hinge = _loss_metric(
    "Hinge", "hinge", _losses.hinge,
    "The mean over samples of ``mean(maximum(1 - y_true * y_pred, 0), axis=-1)`` (0/1 labels as -1/1).")
SquaredHinge = _loss_metric(
    "SquaredHinge", "squared_hinge", _losses.squared_hinge,
    "The mean over samples of ``mean(square(maximum(1 - y_true * y_pred, 0)), axis=-1)`` (0/1 labels as -1/1).")
CategoricalHinge = _loss_metric(
    "CategoricalHinge", "categorical_hinge", _losses.categorical_hinge,
    "The mean over samples of ``maximum(neg - pos + 1, 0)`` (``pos``: the true class's score, ``neg``: the "
    "largest other).")
KLDivergence = _loss_metric(
    "KLDivergence", "kl_divergence", _losses.kl_divergence,
    "The mean over samples of ``sum(y_true * log(y_true / y_pred), axis=-1)`` (both clipped to [1e-7, 1]).")
Poisson = _loss_metric(
    "Poisson", "poisson", _losses.poisson,
    "The mean over samples of ``mean(y_pred - y_true * log(y_pred + 1e-7), axis=-1)``.")


def cosine_similarity(y_true, y_pred, axis: int = -1):
    """``sum(l2_normalize(y_true) * l2_normalize(y_pred), axis)``: 1 for parallel vectors (the loss's negative)."""
    return math_ops.negative(_losses.cosine_similarity(y_true, y_pred, axis=axis))


class CosineSimilarity(_BuiltinWrapper):
    """The mean over samples of the cosine similarity of ``y_true`` and ``y_pred`` along ``axis``.

    Example:
        >>> import descend.metrics as metrics
        >>> "%.4f" % float(metrics.CosineSimilarity()([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]]))
        '0.5000'
    """

    _params = ("axis",)

    def __init__(self, name="cosine_similarity", dtype=None, axis=-1):
        super().__init__(cosine_similarity, name=name, dtype=dtype, axis=axis)


class RootMeanSquaredError(Mean):
    """``sqrt`` of the (weighted) mean of the squared errors.

    Example:
        >>> import descend.metrics as metrics
        >>> float(metrics.RootMeanSquaredError()([[0, 1], [0, 0]], [[1, 1], [0, 0]]))
        0.5
    """

    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name, dtype=dtype)

    def update_state(self, y_true, y_pred, sample_weight=None):
        p = _np(y_pred, self.dtype)
        t = _np(y_true, self.dtype)
        t, p = _losses.squeeze_or_expand_to_same_rank(t, p)
        _check_same_shape("root_mean_squared_error", t, p)
        super().update_state(np.square(p - t), sample_weight=sample_weight)

    def result(self):
        return _tensor_result(np.sqrt(_divide_no_nan(self.total.numpy(), self.count.numpy())), self.dtype)


class R2Score(Metric):
    """The coefficient of determination of each output column over every sample seen,
    ``1 - sum((y_true - y_pred)**2) / sum((y_true - mean(y_true))**2)`` (weighted), as Keras 3's ``R2Score``
    and scikit-learn's ``r2_score``.

    Args:
        class_aggregation: how the columns' scores combine: ``"uniform_average"`` (their mean),
            ``"variance_weighted_average"`` (weighted by each column's variance) or None (one per column).
        num_regressors: ``k > 0`` gives the adjusted score ``1 - (1 - R2) (n - 1) / (n - k - 1)`` where ``n``
            counts every entry of ``y_true`` seen (samples times output columns, weighted or not, as Keras 3
            counts them), with a warning and the plain score when ``n - 1 <= k``.

    The inputs are ``(samples, outputs)``; the state is per column (sums of weights, of ``y_true``, of its
    squares and of the squared errors), created at the first update. A column whose ``y_true`` does not vary
    scores 0 (NaN when its errors are 0 too), as in Keras.

    Example:
        >>> import descend.metrics as metrics
        >>> "%.4f" % float(metrics.R2Score()([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]]))
        '0.5714'
    """

    _AGGREGATIONS = (None, "uniform_average", "variance_weighted_average")

    def __init__(self, class_aggregation="uniform_average", num_regressors=0, name="r2_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if class_aggregation not in self._AGGREGATIONS:
            raise ValueError(f"Invalid value for argument `class_aggregation`. Expected one of {self._AGGREGATIONS}. "
                             f"Received: class_aggregation={class_aggregation!r}")
        if isinstance(num_regressors, bool) or not isinstance(num_regressors, (int, np.integer)) or num_regressors < 0:
            raise ValueError("Invalid value for argument `num_regressors`. Expected an integer >= 0. "
                             f"Received: num_regressors={num_regressors!r}")
        self.class_aggregation = class_aggregation
        self.num_regressors = int(num_regressors)
        self.num_samples = self.add_variable(shape=(), name="num_samples")
        self._columns = None

    def _build(self, columns: int) -> None:
        self.squared_sum = self.add_variable(shape=(columns,), name="squared_sum")
        self.sum = self.add_variable(shape=(columns,), name="sum")
        self.total_mse = self.add_variable(shape=(columns,), name="residual")
        self.count = self.add_variable(shape=(columns,), name="count")
        self._columns = columns

    def update_state(self, y_true, y_pred, sample_weight=None):
        t, p = _losses.squeeze_or_expand_to_same_rank(_np(y_true, self.dtype), _np(y_pred, self.dtype))
        if t.ndim != 2 or p.ndim != 2 or t.shape != p.shape:
            raise ValueError("R2Score expects 2D inputs with shape (batch_size, output_dim), one shape for both. "
                             f"Received input shapes: y_pred.shape={p.shape} and y_true.shape={t.shape}.")
        if self._columns is not None and p.shape[1] != self._columns:
            raise ValueError(f"R2Score was built for {self._columns} output columns. Received y_pred.shape={p.shape}")
        w = np.ones((), self.dtype) if sample_weight is None else _np(sample_weight, self.dtype)
        if w.ndim == 1:
            w = w[:, None]  # one weight per sample
        try:
            w = np.broadcast_to(w, t.shape)
        except ValueError:
            raise ValueError(f"R2Score: sample_weight of shape {np.shape(sample_weight)} does not broadcast to "
                             f"y_true's shape {t.shape}") from None
        if self._columns is None:
            self._build(p.shape[1])
        weighted = t * w
        self.sum.assign_add(np.sum(weighted, axis=0))
        self.squared_sum.assign_add(np.sum(t * weighted, axis=0))
        self.total_mse.assign_add(np.sum(np.square(t - p) * w, axis=0))
        self.count.assign_add(np.sum(w, axis=0))
        self.num_samples.assign_add(np.asarray(t.size, self.dtype))

    def result(self):
        if self._columns is None:
            return _tensor_result(np.asarray(0.0, self.dtype), self.dtype)
        total_sum, squared, residual, count = (v.numpy() for v in (self.sum, self.squared_sum, self.total_mse,
                                                                   self.count))
        with np.errstate(divide="ignore", invalid="ignore"):
            total = squared - total_sum * (total_sum / count)
            raw = 1 - residual / total
            raw = np.where(np.isinf(raw), np.zeros((), raw.dtype), raw)
            if self.class_aggregation == "uniform_average":
                score = np.mean(raw)
            elif self.class_aggregation == "variance_weighted_average":
                score = np.sum(total * raw) / np.sum(total)
            else:
                score = raw
        k, n = self.num_regressors, float(self.num_samples.numpy())
        if k:
            if k > n - 1:
                warnings.warn("More independent predictors than datapoints in adjusted R2 score. Falling back to "
                              "standard R2 score.", stacklevel=2)
            elif k == n - 1:
                warnings.warn("Division by zero in Adjusted R2 score. Falling back to standard R2 score.", stacklevel=2)
            else:
                score = 1 - (1 - score) * (n - 1) / (n - k - 1)
        return _tensor_result(np.asarray(score, self.dtype), self.dtype)

    def get_config(self) -> dict:
        return {**super().get_config(), "class_aggregation": self.class_aggregation,
                "num_regressors": self.num_regressors}


class BinaryCrossentropy(_BuiltinWrapper):
    """The mean binary cross-entropy over the samples seen (see :func:`descend.losses.binary_crossentropy`)."""

    _params = ("from_logits", "label_smoothing")

    def __init__(self, name="binary_crossentropy", dtype=None, from_logits=False, label_smoothing=0.0):
        super().__init__(_losses.binary_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing)


class CategoricalCrossentropy(_BuiltinWrapper):
    """The mean categorical cross-entropy over the samples seen."""

    _params = ("from_logits", "label_smoothing", "axis")

    def __init__(self, name="categorical_crossentropy", dtype=None, from_logits=False, label_smoothing=0.0,
                 axis=-1):
        super().__init__(_losses.categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         label_smoothing=label_smoothing, axis=axis)


class SparseCategoricalCrossentropy(_BuiltinWrapper):
    """The mean sparse categorical cross-entropy over the samples seen."""

    _params = ("from_logits", "ignore_class", "axis")

    def __init__(self, name="sparse_categorical_crossentropy", dtype=None, from_logits=False, ignore_class=None,
                 axis=-1):
        _losses._check_ignore_class(ignore_class)
        super().__init__(_losses.sparse_categorical_crossentropy, name=name, dtype=dtype, from_logits=from_logits,
                         ignore_class=ignore_class, axis=axis)

    def update_state(self, y_true, y_pred, sample_weight=None):
        """Samples labelled ``ignore_class`` have loss 0. As Keras 3, they count in an unweighted mean and
        are left out of a weighted one (their weight becomes 0)."""
        if self.ignore_class is None or sample_weight is None:
            return super().update_state(y_true, y_pred, sample_weight=sample_weight)
        values, valid = _losses._sparse_categorical_crossentropy(
            _detach(y_true), _detach(y_pred), from_logits=self.from_logits, ignore_class=self.ignore_class,
            axis=self.axis)
        values = _np(values)
        sw = _np(sample_weight).astype(values.dtype)
        if sw.ndim == valid.ndim + 1 and sw.shape[-1] == 1:
            sw = sw[..., 0]
        weight = valid.astype(values.dtype) * sw.reshape(sw.shape + (1,) * (valid.ndim - sw.ndim))
        Mean.update_state(self, values, sample_weight=weight)


# ---------------------------------------------------------------- lookup
_FUNCTIONS = {
    f.__name__: f for f in (accuracy, binary_accuracy, categorical_accuracy, sparse_categorical_accuracy,
                            top_k_categorical_accuracy, sparse_top_k_categorical_accuracy)
}

ALL_OBJECTS = (
    Metric, Mean, Sum, MeanMetricWrapper,
    Accuracy, BinaryAccuracy, CategoricalAccuracy, SparseCategoricalAccuracy, TopKCategoricalAccuracy,
    SparseTopKCategoricalAccuracy, AUC, Precision, Recall, TruePositives, FalsePositives, TrueNegatives,
    FalseNegatives, MeanSquaredError, MeanAbsoluteError, RootMeanSquaredError, R2Score, BinaryCrossentropy,
    CategoricalCrossentropy, SparseCategoricalCrossentropy, MeanAbsolutePercentageError, MeanSquaredLogarithmicError,
    LogCoshError, Hinge, SquaredHinge, CategoricalHinge, KLDivergence, Poisson, CosineSimilarity,
)
ALL_OBJECTS_DICT: dict = {cls.__name__: cls for cls in ALL_OBJECTS}
ALL_OBJECTS_DICT.update({_losses._to_snake_case(cls.__name__): cls for cls in ALL_OBJECTS})
ALL_OBJECTS_DICT.update({
    "acc": Accuracy,
    "bce": BinaryCrossentropy, "BCE": BinaryCrossentropy,
    "mse": MeanSquaredError, "MSE": MeanSquaredError,
    "mae": MeanAbsoluteError, "MAE": MeanAbsoluteError,
    "mape": MeanAbsolutePercentageError, "MAPE": MeanAbsolutePercentageError,
    "msle": MeanSquaredLogarithmicError, "MSLE": MeanSquaredLogarithmicError,
    "logcosh": LogCoshError,
})


def serialize(metric) -> dict:
    """``{"class_name": ..., "config": ...}`` of a Metric."""
    if not isinstance(metric, Metric):
        raise ValueError(f"Cannot serialize {metric!r}: not a Metric")
    return {"class_name": type(metric).__name__, "config": metric.get_config()}


def deserialize(config, custom_objects: dict | None = None):
    """The metric :func:`serialize` described (``custom_objects`` maps extra class names to classes)."""
    from ..persistence.object_config import deserialize_builtin

    return deserialize_builtin(config, custom_objects, "metric", ALL_OBJECTS_DICT, config_functions(), get)

def get(identifier):
    """The metric an identifier names, as Keras's ``metrics.get``.

    A name (``"accuracy"``, ``"AUC"``, ``"mse"``) gives a new instance with
    default arguments; a ``{"class_name", "config"}`` dict gives the configured
    metric; a Metric or a callable is returned as it is; ``None`` gives ``None``.

    (``model.compile(metrics=["accuracy"])`` in Keras picks binary, categorical
    or sparse accuracy from the loss and shapes; that choice belongs to the
    model, not to this lookup.)

    Raises:
        ValueError: for an unknown name (the message lists the known names).

    Example:
        >>> import descend.metrics as metrics
        >>> type(metrics.get("accuracy")).__name__
        'Accuracy'
    """
    return get_object(identifier, "metrics", Metric, "metric", deserialize)


# ---------------------------------------------------------------- correlations (Keras 3's per-sample functions)
def pearson_correlation(y_true, y_pred, axis: int = -1):
    """Per sample, the Pearson correlation of ``y_true`` and ``y_pred`` along ``axis``: the mean product of
    their standardized deviations (``keras.metrics.pearson_correlation``)."""
    p = _np(y_pred)
    p = p.astype(backend.floatx()) if p.dtype.kind != "f" else p
    t, p = _losses.squeeze_or_expand_to_same_rank(_np(y_true, p.dtype), p)
    tn = t - np.mean(t, axis=axis, keepdims=True)
    pn = p - np.mean(p, axis=axis, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        tn = tn / np.std(tn, axis=axis, keepdims=True)
        pn = pn / np.std(pn, axis=axis, keepdims=True)
    return convert_to_tensor(np.mean(tn * pn, axis=axis).astype(p.dtype))


def concordance_correlation(y_true, y_pred, axis: int = -1):
    """Per sample, Lin's concordance correlation along ``axis``, Keras 3's formula
    ``mean(2 (y_true - mean(y_pred)) (y_pred - mean(y_pred)) / (var(y_true) + var(y_pred) +
    (mean(y_true) - mean(y_pred))**2 + 1e-7))`` (``keras.metrics.concordance_correlation``)."""
    p = _np(y_pred)
    p = p.astype(backend.floatx()) if p.dtype.kind != "f" else p
    t, p = _losses.squeeze_or_expand_to_same_rank(_np(y_true, p.dtype), p)
    tm, pm = np.mean(t, axis=axis, keepdims=True), np.mean(p, axis=axis, keepdims=True)
    tv, pv = np.var(t - tm, axis=axis, keepdims=True), np.var(p - pm, axis=axis, keepdims=True)
    covar = (t - pm) * (p - pm)
    norm = tv + pv + np.square(tm - pm)
    return convert_to_tensor(np.mean(2 * covar / (norm + p.dtype.type(_losses.EPSILON)), axis=axis).astype(p.dtype))


class PearsonCorrelation(_BuiltinWrapper):
    """The mean over samples of :func:`pearson_correlation` along ``axis``."""

    _params = ("axis",)

    def __init__(self, name="pearson_correlation", dtype=None, axis=-1):
        super().__init__(pearson_correlation, name=name, dtype=dtype, axis=axis)


class ConcordanceCorrelation(_BuiltinWrapper):
    """The mean over samples of :func:`concordance_correlation` along ``axis``."""

    _params = ("axis",)

    def __init__(self, name="concordance_correlation", dtype=None, axis=-1):
        super().__init__(concordance_correlation, name=name, dtype=dtype, axis=axis)


# ---------------------------------------------------------------- intersection over union
class _IoUBase(Metric):
    """A ``(num_classes, num_classes)`` confusion matrix (rows: true class, columns: predicted) over every
    sample seen, as Keras 3's IoU metrics: ids out of ``[0, num_classes)`` and ``ignore_class`` count nowhere.
    The state's dtype is int64 by default (Keras' ``"int"``)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(name=name, dtype=dtype or "int64")
        if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)) or num_classes < 1:
            raise ValueError(f"{type(self).__name__}: `num_classes` must be a positive int. "
                             f"Received: num_classes={num_classes!r}")
        if ignore_class is not None and (isinstance(ignore_class, bool)
                                         or not isinstance(ignore_class, (int, np.integer))):
            raise ValueError(f"{type(self).__name__}: `ignore_class` must be an int or None. "
                             f"Received: ignore_class={ignore_class!r}")
        self.num_classes = int(num_classes)
        self.ignore_class = ignore_class
        self.sparse_y_true, self.sparse_y_pred, self.axis = bool(sparse_y_true), bool(sparse_y_pred), axis
        self.total_cm = self.add_variable(shape=(self.num_classes, self.num_classes),
                                          name="total_confusion_matrix")

    def _ids(self, t, p):
        return t, p

    def update_state(self, y_true, y_pred, sample_weight=None):
        t, p = _np(y_true), _np(y_pred)
        if not self.sparse_y_true:
            t = np.argmax(t, axis=self.axis)
        if not self.sparse_y_pred:
            p = np.argmax(p, axis=self.axis)
        t, p = self._ids(t, p)
        t = np.asarray(t).astype(self.dtype).reshape(-1)
        p = np.asarray(p).astype(self.dtype).reshape(-1)
        if t.shape != p.shape:
            raise ValueError(f"{type(self).__name__}: y_true and y_pred must hold as many class ids. Received "
                             f"{t.size} and {p.size}")
        w = np.ones((), self.dtype) if sample_weight is None else _np(sample_weight).reshape(-1)
        try:
            w = np.broadcast_to(w, t.shape).astype(self.dtype)
        except ValueError:
            raise ValueError(f"{type(self).__name__}: sample_weight of shape {np.shape(_np(sample_weight))} does "
                             f"not broadcast to the {t.size} class ids") from None
        keep = (t >= 0) & (t < self.num_classes) & (p >= 0) & (p < self.num_classes)
        if self.ignore_class is not None:
            keep &= t != self.ignore_class
        cm = np.zeros((self.num_classes, self.num_classes), self.dtype)
        np.add.at(cm, (t[keep].astype(np.int64), p[keep].astype(np.int64)), w[keep])
        self.total_cm.assign_add(cm)

    def _iou(self, target_class_ids):
        cm = self.total_cm.numpy()
        tp = np.diag(cm).astype(np.float32)
        denominator = (cm.sum(axis=0) + cm.sum(axis=1)).astype(np.float32) - tp
        ids = np.asarray(target_class_ids, dtype=np.int64)
        tp, denominator = tp[ids], denominator[ids]
        valid = denominator > 1e-9
        eps = np.float32(_losses.EPSILON)
        iou = np.where(valid, tp / (denominator + eps), np.float32(0.0))
        return convert_to_tensor(np.float32(np.sum(iou) / (np.float32(np.sum(valid)) + eps)))

    def result(self):
        return self._iou(self.target_class_ids)

    def get_config(self):
        return {**super().get_config(), "num_classes": self.num_classes, "ignore_class": self.ignore_class,
                "sparse_y_true": self.sparse_y_true, "sparse_y_pred": self.sparse_y_pred, "axis": self.axis}


def _target_ids(cls_name, target_class_ids, num_classes) -> list:
    if not isinstance(target_class_ids, (list, tuple, np.ndarray)) or len(target_class_ids) == 0:
        raise ValueError(f"{cls_name}: `target_class_ids` must be a non-empty list or tuple of class ids. "
                         f"Received: {target_class_ids!r}")
    ids = [int(i) for i in target_class_ids]
    if max(ids) >= num_classes or min(ids) < 0:
        raise ValueError(f"{cls_name}: target class ids must be in [0, {num_classes}). Received: {ids}")
    return ids


class IoU(_IoUBase):
    """Intersection over union ``TP / (TP + FP + FN)`` of each class in ``target_class_ids``, averaged over
    those with a nonzero denominator (``keras.metrics.IoU``).

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.IoU(num_classes=2, target_class_ids=[0])
        >>> m.update_state([0, 0, 1, 1], [0, 1, 0, 1])
        >>> round(float(m.result()), 4)
        0.3333
    """

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_true=True,
                 sparse_y_pred=True, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)
        self.target_class_ids = _target_ids("IoU", target_class_ids, self.num_classes)

    def get_config(self):
        return {**super().get_config(), "target_class_ids": self.target_class_ids}


class MeanIoU(_IoUBase):
    """The mean :class:`IoU` over every class (``keras.metrics.MeanIoU``)."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_true=True, sparse_y_pred=True,
                 axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class, sparse_y_true=sparse_y_true,
                         sparse_y_pred=sparse_y_pred, axis=axis)
        self.target_class_ids = list(range(self.num_classes))


class BinaryIoU(_IoUBase):
    """:class:`IoU` of 0/1 labels, a prediction counting as class 1 when ``y_pred >= threshold``
    (``keras.metrics.BinaryIoU``)."""

    def __init__(self, target_class_ids=(0, 1), threshold=0.5, name=None, dtype=None):
        super().__init__(2, name=name, dtype=dtype)
        self.target_class_ids = _target_ids("BinaryIoU", target_class_ids, 2)
        self.threshold = threshold

    def _ids(self, t, p):
        return t, (np.asarray(p, np.float32) >= self.threshold)

    def get_config(self):
        return {"target_class_ids": self.target_class_ids, "threshold": self.threshold, "name": self.name,
                "dtype": self.dtype}


class OneHotIoU(IoU):
    """:class:`IoU` of one-hot ``y_true`` (its argmax is the class) and class scores ``y_pred`` (argmax too,
    unless ``sparse_y_pred``)."""

    def __init__(self, num_classes, target_class_ids, name=None, dtype=None, ignore_class=None, sparse_y_pred=False,
                 axis=-1):
        super().__init__(num_classes, target_class_ids, name=name, dtype=dtype, ignore_class=ignore_class,
                         sparse_y_true=False, sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        config = super().get_config()
        config.pop("sparse_y_true")
        return config


class OneHotMeanIoU(MeanIoU):
    """:class:`MeanIoU` of one-hot ``y_true`` and class scores ``y_pred``."""

    def __init__(self, num_classes, name=None, dtype=None, ignore_class=None, sparse_y_pred=False, axis=-1):
        super().__init__(num_classes, name=name, dtype=dtype, ignore_class=ignore_class, sparse_y_true=False,
                         sparse_y_pred=sparse_y_pred, axis=axis)

    def get_config(self):
        config = super().get_config()
        config.pop("sparse_y_true")
        return config



# the loss functions Keras also exports from keras.metrics (the same functions)
binary_crossentropy = _losses.binary_crossentropy
binary_focal_crossentropy = _losses.binary_focal_crossentropy
categorical_crossentropy = _losses.categorical_crossentropy
categorical_focal_crossentropy = _losses.categorical_focal_crossentropy
sparse_categorical_crossentropy = _losses.sparse_categorical_crossentropy
categorical_hinge = _losses.categorical_hinge
hinge = _losses.hinge
squared_hinge = _losses.squared_hinge
huber = _losses.huber
kl_divergence = _losses.kl_divergence
log_cosh = _losses.log_cosh
poisson = _losses.poisson
mean_absolute_error = _losses.mean_absolute_error
mean_absolute_percentage_error = _losses.mean_absolute_percentage_error
mean_squared_error = _losses.mean_squared_error
mean_squared_logarithmic_error = _losses.mean_squared_logarithmic_error

_MORE = (PearsonCorrelation, ConcordanceCorrelation, IoU, MeanIoU, BinaryIoU, OneHotIoU, OneHotMeanIoU, FBetaScore,
         F1Score, SensitivityAtSpecificity, SpecificityAtSensitivity, PrecisionAtRecall, RecallAtPrecision)
# (not in ALL_OBJECTS, the metrics constructible without arguments: most of these need some)
ALL_OBJECTS_DICT.update({cls.__name__: cls for cls in _MORE})
register_builtins("metrics", ALL_OBJECTS_DICT)
ALL_OBJECTS_DICT.update({_losses._to_snake_case(cls.__name__): cls for cls in _MORE})
_FUNCTIONS.update({f.__name__: f for f in (pearson_correlation, concordance_correlation)})
register_builtins("metric_functions", _FUNCTIONS)
__all__ += [cls.__name__ for cls in _MORE] + [
    "pearson_correlation", "concordance_correlation", "binary_crossentropy", "binary_focal_crossentropy",
    "categorical_crossentropy", "categorical_focal_crossentropy", "sparse_categorical_crossentropy",
    "categorical_hinge", "hinge", "squared_hinge", "huber", "kl_divergence", "log_cosh", "poisson",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_logarithmic_error",
]
