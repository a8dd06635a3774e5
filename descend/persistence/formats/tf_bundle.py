"""TensorFlow's tensor bundle: the ``<prefix>.index`` / ``<prefix>.data-NNNNN-of-MMMMM`` files that
``tf.train.Checkpoint``, ``tf.compat.v1.train.Saver`` and Keras 2's ``save_weights`` write.

The index is a sorted string table (:mod:`descend.persistence.formats.sstable`) whose empty key holds a
``BundleHeaderProto`` and whose other keys name tensors, each with a ``BundleEntryProto`` (dtype,
shape, shard, offset, size, masked CRC-32C of the bytes). Reading trusts nothing: the index is read
only up to :data:`MAX_INDEX_BYTES`, every entry is checked when the bundle is opened (a known dtype, a
shape whose bytes equal the entry's size, a range inside its shard file, which must be a regular file)
so nothing is allocated that the files do not hold, and every tensor's checksum is verified when it is
read. Partitioned (sliced) variables and big-endian bundles are refused with a clear error.

What reading costs is bounded by the files' size: the index's entries are kept as the index holds them
(its bytes, each name, where each value lies) and decoded when asked for, and a TF 2 object graph
(:class:`ObjectGraph`) is kept as its bytes, one node decoded at a time, its counts checked as it is
read (see ``docs/formats.md``, "What reading a file costs").

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> from descend.persistence.formats import tf_bundle
    >>> prefix = os.path.join(tempfile.mkdtemp(), "ckpt")
    >>> tf_bundle.write_bundle(prefix, {"w": np.arange(3, dtype=np.float32)})
    >>> bundle = tf_bundle.TensorBundle(prefix)
    >>> bundle.shapes(), bundle.read("w")
    ({'w': (3,)}, array([0., 1., 2.], dtype=float32))
"""

from __future__ import annotations

import array
import os
import struct
from collections.abc import Sequence

import numpy as np

from ..bounded_read import open_regular
from ..checkpoint_errors import CheckpointCorruptedError, CheckpointError, short
from ..durable import replace_file_set
from . import crc32c as _crc
from . import sstable, wire

__all__ = ["TensorBundle", "write_bundle", "is_bundle", "data_file", "MAX_INDEX_BYTES", "OBJECT_GRAPH_KEY",
           "TF_DTYPES", "ObjectGraph", "object_graph", "encode_object_graph", "MAX_OBJECT_GRAPH_BYTES"]

#: the largest ``.index`` file read (bytes)
MAX_INDEX_BYTES = 256 * 2**20
#: the largest string tensor read (the object graph of a TF 2 checkpoint is one)
MAX_STRING_BYTES = 256 * 2**20
#: the largest object graph read (the bytes of a TF 2 checkpoint's ``_CHECKPOINTABLE_OBJECT_GRAPH``)
MAX_OBJECT_GRAPH_BYTES = 64 * 2**20
#: an object graph holds at most one node, child, attribute or slot variable per this many of its bytes
GRAPH_BYTES_PER_VALUE = 4
#: the most children, attributes and slot variables one node of an object graph may hold
MAX_NODE_VALUES = 1 << 18
#: the key under which a TF 2 checkpoint stores its object graph
OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
_MAX_RANK = 64
_MAX_SHARDS = 1 << 16
#: the most repeated values (dimensions, slices) one index entry may hold
_MAX_ENTRY_VALUES = 1 << 16
_BUNDLE_VERSION = 1  # the bundle format version descend reads and writes (TensorFlow's kTensorBundleVersion)

#: TensorFlow's DataType numbers -> NumPy dtypes descend reads
TF_DTYPES = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 5: np.int16, 6: np.int8, 9: np.int64,
             10: np.bool_, 17: np.uint16, 19: np.float16, 22: np.uint32, 23: np.uint64}
_DT_STRING = 7
_TF_NAMES = {7: "string", 8: "complex64", 14: "bfloat16", 18: "complex128", 20: "resource", 21: "variant",
             11: "qint8", 12: "quint8", 13: "qint32", 15: "qint16", 16: "quint16"}
_TO_TF = {np.dtype(v): k for k, v in TF_DTYPES.items()}

_VERSION = {1: ("producer", "int32", False), 2: ("min_consumer", "int32", False), 3: ("bad_consumers", "int32", True)}
HEADER = {1: ("num_shards", "int32", False), 2: ("endianness", "enum", False), 3: ("version", _VERSION, False)}
_DIM = {1: ("size", "int64", False), 2: ("name", "string", False)}
_SHAPE = {2: ("dim", _DIM, True), 3: ("unknown_rank", "bool", False)}
_EXTENT = {1: ("start", "int64", False), 2: ("length", "int64", False)}
_SLICE = {1: ("extent", _EXTENT, True)}
ENTRY = {1: ("dtype", "enum", False), 2: ("shape", _SHAPE, False), 3: ("shard_id", "int32", False),
         4: ("offset", "int64", False), 5: ("size", "int64", False), 6: ("crc32c", "fixed32", False),
         7: ("slices", _SLICE, True)}


def data_file(prefix: str, shard: int, num_shards: int) -> str:
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def is_bundle(prefix) -> bool:
    """Whether ``prefix`` names a tensor bundle: ``<prefix>.index`` exists (a TensorFlow checkpoint)."""
    try:
        return os.path.lexists(os.fspath(prefix) + ".index")
    except (TypeError, ValueError):
        return False


def _bad(file: str, field: str, problem: str) -> CheckpointCorruptedError:
    return CheckpointCorruptedError(f"{file}: field '{field}' {problem}", [field])


class TensorBundle:
    """The tensors of the bundle at ``prefix``, every entry checked on opening.

    Attributes:
        prefix: the checkpoint prefix (``.../ckpt-3``).
        num_shards: how many ``.data`` files hold the tensors.
    """

    def __init__(self, prefix):
        self.prefix = os.fspath(prefix)
        self.index_path = self.prefix + ".index"
        directory, name = os.path.split(self.index_path)
        try:
            f, size = open_regular(directory or ".", name, "checkpoint index")
        except FileNotFoundError:
            raise FileNotFoundError(f"No TensorFlow checkpoint at '{self.prefix}' ({self.index_path} is missing)") \
                from None
        with f:
            if size > MAX_INDEX_BYTES:
                raise _bad(self.index_path, "size", f"is {size} bytes; at most {MAX_INDEX_BYTES} are read (refused "
                                                    "without reading it)")
            raw = f.read(size + 1)
        if len(raw) != size:
            raise CheckpointCorruptedError(f"{self.index_path}: changed size while it was read", ["size"])
        # The entries are kept as the index holds them (the file's bytes, each entry's name and where its
        # value lies): a few bytes per entry, so opening costs a small multiple of the index's size.
        self._raw = raw
        self._names = bytearray()  # every name's UTF-8 bytes, one after the other, in key order
        self._name_end = array.array("I")  # (an index of at most 256 MiB rebuilds at most 2 GiB of keys)
        self._value = array.array("I")  # start, end of each entry's value in the index
        self._sliced = array.array("b")
        header = None
        shards: dict[int, int] = {}
        try:
            for key, start, end in sstable.iter_table(raw, self.index_path):
                if header is None:
                    if key != b"":
                        raise _bad(self.index_path, "header", "is missing (the table's first key must be empty)")
                    header = self._header(raw[start:end])
                    continue
                if key[:1] == b"\x00":  # a slice of a partitioned variable (its own key encoding)
                    continue
                try:
                    name = key.decode("utf-8")
                except UnicodeDecodeError:
                    raise _bad(self.index_path, "key", f"{short(key)} is not UTF-8 text") from None
                e = self._entry_at(start, end, name)
                self._check_entry(name, e, shards)
                self._names += key
                self._name_end.append(len(self._names))
                self._value.extend((start, end))
                self._sliced.append(1 if e["slices"] else 0)
        except sstable.TableError as e:
            raise CheckpointCorruptedError(str(e), ["table"]) from None
        if header is None:
            raise _bad(self.index_path, "header", "is missing (the table's first key must be empty)")

    def _header(self, raw: bytes) -> dict:
        header = self._decode(raw, HEADER, "header")
        self.num_shards = header["num_shards"]
        if not 1 <= self.num_shards <= _MAX_SHARDS:
            raise _bad(self.index_path, "header.num_shards", f"must be 1 to {_MAX_SHARDS}; found {self.num_shards}")
        if header["endianness"] != 0:
            raise _bad(self.index_path, "header.endianness", f"is {header['endianness']} (big-endian); descend reads "
                                                             "little-endian checkpoints only")
        version = header["version"] or {}
        if version.get("min_consumer", 0) > _BUNDLE_VERSION or _BUNDLE_VERSION in version.get("bad_consumers", []):
            raise CheckpointError(f"{self.index_path}: written in tensor bundle version {version.get('producer')} "
                                  f"(readers from version {version.get('min_consumer')}); descend reads version "
                                  f"{_BUNDLE_VERSION}")
        return header

    def _decode(self, raw: bytes, schema: dict, field: str) -> dict:
        try:
            return wire.decode(raw, schema, field, _MAX_ENTRY_VALUES)
        except wire.WireError as e:
            raise CheckpointCorruptedError(f"{self.index_path}: {e}", [field]) from None

    def _entry_at(self, start: int, end: int, name: str) -> dict:
        """The entry whose value is ``index[start:end]``, with ``dims`` and ``count`` (its shape's)."""
        e = self._decode(self._raw[start:end], ENTRY, f"entries[{short(name, 200)}]")
        shape = e["shape"] or {"dim": [], "unknown_rank": False}
        e["unknown_rank"] = shape["unknown_rank"]
        e["dims"] = tuple(d["size"] for d in shape["dim"])
        return e

    def _check_entry(self, name: str, e: dict, sizes: dict) -> None:
        field = f"entries[{short(name, 200)}]"
        if e["slices"]:
            return
        dtype = e["dtype"]
        if dtype not in TF_DTYPES and dtype != _DT_STRING:
            what = _TF_NAMES.get(dtype, f"DataType {dtype}")
            raise _bad(self.index_path, f"{field}.dtype", f"is {what}, which descend does not read (it reads "
                                                          "bool, integers, float16/32/64 and strings)")
        dims = e["dims"]
        if e["unknown_rank"] or len(dims) > _MAX_RANK:
            raise _bad(self.index_path, f"{field}.shape", f"must have a known rank of at most {_MAX_RANK}")
        if any(d < 0 for d in dims):
            raise _bad(self.index_path, f"{field}.shape", f"has a negative size: {short(dims)}")
        itemsize = np.dtype(TF_DTYPES[dtype]).itemsize if dtype != _DT_STRING else np.dtype(object).itemsize
        count, extent = 1, itemsize
        for d in dims:
            count *= d
            extent *= d or 1
        if extent >= 1 << 63:  # TensorFlow's shapes hold at most 2**63 - 1 elements; NumPy's arrays fewer bytes
            raise _bad(self.index_path, f"{field}.shape", f"is {short(dims, 200)}: an array of that shape takes "
                                                          "2**63 bytes or more (its sizes multiply past any array's)")
        if not 0 <= e["shard_id"] < self.num_shards:
            raise _bad(self.index_path, f"{field}.shard_id", f"is {e['shard_id']}; the bundle has "
                                                             f"{self.num_shards} shards")
        if e["offset"] < 0 or e["size"] < 0:
            raise _bad(self.index_path, f"{field}.offset", f"and size must be >= 0; found {e['offset']} and "
                                                           f"{e['size']}")
        if dtype != _DT_STRING:
            want = count * itemsize
            if e["size"] != want:
                raise _bad(self.index_path, f"{field}.size", f"is {e['size']} bytes; shape {short(dims, 200)} of "
                                                             f"{np.dtype(TF_DTYPES[dtype]).name} takes {want}")
        elif count > e["size"] or e["size"] > MAX_STRING_BYTES:
            raise _bad(self.index_path, f"{field}.size", f"is {e['size']} bytes for {count} strings (at most "
                                                         f"{MAX_STRING_BYTES} bytes are read)")
        shard = e["shard_id"]
        if shard not in sizes:
            sizes[shard] = self._shard_size(shard)
        if e["offset"] + e["size"] > sizes[shard]:
            raise _bad(self.index_path, f"{field}.offset", f"{e['offset']} + size {e['size']} runs past the end of "
                       f"{data_file(self.prefix, shard, self.num_shards)} ({sizes[shard]} bytes; truncated?)")

    def _shard_size(self, shard: int) -> int:
        path = data_file(self.prefix, shard, self.num_shards)
        directory, name = os.path.split(path)
        try:
            f, size = open_regular(directory or ".", name, "checkpoint data file")
        except FileNotFoundError:
            raise CheckpointCorruptedError(f"TensorFlow checkpoint '{self.prefix}': its data file {path} is missing",
                                           [name]) from None
        f.close()
        return size

    # -- the entries, by position (key order) and by name ----------------------------------------------------------
    def _count(self) -> int:
        """How many entries the index holds (partitioned variables' slices aside)."""
        return len(self._name_end)

    def _name(self, i: int) -> bytes:
        return bytes(self._names[self._name_end[i - 1] if i else 0:self._name_end[i]])

    def _find(self, name) -> int | None:
        """The position of the entry ``name`` (binary search: the index's keys are sorted bytes)."""
        if not isinstance(name, str):
            return None
        want = name.encode("utf-8", "surrogatepass")
        lo, hi = 0, len(self._name_end)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._name(mid) < want:
                lo = mid + 1
            else:
                hi = mid
        return lo if lo < len(self._name_end) and self._name(lo) == want else None

    def _entry(self, i: int) -> dict:
        return self._entry_at(self._value[2 * i], self._value[2 * i + 1], "")

    # -- facts ------------------------------------------------------------------------------------------------
    def keys(self) -> list[str]:
        return [self._name(i).decode("utf-8") for i in range(self._count())]

    def __contains__(self, name) -> bool:
        return self._find(name) is not None

    def _shapes(self):
        for i in range(self._count()):
            if not self._sliced[i]:
                yield self._name(i).decode("utf-8"), self._entry(i)["dims"]

    def variables(self) -> list[tuple[str, tuple]]:
        """``[(name, shape), ...]`` of every tensor but partitioned ones, sorted by name (the index's order)."""
        return list(self._shapes())

    def shapes(self) -> dict[str, tuple]:
        return dict(self._shapes())

    def dtypes(self) -> dict[str, np.dtype]:
        return {self._name(i).decode("utf-8"): np.dtype(TF_DTYPES.get(self._entry(i)["dtype"], object))
                for i in range(self._count()) if not self._sliced[i]}

    # -- reading ----------------------------------------------------------------------------------------------
    def read(self, name: str):
        """The tensor ``name``: a NumPy array, or for strings a NumPy array of ``bytes`` objects (a scalar
        string as ``bytes``). Its checksum is verified."""
        i = self._find(name)
        if i is None:
            keys = [self._name(j).decode("utf-8") for j in range(min(self._count(), 50))]
            shown = keys if self._count() <= 50 else keys + [f"... {self._count() - 50} more"]
            raise KeyError(f"TensorFlow checkpoint '{self.prefix}' has no tensor '{name}'. It has: {shown}")
        if self._sliced[i]:
            raise CheckpointError(f"TensorFlow checkpoint '{self.prefix}': '{name}' is a partitioned variable (saved "
                                  "in slices); descend does not read partitioned variables")
        e = self._entry(i)
        count = 1
        for d in e["dims"]:
            count *= d
        e["count"] = count
        path = data_file(self.prefix, e["shard_id"], self.num_shards)
        directory, base = os.path.split(path)
        f, size = open_regular(directory or ".", base, "checkpoint data file")
        with f:
            if e["offset"] + e["size"] > size:
                raise CheckpointCorruptedError(f"{path}: tensor '{name}' runs past the end of the file (truncated "
                                               "while it was read?)", [name])
            f.seek(e["offset"])
            if e["dtype"] == _DT_STRING:
                raw = f.read(e["size"])
                return self._strings(name, raw, e, path)
            arr = np.empty(e["dims"], dtype=np.dtype(TF_DTYPES[e["dtype"]]).newbyteorder("<"))
            view = memoryview(arr).cast("B") if arr.nbytes else memoryview(b"")
            got = f.readinto(view) if arr.nbytes else 0
        if got != arr.nbytes:
            raise CheckpointCorruptedError(f"{path}: tensor '{name}' is cut off", [name])
        if _crc.mask(_crc.crc32c(view)) != e["crc32c"]:
            raise CheckpointCorruptedError(f"{path}: tensor '{name}' fails its checksum (field crc32c of its index "
                                           "entry): the file was modified or corrupted", [name])
        return arr.astype(arr.dtype.newbyteorder("="), copy=False)

    def _strings(self, name: str, raw: bytes, e: dict, path: str):
        if len(raw) != e["size"]:
            raise CheckpointCorruptedError(f"{path}: tensor '{name}' is cut off", [name])
        pos, lengths, crc = 0, [], 0
        try:
            for _ in range(e["count"]):
                n, pos = wire.read_varint(raw, pos, len(raw), f"{path}: tensor '{name}' lengths")
                lengths.append(n)
                crc = _crc.crc32c(struct.pack("<I", n) if n <= 0xFFFFFFFF else struct.pack("<Q", n), crc)
        except wire.WireError as err:
            raise CheckpointCorruptedError(str(err), [name]) from None
        if len(raw) - pos < 4 or struct.unpack_from("<I", raw, pos)[0] != _crc.mask(crc):
            raise CheckpointCorruptedError(f"{path}: tensor '{name}' fails the checksum of its string lengths", [name])
        crc = _crc.crc32c(raw[pos:pos + 4], crc)
        pos += 4
        if sum(lengths) != len(raw) - pos:
            raise CheckpointCorruptedError(f"{path}: tensor '{name}' declares strings of {sum(lengths)} bytes; its "
                                           f"entry holds {len(raw) - pos}", [name])
        crc = _crc.crc32c(raw[pos:], crc)
        if _crc.mask(crc) != e["crc32c"]:
            raise CheckpointCorruptedError(f"{path}: tensor '{name}' fails its checksum (field crc32c of its index "
                                           "entry): the file was modified or corrupted", [name])
        out = np.empty(len(lengths), dtype=object)
        for i, n in enumerate(lengths):
            out[i] = raw[pos:pos + n]
            pos += n
        return out[0] if e["dims"] == () else out.reshape(e["dims"])


# ---------------------------------------------------------------------------------------------------------------
# the object graph of a TF 2 checkpoint (TrackableObjectGraph)
# ---------------------------------------------------------------------------------------------------------------
_CHILD = {1: ("node_id", "int32", False), 2: ("local_name", "string", False)}
_TENSOR = {1: ("name", "string", False), 2: ("full_name", "string", False), 3: ("checkpoint_key", "string", False)}
_SLOT = {1: ("original_variable_node_id", "int32", False), 2: ("slot_name", "string", False),
         3: ("slot_variable_node_id", "int32", False)}
_SAVER = {1: ("name", "string", False), 2: ("object_name", "string", False)}
_NODE = {1: ("children", _CHILD, True), 2: ("attributes", _TENSOR, True), 3: ("slot_variables", _SLOT, True),
         4: ("registered_saver", _SAVER, False)}
GRAPH = {1: ("nodes", _NODE, True)}


class ObjectGraph(Sequence):
    """The nodes of a ``TrackableObjectGraph``, kept as the message's bytes and where each node lies in
    them; ``graph[i]`` decodes node ``i`` when asked for, as a dict (``children``, ``attributes``,
    ``slot_variables``, ``registered_saver``), so holding the graph costs its bytes and 16 per node."""

    def __init__(self, raw: bytes, where: str, max_nodes: int | None = None):
        self._raw = raw
        self._where = where
        self._spans = array.array("q")
        self._last: tuple[int, dict] | None = None
        most = len(raw) if max_nodes is None else max_nodes
        for number, wt, value in wire.fields(raw, "TrackableObjectGraph"):
            if number != 1:
                continue  # a field the schema does not name: skipped, as protobuf does
            if wt != 2:
                raise wire.WireError(f"TrackableObjectGraph: field 'nodes' must be a message; found wire type {wt}")
            if len(self._spans) >= 2 * most:
                raise wire.WireError(f"TrackableObjectGraph: holds more than {most} nodes in {len(raw)} bytes")
            self._spans.extend(value)

    def __len__(self) -> int:
        return len(self._spans) // 2

    def node(self, i: int, max_values: int = MAX_NODE_VALUES) -> dict:
        """Node ``i`` decoded (at most ``max_values`` children, attributes and slot variables)."""
        if self._last is not None and self._last[0] == i:
            return self._last[1]
        start, end = self._spans[2 * i], self._spans[2 * i + 1]
        node = wire.decode(memoryview(self._raw)[start:end], _NODE, f"TrackableObjectGraph.nodes[{i}]", max_values)
        self._last = (i, node)
        return node

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"{self._where}: node {i} is outside the graph of {n}")
        return self.node(i)


def object_graph(bundle: TensorBundle) -> ObjectGraph | None:
    """The nodes of a TF 2 checkpoint's object graph (children, attributes, slot variables), every node
    reference checked; None for a bundle without one (a TF 1 ``Saver`` checkpoint).

    The cost is bounded by the graph's bytes: at most :data:`MAX_OBJECT_GRAPH_BYTES` of them, one node,
    child, attribute or slot variable per :data:`GRAPH_BYTES_PER_VALUE` of them (TensorFlow's graphs hold
    one per 20 or so), at most :data:`MAX_NODE_VALUES` in one node, all checked before they are built."""
    i = bundle._find(OBJECT_GRAPH_KEY)
    if i is None:
        return None
    where = f"{bundle.index_path}: tensor {OBJECT_GRAPH_KEY}"
    size = bundle._entry(i)["size"]
    if size > MAX_OBJECT_GRAPH_BYTES:
        raise CheckpointCorruptedError(f"{where} declares {size} bytes; an object graph of at most "
                                       f"{MAX_OBJECT_GRAPH_BYTES} is read (refused before reading it)",
                                       [OBJECT_GRAPH_KEY])
    raw = bundle.read(OBJECT_GRAPH_KEY)
    if not isinstance(raw, bytes):
        raise CheckpointCorruptedError(f"{where} must be one string", [OBJECT_GRAPH_KEY])
    budget = len(raw) // GRAPH_BYTES_PER_VALUE + 64
    try:
        nodes = ObjectGraph(raw, where, budget)
        n = len(nodes)
        budget -= n
        for i in range(n):
            node = nodes.node(i, max(min(MAX_NODE_VALUES, budget), 0))
            budget -= len(node["children"]) + len(node["attributes"]) + len(node["slot_variables"])
            _check_node(bundle, node, i, n, where)
    except wire.WireError as e:
        raise CheckpointCorruptedError(f"{where}: {e} (at most one value per {GRAPH_BYTES_PER_VALUE} bytes of the "
                                       f"graph, {MAX_NODE_VALUES} in one node)", [OBJECT_GRAPH_KEY]) from None
    if n == 0:
        raise CheckpointCorruptedError(f"{where} holds no objects", [OBJECT_GRAPH_KEY])
    return nodes


def _check_node(bundle: TensorBundle, node: dict, i: int, n: int, where: str) -> None:
    for c in node["children"]:
        if not 0 <= c["node_id"] < n:
            raise CheckpointCorruptedError(f"{where}: node {i}'s child {short(c['local_name'])} refers to node "
                                           f"{c['node_id']}; the graph has {n}", [OBJECT_GRAPH_KEY])
    for s in node["slot_variables"]:
        if not (0 <= s["original_variable_node_id"] < n and 0 <= s["slot_variable_node_id"] < n):
            raise CheckpointCorruptedError(f"{where}: node {i}'s slot {short(s['slot_name'])} refers to a node "
                                           f"outside the graph of {n}", [OBJECT_GRAPH_KEY])
    for a in node["attributes"]:
        if a["checkpoint_key"] not in bundle:
            raise CheckpointCorruptedError(f"{where}: node {i}'s value {short(a['checkpoint_key'], 200)} is not "
                                           "in the checkpoint", [a["checkpoint_key"][:300]])


def encode_object_graph(nodes: list[dict]) -> bytes:
    """A ``TrackableObjectGraph`` message: ``nodes[i]`` is ``{"children": [(name, node id)], "value": the
    checkpoint key of its VARIABLE_VALUE (or absent), "attributes": [(name, checkpoint key, full name)] (other
    saved attributes, or absent), "slots": [(original node, slot name, slot node)]}``."""
    out = []
    for n in nodes:
        value = n.get("value")
        attributes = [] if value is None else [{"name": "VARIABLE_VALUE", "full_name": n.get("full_name", ""),
                                                "checkpoint_key": value}]
        attributes += [{"name": name, "full_name": full, "checkpoint_key": key}
                       for name, key, full in n.get("attributes", ())]
        out.append({
            "children": [{"node_id": i, "local_name": name} for name, i in n.get("children", [])],
            "attributes": attributes,
            "slot_variables": [{"original_variable_node_id": a, "slot_name": s, "slot_variable_node_id": b}
                               for a, s, b in n.get("slots", [])],
        })
    return wire.encode({"nodes": out}, GRAPH)


# ---------------------------------------------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------------------------------------------
def _string_bytes(values) -> tuple[bytes, int]:
    lengths, crc, body = bytearray(), 0, bytearray()
    for v in values:
        v = bytes(v)
        lengths += wire.varint(len(v))
        crc = _crc.crc32c(struct.pack("<I", len(v)) if len(v) <= 0xFFFFFFFF else struct.pack("<Q", len(v)), crc)
    check = struct.pack("<I", _crc.mask(crc))
    crc = _crc.crc32c(check, crc)
    for v in values:
        body += bytes(v)
        crc = _crc.crc32c(bytes(v), crc)
    return bytes(lengths) + check + bytes(body), crc


def write_bundle(prefix, tensors: dict) -> None:
    """Write ``tensors`` (name -> NumPy array of a dtype in :data:`TF_DTYPES`, or ``bytes`` for a scalar
    string) as a one-shard tensor bundle that TensorFlow reads. The data file and then the index are
    written to temporary names and renamed into place (the index last: a bundle is complete once its
    index exists). An existing bundle's index is removed before its data file is replaced, so a write
    killed between the renames leaves no bundle rather than the old index over the new data; writes in
    one folder hold an exclusive ``flock`` on it, so two writes of one prefix never mix their files, and
    what killed writes of these files left is cleared first."""
    prefix = os.fspath(prefix)
    parent = os.path.dirname(os.path.abspath(prefix))
    os.makedirs(parent, exist_ok=True)
    data = bytearray()
    rows = [(b"", wire.encode({"num_shards": 1, "endianness": 0, "version": {"producer": _BUNDLE_VERSION}}, HEADER))]
    for name in sorted(tensors):
        value = tensors[name]
        if isinstance(value, bytes):
            raw, crc = _string_bytes([value])
            entry = {"dtype": _DT_STRING, "shape": {}, "offset": len(data), "size": len(raw),
                     "crc32c": _crc.mask(crc)}
        else:
            arr = np.asarray(value)
            code = _TO_TF.get(arr.dtype.newbyteorder("=") if arr.dtype.byteorder != "|" else arr.dtype)
            if code is None:
                raise TypeError(f"write_bundle: '{name}' has dtype {arr.dtype}, which a TensorFlow checkpoint written "
                                "by descend cannot hold")
            raw = arr.astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
            entry = {"dtype": code, "shape": {"dim": [{"size": int(d)} for d in arr.shape]}, "offset": len(data),
                     "size": len(raw), "crc32c": _crc.mask(_crc.crc32c(raw))}
        data += raw
        rows.append((name.encode("utf-8"), wire.encode(entry, ENTRY)))
    index = sstable.encode_table(rows)
    replace_file_set([(data_file(prefix, 0, 1), bytes(data)), (prefix + ".index", index)])
