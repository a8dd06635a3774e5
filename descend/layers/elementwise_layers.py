"""Elementwise layers without weights, as Keras': ``Identity``, ``Rescaling`` and ``UnitNormalization``.

Example:
    >>> import descend as ds
    >>> ds.layers.Rescaling(0.5, offset=-1.0)(ds.constant([[4.0, 1.0]])).numpy().tolist()
    [[1.0, -0.5]]
"""

from __future__ import annotations

from ..framework.tensor import convert_to_tensor
from ..ops import math_ops
from .base import Layer

__all__ = ["Identity", "Rescaling", "UnitNormalization"]


class Identity(Layer):
    """Returns its input unchanged (a placeholder in a model)."""

    supports_masking = True

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._build_at_init()

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


class UnitNormalization(Layer):
    """Each sample scaled to unit L2 norm over ``axis``: ``x / sqrt(max(sum(x**2), 1e-12))``."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = list(axis) if isinstance(axis, (list, tuple)) else axis
        self._build_at_init()

    def call(self, inputs):
        x = self._float_input(inputs)
        axis = tuple(self.axis) if isinstance(self.axis, list) else self.axis
        squared = math_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
        return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(squared, 1e-12)))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}
