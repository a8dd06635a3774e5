"""``RNN(cell)`` with a cell the user writes (Keras' cell API): a Layer with ``state_size`` and
``call(inputs, states)`` returning ``(output, new_states)``."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend import keras

layers = keras.layers
ops = keras.ops
RNG = np.random.default_rng(11)


class MySimpleCell(layers.Layer):
    """SimpleRNNCell written by hand: ``h = tanh(x @ kernel + h @ recurrent_kernel + bias)``."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), initializer="glorot_uniform",
                                      name="kernel")
        self.recurrent_kernel = self.add_weight(shape=(self.units, self.units), initializer="orthogonal",
                                                name="recurrent_kernel")
        self.bias = self.add_weight(shape=(self.units,), initializer="zeros", name="bias")

    def call(self, inputs, states):
        h = ops.tanh(ops.matmul(inputs, self.kernel) + ops.matmul(states[0], self.recurrent_kernel) + self.bias)
        return h, [h]


class TwoStateCell(layers.Layer):
    """Two states of different sizes and an output of a third: a = a + x @ A, b = b * 0.5 + sum(x), out = [a, b]."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.state_size = (3, 2)
        self.output_size = 5

    def build(self, input_shape):
        self.A = self.add_weight(shape=(input_shape[-1], 3), initializer="ones", name="A")

    def call(self, inputs, states, training=None):
        a = states[0] + ops.matmul(inputs, self.A)
        b = states[1] * 0.5 + ops.sum(inputs, axis=-1, keepdims=True)
        return ops.concatenate([a, b], axis=-1), (a, b)


def _reference_two_state(x, mask=None, go_backwards=False, init=None):
    """TwoStateCell's outputs, looped in NumPy (Keras' masking: a masked step keeps the states and the output)."""
    batch, steps, _ = x.shape
    a, b = (np.zeros((batch, 3)), np.zeros((batch, 2))) if init is None else init
    out = np.zeros((batch, 5))
    seq = []
    for t in (range(steps - 1, -1, -1) if go_backwards else range(steps)):
        na = a + x[:, t] @ np.ones((x.shape[2], 3))
        nb = b * 0.5 + x[:, t].sum(-1, keepdims=True)
        no = np.concatenate([na, nb], -1)
        keep = np.ones((batch, 1), bool) if mask is None else mask[:, t:t + 1]
        a, b, out = np.where(keep, na, a), np.where(keep, nb, b), np.where(keep, no, out)
        seq.append(out)
    return np.stack(seq, 1), out, a, b


@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("with_init", [False, True])
def test_a_user_cell_with_two_states_steps_as_a_numpy_loop(go_backwards, masked, with_init):
    x = RNG.standard_normal((2, 4, 3))
    mask = np.array([[True, True, False, True], [True, False, False, False]]) if masked else None
    init = (RNG.standard_normal((2, 3)), RNG.standard_normal((2, 2))) if with_init else None
    layer = layers.RNN(TwoStateCell(dtype="float64"), return_sequences=True, return_state=True,
                       go_backwards=go_backwards, dtype="float64")
    seq, a, b = layer(x, mask=mask, initial_state=None if init is None else list(init))
    want_seq, _, want_a, want_b = _reference_two_state(x, mask, go_backwards, init)
    np.testing.assert_allclose(seq.numpy(), want_seq, rtol=1e-12)
    np.testing.assert_allclose(a.numpy(), want_a, rtol=1e-12)
    np.testing.assert_allclose(b.numpy(), want_b, rtol=1e-12)
    assert layer.compute_output_shape((2, 4, 3)) == [(2, 4, 5), (2, 3), (2, 2)]


def test_a_hand_written_simple_cell_equals_simple_rnn_in_outputs_and_gradients():
    x = RNG.standard_normal((3, 5, 4)).astype(np.float32)
    mask = np.ones((3, 5), bool)
    mask[1, 3:] = False
    ref = layers.SimpleRNN(6, return_sequences=True)
    mine = layers.RNN(MySimpleCell(6), return_sequences=True)
    ref(x)
    mine(x)
    mine.set_weights(ref.get_weights())
    assert [w.path for w in mine.trainable_weights] == ["rnn/my_simple_cell/kernel",
                                                          "rnn/my_simple_cell/recurrent_kernel",
                                                          "rnn/my_simple_cell/bias"]
    grads = []
    for layer in (ref, mine):
        with ds.GradientTape() as tape:
            y = layer(x, mask=mask)
            loss = ds.reduce_sum(y * y)
        grads.append([g.numpy() for g in tape.gradient(loss, layer.trainable_weights)])
        np.testing.assert_allclose(y.numpy(), ref(x, mask=mask).numpy(), rtol=1e-6, atol=1e-6)
    for g_ref, g_mine in zip(*grads):
        np.testing.assert_allclose(g_mine, g_ref, rtol=1e-5, atol=1e-6)


def test_a_user_cell_in_a_functional_model_trains():
    inputs = keras.Input((5, 4))
    outputs = layers.Dense(1)(layers.RNN(MySimpleCell(8))(inputs))
    model = keras.Model(inputs, outputs)
    assert tuple(outputs.shape) == (None, 1)
    rng = np.random.default_rng(3)  # its own data, whatever ran before
    x = rng.standard_normal((32, 5, 4)).astype(np.float32)
    y = x.sum(axis=(1, 2))[:, None].astype(np.float32)
    model.compile(optimizer=ds.optimizers.Adam(0.02), loss="mse")
    history = model.fit(x, y, epochs=60, batch_size=32, verbose=0)
    assert history.history["loss"][-1] < 0.25 * history.history["loss"][0]


class _NoStateSize(layers.Layer):
    def call(self, inputs, states):
        return inputs, states


class _WrongStates(layers.Layer):
    def __init__(self, returned, **kwargs):
        super().__init__(**kwargs)
        self.state_size, self.returned = [2, 2], returned

    def call(self, inputs, states):
        return states[0], self.returned(states)


@pytest.mark.parametrize("make, error, match", [
    (lambda: layers.RNN(_NoStateSize()), ValueError, "must have a `state_size` attribute"),
    (lambda: layers.RNN([]), ValueError, "non-empty list of cells"),  # a list of cells is a StackedRNNCells
    (lambda: layers.RNN("lstm"), ValueError, "must be a Layer with a `call"),
])
def test_bad_cells_are_refused_when_the_layer_is_made(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_zero_state_size_is_refused():
    cell = MySimpleCell(2)
    cell.state_size = 0
    with pytest.raises(ValueError, match=r"`state_size` must be a positive int .* Received: state_size=0"):
        layers.RNN(cell)


@pytest.mark.parametrize("returned, match", [
    (lambda s: [s[0]], r"returned 1 state\(s\); its state_size \[2, 2\] says 2"),
    (lambda s: [s[0], ops.concatenate([s[1], s[1]], axis=-1)], r"state 1 .* has shape \(3, 4\); expected"),
])
def test_a_cell_returning_the_wrong_states_is_named(returned, match):
    layer = layers.RNN(_WrongStates(returned))
    with pytest.raises(ValueError, match=match):
        layer(np.ones((3, 4, 2), np.float32))
