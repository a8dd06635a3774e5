"""Conventions: the same optimizer as another framework computes it.

"Adam" is several algorithms: Keras folds the bias correction into the step size and adds epsilon to
the uncorrected ``sqrt(v)``, PyTorch divides by ``sqrt(v_hat) + eps``, optax can add ``eps_root``
under the root, and their defaults differ. Every optimizer computes Keras 3's arithmetic unless
it is given ``convention=``:

* ``"keras"`` (the default): Keras 3, bit for bit;
* ``"tf1"``: TensorFlow 1's ``tf.compat.v1.train`` optimizer of the same name, bit for bit (the
  arithmetic of ``descend.compat.v1.train``, declared once, in the optimizer's own file; TF 1 has no
  weight decay: ``weight_decay`` is descend's decoupled decay, as for ``descend.compat.v1.train``);
* ``"torch"``: ``torch.optim`` (within 1e-12 relative in float64);
* ``"optax"``: optax (within 1e-12 relative in float64).

A convention is declared beside the optimizer's own rule, in the optimizer's file, as a
:class:`Convention` subclass: the contract's names (``update``, ``slots``, ``coefficients``,
``catch_up``) written exactly as an optimizer class writes them -- ``self`` is the optimizer --
plus that framework's defaults and the arguments it has or lacks. The optimizer class lists its
conventions in ``conventions = {"torch": TorchAdam, ...}``; :class:`~descend.optimizers.Optimizer`
selects the declarations in one place (its ``rule``), and the pipeline runs them as any rule:
fused kernels, sparse updates, ``preview``, checkpoints. ``docs/semantics.md`` lists every
difference, with its formula and the first step at which it changes the numbers.

Example:
    >>> import descend as ds
    >>> w = ds.Variable([1.0], name="w")
    >>> opt = ds.optimizers.Adam(0.1, convention="torch")
    >>> opt.epsilon, opt.convention                      # PyTorch's default epsilon
    (1e-08, 'torch')
    >>> _ = opt.apply_gradients([(ds.constant([0.5]), w)])
    >>> try:
    ...     ds.optimizers.SGD(0.1, dampening=0.5)            # a PyTorch-only argument under Keras'
    ... except ValueError as e:
    ...     print(e)
    `dampening` is an argument of SGD's 'torch' convention only. Received: dampening=0.5 with convention='keras'
"""

from __future__ import annotations

import inspect

import numpy as np

from .rule import WeightDecay

__all__ = ["CONVENTIONS", "Convention", "Default", "L2Penalty", "conventions_of", "declared"]

#: every convention name, the default first
CONVENTIONS = ("keras", "tf1", "torch", "optax")

#: what each convention follows, for messages and documentation
FRAMEWORKS = {"keras": "Keras 3", "tf1": "TensorFlow 1 (tf.compat.v1.train)", "torch": "PyTorch (torch.optim)",
              "optax": "optax"}


class Default(float):
    """A constructor default (Keras 3's value) that another convention replaces with its own.

    It is the number itself (``Default(1e-7) == 1e-7``; signatures show Keras 3's defaults); only
    an argument left at it takes the convention's default."""

    __slots__ = ()

    def __repr__(self):
        return float.__repr__(self)


class Convention:
    """Another framework's arithmetic for one optimizer, declared in that optimizer's file.

    Class attributes (all optional):

    * ``framework``: ``"tf1"``, ``"torch"`` or ``"optax"``; ``reference``: what it reproduces
      (``"torch.optim.Adam"``).
    * ``update``, ``slots``, ``catch_up``, ``coefficients``: the contract's names, declared as an
      optimizer class declares them (``self`` is the optimizer: a property may read its arguments);
      left out, the optimizer's own (Keras 3's) is used -- the formula is the same.
    * ``defaults``: ``{argument: value}``, this framework's default of an argument the user left at
      descend's (``learning_rate``, ``epsilon``, ``weight_decay``, ...).
    * ``accepts``: the arguments only this convention has (PyTorch's ``dampening``); under another
      convention giving one raises ``ValueError``.
    * ``lacks``: descend's arguments this framework does not have (TF 1 Adam's ``weight_decay``);
      giving one raises ``ValueError``.
    * ``refuses``: ``{argument: why}``, arguments the framework has but descend does not reproduce
      under this convention; giving one raises ``ValueError`` saying why.
    * ``weight_decay``: how ``weight_decay`` acts: ``"decoupled"`` (Keras 3's
      ``var <- var - var * (lr * wd)`` before the rule, by the pipeline) or ``"l2"`` (PyTorch's
      default: ``g <- g + wd * var`` before the rule, :class:`L2Penalty`).
    """

    framework: str = ""
    reference: str = ""
    defaults: dict = {}
    accepts: tuple = ()
    lacks: tuple = ()
    refuses: dict = {}
    weight_decay: str = "decoupled"
    update = None
    slots = None
    catch_up = None
    coefficients = None


def conventions_of(cls) -> dict:
    """``{name: Convention subclass}`` of an optimizer class: the nearest ``conventions`` declaration in its
    bases, unless a class in between declares its own rule (``update``, ``slots`` or ``coefficients``) -- a
    subclass with other arithmetic does not inherit its base's conventions."""
    for klass in cls.__mro__:
        names = vars(klass)
        if "conventions" in names:
            return dict(names["conventions"] or {})
        if any(n in names for n in ("update", "slots", "coefficients")):
            return {}
    return {}


def declared(optimizer, convention, name: str):
    """The contract's ``name`` for ``optimizer``: its convention's declaration, bound to the optimizer as an
    attribute of its class would be, or (no convention, or one that does not declare it) the optimizer's own."""
    if convention is not None:
        attr = inspect.getattr_static(convention, name, None)
        if attr is not None:
            return attr.__get__(optimizer, type(optimizer)) if hasattr(attr, "__get__") else attr
    return getattr(optimizer, name)


def check_convention(cls, convention) -> type | None:
    """The :class:`Convention` subclass ``convention`` names for ``cls`` (None for Keras 3's); ValueError naming
    the conventions ``cls`` has otherwise."""
    table = conventions_of(cls)
    have = ["keras", *[c for c in CONVENTIONS if c in table]]
    if not isinstance(convention, str) or convention not in CONVENTIONS:
        raise ValueError(f"`convention` must be one of {', '.join(map(repr, CONVENTIONS))}. "
                         f"Received: convention={convention!r}")
    if convention == "keras":
        return None
    if convention not in table:
        raise ValueError(f"{cls.__name__} has no {convention!r} convention ({FRAMEWORKS[convention]} has no "
                         f"counterpart descend reproduces); {cls.__name__} supports: "
                         f"{', '.join(map(repr, have))}. Received: convention={convention!r}")
    return table[convention]


def resolve(cls, convention, name: str, value, *, unset=None):
    """The value of constructor argument ``name`` under ``convention`` (a :class:`Convention` subclass or
    None for Keras 3's): ``value`` when the user gave it, else the convention's default (``value`` itself,
    as a plain number, when it has none); None when the convention has no such argument. ``unset`` is what
    "not given" looks like besides a :class:`Default` (None, or False for a flag)."""
    given = not (value is None or value is unset or isinstance(value, Default))
    label = getattr(cls, "native_convention", "keras") if convention is None else convention.framework
    others = [c for c, conv in conventions_of(cls).items() if name in conv.accepts]
    if others and (convention is None or name not in convention.accepts):
        if given:
            raise ValueError(f"`{name}` is an argument of {cls.__name__}'s {' and '.join(map(repr, others))} "
                             f"convention{'s' if len(others) > 1 else ''} only. Received: {name}={value!r} with "
                             f"convention={label!r}")
        return None
    if convention is not None and name in convention.refuses:
        if given:
            raise ValueError(f"{cls.__name__} with convention={label!r} does not take `{name}`: "
                             f"{convention.refuses[name]}. Received: {name}={value!r}")
        return None
    if convention is not None and name in convention.lacks:
        if given:
            raise ValueError(f"{convention.reference or FRAMEWORKS[label]} has no `{name}`: {cls.__name__} with "
                             f"convention={label!r} does not take it. Received: {name}={value!r}")
        return None
    if given:
        return value
    if convention is not None and name in convention.defaults:
        return convention.defaults[name]
    return float(value) if isinstance(value, Default) else value


class L2Penalty(WeightDecay):
    """PyTorch's ``weight_decay`` (and optax's ``add_decayed_weights`` before the scaling): an L2 penalty
    added to the gradient before the rule, ``g <- g + weight_decay * var`` -- the weight-decay form of a
    convention declared with ``weight_decay = "l2"``. Exempt variables with
    ``exclude_from_weight_decay`` as for the decoupled form.

    Every row of a table is then updated (the penalty of a row the gradient misses is not zero):
    sparse updates ``"exact"`` apply it to every row, ``"lazy"`` to the gradient's rows only;
    ``"exact_lazy"`` is refused."""

    fused = False    # nothing for a kernel to fold in: the gradient itself changes
    coupled = True   # the stage ``resolve`` adds it to the gradient (``gradient``)

    def coefficients(self, var, hyper: dict) -> dict | None:
        wd = hyper.get("weight_decay")
        if not wd or not self.applies_to(var):
            return None
        return {"l2": wd}  # a Python float: computed in the variable's dtype, as PyTorch's `alpha`

    @staticmethod
    def gradient(grad, param, *, l2):
        """The penalized gradient (a new array): ``grad + l2 * param``."""
        return grad + np.multiply(param, l2)

    @staticmethod
    def apply(param, **coefficients):
        raise RuntimeError("an L2 penalty changes the gradient, not the variable (L2Penalty.gradient)")
