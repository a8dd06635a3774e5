"""``RandomErasing`` (as Keras 3's, Zhong et al. 2017): replaces a random box of some images by noise or a value.

Per image: ``(a, b) ~ U(scale)`` twice, a box of ``sqrt(a)`` of the width and ``sqrt(b)`` of the height at a
uniform position (Keras' rule: pixels with ``x0 <= col < x1`` and ``y0 <= row < y1``), erased with probability
``p ~ U(factor)`` (a threshold ``t ~ U(0, 1)``, erased where ``t < p``). The box takes ``fill_value``: a number, three
numbers (one per channel), or None: Gaussian noise times ``value_range[1]``, clipped to ``value_range``. Draw and
transform are split as in the colour layers (on Keras' draws the transform gives Keras' images; the draws are
descend's); ``training=False`` returns the images unchanged.

Example:
    >>> import descend as ds, numpy as np
    >>> out = ds.layers.RandomErasing(factor=(1.0, 1.0), scale=(0.25, 0.25), fill_value=0.0, seed=1)(
    ...     np.ones((1, 4, 4, 1), np.float32))
    >>> int((out.numpy() == 0).sum())   # a 2 x 2 box (half the width, half the height)
    4
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..ops import array_ops, math_ops
from ..ops.random_draw import draw
from .color_augmentation import _ColorAugmentation, _keras_factor, _number

__all__ = ["RandomErasing"]


class RandomErasing(_ColorAugmentation):
    """Erases a random box in images at random (``keras.layers.RandomErasing``).

    Args:
        factor: a number ``f`` in ``[0, 1]`` (the probability range ``(0, f)``) or a pair in ``[0, 1]`` (default 1.0).
        scale: a number or a pair in ``[0, 1]``: the range of the box's area share per axis before the square root
            (default ``(0.02, 0.33)``).
        fill_value: None (noise), a number, or a list of three numbers.
        value_range, seed, data_format: as the colour layers.
    """

    def __init__(self, factor=1.0, scale=(0.02, 0.33), fill_value=None, value_range=(0, 255), seed=None,
                 data_format=None, **kwargs):
        self.factor = _keras_factor(factor, (0, 1), "RandomErasing")
        self.scale = _keras_factor(scale, (0, 1), "RandomErasing")
        if fill_value is not None and not _number(fill_value) and not (
                isinstance(fill_value, (tuple, list)) and len(fill_value) == 3 and all(_number(v) for v in fill_value)):
            raise ValueError(f"RandomErasing: `fill_value` must be None, a number or a list of three numbers. "
                             f"Received: fill_value={fill_value!r}")
        self.fill_value = list(fill_value) if isinstance(fill_value, (tuple, list)) else fill_value
        super().__init__(value_range=value_range, data_format=data_format, seed=seed, **kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        """``{"apply_erasing" (batch,), "batch_masks" (bool, the images' shape), "fill_value" (the images' shape)}``."""
        if not training:
            return None
        images = self._images(data["images"] if isinstance(data, dict) else data)
        batch = images if images.ndim == 4 else array_ops.expand_dims(images, axis=0)
        shape = tuple(batch.shape)
        last = self.data_format == "channels_last"
        n, (h, w, c) = shape[0], (shape[1:4] if last else (shape[2], shape[3], shape[1]))
        dt = self.compute_dtype.dtype
        noise = self.fill_value is None

        def sample():
            share = np.sqrt(self._rng.uniform(self.scale[0], self.scale[1], size=(n, 2)).astype(dt))
            bounds = []
            for k, length in ((0, w), (1, h)):
                crop = (share[:, k] * dt.type(length)).astype(dt)
                start = (self._rng.uniform(0, 1, size=n).astype(dt) * (dt.type(length) - crop)).astype(dt)
                bounds += [start, start + crop]
            probability = self._rng.uniform(self.factor[0], self.factor[1], size=n)
            threshold = self._rng.uniform(0.0, 1.0, size=n)
            fill = self._rng.standard_normal(shape).astype(dt).ravel() if noise else np.zeros(0)
            return np.concatenate([np.stack(bounds).ravel().astype(np.float64),
                                   (threshold < probability).astype(np.float64), fill.astype(np.float64)])

        drawn = draw(fn=sample)
        x0, x1, y0, y1 = (math_ops.cast(drawn[i * n:(i + 1) * n], dtype=dt) for i in range(4))
        apply = math_ops.cast(drawn[4 * n:5 * n], dtype="bool")
        gy, gx = np.meshgrid(np.arange(h, dtype=dt), np.arange(w, dtype=dt), indexing="ij")
        grid = (1, h, w, 1) if last else (1, 1, h, w)

        def col(v):
            return array_ops.reshape(v, shape=(-1, 1, 1, 1))

        gx, gy = gx.reshape(grid), gy.reshape(grid)
        inside = math_ops.logical_and(
            math_ops.logical_and(math_ops.greater_equal(gx, col(x0)), math_ops.less(gx, col(x1))),
            math_ops.logical_and(math_ops.greater_equal(gy, col(y0)), math_ops.less(gy, col(y1))))
        masks = array_ops.tile(inside, multiples=(1, 1, 1, c) if last else (1, c, 1, 1))
        if noise:
            fill = math_ops.multiply(array_ops.reshape(math_ops.cast(drawn[5 * n:], dtype=dt), shape=shape),
                                     np.asarray(self.value_range[1], dt))
        else:
            values = np.asarray(self.fill_value, dt)
            if values.ndim == 1:  # one value per channel
                values = values.reshape((1, 1, 1, 3) if last else (1, 3, 1, 1))
            fill = np.broadcast_to(values, shape).astype(dt)
        fill = math_ops.clip_by_value(fill, np.asarray(self.value_range[0], dt), np.asarray(self.value_range[1], dt))
        return {"apply_erasing": apply, "batch_masks": masks, "fill_value": fill}

    def transform_images(self, images, transformation, training=True):
        x = self._images(images)
        if not training or transformation is None:
            return x
        t = {k: self._tensor(v) for k, v in transformation.items()}
        erased = math_ops.where(math_ops.cast(t["batch_masks"], dtype="bool"),
                                math_ops.cast(t["fill_value"], dtype=x.dtype), x)
        apply = array_ops.reshape(math_ops.cast(t["apply_erasing"], dtype="bool"), shape=(-1, 1, 1, 1))
        return math_ops.where(apply, erased, x)

    @staticmethod
    def _tensor(value):
        return value if isinstance(value, Tensor) else Tensor(np.asarray(value))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "scale": list(self.scale),
                "fill_value": self.fill_value}
