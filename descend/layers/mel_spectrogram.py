"""``MelSpectrogram`` (as Keras 3's): the mel-scaled power spectrogram of audio, optionally in decibels.

For each signal (``(time,)`` or ``(batch, time)``): reflect-padded by ``fft_length // 2`` at both ends (centred
frames), framed by ``fft_length`` with hop ``sequence_stride``, each frame multiplied by a periodic ``"hann"`` or
``"hamming"`` window of ``sequence_length`` samples (zero-padded to ``fft_length``, centred) or none, Fourier
transformed; ``|X| ** mag_exp``; times the HTK mel filter bank (``mel(f) = 1127 ln(1 + f / 700)``, triangles of
peak 1 between ``min_freq`` and ``max_freq``, the DC bin excluded, as Keras); with ``power_to_db``,
``10 log10(max(S, min_power)) - 10 log10(max(|ref_power|, min_power))`` floored at the batch's maximum minus
``top_db``. The output is ``(batch, num_mel_bins, frames)``. A preprocessing layer: computed in NumPy, not
differentiable.

Example:
    >>> import descend as ds, numpy as np
    >>> layer = ds.layers.MelSpectrogram(fft_length=64, sequence_stride=32, num_mel_bins=8, sampling_rate=8000)
    >>> layer(np.sin(np.arange(256) * 0.3).astype(np.float32)[None]).shape
    TensorShape([1, 8, 9])
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from .base import Layer

__all__ = ["MelSpectrogram"]

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _number(value) -> bool:
    return isinstance(value, (int, float, np.number)) and not isinstance(value, bool)


def _hertz_to_mel(f):
    return _MEL_HIGH_FREQUENCY_Q * np.log(1.0 + f / _MEL_BREAK_FREQUENCY_HERTZ)


def linear_to_mel_weight_matrix(num_mel_bins, num_spectrogram_bins, sampling_rate, lower_edge_hertz,
                                upper_edge_hertz, dtype=np.float32) -> np.ndarray:
    """``(num_spectrogram_bins, num_mel_bins)`` triangular filters on the HTK mel scale (Keras' and
    ``tf.signal``'s rule; the first, DC, bin has no weight)."""
    d = np.dtype(dtype).type
    nyquist = d(sampling_rate) / d(2.0)
    linear = np.linspace(d(0), nyquist, num_spectrogram_bins, dtype=dtype)[1:]
    bins_mel = _hertz_to_mel(linear).astype(dtype)[:, None]
    edges = np.linspace(_hertz_to_mel(d(lower_edge_hertz)), _hertz_to_mel(d(upper_edge_hertz)), num_mel_bins + 2,
                        dtype=dtype)
    lower, center, upper = edges[:-2][None], edges[1:-1][None], edges[2:][None]
    lower_slopes = (bins_mel - lower) / (center - lower)
    upper_slopes = (upper - bins_mel) / (upper - center)
    weights = np.maximum(d(0), np.minimum(lower_slopes, upper_slopes)).astype(dtype)
    return np.pad(weights, [[1, 0], [0, 0]])


def _window(name, length: int, dtype) -> np.ndarray:
    n = np.arange(length, dtype=np.float64)
    if name == "hann":
        w = 0.5 - 0.5 * np.cos(2.0 * np.pi * n / length)  # periodic, as tf.signal.hann_window(periodic=True)
    elif name == "hamming":
        w = 0.54 - 0.46 * np.cos(2.0 * np.pi * n / length)
    else:
        w = np.asarray(name, np.float64)
        if w.shape != (length,):
            raise ValueError(f"MelSpectrogram: the window must have sequence_length={length} values. Received shape "
                             f"{w.shape}")
    return w.astype(dtype)


class MelSpectrogram(Layer):
    """Mel spectrograms of audio signals (``keras.layers.MelSpectrogram``).

    Args:
        fft_length: the FFT size (default 2048).
        sequence_stride: the hop between frames (default 512).
        sequence_length: the window length (default ``fft_length``; at most ``fft_length``).
        window: ``"hann"`` (default), ``"hamming"``, an array of ``sequence_length`` values, or None.
        sampling_rate: samples per second (default 16000).
        num_mel_bins: the number of mel bands (default 128).
        min_freq, max_freq: the filter bank's edges in Hz (default 20 and ``sampling_rate / 2``).
        power_to_db: convert to decibels (default True); top_db, mag_exp, min_power, ref_power: as Keras.
    """

    def __init__(self, fft_length=2048, sequence_stride=512, sequence_length=None, window="hann", sampling_rate=16000,
                 num_mel_bins=128, min_freq=20.0, max_freq=None, power_to_db=True, top_db=80.0, mag_exp=2.0,
                 min_power=1e-10, ref_power=1.0, **kwargs):
        for what, value in (("fft_length", fft_length), ("sequence_stride", sequence_stride),
                            ("num_mel_bins", num_mel_bins)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"MelSpectrogram: `{what}` must be a positive int. Received: {what}={value!r}")
        sequence_length = fft_length if sequence_length is None else sequence_length
        if isinstance(sequence_length, bool) or not isinstance(sequence_length, (int, np.integer)) or \
                not 1 <= sequence_length <= fft_length:
            raise ValueError(f"MelSpectrogram: `fft_length` must be greater than or equal to `sequence_length`. "
                             f"Received: sequence_length={sequence_length}, fft_length={fft_length}")
        if isinstance(window, str) and window not in ("hann", "hamming"):
            raise ValueError(f"MelSpectrogram: a window name must be 'hann' or 'hamming'. Received: window={window!r}")
        for what, value in (("sampling_rate", sampling_rate), ("min_freq", min_freq), ("top_db", top_db),
                            ("mag_exp", mag_exp), ("min_power", min_power), ("ref_power", ref_power)):
            if not _number(value):
                raise ValueError(f"MelSpectrogram: `{what}` must be a number. Received: {what}={value!r}")
        max_freq = max_freq if max_freq is not None else int(sampling_rate / 2)
        if not _number(max_freq) or not 0 <= min_freq < max_freq:
            raise ValueError(f"MelSpectrogram: expected 0 <= min_freq < max_freq. Received: min_freq={min_freq}, "
                             f"max_freq={max_freq}")
        super().__init__(**kwargs)
        self.fft_length, self.sequence_stride, self.sequence_length = int(fft_length), int(sequence_stride), int(
            sequence_length)
        self.window = list(window) if isinstance(window, (tuple, list, np.ndarray)) else window
        self.sampling_rate, self.num_mel_bins, self.min_freq, self.max_freq = sampling_rate, int(num_mel_bins), \
            min_freq, max_freq
        self.power_to_db, self.top_db, self.mag_exp = bool(power_to_db), top_db, mag_exp
        self.min_power, self.ref_power = min_power, ref_power
        self._build_at_init()

    def call(self, inputs):
        x = np.asarray(inputs.numpy())
        dtype = self.compute_dtype.dtype.type if self.compute_dtype.dtype in (np.float32, np.float64) else np.float32
        x = x.astype(dtype)
        if x.ndim not in (1, 2):
            raise ValueError(f"MelSpectrogram expects (time,) or (batch, time) signals. Received shape {x.shape}")
        n = self.fft_length
        half = n // 2
        if x.shape[-1] <= half:
            raise ValueError(f"MelSpectrogram: the signal must be longer than fft_length // 2 = {half} samples (for "
                             f"the reflect padding). Received length {x.shape[-1]}")
        padded = np.pad(x, [(0, 0)] * (x.ndim - 1) + [(half, half)], mode="reflect")
        frames_count = 1 + (padded.shape[-1] - n) // self.sequence_stride
        index = np.arange(n)[None, :] + self.sequence_stride * np.arange(frames_count)[:, None]
        frames = padded[..., index]  # (..., frames, n)
        if self.window is not None:
            win = _window(self.window, self.sequence_length, dtype)
            left = (n - self.sequence_length) // 2
            frames = frames * np.pad(win, (left, n - self.sequence_length - left))
        spectrum = np.fft.rfft(frames.astype(np.float64), n=n, axis=-1)
        spec = np.power(np.abs(spectrum).astype(dtype), dtype(self.mag_exp))
        matrix = linear_to_mel_weight_matrix(self.num_mel_bins, spec.shape[-1], self.sampling_rate, self.min_freq,
                                             self.max_freq, dtype)
        out = np.tensordot(spec, matrix, axes=1).astype(dtype)
        if self.power_to_db:
            log_spec = dtype(10.0) * np.log10(np.maximum(out, dtype(self.min_power)))
            log_spec = log_spec - dtype(10.0) * np.log10(np.maximum(dtype(abs(self.ref_power)), dtype(self.min_power)))
            out = np.maximum(log_spec, log_spec.max() - dtype(self.top_db)).astype(dtype)
        return Tensor(np.ascontiguousarray(np.swapaxes(out, -1, -2)).astype(self.compute_dtype.dtype))

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        frames = None if shape[-1] is None else (shape[-1] + self.sequence_stride + 1) // self.sequence_stride
        return (self.num_mel_bins, frames) if len(shape) == 1 else (shape[0], self.num_mel_bins, frames)

    def get_config(self):
        return {**super().get_config(), "fft_length": self.fft_length, "sequence_stride": self.sequence_stride,
                "sequence_length": self.sequence_length, "window": self.window, "sampling_rate": self.sampling_rate,
                "num_mel_bins": self.num_mel_bins, "min_freq": self.min_freq, "max_freq": self.max_freq,
                "power_to_db": self.power_to_db, "top_db": self.top_db, "mag_exp": self.mag_exp,
                "min_power": self.min_power, "ref_power": self.ref_power}
