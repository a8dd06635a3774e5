"""The 3-D convolution layer ``Conv3D`` (as Keras'): ``activation(conv3d(inputs, kernel) + bias)`` over
``(batch, d1, d2, d3, channels)``, kernel ``(*kernel_size, in_channels, filters)``.

Example:
    >>> import descend as ds
    >>> ds.layers.Conv3D(2, 3, padding="same")(ds.ones((1, 4, 4, 4, 1))).shape
    TensorShape([1, 4, 4, 4, 2])
"""

from __future__ import annotations

from ..ops.conv_more_ops import conv3d
from ..ops.conv_ops import conv_output_size
from ._conv_common import ConvLayer, WeightSpec

__all__ = ["Conv3D"]


class Conv3D(ConvLayer):
    """3-D convolution layer.

    Args:
        filters: the number of output channels.
        kernel_size, strides, dilation_rate: an int or 3 ints.
        padding: ``"valid"`` (default) or ``"same"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        activation, use_bias, initializers, regularizers, constraints: as for ``Conv2D``.
    """

    rank = 3

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        if groups != 1:
            raise ValueError(f"Conv3D supports groups=1 only. Received: groups={groups!r}")
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         bias_initializer, bias_regularizer, bias_constraint, activity_regularizer, **kwargs)
        if isinstance(filters, bool) or not isinstance(filters, int) or filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. Received "
                             f"filters={filters}.")
        self.filters = int(filters)
        self.kernel_spec = WeightSpec(kernel_initializer, kernel_regularizer, kernel_constraint)
        self.kernel = None

    def build(self, input_shape):
        c = self.input_channels(input_shape)
        self.kernel = self.kernel_spec.add(self, "kernel", (*self.kernel_size, c, self.filters))
        self.add_bias(self.filters)

    def convolution_op(self, inputs, kernel):
        """Keras' hook: the convolution of ``inputs`` with ``kernel`` under this layer's strides, padding,
        dilation and data format, without bias or activation; ``call`` computes through it."""
        y = conv3d(self.to_channels_last(inputs), kernel, self.strides, self.padding.upper(),
                   dilations=self.dilation_rate)
        return self.from_channels_last(y)

    def call(self, inputs):
        x = self._float_input(inputs)
        self.check_input(x, self.kernel.shape[-2])
        return self.finish(self.convolution_op(x, self.kernel))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        spatial = input_shape[1:-1] if self.channels_last else input_shape[2:]
        out = [None if n is None else conv_output_size(n, k, s, self.padding, d)[0]
               for n, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)]
        return (input_shape[0], *out, self.filters) if self.channels_last else (input_shape[0], self.filters, *out)

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters, **self.kernel_spec.config("kernel")}
