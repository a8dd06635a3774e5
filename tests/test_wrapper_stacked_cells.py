"""``Wrapper``, ``StackedRNNCells`` (and ``RNN`` over a list of cells) and ``Conv3DTranspose``: configs round
trip, Keras' nested states, refusals; against Keras where it is installed (skips without it)."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_X = np.random.default_rng(0).standard_normal((2, 5, 3)).astype(np.float32)


class _Twice(L.Wrapper):
    def call(self, inputs):
        return self.layer(inputs) * 2.0


def test_wrapper_owns_its_layer_and_round_trips():
    ds.clear_session()
    w = _Twice(L.Dense(3, kernel_initializer="ones"), name="twice")
    np.testing.assert_allclose(w(ds.ones((1, 2))).numpy(), [[4.0, 4.0, 4.0]])
    assert [v.path for v in w.weights] == ["twice/dense/kernel", "twice/dense/bias"]
    config = w.get_config()
    assert config["layer"]["class_name"] == "Dense"
    again = _Twice.from_config(config)
    assert isinstance(again.layer, L.Dense) and again.layer.units == 3 and again.name == "twice"
    assert isinstance(L.TimeDistributed(L.Dense(2)), L.Wrapper)
    assert not isinstance(L.Bidirectional(L.LSTM(2)), L.Wrapper)  # as Keras 3: a Layer, not a Wrapper


@pytest.mark.parametrize("bad", [3, "dense", None])
def test_wrapper_refuses_a_non_layer(bad):
    with pytest.raises(ValueError, match="must be a Layer"):
        _Twice(bad)
    with pytest.raises(ValueError, match="'layer'"):
        _Twice.from_config({"name": "x"})


def _stack():
    return L.StackedRNNCells([L.LSTMCell(2), L.GRUCell(3), L.SimpleRNNCell(4)])


def test_stacked_cells_sizes_and_nested_states():
    cells = _stack()
    assert cells.state_size == [[2, 2], 3, 4] and cells.output_size == 4
    # descend's cells start from a list of states (get_initial_state), so each returns a list, as Keras'
    out, lstm, gru, simple = L.RNN(cells, return_state=True)(_X)
    assert out.shape == (2, 4) and [s.shape for s in lstm] == [(2, 2), (2, 2)]
    assert [s.shape for s in gru] == [(2, 3)] and [s.shape for s in simple] == [(2, 4)]
    np.testing.assert_array_equal(out.numpy(), simple[0].numpy())  # the last cell's output is its state
    layer = L.RNN(cells, return_state=True)
    assert layer.compute_output_shape((2, 5, 3)) == [(2, 4), [(2, 2), (2, 2)], (2, 3), (2, 4)]


def test_a_list_of_cells_is_a_stack_and_initial_state_nests():
    layer = L.RNN([L.LSTMCell(2), L.GRUCell(3)], return_sequences=True)
    assert isinstance(layer.cell, L.StackedRNNCells)
    zeros = layer(_X)
    init = [[ds.zeros((2, 2)), ds.zeros((2, 2))], ds.zeros((2, 3))]
    np.testing.assert_allclose(layer(_X, initial_state=init).numpy(), zeros.numpy())
    start = [[ds.ones((2, 2)), ds.ones((2, 2))], ds.ones((2, 3))]
    assert not np.allclose(layer(_X, initial_state=start).numpy(), zeros.numpy())
    with pytest.raises(ValueError, match="initial state"):
        layer(_X, initial_state=[ds.zeros((2, 2))])


def test_stacked_cells_round_trip_and_train():
    layer = L.RNN(_stack())
    y = layer(_X).numpy()
    again = L.RNN.from_config(layer.get_config())
    again(_X)
    again.set_weights(layer.get_weights())
    np.testing.assert_allclose(again(_X).numpy(), y, rtol=1e-6)
    assert [c.units for c in again.cell.cells] == [2, 3, 4]
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(layer(_X))
    grads = tape.gradient(loss, layer.trainable_weights)
    assert len(grads) == 9 and all(g is not None and np.abs(ds.convert_to_tensor(g).numpy()).sum() > 0
                                   for g in grads)


@pytest.mark.parametrize("cells, match", [([], "non-empty"), ("x", "non-empty"), ([L.Dense(2)], "state_size"),
                                          ([L.LSTMCell(2, dropout=0.5)], "dropout"), ([3], "call")])
def test_stacked_cells_refusals(cells, match):
    with pytest.raises(ValueError, match=match):
        L.StackedRNNCells(cells)


def test_stacked_cells_states_match_keras():
    keras = pytest.importorskip("keras")

    def build(M):
        return M.RNN(M.StackedRNNCells([M.LSTMCell(2), M.GRUCell(3)]), return_state=True)

    theirs, ours = build(keras.layers), build(L)
    want = theirs(_X)
    ours(_X)
    ours.set_weights(theirs.get_weights())
    got = ours(_X)
    assert len(got) == len(want) == 3
    np.testing.assert_allclose(got[0].numpy(), np.asarray(want[0]), rtol=2e-5, atol=2e-6)
    for g, w in zip(got[1], want[1]):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=2e-5, atol=2e-6)
    assert isinstance(got[2], list) and isinstance(want[2], list) and len(got[2]) == len(want[2]) == 1
    np.testing.assert_allclose(got[2][0].numpy(), np.asarray(want[2][0]), rtol=2e-5, atol=2e-6)


class _Plain(L.Layer):
    """A user cell with one int state and no get_initial_state: its state comes back as a Tensor."""

    state_size = 3

    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 3), initializer="ones", name="w")

    def call(self, inputs, states):
        h = ds.tanh(ds.matmul(inputs, self.w) + states[0])
        return h, [h]


def test_a_user_cell_without_initial_state_gives_a_tensor():
    out, lstm, plain = L.RNN([L.LSTMCell(2), _Plain()], return_state=True)(_X)
    assert isinstance(plain, ds.Tensor) and plain.shape == (2, 3) and len(lstm) == 2


def test_conv3d_transpose_shapes_config_and_refusals():
    layer = L.Conv3DTranspose(2, 3, strides=(1, 2, 2), padding="valid", output_padding=(0, 1, 0))
    assert L.Convolution3DTranspose is L.Conv3DTranspose
    x = ds.ones((1, 2, 3, 4, 1))
    y = layer(x)
    assert y.shape == layer.compute_output_shape((1, 2, 3, 4, 1)) == (1, 4, 8, 9, 2)
    assert layer.kernel.shape == (3, 3, 3, 2, 1)
    again = L.Conv3DTranspose.from_config(layer.get_config())
    again(x)
    again.set_weights(layer.get_weights())
    np.testing.assert_allclose(again(x).numpy(), y.numpy())
    for kwargs in (dict(filters=0, kernel_size=2), dict(filters=2, kernel_size=(2, 2)),
                   dict(filters=2, kernel_size=2, strides=2, output_padding=2),
                   dict(filters=2, kernel_size=2, output_padding=-1)):
        with pytest.raises(ValueError):
            L.Conv3DTranspose(**kwargs)
    with pytest.raises(ValueError):
        layer(ds.ones((1, 2, 3, 4)))


@pytest.mark.parametrize("make", [lambda M: M.Bidirectional(M.LSTM(2, return_sequences=True)),
                                  lambda M: M.Bidirectional(M.RNN([M.LSTMCell(2), M.GRUCell(3)],
                                                                  return_sequences=True)),
                                  lambda M: M.Bidirectional(M.GRU(2), merge_mode="sum")])
def test_bidirectional_with_a_mask_matches_keras(make):
    # Keras makes the two directions' masked steps 0 (zero_output_for_mask follows return_sequences)
    keras = pytest.importorskip("keras")
    mask = np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]], bool)
    theirs, ours = make(keras.layers), make(L)
    want = theirs(_X, mask=mask)
    ours(_X, mask=mask)
    ours.set_weights(theirs.get_weights())
    np.testing.assert_allclose(ours(_X, mask=mask).numpy(), np.asarray(want), rtol=2e-5, atol=2e-6)
