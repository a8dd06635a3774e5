"""Output shapes of every descend layer called on a functional ``Input`` with unknown (None) axes.

For each layer the recorded KerasTensor shape is checked against the shapes the layer really produces on data of
several lengths (a dimension that changes with the input's unknown lengths must be None, the others exact), and,
where Keras 3 is installed, against the shape Keras records for the same layer on the same Input.
"""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend import keras

L = ds.layers


class _Cell(L.Layer):
    """A minimal RNN cell: h = tanh(x W + h U)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), name="w")
        self.u = self.add_weight(shape=(self.units, self.units), name="u")

    def call(self, inputs, states):
        h = ds.tanh(ds.matmul(inputs, self.w) + ds.matmul(states[0], self.u))
        return h, [h]


# (name, make the layer (lib = descend.layers or keras.layers), input shapes without the batch axis, int inputs)
CASES = [
    ("Activation", lambda lib: lib.Activation("relu"), [(None, 4)], False),
    ("Dense", lambda lib: lib.Dense(3), [(None, 4)], False),
    ("Dense_2d", lambda lib: lib.Dense(3), [(None, None, 4)], False),
    ("Dropout", lambda lib: lib.Dropout(0.5), [(None, 4)], False),
    ("Embedding", lambda lib: lib.Embedding(10, 3), [(None,)], True),
    ("Flatten", lambda lib: lib.Flatten(), [(None, 4)], False),
    ("Flatten_known", lambda lib: lib.Flatten(), [(3, 4)], False),
    ("Conv1D_valid", lambda lib: lib.Conv1D(3, 3), [(None, 4)], False),
    ("Conv1D_strided", lambda lib: lib.Conv1D(3, 5, strides=3), [(None, 4)], False),
    ("Conv1D_same", lambda lib: lib.Conv1D(3, 7, padding="same"), [(None, 4)], False),
    ("Conv1D_causal_dilated", lambda lib: lib.Conv1D(2, 3, padding="causal", dilation_rate=2), [(None, 4)], False),
    ("Conv2D_valid", lambda lib: lib.Conv2D(2, 3), [(None, None, 3)], False),
    ("Conv2D_strided", lambda lib: lib.Conv2D(2, (5, 3), strides=(2, 3)), [(None, 8, 3)], False),
    ("MaxPooling1D", lambda lib: lib.MaxPooling1D(10), [(None, 4)], False),
    ("MaxPooling1D_same", lambda lib: lib.MaxPooling1D(3, strides=2, padding="same"), [(None, 4)], False),
    ("AveragePooling1D", lambda lib: lib.AveragePooling1D(4), [(None, 4)], False),
    ("MaxPooling2D", lambda lib: lib.MaxPooling2D((3, 2)), [(None, None, 2)], False),
    ("AveragePooling2D", lambda lib: lib.AveragePooling2D(2, padding="same"), [(None, 7, 2)], False),
    ("GlobalMaxPooling1D", lambda lib: lib.GlobalMaxPooling1D(), [(None, 4)], False),
    ("GlobalAveragePooling1D", lambda lib: lib.GlobalAveragePooling1D(), [(None, 4)], False),
    ("GlobalMaxPooling2D", lambda lib: lib.GlobalMaxPooling2D(), [(None, None, 3)], False),
    ("GlobalAveragePooling2D_keepdims", lambda lib: lib.GlobalAveragePooling2D(keepdims=True), [(None, None, 3)],
     False),
    ("BatchNormalization", lambda lib: lib.BatchNormalization(), [(None, 4)], False),
    ("LayerNormalization", lambda lib: lib.LayerNormalization(), [(None, 4)], False),
    ("Masking", lambda lib: lib.Masking(), [(None, 4)], False),
    ("Permute", lambda lib: lib.Permute((2, 1)), [(None, 4)], False),
    ("RepeatVector", lambda lib: lib.RepeatVector(3), [(4,)], False),
    ("Reshape", lambda lib: lib.Reshape((-1, 2)), [(None, 4)], False),
    ("SimpleRNN_seq", lambda lib: lib.SimpleRNN(3, return_sequences=True), [(None, 4)], False),
    ("GRU", lambda lib: lib.GRU(3), [(None, 4)], False),
    ("LSTM_state", lambda lib: lib.LSTM(3, return_sequences=True, return_state=True), [(None, 4)], False),
    ("Bidirectional", lambda lib: lib.Bidirectional(lib.LSTM(3, return_sequences=True)), [(None, 4)], False),
    ("TimeDistributed", lambda lib: lib.TimeDistributed(lib.Dense(2)), [(None, 4)], False),
    ("RNN_cell", lambda lib: lib.RNN(lib.SimpleRNNCell(3), return_sequences=True),
     [(None, 4)], False),
    ("Add", lambda lib: lib.Add(), [(None, 4), (None, 4)], False),
    ("Subtract", lambda lib: lib.Subtract(), [(None, 4), (None, 4)], False),
    ("Multiply", lambda lib: lib.Multiply(), [(None, 4), (None, 4)], False),
    ("Average", lambda lib: lib.Average(), [(None, 4), (None, 4)], False),
    ("Maximum", lambda lib: lib.Maximum(), [(None, 4), (None, 4)], False),
    ("Minimum", lambda lib: lib.Minimum(), [(None, 4), (None, 4)], False),
    ("Concatenate_time", lambda lib: lib.Concatenate(axis=1), [(None, 4), (None, 4)], False),
    ("Concatenate", lambda lib: lib.Concatenate(), [(None, 4), (None, 2)], False),
    ("MultiHeadAttention", lambda lib: lib.MultiHeadAttention(2, 3), [(None, 4), (None, 5)], False),
    ("Lambda", lambda lib: lib.Lambda(lambda t: t[:, 1:, :] * 2.0), [(None, 4)], False),
]


def _keras_cell(units):
    import keras as real_keras

    return real_keras.layers.SimpleRNNCell(units)


def _call(layer, inputs):
    return layer(inputs if len(inputs) > 1 and not isinstance(layer, L.MultiHeadAttention) else inputs[0]) \
        if not isinstance(layer, L.MultiHeadAttention) else layer(inputs[0], inputs[1])


def _flat_shapes(out):
    out = out if isinstance(out, (list, tuple)) else [out]
    return [tuple(o.shape) for o in out]


def _data(shape, lengths, ints, batch):
    full = tuple(lengths[i % len(lengths)] if d is None else d for i, d in enumerate(shape))
    rng = np.random.default_rng(0)
    if ints:
        return rng.integers(0, 10, size=(batch,) + full).astype(np.int32)
    return rng.standard_normal((batch,) + full).astype(np.float32)


@pytest.mark.parametrize("name, make, shapes, ints", CASES, ids=[c[0] for c in CASES])
def test_symbolic_shapes_match_real_calls_on_unknown_axes(name, make, shapes, ints):
    inputs = [keras.Input(s, dtype="int32" if ints else "float32") for s in shapes]
    layer = make(L)
    symbolic = _flat_shapes(_call(layer, inputs))
    observed = []
    for lengths, batch in [((16, 12), 2), ((21, 13), 3), ((30, 10), 1)]:
        data = [ds.constant(_data(s, lengths, ints, batch)) for s in shapes]
        observed.append(_flat_shapes(_call(layer, data)))
    for k, sym in enumerate(symbolic):
        real = [o[k] for o in observed]
        expected = tuple(r[0] if all(r[0] == x for x in r) else None for r in zip(*real))
        assert sym == expected, f"{name}: output {k} recorded {sym}, real calls give {real}"


@pytest.mark.parametrize("name, make, shapes, ints", CASES, ids=[c[0] for c in CASES])
def test_symbolic_shapes_as_keras(name, make, shapes, ints):
    real_keras = pytest.importorskip("keras")
    ours = _flat_shapes(_call(make(L), [keras.Input(s, dtype="int32" if ints else "float32") for s in shapes]))
    kinputs = [real_keras.Input(s, dtype="int32" if ints else "float32") for s in shapes]
    klayer = make(real_keras.layers)
    kout = klayer(kinputs[0], kinputs[1]) if name == "MultiHeadAttention" else klayer(
        kinputs if len(kinputs) > 1 else kinputs[0])
    assert ours == _flat_shapes(kout)


def test_a_model_on_a_none_axis_runs_on_any_length():
    x = keras.Input((None, 4))
    y = L.GlobalMaxPooling1D()(L.MaxPooling1D(10)(L.Conv1D(3, 3)(x)))
    model = keras.Model(x, y)
    for length in (12, 40, 200):
        assert model(np.ones((2, length, 4), np.float32)).shape == (2, 3)
    with pytest.raises(ValueError, match="does not fit the input"):  # a real input too short still fails
        model(np.ones((2, 2, 4), np.float32))


def test_comparisons_and_logic_on_keras_tensors_build_op_layers():
    x = keras.Input((3,))
    y = (x > 0.5) & ~(x >= 0.9) | (x < -1.0)
    model = keras.Model(x, [y, x <= 0.0])
    data = np.array([[0.1, 0.6, 0.95], [-2.0, 0.0, 0.7]], np.float32)
    got, second = model(data)
    np.testing.assert_array_equal(got.numpy(), ((data > 0.5) & ~(data >= 0.9)) | (data < -1.0))
    np.testing.assert_array_equal(second.numpy(), data <= 0.0)
    assert got.dtype == np.bool_ and model.outputs[0].dtype == np.bool_
    rebuilt = keras.Model.from_config(model.get_config())
    np.testing.assert_array_equal(rebuilt(data)[0].numpy(), got.numpy())
    assert {x: 1}[x] == 1  # KerasTensors stay hashable by identity


def test_a_layer_no_probe_suits_takes_its_declared_output_shape():
    """Reshape((3, 5)) of an unknown axis works only for 15 entries: no probe length suits it, so its
    compute_output_shape gives the output (Keras computes output specs from it too)."""
    x = keras.Input((None,))
    y = L.Reshape((3, 5))(x)
    assert y.shape == (None, 3, 5) and y.dtype == np.float32
    model = keras.Model(x, y)
    assert model(np.ones((2, 15), np.float32)).shape == (2, 3, 5)
    with pytest.raises(ValueError, match="cannot reshape"):
        model(np.ones((2, 14), np.float32))
    ints = keras.Input((None,), dtype="int32")
    assert L.Reshape((3, 5))(ints).dtype == np.int32
    with pytest.raises(ValueError, match="cannot reshape a tensor of shape"):  # no shape rule: the probe's error
        L.Lambda(lambda t: ds.reshape(t, (-1, 3, 5)))(keras.Input((None,)))


def test_keras_tensor_dtype_defaults_to_float32():
    from descend.layers.keras_tensor import KerasTensor

    assert KerasTensor((None, 2)).dtype == np.float32


def test_errors_on_known_shapes_are_not_hidden_by_the_declared_shape():
    dense = L.Dense(2)
    dense(keras.Input(batch_shape=(1, 2)))
    with pytest.raises(ValueError, match="incompatible with the layer"):
        dense(keras.Input(batch_shape=(1, 3)))
    with pytest.raises(ValueError, match="A `Subtract` layer should be called on exactly 2 inputs"):
        L.Subtract()([keras.Input((4, 5))])
