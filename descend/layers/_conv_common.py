"""The one base class of every convolution layer (``Conv1D``/``2D``/``3D``, the transposed, depthwise and
separable convolutions): argument checks, the weights' initializer/regularizer/constraint triples, the input
checks, and the bias and activation at the end of ``call``. ``ConvLSTM`` uses its argument checks."""

from __future__ import annotations

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..ops import array_ops, math_ops
from .base import Layer, _serialize_activation
from .core import _data_format


def incompatible(layer, x, detail: str) -> ValueError:
    """The error for an input ``x`` that ``layer`` cannot take (Keras' words)."""
    return ValueError(f"Input 0 of layer '{layer.name}' is incompatible with the layer: {detail}. "
                      f"Full shape received: {tuple(x.shape)}")


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def sizes(value, what: str, owner: str, rank: int) -> tuple:
    """A positive int or a tuple of ``rank`` of them, as a tuple."""
    values = (value,) * rank if _is_int(value) else tuple(value) if isinstance(value, (list, tuple)) else None
    if values is not None and len(values) == rank and all(_is_int(v) for v in values):
        bad = {v for v in values if v <= 0}
        if bad:  # Keras' words for the common mistake
            raise ValueError(f"The `{what}` argument must be a tuple of {rank} integers. Received {what}={value}, "
                             f"including values {bad} that do not satisfy `value > 0`")
        return tuple(int(v) for v in values)
    raise ValueError(f"{owner}: `{what}` must be a positive int or a tuple of {rank} positive ints. Received: "
                     f"{what}={value!r}")


def positive_count(value, what: str) -> int:
    """``filters`` (or another count): a positive int (Keras' words when it is not)."""
    if not _is_int(value) or value <= 0:
        raise ValueError(f"Invalid value for argument `{what}`. Expected a strictly positive value. Received "
                         f"{what}={value}.")
    return int(value)


def padding_mode(value, owner: str, allowed: tuple = ("valid", "same")) -> str:
    p = value.lower() if isinstance(value, str) else None
    if p not in allowed:
        names = ", ".join(repr(a) for a in allowed[:-1]) + f" or {allowed[-1]!r}"
        raise ValueError(f"{owner}: `padding` must be {names}. Received: padding={value!r}")
    return p


class ConvLayer(Layer):
    """The common part: ``rank`` spatial axes, strides, padding, data format, dilation, activation, bias.

    A weight ``w`` (``kernel``, ``depthwise``...) comes with the public attributes ``w_initializer``,
    ``w_regularizer`` and ``w_constraint`` (``weight_args``), is made by ``add_weight_of`` and written to the
    config by ``weight_config``."""

    rank = 2
    paddings = ("valid", "same")

    def __init__(self, kernel_size, strides, padding, data_format, dilation_rate, activation, use_bias,
                 bias_initializer, bias_regularizer, bias_constraint, activity_regularizer=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        owner = type(self).__name__
        self.kernel_size = sizes(kernel_size, "kernel_size", owner, self.rank)
        self.strides = sizes(strides, "strides", owner, self.rank)
        self.padding = padding_mode(padding, owner, self.paddings)
        self.data_format = _data_format(data_format)
        self.dilation_rate = sizes(dilation_rate, "dilation_rate", owner, self.rank)
        if max(self.strides) > 1 and max(self.dilation_rate) > 1:
            raise ValueError("`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: "
                             f"strides={self.strides} and dilation_rate={self.dilation_rate}")  # Keras' words
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.weight_args("bias", bias_initializer, bias_regularizer, bias_constraint)
        self.bias = None

    def weight_args(self, prefix: str, initializer, regularizer=None, constraint=None):
        setattr(self, f"{prefix}_initializer", initializers.get(initializer))
        setattr(self, f"{prefix}_regularizer", regularizers.get(regularizer))
        setattr(self, f"{prefix}_constraint", constraints.get(constraint))

    def add_weight_of(self, prefix: str, name: str, shape: tuple):
        return self.add_weight(shape=shape, initializer=getattr(self, f"{prefix}_initializer"),
                               regularizer=getattr(self, f"{prefix}_regularizer"),
                               constraint=getattr(self, f"{prefix}_constraint"), name=name)

    def weight_config(self, prefix: str) -> dict:
        return {f"{prefix}_initializer": initializers.serialize(getattr(self, f"{prefix}_initializer")),
                f"{prefix}_regularizer": regularizers.serialize(getattr(self, f"{prefix}_regularizer")),
                f"{prefix}_constraint": constraints.serialize(getattr(self, f"{prefix}_constraint"))}

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
        if x.ndim != self.rank + 2:
            raise incompatible(self, x, f"expected ndim={self.rank + 2}, found ndim={x.ndim}")
        if x.shape[self.channel_axis()] != channels:
            raise incompatible(self, x, f"expected axis {self.channel_axis()} of input shape to have value "
                                        f"{channels}")

    def add_bias(self, size: int):
        if self.use_bias:
            self.bias = self.add_weight_of("bias", "bias", (size,))

    def finish(self, y):
        """``activation(y + bias)``, the bias on the channel axis (no activation: linear, as Keras)."""
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

    def output_shape_of(self, input_shape, channels, spatial_sizes) -> tuple:
        """``input_shape`` with its spatial axes mapped by ``spatial_sizes`` and ``channels`` channels."""
        input_shape = tuple(input_shape)
        spatial = input_shape[1:-1] if self.channels_last else input_shape[2:]
        out = spatial_sizes(spatial)
        return (input_shape[0], *out, channels) if self.channels_last else (input_shape[0], channels, *out)

    def get_config(self) -> dict:
        return {**super().get_config(), "kernel_size": self.kernel_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format, "dilation_rate": self.dilation_rate,
                "activation": _serialize_activation(self.activation), "use_bias": self.use_bias,
                **self.weight_config("bias")}
