"""Preprocessing layers, as Keras': ``Normalization`` (with ``adapt``), ``Resizing``, ``CenterCrop`` and
``CategoryEncoding``.

Example:
    >>> import numpy as np
    >>> import descend as ds
    >>> norm = ds.layers.Normalization(axis=-1)
    >>> norm.adapt(np.array([[1.0, 10.0], [3.0, 30.0]]))
    >>> norm(ds.constant([[2.0, 20.0]])).numpy().tolist()
    [[0.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

from .. import image as _image
from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import array_ops, math_ops
from .base import Layer

__all__ = ["Normalization", "Resizing", "CenterCrop", "CategoryEncoding"]

_EPSILON = 1e-7  # Keras' backend.epsilon()


def _aspect_crop(x, height: int, width: int):
    """The largest centred box of ``x`` (NHWC or HWC) with the aspect ratio ``height : width``."""
    h, w = x.shape[-3], x.shape[-2]
    ch = max(min(h, int(float(w * height) / width)), 1)
    cw = max(min(w, int(float(h * width) / height)), 1)
    return _image.crop_to_bounding_box(x, int((h - ch) / 2), int((w - cw) / 2), ch, cw)


class Normalization(Layer):
    """``(x - mean) / max(sqrt(variance), 1e-7)`` per index of ``axis`` (``invert=True``: the inverse).

    ``mean`` and ``variance`` are given, or computed by :meth:`adapt` from data (a NumPy array, a
    tensor, or an iterable of batches such as a batched ``descend.data.Dataset``).

    Args:
        axis: the axes that keep their own statistics (an int, a tuple, or None for one scalar pair).
        mean, variance: the statistics (both or neither).
        invert: map normalized values back.
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = () if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
        if (mean is None) != (variance is None):
            raise ValueError(f"When setting values directly, both `mean` and `variance` must be set. Received: "
                             f"mean={mean} and variance={variance}")
        self.input_mean, self.input_variance = mean, variance
        self.invert = bool(invert)
        self.adapt_mean = self.adapt_variance = self.count = None

    def _keep(self, ndim):
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"All `axis` values must be in the range [-ndim, ndim). Received inputs with "
                             f"ndim={ndim}, while axis={self.axis}")
        return tuple(sorted(a % ndim for a in self.axis))

    def build(self, input_shape):
        ndim = len(input_shape)
        keep = self._keep(ndim)
        self._broadcast = [input_shape[d] if d in keep else 1 for d in range(ndim)]
        shape = tuple(input_shape[d] for d in keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(shape=shape, initializer="zeros", trainable=False, name="mean")
            self.adapt_variance = self.add_weight(shape=shape, initializer="ones", trainable=False, name="variance")
            self.count = self.add_weight(shape=(), initializer="zeros", dtype="int64", trainable=False,
                                         name="count")

    def _statistics(self, dtype):
        if self.input_mean is not None:
            mean = np.asarray(self.input_mean, np.float64)
            var = np.asarray(self.input_variance, np.float64)
            keep = [d for d, s in enumerate(self._broadcast) if s != 1 or d in self._keep(len(self._broadcast))]
            if mean.ndim:
                shape = [1] * len(self._broadcast)
                for i in range(1, mean.ndim + 1):
                    shape[keep[-i]] = mean.shape[-i]
                mean, var = mean.reshape(shape), var.reshape(shape)
            return Tensor(mean.astype(dtype)), Tensor(var.astype(dtype))
        shape = tuple(self._broadcast)
        mean = math_ops.cast(array_ops.reshape(self.adapt_mean, shape=shape), dtype)
        var = math_ops.cast(array_ops.reshape(self.adapt_variance, shape=shape), dtype)
        return mean, var

    def call(self, inputs):
        x = self._float_input(convert_to_tensor(inputs))
        mean, var = self._statistics(x.dtype.dtype)
        scale = math_ops.maximum(math_ops.sqrt(var), _EPSILON)
        if self.invert:
            return math_ops.add(mean, math_ops.multiply(x, scale))
        return math_ops.divide(math_ops.subtract(x, mean), scale)

    def adapt(self, data):
        """Set ``mean`` and ``variance`` to the statistics of ``data`` over the axes not in ``axis``."""
        batches = [data] if isinstance(data, (np.ndarray, Tensor)) or hasattr(data, "shape") else list(data)
        batches = [np.asarray(b[0] if isinstance(b, tuple) else b, np.float64) for b in batches]
        if not batches:
            raise ValueError("adapt() received an empty iterable (no batches). Expected at least one batch.")
        if not self.built:
            self.build((None, *batches[0].shape[1:]))
            self.built = True
        keep = self._keep(batches[0].ndim)
        reduce_axes = tuple(d for d in range(batches[0].ndim) if d not in keep)
        total = np.concatenate([b.reshape(b.shape) for b in batches], axis=0) if len(batches) > 1 else batches[0]
        mean = total.mean(axis=reduce_axes)
        var = total.var(axis=reduce_axes)
        self.adapt_mean.assign(mean.astype(self.adapt_mean.dtype.dtype))
        self.adapt_variance.assign(var.astype(self.adapt_variance.dtype.dtype))
        self.count.assign(np.int64(total.size // max(mean.size, 1)))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        def plain(v):
            return None if v is None else np.asarray(v).tolist()

        return {**super().get_config(), "axis": self.axis, "invert": self.invert, "mean": plain(self.input_mean),
                "variance": plain(self.input_variance)}


class Resizing(Layer):
    """Images resized to ``(height, width)`` (``"bilinear"`` or ``"nearest"``, TF's half-pixel centres;
    ``crop_to_aspect_ratio`` crops the largest centred box of the target's aspect ratio first)."""

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, data_format=None,
                 **kwargs):
        super().__init__(**kwargs)
        from .core import _data_format

        self.height, self.width = int(height), int(width)
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.data_format = _data_format(data_format)
        self._build_at_init()

    def call(self, inputs):
        x = self._float_input(convert_to_tensor(inputs))
        first = self.data_format == "channels_first"
        if first:
            x = array_ops.transpose(x, perm=(*range(x.ndim - 3), x.ndim - 2, x.ndim - 1, x.ndim - 3))
        if self.crop_to_aspect_ratio:
            x = _aspect_crop(x, self.height, self.width)
        y = _image.resize(x, (self.height, self.width), method=self.interpolation)
        if first:
            y = array_ops.transpose(y, perm=(*range(y.ndim - 3), y.ndim - 1, y.ndim - 3, y.ndim - 2))
        return y

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        if self.data_format == "channels_first":
            shape[-2:] = [self.height, self.width]
        else:
            shape[-3:-1] = [self.height, self.width]
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation, "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "data_format": self.data_format}


class CenterCrop(Layer):
    """The central ``height`` x ``width`` of each image (an image smaller than that is resized up first,
    as Keras)."""

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        from .core import _data_format

        self.height, self.width = int(height), int(width)
        self.data_format = _data_format(data_format)
        self._build_at_init()

    def call(self, inputs):
        x = self._float_input(convert_to_tensor(inputs))
        first = self.data_format == "channels_first"
        if first:
            x = array_ops.transpose(x, perm=(*range(x.ndim - 3), x.ndim - 2, x.ndim - 1, x.ndim - 3))
        h, w = x.shape[-3], x.shape[-2]
        if h < self.height or w < self.width:
            # as Keras (smart_resize): the largest centred box of the target's aspect ratio, resized to it
            y = _image.resize(_aspect_crop(x, self.height, self.width), (self.height, self.width))
        else:
            y = _image.crop_to_bounding_box(x, (h - self.height) // 2, (w - self.width) // 2, self.height,
                                            self.width)
        if first:
            y = array_ops.transpose(y, perm=(*range(y.ndim - 3), y.ndim - 1, y.ndim - 3, y.ndim - 2))
        return y

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        if self.data_format == "channels_first":
            shape[-2:] = [self.height, self.width]
        else:
            shape[-3:-1] = [self.height, self.width]
        return tuple(shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "height": self.height, "width": self.width, "data_format": self.data_format}


class CategoryEncoding(Layer):
    """Integer ids as ``"one_hot"``, ``"multi_hot"`` or ``"count"`` vectors of ``num_tokens`` entries."""

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "binary":
            output_mode = "multi_hot"
        if output_mode not in ("count", "one_hot", "multi_hot"):
            raise ValueError(f"Unknown arg for output_mode: {output_mode}")
        if num_tokens is None or int(num_tokens) < 1:
            raise ValueError(f"`num_tokens` must be set to a positive int. Received: num_tokens={num_tokens}")
        if sparse:
            raise ValueError("CategoryEncoding: sparse=True is not supported (dense outputs only)")
        self.num_tokens = int(num_tokens)
        self.output_mode = output_mode
        self._build_at_init()

    def call(self, inputs, count_weights=None):
        ids = np.asarray(convert_to_tensor(inputs).numpy()).astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= self.num_tokens):
            raise ValueError(f"Input values must be in the range 0 <= values < num_tokens with num_tokens="
                             f"{self.num_tokens}. Received: min {ids.min()}, max {ids.max()}")
        dtype = self._compute_dtype
        if self.output_mode == "one_hot":
            if ids.ndim >= 1 and ids.shape[-1] == 1:
                ids = ids[..., 0]
            return Tensor(np.eye(self.num_tokens, dtype=dtype)[ids])
        rows = ids.reshape(-1, ids.shape[-1]) if ids.ndim > 1 else ids.reshape(1, -1)
        weights = None if count_weights is None else np.asarray(count_weights, np.float64).reshape(rows.shape)
        out = np.zeros((rows.shape[0], self.num_tokens), dtype)
        for r, row in enumerate(rows):
            if self.output_mode == "multi_hot":
                out[r, row] = 1
            else:
                np.add.at(out[r], row, 1 if weights is None else weights[r])
        return Tensor(out.reshape(*ids.shape[:-1], self.num_tokens) if ids.ndim > 1 else out[0])

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        if self.output_mode == "one_hot" and shape and shape[-1] != 1:
            return (*shape, self.num_tokens)
        return (*shape[:-1], self.num_tokens)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_tokens": self.num_tokens, "output_mode": self.output_mode,
                "sparse": False}
