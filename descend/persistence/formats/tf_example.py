"""TensorFlow's ``tf.train.Example`` protocol buffers without a protobuf library: ``BytesList``, ``FloatList``,
``Int64List``, ``Feature``, ``Features``, ``FeatureList``, ``FeatureLists``, ``Example`` and ``SequenceExample``.

The classes behave as the generated protobuf classes do where programs touch them: keyword constructors
(a message field takes a message or a dict, a repeated field any iterable, a map field a dict), attribute
access that creates an empty sub-message on first read (present only once something is written into it,
so ``Feature.WhichOneof("kind")`` names the list that was filled), ``SerializeToString`` with the bytes of
TF's (packed ``float``/``int64`` lists),
``FromString``/``ParseFromString``, ``CopyFrom``, ``Clear``, ``HasField``, equality, and the text format as
``str()``. Map entries are written in insertion order (TF's upb runtime writes them in its hash table's
order, which depends on the process); ``SerializeToString(deterministic=True)`` sorts them by key, as TF
does, and gives TF's bytes exactly. Floats are stored as float32 (reading ``FloatList(value=[0.1]).value[0]`` gives
0.10000000149011612, as in TF).

Example:
    >>> import descend as ds
    >>> ex = ds.train.Example(features=ds.train.Features(feature={
    ...     "label": ds.train.Feature(int64_list=ds.train.Int64List(value=[3]))}))
    >>> ex.SerializeToString()
    b'\\n\\x10\\n\\x0e\\n\\x05label\\x12\\x05\\x1a\\x03\\n\\x01\\x03'
    >>> ds.train.Example.FromString(ex.SerializeToString()).features.feature["label"].int64_list.value[0]
    3
"""

from __future__ import annotations

import struct

import numpy as np

from . import wire

__all__ = ["BytesList", "DecodeError", "Example", "Feature", "FeatureList", "FeatureLists", "Features", "FloatList",
           "Int64List", "SequenceExample"]

_VARINT, _FIXED32, _LENGTH = 0, 5, 2


class DecodeError(ValueError):
    """Bytes that are not a serialized message of the expected type (protobuf's ``DecodeError``)."""


# ---------------------------------------------------------------- scalar checks (protobuf's type rules)

def _check_int64(v):
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"Field tensorflow.Int64List.value: Expected an int, got a boolean ({v!r})")
    if isinstance(v, (float, np.floating)) or not hasattr(v, "__index__"):
        raise TypeError(f"Int64List.value: expected an int. Received {v!r} of type {type(v).__name__}")
    v = int(v)
    if not -(1 << 63) <= v < 1 << 63:
        raise ValueError(f"Int64List.value: value out of the int64 range: {v}")
    return v


def _check_float(v):
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise TypeError(f"FloatList.value: expected a number. Received {v!r} of type {type(v).__name__}")
    return float(np.float32(v))  # stored as float32, read back as a Python float


def _check_bytes(v):
    if not isinstance(v, (bytes, bytearray, np.bytes_)):
        raise TypeError(f"BytesList.value: expected bytes. Received {v!r} of type {type(v).__name__} "
                        "(encode text first, e.g. s.encode('utf-8'))")
    return bytes(v)


# ---------------------------------------------------------------- containers that report writes upward

class _Repeated(list):
    """A repeated scalar field: a list whose writes check the type and mark the owning message present."""

    def __init__(self, owner, check):
        super().__init__()
        self._owner, self._check = owner, check

    def append(self, v):
        super().append(self._check(v))
        self._owner._touch()

    def extend(self, values):
        super().extend([self._check(v) for v in values])
        self._owner._touch()

    def insert(self, i, v):
        super().insert(i, self._check(v))
        self._owner._touch()

    def __setitem__(self, i, v):
        super().__setitem__(i, [self._check(x) for x in v] if isinstance(i, slice) else self._check(v))
        self._owner._touch()

    def __delitem__(self, i):
        super().__delitem__(i)
        self._owner._touch()

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, (list, tuple)) else NotImplemented

    __hash__ = None

    def __repr__(self):
        return repr(list(self))


class _RepeatedMessages(list):
    """A repeated message field: ``add()`` makes an element; elements added are copies of the given ones."""

    def __init__(self, owner, cls):
        super().__init__()
        self._owner, self._cls = owner, cls

    def add(self, **kwargs):
        item = self._cls(**kwargs)
        item._parent = (self._owner, None)
        super().append(item)
        self._owner._touch()
        return item

    def append(self, message):
        self.add().CopyFrom(_as_message(self._cls, message, "append"))

    def extend(self, messages):
        for m in messages:
            self.append(m)

    def __setitem__(self, i, v):
        raise TypeError("a repeated message field does not support item assignment; use add(), append() or del")

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, (list, tuple)) else NotImplemented

    __hash__ = None


class _MessageMap(dict):
    """A map from strings to messages: reading a missing key creates its (empty) entry, as protobuf does."""

    def __init__(self, owner, cls):
        super().__init__()
        self._owner, self._cls = owner, cls

    def __missing__(self, key):
        if not isinstance(key, str):
            raise TypeError(f"a map key must be a str. Received {key!r} of type {type(key).__name__}")
        item = self._cls()
        item._parent = (self._owner, None)
        dict.__setitem__(self, key, item)
        self._owner._touch()
        return item

    def __setitem__(self, key, value):
        raise ValueError("Direct assignment of submessage not allowed; use map[key].CopyFrom(message)")

    def get_or_create(self, key):
        return self[key]

    def __delitem__(self, key):
        super().__delitem__(key)
        self._owner._touch()


def _as_message(cls, value, where):
    if isinstance(value, cls):
        return value
    if isinstance(value, dict):
        return cls(**value)
    raise TypeError(f"{where}: expected a {cls.__name__} (or a dict of its fields). Received {type(value).__name__}")


# ---------------------------------------------------------------- the message base

class _Message:
    """A protobuf message of fixed schema. ``_FIELDS``: name -> (number, kind, payload); kinds ``"int64s"``,
    ``"floats"``, ``"bytes"`` (repeated scalars), ``"message"`` (singular), ``"messages"`` (repeated) and
    ``"map"`` (string keys to messages); payload: the message class. ``_ONEOF``: the singular fields of
    which at most one is present."""

    _FIELDS: dict = {}
    _ONEOF: tuple = ()
    _ONEOF_NAME = ""

    def __init__(self, **kwargs):
        object.__setattr__(self, "_values", {})
        object.__setattr__(self, "_present", [])  # singular message fields present, in order of writing
        object.__setattr__(self, "_parent", None)
        for name, value in kwargs.items():
            if name not in self._FIELDS:
                raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" field.')
            if value is None:
                continue
            kind, cls = self._FIELDS[name][1], self._FIELDS[name][2]
            field = getattr(self, name)
            if kind == "message":
                field.CopyFrom(_as_message(cls, value, f"{type(self).__name__}.{name}"))
                self._set_present(name)
            elif kind == "map":
                if not isinstance(value, dict):
                    raise TypeError(f"{type(self).__name__}.{name}: expected a dict. Received {type(value).__name__}")
                for k, v in value.items():
                    field[k].CopyFrom(_as_message(cls, v, f"{type(self).__name__}.{name}[{k!r}]"))
            else:
                if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                    raise TypeError(f"{type(self).__name__}.{name}: a repeated field takes an iterable. "
                                    f"Received {value!r}")
                field.extend(value)

    # -- fields
    def __getattr__(self, name):
        spec = type(self)._FIELDS.get(name)
        if spec is None:
            raise AttributeError(f"{type(self).__name__} has no field or attribute '{name}'")
        values = object.__getattribute__(self, "_values")
        if name not in values:
            kind, cls = spec[1], spec[2]
            if kind == "message":
                value = cls()
                value._parent = (self, name)
            elif kind == "messages":
                value = _RepeatedMessages(self, cls)
            elif kind == "map":
                value = _MessageMap(self, cls)
            else:
                value = _Repeated(self, {"int64s": _check_int64, "floats": _check_float, "bytes": _check_bytes}[kind])
            values[name] = value
        return values[name]

    def __setattr__(self, name, value):
        if name == "_parent":
            object.__setattr__(self, name, value)
            return
        if name in self._FIELDS:
            kind = "message" if self._FIELDS[name][1] == "message" else "repeated"
            raise AttributeError(f'Assignment not allowed to {kind} field "{name}" in protocol message object.')
        raise AttributeError(f"{type(self).__name__} has no field '{name}'")

    def _set_present(self, name):
        if name in self._ONEOF:
            for other in self._ONEOF:
                if other != name and other in self._present:
                    self._present.remove(other)
                    self._values.pop(other, None)
        if name not in self._present:
            self._present.append(name)
        self._touch()

    def _touch(self):
        """Something was written into this message: it becomes present in its parent."""
        if self._parent is not None:
            parent, name = self._parent
            if name is not None and name not in parent._present:
                parent._set_present(name)
            else:
                parent._touch()

    def HasField(self, name):  # noqa: N802 - protobuf's method names
        """Whether the singular message field ``name`` is present (repeated fields have no presence)."""
        spec = self._FIELDS.get(name)
        if name == self._ONEOF_NAME and self._ONEOF:
            return any(n in self._present for n in self._ONEOF)
        if spec is None or spec[1] != "message":
            raise ValueError(f'Protocol message {type(self).__name__} has no singular "{name}" field.')
        return name in self._present

    def WhichOneof(self, oneof_group):  # noqa: N802
        """The name of the present field of the oneof ``oneof_group`` (``"kind"`` for a Feature), or None."""
        if not self._ONEOF or oneof_group != self._ONEOF_NAME:
            raise ValueError(f'Protocol message has no oneof "{oneof_group}" field.')
        return next((n for n in self._ONEOF if n in self._present), None)

    def ClearField(self, name):  # noqa: N802
        if name not in self._FIELDS:
            raise ValueError(f'Protocol message {type(self).__name__} has no "{name}" field.')
        self._values.pop(name, None)
        if name in self._present:
            self._present.remove(name)

    def Clear(self):  # noqa: N802
        self._values.clear()
        self._present.clear()

    def CopyFrom(self, other):  # noqa: N802
        """Make this message a copy of ``other`` (a message of the same type)."""
        if not isinstance(other, type(self)):
            raise TypeError(f"CopyFrom: expected a {type(self).__name__}. Received {type(other).__name__}")
        if other is self:
            return
        data = other.SerializeToString()
        self.Clear()
        self.MergeFromString(data)
        self._touch()

    def MergeFrom(self, other):  # noqa: N802
        if not isinstance(other, type(self)):
            raise TypeError(f"MergeFrom: expected a {type(self).__name__}. Received {type(other).__name__}")
        self.MergeFromString(other.SerializeToString())

    # -- the wire format
    def SerializeToString(self, deterministic=None):  # noqa: N802
        """The message's protobuf wire encoding (fields by number; ``deterministic`` sorts map keys)."""
        out = bytearray()
        for name, (number, kind, _cls) in sorted(self._FIELDS.items(), key=lambda item: item[1][0]):
            value = self._values.get(name)
            if value is None:
                continue
            if kind == "message":
                if name in self._present:
                    _put_length(out, number, value.SerializeToString(deterministic))
            elif kind == "messages":
                for item in value:
                    _put_length(out, number, item.SerializeToString(deterministic))
            elif kind == "map":
                keys = sorted(value) if deterministic else list(value)
                for key in keys:
                    entry = bytearray()
                    _put_length(entry, 1, key.encode("utf-8"))
                    _put_length(entry, 2, value[key].SerializeToString(deterministic))
                    _put_length(out, number, bytes(entry))
            elif kind == "bytes":
                for b in value:
                    _put_length(out, number, b)
            elif value:  # packed scalars; an empty list is left out
                if kind == "floats":
                    body = np.asarray(value, "<f4").tobytes()
                else:
                    body = b"".join(wire.varint(v) for v in value)
                _put_length(out, number, body)
        return bytes(out)

    SerializePartialToString = SerializeToString

    def ByteSize(self):  # noqa: N802
        return len(self.SerializeToString())

    @classmethod
    def FromString(cls, data):  # noqa: N802
        """A new message parsed from ``data`` (bytes)."""
        message = cls()
        message.MergeFromString(data)
        return message

    def ParseFromString(self, data):  # noqa: N802
        """Replace this message's fields with those parsed from ``data``; returns the number of bytes read.
        Malformed bytes raise :class:`DecodeError` and leave the message as it was."""
        type(self).FromString(data)  # refuses malformed bytes before anything is cleared
        self.Clear()
        return self.MergeFromString(data)

    def MergeFromString(self, data):  # noqa: N802
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"expected bytes. Received {type(data).__name__}")
        data = bytes(data)
        where = type(self).__name__
        try:
            staged = type(self)()
            staged._merge(data, where)
        except wire.WireError as e:
            raise DecodeError(f"Error parsing message with type 'tensorflow.{where}': {e}") from None
        self._merge(data, where)  # the bytes parse: merging them into self cannot fail
        return len(data)

    def _merge(self, data, where):
        by_number = {spec[0]: (name, spec[1], spec[2]) for name, spec in self._FIELDS.items()}
        for number, wt, raw in wire.fields(data, where):
            spec = by_number.get(number)
            if spec is None:
                continue  # unknown fields are skipped
            name, kind, cls = spec
            here = f"{where}.{name}"
            if kind == "floats" and wt == _FIXED32:
                getattr(self, name).append(struct.unpack("<f", struct.pack("<I", raw))[0])
                continue
            if kind == "int64s" and wt == _VARINT:
                getattr(self, name).append(raw - (1 << 64) if raw >= 1 << 63 else raw)
                continue
            if wt != _LENGTH:
                raise wire.WireError(f"{here}: wire type {wt} where a length-delimited field belongs")
            start, stop = raw
            chunk = data[start:stop]
            if kind == "floats":
                if (stop - start) % 4:
                    raise wire.WireError(f"{here}: a packed float list of {stop - start} bytes (not a multiple of 4)")
                getattr(self, name).extend(np.frombuffer(chunk, "<f4").tolist())
            elif kind == "int64s":
                p, values = 0, []
                while p < len(chunk):
                    v, p = wire.read_varint(chunk, p, len(chunk), here)
                    values.append(v - (1 << 64) if v >= 1 << 63 else v)
                getattr(self, name).extend(values)
            elif kind == "bytes":
                getattr(self, name).append(chunk)
            elif kind == "message":
                getattr(self, name)._merge(chunk, here)
                self._set_present(name)
            elif kind == "messages":
                getattr(self, name).add()._merge(chunk, here)
            else:  # a map entry: 1 key, 2 value
                key, body = "", b""
                for n, ewt, eraw in wire.fields(chunk, here):
                    if n in (1, 2) and ewt != _LENGTH:
                        raise wire.WireError(f"{here}: map entry field {n} has wire type {ewt}")
                    if n == 1:
                        try:
                            key = chunk[eraw[0]:eraw[1]].decode("utf-8")
                        except UnicodeDecodeError:
                            raise wire.WireError(f"{here}: a map key is not UTF-8 text") from None
                    elif n == 2:
                        body = chunk[eraw[0]:eraw[1]]
                getattr(self, name)[key]._merge(body, f"{here}[{key!r}]")

    # -- comparison and text
    def _canonical(self):
        out = []
        for name in sorted(self._FIELDS):
            kind = self._FIELDS[name][1]
            value = self._values.get(name)
            if kind == "message":
                out.append(value._canonical() if name in self._present else None)
            elif kind == "messages":
                out.append(tuple(m._canonical() for m in value or ()))
            elif kind == "map":
                out.append(tuple(sorted((k, m._canonical()) for k, m in (value or {}).items())))
            else:
                out.append(tuple(value or ()))
        return tuple(out)

    def __eq__(self, other):
        if not isinstance(other, _Message):
            return NotImplemented
        return type(self) is type(other) and self._canonical() == other._canonical()

    __hash__ = None

    def _text(self, indent):
        pad, lines = "  " * indent, []
        for name, (_number, kind, _cls) in sorted(self._FIELDS.items(), key=lambda item: item[1][0]):
            value = self._values.get(name)
            if value is None:
                continue
            if kind == "message":
                if name in self._present:
                    lines += [f"{pad}{name} {{", *value._text(indent + 1), f"{pad}}}"]
            elif kind == "messages":
                for m in value:
                    lines += [f"{pad}{name} {{", *m._text(indent + 1), f"{pad}}}"]
            elif kind == "map":
                for key, m in value.items():
                    lines += [f"{pad}{name} {{", f"{pad}  key: {_text_bytes(key.encode('utf-8'))}",
                              f"{pad}  value {{", *m._text(indent + 2), f"{pad}  }}", f"{pad}}}"]
            else:
                fmt = {"int64s": str, "floats": _text_float, "bytes": _text_bytes}[kind]
                lines += [f"{pad}{name}: {fmt(v)}" for v in value]
        return lines

    def __str__(self):
        lines = self._text(0)
        return "\n".join(lines) + "\n" if lines else ""

    __repr__ = __str__


def _put_length(out, number, body):
    out += wire.varint(number << 3 | _LENGTH) + wire.varint(len(body)) + body


def _text_float(v):
    if v != v:
        return "nan"
    if v in (float("inf"), float("-inf")):
        return "inf" if v > 0 else "-inf"
    text = f"{v:.6g}"  # the shortest of 6 and 9 significant digits that reads back as the same float32
    return text if float(np.float32(text)) == v else f"{v:.9g}"


def _text_bytes(b):
    out = []
    for c in b:
        ch = chr(c)
        if ch in "\"'\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif 32 <= c < 127:
            out.append(ch)
        else:
            out.append(f"\\{c:03o}")
    return '"' + "".join(out) + '"'


# ---------------------------------------------------------------- the messages of tensorflow/core/example

class BytesList(_Message):
    """``repeated bytes value = 1``."""

    _FIELDS = {"value": (1, "bytes", None)}


class FloatList(_Message):
    """``repeated float value = 1 [packed = true]`` (values stored as float32)."""

    _FIELDS = {"value": (1, "floats", None)}


class Int64List(_Message):
    """``repeated int64 value = 1 [packed = true]``."""

    _FIELDS = {"value": (1, "int64s", None)}


class Feature(_Message):
    """One of ``bytes_list`` (1), ``float_list`` (2), ``int64_list`` (3): the oneof ``kind``."""

    _FIELDS = {"bytes_list": (1, "message", BytesList), "float_list": (2, "message", FloatList),
               "int64_list": (3, "message", Int64List)}
    _ONEOF = ("bytes_list", "float_list", "int64_list")
    _ONEOF_NAME = "kind"


class Features(_Message):
    """``map<string, Feature> feature = 1``."""

    _FIELDS = {"feature": (1, "map", Feature)}


class FeatureList(_Message):
    """``repeated Feature feature = 1``."""

    _FIELDS = {"feature": (1, "messages", Feature)}


class FeatureLists(_Message):
    """``map<string, FeatureList> feature_list = 1``."""

    _FIELDS = {"feature_list": (1, "map", FeatureList)}


class Example(_Message):
    """``Features features = 1``."""

    _FIELDS = {"features": (1, "message", Features)}


class SequenceExample(_Message):
    """``Features context = 1; FeatureLists feature_lists = 2``."""

    _FIELDS = {"context": (1, "message", Features), "feature_lists": (2, "message", FeatureLists)}
