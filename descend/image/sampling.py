"""Reading images at arbitrary coordinates, and Gaussian blurring: the one implementation behind
``keras.ops.image.map_coordinates``, ``elastic_transform`` and ``gaussian_blur`` (on Tensors, so differentiable:
in the images, and in the coordinates with linear interpolation) and ``layers.RandomElasticTransform`` (on NumPy
arrays, the form an augmentation layer computes in).

Each function takes NumPy arrays or Tensors (Variables too) and answers in the same kind (:func:`._common.arith`), with the same
values either way.

Example:
    >>> import numpy as np
    >>> from descend.image.sampling import map_coordinates_array
    >>> map_coordinates_array(np.arange(5.0, dtype=np.float32), [[0.5, 2.25, 6.0]]).tolist()
    [0.5, 2.25, 0.0]
"""

from __future__ import annotations

import itertools

import numpy as np

from ..framework.tensor import Tensor
from ..ops import math_ops
from . import _common

__all__ = ["FILL_MODES", "fold_index", "interpolation_nodes", "interpolate", "map_coordinates_array",
           "gaussian_kernel", "correlate", "gaussian_blur"]

#: ``map_coordinates``' ways of reading outside the input, as Keras'
FILL_MODES = ("constant", "nearest", "wrap", "mirror", "reflect")


def fold_index(index: np.ndarray, size: int, fill_mode: str):
    """``(index mapped into [0, size) by fill_mode, where it was valid or None)``, as Keras' TensorFlow backend
    maps it: "constant" clips and marks the points outside; "nearest" clips; "wrap" is periodic; "reflect" and
    "mirror" fold ``|index|`` into ``[0, 2 size)`` and reflect the upper half (reflect repeating the edge pixel
    there), so a negative index reads as its absolute value in both. TF's mirror would read row ``size`` at
    ``|index| = size`` (an out-of-range gather): descend reads the last row there."""
    valid = None
    if fill_mode == "constant":
        valid = (index >= 0) & (index < size)
        index = np.clip(index, 0, size - 1)
    elif fill_mode == "nearest":
        index = np.clip(index, 0, size - 1)
    elif fill_mode == "wrap":
        index = np.mod(index, size)
    else:  # reflect, mirror
        folded = np.mod(np.abs(index), 2 * size)
        over = folded >= size
        index = np.where(over, 2 * size - folded, folded)
        index = np.where(over, index - 1, index) if fill_mode == "reflect" else np.minimum(index, size - 1)
    return index, valid


def interpolation_nodes(coord, order: int, dtype) -> list:
    """``[(integer index, weight or None)]`` of one axis's coordinates: the rounded coordinate, halves to even
    (order 0), or its floor and ceiling with linear weights in ``dtype`` (order 1; a Tensor coordinate gives
    Tensor weights, differentiable in it)."""
    values = coord.numpy() if isinstance(coord, Tensor) else np.asarray(coord)
    if order == 0:
        index = values if values.dtype.kind in "iu" else np.round(values)
        return [(index.astype(np.int64), None)]
    lower = np.floor(values)
    if isinstance(coord, Tensor):
        upper_w = math_ops.subtract(coord, lower.astype(dtype))
        lower_w = math_ops.subtract(np.asarray(1, dtype), upper_w)
    else:
        upper_w = (values - lower).astype(dtype)
        lower_w = (1 - upper_w).astype(dtype)
    lower = lower.astype(np.int64)
    return [(lower, lower_w), (lower + 1, upper_w)]


def interpolate(x, per_axis, fill_mode: str, fill_value, dtype):
    """The sum over every corner of ``per_axis``'s nodes (one list of :func:`interpolation_nodes` per axis of
    ``x``) of ``x`` at that corner, indices folded by :func:`fold_index`, times the product of the corner's
    weights, in the float ``dtype``; points outside in "constant" mode read ``fill_value``."""
    ar = _common.arith(x)
    flat = ar.reshape(x, (-1,))
    if np.dtype(x.dtype) != dtype:
        flat = ar.cast(flat, dtype)
    strides = np.cumprod((1,) + tuple(x.shape[::-1]))[:-1][::-1]
    fill = np.asarray(fill_value, x.dtype).astype(dtype)
    total = None
    for corner in itertools.product(*per_axis):
        offset, valid, weight = 0, None, None
        for (index, w), size, stride in zip(corner, x.shape, strides):
            index, ok = fold_index(index, size, fill_mode)
            offset = offset + index * stride
            valid = ok if valid is None else (valid if ok is None else valid & ok)
            if w is not None:
                weight = w if weight is None else ar.mul(weight, w)
        value = ar.gather(flat, offset)
        if valid is not None and not valid.all():
            value = ar.where(valid, value, fill)
        term = value if weight is None else ar.mul(weight, value)
        total = term if total is None else ar.add(total, term)
    return total


def map_coordinates_array(image, coordinates, order: int = 1, fill_mode: str = "constant",
                          fill_value=0.0) -> np.ndarray:
    """``keras.ops.image.map_coordinates`` on a NumPy array: ``image`` read at ``coordinates`` (one array per
    axis), ``order`` 0 (nearest, halves to even) or 1 (linear), outside points by ``fill_mode``; in the image's
    dtype."""
    image = np.asarray(image)
    if fill_mode not in FILL_MODES:
        raise ValueError(f"map_coordinates: fill_mode must be one of {list(FILL_MODES)}. Received: {fill_mode!r}")
    coords = [np.asarray(c) for c in coordinates]
    if len(coords) != image.ndim:
        raise ValueError(f"map_coordinates: need one coordinate array per axis of the input ({image.ndim}). "
                         f"Received {len(coords)}")
    if order not in (0, 1):
        raise NotImplementedError(f"map_coordinates: order must be 0 or 1. Received: order={order}")
    kind = np.result_type(*coords)
    dtype = kind if kind.kind == "f" else np.dtype(np.float32)
    per_axis = [interpolation_nodes(c, order, dtype) for c in coords]
    return np.asarray(interpolate(image, per_axis, fill_mode, fill_value, dtype)).astype(image.dtype)


def _gaussian_1d(size: int, sigma, dtype) -> np.ndarray:
    x = np.arange(size, dtype=dtype) - dtype.type((size - 1) / 2)
    k = np.exp(dtype.type(-0.5) * (x / dtype.type(sigma)) ** 2)
    return (k / k.sum()).astype(dtype)


def gaussian_kernel(kernel_size, sigma, dtype) -> np.ndarray:
    """The ``kernel_size`` (rows, columns) Gaussian kernel of ``sigma`` (per axis), each 1-D kernel summing to
    one. As Keras' TensorFlow backend: the outer product of the second axis's 1-D kernel with the first's, laid
    out as ``kernel_size`` (for a square kernel, rows weighted by ``sigma[1]``'s kernel)."""
    dtype = np.dtype(dtype)
    ks = tuple(int(k) for k in kernel_size)
    return np.outer(_gaussian_1d(ks[1], sigma[1], dtype), _gaussian_1d(ks[0], sigma[0], dtype)).reshape(ks)


def correlate(x, kernel: np.ndarray):
    """The "valid" 2-D correlation of each channel of ``x`` ``[b, h, w, c]`` with ``kernel`` ``[kh, kw]``
    (``[b, h - kh + 1, w - kw + 1, c]``): a sum over the kernel's taps in row-major order, which keeps memory to
    a few copies of ``x`` however wide the kernel."""
    ar = _common.arith(x)
    kh, kw = kernel.shape
    h, w = x.shape[1] - kh + 1, x.shape[2] - kw + 1
    out = None
    for a in range(kh):
        for b in range(kw):
            term = ar.mul(x[:, a:a + h, b:b + w], kernel[a, b])
            out = term if out is None else ar.add(out, term)
    return out


def gaussian_blur(x, kernel_size, sigma):
    """The float batch ``x`` ``[b, h, w, c]`` convolved per channel with :func:`gaussian_kernel`, zero-padded to
    keep its size (TF's "SAME": the odd pixel of padding after): :func:`correlate` of the padded batch."""
    ar = _common.arith(x)
    kernel = gaussian_kernel(kernel_size, sigma, x.dtype)
    kh, kw = kernel.shape
    top, left = (kh - 1) // 2, (kw - 1) // 2
    return correlate(ar.pad(x, [(0, 0), (top, kh - 1 - top), (left, kw - 1 - left), (0, 0)]), kernel)
