"""Projective image transforms (``keras.ops.image.affine_transform``, TF's ``ImageProjectiveTransformV3``).

Each output pixel ``(x, y)`` samples the input at ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``,
``k = c0 x + c1 y + 1``, from a transform ``[a0, a1, a2, b0, b1, b2, c0, c1]``. Points outside the image
are mapped by ``fill_mode`` (reflect, wrap, nearest; constant reads ``fill_value``), and read with
nearest or bilinear interpolation, in TF's float32 arithmetic. Differentiable with respect to the image.
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, to_array
from ..ops import array_ops, math_ops
from . import _common

__all__ = ["affine_transform"]

_F = np.float32
_FILL_MODES = ("constant", "nearest", "wrap", "reflect")
_INTERPOLATIONS = ("nearest", "bilinear")


def _map(coord: np.ndarray, size: int, mode: str) -> np.ndarray:
    """TF's mapping of a sample coordinate into ``[0, size - 1]`` (constant mode leaves it as it is)."""
    c = coord.astype(_F).copy()
    if mode == "constant":
        return c
    if mode == "nearest":
        return np.clip(c, 0, size - 1).astype(_F)
    if size <= 1:
        return np.zeros_like(c)
    if mode == "reflect":
        sz2 = _F(2 * size)
        low, high = c < 0, c > size - 1
        v = c[low]
        far = v < -sz2
        v[far] = sz2 * np.trunc(-v[far] / sz2).astype(_F) + v[far]
        c[low] = np.where(v < -size, v + sz2, -v - 1)
        v = c[high]
        v = v - sz2 * np.trunc(v / sz2).astype(_F)
        c[high] = np.where(v >= size, sz2 - v - 1, v)
    else:  # wrap
        # TF divides by size - 1 and shifts by whole periods of size
        sz = _F(size - 1)
        low, high = c < 0, c > size - 1
        c[low] = c[low] + _F(size) * (np.trunc(-c[low] / sz).astype(_F) + 1)
        c[high] = c[high] - _F(size) * np.trunc(c[high] / sz).astype(_F)
    return np.clip(c, 0, size - 1).astype(_F)


def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0.0) -> Tensor:
    """Apply projective ``transform`` (``[8]`` or ``[batch, 8]``) to ``images`` (``[h, w, c]`` or
    ``[b, h, w, c]``), as ``keras.ops.image.affine_transform`` with ``data_format="channels_last"``.

    Example:
        >>> import descend as ds, numpy as np
        >>> img = np.arange(9.0, dtype=np.float32).reshape(3, 3, 1)
        >>> shift = [1, 0, 1, 0, 1, 0, 0, 0]  # sample x + 1: the image moves left
        >>> ds.image.affine_transform(img, shift)[..., 0].numpy()
        array([[1., 2., 0.],
               [4., 5., 0.],
               [7., 8., 0.]], dtype=float32)
    """
    fn = "affine_transform"
    images = _common.as_image(images, fn, what="images")
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"{fn}: 'interpolation' must be one of {list(_INTERPOLATIONS)}; received {interpolation!r}")
    if fill_mode not in _FILL_MODES:
        raise ValueError(f"{fn}: 'fill_mode' must be one of {list(_FILL_MODES)}; received {fill_mode!r}")
    batch, was_batched = _common.batched(images)
    if batch.dtype.kind != "f":
        batch = math_ops.cast(batch, dtype="float32")
    t = np.asarray(to_array(transform) if isinstance(transform, Tensor) else transform, _F)
    if t.ndim == 1:
        t = t[None]
    b, h, w, c = batch.shape
    if t.ndim != 2 or t.shape[1] != 8 or t.shape[0] not in (1, b):
        raise ValueError(f"{fn}: 'transform' must be [8] or [batch={b}, 8]; received shape {t.shape}")
    t = np.broadcast_to(t, (b, 8))
    ys, xs = np.meshgrid(np.arange(h, dtype=_F), np.arange(w, dtype=_F), indexing="ij")
    flat = array_ops.reshape(batch, shape=(b * h * w, c))
    fill = np.asarray(fill_value, batch.dtype)

    def read(bi, yy, xx):
        """Values at integer ``(yy, xx)`` of image ``bi``; ``fill_value`` outside the image."""
        yi, xi = yy.astype(np.int64), xx.astype(np.int64)
        inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        idx = np.where(inside, bi[:, None, None] * h * w + yi * w + xi, 0).reshape(-1)
        vals = array_ops.reshape(array_ops.gather(flat, idx), shape=(b, h, w, c))
        return math_ops.where(inside[..., None], vals, fill)

    a0, a1, a2, b0, b1, b2, c0, c1 = (t[:, i, None, None] for i in range(8))
    proj = c0 * xs + c1 * ys + _F(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        in_x = ((a0 * xs + a1 * ys + a2) / proj).astype(_F)
        in_y = ((b0 * xs + b1 * ys + b2) / proj).astype(_F)
    x = _map(in_x, w, fill_mode)
    y = _map(in_y, h, fill_mode)
    bi = np.arange(b)
    if interpolation == "nearest":
        out = read(bi, np.sign(y) * np.floor(np.abs(y) + _F(0.5)), np.sign(x) * np.floor(np.abs(x) + _F(0.5)))
    else:
        y0, x0 = np.floor(y), np.floor(x)
        y1, x1 = y0 + _F(1), x0 + _F(1)

        def wgt(v):
            return np.asarray(v, batch.dtype)[..., None]
        top = math_ops.add(math_ops.multiply(wgt(x1 - x), read(bi, y0, x0)), math_ops.multiply(wgt(x - x0), read(bi, y0, x1)))
        bottom = math_ops.add(math_ops.multiply(wgt(x1 - x), read(bi, y1, x0)),
                              math_ops.multiply(wgt(x - x0), read(bi, y1, x1)))
        out = math_ops.add(math_ops.multiply(wgt(y1 - y), top), math_ops.multiply(wgt(y - y0), bottom))
    degenerate = (proj == 0)[..., None]
    if degenerate.any():
        out = math_ops.where(degenerate, fill, out)
    return _common.unbatched(out, was_batched)


