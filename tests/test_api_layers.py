"""The layers added for issue 37: every one has a layer case (tests/layer_cases.py) and, where it draws,
the training-mode rule (noise statistics, reproducible seeds, whole channels dropped); the activity loss of
``ActivityRegularization``; the argument errors."""

from __future__ import annotations

import numpy as np
import pytest
from layer_cases import CASES

import descend as ds

NEW = {"ELU", "LeakyReLU", "PReLU", "ReLU", "Softmax", "Conv3D", "Conv1DTranspose", "Conv2DTranspose",
       "DepthwiseConv1D", "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D", "AdditiveAttention", "Attention",
       "Cropping1D", "Cropping2D", "Cropping3D", "UpSampling1D", "UpSampling2D", "UpSampling3D", "ZeroPadding1D",
       "ZeroPadding2D", "ZeroPadding3D", "Dot", "Identity", "Rescaling", "UnitNormalization",
       "GlobalAveragePooling3D", "GlobalMaxPooling3D", "GroupNormalization", "RMSNormalization",
       "ActivityRegularization", "GaussianNoise", "GaussianDropout", "AlphaDropout", "SpatialDropout1D",
       "Normalization", "Resizing", "CenterCrop"}


def test_every_layer_of_issue_37_has_a_layer_case():
    covered = {type(c.make()).__name__ for c in CASES}
    assert NEW <= covered, sorted(NEW - covered)


def test_gaussian_noise_adds_zero_mean_noise_of_the_given_stddev_while_training():
    x = ds.zeros((200, 50))
    y = ds.layers.GaussianNoise(0.5, seed=3)(x, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 0.5) < 0.02
    again = ds.layers.GaussianNoise(0.5, seed=3)(x, training=True).numpy()
    np.testing.assert_array_equal(y, again)  # one seed, one stream


def test_gaussian_dropout_multiplies_by_noise_of_mean_one():
    y = ds.layers.GaussianDropout(0.2, seed=0)(ds.ones((200, 50)), training=True).numpy()
    assert abs(y.mean() - 1.0) < 0.02 and abs(y.std() - np.sqrt(0.2 / 0.8)) < 0.02


def test_alpha_dropout_keeps_the_moments_of_a_standard_normal_input():
    x = np.random.default_rng(0).standard_normal((400, 100)).astype(np.float32)
    y = ds.layers.AlphaDropout(0.2, seed=0)(ds.constant(x), training=True).numpy()
    assert abs(y.mean()) < 0.03 and abs(y.std() - 1.0) < 0.03


def test_spatial_dropout_drops_whole_channels():
    y = ds.layers.SpatialDropout2D(0.5, seed=0)(ds.ones((4, 3, 3, 8)), training=True).numpy()
    per_map = y.reshape(4, 9, 8)
    assert np.all(per_map.min(axis=1) == per_map.max(axis=1))  # a map is all kept or all dropped
    assert set(np.unique(per_map).tolist()) == {0.0, 2.0}


def test_activity_regularization_adds_its_penalty_per_example():
    layer = ds.layers.ActivityRegularization(l1=0.1, l2=0.5)
    x = ds.constant([[1.0, -2.0], [0.5, 0.0]])
    layer(x)
    penalty = (0.1 * 3.5 + 0.5 * 5.25) / 2
    assert float(ds.add_n(layer.losses)) == pytest.approx(penalty)


@pytest.mark.parametrize("make,message", [
    (lambda: ds.layers.ZeroPadding2D(((1, 2, 3), (0, 0))), "`padding` should be an int, a tuple of 2 ints"),
    (lambda: ds.layers.Cropping1D((-1, 0)), "`cropping` must be non-negative"),
    (lambda: ds.layers.UpSampling2D(2, interpolation="bicubic"), "`interpolation` must be 'nearest' or 'bilinear'"),
    (lambda: ds.layers.Conv2DTranspose(2, 3, strides=2, output_padding=2), "smaller than its stride"),
    (lambda: ds.layers.DepthwiseConv2D(3, depth_multiplier=0), "`depth_multiplier` must be a positive int"),
    (lambda: ds.layers.Attention(score_mode="cosine"), "Expected one of {'dot', 'concat'}"),
    (lambda: ds.layers.LeakyReLU(negative_slope=-1), "`negative_slope` must be a non-negative number"),
    (lambda: ds.layers.GaussianDropout(1.0), "`rate` must be a number in \\[0, 1\\)"),
])
def test_bad_arguments_say_what_was_expected(make, message):
    with pytest.raises((ValueError, TypeError), match=message):
        make()


def test_cropping_everything_is_refused_naming_the_layer():
    with pytest.raises(ValueError, match="cropping \\(2, 3\\) leaves nothing of axis 1 of size 5"):
        ds.layers.Cropping1D((2, 3), name="crop")(ds.ones((1, 5, 2)))


def test_normalization_adapt_matches_keras():
    keras = pytest.importorskip("keras")
    data = np.random.default_rng(0).standard_normal((20, 3, 4)) * 3 + 1
    for axis in (-1, (1, 2), None):
        k, d = keras.layers.Normalization(axis=axis), ds.layers.Normalization(axis=axis)
        k.adapt(data)
        d.adapt(data)
        x = data[:2].astype(np.float32)
        np.testing.assert_allclose(d(ds.constant(x)).numpy(), np.asarray(k(x)), rtol=1e-5, atol=1e-5)


def test_normalization_adapts_over_batches_and_inverts():
    data = np.arange(12.0).reshape(6, 2)
    layer = ds.layers.Normalization()
    layer.adapt([data[:3], data[3:]])  # an iterable of batches
    np.testing.assert_allclose(layer.adapt_mean.numpy(), data.mean(0))
    back = ds.layers.Normalization(mean=data.mean(0), variance=data.var(0), invert=True)
    np.testing.assert_allclose(back(layer(ds.constant(data, "float32"))).numpy(), data, rtol=1e-5)


def test_category_encoding_matches_keras():
    keras = pytest.importorskip("keras")
    ids = np.array([[0, 1, 1], [3, 2, 0]])
    for mode in ("multi_hot", "count"):
        want = np.asarray(keras.layers.CategoryEncoding(4, output_mode=mode)(ids))
        np.testing.assert_array_equal(ds.layers.CategoryEncoding(4, output_mode=mode)(ds.constant(ids)).numpy(), want)
    want = np.asarray(keras.layers.CategoryEncoding(4, output_mode="one_hot")(np.array([1, 3])))
    np.testing.assert_array_equal(ds.layers.CategoryEncoding(4, output_mode="one_hot")(ds.constant([1, 3])).numpy(),
                                  want)
    with pytest.raises(ValueError, match="0 <= values < num_tokens with num_tokens=4"):
        ds.layers.CategoryEncoding(4)(ds.constant([[5]]))


def test_center_crop_of_a_small_image_resizes_up_as_keras():
    keras = pytest.importorskip("keras")
    x = np.random.default_rng(1).uniform(size=(1, 3, 5, 2)).astype(np.float32)
    want = np.asarray(keras.layers.CenterCrop(4, 4)(x))
    np.testing.assert_allclose(ds.layers.CenterCrop(4, 4)(ds.constant(x)).numpy(), want, rtol=1e-5, atol=1e-6)
