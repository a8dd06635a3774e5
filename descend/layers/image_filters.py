"""``Equalization`` and ``RandomGaussianBlur``, as Keras 3's.

``Equalization`` is deterministic histogram equalization per channel; as Keras, the histogram of a channel is
taken over the whole batch given (a batch is equalized as one picture per channel, not image by image): values
moved to ``[0, 255]``, ``bins`` fixed-width bins, ``cdf`` their cumulative counts, a lookup table ``round((cdf -
cdf_min) * 255 / (cdf[-1] - cdf_min))`` (``cdf_min`` the first nonzero count; a zero denominator counts as 1) read
at ``int(clip(x / 255 * (bins - 1), 0, bins - 1))``, moved back; a channel whose values fall in one bin is kept.
With ``training=False`` the images come back unchanged, as Keras.

``RandomGaussianBlur`` blurs each image, with probability ``p ~ U(factor)`` (a threshold ``t ~ U(0, 1)`` per image,
blurred where ``t < p``), by a Gaussian kernel of ``kernel_size`` and standard deviations ``(s_x, s_y) ~
U(sigma) + 1e-6`` shared by the batch, per channel with zero padding ("same"), then clips to ``value_range``.
Draw and transform are split as in the colour layers (:mod:`descend.layers.color_augmentation`).

Example:
    >>> import descend as ds, numpy as np
    >>> ds.layers.Equalization()(np.array([[[[0.0], [64.0]], [[128.0], [128.0]]]], np.float32)).numpy().ravel()
    array([  0.,  85., 255., 255.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..image.sampling import gaussian_kernel
from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops
from ..ops.conv_more_ops import depthwise_conv2d
from .base import Layer
from .color_augmentation import _ColorAugmentation, _keras_factor, _value_range
from .preprocessing import _image_rank

__all__ = ["Equalization", "RandomGaussianBlur"]


def _rescale(values: np.ndarray, source, target) -> np.ndarray:
    scale = (target[1] - target[0]) / (source[1] - source[0])
    return values * scale + (target[0] - source[0] * scale)


class Equalization(Layer):
    """Histogram equalization of each channel (``keras.layers.Equalization``); not differentiable.

    Args:
        value_range: ``(low, high)`` of the images' values (default ``(0, 255)``).
        bins: the number of histogram bins (a positive int, default 256).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    def __init__(self, value_range=(0, 255), bins=256, data_format=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins <= 0:
            raise ValueError(f"Equalization: `bins` must be a positive int. Received: bins={bins!r}")
        self.bins = int(bins)
        self.value_range = _value_range(value_range, "Equalization")
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"Equalization: `data_format` must be 'channels_last' or 'channels_first'. Received: "
                             f"data_format={data_format!r}")
        self.data_format = resolve_data_format(data_format)  # None: image_data_format(), as Keras
        self._build_at_init()

    def _equalize(self, channel: np.ndarray) -> np.ndarray:
        whole = tuple(self.value_range) == (0, 255)
        if not whole:
            channel = _rescale(channel, self.value_range, (0, 255))
        n = self.bins
        scaled = (channel.astype(np.float32) - np.float32(0)) * np.float32(n - 1) / np.float32(255)
        with np.errstate(invalid="ignore"):
            index = np.clip(scaled.astype(np.int32), 0, n - 1)
        hist = np.bincount(index.ravel(), minlength=n)
        if np.count_nonzero(hist) <= 1:
            out = channel
        else:
            cdf = np.cumsum(hist)
            cdf_min = cdf[np.nonzero(cdf)[0][0]]
            denominator = cdf[-1] - cdf_min
            denominator = denominator if denominator != 0 else 1
            table = np.clip(np.round((cdf - cdf_min) * 255 / denominator), 0, 255)
            at = np.clip(channel / 255.0 * (n - 1), 0, n - 1).astype(np.int32)
            out = table[at].astype(channel.dtype)
        return out if whole else _rescale(out, (0, 255), self.value_range)

    def transform_images(self, images, transformation=None, training=True):
        """The equalized images (the batch's channels, each as one histogram)."""
        x = self._float_input(self._convert_inputs(images))
        if not training:
            return x
        values = x.numpy()
        axis = -3 if self.data_format == "channels_first" else -1
        channels = [self._equalize(np.take(values, i, axis=axis)) for i in range(values.shape[axis])]
        return Tensor(np.stack(channels, axis=axis).astype(values.dtype))

    def call(self, inputs, training=True):
        x = self._float_input(inputs)
        _image_rank(x, "Equalization")
        return self.transform_images(x, None, training=training)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        return {**super().get_config(), "bins": self.bins, "value_range": list(self.value_range),
                "data_format": self.data_format}


def _kernel_sizes(value) -> tuple:
    msg = f"RandomGaussianBlur: `kernel_size` must be an odd int or a pair of odd ints. Received: kernel_size={value!r}"
    values = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(values) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v > 0
                                   and v % 2 == 1 for v in values):
        raise ValueError(msg)
    return tuple(int(v) for v in values)


class RandomGaussianBlur(_ColorAugmentation):
    """Blurs images at random with a Gaussian kernel (``keras.layers.RandomGaussianBlur``).

    Args:
        factor: a number ``f`` in ``[0, 1]`` (the probability range ``(0, f)``) or a pair in ``[0, 1]``
            (default 1.0: about half of the images blurred).
        kernel_size: an odd int or a pair of odd ints ``(kh, kw)`` (default 3).
        sigma: a number ``s`` in ``[0, 1]`` (the range ``(0, s)``) or a pair: the standard deviations' range.
        value_range, data_format, seed: as the colour layers.
    """

    def __init__(self, factor=1.0, kernel_size=3, sigma=1.0, value_range=(0, 255), data_format=None, seed=None,
                 **kwargs):
        self.factor = _keras_factor(factor, (0, 1), "RandomGaussianBlur")
        self.kernel_size = _kernel_sizes(kernel_size)
        self.sigma = _keras_factor(sigma, (0, 1), "RandomGaussianBlur")
        super().__init__(value_range=value_range, data_format=data_format, seed=seed, **kwargs)

    def _draw(self, n):
        probability = self._uniform((n,), *self.factor)
        threshold = self._uniform((n,), 0.0, 1.0)
        sigma = math_ops.add(self._uniform((2,), *self.sigma), np.asarray(1e-6, self.compute_dtype.dtype))
        return {"should_apply_blur": math_ops.less(threshold, probability), "blur_factor": sigma}

    def _kernel(self, sigma: np.ndarray, channels: int, dt) -> np.ndarray:
        kh, kw = self.kernel_size
        k2 = gaussian_kernel((kh, kw), sigma, dt)  # (keras.ops.image.gaussian_blur's kernel: one place)
        return np.tile(k2.reshape(kh, kw, 1, 1), (1, 1, channels, 1))

    def _apply(self, x, t):
        dt = x.dtype.dtype
        sigma = np.asarray(t["blur_factor"].numpy(), dt)
        blurred = depthwise_conv2d(x, Tensor(self._kernel(sigma, x.shape[-1], dt)), strides=(1, 1, 1, 1),
                                   padding="SAME")
        apply = array_ops.reshape(math_ops.cast(t["should_apply_blur"], dtype="bool"), shape=(-1, 1, 1, 1))
        y = math_ops.where(apply, blurred, x)
        return math_ops.clip_by_value(y, np.asarray(self.value_range[0], dt), np.asarray(self.value_range[1], dt))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor), "kernel_size": list(self.kernel_size),
                "sigma": list(self.sigma)}
