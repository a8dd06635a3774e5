"""The Metric base class (state in Variables, update/result/reset, configs), the sum and mean reductions
and the mean of a per-sample function (MeanMetricWrapper), with the helpers every metric shares."""

from __future__ import annotations

import inspect
import re

import numpy as np

from .. import backend
from ..losses import keras_losses as _losses
from ..persistence.object_config import find_function, function_name
from ..persistence.registry import builtin_objects
from ..framework import nest as _nest
from ..framework import trace as _trace
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import KerasVariable, Variable, name_scope

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
            var = KerasVariable(value, name=name or "variable", trainable=False, dtype=dt)
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
            base = names.get(id(v)) or v.scoped_name.rsplit("/", 1)[-1]
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


def config_functions() -> dict:
    """The functions a ``MeanMetricWrapper`` config names: the losses' and the metrics' own (registered by
    ``descend.losses`` and ``descend.metrics``, which define them)."""
    return {**builtin_objects("losses"), **builtin_objects("metric_functions")}


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
        config["fn"] = function_name(self._fn, config_functions())
        config.update(self._fn_kwargs)
        return config

    @classmethod
    def from_config(cls, config: dict):
        config = dict(config)
        if isinstance(config.get("fn"), str):
            fn = find_function(config["fn"], config_functions())
            if fn is None or inspect.isclass(fn):
                raise ValueError(f"Unknown metric function {config['fn']!r}")
            config["fn"] = fn
        return cls(**config)


class _BuiltinWrapper(_losses.ConfigFromArguments, MeanMetricWrapper):
    """A built-in metric class around a metric function (see :class:`~descend.losses.keras_losses.ConfigFromArguments`)."""
