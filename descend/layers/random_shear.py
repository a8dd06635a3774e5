"""``RandomShear`` (as Keras 3's): shears each image along x and y by random amounts.

Per image ``s_x ~ U(x_factor)``, ``s_y ~ U(y_factor)`` and a sign (``-1`` with probability 1/2, shared by both);
the image is resampled through Keras' projective transform ``[1, s_x, 0, s_y, 1, 0, 0, 0]`` (output pixel ``(x, y)``
reads input ``(x + s_x y, s_y x + y)``) with ``interpolation`` and ``fill_mode``, as ``RandomRotation``. Draw and
transform are split as Keras' (``get_random_transformation`` / ``transform_images``: on Keras' draws the images are
Keras'); ``training=False`` returns the images unchanged.

Example:
    >>> import descend as ds, numpy as np
    >>> shear = ds.layers.RandomShear(x_factor=(0.0, 0.0), y_factor=(0.0, 0.0))
    >>> x = np.arange(6.0, dtype=np.float32).reshape(1, 2, 3, 1)
    >>> bool((shear(x).numpy() == x).all())   # no shear: the identity transform
    True
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..image.transform import affine_transform_array
from ..ops import array_ops
from ..ops.random_draw import draw
from ._layout import channels_last_kernel
from .preprocessing import _Affine, _Random

__all__ = ["RandomShear"]


def _shear_factor(factor, what: str) -> tuple:
    msg = f"RandomShear: `{what}` must be a number or a pair of numbers in [0, 1]. Received: {what}={factor!r}"
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or not all(isinstance(f, (int, float, np.number)) and not isinstance(f, bool)
                                       and 0 <= f <= 1 for f in factor):
            raise ValueError(msg)
        return tuple(sorted(float(f) for f in factor))
    if isinstance(factor, bool) or not isinstance(factor, (int, float, np.number)) or not 0 <= factor <= 1:
        raise ValueError(msg)
    return -abs(float(factor)), abs(float(factor))


class RandomShear(_Affine):
    """Random shears (``keras.layers.RandomShear``).

    Args:
        x_factor, y_factor: a number ``f`` in ``[0, 1]`` (the range ``(-f, f)``) or a pair in ``[0, 1]``.
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        fill_mode: ``"reflect"`` (default), ``"wrap"``, ``"constant"`` or ``"nearest"``.
        fill_value: the value outside the image with ``fill_mode="constant"``.
        data_format: ``"channels_last"`` or ``"channels_first"`` (None: ``keras.config.image_data_format()``).
        seed: seeds descend's draws.
    """

    def __init__(self, x_factor=0.0, y_factor=0.0, interpolation="bilinear", fill_mode="reflect", fill_value=0.0,
                 data_format=None, seed=None, **kwargs):
        self.x_factor = _shear_factor(x_factor, "x_factor")
        self.y_factor = _shear_factor(y_factor, "y_factor")
        self._check_modes(fill_mode, interpolation, fill_value, data_format)
        super().__init__(seed=seed, **kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        """``{"shear_factor": (batch, 2)}``: ``[s_x, s_y]`` times the shared sign; None when not training."""
        if not training:
            return None
        x = self._images(data["images"] if isinstance(data, dict) else data)
        n = self._batch(x)
        dt = self.compute_dtype.dtype

        def sample():
            sign = np.where(self._rng.uniform(0, 1, size=(n, 1)) > 0.5, -1.0, 1.0)
            sy = self._rng.uniform(self.y_factor[0], self.y_factor[1], size=(n, 1))
            sx = self._rng.uniform(self.x_factor[0], self.x_factor[1], size=(n, 1))
            return (np.concatenate([sx, sy], axis=1).astype(dt) * sign.astype(dt)).astype(dt)

        return {"shear_factor": draw(fn=sample)}

    # drawn and applied as Keras' image layers (not through the rotation/zoom/translation ``_Affine.call``)
    call = channels_last_kernel(_Random.call)

    def transform_images(self, images, transformation, training=True):
        x = self._images(images)
        if not training or transformation is None:
            return x
        factor = transformation["shear_factor"]
        factor = factor if isinstance(factor, Tensor) else Tensor(np.asarray(factor))
        single = x.ndim == 3
        batch = array_ops.expand_dims(x, axis=0) if single else x

        def shear(arr, s):
            s = np.asarray(s, np.float32).reshape(-1, 2)
            ones, zeros = np.ones(len(s), np.float32), np.zeros(len(s), np.float32)
            matrix = np.stack([ones, s[:, 0], zeros, s[:, 1], ones, zeros, zeros, zeros], axis=1)
            return affine_transform_array(arr, matrix, self.interpolation, self.fill_mode, self.fill_value)

        out = draw(batch, factor, fn=shear)
        return out[0] if single else out

    def get_config(self):
        return {**super().get_config(), "x_factor": list(self.x_factor), "y_factor": list(self.y_factor),
                **self._modes_config()}
