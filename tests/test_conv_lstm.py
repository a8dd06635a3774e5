"""``ConvLSTM1D/2D/3D``: float64 gradients against central differences (inputs and every weight), a numpy
reference step, states, masks, dropout draws, configs and refusals; the outputs and gradients against Keras are
rows of tests/differential_cases.py."""

import numpy as np
import pytest

import descend as ds

L = ds.layers


def _sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def _conv_same_1d(x, k):
    """``x (B, W, C)``, ``k (kw, C, F)``, stride 1, "same" padding (TF's: the extra zero at the end)."""
    kw = k.shape[0]
    before = (kw - 1) // 2
    xp = np.pad(x, ((0, 0), (before, kw - 1 - before), (0, 0)))
    return np.stack([np.einsum("bkc,kcf->bf", xp[:, i:i + kw], k) for i in range(x.shape[1])], axis=1)


def test_conv_lstm1d_matches_a_numpy_reference():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 6, 3))
    layer = L.ConvLSTM1D(2, 3, padding="same", return_sequences=True, return_state=True, dtype="float64",
                         bias_initializer="random_normal")
    seq, h, c = layer(x)
    kernel, recurrent, bias = (w.numpy() for w in layer.weights)
    hh = cc = np.zeros((2, 6, 2))
    want = []
    for t in range(4):
        z = _conv_same_1d(x[:, t], kernel) + _conv_same_1d(hh, recurrent) + bias
        zi, zf, zc, zo = np.split(z, 4, axis=-1)
        cc = _sigmoid(zf) * cc + _sigmoid(zi) * np.tanh(zc)
        hh = _sigmoid(zo) * np.tanh(cc)
        want.append(hh)
    np.testing.assert_allclose(seq.numpy(), np.stack(want, axis=1), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(h.numpy(), hh, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(c.numpy(), cc, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("make, shape", [
    (lambda: L.ConvLSTM1D(2, 2, padding="same", return_sequences=True, dtype="float64"), (2, 3, 4, 2)),
    (lambda: L.ConvLSTM2D(2, 2, strides=2, dtype="float64"), (1, 2, 4, 3, 2)),
    (lambda: L.ConvLSTM2D(2, 2, data_format="channels_first", go_backwards=True, dtype="float64"), (1, 2, 2, 3, 3)),
    (lambda: L.ConvLSTM3D(1, 2, padding="same", dtype="float64"), (1, 2, 2, 3, 2, 1)),
])
def test_float64_gradients_match_central_differences(make, shape):
    rng = np.random.default_rng(1)
    layer = make()
    x = rng.standard_normal(shape)
    layer(x)
    layer.set_weights([rng.standard_normal(w.shape) * 0.5 for w in layer.get_weights()])
    out_w = rng.uniform(0.5, 1.5, tuple(layer(x).shape))
    xt = ds.constant(x)
    with ds.GradientTape() as tape:
        tape.watch(xt)
        loss = ds.reduce_sum(layer(xt) * out_w)
    grads = tape.gradient(loss, [xt] + layer.trainable_weights)

    def f():
        return float(np.sum(layer(x).numpy() * out_w))

    for target, g in zip([None] + layer.trainable_weights, grads):
        values = x if target is None else target.numpy()
        num = np.zeros_like(values)
        for i in np.ndindex(values.shape):
            for sign in (1, -1):
                v = values.copy()
                v[i] += sign * 1e-6
                if target is None:
                    x_saved, x[...] = x.copy(), v
                    num[i] += sign * f()
                    x[...] = x_saved
                else:
                    target.assign(v)
                    num[i] += sign * f()
                    target.assign(values)
        np.testing.assert_allclose(ds.convert_to_tensor(g).numpy(), num / 2e-6, rtol=1e-5, atol=1e-7)


def test_training_reduces_the_loss():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((8, 3, 5, 5, 1)).astype(np.float32)
    y = x.mean(axis=(1, 2, 3)).reshape(8, 1)
    model = ds.Sequential([L.ConvLSTM2D(2, 3, padding="same"), L.GlobalAveragePooling2D(), L.Dense(1)])
    model.compile(optimizer=ds.optimizers.Adam(0.02), loss="mse")
    history = model.fit(x, y, epochs=15, batch_size=8, verbose=0)
    assert history.history["loss"][-1] < 0.5 * history.history["loss"][0]


def test_states_masks_and_initial_state():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 5, 3)).astype(np.float32)
    layer = L.ConvLSTM1D(2, 3, return_sequences=True, return_state=True)
    seq, h, c = layer(x)
    assert seq.shape == (2, 4, 3, 2) and h.shape == c.shape == (2, 3, 2)
    assert layer.compute_output_shape((2, 4, 5, 3)) == [(2, 4, 3, 2), (2, 3, 2), (2, 3, 2)]
    np.testing.assert_array_equal(seq.numpy()[:, -1], h.numpy())
    # a masked last step keeps the states and repeats the previous output
    mask = np.array([[True, True, True, False], [True, True, True, True]])
    mseq, mh, mc = layer(x, mask=mask)
    np.testing.assert_allclose(mseq.numpy()[0, 3], seq.numpy()[0, 2], rtol=1e-6)
    np.testing.assert_allclose(mh.numpy()[1], h.numpy()[1], rtol=1e-6)
    # starting from the states after two steps equals running all four
    _, h2, c2 = layer(x[:, :2])
    _, h4, _ = layer(x[:, 2:], initial_state=[h2, c2])
    np.testing.assert_allclose(h4.numpy(), h.numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="initial state"):
        layer(x, initial_state=[h2])
    with pytest.raises(ValueError, match="shape"):
        layer(x, initial_state=[h2[:, :2], c2[:, :2]])


def test_dropout_is_seeded_training_only_and_scaled():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 5, 2)).astype(np.float32)

    def make():
        layer = L.ConvLSTM1D(2, 3, dropout=0.5, recurrent_dropout=0.3, seed=7, return_sequences=True)
        layer(x, training=False)
        layer.set_weights([np.full(w.shape, 0.3, np.float32) for w in layer.get_weights()])
        return layer

    a, b = make(), make()
    plain = L.ConvLSTM1D(2, 3, return_sequences=True)
    plain(x)
    plain.set_weights(a.get_weights())
    np.testing.assert_allclose(a(x, training=False).numpy(), plain(x).numpy())
    first = a(x, training=True).numpy()
    np.testing.assert_array_equal(first, b(x, training=True).numpy())  # the same seed, the same masks
    assert not np.allclose(first, plain(x).numpy())
    # the masks keep about 1 - rate of the entries, scaled by 1 / (1 - rate)
    drawn = np.stack([ds.convert_to_tensor(m).numpy() for m in a._masks(0.5, (4000,), np.float32, True)])
    assert set(np.unique(drawn)) <= {0.0, 2.0} and abs((drawn > 0).mean() - 0.5) < 0.02


def test_config_round_trip():
    layer = L.ConvLSTM2D(3, (2, 3), strides=(1, 2), padding="same", data_format="channels_first",
                         recurrent_activation="hard_sigmoid", unit_forget_bias=False, dropout=0.1, seed=3,
                         return_state=True, go_backwards=True)
    config = layer.get_config()
    again = L.ConvLSTM2D.from_config(config)
    assert again.get_config() == config
    assert config["kernel_size"] == (2, 3) and config["filters"] == 3 and config["padding"] == "same"
    x = np.random.default_rng(5).standard_normal((1, 2, 2, 4, 6)).astype(np.float32)
    want = layer(x)
    again(x)
    again.set_weights(layer.get_weights())
    for w, g in zip(want, again(x)):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-6)


def test_forget_bias_starts_at_one():
    layer = L.ConvLSTM1D(3, 2)
    layer(np.zeros((1, 2, 4, 1), np.float32))
    np.testing.assert_array_equal(layer.cell.bias.numpy(), [0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    assert [w.path for w in layer.weights] == [f"{layer.name}/conv_lstm_cell/{n}"
                                               for n in ("kernel", "recurrent_kernel", "bias")]


@pytest.mark.parametrize("kwargs", [dict(filters=0, kernel_size=2), dict(filters=2, kernel_size=(2, 2)),
                                    dict(filters=2, kernel_size=2, padding="causal"),
                                    dict(filters=2, kernel_size=2, strides=2, dilation_rate=2),
                                    dict(filters=2, kernel_size=2, dropout=1.0),
                                    dict(filters=2, kernel_size=2, stateful=True),
                                    dict(filters=2, kernel_size=2, seed=-1)])
def test_bad_arguments_are_refused(kwargs):
    with pytest.raises(ValueError):
        L.ConvLSTM1D(**kwargs)


def test_bad_inputs_are_refused():
    layer = L.ConvLSTM2D(2, 2)
    with pytest.raises(ValueError, match="ndim=5"):
        layer(np.zeros((1, 2, 4, 4), np.float32))
    layer(np.zeros((1, 2, 4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="channels"):
        layer(np.zeros((1, 2, 4, 4, 2), np.float32))


def test_return_state_matches_keras():
    keras = pytest.importorskip("keras")
    x = np.random.default_rng(6).standard_normal((2, 3, 4, 5, 2)).astype(np.float32)
    theirs = keras.layers.ConvLSTM2D(2, 3, padding="same", return_state=True, return_sequences=True)
    ours = L.ConvLSTM2D(2, 3, padding="same", return_state=True, return_sequences=True)
    want = theirs(x)
    ours(x)
    ours.set_weights(theirs.get_weights())
    for g, w in zip(ours(x), want):
        np.testing.assert_allclose(g.numpy(), np.asarray(w), rtol=2e-5, atol=2e-6)
    assert [w.path for w in theirs.weights] == [w.path for w in ours.weights]
