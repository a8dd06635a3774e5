"""descend's own checkpoints show TensorFlow's keys: ``list_variables``, ``load_checkpoint(...).keys()`` and
``get_tensor`` name each value as ``tf.train.list_variables`` names it for the same objects (the object graph's
first path breadth first + ``/.ATTRIBUTES/VARIABLE_VALUE``, ``save_counter``, ``_CHECKPOINTABLE_OBJECT_GRAPH``),
in the default format as in ``format="tensorflow"``; descend-only state under its object in TensorFlow's style;
checkpoints descend wrote before (keyed by descend's paths) still restore and list their paths.

The expected keys are TensorFlow 2.21's for the same programs (``test_tensorflow_shows_the_same_keys`` runs
them where TensorFlow is installed)."""

import base64
import json
import os
import shutil

import numpy as np
import pytest

import descend as ds
from descend.persistence.checkpoint.descend_format import canonical, sha256
from descend.persistence.formats import tf_bundle

DATA = os.path.join(os.path.dirname(__file__), "data", "checkpoint_v2_descend_paths")
V = "/.ATTRIBUTES/VARIABLE_VALUE"
GRAPH = "_CHECKPOINTABLE_OBJECT_GRAPH"
X = np.linspace(-1, 1, 15, dtype=np.float32).reshape(5, 3)
Y = np.zeros((5, 2), np.float32)


# ------------------------------------------------------------------ the programs, written once for both libraries
def keras_model_and_optimizer(tf, keras):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(2)])
    opt = keras.optimizers.Adam(0.01)
    for _ in range(3):
        with tf.GradientTape() as t:
            loss = tf.reduce_mean((model(X) - Y) ** 2)
        grads = t.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
    return tf.train.Checkpoint(model=model, optimizer=opt)


def nested(tf, keras):
    return tf.train.Checkpoint(net=tf.train.Checkpoint(bias=tf.Variable([1.0, 2.0])),
                               step=tf.Variable(3, dtype=tf.int64))


def module_with_lists_and_dicts(tf, keras):
    class Sub(tf.Module):
        def __init__(self):
            super().__init__()
            self.b = tf.Variable(0.5)

    class Mod(tf.Module):
        def __init__(self):
            super().__init__()
            self.w = tf.Variable([[1.0, 2.0]])
            self.items = [tf.Variable(1.0), tf.Variable([2.0, 3.0])]
            self.table = {"a": tf.Variable(4.0), "sub": Sub()}

    return tf.train.Checkpoint(mod=Mod())


def two_paths(tf, keras):
    v = tf.Variable([5.0])
    return tf.train.Checkpoint(a={"x": v}, b=v)  # b is nearer the root: TF keys it there


def two_paths_in_a_module(tf, keras):
    class Two(tf.Module):
        def __init__(self):
            super().__init__()
            self.v = tf.Variable(1.0)
            self.also = [self.v]

    return tf.train.Checkpoint(m=Two())


def compiled_model_after_fit(tf, keras):
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(2)])
    model.compile(optimizer="sgd", loss="mse")
    model.fit(X, Y, epochs=1, verbose=0)
    return tf.train.Checkpoint(model=model)


def compiled_adam_model(keras, seed=0):
    keras.utils.set_random_seed(seed)
    model = keras.Sequential([keras.Input((3,)), keras.layers.Dense(4), keras.layers.Dense(2)])
    model.compile(optimizer=keras.optimizers.Adam(0.01), loss="mse")
    return model


def fit(model, epochs):
    model.fit(X, Y, epochs=epochs, batch_size=5, shuffle=False, verbose=0)


def compiled_model_only(tf, keras):  # TensorFlow tracks model.optimizer: the checkpoint holds it
    model = compiled_adam_model(keras)
    fit(model, 2)
    return tf.train.Checkpoint(model=model)


def compiled_model_and_its_optimizer(tf, keras):  # one object on two paths: saved once, under the nearer
    model = compiled_adam_model(keras)
    fit(model, 2)
    return tf.train.Checkpoint(model=model, optimizer=model.optimizer)


ADAM = ["optimizer/_iterations", "optimizer/_learning_rate"] + [
    f"optimizer/_trainable_variables/{i}" for i in range(4)] + [f"optimizer/_variables/{i}" for i in range(2, 10)]
# TensorFlow 2.21's tf.train.list_variables for each program: (keys less /.ATTRIBUTES/VARIABLE_VALUE, shapes)
CASES = {
    "keras_model_and_optimizer": (keras_model_and_optimizer, {
        **{k: () for k in ADAM[:2]}, ADAM[2]: (3, 4), ADAM[3]: (4,), ADAM[4]: (4, 2), ADAM[5]: (2,),
        **dict(zip(ADAM[6:], [(3, 4), (3, 4), (4,), (4,), (4, 2), (4, 2), (2,), (2,)]))}),
    "nested": (nested, {"net/bias": (2,), "step": ()}),
    "module_with_lists_and_dicts": (module_with_lists_and_dicts, {
        "mod/items/0": (), "mod/items/1": (2,), "mod/table/a": (), "mod/table/sub/b": (), "mod/w": (1, 2)}),
    "two_paths": (two_paths, {"b": (1,)}),
    "two_paths_in_a_module": (two_paths_in_a_module, {"m/v": ()}),
    "compiled_model_only": (compiled_model_only, {
        **{"model/" + k: () for k in ADAM[:2]}, "model/" + ADAM[2]: (3, 4), "model/" + ADAM[3]: (4,),
        "model/" + ADAM[4]: (4, 2), "model/" + ADAM[5]: (2,),
        **dict(zip(["model/" + k for k in ADAM[6:]], [(3, 4), (3, 4), (4,), (4,), (4, 2), (4, 2), (2,), (2,)]))}),
}
CASES["compiled_model_and_its_optimizer"] = (compiled_model_and_its_optimizer, CASES["keras_model_and_optimizer"][1])
#: descend's optimizer state that Keras 3 keeps as Python numbers (its config), keyed in TensorFlow's style
ADAM_OWN = {"optimizer/.ATTRIBUTES/hyper:beta_1", "optimizer/.ATTRIBUTES/hyper:beta_2",
            "optimizer/.ATTRIBUTES/hyper:epsilon", "optimizer/.ATTRIBUTES/skipped_steps"}


def _tf_listing(values: dict) -> dict:
    out = {k + V: shape for k, shape in values.items()}
    out.update({GRAPH: (), "save_counter" + V: ()})
    return out


@pytest.mark.parametrize("fmt", ["descend", "tensorflow"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_list_variables_shows_tensorflows_keys(tmp_path, case, fmt):
    ds.keras.utils.set_random_seed(0)
    make, values = CASES[case]
    ckpt = make(ds, ds.keras)
    path = ckpt.save(os.path.join(tmp_path, "ckpt"), format=fmt)
    listed = ds.train.list_variables(path)
    assert [k for k, _ in listed] == sorted(k for k, _ in listed)  # sorted by key, as TensorFlow lists them
    got = dict(listed)
    own = {k for k in got if "/.ATTRIBUTES/" in k and not k.endswith(V)}
    adam_own = {"model/" + k for k in ADAM_OWN} if case == "compiled_model_only" else ADAM_OWN
    assert own == (adam_own if ("optimizer" in case or "compiled" in case) and fmt == "descend" else set())
    assert {k: s for k, s in got.items() if k not in own} == _tf_listing(values)
    reader = ds.train.load_checkpoint(str(tmp_path))  # the folder: its newest checkpoint
    assert reader.get_variable_to_shape_map() == got and sorted(reader.keys()) == sorted(got)
    assert reader.get_tensor("save_counter" + V) == 1
    graph = tf_bundle.ObjectGraph(reader.get_tensor(GRAPH), GRAPH, 1 << 20)
    named = {a["checkpoint_key"] for i in range(len(graph)) for a in graph[i]["attributes"]}
    assert named == set(got) - {GRAPH}  # the graph names every value by its key


def test_values_are_found_by_tensorflows_keys(tmp_path):
    ds.keras.utils.set_random_seed(0)
    ckpt = keras_model_and_optimizer(ds, ds.keras)
    model, opt = ckpt.model, ckpt.optimizer
    reader = ds.train.load_checkpoint(ckpt.write(os.path.join(tmp_path, "ckpt")))
    kernel = model.layers[0].kernel
    assert np.array_equal(reader.get_tensor("optimizer/_trainable_variables/0" + V), kernel.numpy())
    assert np.array_equal(reader.get_tensor("optimizer/_variables/2" + V), opt.get_slot(kernel, "m").numpy())
    assert np.array_equal(reader.get_tensor("optimizer/_variables/3" + V), opt.get_slot(kernel, "v").numpy())
    assert reader.get_tensor("optimizer/_iterations" + V) == 3
    assert reader.get_variable_to_dtype_map()["optimizer/_iterations" + V] == np.int64
    assert reader.get_tensor("optimizer/.ATTRIBUTES/hyper:beta_1") == 0.9


def test_descend_only_state_is_keyed_in_tensorflows_style(tmp_path):
    it = iter(ds.data.Dataset.range(10))
    next(it)
    rng = np.random.default_rng(1)
    path = ds.train.Checkpoint(it=it, rng=rng, w=ds.Variable([1.0])).save(os.path.join(tmp_path, "ckpt"))
    reader = ds.train.load_checkpoint(path)  # the iterator's state under TensorFlow's name for it
    assert reader.keys() == [GRAPH, "it/.ATTRIBUTES/ITERATOR_STATE", "rng/.ATTRIBUTES/state", "save_counter" + V,
                             "w" + V]
    for name, attr in (("it", "ITERATOR_STATE"), ("rng", "state")):  # the JSON state, as its JSON text's bytes
        raw = reader.get_tensor(f"{name}/.ATTRIBUTES/{attr}")  # (TensorFlow's strings are bytes)
        assert isinstance(raw, bytes) and json.loads(raw) == reader.json_state(name)["state"]
        assert reader.get_variable_to_shape_map()[f"{name}/.ATTRIBUTES/{attr}"] == ()
        assert reader.get_variable_to_dtype_map()[f"{name}/.ATTRIBUTES/{attr}"] == np.dtype(object)
    assert reader.json_state("rng")["state"]["bit_generator"] == "PCG64"
    graph = tf_bundle.ObjectGraph(reader.get_tensor(GRAPH), GRAPH, 1 << 20)
    named = {(a["name"], a["checkpoint_key"]) for i in range(len(graph)) for a in graph[i]["attributes"]}
    assert ("ITERATOR_STATE", "it/.ATTRIBUTES/ITERATOR_STATE") in named  # the graph names the attribute so too


def test_an_iterator_saved_under_the_old_name_still_reads_and_restores(tmp_path):
    """descend wrote ``it/.ATTRIBUTES/state`` before: its manifest's ``tf_json_keys`` named it so (the one
    difference from a checkpoint written now, made here by rewriting that field); it lists and restores."""
    it = iter(ds.data.Dataset.range(10))
    next(it), next(it)
    path = ds.train.Checkpoint(it=it).save(os.path.join(tmp_path, "ckpt"))
    _forge(path, _set("tf_json_keys", {"it/.ATTRIBUTES/state": ["it", "state"]}))
    reader = ds.train.load_checkpoint(path)
    assert reader.keys() == [GRAPH, "it/.ATTRIBUTES/state", "save_counter" + V]
    assert json.loads(reader.get_tensor("it/.ATTRIBUTES/state"))["position"] == 2
    fresh = iter(ds.data.Dataset.range(10))
    ds.train.Checkpoint(it=fresh).restore(path).assert_consumed()
    assert int(next(fresh)) == 2


def test_a_value_kept_for_a_variable_not_created_yet_keeps_its_key(tmp_path):
    ds.keras.utils.set_random_seed(0)
    first = keras_model_and_optimizer(ds, ds.keras).write(os.path.join(tmp_path, "one"))
    fresh = ds.keras.Sequential([ds.keras.layers.Dense(4), ds.keras.layers.Dense(2)])  # not built
    ckpt = ds.train.Checkpoint(model=fresh, optimizer=ds.keras.optimizers.Adam(0.01))
    ckpt.restore(first)  # the variables wait to be created, the optimizer's slots for its first step
    second = ckpt.write(os.path.join(tmp_path, "two"))
    one, two = ds.train.load_checkpoint(first), ds.train.load_checkpoint(second)
    assert one.keys() == two.keys()
    for key in one.keys():
        if key != GRAPH:
            assert np.array_equal(one.get_tensor(key), two.get_tensor(key)), key


# ------------------------------------------------------------------ checkpoints written before this change
def _expected():
    with np.load(os.path.join(DATA, "values.npz")) as f:
        return {k.replace("|", "/"): f[k] for k in f.files}


def test_a_checkpoint_written_before_restores_and_lists_its_paths(tmp_path):
    """Written by main's code before the manifest recorded TensorFlow's keys (tests/data/.../make.py)."""
    folder = shutil.copytree(DATA, os.path.join(tmp_path, "old"))
    want = _expected()
    reader = ds.train.load_checkpoint(folder)  # the folder's `checkpoint` file names ckpt-1
    assert reader.keys() == sorted(k for k in want if k != "rng_next")  # descend's paths, as written
    assert "model/layers/0/kernel" in reader.keys() and "optimizer/model/layers/0/kernel/m" in reader.keys()
    ds.clear_session()
    model = ds.Sequential([ds.layers.Dense(3), ds.layers.Dense(2)])
    model(X[:1])
    opt, rng = ds.optimizers.Adam(0.05), np.random.default_rng(0)
    step = ds.Variable(np.int64(0), name="step", trainable=False)
    ckpt = ds.train.Checkpoint(model=model, optimizer=opt, rng=rng, step=step, alias={"k": model.layers[0].kernel})
    status = ckpt.restore(os.path.join(folder, "ckpt-1"))
    status.assert_existing_objects_matched()
    assert ckpt.save_counter == 1 and int(step.numpy()) == 2 and int(opt.iterations.numpy()) == 2
    for i, layer in enumerate(model.layers):
        assert np.array_equal(layer.kernel.numpy(), want[f"model/layers/{i}/kernel"])
        assert np.array_equal(layer.bias.numpy(), want[f"model/layers/{i}/bias"])
    opt.apply_gradients(zip([ds.zeros_like(w) for w in model.trainable_variables], model.trainable_variables))
    kernel = model.layers[0].kernel
    np.testing.assert_allclose(opt.get_slot(kernel, "m").numpy(), want["optimizer/model/layers/0/kernel/m"] * 0.9,
                               rtol=1e-6)  # the restored moment, decayed by a step with zero gradients
    assert np.array_equal(rng.random(2), want["rng_next"])  # the generator continues where it was saved
    again = ckpt.save(os.path.join(tmp_path, "new", "ckpt"))  # a new save: TensorFlow's keys
    keys = ds.train.load_checkpoint(again).keys()  # the first kernel is nearest the root as alias/k (TF's rule)
    assert "alias/k" + V in keys and "optimizer/_trainable_variables/1" + V in keys and "step" + V in keys
    assert not any(k.startswith("model/") for k in keys)  # the optimizer reaches every variable first


# ------------------------------------------------------------------ hostile manifests
def _forge(path, edit):
    mpath = os.path.join(path, "manifest.json")
    manifest = json.loads(open(mpath).read())
    edit(manifest)
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    manifest["manifest_sha256"] = sha256(canonical(body))  # a consistent forgery: the checksum agrees
    with open(mpath, "w") as f:
        f.write(json.dumps(manifest))


def _set(field, value):
    return lambda m: m.__setitem__(field, value)


FORGED = {
    "tf_keys not a dict": (_set("tf_keys", ["w"]), "tf_keys"),
    "tf_keys leaves a tensor out": (_set("tf_keys", {}), "leaves out \\['w'\\]"),
    "tf_keys names no tensor": (lambda m: m["tf_keys"].update(ghost="g" + V), "that are not tensors"),
    "two tensors one key": (lambda m: m["tf_keys"].update(u="w" + V), "tf_keys"),
    "a tensor keyed as the graph": (_set("tf_keys", {"u": GRAPH, "w": "w" + V}), "gives two values"),
    "tf_json_keys to nothing": (_set("tf_json_keys", {"x/.ATTRIBUTES/state": ["x", "state"]}), "tf_json_keys"),
    "tf_json_keys malformed": (_set("tf_json_keys", {"x": "rng"}), "tf_json_keys"),
    "graph not base64": (_set("tf_object_graph", "%%%"), "tf_object_graph"),
    "graph missing": (lambda m: m.pop("tf_object_graph"), "tf_object_graph"),
}


@pytest.mark.parametrize("case", sorted(FORGED))
def test_forged_key_fields_are_refused_naming_the_field(tmp_path, case):
    edit, match = FORGED[case]
    w, u = ds.Variable([1.0], name="w"), ds.Variable([2.0], name="u")
    path = ds.train.Checkpoint(w=w).write(os.path.join(tmp_path, "ckpt"))
    if case in ("two tensors one key", "a tensor keyed as the graph"):  # two tensors, one forged
        path = ds.train.Checkpoint(w=w, u=u).write(os.path.join(tmp_path, "ckpt"))
    _forge(path, edit)
    with pytest.raises(ds.train.CheckpointCorruptedError, match=match):
        ds.train.load_checkpoint(path)
    w.assign([0.0])
    ds.train.Checkpoint(w=w).restore(path)  # the keys shown are not what a restore matches by: it restores
    assert w.numpy()[0] == 1.0


def test_the_object_graph_field_is_bounded_and_checked(tmp_path):
    path = ds.train.Checkpoint(w=ds.Variable([1.0])).write(os.path.join(tmp_path, "ckpt"))
    _forge(path, _set("tf_object_graph", base64.b64encode(b"\xff" * 7).decode()))
    raw = ds.train.load_checkpoint(path).get_tensor(GRAPH)  # handed over as written, as TensorFlow's reader does
    assert raw == b"\xff" * 7


# ------------------------------------------------------------------ TensorFlow, live
@pytest.mark.parametrize("fmt", ["descend", "tensorflow"])
@pytest.mark.parametrize("case", sorted(CASES) + ["compiled_model_after_fit"])
def test_tensorflow_shows_the_same_keys(tmp_path, case, fmt):
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    make = CASES[case][0] if case in CASES else compiled_model_after_fit
    keras.utils.set_random_seed(0)
    theirs = dict((k, tuple(s)) for k, s in tf.train.list_variables(make(tf, keras).save(str(tmp_path / "tf" / "c"))))
    ds.keras.utils.set_random_seed(0)
    ours = dict(ds.train.list_variables(make(ds, ds.keras).save(str(tmp_path / "ds" / "c"), format=fmt)))
    if case in CASES:
        assert theirs == _tf_listing(CASES[case][1])  # the goldens above are TensorFlow's
    if fmt == "tensorflow":  # TensorFlow's bundle: exactly TensorFlow's listing (a compiled model's optimizer too)
        assert ours == theirs
        return
    own = {k for k in ours if "/.ATTRIBUTES/" in k and not k.endswith(V)}  # descend's own optimizer constants
    assert {k: s for k, s in ours.items() if k not in own} == theirs  # a compiled model's optimizer too


# ------------------------------------------------------------------ a compiled model's optimizer, restored with it
def _same_weights(a, b):
    return all(np.array_equal(x.numpy(), y.numpy()) for x, y in zip(a.weights, b.weights))


RESUMES = {  # how the model to resume is made before the restore: each restores Checkpoint(model=model) only
    "built and compiled": lambda: compiled_adam_model(ds.keras, seed=1),  # Adam's slots not made yet: they wait
    "stepped once": lambda: _stepped(compiled_adam_model(ds.keras, seed=1)),  # slots exist: assigned at once
}


def _stepped(model):
    fit(model, 1)
    return model


@pytest.mark.parametrize("fmt", ["descend", "tensorflow"])
@pytest.mark.parametrize("how", sorted(RESUMES))
def test_a_compiled_models_optimizer_resumes_bit_for_bit(tmp_path, how, fmt):
    """``Checkpoint(model=model)`` alone: the model's optimizer (steps, Adam's moments) comes back with it, so
    training on from the checkpoint gives the uninterrupted run's weights to the bit (TensorFlow's behaviour)."""
    run = compiled_adam_model(ds.keras)
    fit(run, 2)
    path = ds.train.Checkpoint(model=run).save(os.path.join(tmp_path, "ckpt"), format=fmt)
    fit(run, 2)  # the uninterrupted run
    resumed = RESUMES[how]()
    status = ds.train.Checkpoint(model=resumed).restore(path)
    assert int(resumed.optimizer.iterations.numpy()) == 2
    if how == "built and compiled":  # no slots yet: Adam's moments wait for them
        with pytest.raises(KeyError, match="no slots"):
            resumed.optimizer.get_slot(resumed.layers[0].kernel, "m")
    fit(resumed, 2)  # the waiting slots land when the first step creates them
    status.assert_consumed()
    assert int(resumed.optimizer.iterations.numpy()) == 4
    assert _same_weights(run, resumed)


def test_without_the_optimizer_the_resumed_run_differs(tmp_path):
    """The check above can fail: restoring the weights alone (a fresh optimizer) ends elsewhere."""
    run = compiled_adam_model(ds.keras)
    fit(run, 2)
    path = ds.train.Checkpoint(model=ds.persistence.checkpoint.trackable.WithoutOptimizer(run)).save(
        os.path.join(tmp_path, "ckpt"))
    fit(run, 2)
    resumed = compiled_adam_model(ds.keras, seed=1)
    ds.train.Checkpoint(model=resumed).restore(path)
    assert int(resumed.optimizer.iterations.numpy()) == 0
    fit(resumed, 2)
    assert not _same_weights(run, resumed)


@pytest.mark.parametrize("fmt", ["descend", "tensorflow"])
@pytest.mark.parametrize("saved_with, restored_with", [("model", "both"), ("both", "model")])
def test_the_optimizer_restores_through_either_path(tmp_path, saved_with, restored_with, fmt):
    """Saved as ``Checkpoint(model=m)`` (``model/optimizer``) or ``Checkpoint(model=m, optimizer=m.optimizer)``
    (``optimizer``, once), restored through the other: the same state arrives."""
    def roots(model, which):
        return {"model": model, **({"optimizer": model.optimizer} if which == "both" else {})}

    run = compiled_adam_model(ds.keras)
    fit(run, 2)
    path = ds.train.Checkpoint(**roots(run, saved_with)).save(os.path.join(tmp_path, "ckpt"), format=fmt)
    fit(run, 1)
    resumed = _stepped(compiled_adam_model(ds.keras, seed=1))
    ds.train.Checkpoint(**roots(resumed, restored_with)).restore(path).assert_consumed()
    assert int(resumed.optimizer.iterations.numpy()) == 2
    fit(resumed, 1)
    assert _same_weights(run, resumed)


def test_an_optimizer_on_two_paths_is_saved_once(tmp_path):
    model = compiled_adam_model(ds.keras)
    fit(model, 1)
    path = ds.train.Checkpoint(model=model, optimizer=model.optimizer).save(os.path.join(tmp_path, "ckpt"))
    manifest = json.loads(open(os.path.join(path, "manifest.json")).read())
    assert [p for p in manifest["objects"] if "optimizer" in p] == ["optimizer"]  # one object, one state
    assert manifest["aliases"]["model/optimizer"] == "optimizer"  # the second path, recorded
    keys = ds.train.load_checkpoint(path).keys()
    assert not any(k.startswith("model/optimizer") for k in keys)
    assert sum(k.startswith("optimizer/_variables/") for k in keys) == 8  # Adam's 8 moments, once each


def test_weights_only_saves_leave_the_optimizer_out(tmp_path):
    """Keras' weights-only files (``save_weights`` to descend's folder, ``model.save(include_optimizer=False)``)
    hold no optimizer, so a model compiled otherwise, or not at all, reads them strictly."""
    model = compiled_adam_model(ds.keras)
    fit(model, 1)
    model.save_weights(os.path.join(tmp_path, "w"))
    assert not any("optimizer" in k for k in ds.train.load_checkpoint(os.path.join(tmp_path, "w")).keys())
    plain = ds.keras.Sequential([ds.keras.Input((3,)), ds.keras.layers.Dense(4), ds.keras.layers.Dense(2)])
    assert plain.load_weights(os.path.join(tmp_path, "w")).complete
    assert _same_weights(model, plain)


def test_tensorflows_checkpoint_of_a_compiled_model_restores_its_optimizer(tmp_path):
    """TensorFlow writes ``Checkpoint(model=m)`` after ``fit``; descend's ``Checkpoint(model=m)`` restores the
    weights, the step and Adam's moments (checked against TensorFlow's values)."""
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    theirs = compiled_adam_model(keras)
    fit(theirs, 2)
    path = tf.train.Checkpoint(model=theirs).save(str(tmp_path / "tf" / "c"))
    ours = _stepped(compiled_adam_model(ds.keras, seed=1))
    ds.train.Checkpoint(model=ours).restore(path).assert_consumed()
    assert int(ours.optimizer.iterations.numpy()) == 2
    assert all(np.array_equal(a.numpy(), np.asarray(b)) for a, b in zip(ours.weights, theirs.weights))
    kernel = ours.layers[0].kernel
    m, v = theirs.optimizer._momentums[0], theirs.optimizer._velocities[0]  # Keras 3's lists for the 1st kernel
    assert np.array_equal(ours.optimizer.get_slot(kernel, "m").numpy(), np.asarray(m))
    assert np.array_equal(ours.optimizer.get_slot(kernel, "v").numpy(), np.asarray(v))


def test_tensorflow_restores_descends_checkpoint_of_a_compiled_model(tmp_path):
    """The other way: descend writes ``Checkpoint(model=m)`` in TensorFlow's format; TensorFlow's
    ``Checkpoint(model=m)`` restores the weights, the step and Adam's moments into its compiled model."""
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    ours = compiled_adam_model(ds.keras)
    fit(ours, 2)
    path = ds.train.Checkpoint(model=ours).save(str(tmp_path / "ds" / "c"), format="tensorflow")
    theirs = _stepped(compiled_adam_model(keras, seed=1))  # its slots exist: TensorFlow assigns them at once
    tf.train.Checkpoint(model=theirs).restore(path).assert_consumed()
    assert int(theirs.optimizer.iterations.numpy()) == 2
    assert all(np.array_equal(a.numpy(), np.asarray(b)) for a, b in zip(ours.weights, theirs.weights))
    kernel = ours.layers[0].kernel
    assert np.array_equal(np.asarray(theirs.optimizer._momentums[0]), ours.optimizer.get_slot(kernel, "m").numpy())
    assert np.array_equal(np.asarray(theirs.optimizer._velocities[0]), ours.optimizer.get_slot(kernel, "v").numpy())
