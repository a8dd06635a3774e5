"""``IndexedSlices``: a sparse gradient, the rows ``indices`` of a dense tensor.

The gradient of a row gather (an embedding lookup) is an ``IndexedSlices``:
``values[k]`` is the gradient of row ``indices[k]`` of a tensor whose shape is
``dense_shape``. Indices may repeat; repeated rows add up.
"""

from __future__ import annotations

import numpy as np

from .ops_bridge import FUNCTIONS as _ops
from .tensor import Tensor, to_array

__all__ = ["IndexedSlices", "deduplicate"]


class IndexedSlices:
    """Rows ``indices`` of a tensor of shape ``dense_shape``, holding ``values``.

    Args:
        values: a Tensor of shape ``(len(indices),) + dense_shape[1:]``.
        indices: a 1-D integer Tensor of row numbers in ``[0, dense_shape[0])``.
        dense_shape: the shape of the dense tensor this stands for (optional, as in TF: an
            optimizer takes it from the variable; densifying needs it).

    Example:
        >>> import descend as ds
        >>> s = ds.IndexedSlices(ds.constant([[1.0, 1.0]]), ds.constant([2]), (3, 2))
        >>> ds.convert_to_tensor(s).numpy()
        array([[0., 0.],
               [0., 0.],
               [1., 1.]], dtype=float32)
    """

    __slots__ = ("values", "indices", "dense_shape")

    def __init__(self, values, indices, dense_shape=None):
        values = values if isinstance(values, Tensor) else Tensor(to_array(values))
        idx = indices._value if isinstance(indices, Tensor) else np.asarray(to_array(indices))
        if idx.dtype.kind not in "iu":
            raise TypeError(f"IndexedSlices indices must be integers. Received dtype {idx.dtype.name}")
        if idx.ndim != 1:
            raise ValueError(f"IndexedSlices indices must be 1-D. Received shape {idx.shape}")
        if dense_shape is None:  # TF allows it; the shape is then known from the variable it is applied to
            if values.ndim < 1 or values.shape[0] != idx.shape[0]:
                raise ValueError(f"IndexedSlices values must have one row per index. Received values of shape "
                                 f"{values.shape} for {idx.shape[0]} indices")
            self.values, self.indices, self.dense_shape = values, indices if isinstance(indices, Tensor) else Tensor(idx), None
            return
        dense_shape = tuple(int(d) for d in dense_shape)
        if len(dense_shape) < 1 or values.shape != idx.shape + dense_shape[1:]:
            raise ValueError(
                f"IndexedSlices values must have shape {idx.shape + dense_shape[1:]} (indices + dense_shape[1:]). "
                f"Received {values.shape}"
            )
        self.values = values
        self.indices = indices if isinstance(indices, Tensor) else Tensor(idx)
        self.dense_shape = dense_shape

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def shape(self) -> tuple:
        return self.dense_shape

    def _to_dense(self) -> Tensor:
        if self.dense_shape is None:
            raise ValueError("this IndexedSlices has no dense_shape: it cannot be densified on its own")
        return _ops.densify(self)

    def __repr__(self):
        return (f"IndexedSlices(values.shape={self.values.shape}, indices={self.indices._value!r}, "
                f"dense_shape={self.dense_shape})")


def deduplicate(slices: IndexedSlices) -> IndexedSlices:
    """Sum the values of repeated indices; the result's indices are unique and sorted.

    The work is done by the ops layer (:func:`descend.ops.gradient_ops.deduplicate`,
    a recorded ``unsorted_segment_sum``); already unique and sorted slices come back as they are.

    Example:
        >>> import descend as ds
        >>> s = ds.deduplicate(ds.IndexedSlices(ds.constant([1.0, 2.0, 4.0]), ds.constant([3, 1, 3]), (5,)))
        >>> s.indices.numpy(), s.values.numpy()
        (array([1, 3], dtype=int32), array([2., 5.], dtype=float32))
    """
    if not isinstance(slices, IndexedSlices):
        raise TypeError(f"deduplicate expects an IndexedSlices. Received: {type(slices).__name__}")
    return _ops.deduplicate(slices)
