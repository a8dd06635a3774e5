"""``AutoContrast``: against Keras on value ranges, one image, integer images and a constant channel (skips
without Keras), and its refusals. Gradients: the ``AutoContrast`` row of tests/differential_cases.py."""

import numpy as np
import pytest

import descend as ds

_rng = np.random.default_rng(0)
_X = _rng.uniform(0, 200, (2, 4, 5, 3)).astype(np.float32)
_X[1, :, :, 2] = 7.0  # a constant channel: Keras keeps the input there


@pytest.mark.parametrize("value_range, x", [
    ((0, 255), _X), ((0, 1), _X / 255), ((1, -1), _X / 100 - 1), ((0, 255), _X[0]),
    ((0, 255), _X.astype(np.uint8)),
], ids=["0-255", "0-1", "reversed", "one_image", "uint8"])
def test_matches_keras(value_range, x):
    keras = pytest.importorskip("keras")
    got = ds.layers.AutoContrast(value_range=value_range)(x).numpy()
    want = np.asarray(keras.layers.AutoContrast(value_range=value_range)(x))
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-5)


def test_a_constant_channel_keeps_its_values_and_others_span_the_range():
    got = ds.layers.AutoContrast()(_X).numpy()
    np.testing.assert_array_equal(got[1, :, :, 2], 7.0)
    assert got[0].min() == 0.0 and got[0].max() == 255.0


@pytest.mark.parametrize("kwargs, match", [
    (dict(value_range=1.0), "value_range"), (dict(value_range=(0, 1, 2)), "value_range"),
    (dict(data_format="nhwc"), "data_format must be .channels_last. or .channels_first."),
])
def test_bad_arguments_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ds.layers.AutoContrast(**kwargs)


def test_bad_rank_is_refused():
    with pytest.raises(ValueError, match="ndim"):
        ds.layers.AutoContrast()(ds.ones((2, 3)))
