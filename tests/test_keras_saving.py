"""Keras 3's saving surface: ``keras.saving`` (one registry with descend.saving), custom objects in
load_model and from_config, clone_model, to_json/model_from_json, layers.serialize/deserialize,
nested layers in configs, a Sequential built at construction, dtype policies in configs. Where
Keras is installed, its behaviour is the reference."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import descend as ds


def _keras():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # Keras' default backend, as the other Keras comparisons
    return pytest.importorskip("keras")


# --- the namespace and the registry ---------------------------------------------------------------------------
KERAS_SAVING_NAMES = ["register_keras_serializable", "get_custom_objects", "custom_object_scope", "CustomObjectScope",
                      "serialize_keras_object", "deserialize_keras_object", "get_registered_name",
                      "get_registered_object", "load_model", "save_model", "load_weights", "save_weights"]


def test_keras_saving_is_descend_saving_one_registry():
    import descend.keras.saving as ks

    assert ks is ds.saving and ds.keras.saving is ds.saving
    for name in KERAS_SAVING_NAMES:
        assert callable(getattr(ks, name)), name
    assert ks.register_keras_serializable is ds.saving.register_serializable
    assert ks.CustomObjectScope is ks.custom_object_scope
    for name in ("register_keras_serializable", "get_custom_objects", "custom_object_scope", "CustomObjectScope",
                 "serialize_keras_object", "deserialize_keras_object", "get_registered_name", "get_registered_object"):
        assert getattr(ds.keras.utils, name) is getattr(ds.saving, name)  # Keras has them in keras.utils too

    @ds.keras.saving.register_keras_serializable(package="ns_test")
    class Scaled(ds.layers.Layer):
        def call(self, x):
            return x * 2.0

    assert ds.saving.get_custom_objects()["ns_test>Scaled"] is Scaled
    assert ds.saving.get_registered_name(Scaled) == "ns_test>Scaled"
    assert ds.saving.get_registered_object("ns_test>Scaled") is Scaled
    assert ds.saving.get_registered_object("Scaled") is None  # exact names, as Keras
    with pytest.raises(ValueError, match="has no get_config"):
        ds.saving.register_serializable("x")(type("NoConfig", (), {}))


def test_registry_names_match_keras():
    keras = _keras()

    def fn(x):
        return x

    for api in (keras.saving, ds.keras.saving):
        api.register_keras_serializable(package="cmp")(fn)
    assert ds.saving.get_registered_name(fn) == keras.saving.get_registered_name(fn) == "cmp>fn"
    assert ds.saving.get_registered_name(ds.layers.Dense) == keras.saving.get_registered_name(keras.layers.Dense)
    with keras.saving.custom_object_scope({"thing": fn}), ds.saving.custom_object_scope({"thing": fn}):
        assert keras.saving.get_registered_object("thing") is ds.saving.get_registered_object("thing") is fn
    assert ds.saving.get_registered_object("thing") is None


def test_custom_object_scope_nests_and_restores():
    def a(x):
        return x

    def b(x):
        return x

    with ds.saving.custom_object_scope({"a": a}):
        assert ds.saving.get_registered_object("a") is a
        with ds.saving.CustomObjectScope({"b": b}):  # as Keras: an inner scope replaces the outer one
            assert ds.saving.get_registered_object("b") is b and ds.saving.get_registered_object("a") is None
        assert ds.saving.get_registered_object("a") is a
    assert ds.saving.get_registered_object("a") is None


def test_serialize_keras_object_matches_keras_format():
    keras = _keras()
    for make in (lambda m: m.layers.Dense(3, activation="relu", name="d"),
                 lambda m: m.layers.Dense(3, kernel_regularizer=m.regularizers.L2(0.1), name="d"),
                 lambda m: m.initializers.GlorotUniform(seed=1), lambda m: m.optimizers.Adam(0.01),
                 lambda m: m.losses.MeanSquaredError()):
        ours, theirs = ds.saving.serialize_keras_object(make(ds.keras)), keras.saving.serialize_keras_object(make(keras))
        for key in ("module", "class_name", "registered_name"):
            assert ours[key] == theirs[key], (key, ours, theirs)
        if ours["class_name"] == "Dense":
            assert ours["config"]["dtype"] == theirs["config"]["dtype"]
            assert ours["config"]["activation"] == theirs["config"]["activation"]
            for k in ("kernel_initializer", "kernel_regularizer"):
                if theirs["config"][k] is not None:
                    assert {x: ours["config"][k][x] for x in ("module", "class_name", "registered_name")} == \
                        {x: theirs["config"][k][x] for x in ("module", "class_name", "registered_name")}
    # arrays, slices, Ellipsis, bytes as Keras writes them, and back
    value = {"a": np.arange(3, dtype=np.int32), "s": slice(1, None, 2), "e": Ellipsis, "b": b"x"}
    ours = ds.saving.serialize_keras_object(value)
    assert ours == keras.saving.serialize_keras_object(value)
    back = ds.saving.deserialize_keras_object(ours)
    assert np.array_equal(back["a"], value["a"]) and back["a"].dtype == np.int32
    assert back["s"] == value["s"] and back["e"] is Ellipsis and back["b"] == b"x"


def test_keras_reads_a_descend_layer_config():
    keras = _keras()
    config = ds.layers.serialize(ds.layers.Dense(3, activation="tanh", name="d", dtype="float64"))
    layer = keras.layers.deserialize(json.loads(json.dumps(config)))
    assert type(layer).__name__ == "Dense" and layer.units == 3 and layer.dtype == "float64"


def test_dtype_in_get_config_is_keras_policy_dict_and_both_forms_load():
    keras = _keras()
    for dtype in ("float32", "float64", "mixed_float16"):
        ours = ds.layers.Dense(2, dtype=dtype).get_config()["dtype"]
        assert ours == keras.layers.Dense(2, dtype=dtype).get_config()["dtype"]
        for given in (ours, dtype):
            layer = ds.layers.Dense.from_config({**ds.layers.Dense(2).get_config(), "dtype": given})
            assert layer.dtype_policy.name == dtype
    with pytest.raises(ValueError, match="DTypePolicy config"):
        ds.layers.Dense(2, dtype={"class_name": "Other", "config": {"name": "float32"}})


# --- custom objects in load_model and from_config (issue 23, item 12) ---------------------------------------
def my_act(x):
    return x * 3.0


def my_init(shape, dtype=None):
    return np.full(shape, 0.5, dtype=dtype)


def _custom_model():
    @ds.saving.register_serializable(package="item12")
    def reg_act(x):
        return x * 2.0

    ds.clear_session()
    inp = ds.keras.Input((3,))
    h = ds.layers.Dense(2, activation=my_act, kernel_initializer=my_init)(inp)
    return ds.Model(inp, ds.layers.Dense(2, activation=reg_act)(h)), reg_act


def test_custom_activation_and_initializer_functions_round_trip(tmp_path):
    model, reg_act = _custom_model()
    x = np.ones((2, 3), np.float32)
    config = model.get_config()
    with pytest.raises(ValueError, match="Unknown activation: 'my_act'"):
        ds.Model.from_config(config)
    custom = {"my_act": my_act, "my_init": my_init}
    for rebuilt in (ds.Model.from_config(config, custom_objects=custom),
                    ds.models.model_from_json(model.to_json(), custom_objects=custom)):
        dense = rebuilt.layers[1]
        assert dense.activation is my_act and dense.kernel_initializer is my_init
        assert rebuilt.layers[2].activation is reg_act  # registered: no custom_objects needed
        np.testing.assert_array_equal(dense.kernel.numpy(), np.full((3, 2), 0.5, np.float32))
    with ds.saving.custom_object_scope(custom):
        assert ds.Model.from_config(config).layers[1].activation is my_act
    model.save(tmp_path / "m")
    loaded = ds.models.load_model(tmp_path / "m", custom_objects=custom)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    with ds.saving.custom_object_scope(custom):
        np.testing.assert_array_equal(ds.models.load_model(tmp_path / "m").predict(x, verbose=0),
                                      model.predict(x, verbose=0))


def test_custom_activation_serializes_as_keras_does():
    keras = _keras()
    ours = ds.layers.Dense(2, activation=my_act).get_config()["activation"]
    assert ours == keras.layers.Dense(2, activation=my_act).get_config()["activation"]


# --- nested layers in configs (item 14) ------------------------------------------------------------------------
class Wrap(ds.layers.Layer):
    def __init__(self, inner, **kwargs):
        super().__init__(**kwargs)
        self.inner = inner

    def call(self, x):
        return self.inner(x)

    def get_config(self):
        return {**super().get_config(), "inner": self.inner}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        config["inner"] = ds.layers.deserialize(config["inner"])
        return cls(**config)


def test_a_layer_in_a_custom_config_is_written_as_its_config(tmp_path):
    model = ds.Sequential([ds.keras.Input((3,)), Wrap(ds.layers.Dense(2, name="inner"), name="wrap")])
    assert isinstance(model.layers[0].get_config()["inner"], ds.layers.Dense)  # get_config keeps it (as Keras)
    written = ds.saving.serialize_keras_object(model.layers[0])["config"]["inner"]
    assert written["class_name"] == "Dense" and written["config"]["name"] == "inner"
    model.save(tmp_path / "m")
    loaded = ds.models.load_model(tmp_path / "m", custom_objects={"Wrap": Wrap})
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert isinstance(loaded.layers[0].inner, ds.layers.Dense)


def test_nested_layer_serialization_matches_keras():
    keras = _keras()

    class KWrap(keras.layers.Layer):
        def __init__(self, inner, **kwargs):
            super().__init__(**kwargs)
            self.inner = inner

        def get_config(self):
            return {**super().get_config(), "inner": self.inner}

    ours = ds.saving.serialize_keras_object(Wrap(ds.layers.Dense(2, name="i"), name="w"))["config"]["inner"]
    theirs = keras.saving.serialize_keras_object(KWrap(keras.layers.Dense(2, name="i"), name="w"))["config"]["inner"]
    assert {k: ours[k] for k in ("module", "class_name", "registered_name")} == \
        {k: theirs[k] for k in ("module", "class_name", "registered_name")}
    assert ours["config"]["units"] == theirs["config"]["units"] == 2


# --- clone_model, to_json / model_from_json, layers.serialize / deserialize (item 13) ------------------------
def _functional():
    ds.clear_session()
    inp = ds.keras.Input((4,), name="x")
    shared = ds.layers.Dense(4, activation="relu", name="shared")
    h = shared(shared(inp))
    return ds.Model(inp, ds.layers.Dense(2, name="out")(h), name="net")


def test_clone_model_functional_sequential_and_subclassed():
    keras = _keras()
    model = _functional()
    copy = ds.models.clone_model(model)
    assert [la.name for la in copy.layers] == [la.name for la in model.layers]
    assert all(a is not b for a, b in zip(copy.layers[1:], model.layers[1:]))
    assert len(copy.weights) == len(model.weights) == 4  # the shared layer is cloned once
    copy.set_weights(model.get_weights())
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    np.testing.assert_array_equal(copy.predict(x, verbose=0), model.predict(x, verbose=0))
    # clone_function and call_function, as Keras
    widened = ds.models.clone_model(model, clone_function=lambda la: ds.layers.Dense(8, name=la.name)
                                    if la.name == "out" else la.__class__.from_config(la.get_config()))
    assert widened.output.shape == (None, 8)
    dropped = ds.models.clone_model(model, call_function=lambda la, *a, **k: ds.layers.Dropout(0.5)(la(*a, **k)))
    assert sum(isinstance(la, ds.layers.Dropout) for la in dropped.layers) == 3
    new_input = ds.keras.Input((4,), name="other")
    assert ds.models.clone_model(model, input_tensors=new_input).input is new_input
    seq = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2, name="d")])
    seq_copy = ds.models.clone_model(seq)
    assert seq_copy.built and [w.shape for w in seq_copy.weights] == [w.shape for w in seq.weights]
    with pytest.raises(ValueError, match="call_function"):
        ds.models.clone_model(seq, call_function=lambda la, *a: la(*a))

    class Sub(ds.Model):
        def __init__(self, units=2, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.d = ds.layers.Dense(units)

        def call(self, x):
            return self.d(x)

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    with ds.saving.custom_object_scope({"Sub": Sub}):
        assert ds.models.clone_model(Sub(units=5)).units == 5
    with pytest.raises(ValueError, match="subclassed"):
        ds.models.clone_model(Sub(), clone_function=lambda la: la)
    # Keras' clone of the same graph: the same layer names and output shape
    k_in = keras.Input((4,), name="x")
    k_shared = keras.layers.Dense(4, activation="relu", name="shared")
    k_model = keras.Model(k_in, keras.layers.Dense(2, name="out")(k_shared(k_shared(k_in))))
    k_copy = keras.models.clone_model(k_model)
    assert [la.name for la in k_copy.layers] == [la.name for la in copy.layers]
    assert len(k_copy.weights) == len(copy.weights)


def test_to_json_model_from_json_and_layers_serialize():
    model = _functional()
    text = model.to_json()
    config = json.loads(text)
    assert config["class_name"] == "Functional" and config["module"] == "keras.src.models.functional"
    again = ds.models.model_from_json(text)
    assert [la.name for la in again.layers] == [la.name for la in model.layers]
    assert ds.keras.models.model_from_json is ds.models.model_from_json
    assert ds.keras.models.clone_model is ds.models.clone_model
    assert ds.keras.layers.serialize is ds.layers.serialize and ds.keras.layers.deserialize is ds.layers.deserialize
    layer = ds.layers.deserialize(ds.layers.serialize(ds.layers.Conv2D(3, 2, name="c")))
    assert isinstance(layer, ds.layers.Conv2D) and layer.filters == 3
    zeros = ds.saving.serialize_keras_object(ds.initializers.Zeros())
    with pytest.raises(TypeError, match="unknown layer class 'Zeros'"):  # only layer classes are looked up
        ds.layers.deserialize(zeros)
    with pytest.raises(ValueError, match="does not describe a Layer"):
        ds.layers.deserialize(zeros, custom_objects={"Zeros": ds.initializers.Zeros})
    with pytest.raises(TypeError, match="unknown layer class 'Nope'"):
        ds.layers.deserialize({"class_name": "Nope", "config": {}})


# --- Sequential with an Input is built at construction; unbuilt models refuse save_weights -----------------------
def test_sequential_with_input_is_built_at_construction_as_keras():
    keras = _keras()
    k = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    ds.clear_session()
    ours = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2)])
    assert ours.built and k.built
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in k.weights]
    assert [w.path for w in ours.weights] == ["sequential/dense/kernel", "sequential/dense/bias"]
    lines = []
    ours.summary(print_fn=lines.append)
    assert "(None, 2)" in lines[0]
    k_legacy = keras.Sequential([keras.layers.Dense(2, input_shape=(3,))])
    legacy = ds.Sequential([ds.layers.Dense(2, input_shape=(3,))])
    assert legacy.built == k_legacy.built and len(legacy.weights) == len(k_legacy.weights)
    grown = ds.Sequential([ds.keras.Input((3,))])
    grown.add(ds.layers.Dense(5))
    assert grown.built and [tuple(w.shape) for w in grown.weights] == [(3, 5), (5,)]
    with pytest.raises(ValueError, match="cannot take a second Input"):
        grown.add(ds.keras.Input((3,)))


def test_saving_weights_of_an_unbuilt_model_is_refused(tmp_path):
    keras = _keras()
    with pytest.raises(ValueError, match="not yet been built"):
        keras.Sequential([keras.layers.Dense(2)]).save_weights(str(tmp_path / "k.weights.h5"))
    model = ds.Sequential([ds.layers.Dense(2)])
    with pytest.raises(ValueError, match="is not built yet"):
        model.save_weights(tmp_path / "w")
    assert not (tmp_path / "w").exists()
    model(np.ones((1, 3), np.float32))
    model.save_weights(tmp_path / "w")
    waiting = ds.Sequential([ds.layers.Dense(2)])
    waiting.load_weights(tmp_path / "w")  # deferred until its first call
    for save in (lambda: waiting.save_weights(tmp_path / "w2"), lambda: waiting.save(tmp_path / "m2")):
        with pytest.raises(ValueError, match="wait for its first call"):
            save()


def test_sequential_config_records_its_build_shape_and_rebuilds_built(tmp_path):
    keras = _keras()
    model = ds.Sequential([ds.layers.Dense(2)])
    model(np.ones((7, 3), np.float32))
    config = model.get_config()
    assert config["build_input_shape"] == [None, 3]
    k = keras.Sequential([keras.layers.Dense(2)])
    k(np.ones((7, 3), np.float32))
    assert "build_input_shape" in k.get_config()
    rebuilt = ds.Sequential.from_config(config)
    assert rebuilt.built and [tuple(w.shape) for w in rebuilt.weights] == [(3, 2), (2,)]
    model.save(tmp_path / "m")  # so a loaded model restores strictly, at once
    loaded = ds.models.load_model(tmp_path / "m")
    assert loaded.built and getattr(loaded, "_restored_checkpoint", None) is None
    for a, b in zip(loaded.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_version_1_files_still_load(tmp_path):
    """A model.json written before the Keras format (version 1: two-key layer entries, dtype strings)."""
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2, name="d")])
    model.compile(optimizer="adam", loss="mse")
    model.save(tmp_path / "m")
    spec = json.loads((tmp_path / "m" / "model.json").read_text())
    spec["version"] = 1
    spec["model"] = {"class_name": "Sequential", "registered_name": "Sequential",
                     "config": {"name": "sequential", "layers": [
                         {"class_name": "InputLayer", "config": {"name": "input_layer", "batch_shape": [None, 3],
                                                                 "dtype": "float32", "sparse": False}},
                         {"class_name": "Dense", "config": {"name": "d", "units": 2, "dtype": "float32",
                                                            "trainable": True}}]}}
    spec["compile"]["loss"] = {"function": "mean_squared_error"}
    (tmp_path / "m" / "model.json").write_text(json.dumps(spec))
    loaded = ds.models.load_model(tmp_path / "m")
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))


# ---------------------------------------------------------------------------------------------------------------
# issue 38, item 13: a bad weight in a .keras archive is named in its weights file, never blamed on config.json
# ---------------------------------------------------------------------------------------------------------------
def _archive_with(tmp_path, edit):
    import io
    import zipfile

    h5py = pytest.importorskip("h5py")
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(4), ds.layers.Dense(2)])
    model.compile(optimizer="adam", loss="mse")
    good = str(tmp_path / "good.keras")
    model.save(good)
    with zipfile.ZipFile(good) as z:
        members = {n: z.read(n) for n in z.namelist()}
    buf = io.BytesIO(members["model.weights.h5"])
    with h5py.File(buf, "a") as f:
        edit(f)
    members["model.weights.h5"] = buf.getvalue()
    path = str(tmp_path / "bad.keras")
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


def _replace(key, value):
    def edit(f):
        del f[key]
        f[key] = value
    return edit


def _delete(key):
    def edit(f):
        del f[key]
    return edit


BAD_WEIGHT_CASES = [  # (id, edit of model.weights.h5, what the error says)
    ("kernel-too-small", _replace("layers/dense/vars/0", np.zeros((2, 4), np.float32)),
     "layers/dense/vars/0: the file holds shape (2, 4) float32; it is weight 'kernel' of layer 'dense'"),
    ("kernel-too-big", _replace("layers/dense/vars/0", np.zeros((5, 4), np.float32)),
     "layers/dense/vars/0: the file holds shape (5, 4) float32; it is weight 'kernel' of layer 'dense'"),
    ("kernel-float16", _replace("layers/dense/vars/0", np.zeros((3, 4), np.float16)),
     "layers/dense/vars/0: the file holds shape (3, 4) float16; it is weight 'kernel' of layer 'dense'"),
    ("kernel-float64", _replace("layers/dense/vars/0", np.zeros((3, 4), np.float64)),
     "layers/dense/vars/0: the file holds shape (3, 4) float64; it is weight 'kernel' of layer 'dense'"),
    ("bias-missing", _delete("layers/dense/vars/1"),
     "layers/dense/vars/1: missing from the file; it is weight 'bias' of layer 'dense'"),
    ("layer-missing", _delete("layers/dense_1"),
     "layers/dense_1/vars/0: missing from the file; it is weight 'kernel' of layer 'dense_1'"),
    ("last-bias-missing", _delete("layers/dense_1/vars/1"),
     "layers/dense_1/vars/1: missing from the file; it is weight 'bias' of layer 'dense_1'"),
]


@pytest.mark.parametrize("edit,message", [pytest.param(*c[1:], id=c[0]) for c in BAD_WEIGHT_CASES])
def test_a_bad_weight_in_a_keras_archive_is_named_in_its_weights_file(tmp_path, edit, message):
    path = _archive_with(tmp_path, edit)
    with pytest.raises(ds.train.CheckpointMismatchError) as info:
        ds.keras.models.load_model(path)
    text = str(info.value)
    assert text.startswith(f"{path}: model.weights.h5 does not match model"), text
    assert message in text, text
    assert "config.json" not in text, text


def test_a_config_far_larger_than_its_weights_is_still_refused_before_allocating(tmp_path):
    """The second look that names a missing weight stays within a small multiple of the file's bytes: a
    config declaring a huge layer is refused as before, naming config.json."""
    import zipfile

    path = _archive_with(tmp_path, lambda f: None)
    with zipfile.ZipFile(path) as z:
        members = {n: z.read(n) for n in z.namelist()}
    config = json.loads(members["config.json"])
    config["config"]["layers"][-1]["config"]["units"] = 10**8
    members["config.json"] = json.dumps(config).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    with pytest.raises(ds.train.CheckpointError, match=r"config.json: layer 'dense_1' \(Dense\) declares a weight"):
        ds.keras.models.load_model(path)


# ---------------------------------------------------------------------------------------------------------------
# issue 38, item 15: a folder that is not a whole saved model
# ---------------------------------------------------------------------------------------------------------------
def _saved_model(tmp_path):
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2)])
    path = tmp_path / "model"
    model.save(str(path))
    return path


def _symlinked_state(tmp_path):
    path = _saved_model(tmp_path)
    os.rename(path / "state", tmp_path / "elsewhere")
    os.symlink(tmp_path / "elsewhere", path / "state")
    return path


def _checkpoint_folder(tmp_path):
    path = tmp_path / "ckpt"
    ds.train.Checkpoint(v=ds.Variable([1.0])).write(str(path))
    return path


FOLDER_CASES = [  # (id, make the folder, error class, what the message says)
    ("empty", lambda t: (t / "empty").mkdir() or t / "empty", FileNotFoundError,
     "is not a saved model: the folder is empty, but a model saved by model.save holds model.json and state/"),
    ("a-checkpoint", _checkpoint_folder, FileNotFoundError,
     "is not a saved model: the folder holds manifest.json, tensors.safetensors"),
    ("no-state", lambda t: (lambda p: (__import__("shutil").rmtree(p / "state"), p)[1])(_saved_model(t)),
     ds.train.CheckpointCorruptedError, "its state/ folder (the model's weights) is missing"),
    ("state-is-a-file", lambda t: (lambda p: (__import__("shutil").rmtree(p / "state"),
                                              (p / "state").write_text("x"), p)[2])(_saved_model(t)),
     ds.train.CheckpointCorruptedError, "its state/ folder (the model's weights) is not a folder"),
    ("no-model-json", lambda t: (lambda p: (os.remove(p / "model.json"), p)[1])(_saved_model(t)),
     ds.train.CheckpointCorruptedError, "holds state/ but no model.json"),
    ("state-is-a-link", _symlinked_state, ds.train.CheckpointCorruptedError,
     "state is a symbolic link (to "),
]


@pytest.mark.parametrize("make,cls,message", [pytest.param(*c[1:], id=c[0]) for c in FOLDER_CASES])
def test_load_model_on_a_folder_that_is_not_a_whole_saved_model(tmp_path, make, cls, message):
    path = make(tmp_path)
    with pytest.raises(cls) as info:
        ds.models.load_model(str(path))
    text = str(info.value)
    assert f"load_model: '{path}'" in text and message in text, text
    assert "[Errno" not in text, text
