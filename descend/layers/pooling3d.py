"""``MaxPooling3D`` and ``AveragePooling3D`` (as Keras'): windows over the three spatial axes of
``(batch, d1, d2, d3, channels)`` (or ``channels_first``), built from slicing, padding and elementwise ops
that the tape already differentiates.

Each output is the fold, over the ``prod(pool_size)`` offsets of the window, of a strided slice of the
(padded) input: the maximum (``"same"`` pads with ``-inf``, so padding never wins; among equal values the
gradient goes to the first in the window's raster order) or the mean (``"same"`` padding is not counted,
as TF's ``AvgPool3D``).

Example:
    >>> import descend as ds
    >>> ds.layers.MaxPooling3D()(ds.ones((2, 4, 4, 4, 3))).shape
    TensorShape([2, 2, 2, 2, 3])
"""

from __future__ import annotations

import itertools

import numpy as np

from ..ops import array_ops, math_ops
from ..ops.conv_ops import _padding, conv_output_size
from .base import Layer
from ._conv_common import incompatible, sizes
from .core import _data_format

__all__ = ["MaxPooling3D", "AveragePooling3D"]


class _Pooling3D(Layer):
    _max = True

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        owner = type(self).__name__
        self.pool_size = sizes(pool_size, "pool_size", owner, 3)
        self.strides = self.pool_size if strides is None else sizes(strides, "strides", owner, 3)
        self.padding = _padding(padding, owner)
        self.data_format = _data_format(data_format)
        self._build_at_init()

    def _spatial_axes(self):
        return (1, 2, 3) if self.data_format == "channels_last" else (2, 3, 4)

    def call(self, inputs):
        x = self._float_input(inputs)
        if x.ndim != 5:
            raise incompatible(self, x, f"expected ndim=5, found ndim={x.ndim}")
        axes = self._spatial_axes()
        sizes = [int(x.shape[a]) for a in axes]
        plan = []  # (output size, pad before, pad after) per spatial axis
        for axis, k, s in zip(axes, self.pool_size, self.strides):
            out, before, after = conv_output_size(int(x.shape[axis]), k, s, self.padding)
            if out <= 0:
                raise incompatible(self, x, f"the window {self.pool_size} does not fit the spatial size "
                                             f"{tuple(int(x.shape[a]) for a in axes)} with padding='valid'")
            plan.append((out, before, after))
        paddings = [[0, 0] for _ in range(5)]
        for axis, (_, before, after) in zip(axes, plan):
            paddings[axis] = [before, after]
        if any(b or a for _, b, a in plan):
            fill = -np.inf if self._max else 0.0
            x = array_ops.pad(x, paddings, constant_values=fill)
        result = None
        for offset in itertools.product(*(range(k) for k in self.pool_size)):
            index = [slice(None)] * 5
            for axis, o, s, (out, _, _) in zip(axes, offset, self.strides, plan):
                index[axis] = slice(o, o + (out - 1) * s + 1, s)
            window = x[tuple(index)]
            if result is None:
                result = window
            elif self._max:
                result = math_ops.maximum(result, window)
            else:
                result = math_ops.add(result, window)
        if self._max:
            return result
        return math_ops.divide(result, math_ops.cast(self._counts(plan, sizes, axes), dtype=result.dtype))

    def _counts(self, plan, sizes, axes):
        """How many real (unpadded) elements each output window holds, shaped to broadcast on the output."""
        counts = np.ones((1,) * 5)
        for axis, size, k, s, (out, before, _) in zip(axes, sizes, self.pool_size, self.strides, plan):
            starts = np.arange(out) * s - before
            per = np.minimum(starts + k, size) - np.maximum(starts, 0)
            shape = [1] * 5
            shape[axis] = out
            counts = counts * per.reshape(shape)
        return counts

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        for axis, k, s in zip(self._spatial_axes(), self.pool_size, self.strides):
            out[axis] = None if out[axis] is None else conv_output_size(out[axis], k, s, self.padding)[0]
        return tuple(out)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format}


class MaxPooling3D(_Pooling3D):
    """3-D max pooling: the largest value of each ``pool_size`` window of ``(batch, d1, d2, d3, channels)``.

    Args:
        pool_size: an int or 3 ints (default (2, 2, 2)).
        strides: an int or 3 ints; None (default) means ``pool_size``.
        padding: ``"valid"`` (default) or ``"same"`` (TF's rule; padding is never the maximum).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Example:
        >>> import descend as ds
        >>> ds.layers.MaxPooling3D(3, 2, padding="same")(ds.ones((1, 5, 5, 5, 2))).shape
        TensorShape([1, 3, 3, 3, 2])
    """

    _max = True


class AveragePooling3D(_Pooling3D):
    """3-D average pooling: the mean of each ``pool_size`` window (``"same"`` padding is not counted, as TF).

    Args:
        pool_size: an int or 3 ints (default (2, 2, 2)).
        strides: an int or 3 ints; None (default) means ``pool_size``.
        padding: ``"valid"`` (default) or ``"same"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Example:
        >>> import descend as ds
        >>> ds.layers.AveragePooling3D()(ds.ones((1, 4, 4, 4, 2))).shape
        TensorShape([1, 2, 2, 2, 2])
    """

    _max = False
