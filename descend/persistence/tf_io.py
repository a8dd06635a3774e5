"""``tf.io``: parsing ``tf.train.Example`` records into tensors, TFRecord files, whole-file reads and writes,
web-safe base64, raw bytes to numbers, and the image file codecs (the ``descend.image`` functions, as TF's
``tf.io.decode_png`` is ``tf.image.decode_png``).

Example:
    >>> import descend as ds
    >>> ex = ds.train.Example(features=ds.train.Features(feature={
    ...     "x": ds.train.Feature(float_list=ds.train.FloatList(value=[1.5, 2.0]))}))
    >>> out = ds.io.parse_single_example(ex.SerializeToString(), {"x": ds.io.FixedLenFeature([2], ds.float32)})
    >>> out["x"].numpy()
    array([1.5, 2. ], dtype=float32)
"""

from __future__ import annotations

import base64
import collections
import glob
import gzip
import os
import struct
import zlib

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from .formats import crc32c
from ..framework.tensor import Tensor, convert_to_tensor
from ..image.codecs import decode_bmp, decode_gif, decode_image, decode_png, encode_png, extract_jpeg_shape, is_jpeg
from ..sparse import SparseTensor
from .formats.tf_example import DecodeError, Example

__all__ = ["FixedLenFeature", "TFRecordOptions", "TFRecordWriter", "VarLenFeature", "decode_base64", "decode_bmp",
           "decode_gif", "decode_image", "decode_png", "decode_raw", "encode_base64", "encode_png",
           "extract_jpeg_shape", "is_jpeg", "matching_files", "parse_example", "parse_single_example", "read_file",
           "write_file"]


class FixedLenFeature(collections.namedtuple("FixedLenFeature", ["shape", "dtype", "default_value"])):
    """A feature of fixed ``shape`` parsed into a dense tensor of ``dtype`` (float32, int64 or string);
    ``default_value`` fills it when the example lacks the feature (otherwise that is an error)."""

    __slots__ = ()

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """A feature of any length parsed into a :class:`~descend.SparseTensor` of ``dtype``."""

    __slots__ = ()


_KIND = {"float32": "float_list", "int64": "int64_list", "string": "bytes_list"}


def _dtype_name(dtype) -> str:
    if dtype == backend.string or dtype == "string":
        return "string"
    return backend.np_dtype(dtype).name


def _feature_values(example: Example, key: str, dtype: str, where: str):
    """The values of feature ``key`` (None when absent), checked against ``dtype``."""
    if key not in example.features.feature:
        return None
    feature = example.features.feature[key]
    kind = feature.WhichOneof("kind")
    if kind is None:
        return []
    if kind != _KIND[dtype]:
        raise InvalidArgumentError(f"{where}: Key: {key}. Data types don't match. Data type: {kind}, expected type: "
                                   f"{dtype}")
    return list(getattr(feature, kind).value)


def _parse_one(serialized, features: dict, where: str) -> dict:
    if not isinstance(features, dict) or not features:
        raise ValueError(f"{where}: `features` must be a non-empty dict of FixedLenFeature/VarLenFeature")
    try:
        example = Example.FromString(serialized)
    except DecodeError as e:
        raise InvalidArgumentError(f"{where}: could not parse a serialized Example: {e}") from None
    out = {}
    for key, spec in features.items():
        if not isinstance(spec, (FixedLenFeature, VarLenFeature)):
            raise TypeError(f"{where}: feature {key!r} must be a FixedLenFeature or VarLenFeature. Received "
                            f"{type(spec).__name__}")
        dtype = _dtype_name(spec.dtype)
        if dtype not in _KIND:
            raise ValueError(f"{where}: feature {key!r} has dtype {dtype}; float32, int64 and string are parsed")
        values = _feature_values(example, key, dtype, where)
        np_dtype = object if dtype == "string" else dtype
        if isinstance(spec, VarLenFeature):
            out[key] = np.array(values or [], dtype=np_dtype)
            continue
        shape = [int(d) for d in spec.shape]
        size = int(np.prod(shape, dtype=np.int64))
        if values is None:
            if spec.default_value is None:
                raise InvalidArgumentError(f"{where}: Feature: {key} (data type: {dtype}) is required but could not "
                                           "be found.")
            out[key] = np.broadcast_to(np.asarray(spec.default_value, dtype=np_dtype), shape).copy()
            continue
        if len(values) != size:
            raise InvalidArgumentError(f"{where}: Key: {key}. Can't parse serialized Example: {len(values)} values "
                                       f"where the shape {shape} holds {size}")
        out[key] = np.array(values, dtype=np_dtype).reshape(shape)
    return out


def _strings(serialized, where: str) -> np.ndarray:
    t = convert_to_tensor(serialized)
    if t.dtype != backend.string:
        raise TypeError(f"{where}: `serialized` must be string tensor(s). Received dtype {t.dtype.name}")
    value = t.numpy()
    return np.array(value, dtype=object)


def parse_single_example(serialized, features, example_names=None, name=None) -> dict:
    """One serialized ``Example`` (a scalar string) parsed into ``{key: Tensor or SparseTensor}``, as TF."""
    s = _strings(serialized, "parse_single_example")
    if s.ndim != 0:
        raise ValueError(f"parse_single_example: `serialized` must be a scalar. Received shape {list(s.shape)}")
    parsed = _parse_one(s.item(), features, "parse_single_example")
    return {k: (SparseTensor(np.arange(len(v), dtype=np.int64).reshape(-1, 1), Tensor(v), [len(v)])
                if isinstance(features[k], VarLenFeature) else Tensor(v)) for k, v in parsed.items()}


def parse_example(serialized, features, example_names=None, name=None) -> dict:
    """A vector of serialized ``Example`` s parsed into batched tensors: ``[batch, *shape]`` for a fixed-length
    feature, a SparseTensor ``[batch, longest]`` for a variable-length one, as TF."""
    s = _strings(serialized, "parse_example")
    if s.ndim != 1:
        raise ValueError(f"parse_example: `serialized` must be a vector. Received shape {list(s.shape)}")
    rows = [_parse_one(item, features, "parse_example") for item in s]
    out = {}
    for key, spec in features.items():
        if isinstance(spec, VarLenFeature):
            idx = [[b, j] for b, row in enumerate(rows) for j in range(len(row[key]))]
            values = [v for row in rows for v in row[key]]
            dtype = object if _dtype_name(spec.dtype) == "string" else _dtype_name(spec.dtype)
            longest = max((len(row[key]) for row in rows), default=0)
            out[key] = SparseTensor(np.array(idx, np.int64).reshape(-1, 2), Tensor(np.array(values, dtype=dtype)),
                                    [len(rows), longest])
        else:
            shape = [len(rows)] + [int(d) for d in spec.shape]
            dtype = object if _dtype_name(spec.dtype) == "string" else _dtype_name(spec.dtype)
            out[key] = Tensor(np.array([row[key] for row in rows], dtype=dtype).reshape(shape))
    return out


# ------------------------------------------------------------------------------------------------ files

def read_file(filename, name=None) -> Tensor:
    """The bytes of the file ``filename``, as a scalar string tensor."""
    path = _path(filename, "read_file")
    with open(path, "rb") as f:
        return Tensor(np.array(f.read(), dtype=object))


def write_file(filename, contents, name=None) -> None:
    """Write ``contents`` (a scalar string) to ``filename``, creating its folder."""
    path = _path(filename, "write_file")
    t = convert_to_tensor(contents)
    if t.dtype != backend.string or np.ndim(t.numpy()) != 0:
        raise TypeError("write_file: `contents` must be a scalar string tensor")
    value = t.numpy()
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "wb") as f:
        f.write(value if isinstance(value, bytes) else value.item())


def _path(filename, where) -> str:
    if isinstance(filename, (str, bytes, os.PathLike)):
        return os.fsdecode(filename)
    value = convert_to_tensor(filename).numpy()
    if isinstance(value, bytes):
        return value.decode("utf-8")
    raise TypeError(f"{where}: `filename` must be a path or a scalar string. Received {filename!r}")


def matching_files(pattern, name=None) -> Tensor:
    """The sorted names of the files matching the glob ``pattern`` (a string vector)."""
    names = sorted(glob.glob(_path(pattern, "matching_files")))
    return Tensor(np.array([n.encode("utf-8") for n in names], dtype=object))


class TFRecordOptions:
    """Options of a TFRecord file: ``compression_type`` ``""`` (none), ``"ZLIB"`` or ``"GZIP"``, and the
    ``compression_level`` (zlib's, -1 for its default)."""

    def __init__(self, compression_type=None, compression_level=None, **_):
        kind = "" if compression_type is None else str(compression_type).upper()
        if kind not in ("", "ZLIB", "GZIP"):
            raise ValueError(f"TFRecordOptions: compression_type must be '', 'ZLIB' or 'GZIP'. Received "
                             f"{compression_type!r}")
        self.compression_type = kind
        self.compression_level = -1 if compression_level is None else int(compression_level)

    @classmethod
    def get_compression_type_string(cls, options) -> str:
        if options is None:
            return ""
        return options.compression_type if isinstance(options, TFRecordOptions) else cls(options).compression_type


class TFRecordWriter:
    """Writes records to a TFRecord file (``tf.io.TFRecordWriter``): each record is its length (8 bytes,
    little-endian), the masked CRC-32C of the length, the bytes, and their masked CRC-32C; ``options`` may
    compress the file (``"GZIP"``, ``"ZLIB"`` or a :class:`TFRecordOptions`).

    Example:
        >>> import os, tempfile, descend as ds
        >>> path = os.path.join(tempfile.mkdtemp(), "r.tfrecord")
        >>> with ds.io.TFRecordWriter(path) as w:
        ...     w.write(b"hello")
        >>> os.path.getsize(path)
        21
    """

    def __init__(self, path, options=None):
        opts = options if isinstance(options, TFRecordOptions) else TFRecordOptions(options)
        self._path = _path(path, "TFRecordWriter")
        self._file = open(self._path, "wb")
        if opts.compression_type == "GZIP":
            self._stream = gzip.GzipFile(fileobj=self._file, mode="wb",
                                         compresslevel=9 if opts.compression_level < 0 else opts.compression_level)
            self._deflate = None
        else:
            self._stream = self._file
            self._deflate = zlib.compressobj(opts.compression_level) if opts.compression_type == "ZLIB" else None

    def write(self, record) -> None:
        """Append one record (bytes or a scalar string tensor)."""
        if self._file is None:
            raise ValueError("TFRecordWriter: the writer is closed")
        if not isinstance(record, (bytes, bytearray)):
            value = convert_to_tensor(record).numpy()
            if not isinstance(value, bytes):
                raise TypeError(f"TFRecordWriter.write: expected bytes. Received {type(record).__name__}")
            record = value
        head = struct.pack("<Q", len(record))
        data = head + struct.pack("<I", crc32c.mask(crc32c.crc32c(head))) + bytes(record) + \
            struct.pack("<I", crc32c.mask(crc32c.crc32c(bytes(record))))
        self._stream.write(self._deflate.compress(data) if self._deflate is not None else data)

    def flush(self) -> None:
        if self._deflate is not None:
            self._stream.write(self._deflate.flush(zlib.Z_SYNC_FLUSH))
        self._stream.flush()

    def close(self) -> None:
        if self._file is None:
            return
        if self._deflate is not None:
            self._stream.write(self._deflate.flush())
        if self._stream is not self._file:
            self._stream.close()
        self._file.close()
        self._file = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ------------------------------------------------------------------------------------------------ bytes

def encode_base64(input, pad=False, name=None) -> Tensor:  # noqa: A002 - TF's name
    """Web-safe base64 (``-`` and ``_``) of each string; ``pad`` keeps the trailing ``=``."""
    a = _strings(input, "encode_base64")
    out = np.empty(a.shape, object)
    for i, s in np.ndenumerate(a):
        code = base64.urlsafe_b64encode(s)
        out[i] = code if pad else code.rstrip(b"=")
    return Tensor(out)


def decode_base64(input, name=None) -> Tensor:  # noqa: A002
    """The bytes of each web-safe base64 string (padded or not)."""
    a = _strings(input, "decode_base64")
    out = np.empty(a.shape, object)
    for i, s in np.ndenumerate(a):
        try:
            out[i] = base64.urlsafe_b64decode(s + b"=" * (-len(s) % 4))
        except (ValueError, TypeError):
            raise InvalidArgumentError(f"decode_base64: {s[:40]!r} is not web-safe base64") from None
    return Tensor(out)


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None) -> Tensor:
    """Each string's bytes read as numbers of ``out_type``: ``[..., n]`` (all strings the same length, or
    cut/zero-padded to ``fixed_length`` bytes)."""
    a = _strings(input_bytes, "decode_raw")
    dtype = backend.np_dtype(out_type).newbyteorder("<" if little_endian else ">")
    size = dtype.itemsize
    lengths = {len(s) for s in a.reshape(-1)}
    width = int(fixed_length) if fixed_length is not None else (lengths.pop() if len(lengths) == 1 else None)
    if width is None and a.size:
        raise InvalidArgumentError(f"decode_raw: the strings have different lengths {sorted(lengths)}; give "
                                   "fixed_length")
    width = width or 0
    if width % size:
        raise InvalidArgumentError(f"decode_raw: {width} bytes are not a whole number of {size}-byte values")
    rows = [np.frombuffer(bytes(s[:width]).ljust(width, b"\0"), dtype) for s in a.reshape(-1)]
    out = np.array(rows, dtype=dtype.newbyteorder("=")).reshape(a.shape + (width // size,))
    return Tensor(out)
