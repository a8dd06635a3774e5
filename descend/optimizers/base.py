"""``Optimizer``: the one contract for writing an optimizer, and all the bookkeeping around it.

An optimizer is declared, not programmed (see ``docs/writing_an_optimizer.md``):

* **slots**: ``slot_specs()`` (or the ``slots`` class attribute) -- per-variable
  state such as Adam's ``m`` and ``v``, with an initial value and whether it
  must stay non-negative;
* **hyperparameters with ranges**: ``add_hyperparameter(name, value, low=...,
  high=...)`` in ``__init__``; numbers, zero-argument callables or schedules;
* **optimizer-level step state**: ``step_states()`` -- values such as Nadam's
  ``u_product`` or TF 1 Adam's beta powers, each with a pure ``advance``;
* **per-step coefficients**: ``coefficients(step, hyper, dtype)``, pure;
* **the rule**: ``update(param, grad, *slots, **coefficients) -> (new_param,
  *new_slots)``, pure; ``rule_kind`` says whether it is ``"elementwise"`` (then
  it also runs as one fused kernel and on gathered rows for sparse gradients)
  or ``"per_tensor"`` (it may reduce over the whole tensor, as LAMB's trust
  ratio);
* optionally a weight-decay form (``weight_decay_coefficients`` and
  ``weight_decay_rule``) and which variables decay (``use_weight_decay``).

The base class runs the update pipeline (``descend.optimizers.pipeline``):
``apply_gradients`` is ``commit(prepare(...))``, and ``prepare`` computes
everything that can fail without changing anything. TF 2's and Keras 3's ways
of subclassing (hooks that update variables themselves) are adapters in
``descend.optimizers.legacy`` and ``descend.optimizers.keras3``; a subclass
written in one of those spellings gets its adapter as base class automatically.
"""

from __future__ import annotations

import contextlib
import math
import warnings
import weakref
from dataclasses import dataclass
from typing import Callable, Iterable

import numpy as np

from .. import backend
from ..framework import trace as _trace
from ..framework.indexed_slices import IndexedSlices
from ..framework.tape import GradientTape
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable, no_name_scope
from . import accumulation, batched, exact_lazy, fused, pipeline, schedules
from .pipeline import ByVariable, UpdatePlan

__all__ = ["Optimizer", "Slot", "StateRestore", "StepState", "VariableList", "decoupled_decay", "initial_value",
           "register_subclass_style", "NUMBERS"]

#: ``(var) -> context manager`` entered while the slots of ``var`` are created, or None: ``descend.distribute``
#: sets it so that the slots of a rank-local variable (a sharded table's shard) are rank-local too
slot_scope: Callable | None = None

#: the Python and NumPy number types hyperparameters may be
NUMBERS = (int, float, np.integer, np.floating)
# ranges that hold for any optimizer whatever declares them
_DEFAULT_RANGES = {"learning_rate": (0, None, False, False), "weight_decay": (0, None, False, False)}


class Slot:
    """A slot declaration: ``Slot("m")`` starts at zeros, ``Slot("rms", "ones")`` at ones,
    ``Slot("acc", 0.1)`` at a constant, or ``Slot("x", callable(shape, dtype))``.

    ``nonnegative=True`` declares an invariant (second moments, accumulators): restoring a
    negative value is refused."""

    __slots__ = ("name", "initializer", "nonnegative")

    def __init__(self, name: str, initializer="zeros", *, nonnegative: bool = False):
        self.name = name
        self.initializer = initializer
        self.nonnegative = bool(nonnegative)

    def __repr__(self):
        return f"Slot({self.name!r}, {self.initializer!r}{', nonnegative=True' if self.nonnegative else ''})"


@dataclass(frozen=True)
class StepState:
    """Optimizer-level state advanced once per update (not per variable).

    Args:
        name: its name in ``state_dict()`` and ``hyper`` (``coefficients`` reads it there).
        initial: ``initial(hyper, dtype) -> array``: its value when first created.
        advance: ``advance(value, step, hyper) -> array``: pure; its value after one more update.
        dtype: ``"first"`` (the dtype of the first variable updated) or ``"smallest"``
            (the narrowest float dtype among them).
        advance_first: True when an update uses the advanced value (Nadam's ``u_product``),
            False when it uses the value before advancing (TF 1 Adam's beta powers).
    """

    name: str
    initial: Callable
    advance: Callable
    dtype: str = "first"
    advance_first: bool = True


def decoupled_decay(param, *, d):
    """Decoupled weight decay: ``param <- param - param * d`` (``d = lr * weight_decay``)."""
    return param - param * d


def initial_value(initializer, shape, dtype):
    """The array a slot declared with ``initializer`` starts at: 'zeros', 'ones', a number, an array or a
    callable ``(shape, dtype)``."""
    if isinstance(initializer, str):
        if initializer == "zeros":
            return np.zeros(shape, dtype)
        if initializer == "ones":
            return np.ones(shape, dtype)
        raise ValueError(f"Unknown slot initializer {initializer!r}; expected 'zeros', 'ones', a number or a callable")
    if isinstance(initializer, NUMBERS):
        return np.full(shape, initializer, dtype)
    if callable(initializer):
        value = np.array(to_array(initializer(shape, dtype)), dtype=dtype)
    elif isinstance(initializer, (Tensor, Variable, np.ndarray)):
        value = np.array(to_array(initializer), dtype=dtype)
    else:
        raise ValueError(f"Unknown slot initializer {initializer!r}")
    if value.shape != tuple(shape):
        raise ValueError(f"slot initializer {initializer!r} gave shape {value.shape}; expected {tuple(shape)}")
    return value


def _fmt(v):
    return repr(float(v)) if isinstance(v, NUMBERS) else repr(v)


class VariableList(list):
    """The optimizer's variables: a list (Keras 3's ``optimizer.variables``) that can also be called
    (TF's ``optimizer.variables()``)."""

    def __call__(self):
        return self


# adapters for other spellings of an optimizer subclass: (predicate(cls) -> bool, adapter class)
_SUBCLASS_STYLES: list = []


def register_subclass_style(predicate: Callable, adapter: type) -> None:
    """Give a direct subclass of :class:`Optimizer` for which ``predicate(cls)`` holds ``adapter`` as
    its base instead (how TF 2's and Keras 3's subclassing spellings find their adapters)."""
    _SUBCLASS_STYLES.append((predicate, adapter))


class LearningRateValue(float):
    """What ``optimizer.learning_rate`` gives: the rate at the current step, a float that code written for
    Keras or TF, where it is a variable, can also set in place (``assign``) and read (``numpy``).

    Example:
        >>> import descend as ds
        >>> opt = ds.optimizers.SGD(0.1)
        >>> opt.learning_rate.assign(0.05)
        >>> opt.learning_rate, float(opt.learning_rate.numpy())
        (0.05, 0.05)
    """

    def __new__(cls, value, optimizer):
        obj = float.__new__(cls, value)
        obj._optimizer = weakref.ref(optimizer)
        return obj

    def assign(self, value) -> None:
        """Set the optimizer's learning rate to the number ``value`` (as ``optimizer.learning_rate = value``)."""
        optimizer = self._optimizer()
        if optimizer is None:
            raise RuntimeError("the optimizer this learning rate belongs to no longer exists")
        current = optimizer.hyperparameters().get("learning_rate")
        if not isinstance(current, float):
            raise TypeError("the learning rate is a schedule or a callable, not a value to assign; set a new one "
                            "with `optimizer.learning_rate = ...`")
        optimizer.learning_rate = float(value.numpy() if hasattr(value, "numpy") else value)

    def numpy(self) -> np.ndarray:
        return np.asarray(float(self))

    def __reduce__(self):  # a copy or a pickle is the plain number
        return (float, (float(self),))


class Optimizer:
    """Base class of every optimizer.

    Args:
        learning_rate: a number, a zero-argument callable, or a
            :class:`~descend.optimizers.schedules.LearningRateSchedule`.
        weight_decay: decoupled weight decay, ``var -= lr * weight_decay * var``
            before each update (Keras 3's order); a number or schedule.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to ``[-clipvalue, clipvalue]``.
        global_clipnorm: clip all gradients together to this global norm.
        sparse_updates: ``"exact"`` (a sparse update equals the dense update
            with zero rows elsewhere), ``"lazy"`` (only the gradient's rows
            and their slots change) or ``"exact_lazy"`` (the exact result at
            the lazy cost: each row is caught up over the steps it skipped
            before it is read; see ``descend.optimizers.exact_lazy`` and
            :meth:`flush`). The default depends on the optimizer.
        gradient_accumulation_steps: apply every k-th call to
            ``apply_gradients`` with the (weighted) mean of the k gradients;
            the other calls only accumulate. ``iterations``, schedules,
            clipping and weight decay advance once per applied update, so k
            micro-batches equal one step on their concatenation.
        on_nonfinite: what a NaN or Inf gradient does, checked on the raw
            gradients and again on what will be applied after clipping:
            ``"raise"`` (default, naming the variable; nothing changes),
            ``"skip"`` (the step changes nothing; ``skipped_steps`` counts it),
            ``"zero"`` (non-finite elements become 0) or ``"apply"`` (no check:
            the values are applied, as TensorFlow, Keras and PyTorch do).
        use_ema: keep an exponential moving average of each variable the optimizer
            updates (Keras 3): after every applied update,
            ``average <- m * average + (1 - m) * var`` in the variable's dtype,
            with ``m = ema_momentum`` (0 on the first update, and on a variable's
            first update when its average is created then). The averages are
            slots named ``average``: saved, restored and committed with the rest.
        ema_momentum: the momentum ``m`` of the moving average, in [0, 1].
        ema_overwrite_frequency: with ``use_ema``, every this many updates copy the
            averages into the variables (None: only :meth:`finalize_variable_values` does).
        name: the optimizer's name (prefix of its ``iterations`` variable).
    """

    #: slot declarations; override ``slot_specs()`` when they depend on arguments
    slots: tuple = ()
    #: the sparse mode used when ``sparse_updates`` is not given
    default_sparse_updates: str = "exact"
    #: True when ``update`` with a zero gradient changes neither the variable nor the slots;
    #: then exact sparse updates cost only the touched rows (plus the weight decay of every row)
    zero_grad_is_identity: bool = False
    #: "elementwise" (fused kernel, row updates) or "per_tensor" (the rule reduces over the tensor)
    rule_kind: str = "elementwise"
    #: the pure rule ``update(param, grad, *slots, **coefficients)``; or override ``update_rule``
    update = None
    #: the rule of the exact sparse path when a reference computes it in another arithmetic order than
    #: its dense path (TF 1's sparse Adam: m*b1 + scatter(g*(1-b1))); None: the update rule
    exact_sparse_rule = None
    #: how ``sparse_updates="exact_lazy"`` catches up a row over the steps it skipped: a pure
    #: ``catch_up(param, *slots, steps, first) -> (param, *slots)`` (closed form), ``"replay"`` (the dense
    #: rule with a zero gradient, once per skipped step), or None (exact_lazy is refused)
    catch_up = None
    #: the pure weight-decay rule ``decay(param, **weight_decay_coefficients(...))``
    weight_decay_rule = staticmethod(decoupled_decay)
    #: run elementwise rules as fused kernels when numba is available
    use_fused: bool = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if Optimizer in cls.__bases__:
            for predicate, adapter in _SUBCLASS_STYLES:
                if adapter is not cls and predicate(cls):
                    cls.__bases__ = tuple(adapter if b is Optimizer else b for b in cls.__bases__)
                    break

    def __init__(self, learning_rate=0.001, *, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, sparse_updates: str | None = None,
                 gradient_accumulation_steps: int | None = None, on_nonfinite: str = "raise",
                 use_ema: bool = False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, name: str | None = None, **kwargs):
        if isinstance(learning_rate, str):  # Keras 2 / TF spelling: Optimizer(name, **kwargs)
            name, learning_rate = learning_rate, kwargs.pop("learning_rate", None)
        if "lr" in kwargs:  # Keras 2 alias
            learning_rate = kwargs.pop("lr")
        if kwargs:
            raise TypeError(f"{type(self).__name__}: argument(s) not recognized: {sorted(kwargs)}")
        object.__setattr__(self, "_hyper", {})
        self._hyper_ranges: dict = {}
        self._hyper_messages: dict = {}
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"`name` must be a non-empty string. Received: name={name!r}")
        self._name = name or type(self).__name__.lower()
        if learning_rate is not None:
            self.add_hyperparameter("learning_rate", learning_rate, low=0)
        if weight_decay is not None:
            self.add_hyperparameter("weight_decay", weight_decay, low=0)
        for arg, v in (("clipnorm", clipnorm), ("clipvalue", clipvalue), ("global_clipnorm", global_clipnorm)):
            if v is not None and not (isinstance(v, NUMBERS) and not isinstance(v, bool) and math.isfinite(v)
                                      and v >= 0):
                raise ValueError(f"`{arg}` must be a non-negative finite number. Received: {arg}={v!r}")
        if sum(v is not None for v in (clipnorm, clipvalue, global_clipnorm)) > 1:
            raise ValueError(
                "Only one of `clipnorm`, `clipvalue` and `global_clipnorm` can be set. Received: "
                f"clipnorm={clipnorm}, clipvalue={clipvalue}, global_clipnorm={global_clipnorm}")
        self.clipnorm, self.clipvalue, self.global_clipnorm = clipnorm, clipvalue, global_clipnorm
        mode = self.default_sparse_updates if sparse_updates is None else sparse_updates
        if mode not in ("exact", "lazy", "exact_lazy"):
            raise ValueError("`sparse_updates` must be 'exact', 'lazy' or 'exact_lazy'. "
                             f"Received: sparse_updates={sparse_updates!r}")
        if mode == "exact_lazy":
            self._check_exact_lazy()
        self.sparse_updates = mode
        self._lazy_tables: dict = {}  # id(table) -> (table, exact_lazy.TableState) while rows are behind
        k = gradient_accumulation_steps
        if k is not None and not (isinstance(k, (int, np.integer)) and not isinstance(k, bool) and k >= 1):
            raise ValueError(f"`gradient_accumulation_steps` must be an integer >= 1. "
                             f"Received: gradient_accumulation_steps={k!r}")
        self.gradient_accumulation_steps = None if k is None else int(k)
        if on_nonfinite not in ("raise", "skip", "zero", "apply"):
            raise ValueError("`on_nonfinite` must be 'raise', 'skip', 'zero' or 'apply'. "
                             f"Received: on_nonfinite={on_nonfinite!r}")
        self.on_nonfinite = on_nonfinite
        if loss_scale_factor is not None and not (isinstance(loss_scale_factor, NUMBERS)
                                                  and not isinstance(loss_scale_factor, bool)
                                                  and math.isfinite(loss_scale_factor) and loss_scale_factor > 0):
            raise ValueError("`loss_scale_factor` must be a positive finite number or None. "
                             f"Received: loss_scale_factor={loss_scale_factor!r}")
        self.loss_scale_factor = None if loss_scale_factor is None else float(loss_scale_factor)
        _check_ema(use_ema, ema_momentum, ema_overwrite_frequency)
        self.use_ema = bool(use_ema)
        self.ema_momentum = float(ema_momentum)
        self.ema_overwrite_frequency = None if ema_overwrite_frequency is None else int(ema_overwrite_frequency)
        self.skipped_steps = 0
        self.owner = None  # a MultiOptimizer routing variables to this optimizer
        with no_name_scope():
            self._iterations = Variable(np.int64(0), name=f"{self._name}/iterations", trainable=False)
        self._slots: dict[int, tuple[Variable, dict[str, Variable]]] = {}
        self._array_cache: dict[int, tuple] = {}  # id(var) -> (param, [slot arrays], [slot Variables])
        self._slot_names: list[str] = []
        self._step_vars: dict[str, Variable] = {}
        self._accum: accumulation.AccumulatorState | None = None
        self._accum_restored: dict | None = None  # restored partial sums, keyed by variable key
        self._pending: dict[str, np.ndarray] = {}  # restored state of slots not created yet
        self._pending_warned = False
        self._var_key: Callable = _name_of
        self._decay_excluded_ids: set[int] = set()
        self._decay_excluded_names: tuple[str, ...] = ()
        self._last_hyper: dict = {}

    # ================================================================== hyperparameters
    def add_hyperparameter(self, name: str, value, *, low=None, high=None, low_open: bool = False,
                           high_open: bool = False, message: str | None = None) -> None:
        """Declare a hyperparameter: a number, a zero-argument callable or a schedule.

        Numbers are checked now against ``[low, high]`` (open ends with
        ``low_open``/``high_open``); callables and schedules each time they are evaluated.
        ``message``, a ``str.format`` template of ``name`` and ``value``, words the error of a value out of
        range (ported optimizers keep their reference's wording, which tests match).
        """
        self._hyper_ranges[name] = (low, high, low_open, high_open)
        if message is not None:
            self._hyper_messages[name] = message
        self.set_hyperparameter(name, value)

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
            message = self._hyper_messages.get(name)
            if message is not None:
                raise ValueError(message.format(name=name, value=v))
            raise ValueError(f"`{name}` must be in {rng}. Received: {name}={_fmt(v)}")

    def set_hyperparameter(self, name: str, value) -> None:
        """Set a hyperparameter to a number (checked against its range), a callable or a schedule."""
        name = "learning_rate" if name == "lr" else name
        if isinstance(value, (Tensor, Variable)):
            value = float(value)
        if isinstance(value, NUMBERS) and not isinstance(value, bool):
            self._check_range(name, float(value))
            value = float(value)
        elif not (isinstance(value, schedules.LearningRateSchedule) or callable(value)):
            raise TypeError(f"`{name}` must be a number, a zero-argument callable or a LearningRateSchedule. "
                            f"Received: {name}={value!r}")
        self._hyper[name] = value

    def hyperparameters(self) -> dict:
        """The declared hyperparameters: name -> number, callable or schedule (a copy)."""
        return dict(self._hyper)

    def _resolve(self, name: str, step: int) -> float:
        value = self._hyper[name]
        if isinstance(value, float):
            return value
        v = value(step) if isinstance(value, schedules.LearningRateSchedule) else value()
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise TypeError(f"`{name}` must evaluate to a number. Received: {v!r}") from None
        self._check_range(name, v)
        return v

    def resolve_hyperparameters(self, step: int | None = None) -> dict:
        """Every hyperparameter's value at ``step`` (default: the next update's), checked against its range."""
        step = int(self._iterations._value) if step is None else int(step)
        return {name: self._resolve(name, step) for name in self._hyper}

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

    def serialize_hyperparameter(self, name: str):
        """A JSON-friendly form of a hyperparameter (a schedule as its config dict)."""
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
            self.set_hyperparameter(name, value)
        else:
            object.__setattr__(self, name, value)

    @property
    def learning_rate(self) -> float:
        """The learning rate at the current step (a float); assign a number or schedule to change it. As
        Keras' and TF's learning-rate variable it can also be set in place, ``learning_rate.assign(x)`` or
        ``keras.backend.set_value(optimizer.lr, x)``, and read with ``.numpy()``."""
        return LearningRateValue(self.get_hyper("learning_rate"), self)

    @learning_rate.setter
    def learning_rate(self, value):
        self.set_hyperparameter("learning_rate", value)

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

    # ================================================================== the contract (override these)
    def slot_specs(self) -> tuple:
        """The slots (default: the ``slots`` class attribute)."""
        return tuple(s if isinstance(s, Slot) else Slot(s) for s in self.slots)

    def step_states(self) -> tuple:
        """Optimizer-level state advanced once per update (:class:`StepState`); default none."""
        return ()

    @property
    def update_rule(self) -> Callable | None:
        """The rule applied to (param, grad, *slots); default: ``update``."""
        return type(self).update

    def coefficients(self, step: int, hyper: dict, dtype) -> dict:
        """Per-step scalars the rule needs, computed once per update and dtype (pure).

        ``hyper`` holds the hyperparameters' values at this step as Python
        floats, and the step states' values as this update uses them; ``step``
        is ``iterations`` before the update. Cast with ``dtype.type(x)`` what
        the reference implementation computes in the variable's dtype; leave
        the rest as Python floats, which NumPy treats as weak scalars.
        Default: every hyperparameter except ``weight_decay``.
        """
        return {k: v for k, v in hyper.items() if k != "weight_decay" and k in self._hyper}

    def weight_decay_coefficients(self, var: Variable, hyper: dict) -> dict | None:
        """The arguments of ``weight_decay_rule`` for ``var`` at this step, or None (no decay).

        Default: ``{"d": lr * weight_decay}`` in the variable's dtype when ``weight_decay`` is set
        and :meth:`use_weight_decay` holds."""
        wd = hyper.get("weight_decay")
        if not wd or not self.use_weight_decay(var):
            return None
        t = var.dtype.as_numpy_dtype
        return {"d": t(wd) * t(hyper["learning_rate"])}

    def use_weight_decay(self, var: Variable) -> bool:
        """Whether ``var`` decays (not exempted by :meth:`exclude_from_weight_decay`)."""
        if id(var) in self._decay_excluded_ids:
            return False
        return not any(n in var.name for n in self._decay_excluded_names)

    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Exempt variables from weight decay: by identity, or by a name substring (Keras 3)."""
        self._decay_excluded_ids |= {id(v) for v in (var_list or [])}
        self._decay_excluded_names = tuple(self._decay_excluded_names) + tuple(var_names or ())

    # -- for hook-style adapters (rule_kind "custom") -------------------------------------------
    def create_slots(self, var_list: list[Variable]) -> None:
        """Hook-style optimizers create their per-variable state here (called once per new variable)."""

    def update_variable(self, gradient, variable: Variable, context: dict) -> None:
        """Hook-style optimizers update ``variable`` here (``rule_kind = "custom"``).

        ``gradient`` is a Tensor or an IndexedSlices with unique sorted indices; ``context`` holds
        ``step``, ``hyper`` (values at this step) and ``coefficients`` (dtype -> the ``coefficients()`` of this
        step); it is shared by the variables of one update."""
        raise NotImplementedError(f"{type(self).__name__} defines no update rule: set `update` (a pure rule) or "
                                  "write it in TF 2's or Keras 3's spelling")

    # ================================================================== slots and variables
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
            return next(((v, s) for v, s in self._slots.values() if v.name == var), None)
        return self._slots.get(id(var))

    def get_slot_names(self) -> list[str]:
        """Names of the slots this optimizer has (declaration order)."""
        names = list(self._slot_names)
        names += [s.name for s in self.slot_specs() if s.name not in names]
        return names

    def add_slot(self, var: Variable, slot_name: str, initializer="zeros", shape=None, dtype=None) -> Variable:
        """Create (once) and return the slot ``slot_name`` of ``var``, named ``var.name/slot_name``
        (hook-style optimizers; declared slots are created by the base class)."""
        _, slots = self._slots.setdefault(id(var), (var, {}))
        if slot_name in slots:
            return slots[slot_name]
        shape = var.shape if shape is None else tuple(shape)
        dtype = var._value.dtype if dtype is None else np.dtype(backend.np_dtype(dtype))
        value = self._pending_value(var, slot_name, shape, dtype)
        fresh = value is None
        if fresh:
            value = initial_value(initializer, shape, dtype)
        self._register_slot(var, slot_name, value, fresh=fresh)
        return slots[slot_name]

    def _pending_value(self, var, slot_name, shape, dtype):
        key = f"{self._var_key(var)}/{slot_name}"
        value = self._pending.get(key)
        if value is None:
            return None
        if value.shape != tuple(shape) or value.dtype != dtype:
            raise ValueError(f"restored state '{key}' has shape {value.shape} and dtype {value.dtype}; the slot "
                             f"needs shape {tuple(shape)} and dtype {np.dtype(dtype).name}")
        return value

    def _register_slot(self, var, slot_name, value, *, fresh: bool = False):
        # fresh: ``value`` was just made for this slot (not restored state, nobody else holds it): the slot
        # takes it as its storage instead of a copy, so creating the slots of a large table allocates each
        # once (the copy of np.full would be a second table-sized array; NumPy's zeros stay unmapped until
        # the lazy path touches their rows)
        restored = self._pending.pop(f"{self._var_key(var)}/{slot_name}", None)
        self._array_cache.pop(id(var), None)
        with no_name_scope(), (slot_scope(var) if slot_scope is not None else contextlib.nullcontext()):
            slot = Variable(value, name=f"{var.name}/{slot_name}", trainable=False,
                            _own=fresh and value is not restored)
        self._slots.setdefault(id(var), (var, {}))[1][slot_name] = slot
        if slot_name not in self._slot_names:
            self._slot_names.append(slot_name)

    @property
    def variables(self) -> VariableList:
        """Every variable the optimizer owns: iterations, step state, then slots by variable.
        A list (Keras 3's property) that can also be called (TF's method)."""
        out = VariableList([self._iterations, *self._step_vars.values()])
        for _, slots in self._slots.values():
            out.extend(slots.values())
        return out

    def build(self, var_list: Iterable[Variable]) -> None:
        """Create the state of ``var_list`` now (it is otherwise created on each variable's first update)."""
        var_list = [v for v in var_list if id(v) not in self._slots]
        if not var_list:
            return
        if self.rule_kind == "custom":
            for v in var_list:
                self._slots.setdefault(id(v), (v, {}))
            self.create_slots(var_list)
            return
        new_slots = self._plan_slots(var_list)
        new_steps = self._plan_step_state_creation(var_list, self.resolve_hyperparameters())
        self._create(new_slots, new_steps)

    def _plan_slots(self, var_list) -> dict:
        """Initial values of the declared slots of new variables (restored values where pending)."""
        specs = self.slot_specs()
        out = {}
        for v in var_list:
            if id(v) in self._slots or id(v) in out:
                continue
            values = {}
            for spec in specs:
                dtype = v._value.dtype
                value = self._pending_value(v, spec.name, v.shape, dtype)
                values[spec.name] = initial_value(spec.initializer, v.shape, dtype) if value is None else value
            out[id(v)] = (v, values)
        return out

    def _plan_step_state_creation(self, var_list, hyper) -> dict:
        out = {}
        for ss in self.step_states():
            if ss.name in self._step_vars:
                continue
            dtypes = [v._value.dtype for v in var_list]
            dtype = dtypes[0] if ss.dtype == "first" else min(dtypes, key=lambda d: d.itemsize)
            restored = self._pending.get(ss.name)
            out[ss.name] = np.array(restored) if restored is not None else np.asarray(ss.initial(hyper, dtype), dtype)
        return out

    def _create(self, new_slots: dict, new_steps: dict) -> None:
        for var, values in new_slots.values():
            self._slots.setdefault(id(var), (var, {}))
            for name, value in values.items():  # initial values made by _plan_slots, or restored state
                self._register_slot(var, name, value, fresh=True)
        for name, value in new_steps.items():
            self._pending.pop(name, None)
            with no_name_scope():
                self._step_vars[name] = Variable(value, name=f"{self._name}/{name}", trainable=False)
        if self._pending and not self._pending_warned and new_slots:
            self._pending_warned = True
            warnings.warn(f"restored optimizer state {sorted(self._pending)[:10]} matches none of the variables this "
                          "optimizer has built; it is kept until those variables appear (assert_state_consumed() "
                          "checks)", stacklevel=4)

    def add_state_variable(self, name: str, initial_value) -> Variable:
        """Create (once) and return optimizer-level state that no declared step state covers
        (hook-style optimizers); it is saved and restored under ``name``."""
        if name not in self._step_vars:
            restored = self._pending.pop(name, None)
            with no_name_scope():
                self._step_vars[name] = Variable(initial_value if restored is None else restored,
                                                 name=f"{self._name}/{name}", trainable=False)
        return self._step_vars[name]

    def pending_state(self) -> list[str]:
        """Keys of restored state still waiting for variables (or step state) to be created."""
        return sorted(self._pending)

    def assert_state_consumed(self) -> None:
        """Raise if restored state is still waiting for variables that never appeared."""
        if self._pending:
            raise ValueError(f"restored optimizer state was never used: {sorted(self._pending)}")

    # ================================================================== the update
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

    def scale_loss(self, loss):
        """Keras 3: ``loss * loss_scale_factor`` (the loss itself without one); the update divides the
        gradients by the factor again (stage ``unscale``)."""
        if self.loss_scale_factor is None:
            return loss
        loss = loss if isinstance(loss, (Tensor, Variable)) else Tensor(to_array(loss))
        return loss * loss._value.dtype.type(self.loss_scale_factor)

    def _clip_gradients(self, grads: list) -> list:
        """Keras 3's clipping of a list of gradients by this optimizer's ``clipnorm``, ``clipvalue`` or
        ``global_clipnorm`` (the ``clip`` stage of an update, on its own): new Tensors (``IndexedSlices`` stay
        sparse, de-duplicated), None where a gradient is None."""
        present = [k for k, g in enumerate(grads) if g is not None]
        pairs = [(grads[k] if isinstance(grads[k], IndexedSlices) else to_array(grads[k]), None) for k in present]
        clipped, _ = pipeline.deduplicate_and_clip(self, pairs)
        out = [None] * len(grads)
        for k, (g, _) in zip(present, clipped):
            out[k] = g if isinstance(g, IndexedSlices) else Tensor(g)
        return out

    @_trace.opaque("optimizer")  # descend.function records the update as one node of its plan
    def apply_gradients(self, grads_and_vars, *, weight: float | None = None):
        """Apply ``(gradient, variable)`` pairs; returns ``iterations``.

        All or nothing: everything that can fail (validation, schedules,
        accumulation, clipping, the non-finite policy, constraints) is computed
        before the first write; on an error no variable, slot, accumulator or
        counter has changed. ``None`` gradients are skipped with a warning.

        Args:
            grads_and_vars: iterable of ``(gradient, Variable)``; a gradient is
                a Tensor, an array or an ``IndexedSlices``.
            weight: with ``gradient_accumulation_steps``, this micro-batch's
                weight (its example or token count): the applied gradient is
                ``sum(w_i g_i) / sum(w_i)``. Default 1.
        """
        if weight is None:  # a repeated dense step: one prepared kernel call (None when it applied the update)
            grads_and_vars = batched.apply(self, grads_and_vars)
            if grads_and_vars is None:
                return self._iterations
        self.commit(self.prepare(grads_and_vars, weight=weight))
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Keras 3's ``apply(grads, trainable_variables)``: ``apply_gradients(zip(grads, trainable_variables))``.

        Without ``trainable_variables``, the variables this optimizer has already updated (or built), in the
        order it first saw them; the number of gradients must match either way.

        Example:
            >>> import descend as ds
            >>> w = ds.Variable([1.0, 2.0], name="w")
            >>> opt = ds.optimizers.SGD(0.5)
            >>> opt.apply([ds.constant([1.0, 1.0])], [w])
            >>> opt.apply([ds.constant([1.0, 1.0])])  # the variables it was built for
            >>> w.numpy()
            array([0., 1.], dtype=float32)
        """
        grads = list(grads)
        if trainable_variables is None:
            trainable_variables = [v for v, _ in self._slots.values()]
            if not trainable_variables:
                raise ValueError("apply: this optimizer has not been built; pass `trainable_variables` or call "
                                 "build(variables) first")
        else:
            trainable_variables = list(trainable_variables)
        if len(grads) != len(trainable_variables):
            raise ValueError(f"apply: `grads` and `trainable_variables` must have the same length. Received: "
                             f"{len(grads)} gradients and {len(trainable_variables)} variables")
        self.apply_gradients(zip(grads, trainable_variables))

    def preview(self, grads_and_vars, *, weight: float | None = None, slots: bool = False):
        """The values ``apply_gradients`` would give, changing nothing.

        Returns ``{variable name: new value}`` (NumPy arrays, bit-identical to what the
        update writes; the Variable itself works as a key too); with ``slots=True``,
        ``(values, {variable name: {slot name: new value}})``.
        """
        return self.preview_plan(self.prepare(grads_and_vars, weight=weight), slots=slots)

    def prepare(self, grads_and_vars, *, weight: float | None = None,
                raw_global_clipnorm: float | None = None) -> UpdatePlan:
        """Run every stage that can fail and return the :class:`UpdatePlan`; nothing changes.

        ``raw_global_clipnorm`` first clips this call's gradients together to that global norm,
        before de-duplication (Hugging Face's ``apply_gradients(clip_norm=...)``)."""
        route = None if self.owner is None else (lambda v: self.owner.check_route(self, v))
        plan = UpdatePlan(self, step=int(self._iterations._value))
        pairs = pipeline.unscale(self, pipeline.validate(self, grads_and_vars, route))
        plan.targets = [v for _, v in pairs]
        if self.gradient_accumulation_steps is None and weight is not None:
            raise ValueError("apply_gradients: `weight` is only used with gradient_accumulation_steps")
        # a sparse gradient's non-finite values survive de-duplication (NaN and Inf propagate through the
        # sums), so under "raise"/"skip" without accumulation it is checked once, after de-duplication,
        # on its unique rows; "zero" must see the raw values, accumulation must see each micro-batch
        sparse = [type(g) is IndexedSlices for g, _ in pairs]
        checks_later = self.gradient_accumulation_steps is None and self.on_nonfinite in ("raise", "skip")
        # summed into the same bits on every replica: checked once, after the sum (pipeline.replicated_sum)
        replicated = (checks_later and pipeline.replicated_sum is not None and bool(pairs)
                      and pipeline.replicated_sum(self, pairs))
        deferred = checks_later and any(sparse)
        if not replicated:
            pairs = pipeline.check_nonfinite(self, pairs, "gradient",
                                             only=[not s for s in sparse] if deferred else None)
            if pairs is None:
                plan.kind = "skip"
                return plan
        changed = sparse if deferred else None  # which gradients a later stage must check (again)
        if self.gradient_accumulation_steps is not None:
            state = pipeline.accumulate(self, self._accumulator_state(pairs), pairs, weight)
            if state.step < self.gradient_accumulation_steps:
                plan.kind, plan.accumulation = "accumulate", state
                return plan
            plan.accumulation = accumulation.AccumulatorState((), (), 0, 0.0)  # the cycle closes
            pairs = [(g if isinstance(g, IndexedSlices) else g._value, v)
                     for g, v in zip(accumulation.mean(state), state.keys) if g is not None]
            changed = [True] * len(pairs)  # sums of finite values can overflow
        aggregated = self.aggregate(pairs)
        if aggregated is not pairs:  # summed across replicas: a sum of finite values can overflow (and with
            changed = [True] * len(aggregated)  # sharded state this replica holds its share of the gradients)
        pairs = aggregated
        pairs, changed = pipeline.deduplicate_and_clip(self, pairs, raw_global_clipnorm, changed)
        clipped = raw_global_clipnorm is not None or any(
            c is not None for c in (self.clipnorm, self.clipvalue, self.global_clipnorm))
        if replicated:
            changed = [True] * len(pairs)
        checked = pipeline.check_nonfinite(self, pairs, "gradient after clipping" if clipped else "gradient",
                                           only=changed, replicated=replicated)
        if checked is None:
            plan.kind, plan.items = "skip", []
            return plan
        self._resolve_into(plan, checked)
        return plan

    def aggregate(self, pairs: list) -> list:
        """The ``aggregate`` stage: sum gradients across replicas (identity in one process; a distribution
        strategy installs ``pipeline.cross_replica_sum``)."""
        hook = pipeline.cross_replica_sum
        return pairs if hook is None else hook(self, pairs)

    def _accumulator_state(self, pairs):
        if self._accum_restored is None:
            return self._accum
        arrays = self._accum_restored
        names = accumulation.names_in(arrays)
        by_key = {self._var_key(v): v for _, v in pairs}
        by_key.update({self._var_key(v): v for v, _ in self._slots.values() if self._var_key(v) not in by_key})
        missing = [n for n in names if n not in by_key]
        if missing:
            raise ValueError(f"restored accumulator holds sums for variables {missing} that this update does not "
                             "name and this optimizer has not seen")
        keys = [by_key[n] for n in names] + [v for _, v in pairs if self._var_key(v) not in names]
        return accumulation.from_arrays(arrays, names + [self._var_key(v) for v in keys[len(names):]], tuple(keys),
                                        [v.shape for v in keys])

    def _resolve_into(self, plan: UpdatePlan, pairs: list) -> None:
        """Stage ``resolve``: hyperparameters, step state, coefficients, new slots, constraints."""
        step = plan.step
        variables = [v for _, v in pairs]
        # (a replica that owns none of the variables, sharded optimizer state: the step state of the call's)
        plan.hyper, plan.step_state, plan.new_step_state = self._resolve_hyper(step, variables or plan.targets)
        hyper = plan.hyper
        if self.rule_kind == "custom":
            plan.new_slots = {id(v): (v, None) for v in variables if id(v) not in self._slots}
        else:
            plan.new_slots = self._plan_slots(variables)
        for dtype in {v._value.dtype for v in variables}:
            plan.coefficients[dtype] = self._coefficients_for(step, hyper, dtype)
        # with no weight decay configured, the default form gives None for every variable: skip asking each
        default_off = type(self).weight_decay_coefficients is Optimizer.weight_decay_coefficients and not hyper.get(
            "weight_decay")
        plan.items = pipeline.items(self, pairs, hyper, None if default_off else self.weight_decay_coefficients)
        for item in plan.items:
            constraint = item.var.constraint
            if constraint is not None and self.rule_kind != "custom":
                values = self._write_items(plan, [item], copy=True)
                param, slot_values = values[id(item.var)]
                out = np.asarray(to_array(constraint(Tensor(param))))
                if out.shape != param.shape:
                    raise ValueError(f"the constraint of variable '{item.var.name}' returned shape {out.shape}; "
                                     f"expected {param.shape}")
                item.constrained = (out.astype(param.dtype, copy=False), slot_values)

    def _resolve_hyper(self, step: int, variables: list) -> tuple[dict, dict, dict]:
        """The optimizer-level part of stage ``resolve``: ``(hyper, step_state, new_step_state)``, the
        hyperparameters at ``step`` (with the step states' values this update uses), each step state's
        value after it, and the initial values of step states created now (for ``variables``)."""
        hyper = self.resolve_hyperparameters(step)
        new_step_state = self._plan_step_state_creation(variables, hyper)
        step_state = {}
        for ss in self.step_states():
            var = self._step_vars.get(ss.name)
            current = var._value if var is not None else new_step_state[ss.name]
            advanced = np.asarray(ss.advance(current, step, hyper), current.dtype)
            hyper[ss.name] = advanced if ss.advance_first else current.copy()
            step_state[ss.name] = advanced
        return hyper, step_state, new_step_state

    def _coefficients_for(self, step, hyper, dtype) -> dict:
        c = self.coefficients(step, dict(hyper), dtype)
        # a NumPy scalar of another dtype (np.sqrt of a Python float is float64) would promote
        # float32 arrays: demote it to a weak Python float
        return {k: float(v) if isinstance(v, np.floating) and v.dtype != dtype else v for k, v in c.items()}

    # ------------------------------------------------------------------ commit
    def commit(self, plan: UpdatePlan) -> None:
        """Write what ``plan`` says: slots, weights, step state, counters, accumulator. Cannot fail on user
        input (everything was checked by :meth:`prepare`); a plan commits once."""
        if plan.optimizer is not self:
            raise ValueError(f"this plan was prepared by optimizer '{plan.optimizer.name}', not '{self._name}'")
        if plan.committed:
            raise ValueError("this plan was already committed")
        if plan.step != int(self._iterations._value):
            raise ValueError(f"this plan was prepared at step {plan.step}; the optimizer is at step "
                             f"{int(self._iterations._value)}: prepare it again")
        plan.committed = True
        if plan.accumulation is not None:  # a skip after accumulation drops the cycle whose sum was not finite
            self._accum, self._accum_restored = plan.accumulation, None
        if plan.kind == "skip":
            self.skipped_steps += 1
            return
        if plan.kind == "accumulate":
            return
        if self.rule_kind == "custom":
            new = [v for v, _ in plan.new_slots.values()]
            for v in new:
                self._slots.setdefault(id(v), (v, {}))
            if new:
                self.create_slots(new)
            self._create({}, plan.new_step_state)
            self._apply_custom(plan)
        else:
            self._create(plan.new_slots, plan.new_step_state)
            self._write_items(plan, plan.items, copy=False)
        for item in plan.items:
            if item.constrained is not None:
                param, slot_values = item.constrained
                item.var._value[...] = param
                slots = self._slots[id(item.var)][1]
                for name, value in slot_values.items():
                    slots[name]._value[...] = value
                self._bump(item.var)
            elif self.rule_kind == "custom" and item.var.constraint is not None:
                item.var.assign(item.var.constraint(item.var))
        if self.sparse_updates == "exact_lazy":
            self._lazy_record(plan)
        for name, value in plan.step_state.items():
            var = self._step_vars[name]
            var._value[...] = value
            var._mark_updated()
        for counter in plan.counters:
            counter._value += counter._value.dtype.type(1)
            counter._mark_updated()
        self._last_hyper = plan.hyper
        self._iterations._value += 1
        self._iterations._mark_updated()
        if self.use_ema:
            self._commit_ema(plan)
        if pipeline.after_commit is not None:  # sharded optimizer state: the owners' new values to every replica
            pipeline.after_commit(self, plan)

    @property
    def _model_variables_moving_average(self) -> list:
        """Keras 3's name for the moving averages of ``use_ema``: one per variable, in the order built."""
        return [slots["average"] for _, slots in self._slots.values() if "average" in slots]

    def _commit_ema(self, plan: UpdatePlan) -> None:
        """Stage ``ema`` (after ``count``): the moving averages of every variable that has one or was
        updated now, and the overwrite every ``ema_overwrite_frequency`` updates. Cannot fail."""
        fresh = []
        for var in plan.variables:
            if "average" not in self._slots[id(var)][1]:
                restored = self._pending_value(var, "average", var.shape, var._value.dtype)
                self._register_slot(var, "average", var._value.copy() if restored is None else restored)
                if restored is None:
                    fresh.append(var)
        pairs = [(var, slots["average"]) for var, slots in self._slots.values() if "average" in slots]
        pipeline.moving_average(pairs, self.ema_momentum, first=plan.step == 0, fresh={id(v) for v in fresh})
        if self.ema_overwrite_frequency and (plan.step + 1) % self.ema_overwrite_frequency == 0:
            self._overwrite_with_averages([v for v, _ in pairs])

    def _overwrite_with_averages(self, var_list) -> None:
        for var in var_list:
            entry = self._slots.get(id(var))
            if entry is not None and "average" in entry[1]:
                var._value[...] = entry[1]["average"]._value
                var._mark_updated()

    def finalize_variable_values(self, var_list) -> None:
        """With ``use_ema``, copy each variable's moving average into it (Keras 3; ``fit`` calls this at
        the end of training). Variables this optimizer never updated have no average and are left as
        they are; without ``use_ema`` nothing changes."""
        if self.use_ema:
            self._overwrite_with_averages(list(var_list))

    def preview_plan(self, plan: UpdatePlan, *, slots: bool = False):
        """What committing ``plan`` would write, as copies (see :meth:`preview`); changes nothing."""
        if plan.kind != "apply":
            values = ByVariable((v.name, v.numpy()) for v in plan.targets)
            return (values, ByVariable()) if slots else values
        if self.rule_kind == "custom":
            return self._preview_custom(plan, slots)
        written = self._write_items(plan, [it for it in plan.items if it.constrained is None], copy=True)
        for it in plan.items:
            if it.constrained is not None:
                written[id(it.var)] = (it.constrained[0].copy(), {k: v.copy() for k, v in it.constrained[1].items()})
        values = ByVariable((it.var.name, written[id(it.var)][0]) for it in plan.items)
        if not slots:
            return values
        return values, ByVariable((it.var.name, written[id(it.var)][1]) for it in plan.items)

    def _arrays_of(self, plan, var, copy: bool):
        """(param array, [slot arrays in declaration order], [slot Variables]) to write ``var``'s update into:
        the variable's own storage (cached per variable), or copies for a preview."""
        entry = self._array_cache.get(id(var))
        if entry is None:
            found = self._slots.get(id(var))
            if found is not None:
                slot_vars = [found[1][s.name] for s in self.slot_specs()]
                entry = (var._value, [s._value for s in slot_vars], slot_vars)
                self._array_cache[id(var)] = entry
            else:  # created by this plan's commit: only a preview gets here
                values = plan.new_slots[id(var)][1]
                entry = (var._value, [values[s.name] for s in self.slot_specs()], [])
        if copy:
            return entry[0].copy(), [a.copy() for a in entry[1]], entry[2]
        return entry

    def _write_items(self, plan: UpdatePlan, items: list, copy: bool) -> dict:
        """Stages ``decay`` and ``rule``: apply the items into the variables (or into copies).
        Returns ``{id(var): (param array, {slot name: array})}`` of what was written."""
        names = [s.name for s in self.slot_specs()]
        rule = self._rule()
        kernel = self._kernel(rule) if self.rule_kind == "elementwise" else None
        fused_decay = type(self).weight_decay_rule is decoupled_decay
        out = {}
        dense: dict = {}  # dtype -> ([params], [grads], [slot lists], [decay factors])
        for item in items:
            param, slots, slot_vars = self._arrays_of(plan, item.var, copy)
            out[id(item.var)] = (param, slots)
            path, decay_all = item.path, item.decay_all_rows
            if path == "exact_lazy" or (self._lazy_tables and id(item.var) in self._lazy_tables):
                path, decay_all = self._lazy_write_path(item, param, slots, copy)
            d = 0.0
            if item.decay is not None:
                if fused_decay and path != "densify" and not decay_all:
                    d = item.decay["d"]
                else:
                    self._decay_numpy(param, item.indices if path in ("rows", "exact_lazy") and not decay_all else None,
                                      item.decay)
            if path == "exact_lazy":  # the touched rows, caught up: this step's exact rule on them
                exact_rule = self.exact_sparse_rule or rule
                self._rows(exact_rule, self._kernel(exact_rule) if kernel is not None else None, param, item.values,
                           slots, plan.coefficients[param.dtype], item.indices, d)
            elif path == "dense":
                group = dense.get(param.dtype)
                if group is None:
                    group = dense[param.dtype] = ([], [], [], [])
                group[0].append(param)
                group[1].append(item.grad)
                group[2].append(slots)
                group[3].append(d)
            elif path == "rows":
                self._rows(rule, kernel, param, item.values, slots, plan.coefficients[param.dtype], item.indices, d)
            else:  # exact sparse: the dense rule with zero gradient rows elsewhere
                g = np.zeros_like(param)
                g[item.indices] = item.values
                exact_rule = self.exact_sparse_rule or rule
                self._dense(exact_rule, self._kernel(exact_rule) if kernel is not None else None, [param], [g], [slots],
                            [0.0], plan.coefficients[param.dtype])
            if not copy:  # record the in-place writes (Variable._mark_updated, inlined)
                item.var._version += 1
                for sv in slot_vars:
                    sv._version += 1
        for dtype, (params, grads, slot_lists, decays) in dense.items():
            self._dense(rule, kernel, params, grads, slot_lists, decays, plan.coefficients[dtype])
        return {k: (p, dict(zip(names, sl))) for k, (p, sl) in out.items()}

    def _decay_numpy(self, param, rows, coefficients):
        if rows is None:
            param[...] = self.weight_decay_rule(param, **coefficients)
        else:
            param[rows] = self.weight_decay_rule(param[rows], **coefficients)

    def _dense(self, rule, kernel, params, grads, slot_lists, decays, coefficients):
        if kernel is not None and kernel.apply_dense(params, grads, slot_lists, decays, coefficients):
            return
        for param, g, slots, d in zip(params, grads, slot_lists, decays):
            if d:
                param -= param * d
            storage = [param] + slots
            out = self._check_outputs(rule(param, g, *slots, **coefficients), slots)
            # a rule may return an input unchanged (pv <- param): copy it before the writes overwrite it
            out = [o.copy() if any(o is a for a in storage) else o for o in out]
            for dst, new in zip(storage, out):
                dst[...] = new

    def _rows(self, rule, kernel, param, g, slots, coefficients, idx, d):
        if kernel is not None and kernel.apply_rows(param, g, slots, coefficients, idx, d):
            return
        if d:
            param[idx] -= param[idx] * d
        out = self._check_outputs(rule(param[idx], g, *[s[idx] for s in slots], **coefficients), slots)
        param[idx] = out[0]
        for s, new in zip(slots, out[1:]):
            s[idx] = new

    def _rule(self):
        rule = self.update_rule
        if rule is None:
            raise NotImplementedError(f"{type(self).__name__} defines no update rule: set `update` (a pure rule) or "
                                      "write it in TF 2's or Keras 3's spelling")
        return rule

    def _kernel(self, rule):
        return fused.kernel_for(rule) if self.use_fused and fused.enabled() else None

    def kernels_find_nonfinite(self, arrays: list) -> int | None:
        """Index of the first array holding a NaN or Inf (-1: none) with one parallel pass, or None when
        compiled kernels are off."""
        return fused.find_nonfinite(arrays) if self.use_fused else None

    def _check_outputs(self, out, slots):
        if not isinstance(out, (tuple, list)) or len(out) != 1 + len(slots):
            got = len(out) if isinstance(out, (tuple, list)) else type(out).__name__
            want = ", ".join(["new_param"] + ["new_" + s.name for s in self.slot_specs()])
            raise TypeError(f"{type(self).__name__}'s update rule must return ({want}) -- {1 + len(slots)} values. "
                            f"Received: {got}")
        return out

    def _bump(self, var):
        var._mark_updated()
        for slot in self._slots[id(var)][1].values():
            slot._mark_updated()

    def _apply_custom(self, plan: UpdatePlan) -> None:
        context = {"step": plan.step, "hyper": plan.hyper, "coefficients": plan.coefficients}
        for item in plan.items:
            var = item.var
            param = var._value
            if item.decay is not None:
                rows = item.indices if item.path == "rows" and not item.decay_all_rows else None
                self._decay_numpy(param, rows, item.decay)
                var._mark_updated()
            if item.grad is not None:
                grad = Tensor(item.grad)
            else:
                grad = IndexedSlices(Tensor(item.values), Tensor(item.indices), var.shape)
            self.update_variable(grad, var, context)

    def _preview_custom(self, plan, slots):
        unbuilt = [v.name for v, _ in plan.new_slots.values()]
        if unbuilt:
            raise ValueError(f"preview of {type(self).__name__} (it updates variables in its own code) needs its "
                             f"state built first; call build({unbuilt}) or apply one update")
        owned = plan.variables + list(self.variables)
        saved = [(v, v._value.copy(), v._version) for v in owned]
        skipped, last = self.skipped_steps, self._last_hyper
        averaged = {id(v) for v in plan.variables if "average" in self._slots[id(v)][1]}
        try:
            self.commit(plan)
            values = ByVariable((v.name, v.numpy()) for v in plan.variables)
            slot_values = ByVariable((v.name, {n: s.numpy() for n, s in self._slots[id(v)][1].items()})
                                     for v in plan.variables)
        finally:
            for v, value, version in saved:
                v._value[...] = value
                v._version = version
            for v in plan.variables:  # moving averages the preview's ema stage created are not kept
                if id(v) not in averaged:
                    self._slots[id(v)][1].pop("average", None)
            self.skipped_steps, self._last_hyper = skipped, last
            plan.committed = False
        return (values, slot_values) if slots else values

    # ================================================================== sparse_updates="exact_lazy"
    def _check_exact_lazy(self) -> None:
        why = None
        if self.rule_kind == "custom":
            why = "it updates variables in its own code (TF 2 / Keras 3 hooks)"
        elif self.rule_kind != "elementwise":
            why = f"its rule is {self.rule_kind!r} (it reduces over the whole tensor), so a row's update depends on rows " \
                  "it cannot see"
        elif type(self).catch_up is None:
            why = "it declares no catch-up (set `catch_up` to a pure closed form or to 'replay')"
        if why is not None:
            raise ValueError(f"{type(self).__name__} cannot use sparse_updates='exact_lazy': {why}. Use 'exact' or "
                             "'lazy'. Received: sparse_updates='exact_lazy'")

    def flush(self) -> None:
        """Bring every row of every table updated with ``sparse_updates="exact_lazy"`` up to date.

        Runs by itself before a read of such a table (``numpy()``, ops, a checkpoint, ``state_dict()``)
        and at the end of ``fit``; an embedding lookup catches up only the rows it reads. Nothing to do
        (O(1)) otherwise."""
        for table, _ in list(self._lazy_tables.values()):
            self._lazy_flush(table)

    def _lazy_flush(self, table) -> None:
        entry = self._lazy_tables.pop(id(table), None)
        self._lazy_unhook(table)
        if entry is None:
            return
        state = entry[1]
        param, slots, slot_vars = self._arrays_of(None, table, False)
        if self._lazy_catch_up(state, param, slots, state.behind(None)):
            table._mark_updated()
            for sv in slot_vars:
                sv._mark_updated()

    def _lazy_hook(self, table) -> None:
        def before_read(var, rows, table=table, opt=self):
            opt._lazy_read(table, rows if var is table else None)
        table.set_before_read(before_read)
        for sv in self._slots[id(table)][1].values():
            sv.set_before_read(before_read)

    def _lazy_unhook(self, table) -> None:
        table.set_before_read(None)
        found = self._slots.get(id(table))
        for sv in (found[1].values() if found else ()):
            sv.set_before_read(None)

    def _lazy_read(self, table, rows) -> None:
        """The before-read callback: catch up ``rows`` of ``table`` (all of it, and its slots, when None)."""
        entry = self._lazy_tables.get(id(table))
        if entry is None or rows is None:
            self._lazy_flush(table)
            return
        state = entry[1]
        behind = state.behind(rows)
        param, slots, slot_vars = self._arrays_of(None, table, False)
        if self._lazy_catch_up(state, param, slots, behind):
            state.last[behind] = state.count
            table._mark_updated()
            for sv in slot_vars:
                sv._mark_updated()

    def _lazy_write_path(self, item, param, slots, copy: bool):
        """Catch up what this update of ``item.var`` reads; returns the write path and whether the decay
        covers every row. Live (commit): the touched rows (a dense gradient: all rows). Into copies
        (preview, a constraint): every row, then this step's exact update."""
        entry = self._lazy_tables.get(id(item.var))
        if entry is not None and (copy or item.path != "exact_lazy"):
            self._lazy_catch_up(entry[1], param, slots, entry[1].behind(None))
            if not copy:  # a dense gradient: the whole table is current; no state left
                self._lazy_tables.pop(id(item.var))
                self._lazy_unhook(item.var)
        elif entry is not None:
            self._lazy_catch_up(entry[1], param, slots, entry[1].behind(item.indices))
        if item.path != "exact_lazy":
            return item.path, item.decay_all_rows
        if not copy:
            return "exact_lazy", False
        if self.zero_grad_is_identity:
            return "rows", item.decay is not None
        return "densify", False

    def _lazy_record(self, plan: UpdatePlan) -> None:
        """After a commit: the touched rows are at the new count; untouched rows now skip this step."""
        for item in plan.items:
            if item.path != "exact_lazy":
                continue
            var = item.var
            if item.constrained is not None:  # the constraint wrote every row's exact value
                self._lazy_tables.pop(id(var), None)
                self._lazy_unhook(var)
                continue
            entry = self._lazy_tables.get(id(var))
            if entry is None:
                entry = self._lazy_tables[id(var)] = (var, exact_lazy.TableState(var.shape[0]))
                self._lazy_hook(var)
            state = entry[1]
            state.record(plan.coefficients[var._value.dtype], item.decay, item.indices)
            if len(state.history) > exact_lazy.MAX_HISTORY:
                self._lazy_trim(var, state)

    def _lazy_trim(self, table, state) -> None:
        """Bound the history: forget what no row needs; rows still older than half of it are caught up."""
        state.drop_before(state.oldest_needed())
        if len(state.history) > exact_lazy.MAX_HISTORY // 2:
            cutoff = state.count - exact_lazy.MAX_HISTORY // 2
            old = np.flatnonzero(state.last < cutoff)
            param, slots, slot_vars = self._arrays_of(None, table, False)
            self._lazy_catch_up(state, param, slots, old)
            state.last[old] = state.count
            state.drop_before(cutoff)

    def _lazy_catch_up(self, state, param, slots, rows) -> bool:
        """Bring ``rows`` (unique, all behind) of ``param`` and ``slots`` up to ``state.count`` updates, in
        place, with the optimizer's closed form or by replaying its dense rule. Does not move ``state.last``."""
        if rows.size == 0:
            return False
        rows, starts = exact_lazy.group_by_start(state, rows)
        p = param[rows]
        ss = [s[rows] for s in slots]
        how = self.catch_up
        if callable(how) and type(self).weight_decay_rule is decoupled_decay:
            steps = exact_lazy.steps_of(state, int(starts[0]))
            out = self._check_outputs(how(p, *ss, steps=steps, first=starts - starts[0]), ss)
            p = np.asarray(out[0], param.dtype)
            ss = [np.asarray(o, s.dtype) for o, s in zip(out[1:], ss)]
        else:
            self._lazy_replay(state, p, ss, starts)
        param[rows] = p
        for s, new in zip(slots, ss):
            s[rows] = new
        return True

    def _lazy_replay(self, state, p, ss, starts) -> None:
        """The skipped steps, one at a time, with the exact path's arithmetic: this step's weight decay,
        then (unless a zero gradient is the identity) the rule with a zero gradient. ``p``/``ss`` hold the
        rows sorted by ``starts``, so the rows a step applies to are a prefix."""
        rule = self.exact_sparse_rule or self._rule()
        kernel = self._kernel(rule) if self.use_fused else None
        fused_decay = type(self).weight_decay_rule is decoupled_decay
        zeros = np.zeros_like(p)
        first = int(starts[0])
        ends = np.searchsorted(starts, np.arange(first, state.count), side="right")
        positions = np.arange(len(starts))
        for k, n in zip(range(first, state.count), ends.tolist()):
            coefficients, decay = state.history[k - state.start]
            rows_p, rows_s = p[:n], [s[:n] for s in ss]
            if self.zero_grad_is_identity:
                if decay is not None:
                    self._decay_numpy(rows_p, None, decay)
                continue
            d = 0.0
            if decay is not None:
                if fused_decay:
                    d = decay["d"]
                else:
                    self._decay_numpy(rows_p, None, decay)
            self._rows(rule, kernel, rows_p, zeros[:n], rows_s, coefficients, positions[:n], d)

    # ================================================================== config and state
    def get_config(self) -> dict:
        """A JSON-serializable dict of constructor arguments (schedules as nested dicts)."""
        config = {"name": self._name}
        for k in self._hyper:
            config[k] = self.serialize_hyperparameter(k)
        config.update(clipnorm=self.clipnorm, clipvalue=self.clipvalue, global_clipnorm=self.global_clipnorm,
                      sparse_updates=self.sparse_updates, gradient_accumulation_steps=self.gradient_accumulation_steps,
                      on_nonfinite=self.on_nonfinite, use_ema=self.use_ema, ema_momentum=self.ema_momentum,
                      ema_overwrite_frequency=self.ema_overwrite_frequency, loss_scale_factor=self.loss_scale_factor)
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        """Rebuild an optimizer from :meth:`get_config` output."""
        config = dict(config)
        for k, v in config.items():
            if isinstance(v, dict) and "class_name" in v:
                config[k] = schedules.deserialize(v, custom_objects)
        return cls(**config)

    def _slot_spec_map(self) -> dict:
        return {s.name: s for s in self.slot_specs()}

    @property
    def built(self) -> bool:
        """Whether the state of some variables exists (``build`` or a first update made it), or a Keras-style
        subclass's ``build`` said so (``self.built = True``)."""
        flag = self.__dict__.get("_built_flag")
        return bool(self._slots) if flag is None else flag

    @built.setter
    def built(self, value: bool) -> None:
        self.__dict__["_built_flag"] = bool(value)

    def get_weights(self) -> list:
        """Copies of :attr:`variables`' values, in that order (Keras' ``get_weights``)."""
        return [np.array(v._value) for v in self.variables]

    def set_weights(self, weights) -> None:
        """Assign ``weights`` (arrays, Tensors or Variables, in :attr:`variables`' order) to the optimizer's
        variables: every shape is checked first, so a bad list changes nothing.

        Raises:
            ValueError: the optimizer is not built, or a weight's shape differs from its variable's.
        """
        if not self.built:
            raise ValueError("You are calling `set_weights()` on an optimizer that has not yet been built. Call "
                             "`optimizer.build(trainable_variables)` to create its variables first.")
        variables = list(self.variables)
        weights = [to_array(w) for w in weights]
        if len(weights) != len(variables):
            raise ValueError(f"set_weights expects {len(variables)} weights (one per optimizer variable). "
                             f"Received: {len(weights)}")
        for v, w in zip(variables, weights):
            if tuple(w.shape) != tuple(v.shape):
                raise ValueError(f"Optimizer variable {v.name} has shape {tuple(v.shape)} not compatible with "
                                 f"provided weight shape {tuple(w.shape)}.")
        for v, w in zip(variables, weights):
            v.assign(w.astype(v._value.dtype, copy=False))

    def state_dict(self, var_key: Callable | None = None) -> dict[str, np.ndarray]:
        """Copies of every piece of state.

        Keys: ``iterations``, ``skipped_steps``, each step state's name,
        ``hyper:<name>`` for hyperparameters that are numbers (``hyper:<name>:schedule``
        marks one that is a schedule or callable: code, not state),
        ``<key>/<slot name>`` for each slot of each variable -- including state
        restored for variables not created yet -- and, in the middle of a
        gradient-accumulation cycle, ``accumulator:<key>...`` partial sums.
        ``var_key(variable)`` is the string naming a variable (default its name).
        """
        key = var_key or _name_of
        self.flush()  # exact_lazy: every row and slot up to date before it is copied
        out = {"iterations": self._iterations.numpy(), "skipped_steps": np.asarray(self.skipped_steps, np.int64)}
        out.update({name: v.numpy() for name, v in self._step_vars.items()})
        for k, v in self._hyper.items():  # numbers by value; a schedule or callable is code: only marked
            out[f"hyper:{k}" if isinstance(v, float) else f"hyper:{k}:schedule"] = (
                np.asarray(v, np.float64) if isinstance(v, float) else np.asarray(1, np.int8))
        out.update({k: v.copy() for k, v in self._pending.items()})
        for var, slots in self._slots.values():
            out.update({f"{key(var)}/{name}": s.numpy() for name, s in slots.items()})
        if self._accum_restored is not None:
            out.update({f"accumulator:{k}": np.array(v) for k, v in self._accum_restored.items()})
        elif self._accum is not None and self._accum.step:
            names = [key(v) for v in self._accum.keys]
            out.update({f"accumulator:{k}": v for k, v in accumulation.to_arrays(self._accum, names).items()})
        return out

    def restore_plan(self, state: dict, var_key: Callable | None = None, *, strict: bool = True) -> StateRestore:
        """Check ``state`` (as :meth:`state_dict` gives it) against this optimizer; change nothing.

        Returns a :class:`StateRestore` whose ``commit()`` (or call) writes it and cannot fail.
        Raises ``ValueError`` listing every problem: invalid values (negative counters, negative
        values of non-negative slots, non-finite values) always; missing, unexpected or mis-shaped
        entries when ``strict`` (else those entries are left as they are and listed on the plan).
        Slots of variables this optimizer has not created yet are kept and given to the slots when
        they are created (``var_key`` names variables, as in :meth:`state_dict`).
        """
        key = var_key or _name_of
        arrays = {}
        invalid = []
        for k, value in dict(state).items():
            try:
                arrays[str(k)] = np.array(to_array(value) if isinstance(value, (Tensor, Variable)) else value)
            except Exception as e:  # noqa: BLE001 -- any unreadable value is reported by name
                invalid.append(f"{k}: not an array ({type(e).__name__})")
        plan = StateRestore(self, key)
        specs = self._slot_spec_map()
        current: dict[str, Variable] = {"iterations": self._iterations, **self._step_vars}
        for var, slots in self._slots.values():
            current.update({f"{key(var)}/{n}": s for n, s in slots.items()})
        step_names = {ss.name for ss in self.step_states()}
        for k, arr in arrays.items():
            if k == "skipped_steps" or k == "iterations":
                if arr.shape != () or arr.dtype.kind not in "iu":
                    invalid.append(f"{k}: expected an integer scalar, received {_describe(arr)}")
                elif int(arr) < 0:
                    invalid.append(f"{k}: must be >= 0, received {int(arr)}")
                elif k == "skipped_steps":
                    plan.skipped_steps = int(arr)
                    continue
            if arr.dtype.kind == "f" and arr.size and not np.isfinite(arr).all():
                invalid.append(f"{k}: holds NaN or Inf")
                continue
            slot_name = k.rsplit("/", 1)[-1]
            spec = specs.get(slot_name)
            if spec is not None and spec.nonnegative and arr.dtype.kind == "f" and arr.size and arr.min() < 0:
                invalid.append(f"{k}: slot '{slot_name}' must be >= 0, received a minimum of {float(arr.min())!r}")
                continue
            if k.startswith("hyper:") and k.endswith(":schedule"):
                if k[len("hyper:"):-len(":schedule")] not in self._hyper:
                    plan.unexpected.append(k)
                continue
            if k.startswith("hyper:"):
                name = k[len("hyper:"):]
                if name not in self._hyper:
                    plan.unexpected.append(k)
                elif not isinstance(self._hyper[name], float):
                    continue  # a schedule or callable is code: this optimizer's own is kept
                elif arr.shape != () or arr.dtype.kind not in "fiu":
                    plan.mismatched.append(f"{k}: expected a number, received {_describe(arr)}")
                else:
                    try:
                        self._check_range(name, float(arr))
                    except ValueError as e:
                        invalid.append(f"{k}: {e}")
                        continue
                    plan.hyper[name] = float(arr)
                continue
            if k.startswith("accumulator:"):
                if self.gradient_accumulation_steps is None:
                    plan.unexpected.append(k)
                else:
                    plan.accumulator[k[len("accumulator:"):]] = arr
                continue
            if k in current:
                want = current[k]
                if arr.shape != want.shape:
                    plan.mismatched.append(f"{k}: expected shape {want.shape}, received {arr.shape}")
                elif arr.dtype != want._value.dtype:
                    plan.mismatched.append(f"{k}: expected dtype {want._value.dtype.name}, received {arr.dtype.name}")
                else:
                    plan.values.append((want, arr))
            elif k in step_names or self.rule_kind == "custom" or ("/" in k and (
                    spec is not None or (slot_name == "average" and self.use_ema))):
                plan.deferred[k] = arr  # state of variables (or step state) not created yet
            else:
                plan.unexpected.append(k)
        seen = set(arrays)
        plan.missing = [k for k in current if k not in seen]
        plan.missing += [f"hyper:{k}" for k, v in self._hyper.items()
                         if isinstance(v, float) and f"hyper:{k}" not in seen and f"hyper:{k}:schedule" not in seen]
        if plan.accumulator:
            try:
                names = accumulation.names_in(plan.accumulator)
                accumulation.from_arrays(plan.accumulator, names, tuple(names))
            except ValueError as e:
                invalid.append(str(e))
        if invalid or (strict and (plan.missing or plan.unexpected or plan.mismatched)):
            lines = [f"the state does not match optimizer '{self._name}'"]
            for label, items in (("invalid", invalid), ("missing", plan.missing), ("unexpected", plan.unexpected),
                                 ("mis-shaped", plan.mismatched)):
                if items:
                    shown = items[:20] + ([f"... {len(items) - 20} more"] if len(items) > 20 else [])
                    lines.append(f"  {label}: {shown}")
            raise ValueError("\n".join(lines))
        return plan

    def load_state_dict(self, state: dict, var_key: Callable | None = None, *, strict: bool = True) -> None:
        """Restore :meth:`state_dict` output (see :meth:`restore_plan`): all of it, or nothing and an error."""
        self.restore_plan(state, var_key, strict=strict).commit()

    def __repr__(self):
        return f"<{type(self).__name__} '{self._name}' iterations={int(self._iterations._value)}>"


def _check_ema(use_ema, momentum, frequency) -> None:
    if not isinstance(use_ema, (bool, np.bool_)):
        raise TypeError(f"`use_ema` must be a bool. Received: use_ema={use_ema!r}")
    if not (isinstance(momentum, NUMBERS) and not isinstance(momentum, bool) and 0 <= momentum <= 1):
        raise ValueError(f"`ema_momentum` must be in the range [0, 1]. Received: ema_momentum={momentum!r}")
    if frequency is not None and not (isinstance(frequency, (int, np.integer)) and not isinstance(frequency, bool)
                                      and frequency >= 1):
        raise ValueError("`ema_overwrite_frequency` must be an integer >= 1 or None. "
                         f"Received: ema_overwrite_frequency={frequency!r}")


def _name_of(var) -> str:
    return var.name


def _describe(arr) -> str:
    return f"shape {tuple(arr.shape)} dtype {arr.dtype.name}"


class StateRestore:
    """A checked restore of an optimizer's state (from :meth:`Optimizer.restore_plan`).

    ``restored``, ``deferred`` (kept for variables not created yet), and with ``strict=False``
    ``missing``, ``unexpected`` and ``mismatched`` list the keys; ``commit()`` writes."""

    def __init__(self, optimizer: Optimizer, var_key):
        self.optimizer = optimizer
        self.var_key = var_key
        self.values: list = []
        self.deferred: dict = {}
        self.hyper: dict = {}
        self.accumulator: dict = {}
        self.skipped_steps: int | None = None
        self.missing: list = []
        self.unexpected: list = []
        self.mismatched: list = []
        self.committed = False

    @property
    def restored(self) -> list:
        return [v.name for v, _ in self.values]

    def commit(self) -> None:
        """Write the restored state (cannot fail)."""
        if self.committed:
            return
        self.committed = True
        opt = self.optimizer
        opt.flush()  # exact_lazy: rows behind are brought up to date, then the restored state replaces them
        for var, arr in self.values:
            var._value[...] = arr
            var._mark_updated()
        opt._pending = {k: v.copy() for k, v in self.deferred.items()}
        opt._pending_warned = False
        opt._var_key = self.var_key
        for name, value in self.hyper.items():
            opt._hyper[name] = value
        if self.skipped_steps is not None:
            opt.skipped_steps = self.skipped_steps
        opt._accum = None
        opt._accum_restored = dict(self.accumulator) if self.accumulator else None

    __call__ = commit
