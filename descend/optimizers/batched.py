"""The batched dense step: ``apply_gradients`` over a list of variables it has updated before, with
no per-variable Python beyond a few C-level passes over the list.

A training loop calls ``apply_gradients`` with the same variables, in the same order, with dense
gradients of the same dtypes and shapes, every step. The general pipeline
(:mod:`descend.optimizers.pipeline`) works that out again each time, variable by variable (about
5 us per variable: 5 ms a step for 1,000 tensors, more than the update of 10M parameters costs).
:func:`apply` remembers, per optimizer and list of variables, what does not change from one step to
the next -- the variables, their slot arrays, their weight-decay flags, and the backend's
:class:`~descend._native.backend.DenseBatch` (the offsets table of the parameters and slots, and the
chunk list of the one kernel call) -- so that a step only checks the gradients (type, dtype, shape
and layout, each one C-level pass over the list), runs the non-finite check and the update kernel
over all of them, and does the bookkeeping (versions, step state, ``iterations``).

It is the general pipeline's result, bit for bit, with the same side effects: the same kernel, the
same coefficients (computed once per step and dtype as the general path does), the same order of
writes. It only runs when nothing of what it skips can matter: elementwise rule with a fused
kernel, dense gradients (Tensors or ndarrays, none missing), no gradient accumulation, clipping,
moving average, ``exact_lazy`` sparse mode, constraint or routing (``MultiOptimizer``), no
distribution hook that may act (``pipeline.hooks_idle`` says which), no override of a stage it
skips, every variable's slots and step state already created. Anything else -- and any step
whose gradients do not fit the remembered list, or hold a NaN or Inf under a checking
``on_nonfinite`` policy -- goes through the general pipeline, which decides (and reports errors)
exactly as before, nothing having been written. So the
all-or-nothing promise of ``apply_gradients`` holds on both paths.

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
from . import fused, pipeline

__all__ = ["GATHER_BELOW", "GATHER_MIN", "MAX_LISTS", "apply", "clear", "enabled", "set_enabled", "stats"]

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
# what the batched step does in place of these methods: an override anywhere makes it stand aside
_REPLACED = ("prepare", "commit", "aggregate", "_resolve_into", "_write_items", "_arrays_of", "_dense",
             "_kernel", "_rule", "kernels_find_nonfinite", "_plan_slots", "_create", "_resolve_hyper")
_DECAY = ("weight_decay_coefficients", "use_weight_decay", "weight_decay_rule")
# type -> (whether it overrides no replaced method, whether it keeps the default weight decay)
_class_ok: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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


def _class_checks(cls) -> tuple[bool, bool]:
    hit = _class_ok.get(cls)
    if hit is None:
        from .base import Optimizer

        plain = all(getattr(cls, name) is getattr(Optimizer, name) for name in _REPLACED)
        default_decay = all(getattr(cls, name) is getattr(Optimizer, name) for name in _DECAY)
        hit = _class_ok[cls] = (plain, default_decay)
    return hit


def _eligible(opt) -> bool:
    """What holds for the whole optimizer, checked each step in O(1)."""
    if not _enabled or opt.rule_kind != "elementwise" or not opt.use_fused or not fused.enabled():
        return False
    if (opt.gradient_accumulation_steps is not None or opt.clipnorm is not None or opt.clipvalue is not None
            or opt.global_clipnorm is not None or opt.use_ema or opt.sparse_updates == "exact_lazy"
            or opt._lazy_tables or opt.owner is not None or opt.loss_scale_factor is not None):
        return False
    plain, default_decay = _class_checks(type(opt))
    if not plain:
        return False
    d = opt.__dict__
    if any(name in d for name in _REPLACED):  # an instance override (Horovod's ``aggregate``)
        return False
    if not default_decay or any(name in d for name in _DECAY):  # decay decided per variable by other code
        return False
    return all(ss.name in opt._step_vars for ss in opt.step_states())


def _decay_key(opt):
    return len(opt._decay_excluded_ids), opt._decay_excluded_names


def _build(opt, ids, variables, kernel) -> _Entry | None:
    """The entry of a list of variables (None: not now -- a variable without slots, which the general
    path creates; the next step builds it)."""
    entry = _Entry(ids, variables, None, [], kernel, _decay_key(opt))
    if len(set(ids)) != len(ids) or not all(type(v) is Variable for v in variables):
        return entry  # the general path reports it (or handles a Variable subclass)
    if any(i not in opt._slots for i in ids):
        return None
    by_dtype: dict = {}
    for k, v in enumerate(variables):
        by_dtype.setdefault(v._value.dtype, []).append(k)
    _gather_slots(opt, variables)
    try:
        arrays = [opt._arrays_of(None, v, False) for v in variables]
    except KeyError:  # a declared slot missing (the declaration changed): the general path
        return entry
    groups = []
    for positions in by_dtype.values():
        params = [arrays[k][0] for k in positions]
        slots = [arrays[k][1] for k in positions]
        batch = kernel.dense_batch(params, slots)
        if batch is None:
            return entry
        mask = np.fromiter((opt.use_weight_decay(variables[k]) for k in positions), np.bool_, len(positions))
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


def _gather_slots(opt, variables) -> None:
    """Move the declared slots of the small tensors of ``variables`` into one buffer per dtype
    (the slots of tensor 0, then tensor 1, ..., each on a 64-byte boundary): the update kernel
    then reads and writes them as long runs of memory instead of thousands of separate blocks
    (measured, Adam over 1,000 x 10,000 float32 on 2 cores: 5-10 % faster with the slots in one
    buffer). A slot moves only when nothing but its Variable holds its array (no view of it, no
    other remembered list) and it is smaller than :data:`GATHER_BELOW` bytes; a buffer is made
    only when the slots that move add up to at least :data:`GATHER_MIN` bytes. The slot Variables
    stay the same objects with the same values, shapes and dtypes; only their storage moves."""
    cache = opt._array_cache
    movable: dict = {}  # dtype -> [slot Variable]
    for v in variables:
        cache.pop(id(v), None)  # its lists hold the slot arrays (rebuilt by _arrays_of)
        slots = opt._slots[id(v)][1]
        for spec in opt.slot_specs():
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


def _find(opt, ids, variables, rule) -> tuple[_Entry | None, object]:
    """``(entry, kernel)`` of this list of variables: remembered, or built now (None: not now)."""
    entries = _entries(opt)
    k = next((k for k, e in enumerate(entries) if e.ids == ids), None)
    if k is None and not all(i in opt._slots for i in ids):
        return None, None  # a first step: the general pipeline creates the state (and compiles the rule)
    kernel = None if rule is None else opt._kernel(rule)
    if kernel is None:  # (no rule: the general pipeline says so)
        return None, None
    if k is not None:
        e = entries[k]
        if e.kernel is kernel:
            if k:
                entries.insert(0, entries.pop(k))
            if e.groups is not None and e.decay_key != _decay_key(opt):  # exclude_from_weight_decay was called
                for g in e.groups:
                    g.decay_mask = np.fromiter((opt.use_weight_decay(variables[i]) for i in g.positions), np.bool_,
                                               len(g.positions))
                e.decay_key = _decay_key(opt)
            return e, kernel
        entries.pop(k)  # another rule now (a switched backend, a changed hyperparameter): built again
    entry = _build(opt, ids, variables, kernel)
    if entry is not None:
        entries.insert(0, entry)
        del entries[MAX_LISTS:]
    return entry, kernel


def apply(opt, grads_and_vars):
    """Apply ``grads_and_vars`` with the batched step and return None, or return the pairs (a list, the
    iterable consumed) for the general pipeline, having changed nothing."""
    pairs = grads_and_vars if type(grads_and_vars) in (list, tuple) else list(grads_and_vars)
    if not pairs or not _eligible(opt):
        return pairs
    try:
        grads, variables = zip(*pairs, strict=True)
    except (TypeError, ValueError):  # not pairs: the general path says so
        return pairs
    if ((pipeline.cross_replica_sum is not None or pipeline.cross_replica_any is not None
         or pipeline.cross_replica_norm is not None or pipeline.after_commit is not None)
            and (pipeline.hooks_idle is None or not pipeline.hooks_idle(opt, pairs))):
        return pairs  # a distribution strategy's hooks may act: the general pipeline runs them
    types = set(map(type, grads))
    if types == _TENSOR:
        values = list(map(_VALUE, grads))
    elif types == _NDARRAY:
        values = list(grads)
    else:  # a missing gradient, IndexedSlices, a mix: the general path
        return pairs
    rule = opt.update_rule
    entry, _ = _find(opt, tuple(map(id, variables)), variables, rule)
    if entry is None or entry.groups is None or any(map(_CONSTRAINT, variables)):
        return pairs
    groups = entry.groups
    bound = []
    for g in groups:
        b = g.batch.bind(values if len(groups) == 1 else [values[k] for k in g.positions])
        if b is None:
            return pairs
        bound.append(b)
    if opt.on_nonfinite != "apply" and any(g.batch.find_nonfinite(b) >= 0 for g, b in zip(groups, bound)):
        return pairs  # the general path applies the policy (and names the variable)
    # stage resolve: what the general path computes once per step and dtype
    step = int(opt._iterations._value)
    hyper, step_state, _ = opt._resolve_hyper(step, variables)
    coefficients = {g.batch.dtype: opt._coefficients_for(step, hyper, g.batch.dtype) for g in groups}
    decays = [None] * len(groups)
    if hyper.get("weight_decay"):
        for k, g in enumerate(groups):
            t = g.batch.dtype.type
            d = np.zeros(g.batch.n, g.batch.dtype)
            d[g.decay_mask] = t(hyper["weight_decay"]) * t(hyper["learning_rate"])
            decays[k] = d
    # commit: nothing above wrote anything, nothing below can fail on user input
    for v in entry.versioned:
        v._version += 1
    for k, (g, b) in enumerate(zip(groups, bound)):
        if not g.batch.apply(b, coefficients[g.batch.dtype], decays[k]):  # the NumPy path, as the general path
            opt._dense(rule, None, g.params, b[2], g.slots,
                       [0.0] * g.batch.n if decays[k] is None else list(decays[k]), coefficients[g.batch.dtype])
    for name, value in step_state.items():
        var = opt._step_vars[name]
        var._value[...] = value
        var._mark_updated()
    opt._last_hyper = hyper
    opt._iterations._value += 1
    opt._iterations._mark_updated()
    stats["steps"] += 1
    return None
