"""``TensorArray``: a list of same-dtype Tensors written by index, as TF's eager ``tf.TensorArray``.

Eagerly a TensorArray is a Python list of Tensors: ``write`` stores the Tensor
it is given and ``read`` returns that very Tensor, ``stack``/``concat``/
``gather`` join them with the ``stack``/``concat`` ops. The tape therefore
differentiates through it with no rule of its own (a slot never written reads
as zeros, with no gradient), and inside ``descend.function`` the trace records
the same ops (indices must then be Python ints or values known while tracing).

It sits in the ops layer because it is built from ops (``stack``, ``concat``,
``unstack``); the framework layer below knows no op.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError, OutOfRangeError
from ..framework.tensor import Tensor, convert_to_tensor
from .array_ops import concat as _concat
from .array_ops import stack as _stack
from .array_ops import unstack as _unstack

__all__ = ["TensorArray"]


def _merge_shapes(known, new, what):
    """``known`` (a tuple with ``None`` for unknown dims, or ``None``) merged with ``new``; ``ValueError`` if they differ."""
    new = tuple(new)
    if known is None:
        return new
    if len(known) != len(new) or any(k is not None and n is not None and k != n for k, n in zip(known, new)):
        raise ValueError(f"Incompatible shape for {what} ({_shape_text(new)}), expected ({_shape_text(known)})")
    return tuple(k if k is not None else n for k, n in zip(known, new))


def _shape_text(shape):
    return ", ".join("None" if d is None else str(d) for d in shape) + ("," if len(shape) == 1 else "")


def _as_index(index, what) -> int:
    """``index`` (a Python int or integer scalar Tensor/array) as an int; ``TypeError`` otherwise."""
    arr = np.asarray(index.numpy() if hasattr(index, "numpy") else index)
    if arr.shape != () or arr.dtype.kind not in "iu":
        raise TypeError(f"TensorArray.{what}: an index must be an integer scalar; received {index!r}")
    return int(arr)


def _as_indices(indices, what) -> list:
    arr = np.asarray(indices.numpy() if hasattr(indices, "numpy") else indices)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise TypeError(f"TensorArray.{what}: indices must be a 1-D list of integers; received {indices!r}")
    return [int(i) for i in arr]


class TensorArray:
    """A list of Tensors of one dtype, written and read by index (TF's eager ``tf.TensorArray``).

    Args:
        dtype: the dtype of every element.
        size: the number of elements (``>= 0``).
        dynamic_size: whether a write past the end grows the array (default ``False``).
        clear_after_read: whether ``read`` forgets the element it returns, so a second read of it
            raises (default ``True``); ``stack``/``gather``/``concat`` never clear.
        tensor_array_name, name: accepted for TF's signature; unused.
        infer_shape: whether every element must have one shape, learned from the first write
            (default ``True``).
        element_shape: the elements' shape, ``None`` for unknown dims; an unwritten element reads
            as zeros of it when it is fully known.

    Example:
        >>> import descend as ds
        >>> ta = ds.TensorArray(ds.float32, size=0, dynamic_size=True)
        >>> for i in range(3):
        ...     ta = ta.write(i, float(i) * 2.0)
        >>> ta.stack().numpy()
        array([0., 2., 4.], dtype=float32)
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        if handle is not None or flow is not None:
            raise ValueError("TensorArray: handle= and flow= are graph-mode arguments descend does not take; "
                             f"received handle={handle!r}, flow={flow!r}")
        self._dtype = backend.as_dtype(dtype)
        if size is None:
            raise ValueError("TensorArray: size must be given (an int >= 0); received size=None")
        n = _as_index(size, "__init__")
        if n < 0:
            raise ValueError(f"TensorArray: size must be >= 0; received size={n}")
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = bool(infer_shape)
        if element_shape is not None:
            dims = element_shape.shape if hasattr(element_shape, "numpy") else element_shape
            if not isinstance(dims, (list, tuple)):
                raise TypeError(f"TensorArray: element_shape must be a list of dims (int or None); received "
                                f"{element_shape!r}")
            element_shape = tuple(None if d is None else int(d) for d in dims)
            if any(d is not None and d < 0 for d in element_shape):
                raise ValueError(f"TensorArray: element_shape dims must be >= 0 or None; received {element_shape}")
        self._element_shape = element_shape
        self._items: list = [None] * n
        self._read_indices: set = set()

    # -- facts -------------------------------------------------------------------------------------------------
    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    @property
    def element_shape(self):
        """The elements' shape as far as known: a tuple (``None`` for an unknown dim), or ``None`` if unknown."""
        return self._element_shape

    def size(self, name=None) -> Tensor:
        """The number of elements, an int32 scalar."""
        return Tensor(np.asarray(len(self._items), np.int32))

    # -- writing -----------------------------------------------------------------------------------------------
    def _converted(self, value, what):
        t = convert_to_tensor(value, dtype_hint=self._dtype)
        if t.dtype != self._dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                                       f"{t.dtype.name} (in TensorArray.{what})")
        return t

    def _check_write_index(self, index):
        if index < 0:
            raise OutOfRangeError(f"Writing to negative indices (index {index}) is not allowed.")
        if index >= len(self._items) and not self._dynamic_size:
            raise OutOfRangeError(f"Tried to write to index {index} but array is not resizeable and size is: "
                                  f"{len(self._items)}")

    def _merged_shape(self, shape):
        return _merge_shapes(self._element_shape, shape, "value") if self._infer_shape else self._element_shape

    def write(self, index, value, name=None) -> TensorArray:
        """Store ``value`` at ``index`` (growing the array if ``dynamic_size``); returns this TensorArray."""
        i = _as_index(index, "write")
        self._check_write_index(i)
        t = self._converted(value, "write")
        shape = self._merged_shape(t.shape)  # every check before any change
        if i >= len(self._items):
            self._items.extend([None] * (i + 1 - len(self._items)))
        self._items[i] = t
        self._element_shape = shape
        return self

    def unstack(self, value, name=None) -> TensorArray:
        """Make the elements of this array the slices of ``value`` along axis 0 (the size becomes their count)."""
        t = self._converted(value, "unstack")
        if t.ndim < 1:
            raise ValueError(f"TensorArray.unstack: value must have rank >= 1; received shape {tuple(t.shape)}")
        n = t.shape[0]
        if n > len(self._items) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {n} tensors into a TensorArray of static size {len(self._items)}")
        shape = self._merged_shape(t.shape[1:])
        self._items = list(_unstack(t)) if n else []
        self._read_indices = set()
        self._element_shape = shape
        return self

    def scatter(self, indices, value, name=None) -> TensorArray:
        """Write row ``k`` of ``value`` at ``indices[k]`` (extra rows or indices are ignored, as TF's)."""
        idx = _as_indices(indices, "scatter")
        t = self._converted(value, "scatter")
        if t.ndim < 1:
            raise ValueError(f"TensorArray.scatter: value must have rank >= 1; received shape {tuple(t.shape)}")
        idx = idx[:t.shape[0]]
        for i in idx:
            self._check_write_index(i)
        shape = self._merged_shape(t.shape[1:])
        rows = _unstack(t)
        if idx and max(idx) >= len(self._items):
            self._items.extend([None] * (max(idx) + 1 - len(self._items)))
        for i, row in zip(idx, rows):
            self._items[i] = row
        self._element_shape = shape
        return self

    # -- reading -----------------------------------------------------------------------------------------------
    def _check_read_index(self, index, what):
        if index < 0:
            raise OutOfRangeError(f"Reading from negative indices (index {index}) is not allowed.")
        if index >= len(self._items):
            raise OutOfRangeError(f"Tried to read from index {index} but array size is: {len(self._items)} "
                                  f"(in TensorArray.{what})")

    def _element(self, index):
        """The element at ``index``, or zeros of the element shape when it was never written (or was cleared)."""
        t = self._items[index]
        if t is not None:
            return t
        shape = self._element_shape
        if shape is None or any(d is None for d in shape):
            raise ValueError(f"Could not read from TensorArray index {index}: it was never written and the element "
                             f"shape is not fully known ({shape}); give element_shape= to read zeros")
        return Tensor(np.zeros(shape, backend.np_dtype(self._dtype)))

    def read(self, index, name=None) -> Tensor:
        """The element at ``index`` (zeros if never written); with ``clear_after_read`` it is then forgotten."""
        i = _as_index(index, "read")
        self._check_read_index(i, "read")
        if self._items[i] is None and i in self._read_indices:
            raise InvalidArgumentError(f"Could not read index {i} twice because it was cleared after a previous "
                                       f"read (perhaps try setting clear_after_read = false?)")
        t = self._element(i)
        if self._clear_after_read:
            self._items[i] = None
            self._read_indices.add(i)
        return t

    def stack(self, name=None) -> Tensor:
        """All elements joined along a new axis 0 (zeros for unwritten ones)."""
        return self._joined(range(len(self._items)), "stack")

    def gather(self, indices, name=None) -> Tensor:
        """The elements at ``indices``, joined along a new axis 0."""
        idx = _as_indices(indices, "gather")
        for i in idx:
            self._check_read_index(i, "gather")
        return self._joined(idx, "gather")

    def _joined(self, idx, what):
        idx = list(idx)
        if not idx:  # shape (0,) + the element shape (unknown dims as 0), or (0,) when it is unknown
            rest = () if self._element_shape is None else tuple(d or 0 for d in self._element_shape)
            return Tensor(np.zeros((0,) + rest, backend.np_dtype(self._dtype)))
        parts = [self._element(i) for i in idx]
        shapes = {tuple(p.shape) for p in parts}
        if len(shapes) > 1:
            raise InvalidArgumentError(f"TensorArray.{what}: the elements must have one shape; received shapes "
                                       f"{sorted(shapes)}")
        return _stack(parts)

    def concat(self, name=None) -> Tensor:
        """All elements joined along their axis 0 (their other dims must agree)."""
        parts = [self._element(i) for i in range(len(self._items))]
        if not parts:
            shape = self._element_shape
            rest = () if shape is None or len(shape) < 1 else tuple(0 if d is None else d for d in shape[1:])
            return Tensor(np.zeros((0,) + rest, backend.np_dtype(self._dtype)))
        if any(p.ndim < 1 for p in parts):
            raise ValueError("TensorArray.concat: the elements must have rank >= 1; received shapes "
                             f"{[tuple(p.shape) for p in parts]}")
        return _concat(parts, axis=0)

    def split(self, value, lengths, name=None) -> TensorArray:
        """Make the elements the consecutive pieces of ``value`` along axis 0 of the given ``lengths``."""
        t = self._converted(value, "split")
        lens = _as_indices(lengths, "split")
        if t.ndim < 1 or any(n < 0 for n in lens) or sum(lens) != t.shape[0]:
            raise ValueError(f"TensorArray.split: lengths must be >= 0 and sum to value.shape[0]; received lengths "
                             f"{lens} for shape {tuple(t.shape)}")
        if len(lens) > len(self._items) and not self._dynamic_size:
            raise ValueError(f"Cannot split into {len(lens)} tensors in a TensorArray of static size "
                             f"{len(self._items)}")
        starts = np.cumsum([0] + lens)
        pieces = [t[int(a):int(b)] for a, b in zip(starts[:-1], starts[1:])]
        self._items = pieces
        self._read_indices = set()
        if self._element_shape is None:  # the pieces' lengths may differ: only their other dims are known
            self._element_shape = (None,) + tuple(t.shape[1:])
        return self

    def identity(self) -> TensorArray:
        return self

    def close(self, name=None) -> None:
        """Forget every element (the array is empty afterwards)."""
        self._items = []
        self._read_indices = set()

    def mark_used(self) -> None:
        """TF's graph-mode bookkeeping; nothing to do eagerly."""

    def __repr__(self):
        return (f"<descend.TensorArray: size={len(self._items)}, dtype={self._dtype.name}, "
                f"element_shape={self._element_shape}, dynamic_size={self._dynamic_size}>")
