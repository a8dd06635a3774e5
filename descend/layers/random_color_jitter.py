"""``RandomColorJitter`` (as Keras 3's): random brightness, contrast, saturation and hue, in that order.

Each factor given makes a sub-layer of the same ``value_range`` and ``seed`` (``RandomBrightness``,
``RandomContrast``, ``RandomSaturation``, ``RandomHue``); in training the images go through each in turn, each
drawing its own parameters per image; a factor left None skips its step. With ``training=False`` the images come
back unchanged (cast to the layer's dtype), as Keras.

Example:
    >>> import descend as ds, numpy as np
    >>> jitter = ds.layers.RandomColorJitter(value_range=(0, 1), brightness_factor=(0.1, 0.1))
    >>> jitter(np.full((1, 2, 2, 3), 0.5, np.float32)).numpy()[0, 0, 0].round(4)
    array([0.6, 0.6, 0.6], dtype=float32)
"""

from __future__ import annotations

from ..framework.image_format import resolve_data_format
from .color_augmentation import RandomHue, RandomSaturation
from .preprocessing import RandomBrightness, RandomContrast, _Random

__all__ = ["RandomColorJitter"]


class RandomColorJitter(_Random):
    """Random colour changes in one layer (``keras.layers.RandomColorJitter``).

    Args:
        value_range: ``(low, high)`` of the images' values (default ``(0, 255)``).
        brightness_factor, contrast_factor, saturation_factor, hue_factor: each the ``factor`` of the matching
            layer (see it for its range), or None to skip that change.
        seed: seeds each sub-layer's draws.
        data_format: ``"channels_last"`` or ``"channels_first"``.
    """

    def __init__(self, value_range=(0, 255), brightness_factor=None, contrast_factor=None, saturation_factor=None,
                 hue_factor=None, seed=None, data_format=None, **kwargs):
        super().__init__(seed=seed, **kwargs)
        common = dict(value_range=value_range, seed=seed, data_format=data_format, dtype=self._dtype)
        self.steps = []
        for factor, layer in ((brightness_factor, RandomBrightness), (contrast_factor, RandomContrast),
                              (saturation_factor, RandomSaturation), (hue_factor, RandomHue)):
            if factor is not None:
                self.steps.append(layer(factor, **common))
        self.value_range = list(value_range)
        self.brightness_factor, self.contrast_factor = brightness_factor, contrast_factor
        self.saturation_factor, self.hue_factor = saturation_factor, hue_factor
        self.data_format = resolve_data_format(data_format)  # None: image_data_format(), as Keras

    def call(self, inputs, training=True):
        x = self._images(inputs)
        if not training:
            return x
        for step in self.steps:
            x = step(x, training=True)
        return x

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range, "brightness_factor": self.brightness_factor,
                "contrast_factor": self.contrast_factor, "saturation_factor": self.saturation_factor,
                "hue_factor": self.hue_factor, "seed": self.seed, "data_format": self.data_format}
