"""The differential harness's table (``tests/test_differential.py``): every op of descend's ``keras.ops``,
``tf.math``, ``tf.nn`` and ``tf.linalg`` namespaces with the inputs to run through it and through TensorFlow's
or Keras' function of the same name.

A case is ``Op(namespace, name, call, inputs, grad)``: ``call(module, *tensors)`` calls the function on the
namespace ``module`` (``keras.ops`` or ``descend.keras.ops``, ``tf.math`` or ``descend.math``...), so one
lambda drives both sides; ``inputs`` names an input generator (below) or is a function ``rng -> list of
float64 arrays``; ``grad`` says whether gradients are compared too. The harness runs each case in float32
and float64, forward values and gradients.

``NOT_COMPARED`` lists the names of those namespaces that no case runs, each with the reason (random draws,
functions of shapes or dtypes, control flow taking Python callables run elsewhere). ``test_every_name_is_in_
the_table`` fails when descend adds a name to one of the namespaces without adding it here.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

Op = namedtuple("Op", "namespace name call inputs grad")

CASES: list = []


def _default(name):
    return lambda m, *xs: getattr(m, name)(*xs)


#: the unary cases called plainly (``f(x)``), whose edge values are compared too
PLAIN_UNARY: set = set()


def op(namespace, name, inputs="signed", grad=True, call=None):
    CASES.append(Op(namespace, name, call or _default(name), inputs, grad))
    if call is None and inputs in ("signed", "unit", "positive", "above_one"):
        PLAIN_UNARY.add((namespace, name))


# ---------------------------------------------------------------- input generators: rng -> list of arrays
def _signed(rng, *shape):
    return rng.uniform(0.3, 1.7, shape) * rng.choice([-1.0, 1.0], shape)


def _distinct(rng, *shape):
    """Distinct values at least 0.1 apart, both signs: no ties for max/min/sort, away from 0."""
    n = int(np.prod(shape))
    return (rng.permutation(n) - n / 2 + 0.55) .reshape(shape) * 0.1 + 0.013


GENERATORS = {
    "signed": lambda rng: [_signed(rng, 3, 4)],
    "distinct": lambda rng: [_distinct(rng, 3, 4)],
    "unit": lambda rng: [rng.uniform(-0.8, 0.8, (3, 4))],
    "positive": lambda rng: [rng.uniform(0.5, 2.0, (3, 4))],
    "above_one": lambda rng: [rng.uniform(1.3, 3.0, (3, 4))],
    "even_last": lambda rng: [_signed(rng, 3, 4)],
    "two": lambda rng: [_signed(rng, 3, 4), _signed(rng, 3, 4)],
    "two_broadcast": lambda rng: [_signed(rng, 3, 4), _signed(rng, 4)],
    "two_positive": lambda rng: [rng.uniform(0.5, 2.0, (3, 4)), _signed(rng, 3, 4)],
    "two_distinct": lambda rng: [_distinct(rng, 3, 4), _distinct(rng, 3, 4) + 0.05],
    "matrices": lambda rng: [_signed(rng, 3, 4), _signed(rng, 4, 2)],
    "vectors": lambda rng: [_signed(rng, 4), _signed(rng, 4)],
    "vectors3": lambda rng: [_signed(rng, 2, 3), _signed(rng, 2, 3)],
    "square": lambda rng: [rng.standard_normal((3, 3)) + 3 * np.eye(3)],
    "batch_square": lambda rng: [rng.standard_normal((2, 3, 3)) + 3 * np.eye(3)],
    "spd": lambda rng: [(lambda a: a @ a.T + 3 * np.eye(3))(rng.standard_normal((3, 3)))],
    "square_and_rhs": lambda rng: [rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 2))],
    "lower_and_rhs": lambda rng: [np.tril(rng.standard_normal((3, 3))) + 3 * np.eye(3), rng.standard_normal((3, 2))],
    "image": lambda rng: [rng.standard_normal((2, 5, 6, 3))],
    "volume": lambda rng: [rng.standard_normal((2, 5, 6, 3, 1))],
    "sequence": lambda rng: [rng.standard_normal((2, 7, 3))],
    "logits_labels": lambda rng: [rng.uniform(0.05, 0.95, (3, 4)), rng.standard_normal((3, 4))],
    "probabilities": lambda rng: [np.eye(4)[[0, 2, 1]], (lambda z: z / z.sum(-1, keepdims=True))(
        rng.uniform(0.1, 1.0, (3, 4)))],
    "bce": lambda rng: [rng.uniform(0.0, 1.0, (3, 4)), rng.uniform(0.05, 0.95, (3, 4))],
}

# unary functions whose edge values (0, -0, +-inf, NaN, tiny, huge) are compared too (forward only)
EDGE_VALUES = np.array([[0.0, -0.0, np.inf, -np.inf, np.nan, 1e-30], [-1e-30, 1e30, -1e30, 0.5, -0.5, 2.0]])

_IDX = np.array([[2, 0, 1, 3], [1, 1, 0, 2], [3, 2, 2, 0]])
_SEG = np.array([0, 2, 0])

# ======================================================================== keras.ops
K = "keras.ops"
for _n in ("abs", "absolute", "negative", "square", "sin", "cos", "tan", "tanh", "sinh", "cosh", "arctan",
           "arcsinh", "exp", "expm1", "exp2", "erf", "cbrt", "relu", "relu6", "sigmoid", "softplus", "softsign",
           "elu", "selu", "gelu", "silu", "swish", "leaky_relu", "log_sigmoid", "hard_sigmoid", "hard_silu",
           "hard_swish", "celu", "hard_tanh", "hard_shrink", "soft_shrink", "tanh_shrink", "sparse_plus",
           "sparse_sigmoid", "squareplus", "fabs", "deg2rad", "rad2deg", "copy", "ravel", "flip", "fliplr",
           "flipud", "transpose", "reciprocal", "glu", "sparsemax", "softmax", "log_softmax"):
    op(K, _n)
for _n in ("arccos", "arcsin", "arctanh"):
    op(K, _n, "unit")
op(K, "arccosh", "above_one")
for _n in ("sqrt", "rsqrt", "log", "log2", "log10", "log1p"):
    op(K, _n, "positive")
for _n in ("sign", "floor", "ceil", "round", "trunc", "isnan", "isinf", "isfinite", "isneginf", "isposinf",
           "signbit", "logical_not"):
    op(K, _n, grad=False)
for _n in ("add", "subtract", "multiply", "divide", "true_divide", "arctan2", "hypot", "logaddexp", "logaddexp2",
           "divide_no_nan", "append"):
    op(K, _n, "two_broadcast" if _n != "append" else "two")
for _n in ("maximum", "minimum", "fmax", "fmin"):
    op(K, _n, "two_distinct")
op(K, "power", "two_positive")
op(K, "heaviside", "two", grad=False)
for _n in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
           "logical_xor", "floor_divide", "mod", "fmod", "isclose"):
    op(K, _n, "two", grad=False)
op(K, "allclose", "two", grad=False)
for _n in ("matmul", "dot"):
    op(K, _n, "matrices")
for _n in ("outer", "inner", "vdot"):
    op(K, _n, "vectors")
op(K, "cross", "vectors3")
op(K, "tensordot", "matrices", call=lambda m, a, b: m.tensordot(a, b, axes=1))
op(K, "einsum", "matrices", call=lambda m, a, b: m.einsum("ij,jk->ik", a, b))
# reductions: all axes, one axis with keepdims
for _n in ("sum", "mean", "std", "var", "logsumexp", "prod", "nansum", "nanmean", "nanprod", "nanvar", "nanstd"):
    op(K, _n, call=(lambda n: lambda m, x: getattr(m, n)(x, axis=1, keepdims=True))(_n))
for _n in ("max", "min", "amax", "amin", "ptp", "nanmax", "nanmin"):
    op(K, _n, "distinct", call=(lambda n: lambda m, x: getattr(m, n)(x, axis=0))(_n))
for _n in ("argmax", "argmin"):
    op(K, _n, "distinct", grad=False, call=(lambda n: lambda m, x: getattr(m, n)(x, axis=1))(_n))
for _n in ("all", "any", "count_nonzero"):
    op(K, _n, grad=False, call=(lambda n: lambda m, x: getattr(m, n)(m.greater(x, 0.0), axis=0))(_n))
for _n in ("cumsum", "cumprod", "nancumsum", "nancumprod"):
    op(K, _n, call=(lambda n: lambda m, x: getattr(m, n)(x, axis=1))(_n))
op(K, "average", call=lambda m, x: m.average(x, axis=1, weights=np.array([1.0, 2.0, 0.5, 1.5], x.dtype.name)))
op(K, "norm", call=lambda m, x: m.norm(x, axis=1))
for _ord in ("fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):  # matrix norms (ties-free sums and singular values)
    op(K, "norm", "distinct", call=(lambda o: lambda m, x: m.norm(x, ord=o, axis=(1, 0)))(_ord))
# shapes and building
op(K, "reshape", call=lambda m, x: m.reshape(x, (2, 6)))
op(K, "expand_dims", call=lambda m, x: m.expand_dims(x, 1))
op(K, "squeeze", call=lambda m, x: m.squeeze(m.reshape(x, (3, 1, 4)), axis=1))
op(K, "broadcast_to", call=lambda m, x: m.broadcast_to(x, (2, 3, 4)))
op(K, "tile", call=lambda m, x: m.tile(x, (2, 1)))
op(K, "repeat", call=lambda m, x: m.repeat(x, 2, axis=1))
op(K, "roll", call=lambda m, x: m.roll(x, 2, axis=1))
op(K, "moveaxis", call=lambda m, x: m.moveaxis(m.reshape(x, (3, 2, 2)), 0, -1))
op(K, "swapaxes", call=lambda m, x: m.swapaxes(x, 0, 1))
op(K, "concatenate", "two", call=lambda m, a, b: m.concatenate([a, b], axis=1))
op(K, "stack", "two", call=lambda m, a, b: m.stack([a, b], axis=1))
op(K, "hstack", "two", call=lambda m, a, b: m.hstack([a, b]))
op(K, "vstack", "two", call=lambda m, a, b: m.vstack([a, b]))
op(K, "dstack", "two", call=lambda m, a, b: m.dstack([a, b]))
op(K, "split", call=lambda m, x: m.split(x, 2, axis=1)[1])
op(K, "array_split", call=lambda m, x: m.array_split(x, 3, axis=1)[0])
op(K, "hsplit", call=lambda m, x: m.hsplit(x, [1])[1])
op(K, "vsplit", call=lambda m, x: m.vsplit(x, [2])[0])
op(K, "dsplit", call=lambda m, x: m.dsplit(m.reshape(x, (1, 3, 4)), 2)[1])
op(K, "unstack", call=lambda m, x: m.unstack(x, axis=1)[2])
op(K, "pad", call=lambda m, x: m.pad(x, ((1, 0), (0, 2))))
op(K, "tril", call=lambda m, x: m.tril(x, -1))
op(K, "triu", call=lambda m, x: m.triu(x, 1))
op(K, "diagonal", call=lambda m, x: m.diagonal(x, offset=1))
op(K, "diag", call=lambda m, x: m.diag(x, k=-1))
op(K, "diagflat", call=lambda m, x: m.diagflat(x[0]))
op(K, "trace", call=lambda m, x: m.trace(x))
op(K, "take", call=lambda m, x: m.take(x, np.array([2, 0, 2]), axis=1))
op(K, "take_along_axis", call=lambda m, x: m.take_along_axis(x, _IDX, axis=1))
op(K, "sort", "distinct", call=lambda m, x: m.sort(x, axis=0))
op(K, "argsort", "distinct", grad=False, call=lambda m, x: m.argsort(x, axis=1))
op(K, "top_k", "distinct", call=lambda m, x: m.top_k(x, 2)[0])
op(K, "where", "two", call=lambda m, a, b: m.where(m.greater(a, 0.0), a, b))
op(K, "select", "two", call=lambda m, a, b: m.select([m.greater(a, 0.5), m.greater(b, 0.0)], [a, b], 0.0))
op(K, "clip", call=lambda m, x: m.clip(x, -0.9, 0.8))
op(K, "nan_to_num", grad=False, call=lambda m, x: m.nan_to_num(m.divide(x, m.floor(m.abs(x)))))
op(K, "segment_sum", call=lambda m, x: m.segment_sum(x, _SEG, num_segments=3))
op(K, "segment_max", "distinct", call=lambda m, x: m.segment_max(x, _SEG, num_segments=3))
op(K, "slice", call=lambda m, x: m.slice(x, (1, 1), (2, 2)))
op(K, "slice_update", "two", grad=False, call=lambda m, a, b: m.slice_update(a, (1, 1), m.slice(b, (0, 0), (2, 2))))
op(K, "scatter", call=lambda m, x: m.scatter(np.array([[0, 1], [2, 0]]), x[0, :2], (3, 2)))
op(K, "scatter_update", "two", call=lambda m, a, b: m.scatter_update(a, np.array([[0, 1], [2, 3]]), b[0, :2]))
op(K, "get_item", call=lambda m, x: m.get_item(x, 1))
op(K, "stop_gradient", grad=False)
op(K, "cast", grad=False, call=lambda m, x: m.cast(x, "int32"))
op(K, "one_hot", grad=False, call=lambda m, x: m.one_hot(np.array([0, 3, 1]), 4))
op(K, "multi_hot", grad=False, call=lambda m, x: m.multi_hot(np.array([[0, 3], [1, 1]]), 4))
op(K, "digitize", grad=False, call=lambda m, x: m.digitize(x, np.array([-1.0, 0.0, 1.0])))
op(K, "searchsorted", grad=False, call=lambda m, x: m.searchsorted(np.array([-1.0, 0.0, 1.0], x.dtype.name), x[0]))
op(K, "isin", grad=False, call=lambda m, x: m.isin(m.floor(x), np.array([-1.0, 0.0])))
op(K, "in_top_k", "distinct", grad=False, call=lambda m, x: m.in_top_k(np.array([0, 3, 1]), np.asarray(x, np.float32),
                                                                      2))
op(K, "nonzero", grad=False, call=lambda m, x: m.nonzero(m.greater(x, 0.0))[1])
op(K, "gcd", grad=False, call=lambda m, x: m.gcd(np.array([12, 18, 7]), np.array([8, 12, 21])))
op(K, "lcm", grad=False, call=lambda m, x: m.lcm(np.array([4, 6, 7]), np.array([6, 8, 3])))
for _n in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "left_shift", "bitwise_right_shift",
           "right_shift"):
    op(K, _n, grad=False, call=(lambda n: lambda m, x: getattr(m, n)(np.array([12, 5, 7]), np.array([2, 3, 1])))(_n))
for _n in ("bitwise_invert", "bitwise_not"):
    op(K, _n, grad=False, call=(lambda n: lambda m, x: getattr(m, n)(np.array([12, -5, 7])))(_n))
op(K, "meshgrid", "vectors", call=lambda m, a, b: m.meshgrid(a, b)[1])
op(K, "linspace", grad=False, call=lambda m, x: m.linspace(0.0, 1.0, 5))
op(K, "logspace", grad=False, call=lambda m, x: m.logspace(0.0, 2.0, 5))
op(K, "geomspace", grad=False, call=lambda m, x: m.geomspace(1.0, 100.0, 5))
op(K, "arange", grad=False, call=lambda m, x: m.arange(2, 11, 3))
op(K, "eye", grad=False, call=lambda m, x: m.eye(3, 4, k=1))
op(K, "identity", grad=False, call=lambda m, x: m.identity(3))
op(K, "tri", grad=False, call=lambda m, x: m.tri(3, 4, k=0))
for _n in ("zeros", "ones", "empty"):
    op(K, _n, grad=False, call=(lambda n: lambda m, x: getattr(m, n)((2, 3)))(_n))
op(K, "full", grad=False, call=lambda m, x: m.full((2, 3), 1.5))
for _n in ("zeros_like", "ones_like", "empty_like"):
    op(K, _n, grad=False, call=(lambda n: lambda m, x: getattr(m, n)(x))(_n))
op(K, "full_like", grad=False, call=lambda m, x: m.full_like(x, 2.0))
op(K, "normalize", call=lambda m, x: m.normalize(x, axis=-1))
op(K, "moments", call=lambda m, x: m.moments(x, axes=[0])[1])
op(K, "batch_normalization", call=lambda m, x: m.batch_normalization(
    x, np.full(4, 0.1, x.dtype.name), np.full(4, 2.0, x.dtype.name), axis=-1, offset=np.ones(4, x.dtype.name),
    scale=np.full(4, 0.5, x.dtype.name)))
op(K, "rms_normalization", call=lambda m, x: m.rms_normalization(x, axis=-1))
op(K, "layer_normalization", call=lambda m, x: m.layer_normalization(x, axis=-1))
op(K, "binary_crossentropy", "bce", call=lambda m, t, p: m.binary_crossentropy(t, p))
op(K, "categorical_crossentropy", "probabilities", call=lambda m, t, p: m.categorical_crossentropy(t, p))
op(K, "sparse_categorical_crossentropy", "probabilities",
   call=lambda m, t, p: m.sparse_categorical_crossentropy(np.array([0, 2, 1]), p))
op(K, "dot_product_attention", call=lambda m, x: m.dot_product_attention(
    m.reshape(x, (1, 3, 1, 4)), m.reshape(x * 0.5, (1, 3, 1, 4)), m.reshape(x, (1, 3, 1, 4)), is_causal=True))
op(K, "dot_product_attention", call=lambda m, x: m.dot_product_attention(  # grouped-query: 4 query heads, 2 keys
    m.reshape(x, (1, 3, 4, 1)), m.reshape(m.take(x, [0, 1], axis=1), (1, 3, 2, 1)),
    m.reshape(m.take(x, [2, 3], axis=1), (1, 3, 2, 1))))
for _axis in (None, (0, 1)):  # softmax over all or several axes
    op(K, "softmax", call=(lambda a: lambda m, x: m.softmax(x, axis=a))(_axis))
    op(K, "log_softmax", call=(lambda a: lambda m, x: m.log_softmax(x, axis=a))(_axis))

# ======================================================================== tf.math / tf
M = "tf.math"
for _n in ("abs", "negative", "square", "sin", "cos", "tan", "tanh", "sinh", "cosh", "atan", "asinh", "exp",
           "expm1", "erf", "erfc", "sigmoid", "softplus", "softsign", "log_sigmoid", "reciprocal",
           "reciprocal_no_nan"):
    op(M, _n)
for _n in ("acos", "asin", "atanh"):
    op(M, _n, "unit")
op(M, "acosh", "above_one")
for _n in ("sqrt", "rsqrt", "log", "log1p"):
    op(M, _n, "positive")
for _n in ("sign", "floor", "ceil", "round", "rint", "is_nan", "is_inf", "is_finite"):
    op(M, _n, grad=False)
op(M, "logical_not", grad=False, call=lambda m, x: m.logical_not(x > 0))
for _n in ("add", "subtract", "multiply", "divide", "truediv", "squared_difference", "atan2", "divide_no_nan",
           "multiply_no_nan", "xdivy"):
    op(M, _n, "two_broadcast")
for _n in ("xlogy", "xlog1py"):
    op(M, _n, "two", call=(lambda n: lambda m, a, b: getattr(m, n)(a, m.abs(b)))(_n))
for _n in ("maximum", "minimum"):
    op(M, _n, "two_distinct")
op(M, "pow", "two_positive")
for _n in ("equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "floordiv", "floormod", "mod"):
    op(M, _n, "two", grad=False)
for _n in ("logical_and", "logical_or", "logical_xor"):
    op(M, _n, "two", grad=False, call=(lambda n: lambda m, a, b: getattr(m, n)(a > 0, b > 0))(_n))
op(M, "matmul", "matrices")
op(M, "add_n", "two", call=lambda m, a, b: m.add_n([a, b, a]))
op(M, "accumulate_n", "two", call=lambda m, a, b: m.accumulate_n([a, b]))
op(M, "scalar_mul", call=lambda m, x: m.scalar_mul(2.5, x))
for _n in ("reduce_sum", "reduce_mean", "reduce_prod", "reduce_logsumexp", "reduce_std", "reduce_variance",
           "reduce_euclidean_norm"):
    op(M, _n, call=(lambda n: lambda m, x: getattr(m, n)(x, axis=1, keepdims=True))(_n))
for _n in ("reduce_max", "reduce_min"):
    op(M, _n, "distinct", call=(lambda n: lambda m, x: getattr(m, n)(x, axis=0))(_n))
for _n in ("argmax", "argmin"):
    op(M, _n, "distinct", grad=False, call=(lambda n: lambda m, x: getattr(m, n)(x, axis=1))(_n))
for _n in ("reduce_all", "reduce_any", "count_nonzero"):
    op(M, _n, grad=False, call=(lambda n: lambda m, x: getattr(m, n)(x > 0, axis=0))(_n))
op(M, "cumsum", call=lambda m, x: m.cumsum(x, axis=1, exclusive=True, reverse=True))
op(M, "cumprod", call=lambda m, x: m.cumprod(x, axis=1, exclusive=True))
op(M, "cumulative_logsumexp", call=lambda m, x: m.cumulative_logsumexp(x, axis=1))
op(M, "l2_normalize", call=lambda m, x: m.l2_normalize(x, axis=1))
op(M, "softmax", call=lambda m, x: m.softmax(x, axis=0))
op(M, "log_softmax")
op(M, "polyval", call=lambda m, x: m.polyval([x[0], x[1], x[2]], x))
op(M, "top_k", "distinct", call=lambda m, x: m.top_k(x, 3)[0])
op(M, "in_top_k", "distinct", grad=False,
   call=lambda m, x: m.in_top_k(np.array([0, 3, 1]), np.asarray(x, np.float32), 2))
op(M, "segment_sum", call=lambda m, x: m.segment_sum(x, np.array([0, 0, 2])))
op(M, "segment_mean", call=lambda m, x: m.segment_mean(x, np.array([0, 0, 2])))
op(M, "segment_max", "distinct", call=lambda m, x: m.segment_max(x, np.array([0, 0, 2])))
op(M, "segment_min", "distinct", call=lambda m, x: m.segment_min(x, np.array([0, 0, 2])))
for _n in ("unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_sqrt_n"):
    op(M, _n, call=(lambda n: lambda m, x: getattr(m, n)(x, _SEG, 3))(_n))
for _n in ("unsorted_segment_max", "unsorted_segment_min"):
    op(M, _n, "distinct", call=(lambda n: lambda m, x: getattr(m, n)(x, _SEG, 3))(_n))
# a negative id drops its entry (TF's rule for the unsorted segment ops)
for _n in ("unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_sqrt_n"):
    op(M, _n, call=(lambda n: lambda m, x: getattr(m, n)(x, np.array([2, -1, 0]), 3))(_n))
for _n in ("unsorted_segment_max", "unsorted_segment_min"):
    op(M, _n, "distinct", call=(lambda n: lambda m, x: getattr(m, n)(x, np.array([2, -1, 0]), 3))(_n))
op(M, "bincount", grad=False, call=lambda m, x: m.bincount(np.array([1, 1, 3, 0, 3, 3])))
op(M, "confusion_matrix", grad=False, call=lambda m, x: m.confusion_matrix(np.array([0, 1, 2, 1]),
                                                                           np.array([0, 2, 2, 1])))
op(M, "invert_permutation", grad=False, call=lambda m, x: m.invert_permutation(np.array([2, 0, 3, 1])))
op(M, "is_non_decreasing", grad=False, call=lambda m, x: m.is_non_decreasing(m.cumsum(m.abs(x[0]), 0)))
op(M, "is_strictly_increasing", grad=False, call=lambda m, x: m.is_strictly_increasing(x[0]))
op(M, "zero_fraction", grad=False, call=lambda m, x: m.zero_fraction(m.floor(m.abs(x))))

# ======================================================================== tf.nn
N = "tf.nn"
for _n in ("relu", "relu6", "elu", "selu", "sigmoid", "softplus", "softsign", "silu", "swish", "log_softmax",
           "softmax", "leaky_relu"):
    op(N, _n)
op(N, "gelu", call=lambda m, x: m.gelu(x, approximate=True))
op(N, "l2_loss")
op(N, "sigmoid_cross_entropy_with_logits", "logits_labels",
   call=lambda m, t, z: m.sigmoid_cross_entropy_with_logits(labels=t, logits=z))
op(N, "softmax_cross_entropy_with_logits", "probabilities",
   call=lambda m, t, z: m.softmax_cross_entropy_with_logits(labels=t, logits=z))
op(N, "sparse_softmax_cross_entropy_with_logits", "signed",
   call=lambda m, z: m.sparse_softmax_cross_entropy_with_logits(labels=np.array([0, 3, 1]), logits=z))
op(N, "embedding_lookup", call=lambda m, x: m.embedding_lookup(x, np.array([2, 0, 2])))
op(N, "conv2d", "image", call=lambda m, x: m.conv2d(x, np.ones((2, 3, 3, 2), x.dtype.name) * 0.1
                                                   + np.arange(36, dtype=x.dtype.name).reshape(2, 3, 3, 2) * 0.01,
                                                   strides=2, padding="SAME"))
op(N, "conv1d", "sequence", call=lambda m, x: m.conv1d(x, np.linspace(-1, 1, 18).reshape(3, 3, 2).astype(
    x.dtype.name), stride=1, padding="VALID"))
op(N, "conv2d_transpose", "image", call=lambda m, x: m.conv2d_transpose(
    x, np.linspace(-1, 1, 36).reshape(3, 2, 2, 3).astype(x.dtype.name), (2, 10, 12, 2), strides=2, padding="SAME"))
op(N, "conv1d_transpose", "sequence", call=lambda m, x: m.conv1d_transpose(
    x, np.linspace(-1, 1, 18).reshape(3, 2, 3).astype(x.dtype.name), (2, 14, 2), strides=2, padding="SAME"))
op(N, "depthwise_conv2d", "image", call=lambda m, x: m.depthwise_conv2d(
    x, np.linspace(-1, 1, 36).reshape(2, 3, 3, 2).astype(x.dtype.name), (1, 1, 1, 1), "SAME"))
op(N, "separable_conv2d", "image", call=lambda m, x: m.separable_conv2d(
    x, np.linspace(-1, 1, 27).reshape(3, 3, 3, 1).astype(x.dtype.name),
    np.linspace(-1, 1, 6).reshape(1, 1, 3, 2).astype(x.dtype.name), (1, 1, 1, 1), "VALID"))
op(N, "conv3d", "volume", call=lambda m, x: m.conv3d(
    x, np.linspace(-1, 1, 16).reshape(2, 2, 2, 1, 2).astype(x.dtype.name),
    (1, 1, 2, 1, 1), "SAME"))
op(N, "max_pool2d", "image", call=lambda m, x: m.max_pool2d(x, 2, 2, "VALID"))
op(N, "avg_pool2d", "image", call=lambda m, x: m.avg_pool2d(x, 3, 2, "SAME"))
op(N, "max_pool1d", "sequence", call=lambda m, x: m.max_pool1d(x, 2, 2, "SAME"))
op(N, "avg_pool1d", "sequence", call=lambda m, x: m.avg_pool1d(x, 3, 1, "VALID"))
op(N, "compute_average_loss", call=lambda m, x: m.compute_average_loss(x[:, 0], global_batch_size=6))
op(N, "scale_regularization_loss", call=lambda m, x: m.scale_regularization_loss(x))

# ======================================================================== tf.linalg
LA = "tf.linalg"
op(LA, "matmul", "matrices")
op(LA, "einsum", "matrices", call=lambda m, a, b: m.einsum("ij,jk->ki", a, b))
op(LA, "tensordot", "matrices", call=lambda m, a, b: m.tensordot(a, b, 1))
op(LA, "norm", call=lambda m, x: m.norm(x, axis=1))
op(LA, "global_norm", "two", call=lambda m, a, b: m.global_norm([a, b]))
op(LA, "l2_normalize", call=lambda m, x: m.l2_normalize(x, axis=0))
op(LA, "matrix_transpose")
op(LA, "adjoint")
op(LA, "diag_part")
op(LA, "trace", "square")
op(LA, "eye", grad=False, call=lambda m, x: m.eye(3, 2, batch_shape=[2]))

#: names of the four namespaces that no case runs, with the reason
NOT_COMPARED = {
    "keras.ops": {
        "convert_to_tensor": "a conversion, not an op; every case runs through it",
        "convert_to_numpy": "a conversion, not an op",
        "array": "a conversion (Keras' alias of convert_to_tensor)",
        "is_tensor": "a type test",
        "shape": "the static shape, a tuple",
        "ndim": "the static rank, an int",
        "size": "the static size, an int",
        "dtype": "a dtype name",
        "saturate_cast": "checked in tests/test_api_ops_conventions.py (TF's backend clips in float64 first)",
        "isreal": "descend's tensors are real: always True",
        "cond": "control flow over Python callables (tests/test_function.py)",
        "while_loop": "control flow over Python callables (tests/test_function.py)",
        "fori_loop": "control flow over Python callables",
        "scan": "control flow over Python callables (tests/test_api_ops_conventions.py)",
        "map": "control flow over Python callables",
        "switch": "control flow over Python callables",
        "vectorized_map": "control flow over Python callables",
        "custom_gradient": "a decorator (tests/test_tape.py)",
    },
    "tf.math": {},
    "tf.nn": {
        "dropout": "random: the masks of two generators differ (tests/test_layers.py checks the rule)",
    },
    "tf.linalg": {},
    "tf.image": {"ResizeMethod": "a class of method names, not an op",
                 # compared with tf.image name by name, forward and gradients, in tests/test_image.py's tables
                 **{n: "compared with TF in tests/test_image.py" for n in (
                     "adjust_hue", "adjust_saturation", "affine_transform", "combined_non_max_suppression",
                     "crop_and_resize", "draw_bounding_boxes", "extract_patches", "hsv_to_rgb", "non_max_suppression",
                     "non_max_suppression_overlaps", "non_max_suppression_padded", "non_max_suppression_with_scores",
                     "resize_with_pad", "rgb_to_hsv", "rgb_to_yiq", "rgb_to_yuv", "sobel_edges", "ssim",
                     "ssim_multiscale", "yiq_to_rgb", "yuv_to_rgb")},
                 # random draws: not TF's values; their contracts are checked in tests/test_image.py
                 **{n: "random: descend's draws are not TF's (contracts in tests/test_image.py)" for n in (
                     "random_brightness", "random_contrast", "random_crop", "random_flip_left_right",
                     "random_flip_up_down", "random_hue", "random_saturation", "sample_distorted_bounding_box",
                     "stateless_random_brightness", "stateless_random_contrast", "stateless_random_crop",
                     "stateless_random_flip_left_right", "stateless_random_flip_up_down", "stateless_random_hue",
                     "stateless_random_saturation", "stateless_sample_distorted_bounding_box")}},
}

CASE_NAMES = {(c.namespace, c.name) for c in CASES}

op(K, "segment_min", "distinct", call=lambda m, x: m.segment_min(x, _SEG, num_segments=3))
op(K, "threshold", call=lambda m, x: m.threshold(x, 0.5, -2.0))
CASE_NAMES = {(c.namespace, c.name) for c in CASES}


# ======================================================================== layers
LayerOp = namedtuple("LayerOp", "name build inputs kwargs")
LAYER_CASES: list = []


def layer(name, build, inputs, kwargs=None):
    """``build(layers_module)`` makes the layer on either side; ``inputs`` are shapes (a list of shapes for a
    layer called on a list) or an ``("ints", shape, high)`` triple for integer ids."""
    LAYER_CASES.append(LayerOp(name, build, inputs, kwargs or {}))


_S, _I, _V = (2, 5, 3), (2, 6, 5, 3), (2, 4, 4, 4, 2)
layer("Dense", lambda L: L.Dense(4, activation="tanh"), (3, 5))
layer("Activation", lambda L: L.Activation("softplus"), (3, 5))
layer("Flatten", lambda L: L.Flatten(), _I)
layer("Dropout", lambda L: L.Dropout(0.5), (3, 5))
layer("Embedding", lambda L: L.Embedding(7, 3), ("ints", (3, 4), 7))
layer("LayerNormalization", lambda L: L.LayerNormalization(), (3, 5))
layer("BatchNormalization", lambda L: L.BatchNormalization(), (3, 5))
layer("Conv1D", lambda L: L.Conv1D(4, 3, padding="causal"), _S)
layer("Conv2D", lambda L: L.Conv2D(4, 3, strides=2, padding="same"), _I)
layer("Conv3D", lambda L: L.Conv3D(2, 2, padding="same"), _V)
layer("Conv1DTranspose", lambda L: L.Conv1DTranspose(2, 3, strides=2), _S)
layer("Conv2DTranspose", lambda L: L.Conv2DTranspose(2, 3, strides=2, padding="same"), _I)
layer("DepthwiseConv1D", lambda L: L.DepthwiseConv1D(2, depth_multiplier=2), _S)
layer("DepthwiseConv2D", lambda L: L.DepthwiseConv2D(3, padding="same"), _I)
layer("SeparableConv1D", lambda L: L.SeparableConv1D(4, 2), _S)
layer("SeparableConv2D", lambda L: L.SeparableConv2D(4, 3, depth_multiplier=2), _I)
layer("MaxPooling1D", lambda L: L.MaxPooling1D(2), _S)
layer("MaxPooling2D", lambda L: L.MaxPooling2D(2, padding="same"), _I)
layer("AveragePooling1D", lambda L: L.AveragePooling1D(2, 1), _S)
layer("AveragePooling2D", lambda L: L.AveragePooling2D(3, 2, padding="same"), _I)
layer("GlobalAveragePooling1D", lambda L: L.GlobalAveragePooling1D(), _S)
layer("GlobalMaxPooling1D", lambda L: L.GlobalMaxPooling1D(), _S)
layer("GlobalAveragePooling2D", lambda L: L.GlobalAveragePooling2D(), _I)
layer("GlobalMaxPooling2D", lambda L: L.GlobalMaxPooling2D(keepdims=True), _I)
layer("Reshape", lambda L: L.Reshape((3, -1)), _S)
layer("Permute", lambda L: L.Permute((2, 1)), _S)
layer("RepeatVector", lambda L: L.RepeatVector(3), (3, 5))
layer("Masking", lambda L: L.Masking(), _S)
for _n in ("Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"):
    layer(_n, (lambda n: lambda L: getattr(L, n)())(_n), [(3, 5), (3, 5)])
layer("SimpleRNN", lambda L: L.SimpleRNN(3, return_sequences=True), _S)
layer("LSTM", lambda L: L.LSTM(3), _S)
layer("GRU", lambda L: L.GRU(3, return_sequences=True), _S)
layer("RNN", lambda L: L.RNN(L.GRUCell(2)), _S)
layer("SimpleRNNCell", lambda L: L.RNN(L.SimpleRNNCell(2)), _S)
layer("LSTMCell", lambda L: L.RNN(L.LSTMCell(2), return_sequences=True), _S)
layer("GRUCell", lambda L: L.RNN(L.GRUCell(2, reset_after=False)), _S)
layer("Bidirectional", lambda L: L.Bidirectional(L.LSTM(2)), _S)
layer("TimeDistributed", lambda L: L.TimeDistributed(L.Dense(2)), _S)
layer("MultiHeadAttention", lambda L: L.MultiHeadAttention(2, 3), [_S, _S])
layer("Attention", lambda L: L.Attention(use_scale=True), [_S, (2, 4, 3)], {"use_causal_mask": False})
layer("AdditiveAttention", lambda L: L.AdditiveAttention(), [_S, (2, 4, 3)])
layer("ReLU", lambda L: L.ReLU(max_value=1.0, negative_slope=0.1), (3, 5))
layer("LeakyReLU", lambda L: L.LeakyReLU(), (3, 5))
layer("ELU", lambda L: L.ELU(0.7), (3, 5))
layer("PReLU", lambda L: L.PReLU(shared_axes=[1]), _S)
layer("Softmax", lambda L: L.Softmax(axis=1), _S)
layer("ZeroPadding1D", lambda L: L.ZeroPadding1D((1, 2)), _S)
layer("ZeroPadding2D", lambda L: L.ZeroPadding2D(((1, 0), (0, 2))), _I)
layer("ZeroPadding3D", lambda L: L.ZeroPadding3D(1), _V)
layer("UpSampling1D", lambda L: L.UpSampling1D(2), _S)
layer("UpSampling2D", lambda L: L.UpSampling2D(2, interpolation="bilinear"), _I)
layer("UpSampling3D", lambda L: L.UpSampling3D((2, 1, 2)), _V)
layer("Cropping1D", lambda L: L.Cropping1D((1, 2)), _S)
layer("Cropping2D", lambda L: L.Cropping2D(((1, 2), (0, 1))), _I)
layer("Cropping3D", lambda L: L.Cropping3D(1), _V)

#: descend layers that no layer case runs, with the reason
LAYERS_NOT_COMPARED = {
    "Layer": "the base class",
    "InputLayer": "a placeholder of the functional API (tests/test_functional.py)",
    "Lambda": "runs the function it is given (tests/test_layer_cases.py)",
    "OpLambda": "descend's own wrapper of an op in a functional model",
    **{n: "random augmentation: compared with Keras at fixed factors in tests/test_preprocessing_layers.py" for n in (
        "RandomBrightness", "RandomContrast", "RandomCrop", "RandomFlip", "RandomRotation", "RandomTranslation",
        "RandomZoom")},
    "Discretization": "not differentiable; compared with Keras (adapt, bins) in tests/test_preprocessing_layers.py",
    "IntegerLookup": "not differentiable; compared with Keras in tests/test_preprocessing_layers.py",
    "StringLookup": "string inputs; compared with Keras in tests/test_text_layers.py",
    "TextVectorization": "string inputs; compared with Keras in tests/test_text_layers.py",
}

# tf.linalg's solvers and decompositions (issue 37)
op(LA, "inv", "batch_square")
op(LA, "det", "batch_square")
op(LA, "slogdet", "batch_square", call=lambda m, a: m.slogdet(a)[1])
op(LA, "logdet", "spd")
op(LA, "solve", "square_and_rhs", call=lambda m, a, b: m.solve(a, b))
op(LA, "cholesky", "spd", call=lambda m, a: m.cholesky(a))
op(LA, "cholesky_solve", "spd", call=lambda m, a: m.cholesky_solve(m.cholesky(a), a[:, :2]))
op(LA, "triangular_solve", "lower_and_rhs", call=lambda m, a, b: m.triangular_solve(a, b, lower=True))
op(LA, "band_part", call=lambda m, x: m.band_part(x, 1, 0))
op(LA, "diag", "vectors", call=lambda m, a, b: m.diag(a))
op(LA, "set_diag", call=lambda m, x: m.set_diag(x, x[:, 0]))
op(LA, "matvec", "matrices", call=lambda m, a, b: m.matvec(a, b[:, 0]))
op(LA, "cross", "vectors3")
op(K, "inv", "batch_square")
op(K, "det", "batch_square")
op(K, "slogdet", "batch_square", call=lambda m, a: m.slogdet(a)[1])
op(K, "logdet", "spd")
op(K, "solve", "square_and_rhs")
op(K, "solve_triangular", "lower_and_rhs", call=lambda m, a, b: m.solve_triangular(a, b, lower=True))
op(K, "cholesky", "spd")
op(LA, "einsum", "batch_square", call=lambda m, a: m.einsum("bii->bi", a))  # a diagonal (repeated index)
layer("Dot", lambda L: L.Dot(axes=(2, 2), normalize=True), [_S, (2, 4, 3)])
layer("Identity", lambda L: L.Identity(), (3, 5))
layer("Rescaling", lambda L: L.Rescaling(0.5, offset=-1.0), (3, 5))
layer("UnitNormalization", lambda L: L.UnitNormalization(axis=[1, 2]), _S)
layer("GlobalAveragePooling3D", lambda L: L.GlobalAveragePooling3D(), _V)
layer("GlobalMaxPooling3D", lambda L: L.GlobalMaxPooling3D(keepdims=True), _V)
layer("GroupNormalization", lambda L: L.GroupNormalization(groups=3, axis=-1), (2, 4, 6))
layer("RMSNormalization", lambda L: L.RMSNormalization(), (3, 5))
layer("ActivityRegularization", lambda L: L.ActivityRegularization(l1=0.1, l2=0.2), (3, 5))
for _n in ("AlphaDropout", "GaussianDropout", "GaussianNoise"):  # the identity at inference
    layer(_n, (lambda n: lambda L: getattr(L, n)(0.3))(_n), (3, 5))
layer("SpatialDropout1D", lambda L: L.SpatialDropout1D(0.3), _S)
layer("SpatialDropout2D", lambda L: L.SpatialDropout2D(0.3), _I)
layer("SpatialDropout3D", lambda L: L.SpatialDropout3D(0.3), _V)

# more of tf.nn (issue 37)
op(N, "tanh")
op(N, "l2_normalize", call=lambda m, x: m.l2_normalize(x, axis=0))
op(N, "top_k", "distinct", call=lambda m, x: m.top_k(x, 2)[0])
op(N, "in_top_k", "distinct", grad=False, call=lambda m, x: m.in_top_k(np.array([0, 3, 1]), np.asarray(x, np.float32), 2))
op(N, "zero_fraction", grad=False, call=lambda m, x: m.zero_fraction(x * 0.0))
op(N, "bias_add", "image", call=lambda m, x: m.bias_add(x, np.array([0.5, -1.0, 2.0], x.dtype.name)))
op(N, "moments", call=lambda m, x: m.moments(x, axes=[0])[1])
op(N, "weighted_moments", call=lambda m, x: m.weighted_moments(x, [1], np.array([1.0, 2.0, 0.5, 1.0], x.dtype.name))[1])
op(N, "sufficient_statistics", call=lambda m, x: m.sufficient_statistics(x, [0])[2])
op(N, "normalize_moments", call=lambda m, x: m.normalize_moments(np.array(3.0, x.dtype.name), x[0], x[1] * x[1], None)[1])
op(N, "batch_normalization", call=lambda m, x: m.batch_normalization(x, x[0], x[1] * x[1], x[2], None, 1e-3))
op(N, "depth_to_space", call=lambda m, x: m.depth_to_space(m.tanh(x)[None, :, None, :], 2))
op(N, "space_to_depth", "image", call=lambda m, x: m.space_to_depth(x[:, :4, :6], 2))
op(N, "crelu")
op(N, "weighted_cross_entropy_with_logits", "bce",
   call=lambda m, t, z: m.weighted_cross_entropy_with_logits(t, z * 4.0 - 2.0, 1.5))
op(N, "log_poisson_loss", "two_positive", call=lambda m, z, c: m.log_poisson_loss(z * 2.0, c, compute_full_loss=True))
op(N, "local_response_normalization", "image", call=lambda m, x: m.local_response_normalization(x, 1, 1.0, 0.5, 0.75))
op(N, "lrn", "image", call=lambda m, x: m.lrn(x, 2))
op(N, "convolution", "sequence", call=lambda m, x: m.convolution(x, np.linspace(-1, 1, 12).reshape(2, 3, 2).astype(
    x.dtype.name), padding="SAME"))
op(N, "atrous_conv2d", "image", call=lambda m, x: m.atrous_conv2d(x, np.linspace(-1, 1, 18).reshape(
    3, 1, 3, 2).astype(x.dtype.name), 2, "SAME"))
op(N, "max_pool", "image", call=lambda m, x: m.max_pool(x, 2, 2, "SAME"))
op(N, "avg_pool", "sequence", call=lambda m, x: m.avg_pool(x, 2, 1, "VALID"))

#: cases TF runs in float32 only (its kernel has no float64): compared in float32
FLOAT32_ONLY = {("tf.nn", "local_response_normalization"), ("tf.nn", "lrn"), ("tf.math", "approx_max_k")}
NOT_COMPARED["tf.math"]["approx_min_k"] = ("TF has no CPU kernel for it; tests/test_api_ops_conventions.py checks it "
                                           "is the exact k smallest")

# more of tf.math (issue 37)
op(M, "erfinv", "unit")
op(M, "ndtri", call=lambda m, x: m.ndtri(m.sigmoid(x)))
op(M, "erfcinv", call=lambda m, x: m.erfcinv(m.sigmoid(x)))
for _n in ("real", "conj"):
    op(M, _n)
op(M, "imag", grad=False)
op(M, "angle", grad=False)
op(M, "approx_max_k", "distinct", call=lambda m, x: m.approx_max_k(x, 2)[0])
op(M, "nextafter", "two", grad=False)

# keras.ops' convolutions, pooling and more NumPy (issue 37)
_K2 = lambda x: np.linspace(-1, 1, 36).reshape(2, 3, 3, 2).astype(x.dtype.name)  # noqa: E731
op(K, "conv", "image", call=lambda m, x: m.conv(x, _K2(x), strides=2, padding="same"))
_KG = lambda x: np.linspace(-1, 1, 54).reshape(3, 3, 1, 6).astype(x.dtype.name)  # noqa: E731
op(K, "conv", "image", call=lambda m, x: m.conv(x, _KG(x), padding="same"))  # grouped: 3 groups of 1 channel
op(K, "depthwise_conv", "image", call=lambda m, x: m.depthwise_conv(x, _K2(x), padding="same"))
op(K, "separable_conv", "image", call=lambda m, x: m.separable_conv(
    x, _K2(x), np.linspace(-1, 1, 12).reshape(1, 1, 6, 2).astype(x.dtype.name)))
op(K, "conv_transpose", "image", call=lambda m, x: m.conv_transpose(
    x, np.linspace(-1, 1, 24).reshape(2, 2, 2, 3).astype(x.dtype.name), strides=2, padding="valid"))
op(K, "max_pool", "image", call=lambda m, x: m.max_pool(x, 2, padding="same"))
op(K, "average_pool", "sequence", call=lambda m, x: m.average_pool(x, 3, 2))
op(K, "depth_to_space", call=lambda m, x: m.depth_to_space(m.reshape(x, (1, 1, 3, 4)), 2))
op(K, "space_to_depth", "image", call=lambda m, x: m.space_to_depth(x[:, :4, :6], 2))
op(K, "rot90", call=lambda m, x: m.rot90(x, k=3))
op(K, "kron", "two", call=lambda m, a, b: m.kron(a[:2, :2], b))
op(K, "diff", call=lambda m, x: m.diff(x, n=2, axis=1))
op(K, "quantile", "distinct", call=lambda m, x: m.quantile(x, np.array([0.25, 0.6]), axis=1))
op(K, "percentile", "distinct", call=lambda m, x: m.percentile(x, 30.0, axis=0, keepdims=True))
op(K, "median", "distinct", call=lambda m, x: m.median(x, axis=1))
op(K, "sinc")
op(K, "ldexp", call=lambda m, x: m.ldexp(x, np.array([1, -2, 0, 3])))
op(K, "nextafter", "two", grad=False)
for _n in ("real", "conj", "conjugate"):
    op(K, _n)
op(K, "imag", grad=False)
op(K, "angle", grad=False)
op(K, "erfc")
op(K, "erfinv", "unit")
op(K, "unravel_index", grad=False, call=lambda m, x: m.unravel_index(np.array([5, 7]), (3, 4))[1])
op(K, "trapezoid", call=lambda m, x: m.trapezoid(x, dx=0.5, axis=1))
op(K, "vander", "vectors", call=lambda m, a, b: m.vander(a, 3))
op(K, "corrcoef")
op(K, "cdist", "two", call=lambda m, a, b: m.cdist(a, b))
op(K, "nanargmax", "distinct", grad=False, call=lambda m, x: m.nanargmax(x, axis=1))
op(K, "nanargmin", "distinct", grad=False, call=lambda m, x: m.nanargmin(x, axis=0))
op(K, "bincount", grad=False, call=lambda m, x: m.bincount(np.array([1, 1, 3, 0])))

# ======================================================================== tf.image (issue 37)
IM = "tf.image"
GENERATORS["pixels"] = lambda rng: [rng.uniform(0.05, 0.95, (2, 5, 6, 3))]
GENERATORS["two_pixels"] = lambda rng: [rng.uniform(0.05, 0.95, (2, 5, 6, 3)), rng.uniform(0.05, 0.95, (2, 5, 6, 3))]
for _n in ("flip_left_right", "flip_up_down", "transpose", "rgb_to_grayscale", "per_image_standardization",
           "total_variation"):
    op(IM, _n, "pixels")
op(IM, "rot90", "pixels", call=lambda m, x: m.rot90(x, 3))
op(IM, "resize", "pixels", call=lambda m, x: m.resize(x, (8, 4)))
GENERATORS["pixels_nearest"] = GENERATORS["pixels"]
op(IM, "resize", "pixels_nearest", call=lambda m, x: m.resize(x, (3, 13), method="nearest"))
op(IM, "central_crop", "pixels", call=lambda m, x: m.central_crop(x, 0.5))
op(IM, "crop_to_bounding_box", "pixels", call=lambda m, x: m.crop_to_bounding_box(x, 1, 2, 3, 3))
op(IM, "pad_to_bounding_box", "pixels", call=lambda m, x: m.pad_to_bounding_box(x, 1, 0, 7, 8))
op(IM, "resize_with_crop_or_pad", "pixels", call=lambda m, x: m.resize_with_crop_or_pad(x, 8, 3))
op(IM, "grayscale_to_rgb", "pixels", call=lambda m, x: m.grayscale_to_rgb(x[..., :1]))
op(IM, "adjust_brightness", "pixels", call=lambda m, x: m.adjust_brightness(x, 0.2))
op(IM, "adjust_contrast", "pixels", grad=False, call=lambda m, x: m.adjust_contrast(x, 1.7))
op(IM, "adjust_gamma", "pixels", call=lambda m, x: m.adjust_gamma(x, 2.2, 0.9))
op(IM, "convert_image_dtype", "pixels", grad=False, call=lambda m, x: m.convert_image_dtype(x, "uint8"))
op(IM, "image_gradients", "pixels", call=lambda m, x: m.image_gradients(x)[1])
op(IM, "psnr", "two_pixels", call=lambda m, a, b: m.psnr(a, b, 1.0))
layer("Normalization", lambda L: L.Normalization(axis=-1, mean=[0.5, -1.0, 2.0], variance=[4.0, 0.25, 1.0]), _S)
layer("Resizing", lambda L: L.Resizing(8, 4), _I)
layer("CenterCrop", lambda L: L.CenterCrop(3, 4), _I)
layer("CategoryEncoding", lambda L: L.CategoryEncoding(5, output_mode="count"), ("ints", (3, 4), 5))
# 3-D and adaptive pooling (issue 37)
layer("MaxPooling3D", lambda L: L.MaxPooling3D(3, 2, padding="same"), (2, 5, 4, 3, 2))
layer("AveragePooling3D", lambda L: L.AveragePooling3D(3, 2, padding="same"), (2, 5, 4, 3, 2))
layer("AdaptiveAveragePooling1D", lambda L: L.AdaptiveAveragePooling1D(3), (2, 7, 3))
layer("AdaptiveMaxPooling1D", lambda L: L.AdaptiveMaxPooling1D(3), (2, 7, 3))
layer("AdaptiveAveragePooling2D", lambda L: L.AdaptiveAveragePooling2D((2, 3)), (2, 7, 5, 3))
layer("AdaptiveMaxPooling2D", lambda L: L.AdaptiveMaxPooling2D(3, data_format="channels_first"), (2, 3, 7, 5))
layer("AdaptiveAveragePooling3D", lambda L: L.AdaptiveAveragePooling3D((2, 3, 2)), (2, 5, 7, 4, 2))
layer("AdaptiveMaxPooling3D", lambda L: L.AdaptiveMaxPooling3D(2), (2, 5, 7, 4, 2))
layer("EinsumDense", lambda L: L.EinsumDense("abc,cde->abde", (None, 4, 2), activation="tanh", bias_axes="de"), _S)
LAYERS_NOT_COMPARED["Hashing"] = "not differentiable; compared with Keras in tests/test_hashing_layer.py"
LAYERS_NOT_COMPARED["HashedCrossing"] = "not differentiable; compared with Keras in tests/test_hashed_crossing.py"
layer("AutoContrast", lambda L: L.AutoContrast(value_range=(-1, 1)), _I)
layer("Pipeline", lambda L: L.Pipeline([L.Dense(4, activation="tanh"), L.LayerNormalization(), L.Dense(3)]), (3, 5))
LAYERS_NOT_COMPARED["RandomGrayscale"] = "random: compared with Keras at factor 0 and 1 in tests/test_random_grayscale.py"
LAYERS_NOT_COMPARED["RandomInvert"] = "random: compared with Keras where certain in tests/test_random_invert.py"

# keras.ops windows and histogram (issue 37)
for _n in ("bartlett", "blackman", "hamming", "hanning"):
    op(K, _n, grad=False, call=lambda m, x, _n=_n: getattr(m, _n)(7))
op(K, "kaiser", grad=False, call=lambda m, x: m.kaiser(9, 2.5))
op(K, "histogram", grad=False, call=lambda m, x: m.concatenate(m.histogram(m.reshape(x, (-1,)), bins=5)))
op(K, "histogram", grad=False,  # counts then edges, in one tensor
   call=lambda m, x: m.concatenate(m.histogram(m.reshape(x, (-1,)), bins=3, range=(-1.0, 1.0))))
# the windows are floatx() whatever the input: compared in float32 only
FLOAT32_ONLY |= {(K, _n) for _n in ("bartlett", "blackman", "hamming", "hanning", "kaiser")}
GENERATORS["cholesky_factor"] = lambda rng: [np.tril(rng.uniform(-0.5, 0.5, (2, 3, 3)), -1)
                                             + np.diag(rng.uniform(1.0, 2.0, 3))]
op(K, "cholesky_inverse", "cholesky_factor")
op(K, "cholesky_inverse", "cholesky_factor", call=lambda m, x: m.cholesky_inverse(m.swapaxes(x, -1, -2), upper=True))
op(K, "view", grad=False, call=lambda m, x: m.view(x, "int32"))
op(K, "view", grad=False, call=lambda m, x: m.view(m.view(x, "uint8"), "int16"))
GENERATORS["with_nan"] = lambda rng: [np.where(np.eye(3, 4, 1) > 0, np.nan, _signed(rng, 3, 4))]
op(K, "nanquantile", "with_nan", call=lambda m, x: m.nanquantile(x, [0.2, 0.7], axis=1))
op(K, "nanpercentile", "with_nan", call=lambda m, x: m.nanpercentile(x, 35.0, axis=0, keepdims=True))
op(K, "nanmedian", "with_nan", call=lambda m, x: m.nanmedian(x))
op(K, "nanmedian", "with_nan", call=lambda m, x: m.nanmedian(x, axis=-1))
op(K, "psnr", "two", call=lambda m, a, b: m.psnr(a, b, 2.0))

# tf.nn's aliases of tf.math's approx_max_k / approx_min_k (issue 37)
op(N, "approx_max_k", "distinct", call=lambda m, x: m.approx_max_k(x, 2)[0])
FLOAT32_ONLY.add(("tf.nn", "approx_max_k"))
NOT_COMPARED["tf.nn"]["approx_min_k"] = NOT_COMPARED["tf.math"]["approx_min_k"]

# descend/ops/nn_extra_ops.py: 3-D pooling, pool, space_to_batch, collapse_repeated (issue 37)
op(N, "max_pool3d", "volume", call=lambda m, x: m.max_pool3d(x, 2, (1, 2, 2), "SAME"))
op(N, "avg_pool3d", "volume", call=lambda m, x: m.avg_pool3d(x, (2, 3, 2), (2, 1, 2), "SAME"))
FLOAT32_ONLY.update({("tf.nn", "max_pool3d"), ("tf.nn", "avg_pool3d")})
op(N, "pool", "image", call=lambda m, x: m.pool(x, [2, 3], "AVG", [2, 2], "SAME"))
op(N, "space_to_batch", "image", call=lambda m, x: m.space_to_batch(x, [2, 3], [[1, 0], [0, 0]]))
NOT_COMPARED["tf.nn"]["collapse_repeated"] = ("integer labels, no gradient; tests/test_nn_train_extra.py checks it "
                                              "against TF")
_MORPH = lambda x: np.linspace(-1, 1, 18).reshape(3, 2, 3).astype(x.dtype.name)  # noqa: E731
op(N, "dilation2d", "image", call=lambda m, x: m.dilation2d(x, _MORPH(x), [1, 2, 1, 1], "SAME", "NHWC", [1, 1, 2, 1]))
op(N, "erosion2d", "image", call=lambda m, x: m.erosion2d(x, _MORPH(x), [1, 1, 2, 1], "VALID", "NHWC", [1, 2, 1, 1]))
_K3T = lambda x: np.linspace(-1, 1, 36).reshape(2, 2, 3, 3, 1).astype(x.dtype.name)  # noqa: E731
op(N, "conv3d_transpose", "volume", call=lambda m, x: m.conv3d_transpose(x, _K3T(x), (2, 10, 12, 3, 3), (2, 2, 1),
                                                                          "SAME"))
op(N, "conv_transpose", "image", call=lambda m, x: m.conv_transpose(
    x, np.linspace(-1, 1, 18).reshape(3, 2, 1, 3).astype(x.dtype.name), (2, 10, 6, 1), [2, 1], "SAME"))
for _scale in (True, False):
    op(N, "batch_norm_with_global_normalization", call=(lambda sc: lambda m, x: m.batch_norm_with_global_normalization(
        x, x[0], x[1] * x[1], x[2], x[0] + 2.0, 1e-3, sc))(_scale))
op(N, "atrous_conv2d_transpose", "image", call=lambda m, x: m.atrous_conv2d_transpose(
    x, np.linspace(-1, 1, 36).reshape(3, 2, 2, 3).astype(x.dtype.name), (2, 5, 6, 2), 2, "SAME"))
op(N, "max_pool_with_argmax", "image", call=lambda m, x: m.max_pool_with_argmax(x, 3, 2, "SAME")[0])

# tf.linalg's decompositions and their uses (issue 37); vectors are compared squared (their signs are free)
GENERATORS["tall"] = lambda rng: [rng.standard_normal((2, 4, 3))]
GENERATORS["wide"] = lambda rng: [rng.standard_normal((2, 3, 5))]
GENERATORS["symmetric"] = lambda rng: [(lambda a: a + np.swapaxes(a, -1, -2))(rng.standard_normal((2, 3, 3)))]
GENERATORS["tall_and_rhs"] = lambda rng: [rng.standard_normal((2, 4, 3)), rng.standard_normal((2, 4, 2))]
GENERATORS["lu_and_rhs"] = lambda rng: [rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 2))]
GENERATORS["tridiagonal"] = lambda rng: [rng.standard_normal((2, 3, 4)) + np.array([0.0, 4.0, 0.0])[:, None],
                                         rng.standard_normal((2, 4, 2))]
GENERATORS["bands"] = lambda rng: [rng.standard_normal((3, 4)) + np.array([4.0, 0.0, 0.0])[:, None],
                                   rng.standard_normal((4, 2))]
_PERM = np.array([2, 0, 1], np.int32)
op(LA, "qr", "tall", call=lambda m, a: m.qr(a)[1] ** 2)
op(LA, "qr", "batch_square", call=lambda m, a: m.qr(a)[0] * m.qr(a)[1][..., :1, :1])
op(LA, "svd", "tall", call=lambda m, a: m.svd(a, compute_uv=False))
op(LA, "svd", "wide", call=lambda m, a: m.svd(a)[1] ** 2 + m.svd(a)[0][..., None, :])
op(LA, "svd", "tall", call=lambda m, a: m.svd(a)[2] ** 2)
op(LA, "svd", "wide", call=lambda m, a: m.svd(a)[2] ** 2)
op(LA, "svd", "tall", call=lambda m, a: m.svd(a)[1] ** 2)
op(LA, "eigh", "symmetric", call=lambda m, a: m.eigh(a)[1] ** 2 + m.eigh(a)[0][..., None, :])
op(LA, "eigvalsh", "symmetric", call=lambda m, a: m.eigvalsh(a))
op(LA, "pinv", "tall", call=lambda m, a: m.pinv(a))
op(LA, "lstsq", "tall_and_rhs", call=lambda m, a, b: m.lstsq(a, b))
op(LA, "lstsq", "tall_and_rhs", call=lambda m, a, b: m.lstsq(a[..., :3, :], b[..., :3, :], l2_regularizer=0.5))
op(LA, "matrix_rank", "tall", grad=False, call=lambda m, a: m.matrix_rank(a))
# expm on norms near 1: on norm-6 matrices ("batch_square") TF's float32 values and gradients carry float32
# rounding of up to 2e-5 relative in the entries that cancel (descend's are the closer to float64); larger norms
# (squarings) are checked in float64 in tests/op_cases_core.py and tests/test_linalg_decompositions.py
GENERATORS["small_square"] = lambda rng: [0.4 * rng.standard_normal((2, 3, 3))]
op(LA, "expm", "small_square", call=lambda m, a: m.expm(a))
op(LA, "lu", "batch_square", grad=False, call=lambda m, a: m.lu(a)[0])  # TF registers no gradient for Lu
op(LA, "lu_solve", "lu_and_rhs", call=lambda m, a, b: m.lu_solve(a, _PERM, b))
op(LA, "lu_matrix_inverse", "lu_and_rhs", call=lambda m, a, b: m.lu_matrix_inverse(a, _PERM))
op(LA, "lu_reconstruct", "lu_and_rhs", call=lambda m, a, b: m.lu_reconstruct(a, _PERM))
op(LA, "tensor_diag", "vectors", call=lambda m, a, b: m.tensor_diag(a[:3] + b[:, None][:2]))
op(LA, "tensor_diag_part", call=lambda m, x: m.tensor_diag_part(x[:2, :3][:, :, None, None] * x[None, None, :2, :3]))
op(LA, "normalize", call=lambda m, x: m.normalize(x, axis=1)[0])
op(LA, "normalize", call=lambda m, x: m.normalize(x, ord=1)[1])
op(LA, "tridiagonal_solve", "tridiagonal", call=lambda m, d, b: m.tridiagonal_solve(d, b))
op(LA, "tridiagonal_matmul", "tridiagonal", call=lambda m, d, b: m.tridiagonal_matmul(d, b))
op(LA, "banded_triangular_solve", "bands", call=lambda m, a, b: m.banded_triangular_solve(a, b, lower=True))
op(LA, "banded_triangular_solve", "bands", call=lambda m, a, b: m.banded_triangular_solve(a, b, lower=False,
                                                                                          adjoint=True))
# eigh_tridiagonal: forward only (TF's values come from bisection, whose tape gradient is not the eigenvalues')
GENERATORS["tridiagonal_bands"] = lambda rng: [rng.standard_normal(5), rng.standard_normal(4)]
op(LA, "eigh_tridiagonal", "tridiagonal_bands", grad=False, call=lambda m, a, b: m.eigh_tridiagonal(a, b))
op(LA, "eigh_tridiagonal", "tridiagonal_bands", grad=False,
   call=lambda m, a, b: m.eigh_tridiagonal(a, b, eigvals_only=False, select="i", select_range=[1, 3])[1] ** 2)
op(LA, "eigh_tridiagonal", "tridiagonal_bands", grad=False,
   call=lambda m, a, b: m.eigh_tridiagonal(a, b, select="v", select_range=[-0.5, 1.0]))
op(LA, "sqrtm", "batch_square", call=lambda m, a: m.sqrtm(a))
op(LA, "sqrtm", "spd", call=lambda m, a: m.sqrtm(a))
# tf.linalg's linear operators: classes, compared with TF's method by method in tests/test_linalg_decompositions.py
for _n in ("LinearOperator", "LinearOperatorFullMatrix", "LinearOperatorDiag", "LinearOperatorIdentity",
           "LinearOperatorLowerTriangular", "LinearOperatorScaledIdentity", "LinearOperatorZeros",
           "LinearOperatorComposition", "LinearOperatorAdjoint", "LinearOperatorInversion", "LinearOperatorKronecker",
           "LinearOperatorBlockDiag", "LinearOperatorPermutation", "LinearOperatorHouseholder",
           "LinearOperatorToeplitz", "LinearOperatorTridiag", "LinearOperatorLowRankUpdate",
           "LinearOperatorBlockLowerTriangular"):
    NOT_COMPARED["tf.linalg"][_n] = "a class, not an op: compared with TF's in tests/test_linalg_decompositions.py"

# keras.ops: decompositions, Fourier transforms, framing, unique... (issue 37; descend/keras/ops_more.py)
GENERATORS["tall2_and_rhs"] = lambda rng: [rng.standard_normal((4, 3)), rng.standard_normal((4, 2))]
GENERATORS["signal"] = lambda rng: [rng.standard_normal((2, 20))]
GENERATORS["spectrum"] = lambda rng: [rng.standard_normal((2, 4, 9)), rng.standard_normal((2, 4, 9))]
op(K, "qr", "tall", call=lambda m, a: m.qr(a)[1] ** 2)
op(K, "qr", "batch_square", call=lambda m, a: m.qr(a, mode="complete")[0] * m.qr(a)[1][..., :1, :1])
op(K, "svd", "tall", call=lambda m, a: m.svd(a, compute_uv=False))
op(K, "svd", "tall", call=lambda m, a: m.svd(a, full_matrices=False)[0] ** 2 + m.svd(a, full_matrices=False)[1][
    ..., None, :])
op(K, "svd", "wide", call=lambda m, a: m.svd(a, full_matrices=False)[2] ** 2)
op(K, "eigh", "symmetric", call=lambda m, a: m.eigh(a)[1] ** 2 + m.eigh(a)[0][..., None, :])
op(K, "pinv", "tall", call=lambda m, a: m.pinv(a))
op(K, "lstsq", "tall2_and_rhs", call=lambda m, a, b: m.lstsq(a, b))
op(K, "lstsq", "tall2_and_rhs", call=lambda m, a, b: m.lstsq(a, b[:, 0]))
op(K, "matrix_rank", "tall", grad=False, call=lambda m, a: m.matrix_rank(a))
op(K, "lu_factor", "square", grad=False, call=lambda m, a: m.lu_factor(a)[0])
op(K, "lu_factor", "square", grad=False, call=lambda m, a: m.lu_factor(a)[1])
op(K, "fft", "two", call=lambda m, a, b: m.stack(m.fft((a, b))))
op(K, "fft2", "two", call=lambda m, a, b: m.stack(m.fft2((a, b))))
op(K, "ifft2", "two", call=lambda m, a, b: m.stack(m.ifft2((a, b))))
op(K, "rfft", call=lambda m, x: m.stack(m.rfft(x)))
op(K, "rfft", call=lambda m, x: m.stack(m.rfft(x, 7)))
op(K, "rfft", grad=False, call=lambda m, x: m.stack(m.rfft(x, 3)))  # TF has no gradient when it crops
op(K, "irfft", "two", call=lambda m, a, b: m.irfft((a, b)))
op(K, "irfft", "two", call=lambda m, a, b: m.irfft((a, b), 9))
op(K, "irfft", "two", grad=False, call=lambda m, a, b: m.irfft((a, b), 4))  # TF has no gradient when it crops
op(K, "extract_sequences", "signal", call=lambda m, x: m.extract_sequences(x, 5, 3))
op(K, "stft", "signal", call=lambda m, x: m.stack(m.stft(x, 8, 4, 16)))
op(K, "stft", "signal", call=lambda m, x: m.stack(m.stft(x, 6, 3, 8, window="hamming", center=False)))
op(K, "stft", "signal", call=lambda m, x: m.stack(m.stft(x, 5, 2, 8, window=None)))
op(K, "istft", "spectrum", call=lambda m, a, b: m.istft((a, b), 16, 4, 16))
op(K, "istft", "spectrum", call=lambda m, a, b: m.istft((a, b), 12, 5, 16, length=20, window="hamming", center=False))
op(K, "istft", "spectrum", call=lambda m, a, b: m.istft((a, b), 10, 4, 16, window=None))
op(K, "unique", grad=False, call=lambda m, x: m.unique(m.round(x)))
op(K, "unique", grad=False, call=lambda m, x: m.unique(m.round(x), sorted=False, return_counts=True)[1])
op(K, "unique", grad=False, call=lambda m, x: m.unique(m.round(x), return_inverse=True)[1])
NOT_COMPARED["keras.ops"]["argpartition"] = ("the order within each side of the partition is unspecified (NumPy's "
                                             "contract); tests/test_keras_ops_more.py checks the partition against "
                                             "Keras'")
op(K, "segment_prod", call=lambda m, x: m.segment_prod(x, _SEG))
op(K, "segment_prod", call=lambda m, x: m.segment_prod(x, _SEG, num_segments=4))
op(K, "i0", call=lambda m, x: m.i0(x))  # not an edge-value row: TF's i0(+-inf) is NaN, descend's +inf (the limit)
op(K, "correlate", "vectors", call=lambda m, a, b: m.correlate(a, b, "full"))
op(K, "correlate", "vectors", call=lambda m, a, b: m.correlate(a, b[:3], "same"))
op(K, "correlate", "vectors", call=lambda m, a, b: m.correlate(a, b[:2]))
op(K, "adaptive_average_pool", "image", call=lambda m, x: m.adaptive_average_pool(x, (2, 4)))
op(K, "adaptive_max_pool", "image", call=lambda m, x: m.adaptive_max_pool(x, 3))
CASE_NAMES = {(c.namespace, c.name) for c in CASES}
# keras.ops' CTC (issue 37; descend/ops/ctc_ops.py): padded labels, a repeat, an empty label, shorter sequences
_CTC_TARGET = np.array([[1, 2, 2], [3, 1, 0], [0, 0, 0]], np.int32)
_CTC_TARGET_LEN, _CTC_OUTPUT_LEN = np.array([3, 2, 0], np.int32), np.array([6, 4, 3], np.int32)
GENERATORS["ctc_logits"] = lambda rng: [rng.standard_normal((3, 6, 4))]
op(K, "ctc_loss", "ctc_logits", call=lambda m, x: m.ctc_loss(_CTC_TARGET, x, _CTC_TARGET_LEN, _CTC_OUTPUT_LEN))
op(K, "ctc_loss", "ctc_logits", call=lambda m, x: m.ctc_loss(
    np.where(_CTC_TARGET == 3, 0, _CTC_TARGET), x, _CTC_TARGET_LEN, _CTC_OUTPUT_LEN, mask_index=3))
# Keras' TF backend computes a float64 CTC loss in float32: compared in float32 (float64 against the sum over
# every path in tests/op_cases_core.py)
FLOAT32_ONLY.add(("keras.ops", "ctc_loss"))
op(K, "ctc_decode", "ctc_logits", grad=False, call=lambda m, x: m.ctc_decode(x, _CTC_OUTPUT_LEN)[0])
op(K, "ctc_decode", "ctc_logits", grad=False, call=lambda m, x: m.ctc_decode(x, _CTC_OUTPUT_LEN, merge_repeated=False,
                                                                          mask_index=2)[1])
CASE_NAMES = {(c.namespace, c.name) for c in CASES}
# keras.ops.unfold / fold (issue 37): PyTorch's im2col / col2im on channels-first images
GENERATORS["nchw"] = lambda rng: [rng.standard_normal((2, 3, 7, 6))]
GENERATORS["columns"] = lambda rng: [rng.standard_normal((2, 18, 24))]
op(K, "unfold", "nchw", call=lambda m, x: m.unfold(x, 3))
op(K, "unfold", "nchw", call=lambda m, x: m.unfold(x, (2, 3), dilation=(2, 1), padding=1, stride=(2, 1)))
op(K, "fold", "columns", call=lambda m, x: m.fold(x, (7, 6), (2, 3), dilation=(2, 1), padding=1, stride=(2, 1)))
CASE_NAMES = {(c.namespace, c.name) for c in CASES}
# keras.ops.rearrange, vectorize, associative_scan, jvp (issue 37)
op(K, "rearrange", "sequence", call=lambda m, x: m.rearrange(x, "b (h w) c -> (b w) c h", w=7))
op(K, "rearrange", "image", call=lambda m, x: m.rearrange(x, "b h w c -> b (c h) w"))
for _n in ("vectorize", "associative_scan", "jvp"):
    NOT_COMPARED["keras.ops"][_n] = ("takes a Python callable: compared with Keras (NumPy's vectorize where Keras' TF "
                                     "backend cannot vmap) in tests/test_keras_ops_more.py")
CASE_NAMES = {(c.namespace, c.name) for c in CASES}
op(K, "ctc_decode", "ctc_logits", grad=False, call=lambda m, x: m.ctc_decode(x, _CTC_OUTPUT_LEN, strategy="beam_search",
                                                                          beam_width=100, top_paths=2)[0])
op(K, "ctc_decode", "ctc_logits", grad=False, call=lambda m, x: m.ctc_decode(x, _CTC_OUTPUT_LEN, strategy="beam_search",
                                                                          beam_width=5, top_paths=3, mask_index=2)[1])
CASE_NAMES = {(c.namespace, c.name) for c in CASES}
# TF's beam search scores carry float32 rounding even for float64 logits; descend's are float64: float32 rows only
FLOAT32_ONLY.add(("keras.ops", "ctc_decode"))
# tf.math's special functions and segment products, tf.nn's depthwise backprops (issue 37, descend/ops/special_ops.py,
# segment_prod_ops.py, depthwise_backprop_ops.py); wide ranges and edge values in tests/test_special_functions.py
for _n in ("lgamma", "digamma", "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e"):
    op(M, _n, "signed" if _n.startswith("bessel") else "positive")
op(M, "lgamma", call=lambda m, x: m.lgamma(x * 3.0))  # negative arguments: the reflection side
op(M, "digamma", call=lambda m, x: m.digamma(x * 3.0))
op(M, "lbeta", "positive")
op(M, "zeta", "positive", call=lambda m, q: m.zeta(np.full((3, 4), 2.5, q.dtype.name), q))
op(M, "polygamma", "positive", call=lambda m, x: m.polygamma(np.array([0.0, 1.0, 2.0, 3.0], x.dtype.name), x))
for _n in ("igamma", "igammac"):
    op(M, _n, "two_positive", call=(lambda n: lambda m, a, x: getattr(m, n)(a, m.abs(x) * 2.0))(_n))
op(M, "betainc", "positive", call=lambda m, x: m.betainc(np.full((3, 4), 1.7, x.dtype.name),
                                                           np.full((3, 4), 2.3, x.dtype.name), x / 2.5))
op(M, "unsorted_segment_prod", call=lambda m, x: m.unsorted_segment_prod(x, np.array([1, 0, 1]), 3))
op(M, "segment_prod", call=lambda m, x: m.segment_prod(x, np.array([0, 0, 2])))
_DW = lambda x: np.linspace(-1, 1, 18).reshape(3, 2, 3, 1).astype(x.dtype.name)  # noqa: E731
op(N, "depthwise_conv2d_backprop_input", "image", call=lambda m, x: m.depthwise_conv2d_backprop_input(
    [2, 5, 6, 3], _DW(x), x[:, ::2, ::2], [1, 2, 2, 1], "SAME"))
op(N, "depthwise_conv2d_backprop_filter", "image", call=lambda m, x: m.depthwise_conv2d_backprop_filter(
    x, [3, 2, 3, 1], x[:, :3, :5] * x[:, 1:4, 1:6], [1, 1, 1, 1], "VALID"))
for _n in ("embedding_lookup_sparse", "safe_embedding_lookup_sparse"):
    NOT_COMPARED["tf.nn"][_n] = ("its ids are a SparseTensor (TF's class on TF's side): compared with TF, values and "
                                 "IndexedSlices gradients, in tests/test_nn_sparse_embedding.py")

# tf.nn's candidate samplers and sampled losses (issue 37, descend/composites/sampled_losses.py)
for _n in ("fixed_unigram_candidate_sampler", "all_candidate_sampler", "learned_unigram_candidate_sampler"):
    NOT_COMPARED["tf.nn"][_n] = "random draws: their distribution against TF's in tests/test_nn_sampled.py"
NOT_COMPARED["tf.nn"]["compute_accidental_hits"] = "integer positions, no gradient: against TF in tests/test_nn_sampled.py"
_SAMPLES = lambda x: (np.array([0, 2, 1], np.int64), np.full((3, 1), 0.3, x.dtype.name),  # noqa: E731
                      np.array([0.2, 0.5, 0.7], x.dtype.name))
for _n in ("nce_loss", "sampled_softmax_loss"):
    op(N, _n, call=(lambda n: lambda m, x: getattr(m, n)(x, x[:, 0] * 2.0, np.array([[1], [0], [2]]), x[:, :4][:3],
                                                         3, 3, sampled_values=_SAMPLES(x),
                                                         remove_accidental_hits=True))(_n))
# tf.nn.isotonic_regression / ctc_unique_labels (issue 37, descend/ops/nn_misc_ops.py)
op(N, "isotonic_regression", call=lambda m, x: m.isotonic_regression(x)[0])
op(N, "isotonic_regression", call=lambda m, x: m.isotonic_regression(x, decreasing=False, axis=0)[0])
NOT_COMPARED["tf.nn"]["ctc_unique_labels"] = "integer labels, no gradient: against TF in tests/test_nn_misc.py"
_WSB_K = lambda x: np.linspace(-1, 1, 18).reshape(3, 2, 3, 1).astype(x.dtype.name)  # noqa: E731
op(N, "with_space_to_batch", "image", call=lambda m, x: m.with_space_to_batch(
    x, [2, 2], "SAME", lambda v, n, p: m.convolution(v, _WSB_K(x), padding=p), filter_shape=[3, 2]))
for _n in ("fractional_max_pool", "fractional_avg_pool"):
    NOT_COMPARED["tf.nn"][_n] = ("random pooling sequences: on TF's own sequences the values and gradients equal TF's, "
                                 "and the draws follow TF's distribution, in tests/test_nn_fractional.py")
NOT_COMPARED["tf.nn"]["experimental"] = ("a namespace: general_dropout equals TF's given the same sampler, "
                                         "stateless_dropout's mask is keyed by the seed (tests/test_nn_misc.py)")
for _n in ("RNNCellDropoutWrapper", "RNNCellResidualWrapper"):
    NOT_COMPARED["tf.nn"][_n] = "a cell wrapper (a layer): against TF's in tests/test_nn_rnn_cell_wrappers.py"
# tf.image's file codecs (issue 37): bytes in, pixels out, no gradient
for _n in ("decode_png", "encode_png", "decode_bmp", "decode_gif", "decode_image", "is_jpeg", "extract_jpeg_shape"):
    NOT_COMPARED["tf.image"][_n] = "a file codec (bytes, no gradient): compared with TF in tests/test_image_codecs.py"
# issue 37: Wrapper, StackedRNNCells, Conv3DTranspose
LAYERS_NOT_COMPARED["Wrapper"] = "the abstract base class of TimeDistributed (tests/test_wrapper_stacked_cells.py)"
layer("StackedRNNCells", lambda L: L.RNN(L.StackedRNNCells([L.LSTMCell(2), L.GRUCell(3)]), return_sequences=True), _S)
layer("Conv3DTranspose", lambda L: L.Conv3DTranspose(2, 3, strides=2, padding="same"), _V)
layer("Conv3DTranspose", lambda L: L.Conv3DTranspose(3, (2, 3, 1), strides=(1, 2, 2), output_padding=(0, 1, 0)), _V)
layer("ConvLSTM1D", lambda L: L.ConvLSTM1D(2, 3, padding="same", return_sequences=True), (2, 3, 5, 2))
layer("ConvLSTM2D", lambda L: L.ConvLSTM2D(2, (2, 3), strides=(1, 2)), (2, 3, 4, 5, 2))
layer("ConvLSTM2D", lambda L: L.ConvLSTM2D(3, 2, padding="same", data_format="channels_first",
                                           return_sequences=True, go_backwards=True), (2, 3, 2, 4, 3))
layer("ConvLSTM3D", lambda L: L.ConvLSTM3D(2, 2, dilation_rate=(1, 2, 1)), (2, 2, 3, 4, 3, 2))
layer("ReversibleEmbedding", lambda L: L.ReversibleEmbedding(7, 3, tie_weights=False), ("ints", (3, 4), 7))
layer("ReversibleEmbedding", lambda L: L.ReversibleEmbedding(7, 3, logit_soft_cap=1.5), (2, 4, 3), {"reverse": True})
LAYERS_NOT_COMPARED["SpectralNormalization"] = ("assigns its kernel in training; get_weights lists vector_u first: "
                                                "compared with Keras by weight name in tests/test_reversible_spectral.py")
_GQA_VALUE = np.random.default_rng(37).standard_normal((2, 4, 3)).astype(np.float32)
layer("GroupedQueryAttention", lambda L: L.GroupQueryAttention(3, 4, 2, use_gate=True), _S,
      {"value": _GQA_VALUE, "attention_mask": np.tril(np.ones((5, 4), bool))[None].repeat(2, 0)})
layer("GroupedQueryAttention", lambda L: L.GroupQueryAttention(2, 2, 1, sliding_window=2), _S,
      {"value": _GQA_VALUE, "use_causal_mask": True})
for _n in ("Solarization", "RandomPosterization", "RandomColorDegeneration", "RandomSaturation", "RandomHue",
           "RandomSharpness"):
    LAYERS_NOT_COMPARED[_n] = "random: compared with Keras on Keras' own draws in tests/test_color_augmentation.py"
for _n in ("MixUp", "CutMix"):
    LAYERS_NOT_COMPARED[_n] = "random: compared with Keras on Keras' own draws in tests/test_mixing.py"
LAYERS_NOT_COMPARED["Equalization"] = "not differentiable (a histogram): compared with Keras in tests/test_image_filters.py"
LAYERS_NOT_COMPARED["RandomGaussianBlur"] = "random: compared with Keras on Keras' own draws in tests/test_image_filters.py"
LAYERS_NOT_COMPARED["RandomErasing"] = "random: compared with Keras on Keras' own draws in tests/test_random_erasing.py"
LAYERS_NOT_COMPARED["RandomColorJitter"] = "random: compared with Keras where certain in tests/test_random_color_jitter.py"
LAYERS_NOT_COMPARED["RandomShear"] = "random: compared with Keras on Keras' own draws in tests/test_random_shear.py"
layer("STFTSpectrogram", lambda L: L.STFTSpectrogram(mode="log", frame_length=8, frame_step=3, fft_length=16),
      (2, 30, 2))
layer("STFTSpectrogram", lambda L: L.STFTSpectrogram(mode="stft", frame_length=6, padding="same", expand_dims=True,
                                                     window="hamming", periodic=True), (2, 20, 3))
layer("STFTSpectrogram", lambda L: L.STFTSpectrogram(mode="psd", frame_length=8, scaling="spectrum",
                                                     data_format="channels_first"), (2, 2, 24))
LAYERS_NOT_COMPARED["MelSpectrogram"] = "a NumPy preprocessing layer (not differentiable): compared with Keras in " \
                                        "tests/test_mel_spectrogram.py"
LAYERS_NOT_COMPARED["RandomPerspective"] = "random: compared with Keras on Keras' own draws in " \
                                           "tests/test_random_perspective.py"
LAYERS_NOT_COMPARED["MaxNumBoundingBoxes"] = "pads data (not differentiable): compared with Keras in " \
                                             "tests/test_max_num_bounding_boxes.py"
LAYERS_NOT_COMPARED["RandAugment"] = "random: compared with Keras on deterministic picks in tests/test_rand_augment.py"
LAYERS_NOT_COMPARED["AugMix"] = "random: compared with Keras on deterministic chains in tests/test_aug_mix.py"
LAYERS_NOT_COMPARED["RandomElasticTransform"] = "random (its noise drawn inside Keras' op): its warp compared with " \
                                                "Keras' map_coordinates in tests/test_random_elastic_transform.py"
LAYERS_NOT_COMPARED["ContrastLimitedAdaptiveHistogramEqualization"] = (
    "not differentiable (histograms): compared with Keras in tests/test_clahe.py")
# tf.math.special (issue 37, descend/ops/special_ops.py): each function over its common range and, scaled, over the
# ranges where its method changes (power series, continued fraction, quadrature, asymptotic expansions)
for _n, _inputs, _scales in (("dawsn", "signed", (1.0, 5.0)), ("fresnel_cos", "signed", (1.0, 3.0)),
                             ("fresnel_sin", "signed", (1.0, 3.0)), ("bessel_j0", "signed", (1.0, 12.0)),
                             ("bessel_j1", "signed", (1.0, 12.0)), ("expint", "positive", (1.0, 25.0)),
                             ("spence", "positive", (1.0, 3.0)), ("bessel_y0", "positive", (1.0, 10.0)),
                             ("bessel_y1", "positive", (1.0, 10.0)), ("bessel_k0", "positive", (1.0, 14.0)),
                             ("bessel_k0e", "positive", (1.0, 14.0)), ("bessel_k1", "positive", (0.5, 14.0)),
                             ("bessel_k1e", "positive", (1.0, 14.0)), ("bessel_i0", "signed", (1.0,)),
                             ("bessel_i1e", "signed", (1.0,))):
    for _s in _scales:
        op(M, "special", _inputs, call=(lambda n, s: lambda m, x: getattr(m.special, n)(x * s))(_n, _s))
# ======================================================================== keras.ops.image (issue 37)
KI = "keras.ops.image"
NOT_COMPARED[KI] = {"elastic_transform": "random: descend's noise is not TF's (its warp, seeded determinism and "
                                         "statistics in tests/test_keras_ops_image.py)"}
GENERATORS["pixels_cf"] = lambda rng: [rng.uniform(0.05, 0.95, (2, 3, 5, 6))]
GENERATORS["pixel"] = lambda rng: [rng.uniform(0.05, 0.95, (7, 6, 2))]
GENERATORS["plane_and_points"] = lambda rng: [rng.uniform(-1, 1, (5, 6)), np.stack(
    [rng.uniform(-1.5, 5.5, (3, 4)), rng.uniform(-1.5, 6.5, (3, 4))])]
# mirror where TF's backend reads inside the image (|index| < size: TF gathers out of range at size)
GENERATORS["plane_and_points_mirror"] = lambda rng: [rng.uniform(-1, 1, (5, 6)), np.stack(
    [rng.uniform(-3.9, 3.4, (3, 4)), rng.uniform(-4.9, 4.4, (3, 4))])]
GENERATORS["volumes"] = lambda rng: [rng.uniform(-1, 1, (2, 5, 4, 6, 2))]
_AFFINE = np.array([[1.1, 0.2, -0.7, 0.1, 0.9, 0.4, 0.01, 0.02], [0.8, -0.3, 1.2, 0.2, 1.1, -0.6, 0.0, 0.0]],
                   np.float32)
_QUAD = np.array([[0, 0], [5, 0], [0, 4], [5, 4]], np.float32)
_QUAD2 = np.array([[0.5, 0.3], [4.6, 0.1], [0.2, 3.8], [5.2, 4.4]], np.float32)
for _n in ("rgb_to_grayscale", "rgb_to_hsv"):
    op(KI, _n, "pixels")
op(KI, "hsv_to_rgb", "pixels", grad=False)  # TF registers no gradient for HSVToRGB
op(KI, "resize", "pixels", call=lambda m, x: m.resize(x, (8, 4)))
op(KI, "resize", "pixels", call=lambda m, x: m.resize(x, (3, 4), interpolation="bicubic", antialias=True))
op(KI, "resize", "pixels_cf", call=lambda m, x: m.resize(x, (9, 7), interpolation="nearest",
                                                          data_format="channels_first"))
op(KI, "resize", "pixels", grad=False,  # (TF registers no gradient for ResizeArea)
   call=lambda m, x: m.resize(x, (4, 4), interpolation="area", crop_to_aspect_ratio=True))
op(KI, "resize", "pixel", call=lambda m, x: m.resize(x, (4, 8), interpolation="lanczos3", pad_to_aspect_ratio=True,
                                                      fill_value=0.5))
# TF's gradient of ImageProjectiveTransformV3 warps the output gradient by the inverse transform (an approximation
# of the adjoint); descend's is the exact adjoint of its sampling, checked numerically in tests/test_keras_ops_image.py
op(KI, "affine_transform", "pixels", grad=False, call=lambda m, x: m.affine_transform(x, _AFFINE))
op(KI, "affine_transform", "pixels_cf", grad=False, call=lambda m, x: m.affine_transform(
    x, _AFFINE[1], interpolation="nearest", fill_mode="reflect", data_format="channels_first"))
op(KI, "affine_transform", "pixel", grad=False, call=lambda m, x: m.affine_transform(x, _AFFINE[0],
                                                                                     fill_mode="nearest"))
op(KI, "perspective_transform", "pixels", grad=False, call=lambda m, x: m.perspective_transform(x, _QUAD, _QUAD2))
op(KI, "perspective_transform", "pixel", grad=False, call=lambda m, x: m.perspective_transform(
    x, _QUAD2, _QUAD, interpolation="nearest", fill_value=0.25))
for _mode in ("constant", "nearest", "wrap", "reflect", "mirror"):
    for _order in (0, 1):
        op(KI, "map_coordinates", "plane_and_points_mirror" if _mode == "mirror" else "plane_and_points",
           grad=_order == 1, call=(lambda o, f: lambda m, x, c: (
            m.map_coordinates(x, c, o, f, fill_value=0.5)))(_order, _mode))
op(KI, "extract_patches", "pixels", call=lambda m, x: m.extract_patches(x, 2))
op(KI, "extract_patches", "pixels_cf", call=lambda m, x: m.extract_patches(
    x, (3, 2), strides=(1, 2), padding="same", data_format="channels_first"))
op(KI, "extract_patches", "pixel", call=lambda m, x: m.extract_patches(x, (2, 3), strides=1, dilation_rate=2))
op(KI, "extract_patches_3d", "volumes", call=lambda m, x: m.extract_patches_3d(x, 2, padding="same"))
op(KI, "extract_patches_3d", "volumes", call=lambda m, x: m.extract_patches_3d(x, (3, 2, 2), strides=(1, 2, 3)))
op(KI, "pad_images", "pixels", call=lambda m, x: m.pad_images(x, 1, 2, None, 0, target_height=8))
op(KI, "pad_images", "pixels_cf", call=lambda m, x: m.pad_images(x, None, None, 2, 1, 7, 9,
                                                                 data_format="channels_first"))
op(KI, "crop_images", "pixels", call=lambda m, x: m.crop_images(x, 1, 2, None, None, 3, 3))
op(KI, "crop_images", "pixel", call=lambda m, x: m.crop_images(x, None, 1, 2, 0, 4))
op(KI, "gaussian_blur", "pixels", call=lambda m, x: m.gaussian_blur(x))
op(KI, "gaussian_blur", "pixels_cf", call=lambda m, x: m.gaussian_blur(x, (5, 3), (2.0, 0.7),
                                                                        data_format="channels_first"))
op(KI, "scale_and_translate", "pixels", call=lambda m, x: m.scale_and_translate(
    x, (2, 9, 4, 3), np.array([1.7, 0.6], np.float32), np.array([-0.5, 1.0], np.float32), (1, 2), "linear"))
for _method in ("cubic", "lanczos3", "lanczos5"):
    op(KI, "scale_and_translate", "pixel", call=(lambda meth: lambda m, x: m.scale_and_translate(
        x, (3, 10, 2), np.array([0.4, 1.6], np.float32), np.array([0.3, -0.2], np.float32), (0, 1), meth,
        antialias=meth != "lanczos5"))(_method))
op(KI, "sobel_edges", "pixels")
op(KI, "sobel_edges", "pixels_cf", call=lambda m, x: m.sobel_edges(x, data_format="channels_first"))
op(KI, "ssim", "two_pixels", call=lambda m, a, b: m.ssim(a, b, filter_size=3, filter_sigma=1.2))
# TF computes these in float32 whatever the images' dtype (resizes, projective transforms, the scale-and-translate
# kernels), has no float64 NCHW convolution (extract_patches), or Keras' ssim window is float64 where tf.image.ssim's
# (descend's) is float32: compared in float32
FLOAT32_ONLY |= {(KI, _n) for _n in ("resize", "affine_transform", "perspective_transform", "extract_patches",
                                     "scale_and_translate", "ssim")}
