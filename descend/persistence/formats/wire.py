"""Protocol buffers' wire format, for the few messages descend reads and writes in TensorFlow's files
(a tensor bundle's header and entries, the object graph of a TF 2 checkpoint). No protobuf library: a
message is decoded against a small schema written here, every length checked against the bytes that
remain, nesting bounded by the schema itself.

A schema maps field numbers to ``(name, kind, repeated)`` or, for a nested message, ``(name, schema,
repeated)``. Kinds: ``int32``, ``int64``, ``uint32``, ``uint64``, ``bool``, ``enum`` (varints),
``fixed32``, ``fixed64``, ``string`` (UTF-8), ``bytes``. Fields a schema does not name are skipped, as
protobuf does; a named field written with another wire type is an error.

Example:
    >>> from descend.persistence.formats import wire
    >>> schema = {1: ("id", "int32", False), 2: ("name", "string", False), 3: ("sizes", "int64", True)}
    >>> data = wire.encode({"id": 7, "name": "w", "sizes": [3, 4]}, schema)
    >>> wire.decode(data, schema, "example")
    {'id': 7, 'name': 'w', 'sizes': [3, 4]}
"""

from __future__ import annotations

import struct

__all__ = ["WireError", "decode", "encode", "fields", "read_varint", "varint"]

_VARINT, _FIXED64, _LENGTH, _FIXED32 = 0, 1, 2, 5
_KIND_WIRE = {"int32": _VARINT, "int64": _VARINT, "uint32": _VARINT, "uint64": _VARINT, "bool": _VARINT,
              "enum": _VARINT, "fixed32": _FIXED32, "fixed64": _FIXED64, "string": _LENGTH, "bytes": _LENGTH}
_DEFAULTS = {"string": "", "bytes": b"", "bool": False}


class WireError(ValueError):
    """Bytes that are not a well-formed message of the expected schema; the message names where."""


def read_varint(data, pos: int, end: int, where: str) -> tuple[int, int]:
    """The unsigned varint at ``data[pos:end]`` and the position after it (at most 10 bytes)."""
    result = shift = 0
    for _ in range(10):
        if pos >= end:
            raise WireError(f"{where}: a varint runs past the end of its message")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            if result >= 1 << 64:
                raise WireError(f"{where}: a varint exceeds 64 bits")
            return result, pos
        shift += 7
    raise WireError(f"{where}: a varint is longer than 10 bytes")


def varint(value: int) -> bytes:
    """The varint encoding of a non-negative integer below 2**64 (negative int32/int64: two's complement)."""
    if value < 0:
        value += 1 << 64
    out = bytearray()
    while True:
        b = value & 0x7F
        value >>= 7
        if value:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _convert(kind: str, raw: int, where: str, name: str):
    if kind in ("int64", "enum", "int32"):
        value = raw - (1 << 64) if raw >= 1 << 63 else raw
        if kind == "int32" and not -(1 << 31) <= value < 1 << 31:
            raise WireError(f"{where}: field '{name}' holds {value}, outside the int32 range")
        return value
    if kind == "uint32":
        if raw >= 1 << 32:
            raise WireError(f"{where}: field '{name}' holds {raw}, outside the uint32 range")
        return raw
    if kind == "bool":
        return raw != 0
    return raw  # uint64


def decode(data, schema: dict, where: str, max_values: int | None = None) -> dict:
    """The fields of the message ``data`` (bytes or a memoryview) that ``schema`` names, as a dict:
    repeated fields as lists (packed or not), nested messages as dicts, absent scalars at their default.

    ``max_values``: the most repeated values (messages and scalars, at any depth) decoded; a message
    holding more is refused when the next one is reached, before it is built (each costs a Python object
    of some hundred bytes, from as little as two bytes of the message)."""
    view = memoryview(data).cast("B") if not isinstance(data, (bytes, bytearray)) else data
    budget = [len(view) if max_values is None else max_values]
    return _decode(view, 0, len(view), schema, where, budget)


def _field(data, pos: int, end: int, where: str) -> tuple[int, int, object, int]:
    """The field at ``data[pos:end]``: its number, wire type, value (a length-delimited one as its
    ``(start, end)``) and the position after it."""
    key, pos = read_varint(data, pos, end, where)
    number, wt = key >> 3, key & 7
    if number == 0:
        raise WireError(f"{where}: a field has number 0 (not a protocol buffer)")
    if wt == _VARINT:
        raw, pos = read_varint(data, pos, end, where)
    elif wt == _FIXED64:
        if end - pos < 8:
            raise WireError(f"{where}: a 64-bit field runs past the end of its message")
        raw = struct.unpack_from("<Q", data, pos)[0]
        pos += 8
    elif wt == _FIXED32:
        if end - pos < 4:
            raise WireError(f"{where}: a 32-bit field runs past the end of its message")
        raw = struct.unpack_from("<I", data, pos)[0]
        pos += 4
    elif wt == _LENGTH:
        n, pos = read_varint(data, pos, end, where)
        if n > end - pos:
            raise WireError(f"{where}: a field declares {n} bytes; its message has {end - pos} left")
        raw = (pos, pos + n)
        pos += n
    else:
        raise WireError(f"{where}: wire type {wt} (field {number}) is not one descend reads")
    return number, wt, raw, pos


def fields(data, where: str):
    """The top-level fields of the message ``data``, one at a time: ``(number, wire type, value)``, a
    length-delimited value as its ``(start, end)`` in ``data`` (nothing is decoded or copied)."""
    pos, end = 0, len(data)
    while pos < end:
        number, wt, raw, pos = _field(data, pos, end, where)
        yield number, wt, raw


def _spend(budget: list, where: str, name: str) -> None:
    budget[0] -= 1
    if budget[0] < 0:
        raise WireError(f"{where}: field '{name}' takes the message past the values it may hold (too many "
                        "repeated values; refused before building them)")


def _decode(data, pos: int, end: int, schema: dict, where: str, budget: list) -> dict:
    out: dict = {}
    for _number, (name, kind, repeated) in schema.items():
        if repeated:
            out[name] = []
        elif isinstance(kind, str):
            out[name] = _DEFAULTS.get(kind, 0)
        else:
            out[name] = None
    while pos < end:
        number, wt, raw, pos = _field(data, pos, end, where)
        spec = schema.get(number)
        if spec is None:
            continue  # a field this schema does not name: skipped, as protobuf does
        name, kind, repeated = spec
        field_where = f"{where}.{name}"
        if not isinstance(kind, str):  # a nested message
            if wt != _LENGTH:
                raise WireError(f"{where}: field '{name}' must be a message; found wire type {wt}")
            if repeated:
                _spend(budget, where, name)
            value = _decode(data, raw[0], raw[1], kind, field_where, budget)
            if repeated:
                out[name].append(value)
            else:
                out[name] = value
            continue
        want = _KIND_WIRE[kind]
        if wt == want:
            if wt == _LENGTH:
                chunk = bytes(data[raw[0]:raw[1]])
                if kind == "string":
                    try:
                        value = chunk.decode("utf-8")
                    except UnicodeDecodeError:
                        raise WireError(f"{where}: field '{name}' is not UTF-8 text") from None
                else:
                    value = chunk
            else:
                value = _convert(kind, raw, where, name) if want == _VARINT else raw
            if repeated:
                _spend(budget, where, name)
                out[name].append(value)
            else:
                out[name] = value
        elif wt == _LENGTH and repeated and want != _LENGTH:  # a packed repeated scalar
            p, stop = raw
            while p < stop:
                _spend(budget, where, name)
                if want == _VARINT:
                    v, p = read_varint(data, p, stop, field_where)
                    out[name].append(_convert(kind, v, where, name))
                else:
                    size = 4 if want == _FIXED32 else 8
                    if stop - p < size:
                        raise WireError(f"{where}: packed field '{name}' ends inside a value")
                    out[name].append(struct.unpack_from("<I" if size == 4 else "<Q", data, p)[0])
                    p += size
        else:
            raise WireError(f"{where}: field '{name}' has wire type {wt}; a {kind} has wire type {want}")
    return out


def encode(message: dict, schema: dict) -> bytes:
    """The wire encoding of ``message`` (a dict as :func:`decode` returns) for ``schema``; fields at their
    default value are left out, as proto3 does."""
    out = bytearray()
    for number, (name, kind, repeated) in sorted(schema.items()):
        value = message.get(name)
        values = (value or []) if repeated else [value]
        for v in values:
            if v is None:
                continue
            if not isinstance(kind, str):
                body = encode(v, kind)
                out += varint(number << 3 | _LENGTH) + varint(len(body)) + body
                continue
            if not repeated and v == _DEFAULTS.get(kind, 0):
                continue
            wt = _KIND_WIRE[kind]
            if wt == _VARINT:
                out += varint(number << 3 | wt) + varint(int(v))
            elif wt == _FIXED32:
                out += varint(number << 3 | wt) + struct.pack("<I", v)
            elif wt == _FIXED64:
                out += varint(number << 3 | wt) + struct.pack("<Q", v)
            else:
                body = v.encode("utf-8") if kind == "string" else bytes(v)
                out += varint(number << 3 | wt) + varint(len(body)) + body
    return bytes(out)
