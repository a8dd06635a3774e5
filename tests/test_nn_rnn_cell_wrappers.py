"""tf.nn.RNNCellResidualWrapper / RNNCellDropoutWrapper (issue 37): the residual step against TF's wrapper with
the same weights; the dropout wrapper's contract (rates, scaling, variational masks shared by every step)."""

import numpy as np
import pytest

import descend as ds

_RNG = np.random.default_rng(8)


def _wrapped(tf, fns, units=3, features=3):
    """The two wrappers around SimpleRNNCells of the same weights (set after a first call built them)."""
    weights = [_RNG.normal(size=(features, units)), _RNG.normal(size=(units, units)), _RNG.normal(size=units)]
    out = []
    for lib, key in ((ds, "ds"), (tf, "tf")):
        cell = (ds.layers if lib is ds else tf.keras.layers).SimpleRNNCell(units)
        wrapper = lib.nn.RNNCellResidualWrapper(cell, residual_fn=fns[key])
        wrapper(np.zeros((1, features), np.float32), [np.zeros((1, units), np.float32)])
        cell.set_weights([w.astype(np.float32) for w in weights])
        out.append(wrapper)
    return out


@pytest.mark.parametrize("residual_fn", [None, "scaled"])
def test_residual_wrapper_step_matches_tensorflow(residual_fn):
    tf = pytest.importorskip("tensorflow")
    fns = {"ds": None, "tf": None} if residual_fn is None else {
        "ds": lambda i, o: ds.add(ds.multiply(i, 0.5), o), "tf": lambda i, o: i * 0.5 + o}
    ours, theirs = _wrapped(tf, fns)
    x, h = _RNG.normal(size=(2, 3)).astype(np.float32), _RNG.normal(size=(2, 3)).astype(np.float32)
    out, states = ours(x, [h])
    tout, tstates = theirs(x, [h])
    np.testing.assert_allclose(out.numpy(), tout.numpy(), rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(states[0].numpy(), tstates[0].numpy(), rtol=1e-6, atol=1e-6)


def test_residual_wrapper_in_an_rnn_trains_the_cells_weights():
    cell = ds.nn.RNNCellResidualWrapper(ds.layers.SimpleRNNCell(3))
    rnn = ds.layers.RNN(cell, return_sequences=True)
    x = ds.constant(_RNG.normal(size=(2, 4, 3)).astype(np.float32))
    with ds.GradientTape() as tape:
        y = rnn(x)
        loss = ds.reduce_sum(y * y)
    grads = tape.gradient(loss, rnn.trainable_weights)
    assert len(rnn.trainable_weights) == 3 and all(g is not None for g in grads)
    # the first step from zero states: tanh(x W + b) + x
    k, _, b = (w.numpy() for w in cell.cell.weights)
    np.testing.assert_allclose(y.numpy()[:, 0], np.tanh(x.numpy()[:, 0] @ k + b) + x.numpy()[:, 0], rtol=1e-5)
    with pytest.raises(ValueError, match="one shape"):
        ds.nn.RNNCellResidualWrapper(ds.layers.SimpleRNNCell(2))(np.ones((1, 3), np.float32),
                                                                  [np.zeros((1, 2), np.float32)])


def test_dropout_wrapper_with_keep_one_is_the_cell_and_drops_at_the_rates():
    cell = ds.layers.SimpleRNNCell(2000, kernel_initializer="ones", recurrent_initializer="zeros")
    x, h = np.full((5, 2), 0.1, np.float32), [np.zeros((5, 2000), np.float32)]
    plain, _ = cell(x, h)
    same, _ = ds.nn.RNNCellDropoutWrapper(cell)(x, h)
    np.testing.assert_array_equal(same.numpy(), plain.numpy())
    ds.random.set_seed(3)
    out, states = ds.nn.RNNCellDropoutWrapper(cell, output_keep_prob=0.75, state_keep_prob=0.5, seed=9)(x, h)
    o, s = out.numpy(), states[0].numpy()
    assert abs((o == 0).mean() - 0.25) < 0.025 and abs((s == 0).mean() - 0.5) < 0.025  # 10,000 draws: 5 sd
    np.testing.assert_allclose(o[o != 0], (plain.numpy() / 0.75)[o != 0], rtol=1e-6)
    np.testing.assert_allclose(s[s != 0], (plain.numpy() / 0.5)[s != 0], rtol=1e-6)


def test_variational_masks_are_shared_by_steps_and_examples():
    cell = ds.nn.RNNCellDropoutWrapper(ds.layers.SimpleRNNCell(50), output_keep_prob=0.5, variational_recurrent=True,
                                       dtype="float32", seed=4)
    y = ds.layers.RNN(cell, return_sequences=True)(ds.constant(_RNG.normal(size=(3, 6, 2)).astype(np.float32)))
    zero = y.numpy() == 0
    assert zero.any() and (zero == zero[:1, :1]).all()  # one mask for every example and step
    with pytest.raises(ValueError, match="input_size"):
        ds.nn.RNNCellDropoutWrapper(ds.layers.SimpleRNNCell(2), input_keep_prob=0.5, variational_recurrent=True,
                                    dtype="float32")
    with pytest.raises(ValueError, match="dtype"):
        ds.nn.RNNCellDropoutWrapper(ds.layers.SimpleRNNCell(2), variational_recurrent=True)
    with pytest.raises(ValueError, match="output_keep_prob"):
        ds.nn.RNNCellDropoutWrapper(ds.layers.SimpleRNNCell(2), output_keep_prob=1.5)
    with pytest.raises(TypeError, match="cell"):
        ds.nn.RNNCellResidualWrapper(object())


def test_salted_seeds_are_tfs():
    tf = pytest.importorskip("tensorflow")
    theirs = tf.nn.RNNCellDropoutWrapper(tf.keras.layers.SimpleRNNCell(2), seed=123)
    ours = ds.nn.RNNCellDropoutWrapper(ds.layers.SimpleRNNCell(2), seed=123)
    for kind, i in (("input", 0), ("state", 1), ("output", 0)):
        assert ours._gen_seed(kind, i) == theirs._gen_seed(kind, i)
