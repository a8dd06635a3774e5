"""The convolution layers ``Conv1D`` and ``Conv2D`` (one implementation, ``_Conv``, for every rank: ``Conv3D``
in conv3d.py is one too), on the base class of all convolution layers, ``_conv_common.ConvLayer``.

The ops they call (``descend.ops.conv_ops``: ``conv1d``, ``conv2d``, and the pooling ops of
``descend.layers.pooling``) go through one pair of registered ops on NHWC arrays:

* ``im2col(x)``: the patches ``p[n, i, j, a, b, c] = xpad[n, i*sh + a*dh, j*sw + b*dw, c]``
  of the padded input (``(N, OH, OW, kh, kw, C)``);
* ``col2im(p)``: its adjoint, which adds every patch entry back to the input
  position it came from (and drops the padding).

Each is the other's VJP, so both are differentiable to any order. A
convolution is then ``reshape(im2col(x), (N*OH*OW, kh*kw*C)) @
reshape(kernel, (kh*kw*C, F))``. Max pooling is one pass over the image
(``max_pool_windows``) that records the offset of each window's maximum; its
gradient goes to that offset alone (a tie gives the whole gradient to the first
maximum in the window's row-major order, as TF's ``MaxPoolGrad`` does).

Padding follows TensorFlow: ``"valid"`` uses no padding, ``"same"`` gives
``ceil(in / stride)`` outputs and pads ``max((out - 1) * stride + k_eff - in, 0)``
in total, the extra element at the bottom/right (``k_eff = (k - 1) * dilation + 1``).
Max pooling pads with ``-inf``, so padding is never the maximum.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ..ops import array_ops
from ..ops.conv_ops import conv1d, conv2d, conv_output_size
from ._conv_common import ConvLayer, positive_count

__all__ = ["Conv1D", "Conv2D"]


class _Conv(ConvLayer):
    """``activation(conv(inputs, kernel) + bias)`` over ``rank`` spatial axes, ``filters`` output channels in
    ``groups``; ``Conv1D``, ``Conv2D`` and ``Conv3D`` set ``rank`` and the op (``_convolve``)."""

    _call_uses_convolution_op = True
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation=None, use_bias: bool = True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        groups = kwargs.pop("groups", 1)
        if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. Received: groups={groups}.")
        super().__init__(kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                         bias_initializer, bias_regularizer, bias_constraint, activity_regularizer, **kwargs)
        filters = positive_count(filters, "filters")
        if filters % groups:
            raise ValueError("The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={groups}, filters={filters}.")  # Keras' words
        self.filters = filters
        self.groups = int(groups)
        self.weight_args("kernel", kernel_initializer, kernel_regularizer, kernel_constraint)
        self.kernel = None

    def build(self, input_shape):
        c = self.input_channels(input_shape)
        if c % self.groups:
            raise ValueError(f"Layer '{self.name}': the number of input channels must be evenly divisible by the "
                             f"number of groups. Received groups={self.groups}, but the input has {c} channels "
                             f"(full input shape {tuple(input_shape)})")
        self.kernel = self.add_weight_of("kernel", "kernel", (*self.kernel_size, c // self.groups, self.filters))
        self.add_bias(self.filters)

    def _convolve(self, x, kernel, channels_last: bool):
        raise NotImplementedError

    def convolution_op(self, inputs, kernel):
        """Keras' hook: the convolution of ``inputs`` with ``kernel`` under this layer's strides, padding,
        dilation, groups and data format, without bias or activation. ``call`` computes through it, so a
        subclass may override it (a standardized kernel, another padding...) or call it with another kernel.

        With ``groups`` > 1, input channel group ``g`` meets filter group ``g`` only (the kernel's last axis in
        ``groups`` equal parts), and the groups' outputs are joined in order."""
        channels_last = self.channels_last
        if self.groups == 1:
            return self._convolve(inputs, kernel, channels_last)
        axis = self.rank + 1 if channels_last else 1
        parts = zip(array_ops.split(inputs, self.groups, axis=axis), array_ops.split(kernel, self.groups, axis=-1))
        return array_ops.concat([self._convolve(xg, kg, channels_last) for xg, kg in parts], axis=axis)

    def call(self, inputs):
        x = self._float_input(inputs)
        self.check_input(x, self.kernel.shape[self.rank] * self.groups)
        # (Keras 3's Conv1D.call convolves without its convolution_op, for causal padding: an override there
        # does not change a Conv1D's output, and does not here either)
        y = (self.convolution_op if self._call_uses_convolution_op else partial(_Conv.convolution_op, self))(
            x, self.kernel)
        return self.finish(y)

    def _out_sizes(self, spatial):
        return [None if size is None else (size - 1) // s + 1 if self.padding == "causal"
                else conv_output_size(size, k, s, self.padding, d)[0]
                for size, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate)]

    def compute_output_shape(self, input_shape):
        return self.output_shape_of(input_shape, self.filters, self._out_sizes)

    _CONFIG_ORDER = ("filters", "kernel_size", "strides", "padding", "data_format", "dilation_rate", "groups",
                     "activation", "use_bias", "kernel_initializer", "bias_initializer", "kernel_regularizer",
                     "bias_regularizer", "kernel_constraint", "bias_constraint")

    def get_config(self) -> dict:
        config = {**super().get_config(), "filters": self.filters, "groups": self.groups,
                  **self.weight_config("kernel")}
        own = set(self._CONFIG_ORDER)  # the layer's keys first, then these in Keras' order
        return {**{k: v for k, v in config.items() if k not in own}, **{k: config[k] for k in self._CONFIG_ORDER}}


class Conv2D(_Conv):
    """2-D convolution layer: ``activation(conv2d(inputs, kernel) + bias)``.

    The kernel has shape ``(kh, kw, in_channels // groups, filters)``. Inputs are
    ``(batch, H, W, C)`` (``"channels_last"``) or ``(batch, C, H, W)``.

    Args:
        filters: the number of output channels (a positive int).
        kernel_size: an int or a tuple of 2 ints.
        strides: an int or 2 ints (default 1).
        padding: ``"valid"`` (default) or ``"same"`` (TF's rule: extra padding
            at the bottom/right).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: an int or 2 ints (default 1); strides and dilation
            cannot both exceed 1.
        groups: split the input channels and the filters into this many
            groups, each group of filters seeing its group of channels only
            (the kernel is ``(kh, kw, in_channels // groups, filters)``); both
            must divide by it (default 1).
        activation: a name or callable; None is linear.
        use_bias: add a bias per filter (default True).
        kernel_initializer, bias_initializer: defaults ``"glorot_uniform"``, ``"zeros"``.
        kernel_regularizer, bias_regularizer, activity_regularizer,
        kernel_constraint, bias_constraint: as for Dense.

    Example:
        >>> import descend as ds
        >>> from descend.layers import Conv2D
        >>> Conv2D(4, 3, padding="same")(ds.ones((2, 5, 5, 3))).shape
        TensorShape([2, 5, 5, 4])
    """

    rank = 2

    def _convolve(self, x, kernel, channels_last: bool):
        return conv2d(x, kernel, strides=self.strides, padding=self.padding,
                      data_format="NHWC" if channels_last else "NCHW", dilations=self.dilation_rate)


class Conv1D(_Conv):
    """1-D convolution over the steps axis: ``activation(conv1d(inputs, kernel) + bias)``.

    The kernel has shape ``(kernel_size, in_channels, filters)``; inputs are
    ``(batch, steps, channels)`` (``"channels_last"``) or ``(batch, channels, steps)``.

    Args:
        filters: the number of output channels.
        kernel_size: an int (or a tuple of 1 int).
        strides: an int (default 1).
        padding: ``"valid"`` (default), ``"same"`` or ``"causal"`` (left
            padding only: output ``t`` sees inputs ``<= t``).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        dilation_rate: an int (default 1); strides and dilation cannot both exceed 1.
        groups: grouped convolution, as for Conv2D (default 1).
        activation, use_bias, initializers, regularizers, constraints: as for Conv2D.

    Example:
        >>> import descend as ds
        >>> ds.layers.Conv1D(4, 3, padding="causal")(ds.ones((2, 7, 3))).shape
        TensorShape([2, 7, 4])
    """

    _call_uses_convolution_op = False
    rank = 1
    paddings = ("valid", "same", "causal")

    def _convolve(self, x, kernel, channels_last: bool):
        return conv1d(x, kernel, stride=self.strides[0], padding=self.padding,
                      data_format="NWC" if channels_last else "NCW", dilations=self.dilation_rate[0])
