"""What reading a file costs, bounded by the file's size and checked before the work.

Two tables. The hostile rows are small files that cost gigabytes before these bounds existed (issue 38,
items 1-7): each is read in a fresh process whose address space is limited to what it uses at the start
plus :data:`HEADROOM`, and must end in a clear error naming the file: never a ``MemoryError``, a signal
or a timeout. The bound rows state, for each reader, its peak memory and CPU time per byte of file, and
check them on generated files at two sizes (peak: the child's high-water resident set, reset just before
the read through ``/proc/self/clear_refs``).
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
import zipfile
import zlib

import numpy as np
import pytest

from descend.persistence.formats import crc32c, keras_zip, sstable, tf_bundle, wire

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the address space a hostile row may use beyond what its process uses when it starts reading
HEADROOM = 192 * 2**20
#: a child that runs longer than this has failed (the rows take well under a second each here)
TIMEOUT = 120

_CHILD = textwrap.dedent("""
    import json, os, resource, signal, sys, time
    import numpy as np
    import descend as ds
    import h5py
    from descend.persistence.formats import keras_h5, keras_zip, tf_bundle
    from descend.persistence.checkpoint_errors import CheckpointError

    def status(field):
        for line in open("/proc/self/status"):
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024

    def model():
        return ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2, name="dense")])

    ACTIONS = {
        "list_variables": lambda p: ds.train.list_variables(p),
        "load_checkpoint": lambda p: ds.train.load_checkpoint(p).get_variable_to_shape_map(),
        "restore": lambda p: ds.train.Checkpoint(model=model()).restore(p),
        "load_weights": lambda p: model().load_weights(p),
        "load_model": lambda p: ds.keras.models.load_model(p),
        "open_bundle": lambda p: len(tf_bundle.TensorBundle(p).keys()),
        "object_graph": lambda p: sum(len(n["children"]) for n in tf_bundle.object_graph(tf_bundle.TensorBundle(p))),
        "read_groups": lambda p: sum(len(v) for v in keras_h5.read_groups(p, p).values()),
        "open_archive": lambda p: len(keras_zip.KerasArchive(p, p).names()),
    }
    model()  # what an action needs besides its file is made once, before any measure
    for action, path, limit, timeout in json.loads(sys.argv[1]):
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # each read in a fresh fork: its own limit, its own high-water mark
            os.close(read)
            signal.alarm(timeout)
            if limit:
                start = status("VmSize")
                resource.setrlimit(resource.RLIMIT_AS, (start + limit, start + limit))
            try:
                with open("/proc/self/clear_refs", "w") as f:
                    f.write("5")  # the resident high-water mark starts again here
                reset = True
            except OSError:
                reset = False
            before, cpu = status("VmRSS"), time.process_time()
            out = {"error": None}
            try:
                ACTIONS[action](path)
            except MemoryError as e:
                out["error"], out["type"] = "MemoryError: " + str(e)[:300], "MemoryError"
            except Exception as e:
                out["error"], out["type"], out["clear"] = str(e)[:2000], type(e).__name__, isinstance(e, CheckpointError)
            out["cpu"] = time.process_time() - cpu
            out["peak"] = status("VmHWM") - before if reset else None
            os.write(write, json.dumps(out).encode())
            os._exit(0)
        os.close(write)
        with os.fdopen(read) as f:
            text = f.read()
        _, code = os.waitpid(pid, 0)
        if os.WIFSIGNALED(code):
            text = json.dumps({"signal": os.WTERMSIG(code), "error": "killed by signal", "type": "signal"})
        print(text or json.dumps({"error": "no result", "type": "none"}), flush=True)
""")


def _children(jobs: list) -> list[dict]:
    """Run ``(action, path, limit)`` jobs, each in a fresh fork of one prepared child; their results."""
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", NUMBA_NUM_THREADS="1", OMP_NUM_THREADS="1")
    jobs = [(a, str(p), limit, TIMEOUT) for a, p, limit in jobs]
    r = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(jobs)], capture_output=True, text=True,
                       timeout=TIMEOUT * (len(jobs) + 1), env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    return [json.loads(line) for line in r.stdout.strip().splitlines()]


# --- TensorFlow index files -------------------------------------------------------------------------------------------
def _framed(block: bytes) -> bytes:
    return block + b"\x00" + struct.pack("<I", crc32c.mask(crc32c.crc32c(block + b"\x00")))


def _block(entries) -> bytes:
    """One block of ``(shared, fresh key bytes, value)`` entries, one restart point."""
    body = bytearray()
    for shared, fresh, value in entries:
        body += wire.varint(shared) + wire.varint(len(fresh)) + wire.varint(len(value)) + fresh + value
    return bytes(body + struct.pack("<II", 0, 1))


def _table(block: bytes, last_key: bytes) -> bytes:
    out = bytearray(_framed(block))
    index = _block([(0, last_key, wire.varint(0) + wire.varint(len(block)))])
    meta_at, meta = len(out), _block([])
    out += _framed(meta)
    index_at = len(out)
    out += _framed(index)
    footer = wire.varint(meta_at) + wire.varint(len(meta)) + wire.varint(index_at) + wire.varint(len(index))
    return bytes(out + footer + bytes(40 - len(footer)) + struct.pack("<Q", sstable.MAGIC))


_HEADER = wire.encode({"num_shards": 1, "endianness": 0, "version": {"producer": 1}}, tf_bundle.HEADER)
_SCALAR = wire.encode({"dtype": 1, "size": 4, "crc32c": crc32c.mask(crc32c.crc32c(bytes(4)))}, tf_bundle.ENTRY)


def _bundle(tmp_path, index: bytes, data: bytes = bytes(4)) -> str:
    prefix = str(tmp_path / "ckpt-1")
    with open(prefix + ".index", "wb") as f:
        f.write(index)
    with open(tf_bundle.data_file(prefix, 0, 1), "wb") as f:
        f.write(data)
    return prefix


def shared_prefix_index(tmp_path, entries: int = 16000, prefix: int = 1 << 16) -> str:
    """Keys sharing a 64 KiB prefix, each entry a few bytes: every key rebuilt costs 64 KiB (item 1)."""
    rows = [(0, b"", _HEADER), (0, b"k" * prefix + b"0000", _SCALAR)]
    for i in range(1, entries):
        rows.append((prefix, f"{i:04x}".encode(), _SCALAR))
    key = b"k" * prefix + rows[-1][1]
    return _bundle(tmp_path, _table(_block(rows), key))


def ordinary_index(tmp_path, size: int) -> str:
    """An index of about ``size`` bytes of ordinary entries (TF 1 names, scalar float32 values; item 6)."""
    rows, n, total = [(b"", _HEADER)], 0, 0
    while total < size:
        key = f"dense_{n:07d}/kernel".encode()
        rows.append((key, _SCALAR))
        total += len(key) + len(_SCALAR) + 3
        n += 1
    return _bundle(tmp_path, sstable.encode_table(rows))


def smallest_entries_index(tmp_path, entries: int) -> str:
    """The most entries an index can hold per byte: 6-character names sharing what they can with the name
    before, values of 4 bytes (a float32 scalar: dtype and size), 8 bytes an entry."""
    value = wire.encode({"dtype": 1, "size": 4}, tf_bundle.ENTRY)
    rows, previous = [(0, b"", _HEADER)], b""
    for i in range(entries):
        key = f"{i:06x}".encode()
        shared = 0
        while shared < min(5, len(previous)) and key[shared] == previous[shared]:
            shared += 1
        rows.append((shared, key[shared:], value))
        previous = key
    return _bundle(tmp_path, _table(_block(rows), previous))


def huge_zero_shape_index(tmp_path) -> str:
    """An entry shaped (2**62, 2**62, 0): no bytes, but no array has that shape (item 7)."""
    entry = wire.encode({"dtype": 1, "shape": {"dim": [{"size": 2**62}, {"size": 2**62}, {"size": 0}]}},
                        tf_bundle.ENTRY)
    return _bundle(tmp_path, sstable.encode_table([(b"", _HEADER), (b"w", entry)]))


def _graph_bundle(tmp_path, graph: bytes, values: dict | None = None) -> str:
    prefix = str(tmp_path / "ckpt-1")
    tf_bundle.write_bundle(prefix, {tf_bundle.OBJECT_GRAPH_KEY: graph, **(values or {})})
    return prefix


def empty_nodes_graph(tmp_path, size: int = 3 << 20) -> str:
    """A TF 2 object graph of two-byte empty nodes after a root (item 4)."""
    return _graph_bundle(tmp_path, b"\x0a\x00" * (size // 2))


def wide_root_graph(tmp_path, children: int) -> str:
    """A root with ``children`` children, all pointing at node 1 (item 4: "a root with 5M children")."""
    child = b"\x0a\x05\x08\x01\x12\x01a"
    root = child * children
    return _graph_bundle(tmp_path, b"\x0a" + wire.varint(len(root)) + root + b"\x0a\x00")


def honest_graph(tmp_path, variables: int) -> str:
    """A TF 2 checkpoint's graph as TensorFlow writes it: a root, a list of ``variables`` variables."""
    nodes = [{"children": [("model", 1)]}, {"children": [(str(i), 2 + i) for i in range(variables)]}]
    values = {}
    for i in range(variables):
        key = f"model/{i}/.ATTRIBUTES/VARIABLE_VALUE"
        nodes.append({"value": key, "full_name": f"dense_{i}/kernel"})
        values[key] = np.float32(i)
    return _graph_bundle(tmp_path, tf_bundle.encode_object_graph(nodes), values)


# --- Keras files ----------------------------------------------------------------------------------------------------
def hard_links_h5(tmp_path, links: int, name: str = "w.weights.h5") -> str:
    """One small dataset and ``links`` more hard links to it (item 2)."""
    import h5py
    path = str(tmp_path / name)
    with h5py.File(path, "w", libver="latest") as f:
        group = f.require_group("layers/dense/vars")
        first = group.create_dataset("0", data=np.zeros((3, 2), np.float32))
        group["1"] = np.zeros(2, np.float32)
        for i in range(links):
            group[f"{i + 2}"] = first
    return path


def many_datasets_h5(tmp_path, count: int) -> str:
    """A weights file of ``count`` small datasets in groups of 100 (many objects: the dear case per byte)."""
    import h5py
    path = str(tmp_path / f"many{count}.weights.h5")
    with h5py.File(path, "w") as f:
        for g in range(0, count, 100):
            group = f.require_group(f"layers/dense_{g}/vars")
            for i in range(min(100, count - g)):
                group.create_dataset(str(i), data=np.full(4, i, np.float32))
    return path


def _saved_model(tmp_path, units: int = 2) -> tuple[str, dict]:
    import descend as ds
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(units, name="dense")])
    path = str(tmp_path / f"m{units}.keras")
    model.save(path)
    with zipfile.ZipFile(path) as z:
        return path, {i.filename: z.read(i) for i in z.infolist()}


def _deflated_member(z: zipfile.ZipFile, name: str, head: bytes, zeros: int) -> None:
    """``head`` then ``zeros`` bytes, zeros but for 512 random bytes in every MiB (so that deflate makes them
    about 800 times smaller, under the old 1000x limit), as a deflated member written a chunk at a time."""
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_DEFLATED
    noise = np.random.default_rng(0).bytes(512)
    with z.open(info, "w", force_zip64=True) as w:
        w.write(head)
        chunk = noise + bytes((1 << 20) - len(noise))
        for _ in range(zeros >> 20):
            w.write(chunk)


def zip_bomb_keras(tmp_path, inflated: int = 256 << 20) -> str:
    """A model archive whose weights member is its HDF5 file then mostly zeros, deflated ~800x (item 3)."""
    _, members = _saved_model(tmp_path)
    path = str(tmp_path / "bomb.keras")
    with zipfile.ZipFile(path, "w") as z:
        for name in (keras_zip.METADATA, keras_zip.CONFIG):
            z.writestr(name, members[name])
        _deflated_member(z, keras_zip.WEIGHTS, members[keras_zip.WEIGHTS], inflated)
    return path


def padded_weights_keras(tmp_path) -> str:
    """A real weights file followed by 3 MiB of bytes the HDF5 file does not hold (its superblock's
    end-of-file address is where the weights end), stored as Keras stores it."""
    _, members = _saved_model(tmp_path)
    path = str(tmp_path / "padded.keras")
    members[keras_zip.WEIGHTS] += np.random.default_rng(0).bytes(3 << 20)
    keras_zip.write_archive(path, members)
    return path


_CD_RECORD = struct.pack("<4s6H3L5H2L", b"PK\x01\x02", 20, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)


def directory_only_zip(tmp_path, records: int, declared: int) -> str:
    """A zip of ``records`` empty central-directory records and an end record declaring ``declared``
    members (zip64, so any count fits: item 5)."""
    path = str(tmp_path / "cd.keras")
    cd = _CD_RECORD * records
    with open(path, "wb") as f:
        f.write(cd)
        at = len(cd)
        f.write(struct.pack("<4sQ2H2L4Q", b"PK\x06\x06", 44, 45, 45, 0, 0, declared, declared, len(cd), 0))
        f.write(struct.pack("<4sLQL", b"PK\x06\x07", 0, at, 1))
        f.write(struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0))
    return path


def many_members_keras(tmp_path, count: int) -> str:
    path = str(tmp_path / f"members{count}.keras")
    with zipfile.ZipFile(path, "w") as z:
        for i in range(count):
            z.writestr(zipfile.ZipInfo(f"assets/file_{i:06d}", date_time=(1980, 1, 1, 0, 0, 0)), b"x" * 16)
    return path


def many_assets_keras(tmp_path, count: int) -> str:
    """A model archive with ``count`` small asset files in nested folders (load_model copies each out, checked)."""
    _, members = _saved_model(tmp_path)
    path = str(tmp_path / f"assets{count}.keras")
    for i in range(count):
        members[f"assets/layers/dense/d{i % 50:02d}/file_{i:06d}.txt"] = b"x" * 16
    keras_zip.write_archive(path, members)
    os.remove(os.path.join(tmp_path, "m2.keras"))
    return path


# --- the hostile table ------------------------------------------------------------------------------------------------
HOSTILE = [
    # (item, file, its maker, the reads tried on it, words the error must hold: None for a file that must load)
    (1, "shared_prefix_keys", shared_prefix_index, ("list_variables", "load_checkpoint", "restore"), "share prefixes"),
    (2, "hard_links_to_one_dataset", lambda t: hard_links_h5(t, 60000), ("load_weights",), "objects"),
    (3, "zip_bomb_of_weights", zip_bomb_keras, ("load_model",), "times"),
    (4, "object_graph_of_empty_nodes", empty_nodes_graph, ("restore",), "nodes"),
    (5, "central_directory_records_only", lambda t: directory_only_zip(t, 900_000, 900_000), ("load_model",),
     "members"),
    (6, "ten_mib_of_ordinary_index_entries", lambda t: ordinary_index(t, 10 << 20),
     ("list_variables",), None),
]


def test_hostile_files_end_in_a_clear_error_under_an_address_space_limit(tmp_path):
    """Every read in a fork whose address space is what it uses at the start plus HEADROOM."""
    rows = []
    for item, name, make, actions, words in HOSTILE:
        folder = tmp_path / name
        folder.mkdir()
        path = make(folder)
        rows += [(item, name, action, path, words) for action in actions]
    results = _children([(action, path, HEADROOM) for _, _, action, path, _ in rows])
    wrong = []
    for (item, name, action, path, words), out in zip(rows, results):
        if words is None:  # an honest file: it must load within the limit
            ok = out["error"] is None
        else:
            ok = (out["error"] is not None and out.get("clear") is True and os.path.basename(path) in out["error"]
                  and words in out["error"])
        if not ok:
            wrong.append(f"item {item} {name} ({action}): {out}")
    assert not wrong, "\n".join(wrong)


def _error(fn):
    import descend as ds
    with pytest.raises(ds.train.CheckpointError) as info:
        fn()
    return str(info.value)


def test_a_dataset_reached_twice_is_refused(tmp_path):
    import descend as ds
    path = hard_links_h5(tmp_path, 1)
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2, name="dense")])
    before = [w.numpy().copy() for w in model.weights]
    message = _error(lambda: model.load_weights(path))
    assert "w.weights.h5" in message and "second link" in message and "layers/dense/vars/0" in message
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, model.weights))


def test_a_padded_weights_member_is_refused_from_its_first_chunk(tmp_path, monkeypatch):
    import descend as ds
    path = padded_weights_keras(tmp_path)
    seen = []
    chunks = keras_zip.KerasArchive.chunks

    def counting(self, name, limit, max_ratio=keras_zip.MAX_RATIO):
        for chunk in chunks(self, name, limit, max_ratio):
            if name == keras_zip.WEIGHTS:
                seen.append(len(chunk))
            yield chunk

    monkeypatch.setattr(keras_zip.KerasArchive, "chunks", counting)
    message = _error(lambda: ds.keras.models.load_model(path))
    assert "padded.keras" in message and "end-of-file address" in message
    assert sum(seen) <= keras_zip.CHUNK_BYTES  # one chunk inflated of the 3 MiB


def test_a_wide_root_is_refused_before_its_children_are_built(tmp_path):
    import descend as ds
    prefix = wide_root_graph(tmp_path, tf_bundle.MAX_NODE_VALUES + 1)
    message = _error(lambda: tf_bundle.object_graph(tf_bundle.TensorBundle(prefix)))
    assert "ckpt-1" in message and "children" in message
    prefix = wide_root_graph(tmp_path, 1000)  # a root of 1000 children reads
    assert len(tf_bundle.object_graph(tf_bundle.TensorBundle(prefix))[0]["children"]) == 1000
    assert ds.train.list_variables(prefix)[0][0] == tf_bundle.OBJECT_GRAPH_KEY


def test_more_central_directory_records_than_declared_are_counted_not_parsed(tmp_path, monkeypatch):
    path = directory_only_zip(tmp_path, keras_zip.MAX_MEMBERS + 1, 3)
    monkeypatch.setattr(zipfile, "ZipFile", None)  # never reached: the count is refused first
    message = _error(lambda: keras_zip.KerasArchive(path, path))
    assert "cd.keras" in message and f"more than {keras_zip.MAX_MEMBERS} members" in message


def test_a_shape_whose_sizes_overflow_names_the_file(tmp_path):
    import descend as ds
    prefix = huge_zero_shape_index(tmp_path)
    for read in (ds.train.list_variables, ds.train.load_checkpoint):
        message = _error(lambda: read(prefix))
        assert "ckpt-1.index" in message and "2**63" in message and "entries['w'].shape" in message


def test_a_zip_bomb_is_refused_before_a_byte_is_inflated(tmp_path, monkeypatch):
    import descend as ds
    path = zip_bomb_keras(tmp_path, 64 << 20)
    monkeypatch.setattr(zlib, "decompressobj", None)  # inflating would fail with a TypeError
    message = _error(lambda: ds.keras.models.load_model(path))
    assert "bomb.keras" in message and "16 times" in message


def test_a_config_bomb_is_refused_before_a_byte_is_inflated(tmp_path, monkeypatch):
    """config.json may hold at most the archive's bytes (or 4 MiB): parsed JSON costs ~20x its text."""
    import descend as ds
    _, members = _saved_model(tmp_path)
    path = str(tmp_path / "config_bomb.keras")
    with zipfile.ZipFile(path, "w") as z:
        z.writestr(keras_zip.METADATA, members[keras_zip.METADATA])
        _deflated_member(z, keras_zip.CONFIG, b"[", 8 << 20)  # 8 MiB of JSON text from a 20 KB archive
        z.writestr(keras_zip.WEIGHTS, members[keras_zip.WEIGHTS])
    monkeypatch.setattr(zlib, "decompressobj", None)  # inflating would fail with a TypeError
    message = _error(lambda: ds.keras.models.load_model(path))
    assert "config_bomb.keras" in message and "config.json" in message and "at most 4194304" in message


# --- the bounds -------------------------------------------------------------------------------------------------------
# (reader, action, file maker taking a size knob, two knobs, bytes of memory per byte of file, plus a constant,
#  CPU seconds per byte of file, plus a constant). The files are the dear kind per byte for each reader.
MB = 2**20
BOUNDS = [
    ("tf_index_open", "open_bundle", ordinary_index, (MB // 4, MB), 4, 8 * MB, 2e-6, 1.0),
    ("tf_index_list_variables", "list_variables", ordinary_index, (MB // 4, MB), 12, 8 * MB, 4e-6, 1.0),
    ("tf_index_smallest_entries_open", "open_bundle", smallest_entries_index, (25_000, 100_000), 16, 8 * MB, 4e-6,
     1.0),
    ("tf_index_smallest_entries_list_variables", "list_variables", smallest_entries_index, (25_000, 100_000), 28,
     8 * MB, 4e-6, 1.0),
    ("tf_object_graph", "object_graph", honest_graph, (3_000, 12_000), 8, 8 * MB, 4e-6, 1.0),
    # HDF5 keeps a metadata cache of up to 32 MiB of its own (libhdf5's default): the constant
    ("keras_weights_h5", "read_groups", many_datasets_h5, (500, 2_000), 24, 40 * MB, 1e-5, 1.0),
    ("keras_archive_directory", "open_archive", many_members_keras, (5_000, 20_000), 12, 8 * MB, 2e-6, 1.0),
    # the model's own weights (built, then the file's), HDF5's cache and the layers' objects
    ("keras_model_archive", "load_model", lambda t, n: _saved_model(t, n)[0], (100_000, 400_000), 8, 40 * MB,
     1e-6, 2.0),
    # every asset member is checked, then written to a file of its own in a temporary folder (disk, not memory)
    ("keras_model_assets", "load_model", many_assets_keras, (2_000, 8_000), 8, 40 * MB, 4e-6, 2.0),
]


@pytest.mark.parametrize("reader,action,make,sizes,per_byte,constant,cpu_per_byte,cpu_constant", BOUNDS,
                         ids=[r[0] for r in BOUNDS])
def test_each_reader_costs_a_stated_multiple_of_the_file(tmp_path, reader, action, make, sizes, per_byte, constant,
                                                          cpu_per_byte, cpu_constant):
    """Peak memory <= per_byte * file bytes + constant; CPU time <= cpu_per_byte * file bytes + cpu_constant."""
    paths, bytes_of = [], []
    for i, knob in enumerate(sizes):
        folder = tmp_path / str(i)
        folder.mkdir()
        paths.append(make(folder, knob))
        bytes_of.append(sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder)))
    for size, out in zip(bytes_of, _children([(action, p, None) for p in paths])):
        assert out["error"] is None, out
        if out["peak"] is None:
            pytest.skip("this system does not let a process reset its resident high-water mark (/proc/self/clear_refs)")
        assert out["peak"] <= per_byte * size + constant, (reader, size, out)
        assert out["cpu"] <= cpu_per_byte * size + cpu_constant, (reader, size, out)
