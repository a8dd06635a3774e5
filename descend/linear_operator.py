"""A small core of ``tf.linalg``'s linear operators: :class:`LinearOperator` (the base, everything derived
from ``to_dense``), :class:`LinearOperatorFullMatrix`, :class:`LinearOperatorDiag`,
:class:`LinearOperatorIdentity` and :class:`LinearOperatorLowerTriangular`, with ``matmul``/``matvec``,
``solve``/``solvevec``, ``to_dense``, ``determinant``, ``log_abs_determinant``, ``diag_part``, ``trace``
and ``adjoint``; the structured ones use their structure (a diagonal scales, a triangle is solved by
substitution). Every result is made of descend ops, so it is differentiable.

Example:
    >>> import descend as ds
    >>> op = ds.linalg.LinearOperatorDiag([2.0, 4.0])
    >>> op.solvevec([2.0, 2.0]).numpy().tolist(), float(op.determinant())
    ([1.0, 0.5], 8.0)
"""

from __future__ import annotations

import numpy as np

from . import backend
from .framework.tensor import Tensor, convert_to_tensor
from .ops import linalg_ops as _lo
from .ops.array_ops import expand_dims, squeeze, transpose
from .ops.math_ops import abs as _abs
from .ops.math_ops import divide, log, matmul, multiply, reduce_prod, reduce_sum

__all__ = ["LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag", "LinearOperatorIdentity",
           "LinearOperatorLowerTriangular"]


def _t(x):
    return transpose(x, perm=(*range(x.ndim - 2), x.ndim - 1, x.ndim - 2))


def _diag_part(a):
    n = min(a.shape[-2:])
    eye = Tensor(np.eye(a.shape[-2], a.shape[-1], dtype=a.dtype.dtype))
    return reduce_sum(multiply(a, eye), axis=-1)[..., :n]


class LinearOperator:
    """A square or rectangular (batch of) linear map(s) ``A`` of shape ``batch_shape + [M, N]``. The base
    class derives every method from :meth:`to_dense`; subclasses give ``_dense`` (and may override the
    methods their structure makes cheaper). The hints ``is_*`` are recorded as TF records them."""

    def __init__(self, dtype, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self._dtype = backend.np_dtype(dtype)
        self.is_non_singular, self.is_self_adjoint = is_non_singular, is_self_adjoint
        self.is_positive_definite, self._is_square = is_positive_definite, is_square
        self.name = name or type(self).__name__

    # -- shape
    @property
    def dtype(self):
        return convert_to_tensor(np.zeros((), self._dtype)).dtype

    @property
    def shape(self) -> tuple:
        return tuple(self._shape())

    @property
    def batch_shape(self) -> tuple:
        return self.shape[:-2]

    @property
    def range_dimension(self) -> int:
        return self.shape[-2]

    @property
    def domain_dimension(self) -> int:
        return self.shape[-1]

    @property
    def is_square(self) -> bool:
        return self.shape[-1] == self.shape[-2] if self._is_square is None else bool(self._is_square)

    def _shape(self):
        return tuple(self._dense().shape)

    def _dense(self):
        raise NotImplementedError(f"{type(self).__name__}: a LinearOperator subclass must define _dense()")

    def _check_square(self, what):
        if not self.is_square:
            raise ValueError(f"{self.name}.{what}: the operator must be square. Received shape {self.shape}")

    # -- the map
    def to_dense(self, name="to_dense"):
        """The operator as a dense ``batch_shape + [M, N]`` tensor."""
        return self._dense()

    def _arg(self, x, adjoint_arg):
        x = convert_to_tensor(x, dtype=self.dtype)
        return _t(x) if adjoint_arg else x

    def _matmul(self, x, adjoint):
        return matmul(self._dense(), x, transpose_a=adjoint)

    def _solve(self, rhs, adjoint):
        return _lo.matrix_solve(self._dense(), rhs, adjoint=adjoint)

    def matmul(self, x, adjoint=False, adjoint_arg=False, name="matmul"):
        """``A @ x`` (``A^T`` with ``adjoint``; ``x^T`` with ``adjoint_arg``); ``x`` another operator gives
        the dense product as a :class:`LinearOperatorFullMatrix`."""
        if isinstance(x, LinearOperator):
            return LinearOperatorFullMatrix(self.matmul(x.to_dense(), adjoint=adjoint, adjoint_arg=adjoint_arg))
        x = self._arg(x, adjoint_arg)
        inner = self.shape[-2] if adjoint else self.shape[-1]
        if x.ndim < 2 or x.shape[-2] != inner:
            raise ValueError(f"{self.name}.matmul: the argument must have {inner} rows. Received shape "
                             f"{tuple(x.shape)}")
        return self._matmul(x, bool(adjoint))

    def __matmul__(self, x):
        return self.matmul(x)

    def matvec(self, x, adjoint=False, name="matvec"):
        """``A @ x`` for vectors ``x`` on the last axis."""
        return squeeze(self.matmul(expand_dims(convert_to_tensor(x, dtype=self.dtype), axis=-1), adjoint=adjoint),
                       axis=-1)

    def solve(self, rhs, adjoint=False, adjoint_arg=False, name="solve"):
        """``X`` with ``A X = rhs`` (``A^T X = rhs`` with ``adjoint``)."""
        self._check_square("solve")
        rhs = self._arg(rhs, adjoint_arg)
        if rhs.ndim < 2 or rhs.shape[-2] != self.shape[-1]:
            raise ValueError(f"{self.name}.solve: the right-hand side must have {self.shape[-1]} rows. Received "
                             f"shape {tuple(rhs.shape)}")
        return self._solve(rhs, bool(adjoint))

    def solvevec(self, rhs, adjoint=False, name="solve"):
        """``x`` with ``A x = rhs`` for vectors on the last axis."""
        return squeeze(self.solve(expand_dims(convert_to_tensor(rhs, dtype=self.dtype), axis=-1),
                                  adjoint=adjoint), axis=-1)

    def determinant(self, name="det"):
        """``det(A)`` of each matrix of the batch."""
        self._check_square("determinant")
        return self._determinant()

    def _determinant(self):
        return _lo.matrix_determinant(self._dense())

    def log_abs_determinant(self, name="log_abs_det"):
        """``log|det(A)|`` of each matrix of the batch."""
        self._check_square("log_abs_determinant")
        return self._log_abs_determinant()

    def _log_abs_determinant(self):
        return _lo.log_abs_determinant(self._dense())

    def diag_part(self, name="diag_part"):
        """The main diagonal of each matrix."""
        return _diag_part(self._dense())

    def trace(self, name="trace"):
        """The sum of the main diagonal."""
        return reduce_sum(self.diag_part(), axis=-1)

    def adjoint(self, name="adjoint"):
        """The transpose, as a :class:`LinearOperatorFullMatrix`."""
        return LinearOperatorFullMatrix(_t(self._dense()), is_non_singular=self.is_non_singular,
                                        is_self_adjoint=self.is_self_adjoint,
                                        is_positive_definite=self.is_positive_definite)

    def __repr__(self):
        return f"<{type(self).__name__} {self.name!r} shape={self.shape} dtype={np.dtype(self._dtype).name}>"


class LinearOperatorFullMatrix(LinearOperator):
    """The operator of a dense ``batch_shape + [M, N]`` float matrix (``tf.linalg.LinearOperatorFullMatrix``)."""

    def __init__(self, matrix, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorFullMatrix"):
        m = convert_to_tensor(matrix)
        if m.ndim < 2 or np.dtype(m.dtype.dtype).kind != "f":
            raise ValueError(f"LinearOperatorFullMatrix: `matrix` must be a float tensor of rank >= 2. Received "
                             f"shape {tuple(m.shape)}, dtype {m.dtype.name}")
        super().__init__(m.dtype.dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square, name)
        self._matrix = m

    def _dense(self):
        return self._matrix


class LinearOperatorDiag(LinearOperator):
    """The diagonal operator of ``diag`` (``batch_shape + [N]``): it scales (``tf.linalg.LinearOperatorDiag``)."""

    def __init__(self, diag, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name="LinearOperatorDiag"):
        d = convert_to_tensor(diag)
        if d.ndim < 1 or np.dtype(d.dtype.dtype).kind != "f":
            raise ValueError(f"LinearOperatorDiag: `diag` must be a float tensor of rank >= 1. Received shape "
                             f"{tuple(d.shape)}, dtype {d.dtype.name}")
        if is_square is False:
            raise ValueError("LinearOperatorDiag: a diagonal operator is always square. Received is_square=False")
        super().__init__(d.dtype.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)
        self._diag = d

    def _shape(self):
        n = self._diag.shape[-1]
        return (*self._diag.shape[:-1], n, n)

    def _dense(self):
        return multiply(expand_dims(self._diag, axis=-1), Tensor(np.eye(self._diag.shape[-1], dtype=self._dtype)))

    def _matmul(self, x, adjoint):
        return multiply(expand_dims(self._diag, axis=-1), x)

    def _solve(self, rhs, adjoint):
        return divide(rhs, expand_dims(self._diag, axis=-1))

    def _determinant(self):
        return reduce_prod(self._diag, axis=-1)

    def _log_abs_determinant(self):
        return reduce_sum(log(_abs(self._diag)), axis=-1)

    def diag_part(self, name="diag_part"):
        return self._diag


class LinearOperatorIdentity(LinearOperator):
    """The identity of ``num_rows`` (repeated over ``batch_shape``) (``tf.linalg.LinearOperatorIdentity``)."""

    def __init__(self, num_rows, batch_shape=None, dtype=None, is_non_singular=True, is_self_adjoint=True,
                 is_positive_definite=True, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorIdentity"):
        if isinstance(num_rows, bool) or int(num_rows) != num_rows or int(num_rows) < 0:
            raise ValueError(f"LinearOperatorIdentity: num_rows must be a non-negative int. Received: {num_rows!r}")
        super().__init__(dtype or "float32", is_non_singular, is_self_adjoint, is_positive_definite, True, name)
        self._n = int(num_rows)
        self._batch = tuple(int(b) for b in (batch_shape or ()))

    def _shape(self):
        return (*self._batch, self._n, self._n)

    def _dense(self):
        return Tensor(np.broadcast_to(np.eye(self._n, dtype=self._dtype), self._shape()).copy())

    def _ones(self):
        return Tensor(np.ones(self._batch + (self._n, 1), dtype=self._dtype))

    def _matmul(self, x, adjoint):
        return multiply(x, self._ones()) if self._batch else x  # broadcast to the batch, as TF

    def _solve(self, rhs, adjoint):
        return self._matmul(rhs, adjoint)

    def _determinant(self):
        return Tensor(np.ones(self._batch, dtype=self._dtype))

    def _log_abs_determinant(self):
        return Tensor(np.zeros(self._batch, dtype=self._dtype))


class LinearOperatorLowerTriangular(LinearOperator):
    """The lower triangle of ``tril`` (the entries above its diagonal are not read): solved by substitution
    (``tf.linalg.LinearOperatorLowerTriangular``)."""

    def __init__(self, tril, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowerTriangular"):
        t = convert_to_tensor(tril)
        if t.ndim < 2 or t.shape[-1] != t.shape[-2] or np.dtype(t.dtype.dtype).kind != "f":
            raise ValueError(f"LinearOperatorLowerTriangular: `tril` must be a float (batch of) square matrix. "
                             f"Received shape {tuple(t.shape)}, dtype {t.dtype.name}")
        if is_square is False:
            raise ValueError("LinearOperatorLowerTriangular: the operator is always square. Received "
                             "is_square=False")
        super().__init__(t.dtype.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)
        n = t.shape[-1]
        self._tril = multiply(t, Tensor(np.tril(np.ones((n, n))).astype(self._dtype)))

    def _dense(self):
        return self._tril

    def _solve(self, rhs, adjoint):
        return _lo.matrix_triangular_solve(self._tril, rhs, lower=True, adjoint=adjoint)

    def _determinant(self):
        return reduce_prod(self.diag_part(), axis=-1)

    def _log_abs_determinant(self):
        return reduce_sum(log(_abs(self.diag_part())), axis=-1)
