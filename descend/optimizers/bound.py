"""``optimizer.bind(variables)``: the update of one list of variables, bound and cached.

A training loop updates the same variables, in the same order, with gradients of the same dtypes and
shapes, every step. :class:`BoundUpdate` is the pipeline's plan for such a list: its ``prepare`` returns
the plan of one update, its ``commit`` writes it, and ``apply`` is both. Eager ``apply_gradients``, the
compiled step's optimizer node (:mod:`descend.compiler.nodes`) and the wrappers' compositions all go
through it; it is the one way into an update (:mod:`descend.optimizers.template`).

An update takes one of two forms, with the same result bit for bit and the same side effects:

* the **general pipeline** (:mod:`descend.optimizers.pipeline`): every stage's ``prepare`` then ``commit``;
* the **batched step**, when every stage the update runs has a batched form
  (:meth:`~descend.optimizers.update_plan.Stage.batches`: each stage decides from the optimizer's
  :class:`~descend.optimizers.options.Options` and its own state; nothing lists the options that keep a
  step off it) and the gradients are dense Tensors or arrays that fit the remembered list
  (:mod:`descend.optimizers.batched`: the variables' slot arrays, weight-decay flags and the backend's
  offsets table, made once). The stages' batched forms then run: the non-finite check over all gradients,
  the hyperparameters and coefficients once per dtype, one kernel call per dtype, the counters.

A step the batched form cannot take -- a sparse or missing gradient, another dtype or shape, a NaN under a
checking ``on_nonfinite`` policy, a call argument (``global_step``, ``clip_norm``, ``weight``: ``prepare``
consumes those) -- goes through the general pipeline, which decides (and reports errors) exactly as
before, nothing having been written.

The bound plans live in the optimizer (a copy or pickle of it starts with none, since the offsets tables
hold addresses of the original's arrays), at most :data:`MAX_BOUND` per optimizer, least recently used
first out. A bound plan holds its variables alive, as the optimizer's slots already do.

Example:
    >>> import descend as ds
    >>> w = [ds.Variable([1.0, 2.0], name=f"w{i}") for i in range(3)]
    >>> opt = ds.optimizers.SGD(0.5)
    >>> step = opt.bind(w)
    >>> step is opt.bind(w)  # cached per list of variables
    True
    >>> for _ in range(3):  # the first step creates the state; later ones take the batched step
    ...     _ = step.apply([(ds.constant([1.0, 1.0]), v) for v in w])
    >>> w[2].numpy(), [s.name for s in step.stages()]
    (array([-0.5,  0.5], dtype=float32), ['validate', 'check_input', 'clip', 'check_applied', 'resolve', 'update', 'count'])
"""

from __future__ import annotations

import operator
import weakref

import numpy as np

from ..framework.tensor import Tensor
from ..framework.variable import Variable, overwrites_in_use
from . import batched
from .pipeline import aggregation_for
from .update_plan import check_uncommitted

__all__ = ["MAX_BOUND", "BatchedStep", "BoundUpdate", "bind", "bound_plans", "clear", "weak", "strong"]

#: the most variable lists bound per optimizer (a GAN's two models, a model and its EMA, ...)
MAX_BOUND = 4

_owners: weakref.WeakSet = weakref.WeakSet()  # the optimizers that hold bound plans (for clear())
_VALUE = operator.attrgetter("_value")
_CONSTRAINT = operator.attrgetter("_constraint")
_TENSOR, _NDARRAY = {Tensor}, {np.ndarray}
_FIRST, _SECOND, _PAIR, _SEQUENCES = operator.itemgetter(0), operator.itemgetter(1), {2}, {tuple, list}
_ATTRIBUTE = "_bound_plans"


class _Plans(list):
    """An optimizer's bound plans (most recent first), kept in the optimizer itself so that they go with it.
    A copy or a pickle of the optimizer gets none: the offsets tables hold addresses of the original's arrays."""

    def __copy__(self):
        return _Plans()

    def __deepcopy__(self, memo):
        return _Plans()

    def __reduce__(self):
        return _Plans, ()


def bound_plans(optimizer) -> list:
    """The bound plans ``optimizer`` holds, most recently used first (a copy of the list)."""
    return list(optimizer.__dict__.get(_ATTRIBUTE, ()))


def clear(optimizer=None) -> None:
    """Forget the bound plans of ``optimizer`` (None: of every optimizer)."""
    for opt in (list(_owners) if optimizer is None else [optimizer]):
        opt.__dict__.pop(_ATTRIBUTE, None)
        _owners.discard(opt)


def bind(optimizer, variables, make) -> object:
    """The cached bound plan of ``variables`` for ``optimizer``, made with ``make(optimizer, variables)`` when
    there is none. A list holding something other than Variables gets a plan of its own, not cached (its update
    goes to the general pipeline, which reports the error)."""
    variables = tuple(variables)
    plans = optimizer.__dict__.get(_ATTRIBUTE)
    ids = tuple(map(id, variables))  # (the plans hold their variables, all Variables: equal ids are the same
    if plans is not None:            # objects, and a list that is not all Variables matches none of them)
        for k, plan in enumerate(plans):
            if plan.ids == ids:
                if k:
                    plans.insert(0, plans.pop(k))
                return plan
    if not all(isinstance(v, Variable) for v in variables):
        return make(optimizer, variables)
    if plans is None:
        plans = _Plans()
        object.__setattr__(optimizer, _ATTRIBUTE, plans)
        _owners.add(optimizer)
    plan = make(optimizer, variables)
    plans.insert(0, plan)
    del plans[MAX_BOUND:]
    return plan


def weak(optimizer):
    """A weak reference to ``optimizer``: a bound plan lives in its optimizer, so a strong one would make a cycle
    (and keep the optimizer, its variables and a compiled step's buffers alive until a collection)."""
    return weakref.ref(optimizer)


def strong(ref):
    optimizer = ref()
    if optimizer is None:
        raise ReferenceError("the optimizer of this bound plan no longer exists; bind the variables again")
    return optimizer


class BatchedStep:
    """The plan of one batched update (what the stages' batched forms hand each other)."""

    __slots__ = ("optimizer", "rule", "stages", "step", "variables", "groups", "bound", "versioned", "hyper",
                 "step_state", "coefficients", "decays", "committed")

    kind = "apply"

    def __init__(self, optimizer, rule, stages, entry, bound):
        self.optimizer, self.rule, self.stages = optimizer, rule, stages
        self.step = optimizer.state.step
        self.variables, self.groups, self.versioned = entry.variables, entry.groups, entry.versioned
        self.bound = bound
        self.hyper = self.step_state = self.coefficients = self.decays = None
        self.committed = False


class BoundUpdate:
    """The update of one list of variables by one optimizer (see the module docstring).

    ``variables``: the list, in order. :meth:`apply` takes ``(gradient, variable)`` pairs of these variables,
    in this order, as ``apply_gradients`` does."""

    __slots__ = ("_optimizer", "variables", "ids", "_fits", "_owner", "_entry", "_buffers", "__weakref__")

    def __init__(self, optimizer, variables):
        self._optimizer = weak(optimizer)
        self.variables = tuple(variables)
        self.ids = tuple(map(id, self.variables))
        # a batched step needs distinct plain Variables (the general path reports a repeated one, or handles a
        # Variable subclass), routed to this optimizer when a MultiOptimizer owns it
        self._fits = len(set(self.ids)) == len(self.ids) and all(type(v) is Variable for v in self.variables)
        self._owner = None
        self._entry = None      # the batched step's remembered list (batched.Entry), made on its first use
        self._buffers = None    # (entry, gradient arrays, their binding): the very arrays of the last call

    @property
    def optimizer(self):
        """The optimizer (held weakly: it holds its bound plans)."""
        return strong(self._optimizer)

    # ------------------------------------------------------------------ what it runs
    def stages(self) -> tuple:
        """The stages an update of these variables runs now, in order (the aggregation stage of a strategy
        among them)."""
        opt = self.optimizer
        return opt.pipeline.active(opt, aggregation_for(opt, self.variables), opt.pipeline.stages)

    def batchable(self) -> bool:
        """Whether every stage an update runs now has a batched form (then a step with dense gradients that fit
        takes the batched step)."""
        return self._stages_if_batchable() is not None

    def _stages_if_batchable(self):
        opt = self.optimizer
        if not self._fits or not batched.enabled():
            return None
        owner = opt.owner
        if owner is not self._owner:  # (a MultiOptimizer took this optimizer after the list was bound)
            if owner is not None and not all(owner.route(v) is opt for v in self.variables):
                return None
            self._owner = owner
        stages = self.stages()
        for s in stages:
            if not s.batches(opt):
                return None
        return stages

    # ------------------------------------------------------------------ the update
    def prepare(self, grads_and_vars, *, buffers: bool = False, **call):
        """The plan of one update (a :class:`BatchedStep` or the pipeline's ``UpdatePlan``); changes nothing.

        ``call``: the optimizer's call arguments (its ``prepare`` consumes them). ``buffers``: the dense
        gradients are arrays that nobody else writes or reshapes, the same objects from call to call (a
        compiled plan's buffers): their checks are made once, not per step."""
        pairs = grads_and_vars if type(grads_and_vars) in (list, tuple) else list(grads_and_vars)
        step = self._batched(pairs, call, buffers)
        if step is not None:
            return step
        return self.optimizer.prepare(pairs, **call)

    def commit(self, plan) -> None:
        """Write what ``plan`` (from :meth:`prepare`) says; cannot fail on user input."""
        opt = self.optimizer
        if type(plan) is not BatchedStep:
            opt.commit(plan)
            return
        check_uncommitted(plan, opt.state.step)
        plan.committed = True
        for stage in plan.stages:
            stage.commit_batched(plan)
        batched.stats["steps"] += 1

    def apply(self, grads_and_vars, *, buffers: bool = False, **call):
        """``commit(prepare(grads_and_vars, **call))``; returns the optimizer's ``iterations``."""
        self.commit(self.prepare(grads_and_vars, buffers=buffers, **call))
        return self.optimizer.iterations

    # ------------------------------------------------------------------ the batched form
    def _batched(self, pairs, call, buffers) -> BatchedStep | None:
        """The batched step of ``pairs``, or None (the general pipeline takes it; nothing was changed)."""
        if call and any(v is not None for v in call.values()):
            return None  # the call arguments are prepare's
        n = len(self.variables)
        if not n or len(pairs) != n:
            return None
        stages = self._stages_if_batchable()
        if stages is None:
            return None
        try:  # (zip(*pairs) takes 0.3 ms for 1,000 pairs: every pair an argument; these take 0.07)
            if not set(map(type, pairs)) <= _SEQUENCES or set(map(len, pairs)) != _PAIR:
                return None  # not (gradient, variable) tuples or lists: the general path says what is wrong
            if not all(map(operator.is_, map(_SECOND, pairs), self.variables)):
                return None
            grads = list(map(_FIRST, pairs))
        except (TypeError, KeyError, IndexError):
            return None
        opt = self.optimizer
        rule = opt.rule
        entry = self._current_entry(rule)
        if entry is None or any(map(_CONSTRAINT, self.variables)):
            return None
        if overwrites_in_use() and any(v.overwrite_with_gradient for v in self.variables):
            return None  # (the validate stage sets those variables aside)
        types = set(map(type, grads))
        if types == _TENSOR:
            values = list(map(_VALUE, grads))
        elif types == _NDARRAY:
            values = grads
        else:  # a missing gradient, IndexedSlices, a mix: the general path
            return None
        last = self._buffers
        if buffers and last is not None and last[0] is entry and all(map(operator.is_, values, last[1])):
            bound = [g.batch.rebind(b) for g, b in zip(entry.groups, last[2])]
        else:
            bound = entry.bind(values)
            if bound is None:
                self._buffers = None
                return None
            self._buffers = (entry, values, bound) if buffers else None
        step = BatchedStep(opt, rule, stages, entry, bound)
        for stage in stages:
            if not stage.prepare_batched(step):
                return None
        return step

    def _current_entry(self, rule):
        """The remembered list when the batched step can take these variables now, else None."""
        opt = self.optimizer
        kernel = rule.kernel()
        entry = self._entry
        if entry is None or entry.kernel is not kernel:  # (another rule now: a switched backend, a changed
            self._entry = None                            # hyperparameter: made again)
            state = opt.state
            if kernel is None or not all(state.has(v) for v in self.variables):
                return None  # a first step: the general pipeline creates the state (and compiles the rule)
            entry = self._entry = batched.Entry.build(opt, rule, self.variables, kernel)
        elif entry.groups is not None:
            entry.refresh_decay(opt)  # (exclude_from_weight_decay may have been called)
        return entry if entry.groups is not None else None

    def __repr__(self):
        return f"<BoundUpdate of {type(self.optimizer).__name__} '{self.optimizer.name}': {len(self.variables)} variables>"
