"""``HashedCrossing``: the bins against Keras (TensorFlow's ``cross_hashed``; skips without Keras), Keras'
documented example (no Keras needed), and the refusals. Not differentiable: ``LAYERS_NOT_COMPARED`` names
this file."""

import numpy as np
import pytest

import descend as ds

CASES = [
    (dict(num_bins=5), (["A", "B", "A", "B", "A"], [101, 101, 101, 102, 102])),
    (dict(num_bins=1000), (["A", "B", "A"], ["x", "y", "héllo"], [-7, 0, 2**40])),
    (dict(num_bins=7), (np.array([[3], [4]]), np.array([[5], [-6]]))),
    (dict(num_bins=4, output_mode="one_hot"), (["a", "b", "c"], [1, 2, 3])),
    (dict(num_bins=4, output_mode="one_hot"), (np.array([["a"], ["b"]], object), np.array([[1], [2]]))),
    (dict(num_bins=9), (np.array("a", object), np.array(4))),
]


@pytest.mark.parametrize("kwargs, x", CASES, ids=[str(i) for i in range(len(CASES))])
def test_bins_match_keras(kwargs, x):
    keras = pytest.importorskip("keras")
    x = tuple(np.asarray(a) for a in x)  # int64 where a Python list of ints would be int32
    got = ds.layers.HashedCrossing(**kwargs)(x).numpy()
    want = np.asarray(keras.layers.HashedCrossing(**kwargs)(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


def test_keras_documented_example():
    layer = ds.layers.HashedCrossing(num_bins=5)
    got = layer((["A", "B", "A", "B", "A"], [101, 101, 101, 102, 102])).numpy()
    np.testing.assert_array_equal(got, [1, 4, 1, 1, 3])


@pytest.mark.parametrize("kwargs, match", [
    (dict(num_bins=0), "num_bins"),
    (dict(num_bins=3, output_mode="count"), "output_mode"),
    (dict(num_bins=3, sparse=True), "sparse"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ds.layers.HashedCrossing(**kwargs)


@pytest.mark.parametrize("inputs, match", [
    (np.array(["a", "b"], object), "list or tuple of at least two"),
    ((["a"],), "at least two"),
    ((["a", "b"], [1]), "equal shape"),
    ((np.ones((2, 2), int), np.ones((2, 2), int)), "shape"),
    (([1.5, 2.5], [1, 2]), "integer or string"),
])
def test_bad_inputs_are_refused(inputs, match):
    with pytest.raises(ValueError, match=match):
        ds.layers.HashedCrossing(3)(inputs)
