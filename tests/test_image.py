"""``descend.image`` against ``tf.image``: forward values and gradients (table-driven), float64 numerical
gradient checks, the random ops' contracts, and a table of bad inputs.

The TensorFlow comparisons skip without TensorFlow (``pytest.importorskip``, the project's mechanism).
Every case calls the same name with the same arguments on ``ds.image`` and ``tf.image``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import descend as ds
from descend.image.transform import affine_transform_array
from descend.testing import check_gradients

RNG = np.random.default_rng(7)
IMG = RNG.random((2, 7, 9, 3)).astype(np.float32)  # a batch
IMG3 = RNG.random((6, 5, 3)).astype(np.float32)  # one image
BIG = RNG.random((1, 16, 18, 2)).astype(np.float32)
U8 = RNG.integers(0, 256, (2, 5, 6, 3)).astype(np.uint8)
HSV = np.stack([RNG.random((4, 5)), RNG.random((4, 5)), RNG.random((4, 5))], -1).astype(np.float32)[None]
GRAY = RNG.random((3, 4, 1)).astype(np.float32)
BOXES = np.array([[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], [0, 10.1, 1, 11.1],
                  [0, 100, 1, 101]], np.float32)
SCORES = np.array([0.9, 0.75, 0.6, 0.95, 0.5, 0.3], np.float32)

MS = RNG.random((2, 40, 38, 2)).astype(np.float32)
OVERLAPS = RNG.random((6, 6)).astype(np.float32)
CBOXES = np.sort(RNG.random((2, 8, 3, 4)).astype(np.float32) * 1.2 - 0.1, axis=-1)[..., [0, 1, 2, 3]]
CSCORES = RNG.permutation(2 * 8 * 3).reshape(2, 8, 3).astype(np.float32) / 48.0

# name: the case id; fn: the name in ds.image / tf.image; args: arrays (float ones differentiated when grad);
# kwargs: the same keywords for both; tol: (rtol, atol) of the forward; grad: compare gradients with TF's
C = namedtuple("C", "name fn args kwargs tol grad", defaults=({}, (0, 0), True))
EXACT = (0, 0)
F32 = (1e-5, 1e-6)


def _resize_cases():
    cases = []
    for method, tol in (("bilinear", EXACT), ("nearest", EXACT), ("bicubic", (2e-6, 2e-6)), ("area", F32),
                        ("lanczos3", F32), ("lanczos5", F32), ("gaussian", F32), ("mitchellcubic", F32)):
        for size in ((13, 17), (3, 4), (5, 20), (7, 9)):
            cases.append(C(f"resize-{method}-{size[0]}x{size[1]}", "resize", [IMG], dict(size=size, method=method),
                           tol))
        cases.append(C(f"resize-{method}-antialias-down", "resize", [BIG], dict(size=(5, 7), method=method,
                                                                                 antialias=True), F32))
    cases += [
        C("resize-3d-bilinear", "resize", [IMG3], dict(size=(11, 4))),
        C("resize-preserve-aspect", "resize", [IMG], dict(size=(20, 20), preserve_aspect_ratio=True)),
        C("resize-preserve-aspect-down", "resize", [BIG], dict(size=(6, 100), preserve_aspect_ratio=True,
                                                               method="area"), F32),
        C("resize-uint8-bilinear", "resize", [U8], dict(size=(9, 4)), EXACT, False),
        C("resize-uint8-nearest", "resize", [U8], dict(size=(9, 4), method="nearest"), EXACT, False),
        C("resize-bicubic-antialias-up", "resize", [IMG], dict(size=(10, 12), method="bicubic", antialias=True), F32),
    ]
    return cases


CASES = _resize_cases() + [
    # dtype conversion
    C("convert-u8-f32", "convert_image_dtype", [U8], dict(dtype="float32"), EXACT, False),
    C("convert-f32-u8", "convert_image_dtype", [IMG], dict(dtype="uint8"), EXACT, False),
    C("convert-f32-u8-saturate", "convert_image_dtype", [IMG * 1.5 - 0.2], dict(dtype="uint8", saturate=True),
      EXACT, False),
    C("convert-u8-i32", "convert_image_dtype", [U8], dict(dtype="int32"), EXACT, False),
    C("convert-i32-u8", "convert_image_dtype", [U8.astype(np.int32) * 2**23], dict(dtype="uint8"), EXACT, False),
    C("convert-u16-u8", "convert_image_dtype", [U8.astype(np.uint16) * 257], dict(dtype="uint8"), EXACT, False),
    C("convert-f32-f16", "convert_image_dtype", [IMG], dict(dtype="float16"), EXACT, False),
    C("convert-f32-i16", "convert_image_dtype", [IMG], dict(dtype="int16"), EXACT, False),
    # geometry
    C("flip_left_right-4d", "flip_left_right", [IMG]),
    C("flip_left_right-3d", "flip_left_right", [IMG3]),
    C("flip_up_down-4d", "flip_up_down", [IMG]),
    C("flip_up_down-3d", "flip_up_down", [IMG3]),
    C("transpose-4d", "transpose", [IMG]),
    C("transpose-3d", "transpose", [IMG3]),
] + [C(f"rot90-k{k}-{r}d", "rot90", [x], dict(k=k)) for k in (0, 1, 2, 3, -1, 5) for r, x in ((3, IMG3), (4, IMG))] + [
    C("central_crop-0.5", "central_crop", [IMG], dict(central_fraction=0.5)),
    C("central_crop-0.33-3d", "central_crop", [IMG3], dict(central_fraction=0.33)),
    C("central_crop-1", "central_crop", [IMG], dict(central_fraction=1.0)),
    C("crop_to_bounding_box", "crop_to_bounding_box", [IMG], dict(offset_height=1, offset_width=2, target_height=4,
                                                                  target_width=5)),
    C("pad_to_bounding_box", "pad_to_bounding_box", [IMG3], dict(offset_height=2, offset_width=1, target_height=9,
                                                                 target_width=8)),
    C("resize_with_crop_or_pad-larger", "resize_with_crop_or_pad", [IMG], dict(target_height=10, target_width=12)),
    C("resize_with_crop_or_pad-smaller", "resize_with_crop_or_pad", [IMG], dict(target_height=4, target_width=3)),
    C("resize_with_crop_or_pad-mixed", "resize_with_crop_or_pad", [IMG3], dict(target_height=3, target_width=8)),
    C("resize_with_pad-wide", "resize_with_pad", [IMG], dict(target_height=12, target_width=8)),
    C("resize_with_pad-nearest", "resize_with_pad", [IMG3], dict(target_height=5, target_width=11,
                                                                 method="nearest")),
    C("extract_patches-valid", "extract_patches", [BIG], dict(sizes=[1, 3, 2, 1], strides=[1, 2, 3, 1],
                                                              rates=[1, 1, 1, 1], padding="VALID")),
    C("extract_patches-same-rates", "extract_patches", [BIG], dict(sizes=[1, 3, 3, 1], strides=[1, 3, 2, 1],
                                                                   rates=[1, 2, 1, 1], padding="SAME")),
    # colour
    C("adjust_brightness", "adjust_brightness", [IMG], dict(delta=0.2)),
    C("adjust_brightness-u8", "adjust_brightness", [U8], dict(delta=-0.3), EXACT, False),
    C("adjust_contrast", "adjust_contrast", [IMG], dict(contrast_factor=1.7), F32),
    C("adjust_contrast-u8", "adjust_contrast", [U8], dict(contrast_factor=0.6), (0, 1), False),
    C("adjust_gamma", "adjust_gamma", [IMG], dict(gamma=0.7, gain=1.3), F32),
    C("adjust_gamma-u8", "adjust_gamma", [U8], dict(gamma=2.0), (0, 1), False),
    C("adjust_saturation-down", "adjust_saturation", [IMG], dict(saturation_factor=0.4), F32, False),
    C("adjust_saturation-up", "adjust_saturation", [IMG3], dict(saturation_factor=2.5), F32, False),
    C("adjust_saturation-u8", "adjust_saturation", [U8], dict(saturation_factor=1.5), (0, 1), False),
    C("adjust_hue", "adjust_hue", [IMG], dict(delta=0.2), F32, False),
    C("adjust_hue-negative", "adjust_hue", [IMG3], dict(delta=-0.45), F32, False),
    C("adjust_hue-u8", "adjust_hue", [U8], dict(delta=0.1), (0, 1), False),
    C("rgb_to_grayscale", "rgb_to_grayscale", [IMG], {}, F32),
    C("rgb_to_grayscale-u8", "rgb_to_grayscale", [U8], {}, (0, 1), False),
    C("grayscale_to_rgb", "grayscale_to_rgb", [GRAY]),
    C("rgb_to_hsv", "rgb_to_hsv", [IMG], {}, F32),
    C("hsv_to_rgb", "hsv_to_rgb", [HSV], {}, F32),
    C("rgb_to_yiq", "rgb_to_yiq", [IMG], {}, F32),
    C("yiq_to_rgb", "yiq_to_rgb", [IMG], {}, F32),
    C("rgb_to_yuv", "rgb_to_yuv", [IMG], {}, F32),
    C("yuv_to_rgb", "yuv_to_rgb", [IMG], {}, F32),
    C("per_image_standardization", "per_image_standardization", [IMG], {}, F32),
    C("per_image_standardization-3d", "per_image_standardization", [IMG3], {}, F32),
    C("per_image_standardization-u8", "per_image_standardization", [U8], {}, F32, False),
    # differences and quality
    C("image_gradients", "image_gradients", [IMG]),
    C("sobel_edges", "sobel_edges", [IMG], {}, F32),
    C("total_variation-4d", "total_variation", [IMG], {}, F32),
    C("total_variation-3d", "total_variation", [IMG3], {}, F32),
    C("psnr", "psnr", [IMG, IMG[::-1].copy()], dict(max_val=1.0), F32),
    C("psnr-u8", "psnr", [U8, U8[::-1].copy()], dict(max_val=255), F32, False),
    C("ssim", "ssim", [BIG, np.clip(BIG + 0.1 * RNG.standard_normal(BIG.shape), 0, 1).astype(np.float32)],
      dict(max_val=1.0), (1e-4, 1e-5)),
    C("ssim-small-filter", "ssim", [IMG, IMG[::-1].copy()], dict(max_val=1.0, filter_size=5, filter_sigma=0.8),
      (1e-4, 1e-5)),
    C("ssim-index-map", "ssim", [BIG, BIG[:, ::-1].copy()], dict(max_val=1.0, return_index_map=True), (1e-4, 1e-5)),
    C("ssim-u8", "ssim", [U8[:, :, :5], U8[::-1, :, :5].copy()], dict(max_val=255, filter_size=3), (1e-4, 1e-5), False),
    # boxes (indices: no gradient)
    C("non_max_suppression", "non_max_suppression", [BOXES, SCORES], dict(max_output_size=4), EXACT, False),
    C("non_max_suppression-threshold", "non_max_suppression", [BOXES, SCORES],
      dict(max_output_size=6, iou_threshold=0.7, score_threshold=0.4), EXACT, False),
    C("non_max_suppression_with_scores-soft", "non_max_suppression_with_scores", [BOXES, SCORES],
      dict(max_output_size=6, iou_threshold=1.0, soft_nms_sigma=0.5), F32, False),
    C("non_max_suppression_padded", "non_max_suppression_padded", [BOXES, SCORES],
      dict(max_output_size=5, pad_to_max_output_size=True), EXACT, False),
    C("ssim_multiscale", "ssim_multiscale", [MS, np.clip(MS + 0.05 * RNG.standard_normal(MS.shape), 0, 1)
                                              .astype(np.float32)],
      dict(max_val=1.0, power_factors=(0.2, 0.3, 0.5), filter_size=3), (1e-4, 1e-5)),
    C("ssim_multiscale-odd", "ssim_multiscale", [MS[:, :37, :35], MS[:, 3:40, 2:37].copy()],
      dict(max_val=1.0, power_factors=(0.1, 0.2, 0.3, 0.4), filter_size=2, filter_sigma=0.7), (1e-4, 1e-5),
      False),  # TF's gradient is NaN here (a relu'd zero term to a fractional power); descend's is 0
    C("non_max_suppression_overlaps", "non_max_suppression_overlaps", [OVERLAPS, SCORES],
      dict(max_output_size=5, overlap_threshold=0.4, score_threshold=0.35), EXACT, False),
    C("combined_non_max_suppression", "combined_non_max_suppression", [CBOXES, CSCORES],
      dict(max_output_size_per_class=3, max_total_size=5, iou_threshold=0.5, score_threshold=0.1), F32, False),
    C("combined_non_max_suppression-per-class", "combined_non_max_suppression", [CBOXES[:, :, :1].copy(), CSCORES],
      dict(max_output_size_per_class=2, max_total_size=10, pad_per_class=True, clip_boxes=False), F32, False),
    C("sample_distorted_bounding_box-whole", "sample_distorted_bounding_box", [np.array([12, 20, 3], np.int32)],
      dict(bounding_boxes=np.array([[[0.1, 0.1, 0.5, 0.5]]], np.float32), area_range=(1.0, 1.0),
           aspect_ratio_range=(1.6, 1.7), seed=3), EXACT, False),
    C("sample_distorted_bounding_box-fallback", "sample_distorted_bounding_box", [np.array([12, 20, 3], np.int32)],
      dict(bounding_boxes=np.array([[[0.1, 0.1, 0.5, 0.5]]], np.float32), area_range=(0.9, 1.0),
           aspect_ratio_range=(0.1, 0.11), max_attempts=5, seed=3), EXACT, False),
    C("stateless_sample_distorted_bounding_box-whole", "stateless_sample_distorted_bounding_box",
      [np.array([12, 20, 3], np.int32)], dict(bounding_boxes=np.array([[[0.1, 0.1, 0.5, 0.5]]], np.float32),
                                              area_range=(1.0, 1.0), aspect_ratio_range=(1.6, 1.7), seed=[1, 2]),
      EXACT, False),
    C("crop_and_resize", "crop_and_resize", [BIG],
      dict(boxes=np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.6, 0.1, 0.0], [-0.2, -0.1, 1.2, 0.7]], np.float32),
           box_indices=[0, 0, 0], crop_size=(5, 4)), F32),
    C("crop_and_resize-nearest", "crop_and_resize", [BIG],
      dict(boxes=np.array([[0.1, 0.2, 0.8, 0.9]], np.float32), box_indices=[0], crop_size=(3, 6), method="nearest"),
      EXACT, False),
    C("crop_and_resize-nearest-halves", "crop_and_resize", [BIG],  # source coordinates at exact halves
      dict(boxes=np.array([[0.5 / 15, 2.5 / 17, 14.5 / 15, 16.5 / 17]], np.float32), box_indices=[0],
           crop_size=(8, 8), method="nearest"), EXACT, False),
    C("draw_bounding_boxes", "draw_bounding_boxes", [IMG],
      dict(boxes=np.array([[[0.1, 0.2, 0.8, 0.9]], [[0.0, 0.0, 0.5, 1.0]]], np.float32),
           colors=np.array([[1.0, 0.0, 0.0, 1.0]], np.float32)), EXACT, False),
]


def _outs(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


def _np(v):
    return np.asarray(v.numpy() if hasattr(v, "numpy") else v)


@pytest.fixture(scope="module")
def tf():
    return pytest.importorskip("tensorflow")


def test_case_names_are_unique():
    names = [c.name for c in CASES]
    assert len(names) == len(set(names)), sorted({n for n in names if names.count(n) > 1})


#: bytes in or out, no gradient: tests/test_image_codecs.py compares them with TF
CODECS = ("decode_bmp", "decode_gif", "decode_image", "decode_png", "encode_png", "extract_jpeg_shape", "is_jpeg")


def test_every_public_name_has_a_tensorflow_case():
    random_ones = {n for n in ds.image.__all__ if "random" in n}  # contracts tested below: TF's draws differ
    covered = {c.fn for c in CASES} | random_ones | {"ResizeMethod"} | {"affine_transform"}  # vs Keras below
    covered |= set(CODECS)  # the file codecs: compared with TF in tests/test_image_codecs.py
    missing = sorted(set(ds.image.__all__) - covered)
    assert not missing, f"ds.image names without a case: {missing}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_forward_matches_tensorflow(case, tf):
    got = _outs(getattr(ds.image, case.fn)(*case.args, **case.kwargs))
    want = _outs(getattr(tf.image, case.fn)(*[tf.constant(a) for a in case.args], **case.kwargs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = _np(g), _np(w)
        assert g.shape == w.shape, f"{case.name}: shape {g.shape}, TF {w.shape}"
        assert g.dtype == w.dtype, f"{case.name}: dtype {g.dtype}, TF {w.dtype}"
        rtol, atol = case.tol
        if g.dtype.kind == "f" and rtol == 0 and atol == 0:
            assert np.array_equal(g, w), f"{case.name}: not bit-exact; max diff {np.max(np.abs(g - w)):.3g}"
        else:
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=rtol, atol=atol,
                                       err_msg=case.name)


GRAD_CASES = [c for c in CASES if c.grad and c.args[0].dtype.kind == "f"]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c.name for c in GRAD_CASES])
def test_gradient_matches_tensorflow(case, tf):
    float_args = [i for i, a in enumerate(case.args) if a.dtype.kind == "f"]
    outs = _outs(getattr(ds.image, case.fn)(*case.args, **case.kwargs))
    weights = [np.random.default_rng(1).standard_normal(_np(o).shape).astype(np.float32) for o in outs]

    def grads(lib, const, tape_cls, watch):
        xs = [const(a) for a in case.args]
        with tape_cls() as tape:
            for i in float_args:
                watch(tape, xs[i])
            ys = _outs(getattr(lib.image, case.fn)(*xs, **case.kwargs))
            total = sum(lib.reduce_sum(y * w) for y, w in zip(ys, weights))
        return tape.gradient(total, [xs[i] for i in float_args])

    got = grads(ds, ds.constant, ds.GradientTape, lambda t, x: t.watch(x))
    try:
        want = grads(tf, tf.constant, tf.GradientTape, lambda t, x: t.watch(x))
    except LookupError as e:  # TF has no gradient for this op
        pytest.skip(f"TensorFlow has no gradient here: {e}")
    for g, w in zip(got, want):
        if w is None:
            continue
        np.testing.assert_allclose(_np(g), _np(tf.convert_to_tensor(w)), rtol=1e-4, atol=2e-5, err_msg=case.name)


# ---------------------------------------------------------------- float64 numerical gradients (no TF needed)
D = RNG.random((1, 5, 6, 3)) * 0.8 + 0.1
D3 = RNG.random((4, 5, 3)) * 0.8 + 0.1
# distinct channel values away from ties so that HSV's branches are smooth around the point
DC = np.stack([D[..., 0] * 0.3 + 0.6, D[..., 1] * 0.2 + 0.3, D[..., 2] * 0.2], -1)
G = namedtuple("G", "name fn args")
I = ds.image
GRAD64 = [
    G(f"resize-{m}-{s}", (lambda m, s, a: lambda x: I.resize(x, s, method=m, antialias=a))(m, s, a), [D])
    for m in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "gaussian", "mitchellcubic")
    for s, a in (((9, 4), False), ((3, 4), True))
] + [
    G("convert_image_dtype-f64-f64", lambda x: I.convert_image_dtype(x, "float64") * 2.0, [D]),
    G("flip_left_right", I.flip_left_right, [D]),
    G("flip_up_down", I.flip_up_down, [D3]),
    G("rot90", lambda x: I.rot90(x, 3), [D]),
    G("transpose", I.transpose, [D3]),
    G("central_crop", lambda x: I.central_crop(x, 0.6), [D]),
    G("crop_to_bounding_box", lambda x: I.crop_to_bounding_box(x, 1, 1, 3, 4), [D]),
    G("pad_to_bounding_box", lambda x: I.pad_to_bounding_box(x, 1, 2, 7, 9), [D]),
    G("resize_with_crop_or_pad", lambda x: I.resize_with_crop_or_pad(x, 3, 9), [D]),
    G("resize_with_pad", lambda x: I.resize_with_pad(x, 8, 8), [D]),
    G("crop_and_resize", lambda x: I.crop_and_resize(x, [[0.1, 0.13, 0.77, 0.9]], [0], (3, 3)), [D]),
    G("extract_patches", lambda x: I.extract_patches(x, [1, 2, 3, 1], [1, 1, 2, 1], [1, 2, 1, 1], "SAME"), [D]),
    G("adjust_brightness", lambda x: I.adjust_brightness(x, 0.1), [D]),
    G("adjust_contrast", lambda x: I.adjust_contrast(x, 1.8), [D]),
    G("adjust_gamma", lambda x: I.adjust_gamma(x, 0.6, 1.2), [D]),
    G("adjust_saturation", lambda x: I.adjust_saturation(x, 0.7), [DC]),
    G("adjust_hue", lambda x: I.adjust_hue(x, 0.12), [DC]),
    G("rgb_to_grayscale", I.rgb_to_grayscale, [D]),
    G("grayscale_to_rgb", I.grayscale_to_rgb, [D[..., :1]]),
    G("rgb_to_hsv", I.rgb_to_hsv, [DC]),
    G("hsv_to_rgb", I.hsv_to_rgb, [np.stack([D[..., 0] * 0.9 + 0.02, D[..., 1], D[..., 2]], -1)]),
    G("rgb_to_yiq", I.rgb_to_yiq, [D]),
    G("yiq_to_rgb", I.yiq_to_rgb, [D]),
    G("rgb_to_yuv", I.rgb_to_yuv, [D]),
    G("yuv_to_rgb", I.yuv_to_rgb, [D]),
    G("per_image_standardization", I.per_image_standardization, [D]),
    G("image_gradients", lambda x: list(I.image_gradients(x)), [D]),
    G("sobel_edges", I.sobel_edges, [D]),
    G("total_variation", I.total_variation, [D]),
    G("affine_transform", lambda x: I.affine_transform(x, [1.1, 0.3, -1.3, -0.2, 0.9, 1.7, 0.01, -0.02],
                                                       fill_mode="reflect"), [D]),
    G("affine_transform-nearest", lambda x: I.affine_transform(x, [0.7, 0.1, 0.2, 0.1, 1.2, -0.4, 0, 0],
                                                               interpolation="nearest", fill_mode="wrap"), [D]),
    G("ssim_multiscale", lambda a, b: I.ssim_multiscale(a, b, 1.0, power_factors=(0.3, 0.7), filter_size=2),
      [np.tile(D, (1, 2, 2, 1)), np.tile(D[:, ::-1], (1, 2, 2, 1))]),
    G("psnr", lambda a, b: I.psnr(a, b, 1.0), [D, D[:, ::-1].copy()]),
    G("ssim", lambda a, b: I.ssim(a, b, 1.0, filter_size=3), [D, D[:, :, ::-1].copy()]),
]


@pytest.mark.parametrize("case", GRAD64, ids=[g.name for g in GRAD64])
def test_float64_gradient_matches_central_differences(case):
    out = _outs(case.fn(*[ds.constant(a) for a in case.args]))
    assert all(o.dtype == np.float64 for o in out), f"{case.name}: float64 in, {[o.dtype for o in out]} out"
    err = check_gradients(case.fn, *case.args)
    assert err < 1e-5, f"{case.name}: relative error {err:.3g} between tape and central differences"


def test_every_differentiable_name_has_a_float64_gradient_case():
    not_differentiable = {"ResizeMethod", "non_max_suppression", "non_max_suppression_with_scores",
                          "non_max_suppression_padded", "draw_bounding_boxes", "non_max_suppression_overlaps",
                          "combined_non_max_suppression", "sample_distorted_bounding_box",
                          "stateless_sample_distorted_bounding_box"} | set(CODECS)
    names = {n for n in ds.image.__all__ if "random" not in n} - not_differentiable
    covered = {g.name.split("-")[0] for g in GRAD64}
    assert not (names - covered), f"differentiable ds.image names without a float64 gradient case: {names - covered}"


# ---------------------------------------------------------------- affine_transform against Keras (TF's kernel)
AFFINE = [(mode, interp, t) for mode in ("constant", "nearest", "wrap", "reflect") for interp in ("nearest", "bilinear")
          for t in ([1.1, 0.3, -2.5, -0.2, 0.9, 1.7, 0.01, -0.02], [0.5, 0, -9.5, 0, 2.0, -6.2, 0, 0],
                    [-1, 0, 8, 0, 1, 0, 0, 0], [1, 0, -7.3, 0, 1, 4.5, 0, 0])]


@pytest.mark.parametrize("mode,interp,t", AFFINE, ids=[f"{m}-{i}-{k % 4}" for k, (m, i, _) in enumerate(AFFINE)])
def test_affine_transform_matches_keras_bit_for_bit(mode, interp, t):
    keras = pytest.importorskip("keras", minversion="3")
    per_image = np.array([t, np.array(t) * 0.9], np.float32)
    for images, transform in ((IMG, per_image), (IMG3, np.array(t, np.float32))):
        got = ds.image.affine_transform(images, transform, interp, mode, 0.3).numpy()
        want = keras.ops.convert_to_numpy(keras.ops.image.affine_transform(images, transform, interp, mode, 0.3))
        assert got.dtype == want.dtype and np.array_equal(got, want), f"max diff {np.abs(got - want).max():.3g}"
        batch = images if images.ndim == 4 else images[None]
        array_form = affine_transform_array(batch, transform, interp, mode, 0.3)
        assert np.array_equal(array_form, want if images.ndim == 4 else want[None]), "the NumPy form differs"


# ---------------------------------------------------------------- random ops: contracts (TF's draws differ)
@pytest.mark.parametrize("fn,axis", [("random_flip_left_right", 2), ("random_flip_up_down", 1)])
def test_random_flip_flips_each_image_or_leaves_it(fn, axis):
    x = RNG.random((64, 3, 4, 1))
    out = getattr(ds.image, fn)(x, seed=3).numpy()
    flipped = np.flip(x, axis=axis)
    same = np.all(out == x, axis=(1, 2, 3))
    flip = np.all(out == flipped, axis=(1, 2, 3))
    assert np.all(same | flip)
    assert 10 < flip.sum() < 54, f"{flip.sum()} of 64 flipped"
    ds.random.set_seed(5)
    a = getattr(ds.image, fn)(x).numpy()
    ds.random.set_seed(5)
    assert np.array_equal(getattr(ds.image, fn)(x).numpy(), a), "a global seed must repeat the draws"


STATELESS = [
    ("stateless_random_flip_left_right", {}), ("stateless_random_flip_up_down", {}),
    ("stateless_random_crop", {"size": [1, 3, 4, 3]}), ("stateless_random_brightness", {"max_delta": 0.3}),
    ("stateless_random_contrast", {"lower": 0.2, "upper": 1.8}),
    ("stateless_random_saturation", {"lower": 0.2, "upper": 1.8}), ("stateless_random_hue", {"max_delta": 0.4}),
]


@pytest.mark.parametrize("fn,kw", STATELESS, ids=[s[0] for s in STATELESS])
def test_stateless_ops_depend_on_the_seed_alone(fn, kw):
    f = getattr(ds.image, fn)
    a = f(IMG, seed=(1, 2), **kw).numpy()
    assert np.array_equal(f(IMG, seed=(1, 2), **kw).numpy(), a)
    others = [f(IMG, seed=(s, 9), **kw).numpy() for s in range(6)]
    assert any(not np.array_equal(o, a) for o in others), "the seed must matter"


@pytest.mark.parametrize("fn,seeds", [("sample_distorted_bounding_box", [1, 2, 3, 4, 5, 6]),
                                      ("stateless_sample_distorted_bounding_box", [(i, 7) for i in range(6)])])
def test_sample_distorted_bounding_box_keeps_its_constraints(fn, seeds):
    f = getattr(ds.image, fn)
    boxes = np.array([[[0.2, 0.3, 0.9, 0.8]]], np.float32)
    windows = set()
    for s in seeds:
        begin, size, box = (t.numpy() for t in f([40, 60, 3], boxes, seed=s, min_object_covered=0.5,
                                                 aspect_ratio_range=(0.5, 2.0), area_range=(0.1, 0.6)))
        (y, x, _), (h, w, c) = begin, size
        assert c == -1 and 0 <= y and y + h <= 40 and 0 <= x and x + w <= 60
        assert 0.1 * 2400 <= h * w <= 0.6 * 2400 and 0.5 <= w / h <= 2.0 + 1 / h
        inter = max(min(y + h, 36) - max(y, 8), 0) * max(min(x + w, 48) - max(x, 18), 0)
        assert inter / (28 * 30) >= 0.5
        np.testing.assert_allclose(box[0, 0], [y / 40, x / 60, (y + h) / 40, (x + w) / 60], rtol=1e-6)
        windows.add((y, x, h, w))
    assert len(windows) > 2, "the window must be random"
    if fn.startswith("stateless"):
        again = f([40, 60, 3], boxes, seed=seeds[0], min_object_covered=0.5, aspect_ratio_range=(0.5, 2.0),
                  area_range=(0.1, 0.6))
        first = f([40, 60, 3], boxes, seed=seeds[0], min_object_covered=0.5, aspect_ratio_range=(0.5, 2.0),
                  area_range=(0.1, 0.6))
        assert all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(again, first))


def test_random_crop_is_a_window_of_the_input():
    x = np.arange(8 * 9 * 2, dtype=np.float64).reshape(8, 9, 2)
    seen = set()
    for s in range(30):
        out = ds.image.random_crop(x, [3, 4, 2], seed=s).numpy()
        r, c = np.argwhere(x[..., 0] == out[0, 0, 0])[0]
        assert np.array_equal(x[r:r + 3, c:c + 4], out)
        seen.add((r, c))
    assert len(seen) > 5


@pytest.mark.parametrize("fn,kw,check", [
    ("random_brightness", {"max_delta": 0.25}, lambda x, y: np.allclose(y - x, (y - x).flat[0], atol=1e-6)
     and abs((y - x).flat[0]) <= 0.25),
    ("random_contrast", {"lower": 0.5, "upper": 1.5}, lambda x, y: y.shape == x.shape),
    ("random_saturation", {"lower": 0.5, "upper": 1.5}, lambda x, y: y.shape == x.shape),
    ("random_hue", {"max_delta": 0.2}, lambda x, y: y.shape == x.shape),
])
def test_random_colour_jitters_apply_the_adjustment_with_a_drawn_factor(fn, kw, check):
    ys = [getattr(ds.image, fn)(IMG3, seed=s, **kw).numpy() for s in range(4)]
    assert all(check(IMG3, y) for y in ys)
    assert not all(np.array_equal(ys[0], y) for y in ys[1:]), "different seeds must draw different factors"


@pytest.mark.parametrize("call", [
    lambda x: ds.image.random_flip_left_right(x, seed=1), lambda x: ds.image.random_flip_up_down(x, seed=1),
    lambda x: ds.image.random_crop(x, [2, 3, 4, 3], seed=1), lambda x: ds.image.random_brightness(x, 0.3, seed=1),
    lambda x: ds.image.random_contrast(x, 0.2, 1.8, seed=1), lambda x: ds.image.random_saturation(x, 0.2, 1.8, seed=1),
    lambda x: ds.image.random_hue(x, 0.4, seed=1),
], ids=["flip_lr", "flip_ud", "crop", "brightness", "contrast", "saturation", "hue"])
def test_random_ops_in_a_compiled_function_draw_on_every_call(call):
    step = ds.function(call)
    outs = [step(ds.constant(IMG)).numpy() for _ in range(5)]
    assert any(not np.array_equal(outs[0], o) for o in outs[1:]), "the compiled function froze its first draw"


# ---------------------------------------------------------------- bad inputs
BAD = [
    ("resize-rank2", lambda: ds.image.resize(np.zeros((3, 3)), [2, 2]), ValueError, "rank 3 or 4"),
    ("resize-size3", lambda: ds.image.resize(IMG, [2, 2, 2]), ValueError, "'size' must be a 1-D sequence of 2"),
    ("resize-size-float", lambda: ds.image.resize(IMG, [2.5, 2]), ValueError, "'size'"),
    ("resize-size-zero", lambda: ds.image.resize(IMG, [0, 2]), ValueError, "positive"),
    ("resize-method", lambda: ds.image.resize(IMG, [2, 2], method="cubic"), ValueError, "unknown 'method'"),
    ("resize-string", lambda: ds.image.resize(np.array([[["a"]]]), [2, 2]), TypeError, "numeric"),
    ("convert-bool", lambda: ds.image.convert_image_dtype(IMG, "bool"), AttributeError, "floating point or integer"),
    ("crop-offset", lambda: ds.image.crop_to_bounding_box(IMG, -1, 0, 2, 2), ValueError, "offset_height must be >= 0"),
    ("crop-too-big", lambda: ds.image.crop_to_bounding_box(IMG, 5, 0, 3, 2), ValueError, "height must be >= target"),
    ("crop-target", lambda: ds.image.crop_to_bounding_box(IMG, 0, 0, 2, 0), ValueError, "target_width must be > 0"),
    ("pad-too-small", lambda: ds.image.pad_to_bounding_box(IMG, 0, 5, 9, 10), ValueError, "width must be <= target"),
    ("pad-float-offset", lambda: ds.image.pad_to_bounding_box(IMG, 0.5, 0, 9, 10), TypeError, "offset_height"),
    ("central-fraction", lambda: ds.image.central_crop(IMG, 0.0), ValueError, r"within \(0, 1\]"),
    ("crop-or-pad-target", lambda: ds.image.resize_with_crop_or_pad(IMG, 0, 3), ValueError, "must be > 0"),
    ("hsv-channels", lambda: ds.image.rgb_to_hsv(np.zeros((2, 2, 4), np.float32)), ValueError, "must be 3"),
    ("hsv-int", lambda: ds.image.rgb_to_hsv(U8), TypeError, "float image"),
    ("gray-channels", lambda: ds.image.grayscale_to_rgb(IMG), ValueError, "must be 1"),
    ("gamma-negative", lambda: ds.image.adjust_gamma(IMG, -1.0), ValueError, "non-negative"),
    ("hue-range", lambda: ds.image.adjust_hue(IMG, 1.5), ValueError, r"\[-1, 1\]"),
    ("contrast-rank", lambda: ds.image.adjust_contrast(np.zeros((2, 3)), 2.0), ValueError, "rank >= 3"),
    ("random_contrast-order", lambda: ds.image.random_contrast(IMG, 0.9, 0.5), ValueError, "upper must be > lower"),
    ("random_contrast-neg", lambda: ds.image.random_contrast(IMG, -0.5, 0.5), ValueError, "lower must be non-neg"),
    ("random_brightness-neg", lambda: ds.image.random_brightness(IMG, -0.1), ValueError, "non-negative"),
    ("random_hue-big", lambda: ds.image.random_hue(IMG, 0.6), ValueError, "<= 0.5"),
    ("random_crop-size", lambda: ds.image.random_crop(IMG, [1, 2, 3]), ValueError, "1-D list of 4 ints"),
    ("random_crop-large", lambda: ds.image.random_crop(IMG, [1, 20, 3, 3]), ValueError, "size <= shape"),
    ("stateless-seed", lambda: ds.image.stateless_random_flip_left_right(IMG, seed=3), ValueError, "pair of ints"),
    ("patches-sizes", lambda: ds.image.extract_patches(IMG, [2, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID"),
     ValueError, r"\[1, rows, cols, 1\]"),
    ("patches-padding", lambda: ds.image.extract_patches(IMG, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL"),
     ValueError, "'VALID' or 'SAME'"),
    ("gradients-rank", lambda: ds.image.image_gradients(IMG3), ValueError, "4D tensor"),
    ("psnr-shapes", lambda: ds.image.psnr(IMG, IMG[:1], 1.0), ValueError, "same shape"),
    ("ssim-small", lambda: ds.image.ssim(IMG, IMG, 1.0), ValueError, "at least filter_size"),
    ("nms-boxes", lambda: ds.image.non_max_suppression(BOXES[:, :3], SCORES, 3), ValueError, r"\[num_boxes, 4\]"),
    ("nms-scores", lambda: ds.image.non_max_suppression(BOXES, SCORES[:2], 3), ValueError, "'scores'"),
    ("nms-iou", lambda: ds.image.non_max_suppression(BOXES, SCORES, 3, iou_threshold=1.5), ValueError, r"\[0, 1\]"),
    ("affine-transform-shape", lambda: ds.image.affine_transform(IMG, [1, 0, 0, 0, 1, 0]), ValueError, r"\[8\]"),
    ("affine-fill-mode", lambda: ds.image.affine_transform(IMG, [1, 0, 0, 0, 1, 0, 0, 0], fill_mode="mirror"),
     ValueError, "fill_mode"),
    ("crop_and_resize-index", lambda: ds.image.crop_and_resize(BIG, [[0, 0, 1, 1]], [3], (2, 2)), ValueError,
     "box_indices"),
]


@pytest.mark.parametrize("name,call,exc,match", BAD, ids=[b[0] for b in BAD])
def test_bad_input_raises_a_clear_error(name, call, exc, match):
    with pytest.raises(exc, match=match):
        call()
