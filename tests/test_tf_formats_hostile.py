"""Hostile, truncated and corrupted TensorFlow and Keras files, one table per format: every row is a clear error
that names the file and the field, allocates nothing the file does not hold, and changes nothing (the model's
variables and its optimizer are compared before and after). Then safe_mode and custom objects in ``.keras``
archives, as Keras: no code from a file runs unless the program allows it."""

from __future__ import annotations

import io
import json
import os
import shutil
import struct
import zipfile

import numpy as np
import pytest

import descend as ds
from descend.persistence.formats import keras_h5, sstable, tf_bundle, wire

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "tf_formats")
X = np.linspace(-1, 1, 32, dtype=np.float32).reshape(8, 4)
Y = np.linspace(1, -1, 16, dtype=np.float32).reshape(8, 2)


def _model():
    ds.clear_session()
    inp = ds.keras.Input((4,), name="x")
    h = ds.layers.Dense(5, activation="relu", name="d1")(inp)
    model = ds.Model(inp, ds.layers.Dense(2, name="d2")(h), name="functional_adam")
    model.compile(optimizer=ds.optimizers.Adam(0.01), loss="mse")
    return model


def _state(model):
    opt = model.optimizer
    return ([v.numpy().copy() for v in model.weights], int(opt.iterations.numpy()), opt.learning_rate,
            sorted(opt.pending_state()), [v.numpy().copy() for v in opt.variables])


def _same(a, b) -> bool:
    return (all(np.array_equal(x, y) for x, y in zip(a[0], b[0])) and a[1:4] == b[1:4]
            and all(np.array_equal(x, y) for x, y in zip(a[4], b[4])))


# --- .keras archives ------------------------------------------------------------------------------------------------
def _members(path) -> dict:
    with zipfile.ZipFile(path) as z:
        return {i.filename: z.read(i) for i in z.infolist()}


def _rezip(path, members: dict, infos: dict | None = None, compress=zipfile.ZIP_STORED) -> None:
    with zipfile.ZipFile(path, "w", compression=compress) as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name)
            info.compress_type = compress
            for k, v in (infos or {}).get(name, {}).items():
                setattr(info, k, v)
            z.writestr(info, data)


def _config_edit(fn):
    def mutate(path):
        members = _members(path)
        config = json.loads(members["config.json"])
        fn(config)
        members["config.json"] = json.dumps(config).encode()
        _rezip(path, members)
    return mutate


def _layers(config):
    return config["config"]["layers"]


def _patch_declared_size(path, name, size):
    """Write ``size`` as the member's uncompressed size in its local and central headers (a zip bomb's lie)."""
    data = bytearray(open(path, "rb").read())
    encoded = name.encode()
    for sig, size_at, name_len_at, name_at in ((b"PK\x03\x04", 22, 26, 30), (b"PK\x01\x02", 24, 28, 46)):
        pos = 0
        while (pos := data.find(sig, pos)) >= 0:
            n = struct.unpack_from("<H", data, pos + name_len_at)[0]
            if bytes(data[pos + name_at:pos + name_at + n]) == encoded:
                struct.pack_into("<I", data, pos + size_at, size)
            pos += 4
    open(path, "wb").write(bytes(data))


def _deflated_bomb(path):
    members = _members(path)
    _rezip(path, members, compress=zipfile.ZIP_DEFLATED)
    _patch_declared_size(path, "model.weights.h5", 0xFFFFFFF0)


def _garbage_weights(path):
    members = _members(path)
    members["model.weights.h5"] = b"\x89HDF\r\n\x1a\n" + b"\x00" * 100
    _rezip(path, members)


def _weights_shape(path):
    members = _members(path)
    buf = io.BytesIO()
    groups = keras_h5.read_groups(io.BytesIO(members["model.weights.h5"]), "w")
    groups["layers/dense_1/vars"]["0"] = np.zeros((5, 3), np.float32)
    keras_h5.write_groups(buf, list(groups.items()))
    members["model.weights.h5"] = buf.getvalue()
    _rezip(path, members)


def _asset_bomb(*names):
    """Assets deflated, each declaring 0xFFFFFFF0 bytes (a zip bomb's lie)."""
    def mutate(path):
        members = {**_members(path), **{n: b"\x00" * 4096 for n in names}}
        _rezip(path, members, compress=zipfile.ZIP_DEFLATED)
        for n in names:
            _patch_declared_size(path, n, 0xFFFFFFF0)
    return mutate


def _symlinked(path):
    target = path + ".real"
    os.rename(path, target)
    os.symlink(target, path)


KERAS_ROWS = [
    ("truncated", lambda p: open(p, "r+b").truncate(os.path.getsize(p) // 2), "not a .keras archive"),
    ("empty", lambda p: open(p, "wb").close(), "not a .keras archive"),
    ("zip_slip_member", lambda p: _rezip(p, {**_members(p), "../../evil.py": b"x"}), "'../../evil.py' has an absolute"),
    ("absolute_member", lambda p: _rezip(p, {**_members(p), "/etc/cron.d/x": b"x"}), "'/etc/cron.d/x' has an absolute"),
    ("symlink_member", lambda p: _rezip(p, {**_members(p), "assets/link": b"/etc/passwd"},
                                        {"assets/link": {"external_attr": (0o120777 << 16)}}), "is a symbolic link"),
    ("weights_missing", lambda p: _rezip(p, {k: v for k, v in _members(p).items() if k != "model.weights.h5"}),
     "has no model.weights.h5"),
    ("config_missing", lambda p: _rezip(p, {k: v for k, v in _members(p).items() if k != "config.json"}),
     "has no member 'config.json'"),
    ("zip_bomb", _deflated_bomb, "refused before inflating"),
    ("config_not_json", lambda p: _rezip(p, {**_members(p), "config.json": b"{not json"}), "config.json"),
    ("config_deep", lambda p: _rezip(p, {**_members(p), "config.json": b"[" * 5000 + b"]" * 5000}), "nests 5000 levels"),
    ("layer_names_os_system", _config_edit(lambda c: _layers(c)[1].update(module="os", class_name="system",
                                                                           registered_name="os>system")),
     "unknown layer class 'system'"),
    ("activation_names_a_module_function", _config_edit(
        lambda c: _layers(c)[1]["config"].update(activation={"module": "subprocess", "class_name": "function",
                                                             "config": "call", "registered_name": "function"})),
     "call"),
    ("lambda_bytecode", _config_edit(lambda c: _layers(c)[1].update(
        class_name="Lambda", config={"name": "d1", "function": {"class_name": "__lambda__",
                                                                "config": {"code": "YQ==", "defaults": None}}})),
     "safe_mode=False"),
    ("huge_units", _config_edit(lambda c: _layers(c)[1]["config"].update(units=2**31)), "declares a weight"),
    ("quantized_dense", _config_edit(lambda c: _layers(c)[1]["config"].update(quantization_config={"mode": "int8"})),
     "quantization_config"),
    ("optimizer_names_os_system", _config_edit(lambda c: c["compile_config"]["optimizer"].update(
        class_name="system", module="os")), "unknown optimizer class 'system'"),
    ("weighted_metric_names_os_system", _config_edit(lambda c: c["compile_config"].update(
        weighted_metrics=[{"class_name": "system", "module": "os", "config": {}}])), "unknown metric class 'system'"),
    ("weighted_metrics_not_a_list", _config_edit(lambda c: c["compile_config"].update(weighted_metrics=7)),
     "'weighted_metrics' must be a list"),
    ("asset_climbing_out", lambda p: _rezip(p, {**_members(p), "assets/../../evil.py": b"x"}),
     "'assets/../../evil.py' has an absolute"),
    ("asset_absolute", lambda p: _rezip(p, {**_members(p), "assets//etc/passwd": b"x"}), "not a plain path under"),
    ("asset_dot_part", lambda p: _rezip(p, {**_members(p), "assets/./x": b"x"}), "not a plain path under"),
    ("asset_symlink", lambda p: _rezip(p, {**_members(p), "assets/layers/d1/vocab": b"../../../../etc/passwd"},
                                       {"assets/layers/d1/vocab": {"external_attr": (0o120777 << 16)}}),
     "is a symbolic link"),
    ("asset_file_and_folder", lambda p: _rezip(p, {**_members(p), "assets/a": b"x", "assets/a/b": b"y"}),
     "cannot be placed"),
    ("asset_too_deep", lambda p: _rezip(p, {**_members(p), "assets/" + "d/" * 80 + "x": b"x"}),
     "not a plain path under"),
    ("asset_bomb", _asset_bomb("assets/huge.bin"), "refused before inflating"),
    ("assets_over_the_bound", _asset_bomb("assets/a.bin", "assets/b.bin"), "its assets declare"),
    ("build_config_negative", _config_edit(lambda c: _layers(c)[1].update(build_config={"input_shape": [None, -4]})),
     "at most 32 sizes"),
    ("build_config_huge", _config_edit(lambda c: _layers(c)[1].update(build_config={"input_shape": [None, 2**40]})),
     "declares a weight"),
    ("garbage_weights", _garbage_weights, "model.weights.h5"),
    ("weights_of_another_shape", _weights_shape, "layers/dense_1/vars/0"),
    ("symlinked_archive", _symlinked, "symbolic link"),
]


@pytest.mark.parametrize("name,mutate,text", KERAS_ROWS, ids=[r[0] for r in KERAS_ROWS])
def test_hostile_keras_archive(tmp_path, name, mutate, text):
    path = str(tmp_path / "m.keras")
    shutil.copy(os.path.join(DATA, "keras_functional.keras"), path)
    mutate(path)
    pwned = tmp_path / "pwned"
    with pytest.raises((ds.train.CheckpointError, ValueError)) as info:
        ds.keras.models.load_model(path)
    message = str(info.value)
    assert "m.keras" in message and text in message, message
    assert len(message) < 10000 and not pwned.exists()
    assert not os.path.exists(os.path.join(os.path.dirname(path), "..", "evil.py"))


def test_the_unmodified_archive_loads(tmp_path):
    shutil.copy(os.path.join(DATA, "keras_functional.keras"), tmp_path / "m.keras")
    assert ds.keras.models.load_model(tmp_path / "m.keras").built


# --- .weights.h5 ----------------------------------------------------------------------------------------------------
def _h5_rewrite(edit):
    def mutate(path):
        groups = keras_h5.read_groups(path, path)
        edit(groups)
        keras_h5.write_groups(path, list(groups.items()))
    return mutate


def _h5_raw(edit):
    def mutate(path):
        import h5py

        with h5py.File(path, "a") as f:
            edit(f)
    return mutate


def _negative_velocity(groups):
    groups["optimizer/vars"]["3"] = -np.ones_like(groups["optimizer/vars"]["3"])


H5_ROWS = [
    ("truncated", lambda p: open(p, "r+b").truncate(os.path.getsize(p) // 2), "m.weights.h5"),
    ("not_hdf5", lambda p: open(p, "wb").write(b"PK\x03\x04 not hdf5"), "not an HDF5 file"),
    ("wrong_shape", _h5_rewrite(lambda g: g["layers/dense/vars"].__setitem__("0", np.zeros((4, 6), np.float32))),
     "layers/dense/vars/0"),
    ("missing_variable", _h5_rewrite(lambda g: g["layers/dense_1/vars"].popitem()), "layers/dense_1/vars"),
    ("unexpected_group", _h5_rewrite(lambda g: g.__setitem__("layers/ghost/vars", {"0": np.ones(3, np.float32)})),
     "layers/ghost/vars"),
    ("optimizer_count", _h5_rewrite(lambda g: g["optimizer/vars"].popitem()), "optimizer/vars"),
    ("negative_velocity", _h5_rewrite(_negative_velocity), "must be >= 0"),
    ("nan_slot", _h5_rewrite(lambda g: g["optimizer/vars"]["2"].__setitem__((0, 0), np.nan)), "NaN"),
    ("huge_declared_shape", _h5_raw(lambda f: (f["layers/dense/vars"].__delitem__("0"),
                                              f["layers/dense/vars"].create_dataset("0", shape=(2**20, 2**20),
                                                                                    dtype="f4"))),
     "refused before reading"),
    ("compressed", _h5_raw(lambda f: (f["layers/dense/vars"].__delitem__("1"),
                                     f["layers/dense/vars"].create_dataset("1", data=np.zeros(5, np.float32),
                                                                           compression="gzip"))),
     "chunked or compressed"),
    ("soft_link", _h5_raw(lambda f: f["layers/dense/vars"].__setitem__("2", __import__("h5py").SoftLink("/vars"))),
     "is a link"),
    ("external_link", _h5_raw(lambda f: f.__setitem__("ext", __import__("h5py").ExternalLink("/etc/passwd", "/x"))),
     "is a link"),
    ("string_dataset", _h5_raw(lambda f: (f["layers/dense/vars"].__delitem__("1"),
                                         f["layers/dense/vars"].create_dataset("1", data=np.array([b"abc"])))),
     "a weight is a number"),
    ("wrong_names", _h5_raw(lambda f: f["layers/dense/vars"].move("1", "bias")), "the file holds 2 weights ['0', 'bias']"),
    ("symlinked_file", _symlinked, "symbolic link"),
]


@pytest.mark.parametrize("name,mutate,text", H5_ROWS, ids=[r[0] for r in H5_ROWS])
def test_hostile_weights_file(tmp_path, name, mutate, text):
    pytest.importorskip("h5py")
    path = str(tmp_path / "m.weights.h5")
    shutil.copy(os.path.join(DATA, "keras_functional.weights.h5"), path)
    mutate(path)
    model = _model()
    model.train_on_batch(X, Y)
    before = _state(model)
    with pytest.raises((ds.train.CheckpointError, ValueError)) as info:
        model.load_weights(path)
    message = str(info.value)
    assert "m.weights.h5" in message and text in message, message
    assert _same(_state(model), before)


def test_the_unmodified_weights_file_loads(tmp_path):
    model = _model()
    model.load_weights(os.path.join(DATA, "keras_functional.weights.h5"))
    assert int(model.optimizer.iterations.numpy()) == 3


# --- TensorFlow checkpoints ------------------------------------------------------------------------------------------
def _copy_tf(tmp_path, folder):
    target = tmp_path / folder
    shutil.copytree(os.path.join(DATA, folder), target)
    name = "ckpt-1" if folder.startswith("tf2") else "model.ckpt-3"
    return str(target / name)


def _rows_of(prefix):
    return sstable.decode_table(open(prefix + ".index", "rb").read(), "x")


def _rewrite_index(prefix, edit):
    rows = _rows_of(prefix)
    rows = edit(rows)
    open(prefix + ".index", "wb").write(sstable.encode_table(rows))


def _edit_entry(key, **changes):
    def mutate(prefix):
        def edit(rows):
            out = []
            for k, v in rows:
                if k == key.encode():
                    entry = wire.decode(v, tf_bundle.ENTRY, "e")
                    entry.update(changes)
                    v = wire.encode(entry, tf_bundle.ENTRY)
                out.append((k, v))
            return out
        _rewrite_index(prefix, edit)
    return mutate


def _edit_header(**changes):
    def mutate(prefix):
        def edit(rows):
            header = wire.decode(rows[0][1], tf_bundle.HEADER, "h")
            header.update(changes)
            return [(b"", wire.encode(header, tf_bundle.HEADER))] + rows[1:]
        _rewrite_index(prefix, edit)
    return mutate


def _flip_byte(suffix, at):
    def mutate(prefix):
        path = prefix + suffix
        data = bytearray(open(path, "rb").read())
        data[at if at >= 0 else len(data) + at] ^= 0xFF
        open(path, "wb").write(bytes(data))
    return mutate


def _snappy(prefix):
    data = bytearray(open(prefix + ".index", "rb").read())
    footer = len(data) - sstable.FOOTER_BYTES
    _, _, pos = sstable._handle(data, footer, len(data), "x")
    offset, size, _ = sstable._handle(data, pos, len(data), "x")
    data[offset + size] = 1  # the index block's compression byte: snappy
    open(prefix + ".index", "wb").write(bytes(data))


def _graph_edit(edit):
    def mutate(prefix):
        bundle = tf_bundle.TensorBundle(prefix)
        values = {k: bundle.read(k) for k in bundle.keys()}
        nodes = wire.decode(values[tf_bundle.OBJECT_GRAPH_KEY], tf_bundle.GRAPH, "g")["nodes"]
        values[tf_bundle.OBJECT_GRAPH_KEY] = edit(nodes)
        for k in os.listdir(os.path.dirname(prefix)):
            os.remove(os.path.join(os.path.dirname(prefix), k))
        tf_bundle.write_bundle(prefix, values)
    return mutate


def _bad_child(nodes):
    nodes[0]["children"][0]["node_id"] = 10**6
    return wire.encode({"nodes": nodes}, tf_bundle.GRAPH)


def _missing_value(nodes):
    for n in nodes:
        for a in n["attributes"]:
            a["checkpoint_key"] = "nowhere/.ATTRIBUTES/VARIABLE_VALUE"
    return wire.encode({"nodes": nodes}, tf_bundle.GRAPH)


_KERNEL1 = "optimizer/_trainable_variables/0/.ATTRIBUTES/VARIABLE_VALUE"
TF2_ROWS = [
    ("index_truncated", lambda p: open(p + ".index", "r+b").truncate(30), "footer"),
    ("index_magic", _flip_byte(".index", -1), "footer magic"),
    ("index_block_corrupted", _flip_byte(".index", 40), "checksum"),
    ("snappy_block", _snappy, "snappy-compressed"),
    ("data_truncated", lambda p: open(p + ".data-00000-of-00001", "r+b").truncate(100), "runs past the end"),
    ("data_byte_flipped", _flip_byte(".data-00000-of-00001", 20), "fails its checksum"),
    ("data_missing", lambda p: os.remove(p + ".data-00000-of-00001"), "is missing"),
    ("huge_declared_shape", _edit_entry(_KERNEL1, shape={"dim": [{"size": 2**40}, {"size": 2**40}]}), "takes"),
    ("size_past_the_file", _edit_entry(_KERNEL1, shape={"dim": [{"size": 2**20}]}, size=4 * 2**20),
     "runs past the end"),
    ("negative_dim", _edit_entry(_KERNEL1, shape={"dim": [{"size": -1}]}), "negative size"),
    ("resource_dtype", _edit_entry(_KERNEL1, dtype=20), "resource"),
    ("bfloat16_dtype", _edit_entry(_KERNEL1, dtype=14), "bfloat16"),
    ("shard_out_of_range", _edit_entry(_KERNEL1, shard_id=5), "shard_id"),
    ("partitioned", _edit_entry(_KERNEL1, slices=[{"extent": [{"start": 0, "length": 2}]}]), "partitioned"),
    ("num_shards_huge", _edit_header(num_shards=2**30), "num_shards"),
    ("big_endian", _edit_header(endianness=1), "big-endian"),
    ("newer_bundle_version", _edit_header(version={"producer": 9, "min_consumer": 9}), "bundle version"),
    ("entry_not_protobuf", lambda p: _rewrite_index(p, lambda rows: rows[:2] + [(rows[2][0], b"\xff\xff\xff")] + rows[3:]),
     "varint"),
    ("graph_child_out_of_range", _graph_edit(_bad_child), "refers to node"),
    ("graph_value_missing", _graph_edit(_missing_value), "is not in the checkpoint"),
    ("graph_not_protobuf", _graph_edit(lambda nodes: b"\x0a\xff\xff\xff\xff\x0f"), "TrackableObjectGraph"),
    ("index_symlink", lambda p: (os.rename(p + ".index", p + ".real"), os.symlink(p + ".real", p + ".index")),
     "symbolic link"),
    ("data_symlink", lambda p: (os.rename(p + ".data-00000-of-00001", p + ".real"),
                                os.symlink(p + ".real", p + ".data-00000-of-00001")), "symbolic link"),
]


@pytest.mark.parametrize("name,mutate,text", TF2_ROWS, ids=[r[0] for r in TF2_ROWS])
def test_hostile_tf2_checkpoint(tmp_path, name, mutate, text):
    prefix = _copy_tf(tmp_path, "tf2_functional")
    mutate(prefix)
    model = _model()
    model.train_on_batch(X, Y)
    before = _state(model)
    with pytest.raises((ds.train.CheckpointError, FileNotFoundError)) as info:
        ds.train.Checkpoint(model=model, optimizer=model.optimizer).read(prefix)
    message = str(info.value)
    assert "ckpt-1" in message and text in message, message
    assert _same(_state(model), before)


def _tf1_graph():
    v1 = ds.compat.v1
    v1.reset_default_graph()
    ds.clear_session()
    variables = []
    for scope, shape in (("dense", (4, 3)), ("out", (3, 2))):
        with v1.variable_scope(scope):
            variables += [v1.get_variable("kernel", shape), v1.get_variable("bias", shape[1:])]
    step = v1.train.get_or_create_global_step()
    return variables + [step], v1.train.AdamOptimizer(0.05)


TF1_ROWS = [
    ("index_truncated", lambda p: open(p + ".index", "r+b").truncate(60), "model.ckpt-3.index"),
    ("data_byte_flipped", _flip_byte(".data-00000-of-00001", 3), "fails its checksum"),
    ("data_truncated", lambda p: open(p + ".data-00000-of-00001", "r+b").truncate(10), "runs past the end"),
    ("slot_of_another_shape", _edit_entry("dense/kernel/Adam_1", shape={"dim": [{"size": 3}, {"size": 4}]}),
     "dense/kernel/Adam_1"),
    ("variable_of_another_dtype", _edit_entry("out/bias", dtype=2, size=16), "out/bias"),
    ("huge_declared_shape", _edit_entry("global_step", shape={"dim": [{"size": 2**62}]}), "takes"),
]


@pytest.mark.parametrize("name,mutate,text", TF1_ROWS, ids=[r[0] for r in TF1_ROWS])
def test_hostile_tf1_checkpoint(tmp_path, name, mutate, text):
    prefix = _copy_tf(tmp_path, "tf1_adam")
    mutate(prefix)
    variables, opt = _tf1_graph()
    before = [v.numpy().copy() for v in variables]
    with pytest.raises((ds.train.CheckpointError, FileNotFoundError)) as info:
        ds.compat.v1.train.Saver().restore(None, prefix)
    message = str(info.value)
    assert "model.ckpt-3" in message and text in message, message
    assert all(np.array_equal(v.numpy(), b) for v, b in zip(variables, before))
    assert opt.pending_state() == []


def test_the_unmodified_tf_checkpoints_restore(tmp_path):
    variables, opt = _tf1_graph()
    ds.compat.v1.train.Saver().restore(None, _copy_tf(tmp_path, "tf1_adam"))
    assert int(variables[-1].numpy()) == 3 and len(opt.pending_state()) == 10
    model = _model()
    ds.train.Checkpoint(model=model, optimizer=model.optimizer).read(_copy_tf(tmp_path, "tf2_functional"))


# --- safe_mode and custom objects in .keras archives -----------------------------------------------------------------
def test_a_lambda_in_an_archive_runs_only_with_safe_mode_false(tmp_path):
    ds.clear_session()
    inp = ds.keras.Input((3,))
    model = ds.Model(inp, ds.layers.Lambda(lambda x: x * 3.0)(inp))
    model.save(tmp_path / "lam.keras")
    with pytest.raises(ds.train.CheckpointError, match="safe_mode=False"):
        ds.keras.models.load_model(tmp_path / "lam.keras")
    loaded = ds.keras.models.load_model(tmp_path / "lam.keras", safe_mode=False)
    np.testing.assert_array_equal(loaded.predict(np.ones((1, 3), np.float32), verbose=0), [[3.0, 3.0, 3.0]])


def test_custom_layers_resolve_through_the_registry_or_custom_objects(tmp_path):
    class Scale(ds.layers.Layer):
        def __init__(self, factor=2.0, **kwargs):
            super().__init__(**kwargs)
            self.factor = factor

        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.w * self.factor

        def get_config(self):
            return {**super().get_config(), "factor": self.factor}

    ds.clear_session()
    inp = ds.keras.Input((3,))
    model = ds.Model(inp, Scale(4.0, name="scale")(inp))
    model.weights[0].assign([1.0, 2.0, 3.0])
    model.save(tmp_path / "c.keras")
    with pytest.raises(ds.train.CheckpointError, match="unknown layer class 'Scale'"):
        ds.keras.models.load_model(tmp_path / "c.keras")
    loaded = ds.keras.models.load_model(tmp_path / "c.keras", custom_objects={"Scale": Scale})
    np.testing.assert_array_equal(loaded.weights[0].numpy(), [1.0, 2.0, 3.0])
    ds.saving.register_serializable(package="formats_test")(Scale)
    try:
        model = ds.Model(inp, Scale(4.0)(inp))
        model.save(tmp_path / "r.keras")
        assert json.loads(_members(tmp_path / "r.keras")["config.json"])["config"]["layers"][1]["registered_name"] \
            == "formats_test>Scale"
        assert ds.keras.models.load_model(tmp_path / "r.keras").layers[1].factor == 4.0
    finally:
        ds.saving.get_custom_objects().pop("formats_test>Scale", None)


def test_keras_made_custom_layer_and_lambda_archives(tmp_path):
    """An archive Keras wrote with a registered custom layer and one with a lambda: descend finds the layer by
    its registered name and refuses the lambda's code unless safe_mode=False."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    keras = pytest.importorskip("keras")

    @keras.saving.register_keras_serializable(package="kfmt")
    class KScale(keras.layers.Layer):
        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.w

    inp = keras.Input((3,))
    k = keras.Model(inp, KScale()(keras.layers.Lambda(lambda x: x + 1.0)(inp)))
    k.layers[-1].w.assign([1.0, 2.0, 3.0])
    k.save(tmp_path / "k.keras")

    @ds.saving.register_serializable(package="kfmt")
    class KScale(ds.layers.Layer):  # noqa: F811 -- descend's class of the same registered name
        def build(self, input_shape):
            self.w = self.add_weight(name="w", shape=(input_shape[-1],), initializer="ones")

        def call(self, x):
            return x * self.w

    try:
        with pytest.raises(ds.train.CheckpointError, match="safe_mode=False"):
            ds.keras.models.load_model(tmp_path / "k.keras")
        model = ds.keras.models.load_model(tmp_path / "k.keras", safe_mode=False)
        x = np.ones((2, 3), np.float32)
        np.testing.assert_array_equal(model.predict(x, verbose=0), k.predict(x, verbose=0))
    finally:
        ds.saving.get_custom_objects().pop("kfmt>KScale", None)
