"""Keras 3's Loss classes and the look-up of losses by name (public as ``descend.losses``, with the loss
functions of :mod:`.loss_functions`)."""

from __future__ import annotations

import inspect

import numpy as np

from .. import backend
from ..persistence.object_config import get_object
from ..persistence.registry import register_builtins
from ..ops import math_ops
from .loss_functions import (
    EPSILON, Reduction, standardize_reduction, _to_snake_case, _tensor, _float_tensor, _like,
    squeeze_or_expand_to_same_rank, _check_smoothing, mean_squared_error, mean_absolute_error,
    mean_absolute_percentage_error, mean_squared_logarithmic_error, huber, log_cosh, cosine_similarity,
    kl_divergence, poisson, _axis_arg, dice, tversky, categorical_generalized_cross_entropy, hinge,
    squared_hinge, categorical_hinge, binary_crossentropy, categorical_crossentropy,
    _sparse_categorical_crossentropy, _check_focal, binary_focal_crossentropy, categorical_focal_crossentropy,
    _check_ignore_class, sparse_categorical_crossentropy, reduce_weighted_values,
)

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
        from ..layers.base import get_mask

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


class ConfigFromArguments:
    """A built-in loss or metric class around a function: mixed in before ``LossFunctionWrapper`` or
    ``MeanMetricWrapper``, it makes the config the constructor's arguments. Those named in ``_params`` are
    passed on to the function and are also the instance's attributes (``loss.from_logits``, ``metric.k``);
    the function is not in the config (the class names it) and the repr is the ``Loss``'s or ``Metric``'s."""

    _params: tuple = ()

    def __init__(self, fn, **kwargs):
        super().__init__(fn, **kwargs)
        for k in self._params:
            setattr(self, k, self._fn_kwargs[k])

    def _function_wrapper(self) -> type:
        """The wrapper class this one is mixed into (the next one in the method order)."""
        mro = type(self).__mro__
        return mro[mro.index(ConfigFromArguments) + 1]

    def get_config(self) -> dict:
        config = super(self._function_wrapper(), self).get_config()  # the Loss's or Metric's own, without fn
        config.update({k: getattr(self, k) for k in self._params})
        return config

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self):
        return super(self._function_wrapper(), self).__repr__()


class _BuiltinLoss(ConfigFromArguments, LossFunctionWrapper):
    """A built-in loss class (see :class:`ConfigFromArguments`)."""


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


def _function_name(fn) -> str:
    from ..persistence.object_config import function_name

    return function_name(fn, ALL_OBJECTS_DICT)


def _find_function(name):
    from ..persistence.object_config import find_function

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
    from ..persistence.object_config import deserialize_builtin

    return deserialize_builtin(config, custom_objects, "loss", ALL_OBJECTS_DICT, ALL_OBJECTS_DICT, get)

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


# ---------------------------------------------------------------- CTC and Circle (functions in ctc_and_circle.py)
from .ctc_and_circle import circle, ctc  # noqa: E402


class CTC(_BuiltinLoss):
    """The CTC loss (:func:`ctc`): integer labels (0 the blank and the padding) against unnormalized logits
    (batch, time, classes).

    Example:
        >>> import numpy as np, descend.losses as losses
        >>> round(float(losses.CTC()(np.array([[1, 0]]), np.zeros((1, 2, 3), np.float32))), 5)
        1.09861
    """

    def __init__(self, reduction="sum_over_batch_size", name="ctc", dtype=None):
        super().__init__(ctc, name=name, reduction=reduction, dtype=dtype)


class Circle(_BuiltinLoss):
    """The Circle loss (:func:`circle`) of integer labels and L2-normalized embeddings, averaged over the rows
    with a non-zero loss by the default reduction (the losses carry a mask, as in Keras 3)."""

    _params = ("gamma", "margin", "remove_diagonal")

    def __init__(self, gamma=80.0, margin=0.4, remove_diagonal=True, reduction="sum_over_batch_size", name="circle",
                 dtype=None):
        super().__init__(circle, name=name, reduction=reduction, dtype=dtype, gamma=gamma, margin=margin,
                         remove_diagonal=remove_diagonal)


ALL_OBJECTS += (CTC, Circle, ctc, circle)
ALL_OBJECTS_DICT.update({obj.__name__: obj for obj in (CTC, Circle, ctc, circle)})
__all__ += ["CTC", "Circle", "ctc", "circle"]
register_builtins("losses", ALL_OBJECTS_DICT)
