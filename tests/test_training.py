"""Model / Sequential / fit / evaluate / predict / callbacks, and seed 001's workflow end to end."""

import csv

import numpy as np
import pytest

import descend as ds
from descend import callbacks as cb


def _blobs(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, size=n).astype(np.int32)
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.5]])
    x = (centers[y] + 0.6 * rng.standard_normal((n, 2))).astype(np.float32)
    return x, y


class CustomSCE(ds.losses.Loss):
    """Seed 001's custom loss, written against the public Loss API."""

    def call(self, y_true, y_pred):
        # -log softmax(y_pred)[y_true], per example
        log_probs = ds.nn.log_softmax(y_pred)
        onehot = ds.one_hot(ds.cast(y_true, dtype="int32"), depth=3)
        return -ds.reduce_sum(onehot * log_probs, axis=-1)


class CustomL2(ds.regularizers.Regularizer):
    """Seed 001's custom regularizer with get_config."""

    def __init__(self, strength=1e-3):
        self.strength = strength

    def __call__(self, weights):
        return self.strength * ds.reduce_sum(ds.square(weights))

    def get_config(self):
        return {"strength": self.strength}


def test_seed_001_custom_loop_with_imports_changed():
    # seed 001's loop: model(x, training=True), tape, apply_gradients(zip(...)), metric update/result/reset,
    # Dataset.from_tensor_slices(...).shuffle(1024).batch(n); a custom loss and a custom regularizer
    ds.clear_session()
    x, y = _blobs()
    model = ds.Sequential([ds.layers.Dense(16, activation="relu", kernel_regularizer=CustomL2()),
                           ds.layers.Dense(3)])
    train_dataset = ds.data.Dataset.from_tensor_slices((x, y)).shuffle(buffer_size=1024, seed=0).batch(32)
    optimizer = ds.optimizers.Adam(learning_rate=0.05)
    loss_function = CustomSCE()
    train_accuracy = ds.metrics.SparseCategoricalAccuracy()
    epoch_losses = []
    for _ in range(8):
        losses = []
        for x_batch, y_batch in train_dataset:
            with ds.GradientTape() as tape:
                logits = model(x_batch, training=True)
                loss_val = loss_function(y_batch, logits) + sum(model.losses)
            grad = tape.gradient(loss_val, model.trainable_weights)
            optimizer.apply_gradients(zip(grad, model.trainable_weights))
            train_accuracy.update_state(y_batch, logits)
            losses.append(float(loss_val))
        epoch_losses.append(np.mean(losses))
        train_acc = train_accuracy.result()
        train_accuracy.reset_states()
    assert epoch_losses[-1] < 0.3 * epoch_losses[0]
    assert float(train_acc) > 0.9
    assert CustomL2.from_config(CustomL2(0.5).get_config()).strength == 0.5


def test_fit_with_validation_and_callbacks(tmp_path):
    ds.clear_session()
    ds.keras.utils.set_random_seed(0)  # the weights' draws, whatever ran before (0.96-1.0 over seeds 0-3; 0.76 seen)
    x, y = _blobs(200)
    model = ds.Sequential([ds.layers.Dense(8, activation="relu"), ds.layers.Dense(3)])
    model.compile(optimizer=ds.optimizers.Adam(0.05), loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    seen = []
    log = tmp_path / "log.csv"
    history = model.fit(x, y, batch_size=32, epochs=6, verbose=0, validation_split=0.25, seed=1,
                        callbacks=[cb.CSVLogger(log), cb.LambdaCallback(on_epoch_end=lambda e, logs: seen.append(e)),
                                   cb.LearningRateScheduler(lambda epoch, lr: 0.05 * 0.5**epoch)])
    h = history.history
    assert set(h) >= {"loss", "accuracy", "val_loss", "val_accuracy", "learning_rate"}
    assert len(h["loss"]) == 6 and seen == list(range(6))
    assert h["loss"][-1] < h["loss"][0] and h["val_accuracy"][-1] > 0.8
    assert h["learning_rate"] == pytest.approx([0.05 * 0.5**e for e in range(6)])
    rows = list(csv.DictReader(open(log)))
    assert [int(r["epoch"]) for r in rows] == list(range(6))
    assert float(rows[-1]["val_loss"]) == pytest.approx(h["val_loss"][-1])
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.8 and model.predict(x[:7]).shape == (7, 3)


def test_fit_accepts_a_dataset_and_early_stopping_stops():
    ds.clear_session()
    x, y = _blobs(64)
    data = ds.data.Dataset.from_tensor_slices((x, y)).batch(16)
    model = ds.Sequential([ds.layers.Dense(3)])
    model.compile(optimizer=ds.optimizers.SGD(0.0), loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True))
    stop = cb.EarlyStopping(monitor="loss", patience=1)
    history = model.fit(data, epochs=20, verbose=0, callbacks=[stop])
    assert len(history.history["loss"]) < 20 and stop.stopped_epoch > 0  # lr 0: no improvement


class _Weights:
    """A stand-in model for driving a callback by hand: one weight and a stop flag."""

    def __init__(self):
        self.weights = [ds.Variable(0.0)]
        self.stop_training = False


@pytest.mark.parametrize("losses, patience, baseline, restored, stopped", [
    ([1.0, 2.0, 3.0], 10, None, 0.0, 0),   # never stops: the best epoch (the first) still comes back (Keras 3)
    ([3.0, 1.0, 2.0], 10, None, 1.0, 0),
    ([3.0, 1.0, 2.0, 2.5], 2, None, 1.0, 3),  # stops at epoch 3 and restores epoch 1
    ([3.0, 2.0], 10, 0.5, 1.0, 0),  # no epoch beats the baseline: the best of them still comes back
])
def test_early_stopping_restores_the_best_weights_when_training_ends(losses, patience, baseline, restored, stopped):
    model, stop = _Weights(), cb.EarlyStopping(monitor="val_loss", patience=patience, baseline=baseline,
                                               restore_best_weights=True)
    stop.set_model(model)
    stop.on_train_begin()
    for epoch, loss in enumerate(losses):
        model.weights[0].assign(float(epoch))  # the weight after epoch `epoch` is the epoch's number
        stop.on_epoch_end(epoch, {"val_loss": loss})
        if model.stop_training:
            break
    assert float(model.weights[0].numpy()) == float(epoch)  # nothing restored before the end of training
    stop.on_train_end()
    assert float(model.weights[0].numpy()) == restored and stop.stopped_epoch == stopped


def test_reduce_lr_on_plateau_lowers_the_learning_rate():
    ds.clear_session()
    x, y = _blobs(32)
    model = ds.Sequential([ds.layers.Dense(3)])
    model.compile(optimizer=ds.optimizers.SGD(0.0), loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.optimizer.learning_rate = 1e-9
    model.fit(x, y, epochs=4, verbose=0, callbacks=[cb.ReduceLROnPlateau(monitor="loss", patience=1, factor=0.5,
                                                                          min_delta=1.0)])
    assert model.optimizer.learning_rate < 1e-9


def test_fit_training_step_is_the_custom_loop():
    # fit's step and a hand-written loop give bit-identical weights
    def run(use_fit):
        ds.clear_session()
        x, y = _blobs(48, seed=3)
        model = ds.Sequential([ds.layers.Dense(4, activation="tanh",
                                               kernel_initializer=ds.initializers.GlorotUniform(seed=1)),
                               ds.layers.Dense(3, kernel_initializer=ds.initializers.GlorotUniform(seed=2))])
        loss = ds.losses.SparseCategoricalCrossentropy(from_logits=True)
        opt = ds.optimizers.Adam(0.01)
        if use_fit:
            model.compile(optimizer=opt, loss=loss)
            model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
        else:
            for _ in range(2):
                for i in range(0, 48, 16):
                    with ds.GradientTape() as tape:
                        value = loss(y[i:i + 16], model(x[i:i + 16], training=True))
                    opt.apply_gradients(zip(tape.gradient(value, model.trainable_weights), model.trainable_weights))
        return [w.numpy() for w in model.weights]

    for a, b in zip(run(True), run(False)):
        np.testing.assert_array_equal(a, b)


def test_subclassed_model_tracks_layers_and_variables_and_summary():
    ds.clear_session()

    class Tower(ds.Model):
        def __init__(self):
            super().__init__(name="tower")
            self.embed = ds.layers.Embedding(10, 4)
            self.head = ds.layers.Dense(1)
            self.scale = ds.Variable(1.0, name="scale")
            self.norm = ds.layers.BatchNormalization()

        def call(self, ids, training=None):
            return self.head(self.norm(self.embed(ids), training=training)) * self.scale

    model = Tower()
    model(np.array([1, 2, 3]), training=True)
    names = [w.scoped_name for w in model.weights]
    assert "tower/embedding/embeddings" in names and "scale" in names
    assert {w.path for w in model.non_trainable_weights} == {"tower/batch_normalization/moving_mean",
                                                            "tower/batch_normalization/moving_variance"}
    with ds.GradientTape() as tape:
        out = ds.reduce_sum(model(np.array([1, 1, 4]), training=True))
    grads = dict(zip([w.scoped_name for w in model.trainable_weights], tape.gradient(out, model.trainable_weights)))
    assert isinstance(grads["tower/embedding/embeddings"], ds.IndexedSlices)
    lines = []
    model.summary(print_fn=lines.append)
    text = lines[0]
    assert "embedding (Embedding)" in text and "Total params:" in text


def test_compile_errors_are_clear():
    model = ds.Sequential([ds.layers.Dense(1)])
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(np.ones((2, 1)), np.ones((2, 1)), verbose=0)
    with pytest.raises(ValueError, match="Unknown optimizer 'nope'"):
        model.compile(optimizer="nope", loss="mse")
    with pytest.raises(TypeError, match="not recognized"):
        model.compile(optimizer="adam", loss="mse", bogus=1)


def test_on_batch_end_is_the_training_batch_hook_and_terminate_on_nan_stops():
    """Keras: ``on_batch_begin``/``on_batch_end`` are the older names of the training-batch hooks (a callback
    written for Keras 2 overrides them); TerminateOnNaN stops after the first non-finite loss."""
    ds.clear_session()

    class Count(cb.Callback):
        def __init__(self):
            super().__init__()
            self.begin, self.end = [], []

        def on_batch_begin(self, batch, logs=None):
            self.begin.append(batch)

        def on_batch_end(self, batch, logs=None):
            self.end.append((batch, sorted(logs)))

    x = np.ones((8, 2), np.float32)
    model = ds.Sequential([ds.layers.Dense(1)])
    assert model.compile(optimizer=ds.optimizers.SGD(0.01), loss="mse") is None  # Keras returns None
    count = Count()
    model.fit(x, x[:, :1], batch_size=4, epochs=2, verbose=0, callbacks=[count])
    assert count.begin == [0, 1, 0, 1] and [b for b, _ in count.end] == [0, 1, 0, 1]
    assert "loss" in count.end[0][1]

    model = ds.Sequential([ds.layers.Dense(1)])
    model.compile(optimizer=ds.optimizers.SGD(1e30), loss="mse")
    history = model.fit(x, x[:, :1] * 1e30, batch_size=2, epochs=3, verbose=0, callbacks=[cb.TerminateOnNaN()])
    assert len(history.history["loss"]) == 1 and not np.isfinite(history.history["loss"][0])
    model = ds.Sequential([ds.layers.Dense(1)])
    model.compile(optimizer=ds.optimizers.SGD(1e30), loss="mse")
    with pytest.raises(RuntimeError, match="NaN or Inf loss at batch 0"):
        model.fit(x, x[:, :1] * 1e30, batch_size=2, epochs=3, verbose=0,
                  callbacks=[ds.keras.callbacks.TerminateOnNaN(raise_error=True)])


def test_a_global_seed_makes_fit_and_unseeded_shuffles_reproducible():
    """As Keras: with ``keras.utils.set_random_seed`` two runs of the same program are the same, the order in
    which ``fit`` shuffles included (a shuffle without its own seed takes one from the global seed)."""
    def run():
        ds.clear_session()
        ds.keras.utils.set_random_seed(7)
        rng = np.random.default_rng(0)
        x, y = rng.normal(size=(40, 3)).astype("float32"), rng.normal(size=(40, 1)).astype("float32")
        model = ds.Sequential([ds.layers.Dense(4, activation="relu"), ds.layers.Dense(1)])
        model.compile(optimizer="adam", loss="mse")
        order = [int(v) for v in ds.data.Dataset.range(10).shuffle(10)]
        return model.fit(x, y, batch_size=8, epochs=3, verbose=0).history["loss"], order

    try:
        assert run() == run()
    finally:
        ds.random.set_seed(None)
