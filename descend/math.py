"""``descend.math``: the elementwise, reduction and matrix ops under their ``tf.math`` names.

Every name is the op itself (``ds.math.reduce_sum is ds.reduce_sum``); the
composites (``reduce_variance``, ``reduce_std``, ``l2_normalize``, ...) are built
from those ops in :mod:`descend.composites.math_extras`, so the tape
differentiates them.

Example:
    >>> import descend as ds
    >>> x = ds.constant([1.0, 2.0, 3.0])
    >>> float(ds.math.reduce_mean(x)), "%.6f" % float(ds.math.reduce_variance(x))
    (2.0, '0.666667')
    >>> ds.math.sigmoid is ds.nn.sigmoid
    True
"""

from __future__ import annotations

import types

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
    identity,
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
    zeros_like,
)
from .ops.elementwise_ops import (
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    cosh,
    divide_no_nan,
    erfc,
    erfinv,
    multiply_no_nan,
    reciprocal_no_nan,
    sinh,
    tan,
    xdivy,
    xlog1py,
    xlogy,
)
from .ops.manipulation_ops import invert_permutation
from .ops.nn_ops import log_softmax, sigmoid, softmax, softplus, softsign
from .ops.selection_ops import (
    count_nonzero,
    cumprod,
    in_top_k,
    reduce_all,
    reduce_any,
    segment_max,
    segment_mean,
    segment_min,
    segment_sum,
    top_k,
    unsorted_segment_max,
    unsorted_segment_mean,
    unsorted_segment_min,
    unsorted_segment_sqrt_n,
)
from .ops.array_ops import unsorted_segment_sum
from .composites.math_extras import (
    accumulate_n,
    angle,
    approx_max_k,
    approx_min_k,
    bincount,
    confusion_matrix,
    conj,
    cumulative_logsumexp,
    erfcinv,
    imag,
    is_non_decreasing,
    is_strictly_increasing,
    l2_normalize,
    log_sigmoid,
    logical_xor,
    ndtri,
    nextafter,
    polyval,
    real,
    reduce_euclidean_norm,
    reduce_std,
    reduce_variance,
    scalar_mul,
    truncatediv,
    truncatemod,
    zero_fraction,
)
from .ops.segment_prod_ops import segment_prod, unsorted_segment_prod
from .ops import special_ops as _special_ops
from .ops.special_ops import (
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    betainc,
    digamma,
    igamma,
    igammac,
    lbeta,
    lgamma,
    polygamma,
    zeta,
)

#: tf.math.special: the special functions (the Bessel I ones are also at tf.math's top level, as in TF)
special = types.SimpleNamespace(**{_n: getattr(_special_ops, _n) for _n in (
    "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "bessel_k0", "bessel_k0e",
    "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence")})
floormod = mod  # tf.math.floormod
rint = round  # tf.math.rint: halves to even, as tf.math.round

__all__ = [
    "abs", "add", "add_n", "argmax", "argmin", "ceil", "cos", "cumsum", "divide", "equal", "erf", "exp", "expm1",
    "floor", "floordiv", "floormod", "greater", "greater_equal", "is_finite", "is_inf",
    "is_nan", "l2_normalize", "less", "less_equal", "log", "log1p",
    "log_softmax", "logical_and", "logical_not", "logical_or", "matmul", "maximum", "minimum", "mod", "multiply",
    "negative", "not_equal", "pow", "reciprocal", "reduce_logsumexp", "reduce_max", "reduce_mean", "reduce_min",
    "reduce_prod", "reduce_std", "reduce_sum", "reduce_variance", "round", "rsqrt", "sigmoid", "sign", "sin", "softmax",
    "softplus", "softsign", "sqrt", "square", "squared_difference", "subtract", "tanh", "truediv",
    # issue 37
    "acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "cosh", "divide_no_nan", "erfc",
    "multiply_no_nan", "reciprocal_no_nan", "sinh", "tan", "xdivy", "xlog1py", "xlogy", "invert_permutation",
    "count_nonzero", "cumprod", "in_top_k", "reduce_all", "reduce_any", "segment_max", "segment_mean", "segment_min",
    "segment_sum", "top_k", "unsorted_segment_max", "unsorted_segment_mean", "unsorted_segment_min",
    "unsorted_segment_sqrt_n", "unsorted_segment_sum", "rint", "log_sigmoid", "logical_xor", "scalar_mul",
    "reduce_euclidean_norm", "cumulative_logsumexp", "polyval", "zero_fraction", "is_non_decreasing",
    "is_strictly_increasing", "bincount", "confusion_matrix", "accumulate_n", "erfinv", "ndtri", "erfcinv", "real",
    "imag", "conj", "angle", "approx_max_k", "approx_min_k", "nextafter",
]
__all__ += ["segment_prod", "unsorted_segment_prod", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "betainc",
            "digamma", "igamma", "igammac", "lbeta", "lgamma", "polygamma", "zeta", "special"]
