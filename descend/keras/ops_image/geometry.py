"""``keras.ops.image``'s resizing, padding, cropping and patches on descend's ``tf.image`` ops (issue 37).

Each function takes channels-last or channels-first images (``data_format``, ``None``:
``keras.config.image_data_format()``), single (rank 3) or batched (rank 4), and returns them in the images' dtype
(a float computation on integer images rounded and clamped, as Keras does). All are differentiable in the images.

Example:
    >>> import numpy as np
    >>> from descend.keras import ops
    >>> x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
    >>> ops.image.resize(x, (2, 2)).shape
    TensorShape([1, 2, 2, 1])
    >>> ops.image.pad_images(x, 1, 0, None, 0, target_height=6).shape
    TensorShape([1, 6, 4, 1])
    >>> ops.image.extract_patches(x, 2)[0, 0, 0].numpy().tolist()
    [0.0, 1.0, 4.0, 5.0]
"""

from __future__ import annotations

import numpy as np

from ... import image as _image
from ... import ops as _o
from . import _format

__all__ = ["resize", "pad_images", "crop_images", "extract_patches", "extract_patches_3d"]

RESIZE_INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")


def _aspect_window(height: int, width: int, target_h: int, target_w: int, grow: bool):
    """The ``(h, w, top, left)`` window of the target's aspect ratio around an image: the largest inside it
    (``grow=False``, for cropping) or the smallest holding it (``grow=True``, for padding), centred, in TF's
    float32 arithmetic with truncation."""
    h = int(np.float32(width * target_h) / np.float32(target_w))
    w = int(np.float32(height * target_w) / np.float32(target_h))
    if grow:
        h, w = max(height, h), max(width, w)
        return h, w, int(np.float32(h - height) / 2), int(np.float32(w - width) / 2)
    h, w = max(min(height, h), 1), max(min(width, w), 1)
    return h, w, int(np.float32(height - h) / 2), int(np.float32(width - w) / 2)


def resize(images, size, interpolation="bilinear", antialias=False, crop_to_aspect_ratio=False,
           pad_to_aspect_ratio=False, fill_mode="constant", fill_value=0.0, data_format=None):
    """``images`` resized to ``size = (height, width)`` by ``tf.image.resize``'s ``interpolation`` (one of
    ``RESIZE_INTERPOLATIONS``). ``crop_to_aspect_ratio`` first crops the centred window of the target's aspect
    ratio; ``pad_to_aspect_ratio`` first pads the short side evenly with ``fill_value`` (``fill_mode`` can only
    be ``"constant"``). Integer images come back rounded and clamped to their dtype."""
    fn = "resize"
    if len(size) != 2:
        raise ValueError(f"{fn}: Expected `size` to be a tuple of 2 integers. Received: size={size}")
    if size[0] <= 0 or size[1] <= 0:
        raise ValueError(f"{fn}: `size` must have positive height and width. Received: size={size}")
    x, first = _format.images(images, data_format, fn)
    if pad_to_aspect_ratio and crop_to_aspect_ratio:
        raise ValueError(f"{fn}: Only one of `pad_to_aspect_ratio` & `crop_to_aspect_ratio` can be `True`.")
    if interpolation not in RESIZE_INTERPOLATIONS:
        raise ValueError(f"{fn}: Invalid value for argument `interpolation`. Expected of one "
                         f"{RESIZE_INTERPOLATIONS}. Received: interpolation={interpolation}")
    if fill_mode != "constant":
        raise ValueError(f"{fn}: Invalid value for argument `fill_mode`. Only `'constant'` is supported. "
                         f"Received: fill_mode={fill_mode}")
    dtype = x.dtype
    x, had = _format.batch(_format.to_last(x, first))
    height, width = x.shape[1], x.shape[2]
    target_h, target_w = int(size[0]), int(size[1])
    if crop_to_aspect_ratio:
        h, w, top, left = _aspect_window(height, width, target_h, target_w, grow=False)
        x = x[:, top:top + h, left:left + w, :]
    elif pad_to_aspect_ratio:
        h, w, top, left = _aspect_window(height, width, target_h, target_w, grow=True)
        # the same margin on both sides (TF's backend): an odd difference leaves one row or column unpadded
        x = _o.pad(x, [[0, 0], [top, top], [left, left], [0, 0]], constant_values=np.asarray(fill_value, dtype))
    out = _image.resize(x, [target_h, target_w], method=interpolation, antialias=bool(antialias))
    out = _format.back_to(out, dtype)
    return _format.from_last(_format.unbatch(out, had), first)


def _check_two_of(names, values, fn):
    if list(values).count(None) != 1:
        received = ", ".join(f"{n}={v}" for n, v in zip(names, values))
        raise ValueError(f"{fn}: Must specify exactly two of {', '.join(names)}. Received: {received}")


def _non_negative(fn, **values):
    for name, value in values.items():
        if value is not None and value < 0:
            raise ValueError(f"{fn}: {name} must be >= 0. Received: {name}={value}")


def _spatial(x, first):
    return (x.shape[-2], x.shape[-1]) if first else (x.shape[-3], x.shape[-2])


def _spatial_axes(x, first):
    return (x.ndim - 2, x.ndim - 1) if first else (x.ndim - 3, x.ndim - 2)


def pad_images(images, top_padding=None, left_padding=None, bottom_padding=None, right_padding=None,
               target_height=None, target_width=None, data_format=None):
    """``images`` padded with zeros: give two of (top, bottom, target height) and two of (left, right, target
    width); the third of each is what makes them add up."""
    fn = "pad_images"
    x, first = _format.images(images, data_format, fn)
    _check_two_of(("top_padding", "bottom_padding", "target_height"), (top_padding, bottom_padding, target_height),
                  fn)
    _check_two_of(("left_padding", "right_padding", "target_width"), (left_padding, right_padding, target_width), fn)
    _non_negative(fn, top_padding=top_padding, bottom_padding=bottom_padding, target_height=target_height,
                  left_padding=left_padding, right_padding=right_padding, target_width=target_width)
    height, width = _spatial(x, first)
    if top_padding is None:
        top_padding = target_height - bottom_padding - height
    if bottom_padding is None:
        bottom_padding = target_height - top_padding - height
    if left_padding is None:
        left_padding = target_width - right_padding - width
    if right_padding is None:
        right_padding = target_width - left_padding - width
    _non_negative(fn, top_padding=top_padding, left_padding=left_padding, right_padding=right_padding,
                  bottom_padding=bottom_padding)
    paddings = [[0, 0]] * x.ndim
    hy, wx = _spatial_axes(x, first)
    paddings[hy], paddings[wx] = [top_padding, bottom_padding], [left_padding, right_padding]
    return _o.pad(x, paddings)


def crop_images(images, top_cropping=None, left_cropping=None, bottom_cropping=None, right_cropping=None,
                target_height=None, target_width=None, data_format=None):
    """``images`` cropped: give two of (top, bottom, target height) and two of (left, right, target width)."""
    fn = "crop_images"
    x, first = _format.images(images, data_format, fn)
    _check_two_of(("top_cropping", "bottom_cropping", "target_height"),
                  (top_cropping, bottom_cropping, target_height), fn)
    _check_two_of(("left_cropping", "right_cropping", "target_width"),
                  (left_cropping, right_cropping, target_width), fn)
    _non_negative(fn, top_cropping=top_cropping, bottom_cropping=bottom_cropping, target_height=target_height,
                  left_cropping=left_cropping, right_cropping=right_cropping, target_width=target_width)
    height, width = _spatial(x, first)
    if top_cropping is None:
        top_cropping = height - target_height - bottom_cropping
    if target_height is None:
        target_height = height - bottom_cropping - top_cropping
    if left_cropping is None:
        left_cropping = width - target_width - right_cropping
    if target_width is None:
        target_width = width - right_cropping - left_cropping
    _non_negative(fn, top_cropping=top_cropping, target_height=target_height, left_cropping=left_cropping,
                  target_width=target_width)
    if top_cropping + target_height > height or left_cropping + target_width > width:
        raise ValueError(f"{fn}: the crop (top_cropping={top_cropping}, target_height={target_height}, "
                         f"left_cropping={left_cropping}, target_width={target_width}) does not fit in images of "
                         f"height {height} and width {width}")
    index = [slice(None)] * x.ndim
    hy, wx = _spatial_axes(x, first)
    index[hy] = slice(top_cropping, top_cropping + target_height)
    index[wx] = slice(left_cropping, left_cropping + target_width)
    return x[tuple(index)]


# ---------------------------------------------------------------- patches
def _per_axis(value, n: int, fn: str, what: str):
    if isinstance(value, (int, np.integer)):
        return (int(value),) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"{fn}: Invalid `{what}` argument. Expected an int or a tuple of length {n}. Got: "
                         f"{what}={value}")
    return value


def _volume_patches(x, size, strides, rates, padding):
    """Patches of a channels-last ``[b, d, h, w, c]`` batch, each flattened in (d, h, w, channel) order: the
    output of a convolution with an identity kernel, written as strided slices."""
    spatial = x.shape[1:4]
    reach = [(k - 1) * r + 1 for k, r in zip(size, rates)]
    if padding == "valid":
        out = [max((n - e) // s + 1, 0) for n, e, s in zip(spatial, reach, strides)]
        pads = [(0, 0)] * 3
    else:  # same: TF's padding, the smaller half before
        out = [-(-n // s) for n, s in zip(spatial, strides)]
        total = [max((o - 1) * s + e - n, 0) for o, s, e, n in zip(out, strides, reach, spatial)]
        pads = [(t // 2, t - t // 2) for t in total]
    if 0 in out:
        return _o.zeros((x.shape[0], *out, int(np.prod(size)) * x.shape[-1]), dtype=x.dtype)
    if any(p != (0, 0) for p in pads):
        x = _o.pad(x, [[0, 0], *[list(p) for p in pads], [0, 0]])
    pieces = []
    for offset in np.ndindex(*size):
        start = [i * r for i, r in zip(offset, rates)]
        pieces.append(x[(slice(None),) + tuple(slice(b, b + (o - 1) * s + 1, s)
                                               for b, o, s in zip(start, out, strides)) + (slice(None),)])
    return _o.concat(pieces, axis=-1)


def _size_argument(size, fn):
    if isinstance(size, (int, np.integer)):
        return size
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{fn}: Invalid `size` argument. Expected an int or a tuple. Received: size={size} of "
                        f"type {type(size).__name__}")
    if len(size) not in (2, 3):
        raise ValueError(f"{fn}: Invalid `size` argument. Expected a tuple of length 2 or 3. Received: size={size} "
                         f"with length {len(size)}")
    return tuple(size)


def _check_padding(padding, fn):
    padding = padding.lower() if isinstance(padding, str) else padding
    if padding not in ("valid", "same"):
        raise ValueError(f"{fn}: `padding` must be 'valid' or 'same'. Received: padding={padding!r}")
    return padding


def extract_patches(images, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Patches of ``size`` (an int, ``(h, w)``, or ``(d, h, w)`` for volumes: then as
    :func:`extract_patches_3d`) every ``strides`` (default: ``size``) pixels, each flattened on the channel axis
    in (row, column, channel) order, as ``tf.image.extract_patches``; ``padding`` "valid" or "same"."""
    fn = "extract_patches"
    size = _size_argument(size, fn)
    if isinstance(size, tuple) and len(size) == 3:
        return extract_patches_3d(images, size, strides, dilation_rate, padding, data_format)
    ph, pw = _per_axis(size, 2, fn, "size")
    sh, sw = _per_axis(strides or (ph, pw), 2, fn, "strides")
    rh, rw = _per_axis(dilation_rate, 2, fn, "dilation_rate")
    padding = _check_padding(padding, fn)
    x, first = _format.images(images, data_format, fn)
    x, had = _format.batch(_format.to_last(x, first))
    out = _image.extract_patches(x, [1, ph, pw, 1], [1, sh, sw, 1], [1, rh, rw, 1], padding.upper())
    return _format.from_last(_format.unbatch(out, had), first)


def extract_patches_3d(volumes, size, strides=None, dilation_rate=1, padding="valid", data_format=None):
    """Patches of ``size`` (an int or ``(d, h, w)``) of volumes ``[b, d, h, w, c]`` or ``[d, h, w, c]``
    (channels first: ``[b, c, d, h, w]``) every ``strides`` (default: ``size``), each flattened in
    (depth, row, column, channel) order (``tf.extract_volume_patches``)."""
    fn = "extract_patches_3d"
    if isinstance(size, (int, np.integer)):
        size = (int(size),) * 3
    if not isinstance(size, (tuple, list)) or len(size) != 3:
        raise TypeError(f"{fn}: Invalid `size` argument. Expected an int or a tuple of length 3. Received: "
                        f"size={size}")
    size = tuple(int(s) for s in size)
    strides = _per_axis(size if strides is None else strides, 3, fn, "strides")
    rates = _per_axis(dilation_rate, 3, fn, "dilation_rate")
    padding = _check_padding(padding, fn)
    x = _format.tensor(volumes)
    if x.ndim not in (4, 5):
        raise ValueError(f"{fn}: Invalid volumes rank: expected rank 4 (single volume) or rank 5 (batch of "
                         f"volumes). Received input with shape: volumes.shape={tuple(x.shape)}")
    first = _format.channels_first(data_format, fn)
    had = x.ndim == 5
    x = x if had else _o.expand_dims(x, 0)
    if first:
        x = _o.transpose(x, (0, 2, 3, 4, 1))
    out = _volume_patches(x, size, strides, rates, padding)
    if first:
        out = _o.transpose(out, (0, 4, 1, 2, 3))
    return out if had else _o.squeeze(out, axis=0)
