"""The functions of ``tf.linalg``, as descend ops and compositions of them (public as ``descend.linalg``)."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..framework.tensor import Tensor, convert_to_tensor
from .linear_operators import (LinearOperator, LinearOperatorAdjoint, LinearOperatorBlockDiag,
                              LinearOperatorBlockLowerTriangular, LinearOperatorComposition, LinearOperatorDiag,
                              LinearOperatorFullMatrix, LinearOperatorHouseholder, LinearOperatorIdentity,
                              LinearOperatorInversion, LinearOperatorKronecker, LinearOperatorLowerTriangular,
                              LinearOperatorLowRankUpdate, LinearOperatorPermutation, LinearOperatorScaledIdentity,
                              LinearOperatorToeplitz, LinearOperatorTridiag, LinearOperatorZeros, tridiagonal_dense)
from .linear_operators import place_bands as _place
from ..math import l2_normalize
from ..ops.array_ops import transpose
from ..ops.clip_ops import global_norm
from ..ops import linalg_ops as _lo
from ..ops import linalg_more_ops as _lm
from ..ops.math_ops import add, einsum, log, matmul, multiply, norm, reduce_sum, subtract

__all__ = ["matmul", "einsum", "norm", "global_norm", "l2_normalize", "matrix_transpose", "adjoint", "eye",
           "diag_part", "trace", "tensordot", "inv", "det", "slogdet", "logdet", "solve", "cholesky",
           "cholesky_solve", "triangular_solve", "band_part", "diag", "set_diag", "matvec", "cross",
           "qr", "svd", "eigh", "eigvalsh", "pinv", "lstsq", "matrix_rank", "expm", "lu", "lu_solve",
           "lu_matrix_inverse", "lu_reconstruct", "tensor_diag", "tensor_diag_part", "normalize",
           "tridiagonal_solve", "tridiagonal_matmul", "banded_triangular_solve", "eigh_tridiagonal", "sqrtm", "LinearOperator",
           "LinearOperatorFullMatrix", "LinearOperatorDiag", "LinearOperatorIdentity", "LinearOperatorLowerTriangular",
           "LinearOperatorScaledIdentity", "LinearOperatorZeros", "LinearOperatorComposition", "LinearOperatorAdjoint",
           "LinearOperatorInversion", "LinearOperatorKronecker", "LinearOperatorBlockDiag", "LinearOperatorPermutation",
           "LinearOperatorHouseholder", "LinearOperatorToeplitz", "LinearOperatorTridiag",
           "LinearOperatorLowRankUpdate", "LinearOperatorBlockLowerTriangular"]


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
    from ..ops.array_ops import gather, reshape

    flat = reshape(a, shape=(*a.shape[:-2], n * m))
    k = min(n, m)
    return gather(flat, Tensor(np.arange(k, dtype=np.int64) * (m + 1)), axis=flat.ndim - 1)


def trace(x, name=None):
    """The sum of the main diagonal of the last two axes."""
    return reduce_sum(diag_part(x), axis=-1)


def tensordot(a, b, axes, name=None):
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
    from ..ops.array_ops import expand_dims

    return multiply(expand_dims(d, axis=-2), Tensor(np.eye(n, dtype=d.dtype.dtype)))


def set_diag(input, diagonal, name=None, k=0, align="RIGHT_LEFT"):  # noqa: A002 - TF's name
    """``input`` with its main diagonal replaced by ``diagonal`` (``tf.linalg.set_diag``, ``k=0``)."""
    a, d = convert_to_tensor(input), convert_to_tensor(diagonal)
    if k != 0:
        raise ValueError("set_diag: only the main diagonal (k=0) is supported")
    n, m = a.shape[-2:]
    eye = Tensor(np.eye(n, m, dtype=a.dtype.dtype))
    from ..ops.array_ops import expand_dims

    kept = multiply(a, subtract(1.0, eye))
    k_ = min(n, m)
    full = d  # the diagonal has min(n, m) entries; padded to m columns when n < m
    if k_ < m:
        from ..ops.array_ops import pad

        full = pad(d, [[0, 0]] * (d.ndim - 1) + [[0, m - k_]])
    return add(kept, multiply(expand_dims(full, axis=-2), eye))


def matvec(a, b, transpose_a=False, name=None):
    """``a @ b`` for a (batch of) matrix ``a`` and vector ``b`` (``tf.linalg.matvec``)."""
    from ..ops.array_ops import expand_dims, squeeze

    return squeeze(matmul(a, expand_dims(convert_to_tensor(b), axis=-1), transpose_a=transpose_a), axis=-1)


def cross(a, b, name=None):
    """The cross product of 3-vectors on the last axis (``tf.linalg.cross``)."""
    from ..ops.array_ops import stack, unstack

    a0, a1, a2 = unstack(convert_to_tensor(a), axis=-1)
    b0, b1, b2 = unstack(convert_to_tensor(b), axis=-1)
    return stack([subtract(multiply(a1, b2), multiply(a2, b1)), subtract(multiply(a2, b0), multiply(a0, b2)),
                  subtract(multiply(a0, b1), multiply(a1, b0))], axis=-1)



# ---------------------------------------------------------------- decompositions and their uses (issue 37)
def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's name
    """``(q, r)`` with ``input = q @ r`` (``tf.linalg.qr``); differentiable for ``m >= n`` and
    ``full_matrices=False``, as TF."""
    return _lm.qr(convert_to_tensor(input), full_matrices=bool(full_matrices))


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """``(s, u, v)`` with ``tensor = u @ diag(s) @ v^T`` and ``s`` descending; ``s`` alone without
    ``compute_uv`` (``tf.linalg.svd``)."""
    out = _lm.svd(convert_to_tensor(tensor), full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    return out if compute_uv else out[0]


def eigh(tensor, name=None):
    """``(e, v)``: the ascending eigenvalues and the eigenvectors (columns of ``v``) of each symmetric
    matrix, reading its lower triangle (``tf.linalg.eigh``)."""
    return _lm.self_adjoint_eig(convert_to_tensor(tensor))


def eigvalsh(tensor, name=None):
    """The ascending eigenvalues of each symmetric matrix (``tf.linalg.eigvalsh``)."""
    return eigh(tensor)[0]


def _eps(dtype) -> float:
    return float(np.finfo(dtype.dtype).eps)


def pinv(a, rcond=None, validate_args=False, name=None):
    """The Moore-Penrose pseudo-inverse from the SVD, singular values at most ``rcond * max(s)`` dropped
    (``rcond`` defaults to ``10 * max(m, n) * eps``, as ``tf.linalg.pinv``)."""
    from ..ops.math_ops import divide, greater, reduce_max, where

    a = convert_to_tensor(a)
    if a.ndim < 2:
        raise ValueError(f"pinv: `a` must have rank >= 2. Received shape {tuple(a.shape)}")
    if rcond is None:
        rcond = 10.0 * max(a.shape[-2:]) * _eps(a.dtype)
    s, u, v = svd(a)
    cutoff = multiply(reduce_max(s, axis=-1, keepdims=True), float(rcond))
    keep = greater(s, cutoff)
    safe = where(keep, s, Tensor(np.ones(s.shape, a.dtype.dtype)))
    s_inv = where(keep, divide(1.0, safe), Tensor(np.zeros(s.shape, a.dtype.dtype)))
    from ..ops.array_ops import expand_dims

    return matmul(multiply(v, expand_dims(s_inv, axis=-2)), u, transpose_b=True)


def lstsq(matrix, rhs, l2_regularizer=0.0, fast=True, name=None):
    """The least-squares ``X`` minimising ``||A X - B||^2 + l2 ||X||^2`` (``tf.linalg.lstsq``): with ``fast``
    from the regularised normal equations by Cholesky (``m >= n``: ``(A^T A + l2 I) X = A^T B``; else
    ``X = A^T (A A^T + l2 I)^-1 B``); without, the minimum-norm solution (``pinv(A) B``, ``l2`` must be 0)."""
    a = convert_to_tensor(matrix)
    b = convert_to_tensor(rhs, dtype=a.dtype)
    if a.ndim < 2 or b.ndim < 2 or a.shape[-2] != b.shape[-2]:
        raise ValueError(f"lstsq: `matrix` [..., M, N] and `rhs` [..., M, K] must share M. Received shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    m, n = a.shape[-2:]
    if not fast:
        if float(l2_regularizer) != 0.0:
            raise ValueError(f"lstsq: l2_regularizer must be 0 with fast=False. Received: {l2_regularizer}")
        return matmul(pinv(a), b)
    if m >= n:
        gram = add(matmul(a, a, transpose_a=True), multiply(eye(n, dtype=a.dtype), float(l2_regularizer)))
        return cholesky_solve(cholesky(gram), matmul(a, b, transpose_a=True))
    gram = add(matmul(a, a, transpose_b=True), multiply(eye(m, dtype=a.dtype), float(l2_regularizer)))
    return matmul(a, cholesky_solve(cholesky(gram), b), transpose_a=True)


def matrix_rank(a, tol=None, validate_args=False, name=None):
    """How many singular values exceed ``tol`` (default ``max(s) * max(m, n) * eps``), as int64
    (``tf.linalg.matrix_rank``)."""
    a = convert_to_tensor(a)
    if a.ndim < 2:
        raise ValueError(f"matrix_rank: `a` must have rank >= 2. Received shape {tuple(a.shape)}")
    from ..ops.array_ops import expand_dims
    from ..ops.math_ops import cast, greater, reduce_max

    s = svd(a, compute_uv=False)
    if tol is None:
        tol = multiply(reduce_max(s, axis=-1, keepdims=True), max(a.shape[-2:]) * _eps(a.dtype))
    else:
        tol = expand_dims(convert_to_tensor(tol, dtype=a.dtype), axis=-1)
    return reduce_sum(cast(greater(s, tol), "int64"), axis=-1)


def expm(input, name=None):  # noqa: A002 - TF's name
    """The matrix exponential of each square matrix (``tf.linalg.expm``)."""
    return _lm.matrix_exponential(convert_to_tensor(input))


def lu(input, output_idx_type="int32", name=None):  # noqa: A002 - TF's name
    """``(lower_upper, p)`` with ``input[..., p, :] = L @ U`` (``tf.linalg.lu``); ``L`` has a unit diagonal
    that is not stored."""
    from ..dtypes import as_dtype

    return _lm.lu(convert_to_tensor(input), output_idx_type=as_dtype(output_idx_type).name)


def _lu_factors(lower_upper):
    from ..ops.math_ops import ones_like

    packed = convert_to_tensor(lower_upper)
    n = packed.shape[-1]
    lower = band_part(packed, -1, 0)
    lower = set_diag(lower, ones_like(diag_part(lower)))
    upper = band_part(packed, 0, -1)
    return packed, lower, upper, n


def _perm_matrix(perm, dtype) -> Tensor:
    """The permutation matrices ``P`` with ``(P @ x)[i] = x[perm[i]]`` (a one-hot op: recorded in functions)."""
    from ..ops.array_ops import one_hot

    return one_hot(perm, perm.shape[-1], dtype=dtype)


def lu_solve(lower_upper, perm, rhs, validate_args=False, name=None):
    """``X`` with ``A X = rhs`` from ``lu(A)`` (``tf.linalg.lu_solve``)."""
    packed, lower, upper, n = _lu_factors(lower_upper)
    b = convert_to_tensor(rhs, dtype=packed.dtype)
    p = convert_to_tensor(perm)
    if b.ndim < 2 or b.shape[-2] != n or tuple(p.shape) != tuple(packed.shape[:-1]):
        raise ValueError(f"lu_solve: expected `lower_upper` [..., N, N], `perm` [..., N] and `rhs` [..., N, K]. "
                         f"Received shapes {tuple(packed.shape)}, {tuple(p.shape)} and {tuple(b.shape)}")
    permuted = matmul(_perm_matrix(p, packed.dtype), b)
    y = _lo.matrix_triangular_solve(lower, permuted, lower=True)
    return _lo.matrix_triangular_solve(upper, y, lower=False)


def lu_matrix_inverse(lower_upper, perm, validate_args=False, name=None):
    """The inverse of ``A`` from ``lu(A)`` (``tf.linalg.lu_matrix_inverse``)."""
    packed = convert_to_tensor(lower_upper)
    n = packed.shape[-1]
    return lu_solve(packed, perm, eye(n, batch_shape=packed.shape[:-2], dtype=packed.dtype))


def lu_reconstruct(lower_upper, perm, validate_args=False, name=None):
    """``A`` again from ``lu(A)`` (``tf.linalg.lu_reconstruct``)."""
    packed, lower, upper, n = _lu_factors(lower_upper)
    p = convert_to_tensor(perm)
    if tuple(p.shape) != tuple(packed.shape[:-1]):
        raise ValueError(f"lu_reconstruct: `perm` must have shape {tuple(packed.shape[:-1])}. Received shape "
                         f"{tuple(p.shape)}")
    return matmul(_perm_matrix(p, packed.dtype), matmul(lower, upper), transpose_a=True)


def tensor_diag(diagonal, name=None):
    """The rank-2k tensor with ``diagonal`` (rank k) on its diagonal: ``out[i..., i...] = diagonal[i...]``
    (``tf.linalg.tensor_diag``)."""
    from ..ops.array_ops import reshape

    d = convert_to_tensor(diagonal)
    shape = tuple(d.shape)
    size = int(np.prod(shape))
    return reshape(diag(reshape(d, shape=(size,))), shape=(*shape, *shape))


def tensor_diag_part(input, name=None):  # noqa: A002 - TF's name
    """The diagonal of a rank-2k tensor of shape ``s + s``: ``out[i...] = input[i..., i...]``
    (``tf.linalg.tensor_diag_part``)."""
    from ..ops.array_ops import reshape

    a = convert_to_tensor(input)
    k = a.ndim // 2
    if a.ndim % 2 or tuple(a.shape[:k]) != tuple(a.shape[k:]):
        raise ValueError(f"tensor_diag_part: `input` must have an even rank and shape s + s. Received shape "
                         f"{tuple(a.shape)}")
    size = int(np.prod(a.shape[:k]))
    return reshape(diag_part(reshape(a, shape=(size, size))), shape=tuple(a.shape[:k]))


def normalize(tensor, ord="euclidean", axis=None, name=None):  # noqa: A002 - TF's name
    """``(tensor / norm, norm)`` with the norm kept over ``axis`` (``tf.linalg.normalize``)."""
    from ..ops.math_ops import divide

    t = convert_to_tensor(tensor)
    n = norm(t, ord=ord, axis=axis, keepdims=True)
    return divide(t, n), n


def tridiagonal_solve(diagonals, rhs, diagonals_format="compact", transpose_rhs=False, conjugate_rhs=False,
                      name=None, partial_pivoting=True, perturb_singular=False):
    """``X`` with ``T X = rhs`` for the tridiagonal ``T`` (``tf.linalg.tridiagonal_solve``); ``rhs`` is
    ``[..., M, K]`` (``[..., K, M]`` with ``transpose_rhs``), or ``[..., M]``."""
    t = tridiagonal_dense(diagonals, diagonals_format, "tridiagonal_solve")
    b = convert_to_tensor(rhs, dtype=t.dtype)
    from ..ops.array_ops import expand_dims, squeeze

    vector = b.ndim == t.ndim - 1
    if vector:
        b = expand_dims(b, axis=-1)
    elif transpose_rhs:
        b = matrix_transpose(b)
    x = _lo.matrix_solve(t, b)
    return squeeze(x, axis=-1) if vector else x


def tridiagonal_matmul(diagonals, rhs, diagonals_format="compact", name=None):
    """``T @ rhs`` for the tridiagonal ``T`` (``tf.linalg.tridiagonal_matmul``)."""
    t = tridiagonal_dense(diagonals, diagonals_format, "tridiagonal_matmul")
    return matmul(t, convert_to_tensor(rhs, dtype=t.dtype))


def banded_triangular_solve(bands, rhs, lower=True, adjoint=False, name=None):
    """``X`` with ``T X = rhs`` for the banded triangular ``T`` stored as ``bands`` ``[..., K, M]``
    (``tf.linalg.banded_triangular_solve``): lower, row k holds the k-th subdiagonal padded on the left (the
    diagonal on top); upper, the bottom row is the diagonal and the row ``K - 1 - k`` the k-th
    superdiagonal, padded on the right."""
    b_ = convert_to_tensor(bands)
    if b_.ndim < 2:
        raise ValueError(f"banded_triangular_solve: `bands` must have shape [..., K, M]. Received shape "
                         f"{tuple(b_.shape)}")
    k_rows, m = b_.shape[-2:]
    place = np.zeros((k_rows, m, m, m))
    for k in range(k_rows):
        for i in range(m - k):
            if lower:  # T[i + k, i] = bands[k, i + k]
                place[k, i + k, i + k, i] = 1.0
            else:  # T[i, i + k] = bands[K - 1 - k, i]
                place[k_rows - 1 - k, i, i, i + k] = 1.0
    t = _place(b_, place)
    return _lo.matrix_triangular_solve(t, convert_to_tensor(rhs, dtype=t.dtype), lower=bool(lower),
                                       adjoint=bool(adjoint))


def eigh_tridiagonal(alpha, beta, eigvals_only=True, select="a", select_range=None, tol=None, name=None):
    """The ascending eigenvalues (and, without ``eigvals_only``, the eigenvectors as columns) of the symmetric
    tridiagonal matrix with diagonal ``alpha`` [n] and off-diagonal ``beta`` [n - 1]
    (``tf.linalg.eigh_tridiagonal``); ``select`` 'a' all, 'i' the indices ``select_range[0]..[1]``
    (inclusive), 'v' the eigenvalues in ``(select_range[0], select_range[1]]``. ``tol`` is accepted and not
    needed: the values come from a dense symmetric eigensolver."""
    from ..ops.array_ops import gather

    a, b = convert_to_tensor(alpha), convert_to_tensor(beta)
    if a.ndim != 1 or b.ndim != 1 or b.shape[0] != max(a.shape[0] - 1, 0):
        raise ValueError(f"eigh_tridiagonal: `alpha` must have shape [n] and `beta` [n - 1]. Received shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    if select not in ("a", "i", "v"):
        raise ValueError(f"eigh_tridiagonal: select must be 'a', 'i' or 'v'. Received: {select!r}")
    n = a.shape[0]
    sub = np.zeros((n, n - 1, n, n))  # place[j] puts beta[j] at (j + 1, j) (the lower triangle is read)
    for j in range(n - 1):
        sub[0, j, j + 1, j] = 1.0
    dense = add(diag(a), _place(_row(b), sub[:1]) if n > 1 else multiply(diag(a), 0.0))
    e, v = eigh(dense)
    if select == "a":
        return e if eigvals_only else (e, v)
    if select_range is None or len(select_range) != 2:
        raise ValueError(f"eigh_tridiagonal: select {select!r} needs select_range of two values. Received: "
                         f"{select_range!r}")
    lo, hi = (float(x) for x in np.asarray(convert_to_tensor(select_range).numpy()).reshape(2))
    if select == "i":
        idx = np.arange(int(lo), int(hi) + 1)
    else:
        idx = np.flatnonzero((e.numpy() > lo) & (e.numpy() <= hi))
    e_sel = gather(e, Tensor(idx))
    return e_sel if eigvals_only else (e_sel, gather(v, Tensor(idx), axis=1))


def _row(x):
    """``x`` with a leading axis (``[m] -> [1, m]``), for :func:`_place`."""
    from ..ops.array_ops import expand_dims

    return expand_dims(x, axis=0)


def sqrtm(input, name=None):  # noqa: A002 - TF's name
    """The principal square root of each square matrix (``tf.linalg.sqrtm``): ``X @ X = input``."""
    return _lm.matrix_square_root(convert_to_tensor(input))
