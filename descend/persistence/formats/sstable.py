"""The sorted string table of LevelDB, as TensorFlow writes it for a checkpoint's ``.index`` file:
data blocks of prefix-compressed key/value entries, an index block pointing at them, a 48-byte footer
with a magic number. Every block's masked CRC-32C is checked, every offset and length against the
bytes there are, keys must increase; snappy-compressed blocks (which TensorFlow's checkpoint writer
never makes) are refused. Errors name the file and the field. :func:`iter_table` reads one entry at a
time and charges every key rebuilt from the one before it against a budget of
:data:`KEY_BYTES_PER_BYTE` times the table's size, so reading costs time and memory linear in it.

Example:
    >>> from descend.persistence.formats import sstable
    >>> data = sstable.encode_table([(b"", b"header"), (b"w", b"entry")])
    >>> sstable.decode_table(data, "example.index")
    [(b'', b'header'), (b'w', b'entry')]
"""

from __future__ import annotations

import struct

from . import crc32c as _crc
from .wire import WireError, read_varint, varint

__all__ = ["MAGIC", "FOOTER_BYTES", "TableError", "iter_table", "decode_table", "encode_table"]

MAGIC = 0xDB4775248B80FB57
FOOTER_BYTES = 48
_TRAILER = 5  # a block's compression type byte and its masked CRC-32C
_NONE, _SNAPPY = 0, 1
#: the most entries one table may declare (a checkpoint of a million variables has about that many)
MAX_ENTRIES = 1 << 24
#: the bytes of keys a table may rebuild per byte of its size (keys share prefixes with the key before them;
#: TensorFlow's checkpoint keys rebuild to about twice the table's bytes)
KEY_BYTES_PER_BYTE = 8
KEY_BYTES_SLACK = 1 << 20


class TableError(ValueError):
    """A table that is truncated, corrupted or not a table; the message names the file and the field."""


def _handle(data, pos: int, end: int, where: str) -> tuple[int, int, int]:
    try:
        offset, pos = read_varint(data, pos, end, where)
        size, pos = read_varint(data, pos, end, where)
    except WireError as e:
        raise TableError(str(e)) from None
    return offset, size, pos


def _block(data, offset: int, size: int, limit: int, where: str):
    """The contents of the block at ``offset`` (``size`` bytes and its trailer), checked."""
    if offset > limit or size > limit - offset or _TRAILER > limit - offset - size:
        raise TableError(f"{where}: declares a block of {size} bytes at offset {offset}; the table's blocks end at "
                         f"byte {limit} (truncated or corrupted)")
    kind = data[offset + size]
    if kind == _SNAPPY:
        raise TableError(f"{where}: a block is snappy-compressed; TensorFlow's checkpoint writer never compresses "
                         "blocks and descend reads uncompressed tables only")
    if kind != _NONE:
        raise TableError(f"{where}: field 'block compression type' is {kind}; expected 0 (none)")
    stored = struct.unpack_from("<I", data, offset + size + 1)[0]
    actual = _crc.mask(_crc.crc32c(data[offset:offset + size + 1]))
    if stored != actual:
        raise TableError(f"{where}: field 'block checksum' does not match the block at offset {offset} (the file "
                         "was modified or corrupted)")
    return offset, offset + size


def _entries(data, start: int, end: int, where: str, keys: list):
    """The block's entries (``data[start:end]``), one at a time: ``(key, value start, value end)``.

    ``keys`` is ``[bytes of keys rebuilt so far, the most allowed]``: a key is rebuilt from the one
    before it (``shared`` bytes of it, then its own), so a table whose keys share long prefixes would
    cost the square of its size; every key's length is charged before it is built."""
    if end - start < 4:
        raise TableError(f"{where}: a block of {end - start} bytes cannot hold its restart count")
    restarts = struct.unpack_from("<I", data, end - 4)[0]
    if restarts > (end - start - 4) // 4:
        raise TableError(f"{where}: field 'restart count' is {restarts}; the block has room for "
                         f"{(end - start - 4) // 4}")
    stop = end - 4 - 4 * restarts
    pos = start
    key = b""
    try:
        while pos < stop:
            shared, pos = read_varint(data, pos, stop, where)
            fresh, pos = read_varint(data, pos, stop, where)
            vlen, pos = read_varint(data, pos, stop, where)
            if shared > len(key):
                raise TableError(f"{where}: an entry shares {shared} bytes with a key of {len(key)}")
            if fresh > stop - pos or vlen > stop - pos - fresh:
                raise TableError(f"{where}: an entry declares a {fresh}-byte key and a {vlen}-byte value; its block "
                                 f"has {stop - pos} bytes left")
            keys[0] += shared + fresh
            if keys[0] > keys[1]:
                raise TableError(f"{where}: its keys share prefixes so long that rebuilding them takes more than "
                                 f"{keys[1]} bytes ({KEY_BYTES_PER_BYTE} per byte of the table, plus "
                                 f"{KEY_BYTES_SLACK}); refused before building them")
            key = key[:shared] + bytes(data[pos:pos + fresh])
            pos += fresh
            yield key, pos, pos + vlen
            pos += vlen
    except WireError as e:
        raise TableError(str(e)) from None


def iter_table(data, where: str):
    """Every ``(key, value start, value end)`` of the table ``data`` (the whole file's bytes), in key order,
    one at a time: nothing is kept but the key being rebuilt. The value is ``data[start:end]``.

    The cost is bounded by the table's size: at most :data:`KEY_BYTES_PER_BYTE` bytes of keys rebuilt per
    byte of the table (plus :data:`KEY_BYTES_SLACK`), at most :data:`MAX_ENTRIES` entries, each data block
    read once (blocks must follow one another, as every writer lays them out)."""
    size = len(data)
    if size < FOOTER_BYTES:
        raise TableError(f"{where}: has {size} bytes; a table ends with a {FOOTER_BYTES}-byte footer (truncated, or "
                         "not a TensorFlow checkpoint index)")
    foot = size - FOOTER_BYTES
    magic = struct.unpack_from("<Q", data, size - 8)[0]
    if magic != MAGIC:
        raise TableError(f"{where}: field 'footer magic' is {magic:#x}; expected {MAGIC:#x} (truncated, or not a "
                         "TensorFlow checkpoint index)")
    _, _, pos = _handle(data, foot, size - 8, f"{where}: footer metaindex handle")
    index_offset, index_size, _ = _handle(data, pos, size - 8, f"{where}: footer index handle")
    start, end = _block(data, index_offset, index_size, foot, f"{where}: index block")
    keys = [0, KEY_BYTES_PER_BYTE * size + KEY_BYTES_SLACK]
    previous = None
    count = 0
    block_end = 0
    for _, vstart, vend in _entries(data, start, end, f"{where}: index block", keys):
        offset, length, _ = _handle(data, vstart, vend, f"{where}: index block entry")
        if offset < block_end:
            raise TableError(f"{where}: the index block points at a data block at offset {offset}, inside the block "
                             f"before it (which ends at {block_end}); blocks follow one another")
        bstart, bend = _block(data, offset, length, foot, f"{where}: data block at offset {offset}")
        block_end = bend + _TRAILER
        for key, kstart, kend in _entries(data, bstart, bend, f"{where}: data block at offset {offset}", keys):
            if previous is not None and key <= previous:
                raise TableError(f"{where}: keys are not in increasing order ({previous[:60]!r} then {key[:60]!r})")
            count += 1
            if count > MAX_ENTRIES:
                raise TableError(f"{where}: holds more than {MAX_ENTRIES} entries")
            previous = key
            yield key, kstart, kend


def decode_table(data, where: str) -> list[tuple[bytes, bytes]]:
    """Every ``(key, value)`` of the table ``data`` (the whole file's bytes), in key order (a list: for
    small tables; :func:`iter_table` reads one entry at a time)."""
    return [(key, bytes(data[start:end])) for key, start, end in iter_table(data, where)]


def _block_bytes(entries: list) -> bytes:
    body = bytearray()
    restarts = []
    for key, value in entries:  # every entry a restart point: no shared prefixes
        restarts.append(len(body))
        body += varint(0) + varint(len(key)) + varint(len(value)) + key + value
    for r in restarts or [0]:
        body += struct.pack("<I", r)
    body += struct.pack("<I", len(restarts) or 1)
    return bytes(body)


def encode_table(entries, block_bytes: int = 4096) -> bytes:
    """A table of ``entries`` (``(key, value)`` bytes, keys strictly increasing) that LevelDB's and
    TensorFlow's readers read."""
    entries = list(entries)
    for (a, _), (b, _) in zip(entries, entries[1:]):
        if not a < b:
            raise ValueError(f"encode_table: keys must increase strictly ({a[:60]!r} then {b[:60]!r})")
    out = bytearray()
    index = []

    def put(block: list) -> None:
        body = _block_bytes(block)
        index.append((block[-1][0], varint(len(out)) + varint(len(body))))
        out.extend(body + bytes([_NONE]) + struct.pack("<I", _crc.mask(_crc.crc32c(body + bytes([_NONE])))))

    block, size = [], 0
    for key, value in entries:
        block.append((key, value))
        size += len(key) + len(value) + 12
        if size >= block_bytes:
            put(block)
            block, size = [], 0
    if block:
        put(block)
    meta = _block_bytes([])
    meta_handle = varint(len(out)) + varint(len(meta))
    out.extend(meta + bytes([_NONE]) + struct.pack("<I", _crc.mask(_crc.crc32c(meta + bytes([_NONE])))))
    body = _block_bytes(index)
    index_handle = varint(len(out)) + varint(len(body))
    out.extend(body + bytes([_NONE]) + struct.pack("<I", _crc.mask(_crc.crc32c(body + bytes([_NONE])))))
    footer = meta_handle + index_handle
    out.extend(footer + bytes(40 - len(footer)) + struct.pack("<Q", MAGIC))
    return bytes(out)
