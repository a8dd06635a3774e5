"""``tf.ragged`` over descend's :class:`~descend.RaggedTensor` (one ragged dimension, ``ragged_rank`` 1):
``constant``, ``range``, ``boolean_mask``, ``map_flat_values``, ``row_splits_to_segment_ids``,
``segment_ids_to_row_splits``. A nesting deeper than one ragged dimension is refused by name (descend's
ragged tensors have one).

Example:
    >>> import descend as ds
    >>> ds.ragged.range([0, 2], [3, 7], [1, 2]).to_list()
    [[0, 1, 2], [2, 4, 6]]
    >>> ds.ragged.constant([[1, 2], [3]]).row_splits.numpy()
    array([0, 2, 3])
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from ..strings import RaggedTensor

__all__ = ["boolean_mask", "constant", "map_flat_values", "range", "row_splits_to_segment_ids",
           "segment_ids_to_row_splits"]


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype="int64"):
    """A RaggedTensor from a list of rows (each a list of scalars, or of equal-length lists: ``inner_shape``)."""
    if ragged_rank not in (None, 1):
        raise ValueError(f"ragged.constant: descend's RaggedTensor has ragged_rank 1. Received ragged_rank="
                         f"{ragged_rank}")
    if not isinstance(pylist, (list, tuple)) or not all(isinstance(r, (list, tuple, np.ndarray)) for r in pylist):
        raise ValueError("ragged.constant: pylist must be a list of rows (lists)")
    try:
        rows = [np.asarray(convert_to_tensor(list(r), dtype).numpy()) if len(r) else None for r in pylist]
    except ValueError:
        raise ValueError("ragged.constant: a row holds lists of different lengths: more than one ragged dimension, "
                         "which descend's RaggedTensor does not have") from None
    present = [r for r in rows if r is not None]
    inner = {r.shape[1:] for r in present}
    if len(inner) > 1:
        raise ValueError(f"ragged.constant: the rows' inner shapes differ ({sorted(inner)}): more than one ragged "
                         "dimension, which descend's RaggedTensor does not have")
    tail = inner.pop() if inner else (tuple(inner_shape) if inner_shape is not None else ())
    if present:
        values = np.concatenate(present)
    else:
        values = np.zeros((0,) + tail, dtype=backend.np_dtype(dtype) if dtype is not None else np.float32)
    lengths = [0 if r is None else r.shape[0] for r in rows]
    return RaggedTensor.from_row_lengths(values, lengths)


def range(starts, limits=None, deltas=1, dtype=None, name=None, row_splits_dtype="int64"):  # noqa: A001
    """Row ``i`` is ``arange(starts[i], limits[i], deltas[i])`` (scalars broadcast; one argument: limits)."""
    if limits is None:
        starts, limits = 0, starts
    s, l, d = (np.asarray(convert_to_tensor(v, dtype).numpy()) for v in (starts, limits, deltas))
    s, l, d = np.broadcast_arrays(s, l, d)
    if s.ndim > 1:
        raise ValueError("ragged.range: starts, limits and deltas must be scalars or vectors")
    s, l, d = (np.atleast_1d(v) for v in (s, l, d))
    if np.any(d == 0):
        raise InvalidArgumentError("ragged.range: deltas must be nonzero")
    out_dtype = np.result_type(s.dtype, l.dtype, d.dtype)
    rows = [np.arange(a, b, c, dtype=out_dtype) for a, b, c in zip(s.tolist(), l.tolist(), d.tolist())]
    values = np.concatenate(rows) if rows else np.zeros(0, out_dtype)
    return RaggedTensor.from_row_lengths(values.astype(out_dtype), [len(r) for r in rows])


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value: ``[0, 0, 2, 2, 2]`` from splits ``[0, 2, 2, 5]``."""
    s = np.asarray(convert_to_tensor(splits).numpy())
    if s.ndim != 1 or s.size == 0 or s[0] != 0 or np.any(np.diff(s) < 0):
        raise InvalidArgumentError(f"ragged.row_splits_to_segment_ids: splits must start at 0 and never decrease. "
                                   f"Received {s.tolist()}")
    ids = np.repeat(np.arange(s.size - 1), np.diff(s))
    return Tensor(ids.astype(backend.np_dtype(out_type) if out_type is not None else s.dtype))


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """The row splits of sorted ``segment_ids`` (``num_segments`` rows, default the largest id + 1)."""
    ids = np.asarray(convert_to_tensor(segment_ids).numpy())
    if ids.ndim != 1 or (ids.size and (ids.min() < 0 or np.any(np.diff(ids) < 0))):
        raise InvalidArgumentError(f"ragged.segment_ids_to_row_splits: segment_ids must be a sorted vector of "
                                   f"non-negative ids. Received {ids.tolist()}")
    n = int(num_segments) if num_segments is not None else (int(ids.max()) + 1 if ids.size else 0)
    counts = np.bincount(ids, minlength=n)[:n] if ids.size else np.zeros(n, np.int64)
    splits = np.concatenate([[0], np.cumsum(counts)])
    return Tensor(splits.astype(backend.np_dtype(out_type) if out_type is not None else np.int64))


def map_flat_values(op, *args, **kwargs):
    """``op`` applied to the flat values of the RaggedTensor arguments (all with the same row splits), in a
    RaggedTensor with those splits."""
    ragged = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
    if not ragged:
        raise ValueError("ragged.map_flat_values: no RaggedTensor among the arguments")
    splits = np.asarray(ragged[0].row_splits.numpy())
    for r in ragged[1:]:
        if not np.array_equal(np.asarray(r.row_splits.numpy()), splits):
            raise ValueError("ragged.map_flat_values: the RaggedTensor arguments have different row splits")
    unwrap = lambda a: a.values if isinstance(a, RaggedTensor) else a  # noqa: E731
    out = op(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})
    return RaggedTensor.from_row_splits(out, splits)


def boolean_mask(data, mask, name=None):
    """The entries of the matrix ``data`` where the same-shape boolean ``mask`` is True, row by row (a
    RaggedTensor); a vector mask over a vector gives a plain tensor, as TF."""
    d = np.asarray(convert_to_tensor(data).numpy())
    m = np.asarray(convert_to_tensor(mask).numpy())
    if m.dtype != bool:
        raise TypeError(f"ragged.boolean_mask: mask must be boolean. Received dtype {m.dtype.name}")
    if m.shape != d.shape[:m.ndim]:
        raise ValueError(f"ragged.boolean_mask: mask's shape {list(m.shape)} must be a prefix of data's "
                         f"{list(d.shape)}")
    if m.ndim == 1:
        return Tensor(d[m])
    if m.ndim != 2:
        raise ValueError("ragged.boolean_mask: a mask of rank > 2 needs more than one ragged dimension")
    return RaggedTensor.from_row_lengths(d[m], m.sum(axis=1))
