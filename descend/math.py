"""``descend.math``: the elementwise, reduction and matrix ops under their ``tf.math`` names.

Every name is the op itself (``ds.math.reduce_sum is ds.reduce_sum``); the few
composites (``reduce_variance``, ``reduce_std``, ``l2_normalize``) are built
from those ops, so the tape differentiates them.

Example:
    >>> import descend as ds
    >>> x = ds.constant([1.0, 2.0, 3.0])
    >>> float(ds.math.reduce_mean(x)), "%.6f" % float(ds.math.reduce_variance(x))
    (2.0, '0.666667')
    >>> ds.math.sigmoid is ds.nn.sigmoid
    True
"""

from __future__ import annotations

from .ops.math_ops import (
    abs,
    add,
    add_n,
    argmax,
    argmin,
    ceil,
    cos,
    cumsum,
    divide,
    equal,
    erf,
    exp,
    expm1,
    floor,
    floordiv,
    greater,
    greater_equal,
    is_finite,
    is_inf,
    is_nan,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    matmul,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    reciprocal,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_sum,
    round,
    rsqrt,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    subtract,
    tanh,
    truediv,
)
from .ops.nn_ops import log_softmax, sigmoid, softmax, softplus, softsign

floormod = mod  # tf.math.floormod

__all__ = [
    "abs", "add", "add_n", "argmax", "argmin", "ceil", "cos", "cumsum", "divide", "equal", "erf", "exp", "expm1",
    "floor", "floordiv", "floormod", "greater", "greater_equal", "is_finite", "is_inf",
    "is_nan", "l2_normalize", "less", "less_equal", "log", "log1p",
    "log_softmax", "logical_and", "logical_not", "logical_or", "matmul", "maximum", "minimum", "mod", "multiply",
    "negative", "not_equal", "pow", "reciprocal", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min",
    "reduce_prod", "reduce_std", "reduce_sum", "reduce_variance", "round", "rsqrt", "sigmoid", "sign", "sin", "softmax",
    "softplus", "softsign", "sqrt", "square", "squared_difference", "subtract", "tanh", "truediv",
]


def reduce_variance(input_tensor, axis=None, keepdims: bool = False):
    """The population variance over ``axis``: ``mean(square(x - mean(x)))`` (as ``tf.math.reduce_variance``)."""
    mean = reduce_mean(input_tensor, axis=axis, keepdims=True)
    return reduce_mean(squared_difference(input_tensor, mean), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims: bool = False):
    """The population standard deviation over ``axis``: ``sqrt(reduce_variance(x))``."""
    return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def l2_normalize(x, axis=None, epsilon: float = 1e-12):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``, as ``tf.math.l2_normalize``."""
    squared = reduce_sum(square(x), axis=axis, keepdims=True)
    return multiply(x, rsqrt(maximum(squared, epsilon)))
