"""Random colour augmentations, as Keras 3's: ``Solarization``, ``RandomPosterization``,
``RandomColorDegeneration``, ``RandomSaturation``, ``RandomHue`` and ``RandomSharpness``.

Each layer works as Keras' image preprocessing layers: ``get_random_transformation(images)`` draws the per-image
parameters (a dict of Tensors; descend's generator, seeded by ``seed``, recorded as a random op so that
``descend.function`` draws anew on every call), and ``transform_images(images, transformation)`` applies them, a
pure function of the two: given Keras' transformation it gives Keras' images (tests/test_color_augmentation.py
checks each layer so). ``call(images, training=True)`` chains the two; with ``training=False`` the images come
back unchanged, cast to the layer's dtype, as Keras. Images are ``(batch, height, width, channels)`` or one
``(height, width, channels)`` image (``channels_first`` too, where the layer takes a ``data_format``); values are
in ``value_range``.

Example:
    >>> import descend as ds, numpy as np
    >>> x = np.array([[[[10.0, 200.0, 30.0]]]], np.float32)
    >>> ds.layers.Solarization()(x).numpy().ravel().tolist()   # addition 0, threshold 0: every value inverted
    [245.0, 55.0, 225.0]
    >>> ds.layers.RandomPosterization(factor=(2, 2))(x).numpy().ravel().tolist()   # 2 bits kept
    [0.0, 192.0, 0.0]
"""

from __future__ import annotations

import numpy as np

from .. import image
from ..framework.tensor import Tensor
from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops
from ..ops.conv_more_ops import depthwise_conv2d
from ..ops.random_draw import draw
from .preprocessing import _Random

__all__ = ["Solarization", "RandomPosterization", "RandomColorDegeneration", "RandomSaturation", "RandomHue",
           "RandomSharpness"]

_EPSILON = 1e-7  # Keras' backend.epsilon()


def _value_range(value_range, owner: str) -> list:
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2 or not all(
            isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in value_range):
        raise ValueError(f"{owner}: `value_range` must be a tuple or list of two numbers. Received: "
                         f"value_range={value_range!r}")
    return sorted(value_range)


def _number(value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def _keras_factor(factor, bounds, owner: str) -> tuple:
    """Keras' base rule: a number ``f`` in ``bounds`` means ``(max(-f, low), f)``; a pair is sorted and must reach
    into ``bounds``."""
    msg = (f"{owner}: the `factor` argument should be a number (or a list of two numbers) in the range "
           f"[{bounds[0]}, {bounds[1]}]. Received: factor={factor!r}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or not all(_number(f) for f in factor) or factor[0] > bounds[1] or \
                factor[1] < bounds[0]:
            raise ValueError(msg)
        return tuple(sorted(factor))
    if not _number(factor) or factor < bounds[0] or factor > bounds[1]:
        raise ValueError(msg)
    f = abs(factor)
    return max(-f, bounds[0]), f


def _rescale(x, source, target):
    """Values moved linearly from ``source`` to ``target`` range (Keras' ``_transform_value_range``)."""
    if tuple(source) == tuple(target):
        return x
    dt = x.dtype.dtype
    unit = math_ops.divide(math_ops.subtract(x, np.asarray(source[0], dt)), np.asarray(source[1] - source[0], dt))
    return math_ops.add(math_ops.multiply(unit, np.asarray(target[1] - target[0], dt)), np.asarray(target[0], dt))


class _ColorAugmentation(_Random):
    """The shared part: data format, value range, the draw/transform split and single images."""

    def __init__(self, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        owner = type(self).__name__
        self.value_range = _value_range(value_range, owner)
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"{owner}: `data_format` must be 'channels_last' or 'channels_first'. Received: "
                             f"data_format={data_format!r}")
        self.data_format = resolve_data_format(data_format)  # None: image_data_format(), as Keras
        super().__init__(seed=seed, **kwargs)

    def _uniform(self, shape, low, high):
        """``U(low, high)`` draws of ``shape`` in the layer's dtype (a recorded random op)."""
        dt = self.compute_dtype.dtype
        return draw(fn=lambda: self._rng.uniform(low, high, size=shape).astype(dt))

    def get_random_transformation(self, data, training=True, seed=None):
        """The per-image parameters for ``data`` (a dict of Tensors); None when not training."""
        if not training:
            return None
        x = self._images(data)
        return self._draw(self._batch(x))

    def transform_images(self, images, transformation, training=True):
        """``images`` (a batch) transformed by ``transformation`` (Keras' or this layer's draw)."""
        x = self._images(images)
        if not training or transformation is None:
            return x
        last = self.data_format == "channels_last"
        if not last:
            x = array_ops.transpose(x, perm=(0, 2, 3, 1))
        y = self._apply(x, {k: v if isinstance(v, Tensor) else Tensor(np.asarray(v)) for k, v in
                            transformation.items()})
        return y if last else array_ops.transpose(y, perm=(0, 3, 1, 2))

    def call(self, inputs, training=True):
        x = self._images(inputs)
        if not training:
            return x
        single = x.ndim == 3
        batch = array_ops.expand_dims(x, axis=0) if single else x
        out = self.transform_images(batch, self.get_random_transformation(batch))
        return out[0] if single else out

    def get_config(self):
        return {**super().get_config(), "value_range": list(self.value_range), "seed": self.seed,
                "data_format": self.data_format}


class Solarization(_ColorAugmentation):
    """Adds a random amount to the images and inverts the values above a random threshold.

    Per image, on values moved to ``[0, 255]``: ``a ~ U(addition_factor[0], 255 * addition_factor[1])``, ``t ~
    U(threshold_factor[0], 255 * threshold_factor[1])`` (Keras' bounds, the lower one not scaled), ``y =
    clip(x + a, 0, 255)``, ``y if y < t else 255 - y``, moved back to ``value_range``.

    Args:
        addition_factor: a number ``f`` in ``[0, 1]`` (the range ``(0, f)``) or a pair in ``[0, 1]``.
        threshold_factor: the same for the threshold.
        value_range: ``(low, high)`` of the images' values (default ``(0, 255)``).
        seed: seeds descend's draws.
    """

    def __init__(self, addition_factor=0.0, threshold_factor=0.0, value_range=(0, 255), seed=None, **kwargs):
        self.addition_factor = self._factor(addition_factor, "addition_factor")
        self.threshold_factor = self._factor(threshold_factor, "threshold_factor")
        super().__init__(value_range=value_range, seed=seed, **kwargs)

    @staticmethod
    def _factor(factor, what):
        msg = (f"Solarization: `{what}` must be a number or a list of two numbers in [0, 1]. Received: "
               f"{what}={factor!r}")
        if isinstance(factor, (tuple, list)):
            if len(factor) != 2 or not all(_number(f) and 0 <= f <= 1 for f in factor):
                raise ValueError(msg)
            return tuple(sorted(factor))
        if not _number(factor) or not 0 <= factor <= 1:
            raise ValueError(msg)
        return 0, factor

    def _draw(self, n):
        return {"additions": self._uniform((n, 1, 1, 1), self.addition_factor[0], self.addition_factor[1] * 255),
                "thresholds": self._uniform((n, 1, 1, 1), self.threshold_factor[0], self.threshold_factor[1] * 255)}

    def _apply(self, x, t):
        dt = x.dtype.dtype
        y = math_ops.add(_rescale(x, self.value_range, (0, 255)), math_ops.cast(t["additions"], dtype=dt))
        y = math_ops.clip_by_value(y, np.asarray(0, dt), np.asarray(255, dt))
        y = math_ops.where(math_ops.less(y, math_ops.cast(t["thresholds"], dtype=dt)), y,
                           math_ops.subtract(np.asarray(255, dt), y))
        return _rescale(y, (0, 255), self.value_range)

    def get_config(self):
        config = super().get_config()
        config.pop("data_format")
        return {**config, "addition_factor": list(self.addition_factor),
                "threshold_factor": list(self.threshold_factor)}


class RandomPosterization(_ColorAugmentation):
    """Keeps a random number of the top bits of each 8-bit value (the images moved to ``[0, 255]`` and truncated
    to integers first).

    Per image ``bits ~`` an integer in ``[factor[0], factor[1])`` (``factor[0]`` when both are equal), ``y = (x >>
    (8 - bits)) << (8 - bits)``, moved back to ``value_range``.

    Args:
        factor: an int ``f`` in ``[1, 8]`` (the range ``(1, f)``) or a pair in ``[1, 8]``.
        value_range, data_format, seed: as the other colour layers.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        self.factor = _keras_factor(factor, (1, 8), "RandomPosterization")
        super().__init__(value_range=value_range, data_format=data_format, seed=seed, **kwargs)

    def _draw(self, n):
        lo, hi = self.factor
        if lo != hi:
            bits = draw(fn=lambda: self._rng.integers(int(lo), int(hi), size=n).astype(np.uint8))
        else:
            bits = Tensor(np.full((n,), lo, np.uint8))
        return {"shift_factor": math_ops.subtract(np.asarray(8, np.uint8), bits)}

    def _apply(self, x, t):
        dt = x.dtype.dtype
        shift = math_ops.cast(array_ops.reshape(t["shift_factor"], shape=(-1, 1, 1, 1)), dtype=dt)
        step = math_ops.pow(np.asarray(2, dt), shift)
        ints = math_ops.cast(math_ops.cast(_rescale(x, self.value_range, (0, 255)), dtype="uint8"), dtype=dt)
        # (v >> s) << s on the 8-bit values: floor(v / 2^s) * 2^s
        y = math_ops.multiply(math_ops.floor(math_ops.divide(ints, step)), step)
        return _rescale(y, (0, 255), self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor)}


class RandomColorDegeneration(_ColorAugmentation):
    """Blends each image towards its grayscale version by a random amount.

    Per image ``f ~ U(factor)``, ``y = clip(x + f * (gray(x) - x), value_range)`` with ``gray`` the luma
    ``0.2989 R + 0.5870 G + 0.1140 B``.

    Args:
        factor: a number ``f`` in ``[-1, 1]`` (the range ``(-|f|, |f|)``) or a pair (Keras' rule).
        value_range, data_format, seed: as the other colour layers.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        self.factor = _keras_factor(factor, (-1, 1), "RandomColorDegeneration")
        super().__init__(value_range=value_range, data_format=data_format, seed=seed, **kwargs)

    def _draw(self, n):
        return {"factor": self._uniform((n, 1, 1, 1), *self.factor)}

    def _apply(self, x, t):
        dt = x.dtype.dtype
        gray = image.rgb_to_grayscale(x)
        f = math_ops.cast(t["factor"], dtype=dt)
        y = math_ops.add(x, math_ops.multiply(f, math_ops.subtract(gray, x)))
        return math_ops.clip_by_value(y, np.asarray(self.value_range[0], dt), np.asarray(self.value_range[1], dt))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor)}


class RandomSaturation(_ColorAugmentation):
    """Scales each image's saturation by a random amount.

    Per image ``f ~ U(factor)``, ``k = f / (1 - f + 1e-7)``; in HSV, ``s <- clip(s * k, value_range)``; back to
    RGB (as Keras, the images go to HSV as they are: values in ``[0, 1]`` are expected there).

    Args:
        factor: a number ``f`` in ``[-1, 1]`` (the range ``(-|f|, |f|)``) or a pair (Keras' rule); ``0.5`` keeps
            the saturation, 0 removes it, 1 saturates fully.
        value_range, data_format, seed: as the other colour layers.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        self.factor = _keras_factor(factor, (-1, 1), "RandomSaturation")
        super().__init__(value_range=value_range, data_format=data_format, seed=seed, **kwargs)

    def _draw(self, n):
        f = self._uniform((n,), *self.factor)
        return {"factor": math_ops.divide(f, math_ops.add(math_ops.subtract(np.asarray(1, f.dtype.dtype), f),
                                                          np.asarray(_EPSILON, f.dtype.dtype)))}

    def _apply(self, x, t):
        dt = x.dtype.dtype
        k = array_ops.reshape(math_ops.cast(t["factor"], dtype=dt), shape=(-1, 1, 1))
        hsv = image.rgb_to_hsv(x)
        s = math_ops.clip_by_value(math_ops.multiply(hsv[..., 1], k), np.asarray(self.value_range[0], dt),
                                   np.asarray(self.value_range[1], dt))
        return image.hsv_to_rgb(array_ops.stack([hsv[..., 0], s, hsv[..., 2]], axis=-1))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor)}


class RandomHue(_ColorAugmentation):
    """Shifts each image's hue by a random amount.

    Per image ``f ~ U(factor)`` and a sign ``-1`` with probability 1/2: ``h <- h + sign * f / 2`` wrapped into
    ``[0, 1]``, on values moved to ``[0, 1]``; back to RGB, clipped to ``[0, 1]``, moved back to ``value_range``.

    Args:
        factor: a number ``f`` in ``[0, 1]`` (the range ``(0, f)``) or a pair in ``[0, 1]``.
        value_range, data_format, seed: as the other colour layers.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        self.factor = _keras_factor(factor, (0, 1), "RandomHue")
        super().__init__(value_range=value_range, data_format=data_format, seed=seed, **kwargs)

    def _draw(self, n):
        invert = self._uniform((n,), 0.0, 1.0)
        sign = math_ops.where(math_ops.greater(invert, np.asarray(0.5, invert.dtype.dtype)),
                              np.asarray(-1, invert.dtype.dtype), np.asarray(1, invert.dtype.dtype))
        f = self._uniform((n,), *self.factor)
        return {"factor": math_ops.multiply(math_ops.multiply(sign, f), np.asarray(0.5, f.dtype.dtype))}

    def _apply(self, x, t):
        dt = x.dtype.dtype
        one, zero = np.asarray(1, dt), np.asarray(0, dt)
        unit = _rescale(x, self.value_range, (0, 1))
        shift = array_ops.reshape(math_ops.cast(t["factor"], dtype=dt), shape=(-1, 1, 1))
        hsv = image.rgb_to_hsv(unit)
        h = math_ops.add(hsv[..., 0], shift)
        h = math_ops.where(math_ops.greater(h, one), math_ops.subtract(h, one), h)
        h = math_ops.where(math_ops.less(h, zero), math_ops.add(h, one), h)
        rgb = math_ops.clip_by_value(image.hsv_to_rgb(array_ops.stack([h, hsv[..., 1], hsv[..., 2]], axis=-1)),
                                     zero, one)
        return _rescale(rgb, (0, 1), self.value_range)

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor)}


class RandomSharpness(_ColorAugmentation):
    """Sharpens or blurs each image by a random amount.

    Per image ``f ~ U(factor)``; with ``smooth`` the image filtered by the 3x3 kernel ``[[1, 1, 1], [1, 5, 1], [1,
    1, 1]] / 13`` per channel (zero padding, "same"), ``y = clip(x + (1 - 2 f) * (smooth - x), value_range)``:
    ``f = 0.5`` keeps the image, 0 blurs, 1 sharpens.

    Args:
        factor: a number ``f`` in ``[0, 1]`` (the range ``(0, f)``) or a pair in ``[0, 1]``.
        value_range, data_format, seed: as the other colour layers.
    """

    def __init__(self, factor, value_range=(0, 255), data_format=None, seed=None, **kwargs):
        self.factor = _keras_factor(factor, (0, 1), "RandomSharpness")
        super().__init__(value_range=value_range, data_format=data_format, seed=seed, **kwargs)

    def _draw(self, n):
        return {"factor": self._uniform((n,), *self.factor)}

    def _apply(self, x, t):
        dt = x.dtype.dtype
        sharp = array_ops.reshape(math_ops.multiply(math_ops.cast(t["factor"], dtype=dt), np.asarray(2, dt)),
                                  shape=(-1, 1, 1, 1))
        a, b = 1.0 / 13.0, 5.0 / 13.0
        kernel = np.tile(np.asarray([[a, a, a], [a, b, a], [a, a, a]], dt).reshape(3, 3, 1, 1), (1, 1, x.shape[-1], 1))
        smooth = depthwise_conv2d(x, Tensor(kernel), strides=(1, 1, 1, 1), padding="SAME")
        y = math_ops.add(x, math_ops.multiply(math_ops.subtract(np.asarray(1, dt), sharp),
                                              math_ops.subtract(smooth, x)))
        return math_ops.clip_by_value(y, np.asarray(self.value_range[0], dt), np.asarray(self.value_range[1], dt))

    def get_config(self):
        return {**super().get_config(), "factor": list(self.factor)}
