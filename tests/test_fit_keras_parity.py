"""``fit``/``evaluate``/``predict`` as Keras 3.15 on TensorFlow runs them (issue 23): a model trained on its
``add_loss`` terms, a model with no trainable weights, ``metrics_names``, ``validation_steps``/
``validation_freq``/``validation_batch_size``, ``class_weight``, ``PyDataset`` (and objects shaped like one),
generators, a torch ``DataLoader``, ``steps_per_epoch`` continuing one pass over the data, per-output losses
with a partial last batch, and the callbacks' hooks and logs.

Each comparison builds the same model in descend and in Keras with the same initial weights and data and
compares the logged numbers (and the final weights); Keras runs where it is installed (``importorskip``),
and every test also checks descend on its own terms, so it fails without the behaviour it covers.
"""

from __future__ import annotations

import math
import os
import warnings

import numpy as np
import pytest

import descend as ds
from descend import keras as dk

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
RNG = np.random.default_rng(7)
X = RNG.normal(size=(10, 3)).astype(np.float32)
Y = RNG.normal(size=(10, 2)).astype(np.float32)


def _keras():
    return pytest.importorskip("keras")


def _dense_model(k, trainable=True, **compile_kw):
    """Input(3) -> Dense(4, tanh) -> Dense(2) in framework ``k`` (descend.keras or keras), compiled."""
    model = k.Sequential([k.Input((3,)), k.layers.Dense(4, activation="tanh", trainable=trainable),
                          k.layers.Dense(2, trainable=trainable)])
    model.compile(**{"optimizer": k.optimizers.SGD(0.1), "loss": "mse", **compile_kw})
    return model


def _pair(build, **kw):
    """The descend model and (with Keras installed) the Keras one, with descend's initial weights."""
    ds.clear_session()
    ours = build(dk, **kw)
    keras = _keras()
    theirs = build(keras, **kw)
    theirs.set_weights(ours.get_weights())
    return ours, theirs


def _close_history(a: dict, b: dict, rel=1e-5):
    assert sorted(a) == sorted(b)
    for key in a:
        np.testing.assert_allclose(a[key], b[key], rtol=rel, atol=1e-6, err_msg=key)


def _close_weights(ours, theirs, rel=1e-5):
    for a, b in zip(ours.get_weights(), theirs.get_weights()):
        np.testing.assert_allclose(a, b, rtol=rel, atol=1e-6)


# ================================================================ item 1: a loss from add_loss only
def _add_loss_model(k):
    class ActivityPenalty(k.layers.Layer):
        def call(self, x):
            self.add_loss(k.ops.mean(k.ops.square(x - 1.0)))
            return x

    inputs = k.Input((3,))
    outputs = ActivityPenalty()(k.layers.Dense(2)(inputs))
    model = k.Model(inputs, outputs)
    model.compile(optimizer=k.optimizers.SGD(0.1))  # no loss: the added loss is what trains
    return model


def test_fit_without_a_compiled_loss_trains_on_the_added_losses_as_keras():
    ours, theirs = _pair(_add_loss_model)
    h = ours.fit(X, batch_size=4, epochs=3, shuffle=False, verbose=0)  # no y at all
    assert h.history["loss"][-1] < h.history["loss"][0]
    t = theirs.fit(X, batch_size=4, epochs=3, shuffle=False, verbose=0)
    _close_history(h.history, t.history)
    _close_weights(ours, theirs)
    # evaluate and train_on_batch without targets as well
    assert ours.evaluate(X, verbose=0) == pytest.approx(theirs.evaluate(X, verbose=0), rel=1e-5)
    assert ours.train_on_batch(X) == pytest.approx(theirs.train_on_batch(X), rel=1e-5)


def test_no_loss_at_all_is_a_clear_error_that_changes_nothing():
    ds.clear_session()
    model = _dense_model(dk, loss=None)
    before = [w.copy() for w in model.get_weights()]
    with pytest.raises(ValueError, match="No loss to compute"):
        model.fit(X, Y, verbose=0)
    assert all(np.array_equal(a, b) for a, b in zip(before, model.get_weights()))
    assert int(model.optimizer.iterations.numpy()) == 0


# ================================================================ item 2: no trainable weights
def test_fit_of_a_model_without_trainable_weights_warns_and_runs_as_keras():
    ours, theirs = _pair(_dense_model, trainable=False, metrics=["mae"])
    before = [w.copy() for w in ours.get_weights()]
    with pytest.warns(UserWarning, match="does not have any trainable weights"):
        h = ours.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    assert all(np.array_equal(a, b) for a, b in zip(before, ours.get_weights()))
    assert int(ours.optimizer.iterations.numpy()) == 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = theirs.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0)
    _close_history(h.history, t.history)
    # a model with no weights at all (an activation alone) trains too
    bare = dk.Sequential([dk.Input((3,)), dk.layers.Activation("tanh")])
    bare.compile(optimizer="sgd", loss="mse")
    with pytest.warns(UserWarning, match="trainable weights"):
        assert len(bare.fit(X, X, epochs=2, verbose=0).history["loss"]) == 2


# ================================================================ item 6: metrics_names
def test_metrics_and_the_order_evaluate_returns_are_keras_3s():
    """Keras 3.15: ``metrics`` is the loss tracker and one ``compile_metrics`` (then each output's loss);
    ``metrics_names`` their names; ``evaluate`` returns the loss, the outputs' losses, then each metric."""
    ds.clear_session()
    model = _dense_model(dk, metrics=["mae", "mse"])
    assert model.metrics_names == ["loss", "compile_metrics"]
    assert [type(m).__name__ for m in model.metrics] == ["Mean", "CompileMetrics"]
    values = model.evaluate(X, Y, verbose=0)
    logs = model.evaluate(X, Y, verbose=0, return_dict=True)
    assert list(logs) == ["loss", "mae", "mse"] and values == [logs["loss"], logs["mae"], logs["mse"]]
    inputs = dk.Input((3,))
    two = dk.Model(inputs, [dk.layers.Dense(1, name="a")(inputs), dk.layers.Dense(2, name="b")(inputs)])
    two.compile(optimizer="sgd", loss=["mse", "mse"], metrics={"b": ["mae"]})
    assert two.metrics_names == ["loss", "compile_metrics", "a_loss", "b_loss"]
    values = two.evaluate(X, [Y[:, :1], Y], verbose=0)
    logs = two.evaluate(X, [Y[:, :1], Y], verbose=0, return_dict=True)
    assert values == [logs[k] for k in ("loss", "a_loss", "b_loss", "b_mae")]
    bare = _dense_model(dk)  # no compiled metrics: no compile_metrics either
    assert bare.metrics_names == ["loss"]


def test_a_keras_3_train_step_over_self_metrics_gives_the_weights_to_weighted_metrics_alone():
    """The Keras 3 guide's train_step: every metric of ``self.metrics`` updated with the sample weights;
    ``compile_metrics`` passes them to ``weighted_metrics`` only, as Keras."""
    class Custom(dk.Model):
        def train_step(self, data):
            x, y, sw = data
            with ds.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred, sample_weight=sw)
            self.optimizer.apply(tape.gradient(loss, self.trainable_variables), self.trainable_variables)
            for m in self.metrics:
                m.update_state(loss) if m.name == "loss" else m.update_state(y, y_pred, sample_weight=sw)
            return {m.name: m.result() for m in self.metrics}

    sw = np.linspace(0.0, 2.0, len(X)).astype("float32")
    inputs = dk.Input((3,))
    model = Custom(inputs, dk.layers.Dense(2, kernel_initializer="ones")(inputs))
    model.compile(optimizer=dk.optimizers.SGD(0.0), loss="mse", metrics=["mae"], weighted_metrics=["mae"])
    logs = model.fit(X, Y, sample_weight=sw, batch_size=len(X), epochs=1, verbose=0).history
    err = np.abs(X @ np.ones((3, 2), np.float32) - Y).mean(axis=1)
    np.testing.assert_allclose(logs["mae"][0], err.mean(), rtol=1e-6)
    np.testing.assert_allclose(logs["weighted_mae"][0], (err * sw).sum() / sw.sum(), rtol=1e-6)


# ================================================================ item 7: validation_steps, class_weight
def test_validation_steps_freq_and_batch_size_match_keras():
    ours, theirs = _pair(_dense_model, metrics=["mae"])
    kw = dict(batch_size=4, epochs=4, shuffle=False, verbose=0, validation_data=(X[::-1], Y),
              validation_steps=2, validation_batch_size=3, validation_freq=2)
    h = ours.fit(X, Y, **kw)
    assert len(h.history["loss"]) == 4 and len(h.history["val_loss"]) == 2  # after epochs 2 and 4
    # val_loss is over the first 2 batches of 3 validation rows only
    pred = ours.predict(X[::-1][:6], verbose=0)
    assert h.history["val_loss"][-1] == pytest.approx(float(np.mean((pred - Y[:6]) ** 2)), rel=1e-5)
    t = theirs.fit(X, Y, **kw)
    _close_history(h.history, t.history)
    assert ours.fit(X, Y, epochs=3, verbose=0, validation_data=(X, Y), validation_freq=[1, 3]) \
        .history["val_loss"].__len__() == 2
    for bad in (0, -1, 1.5, "2"):
        with pytest.raises(ValueError, match="validation_steps"):
            ours.fit(X, Y, validation_data=(X, Y), validation_steps=bad, verbose=0)
    with pytest.raises(ValueError, match="validation_freq"):
        ours.fit(X, Y, validation_data=(X, Y), validation_freq=0, verbose=0)


def _classifier(k, categorical=False):
    model = k.Sequential([k.Input((3,)), k.layers.Dense(3)])
    loss = k.losses.CategoricalCrossentropy if categorical else k.losses.SparseCategoricalCrossentropy
    xent = k.metrics.CategoricalCrossentropy if categorical else k.metrics.SparseCategoricalCrossentropy
    # metrics see no sample weights (Keras 3); weighted_metrics do, and one named as a metric is weighted_<name>
    model.compile(optimizer=k.optimizers.SGD(0.1), loss=loss(from_logits=True), metrics=["accuracy"],
                  weighted_metrics=["accuracy", xent(name="wxent", from_logits=True)])
    return model


def test_class_weight_weighs_each_example_as_keras():
    labels = np.argmax(X, axis=1)  # a rule the model learns: the accuracies move
    weights = {0: 0.5, 1: 3.0, 2: 1.0}
    ours, theirs = _pair(_classifier)
    h = ours.fit(X, labels, batch_size=4, epochs=6, shuffle=False, class_weight=weights, verbose=0)
    t = theirs.fit(X, labels, batch_size=4, epochs=6, shuffle=False, class_weight=weights, verbose=0)
    assert sorted(h.history) == ["accuracy", "loss", "weighted_accuracy", "wxent"]
    assert h.history["accuracy"] != h.history["weighted_accuracy"]
    _close_history(h.history, t.history)
    _close_weights(ours, theirs)
    # the same as passing the weights per example
    again, _ = _pair(_classifier)
    again.set_weights(theirs.get_weights())
    ours.set_weights(theirs.get_weights())
    a = ours.fit(X, labels, batch_size=4, shuffle=False, class_weight=weights, verbose=0).history["loss"]
    b = again.fit(X, labels, batch_size=4, shuffle=False, sample_weight=np.array([weights[c] for c in labels]),
                  verbose=0).history["loss"]
    assert a == pytest.approx(b, rel=1e-6)
    # one-hot targets: the class is the arg-max (categorical loss); a Dataset gets the weights per batch
    onehot = np.eye(3, dtype=np.float32)[labels]
    data = ds.data.Dataset.from_tensor_slices((X, onehot)).batch(4)
    ours, theirs = _pair(_classifier, categorical=True)
    h = ours.fit(data, epochs=2, class_weight=weights, verbose=0)
    t = theirs.fit(X, onehot, batch_size=4, epochs=2, shuffle=False, class_weight=weights, verbose=0)
    _close_history(h.history, t.history)


def test_class_weight_errors():
    ds.clear_session()
    model = _classifier(dk)
    labels = np.arange(10) % 3
    with pytest.raises(ValueError, match="class_weight.*sample_weight"):
        model.fit(X, labels, class_weight={0: 1.0}, sample_weight=np.ones(10), verbose=0)
    for bad in ([1.0, 2.0], {"a": 1.0}, {0: float("nan")}, {0: "x"}):
        with pytest.raises(ValueError, match="class_weight"):
            model.fit(X, labels, class_weight=bad, verbose=0)
    with pytest.raises(ValueError, match="single output"):
        model.fit(X, {"a": labels, "b": labels}, class_weight={0: 1.0}, verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 0


# ================================================================ item 8: PyDataset, generators, DataLoader
def _py_dataset_class(base, events):
    class Batches(base):
        def __init__(self, x, y, batch_size, tag, **kwargs):
            super().__init__(**kwargs)
            self.x, self.y, self.batch_size, self.tag = x, y, batch_size, tag

        def __len__(self):
            return math.ceil(len(self.x) / self.batch_size)

        def __getitem__(self, i):
            s = slice(i * self.batch_size, (i + 1) * self.batch_size)
            return self.x[s], self.y[s]

        def on_epoch_begin(self):
            events.append((self.tag, "begin"))

        def on_epoch_end(self):
            events.append((self.tag, "end"))
    return Batches


@pytest.mark.parametrize("workers", [1, 3])
def test_fit_on_a_py_dataset_matches_keras_hooks_included(workers):
    ours, theirs = _pair(_dense_model, metrics=["mae"])
    results = []
    for k, model in ((dk, ours), (_keras(), theirs)):
        events = []
        cls = _py_dataset_class(k.utils.PyDataset, events)
        h = model.fit(cls(X, Y, 4, "train", workers=workers), epochs=2, shuffle=False, verbose=0,
                      validation_data=cls(X[::-1], Y, 3, "val"))
        results.append((h.history, events))
    (h, ev), (t, tev) = results
    _close_history(h, t)
    _close_weights(ours, theirs)
    assert ev == tev  # on_epoch_begin/on_epoch_end as Keras calls them (its reset of the data included)
    assert ev[:3] == [("train", "end"), ("train", "begin"), ("train", "end")]
    # evaluate and predict read it too
    data = _py_dataset_class(dk.utils.PyDataset, [])(X, Y, 4, "x")
    assert ours.evaluate(data, verbose=0) == pytest.approx(theirs.evaluate(
        _py_dataset_class(_keras().utils.PyDataset, [])(X, Y, 4, "x"), verbose=0), rel=1e-5)
    np.testing.assert_allclose(ours.predict(data, verbose=0), theirs.predict(X, verbose=0), rtol=1e-5, atol=1e-6)


def test_an_object_shaped_like_a_py_dataset_is_read_by_index_not_hung_on():
    """An object with ``__len__`` and ``__getitem__`` (not a PyDataset subclass) is read as one: a batch per
    index, len() batches per epoch; this used to hang (it was taken for an array)."""
    class Plain:
        def __len__(self):
            return 3

        def __getitem__(self, i):
            if i >= 3:
                raise IndexError(i)
            return X[i * 4:(i + 1) * 4], Y[i * 4:(i + 1) * 4]

    ds.clear_session()
    model = _dense_model(dk)
    seen = []
    cb = ds.callbacks.LambdaCallback(on_train_batch_end=lambda batch, logs: seen.append(batch))
    h = model.fit(Plain(), epochs=2, shuffle=False, verbose=0, callbacks=[cb])
    assert seen == [0, 1, 2, 0, 1, 2] and len(h.history["loss"]) == 2
    with pytest.raises(ValueError, match="`y` must be None when x is a PyDataset"):
        model.fit(Plain(), Y, verbose=0)


def test_py_dataset_settings_are_checked():
    with pytest.raises(ValueError, match="workers"):
        dk.utils.PyDataset(workers=-1)
    with pytest.raises(ValueError, match="max_queue_size"):
        dk.utils.PyDataset(max_queue_size=0)
    with pytest.raises(ValueError, match="use_multiprocessing"):
        dk.utils.PyDataset(use_multiprocessing="yes")
    assert dk.utils.Sequence is dk.utils.PyDataset
    settings = dk.utils.PyDataset(workers=4, use_multiprocessing=True, max_queue_size=2)
    assert (settings.workers, settings.use_multiprocessing, settings.max_queue_size) == (4, True, 2)


def test_a_py_dataset_error_in_a_worker_reaches_fit():
    class Broken(dk.utils.PyDataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            if i == 2:
                raise RuntimeError("batch 2 is unreadable")
            return X[:4], Y[:4]

    ds.clear_session()
    model = _dense_model(dk)
    with pytest.raises(RuntimeError, match="batch 2 is unreadable"):
        model.fit(Broken(workers=2), shuffle=False, verbose=0)


def test_fit_on_a_generator_with_steps_per_epoch_matches_keras():
    def batches():
        for i in range(7):  # 7 batches: epochs of 3, 3, then 1 before it runs out
            j = (i * 3) % 8
            yield X[j:j + 2], Y[j:j + 2]

    ours, theirs = _pair(_dense_model)
    with pytest.warns(UserWarning, match="ran out of data"):
        h = ours.fit(batches(), epochs=3, steps_per_epoch=3, verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = theirs.fit(batches(), epochs=3, steps_per_epoch=3, verbose=0)
    _close_history(h.history, t.history)
    _close_weights(ours, theirs)
    assert int(ours.optimizer.iterations.numpy()) == 7


def test_fit_on_a_torch_data_loader_matches_keras():
    torch = pytest.importorskip("torch")
    from torch.utils.data import DataLoader, TensorDataset

    loader = DataLoader(TensorDataset(torch.from_numpy(X), torch.from_numpy(Y)), batch_size=4, shuffle=False)
    ours, theirs = _pair(_dense_model, metrics=["mae"])
    h = ours.fit(loader, epochs=2, verbose=0, validation_data=loader)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = theirs.fit(loader, epochs=2, verbose=0, validation_data=loader)
    _close_history(h.history, t.history)
    _close_weights(ours, theirs)
    np.testing.assert_allclose(ours.predict(loader, verbose=0), theirs.predict(X, verbose=0), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="class_weight"):
        ours.fit(loader, class_weight={0: 1.0}, verbose=0)


# ================================================================ the "different from Keras" list
def test_steps_per_epoch_continues_one_pass_over_a_dataset_as_keras():
    tf = pytest.importorskip("tensorflow")
    ours, theirs = _pair(_dense_model)
    seen = []
    cb = ds.callbacks.LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(
        int(ours.optimizer.iterations.numpy())))
    data = ds.data.Dataset.from_tensor_slices((X, Y)).batch(2)  # 5 batches
    with pytest.warns(UserWarning, match="ran out of data"):
        h = ours.fit(data, epochs=4, steps_per_epoch=2, verbose=0, callbacks=[cb])
    # batches 0-1, 2-3, 4 (the pass ends), then a new pass: 0-1
    assert seen == [2, 4, 5, 7]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = theirs.fit(tf.data.Dataset.from_tensor_slices((X, Y)).batch(2), epochs=4, steps_per_epoch=2, verbose=0)
    _close_history(h.history, t.history)
    _close_weights(ours, theirs)
    # arrays with steps_per_epoch and no batch_size: ceil(rows / steps) rows a batch, as Keras
    rows = []
    cb = ds.callbacks.LambdaCallback(on_train_batch_end=lambda b, logs: rows.append(ours.fit_state.batch_rows))
    ours.fit(X, Y, steps_per_epoch=3, epochs=2, shuffle=False, verbose=0, callbacks=[cb])
    assert rows == [4, 4, 2, 4, 4, 2]


def test_a_backup_at_an_epoch_end_keeps_the_pass_that_continues(tmp_path):
    """With steps_per_epoch the next epoch continues the pass: a run stopped after an epoch and resumed from
    its epoch-end backup ends where the uninterrupted run ends."""
    class Stop(ds.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 0:
                raise KeyboardInterrupt

    def run(folder, extra=()):
        ds.clear_session()
        model = _dense_model(dk)
        model.set_weights([np.full(w.shape, 0.1, np.float32) for w in model.get_weights()])
        data = ds.data.Dataset.from_tensor_slices((X, Y)).batch(2)
        backup = ds.train.BackupAndRestore(str(folder), save_freq="epoch")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(data, epochs=3, steps_per_epoch=2, verbose=0, callbacks=[backup, *extra])
        return model

    reference = run(tmp_path / "a")
    with pytest.raises(KeyboardInterrupt):
        run(tmp_path / "b", [Stop()])
    resumed = run(tmp_path / "b")
    for a, b in zip(reference.get_weights(), resumed.get_weights()):
        np.testing.assert_array_equal(a, b)


def _two_outputs(k):
    inputs = k.Input((3,))
    model = k.Model(inputs, [k.layers.Dense(1, name="a")(inputs), k.layers.Dense(2, name="b")(inputs)])
    model.compile(optimizer=k.optimizers.SGD(0.1), loss=["mse", "mae"], loss_weights=[1.0, 0.5])
    return model


def test_per_output_losses_with_a_partial_last_batch_as_keras():
    ours, theirs = _pair(_two_outputs)
    targets = [Y[:, :1], Y]
    h = ours.fit(X, targets, batch_size=4, epochs=2, shuffle=False, verbose=0, validation_data=(X, targets))
    t = theirs.fit(X, targets, batch_size=4, epochs=2, shuffle=False, verbose=0, validation_data=(X, targets))
    _close_history(h.history, t.history)
    _close_weights(ours, theirs)


class _Recorder:
    """A callback (for either framework) recording every hook: its name, its non-log arguments and its logs
    (None when it got None)."""

    @staticmethod
    def make(base, calls):
        class Recorder(base):
            pass

        def hook(name):
            def call(self, *args, **kwargs):
                args = list(args)
                logs = kwargs.pop("logs", args.pop() if args and (isinstance(args[-1], dict) or args[-1] is None)
                                  else "absent")
                calls.append((name, tuple(args), logs))
            return call

        for name in [n for n in dir(base) if n.startswith("on_")]:
            setattr(Recorder, name, hook(name))
        return Recorder()


def _shape_of(logs):
    if not isinstance(logs, dict):
        return logs
    return {k: (np.shape(v) if isinstance(v, np.ndarray) else "n") for k, v in logs.items()}


def test_callback_hooks_and_logs_are_the_keras_ones():
    keras = _keras()
    ours, theirs = _pair(_dense_model, metrics=["mae"])
    runs = []
    for k, model in ((dk, ours), (keras, theirs)):
        calls = []
        rec = _Recorder.make(k.callbacks.Callback, calls)
        model.fit(X, Y, batch_size=4, epochs=2, shuffle=False, verbose=0, validation_data=(X, Y), callbacks=[rec])
        model.evaluate(X, Y, batch_size=4, verbose=0, callbacks=[rec])
        model.predict(X, batch_size=4, verbose=0, callbacks=[rec])
        runs.append(calls)
    ours_calls, keras_calls = runs
    assert [(n, a, _shape_of(lg)) for n, a, lg in ours_calls] == [(n, a, _shape_of(lg)) for n, a, lg in keras_calls]
    assert all(lg is not None for _, _, lg in ours_calls)  # a dict wherever Keras passes one
    for (name, _, a), (_, _, b) in zip(ours_calls, keras_calls):
        if name.endswith(("_end",)) and isinstance(a, dict):
            for key in a:
                np.testing.assert_allclose(a[key], b[key], rtol=1e-5, atol=1e-6, err_msg=f"{name} {key}")
    train_end = [lg for n, _, lg in ours_calls if n == "on_train_end"][0]
    assert sorted(train_end) == ["loss", "mae", "val_loss", "val_mae"]
    batch_logs = [lg for n, _, lg in ours_calls if n == "on_train_batch_end"][0]
    assert sorted(batch_logs) == ["loss", "mae"]  # no extra "size" or "learning_rate"


@pytest.mark.parametrize("path", ["m", "m.keras"])  # descend's folder and Keras' archive
def test_weighted_metrics_survive_save_and_load(tmp_path, path):
    ds.clear_session()
    model = _classifier(dk)
    model.save(str(tmp_path / path))
    again = ds.models.load_model(str(tmp_path / path))
    assert [m.name for m in again.compiled_metrics.weighted] == ["weighted_accuracy", "wxent"]
    assert [m.name for m in again.compiled_metrics.unweighted] == ["accuracy"]


# ================================================================ found by the ported guides
@pytest.mark.parametrize("case", ["sparse", "categorical", "binary"])
def test_a_cross_entropy_of_softmax_or_sigmoid_outputs_works_from_the_logits_as_keras(case):
    """Keras computes a cross-entropy of its softmax/sigmoid outputs from their logits: where a probability
    falls below 1e-7 clipping would cap the loss (16.1) and stop its gradient; from the logits it is exact."""
    keras = _keras()
    logits = np.array([[1.0, 2.0, 30.0], [0.5, -1.0, 0.0]], np.float32)
    for k, make in ((dk, ds.constant), (keras, np.asarray)):
        activation = k.activations.sigmoid if case == "binary" else k.activations.softmax
        loss = {"sparse": k.losses.SparseCategoricalCrossentropy(), "categorical": k.losses.CategoricalCrossentropy(),
                "binary": k.losses.BinaryCrossentropy()}[case]
        y = np.array([0, 2]) if case == "sparse" else np.array([[1, 0, 0], [0, 0, 1]], np.float32)
        value = float(loss(y, activation(make(logits))))
        if k is dk:
            ours = value
            from_logits = type(loss)(from_logits=True)
            assert ours == pytest.approx(float(from_logits(y, ds.constant(logits))), rel=1e-6)
            assert ours > 14.0 or case == "binary"  # not capped at -log(1e-7) = 16.1 / 2
    assert ours == pytest.approx(value, rel=1e-6)
    # the gradient flows through the logits: an example far on the wrong side still moves the weights
    layer = dk.layers.Dense(3, activation="softmax", kernel_initializer="ones")
    x = ds.constant([[0.0, 0.0, 10.0]])
    with ds.GradientTape() as tape:
        out = layer(x)
        value = dk.losses.SparseCategoricalCrossentropy()(np.array([0]), out)
    assert float(np.abs(tape.gradient(value, layer.bias).numpy()).sum()) > 0.5


def test_compiling_again_without_a_loss_or_metrics_keeps_them_as_keras():
    ours, theirs = _pair(_dense_model, metrics=["mae"])
    for model, k in ((ours, dk), (theirs, _keras())):
        model.compile(optimizer=k.optimizers.SGD(0.05))  # keeps "mse" and ["mae"]
    h = ours.fit(X, Y, batch_size=4, shuffle=False, verbose=0)
    t = theirs.fit(X, Y, batch_size=4, shuffle=False, verbose=0)
    assert sorted(h.history) == ["loss", "mae"]
    _close_history(h.history, t.history)
    ds.clear_session()
    fresh = _dense_model(dk, loss=None)
    assert fresh.loss is None  # a first compile without a loss has none (add_loss terms only)


def test_a_sequential_model_whose_first_layer_is_a_model_is_built_at_once_as_keras():
    keras = _keras()
    counts = []
    for k in (dk, keras):
        base = k.Sequential([k.Input((6,)), k.layers.Dense(4)])
        inputs = k.Input((5,))
        functional = k.Model(inputs, k.layers.Dense(6)(inputs))
        counts.append([len(k.Sequential([base, k.layers.Dense(2)]).weights),
                       len(k.Sequential([functional, k.layers.Dense(3)]).weights)])
    assert counts[0] == counts[1] == [4, 4]


def test_a_functional_model_converts_integer_inputs_to_its_float_input_as_keras():
    keras = _keras()
    outs = []
    for k in (dk, keras):
        inputs = k.Input(shape=(), dtype="float32")
        calc = k.Model(inputs=inputs, outputs=2 * inputs + 1)
        out = np.asarray(calc(np.array([1, 2])))
        outs.append((out.dtype.name, out.tolist()))
    assert outs[0] == outs[1] == ("float32", [3.0, 5.0])
    inputs = dk.Input(shape=(2,), dtype="int32")  # an integer Input keeps integers
    ids = dk.Model(inputs, dk.layers.Embedding(5, 2)(inputs))
    assert ids(np.array([[1, 2]])).shape == (1, 2, 2)


def test_device_names_are_checked_and_everything_runs_on_the_cpu():
    for name in ("CPU:0", "/cpu:0", "/device:GPU:0", "GPU:*", "/job:worker/replica:0/task:1/device:CPU:0", "", None):
        with ds.device(name):
            assert float(ds.reduce_sum(ds.ones((2,)))) == 2.0
    for bad in ("CPU", "cpu0", "/device:CPU", 3):
        with pytest.raises(ValueError, match="device"):
            with ds.device(bad):
                pass


def test_training_false_given_in_the_graph_holds_during_fit():
    """descend keeps the training=False a base model is called with in a functional graph (the transfer
    learning guide's fine-tuning relies on it; Keras 3.15 replaces it with fit's training=True: see
    docs/semantics.md), so the base's BatchNormalization statistics do not move."""
    ds.clear_session()
    base = dk.Sequential([dk.Input((4,)), dk.layers.BatchNormalization()])
    inputs = dk.Input((4,))
    model = dk.Model(inputs, dk.layers.Dense(1)(base(inputs, training=False)))
    model.compile(optimizer="sgd", loss="mse")
    moving = [w for w in base.layers[-1].weights if "moving" in w.name]
    assert len(moving) == 2
    before = [w.numpy().copy() for w in moving]
    model.fit(np.random.default_rng(0).random((16, 4)) * 10, np.ones((16, 1)), verbose=0)
    for w, b in zip(moving, before):
        np.testing.assert_array_equal(w.numpy(), b)


def _endpoint_model(k):
    """The endpoint-layer pattern (keras-io): a layer given the targets adds its loss and updates an accuracy
    metric it holds; the model is compiled without a loss."""

    class Endpoint(k.layers.Layer):
        def __init__(self):
            super().__init__()
            self.loss_fn = k.losses.BinaryCrossentropy(from_logits=True)
            self.accuracy_metric = k.metrics.BinaryAccuracy(name="accuracy")

        def call(self, logits, targets=None):
            if targets is not None:
                self.add_loss(self.loss_fn(targets, logits))
                self.accuracy_metric.update_state(targets, k.ops.sigmoid(logits))
            return logits

    inputs, targets = k.Input((3,), name="inputs"), k.Input((1,), name="targets")
    model = k.Model([inputs, targets], Endpoint()(k.layers.Dense(1)(inputs), targets))
    model.compile(k.optimizers.SGD(0.5))
    return model


def test_metrics_a_layer_holds_are_the_models_logged_and_reset_each_epoch_as_keras():
    """Keras 3 lists the metrics the model's layers hold after the compiled ones: fit and evaluate log them,
    and reset them at each epoch (the endpoint-layer example logs the layer's accuracy)."""
    ds.clear_session()
    x = RNG.normal(size=(12, 3)).astype(np.float32)
    t = (x[:, :1] > 0).astype(np.float32)
    data = {"inputs": x, "targets": t}
    ours = _endpoint_model(dk)
    assert [m.name for m in ours.metrics] == ["loss", "accuracy"]
    before = ours.get_weights()
    history = ours.fit(data, epochs=3, batch_size=12, verbose=0).history
    assert sorted(history) == ["accuracy", "loss"]
    for epoch in range(3):  # one batch an epoch: the accuracy logged is that epoch's (reset), of its weights
        probe = _endpoint_model(dk)
        probe.set_weights(before)
        if epoch:
            probe.fit(data, epochs=epoch, batch_size=12, verbose=0)
        logits = x @ probe.get_weights()[0] + probe.get_weights()[1]
        assert history["accuracy"][epoch] == pytest.approx(float(((logits > 0) == (t > 0.5)).mean()))
    result = ours.evaluate(data, batch_size=12, verbose=0, return_dict=True)
    assert sorted(result) == ["accuracy", "loss"]
    keras = _keras()
    theirs = _endpoint_model(keras)
    theirs.set_weights(before)
    _close_history(history, theirs.fit(data, epochs=3, batch_size=12, verbose=0).history)
    theirs_result = theirs.evaluate(data, batch_size=12, verbose=0, return_dict=True)
    assert sorted(theirs_result) == sorted(result)
    for key in result:
        assert result[key] == pytest.approx(theirs_result[key], rel=1e-5)


def test_a_subclassed_model_lists_its_direct_sublayers_and_may_be_named_empty():
    """The custom layers tutorial: ``ResnetIdentityBlock(...)`` calls ``super().__init__(name='')`` (Keras 3 takes
    an empty name) and shows ``block.layers``, a subclassed model's direct sublayers in attribute order."""

    class Block(dk.Model):
        def __init__(self):
            super().__init__(name="")
            self.conv = dk.layers.Conv2D(2, 1)
            self.bn = dk.layers.BatchNormalization()
            self.inner = dk.Sequential([dk.layers.Dense(3)])

        def call(self, x, training=False):
            return self.inner(self.bn(self.conv(x), training=training))

    block = Block()
    block(np.zeros((1, 2, 2, 3), np.float32))
    assert block.name == ""
    assert [type(la).__name__ for la in block.layers] == ["Conv2D", "BatchNormalization", "Sequential"]
    assert len(block.variables) == 2 + 4 + 2 and block.get_layer(index=1) is block.bn
    seq = dk.Sequential([dk.layers.Dense(2), dk.layers.Dense(1)])  # Sequential and functional keep their own
    assert [type(la).__name__ for la in seq.layers] == ["Dense", "Dense"]


@pytest.mark.parametrize("make,given,expected_rows", [
    # the regression tutorial: a model whose Input is (None, 1) predicts on a column given as a vector
    (lambda: dk.Sequential([dk.layers.Normalization(input_shape=[1], axis=None), dk.layers.Dense(1)]), (10,), 10),
    (lambda: dk.Model(*(lambda i: (i, dk.layers.Dense(1)(i)))(dk.Input((1,)))), (10,), 10),
    # one axis more, of size 1, is squeezed (Keras 3's _adjust_input_rank)
    (lambda: dk.Model(*(lambda i: (i, dk.layers.Dense(1)(i)))(dk.Input((3,)))), (4, 3, 1), 4),
])
def test_a_model_adjusts_an_input_rank_off_by_a_unit_axis_as_keras(make, given, expected_rows):
    model = make()
    x = np.arange(int(np.prod(given)), dtype=np.float32).reshape(given)
    assert model.predict(x, verbose=0).shape == (expected_rows, 1)
    assert tuple(model(x).shape) == (expected_rows, 1)


def test_a_model_refuses_an_input_rank_it_cannot_adjust():
    model = dk.Model(*(lambda i: (i, dk.layers.Dense(1)(i)))(dk.Input((3,))))
    with pytest.raises(ValueError, match="incompatible"):
        model(np.zeros((4,), np.float32))  # a last size of 3 is not 1: no axis to add


@pytest.mark.parametrize("make", [
    lambda: dk.optimizers.schedules.InverseTimeDecay(0.001, decay_steps=20000, decay_rate=1),
    lambda: dk.optimizers.schedules.ExponentialDecay(0.1, decay_steps=10, decay_rate=0.5, staircase=True),
    lambda: dk.optimizers.schedules.PiecewiseConstantDecay([10, 20], [0.1, 0.01, 0.001]),
    lambda: dk.optimizers.schedules.CosineDecay(0.1, decay_steps=100),
])
def test_a_schedule_of_an_array_of_steps_gives_the_rate_at_each(make):
    """The overfit and underfit tutorial plots ``lr_schedule(np.linspace(0, 100000))``: as TF, the rate at each
    step, a float32 tensor of the steps' shape."""
    schedule = make()
    steps = np.linspace(0, 100, 7)
    got = schedule(steps)
    assert got.dtype == ds.float32 and tuple(got.shape) == (7,)
    np.testing.assert_allclose(got.numpy(), [float(schedule(float(s))) for s in steps], rtol=1e-6)
    assert tuple(schedule(ds.constant([[0, 10], [20, 30]])).shape) == (2, 2)
