"""The metrics built on confusion counts at thresholds: TruePositives and the other counts, Precision,
Recall, AUC, the F-scores and one rate at a bound on another (SensitivityAtSpecificity and the like)."""

from __future__ import annotations

import numpy as np

from ..losses import keras_losses as _losses
from ..framework.tensor import Tensor
from .metric import NEG_INF, Metric, _divide_no_nan, _np, _tensor_result


# ---------------------------------------------------------------- confusion counts
_KEYS = ("tp", "fp", "tn", "fn")


def _check_thresholds(thresholds) -> None:
    bad = [t for t in thresholds if isinstance(t, bool) or not isinstance(t, (int, float, np.number))
           or not 0 <= t <= 1]
    if bad:
        raise ValueError(f"Threshold values must be in [0, 1]. Received: {bad}")


def _parse_thresholds(thresholds, default: float) -> list:
    if thresholds is None:
        return [default]
    values = list(thresholds) if isinstance(thresholds, (list, tuple, np.ndarray)) else [thresholds]
    _check_thresholds(values)  # the values as given in the message, as Keras: "Received: [-1, 2]"
    values = [float(t) for t in values]
    if not values:
        raise ValueError("`thresholds` must not be empty")
    return values


def _is_evenly_distributed(thresholds) -> bool:
    """Whether ``thresholds`` are ``i / (n - 1)`` for ``i = 0..n-1`` (within 1e-7), ``n >= 3``."""
    n = len(thresholds)
    if n < 3:
        return False
    even = np.arange(n, dtype=np.float32) / (n - 1)
    return bool(np.allclose(thresholds, even, atol=_losses.EPSILON))


def _filter_top_k(x: np.ndarray, k: int) -> np.ndarray:
    """Keep the ``k`` largest values of the last axis; the others become ``NEG_INF``."""
    order = np.argsort(-x, axis=-1, kind="stable")[..., :k]
    mask = np.zeros(x.shape, dtype=x.dtype)
    np.put_along_axis(mask, order, 1, axis=-1)
    return x * mask + NEG_INF * (1 - mask)


def _confusion_counts(y_true, y_pred, thresholds, dtype, *, evenly: bool, top_k=None, class_id=None,
                      sample_weight=None, multi_label: bool = False, label_weights=None) -> dict:
    """Weighted TP/FP/TN/FN at each threshold, as Keras's ``update_confusion_matrix_variables``.

    A prediction is positive at threshold ``t`` when ``y_pred > t``. Returns
    arrays of shape ``(T,)`` (``(T, num_labels)`` with ``multi_label``).

    With evenly distributed thresholds Keras buckets each prediction instead of
    comparing it with every threshold: ``bucket = ceil(p (T - 1)) - 1`` (``p``
    clipped to [0, 1]), raised to 0 when the end thresholds carry the epsilon
    margin (``-eps`` and ``1 + eps``, so 0 and 1 still count at them), and the
    counts are reversed cumulative sums of the per-bucket sums.
    """
    with_epsilon = evenly and (thresholds[0] < 0.0 or thresholds[-1] > 1.0)
    thr = np.asarray(thresholds, dtype=dtype)
    t = _np(y_true).astype(dtype)
    p = _np(y_pred).astype(dtype)
    p, t = _losses.squeeze_or_expand_to_same_rank(p, t)
    sw = None
    if sample_weight is not None:
        sw = np.expand_dims(_np(sample_weight, dtype), -1)
        _, sw = _losses.squeeze_or_expand_to_same_rank(t, sw, expand_rank_1=False)
    if top_k is not None:
        p = _filter_top_k(p, int(top_k))
    if class_id is not None:
        if p.ndim < 2:
            raise ValueError(
                "When class_id is provided, y_pred must be a 2D array with shape (num_samples, num_classes), "
                f"found shape: {p.shape}"
            )
        t, p = t[..., class_id, None], p[..., class_id, None]
    if t.shape != p.shape:
        raise ValueError(
            "y_true and y_pred must have the same shape. "
            f"Received: y_true.shape={np.shape(_np(y_true))}, y_pred.shape={np.shape(_np(y_pred))}"
        )
    w = np.ones(p.shape, dtype)
    if sw is not None:
        try:
            w = np.broadcast_to(sw, p.shape).astype(dtype)
        except ValueError:
            raise ValueError(
                f"sample_weight of shape {np.shape(_np(sample_weight))} cannot be broadcast to y_pred of shape "
                f"{p.shape}"
            ) from None
    if label_weights is not None and not multi_label:
        w = w * np.broadcast_to(np.asarray(label_weights, dtype), p.shape)
    if multi_label:
        if p.ndim != 2:
            raise ValueError(f"y_pred must have rank 2 when multi_label=True. Received shape {p.shape}")
    else:
        t, p, w = t.reshape(-1, 1), p.reshape(-1, 1), w.reshape(-1, 1)
    is_pos = t != 0
    n_thr, n_lab = len(thr), p.shape[1]
    if evenly:
        true_w = np.where(is_pos, w, 0).astype(dtype)
        false_w = np.where(is_pos, 0, w).astype(dtype)
        # bucket(p) = ceil(p (T - 1)) - 1: p counts at every threshold below it
        bucket = np.ceil(np.clip(p, 0.0, 1.0) * dtype.type(n_thr - 1)) - 1
        if with_epsilon:
            bucket = np.maximum(bucket, 0)
        bucket = bucket.astype(np.int64)
        keep = bucket >= 0  # a negative bucket (p = 0 without the epsilon margin) counts nowhere
        flat = (bucket * n_lab + np.arange(n_lab)[None, :])[keep]
        tp_b = np.bincount(flat, weights=true_w[keep], minlength=n_thr * n_lab).reshape(n_thr, n_lab)
        fp_b = np.bincount(flat, weights=false_w[keep], minlength=n_thr * n_lab).reshape(n_thr, n_lab)
        # count(t_i) = sum of buckets j >= i
        tp = np.cumsum(tp_b[::-1], axis=0)[::-1]
        fp = np.cumsum(fp_b[::-1], axis=0)[::-1]
        # tn = (all negatives) - fp;  fn = (all positives) - tp
        tn = np.sum(false_w, axis=0) - fp
        fn = np.sum(true_w, axis=0) - tp
    else:
        pred_pos = p[None, :, :] > thr[:, None, None]  # (T, N, L)
        pos = is_pos[None]
        tp = np.sum(np.where(pred_pos & pos, w, 0), axis=1)
        fp = np.sum(np.where(pred_pos & ~pos, w, 0), axis=1)
        fn = np.sum(np.where(~pred_pos & pos, w, 0), axis=1)
        tn = np.sum(np.where(~pred_pos & ~pos, w, 0), axis=1)
    out = {"tp": tp, "fp": fp, "tn": tn, "fn": fn}
    if not multi_label:
        out = {k: v[:, 0] for k, v in out.items()}
    return {k: v.astype(dtype) for k, v in out.items()}


class _ConfusionMetric(Metric):
    """Shared state handling of the threshold-based metrics."""

    _counts: tuple = ()

    def _init_thresholds(self, thresholds, default):
        self.init_thresholds = thresholds
        self.thresholds = _parse_thresholds(thresholds, default)
        self._thresholds_distributed_evenly = _is_evenly_distributed(self.thresholds)

    def _accumulate(self, y_true, y_pred, sample_weight, top_k=None, class_id=None):
        counts = _confusion_counts(
            y_true, y_pred, self.thresholds, np.dtype(self.dtype), evenly=self._thresholds_distributed_evenly,
            top_k=top_k, class_id=class_id, sample_weight=sample_weight,
        )
        for key, var in self._count_variables().items():
            var.assign_add(counts[key])

    def _count_variables(self) -> dict:
        raise NotImplementedError

    def _single(self, values: np.ndarray) -> Tensor:
        return _tensor_result(values[0] if len(self.thresholds) == 1 else values, self.dtype)


class _ConditionCount(_ConfusionMetric):
    _key = "tp"

    def __init__(self, thresholds=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self._init_thresholds(thresholds, 0.5)
        self.accumulator = self.add_variable(shape=(len(self.thresholds),), name="accumulator")

    def _count_variables(self):
        return {self._key: self.accumulator}

    def update_state(self, y_true, y_pred, sample_weight=None):
        self._accumulate(y_true, y_pred, sample_weight)

    def result(self):
        return self._single(self.accumulator.numpy())

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds}


class TruePositives(_ConditionCount):
    """The (weighted) number of true positives (``y_pred > threshold`` and ``y_true``), per threshold."""

    _key = "tp"


class FalsePositives(_ConditionCount):
    """The (weighted) number of false positives, per threshold."""

    _key = "fp"


class TrueNegatives(_ConditionCount):
    """The (weighted) number of true negatives, per threshold."""

    _key = "tn"


class FalseNegatives(_ConditionCount):
    """The (weighted) number of false negatives, per threshold."""

    _key = "fn"


class _TruePositiveRatio(_ConfusionMetric):
    """``tp / (tp + other)`` at each threshold; ``other`` is false positives (Precision) or false negatives
    (Recall)."""

    _other = ("fp", "false_positives")

    def __init__(self, thresholds=None, top_k=None, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.top_k = top_k
        self.class_id = class_id
        self._init_thresholds(thresholds, 0.5 if top_k is None else NEG_INF)
        n = len(self.thresholds)
        self.true_positives = self.add_variable(shape=(n,), name="true_positives")
        setattr(self, self._other[1], self.add_variable(shape=(n,), name=self._other[1]))

    def _count_variables(self):
        return {"tp": self.true_positives, self._other[0]: getattr(self, self._other[1])}

    def update_state(self, y_true, y_pred, sample_weight=None):
        self._accumulate(y_true, y_pred, sample_weight, top_k=self.top_k, class_id=self.class_id)

    def result(self):
        tp, other = self.true_positives.numpy(), getattr(self, self._other[1]).numpy()
        return self._single(_divide_no_nan(tp, tp + other))

    def get_config(self):
        return {**super().get_config(), "thresholds": self.init_thresholds, "top_k": self.top_k,
                "class_id": self.class_id}


class Precision(_TruePositiveRatio):
    """``tp / (tp + fp)`` at each threshold (a prediction is positive when ``y_pred > threshold``).

    Args:
        thresholds: a float or list of floats in [0, 1] (default 0.5, or no
            threshold when ``top_k`` is set); a list gives one value per threshold.
        top_k: only the ``k`` highest predictions of each sample count as positive.
        class_id: compute the metric for this class (column) only.

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.Precision()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> round(float(m.result()), 6)
        0.666667
    """

    _other = ("fp", "false_positives")


class Recall(_TruePositiveRatio):
    """``tp / (tp + fn)`` at each threshold (a prediction is positive when ``y_pred > threshold``).

    Args: as :class:`Precision`.

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.Recall()
        >>> m.update_state([0, 1, 1, 1], [1, 0, 1, 1])
        >>> round(float(m.result()), 6)
        0.666667
    """

    _other = ("fn", "false_negatives")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    # 1 / (1 + exp(-x)), without overflow for large |x|
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


class AUC(Metric):
    """Area under the ROC or precision-recall curve, from confusion counts at fixed thresholds.

    The thresholds are ``-1e-7``, ``i / (num_thresholds - 1)`` for
    ``i = 1 .. num_thresholds - 2`` and ``1 + 1e-7`` (or the given
    ``thresholds`` between the same two end points). TP/FP/TN/FN accumulate at
    each threshold; the area is a Riemann sum over consecutive thresholds:

    * ROC, ``"interpolation"``: ``sum((fpr[i] - fpr[i+1]) * (tpr[i] + tpr[i+1]) / 2)``;
    * PR, ``"interpolation"``: Davis & Goadrich's interpolation of TP and
      ``P = TP + FP`` within each interval (precision is not linear there):
      ``sum(slope * (dTP + intercept * log(P_i / P_{i+1})) / (TP_{i+1} + FN_{i+1}))``
      with ``slope = dTP / dP`` and ``intercept = TP_{i+1} - slope * P_{i+1}``;
    * ``"minoring"`` / ``"majoring"``: the lower / upper of the two heights.

    Args:
        num_thresholds: number of thresholds (> 1), default 200.
        curve: ``"ROC"`` or ``"PR"``.
        summation_method: ``"interpolation"``, ``"minoring"`` or ``"majoring"``.
        thresholds: explicit thresholds in [0, 1] (``num_thresholds`` is then ignored).
        multi_label: compute one AUC per label (column of rank-2 inputs) and average them.
        num_labels: the number of labels when ``multi_label`` (else taken from the first batch).
        label_weights: weights of the labels: in the average when ``multi_label``,
            else of the flattened predictions.
        from_logits: ``y_pred`` holds logits (a sigmoid is applied).

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.AUC(num_thresholds=3)
        >>> m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
        >>> float(m.result())
        0.75
    """

    def __init__(self, num_thresholds=200, curve="ROC", summation_method="interpolation", name=None, dtype=None,
                 thresholds=None, multi_label=False, num_labels=None, label_weights=None, from_logits=False):
        curves = {"roc": "ROC", "pr": "PR"}
        if not isinstance(curve, str) or curve.lower() not in curves:
            raise ValueError(f'Invalid AUC curve value: "{curve}". Expected values are ["PR", "ROC"]')
        methods = ("interpolation", "majoring", "minoring")
        if not isinstance(summation_method, str) or summation_method.lower() not in methods:
            raise ValueError(
                f'Invalid AUC summation method value: "{summation_method}". Expected values are {list(methods)}'
            )
        self._init_from_thresholds = thresholds is not None
        if thresholds is not None:
            inner = sorted(_parse_thresholds(thresholds, 0.5))
            self.num_thresholds = len(inner) + 2
            self._thresholds_distributed_evenly = _is_evenly_distributed(np.array([0.0] + inner + [1.0]))
        else:
            if isinstance(num_thresholds, bool) or int(num_thresholds) != num_thresholds or num_thresholds <= 1:
                raise ValueError(f"Argument `num_thresholds` must be an integer > 1. Received: "
                                 f"num_thresholds={num_thresholds}")
            self.num_thresholds = int(num_thresholds)
            inner = [(i + 1) * 1.0 / (self.num_thresholds - 1) for i in range(self.num_thresholds - 2)]
            self._thresholds_distributed_evenly = True
        # end points below 0 and above 1 so that predictions of exactly 0 or 1 are counted
        self._thresholds = np.array([0.0 - _losses.EPSILON] + inner + [1.0 + _losses.EPSILON])
        self.curve = curves[curve.lower()]
        self.summation_method = summation_method.lower()
        super().__init__(name=name, dtype=dtype)
        self.multi_label = bool(multi_label)
        self.num_labels = num_labels
        self.label_weights = None if label_weights is None else np.asarray(label_weights, dtype=self.dtype)
        if self.label_weights is not None and np.any(self.label_weights < 0):
            raise ValueError("All values of `label_weights` must be non-negative.")
        self._from_logits = bool(from_logits)
        self._built = False
        if self.multi_label:
            if num_labels:
                self._build(int(num_labels))
        else:
            if num_labels:
                raise ValueError("`num_labels` is needed only when `multi_label` is True.")
            self._build(None)

    @property
    def thresholds(self) -> list:
        """The thresholds the counts are taken at (with the two end points)."""
        return list(self._thresholds)

    def _build(self, num_labels):
        shape = (self.num_thresholds,) if num_labels is None else (self.num_thresholds, num_labels)
        self._num_labels = num_labels
        self.true_positives = self.add_variable(shape=shape, name="true_positives")
        self.false_positives = self.add_variable(shape=shape, name="false_positives")
        self.true_negatives = self.add_variable(shape=shape, name="true_negatives")
        self.false_negatives = self.add_variable(shape=shape, name="false_negatives")
        self._built = True

    def update_state(self, y_true, y_pred, sample_weight=None):
        p = _np(y_pred)
        if not self._built:
            if p.ndim != 2:
                raise ValueError(f"y_pred must have rank 2 when multi_label=True. Received shape {p.shape}")
            self._build(p.shape[1])
        if self._from_logits:
            p = _sigmoid(p.astype(self.dtype))
        counts = _confusion_counts(
            y_true, p, self._thresholds, np.dtype(self.dtype), evenly=self._thresholds_distributed_evenly,
            sample_weight=sample_weight, multi_label=self.multi_label,
            label_weights=None if self.multi_label else self.label_weights,
        )
        self.true_positives.assign_add(counts["tp"])
        self.false_positives.assign_add(counts["fp"])
        self.true_negatives.assign_add(counts["tn"])
        self.false_negatives.assign_add(counts["fn"])

    def _average(self, per_threshold: np.ndarray):
        if not self.multi_label:
            return np.sum(per_threshold)
        by_label = np.sum(per_threshold, axis=0)
        if self.label_weights is None:
            return np.mean(by_label)
        return _divide_no_nan(np.sum(by_label * self.label_weights), np.sum(self.label_weights))

    def interpolate_pr_auc(self) -> Tensor:
        """PR-AUC by Davis & Goadrich's interpolation (see the class docstring)."""
        tp, fp, fn = self.true_positives.numpy(), self.false_positives.numpy(), self.false_negatives.numpy()
        dtp = tp[:-1] - tp[1:]
        p = tp + fp
        dp = p[:-1] - p[1:]
        prec_slope = _divide_no_nan(dtp, np.maximum(dp, 0))
        intercept = tp[1:] - prec_slope * p[1:]
        both = (p[:-1] > 0) & (p[1:] > 0)
        safe_p_ratio = np.where(both, _divide_no_nan(p[:-1], np.maximum(p[1:], 0)), np.ones_like(p[1:]))
        with np.errstate(divide="ignore"):
            log_ratio = np.log(safe_p_ratio)
        increments = _divide_no_nan(prec_slope * (dtp + intercept * log_ratio), np.maximum(tp[1:] + fn[1:], 0))
        return _tensor_result(self._average(increments), self.dtype)

    def result(self) -> Tensor:
        if self.curve == "PR" and self.summation_method == "interpolation":
            return self.interpolate_pr_auc()
        tp, fp = self.true_positives.numpy(), self.false_positives.numpy()
        tn, fn = self.true_negatives.numpy(), self.false_negatives.numpy()
        recall = _divide_no_nan(tp, tp + fn)
        if self.curve == "ROC":
            x, y = _divide_no_nan(fp, fp + tn), recall  # (false positive rate, true positive rate)
        else:
            x, y = recall, _divide_no_nan(tp, tp + fp)  # (recall, precision)
        if self.summation_method == "interpolation":
            heights = (y[:-1] + y[1:]) / 2.0
        elif self.summation_method == "minoring":
            heights = np.minimum(y[:-1], y[1:])
        else:
            heights = np.maximum(y[:-1], y[1:])
        return _tensor_result(self._average((x[:-1] - x[1:]) * heights), self.dtype)

    def reset_state(self):
        if self._built:
            super().reset_state()

    def get_config(self):
        config = {
            **super().get_config(),
            "num_thresholds": self.num_thresholds,
            "curve": self.curve,
            "summation_method": self.summation_method,
            "multi_label": self.multi_label,
            "num_labels": self.num_labels,
            "label_weights": None if self.label_weights is None else self.label_weights.tolist(),
            "from_logits": self._from_logits,
        }
        if self._init_from_thresholds:
            config["thresholds"] = [float(t) for t in self._thresholds[1:-1]]
        return config


# ---------------------------------------------------------------- F-scores
class FBetaScore(Metric):
    """The F-beta score ``(1 + beta**2) P R / (beta**2 P + R)`` per class of ``(samples, classes)`` inputs
    (``keras.metrics.FBetaScore``).

    Args:
        average: None (one score per class), ``"micro"`` (counts pooled over classes), ``"macro"`` (mean of the
            classes' scores) or ``"weighted"`` (weighted by each class's count of true labels).
        beta: a positive float.
        threshold: a prediction is positive above it; None: the largest score of each row is positive (unless
            it is 0).
    """

    def __init__(self, average=None, beta=1.0, threshold=None, name="fbeta_score", dtype=None):
        super().__init__(name=name, dtype=dtype)
        if average not in (None, "micro", "macro", "weighted"):
            raise ValueError("Invalid `average` argument value. Expected one of: None, 'micro', 'macro', "
                             f"'weighted'. Received: average={average!r}")
        if not isinstance(beta, float):
            raise ValueError(f"Invalid `beta` argument value. It should be a Python float. Received: beta={beta!r} "
                             f"of type {type(beta).__name__}")
        if beta <= 0.0:
            raise ValueError(f"Invalid `beta` argument value. It should be > 0. Received: beta={beta}")
        if threshold is not None and (not isinstance(threshold, float) or not 0.0 < threshold <= 1.0):
            raise ValueError("Invalid `threshold` argument value. It should be a Python float in (0, 1]. "
                             f"Received: threshold={threshold!r}")
        self.average, self.beta, self.threshold = average, beta, threshold
        self._built = False

    def _build(self, shape):
        classes = shape[-1]
        init = () if self.average == "micro" else (classes,)
        self.true_positives = self.add_variable(shape=init, name="true_positives")
        self.false_positives = self.add_variable(shape=init, name="false_positives")
        self.false_negatives = self.add_variable(shape=init, name="false_negatives")
        self.intermediate_weights = self.add_variable(shape=init, name="intermediate_weights")
        self._built, self._classes = True, classes

    def update_state(self, y_true, y_pred, sample_weight=None):
        t, p = _np(y_true, self.dtype), _np(y_pred, self.dtype)
        if t.ndim != 2 or p.ndim != 2 or t.shape != p.shape:
            raise ValueError(f"{type(self).__name__} expects 2D inputs of one shape (batch_size, num_classes). "
                             f"Received input shapes: y_pred.shape={p.shape} and y_true.shape={t.shape}")
        if self._built and p.shape[1] != self._classes:
            raise ValueError(f"{type(self).__name__} was built for {self._classes} classes. Received "
                             f"y_pred.shape={p.shape}")
        if self.threshold is None:
            p = ((p >= p.max(axis=-1, keepdims=True)) & (np.abs(p) > 1e-9)).astype(self.dtype)
        else:
            p = (p > self.threshold).astype(self.dtype)
        w = None if sample_weight is None else _np(sample_weight, self.dtype)
        if w is not None and w.shape not in ((), (t.shape[0],)):
            raise ValueError(f"{type(self).__name__}: sample_weight must have one weight per sample, shape "
                             f"({t.shape[0]},). Received shape {w.shape}")
        if not self._built:
            self._build(p.shape)
        axis = None if self.average == "micro" else 0

        def weighted_sum(v):
            return np.sum(v if w is None else v * np.reshape(w, (-1, 1)) if w.ndim else v * w, axis=axis)

        self.true_positives.assign_add(weighted_sum(p * t))
        self.false_positives.assign_add(weighted_sum(p * (1 - t)))
        self.false_negatives.assign_add(weighted_sum((1 - p) * t))
        self.intermediate_weights.assign_add(weighted_sum(t))

    def result(self):
        if not self._built:
            return _tensor_result(np.asarray(0.0, self.dtype), self.dtype)
        tp, fp, fn = self.true_positives.numpy(), self.false_positives.numpy(), self.false_negatives.numpy()
        eps = np.dtype(self.dtype).type(_losses.EPSILON)
        precision = tp / (tp + fp + eps)
        recall = tp / (tp + fn + eps)
        b2 = np.dtype(self.dtype).type(self.beta ** 2)
        score = precision * recall / (b2 * precision + recall + eps) * (1 + b2)
        if self.average == "weighted":
            weights = self.intermediate_weights.numpy()
            score = np.sum(score * (weights / (np.sum(weights) + eps)))
        elif self.average is not None:
            score = np.mean(score)
        return _tensor_result(np.asarray(score, self.dtype), self.dtype)

    def reset_state(self):
        if self._built:
            super().reset_state()

    def get_config(self):
        return {**super().get_config(), "average": self.average, "beta": self.beta, "threshold": self.threshold}


class F1Score(FBetaScore):
    """:class:`FBetaScore` with ``beta=1`` (``keras.metrics.F1Score``).

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.F1Score(average="micro", threshold=0.5)
        >>> m.update_state([[1, 0], [0, 1]], [[0.9, 0.2], [0.7, 0.6]])  # TP 2, FP 1, FN 0
        >>> round(float(m.result()), 4)
        0.8
    """

    def __init__(self, average=None, threshold=None, name="f1_score", dtype=None):
        super().__init__(average=average, beta=1.0, threshold=threshold, name=name, dtype=dtype)

    def get_config(self):
        config = super().get_config()
        config.pop("beta")
        return config


# ---------------------------------------------------------------- one rate at a bound on another
class _AtConstraint(Metric):
    """TP/FP/TN/FN at ``num_thresholds`` evenly spaced thresholds in [0, 1]; the result is the largest value
    of one rate among the thresholds where another reaches ``value`` (0 if none does), as Keras."""

    _value_name = "value"

    def __init__(self, value, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(name=name, dtype=dtype)
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not 0 <= value <= 1:
            raise ValueError(f"Argument `{self._value_name}` must be in the range [0, 1]. "
                             f"Received: {self._value_name}={value!r}")
        if isinstance(num_thresholds, bool) or not isinstance(num_thresholds, (int, np.integer)) or num_thresholds < 1:
            raise ValueError(f"Argument `num_thresholds` must be an integer > 0. Received: "
                             f"num_thresholds={num_thresholds!r}")
        self.value, self.num_thresholds, self.class_id = value, int(num_thresholds), class_id
        if self.num_thresholds == 1:
            self.thresholds, self._evenly = [0.5], False
        else:
            n = self.num_thresholds
            self.thresholds = [0.0] + [(i + 1) * 1.0 / (n - 1) for i in range(n - 2)] + [1.0]
            self._evenly = True
        shape = (len(self.thresholds),)
        self.true_positives = self.add_variable(shape=shape, name="true_positives")
        self.false_positives = self.add_variable(shape=shape, name="false_positives")
        self.true_negatives = self.add_variable(shape=shape, name="true_negatives")
        self.false_negatives = self.add_variable(shape=shape, name="false_negatives")

    def update_state(self, y_true, y_pred, sample_weight=None):
        counts = _confusion_counts(y_true, y_pred, self.thresholds, np.dtype(self.dtype), evenly=self._evenly,
                                   class_id=self.class_id, sample_weight=sample_weight)
        self.true_positives.assign_add(counts["tp"])
        self.false_positives.assign_add(counts["fp"])
        self.true_negatives.assign_add(counts["tn"])
        self.false_negatives.assign_add(counts["fn"])

    def _rates(self):
        tp, fp = self.true_positives.numpy(), self.false_positives.numpy()
        tn, fn = self.true_negatives.numpy(), self.false_negatives.numpy()
        return {"sensitivity": _divide_no_nan(tp, tp + fn), "specificity": _divide_no_nan(tn, tn + fp),
                "precision": _divide_no_nan(tp, tp + fp)}

    def _best(self, constrained, dependent):
        rates = self._rates()
        feasible = rates[constrained] >= np.dtype(self.dtype).type(self.value)
        best = np.max(np.where(feasible, rates[dependent], 0), initial=0)
        return _tensor_result(np.asarray(best, self.dtype), self.dtype)

    def get_config(self):
        return {**super().get_config(), "class_id": self.class_id, "num_thresholds": self.num_thresholds,
                self._value_name: self.value}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class SensitivityAtSpecificity(_AtConstraint):
    """The best sensitivity ``TP / (TP + FN)`` among thresholds where the specificity is ``>= specificity``."""

    _value_name = "specificity"

    def __init__(self, specificity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(specificity, num_thresholds, class_id, name, dtype)
        self.specificity = specificity

    def result(self):
        return self._best("specificity", "sensitivity")


class SpecificityAtSensitivity(_AtConstraint):
    """The best specificity ``TN / (TN + FP)`` among thresholds where the sensitivity is ``>= sensitivity``."""

    _value_name = "sensitivity"

    def __init__(self, sensitivity, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(sensitivity, num_thresholds, class_id, name, dtype)
        self.sensitivity = sensitivity

    def result(self):
        return self._best("sensitivity", "specificity")


class PrecisionAtRecall(_AtConstraint):
    """The best precision among thresholds where the recall is ``>= recall``."""

    _value_name = "recall"

    def __init__(self, recall, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(recall, num_thresholds, class_id, name, dtype)
        self.recall = recall

    def result(self):
        return self._best("sensitivity", "precision")


class RecallAtPrecision(_AtConstraint):
    """The best recall among thresholds where the precision is ``>= precision``."""

    _value_name = "precision"

    def __init__(self, precision, num_thresholds=200, class_id=None, name=None, dtype=None):
        super().__init__(precision, num_thresholds, class_id, name, dtype)
        self.precision = precision

    def result(self):
        return self._best("precision", "sensitivity")
