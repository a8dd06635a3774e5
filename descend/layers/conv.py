"""2-D convolution and max pooling: the ``im2col``/``col2im`` ops, ``conv2d``, ``max_pool2d``,
and the ``Conv2D`` and ``MaxPooling2D`` layers.

Both computations go through one pair of registered ops on NHWC arrays:

* ``im2col(x)``: the patches ``p[n, i, j, a, b, c] = xpad[n, i*sh + a*dh, j*sw + b*dw, c]``
  of the padded input (``(N, OH, OW, kh, kw, C)``);
* ``col2im(p)``: its adjoint, which adds every patch entry back to the input
  position it came from (and drops the padding).

Each is the other's VJP, so both are differentiable to any order. A
convolution is then ``reshape(im2col(x), (N*OH*OW, kh*kw*C)) @
reshape(kernel, (kh*kw*C, F))`` and max pooling is ``reduce_max`` of the
patches over the window axes (a tie shares the gradient equally, as
``reduce_max``; TF's max pool gives it to one element).

Padding follows TensorFlow: ``"valid"`` uses no padding, ``"same"`` gives
``ceil(in / stride)`` outputs and pads ``max((out - 1) * stride + k_eff - in, 0)``
in total, the extra element at the bottom/right (``k_eff = (k - 1) * dilation + 1``).
Max pooling pads with ``-inf``, so padding is never the maximum.
"""

from __future__ import annotations

from .. import activations, constraints, initializers, regularizers
from ..ops import array_ops, math_ops
from ..ops.conv_ops import _one_d, _padding, _pair, conv1d, conv2d, conv_output_size, max_pool2d
from .base import Layer, _serialize_activation
from .core import _data_format, _positive_int

__all__ = ["Conv1D", "Conv2D", "MaxPooling2D"]


def _incompatible(layer, x, detail: str) -> ValueError:
    return ValueError(f"Input 0 of layer '{layer.name}' is incompatible with the layer: {detail}. "
                      f"Full shape received: {tuple(x.shape)}")


class Conv2D(Layer):
    """2-D convolution layer: ``activation(conv2d(inputs, kernel) + bias)``.

    The kernel has shape ``(kh, kw, in_channels, filters)``. Inputs are
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
        activation: a name or callable; None is linear.
        use_bias: add a bias per filter (default True).
        kernel_initializer, bias_initializer: defaults ``"glorot_uniform"``, ``"zeros"``.
        kernel_regularizer, bias_regularizer, activity_regularizer,
        kernel_constraint, bias_constraint: as for Dense.

    Example:
        >>> import descend as ds
        >>> from descend.layers import Conv2D
        >>> Conv2D(4, 3, padding="same")(ds.ones((2, 5, 5, 3))).shape
        (2, 5, 5, 4)
    """

    def __init__(self, filters, kernel_size, strides=(1, 1), padding="valid", data_format=None, dilation_rate=(1, 1),
                 activation=None, use_bias: bool = True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        groups = kwargs.pop("groups", 1)
        if groups != 1:
            raise ValueError(f"Conv2D supports groups=1 only. Received: groups={groups!r}")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = _positive_int(filters, "filters", "Conv2D")
        self.kernel_size = _pair(kernel_size, "kernel_size", "Conv2D")
        self.strides = _pair(strides, "strides", "Conv2D")
        self.padding = _padding(padding, "Conv2D")
        self.data_format = _data_format(data_format)
        self.dilation_rate = _pair(dilation_rate, "dilation_rate", "Conv2D")
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError(f"Conv2D: strides > 1 cannot be combined with dilation_rate > 1. Received: "
                             f"strides={self.strides}, dilation_rate={self.dilation_rate}")
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
        if len(input_shape) != 4:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected ndim=4, found "
                             f"ndim={len(input_shape)}. Full shape received: {input_shape}")
        c = input_shape[self._channel_axis()]
        if c is None:
            raise ValueError(f"Layer '{self.name}' needs a known channel dimension. Received: {input_shape}")
        self.kernel = self.add_weight(shape=(*self.kernel_size, int(c), self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")

    def call(self, inputs):
        x = self._float_input(inputs)
        if x.ndim != 4:
            raise _incompatible(self, x, f"expected ndim=4, found ndim={x.ndim}")
        c = self.kernel.shape[2]
        if x.shape[self._channel_axis()] != c:
            raise _incompatible(self, x, f"expected axis {self._channel_axis()} of input shape to have value {c}")
        fmt = "NHWC" if self.data_format == "channels_last" else "NCHW"
        y = conv2d(x, self.kernel, strides=self.strides, padding=self.padding, data_format=fmt,
                   dilations=self.dilation_rate)
        if self.bias is not None:
            b = self.bias if fmt == "NHWC" else array_ops.reshape(self.bias, shape=(self.filters, 1, 1))
            y = math_ops.add(y, b)
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        spatial = input_shape[1:3] if self.data_format == "channels_last" else input_shape[2:4]
        out = []
        for size, k, s, d in zip(spatial, self.kernel_size, self.strides, self.dilation_rate):
            out.append(None if size is None else conv_output_size(size, k, s, self.padding, d)[0])
        if self.data_format == "channels_last":
            return (input_shape[0], *out, self.filters)
        return (input_shape[0], self.filters, *out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": _serialize_activation(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }


class MaxPooling2D(Layer):
    """2-D max pooling: the largest value of each ``pool_size`` window.

    Args:
        pool_size: an int or 2 ints (default (2, 2)).
        strides: an int or 2 ints; None (default) means ``pool_size``.
        padding: ``"valid"`` (default) or ``"same"`` (TF's rule).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Example:
        >>> import descend as ds
        >>> from descend.layers import MaxPooling2D
        >>> MaxPooling2D()(ds.ones((2, 5, 5, 3))).shape
        (2, 2, 2, 3)
    """

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _pair(pool_size, "pool_size", "MaxPooling2D")
        self.strides = self.pool_size if strides is None else _pair(strides, "strides", "MaxPooling2D")
        self.padding = _padding(padding, "MaxPooling2D")
        self.data_format = _data_format(data_format)

    def call(self, inputs):
        x = self._float_input(inputs)
        if x.ndim != 4:
            raise _incompatible(self, x, f"expected ndim=4, found ndim={x.ndim}")
        fmt = "NHWC" if self.data_format == "channels_last" else "NCHW"
        return max_pool2d(x, self.pool_size, self.strides, padding=self.padding, data_format=fmt)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        spatial = input_shape[1:3] if self.data_format == "channels_last" else input_shape[2:4]
        out = [None if size is None else conv_output_size(size, k, s, self.padding)[0]
               for size, k, s in zip(spatial, self.pool_size, self.strides)]
        if self.data_format == "channels_last":
            return (input_shape[0], *out, input_shape[3])
        return (input_shape[0], input_shape[1], *out)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": self.pool_size, "padding": self.padding,
                "strides": self.strides, "data_format": self.data_format}


class Conv1D(Layer):
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
        activation, use_bias, initializers, regularizers, constraints: as for Conv2D.

    Example:
        >>> import descend as ds
        >>> ds.layers.Conv1D(4, 3, padding="causal")(ds.ones((2, 7, 3))).shape
        (2, 7, 4)
    """

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 activation=None, use_bias: bool = True, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, **kwargs):
        groups = kwargs.pop("groups", 1)
        if groups != 1:
            raise ValueError(f"Conv1D supports groups=1 only. Received: groups={groups!r}")
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.filters = _positive_int(filters, "filters", "Conv1D")
        self.kernel_size = (_one_d(kernel_size, "kernel_size", "Conv1D"),)
        self.strides = (_one_d(strides, "strides", "Conv1D"),)
        if not (isinstance(padding, str) and padding.lower() in ("valid", "same", "causal")):
            raise ValueError(f"Conv1D: `padding` must be 'valid', 'same' or 'causal'. Received: padding={padding!r}")
        self.padding = padding.lower()
        self.data_format = _data_format(data_format)
        self.dilation_rate = (_one_d(dilation_rate, "dilation_rate", "Conv1D"),)
        if self.strides[0] > 1 and self.dilation_rate[0] > 1:
            raise ValueError(f"Conv1D: strides > 1 cannot be combined with dilation_rate > 1. Received: "
                             f"strides={self.strides}, dilation_rate={self.dilation_rate}")
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
        if len(input_shape) != 3:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected ndim=3, found "
                             f"ndim={len(input_shape)}. Full shape received: {input_shape}")
        c = input_shape[self._channel_axis()]
        if c is None:
            raise ValueError(f"Layer '{self.name}' needs a known channel dimension. Received: {input_shape}")
        self.kernel = self.add_weight(shape=(self.kernel_size[0], int(c), self.filters),
                                      initializer=self.kernel_initializer, regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")

    def call(self, inputs):
        x = self._float_input(inputs)
        if x.ndim != 3:
            raise _incompatible(self, x, f"expected ndim=3, found ndim={x.ndim}")
        c = self.kernel.shape[1]
        if x.shape[self._channel_axis()] != c:
            raise _incompatible(self, x, f"expected axis {self._channel_axis()} of input shape to have value {c}")
        fmt = "NWC" if self.data_format == "channels_last" else "NCW"
        y = conv1d(x, self.kernel, stride=self.strides[0], padding=self.padding, data_format=fmt,
                   dilations=self.dilation_rate[0])
        if self.bias is not None:
            b = self.bias if fmt == "NWC" else array_ops.reshape(self.bias, shape=(self.filters, 1))
            y = math_ops.add(y, b)
        return self.activation(y)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        steps = input_shape[1] if self.data_format == "channels_last" else input_shape[2]
        if steps is None:
            out = None
        elif self.padding == "causal":
            out = (steps - 1) // self.strides[0] + 1
        else:
            out = conv_output_size(steps, self.kernel_size[0], self.strides[0], self.padding,
                                   self.dilation_rate[0])[0]
        if self.data_format == "channels_last":
            return (input_shape[0], out, self.filters)
        return (input_shape[0], self.filters, out)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "filters": self.filters,
            "kernel_size": self.kernel_size,
            "strides": self.strides,
            "padding": self.padding,
            "data_format": self.data_format,
            "dilation_rate": self.dilation_rate,
            "activation": _serialize_activation(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }
