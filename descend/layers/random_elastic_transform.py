"""``RandomElasticTransform`` (as Keras 3's): a smooth random displacement of each image's pixels.

Per call: ``f ~ U(scale)``; ``alpha = 0.1 f max(h, w)``, ``sigma = 0.05 f min(h, w)``; per image, displacement
fields ``dx, dy ~ N(0, 1) * sigma`` blurred by a Gaussian (kernel ``6 int(sigma) | 1`` wide, standard deviation
``sigma``, zero padding) and scaled by ``alpha``; the output at ``(row, col)`` samples the input at ``(row + dy, col
+ dx)`` (``map_coordinates``, Keras' ``interpolation`` and ``fill_mode``: constant, nearest, wrap, mirror, reflect),
with probability ``p ~ U(factor)`` per image (a threshold ``t ~ U(0, 1)``, applied where ``t < p``), then clipped to
``value_range``. Keras draws the noise inside its transform (from a seed); descend draws it in
``get_random_transformation`` (``"dx"``, ``"dy"``), so ``transform_images`` is a pure function of its arguments.
``training=False`` returns the images unchanged.

Example:
    >>> import descend as ds, numpy as np
    >>> layer = ds.layers.RandomElasticTransform(seed=1)
    >>> layer(np.random.default_rng(0).uniform(0, 255, (2, 16, 16, 3)).astype(np.float32)).shape
    TensorShape([2, 16, 16, 3])
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..image.sampling import FILL_MODES as _FILL_MODES
from ..image.sampling import gaussian_blur
from ..image.sampling import map_coordinates_array as map_coordinates
from ..framework.image_format import resolve_data_format
from ..ops.random_draw import draw
from .color_augmentation import _keras_factor, _value_range
from .preprocessing import _Random

__all__ = ["RandomElasticTransform", "map_coordinates"]

def _blur(field: np.ndarray, size: int, sigma, dt) -> np.ndarray:
    """``field`` ``(b, h, w)`` convolved with the ``size x size`` Gaussian of ``sigma``, zero padding ("same"):
    ``keras.ops.image.gaussian_blur``'s arithmetic (:func:`descend.image.sampling.gaussian_blur`)."""
    return gaussian_blur(field[..., None], (size, size), (sigma, sigma))[..., 0].astype(dt)


class RandomElasticTransform(_Random):
    """Random elastic deformations (``keras.layers.RandomElasticTransform``).

    Args:
        factor: a number ``f`` in ``[0, 1]`` (the probability range ``(0, f)``) or a pair (default 1.0).
        scale: a number or a pair in ``[0, 1]``: the range of the distortion strength (default 1.0).
        interpolation: ``"bilinear"`` (default) or ``"nearest"``.
        fill_mode: ``"reflect"`` (default), ``"mirror"``, ``"wrap"``, ``"constant"`` or ``"nearest"``.
        fill_value: the value outside the image with ``fill_mode="constant"``.
        value_range: ``(low, high)`` the output is clipped to (default ``(0, 255)``).
        seed: seeds descend's draws.
        data_format: ``"channels_last"`` or ``"channels_first"``.
    """

    def __init__(self, factor=1.0, scale=1.0, interpolation="bilinear", fill_mode="reflect", fill_value=0.0,
                 value_range=(0, 255), seed=None, data_format=None, **kwargs):
        self.factor = _keras_factor(factor, (0, 1), "RandomElasticTransform")
        self.scale = _keras_factor(scale, (0, 1), "RandomElasticTransform")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"RandomElasticTransform: unknown `interpolation` {interpolation!r}; expected "
                                      "'nearest' or 'bilinear'")
        if fill_mode not in _FILL_MODES:
            raise NotImplementedError(f"RandomElasticTransform: unknown `fill_mode` {fill_mode!r}; expected one of "
                                      f"{list(_FILL_MODES)}")
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"RandomElasticTransform: `data_format` must be 'channels_last' or 'channels_first'. "
                             f"Received: data_format={data_format!r}")
        self.interpolation, self.fill_mode, self.fill_value = interpolation, fill_mode, fill_value
        self.value_range = _value_range(value_range, "RandomElasticTransform")
        self.data_format = resolve_data_format(data_format)  # None: image_data_format(), as Keras
        super().__init__(seed=seed, **kwargs)

    def _hw(self, x):
        return (x.shape[-3], x.shape[-2]) if self.data_format == "channels_last" else (x.shape[-2], x.shape[-1])

    def get_random_transformation(self, data, training=True, seed=None):
        """``{"apply_transform" (batch,), "distortion_factor" (), "dx", "dy" (batch, h, w) unit normal noise}``;
        None when not training or when ``scale`` or ``factor`` is 0 (as Keras)."""
        if not training or self.scale[1] == 0 or self.factor[1] == 0:
            return None
        x = self._images(data["images"] if isinstance(data, dict) else data)
        n = self._batch(x)
        h, w = self._hw(x)
        dt = self.compute_dtype.dtype

        def sample():
            probability = self._rng.uniform(self.factor[0], self.factor[1], size=n)
            threshold = self._rng.uniform(0.0, 1.0, size=n)
            f = self._rng.uniform(self.scale[0], self.scale[1])
            noise = self._rng.standard_normal((2, n, h, w)).astype(dt)
            return np.concatenate([(threshold < probability).astype(np.float64), [f], noise.ravel()])

        drawn = draw(fn=sample).numpy()
        noise = drawn[n + 1:].astype(dt).reshape(2, n, h, w)
        return {"apply_transform": Tensor(drawn[:n] > 0.5), "distortion_factor": Tensor(np.asarray(drawn[n], dt)),
                "dx": Tensor(noise[0]), "dy": Tensor(noise[1])}

    def transform_images(self, images, transformation, training=True):
        x = self._images(images)
        if not training or transformation is None:
            return x
        arr = x.numpy()
        single = arr.ndim == 3
        batch = arr[None] if single else arr
        if self.data_format == "channels_first":
            batch = np.moveaxis(batch, 1, -1)
        dt = batch.dtype.type
        t = {k: np.asarray(v.numpy() if hasattr(v, "numpy") else v) for k, v in transformation.items()}
        n, h, w, c = batch.shape
        f = dt(t["distortion_factor"])
        alpha, sigma = dt(max(h, w) * (dt(0.1) * f)), dt(min(h, w) * (dt(0.05) * f))
        size = 6 * int(sigma) | 1
        dx = _blur(t["dx"].astype(dt).reshape(n, h, w) * sigma, size, sigma, np.dtype(dt))
        dy = _blur(t["dy"].astype(dt).reshape(n, h, w) * sigma, size, sigma, np.dtype(dt))
        gx, gy = np.meshgrid(np.arange(w, dtype=dt), np.arange(h, dtype=dt), indexing="xy")
        order = 0 if self.interpolation == "nearest" else 1
        out = np.empty_like(batch)
        for b in range(n):
            ys, xs = gy + alpha * dy[b], gx + alpha * dx[b]
            for ch in range(c):
                out[b, ..., ch] = map_coordinates(batch[b, ..., ch], [ys, xs], order, self.fill_mode, self.fill_value)
        out = np.where(t["apply_transform"].astype(bool).reshape(-1, 1, 1, 1), out, batch)
        out = np.clip(out, dt(self.value_range[0]), dt(self.value_range[1]))
        if self.data_format == "channels_first":
            out = np.moveaxis(out, -1, 1)
        return Tensor(np.ascontiguousarray(out[0] if single else out))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "scale": list(self.scale),
                "interpolation": self.interpolation, "fill_mode": self.fill_mode, "fill_value": self.fill_value,
                "value_range": list(self.value_range), "seed": self.seed, "data_format": self.data_format}
