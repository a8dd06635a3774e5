"""``AugMix``: Keras' structure of deterministic chains gives Keras' images (skips without Keras); descend's draws
(Dirichlet weights, Beta blend, chain steps) follow Keras' rules and are seeded; training=False; configs;
refusals."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_X = np.round(np.random.default_rng(0).uniform(20, 200, (3, 8, 7, 3))).astype(np.float32)


@pytest.mark.parametrize("chains, weights, m", [
    ([["auto_contrast"], [], ["equalization", "auto_contrast"]], [0.2, 0.5, 0.3], 0.4),
    ([["equalization"], ["equalization", "equalization"]], [0.9, 0.1], 0.0),
])
def test_deterministic_chains_equal_keras(chains, weights, m):
    keras = pytest.importorskip("keras")
    theirs = keras.layers.AugMix(num_chains=len(chains), seed=1)
    structure = {"chain_mixing_weights": np.asarray(weights, np.float32), "weight_sample": np.float32(m),
                 "chain_transforms": [[{"layer_name": n, "transformation": None} for n in c] for c in chains]}
    want = np.asarray(theirs.transform_images(_X, structure))
    got = L.AugMix(num_chains=len(chains)).transform_images(_X, structure).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


def test_draws_follow_keras_rules():
    layer = L.AugMix(num_chains=4, chain_depth=2, alpha=0.5, all_ops=False, seed=2)
    draws = [layer.get_random_transformation(_X) for _ in range(300)]
    w = np.stack([d["chain_mixing_weights"].numpy() for d in draws])
    np.testing.assert_allclose(w.sum(axis=1), 1.0, rtol=1e-5)
    m = np.array([float(d["weight_sample"].numpy()) for d in draws])
    assert abs(m.mean() - 0.5) < 0.06 and (m.min() < 0.05 and m.max() > 0.95)  # Beta(.5, .5): mass at the ends
    names = [s["layer_name"] for d in draws for c in d["chain_transforms"] for s in c]
    assert set(names) == {"random_shear", "random_translation", "random_rotation", "random_posterization",
                          "solarization", "auto_contrast", "equalization"}
    steps = np.array([len(c) for d in draws for c in d["chain_transforms"]])
    assert steps.max() == 2 and abs(steps.mean() - 2 * 7 / 8) < 0.1  # each step is 'none' with chance 1/8


def test_seeds_identity_range_and_config():
    a, b = L.AugMix(seed=3), L.AugMix(seed=3)
    out = a(_X).numpy()
    np.testing.assert_array_equal(out, b(_X).numpy())
    assert out.min() >= 0 and out.max() <= 255
    np.testing.assert_array_equal(a(_X, training=False).numpy(), _X)
    config = L.AugMix(value_range=(0, 1), num_chains=2, chain_depth=4, factor=0.2, alpha=0.7, all_ops=False,
                      seed=5).get_config()
    assert L.AugMix.from_config(config).get_config() == config


@pytest.mark.parametrize("kwargs", [dict(num_chains=0), dict(chain_depth=-1), dict(alpha=0), dict(factor=1.5),
                                    dict(data_format="channels_first")])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        L.AugMix(**kwargs)
    with pytest.raises(ValueError, match="layer_name"):
        L.AugMix().transform_images(_X, {"chain_mixing_weights": [1.0], "weight_sample": 0.5,
                                         "chain_transforms": [[{"layer_name": "blur"}]]})
