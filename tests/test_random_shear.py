"""``RandomShear``: on Keras' own draws the transform gives Keras' images (each fill mode and interpolation,
single images; skips without Keras); descend's draws follow Keras' rule and are seeded;
training=False; configs; refusals."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_X = np.random.default_rng(0).uniform(0, 255, (4, 9, 7, 3)).astype(np.float32)


@pytest.mark.parametrize("kwargs, x", [
    (dict(x_factor=0.3, y_factor=0.2), _X),
    (dict(x_factor=(0.1, 0.5), fill_mode="constant", fill_value=7.0, interpolation="nearest"), _X),
    (dict(y_factor=0.6, fill_mode="wrap"), _X),
    (dict(x_factor=0.4, y_factor=0.4, fill_mode="nearest"), _X[0]),
])
def test_keras_draws_give_keras_images(kwargs, x):
    keras = pytest.importorskip("keras")
    theirs = keras.layers.RandomShear(seed=5, **kwargs)
    ours = L.RandomShear(**kwargs)
    for _ in range(2):
        drawn = theirs.get_random_transformation(x, training=True)
        want = np.asarray(theirs.transform_images(x, drawn))
        got = ours.transform_images(x, {"shear_factor": np.asarray(drawn["shear_factor"])}).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-2)


def test_draws_follow_keras_rule():
    t = L.RandomShear(x_factor=(0.2, 0.4), y_factor=0.1, seed=1).get_random_transformation(
        np.zeros((4000, 2, 2, 1), np.float32))["shear_factor"].numpy()
    sx, sy = t[:, 0], t[:, 1]
    assert np.all((np.abs(sx) >= 0.2) & (np.abs(sx) <= 0.4)) and abs((sx < 0).mean() - 0.5) < 0.03
    assert np.all(np.abs(sy) <= 0.1)
    flip = np.sign(sx)  # one sign per image for both axes: sy * flip lies in [-0.1, 0.1] on both sides
    assert abs(np.mean(sy * flip > 0) - 0.5) < 0.05


def test_seeds_identity_single_images_and_config():
    a, b = L.RandomShear(0.3, 0.3, seed=4), L.RandomShear(0.3, 0.3, seed=4)
    np.testing.assert_array_equal(a(_X).numpy(), b(_X).numpy())
    np.testing.assert_array_equal(a(_X, training=False).numpy(), _X)
    assert a(_X[0]).shape == _X[0].shape
    config = L.RandomShear(x_factor=(0.1, 0.2), fill_mode="constant", fill_value=3.0).get_config()
    assert L.RandomShear.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs, error", [(dict(x_factor=1.5), ValueError), (dict(y_factor=(0.1, -0.2)), ValueError),
                                           (dict(x_factor="a"), ValueError), (dict(fill_mode="mirror"),
                                                                              NotImplementedError),
                                           (dict(interpolation="cubic"), NotImplementedError),
                                           (dict(data_format="nhwc"), ValueError)])
def test_bad_arguments_are_refused(kwargs, error):
    with pytest.raises(error):
        L.RandomShear(**kwargs)
