"""``Optimizer``: the class every optimizer derives from.

An optimizer is declared, not programmed (``docs/writing_an_optimizer.md``). Its file declares five
things -- ``slots``, hyperparameters (``add_hyperparameter``), ``coefficients``, the ``update`` rule
and, optionally, ``catch_up`` -- and this class gives it everything else:

* the update pipeline (:mod:`descend.optimizers.pipeline`): ``apply_gradients``, the one template
  (:mod:`descend.optimizers.template`), is ``bind(variables).apply(pairs)`` (:mod:`descend.optimizers.bound`),
  ``commit(prepare(...))``; ``prepare`` runs every stage that can fail and changes nothing;
* the options it was built with, one frozen object (:class:`~descend.optimizers.options.Options`);
* the state, one object (:class:`~descend.optimizers.optimizer_state.OptimizerState`): ``iterations``, slots,
  step state, the accumulator, restored state waiting for its variables, ``state_dict`` /
  ``restore_plan``;
* the hyperparameters (:class:`~descend.optimizers.hyper.Hyperparameters`): ranges, schedules,
  ``get_config``;
* TF 2's and Keras 3's ways of subclassing (hooks that update variables themselves, in
  :mod:`descend.optimizers.spellings`): a class written in one of
  them gets the hook rule of its spelling instead of a declared one.
"""

from __future__ import annotations

import inspect
from typing import Callable, Iterable

import numpy as np

from ..framework.indexed_slices import IndexedSlices
from ..framework.tape import GradientTape
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable, to_snake_case, unique_name
from . import bound, schedules, stages
from .convention import L2Penalty, check_convention, declared, resolve
from .exact_lazy import LazyRows
from .hyper import Hyperparameters, LearningRateValue
from .options import Options
from .pipeline import Pipeline, aggregation_for
from .update_plan import UpdatePlan, check_uncommitted
from .rule import WeightDecay, as_rule
from .spellings import TF2_HOOKS, KerasRule, KerasSpelling, TF2Rule, TF2Spelling
from .stages.update import DeclaredRule
from .optimizer_state import OptimizerState, StateRestore, name_of
from .template import UpdateTemplate

__all__ = ["Optimizer", "VariableList"]


class VariableList(list):
    """The optimizer's variables: a list (Keras 3's ``optimizer.variables``) that can also be called
    (TF's ``optimizer.variables()``)."""

    def __call__(self):
        return self


# the classes that provide a spelling's surface: a hook they define is not the user's
_FRAMEWORK_CLASSES: set = set()


def _spelling_of(cls) -> str:
    """"rule" (declares ``update``), "keras3" (``update_step``), "tf2" (``_resource_apply_*`` ...), or "none"."""
    for klass in cls.__mro__:
        if klass in _FRAMEWORK_CLASSES or klass is object:
            continue
        names = vars(klass)
        if names.get("update") is not None:
            return "rule"
        if "update_step" in names:
            return "keras3"
        if any(h in names for h in TF2_HOOKS):
            return "tf2"
    return "none"


def _option(name: str) -> property:
    """The option ``name`` of the optimizer's :class:`Options`; setting it puts a new, checked ``Options`` in place."""

    def get(self):
        return getattr(self.options, name)

    def set(self, value):
        self.options = self.options.replace(**{name: value})

    return property(get, set, doc=f"The ``{name}`` option (see :class:`~descend.optimizers.options.Options`).")


class Optimizer(UpdateTemplate, KerasSpelling, TF2Spelling):
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
            :meth:`flush`). The default depends on the optimizer's rule.
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
        loss_scale_factor: Keras 3's fixed loss scale: :meth:`scale_loss` multiplies the loss by it and
            the update divides the gradients by it again.
        convention: whose arithmetic the update follows: ``"keras"`` (Keras 3, the default), ``"tf1"``,
            ``"torch"`` or ``"optax"``, where the optimizer declares that convention
            (:mod:`descend.optimizers.convention`; ``docs/semantics.md`` lists the differences).
            Arguments left at their defaults take that framework's defaults.
        name: the optimizer's name (prefix of its ``iterations`` variable).
    """

    # ------------------------------------------------------------------ the contract (five names)
    #: per-variable state (``Slot``) and optimizer-level step state (``StepState``); may be a property
    slots: tuple = ()
    #: the pure rule ``fn(param, grad, *slots, **coefficients)``, or a ``Rule`` saying more of it; may be a property
    update = None
    #: how ``sparse_updates="exact_lazy"`` catches a skipped row up: a pure closed form, ``"replay"``, or None
    catch_up = None

    def coefficients(self, step: int, hyper: dict, dtype) -> dict:
        """Per-step scalars the rule needs, computed once per update and dtype (pure).

        ``hyper`` holds the hyperparameters' values at this step as Python
        floats, and the step states' values as this update uses them; ``step``
        is ``iterations`` before the update. Cast with ``dtype.type(x)`` what
        the reference implementation computes in the variable's dtype; leave
        the rest as Python floats, which NumPy treats as weak scalars.
        Default: every hyperparameter except ``weight_decay``.
        """
        return {k: v for k, v in hyper.items() if k != "weight_decay" and k in self.hyper.values}

    #: run elementwise rules as fused kernels when numba is available
    use_fused: bool = True

    #: whose arithmetic the class's own declarations are (TF 1's classes in ``descend.compat.v1.train``: "tf1")
    native_convention: str = "keras"

    #: the constructor takes TF 2's ``decay`` (TF 2's ``OptimizerV2``; any class written with TF 2's hooks does)
    takes_tf2_arguments: bool = False

    #: how a subclass extends the optimizer ("rule", "keras3", "tf2"; set for each subclass as it is defined)
    _spelling: str = "none"

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._spelling = _spelling_of(cls)

    def __init__(self, learning_rate=0.001, *, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, sparse_updates: str | None = None,
                 gradient_accumulation_steps: int | None = None, on_nonfinite: str = "raise",
                 use_ema: bool = False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 loss_scale_factor=None, convention: str = "keras", name: str | None = None, **kwargs):
        # TF 2's constructor arguments, read here only (descend.optimizers.legacy.OptimizerV2 passes them on)
        if isinstance(learning_rate, str):  # Keras 2 / TF spelling: Optimizer(name, **kwargs)
            name, learning_rate = learning_rate, kwargs.pop("learning_rate", None)
        if "lr" in kwargs:  # Keras 2 alias
            learning_rate = kwargs.pop("lr")
        tf2 = type(self).takes_tf2_arguments or type(self)._spelling == "tf2"
        decay = kwargs.pop("decay", 0.0) if tf2 else 0.0  # TF 2's inverse-time decay
        if kwargs:
            raise TypeError(f"{type(self).__name__}: argument(s) not recognized: {sorted(kwargs)}")
        # the convention first: it gives the defaults of the arguments below (and of the subclass's)
        self._convention = check_convention(type(self), convention)
        learning_rate = self.conventional("learning_rate", learning_rate)
        weight_decay = self.conventional("weight_decay", weight_decay)
        object.__setattr__(self, "hyper", Hyperparameters())
        self._rule_version = 0
        self._rule_cache = None
        if name is not None and (not isinstance(name, str) or not name):
            raise ValueError(f"`name` must be a non-empty string. Received: name={name!r}")
        # Keras 3: the snake-case class name, unique in the session (a second Adam() is adam_1)
        self._name = name or unique_name(to_snake_case(type(self).__name__))
        self._set_initial_decay(decay)
        if learning_rate is not None:
            self.add_hyperparameter("learning_rate", learning_rate, low=0)
        if weight_decay is not None:
            self.add_hyperparameter("weight_decay", weight_decay, low=0)
        #: the options it was built with: one frozen, checked object (``get_config``, the stages and the batched
        #: step read it)
        self.options = Options(clipnorm=clipnorm, clipvalue=clipvalue, global_clipnorm=global_clipnorm,
                               sparse_updates=sparse_updates, gradient_accumulation_steps=gradient_accumulation_steps,
                               on_nonfinite=on_nonfinite, use_ema=use_ema, ema_momentum=ema_momentum,
                               ema_overwrite_frequency=ema_overwrite_frequency, loss_scale_factor=loss_scale_factor)
        if sparse_updates == "exact_lazy":
            _check_exact_lazy(type(self), self._convention)
        self.owner = None  # a MultiOptimizer routing variables to this optimizer
        # PyTorch's weight_decay is an L2 penalty added to the gradient for most of its optimizers
        coupled = self._convention is not None and self._convention.weight_decay == "l2"
        self.weight_decay_form = L2Penalty() if coupled else WeightDecay()
        self.state = OptimizerState(self._name, keras_names=self.convention == "keras")
        self.lazy_rows = LazyRows()
        self.pipeline = Pipeline()
        if type(self)._spelling == "keras3":
            self.built = False  # until its build() runs (Keras 3: a subclass creates its state there)

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_rule_cache"] = None  # refers back to this optimizer (weakly): a copy builds its own
        return state

    clipnorm = _option("clipnorm")
    clipvalue = _option("clipvalue")
    global_clipnorm = _option("global_clipnorm")
    gradient_accumulation_steps = _option("gradient_accumulation_steps")
    on_nonfinite = _option("on_nonfinite")
    use_ema = _option("use_ema")
    ema_momentum = _option("ema_momentum")
    ema_overwrite_frequency = _option("ema_overwrite_frequency")
    loss_scale_factor = _option("loss_scale_factor")

    # ================================================================== the rule
    @property
    def rule(self):
        """The rule the ``update`` stage runs: the declarations as a
        :class:`~descend.optimizers.stages.update.DeclaredRule`, or the hook rule of TF 2's or Keras 3's spelling."""
        key = (self._rule_version, self.use_fused)
        cached = self._rule_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        spelling = type(self)._spelling
        if spelling == "rule":  # the declarations of this optimizer's convention (Keras 3's: its own)
            conv = self._convention
            rule = DeclaredRule(self, as_rule(declared(self, conv, "update")), tuple(declared(self, conv, "slots")),
                                declared(self, conv, "catch_up"), declared(self, conv, "coefficients"))
        elif spelling == "keras3":
            rule = KerasRule(self)
        elif spelling == "tf2":
            rule = TF2Rule(self)
        else:
            raise NotImplementedError(f"{type(self).__name__} defines no update rule: set `update` (a pure rule) or "
                                      "write it in TF 2's or Keras 3's spelling")
        self._rule_cache = (key, rule)
        return rule

    @property
    def convention(self) -> str:
        """Whose arithmetic the update follows: ``"keras"``, ``"tf1"``, ``"torch"`` or ``"optax"``."""
        return type(self).native_convention if self._convention is None else self._convention.framework

    def conventional(self, name: str, value, *, unset=None):
        """The value of constructor argument ``name`` under this optimizer's convention: ``value`` when the user
        gave it, else the convention's default (Keras 3's: ``value`` itself); None when the convention has no
        such argument. Raises ``ValueError`` for an argument this convention does not take (another
        convention's only, or one its framework lacks). ``unset``: what "not given" looks like besides a
        :class:`~descend.optimizers.convention.Default` (None; False for a flag)."""
        return resolve(type(self), self.__dict__.get("_convention"), name, value, unset=unset)

    @property
    def sparse_updates(self) -> str:
        """``"exact"``, ``"lazy"`` or ``"exact_lazy"`` (the rule's default when not given)."""
        mode = self.options.sparse_updates
        if mode is None:
            rule = self.rule
            return "exact" if rule.is_hook else rule.rule.sparse
        if mode == "exact_lazy" and not self.__dict__.get("_exact_lazy_checked"):
            _check_exact_lazy(type(self), self._convention, self)
            self.__dict__["_exact_lazy_checked"] = True
        return mode

    @sparse_updates.setter
    def sparse_updates(self, mode) -> None:
        if mode not in ("exact", "lazy", "exact_lazy"):
            raise ValueError(f"`sparse_updates` must be 'exact', 'lazy' or 'exact_lazy'. Received: sparse_updates={mode!r}")
        if mode == "exact_lazy":
            _check_exact_lazy(type(self), self._convention, self)
        if mode != "exact_lazy" and self.lazy_rows.tables:
            self.flush()
        self.options = self.options.replace(sparse_updates=mode)

    # ================================================================== hyperparameters
    def add_hyperparameter(self, name: str, value, *, low=None, high=None, low_open: bool = False,
                           high_open: bool = False, message: str | None = None) -> None:
        """Declare a hyperparameter: a number, a zero-argument callable or a schedule.

        Numbers are checked now against ``[low, high]`` (open ends with
        ``low_open``/``high_open``); callables and schedules each time they are evaluated.
        ``message``, a ``str.format`` template of ``name`` and ``value``, words the error of a value out of
        range (ported optimizers keep their reference's wording, which tests match).
        """
        self.hyper.declare(name, value, low=low, high=high, low_open=low_open, high_open=high_open, message=message)
        self._rule_version += 1

    def set_hyperparameter(self, name: str, value) -> None:
        """Set a hyperparameter to a number (checked against its range), a callable or a schedule."""
        self.hyper.set("learning_rate" if name == "lr" else name, value)
        self._rule_version += 1

    def hyperparameters(self) -> dict:
        """The declared hyperparameters: name -> number, callable or schedule (a copy)."""
        return dict(self.hyper.values)

    def resolve_hyperparameters(self, step: int | None = None) -> dict:
        """Every hyperparameter's value at ``step`` (default: the next update's), checked against its range."""
        return self.hyper.resolve_all(self.state.step if step is None else int(step))

    def get_hyper(self, name: str) -> float:
        """The value ``name`` has at the current step (schedules evaluated)."""
        name = "learning_rate" if name == "lr" else name
        if name not in self.hyper.values:
            raise KeyError(f"{type(self).__name__} has no hyperparameter '{name}'. It has: {sorted(self.hyper.values)}")
        return self.hyper.resolve(name, self.state.step)

    def current_hyper(self, name: str) -> float:
        """The value ``name`` had in the most recent update (for logging and plots);
        before the first update, its value at step 0."""
        name = "learning_rate" if name == "lr" else name
        last = self.state.last_hyper
        if name in last:
            return last[name]
        return self.get_hyper(name)

    def serialize_hyperparameter(self, name: str):
        """A JSON-friendly form of a hyperparameter (a schedule as its config dict)."""
        return self.hyper.serialize("learning_rate" if name == "lr" else name)

    def __getattr__(self, name):
        hyper = self.__dict__.get("hyper")
        if hyper is not None and name in hyper.values:
            return hyper.values[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        hyper = self.__dict__.get("hyper")
        if hyper is not None and name in hyper.values:
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
        return self.hyper.values.get("weight_decay")

    @property
    def name(self) -> str:
        return self._name

    @property
    def iterations(self) -> Variable:
        """The number of updates applied so far (an int64 Variable)."""
        return self.state.iterations

    @property
    def skipped_steps(self) -> int:
        """Updates skipped under ``on_nonfinite="skip"``."""
        return self.state.skipped_steps

    # ================================================================== weight decay
    def exclude_from_weight_decay(self, var_list=None, var_names=None) -> None:
        """Exempt variables from weight decay: by identity, or by a name substring (Keras 3)."""
        self.weight_decay_form.exclude(var_list, var_names)

    # ================================================================== slots and variables
    def get_slot(self, var, slot_name: str) -> Variable:
        """The slot ``slot_name`` of ``var`` (a Variable or a variable's name)."""
        entry = self.state.find(var)
        if entry is None:
            name = var if isinstance(var, str) else getattr(var, "name", var)
            raise KeyError(f"{self._name} has no slots for variable '{name}' (it has not updated it yet)")
        v, slots = entry
        if slot_name not in slots:
            raise KeyError(f"variable '{v.scoped_name}' has no slot '{slot_name}'. Its slots: {sorted(slots)}")
        return slots[slot_name]

    def get_slot_names(self) -> list[str]:
        """Names of the slots this optimizer has (declaration order)."""
        names = list(self.state.slot_order)
        if type(self)._spelling == "rule":
            names += [n for n in self.rule.slot_names if n not in names]
        return names

    def add_slot(self, var: Variable, slot_name: str, initializer="zeros", shape=None, dtype=None) -> Variable:
        """Create (once) and return the slot ``slot_name`` of ``var``, named ``var.name/slot_name``
        (hook-style optimizers; declared slots are created by the pipeline)."""
        return self.state.add_slot(var, slot_name, initializer, shape, dtype)

    def add_state_variable(self, name: str, initial_value) -> Variable:
        """Create (once) and return optimizer-level state that no declared step state covers
        (hook-style optimizers); it is saved and restored under ``name``."""
        return self.state.add_state_variable(name, initial_value)

    @property
    def variables(self) -> VariableList:
        """Every variable the optimizer owns: iterations, step state, then slots by variable.
        A list (Keras 3's property) that can also be called (TF's method)."""
        return VariableList(self.state.variables())

    def build(self, var_list: Iterable[Variable]) -> None:
        """Create the state of ``var_list`` now (it is otherwise created on each variable's first update)."""
        rule = self.rule
        if isinstance(rule, KerasRule):
            self.build_index(var_list)
            return
        state = self.state
        var_list = [v for v in var_list if not state.has(v)]
        if not var_list:
            return
        if rule.is_hook:
            for v in var_list:
                state.slots.setdefault(id(v), (v, {}))
            rule.create(var_list)
            return
        new_slots = state.plan_slots(var_list, rule.slot_specs)
        new_steps = state.plan_step_states(var_list, self.resolve_hyperparameters(), rule.step_specs)
        state.create(new_slots, new_steps)

    @property
    def built(self) -> bool:
        """Whether the state of some variables exists (``build`` or a first update made it), or a Keras-style
        subclass's ``build`` said so (``self.built = True``)."""
        flag = self.__dict__.get("_built_flag")
        return bool(self.state.slots) if flag is None else flag

    @built.setter
    def built(self, value: bool) -> None:
        self.__dict__["_built_flag"] = bool(value)

    def pending_state(self) -> list[str]:
        """Keys of restored state still waiting for variables (or step state) to be created."""
        return sorted(self.state.pending)

    def assert_state_consumed(self) -> None:
        """Raise if restored state is still waiting for variables that never appeared."""
        if self.state.pending:
            raise ValueError(f"restored optimizer state was never used: {sorted(self.state.pending)}")

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
        return self.iterations

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
        gradients by the factor again (stage ``validate``)."""
        if self.loss_scale_factor is None:
            return loss
        loss = loss if isinstance(loss, (Tensor, Variable)) else Tensor(to_array(loss))
        return loss * loss._value.dtype.type(self.loss_scale_factor)

    def clip_gradients(self, grads: list) -> list:
        """This optimizer's ``clipnorm``, ``clipvalue`` or ``global_clipnorm`` applied to a list of gradients
        (the ``clip`` stage on its own, Keras 3's ``_clip_gradients``): new Tensors (``IndexedSlices`` stay
        sparse, de-duplicated), None where a gradient is None."""
        present = [k for k, g in enumerate(grads) if g is not None]
        pairs = [(grads[k] if isinstance(grads[k], IndexedSlices) else to_array(grads[k]), None) for k in present]
        clipped, _ = stages.gradients.clip(self, pairs)
        out = [None] * len(grads)
        for k, (g, _) in zip(present, clipped):
            out[k] = g if isinstance(g, IndexedSlices) else Tensor(g)
        return out

    _clip_gradients = clip_gradients

    def bind(self, variables) -> bound.BoundUpdate:
        """The bound plan of an update of ``variables`` (in this order): ``apply_gradients`` with these
        variables is ``bind(variables).apply(pairs)``. Cached per list of variables (the most recent
        ``bound.MAX_BOUND``); see :mod:`descend.optimizers.bound`.

        Example:
            >>> import descend as ds
            >>> w = ds.Variable([1.0, 2.0], name="w")
            >>> opt = ds.optimizers.Adam(0.1)
            >>> step = opt.bind([w])
            >>> _ = step.apply([(ds.constant([1.0, 1.0]), w)])
            >>> step is opt.bind([w]), step.batchable()
            (True, True)
        """
        return bound.bind(self, variables, bound.BoundUpdate)

    def _variables_to_apply(self) -> list:
        return self.state.tracked()

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
        plan = UpdatePlan(self, step=self.state.step, rule=self.rule, weight=weight,
                          raw_global_clipnorm=raw_global_clipnorm, sparse_mode=self.sparse_updates)
        plan.pairs = grads_and_vars
        return self.pipeline.prepare(plan)

    def set_aggregation(self, aggregation) -> None:
        """Sum this optimizer's gradients across replicas with ``aggregation`` (a
        :class:`~descend.optimizers.pipeline.Aggregation`, e.g. Horovod's ``DistributedOptimizer``), whatever
        strategy is active; None returns to the active strategy's."""
        self.pipeline.aggregation = aggregation

    def aggregation_for(self, variables):
        """The aggregation stage an update of ``variables`` runs: the one set with :meth:`set_aggregation`,
        else the one of the strategy active (or owning the variables), else None (one replica)."""
        return aggregation_for(self, variables)

    def commit(self, plan: UpdatePlan) -> None:
        """Write what ``plan`` says: slots, weights, step state, counters, accumulator. Cannot fail on user
        input (everything was checked by :meth:`prepare`); a plan commits once."""
        if plan.optimizer is not self:
            raise ValueError(f"this plan was prepared by optimizer '{plan.optimizer.name}', not '{self._name}'")
        check_uncommitted(plan, self.state.step)
        plan.committed = True
        self.pipeline.commit(plan)

    def preview_plan(self, plan: UpdatePlan, *, slots: bool = False):
        """What committing ``plan`` would write, as copies (see :meth:`preview`); changes nothing."""
        return stages.update.preview(plan, slots)

    def flush(self) -> None:
        """Bring every row of every table updated with ``sparse_updates="exact_lazy"`` up to date.

        Runs by itself before a read of such a table (``numpy()``, ops, a checkpoint, ``state_dict()``)
        and at the end of ``fit``; an embedding lookup catches up only the rows it reads. Nothing to do
        (O(1)) otherwise."""
        self.lazy_rows.flush(self)

    @property
    def _model_variables_moving_average(self) -> list:
        """Keras 3's name for the moving averages of ``use_ema``: one per variable, in the order built."""
        return [slots["average"] for _, slots in self.state.slots.values() if "average" in slots]

    def finalize_variable_values(self, var_list) -> None:
        """With ``use_ema``, copy each variable's moving average into it (Keras 3; ``fit`` calls this at
        the end of training). Variables this optimizer never updated have no average and are left as
        they are; without ``use_ema`` nothing changes."""
        if self.use_ema:
            stages.finish.overwrite_with_averages(self.state, list(var_list))

    # ================================================================== config and state
    def get_config(self) -> dict:
        """A JSON-serializable dict of constructor arguments (schedules as nested dicts)."""
        config = {"name": self._name}
        for k in self.hyper.values:
            config[k] = self.serialize_hyperparameter(k)
        config.update(self.options.config())
        if self.options.sparse_updates is None:
            config["sparse_updates"] = self.sparse_updates  # the rule's default
        if self._initial_decay:
            config["decay"] = self._initial_decay
        if self.convention != type(self).native_convention:
            config["convention"] = self.convention
        return config

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        """Rebuild an optimizer from :meth:`get_config` output."""
        config = dict(config)
        for k, v in config.items():
            if isinstance(v, dict) and "class_name" in v:
                config[k] = schedules.deserialize(v, custom_objects)
        return cls(**config)

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
        ``var_key(variable)`` is the string naming a variable (default its name). Under a convention other than
        the class's own, ``convention:<name>`` marks whose arithmetic the slots hold.
        """
        self.flush()  # exact_lazy: every row and slot up to date before it is copied
        out = self.state.state_dict(self.hyper, var_key)
        if self.convention != type(self).native_convention:
            out[f"convention:{self.convention}"] = np.asarray(1, np.int8)
        return out

    def restore_plan(self, state: dict, var_key: Callable | None = None, *, strict: bool = True) -> StateRestore:
        """Check ``state`` (as :meth:`state_dict` gives it) against this optimizer; change nothing.

        Returns a :class:`~descend.optimizers.optimizer_state.StateRestore` whose ``commit()`` (or call) writes it and
        cannot fail. Raises ``ValueError`` listing every problem: invalid values (negative counters, negative
        values of non-negative slots, non-finite values) always; missing, unexpected or mis-shaped
        entries when ``strict`` (else those entries are left as they are and listed on the plan).
        Slots of variables this optimizer has not created yet are kept and given to the slots when
        they are created (``var_key`` names variables, as in :meth:`state_dict`). State saved under another
        convention (its ``convention:<name>`` mark; none for the class's own) is refused: its slots mean other
        things.
        """
        state = dict(state)
        marks = sorted(str(k)[len("convention:"):] for k in state if str(k).startswith("convention:"))
        for name in marks:
            del state[f"convention:{name}"]
        saved = marks[0] if len(marks) == 1 else type(self).native_convention if not marks else marks
        if saved != self.convention:
            raise ValueError(f"the state does not match optimizer '{self._name}': it was saved with "
                             f"convention={saved!r}; this optimizer has convention={self.convention!r}")
        return self.state.restore_plan(self, state, var_key or name_of, strict=strict)

    def load_state_dict(self, state: dict, var_key: Callable | None = None, *, strict: bool = True) -> None:
        """Restore :meth:`state_dict` output (see :meth:`restore_plan`): all of it, or nothing and an error."""
        self.restore_plan(state, var_key, strict=strict).commit()

    def __repr__(self):
        return f"<{type(self).__name__} '{self._name}' iterations={self.state.step}>"


_FRAMEWORK_CLASSES.update({Optimizer, UpdateTemplate, KerasSpelling, TF2Spelling})


def _static_attr(cls, name):
    """``name`` as the class (or a base) declares it, unbound (a staticmethod's function)."""
    value = inspect.getattr_static(cls, name, None)
    return value.__func__ if isinstance(value, staticmethod) else value


def _check_exact_lazy(cls, convention=None, optimizer=None) -> None:
    """Refuse ``sparse_updates="exact_lazy"`` where it cannot be exact (the one place that decides it, and its
    one message). Without ``optimizer`` (while it is constructed) only what the class (or its convention)
    declares is read, the rest being checked on first use; with it, its rule as built and its weight decay."""
    if optimizer is not None:
        rule = optimizer.rule
        hooks, per_tensor = rule.is_hook, rule.per_tensor
        no_catch_up = not hooks and rule.catch_up is None
        l2_penalty = optimizer.weight_decay_form.coupled and "weight_decay" in optimizer.hyper.values
    else:
        def static(name):  # the class-level declaration (None when a property decides per instance)
            owner = convention if convention is not None and _static_attr(convention, name) is not None else cls
            value = _static_attr(owner, name)
            return None if isinstance(value, property) else value, owner

        update, _ = static("update")
        catch_up, owner = static("catch_up")
        hooks = cls._spelling in ("keras3", "tf2")
        per_tensor = update is not None and as_rule(update).per_tensor
        no_catch_up = catch_up is None and not isinstance(_static_attr(owner, "catch_up"), property)
        l2_penalty = False
    why = None
    if hooks:
        why = "it updates variables in its own code (TF 2 / Keras 3 hooks)"
    elif l2_penalty:
        why = (f"its {optimizer.convention} weight decay is an L2 penalty added to the gradient, which moves every "
               "row at every step")
    elif per_tensor:
        why = "its rule reduces over the whole tensor (per_tensor=True), so a row's update depends on rows it cannot see"
    elif no_catch_up:
        why = "it declares no catch-up (set `catch_up` to a pure closed form or to 'replay')"
    if why is not None:
        raise ValueError(f"{cls.__name__} cannot use sparse_updates='exact_lazy': {why}. Use 'exact' or "
                         "'lazy'. Received: sparse_updates='exact_lazy'")
