"""Shared tests driven by the optimizer-case table (tests/optimizer_cases.py)."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest
from optimizer_cases import CASES, OptCase

import descend as ds
from descend.compat.v1 import train as v1

IDS = [c.id for c in CASES]
STEPS = 25
SHAPE = (6, 3)


def _grads(seed=0, steps=STEPS, shape=SHAPE):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape), [rng.standard_normal(shape) for _ in range(steps)]


def _run_dense(case: OptCase, v0, grads, dtype=np.float64, **overrides):
    opt = case.make(**overrides)
    var = ds.Variable(v0.astype(dtype), name="v")
    for g in grads:
        opt.apply_gradients([(ds.constant(g.astype(dtype)), var)])
    return opt, var


def _slot_values(opt, var, case):
    return {name: opt.get_slot(var, name).numpy() for name in case.slots}


def test_every_optimizer_class_is_in_the_table():
    shipped = set()
    for module in (ds.optimizers, v1):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and issubclass(obj, ds.optimizers.Optimizer) and obj not in (
                    ds.optimizers.Optimizer, v1.Optimizer):
                shipped.add(obj)
    covered = {c.cls for c in CASES}
    missing = sorted(c.__name__ for c in shipped - covered)
    assert not missing, f"optimizers without a row in tests/optimizer_cases.py: {missing}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_matches_independent_reference_for_many_steps(case):
    v0, grads = _grads()
    opt, var = _run_dense(case, v0, grads)
    ref = case.ref(v0, grads)
    np.testing.assert_allclose(var.numpy(), ref["var"], rtol=1e-12, atol=1e-14)
    for ours, theirs in case.slots.items():
        np.testing.assert_allclose(opt.get_slot(var, ours).numpy(), ref[theirs], rtol=1e-12, atol=1e-14,
                                   err_msg=f"slot {ours}")
    assert int(opt.iterations) == STEPS


def _sparse_grads(seed=1, steps=12, rows=SHAPE[0]):
    """Sparse gradients with repeated and missing rows, and their dense equivalents."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        idx = rng.integers(0, rows - 2, size=5)  # the last two rows are never touched
        vals = rng.standard_normal((5,) + SHAPE[1:])
        dense = np.zeros(SHAPE)
        np.add.at(dense, idx, vals)
        out.append((idx, vals, dense))
    return out


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_exact_sparse_updates_equal_dense_updates(case):
    v0 = np.random.default_rng(2).standard_normal(SHAPE)
    a, b = case.make(sparse_updates="exact"), case.make(sparse_updates="exact")
    va, vb = ds.Variable(v0.copy(), name="a"), ds.Variable(v0.copy(), name="b")
    for idx, vals, dense in _sparse_grads():
        a.apply_gradients([(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), SHAPE), va)])
        b.apply_gradients([(ds.constant(dense), vb)])
    np.testing.assert_allclose(va.numpy(), vb.numpy(), rtol=1e-15, atol=0)
    for name in case.slots:
        np.testing.assert_allclose(a.get_slot(va, name).numpy(), b.get_slot(vb, name).numpy(), rtol=1e-15, atol=0)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_lazy_sparse_updates_leave_untouched_rows_bit_for_bit(case):
    v0 = np.random.default_rng(3).standard_normal(SHAPE)
    opt = case.make(sparse_updates="lazy")
    var = ds.Variable(v0.copy(), name="table")
    steps = _sparse_grads()
    opt.apply_gradients([(ds.IndexedSlices(ds.constant(steps[0][1]), ds.constant(steps[0][0]), SHAPE), var)])
    slots0 = {n: opt.get_slot(var, n).numpy()[-2:] for n in opt.get_slot_names()}
    for idx, vals, _ in steps[1:]:
        opt.apply_gradients([(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), SHAPE), var)])
    assert np.array_equal(var.numpy()[-2:], v0[-2:]), "an untouched row of the variable changed"
    for n, before in slots0.items():
        assert np.array_equal(opt.get_slot(var, n).numpy()[-2:], before), f"an untouched row of slot {n} changed"
    if case.lazy_ref is not None:  # the touched rows follow the reference's lazy rule
        ref = case.lazy_ref(v0, [_dedup(i, v) for i, v, _ in steps])
        np.testing.assert_allclose(var.numpy(), ref["var"], rtol=1e-12, atol=1e-14)


def _dedup(idx, vals):
    uniq, inv = np.unique(idx, return_inverse=True)
    summed = np.zeros((uniq.size,) + vals.shape[1:])
    np.add.at(summed, inv, vals)
    return uniq, summed


def _quadratic(x):
    scales = ds.constant(np.array([1.0, 3.0, 0.5, 2.0]))
    return ds.reduce_sum(scales * ds.square(x - 1.0))


def _rosenbrock(x):
    return ds.square(1.0 - x[0]) + 100.0 * ds.square(x[1] - ds.square(x[0]))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("k,problem,x0,steps,factor", [
    (0, _quadratic, [3.0, -2.0, 0.5, 4.0], 600, 1e-2),
    (1, _rosenbrock, [-1.2, 1.0], 3000, 0.25),
], ids=["quadratic", "rosenbrock"])
def test_converges(case, k, problem, x0, steps, factor):
    opt = case.make(**{**case.conv_kwargs, "learning_rate": case.conv_lr[k]})
    x = ds.Variable(np.array(x0), name="x")
    start = float(problem(x))
    for _ in range(steps):
        opt.minimize(lambda: problem(x), var_list=[x])
    end = float(problem(x))
    assert np.isfinite(end) and end < factor * start, f"{case.id}: loss {start:.4g} -> {end:.4g}"


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dtype_is_kept_for_variables_and_slots(case, dtype):
    v0, grads = _grads(steps=3)
    opt, var = _run_dense(case, v0, grads, dtype=dtype)
    assert var.numpy().dtype == dtype
    for name in opt.get_slot_names():
        assert opt.get_slot(var, name).numpy().dtype == dtype, name
    assert np.all(np.isfinite(var.numpy()))
    if dtype == np.float32:  # float32 math stays float32 and close to the float64 run
        _, var64 = _run_dense(case, v0, grads, dtype=np.float64)
        np.testing.assert_allclose(var.numpy(), var64.numpy(), rtol=2e-4, atol=2e-5)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_config_round_trips_through_json(case):
    opt = case.make()
    config = json.loads(json.dumps(opt.get_config()))
    again = type(opt).from_config(config)
    assert again.get_config() == opt.get_config()
    v0, grads = _grads(steps=5)
    _, a = _run_dense(case, v0, grads)
    b = ds.Variable(v0.copy(), name="b")
    for g in grads:
        again.apply_gradients([(ds.constant(g), b)])
    np.testing.assert_array_equal(a.numpy(), b.numpy())


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_state_dict_resume_continues_bit_for_bit(case):
    v0, grads = _grads(steps=20)
    ds.clear_session()
    full, vfull = _run_dense(case, v0, grads)

    ds.clear_session()  # a first process: 9 steps, then save
    first = case.make()
    v = ds.Variable(v0.copy(), name="v")
    for g in grads[:9]:
        first.apply_gradients([(ds.constant(g), v)])
    saved_state, saved_value = first.state_dict(), v.numpy()

    ds.clear_session()  # a second process: same names, fresh optimizer whose slots do not exist yet
    resumed = case.make()
    v2 = ds.Variable(saved_value, name="v")
    resumed.load_state_dict(saved_state)
    for g in grads[9:]:
        resumed.apply_gradients([(ds.constant(g), v2)])
    resumed.assert_state_consumed()
    np.testing.assert_array_equal(v2.numpy(), vfull.numpy())
    for name in full.get_slot_names():
        np.testing.assert_array_equal(resumed.get_slot(v2, name).numpy(), full.get_slot(vfull, name).numpy())
    assert int(resumed.iterations) == int(full.iterations)


def test_deferred_state_that_matches_no_variable_is_reported():
    opt = ds.optimizers.Adam()
    a = ds.Variable(np.ones(2), name="a")
    opt.apply_gradients([(ds.constant(np.ones(2)), a)])
    state = opt.state_dict()
    fresh = ds.optimizers.Adam()
    fresh.load_state_dict(state)
    other = ds.Variable(np.ones(2), name="other")
    with pytest.warns(UserWarning, match="a/m"):
        fresh.apply_gradients([(ds.constant(np.ones(2)), other)])
    with pytest.raises(ValueError, match="a/m"):
        fresh.assert_state_consumed()


# ------------------------------------------------------------------------------------------------ Keras 3 / TF 1 names
@pytest.mark.parametrize("make", [lambda: ds.optimizers.Adam(0.1), lambda: ds.optimizers.LossScaleOptimizer(
    ds.optimizers.SGD(0.1)), lambda: v1.AdamOptimizer(0.1)], ids=["keras", "loss_scale", "tf1"])
def test_variables_is_a_property_and_apply_takes_keras_3s_arguments(make):
    opt = make()
    assert isinstance(inspect.getattr_static(type(opt), "variables"), property)
    params = list(inspect.signature(opt.apply).parameters.values())
    assert [p.name for p in params] == ["grads", "trainable_variables"] and params[1].default is None
    w = ds.Variable([1.0, 2.0], name="w")
    opt.apply([ds.constant([1.0, 1.0])], [w])
    after_one = w.numpy()
    opt.apply([ds.constant([1.0, 1.0])])  # the variables it was built for
    assert (w.numpy() < after_one).all() and all(isinstance(v, ds.Variable) for v in opt.variables)
    with pytest.raises(ValueError, match="same length"):
        opt.apply([ds.constant([1.0, 1.0])] * 2)


def test_variable_value_and_overwrite_with_gradient():
    w = ds.Variable([1.0, 2.0], name="w")
    assert w.value.numpy().tolist() == [1.0, 2.0] and w.value().numpy().tolist() == [1.0, 2.0]
    assert w.overwrite_with_gradient is False
    with pytest.raises(TypeError, match="must be a bool"):
        w.overwrite_with_gradient = 1
    scale = ds.Variable([4.0], name="scale")
    scale.overwrite_with_gradient = True
    opt = ds.optimizers.Adam(0.1)
    opt.apply_gradients([(ds.constant([1.0, 1.0]), w), (ds.constant([7.0]), scale)])
    assert scale.numpy().tolist() == [7.0]  # Keras 3: it takes its gradient, no rule, no slots
    assert opt.get_slot(w, "m") is not None and opt.state.find(scale) is None
    ahead = opt.preview([(ds.constant([1.0, 1.0]), w), (ds.constant([9.0]), scale)])
    assert ahead["scale"].tolist() == [9.0] and scale.numpy().tolist() == [7.0]
    opt.apply_gradients([(ds.IndexedSlices(ds.constant([1.5, 0.5]), ds.constant([0, 0]), (1,)), scale)])
    assert scale.numpy().tolist() == [2.0] and int(opt.iterations.numpy()) == 2  # (a step counted, as Keras 3)
    with pytest.raises(ds.errors.InvalidArgumentError, match="'w'"):  # all or nothing: the overwrite waits too
        opt.apply_gradients([(ds.constant([np.nan, 1.0]), w), (ds.constant([5.0]), scale)])
    assert scale.numpy().tolist() == [2.0]
    accumulating = ds.optimizers.SGD(0.1, gradient_accumulation_steps=2)
    with pytest.raises(ValueError, match="overwrite_with_gradient=True"):
        accumulating.apply_gradients([(ds.constant([1.0]), scale)])


def test_tf1_adam_beta_accumulators():
    opt = v1.AdamOptimizer(0.1, beta1=0.5, beta2=0.25)
    assert opt._get_beta_accumulators() == (None, None)  # TF 1: made with the first update's slots
    w = ds.Variable([1.0], name="w")
    opt.apply_gradients([(ds.constant([1.0]), w)])
    b1, b2 = opt._get_beta_accumulators()
    assert (b1.op.name, b2.op.name) == ("Adam/beta1_power", "Adam/beta2_power")  # TF variables, not Keras'
    assert (b1.name, b2.name) == ("Adam/beta1_power:0", "Adam/beta2_power:0")
    assert (float(b1.numpy()), float(b2.numpy())) == (0.25, 0.0625)  # beta^(t+1) after t = 1 update
