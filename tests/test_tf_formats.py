"""The files TensorFlow and Keras users already have (issue 24): Keras 3's ``.keras`` and ``.weights.h5``, TF 2's
object checkpoints, TF 1's ``Saver`` checkpoints, read into descend and training on with the numbers TensorFlow
reached (``tests/data/tf_formats``: made by ``make.py`` there, with the values TF / Keras reached 3 steps after
the save in ``expected.npz``), and descend's Keras files read by Keras. The tests that run Keras or TensorFlow
themselves skip where they are not installed."""

from __future__ import annotations

import os
import shutil

import numpy as np
import pytest

import descend as ds

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_formats")
E = dict(np.load(os.path.join(DATA, "expected.npz")))
X, Y = E["x"], E["y"]


def _values(prefix: str) -> list[np.ndarray]:
    out, i = [], 0
    while f"{prefix}/{i}" in E:
        out.append(E[f"{prefix}/{i}"])
        i += 1
    assert out, prefix
    return out


def _close(got, want, tol=1e-6):
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(g), w, rtol=tol, atol=tol)


def _h5_values(path: str, group: str) -> list[np.ndarray]:
    h5py = pytest.importorskip("h5py")
    with h5py.File(path, "r") as f:
        g = f[group]
        return [g[str(i)][()] for i in range(len(g))]


def _functional(name="functional_adam"):
    ds.clear_session()
    inp = ds.keras.Input((4,), name="x")
    h = ds.layers.Dense(5, activation="relu", name="d1")(inp)
    return ds.Model(inp, ds.layers.Dense(2, name="d2")(h), name=name)


def _train(model, steps=3):
    for _ in range(steps):
        model.train_on_batch(X, Y)


# --- Keras 3 files ------------------------------------------------------------------------------------------------
def test_keras_archive_loads_bitwise_and_continues_as_keras():
    path = os.path.join(DATA, "keras_functional.keras")
    model = ds.keras.models.load_model(path)
    assert type(model).__name__ == "Model" and model.name == "functional_adam"
    assert isinstance(model.optimizer, ds.optimizers.Adam) and int(model.optimizer.iterations.numpy()) == 3
    assert model.optimizer.learning_rate == pytest.approx(0.01)
    saved = _h5_values(os.path.join(DATA, "keras_functional.weights.h5"), "layers/dense/vars") + \
        _h5_values(os.path.join(DATA, "keras_functional.weights.h5"), "layers/dense_1/vars")
    for got, want in zip(model.get_weights(), saved):
        assert got.dtype == want.dtype and np.array_equal(got, want)  # bitwise
    _train(model)
    _close(model.get_weights(), _values("keras_functional/weights"))
    opt = model.optimizer
    want = _values("keras_functional/optimizer")  # iterations, learning_rate, then m, v per variable
    assert int(opt.iterations.numpy()) == int(want[0]) == 6
    slots = [opt.get_slot(v, s).numpy() for v in model.trainable_weights for s in ("m", "v")]
    _close(slots, want[2:])


def test_weights_h5_loads_bitwise_with_the_optimizer_state_and_continues():
    path = os.path.join(DATA, "keras_functional.weights.h5")
    model = _functional()
    model.compile(optimizer=ds.optimizers.Adam(0.01), loss="mse")
    assert model.load_weights(path) is None
    saved = _h5_values(path, "layers/dense/vars") + _h5_values(path, "layers/dense_1/vars")
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), saved))
    opt = model.optimizer
    assert int(opt.iterations.numpy()) == 3 and len(opt.pending_state()) == 8  # slots wait for the first step
    opt.build(model.trainable_weights)
    slots = [opt.get_slot(v, s).numpy() for v in model.trainable_weights for s in ("m", "v")]
    assert all(np.array_equal(a, b) for a, b in zip(slots, _h5_values(path, "optimizer/vars")[2:]))
    _train(model)
    _close(model.get_weights(), _values("keras_functional/weights"))


def test_keras_sequential_with_batch_norm_and_centered_rmsprop_continues():
    model = ds.keras.models.load_model(os.path.join(DATA, "keras_sequential.keras"))
    assert isinstance(model, ds.Sequential) and int(model.optimizer.iterations.numpy()) == 2
    opt = model.optimizer
    assert opt.centered and opt.hyperparameters()["momentum"] == 0.5
    _train(model)
    _close(model.get_weights(), _values("keras_sequential/weights"), 2e-6)


def test_keras_subclassed_weights_follow_keras_attribute_walk():
    class Sub(ds.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.hidden = ds.layers.Dense(3)
            self.bn = ds.layers.BatchNormalization()
            self.out = ds.layers.Dense(2)

        def call(self, x, training=None):
            return self.out(self.bn(self.hidden(x), training=training))

    ds.clear_session()
    model = Sub()
    model(X)
    model.compile(optimizer=ds.optimizers.SGD(0.01, momentum=0.9), loss="mse")
    model.load_weights(os.path.join(DATA, "keras_subclassed.weights.h5"))
    before = _values("keras_subclassed/before")
    assert all(np.array_equal(v.numpy(), b) for v, b in zip(model.weights, before))
    _train(model)
    _close([v.numpy() for v in model.weights], _values("keras_subclassed/weights"))


def test_descend_directory_named_keras_still_loads(tmp_path):
    """A model (weights) descend saved as a directory named *.keras (*.weights.h5) before the suffix meant Keras'
    file still loads; saving to that name never replaces the directory."""
    model = _functional()
    model.compile(optimizer="adam", loss="mse")
    model.save(tmp_path / "m")  # descend's directory format
    os.rename(tmp_path / "m", tmp_path / "old.keras")
    again = ds.models.load_model(tmp_path / "old.keras")
    assert all(np.array_equal(a, b) for a, b in zip(again.get_weights(), model.get_weights()))
    model.save_weights(tmp_path / "w")
    os.rename(tmp_path / "w", tmp_path / "old.weights.h5")
    other = _functional()
    other.load_weights(tmp_path / "old.weights.h5")
    assert all(np.array_equal(a, b) for a, b in zip(other.get_weights(), model.get_weights()))
    model.save_weights(tmp_path / "w")
    os.rename(tmp_path / "w", tmp_path / "old.h5")  # any name: an older descend wrote directories under any
    other.load_weights(tmp_path / "old.h5")
    model.save(tmp_path / "new.keras")
    assert (tmp_path / "new.keras").is_file()
    with pytest.raises(FileExistsError, match="not a regular file"):
        model.save_weights(tmp_path / "old.weights.h5")
    with pytest.raises(FileExistsError, match="not a regular file"):
        model.save(tmp_path / "old.keras")  # never replaces a directory with the archive


def test_legacy_h5_and_misrouted_suffixes_are_refused_clearly(tmp_path):
    model = _functional()
    for call, text in ((lambda: model.save(tmp_path / "m.h5"), "legacy HDF5"),
                       (lambda: model.save_weights(tmp_path / "m.hdf5"), "legacy HDF5"),
                       (lambda: model.save(tmp_path / "m.weights.h5"), "use model.save_weights"),
                       (lambda: ds.models.load_model(tmp_path / "w.weights.h5"), "is a weights file")):
        with pytest.raises(ValueError, match=text):
            call()


def test_descend_keras_files_round_trip_in_descend(tmp_path):
    model = _functional()
    model.compile(optimizer=ds.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    _train(model, 2)
    model.save(tmp_path / "m.keras")
    model.save_weights(tmp_path / "m.weights.h5")
    loaded = ds.keras.models.load_model(tmp_path / "m.keras")
    other = _functional()
    other.compile(optimizer=ds.optimizers.Adam(0.01), loss="mse")
    other.load_weights(tmp_path / "m.weights.h5")
    _train(model)
    _train(loaded)
    _train(other)
    for m in (loaded, other):
        assert all(np.array_equal(a, b) for a, b in zip(m.get_weights(), model.get_weights()))


# --- TF 2 object checkpoints --------------------------------------------------------------------------------------
def test_tf2_checkpoint_reads_bitwise_weights_and_slots_and_continues():
    model = _functional("functional")
    opt = ds.optimizers.Adam(0.01)
    model.compile(optimizer=opt, loss="mse")
    report = ds.train.Checkpoint(model=model, optimizer=opt).read(os.path.join(DATA, "tf2_functional", "ckpt-1"))
    assert report.complete and report.missing == [] and report.unexpected == []
    before = _values("tf2_functional/before")
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), before))
    want = _values("tf2_functional/before_optimizer")
    assert int(opt.iterations.numpy()) == int(want[0]) == 3 and opt.learning_rate == float(want[1])
    opt.build(model.trainable_weights)  # the slots waiting for their variables
    slots = [opt.get_slot(v, s).numpy() for v in model.trainable_weights for s in ("m", "v")]
    assert all(np.array_equal(a, b) for a, b in zip(slots, want[2:]))
    _train(model)
    _close(model.get_weights(), _values("tf2_functional/weights"))
    slots = [opt.get_slot(v, s).numpy() for v in model.trainable_weights for s in ("m", "v")]
    _close(slots, _values("tf2_functional/optimizer")[2:])


def test_tf2_checkpoint_of_a_sequential_model_with_nadam():
    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3), ds.layers.Dense(2)])
    opt = ds.optimizers.Nadam(0.01)
    model.compile(optimizer=opt, loss="mse")
    status = ds.train.Checkpoint(model=model, optimizer=opt).restore(os.path.join(DATA, "tf2_sequential", "ckpt-1"))
    assert status.complete and "u_product" in opt.pending_state()
    _train(model)
    _close(model.get_weights(), _values("tf2_sequential/weights"))
    status.assert_consumed()


def test_tf2_checkpoint_with_keras2_layer_names_and_tf1_slot_variables():
    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3, activation="relu"), ds.layers.Dense(2)])
    opt = ds.compat.v1.train.AdamOptimizer(0.05)
    ckpt = ds.train.Checkpoint(model=model, optimizer=opt)
    status = ckpt.read(os.path.join(DATA, "tf2_keras2_style", "ckpt-1"))
    assert status.complete
    assert sorted(opt.pending_state()) == sorted(
        ["beta1_power", "beta2_power"] + [f"model/layers/{i}/{w}/{s}" for i in (0, 1) for w in ("kernel", "bias")
                                          for s in ("m", "v")])
    variables = model.trainable_weights

    def loss():
        return ds.reduce_mean(ds.square(model(X) - Y))

    for _ in range(3):
        opt.minimize(loss, var_list=variables)
    _close([v.numpy() for v in variables], _values("tf2_keras2_style/weights"))
    ckpt.assert_consumed()


def test_tf2_checkpoint_mismatch_restores_nothing():
    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3), ds.layers.Dense(7)])  # 7, not 2
    opt = ds.optimizers.Nadam(0.01)
    model.compile(optimizer=opt, loss="mse")
    before = model.get_weights()
    with pytest.raises(ds.train.CheckpointMismatchError, match="expected shape"):
        ds.train.Checkpoint(model=model, optimizer=opt).read(os.path.join(DATA, "tf2_sequential", "ckpt-1"))
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), before))
    assert int(opt.iterations.numpy()) == 0 and opt.pending_state() == []
    with pytest.raises(ds.train.CheckpointError, match="name-based checkpoint"):
        ds.train.Checkpoint(model=model).read(os.path.join(DATA, "tf1_adam", "model.ckpt-3"))


def test_load_checkpoint_and_list_variables_read_tensorflow_files():
    prefix = os.path.join(DATA, "tf1_adam", "model.ckpt-3")
    assert ds.train.latest_checkpoint(os.path.join(DATA, "tf1_adam")) == prefix
    names = dict(ds.train.list_variables(prefix))
    assert names == {"beta1_power": (), "beta2_power": (), "dense/bias": (3,), "dense/bias/Adam": (3,),
                     "dense/bias/Adam_1": (3,), "dense/kernel": (4, 3), "dense/kernel/Adam": (4, 3),
                     "dense/kernel/Adam_1": (4, 3), "global_step": (), "out/bias": (2,), "out/bias/Adam": (2,),
                     "out/bias/Adam_1": (2,), "out/kernel": (3, 2), "out/kernel/Adam": (3, 2),
                     "out/kernel/Adam_1": (3, 2)}
    reader = ds.train.load_checkpoint(prefix)
    assert reader.get_variable_to_dtype_map()["global_step"] == np.int64
    assert int(reader.get_tensor("global_step")) == 3
    tf2 = ds.train.load_checkpoint(os.path.join(DATA, "tf2_functional", "ckpt-1"))
    assert isinstance(tf2.get_tensor("_CHECKPOINTABLE_OBJECT_GRAPH"), bytes)
    assert tf2.get_tensor("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE") == 3


# --- TF 1 Saver checkpoints ---------------------------------------------------------------------------------------
TF1 = {"adam": lambda t: t.AdamOptimizer(0.05), "adagrad": lambda t: t.AdagradOptimizer(0.1),
       "rmsprop": lambda t: t.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
       "momentum": lambda t: t.MomentumOptimizer(0.05, 0.9)}


def _tf1_graph():
    v1 = ds.compat.v1
    v1.reset_default_graph()
    ds.clear_session()
    with v1.variable_scope("dense"):
        k1 = v1.get_variable("kernel", (4, 3))
        b1 = v1.get_variable("bias", (3,), initializer=v1.zeros_initializer())
    with v1.variable_scope("out"):
        k2 = v1.get_variable("kernel", (3, 2))
        b2 = v1.get_variable("bias", (2,), initializer=v1.zeros_initializer())

    def loss():
        pred = ds.matmul(ds.nn.relu(ds.matmul(X, k1) + b1), k2) + b2
        return ds.reduce_mean(ds.square(pred - Y))
    return [k1, b1, k2, b2], loss


@pytest.mark.parametrize("name", sorted(TF1))
def test_tf1_saver_checkpoint_restores_with_deferred_slots_and_continues(name):
    variables, loss = _tf1_graph()
    t = ds.compat.v1.train
    step = t.get_or_create_global_step()
    opt = TF1[name](t)
    folder = os.path.join(DATA, f"tf1_{name}")
    path = ds.train.latest_checkpoint(folder)
    t.Saver().restore(None, path)
    reader = ds.train.load_checkpoint(path)
    for v in variables:
        assert np.array_equal(v.numpy(), reader.get_tensor(v.op.name))  # bitwise, by name
    assert int(step.numpy()) == 3
    assert opt.pending_state()  # TF 1 names -> descend's slots, waiting for apply_gradients
    for _ in range(3):
        opt.minimize(loss, global_step=step)
    assert int(step.numpy()) == 6
    _close([v.numpy() for v in variables], _values(f"tf1_{name}/weights"))  # measured: at most 3e-8 apart
    assert opt.pending_state() == []


def test_tf1_saver_restore_is_all_or_nothing():
    variables, _ = _tf1_graph()
    extra = ds.Variable(np.zeros(3, np.float32), name="not_in_the_file")
    t = ds.compat.v1.train
    opt = t.AdamOptimizer(0.05)
    before = [v.numpy() for v in variables]
    with pytest.raises(ds.train.CheckpointMismatchError, match="not_in_the_file"):
        t.Saver().restore(None, os.path.join(DATA, "tf1_adam", "model.ckpt-3"))
    assert all(np.array_equal(v.numpy(), b) for v, b in zip(variables, before)) and opt.pending_state() == []
    t.Saver(variables).restore(None, os.path.join(DATA, "tf1_adam", "model.ckpt-3"))  # a list: only those
    assert not np.array_equal(variables[0].numpy(), before[0]) and opt.pending_state() == []
    del extra


def test_init_from_checkpoint_maps_scopes_and_names():
    v1 = ds.compat.v1
    v1.reset_default_graph()
    with v1.variable_scope("student"):
        kernel = v1.get_variable("kernel", (4, 3))
        bias = v1.get_variable("bias", (3,))
    other = ds.Variable(np.zeros((3, 2), np.float32), name="head")
    prefix = os.path.join(DATA, "tf1_adam", "model.ckpt-3")
    reader = ds.train.load_checkpoint(prefix)
    v1.train.init_from_checkpoint(os.path.join(DATA, "tf1_adam"), {"dense/": "student/", "out/kernel": other})
    assert np.array_equal(kernel.numpy(), reader.get_tensor("dense/kernel"))
    assert np.array_equal(bias.numpy(), reader.get_tensor("dense/bias"))
    assert np.array_equal(other.numpy(), reader.get_tensor("out/kernel"))
    before = kernel.numpy()
    with pytest.raises(ValueError, match="nothing was assigned"):
        v1.train.init_from_checkpoint(prefix, {"dense/kernel": "student/kernel", "out/bias": other})  # wrong shape
    with pytest.raises(ValueError, match="not in checkpoint"):
        v1.train.init_from_checkpoint(prefix, {"nope/": "student/"})
    assert np.array_equal(kernel.numpy(), before)


# --- what Keras and TensorFlow read of descend's files (where they are installed) --------------------------------
def _keras():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return pytest.importorskip("keras")


def test_keras_loads_descend_keras_and_weights_files_and_trains_the_same(tmp_path):
    keras = _keras()
    model = _functional()
    model.compile(optimizer=ds.optimizers.Adam(0.01), loss="mse")
    _train(model, 2)
    model.save(tmp_path / "d.keras")
    model.save_weights(tmp_path / "d.weights.h5")
    k = keras.models.load_model(tmp_path / "d.keras")
    np.testing.assert_allclose(k.predict(X, verbose=0), model.predict(X, verbose=0), rtol=1e-6, atol=1e-6)
    assert int(k.optimizer.iterations.numpy()) == 2
    k2 = keras.models.load_model(tmp_path / "d.keras")
    k2.load_weights(tmp_path / "d.weights.h5")
    np.testing.assert_allclose(k2.predict(X, verbose=0), model.predict(X, verbose=0), rtol=1e-6, atol=1e-6)
    for _ in range(3):
        k.train_on_batch(X, Y)
    _train(model)
    _close(model.get_weights(), k.get_weights())


def test_keras_loads_a_descend_sequential_with_batch_norm(tmp_path):
    keras = _keras()
    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3, use_bias=False), ds.layers.BatchNormalization(),
                           ds.layers.Dense(2)])  # (a bias before batch norm has a zero gradient: rounding noise)
    model.compile(optimizer=ds.optimizers.RMSprop(0.01, momentum=0.5, centered=True), loss="mse")
    _train(model, 2)
    model.save(tmp_path / "s.keras")
    k = keras.models.load_model(tmp_path / "s.keras")
    np.testing.assert_allclose(k.predict(X, verbose=0), model.predict(X, verbose=0), rtol=1e-6, atol=1e-6)
    for _ in range(3):
        k.train_on_batch(X, Y)
    _train(model)
    _close(model.get_weights(), k.get_weights(), 2e-6)


def test_tensorflow_reads_the_bundles_descend_writes_and_lists_the_same(tmp_path):
    tf = pytest.importorskip("tensorflow")
    from descend.persistence.formats import tf_bundle

    values = {"a/kernel": np.arange(6, dtype=np.float32).reshape(2, 3), "step": np.int64(7),
              "flags": np.array([True, False]), "half": np.ones(3, np.float16)}
    tf_bundle.write_bundle(tmp_path / "ckpt", values)
    reader = tf.train.load_checkpoint(str(tmp_path / "ckpt"))
    for k, v in values.items():
        assert np.array_equal(reader.get_tensor(k), v)
    for folder in ("tf1_rmsprop", "tf2_functional"):
        prefix = tf.train.latest_checkpoint(os.path.join(DATA, folder)) or os.path.join(DATA, folder, "ckpt-1")
        theirs = {k: tuple(s) for k, s in tf.train.list_variables(prefix)}
        assert dict(ds.train.list_variables(prefix)) == theirs


def test_data_files_are_what_make_py_writes(tmp_path):
    """The committed files read in descend the way TensorFlow reads them (names, shapes, values)."""
    tf = pytest.importorskip("tensorflow")
    for folder in ("tf1_adam", "tf1_adagrad", "tf2_keras2_style"):
        path = os.path.join(DATA, folder)
        prefix = ds.train.latest_checkpoint(path) or os.path.join(path, "ckpt-1")
        ours, theirs = ds.train.load_checkpoint(prefix), tf.train.load_checkpoint(prefix)
        for k in ours.keys():
            a, b = ours.get_tensor(k), theirs.get_tensor(k)
            assert (a == b) if isinstance(a, bytes) else np.array_equal(a, b), k
    shutil.rmtree(tmp_path, ignore_errors=True)


def test_keras2_tf_format_weights_load_with_the_model_at_the_root(tmp_path):
    """Keras 2's ``model.save_weights(prefix)`` (TF format): the object graph's root is the model, its layers
    ``layer_with_weights-<n>`` (and ``layer-<n>``), their variables ``kernel`` and ``bias``."""
    from descend.persistence.formats import tf_bundle

    rng = np.random.RandomState(0)
    k1, b1, k2, b2 = (rng.randn(4, 3).astype(np.float32), rng.randn(3).astype(np.float32),
                      rng.randn(3, 2).astype(np.float32), rng.randn(2).astype(np.float32))
    key = "{}/.ATTRIBUTES/VARIABLE_VALUE".format
    nodes = [{"children": [("layer-0", 1), ("layer_with_weights-0", 2), ("layer-1", 2), ("layer_with_weights-1", 5),
                           ("layer-2", 5)]},
             {},
             {"children": [("kernel", 3), ("bias", 4)]},
             {"value": key("layer_with_weights-0/kernel")}, {"value": key("layer_with_weights-0/bias")},
             {"children": [("kernel", 6), ("bias", 7)]},
             {"value": key("layer_with_weights-1/kernel")}, {"value": key("layer_with_weights-1/bias")}]
    tf_bundle.write_bundle(tmp_path / "weights", {
        key("layer_with_weights-0/kernel"): k1, key("layer_with_weights-0/bias"): b1,
        key("layer_with_weights-1/kernel"): k2, key("layer_with_weights-1/bias"): b2,
        tf_bundle.OBJECT_GRAPH_KEY: tf_bundle.encode_object_graph(nodes)})
    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3), ds.layers.Dense(2)])
    report = model.load_weights(tmp_path / "weights")
    assert report.complete
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), (k1, b1, k2, b2)))
    ds.clear_session()
    wrong = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3), ds.layers.Dense(5)])
    before = wrong.get_weights()
    with pytest.raises(ds.train.CheckpointMismatchError, match="layer_with_weights|expected shape"):
        wrong.load_weights(tmp_path / "weights")
    assert all(np.array_equal(a, b) for a, b in zip(wrong.get_weights(), before))


def test_a_checkpoint_manager_over_tensorflow_checkpoints_starts_from_the_newest(tmp_path):
    folder = tmp_path / "ckpts"
    shutil.copytree(os.path.join(DATA, "tf2_sequential"), folder)
    (folder / "checkpoint").write_text('model_checkpoint_path: "ckpt-1"\nall_model_checkpoint_paths: "ckpt-1"\n')
    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3), ds.layers.Dense(2)])
    model.compile(optimizer=ds.optimizers.Nadam(0.01), loss="mse")
    ckpt = ds.train.Checkpoint(model=model, optimizer=model.optimizer)
    manager = ds.train.CheckpointManager(ckpt, folder, max_to_keep=2)
    assert manager.latest_checkpoint == str(folder / "ckpt-1")
    ckpt.restore(manager.latest_checkpoint)
    _train(model)
    _close(model.get_weights(), _values("tf2_sequential/weights"))
    saved = manager.save()  # descend's checkpoints from here on, in the same folder
    assert manager.latest_checkpoint == saved and os.path.isdir(saved)


OPTIMIZERS = {"adam_ema_amsgrad": lambda o: o.Adam(0.01, use_ema=True, amsgrad=True),
              "sgd_nesterov": lambda o: o.SGD(0.01, momentum=0.9, nesterov=True), "adagrad": lambda o: o.Adagrad(0.05),
              "adadelta": lambda o: o.Adadelta(0.5), "adamax": lambda o: o.Adamax(0.01), "nadam": lambda o: o.Nadam(0.01),
              "ftrl": lambda o: o.Ftrl(0.05), "lion": lambda o: o.Lion(0.001), "lamb": lambda o: o.Lamb(0.01),
              "adamw": lambda o: o.AdamW(0.01), "rmsprop": lambda o: o.RMSprop(0.01, momentum=0.3)}


@pytest.mark.filterwarnings("ignore:restored optimizer state")  # moving averages wait a stage longer than slots
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_every_keras_optimizer_layout_round_trips_with_keras(tmp_path, name):
    """descend -> .keras -> Keras trains on as descend does; Keras -> .keras -> descend trains on as Keras does
    (the order of every optimizer's variables in Keras' file, moving averages included)."""
    keras = _keras()
    ds.clear_session()
    ours = ds.Sequential([ds.keras.Input((4,)), ds.layers.Dense(3, activation="tanh"), ds.layers.Dense(2)])
    ours.compile(optimizer=OPTIMIZERS[name](ds.optimizers), loss="mse")
    _train(ours, 2)
    ours.save(tmp_path / "d.keras")
    theirs = keras.models.load_model(tmp_path / "d.keras")
    _train(ours)
    for _ in range(3):
        theirs.train_on_batch(X, Y)
    _close(ours.get_weights(), theirs.get_weights(), 1e-6)
    theirs.save(tmp_path / "k.keras")
    again = ds.keras.models.load_model(tmp_path / "k.keras")
    for _ in range(2):
        theirs.train_on_batch(X, Y)
    _train(again, 2)
    _close(again.get_weights(), theirs.get_weights(), 1e-6)
    if name == "adam_ema_amsgrad":
        _close([v.numpy() for v in again.optimizer._model_variables_moving_average],
               [v.numpy() for v in theirs.optimizer._model_variables_moving_average], 1e-6)


def test_tf2_restore_strict_and_partial():
    """strict=True refuses a checkpoint lacking an object and restores nothing; strict=False
    restores what matches and lists the rest (TF's expect_partial)."""
    model = _functional("functional")
    opt = ds.optimizers.Adam(0.01)
    model.compile(optimizer=opt, loss="mse")
    extra = ds.Variable(np.zeros(3, np.float32), name="extra")
    before = model.get_weights()
    ckpt = ds.train.Checkpoint(model=model, optimizer=opt, extra=extra)
    path = os.path.join(DATA, "tf2_functional", "ckpt-1")
    with pytest.raises(ds.train.CheckpointMismatchError, match="extra"):
        ckpt.read(path, strict=True)
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), before))
    report = ckpt.read(path, strict=False).expect_partial()
    assert any(m.startswith("extra") for m in report.missing) and report.unexpected == []
    assert all(np.array_equal(a, b) for a, b in zip(model.get_weights(), _values("tf2_functional/before")))
    with pytest.raises(ds.train.CheckpointMismatchError, match="extra"):
        report.assert_consumed()


def test_tf2_values_wait_for_the_layers_of_a_model_not_built_yet():
    ds.clear_session()
    model = ds.Sequential([ds.layers.Dense(3), ds.layers.Dense(2)])  # no Input: built by its first call
    opt = ds.optimizers.Nadam(0.01)
    model.compile(optimizer=opt, loss="mse")
    report = ds.train.Checkpoint(model=model, optimizer=opt).read(os.path.join(DATA, "tf2_sequential", "ckpt-1"))
    assert sorted(report.deferred) == [f"model/layers/{i}/{w}" for i in (0, 1) for w in ("bias", "kernel")]
    _train(model)
    _close(model.get_weights(), _values("tf2_sequential/weights"))
