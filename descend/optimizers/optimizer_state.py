"""An optimizer's state, as one object: ``iterations``, the step state, the slots of each variable, the
accumulator of a gradient-accumulation cycle, restored state still waiting for its variables, and the
one protocol that saves and restores all of it (``state_dict`` / ``restore_plan``)."""

from __future__ import annotations

import warnings
from typing import Callable

import numpy as np

from .. import backend
from ..framework import context
from ..framework.tensor import Tensor, to_array
from ..framework.variable import KerasVariable, Variable, no_name_scope
from . import accumulation
from .rule import initial_value

__all__ = ["OptimizerState", "StateRestore", "name_of"]


def name_of(var) -> str:
    return var.scoped_name


def keras_path(var) -> str:
    """The variable's Keras 3 path (a TF variable's name without its output index)."""
    return var.path if isinstance(var, KerasVariable) else var.name[:-2]


def _describe(arr) -> str:
    return f"shape {tuple(arr.shape)} dtype {arr.dtype.name}"


class OptimizerState:
    """Everything an optimizer changes as it trains, and nothing else.

    ``slots``: ``id(var) -> (var, {slot name: Variable})``; ``step_vars``: step state by name;
    ``pending``: restored values of slots (or step state) not created yet, by key; ``accumulator``:
    the running sums of an accumulation cycle (``accumulator_restored``: restored sums not yet
    matched to variables)."""

    def __init__(self, name: str, *, keras_names: bool = True):
        self.name = name
        self.keras_names = keras_names  # slots named as Keras 3 names them (else as TF variables: "w/m:0")
        with no_name_scope():
            self.iterations = KerasVariable(np.int64(0), name=f"{name}/iterations", trainable=False,
                                            _path=f"{name}/iteration")
        self.slots: dict[int, tuple[Variable, dict[str, Variable]]] = {}
        self.slot_order: list[str] = []
        self.keras_slot_names: dict[str, str] = {}  # descend slot name -> Keras 3's, in the slots' paths
        self.step_vars: dict[str, Variable] = {}
        self.pending: dict[str, np.ndarray] = {}
        self.pending_warned = False
        self.var_key: Callable = name_of
        self.skipped_steps = 0
        self.accumulator: accumulation.AccumulatorState | None = None
        self.accumulator_restored: dict | None = None
        self.last_hyper: dict = {}
        self._arrays: dict[int, tuple] = {}  # id(var) -> (param, [slot arrays], [slot Variables])

    # ------------------------------------------------------------------------------------------ reading
    @property
    def step(self) -> int:
        return int(self.iterations._value)

    def find(self, var):
        """``(var, {slot name: Variable})`` of ``var`` (a Variable or a variable's name), or None."""
        if isinstance(var, str):
            return next(((v, s) for v, s in self.slots.values() if var in (v.scoped_name, v.name)), None)
        return self.slots.get(id(var))

    def has(self, var) -> bool:
        return id(var) in self.slots

    def variables(self) -> list:
        """``iterations``, the step state, then the slots by variable."""
        out = [self.iterations, *self.step_vars.values()]
        for _, slots in self.slots.values():
            out.extend(slots.values())
        return out

    def tracked(self) -> list:
        """The variables that have state here, in the order first seen."""
        return [v for v, _ in self.slots.values()]

    def arrays_of(self, var, specs, new_slots=None, copy: bool = False):
        """``(param array, [slot arrays in declaration order], [slot Variables])`` to write ``var``'s update
        into: the variable's own storage (cached), or copies for a preview. ``new_slots`` holds the initial
        values of slots a plan will create (a preview of a first update)."""
        entry = self._arrays.get(id(var))
        if entry is None:
            found = self.slots.get(id(var))
            if found is not None:
                slot_vars = [found[1][s.name] for s in specs]
                entry = (var._value, [s._value for s in slot_vars], slot_vars)
                self._arrays[id(var)] = entry
            else:  # created by a plan's commit: only a preview gets here
                values = new_slots[id(var)][1]
                entry = (var._value, [values[s.name] for s in specs], [])
        if copy:
            return entry[0].copy(), [a.copy() for a in entry[1]], entry[2]
        return entry

    def forget_arrays(self, var) -> None:
        """Drop the cached arrays of ``var`` (its slots' storage moved)."""
        self._arrays.pop(id(var), None)

    # ------------------------------------------------------------------------------------------ creating
    def pending_value(self, var, slot_name, shape, dtype):
        key = f"{self.var_key(var)}/{slot_name}"
        value = self.pending.get(key)
        if value is None:
            return None
        if value.shape != tuple(shape) or value.dtype != dtype:
            raise ValueError(f"restored state '{key}' has shape {value.shape} and dtype {value.dtype}; the slot "
                             f"needs shape {tuple(shape)} and dtype {np.dtype(dtype).name}")
        return value

    def register_slot(self, var, slot_name, value, *, fresh: bool = False) -> Variable:
        # fresh: ``value`` was just made for this slot (not restored state, nobody else holds it): the slot
        # takes it as its storage instead of a copy, so creating the slots of a large table allocates each
        # once (the copy of np.full would be a second table-sized array; NumPy's zeros stay unmapped until
        # the lazy path touches their rows)
        restored = self.pending.pop(f"{self.var_key(var)}/{slot_name}", None)
        self._arrays.pop(id(var), None)
        with no_name_scope(), context.state_of(var):
            if self.keras_names:
                keras_slot = self.keras_slot_names.get(slot_name, slot_name)
                slot = KerasVariable(value, name=f"{var.scoped_name}/{slot_name}", trainable=False,
                                     _own=fresh and value is not restored,
                                     _path=f"{self.name}/{keras_path(var).replace('/', '_')}_{keras_slot}")
            else:
                slot = Variable(value, name=f"{var.scoped_name}/{slot_name}", trainable=False,
                                _own=fresh and value is not restored)
        self.slots.setdefault(id(var), (var, {}))[1][slot_name] = slot
        if slot_name not in self.slot_order:
            self.slot_order.append(slot_name)
        return slot

    def add_slot(self, var: Variable, slot_name: str, initializer="zeros", shape=None, dtype=None) -> Variable:
        """Create (once) and return the slot ``slot_name`` of ``var``, named ``var.name/slot_name``."""
        _, slots = self.slots.setdefault(id(var), (var, {}))
        if slot_name in slots:
            return slots[slot_name]
        shape = var.shape if shape is None else tuple(shape)
        dtype = var._value.dtype if dtype is None else np.dtype(backend.np_dtype(dtype))
        value = self.pending_value(var, slot_name, shape, dtype)
        fresh = value is None
        if fresh:
            value = initial_value(initializer, shape, dtype)
        return self.register_slot(var, slot_name, value, fresh=fresh)

    def _step_variable(self, value, name: str) -> Variable:
        # optimizer-level state: a Keras 3 variable (``adam/u_product``), or a TF one for TF 1's optimizers
        make = KerasVariable if self.keras_names else Variable
        return make(value, name=f"{self.name}/{name}", trainable=False)

    def add_state_variable(self, name: str, initial_value) -> Variable:
        """Create (once) and return optimizer-level state, saved and restored under ``name``."""
        if name not in self.step_vars:
            restored = self.pending.pop(name, None)
            with no_name_scope():
                self.step_vars[name] = self._step_variable(initial_value if restored is None else restored, name)
        return self.step_vars[name]

    def plan_slots(self, var_list, specs) -> dict:
        """Initial values of the declared slots of new variables (restored values where pending)."""
        out = {}
        for v in var_list:
            if id(v) in self.slots or id(v) in out:
                continue
            values = {}
            for spec in specs:
                self.keras_slot_names.setdefault(spec.name, spec.keras_name)
                dtype = v._value.dtype
                value = self.pending_value(v, spec.name, v.shape, dtype)
                if value is None and isinstance(spec.initializer, str) and spec.initializer == "variable":
                    value = np.array(v._value, dtype=dtype)  # a copy of the variable's value (ScheduleFreeAdamW's z)
                values[spec.name] = initial_value(spec.initializer, v.shape, dtype) if value is None else value
            out[id(v)] = (v, values)
        return out

    def plan_step_states(self, var_list, hyper, step_specs) -> dict:
        """Initial values of the step state not created yet (restored values where pending)."""
        out = {}
        for ss in step_specs:
            if ss.name in self.step_vars:
                continue
            dtypes = [v._value.dtype for v in var_list]
            if ss.dtype == "first":
                dtype = dtypes[0]
            elif ss.dtype == "smallest":
                dtype = min(dtypes, key=lambda d: d.itemsize)
            else:
                dtype = np.dtype(ss.dtype)
            restored = self.pending.get(ss.name)
            out[ss.name] = np.array(restored) if restored is not None else np.asarray(ss.initial(hyper, dtype), dtype)
        return out

    def create(self, new_slots: dict, new_steps: dict) -> None:
        """Create the slots and step state a plan made the initial values of (cannot fail)."""
        for var, values in new_slots.values():
            self.slots.setdefault(id(var), (var, {}))
            for name, value in (values or {}).items():  # initial values made by plan_slots, or restored state
                self.register_slot(var, name, value, fresh=True)
        for name, value in new_steps.items():
            self.pending.pop(name, None)
            with no_name_scope():
                self.step_vars[name] = self._step_variable(value, name)
        if self.pending and not self.pending_warned and new_slots:
            self.pending_warned = True
            warnings.warn(f"restored optimizer state {sorted(self.pending)[:10]} matches none of the variables this "
                          "optimizer has built; it is kept until those variables appear (assert_state_consumed() "
                          "checks)", stacklevel=5)

    def drop_pending_of(self, var) -> None:
        """Forget restored slots of ``var`` (another replica keeps them: sharded optimizer state)."""
        prefix = f"{self.var_key(var)}/"
        for key in [k for k in self.pending if k.startswith(prefix) and "/" not in k[len(prefix):]]:
            del self.pending[key]

    # ------------------------------------------------------------------------------------------ the protocol
    def state_dict(self, hyper, var_key: Callable | None = None) -> dict[str, np.ndarray]:
        """Copies of every piece of state (see ``Optimizer.state_dict``); ``hyper``: the Hyperparameters."""
        key = var_key or name_of
        out = {"iterations": self.iterations.numpy(), "skipped_steps": np.asarray(self.skipped_steps, np.int64)}
        out.update({name: v.numpy() for name, v in self.step_vars.items()})
        for k, v in hyper.values.items():  # numbers by value; a schedule or callable is code: only marked
            out[f"hyper:{k}" if isinstance(v, float) else f"hyper:{k}:schedule"] = (
                np.asarray(v, np.float64) if isinstance(v, float) else np.asarray(1, np.int8))
        out.update({k: v.copy() for k, v in self.pending.items()})
        for var, slots in self.slots.values():
            out.update({f"{key(var)}/{name}": s.numpy() for name, s in slots.items()})
        if self.accumulator_restored is not None:
            out.update({f"accumulator:{k}": np.array(v) for k, v in self.accumulator_restored.items()})
        elif self.accumulator is not None and self.accumulator.step:
            names = [key(v) for v in self.accumulator.keys]
            out.update({f"accumulator:{k}": v for k, v in accumulation.to_arrays(self.accumulator, names).items()})
        return out

    def restore_plan(self, optimizer, state: dict, var_key: Callable | None = None, *,
                     strict: bool = True) -> StateRestore:
        """Check ``state`` against ``optimizer``'s declarations; change nothing (see ``Optimizer.restore_plan``)."""
        key = var_key or name_of
        hyper = optimizer.hyper
        rule = optimizer.rule
        arrays = {}
        invalid = []
        for k, value in dict(state).items():
            try:
                arrays[str(k)] = np.array(to_array(value) if isinstance(value, (Tensor, Variable)) else value)
            except Exception as e:  # noqa: BLE001 -- any unreadable value is reported by name
                invalid.append(f"{k}: not an array ({type(e).__name__})")
        plan = StateRestore(optimizer, key)
        specs = {s.name: s for s in rule.slot_specs}
        current: dict[str, Variable] = {"iterations": self.iterations, **self.step_vars}
        for var, slots in self.slots.values():
            current.update({f"{key(var)}/{n}": s for n, s in slots.items()})
        step_names = {ss.name for ss in rule.step_specs}
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
                if k[len("hyper:"):-len(":schedule")] not in hyper.values:
                    plan.unexpected.append(k)
                continue
            if k.startswith("hyper:"):
                name = k[len("hyper:"):]
                if name not in hyper.values:
                    plan.unexpected.append(k)
                elif not isinstance(hyper.values[name], float):
                    continue  # a schedule or callable is code: this optimizer's own is kept
                elif arr.shape != () or arr.dtype.kind not in "fiu":
                    plan.mismatched.append(f"{k}: expected a number, received {_describe(arr)}")
                else:
                    try:
                        hyper.check_range(name, float(arr))
                    except ValueError as e:
                        invalid.append(f"{k}: {e}")
                        continue
                    plan.hyper[name] = float(arr)
                continue
            if k.startswith("accumulator:"):
                if optimizer.gradient_accumulation_steps is None:
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
            elif k in step_names or rule.is_hook or ("/" in k and (
                    spec is not None or (slot_name == "average" and optimizer.use_ema))):
                plan.deferred[k] = arr  # state of variables (or step state) not created yet
            else:
                plan.unexpected.append(k)
        seen = set(arrays)
        plan.missing = [k for k in current if k not in seen]
        plan.missing += [f"hyper:{k}" for k, v in hyper.values.items()
                         if isinstance(v, float) and f"hyper:{k}" not in seen and f"hyper:{k}:schedule" not in seen]
        if plan.accumulator:
            try:
                names = accumulation.names_in(plan.accumulator)
                accumulation.from_arrays(plan.accumulator, names, tuple(names))
            except ValueError as e:
                invalid.append(str(e))
        if invalid or (strict and (plan.missing or plan.unexpected or plan.mismatched)):
            lines = [f"the state does not match optimizer '{optimizer.name}'"]
            for label, items in (("invalid", invalid), ("missing", plan.missing), ("unexpected", plan.unexpected),
                                 ("mis-shaped", plan.mismatched)):
                if items:
                    shown = items[:20] + ([f"... {len(items) - 20} more"] if len(items) > 20 else [])
                    lines.append(f"  {label}: {shown}")
            raise ValueError("\n".join(lines))
        return plan

    def accumulator_for(self, pairs):
        """The accumulator state a new micro-batch of ``pairs`` adds to (restored sums matched to variables
        by key first)."""
        if self.accumulator_restored is None:
            return self.accumulator
        arrays = self.accumulator_restored
        names = accumulation.names_in(arrays)
        key = self.var_key
        by_key = {key(v): v for _, v in pairs}
        by_key.update({key(v): v for v, _ in self.slots.values() if key(v) not in by_key})
        missing = [n for n in names if n not in by_key]
        if missing:
            raise ValueError(f"restored accumulator holds sums for variables {missing} that this update does not "
                             "name and this optimizer has not seen")
        keys = [by_key[n] for n in names] + [v for _, v in pairs if key(v) not in names]
        return accumulation.from_arrays(arrays, names + [key(v) for v in keys[len(names):]], tuple(keys),
                                        [v.shape for v in keys])


class StateRestore:
    """A checked restore of an optimizer's state (from ``Optimizer.restore_plan``).

    ``restored``, ``deferred`` (kept for variables not created yet), and with ``strict=False``
    ``missing``, ``unexpected`` and ``mismatched`` list the keys; ``commit()`` writes."""

    def __init__(self, optimizer, var_key):
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
        return [v.scoped_name for v, _ in self.values]

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
        state = opt.state
        state.pending = {k: v.copy() for k, v in self.deferred.items()}
        state.pending_warned = False
        state.var_key = self.var_key
        for name, value in self.hyper.items():
            opt.hyper.values[name] = value
        if self.skipped_steps is not None:
            state.skipped_steps = self.skipped_steps
        state.accumulator = None
        state.accumulator_restored = dict(self.accumulator) if self.accumulator else None

    __call__ = commit
