"""``RandAugment``: Keras' picks of its deterministic augmentations give Keras' images (skips without Keras); the
picks are uniform over the eleven and seeded; each pick runs its layer; training=False; configs; refusals."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_X = np.round(np.random.default_rng(0).uniform(20, 200, (3, 8, 7, 3))).astype(np.float32)


@pytest.mark.parametrize("picks", [[9, 10], [10, 9], [9, 9], [10]])
def test_deterministic_picks_equal_keras(picks):
    keras = pytest.importorskip("keras")
    theirs = keras.layers.RandAugment(num_ops=len(picks), factor=0.4, seed=1)
    drawn = theirs.get_random_transformation(_X, training=True)
    drawn["layer_idxes"] = np.asarray(picks, np.int32)
    want = np.asarray(theirs.transform_images(_X, drawn))
    got = L.RandAugment(num_ops=len(picks), factor=0.4).transform_images(_X, {"layer_idxes": picks}).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


def test_picks_run_their_layers():
    layer = L.RandAugment(num_ops=1, factor=0.5, seed=0)
    for i, sub in enumerate(layer.layers):
        if type(sub).__name__ in ("AutoContrast", "Equalization"):
            np.testing.assert_allclose(layer.transform_images(_X, {"layer_idxes": [i]}).numpy(), sub(_X).numpy())
    assert [type(s).__name__ for s in layer.layers] == [
        "RandomShear", "RandomTranslation", "RandomRotation", "RandomBrightness", "RandomColorDegeneration",
        "RandomContrast", "RandomSharpness", "RandomPosterization", "Solarization", "AutoContrast", "Equalization"]
    assert layer.layers[7].factor == (1, 4)  # max(1, int(8 * 0.5)) bits
    picks = np.concatenate([L.RandAugment(num_ops=3, seed=s).get_random_transformation(_X)["layer_idxes"].numpy()
                            for s in range(400)])
    counts = np.bincount(picks, minlength=11)
    assert counts.min() > 70 and counts.max() < 150  # 1200 picks, ~109 each


def test_seeds_identity_and_config():
    a, b = L.RandAugment(seed=3), L.RandAugment(seed=3)
    np.testing.assert_array_equal(a(_X).numpy(), b(_X).numpy())
    np.testing.assert_array_equal(a(_X, training=False).numpy(), _X)
    np.testing.assert_array_equal(L.RandAugment(num_ops=0)(_X).numpy(), _X)
    config = L.RandAugment(value_range=(0, 1), num_ops=3, factor=(0.1, 0.3), seed=2).get_config()
    assert L.RandAugment.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs", [dict(num_ops=-1), dict(factor=2), dict(factor=(0.1, 0.2, 0.3)),
                                    dict(data_format="channels_first"), dict(seed=-1)])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        L.RandAugment(**kwargs)
    with pytest.raises(ValueError, match="indices"):
        L.RandAugment().transform_images(_X, {"layer_idxes": [11]})
