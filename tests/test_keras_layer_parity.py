"""Layers as Keras 3.15 has them, found by running Keras' own test files (tests/keras_suite): the built state of
weightless layers, argument checks in Keras' words, keyword calls, shapes and dtypes under mixed precision."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend import layers as L


def test_stateless_layers_are_built_when_made_unless_build_is_overridden():
    """Keras 3 builds its weightless layers (activations, pooling, dropout, masking) at instantiation."""
    for layer in (L.Activation("relu"), L.Dropout(0.5), L.Masking(), L.MaxPooling1D(), L.AveragePooling2D(),
                  L.GlobalMaxPooling1D(), L.GlobalAveragePooling2D()):
        assert layer.built, type(layer).__name__

    class CustomPool(L.MaxPooling1D):
        def build(self, input_shape):
            self.seen = input_shape

    layer = CustomPool()
    assert not layer.built
    layer(ds.ones((2, 4, 3)))
    assert layer.built and layer.seen == (2, 4, 3)
    assert not L.Dense(2).built and not L.Flatten().built


@pytest.mark.parametrize("kwargs, match", [
    ({"rate": -0.5}, r"Invalid value received for argument `rate`. Expected a float value between 0 and 1."),
    ({"rate": 1.5}, r"Invalid value received for argument `rate`. Expected a float value between 0 and 1."),
    ({"rate": 0.5, "noise_shape": (20, 1.5, 10)}, r"Expected all elements to be integers or None. Received element "
                                                  r"at index 1: 1.5 \(type: float\)"),
    ({"rate": 0.5, "noise_shape": (20, -1, 10)}, r"Expected all dimensions to be positive integers or None. "
                                                 r"Received negative or zero value at index 1: -1"),
    ({"rate": 0.5, "noise_shape": (20, 0)}, r"positive integers or None"),
    ({"rate": 0.5, "noise_shape": 5}, r"Expected an iterable of integers"),
    ({"rate": 0.5, "noise_shape": "abc"}, r"Expected a tuple or list of integers"),
])
def test_dropout_argument_errors_in_keras_words(kwargs, match):
    with pytest.raises(ValueError, match=match):
        L.Dropout(**kwargs)


def test_dropout_noise_shape_list_is_kept_as_a_tuple():
    layer = L.Dropout(0.5, noise_shape=[None, 1])
    assert layer.noise_shape == (None, 1)
    out = layer(ds.ones((3, 4)), training=True).numpy()
    assert all(len(set(row)) == 1 for row in out)  # one decision per row (the mask is (3, 1))


def _masked(values):
    return L.Masking()(ds.constant(np.array(values, np.float32)))


@pytest.mark.parametrize("layer, expected, expected_mask", [
    # Keras 3.15's values (its merging_test): x1 masked at steps 0 and 2, x2 at steps 0 and 1
    (L.Add, [[[0, 0], [1, 2], [1, 2], [6, 8]]], [[0, 1, 1, 1]]),
    (L.Subtract, [[[0, 0], [1, 2], [-1, -2], [0, 0]]], [[0, 1, 1, 1]]),
    (L.Average, [[[0, 0], [0.5, 1], [0.5, 1], [3, 4]]], [[0, 1, 1, 1]]),
    (L.Multiply, [[[0, 0], [1, 2], [1, 2], [9, 16]]], [[0, 1, 1, 1]]),
])
def test_merging_masked_inputs_as_keras(layer, expected, expected_mask):
    x1 = _masked([[[0, 0], [1, 2], [0, 0], [3, 4]]])
    x2 = _masked([[[0, 0], [0, 0], [1, 2], [3, 4]]])
    out = layer()([x1, x2])
    np.testing.assert_allclose(out.numpy(), expected)
    np.testing.assert_array_equal(L.get_mask(out).numpy(), np.array(expected_mask, bool))
    unmasked = layer()([x1, ds.constant(np.array([[[0, 0], [0, 0], [1, 2], [3, 4]]], np.float32))])
    assert L.get_mask(unmasked) is None  # an input without a mask: no output mask


def test_maximum_minimum_and_concatenate_with_masks_as_keras():
    x1 = _masked([[[0, 0], [-1, -2], [0, 0], [-3, -4]]])
    x2 = _masked([[[0, 0], [0, 0], [-1, -2], [-3, -4]]])
    np.testing.assert_allclose(L.Maximum()([x1, x2]).numpy(), [[[0, 0], [-1, -2], [-1, -2], [-3, -4]]])
    y1 = _masked([[[0, 0], [1, 2], [0, 0], [3, 4]]])
    y2 = ds.constant(np.array([[[0, 0], [0, 0], [1, 2], [3, 4]]], np.float32))
    out = L.Concatenate(axis=1)([y1, y2])
    np.testing.assert_array_equal(L.get_mask(out).numpy(), np.array([[0, 1, 0, 1, 1, 1, 1, 1]], bool))
    out = L.Concatenate(axis=2)([y1, y2])
    np.testing.assert_array_equal(L.get_mask(out).numpy(), np.array([[1, 1, 1, 1]], bool))


def test_merging_compute_mask_argument_errors_in_keras_words():
    a, b = ds.ones((2, 3)), ds.ones((2, 3))
    for layer in (L.Add(), L.Concatenate()):
        with pytest.raises(ValueError, match="`mask` should be a list."):
            layer.compute_mask([a, b], np.ones((2, 3)))
        with pytest.raises(ValueError, match="`inputs` should be a list."):
            layer.compute_mask(a, [None, None])
        with pytest.raises(ValueError, match=" should have the same length."):
            layer.compute_mask([a, b], [None])
        assert layer.compute_mask([a, b], [None, None]) is None
    with pytest.raises(ValueError, match="A `Subtract` layer should be called on exactly 2 inputs"):
        L.Subtract()([a, b, a])


def test_a_layer_takes_its_inputs_by_name_as_keras():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3)
    q, v = ds.ones((2, 4, 5)), ds.constant(np.random.default_rng(0).normal(size=(2, 6, 5)).astype(np.float32))
    np.testing.assert_allclose(mha(query=q, value=v).numpy(), mha(q, v).numpy(), rtol=1e-6)
    x, y = ds.keras.Input((4, 5)), ds.keras.Input((6, 5))
    assert mha(query=x, value=y).shape == (None, 4, 5)
    np.testing.assert_array_equal(L.Dense(2, kernel_initializer="ones")(inputs=ds.ones((1, 3))).numpy(), [[3, 3]])
    with pytest.raises(TypeError, match=r"was called without inputs: pass them first, or by the name `call` gives "
                                        r"them \('inputs'\)"):
        L.Dense(2)(units=3)


def test_rnn_zero_output_for_mask_as_keras():
    """Keras 3.15's values (its gru_test.test_masking): masked steps give the last state, or zeros."""
    sequence = np.arange(24).reshape((2, 4, 3)).astype("float32")
    mask = np.array([[True, True, False, True], [True, False, False, True]])
    kwargs = dict(kernel_initializer=ds.initializers.Constant(0.01), bias_initializer=ds.initializers.Constant(0.03),
                  recurrent_initializer=ds.initializers.Constant(0.02), return_sequences=True)
    carried = L.GRU(2, **kwargs)(sequence, mask=mask).numpy()
    np.testing.assert_allclose(carried[1, :, 0], [0.16051409, 0.16051409, 0.16051409, 0.30818558], rtol=1e-5)
    layer = L.GRU(2, zero_output_for_mask=True, **kwargs)
    zeroed = layer(sequence, mask=mask).numpy()
    np.testing.assert_allclose(zeroed[0, :, 0], [0.03606692, 0.09497581, 0.0, 0.19393763], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(zeroed[1, :, 0], [0.16051409, 0.0, 0.0, 0.30818558], rtol=1e-5, atol=1e-7)
    assert layer.get_config()["zero_output_for_mask"] is True
    assert L.GRU.from_config(layer.get_config()).zero_output_for_mask


def test_recurrent_layers_run_under_mixed_precision():
    """The cell's weights are read in float16 when the RNN computes in float16 (Keras' run_layer_test check)."""
    for cls in (L.SimpleRNN, L.LSTM, L.GRU):
        layer = cls(3, dtype="mixed_float16", return_sequences=True)
        x = ds.constant(np.random.default_rng(0).normal(size=(2, 4, 5)).astype(np.float32))
        out = layer(x)
        assert out.dtype == np.float16 and all(w.dtype == np.float32 for w in layer.weights)
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(ds.cast(layer(x), "float32"))
        grads = tape.gradient(loss, layer.trainable_weights)
        assert all(g is not None and g.dtype == np.float32 for g in grads)


@pytest.mark.parametrize("make, error, match", [
    (lambda: L.Conv1D(0, 3), ValueError,
     r"Invalid value for argument `filters`. Expected a strictly positive value. Received filters=0."),
    (lambda: L.Embedding(0, 8), ValueError, "`input_dim` must be a positive integer"),
    (lambda: L.Embedding(10, -1), ValueError, "`output_dim` must be a positive integer"),
    (lambda: L.RepeatVector("3"), TypeError, "Expected an integer value for `n`"),
    (lambda: L.RepeatVector(0), ValueError, "should be a positive integer"),
    (lambda: L.Reshape((-2, 5)), ValueError, r"non-negative integer.*-1.*target_shape=\(-2, 5\)"),
    (lambda: L.Reshape((-1, -1, 5)), ValueError, r"at most one unknown dimension.*target_shape=\(-1, -1, 5\)"),
    (lambda: L.Permute((0, 2)), ValueError, r"Invalid permutation .*dims.*"),
    (lambda: L.InputLayer(shape=(2, 3), batch_shape=(2, 3)), ValueError, "cannot pass both `shape` and `batch_shape`"),
    (lambda: L.InputLayer(batch_size=2, batch_shape=(2, 3)), ValueError,
     "cannot pass both `batch_size` and `batch_shape`"),
    (lambda: L.InputLayer(shape=None, batch_shape=None), ValueError, "pass a `shape` argument."),
    (lambda: L.InputLayer(shape=(3,), sparse=True), ValueError, "`sparse=True` is not supported"),
    (lambda: L.LayerNormalization(axis={"axis": -1}), TypeError,
     "Expected an int or a list/tuple of ints for the argument 'axis'"),
])
def test_argument_errors_in_keras_words(make, error, match):
    """The phrases Keras 3.15's own tests look for (so do programs that catch them)."""
    with pytest.raises(error, match=match):
        make()


def test_layer_normalization_built_for_one_rank_normalizes_another():
    layer = L.LayerNormalization()
    layer.build((2, 2, 2))
    x = np.random.default_rng(0).normal(5.0, 10.0, size=(100, 2, 2, 2)).astype(np.float32)
    out = layer(x).numpy()
    mean, std = x.mean(-1, keepdims=True), x.std(-1, keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(std**2 + 1e-3), rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="built for normalized axes"):
        layer(np.ones((2, 2, 3), np.float32))


def test_an_activation_set_to_none_is_linear():
    dense = L.Dense(2, use_bias=False)
    dense.build((1, 2))
    dense.set_weights([np.array([[1.0, -2.0], [3.0, -4.0]], np.float32)])
    dense.activation = None
    np.testing.assert_array_equal(dense(np.array([[-1.0, 2.0]], np.float32)).numpy(), [[5.0, -6.0]])
    conv = L.Conv1D(1, 1, use_bias=False, kernel_initializer="ones")
    conv.build((1, 2, 1))
    conv.activation = None
    np.testing.assert_array_equal(conv(-np.ones((1, 2, 1), np.float32)).numpy(), -np.ones((1, 2, 1)))


def test_batch_normalization_leaves_masked_entries_out_of_its_batch_statistics():
    rng = np.random.default_rng(3)
    x = rng.normal(2.0, 3.0, size=(4, 6, 3)).astype(np.float32)
    mask = rng.uniform(size=(4, 6)) > 0.4
    layer = L.BatchNormalization(momentum=0.0, epsilon=1e-3)
    out = layer(ds.constant(x), training=True, mask=mask).numpy()
    kept = x[mask]  # (n, 3)
    mean, var = kept.mean(0), kept.var(0)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-3), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(layer.moving_mean.numpy(), mean, rtol=1e-5)
    np.testing.assert_allclose(layer.moving_variance.numpy(), var, rtol=1e-4)
    assert L.BatchNormalization.supports_masking and L.LayerNormalization.supports_masking
    padded = L.Masking()(ds.constant(np.concatenate([x, np.zeros((4, 2, 3), np.float32)], axis=1)))
    assert L.get_mask(L.LayerNormalization()(padded)) is not None  # the mask passes through


def test_batch_normalization_computes_in_float32_under_mixed_precision():
    layer = L.BatchNormalization(dtype="mixed_float16")
    x = ds.constant(np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32) * 1e3)
    out = layer(x, training=True)
    assert out.dtype == np.float16 and np.isfinite(out.numpy()).all()
    assert all(w.dtype == np.float32 for w in layer.weights)
    np.testing.assert_allclose(out.numpy().astype(np.float32),
                               (x.numpy() - x.numpy().mean(0)) / np.sqrt(x.numpy().var(0) + 1e-3), rtol=2e-3,
                               atol=2e-3)


def test_multi_head_attention_build_makes_every_weight_and_checks_value_and_key():
    mha = L.MultiHeadAttention(num_heads=2, key_dim=3)
    mha.build((2, 4, 5), (2, 6, 7))
    assert len(mha.trainable_weights) == 8
    assert [tuple(w.shape) for w in mha.trainable_weights[:2]] == [(5, 2, 3), (2, 3)]
    out = mha(ds.ones((2, 4, 5)), ds.ones((2, 6, 7)))
    assert out.shape == (2, 4, 5) and len(mha.trainable_weights) == 8
    with pytest.raises(ValueError, match="All dimensions of `value` and `key`, except the last one, must be equal"):
        mha(ds.ones((2, 4, 5)), ds.ones((2, 6, 7)), ds.ones((2, 5, 7)))
    with pytest.raises(ValueError, match="must be equal"):
        mha.compute_output_shape((2, 4, 5), (2, 2, 7), (2,))


@pytest.mark.parametrize("merge_mode", ["concat", "sum", None])
@pytest.mark.parametrize("return_sequences", [False, True])
@pytest.mark.parametrize("return_state", [False, True])
def test_bidirectional_compute_output_shape_is_what_it_returns(merge_mode, return_sequences, return_state):
    layer = L.Bidirectional(L.LSTM(3, return_sequences=return_sequences, return_state=return_state),
                            merge_mode=merge_mode)
    out = layer(ds.ones((2, 5, 4)))
    outs = out if isinstance(out, list) else [out]
    declared = layer.compute_output_shape((2, 5, 4))
    declared = declared if isinstance(declared, list) else [declared]
    assert [tuple(o.shape) for o in outs] == [tuple(d) for d in declared]


def test_bidirectional_with_a_built_backward_layer_does_not_build_it_twice():
    backward = L.SimpleRNN(4, go_backwards=True)
    for _ in range(2):  # the same backward layer in two Bidirectionals (Keras' test does so)
        layer = L.Bidirectional(L.SimpleRNN(4), backward_layer=backward, merge_mode="sum")
        layer.build((3, 2, 4))
        assert len(layer.trainable_weights) == 6 and len(backward.trainable_weights) == 3


def test_time_distributed_checks_the_mask_and_gives_it_to_the_inner_layer():
    td = L.TimeDistributed(L.Dense(5))
    x = np.zeros((4, 5, 3), np.float32)
    for bad in (np.ones((5, 5), bool), np.ones((4, 6), bool), np.ones((4, 6, 2), bool)):
        with pytest.raises(ValueError, match=r"The `mask` passed to the `TimeDistributed` layer has a shape"):
            td(x, mask=bad)

    class Masked(L.Layer):
        def call(self, inputs, mask=None):
            return inputs if mask is None else inputs * ds.cast(ds.constant(mask), inputs.dtype)[:, None]

    out = L.TimeDistributed(Masked())(np.ones((2, 3, 1), np.float32), mask=np.array([[1, 0, 1], [0, 1, 1]], bool))
    np.testing.assert_array_equal(out.numpy()[..., 0], [[1, 0, 1], [0, 1, 1]])
    assert td(x, mask=np.ones((4, 5, 2), bool)).shape == (4, 5, 5)  # trailing mask axes are allowed


def test_conv_size_errors_in_keras_words():
    with pytest.raises(ValueError, match=r"The `kernel_size` argument must be a tuple of 2 integers. Received "
                                         r"kernel_size=\(1, 0\), including values \{0\} that do not satisfy"):
        L.Conv2D(2, (1, 0))
    with pytest.raises(ValueError, match=r"The `strides` argument must be a tuple of 2 integers"):
        L.Conv2D(2, 2, strides=(1, 0))
