"""tf.ragged (descend/ragged.py) against TF's, for one ragged dimension."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _same(ours, theirs):
    if hasattr(theirs, "row_splits"):
        assert ours.to_list() == theirs.to_list()
        assert np.asarray(ours.row_splits.numpy()).tolist() == theirs.row_splits.numpy().tolist()
        assert np.asarray(ours.values.numpy()).dtype == theirs.values.numpy().dtype
    else:
        o, t = np.asarray(ours.numpy()), theirs.numpy()
        assert o.tolist() == t.tolist() and o.dtype == t.dtype


CASES = {
    "constant": lambda m: m.ragged.constant([[1, 2], [], [3, 4, 5]]),
    "constant_float": lambda m: m.ragged.constant([[1.5], [2.0, 3.0]]),
    "constant_inner": lambda m: m.ragged.constant([[[1, 2], [3, 4]], [[5, 6]]], ragged_rank=1),
    "range": lambda m: m.ragged.range([0, 2, 5], [3, 7, 5], [1, 2, 1]),
    "range_limits": lambda m: m.ragged.range([3, 0, 2]),
    "range_negative": lambda m: m.ragged.range(5, [0, 3], -2),
    "range_float": lambda m: m.ragged.range([0.0, 1.0], 2.0, 0.5),
    "splits_to_ids": lambda m: m.ragged.row_splits_to_segment_ids(np.array([0, 2, 2, 5], np.int64)),
    "ids_to_splits": lambda m: m.ragged.segment_ids_to_row_splits(np.array([0, 0, 2, 2, 2], np.int64), num_segments=4),
    "ids_to_splits_default": lambda m: m.ragged.segment_ids_to_row_splits(np.array([1, 1, 3], np.int64)),
    "boolean_mask": lambda m: m.ragged.boolean_mask([[1, 2, 3], [4, 5, 6]], [[True, False, True], [False] * 3]),
    "boolean_mask_vector": lambda m: m.ragged.boolean_mask([1, 2, 3], [True, False, True]),
    "map_flat_values": lambda m: m.ragged.map_flat_values(m.math.multiply, m.ragged.constant([[1, 2], [3]]),
                                                          m.ragged.constant([[10, 20], [30]])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_ragged_equals_tensorflows(name):
    tf = pytest.importorskip("tensorflow")
    _same(CASES[name](ds), CASES[name](tf))


@pytest.mark.parametrize("make,error,match", [
    (lambda: ds.ragged.constant([[[1], [2, 3]]]), ValueError, "more than one ragged dimension"),
    (lambda: ds.ragged.constant([[1]], ragged_rank=2), ValueError, "ragged_rank 1"),
    (lambda: ds.ragged.range([0], [3], [0]), ds.errors.InvalidArgumentError, "nonzero"),
    (lambda: ds.ragged.segment_ids_to_row_splits([2, 1]), ds.errors.InvalidArgumentError, "sorted"),
    (lambda: ds.ragged.boolean_mask([[1, 2]], [[1, 0]]), TypeError, "boolean"),
    (lambda: ds.ragged.map_flat_values(ds.math.add, 1, 2), ValueError, "no RaggedTensor"),
])
def test_bad_inputs_are_refused(make, error, match):
    with pytest.raises(error, match=match):
        make()
