"""The ops every VJP leans on: ``reshape``, ``broadcast_to``, ``reduce_sum`` and ``unbroadcast``.

They live below :mod:`~descend.ops.array_ops` and :mod:`~descend.ops.math_ops`
because each one's gradient is written with the others (the gradient of a
broadcast is a sum, the gradient of a sum is a broadcast), and both modules
need them: ``array_ops`` imports this module, ``math_ops`` imports both, and
nothing imports upwards. ``array_ops`` and ``math_ops`` export these ops under
their usual names.

Example:
    >>> import descend as ds
    >>> from descend.ops.core_ops import unbroadcast
    >>> unbroadcast(ds.ones((2, 3)), ds.zeros((1, 3))).numpy()
    array([[2., 2., 2.]], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.op import defop
from ._util import normalize_axis
from .row_reduce import reduce_last

__all__ = ["reshape", "broadcast_to", "reduce_sum", "unbroadcast"]


# ---------------------------------------------------------------- shapes
@defop(view=True)
def reshape(tensor, shape=None):
    """``tensor`` with a new shape (one entry may be -1)."""
    shape = tuple(int(s) for s in np.asarray(shape).reshape(-1)) if shape is not None else ()
    try:
        return np.reshape(tensor, shape)
    except ValueError:
        raise InvalidArgumentError(
            f"reshape: cannot reshape a tensor of shape {tensor.shape} ({tensor.size} elements) to {shape}"
        ) from None


@reshape.defvjp
def _(g, ans, x, shape=None):
    return reshape(g, shape=x.shape)


@defop(view=True)
def broadcast_to(input, shape=None):  # noqa: A002
    """Broadcast ``input`` to ``shape`` (NumPy rules)."""
    try:
        return np.broadcast_to(input, tuple(int(s) for s in shape))
    except ValueError:
        raise InvalidArgumentError(f"broadcast_to: cannot broadcast shape {input.shape} to {tuple(shape)}") from None


@broadcast_to.defvjp
def _(g, ans, x, shape=None):
    return unbroadcast(g, x)


# ---------------------------------------------------------------- sums
def _keep_shape(shape, axes):
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


def _grad_to_input(g, x, axis, keepdims):
    """Broadcast a reduction's upstream gradient back to the input's shape."""
    axes = normalize_axis(axis, x.ndim)
    if not keepdims:
        g = reshape(g, shape=_keep_shape(x.shape, axes))
    return broadcast_to(g, shape=x.shape)


@defop
def reduce_sum(input_tensor, axis=None, keepdims=False):
    """Sum over ``axis`` (all axes by default), in the input's dtype (an int32 sum is int32, as TF)."""
    dtype = input_tensor.dtype if input_tensor.dtype.kind in "iu" else None  # NumPy would widen to int64
    axes = normalize_axis(axis, input_tensor.ndim)
    if dtype is None and len(axes) == 1 and axes[0] == input_tensor.ndim - 1:
        return reduce_last(np.add, input_tensor, keepdims)
    return np.sum(input_tensor, axis=axes, keepdims=keepdims, dtype=dtype)


@reduce_sum.defvjp
def _(g, ans, x, axis=None, keepdims=False):
    return _grad_to_input(g, x, axis, keepdims)


def unbroadcast(g, x):
    """Sum ``g`` over the axes NumPy broadcasting added or stretched, to ``x``'s shape."""
    shape = x.shape
    gshape = g.shape
    if gshape == shape:
        return g
    lead = len(gshape) - len(shape)
    axes = tuple(range(lead)) + tuple(
        i + lead for i, s in enumerate(shape) if s == 1 and gshape[i + lead] != 1
    )
    if axes:
        g = reduce_sum(g, axis=axes)
    return g if g.shape == shape else reshape(g, shape=shape)
