"""Projective image transforms (``keras.ops.image.affine_transform``, TF's ``ImageProjectiveTransformV3``).

Each output pixel ``(x, y)`` samples the input at ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``,
``k = c0 x + c1 y + 1``, from a transform ``[a0, a1, a2, b0, b1, b2, c0, c1]``. Points outside the image
are mapped by ``fill_mode`` (reflect, wrap, nearest; constant reads ``fill_value``), and read with
nearest or bilinear interpolation, in TF's float32 arithmetic. Differentiable with respect to the image.
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, to_array
from ..ops import math_ops
from . import _common

__all__ = ["affine_transform", "affine_transform_array"]

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
    out = _sample(batch, transform, interpolation, fill_mode, fill_value, _common.TENSOR_ARITH, fn)
    return _common.unbatched(out, was_batched)



def _sample(batch, transform, interpolation, fill_mode, fill_value, ar: _common.Arith, fn: str):
    """Sample the ``[b, h, w, c]`` float ``batch`` through ``transform`` with ``ar``'s arithmetic."""
    t = np.asarray(to_array(transform) if isinstance(transform, Tensor) else transform, _F)
    if t.ndim == 1:
        t = t[None]
    b, h, w, c = batch.shape
    if t.ndim != 2 or t.shape[1] != 8 or t.shape[0] not in (1, b):
        raise ValueError(f"{fn}: 'transform' must be [8] or [batch={b}, 8]; received shape {t.shape}")
    t = np.broadcast_to(t, (b, 8))
    dtype = np.dtype(batch.dtype)
    ys, xs = np.meshgrid(np.arange(h, dtype=_F), np.arange(w, dtype=_F), indexing="ij")
    flat = ar.reshape(batch, (b * h * w, c))
    fill = np.asarray(fill_value, dtype)
    bi = np.arange(b)

    def read(yy, xx):
        """Values at integer ``(yy, xx)`` of each image; ``fill_value`` outside the image."""
        yi, xi = yy.astype(np.int64), xx.astype(np.int64)
        inside = (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        idx = np.where(inside, bi[:, None, None] * h * w + yi * w + xi, 0).reshape(-1)
        return ar.where(inside[..., None], ar.reshape(ar.gather(flat, idx), (b, h, w, c)), fill)

    a0, a1, a2, b0, b1, b2, c0, c1 = (t[:, i, None, None] for i in range(8))
    proj = c0 * xs + c1 * ys + _F(1)
    with np.errstate(divide="ignore", invalid="ignore"):
        in_x = ((a0 * xs + a1 * ys + a2) / proj).astype(_F)
        in_y = ((b0 * xs + b1 * ys + b2) / proj).astype(_F)
    x = _map(in_x, w, fill_mode)
    y = _map(in_y, h, fill_mode)
    if interpolation == "nearest":
        out = read(np.sign(y) * np.floor(np.abs(y) + _F(0.5)), np.sign(x) * np.floor(np.abs(x) + _F(0.5)))
    else:
        y0, x0 = np.floor(y), np.floor(x)
        y1, x1 = y0 + _F(1), x0 + _F(1)

        def wgt(v):
            return np.asarray(v, dtype)[..., None]
        # TF's order: along x in the rows y0 and y1, then along y
        top = ar.add(ar.mul(wgt(x1 - x), read(y0, x0)), ar.mul(wgt(x - x0), read(y0, x1)))
        bottom = ar.add(ar.mul(wgt(x1 - x), read(y1, x0)), ar.mul(wgt(x - x0), read(y1, x1)))
        out = ar.add(ar.mul(wgt(y1 - y), top), ar.mul(wgt(y - y0), bottom))
    degenerate = (proj == 0)[..., None]
    if degenerate.any():
        out = ar.where(degenerate, fill, out)
    return out


def affine_transform_array(images: np.ndarray, transform, interpolation="bilinear", fill_mode="constant",
                           fill_value=0.0) -> np.ndarray:
    """:func:`affine_transform` on a float NumPy batch ``[b, h, w, c]``, returning a NumPy array with the same
    values: the form the augmentation layers run inside a recorded random draw (``ops.random_draw``), so a
    compiled step transforms by new random parameters on every call.

    Example:
        >>> import numpy as np
        >>> from descend.image.transform import affine_transform_array
        >>> affine_transform_array(np.ones((1, 2, 2, 1), np.float32), [1, 0, 1, 0, 1, 0, 0, 0])[0, ..., 0]
        array([[1., 0.],
               [1., 0.]], dtype=float32)
    """
    arr = np.asarray(images)
    if arr.ndim != 4 or arr.dtype.kind != "f":
        raise ValueError(f"affine_transform_array: expected a float [b, h, w, c] array; received {arr.dtype} "
                         f"{arr.shape}")
    return np.asarray(_sample(arr, transform, interpolation, fill_mode, fill_value, _common.NUMPY_ARITH,
                              "affine_transform_array"), arr.dtype)
