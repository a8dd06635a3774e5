"""The ``STFT`` initializer (as Keras' ``keras.initializers.STFT``): the real or imaginary part of a windowed
discrete Fourier basis, the kernel of a convolution that computes a short-time Fourier transform.

For ``shape = (T, 1, F)`` (a window of ``T`` samples, ``F = n_fft // 2 + 1`` frequencies), with ``n = 2 (F - 1)``::

    real: w[t] cos(-2 pi t f / n) / scale        imag: w[t] sin(-2 pi t f / n) / scale

``w`` is the window (``None``: all ones), ``scale`` is ``sqrt(sum w^2)`` (``scaling="density"``), ``sum |w|``
(``"spectrum"``) or 1 (``None``). Named windows are SciPy's ``get_window`` ones that descend computes itself:
``"hann"``, ``"hamming"``, ``"blackman"``, ``"bartlett"``, ``"boxcar"``, symmetric by default and periodic (DFT-even)
with ``periodic=True``; a window may also be given as an array of ``T`` values.

Example:
    >>> import descend as ds, numpy as np
    >>> k = ds.initializers.STFT(side="real", window=None, scaling=None)((4, 1, 3))
    >>> np.round(k.numpy()[:, 0, :], 6).tolist() == [[1, 1, 1], [1, 0, -1], [1, -1, 1], [1, 0, -1]]
    True
"""

from __future__ import annotations

import numpy as np

from . import backend
from .framework.tensor import Tensor
from .initializers import Initializer

__all__ = ["STFT"]

_WINDOWS = ("hann", "hamming", "blackman", "bartlett", "boxcar")
_SYNONYMS = {"hanning": "hann", "han": "hann", "hamm": "hamming", "ham": "hamming", "black": "blackman",
             "blk": "blackman", "bart": "bartlett", "brt": "bartlett", "box": "boxcar", "ones": "boxcar",
             "rect": "boxcar", "rectangular": "boxcar"}


def _window_name(window) -> str:
    name = _SYNONYMS.get(window, window)
    if name not in _WINDOWS:
        raise ValueError(f"STFT: unknown window {window!r}; descend computes the windows {list(_WINDOWS)} (and "
                         "their SciPy synonyms), or pass the window's values as an array")
    return name


def window_values(name: str, length: int, periodic: bool) -> np.ndarray:
    """SciPy's ``get_window(name, length, fftbins=periodic)`` for the windows descend knows, in float64."""
    name = _window_name(name)
    if length == 1:
        return np.ones(1)
    m = length + 1 if periodic else length  # a periodic window: the symmetric one of length + 1, last dropped
    n = np.arange(m)
    if name == "boxcar":
        w = np.ones(m)
    elif name == "bartlett":
        w = np.where(n <= (m - 1) / 2.0, 2.0 * n / (m - 1), 2.0 - 2.0 * n / (m - 1))
    else:
        a = {"hann": (0.5, 0.5, 0.0), "hamming": (0.54, 0.46, 0.0), "blackman": (0.42, 0.5, 0.08)}[name]
        fac = 2.0 * np.pi * n / (m - 1)
        w = a[0] - a[1] * np.cos(fac) + a[2] * np.cos(2.0 * fac)
    return w[:length] if periodic else w


class STFT(Initializer):
    """A windowed Fourier basis of shape ``(frame_length, 1, n_fft // 2 + 1)``.

    Args:
        side: ``"real"`` (cosines, default) or ``"imag"`` (sines).
        window: a window name (``"hann"``, default), an array of ``frame_length`` values, or None.
        scaling: ``"density"`` (default), ``"spectrum"`` or None.
        periodic: a periodic window instead of a symmetric one (default False).
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise ValueError(f"STFT: `side` must be 'real' or 'imag'. Received: side={side!r}")
        if isinstance(window, str):
            _window_name(window)
        elif window is not None:
            values = np.asarray(window)
            if values.ndim != 1 or values.dtype.kind not in "iuf":
                raise ValueError(f"STFT: `window` must be a name, None or a 1-D array of numbers. Received: "
                                 f"window={window!r}")
            window = values.tolist()
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(f"STFT: `scaling` must be None, 'density' or 'spectrum'. Received: scaling={scaling!r}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, bool(periodic)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = tuple(int(s) for s in shape)
        if len(shape) != 3 or min(shape) <= 0:
            raise ValueError(f"STFT: the shape must be (frame_length, input_channels, fft_bins) of positive sizes. "
                             f"Received: shape={shape}")
        d = backend.floatx() if dtype is None else backend.np_dtype(dtype)
        if np.dtype(d).kind != "f":
            raise ValueError(f"STFT: the dtype must be a float dtype. Received: dtype={dtype!r}")
        frame, _, bins = shape
        n_fft = (bins - 1) * 2
        freq = (np.arange(bins, dtype=d) / np.asarray(n_fft, d)).reshape(1, 1, bins)
        time = np.arange(frame, dtype=d).reshape(frame, 1, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            args = (np.asarray(-2, d) * time * freq * np.asarray(np.pi, d)).astype(d)  # -2 pi t f / n
        kernel = (np.cos(args) if self.side == "real" else np.sin(args)).astype(d)
        if self.window is not None:
            w = window_values(self.window, frame, self.periodic) if isinstance(self.window, str) \
                else np.asarray(self.window, np.float64)
            if w.shape != (frame,):
                raise ValueError(f"STFT: the window must have frame_length={frame} values. Received {w.shape[0]}")
            w = w.astype(d).reshape(frame, 1, 1)
            if self.scaling == "density":
                scale = np.sqrt(np.sum(np.square(w)))
            elif self.scaling == "spectrum":
                scale = np.sum(np.abs(w))
            else:
                scale = np.asarray(1, d)
            kernel = (kernel * w / scale).astype(d)
        return Tensor(np.ascontiguousarray(np.broadcast_to(kernel, shape)).astype(d))

    def get_config(self) -> dict:
        return {"side": self.side, "window": self.window, "periodic": self.periodic, "scaling": self.scaling}
