"""``GroupNormalization`` and ``RMSNormalization`` (as Keras').

* ``GroupNormalization(groups)``: the channels split into ``groups``; each sample's group normalized by
  its own mean and variance over the group's channels and every spatial position, then ``gamma`` and
  ``beta`` per channel (``groups=-1``: instance normalization; ``groups=1``: layer normalization over
  all axes but the batch).
* ``RMSNormalization``: ``x / sqrt(mean(x**2, axis) + epsilon) * scale``.

Example:
    >>> import descend as ds
    >>> ds.layers.GroupNormalization(groups=2)(ds.ones((2, 3, 4))).shape
    TensorShape([2, 3, 4])
"""

from __future__ import annotations

from .. import constraints, initializers, regularizers
from ..ops import array_ops, math_ops
from .base import Layer

__all__ = ["GroupNormalization", "RMSNormalization"]


class GroupNormalization(Layer):
    """Group normalization (Wu & He, 2018).

    Args:
        groups: the number of groups (a divisor of the channel count; -1: one per channel).
        axis: the channel axis (default -1).
        epsilon: added to the variance (default 1e-3).
        center, scale: learn ``beta`` / ``gamma`` (default True).
    """

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.groups = int(groups)
        self.axis = int(axis)
        self.epsilon = float(epsilon)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.gamma = self.beta = None

    def build(self, input_shape):
        c = input_shape[self.axis]
        if c is None:
            raise ValueError(f"Axis {self.axis} of input tensor should have a defined dimension but the layer "
                             f"received an input with shape {tuple(input_shape)}.")
        groups = c if self.groups == -1 else self.groups
        if groups <= 0 or groups > c or c % groups:
            raise ValueError(f"Number of groups ({self.groups}) must be a positive divisor of the number of channels "
                             f"({c}). Received input shape {tuple(input_shape)}")
        self._groups = groups
        if self.scale:
            self.gamma = self.add_weight(shape=(c,), initializer=self.gamma_initializer, name="gamma",
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint)
        if self.center:
            self.beta = self.add_weight(shape=(c,), initializer=self.beta_initializer, name="beta",
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint)

    def call(self, inputs):
        x = self._float_input(inputs)
        axis = self.axis % x.ndim
        c = x.shape[axis]
        g = self._groups
        # (..., c, ...) -> (..., g, c // g, ...): statistics over everything but the batch and group axes
        grouped = array_ops.reshape(x, shape=(*x.shape[:axis], g, c // g, *x.shape[axis + 1:]))
        reduce_axes = tuple(a for a in range(1, grouped.ndim) if a != axis)
        mean = math_ops.reduce_mean(grouped, axis=reduce_axes, keepdims=True)
        var = math_ops.reduce_mean(math_ops.squared_difference(grouped, mean), axis=reduce_axes, keepdims=True)
        normed = math_ops.multiply(math_ops.subtract(grouped, mean), math_ops.rsqrt(math_ops.add(var, self.epsilon)))
        y = array_ops.reshape(normed, shape=tuple(x.shape))
        shape = [1] * x.ndim
        shape[axis] = c
        if self.gamma is not None:
            y = math_ops.multiply(y, array_ops.reshape(self.gamma, shape=tuple(shape)))
        if self.beta is not None:
            y = math_ops.add(y, array_ops.reshape(self.beta, shape=tuple(shape)))
        return y

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "groups": self.groups, "axis": self.axis, "epsilon": self.epsilon,
                "center": self.center, "scale": self.scale,
                "beta_initializer": initializers.serialize(self.beta_initializer),
                "gamma_initializer": initializers.serialize(self.gamma_initializer),
                "beta_regularizer": regularizers.serialize(self.beta_regularizer),
                "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
                "beta_constraint": constraints.serialize(self.beta_constraint),
                "gamma_constraint": constraints.serialize(self.gamma_constraint)}


class RMSNormalization(Layer):
    """``x / sqrt(mean(x**2, axis) + epsilon) * scale``, ``scale`` learned per entry of ``axis``."""

    def __init__(self, axis=-1, epsilon=1e-6, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self.epsilon = float(epsilon)
        self.scale = None

    def build(self, input_shape):
        axes = [self.axis] if isinstance(self.axis, int) else list(self.axis)
        shape = tuple(input_shape[a] for a in axes)
        self.scale = self.add_weight(shape=shape, initializer="ones", name="scale")

    def call(self, inputs):
        x = self._float_input(inputs)
        axis = self.axis if isinstance(self.axis, int) else tuple(self.axis)
        ms = math_ops.reduce_mean(math_ops.square(x), axis=axis, keepdims=True)
        y = math_ops.multiply(x, math_ops.rsqrt(math_ops.add(ms, self.epsilon)))
        return math_ops.multiply(y, self.scale)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis, "epsilon": self.epsilon}
