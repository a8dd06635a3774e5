"""``ScheduleFreeAdamW``: golden values from Keras 3.15 (TensorFlow backend) bit for bit, and live against Keras
where it is installed; the momentum slot starts at the variable (also one first seen late); warm-up; config;
refusals. The optimizer-case table (tests/optimizer_cases.py) runs the shared tests over it."""

import numpy as np
import pytest

import descend as ds

_W0 = np.array([[0.5, -1.25], [2.0, 0.75]], np.float32)
_GRADS = [np.array([[0.25, -0.5], [1.0, -2.0]], np.float32) * (k + 1) * (-1) ** k for k in range(4)]

# keras.optimizers.ScheduleFreeAdamW(**kwargs) after the four _GRADS from _W0 (Keras 3.15.1, TensorFlow backend):
# variable, momentum, velocity
GOLDEN = [
    (dict(learning_rate=0.1),
     [[0.46193641424179077, -1.2119364738464355], [1.961936354637146, 0.7880635857582092]],
     [[0.5336360335350037, -1.2836360931396484], [2.0336358547210693, 0.7163640260696411]],
     [[0.0018737262580543756, 0.007494905032217503], [0.02997962012887001, 0.11991848051548004]]),
    (dict(learning_rate=0.05, warmup_steps=3, beta_1=0.8, beta_2=0.99, epsilon=1e-6, weight_decay=0.1),
     [[0.49478694796562195, -1.239180564880371], [1.983574390411377, 0.7458692789077759]],
     [[0.5289211869239807, -1.2789212465286255], [2.028921127319336, 0.7210787534713745]],
     [[0.018625419586896896, 0.07450167834758759], [0.29800671339035034, 1.1920268535614014]]),
]


def _run(opt, w0=_W0, grads=_GRADS):
    w = ds.Variable(w0.copy(), name="w")
    for g in grads:
        opt.apply_gradients([(ds.constant(g), w)])
    return w


@pytest.mark.parametrize("kwargs, var, momentum, velocity", GOLDEN)
def test_golden_values_from_keras_bit_for_bit(kwargs, var, momentum, velocity):
    opt = ds.optimizers.ScheduleFreeAdamW(**kwargs)
    w = _run(opt)
    np.testing.assert_array_equal(w.numpy(), np.array(var, np.float32))
    np.testing.assert_array_equal(opt.get_slot(w, "momentum").numpy(), np.array(momentum, np.float32))
    np.testing.assert_array_equal(opt.get_slot(w, "velocity").numpy(), np.array(velocity, np.float32))


@pytest.mark.parametrize("kwargs", [dict(), dict(learning_rate=0.03, beta_1=0.5, warmup_steps=5),
                                    dict(learning_rate=0.02, weight_decay=0.05, epsilon=1e-4)])
def test_live_against_keras(kwargs):
    keras = pytest.importorskip("keras")
    rng = np.random.default_rng(1)
    w0 = rng.standard_normal((5, 3)).astype(np.float32)
    grads = [rng.standard_normal((5, 3)).astype(np.float32) for _ in range(7)]
    theirs = keras.Variable(w0.copy())
    kopt = keras.optimizers.ScheduleFreeAdamW(**kwargs)
    for g in grads:
        kopt.apply_gradients([(g, theirs)])
    np.testing.assert_array_equal(_run(ds.optimizers.ScheduleFreeAdamW(**kwargs), w0, grads).numpy(),
                                  np.asarray(theirs.numpy()))


def test_first_step_and_a_late_variable():
    # step 1: z = w - lr g / (|g| + eps') ; x = z (weight 1) ; y = z
    opt = ds.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
    w = _run(opt, grads=_GRADS[:1])
    np.testing.assert_allclose(w.numpy(), _W0 - 0.1 * np.sign(_GRADS[0]), rtol=1e-5)
    late = ds.Variable(np.full((2,), 3.0, np.float32), name="late")
    opt.apply_gradients([(ds.constant(_GRADS[1]), w), (ds.constant([0.0, 0.0]), late)])
    np.testing.assert_array_equal(opt.get_slot(late, "momentum").numpy(), [3.0, 3.0])  # z starts at its value
    np.testing.assert_array_equal(late.numpy(), [3.0, 3.0])  # no gradient, z = y: nothing moves


def test_warmup_scales_the_first_steps():
    g = [np.ones((2, 2), np.float32)]
    short = _run(ds.optimizers.ScheduleFreeAdamW(learning_rate=0.1, warmup_steps=4), grads=g)
    np.testing.assert_allclose(short.numpy(), _W0 - 0.025, rtol=1e-5)  # lr * 1/4 on step 1


def test_config_round_trip():
    opt = ds.optimizers.ScheduleFreeAdamW(learning_rate=0.01, beta_1=0.8, beta_2=0.95, epsilon=1e-6, warmup_steps=7,
                                          weight_decay=0.01)
    config = opt.get_config()
    assert config["warmup_steps"] == 7 and config["beta_1"] == 0.8
    again = ds.optimizers.ScheduleFreeAdamW.from_config(config)
    assert again.get_config() == config
    np.testing.assert_array_equal(_run(again).numpy(), _run(opt).numpy())


@pytest.mark.parametrize("kwargs", [dict(beta_1=1.0), dict(beta_1=0.0), dict(beta_2=1.0), dict(epsilon=-1.0),
                                    dict(warmup_steps=-1), dict(warmup_steps=1.5), dict(learning_rate=-0.1)])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        ds.optimizers.ScheduleFreeAdamW(**kwargs)
