"""``RandomErasing``: on Keras' own draws the transform gives Keras' images (skips without Keras); descend's draws
(box sizes, erase rate, fill values) follow Keras' rules and are seeded; training=False; configs; refusals."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_X = np.random.default_rng(0).uniform(0, 255, (5, 10, 8, 3)).astype(np.float32)


@pytest.mark.parametrize("kwargs, x", [
    (dict(factor=(0.3, 1.0)), _X),
    (dict(fill_value=[10.0, 20.0, 300.0], scale=(0.1, 0.5)), _X),
    (dict(fill_value=5.0, data_format="channels_first"), np.ascontiguousarray(_X.transpose(0, 3, 1, 2))),
])
def test_keras_draws_give_keras_images(kwargs, x):
    keras = pytest.importorskip("keras")
    theirs = keras.layers.RandomErasing(seed=3, **kwargs)
    ours = L.RandomErasing(**kwargs)
    for _ in range(3):
        drawn = theirs.get_random_transformation(x, training=True)
        got = ours.transform_images(x, {k: np.asarray(v) for k, v in drawn.items()}).numpy()
        np.testing.assert_allclose(got, np.asarray(theirs.transform_images(x, drawn)), rtol=1e-6)


def test_fill_values_and_boxes_follow_keras_rules():
    layer = L.RandomErasing(factor=(1.0, 1.0), scale=(0.25, 0.25), fill_value=[1.0, 2.0, 3.0], seed=2)
    t = layer.get_random_transformation(_X)
    m = t["batch_masks"].numpy()
    assert t["apply_erasing"].numpy().all() and m.shape == _X.shape
    assert all(m[i, :, :, 0].sum() in (20, 24, 25, 30) for i in range(5))  # ~ half of 10 x half of 8 pixels
    np.testing.assert_array_equal(t["fill_value"].numpy()[0, 0, 0], [1.0, 2.0, 3.0])
    out = layer.transform_images(_X, t).numpy()
    np.testing.assert_array_equal(out[m], np.broadcast_to([1.0, 2.0, 3.0], _X.shape)[m])
    np.testing.assert_array_equal(out[~m], _X[~m])
    noise = L.RandomErasing(seed=1).get_random_transformation(np.zeros((2000, 2, 2, 1), np.float32))
    fill = noise["fill_value"].numpy()
    assert fill.min() == 0 and fill.max() == 255 and abs((fill == 0).mean() - 0.5) < 0.03  # N(0,1)*255, clipped
    assert abs(noise["apply_erasing"].numpy().mean() - 0.5) < 0.03  # p ~ U(0, 1), t ~ U(0, 1)


def test_seeds_single_images_training_off_and_config():
    a, b = L.RandomErasing(seed=7), L.RandomErasing(seed=7)
    np.testing.assert_array_equal(a(_X).numpy(), b(_X).numpy())
    np.testing.assert_array_equal(a(_X, training=False).numpy(), _X)
    assert a(_X[0]).shape == _X[0].shape
    config = L.RandomErasing(factor=0.5, scale=0.3, fill_value=[1, 2, 3], value_range=(0, 1)).get_config()
    assert L.RandomErasing.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs", [dict(factor=2), dict(scale=(0.1, 0.2, 0.3)), dict(fill_value=[1, 2]),
                                    dict(fill_value="red"), dict(value_range=1), dict(seed=-1)])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        L.RandomErasing(**kwargs)
