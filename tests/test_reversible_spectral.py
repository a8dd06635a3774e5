"""``ReversibleEmbedding`` and ``SpectralNormalization``: against Keras (skips without it), configs, refusals.
The differential harness has ReversibleEmbedding's rows; SpectralNormalization is compared here by weight name."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_RNG = np.random.default_rng(0)


def test_reversible_embedding_ties_and_caps():
    layer = L.ReversibleEmbedding(6, 3, logit_soft_cap=2.0)
    x = _RNG.standard_normal((2, 4, 3)).astype(np.float32)
    layer(np.array([[1, 2]]))
    table = layer.embeddings.numpy()
    got = layer(x, reverse=True).numpy()
    np.testing.assert_allclose(got, 2.0 * np.tanh(x @ table.T / 2.0), rtol=1e-5, atol=1e-6)
    assert layer.compute_output_shape((2, 4, 3), reverse=True) == (2, 4, 6)
    untied = L.ReversibleEmbedding(6, 3, tie_weights=False)
    untied(np.array([[1]]))
    assert [w.name.split("/")[-1] for w in untied.weights] == ["embeddings", "reverse_embeddings"]
    np.testing.assert_allclose(untied(x, reverse=True).numpy(), x @ untied.reverse_embeddings.numpy(), rtol=1e-5)
    wide = L.ReversibleEmbedding(6, 3, reverse_dtype="float64")
    wide(np.array([[1]]))
    assert wide(x, reverse=True).dtype == ds.float64


def test_reversible_embedding_mask_and_gradients():
    layer = L.ReversibleEmbedding(6, 3, mask_zero=True)
    ids = ds.constant([[0, 2, 3]])
    out = layer(ids)
    np.testing.assert_array_equal(np.asarray(L.get_mask(out)), [[False, True, True]])
    assert L.get_mask(layer(out, reverse=True)) is None
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(layer(layer(ids), reverse=True))
    g = tape.gradient(loss, layer.embeddings)
    assert np.abs(ds.convert_to_tensor(g).numpy()).sum() > 0  # the table gets both directions' gradients


def test_reversible_embedding_round_trip_and_refusals():
    layer = L.ReversibleEmbedding(6, 3, tie_weights=False, reverse_dtype="float32", logit_soft_cap=3.0)
    config = layer.get_config()
    assert L.ReversibleEmbedding.from_config(config).get_config() == config
    for kwargs in (dict(tie_weights="yes"), dict(logit_soft_cap=0), dict(logit_soft_cap=-1.0),
                   dict(reverse_dtype="int32"), dict(input_dim=0)):
        with pytest.raises((ValueError, TypeError)):
            L.ReversibleEmbedding(**{"input_dim": 6, "output_dim": 3, **kwargs})
    layer(np.array([[1]]))
    with pytest.raises(ValueError, match="output_dim"):
        layer(np.ones((2, 4), np.float32), reverse=True)


def test_reversible_embedding_matches_keras():
    keras = pytest.importorskip("keras")
    x = _RNG.standard_normal((2, 4, 3)).astype(np.float32)
    ids = np.array([[1, 0, 5]])
    theirs = keras.layers.ReversibleEmbedding(6, 3, tie_weights=False, logit_soft_cap=1.0)
    ours = L.ReversibleEmbedding(6, 3, tie_weights=False, logit_soft_cap=1.0)
    theirs(ids)
    ours(ids)
    ours.set_weights(theirs.get_weights())
    np.testing.assert_allclose(ours(ids).numpy(), np.asarray(theirs(ids)))
    np.testing.assert_allclose(ours(x, reverse=True).numpy(), np.asarray(theirs(x, reverse=True)), rtol=1e-5,
                               atol=1e-6)
    assert {k for k in ours.get_config() if k != "dtype"} <= set(theirs.get_config()) | {"activity_regularizer"}


def _by_name(layer):
    return {w.name.split("/")[-1]: w for w in layer.weights}


@pytest.mark.parametrize("make, shape", [
    (lambda M: M.Dense(4), (3, 5)),
    (lambda M: M.Conv2D(3, 2), (2, 4, 4, 2)),
])
@pytest.mark.parametrize("iterations", [1, 3])
def test_spectral_normalization_matches_keras(make, shape, iterations):
    keras = pytest.importorskip("keras")
    x = (np.array([[1, 4, 2]]) if shape is None else _RNG.standard_normal(shape).astype(np.float32))
    theirs = keras.layers.SpectralNormalization(make(keras.layers), power_iterations=iterations)
    ours = L.SpectralNormalization(make(L), power_iterations=iterations)
    theirs(x)
    ours(x)
    mine = _by_name(ours)
    for w in theirs.weights:
        mine[w.path.split("/")[-1]].assign(np.asarray(w.numpy()))
    for training in (False, True, True):
        got = ours(x, training=training).numpy()
        want = np.asarray(theirs(x, training=training))
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6)
    for w in theirs.weights:
        np.testing.assert_allclose(mine[w.path.split("/")[-1]].numpy(), np.asarray(w.numpy()), rtol=2e-5,
                                   atol=1e-7)


def test_spectral_normalization_bounds_the_top_singular_value():
    rng = np.random.default_rng(1)
    sn = L.SpectralNormalization(L.Dense(4, kernel_initializer=ds.initializers.GlorotUniform(seed=1)))
    x = rng.standard_normal((3, 6)).astype(np.float32)
    before = sn(x, training=False).numpy()
    np.testing.assert_allclose(sn(x).numpy(), before)  # inference: the kernel untouched
    for _ in range(60):
        sn(x, training=True)
    top = np.linalg.svd(sn.layer.kernel.numpy(), compute_uv=False)[0]
    assert abs(top - 1.0) < 1e-3
    # an embedding table too; its float output is kept (Keras casts it to the ids' int dtype: zeros)
    emb = L.SpectralNormalization(L.Embedding(5, 8, embeddings_initializer=ds.initializers.RandomUniform(seed=2)),
                                  power_iterations=60)
    assert emb(np.array([[1, 2]]), training=True).dtype == ds.float32
    assert abs(np.linalg.svd(emb.layer.embeddings.numpy(), compute_uv=False)[0] - 1.0) < 1e-3
    zero = L.SpectralNormalization(L.Dense(2, kernel_initializer="zeros"))
    zero(x, training=True)
    assert not np.any(zero.layer.kernel.numpy()) and np.all(np.isfinite(zero.vector_u.numpy()))


def test_spectral_normalization_round_trip_and_refusals():
    sn = L.SpectralNormalization(L.Dense(3), power_iterations=2)
    config = sn.get_config()
    again = L.SpectralNormalization.from_config(config)
    assert again.power_iterations == 2 and isinstance(again.layer, L.Dense)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="power_iterations"):
            L.SpectralNormalization(L.Dense(3), power_iterations=bad)
    with pytest.raises(ValueError, match="must be a Layer"):
        L.SpectralNormalization("dense")
    with pytest.raises(ValueError, match="'kernel' nor 'embeddings'"):
        L.SpectralNormalization(L.Flatten())(np.ones((2, 3), np.float32))
