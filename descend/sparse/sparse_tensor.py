"""``tf.SparseTensor``: a tensor stored as the coordinates of its non-default entries.

``indices`` (int64 ``[N, rank]``), ``values`` (``[N]``, any dtype) and ``dense_shape`` (int64 ``[rank]``),
as TF. The ops over it (``descend.sparse``) differentiate through ``values`` (and the dense operands)
with the tape, as TF's.

Example:
    >>> import descend as ds
    >>> sp = ds.SparseTensor(indices=[[0, 0], [1, 2]], values=[1.0, 2.0], dense_shape=[3, 4])
    >>> sp.shape, ds.sparse.to_dense(sp).numpy()[1]
    (TensorShape([3, 4]), array([0., 0., 2., 0.], dtype=float32))
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.tensor_shape import TensorShape

__all__ = ["SparseTensor"]


class SparseTensor:
    """A sparse tensor: ``dense[indices[i]] = values[i]``, every other entry the default (zero)."""

    def __init__(self, indices, values, dense_shape):
        idx = convert_to_tensor(indices, dtype="int64")
        vals = values if isinstance(values, Tensor) else convert_to_tensor(values)
        shape = convert_to_tensor(dense_shape, dtype="int64")
        i, s = np.asarray(idx.numpy()), np.asarray(shape.numpy())
        if s.ndim != 1:
            raise ValueError(f"SparseTensor: dense_shape must be a vector. Received shape {list(s.shape)}")
        if i.ndim != 2 or i.shape[1] != s.shape[0]:
            raise ValueError(f"SparseTensor: indices must have shape [N, {s.shape[0]}] (rank of dense_shape). "
                             f"Received shape {list(i.shape)}")
        if np.ndim(vals.numpy()) != 1 or np.shape(vals.numpy())[0] != i.shape[0]:
            raise ValueError(f"SparseTensor: values must have shape [{i.shape[0]}] (one per index). Received "
                             f"shape {list(np.shape(vals.numpy()))}")
        if (s < 0).any():
            raise ValueError(f"SparseTensor: dense_shape must be non-negative. Received {s.tolist()}")
        self._indices, self._values, self._dense_shape = idx, vals, shape

    indices = property(lambda self: self._indices, doc="int64 ``[N, rank]``: the coordinates of the entries.")
    values = property(lambda self: self._values, doc="``[N]``: the entries' values.")
    dense_shape = property(lambda self: self._dense_shape, doc="int64 ``[rank]``: the dense tensor's shape.")
    dtype = property(lambda self: self._values.dtype)

    @property
    def shape(self) -> TensorShape:
        return TensorShape([int(d) for d in np.asarray(self._dense_shape.numpy())])

    def get_shape(self) -> TensorShape:
        return self.shape

    def with_values(self, new_values) -> SparseTensor:
        """The same coordinates and shape holding ``new_values``."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    @classmethod
    def from_value(cls, value) -> SparseTensor:
        """``value`` itself when it is a SparseTensor (TF's ``SparseTensorValue`` has no counterpart)."""
        if isinstance(value, SparseTensor):
            return value
        raise TypeError(f"SparseTensor.from_value: expected a SparseTensor. Received {type(value).__name__} "
                        "(use descend.sparse.from_dense for a dense tensor)")

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices!r}, values={self._values!r}, "
                f"dense_shape={self._dense_shape!r})")
