"""``keras.ops.image``'s resampling: affine and perspective transforms (descend's ``ImageProjectiveTransformV3``),
``map_coordinates`` (order 0 and 1, fill modes as Keras' TF backend's), ``elastic_transform`` and JAX's
``scale_and_translate`` (issue 37). The resampling and blurring arithmetic is ``descend.image.sampling``'s, which
``layers.RandomElasticTransform`` runs too (the same values).

Values are gathered from the input and weighted, so each function is differentiable in the images;
``map_coordinates`` in its coordinates too (order 1), as with TF's backend.

Example:
    >>> import numpy as np
    >>> from descend.keras import ops
    >>> x = np.arange(5.0, dtype=np.float32)
    >>> ops.image.map_coordinates(x, [[0.5, 2.25, 6.0]], order=1).numpy().tolist()
    [0.5, 2.25, 0.0]
"""

from __future__ import annotations

import numpy as np

from ... import image as _image
from ... import ops as _o
from ...framework import Tensor
from ...image import sampling as _sampling
from .. import random as _random
from . import _format

__all__ = ["affine_transform", "perspective_transform", "map_coordinates", "elastic_transform",
           "scale_and_translate"]

AFFINE_TRANSFORM_INTERPOLATIONS = ("nearest", "bilinear")
AFFINE_TRANSFORM_FILL_MODES = ("constant", "nearest", "wrap", "reflect")
MAP_COORDINATES_FILL_MODES = _sampling.FILL_MODES
SCALE_AND_TRANSLATE_METHODS = ("linear", "bilinear", "trilinear", "cubic", "bicubic", "tricubic", "lanczos3",
                               "lanczos5")


def _check_choice(value, choices, what, fn):
    if value not in choices:
        raise ValueError(f"{fn}: Invalid value for argument `{what}`. Expected of one {choices}. Received: "
                         f"{what}={value}")


def _project(x: Tensor, first: bool, transform: np.ndarray, interpolation, fill_mode, fill_value) -> Tensor:
    """``x`` (rank 3 or 4) sampled through projective ``transform`` rows ``[a0, a1, a2, b0, b1, b2, c0, c1]``, in
    ``x``'s dtype (integer images: the float result truncated, as TF's kernel)."""
    dtype = x.dtype
    x, had = _format.batch(_format.to_last(x, first))
    out = _image.affine_transform(x, transform, interpolation=interpolation, fill_mode=fill_mode,
                                  fill_value=fill_value)
    if out.dtype != dtype:
        out = _o.cast(out, dtype)
    return _format.from_last(_format.unbatch(out, had), first)


def affine_transform(images, transform, interpolation="bilinear", fill_mode="constant", fill_value=0,
                     data_format=None):
    """Each output pixel ``(x, y)`` samples ``images`` at ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``,
    ``k = c0 x + c1 y + 1``, for ``transform`` ``[a0, a1, a2, b0, b1, b2, c0, c1]`` (one, or one per image);
    points outside are read by ``fill_mode`` ("constant": ``fill_value``)."""
    fn = "affine_transform"
    _check_choice(interpolation, AFFINE_TRANSFORM_INTERPOLATIONS, "interpolation", fn)
    _check_choice(fill_mode, AFFINE_TRANSFORM_FILL_MODES, "fill_mode", fn)
    x, first = _format.images(images, data_format, fn)
    t = np.asarray(_format.tensor(transform).numpy(), np.float32)
    if t.ndim not in (1, 2):
        raise ValueError(f"{fn}: Invalid transform rank: expected rank 1 (single transform) or rank 2 (batch of "
                         f"transforms). Received input with shape: transform.shape={t.shape}")
    return _project(x, first, t, interpolation, fill_mode, fill_value)


def _homography(start: np.ndarray, end: np.ndarray) -> np.ndarray:
    """The ``[n, 8]`` projective transforms taking each ``end`` quadrilateral's corners to ``start``'s: the
    8 x 8 linear system of the four correspondences, solved in float32."""
    n = start.shape[0]
    a = np.zeros((n, 8, 8), np.float32)
    rhs = np.zeros((n, 8), np.float32)
    for i in range(4):
        (sx, sy), (ex, ey) = start[:, i].T, end[:, i].T
        # sx = (a0 ex + a1 ey + a2) / (c0 ex + c1 ey + 1), and likewise sy with b0, b1, b2
        a[:, 2 * i, 0], a[:, 2 * i, 1], a[:, 2 * i, 2] = ex, ey, 1
        a[:, 2 * i, 6], a[:, 2 * i, 7] = -sx * ex, -sx * ey
        a[:, 2 * i + 1, 3], a[:, 2 * i + 1, 4], a[:, 2 * i + 1, 5] = ex, ey, 1
        a[:, 2 * i + 1, 6], a[:, 2 * i + 1, 7] = -sy * ex, -sy * ey
        rhs[:, 2 * i], rhs[:, 2 * i + 1] = sx, sy
    return np.linalg.solve(a, rhs[..., None])[..., 0].astype(np.float32)


def perspective_transform(images, start_points, end_points, interpolation="bilinear", fill_value=0,
                          data_format=None):
    """``images`` warped so that the quadrilateral ``start_points`` (``(4, 2)`` ``(x, y)`` corners, or
    ``(n, 4, 2)``) lands on ``end_points``; outside points read ``fill_value``."""
    fn = "perspective_transform"
    _check_choice(interpolation, AFFINE_TRANSFORM_INTERPOLATIONS, "interpolation", fn)
    x, first = _format.images(images, data_format, fn)
    start = np.asarray(_format.tensor(start_points).numpy(), np.float32)
    end = np.asarray(_format.tensor(end_points).numpy(), np.float32)
    for name, p in (("start_points", start), ("end_points", end)):
        if p.ndim not in (2, 3) or p.shape[-2:] != (4, 2):
            raise ValueError(f"{fn}: Invalid {name} shape: expected (4,2) for a single image or (N,4,2) for a "
                             f"batch. Received shape: {p.shape}")
    if start.shape != end.shape:
        raise ValueError(f"{fn}: start_points and end_points must have the same shape. Received "
                         f"start_points.shape={start.shape}, end_points.shape={end.shape}")
    transform = _homography(start.reshape(-1, 4, 2), end.reshape(-1, 4, 2))
    return _project(x, first, transform, interpolation, "constant", fill_value)


# ---------------------------------------------------------------- map_coordinates
def map_coordinates(inputs, coordinates, order, fill_mode="constant", fill_value=0):
    """``inputs`` read at ``coordinates`` (``[inputs.ndim, ...]``: one array of positions per axis) with ``order`` 0
    (the nearest position, halves to even) or 1 (linear); positions outside are mapped by ``fill_mode`` as
    :func:`descend.image.sampling.fold_index` says ("constant" reads ``fill_value``). The result has the
    coordinates' trailing shape and the inputs' dtype (integers rounded)."""
    fn = "map_coordinates"
    x = _format.tensor(inputs)
    coords = coordinates if isinstance(coordinates, Tensor) else _format.tensor(coordinates)
    if coords.shape[0] != x.ndim:
        raise ValueError(f"{fn}: First dim of `coordinates` must be the same as the rank of `inputs`. Received "
                         f"inputs with shape: {tuple(x.shape)} and coordinate leading dim of {coords.shape[0]}")
    if coords.ndim < 2:
        raise ValueError(f"{fn}: Invalid coordinates rank: expected at least rank 2. Received input with shape: "
                         f"{tuple(coords.shape)}")
    if fill_mode not in MAP_COORDINATES_FILL_MODES:
        raise ValueError(f"{fn}: Invalid value for argument `fill_mode`. Expected one of "
                         f"{set(MAP_COORDINATES_FILL_MODES)}. Received: fill_mode={fill_mode}")
    if order not in (0, 1):
        raise NotImplementedError(f"{fn}: map_coordinates currently requires order<=1. Received: order={order}")
    dtype = np.dtype(coords.dtype) if coords.dtype.kind == "f" else np.dtype(np.float32)
    if coords.dtype.kind != "f" and order == 1:
        coords = _o.cast(coords, dtype)
    per_axis = [_sampling.interpolation_nodes(coords[i], order, dtype) for i in range(x.ndim)]
    out = _sampling.interpolate(x, per_axis, fill_mode, fill_value, dtype)
    return _format.back_to(out, x.dtype)


# ---------------------------------------------------------------- elastic_transform
def elastic_transform(images, alpha=20.0, sigma=5.0, interpolation="bilinear", fill_mode="reflect", fill_value=0.0,
                      seed=None, data_format=None):
    """``images`` displaced by a smooth random field: Gaussian noise (drawn from ``seed``) scaled by ``sigma``,
    blurred by a Gaussian of ``sigma`` (a ``6 * int(sigma) | 1`` square kernel), scaled by ``alpha``; read by
    ``interpolation`` and ``fill_mode``. As TF's backend, the row and column displacements are one draw."""
    fn = "elastic_transform"
    _check_choice(interpolation, AFFINE_TRANSFORM_INTERPOLATIONS, "interpolation", fn)
    _check_choice(fill_mode, AFFINE_TRANSFORM_FILL_MODES, "fill_mode", fn)
    x, first = _format.images(images, data_format, fn)
    dtype = np.dtype(x.dtype)
    x, had = _format.batch(_format.to_last(x, first))
    b, h, w, c = x.shape
    k = (6 * int(sigma)) | 1
    noise = _o.multiply(_random.normal((b, h, w, 1), dtype=dtype, seed=seed), np.asarray(sigma, dtype))
    field = _o.reshape(_sampling.gaussian_blur(noise, (k, k), (sigma, sigma)), (b, h, w))
    shift = _o.multiply(field, np.asarray(alpha, dtype))
    ys, xs = np.meshgrid(np.arange(h, dtype=dtype), np.arange(w, dtype=dtype), indexing="ij")
    order = AFFINE_TRANSFORM_INTERPOLATIONS.index(interpolation)

    def along(base):  # one axis's positions, the same for every channel
        coord = _o.add(_o.expand_dims(shift, -1), np.broadcast_to(base[None, :, :, None], (b, h, w, c)))
        return _sampling.interpolation_nodes(_o.broadcast_to(coord, (b, h, w, c)), order, dtype)

    fixed = np.broadcast_to(np.arange(b)[:, None, None, None], (b, h, w, c)), \
        np.broadcast_to(np.arange(c), (b, h, w, c))
    per_axis = [[(fixed[0], None)], along(ys), along(xs), [(fixed[1], None)]]
    out = _format.back_to(_sampling.interpolate(x, per_axis, fill_mode, fill_value, dtype), dtype)
    return _format.from_last(_format.unbatch(out, had), first)


# ---------------------------------------------------------------- scale_and_translate
def _triangle(x):
    return np.maximum(0.0, 1.0 - np.abs(x))


def _keys_cubic(x):
    near = ((1.5 * x - 2.5) * x) * x + 1.0
    far = ((-0.5 * x + 2.5) * x - 4.0) * x + 2.0
    return np.where(x >= 2.0, 0.0, np.where(x >= 1.0, far, near))


def _lanczos(radius):
    def kernel(x):
        with np.errstate(divide="ignore", invalid="ignore"):
            y = radius * np.sin(np.pi * x) * np.sin(np.pi * x / radius) / (np.pi ** 2 * x ** 2)
        return np.where(x > radius, 0.0, np.where(x > 1e-3, y, 1.0))
    return kernel


_KERNELS = {"linear": _triangle, "cubic": _keys_cubic, "lanczos3": _lanczos(3.0), "lanczos5": _lanczos(5.0)}


def _weights(in_size: int, out_size: int, scale, translation, kernel, antialias: bool, dtype) -> np.ndarray:
    """The ``[in_size, out_size]`` resampling matrix of one axis: output ``i`` samples the input at
    ``(i + 0.5 - translation) / scale - 0.5`` with ``kernel`` (widened by ``1 / scale`` when shrinking and
    ``antialias``), weights normalized, outputs sampling outside the input zero."""
    inv = dtype.type(1) / dtype.type(scale)
    widen = max(inv, dtype.type(1)) if antialias else dtype.type(1)
    sample = (np.arange(out_size, dtype=dtype) + dtype.type(0.5)) * inv - dtype.type(translation) * inv - \
        dtype.type(0.5)
    dist = np.abs(sample[None, :] - np.arange(in_size, dtype=dtype)[:, None]) / widen
    w = kernel(dist).astype(dtype)
    total = w.sum(axis=0, keepdims=True)
    ok = np.abs(total) > 1000.0 * float(np.finfo(np.float32).eps)
    w = np.where(ok, w / np.where(total != 0, total, 1), 0).astype(dtype)
    inside = (sample >= -0.5) & (sample <= in_size - 0.5)
    return np.where(inside[None, :], w, 0).astype(dtype)


def scale_and_translate(images, output_shape, scale, translation, spatial_dims, method, antialias=True):
    """JAX's ``jax.image.scale_and_translate``: each axis of ``spatial_dims`` resampled to ``output_shape``'s size,
    output ``i`` reading the input at ``(i + 0.5 - translation) / scale - 0.5`` through ``method``'s kernel
    (linear, cubic (Keys, a = -0.5), lanczos3, lanczos5; antialiased when shrinking unless ``antialias=False``).
    Integer images come back rounded and clamped to their own range."""
    fn = "scale_and_translate"
    _check_choice(method, tuple(sorted(SCALE_AND_TRANSLATE_METHODS)), "method", fn)
    method = {"bilinear": "linear", "trilinear": "linear", "triangle": "linear", "bicubic": "cubic",
              "tricubic": "cubic"}.get(method, method)
    x = _format.tensor(images)
    scale_arr = np.asarray(_format.tensor(scale).numpy())
    shift_arr = np.asarray(_format.tensor(translation).numpy())
    wdtype = np.result_type(scale_arr.dtype, shift_arr.dtype)
    wdtype = wdtype if wdtype.kind == "f" else np.dtype(np.float32)
    if len(spatial_dims) == 0:
        return x
    is_int = x.dtype.kind in "iub"
    out = _o.cast(x, np.float32) if is_int else x
    letters = "abcdefghijklmnop"[:x.ndim]
    for i, d in enumerate(spatial_dims):
        d = d % x.ndim
        w = _weights(x.shape[d], int(output_shape[d]), scale_arr[i], shift_arr[i], _KERNELS[method],
                     bool(antialias), wdtype).astype(np.dtype(out.dtype))
        spec = f"{letters},{letters[d]}z->{letters.replace(letters[d], 'z')}"
        out = _o.einsum(spec, out, w)
    if is_int:
        lo, hi = x.numpy().min(), x.numpy().max()
        out = _o.cast(_o.clip_by_value(_o.round(out), np.float32(lo), np.float32(hi)), x.dtype)
    return out
