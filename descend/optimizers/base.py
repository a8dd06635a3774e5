"""``Optimizer``: all the bookkeeping, so that an optimizer is only its update rule.

The base class owns: hyperparameters (numbers, callables or schedules, with
validation), ``iterations``, lazy slot creation, validation of every gradient
before anything changes, de-duplication of sparse indices, clipping,
decoupled weight decay, constraints, configuration and state.

There are two ways to write an optimizer (see ``docs/writing_an_optimizer.md``):

* **The short way.** Declare slots and hyperparameters and a pure,
  elementwise rule ``update(param, grad, *slots, **coefficients) ->
  (new_param, *new_slots)``. The base class applies it to whole arrays for
  dense gradients, to the gathered rows for sparse ones, and (with numba) as
  one fused kernel.
* **The hook way.** Override ``create_slots(var_list)``, ``apply_dense(grad,
  var)`` and ``apply_sparse(grad_values, var, indices)`` and update the
  variables yourself with ops and ``assign``. TensorFlow's private spelling
  (``_create_slots``, ``_resource_apply_dense``, ``_resource_apply_sparse``,
  ``_set_hyper``, ``_get_hyper``, ``_decayed_lr``, ...) works too.
"""

from __future__ import annotations

import math
import operator
import warnings
from typing import Callable, Iterable

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices, deduplicate
from ..framework.tape import GradientTape
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable, no_name_scope
from ..ops import clip_ops
from . import fused, schedules
from .accumulation import GradientAccumulator

__all__ = ["Optimizer", "Slot"]

_NUMBER = (int, float, np.integer, np.floating)
# ranges that hold for any optimizer, also when a subclass sets these with TF's _set_hyper
_DEFAULT_RANGES = {"learning_rate": (0, None, False, False), "weight_decay": (0, None, False, False)}


class Slot:
    """A slot declaration: ``Slot("m")`` starts at zeros, ``Slot("rms", "ones")`` at ones,
    ``Slot("acc", 0.1)`` at a constant, or ``Slot("x", callable(shape, dtype))``."""

    __slots__ = ("name", "initializer")

    def __init__(self, name: str, initializer="zeros"):
        self.name = name
        self.initializer = initializer

    def __repr__(self):
        return f"Slot({self.name!r}, {self.initializer!r})"


def _initial_value(initializer, shape, dtype):
    if isinstance(initializer, str):
        if initializer == "zeros":
            return np.zeros(shape, dtype)
        if initializer == "ones":
            return np.ones(shape, dtype)
        raise ValueError(f"Unknown slot initializer {initializer!r}; expected 'zeros', 'ones', a number or a callable")
    if isinstance(initializer, _NUMBER):
        return np.full(shape, initializer, dtype)
    if callable(initializer):
        return np.asarray(to_array(initializer(shape, dtype)), dtype=dtype)
    if isinstance(initializer, (Tensor, Variable, np.ndarray)):
        return np.array(initializer, dtype=dtype)
    raise ValueError(f"Unknown slot initializer {initializer!r}")


_VALUE = operator.attrgetter("_value")


def _decay(var: Variable, rows, d) -> None:
    """Decoupled weight decay ``var <- var - var * d`` (only the rows ``rows`` when not None; 0: none),
    as the fused kernels compute it."""
    if not d:
        return
    if rows is None:
        var._value -= var._value * d
    else:
        var._value[rows] -= var._value[rows] * d
    var._mark_updated()


def _fmt(v):
    return repr(float(v)) if isinstance(v, _NUMBER) else repr(v)


class Optimizer:
    """Base class of every optimizer (Keras 3 API, plus TF's private hooks).

    Args:
        learning_rate: a number, a zero-argument callable, or a
            :class:`~descend.optimizers.schedules.LearningRateSchedule`.
        weight_decay: decoupled weight decay, ``var -= lr * weight_decay * var``
            before each update (Keras 3's order); a number or schedule.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to ``[-clipvalue, clipvalue]``.
        global_clipnorm: clip all gradients together to this global norm.
        sparse_updates: ``"exact"`` (a sparse update equals the dense update
            with zero rows elsewhere) or ``"lazy"`` (only the gradient's rows
            and their slots change). The default depends on the optimizer.
        gradient_accumulation_steps: apply every k-th call to
            ``apply_gradients`` with the (weighted) mean of the k gradients;
            the other calls only accumulate. ``iterations``, schedules,
            clipping and weight decay advance once per applied update, so k
            micro-batches equal one step on their concatenation.
        on_nonfinite: what a NaN or Inf gradient does: ``"raise"`` (default,
            naming the variable), ``"skip"`` (the step changes nothing;
            ``skipped_steps`` counts it), ``"zero"`` (non-finite elements
            become 0) or ``"apply"`` (no check: the values are applied, as
            TensorFlow, Keras and PyTorch do; saves one read of every
            gradient per step).
        name: the optimizer's name (prefix of its ``iterations`` variable).
    """

    #: slot declarations of the short way; override ``slot_specs()`` when they depend on arguments
    slots: tuple = ()
    #: the sparse mode used when ``sparse_updates`` is not given
    default_sparse_updates: str = "exact"
    #: True when ``update`` with a zero gradient changes nothing; then exact
    #: sparse updates cost only the touched rows (exact == lazy)
    zero_grad_is_identity: bool = False

    def __init__(self, learning_rate=0.001, *, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, sparse_updates: str | None = None,
                 gradient_accumulation_steps: int | None = None, on_nonfinite: str = "raise",
                 name: str | None = None, **kwargs):
        if isinstance(learning_rate, str):  # Keras 2 / TF spelling: Optimizer(name, **kwargs)
            name, learning_rate = learning_rate, kwargs.pop("learning_rate", None)
        if "lr" in kwargs:  # Keras 2 alias
            learning_rate = kwargs.pop("lr")
        if kwargs:
            raise TypeError(f"{type(self).__name__}: argument(s) not recognized: {sorted(kwargs)}")
        object.__setattr__(self, "_hyper", {})
        self._hyper_ranges: dict = {}
        self._name = name or type(self).__name__.lower()
        if learning_rate is not None:
            self.add_hyperparameter("learning_rate", learning_rate, low=0)
        if weight_decay is not None:
            self.add_hyperparameter("weight_decay", weight_decay, low=0)
        for arg, v in (("clipnorm", clipnorm), ("clipvalue", clipvalue), ("global_clipnorm", global_clipnorm)):
            if v is not None and not (isinstance(v, _NUMBER) and math.isfinite(v) and v >= 0):
                raise ValueError(f"`{arg}` must be a non-negative finite number. Received: {arg}={v!r}")
        if sum(v is not None for v in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}"
            )
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        mode = self.default_sparse_updates if sparse_updates is None else sparse_updates
        if mode not in ("exact", "lazy"):
            raise ValueError(f"`sparse_updates` must be 'exact' or 'lazy'. Received: sparse_updates={sparse_updates!r}")
        self.sparse_updates = mode
        k = gradient_accumulation_steps
        if k is not None and not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1):
            raise ValueError(f"`gradient_accumulation_steps` must be an integer >= 1. "
                             f"Received: gradient_accumulation_steps={k!r}")
        self.gradient_accumulation_steps = None if k is None else int(k)
        if on_nonfinite not in ("raise", "skip", "zero", "apply"):
            raise ValueError("`on_nonfinite` must be 'raise', 'skip', 'zero' or 'apply'. "
                             f"Received: on_nonfinite={on_nonfinite!r}")
        self.on_nonfinite = on_nonfinite
        self.skipped_steps = 0
        self._accumulator = GradientAccumulator()
        self._accum_vars: list | None = None
        self._accum_pending: dict | None = None
        with no_name_scope():
            self._iterations = Variable(np.int64(0), name=f"{self._name}/iterations", trainable=False)
        self._slot_store: dict[int, tuple[Variable, dict[str, Variable]]] = {}
        self._slot_names: list[str] = []
        self._nonslot: dict[str, Variable] = {}
        self._deferred: dict[str, np.ndarray] = {}
        self._deferred_warned = False
        self._decay_excluded_ids: set[int] = set()
        self._decay_excluded_names: tuple[str, ...] = ()
        self._coefficients: dict = {}
        self._last_hyper: dict = {}
        self._owner = None  # a MultiOptimizer routing variables to this optimizer

    # ------------------------------------------------------------------ hyperparameters
    def add_hyperparameter(self, name: str, value, *, low=None, high=None, low_open: bool = False,
                           high_open: bool = False) -> None:
        """Declare a hyperparameter: a number, a zero-argument callable or a schedule.

        Numbers are checked now against ``[low, high]`` (open ends with
        ``low_open``/``high_open``); callables and schedules at each step.
        """
        self._hyper_ranges[name] = (low, high, low_open, high_open)
        self._set_hyper(name, value)

    def _check_range(self, name, v):
        if not math.isfinite(v):
            raise ValueError(f"`{name}` must be a finite number. Received: {name}={v!r}")
        low, high, lo_open, hi_open = self._hyper_ranges.get(name, _DEFAULT_RANGES.get(name, (None, None, False, False)))
        bad = (low is not None and (v < low or (lo_open and v == low))) or (
            high is not None and (v > high or (hi_open and v == high)))
        if bad:
            lo = "-inf" if low is None else low
            hi = "inf" if high is None else high
            rng = f"{'(' if lo_open or low is None else '['}{lo}, {hi}{')' if hi_open or high is None else ']'}"
            raise ValueError(f"`{name}` must be in {rng}. Received: {name}={_fmt(v)}")

    def _set_hyper(self, name: str, value) -> None:
        """Set a hyperparameter (TF's spelling; ``lr`` means ``learning_rate``)."""
        name = "learning_rate" if name == "lr" else name
        if isinstance(value, (Tensor, Variable)):
            value = float(value)
        if isinstance(value, _NUMBER) and not isinstance(value, bool):
            self._check_range(name, float(value))
            value = float(value)
        elif not (isinstance(value, schedules.LearningRateSchedule) or callable(value)):
            raise TypeError(
                f"`{name}` must be a number, a zero-argument callable or a LearningRateSchedule. "
                f"Received: {name}={value!r}"
            )
        self._hyper[name] = value

    def _resolve(self, name: str, step: int) -> float:
        value = self._hyper[name]
        if isinstance(value, float):
            return value
        v = value(step) if isinstance(value, schedules.LearningRateSchedule) else value()
        v = float(v)
        self._check_range(name, v)
        return v

    def get_hyper(self, name: str) -> float:
        """The value ``name`` has at the current step (schedules evaluated)."""
        name = "learning_rate" if name == "lr" else name
        if name not in self._hyper:
            raise KeyError(f"{type(self).__name__} has no hyperparameter '{name}'. It has: {sorted(self._hyper)}")
        return self._resolve(name, int(self._iterations._value))

    def current_hyper(self, name: str) -> float:
        """The value ``name`` had in the most recent update (for logging and plots);
        before the first update, its value at step 0."""
        name = "learning_rate" if name == "lr" else name
        if name in self._last_hyper:
            return self._last_hyper[name]
        return self.get_hyper(name)

    def _get_hyper(self, name: str, dtype=None) -> Tensor:
        """TF's spelling: the current value as a Tensor (of ``dtype``)."""
        v = self.get_hyper(name)
        return Tensor(np.asarray(v, dtype=backend.floatx() if dtype is None else backend.np_dtype(dtype)))

    def _decayed_lr(self, var_dtype) -> Tensor:
        """TF's spelling: the learning rate at the current step, as a Tensor of ``var_dtype``."""
        return self._get_hyper("learning_rate", var_dtype)

    def _serialize_hyperparameter(self, name: str):
        name = "learning_rate" if name == "lr" else name
        value = self._hyper[name]
        if isinstance(value, schedules.LearningRateSchedule):
            return schedules.serialize(value)
        if callable(value):
            return float(value())
        return value

    def __getattr__(self, name):
        hyper = self.__dict__.get("_hyper")
        if hyper is not None and name in hyper:
            return hyper[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        hyper = self.__dict__.get("_hyper")
        if hyper is not None and name in hyper:
            self._set_hyper(name, value)
        else:
            object.__setattr__(self, name, value)

    @property
    def learning_rate(self) -> float:
        """The learning rate at the current step; assign a number or schedule to change it."""
        return self.get_hyper("learning_rate")

    @learning_rate.setter
    def learning_rate(self, value):
        self._set_hyper("learning_rate", value)

    lr = learning_rate

    @property
    def weight_decay(self):
        return self._hyper.get("weight_decay")

    @property
    def name(self) -> str:
        return self._name

    @property
    def iterations(self) -> Variable:
        """The number of updates applied so far (an int64 Variable)."""
        return self._iterations

    # ------------------------------------------------------------------ slots
    def slot_specs(self) -> tuple:
        """The slots of the short way (default: the ``slots`` class attribute)."""
        return tuple(s if isinstance(s, Slot) else Slot(s) for s in self.slots)

    def add_slot(self, var: Variable, slot_name: str, initializer="zeros", shape=None, dtype=None) -> Variable:
        """Create (once) and return the slot ``slot_name`` of ``var``, named ``var.name/slot_name``."""
        _, slots = self._slot_store.setdefault(id(var), (var, {}))
        if slot_name in slots:
            return slots[slot_name]
        key = f"{var.name}/{slot_name}"
        shape = var.shape if shape is None else tuple(shape)
        dtype = var._value.dtype if dtype is None else backend.np_dtype(dtype)
        if key in self._deferred:
            value = self._deferred.pop(key)
            if value.shape != shape or value.dtype != dtype:
                raise ValueError(
                    f"restored state '{key}' has shape {value.shape} and dtype {value.dtype}; the slot needs "
                    f"shape {shape} and dtype {np.dtype(dtype).name}"
                )
        else:
            value = _initial_value(initializer, shape, dtype)
        with no_name_scope():
            slot = Variable(value, name=key, trainable=False)
        slots[slot_name] = slot
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)
        return slot

    def get_slot(self, var, slot_name: str) -> Variable:
        """The slot ``slot_name`` of ``var`` (a Variable or a variable's name)."""
        entry = self._find_var(var)
        if entry is None:
            name = var if isinstance(var, str) else getattr(var, "name", var)
            raise KeyError(f"{self._name} has no slots for variable '{name}' (it has not updated it yet)")
        v, slots = entry
        if slot_name not in slots:
            raise KeyError(f"variable '{v.name}' has no slot '{slot_name}'. Its slots: {sorted(slots)}")
        return slots[slot_name]

    def _find_var(self, var):
        if isinstance(var, str):
            for v, slots in self._slot_store.values():
                if v.name == var:
                    return v, slots
            return None
        return self._slot_store.get(id(var))

    def get_slot_names(self) -> list[str]:
        """Names of the slots this optimizer has created (declaration order)."""
        names = list(self._slot_names)
        for s in self.slot_specs():
            if s.name not in names:
                names.append(s.name)
        return names

    def add_non_slot_variable(self, name: str, initial_value) -> Variable:
        """Create (once) optimizer state that belongs to no variable (e.g. TF1 Adam's beta powers)."""
        if name not in self._nonslot:
            value = self._deferred.pop(name, None)
            with no_name_scope():
                self._nonslot[name] = Variable(initial_value if value is None else value,
                                               name=f"{self._name}/{name}", trainable=False)
        return self._nonslot[name]

    def variables(self) -> list[Variable]:
        """Every variable the optimizer owns: iterations, non-slot state, then slots by variable."""
        out = [self._iterations] + [self._nonslot[k] for k in self._nonslot]
        for _, slots in self._slot_store.values():
            out.extend(slots.values())
        return out

    def build(self, var_list: Iterable[Variable]) -> None:
        """Create the slots of ``var_list`` (called on the first update of each variable)."""
        new = [v for v in var_list if id(v) not in self._slot_store]
        if not new:
            return
        self._check_deferred_shapes(new)
        for v in new:
            self._slot_store[id(v)] = (v, {})
        self.create_slots(new)
        if self._deferred and not self._deferred_warned:
            self._deferred_warned = True
            warnings.warn(
                f"restored optimizer state {sorted(self._deferred)} matches none of the variables this optimizer "
                "has built; it is kept until variables of those names appear (assert_state_consumed() checks)",
                stacklevel=4)

    def assert_state_consumed(self) -> None:
        """Raise if restored state is still waiting for variables that never appeared."""
        if self._deferred:
            raise ValueError(f"restored optimizer state was never used: {sorted(self._deferred)}")

    def create_slots(self, var_list: list[Variable]) -> None:
        """Create slots for new variables: TF's ``_create_slots`` if defined, else ``slot_specs()``."""
        tf_hook = getattr(self, "_create_slots", None)
        if tf_hook is not None:
            tf_hook(var_list)
            return
        specs = self.slot_specs()
        for var in var_list:
            for spec in specs:
                self.add_slot(var, spec.name, spec.initializer)

    def _check_deferred_shapes(self, new_vars):
        specs = {s.name for s in self.slot_specs()}
        for v in new_vars:
            for s in specs:
                value = self._deferred.get(f"{v.name}/{s}")
                if value is not None and value.shape != v.shape:
                    raise ValueError(
                        f"restored state '{v.name}/{s}' has shape {value.shape}; variable '{v.name}' has "
                        f"shape {v.shape}"
                    )

    # ------------------------------------------------------------------ weight decay
    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Exempt variables from weight decay: by identity, or by a name substring (Keras 3)."""
        self._decay_excluded_ids |= {id(v) for v in (var_list or [])}
        self._decay_excluded_names = tuple(self._decay_excluded_names) + tuple(var_names or ())

    def _use_weight_decay(self, var: Variable) -> bool:
        if id(var) in self._decay_excluded_ids:
            return False
        return not any(n in var.name for n in self._decay_excluded_names)

    def _decay_factor(self, var: Variable, hyper: dict):
        """``d`` of the decoupled weight decay ``var <- var - var * d`` (0: none), in var's dtype."""
        wd = hyper.get("weight_decay")
        if not wd or not self._use_weight_decay(var):
            return 0.0
        t = var._value.dtype.type
        return t(wd) * t(hyper["learning_rate"])

    def _apply_weight_decay(self, var: Variable, rows, hyper: dict) -> None:
        """Decay ``var`` (only the rows ``rows`` when not None) before its update.

        The fused kernels apply the default decay themselves; a subclass that
        decays another way overrides this method, which then runs before the rule."""
        _decay(var, rows, self._decay_factor(var, hyper))

    # ------------------------------------------------------------------ the update
    def minimize(self, loss, var_list, tape: GradientTape | None = None):
        """Compute gradients of ``loss`` and apply them; returns ``iterations``.

        Args:
            loss: a zero-argument callable returning the loss, or a Tensor
                computed under ``tape``.
            var_list: the variables to train (or a callable returning them).
            tape: the tape that recorded ``loss`` when it is a Tensor.
        """
        self.apply_gradients(self.compute_gradients(loss, var_list, tape=tape))
        return self._iterations

    def compute_gradients(self, loss, var_list, tape: GradientTape | None = None) -> list:
        """``[(gradient, variable), ...]`` of ``loss`` for ``var_list``."""
        if callable(var_list):
            var_list = var_list()
        var_list = list(var_list)
        if callable(loss):
            with GradientTape() as tape:
                tape.watch(var_list)
                loss = loss()
        elif tape is None:
            raise ValueError("`loss` is a Tensor: pass the `tape` that recorded it, or pass a callable")
        grads = tape.gradient(loss, var_list)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, *, weight: float | None = None):
        """Apply ``(gradient, variable)`` pairs; returns ``iterations``.

        Every gradient is validated before anything changes: if one is bad,
        no variable, slot or counter is touched. ``None`` gradients are
        skipped with a warning naming their variables.

        Args:
            grads_and_vars: iterable of ``(gradient, Variable)``; a gradient is
                a Tensor, an array or an ``IndexedSlices``.
            weight: with ``gradient_accumulation_steps``, this micro-batch's
                weight (its example or token count): the applied gradient is
                ``sum(w_i g_i) / sum(w_i)``. Default 1.
        """
        pairs = self._validate(grads_and_vars)
        pairs = self._check_finite(pairs)
        if pairs is None:
            self.skipped_steps += 1
            return self._iterations
        pairs = self._prepare(pairs, weight)
        if pairs is not None:
            self._apply(pairs)
            self._end_cycle()
        return self._iterations

    def _prepare(self, pairs, weight):
        """Accumulate (returning None on a micro-step), then de-duplicate and clip."""
        if self.gradient_accumulation_steps is not None:
            pairs = self._accumulate(pairs, weight)
            if pairs is None:
                return None
        elif weight is not None:
            raise ValueError("apply_gradients: `weight` is only used with gradient_accumulation_steps")
        return self._process_gradients(pairs)

    def _end_cycle(self):
        # the accumulator is cleared only once its update has been applied
        if self.gradient_accumulation_steps is not None:
            self._accumulator.reset()

    def _check_finite(self, pairs):
        """Apply the ``on_nonfinite`` policy; ``None`` means skip the step."""
        if self.on_nonfinite == "apply":
            return pairs
        arrays = [g.values._value if isinstance(g, IndexedSlices) else g._value for g, _ in pairs]
        first = fused.find_nonfinite(arrays) if self.use_fused else None  # one parallel pass over all
        if first is None:
            # the sum is a fast pre-check: it is finite unless an element is not (or it overflows)
            first = next((k for k, a in enumerate(arrays) if not (np.isfinite(np.sum(a)) or np.isfinite(a).all())), -1)
        if first < 0:
            return pairs
        if self.on_nonfinite == "raise":
            bad = "NaN" if np.isnan(arrays[first]).any() else "Inf"
            raise InvalidArgumentError(
                f"gradient for variable '{pairs[first][1].name}' contains {bad} (on_nonfinite='raise'); "
                "nothing was updated. Use on_nonfinite='skip' or 'zero' to carry on"
            )
        if self.on_nonfinite == "skip":
            return None
        for k in range(first, len(pairs)):
            g, var = pairs[k]
            arr = arrays[k]
            finite = np.isfinite(arr)
            if finite.all():
                continue
            clean = np.where(finite, arr, arr.dtype.type(0))
            g = IndexedSlices(Tensor(clean), g.indices, g.dense_shape) if isinstance(g, IndexedSlices) else Tensor(clean)
            pairs[k] = (g, var)
        return pairs

    def _accumulate(self, pairs, weight):
        """Add a micro-batch; return the pairs to apply at the end of a cycle, else None."""
        acc = self._accumulator
        if acc.step == 0 and self._accum_pending is None:
            self._accum_vars = [v for _, v in pairs]
            acc._sums = None
        elif self._accum_pending is not None:
            self._restore_accumulator(pairs)
        index = {id(v): i for i, v in enumerate(self._accum_vars)}
        grads = [None] * len(self._accum_vars)
        for g, v in pairs:
            i = index.get(id(v))
            if i is None:
                raise ValueError(
                    f"variable '{v.name}' has a gradient in micro-step {acc.step + 1} of an accumulation cycle but "
                    f"not in its first; expected only {[x.name for x in self._accum_vars]}"
                )
            grads[i] = g
        acc(grads, 1.0 if weight is None else weight)
        if acc.step < self.gradient_accumulation_steps:
            return None
        means = acc.mean()
        return [(g, v) for g, v in zip(means, self._accum_vars) if g is not None]

    def _restore_accumulator(self, pairs):
        state, self._accum_pending = self._accum_pending, None
        by_name = {v.name: v for _, v in pairs}
        by_name.update({v.name: v for v, _ in self._slot_store.values()})
        names = GradientAccumulator.names_in_state(state)
        missing = [n for n in names if n not in by_name]
        if missing:
            raise ValueError(f"restored accumulator holds sums for variables {missing} that this update does not "
                             "name and this optimizer has not seen")
        extra = [v for _, v in pairs if v.name not in names]
        self._accum_vars = [by_name[n] for n in names] + extra
        self._accumulator.load_state_dict(state, [v.name for v in self._accum_vars])

    def _validate(self, grads_and_vars) -> list:
        pairs, skipped, seen = [], [], set()
        for item in grads_and_vars:
            try:
                grad, var = item
            except (TypeError, ValueError):
                raise TypeError(f"apply_gradients expects (gradient, variable) pairs. Received: {item!r}") from None
            if not isinstance(var, Variable):
                raise TypeError(f"apply_gradients: expected a descend.Variable. Received: {type(var).__name__}")
            if id(var) in seen:
                raise ValueError(f"apply_gradients: variable '{var.name}' appears more than once")
            seen.add(id(var))
            if self._owner is not None:
                self._owner._check_route(self, var)
            if grad is None:
                skipped.append(var)
                continue
            if type(grad) is Tensor:  # the common case, checked inline: a float Tensor of var's dtype and shape
                gv, vv = grad._value, var._value
                if gv.dtype is vv.dtype and gv.shape == vv.shape and vv.dtype.kind == "f":
                    pairs.append((grad, var))
                    continue
            pairs.append((self._check_gradient(grad, var), var))
        if not pairs:
            names = [v.name for v in skipped]
            raise ValueError(f"No gradients provided for any variable: {names}")
        if skipped:
            warnings.warn(
                f"Gradients do not exist for variables {[v.name for v in skipped]} when minimizing the loss; "
                "they are left unchanged", stacklevel=3)
        return pairs

    @staticmethod
    def _check_gradient(grad, var: Variable):
        vd = var._value.dtype
        if vd.kind != "f":
            raise TypeError(f"variable '{var.name}' has dtype {vd.name}; optimizers update floating-point variables")
        if isinstance(grad, IndexedSlices):
            gd = grad.values._value.dtype
            if gd != vd:
                raise TypeError(f"gradient for variable '{var.name}': expected dtype {vd.name}, received {gd.name}")
            if tuple(grad.dense_shape) != var.shape:
                raise ValueError(f"gradient for variable '{var.name}': expected shape {var.shape}, "
                                 f"received IndexedSlices of dense_shape {tuple(grad.dense_shape)}")
            idx = grad.indices._value
            if idx.size and (idx.min() < 0 or idx.max() >= var.shape[0]):
                bad = idx[(idx < 0) | (idx >= var.shape[0])][0]
                raise InvalidArgumentError(f"gradient for variable '{var.name}': index {int(bad)} is not in "
                                           f"[0, {var.shape[0]})")
            return grad
        if isinstance(grad, Variable):
            grad = Tensor(grad._value.copy())
        elif not isinstance(grad, Tensor):
            arr = np.asarray(grad)
            if arr.dtype.kind not in "fiu":
                raise TypeError(f"gradient for variable '{var.name}': expected a numeric array. Received {grad!r}")
            grad = Tensor(arr.astype(vd) if not isinstance(grad, np.ndarray) else arr)
        gd = grad._value.dtype
        if gd != vd:
            raise TypeError(f"gradient for variable '{var.name}': expected dtype {vd.name}, received {gd.name}")
        if grad.shape != var.shape:
            raise ValueError(f"gradient for variable '{var.name}': expected shape {var.shape}, received {grad.shape}")
        return grad

    def _process_gradients(self, pairs: list) -> list:
        """De-duplicate sparse gradients, then clip (Keras 3 order)."""
        pairs = [(deduplicate(g) if isinstance(g, IndexedSlices) else g, v) for g, v in pairs]
        if self.clipnorm is not None:
            pairs = [(clip_ops.clip_by_norm(g, self.clipnorm), v) for g, v in pairs]
        elif self.clipvalue is not None:
            pairs = [(clip_ops.clip_by_value(g, -self.clipvalue, self.clipvalue), v) for g, v in pairs]
        elif self.global_clipnorm is not None:
            clipped, _ = clip_ops.clip_by_global_norm([g for g, _ in pairs], self.global_clipnorm)
            pairs = list(zip(clipped, [v for _, v in pairs]))
        return pairs

    def _apply(self, pairs: list) -> None:
        step = int(self._iterations._value)
        hyper = {name: self._resolve(name, step) for name in self._hyper}
        self.build([v for _, v in pairs])
        self._last_hyper = hyper
        self._coefficients = {}
        cls = type(self)
        # the short way's rule takes the decay into its kernel unless a subclass decays its own way
        own_decay = cls._apply_weight_decay is not Optimizer._apply_weight_decay
        rule_dense = cls.apply_dense is Optimizer.apply_dense and getattr(self, "_resource_apply_dense", None) is None
        rule_rows = (cls.apply_sparse is Optimizer.apply_sparse and getattr(self, "_resource_apply_sparse", None) is None
                     and (self.sparse_updates == "lazy" or self.zero_grad_is_identity))
        dense = []  # (gradient, variable, decay) of the dense updates: one kernel call for all of them
        for grad, var in pairs:
            sparse = isinstance(grad, IndexedSlices)
            by_rule = rule_rows if sparse else rule_dense
            if by_rule and not own_decay:
                decay = self._decay_factor(var, hyper)
            else:
                decay = 0.0
                self._apply_weight_decay(var, grad.indices._value if sparse and self.sparse_updates == "lazy" else None,
                                         hyper)
            if not by_rule:
                if sparse:
                    self.apply_sparse(grad.values, var, grad.indices)
                else:
                    self.apply_dense(grad, var)
            elif sparse:
                self._rule_rows(grad.values._value, var, grad.indices._value, decay)
            else:
                dense.append((grad._value, var, decay))
        if dense:
            self._rule_dense(dense)
        for _, var in pairs:
            if var._constraint is not None:
                var.assign(var._constraint(var))
        self._iterations._value += 1
        self._iterations._mark_updated()

    # ------------------------------------------------------------------ the short way
    #: the pure elementwise rule ``update(param, grad, *slots, **coefficients)``;
    #: subclasses of the short way set it (as a staticmethod or by overriding ``update_rule``)
    update = None

    @property
    def update_rule(self) -> Callable | None:
        """The rule applied to (param, grad, *slots); default: ``update``."""
        return type(self).update

    def coefficients(self, step: int, hyper: dict, dtype) -> dict:
        """Per-step scalars the rule needs, computed once per update and dtype.

        ``hyper`` holds the hyperparameters' values at this step as Python
        floats and ``step`` is ``iterations`` before the update. Cast with
        ``dtype.type(x)`` what the reference implementation computes in the
        variable's dtype (Keras casts the learning rate and Adam's beta
        powers); leave the rest as Python floats, which NumPy treats as weak
        scalars (``1 - beta_1`` is then computed in double and rounded once,
        as Keras does). Default: every hyperparameter except ``weight_decay``.
        """
        return {k: v for k, v in hyper.items() if k != "weight_decay"}

    def _coeffs_for(self, dtype) -> dict:
        c = self._coefficients.get(dtype)
        if c is None:
            c = self.coefficients(int(self._iterations._value), dict(self._last_hyper), dtype)
            # a NumPy scalar of another dtype (np.sqrt of a Python float is float64) would promote
            # float32 arrays: demote it to a weak Python float
            c = {k: float(v) if isinstance(v, np.floating) and v.dtype != dtype else v for k, v in c.items()}
            self._coefficients[dtype] = c
        return c

    def _slot_arrays(self, var) -> list[np.ndarray]:
        slots = self._slot_store[id(var)][1]
        return [slots[s.name]._value for s in self.slot_specs()]

    def apply_dense(self, grad: Tensor, var: Variable) -> None:
        """Update ``var`` with a dense gradient (override for the hook way)."""
        tf_hook = getattr(self, "_resource_apply_dense", None)
        if tf_hook is not None:
            tf_hook(grad, var)
            return
        self._rule_dense([(grad._value, var, 0.0)])

    def apply_sparse(self, grad_values: Tensor, var: Variable, indices: Tensor) -> None:
        """Update ``var`` with the rows ``indices`` (unique, sorted) of a sparse gradient."""
        tf_hook = getattr(self, "_resource_apply_sparse", None)
        if tf_hook is not None:
            tf_hook(grad_values, var, indices)
            return
        idx = indices._value
        if self.sparse_updates == "lazy" or self.zero_grad_is_identity:
            self._rule_rows(grad_values._value, var, idx)
        else:  # exact: the dense rule with zero gradient rows elsewhere
            dense = np.zeros_like(var._value)
            dense[idx] = grad_values._value
            self._rule_dense([(dense, var, 0.0)], self.exact_sparse_rule)

    #: the rule of the exact sparse path when a reference computes it in another arithmetic order than
    #: its dense path (TF1's sparse Adam: m*b1 + scatter(g*(1-b1))); None: the update rule
    exact_sparse_rule = None

    def _rule(self, rule=None):
        rule = rule or self.update_rule
        if rule is None:
            raise NotImplementedError(
                f"{type(self).__name__} defines no update rule: set `update` (the short way) or override "
                "apply_dense/apply_sparse (or TF's _resource_apply_dense/_resource_apply_sparse)"
            )
        return rule

    #: apply the rule as one fused numba kernel when possible (see ``descend.optimizers.fused``)
    use_fused: bool = True

    def _kernel(self, rule):
        return fused.kernel_for(rule) if self.use_fused and fused.enabled() else None

    def _rule_dense(self, items: list, rule=None) -> None:
        """Apply the rule to dense ``(gradient array, variable, decay factor)`` items,
        decaying first (``var <- var - var * decay``): one fused kernel call for all
        the variables of a dtype, else NumPy variable by variable."""
        rule = self._rule(rule)
        names = [s.name for s in self.slot_specs()]
        store = self._slot_store
        kernel = self._kernel(rule)
        by_dtype: dict = {}  # dtype -> the items' (param, grad, slot arrays, decay, variables to bump)
        for g, var, decay in items:
            slot_vars = store[id(var)][1]
            slot_vars = [slot_vars[n] for n in names]
            group = by_dtype.get(var._value.dtype)
            if group is None:
                group = by_dtype[var._value.dtype] = ([], [], [], [], [])
            group[0].append(var._value)
            group[1].append(g)
            group[2].append(list(map(_VALUE, slot_vars)))
            group[3].append(decay)
            group[4].append((var, slot_vars))
        for dtype, (params, grads, slots, decays, owners) in by_dtype.items():
            coefficients = self._coeffs_for(dtype)
            if kernel is not None and kernel.apply_dense(params, grads, slots, decays, coefficients):
                for var, slot_vars in owners:  # record the in-place writes (Variable._mark_updated, inlined)
                    var._version += 1
                    for s in slot_vars:
                        s._version += 1
                continue
            for param, g, slot_arrays, decay, (var, _) in zip(params, grads, slots, decays, owners):
                # the NumPy reference path
                _decay(var, None, decay)
                storage = [param] + slot_arrays
                out = self._check_outputs(rule(param, g, *slot_arrays, **coefficients), slot_arrays)
                # a rule may return an input unchanged (pv <- param): copy it before the writes overwrite it
                out = [o.copy() if any(o is a for a in storage) else o for o in out]
                for dst, new in zip(storage, out):
                    dst[...] = new
                self._bump(var)

    def _rule_rows(self, g: np.ndarray, var: Variable, idx: np.ndarray, decay=0.0) -> None:
        """Apply the rule to the rows ``idx`` (unique) of ``var`` and its slots, decaying them first."""
        slots = self._slot_arrays(var)
        kernel = self._kernel(self._rule())
        if kernel is not None and kernel.apply_rows(var._value, g, slots, self._coeffs_for(var._value.dtype), idx,
                                                    decay):
            self._bump(var)
            return
        _decay(var, idx, decay)
        out = self._check_outputs(
            self._rule()(var._value[idx], g, *[s[idx] for s in slots], **self._coeffs_for(var._value.dtype)), slots)
        var._value[idx] = out[0]
        for s, new in zip(slots, out[1:]):
            s[idx] = new
        self._bump(var)

    def _check_outputs(self, out, slots):
        if not isinstance(out, (tuple, list)) or len(out) != 1 + len(slots):
            got = len(out) if isinstance(out, (tuple, list)) else type(out).__name__
            raise TypeError(
                f"{type(self).__name__}'s update rule must return (new_param, {', '.join('new_' + s.name for s in self.slot_specs())}) "
                f"-- {1 + len(slots)} values. Received: {got}"
            )
        return out

    def _bump(self, var):
        var._mark_updated()
        for slot in self._slot_store[id(var)][1].values():
            slot._mark_updated()

    # ------------------------------------------------------------------ config and state
    def get_config(self) -> dict:
        """A JSON-serializable dict of constructor arguments (schedules as nested dicts)."""
        config = {"name": self._name}
        for k in self._hyper:
            config[k] = self._serialize_hyperparameter(k)
        config.update(clipnorm=self.clipnorm, clipvalue=self.clipvalue, global_clipnorm=self.global_clipnorm,
                      sparse_updates=self.sparse_updates, gradient_accumulation_steps=self.gradient_accumulation_steps,
                      on_nonfinite=self.on_nonfinite)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        """Rebuild an optimizer from :meth:`get_config` output."""
        config = dict(config)
        for k, v in config.items():
            if isinstance(v, dict) and "class_name" in v:
                config[k] = schedules.deserialize(v, custom_objects)
        return cls(**config)

    def _state_variables(self) -> dict[str, Variable]:
        state = {"iterations": self._iterations}
        for k, v in self._nonslot.items():
            state[k] = v
        for var, slots in self._slot_store.values():
            for s, slot in slots.items():
                state[f"{var.name}/{s}"] = slot
        return state

    def state_dict(self) -> dict[str, np.ndarray]:
        """Copies of every piece of state, keyed ``iterations``, non-slot names,
        ``<variable name>/<slot name>``, ``skipped_steps`` and, mid-way through a
        gradient-accumulation cycle, ``accumulator:...`` partial sums."""
        out = {k: v.numpy() for k, v in self._state_variables().items()}
        out["skipped_steps"] = np.asarray(self.skipped_steps, np.int64)
        if self._accum_pending is not None:
            out.update({f"accumulator:{k}": np.array(v) for k, v in self._accum_pending.items()})
        elif self._accumulator.step:
            names = [v.name for v in self._accum_vars]
            out.update({f"accumulator:{k}": v for k, v in self._accumulator.state_dict(names).items()})
        return out

    def load_state_dict(self, state: dict) -> None:
        """Restore :meth:`state_dict` output.

        Slots of variables this optimizer has not updated yet are kept and
        handed to the slots when they are created (deferred restoration).
        Everything that can be checked now is checked first, and one error
        lists every missing, unexpected or mis-shaped entry; then nothing has
        changed.
        """
        state = dict(state)
        accum = {k[len("accumulator:"):]: np.array(state.pop(k)) for k in list(state) if k.startswith("accumulator:")}
        skipped = state.pop("skipped_steps", None)
        current = self._state_variables()
        built_vars = {v.name for v, _ in self._slot_store.values()}
        missing = [k for k in current if k not in state]
        unexpected, deferred, misshaped = [], {}, []
        for k, value in state.items():
            arr = np.asarray(value)
            if k in current:
                want = current[k]
                if arr.shape != want.shape:
                    misshaped.append(f"{k}: expected shape {want.shape}, received {arr.shape}")
                elif arr.dtype != want._value.dtype:
                    misshaped.append(f"{k}: expected dtype {want._value.dtype.name}, received {arr.dtype.name}")
            else:
                owner = k.rsplit("/", 1)[0]
                if "/" in k and owner not in built_vars:
                    deferred[k] = arr.copy()
                elif "/" not in k and not self._slot_store:
                    deferred[k] = arr.copy()  # non-slot state created on first update
                else:
                    unexpected.append(k)
        if missing or unexpected or misshaped:
            lines = [f"load_state_dict: the state does not match optimizer '{self._name}'"]
            if missing:
                lines.append(f"  missing: {missing}")
            if unexpected:
                lines.append(f"  unexpected: {unexpected}")
            if misshaped:
                lines.append(f"  mis-shaped: {misshaped}")
            raise ValueError("\n".join(lines))
        for k, var in current.items():
            var._value[...] = state[k]
            var._mark_updated()
        self._deferred.update(deferred)
        self._deferred_warned = False
        if skipped is not None:
            self.skipped_steps = int(skipped)
        self._accumulator.reset()
        self._accum_pending = accum if accum else None

    def __repr__(self):
        return f"<{type(self).__name__} '{self._name}' iterations={int(self._iterations._value)}>"
