"""``RandomGrayscale`` (as Keras'): each image, with probability ``factor``, replaced by its luma
(``0.2989 R + 0.5870 G + 0.1140 B``, TF's weights) in every channel; the identity when ``training`` is False.

The draws are descend's (one uniform per image through the recorded random op, as the other random
preprocessing layers), so a seed gives descend's sequence, not Keras'; at ``factor`` 0 and 1 the output is
Keras' exactly.

Example:
    >>> import descend as ds
    >>> ds.layers.RandomGrayscale(factor=1.0)(ds.constant([[[[1.0, 0.0, 0.0]]]])).numpy()
    array([[[[0.2989, 0.2989, 0.2989]]]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import image
from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops
from ..ops.random_draw import draw
from ._layout import channels_last_kernel
from .preprocessing import _Random

__all__ = ["RandomGrayscale"]


class RandomGrayscale(_Random):
    """Turns each RGB image grey with probability ``factor``.

    Args:
        factor: the probability, in ``[0, 1]`` (default 0.5).
        data_format: ``"channels_last"`` or ``"channels_first"`` (None: ``keras.config.image_data_format()``).
        seed: seeds descend's draws.
    """

    def __init__(self, factor=0.5, data_format=None, seed=None, **kwargs):
        if isinstance(factor, bool) or not isinstance(factor, (int, float, np.number)) or not 0 <= factor <= 1:
            raise ValueError(f"RandomGrayscale: `factor` should be between 0 and 1. Received: factor={factor!r}")
        data_format = resolve_data_format(data_format, "RandomGrayscale")
        self.factor = float(factor)
        self.data_format = data_format
        super().__init__(seed=seed, **kwargs)

    @channels_last_kernel
    def call(self, inputs, training=True):
        x = self._images(inputs)
        if not training:
            return x
        if x.shape[-1] != 3:
            raise ValueError(f"RandomGrayscale: expected RGB images (3 channels). Received shape {tuple(x.shape)}")
        n = self._batch(x)
        apply = draw(fn=lambda: self._rng.uniform(size=n) < self.factor)
        gray = image.rgb_to_grayscale(x)  # one channel, broadcast over the three by where
        mask = array_ops.reshape(apply, shape=(-1, 1, 1, 1) if x.ndim == 4 else (1, 1, 1))
        return math_ops.where(mask, gray, x)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "data_format": self.data_format, "seed": self.seed}
