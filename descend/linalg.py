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
from .ops.math_ops import einsum, matmul, multiply, norm, reduce_sum

__all__ = ["matmul", "einsum", "norm", "global_norm", "l2_normalize", "matrix_transpose", "adjoint", "eye",
           "diag_part", "trace", "tensordot"]


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
    # column j of a * I sums to a[..., j, j] (to 0 past the shorter side)
    picked = reduce_sum(multiply(a, Tensor(np.eye(n, m, dtype=a.dtype.dtype))), axis=-2)
    k = min(n, m)
    return picked[..., :k]


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
