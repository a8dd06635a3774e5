"""What the convolution layers of issue 37 share (``Conv3D``, the transposed, depthwise and separable
convolutions): argument checks, the weights' initializer/regularizer/constraint triples, and the bias and
activation at the end of ``call``."""

from __future__ import annotations

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..ops import array_ops, math_ops
from .base import Layer, _serialize_activation
from .core import _data_format


def sizes(value, what: str, owner: str, rank: int) -> tuple:
    """A positive int or a tuple of ``rank`` of them, as a tuple."""
    values = (value,) * rank if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else (
        tuple(value) if isinstance(value, (list, tuple)) else None)
    if values is None or len(values) != rank or any(
            isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0 for v in values):
        raise ValueError(f"{owner}: `{what}` must be a positive int or a tuple of {rank} of them. Received: "
                         f"{what}={value!r}")
    return tuple(int(v) for v in values)


def padding_mode(value, owner: str) -> str:
    p = value.lower() if isinstance(value, str) else None
    if p not in ("valid", "same"):
        raise ValueError(f"{owner}: `padding` must be 'valid' or 'same'. Received: padding={value!r}")
    return p


class WeightSpec:
    """An initializer, regularizer and constraint for one weight, from the layer's keyword arguments."""

    def __init__(self, initializer, regularizer=None, constraint=None):
        self.initializer = initializers.get(initializer)
        self.regularizer = regularizers.get(regularizer)
        self.constraint = constraints.get(constraint)

    def add(self, layer: Layer, name: str, shape: tuple):
        return layer.add_weight(shape=shape, initializer=self.initializer, regularizer=self.regularizer,
                                constraint=self.constraint, name=name)

    def config(self, prefix: str) -> dict:
        return {f"{prefix}_initializer": initializers.serialize(self.initializer),
                f"{prefix}_regularizer": regularizers.serialize(self.regularizer),
                f"{prefix}_constraint": constraints.serialize(self.constraint)}


class ConvLayer(Layer):
    """The common part: ``rank`` spatial axes, strides, padding, data format, dilation, activation, bias."""

    rank = 2

    def __init__(self, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                 bias_initializer, bias_regularizer, bias_constraint, activity_regularizer=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        owner = type(self).__name__
        self.kernel_size = sizes(kernel_size, "kernel_size", owner, self.rank)
        self.strides = sizes(strides, "strides", owner, self.rank)
        self.padding = padding_mode(padding, owner)
        self.data_format = _data_format(data_format)
        self.dilation_rate = sizes(dilation_rate, "dilation_rate", owner, self.rank)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.bias_spec = WeightSpec(bias_initializer, bias_regularizer, bias_constraint)
        self.bias = None

    @property
    def channels_last(self) -> bool:
        return self.data_format == "channels_last"

    def channel_axis(self) -> int:
        return -1 if self.channels_last else 1

    def input_channels(self, input_shape) -> int:
        input_shape = tuple(input_shape)
        if len(input_shape) != self.rank + 2:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected "
                             f"ndim={self.rank + 2}, found ndim={len(input_shape)}. Full shape received: "
                             f"{input_shape}")
        c = input_shape[self.channel_axis()]
        if c is None:
            raise ValueError(f"Layer '{self.name}' needs a known channel dimension. Received: {input_shape}")
        return int(c)

    def check_input(self, x, channels: int):
        if x.ndim != self.rank + 2 or x.shape[self.channel_axis()] != channels:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected ndim="
                             f"{self.rank + 2} and axis {self.channel_axis()} of size {channels}. Full shape "
                             f"received: {tuple(x.shape)}")

    def add_bias(self, size: int):
        if self.use_bias:
            self.bias = self.bias_spec.add(self, "bias", (size,))

    def finish(self, y):
        """``activation(y + bias)``, the bias on the channel axis."""
        if self.bias is not None:
            b = self.bias if self.channels_last else array_ops.reshape(self.bias, shape=(-1,) + (1,) * self.rank)
            y = math_ops.add(y, b)
        return y if self.activation is None else self.activation(y)

    def to_channels_last(self, x):
        if self.channels_last:
            return x
        return array_ops.transpose(x, perm=(0, *range(2, self.rank + 2), 1))

    def from_channels_last(self, y):
        if self.channels_last:
            return y
        return array_ops.transpose(y, perm=(0, self.rank + 1, *range(1, self.rank + 1)))

    def get_config(self) -> dict:
        return {**super().get_config(), "kernel_size": self.kernel_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format, "dilation_rate": self.dilation_rate,
                "activation": _serialize_activation(self.activation), "use_bias": self.use_bias,
                **self.bias_spec.config("bias")}
