"""``tf.TypeSpec`` and the specs of descend's composite values: ``SparseTensorSpec``, ``IndexedSlicesSpec``,
``RaggedTensorSpec``, ``NoneTensorSpec`` (``type_spec_from_value``, which also gives a ``TensorSpec`` for a
tensor, array or Python value, lives with ``TensorSpec`` in ``descend/tensor_spec.py``). A spec describes the shape and dtypes a value may have; the checks
are TF's (unknown dimensions match any, the dtypes must be equal).

Example:
    >>> import descend as ds
    >>> spec = ds.type_spec_from_value(ds.sparse.from_dense([[1.0, 0.0], [0.0, 2.0]]))
    >>> spec
    SparseTensorSpec(TensorShape([2, 2]), float32)
    >>> ds.SparseTensorSpec([None, 2]).is_compatible_with(spec)
    True
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..framework.tensor_shape import TensorShape, as_shape

__all__ = ["IndexedSlicesSpec", "NoneTensorSpec", "RaggedTensorSpec", "SparseTensorSpec", "TypeSpec"]


class TypeSpec:
    """The base of the specs: a value's type with its static shape and dtypes. Subclasses name their
    ``value_type`` and the parts that describe them (``_parts``); comparison and compatibility follow."""

    value_type: type = type(None)

    def _parts(self) -> tuple:
        raise NotImplementedError

    @staticmethod
    def _spec_of(value):
        """The spec of ``value`` if it is a value of this spec's kind, else None."""
        return None

    def is_compatible_with(self, spec_or_value) -> bool:
        """Whether ``spec_or_value`` (a spec or a value) may be described by this spec."""
        other = spec_or_value if isinstance(spec_or_value, TypeSpec) else self._spec_of(spec_or_value)
        if other is None or type(other) is not type(self):
            return False
        return all(_compatible(a, b) for a, b in zip(self._parts(), other._parts()))

    def is_subtype_of(self, other) -> bool:
        """Whether every value of this spec is a value of ``other`` (its unknown parts match anything)."""
        if type(other) is not type(self):
            return False
        return all(b is None or (isinstance(b, TensorShape) and a.is_subtype_of(b)) or a == b
                   for a, b in zip(self._parts(), other._parts()))

    def most_specific_common_supertype(self, others):
        """The most specific spec of which this one and each of ``others`` are subtypes, or None."""
        result = self._parts()
        for other in others:
            if type(other) is not type(self):
                return None
            merged = []
            for a, b in zip(result, other._parts()):
                if isinstance(a, TensorShape):
                    merged.append(a.most_specific_compatible_shape(b))
                elif a == b:
                    merged.append(a)
                else:
                    return None
            result = tuple(merged)
        return type(self)(*result)

    def __eq__(self, other):
        return type(other) is type(self) and self._parts() == other._parts()

    def __hash__(self):
        return hash((type(self).__name__, self._parts()))

    def __repr__(self):
        parts = ", ".join(repr(p) if isinstance(p, TensorShape) or p is None else
                          (p.name if hasattr(p, "name") else repr(p)) for p in self._parts())
        return f"{type(self).__name__}({parts})"


def _compatible(a, b) -> bool:
    if isinstance(a, TensorShape):
        return a.is_compatible_with(b)
    return a is None or b is None or a == b


def _dtype(d):
    return backend.string if d in (backend.string, "string") else backend.as_dtype(d)


class SparseTensorSpec(TypeSpec):
    """The spec of a :class:`~descend.SparseTensor`: its dense ``shape`` and its values' ``dtype``."""

    def __init__(self, shape=None, dtype="float32"):
        self._shape, self._dtype = as_shape(shape), _dtype(dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self):
        from ..sparse import SparseTensor

        return SparseTensor

    def _parts(self):
        return (self._shape, self._dtype)

    @staticmethod
    def _spec_of(value):
        from ..sparse import SparseTensor

        return SparseTensorSpec.from_value(value) if isinstance(value, SparseTensor) else None

    @classmethod
    def from_value(cls, value) -> SparseTensorSpec:
        from ..sparse import SparseTensor

        if not isinstance(value, SparseTensor):
            raise TypeError(f"SparseTensorSpec.from_value: expected a SparseTensor. Received {type(value).__name__}")
        return cls(value.shape, value.dtype)


class IndexedSlicesSpec(TypeSpec):
    """The spec of :class:`~descend.IndexedSlices`: the dense ``shape``, the values' ``dtype``, the indices'
    dtype, the dense shape's dtype (None when it is not kept) and the indices' shape."""

    def __init__(self, shape=None, dtype="float32", indices_dtype="int64", dense_shape_dtype=None,
                 indices_shape=None):
        self._shape, self._dtype = as_shape(shape), _dtype(dtype)
        self._indices_dtype = _dtype(indices_dtype)
        self._dense_shape_dtype = None if dense_shape_dtype is None else _dtype(dense_shape_dtype)
        self._indices_shape = as_shape([None] if indices_shape is None else indices_shape)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    @property
    def value_type(self):
        from ..framework.indexed_slices import IndexedSlices

        return IndexedSlices

    def _parts(self):
        return (self._shape, self._dtype, self._indices_dtype, self._dense_shape_dtype, self._indices_shape)

    @staticmethod
    def _spec_of(value):
        from ..framework.indexed_slices import IndexedSlices

        if not isinstance(value, IndexedSlices):
            return None
        dense = value.dense_shape
        return IndexedSlicesSpec(None if dense is None else [int(d) for d in np.ravel(np.asarray(dense))],
                                 value.values.dtype, np.asarray(value.indices.numpy()).dtype.name,
                                 None if dense is None else "int64", [int(np.size(value.indices.numpy()))])


class RaggedTensorSpec(TypeSpec):
    """The spec of a :class:`~descend.RaggedTensor`: its ``shape`` (ragged dimensions None), values'
    ``dtype``, ``ragged_rank`` and ``row_splits_dtype``."""

    def __init__(self, shape=None, dtype="float32", ragged_rank=None, row_splits_dtype="int64",
                 flat_values_spec=None):
        self._shape, self._dtype = as_shape(shape), _dtype(dtype)
        if ragged_rank is None:
            if self._shape.rank is None:
                raise ValueError("RaggedTensorSpec: give ragged_rank when the shape's rank is unknown")
            ragged_rank = self._shape.rank - 1
        self._ragged_rank = int(ragged_rank)
        self._row_splits_dtype = _dtype(row_splits_dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)

    @property
    def value_type(self):
        from ..strings import RaggedTensor

        return RaggedTensor

    def _parts(self):
        return (self._shape, self._dtype, self._ragged_rank, self._row_splits_dtype)

    @staticmethod
    def _spec_of(value):
        from ..strings import RaggedTensor

        if not isinstance(value, RaggedTensor):
            return None
        rows = int(np.size(value.row_splits.numpy())) - 1
        inner = list(np.shape(value.values.numpy()))[1:]
        return RaggedTensorSpec([rows, None] + inner, value.values.dtype, 1, "int64")


class NoneTensorSpec(TypeSpec):
    """The spec of None (an absent optional value)."""

    def _parts(self):
        return ()

    def is_compatible_with(self, spec_or_value) -> bool:
        return spec_or_value is None or isinstance(spec_or_value, NoneTensorSpec)
