"""``RandAugment`` (Cubuk et al. 2019), as Keras 3's: ``num_ops`` augmentations, each picked at random (uniformly,
with replacement, for the whole batch) from Keras' eleven, applied in turn.

The eleven, in Keras' order (their index is what ``layer_idxes`` holds): ``RandomShear`` (x and y by ``factor``),
``RandomTranslation`` (height and width by ``factor``), ``RandomRotation`` (``factor``), ``RandomBrightness``,
``RandomColorDegeneration``, ``RandomContrast``, ``RandomSharpness`` (each by ``factor``), ``RandomPosterization``
(``max(1, int(8 * factor[1]))`` bits), ``Solarization`` (addition and threshold by ``factor``), ``AutoContrast``
and ``Equalization``. ``get_random_transformation`` draws ``{"layer_idxes": (num_ops,)}``; ``transform_images``
runs the picked layers (each drawing its own parameters; a layer picked twice draws twice, where Keras reuses
one draw). Given the same picks, deterministic picks (``AutoContrast``, ``Equalization``) give Keras' images.
``training=False`` returns the images unchanged.

Example:
    >>> import descend as ds, numpy as np
    >>> layer = ds.layers.RandAugment(num_ops=2, factor=0.3, seed=1)
    >>> layer(np.random.default_rng(0).uniform(0, 255, (2, 8, 8, 3)).astype(np.float32)).shape
    TensorShape([2, 8, 8, 3])
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..ops.random_draw import draw
from ._layout import channels_last_only
from .auto_contrast import AutoContrast
from .color_augmentation import RandomColorDegeneration, RandomPosterization, RandomSharpness, Solarization
from .image_filters import Equalization
from .preprocessing import RandomBrightness, RandomContrast, RandomRotation, RandomTranslation, _Random
from .random_shear import RandomShear

__all__ = ["RandAugment"]

_NAMES = ("random_shear", "random_translation", "random_rotation", "random_brightness", "random_color_degeneration",
          "random_contrast", "random_sharpness", "random_posterization", "solarization", "auto_contrast",
          "equalization")


class RandAugment(_Random):
    """Random augmentation policies (``keras.layers.RandAugment``).

    Args:
        value_range: ``(low, high)`` of the images' values (default ``(0, 255)``).
        num_ops: how many augmentations each call applies (a non-negative int, default 2).
        factor: a number ``f`` in ``[0, 1]`` (the range ``(0, f)``) or a pair in ``[0, 1]``: the strength of each
            augmentation (default 0.5).
        interpolation: ``"bilinear"`` (default) or ``"nearest"`` for the geometric ones.
        seed: seeds the picks and the sub-layers' draws.
        data_format: ``"channels_last"`` only (None: ``keras.config.image_data_format()`` must be it).
    """

    def __init__(self, value_range=(0, 255), num_ops=2, factor=0.5, interpolation="bilinear", seed=None,
                 data_format=None, **kwargs):
        if isinstance(num_ops, bool) or not isinstance(num_ops, (int, np.integer)) or num_ops < 0:
            raise ValueError(f"RandAugment: `num_ops` must be a non-negative int. Received: num_ops={num_ops!r}")
        msg = f"RandAugment: `factor` must be a number or a pair of numbers in [0, 1]. Received: factor={factor!r}"
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or not all(isinstance(f, (int, float, np.number)) and not isinstance(f, bool)
                                           for f in factor) or factor[0] > 1 or factor[1] < 0:
                raise ValueError(msg)
            self.factor = tuple(sorted(factor))
        elif isinstance(factor, (int, float, np.number)) and not isinstance(factor, bool) and 0 <= factor <= 1:
            self.factor = (0, factor)
        else:
            raise ValueError(msg)
        data_format = channels_last_only(data_format, type(self).__name__)
        super().__init__(seed=seed, **kwargs)
        self.value_range, self.num_ops, self.interpolation = list(value_range), int(num_ops), interpolation
        self.data_format = data_format
        f, vr = self.factor, tuple(value_range)
        self.layers = [
            RandomShear(x_factor=f, y_factor=f, interpolation=interpolation, seed=seed, data_format=data_format),
            RandomTranslation(height_factor=f, width_factor=f, interpolation=interpolation, seed=seed,
                              data_format=data_format),
            RandomRotation(factor=f, interpolation=interpolation, seed=seed, data_format=data_format),
            RandomBrightness(factor=f, value_range=vr, seed=seed, data_format=data_format),
            RandomColorDegeneration(factor=f, value_range=vr, seed=seed, data_format=data_format),
            RandomContrast(factor=f, value_range=vr, seed=seed, data_format=data_format),
            RandomSharpness(factor=f, value_range=vr, seed=seed, data_format=data_format),
            RandomPosterization(factor=max(1, int(8 * f[1])), value_range=vr, seed=seed, data_format=data_format),
            Solarization(addition_factor=f, threshold_factor=f, value_range=vr, seed=seed),
            AutoContrast(value_range=vr, data_format=data_format),
            Equalization(value_range=vr, data_format=data_format),
        ]

    def get_random_transformation(self, data, training=True, seed=None):
        """``{"layer_idxes": (num_ops,)}``: the picks, indices into Keras' list (module docstring)."""
        if not training:
            return None
        # the images are checked as a call checks them: a value descend cannot read (a symbolic tensor of a
        # framework tracing this function) raises, rather than one draw standing for every element of a trace
        self._images(data["images"] if isinstance(data, dict) else data)
        return {"layer_idxes": draw(fn=lambda: self._rng.integers(0, len(_NAMES), size=self.num_ops).astype(np.int32))}

    def transform_images(self, images, transformation, training=True):
        x = self._images(images)
        if not training or transformation is None:
            return x
        picks = transformation["layer_idxes"]
        picks = np.asarray(picks.numpy() if isinstance(picks, Tensor) else picks).reshape(-1)
        if picks.size and (picks.min() < 0 or picks.max() >= len(_NAMES)):
            raise ValueError(f"RandAugment: layer indices must be in [0, {len(_NAMES)}). Received {picks.tolist()}")
        for i in picks[:self.num_ops]:
            x = self.layers[int(i)](x, training=True)
        return x

    def get_config(self):
        return {**super().get_config(), "value_range": self.value_range, "num_ops": self.num_ops,
                "factor": list(self.factor), "interpolation": self.interpolation, "seed": self.seed,
                "data_format": self.data_format}
