"""Hostile and broken checkpoint files, one row each: every case raises a CheckpointError subclass
whose message is bounded and names the file and the field, and leaves every object unchanged.
Hand-edited manifests get their checksum recomputed, so the reader's checks, not the checksum,
must catch them. The 1.5 GiB sparse files are refused without being read (one row runs under a
1 GiB address-space limit)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import descend as ds
import descend.train as train
from descend.persistence import checkpoint_errors as errors
from descend.persistence import durable
from descend.persistence.checkpoint import descend_format as fmt
from descend.persistence.checkpoint import trackable

GIB = 2**30


def _objects():
    ds.clear_session()
    model = ds.Sequential([ds.layers.Dense(3, kernel_initializer=ds.initializers.GlorotUniform(seed=1)),
                           ds.layers.Dropout(0.5, seed=2), ds.layers.Dense(2)])
    opt = ds.optimizers.Adam(0.01)
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(ds.square(model(x, training=True)))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_weights), model.trainable_weights))
    return model, opt, x


def _snapshot(model, opt):
    graph = trackable.walk({"m": model, "o": opt})
    out = {}
    for leaf in graph.leaves:
        for k, v in leaf.state().items():
            out[leaf.full(k)] = v.copy() if isinstance(v, np.ndarray) else json.dumps(v, sort_keys=True)
    return out


def _same(a, b):
    return sorted(a) == sorted(b) and all(
        np.array_equal(a[k], b[k]) if isinstance(a[k], np.ndarray) else a[k] == b[k] for k in a)


def _edit_manifest(path, fn, raw=None):
    """Apply ``fn`` to the manifest and recompute its checksum (a careful forger)."""
    mfile = os.path.join(path, fmt.MANIFEST_FILE)
    if raw is not None:
        with open(mfile, "wb") as f:
            f.write(raw)
        return
    manifest = json.loads(open(mfile).read())
    fn(manifest)
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    manifest["manifest_sha256"] = fmt.sha256(fmt.canonical(body))
    with open(mfile, "w") as f:
        f.write(json.dumps(manifest))


def _set_tensor(path, key, value):
    """Replace one tensor's bytes and recompute every checksum (tensor, file, manifest)."""
    manifest = json.loads(open(os.path.join(path, fmt.MANIFEST_FILE)).read())
    reader = {k: np.asarray(v) for k, v in fmt.read_checkpoint(path)[1].items()}
    reader[key] = np.asarray(value, dtype=reader[key].dtype).reshape(reader[key].shape)
    for name in (fmt.TENSORS_FILE, fmt.MANIFEST_FILE):
        os.remove(os.path.join(path, name))
    os.rmdir(path)
    keep = {k: manifest[k] for k in ("objects", "variable_names", "save_counter")}
    fmt.write_checkpoint_dir(path, reader, fmt.new_manifest(keep["objects"], keep["variable_names"],
                                                            keep["save_counter"]))


def _sparse(path, size):
    with open(path, "wb") as f:
        f.truncate(size)  # a sparse file: no disk, no memory


# --- the mutations -------------------------------------------------------------------------------------------
def huge_tensors_file(path, tmp):
    os.remove(os.path.join(path, fmt.TENSORS_FILE))
    _sparse(os.path.join(path, fmt.TENSORS_FILE), 3 * GIB // 2)


def huge_manifest(path, tmp):
    _sparse(os.path.join(path, fmt.MANIFEST_FILE), 3 * GIB // 2)


def huge_tensor_claimed(path, tmp):
    """A manifest that declares a 1.5 GiB tensor (and a file of that size): consistent sizes, so the
    header check and the checksum must refuse it, never an allocation of the declared size first."""
    def fn(m):
        m["tensors"]["model/layers/0/bias"]["shape"] = [3 * GIB // 8]
        m["tensors_file"]["size"] = 8 + m["tensors_file"]["header_size"] + 3 * GIB // 2 + sum(
            int(np.prod(t["shape"])) * np.dtype(t["dtype"]).itemsize for k, t in m["tensors"].items()
            if k != "model/layers/0/bias")
    _edit_manifest(path, fn)
    m = json.loads(open(os.path.join(path, fmt.MANIFEST_FILE)).read())
    with open(os.path.join(path, fmt.TENSORS_FILE), "r+b") as f:
        f.truncate(m["tensors_file"]["size"])


def deep_json(path, tmp):
    _edit_manifest(path, None, raw=b"[" * 100_000 + b"]" * 100_000)


def deep_json_in_state(path, tmp):
    _edit_manifest(path, lambda m: m["objects"]["model/layers/1"].__setitem__(
        "json", json.loads("[" * 70 + "]" * 70)))


def not_an_object(path, tmp):
    _edit_manifest(path, None, raw=b'["descend.checkpoint"]')


def tensors_is_a_list(path, tmp):
    _edit_manifest(path, lambda m: m.__setitem__("tensors", list(m["tensors"])))


def shape_is_a_string(path, tmp):
    _edit_manifest(path, lambda m: m["tensors"]["model/layers/0/kernel"].__setitem__("shape", "5x3"))


def negative_dimension(path, tmp):
    _edit_manifest(path, lambda m: m["tensors"]["model/layers/0/kernel"].__setitem__("shape", [-5, -3]))


def object_dtype(path, tmp):
    _edit_manifest(path, lambda m: m["tensors"]["model/layers/0/kernel"].__setitem__("dtype", "object"))


def fifty_megabyte_field(path, tmp):
    _edit_manifest(path, lambda m: m["tensors"]["model/layers/0/kernel"].__setitem__("dtype", "x" * 50_000_000))


def huge_integer(path, tmp):
    import re

    raw = re.sub(rb'"save_counter": \d+', b'"save_counter": ' + b"9" * 100_000,
                 open(os.path.join(path, fmt.MANIFEST_FILE), "rb").read())
    assert b"9" * 100_000 in raw
    _edit_manifest(path, None, raw=raw)


def negative_save_counter(path, tmp):
    _edit_manifest(path, lambda m: m.__setitem__("save_counter", -1))


def objects_entry_not_a_dict(path, tmp):
    _edit_manifest(path, lambda m: m["objects"].__setitem__("model/layers/1", ["rng"]))


def json_state_not_a_dict(path, tmp):
    _edit_manifest(path, lambda m: m["objects"]["model/layers/1"].__setitem__("json", "rng"))


def generator_state_garbage(path, tmp):
    _edit_manifest(path, lambda m: m["objects"]["model/layers/1"]["json"].__setitem__(
        "rng", {"bit_generator": "PCG64", "state": {"state": "x", "inc": None}}))


def header_lies_about_offsets(path, tmp):
    tfile = os.path.join(path, fmt.TENSORS_FILE)
    data = bytearray(open(tfile, "rb").read())
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + n])
    first = sorted(header)[0]
    begin, end = header[first]["data_offsets"]
    header[first]["data_offsets"] = [begin, end + 1 if len(str(end + 1)) == len(str(end)) else end - 1]
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw = raw + b" " * (n - len(raw)) if len(raw) <= n else raw
    assert len(raw) == n
    data[8:8 + n] = raw
    open(tfile, "wb").write(bytes(data))


def negative_iterations(path, tmp):
    _set_tensor(path, "optimizer/iterations", -5)


def negative_second_moment(path, tmp):
    _set_tensor(path, "optimizer/model/layers/0/kernel/v", -np.ones(15))


def nan_first_moment(path, tmp):
    _set_tensor(path, "optimizer/model/layers/0/kernel/m", np.full(15, np.nan))


def manifest_symlink_out(path, tmp):
    outside = os.path.join(tmp, "outside.json")
    os.replace(os.path.join(path, fmt.MANIFEST_FILE), outside)
    os.symlink(outside, os.path.join(path, fmt.MANIFEST_FILE))


def tensors_symlink_out(path, tmp):
    outside = os.path.join(tmp, "outside.bin")
    os.replace(os.path.join(path, fmt.TENSORS_FILE), outside)
    os.symlink(outside, os.path.join(path, fmt.TENSORS_FILE))


def tensors_fifo(path, tmp):
    os.remove(os.path.join(path, fmt.TENSORS_FILE))
    os.mkfifo(os.path.join(path, fmt.TENSORS_FILE))  # opening it for reading would block


def truncated(path, tmp):
    tfile = os.path.join(path, fmt.TENSORS_FILE)
    with open(tfile, "r+b") as f:
        f.truncate(os.path.getsize(tfile) - 7)


def _declare_header(path, n):
    """Make the tensors file declare an ``n``-byte header (sparse: nothing written), the manifest agreeing
    with it and its checksum recomputed (a careful forger)."""
    tfile = os.path.join(path, fmt.TENSORS_FILE)
    old = open(tfile, "rb").read()
    data = old[8 + int.from_bytes(old[:8], "little"):]
    with open(tfile, "wb") as f:
        f.write(n.to_bytes(8, "little") + b"{")
        f.truncate(8 + n + len(data))
        f.seek(8 + n)
        f.write(data)

    def fn(m):
        m["tensors_file"]["header_size"] = n
        m["tensors_file"]["size"] = 8 + n + len(data)
    _edit_manifest(path, fn)


def header_declares_64_mib(path, tmp):
    _declare_header(path, 64 * 2**20)


def header_declares_1_gib(path, tmp):
    _declare_header(path, GIB)


def header_padded_past_the_slack(path, tmp):
    _declare_header(path, len(open(os.path.join(path, fmt.TENSORS_FILE), "rb").read()) + fmt.HEADER_SLACK + 64)


ROWS = [  # (mutation, error class, the field or file the message must name)
    (huge_tensors_file, errors.CheckpointCorruptedError, "tensors.safetensors"),
    (huge_manifest, errors.CheckpointCorruptedError, "manifest.json"),
    (huge_tensor_claimed, errors.CheckpointCorruptedError, "model/layers/0/bias"),
    (deep_json, errors.CheckpointCorruptedError, "manifest.json"),
    (deep_json_in_state, errors.CheckpointCorruptedError, "manifest.json"),
    (not_an_object, errors.CheckpointCorruptedError, "manifest.json"),
    (tensors_is_a_list, errors.CheckpointCorruptedError, "'tensors'"),
    (shape_is_a_string, errors.CheckpointCorruptedError, "tensors.model/layers/0/kernel.shape"),
    (negative_dimension, errors.CheckpointCorruptedError, "tensors.model/layers/0/kernel.shape"),
    (object_dtype, errors.CheckpointCorruptedError, "tensors.model/layers/0/kernel.dtype"),
    (fifty_megabyte_field, errors.CheckpointCorruptedError, "tensors.model/layers/0/kernel.dtype"),
    (huge_integer, errors.CheckpointCorruptedError, "manifest.json"),
    (negative_save_counter, errors.CheckpointCorruptedError, "save_counter"),
    (objects_entry_not_a_dict, errors.CheckpointCorruptedError, "objects.model/layers/1"),
    (json_state_not_a_dict, errors.CheckpointMismatchError, "model/layers/1"),
    (generator_state_garbage, errors.CheckpointMismatchError, "model/layers/1"),
    (header_lies_about_offsets, errors.CheckpointCorruptedError, "byte range"),
    (negative_iterations, errors.CheckpointMismatchError, "iterations"),
    (negative_second_moment, errors.CheckpointMismatchError, "model/layers/0/kernel/v"),
    (nan_first_moment, errors.CheckpointMismatchError, "model/layers/0/kernel/m"),
    (manifest_symlink_out, errors.CheckpointCorruptedError, "symbolic link"),
    (tensors_symlink_out, errors.CheckpointCorruptedError, "symbolic link"),
    (tensors_fifo, errors.CheckpointCorruptedError, "not a regular file"),
    (truncated, errors.CheckpointCorruptedError, "tensors.safetensors"),
    (header_declares_64_mib, errors.CheckpointCorruptedError, "tensors_file.header_size"),
    (header_declares_1_gib, errors.CheckpointCorruptedError, "tensors_file.header_size"),
    (header_padded_past_the_slack, errors.CheckpointCorruptedError, "tensors_file.header_size"),
]


@pytest.mark.parametrize("mutate,error,names", ROWS, ids=[r[0].__name__ for r in ROWS])
def test_hostile_checkpoint_files(tmp_path, mutate, error, names):
    model, opt, x = _objects()
    ckpt = train.Checkpoint(model=model, optimizer=opt)
    path = ckpt.write(tmp_path / "ckpt")
    with ds.GradientTape() as tape:  # the objects move on: a restore would show
        loss = ds.reduce_sum(ds.square(model(x, training=True)))
    opt.apply_gradients(zip(tape.gradient(loss, model.trainable_weights), model.trainable_weights))
    before = _snapshot(model, opt)
    mutate(path, str(tmp_path))
    with pytest.raises(error) as info:
        ckpt.restore(path)
    message = str(info.value)
    assert len(message) <= errors.MAX_MESSAGE
    assert names in message
    assert _same(before, _snapshot(model, opt))


# --- the directory: index, rotation, writers, read-only --------------------------------------------------------
def _manager(tmp_path, **kw):
    v = ds.Variable(np.arange(3, dtype=np.float32), name="v")
    return v, train.CheckpointManager(train.Checkpoint(v=v), tmp_path / "run", **kw)


@pytest.mark.parametrize("raw,names", [
    (b"[" * 100_000 + b"]" * 100_000, "nests 100000 levels"),
    (b'{"format": "descend.checkpoint_index", "checkpoints": {"name": "ckpt-1"}}', "'checkpoints'"),
    (b'{"format": "something else", "checkpoints": []}', "'format'"),
    (b"\xff\xfe not json", "checkpoint index is corrupted"),
])
def test_hostile_index(tmp_path, raw, names):
    v, manager = _manager(tmp_path)
    manager.save()
    manager.close()
    with open(tmp_path / "run" / fmt.INDEX_FILE, "wb") as f:
        f.write(raw)
    for call in (lambda: train.latest_checkpoint(tmp_path / "run"), lambda: _manager(tmp_path)):
        with pytest.raises(errors.CheckpointCorruptedError) as info:
            call()
        assert names in str(info.value) and "checkpoint.json" in str(info.value)
        assert len(str(info.value)) <= errors.MAX_MESSAGE


def test_huge_index_is_refused_without_reading(tmp_path):
    v, manager = _manager(tmp_path)
    manager.save()
    manager.close()
    _sparse(tmp_path / "run" / fmt.INDEX_FILE, 3 * GIB // 2)
    with pytest.raises(errors.CheckpointCorruptedError, match="refused without reading"):
        train.latest_checkpoint(tmp_path / "run")


def test_rotation_deletes_only_what_the_manager_wrote(tmp_path):
    v, manager = _manager(tmp_path, max_to_keep=1)
    manager.save()
    index_path = tmp_path / "run" / fmt.INDEX_FILE
    index = json.loads(index_path.read_text())
    user = tmp_path / "run" / "ckpt-0"  # a user folder with a checkpoint-like name, listed by an edited index
    user.mkdir()
    (user / "thesis.tex").write_text("years of work")
    outside = tmp_path / "precious"
    outside.mkdir()
    (outside / "data.txt").write_text("keep")
    os.symlink(outside, tmp_path / "run" / "ckpt-00")
    index["checkpoints"] = [{"name": "ckpt-0"}, {"name": "ckpt-00"}, {"name": "../precious"}] + index["checkpoints"]
    index_path.write_text(json.dumps(index))
    manager.close()
    v2, manager2 = _manager(tmp_path, max_to_keep=1)
    for _ in range(3):
        manager2.save()
    assert (user / "thesis.tex").read_text() == "years of work"
    assert (outside / "data.txt").read_text() == "keep" and os.path.islink(tmp_path / "run" / "ckpt-00")
    assert [os.path.basename(p) for p in manager2.checkpoints] == ["ckpt-4"]
    assert not (tmp_path / "run" / "ckpt-2").exists()  # what it wrote itself does rotate


_HOLDER = r"""
import sys, time
sys.path.insert(0, {root!r})
import numpy as np, descend as ds, descend.train as train
m = train.CheckpointManager(train.Checkpoint(v=ds.Variable(np.ones(2, np.float32))), {d!r})
m.save()
print("holding", flush=True)
time.sleep(60)
"""


def test_a_second_writer_gets_a_clear_error(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    d = str(tmp_path / "run")
    proc = subprocess.Popen([sys.executable, "-c", _HOLDER.format(root=root, d=d)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "holding"
        leftover = os.path.join(d, ".tmp-ckpt-9-0123456789ab")  # as if the other writer were mid-save
        os.mkdir(leftover)
        v = ds.Variable(np.zeros(2, np.float32), name="v")
        manager = train.CheckpointManager(train.Checkpoint(v=v), d)
        assert os.path.isdir(leftover)  # not deleted: it may be the other writer's
        with pytest.raises(errors.CheckpointLockedError, match=rf"another process \(pid {proc.pid}\)"):
            manager.save()
        assert manager.restore_or_initialize() is not None and np.all(v.numpy() == 1)  # reading is fine
    finally:
        proc.kill()
        proc.wait()
    manager = train.CheckpointManager(train.Checkpoint(v=v), d)  # the holder is gone: its lock with it
    manager.save()
    assert not os.path.exists(leftover)


def test_read_only_folder_with_a_leftover_can_be_read(tmp_path, monkeypatch):
    v, manager = _manager(tmp_path)
    manager.save()
    manager.close()
    os.mkdir(tmp_path / "run" / ".tmp-ckpt-2-0123456789ab")
    if os.geteuid() == 0:  # root ignores permissions: make the folder refuse writes the way it would
        real_open = os.open

        def ro_open(p, flags, *a, **k):
            if str(p).startswith(str(tmp_path / "run")) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
                raise PermissionError(13, "Read-only file system", str(p))
            return real_open(p, flags, *a, **k)

        def ro_rmtree(p, *a, **k):
            raise PermissionError(13, "Read-only file system", str(p))
        monkeypatch.setattr(os, "open", ro_open)
        monkeypatch.setattr(fmt.shutil, "rmtree", ro_rmtree)
    else:
        os.chmod(tmp_path / "run", 0o555)
    try:
        v2 = ds.Variable(np.zeros(3, np.float32), name="v")
        reader = train.CheckpointManager(train.Checkpoint(v=v2), tmp_path / "run")
        assert reader.restore_or_initialize() is not None and np.array_equal(v2.numpy(), [0, 1, 2])
        with pytest.raises(errors.CheckpointError, match="not writable"):
            reader.save()
    finally:
        os.chmod(tmp_path / "run", 0o755)


_LIMITED = r"""
import resource, sys
sys.path.insert(0, {root!r})
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # 1 GiB of address space
import numpy as np, descend as ds, descend.train as train
from descend.persistence import checkpoint_errors as errors
v = ds.Variable(np.zeros(3, np.float32), name="v")
for path in {paths!r}:
    try:
        train.Checkpoint(v=v).restore(path)
    except errors.CheckpointError as e:
        print(type(e).__name__, len(str(e)))
    else:
        print("restored")
"""


def test_sparse_files_are_refused_under_a_1_gib_memory_limit(tmp_path):
    v = ds.Variable(np.arange(3, dtype=np.float32), name="v")
    paths = []
    for name, mutate in (("t", huge_tensors_file), ("m", huge_manifest), ("h", header_declares_64_mib),
                         ("g", header_declares_1_gib)):
        path = train.Checkpoint(v=v).write(tmp_path / name)
        mutate(path, str(tmp_path))
        paths.append(path)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, "-c", _LIMITED.format(root=root, paths=paths)], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    lines = r.stdout.split("\n")
    assert all(line.startswith("CheckpointCorruptedError") for line in lines[:4]), lines


# --- the tensors header: compared with the manifest's in pieces, never parsed when large --------------------------
def _many(tmp_path, n):
    variables = {f"v{i:05d}": ds.Variable(np.full(2, i, np.float32), name=f"v{i}") for i in range(n)}
    return variables, train.Checkpoint(**variables).write(tmp_path / "many")


def test_a_large_header_is_read_in_pieces_and_refused_when_it_differs(tmp_path):
    variables, path = _many(tmp_path, 30_000)
    header = int.from_bytes(open(os.path.join(path, fmt.TENSORS_FILE), "rb").read(8), "little")
    assert header > fmt.HEADER_DIAGNOSE_BYTES  # more than is ever parsed
    import tracemalloc

    def peak(fn):
        tracemalloc.start()
        try:
            return fn(), tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    _, manifest_alone = peak(lambda: fmt.read_json_file(path, fmt.MANIFEST_FILE, "manifest"))
    (manifest, tensors), whole = peak(lambda: fmt.read_checkpoint(path))
    assert len(tensors) == 30_000 and float(tensors["v12345"][0]) == 12345
    # the parsed manifest dominates; the header, compared in pieces, adds no parsed copy of itself (~5x its size)
    assert whole - manifest_alone < 2 * header + 4 * 2**20, (whole, manifest_alone, header)
    tfile = os.path.join(path, fmt.TENSORS_FILE)
    with open(tfile, "r+b") as f:  # one digit of one offset changed, same length: the bytes differ
        raw = f.read(8 + header)
        at = raw.rindex(b'"data_offsets":[', 0, 8 + header // 2) + len('"data_offsets":[')
        f.seek(at)
        f.write(b"9" if raw[at:at + 1] != b"9" else b"8")
    with pytest.raises(errors.CheckpointCorruptedError, match="differs from the one the manifest's 30000 tensors"):
        train.Checkpoint(**variables).restore(path)


# --- reads racing a CheckpointManager's rotation --------------------------------------------------------------------
def test_a_checkpoint_rotated_away_while_read_is_reported_gone_not_corrupted(tmp_path, monkeypatch):
    v, manager = _manager(tmp_path, max_to_keep=1)
    path = manager.save()
    real = fmt.read_json_file

    def read_then_rotate(directory, name, *a, **k):  # the manager deletes it just after its manifest was read
        out = real(directory, name, *a, **k)
        if name == fmt.MANIFEST_FILE and os.path.isdir(path):
            durable.remove_tree(path)
        return out
    monkeypatch.setattr(fmt, "read_json_file", read_then_rotate)
    with pytest.raises(FileNotFoundError, match="deleted while it was read"):
        train.Checkpoint(v=v).restore(path)


def test_reads_racing_rotation_never_report_corruption(tmp_path):
    import threading

    v, manager = _manager(tmp_path, max_to_keep=1)
    manager.save()
    done = threading.Event()
    outcomes = {"read": 0, "gone": 0, "corrupted": []}

    def write():
        try:
            for _ in range(150):
                manager.save()
        finally:
            done.set()
    writer = threading.Thread(target=write)
    writer.start()
    reader_var = ds.Variable(np.zeros(3, np.float32), name="v")
    while not done.is_set():
        latest = train.latest_checkpoint(tmp_path / "run")
        try:
            train.Checkpoint(v=reader_var).restore(latest)
            outcomes["read"] += 1
        except FileNotFoundError:
            outcomes["gone"] += 1
        except errors.CheckpointCorruptedError as e:
            outcomes["corrupted"].append(str(e)[:200])
    writer.join()
    assert outcomes["corrupted"] == [] and outcomes["read"] > 0, outcomes
