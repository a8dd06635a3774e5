"""Depthwise and separable convolutions, as Keras' ``DepthwiseConv1D``/``DepthwiseConv2D`` and
``SeparableConv1D``/``SeparableConv2D``.

A depthwise convolution convolves each input channel with its own ``depth_multiplier`` filters (kernel
``(*kernel_size, in_channels, depth_multiplier)``, output channel ``c * depth_multiplier + m``); a
separable one follows it with a 1x1 convolution (``pointwise_kernel`` ``(*1, in * multiplier, filters)``).

Example:
    >>> import descend as ds
    >>> ds.layers.DepthwiseConv2D(3, depth_multiplier=2)(ds.ones((1, 5, 5, 3))).shape
    TensorShape([1, 3, 3, 6])
    >>> ds.layers.SeparableConv2D(4, 3, padding="same")(ds.ones((1, 5, 5, 3))).shape
    TensorShape([1, 5, 5, 4])
"""

from __future__ import annotations

from ..ops import array_ops
from ..ops.conv_more_ops import depthwise_conv2d
from ..ops.conv_ops import conv2d, conv_output_size
from ._conv_common import ConvLayer, positive_count

__all__ = ["DepthwiseConv1D", "DepthwiseConv2D", "SeparableConv1D", "SeparableConv2D"]


def _multiplier(value, owner):
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{owner}: `depth_multiplier` must be a positive int. Received: depth_multiplier={value!r}")
    return int(value)


class _Depthwise(ConvLayer):
    def __init__(self, kernel_size, strides=1, padding="valid", depth_multiplier=1, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 bias_initializer="zeros", depthwise_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, depthwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         bias_initializer, bias_regularizer, bias_constraint, activity_regularizer, **kwargs)
        self.depth_multiplier = _multiplier(depth_multiplier, type(self).__name__)
        self.weight_args("depthwise", depthwise_initializer, depthwise_regularizer, depthwise_constraint)
        self.kernel = None

    def build(self, input_shape):
        c = self.input_channels(input_shape)
        self.kernel = self.add_weight_of("depthwise", "kernel", (*self.kernel_size, c, self.depth_multiplier))
        self.add_bias(c * self.depth_multiplier)

    def _depthwise(self, x, kernel):
        """The depthwise convolution of a channels-last ``x`` (1-D as a 2-D of height 1)."""
        if self.rank == 1:
            y = depthwise_conv2d(array_ops.expand_dims(x, axis=1), array_ops.expand_dims(kernel, axis=0),
                                 (1, self.strides[0]), self.padding.upper(), dilations=(1, self.dilation_rate[0]))
            return array_ops.squeeze(y, axis=1)
        return depthwise_conv2d(x, kernel, self.strides, self.padding.upper(), dilations=self.dilation_rate)

    def call(self, inputs):
        x = self._float_input(inputs)
        self.check_input(x, self.kernel.shape[-2])
        y = self._depthwise(self.to_channels_last(x), self.kernel)
        return self.finish(self.from_channels_last(y))

    def _out_spatial(self, spatial):
        return [None if n is None else conv_output_size(n, k, s, self.padding, d)[0]
                for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)]

    def _out_channels(self, c):
        return None if c is None else c * self.depth_multiplier

    def compute_output_shape(self, input_shape):
        return self.output_shape_of(input_shape, self._out_channels(tuple(input_shape)[self.channel_axis()]),
                                    self._out_spatial)

    def get_config(self) -> dict:
        return {**super().get_config(), "depth_multiplier": self.depth_multiplier,
                **self.weight_config("depthwise")}


class DepthwiseConv2D(_Depthwise):
    """Each channel of ``(batch, H, W, C)`` convolved with its own ``depth_multiplier`` filters:
    ``(batch, OH, OW, C * depth_multiplier)``."""

    rank = 2


class DepthwiseConv1D(_Depthwise):
    """Each channel of ``(batch, steps, C)`` convolved with its own ``depth_multiplier`` filters."""

    rank = 1


class _Separable(_Depthwise):
    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 depth_multiplier=1, activation=None, use_bias=True, depthwise_initializer="glorot_uniform",
                 pointwise_initializer="glorot_uniform", bias_initializer="zeros", depthwise_regularizer=None,
                 pointwise_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 depthwise_constraint=None, pointwise_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(kernel_size, strides, padding, depth_multiplier, data_format, dilation_rate, activation,
                         use_bias, depthwise_initializer, bias_initializer, depthwise_regularizer, bias_regularizer,
                         activity_regularizer, depthwise_constraint, bias_constraint, **kwargs)
        self.filters = positive_count(filters, "filters")
        self.weight_args("pointwise", pointwise_initializer, pointwise_regularizer, pointwise_constraint)
        self.depthwise_kernel = None
        self.pointwise_kernel = None

    def build(self, input_shape):
        c = self.input_channels(input_shape)
        self.depthwise_kernel = self.add_weight_of("depthwise", "depthwise_kernel",
                                                        (*self.kernel_size, c, self.depth_multiplier))
        self.pointwise_kernel = self.add_weight_of("pointwise", "pointwise_kernel",
                                                        (1,) * self.rank + (c * self.depth_multiplier, self.filters))
        self.add_bias(self.filters)

    def call(self, inputs):
        x = self._float_input(inputs)
        self.check_input(x, self.depthwise_kernel.shape[-2])
        y = self._depthwise(self.to_channels_last(x), self.depthwise_kernel)
        if self.rank == 1:
            y = array_ops.squeeze(conv2d(array_ops.expand_dims(y, axis=1),
                                         array_ops.expand_dims(self.pointwise_kernel, axis=0)), axis=1)
        else:
            y = conv2d(y, self.pointwise_kernel)
        return self.finish(self.from_channels_last(y))

    def _out_channels(self, c):
        return self.filters

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters, **self.weight_config("pointwise")}


class SeparableConv2D(_Separable):
    """A depthwise 2-D convolution followed by a 1x1 convolution to ``filters`` channels."""

    rank = 2


class SeparableConv1D(_Separable):
    """A depthwise 1-D convolution followed by a pointwise one to ``filters`` channels."""

    rank = 1
