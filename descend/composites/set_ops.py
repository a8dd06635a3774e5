"""``tf.sets``: set operations over the last dimension of integer or string tensors (dense or
:class:`~descend.SparseTensor`), results as SparseTensors whose rows are sorted, as TF.

Example:
    >>> import descend as ds
    >>> r = ds.sets.intersection([[1, 2, 3], [4, 5, 6]], [[3, 1, 9], [7, 6, 4]])
    >>> ds.sparse.to_dense(r).numpy()
    array([[1, 3],
           [4, 6]], dtype=int32)
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..sparse import SparseTensor

__all__ = ["difference", "intersection", "size", "union"]

_KINDS = "iub"


def _rows(x, op: str, arg: str):
    """``(leading shape, {row coordinate tuple: list of values})`` of ``x``'s last dimension."""
    if isinstance(x, SparseTensor):
        idx = np.asarray(x.indices.numpy())
        shape = np.asarray(x.dense_shape.numpy())
        values = np.asarray(x.values.numpy())
        if len(shape) < 2:
            raise ValueError(f"sets.{op}: `{arg}` must have rank >= 2. Received dense_shape {shape.tolist()}")
        rows: dict = {}
        for coord, v in zip(map(tuple, idx[:, :-1].tolist()), values):
            rows.setdefault(coord, []).append(v)
        return tuple(int(d) for d in shape[:-1]), rows, values.dtype
    a = np.asarray(convert_to_tensor(x).numpy())
    if a.ndim < 2:
        raise ValueError(f"sets.{op}: `{arg}` must have rank >= 2. Received shape {list(a.shape)}")
    flat = a.reshape(-1, a.shape[-1])
    coords = list(np.ndindex(*a.shape[:-1]))
    return a.shape[:-1], {c: list(flat[i]) for i, c in enumerate(coords)}, a.dtype


def _check_dtype(dtype, op):
    if dtype.kind not in _KINDS and dtype != object:
        raise TypeError(f"sets.{op}: expected integer or string tensors. Received dtype {dtype.name}")
    if dtype.kind == "b":
        raise TypeError(f"sets.{op}: expected integer or string tensors. Received dtype bool")


def _set_op(a, b, op: str, combine):
    lead_a, rows_a, dtype_a = _rows(a, op, "a")
    lead_b, rows_b, dtype_b = _rows(b, op, "b")
    _check_dtype(dtype_a, op)
    if dtype_a != dtype_b:
        raise TypeError(f"sets.{op}: `a` and `b` must have the same dtype. Received {dtype_a.name} and "
                        f"{dtype_b.name}")
    if tuple(lead_a) != tuple(lead_b):
        raise ValueError(f"sets.{op}: `a` and `b` must agree in all but the last dimension. Received "
                         f"{list(lead_a)} and {list(lead_b)}")
    indices, values, widest = [], [], 0
    for coord in np.ndindex(*lead_a):
        out = sorted(combine(set(rows_a.get(coord, [])), set(rows_b.get(coord, []))))
        widest = max(widest, len(out))
        for j, v in enumerate(out):
            indices.append(list(coord) + [j])
            values.append(v)
    rank = len(lead_a) + 1
    idx = np.array(indices, np.int64).reshape(-1, rank)
    vals = np.array(values, dtype=dtype_a) if values else np.zeros(0, dtype_a)
    return SparseTensor(idx, Tensor(vals), np.array(list(lead_a) + [widest], np.int64))


def intersection(a, b, validate_indices=True):
    """The values present in both rows, sorted."""
    return _set_op(a, b, "intersection", lambda x, y: x & y)


def union(a, b, validate_indices=True):
    """The values present in either row, sorted."""
    return _set_op(a, b, "union", lambda x, y: x | y)


def difference(a, b, aminusb=True, validate_indices=True):
    """The values of ``a``'s row not in ``b``'s (``b - a`` when ``aminusb`` is False), sorted."""
    return _set_op(a, b, "difference", (lambda x, y: x - y) if aminusb else (lambda x, y: y - x))


def size(a, validate_indices=True):
    """int32 ``[...]``: the number of distinct values in each row of the SparseTensor ``a``."""
    if not isinstance(a, SparseTensor):
        raise TypeError(f"sets.size: `a` must be a SparseTensor. Received {type(a).__name__}")
    lead, rows, dtype = _rows(a, "size", "a")
    _check_dtype(dtype, "size")
    out = np.zeros(lead, np.int32)
    for coord, vals in rows.items():
        out[coord] = len(set(vals))
    return Tensor(out)
