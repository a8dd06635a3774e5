"""Hostile and careless model.json files, one row each, for a functional and a Sequential model:
every row raises a CheckpointError (a ValueError) naming model.json, imports and calls nothing the
program did not register, allocates nothing the saved state cannot hold, and restores nothing.
Then: no module outside descend is imported by a load (in a fresh process), the memory bound
holds under RLIMIT_AS, a lambda loads only with safe_mode=False, and a deferred restore into a
model of another shape fails every time and restores nothing."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import descend as ds
from descend.persistence import checkpoint_errors as errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@ds.saving.register_serializable(package="hostile_tests")
def double(x):
    return x * 2.0


def _saved(tmp_path):
    """A functional and a Sequential model (Dense -> registered Lambda -> Dense), saved; returns their folders."""
    ds.clear_session()
    inp = ds.keras.Input(shape=(3,), name="x")
    h = ds.layers.Dense(4, name="h")(inp)
    out = ds.layers.Dense(2, name="o")(ds.layers.Lambda(double, name="lam")(h))
    functional = ds.Model(inp, out)
    functional.compile(optimizer="adam", loss="mse", metrics=["mae"])
    functional.save(tmp_path / "f")
    seq = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(4, name="h"), ds.layers.Lambda(double, name="lam"),
                         ds.layers.Dense(2, name="o")])
    seq.compile(optimizer="sgd", loss="mse")
    seq.save(tmp_path / "s")
    return {"f": tmp_path / "f", "s": tmp_path / "s"}


def _layers(spec):
    return spec["model"]["config"]["layers"]


def _lambda(fn, arguments=None):
    def mutate(spec):
        for entry in _layers(spec):
            if entry["class_name"] == "Lambda":
                entry["config"]["function"] = fn
                if arguments is not None:
                    entry["config"]["arguments"] = arguments
    return mutate


def _on_dense(key, value):
    def mutate(spec):
        _layers(spec)[1]["config"][key] = value
    return mutate


def _five_big_dense(spec):
    layers = _layers(spec)
    for i in range(5):
        entry = copy.deepcopy(layers[1])
        entry["config"].update(units=10**8, name=f"big{i}")
        entry["name"] = f"big{i}"
        layers.insert(2 + i, entry)


def _add_layer(spec):
    layers = _layers(spec)
    extra = copy.deepcopy(layers[-1])
    extra["config"].update(name="extra", units=2)
    layers.append(extra)


def _repeat_huge(spec):
    entry = _layers(spec)[2]
    entry.update(class_name="RepeatVector", config={"name": "lam", "n": 2**33})


PIPEPAGER = {"module": "pydoc", "class_name": "function", "config": "pipepager", "registered_name": "pipepager"}
# (name, which models, mutation, the text the message must hold)
ROWS = [
    ("lambda_runs_a_shell_command", "fs", _lambda(PIPEPAGER, {"cmd": "touch {pwned}"}), "unknown function 'pydoc.pipepager'"),
    ("lambda_names_a_module_to_import", "fs", _lambda({"module": "this", "class_name": "function", "config": "x"}),
     "unknown function 'this.x'"),
    ("lambda_old_style_os_system", "fs", _lambda({"class_name": "function", "module": "os", "config": "system"}),
     "unknown function 'os.system'"),
    ("lambda_bytecode_in_safe_mode", "fs",
     _lambda({"class_name": "__lambda__", "config": {"code": "YQ==", "defaults": None}}), "safe_mode=False"),
    ("layer_class_names_a_submodule", "fs", lambda s: _layers(s)[1].update(class_name="base"),
     "unknown layer class 'base'"),
    ("layer_class_names_numpy", "fs", lambda s: _layers(s)[1].update(class_name="np"), "unknown layer class 'np'"),
    ("layer_class_is_a_dunder", "fs", lambda s: _layers(s)[1].update(class_name="__class__"), "'__class__'"),
    ("registered_name_os_system", "fs",
     lambda s: _layers(s)[1].update(registered_name="os>system", module="os", class_name="system"),
     "unknown layer class 'system'"),
    ("initializer_function_os_system", "fs",
     _on_dense("kernel_initializer", {"class_name": "function", "config": "os.system", "module": "os"}),
     "Unknown initializer function 'os.system'"),
    ("activation_eval", "fs", _on_dense("activation", "eval"), "Unknown activation: 'eval'"),
    ("dtype_policy_garbage", "fs", _on_dense("dtype", {"class_name": "os.system", "config": {"name": "ls"}}),
     "DTypePolicy config"),
    ("units_two_billion", "fs", _on_dense("units", 2**31), "layer 'h' (Dense) declares a weight 'kernel'"),
    ("units_float", "fs", _on_dense("units", 2e9), "`units` must be a positive integer. Received: units=2000000000.0"),
    ("input_shape_two_to_the_40", "f", lambda s: _layers(s)[0]["config"].update(batch_shape=[None, 2**40]),
     "at most 256.0 MiB"),
    ("input_shape_two_to_the_40", "s", lambda s: _layers(s)[0]["config"].update(batch_shape=[None, 2**40]),
     "at most 256.0 MiB"),
    ("input_shape_strings", "f", lambda s: _layers(s)[0]["config"].update(batch_shape=["a", "b"]),
     "needs a 'batch_shape'"),
    ("five_dense_of_1e8_units", "s", _five_big_dense, "layer 'big0' (Dense) declares a weight 'kernel'"),
    ("repeat_vector_of_2_to_the_33", "f", _repeat_huge, "layer 'lam' (RepeatVector)"),
    ("sequential_layer_added", "s", _add_layer, "layer 'extra' (Dense) declares a weight"),
    ("sequential_layer_dropped", "s", lambda s: _layers(s).pop(1), "is incompatible with the layer"),
    ("sequential_build_shape_huge", "s",
     lambda s: (_layers(s).pop(0), s["model"]["config"].update(build_input_shape=[None, 2**40])),
     "at most 256.0 MiB"),
    ("version_99", "fs", lambda s: s.update(version=99), "model format version 99"),
    ("version_not_a_number", "fs", lambda s: s.update(version="2"), "field 'version'"),
    ("unknown_loss_function", "fs", lambda s: s["compile"].update(loss={"class_name": "function", "config": "nope"}),
     "unknown loss function 'nope'"),
    ("unknown_loss_class", "fs", lambda s: s["compile"].update(loss={"class_name": "Nope", "config": {}}),
     "unknown loss class 'Nope'"),
    ("unknown_metric_class", "f", lambda s: s["compile"].update(metrics=[{"class_name": "Nope", "config": {}}]),
     "unknown metric class 'Nope'"),
    ("unknown_metric_name", "f", lambda s: s["compile"].update(metrics=["nope"]), "Unknown metric 'nope'"),
    ("weighted_metrics_not_a_list", "fs", lambda s: s["compile"].update(weighted_metrics="mae"),
     "'weighted_metrics' must be a list"),
    ("weighted_metric_class_os_system", "fs",
     lambda s: s["compile"].update(weighted_metrics=[{"class_name": "system", "module": "os", "config": {}}]),
     "unknown metric class 'system'"),
    ("optimizer_class_os_system", "fs", lambda s: s["compile"]["optimizer"].update(class_name="system", module="os"),
     "unknown optimizer class 'system'"),
    ("model_entry_is_a_layer", "f", lambda s: s.update(model=_layers(s)[1]), "describes a Dense, not a model"),
    ("call_refers_to_unknown_layer", "f",
     lambda s: _layers(s)[1]["inbound_nodes"][0]["args"][0]["config"].update(keras_history=["ghost", 0, 0]),
     "unknown layer 'ghost'"),
    ("output_index_out_of_range", "f", lambda s: s["model"]["config"].update(output_layers=["o", 5, 0]),
     "which the layers do not produce"),
    ("output_reference_garbage", "f", lambda s: s["model"]["config"].update(output_layers="o"),
     "'output_layers' must be"),
    ("inbound_nodes_garbage", "f", lambda s: _layers(s)[1].update(inbound_nodes=[{"args": "x"}]),
     "each inbound node must be"),
    ("layers_not_a_list", "fs", lambda s: s["model"]["config"].update(layers={"a": 1}), "list"),
    ("model_field_missing", "fs", lambda s: s.pop("model"), "field 'model'"),
]


def _rows():
    for name, which, mutate, text in ROWS:
        for w in which:
            yield pytest.param(name, w, mutate, text, id=f"{name}-{'functional' if w == 'f' else 'sequential'}")


@pytest.mark.parametrize("name,which,mutate,text", list(_rows()))
def test_hostile_model_config(tmp_path, name, which, mutate, text):
    folders = _saved(tmp_path)
    target = tmp_path / "hostile"
    shutil.copytree(folders[which], target)
    spec = json.loads((target / "model.json").read_text())
    mutate(spec)
    pwned = tmp_path / "pwned"
    (target / "model.json").write_text(json.dumps(spec).replace("{pwned}", str(pwned)))
    before = set(sys.modules)
    with pytest.raises(ds.train.CheckpointError) as info:
        model = ds.models.load_model(target)
        model.predict(np.ones((1, 3), np.float32), verbose=0)  # a Sequential model may still build here
    message = str(info.value)
    assert text in message and "model.json" in message, message
    assert len(message) <= errors.MAX_MESSAGE
    assert not pwned.exists()
    assert not {m for m in set(sys.modules) - before if not m.startswith("descend")}


def test_the_unmodified_files_load(tmp_path):
    folders = _saved(tmp_path)
    for path in folders.values():
        model = ds.models.load_model(path)
        assert model.predict(np.ones((1, 3), np.float32), verbose=0).shape == (1, 2)


def test_huge_deep_and_linked_model_json_are_refused_without_parsing(tmp_path):
    folders = _saved(tmp_path)
    for name, write in (("deep", lambda p: p.write_bytes(b"[" * 100_000 + b"]" * 100_000)),
                        ("huge", lambda p: open(p, "wb").truncate(ds.saving.MAX_CONFIG_BYTES + 1))):
        target = tmp_path / name
        shutil.copytree(folders["f"], target)
        write(target / "model.json")
        with pytest.raises(ds.train.CheckpointCorruptedError, match="model.json"):
            ds.models.load_model(target)
    target = tmp_path / "linked"
    shutil.copytree(folders["f"], target)
    os.replace(target / "model.json", tmp_path / "elsewhere.json")
    os.symlink(tmp_path / "elsewhere.json", target / "model.json")
    with pytest.raises(ds.train.CheckpointCorruptedError, match="symbolic link"):
        ds.models.load_model(target)


_AUDIT = r"""
import json, os, sys
sys.path[:0] = [{root!r}, {tests!r}]
import numpy as np
import descend as ds
import descend.saving, descend.models, descend.train, descend.layers, descend.losses, descend.metrics
from test_model_config_hostile import ROWS, _saved
import pathlib, shutil, tempfile
tmp = pathlib.Path(tempfile.mkdtemp())
folders = _saved(tmp)
for f in folders.values():  # what loading a good file imports may be imported before the audit starts
    ds.models.load_model(f).predict(np.ones((1, 3), np.float32), verbose=0)
before = set(sys.modules)
outcomes = []
for i, (name, which, mutate, text) in enumerate(ROWS):
    for w in which:
        target = tmp / f"{{i}}{{w}}"
        shutil.copytree(folders[w], target)
        spec = json.loads((target / "model.json").read_text())
        mutate(spec)
        (target / "model.json").write_text(json.dumps(spec).replace("{{pwned}}", str(tmp / "pwned")))
        try:
            ds.models.load_model(target).predict(np.ones((1, 3), np.float32), verbose=0)
            outcomes.append("loaded")
        except ds.train.CheckpointError:
            outcomes.append("refused")
print(json.dumps({{"new": sorted(set(sys.modules) - before), "outcomes": outcomes,
                  "pwned": (tmp / "pwned").exists()}}))
"""


def test_a_load_imports_nothing_outside_descend():
    """In a fresh process: loading every hostile file imports no module (outside descend) that loading
    the unmodified files had not imported, and runs no command."""
    r = subprocess.run([sys.executable, "-c", _AUDIT.format(root=ROOT, tests=os.path.join(ROOT, "tests"))], capture_output=True, text=True,
                       timeout=300, cwd=ROOT)
    assert r.returncode == 0, r.stderr[-3000:]
    result = json.loads(r.stdout.strip().splitlines()[-1])
    assert set(result["outcomes"]) == {"refused"}
    assert [m for m in result["new"] if not m.startswith("descend")] == []
    assert not result["pwned"]


_LIMITED = r"""
import json, resource, sys
sys.path.insert(0, {root!r})
import numpy as np
import descend as ds
import descend.saving, descend.models, descend.train
resource.setrlimit(resource.RLIMIT_AS, (3 << 29, 3 << 29))  # 1.5 GiB of address space from here on
out = []
for path in {paths!r}:
    try:
        ds.models.load_model(path).predict(np.ones((1, 3), np.float32), verbose=0)
        out.append("loaded")
    except ds.train.CheckpointError as e:
        out.append(type(e).__name__ + ": " + str(e)[:200])
    except MemoryError as e:
        out.append("MemoryError")
print(json.dumps(out))
"""


def test_declared_sizes_are_refused_under_an_address_space_limit(tmp_path):
    """The memory bound of load_model (weights within what state/ holds, probes within 256 MiB, any
    MemoryError reported naming the layer) holds in a process limited to 1.5 GiB of address space."""
    folders = _saved(tmp_path)
    paths = []
    for name, which, mutate, _ in ROWS:
        if name in ("units_two_billion", "input_shape_two_to_the_40", "five_dense_of_1e8_units",
                    "repeat_vector_of_2_to_the_33", "sequential_build_shape_huge"):
            for w in which:
                target = tmp_path / f"{name}-{w}"
                shutil.copytree(folders[w], target)
                spec = json.loads((target / "model.json").read_text())
                mutate(spec)
                (target / "model.json").write_text(json.dumps(spec))
                paths.append(str(target))
    r = subprocess.run([sys.executable, "-c", _LIMITED.format(root=ROOT, paths=paths)], capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert len(out) == len(paths) >= 7
    assert all(o.startswith("CheckpointError: ") and "model.json" in o for o in out), out


def test_a_lambda_loads_with_safe_mode_false_only(tmp_path):
    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((2,)), ds.layers.Lambda(lambda x: x * 3.0 + 1.0)])
    model.save(tmp_path / "m")
    with pytest.raises(ds.train.CheckpointError, match="safe_mode=False"):
        ds.models.load_model(tmp_path / "m")
    loaded = ds.models.load_model(tmp_path / "m", safe_mode=False)
    np.testing.assert_array_equal(loaded.predict(np.ones((1, 2), np.float32), verbose=0), [[4.0, 4.0]])
    with pytest.raises(ValueError, match="safe_mode=False"):  # every entry point is safe by default
        ds.models.model_from_json(model.to_json())
    with pytest.raises(ValueError, match="safe_mode=False"):
        ds.layers.deserialize(ds.layers.serialize(model.layers[-1]))
    with pytest.raises(ValueError, match="safe_mode=False"):
        ds.saving.deserialize_keras_object(ds.saving.serialize_keras_object(model))
    with pytest.raises(ValueError, match="safe_mode=False"):
        ds.layers.Lambda.from_config(model.layers[-1].get_config())
    assert ds.models.model_from_json(model.to_json(), safe_mode=False).layers[-1].function(2.0) == 7.0


def test_a_named_function_is_found_by_name_never_imported(tmp_path):
    def triple(x):
        return x * 3.0

    ds.clear_session()
    model = ds.Sequential([ds.keras.Input((2,)), ds.layers.Lambda(triple)])
    model.save(tmp_path / "m")
    with pytest.raises(ds.train.CheckpointError, match="unknown function 'triple'"):
        ds.models.load_model(tmp_path / "m")
    for loaded in (ds.models.load_model(tmp_path / "m", custom_objects={"triple": triple}),
                   ds.models.model_from_json(model.to_json(), custom_objects={"triple": triple})):
        assert loaded.layers[-1].function is triple


def test_model_from_json_hostile_strings():
    for text, match in (("[" * 10_000 + "]" * 10_000, "nests 10000 levels"), ("not json", "not valid JSON"),
                        ("[1, 2]", "not a model config"),
                        (json.dumps({"class_name": "system", "module": "os", "config": {}}), "unknown model class"),
                        ("x" * (ds.saving.MAX_CONFIG_BYTES + 1), "at most")):
        with pytest.raises((ValueError, TypeError), match=match):
            ds.models.model_from_json(text)


# --- deferred restores: all or nothing ----------------------------------------------------------------------------
@pytest.mark.parametrize("sizes", [[2, 2], [4, 3]], ids=["first_layer_differs", "second_layer_differs"])
@pytest.mark.parametrize("how", ["load_weights", "checkpoint"])
def test_deferred_restore_into_another_shape_fails_every_call_and_restores_nothing(tmp_path, sizes, how):
    x = np.ones((2, 5), np.float32)
    saved = ds.Sequential([ds.layers.Dense(4), ds.layers.Dense(2)])
    saved(x)
    saved.save_weights(tmp_path / "w")
    model = ds.Sequential([ds.layers.Dense(sizes[0], kernel_initializer="zeros"),
                           ds.layers.Dense(sizes[1], kernel_initializer="zeros")])
    if how == "load_weights":
        assert model.load_weights(tmp_path / "w").deferred
    else:
        ckpt = ds.train.Checkpoint(model=model)
        assert ckpt.read(tmp_path / "w").deferred
    for _ in range(3):
        with pytest.raises(ds.train.CheckpointMismatchError, match="Nothing from this checkpoint was restored"):
            model(x)
    assert all(not np.any(w) for w in model.get_weights())  # the zeros they were created with


def test_deferred_restore_that_fits_restores_everything(tmp_path):
    x = np.ones((2, 5), np.float32)
    saved = ds.Sequential([ds.layers.Dense(4), ds.layers.Dense(2)])
    saved(x)
    saved.save_weights(tmp_path / "w")
    model = ds.Sequential([ds.layers.Dense(4), ds.layers.Dense(2)])
    model.load_weights(tmp_path / "w")  # the Checkpoint is kept until the first call creates the variables
    import gc

    gc.collect()
    np.testing.assert_array_equal(model(x).numpy(), saved(x).numpy())
    for a, b in zip(model.get_weights(), saved.get_weights()):
        np.testing.assert_array_equal(a, b)
