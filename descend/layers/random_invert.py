"""``RandomInvert`` (as Keras'): each image, at random, replaced by ``value_range[1] - x``; the identity when
``training`` is False.

As Keras, per image a probability ``p ~ U(factor)`` and a threshold ``t ~ U(0, 1)`` are drawn and the image is
inverted where ``t < p``: a number ``f`` in ``[0, 1]`` means the range ``(0, f)`` (so ``factor=1.0`` inverts
about half of the images), ``(1.0, 1.0)`` inverts all. The draws are descend's (the recorded random op), so a seed gives
descend's sequence; where the outcome is certain the output is Keras' exactly.

Example:
    >>> import descend as ds
    >>> ds.layers.RandomInvert(factor=(1.0, 1.0), value_range=(0, 1))(ds.constant([[[[0.25]]]])).numpy()
    array([[[[0.75]]]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops
from ..ops.random_draw import draw
from .preprocessing import _factor_pair, _Random

__all__ = ["RandomInvert"]


class RandomInvert(_Random):
    """Inverts images (``value_range[1] - x``) at random.

    Args:
        factor: a number in ``[0, 1]`` (the range ``(0, f)``) or a pair in ``[0, 1]``: the range of the
            per-image probability (default 1.0).
        value_range: ``(low, high)`` of the images' values (default ``(0, 255)``).
        seed: seeds descend's draws.
        data_format: ``"channels_last"`` or ``"channels_first"`` (the inversion is elementwise).
    """

    def __init__(self, factor=1.0, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        self.factor = _factor_pair(factor, 0.0, 1.0, "factor", "RandomInvert")
        if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
            raise ValueError("RandomInvert: `value_range` must be a tuple or list of two numbers. "
                             f"Received: value_range={value_range!r}")
        self.value_range = tuple(value_range)
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"RandomInvert: unknown data_format {data_format!r}")
        self.data_format = resolve_data_format(data_format)  # None: image_data_format(), as Keras
        super().__init__(seed=seed, **kwargs)

    def call(self, inputs, training=True):
        x = self._images(inputs)
        if not training:
            return x
        n = self._batch(x)
        lo, hi = self.factor

        def outcome():
            probability = self._rng.uniform(lo, hi, size=n)
            threshold = self._rng.uniform(0.0, 1.0, size=n)
            return threshold < probability

        apply = draw(fn=outcome)
        mask = array_ops.reshape(apply, shape=(-1, 1, 1, 1) if x.ndim == 4 else (1, 1, 1))
        top = np.asarray(self.value_range[1], dtype=x.dtype.dtype)
        return math_ops.where(mask, math_ops.subtract(top, x), x)

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "value_range": list(self.value_range),
                "seed": self.seed, "data_format": self.data_format}
