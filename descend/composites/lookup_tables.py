"""``tf.lookup``: immutable hash tables from keys to values, filled from tensors or text files.

``StaticVocabularyTable`` sends a key outside the vocabulary to ``vocab_size + bucket``, the bucket being
TF's ``Fingerprint64`` of the key (of its decimal text for an integer key) modulo ``num_oov_buckets``, so
the ids equal TF's.

Example:
    >>> import descend as ds
    >>> init = ds.lookup.KeyValueTensorInitializer(["a", "b"], [3, 4])
    >>> ds.lookup.StaticHashTable(init, default_value=-1).lookup(ds.constant(["b", "z"])).numpy()
    array([ 4, -1], dtype=int32)
"""

from __future__ import annotations

import os

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from ..strings._fingerprint import fingerprint64

__all__ = ["KeyValueTensorInitializer", "StaticHashTable", "StaticVocabularyTable", "TextFileIndex",
           "TextFileInitializer"]


def _dtype(dtype):
    return backend.string if dtype in (backend.string, "string") else backend.as_dtype(dtype)


def _values(x, dtype, what):
    t = convert_to_tensor(x) if dtype is None else convert_to_tensor(x, dtype=_dtype(dtype))
    a = np.asarray(t.numpy(), dtype=object if t.dtype == backend.string else None)
    if a.ndim != 1:
        raise ValueError(f"{what} must be a vector. Received shape {list(a.shape)}")
    return a, t.dtype


class KeyValueTensorInitializer:
    """The table's contents from two vectors of the same length: ``keys`` and ``values``."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        self._keys, self.key_dtype = _values(keys, key_dtype, "KeyValueTensorInitializer: keys")
        self._vals, self.value_dtype = _values(values, value_dtype, "KeyValueTensorInitializer: values")
        if len(self._keys) != len(self._vals):
            raise ValueError(f"KeyValueTensorInitializer: {len(self._keys)} keys and {len(self._vals)} values")

    def initialize(self, table=None):
        """The ``(keys, values)`` arrays the table is filled with."""
        return self._keys, self._vals


class TextFileIndex:
    """Which part of a line a :class:`TextFileInitializer` takes: a column (0, 1, ...), the whole line or
    the line number."""

    WHOLE_LINE = -2
    LINE_NUMBER = -1


class TextFileInitializer:
    """The table's contents from a text file: each line split by ``delimiter``, the key from column
    ``key_index`` and the value from ``value_index`` (or the whole line, or the line number), at most
    ``vocab_size`` lines."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index, vocab_size=None, delimiter="\t",
                 name=None, value_index_offset=0):
        self._filename = os.fsdecode(filename)
        self.key_dtype, self.value_dtype = _dtype(key_dtype), _dtype(value_dtype)
        self._key_index, self._value_index = int(key_index), int(value_index)
        for what, index, dtype in (("key", self._key_index, self.key_dtype),
                                   ("value", self._value_index, self.value_dtype)):
            if index < -2:
                raise ValueError(f"TextFileInitializer: {what}_index must be >= -2. Received {index}")
            if index == TextFileIndex.LINE_NUMBER and not dtype.is_integer:
                raise ValueError(f"TextFileInitializer: a {what} from the line number must be an integer dtype. "
                                 f"Received {dtype.name}")
        self._vocab_size = None if vocab_size is None else int(vocab_size)
        self._delimiter, self._offset = delimiter, int(value_index_offset)

    def _column(self, line: str, number: int, index: int, dtype):
        if index == TextFileIndex.LINE_NUMBER:
            return number + (self._offset if index is self._value_index else 0)
        text = line if index == TextFileIndex.WHOLE_LINE else None
        if text is None:
            parts = line.split(self._delimiter)
            if index >= len(parts):
                raise ValueError(f"TextFileInitializer: line {number} of {self._filename} has {len(parts)} "
                                 f"columns; column {index} was asked")
            text = parts[index]
        if dtype == backend.string:
            return text.encode("utf-8")
        try:
            return int(text) if dtype.is_integer else float(text)
        except ValueError:
            raise ValueError(f"TextFileInitializer: line {number} of {self._filename}: {text!r} is not a "
                             f"{dtype.name}") from None

    def initialize(self, table=None):
        keys, vals = [], []
        with open(self._filename, encoding="utf-8") as f:
            for number, line in enumerate(f):
                if self._vocab_size is not None and number >= self._vocab_size:
                    break
                line = line.rstrip("\n").rstrip("\r")
                keys.append(self._column(line, number, self._key_index, self.key_dtype))
                vals.append(self._column(line, number, self._value_index, self.value_dtype))
        if self._vocab_size is not None and len(keys) < self._vocab_size:
            raise ValueError(f"TextFileInitializer: {self._filename} has {len(keys)} lines; vocab_size="
                             f"{self._vocab_size}")
        as_array = lambda xs, d: np.array(xs, dtype=object if d == backend.string else d.name)  # noqa: E731
        return as_array(keys, self.key_dtype), as_array(vals, self.value_dtype)


def _build(initializer):
    if not isinstance(initializer, (KeyValueTensorInitializer, TextFileInitializer)):
        raise TypeError(f"expected a KeyValueTensorInitializer or TextFileInitializer. Received "
                        f"{type(initializer).__name__}")
    keys, vals = initializer.initialize()
    table: dict = {}
    for k, v in zip(keys.tolist(), vals.tolist()):
        if k in table and table[k] != v:
            raise InvalidArgumentError(f"the table's initializer gives the key {k!r} two values ({table[k]!r} and {v!r})")
        table[k] = v
    return table, keys, vals


def _check_keys(keys, key_dtype, where):
    t = convert_to_tensor(keys)
    if t.dtype != key_dtype and not (key_dtype.is_integer and t.dtype.is_integer):
        raise TypeError(f"{where}: Dtype of argument `keys` must be {key_dtype.name}, received: {t.dtype.name}")
    return np.asarray(t.numpy(), dtype=object if t.dtype == backend.string else None)


class StaticHashTable:
    """An immutable table: :meth:`lookup` gives each key's value, ``default_value`` for a missing one."""

    def __init__(self, initializer, default_value, name=None, experimental_is_anonymous=False):
        self._table, self._keys, self._vals = _build(initializer)
        self.key_dtype, self.value_dtype = initializer.key_dtype, initializer.value_dtype
        self.name = name
        d = np.asarray(convert_to_tensor(default_value, dtype=self.value_dtype).numpy(),
                       dtype=object if self.value_dtype == backend.string else None)
        if d.ndim != 0:
            raise ValueError(f"StaticHashTable: default_value must be a scalar. Received shape {list(d.shape)}")
        self._default = d.item()

    @property
    def default_value(self) -> Tensor:
        return convert_to_tensor(self._default, dtype=self.value_dtype)

    def lookup(self, keys, name=None) -> Tensor:
        """The value of each key (same shape as ``keys``)."""
        k = _check_keys(keys, self.key_dtype, "StaticHashTable.lookup")
        flat = [self._table.get(x, self._default) for x in k.reshape(-1).tolist()]
        dtype = object if self.value_dtype == backend.string else self.value_dtype.name
        return Tensor(np.array(flat, dtype=dtype).reshape(k.shape))

    __getitem__ = lookup

    def size(self, name=None) -> Tensor:
        return Tensor(np.array(len(self._table), np.int64))

    def export(self, name=None):
        """``(keys, values)`` of the table."""
        keys = list(self._table)
        kd = object if self.key_dtype == backend.string else self.key_dtype.name
        vd = object if self.value_dtype == backend.string else self.value_dtype.name
        return Tensor(np.array(keys, dtype=kd)), Tensor(np.array([self._table[k] for k in keys], dtype=vd))


class StaticVocabularyTable:
    """A vocabulary (string or integer keys to int64 ids ``0..n-1``) with ``num_oov_buckets`` buckets for the
    other keys: ``n + Fingerprint64(key) % num_oov_buckets``, as TF."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None,
                 experimental_is_anonymous=False):
        n = int(num_oov_buckets)
        if n <= 0:
            raise ValueError(f"StaticVocabularyTable: num_oov_buckets must be > 0. Received {num_oov_buckets}")
        self._table, _, _ = _build(initializer)
        if not initializer.value_dtype.is_integer:
            raise TypeError(f"StaticVocabularyTable: the values must be integer ids. Received "
                            f"{initializer.value_dtype.name}")
        self._buckets = n
        self.key_dtype = initializer.key_dtype if lookup_key_dtype is None else _dtype(lookup_key_dtype)
        self.value_dtype = backend.int64
        self.name = name

    def _bucket(self, key) -> int:
        text = key if isinstance(key, bytes) else str(int(key)).encode("ascii")
        return fingerprint64(text) % self._buckets

    def lookup(self, keys, name=None) -> Tensor:
        """The id of each key (int64, same shape as ``keys``)."""
        k = _check_keys(keys, self.key_dtype, "StaticVocabularyTable.lookup")
        size = len(self._table)
        flat = [self._table[x] if x in self._table else size + self._bucket(x) for x in k.reshape(-1).tolist()]
        return Tensor(np.array(flat, np.int64).reshape(k.shape))

    __getitem__ = lookup

    def size(self, name=None) -> Tensor:
        """The vocabulary's size plus the buckets."""
        return Tensor(np.array(len(self._table) + self._buckets, np.int64))
