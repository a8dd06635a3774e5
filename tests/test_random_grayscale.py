"""``RandomGrayscale``: against Keras at factor 0 and 1 (skips without Keras), the probability of descend's
draws, seeds, ``training=False`` and refusals. Random: ``LAYERS_NOT_COMPARED`` names this file."""

import numpy as np
import pytest

import descend as ds

_X = np.random.default_rng(0).uniform(0, 1, (3, 4, 5, 3)).astype(np.float32)


@pytest.mark.parametrize("factor", [0.0, 1.0])
@pytest.mark.parametrize("batched", [True, False])
def test_matches_keras_at_fixed_factors(factor, batched):
    keras = pytest.importorskip("keras")
    x = _X if batched else _X[0]
    got = ds.layers.RandomGrayscale(factor)(x).numpy()
    want = np.asarray(keras.layers.RandomGrayscale(factor)(x))
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_factor_one_gives_the_luma_in_every_channel():
    got = ds.layers.RandomGrayscale(1.0)(_X).numpy()
    luma = _X @ np.array([0.2989, 0.5870, 0.1140], np.float32)
    for c in range(3):
        np.testing.assert_allclose(got[..., c], luma, rtol=1e-6)


def test_about_factor_of_the_images_turn_grey_and_seeds_repeat():
    x = np.repeat(_X, 200, axis=0)
    got = ds.layers.RandomGrayscale(0.3, seed=7)(x).numpy()
    grey = (got[..., 0] == got[..., 1]).all(axis=(1, 2))
    assert 0.22 < grey.mean() < 0.38
    np.testing.assert_array_equal(got, ds.layers.RandomGrayscale(0.3, seed=7)(x).numpy())
    np.testing.assert_array_equal(got[~grey], x[~grey])


def test_identity_unless_training():
    np.testing.assert_array_equal(ds.layers.RandomGrayscale(1.0)(_X, training=False).numpy(), _X)


@pytest.mark.parametrize("kwargs", [dict(factor=1.5), dict(factor=-0.1), dict(factor="x"),
                                    dict(data_format="nhwc")])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        ds.layers.RandomGrayscale(**kwargs)


def test_non_rgb_images_are_refused():
    with pytest.raises(ValueError, match="3 channels"):
        ds.layers.RandomGrayscale(1.0)(ds.ones((1, 2, 2, 4)))
