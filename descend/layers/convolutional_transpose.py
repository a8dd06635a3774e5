"""Transposed convolutions ("deconvolutions"), as Keras' ``Conv1DTranspose``, ``Conv2DTranspose`` and
``Conv3DTranspose``.

``activation(conv2d_transpose(inputs, kernel) + bias)``: the kernel has shape ``(*kernel_size, filters,
in_channels)`` and the output's spatial size is Keras' (``"valid"``: ``in * stride + max(k - stride, 0)``,
``"same"``: ``in * stride``; with ``output_padding``: ``(in - 1) * stride + k - 2 * pad + output_padding``).

Example:
    >>> import descend as ds
    >>> ds.layers.Conv2DTranspose(4, 3, strides=2, padding="same")(ds.ones((1, 5, 5, 2))).shape
    TensorShape([1, 10, 10, 4])
"""

from __future__ import annotations

import numpy as np

from ..ops import array_ops
from ..ops.conv_more_ops import conv2d_transpose, transposed_output_size
from ..ops.nn_extra_ops import conv3d_transpose
from ._conv_common import ConvLayer, positive_count, sizes

__all__ = ["Conv1DTranspose", "Conv2DTranspose", "Conv3DTranspose"]


class _ConvTranspose(ConvLayer):
    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, data_format=None,
                 dilation_rate=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         bias_initializer, bias_regularizer, bias_constraint, activity_regularizer, **kwargs)
        owner = type(self).__name__
        self.filters = positive_count(filters, "filters")
        if output_padding is None:
            self.output_padding = None
        else:
            # non-negative ints (0 allowed, unlike the other sizes)
            shifted = output_padding + 1 if isinstance(output_padding, (int, np.integer)) else (
                [p + 1 if isinstance(p, (int, np.integer)) else p for p in output_padding]
                if isinstance(output_padding, (list, tuple)) else output_padding)
            try:
                self.output_padding = tuple(p - 1 for p in sizes(shifted, "output_padding", owner, self.rank))
            except ValueError:
                raise ValueError(f"{owner}: `output_padding` must be a non-negative int or a tuple of {self.rank} of "
                                 f"them. Received: output_padding={output_padding!r}") from None
            for p, s in zip(self.output_padding, self.strides):
                if p >= s:
                    raise ValueError(f"{owner}: each `output_padding` must be smaller than its stride. Received: "
                                     f"output_padding={self.output_padding}, strides={self.strides}")
        self.weight_args("kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        self.kernel = None

    def build(self, input_shape):
        c = self.input_channels(input_shape)
        self.kernel = self.add_weight_of("kernel", "kernel", (*self.kernel_size, self.filters, c))
        self.add_bias(self.filters)

    def _out_sizes(self, spatial):
        pads = self.output_padding or (None,) * self.rank
        return [None if n is None else transposed_output_size(n, k, s, self.padding, p, d)
                for n, k, s, p, d in zip(spatial, self.kernel_size, self.strides, pads, self.dilation_rate)]

    def call(self, inputs):
        x = self._float_input(inputs)
        self.check_input(x, self.kernel.shape[-1])
        x = self.to_channels_last(x)
        out = self._out_sizes(x.shape[1:-1])
        if self.rank == 1:
            y = conv2d_transpose(array_ops.expand_dims(x, axis=1), array_ops.expand_dims(self.kernel, axis=0),
                                 (x.shape[0], 1, out[0], self.filters), strides=(1, self.strides[0]),
                                 padding=self.padding.upper(), dilations=(1, self.dilation_rate[0]))
            y = array_ops.squeeze(y, axis=1)
        elif self.rank == 3:
            y = conv3d_transpose(x, self.kernel, (x.shape[0], *out, self.filters), strides=self.strides,
                                 padding=self.padding.upper(), dilations=self.dilation_rate)
        else:
            y = conv2d_transpose(x, self.kernel, (x.shape[0], *out, self.filters), strides=self.strides,
                                 padding=self.padding.upper(), dilations=self.dilation_rate)
        return self.finish(self.from_channels_last(y))

    def compute_output_shape(self, input_shape):
        return self.output_shape_of(input_shape, self.filters, self._out_sizes)

    def get_config(self) -> dict:
        return {**super().get_config(), "filters": self.filters, "output_padding": self.output_padding,
                **self.weight_config("kernel")}


class Conv2DTranspose(_ConvTranspose):
    """2-D transposed convolution: ``(batch, H, W, C)`` -> ``(batch, OH, OW, filters)``.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias, and the
        initializers, regularizers and constraints: as for ``Conv2D``.
        output_padding: an int or 2 ints, each smaller than its stride: extra rows/columns at the end.
    """

    rank = 2


class Conv1DTranspose(_ConvTranspose):
    """1-D transposed convolution: ``(batch, steps, C)`` -> ``(batch, out_steps, filters)``."""

    rank = 1


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution: ``(batch, D, H, W, C)`` -> ``(batch, OD, OH, OW, filters)``, kernel
    ``(kd, kh, kw, filters, C)``.

    Args:
        filters, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias, and the
        initializers, regularizers and constraints: as for ``Conv3D``.
        output_padding: an int or 3 ints, each smaller than its stride: extra planes at the end.

    Example:
        >>> import descend as ds
        >>> ds.layers.Conv3DTranspose(2, 3, strides=2, padding="same")(ds.ones((1, 2, 3, 4, 1))).shape
        TensorShape([1, 4, 6, 8, 2])
    """

    rank = 3
