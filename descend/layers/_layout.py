"""Image layouts of the layers that compute channels last (the geometric and colour augmentations, resizing,
cropping): with ``data_format="channels_first"`` (given, or ``keras.config.image_data_format()`` for None) their
``call`` sees the images with the channel axis moved last and moves it back on the way out, so they take either
layout, as Keras' do.

Example:
    >>> import numpy as np, descend as ds
    >>> ds.layers.Resizing(2, 3, data_format="channels_first")(np.zeros((4, 3, 6, 6), np.float32)).shape
    TensorShape([4, 3, 2, 3])
"""

from __future__ import annotations

import functools

from ..framework.tensor import convert_to_tensor
from ..framework.image_format import resolve_data_format
from ..ops import array_ops

__all__ = ["channels_last_kernel", "channels_last_only", "channels_last_shape"]

# rank -> (to channels last, back to channels first): one image (c, h, w) or a batch (b, c, h, w)
_PERMS = {3: ((1, 2, 0), (2, 0, 1)), 4: ((0, 2, 3, 1), (0, 3, 1, 2))}


def channels_last_only(value, owner: str) -> str:
    """``"channels_last"`` for a layer descend computes channels last only: ``value`` or, for None,
    ``keras.config.image_data_format()`` (as Keras resolves it) must be it.

    Raises:
        ValueError: naming ``owner`` and what was received (and where a None came from).
    """
    fmt = resolve_data_format(value, owner)
    if fmt != "channels_last":
        where = " (keras.config.image_data_format() for data_format=None)" if value is None else ""
        raise ValueError(f"{owner}: descend supports data_format='channels_last' only. "
                         f"Received: data_format={fmt!r}{where}")
    return fmt


def channels_last_kernel(call):
    """``call`` (written for channels-last images) made to take the layer's ``data_format``: channels-first
    images of rank 3 or 4 are transposed to channels last, and its result back. Other ranks go to ``call``
    as they are (its own check names them)."""

    @functools.wraps(call)
    def wrapped(self, inputs, *args, **kwargs):
        if self.data_format != "channels_first":
            return call(self, inputs, *args, **kwargs)
        x = convert_to_tensor(inputs)
        if x.ndim not in _PERMS:
            return call(self, x, *args, **kwargs)
        to_last, to_first = _PERMS[x.ndim]
        return array_ops.transpose(call(self, array_ops.transpose(x, to_last), *args, **kwargs), to_first)

    return wrapped


def channels_last_shape(compute_output_shape):
    """``compute_output_shape`` (written for channels-last shapes) made to take the layer's ``data_format``."""

    @functools.wraps(compute_output_shape)
    def wrapped(self, input_shape):
        shape = tuple(input_shape)
        if self.data_format != "channels_first" or len(shape) not in _PERMS:
            return compute_output_shape(self, shape)
        to_last, to_first = _PERMS[len(shape)]
        out = tuple(compute_output_shape(self, tuple(shape[i] for i in to_last)))
        return tuple(out[i] for i in to_first)

    return wrapped
