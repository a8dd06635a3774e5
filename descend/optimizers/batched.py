"""The batched dense step: the cached plan of a repeated update.

A training loop calls ``apply_gradients`` with the same variables, in the same order, with dense
gradients of the same dtypes and shapes, every step. The general pipeline
(:mod:`descend.optimizers.pipeline`) works that out again each time, variable by variable (about
5 us per variable: 5 ms a step for 1,000 tensors, more than the update of 10M parameters costs).
:func:`apply` keeps, per optimizer and list of variables, the part of the pipeline's plan that does
not change from one step to the next -- the variables, their slot arrays, their weight-decay flags,
and the backend's :class:`~descend._native.backend.DenseBatch` (the offsets table of the parameters
and slots, and the chunk list of the one kernel call) -- and runs the rest with the pipeline's own
stages: the gradients checked (type, dtype, shape and layout, each one C-level pass over the list),
the non-finite check and the ``resolve`` stage's hyperparameters, step state and coefficients, the
``update`` stage's kernel over all of them, the ``count`` stage's bookkeeping.

It is the general pipeline's result, bit for bit, with the same side effects. It runs only when the
pipeline would run nothing it leaves out: a rule with a fused kernel, dense gradients (Tensors or
ndarrays, none missing), the optimizer's stages the standard ones (``batchable``) with no
accumulation, clipping, moving average, loss-scale factor, ``exact_lazy`` sparse mode, constraint,
routing (``MultiOptimizer``) or aggregation across replicas, the standard weight-decay form, every
variable's slots and step state already created. Anything else -- and any step whose gradients do
not fit the remembered list, or hold a NaN or Inf under a checking ``on_nonfinite`` policy -- goes
through the general pipeline, which decides (and reports errors) exactly as before, nothing having
been written. So the all-or-nothing promise of ``apply_gradients`` holds on both paths.

The remembered lists live in the optimizer (a copy or pickle of it starts with none, since the
offsets table holds addresses of the original's arrays), at most :data:`MAX_LISTS` per
optimizer, least recently used first out. A list holds its variables and slots alive, as the
optimizer's slots already do, and goes with the optimizer.

Example:
    >>> import descend as ds
    >>> w = [ds.Variable([1.0, 2.0], name=f"w{i}") for i in range(3)]
    >>> opt = ds.optimizers.SGD(0.5)
    >>> for _ in range(3):  # the first step creates the state; later ones take the batched step
    ...     _ = opt.apply_gradients([(ds.constant([1.0, 1.0]), v) for v in w])
    >>> w[2].numpy()
    array([-0.5,  0.5], dtype=float32)
"""

from __future__ import annotations

import collections
import operator
import sys
import weakref

import numpy as np

from ..framework.tensor import Tensor
from ..framework.variable import Variable
from . import fused
from .pipeline import aggregation_for
from .plan import UpdatePlan
from .rule import WeightDecay
from .stages import update

__all__ = ["GATHER_BELOW", "GATHER_MIN", "MAX_LISTS", "Repeated", "apply", "clear", "enabled", "set_enabled", "stats"]

#: the most variable lists remembered per optimizer (a GAN's two models, a model and its EMA, ...)
MAX_LISTS = 4
#: slots smaller than this many bytes move into one buffer per dtype when a list is remembered
#: (larger arrays are long runs already, and NumPy backs them with huge pages)
GATHER_BELOW = 1 << 22
#: ... when those that move add up to at least this many bytes
GATHER_MIN = 1 << 22

#: how many updates the batched step applied (``stats["steps"]``), for tests and profiling
stats: collections.Counter = collections.Counter()

_owners: weakref.WeakSet = weakref.WeakSet()  # the optimizers that remember lists (for clear())
_enabled = True
_VALUE = operator.attrgetter("_value")
_CONSTRAINT = operator.attrgetter("_constraint")
_TENSOR, _NDARRAY = {Tensor}, {np.ndarray}
_FIRST, _SECOND, _PAIR, _SEQUENCES = operator.itemgetter(0), operator.itemgetter(1), {2}, {tuple, list}
_COUNT = update.Count()


def enabled() -> bool:
    """Whether ``apply_gradients`` takes the batched step where it can (default True)."""
    return _enabled


def set_enabled(flag: bool) -> bool:
    """Turn the batched step on or off (off: every step takes the general pipeline, for comparison);
    returns the previous setting."""
    global _enabled
    previous, _enabled = _enabled, bool(flag)
    return previous


def clear(optimizer=None) -> None:
    """Forget the remembered variable lists of ``optimizer`` (None: of every optimizer)."""
    for opt in (list(_owners) if optimizer is None else [optimizer]):
        opt.__dict__.pop(_ATTRIBUTE, None)
        _owners.discard(opt)


class _Lists(list):
    """An optimizer's remembered lists (most recent first), kept in the optimizer itself so that they
    go with it (a table keyed weakly by optimizer would hold its variables one garbage collection
    longer when the optimizer dies in a reference cycle). A copy or a pickle of the optimizer gets
    none: the offsets tables hold addresses of the original's arrays."""

    def __copy__(self):
        return _Lists()

    def __deepcopy__(self, memo):
        return _Lists()

    def __reduce__(self):
        return _Lists, ()


_ATTRIBUTE = "_batched_lists"


def _entries(opt) -> _Lists:
    entries = opt.__dict__.get(_ATTRIBUTE)
    if entries is None:
        entries = _Lists()
        object.__setattr__(opt, _ATTRIBUTE, entries)
        _owners.add(opt)
    return entries


class _Group:
    """The variables of one dtype in a list: positions, prepared batch, weight-decay flags."""

    __slots__ = ("positions", "batch", "params", "slots", "decay_mask")

    def __init__(self, positions, batch, params, slots, decay_mask):
        self.positions = positions
        self.batch = batch
        self.params = params
        self.slots = slots
        self.decay_mask = decay_mask


class _Entry:
    __slots__ = ("ids", "variables", "groups", "versioned", "kernel", "decay_key")

    def __init__(self, ids, variables, groups, versioned, kernel, decay_key):
        self.ids = ids
        self.variables = variables
        self.groups = groups          # [_Group], one per dtype; None: this list cannot take the batched step
        self.versioned = versioned    # the Variables whose version an update bumps (each variable and its slots)
        self.kernel = kernel
        self.decay_key = decay_key


def _eligible(opt, rule) -> bool:
    """What holds for the whole optimizer, checked each step in O(1)."""
    if not _enabled or rule.is_hook or rule.per_tensor or not opt.use_fused or not fused.enabled():
        return False
    if (opt.gradient_accumulation_steps is not None or opt.clipnorm is not None or opt.clipvalue is not None
            or opt.global_clipnorm is not None or opt.use_ema or opt._sparse_updates == "exact_lazy"
            or opt.lazy_rows.tables or opt.owner is not None or opt.loss_scale_factor is not None):
        return False
    form = opt.weight_decay_form
    if opt.pipeline.aggregation is not None or (type(form) is not WeightDecay and not (
            form.coupled and "weight_decay" not in opt.hyper.values)):  # an L2 penalty with no weight decay: none
        return False
    if not all(getattr(s, "batchable", False) for s in opt.pipeline.stages):
        return False
    step_vars = opt.state.step_vars
    return all(ss.name in step_vars for ss in rule.step_specs)


def _decay_key(opt):
    return opt.weight_decay_form.version


def _build(opt, rule, ids, variables, kernel) -> _Entry | None:
    """The entry of a list of variables (None: not now -- a variable without slots, which the general
    path creates; the next step builds it)."""
    entry = _Entry(ids, variables, None, [], kernel, _decay_key(opt))
    if len(set(ids)) != len(ids) or not all(type(v) is Variable for v in variables):
        return entry  # the general path reports it (or handles a Variable subclass)
    state = opt.state
    if not all(state.has(v) for v in variables):
        return None
    by_dtype: dict = {}
    for k, v in enumerate(variables):
        by_dtype.setdefault(v._value.dtype, []).append(k)
    _gather_slots(state, rule, variables)
    try:
        arrays = [state.arrays_of(v, rule.slot_specs) for v in variables]
    except KeyError:  # a declared slot missing (the declaration changed): the general path
        return entry
    form = opt.weight_decay_form
    groups = []
    for positions in by_dtype.values():
        params = [arrays[k][0] for k in positions]
        slots = [arrays[k][1] for k in positions]
        batch = kernel.dense_batch(params, slots)
        if batch is None:
            return entry
        mask = np.fromiter((form.applies_to(variables[k]) for k in positions), np.bool_, len(positions))
        groups.append(_Group(positions, batch, params, slots, mask))
    for v, (_, _, slot_vars) in zip(variables, arrays):
        entry.versioned.append(v)
        entry.versioned.extend(slot_vars)
    entry.groups = groups
    return entry


class _Holder:
    __slots__ = ("_value",)


def _sole_reference_count() -> int:
    """What ``sys.getrefcount(holder._value)`` says of an array that only ``holder`` holds (2 on
    CPython up to 3.13; interpreters that borrow references for arguments say less)."""
    holder = _Holder()
    holder._value = np.empty(1)
    return sys.getrefcount(holder._value)


_SOLE = _sole_reference_count()


def _gather_slots(state, rule, variables) -> None:
    """Move the declared slots of the small tensors of ``variables`` into one buffer per dtype
    (the slots of tensor 0, then tensor 1, ..., each on a 64-byte boundary): the update kernel
    then reads and writes them as long runs of memory instead of thousands of separate blocks
    (measured, Adam over 1,000 x 10,000 float32 on 2 cores: 5-10 % faster with the slots in one
    buffer). A slot moves only when nothing but its Variable holds its array (no view of it, no
    other remembered list) and it is smaller than :data:`GATHER_BELOW` bytes; a buffer is made
    only when the slots that move add up to at least :data:`GATHER_MIN` bytes. The slot Variables
    stay the same objects with the same values, shapes and dtypes; only their storage moves."""
    movable: dict = {}  # dtype -> [slot Variable]
    for v in variables:
        state.forget_arrays(v)  # its lists hold the slot arrays (rebuilt by arrays_of)
        slots = state.slots[id(v)][1]
        for spec in rule.slot_specs:
            sv = slots.get(spec.name)
            if (sv is None or type(sv._value) is not np.ndarray or sys.getrefcount(sv._value) != _SOLE
                    or sv._before_read is not None):
                continue
            a = sv._value
            if a.flags.owndata and a.flags.c_contiguous and a.flags.writeable and 0 < a.nbytes < GATHER_BELOW:
                movable.setdefault(a.dtype, []).append(sv)
            del a
    for dtype, slot_vars in movable.items():
        pad = max(64 // dtype.itemsize, 1)
        sizes = [-(-sv._value.size // pad) * pad for sv in slot_vars]
        total = sum(sizes)
        if total * dtype.itemsize < GATHER_MIN:
            continue
        buffer = np.empty(total, dtype)  # (a MemoryError here leaves every slot where it was)
        views, start = [], 0
        for sv, size in zip(slot_vars, sizes):
            view = buffer[start:start + sv._value.size].reshape(sv._value.shape)
            view[...] = sv._value
            views.append(view)
            start += size
        for sv, view in zip(slot_vars, views):
            sv._value = view


def _find(opt, rule, ids, variables) -> tuple[_Entry | None, object]:
    """``(entry, kernel)`` of this list of variables: remembered, or built now (None: not now)."""
    entries = _entries(opt)
    k = next((k for k, e in enumerate(entries) if e.ids == ids), None)
    state = opt.state
    if k is None and not all(i in state.slots for i in ids):
        return None, None  # a first step: the general pipeline creates the state (and compiles the rule)
    kernel = rule.kernel()
    if kernel is None:
        return None, None
    if k is not None:
        e = entries[k]
        if e.kernel is kernel:
            if k:
                entries.insert(0, entries.pop(k))
            if e.groups is not None and e.decay_key != _decay_key(opt):  # exclude_from_weight_decay was called
                form = opt.weight_decay_form
                for g in e.groups:
                    g.decay_mask = np.fromiter((form.applies_to(variables[i]) for i in g.positions), np.bool_,
                                               len(g.positions))
                e.decay_key = _decay_key(opt)
            return e, kernel
        entries.pop(k)  # another rule now (a switched backend, a changed hyperparameter): built again
    entry = _build(opt, rule, ids, variables, kernel)
    if entry is not None:
        entries.insert(0, entry)
        del entries[MAX_LISTS:]
    return entry, kernel


def apply(opt, rule, grads_and_vars):
    """Apply ``grads_and_vars`` with the batched step of ``opt`` (whose rule is ``rule``) and return None, or
    return the pairs (a list, the iterable consumed) for the general pipeline, having changed nothing."""
    pairs = grads_and_vars if type(grads_and_vars) in (list, tuple) else list(grads_and_vars)
    if not pairs:
        return pairs
    if not _eligible(opt, rule):
        return pairs
    try:  # (zip(*pairs) takes 0.3 ms for 1,000 pairs: every pair an argument; these take 0.07)
        if not set(map(type, pairs)) <= _SEQUENCES or set(map(len, pairs)) != _PAIR:
            return pairs  # not (gradient, variable) tuples or lists: the general path says what is wrong
        grads, variables = tuple(map(_FIRST, pairs)), tuple(map(_SECOND, pairs))
    except (TypeError, KeyError, IndexError):
        return pairs
    if aggregation_for(opt, variables) is not None:
        return pairs  # summed across replicas: the general pipeline runs the strategy's stage
    types = set(map(type, grads))
    if types == _TENSOR:
        values = list(map(_VALUE, grads))
    elif types == _NDARRAY:
        values = list(grads)
    else:  # a missing gradient, IndexedSlices, a mix: the general path
        return pairs
    entry = _current_entry(opt, rule, tuple(map(id, variables)), variables)
    if entry is None:
        return pairs
    bound = _bind(entry, values)
    if bound is None or not _step(opt, rule, entry, bound):
        return pairs
    return None


class Repeated:
    """:func:`apply` for one list of variables whose gradients are the same array objects at every call, arrays
    that nobody else writes or reshapes (a compiled plan's gradient buffers, handed to its optimizer node): the
    gradients' type, dtype, shape and layout checks and the backend's offsets table are made once, not per
    step. Everything else is :func:`apply`'s, checked at each call: the optimizer's options, the remembered
    list, constraints, the non-finite policy.

    Example:
        >>> import numpy as np, descend as ds
        >>> from descend.optimizers.batched import Repeated
        >>> w = ds.Variable([1.0, 2.0])
        >>> opt = ds.optimizers.SGD(0.5)
        >>> g = np.ones(2, np.float32)
        >>> _ = opt.apply_gradients([(g, w)])  # (the first step creates the state)
        >>> step = Repeated(opt, [w])
        >>> step.apply([g]), w.numpy()
        (True, array([0., 1.], dtype=float32))
    """

    __slots__ = ("_opt", "_variables", "_ids", "_grads", "_entry", "_bound")

    def __init__(self, opt, variables):
        self._opt = opt
        self._variables = tuple(variables)
        self._ids = tuple(map(id, self._variables))
        self._grads: list | None = None
        self._entry = None
        self._bound = None

    def updates(self, variables) -> bool:
        """Whether this step is of these very variables, in this order."""
        return len(variables) == len(self._variables) and all(map(operator.is_, variables, self._variables))

    def apply(self, grads: list) -> bool:
        """Apply ``grads`` (ndarrays, one per variable) as ``apply_gradients`` would and return True, or return
        False having changed nothing (the caller then calls ``apply_gradients``)."""
        opt = self._opt
        rule = opt.rule
        if not _eligible(opt, rule) or aggregation_for(opt, self._variables) is not None:
            return False
        entry = _current_entry(opt, rule, self._ids, self._variables)
        if entry is None:
            return False
        if entry is self._entry and len(grads) == len(self._grads) and all(map(operator.is_, grads, self._grads)):
            bound = self._bound = [g.batch.rebind(b) for g, b in zip(entry.groups, self._bound)]
        else:
            self._entry = self._grads = self._bound = None
            bound = _bind(entry, grads) if set(map(type, grads)) == _NDARRAY else None
            if bound is None:
                return False
            self._entry, self._grads, self._bound = entry, list(grads), bound
        return _step(opt, rule, entry, bound)


def _current_entry(opt, rule, ids, variables) -> _Entry | None:
    """The remembered entry of these variables when the batched step can take them now, else None."""
    entry, _ = _find(opt, rule, ids, variables)
    if entry is None or entry.groups is None or any(map(_CONSTRAINT, variables)):
        return None
    return entry


def _bind(entry, values: list) -> list | None:
    """Each dtype group's backend batch bound to its gradients (None: one does not fit; nothing changed)."""
    groups = entry.groups
    bound = []
    for g in groups:
        b = g.batch.bind(values if len(groups) == 1 else [values[k] for k in g.positions])
        if b is None:
            return None
        bound.append(b)
    return bound


def _step(opt, rule, entry, bound) -> bool:
    """The step over bound gradients: the non-finite check, then the ``resolve``, ``update`` and ``count``
    stages; False, having changed nothing, when the general path must take it (a NaN or Inf under a checking
    policy, which the general path applies and reports)."""
    groups = entry.groups
    if opt.on_nonfinite != "apply" and any(g.batch.find_nonfinite(b) >= 0 for g, b in zip(groups, bound)):
        return False  # the general path applies the policy (and names the variable)
    # stage resolve: what the general path computes once per step and dtype
    variables = entry.variables
    step = opt.state.step
    hyper, step_state, _ = update.resolve_hyper(opt, rule, step, variables)
    coefficients = {g.batch.dtype: update.coefficients_for(rule, step, hyper, g.batch.dtype) for g in groups}
    decays = [None] * len(groups)
    if hyper.get("weight_decay"):
        for k, g in enumerate(groups):
            t = g.batch.dtype.type
            d = np.zeros(g.batch.n, g.batch.dtype)
            d[g.decay_mask] = t(hyper["weight_decay"]) * t(hyper["learning_rate"])
            decays[k] = d
    # stage update: nothing above wrote anything, nothing below can fail on user input
    for v in entry.versioned:
        v._version += 1
    for k, (g, b) in enumerate(zip(groups, bound)):
        if not g.batch.apply(b, coefficients[g.batch.dtype], decays[k]):  # the NumPy path, as the general path
            rule.dense(rule.fn, None, g.params, b[2], g.slots,
                       [0.0] * g.batch.n if decays[k] is None else list(decays[k]), coefficients[g.batch.dtype])
    # stage count
    _COUNT.commit(UpdatePlan(opt, step=step, hyper=hyper, step_state=step_state))
    stats["steps"] += 1
    return True
