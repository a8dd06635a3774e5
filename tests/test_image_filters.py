"""``Equalization`` (against Keras on batches, single images, value ranges, bins, channels_first, constant
channels) and ``RandomGaussianBlur`` (Keras' draws give Keras' images; descend's draws seeded and in
distribution); configs; refusals. Skips the Keras comparisons without Keras."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_RNG = np.random.default_rng(0)
_X = np.round(_RNG.uniform(20, 180, (3, 9, 8, 3))).astype(np.float32)


@pytest.mark.parametrize("kwargs, x", [
    ({}, _X), ({}, _X[0]), (dict(bins=16), _X), (dict(value_range=(0, 1)), _X / 255.0),
    (dict(value_range=(-1, 1)), _X / 127.5 - 1), (dict(data_format="channels_first"), _X.transpose(0, 3, 1, 2)),
    ({}, np.concatenate([_X[:, :, :, :2], np.full((3, 9, 8, 1), 7.0, np.float32)], axis=-1)),
])
def test_equalization_equals_keras(kwargs, x):
    keras = pytest.importorskip("keras")
    want = np.asarray(keras.layers.Equalization(**kwargs)(x))
    got = L.Equalization(**kwargs)(x).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_equalization_spreads_a_narrow_histogram():
    got = L.Equalization()(_X).numpy()
    assert got.min() == 0 and got.max() == 255  # the batch's values stretched over the whole range
    np.testing.assert_array_equal(L.Equalization()(_X, training=False).numpy(), _X)
    config = L.Equalization(bins=32, value_range=(0, 1)).get_config()
    assert L.Equalization.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs", [dict(factor=(0.3, 1.0), sigma=(0.2, 0.9)), dict(kernel_size=5, sigma=0.8),
                                    dict(kernel_size=(3, 3), factor=1.0, data_format="channels_first")])
def test_gaussian_blur_on_keras_draws_equals_keras(kwargs):
    keras = pytest.importorskip("keras")
    x = _X.transpose(0, 3, 1, 2) if kwargs.get("data_format") == "channels_first" else _X
    theirs = keras.layers.RandomGaussianBlur(seed=3, **kwargs)
    ours = L.RandomGaussianBlur(**kwargs)
    for _ in range(3):
        drawn = theirs.get_random_transformation(x, training=True)
        got = ours.transform_images(x, {k: np.asarray(v) for k, v in drawn.items()}).numpy()
        np.testing.assert_allclose(got, np.asarray(theirs.transform_images(x, drawn)), rtol=1e-5, atol=1e-3)


def test_gaussian_blur_draws_and_identity():
    layer = L.RandomGaussianBlur(factor=(0.5, 0.5), sigma=(0.2, 0.6), seed=1)
    t = layer.get_random_transformation(np.zeros((4000, 2, 2, 1), np.float32))
    assert abs(t["should_apply_blur"].numpy().mean() - 0.5) < 0.03
    s = t["blur_factor"].numpy()
    assert s.shape == (2,) and (0.2 <= s).all() and (s <= 0.6 + 1e-5).all()
    a, b = L.RandomGaussianBlur(seed=4), L.RandomGaussianBlur(seed=4)
    np.testing.assert_array_equal(a(_X).numpy(), b(_X).numpy())
    np.testing.assert_array_equal(a(_X, training=False).numpy(), _X)
    assert a(_X[0]).shape == _X[0].shape
    config = L.RandomGaussianBlur(factor=0.4, kernel_size=(3, 5), sigma=(0.1, 0.5)).get_config()
    assert L.RandomGaussianBlur.from_config(config).get_config() == config


@pytest.mark.parametrize("make", [lambda: L.Equalization(bins=0), lambda: L.Equalization(value_range=3),
                                  lambda: L.Equalization(data_format="nhwc"), lambda: L.RandomGaussianBlur(factor=2),
                                  lambda: L.RandomGaussianBlur(kernel_size=4), lambda: L.RandomGaussianBlur(sigma=-1),
                                  lambda: L.RandomGaussianBlur(kernel_size=(3, 3, 3))])
def test_bad_arguments_are_refused(make):
    with pytest.raises(ValueError):
        make()


def test_bad_images_are_refused():
    with pytest.raises(ValueError, match="rank"):
        L.Equalization()(np.zeros((4, 4), np.float32))
