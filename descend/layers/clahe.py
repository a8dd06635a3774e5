"""``ContrastLimitedAdaptiveHistogramEqualization`` (CLAHE, as Keras 3's): histogram equalization per tile, with a
clipped histogram, blended bilinearly between tiles.

Values move to ``[0, 255]``; each image is cut into ``tile_grid_size`` tiles (padded symmetrically at the bottom and
right to whole tiles); per tile and channel a 256-bin histogram of the integer values, clipped at ``clip_limit *
tile_pixels / 256`` with the excess spread evenly over the bins (``clip_limit > 0``); its cumulative sum ``cdf``
gives the lookup ``(cdf - cdf_min) * 255 / (tile_pixels - cdf_min)``; each pixel reads the lookups of its four
nearest tile centres (the border tiles repeated) at its integer value, weighted bilinearly; back to
``value_range`` and to the input's dtype. Deterministic: it applies whether or not ``training`` is set, as Keras.
Not differentiable (histograms).

Example:
    >>> import descend as ds, numpy as np
    >>> x = np.concatenate([np.full((1, 4, 8, 1), 100.0), np.full((1, 4, 8, 1), 110.0)], axis=1).astype(np.float32)
    >>> out = ds.layers.ContrastLimitedAdaptiveHistogramEqualization(tile_grid_size=(2, 2))(x).numpy()
    >>> float(out.max() - out.min()) > 10.0   # the two levels pulled apart
    True
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.image_format import resolve_data_format
from .base import Layer
from .color_augmentation import _value_range

__all__ = ["ContrastLimitedAdaptiveHistogramEqualization"]


def _rescale(x: np.ndarray, source, target) -> np.ndarray:
    if tuple(source) == tuple(target):
        return x
    f = np.float32
    unit = (x - f(source[0])) / (f(source[1]) - f(source[0]))
    return unit * (f(target[1]) - f(target[0])) + f(target[0])


def clahe(images: np.ndarray, clip_limit: float, grid) -> np.ndarray:
    """CLAHE on a float32 batch ``(b, h, w, c)`` of values in ``[0, 255]`` (Keras' arithmetic, in NumPy)."""
    b, h, w, c = images.shape
    gh, gw = grid
    th, tw = (h + gh - 1) // gh, (w + gw - 1) // gw
    ph, pw = th * gh - h, tw * gw - w
    padded = np.pad(images, [(0, 0), (0, ph), (0, pw), (0, 0)], mode="symmetric") if ph or pw else images
    tiles = padded.reshape(b, gh, th, gw, tw, c).transpose(0, 1, 3, 5, 2, 4).reshape(b, gh, gw, c, th * tw)
    ints = np.clip(tiles.astype(np.int32), 0, 255)
    hists = np.zeros((b, gh, gw, c, 256), np.float32)
    for v in range(256):  # counts per bin (one-hot sum, as Keras)
        hists[..., v] = (ints == v).sum(axis=-1)
    if clip_limit > 0:
        limit = np.float32(clip_limit * (th * tw) / 256.0)
        clipped = np.clip(hists, 0, limit)
        excess = (hists - clipped).sum(axis=-1, keepdims=True)
        hists = clipped + excess / np.float32(256.0)
    cdf = np.cumsum(hists, axis=-1, dtype=np.float32)
    cdf_min = cdf.min(axis=-1, keepdims=True)
    denominator = np.float32(th * tw) - cdf_min
    denominator = np.where(denominator == 0, np.float32(1), denominator)
    lookup = np.clip((cdf - cdf_min) * np.float32(255.0) / denominator, 0, 255).astype(np.float32)
    lookup = np.concatenate([lookup[:, :1], lookup, lookup[:, -1:]], axis=1)
    lookup = np.concatenate([lookup[:, :, :1], lookup, lookup[:, :, -1:]], axis=2)  # (b, gh+2, gw+2, c, 256)
    yg = (np.arange(th * gh, dtype=np.float32) - np.float32(th / 2.0)) / np.float32(th) + np.float32(1.0)
    xg = (np.arange(tw * gw, dtype=np.float32) - np.float32(tw / 2.0)) / np.float32(tw) + np.float32(1.0)
    y0, x0 = np.floor(yg), np.floor(xg)
    wy, wx = yg - y0, xg - x0
    y1, x1 = np.clip(y0 + 1, 0, gh + 1).astype(int), np.clip(x0 + 1, 0, gw + 1).astype(int)
    y0, x0 = np.clip(y0, 0, gh + 1).astype(int), np.clip(x0, 0, gw + 1).astype(int)
    pixels = np.clip(padded, 0, 255).astype(np.int32)
    bi = np.arange(b)[:, None, None, None]
    ci = np.arange(c)[None, None, None, :]

    def read(ys, xs):
        return lookup[bi, ys[None, :, None, None], xs[None, None, :, None], ci, pixels]

    wx_e, wy_e = wx[None, None, :, None], wy[None, :, None, None]
    top = read(y0, x0) * (1 - wx_e) + read(y0, x1) * wx_e
    bottom = read(y1, x0) * (1 - wx_e) + read(y1, x1) * wx_e
    return (top * (1 - wy_e) + bottom * wy_e)[:, :h, :w, :].astype(np.float32)


class ContrastLimitedAdaptiveHistogramEqualization(Layer):
    """CLAHE (``keras.layers.ContrastLimitedAdaptiveHistogramEqualization``).

    Args:
        value_range: ``(low, high)`` of the images' values (default ``(0, 255)``).
        clip_limit: the histogram clip, in multiples of a uniform bin (default 4.0; 0 or less: no clipping).
        tile_grid_size: ``(rows, cols)`` of tiles (default ``(8, 8)``).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    def __init__(self, value_range=(0, 255), clip_limit=4.0, tile_grid_size=(8, 8), data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.value_range = _value_range(value_range, "ContrastLimitedAdaptiveHistogramEqualization")
        if isinstance(clip_limit, bool) or not isinstance(clip_limit, (int, float, np.number)):
            raise ValueError(f"ContrastLimitedAdaptiveHistogramEqualization: `clip_limit` must be a number. "
                             f"Received: clip_limit={clip_limit!r}")
        if not isinstance(tile_grid_size, (tuple, list)) or len(tile_grid_size) != 2 or not all(
                isinstance(g, (int, np.integer)) and not isinstance(g, bool) and g > 0 for g in tile_grid_size):
            raise ValueError(f"ContrastLimitedAdaptiveHistogramEqualization: `tile_grid_size` must be two positive "
                             f"ints. Received: tile_grid_size={tile_grid_size!r}")
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"ContrastLimitedAdaptiveHistogramEqualization: `data_format` must be 'channels_last' "
                             f"or 'channels_first'. Received: data_format={data_format!r}")
        self.clip_limit, self.tile_grid_size = float(clip_limit), tuple(int(g) for g in tile_grid_size)
        self.data_format = resolve_data_format(data_format)  # None: image_data_format(), as Keras
        self._build_at_init()

    def transform_images(self, images, transformation=None, training=True):
        x = np.asarray(convert_to_tensor(images).numpy())
        if x.ndim not in (3, 4):
            raise ValueError(f"ContrastLimitedAdaptiveHistogramEqualization: expected images of rank 3 or 4. "
                             f"Received shape {x.shape}")
        dtype = x.dtype
        single = x.ndim == 3
        batch = x[None] if single else x
        if self.data_format == "channels_first":
            batch = np.moveaxis(batch, 1, -1)
        values = _rescale(batch.astype(np.float32), self.value_range, (0, 255))
        out = _rescale(clahe(values, self.clip_limit, self.tile_grid_size), (0, 255), self.value_range)
        if self.data_format == "channels_first":
            out = np.moveaxis(out, -1, 1)
        out = out[0] if single else out
        return Tensor(np.ascontiguousarray(out).astype(dtype))

    def call(self, inputs, training=True):
        return self.transform_images(inputs, None, training)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range), "clip_limit": self.clip_limit,
                "tile_grid_size": list(self.tile_grid_size), "data_format": self.data_format}
