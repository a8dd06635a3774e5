"""tf.TypeSpec and the composite specs (descend/framework/type_spec.py) against TF's."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _shape_dtype(spec):
    return (None if spec.shape.rank is None else spec.shape.as_list()) if hasattr(spec.shape, "rank") else \
        list(spec.shape), spec.dtype.name


@pytest.mark.parametrize("make", [
    lambda m: m.sparse.from_dense(np.array([[1.0, 0.0], [0.0, 2.0]], np.float32)),
    lambda m: m.constant([1, 2]),
    lambda m: np.zeros((2, 3)),
    lambda m: 3.0,
    lambda m: [[1, 2], [3, 4]],
])
def test_type_spec_from_value_equals_tensorflows(make):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = ds.type_spec_from_value(make(ds)), tf.type_spec_from_value(make(tf))
    assert type(ours).__name__ == type(theirs).__name__
    assert _shape_dtype(ours) == (list(theirs.shape), theirs.dtype.name)


def test_ragged_and_none_specs_as_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rows = [[1, 2], [3], []]
    ours = ds.type_spec_from_value(ds.RaggedTensor.from_rows(rows))
    theirs = tf.type_spec_from_value(tf.ragged.constant(rows))
    assert ours.shape.as_list() == theirs.shape.as_list() and ours.ragged_rank == theirs.ragged_rank
    assert ours.dtype.name == theirs.dtype.name and ours.row_splits_dtype.name == theirs.row_splits_dtype.name
    assert type(ds.type_spec_from_value(None)).__name__ == type(tf.type_spec_from_value(None)).__name__


@pytest.mark.parametrize("a,b", [
    (([None, 3], "float32"), ([2, 3], "float32")), (([2, None], "float32"), ([2, 2], "float32")),
    (([2, 2], "int32"), ([2, 2], "float32")), ((None, "float32"), ([5], "float32")), (([2], "float32"), ([2, 1], "float32")),
])
def test_sparse_spec_compatibility_and_supertypes_equal_tensorflows(a, b):
    tf = pytest.importorskip("tensorflow")
    ours_a, ours_b = ds.SparseTensorSpec(a[0], a[1]), ds.SparseTensorSpec(b[0], b[1])
    theirs_a, theirs_b = tf.SparseTensorSpec(a[0], getattr(tf, a[1])), tf.SparseTensorSpec(b[0], getattr(tf, b[1]))
    assert ours_a.is_compatible_with(ours_b) == theirs_a.is_compatible_with(theirs_b)
    assert ours_b.is_subtype_of(ours_a) == theirs_b.is_subtype_of(theirs_a)
    ours_s, theirs_s = ours_a.most_specific_common_supertype([ours_b]), \
        theirs_a.most_specific_common_supertype([theirs_b])
    assert (ours_s is None) == (theirs_s is None)
    if ours_s is not None:
        assert ours_s.shape == theirs_s.shape.as_list() if theirs_s.shape.rank is not None else ours_s.shape.rank is None
    assert (ours_a == ds.SparseTensorSpec(a[0], a[1])) and hash(ours_a) == hash(ds.SparseTensorSpec(a[0], a[1]))


def test_specs_without_tensorflow():
    sp = ds.sparse.from_dense([[1.0, 0.0], [0.0, 2.0]])
    spec = ds.type_spec_from_value(sp)
    assert repr(spec) == "SparseTensorSpec(TensorShape([2, 2]), float32)" and spec.value_type is ds.SparseTensor
    assert ds.SparseTensorSpec([None, 2]).is_compatible_with(sp)
    assert not ds.SparseTensorSpec([None, 2], "int32").is_compatible_with(sp)
    assert isinstance(ds.TensorSpec([1]), ds.TypeSpec)
    assert ds.TensorSpec([2, 3]).most_specific_common_supertype([ds.TensorSpec([2, 4])]) == ds.TensorSpec([2, None])
    grads = ds.IndexedSlices(ds.ones((2, 3)), ds.constant([0, 4]), ds.constant([5, 3]))
    assert ds.type_spec_from_value(grads) == ds.IndexedSlicesSpec([5, 3], "float32", "int32", "int64", [2])
    assert ds.NoneTensorSpec().is_compatible_with(None)
    with pytest.raises(TypeError, match="could not build a TypeSpec"):
        ds.type_spec_from_value(object())
