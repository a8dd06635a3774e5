"""Metrics, as ``keras.metrics`` (Keras 3): stateful accumulators over batches.

A metric keeps its state in non-trainable :class:`descend.Variable` objects
named ``<metric name>/<state>`` (``"accuracy/total"``), so a checkpoint can
save them. ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch,
``result()`` returns the value so far as a Tensor, ``reset_state()`` (alias
``reset_states()``) zeroes the state, and calling the metric does
``update_state`` then ``result``.

Updates compute with NumPy on the values of their inputs: nothing is
recorded on a :class:`descend.GradientTape`, so a metric may be updated
inside a ``with GradientTape()`` block without touching the gradients.

Example:
    >>> import descend.metrics as metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state([2, 1], [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]])
    >>> float(m.result())
    0.5
    >>> m.variables[0].name
    'sparse_categorical_accuracy/total'
"""

from __future__ import annotations

import inspect
import re
import warnings

import numpy as np

from . import backend
from . import losses as _losses
from .framework import nest as _nest
from .framework import trace as _trace
from .framework.tensor import Tensor, convert_to_tensor
from .framework.variable import Variable, name_scope
from .ops import math_ops
from .persistence.object_config import find_function, function_name, get_object
from .persistence.registry import register_builtins

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

NEG_INF = -1e10  # the threshold (and filler) for top-k precision/recall, as Keras


# ---------------------------------------------------------------- helpers
def _np(x, dtype=None) -> np.ndarray:
    """The value of ``x`` as a NumPy array; reading a Tensor or Variable records nothing."""
    if hasattr(x, "_to_dense"):  # IndexedSlices
        x = x._to_dense()
    a = np.asarray(x)
    return a if dtype is None else a.astype(dtype, copy=False)


def _detach(x):
    """A fresh Tensor holding ``x``'s value: ops on it are never recorded by a tape."""
    if isinstance(x, (Tensor, Variable)) or hasattr(x, "_to_dense"):
        return convert_to_tensor(np.array(_np(x)))
    return x


def _tensor_result(value, dtype) -> Tensor:
    return convert_to_tensor(np.asarray(value, dtype=dtype))


def _divide_no_nan(a, b):
    """``a / b`` where ``b != 0``, else 0."""
    a, b = np.asarray(a), np.asarray(b)
    if a.ndim == 0 and b.ndim == 0 and a.dtype == b.dtype and a.dtype.kind == "f":  # (a mean's result, every step)
        return np.asarray(a / b if b != 0 else a.dtype.type(0))
    safe = np.where(b == 0, np.ones_like(b), b)
    return np.where(b == 0, np.zeros_like(a * b), a / safe)


def _scope_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.\-/]", "_", name).strip("/") or "metric"


def _check_same_shape(name: str, y_true: np.ndarray, y_pred: np.ndarray):
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"{name}: y_true and y_pred must have the same shape. "
            f"Received: y_true.shape={y_true.shape}, y_pred.shape={y_pred.shape}"
        )


def _initial_value(initializer, shape, dtype) -> np.ndarray:
    shape = tuple(int(s) for s in shape)
    if initializer is None or initializer == "zeros":
        return np.zeros(shape, dtype)
    if initializer == "ones":
        return np.ones(shape, dtype)
    if callable(initializer):
        return np.asarray(_np(initializer(shape, dtype=dtype)), dtype=dtype)
    if isinstance(initializer, str):
        raise ValueError(f"Unknown initializer {initializer!r}; expected 'zeros', 'ones' or a callable")
    return np.broadcast_to(np.asarray(initializer, dtype=dtype), shape).copy()


# ---------------------------------------------------------------- base class
class Metric:
    """Base class of metrics: state variables, ``update_state``, ``result``, ``reset_state``.

    Subclasses create their state with :meth:`add_variable` in ``__init__``,
    accumulate in ``update_state`` (``var.assign_add(...)``) and compute the
    value in ``result``.

    Args:
        name: the metric's name (default: the class name in snake case); also
            the name scope of its variables.
        dtype: the dtype of the state and the result (default floatx).

    Example:
        >>> import numpy as np
        >>> import descend.metrics as metrics
        >>> class BinaryTruePositives(metrics.Metric):
        ...     def __init__(self, name="binary_true_positives", **kwargs):
        ...         super().__init__(name=name, **kwargs)
        ...         self.true_positives = self.add_variable(shape=(), initializer="zeros", name="true_positives")
        ...     def update_state(self, y_true, y_pred, sample_weight=None):
        ...         values = np.logical_and(np.asarray(y_true, bool), np.asarray(y_pred, bool))
        ...         self.true_positives.assign_add(np.sum(values, dtype=self.dtype))
        ...     def result(self):
        ...         return self.true_positives.read_value()
        >>> float(BinaryTruePositives()([1, 1, 0], [1, 0, 0]))
        1.0
    """

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # they compute with NumPy: descend.function records each call whole and runs it on every call
        for method in ("update_state", "result"):
            fn = cls.__dict__.get(method)
            if fn is not None and not hasattr(fn, "__descend_opaque__"):
                setattr(cls, method, _trace.opaque("callback")(fn))

    def __init__(self, name: str | None = None, dtype=None):
        if name is not None and not isinstance(name, str):
            raise TypeError(f"`name` must be a string. Received: name={name!r}")
        self.name = name or _losses._to_snake_case(type(self).__name__)
        dtype = getattr(dtype, "compute_dtype", dtype)  # a dtype policy: its compute dtype, as Keras
        d = backend.as_dtype(dtype if dtype is not None else backend.floatx())
        if not (d.is_floating or d.is_integer):
            raise ValueError(f"A metric's dtype must be numeric. Received: dtype={dtype!r}")
        self._dtype = d.name
        self._variables: list = []

    @property
    def dtype(self) -> str:
        return self._dtype

    # -- state -------------------------------------------------------------------
    def add_variable(self, shape=(), initializer="zeros", dtype=None, aggregation: str = "sum",
                     name: str | None = None) -> Variable:
        """A non-trainable state Variable named ``<metric name>/<name>``."""
        if "_variables" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() before add_variable()")
        dt = np.dtype(dtype if dtype is not None else self._dtype)
        value = _initial_value(initializer, shape, dt)
        with name_scope(_scope_name(self.name)):
            var = Variable(value, name=name or "variable", trainable=False, dtype=dt)
        self._variables.append(var)
        self.__dict__.setdefault("_variable_names", {})[id(var)] = name or "variable"
        return var

    def add_weight(self, shape=(), initializer=None, dtype=None, name: str | None = None) -> Variable:
        """Alias of :meth:`add_variable` (Keras 2 name)."""
        return self.add_variable(shape=shape, initializer=initializer or "zeros", dtype=dtype, name=name)

    @property
    def variables(self) -> list:
        """The state variables: those made by :meth:`add_variable`, then those held as attributes, directly or in
        lists, tuples and dicts, with the variables of metrics held so (as Keras 3 tracks them)."""
        out = list(self.__dict__.get("_variables", []))
        seen = {id(v) for v in out}
        for name, value in self.__dict__.items():
            if name == "_variables":
                continue
            for leaf in _nest.flatten(value) if isinstance(value, (list, tuple, dict)) else [value]:
                found = leaf.variables if isinstance(leaf, Metric) and leaf is not self else (
                    [leaf] if isinstance(leaf, Variable) else [])
                for v in found:
                    if id(v) not in seen:
                        seen.add(id(v))
                        out.append(v)
        return out

    @property
    def trainable_variables(self) -> list:
        return []

    @property
    def non_trainable_variables(self) -> list:
        return self.variables

    weights = variables

    def reset_state(self) -> None:
        """Zero every state variable."""
        for v in self.variables:
            v.assign(np.zeros(v.shape, v.dtype.dtype))

    def reset_states(self) -> None:
        """Alias of :meth:`reset_state` (TF 2 Keras name)."""
        self.reset_state()

    # -- state protocol (checkpoints) ------------------------------------------------
    def _state_keys(self) -> list:
        names = self.__dict__.get("_variable_names", {})
        out, used = [], set()
        for v in self.variables:
            base = names.get(id(v)) or v.name.rsplit("/", 1)[-1]
            key, k = base, 1
            while key in used:
                key, k = f"{base}_{k}", k + 1
            used.add(key)
            out.append((key, v))
        return out

    def state_dict(self) -> dict:
        """Copies of the state variables, keyed by the names given to :meth:`add_variable`."""
        return {k: v.numpy() for k, v in self._state_keys()}

    def restore_plan(self, state: dict):
        """Validate a :meth:`state_dict` (every key, shape, dtype; finite values) and return the
        commit that writes it; ValueError lists every problem, nothing changed."""
        current = dict(self._state_keys())
        problems = [f"missing '{k}'" for k in current if k not in state]
        problems += [f"unexpected '{k}'" for k in state if k not in current]
        for k, v in current.items():
            if k not in state:
                continue
            arr = np.asarray(state[k])
            if arr.shape != tuple(v.shape) or arr.dtype != v.dtype.dtype:
                problems.append(f"'{k}': expected shape {tuple(v.shape)} {v.dtype.name}, received {arr.shape} "
                                f"{arr.dtype.name}")
            elif arr.dtype.kind == "f" and not np.isfinite(arr).all():
                problems.append(f"'{k}': holds non-finite values")
        if problems:
            raise ValueError(f"metric '{self.name}': " + "; ".join(problems))
        values = {k: np.array(state[k]) for k in current}

        def commit():
            for k, v in current.items():
                v.assign(values[k])
        return commit

    # -- protocol ----------------------------------------------------------------
    def update_state(self, *args, **kwargs):
        """Accumulate the statistics of one batch."""
        raise NotImplementedError(f"{type(self).__name__} must implement update_state()")

    def result(self):
        """The metric's value so far, as a Tensor."""
        raise NotImplementedError(f"{type(self).__name__} must implement result()")

    def __call__(self, *args, **kwargs):
        """``update_state(*args, **kwargs)``, then ``result()``."""
        if "_variables" not in self.__dict__:
            raise RuntimeError(f"{type(self).__name__}: call super().__init__() in __init__")
        self.update_state(*args, **kwargs)
        return self.result()

    def get_config(self) -> dict:
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}>"


# ---------------------------------------------------------------- reductions
def _samplewise(values: np.ndarray, sample_weight, reduce_fn, dtype):
    """Keras's ``reduce_to_samplewise_values``: one (weighted) value per sample, and the weights."""
    values = _np(values, dtype)
    if sample_weight is not None:
        sw = _np(sample_weight, dtype)
        values, sw = _losses.squeeze_or_expand_to_same_rank(values, sw)
        w_ndim, v_ndim = sw.ndim, values.ndim
        if v_ndim > w_ndim:
            # reduce the values to the weights' rank
            values = reduce_fn(values, axis=tuple(range(w_ndim, v_ndim)))
        try:
            sw = np.broadcast_to(sw, values.shape)
        except ValueError:
            raise ValueError(
                f"sample_weight of shape {np.shape(sample_weight)} cannot be broadcast to the values of shape "
                f"{values.shape}"
            ) from None
        values = values * sw
        if w_ndim > 1:
            sw = reduce_fn(sw, axis=tuple(range(1, w_ndim)))
        sample_weight = sw
    if values.ndim > 1:
        values = reduce_fn(values, axis=tuple(range(1, values.ndim)))
    return values, sample_weight


class Sum(Metric):
    """The (weighted) sum of the values: state ``total``.

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.Sum()
        >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> float(m.result())
        4.0
    """

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = _samplewise(values, sample_weight, np.sum, self.dtype)
        self.total.assign_add(np.sum(values, dtype=self.dtype))

    def result(self):
        return _tensor_result(self.total.numpy(), self.dtype)


class Mean(Metric):
    """The (weighted) mean of the values: states ``total`` and ``count``; ``result = total / count``.

    Values of rank > 1 are first averaged per sample (over all but the first
    axis); the count is the number of samples, or the sum of the weights.

    Example:
        >>> import descend.metrics as metrics
        >>> m = metrics.Mean()
        >>> m.update_state([1, 3, 5, 7])
        >>> float(m.result())
        4.0
        >>> m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
        >>> float(m.result())  # (16 + 4) / (4 + 2)
        3.3333332538604736
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(shape=(), name="total")
        self.count = self.add_variable(shape=(), name="count")

    def update_state(self, values, sample_weight=None):
        one = _np(values, self.dtype)
        if one.ndim == 0:  # one value (fit's loss, every step): the arithmetic below without its reshaping
            w = None if sample_weight is None else _np(sample_weight, self.dtype)
            if w is None or w.ndim == 0:
                self.total.assign_add(one if w is None else one * w)
                self.count.assign_add(np.asarray(1 if w is None else w, self.dtype))
                return
        values, sample_weight = _samplewise(one, sample_weight, np.mean, self.dtype)
        # total += sum(w * v);  count += sum(w)  (or the number of samples)
        self.total.assign_add(np.sum(values, dtype=self.dtype))
        if sample_weight is not None:
            num = np.sum(sample_weight)
        elif values.ndim >= 1:
            num = values.shape[0]
        else:
            num = 1
        self.count.assign_add(np.asarray(num, dtype=self.dtype))

    def result(self):
        return _tensor_result(_divide_no_nan(self.total.numpy(), self.count.numpy()), self.dtype)


class MeanMetricWrapper(Mean):
    """The mean of a per-sample metric function ``fn(y_true, y_pred, **kwargs)`` over all samples seen.

    The function is called on detached copies of the inputs, so even a
    function built from descend ops records nothing on an active tape.

    Example:
        >>> import descend.losses as losses
        >>> import descend.metrics as metrics
        >>> m = metrics.MeanMetricWrapper(losses.mean_absolute_error, name="mae")
        >>> float(m([[0.0, 1.0]], [[1.0, 1.0]]))
        0.5
    """

    # treat rank-1 y_true/y_pred as one value per sample (see Accuracy)
    _rank_1_per_sample = False

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        if not callable(fn):
            raise TypeError(f"`fn` must be callable. Received: fn={fn!r}")
        super().__init__(name=name or getattr(fn, "__name__", None), dtype=dtype)
        self._fn = fn
        self._fn_kwargs = kwargs

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true, y_pred = _detach(y_true), _detach(y_pred)
        if self._rank_1_per_sample and np.ndim(y_true) == 1 and np.ndim(y_pred) == 1:
            y_true, y_pred = _np(y_true), _np(y_pred)
            _check_same_shape(self.name, y_true, y_pred)
            y_true, y_pred = np.expand_dims(y_true, -1), np.expand_dims(y_pred, -1)
        values = self._fn(y_true, y_pred, **self._fn_kwargs)
        super().update_state(_np(values), sample_weight=sample_weight)

    def get_config(self) -> dict:
        config = super().get_config()
        config["fn"] = function_name(self._fn, {**_losses.ALL_OBJECTS_DICT, **_FUNCTIONS})
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        if isinstance(config.get("fn"), str):
            fn = find_function(config["fn"], {**_losses.ALL_OBJECTS_DICT, **_FUNCTIONS})
            if fn is None or inspect.isclass(fn):
                raise ValueError(f"Unknown metric function {config['fn']!r}")
            config["fn"] = fn
        return cls(**config)


class _BuiltinWrapper(MeanMetricWrapper):
    """A built-in metric class: its config is its constructor arguments. Those named in ``_params`` are passed
    on to the metric function and are also the instance's attributes (``metric.k``, ``metric.axis``)."""

    _params: tuple = ()

    def __init__(self, fn, **kwargs):
        super().__init__(fn, **kwargs)
        for k in self._params:
            setattr(self, k, self._fn_kwargs[k])

    def get_config(self) -> dict:
        config = Metric.get_config(self)
        config.update({k: getattr(self, k) for k in self._params})
        return config

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


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
    from .persistence.object_config import extend_scope, find_object

    with extend_scope(custom_objects):
        if isinstance(config, str):
            found = find_object(config, loose=False)
            return found if found is not None else get(config)
        if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
            raise ValueError(f"A metric config must be a dict with 'class_name' and 'config'. Received: "
                             f"{str(config)[:200]}")
        name = config["class_name"]
        if name == "function":
            fn = find_function(config, {**_losses.ALL_OBJECTS_DICT, **_FUNCTIONS})
            if fn is None:
                raise ValueError(f"Unknown metric function {str(config.get('config'))[:200]!r}")
            return fn
        registered = config.get("registered_name")
        cls = find_object(registered) if isinstance(registered, str) and registered != name else None
        cls = cls or find_object(name, loose=False) or ALL_OBJECTS_DICT.get(name) or find_object(name)
        if cls is None:
            raise ValueError(f"Unknown metric class {name[:200]!r}. Known names: {', '.join(sorted(ALL_OBJECTS_DICT))}, "
                             "or one registered with descend.saving.register_serializable or passed in custom_objects")
        inner = config.get("config") or {}
        if not isinstance(inner, dict):
            raise ValueError(f"The config of metric {name!r} must be a dict. Received: {str(inner)[:200]}")
        return cls.from_config(dict(inner))


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
ALL_OBJECTS_DICT.update({_losses._to_snake_case(cls.__name__): cls for cls in _MORE})
register_builtins("metrics", ALL_OBJECTS_DICT)
_FUNCTIONS.update({f.__name__: f for f in (pearson_correlation, concordance_correlation)})
__all__ += [cls.__name__ for cls in _MORE] + [
    "pearson_correlation", "concordance_correlation", "binary_crossentropy", "binary_focal_crossentropy",
    "categorical_crossentropy", "categorical_focal_crossentropy", "sparse_categorical_crossentropy",
    "categorical_hinge", "hinge", "squared_hinge", "huber", "kl_divergence", "log_cosh", "poisson",
    "mean_absolute_error", "mean_absolute_percentage_error", "mean_squared_error", "mean_squared_logarithmic_error",
]
