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
from ..ops import segment_prod_ops as _segment_prod
from ..ops import special_ops as _special

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
    return lu, _o.argsort(p, axis=-1, stable=True)  # the inverse permutation of each row


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
            raise ValueError(f"{owner}: If a string is passed to `window`, it must be one of 'hann', 'hamming'. "
                             f"Received: window={window!r}")
        phase = 2.0 * np.pi * np.arange(sequence_length) / sequence_length  # periodic: N, not N - 1
        a = 0.5 if window == "hann" else 0.54
        values = (a - (1.0 - a) * np.cos(phase)).astype(dtype)
    else:
        values = np.asarray(window.numpy() if hasattr(window, "numpy") else window).astype(dtype)
    if values.shape != (sequence_length,):
        raise ValueError(f"{owner}: The shape of `window` must be equal to [sequence_length]=[{sequence_length}]. "
                         f"Received: window shape={values.shape}")
    left = (fft_length - sequence_length) // 2
    return np.pad(values, (left, fft_length - sequence_length - left))


def _stft_args(sequence_length, sequence_stride, fft_length, owner):
    for name, value in (("sequence_length", sequence_length), ("sequence_stride", sequence_stride),
                        ("fft_length", fft_length)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{owner}: `{name}` must be a positive integer. Received: {name}={value!r}")
    if fft_length < sequence_length:
        raise ValueError(f"{owner}: `fft_length` must equal or be larger than `sequence_length`. Received: "
                         f"sequence_length={sequence_length}, fft_length={fft_length}")


def stft(x, sequence_length, sequence_stride, fft_length, window="hann", center=True):
    """The short-time Fourier transform of the real signals ``x`` over the last axis: frames of ``fft_length``
    samples every ``sequence_stride`` (reflect-padded by ``fft_length // 2`` on both sides with ``center``),
    times the window (``sequence_length`` long, centred), ``rfft``'d; a (real, imag) pair of shape
    ``(..., frames, fft_length // 2 + 1)``."""
    x = _t(x)
    if x.dtype.name not in ("float32", "float64"):
        raise TypeError(f"stft: Invalid input type. Expected `float32` or `float64`. Received: input type="
                        f"{x.dtype.name}")
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
    Each NaN counts as a value of its own (NaN differs from NaN), as in Keras. Index results are int32."""
    t = _t(x)
    arr = np.asarray(t.numpy())
    if axis is None:
        flat, along = arr.reshape(-1), 0
    else:
        if not isinstance(axis, (int, np.integer)) or not -arr.ndim <= axis < arr.ndim:
            raise ValueError(f"unique: `axis` must be an int in [-{arr.ndim}, {arr.ndim}). Received: axis={axis!r}")
        flat, along = arr, int(axis) % arr.ndim
    # each NaN is its own value (NaN != NaN), as TF's unique and Keras' backends: NumPy's equal_nan=False
    values, first, inverse, counts = np.unique(flat, return_index=True, return_inverse=True, return_counts=True,
                                               axis=along, equal_nan=False)
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
    t = _t(x)
    if axis is None:
        t, axis = _o.reshape(t, (-1,)), 0
    if not isinstance(axis, (int, np.integer)) or not -t.ndim <= axis < t.ndim:
        raise ValueError(f"argpartition: `axis` must be an int in [-{t.ndim}, {t.ndim}) or None. Received: "
                         f"axis={axis!r}")
    n = t.shape[axis]
    if not isinstance(kth, (int, np.integer)) or not -n <= kth < n:
        raise ValueError(f"argpartition: `kth` must be an int in [-{n}, {n}). Received: kth={kth!r}")
    return _o.cast(_o.argsort(t, axis=int(axis), stable=True), "int32")


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
    return _segment_prod.unsorted_segment_prod(data, ids, num_segments)


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
    # Keras' dtype: the operands' result type if float16 or float64 (int64: float64), else float32
    both = np.promote_types(a.dtype.name, v.dtype.name) if a.dtype.kind == v.dtype.kind else None
    floats = [d.name for d in (a.dtype, v.dtype) if d.kind == "f"]
    if both is not None:
        dtype = both.name
    elif floats:  # a float with an int or bool: the float's dtype (Keras' result_type)
        dtype = floats[0]
    else:  # int with bool
        dtype = np.promote_types(a.dtype.name, v.dtype.name).name
    dtype = dtype if dtype in ("float16", "float64") else "float64" if dtype == "int64" else "float32"
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


def _log_softmax_rows(x):
    shifted = x - np.max(x, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


def _ctc_beam_search(logp, blank, beam_width, top_paths):
    """Prefix beam search over the log-probabilities ``logp`` (steps, classes): each prefix keeps the
    probability of its alignments ending in a blank and in its last label; after each step the ``beam_width``
    most probable prefixes stay. Returns the ``top_paths`` best ``(labels, log probability)``."""
    beams = {(): (0.0, -np.inf)}  # prefix -> (log p ending in blank, log p ending in its last label)
    for row in logp:
        grown: dict = {}

        def add(prefix, blank_part, label_part):
            old_b, old_l = grown.get(prefix, (-np.inf, -np.inf))
            grown[prefix] = (np.logaddexp(old_b, blank_part), np.logaddexp(old_l, label_part))

        for prefix, (p_blank, p_label) in beams.items():
            total = np.logaddexp(p_blank, p_label)
            add(prefix, total + row[blank], -np.inf)  # a blank: the prefix stays
            if prefix:  # the last label again, without a blank between: merged, the prefix stays
                add(prefix, -np.inf, p_label + row[prefix[-1]])
            for c in range(row.size):
                if c == blank:
                    continue
                # a new label; the last one again only after a blank
                source = p_blank if prefix and c == prefix[-1] else total
                add(prefix + (c,), -np.inf, source + row[c])
        ranked = sorted(grown.items(), key=lambda kv: -np.logaddexp(*kv[1]))
        beams = dict(ranked[:beam_width])
    ranked = sorted(beams.items(), key=lambda kv: -np.logaddexp(*kv[1]))[:top_paths]
    return [(list(prefix), float(np.logaddexp(*probs))) for prefix, probs in ranked]


def ctc_decode(inputs, sequence_lengths, strategy="greedy", beam_width=100, top_paths=1, merge_repeated=True,
               mask_index=0):
    """CTC decoding of batch-major logits ``inputs`` (batch, time, classes) over the first
    ``sequence_lengths[b]`` steps, ``mask_index`` the blank. Returns ``(decoded, scores)``: int32
    ``(top_paths, batch, time)`` label sequences padded with -1, and ``(batch, top_paths)`` scores.

    ``"greedy"``: the best class at each step, repeats merged (``merge_repeated``), blanks removed; one path,
    scored by the negated sum of the chosen logits (``tf.nn.ctc_greedy_decoder``'s). ``"beam_search"``: the
    ``top_paths`` most probable label sequences by a prefix beam search of width ``beam_width`` over the
    log-softmax of the logits, scored by their log-probabilities (``tf.nn.ctc_beam_search_decoder``'s)."""
    if strategy not in ("greedy", "beam_search"):
        raise ValueError(f"ctc_decode: Invalid strategy {strategy!r}. Supported values are 'greedy' and 'beam_search'.")
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
    if strategy == "beam_search":
        for name, value in (("beam_width", beam_width), ("top_paths", top_paths)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"ctc_decode: `{name}` must be a positive int. Received: {name}={value!r}")
        if top_paths > beam_width:
            raise ValueError(f"ctc_decode: `top_paths` must be <= `beam_width`. Received: top_paths={top_paths}, "
                             f"beam_width={beam_width}")
        decoded = np.full((top_paths, b_size, t_size), -1, np.int32)
        scores = np.full((b_size, top_paths), -np.inf, x.dtype)
        for b in range(b_size):
            logp = _log_softmax_rows(x[b, :int(lengths[b])].astype(np.float64))
            for k, (labels, score) in enumerate(_ctc_beam_search(logp, blank, int(beam_width), int(top_paths))):
                decoded[k, b, :len(labels)] = labels
                scores[b, k] = score
        return Tensor(decoded), Tensor(scores)
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


# ---------------------------------------------------------------------------------------- fold / unfold
def _pair_arg(value, name, owner, minimum):
    pair = (value, value) if isinstance(value, (int, np.integer)) and not isinstance(value, bool) else tuple(value)
    if len(pair) != 2 or builtins.any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum
                                      for v in pair):
        raise ValueError(f"{owner}: `{name}` must be an int >= {minimum} or a pair of them. Received: "
                         f"{name}={value!r}")
    return int(pair[0]), int(pair[1])


def _block_indices(height, width, kernel_size, dilation, padding, stride, owner):
    """The flat positions in the padded (H + 2 pH, W + 2 pW) image of every block element: (kH * kW, L)."""
    (kh, kw), (dh, dw) = _pair_arg(kernel_size, "kernel_size", owner, 1), _pair_arg(dilation, "dilation", owner, 1)
    (ph, pw), (sh, sw) = _pair_arg(padding, "padding", owner, 0), _pair_arg(stride, "stride", owner, 1)
    hp, wp = height + 2 * ph, width + 2 * pw
    nh, nw = (hp - (kh - 1) * dh - 1) // sh + 1, (wp - (kw - 1) * dw - 1) // sw + 1
    if nh < 1 or nw < 1:
        raise ValueError(f"{owner}: the kernel ({kh}, {kw}) with dilation ({dh}, {dw}) does not fit the padded "
                         f"image ({hp}, {wp})")
    rows = (np.arange(nh) * sh)[None, :, None] + (np.arange(kh) * dh)[:, None, None]  # (kH, nH, 1)
    cols = (np.arange(nw) * sw)[None, None, :] + (np.arange(kw) * dw)[:, None, None]  # (kW, 1, nW)
    flat = rows[:, None, :, :] * wp + cols[None, :, :, :]  # (kH, kW, nH, nW)
    return flat.reshape(kh * kw, nh * nw).astype(np.int32), (ph, pw), (hp, wp)


def unfold(x, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding blocks of the channels-first images ``x`` (N, C, H, W) as columns (im2col, as PyTorch's
    ``unfold``): ``(N, C * kH * kW, L)``, each column a block (channel-major, then kernel row and column), ``L``
    the blocks in row-major order; ``padding`` zeros on each side first."""
    x = _t(x)
    if x.ndim != 4:
        raise ValueError(f"unfold: `x` must have rank 4 (N, C, H, W). Received shape {tuple(x.shape)}")
    n, c, h, w = x.shape
    idx, (ph, pw), (hp, wp) = _block_indices(h, w, kernel_size, dilation, padding, stride, "unfold")
    if ph or pw:
        x = _o.pad(x, [[0, 0], [0, 0], [ph, ph], [pw, pw]])
    blocks = _o.gather(_o.reshape(x, (n, c, hp * wp)), idx, axis=2)  # (N, C, kH * kW, L)
    return _o.reshape(blocks, (n, c * idx.shape[0], idx.shape[1]))


def fold(x, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse arrangement of ``unfold`` (col2im, PyTorch's ``fold``): the columns of ``x`` (N, C * kH * kW,
    L) summed into the images (N, C, H, W) of ``output_size`` at their blocks' positions (overlaps add up), the
    ``padding`` cropped."""
    x = _t(x)
    if x.ndim != 3:
        raise ValueError(f"fold: `x` must be 3D, of shape (N, C * kH * kW, L). Received shape {tuple(x.shape)}")
    h, w = _pair_arg(output_size, "output_size", "fold", 1)
    idx, (ph, pw), (hp, wp) = _block_indices(h, w, kernel_size, dilation, padding, stride, "fold")
    n, ck, length = x.shape
    if ck % idx.shape[0] or length != idx.shape[1]:
        raise ValueError(f"fold: `x` must have shape (N, C * {idx.shape[0]}, {idx.shape[1]}) for this kernel and "
                         f"output_size. Received shape {tuple(x.shape)}")
    c = ck // idx.shape[0]
    # rows (kH * kW * L, N, C) summed into the padded image's positions
    rows = _o.transpose(_o.reshape(x, (n, c, idx.size)), (2, 0, 1))
    image = _o.unsorted_segment_sum(rows, idx.reshape(-1), hp * wp)  # (Hp * Wp, N, C)
    image = _o.reshape(_o.transpose(image, (1, 2, 0)), (n, c, hp, wp))
    return image[:, :, ph:ph + h, pw:pw + w]


__all__ += ["unfold", "fold"]


# ---------------------------------------------------------------------------------------- rearrange / vectorize
def _einops_side(text, owner):
    import re

    groups = []
    for match in re.finditer(r"\(([^()]*)\)|([A-Za-z_]\w*)|(\S)", text):
        inner, name, other = match.groups()
        if other is not None:
            raise ValueError(f"{owner}: the pattern may hold axis names and parenthesized groups of them only. "
                             f"Received {other!r} in {text!r}")
        groups.append(inner.split() if inner is not None else [name])
    names = [n for g in groups for n in g]
    for n in names:
        if not n.isidentifier():
            raise ValueError(f"{owner}: {n!r} in {text!r} is not an axis name")
    if len(set(names)) != len(names):
        raise ValueError(f"{owner}: an axis name appears twice in {text!r}")
    return groups, names


def rearrange(tensor, pattern, **axes_lengths):
    """Reorder, split and merge axes by an einops pattern (``"b (h w) c -> b h w c"``, with ``h=4``): named axes
    and parenthesized groups (split on the left, merged on the right); one unknown length per group is
    inferred. A reshape, a transpose and a reshape, so the tape differentiates it."""
    owner = "rearrange"
    x = _t(tensor)
    if not isinstance(pattern, str) or pattern.count("->") != 1:
        raise ValueError(f"{owner}: `pattern` must be 'input axes -> output axes'. Received: pattern={pattern!r}")
    left, right = pattern.split("->")
    in_groups, in_names = _einops_side(left, owner)
    out_groups, out_names = _einops_side(right, owner)
    if sorted(in_names) != sorted(out_names):
        raise ValueError(f"{owner}: both sides must name the same axes. Received {sorted(in_names)} and "
                         f"{sorted(out_names)}")
    if len(in_groups) != x.ndim:
        raise ValueError(f"{owner}: the input side names {len(in_groups)} axes; the tensor has rank {x.ndim} "
                         f"(shape {tuple(x.shape)})")
    unknown = set(axes_lengths) - set(in_names)
    if unknown:
        raise ValueError(f"{owner}: `axes_lengths` names axes not in the pattern: {sorted(unknown)}")
    lengths = {}
    for group, dim in zip(in_groups, x.shape):
        free = [n for n in group if n not in axes_lengths]
        if len(free) > 1:
            raise ValueError(f"{owner}: the lengths of {free} in group {group} cannot be inferred; give all but "
                             f"one in `axes_lengths`")
        known = int(np.prod([int(axes_lengths[n]) for n in group if n in axes_lengths], dtype=np.int64))
        if free:
            if known == 0 or dim % known:
                raise ValueError(f"{owner}: axis of length {dim} cannot be split into {group} with "
                                 f"{ {n: axes_lengths[n] for n in group if n in axes_lengths} }")
            lengths[free[0]] = dim // known
        elif known != dim:
            raise ValueError(f"{owner}: group {group} has length {known}, the axis {dim}")
        lengths.update({n: int(axes_lengths[n]) for n in group if n in axes_lengths})
    y = _o.reshape(x, [lengths[n] for n in in_names])
    order = [in_names.index(n) for n in out_names]
    if order != list(range(len(order))):
        y = _o.transpose(y, order)
    return _o.reshape(y, [int(np.prod([lengths[n] for n in g], dtype=np.int64)) for g in out_groups])


__all__ += ["rearrange"]


def _parse_signature(signature, owner):
    import re

    text = signature.replace(" ", "")
    match = re.fullmatch(r"((?:\([\w,]*\),?)*)->((?:\([\w,]*\),?)*)", text)
    if not match:
        raise ValueError(f"{owner}: `signature` must look like '(n),(n)->()'. Received: signature={signature!r}")

    def side(s):
        return [tuple(d for d in g.split(",") if d) for g in re.findall(r"\(([\w,]*)\)", s)]

    return side(match.group(1)), side(match.group(2))


def vectorize(pyfunc, *, excluded=None, signature=None):
    """``pyfunc`` applied over the broadcast leading axes of its tensor arguments, one call per element (or, with
    a gufunc ``signature`` such as ``"(n),(n)->()"``, per core sub-array), the results stacked: NumPy's
    ``vectorize``. Positions (ints) or names in ``excluded`` are passed through unchanged, as are keyword
    arguments. The calls are descend ops, so the tape differentiates through them."""
    import functools

    if not callable(pyfunc):
        raise TypeError(f"vectorize: `pyfunc` must be callable. Received: {pyfunc!r}")
    excluded = set(excluded or ())
    in_core, out_core = _parse_signature(signature, "vectorize") if signature is not None else (None, None)

    @functools.wraps(pyfunc)
    def wrapped(*args, **kwargs):
        positions = [i for i in range(len(args)) if i not in excluded and args[i] is not None]
        tensors = [_t(args[i]) for i in positions]
        cores = in_core if in_core is not None else [()] * len(tensors)
        if len(cores) != len(tensors):
            raise ValueError(f"vectorize: the signature {signature!r} takes {len(cores)} arguments; "
                             f"{len(tensors)} were given")
        sizes: dict = {}
        for t, core in zip(tensors, cores):
            if t.ndim < len(core):
                raise ValueError(f"vectorize: an argument of shape {tuple(t.shape)} has fewer axes than its core "
                                 f"dimensions {core}")
            for name, dim in zip(core, t.shape[t.ndim - len(core):]):
                if sizes.setdefault(name, dim) != dim:
                    raise ValueError(f"vectorize: core dimension {name!r} is {sizes[name]} and {dim}")
        batch_shapes = [tuple(t.shape[:t.ndim - len(core)]) for t, core in zip(tensors, cores)]
        shape = np.broadcast_shapes(*batch_shapes) if batch_shapes else ()
        results = []
        for index in np.ndindex(*shape):
            call = list(args)
            for i, t, bs in zip(positions, tensors, batch_shapes):
                sub = tuple(k if d != 1 else 0 for k, d in zip(index[len(index) - len(bs):], bs))
                call[i] = t[sub] if sub else t
            results.append(pyfunc(*call, **kwargs))
        multi = isinstance(results[0], tuple) if results else (out_core is not None and len(out_core) > 1)
        outs = list(zip(*results)) if multi else [results]
        stacked = []
        for k, column in enumerate(outs):
            column = [_t(v) for v in column]
            core_shape = tuple(column[0].shape) if column else tuple(sizes.get(d, 0) for d in out_core[k])
            value = _o.stack(column) if column else Tensor(np.zeros((0,) + core_shape, _backend.floatx()))
            stacked.append(_o.reshape(value, tuple(shape) + core_shape))
        return tuple(stacked) if multi else stacked[0]

    return wrapped


def associative_scan(f, elems, reverse=False, axis=0):
    """The inclusive scan of the associative ``f`` along ``axis`` of ``elems`` (a tensor or a nested structure
    of tensors of one length there): ``out[0] = elems[0]``, ``out[i] = f(out[i - 1], elems[i])`` (from the end
    with ``reverse``: ``out[i] = f(out[i + 1], elems[i])``). ``f`` takes and returns the structure of slices.
    Computed one step after the other (the same values as Keras' parallel scan, to the rounding of ``f``)."""
    from ..framework import nest

    if not callable(f):
        raise TypeError(f"associative_scan: `f` must be callable. Received: {f!r}")
    leaves = [_t(v) for v in nest.flatten(elems)]
    if not leaves:
        raise ValueError("associative_scan: `elems` holds no tensors")
    lengths = set()
    for v in leaves:
        if not -v.ndim <= axis < v.ndim:
            raise ValueError(f"associative_scan: `axis`={axis} is out of range for an element of shape "
                             f"{tuple(v.shape)}")
        lengths.add(v.shape[axis])
    if len(lengths) != 1:
        raise ValueError(f"associative_scan: Array inputs must have the same first dimension (the length along "
                         f"axis {axis}). Received lengths {sorted(lengths)}")
    n = lengths.pop()

    def at(i):
        return nest.pack_like(elems, [_o.gather(v, i, axis=axis % v.ndim) for v in leaves])

    order = range(n - 1, -1, -1) if reverse else range(n)
    carry, outs = None, {}
    for i in order:
        carry = at(i) if carry is None else f(carry, at(i))
        outs[i] = [_t(v) for v in nest.flatten(carry)]
    stacked = [_o.stack([outs[i][k] for i in range(n)], axis=axis % leaves[k].ndim) for k in range(len(leaves))]
    return nest.pack_like(elems, stacked)


def jvp(fun, primals, tangents, has_aux=False):
    """The Jacobian-vector product of ``fun`` at ``primals`` along ``tangents`` (structures alike): returns
    ``(fun(*primals), J @ tangents)`` (and ``fun``'s auxiliary output with ``has_aux``). Computed in reverse
    mode twice: with a watched cotangent ``u``, ``<J^T u, t>`` is linear in ``u`` and its gradient by ``u`` is
    ``J t``; so every op ``fun`` uses needs a differentiable VJP (``NoGradientError`` names one that has none)."""
    from ..framework import GradientTape, nest

    if not callable(fun):
        raise TypeError(f"jvp: `fun` must be callable. Received: {fun!r}")
    if not isinstance(primals, (list, tuple)):
        raise TypeError(f"jvp: `primals` must be a tuple or list of the arguments of `fun`. Received: {primals!r}")
    flat_p = [_t(p) for p in nest.flatten(primals)]
    flat_t = nest.flatten(tangents)
    if len(flat_t) != len(flat_p):
        raise ValueError(f"jvp: `tangents` must have the structure of `primals`: {len(flat_p)} tensors expected, "
                         f"{len(flat_t)} received")
    flat_t = [_o.cast(_t(t), p.dtype.name) for t, p in zip(flat_t, flat_p)]
    for p, t in zip(flat_p, flat_t):
        if tuple(p.shape) != tuple(t.shape):
            raise ValueError(f"jvp: a tangent of shape {tuple(t.shape)} for a primal of shape {tuple(p.shape)}")
    args = nest.pack_like(primals, flat_p)
    with GradientTape(persistent=True) as outer:
        with GradientTape() as inner:
            inner.watch(flat_p)
            result = fun(*args)
        out, aux = (result[0], result[1]) if has_aux else (result, None)
        flat_out = [_t(o) for o in nest.flatten(out)]
        cotangents = [_o.zeros_like(o) for o in flat_out]
        outer.watch(cotangents)
        grads = inner.gradient(flat_out, flat_p, output_gradients=cotangents)
        pairing = [_o.reduce_sum(_o.multiply(g, t)) for g, t in zip(grads, flat_t) if g is not None]
        total = _o.add_n(pairing) if pairing else None
    if total is None:
        flat_jt = [_o.zeros_like(o) for o in flat_out]
    else:
        flat_jt = [g if g is not None else _o.zeros_like(o)
                   for g, o in zip(outer.gradient(total, cotangents), flat_out)]
    del outer
    out_value = nest.pack_like(out, flat_out)
    tangents_out = nest.pack_like(out, flat_jt)
    return (out_value, tangents_out, aux) if has_aux else (out_value, tangents_out)


__all__ += ["vectorize", "associative_scan", "jvp"]
