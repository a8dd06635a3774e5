"""Colour conversions and adjustments (``tf.image.rgb_to_hsv``, ``adjust_*`` ...).

Written with differentiable descend ops, so each has a gradient (TF has none for ``adjust_hue`` and
``adjust_saturation``; descend's agrees with the numerical one). Integer images are converted to float32
in [0, 1] first and back at the end with saturation, as TF does; float images keep their dtype.
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import array_ops, math_ops
from . import _common

__all__ = ["rgb_to_grayscale", "grayscale_to_rgb", "rgb_to_hsv", "hsv_to_rgb", "rgb_to_yiq", "yiq_to_rgb",
           "rgb_to_yuv", "yuv_to_rgb", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "adjust_saturation", "adjust_hue", "per_image_standardization"]


def _rgb(images, fn: str, what: str = "images") -> Tensor:
    t = convert_to_tensor(images)
    if t.ndim < 1 or t.shape[-1] != 3:
        raise ValueError(f"{fn}: the last dimension of '{what}' must be 3 (RGB); received shape {t.shape}")
    return t


def _float_only(t: Tensor, fn: str) -> Tensor:
    if t.dtype.kind != "f":
        raise TypeError(f"{fn}: expects a float image (float16, float32 or float64); received dtype {t.dtype.name}")
    return t


def _channels(t: Tensor):
    return array_ops.unstack(t, axis=-1)


def _mix(t: Tensor, kernel) -> Tensor:
    """``t[..., 3] @ kernel[3, k]``: a linear colour transform (as TF's ``tensordot``: flatten, matmul)."""
    kernel = np.asarray(kernel, t.dtype)
    flat = math_ops.matmul(array_ops.reshape(t, shape=(-1, 3)), kernel)
    return array_ops.reshape(flat, shape=tuple(t.shape[:-1]) + (kernel.shape[1],))


def rgb_to_grayscale(images, name=None) -> Tensor:
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B``, keeping a last axis of size 1.

    Example:
        >>> import descend as ds
        >>> ds.image.rgb_to_grayscale([[[1.0, 1.0, 1.0]]]).numpy()
        array([[[0.99990004]]], dtype=float32)
    """
    images = _rgb(images, "rgb_to_grayscale")
    flt = _common.to_float(images)
    gray = _mix(flt, [[0.2989], [0.5870], [0.1140]])
    return _common.back_to(gray, images.dtype)


def grayscale_to_rgb(images, name=None) -> Tensor:
    """Repeat a single-channel image's channel three times.

    Example:
        >>> import descend as ds
        >>> ds.image.grayscale_to_rgb([[[0.5]]]).numpy()
        array([[[0.5, 0.5, 0.5]]], dtype=float32)
    """
    t = convert_to_tensor(images)
    if t.ndim < 2 or t.shape[-1] != 1:
        raise ValueError(f"grayscale_to_rgb: the last dimension of 'images' must be 1; received shape {t.shape}")
    return array_ops.tile(t, multiples=[1] * (t.ndim - 1) + [3])


def rgb_to_hsv(images, name=None) -> Tensor:
    """RGB (floats in [0, 1]) to HSV, hue in [0, 1) (``tf.image.rgb_to_hsv``).

    Example:
        >>> import descend as ds
        >>> ds.image.rgb_to_hsv([[0.0, 1.0, 0.0]]).numpy()
        array([[0.33333334, 1.        , 1.        ]], dtype=float32)
    """
    t = _float_only(_rgb(images, "rgb_to_hsv"), "rgb_to_hsv")
    r, g, b = _channels(t)
    v = math_ops.reduce_max(t, axis=-1)
    span = math_ops.subtract(v, math_ops.reduce_min(t, axis=-1))
    zero = np.asarray(0, t.dtype)
    s = math_ops.where(math_ops.greater(v, zero), math_ops.divide(span, math_ops.where(
        math_ops.greater(v, zero), v, np.asarray(1, t.dtype))), zero)
    positive = math_ops.greater(span, zero)
    norm = math_ops.reciprocal(math_ops.multiply(np.asarray(6, t.dtype), math_ops.where(positive, span,
                                                                                           np.asarray(1, t.dtype))))
    h_r = math_ops.multiply(norm, math_ops.subtract(g, b))
    h_g = math_ops.add(math_ops.multiply(norm, math_ops.subtract(b, r)), np.asarray(2.0 / 6.0, t.dtype))
    h_b = math_ops.add(math_ops.multiply(norm, math_ops.subtract(r, g)), np.asarray(4.0 / 6.0, t.dtype))
    h = math_ops.where(math_ops.equal(r, v), h_r, math_ops.where(math_ops.equal(g, v), h_g, h_b))
    h = math_ops.where(positive, h, zero)
    h = math_ops.where(math_ops.less(h, zero), math_ops.add(h, np.asarray(1, t.dtype)), h)
    return array_ops.stack([h, s, v], axis=-1)


def hsv_to_rgb(images, name=None) -> Tensor:
    """HSV (hue in [0, 1)) to RGB (``tf.image.hsv_to_rgb``).

    Example:
        >>> import descend as ds
        >>> ds.image.hsv_to_rgb([[1.0 / 3.0, 1.0, 1.0]]).numpy()
        array([[0., 1., 0.]], dtype=float32)
    """
    t = _float_only(_rgb(images, "hsv_to_rgb"), "hsv_to_rgb")
    h, s, v = _channels(t)
    c = math_ops.multiply(s, v)
    m = math_ops.subtract(v, c)
    dh = math_ops.multiply(h, np.asarray(6, t.dtype))
    category = math_ops.floor(dh)
    two = np.asarray(2, t.dtype)
    # fmod(dh, 2): the remainder with dh's sign
    half = math_ops.divide(dh, two)
    whole = math_ops.stop_gradient(math_ops.where(math_ops.greater_equal(dh, np.asarray(0, t.dtype)),
                                                  math_ops.floor(half), math_ops.ceil(half)))
    fmodu = math_ops.subtract(dh, math_ops.multiply(whole, two))
    x = math_ops.multiply(c, math_ops.subtract(np.asarray(1, t.dtype),
                                               math_ops.abs(math_ops.subtract(fmodu, np.asarray(1, t.dtype)))))
    zero = math_ops.zeros_like(c)
    table = {0: (c, x, zero), 1: (x, c, zero), 2: (zero, c, x), 3: (zero, x, c), 4: (x, zero, c), 5: (c, zero, x)}
    out = []
    for k in range(3):
        value = zero
        for cat, parts in table.items():
            value = math_ops.where(math_ops.equal(category, np.asarray(cat, t.dtype)), parts[k], value)
        out.append(math_ops.add(value, m))
    return array_ops.stack(out, axis=-1)


_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617], [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021], [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512], [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _linear(name, kernel, doc):
    def fn(images) -> Tensor:
        return _mix(_float_only(_rgb(images, name), name), kernel)
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


rgb_to_yiq = _linear("rgb_to_yiq", _RGB_TO_YIQ, "RGB to YIQ (a linear map of the last axis), as ``tf.image.rgb_to_yiq``.")
yiq_to_rgb = _linear("yiq_to_rgb", _YIQ_TO_RGB, "YIQ to RGB, the inverse of :func:`rgb_to_yiq`.")
rgb_to_yuv = _linear("rgb_to_yuv", _RGB_TO_YUV, "RGB to YUV (a linear map of the last axis), as ``tf.image.rgb_to_yuv``.")
yuv_to_rgb = _linear("yuv_to_rgb", _YUV_TO_RGB, "YUV to RGB, the inverse of :func:`rgb_to_yuv`.")


def _factor(value, dtype, fn: str, what: str):
    """A scalar factor as an array of ``dtype``, or a scalar Tensor (a random draw) cast to it."""
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise ValueError(f"{fn}: '{what}' must be a scalar; received shape {value.shape}")
        return math_ops.cast(value, dtype=dtype)
    return np.asarray(_common.static_float(value, fn, what), dtype)


def adjust_brightness(image, delta) -> Tensor:
    """``image + delta`` (in [0, 1] units; integer images are converted and saturated back).

    Example:
        >>> import descend as ds
        >>> ds.image.adjust_brightness([[[0.25]]], 0.5).numpy()
        array([[[0.75]]], dtype=float32)
    """
    image = convert_to_tensor(image)
    flt = _common.to_float(image)
    delta = _common.static_float(delta, "adjust_brightness", "delta") if not isinstance(delta, Tensor) else delta
    return _common.back_to(math_ops.add(flt, math_ops.cast(convert_to_tensor(delta), dtype=flt.dtype)), image.dtype)


def adjust_contrast(images, contrast_factor) -> Tensor:
    """``(x - mean) * contrast_factor + mean``, the mean taken per image and channel over height and width.

    Example:
        >>> import descend as ds
        >>> ds.image.adjust_contrast([[[0.0], [1.0]]], 2.0).numpy()[..., 0]
        array([[-0.5,  1.5]], dtype=float32)
    """
    images = convert_to_tensor(images)
    if images.ndim < 3:
        raise ValueError(f"adjust_contrast: 'images' must have rank >= 3 ([..., height, width, channels]); "
                         f"received shape {images.shape}")
    flt = _common.to_float(images)
    factor = math_ops.cast(convert_to_tensor(contrast_factor), dtype=flt.dtype)
    mean = math_ops.reduce_mean(flt, axis=[-3, -2], keepdims=True)
    out = math_ops.add(math_ops.multiply(math_ops.subtract(flt, mean), factor), mean)
    return _common.back_to(out, images.dtype)


def adjust_gamma(image, gamma=1, gain=1) -> Tensor:
    """``gain * image ** gamma`` (``gamma`` >= 0).

    Example:
        >>> import descend as ds
        >>> ds.image.adjust_gamma([[[0.25]]], gamma=0.5).numpy()
        array([[[0.5]]], dtype=float32)
    """
    image = convert_to_tensor(image)
    g = _common.static_float(gamma, "adjust_gamma", "gamma")
    if g < 0:
        raise ValueError(f"adjust_gamma: gamma must be a non-negative real number; received gamma={g}")
    flt = _common.to_float(image)
    out = math_ops.multiply(np.asarray(_common.static_float(gain, "adjust_gamma", "gain"), flt.dtype),
                            math_ops.pow(flt, np.asarray(g, flt.dtype)))
    return _common.back_to(out, image.dtype)


def adjust_saturation(image, saturation_factor, name=None) -> Tensor:
    """Scale the HSV saturation by ``saturation_factor`` (clipped to [0, 1]).

    Example:
        >>> import descend as ds
        >>> ds.image.adjust_saturation([[[1.0, 0.5, 0.5]]], 0.0).numpy()
        array([[[1., 1., 1.]]], dtype=float32)
    """
    image = _rgb(image, "adjust_saturation", "image")
    flt = _common.to_float(image)
    factor = _factor(saturation_factor, flt.dtype, "adjust_saturation", "saturation_factor")
    h, s, v = _channels(rgb_to_hsv(flt))
    s = math_ops.clip_by_value(math_ops.multiply(s, factor), np.asarray(0, flt.dtype), np.asarray(1, flt.dtype))
    return _common.back_to(hsv_to_rgb(array_ops.stack([h, s, v], axis=-1)), image.dtype)


def adjust_hue(image, delta, name=None) -> Tensor:
    """Rotate the HSV hue by ``delta`` (in [-1, 1], a fraction of the colour wheel).

    Example:
        >>> import descend as ds
        >>> ds.image.adjust_hue([[[1.0, 0.0, 0.0]]], 1.0 / 3.0).numpy().round(6)
        array([[[0., 1., 0.]]], dtype=float32)
    """
    image = _rgb(image, "adjust_hue", "image")
    if not isinstance(delta, Tensor):
        d = _common.static_float(delta, "adjust_hue", "delta")
        if not -1.0 <= d <= 1.0:
            raise ValueError(f"adjust_hue: delta must be in the interval [-1, 1]; received delta={d}")
    flt = _common.to_float(image)
    d = _factor(delta, flt.dtype, "adjust_hue", "delta")
    h, s, v = _channels(rgb_to_hsv(flt))
    h = math_ops.mod(math_ops.add(h, d), np.asarray(1, flt.dtype))
    return _common.back_to(hsv_to_rgb(array_ops.stack([h, s, v], axis=-1)), image.dtype)


def per_image_standardization(image) -> Tensor:
    """``(x - mean) / max(stddev, 1 / sqrt(N))`` per image, over its ``N = height * width * channels`` values.

    Integer images are converted to float32 first (values in [0, 1]), as TF; the result is float.

    Example:
        >>> import descend as ds
        >>> ds.image.per_image_standardization([[[0.0], [2.0]]]).numpy()[..., 0]
        array([[-1.,  1.]], dtype=float32)
    """
    image = _common.as_image(image, "per_image_standardization", ranks=tuple(range(3, 9)))
    flt = image if image.dtype.kind == "f" else _common.convert_image_dtype(image, "float32")
    axes = [-1, -2, -3]
    n = int(np.prod(image.shape[-3:]))
    mean = math_ops.reduce_mean(flt, axis=axes, keepdims=True)
    var = math_ops.reduce_mean(math_ops.squared_difference(flt, mean), axis=axes, keepdims=True)
    std = math_ops.maximum(math_ops.sqrt(var), np.asarray(1.0 / np.sqrt(n), flt.dtype))
    return math_ops.divide(math_ops.subtract(flt, mean), std)
