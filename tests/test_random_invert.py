"""``RandomInvert``: against Keras where the outcome is certain (skips without Keras), the rate of descend's
draws against Keras' rule, seeds, ``training=False`` and refusals. Random: ``LAYERS_NOT_COMPARED`` names this
file."""

import numpy as np
import pytest

import descend as ds

_X = np.random.default_rng(0).uniform(0, 255, (3, 4, 5, 3)).astype(np.float32)


@pytest.mark.parametrize("factor", [0.0, (1.0, 1.0)])
@pytest.mark.parametrize("batched", [True, False])
def test_matches_keras_where_certain(factor, batched):
    keras = pytest.importorskip("keras")
    x = _X if batched else _X[0]
    got = ds.layers.RandomInvert(factor)(x).numpy()
    want = np.asarray(keras.layers.RandomInvert(factor)(x))
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("factor, rate", [(1.0, 0.5), (0.5, 0.25), ((0.2, 0.6), 0.4)])
def test_the_inversion_rate_follows_keras_rule(factor, rate):
    # p ~ U(factor range), t ~ U(0, 1), invert where t < p: the rate is the range's mean
    x = np.repeat(_X, 400, axis=0)
    got = ds.layers.RandomInvert(factor, seed=3)(x).numpy()
    inverted = (got != x).any(axis=(1, 2, 3))
    assert abs(inverted.mean() - rate) < 0.05
    np.testing.assert_allclose(got[inverted], 255.0 - x[inverted])
    np.testing.assert_array_equal(got, ds.layers.RandomInvert(factor, seed=3)(x).numpy())


def test_value_range_top_and_training_off():
    got = ds.layers.RandomInvert((1.0, 1.0), value_range=(0, 1))(_X / 255).numpy()
    np.testing.assert_allclose(got, 1.0 - _X / 255, rtol=1e-6)
    np.testing.assert_array_equal(ds.layers.RandomInvert((1.0, 1.0))(_X, training=False).numpy(), _X)


@pytest.mark.parametrize("kwargs", [dict(factor=-0.3), dict(factor=1.5), dict(value_range=5),
                                    dict(data_format="nhwc")])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        ds.layers.RandomInvert(**kwargs)
