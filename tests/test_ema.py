"""Keras 3's EMA options on every optimizer (``use_ema``, ``ema_momentum``, ``ema_overwrite_frequency``,
``finalize_variable_values``) and Keras 3's ``Optimizer.apply``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from optimizer_cases import CASES

import descend as ds


def _reference_ema(values, momentum, frequency):
    """Independent: the averages Keras 3 keeps, from the variable's value after each update (float32)."""
    avg, out = None, []
    m32 = np.float32(momentum)
    for step, v in enumerate(values):
        m = np.float32(0) if step == 0 else m32
        avg = m * (avg if avg is not None else np.zeros_like(v)) + (np.float32(1) - m) * v
        out.append(avg.copy())
    return out


def _grads(n=8, shape=(4, 3), seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(shape).astype(np.float32), [rng.standard_normal(shape).astype(np.float32)
                                                            for _ in range(n)]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_every_optimizer_keeps_the_keras_moving_average(case):
    v0, grads = _grads()
    plain = case.make()
    ema = case.make(use_ema=True, ema_momentum=0.75)
    a, b = ds.Variable(v0.copy(), name="v"), ds.Variable(v0.copy(), name="v")
    values = []
    for g in grads:
        plain.apply_gradients([(ds.constant(g), a)])
        ema.apply_gradients([(ds.constant(g), b)])
        values.append(a.numpy())
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # without overwrites the variables are untouched
    want = _reference_ema(values, 0.75, None)[-1]
    np.testing.assert_array_equal(ema.get_slot(b, "average").numpy(), want)
    assert any(v is ema.get_slot(b, "average") for v in ema.variables)
    ema.finalize_variable_values([b])
    np.testing.assert_array_equal(b.numpy(), want)


def test_overwrite_frequency_copies_the_averages_into_the_variables():
    v0, grads = _grads(7)
    opt = ds.optimizers.SGD(0.1, use_ema=True, ema_momentum=0.5, ema_overwrite_frequency=3)
    var = ds.Variable(v0.copy(), name="w")
    value = v0.copy()
    avg = None
    for step, g in enumerate(grads):
        opt.apply_gradients([(ds.constant(g), var)])
        value = value - np.float32(0.1) * g
        m = np.float32(0 if step == 0 else 0.5)
        avg = value if avg is None else m * avg + (np.float32(1) - m) * value
        if (step + 1) % 3 == 0:
            value = avg.copy()
        np.testing.assert_array_equal(var.numpy(), value, err_msg=f"step {step}")
        np.testing.assert_array_equal(opt.get_slot(var, "average").numpy(), avg)


def test_a_skipped_step_does_not_move_the_average():
    v0, grads = _grads(3)
    opt = ds.optimizers.Adam(0.1, use_ema=True, on_nonfinite="skip")
    var = ds.Variable(v0.copy(), name="w")
    opt.apply_gradients([(ds.constant(grads[0]), var)])
    before = opt.get_slot(var, "average").numpy()
    opt.apply_gradients([(ds.constant(np.full_like(v0, np.inf)), var)])
    np.testing.assert_array_equal(opt.get_slot(var, "average").numpy(), before)
    assert opt.skipped_steps == 1


def test_ema_state_is_saved_and_resumes_bit_for_bit():
    v0, grads = _grads(10)
    ds.clear_session()
    full = ds.optimizers.Adam(0.05, use_ema=True, ema_momentum=0.9)
    vf = ds.Variable(v0.copy(), name="w")
    for g in grads:
        full.apply_gradients([(ds.constant(g), vf)])
    ds.clear_session()
    first = ds.optimizers.Adam(0.05, use_ema=True, ema_momentum=0.9)
    v1 = ds.Variable(v0.copy(), name="w")
    for g in grads[:4]:
        first.apply_gradients([(ds.constant(g), v1)])
    state = first.state_dict()
    assert "w/average" in state
    ds.clear_session()
    second = ds.optimizers.Adam(0.05, use_ema=True, ema_momentum=0.9)
    second.load_state_dict(state)  # before the variable's slots exist: deferred
    v2 = ds.Variable(v1.numpy(), name="w")
    for g in grads[4:]:
        second.apply_gradients([(ds.constant(g), v2)])
    second.assert_state_consumed()
    np.testing.assert_array_equal(second.get_slot(v2, "average").numpy(), full.get_slot(vf, "average").numpy())
    np.testing.assert_array_equal(v2.numpy(), vf.numpy())


def test_ema_options_round_trip_through_config():
    opt = ds.optimizers.Nadam(use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=5)
    config = json.loads(json.dumps(opt.get_config()))
    assert (config["use_ema"], config["ema_momentum"], config["ema_overwrite_frequency"]) == (True, 0.9, 5)
    assert ds.optimizers.Nadam.from_config(config).get_config() == opt.get_config()


@pytest.mark.parametrize("kwargs,message", [
    (dict(use_ema=True, ema_momentum=1.5), "`ema_momentum` must be in the range [0, 1]. Received: ema_momentum=1.5"),
    (dict(use_ema=True, ema_overwrite_frequency=0), "`ema_overwrite_frequency` must be an integer >= 1 or None"),
])
def test_bad_ema_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError) as e:
        ds.optimizers.SGD(**kwargs)
    assert message in str(e.value)


def test_finalize_without_ema_changes_nothing():
    var = ds.Variable([1.0, 2.0], name="w")
    opt = ds.optimizers.SGD(0.5)
    opt.apply_gradients([(ds.constant([1.0, 1.0]), var)])
    opt.finalize_variable_values([var])
    np.testing.assert_array_equal(var.numpy(), [0.5, 1.5])


def test_apply_takes_gradients_and_variables_separately():
    a, b = ds.Variable([1.0], name="a"), ds.Variable([2.0], name="b")
    opt = ds.optimizers.SGD(0.5)
    opt.apply([ds.constant([2.0]), ds.constant([2.0])], [a, b])
    opt.apply([ds.constant([2.0]), ds.constant([4.0])])  # the variables it has seen, in order
    np.testing.assert_array_equal([a.numpy()[0], b.numpy()[0]], [-1.0, -1.0])
    with pytest.raises(ValueError, match="same length"):
        opt.apply([ds.constant([1.0])])
    with pytest.raises(ValueError, match="not been built"):
        ds.optimizers.Adam().apply([ds.constant([1.0])])


def test_ema_matches_keras():
    keras = pytest.importorskip("keras", minversion="3")
    v0, grads = _grads(7)
    kv = keras.Variable(v0.copy())
    ko = keras.optimizers.Adam(0.1, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3)
    dv = ds.Variable(v0.copy(), name="v")
    do = ds.optimizers.Adam(0.1, use_ema=True, ema_momentum=0.9, ema_overwrite_frequency=3)
    for g in grads:
        ko.apply_gradients([(g, kv)])
        do.apply_gradients([(ds.constant(g), dv)])
        np.testing.assert_array_equal(np.asarray(kv.numpy()), dv.numpy())
    ko.finalize_variable_values([kv])
    do.finalize_variable_values([dv])
    np.testing.assert_array_equal(np.asarray(kv.numpy()), dv.numpy())


def test_preview_leaves_the_averages_alone():
    v0, grads = _grads(3)
    for opt in (ds.optimizers.Adam(0.1, use_ema=True), ds.compat.v1.train.MomentumOptimizer(0.1, 0.5, use_ema=True)):
        var = ds.Variable(v0.copy(), name="w")
        opt.apply_gradients([(ds.constant(grads[0]), var)])
        before = opt.get_slot(var, "average").numpy()
        preview = opt.preview([(ds.constant(grads[1]), var)])
        np.testing.assert_array_equal(opt.get_slot(var, "average").numpy(), before)
        opt.apply_gradients([(ds.constant(grads[1]), var)])
        np.testing.assert_array_equal(preview[var], var.numpy())
