"""Discrete Fourier transforms on (real, imaginary) pairs of real tensors, with their VJPs (issue 37).

Keras 3's ``ops.fft``/``fft2``/``ifft2``/``rfft``/``irfft``/``stft``/``istft`` take and return complex values
as a pair of float tensors; descend's gradients are real, so the transforms are ops on pairs:

* ``complex_fft(re, im, rank, inverse)``: ``F z`` over the last ``rank`` axes, ``z = re + i im``; ``F`` is the
  unnormalized DFT (``inverse=False``) or the normalized inverse DFT (``inverse=True``), as NumPy's and TF's.
  The loss ``L = sum(g_re * out_re + g_im * out_im) = Re<G, F z>`` gives ``dL/dre + i dL/dim = F^H G``, and
  ``F^H = N * F^-1`` for the forward transform (``F^-1 / N`` the other way round): the VJP is the transform in
  the other direction, scaled by ``N`` (or ``1 / N``), so it is differentiable again.
* ``real_fft(x, fft_length)``: the ``fft_length // 2 + 1`` non-negative frequencies of the real signal ``x``
  over its last axis, cropped or zero-padded to ``fft_length`` first (TF's ``rfft``). Its VJP is
  ``Re(F_half^H G)``: ``G`` zero-padded to the full length, transformed back (``N * ifft``), its real part, the
  padding of the forward undone.
* ``inverse_real_fft(re, im, fft_length)``: the real signal of length ``fft_length`` whose spectrum's first
  ``fft_length // 2 + 1`` bins are ``re + i im`` (Hermitian symmetry gives the rest; the imaginary parts of the
  zero and, for even lengths, the Nyquist bin are ignored), as TF's ``irfft``. Each inner bin counts twice in
  ``out[t] = (1/N) sum_k c_k Re(Z_k e^{2 pi i k t / N})``, so the VJP is ``c_k * rfft(g)_k / N`` (``c`` is 1 at
  the zero and Nyquist bins, 2 elsewhere), cropped or zero-padded back to the input's number of bins.

Example:
    >>> import numpy as np
    >>> from descend.ops.fft_ops import complex_fft
    >>> re, im = complex_fft(np.array([1.0, 0.0, 0.0, 0.0]), np.zeros(4))
    >>> re.numpy().tolist(), im.numpy().tolist()
    ([1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0])
"""

from __future__ import annotations

import numpy as np

from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from . import array_ops, math_ops

__all__ = ["complex_fft", "real_fft", "inverse_real_fft"]


def _axes(rank):
    return tuple(range(-rank, 0))


@defop("complex_fft", multi_output=True, same_dtype="all")
def _complex_fft(re, im, rank=1, inverse=False):
    z = re + 1j * im
    out = (np.fft.ifftn if inverse else np.fft.fftn)(z, axes=_axes(rank))
    return [np.ascontiguousarray(out.real).astype(re.dtype), np.ascontiguousarray(out.imag).astype(re.dtype)]


@_complex_fft.defvjp
def _(gs, ans, re, im, rank=1, inverse=False):
    g_re = gs[0] if gs[0] is not None else math_ops.zeros_like(ans[0])
    g_im = gs[1] if gs[1] is not None else math_ops.zeros_like(ans[1])
    n = int(np.prod(re.shape[-rank:])) if rank else 1
    # F^H = N F^-1 for the forward transform, F^H = F / N for the inverse one
    back_re, back_im = _complex_fft(g_re, g_im, rank=rank, inverse=not inverse)
    scale = (1.0 / n) if inverse else float(n)
    return math_ops.multiply(back_re, scale), math_ops.multiply(back_im, scale)


def _check_pair(re, im, owner):
    re, im = convert_to_tensor(re), convert_to_tensor(im)
    if re.dtype.kind != "f" or im.dtype.kind != "f":
        raise TypeError(f"{owner}: the real and imaginary parts must be float tensors. Received dtypes "
                        f"{re.dtype.name} and {im.dtype.name}")
    if tuple(re.shape) != tuple(im.shape):
        raise ValueError(f"{owner}: the real and imaginary parts must have the same shape. Received shapes "
                         f"{tuple(re.shape)} and {tuple(im.shape)}")
    return re, im


def complex_fft(re, im, rank: int = 1, inverse: bool = False) -> tuple[Tensor, Tensor]:
    """The DFT of ``re + i im`` over the last ``rank`` axes (``inverse``: the normalized inverse DFT), as a
    (real, imaginary) pair of tensors of the input's float dtype."""
    re, im = _check_pair(re, im, "complex_fft")
    if not isinstance(rank, int) or rank < 1 or rank > re.ndim:
        raise ValueError(f"complex_fft: `rank` must be an int in [1, {re.ndim}] (the input's rank). "
                         f"Received: rank={rank!r}")
    return _complex_fft(re, im, rank=rank, inverse=bool(inverse))


def _fit_last(x, length):
    """``x`` cropped or zero-padded on the right of its last axis to ``length`` (a descend op, differentiable)."""
    have = x.shape[-1]
    if have == length:
        return x
    if have > length:
        return x[..., :length]
    paddings = [[0, 0]] * (x.ndim - 1) + [[0, length - have]]
    return array_ops.pad(x, paddings)


@defop("real_fft", multi_output=True)
def _real_fft(x, fft_length=None):
    n = x.shape[-1] if fft_length is None else fft_length
    out = np.fft.rfft(x, n=n, axis=-1)
    return [np.ascontiguousarray(out.real).astype(x.dtype), np.ascontiguousarray(out.imag).astype(x.dtype)]


@_real_fft.defvjp
def _(gs, ans, x, fft_length=None):
    n = x.shape[-1] if fft_length is None else fft_length
    g_re = gs[0] if gs[0] is not None else math_ops.zeros_like(ans[0])
    g_im = gs[1] if gs[1] is not None else math_ops.zeros_like(ans[1])
    # Re(F_half^H G) = N * Re(ifft(G zero-padded to N)), then the forward's crop/pad undone
    back_re, _ = _complex_fft(_fit_last(g_re, n), _fit_last(g_im, n), rank=1, inverse=True)
    return _fit_last(math_ops.multiply(back_re, float(n)), x.shape[-1])


def real_fft(x, fft_length: int | None = None) -> tuple[Tensor, Tensor]:
    """The non-negative frequencies of the real signal ``x`` over its last axis (cropped or zero-padded to
    ``fft_length`` first), as a (real, imaginary) pair."""
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"real_fft: `x` must be a float tensor. Received dtype {x.dtype.name}")
    if x.ndim < 1:
        raise ValueError(f"real_fft: `x` must have rank >= 1. Received shape {tuple(x.shape)}")
    if fft_length is not None and (not isinstance(fft_length, (int, np.integer)) or fft_length < 1):
        raise ValueError(f"real_fft: `fft_length` must be a positive int. Received: fft_length={fft_length!r}")
    return _real_fft(x, fft_length=None if fft_length is None else int(fft_length))


def _bin_weights(n, bins, dtype):
    """``c_k``: 1 at the zero frequency and (even ``n``) the Nyquist bin, 2 at the other ``bins``."""
    c = np.full(bins, 2.0)
    c[0] = 1.0
    if n % 2 == 0:
        c[-1] = 1.0
    return c.astype(dtype)


@defop("inverse_real_fft", same_dtype="all")
def _inverse_real_fft(re, im, fft_length=2):
    bins = fft_length // 2 + 1
    z = re + 1j * im
    have = z.shape[-1]
    if have > bins:
        z = z[..., :bins]
    elif have < bins:
        z = np.concatenate([z, np.zeros(z.shape[:-1] + (bins - have,), z.dtype)], axis=-1)
    return np.fft.irfft(z, n=fft_length, axis=-1).astype(re.dtype)


@_inverse_real_fft.defvjp
def _(g, ans, re, im, fft_length=2):
    bins = fft_length // 2 + 1
    spec_re, spec_im = _real_fft(g, fft_length=fft_length)
    c = _bin_weights(fft_length, bins, re.dtype.name) / np.asarray(fft_length, re.dtype.name)
    return (_fit_last(math_ops.multiply(spec_re, c), re.shape[-1]),
            _fit_last(math_ops.multiply(spec_im, c), im.shape[-1]))


def inverse_real_fft(re, im, fft_length: int | None = None) -> Tensor:
    """The real signal of length ``fft_length`` (default ``2 * (bins - 1)``) whose non-negative frequencies are
    ``re + i im`` over the last axis (cropped or zero-padded to ``fft_length // 2 + 1`` bins)."""
    re, im = _check_pair(re, im, "inverse_real_fft")
    if re.ndim < 1:
        raise ValueError(f"inverse_real_fft: the input must have rank >= 1. Received shape {tuple(re.shape)}")
    if fft_length is None:
        fft_length = 2 * (re.shape[-1] - 1)
    if not isinstance(fft_length, (int, np.integer)) or fft_length < 1:
        raise ValueError(f"inverse_real_fft: `fft_length` must be a positive int (at least 2 bins when it is "
                         f"inferred). Received: fft_length={fft_length!r}")
    return _inverse_real_fft(re, im, fft_length=int(fft_length))
