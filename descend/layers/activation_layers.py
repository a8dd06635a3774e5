"""Activation layers with parameters, as Keras': ``ReLU``, ``LeakyReLU``, ``ELU``, ``PReLU``, ``Softmax``.

Each computes a function of :mod:`descend.activations` (``PReLU`` learns its slope per entry, shared over
``shared_axes``); all are differentiable through the tape.

Example:
    >>> import descend as ds
    >>> ds.layers.LeakyReLU(negative_slope=0.1)(ds.constant([-2.0, 3.0])).numpy().tolist()
    [-0.20000000298023224, 3.0]
"""

from __future__ import annotations

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..ops import math_ops, nn_ops
from .base import Layer

__all__ = ["ReLU", "LeakyReLU", "ELU", "PReLU", "Softmax"]


def _non_negative(value, what: str, owner: str, allow_none: bool = False):
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or value < 0:
        raise ValueError(f"{owner}: `{what}` must be a non-negative number. Received: {what}={value!r}")
    return float(value)


class ReLU(Layer):
    """``relu(x, negative_slope, max_value, threshold)`` (Keras' ``ReLU`` layer).

    Args:
        max_value: the cap (None: no cap).
        negative_slope: the slope below ``threshold`` (default 0).
        threshold: the value below which the slope applies (default 0).
    """

    supports_masking = True

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value = _non_negative(max_value, "max_value", "ReLU", allow_none=True)
        self.negative_slope = _non_negative(negative_slope, "negative_slope", "ReLU")
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)):
            raise ValueError(f"ReLU: `threshold` must be a number. Received: threshold={threshold!r}")
        self.threshold = float(threshold)
        self._build_at_init()

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope, max_value=self.max_value,
                                threshold=self.threshold)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "max_value": self.max_value, "negative_slope": self.negative_slope,
                "threshold": self.threshold}


class LeakyReLU(Layer):
    """``x`` for ``x >= 0``, else ``negative_slope * x`` (default slope 0.3, as Keras' layer).

    Args:
        negative_slope: the slope for negative inputs (Keras 2's ``alpha`` is accepted too).
    """

    supports_masking = True

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:  # Keras 2's name
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        self.negative_slope = _non_negative(negative_slope, "negative_slope", "LeakyReLU")
        self._build_at_init()

    def call(self, inputs):
        return nn_ops.leaky_relu(inputs, alpha=self.negative_slope)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "negative_slope": self.negative_slope}


class ELU(Layer):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``."""

    supports_masking = True

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)
        self._build_at_init()

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha": self.alpha}


class Softmax(Layer):
    """Softmax over ``axis``; with a mask (True: keep) the masked entries get probability 0 (Keras adds
    ``-1e9`` to their logits)."""

    supports_masking = True

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis
        self._build_at_init()

    def call(self, inputs, mask=None):
        if mask is not None:
            from ..framework.tensor import convert_to_tensor

            keep = math_ops.cast(convert_to_tensor(mask), inputs.dtype)
            # logits + (1 - mask) * -1e9
            inputs = math_ops.add(inputs, math_ops.multiply(math_ops.subtract(1.0, keep), -1e9))
        if isinstance(self.axis, (list, tuple)):
            # softmax over several axes: exp(x - logsumexp(x, axes))
            return math_ops.exp(math_ops.subtract(inputs, math_ops.reduce_logsumexp(inputs, axis=tuple(self.axis),
                                                                                     keepdims=True)))
        return nn_ops.softmax(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


class PReLU(Layer):
    """``x`` for ``x >= 0``, else ``alpha * x`` with a learned ``alpha`` per entry (shared over
    ``shared_axes``, e.g. ``[1, 2]`` for one slope per channel of an image).

    Args:
        alpha_initializer: default ``"zeros"``.
        alpha_regularizer, alpha_constraint: as for Dense's kernel.
        shared_axes: the axes (counted with the batch axis as 0) along which one slope is shared.
    """

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None, shared_axes=None,
                 **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        else:
            self.shared_axes = [int(shared_axes)] if isinstance(shared_axes, (int, np.integer)) else [
                int(a) for a in shared_axes]
        self.alpha = None

    def build(self, input_shape):
        shape = list(input_shape[1:])
        for axis in self.shared_axes or []:
            shape[axis - 1] = 1
        if any(s is None for s in shape):
            raise ValueError(f"Layer '{self.name}' needs the sizes of the non-shared axes. Received: {input_shape}")
        self.alpha = self.add_weight(shape=tuple(shape), initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer, constraint=self.alpha_constraint,
                                     name="alpha")

    def call(self, inputs):
        # relu(x) - alpha * relu(-x)
        return math_ops.subtract(nn_ops.relu(inputs),
                                 math_ops.multiply(self.alpha, nn_ops.relu(math_ops.negative(inputs))))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "alpha_initializer": initializers.serialize(self.alpha_initializer),
                "alpha_regularizer": regularizers.serialize(self.alpha_regularizer),
                "alpha_constraint": constraints.serialize(self.alpha_constraint), "shared_axes": self.shared_axes}
