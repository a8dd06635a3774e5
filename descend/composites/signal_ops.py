"""``tf.signal`` over real tensors: framing and overlap-add, windows, the mel filterbank, DCTs (types 1-4),
MFCCs and ``fftshift``. The transforms with complex results (``fft``, ``rfft``, ``stft``...) are not here:
descend's tensors are real (the exclusion list says so for TF's top-level ``fftnd`` family).

``frame``, ``overlap_and_add``, ``dct``/``idct``, ``mfccs_from_log_mel_spectrograms`` and ``fftshift`` are
written with descend's differentiable ops, so gradients flow through them. The DCTs are matrix products
(TF's use FFTs): values agree to float rounding.

Example:
    >>> import descend as ds
    >>> ds.signal.frame(ds.range(6), frame_length=3, frame_step=2).numpy()
    array([[0, 1, 2],
           [2, 3, 4]], dtype=int32)
    >>> ds.signal.overlap_and_add(ds.ones((2, 3)), frame_step=2).numpy()
    array([1., 1., 2., 1., 1.], dtype=float32)
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend
from .. import ops as _ops
from ..framework.tensor import Tensor, convert_to_tensor

__all__ = ["dct", "fftshift", "frame", "hamming_window", "hann_window", "idct", "ifftshift", "inverse_stft_window_fn",
           "kaiser_bessel_derived_window", "kaiser_window", "linear_to_mel_weight_matrix",
           "mfccs_from_log_mel_spectrograms", "overlap_and_add", "vorbis_window"]


def _positive(name, value, op, minimum=1):
    v = int(value)
    if v < minimum:
        raise ValueError(f"signal.{op}: {name} must be >= {minimum}. Received {value}")
    return v


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Overlapping frames of ``signal`` along ``axis``: that axis becomes ``[frames, frame_length]``, frame
    ``i`` starting at ``i * frame_step``; ``pad_end`` pads with ``pad_value`` so the last samples get a frame."""
    x = convert_to_tensor(signal)
    length = _positive("frame_length", frame_length, "frame")
    step = _positive("frame_step", frame_step, "frame")
    rank = len(x.shape)
    if rank == 0:
        raise ValueError("signal.frame: signal must have rank >= 1")
    ax = int(axis) % rank
    n = x.shape[ax]
    if pad_end:
        frames = -(-n // step)
        need = max(0, (frames - 1) * step + length - n)
        if need:
            paddings = [[0, 0]] * rank
            paddings[ax] = [0, need]
            x = _ops.pad(x, paddings, constant_values=pad_value)
    else:
        frames = max(0, 1 + (n - length) // step) if n >= length else 0
    index = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).astype(np.int64)
    if frames == 0:
        shape = list(x.shape[:ax]) + [0, length] + list(x.shape[ax + 1:])
        return _ops.zeros(shape, dtype=x.dtype)
    return _ops.gather(x, index, axis=ax)


def overlap_and_add(signal, frame_step, name=None):
    """The frames ``[..., frames, frame_length]`` summed back into ``[..., (frames - 1) * frame_step +
    frame_length]``, frame ``i`` added at ``i * frame_step``."""
    x = convert_to_tensor(signal)
    if len(x.shape) < 2:
        raise ValueError(f"signal.overlap_and_add: signal must have rank >= 2. Received shape {x.shape}")
    step = _positive("frame_step", frame_step, "overlap_and_add")
    *outer, frames, length = x.shape
    out_len = (frames - 1) * step + length if frames else 0
    seg = (np.arange(frames)[:, None] * step + np.arange(length)[None, :]).reshape(-1).astype(np.int64)
    rank = len(x.shape)
    moved = _ops.transpose(x, [rank - 2, rank - 1] + list(range(rank - 2)))  # [frames, length, ...outer]
    flat = _ops.reshape(moved, [frames * length] + list(outer))
    summed = _ops.unsorted_segment_sum(flat, seg, out_len)  # [out_len, ...outer]
    return _ops.transpose(summed, list(range(1, rank - 1)) + [0])


def _window(values: np.ndarray, dtype) -> Tensor:
    return Tensor(values.astype(backend.np_dtype(dtype)))


def _raised_cosine(n, periodic, a, b, dtype):
    d = backend.np_dtype(dtype)
    if d.kind != "f":
        raise ValueError(f"signal windows: dtype must be a floating dtype. Received {d.name}")
    n = _positive("window_length", n, "window", minimum=0)
    if n == 1:
        return _window(np.ones(1), d)
    denom = n - 1 + (1 if periodic and n % 2 == 0 else 0)  # TF: `periodic` lengthens even windows only
    k = np.arange(n, dtype=d)
    return _window(a - b * np.cos(d.type(2 * math.pi) * k / d.type(max(denom, 1))), d)


def hann_window(window_length, periodic=True, dtype="float32", name=None):
    """``0.5 - 0.5 cos(2 pi n / N)``: ``N`` the length - 1, or the length for an even ``periodic`` window
    (TF's rule: an odd length is symmetric either way)."""
    return _raised_cosine(window_length, bool(periodic), 0.5, 0.5, dtype)


def hamming_window(window_length, periodic=True, dtype="float32", name=None):
    """``0.54 - 0.46 cos(2 pi n / N)``, ``N`` as :func:`hann_window`'s."""
    return _raised_cosine(window_length, bool(periodic), 0.54, 0.46, dtype)


def kaiser_window(window_length, beta=12.0, dtype="float32", name=None):
    """The Kaiser window ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``."""
    n = _positive("window_length", window_length, "kaiser_window", minimum=0)
    if n == 1:
        return _window(np.ones(1), dtype)
    r = 2.0 * np.arange(n) / (n - 1) - 1.0
    return _window(np.i0(float(beta) * np.sqrt(np.clip(1.0 - r * r, 0.0, None))) / np.i0(float(beta)), dtype)


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype="float32", name=None):
    """The Kaiser-Bessel-derived window (for the MDCT): the square root of the running sums of a Kaiser
    window of half the length plus one, mirrored."""
    half = _positive("window_length", window_length, "kaiser_bessel_derived_window") // 2
    kaiser = np.asarray(kaiser_window(half + 1, beta, "float64").numpy())
    sums = np.cumsum(kaiser)
    rising = np.sqrt(sums[:-1] / sums[-1])
    return _window(np.concatenate([rising, rising[::-1]]), dtype)


def vorbis_window(window_length, dtype="float32", name=None):
    """The Vorbis power-complementary window ``sin(pi/2 sin^2(pi (n + 1/2) / N))``."""
    n = _positive("window_length", window_length, "vorbis_window")
    s = np.sin(np.pi * (np.arange(n) + 0.5) / n)
    return _window(np.sin(np.pi / 2 * s * s), dtype)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function ``(frame_length, dtype) -> window`` that undoes ``forward_window_fn``'s weighting
    when frames ``frame_step`` apart are overlap-added (the forward window divided by the overlapped sum of
    its squares)."""
    step = _positive("frame_step", frame_step, "inverse_stft_window_fn")

    def inverse_window(frame_length, dtype="float32"):
        forward = np.asarray(forward_window_fn(frame_length, dtype=dtype).numpy(), np.float64)
        overlaps = -(-int(frame_length) // step)
        squares = np.pad(forward ** 2, (0, overlaps * step - int(frame_length)))
        denom = np.tile(squares.reshape(overlaps, step).sum(axis=0), overlaps)[:int(frame_length)]
        return _window(forward / denom, dtype)

    return inverse_window


_MEL_BREAK, _MEL_HIGH_Q = 700.0, 1127.0


def _hertz_to_mel(f):
    return _MEL_HIGH_Q * np.log(1.0 + f / _MEL_BREAK)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000, lower_edge_hertz=125.0,
                                upper_edge_hertz=3800.0, dtype="float32", name=None):
    """``[num_spectrogram_bins, num_mel_bins]``: triangular mel filters (HTK's mel scale, ``1127 ln(1 + f/700)``)
    over the linear frequencies ``0..sample_rate/2``; the DC bin gets no weight, as TF."""
    mels = _positive("num_mel_bins", num_mel_bins, "linear_to_mel_weight_matrix")
    bins = _positive("num_spectrogram_bins", num_spectrogram_bins, "linear_to_mel_weight_matrix")
    rate = float(sample_rate)
    lower, upper = float(lower_edge_hertz), float(upper_edge_hertz)
    if rate <= 0 or lower < 0 or lower >= upper or upper > rate / 2:
        raise ValueError(f"signal.linear_to_mel_weight_matrix: need 0 <= lower_edge_hertz < upper_edge_hertz <= "
                         f"sample_rate / 2. Received {lower}, {upper}, sample_rate={rate}")
    d = backend.np_dtype(dtype)
    linear = np.linspace(0.0, rate / 2, bins, dtype=d)[1:]
    spectrogram_mel = _hertz_to_mel(linear.astype(d))[:, None]
    edges = np.linspace(_hertz_to_mel(d.type(lower)), _hertz_to_mel(d.type(upper)), mels + 2, dtype=d)
    low, center, high = edges[:-2], edges[1:-1], edges[2:]
    lower_slopes = (spectrogram_mel - low) / (center - low)
    upper_slopes = (high - spectrogram_mel) / (high - center)
    weights = np.maximum(0, np.minimum(lower_slopes, upper_slopes))
    return Tensor(np.concatenate([np.zeros((1, mels), d), weights.astype(d)], axis=0))


def _dct_matrix(n: int, kind: int, norm) -> np.ndarray:
    """``M`` with ``dct(x) = x @ M`` for vectors of length ``n`` (float64)."""
    k = np.arange(n)[None, :]
    i = np.arange(n)[:, None]
    if kind == 1:
        m = 2 * np.cos(np.pi * i * k / (n - 1))
        m[0, :] = 1.0
        m[-1, :] = (-1.0) ** np.arange(n)
        return m
    if kind == 2:
        m = 2 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))
        if norm == "ortho":
            m[:, 0] *= math.sqrt(1 / (4 * n))
            m[:, 1:] *= math.sqrt(1 / (2 * n))
        return m
    if kind == 3:
        m = 2 * np.cos(np.pi * i * (2 * k + 1) / (2 * n))
        m[0, :] = 1.0
        if norm == "ortho":
            m[0, :] *= math.sqrt(1 / n)
            m[1:, :] *= math.sqrt(1 / (2 * n))
        return m
    m = 2 * np.cos(np.pi * (2 * i + 1) * (2 * k + 1) / (4 * n))
    return m * math.sqrt(1 / (2 * n)) if norm == "ortho" else m


def _check_dct(x, kind, n, axis, norm, op):
    if kind not in (1, 2, 3, 4):
        raise ValueError(f"signal.{op}: type must be 1, 2, 3 or 4. Received {kind}")
    if norm not in (None, "ortho"):
        raise ValueError(f"signal.{op}: norm must be None or 'ortho'. Received {norm!r}")
    if kind == 1 and norm == "ortho":
        raise ValueError(f"signal.{op}: normalization is not supported for the type-I DCT")
    if axis != -1:
        raise NotImplementedError(f"signal.{op}: axis must be -1, as TF. Received {axis}")
    t = convert_to_tensor(x)
    if not t.dtype.is_floating:
        raise TypeError(f"signal.{op}: input must be float32 or float64. Received {t.dtype.name}")
    if n is not None:
        n = _positive("n", n, op)
        have = t.shape[-1]
        if n < have:
            t = t[..., :n]
        elif n > have:
            t = _ops.pad(t, [[0, 0]] * (len(t.shape) - 1) + [[0, n - have]])
    if kind == 1 and t.shape[-1] < 2:
        raise ValueError(f"signal.{op}: the type-I DCT needs at least 2 samples")
    return t


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002 - TF's names
    """The discrete cosine transform of types 1-4 along the last axis (scipy's and TF's definitions;
    ``norm="ortho"`` for the orthonormal types 2-4); ``n`` cuts or zero-pads the input first."""
    t = _check_dct(input, int(type), n, axis, norm, "dct")
    size = t.shape[-1]
    m = Tensor(_dct_matrix(size, int(type), norm).astype(t.dtype.name))
    return _ops.reshape(_ops.matmul(_ops.reshape(t, [-1, size]), m), list(t.shape))


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):  # noqa: A002
    """TF's (and scipy's) inverse DCT: the DCT of the inverse type (1 for 1, 3 for 2, 2 for 3, 4 for 4). With
    ``norm="ortho"`` it inverts :func:`dct`; without, ``idct(dct(x)) == 2 N x`` (``2 (N - 1) x`` for type 1)."""
    kind = int(type)
    inverse = {1: 1, 2: 3, 3: 2, 4: 4}.get(kind, kind)
    t = _check_dct(input, kind, n, axis, norm, "idct")
    return dct(t, type=inverse, norm=norm)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormal-scaled type-2 DCT of log-mel spectrograms ``[..., num_mel_bins]``."""
    t = convert_to_tensor(log_mel_spectrograms)
    bins = t.shape[-1]
    if not bins:
        raise ValueError("signal.mfccs_from_log_mel_spectrograms: num_mel_bins must be positive")
    return dct(t, type=2) * (1.0 / math.sqrt(2.0 * bins))


def _shift(x, axes, sign, op):
    t = convert_to_tensor(x)
    rank = len(t.shape)
    axes = list(range(rank)) if axes is None else [int(a) % rank for a in np.ravel(axes)]
    shifts = [sign * (t.shape[a] // 2) if sign > 0 else -(t.shape[a] // 2) for a in axes]
    return _ops.roll(t, shifts, axes) if axes else t


def fftshift(x, axes=None, name=None):
    """``x`` rolled by half its length along ``axes`` (all): the zero frequency moves to the centre."""
    return _shift(x, axes, 1, "fftshift")


def ifftshift(x, axes=None, name=None):
    """The inverse of :func:`fftshift`."""
    return _shift(x, axes, -1, "ifftshift")
