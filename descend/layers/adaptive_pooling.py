"""Adaptive pooling (as Keras 3's ``AdaptiveAveragePooling1D/2D/3D`` and ``AdaptiveMaxPooling1D/2D/3D``): the
input is pooled to a fixed ``output_size`` whatever its spatial size.

Along a spatial axis of length ``n`` pooled to ``m``, output ``i`` covers the input range
``[floor(i * n / m), ceil((i + 1) * n / m))`` (Keras' and PyTorch's bins; neighbouring bins may overlap by one).
The windows of several axes are the products of these ranges, so the mean (or maximum) of a window is taken one
axis at a time, each output the reduction of a slice, joined with ``concat``: ops the tape differentiates.

Example:
    >>> import descend as ds
    >>> ds.layers.AdaptiveAveragePooling2D((2, 3))(ds.ones((1, 7, 8, 4))).shape
    TensorShape([1, 2, 3, 4])
"""

from __future__ import annotations

import numpy as np

from ..ops import array_ops, math_ops
from .base import Layer
from ._conv_common import incompatible
from .core import _data_format

__all__ = ["AdaptiveAveragePooling1D", "AdaptiveAveragePooling2D", "AdaptiveAveragePooling3D",
           "AdaptiveMaxPooling1D", "AdaptiveMaxPooling2D", "AdaptiveMaxPooling3D"]


def _bins(n: int, m: int) -> list[tuple[int, int]]:
    """``[start, end)`` of each of the ``m`` bins over ``n`` positions (integer floor and ceil)."""
    return [((i * n) // m, -((-(i + 1) * n) // m)) for i in range(m)]


class _AdaptivePooling(Layer):
    rank = 1
    _max = False

    def __init__(self, output_size, data_format=None, **kwargs):
        owner = type(self).__name__
        value = output_size
        if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
            value = (value,) * self.rank
        try:
            size = tuple(value)
        except TypeError:
            size = ()
        if len(size) != self.rank or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0
                                         for v in size):
            raise ValueError(f"{owner}: `output_size` must be a positive int or a tuple of {self.rank} positive "
                             f"ints. Received: output_size={output_size!r}")
        super().__init__(**kwargs)
        self.output_size = tuple(int(v) for v in size)
        self.data_format = _data_format(data_format)
        self._build_at_init()

    def _spatial_axes(self):
        first = 1 if self.data_format == "channels_last" else 2
        return tuple(range(first, first + self.rank))

    def call(self, inputs):
        x = self._float_input(inputs)
        if x.ndim != self.rank + 2:
            raise incompatible(self, x, f"expected ndim={self.rank + 2}, found ndim={x.ndim}")
        reduce = math_ops.reduce_max if self._max else math_ops.reduce_mean
        for axis, m in zip(self._spatial_axes(), self.output_size):
            pieces = []
            for start, end in _bins(int(x.shape[axis]), m):
                index = [slice(None)] * x.ndim
                index[axis] = slice(start, end)
                pieces.append(reduce(x[tuple(index)], axis=axis, keepdims=True))
            x = array_ops.concat(pieces, axis=axis)
        return x

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        for axis, m in zip(self._spatial_axes(), self.output_size):
            out[axis] = m
        return tuple(out)

    def get_config(self) -> dict:
        return {**super().get_config(), "output_size": self.output_size, "data_format": self.data_format}


class AdaptiveAveragePooling1D(_AdaptivePooling):
    """The mean of each of ``output_size`` adaptive bins over the steps of ``(batch, steps, channels)``.

    Args:
        output_size: an int (or a tuple of 1 int).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Example:
        >>> import descend as ds
        >>> ds.layers.AdaptiveAveragePooling1D(2)(ds.constant([[[1.0], [2.0], [3.0], [5.0]]])).numpy().ravel()
        array([1.5, 4. ], dtype=float32)
    """


class AdaptiveAveragePooling2D(_AdaptivePooling):
    """The mean of each adaptive bin over height and width (``output_size``: an int or 2 ints)."""

    rank = 2


class AdaptiveAveragePooling3D(_AdaptivePooling):
    """The mean of each adaptive bin over the three spatial axes (``output_size``: an int or 3 ints)."""

    rank = 3


class AdaptiveMaxPooling1D(_AdaptivePooling):
    """The maximum of each of ``output_size`` adaptive bins over the steps of ``(batch, steps, channels)``.

    Example:
        >>> import descend as ds
        >>> ds.layers.AdaptiveMaxPooling1D(2)(ds.constant([[[1.0], [4.0], [3.0]]])).numpy().ravel()
        array([4., 4.], dtype=float32)
    """

    _max = True


class AdaptiveMaxPooling2D(_AdaptivePooling):
    """The maximum of each adaptive bin over height and width (``output_size``: an int or 2 ints)."""

    rank = 2
    _max = True


class AdaptiveMaxPooling3D(_AdaptivePooling):
    """The maximum of each adaptive bin over the three spatial axes (``output_size``: an int or 3 ints)."""

    rank = 3
    _max = True
