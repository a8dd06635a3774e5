"""``RandomPerspective`` (as Keras 3's): a random perspective warp of some images.

Per image, with probability ``p ~ U(factor)`` (a threshold ``t ~ U(0, 1)``, warped where ``t < p``): the four
corners ``(0, 0), (w-1, 0), (0, h-1), (w-1, h-1)`` move to ``c + c * d`` with ``d ~ U(-scale/2, scale/2)`` per
coordinate; the output pixel at a moved point reads the input at the corner, through the homography that maps end
points to start points (Keras' ``compute_homography_matrix``), with ``interpolation`` and zeros (``fill_value``)
outside. Draw and transform are split as Keras' (on Keras' draws the images are Keras'); ``training=False``
returns the images unchanged.

Example:
    >>> import descend as ds, numpy as np
    >>> layer = ds.layers.RandomPerspective(factor=(1.0, 1.0), scale=0.0)   # corners stay: the identity
    >>> x = np.arange(12.0, dtype=np.float32).reshape(1, 3, 4, 1)
    >>> bool(np.allclose(layer(x).numpy(), x))
    True
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..image.transform import affine_transform_array
from ..ops import array_ops
from ..ops.random_draw import draw
from ._layout import channels_last_kernel
from .color_augmentation import _keras_factor
from .preprocessing import _check_data_format, _Random

__all__ = ["RandomPerspective", "homography"]


def homography(start_points, end_points) -> np.ndarray:
    """``(n, 8)`` projective transforms taking each output (end) point to its input (start) point: the solution of
    Keras' 8 x 8 system per image (``start = H(end)``)."""
    s = np.asarray(start_points, np.float64).reshape(-1, 4, 2)
    e = np.asarray(end_points, np.float64).reshape(-1, 4, 2)
    out = []
    for si, ei in zip(s, e):
        rows, target = [], []
        for (sx, sy), (ex, ey) in zip(si, ei):
            rows.append([ex, ey, 1.0, 0.0, 0.0, 0.0, -sx * ex, -sx * ey])
            rows.append([0.0, 0.0, 0.0, ex, ey, 1.0, -sy * ex, -sy * ey])
            target += [sx, sy]
        out.append(np.linalg.solve(np.asarray(rows), np.asarray(target)))
    return np.asarray(out).reshape(-1, 8)


class RandomPerspective(_Random):
    """Random perspective warps (``keras.layers.RandomPerspective``).

    Args:
        factor: a number ``f`` in ``[0, 1]`` (the probability range ``(0, f)``) or a pair in ``[0, 1]`` (default
            1.0).
        scale: in ``[0, 1]``: how far the corners may move, as a fraction of their coordinates (default 1.0).
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        fill_value: the value outside the warped image (default 0).
        seed: seeds descend's draws.
        data_format: ``"channels_last"`` or ``"channels_first"`` (None: ``keras.config.image_data_format()``);
            computed channels last (``_layout.channels_last_kernel``).
    """

    call = channels_last_kernel(_Random.call)

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_value=0.0, seed=None, data_format=None,
                 **kwargs):
        self.factor = _keras_factor(factor, (0, 1), "RandomPerspective")
        if isinstance(scale, bool) or not isinstance(scale, (int, float, np.number)) or not 0.0 <= scale <= 1.0:
            raise ValueError(f"RandomPerspective: the `scale` argument should be a number in the range [0,1]. "
                             f"Received: scale={scale!r}")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"RandomPerspective: unknown `interpolation` {interpolation!r}; expected "
                                      "'nearest' or 'bilinear'")
        self.scale, self.interpolation, self.fill_value = float(scale), interpolation, fill_value
        self.data_format = _check_data_format(data_format, "RandomPerspective")
        super().__init__(seed=seed, **kwargs)

    def get_random_transformation(self, data, training=True, seed=None):
        """``{"apply_perspective" (batch,), "start_points", "end_points" (batch, 4, 2)}``; None when not
        training."""
        if not training:
            return None
        x = self._images(data["images"] if isinstance(data, dict) else data)
        n = self._batch(x)
        h, w = x.shape[-3], x.shape[-2]
        dt = self.compute_dtype.dtype
        start = np.repeat(np.asarray([[[0.0, 0.0], [w - 1, 0.0], [0.0, h - 1], [w - 1, h - 1]]], dt), n, axis=0)

        def sample():
            probability = self._rng.uniform(self.factor[0], self.factor[1], size=n)
            threshold = self._rng.uniform(0.0, 1.0, size=n)
            d = self._rng.uniform(-0.5 * self.scale, 0.5 * self.scale, size=(n, 4, 2)).astype(dt)
            return np.concatenate([(threshold < probability).astype(np.float64), (start + start * d).ravel()])

        drawn = draw(fn=sample)
        end = array_ops.reshape(drawn[n:], shape=(n, 4, 2))
        return {"apply_perspective": drawn[:n] > 0.5, "start_points": Tensor(start), "end_points": end}

    def transform_images(self, images, transformation, training=True):
        x = self._images(images)
        if not training or transformation is None:
            return x
        single = x.ndim == 3
        batch = array_ops.expand_dims(x, axis=0) if single else x
        t = {k: v if isinstance(v, Tensor) else Tensor(np.asarray(v)) for k, v in transformation.items()
             if k in ("apply_perspective", "start_points", "end_points")}

        def warp(arr, apply, start, end):
            matrix = homography(start, end).astype(np.float32)
            out = affine_transform_array(arr, matrix, self.interpolation, "constant", self.fill_value)
            return np.where(np.asarray(apply, bool).reshape(-1, 1, 1, 1), out, arr)

        out = draw(batch, t["apply_perspective"], t["start_points"], t["end_points"], fn=warp)
        return out[0] if single else out

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "scale": self.scale,
                "interpolation": self.interpolation, "fill_value": self.fill_value, "seed": self.seed,
                "data_format": self.data_format}
