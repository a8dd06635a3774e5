"""``descend.image``: image ops as ``tf.image`` (resizing, crops, flips, colour, quality measures, boxes).

Images are ``[height, width, channels]`` or batches ``[batch, height, width, channels]``. The ops are
written with differentiable descend ops, so gradients flow through every op that is continuous in the
pixels (resizes, crops, pads, flips, colour transforms, ``ssim``, ``psnr``, ``total_variation``...).
Deliberate differences from TensorFlow are listed in docs/api.md (float64 stays float64; stateless
random ops are deterministic per seed but not TF's values; PNG, GIF and BMP files but no JPEG codec).

Example:
    >>> import descend as ds, numpy as np
    >>> img = np.zeros((4, 6, 3), np.float32)
    >>> ds.image.resize(img, [2, 3]).shape
    TensorShape([2, 3, 3])
    >>> ds.image.flip_left_right(img).shape
    TensorShape([4, 6, 3])
"""

from ._common import convert_image_dtype
from .boxes import (
    combined_non_max_suppression,
    draw_bounding_boxes,
    non_max_suppression,
    non_max_suppression_overlaps,
    non_max_suppression_padded,
    non_max_suppression_with_scores,
    sample_distorted_bounding_box,
    stateless_sample_distorted_bounding_box,
)
from .codecs import (
    decode_bmp,
    decode_gif,
    decode_image,
    decode_png,
    encode_png,
    extract_jpeg_shape,
    is_jpeg,
)
from .color import (
    adjust_brightness,
    adjust_contrast,
    adjust_gamma,
    adjust_hue,
    adjust_saturation,
    grayscale_to_rgb,
    hsv_to_rgb,
    per_image_standardization,
    rgb_to_grayscale,
    rgb_to_hsv,
    rgb_to_yiq,
    rgb_to_yuv,
    yiq_to_rgb,
    yuv_to_rgb,
)
from .geometry import (
    extract_patches,
    flip_left_right,
    flip_up_down,
    random_brightness,
    random_contrast,
    random_crop,
    random_flip_left_right,
    random_flip_up_down,
    random_hue,
    random_saturation,
    rot90,
    stateless_random_brightness,
    stateless_random_contrast,
    stateless_random_crop,
    stateless_random_flip_left_right,
    stateless_random_flip_up_down,
    stateless_random_hue,
    stateless_random_saturation,
    transpose,
)
from .metrics import image_gradients, psnr, sobel_edges, ssim, ssim_multiscale, total_variation
from .resize import (
    ResizeMethod,
    central_crop,
    crop_and_resize,
    crop_to_bounding_box,
    pad_to_bounding_box,
    resize,
    resize_with_crop_or_pad,
    resize_with_pad,
)
from .transform import affine_transform

__all__ = [
    "ResizeMethod", "adjust_brightness", "adjust_contrast", "adjust_gamma", "adjust_hue", "adjust_saturation",
    "central_crop", "convert_image_dtype", "crop_and_resize", "crop_to_bounding_box", "draw_bounding_boxes",
    "extract_patches", "flip_left_right", "flip_up_down", "grayscale_to_rgb", "hsv_to_rgb", "image_gradients",
    "non_max_suppression", "non_max_suppression_padded", "non_max_suppression_with_scores", "pad_to_bounding_box",
    "per_image_standardization", "psnr", "random_brightness", "random_contrast", "random_crop",
    "random_flip_left_right", "random_flip_up_down", "random_hue", "random_saturation", "resize",
    "resize_with_crop_or_pad", "resize_with_pad", "rgb_to_grayscale", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv",
    "rot90", "sobel_edges", "ssim", "stateless_random_brightness", "stateless_random_contrast",
    "stateless_random_crop", "stateless_random_flip_left_right", "stateless_random_flip_up_down",
    "stateless_random_hue", "stateless_random_saturation", "total_variation", "transpose", "yiq_to_rgb",
    "yuv_to_rgb", "affine_transform", "ssim_multiscale", "non_max_suppression_overlaps",
    "combined_non_max_suppression", "sample_distorted_bounding_box", "stateless_sample_distorted_bounding_box",
    "decode_bmp", "decode_gif", "decode_image", "decode_png", "encode_png", "extract_jpeg_shape", "is_jpeg",
]


def __getattr__(name: str):
    from .._api_exclusions import refuse  # a name tf.image has and descend leaves out says why

    raise refuse("tf.image", name, __name__)
