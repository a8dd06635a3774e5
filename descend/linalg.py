"""``descend.linalg``: the common ``tf.linalg`` subset, as descend ops and compositions of them.

Example:
    >>> import descend as ds
    >>> a = ds.constant([[1.0, 2.0], [3.0, 4.0]])
    >>> ds.linalg.matmul(a, ds.linalg.eye(2)).numpy().tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> float(ds.linalg.trace(a)), ds.linalg.matrix_transpose(a).numpy().tolist()
    (5.0, [[1.0, 3.0], [2.0, 4.0]])
"""

from __future__ import annotations

import numpy as np

from . import backend
from .framework.tensor import Tensor, convert_to_tensor
from .math import l2_normalize
from .ops.array_ops import transpose
from .ops.clip_ops import global_norm
from .ops import linalg_ops as _lo
from .ops.math_ops import add, einsum, log, matmul, multiply, norm, reduce_sum, subtract

__all__ = ["matmul", "einsum", "norm", "global_norm", "l2_normalize", "matrix_transpose", "adjoint", "eye",
           "diag_part", "trace", "tensordot", "inv", "det", "slogdet", "logdet", "solve", "cholesky",
           "cholesky_solve", "triangular_solve", "band_part", "diag", "set_diag", "matvec", "cross"]


def matrix_transpose(a, name=None):
    """Swap the last two axes (``tf.linalg.matrix_transpose``)."""
    a = convert_to_tensor(a)
    if a.ndim < 2:
        raise ValueError(f"matrix_transpose: `a` must have rank >= 2. Received shape {tuple(a.shape)}")
    return transpose(a, perm=(*range(a.ndim - 2), a.ndim - 1, a.ndim - 2))


adjoint = matrix_transpose  # real dtypes only


def eye(num_rows: int, num_columns: int | None = None, batch_shape=None, dtype="float32", name=None) -> Tensor:
    """An identity matrix (ones on the main diagonal), optionally repeated over ``batch_shape``."""
    m = np.eye(int(num_rows), int(num_rows if num_columns is None else num_columns), dtype=backend.np_dtype(dtype))
    if batch_shape is not None:
        m = np.broadcast_to(m, (*tuple(int(b) for b in batch_shape), *m.shape)).copy()
    return Tensor(m)


def diag_part(input, name=None):  # noqa: A002 - TF's name
    """The main diagonal of the last two axes (square or not)."""
    a = convert_to_tensor(input)
    if a.ndim < 2:
        raise ValueError(f"diag_part: `input` must have rank >= 2. Received shape {tuple(a.shape)}")
    n, m = a.shape[-2:]
    # entries (j, j) of the flattened last two axes: a gather, so an inf or NaN elsewhere stays there
    from .ops.array_ops import gather, reshape

    flat = reshape(a, shape=(*a.shape[:-2], n * m))
    k = min(n, m)
    return gather(flat, Tensor(np.arange(k, dtype=np.int64) * (m + 1)), axis=flat.ndim - 1)


def trace(x, name=None):
    """The sum of the main diagonal of the last two axes."""
    return reduce_sum(diag_part(x), axis=-1)


def tensordot(a, b, axes):
    """``tf.tensordot``: contract ``axes`` (an int N: the last N of ``a`` with the first N of ``b``,
    or a pair of axis lists)."""
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    letters = "abcdefghijklmnopqrstuvwxyz"
    if isinstance(axes, (int, np.integer)):
        axes_a, axes_b = list(range(a.ndim - int(axes), a.ndim)), list(range(int(axes)))
    else:
        axes_a, axes_b = ([x] if isinstance(x, (int, np.integer)) else list(x) for x in axes)
    axes_a = [x % a.ndim for x in axes_a]
    axes_b = [x % b.ndim for x in axes_b]
    if len(axes_a) != len(axes_b):
        raise ValueError(f"tensordot: the axes lists must have the same length. Received: {axes!r}")
    sa = list(letters[:a.ndim])
    sb = list(letters[a.ndim:a.ndim + b.ndim])
    for i, j in zip(axes_a, axes_b):
        sb[j] = sa[i]
    out = [c for k, c in enumerate(sa) if k not in axes_a] + [c for k, c in enumerate(sb) if k not in axes_b]
    return einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)


def inv(input, adjoint=False, name=None):  # noqa: A002 - TF's name
    """The inverse of each square matrix of the last two axes (``tf.linalg.inv``)."""
    a = convert_to_tensor(input)
    return _lo.matrix_inverse(matrix_transpose(a) if adjoint else a)


def det(input, name=None):  # noqa: A002 - TF's name
    """The determinant of each square matrix (``tf.linalg.det``)."""
    return _lo.matrix_determinant(convert_to_tensor(input))


def slogdet(input, name=None):  # noqa: A002 - TF's name
    """``(sign, log|det|)`` of each square matrix (``tf.linalg.slogdet``); the sign has no gradient."""
    a = convert_to_tensor(input)
    s = np.asarray(np.linalg.slogdet(a.numpy().astype(np.float64))[0]).astype(a.dtype.dtype)
    return Tensor(s), _lo.log_abs_determinant(a)


def logdet(matrix, name=None):
    """``log(det(A))`` of each symmetric positive-definite matrix, from its Cholesky factor: ``2 * sum(log(
    diag(L)))`` (``tf.linalg.logdet``)."""
    chol = _lo.cholesky(convert_to_tensor(matrix))
    return multiply(reduce_sum(log(diag_part(chol)), axis=-1), 2.0)


def solve(matrix, rhs, adjoint=False, name=None):
    """``X`` with ``A X = B`` for each matrix of the batch (``tf.linalg.solve``; ``A^T X = B`` with
    ``adjoint``)."""
    a, b = convert_to_tensor(matrix), convert_to_tensor(rhs)
    return _lo.matrix_solve(a, convert_to_tensor(b, dtype=a.dtype), adjoint=bool(adjoint))


def cholesky(input, name=None):  # noqa: A002 - TF's name
    """The lower Cholesky factor of each symmetric positive-definite matrix (``tf.linalg.cholesky``)."""
    return _lo.cholesky(convert_to_tensor(input))


def cholesky_solve(chol, rhs, name=None):
    """``X`` with ``A X = B`` given ``chol``, the Cholesky factor of ``A`` (``tf.linalg.cholesky_solve``)."""
    y = _lo.matrix_triangular_solve(chol, rhs, lower=True)
    return _lo.matrix_triangular_solve(chol, y, lower=True, adjoint=True)


def triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """``X`` with ``T X = B`` for the lower (or upper) triangle ``T`` of ``matrix``
    (``tf.linalg.triangular_solve``)."""
    a = convert_to_tensor(matrix)
    return _lo.matrix_triangular_solve(a, convert_to_tensor(rhs, dtype=a.dtype), lower=bool(lower),
                                       adjoint=bool(adjoint))


def band_part(input, num_lower, num_upper, name=None):  # noqa: A002 - TF's name
    """``input`` with the entries outside the band zeroed: below the diagonal keep ``num_lower`` diagonals,
    above keep ``num_upper`` (-1: all), as ``tf.linalg.band_part``."""
    a = convert_to_tensor(input)
    n, m = a.shape[-2:]
    i, j = np.arange(n)[:, None], np.arange(m)[None, :]
    keep = ((num_lower < 0) | (i - j <= num_lower)) & ((num_upper < 0) | (j - i <= num_upper))
    return multiply(a, Tensor(keep.astype(a.dtype.dtype)))


def diag(diagonal, name=None, k=0, num_rows=-1, num_cols=-1, padding_value=0):
    """Matrices with ``diagonal`` (its last axis) on the main diagonal (``tf.linalg.diag``, ``k=0``)."""
    d = convert_to_tensor(diagonal)
    if k != 0 or num_rows != -1 or num_cols != -1 or padding_value != 0:
        raise ValueError("diag: only the main diagonal of a square matrix (k=0, no num_rows/num_cols/padding) "
                         "is supported")
    n = d.shape[-1]
    from .ops.array_ops import expand_dims

    return multiply(expand_dims(d, axis=-2), Tensor(np.eye(n, dtype=d.dtype.dtype)))


def set_diag(input, diagonal, name=None, k=0, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """``input`` with its main diagonal replaced by ``diagonal`` (``tf.linalg.set_diag``, ``k=0``)."""
    a, d = convert_to_tensor(input), convert_to_tensor(diagonal)
    if k != 0:
        raise ValueError("set_diag: only the main diagonal (k=0) is supported")
    n, m = a.shape[-2:]
    eye = Tensor(np.eye(n, m, dtype=a.dtype.dtype))
    from .ops.array_ops import expand_dims

    kept = multiply(a, subtract(1.0, eye))
    k_ = min(n, m)
    full = d  # the diagonal has min(n, m) entries; padded to m columns when n < m
    if k_ < m:
        from .ops.array_ops import pad

        full = pad(d, [[0, 0]] * (d.ndim - 1) + [[0, m - k_]])
    return add(kept, multiply(expand_dims(full, axis=-2), eye))


def matvec(a, b, transpose_a=False, name=None):
    """``a @ b`` for a (batch of) matrix ``a`` and vector ``b`` (``tf.linalg.matvec``)."""
    from .ops.array_ops import expand_dims, squeeze

    return squeeze(matmul(a, expand_dims(convert_to_tensor(b), axis=-1), transpose_a=transpose_a), axis=-1)


def cross(a, b, name=None):
    """The cross product of 3-vectors on the last axis (``tf.linalg.cross``)."""
    from .ops.array_ops import stack, unstack

    a0, a1, a2 = unstack(convert_to_tensor(a), axis=-1)
    b0, b1, b2 = unstack(convert_to_tensor(b), axis=-1)
    return stack([subtract(multiply(a1, b2), multiply(a2, b1)), subtract(multiply(a2, b0), multiply(a0, b2)),
                  subtract(multiply(a0, b1), multiply(a1, b0))], axis=-1)

