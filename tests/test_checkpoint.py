"""Checkpoints: round trips (variables, optimizers with slots, RNG, iterator-like state),
bit-for-bit resume, CheckpointManager, atomic writes under simulated crashes, corruption
and mismatch detection (nothing half-restored), deferred restoration, and no pickle."""

from __future__ import annotations

import json
import os
import pickle
import struct

import numpy as np
import pytest

import descend as ds
import descend.persistence.checkpoint.checkpoint as checkpoint_impl
import descend.persistence.checkpoint.descend_format as checkpoint_format
import descend.train as train
from descend.optimizers import schedules as S


# ---------------------------------------------------------------------------------------------------------------
# a tiny hand model and a deterministic training loop
# ---------------------------------------------------------------------------------------------------------------
class TinyModel(ds.layers.Layer):
    """A layer with two weights made by ``add_weight`` in ``build`` (deferred restoration by path)."""

    def __init__(self, seed=0, build=True, **kwargs):
        super().__init__(name="tiny", **kwargs)
        self._seed = seed
        if build:
            self.build()

    def build(self, input_shape=None):
        rng = np.random.default_rng(self._seed)
        w0, b0 = rng.standard_normal((3, 2)).astype(np.float32), rng.standard_normal(2).astype(np.float32)
        self.w = self.add_weight(shape=(3, 2), initializer=lambda shape, dtype: w0, name="kernel")
        self.b = self.add_weight(shape=(2,), initializer=lambda shape, dtype: b0, name="bias")

    def call(self, x):
        return ds.matmul(x, self.w) + self.b


def _batch(step):
    rng = np.random.default_rng(1000 + step)
    return rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)


def _train(model, opt, start, steps):
    for step in range(start, start + steps):
        x, y = _batch(step)
        with ds.GradientTape() as tape:
            loss = ds.reduce_mean(ds.square(model(ds.constant(x)) - y))
        opt.apply_gradients(zip(tape.gradient(loss, model.weights), model.weights))


def _values(model):
    return [v.numpy() for v in model.weights]


OPTIMIZERS = {
    "adam": lambda: ds.optimizers.Adam(0.05),
    "sgd_momentum": lambda: ds.optimizers.SGD(0.1, momentum=0.9),
    "adam_schedule": lambda: ds.optimizers.Adam(S.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)),
    "adam_accumulation": lambda: ds.optimizers.Adam(0.05, gradient_accumulation_steps=3),
}


# ---------------------------------------------------------------------------------------------------------------
# round trips
# ---------------------------------------------------------------------------------------------------------------
def test_variables_round_trip_with_nesting(tmp_path):
    a = ds.Variable(np.arange(6, dtype=np.float64).reshape(2, 3), name="a")
    step = ds.Variable(np.int64(7), name="step", trainable=False)
    flags = ds.Variable(np.array([True, False]), name="flags", trainable=False)
    half = ds.Variable(np.array([1.5], np.float16), name="half")
    ckpt = train.Checkpoint(a=a, step=step, extra={"flags": flags, "list": [half]})
    path = ckpt.save(tmp_path / "ckpt")
    assert path == str(tmp_path / "ckpt-1") and ckpt.save_counter == 1
    assert [k for k, _ in train.list_variables(path)] == [  # TensorFlow's keys (tf.train.list_variables)
        "_CHECKPOINTABLE_OBJECT_GRAPH", "a/.ATTRIBUTES/VARIABLE_VALUE", "extra/flags/.ATTRIBUTES/VARIABLE_VALUE",
        "extra/list/0/.ATTRIBUTES/VARIABLE_VALUE", "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
        "step/.ATTRIBUTES/VARIABLE_VALUE"]
    saved = [v.numpy() for v in (a, step, flags, half)]
    a.assign(np.zeros((2, 3))), step.assign(0), flags.assign([False, True]), half.assign([0.0])
    report = ckpt.restore(path)
    for v, want in zip((a, step, flags, half), saved):
        assert v.numpy().dtype == want.dtype and np.array_equal(v.numpy(), want)
    assert sorted(report.restored) == ["a", "extra/flags", "extra/list/0", "step"]
    assert report.complete and not report.deferred


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_resume_is_bit_for_bit(tmp_path, name):
    """Train 4 steps, save, train 5 more; a fresh model + optimizer restored from the
    checkpoint and trained the same 5 steps ends identical, bit for bit (slots, iterations,
    schedule position, the accumulator's partial sums mid-cycle)."""
    model, opt = TinyModel(seed=0), OPTIMIZERS[name]()
    _train(model, opt, 0, 4)
    path = train.Checkpoint(model=model, optimizer=opt).save(tmp_path / "ckpt")
    _train(model, opt, 4, 5)
    want, want_state = _values(model), opt.state_dict()

    ds.clear_session()
    model2, opt2 = TinyModel(seed=99), OPTIMIZERS[name]()  # different initial values, unbuilt optimizer
    report = train.Checkpoint(model=model2, optimizer=opt2).restore(path)
    assert report.complete and "optimizer" in report.restored  # slots of unbuilt variables wait, by path
    slots = "optimizer/.ATTRIBUTES/model.Skernel.S" if name == "adam_accumulation" else "optimizer/_variables/"
    assert any(k.startswith(slots) for k in train.load_checkpoint(path).keys())  # (no Keras layout: TF's style)
    _train(model2, opt2, 4, 5)
    for a, b in zip(want, _values(model2)):
        assert np.array_equal(a, b)
    got_state = opt2.state_dict()
    assert sorted(got_state) == sorted(want_state)
    for k in want_state:
        assert np.array_equal(want_state[k], got_state[k]), k
    opt2.assert_state_consumed()


def test_restore_into_built_optimizer_overwrites_slots(tmp_path):
    model, opt = TinyModel(), ds.optimizers.Adam(0.05)
    _train(model, opt, 0, 2)
    ckpt = train.Checkpoint(model=model, optimizer=opt)
    path = ckpt.save(tmp_path / "ckpt")
    m_saved = opt.get_slot(model.w, "m").numpy()
    _train(model, opt, 2, 3)
    report = ckpt.restore(path)
    assert int(opt.iterations) == 2 and np.array_equal(opt.get_slot(model.w, "m").numpy(), m_saved)
    assert not report.deferred and report.complete and sorted(report.restored) == ["model/bias", "model/kernel", "optimizer"]


def test_constant_hyperparameters_are_restored_schedules_are_not(tmp_path):
    opt = ds.optimizers.SGD(0.1, momentum=0.9)
    opt.learning_rate = 0.025  # e.g. a ReduceLROnPlateau callback
    path = train.Checkpoint(optimizer=opt).save(tmp_path / "ckpt")
    fresh = ds.optimizers.SGD(0.1, momentum=0.5)
    train.Checkpoint(optimizer=fresh).restore(path)
    assert fresh.learning_rate == 0.025 and fresh.momentum == 0.9
    manifest = json.loads((tmp_path / "ckpt-1" / "manifest.json").read_text())
    assert manifest["objects"]["optimizer"]["class_name"] == "SGD"
    assert manifest["objects"]["optimizer"]["config"]["learning_rate"] == 0.025

    sched = S.ExponentialDecay(0.1, decay_steps=2, decay_rate=0.5)
    opt = ds.optimizers.Adam(sched)
    path = train.Checkpoint(optimizer=opt).save(tmp_path / "sched")
    reader = train.load_checkpoint(path)
    assert "optimizer/_learning_rate/.ATTRIBUTES/VARIABLE_VALUE" not in reader.keys()
    assert reader.has_tensor("optimizer/.ATTRIBUTES/hyper:beta_1")  # descend's own state, in TensorFlow's style
    assert reader.manifest["objects"]["optimizer"]["config"]["learning_rate"]["class_name"] == "ExponentialDecay"
    other = ds.optimizers.Adam(S.ExponentialDecay(0.2, decay_steps=2, decay_rate=0.5))
    train.Checkpoint(optimizer=other).restore(path)
    assert other.hyperparameters()["learning_rate"].initial_learning_rate == 0.2  # the program's schedule is kept
    constant = ds.optimizers.Adam(0.3)  # a constant replacing the saved schedule is kept too
    train.Checkpoint(optimizer=constant).restore(path)
    assert constant.learning_rate == 0.3


def test_random_generators_round_trip(tmp_path):
    gen, legacy, mt = np.random.default_rng(5), np.random.RandomState(3), np.random.Generator(np.random.MT19937(1))
    ckpt = train.Checkpoint(gen=gen, legacy=legacy, mt=mt)
    path = ckpt.save(tmp_path / "ckpt")
    want = (gen.random(4), legacy.rand(4), mt.integers(0, 1000, 4))
    gen.random(10), legacy.rand(3)
    ckpt.restore(path)
    got = (gen.random(4), legacy.rand(4), mt.integers(0, 1000, 4))
    for a, b in zip(want, got):
        assert np.array_equal(a, b)

    wrong = train.Checkpoint(gen=np.random.Generator(np.random.Philox(0)), legacy=legacy, mt=mt)
    with pytest.raises(train.CheckpointMismatchError, match=r"gen: .*PCG64.*Philox"):
        wrong.restore(path)


class Cursor:
    """An iterator-like object exposing get_state()/set_state()."""

    def __init__(self):
        self.pos, self.epoch = 0, 0

    def get_state(self):
        return {"pos": self.pos, "epoch": self.epoch, "order": np.arange(3)}

    def set_state(self, state):
        if set(state) != {"pos", "epoch", "order"}:
            raise ValueError(f"bad cursor state {state!r}")
        self.pos, self.epoch = state["pos"], state["epoch"]
        assert state["order"].dtype == np.arange(3).dtype


def test_get_state_objects_round_trip(tmp_path):
    cur = Cursor()
    cur.pos, cur.epoch = 17, 2
    ckpt = train.Checkpoint(data=cur)
    path = ckpt.save(tmp_path / "ckpt")
    cur.pos = 0
    report = ckpt.restore(path)
    assert (cur.pos, cur.epoch) == (17, 2) and report.restored == ["data"]
    cur.pos = 0
    with pytest.raises(train.CheckpointError, match="bad cursor state"):  # set_state refuses: all undone
        train.Checkpoint(data=BadCursor(), other=cur).restore(path, strict=False)
    assert cur.pos == 0


class BadCursor(Cursor):
    def set_state(self, state):
        raise ValueError("bad cursor state")


def test_dataset_iterator_position_round_trip(tmp_path):
    data = pytest.importorskip("descend.data")
    it = iter(data.Dataset.range(20).shuffle(8, seed=3).batch(4))
    next(it)
    path = train.Checkpoint(iterator=it).save(tmp_path / "ckpt")
    want = [b.numpy() for b in it]
    it2 = iter(data.Dataset.range(20).shuffle(8, seed=3).batch(4))
    train.Checkpoint(iterator=it2).restore(path)
    got = [b.numpy() for b in it2]
    assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(want, got))


class Protocol:
    """The state protocol: state_dict() (arrays and JSON values) and restore_plan(state) -> commit."""

    def __init__(self, n=4):
        self.table = np.arange(n, dtype=np.int32)
        self.meta = {"vocab": ["a", "b"]}

    def state_dict(self):
        return {"table": self.table.copy(), "meta": self.meta}

    def restore_plan(self, state):
        problems = [f"missing '{k}'" for k in ("table", "meta") if k not in state]
        problems += [f"unexpected '{k}'" for k in state if k not in ("table", "meta")]
        table = state.get("table")
        if table is not None and (table.shape != self.table.shape or table.dtype != self.table.dtype):
            problems.append(f"table: expected shape {self.table.shape} int32, received {table.shape}")
        if problems:
            raise ValueError("; ".join(problems))

        def commit():
            self.table[...] = table
            self.meta = state["meta"]
        return commit


def test_protocol_objects_and_multi_optimizer(tmp_path):
    proto = Protocol()
    emb = ds.Variable(np.ones((3, 2), np.float32), name="emb")
    dense = ds.Variable(np.ones(2, np.float32), name="dense")
    multi = ds.optimizers.MultiOptimizer([(ds.optimizers.Adagrad(0.1), [emb]), (ds.optimizers.Adam(0.1), "dense")])
    multi.apply_gradients([(ds.constant(np.ones((3, 2), np.float32)), emb), (ds.constant([1.0, 2.0]), dense)])
    ckpt = train.Checkpoint(proto=proto, optimizer=multi, vars=[emb, dense])
    path = ckpt.save(tmp_path / "ckpt")
    keys = [k for k, _ in train.list_variables(path)]
    assert "proto/.ATTRIBUTES/table" in keys and "proto/.ATTRIBUTES/meta" in keys  # state TF's graph has no place for
    assert "optimizer/0/.ATTRIBUTES/vars.S0.Saccumulator" in keys and "optimizer/1/.ATTRIBUTES/vars.S1.Sm" in keys
    assert train.load_checkpoint(path).json_state("proto") == {"meta": {"vocab": ["a", "b"]}}
    proto.table[:] = 0
    proto.meta = None
    acc = multi.optimizers[0].get_slot(emb, "accumulator")
    saved_acc = acc.numpy()
    acc.assign(np.zeros((3, 2), np.float32))
    ckpt.restore(path)
    assert np.array_equal(proto.table, np.arange(4)) and proto.meta == {"vocab": ["a", "b"]}
    assert np.array_equal(acc.numpy(), saved_acc)


def test_protocol_objects_are_validated_before_anything_changes(tmp_path):
    proto, v = Protocol(), ds.Variable(np.ones(2, np.float32), name="v")
    path = train.Checkpoint(proto=proto, v=v).save(tmp_path / "ckpt")
    v.assign([2.0, 2.0])
    bigger = Protocol(6)
    with pytest.raises(train.CheckpointMismatchError, match=r"proto: table: expected shape \(6,\) int32"):
        train.Checkpoint(proto=bigger, v=v).restore(path)
    assert np.all(v.numpy() == 2) and np.array_equal(bigger.table, np.arange(6))
    report = train.Checkpoint(proto=bigger, v=v).restore(path, strict=False)
    assert report.mismatched and report.restored == ["v"] and np.all(v.numpy() == 1)


def test_untrackable_values_and_bad_names_are_rejected(tmp_path):
    with pytest.raises(TypeError, match=r"'epoch' is a int.*wrap numbers in a descend.Variable"):
        train.Checkpoint(epoch=3)
    with pytest.raises(TypeError, match=r"'stuff/1' is a str"):
        train.Checkpoint(stuff=[ds.Variable(1.0), "x"])
    with pytest.raises(ValueError, match="no '/'"):
        train.Checkpoint(d={"a/b": ds.Variable(1.0)})

    class Complex(Protocol):
        def state_dict(self):
            return {"z": np.ones(2, np.complex64)}

    with pytest.raises(TypeError, match=r"'c/z' has dtype complex64"):
        train.Checkpoint(c=Complex()).save(tmp_path / "c")
    assert not os.listdir(tmp_path)


def test_restore_none_and_save_counter(tmp_path):
    v = ds.Variable(1.0, name="v")
    ckpt = train.Checkpoint(v=v)
    report = ckpt.restore(None)
    assert report.path is None and report.restored == []
    ckpt.save(tmp_path / "c")
    p2 = ckpt.save(tmp_path / "c")
    assert p2.endswith("c-2")
    fresh = train.Checkpoint(v=v)
    fresh.restore(p2)
    assert fresh.save_counter == 2 and fresh.save(tmp_path / "c").endswith("c-3")
    # write() writes exactly the path, read() does not touch the counter
    assert fresh.write(tmp_path / "exact") == str(tmp_path / "exact")
    fresh.read(tmp_path / "exact")
    assert fresh.save_counter == 3


# ---------------------------------------------------------------------------------------------------------------
# CheckpointManager
# ---------------------------------------------------------------------------------------------------------------
def test_manager_numbering_max_to_keep_and_reopen(tmp_path):
    v = ds.Variable(0.0, name="v")
    manager = train.CheckpointManager(train.Checkpoint(v=v), tmp_path, max_to_keep=2)
    assert manager.latest_checkpoint is None and train.latest_checkpoint(tmp_path) is None
    for i in range(4):
        v.assign(float(i))
        manager.save()
    names = [os.path.basename(p) for p in manager.checkpoints]
    assert names == ["ckpt-3", "ckpt-4"]
    assert sorted(os.listdir(tmp_path)) == [".lock", ".manager", "checkpoint.json", "ckpt-3", "ckpt-4"]
    assert train.latest_checkpoint(tmp_path) == str(tmp_path / "ckpt-4")

    # a new process: reopen, restore the latest, keep numbering
    manager.close()  # (a new process: the first one's lock went with it)
    ds.clear_session()
    v2 = ds.Variable(-1.0, name="v")
    ckpt2 = train.Checkpoint(v=v2)
    manager2 = train.CheckpointManager(ckpt2, tmp_path, max_to_keep=2)
    assert manager2.latest_checkpoint == str(tmp_path / "ckpt-4")
    assert manager2.restore_or_initialize() == str(tmp_path / "ckpt-4") and float(v2) == 3.0
    assert os.path.basename(manager2.save()) == "ckpt-5"
    manager2.close()
    # without restoring, numbering still continues after the newest checkpoint
    manager3 = train.CheckpointManager(train.Checkpoint(v=v2), tmp_path, max_to_keep=3)
    assert os.path.basename(manager3.save()) == "ckpt-6"
    assert os.path.basename(manager3.save(checkpoint_number=100)) == "ckpt-100"
    assert [os.path.basename(p) for p in manager3.checkpoints] == ["ckpt-5", "ckpt-6", "ckpt-100"]


def test_manager_keep_all_and_validation(tmp_path):
    v = ds.Variable(0.0, name="v")
    manager = train.CheckpointManager(train.Checkpoint(v=v), tmp_path, max_to_keep=None, checkpoint_name="model")
    for _ in range(3):
        manager.save()
    assert [os.path.basename(p) for p in manager.checkpoints] == ["model-1", "model-2", "model-3"]
    with pytest.raises(ValueError, match="max_to_keep"):
        train.CheckpointManager(train.Checkpoint(v=v), tmp_path, max_to_keep=0)
    with pytest.raises(TypeError, match="Checkpoint"):
        train.CheckpointManager(v, tmp_path)
    with pytest.raises(FileNotFoundError, match="latest_checkpoint"):
        train.Checkpoint(v=v).restore(tmp_path)


# ---------------------------------------------------------------------------------------------------------------
# atomicity: simulated crashes
# ---------------------------------------------------------------------------------------------------------------
class Crash(Exception):
    pass


def _manager_with_one_save(tmp_path):
    v = ds.Variable(np.array([1.0, 2.0], np.float32), name="v")
    manager = train.CheckpointManager(train.Checkpoint(v=v), tmp_path, max_to_keep=1)
    first = manager.save()
    v.assign([5.0, 6.0])
    return v, manager, first


def _assert_previous_is_latest(tmp_path, first, writer=None):
    assert train.latest_checkpoint(tmp_path) == first
    if writer is not None:
        writer.close()  # the crashed writer's process is gone: its lock with it
    ds.clear_session()
    fresh = ds.Variable(np.zeros(2, np.float32), name="v")
    manager = train.CheckpointManager(train.Checkpoint(v=fresh), tmp_path, max_to_keep=1)
    assert manager.restore_or_initialize() == first
    assert np.array_equal(fresh.numpy(), [1.0, 2.0])
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".tmp-")]


def test_crash_at_directory_rename_keeps_previous(tmp_path, monkeypatch):
    v, manager, first = _manager_with_one_save(tmp_path)

    def crash(*a, **k):
        raise Crash("power cut")

    monkeypatch.setattr(os, "rename", crash)
    with pytest.raises(Crash):
        manager.save()
    monkeypatch.undo()
    assert sorted(os.listdir(tmp_path)) == [".lock", ".manager", "checkpoint.json", "ckpt-1"]
    _assert_previous_is_latest(tmp_path, first, manager)


def test_crash_at_index_replace_keeps_previous(tmp_path, monkeypatch):
    v, manager, first = _manager_with_one_save(tmp_path)
    real_replace = os.replace

    def crash(src, dst):
        if os.path.basename(dst) == "checkpoint.json":
            raise Crash("power cut")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(Crash):
        manager.save()
    monkeypatch.undo()
    assert os.path.isdir(tmp_path / "ckpt-1")  # nothing deleted before the index was durable
    _assert_previous_is_latest(tmp_path, first, manager)


@pytest.mark.parametrize("crash_at", [1, 2, 3, 4, 5])
def test_crash_at_each_fsync_keeps_previous(tmp_path, monkeypatch, crash_at):
    v, manager, first = _manager_with_one_save(tmp_path)
    real_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        # 1: tensors, 2: manifest, 3: tmp dir, 4: parent after the rename, 5: the index's temporary file
        if len(calls) == crash_at:
            raise Crash("power cut")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(Crash):
        manager.save()
    monkeypatch.undo()
    _assert_previous_is_latest(tmp_path, first, manager)


def test_leftover_tmp_directory_is_ignored_and_cleaned(tmp_path):
    v, manager, first = _manager_with_one_save(tmp_path)
    leftover = tmp_path / ".tmp-ckpt-2-0123456789ab"
    leftover.mkdir()
    (leftover / "tensors.safetensors").write_bytes(b"\x00" * 10)  # a save killed mid-write
    (tmp_path / ".tmp-checkpoint.json-0123456789ab").write_text("{")
    assert train.latest_checkpoint(tmp_path) == first
    manager.close()
    train.CheckpointManager(manager.checkpoint, tmp_path)
    assert sorted(os.listdir(tmp_path)) == [".lock", ".manager", "checkpoint.json", "ckpt-1"]


def test_replacing_a_checkpoint_is_atomic(tmp_path, monkeypatch):
    v = ds.Variable(np.array([1.0], np.float32), name="v")
    ckpt = train.Checkpoint(v=v)
    path = ckpt.write(tmp_path / "c")
    v.assign([2.0])
    real_rename, calls = os.rename, []

    def rename(src, dst):
        calls.append(dst)
        if len(calls) == 2:  # the old one is aside, the new one fails to arrive
            raise Crash("power cut")
        return real_rename(src, dst)

    monkeypatch.setattr(os, "rename", rename)
    with pytest.raises(Crash):
        ckpt.write(path)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == ["c"]
    assert np.array_equal(train.load_checkpoint(path).get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE"), [1.0])
    ckpt.write(path)
    assert np.array_equal(train.load_checkpoint(path).get_tensor("v/.ATTRIBUTES/VARIABLE_VALUE"), [2.0])
    assert os.listdir(tmp_path) == ["c"]
    # a directory that is not a checkpoint is never replaced
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "notes.txt").write_text("x")
    with pytest.raises(FileExistsError, match="not a checkpoint"):
        ckpt.write(tmp_path / "mine")


def test_checkpoint_moved_aside_by_a_killed_replace_is_recovered(tmp_path):
    v, manager, first = _manager_with_one_save(tmp_path)
    os.rename(first, tmp_path / ".tmp-old-ckpt-1-0123456789ab")  # killed between the two renames
    assert train.latest_checkpoint(tmp_path) == str(tmp_path / ".tmp-old-ckpt-1-0123456789ab")  # readable
    manager.close()
    train.CheckpointManager(manager.checkpoint, tmp_path)  # a writer puts it back
    assert train.latest_checkpoint(tmp_path) == first


# ---------------------------------------------------------------------------------------------------------------
# corruption: detected by checksums, named, nothing restored
# ---------------------------------------------------------------------------------------------------------------
def _saved(tmp_path):
    model, opt = TinyModel(), ds.optimizers.Adam(0.1)
    _train(model, opt, 0, 1)
    ckpt = train.Checkpoint(model=model, optimizer=opt)
    path = ckpt.save(tmp_path / "ckpt")
    _train(model, opt, 1, 1)  # the objects now differ from the checkpoint
    before = _values(model) + [v.numpy() for v in opt.variables()]
    return model, opt, ckpt, path, before


def _unchanged(model, opt, before):
    after = _values(model) + [v.numpy() for v in opt.variables()]
    return all(np.array_equal(a, b) for a, b in zip(before, after))


def _data_offset(path, key):
    with open(os.path.join(path, "tensors.safetensors"), "rb") as f:
        data = f.read()
    n = struct.unpack("<Q", data[:8])[0]
    header = json.loads(data[8:8 + n])
    return 8 + n + header[key]["data_offsets"][0]


def test_truncated_tensors_file(tmp_path):
    model, opt, ckpt, path, before = _saved(tmp_path)
    tfile = os.path.join(path, "tensors.safetensors")
    size = os.path.getsize(tfile)
    with open(tfile, "r+b") as f:
        f.truncate(size - 5)
    with pytest.raises(train.CheckpointCorruptedError, match="tensors.safetensors") as info:
        ckpt.restore(path)
    assert "truncated" in str(info.value) and tfile in str(info.value)
    cut = [k for k in info.value.entries if k != "tensors.safetensors"]
    assert len(cut) == 1 and cut[0] in str(info.value)  # the tensor the truncation cut off is named
    assert _unchanged(model, opt, before)
    with pytest.raises(train.CheckpointCorruptedError):  # strict=False never restores a corrupted checkpoint
        ckpt.restore(path, strict=False)
    assert _unchanged(model, opt, before)


def test_flipped_byte_names_the_tensor(tmp_path):
    model, opt, ckpt, path, before = _saved(tmp_path)
    offset = _data_offset(path, "model/bias") + 3
    with open(os.path.join(path, "tensors.safetensors"), "r+b") as f:
        f.seek(offset)
        byte = f.read(1)
        f.seek(offset)
        f.write(bytes([byte[0] ^ 0x10]))
    with pytest.raises(train.CheckpointCorruptedError, match=r"model/bias: checksum mismatch") as info:
        ckpt.restore(path)
    assert info.value.entries == ["model/bias"]
    assert _unchanged(model, opt, before)


def test_manifest_naming_a_missing_tensor(tmp_path):
    model, opt, ckpt, path, before = _saved(tmp_path)
    mfile = os.path.join(path, "manifest.json")
    manifest = json.loads(open(mfile).read())
    manifest["tensors"]["model/ghost"] = {"shape": [2], "dtype": "float32", "sha256": "0" * 64}
    open(mfile, "w").write(json.dumps(manifest))
    with pytest.raises(train.CheckpointCorruptedError, match=r"manifest.json: checksum mismatch") as info:
        ckpt.restore(path)
    assert "its tensors add up to" in str(info.value)  # the size the manifest implies is checked before reading
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    manifest["tensors_file"]["size"] += 8
    body["tensors_file"] = manifest["tensors_file"]
    manifest["manifest_sha256"] = checkpoint_format.sha256(checkpoint_format.canonical(body))
    open(mfile, "w").write(json.dumps(manifest))  # a consistent edit: the header does not list the ghost
    with pytest.raises(train.CheckpointCorruptedError, match=r"padded or modified"):
        ckpt.restore(path)
    assert _unchanged(model, opt, before)


def test_truncated_or_missing_manifest_and_newer_schema(tmp_path):
    model, opt, ckpt, path, before = _saved(tmp_path)
    mfile = os.path.join(path, "manifest.json")
    text = open(mfile).read()
    open(mfile, "w").write(text[: len(text) // 2])
    with pytest.raises(train.CheckpointCorruptedError, match="manifest.json: the manifest is corrupted or truncated"):
        ckpt.restore(path)
    manifest = json.loads(text)
    manifest["schema_version"] = 99
    open(mfile, "w").write(json.dumps(manifest))
    with pytest.raises(train.CheckpointError, match="schema 99"):
        ckpt.restore(path)
    os.remove(mfile)
    with pytest.raises(FileNotFoundError, match="manifest.json is missing"):
        ckpt.restore(path)
    assert _unchanged(model, opt, before)


def test_modified_manifest_is_detected(tmp_path):
    model, opt, ckpt, path, before = _saved(tmp_path)
    mfile = os.path.join(path, "manifest.json")
    manifest = json.loads(open(mfile).read())
    manifest["objects"]["optimizer"]["class_name"] = "Adam "
    open(mfile, "w").write(json.dumps(manifest))
    with pytest.raises(train.CheckpointCorruptedError, match="manifest.json: checksum mismatch"):
        ckpt.restore(path)
    assert _unchanged(model, opt, before)


# ---------------------------------------------------------------------------------------------------------------
# mismatches: one error listing everything, nothing restored; strict=False reports
# ---------------------------------------------------------------------------------------------------------------
def test_checkpoint_from_a_different_model(tmp_path):
    model, opt, ckpt, path, before = _saved(tmp_path)
    with ds.name_scope("other"):
        other = [ds.Variable(np.ones((3, 2), np.float32), name="kernel"),
                 ds.Variable(np.ones(2, np.float32), name="bias")]

    class Other(ds.layers.Layer):
        def __init__(self):
            super().__init__(name="other_model")
            self.other = ds.layers.Layer(name="other")
            self.other.kernel, self.other.bias = other
            self.extra = ds.Variable(np.ones(2, np.float32), name="extra")
            self.built = True

    target = train.Checkpoint(model=Other(), optimizer=opt)
    with pytest.raises(train.CheckpointMismatchError) as info:
        target.restore(path, strict=True)
    err = info.value
    assert sorted(err.missing) == ["model/extra", "model/other/bias", "model/other/kernel"]
    assert sorted(err.unexpected) == ["model/bias", "model/kernel"]
    msg = str(err)
    assert all(k in msg for k in err.missing + err.unexpected) and "nothing was restored" in msg
    assert all(np.array_equal(v.numpy(), np.ones_like(v.numpy())) for v in other)
    assert "model/bias" in err.unexpected  # paths, whatever the variables are named
    assert _unchanged(model, opt, before)


def test_wrong_dtype_and_shape_are_listed_together(tmp_path):
    a = ds.Variable(np.zeros(3, np.float64), name="a")
    b = ds.Variable(np.zeros((2, 2), np.float32), name="b")
    c = ds.Variable(np.zeros(2, np.float32), name="c")
    path = train.Checkpoint(a=a, b=b, c=c).save(tmp_path / "ckpt")
    ds.clear_session()
    a2 = ds.Variable(np.full(3, 7, np.float32), name="a")  # wrong dtype
    b2 = ds.Variable(np.full((2, 3), 7, np.float32), name="b")  # wrong shape
    c2 = ds.Variable(np.full(2, 7, np.float32), name="c")  # fine
    ckpt = train.Checkpoint(a=a2, b=b2, c=c2)
    with pytest.raises(train.CheckpointMismatchError) as info:
        ckpt.restore(path)
    assert len(info.value.mismatched) == 2
    msg = str(info.value)
    assert "a: expected shape (3,) float32, the checkpoint has shape (3,) float64" in msg
    assert "b: expected shape (2, 3) float32, the checkpoint has shape (2, 2) float32" in msg
    assert all(np.all(v.numpy() == 7) for v in (a2, b2, c2))

    report = ckpt.restore(path, strict=False)
    assert report.restored == ["c"] and len(report.mismatched) == 2 and not report.complete
    assert np.all(c2.numpy() == 0) and np.all(a2.numpy() == 7) and np.all(b2.numpy() == 7)
    with pytest.raises(train.CheckpointMismatchError):
        report.assert_consumed()


def test_missing_and_unexpected_objects_strict_and_partial(tmp_path):
    v = ds.Variable(np.ones(2, np.float32), name="v")
    old = ds.Variable(np.ones(2, np.float32), name="old")
    path = train.Checkpoint(v=v, old=old, rng=np.random.default_rng(0)).save(tmp_path / "ckpt")
    v.assign([3.0, 3.0])
    gen = np.random.default_rng(1)
    ckpt = train.Checkpoint(v=v, new=ds.Variable(np.zeros(2, np.float32), name="new"), opt=ds.optimizers.SGD(0.1))
    with pytest.raises(train.CheckpointMismatchError, match=r"holds the objects: \['old', 'rng', 'v'\]") as info:
        ckpt.restore(path, strict=True)
    assert info.value.missing == ["new", "opt (no such object in the checkpoint)"]
    assert info.value.unexpected == ["old", "rng (object)"]
    assert np.all(v.numpy() == 3)
    report = ckpt.restore(path, strict=False)
    assert report.restored == ["v"] and np.all(v.numpy() == 1)
    assert report.unexpected == ["old", "rng (object)"]
    del gen


def test_optimizer_class_and_slot_mismatch(tmp_path):
    model, opt = TinyModel(), ds.optimizers.Adam(0.1)
    _train(model, opt, 0, 1)
    path = train.Checkpoint(optimizer=opt).save(tmp_path / "ckpt")
    sgd = ds.optimizers.SGD(0.1, momentum=0.9)  # and: the slots of variables no root reaches are keyed by name
    _train(model, sgd, 0, 1)
    m_before = sgd.get_slot(model.w, "momentum").numpy()
    with pytest.raises(train.CheckpointMismatchError) as info:
        train.Checkpoint(optimizer=sgd).restore(path)
    msg = str(info.value)
    assert "a Adam optimizer; the object to restore is a SGD" in msg
    assert np.array_equal(sgd.get_slot(model.w, "momentum").numpy(), m_before) and int(sgd.iterations) == 1


def test_optimizer_partial_restore_keeps_unmatched_state(tmp_path):
    model, opt = TinyModel(), ds.optimizers.Adam(0.05)
    _train(model, opt, 0, 2)
    path = train.Checkpoint(optimizer=opt).save(tmp_path / "ckpt")
    saved_m = opt.get_slot(model.w, "m").numpy()
    extra = ds.Variable(np.ones(2, np.float32), name="extra")
    opt.apply_gradients([(ds.constant([1.0, 1.0]), extra), (ds.constant(np.ones((3, 2), np.float32)), model.w)])
    extra_m = opt.get_slot(extra, "m").numpy()
    with pytest.raises(train.CheckpointMismatchError, match=r"missing: \['.by_name/extra/m', '.by_name/extra/v'\]"):
        train.Checkpoint(optimizer=opt).restore(path, strict=True)
    assert int(opt.iterations) == 3
    report = train.Checkpoint(optimizer=opt).restore(path, strict=False)  # what matches; the rest is kept
    assert sorted(report.missing) == ["optimizer/.by_name/extra/m", "optimizer/.by_name/extra/v"]
    assert int(opt.iterations) == 2 and np.array_equal(opt.get_slot(model.w, "m").numpy(), saved_m)
    assert np.array_equal(opt.get_slot(extra, "m").numpy(), extra_m)


def test_failure_while_applying_rolls_everything_back(tmp_path):
    first, second = Cursor(), Cursor()
    first.pos = second.pos = 5
    v = ds.Variable(np.ones(2, np.float32), name="v")
    path = train.Checkpoint(a=first, b=second, v=v).save(tmp_path / "ckpt")
    first.pos, second.pos = 9, 9
    v.assign([4.0, 4.0])

    class Refusing(Cursor):
        def set_state(self, state):
            raise ValueError("state from another pipeline")

    refusing = Refusing()
    refusing.pos = 9
    with pytest.raises(train.CheckpointError, match=r"restoring 'b'.*another pipeline.*previous state"):
        train.Checkpoint(a=first, b=refusing, v=v).restore(path)
    assert first.pos == 9 and refusing.pos == 9 and np.all(v.numpy() == 4)


# ---------------------------------------------------------------------------------------------------------------
# deferred restoration into models that are not built yet
# ---------------------------------------------------------------------------------------------------------------
def test_deferred_restore_into_unbuilt_model_via_claim_hook(tmp_path):
    model, opt = TinyModel(seed=0), ds.optimizers.Adam(0.05)
    _train(model, opt, 0, 3)
    path = train.Checkpoint(model=model, optimizer=opt).save(tmp_path / "ckpt")
    _train(model, opt, 3, 2)
    want = _values(model)

    ds.clear_session()
    model2, opt2 = TinyModel(seed=5, build=False), ds.optimizers.Adam(0.05)
    ckpt = train.Checkpoint(model=model2, optimizer=opt2)
    report = ckpt.restore(path)
    assert sorted(report.deferred) == ["model/bias", "model/kernel"]
    assert ckpt.pending == ["model/bias", "model/kernel"]
    with pytest.raises(train.CheckpointMismatchError, match="model/kernel"):
        ckpt.assert_consumed()
    model2.build()  # each weight the layer creates takes its value (add_weight's hook)
    assert ckpt.pending == []
    _train(model2, opt2, 3, 2)
    for a, b in zip(want, _values(model2)):
        assert np.array_equal(a, b)
    ckpt.assert_consumed()
    report.assert_consumed()


def test_variable_creation_claims_deferred_values_and_checks_shape(tmp_path):
    model = TinyModel(seed=0)
    path = train.Checkpoint(model=model).save(tmp_path / "ckpt")
    saved = _values(model)
    ds.clear_session()
    unbuilt = TinyModel(seed=3, build=False)
    ckpt = train.Checkpoint(model=unbuilt)
    ckpt.restore(path)
    # a weight created at a restored path with another shape is refused right there
    with pytest.raises(train.CheckpointMismatchError, match=r"model/bias.*shape \(2,\)"):
        unbuilt.b = unbuilt.add_weight(shape=(5,), name="bias")
    assert not checkpoint_impl._claim_pending(ds.Variable(1.0, name="unrelated"))
    ds.clear_session()
    unbuilt2 = TinyModel(seed=3, build=False)
    ckpt2 = train.Checkpoint(model=unbuilt2)
    ckpt2.restore(path)
    unbuilt2.build()  # its variables take the restored values as they are created
    for a, b in zip(saved, _values(unbuilt2)):
        assert np.array_equal(a, b)
    ckpt2.assert_consumed()


def test_deferred_optimizer_state_never_used_is_reported(tmp_path):
    model, opt = TinyModel(), ds.optimizers.Adam(0.05)
    _train(model, opt, 0, 1)
    path = train.Checkpoint(optimizer=opt).save(tmp_path / "ckpt")
    fresh = ds.optimizers.Adam(0.05)
    ckpt = train.Checkpoint(optimizer=fresh)
    ckpt.restore(path)
    with pytest.raises(train.CheckpointMismatchError, match="optimizer/.by_name/tiny/kernel/m"):
        ckpt.assert_consumed()  # slots of variables no root reaches are keyed by name


# ---------------------------------------------------------------------------------------------------------------
# no pickle anywhere
# ---------------------------------------------------------------------------------------------------------------
def test_no_pickle_in_files_or_loading(tmp_path, monkeypatch):
    model, opt = TinyModel(), ds.optimizers.Adam(0.05)
    _train(model, opt, 0, 1)
    ckpt = train.Checkpoint(model=model, optimizer=opt, rng=np.random.default_rng(0), data=Cursor())
    manager = train.CheckpointManager(ckpt, tmp_path)
    path = manager.save()
    tensors = open(os.path.join(path, "tensors.safetensors"), "rb").read()
    n = struct.unpack("<Q", tensors[:8])[0]
    header = json.loads(tensors[8:8 + n])  # a JSON header, then raw little-endian bytes
    manifest = json.loads(open(os.path.join(path, "manifest.json")).read())
    assert set(header) - {"__metadata__"} == set(manifest["tf_keys"])  # each tensor, by TensorFlow's key too
    assert set(manifest["tf_keys"].values()) <= {k for k, _ in train.list_variables(path)}
    json.loads(open(os.path.join(tmp_path, "checkpoint.json")).read())
    for blob in (tensors, open(os.path.join(path, "manifest.json"), "rb").read()):
        assert not blob.startswith(b"\x80")
        for marker in (b"\x80\x02", b"\x80\x03", b"\x80\x04\x95", b"\x80\x05\x95", b"c__builtin__", b"cnumpy",
                       b"_reconstruct", b"__reduce__"):
            assert marker not in blob

    def forbidden(*a, **k):
        raise AssertionError("loading a checkpoint must not unpickle")

    for name in ("load", "loads", "Unpickler"):
        monkeypatch.setattr(pickle, name, forbidden)
    monkeypatch.setattr(np, "load", forbidden)
    ds.clear_session()
    model2, opt2 = TinyModel(seed=7), ds.optimizers.Adam(0.05)
    train.Checkpoint(model=model2, optimizer=opt2, rng=np.random.default_rng(1), data=Cursor()).restore(
        train.latest_checkpoint(tmp_path))
    for a, b in zip(_values(model), _values(model2)):
        assert np.array_equal(a, b)


def test_manifest_contents(tmp_path):
    v = ds.Variable(np.arange(3, dtype=np.float32), name="v")
    path = train.Checkpoint(v=v).save(tmp_path / "ckpt")
    manifest = json.loads(open(os.path.join(path, "manifest.json")).read())
    assert manifest["format"] == "descend.checkpoint" and manifest["schema_version"] == 2
    assert manifest["descend_version"] == ds.__version__ and manifest["save_counter"] == 1
    entry = manifest["tensors"]["v"]
    assert entry["shape"] == [3] and entry["dtype"] == "float32"
    import hashlib

    assert entry["sha256"] == hashlib.sha256(np.arange(3, dtype="<f4").tobytes()).hexdigest()
    assert manifest["variable_names"] == {"v": "v"} and manifest["objects"] == {}  # names are metadata
    assert manifest["tf_keys"] == {"v": "v/.ATTRIBUTES/VARIABLE_VALUE"} and manifest["tf_json_keys"] == {}
    reader = train.load_checkpoint(path)
    assert reader.keys() == ["_CHECKPOINTABLE_OBJECT_GRAPH", "save_counter/.ATTRIBUTES/VARIABLE_VALUE",
                             "v/.ATTRIBUTES/VARIABLE_VALUE"]
    assert reader.get_variable_to_dtype_map()["v/.ATTRIBUTES/VARIABLE_VALUE"] == np.float32
    assert reader.get_tensor("save_counter/.ATTRIBUTES/VARIABLE_VALUE") == 1
    with pytest.raises(KeyError, match="has no tensor 'v'"):  # descend's path is not a key any more
        reader.get_tensor("v")
    with pytest.raises(KeyError, match="has no tensor 'w'"):
        reader.get_tensor("w")
