"""``Hashing``: the bins against Keras (with TensorFlow's FarmHash, or its keyed SipHash with a salt; skips without
Keras), Keras' documented
examples (no Keras needed), and the refusals. Not differentiable: ``LAYERS_NOT_COMPARED`` names this file."""

import numpy as np
import pytest

import descend as ds

CASES = [
    (dict(num_bins=3), [["A"], ["B"], ["C"], ["D"], ["E"]]),
    (dict(num_bins=3, mask_value=""), [["A"], ["B"], [""], ["C"], ["D"]]),
    (dict(num_bins=7), np.array([[1, 2, -3], [40, 0, 123456789]])),
    (dict(num_bins=7, mask_value=0), np.array([[1, 2, -3], [40, 0, 123456789]])),
    (dict(num_bins=5), np.array([[1.7, -2.5], [3.0, 0.2]], np.float32)),
    (dict(num_bins=1000), np.array(["a much longer string than sixteen bytes", "héllo", "x" * 70], object)),
    (dict(num_bins=4, output_mode="multi_hot"), [["a", "b"], ["c", "a"]]),
    (dict(num_bins=4, output_mode="count"), [["a", "a"], ["c", "héllo"]]),
    (dict(num_bins=4, output_mode="one_hot"), ["a", "b", "zz"]),
    (dict(num_bins=6, dtype="int32"), [["q", "r"]]),
    (dict(num_bins=64, salt=1337), np.array([[5], [99999], [0], [-12], [4242]])),  # the preprocessing guide's
    (dict(num_bins=3, salt=[133, 137], mask_value=""), [["A"], [""], ["B"], ["C"]]),
    (dict(num_bins=5, salt=(7, 2**62 + 5), output_mode="count"), [["a", "a"], ["b", "héllo"]]),
]


@pytest.mark.parametrize("kwargs, x", CASES, ids=[str(i) for i in range(len(CASES))])
def test_bins_match_keras(kwargs, x):
    keras = pytest.importorskip("keras")
    got = ds.layers.Hashing(**kwargs)(x).numpy()
    want = np.asarray(keras.layers.Hashing(**kwargs)(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("kwargs, x, want", [
    (dict(num_bins=3), [["A"], ["B"], ["C"], ["D"], ["E"]], [[1], [0], [1], [1], [2]]),
    (dict(num_bins=3, mask_value=""), [["A"], ["B"], [""], ["C"], ["D"]], [[1], [1], [0], [2], [2]]),
    (dict(num_bins=3, salt=[133, 137]), [["A"], ["B"], ["C"], ["D"], ["E"]], [[1], [2], [1], [0], [2]]),
    (dict(num_bins=3, salt=133), [["A"], ["B"], ["C"], ["D"], ["E"]], [[0], [0], [2], [1], [0]]),
])
def test_keras_documented_examples(kwargs, x, want):
    np.testing.assert_array_equal(ds.layers.Hashing(**kwargs)(x).numpy(), want)


@pytest.mark.parametrize("kwargs, match", [
    (dict(num_bins=0), "num_bins"),
    (dict(num_bins=3, output_mode="tf_idf"), "output_mode"),
    (dict(num_bins=3, salt=1.5), "salt"),
    (dict(num_bins=3, salt=[1, 2, 3]), "salt"),
    (dict(num_bins=3, sparse=True, output_mode="count"), "sparse"),
    (dict(num_bins=3, dtype="float32"), "int32"),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ds.layers.Hashing(**kwargs)


def test_shapes_and_config():
    layer = ds.layers.Hashing(5, mask_value="", output_mode="multi_hot")
    assert layer.compute_output_shape((None, 3)) == (None, 5)
    assert ds.layers.Hashing(5).compute_output_shape((2, 3)) == (2, 3)
    again = ds.layers.Hashing.from_config(layer.get_config())
    assert (again.num_bins, again.mask_value, again.output_mode) == (5, "", "multi_hot")
    salted = ds.layers.Hashing.from_config(ds.layers.Hashing(5, salt=9).get_config())
    assert salted.salt == [9, 9]  # Keras' config holds the key
