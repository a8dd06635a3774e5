"""Pooling layers: max and average pooling (1-D, 2-D; one implementation, ``_Pooling``), and global pooling."""

from __future__ import annotations

from ..ops import array_ops, math_ops
from ..ops.conv_ops import _padding, _pair, avg_pool1d, avg_pool2d, conv_output_size, max_pool1d, max_pool2d
from .base import Layer
from ._conv_common import incompatible
from .core import _data_format, _positive_int

__all__ = ["MaxPooling1D", "AveragePooling1D", "MaxPooling2D", "AveragePooling2D", "GlobalAveragePooling1D", "GlobalMaxPooling1D",
           "GlobalAveragePooling2D", "GlobalMaxPooling2D"]


def _single(value, what: str, owner: str) -> int:
    if isinstance(value, (list, tuple)) and len(value) == 1:
        value = value[0]
    return _positive_int(value, what, owner)


class _Pooling(Layer):
    """A window op over ``rank`` spatial axes (``_pool``); 1-D sizes are ints, 2-D sizes pairs (as Keras')."""

    rank = 1
    _pool = None

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        owner = type(self).__name__
        size = _single if self.rank == 1 else _pair
        self.pool_size = size(pool_size, "pool_size", owner)
        self.strides = self.pool_size if strides is None else size(strides, "strides", owner)
        self.padding = _padding(padding, owner)
        self.data_format = _data_format(data_format)
        self._build_at_init()

    def _windows(self) -> list:
        """``(pool, stride)`` per spatial axis."""
        if self.rank == 1:
            return [(self.pool_size, self.strides)]
        return list(zip(self.pool_size, self.strides))

    def call(self, inputs):
        x = self._float_input(inputs)
        if x.ndim != self.rank + 2:
            raise incompatible(self, x, f"expected ndim={self.rank + 2}, found ndim={x.ndim}")
        spatial = "W" if self.rank == 1 else "HW"
        fmt = f"N{spatial}C" if self.data_format == "channels_last" else f"NC{spatial}"
        return type(self)._pool(x, self.pool_size, self.strides, padding=self.padding, data_format=fmt)

    def compute_output_shape(self, input_shape):
        out = list(input_shape)
        first = 1 if self.data_format == "channels_last" else 2
        for axis, (k, s) in enumerate(self._windows(), start=first):
            size = out[axis]
            out[axis] = None if size is None else conv_output_size(size, k, s, self.padding)[0]
        return tuple(out)

    def get_config(self) -> dict:
        return {**super().get_config(), "pool_size": self.pool_size, "strides": self.strides,
                "padding": self.padding, "data_format": self.data_format}


class MaxPooling1D(_Pooling):
    """1-D max pooling over the steps axis of ``(batch, steps, features)``.

    Args:
        pool_size: the window (default 2).
        strides: default ``pool_size``.
        padding: ``"valid"`` (default) or ``"same"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Example:
        >>> import descend as ds
        >>> ds.layers.MaxPooling1D(2)(ds.ones((2, 5, 3))).shape
        TensorShape([2, 2, 3])
    """

    _pool = staticmethod(max_pool1d)


class AveragePooling1D(_Pooling):
    """1-D average pooling over the steps axis (``"same"`` padding is not counted in the means).

    Example:
        >>> import descend as ds
        >>> ds.layers.AveragePooling1D(2, padding="same")(ds.ones((2, 5, 3))).shape
        TensorShape([2, 3, 3])
    """

    _pool = staticmethod(avg_pool1d)


class MaxPooling2D(_Pooling):
    """2-D max pooling: the largest value of each ``pool_size`` window (``"same"`` pads with ``-inf``,
    so padding is never the maximum).

    Args:
        pool_size: an int or 2 ints (default (2, 2)).
        strides: an int or 2 ints; None (default) means ``pool_size``.
        padding: ``"valid"`` (default) or ``"same"`` (TF's rule).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Example:
        >>> import descend as ds
        >>> ds.layers.MaxPooling2D()(ds.ones((2, 5, 5, 3))).shape
        TensorShape([2, 2, 2, 3])
    """

    rank = 2
    _pool = staticmethod(max_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(_Pooling):
    """2-D average pooling: the mean of each ``pool_size`` window (padding is not counted, as TF).

    Args:
        pool_size: an int or 2 ints (default (2, 2)).
        strides: an int or 2 ints; None (default) means ``pool_size``.
        padding: ``"valid"`` (default) or ``"same"``.
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Example:
        >>> import descend as ds
        >>> ds.layers.AveragePooling2D()(ds.ones((2, 5, 5, 3))).shape
        TensorShape([2, 2, 2, 3])
    """

    rank = 2
    _pool = staticmethod(avg_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class _GlobalPooling(Layer):
    _rank = 1

    def __init__(self, data_format=None, keepdims: bool = False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.keepdims = bool(keepdims)
        self._build_at_init()

    def _axes(self, x):
        n = self._rank + 2
        if x.ndim != n:
            raise incompatible(self, x, f"expected ndim={n}, found ndim={x.ndim}")
        return tuple(range(1, n - 1)) if self.data_format == "channels_last" else tuple(range(2, n))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        axes = range(1, self._rank + 1) if self.data_format == "channels_last" else range(2, self._rank + 2)
        if self.keepdims:
            return tuple(1 if i in axes else d for i, d in enumerate(input_shape))
        return tuple(d for i, d in enumerate(input_shape) if i not in axes)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps axis: ``(batch, steps, features)`` -> ``(batch, features)``.

    With a Keras mask (from ``Embedding(mask_zero=True)``) the mean is over
    the unmasked steps only, as Keras: ``sum(x * mask) / sum(mask)``.

    Args:
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
        keepdims: keep the pooled axis with length 1.

    Example:
        >>> import descend as ds
        >>> emb = ds.layers.Embedding(10, 2, mask_zero=True, embeddings_initializer="ones")
        >>> ds.layers.GlobalAveragePooling1D()(emb(ds.constant([[3, 4, 0, 0]]))).numpy()
        array([[1., 1.]], dtype=float32)
    """

    supports_masking = True

    def call(self, inputs, mask=None):
        x = self._float_input(inputs)
        axes = self._axes(x)
        if mask is None:
            return math_ops.reduce_mean(x, axis=axes, keepdims=self.keepdims)
        m = math_ops.cast(mask, dtype=x.dtype)
        m = array_ops.expand_dims(m, axis=2 if self.data_format == "channels_last" else 1)
        total = math_ops.reduce_sum(math_ops.multiply(x, m), axis=axes, keepdims=self.keepdims)
        return math_ops.divide(total, math_ops.reduce_sum(m, axis=axes, keepdims=self.keepdims))

    def compute_mask(self, inputs, mask=None):
        return None


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over the steps axis: ``(batch, steps, features)`` -> ``(batch, features)``.

    Example:
        >>> import descend as ds
        >>> ds.layers.GlobalMaxPooling1D()(ds.constant([[[1.0, 5.0], [3.0, 2.0]]])).numpy()
        array([[3., 5.]], dtype=float32)
    """

    def call(self, inputs):
        x = self._float_input(inputs)
        return math_ops.reduce_max(x, axis=self._axes(x), keepdims=self.keepdims)


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over height and width: ``(batch, H, W, C)`` -> ``(batch, C)``.

    Example:
        >>> import descend as ds
        >>> ds.layers.GlobalAveragePooling2D()(ds.ones((2, 4, 4, 3))).shape
        TensorShape([2, 3])
    """

    _rank = 2

    def call(self, inputs):
        x = self._float_input(inputs)
        return math_ops.reduce_mean(x, axis=self._axes(x), keepdims=self.keepdims)


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over height and width: ``(batch, H, W, C)`` -> ``(batch, C)``.

    Example:
        >>> import descend as ds
        >>> ds.layers.GlobalMaxPooling2D(keepdims=True)(ds.ones((2, 4, 4, 3))).shape
        TensorShape([2, 1, 1, 3])
    """

    _rank = 2

    def call(self, inputs):
        x = self._float_input(inputs)
        return math_ops.reduce_max(x, axis=self._axes(x), keepdims=self.keepdims)
