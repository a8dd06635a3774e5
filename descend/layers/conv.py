"""The convolution layers ``Conv1D`` and ``Conv2D`` (one implementation, ``_Conv``, for both ranks).

The ops they call (``descend.ops.conv_ops``: ``conv1d``, ``conv2d``, and the pooling ops of
``descend.layers.pooling``) go through one pair of registered ops on NHWC arrays:

* ``im2col(x)``: the patches ``p[n, i, j, a, b, c] = xpad[n, i*sh + a*dh, j*sw + b*dw, c]``
  of the padded input (``(N, OH, OW, kh, kw, C)``);
* ``col2im(p)``: its adjoint, which adds every patch entry back to the input
  position it came from (and drops the padding).

Each is the other's VJP, so both are differentiable to any order. A
convolution is then ``reshape(im2col(x), (N*OH*OW, kh*kw*C)) @
reshape(kernel, (kh*kw*C, F))`` and max pooling is ``window_max`` of the
patches over the window axes (a tie gives the whole gradient to the first
maximum in the window's row-major order, as TF's max pool does).

Padding follows TensorFlow: ``"valid"`` uses no padding, ``"same"`` gives
``ceil(in / stride)`` outputs and pads ``max((out - 1) * stride + k_eff - in, 0)``
in total, the extra element at the bottom/right (``k_eff = (k - 1) * dilation + 1``).
Max pooling pads with ``-inf``, so padding is never the maximum.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..ops import array_ops, math_ops
from ..ops.conv_ops import _one_d, _padding, _pair, conv1d, conv2d, conv_output_size
from .base import Layer, _serialize_activation
from .core import _data_format

__all__ = ["Conv1D", "Conv2D"]


def _incompatible(layer, x, detail: str) -> ValueError:
    return ValueError(f"Input 0 of layer '{layer.name}' is incompatible with the layer: {detail}. "
                      f"Full shape received: {tuple(x.shape)}")


def _sizes(value, what: str, owner: str, rank: int) -> tuple:
    """A positive int or a tuple of ``rank`` of them, as a tuple."""
    values = tuple(value) if isinstance(value, (list, tuple)) else (value,) * rank
    bad = {v for v in values if isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v <= 0}
    if len(values) == rank and bad:  # Keras' words for the common mistake
        raise ValueError(f"The `{what}` argument must be a tuple of {rank} integers. Received {what}={value}, "
                         f"including values {bad} that do not satisfy `value > 0`")
    return _pair(value, what, owner) if rank == 2 else (_one_d(value, what, owner),)


class _Conv(Layer):
    _call_uses_convolution_op = True
    """``activation(conv(inputs, kernel) + bias)`` over ``rank`` spatial axes; ``Conv1D`` and ``Conv2D``
    set ``rank`` and the op."""

    rank = 2
    paddings = ("valid", "same")

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation=None, use_bias: bool = True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        owner = type(self).__name__
        groups = kwargs.pop("groups", 1)
        if isinstance(groups, bool) or not isinstance(groups, (int, np.integer)) or groups <= 0:
            raise ValueError(f"The number of groups must be a positive integer. Received: groups={groups}.")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        if isinstance(filters, bool) or not isinstance(filters, (int, np.integer)) or filters <= 0:
            raise ValueError(f"Invalid value for argument `filters`. Expected a strictly positive value. Received "
                             f"filters={filters}.")  # Keras' words
        if filters % groups:
            raise ValueError("The number of filters must be evenly divisible by the number of groups. Received: "
                             f"groups={groups}, filters={filters}.")  # Keras' words
        self.filters = int(filters)
        self.groups = int(groups)
        self.kernel_size = _sizes(kernel_size, "kernel_size", owner, self.rank)
        self.strides = _sizes(strides, "strides", owner, self.rank)
        if len(self.paddings) == 2:
            self.padding = _padding(padding, owner)
        elif isinstance(padding, str) and padding.lower() in self.paddings:
            self.padding = padding.lower()
        else:
            raise ValueError(f"{owner}: `padding` must be 'valid', 'same' or 'causal'. Received: padding={padding!r}")
        self.data_format = _data_format(data_format)
        self.dilation_rate = _sizes(dilation_rate, "dilation_rate", owner, self.rank)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")  # Keras' words
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.kernel = None
        self.bias = None

    def _channel_axis(self) -> int:
        return -1 if self.data_format == "channels_last" else 1

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        if len(input_shape) != self.rank + 2:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected "
                             f"ndim={self.rank + 2}, found ndim={len(input_shape)}. Full shape received: {input_shape}")
        c = input_shape[self._channel_axis()]
        if c is None:
            raise ValueError(f"Layer '{self.name}' needs a known channel dimension. Received: {input_shape}")
        if c % self.groups:
            raise ValueError(f"Layer '{self.name}': the number of input channels must be evenly divisible by the "
                             f"number of groups. Received groups={self.groups}, but the input has {c} channels "
                             f"(full input shape {input_shape})")
        self.kernel = self.add_weight(shape=(*self.kernel_size, int(c) // self.groups, self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")

    def _convolve(self, x, kernel, channels_last: bool):
        raise NotImplementedError

    def convolution_op(self, inputs, kernel):
        """Keras' hook: the convolution of ``inputs`` with ``kernel`` under this layer's strides, padding,
        dilation, groups and data format, without bias or activation. ``call`` computes through it, so a
        subclass may override it (a standardized kernel, another padding...) or call it with another kernel.

        With ``groups`` > 1, input channel group ``g`` meets filter group ``g`` only (the kernel's last axis in
        ``groups`` equal parts), and the groups' outputs are joined in order."""
        channels_last = self.data_format == "channels_last"
        if self.groups == 1:
            return self._convolve(inputs, kernel, channels_last)
        axis = self.rank + 1 if channels_last else 1
        parts = zip(array_ops.split(inputs, self.groups, axis=axis), array_ops.split(kernel, self.groups, axis=-1))
        return array_ops.concat([self._convolve(xg, kg, channels_last) for xg, kg in parts], axis=axis)

    def call(self, inputs):
        x = self._float_input(inputs)
        if x.ndim != self.rank + 2:
            raise _incompatible(self, x, f"expected ndim={self.rank + 2}, found ndim={x.ndim}")
        c = self.kernel.shape[self.rank] * self.groups
        if x.shape[self._channel_axis()] != c:
            raise _incompatible(self, x, f"expected axis {self._channel_axis()} of input shape to have value {c}")
        channels_last = self.data_format == "channels_last"
        # (Keras 3's Conv1D.call convolves without its convolution_op, for causal padding: an override there
        # does not change a Conv1D's output, and does not here either)
        y = (self.convolution_op if self._call_uses_convolution_op else partial(_Conv.convolution_op, self))(
            x, self.kernel)
        if self.bias is not None:
            b = self.bias if channels_last else array_ops.reshape(self.bias, shape=(self.filters,) + (1,) * self.rank)
            y = math_ops.add(y, b)
        return y if self.activation is None else self.activation(y)  # None: linear, as Keras

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        channels_last = self.data_format == "channels_last"
        spatial = input_shape[1:1 + self.rank] if channels_last else input_shape[2:2 + self.rank]
        out = []
        for size, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate):
            if size is None:
                out.append(None)
            elif self.padding == "causal":
                out.append((size - 1) // s + 1)
            else:
                out.append(conv_output_size(size, k, s, self.padding, d)[0])
        return (input_shape[0], *out, self.filters) if channels_last else (input_shape[0], self.filters, *out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "groups": self.groups,
            "activation": _serialize_activation(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }


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
