"""Behaviour of the layers added for issue 17 beyond the layer-case table: recurrent states,
dropout, masks through models, functional use, bad arguments and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend import keras

layers = keras.layers
RNG = np.random.default_rng(5)


def test_initial_state_and_return_state_chain_two_calls():
    x = RNG.standard_normal((2, 6, 3)).astype(np.float32)
    lstm = layers.LSTM(4, return_state=True)
    _, h, c = lstm(x[:, :3])
    out_split, _, _ = lstm(x[:, 3:], initial_state=[h, c])
    out_whole, _, _ = lstm(x)
    np.testing.assert_allclose(out_split.numpy(), out_whole.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="expects 2 initial state"):
        lstm(x, initial_state=[h])


def test_recurrent_dropout_only_in_training_and_reproducible_by_seed():
    x = RNG.standard_normal((3, 5, 4)).astype(np.float32)

    def make():
        ds.clear_session()
        layer = layers.GRU(3, dropout=0.5, recurrent_dropout=0.3, seed=7,
                           kernel_initializer=keras.initializers.GlorotUniform(seed=1),
                           recurrent_initializer=keras.initializers.Orthogonal(seed=2))
        return layer

    a, b = make(), make()
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())
    np.testing.assert_array_equal(a(x).numpy(), a(x, training=False).numpy())
    ta, tb = a(x, training=True).numpy(), b(x, training=True).numpy()
    np.testing.assert_array_equal(ta, tb)  # same seed, same masks
    assert not np.allclose(ta, a(x).numpy())
    assert not np.array_equal(a(x, training=True).numpy(), ta)  # the generator advances


def test_masked_steps_make_padding_invisible_through_an_embedding():
    emb = layers.Embedding(20, 4, mask_zero=True)
    gru = layers.GRU(3)
    padded = np.array([[5, 6, 7, 0, 0]])
    np.testing.assert_allclose(gru(emb(padded)).numpy(), gru(emb(padded[:, :3])).numpy(), rtol=1e-6)
    bi = layers.Bidirectional(layers.LSTM(2))
    np.testing.assert_allclose(bi(emb(padded)).numpy(), bi(emb(padded[:, :3])).numpy(), rtol=1e-6)
    pool = layers.GlobalAveragePooling1D()
    np.testing.assert_allclose(pool(emb(padded)).numpy(), pool(emb(padded[:, :3])).numpy(), rtol=1e-6)


def test_masking_float_padding_for_a_recurrent_layer():
    x = RNG.standard_normal((1, 5, 3)).astype(np.float32)
    x[:, 3:] = -1.0
    lstm = layers.LSTM(2)
    masked = lstm(layers.Masking(mask_value=-1.0)(x))
    np.testing.assert_allclose(masked.numpy(), lstm(x[:, :3]).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="`mask_value` must be a number"):
        layers.Masking("pad")


def test_multi_head_attention_in_a_functional_model():
    q = keras.Input(shape=(None, 8), name="q")
    v = keras.Input(shape=(None, 8), name="v")
    mha = layers.MultiHeadAttention(num_heads=2, key_dim=4)
    out, scores = mha(q, v, return_attention_scores=True)
    assert out.shape == (None, None, 8) and scores.shape == (None, 2, None, None)
    model = keras.Model([q, v], [out, scores])
    qa, va = RNG.standard_normal((2, 3, 8)).astype(np.float32), RNG.standard_normal((2, 5, 8)).astype(np.float32)
    o, s = model([qa, va])
    assert o.shape == (2, 3, 8) and s.shape == (2, 2, 3, 5)
    np.testing.assert_allclose(s.numpy().sum(axis=-1), 1.0, rtol=1e-6)


@pytest.mark.parametrize("make,error,match", [
    (lambda: layers.LSTM(0), ValueError, "`units` must be a positive integer. Received: units=0"),
    (lambda: layers.GRU(2, dropout=1.0), ValueError, r"`dropout` must be a float in \[0, 1\)"),
    (lambda: layers.SimpleRNN(2, stateful=True), ValueError, "stateful=True"),
    (lambda: layers.Bidirectional(layers.Dense(2)), ValueError, "must be a recurrent layer"),
    (lambda: layers.Bidirectional(layers.LSTM(2), merge_mode="max"), ValueError, "invalid merge_mode"),
    (lambda: layers.TimeDistributed("dense"), ValueError, "must be a Layer"),
    (lambda: layers.Reshape((2, -1, -1)), ValueError, "at most one unknown dimension"),
    (lambda: layers.Permute((1, 3)), ValueError, r"Invalid permutation argument `dims` for Permute Layer"),
    (lambda: layers.RepeatVector(0), ValueError, "Received: n=0"),
    (lambda: layers.Concatenate(axis=1.5), ValueError, "`axis` must be an int"),
    (lambda: layers.Conv1D(2, 3, strides=2, dilation_rate=2), ValueError, "not supported in conjunction with"),
    (lambda: layers.Conv1D(2, 3, padding="full"), ValueError, "`padding` must be 'valid', 'same' or 'causal'"),
    (lambda: layers.MaxPooling1D(0), ValueError, "pool_size"),
    (lambda: layers.MultiHeadAttention(2, 3, attention_axes=(1, 2)), ValueError, "attention_axes=None"),
    (lambda: layers.MultiHeadAttention(2, 3, dropout=2), ValueError, r"`dropout` must be in \[0, 1\)"),
    (lambda: layers.Lambda(3), TypeError, "`function` must be callable"),
    (lambda: keras.Input(shape=(3,), batch_shape=(None, 3)), ValueError,
     "You cannot pass both `shape` and `batch_shape` at the same time"),
    (lambda: keras.Input(), ValueError, "a `shape`"),
    (lambda: keras.Input(shape=(3,), sparse=True), ValueError, "no sparse input tensors"),
])
def test_bad_arguments_say_what_was_expected(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize("layer,inputs,match", [
    (lambda: layers.LSTM(2), lambda: ds.ones((2, 3)), "expected ndim=3, found ndim=2"),
    (lambda: layers.GlobalAveragePooling1D(), lambda: ds.ones((2, 3)), "expected ndim=3, found ndim=2"),
    (lambda: layers.GlobalMaxPooling2D(), lambda: ds.ones((2, 3, 4)), "expected ndim=4, found ndim=3"),
    (lambda: layers.AveragePooling2D(), lambda: ds.ones((2, 3, 4)), "expected ndim=4, found ndim=3"),
    (lambda: layers.Conv1D(2, 2), lambda: ds.ones((2, 3)), "expected ndim=3, found ndim=2"),
    (lambda: layers.Reshape((5,)), lambda: ds.ones((2, 3, 2)), r"cannot reshape an input of shape \(2, 3, 2\)"),
    (lambda: layers.Permute((2, 1)), lambda: ds.ones((2, 3)), "expected ndim=3, found ndim=2"),
    (lambda: layers.RepeatVector(2), lambda: ds.ones((2, 3, 1)), "expected ndim=2, found ndim=3"),
    (lambda: layers.Add(), lambda: ds.ones((2, 3)), "must be called on a list of inputs"),
    (lambda: layers.Add(), lambda: [ds.ones((2, 3))], "needs at least 2 inputs"),
    (lambda: layers.Subtract(), lambda: [ds.ones((2, 3))] * 3, "A `Subtract` layer should be called on exactly 2 inputs"),
    (lambda: layers.Multiply(), lambda: [ds.ones((2, 3)), ds.ones((2, 4))], "inputs of one shape"),
    (lambda: layers.Concatenate(), lambda: [ds.ones((2, 3)), ds.ones((3, 3))],
     "matching shapes except for the concatenation axis"),
    (lambda: layers.TimeDistributed(layers.Dense(2)), lambda: ds.ones((2, 3)), "rank >= 3"),
])
def test_bad_inputs_name_the_layer_and_the_shape(layer, inputs, match):
    with pytest.raises(ValueError, match=match):
        layer()(inputs())


def test_rnn_mask_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"the mask must have shape \(batch, timesteps\) = \(2, 4\)"):
        layers.SimpleRNN(2)(ds.ones((2, 4, 3)), mask=np.ones((2, 3), bool))


def test_keras_aliases_and_functional_forms():
    assert layers.GlobalAvgPool1D is layers.GlobalAveragePooling1D and layers.MaxPool2D is layers.MaxPooling2D
    a, b = ds.constant([[1.0, 4.0]]), ds.constant([[3.0, 2.0]])
    assert layers.add([a, b]).numpy().tolist() == [[4.0, 6.0]]
    assert layers.subtract([a, b]).numpy().tolist() == [[-2.0, 2.0]]
    assert layers.multiply([a, b]).numpy().tolist() == [[3.0, 8.0]]
    assert layers.average([a, b]).numpy().tolist() == [[2.0, 3.0]]
    assert layers.maximum([a, b]).numpy().tolist() == [[3.0, 4.0]]
    assert layers.minimum([a, b]).numpy().tolist() == [[1.0, 2.0]]
    assert layers.concatenate([a, b], axis=0).shape == (2, 2)
