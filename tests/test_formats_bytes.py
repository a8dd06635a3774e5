"""The byte-level readers under TensorFlow's checkpoint files (descend.persistence.formats): protocol buffers' wire format,
CRC-32C, LevelDB tables, tensor bundles. Round trips, values checked against independent references (a
bit-by-bit CRC, TensorFlow's own protobuf classes where installed), every malformed input a WireError /
TableError / CheckpointCorruptedError, and random bytes never anything else."""

from __future__ import annotations

import struct

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from descend.checkpoint import CheckpointCorruptedError
from descend.persistence.formats import crc32c, sstable, tf_bundle, wire

SCHEMA = {1: ("i32", "int32", False), 2: ("i64", "int64", False), 3: ("u64", "uint64", False),
          4: ("flag", "bool", False), 5: ("name", "string", False), 6: ("blob", "bytes", False),
          7: ("f32", "fixed32", False), 8: ("many", "int64", True),
          9: ("child", {1: ("x", "int32", False)}, False), 10: ("children", {1: ("x", "int32", False)}, True)}


# --- protocol buffers --------------------------------------------------------------------------------------------
def test_round_trip_of_every_kind():
    msg = {"i32": -5, "i64": -(2**40), "u64": 2**64 - 1, "flag": True, "name": "é/x", "blob": b"\x00\xff",
           "f32": 0xDEADBEEF, "many": [0, 1, -1, 2**62], "child": {"x": 7}, "children": [{"x": 1}, {"x": -2}]}
    assert wire.decode(wire.encode(msg, SCHEMA), SCHEMA, "m") == msg


def test_defaults_unknown_fields_and_packed_repeated():
    assert wire.decode(b"", SCHEMA, "m") == {"i32": 0, "i64": 0, "u64": 0, "flag": False, "name": "", "blob": b"",
                                              "f32": 0, "many": [], "child": None, "children": []}
    unknown = wire.varint(99 << 3 | 0) + wire.varint(5) + wire.varint(98 << 3 | 2) + wire.varint(2) + b"ab"
    assert wire.decode(unknown + wire.varint(1 << 3) + wire.varint(3), SCHEMA, "m")["i32"] == 3
    packed = wire.varint(8 << 3 | 2) + wire.varint(3) + wire.varint(1) + wire.varint(300)
    assert wire.decode(packed, SCHEMA, "m")["many"] == [1, 300]


def test_varint_edges():
    for v in (0, 1, 127, 128, 2**32, 2**63, 2**64 - 1):
        assert wire.read_varint(wire.varint(v), 0, 10, "v") == (v, len(wire.varint(v)))
    with pytest.raises(wire.WireError, match="longer than 10 bytes"):
        wire.read_varint(b"\xff" * 11, 0, 11, "v")
    with pytest.raises(wire.WireError, match="exceeds 64 bits"):
        wire.read_varint(b"\xff" * 9 + b"\x7f", 0, 10, "v")
    with pytest.raises(wire.WireError, match="runs past the end"):
        wire.read_varint(b"\x80\x80", 0, 2, "v")


@pytest.mark.parametrize("data,text", [
    (wire.varint(5 << 3 | 2) + wire.varint(100) + b"ab", "declares 100 bytes"),
    (wire.varint(1 << 3 | 2) + wire.varint(1) + b"x", "field 'i32' has wire type 2"),
    (wire.varint(9 << 3 | 0) + wire.varint(1), "field 'child' must be a message"),
    (wire.varint(1 << 3 | 3), "wire type 3"),
    (wire.varint(0) + wire.varint(1), "number 0"),
    (wire.varint(5 << 3 | 2) + wire.varint(2) + b"\xff\xfe", "not UTF-8"),
    (wire.varint(1 << 3) + wire.varint(2**40), "outside the int32 range"),
    (wire.varint(7 << 3 | 5) + b"\x01\x02", "32-bit field runs past"),
    (wire.varint(9 << 3 | 2) + wire.varint(2) + wire.varint(1 << 3 | 2) + wire.varint(9), "m.child: a field declares 9"),
])
def test_malformed_messages_name_the_field(data, text):
    with pytest.raises(wire.WireError, match=text):
        wire.decode(data, SCHEMA, "m")


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_decode_or_raise_wire_error(data):
    try:
        wire.decode(data, SCHEMA, "m")
        wire.decode(data, tf_bundle.GRAPH, "g")
        wire.decode(data, tf_bundle.ENTRY, "e")
    except wire.WireError:
        pass


def test_tensorflow_parses_what_descend_encodes_and_the_other_way():
    pytest.importorskip("tensorflow")
    from tensorflow.core.protobuf import tensor_bundle_pb2, trackable_object_graph_pb2

    entry = {"dtype": 1, "shape": {"dim": [{"size": 3}, {"size": 4}]}, "shard_id": 0, "offset": 12, "size": 48,
             "crc32c": 0x12345678}
    theirs = tensor_bundle_pb2.BundleEntryProto.FromString(wire.encode(entry, tf_bundle.ENTRY))
    assert [d.size for d in theirs.shape.dim] == [3, 4] and theirs.offset == 12 and theirs.crc32c == 0x12345678
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    node = graph.nodes.add()
    node.children.add(node_id=1, local_name="model")
    node.slot_variables.add(original_variable_node_id=1, slot_name="m", slot_variable_node_id=1)
    graph.nodes.add().attributes.add(name="VARIABLE_VALUE", full_name="w", checkpoint_key="model/.ATTRIBUTES/x")
    ours = wire.decode(graph.SerializeToString(), tf_bundle.GRAPH, "g")["nodes"]
    assert ours[0]["children"] == [{"node_id": 1, "local_name": "model"}]
    assert ours[0]["slot_variables"][0]["slot_name"] == "m"
    assert ours[1]["attributes"][0]["checkpoint_key"] == "model/.ATTRIBUTES/x"


# --- CRC-32C -----------------------------------------------------------------------------------------------------
def _reference(data: bytes) -> int:
    r = 0xFFFFFFFF
    for b in data:
        r ^= b
        for _ in range(8):
            r = (r >> 1) ^ (0x82F63B78 if r & 1 else 0)
    return r ^ 0xFFFFFFFF


@pytest.mark.parametrize("n", [0, 1, 7, 4096, 4097, 9000, 70001])
def test_crc32c_matches_the_bitwise_reference_and_continues(n):
    data = np.random.default_rng(n).integers(0, 256, n, dtype=np.uint8).tobytes()
    assert crc32c.crc32c(data) == _reference(data)
    assert crc32c.crc32c(data[n // 3:], crc32c.crc32c(data[:n // 3])) == _reference(data)
    assert crc32c.crc32c(np.frombuffer(data, np.uint8)) == _reference(data)


def test_crc32c_known_vectors_and_mask():
    assert crc32c.crc32c(b"123456789") == 0xE3069283
    assert crc32c.crc32c(bytes(32)) == 0x8A9136AA  # RFC 3720's test vectors
    assert crc32c.crc32c(b"\xff" * 32) == 0x62A8AB43
    for v in (0, 1, 0xFFFFFFFF, 0x12345678):
        assert crc32c.unmask(crc32c.mask(v)) == v


# --- tables ------------------------------------------------------------------------------------------------------
def test_table_round_trip_across_blocks():
    rows = [(f"key/{i:05d}".encode(), bytes([i % 256]) * (i % 50)) for i in range(600)]
    data = sstable.encode_table([(b"", b"h")] + rows, block_bytes=512)
    assert sstable.decode_table(data, "t") == [(b"", b"h")] + rows


def _prefix_compressed_block(entries, restarts_every=2) -> bytes:
    """A block as LevelDB writes it: keys sharing prefixes with the one before, restarts every few entries."""
    body, restarts, prev = bytearray(), [], b""
    for i, (k, v) in enumerate(entries):
        shared = 0
        if i % restarts_every:
            while shared < min(len(k), len(prev)) and k[shared] == prev[shared]:
                shared += 1
        else:
            restarts.append(len(body))
        body += wire.varint(shared) + wire.varint(len(k) - shared) + wire.varint(len(v)) + k[shared:] + v
        prev = k
    for r in restarts:
        body += struct.pack("<I", r)
    return bytes(body + struct.pack("<I", len(restarts)))


def _table_of_block(block: bytes, last_key: bytes) -> bytes:
    def framed(b):
        return b + b"\x00" + struct.pack("<I", crc32c.mask(crc32c.crc32c(b + b"\x00")))
    out = framed(block)
    index = _prefix_compressed_block([(last_key, wire.varint(0) + wire.varint(len(block)))], 1)
    meta_at = len(out)
    meta = _prefix_compressed_block([], 1)
    out += framed(meta)
    index_at = len(out)
    out += framed(index)
    footer = wire.varint(meta_at) + wire.varint(len(meta)) + wire.varint(index_at) + wire.varint(len(index))
    return out + footer + bytes(40 - len(footer)) + struct.pack("<Q", sstable.MAGIC)


def test_prefix_compressed_blocks_read_as_leveldb_writes_them():
    entries = [(b"", b"h"), (b"dense/bias", b"1"), (b"dense/bias/Adam", b"2"), (b"dense/kernel", b"3"),
               (b"dense/kernel/Adam", b"4")]
    assert sstable.decode_table(_table_of_block(_prefix_compressed_block(entries), entries[-1][0]), "t") == entries


@pytest.mark.parametrize("edit,text", [
    (lambda d: d[:-49], "footer magic"),
    (lambda d: d[:20], "48-byte footer"),
    (lambda d: bytes([d[0] ^ 1]) + d[1:], "block checksum"),
])
def test_broken_tables_name_the_field(edit, text):
    data = sstable.encode_table([(b"", b"h"), (b"a", b"1")])
    with pytest.raises(sstable.TableError, match=text):
        sstable.decode_table(edit(data), "t.index")


def test_keys_out_of_order_and_shared_prefix_lies_are_refused():
    entries = [(b"b", b"1"), (b"a", b"2")]
    with pytest.raises(sstable.TableError, match="increasing order"):
        sstable.decode_table(_table_of_block(_prefix_compressed_block(entries, 1), b"b"), "t")
    block = bytearray(_prefix_compressed_block([(b"ab", b"1"), (b"ac", b"2")]))
    block[6] = 9  # the second entry claims 9 shared bytes of a 2-byte key
    with pytest.raises(sstable.TableError, match="shares 9 bytes"):
        sstable.decode_table(_table_of_block(bytes(block), b"ac"), "t")


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_random_corruption_of_a_table_is_a_table_error(data):
    table = bytearray(sstable.encode_table([(b"", b"header"), (b"k1", b"v" * 30), (b"k2", b"w" * 7)]))
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(table) - 1))
        table[at] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(table)))
    try:
        sstable.decode_table(bytes(table[:cut]), "t")
    except sstable.TableError:
        pass


# --- bundles -----------------------------------------------------------------------------------------------------
def test_bundle_round_trip_of_every_dtype_and_a_string(tmp_path):
    values = {f"v/{np.dtype(t).name}": np.arange(6).astype(t).reshape(2, 3) for t in tf_bundle.TF_DTYPES.values()}
    values["scalar"] = np.float64(2.5)
    values["empty"] = np.zeros((0, 3), np.float32)
    values[tf_bundle.OBJECT_GRAPH_KEY] = b"\x00" * 1000
    tf_bundle.write_bundle(tmp_path / "b", values)
    bundle = tf_bundle.TensorBundle(tmp_path / "b")
    assert bundle.keys() == sorted(values)
    for k, v in values.items():
        got = bundle.read(k)
        assert got == v if isinstance(v, bytes) else (np.array_equal(got, v) and got.dtype == np.asarray(v).dtype)
    assert bundle.shapes()["scalar"] == () and tf_bundle.is_bundle(tmp_path / "b")
    with pytest.raises(KeyError, match="has no tensor 'nope'"):
        bundle.read("nope")


def test_a_string_whose_lengths_lie_is_refused(tmp_path):
    tf_bundle.write_bundle(tmp_path / "b", {"s": b"hello world"})
    data = bytearray((tmp_path / "b.data-00000-of-00001").read_bytes())
    data[0] = 5  # the varint length: 5 instead of 11
    (tmp_path / "b.data-00000-of-00001").write_bytes(bytes(data))
    with pytest.raises(CheckpointCorruptedError, match="string lengths"):
        tf_bundle.TensorBundle(tmp_path / "b").read("s")
