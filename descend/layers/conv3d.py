"""The 3-D convolution layer ``Conv3D`` (as Keras'): ``activation(conv3d(inputs, kernel) + bias)`` over
``(batch, d1, d2, d3, channels)``, kernel ``(*kernel_size, in_channels, filters)``.

Example:
    >>> import descend as ds
    >>> ds.layers.Conv3D(2, 3, padding="same")(ds.ones((1, 4, 4, 4, 1))).shape
    TensorShape([1, 4, 4, 4, 2])
"""

from __future__ import annotations

from ..ops.conv_more_ops import conv3d
from .conv import _Conv

__all__ = ["Conv3D"]


class Conv3D(_Conv):
    """3-D convolution layer.

    Args:
        filters: the number of output channels.
        kernel_size, strides, dilation_rate: an int or 3 ints.
        padding: ``"valid"`` (default) or ``"same"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        groups: grouped convolution, as for ``Conv2D`` (default 1).
        activation, use_bias, initializers, regularizers, constraints: as for ``Conv2D``.
    """

    rank = 3

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        # Keras' order of the arguments, ``groups`` among them (Conv1D/Conv2D take it by keyword only)
        super().__init__(filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         kernel_initializer, bias_initializer, kernel_regularizer, bias_regularizer,
                         activity_regularizer, kernel_constraint, bias_constraint, groups=groups, **kwargs)

    def _convolve(self, x, kernel, channels_last: bool):
        y = conv3d(self.to_channels_last(x), kernel, self.strides, self.padding.upper(), dilations=self.dilation_rate)
        return self.from_channels_last(y)
