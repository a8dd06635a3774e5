"""Keras 3's saving hooks in descend's ``.keras`` and ``.weights.h5`` files: ``save_own_variables`` /
``load_own_variables`` (a layer's group of the weights file), ``save_assets`` / ``load_assets`` (its folder under
the archive's ``assets/``), ``get_build_config`` / ``build_from_config`` (its build arguments in the config),
``get_compile_config`` / ``compile_from_config`` (the model's compile arguments). Where Keras is installed, it
reads descend's files and descend reads its files."""

from __future__ import annotations

import io
import os
import warnings
import zipfile

import numpy as np
import pytest

import descend as ds
from descend.persistence.formats import keras_h5

keras_ = ds.keras


def _weights_of(path) -> dict:
    """The groups of a .keras archive's weights file: {group: {dataset name: array}}."""
    with zipfile.ZipFile(path) as z:
        return keras_h5.read_groups(io.BytesIO(z.read("model.weights.h5")), "w")


class StoringDense(keras_.layers.Dense):
    """A Dense layer that stores one more array of its own, under a name (the guide's first example)."""

    def __init__(self, units, **kwargs):
        super().__init__(units, **kwargs)
        self.extra = np.arange(3, dtype=np.float32)

    def save_own_variables(self, store):
        super().save_own_variables(store)
        store["extra"] = self.extra

    def load_own_variables(self, store):
        self.extra = np.array(store["extra"])
        super().load_own_variables({k: store[k] for k in store if k != "extra"})


class FailingDense(keras_.layers.Dense):
    """Loads its kernel, then fails: the loader must put every variable back."""

    def load_own_variables(self, store):
        self.kernel.assign(np.full(tuple(self.kernel.shape), 7.0, np.float32))
        raise RuntimeError("this layer refuses to load")


class VocabDense(keras_.layers.Dense):
    """Keeps a vocabulary in a file of its assets folder (the guide's second example)."""

    def __init__(self, units, vocab=None, **kwargs):
        super().__init__(units, **kwargs)
        self.vocab = vocab
        self.asset_folders = []

    def save_assets(self, inner_path):
        with open(os.path.join(inner_path, "vocabulary.txt"), "w") as f:
            f.write(self.vocab)
        os.makedirs(os.path.join(inner_path, "sub"))
        with open(os.path.join(inner_path, "sub", "table.bin"), "wb") as f:
            f.write(bytes(range(256)))

    def load_assets(self, inner_path):
        self.asset_folders.append(inner_path)
        with open(os.path.join(inner_path, "vocabulary.txt")) as f:
            self.vocab = f.read()
        with open(os.path.join(inner_path, "sub", "table.bin"), "rb") as f:
            self.table = f.read()


class PlainVocab(keras_.layers.Dense):
    """A vocabulary file alone (the same class is written for Keras below)."""

    def __init__(self, units, vocab=None, **kwargs):
        super().__init__(units, **kwargs)
        self.vocab = vocab

    def save_assets(self, inner_path):
        with open(os.path.join(inner_path, "vocabulary.txt"), "w") as f:
            f.write(self.vocab)

    def load_assets(self, inner_path):
        with open(os.path.join(inner_path, "vocabulary.txt")) as f:
            self.vocab = f.read()


class AssetReader(keras_.layers.Dense):
    """Has load_assets but saves none: it is given None when the archive holds assets of other layers."""

    def load_assets(self, inner_path):
        self.given = inner_path


class InitBuild(keras_.layers.Layer):
    """A build with an extra argument, saved in its build config (the guide's third example)."""

    def __init__(self, units=4, **kwargs):
        super().__init__(**kwargs)
        self.units = units

    def build(self, input_shape, init):
        self.w = self.add_weight(shape=(input_shape[-1], self.units), initializer=init)
        self.init = init

    def call(self, x):
        return ds.matmul(x, self.w)

    def get_config(self):
        return {**super().get_config(), "units": self.units}

    def get_build_config(self):
        return {**super().get_build_config(), "init": self.init}

    def build_from_config(self, config):
        self.build(config["shapes_dict"]["input_shape"], config["init"])


class CustomCompile(keras_.Model):
    """A model whose compile takes other arguments (the guide's fourth example)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras_.layers.Dense(2)

    def call(self, x):
        return self.dense(x)

    def compile(self, opt, loss_name):
        super().compile(optimizer=opt, loss=loss_name)
        self.opt_name, self.loss_name = opt, loss_name

    def get_compile_config(self):
        return {"opt": self.opt_name, "loss_name": self.loss_name}

    def compile_from_config(self, config):
        self.compile(config["opt"], config["loss_name"])


class OverriddenCompileOnly(keras_.Model):
    """Overrides compile but not the compile hooks: loading leaves it uncompiled, with Keras' warning."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.dense = keras_.layers.Dense(2)

    def call(self, x):
        return self.dense(x)

    def compile(self, opt):
        super().compile(optimizer=opt, loss="mse")


CUSTOM = {c.__name__: c for c in (StoringDense, FailingDense, VocabDense, PlainVocab, AssetReader, InitBuild,
                                  CustomCompile, OverriddenCompileOnly)}
X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


def _sequential(*layers):
    model = keras_.Sequential([keras_.Input((3,)), *layers])
    model(X)
    return model


# --- save_own_variables / load_own_variables ----------------------------------------------------------------------
def test_default_save_own_variables_writes_keras_keys_in_keras_order(tmp_path):
    model = _sequential(keras_.layers.Dense(2), keras_.layers.BatchNormalization())
    path = str(tmp_path / "m.keras")
    model.save(path)
    groups = _weights_of(path)
    dense, bn = model.layers
    assert list(groups["layers/dense/vars"]) == ["0", "1"]
    np.testing.assert_array_equal(groups["layers/dense/vars"]["0"], dense.kernel.numpy())
    np.testing.assert_array_equal(groups["layers/dense/vars"]["1"], dense.bias.numpy())
    # trainable first (gamma, beta), then the moving statistics: Keras' order
    expected = [bn.gamma, bn.beta, bn.moving_mean, bn.moving_variance]
    assert list(groups["layers/batch_normalization/vars"]) == ["0", "1", "2", "3"]
    for i, v in enumerate(expected):
        np.testing.assert_array_equal(groups["layers/batch_normalization/vars"][str(i)], v.numpy())
    store = {}
    dense.save_own_variables(store)  # a plain dict is a store too, as in Keras
    assert sorted(store) == ["0", "1"]


def test_an_overridden_save_own_variables_changes_what_is_stored_and_comes_back(tmp_path):
    model = _sequential(StoringDense(2))
    model.layers[0].extra = np.array([5.0, 6.0, 7.0], np.float32)
    path = str(tmp_path / "m.keras")
    model.save(path)
    assert list(_weights_of(path)["layers/storing_dense/vars"]) == ["0", "1", "extra"]
    loaded = keras_.models.load_model(path, custom_objects=CUSTOM)
    np.testing.assert_array_equal(loaded.layers[0].extra, [5.0, 6.0, 7.0])
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))
    # the same hooks for .weights.h5
    other = _sequential(StoringDense(2))
    wpath = str(tmp_path / "w.weights.h5")
    model.save_weights(wpath)
    other.load_weights(wpath)
    np.testing.assert_array_equal(other.layers[0].extra, [5.0, 6.0, 7.0])
    np.testing.assert_array_equal(other.layers[0].kernel.numpy(), model.layers[0].kernel.numpy())


def test_a_failing_load_own_variables_leaves_every_variable_as_it_was(tmp_path):
    source = _sequential(keras_.layers.Dense(2, name="first"), FailingDense(2, name="second"))
    path = str(tmp_path / "w.weights.h5")
    source.save_weights(path)
    target = _sequential(keras_.layers.Dense(2, name="first"), FailingDense(2, name="second"))
    before = [w.numpy().copy() for w in target.weights]
    with pytest.raises(ds.train.CheckpointError) as info:
        target.load_weights(path)
    message = str(info.value)
    assert "w.weights.h5" in message and "'second'" in message and "layers/failing_dense/vars" in message
    assert "this layer refuses to load" in message
    for w, b in zip(target.weights, before):  # the first layer was loaded, then put back; the kernel too
        np.testing.assert_array_equal(w.numpy(), b)


@pytest.mark.parametrize("store,text", [
    ({"0": np.zeros((3, 2), np.float32)}, "expected 2 variables"),
    ({"0": np.zeros((3, 2), np.float32), "1": np.zeros(2, np.float32), "2": np.zeros(1, np.float32)},
     "expected 2 variables"),
    ({"0": np.zeros((3, 2), np.float32), "bias": np.zeros(2, np.float32)}, "under the keys ['0', '1']"),
    ({"0": np.zeros((3, 2), np.float32), "1": np.zeros(3, np.float32)}, "'1' (variable 'bias') has shape (3,)"),
], ids=["too_few", "too_many", "other_names", "wrong_shape"])
def test_default_load_own_variables_checks_before_it_assigns(store, text):
    layer = keras_.layers.Dense(2)
    layer(X)
    before = [w.numpy().copy() for w in layer.weights]
    with pytest.raises(ValueError) as info:
        layer.load_own_variables(store)
    assert text in str(info.value) and layer.name in str(info.value)
    for w, b in zip(layer.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)


def test_a_group_with_other_names_is_refused_naming_it_for_a_default_layer(tmp_path):
    model = _sequential(StoringDense(2))
    path = str(tmp_path / "w.weights.h5")
    model.save_weights(path)
    plain = _sequential(keras_.layers.Dense(2, name="storing_dense"))
    # a Dense walks to layers/dense: give it the file's group by name through a rename of the group
    import h5py

    with h5py.File(path, "a") as f:
        f.move("layers/storing_dense", "layers/dense")
    before = [w.numpy().copy() for w in plain.weights]
    with pytest.raises(ds.train.CheckpointError) as info:
        plain.load_weights(path)
    assert "layers/dense/vars: the file holds 3 weights ['0', '1', 'extra']" in str(info.value)
    for w, b in zip(plain.weights, before):
        np.testing.assert_array_equal(w.numpy(), b)


# --- save_assets / load_assets ------------------------------------------------------------------------------------
def test_assets_land_in_the_archive_and_come_back(tmp_path):
    model = _sequential(VocabDense(2, vocab="Mary had a little lamb."), AssetReader(1))
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        assert z.read("assets/layers/vocab_dense/vocabulary.txt") == b"Mary had a little lamb."
    assert "assets/layers/vocab_dense/sub/table.bin" in names
    loaded = keras_.models.load_model(path, custom_objects=CUSTOM)
    vocab, reader = loaded.layers
    assert vocab.vocab == "Mary had a little lamb." and vocab.table == bytes(range(256))
    assert reader.given is None  # its folder is not in the archive (Keras gives None too)
    assert not os.path.exists(vocab.asset_folders[0])  # the temporary copy is gone after loading


def test_an_archive_without_assets_calls_no_load_assets(tmp_path):
    model = _sequential(AssetReader(1))
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        assert sorted(z.namelist()) == ["config.json", "metadata.json", "model.weights.h5"]
    assert not hasattr(keras_.models.load_model(path, custom_objects=CUSTOM).layers[0], "given")


def test_a_symbolic_link_save_assets_leaves_is_refused(tmp_path):
    class Linker(keras_.layers.Dense):
        def save_assets(self, inner_path):
            os.symlink("/etc/passwd", os.path.join(inner_path, "passwd"))

    model = _sequential(Linker(1))
    with pytest.raises(ValueError, match="symbolic link at 'assets/layers/linker/passwd'"):
        model.save(str(tmp_path / "m.keras"))
    assert not os.path.exists(tmp_path / "m.keras")


def test_a_failing_load_assets_names_the_file_and_the_layer(tmp_path):
    model = _sequential(VocabDense(2, vocab="abc"))
    path = str(tmp_path / "m.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist() if not n.endswith("table.bin")}
    with zipfile.ZipFile(path, "w") as z:
        for n, data in members.items():
            z.writestr(n, data)
    with pytest.raises(ds.train.CheckpointError, match=r"m.keras: load_assets of layer 'vocab_dense'"):
        keras_.models.load_model(path, custom_objects=CUSTOM)


# --- get_build_config / build_from_config -------------------------------------------------------------------------
def test_build_config_records_builds_and_drives_the_build_on_load(tmp_path):
    layer = InitBuild(units=5)
    layer.build(input_shape=(3,), init="ones")
    assert layer.get_build_config() == {"shapes_dict": {"input_shape": (3,), "init": "ones"}, "init": "ones"}
    dense = keras_.layers.Dense(1)
    model = keras_.Sequential([layer, dense])
    model(X)
    assert dense.get_build_config() == {"input_shape": (4, 5)}
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras_.models.load_model(path, custom_objects=CUSTOM)
    assert loaded.built and loaded.layers[0].init == "ones"
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))


def test_a_subclassed_model_is_built_from_its_build_config(tmp_path):
    model = CustomCompile()
    model.compile("sgd", "mse")
    model.fit(X, np.ones((4, 2), np.float32), epochs=1, verbose=0)
    assert model.get_build_config() == {"input_shape": (4, 3)}
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras_.models.load_model(path, custom_objects=CUSTOM)
    assert loaded.built and len(loaded.weights) == 2
    np.testing.assert_array_equal(loaded.predict(X, verbose=0), model.predict(X, verbose=0))


@pytest.mark.parametrize("config,text", [
    ({"input_shape": [-3]}, "must be a list of at most 32 sizes"),
    ({"input_shape": [1] * 40}, "must be a list of at most 32 sizes"),
    ({"input_shape": "abc"}, "must be a list of at most 32 sizes"),
    ({"shapes_dict": [1, 2]}, "shapes_dict must be a dict of shapes"),
    ([1], "a build config must be a dict"),
], ids=["negative", "rank_40", "text", "shapes_dict_list", "not_a_dict"])
def test_build_from_config_refuses_what_is_not_a_shape(config, text):
    layer = keras_.layers.Dense(2)
    with pytest.raises(ValueError, match=text.replace("(", r"\(")):
        layer.build_from_config(config)
    assert not layer.built


# --- get_compile_config / compile_from_config ---------------------------------------------------------------------
def test_default_compile_config_restores_compile(tmp_path):
    model = _sequential(keras_.layers.Dense(2))
    model.compile(optimizer=keras_.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    comp = model.get_compile_config()
    assert comp["optimizer"]["class_name"] == "Adam" and comp["loss"]["config"] == "mean_squared_error"
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras_.models.load_model(path)
    assert loaded.compiled and type(loaded.optimizer).__name__ == "Adam"
    assert abs(float(loaded.optimizer.learning_rate) - 0.01) < 1e-9
    assert not keras_.models.load_model(path, compile=False).compiled
    fresh = _sequential(keras_.layers.Dense(2))
    assert not fresh.get_compile_config()
    fresh.compile_from_config(comp)
    assert fresh.compiled and type(fresh.optimizer).__name__ == "Adam"


def test_overridden_compile_hooks_restore_a_custom_compile(tmp_path):
    model = CustomCompile()
    model.compile("adam", "mae")
    model(X)
    path = str(tmp_path / "m.keras")
    model.save(path)
    loaded = keras_.models.load_model(path, custom_objects=CUSTOM)
    assert loaded.compiled and (loaded.opt_name, loaded.loss_name) == ("adam", "mae")
    assert type(loaded.optimizer).__name__ == "Adam"


def test_an_overridden_compile_without_the_hooks_is_left_uncompiled_with_keras_warning(tmp_path):
    model = OverriddenCompileOnly()
    model.compile("sgd")
    model(X)
    path = str(tmp_path / "m.keras")
    model.save(path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loaded = keras_.models.load_model(path, custom_objects=CUSTOM)
    assert not loaded.compiled
    assert any("`compile()` was not called as part of model loading" in str(w.message) for w in caught)


# --- Keras reads descend's files, descend reads Keras' ------------------------------------------------------------
def _keras():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    return pytest.importorskip("keras")


def _keras_classes(keras):
    class StoringDense(keras.layers.Dense):
        def __init__(self, units, **kwargs):
            super().__init__(units, **kwargs)
            self.extra = np.arange(3, dtype=np.float32)

        def save_own_variables(self, store):
            super().save_own_variables(store)
            store["extra"] = self.extra

        def load_own_variables(self, store):
            self.extra = np.array(store["extra"])
            super().load_own_variables({k: store[k] for k in store.keys() if k != "extra"})

    class PlainVocab(keras.layers.Dense):
        def __init__(self, units, vocab=None, **kwargs):
            super().__init__(units, **kwargs)
            self.vocab = vocab

        def save_assets(self, inner_path):
            with open(os.path.join(inner_path, "vocabulary.txt"), "w") as f:
                f.write(self.vocab)

        def load_assets(self, inner_path):
            with open(os.path.join(inner_path, "vocabulary.txt")) as f:
                self.vocab = f.read()

    return {"StoringDense": StoringDense, "PlainVocab": PlainVocab}


def test_keras_reads_the_stores_and_assets_descend_writes(tmp_path):
    keras = _keras()
    model = _sequential(StoringDense(2), PlainVocab(1, vocab="words"))
    model.layers[0].extra = np.array([1.0, 2.0, 3.0], np.float32)
    path = str(tmp_path / "m.keras")
    model.save(path)
    theirs = keras.models.load_model(path, custom_objects=_keras_classes(keras))
    np.testing.assert_array_equal(theirs.layers[0].extra, [1.0, 2.0, 3.0])
    assert theirs.layers[1].vocab == "words"
    np.testing.assert_allclose(np.asarray(theirs.predict(X, verbose=0)), model.predict(X, verbose=0), rtol=1e-6)


def test_descend_reads_the_stores_and_assets_keras_writes(tmp_path):
    keras = _keras()
    classes = _keras_classes(keras)
    theirs = keras.Sequential([keras.Input((3,)), classes["StoringDense"](2), classes["PlainVocab"](1, vocab="w2")])
    theirs.layers[0].extra = np.array([4.0, 5.0, 6.0], np.float32)
    path = str(tmp_path / "k.keras")
    theirs.save(path)
    ours = keras_.models.load_model(path, custom_objects=CUSTOM)
    np.testing.assert_array_equal(ours.layers[0].extra, [4.0, 5.0, 6.0])
    assert ours.layers[1].vocab == "w2"
    np.testing.assert_allclose(ours.predict(X, verbose=0), np.asarray(theirs.predict(X, verbose=0)), rtol=1e-6)


def test_a_store_takes_arrays_of_numbers_under_plain_names():
    from descend.persistence.keras_hooks import LoadStore, SaveStore

    store = SaveStore("layers/dense/vars", "model.save: 'm.keras'")
    store["ids"] = ds.Variable(np.arange(3, dtype=np.int64))
    assert store["ids"].dtype == np.int64
    for key, value, error in [("text", np.array(["a"]), TypeError), ("a/b", np.ones(1), KeyError),
                              ("", np.ones(1), KeyError), (3, np.ones(1), KeyError)]:
        with pytest.raises(error, match="m.keras"):
            store[key] = value
    assert list(store) == ["ids"]
    with pytest.raises(KeyError, match="group 'layers/dense/vars' holds no 'nope'"):
        LoadStore("layers/dense/vars", store.values(), "m.keras")["nope"]


# --- what the guide needed besides the hooks: compile's metrics as Keras 3 resolves them --------------------------
def _sum_loss(y_true, y_pred):  # a loss that says nothing of the targets' kind
    return ds.reduce_sum(ds.square(y_pred), axis=-1)


def _mean_pred(y_true, y_pred):
    return ds.reduce_mean(y_pred)


P3 = np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3]], np.float32)


@pytest.mark.parametrize("y_pred,y_true,accuracy", [
    (np.array([[0.2], [0.7], [0.6], [0.4]], np.float32), np.array([[0.0], [1.0], [0.0], [0.0]], np.float32), 0.75),
    (P3, np.array([1, 0, 0, 2], np.int64), 0.5),
    (P3, np.eye(3, dtype=np.float32)[[1, 0, 2, 0]], 0.75),
], ids=["binary_by_one_column", "sparse_by_lower_rank", "categorical_by_equal_shapes"])
def test_accuracy_beside_a_loss_of_its_own_picks_by_shapes_and_functions_are_mean_metrics(y_pred, y_true, accuracy):
    """Keras 3: "accuracy" is binary, sparse categorical or categorical by the shapes when the loss does not say
    which; a plain function among the metrics is the mean of its values, logged under its name."""
    model = keras_.Sequential([keras_.Input((y_pred.shape[1],)), keras_.layers.Identity()])
    model.compile(optimizer="sgd", loss=_sum_loss, metrics=["accuracy", _mean_pred])
    logs = model.evaluate(y_pred, y_true, verbose=0, return_dict=True)
    assert abs(logs["accuracy"] - accuracy) < 1e-7
    assert abs(logs["_mean_pred"] - float(y_pred.mean())) < 1e-6
