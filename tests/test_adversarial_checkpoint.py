"""Hostile uses of the checkpoint code landed for issue 35/38: each test here failed before its fix."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import descend as ds
from descend.persistence import checkpoint_errors as errors
from descend.persistence.formats import tf_bundle
from descend.train import Checkpoint


def _var(*values):
    return ds.Variable(np.array(values, np.float32))


# ================================================================ TensorFlow-format writes of an existing prefix
def test_a_bundle_write_stopped_between_its_renames_never_shows_a_mixed_bundle(tmp_path, monkeypatch):
    """Killed after the data file's rename and before the index's: the old index must never describe the
    new data (a checkpoint that no longer reads). Either the old bundle or none is visible."""
    prefix = str(tmp_path / "ck")
    tf_bundle.write_bundle(prefix, {"w": np.array([1.0, 2.0], np.float32)})
    real, calls = os.replace, []

    def stop_at_the_index(src, dst):
        calls.append(dst)
        if dst.endswith(".index"):
            raise KeyboardInterrupt("killed")
        return real(src, dst)

    monkeypatch.setattr(tf_bundle.os, "replace", stop_at_the_index)
    with pytest.raises(KeyboardInterrupt):
        tf_bundle.write_bundle(prefix, {"w": np.array([5.0, 6.0], np.float32)})
    monkeypatch.setattr(tf_bundle.os, "replace", real)
    assert any(c.endswith(".index") for c in calls)
    if tf_bundle.is_bundle(prefix):
        assert tf_bundle.TensorBundle(prefix).read("w").tolist() == [1.0, 2.0]
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]


def test_a_bundle_write_clears_what_killed_writes_of_it_left(tmp_path):
    """Temporaries of a write killed before its renames (SIGKILL leaves them whole on disk) are removed by
    the next write of the prefix; a user's file of another name is left alone."""
    prefix = str(tmp_path / "ck")
    dead = [f".tmp-ck.index-{'a' * 12}", f".tmp-ck.data-00000-of-00001-{'b' * 12}"]
    kept = [".tmp-ck.index-notours", "ck.index.bak"]
    for name in dead + kept:
        (tmp_path / name).write_bytes(b"x")
    tf_bundle.write_bundle(prefix, {"w": np.array([1.0], np.float32)})
    assert sorted(os.listdir(tmp_path)) == sorted(kept + ["ck.index", "ck.data-00000-of-00001"])


def test_two_writers_of_one_prefix_never_mix_their_files(tmp_path):
    """Two saves of the same prefix at once (threads here; processes take the same lock): the bundle left
    is one writer's whole, never one's index over the other's data."""
    sizes = {0: 3, 1: 5}
    for round_ in range(4):
        prefix = str(tmp_path / f"ck{round_}")
        failures = []

        def writer(who, prefix=prefix, failures=failures):
            try:
                for i in range(10):
                    tf_bundle.write_bundle(prefix, {"w": np.full(sizes[who], who * 100 + i, np.float32)})
            except Exception as e:  # noqa: BLE001 -- reported below
                failures.append(e)

        threads = [threading.Thread(target=writer, args=(k,)) for k in sizes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not failures
        got = tf_bundle.TensorBundle(prefix).read("w")  # one writer's last bundle, whole
        assert got.tolist() == [float(got[0])] * got.size and got.size == sizes[int(got[0]) // 100]


# ================================================================ a refused deferred restore changes nothing
def _attach_by_assignment(root, name, obj):
    setattr(root, name, obj)


def _attach_by_append(root, name, obj):
    root.l.append(obj)


@pytest.mark.parametrize("attach", [_attach_by_assignment, _attach_by_append], ids=["assign", "append"])
def test_a_refused_late_object_leaves_the_restore_as_it_was(tmp_path, attach):
    """A wrong-shaped object attached where a value waits is refused and not attached; the objects attached
    before keep their restored values, and the value still waits for a matching object."""
    path = Checkpoint(first=_var(1.0), second=_var(7.0), l=[_var(7.0)]).save(str(tmp_path / "p"))
    root = Checkpoint(l=[])
    root.restore(path)
    first = _var(0.0)
    root.first = first  # restored now
    assert first.numpy().tolist() == [1.0]
    name = "second"
    with pytest.raises(ds.train.CheckpointMismatchError, match="shape"):
        attach(root, name, _var(0.0, 0.0))
    assert "second" not in root._trackable_children() and len(root.l) == 0  # not attached
    assert first.numpy().tolist() == [1.0]  # what was restored before stays restored
    good = _var(0.0)
    attach(root, name, good)  # the value still waits: a matching object takes it
    assert good.numpy().tolist() == [7.0]


# ================================================================ cycles of checkpoints
@pytest.mark.parametrize("fmt", ["descend", "tensorflow"])
def test_a_cycle_of_checkpoints_saves_and_restores(tmp_path, fmt):
    """Checkpoints holding each other (TensorFlow allows it: the graph has a cycle) restore as they saved."""
    inner = Checkpoint(v=_var(1.0))
    inner.q = Checkpoint(p=inner)
    path = inner.save(str(tmp_path / "cycle"), format=fmt)
    w = _var(0.0)
    root = Checkpoint(v=w)
    root.q = Checkpoint(p=root)
    root.restore(path).assert_consumed()
    assert w.numpy().tolist() == [1.0]


# ================================================================ importing a reader first
@pytest.mark.parametrize("module", ["descend.persistence.formats.tf_bundle", "descend.persistence.formats.keras_zip",
                                    "descend.persistence.formats.keras_h5", "descend.persistence.checkpoint.tf_writer",
                                    "descend.persistence.durable"])
def test_each_reader_module_imports_first_in_a_fresh_process(module):
    """`from descend.persistence.formats import tf_bundle` (its own docstring's example) as a program's first import."""
    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    assert done.returncode == 0, done.stderr[-500:]


# ================================================================ error names
@pytest.mark.parametrize("fmt,expected", [("descend", "Checkpoint: 'v' has dtype complex64"),
                                          ("tensorflow", "'v/.ATTRIBUTES/VARIABLE_VALUE' has dtype complex64")])
def test_a_dtype_no_file_holds_names_the_variables_path(tmp_path, fmt, expected):
    v = ds.Variable(np.array([1 + 2j], np.complex64))
    with pytest.raises(TypeError) as err:
        Checkpoint(v=v).write(str(tmp_path / "c"), format=fmt)
    assert expected in str(err.value)
    assert not os.listdir(tmp_path)  # nothing written


# ================================================================ roots named like the Checkpoint's own attributes
@pytest.mark.parametrize("name", ["save_counter", "save", "restore", "pending", "_objects"])
def test_a_root_named_like_a_checkpoint_attribute_is_refused(name):
    """`Checkpoint(save_counter=v)` wrote a descend file whose root shadowed the counter and crashed TensorFlow's
    format with a KeyError; `Checkpoint(save=v)` made a root that `ckpt.save` could not reach."""
    with pytest.raises(ValueError, match=f"'{name}'"):
        Checkpoint(**{name: _var(1.0)})


# ================================================================ TensorFlow's `checkpoint` file
@pytest.mark.parametrize("name", ["plain", 'q"uo\\te', "\u00e9t\u00e9", "\u4e2d\u6587", "new\nline", "tab\tx"])
def test_tensorflow_save_names_its_newest_in_a_state_file_that_reads_back(tmp_path, name):
    """save(format="tensorflow") of a prefix with non-ASCII or control characters: latest_checkpoint finds it
    (it wrote raw UTF-8 that its own reader refused, and a newline that cut the line)."""
    path = Checkpoint(v=_var(1.0)).save(str(tmp_path / name), format="tensorflow")
    text = (tmp_path / "checkpoint").read_bytes()
    assert all(0x20 <= b < 0x7F or b == 0x0A for b in text) and text.count(b"\n") == 2  # TensorFlow's escapes
    assert ds.train.latest_checkpoint(str(tmp_path)) == path


@pytest.mark.parametrize("written", ['"\\303\\251-1"', '"\u00e9-1"'], ids=["octal escapes", "raw utf-8"])
def test_a_tensorflow_state_file_with_either_form_of_a_non_ascii_name_reads(tmp_path, written):
    """TensorFlow writes octal escapes; its parser also takes raw UTF-8 (a file edited by hand)."""
    path = Checkpoint(v=_var(1.0)).write(str(tmp_path / "\u00e9-1"), format="tensorflow")
    (tmp_path / "checkpoint").write_text(f"model_checkpoint_path: {written}\n", encoding="utf-8")
    assert ds.train.latest_checkpoint(str(tmp_path)) == path


def test_a_negative_save_counter_in_a_tensorflow_file_is_refused_not_carried_into_descends(tmp_path):
    """A TF file whose save_counter is -5 was restored, and the next save wrote '<prefix>--4', a descend
    checkpoint that descend refuses to read (its counter must be >= 0)."""
    from descend.persistence.checkpoint import tf_writer

    path = str(tmp_path / "tf")
    tf_writer.write_object_checkpoint(path, {"v": _var(1.0)}, -5)
    w = _var(0.0)
    c = Checkpoint(v=w)
    with pytest.raises(errors.CheckpointCorruptedError, match="save_counter"):
        c.restore(path)
    assert c.save_counter == 0 and w.numpy().tolist() == [0.0]  # nothing changed


# ================================================================ a refusing set_state changes nothing
class _HalfSetter:
    """set_state changes `a`, then refuses a negative `b`."""

    def __init__(self, a, b):
        self.a, self.b = a, b

    def get_state(self):
        return {"a": self.a, "b": self.b}

    def set_state(self, state):
        self.a = state["a"]
        if state["b"] < 0:
            raise ValueError("b must be >= 0")
        self.b = state["b"]


@pytest.mark.parametrize("refusing", ["first", "second"])
def test_an_object_that_refuses_its_state_midway_is_returned_to_its_state(tmp_path, refusing):
    saved = {"first": _HalfSetter(1, 1), "second": _HalfSetter(2, 2)}
    saved[refusing].b = -1
    path = Checkpoint(**saved).save(str(tmp_path / "h"))
    now = {"first": _HalfSetter(5, 5), "second": _HalfSetter(6, 6)}
    with pytest.raises(errors.CheckpointError, match="previous state"):
        Checkpoint(**now).restore(path)
    assert [(o.a, o.b) for o in now.values()] == [(5, 5), (6, 6)]


# ================================================================ a layer with both `kernel` and `_kernel`
class _TwoKernels(ds.layers.Layer):
    def build(self, shape):
        self.kernel = self.add_weight(name="kernel", shape=(2,), initializer="ones")
        self._kernel = ds.Variable(np.float32([7.0, 8.0]), name="other")
        self.built = True

    def call(self, x):
        return x


def test_a_layer_with_its_own_underscored_weight_writes_and_restores_in_tensorflows_format(tmp_path):
    """The writer gives `kernel` the second name `_kernel` (Keras 3's); a layer whose own `_kernel` is another
    Variable crashed the write with a KeyError (its node was left unreachable)."""
    layer = _TwoKernels()
    layer(np.ones((1, 2), np.float32))
    path = Checkpoint(l=layer).write(str(tmp_path / "k"), format="tensorflow")
    keys = [k for k, _ in ds.train.list_variables(path)]
    assert "l/kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys and "l/_kernel/.ATTRIBUTES/VARIABLE_VALUE" in keys
    other = _TwoKernels()
    other(np.ones((1, 2), np.float32))
    other.kernel.assign([0.0, 0.0])
    other._kernel.assign([0.0, 0.0])
    Checkpoint(l=other).restore(path).assert_consumed()
    assert other.kernel.numpy().tolist() == [1.0, 1.0] and other._kernel.numpy().tolist() == [7.0, 8.0]
