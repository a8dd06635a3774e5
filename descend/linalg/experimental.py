"""``descend.linalg.experimental`` (``tf.linalg.experimental``): ``conjugate_gradient``.

Example:
    >>> import descend as ds
    >>> op = ds.linalg.LinearOperatorFullMatrix([[4.0, 1.0], [1.0, 3.0]], is_self_adjoint=True,
    ...                                         is_positive_definite=True)
    >>> [round(v, 4) for v in ds.linalg.experimental.conjugate_gradient(op, [1.0, 2.0]).x.numpy().tolist()]
    [0.0909, 0.6364]
"""

from __future__ import annotations

import collections

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from .linear_operators import LinearOperator
from ..ops.array_ops import expand_dims
from ..ops.math_ops import add, divide, multiply, norm, reduce_sum, subtract

__all__ = ["conjugate_gradient"]

#: the state ``conjugate_gradient`` returns (TF's field names): the iteration count, the solution, the
#: residual, the search direction and ``r . M r``
CGState = collections.namedtuple("CGState", ["i", "x", "r", "p", "gamma"])


def _dot(a, b):
    return reduce_sum(multiply(a, b), axis=-1)


def conjugate_gradient(operator, rhs, preconditioner=None, x=None, tol=1e-5, max_iter=20, name="conjugate_gradient"):
    """Solve ``A x = rhs`` for a symmetric positive-definite ``operator`` by (preconditioned) conjugate
    gradients, as ``tf.linalg.experimental.conjugate_gradient``: iterate while ``i < max_iter`` and some
    residual of the batch has norm above ``tol * |r_0|``; return the final :data:`CGState`."""
    if not isinstance(operator, LinearOperator):
        raise TypeError(f"conjugate_gradient: `operator` must be a descend.linalg.LinearOperator. Received: "
                        f"{type(operator).__name__}")
    if operator.is_self_adjoint is False or operator.is_positive_definite is False:
        raise ValueError("conjugate_gradient: the operator must be self-adjoint and positive definite (its hints "
                         "say it is not)")
    b = convert_to_tensor(rhs, dtype=operator.dtype)
    if x is None:
        shape = np.broadcast_shapes(tuple(operator.shape[:-1]), tuple(b.shape))
        x = Tensor(np.zeros(shape, dtype=b.dtype.dtype))
        r = subtract(b, x)
    else:
        x = convert_to_tensor(x, dtype=operator.dtype)
        r = subtract(b, operator.matvec(x))
    q = r if preconditioner is None else preconditioner.matvec(r)
    p, gamma = q, _dot(r, q)
    limit = float(tol) * norm(b, axis=-1).numpy()  # TF scales tol by |rhs|, even with a starting x
    i = 0
    while i < int(max_iter) and np.any(norm(r, axis=-1).numpy() > limit):
        z = operator.matvec(p)
        alpha = expand_dims(divide(gamma, _dot(p, z)), axis=-1)
        x = add(x, multiply(alpha, p))
        r = subtract(r, multiply(alpha, z))
        q = r if preconditioner is None else preconditioner.matvec(r)
        new_gamma = _dot(r, q)
        p = add(q, multiply(expand_dims(divide(new_gamma, gamma), axis=-1), p))
        gamma = new_gamma
        i += 1
    return CGState(Tensor(np.asarray(i, np.int32)), x, r, p, gamma)
