"""``GlobalAveragePooling3D`` and ``GlobalMaxPooling3D`` (as Keras'): the mean or maximum over the three
spatial axes of ``(batch, d1, d2, d3, channels)``.

Example:
    >>> import descend as ds
    >>> ds.layers.GlobalAveragePooling3D()(ds.ones((2, 3, 3, 3, 4))).shape
    TensorShape([2, 4])
"""

from __future__ import annotations

from ..ops import math_ops
from .base import Layer
from .core import _data_format

__all__ = ["GlobalAveragePooling3D", "GlobalMaxPooling3D"]


class _GlobalPooling3D(Layer):
    _reduce = None

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)
        self.keepdims = bool(keepdims)
        self._build_at_init()

    def _axes(self):
        return (1, 2, 3) if self.data_format == "channels_last" else (2, 3, 4)

    def call(self, inputs):
        if inputs.ndim != 5:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected ndim=5, "
                             f"found ndim={inputs.ndim}. Full shape received: {tuple(inputs.shape)}")
        return self._reduce(inputs, axis=self._axes(), keepdims=self.keepdims)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        if self.keepdims:
            return tuple(1 if k in self._axes() else s for k, s in enumerate(shape))
        return tuple(s for k, s in enumerate(shape) if k not in self._axes())

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format, "keepdims": self.keepdims}


class GlobalAveragePooling3D(_GlobalPooling3D):
    """The mean over the spatial axes of a volume batch."""

    _reduce = staticmethod(math_ops.reduce_mean)


class GlobalMaxPooling3D(_GlobalPooling3D):
    """The maximum over the spatial axes of a volume batch."""

    _reduce = staticmethod(math_ops.reduce_max)
