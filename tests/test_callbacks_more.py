"""keras.callbacks' remaining names (issue 37): SwapEMAWeights (RemoteMonitor and OrbaxCheckpoint excluded, with
the reason in its docstring); the EMA weights are in the model for validation, evaluate and predict, and the
training weights are back after; compared with Keras 3's fit where installed."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend import keras


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 3)).astype("float32")
    return x, (x @ np.array([[1.0], [-2.0], [0.5]], dtype="float32") + 0.3).astype("float32")


def _model(k, weights=None):
    m = k.Sequential([k.Input((3,)), k.layers.Dense(1)])
    if weights is not None:
        m.set_weights(weights)
    m.compile(optimizer=k.optimizers.SGD(0.05, use_ema=True, ema_momentum=0.6), loss="mse")
    return m


class _Recorder(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def _snap(self, when):
        opt = self.model.optimizer
        var = self.model.trainable_variables[0]
        self.seen.append((when, var.numpy().copy(), opt.state.find(var)[1]["average"].numpy().copy()))

    def on_test_begin(self, logs=None):
        self._snap("test_begin")

    def on_test_end(self, logs=None):
        self._snap("test_end")

    def on_epoch_end(self, epoch, logs=None):
        self._snap("epoch_end")


@pytest.mark.parametrize("swap_on_epoch", [False, True])
def test_validation_sees_the_averages_and_training_weights_come_back(swap_on_epoch):
    x, y = _data()
    m = _model(keras)
    rec = _Recorder()
    m.fit(x, y, epochs=2, batch_size=8, verbose=0, validation_data=(x, y),
          callbacks=[keras.callbacks.SwapEMAWeights(swap_on_epoch=swap_on_epoch), rec])
    seen = {}
    for when, var, avg in rec.seen:
        seen.setdefault(when, []).append((var, avg))
    # at test_begin (after the swap): the weights hold the average; at test_end (after the swap back) the
    # values have traded places again
    for (v_begin, a_begin), (v_end, a_end) in zip(seen["test_begin"], seen["test_end"]):
        assert not np.array_equal(v_begin, a_begin)
        np.testing.assert_array_equal(v_end, a_begin)
        np.testing.assert_array_equal(a_end, v_begin)
    if swap_on_epoch:  # at epoch end the averages are in the model (the training weights in the slot)
        pairs = list(zip(seen["test_end"], seen["epoch_end"]))
        for (v_end, a_end), (v_ep, a_ep) in pairs[:-1]:
            np.testing.assert_array_equal(v_ep, a_end)
            np.testing.assert_array_equal(a_ep, v_end)
        (v_end, a_end), (v_ep, a_ep) = pairs[-1]  # the last: the slot holds the averages too (fit copies them)
        np.testing.assert_array_equal(v_ep, a_end)
        np.testing.assert_array_equal(a_ep, a_end)


def test_evaluate_and_predict_use_the_averages():
    x, y = _data()
    m = _model(keras)
    m.fit(x, y, epochs=1, batch_size=8, verbose=0)  # ends with the averages copied into the weights
    kernel = m.trainable_variables[0]
    kernel.assign(kernel.numpy() + 1.0)  # training weights that differ from the averages
    trained = kernel.numpy().copy()
    average = m.optimizer.state.find(kernel)[1]["average"].numpy().copy()
    plain = m.predict(x, verbose=0)
    swapped = m.predict(x, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])
    np.testing.assert_array_equal(kernel.numpy(), trained)  # back after predict
    assert not np.allclose(plain, swapped)
    bias = m.trainable_variables[1]
    bias_avg = m.optimizer.state.find(bias)[1]["average"].numpy()
    np.testing.assert_allclose(swapped, x @ average + bias_avg, rtol=1e-5, atol=1e-6)


def test_needs_use_ema():
    x, y = _data()
    m = keras.Sequential([keras.Input((3,)), keras.layers.Dense(1)])
    m.compile(optimizer="sgd", loss="mse")
    with pytest.raises(ValueError, match="use_ema=True"):
        m.evaluate(x, y, verbose=0, callbacks=[keras.callbacks.SwapEMAWeights()])


def test_val_loss_matches_keras():
    k = pytest.importorskip("keras", minversion="3")
    x, y = _data()
    ours = _model(keras)
    theirs = _model(k, [w.numpy() for w in ours.weights])
    h1 = ours.fit(x, y, epochs=3, batch_size=8, verbose=0, shuffle=False, validation_data=(x, y),
                  callbacks=[keras.callbacks.SwapEMAWeights()]).history
    h2 = theirs.fit(x, y, epochs=3, batch_size=8, verbose=0, shuffle=False, validation_data=(x, y),
                    callbacks=[k.callbacks.SwapEMAWeights()]).history
    np.testing.assert_allclose(h1["val_loss"], h2["val_loss"], rtol=1e-5)
    np.testing.assert_allclose(h1["loss"], h2["loss"], rtol=1e-5)


def test_every_keras_callbacks_name_exists_but_the_excluded():
    k = pytest.importorskip("keras", minversion="3")
    missing = sorted(n for n in dir(k.callbacks) if not n.startswith("_") and not hasattr(ds.keras.callbacks, n))
    assert missing == ["OrbaxCheckpoint"]
