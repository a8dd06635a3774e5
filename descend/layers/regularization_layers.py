"""Noise and regularization layers, as Keras': ``GaussianNoise``, ``GaussianDropout``, ``AlphaDropout``,
``SpatialDropout1D/2D/3D`` and ``ActivityRegularization``.

The noise layers are the identity unless called with ``training=True``; then each draws from its own
``numpy.random.Generator`` (seeded by ``seed``, advancing on every call) through the ``draw`` op, so a
compiled step draws afresh on every call.

Example:
    >>> import descend as ds
    >>> noise = ds.layers.GaussianNoise(0.1, seed=0)
    >>> bool((noise(ds.ones((2, 3))).numpy() == 1).all())  # inference: identity
    True
"""

from __future__ import annotations

import math

import numpy as np

from .. import regularizers
from ..ops import math_ops, nn_ops
from ..ops.random_draw import draw
from ._seeded import GeneratorState, layer_rng
from .base import Layer

__all__ = ["GaussianNoise", "GaussianDropout", "AlphaDropout", "SpatialDropout1D", "SpatialDropout2D",
           "SpatialDropout3D", "ActivityRegularization"]


def _rate(value, what: str, owner: str, high_open: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or value < 0 or (
            high_open and value >= 1):
        bound = "[0, 1)" if high_open else ">= 0"
        raise ValueError(f"{owner}: `{what}` must be a number in {bound}. Received: {what}={value!r}")
    return float(value)


class _Noise(GeneratorState, Layer):
    supports_masking = True

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed, self._rng = layer_rng(seed, type(self).__name__)
        self._build_at_init()

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


class GaussianNoise(_Noise):
    """``x + N(0, stddev**2)`` noise while training (additive, zero-mean)."""

    def __init__(self, stddev, seed=None, **kwargs):
        self.stddev = _rate(stddev, "stddev", "GaussianNoise", high_open=False)
        super().__init__(seed=seed, **kwargs)

    def call(self, inputs, training=False):
        if not training or self.stddev == 0:
            return inputs
        dt, shape, rng, sd = inputs.dtype.dtype, tuple(inputs.shape), self._rng, self.stddev
        return math_ops.add(inputs, draw(fn=lambda: (rng.standard_normal(shape) * sd).astype(dt)))

    def get_config(self) -> dict:
        return {**super().get_config(), "stddev": self.stddev, "seed": self.seed}


class GaussianDropout(_Noise):
    """``x * N(1, rate / (1 - rate))`` noise while training (multiplicative, mean 1)."""

    def __init__(self, rate, seed=None, **kwargs):
        self.rate = _rate(rate, "rate", "GaussianDropout")
        super().__init__(seed=seed, **kwargs)

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        dt, shape, rng = inputs.dtype.dtype, tuple(inputs.shape), self._rng
        sd = math.sqrt(self.rate / (1.0 - self.rate))
        return math_ops.multiply(inputs, draw(fn=lambda: (1.0 + rng.standard_normal(shape) * sd).astype(dt)))

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed}


class AlphaDropout(_Noise):
    """Dropout that keeps the mean and variance of SELU activations: dropped entries are set to
    ``-scale * alpha`` of SELU, then ``a * x + b`` restores the moments (Klambauer et al., 2017)."""

    _ALPHA = 1.6732632423543772
    _SCALE = 1.0507009873554805

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        self.rate = _rate(rate, "rate", "AlphaDropout")
        self.noise_shape = noise_shape
        super().__init__(seed=seed, **kwargs)

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        dt, shape, rng, rate = inputs.dtype.dtype, tuple(inputs.shape), self._rng, self.rate
        if self.noise_shape is not None:
            shape = tuple(s if n is None else int(n) for n, s in zip(self.noise_shape, shape))
        alpha_p = -self._ALPHA * self._SCALE
        a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
        b = -a * alpha_p * rate
        keep = draw(fn=lambda: (rng.random(shape) >= rate).astype(dt))
        # a * (x * keep + alpha_p * (1 - keep)) + b
        kept = math_ops.add(math_ops.multiply(inputs, keep), math_ops.multiply(math_ops.subtract(1.0, keep), alpha_p))
        return math_ops.add(math_ops.multiply(kept, a), b)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "noise_shape": self.noise_shape, "seed": self.seed}


class _SpatialDropout(_Noise):
    rank = 1

    def __init__(self, rate, data_format=None, seed=None, **kwargs):
        self.rate = _rate(rate, "rate", type(self).__name__)
        from .core import _data_format

        self.data_format = _data_format(data_format)
        super().__init__(seed=seed, **kwargs)

    def call(self, inputs, training=False):
        if inputs.ndim != self.rank + 2:
            raise ValueError(f"Layer '{self.name}' expects inputs of rank {self.rank + 2}. Received shape "
                             f"{tuple(inputs.shape)}")
        if not training or self.rate == 0:
            return inputs
        n = inputs.shape[0]
        c = inputs.shape[-1] if self.data_format == "channels_last" else inputs.shape[1]
        # one draw per (example, channel): whole feature maps are dropped
        ns = (n, *([1] * self.rank), c) if self.data_format == "channels_last" else (n, c, *([1] * self.rank))
        return nn_ops.dropout(inputs, self.rate, noise_shape=ns, seed=self._rng)

    def get_config(self) -> dict:
        config = {**super().get_config(), "rate": self.rate, "seed": self.seed}
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class SpatialDropout1D(_SpatialDropout):
    """Dropout of whole channels of ``(batch, steps, channels)`` while training."""

    rank = 1

    def __init__(self, rate, seed=None, **kwargs):
        super().__init__(rate, None, seed, **kwargs)


class SpatialDropout2D(_SpatialDropout):
    """Dropout of whole feature maps of an image batch while training."""

    rank = 2


class SpatialDropout3D(_SpatialDropout):
    """Dropout of whole feature volumes while training."""

    rank = 3


class ActivityRegularization(Layer):
    """The identity, adding ``l1 * sum(|x|) + l2 * sum(x**2)`` (divided by the batch size) to the losses."""

    supports_masking = True

    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        l1, l2 = float(l1), float(l2)
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2
        self._build_at_init()

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        config = {k: v for k, v in super().get_config().items() if k != "activity_regularizer"}
        return {**config, "l1": self.l1, "l2": self.l2}
