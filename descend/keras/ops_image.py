"""Keras 3's ``keras.ops.image`` color conversions on descend's ``tf.image`` ones (issue 37): batched (rank 4)
or single (rank 3) images, channels last or first by ``data_format`` (``None``: ``keras.backend.image_data_format()``,
as Keras). ``descend.keras.ops.image`` holds them (they are not in ``keras.ops`` itself, as in Keras).

Example:
    >>> import numpy as np
    >>> from descend.keras import ops
    >>> ops.image.rgb_to_hsv(np.array([[[0.0, 1.0, 0.0]]], np.float32)).numpy().tolist()
    [[[0.3333333432674408, 1.0, 1.0]]]
"""

from __future__ import annotations

from .. import image as _image
from ..image_format import image_data_format
from .. import ops as _o
from ..framework import Tensor, Variable
from ..framework import convert_to_tensor as _to_tensor

__all__ = ["rgb_to_grayscale", "rgb_to_hsv", "hsv_to_rgb"]


def _images(images, data_format, owner):
    x = images.value() if isinstance(images, Variable) else images
    x = x if isinstance(x, Tensor) else _to_tensor(x)
    if x.ndim not in (3, 4):
        raise ValueError(f"{owner}: Invalid images rank: expected rank 3 (single image) or rank 4 (batch of "
                         f"images). Received shape {tuple(x.shape)}")
    data_format = data_format or image_data_format()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{owner}: `data_format` must be 'channels_last' or 'channels_first'. Received: "
                         f"data_format={data_format!r}")
    return x, data_format == "channels_first"


def _to_last(x, first):
    return _o.transpose(x, (0, 2, 3, 1) if x.ndim == 4 else (1, 2, 0)) if first else x


def _from_last(x, first):
    return _o.transpose(x, (0, 3, 1, 2) if x.ndim == 4 else (2, 0, 1)) if first else x


def rgb_to_grayscale(images, data_format=None):
    """Luma ``0.2989 R + 0.5870 G + 0.1140 B`` with a channel axis of 1 (a 1-channel image is returned as is);
    computed in floats, returned in the images' dtype."""
    x, first = _images(images, data_format, "rgb_to_grayscale")
    channels = x.shape[-3 if first else -1]
    if channels not in (1, 3):
        raise ValueError(f"rgb_to_grayscale: Invalid channel size: expected 3 (RGB) or 1 (Grayscale). Received "
                         f"shape {tuple(x.shape)}")
    if channels == 1:
        return _o.identity(x)
    return _from_last(_image.rgb_to_grayscale(_to_last(x, first)), first)


def _float_images(images, data_format, owner):
    x, first = _images(images, data_format, owner)
    if x.dtype.kind != "f":
        raise ValueError(f"{owner}: Invalid images dtype: expected float dtype. Received: images.dtype="
                         f"{x.dtype.name}")
    return x, first


def rgb_to_hsv(images, data_format=None):
    """RGB (floats in [0, 1]) to HSV, hue in [0, 1)."""
    x, first = _float_images(images, data_format, "rgb_to_hsv")
    return _from_last(_image.rgb_to_hsv(_to_last(x, first)), first)


def hsv_to_rgb(images, data_format=None):
    """HSV (hue in [0, 1)) to RGB."""
    x, first = _float_images(images, data_format, "hsv_to_rgb")
    return _from_last(_image.hsv_to_rgb(_to_last(x, first)), first)
