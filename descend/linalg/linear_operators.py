"""``tf.linalg``'s linear operators: :class:`LinearOperator` (the base, everything derived
from ``to_dense``), :class:`LinearOperatorFullMatrix`, :class:`LinearOperatorDiag`,
:class:`LinearOperatorIdentity` and :class:`LinearOperatorLowerTriangular`, with ``matmul``/``matvec``,
``solve``/``solvevec``, ``to_dense``, ``determinant``, ``log_abs_determinant``, ``diag_part``, ``trace``
and ``adjoint``; the structured ones use their structure (a diagonal scales, a triangle is solved by
substitution). The operators built from others (``Composition``, ``Kronecker``, ``BlockDiag``, ``Toeplitz``...)
form their dense matrix and use the base methods: correct, not structure-fast. Every result is made of
descend ops, so it is differentiable.

Example:
    >>> import descend as ds
    >>> op = ds.linalg.LinearOperatorDiag([2.0, 4.0])
    >>> op.solvevec([2.0, 2.0]).numpy().tolist(), float(op.determinant())
    ([1.0, 0.5], 8.0)
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import linalg_ops as _lo
from ..ops.array_ops import expand_dims, squeeze, transpose
from ..ops.math_ops import abs as _abs
from ..ops.math_ops import divide, log, matmul, multiply, reduce_prod, reduce_sum

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


# ------------------------------------------------------------- operators built from others (dense compositions)
def _f(x, owner, what, rank=1):
    t = convert_to_tensor(x)
    if t.ndim < rank or np.dtype(t.dtype.dtype).kind != "f":
        raise ValueError(f"{owner}: `{what}` must be a float tensor of rank >= {rank}. Received shape "
                         f"{tuple(t.shape)}, dtype {t.dtype.name}")
    return t


def _operators(operators, owner):
    ops = list(operators)
    if not ops or not all(isinstance(o, LinearOperator) for o in ops):
        raise ValueError(f"{owner}: `operators` must be a non-empty list of LinearOperators. Received: {operators!r}")
    return ops


class LinearOperatorScaledIdentity(LinearOperator):
    """``multiplier * I`` of ``num_rows`` (``multiplier`` of shape ``batch_shape``)
    (``tf.linalg.LinearOperatorScaledIdentity``)."""

    def __init__(self, num_rows, multiplier, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorScaledIdentity"):
        m = _f(multiplier, "LinearOperatorScaledIdentity", "multiplier", rank=0)
        super().__init__(m.dtype.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)
        self._n, self.multiplier = int(num_rows), m

    def _dense(self):
        eye = Tensor(np.eye(self._n, dtype=self._dtype))
        return multiply(expand_dims(expand_dims(self.multiplier, axis=-1), axis=-1), eye)


class LinearOperatorZeros(LinearOperator):
    """The zero map of shape ``batch_shape + [num_rows, num_columns]`` (``tf.linalg.LinearOperatorZeros``)."""

    def __init__(self, num_rows, num_columns=None, batch_shape=None, dtype=None, is_non_singular=False,
                 is_self_adjoint=True, is_positive_definite=False, is_square=True, assert_proper_shapes=False,
                 name="LinearOperatorZeros"):
        super().__init__(dtype or "float32", is_non_singular, is_self_adjoint, is_positive_definite, None, name)
        cols = num_rows if num_columns is None else num_columns
        self._s = (*(int(b) for b in (batch_shape or ())), int(num_rows), int(cols))

    def _shape(self):
        return self._s

    def _dense(self):
        return Tensor(np.zeros(self._s, dtype=self._dtype))


class LinearOperatorComposition(LinearOperator):
    """The product ``operators[0] @ operators[1] @ ...`` (``tf.linalg.LinearOperatorComposition``)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self.operators = _operators(operators, "LinearOperatorComposition")
        super().__init__(self.operators[0]._dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name or "_o_".join(o.name for o in self.operators))

    def _dense(self):
        out = self.operators[-1].to_dense()
        for o in reversed(self.operators[:-1]):
            out = o.matmul(out)
        return out


class LinearOperatorAdjoint(LinearOperator):
    """The transpose of ``operator`` (``tf.linalg.LinearOperatorAdjoint``)."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self.operator = _operators([operator], "LinearOperatorAdjoint")[0]
        super().__init__(operator._dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name or operator.name + "_adjoint")

    def _dense(self):
        return _t(self.operator.to_dense())

    def _solve(self, rhs, adjoint):
        return self.operator.solve(rhs, adjoint=not adjoint)


class LinearOperatorInversion(LinearOperator):
    """The inverse of the square ``operator``: its ``matmul`` is the operator's ``solve``
    (``tf.linalg.LinearOperatorInversion``)."""

    def __init__(self, operator, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self.operator = _operators([operator], "LinearOperatorInversion")[0]
        if not operator.is_square:
            raise ValueError(f"LinearOperatorInversion: the operator must be square. Received shape {operator.shape}")
        super().__init__(operator._dtype, is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name or operator.name + "_inv")

    def _shape(self):
        return self.operator.shape

    def _dense(self):
        n = self.operator.shape[-1]
        eye = Tensor(np.broadcast_to(np.eye(n, dtype=self._dtype), self.operator.shape).copy())
        return self.operator.solve(eye)

    def _matmul(self, x, adjoint):
        return self.operator.solve(x, adjoint=adjoint)

    def _solve(self, rhs, adjoint):
        return self.operator.matmul(rhs, adjoint=adjoint)


class LinearOperatorKronecker(LinearOperator):
    """The Kronecker product ``operators[0] (x) operators[1] (x) ...`` (``tf.linalg.LinearOperatorKronecker``)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name=None):
        self.operators = _operators(operators, "LinearOperatorKronecker")
        super().__init__(self.operators[0]._dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name or "_x_".join(o.name for o in self.operators))

    def _dense(self):
        from ..ops.core_ops import reshape

        out = self.operators[0].to_dense()
        for o in self.operators[1:]:
            b = o.to_dense()
            (m, n), (p, q) = out.shape[-2:], b.shape[-2:]
            prod = multiply(expand_dims(expand_dims(out, axis=-1), axis=-3),
                            expand_dims(expand_dims(b, axis=-3), axis=-2))  # [..., m, p, n, q]
            batch = tuple(prod.shape[:-4])
            out = reshape(prod, shape=(*batch, m * p, n * q))
        return out


class LinearOperatorBlockDiag(LinearOperator):
    """The block-diagonal operator of ``operators`` (``tf.linalg.LinearOperatorBlockDiag``)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=True, name=None):
        self.operators = _operators(operators, "LinearOperatorBlockDiag")
        super().__init__(self.operators[0]._dtype, is_non_singular, is_self_adjoint, is_positive_definite, None,
                         name or "_ds_".join(o.name for o in self.operators))

    def _dense(self):
        from ..ops.array_ops import concat

        denses = [o.to_dense() for o in self.operators]
        batch = np.broadcast_shapes(*(tuple(d.shape[:-2]) for d in denses))
        cols = sum(d.shape[-1] for d in denses)
        rows, start = [], 0
        for d in denses:
            d = multiply(d, Tensor(np.ones((*batch, 1, 1), dtype=self._dtype)))
            n = d.shape[-1]
            parts = [Tensor(np.zeros((*batch, d.shape[-2], start), self._dtype)), d,
                     Tensor(np.zeros((*batch, d.shape[-2], cols - start - n), self._dtype))]
            rows.append(concat(parts, axis=-1))
            start += n
        return concat(rows, axis=-2)


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix of ``perm`` (``[..., N]`` ints): ``(P x)[i] = x[perm[i]]``
    (``tf.linalg.LinearOperatorPermutation``)."""

    def __init__(self, perm, dtype="float32", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        p = convert_to_tensor(perm)
        n = p.shape[-1] if p.ndim else 0
        if p.ndim < 1 or np.dtype(p.dtype.dtype).kind not in "iu" or \
                (np.sort(p.numpy(), axis=-1) != np.arange(n)).any():
            raise ValueError(f"LinearOperatorPermutation: `perm` must hold permutations of 0..N-1 on its last "
                             f"axis. Received: {p.numpy().tolist()}")
        super().__init__(dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)
        self.perm = p

    def _dense(self):
        from ..ops.array_ops import one_hot

        return one_hot(self.perm, self.perm.shape[-1], dtype=self._dtype)


class LinearOperatorHouseholder(LinearOperator):
    """The reflection ``I - 2 v v^T / (v^T v)`` through the hyperplane orthogonal to ``reflection_axis``
    (``tf.linalg.LinearOperatorHouseholder``)."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorHouseholder"):
        v = _f(reflection_axis, "LinearOperatorHouseholder", "reflection_axis")
        super().__init__(v.dtype.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)
        self.reflection_axis = v

    def _dense(self):
        v = self.reflection_axis
        outer = multiply(expand_dims(v, axis=-1), expand_dims(v, axis=-2))
        vv = expand_dims(expand_dims(reduce_sum(multiply(v, v), axis=-1), axis=-1), axis=-1)
        eye = Tensor(np.eye(v.shape[-1], dtype=self._dtype))
        return eye - multiply(divide(outer, vv), 2.0)


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column ``col`` and first row ``row`` (``row[0]`` is not read: the corner
    is ``col[0]``) (``tf.linalg.LinearOperatorToeplitz``)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorToeplitz"):
        c, r = _f(col, "LinearOperatorToeplitz", "col"), _f(row, "LinearOperatorToeplitz", "row")
        if c.shape[-1] != r.shape[-1]:
            raise ValueError(f"LinearOperatorToeplitz: `col` and `row` must have the same length. Received shapes "
                             f"{tuple(c.shape)} and {tuple(r.shape)}")
        super().__init__(c.dtype.dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)
        self.col, self.row = c, r

    def _dense(self):
        from ..ops.array_ops import concat

        n = self.col.shape[-1]
        # entry (i, j) is col[i - j] below the diagonal, row[j - i] above: one matmul with a 0/1 placement
        both = concat([self.col, self.row[..., 1:]], axis=-1)  # [..., 2n - 1]
        place = np.zeros((2 * n - 1, n * n), dtype=self._dtype)
        for i in range(n):
            for j in range(n):
                place[i - j if i >= j else n - 1 + j - i, i * n + j] = 1.0
        from ..ops.core_ops import reshape

        batch = tuple(both.shape[:-1])
        flat = matmul(reshape(both, shape=(int(np.prod(batch)), 2 * n - 1)), Tensor(place))
        return reshape(flat, shape=(*batch, n, n))


class LinearOperatorTridiag(LinearOperator):
    """The tridiagonal operator of ``diagonals`` in the formats of ``tf.linalg.tridiagonal_solve``
    (``tf.linalg.LinearOperatorTridiag``)."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorTridiag"):
        self._dense_matrix = tridiagonal_dense(diagonals, diagonals_format, "LinearOperatorTridiag")
        super().__init__(self._dense_matrix.dtype.dtype, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name)
        self.diagonals, self.diagonals_format = diagonals, diagonals_format

    def _dense(self):
        return self._dense_matrix


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + U diag(diag_update) V^T`` (``V = U`` by default, ``diag_update`` ones by default)
    (``tf.linalg.LinearOperatorLowRankUpdate``)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorLowRankUpdate"):
        self.base_operator = _operators([base_operator], "LinearOperatorLowRankUpdate")[0]
        self.u = _f(u, "LinearOperatorLowRankUpdate", "u", rank=2)
        self.v = self.u if v is None else _f(v, "LinearOperatorLowRankUpdate", "v", rank=2)
        self.diag_update = None if diag_update is None else _f(diag_update, "LinearOperatorLowRankUpdate",
                                                                 "diag_update")
        super().__init__(base_operator._dtype, is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name)

    def _dense(self):
        u = self.u if self.diag_update is None else multiply(self.u, expand_dims(self.diag_update, axis=-2))
        from ..ops.math_ops import add

        return add(self.base_operator.to_dense(), matmul(u, self.v, transpose_b=True))


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """The block lower-triangular operator of ``operators``: row ``i`` lists its ``i + 1`` blocks, the last on
    the diagonal (``tf.linalg.LinearOperatorBlockLowerTriangular``)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorBlockLowerTriangular"):
        rows = [list(r) for r in operators]
        if not rows or any(len(r) != i + 1 for i, r in enumerate(rows)):
            raise ValueError("LinearOperatorBlockLowerTriangular: row i of `operators` must hold i + 1 operators. "
                             f"Received row lengths {[len(r) for r in rows]}")
        self.operators = [_operators(r, "LinearOperatorBlockLowerTriangular") for r in rows]
        super().__init__(rows[0][0]._dtype, is_non_singular, is_self_adjoint, is_positive_definite, True, name)

    def _dense(self):
        from ..ops.array_ops import concat

        sizes = [r[-1].shape[-1] for r in self.operators]
        dense_rows = []
        for i, r in enumerate(self.operators):
            parts = [o.to_dense() for o in r]
            batch = np.broadcast_shapes(*(tuple(p.shape[:-2]) for p in parts))
            parts = [multiply(p, Tensor(np.ones((*batch, 1, 1), self._dtype))) for p in parts]
            rest = sum(sizes[i + 1:])
            if rest:
                parts.append(Tensor(np.zeros((*batch, sizes[i], rest), self._dtype)))
            dense_rows.append(concat(parts, axis=-1))
        return concat(dense_rows, axis=-2)


__all__ += ["LinearOperatorScaledIdentity", "LinearOperatorZeros", "LinearOperatorComposition",
            "LinearOperatorAdjoint", "LinearOperatorInversion", "LinearOperatorKronecker", "LinearOperatorBlockDiag",
            "LinearOperatorPermutation", "LinearOperatorHouseholder", "LinearOperatorToeplitz",
            "LinearOperatorTridiag", "LinearOperatorLowRankUpdate", "LinearOperatorBlockLowerTriangular"]


def tridiagonal_dense(diagonals, diagonals_format, owner):
    """The dense ``[..., M, M]`` matrix of ``diagonals`` in TF's three formats ('compact': ``[..., 3, M]``
    rows superdiagonal (last entry ignored), diagonal, subdiagonal (first entry ignored); 'sequence': those
    three tensors; 'matrix': the matrix itself)."""
    from ..ops.array_ops import stack

    if diagonals_format == "matrix":
        return convert_to_tensor(diagonals)
    if diagonals_format == "sequence":
        if len(diagonals) != 3:
            raise ValueError(f"{owner}: 'sequence' diagonals must be three tensors. Received {len(diagonals)}")
        diagonals = stack([convert_to_tensor(d) for d in diagonals], axis=-2)
    elif diagonals_format != "compact":
        raise ValueError(f"{owner}: diagonals_format must be 'compact', 'sequence' or 'matrix'. Received: "
                         f"{diagonals_format!r}")
    d = convert_to_tensor(diagonals)
    if d.ndim < 2 or d.shape[-2] != 3:
        raise ValueError(f"{owner}: 'compact' diagonals must have shape [..., 3, M]. Received shape "
                         f"{tuple(d.shape)}")
    m = d.shape[-1]
    place = np.zeros((3, m, m, m))  # place[row, j, r, c]: entry j of diagonal row goes to (r, c)
    for j in range(m):
        if j + 1 < m:
            place[0, j, j, j + 1] = 1.0
            place[2, j + 1, j + 1, j] = 1.0
        place[1, j, j, j] = 1.0
    return place_bands(d, place)


def place_bands(d, place: np.ndarray):
    """``out[..., r, c] = sum_{k, j} d[..., k, j] place[k, j, r, c]``: the bands of ``d`` put into dense
    matrices (a matmul with a 0/1 matrix, so the gradient flows back to the bands)."""
    from ..ops.array_ops import reshape

    k, m = d.shape[-2:]
    size = place.shape[-1]
    batch = tuple(d.shape[:-2])
    flat = reshape(d, shape=(int(np.prod(batch)), k * m))
    dense = matmul(flat, Tensor(place.reshape(k * m, size * size).astype(d.dtype.dtype)))
    return reshape(dense, shape=(*batch, size, size))
