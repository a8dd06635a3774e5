"""``AutoContrast`` (as Keras'): each image's channels stretched so their minimum maps to the bottom of
``value_range`` and their maximum to the top.

Per image and channel, on values moved from ``value_range`` to ``[0, 255]``: ``(x - low) * 255 / (high - low)``
with ``low``/``high`` the channel's minimum and maximum over height and width, clipped to ``[0, 255]`` and moved
back. A constant channel (``high == low``) gives NaN there, and a NaN result keeps the input value, as Keras.
Integer images are read as floats (the layer's dtype), as Keras. It applies whether or not ``training`` is set.

Example:
    >>> import descend as ds
    >>> ds.layers.AutoContrast()(ds.constant([[[[10.0], [20.0]], [[30.0], [60.0]]]])).numpy().ravel()
    array([  0.,  51., 102., 255.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops
from ._conv_common import incompatible
from .base import Layer

__all__ = ["AutoContrast"]


def _rescale(x, source, target):
    if tuple(source) == tuple(target):
        return x
    unit = math_ops.divide(math_ops.subtract(x, source[0]), float(source[1] - source[0]))
    return math_ops.add(math_ops.multiply(unit, float(target[1] - target[0])), float(target[0]))


class AutoContrast(Layer):
    """Stretches each image channel's values to the full ``value_range``.

    Args:
        value_range: ``(low, high)`` of the images' values (default ``(0, 255)``).
        data_format: ``"channels_last"`` or ``"channels_first"`` (None: ``keras.config.image_data_format()``),
            kept in the config; as Keras 3.15, the extremes are taken over axes 1 and 2 whatever it is
            (the height and width of channels-last images ``(batch, height, width, channels)``).
    """

    def __init__(self, value_range=(0, 255), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError("AutoContrast: `value_range` must be a tuple or list of two numbers. "
                             f"Received: value_range={value_range!r}")
        self.value_range = sorted(float(v) if not isinstance(v, (int, np.integer)) else int(v) for v in value_range)
        self.data_format = resolve_data_format(data_format, "AutoContrast")
        self._build_at_init()

    def call(self, inputs, training=True):
        x = self._float_input(inputs)
        if x.ndim not in (3, 4):
            raise incompatible(self, x, f"expected ndim=3 or 4 (images), found ndim={x.ndim}")
        single = x.ndim == 3
        dtype = x.dtype.dtype
        images = x
        if single:
            images = array_ops.expand_dims(images, axis=0)
        images = _rescale(images, self.value_range, (0, 255))
        low = math_ops.reduce_min(images, axis=(1, 2), keepdims=True)
        high = math_ops.reduce_max(images, axis=(1, 2), keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            scale = math_ops.divide(Tensor(np.asarray(255.0, dtype)), math_ops.subtract(high, low))
            offset = math_ops.multiply(math_ops.negative(low), scale)
            stretched = math_ops.add(math_ops.multiply(images, scale), offset)
        result = _rescale(math_ops.clip_by_value(stretched, 0.0, 255.0), (0, 255), self.value_range)
        if single:
            result = result[0]
        return math_ops.where(Tensor(np.isnan(result.numpy())), x, result)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "value_range": list(self.value_range), "data_format": self.data_format}
