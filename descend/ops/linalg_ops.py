"""Dense linear algebra on the last two axes (batched over the leading ones): ``matrix_inverse``,
``matrix_determinant``, ``log_abs_determinant``, ``matrix_solve``, ``cholesky`` and
``matrix_triangular_solve``, each with its VJP written with descend ops (so differentiable again).

The VJPs are the standard matrix-calculus ones (Giles, "Collected matrix derivative results", 2008), in
TensorFlow's form:

* ``C = A^-1``: ``dA = -C^T g C^T``.
* ``d = det(A)``: ``dA = g d A^-T``; ``log|det A|``: ``dA = g A^-T``.
* ``X = A^-1 B``: ``dB = A^-T g``, ``dA = -dB X^T`` (with ``adjoint``: ``X = A^-T B``, ``dB = A^-1 g``,
  ``dA = -X dB^T``).
* ``L = cholesky(A)``: ``P = tril(L^T g)`` with its diagonal halved, ``S = L^-T P L^-1``,
  ``dA = (S + S^T) / 2`` (the gradient of a function of the symmetric ``A``).
* triangular solves as ``solve``, the gradient of ``A`` kept to the triangle the solve reads.
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.op import defop
from ..framework.tensor import Tensor
from .array_ops import expand_dims, transpose
from .math_ops import add, matmul, multiply, negative

__all__ = ["matrix_inverse", "matrix_determinant", "log_abs_determinant", "matrix_solve", "cholesky",
           "matrix_triangular_solve"]


def _square(a: np.ndarray, owner: str) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise InvalidArgumentError(f"{owner}: the input must be a (batch of) square matrices. Received shape "
                                   f"{a.shape}")
    if a.dtype.kind != "f":
        raise TypeError(f"{owner}: the input must be float16, float32 or float64. Received: dtype {a.dtype.name}")


def _t(x):
    """Swap the last two axes."""
    return transpose(x, perm=(*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def _compute(a: np.ndarray) -> np.ndarray:
    """float16 is computed in float32 (LAPACK has no half precision)."""
    return a.astype(np.float32) if a.dtype == np.float16 else a


def _singular(owner: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"{owner}: Input is not invertible.")


@defop
def matrix_inverse(input):  # noqa: A002 - TF's name
    """The inverse of each square matrix (``tf.linalg.inv``); a singular matrix raises
    ``InvalidArgumentError``."""
    _square(input, "matrix_inverse")
    try:
        return np.linalg.inv(_compute(input)).astype(input.dtype)
    except np.linalg.LinAlgError:
        raise _singular("matrix_inverse") from None


@matrix_inverse.defvjp
def _(g, ans, a):
    # dA = -C^T g C^T
    return negative(matmul(matmul(ans, g, transpose_a=True), ans, transpose_b=True))


@defop
def matrix_determinant(input):  # noqa: A002 - TF's name
    """The determinant of each square matrix (``tf.linalg.det``)."""
    _square(input, "matrix_determinant")
    return np.asarray(np.linalg.det(_compute(input))).astype(input.dtype)


@matrix_determinant.defvjp
def _(g, ans, a):
    # dA = g det(A) A^-T
    scale = expand_dims(expand_dims(multiply(g, ans), axis=-1), axis=-1)
    return multiply(scale, _t(matrix_inverse(a)))


@defop
def log_abs_determinant(input):  # noqa: A002 - TF's name
    """``log|det A|`` of each square matrix, without overflow (the second output of ``tf.linalg.slogdet``)."""
    _square(input, "log_abs_determinant")
    return np.asarray(np.linalg.slogdet(_compute(input))[1]).astype(input.dtype)


@log_abs_determinant.defvjp
def _(g, ans, a):
    # dA = g A^-T
    return multiply(expand_dims(expand_dims(g, axis=-1), axis=-1), _t(matrix_inverse(a)))


@defop(same_dtype=(0, 1))
def matrix_solve(matrix, rhs, adjoint=False):
    """``X`` with ``A X = B`` (``A^T X = B`` with ``adjoint``), for each matrix of the batch
    (``tf.linalg.solve``)."""
    _square(matrix, "matrix_solve")
    if rhs.ndim < 2 or rhs.shape[-2] != matrix.shape[-1]:
        raise InvalidArgumentError(f"matrix_solve: the right-hand side must have {matrix.shape[-1]} rows. Received "
                                   f"shapes {matrix.shape} and {rhs.shape}")
    a = np.swapaxes(matrix, -1, -2) if adjoint else matrix
    try:
        return np.linalg.solve(_compute(a), _compute(rhs)).astype(rhs.dtype)
    except np.linalg.LinAlgError:
        raise _singular("matrix_solve") from None


def _solve_grads(g, ans, matrix, rhs, adjoint=False):
    grad_rhs = matrix_solve(matrix, g, adjoint=not adjoint)
    if adjoint:
        grad_matrix = negative(matmul(ans, grad_rhs, transpose_b=True))  # -X dB^T
    else:
        grad_matrix = negative(matmul(grad_rhs, ans, transpose_b=True))  # -dB X^T
    return grad_matrix, grad_rhs


matrix_solve.defvjp(_solve_grads)


@defop
def cholesky(input):  # noqa: A002 - TF's name
    """The lower-triangular ``L`` with ``L L^T = A`` of each symmetric positive-definite matrix (only the
    lower triangle of ``A`` is read, as TF); ``InvalidArgumentError`` if ``A`` is not positive definite."""
    _square(input, "cholesky")
    lower = np.tril(_compute(input))
    symmetric = lower + np.swapaxes(np.tril(lower, -1), -1, -2)
    try:
        return np.linalg.cholesky(symmetric).astype(input.dtype)
    except np.linalg.LinAlgError:
        raise InvalidArgumentError("cholesky: Cholesky decomposition was not successful. The input might not be "
                                   "valid.") from None


@cholesky.defvjp
def _(g, ans, a):
    n = ans.shape[-1]
    eye = Tensor(np.eye(n, dtype=ans.dtype.dtype))
    l_inv = matrix_triangular_solve(ans, eye, lower=True)
    middle = matmul(ans, g, transpose_a=True)  # L^T g
    # keep the lower triangle, the diagonal halved
    mask = Tensor((np.tril(np.ones((n, n)), -1) + 0.5 * np.eye(n)).astype(ans.dtype.dtype))
    middle = multiply(middle, mask)
    s = matmul(matmul(l_inv, middle, transpose_a=True), l_inv)
    return multiply(add(s, _t(s)), 0.5)


@defop(same_dtype=(0, 1))
def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False):
    """``X`` with ``T X = B`` for the lower (``lower=True``) or upper triangle ``T`` of ``matrix``
    (``T^T X = B`` with ``adjoint``); the other triangle is not read (``tf.linalg.triangular_solve``)."""
    _square(matrix, "matrix_triangular_solve")
    if rhs.ndim < 2 or rhs.shape[-2] != matrix.shape[-1]:
        raise InvalidArgumentError(f"matrix_triangular_solve: the right-hand side must have {matrix.shape[-1]} "
                                   f"rows. Received shapes {matrix.shape} and {rhs.shape}")
    t = np.tril(_compute(matrix)) if lower else np.triu(_compute(matrix))
    if adjoint:
        t = np.swapaxes(t, -1, -2)
    try:
        return np.linalg.solve(t, _compute(rhs)).astype(rhs.dtype)
    except np.linalg.LinAlgError:
        raise _singular("matrix_triangular_solve") from None


def _triangular_grads(g, ans, matrix, rhs, lower=True, adjoint=False):
    grad_rhs = matrix_triangular_solve(matrix, g, lower=lower, adjoint=not adjoint)
    if adjoint:
        grad_full = negative(matmul(ans, grad_rhs, transpose_b=True))
    else:
        grad_full = negative(matmul(grad_rhs, ans, transpose_b=True))
    n = matrix.shape[-1]
    keep = np.tril(np.ones((n, n))) if lower else np.triu(np.ones((n, n)))
    return multiply(grad_full, Tensor(keep.astype(matrix.dtype.dtype))), grad_rhs


matrix_triangular_solve.defvjp(_triangular_grads)
