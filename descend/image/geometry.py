"""Flips, rotations, random crops and the random colour jitters (``tf.image.flip_*``, ``random_*``,
``stateless_random_*``), and ``extract_patches``.

Random ops draw from :mod:`descend.random` (``seed=`` as TF's op seed, the global seed as TF's). The
``stateless_random_*`` ops take a ``seed`` pair and give the same result for the same pair, every time;
their values are not TF's (TF's stateless generator is Philox; descend seeds NumPy's with the pair).
"""

from __future__ import annotations

import numpy as np

from .. import random as _random
from ..framework.tensor import Tensor, convert_to_tensor, to_array
from ..ops import array_ops, math_ops
from ..ops.random_draw import draw
from . import _common, color

__all__ = ["flip_left_right", "flip_up_down", "rot90", "transpose", "random_flip_left_right",
           "random_flip_up_down", "random_crop", "random_brightness", "random_contrast", "random_saturation",
           "random_hue", "stateless_random_flip_left_right", "stateless_random_flip_up_down",
           "stateless_random_crop", "stateless_random_brightness", "stateless_random_contrast",
           "stateless_random_saturation", "stateless_random_hue", "extract_patches"]


def _flip(image, axis_from_end: int, fn: str) -> Tensor:
    image = _common.as_image(image, fn)
    key = [slice(None)] * image.ndim
    key[image.ndim - axis_from_end] = slice(None, None, -1)
    return image[tuple(key)]


def flip_left_right(image) -> Tensor:
    """Reverse the width axis.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.flip_left_right(np.array([[[1.0], [2.0]]]))[..., 0].numpy()
        array([[2., 1.]])
    """
    return _flip(image, 2, "flip_left_right")


def flip_up_down(image) -> Tensor:
    """Reverse the height axis.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.flip_up_down(np.array([[[1.0]], [[2.0]]]))[..., 0].numpy()
        array([[2.],
               [1.]])
    """
    return _flip(image, 3, "flip_up_down")


def transpose(image, name=None) -> Tensor:
    """Swap the height and width axes.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.transpose(np.zeros((2, 3, 1))).shape
        TensorShape([3, 2, 1])
    """
    image = _common.as_image(image, "transpose")
    perm = [1, 0, 2] if image.ndim == 3 else [0, 2, 1, 3]
    return array_ops.transpose(image, perm=perm)


def rot90(image, k=1, name=None) -> Tensor:
    """Rotate by ``k`` quarter turns counter-clockwise.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.rot90(np.array([[[1.0], [2.0]], [[3.0], [4.0]]]))[..., 0].numpy()
        array([[2., 4.],
               [1., 3.]])
    """
    image = _common.as_image(image, "rot90")
    k = _common.static_int(k, "rot90", "k") % 4
    if k == 0:
        return image
    if k == 2:
        return flip_up_down(flip_left_right(image))
    if k == 1:
        return flip_up_down(transpose(image))
    return transpose(flip_up_down(image))


# ---------------------------------------------------------------- random flips and crops
def _stateless_rng(seed, fn: str) -> np.random.Generator:
    arr = np.asarray(to_array(seed) if isinstance(seed, Tensor) else seed)
    if arr.shape != (2,) or arr.dtype.kind not in "iu":
        raise ValueError(f"{fn}: 'seed' must be a pair of ints (shape [2]); received seed={seed!r}")
    return np.random.default_rng([int(v) % 2**63 for v in arr])


def _draw_uniform(rng, shape, lo, hi, seed):
    """Uniform draws in ``[lo, hi)``: a NumPy array from ``rng`` (stateless: the same for the same seed, so a
    constant in a trace is right), else a Tensor of :func:`descend.random.uniform`, a recorded draw that a
    compiled function repeats on every call."""
    if rng is not None:
        return np.asarray(rng.uniform(lo, hi, size=shape), np.float32)
    return _random.uniform(shape, minval=lo, maxval=hi, dtype="float32", seed=seed)


def _random_flip(image, axis_from_end, seed, rng, fn) -> Tensor:
    image = _common.as_image(image, fn)
    n = () if image.ndim == 3 else (image.shape[0],)
    flip = math_ops.less(_draw_uniform(rng, n, 0.0, 1.0, seed), np.float32(0.5))
    mask = array_ops.reshape(flip, shape=(1, 1, 1) if image.ndim == 3 else (-1, 1, 1, 1))
    return math_ops.where(mask, _flip(image, axis_from_end, fn), image)


def random_flip_left_right(image, seed=None) -> Tensor:
    """Flip each image left to right with probability 1/2.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.random_flip_left_right(np.zeros((2, 4, 4, 1)), seed=1).shape
        TensorShape([2, 4, 4, 1])
    """
    return _random_flip(image, 2, seed, None, "random_flip_left_right")


def random_flip_up_down(image, seed=None) -> Tensor:
    """Flip each image upside down with probability 1/2.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.random_flip_up_down(np.zeros((4, 4, 1)), seed=1).shape
        TensorShape([4, 4, 1])
    """
    return _random_flip(image, 3, seed, None, "random_flip_up_down")


def stateless_random_flip_left_right(image, seed) -> Tensor:
    """:func:`random_flip_left_right` decided by the ``seed`` pair alone."""
    return _random_flip(image, 2, None, _stateless_rng(seed, "stateless_random_flip_left_right"),
                        "stateless_random_flip_left_right")


def stateless_random_flip_up_down(image, seed) -> Tensor:
    """:func:`random_flip_up_down` decided by the ``seed`` pair alone."""
    return _random_flip(image, 3, None, _stateless_rng(seed, "stateless_random_flip_up_down"),
                        "stateless_random_flip_up_down")


def _random_crop(value, size, seed, rng, fn) -> Tensor:
    value = convert_to_tensor(value)
    arr = np.asarray(to_array(size) if isinstance(size, Tensor) else size)
    if arr.ndim != 1 or arr.dtype.kind not in "iu" or arr.shape[0] != value.ndim:
        raise ValueError(f"{fn}: 'size' must be a 1-D list of {value.ndim} ints (one per axis of 'value', shape "
                         f"{value.shape}); received size={size!r}")
    size = [int(s) for s in arr]
    if any(s < 0 or s > d for s, d in zip(size, value.shape)):
        raise ValueError(f"{fn}: need 0 <= size <= shape on every axis; received size={size} for shape {value.shape}")
    limits = [d - s + 1 for d, s in zip(value.shape, size)]
    if rng is not None:
        offsets = [int(rng.integers(0, lim)) for lim in limits]
        return value[tuple(slice(o, o + s) for o, s in zip(offsets, size))]

    def crop(arr, u):  # the window at offsets drawn as fractions u of each axis's freedom
        offs = [min(int(x * lim), lim - 1) for x, lim in zip(np.asarray(u, np.float64), limits)]
        return arr[tuple(slice(o, o + s) for o, s in zip(offs, size))]
    u = _random.uniform((len(limits),), dtype="float64", seed=seed)
    return draw(value, u, fn=crop)


def random_crop(value, size, seed=None, name=None) -> Tensor:
    """A window of shape ``size`` at a uniformly random offset in ``value`` (any rank).

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.random_crop(np.zeros((8, 8, 3)), [4, 4, 3], seed=0).shape
        TensorShape([4, 4, 3])
    """
    return _random_crop(value, size, seed, None, "random_crop")


def stateless_random_crop(value, size, seed, name=None) -> Tensor:
    """:func:`random_crop` at an offset decided by the ``seed`` pair alone."""
    return _random_crop(value, size, None, _stateless_rng(seed, "stateless_random_crop"), "stateless_random_crop")


# ---------------------------------------------------------------- random colour jitter
def _check_range(lower, upper, fn):
    lo = _common.static_float(lower, fn, "lower")
    hi = _common.static_float(upper, fn, "upper")
    if hi <= lo:
        raise ValueError(f"{fn}: upper must be > lower; received lower={lo}, upper={hi}")
    if lo < 0:
        raise ValueError(f"{fn}: lower must be non-negative; received lower={lo}")
    return lo, hi


def _max_delta(max_delta, fn, upper=None):
    d = _common.static_float(max_delta, fn, "max_delta")
    if d < 0:
        raise ValueError(f"{fn}: max_delta must be non-negative; received max_delta={d}")
    if upper is not None and d > upper:
        raise ValueError(f"{fn}: max_delta must be <= {upper}; received max_delta={d}")
    return d


def random_brightness(image, max_delta, seed=None) -> Tensor:
    """:func:`adjust_brightness` by a delta drawn from ``[-max_delta, max_delta)``."""
    d = _max_delta(max_delta, "random_brightness")
    return color.adjust_brightness(image, _draw_uniform(None, (), -d, d, seed))


def random_contrast(image, lower, upper, seed=None) -> Tensor:
    """:func:`adjust_contrast` by a factor drawn from ``[lower, upper)``."""
    lo, hi = _check_range(lower, upper, "random_contrast")
    return color.adjust_contrast(image, _draw_uniform(None, (), lo, hi, seed))


def random_saturation(image, lower, upper, seed=None) -> Tensor:
    """:func:`adjust_saturation` by a factor drawn from ``[lower, upper)``."""
    lo, hi = _check_range(lower, upper, "random_saturation")
    return color.adjust_saturation(image, _draw_uniform(None, (), lo, hi, seed))


def random_hue(image, max_delta, seed=None) -> Tensor:
    """:func:`adjust_hue` by a delta drawn from ``[-max_delta, max_delta)`` (``max_delta`` in [0, 0.5])."""
    d = _max_delta(max_delta, "random_hue", upper=0.5)
    return color.adjust_hue(image, _draw_uniform(None, (), -d, d, seed))


def stateless_random_brightness(image, max_delta, seed) -> Tensor:
    """:func:`random_brightness` decided by the ``seed`` pair alone."""
    d = _max_delta(max_delta, "stateless_random_brightness")
    rng = _stateless_rng(seed, "stateless_random_brightness")
    return color.adjust_brightness(image, float(rng.uniform(-d, d)))


def stateless_random_contrast(image, lower, upper, seed) -> Tensor:
    """:func:`random_contrast` decided by the ``seed`` pair alone."""
    lo, hi = _check_range(lower, upper, "stateless_random_contrast")
    rng = _stateless_rng(seed, "stateless_random_contrast")
    return color.adjust_contrast(image, float(rng.uniform(lo, hi)))


def stateless_random_saturation(image, lower, upper, seed) -> Tensor:
    """:func:`random_saturation` decided by the ``seed`` pair alone."""
    lo, hi = _check_range(lower, upper, "stateless_random_saturation")
    rng = _stateless_rng(seed, "stateless_random_saturation")
    return color.adjust_saturation(image, float(rng.uniform(lo, hi)))


def stateless_random_hue(image, max_delta, seed) -> Tensor:
    """:func:`random_hue` decided by the ``seed`` pair alone."""
    d = _max_delta(max_delta, "stateless_random_hue", upper=0.5)
    rng = _stateless_rng(seed, "stateless_random_hue")
    return color.adjust_hue(image, float(rng.uniform(-d, d)))


# ---------------------------------------------------------------- patches
def _four(v, fn, what):
    arr = np.asarray(v)
    if arr.shape != (4,) or arr.dtype.kind not in "iu" or arr[0] != 1 or arr[3] != 1 or np.any(arr < 1):
        raise ValueError(f"{fn}: '{what}' must be [1, rows, cols, 1] with positive ints; received {what}={v!r}")
    return int(arr[1]), int(arr[2])


def extract_patches(images, sizes, strides, rates, padding, name=None) -> Tensor:
    """Patches of a ``[b, h, w, c]`` batch as ``[b, out_rows, out_cols, ksize_rows * ksize_cols * c]``
    (``tf.image.extract_patches``), each patch flattened in (row, col, channel) order.

    Example:
        >>> import descend as ds, numpy as np
        >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
        >>> ds.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "VALID")[0, 0, 0].numpy()
        array([0., 1., 4., 5.])
    """
    fn = "extract_patches"
    images = _common.as_image(images, fn, ranks=(4,), what="images")
    kh, kw = _four(sizes, fn, "sizes")
    sh, sw = _four(strides, fn, "strides")
    rh, rw = _four(rates, fn, "rates")
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"{fn}: 'padding' must be 'VALID' or 'SAME'; received padding={padding!r}")
    _, h, w, c = images.shape
    eh, ew = (kh - 1) * rh + 1, (kw - 1) * rw + 1
    if padding == "VALID":
        oh, ow = max((h - eh) // sh + 1, 0), max((w - ew) // sw + 1, 0)
        x = images
    else:
        oh, ow = -(-h // sh), -(-w // sw)
        ph = max((oh - 1) * sh + eh - h, 0)
        pw = max((ow - 1) * sw + ew - w, 0)
        x = array_ops.pad(images, paddings=[[0, 0], [ph // 2, ph - ph // 2], [pw // 2, pw - pw // 2], [0, 0]])
    if oh == 0 or ow == 0:
        return convert_to_tensor(np.zeros((images.shape[0], oh, ow, kh * kw * c), images.dtype))
    pieces = []
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * rh, j * rw
            pieces.append(x[:, r0:r0 + (oh - 1) * sh + 1:sh, c0:c0 + (ow - 1) * sw + 1:sw, :])
    return array_ops.concat(pieces, axis=-1)
