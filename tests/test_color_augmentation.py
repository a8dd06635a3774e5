"""The random colour layers (Solarization, RandomPosterization, RandomColorDegeneration, RandomSaturation,
RandomHue, RandomSharpness): ``transform_images`` given Keras' own draws equals Keras' output; descend's draws
follow Keras' distributions (bounds, rates), are seeded, and training=False is the identity; configs round trip;
bad arguments are refused. Random: LAYERS_NOT_COMPARED names this file."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_RNG = np.random.default_rng(0)
_X = _RNG.uniform(0, 255, (4, 6, 5, 3)).astype(np.float32)
_U = _X / 255.0

# (name, constructor kwargs, images)
CASES = [
    ("Solarization", dict(addition_factor=(0.1, 0.4), threshold_factor=(0.2, 0.8)), _X),
    ("Solarization", dict(addition_factor=0.3, threshold_factor=0.5, value_range=(0, 1)), _U),
    ("RandomPosterization", dict(factor=(2, 7)), _X),
    ("RandomPosterization", dict(factor=(3, 3), value_range=(0, 1)), _U),
    ("RandomColorDegeneration", dict(factor=(0.2, 0.9)), _X),
    ("RandomColorDegeneration", dict(factor=0.7, value_range=(0, 1), data_format="channels_first"),
     np.ascontiguousarray(_U.transpose(0, 3, 1, 2))),
    ("RandomSaturation", dict(factor=(0.2, 0.8), value_range=(0, 1)), _U),
    ("RandomSaturation", dict(factor=0.9, value_range=(0, 1)), _U),
    ("RandomHue", dict(factor=(0.1, 0.9)), _X),
    ("RandomHue", dict(factor=0.5, value_range=(0, 1)), _U),
    ("RandomSharpness", dict(factor=(0.0, 1.0)), _X),
    ("RandomSharpness", dict(factor=0.8, value_range=(0, 1), data_format="channels_first"),
     np.ascontiguousarray(_U.transpose(0, 3, 1, 2))),
]


@pytest.mark.parametrize("name, kwargs, x", CASES, ids=[c[0] for c in CASES])
def test_transform_of_keras_draws_equals_keras(name, kwargs, x):
    keras = pytest.importorskip("keras")
    theirs = getattr(keras.layers, name)(seed=1, **kwargs)
    ours = getattr(L, name)(**kwargs)
    for _ in range(3):
        drawn = theirs.get_random_transformation(x, training=True)
        want = np.asarray(theirs.transform_images(x, drawn, training=True))
        got = ours.transform_images(x, {k: np.asarray(v) for k, v in drawn.items()}).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4 * (x.max() or 1))


@pytest.mark.parametrize("name, kwargs, x", CASES, ids=[c[0] for c in CASES])
def test_draws_are_seeded_and_training_off_is_identity(name, kwargs, x):
    a = getattr(L, name)(seed=5, **kwargs)
    b = getattr(L, name)(seed=5, **kwargs)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    np.testing.assert_array_equal(a(x, training=False).numpy(), x)
    single = a(x[0]).numpy()
    assert single.shape == x[0].shape
    config = a.get_config()
    assert type(a).from_config(config).get_config() == config


def _draws(layer, key, n=4000):
    t = layer.get_random_transformation(np.zeros((n, 2, 2, 3), np.float32))
    return ds.convert_to_tensor(t[key]).numpy().ravel()


def test_draw_distributions_follow_keras_rules():
    s = _draws(L.Solarization(addition_factor=(0.1, 0.4), threshold_factor=(0.2, 0.8), seed=0), "additions")
    assert 0.1 <= s.min() and s.max() <= 0.4 * 255 and abs(s.mean() - (0.1 + 102) / 2) < 2  # Keras' bounds
    bits = 8 - _draws(L.RandomPosterization(factor=(2, 6), seed=0), "shift_factor")
    assert set(np.unique(bits)) == {2, 3, 4, 5}  # randint: the top excluded
    f = _draws(L.RandomColorDegeneration(factor=0.6, seed=0), "factor")
    assert -0.6 <= f.min() < -0.55 and 0.55 < f.max() <= 0.6
    k = _draws(L.RandomSaturation(factor=(0.5, 0.5), seed=0), "factor")
    np.testing.assert_allclose(k, 0.5 / (0.5 + 1e-7), rtol=1e-6)
    h = _draws(L.RandomHue(factor=(0.2, 0.6), seed=0), "factor")
    assert abs((h < 0).mean() - 0.5) < 0.03 and 0.1 <= np.abs(h).min() and np.abs(h).max() <= 0.3
    sh = _draws(L.RandomSharpness(factor=0.4, seed=0), "factor")
    assert 0 <= sh.min() and sh.max() <= 0.4 and abs(sh.mean() - 0.2) < 0.01


def test_certain_outcomes_equal_keras_calls():
    keras = pytest.importorskip("keras")
    for name, kwargs in [("Solarization", {}), ("RandomPosterization", dict(factor=(4, 4))),
                         ("RandomSharpness", dict(factor=(0.5, 0.5))), ("RandomSaturation", dict(factor=(0.5, 0.5)))]:
        x = _U if name == "RandomSaturation" else _X
        kw = dict(kwargs, value_range=(0, 1)) if name == "RandomSaturation" else kwargs
        np.testing.assert_allclose(getattr(L, name)(**kw)(x).numpy(), np.asarray(getattr(keras.layers, name)(**kw)(x)),
                                   rtol=1e-5, atol=1e-4, err_msg=name)


@pytest.mark.parametrize("make", [
    lambda: L.Solarization(addition_factor=1.5), lambda: L.Solarization(threshold_factor=(0.1, 0.2, 0.3)),
    lambda: L.Solarization(value_range=5), lambda: L.RandomPosterization(factor=9),
    lambda: L.RandomPosterization(factor=0), lambda: L.RandomColorDegeneration(factor=1.5),
    lambda: L.RandomSaturation(factor="x"), lambda: L.RandomHue(factor=-0.1), lambda: L.RandomHue(factor=(2, 3)),
    lambda: L.RandomSharpness(factor=1.2), lambda: L.RandomSharpness(factor=0.5, data_format="nhwc"),
    lambda: L.RandomHue(factor=0.5, seed=-1),
])
def test_bad_arguments_are_refused(make):
    with pytest.raises(ValueError):
        make()


def test_bad_images_are_refused():
    with pytest.raises(ValueError, match="rank"):
        L.RandomHue(0.5)(np.zeros((2, 3), np.float32))
