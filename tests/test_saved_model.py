"""``descend.saved_model``: round trips of a Module's Variables and traced functions (values, writes, gradients),
refused saves, a hostile-file table, and the variables of a TF SavedModel."""

import importlib
import json
import os

import numpy as np
import pytest

import descend as ds
from descend.persistence.checkpoint_errors import CheckpointCorruptedError

load_module = importlib.import_module("descend.saved_model.load")  # the module (the package's `load` is the function)


class Dense(ds.Module):
    def __init__(self):
        super().__init__()
        self.w = ds.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        self.b = ds.Variable([0.5, -0.5], name="b")
        self.steps = ds.Variable(0, trainable=False, name="steps")

    @ds.function(input_signature=[ds.TensorSpec([2, 2], ds.float32)])
    def __call__(self, x):
        self.steps.assign_add(1)
        return ds.nn.relu(ds.matmul(x, self.w) + self.b) * 2.0

    @ds.function
    def loss(self, x, y):
        return ds.reduce_mean(ds.square(self(x) - y))


class Shapes(ds.Module):
    def __init__(self):
        super().__init__()
        self.v = ds.Variable(np.arange(6, dtype=np.float32).reshape(2, 3))

    @ds.function
    def __call__(self, x):
        t = ds.transpose(self.v) * x
        return ds.reduce_sum(ds.reshape(t, [3, 2]), axis=1), ds.cast(ds.argmax(t, axis=0), ds.float32)


X = ds.constant([[1.0, -1.0], [0.5, 2.0]])
Y = ds.constant([[1.0, 0.0], [0.0, 1.0]])
# (label, module factory, calls: list of (function name, args)) ; each function is traced by the first call
CASES = [
    ("dense", Dense, [("__call__", (X,)), ("loss", (X, Y))]),
    ("shapes", Shapes, [("__call__", (ds.constant(2.0),))]),
]


def _run(obj, calls):
    out = []
    for name, args in calls:
        r = getattr(obj, name)(*args)
        out.extend(np.asarray(t.numpy()) for t in (r if isinstance(r, tuple) else (r,)))
    return out


@pytest.mark.parametrize("label,make,calls", CASES, ids=[c[0] for c in CASES])
def test_round_trip_values_and_variables(tmp_path, label, make, calls):
    m = make()
    expected = _run(m, calls)
    ds.saved_model.save(m, tmp_path)
    loaded = ds.saved_model.load(tmp_path)
    assert [(v.trainable, v.dtype.name, v.shape) for v in loaded.variables] == \
        [(v.trainable, v.dtype.name, v.shape) for v in m.variables]
    for a, b in zip(loaded.variables, m.variables, strict=True):
        assert a.name.startswith(b.name)  # the name saved (made unique in this process, as any new Variable)
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    for a, b in zip(_run(loaded, calls), expected, strict=True):
        np.testing.assert_array_equal(a, b)


def test_loaded_writes_go_to_the_loaded_variables(tmp_path):
    m = Dense()
    m(X)
    ds.saved_model.save(m, tmp_path)
    loaded = ds.saved_model.load(tmp_path)
    steps = [v for v in loaded.variables if v.name.startswith("steps")][0]
    before = int(steps.numpy())
    loaded(X)
    loaded(X)
    assert int(steps.numpy()) == before + 2 and int(m.steps.numpy()) == before


def test_gradients_through_a_loaded_function(tmp_path):
    m = Dense()
    m.loss(X, Y)
    ds.saved_model.save(m, tmp_path)
    loaded = ds.saved_model.load(tmp_path)
    with ds.GradientTape() as tape:
        ours = loaded.loss(X, Y)
    g_loaded = tape.gradient(ours, loaded.trainable_variables)
    with ds.GradientTape() as tape:
        theirs = m.loss(X, Y)
    g_orig = tape.gradient(theirs, m.trainable_variables)
    for a, b in zip(g_loaded, g_orig, strict=True):
        np.testing.assert_allclose(a.numpy(), b.numpy())
    assert any(np.abs(g.numpy()).sum() > 0 for g in g_loaded)


def test_no_trace_for_these_arguments(tmp_path):
    m = Dense()
    m(X)
    ds.saved_model.save(m, tmp_path)
    with pytest.raises(TypeError, match="no saved trace takes arguments"):
        ds.saved_model.load(tmp_path)(ds.constant([[1.0, 2.0, 3.0]]))


# ------------------------------------------------------------------ saves refused (nothing written)
class Branchy(ds.Module):
    def __init__(self):
        super().__init__()
        self.v = ds.Variable(1.0)

    @ds.function
    def __call__(self, x):
        if ds.reduce_sum(x) > 0:
            x = x * self.v
        return x


@ds.custom_gradient
def _clipped(x):
    return ds.identity(x), lambda g: ds.clip_by_value(g, -1.0, 1.0)


class Custom(ds.Module):
    def __init__(self):
        super().__init__()
        self.v = ds.Variable(1.0)

    @ds.function
    def __call__(self, x):
        return _clipped(x * self.v)


_STRAY = ds.Variable(3.0, name="stray")


class Stray(ds.Module):
    @ds.function
    def __call__(self, x):
        return x * _STRAY


REFUSED = [("cond", Branchy, "'cond' node"), ("custom_gradient", Custom, "custom_gradient function"),
           ("untracked_variable", Stray, "does not track")]


@pytest.mark.parametrize("label,make,match", REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_saves_write_nothing(tmp_path, label, make, match):
    m = make()
    m(ds.constant([1.0, 2.0]))
    with pytest.raises(ValueError, match=match):
        ds.saved_model.save(m, tmp_path / "out")
    assert not (tmp_path / "out").exists()


class Unknown(ds.Module):
    def __init__(self):
        super().__init__()
        self.v = ds.Variable(2.0)

    @ds.function(input_signature=[ds.TensorSpec([None], ds.float32)])
    def __call__(self, x):
        return x * self.v


def test_unknown_dimensions_save_the_traced_shapes(tmp_path):
    m = Unknown()
    with pytest.raises(ValueError, match="unknown dimensions"):
        ds.saved_model.save(m, tmp_path / "untraced")
    assert not (tmp_path / "untraced").exists()
    m(ds.constant([1.0, 2.0]))
    ds.saved_model.save(m, tmp_path / "traced")
    loaded = ds.saved_model.load(tmp_path / "traced")
    np.testing.assert_array_equal(loaded(ds.constant([3.0, 4.0])).numpy(), [6.0, 8.0])
    with pytest.raises(TypeError, match="no saved trace"):
        loaded(ds.constant([3.0]))


def test_save_bad_inputs(tmp_path):
    with pytest.raises(TypeError, match="Module"):
        ds.saved_model.save(object(), tmp_path)  # no variables: an empty tuple is taken, no functions
    with pytest.raises(TypeError, match="descend.function"):
        ds.saved_model.save(Dense(), tmp_path, signatures={"f": len})
    with pytest.raises(FileNotFoundError, match="No saved model"):
        ds.saved_model.load(tmp_path / "missing")


# ------------------------------------------------------------------ hostile files
def _saved(tmp_path):
    m = Dense()
    m(X)
    d = tmp_path / "sm"
    ds.saved_model.save(m, d)
    return d


def _edit_json(fn):
    def apply(d):
        p = d / "descend_saved_model.json"
        m = json.loads(p.read_text())
        fn(m)
        p.write_text(json.dumps(m))
    return apply


def _node(m):
    return m["functions"]["__call__"][0]["nodes"]


def _truncate(name, keep):
    def apply(d):
        p = d / name
        data = p.read_bytes()
        p.write_bytes(data[:keep(len(data))])
    return apply


def _symlink(name):
    def apply(d):
        target = d.parent / ("real_" + name.replace("/", "_"))
        os.replace(d / name, target)
        os.symlink(target, d / name)
    return apply


def _small_cap(d):
    load_module.MAX_MANIFEST_BYTES = 100  # restored by the test


HOSTILE = [
    ("truncated_json", _truncate("descend_saved_model.json", lambda n: n // 2), "not valid JSON"),
    ("truncated_data", _truncate("variables/variables.data-00000-of-00001", lambda n: n - 4), ""),
    ("truncated_index", _truncate("variables/variables.index", lambda n: n // 2), ""),
    ("huge_manifest", _small_cap, "at most 100 are read"),
    ("huge_declared_shape", _edit_json(lambda m: m["variables"][0].update(shape=[1 << 40, 1 << 40])), "declares"),
    ("negative_dim", _edit_json(lambda m: m["variables"][0].update(shape=[-1])), "must be an int"),
    ("unknown_op", _edit_json(lambda m: _node(m)[1].update(op="no_such_op")), "names no registered op"),
    ("python_path_op", _edit_json(lambda m: _node(m)[1].update(op="os.system")), "names no registered op"),
    # (an unknown op name makes the loader import descend's own op modules, never the name: see below)
    ("module_name_op", _edit_json(lambda m: _node(m)[1].update(op="antigravity")), "names no registered op"),
    ("submodule_name_op", _edit_json(lambda m: _node(m)[1].update(op="descend.cli")), "names no registered op"),
    ("unknown_write", _edit_json(lambda m: _node(m)[0].update(write="__init__")), "is not a Variable write"),
    ("forward_reference", _edit_json(lambda m: _node(m)[1]["in"].__setitem__(0, ["node", 3, 0])), "must be an int"),
    ("bad_input_index", _edit_json(lambda m: _node(m)[1]["in"].__setitem__(0, ["in", 7])), "must be an int"),
    ("bad_variable_index", _edit_json(lambda m: _node(m)[1]["in"].__setitem__(1, ["var", 99])), "must be an int"),
    ("missing_constant", _edit_json(lambda m: _node(m)[4]["in"].__setitem__(1, ["const", "constants/99"])),
     "does not hold"),
    ("object_attr", _edit_json(lambda m: _node(m)[1]["attrs"].update(transpose_a={"__class__": "os.system"})),
     "not an attribute descend reads"),
    ("unknown_attr_name", _edit_json(lambda m: _node(m)[1]["attrs"].update(evil=1)), "does not take"),
    ("wrong_input_count", _edit_json(lambda m: _node(m)[3]["in"].append(["in", 0])), "inputs"),
    ("unknown_dtype", _edit_json(lambda m: m["variables"][0].update(dtype="object")), "not a dtype"),
    ("wrong_version", _edit_json(lambda m: m.update(version=99)), "version"),
    ("wrong_format", _edit_json(lambda m: m.update(format="pickle")), "format"),
    ("deep_nesting", lambda d: (d / "descend_saved_model.json").write_text("[" * 100000 + "]" * 100000),
     "not valid JSON|must be"),
    ("symlinked_manifest", _symlink("descend_saved_model.json"), "symbolic link"),
    ("symlinked_variables", _symlink("variables"), "symbolic link"),
    ("symlinked_data", _symlink("variables/variables.data-00000-of-00001"), "symbolic link|link"),
]


@pytest.mark.parametrize("label,damage,match", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_files_are_refused(tmp_path, monkeypatch, label, damage, match):
    monkeypatch.setattr(load_module, "MAX_MANIFEST_BYTES", load_module.MAX_MANIFEST_BYTES)
    d = _saved(tmp_path)
    damage(d)
    made = []
    monkeypatch.setattr(load_module, "Variable", lambda *a, **k: made.append(1))
    with pytest.raises(CheckpointCorruptedError, match=match or None):
        ds.saved_model.load(d)
    assert not made  # every check comes before any Variable is made


# ------------------------------------------------------------------ TF SavedModel folders
def test_reads_the_variables_of_a_tf_saved_model(tmp_path):
    tf = pytest.importorskip("tensorflow")

    class TfModule(tf.Module):
        def __init__(self):
            super().__init__()
            self.kernel = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
            self.count = tf.Variable(7, dtype=tf.int64)

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x):
            return tf.matmul(x, self.kernel)

    tf.saved_model.save(TfModule(), str(tmp_path))
    loaded = ds.saved_model.load(tmp_path)
    values = dict(zip(loaded.variable_keys, loaded.variables))
    np.testing.assert_array_equal(values["kernel/.ATTRIBUTES/VARIABLE_VALUE"].numpy(), [[1.0, 2.0], [3.0, 4.0]])
    assert values["count/.ATTRIBUTES/VARIABLE_VALUE"].numpy() == 7
    assert values["count/.ATTRIBUTES/VARIABLE_VALUE"].dtype.name == "int64"


def test_a_file_naming_an_op_of_a_module_not_yet_imported_loads_in_a_fresh_process(tmp_path):
    # each op registers when its module is imported: a fresh process that loads a function using the LSTM's
    # sequence op has not imported descend.ops.rnn_ops (nor the layers that would): the loader imports descend's
    # op modules before it refuses a name
    import subprocess
    import sys

    from descend.ops import rnn_ops

    class Cell(ds.Module):
        def __init__(self):
            super().__init__()
            self.u = ds.Variable(np.full((2, 8), 0.1, np.float32), name="u")

        @ds.function(input_signature=[ds.TensorSpec([3, 1, 8], ds.float32)])
        def __call__(self, xw):
            h0 = ds.zeros([1, 2])
            return rnn_ops.lstm_sequence(xw, h0, h0, self.u)[0]

    xw = np.linspace(-1, 1, 24, dtype=np.float32).reshape(3, 1, 8)
    expected = Cell()(ds.constant(xw)).numpy()
    m = Cell()
    ds.saved_model.save(m, tmp_path / "m")
    np.save(tmp_path / "xw.npy", xw)
    code = ("import sys, numpy as np, descend as ds; "
            "assert 'descend.ops.rnn_ops' not in sys.modules; "
            f"f = ds.saved_model.load({str(tmp_path / 'm')!r}); "
            f"np.save({str(tmp_path / 'out.npy')!r}, f(ds.constant(np.load({str(tmp_path / 'xw.npy')!r}))).numpy())")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=os.path.dirname(os.path.dirname(__file__)))
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"), expected)


def test_an_op_name_from_a_file_is_never_imported(tmp_path):
    # the loader's look-up of an unknown name imports descend.ops' own modules only: a name that is a module (of the
    # standard library, or under descend.ops) is refused without being imported
    import sys

    d = _saved(tmp_path)
    for name in ("antigravity", "descend.ops.no_such_module"):
        _edit_json(lambda m, name=name: _node(m)[1].update(op=name))(d)
        with pytest.raises(CheckpointCorruptedError, match="names no registered op"):
            ds.saved_model.load(d)
        assert name not in sys.modules
