"""The update pipeline's promises, over every optimizer configuration:

* all or nothing: a failure injected at any stage (NaN schedule value, mixed-dtype global
  clipping, wrong shape, raising constraint, bad global step, overflow in clipping under
  ``raise``) leaves every variable, slot, accumulator and counter byte-identical, and a retry
  afterwards equals a run that never saw the bad call -- for single optimizers, with and without
  gradient accumulation, and for ``MultiOptimizer``;
* ``sparse_updates="exact"`` with weight decay equals the dense optimizer fed the densified gradient;
* ``preview`` equals the following ``apply_gradients`` bit for bit and changes nothing;
* no optimizer module reaches into the base class's private attributes.
"""

from __future__ import annotations

import ast
import math
import pathlib
import warnings

import numpy as np
import pytest
from optimizer_cases import CASES

import descend as ds
from descend.compat.v1 import train as v1
from descend.errors import InvalidArgumentError

IDS = [c.id for c in CASES]
TF1 = {c.id for c in CASES if issubclass(c.cls, v1.Optimizer)}
SHAPE = (6, 3)


class Poison:
    """A learning rate that is ``value`` until ``bad`` is set, then NaN."""

    def __init__(self, value):
        self.value, self.bad = value, False

    def __call__(self):
        return math.nan if self.bad else self.value


def _make(case, **overrides):
    lr = case.kwargs.get("learning_rate", 0.01)
    poison = Poison(lr)
    return case.make(learning_rate=poison, **overrides), poison


def _grads(seed, n=4, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(SHAPE).astype(dtype) for _ in range(n)]


def snapshot(opts, variables) -> dict:
    """Every byte of state: variables, and each optimizer's state_dict (slots, counters, step state,
    accumulator sums) and skipped_steps."""
    out = {f"var:{v.name}": (v.numpy().dtype.str, v.numpy().tobytes()) for v in variables}
    for i, opt in enumerate(opts):
        for k, a in opt.state_dict().items():
            out[f"{i}:{k}"] = (a.dtype.str, a.shape, a.tobytes())
        out[f"{i}:skipped"] = opt.skipped_steps
        out[f"{i}:versions"] = tuple(v._version for v in opt.variables)
    return out


def _assert_unchanged(before, after):
    assert before.keys() == after.keys(), (set(before) ^ set(after))
    changed = [k for k in before if before[k] != after[k]]
    assert not changed, f"changed by a failed call: {changed}"


# ------------------------------------------------------------------------------------- the failure table
def _bad_nan_schedule(ctx):
    ctx.poison.bad = True
    try:
        ctx.opt.apply_gradients([(ds.constant(ctx.bad_grad), ctx.var)], **ctx.kw)
    finally:
        ctx.poison.bad = False


def _bad_shape(ctx):
    ctx.opt.apply_gradients([(ds.constant(np.ones((2, 2))), ctx.var)], **ctx.kw)


def _bad_constraint(ctx):
    ctx.constraint_bad[0] = True
    try:
        ctx.opt.apply_gradients([(ds.constant(ctx.bad_grad), ctx.var)], **ctx.kw)
    finally:
        ctx.constraint_bad[0] = False


def _bad_nonfinite(ctx):
    g = ctx.bad_grad.copy()
    g[1, 1] = np.nan
    ctx.opt.apply_gradients([(ds.constant(g), ctx.var)], **ctx.kw)


FAILURES = {
    "nan_schedule": (_bad_nan_schedule, ValueError),
    "wrong_shape": (_bad_shape, ValueError),
    "raising_constraint": (_bad_constraint, RuntimeError),
    "nonfinite_gradient": (_bad_nonfinite, InvalidArgumentError),
}


class Ctx:
    pass


def _run_with_failure(case, failure, accumulate: bool):
    """Good calls 1, 2, then the bad call, then 3, 4 -- against a run of 1, 2, 3, 4."""
    ds.clear_session()
    bad_at_close = accumulate  # with k=2 the bad call is the one that would close a cycle
    constraint_bad = [False]

    def constraint(w):
        if constraint_bad[0]:
            raise RuntimeError("constraint refused")
        return w

    grads = _grads(1)
    kw_opt = {"gradient_accumulation_steps": 2} if accumulate else {}
    results = []
    for with_bad in (True, False):
        ds.clear_session()
        opt, poison = _make(case, **kw_opt)
        var = ds.Variable(np.linspace(-1, 1, 18).reshape(SHAPE), name="w", constraint=constraint)
        calls = [grads[0], grads[1], None, grads[2], grads[3]] if not bad_at_close else \
            [grads[0], None, grads[1], grads[2], grads[3]]
        for g in calls:
            if g is None:
                if not with_bad:
                    continue
                ctx = Ctx()
                ctx.opt, ctx.var, ctx.poison, ctx.kw = opt, var, poison, {}
                ctx.bad_grad, ctx.constraint_bad = 100.0 * np.ones(SHAPE), constraint_bad
                before = snapshot([opt], [var])
                fn, exc = FAILURES[failure]
                with pytest.raises(exc):
                    fn(ctx)
                _assert_unchanged(before, snapshot([opt], [var]))
                continue
            opt.apply_gradients([(ds.constant(g), var)])
        results.append((var.numpy(), {k: v for k, v in opt.state_dict().items()}))
    (got, got_state), (want, want_state) = results
    np.testing.assert_array_equal(got, want)
    assert got_state.keys() == want_state.keys()
    for k in want_state:
        np.testing.assert_array_equal(got_state[k], want_state[k], err_msg=k)


@pytest.mark.parametrize("accumulate", [False, True], ids=["plain", "accumulate"])
@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_failed_call_changes_nothing_and_a_retry_equals_a_clean_run(case, failure, accumulate):
    _run_with_failure(case, failure, accumulate)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_mixed_dtype_global_clipping_fails_cleanly_every_time(case):
    ds.clear_session()
    opt = case.make(global_clipnorm=1.0, gradient_accumulation_steps=2)
    a = ds.Variable(np.ones(3, np.float32), name="a")
    b = ds.Variable(np.ones(3, np.float16), name="b")
    pairs = [(ds.constant(np.ones(3, np.float32)), a), (ds.constant(np.ones(3, np.float16)), b)]
    opt.apply_gradients(pairs)  # a micro-step: only accumulates
    before = snapshot([opt], [a, b])
    for _ in range(3):  # the closing call fails, and keeps failing the same way: the count does not climb
        with pytest.raises(TypeError):
            opt.apply_gradients(pairs)
        _assert_unchanged(before, snapshot([opt], [a, b]))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_overflow_in_global_clipping_raises_instead_of_writing_nan(case):
    ds.clear_session()
    opt = case.make(global_clipnorm=1.0)
    var = ds.Variable(np.ones(SHAPE, np.float32), name="w")
    g = np.full(SHAPE, 1e30, np.float32)  # finite, but its squared norm overflows float32
    before = snapshot([opt], [var])
    with pytest.raises(InvalidArgumentError, match="after clipping"):
        opt.apply_gradients([(ds.constant(g), var)])
    _assert_unchanged(before, snapshot([opt], [var]))
    assert np.isfinite(var.numpy()).all()


@pytest.mark.parametrize("case", [c for c in CASES if c.id in TF1], ids=sorted(TF1, key=IDS.index))
def test_tf1_bad_global_step_changes_nothing(case):
    ds.clear_session()
    opt = case.make()
    var = ds.Variable(np.ones(SHAPE), name="w")
    g = ds.constant(np.ones(SHAPE))
    for step, exc in ((ds.Variable(np.zeros(2, np.int64), name="gs", trainable=False), ValueError),
                      (ds.Variable(np.int8(127), name="gs8", trainable=False), OverflowError),
                      (ds.Variable(np.bool_(True), name="gsb", trainable=False), TypeError)):
        before = snapshot([opt], [var, step])
        with pytest.raises(exc):
            opt.apply_gradients([(g, var)], global_step=step)
        _assert_unchanged(before, snapshot([opt], [var, step]))
    step = ds.Variable(np.int8(5), name="gs_ok", trainable=False)
    opt.apply_gradients([(g, var)], global_step=step)
    assert int(step.numpy()) == 6 and step.numpy().dtype == np.int8


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_multi_optimizer_prepares_every_part_before_committing_any(case):
    """The "Why" case: a second optimizer whose schedule returns NaN; the first must not move."""
    ds.clear_session()
    grads = _grads(2, 4)
    finals = []
    for with_bad in (True, False):
        ds.clear_session()
        first = case.make(gradient_accumulation_steps=2)
        poison = Poison(0.1)
        second = ds.optimizers.SGD(learning_rate=poison, gradient_accumulation_steps=2)
        a = ds.Variable(np.zeros(SHAPE), name="a")
        b = ds.Variable(np.zeros(SHAPE), name="b")
        multi = ds.optimizers.MultiOptimizer([(first, [a]), (second, [b])])
        seq = [0, "bad", 1, 2, 3] if with_bad else [0, 1, 2, 3]
        for k in seq:
            if k == "bad":
                before = snapshot([first, second], [a, b])
                poison.bad = True
                with pytest.raises(ValueError, match="learning_rate"):
                    multi.apply_gradients([(ds.constant(100 * np.ones(SHAPE)), a), (ds.constant(np.ones(SHAPE)), b)],
                                          weight=3.0)
                poison.bad = False
                _assert_unchanged(before, snapshot([first, second], [a, b]))
                continue
            multi.apply_gradients([(ds.constant(grads[k]), a), (ds.constant(grads[k] * 0.5), b)], weight=1.0 + k)
        finals.append((a.numpy(), b.numpy(), int(first.iterations.numpy()), int(second.iterations.numpy())))
    np.testing.assert_array_equal(finals[0][0], finals[1][0])
    np.testing.assert_array_equal(finals[0][1], finals[1][1])
    assert finals[0][2:] == finals[1][2:] == (2, 2)


def test_the_issue_numbers_single_optimizer_accumulation_retry():
    """Accumulation, k=2: micro-batch 1 (g=1), a call rejected by a NaN schedule (g=100), then g=-1:
    the applied mean is 0 and the retry never sees the rejected 100."""
    poison = Poison(0.1)
    opt = ds.optimizers.SGD(learning_rate=poison, gradient_accumulation_steps=2)
    w = ds.Variable(0.0, name="w")
    opt.apply_gradients([(ds.constant(1.0), w)])
    poison.bad = True
    with pytest.raises(ValueError):
        opt.apply_gradients([(ds.constant(100.0), w)])
    poison.bad = False
    opt.apply_gradients([(ds.constant(-1.0), w)])
    assert float(w.numpy()) == 0.0 and int(opt.iterations.numpy()) == 1
    opt.apply_gradients([(ds.constant(1.0), w)])
    opt.apply_gradients([(ds.constant(1.0), w)])
    np.testing.assert_allclose(float(w.numpy()), -0.1, rtol=1e-6)


def test_accumulation_of_a_zero_d_variable():
    opt = ds.optimizers.SGD(0.5, gradient_accumulation_steps=2)
    w = ds.Variable(np.float64(1.0), name="w")
    for _ in range(3):
        opt.apply_gradients([(ds.constant(np.float64(1.0)), w)])
        opt.apply_gradients([(ds.constant(np.float64(3.0)), w)])
    assert float(w.numpy()) == 1.0 - 3 * 0.5 * 2.0


def test_a_plan_commits_once_and_only_at_its_step():
    opt = ds.optimizers.SGD(0.1)
    w = ds.Variable([1.0], name="w")
    plan = opt.prepare([(ds.constant([1.0]), w)])
    stale = opt.prepare([(ds.constant([1.0]), w)])
    opt.commit(plan)
    with pytest.raises(ValueError, match="already committed"):
        opt.commit(plan)
    with pytest.raises(ValueError, match="prepared at step 0"):
        opt.commit(stale)
    with pytest.raises(ValueError, match="prepared by optimizer"):
        ds.optimizers.SGD(0.1, name="other").commit(opt.prepare([(ds.constant([1.0]), w)]))


# ------------------------------------------------------------------------------------- exact sparse + decay
def _with_decay(case):
    if case.cls is ds.optimizers.AdamWeightDecay:
        return case.make(weight_decay_rate=0.125, exclude_from_weight_decay=None)
    return case.make(weight_decay=0.125)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_exact_sparse_with_weight_decay_equals_dense_with_the_densified_gradient(case):
    ds.clear_session()
    rng = np.random.default_rng(3)
    table0 = rng.standard_normal((8, 2))
    try:
        sparse_opt = _with_decay(case)
    except TypeError:
        pytest.skip(f"{case.id} takes no weight decay")
    if sparse_opt.sparse_updates != "exact":
        sparse_opt = type(sparse_opt).from_config({**sparse_opt.get_config(), "sparse_updates": "exact"})
    dense_opt = type(sparse_opt).from_config(sparse_opt.get_config())
    t_sparse = ds.Variable(table0.copy(), name="table")
    t_dense = ds.Variable(table0.copy(), name="table")
    for _ in range(6):
        idx = rng.integers(0, 4, size=3)  # rows 4..7 are never touched: only the decay moves them
        vals = rng.standard_normal((3, 2))
        sparse_opt.apply_gradients([(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (8, 2)), t_sparse)])
        dense = np.zeros((8, 2))
        np.add.at(dense, idx, vals)
        dense_opt.apply_gradients([(ds.constant(dense), t_dense)])
    np.testing.assert_allclose(t_sparse.numpy(), t_dense.numpy(), rtol=1e-12, atol=1e-300)
    assert not np.array_equal(t_sparse.numpy()[4:], table0[4:]), "untouched rows must decay"


# ------------------------------------------------------------------------------------- preview
def _preview_case(case, mode):
    ds.clear_session()
    rng = np.random.default_rng(4)
    opt = case.make() if mode == "dense" else case.make(sparse_updates=mode)
    var = ds.Variable(rng.standard_normal((8, 2)), name="t")
    for _ in range(3):
        if mode == "dense":
            g = ds.constant(rng.standard_normal((8, 2)))
        else:
            g = ds.IndexedSlices(ds.constant(rng.standard_normal((3, 2))), ds.constant(rng.integers(0, 8, 3)), (8, 2))
        before = snapshot([opt], [var])
        values, slots = opt.preview([(g, var)], slots=True)
        _assert_unchanged(before, snapshot([opt], [var]))
        opt.apply_gradients([(g, var)])
        np.testing.assert_array_equal(values[var], var.numpy())
        for name, value in slots[var].items():
            np.testing.assert_array_equal(value, opt.get_slot(var, name).numpy(), err_msg=name)
        assert set(slots[var]) == set(opt.get_slot_names())


@pytest.mark.parametrize("mode", ["dense", "exact", "lazy"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_preview_equals_the_update_bit_for_bit_and_changes_nothing(case, mode):
    _preview_case(case, mode)


def test_preview_of_a_multi_optimizer_and_a_micro_step():
    a, b = ds.Variable([1.0], name="a"), ds.Variable([2.0], name="b")
    multi = ds.optimizers.MultiOptimizer([(ds.optimizers.Adam(0.1), [a]), (ds.optimizers.SGD(0.5), [b])])
    values = multi.preview([(ds.constant([1.0]), a), (ds.constant([1.0]), b)])
    multi.apply_gradients([(ds.constant([1.0]), a), (ds.constant([1.0]), b)])
    assert values[a] == a.numpy() and values[b] == b.numpy()
    acc = ds.optimizers.SGD(0.5, gradient_accumulation_steps=2)
    assert acc.preview([(ds.constant([1.0]), b)])[b] == b.numpy()  # a micro-step changes no weight


# ------------------------------------------------------------------------------------- compat spellings
class KerasSGD(ds.optimizers.Optimizer):
    """The Keras 3 guide's pattern (SGD with momentum written with build / add_variable_from_reference /
    update_step), imports changed."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="KerasSGD", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.momentums = []
        for variable in variables:
            self.momentums.append(self.add_variable_from_reference(reference_variable=variable, name="momentum"))

    def update_step(self, gradient, variable, learning_rate):
        learning_rate = ds.cast(learning_rate, variable.dtype)
        gradient = ds.cast(gradient, variable.dtype)
        m = self.momentums[self._get_variable_index(variable)]
        momentum = ds.cast(self.momentum, variable.dtype)
        self.assign(m, -gradient * learning_rate + m * momentum)
        if self.nesterov:
            self.assign_add(variable, -gradient * learning_rate + m * momentum)
        else:
            self.assign_add(variable, m)


class TF2Momentum(ds.optimizers.Optimizer):
    """A TF 2.x OptimizerV2 subclass, imports changed: dense and sparse paths, the sparse one with
    _resource_scatter_add (every momentum row decays: the exact update)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, name="TF2Momentum", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", kwargs.get("lr", learning_rate))
        self._set_hyper("momentum", momentum)

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "momentum")

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["momentum"] = self._get_hyper("momentum", var_dtype)

    def _resource_apply_dense(self, grad, var, apply_state=None):
        coefficients = apply_state[("/cpu:0", var.dtype.base_dtype)]
        m = self.get_slot(var, "momentum")
        m.assign(-grad * coefficients["lr_t"] + m * coefficients["momentum"], use_locking=self._use_locking)
        var.assign_add(m, use_locking=self._use_locking, read_value=False)

    def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
        coefficients = apply_state[("/cpu:0", var.dtype.base_dtype)]
        m = self.get_slot(var, "momentum")
        m.assign(m * coefficients["momentum"])
        self._resource_scatter_add(m, indices, -grad * coefficients["lr_t"])
        var.assign_add(m)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("make", [lambda: KerasSGD(0.05, momentum=0.875), lambda: TF2Momentum(0.05, momentum=0.875)],
                         ids=["keras3", "tf2"])
def test_compat_spellings_match_descend_sgd_with_momentum(make, sparse):
    ds.clear_session()
    rng = np.random.default_rng(5)
    table0 = rng.standard_normal((8, 2))
    custom, ref = make(), ds.optimizers.SGD(0.05, momentum=0.875)
    w_custom = ds.Variable(table0.copy(), name="w")
    w_ref = ds.Variable(table0.copy(), name="w")
    for _ in range(6):
        if sparse:
            g = ds.IndexedSlices(ds.constant(rng.standard_normal((3, 2))), ds.constant(rng.integers(0, 8, 3)), (8, 2))
        else:
            g = ds.constant(rng.standard_normal((8, 2)))
        custom.apply_gradients([(g, w_custom)])
        ref.apply_gradients([(g, w_ref)])
    np.testing.assert_allclose(w_custom.numpy(), w_ref.numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(custom.get_slot(w_custom, "momentum").numpy(),
                               ref.get_slot(w_ref, "momentum").numpy(), rtol=1e-12, atol=1e-15)
    assert int(custom.iterations.numpy()) == 6


def test_compat_spellings_get_their_rules_and_the_pipeline_guarantee():
    from descend.optimizers.spellings import KerasRule, TF2Rule

    assert isinstance(KerasSGD().rule, KerasRule) and isinstance(TF2Momentum().rule, TF2Rule)
    assert KerasSGD.__bases__ == TF2Momentum.__bases__ == (ds.optimizers.Optimizer,)  # no base class swapped in
    opt = KerasSGD(0.1, momentum=0.5)
    w = ds.Variable([1.0, 2.0], name="w")
    opt.apply_gradients([(ds.constant([1.0, 1.0]), w)])
    before = snapshot([opt], [w])
    with pytest.raises(InvalidArgumentError):
        opt.apply_gradients([(ds.constant([np.nan, 1.0]), w)])
    with pytest.raises(ValueError):
        opt.apply_gradients([(ds.constant([1.0]), w)])
    _assert_unchanged(before, snapshot([opt], [w]))
    assert [v.name for v in opt.variables] == [opt.iterations.name, "w_momentum"]  # Keras 3's slot name
    tf2 = TF2Momentum(0.1, momentum=0.5, decay=0.5)
    tf2.apply_gradients([(ds.constant([1.0, 1.0]), w)])
    assert tf2._initial_decay == 0.5 and tf2._use_locking
    np.testing.assert_allclose(float(tf2._decayed_lr(ds.float32).numpy()), 0.1 / 1.5, rtol=1e-6)


def test_indexed_slices_without_dense_shape_is_accepted():
    w = ds.Variable(np.ones((4, 2)), name="w")
    opt = ds.optimizers.SGD(0.5)
    opt.apply_gradients([(ds.IndexedSlices(ds.constant(np.ones((1, 2))), ds.constant([2])), w)])
    np.testing.assert_array_equal(w.numpy()[2], [0.5, 0.5])


# ------------------------------------------------------------------------------------- no private reach
_OPTIMIZER_DIR = pathlib.Path(ds.optimizers.__file__).parent
# the framework: the base class, its state, hyperparameters, pipeline, stages and kernels
_FRAMEWORK_FILES = {"optimizer.py", "optimizer_state.py", "hyper.py", "pipeline.py", "rule.py", "spellings.py", "fused.py",
                    "batched.py", "rewrite.py", "exact_lazy.py", "accumulation.py", "bound.py", "template.py",
                    "options.py"}


def _framework_private_names() -> set[str]:
    names = set()
    for path in [_OPTIMIZER_DIR / f for f in ("optimizer.py", "optimizer_state.py", "hyper.py", "pipeline.py", "rule.py")]:
        tree = ast.parse(path.read_text())
        for cls in [n for n in tree.body if isinstance(n, ast.ClassDef)]:
            for node in ast.walk(cls):
                if isinstance(node, ast.FunctionDef) and node.name.startswith("_") and not node.name.startswith("__"):
                    names.add(node.name)
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" \
                        and node.attr.startswith("_") and not node.attr.startswith("__") and isinstance(node.ctx, ast.Store):
                    names.add(node.attr)
    return names


def test_no_optimizer_module_touches_a_private_attribute_of_the_framework():
    private = _framework_private_names()
    assert {"_rule_cache", "_arrays", "_ranges", "_name"} <= private  # the scan sees the framework's classes
    files = [p for p in _OPTIMIZER_DIR.glob("*.py") if p.name not in _FRAMEWORK_FILES]
    files += list((_OPTIMIZER_DIR.parent / "compat" / "v1").glob("*.py"))
    assert len(files) > 20
    offenders = []
    for path in files:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr in private - {"_name"}:
                offenders.append(f"{path.name}:{node.lineno}: .{node.attr}")
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[-1] in (
                    "optimizer", "optimizer_state", "hyper", "pipeline", "rule"):
                offenders += [f"{path.name}:{node.lineno}: imports {a.name}" for a in node.names
                              if a.name.startswith("_") and a.name != "_Optimizer"]
    assert not offenders, offenders


def test_the_stage_list_is_documented():
    doc = (_OPTIMIZER_DIR / "pipeline.py").read_text()
    for stage in ds.optimizers.pipeline.STAGES:
        assert f"``{stage}``" in doc, stage
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ds.optimizers.pipeline.STAGES[0] == "validate"


def test_a_skip_after_clipping_drops_the_accumulation_cycle():
    """Under on_nonfinite="skip", a cycle whose clipped sum is not finite is skipped whole: nothing is
    applied, skipped_steps counts it, and the next cycle starts from zero."""
    opt = ds.optimizers.SGD(0.5, global_clipnorm=1.0, gradient_accumulation_steps=2, on_nonfinite="skip")
    w = ds.Variable(np.ones(4, np.float32), name="w")
    huge = ds.constant(np.full(4, 1e30, np.float32))
    opt.apply_gradients([(huge, w)])
    opt.apply_gradients([(huge, w)])  # closes the cycle: the global norm overflows float32
    assert opt.skipped_steps == 1 and int(opt.iterations.numpy()) == 0
    np.testing.assert_array_equal(w.numpy(), np.ones(4, np.float32))
    assert not any(k.startswith("accumulator:") for k in opt.state_dict())
    small = ds.constant(np.full(4, 0.25, np.float32))
    opt.apply_gradients([(small, w)])
    opt.apply_gradients([(small, w)])  # a fresh cycle: mean 0.25, norm 0.5 < 1, not clipped
    np.testing.assert_allclose(w.numpy(), 1 - 0.5 * 0.25)


def test_tf2_code_reading_var_op_name_and_using_locking_arguments():
    w = ds.Variable([1.0], name="dense/kernel")
    assert w.op.name == "dense/kernel"
    w.assign([2.0], use_locking=True, read_value=False)
    w.assign_add([1.0], use_locking=True)
    w.assign_sub([0.5], use_locking=False, name="sub")
    assert w.numpy().tolist() == [2.5]


def test_apply_gradients_says_why_a_gradient_is_missing():
    a, b = ds.Variable(1.0, name="a"), ds.Variable(2.0, name="b")
    with ds.GradientTape() as tape:
        loss = a * 3.0 + ds.stop_gradient(b)
    grads = tape.gradient(loss, [a, b])
    with pytest.warns(UserWarning, match=r"(?s)Gradients do not exist for variables \['b:0'\].*variable 'b'.*stop_gradient"):
        ds.optimizers.SGD(0.1).apply_gradients(zip(grads, [a, b]))
    with pytest.raises(ValueError, match=r"(?s)No gradients provided.*'b:0'"):
        ds.optimizers.SGD(0.1).apply_gradients([(None, b)])


@pytest.mark.parametrize("policy", ["raise", "skip", "zero"])
def test_a_non_finite_sparse_gradient_is_caught_once_under_every_policy(policy):
    """Under raise/skip a sparse gradient is checked once, on its de-duplicated rows (NaN and Inf survive the
    sums); under zero the raw values are cleaned first, so a row's finite contributions are kept."""
    table = ds.Variable(np.ones((5, 2)), name="table")
    opt = ds.optimizers.SGD(0.5, on_nonfinite=policy)
    values = np.array([[np.nan, 1.0], [1.0, 1.0], [np.inf, 0.0]])
    g = ds.IndexedSlices(ds.constant(values), ds.constant([3, 3, 1]), (5, 2))
    before = snapshot([opt], [table])
    if policy == "raise":
        with pytest.raises(InvalidArgumentError, match="gradient for variable 'table' contains"):
            opt.apply_gradients([(g, table)])
        _assert_unchanged(before, snapshot([opt], [table]))
        return
    opt.apply_gradients([(g, table)])
    if policy == "skip":
        assert opt.skipped_steps == 1
        np.testing.assert_array_equal(table.numpy(), np.ones((5, 2)))
    else:  # row 3: [0 + 1, 1 + 1]; row 1: [0, 0]
        expected = np.ones((5, 2))
        expected[3] -= 0.5 * np.array([1.0, 2.0])
        np.testing.assert_array_equal(table.numpy(), expected)
