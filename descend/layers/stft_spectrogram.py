"""``STFTSpectrogram`` (as Keras 3's): a short-time Fourier transform of each channel of a signal as a
convolution with (optionally trainable) Fourier kernels.

``real_kernel`` / ``imag_kernel`` ``(frame_length, 1, fft_length // 2 + 1)`` start at the ``STFT`` initializer's
values; each channel is convolved with them (stride ``frame_step``, ``padding``), giving the real and imaginary
parts ``re``, ``im`` per frame and frequency. ``mode``: ``"real"``, ``"imag"``, ``"stft"`` (both, frequencies
concatenated), ``"angle"`` (``atan2(im, re)``), ``"psd"`` (``p = re^2 + im^2`` with the inner frequencies counted
twice), ``"magnitude"`` (``sqrt(max(p, 1e-7))``) or ``"log"`` (the default: ``log(max(magnitude, 1e-7))``).
Inputs ``(batch, time, channels)`` give ``(batch, frames, channels * freqs)`` (``expand_dims``: ``(batch, frames,
freqs, channels)``); with ``data_format="channels_first"`` inputs ``(batch, channels, time)`` give ``(batch,
channels * freqs, frames)`` (``(batch, channels, frames, freqs)``). Differentiable, as a convolution.

Example:
    >>> import descend as ds, numpy as np
    >>> layer = ds.layers.STFTSpectrogram(mode="magnitude", frame_length=8, frame_step=4, window=None, scaling=None)
    >>> out = layer(np.cos(2 * np.pi * np.arange(32) / 8).reshape(1, 32, 1).astype(np.float32))
    >>> out.shape, int(out.numpy()[0, 0].argmax())   # 7 frames, 5 frequencies: the signal's is bin 1
    (TensorShape([1, 7, 5]), 1)
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from .. import initializers
from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops
from ..ops.conv_ops import conv1d, conv_output_size
from ..ops.elementwise_ops import atan2
from .base import Layer

__all__ = ["STFTSpectrogram"]

_MODES = ("log", "magnitude", "psd", "real", "imag", "angle", "stft")
_EPSILON = 1e-7  # Keras' backend.epsilon()


def _positive(value, what):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"STFTSpectrogram: `{what}` must be a positive int. Received: {what}={value!r}")
    return int(value)


class STFTSpectrogram(Layer):
    """A spectrogram layer (``keras.layers.STFTSpectrogram``).

    Args:
        mode: see the module docstring (default ``"log"``).
        frame_length: the window length in samples (default 256).
        frame_step: the hop between frames (default ``frame_length // 2``; at most ``frame_length``).
        fft_length: the FFT size (default the next power of two of ``frame_length``; at least ``frame_length``).
        window, periodic, scaling: the ``STFT`` initializer's (default ``"hann"``, False, ``"density"``).
        padding: ``"valid"`` (default) or ``"same"``.
        expand_dims: keep frequencies and channels on separate axes (default False).
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.
    """

    def __init__(self, mode="log", frame_length=256, frame_step=None, fft_length=None, window="hann", periodic=False,
                 scaling="density", padding="valid", expand_dims=False, data_format=None, **kwargs):
        frame_length = _positive(frame_length, "frame_length")
        if frame_step is not None and (_positive(frame_step, "frame_step") > frame_length):
            raise ValueError(f"STFTSpectrogram: `frame_step` should be a positive integer not greater than "
                             f"`frame_length`. Received frame_step={frame_step}, frame_length={frame_length}")
        if fft_length is not None and _positive(fft_length, "fft_length") < frame_length:
            raise ValueError(f"STFTSpectrogram: `fft_length` should be not less than `frame_length`. Received "
                             f"fft_length={fft_length}, frame_length={frame_length}")
        if fft_length is not None and (fft_length & -fft_length) != fft_length:
            warnings.warn(f"`fft_length` is recommended to be a power of two. Received fft_length={fft_length}",
                          stacklevel=2)
        if mode not in _MODES:
            raise ValueError(f"STFTSpectrogram: `mode` must be one of {', '.join(_MODES)}. Received: mode={mode!r}")
        if padding not in ("valid", "same"):
            raise ValueError(f"STFTSpectrogram: `padding` must be 'valid' or 'same'. Received: padding={padding!r}")
        if data_format not in (None, "channels_last", "channels_first"):
            raise ValueError(f"STFTSpectrogram: `data_format` must be 'channels_last' or 'channels_first'. Received: "
                             f"data_format={data_format!r}")
        initializers.STFT("real", window, scaling, periodic)  # checks window and scaling
        super().__init__(**kwargs)
        self.mode, self.frame_length, self.frame_step, self.fft_length = mode, frame_length, frame_step, fft_length
        self._frame_step = frame_step or frame_length // 2
        self._fft_length = fft_length or 2 ** int(math.ceil(math.log2(frame_length)))
        self.window = list(window) if isinstance(window, (tuple, list, np.ndarray)) else window
        self.periodic, self.scaling, self.padding = bool(periodic), scaling, padding
        self.expand_dims = bool(expand_dims)
        self.data_format = resolve_data_format(data_format)  # None: image_data_format(), as Keras
        self.real_kernel = self.imag_kernel = None

    def build(self, input_shape):
        if len(tuple(input_shape)) != 3:
            raise ValueError(f"STFTSpectrogram expects inputs of rank 3 (batch, time, channels). Received shape "
                             f"{tuple(input_shape)}")
        shape = (self.frame_length, 1, self._fft_length // 2 + 1)
        if self.mode != "imag":
            self.real_kernel = self.add_weight(name="real_kernel", shape=shape, initializer=initializers.STFT(
                "real", self.window, self.scaling, self.periodic))
        if self.mode != "real":
            self.imag_kernel = self.add_weight(name="imag_kernel", shape=shape, initializer=initializers.STFT(
                "imag", self.window, self.scaling, self.periodic))

    def _conv(self, x, kernel):
        """``(batch, channels, freqs, frames)``: each channel convolved with ``kernel``."""
        if self.data_format == "channels_last":
            x = array_ops.transpose(x, perm=(0, 2, 1))
        b, c, t = x.shape
        y = conv1d(array_ops.reshape(x, shape=(b * c, t, 1)), math_ops.cast(kernel, dtype=x.dtype),
                   stride=self._frame_step, padding=self.padding.upper())  # (b c, frames, freqs)
        y = array_ops.transpose(y, perm=(0, 2, 1))
        return array_ops.reshape(y, shape=(b, c, y.shape[1], y.shape[2]))

    def _arrange(self, y):
        b, c, f, t = y.shape
        if self.data_format == "channels_last":
            if self.expand_dims:
                return array_ops.transpose(y, perm=(0, 3, 2, 1))
            return array_ops.transpose(array_ops.reshape(y, shape=(b, c * f, t)), perm=(0, 2, 1))
        if self.expand_dims:
            return array_ops.transpose(y, perm=(0, 1, 3, 2))
        return array_ops.reshape(y, shape=(b, c * f, t))

    def call(self, inputs):
        x = inputs
        if x.dtype.kind != "f":
            raise TypeError(f"STFTSpectrogram: expected float16, float32 or float64 inputs. Received dtype "
                            f"{x.dtype.name}")
        if x.ndim != 3:
            raise ValueError(f"STFTSpectrogram expects inputs of rank 3. Received shape {tuple(x.shape)}")
        re = self._conv(x, self.real_kernel) if self.mode != "imag" else None
        im = self._conv(x, self.imag_kernel) if self.mode != "real" else None
        if self.mode == "real":
            return self._arrange(re)
        if self.mode == "imag":
            return self._arrange(im)
        if self.mode == "angle":
            return self._arrange(atan2(im, re))
        if self.mode == "stft":
            return self._arrange(array_ops.concat([re, im], axis=2))
        power = math_ops.add(math_ops.square(re), math_ops.square(im))
        if self.mode == "psd":
            inner = array_ops.pad(power[:, :, 1:-1, :], paddings=[[0, 0], [0, 0], [1, 1], [0, 0]])
            return self._arrange(math_ops.add(power, inner))
        eps = np.asarray(_EPSILON, x.dtype.dtype)
        magnitude = self._arrange(math_ops.sqrt(math_ops.maximum(power, eps)))
        if self.mode == "magnitude":
            return magnitude
        return math_ops.log(math_ops.maximum(magnitude, eps))

    def compute_output_shape(self, input_shape):
        b, a1, a2 = tuple(input_shape)
        channels, time = (a2, a1) if self.data_format == "channels_last" else (a1, a2)
        freqs = (self._fft_length // 2 + 1) * (2 if self.mode == "stft" else 1)
        frames = None if time is None else conv_output_size(time, self.frame_length, self._frame_step,
                                                           self.padding, 1)[0]
        if self.data_format == "channels_last":
            return (b, frames, freqs, channels) if self.expand_dims else (
                b, frames, None if channels is None else channels * freqs)
        return (b, channels, frames, freqs) if self.expand_dims else (
            b, None if channels is None else channels * freqs, frames)

    def get_config(self):
        return {**super().get_config(), "mode": self.mode, "frame_length": self.frame_length,
                "frame_step": self.frame_step, "fft_length": self.fft_length, "window": self.window,
                "periodic": self.periodic, "scaling": self.scaling, "padding": self.padding,
                "expand_dims": self.expand_dims, "data_format": self.data_format}
