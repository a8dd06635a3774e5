"""What an optimizer declares -- its slots, its rule, its weight-decay form -- and how a declared
rule runs (with NumPy, or as one fused kernel).

An optimizer file declares, and the pipeline (``descend.optimizers.pipeline``) does the rest:

* ``slots``: per-variable state (:class:`Slot`) and optimizer-level state advanced once per
  update (:class:`StepState`), one tuple;
* ``update``: the pure rule ``fn(param, grad, *slots, **coefficients) -> (new_param,
  *new_slots)``, as a function or as a :class:`Rule` that also says what the pipeline may
  assume of it (it reduces over the tensor; a zero gradient changes nothing; its default
  sparse mode; the arithmetic of its exact sparse update);
* ``coefficients(step, hyper, dtype)``: the per-step scalars (a method of the optimizer);
* ``catch_up``: how ``sparse_updates="exact_lazy"`` brings a skipped row up to date;
* hyperparameters, declared with ``add_hyperparameter`` in ``__init__``.

The ``update`` stage runs those declarations (``descend.optimizers.stages.update.DeclaredRule``); the
Keras 3 and TF 2 spellings produce a :class:`HookRule` instead.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable

__all__ = ["NUMBERS", "Slot", "StepState", "Rule", "WeightDecay", "HookRule", "as_rule", "initial_value",
           "decoupled_decay"]

#: the Python and NumPy number types hyperparameters may be
NUMBERS = (int, float, np.integer, np.floating)


class Slot:
    """A slot declaration: ``Slot("m")`` starts at zeros, ``Slot("rms", "ones")`` at ones,
    ``Slot("acc", 0.1)`` at a constant, ``Slot("x", callable(shape, dtype))``, or ``Slot("z", "variable")`` at a
    copy of the variable's value when the slot is made.

    ``nonnegative=True`` declares an invariant (second moments, accumulators): restoring a
    negative value is refused. ``keras_name``: the name Keras 3 gives the slot in its variables' paths
    (``adam/dense_kernel_momentum`` for Adam's ``m``), when it differs from ``name``."""

    __slots__ = ("name", "initializer", "nonnegative", "keras_name")

    def __init__(self, name: str, initializer="zeros", *, nonnegative: bool = False, keras_name: str | None = None):
        self.name = name
        self.initializer = initializer
        self.nonnegative = bool(nonnegative)
        self.keras_name = name if keras_name is None else keras_name

    def __repr__(self):
        return f"Slot({self.name!r}, {self.initializer!r}{', nonnegative=True' if self.nonnegative else ''})"


@dataclass(frozen=True)
class StepState:
    """Optimizer-level state advanced once per update (not per variable), declared among the ``slots``.

    Args:
        name: its name in ``state_dict()`` and ``hyper`` (``coefficients`` reads it there).
        initial: ``initial(hyper, dtype) -> array``: its value when first created.
        advance: ``advance(value, step, hyper) -> array``: pure; its value after one more update.
        dtype: ``"first"`` (the dtype of the first variable updated), ``"smallest"``
            (the narrowest float dtype among them) or a NumPy dtype name (``"float32"``: PyTorch keeps
            such scalars in its default dtype whatever the variables').
        advance_first: True when an update uses the advanced value (Nadam's ``u_product``),
            False when it uses the value before advancing (TF 1 Adam's beta powers).
    """

    name: str
    initial: Callable
    advance: Callable
    dtype: str = "first"
    advance_first: bool = True


class Rule:
    """A pure update rule and what the pipeline may assume of it.

    Args:
        fn: ``fn(param, grad, *slots, **coefficients) -> (new_param, *new_slots)``.
        per_tensor: the rule reduces over the whole tensor (LAMB's trust ratio): no fused kernel, and
            lazy sparse updates run it on the gathered rows.
        zero_grad_is_identity: ``fn(param, 0, *slots)`` returns its inputs, so exact sparse updates touch
            only the gradient's rows (plus every row's weight decay).
        sparse: the ``sparse_updates`` mode used when the optimizer is not given one (``"exact"`` or ``"lazy"``).
        sparse_fn: the rule of exact sparse updates when a reference computes them in another arithmetic
            order than its dense path (TF 1's sparse Adam: ``m*b1 + g*(1-b1)``).
        lazy_fn: the rule of lazy sparse updates when a reference computes them with other arithmetic than
            its dense path (PyTorch's ``SparseAdam``: Keras' epsilon placement). It takes the same
            arguments as ``fn``.

    Example:
        >>> import numpy as np
        >>> from descend.optimizers import Rule
        >>> def sign_sgd(param, grad, *, learning_rate):
        ...     return (param - learning_rate * np.sign(grad),)
        >>> Rule(sign_sgd, zero_grad_is_identity=True).zero_grad_is_identity
        True
    """

    __slots__ = ("fn", "per_tensor", "zero_grad_is_identity", "sparse", "sparse_fn", "lazy_fn")

    def __init__(self, fn: Callable, *, per_tensor: bool = False, zero_grad_is_identity: bool = False,
                 sparse: str = "exact", sparse_fn: Callable | None = None, lazy_fn: Callable | None = None):
        if not callable(fn):
            raise TypeError(f"Rule: `fn` must be a function (param, grad, *slots, **coefficients). Received: {fn!r}")
        if sparse not in ("exact", "lazy"):
            raise ValueError(f"Rule: `sparse` must be 'exact' or 'lazy'. Received: sparse={sparse!r}")
        if sparse_fn is not None and not callable(sparse_fn):
            raise TypeError(f"Rule: `sparse_fn` must be a function or None. Received: {sparse_fn!r}")
        if lazy_fn is not None and not callable(lazy_fn):
            raise TypeError(f"Rule: `lazy_fn` must be a function or None. Received: {lazy_fn!r}")
        self.fn = fn
        self.per_tensor = bool(per_tensor)
        self.zero_grad_is_identity = bool(zero_grad_is_identity)
        self.sparse = sparse
        self.sparse_fn = sparse_fn
        self.lazy_fn = lazy_fn

    def __repr__(self):
        flags = [f for f in ("per_tensor", "zero_grad_is_identity") if getattr(self, f)]
        return f"Rule({getattr(self.fn, '__name__', self.fn)}{''.join(', ' + f + '=True' for f in flags)})"


def as_rule(declared) -> Rule | None:
    """The :class:`Rule` an ``update`` declaration stands for (a function is a :class:`Rule` with defaults)."""
    if declared is None or isinstance(declared, Rule):
        return declared
    if callable(declared):
        return Rule(declared)
    raise TypeError(f"`update` must be a function or a descend.optimizers.Rule. Received: {declared!r}")


def decoupled_decay(param, *, d):
    """Decoupled weight decay: ``param <- param - param * d`` (``d = lr * weight_decay``)."""
    return param - param * d


class WeightDecay:
    """The weight-decay form of the ``decay`` stage: Keras 3's ``var <- var - var * (lr * weight_decay)``
    for every variable not excluded (:meth:`exclude`). An optimizer with another form (Hugging Face's
    ``AdamWeightDecay``) sets ``weight_decay_form`` to a subclass.

    ``fused`` says that the form is this decoupled one, which the rule's fused kernel applies in the
    same pass (``coefficients`` then returns ``{"d": ...}``)."""

    fused = True
    #: True for a form that changes the gradient instead (``L2Penalty``: PyTorch's ``weight_decay``)
    coupled = False

    def __init__(self):
        self._excluded_ids: set[int] = set()
        self._excluded_names: tuple[str, ...] = ()
        self.version = 0

    def exclude(self, var_list=None, var_names=None) -> None:
        """Exempt variables from weight decay: by identity, or by a substring of their names (Keras 3)."""
        self._excluded_ids |= {id(v) for v in (var_list or [])}
        self._excluded_names = tuple(self._excluded_names) + tuple(var_names or ())
        self.version += 1

    def applies_to(self, var: Variable) -> bool:
        """Whether ``var`` decays."""
        if id(var) in self._excluded_ids:
            return False
        return not any(n in var.scoped_name for n in self._excluded_names)

    def coefficients(self, var: Variable, hyper: dict) -> dict | None:
        """The arguments of :meth:`apply` for ``var`` at this step, or None (no decay)."""
        wd = hyper.get("weight_decay")
        if not wd or not self.applies_to(var):
            return None
        t = var.dtype.as_numpy_dtype
        return {"d": t(wd) * t(hyper["learning_rate"])}

    @staticmethod
    def apply(param, **coefficients):
        """The decayed value of ``param`` (pure)."""
        return decoupled_decay(param, **coefficients)

    def get_config(self) -> dict:
        return {}


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


# ================================================================================================ hook rules
class HookRule:
    """The rule of an optimizer written in TF 2's or Keras 3's spelling: hooks that update the variables
    themselves. Subclasses implement :meth:`create` and :meth:`update`."""

    is_hook = True
    per_tensor = False
    zero_grad_is_identity = False
    slot_specs: tuple = ()
    step_specs: tuple = ()
    slot_names: list = []

    def __init__(self, optimizer):
        self._owner = weakref.ref(optimizer)  # no cycle: the optimizer caches its rule

    @property
    def optimizer(self):
        """The optimizer whose hooks this rule calls."""
        return self._owner()

    def create(self, var_list: list) -> None:
        """Create the state of new variables (called once per new variable)."""
        raise NotImplementedError

    def update(self, gradient, variable, context: dict) -> None:
        """Update ``variable`` with ``gradient`` (a Tensor, or IndexedSlices with unique sorted indices).

        ``context`` holds ``step``, ``hyper`` and ``coefficients``; it is shared by the variables of one update."""
        raise NotImplementedError
