"""More of Keras 3's ``keras.ops`` (issue 37): the linear-algebra decompositions, the Fourier transforms on
(real, imaginary) pairs, framing and short-time transforms, ``unique``/``argpartition``/``segment_prod``, ``i0``,
``correlate``, adaptive pooling. ``descend.keras.ops`` re-exports every name of ``__all__``.

Complex values are pairs of float tensors, as Keras' ``fft`` family takes and returns them; each function is
a composition of descend's ops (``descend/ops/fft_ops.py`` holds the transforms with their VJPs), so the tape
differentiates through it.

Example:
    >>> from descend.keras import ops
    >>> re, im = ops.rfft(ops.convert_to_tensor([1.0, 2.0, 3.0, 4.0]))
    >>> re.numpy().tolist(), im.numpy().tolist()
    ([10.0, -2.0, -2.0], [0.0, 2.0, 0.0])
    >>> ops.extract_sequences(ops.convert_to_tensor([1.0, 2.0, 3.0, 4.0, 5.0]), 3, 2).numpy().tolist()
    [[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]]
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import backend as _backend
from .. import linalg as _linalg
from .. import ops as _o
from ..framework import Tensor, Variable
from ..framework import convert_to_tensor as _to_tensor
from ..ops import ctc_ops as _ctc
from ..ops import fft_ops as _fft
from ..ops import special_more_ops as _special

__all__ = [
    "qr", "svd", "eigh", "lstsq", "pinv", "matrix_rank", "lu_factor",
    "fft", "fft2", "ifft2", "rfft", "irfft", "extract_sequences", "stft", "istft",
    "unique", "argpartition", "segment_prod", "i0", "correlate",
    "adaptive_average_pool", "adaptive_max_pool",
]


def _t(x):
    if isinstance(x, Variable):
        return x.value() if callable(getattr(x, "value", None)) else _to_tensor(x)
    return x if isinstance(x, Tensor) else _to_tensor(x)


def _floating(x):
    """``x`` as a float tensor (ints and bools as ``floatx()``, int64 as float64: Keras' rule for linalg)."""
    x = _t(x)
    if x.dtype.kind == "f":
        return x
    return _o.cast(x, "float64" if x.dtype.name == "int64" else _backend.floatx())


def _matrix(x, owner):
    x = _floating(x)
    if x.ndim < 2:
        raise ValueError(f"{owner}: `x` must have rank >= 2 (a batch of matrices). Received shape {tuple(x.shape)}")
    return x


def _adjoint(x):
    perm = list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2]
    return _o.transpose(x, perm)


# ---------------------------------------------------------------------------------------- linear algebra
def qr(x, mode="reduced"):
    """The QR decomposition ``(q, r)`` of each matrix of ``x``; ``mode="complete"`` gives a square ``q``."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: `mode` must be one of 'reduced', 'complete'. Received: mode={mode!r}")
    return _linalg.qr(_matrix(x, "qr"), full_matrices=mode == "complete")


def svd(x, full_matrices=True, compute_uv=True):
    """The singular value decomposition ``(u, s, vh)`` with ``x = u @ diag(s) @ vh`` (``s`` alone without
    ``compute_uv``), singular values in descending order."""
    x = _matrix(x, "svd")
    if not compute_uv:
        return _linalg.svd(x, full_matrices=full_matrices, compute_uv=False)
    s, u, v = _linalg.svd(x, full_matrices=full_matrices, compute_uv=True)
    return u, s, _adjoint(v)


def eigh(x):
    """The eigenvalues (ascending) and eigenvectors ``(w, v)`` of each symmetric matrix of ``x``."""
    return _linalg.eigh(_matrix(x, "eigh"))


def pinv(x, rcond=None):
    """The Moore-Penrose pseudo-inverse (singular values below ``rcond * max(s)`` dropped; TF's default
    ``rcond``)."""
    return _linalg.pinv(_matrix(x, "pinv"), rcond=rcond)


def matrix_rank(x, tol=None):
    """The number of singular values above ``tol`` (default ``max(s) * max(m, n) * eps``), as
    ``tf.linalg.matrix_rank``."""
    return _o.cast(_linalg.matrix_rank(_matrix(x, "matrix_rank"), tol=tol), "int32")


def lu_factor(x):
    """``(lu, pivots)``: the packed LU factors of each matrix (unit-diagonal ``L`` below, ``U`` on and above the
    diagonal) and the row permutation as Keras' TF backend returns it (``invert_permutation`` of TF's ``p``)."""
    x = _matrix(x, "lu_factor")
    lu, p = _linalg.lu(x)
    pn = np.asarray(p.numpy())
    inverse = np.empty_like(pn)
    np.put_along_axis(inverse, pn, np.broadcast_to(np.arange(pn.shape[-1], dtype=pn.dtype), pn.shape), axis=-1)
    return lu, Tensor(inverse)


def lstsq(a, b, rcond=None):
    """The least-squares solution ``x`` of ``a @ x = b`` for one matrix ``a`` (m, n) and ``b`` (m,) or (m, k),
    through the SVD of ``a`` (singular values below ``rcond * s[0]`` dropped, ``rcond`` defaulting to
    ``eps * max(m, n)``), as Keras' TF backend computes it."""
    a, b = _floating(a), _floating(b)
    if b.dtype != a.dtype:
        b = _o.cast(b, a.dtype.name)
    if a.ndim != 2:
        raise TypeError(f"lstsq: `a` must be two-dimensional. Received shape {tuple(a.shape)}")
    if b.ndim not in (1, 2):
        raise TypeError(f"lstsq: `b` must be one- or two-dimensional. Received shape {tuple(b.shape)}")
    if a.shape[0] != b.shape[0]:
        raise ValueError(f"lstsq: the leading dimensions of `a` and `b` must match. Received shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    vector = b.ndim == 1
    if vector:
        b = _o.reshape(b, (-1, 1))
    m, n = a.shape
    eps = float(np.finfo(a.dtype.name).eps)
    rcond = eps * builtins.max(m, n) if rcond is None else (eps if rcond < 0 else float(rcond))
    u, s, vh = svd(a, full_matrices=False)
    keep = _o.greater_equal(s, _o.multiply(s[0], np.asarray(rcond, a.dtype.name)))
    safe = _o.where(keep, s, _o.ones_like(s))
    s_inv = _o.where(keep, _o.divide(_o.ones_like(s), safe), _o.zeros_like(s))
    # x = V diag(1/s) U^T b over the kept singular values
    x = _o.matmul(_adjoint(vh), _o.multiply(_o.reshape(s_inv, (-1, 1)), _o.matmul(_adjoint(u), b)))
    return _o.reshape(x, (-1,)) if vector else x


# ---------------------------------------------------------------------------------------- Fourier transforms
def _pair(x, owner):
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise ValueError(f"{owner}: `x` must be a tuple of two tensors (real part, imaginary part). "
                         f"Received: x={x!r}")
    re, im = _t(x[0]), _t(x[1])
    if re.dtype.kind != "f" or im.dtype.kind != "f":
        raise ValueError(f"{owner}: the real and imaginary parts must be float tensors. Received dtypes "
                         f"{re.dtype.name} and {im.dtype.name}")
    if tuple(re.shape) != tuple(im.shape):
        raise ValueError(f"{owner}: the real and imaginary parts must have the same shape. Received shapes "
                         f"{tuple(re.shape)} and {tuple(im.shape)}")
    if re.dtype != im.dtype:
        im = _o.cast(im, re.dtype.name)
    return re, im


def fft(x):
    """The discrete Fourier transform over the last axis of the complex ``x = (real, imag)``; a pair."""
    re, im = _pair(x, "fft")
    if re.ndim < 1:
        raise ValueError(f"fft: the input must have rank >= 1. Received shape {tuple(re.shape)}")
    return _fft.complex_fft(re, im, rank=1)


def fft2(x):
    """The 2-D discrete Fourier transform over the last two axes of ``x = (real, imag)``; a pair."""
    re, im = _pair(x, "fft2")
    if re.ndim < 2:
        raise ValueError(f"fft2: the input must have rank >= 2. Received shape {tuple(re.shape)}")
    return _fft.complex_fft(re, im, rank=2)


def ifft2(x):
    """The normalized inverse 2-D discrete Fourier transform over the last two axes of ``x = (real, imag)``."""
    re, im = _pair(x, "ifft2")
    if re.ndim < 2:
        raise ValueError(f"ifft2: the input must have rank >= 2. Received shape {tuple(re.shape)}")
    return _fft.complex_fft(re, im, rank=2, inverse=True)


def rfft(x, fft_length=None):
    """The non-negative frequencies of the real signal ``x`` over its last axis, cropped or zero-padded to
    ``fft_length`` first; a (real, imag) pair of ``fft_length // 2 + 1`` bins."""
    return _fft.real_fft(_floating(x), fft_length)


def irfft(x, fft_length=None):
    """The real signal (length ``fft_length``, default ``2 * (bins - 1)``) whose non-negative frequencies are
    ``x = (real, imag)`` over the last axis."""
    re, im = _pair(x, "irfft")
    return _fft.inverse_real_fft(re, im, fft_length)


def _frame_indices(n, length, stride):
    count = 0 if n < length else 1 + (n - length) // stride
    return (np.arange(count)[:, None] * stride + np.arange(length)[None, :]).astype(np.int32)


def extract_sequences(x, sequence_length, sequence_stride):
    """The frames of length ``sequence_length`` every ``sequence_stride`` steps along the last axis of ``x``
    (those that fit: no padding), shape ``(..., num_sequences, sequence_length)`` (``tf.signal.frame``)."""
    x = _t(x)
    for name, value in (("sequence_length", sequence_length), ("sequence_stride", sequence_stride)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"extract_sequences: `{name}` must be a positive int. Received: {name}={value!r}")
    if x.ndim < 1:
        raise ValueError(f"extract_sequences: `x` must have rank >= 1. Received shape {tuple(x.shape)}")
    return _o.gather(x, _frame_indices(x.shape[-1], int(sequence_length), int(sequence_stride)), axis=x.ndim - 1)


def _window(window, sequence_length, fft_length, dtype, owner):
    """The analysis window (periodic Hann or Hamming, or the given values) centred in ``fft_length`` by zeros;
    ``None`` for no window."""
    if window is None:
        return None
    if isinstance(window, str):
        if window not in ("hann", "hamming"):
            raise ValueError(f"{owner}: a string `window` must be 'hann' or 'hamming'. Received: window={window!r}")
        phase = 2.0 * np.pi * np.arange(sequence_length) / sequence_length  # periodic: N, not N - 1
        a = 0.5 if window == "hann" else 0.54
        values = (a - (1.0 - a) * np.cos(phase)).astype(dtype)
    else:
        values = np.asarray(window.numpy() if hasattr(window, "numpy") else window).astype(dtype)
    if values.shape != (sequence_length,):
        raise ValueError(f"{owner}: `window` must have shape [sequence_length]=[{sequence_length}]. Received shape "
                         f"{values.shape}")
    left = (fft_length - sequence_length) // 2
    return np.pad(values, (left, fft_length - sequence_length - left))


def _stft_args(sequence_length, sequence_stride, fft_length, owner):
    for name, value in (("sequence_length", sequence_length), ("sequence_stride", sequence_stride),
                        ("fft_length", fft_length)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{owner}: `{name}` must be a positive int. Received: {name}={value!r}")
    if fft_length < sequence_length:
        raise ValueError(f"{owner}: `fft_length` must be >= `sequence_length`. Received: "
                         f"sequence_length={sequence_length}, fft_length={fft_length}")


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform of the real signals ``x`` over the last axis: frames of ``fft_length``
    samples every ``sequence_stride`` (reflect-padded by ``fft_length // 2`` on both sides with ``center``),
    times the window (``sequence_length`` long, centred), ``rfft``'d; a (real, imag) pair of shape
    ``(..., frames, fft_length // 2 + 1)``."""
    x = _t(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"stft: `x` must be float32 or float64. Received dtype {x.dtype.name}")
    _stft_args(sequence_length, sequence_stride, fft_length, "stft")
    win = _window(window, sequence_length, fft_length, x.dtype.name, "stft")
    if center:
        half = fft_length // 2
        x = _o.pad(x, [[0, 0]] * (x.ndim - 1) + [[half, half]], mode="REFLECT")
    frames = extract_sequences(x, fft_length, sequence_stride)
    if win is not None:
        frames = _o.multiply(frames, win)
    return _fft.real_fft(frames, fft_length)


def _overlap_and_add(frames, step):
    """``out[f * step + j] += frames[..., f, j]`` over the last two axes (``tf.signal.overlap_and_add``)."""
    count, length = frames.shape[-2], frames.shape[-1]
    total = (count - 1) * step + length if count else 0
    lead = list(frames.shape[:-2])
    nd = frames.ndim
    # (frames, length, ...) rows summed into their output positions
    rows = _o.reshape(_o.transpose(frames, [nd - 2, nd - 1] + list(range(nd - 2))), [count * length] + lead)
    ids = (np.arange(count)[:, None] * step + np.arange(length)[None, :]).reshape(-1).astype(np.int32)
    out = _o.unsorted_segment_sum(rows, ids, total)
    return _o.transpose(out, list(range(1, nd - 1)) + [0])


def istft(x, sequence_length, sequence_stride, fft_length, length=None, window="hann", center=True):
    """The inverse of ``stft``: each frame ``irfft``'d, times the synthesis window (the analysis window divided
    by the sum of its squares over the frames that overlap there, as ``tf.signal.inverse_stft_window_fn``),
    overlapped and added; then cropped by ``fft_length // 2`` on each side with ``center``, or to ``length``."""
    re, im = _pair(x, "istft")
    if re.ndim < 2:
        raise ValueError(f"istft: the input must have rank >= 2 (frames, bins). Received shape {tuple(re.shape)}")
    _stft_args(sequence_length, sequence_stride, fft_length, "istft")
    win = _window(window, sequence_length, fft_length, re.dtype.name, "istft")
    frames = _fft.inverse_real_fft(re, im, fft_length)
    if win is not None:
        # w / sum_k w(t + k step)^2: the squares folded onto one stride and tiled back
        overlaps = -(-fft_length // sequence_stride)
        squares = np.pad(win.astype(np.float64) ** 2, (0, overlaps * sequence_stride - fft_length))
        denom = np.tile(squares.reshape(overlaps, sequence_stride).sum(0), overlaps)[:fft_length]
        synthesis = np.where(denom > 0, win / np.where(denom > 0, denom, 1.0), 0.0)  # 0 where no window reaches
        frames = _o.multiply(frames, synthesis.astype(re.dtype.name))
    out = _overlap_and_add(frames, sequence_stride)
    start = fft_length // 2 if center else 0
    if length is not None:
        end = start + int(length)
    elif center:
        end = out.shape[-1] - fft_length // 2
    else:
        end = out.shape[-1]
    return out[..., start:end]


# ---------------------------------------------------------------------------------------- NumPy
def unique(x, sorted=True, return_index=False, return_inverse=False, return_counts=False, axis=None,  # noqa: A002
           size=None, fill_value=None):
    """The unique values of ``x`` (flattened, or the unique slices along ``axis``), sorted (or in order of first
    appearance), with the first index, the inverse and the counts on request; ``size`` truncates or pads to a
    fixed number (values with ``fill_value``, default 0; indices with 1, counts with 0, as Keras' TF backend).
    Index results are int32."""
    t = _t(x)
    arr = np.asarray(t.numpy())
    if axis is None:
        flat, along = arr.reshape(-1), 0
    else:
        if not isinstance(axis, (int, np.integer)) or not -arr.ndim <= axis < arr.ndim:
            raise ValueError(f"unique: `axis` must be an int in [-{arr.ndim}, {arr.ndim}). Received: axis={axis!r}")
        flat, along = arr, int(axis) % arr.ndim
    values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True,
                                               axis=along)
    inverse = inverse.reshape(-1)
    if not sorted:
        order = np.argsort(first, kind="stable")  # first appearance
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        values, first, counts, inverse = np.take(values, order, axis=along), first[order], counts[order], \
            rank[inverse]
    if size is not None:
        n = values.shape[along]
        keep = builtins.min(n, int(size))
        values, first, counts = np.take(values, np.arange(keep), axis=along), first[:keep], counts[:keep]
        pad = int(size) - keep
        if pad > 0:
            widths = [(0, 0)] * values.ndim
            widths[along] = (0, pad)
            values = np.pad(values, widths, constant_values=0 if fill_value is None else fill_value)
            first, counts = np.pad(first, (0, pad), constant_values=1), np.pad(counts, (0, pad))
    if axis is None:
        inverse = inverse.reshape(arr.shape)
    out = [Tensor(values.astype(arr.dtype))]
    if return_index:
        out.append(Tensor(first.astype(np.int32)))
    if return_inverse:
        out.append(Tensor(inverse.astype(np.int32)))
    if return_counts:
        out.append(Tensor(counts.astype(np.int32)))
    return tuple(out) if len(out) > 1 else out[0]


def argpartition(x, kth, axis=-1):
    """Indices that partition ``x`` along ``axis`` around its ``kth`` smallest: that element at ``kth``, the
    smaller ones before, the others after (NumPy's contract; the order within each side is unspecified: here it
    is ascending, ties by position). int32."""
    arr = np.asarray(_t(x).numpy())
    if axis is None:
        arr, axis = arr.reshape(-1), 0
    n = arr.shape[axis]
    if not isinstance(kth, (int, np.integer)) or not -n <= kth < n:
        raise ValueError(f"argpartition: `kth` must be an int in [-{n}, {n}). Received: kth={kth!r}")
    return Tensor(np.argsort(arr, axis=axis, kind="stable").astype(np.int32))


def segment_prod(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002 - Keras' name
    """The product of the rows of ``data`` in each segment (``num_segments`` defaults to ``max(ids) + 1``; 1 for
    an empty segment), as ``tf.math.unsorted_segment_prod``; ``sorted`` asks the ids to be non-decreasing."""
    data = _t(data)
    ids = np.asarray(segment_ids.numpy() if hasattr(segment_ids, "numpy") else segment_ids)
    if sorted:
        if num_segments is not None:
            raise ValueError("segment_prod: `num_segments` cannot be set when `sorted=True` (Keras' TF backend). "
                             f"Received: num_segments={num_segments}")
        if ids.size and np.any(np.diff(ids.reshape(-1)) < 0):
            raise ValueError(f"segment_prod: `segment_ids` must be sorted when `sorted=True`. Received {ids.tolist()}")
    if num_segments is None:
        num_segments = int(ids.max()) + 1 if ids.size else 0
    return _special.unsorted_segment_prod(data, ids, num_segments)


def i0(x):
    """The modified Bessel function of the first kind of order 0 (ints as ``floatx()``, int64 as float64)."""
    return _special.bessel_i0(_floating(x))


def correlate(x1, x2, mode="valid"):
    """The cross-correlation ``c[k] = sum_n x1[n + k] * x2[n]`` of two vectors (NumPy's ``correlate``): ``"valid"``
    (where they overlap fully), ``"same"`` (``max(n, m)`` centred) or ``"full"`` (``n + m - 1``)."""
    if mode not in ("valid", "same", "full"):
        raise ValueError(f"correlate: `mode` must be one of 'full', 'same', 'valid'. Received: mode={mode!r}")
    a, v = _t(x1), _t(x2)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"correlate: `x1` and `x2` must be vectors. Received shapes {tuple(a.shape)} and "
                         f"{tuple(v.shape)}")
    kinds = {a.dtype.name, v.dtype.name}
    dtype = next((d for d in ("float64", "float16") if d in kinds), None) or (
        "float64" if "int64" in kinds else "float32")
    a, v = _o.cast(a, dtype), _o.cast(v, dtype)
    n, m = a.shape[0], v.shape[0]
    if m > n:  # c[k] of (x1, x2) is c[-k] of (x2, x1), as NumPy's
        return _o.reverse(correlate(v, a, mode), [0])
    if mode != "valid":
        a = _o.pad(a, [[m - 1, m - 1]])
    full = _o.reshape(_o.matmul(extract_sequences(a, m, 1), _o.reshape(v, (m, 1))), (-1,))
    if mode == "same":
        total, out = n + m - 1, builtins.max(n, m)
        start = (total - out) // 2
        return full[start:start + out]
    return full


# ---------------------------------------------------------------------------------------- adaptive pooling
def _adaptive(kind, inputs, output_size, data_format):
    owner = f"adaptive_{kind}_pool"
    x = _t(inputs)
    rank = x.ndim - 2
    if rank not in (1, 2, 3):
        raise ValueError(f"{owner}: `inputs` must have rank 3, 4 or 5 (batch, spatial..., channels). "
                         f"Received shape {tuple(x.shape)}")
    sizes = (output_size,) * rank if isinstance(output_size, (int, np.integer)) else tuple(output_size)
    if len(sizes) != rank or builtins.any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1
                                          for v in sizes):
        raise ValueError(f"{owner}: `output_size` must be a positive int or {rank} positive ints. "
                         f"Received: output_size={output_size!r}")
    data_format = data_format or "channels_last"  # the default of keras.ops' other pooling functions here
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"{owner}: `data_format` must be 'channels_last' or 'channels_first'. "
                         f"Received: data_format={data_format!r}")
    first = 1 if data_format == "channels_last" else 2
    reduce = _o.reduce_mean if kind == "average" else _o.reduce_max
    for axis, m in zip(range(first, first + rank), sizes):
        n = x.shape[axis]
        pieces = []
        for i in range(int(m)):
            # bin i covers [floor(i n / m), ceil((i + 1) n / m))
            index = [builtins.slice(None)] * x.ndim
            index[axis] = builtins.slice((i * n) // m, -((-(i + 1) * n) // m))
            pieces.append(reduce(x[tuple(index)], axis=axis, keepdims=True))
        x = _o.concat(pieces, axis=axis)
    return x


def adaptive_average_pool(inputs, output_size, data_format=None):
    """The mean over adaptive bins (input range ``[floor(i n / m), ceil((i + 1) n / m))``) of each spatial axis,
    pooled to ``output_size``; 1-D to 3-D by the rank of ``inputs``."""
    return _adaptive("average", inputs, output_size, data_format)


def adaptive_max_pool(inputs, output_size, data_format=None):
    """The maximum over adaptive bins of each spatial axis, pooled to ``output_size``; 1-D to 3-D."""
    return _adaptive("max", inputs, output_size, data_format)


# ---------------------------------------------------------------------------------------- CTC
def ctc_loss(target, output, target_length, output_length, mask_index=0):
    """The CTC loss of each sequence (batch-major logits ``output`` (batch, time, classes), unnormalized; padded
    int labels ``target`` (batch, max_length)), with ``mask_index`` the blank class; float32 at least (Keras'
    result dtype). See ``descend.ops.ctc_ops.ctc_loss_dense``."""
    output = _t(output)
    if output.dtype.kind != "f":
        output = _o.cast(output, _backend.floatx())
    elif output.dtype.name == "float16":
        output = _o.cast(output, "float32")
    return _ctc.ctc_loss_dense(target, output, target_length, output_length, blank_index=mask_index)


def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1, merge_repeated=True,
               mask_index=0):
    """The greedy CTC decoding of batch-major ``inputs`` (batch, time, classes): the best class at each of the
    first ``sequence_lengths[b]`` steps, repeats merged (``merge_repeated``), blanks (``mask_index``) removed.
    Returns ``(decoded, scores)``: int32 ``(1, batch, time)`` padded with -1, and ``(batch, 1)`` the negated sum
    of the chosen inputs (``tf.nn.ctc_greedy_decoder``'s). Only ``strategy="greedy"``: ``"beam_search"`` raises
    ``NotImplementedError``."""
    if strategy == "beam_search":
        raise NotImplementedError("ctc_decode: descend implements strategy='greedy' only; strategy='beam_search' is "
                                  "not implemented. Received: strategy='beam_search'")
    if strategy != "greedy":
        raise ValueError(f"ctc_decode: `strategy` must be 'greedy' or 'beam_search'. Received: strategy={strategy!r}")
    x = np.asarray(_t(inputs).numpy())
    if x.ndim != 3:
        raise ValueError(f"ctc_decode: `inputs` must have rank 3 (batch, time, classes). Received shape {x.shape}")
    b_size, t_size, classes = x.shape
    lengths = np.asarray(sequence_lengths.numpy() if hasattr(sequence_lengths, "numpy") else sequence_lengths)
    if lengths.shape != (b_size,) or lengths.dtype.kind not in "iu" or np.any((lengths < 0) | (lengths > t_size)):
        raise ValueError(f"ctc_decode: `sequence_lengths` must be {b_size} ints in [0, {t_size}]. Received "
                         f"{lengths.tolist()}")
    blank = classes - 1 if mask_index is None else int(mask_index) % classes
    x = x.astype(np.result_type(x.dtype, np.float32))
    best = np.argmax(x, axis=-1)
    decoded = np.full((1, b_size, t_size), -1, np.int32)
    scores = np.zeros((b_size, 1), x.dtype)
    for b in range(b_size):
        n = int(lengths[b])
        path = best[b, :n]
        scores[b, 0] = -np.sum(np.max(x[b, :n], axis=-1))
        keep = path != blank
        if merge_repeated and n:
            keep &= np.concatenate([[True], path[1:] != path[:-1]])
        labels = path[keep]
        decoded[0, b, :labels.size] = labels
    return Tensor(decoded), Tensor(scores)


__all__ += ["ctc_loss", "ctc_decode"]
