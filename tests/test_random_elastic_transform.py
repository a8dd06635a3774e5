"""``RandomElasticTransform``: its ``map_coordinates`` equals ``keras.ops.image.map_coordinates`` for every fill
mode and order (skips without Keras); no noise is the identity; a displacement field moves pixels as given; the
draws follow Keras' rules and are seeded; training=False; configs; refusals."""

import numpy as np
import pytest

import descend as ds
from descend.layers.random_elastic_transform import map_coordinates

L = ds.layers
_RNG = np.random.default_rng(0)
_IMG = _RNG.uniform(0, 255, (6, 5)).astype(np.float32)
_X = _RNG.uniform(0, 255, (3, 12, 10, 2)).astype(np.float32)


@pytest.mark.parametrize("fill_mode", ["constant", "nearest", "wrap", "mirror", "reflect"])
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_equals_keras(fill_mode, order):
    keras = pytest.importorskip("keras")
    # mirror: Keras reads out of bounds at |index| == size; stay where it does not
    hi_y, hi_x = (4.4, 3.4) if fill_mode == "mirror" else (10.0, 9.0)
    ys = _RNG.uniform(-4.9, hi_y, (7, 8)).astype(np.float32)
    xs = _RNG.uniform(-3.9, hi_x, (7, 8)).astype(np.float32)
    want = np.asarray(keras.ops.image.map_coordinates(_IMG, [ys, xs], order, fill_mode=fill_mode, fill_value=3.0))
    np.testing.assert_allclose(map_coordinates(_IMG, [ys, xs], order, fill_mode, 3.0), want, rtol=1e-6, atol=1e-4)


def _transformation(n, f, dx, dy, apply=True):
    return {"apply_transform": np.full(n, apply), "distortion_factor": np.float32(f), "dx": dx, "dy": dy}


def test_zero_noise_is_the_identity_and_apply_mask():
    layer = L.RandomElasticTransform()
    zeros = np.zeros((3, 12, 10), np.float32)
    np.testing.assert_allclose(layer.transform_images(_X, _transformation(3, 1.0, zeros, zeros)).numpy(), _X,
                               rtol=1e-6)
    noise = _RNG.standard_normal((3, 12, 10)).astype(np.float32)
    off = layer.transform_images(_X, _transformation(3, 1.0, noise, noise, apply=False)).numpy()
    np.testing.assert_array_equal(off, _X)
    on = layer.transform_images(_X, _transformation(3, 1.0, noise, noise)).numpy()
    assert not np.allclose(on, _X) and on.min() >= 0 and on.max() <= 255


def test_small_factor_keeps_a_one_tap_blur():
    # f = 0.5 on 12 x 10: sigma = 10 * 0.025 = 0.25, int(sigma) = 0, a 1-tap kernel: the noise is only scaled
    layer = L.RandomElasticTransform(interpolation="nearest", fill_mode="nearest")
    dx = np.zeros((1, 12, 10), np.float32)
    dy = np.zeros((1, 12, 10), np.float32)
    dx[0, 5, 4] = 4.0 / (0.25 * 0.6)  # alpha = 12 * 0.05 = 0.6: a displacement of 4 columns at (5, 4)
    out = layer.transform_images(_X[:1], _transformation(1, 0.5, dx, dy)).numpy()
    np.testing.assert_allclose(out[0, 5, 4], _X[0, 5, 8], rtol=1e-6)
    mask = np.ones((12, 10), bool)
    mask[5, 4] = False
    np.testing.assert_array_equal(out[0][mask], _X[0][mask])


def test_draws_seeds_identity_and_config():
    t = L.RandomElasticTransform(factor=(0.5, 0.5), scale=(0.2, 0.6), seed=1).get_random_transformation(
        np.zeros((2000, 4, 4, 1), np.float32))
    assert abs(t["apply_transform"].numpy().mean() - 0.5) < 0.04
    assert 0.2 <= float(t["distortion_factor"].numpy()) <= 0.6
    noise = t["dx"].numpy()
    assert abs(noise.mean()) < 0.02 and abs(noise.std() - 1) < 0.02
    assert L.RandomElasticTransform(scale=0.0).get_random_transformation(_X) is None  # as Keras
    a, b = L.RandomElasticTransform(seed=3), L.RandomElasticTransform(seed=3)
    np.testing.assert_array_equal(a(_X).numpy(), b(_X).numpy())
    np.testing.assert_array_equal(a(_X, training=False).numpy(), _X)
    t = a.get_random_transformation(_X)
    last = a.transform_images(_X, t).numpy()
    first = L.RandomElasticTransform(data_format="channels_first").transform_images(np.moveaxis(_X, -1, 1), t)
    np.testing.assert_allclose(np.moveaxis(first.numpy(), 1, -1), last, rtol=1e-6)
    config = L.RandomElasticTransform(factor=0.4, scale=(0.1, 0.3), fill_mode="wrap", value_range=(0, 1)).get_config()
    assert L.RandomElasticTransform.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs, error", [(dict(factor=2), ValueError), (dict(scale=(0.1, 0.2, 0.3)), ValueError),
                                           (dict(interpolation="cubic"), NotImplementedError),
                                           (dict(fill_mode="edge"), NotImplementedError),
                                           (dict(data_format="x"), ValueError)])
def test_bad_arguments_are_refused(kwargs, error):
    with pytest.raises(error):
        L.RandomElasticTransform(**kwargs)
