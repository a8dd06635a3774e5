"""The gradient arithmetic the tape needs, as ops: adding gradients, densifying and
de-duplicating ``IndexedSlices``, stacking Jacobian rows, reading a Variable.

:mod:`descend.ops` hands these functions to the framework when it is imported
(:func:`descend.framework.ops_bridge.register`), so the tape and
``IndexedSlices`` never look an op up by name. Each is built from recorded
ops, so an outer tape differentiates through gradient aggregation too.

Example:
    >>> import descend as ds
    >>> from descend.ops.gradient_ops import aggregate
    >>> a = ds.IndexedSlices(ds.constant([[1.0, 1.0]]), ds.constant([2]), (3, 2))
    >>> aggregate(a, ds.ones((3, 2))).numpy()
    array([[1., 1.],
           [1., 1.],
           [2., 2.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import _native
from ..framework import trace as _trace
from ..framework.indexed_slices import IndexedSlices
from ..framework.op import Op
from ..framework.tensor import Tensor
from .array_ops import concat, gather, reshape, stack, unsorted_segment_sum
from .math_ops import add, cast, identity

__all__ = ["aggregate", "densify", "deduplicate", "deduplicate_checked", "read", "stack_rows"]


def densify(slices: IndexedSlices) -> Tensor:
    """The dense Tensor ``slices`` stands for (repeated rows add up)."""
    return unsorted_segment_sum(slices.values, slices.indices, num_segments=slices.dense_shape[0])


def aggregate(a, b):
    """The sum of two gradients of one value.

    Two ``IndexedSlices`` stay sparse (their rows are concatenated, repeats
    allowed); a sparse gradient meeting a dense one is densified first.
    """
    if isinstance(a, IndexedSlices) and isinstance(b, IndexedSlices):
        # both with ops (a trace of descend.function records how the indices come together); indices of
        # two integer dtypes meet in int64, as np.concatenate makes them
        ia, ib = a.indices, b.indices
        if ia.dtype != ib.dtype:
            ia, ib = cast(ia, np.int64), cast(ib, np.int64)
        return IndexedSlices(concat([a.values, b.values], axis=0), concat([ia, ib], axis=0), a.dense_shape)
    if isinstance(a, IndexedSlices):
        a = densify(a)
    if isinstance(b, IndexedSlices):
        b = densify(b)
    return add(a, b)


def deduplicate(slices: IndexedSlices) -> IndexedSlices:
    """Sum the values of repeated indices; the result's indices are unique and sorted.

    Slices whose indices are already unique and sorted are returned as they are.
    """
    return deduplicate_checked(slices)[0]


def deduplicate_checked(slices: IndexedSlices) -> tuple[IndexedSlices, bool | None]:
    """:func:`deduplicate`, and whether every summed row is known to be finite: True or False when the
    compiled kernel summed the rows (it checks each row while it is in cache; a sum is finite only when
    every term is, so True means the whole gradient is), None when nothing was summed or NumPy summed."""
    if _trace.active:  # the grouping is computed in NumPy: a trace of descend.function cannot record it
        _trace.host_read(slices.indices, "numpy")
    idx = slices.indices._value
    # one sort gives the unique ids and each row's group (np.unique with return_inverse sorts with an
    # argsort, 5x slower); the segment sum adds each row's terms in order of appearance
    grouped = _native.group(idx.reshape(-1)) if idx.size >= 2 else None
    if grouped is None:  # already unique and sorted: nothing to do
        return slices, None
    _, unique, _, inverse = grouped
    finite = []
    values = _sum_duplicates(slices.values, Tensor(inverse), num_segments=unique.size, finite=finite)
    return IndexedSlices(values, Tensor(unique), slices.dense_shape), finite[0]


def _sum_duplicates_forward(data, segment_ids, num_segments=None, finite=None):
    # unsorted_segment_sum(data, segment_ids, num_segments) for segment ids that group() made (every segment
    # has a row, all ids in range: no range check); the kernel's finiteness of the sums (None: NumPy summed)
    # is appended to ``finite``
    out = np.empty((num_segments,) + data.shape[1:], data.dtype)
    checked = _native.segment_sum_grouped(out, segment_ids, data)
    if checked is None:
        out[...] = 0
        np.add.at(out, segment_ids, data)
    if finite is not None:
        finite.append(checked)
    return out


#: deduplicate's sum, recorded as an op (an outer tape differentiates through it) but not registered: it is
#: unsorted_segment_sum with the grouping handed in
_sum_duplicates = Op(_sum_duplicates_forward, name="deduplicate/sum_duplicates", register=False)
_sum_duplicates.defvjp(lambda g, ans, data, segment_ids, num_segments=None, finite=None: (
    gather(g, segment_ids), None))


def read(variable) -> Tensor:
    """A recorded snapshot of ``variable`` (the ``identity`` op)."""
    return identity(variable)


def stack_rows(tensors, shape, axis: int) -> Tensor:
    """``tensors`` stacked along a new axis ``axis``, reshaped to ``shape`` (a Jacobian from its rows)."""
    return reshape(stack(list(tensors), axis=axis), shape=tuple(shape))
