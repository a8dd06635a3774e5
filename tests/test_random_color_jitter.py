"""``RandomColorJitter``: against Keras where each step's draw is certain (skips without Keras), each step's
effect in distribution, seeds, training=False, configs and refusals (the sub-layers' own)."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_U = np.random.default_rng(0).uniform(0.1, 0.9, (3, 5, 4, 3)).astype(np.float32)


@pytest.mark.parametrize("kwargs", [
    dict(brightness_factor=(0.1, 0.1)),
    dict(brightness_factor=(-0.2, -0.2), contrast_factor=0.0, saturation_factor=(0.3, 0.3)),
    dict(saturation_factor=(0.7, 0.7), hue_factor=0.0),
    dict(contrast_factor=0.0, hue_factor=(0.0, 0.0), brightness_factor=(0.05, 0.05)),
])
def test_certain_draws_equal_keras(kwargs):
    keras = pytest.importorskip("keras")
    want = np.asarray(keras.layers.RandomColorJitter(value_range=(0, 1), **kwargs)(_U))
    got = L.RandomColorJitter(value_range=(0, 1), **kwargs)(_U).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_steps_in_order_and_random_draws():
    layer = L.RandomColorJitter(value_range=(0, 1), brightness_factor=0.2, contrast_factor=0.3,
                                saturation_factor=0.8, hue_factor=0.4, seed=3)
    assert [type(s).__name__ for s in layer.steps] == ["RandomBrightness", "RandomContrast", "RandomSaturation",
                                                       "RandomHue"]
    again = L.RandomColorJitter(value_range=(0, 1), brightness_factor=0.2, contrast_factor=0.3,
                                saturation_factor=0.8, hue_factor=0.4, seed=3)
    out = layer(_U).numpy()
    np.testing.assert_array_equal(out, again(_U).numpy())
    assert not np.allclose(out, _U) and 0 <= out.min() and out.max() <= 1
    deltas = [L.RandomColorJitter(value_range=(0, 1), brightness_factor=0.2, seed=s)(_U).numpy() - _U
              for s in range(40)]
    shifts = np.array([d[0].mean() for d in deltas])
    assert shifts.min() < -0.1 and shifts.max() > 0.1 and np.all(np.abs(shifts) <= 0.2 + 1e-6)
    np.testing.assert_array_equal(layer(_U, training=False).numpy(), _U)
    assert layer(_U[0]).shape == _U[0].shape


def test_config_round_trip_and_refusals():
    layer = L.RandomColorJitter(value_range=(0, 1), contrast_factor=0.5, hue_factor=0.2, seed=1)
    config = layer.get_config()
    assert L.RandomColorJitter.from_config(config).get_config() == config
    assert len(L.RandomColorJitter().steps) == 0
    for kwargs in (dict(hue_factor=2.0), dict(saturation_factor="x"), dict(brightness_factor=(0.1, 0.2, 0.3)),
                   dict(value_range=3, hue_factor=0.1), dict(seed=-1)):
        with pytest.raises(ValueError):
            L.RandomColorJitter(**kwargs)
