"""``RandomPerspective``: on Keras' own draws the warp gives Keras' images (skips without Keras); the homography
maps the moved corners back; descend's draws follow Keras' rule and are seeded; training=False; configs;
refusals."""

import numpy as np
import pytest

import descend as ds
from descend.layers.random_perspective import homography

L = ds.layers
_X = np.random.default_rng(0).uniform(0, 255, (4, 9, 7, 3)).astype(np.float32)


@pytest.mark.parametrize("kwargs, x", [(dict(scale=0.4), _X), (dict(factor=(0.5, 1.0), scale=1.0,
                                                                     interpolation="nearest", fill_value=3.0), _X),
                                       (dict(scale=0.3), _X[0])])
def test_keras_draws_give_keras_images(kwargs, x):
    keras = pytest.importorskip("keras")
    theirs = keras.layers.RandomPerspective(seed=2, **kwargs)
    ours = L.RandomPerspective(**kwargs)
    for _ in range(2):
        drawn = theirs.get_random_transformation(x, training=True)
        want = np.asarray(theirs.transform_images(x, drawn))
        got = ours.transform_images(x, {k: np.asarray(v) for k, v in drawn.items() if k != "input_shape"}).numpy()
        close = np.isclose(got, want, rtol=1e-3, atol=0.5)
        assert close.mean() > 0.995, close.mean()  # a pixel on a sampling edge may round the other way


def test_homography_maps_end_points_to_start_points():
    start = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 8.0], [6.0, 8.0]])
    end = start + np.array([[0.5, 0.2], [-0.3, 0.4], [0.2, -0.6], [-0.4, -0.1]])
    a0, a1, a2, b0, b1, b2, c0, c1 = homography(start[None], end[None])[0]
    for (sx, sy), (ex, ey) in zip(start, end):
        k = c0 * ex + c1 * ey + 1
        np.testing.assert_allclose([(a0 * ex + a1 * ey + a2) / k, (b0 * ex + b1 * ey + b2) / k], [sx, sy], atol=1e-9)


def test_draws_seeds_identity_and_config():
    t = L.RandomPerspective(scale=0.5, seed=1).get_random_transformation(np.zeros((3000, 5, 4, 1), np.float32))
    start, end = t["start_points"].numpy(), t["end_points"].numpy()
    d = (end - start)[:, 3] / start[:, 3]  # the far corner's relative move
    assert np.all(np.abs(d) <= 0.25 + 1e-6) and d.min() < -0.2 and d.max() > 0.2
    assert abs(t["apply_perspective"].numpy().mean() - 0.5) < 0.03
    a, b = L.RandomPerspective(seed=4), L.RandomPerspective(seed=4)
    np.testing.assert_array_equal(a(_X).numpy(), b(_X).numpy())
    np.testing.assert_array_equal(a(_X, training=False).numpy(), _X)
    config = L.RandomPerspective(factor=0.5, scale=0.2, fill_value=1.0).get_config()
    assert L.RandomPerspective.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs, error", [(dict(scale=1.5), ValueError), (dict(factor=2), ValueError),
                                           (dict(interpolation="cubic"), NotImplementedError),
                                           (dict(data_format="nhwc"), ValueError)])
def test_bad_arguments_are_refused(kwargs, error):
    with pytest.raises(error):
        L.RandomPerspective(**kwargs)
