"""Stages ``resolve`` (everything the writes need, computed before any write), ``update`` (the writes:
weight decay, the rule, constrained values) and ``count`` (``iterations``, step state, counters), the
runtime form of a declared rule, and the preview that runs the writes into copies."""

from __future__ import annotations

import weakref

import numpy as np

from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import Tensor, to_array
from .. import fused
from ..update_plan import ByVariable, Item, Stage, UpdatePlan
from ..rule import Rule, Slot, StepState, WeightDecay

__all__ = ["Count", "DeclaredRule", "Resolve", "Update", "resolve_hyper", "coefficients_for", "preview"]


class DeclaredRule:
    """The declarations of one optimizer as the ``rule`` stage runs them: the rule (and its fused
    kernel), the slot and step-state declarations, the coefficients, the catch-up."""

    is_hook = False

    def __init__(self, optimizer, rule: Rule, specs: tuple, catch_up, coefficients=None):
        self.rule = rule
        self.fn = rule.fn
        self.per_tensor = rule.per_tensor
        self.zero_grad_is_identity = rule.zero_grad_is_identity
        self.sparse_fn = rule.sparse_fn or rule.fn
        self.lazy_fn = rule.lazy_fn or rule.fn
        self.slot_specs = tuple(s if isinstance(s, Slot) else Slot(s) for s in specs if not isinstance(s, StepState))
        self.step_specs = tuple(s for s in specs if isinstance(s, StepState))
        self.slot_names = [s.name for s in self.slot_specs]
        self.catch_up = catch_up
        # a method of the optimizer (its own, or its convention's bound to it); weakly: the optimizer caches this rule
        self._coefficients = weakref.WeakMethod(optimizer.coefficients if coefficients is None else coefficients)
        self.use_fused = optimizer.use_fused
        self.name = type(optimizer).__name__

    def coefficients(self, step: int, hyper: dict, dtype) -> dict:
        """The optimizer's ``coefficients(step, hyper, dtype)``."""
        return self._coefficients()(step, hyper, dtype)

    def kernel(self, fn=None):
        """The fused kernel of ``fn`` (default the rule), or None (per-tensor rule, no numba, fused off)."""
        if self.per_tensor or not self.use_fused or not fused.enabled():
            return None
        return fused.kernel_for(self.fn if fn is None else fn)

    def check_outputs(self, out, n_slots: int):
        if not isinstance(out, (tuple, list)) or len(out) != 1 + n_slots:
            got = len(out) if isinstance(out, (tuple, list)) else type(out).__name__
            want = ", ".join(["new_param"] + ["new_" + s for s in self.slot_names])
            raise TypeError(f"{self.name}'s update rule must return ({want}) -- {1 + n_slots} values. "
                            f"Received: {got}")
        return out

    def dense(self, fn, kernel, params, grads, slot_lists, decays, coefficients) -> None:
        """``fn`` on whole variables, in place: one kernel call for all of them, or NumPy per variable."""
        if kernel is not None and kernel.apply_dense(params, grads, slot_lists, decays, coefficients):
            return
        for param, g, slots, d in zip(params, grads, slot_lists, decays):
            if d:
                param -= param * d
            storage = [param] + slots
            out = self.check_outputs(fn(param, g, *slots, **coefficients), len(slots))
            # a rule may return an input unchanged (pv <- param): copy it before the writes overwrite it
            out = [o.copy() if any(o is a for a in storage) else o for o in out]
            for dst, new in zip(storage, out):
                dst[...] = new

    def rows(self, fn, kernel, param, g, slots, coefficients, idx, d) -> None:
        """``fn`` on the rows ``idx`` of a variable and its slots, in place."""
        if kernel is not None and kernel.apply_rows(param, g, slots, coefficients, idx, d):
            return
        if d:
            param[idx] -= param[idx] * d
        out = self.check_outputs(fn(param[idx], g, *[s[idx] for s in slots], **coefficients), len(slots))
        param[idx] = out[0]
        for s, new in zip(slots, out[1:]):
            s[idx] = new


# ------------------------------------------------------------------------------------------------- resolve
def resolve_hyper(opt, rule, step: int, variables: list) -> tuple[dict, dict, dict]:
    """``(hyper, step_state, new_step_state)``: the hyperparameters at ``step`` (with the step states'
    values this update uses), each step state's value after it, and the initial values of step states
    created now (for ``variables``)."""
    hyper = opt.hyper.resolve_all(step)
    state = opt.state
    new_step_state = state.plan_step_states(variables, hyper, rule.step_specs)
    step_state = {}
    for ss in rule.step_specs:
        var = state.step_vars.get(ss.name)
        current = var._value if var is not None else new_step_state[ss.name]
        advanced = np.asarray(ss.advance(current, step, hyper), current.dtype)
        hyper[ss.name] = advanced if ss.advance_first else current.copy()
        step_state[ss.name] = advanced
    return hyper, step_state, new_step_state


def coefficients_for(rule, step, hyper, dtype) -> dict:
    """The rule's coefficients at ``step`` for ``dtype``. A NumPy scalar of another dtype (``np.sqrt`` of a
    Python float is float64) would promote float32 arrays: it becomes a weak Python float."""
    c = rule.coefficients(step, dict(hyper), dtype)
    return {k: float(v) if isinstance(v, np.floating) and v.dtype != dtype else v for k, v in c.items()}


def items(plan_mode, rule, pairs, hyper, decay_of, form=None) -> list:
    """The plan's items: how each variable's gradient is applied (``plan_mode``: the optimizer's
    ``sparse_updates``), and its weight-decay coefficients (``decay_of(var, hyper)``; None when no variable
    decays). With a coupled form (an L2 penalty, ``form.coupled``) the penalty is added to the gradient here
    instead, from the variable's value before the update."""
    out = []
    for g, var in pairs:
        decay = None if decay_of is None else decay_of(var, hyper)
        if decay is not None and form is not None and form.coupled:
            out.append(_penalized(plan_mode, form, g, var, decay))
            continue
        if type(g) is not IndexedSlices:
            out.append(Item(var, g, None, None, "dense", decay))
            continue
        idx, vals = g.indices._value, g.values._value
        if plan_mode == "lazy":
            out.append(Item(var, None, idx, vals, "rows", decay))
        elif plan_mode == "exact_lazy":
            # exact at the touched rows' cost: they are caught up over the steps they skipped, then updated
            out.append(Item(var, None, idx, vals, "exact_lazy", decay))
        elif not rule.is_hook and not rule.per_tensor and rule.zero_grad_is_identity:
            # exact == the touched rows, since a zero gradient changes nothing; the decay still covers every row
            out.append(Item(var, None, idx, vals, "rows", decay, decay_all_rows=decay is not None))
        else:
            out.append(Item(var, None, idx, vals, "densify", decay))
    return out


def _penalized(plan_mode, form, g, var, decay) -> Item:
    """The item of ``var`` whose gradient gains ``form``'s penalty: every row (dense, or exact sparse), or the
    gradient's rows (lazy)."""
    param = var._value
    if type(g) is not IndexedSlices:
        return Item(var, form.gradient(to_array(g), param, **decay), None, None, "dense", None)
    idx, vals = g.indices._value, g.values._value
    if plan_mode == "lazy":
        return Item(var, None, idx, form.gradient(vals, param[idx], **decay), "rows", None)
    full = np.zeros_like(param)
    full[idx] = vals
    return Item(var, form.gradient(full, param, **decay), None, None, "dense", None)


class Resolve(Stage):
    """Stage ``resolve``: hyperparameters and schedules at this step, step state advanced, coefficients per
    dtype, new slots' initial values, the items with their weight-decay factors, and the outputs of
    constraints (a raising constraint refuses the update)."""

    name = "resolve"

    def batches(self, optimizer) -> bool:
        # the standard decoupled decay (or an L2 penalty with no weight decay: none), every step state created
        form = optimizer.weight_decay_form
        if type(form) is not WeightDecay and not (form.coupled and "weight_decay" not in optimizer.hyper.values):
            return False
        step_vars = optimizer.state.step_vars
        return all(ss.name in step_vars for ss in optimizer.rule.step_specs)

    def prepare_batched(self, step) -> bool:
        # what the general path computes once per step and dtype
        opt, rule, groups = step.optimizer, step.rule, step.groups
        step.hyper, step.step_state, _ = resolve_hyper(opt, rule, step.step, step.variables)
        hyper = step.hyper
        step.coefficients = {g.batch.dtype: coefficients_for(rule, step.step, hyper, g.batch.dtype) for g in groups}
        step.decays = [None] * len(groups)
        if hyper.get("weight_decay"):
            for k, g in enumerate(groups):
                t = g.batch.dtype.type
                d = np.zeros(g.batch.n, g.batch.dtype)
                d[g.decay_mask] = t(hyper["weight_decay"]) * t(hyper["learning_rate"])
                step.decays[k] = d
        return True

    def prepare(self, plan: UpdatePlan) -> None:
        opt, rule = plan.optimizer, plan.rule
        step = plan.step
        pairs = plan.pairs
        variables = [v for _, v in pairs]
        # (a replica that owns none of the variables, sharded optimizer state: the step state of the call's)
        plan.hyper, plan.step_state, plan.new_step_state = resolve_hyper(opt, rule, step, variables or plan.targets)
        hyper = plan.hyper
        state = opt.state
        if rule.is_hook:
            plan.new_slots = {id(v): (v, None) for v in variables if not state.has(v)}
        else:
            plan.new_slots = state.plan_slots(variables, rule.slot_specs)
            for dtype in {v._value.dtype for v in variables}:
                plan.coefficients[dtype] = coefficients_for(rule, step, hyper, dtype)
        form = opt.weight_decay_form
        # with no weight decay configured, the default form gives None for every variable: skip asking each
        default_off = type(form) is WeightDecay and not hyper.get("weight_decay")
        plan.items = items(plan.sparse_mode, rule, pairs, hyper, None if default_off else form.coefficients, form)
        if rule.is_hook:
            return
        for item in plan.items:
            constraint = item.var.constraint
            if constraint is not None:
                values = write(plan, [item], copy=True)
                param, slot_values = values[id(item.var)]
                out = np.asarray(to_array(constraint(Tensor(param))))
                if out.shape != param.shape:
                    raise ValueError(f"the constraint of variable '{item.var.scoped_name}' returned shape {out.shape}; "
                                     f"expected {param.shape}")
                item.constrained = (out.astype(param.dtype, copy=False), slot_values)


# ------------------------------------------------------------------------------------------------- update
class Update(Stage):
    """Stage ``update``: creates the new slots and step state, then writes weight decay, the rule and
    constrained values (a hook-style rule updates the variables itself)."""

    name = "update"

    def batches(self, optimizer) -> bool:
        # a fused kernel of the rule over whole variables (not exact_lazy's catch-up bookkeeping)
        if optimizer.options.sparse_updates == "exact_lazy" or optimizer.lazy_rows.tables:
            return False
        rule = optimizer.rule
        return not rule.is_hook and rule.kernel() is not None

    def commit_batched(self, step) -> None:
        # one kernel call per dtype over every variable and its slots
        rule = step.rule
        for v in step.versioned:
            v._version += 1
        for k, (g, b) in enumerate(zip(step.groups, step.bound)):
            c, d = step.coefficients[g.batch.dtype], step.decays[k]
            if not g.batch.apply(b, c, d):  # the NumPy path, as the general path
                rule.dense(rule.fn, None, g.params, b[2], g.slots, [0.0] * g.batch.n if d is None else list(d), c)

    def commit(self, plan: UpdatePlan) -> None:
        opt, rule = plan.optimizer, plan.rule
        state = opt.state
        if rule.is_hook:
            new = [v for v, _ in plan.new_slots.values()]
            for v in new:
                state.slots.setdefault(id(v), (v, {}))
            if new:
                rule.create(new)
            state.create({}, plan.new_step_state)
            _apply_hooks(plan)
            for item in plan.items:
                if item.var.constraint is not None:
                    item.var.assign(item.var.constraint(item.var))
            return
        state.create(plan.new_slots, plan.new_step_state)
        write(plan, plan.items, copy=False)
        for item in plan.items:
            if item.constrained is not None:
                param, slot_values = item.constrained
                item.var._value[...] = param
                slots = state.slots[id(item.var)][1]
                for name, value in slot_values.items():
                    slots[name]._value[...] = value
                item.var._mark_updated()
                for slot in slots.values():
                    slot._mark_updated()


def _decay_numpy(form, param, rows, coefficients):
    if rows is None:
        param[...] = form.apply(param, **coefficients)
    else:
        param[rows] = form.apply(param[rows], **coefficients)


def write(plan: UpdatePlan, items: list, copy: bool) -> dict:
    """Weight decay and the rule applied into the variables (or into copies). Returns
    ``{id(var): (param array, {slot name: array})}`` of what was written."""
    opt, rule = plan.optimizer, plan.rule
    state, lazy = opt.state, opt.lazy_rows
    specs = rule.slot_specs
    names = rule.slot_names
    kernel = rule.kernel()
    form = opt.weight_decay_form
    fused_decay = form.fused
    out = {}
    dense: dict = {}  # dtype -> ([params], [grads], [slot lists], [decay factors])
    for item in items:
        param, slots, slot_vars = state.arrays_of(item.var, specs, plan.new_slots, copy)
        out[id(item.var)] = (param, slots)
        path, decay_all = item.path, item.decay_all_rows
        if path == "exact_lazy" or (lazy.tables and id(item.var) in lazy.tables):
            path, decay_all = lazy.write_path(opt, rule, item, param, slots, copy)
        d = 0.0
        if item.decay is not None:
            if fused_decay and path != "densify" and not decay_all:
                d = item.decay["d"]
            else:
                _decay_numpy(form, param, item.indices if path in ("rows", "exact_lazy") and not decay_all else None,
                             item.decay)
        if path == "exact_lazy":  # the touched rows, caught up: this step's exact rule on them
            rule.rows(rule.sparse_fn, rule.kernel(rule.sparse_fn) if kernel is not None else None, param, item.values,
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
            # lazy updates may have their own arithmetic (the touched rows of an exact update: the rule's)
            fn = rule.lazy_fn if plan.sparse_mode == "lazy" else rule.fn
            rule.rows(fn, kernel if fn is rule.fn or kernel is None else rule.kernel(fn), param, item.values, slots,
                      plan.coefficients[param.dtype], item.indices, d)
        else:  # exact sparse: the dense rule with zero gradient rows elsewhere
            g = np.zeros_like(param)
            g[item.indices] = item.values
            rule.dense(rule.sparse_fn, rule.kernel(rule.sparse_fn) if kernel is not None else None, [param], [g],
                       [slots], [0.0], plan.coefficients[param.dtype])
        if not copy:  # record the in-place writes
            item.var._mark_updated()
            for sv in slot_vars:
                sv._mark_updated()
    for dtype, (params, grads, slot_lists, decays) in dense.items():
        rule.dense(rule.fn, kernel, params, grads, slot_lists, decays, plan.coefficients[dtype])
    return {k: (p, dict(zip(names, sl))) for k, (p, sl) in out.items()}


def _apply_hooks(plan: UpdatePlan) -> None:
    opt, rule = plan.optimizer, plan.rule
    form = opt.weight_decay_form
    context = {"step": plan.step, "hyper": plan.hyper, "coefficients": plan.coefficients}
    for item in plan.items:
        var = item.var
        if item.decay is not None:
            rows = item.indices if item.path == "rows" and not item.decay_all_rows else None
            _decay_numpy(form, var._value, rows, item.decay)
            var._mark_updated()
        if item.grad is not None:
            grad = Tensor(item.grad)
        else:
            grad = IndexedSlices(Tensor(item.values), Tensor(item.indices), var.shape)
        rule.update(grad, var, context)


# ------------------------------------------------------------------------------------------------- count
class Count(Stage):
    """Stage ``count``: after an applied update, the exact-lazy bookkeeping of the rows it touched, the
    step state's new values, extra counters (TF 1's ``global_step``) and ``iterations``; after a skipped
    step, ``skipped_steps``."""

    name = "count"
    commits_always = True

    def batches(self, optimizer) -> bool:
        return True

    def commit_batched(self, step) -> None:
        self.commit(UpdatePlan(step.optimizer, step=step.step, hyper=step.hyper, step_state=step.step_state))

    def commit(self, plan: UpdatePlan) -> None:
        opt = plan.optimizer
        state = opt.state
        if plan.kind == "skip":
            state.skipped_steps += 1
            return
        if plan.kind != "apply":
            return
        if plan.sparse_mode == "exact_lazy":
            opt.lazy_rows.record(opt, plan)
        for name, value in plan.step_state.items():
            var = state.step_vars[name]
            var._value[...] = value
            var._mark_updated()
        for counter in plan.counters:
            counter._value += counter._value.dtype.type(1)
            counter._mark_updated()
        state.last_hyper = plan.hyper
        state.iterations._value += 1
        state.iterations._mark_updated()


# ------------------------------------------------------------------------------------------------- preview
def preview(plan: UpdatePlan, slots: bool = False):
    """What committing ``plan`` would write, as copies; changes nothing."""
    overwritten = ByVariable((v.scoped_name, np.array(g, copy=True)) for g, v in plan.overwrites)
    if plan.kind != "apply":
        values = ByVariable((v.scoped_name, v.numpy()) for v in plan.targets)
        return (values, ByVariable()) if slots else values
    if plan.rule.is_hook:
        return _preview_hooks(plan, slots)
    written = write(plan, [it for it in plan.items if it.constrained is None], copy=True)
    for it in plan.items:
        if it.constrained is not None:
            written[id(it.var)] = (it.constrained[0].copy(), {k: v.copy() for k, v in it.constrained[1].items()})
    values = ByVariable((it.var.scoped_name, written[id(it.var)][0]) for it in plan.items)
    values.update(overwritten)
    if not slots:
        return values
    return values, ByVariable((it.var.scoped_name, written[id(it.var)][1]) for it in plan.items)


def _preview_hooks(plan, slots):
    """A hook-style rule writes the variables itself: commit, read, then put everything back."""
    opt = plan.optimizer
    state = opt.state
    unbuilt = [v.scoped_name for v, _ in plan.new_slots.values()]
    if unbuilt:
        raise ValueError(f"preview of {type(opt).__name__} (it updates variables in its own code) needs its "
                         f"state built first; call build({unbuilt}) or apply one update")
    owned = plan.variables + [v for _, v in plan.overwrites] + list(state.variables())
    saved = [(v, v._value.copy(), v._version) for v in owned]
    skipped, last = state.skipped_steps, state.last_hyper
    averaged = {id(v) for v in plan.variables if "average" in state.slots[id(v)][1]}
    try:
        opt.commit(plan)
        values = ByVariable((v.scoped_name, v.numpy()) for v in plan.variables)
        slot_values = ByVariable((v.scoped_name, {n: s.numpy() for n, s in state.slots[id(v)][1].items()})
                                 for v in plan.variables)
    finally:
        for v, value, version in saved:
            v._value[...] = value
            v._version = version
        for v in plan.variables:  # moving averages the preview's ema stage created are not kept
            if id(v) not in averaged:
                state.slots[id(v)][1].pop("average", None)
        state.skipped_steps, state.last_hyper = skipped, last
        plan.committed = False
    return (values, slot_values) if slots else values
