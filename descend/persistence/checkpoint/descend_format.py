"""The checkpoint's files: writing them durably and reading them defensively.

A checkpoint is a directory holding ``tensors.safetensors`` (every tensor,
little-endian, in the safetensors layout: an 8-byte header length, a JSON
header, the raw bytes) and ``manifest.json`` (the format name,
``schema_version``, per tensor its shape, dtype, SHA-256 and the name of the
variable it came from, per object its kind, class and JSON state, the size,
header size and SHA-256 of the tensors file, and the SHA-256 of the manifest
itself). Nothing is pickled and reading never executes code.

Reading trusts nothing: files are opened without following symbolic links and
must be regular files; the manifest's size and JSON nesting depth are checked
before it is parsed; the tensors file's size must equal what the manifest's
shapes and dtypes add up to before any of it is read, and each tensor's byte
range is checked against the header and the manifest before it is read. Any
problem raises a :class:`CheckpointCorruptedError` whose message names the
file and the field and is bounded in length.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> from descend.persistence.checkpoint import descend_format as fmt
    >>> path = os.path.join(tempfile.mkdtemp(), "ckpt-1")
    >>> fmt.write_checkpoint_dir(path, {"w": np.arange(3, dtype=np.float32)}, fmt.new_manifest({}, {}, 1))
    >>> manifest, tensors = fmt.read_checkpoint(path)
    >>> tensors["w"]
    array([0., 1., 2.], dtype=float32)
"""

from __future__ import annotations

import datetime
import errno
import hashlib
import json
import os
import re
import shutil
import stat
import struct
import sys
import time

import numpy as np

from ..bounded_read import MAX_JSON_DEPTH, open_regular, parse_json
from ..checkpoint_errors import CheckpointCorruptedError, CheckpointError, CheckpointLockedError, short
from ..durable import TMP_PREFIX, naming_target, replace_dir, temp_dir, write_durable

__all__ = [
    "FORMAT", "INDEX_FORMAT", "SCHEMA_VERSION", "TENSORS_FILE", "MANIFEST_FILE", "INDEX_FILE", "LOCK_FILE",
    "MAX_MANIFEST_BYTES", "MAX_JSON_DEPTH", "write_checkpoint_dir", "read_checkpoint", "read_json_file",
    "new_manifest", "is_checkpoint_dir", "DirectoryLock", "to_json", "from_json",
]

FORMAT = "descend.checkpoint"
INDEX_FORMAT = "descend.checkpoint_index"
SCHEMA_VERSION = 2
TENSORS_FILE = "tensors.safetensors"
MANIFEST_FILE = "manifest.json"
INDEX_FILE = "checkpoint.json"
LOCK_FILE = ".lock"
MANAGER_FILE = ".manager"  # the token a CheckpointManager marks its checkpoints with (rotation deletes only those)
#: the largest manifest or index read (bytes); they hold shapes, checksums and small JSON states
MAX_MANIFEST_BYTES = 64 * 2**20

_DTYPES = {  # numpy dtype name -> safetensors code
    "bool": "BOOL", "int8": "I8", "int16": "I16", "int32": "I32", "int64": "I64", "uint8": "U8", "uint16": "U16",
    "uint32": "U32", "uint64": "U64", "float16": "F16", "float32": "F32", "float64": "F64",
}
_CODES = {v: k for k, v in _DTYPES.items()}
SUPPORTED_DTYPES = frozenset(np.dtype(k) for k in _DTYPES)
_CHUNK = 1 << 22
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


# ---------------------------------------------------------------------------------------------------------------
# JSON states (numpy values tagged, nothing executable)
# ---------------------------------------------------------------------------------------------------------------
def to_json(obj, where: str, depth: int = 0):
    """A JSON-able copy of a state value (numpy scalars and numeric arrays tagged)."""
    if depth > MAX_JSON_DEPTH - 8:
        raise TypeError(f"{where}: a JSON state may nest at most {MAX_JSON_DEPTH - 8} levels")
    if obj is None or isinstance(obj, (bool, str, int)):
        return obj
    if isinstance(obj, float):
        return obj
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            raise TypeError(f"{where}: cannot store an array of dtype {obj.dtype} in a checkpoint's JSON state")
        return {"__ndarray__": obj.tolist(), "dtype": obj.dtype.name}
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: JSON state keys must be strings. Received key {short(k)}")
            out[k] = to_json(v, f"{where}.{k}", depth + 1)
        return out
    if isinstance(obj, (list, tuple)):
        return [to_json(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(obj)]
    raise TypeError(f"{where}: a checkpoint's JSON state holds numbers, strings, lists, dicts and numeric arrays. "
                    f"Received {type(obj).__name__}")


def from_json(obj, where: str = "state"):
    """The value :func:`to_json` stored (arrays rebuilt); a malformed array tag raises CheckpointCorruptedError."""
    if isinstance(obj, dict):
        if set(obj) == {"__ndarray__", "dtype"}:
            name = obj["dtype"]
            if not isinstance(name, str) or name not in _DTYPES:
                raise CheckpointCorruptedError(f"{where}: unsupported array dtype {short(name)}", [where])
            try:
                return np.array(obj["__ndarray__"], dtype=np.dtype(name))
            except (TypeError, ValueError, OverflowError) as e:
                raise CheckpointCorruptedError(f"{where}: malformed array ({short(str(e))})", [where]) from None
        return {k: from_json(v, f"{where}.{k}") for k, v in obj.items()}
    if isinstance(obj, list):
        return [from_json(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    return obj


def canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def sha256(data) -> str:
    return hashlib.sha256(data).hexdigest()


def read_json_file(directory: str, name: str, what: str, limit: int | None = None):
    """Read and parse a JSON file of the checkpoint format, size and depth checked first."""
    limit = MAX_MANIFEST_BYTES if limit is None else limit
    f, size = open_regular(directory, name, what)
    full = os.path.join(directory, name)
    with f:
        if size > limit:
            raise CheckpointCorruptedError(f"{full}: the {what} has {size} bytes; at most {limit} are read "
                                           "(refused without reading it)", [name])
        raw = f.read(size + 1)  # not limit + 1: reading allocates the size asked for
    return parse_json(raw, full, what)


def is_checkpoint_dir(path: str) -> bool:
    """A real directory (not a link) holding a regular ``manifest.json``."""
    try:
        st = os.lstat(path)
        mst = os.lstat(os.path.join(path, MANIFEST_FILE))
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and stat.S_ISREG(mst.st_mode)


# ---------------------------------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------------------------------
def _descend_version() -> str:
    return str(getattr(sys.modules.get("descend"), "__version__", "unknown"))


def new_manifest(objects: dict, names: dict, counter: int, extra: dict | None = None) -> dict:
    """The manifest's fields that do not depend on the tensors' bytes."""
    now = time.time()
    manifest = {
        "format": FORMAT,
        "schema_version": SCHEMA_VERSION,
        "descend_version": _descend_version(),
        "created": now,
        "created_utc": datetime.datetime.fromtimestamp(now, datetime.timezone.utc).isoformat(),
        "save_counter": int(counter),
        "objects": objects,
        "variable_names": names,
    }
    manifest.update(extra or {})
    return manifest


def _tensors_header(tensors: dict[str, np.ndarray]) -> tuple[bytes, list]:
    header, order, offset = {}, [], 0
    for key in sorted(tensors):
        arr = tensors[key]
        header[key] = {"dtype": _DTYPES[arr.dtype.name], "shape": list(arr.shape),
                       "data_offsets": [offset, offset + arr.nbytes]}
        order.append((key, arr))
        offset += arr.nbytes
    raw = json.dumps(header, separators=(",", ":")).encode("utf-8")
    raw += b" " * (-len(raw) % 8)  # the safetensors layout aligns the data to 8 bytes
    return raw, order


def _write_tensors_file(path: str, tensors: dict[str, np.ndarray]) -> dict:
    header, order = _tensors_header(tensors)
    whole = hashlib.sha256()
    size = 0
    with open(path, "xb") as f:
        for chunk in (struct.pack("<Q", len(header)), header):
            f.write(chunk)
            whole.update(chunk)
            size += len(chunk)
        for _, arr in order:
            data = memoryview(np.ascontiguousarray(arr)).cast("B")
            f.write(data)
            whole.update(data)
            size += len(data)
        f.flush()
        os.fsync(f.fileno())
    return {"name": TENSORS_FILE, "size": size, "header_size": len(header), "sha256": whole.hexdigest()}


def write_checkpoint_dir(path: str, tensors: dict[str, np.ndarray], manifest: dict,
                         adopt: dict[str, str] | None = None) -> None:
    """Write a checkpoint directory atomically (temporary directory, fsync, rename).

    ``tensors`` must be little-endian C-contiguous arrays of supported dtypes;
    ``manifest`` gets the ``tensors``, ``tensors_file`` and ``manifest_sha256`` fields.
    ``adopt`` maps names to directories (shards written by other processes, see ``shards``
    in :func:`read_checkpoint`) moved into the checkpoint before it appears.
    """
    manifest["tensors"] = {k: {"shape": list(a.shape), "dtype": a.dtype.name,
                               "sha256": sha256(memoryview(np.ascontiguousarray(a)).cast("B"))}
                           for k, a in sorted(tensors.items())}
    parent = os.path.dirname(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    if os.path.islink(path):
        raise FileExistsError(f"Checkpoint: '{path}' is a symbolic link; refusing to replace it")
    if os.path.lexists(path) and not (is_checkpoint_dir(path) or (os.path.isdir(path) and not os.listdir(path))):
        raise FileExistsError(f"Checkpoint: '{path}' exists and is not a checkpoint; refusing to replace it")
    with naming_target(path):  # a full disk or a read-only folder names the checkpoint, not a temporary name
        held = temp_dir(path)  # locked while it is written: a later write tells it from a dead one's
        tmp = held.path
        try:
            manifest["tensors_file"] = _write_tensors_file(os.path.join(tmp, TENSORS_FILE), tensors)
            manifest["manifest_sha256"] = sha256(canonical(manifest))
            write_durable(os.path.join(tmp, MANIFEST_FILE), json.dumps(manifest, indent=1, sort_keys=True).encode())
            for name, source in (adopt or {}).items():
                os.rename(source, os.path.join(tmp, name))
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            held.release()
            raise
        with held:
            replace_dir(tmp, path)


def cleanup_tmp(directory: str) -> list[str]:
    """Remove what interrupted writes left in ``directory`` (call it holding the directory's
    lock); put back a replaced checkpoint whose replacement never arrived. Returns the names removed."""
    removed = []
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return removed
    for name in names:
        if not name.startswith(TMP_PREFIX):
            continue
        full = os.path.join(directory, name)
        m = re.match(rf"^{re.escape(TMP_PREFIX)}old-(.+)-[0-9a-f]{{12}}$", name)
        if m and not os.path.lexists(os.path.join(directory, m.group(1))) and is_checkpoint_dir(full):
            os.rename(full, os.path.join(directory, m.group(1)))
            continue
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
        else:
            try:
                os.remove(full)
            except OSError:
                pass
        removed.append(name)
    return removed


class DirectoryLock:
    """An advisory, exclusive lock on a checkpoint directory (``flock`` on its ``.lock`` file).

    The operating system releases it when the holder exits, even when killed.
    A second writer gets a :class:`CheckpointLockedError` naming the holder.
    """

    _in_process: dict = {}  # real path -> weakref to the DirectoryLock of this process holding it

    def __init__(self, directory: str):
        self.directory = directory
        self._fd = None
        self.taken_over = False

    def acquire(self, *, create: bool = True, record: bool = True) -> None:
        """Take the lock. In one process the newest writer takes it over from an older one (a
        notebook re-running ``fit`` after an interrupted one); the older one's next save then
        raises. Another process holding it raises :class:`CheckpointLockedError`. With ``create=False`` an
        absent lock file raises ``FileNotFoundError`` (nothing is created); with ``record=False`` the file is
        left as it is (:meth:`record` writes this process's id into it later): a command that only checks the
        directory and is refused changes nothing."""
        path = os.path.join(self.directory, LOCK_FILE)
        try:
            import fcntl
        except ImportError:  # Windows: no advisory lock
            return
        import weakref

        key = os.path.realpath(self.directory)
        older = DirectoryLock._in_process.get(key)
        older = older() if older is not None else None
        if older is not None and older is not self and older.held:
            older.release()
            older.taken_over = True
        for _ in range(100):
            fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0) | _NOFOLLOW, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                try:
                    holder = os.pread(fd, 64, 0).decode("ascii", "replace").strip() or "unknown"
                except OSError:
                    holder = "unknown"
                os.close(fd)
                raise CheckpointLockedError(
                    f"checkpoint directory '{self.directory}' is being written by another process (pid "
                    f"{holder[:20]}); two writers on one directory would overwrite each other's checkpoints. Use "
                    "another directory, or stop the other writer") from None
            if self._same_file(fd, path):
                break
            os.close(fd)  # its holder removed that file as it let go: lock the one there now
        else:
            raise CheckpointLockedError(f"checkpoint directory '{self.directory}': its lock file keeps being "
                                        "replaced; another process is taking and dropping it")
        self._fd = fd
        if record:
            self.record()
        self.taken_over = False
        DirectoryLock._in_process[key] = weakref.ref(self)

    @staticmethod
    def _same_file(fd: int, path: str) -> bool:
        try:
            st, now = os.fstat(fd), os.lstat(path)
        except FileNotFoundError:
            return False
        return st.st_nlink > 0 and (st.st_dev, st.st_ino) == (now.st_dev, now.st_ino)

    def record(self) -> None:
        """Write this process's id into the held lock file (what a refused writer's error names)."""
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, str(os.getpid()).encode("ascii"), 0)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def release(self, *, remove: bool = False) -> None:
        """Let go of the lock; with ``remove``, delete the lock file first (a finished writer leaves none;
        a process that opened it meanwhile sees it gone once it gets the lock, and takes the new one)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if remove and self._same_file(fd, os.path.join(self.directory, LOCK_FILE)):
                os.unlink(os.path.join(self.directory, LOCK_FILE))
        except OSError:
            pass
        finally:
            os.close(fd)  # closing the descriptor releases the flock

    def __del__(self):
        try:
            self.release()
        except Exception:
            pass


# ---------------------------------------------------------------------------------------------------------------
# reading and verifying
# ---------------------------------------------------------------------------------------------------------------
def _corrupt(mpath: str, field: str, problem: str):
    return CheckpointCorruptedError(f"{mpath}: field '{field}' {problem}", [field])


def _int_field(value, mpath, field, minimum=0):
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise _corrupt(mpath, field, f"must be an integer >= {minimum}; found {short(value)}")
    return value


def check_manifest(manifest, mpath: str) -> int:
    """Validate every field the reader uses; returns the expected byte count of the tensors' data."""
    if not isinstance(manifest, dict):
        raise CheckpointCorruptedError(f"{mpath}: not a descend checkpoint manifest (a JSON "
                                       f"{type(manifest).__name__}, not an object)", [MANIFEST_FILE])
    if manifest.get("format") != FORMAT:
        raise CheckpointCorruptedError(f"{mpath}: not a descend checkpoint manifest (field 'format' is "
                                       f"{short(manifest.get('format'))})", ["format"])
    version = manifest.get("schema_version")
    _int_field(version, mpath, "schema_version", 1)
    if version > SCHEMA_VERSION:
        raise CheckpointError(f"{mpath}: written with checkpoint schema {version}; this descend reads schema "
                              f"{SCHEMA_VERSION}. Upgrade descend to read it")
    if version < SCHEMA_VERSION:
        raise CheckpointError(f"{mpath}: written with checkpoint schema {version} (keys were variable names); this "
                              f"descend reads schema {SCHEMA_VERSION}, keyed by object structure. Load it with the "
                              "descend that wrote it and save it again (Checkpoint, or compat.v1.train.Saver to "
                              "keep name keys)")
    for field in ("tensors", "objects", "tensors_file"):
        if not isinstance(manifest.get(field), dict):
            raise _corrupt(mpath, field, f"is missing or not an object (found {type(manifest.get(field)).__name__})")
    if not isinstance(manifest.get("manifest_sha256"), str):
        raise _corrupt(mpath, "manifest_sha256", "is missing or not a string")
    names = manifest.get("variable_names", {})
    if not isinstance(names, dict) or not all(isinstance(v, str) for v in names.values()):
        raise _corrupt(mpath, "variable_names", "must map keys to strings")
    sc = manifest.get("save_counter", 0)
    _int_field(sc, mpath, "save_counter")
    total = 0
    for key, info in manifest["tensors"].items():
        field = f"tensors.{key}"
        if not isinstance(info, dict):
            raise _corrupt(mpath, field, f"must be an object; found {short(info)}")
        shape, dtype, digest = info.get("shape"), info.get("dtype"), info.get("sha256")
        if not isinstance(shape, list) or len(shape) > 32:
            raise _corrupt(mpath, f"{field}.shape", f"must be a list of at most 32 sizes; found {short(shape)}")
        for d in shape:
            _int_field(d, mpath, f"{field}.shape")
        if not isinstance(dtype, str) or dtype not in _DTYPES:
            raise _corrupt(mpath, f"{field}.dtype", f"must be one of {sorted(_DTYPES)}; found {short(dtype)}")
        if not isinstance(digest, str) or len(digest) != 64:
            raise _corrupt(mpath, f"{field}.sha256", f"must be a SHA-256 hex digest; found {short(digest)}")
        n = np.dtype(dtype).itemsize
        for d in shape:
            n *= d
        total += n
    for path, entry in manifest["objects"].items():
        if not isinstance(entry, dict) or not isinstance(entry.get("kind"), str):
            raise _corrupt(mpath, f"objects.{path}", f"must be an object with a string 'kind'; found {short(entry)}")
    tf = manifest["tensors_file"]
    _int_field(tf.get("size"), mpath, "tensors_file.size")
    _int_field(tf.get("header_size"), mpath, "tensors_file.header_size")
    if not isinstance(tf.get("sha256"), str):
        raise _corrupt(mpath, "tensors_file.sha256", "is missing or not a string")
    return total


def _check_header(header, manifest: dict, tpath: str, data_bytes: int) -> list:
    """The tensors' byte ranges from the safetensors header, each checked against the manifest."""
    if not isinstance(header, dict):
        raise CheckpointCorruptedError(f"{tpath}: the header is not a JSON object", [TENSORS_FILE])
    header = {k: v for k, v in header.items() if k != "__metadata__"}
    want = manifest["tensors"]
    extra = sorted(k for k in header if k not in want)
    absent = sorted(k for k in want if k not in header)
    problems = [f"{k}: present in {TENSORS_FILE} but not listed in {MANIFEST_FILE}" for k in extra[:20]]
    problems += [f"{k}: listed in {MANIFEST_FILE} but absent from {TENSORS_FILE}" for k in absent[:20]]
    ranges = []
    for key in sorted(set(header) & set(want)):
        info, spec = header[key], want[key]
        offsets = info.get("data_offsets") if isinstance(info, dict) else None
        if (not isinstance(offsets, list) or len(offsets) != 2
                or not all(isinstance(o, int) and not isinstance(o, bool) for o in offsets)):
            problems.append(f"{key}: malformed header entry {short(info)}")
            continue
        begin, end = offsets
        n = np.dtype(spec["dtype"]).itemsize * int(np.prod(spec["shape"], dtype=object))
        if info.get("dtype") != _DTYPES[spec["dtype"]] or info.get("shape") != spec["shape"]:
            problems.append(f"{key}: {TENSORS_FILE} holds {short(info.get('dtype'))} {short(info.get('shape'))}; "
                            f"{MANIFEST_FILE} records shape {tuple(spec['shape'])} {spec['dtype']}")
        elif not (0 <= begin <= end <= data_bytes) or end - begin != n:
            problems.append(f"{key}: byte range {short(offsets)} does not hold {n} bytes inside the {data_bytes} "
                            "bytes of data")
        else:
            ranges.append((begin, end, key))
    ranges.sort()
    pos = 0
    for begin, end, key in ranges:
        if begin != pos:
            problems.append(f"{key}: byte range [{begin}, {end}) overlaps or leaves a gap (expected to start at "
                            f"{pos})")
            break
        pos = end
    if problems:
        raise CheckpointCorruptedError(f"checkpoint file {tpath} is corrupted; nothing was restored:\n  "
                                       + "\n  ".join(problems), [p.split(":", 1)[0] for p in problems])
    return ranges


#: the tensors header of a checkpoint is read in pieces of this size and compared with the one its manifest's
#: tensors describe (so reading it takes constant memory); a header that differs is parsed to say which tensor
#: differs only when it has at most this many bytes
HEADER_DIAGNOSE_BYTES = 1 << 20
#: how much longer than the header the manifest's tensors describe a header may declare (bytes)
HEADER_SLACK = 4096


def _header_pieces(manifest: dict):
    """The bytes of the safetensors header that :func:`write_checkpoint_dir` writes for the manifest's
    tensors, in pieces (the writer's exact JSON: sorted keys, no spaces, padded to 8 bytes)."""
    tensors = manifest["tensors"]
    yield b"{"
    offset = 0
    size = 1
    for i, key in enumerate(sorted(tensors)):
        spec = tensors[key]
        n = np.dtype(spec["dtype"]).itemsize
        for d in spec["shape"]:
            n *= d
        piece = ((b"," if i else b"") + json.dumps(key).encode("utf-8") + b':{"dtype":"'
                 + _DTYPES[spec["dtype"]].encode("ascii") + b'","shape":['
                 + ",".join(str(d) for d in spec["shape"]).encode("ascii") + b'],"data_offsets":['
                 + f"{offset},{offset + n}".encode("ascii") + b"]}")
        offset += n
        size += len(piece)
        yield piece
    yield b"}" + b" " * (-(size + 1) % 8)


def _manifest_ranges(manifest: dict) -> list:
    ranges, offset = [], 0
    for key in sorted(manifest["tensors"]):
        spec = manifest["tensors"][key]
        n = np.dtype(spec["dtype"]).itemsize
        for d in spec["shape"]:
            n *= d
        ranges.append((offset, offset + n, key))
        offset += n
    return ranges


def _read_header(f, n: int, manifest: dict, tpath: str, data_bytes: int, whole) -> tuple[list, object]:
    """The tensors' byte ranges, from a header of ``n`` bytes at the file's position 8. The header is
    compared, piece by piece, with the one the manifest's tensors describe: constant memory whatever it
    declares. Returns the ranges and the file's running SHA-256."""
    expected = sum(len(p) for p in _header_pieces(manifest))
    if n > expected + HEADER_SLACK:
        raise CheckpointCorruptedError(f"{tpath}: the tensors header declares {n} bytes; the "
                                       f"{len(manifest['tensors'])} tensors the manifest lists take {expected} "
                                       "(refused without reading it; field tensors_file.header_size)",
                                       [TENSORS_FILE, "tensors_file.header_size"])
    if n == expected:
        same = whole.copy()
        buffered = bytearray()
        ok = True
        for piece in _header_pieces(manifest):
            buffered += piece
            if len(buffered) >= _CHUNK:
                got = f.read(len(buffered))
                same.update(got)
                if got != buffered:
                    ok = False
                    break
                buffered.clear()
        if ok and buffered:
            got = f.read(len(buffered))
            same.update(got)
            ok = got == buffered
        if ok:
            return _manifest_ranges(manifest), same
    if n > HEADER_DIAGNOSE_BYTES:
        raise CheckpointCorruptedError(f"checkpoint file {tpath} is corrupted; nothing was restored: its tensors "
                                       f"header ({n} bytes) differs from the one the manifest's "
                                       f"{len(manifest['tensors'])} tensors describe", [TENSORS_FILE])
    f.seek(8)
    raw = f.read(n)
    whole.update(raw)
    return _check_header(parse_json(raw, tpath, "tensors header"), manifest, tpath, data_bytes), whole


SHARD_RE = re.compile(r"^shard-[0-9]{1,6}$")


def read_checkpoint(path, rows: dict | None = None) -> tuple[dict, dict[str, np.ndarray]]:
    """The manifest and the tensors of the checkpoint at ``path``, all verified.

    A checkpoint written by several processes lists its shards in the manifest's ``shards`` field
    (``[{"dir": "shard-<r>", "rank": r, "manifest_sha256": ...}]``, each a checkpoint directory inside this
    one holding rank r's part) and, for tables sharded over the ranks, ``tables`` (``{path: {"global_shape",
    "dtype", "row_ranges": [[lo, hi] per rank], "keys": [the table and its slots]}}``). The shards are read,
    verified against the recorded checksums and merged. ``rows`` (``{table path: (lo, hi)}``) selects the
    rows of each sharded table to assemble -- a shard holding none of the wanted rows and nothing else is
    not read -- by default every row: the result is then the whole state, as one process saved it."""
    manifest, tensors = _read_one(path)
    shards = manifest.get("shards")
    if shards is None:
        return manifest, tensors
    path = os.fspath(path)
    mpath = os.path.join(path, MANIFEST_FILE)
    if not isinstance(shards, list) or len(shards) > 1 << 16:
        raise _corrupt(mpath, "shards", f"must be a list of shard entries; found {short(shards)}")
    ranks = manifest.get("ranks", len(shards) + 1)
    if isinstance(ranks, bool) or not isinstance(ranks, int) or not len(shards) < ranks <= 1 << 16:
        raise _corrupt(mpath, "ranks", f"must be the number of ranks that wrote it (more than the {len(shards)} "
                                       f"shards); found {short(ranks)}")
    entries = []
    for i, entry in enumerate(shards):
        name = entry.get("dir") if isinstance(entry, dict) else None
        digest = entry.get("manifest_sha256") if isinstance(entry, dict) else None
        rank = entry.get("rank", i + 1) if isinstance(entry, dict) else None
        if (not isinstance(name, str) or not SHARD_RE.match(name) or not isinstance(digest, str)
                or isinstance(rank, bool) or not isinstance(rank, int) or not 0 < rank < ranks
                or any(rank == r for _, _, r in entries)):
            raise _corrupt(mpath, f"shards[{i}]", f"must be an object with 'dir' (shard-<n>), 'rank' (1 to "
                                                   f"{ranks - 1}, once each) and 'manifest_sha256'; found {short(entry)}")
        entries.append((name, digest, rank))
    tables = check_tables(manifest.get("tables", {}), ranks, mpath)
    row_of = {key: table for table, spec in tables.items() for key in spec["keys"]}
    wanted = {t: (0, spec["global_shape"][0]) for t, spec in tables.items()}
    if rows is not None:
        wanted = {t: tuple(r) for t, r in rows.items() if t in tables}
    manifest = dict(manifest, tensors=dict(manifest["tensors"]))
    pieces: dict = {}

    def take_rows(shard_index, shard_tensors, where):
        for key, arr in list(shard_tensors.items()):
            table = row_of.get(key)
            if table is None:
                continue
            del shard_tensors[key]
            if table not in wanted:
                continue
            a, b = tables[table]["row_ranges"][shard_index]
            lo, hi = wanted[table]
            if arr.ndim < 1 or arr.shape[0] != b - a:
                raise CheckpointCorruptedError(f"checkpoint '{path}': {where} holds {short(arr.shape)} of '{key}', not "
                                               f"the rows [{a}, {b}) the manifest records", [key])
            if min(hi, b) > max(lo, a):
                pieces.setdefault(key, []).append((max(lo, a), arr[max(lo, a) - a:min(hi, b) - a]))

    take_rows(0, tensors, "rank 0's part")
    for name, digest, r in entries:
        needs_rows = any(min(hi, tables[t]["row_ranges"][r][1]) > max(lo, tables[t]["row_ranges"][r][0])
                         for t, (lo, hi) in wanted.items())
        if not (needs_rows or "zero" in manifest or not tables):
            continue  # none of the wanted rows and nothing else: not read
        shard_manifest, shard_tensors = _read_one(os.path.join(path, name))
        if shard_manifest["manifest_sha256"] != digest:
            raise CheckpointCorruptedError(f"checkpoint '{path}': shard {name} is not the one the manifest records "
                                           "(its manifest's checksum differs); nothing was restored", [name])
        take_rows(r, shard_tensors, f"shard {name}")
        for key, arr in shard_tensors.items():
            if key in tensors:
                raise CheckpointCorruptedError(f"checkpoint '{path}': tensor '{key}' is in shard {name} and in "
                                               "another part of the checkpoint", [key])
            tensors[key] = arr
            manifest["tensors"][key] = shard_manifest["tensors"][key]
    for key, table in row_of.items():
        if table not in wanted:
            continue
        lo, hi = wanted[table]
        parts = sorted(pieces.get(key, []), key=lambda p: p[0])
        got = sum(p.shape[0] for _, p in parts)
        if got != hi - lo:
            raise CheckpointCorruptedError(f"checkpoint '{path}': the shards hold {got} of the rows [{lo}, {hi}) of "
                                           f"'{key}'", [key])
        arr = parts[0][1] if len(parts) == 1 else np.concatenate([p for _, p in parts])
        tensors[key] = arr
        spec = dict(manifest["tensors"].get(key, {}))
        spec["shape"] = list(arr.shape)
        manifest["tensors"][key] = spec
    return manifest, tensors


def check_tables(tables, ranks: int, mpath: str) -> dict:
    """The manifest's ``tables`` field, checked: each table's global shape, its rows per rank (consecutive,
    covering every row) and the keys holding its rows."""
    if not isinstance(tables, dict) or len(tables) > 1 << 16:
        raise _corrupt(mpath, "tables", f"must be an object of sharded tables; found {short(tables)}")
    for t, spec in tables.items():
        where = f"tables.{short(t, 100)}"
        if not isinstance(spec, dict):
            raise _corrupt(mpath, where, f"must be an object; found {short(spec)}")
        shape, ranges, keys = spec.get("global_shape"), spec.get("row_ranges"), spec.get("keys")
        if not (isinstance(shape, list) and len(shape) == 2 and all(
                isinstance(d, int) and not isinstance(d, bool) and 0 <= d < 1 << 40 for d in shape)):
            raise _corrupt(mpath, f"{where}.global_shape", f"must be [rows, columns]; found {short(shape)}")
        if not (isinstance(ranges, list) and len(ranges) == ranks and all(
                isinstance(r, list) and len(r) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in r)
                for r in ranges)):
            raise _corrupt(mpath, f"{where}.row_ranges", f"must list [lo, hi) for each of the {ranks} ranks; found "
                                                          f"{short(ranges)}")
        if ranges[0][0] != 0 or ranges[-1][1] != shape[0] or any(
                a > b or (k and ranges[k - 1][1] != a) for k, (a, b) in enumerate(ranges)):
            raise _corrupt(mpath, f"{where}.row_ranges", f"must cover rows [0, {shape[0]}) in order; found "
                                                          f"{short(ranges)}")
        if not (isinstance(keys, list) and 0 < len(keys) <= 1 << 10 and all(isinstance(k, str) for k in keys)):
            raise _corrupt(mpath, f"{where}.keys", f"must list the keys holding the table's rows; found {short(keys)}")
    return tables


def _gone(path: str) -> FileNotFoundError:
    return FileNotFoundError(errno.ENOENT, f"No checkpoint at '{path}' any more: it was deleted while it was read (a "
                             "CheckpointManager keeping max_to_keep checkpoints may have rotated it away); read the "
                             "latest checkpoint again", path)


def _read_one(path) -> tuple[dict, dict[str, np.ndarray]]:
    path = os.fspath(path)
    mpath = os.path.join(path, MANIFEST_FILE)
    tpath = os.path.join(path, TENSORS_FILE)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"No checkpoint at '{path}' (expected a directory holding {MANIFEST_FILE} and "
                                f"{TENSORS_FILE})")
    try:
        manifest = read_json_file(path, MANIFEST_FILE, "manifest")
    except FileNotFoundError:
        if not os.path.isdir(path):
            raise _gone(path) from None
        hint = (f"; it is a CheckpointManager directory: pass descend.train.latest_checkpoint('{path}')"
                if os.path.isfile(os.path.join(path, INDEX_FILE)) else "")
        raise FileNotFoundError(f"No checkpoint at '{path}': {MANIFEST_FILE} is missing{hint}") from None
    data_bytes = check_manifest(manifest, mpath)
    problems: list[tuple[str, str]] = []
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    if manifest["manifest_sha256"] != sha256(canonical(body)):
        problems.append((MANIFEST_FILE, "checksum mismatch: the manifest was modified or corrupted"))
    want = manifest["tensors_file"]
    try:
        f, size = open_regular(path, TENSORS_FILE, "tensors file")
    except FileNotFoundError:
        if not os.path.isdir(path) or not os.path.lexists(mpath):
            raise _gone(path) from None
        raise CheckpointCorruptedError(f"checkpoint '{path}': {TENSORS_FILE} is missing", [TENSORS_FILE]) from None
    with f:
        expected = 8 + want["header_size"] + data_bytes
        if size != want["size"] or size != expected:
            cut = []
            if size < expected:
                offset, start = 0, 8 + want["header_size"]
                for key in sorted(manifest["tensors"]):
                    spec = manifest["tensors"][key]
                    offset += np.dtype(spec["dtype"]).itemsize * int(np.prod(spec["shape"], dtype=object))
                    if start + offset > size:
                        cut.append(key)
            lines = [f"{TENSORS_FILE} has {size} bytes; the manifest records {want['size']} and its tensors add up "
                     f"to {expected} (truncated, padded or modified); the file was not read"]
            if cut:
                lines.append(f"tensors cut off: {cut[:50]}")
            lines += [f"{k}: {msg}" for k, msg in problems]
            raise CheckpointCorruptedError(f"checkpoint '{path}' is corrupted; nothing was restored:\n  file {tpath}"
                                           "\n  " + "\n  ".join(lines), [TENSORS_FILE] + cut[:50])
        whole = hashlib.sha256()
        head = f.read(8)
        whole.update(head)
        n = struct.unpack("<Q", head)[0] if len(head) == 8 else -1
        if n != want["header_size"]:
            raise CheckpointCorruptedError(f"{tpath}: the header length {n} differs from the manifest's "
                                           f"tensors_file.header_size {want['header_size']}", [TENSORS_FILE])
        ranges, whole = _read_header(f, n, manifest, tpath, data_bytes, whole)
        tensors = {}
        for _begin, _end, key in ranges:
            spec = manifest["tensors"][key]
            try:
                arr = np.empty(tuple(spec["shape"]), dtype=np.dtype(spec["dtype"]).newbyteorder("<"))
            except (MemoryError, ValueError) as e:
                raise CheckpointError(f"checkpoint '{path}': tensor '{key}' of shape {tuple(spec['shape'])} "
                                      f"{spec['dtype']} cannot be allocated ({type(e).__name__})") from None
            view = memoryview(arr).cast("B") if arr.nbytes else memoryview(b"")
            got = f.readinto(view) if arr.nbytes else 0
            if got != arr.nbytes:
                raise CheckpointCorruptedError(f"{tpath}: tensor '{key}' is cut off", [key])
            whole.update(view)
            if sha256(view) != spec["sha256"]:
                problems.append((key, "checksum mismatch: the tensor's bytes were modified or corrupted"))
            tensors[key] = arr
    if want["sha256"] != whole.hexdigest() and not any(k != MANIFEST_FILE for k, _ in problems):
        problems.append((TENSORS_FILE, "checksum mismatch: the file was modified or corrupted"))
    if problems:
        lines = "\n".join(f"  {k}: {msg}" for k, msg in problems[:50])
        raise CheckpointCorruptedError(f"checkpoint '{path}' is corrupted; nothing was restored:\n{lines}",
                                       [k for k, _ in problems])
    return manifest, {k: a.astype(a.dtype.newbyteorder("="), copy=False) for k, a in tensors.items()}
