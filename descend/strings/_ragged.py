"""``RaggedTensor``: rows of different lengths, the minimal form ``strings.split`` and ``strings.ngrams`` return.

One ragged dimension (TF's ``ragged_rank`` 1): a flat ``values`` tensor cut into rows by ``row_splits``
(``row_splits[i]:row_splits[i + 1]`` is row ``i``). It converts to what TF's ``RaggedTensor`` converts to
(``to_list()``, ``to_tensor()``) and has no gradient.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor

__all__ = ["RaggedTensor"]


class RaggedTensor:
    """Rows of different lengths: ``values`` (rank >= 1) split into ``nrows()`` rows by ``row_splits``.

    Example:
        >>> import descend as ds
        >>> r = ds.strings.split(["a b", "c"])
        >>> r.to_list()
        [[b'a', b'b'], [b'c']]
        >>> r.to_tensor().numpy()
        array([[b'a', b'b'],
               [b'c', b'']], dtype=object)
    """

    __slots__ = ("_values", "_row_splits")

    def __init__(self, values, row_splits):
        self._values = convert_to_tensor(values)
        splits = np.asarray(getattr(row_splits, "_value", row_splits))
        if splits.ndim != 1 or splits.size == 0 or splits.dtype.kind not in "iu":
            raise ValueError(f"RaggedTensor: row_splits must be a non-empty 1-D integer vector; received {splits!r}")
        if splits[0] != 0 or np.any(np.diff(splits) < 0) or splits[-1] != self._values.shape[0]:
            raise InvalidArgumentError(
                f"RaggedTensor: row_splits must start at 0, never decrease and end at len(values) = "
                f"{self._values.shape[0]}; received {splits.tolist()}")
        self._row_splits = Tensor(splits.astype(np.int64))

    @classmethod
    def from_row_splits(cls, values, row_splits) -> RaggedTensor:
        return cls(values, row_splits)

    @classmethod
    def from_row_lengths(cls, values, row_lengths) -> RaggedTensor:
        lengths = np.asarray(getattr(row_lengths, "_value", row_lengths), dtype=np.int64)
        return cls(values, np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64))

    @classmethod
    def from_rows(cls, rows, dtype=None) -> RaggedTensor:
        """A RaggedTensor from a list of 1-D rows (Python lists or arrays)."""
        arrays = [convert_to_tensor(r, dtype)._value if len(r) else None for r in rows]
        kinds = [a for a in arrays if a is not None]
        if kinds:
            values = np.concatenate(kinds)
        else:
            values = np.empty((0,), dtype=object if dtype is None else backend.np_dtype(dtype))
        return cls.from_row_lengths(values, [0 if a is None else a.shape[0] for a in arrays])

    values = property(lambda self: self._values)
    flat_values = values
    row_splits = property(lambda self: self._row_splits)
    dtype = property(lambda self: self._values.dtype)
    ragged_rank = 1

    @property
    def shape(self) -> tuple:
        """``(nrows, None, *values.shape[1:])``, as TF's (the ragged dimension is None)."""
        return (self.nrows(), None) + tuple(self._values.shape[1:])

    @property
    def ndim(self) -> int:
        return self._values.ndim + 1

    def nrows(self) -> int:
        return int(self._row_splits._value.shape[0] - 1)

    def row_lengths(self) -> Tensor:
        return Tensor(np.diff(self._row_splits._value))

    def __len__(self):
        return self.nrows()

    def __getitem__(self, i):
        n = self.nrows()
        if not isinstance(i, (int, np.integer)):
            raise TypeError(f"RaggedTensor indices must be integers (a row); received {type(i).__name__}")
        if not -n <= i < n:
            raise InvalidArgumentError(f"RaggedTensor: row {i} is out of range for {n} rows")
        i = int(i) % n
        s = self._row_splits._value
        return Tensor(self._values._value[s[i]:s[i + 1]])

    def __iter__(self):
        for i in range(self.nrows()):
            yield self[i]

    def to_list(self) -> list:
        """The rows as nested Python lists (bytes for strings), as TF's ``to_list()``."""
        return [self[i]._value.tolist() for i in range(self.nrows())]

    def numpy(self) -> np.ndarray:
        """An object array of the rows' arrays, as TF's ``RaggedTensor.numpy()``."""
        out = np.empty(self.nrows(), dtype=object)
        for i in range(self.nrows()):
            out[i] = self[i]._value.copy()
        return out

    def to_tensor(self, default_value=None, shape=None) -> Tensor:
        """A dense Tensor: rows padded with ``default_value`` (``b""`` for strings, 0 otherwise) to the longest
        row, or cut/padded to ``shape`` (``None`` entries keep the natural size)."""
        v = self._values._value
        lengths = np.diff(self._row_splits._value)
        width = int(lengths.max()) if lengths.size else 0
        nrows = self.nrows()
        if shape is not None:
            shape = tuple(shape)
            if len(shape) != self.ndim:
                raise ValueError(f"to_tensor: shape {shape} must have rank {self.ndim}")
            nrows = nrows if shape[0] is None else int(shape[0])
            width = width if shape[1] is None else int(shape[1])
        if default_value is None:
            fill = b"" if v.dtype.kind == "O" else 0
        else:
            fill = convert_to_tensor(default_value, None if v.dtype.kind != "O" else "string")._value
        out = np.empty((nrows, width) + v.shape[1:], dtype=v.dtype)
        out[...] = fill
        s = self._row_splits._value
        for i in range(min(nrows, self.nrows())):
            row = v[s[i]:s[i + 1]][:width]
            out[i, :row.shape[0]] = row
        return Tensor(out)

    def __repr__(self):
        return f"<descend.RaggedTensor {self.to_list()!r}>"

    __str__ = __repr__
