"""Layers that pad, repeat or crop the spatial axes, as Keras': ``ZeroPadding{1,2,3}D``,
``UpSampling{1,2,3}D`` and ``Cropping{1,2,3}D``.

All are one implementation each over ``rank`` spatial axes (1: ``(batch, steps, channels)``, 2: images, 3:
volumes), ``channels_last`` by default. Padding is ``pad``, nearest up-sampling is ``repeat`` (a gather)
and cropping a slice, so each is differentiable through the ops' VJPs; bilinear up-sampling is a product
with constant interpolation matrices (TensorFlow's half-pixel centres, as ``tf.image.resize``).

Example:
    >>> import descend as ds
    >>> ds.layers.ZeroPadding2D(1)(ds.ones((1, 2, 2, 3))).shape
    TensorShape([1, 4, 4, 3])
    >>> ds.layers.UpSampling2D(2)(ds.ones((1, 2, 2, 3))).shape
    TensorShape([1, 4, 4, 3])
    >>> ds.layers.Cropping1D((1, 0))(ds.ones((1, 5, 2))).shape
    TensorShape([1, 4, 2])
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..ops import array_ops, manipulation_ops, math_ops
from .base import Layer
from .core import _data_format

__all__ = ["ZeroPadding1D", "ZeroPadding2D", "ZeroPadding3D", "UpSampling1D", "UpSampling2D", "UpSampling3D",
           "Cropping1D", "Cropping2D", "Cropping3D"]


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _pairs(value, rank: int, what: str, owner: str) -> tuple:
    """``value`` as ``rank`` pairs ``(before, after)`` of non-negative ints: an int (all sides), ``rank``
    ints (symmetric per axis), or ``rank`` pairs."""
    if _is_int(value):
        pairs = ((int(value), int(value)),) * rank
    elif isinstance(value, (list, tuple)) and rank == 1 and len(value) == 2 and all(_is_int(v) for v in value):
        pairs = ((int(value[0]), int(value[1])),)
    elif isinstance(value, (list, tuple)) and len(value) == rank and all(_is_int(v) for v in value):
        pairs = tuple((int(v), int(v)) for v in value)
    elif isinstance(value, (list, tuple)) and len(value) == rank and all(
            isinstance(p, (list, tuple)) and len(p) == 2 and all(_is_int(v) for v in p) for p in value):
        pairs = tuple((int(a), int(b)) for a, b in value)
    else:
        raise ValueError(f"{owner}: `{what}` should be an int, a tuple of {rank} ints, or a tuple of {rank} tuples "
                         f"of 2 ints. Received: {what}={value!r}")
    if any(v < 0 for p in pairs for v in p):
        raise ValueError(f"{owner}: `{what}` must be non-negative. Received: {what}={value!r}")
    return pairs


def _sizes(value, rank: int, what: str, owner: str) -> tuple:
    values = (value,) * rank if _is_int(value) else tuple(value) if isinstance(value, (list, tuple)) else None
    if values is None or len(values) != rank or not all(_is_int(v) and v > 0 for v in values):
        raise ValueError(f"{owner}: `{what}` must be a positive int or a tuple of {rank} of them. Received: "
                         f"{what}={value!r}")
    return tuple(int(v) for v in values)


class _Spatial(Layer):
    rank = 2

    def _spatial_axes(self) -> list:
        first = 1 if self.data_format == "channels_last" else 2
        return list(range(first, first + self.rank))

    def _check_rank(self, x):
        if x.ndim != self.rank + 2:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected "
                             f"ndim={self.rank + 2}, found ndim={x.ndim}. Full shape received: {tuple(x.shape)}")


class _ZeroPadding(_Spatial):
    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, self.rank, "padding", type(self).__name__)
        self.data_format = _data_format(data_format)
        self._build_at_init()

    def call(self, inputs):
        self._check_rank(inputs)
        widths = [[0, 0] for _ in range(inputs.ndim)]
        for axis, pair in zip(self._spatial_axes(), self.padding):
            widths[axis] = list(pair)
        return array_ops.pad(inputs, widths)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, (a, b) in zip(self._spatial_axes(), self.padding):
            shape[axis] = None if shape[axis] is None else shape[axis] + a + b
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "padding": self.padding, "data_format": self.data_format}


class ZeroPadding1D(_ZeroPadding):
    """Zeros added before and after the steps axis of ``(batch, steps, channels)``.

    Args:
        padding: an int (both ends) or a pair ``(before, after)``.
    """

    rank = 1

    def __init__(self, padding=1, data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding2D(_ZeroPadding):
    """Zero rows and columns around an image.

    Args:
        padding: an int, ``(rows, cols)`` (symmetric), or ``((top, bottom), (left, right))``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    rank = 2


class ZeroPadding3D(_ZeroPadding):
    """Zeros around a volume ``(batch, d1, d2, d3, channels)``; ``padding`` as for ``ZeroPadding2D`` with 3 axes."""

    rank = 3


class _UpSampling(_Spatial):
    def __init__(self, size=2, data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = _sizes(size, self.rank, "size", type(self).__name__)
        self.data_format = _data_format(data_format)
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"{type(self).__name__}: `interpolation` must be 'nearest' or 'bilinear'. Received: "
                             f"interpolation={interpolation!r}")
        self.interpolation = interpolation
        self._build_at_init()

    def call(self, inputs):
        self._check_rank(inputs)
        y = inputs
        for axis, s in zip(self._spatial_axes(), self.size):
            if s == 1:
                continue
            if self.interpolation == "nearest":
                y = manipulation_ops.repeat(y, [s] * y.shape[axis], axis=axis)
            else:
                y = _resize_axis_bilinear(y, axis, y.shape[axis] * s)
        return y

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, s in zip(self._spatial_axes(), self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * s
        return tuple(shape)

    def get_config(self) -> dict:
        config = {**super().get_config(), "size": self.size}
        if self.rank > 1:
            config["data_format"] = self.data_format
        if self.rank == 2:
            config["interpolation"] = self.interpolation
        return config


def bilinear_matrix(n_in: int, n_out: int, dtype) -> np.ndarray:
    """The ``(n_out, n_in)`` matrix of linear interpolation with half-pixel centres (TensorFlow's
    ``resize_bilinear(half_pixel_centers=True)``): output ``i`` reads ``(i + 0.5) * n_in / n_out - 0.5``."""
    m = np.zeros((n_out, n_in), dtype)
    scale = n_in / n_out
    for i in range(n_out):
        src = (i + 0.5) * scale - 0.5
        low = int(np.floor(src))
        lerp = src - low
        lo, hi = max(low, 0), min(int(np.ceil(src)), n_in - 1)
        m[i, lo] += 1.0 - lerp
        m[i, hi] += lerp
    return m


def _resize_axis_bilinear(x, axis: int, n_out: int):
    """``x`` resized along ``axis`` by linear interpolation: a product with a constant matrix."""
    mat = Tensor(bilinear_matrix(x.shape[axis], n_out, x.dtype.dtype))
    letters = "abcdefgh"[:x.ndim]
    out = letters.replace(letters[axis], "z")
    return math_ops.einsum(f"z{letters[axis]},{letters}->{out}", mat, x)


class UpSampling1D(_UpSampling):
    """Each step repeated ``size`` times: ``(batch, steps, c)`` -> ``(batch, steps * size, c)``."""

    rank = 1

    def __init__(self, size=2, **kwargs):
        super().__init__(size, None, "nearest", **kwargs)


class UpSampling2D(_UpSampling):
    """Rows and columns repeated ``size`` times (``"nearest"``), or interpolated (``"bilinear"``, TF's
    half-pixel centres).

    Args:
        size: an int or ``(rows, cols)``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        interpolation: ``"nearest"`` (default) or ``"bilinear"``.
    """

    rank = 2


class UpSampling3D(_UpSampling):
    """Each of the 3 spatial axes repeated ``size`` times (nearest)."""

    rank = 3

    def __init__(self, size=(2, 2, 2), data_format=None, **kwargs):
        super().__init__(size, data_format, "nearest", **kwargs)


class _Cropping(_Spatial):
    def __init__(self, cropping=1, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, self.rank, "cropping", type(self).__name__)
        self.data_format = _data_format(data_format)
        self._build_at_init()

    def call(self, inputs):
        self._check_rank(inputs)
        key = [slice(None)] * inputs.ndim
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            if a + b >= inputs.shape[axis]:
                raise ValueError(f"Layer '{self.name}': cropping {(a, b)} leaves nothing of axis {axis} of size "
                                 f"{inputs.shape[axis]}. Full shape received: {tuple(inputs.shape)}")
            key[axis] = slice(a, inputs.shape[axis] - b)
        return array_ops.getitem(inputs, tuple(key))

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            shape[axis] = None if shape[axis] is None else shape[axis] - a - b
        return tuple(shape)

    def get_config(self) -> dict:
        config = {**super().get_config(), "cropping": self.cropping}
        if self.rank > 1:
            config["data_format"] = self.data_format
        return config


class Cropping1D(_Cropping):
    """``cropping = (before, after)`` steps removed from ``(batch, steps, channels)``."""

    rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, None, **kwargs)


class Cropping2D(_Cropping):
    """Rows and columns removed from the edges of an image.

    Args:
        cropping: an int, ``(rows, cols)`` (symmetric), or ``((top, bottom), (left, right))``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping3D(_Cropping):
    """Entries removed from the edges of a volume; ``cropping`` as for ``Cropping2D`` with 3 axes."""

    rank = 3

    def __init__(self, cropping=((1, 1), (1, 1), (1, 1)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)
