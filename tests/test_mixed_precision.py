"""Mixed precision: dtype policies, layers under ``mixed_float16``, and ``LossScaleOptimizer``'s dynamic
loss scaling (skip and halve on a non-finite gradient, grow after the configured good steps, all or nothing)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import descend as ds
from descend import mixed_precision as mp

LSO = ds.optimizers.LossScaleOptimizer


@pytest.fixture(autouse=True)
def _reset_policy():
    yield
    mp.set_global_policy(None)


# ----------------------------------------------------------------------------------------------- policies
def test_policies_name_their_compute_and_variable_dtypes():
    p = mp.Policy("mixed_float16")
    assert (p.name, p.compute_dtype, p.variable_dtype) == ("mixed_float16", "float16", "float32")
    assert (mp.Policy("float64").compute_dtype, mp.Policy("float64").variable_dtype) == ("float64", "float64")
    assert mp.global_policy().name == "float32"
    mp.set_global_policy("mixed_float16")
    assert mp.global_policy() == p and mp.DTypePolicy is mp.Policy
    with pytest.raises(ValueError, match="bfloat16"):
        mp.Policy("mixed_bfloat16")
    with pytest.raises(ValueError, match="Cannot convert 'int32'"):
        mp.Policy("int32")


def test_mixed_float16_layer_keeps_float32_weights_and_computes_in_float16():
    mp.set_global_policy("mixed_float16")
    layer = ds.layers.Dense(3)
    plain = ds.layers.Dense(3, dtype="float32")
    mp.set_global_policy("float32")
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    y = layer(x)
    assert layer.kernel.dtype == ds.float32 and layer.bias.dtype == ds.float32
    assert y.dtype == ds.float16 and layer.compute_dtype == ds.float16 and plain.compute_dtype == ds.float32
    want = (x.astype(np.float16) @ layer.kernel.numpy().astype(np.float16)) + layer.bias.numpy().astype(np.float16)
    np.testing.assert_array_equal(y.numpy(), want)
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(ds.cast(layer(x), "float32"))
    gk, gb = tape.gradient(loss, [layer.kernel, layer.bias])
    assert gk.dtype == ds.float32 and gb.dtype == ds.float32
    np.testing.assert_array_equal(gb.numpy(), np.full(3, 4.0, np.float32))
    # the attribute is the Variable again after the call; the config names the policy
    assert isinstance(layer.kernel, ds.Variable)
    again = ds.layers.Dense.from_config(json.loads(json.dumps(layer.get_config())))
    assert again.dtype_policy.name == "mixed_float16"


# ----------------------------------------------------------------------------------------------- loss scaling
def test_scale_halves_and_the_step_is_skipped_on_an_injected_inf():
    w = ds.Variable([1.0, 2.0], name="w")
    inner = ds.optimizers.Adam(0.1)
    opt = LSO(inner, initial_scale=1024.0, dynamic_growth_steps=3)
    opt.apply_gradients([(ds.constant([1024.0, 2048.0]), w)])
    state = {k: v.copy() for k, v in inner.state_dict().items()}
    value = w.numpy()
    opt.apply_gradients([(ds.constant([np.inf, 1.0]), w)])
    assert float(opt.dynamic_scale) == 512.0 and int(opt.step_counter) == 0
    np.testing.assert_array_equal(w.numpy(), value)
    after = inner.state_dict()
    assert sorted(after) == sorted(state) and all(np.array_equal(after[k], state[k]) for k in state)
    assert int(opt.iterations) == 1
    opt.apply_gradients([(ds.constant([np.nan, 1.0]), w)])
    assert float(opt.dynamic_scale) == 256.0


def test_scale_grows_after_the_configured_good_steps():
    w = ds.Variable([1.0], name="w")
    opt = LSO(ds.optimizers.SGD(0.01), initial_scale=4.0, dynamic_growth_steps=3)
    scales = []
    for _ in range(7):
        opt.apply_gradients([(ds.constant([1.0]), w)])
        scales.append(float(opt.dynamic_scale))
    assert scales == [4.0, 4.0, 8.0, 8.0, 8.0, 16.0, 16.0]
    opt.apply_gradients([(ds.constant([np.inf]), w)])  # a bad step restarts the count
    for _ in range(2):
        opt.apply_gradients([(ds.constant([1.0]), w)])
    assert float(opt.dynamic_scale) == 8.0 and int(opt.step_counter) == 2


def test_gradients_are_unscaled_keras3_and_tf2_spellings():
    for spelling in ("keras3", "tf2"):
        w = ds.Variable([3.0], name="w")
        opt = LSO(ds.optimizers.SGD(0.25), initial_scale=64.0)
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(w * w)
            scaled = opt.scale_loss(loss) if spelling == "keras3" else opt.get_scaled_loss(loss)
        assert float(scaled) == 9.0 * 64.0
        grads = tape.gradient(scaled, [w])
        if spelling == "tf2":
            grads = opt.get_unscaled_gradients(grads)
            np.testing.assert_array_equal(grads[0].numpy(), [6.0])
        opt.apply_gradients(zip(grads, [w]))
        np.testing.assert_array_equal(w.numpy(), [1.5])  # 3 - 0.25 * 6, the gradient divided once


def test_a_bad_gradient_changes_nothing_at_all():
    w = ds.Variable([1.0, 2.0], name="w")
    opt = LSO(ds.optimizers.Adam(0.1), initial_scale=8.0, dynamic_growth_steps=1)
    with pytest.raises(ValueError):
        opt.apply_gradients([(ds.constant([1.0, 2.0, 3.0]), w)])
    assert float(opt.dynamic_scale) == 8.0 and int(opt.step_counter) == 0 and int(opt.iterations) == 0
    np.testing.assert_array_equal(w.numpy(), [1.0, 2.0])


def _float16_problem(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((256, 8)).astype(np.float16)
    true = (0.02 * rng.standard_normal((8, 1))).astype(np.float32)  # small targets: errors below 0.25
    y = (x.astype(np.float32) @ true).astype(np.float16)
    return x, y


def _train(opt, scaled: bool, steps=60):
    mp.set_global_policy("mixed_float16")
    layer = ds.layers.Dense(1, kernel_initializer="zeros")
    mp.set_global_policy(None)
    x, y = _float16_problem()
    losses = []
    for _ in range(steps):
        with ds.GradientTape() as tape:
            # float16 all the way; the tiny factor (float16's smallest, 2**-24) stands for a mean over a huge
            # batch: unscaled, every gradient 2 * error * 2**-24 rounds to zero
            loss16 = ds.reduce_sum(ds.square(layer(x) - y)) * np.float16(2.0 ** -24)
            loss = opt.scale_loss(loss16) if scaled else ds.cast(loss16, "float32")
        grads = tape.gradient(loss, layer.trainable_variables)
        opt.apply_gradients(zip(grads, layer.trainable_variables))
        losses.append(float(np.sum(np.square(x.astype(np.float32) @ layer.kernel.numpy()
                                              + layer.bias.numpy() - y.astype(np.float32)))))
    return losses


def test_float16_run_that_underflows_or_overflows_without_scaling_trains_with_it():
    # without loss scaling: the float16 gradients of the tiny loss underflow to zero -- nothing trains
    plain = _train(ds.optimizers.SGD(2e4), scaled=False)
    assert plain[-1] == plain[0]
    # a scale far too large overflows float16 (Inf gradients): those steps are skipped and the scale halves
    # until the gradients are finite; then it trains
    opt = LSO(ds.optimizers.SGD(2e4), initial_scale=2.0 ** 40, dynamic_growth_steps=10)
    scaled = _train(opt, scaled=True)
    skipped = 60 - int(opt.iterations)
    assert skipped >= 20 and float(opt.dynamic_scale) < 2.0 ** 20
    assert scaled[-1] < 0.05 * scaled[0], (scaled[0], scaled[-1])


def test_config_state_and_wrapped_optimizer():
    opt = LSO(ds.optimizers.Adam(0.01, use_ema=True), initial_scale=16.0, dynamic_growth_steps=5, name="lso")
    config = json.loads(json.dumps(opt.get_config()))
    again = LSO.from_config(config)
    assert again.get_config() == opt.get_config() and type(again.inner_optimizer) is ds.optimizers.Adam
    w = ds.Variable([1.0], name="w")
    opt.apply_gradients([(ds.constant([16.0]), w)])
    state = opt.state_dict()
    assert float(state["loss_scale:dynamic_scale"]) == 16.0 and int(state["loss_scale:step_counter"]) == 1
    again.load_state_dict(state)
    assert int(again.step_counter) == 1 and again.learning_rate == opt.learning_rate
    assert opt.variables[0] is opt.step_counter and opt.variables[1] is opt.dynamic_scale
    bad = dict(state, **{"loss_scale:dynamic_scale": np.float32(-1.0)})
    with pytest.raises(ValueError, match="positive finite"):
        again.load_state_dict(bad)
    with pytest.raises(TypeError, match="inner_optimizer"):
        LSO("adam")
    with pytest.raises(ValueError, match="initial_scale"):
        LSO(ds.optimizers.SGD(), initial_scale=0.0)
    with pytest.raises(ValueError, match="dynamic_growth_steps"):
        LSO(ds.optimizers.SGD(), dynamic_growth_steps=0)


def test_apply_without_variables_uses_the_inner_optimizers():
    w = ds.Variable([1.0], name="w")
    opt = LSO(ds.optimizers.SGD(0.5), initial_scale=2.0)
    opt.apply([ds.constant([2.0])], [w])
    opt.apply([ds.constant([2.0])])
    np.testing.assert_array_equal(w.numpy(), [0.0])


@pytest.mark.parametrize("module", ["descend.mixed_precision", "descend.optimizers.loss_scale"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


# ------------------------------------------------------------------------------------- fit and checkpoints
def _tiny_fit(auto_scale_loss=True, epochs=3, optimizer=None):
    """A mixed_float16 model whose loss is so small (a factor 2**-26) that its float16 gradients underflow
    to zero unless the loss is scaled."""
    mp.set_global_policy("mixed_float16")
    model = ds.keras.Sequential([ds.keras.layers.Dense(1, kernel_initializer="zeros")])
    mp.set_global_policy(None)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((256, 8)).astype(np.float32)
    y = x @ (0.5 * rng.standard_normal((8, 1))).astype(np.float32)

    def tiny(y_true, y_pred):
        return ds.reduce_mean(ds.square(ds.cast(y_pred, "float32") - ds.cast(y_true, "float32"))) * 2.0 ** -26

    model.compile(optimizer or ds.optimizers.SGD(0.05 * 2.0 ** 26), loss=tiny, auto_scale_loss=auto_scale_loss)
    history = model.fit(x, y, batch_size=32, epochs=epochs, verbose=0)
    return model, history.history["loss"]


def test_compile_wraps_a_mixed_float16_models_optimizer_and_fit_scales_the_loss():
    model, losses = _tiny_fit()
    assert isinstance(model.optimizer, LSO) and float(model.optimizer.dynamic_scale) == 2.0 ** 15
    assert losses[-1] < 0.05 * losses[0]  # the logged loss is the loss itself, not the scaled one
    assert 1e-9 < losses[0] < 1e-7
    # without the scale every float16 gradient is zero: nothing trains
    plain, flat = _tiny_fit(auto_scale_loss=False)
    assert not isinstance(plain.optimizer, LSO)
    assert not any(w.numpy().any() for w in plain.layers[0].weights)
    assert flat[-1] == pytest.approx(flat[0], rel=1e-6)
    # a float32 model keeps its optimizer as given
    model32 = ds.keras.Sequential([ds.keras.layers.Dense(1)])
    model32.compile("sgd", loss="mse")
    assert not isinstance(model32.optimizer, LSO)


def test_a_loss_scaled_fit_logs_the_learning_rate_and_its_checkpoint_restores_the_scale(tmp_path):
    model, _ = _tiny_fit(epochs=1, optimizer=ds.optimizers.Adam(1e-3))
    opt = model.optimizer
    opt.dynamic_scale.assign(np.float32(512.0))
    opt.step_counter.assign(np.int64(7))
    path = ds.train.Checkpoint(model=model, optimizer=opt).save(str(tmp_path / "ckpt"))
    other, _ = _tiny_fit(epochs=1, optimizer=ds.optimizers.Adam(1e-3))
    other.optimizer.step_counter.assign(np.int64(3))
    ds.train.Checkpoint(model=other, optimizer=other.optimizer).restore(path)
    assert float(other.optimizer.dynamic_scale) == 512.0 and int(other.optimizer.step_counter) == 7
    assert int(other.optimizer.iterations) == int(opt.iterations) == 8
    for a, b in zip(model.weights, other.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    np.testing.assert_array_equal(opt.inner_optimizer.variables[-1].numpy(),
                                  other.optimizer.inner_optimizer.variables[-1].numpy())
    assert opt.current_hyper("learning_rate") == pytest.approx(1e-3)
    # a state that does not fit changes nothing
    state = opt.state_dict()
    state["loss_scale:dynamic_scale"] = np.float32(-1.0)
    with pytest.raises(ValueError, match="positive finite scalar"):
        other.optimizer.load_state_dict(state)
    assert float(other.optimizer.dynamic_scale) == 512.0


def test_compile_takes_a_loss_scale_optimizer_as_given_and_fit_skips_a_non_finite_batch():
    mp.set_global_policy("mixed_float16")
    model = ds.keras.Sequential([ds.keras.layers.Dense(2)])
    mp.set_global_policy(None)
    opt = LSO(ds.optimizers.Adam(1e-3), initial_scale=64.0)
    model.compile(opt, loss="mse")
    assert model.optimizer is opt  # not wrapped twice
    model.compile(model.optimizer, loss="mse")
    assert model.optimizer is opt and isinstance(opt.inner_optimizer, ds.optimizers.Adam)
    rng = np.random.default_rng(0)
    x, y = rng.random((16, 3), dtype=np.float32), rng.random((16, 2), dtype=np.float32)
    model.fit(x, y, batch_size=16, epochs=2, verbose=0)
    assert int(opt.iterations) == 2
    before = [w.numpy() for w in model.weights]
    y[0, 0] = np.inf  # the batch's gradient is not finite: the step is skipped and the scale halves
    model.fit(x, y, batch_size=16, epochs=1, verbose=0)
    assert int(opt.iterations) == 2 and float(opt.dynamic_scale) == 32.0
    for a, w in zip(before, model.weights):
        np.testing.assert_array_equal(a, w.numpy())
    # Keras' config of the wrapper gives the wrapper back
    again = ds.optimizers.get({"class_name": "LossScaleOptimizer", "config": opt.get_config()})
    assert isinstance(again, LSO) and isinstance(again.inner_optimizer, ds.optimizers.Adam)
