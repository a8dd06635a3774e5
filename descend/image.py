"""``descend.image``: ``tf.image``'s deterministic image functions on NHWC (or HWC) float tensors, as
compositions of descend's ops (so differentiable where TF's are).

``resize`` supports ``"bilinear"`` and ``"nearest"`` with TensorFlow 2's half-pixel centres (no
antialiasing). Random augmentations and the JPEG/PNG codecs are not here.

Example:
    >>> import descend as ds
    >>> ds.image.resize(ds.ones((1, 2, 2, 3)), (4, 4)).shape
    (1, 4, 4, 3)
    >>> ds.image.flip_left_right(ds.constant([[[1.0], [2.0]]])).numpy().ravel().tolist()
    [2.0, 1.0]
"""

from __future__ import annotations

import math

import numpy as np

from . import backend
from .framework.tensor import Tensor, convert_to_tensor
from .ops import array_ops, math_ops, selection_ops

__all__ = ["flip_left_right", "flip_up_down", "rot90", "transpose", "resize", "central_crop",
           "crop_to_bounding_box", "pad_to_bounding_box", "resize_with_crop_or_pad", "rgb_to_grayscale",
           "grayscale_to_rgb", "adjust_brightness", "adjust_contrast", "adjust_gamma", "per_image_standardization",
           "convert_image_dtype", "image_gradients", "total_variation", "psnr", "ResizeMethod"]


class ResizeMethod:
    """The names of ``resize``'s methods (``tf.image.ResizeMethod``)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _image(x, owner: str):
    """``x`` as a tensor of rank 3 (HWC) or 4 (NHWC)."""
    x = convert_to_tensor(x)
    if x.ndim not in (3, 4):
        raise ValueError(f"{owner}: `image` must have rank 3 (HWC) or 4 (NHWC). Received shape {tuple(x.shape)}")
    return x


def _hw(x):
    """The axes of height and width."""
    return x.ndim - 3, x.ndim - 2


def flip_left_right(image):
    """The image mirrored left to right."""
    x = _image(image, "flip_left_right")
    return selection_ops.reverse(x, [_hw(x)[1]])


def flip_up_down(image):
    """The image mirrored top to bottom."""
    x = _image(image, "flip_up_down")
    return selection_ops.reverse(x, [_hw(x)[0]])


def transpose(image, name=None):
    """Height and width exchanged."""
    x = _image(image, "transpose")
    h, w = _hw(x)
    perm = list(range(x.ndim))
    perm[h], perm[w] = w, h
    return array_ops.transpose(x, perm=tuple(perm))


def rot90(image, k=1, name=None):
    """The image rotated counter-clockwise by ``k`` quarter turns."""
    x = _image(image, "rot90")
    for _ in range(int(k) % 4):  # one turn: mirror left-right, then transpose
        x = transpose(flip_left_right(x))
    return x


def _nearest_index(n_in: int, n_out: int) -> np.ndarray:
    """TF 2's nearest neighbour with half-pixel centres: ``floor((i + 0.5) * n_in / n_out)``, clamped."""
    scale = n_in / n_out
    return np.minimum(np.floor((np.arange(n_out) + 0.5) * scale).astype(np.int64), n_in - 1)


def resize(images, size, method="bilinear", preserve_aspect_ratio=False, antialias=False, name=None):
    """The images resized to ``size = (height, width)`` (``tf.image.resize``; ``"bilinear"`` or
    ``"nearest"``, half-pixel centres). Integer images come back as float32, as TF's."""
    from .layers.spatial_reshaping import bilinear_matrix

    x = _image(images, "resize")
    if antialias:
        raise ValueError("resize: antialias=True is not supported")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"resize: method must be 'bilinear' or 'nearest'. Received: {method!r}")
    if x.dtype.kind != "f":
        x = math_ops.cast(x, "float32")
    h_axis, w_axis = _hw(x)
    oh, ow = (int(s) for s in size)
    if preserve_aspect_ratio:
        scale = min(oh / x.shape[h_axis], ow / x.shape[w_axis])
        oh, ow = int(round(x.shape[h_axis] * scale)), int(round(x.shape[w_axis] * scale))
    for axis, n_out in ((h_axis, oh), (w_axis, ow)):
        n_in = x.shape[axis]
        if n_in == n_out:
            continue
        if method == "nearest":
            x = array_ops.gather(x, Tensor(_nearest_index(n_in, n_out)), axis=axis)
        else:
            mat = Tensor(bilinear_matrix(n_in, n_out, x.dtype.dtype))
            letters = "abcd"[:x.ndim]
            out = letters.replace(letters[axis], "z")
            x = math_ops.einsum(f"z{letters[axis]},{letters}->{out}", mat, x)
    return x


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The ``target_height`` x ``target_width`` block starting at ``(offset_height, offset_width)``."""
    x = _image(image, "crop_to_bounding_box")
    h, w = _hw(x)
    if offset_height < 0 or offset_width < 0 or offset_height + target_height > x.shape[h] or \
            offset_width + target_width > x.shape[w] or target_height <= 0 or target_width <= 0:
        raise ValueError(f"crop_to_bounding_box: the box ({offset_height}, {offset_width}, {target_height}, "
                         f"{target_width}) does not fit the image of height {x.shape[h]} and width {x.shape[w]}")
    key = [slice(None)] * x.ndim
    key[h] = slice(int(offset_height), int(offset_height + target_height))
    key[w] = slice(int(offset_width), int(offset_width + target_width))
    return array_ops.getitem(x, tuple(key))


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The image placed at ``(offset_height, offset_width)`` on a zero canvas of the target size."""
    x = _image(image, "pad_to_bounding_box")
    h, w = _hw(x)
    below = target_height - offset_height - x.shape[h]
    right = target_width - offset_width - x.shape[w]
    if offset_height < 0 or offset_width < 0 or below < 0 or right < 0:
        raise ValueError(f"pad_to_bounding_box: the image of height {x.shape[h]} and width {x.shape[w]} at "
                         f"({offset_height}, {offset_width}) does not fit {target_height} x {target_width}")
    widths = [[0, 0] for _ in range(x.ndim)]
    widths[h], widths[w] = [int(offset_height), int(below)], [int(offset_width), int(right)]
    return array_ops.pad(x, widths)


def resize_with_crop_or_pad(image, target_height, target_width):
    """The image centrally cropped or zero-padded to the target size (``tf.image.resize_with_crop_or_pad``)."""
    x = _image(image, "resize_with_crop_or_pad")
    h, w = _hw(x)
    H, W = x.shape[h], x.shape[w]  # noqa: N806
    # crop: offset (size - target) // 2 ; pad: offset (target - size) // 2
    crop_h, crop_w = max((H - target_height) // 2, 0), max((W - target_width) // 2, 0)
    x = crop_to_bounding_box(x, crop_h, crop_w, min(H, target_height), min(W, target_width))
    pad_h, pad_w = max((target_height - H) // 2, 0), max((target_width - W) // 2, 0)
    return pad_to_bounding_box(x, pad_h, pad_w, target_height, target_width)


def central_crop(image, central_fraction):
    """The central ``central_fraction`` of the image's height and width (``tf.image.central_crop``)."""
    x = _image(image, "central_crop")
    if not 0.0 < central_fraction <= 1.0:
        raise ValueError(f"central_fraction must be within (0, 1]. Received: {central_fraction}")
    if central_fraction == 1.0:
        return x
    h, w = _hw(x)
    H, W = x.shape[h], x.shape[w]  # noqa: N806
    start_h = int((H - H * central_fraction) / 2)
    start_w = int((W - W * central_fraction) / 2)
    return crop_to_bounding_box(x, start_h, start_w, H - 2 * start_h, W - 2 * start_w)


_GRAY = (0.2989, 0.5870, 0.1140)


def rgb_to_grayscale(images, name=None):
    """``0.2989 R + 0.587 G + 0.114 B`` on a last axis of size 1."""
    x = convert_to_tensor(images)
    weights = Tensor(np.asarray(_GRAY, x.dtype.dtype if x.dtype.kind == "f" else np.float32))
    xf = x if x.dtype.kind == "f" else math_ops.cast(x, "float32")
    gray = math_ops.reduce_sum(math_ops.multiply(xf, weights), axis=-1, keepdims=True)
    return gray if x.dtype.kind == "f" else math_ops.cast(math_ops.round(gray), x.dtype)


def grayscale_to_rgb(images, name=None):
    """The single channel repeated three times."""
    x = convert_to_tensor(images)
    return array_ops.tile(x, [1] * (x.ndim - 1) + [3])


def adjust_brightness(image, delta):
    """``image + delta``."""
    x = convert_to_tensor(image)
    return math_ops.add(x, convert_to_tensor(delta, dtype=x.dtype))


def adjust_contrast(images, contrast_factor):
    """``(x - mean) * factor + mean``, the mean of each image and channel over height and width."""
    x = _image(images, "adjust_contrast")
    mean = math_ops.reduce_mean(x, axis=_hw(x), keepdims=True)
    return math_ops.add(math_ops.multiply(math_ops.subtract(x, mean), float(contrast_factor)), mean)


def adjust_gamma(image, gamma=1, gain=1):
    """``gain * image ** gamma``."""
    x = convert_to_tensor(image)
    return math_ops.multiply(math_ops.pow(x, convert_to_tensor(float(gamma), dtype=x.dtype)), float(gain))


def per_image_standardization(image):
    """``(x - mean) / max(stddev, 1 / sqrt(N))`` of each image (``tf.image.per_image_standardization``)."""
    x = _image(image, "per_image_standardization")
    if x.dtype.kind != "f":
        x = math_ops.cast(x, "float32")
    axes = tuple(range(x.ndim - 3, x.ndim))
    n = x.shape[-1] * x.shape[-2] * x.shape[-3]
    mean = math_ops.reduce_mean(x, axis=axes, keepdims=True)
    std = math_ops.sqrt(math_ops.reduce_mean(math_ops.squared_difference(x, mean), axis=axes, keepdims=True))
    return math_ops.divide(math_ops.subtract(x, mean), math_ops.maximum(std, 1.0 / math.sqrt(n)))


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Between float images in [0, 1] and integer images in [0, max]: ints scale to ``x / max``, floats to
    ``x * (max + 0.5)`` truncated (as ``tf.image.convert_image_dtype``); float to float is a cast."""
    x = convert_to_tensor(image)
    target = np.dtype(backend.np_dtype(dtype))
    src = x.dtype.dtype
    if src == target:
        return x
    if src.kind == "f" and target.kind == "f":
        return math_ops.cast(x, target.name)
    if src.kind in "iu" and target.kind == "f":
        return math_ops.divide(math_ops.cast(x, target.name), float(np.iinfo(src).max))
    if src.kind == "f" and target.kind in "iu":
        scaled = x.numpy().astype(np.float64) * (np.iinfo(target).max + 0.5)
        if saturate:
            scaled = np.clip(scaled, np.iinfo(target).min, np.iinfo(target).max)
        return Tensor(scaled.astype(target))
    # int to int: shift by the difference of bit widths
    a = x.numpy().astype(np.int64)
    shift = (np.iinfo(target).bits - (1 if target.kind == "i" else 0)) - (np.iinfo(src).bits - (1 if src.kind == "i"
                                                                                                 else 0))
    return Tensor((a << shift if shift > 0 else a >> -shift).astype(target))


def image_gradients(image):
    """``(dy, dx)``: the differences to the next row and column, 0 in the last row and column."""
    x = convert_to_tensor(image)
    if x.ndim != 4:
        raise ValueError(f"image_gradients expects a 4-D tensor (NHWC). Received shape {tuple(x.shape)}")
    dy = math_ops.subtract(x[:, 1:], x[:, :-1])
    dx = math_ops.subtract(x[:, :, 1:], x[:, :, :-1])
    dy = array_ops.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = array_ops.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


def total_variation(images, name=None):
    """The sum of the absolute differences of neighbouring pixels, per image."""
    x = _image(images, "total_variation")
    h, w = _hw(x)
    axes = tuple(range(x.ndim - 3, x.ndim))
    key_h0, key_h1 = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    key_h0[h], key_h1[h] = slice(1, None), slice(None, -1)
    key_w0, key_w1 = [slice(None)] * x.ndim, [slice(None)] * x.ndim
    key_w0[w], key_w1[w] = slice(1, None), slice(None, -1)
    dh = math_ops.abs(math_ops.subtract(x[tuple(key_h0)], x[tuple(key_h1)]))
    dw = math_ops.abs(math_ops.subtract(x[tuple(key_w0)], x[tuple(key_w1)]))
    return math_ops.add(math_ops.reduce_sum(dh, axis=axes), math_ops.reduce_sum(dw, axis=axes))


def psnr(a, b, max_val, name=None):
    """The peak signal-to-noise ratio of each image pair, in dB: ``20 log10(max_val) - 10 log10(mse)``."""
    x, y = convert_to_tensor(a), convert_to_tensor(b)
    if x.dtype.kind != "f":
        x, y = math_ops.cast(x, "float32"), math_ops.cast(y, "float32")
    mse = math_ops.reduce_mean(math_ops.squared_difference(x, y), axis=(-3, -2, -1))
    log10 = math.log(10.0)
    return math_ops.subtract(20.0 * math.log10(float(max_val)), math_ops.multiply(math_ops.log(mse), 10.0 / log10))
