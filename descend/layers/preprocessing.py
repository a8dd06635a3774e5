"""Keras' preprocessing and augmentation layers (``keras.layers.Rescaling``, ``Normalization``,
``Resizing``, ``CenterCrop``, ``RandomFlip``, ``RandomRotation``, ``RandomZoom``, ``RandomTranslation``,
``RandomCrop``, ``RandomContrast``, ``RandomBrightness``, ``Discretization``, ``CategoryEncoding``).

As in Keras 3, the random layers augment when called directly or in training (``call(..., training=True)``
is their default, so ``Dataset.map(layer)`` augments) and are the identity at inference (``predict``,
``evaluate``, ``training=False``). Each owns a NumPy generator seeded with ``seed`` (a new layer with the
same seed draws the same sequence; the draws are not Keras', whose generator differs). Every draw goes
through ``ops.random_draw``, so a step compiled by ``descend.function`` (``fit``'s default) draws anew on each
call instead of freezing its first draw. Flips, contrast and brightness stay differentiable in the images;
rotation, zoom, translation and random crops are one recorded draw each (no gradient to the images, as they
are applied to data). Images are ``channels_last``: ``[h, w, c]`` or ``[b, h, w, c]``.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from .. import backend, image
from ..framework.tensor import Tensor, convert_to_tensor, to_array
from ..image.transform import affine_transform_array
from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops
from ..ops.random_draw import draw
from ._layout import channels_last_kernel, channels_last_shape
from ._seeded import check_seed, start_rng
from .base import Layer
from .index_lookup import IndexLookup

__all__ = ["Rescaling", "Normalization", "Resizing", "CenterCrop", "RandomFlip", "RandomRotation", "RandomZoom",
           "RandomTranslation", "RandomCrop", "RandomContrast", "RandomBrightness", "Discretization",
           "CategoryEncoding", "IntegerLookup"]

_EPSILON = 1e-7  # keras.backend.epsilon()


def _check_data_format(data_format, cls):
    """``data_format`` checked, or ``keras.config.image_data_format()`` for None (these layers compute channels
    last: ``channels_last_kernel`` moves channels-first images there and back)."""
    return resolve_data_format(data_format, cls)


def _image_rank(x: Tensor, cls: str):
    if x.ndim not in (3, 4):
        raise ValueError(f"{cls}: expected images of rank 3 ([h, w, c]) or 4 ([b, h, w, c]); received shape {x.shape}")


def _positive_int(v, what, cls):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0:
        raise ValueError(f"{cls}: `{what}` must be a positive int; received {what}={v!r}")
    return int(v)


class _Random(Layer):
    """A layer drawing from its own generator (``seed``), the identity when ``training`` is False."""

    def __init__(self, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.seed = check_seed(seed, type(self).__name__)
        self._generator = None  # made at the first draw: a layer only built or called in inference draws nothing
        self._build_at_init()

    @property
    def _rng(self) -> np.random.Generator:
        """The layer's generator, made when the layer first draws; unseeded, its seed comes from Python's random
        (as Keras' SeedGenerator: keras.utils.set_random_seed reproduces it; NumPy's generator is left alone)."""
        if self._generator is None:
            object.__setattr__(self, "_generator", start_rng(self.seed))
        return self._generator

    def _images(self, inputs) -> Tensor:
        x = convert_to_tensor(inputs)
        _image_rank(x, type(self).__name__)
        return math_ops.cast(x, dtype=self.compute_dtype) if x.dtype != self.compute_dtype else x

    @staticmethod
    def _batch(x: Tensor) -> int:
        return x.shape[0] if x.ndim == 4 else 1

    def call(self, inputs, training=True):
        """Keras' image preprocessing step: draw a transformation for the batch and apply it (the images
        unchanged when not ``training``). Layers that define ``get_random_transformation`` and
        ``transform_images`` use it as is."""
        x = self._images(inputs)
        if not training:
            return x
        return self.transform_images(x, self.get_random_transformation(x))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)


def _factor_pair(factor, lo_bound, hi_bound, what, cls, *, symmetric=True):
    """Keras' ``factor``: a number ``f`` means ``(-f, f)`` (or ``(f, f)`` when not symmetric), a pair its
    sorted bounds; both within ``[lo_bound, hi_bound]``."""
    msg = (f"{cls}: `{what}` must be a number or a pair of numbers in [{lo_bound}, {hi_bound}]; "
           f"received {what}={factor!r}")
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2 or not all(isinstance(f, (int, float, np.number)) and not isinstance(f, bool)
                                       for f in factor):
            raise ValueError(msg)
        lo, hi = sorted(float(f) for f in factor)
    elif isinstance(factor, (int, float, np.number)) and not isinstance(factor, bool):
        if not lo_bound <= float(factor) <= hi_bound:
            raise ValueError(msg)
        f = abs(float(factor))
        lo, hi = (max(-f, lo_bound), f) if symmetric else (f, f)
    else:
        raise ValueError(msg)
    if lo < lo_bound or hi > hi_bound:
        raise ValueError(msg)
    return lo, hi


# ---------------------------------------------------------------- deterministic image layers
class Rescaling(Layer):
    """``inputs * scale + offset`` in the layer's dtype (e.g. ``Rescaling(1 / 255)`` maps bytes to [0, 1]).

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.layers.Rescaling(1 / 127.5, offset=-1)(np.array([0, 255], np.uint8)).numpy()
        array([-1.,  1.], dtype=float32)
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale = scale
        self.offset = offset
        self._build_at_init()

    def call(self, inputs):
        d = self.compute_dtype
        x = math_ops.cast(convert_to_tensor(inputs), dtype=d)
        return math_ops.add(math_ops.multiply(x, np.asarray(self.scale, d)), np.asarray(self.offset, d))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        def plain(v):
            return np.asarray(v).tolist() if isinstance(v, (np.ndarray, list, tuple)) else v
        return {**super().get_config(), "scale": plain(self.scale), "offset": plain(self.offset)}


class Normalization(Layer):
    """``(x - mean) / sqrt(variance)`` per position of ``axis`` (the inverse with ``invert=True``).

    ``mean``/``variance`` are given, or computed by :meth:`adapt` from an array, a Tensor, a batched
    ``Dataset`` or an iterable of batches, as Keras computes them (batches combined by their counts).

    Example:
        >>> import descend as ds, numpy as np
        >>> norm = ds.layers.Normalization()
        >>> norm.adapt(np.array([[0.0, 10.0], [2.0, 30.0]]))
        >>> norm(np.array([[1.0, 20.0]])).numpy()
        array([[0., 0.]], dtype=float32)
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if axis is None:
            axis = ()
        elif isinstance(axis, (int, np.integer)):
            axis = (int(axis),)
        else:
            axis = tuple(int(a) for a in axis)
        self.axis = axis
        self.input_mean = mean
        self.input_variance = variance
        self.invert = bool(invert)
        self.supports_masking = True
        self._build_input_shape = None
        self.mean = None
        self.variance = None
        if (mean is None) != (variance is None):
            raise ValueError("Normalization: when setting values directly, both `mean` and `variance` must be set. "
                             f"Received: mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError(f"Normalization: `mean` and `variance` must have the same shape; received "
                                 f"{np.shape(mean)} and {np.shape(variance)}")
            if len(np.shape(mean)) > len(self.axis):
                raise ValueError(f"Normalization: the rank of `mean` must be <= the number of axes "
                                 f"({len(self.axis)}); received mean shape {np.shape(mean)} for axis {self.axis}")

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        ndim = len(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError(f"Normalization: all `axis` values must be in [-ndim, ndim); received inputs with "
                             f"ndim={ndim}, axis={self.axis}")
        keep = tuple(sorted(a % ndim for a in self.axis))
        for d in keep:
            if input_shape[d] is None:
                raise ValueError(f"Normalization: the kept axes must have a known size; received axis={self.axis}, "
                                 f"input shape {input_shape}")
        self._build_input_shape = input_shape
        self._keep_axis = keep
        self._reduce_axis = tuple(d for d in range(ndim) if d not in keep)
        self._broadcast_shape = tuple(input_shape[d] if d in keep else 1 for d in range(ndim))
        self._stat_shape = tuple(input_shape[d] for d in keep)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=self._stat_shape, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=self._stat_shape, initializer="ones",
                                                  trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64", initializer="zeros", trainable=False)
            self.built = True
            self.finalize_state()
        else:
            mean = np.asarray(self.input_mean, np.float64)
            var = np.asarray(self.input_variance, np.float64)
            if mean.ndim:
                expanded = [1] * ndim
                for i in range(1, mean.ndim + 1):
                    expanded[keep[-i]] = mean.shape[-i]
                mean, var = mean.reshape(expanded), var.reshape(expanded)
            d = self.compute_dtype
            self.mean = convert_to_tensor(np.broadcast_to(mean, self._broadcast_shape).astype(d))
            self.variance = convert_to_tensor(np.broadcast_to(var, self._broadcast_shape).astype(d))
            self.built = True

    def finalize_state(self):
        """Read the adapted weights into ``mean`` and ``variance`` (broadcast to the input's rank). ``call``
        reads the weights themselves, so values restored from a checkpoint or file take effect at once."""
        if self.input_mean is not None or not self.built:
            return
        self.mean, self.variance = self._adapted()

    def _adapted(self):
        d = self.compute_dtype
        mean = math_ops.cast(array_ops.reshape(self.adapt_mean.value(), shape=self._broadcast_shape), dtype=d)
        var = math_ops.cast(array_ops.reshape(self.adapt_variance.value(), shape=self._broadcast_shape), dtype=d)
        return mean, var

    def adapt(self, data):
        """Set the mean and variance from ``data`` (see the class docs). Leaves the layer as it was on error."""
        from ..data import Dataset  # the data pipeline sits beside the layers; imported on use

        if isinstance(data, (np.ndarray, Tensor)):
            arr = np.asarray(to_array(data) if isinstance(data, Tensor) else data)
            batches, shape = None, arr.shape
        else:
            if isinstance(data, Dataset):
                first = next(iter(data), None)
                if first is not None and np.ndim(_first_part(first)) == 1:
                    data = data.batch(128)
            elif not hasattr(data, "__iter__"):
                raise TypeError(f"Normalization.adapt: unsupported data type {type(data).__name__}; expected a NumPy "
                                "array, a Tensor, a Dataset or an iterable of batches")
            batches = [np.asarray(_as_array(_first_part(b))) for b in data]
            if not batches:
                raise ValueError("Normalization.adapt: received no batches; expected at least one")
            shape = batches[0].shape
        if self.input_mean is not None:
            raise ValueError("Normalization.adapt: the layer was given `mean` and `variance`; it cannot be adapted")
        if not self.built:
            self.build(shape)
        else:
            for d in self._keep_axis:
                if len(shape) != len(self._build_input_shape) or shape[d] != self._build_input_shape[d]:
                    raise ValueError(f"Normalization.adapt: the layer was built with input_shape="
                                     f"{self._build_input_shape}, but the data has shape {shape}")
        if batches is None:
            mean, var = np.mean(arr, axis=self._reduce_axis), np.var(arr, axis=self._reduce_axis)
            count = int(np.prod([arr.shape[d] for d in self._reduce_axis])) if self._reduce_axis else 1
        else:
            d = self.compute_dtype
            mean = np.zeros(self._stat_shape, d)
            var = np.zeros(self._stat_shape, d)
            count = 0
            for b in batches:
                b = b.astype(d)
                if b.ndim != len(self._build_input_shape) or any(
                        b.shape[k] != self._build_input_shape[k] for k in self._keep_axis):
                    raise ValueError(f"Normalization.adapt: a batch of shape {b.shape} does not fit the layer's "
                                     f"input shape {self._build_input_shape}")
                b_mean, b_var = np.mean(b, axis=self._reduce_axis), np.var(b, axis=self._reduce_axis)
                b_count = math.prod(b.shape[k] for k in self._reduce_axis) if self._reduce_axis else 1
                count += b_count
                w_new = float(b_count) / count
                w_old = 1.0 - w_new
                # the combined mean, and the variance about it from both parts' own variances
                new_mean = mean * w_old + b_mean * w_new
                var = (var + (mean - new_mean) ** 2) * w_old + (b_var + (b_mean - new_mean) ** 2) * w_new
                mean = new_mean
        self.adapt_mean.assign(np.asarray(mean, self.adapt_mean.dtype).reshape(self._stat_shape))
        self.adapt_variance.assign(np.asarray(var, self.adapt_variance.dtype).reshape(self._stat_shape))
        # `count` stays as it is: Keras 3 keeps it (0) for its saved files and never sets it in adapt
        self.finalize_state()

    def call(self, inputs):
        if self.mean is None:
            raise ValueError("Normalization: build the layer (call it or adapt it) before using it")
        mean, variance = (self.mean, self.variance) if self.input_mean is not None else self._adapted()
        x = math_ops.cast(convert_to_tensor(inputs), dtype=self.compute_dtype)
        scale = math_ops.maximum(math_ops.sqrt(variance), np.asarray(_EPSILON, self.compute_dtype))
        if self.invert:
            return math_ops.add(mean, math_ops.multiply(x, scale))
        return math_ops.divide(math_ops.subtract(x, mean), scale)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self):
        def plain(v):
            return None if v is None else np.asarray(v).tolist()
        return {**super().get_config(), "axis": self.axis, "invert": self.invert,
                "mean": plain(self.input_mean), "variance": plain(self.input_variance)}


def _first_part(element):
    """The features of a Dataset element (the first part of an ``(x, y)`` tuple)."""
    return element[0] if isinstance(element, tuple) else element


def _as_array(v):
    return to_array(v) if isinstance(v, Tensor) else v


def _aspect_crop(h: int, w: int, th: int, tw: int):
    """Keras' largest centred window of ``h x w`` with the aspect ratio ``th : tw``: (top, left, height, width)."""
    ch = max(min(h, int(float(w * th) / tw)), 1)
    cw = max(min(w, int(float(h * tw) / th)), 1)
    return int(float(h - ch) / 2), int(float(w - cw) / 2), ch, cw


class Resizing(Layer):
    """Resize images to ``height x width`` (``ds.image.resize``), optionally cropping or padding to the target
    aspect ratio first. Integer images come back rounded to their dtype.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.layers.Resizing(2, 3)(np.zeros((4, 4, 6, 3), np.float32)).shape
        TensorShape([4, 2, 3, 3])
    """

    _INTERPOLATIONS = ("bilinear", "nearest", "lanczos3", "lanczos5", "bicubic", "area")

    def __init__(self, height, width, interpolation="bilinear", crop_to_aspect_ratio=False, pad_to_aspect_ratio=False,
                 fill_mode="constant", fill_value=0.0, antialias=False, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height = _positive_int(height, "height", "Resizing")
        self.width = _positive_int(width, "width", "Resizing")
        if interpolation not in self._INTERPOLATIONS:
            raise ValueError(f"Resizing: `interpolation` must be one of {list(self._INTERPOLATIONS)}; received "
                             f"interpolation={interpolation!r}")
        if crop_to_aspect_ratio and pad_to_aspect_ratio:
            raise ValueError("Resizing: only one of `crop_to_aspect_ratio` and `pad_to_aspect_ratio` can be True")
        if fill_mode != "constant":
            raise ValueError(f"Resizing: `fill_mode` must be 'constant'; received fill_mode={fill_mode!r}")
        self.interpolation = interpolation
        self.crop_to_aspect_ratio = bool(crop_to_aspect_ratio)
        self.pad_to_aspect_ratio = bool(pad_to_aspect_ratio)
        self.fill_mode = fill_mode
        self.fill_value = fill_value
        self.antialias = bool(antialias)
        self.data_format = _check_data_format(data_format, "Resizing")
        self._build_at_init()

    @channels_last_kernel
    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _image_rank(x, "Resizing")
        h, w = x.shape[-3], x.shape[-2]
        if self.crop_to_aspect_ratio:
            top, left, ch, cw = _aspect_crop(h, w, self.height, self.width)
            x = x[..., top:top + ch, left:left + cw, :]
        elif self.pad_to_aspect_ratio:
            x = self._pad_to_aspect(x, h, w)
        out = image.resize(x, (self.height, self.width), method=self.interpolation, antialias=self.antialias)
        if out.dtype == x.dtype:
            return out
        if x.dtype.kind in "iu":
            info = np.iinfo(x.dtype)
            out = math_ops.clip_by_value(math_ops.round(out), np.asarray(info.min, out.dtype),
                                         np.asarray(info.max, out.dtype))
        return math_ops.cast(out, dtype=x.dtype)

    def _pad_to_aspect(self, x, h, w):
        # Keras' padding: the same number of rows (columns) on both sides, half the missing ones rounded down
        f = np.float32
        ph = max(int(f(w * self.height) / f(self.width)), h)
        pw = max(int(f(h * self.width) / f(self.height)), w)
        top, left = int(f(ph - h) / 2), int(f(pw - w) / 2)
        paddings = [[0, 0]] * (x.ndim - 3) + [[top, top], [left, left], [0, 0]]
        return array_ops.pad(x, paddings=paddings, constant_values=np.asarray(self.fill_value, x.dtype))

    @channels_last_shape
    def compute_output_shape(self, input_shape):
        s = list(input_shape)
        s[-3], s[-2] = self.height, self.width
        return tuple(s)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width,
                "interpolation": self.interpolation, "crop_to_aspect_ratio": self.crop_to_aspect_ratio,
                "pad_to_aspect_ratio": self.pad_to_aspect_ratio, "fill_mode": self.fill_mode,
                "fill_value": self.fill_value, "antialias": self.antialias, "data_format": self.data_format}


class CenterCrop(Layer):
    """The central ``height x width`` window; an input smaller than that is cropped to the target aspect ratio
    and resized (Keras' ``smart_resize``).

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.layers.CenterCrop(2, 2)(np.arange(16.0).reshape(4, 4, 1))[..., 0].numpy()
        array([[ 5.,  6.],
               [ 9., 10.]], dtype=float32)
    """

    def __init__(self, height, width, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.height = _positive_int(height, "height", "CenterCrop")
        self.width = _positive_int(width, "width", "CenterCrop")
        self.data_format = _check_data_format(data_format, "CenterCrop")
        self._build_at_init()

    @channels_last_kernel
    def call(self, inputs):
        x = convert_to_tensor(inputs)
        _image_rank(x, "CenterCrop")
        x = math_ops.cast(x, dtype=self.compute_dtype) if x.dtype != self.compute_dtype else x
        h, w = x.shape[-3], x.shape[-2]
        dh, dw = h - self.height, w - self.width
        if dh >= 0 and dw >= 0:
            return x[..., dh // 2:dh // 2 + self.height, dw // 2:dw // 2 + self.width, :]
        top, left, ch, cw = _aspect_crop(h, w, self.height, self.width)
        return image.resize(x[..., top:top + ch, left:left + cw, :], (self.height, self.width))

    @channels_last_shape
    def compute_output_shape(self, input_shape):
        s = list(input_shape)
        s[-3], s[-2] = self.height, self.width
        return tuple(s)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width, "data_format": self.data_format}


# ---------------------------------------------------------------- augmentation
class RandomFlip(_Random):
    """Flip each image with probability 1/2: ``mode`` is ``"horizontal"``, ``"vertical"`` or
    ``"horizontal_and_vertical"`` (one draw flips both axes).

    Example:
        >>> import descend as ds, numpy as np
        >>> flip = ds.layers.RandomFlip("horizontal", seed=0)
        >>> x = np.arange(4.0).reshape(1, 2, 2, 1)
        >>> bool((flip(x, training=False).numpy() == x).all())
        True
    """

    _MODES = ("horizontal", "vertical", "horizontal_and_vertical")

    def __init__(self, mode="horizontal_and_vertical", seed=None, data_format=None, **kwargs):
        if mode not in self._MODES:
            raise ValueError(f"RandomFlip: `mode` must be one of {list(self._MODES)}; received mode={mode!r}")
        self.mode = mode
        self.data_format = _check_data_format(data_format, "RandomFlip")
        super().__init__(seed=seed, **kwargs)

    @channels_last_kernel
    def call(self, inputs, training=True):
        x = self._images(inputs)
        if not training:
            return x
        n = self._batch(x)
        flips = draw(fn=lambda: self._rng.uniform(size=n) <= 0.5)
        flipped = x
        if self.mode in ("horizontal", "horizontal_and_vertical"):
            flipped = image.flip_left_right(flipped)
        if self.mode in ("vertical", "horizontal_and_vertical"):
            flipped = image.flip_up_down(flipped)
        mask = array_ops.reshape(flips, shape=(-1, 1, 1, 1) if x.ndim == 4 else (1, 1, 1))
        return math_ops.where(mask, flipped, x)

    def get_config(self):
        return {**super().get_config(), "data_format": self.data_format, "seed": self.seed, "mode": self.mode}


_FILL_MODES = ("reflect", "wrap", "constant", "nearest")


class _Affine(_Random):
    """The shared machinery of the rotation, zoom and translation layers: a per-image projective transform."""

    def _check_modes(self, fill_mode, interpolation, fill_value, data_format):
        cls = type(self).__name__
        if fill_mode not in _FILL_MODES:
            raise NotImplementedError(f"{cls}: unknown `fill_mode` {fill_mode!r}; expected one of {list(_FILL_MODES)}")
        if interpolation not in ("nearest", "bilinear"):
            raise NotImplementedError(f"{cls}: unknown `interpolation` {interpolation!r}; expected 'nearest' or "
                                      "'bilinear'")
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value
        self.data_format = _check_data_format(data_format, cls)

    @channels_last_kernel
    def call(self, inputs, training=True):
        x = self._images(inputs)
        if not training:
            return x
        return self._apply(x, functools.partial(self._transforms, self._batch(x)))

    def _transforms(self, n: int, height: int, width: int) -> np.ndarray:
        """The ``[n, 8]`` transforms of ``n`` images of ``height x width``, drawn: each layer's own."""
        raise NotImplementedError

    def _apply(self, x, make_transforms):
        """``x`` transformed by ``make_transforms(height, width)`` (``[n, 8]``), drawn on every call."""
        h, w = x.shape[-3], x.shape[-2]

        def augment(arr):
            batch = arr if arr.ndim == 4 else arr[None]
            out = affine_transform_array(batch, make_transforms(h, w).astype(np.float32), self.interpolation,
                                         self.fill_mode, self.fill_value)
            return out if arr.ndim == 4 else out[0]
        return draw(x, fn=augment)

    def _modes_config(self):
        return {"fill_mode": self.fill_mode, "interpolation": self.interpolation, "fill_value": self.fill_value,
                "seed": self.seed, "data_format": self.data_format}


def rotation_transforms(angles_deg: np.ndarray, height: int, width: int) -> np.ndarray:
    """Keras' transforms ``[n, 8]`` rotating by ``angles_deg`` about the image centre (float32 arithmetic)."""
    f = np.float32
    angle = angles_deg.astype(f) * f(math.pi / 180.0)
    cx, cy = f(0.5) * (f(width) - 1), f(0.5) * (f(height) - 1)
    cos, sin = np.cos(angle), np.sin(angle)
    a0, a1 = cos, -sin
    b0, b1 = sin, cos
    a2 = cx - cx * a0 - cy * a1
    b2 = cy - cx * b0 - cy * b1
    zeros = np.zeros_like(angle)
    return np.stack([a0, a1, a2, b0, b1, b2, zeros, zeros], axis=1).astype(f)


class RandomRotation(_Affine):
    """Rotate each image by an angle drawn from ``factor`` (fractions of a full turn: ``0.1`` means
    ``[-36, 36]`` degrees), counter-clockwise for positive angles, filling by ``fill_mode``.

    Example:
        >>> import descend as ds, numpy as np
        >>> rot = ds.layers.RandomRotation((0.25, 0.25), fill_mode="constant")  # always a quarter turn
        >>> rot(np.arange(4.0).reshape(2, 2, 1))[..., 0].numpy().round(4)
        array([[1., 3.],
               [0., 2.]], dtype=float32)
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None, fill_value=0.0,
                 value_range=(0, 255), data_format=None, **kwargs):
        self.factor = _factor_pair(factor, -1.0, 1.0, "factor", "RandomRotation")
        self.value_range = value_range
        self._check_modes(fill_mode, interpolation, fill_value, data_format)
        super().__init__(seed=seed, **kwargs)

    def _transforms(self, n, h, w):
        return rotation_transforms(self._rng.uniform(self.factor[0] * 360.0, self.factor[1] * 360.0, size=n), h, w)

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, **self._modes_config()}


def _zoom_translate_pair(factor, what, cls):
    msg = f"{cls}: `{what}` must be a number or a pair of numbers in (-1, 1]; received {what}={factor!r}"
    if isinstance(factor, (tuple, list)):
        if len(factor) != 2:
            raise ValueError(msg)
        vals = [float(f) for f in factor]
        lo, hi = sorted(vals)
    elif isinstance(factor, (int, float, np.number)) and not isinstance(factor, bool):
        vals = [float(factor)]
        lo, hi = -abs(float(factor)), abs(float(factor))
    else:
        raise ValueError(msg)
    if any(v > 1.0 or v <= -1.0 for v in vals):
        raise ValueError(msg)
    return lo, hi


class _HeightWidthFactors(_Affine):
    """RandomZoom and RandomTranslation: a height and a width factor, each a number or a pair in (-1, 1], with
    the affine layers' fill and interpolation modes."""

    _width_optional = False

    def __init__(self, height_factor, width_factor, fill_mode, interpolation, seed, fill_value, data_format,
                 **kwargs):
        owner = type(self).__name__
        self.height_factor = height_factor
        self.height_lower, self.height_upper = _zoom_translate_pair(height_factor, "height_factor", owner)
        self.width_factor = width_factor
        if width_factor is not None or not self._width_optional:
            self.width_lower, self.width_upper = _zoom_translate_pair(width_factor, "width_factor", owner)
        self._check_modes(fill_mode, interpolation, fill_value, data_format)
        super().__init__(seed=seed, **kwargs)

    def get_config(self):
        return {**super().get_config(), "height_factor": self.height_factor, "width_factor": self.width_factor,
                **self._modes_config()}


class RandomZoom(_HeightWidthFactors):
    """Zoom each image by a factor drawn from ``height_factor`` (and ``width_factor``, else the same draw):
    a factor ``f`` scales the sampling grid by ``1 + f``, so negative values zoom in.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.layers.RandomZoom(0.2, seed=1)(np.zeros((2, 8, 8, 3))).shape
        TensorShape([2, 8, 8, 3])
    """

    _width_optional = True  # without it, the height's draw serves both axes

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(height_factor, width_factor, fill_mode, interpolation, seed, fill_value, data_format,
                         **kwargs)

    def _transforms(self, n, h, w):
        zh = self._rng.uniform(1.0 + self.height_lower, 1.0 + self.height_upper, size=n).astype(np.float32)
        zw = (self._rng.uniform(1.0 + self.width_lower, 1.0 + self.width_upper, size=n).astype(np.float32)
              if self.width_factor is not None else zh)
        f = np.float32
        x_off = ((f(w) - f(1)) / f(2)) * (f(1) - zw)
        y_off = ((f(h) - f(1)) / f(2)) * (f(1) - zh)
        zeros = np.zeros(n, f)
        return np.stack([zw, zeros, x_off, zeros, zh, y_off, zeros, zeros], axis=1)


class RandomTranslation(_HeightWidthFactors):
    """Shift each image by fractions of its height and width drawn from ``height_factor`` and ``width_factor``
    (positive: down and right), filling by ``fill_mode``.

    Example:
        >>> import descend as ds, numpy as np
        >>> move = ds.layers.RandomTranslation((0.5, 0.5), (0.0, 0.0), fill_mode="constant")
        >>> move(np.array([[[1.0]], [[2.0]]]))[..., 0].numpy()
        array([[0.],
               [1.]], dtype=float32)
    """

    def __init__(self, height_factor, width_factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(height_factor, width_factor, fill_mode, interpolation, seed, fill_value, data_format,
                         **kwargs)

    def _transforms(self, n, h, w):
        dy = (self._rng.uniform(self.height_lower, self.height_upper, size=n) * h).astype(np.float32)
        dx = (self._rng.uniform(self.width_lower, self.width_upper, size=n) * w).astype(np.float32)
        ones, zeros = np.ones(n, np.float32), np.zeros(n, np.float32)
        return np.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)


class RandomCrop(_Random):
    """In training, a ``height x width`` window at a random offset (the same for the whole batch, as Keras);
    an input not larger than the target on both axes is cropped to the target aspect ratio and resized. At
    inference the input passes unchanged (Keras 3's behaviour).

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.layers.RandomCrop(3, 4, seed=0)(np.zeros((2, 6, 8, 3))).shape
        TensorShape([2, 3, 4, 3])
    """

    def __init__(self, height, width, seed=None, data_format=None, **kwargs):
        self.height = _positive_int(height, "height", "RandomCrop")
        self.width = _positive_int(width, "width", "RandomCrop")
        self.data_format = _check_data_format(data_format, "RandomCrop")
        super().__init__(seed=seed, **kwargs)

    @channels_last_kernel
    def call(self, inputs, training=True):
        x = self._images(inputs)
        if not training:
            return x
        h, w = x.shape[-3], x.shape[-2]
        if h > self.height and w > self.width:
            th, tw = self.height, self.width

            def crop(arr):
                top = int(self._rng.uniform(0, h - th + 1))
                left = int(self._rng.uniform(0, w - tw + 1))
                return arr[..., top:top + th, left:left + tw, :]
            return draw(x, fn=crop)
        top, left, ch, cw = _aspect_crop(h, w, self.height, self.width)
        crop = x[..., top:top + self.height, left:left + self.width, :]
        if crop.shape[-3] == self.height and crop.shape[-2] == self.width:
            return crop
        return math_ops.cast(image.resize(crop, (self.height, self.width)), dtype=self.compute_dtype)

    @channels_last_shape
    def compute_output_shape(self, input_shape):
        s = list(input_shape)
        s[-3], s[-2] = self.height, self.width
        return tuple(s)

    def get_config(self):
        return {**super().get_config(), "height": self.height, "width": self.width, "seed": self.seed,
                "data_format": self.data_format}


def _value_range(value_range, cls):
    if not isinstance(value_range, (tuple, list)) or len(value_range) != 2:
        raise ValueError(f"{cls}: `value_range` must be a list or tuple of two numbers; received "
                         f"value_range={value_range!r}")
    return sorted(float(v) for v in value_range)


class _FactorInRange(_Random):
    """RandomContrast and RandomBrightness: a ``factor`` within ``_factor_bounds`` (low, high, symmetric) and
    the ``value_range`` the result is clipped to; ``_adjust(x, shape)`` draws a value per image (``shape``)."""

    _factor_bounds = (0.0, 1.0, False)

    def __init__(self, factor, value_range=(0, 255), seed=None, data_format=None, **kwargs):
        owner = type(self).__name__
        low, high, symmetric = self._factor_bounds
        self.factor = _factor_pair(factor, low, high, "factor", owner, symmetric=symmetric)
        self.data_format = _check_data_format(data_format, owner)
        self.value_range = _value_range(value_range, owner)
        super().__init__(seed=seed, **kwargs)

    @channels_last_kernel
    def call(self, inputs, training=True):
        x = self._images(inputs)
        if not training:
            return x
        return self._adjust(x, (self._batch(x), 1, 1, 1) if x.ndim == 4 else (1, 1, 1))

    def _adjust(self, x, shape):
        raise NotImplementedError

    def get_config(self):
        return {**super().get_config(), "factor": self.factor, "value_range": self.value_range, "seed": self.seed,
                "data_format": self.data_format}


class RandomContrast(_FactorInRange):
    """Scale each image's deviation from its per-channel mean by a factor drawn from
    ``[1 - lower, 1 + upper]`` (``factor`` ``f`` means ``lower = upper = f``), clipped to ``value_range``.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.layers.RandomContrast(0.0)(np.array([[[0.0], [255.0]]])).numpy()[..., 0]
        array([[  0., 255.]], dtype=float32)
    """

    _factor_bounds = (0.0, 1.0, False)

    def _adjust(self, x, shape):
        lo_f, hi_f, d = 1.0 - self.factor[0], 1.0 + self.factor[1], x.dtype
        factor = draw(fn=lambda: self._rng.uniform(lo_f, hi_f, size=shape).astype(d))
        mean = math_ops.reduce_mean(math_ops.reduce_mean(x, axis=-3, keepdims=True), axis=-2, keepdims=True)
        out = math_ops.add(math_ops.multiply(math_ops.subtract(x, mean), factor), mean)
        lo, hi = self.value_range
        return math_ops.clip_by_value(out, np.asarray(lo, x.dtype), np.asarray(hi, x.dtype))


class RandomBrightness(_FactorInRange):
    """Add to each image a delta drawn from ``factor`` (a fraction of ``value_range``'s width, in [-1, 1]),
    clipped to ``value_range``.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.layers.RandomBrightness((0.1, 0.1))(np.array([[[100.0]]])).numpy()
        array([[[125.5]]], dtype=float32)
    """

    _factor_bounds = (-1.0, 1.0, True)

    def _adjust(self, x, shape):
        lo, hi = self.value_range
        f0, f1, d = self.factor[0], self.factor[1], x.dtype
        delta = draw(fn=lambda: (self._rng.uniform(f0, f1, size=shape).astype(np.float32)
                                 * np.float32(hi - lo)).astype(d))
        return math_ops.clip_by_value(math_ops.add(x, delta), np.asarray(lo, x.dtype), np.asarray(hi, x.dtype))


# ---------------------------------------------------------------- categorical
_OUTPUT_MODES = ("int", "one_hot", "multi_hot", "count")  # Discretization's


def _encode(indices: np.ndarray, mode: str, depth: int, dtype, count_weights=None) -> Tensor:
    """Keras' ``encode_categorical_inputs`` on integer ``indices`` in ``[0, depth)``."""
    if mode == "int":
        return convert_to_tensor(indices.astype(dtype))
    if indices.ndim == 0:
        indices = indices[None]
    if mode == "one_hot":
        if indices.ndim > 1 and indices.shape[-1] == 1:
            indices = indices[..., 0]
        return convert_to_tensor(np.eye(depth, dtype=dtype)[indices])
    out = np.zeros(indices.shape[:-1] + (depth,), dtype)
    lead = tuple(np.indices(indices.shape)[:-1])
    if mode == "multi_hot":
        out[lead + (indices,)] = 1
    else:
        w = np.ones(indices.shape) if count_weights is None else np.broadcast_to(count_weights, indices.shape)
        np.add.at(out, lead + (indices,), w.astype(dtype))
    return convert_to_tensor(out)


class CategoryEncoding(Layer):
    """One-hot, multi-hot or count encoding of integer inputs in ``[0, num_tokens)``.

    Example:
        >>> import descend as ds
        >>> ds.layers.CategoryEncoding(4, output_mode="one_hot")([3, 0]).numpy()
        array([[0., 0., 0., 1.],
               [1., 0., 0., 0.]], dtype=float32)
    """

    _autocast = False  # the inputs are read as they are (values, not the layer's dtype)

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        super().__init__(**kwargs)
        if output_mode == "int":
            output_mode = "multi_hot"  # Keras' backwards-compatible alias
        if output_mode not in ("one_hot", "multi_hot", "count"):
            raise ValueError(f"CategoryEncoding: `output_mode` must be 'one_hot', 'multi_hot' or 'count'; received "
                             f"output_mode={output_mode!r}")
        if num_tokens is None:
            raise ValueError("CategoryEncoding: `num_tokens` must be set")
        if isinstance(num_tokens, bool) or not isinstance(num_tokens, (int, np.integer)) or num_tokens < 1:
            raise ValueError(f"CategoryEncoding: `num_tokens` must be >= 1; received num_tokens={num_tokens!r}")
        if sparse:
            raise ValueError("CategoryEncoding: sparse outputs are not supported by descend")
        self.num_tokens = int(num_tokens)
        self.output_mode = output_mode
        self.sparse = False
        self._build_at_init()

    def call(self, inputs, count_weights=None):
        if count_weights is not None and self.output_mode != "count":
            raise ValueError("`count_weights` is not used when `output_mode` is not 'count'. "
                             f"Received `count_weights={count_weights}`.")
        arr = np.asarray(_as_array(convert_to_tensor(inputs)))
        if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and np.all(arr == np.floor(arr))):
            raise ValueError(f"CategoryEncoding: inputs must be integers; received dtype {arr.dtype}")
        if arr.ndim > 2:
            raise ValueError(f"CategoryEncoding: inputs must have rank 1 or 2; received shape {arr.shape}")
        arr = arr.astype(np.int64)
        if arr.size and (arr.min() < 0 or arr.max() >= self.num_tokens):
            raise ValueError(f"CategoryEncoding: input values must be in the range 0 <= values < num_tokens with "
                             f"num_tokens={self.num_tokens}; received min {arr.min()}, max {arr.max()}")
        cw = None if count_weights is None else np.asarray(_as_array(convert_to_tensor(count_weights)))
        return _encode(arr, self.output_mode, self.num_tokens, self.compute_dtype, cw)

    def compute_output_shape(self, input_shape):
        s = tuple(input_shape)
        if not s:
            return (self.num_tokens,)
        if self.output_mode == "one_hot" and s[-1] != 1:
            return s + (self.num_tokens,)
        return s[:-1] + (self.num_tokens,)

    def get_config(self):
        return {**super().get_config(), "num_tokens": self.num_tokens, "output_mode": self.output_mode}


def _summarize(values: np.ndarray, epsilon: float) -> np.ndarray:
    """A ``[2, n]`` (values, weights) summary of sorted ``values`` at about ``1 / epsilon`` points."""
    values = np.sort(values.reshape(-1))
    step = max(values.size / (1.0 / epsilon), 1)
    picked = values[int(step - 1)::int(step)]
    return np.stack([picked, np.full_like(picked, step)])


def _compress(summary: np.ndarray, epsilon: float) -> np.ndarray:
    """Re-bin a summary at the quantiles ``epsilon, 2 epsilon, ...`` by interpolating its cumulative weights."""
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum = summary[1].cumsum()
    frac = cum / cum[-1]
    bins = np.interp(percents, frac, summary[0])
    cum_at = np.interp(percents, frac, cum)
    return np.stack((bins, cum_at - np.concatenate(([0.0], cum_at[:-1])))).astype("float32")


class Discretization(Layer):
    """Bucket values by ``bin_boundaries`` (``x < b[0]`` is bucket 0; ``b[i-1] <= x < b[i]`` bucket i), or by
    ``num_bins`` quantile boundaries learned with :meth:`adapt` (Keras' approximate quantiles, ``epsilon``).

    Example:
        >>> import descend as ds
        >>> ds.layers.Discretization(bin_boundaries=[0.0, 1.0])([[-0.5, 0.0, 0.5, 2.0]]).numpy()
        array([[0, 1, 1, 2]], dtype=int32)
    """

    _autocast = False  # the inputs are read as they are (values, not the layer's dtype)

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int", sparse=False,
                 dtype=None, name=None, **kwargs):
        super().__init__(dtype=dtype, name=name, **kwargs)
        if sparse:
            raise ValueError("Discretization: sparse outputs are not supported by descend")
        if output_mode not in _OUTPUT_MODES:
            raise ValueError(f"Discretization: `output_mode` must be one of {list(_OUTPUT_MODES)}; received "
                             f"output_mode={output_mode!r}")
        if num_bins is not None and num_bins < 0:
            raise ValueError(f"Discretization: `num_bins` must be >= 0; received num_bins={num_bins}")
        if num_bins is not None and bin_boundaries is not None:
            if len(bin_boundaries) != num_bins - 1:
                raise ValueError("Discretization: both `num_bins` and `bin_boundaries` should not be set; received "
                                 f"num_bins={num_bins} and bin_boundaries={bin_boundaries}")
        self.bin_boundaries = None if bin_boundaries is None else list(bin_boundaries)
        self.num_bins = num_bins
        self.epsilon = float(epsilon)
        self.output_mode = output_mode
        self.sparse = False
        self.summary = np.array([[], []], dtype="float32")
        self._build_at_init()

    @property
    def input_dtype(self):
        return "float32"

    def adapt(self, data, steps=None):
        """Learn ``num_bins - 1`` quantile boundaries from an array, Tensor, batched Dataset or iterable."""
        from ..data import Dataset

        if self.num_bins is None:
            raise ValueError("Discretization: cannot adapt a layer made with `bin_boundaries`; use `num_bins`")
        summary = np.array([[], []], dtype="float32")
        if isinstance(data, (Dataset, list, tuple)) or (hasattr(data, "__iter__")
                                                       and not isinstance(data, (np.ndarray, Tensor))):
            batches = [_first_part(b) for i, b in enumerate(data) if steps is None or i < steps]
        else:
            batches = [data]
        for b in batches:
            part = _summarize(np.asarray(_as_array(b)).astype("float32"), self.epsilon)
            merged = np.concatenate((part, summary), axis=1)
            summary = _compress(np.take(merged, np.argsort(merged[0], kind="stable"), axis=1), self.epsilon)
        self.summary = summary
        self.bin_boundaries = _compress(summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("Discretization: pass `bin_boundaries` or call `adapt()` before using the layer")
        x = np.asarray(_as_array(convert_to_tensor(inputs)))
        idx = np.digitize(x, np.asarray(self.bin_boundaries, x.dtype if x.dtype.kind == "f" else np.float64))
        out_dtype = backend.np_dtype(self.compute_dtype if self.output_mode != "int" else "int32")
        return _encode(idx, self.output_mode, len(self.bin_boundaries) + 1, out_dtype)

    def compute_output_shape(self, input_shape):
        if self.output_mode == "int":
            return tuple(input_shape)
        depth = len(self.bin_boundaries) + 1 if self.bin_boundaries is not None else self.num_bins
        return tuple(input_shape)[:-1] + (depth,) if self.output_mode != "one_hot" else tuple(input_shape) + (depth,)

    def get_config(self):
        return {**super().get_config(), "bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins,
                "epsilon": self.epsilon, "output_mode": self.output_mode, "sparse": self.sparse}

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        if config.get("bin_boundaries") is not None and config.get("num_bins") is not None:
            boundaries = config.pop("bin_boundaries")
            layer = cls(**config)
            layer.bin_boundaries = list(boundaries)
            return layer
        return cls(**config)


class IntegerLookup(IndexLookup):
    """Map integer tokens to contiguous indices through a vocabulary (``keras.layers.IntegerLookup``).

    A thin :class:`~descend.layers.index_lookup.IndexLookup` (the table, ``adapt``, ``invert``, the output
    modes ``"int"``, ``"one_hot"``, ``"multi_hot"``, ``"count"``, ``"tf_idf"`` and the config are there) whose
    tokens are ints: the OOV token is ``-1`` and, with ``num_oov_indices > 1``, an unknown token ``t`` goes to
    OOV index ``floormod(t, num_oov_indices)``, as Keras.

    Example:
        >>> import descend as ds
        >>> lookup = ds.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
        >>> lookup([[12, 1138, 42], [42, 1000, 36]]).numpy()
        array([[1, 3, 4],
               [4, 0, 2]])
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1, vocabulary=None,
                 vocabulary_dtype="int64", idf_weights=None, invert=False, output_mode="int", sparse=False,
                 pad_to_max_tokens=False, name=None, **kwargs):
        kwargs.pop("dtype", None)
        if vocabulary_dtype not in ("int64", "int32"):
            raise ValueError(f"IntegerLookup: `vocabulary_dtype` must be 'int64' or 'int32'; received "
                             f"vocabulary_dtype={vocabulary_dtype!r}")
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary, idf_weights, invert,
                         output_mode, pad_to_max_tokens, sparse, name=name, **kwargs)
        self.vocabulary_dtype = vocabulary_dtype

    def _token(self, value, what):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"IntegerLookup: {what} must be an int; received {type(value).__name__} {value!r}")
        return int(value)

    def _keys(self, inputs) -> np.ndarray:
        x = np.asarray(_as_array(convert_to_tensor(inputs)))
        if x.dtype.kind not in "iu":
            raise ValueError(f"IntegerLookup: inputs must be integers; received dtype {x.dtype}")
        return x.astype(np.int64)

    def _hash(self, keys, n):
        return np.mod(np.asarray(keys, np.int64), n)

    def _tokens_out(self, keys):
        return convert_to_tensor(keys.astype(self.vocabulary_dtype))

    def get_config(self):
        return {**super().get_config(), "vocabulary_dtype": self.vocabulary_dtype}
