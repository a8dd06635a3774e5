"""``GroupQueryAttention``: against Keras with a separate key, masks and scores (skips without Keras), the
grouping rule against a numpy reference, dropout, configs and refusals. Rows of tests/differential_cases.py compare
outputs and gradients with Keras too."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_RNG = np.random.default_rng(0)
_Q = _RNG.standard_normal((2, 5, 6)).astype(np.float32)
_V = _RNG.standard_normal((2, 4, 6)).astype(np.float32)
_K = _RNG.standard_normal((2, 4, 3)).astype(np.float32)


def _softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_query_heads_share_their_groups_key_and_value():
    layer = L.GroupQueryAttention(head_dim=2, num_query_heads=4, num_key_value_heads=2, use_bias=False,
                                  dtype="float64")
    out, scores = layer(_Q.astype(np.float64), _V.astype(np.float64), return_attention_scores=True)
    wq, wk, wv, wo = (w.numpy() for w in layer.weights)
    q = np.einsum("bqm,muh->bquh", _Q, wq)
    k = np.einsum("bkm,mvh->bkvh", _V, wk)
    v = np.einsum("bkm,mvh->bkvh", _V, wv)
    group = [0, 0, 1, 1]  # query heads 0, 1 read key/value head 0; 2, 3 read head 1
    want_scores = np.stack([_softmax(np.einsum("bqh,bkh->bqk", q[:, :, u], k[:, :, group[u]]) / np.sqrt(2))
                            for u in range(4)], axis=1)
    np.testing.assert_allclose(scores.numpy(), want_scores, rtol=1e-10)
    heads = np.stack([want_scores[:, u] @ v[:, :, group[u]] for u in range(4)], axis=2)
    np.testing.assert_allclose(out.numpy(), np.einsum("bquh,uhm->bqm", heads, wo), rtol=1e-10)


@pytest.mark.parametrize("kwargs, call", [
    (dict(use_gate=True), dict(use_causal_mask=True)),
    (dict(sliding_window=2), dict(value_mask=np.array([[1, 1, 0, 1], [1, 1, 1, 0]], bool))),
    (dict(), dict(query_mask=np.array([[1, 1, 1, 0, 0], [1] * 5], bool), use_causal_mask=True)),
])
def test_matches_keras_with_a_key_masks_and_scores(kwargs, call):
    keras = pytest.importorskip("keras")
    tf = pytest.importorskip("tensorflow")
    theirs = keras.layers.GroupQueryAttention(3, 4, 2, **kwargs)
    ours = L.GroupQueryAttention(3, 4, 2, **kwargs)
    theirs(_Q, _V, key=_K)
    ours(_Q, _V, key=_K)
    assert [w.path.split("/", 1)[1] for w in theirs.weights] == [w.path.split("/", 1)[1] for w in ours.weights]
    ours.set_weights(theirs.get_weights())
    q, v, k = (tf.constant(a) for a in (_Q, _V, _K))
    with tf.GradientTape() as tape:
        tape.watch([q, v, k])
        want, want_scores = theirs(q, v, key=k, return_attention_scores=True, **call)
        loss = tf.reduce_sum(want * want)
    want_grads = tape.gradient(loss, [q, v, k])
    dq, dv, dk = (ds.constant(a) for a in (_Q, _V, _K))
    with ds.GradientTape() as dtape:
        dtape.watch([dq, dv, dk])
        got, got_scores = ours(dq, dv, key=dk, return_attention_scores=True, **call)
        dloss = ds.reduce_sum(got * got)
    got_grads = dtape.gradient(dloss, [dq, dv, dk])
    np.testing.assert_allclose(got.numpy(), np.asarray(want), rtol=2e-5, atol=2e-6)
    np.testing.assert_allclose(got_scores.numpy(), np.asarray(want_scores), rtol=2e-5, atol=2e-6)
    for g, w in zip(got_grads, want_grads):
        np.testing.assert_allclose(ds.convert_to_tensor(g).numpy(), np.asarray(w), rtol=2e-4, atol=2e-5)
    assert set(ours.get_config()) | {"activity_regularizer"} == set(theirs.get_config())  # descend writes it when set


def test_dropout_is_seeded_and_training_only():
    a = L.GroupQueryAttention(2, 2, 1, dropout=0.5, seed=3)
    b = L.GroupQueryAttention(2, 2, 1, dropout=0.5, seed=3)
    a(_Q, _V)
    b(_Q, _V)
    b.set_weights(a.get_weights())
    np.testing.assert_array_equal(a(_Q, _V, training=True).numpy(), b(_Q, _V, training=True).numpy())
    assert not np.allclose(a(_Q, _V, training=True).numpy(), a(_Q, _V).numpy())
    np.testing.assert_array_equal(a(_Q, _V, training=False).numpy(), a(_Q, _V).numpy())


def test_config_round_trip_and_shapes():
    layer = L.GroupQueryAttention(2, 6, 3, dropout=0.1, use_bias=False, sliding_window=3, use_gate=True, seed=1)
    config = layer.get_config()
    assert L.GroupQueryAttention.from_config(config).get_config() == config
    assert layer.compute_output_shape((2, 5, 6), (2, 4, 6)) == (2, 5, 6)
    layer(_Q, _V)
    assert len(layer.weights) == 5  # query, key, gate, value, output kernels; no biases


@pytest.mark.parametrize("kwargs", [dict(num_key_value_heads=3), dict(head_dim=0), dict(dropout=1.0),
                                    dict(sliding_window=0), dict(sliding_window=1.5), dict(seed=-2),
                                    dict(dropout=0.2, flash_attention=True)])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        L.GroupQueryAttention(**{"head_dim": 2, "num_query_heads": 4, "num_key_value_heads": 2, **kwargs})


def test_bad_inputs_are_refused():
    layer = L.GroupQueryAttention(2, 2, 1)
    with pytest.raises(ValueError, match="value"):
        layer(_Q, _V, key=_K[:, :3])
    with pytest.raises(ValueError, match="broadcast"):
        layer(_Q, _V, attention_mask=np.ones((2, 5, 3), bool))
