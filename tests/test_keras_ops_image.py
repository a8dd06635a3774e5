"""keras.ops.image (issue 37): float64 gradient checks of every differentiable function, the fill modes of
map_coordinates by their definitions, dtypes, data formats, errors and elastic_transform's contract. Values are
compared with Keras on TensorFlow in tests/test_differential.py (the cases of tests/differential_cases.py) and by
Keras' own tests (tests/keras_suite/image_test.py)."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend.keras import ops
from descend.keras.config import image_data_format, set_image_data_format

I = ops.image
RNG = np.random.default_rng(37)
IMG = RNG.uniform(0.05, 0.95, (2, 5, 6, 3))            # channels last
IMG_CF = np.ascontiguousarray(np.transpose(IMG, (0, 3, 1, 2)))
ONE = RNG.uniform(0.05, 0.95, (7, 6, 2))               # a single image
VOL = RNG.uniform(-1, 1, (2, 4, 5, 3, 2))
QUAD = np.array([[0, 0], [5, 0], [0, 4], [5, 4]], np.float32)
QUAD2 = np.array([[0.5, 0.3], [4.6, 0.1], [0.2, 3.8], [5.2, 4.4]], np.float32)
AFFINE = np.array([1.1, 0.2, -0.7, 0.1, 0.9, 0.4, 0.01, 0.02], np.float32)
POINTS = RNG.uniform(-3, 9, (3, 4, 5))                 # around and beyond ONE's edges

# (id, function of the float64 tensor, input): the tape's gradient against central differences
GRADIENT_CASES = [
    ("resize-bilinear", lambda x: I.resize(x, (8, 4)), IMG),
    ("resize-bicubic-antialias", lambda x: I.resize(x, (3, 4), interpolation="bicubic", antialias=True), IMG),
    ("resize-area-crop", lambda x: I.resize(x, (4, 4), interpolation="area", crop_to_aspect_ratio=True), IMG),
    ("resize-lanczos5-pad-cf", lambda x: I.resize(x, (4, 9), interpolation="lanczos5", pad_to_aspect_ratio=True,
                                                  data_format="channels_first"), IMG_CF),
    ("affine-bilinear-constant", lambda x: I.affine_transform(x, AFFINE, fill_value=0.3), IMG),
    ("affine-bilinear-reflect-cf", lambda x: I.affine_transform(x, AFFINE, fill_mode="reflect",
                                                                data_format="channels_first"), IMG_CF),
    ("affine-bilinear-wrap", lambda x: I.affine_transform(x, AFFINE, fill_mode="wrap"), ONE),
    ("affine-nearest-nearest", lambda x: I.affine_transform(x, AFFINE, "nearest", "nearest"), IMG),
    ("perspective", lambda x: I.perspective_transform(x, QUAD, QUAD2), IMG),
    ("map_coordinates-mirror", lambda x: I.map_coordinates(x, POINTS, 1, "mirror"), ONE),
    ("map_coordinates-reflect", lambda x: I.map_coordinates(x, POINTS, 1, "reflect"), ONE),
    ("extract_patches-same", lambda x: I.extract_patches(x, (3, 2), strides=(2, 1), padding="same"), IMG),
    ("extract_patches-dilated-cf", lambda x: I.extract_patches(x, 2, strides=1, dilation_rate=2,
                                                               data_format="channels_first"), IMG_CF),
    ("extract_patches_3d", lambda x: I.extract_patches_3d(x, (2, 3, 2), strides=(1, 2, 1), padding="same"), VOL),
    ("pad_images", lambda x: I.pad_images(x, 1, None, 2, 1, target_width=9), IMG),
    ("crop_images-cf", lambda x: I.crop_images(x, 1, None, None, 2, 3, 3, data_format="channels_first"), IMG_CF),
    ("gaussian_blur", lambda x: I.gaussian_blur(x, (5, 3), (1.5, 0.8)), IMG),
    ("scale_and_translate", lambda x: I.scale_and_translate(x, (2, 9, 4, 3), np.array([1.7, 0.6]),
                                                            np.array([-0.5, 1.0]), (1, 2), "cubic"), IMG),
    ("sobel_edges-cf", lambda x: I.sobel_edges(x, data_format="channels_first"), IMG_CF),
    ("ssim", lambda x: I.ssim(x, IMG[::-1], filter_size=3), IMG),
    ("elastic_transform", lambda x: I.elastic_transform(x, 3.0, 1.0, seed=5, data_format="channels_last"), IMG),
    ("rgb_to_hsv", lambda x: I.rgb_to_hsv(x), IMG),
]


@pytest.mark.parametrize("fn,x", [pytest.param(f, x, id=i) for i, f, x in GRADIENT_CASES])
def test_float64_gradients_match_central_differences(fn, x):
    assert ds.testing.check_gradients(fn, np.array(x, np.float64)) < 1e-6


def test_map_coordinates_is_differentiable_in_its_coordinates():
    coords = np.stack([RNG.uniform(0.1, 5.9, (3, 4)), RNG.uniform(0.1, 4.9, (3, 4)), RNG.uniform(0.1, 0.9, (3, 4))])
    # (positions away from whole numbers: the linear weights' kinks are there)
    coords = np.where(np.abs(coords - np.round(coords)) < 0.05, coords + 0.1, coords)
    assert ds.testing.check_gradients(lambda x, c: I.map_coordinates(x, c, 1, "nearest"), ONE, coords) < 1e-6


#: map_coordinates (order 0) of [10, 11, 12, 13] at the whole positions -5 ... 8: the index each mode reads
FILL_MODE_TABLE = {
    "nearest": [0, 0, 0, 0, 0, 0, 1, 2, 3, 3, 3, 3, 3, 3],
    "wrap": [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0],
    # Keras' TF backend: |index| folded into [0, 8), the upper half reflected (reflect repeating the edge pixel;
    # mirror's read at |index| = 4, out of range on TF, is the last row here)
    "reflect": [2, 3, 3, 2, 1, 0, 1, 2, 3, 3, 2, 1, 0, 0],
    "mirror": [3, 3, 3, 2, 1, 0, 1, 2, 3, 3, 3, 2, 1, 0],
    "constant": [None] * 5 + [0, 1, 2, 3] + [None] * 5,      # None: fill_value
}


@pytest.mark.parametrize("mode", sorted(FILL_MODE_TABLE))
@pytest.mark.parametrize("order", [0, 1])
def test_map_coordinates_fill_modes_read_keras_tf_index(mode, order):
    x = np.arange(4.0) + 10.0
    got = I.map_coordinates(x, [np.arange(-5.0, 9.0)], order, mode, fill_value=-1.0).numpy()
    want = [-1.0 if i is None else 10.0 + i for i in FILL_MODE_TABLE[mode]]
    np.testing.assert_array_equal(got, want)


def test_map_coordinates_interpolates_between_the_mapped_indices():
    x = np.arange(4.0) + 10.0
    # -0.25 lies between -1 (weight 0.25) and 0 (weight 0.75): reflect and mirror read rows 1 and 0, wrap 3 and 0
    for mode, want in (("reflect", 10.25), ("mirror", 10.25), ("wrap", 10.0 + 0.25 * 3), ("constant", 0.75 * 10)):
        got = float(I.map_coordinates(x, [[-0.25]], 1, mode).numpy()[0])
        assert got == pytest.approx(want), mode


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float16", "float32", "float64"])
def test_results_keep_the_images_dtype(dtype):
    x = (IMG * 200).astype(dtype)
    calls = [lambda t: I.resize(t, (3, 8)), lambda t: I.affine_transform(t, AFFINE),
             lambda t: I.perspective_transform(t, QUAD, QUAD2), lambda t: I.extract_patches(t, 2),
             lambda t: I.pad_images(t, 1, 1, 1, 1), lambda t: I.crop_images(t, 1, 1, 1, 1),
             lambda t: I.map_coordinates(t[0, ..., 0], RNG.uniform(0, 4, (2, 3, 3)), 1),
             lambda t: I.scale_and_translate(t, (2, 3, 3, 3), [0.5, 0.5], [0.0, 0.0], (1, 2), "linear")]
    if dtype.startswith("float"):
        calls += [lambda t: I.gaussian_blur(t), lambda t: I.elastic_transform(t, seed=1),
                  lambda t: I.ssim((t / 200).astype(dtype), t[::-1] / 200, filter_size=3)]  # (200 ** 2 * 2: inf in float16)
    for call in calls:
        assert call(x).dtype == dtype


def test_integer_results_are_rounded_and_clamped():
    x = np.array([[[0], [255]], [[255], [0]]], np.uint8)
    up = I.resize(x, (4, 4)).numpy()[..., 0]
    exact = I.resize(x.astype(np.float32), (4, 4)).numpy()[..., 0]
    np.testing.assert_array_equal(up, np.clip(np.round(exact), 0, 255).astype(np.uint8))
    assert I.map_coordinates(np.array([0, 255], np.uint8), [[0.5, 0.499]], 1).numpy().tolist() == [128, 127]
    # scale_and_translate clamps to the images' own range (Keras' TF backend)
    sharp = I.scale_and_translate(np.array([10, 10, 200, 200], np.uint8), (7,), [1.7], [0.0], (0,), "lanczos3")
    assert sharp.numpy().min() >= 10 and sharp.numpy().max() <= 200


def test_channels_first_is_the_transpose_of_channels_last():
    for name, call in (("resize", lambda t, f: I.resize(t, (4, 9), data_format=f)),
                       ("affine", lambda t, f: I.affine_transform(t, AFFINE, data_format=f)),
                       ("patches", lambda t, f: I.extract_patches(t, 2, data_format=f)),
                       ("blur", lambda t, f: I.gaussian_blur(t, data_format=f)),
                       ("elastic", lambda t, f: I.elastic_transform(t, seed=3, data_format=f))):
        last = call(IMG, "channels_last").numpy()
        first = call(IMG_CF, "channels_first").numpy()
        np.testing.assert_allclose(np.transpose(first, (0, 2, 3, 1)), last, rtol=1e-12, err_msg=name)


def test_data_format_none_follows_the_config():
    before = image_data_format()
    try:
        set_image_data_format("channels_first")
        assert I.resize(IMG_CF, (2, 2)).shape == (2, 3, 2, 2)
        assert I.pad_images(IMG_CF, 1, 0, 0, 0).shape == (2, 3, 6, 6)
    finally:
        set_image_data_format(before)
    assert I.resize(IMG, (2, 2)).shape == (2, 2, 2, 3)


def test_geometry_values():
    x = np.arange(16.0).reshape(4, 4, 1)
    np.testing.assert_array_equal(I.crop_images(x, 1, 2, None, None, 2, 2).numpy()[..., 0], [[6, 7], [10, 11]])
    padded = I.pad_images(x, None, 1, 2, None, 6, 6).numpy()[..., 0]
    np.testing.assert_array_equal(padded[:4, 1:5], x[..., 0])
    assert padded.sum() == x.sum() and padded.shape == (6, 6)
    # a 2 x 4 image padded to the aspect ratio 1:1 gains one row above and below
    wide = np.ones((2, 4, 1))
    np.testing.assert_array_equal(I.resize(wide, (4, 4), interpolation="nearest", pad_to_aspect_ratio=True,
                                           fill_value=0.0).numpy()[..., 0].sum(axis=1), [0, 4, 4, 0])
    # crop_to_aspect_ratio takes the centred square of a 2 x 4 image
    ramp = np.arange(8.0).reshape(2, 4, 1)
    np.testing.assert_array_equal(I.resize(ramp, (2, 2), interpolation="nearest",
                                           crop_to_aspect_ratio=True).numpy()[..., 0], [[1, 2], [5, 6]])
    # patches: each flattened in (depth, row, column, channel) order
    v = np.arange(2 * 2 * 2 * 2.0).reshape(2, 2, 2, 2)
    np.testing.assert_array_equal(I.extract_patches_3d(v, 2).numpy().reshape(-1), v.reshape(-1))
    assert I.extract_patches(np.zeros((2, 20, 20, 20, 3)), (5, 5, 5)).shape == (2, 4, 4, 4, 375)


def test_gaussian_blur_keeps_a_constant_image_inside_and_smooths():
    flat = np.full((1, 9, 9, 1), 2.0)
    out = I.gaussian_blur(flat, (5, 5), (1.0, 1.0)).numpy()
    np.testing.assert_allclose(out[0, 2:-2, 2:-2, 0], 2.0, rtol=1e-12)  # zero padding darkens only the border
    assert out[0, 0, 0, 0] < 2.0
    spike = np.zeros((1, 5, 5, 1))
    spike[0, 2, 2, 0] = 1.0
    k = I.gaussian_blur(spike, (3, 3), (1.0, 1.0)).numpy()[0, 1:4, 1:4, 0]
    g = np.exp(-0.5 * np.array([1.0, 0.0, 1.0]))
    np.testing.assert_allclose(k, np.outer(g, g) / np.outer(g, g).sum(), rtol=1e-12)


def test_elastic_transform_is_seeded_and_alpha_zero_is_the_identity():
    a = I.elastic_transform(IMG, seed=4).numpy()
    np.testing.assert_array_equal(a, I.elastic_transform(IMG, seed=4).numpy())
    assert not np.array_equal(a, I.elastic_transform(IMG, seed=5).numpy())
    np.testing.assert_allclose(I.elastic_transform(IMG, alpha=0.0, seed=4).numpy(), IMG, rtol=1e-12)
    # a warp moves pixels around: the values stay in the image's range and their mean stays near
    big = RNG.uniform(0, 1, (1, 40, 40, 2))
    warped = I.elastic_transform(big, alpha=20.0, sigma=5.0, seed=2).numpy()
    assert 0.0 <= warped.min() and warped.max() <= 1.0 and abs(warped.mean() - big.mean()) < 0.05
    assert not np.allclose(warped, big)


def test_ssim_and_sobel_edges():
    assert float(I.ssim(ONE, ONE, filter_size=3)) == pytest.approx(1.0)
    assert float(I.ssim(ONE, 1.0 - ONE, filter_size=3)) < 0.5
    edges = I.sobel_edges(np.tile(np.array([0.0, 0.0, 1.0, 1.0]), (1, 4, 1)).reshape(1, 4, 4, 1)).numpy()
    assert edges.shape == (1, 4, 4, 1, 2)
    np.testing.assert_array_equal(edges[..., 0], 0.0)  # no vertical change
    assert (edges[0, :, 1:3, 0, 1] == 4.0).all()       # the step between columns 1 and 2


ERROR_CASES = [
    ("resize-size", lambda: I.resize(IMG, (2, 2, 2)), ValueError, "resize: Expected `size` to be a tuple of 2"),
    ("resize-positive", lambda: I.resize(IMG, (0, 2)), ValueError, "must have positive height and width"),
    ("resize-rank", lambda: I.resize(IMG[0, 0], (2, 2)), ValueError, r"Invalid images rank.*images.shape=\(6, 3\)"),
    ("resize-both", lambda: I.resize(IMG, (2, 2), crop_to_aspect_ratio=True, pad_to_aspect_ratio=True),
     ValueError, "Only one of"),
    ("resize-method", lambda: I.resize(IMG, (2, 2), interpolation="cubic"), ValueError,
     "interpolation=cubic"),
    ("data_format", lambda: I.resize(IMG, (2, 2), data_format="NHWC"), ValueError, "data_format='NHWC'"),
    ("affine-transform-rank", lambda: I.affine_transform(IMG, np.zeros((1, 1, 8))), ValueError,
     r"Invalid transform rank.*\(1, 1, 8\)"),
    ("affine-mirror", lambda: I.affine_transform(IMG, AFFINE, fill_mode="mirror"), ValueError,
     "fill_mode=mirror"),
    ("perspective-points", lambda: I.perspective_transform(IMG, QUAD[:3], QUAD[:3]), ValueError,
     r"Invalid start_points shape.*\(3, 2\)"),
    ("perspective-pair", lambda: I.perspective_transform(IMG, QUAD, QUAD[None]), ValueError, "the same shape"),
    ("map-leading", lambda: I.map_coordinates(ONE, np.zeros((2, 4)), 1), ValueError,
     "leading dim of 2"),
    ("map-mode", lambda: I.map_coordinates(ONE, np.zeros((3, 4)), 1, "edge"), ValueError, "fill_mode=edge"),
    ("map-order", lambda: I.map_coordinates(ONE, np.zeros((3, 4)), 3), NotImplementedError, "order<=1"),
    ("patches-size-type", lambda: I.extract_patches(IMG, "5"), TypeError, "Expected an int or a tuple"),
    ("patches-size-len", lambda: I.extract_patches(IMG, (3, 3, 3, 3)), ValueError, "length 2 or 3"),
    ("patches-padding", lambda: I.extract_patches(IMG, 2, padding="full"), ValueError, "padding='full'"),
    ("patches3d-size", lambda: I.extract_patches_3d(VOL, (4, 4)), TypeError, "tuple of length 3"),
    ("patches3d-strides", lambda: I.extract_patches_3d(VOL, 2, strides=(2, 2)), ValueError, "strides"),
    ("pad-two-of", lambda: I.pad_images(IMG, 1, 1, 1, 1, target_height=9), ValueError,
     "Must specify exactly two of top_padding, bottom_padding, target_height"),
    ("pad-negative", lambda: I.pad_images(IMG, -1, 0, 0, 0), ValueError, "top_padding must be >= 0"),
    ("pad-too-small", lambda: I.pad_images(IMG, 3, 0, None, 0, target_height=6), ValueError,
     "bottom_padding must be >= 0. Received: bottom_padding=-2"),
    ("crop-too-big", lambda: I.crop_images(IMG, 3, 0, None, 0, target_height=3), ValueError, "does not fit"),
    ("crop-two-of", lambda: I.crop_images(IMG, 1, 1), ValueError, "Must specify exactly two of"),
    ("scale-method", lambda: I.scale_and_translate(IMG, (2, 3, 3, 3), [1, 1], [0, 0], (1, 2), "area"),
     ValueError, "method=area"),
    ("sobel-rank", lambda: I.sobel_edges(ONE), ValueError, "rank 4"),
    ("ssim-rank", lambda: I.ssim(ONE[0], ONE[0]), ValueError, "Invalid image1 rank"),
    ("elastic-mode", lambda: I.elastic_transform(IMG, fill_mode="mirror"), ValueError, "fill_mode=mirror"),
    ("blur-size", lambda: I.gaussian_blur(IMG, (0, 3)), ValueError, "kernel_size"),
]


@pytest.mark.parametrize("call,exc,match", [pytest.param(c, e, m, id=i) for i, c, e, m in ERROR_CASES])
def test_errors_say_what_was_expected_and_received(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


#: (id, call on an ops.image namespace and the images): compared with Keras on TF for integer and float16 images
DTYPE_CASES = [
    ("resize", lambda m, x: m.resize(x, (8, 3))),
    ("resize-bicubic", lambda m, x: m.resize(x, (8, 3), interpolation="bicubic")),
    ("resize-nearest", lambda m, x: m.resize(x, (8, 3), interpolation="nearest")),
    ("affine", lambda m, x: m.affine_transform(x, AFFINE)),
    ("affine-nearest", lambda m, x: m.affine_transform(x, AFFINE, "nearest", "wrap")),
    ("perspective", lambda m, x: m.perspective_transform(x, QUAD, QUAD2)),
    ("map_coordinates", lambda m, x: m.map_coordinates(x[0, ..., 0], POINTS[:2, :, :3] / 2 + 1, 1, "nearest")),
    ("pad_images", lambda m, x: m.pad_images(x, 1, 2, 0, 1)),
    ("crop_images", lambda m, x: m.crop_images(x, 1, 2, 0, 1)),
]


@pytest.mark.parametrize("dtype", ["uint8", "int32", "float16"])
@pytest.mark.parametrize("call", [pytest.param(c, id=i) for i, c in DTYPE_CASES])
def test_integer_and_half_images_match_keras(call, dtype):
    keras = pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    x = (IMG * 250).astype(dtype)
    want = np.asarray(keras.ops.convert_to_numpy(call(keras.ops.image, x)))
    got = call(I, x).numpy()
    assert got.dtype == want.dtype and got.shape == want.shape
    if dtype == "float16":  # (TF's projective transform of half images computes in float32)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=2e-3, atol=0.25)
    else:
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name", I.__all__)
def test_signatures_are_keras(name):
    import inspect

    keras = pytest.importorskip("keras")
    theirs = inspect.signature(getattr(keras.ops.image, name)).parameters
    ours = inspect.signature(getattr(I, name)).parameters
    assert [(p.name, p.default) for p in ours.values()] == [(p.name, p.default) for p in theirs.values()]
