"""The batched dense step's remembered list: what does not change from one step to the next.

A training loop calls ``apply_gradients`` with the same variables, in the same order, with dense
gradients of the same dtypes and shapes, every step. The general pipeline
(:mod:`descend.optimizers.pipeline`) works that out again each time, variable by variable (about
5 us per variable: 5 ms a step for 1,000 tensors, more than the update of 10M parameters costs).
An :class:`Entry` keeps, for one bound list of variables (:mod:`descend.optimizers.bound`), the part
of the pipeline's plan that does not change: the variables, their slot arrays, their weight-decay
flags, and the backend's :class:`~descend._native.backend.DenseBatch` (the offsets table of the
parameters and slots, and the chunk list of the one kernel call). The stages' batched forms
(:meth:`~descend.optimizers.update_plan.Stage.prepare_batched`, ``commit_batched``) run the rest: the
gradients bound to it (type, dtype, shape and layout, each one C-level pass over the list), the
non-finite check, the hyperparameters, step state and coefficients, the kernel over all of them,
the counters.

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
import sys

import numpy as np

__all__ = ["GATHER_BELOW", "GATHER_MIN", "Entry", "enabled", "set_enabled", "stats"]

#: slots smaller than this many bytes move into one buffer per dtype when a list is remembered
#: (larger arrays are long runs already, and NumPy backs them with huge pages)
GATHER_BELOW = 1 << 22
#: ... when those that move add up to at least this many bytes
GATHER_MIN = 1 << 22

#: how many updates the batched step applied (``stats["steps"]``), for tests and profiling
stats: collections.Counter = collections.Counter()

_enabled = True


def enabled() -> bool:
    """Whether ``apply_gradients`` takes the batched step where it can (default True)."""
    return _enabled


def set_enabled(flag: bool) -> bool:
    """Turn the batched step on or off (off: every step takes the general pipeline, for comparison);
    returns the previous setting."""
    global _enabled
    previous, _enabled = _enabled, bool(flag)
    return previous


class _Group:
    """The variables of one dtype in a list: positions, prepared batch, weight-decay flags."""

    __slots__ = ("positions", "batch", "params", "slots", "decay_mask")

    def __init__(self, positions, batch, params, slots, decay_mask):
        self.positions = positions
        self.batch = batch
        self.params = params
        self.slots = slots
        self.decay_mask = decay_mask


class Entry:
    """The remembered list of one bound list of variables (see the module docstring): ``groups`` holds one
    :class:`_Group` per dtype, or is None when this list cannot take the batched step."""

    __slots__ = ("variables", "groups", "versioned", "kernel", "decay_key")

    def __init__(self, variables, groups, versioned, kernel, decay_key):
        self.variables = variables
        self.groups = groups          # [_Group], one per dtype; None: this list cannot take the batched step
        self.versioned = versioned    # the Variables whose version an update bumps (each variable and its slots)
        self.kernel = kernel
        self.decay_key = decay_key

    @classmethod
    def build(cls, opt, rule, variables, kernel) -> Entry:
        """The entry of ``variables`` (distinct plain Variables whose state exists), their small slots moved
        into one buffer per dtype (:func:`_gather_slots`)."""
        entry = cls(variables, None, [], kernel, opt.weight_decay_form.version)
        state = opt.state
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

    def refresh_decay(self, opt) -> None:
        """Recompute the weight-decay flags when ``exclude_from_weight_decay`` was called since."""
        form = opt.weight_decay_form
        if self.decay_key != form.version:
            for g in self.groups:
                g.decay_mask = np.fromiter((form.applies_to(self.variables[i]) for i in g.positions), np.bool_,
                                           len(g.positions))
            self.decay_key = form.version

    def bind(self, values: list) -> list | None:
        """Each dtype group's backend batch bound to its gradients (None: one does not fit; nothing changed)."""
        groups = self.groups
        bound = []
        for g in groups:
            b = g.batch.bind(values if len(groups) == 1 else [values[k] for k in g.positions])
            if b is None:
                return None
            bound.append(b)
        return bound


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
