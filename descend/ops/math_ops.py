"""Elementwise arithmetic, transcendental functions, comparisons, reductions and matmul.

Each op is its forward (NumPy arrays in, array out) followed by its VJP
(descend Tensors in, one gradient per input out). Comments give the math.
"""

from __future__ import annotations

import math

import numpy as np

from .. import backend
from .._native import blas
from ..errors import InvalidArgumentError
from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from ._util import normalize_axis
from .row_reduce import reduce_last
from .array_ops import broadcast_to, reshape
from .core_ops import _grad_to_input, _keep_shape, reduce_sum, unbroadcast

__all__ = [
    "add", "subtract", "multiply", "divide", "truediv", "floordiv", "mod", "negative", "reciprocal",
    "pow", "square", "sqrt", "rsqrt", "exp", "log", "log1p", "expm1", "abs", "sign", "maximum",
    "minimum", "where", "sin", "cos", "tanh", "erf", "identity", "stop_gradient",
    "add_n", "cast", "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_not", "argmax", "argmin", "reduce_sum", "reduce_mean",
    "reduce_max", "reduce_min", "reduce_prod", "reduce_logsumexp", "cumsum", "matmul", "einsum",
    "norm", "zeros_like", "ones_like", "squared_difference", "floor", "ceil", "round", "is_nan", "is_inf",
    "is_finite", "linspace",
]

_SQRT_PI_INV2 = 2.0 / math.sqrt(math.pi)


# ---------------------------------------------------------------- arithmetic
@defop(same_dtype=(0, 1), elementwise=True)
def add(x, y):
    """``x + y`` with broadcasting."""
    return np.add(x, y)


add.defvjp(
    lambda g, ans, x, y: unbroadcast(g, x),
    lambda g, ans, x, y: unbroadcast(g, y),
)


@defop(same_dtype=(0, 1), elementwise=True)
def subtract(x, y):
    """``x - y`` with broadcasting."""
    return np.subtract(x, y)


subtract.defvjp(
    lambda g, ans, x, y: unbroadcast(g, x),
    lambda g, ans, x, y: unbroadcast(negative(g), y),
)


@defop(same_dtype=(0, 1), elementwise=True)
def multiply(x, y):
    """``x * y`` with broadcasting."""
    return np.multiply(x, y)


multiply.defvjp(
    lambda g, ans, x, y: unbroadcast(multiply(g, y), x),
    lambda g, ans, x, y: unbroadcast(multiply(g, x), y),
)


@defop(same_dtype=(0, 1), elementwise=True)
def divide(x, y):
    """``x / y``; integer inputs give float64 (``1 / 0`` is inf), as ``tf.math.truediv``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(x, y)


divide.defvjp(  # d(x/y)/dx = 1/y ; d(x/y)/dy = -x/y^2
    lambda g, ans, x, y: unbroadcast(divide(g, y), x),
    lambda g, ans, x, y: unbroadcast(negative(divide(multiply(g, x), square(y))), y),
)


truediv = divide


def _check_int_zero(name, x, y):
    if np.result_type(x, y).kind in "iu" and np.any(np.equal(y, 0)):
        raise InvalidArgumentError(f"{name}: integer division by zero (the divisor has a zero element)")


@defop(same_dtype=(0, 1), differentiable=False, elementwise=True)
def floordiv(x, y):
    """``x // y`` (floor division); no gradient."""
    _check_int_zero("floordiv", x, y)
    return np.floor_divide(x, y)


@defop(same_dtype=(0, 1), elementwise=True)
def mod(x, y):
    """``x % y`` with the sign of ``y`` (Python/TF ``floormod``)."""
    _check_int_zero("mod", x, y)
    return np.mod(x, y)


mod.defvjp(  # x mod y = x - y * floor(x / y): dx = g, dy = -g * floor(x / y)
    lambda g, ans, x, y: unbroadcast(g, x),
    lambda g, ans, x, y: unbroadcast(negative(multiply(g, floordiv(x, y))), y),
)


@defop
def negative(x):
    """``-x``."""
    return np.negative(x)


@negative.defvjp
def _(g, ans, x):
    return negative(g)


@defop
def reciprocal(x):
    """``1 / x``."""
    return np.reciprocal(x)


@reciprocal.defvjp
def _(g, ans, x):
    # d(1/x) = -1/x^2 = -ans^2
    return negative(multiply(g, square(ans)))


@defop(same_dtype=(0, 1), elementwise=True)
def pow(x, y):  # noqa: A001 - TF's name
    """``x ** y``."""
    return np.power(x, y)


def _like(v, g):
    """A raw Python scalar operand (binary fast path) as a Tensor of g's dtype."""
    return v if hasattr(v, "_value") else Tensor(np.asarray(v, dtype=g._value.dtype))


def _pow_grad_x(g, ans, x, y):
    # dx = g * y * x^(y-1)
    y = _like(y, g)
    return unbroadcast(multiply(g, multiply(y, pow(x, subtract(y, 1)))), x)


def _pow_grad_y(g, ans, x, y):
    # dy = g * x^y * log(x), taken as 0 where x <= 0 (as TF)
    x = _like(x, g)
    positive = greater(x, 0)
    safe_x = where(positive, x, ones_like(x))
    return unbroadcast(where(positive, multiply(g, multiply(ans, log(safe_x))), zeros_like(ans)), y)


pow.defvjp(_pow_grad_x, _pow_grad_y)


@defop
def square(x):
    """``x * x``."""
    return np.square(x)


@square.defvjp
def _(g, ans, x):
    return multiply(g, multiply(x, 2))


@defop(same_dtype=(0, 1), elementwise=True)
def squared_difference(x, y):
    """``(x - y)^2``."""
    d = np.subtract(x, y)
    return d * d


squared_difference.defvjp(  # d/dx = 2(x - y), d/dy = -2(x - y)
    lambda g, ans, x, y: unbroadcast(multiply(multiply(g, subtract(x, y)), 2), x),
    lambda g, ans, x, y: unbroadcast(multiply(multiply(g, subtract(y, x)), 2), y),
)


@defop
def sqrt(x):
    """Elementwise square root."""
    return np.sqrt(x)


@sqrt.defvjp
def _(g, ans, x):
    # d sqrt(x) = 1 / (2 sqrt(x))
    return divide(multiply(g, 0.5), ans)


@defop
def rsqrt(x):
    """``1 / sqrt(x)``."""
    return 1 / np.sqrt(x)


@rsqrt.defvjp
def _(g, ans, x):
    # d x^-1/2 = -1/2 x^-3/2 = -0.5 * ans^3
    return multiply(multiply(g, -0.5), multiply(ans, square(ans)))


@defop
def exp(x):
    """``e^x``."""
    return np.exp(x)


@exp.defvjp
def _(g, ans, x):
    return multiply(g, ans)


@defop
def log(x):
    """Natural logarithm."""
    return np.log(x)


@log.defvjp
def _(g, ans, x):
    return divide(g, x)


@defop
def log1p(x):
    """``log(1 + x)``, accurate for small x."""
    return np.log1p(x)


@log1p.defvjp
def _(g, ans, x):
    return divide(g, add(x, 1))


@defop
def expm1(x):
    """``e^x - 1``, accurate for small x."""
    return np.expm1(x)


@expm1.defvjp
def _(g, ans, x):
    return multiply(g, add(ans, 1))


@defop
def abs(x):  # noqa: A001 - TF's name
    """``|x|``; the gradient at 0 is 0 (``sign(0)``), as TF."""
    return np.abs(x)


@abs.defvjp
def _(g, ans, x):
    return multiply(g, sign(x))


@defop
def sign(x):
    """-1, 0 or 1; its gradient is zero."""
    return np.sign(x)


@sign.defvjp
def _(g, ans, x):
    return zeros_like(x)


@defop(same_dtype=(0, 1), elementwise=True)
def maximum(x, y):
    """Elementwise max; ties send the gradient to ``x`` (as TF)."""
    return np.maximum(x, y)


maximum.defvjp(
    lambda g, ans, x, y: unbroadcast(where(greater_equal(x, y), g, zeros_like(g)), x),
    lambda g, ans, x, y: unbroadcast(where(greater_equal(x, y), zeros_like(g), g), y),
)


@defop(same_dtype=(0, 1), elementwise=True)
def minimum(x, y):
    """Elementwise min; ties send the gradient to ``x`` (as TF)."""
    return np.minimum(x, y)


minimum.defvjp(
    lambda g, ans, x, y: unbroadcast(where(less_equal(x, y), g, zeros_like(g)), x),
    lambda g, ans, x, y: unbroadcast(where(less_equal(x, y), zeros_like(g), g), y),
)


@defop(same_dtype=(1, 2))
def where(condition, x, y):
    """``x`` where ``condition`` holds, else ``y`` (broadcasting, as ``tf.where`` v2)."""
    if condition.dtype != np.bool_:
        raise TypeError(f"where: condition must be bool. Received dtype {condition.dtype.name}")
    return np.where(condition, x, y)


where.defvjp(
    None,
    lambda g, ans, c, x, y: unbroadcast(where(c, g, zeros_like(g)), x),
    lambda g, ans, c, x, y: unbroadcast(where(c, zeros_like(g), g), y),
)


@defop(same_dtype=(0, 1, 2))
def clip_by_value(t, clip_value_min, clip_value_max):
    """Clamp ``t`` to ``[clip_value_min, clip_value_max]``; gradient 0 outside (as TF)."""
    if np.any(np.asarray(clip_value_min) > np.asarray(clip_value_max)):
        raise InvalidArgumentError("clip_by_value: clip_value_min must be <= clip_value_max")
    return np.minimum(np.maximum(t, clip_value_min), clip_value_max)


clip_by_value.defvjp(
    lambda g, ans, t, lo, hi: unbroadcast(where(logical_or(less(t, lo), greater(t, hi)), zeros_like(g), g), t),
    None,
    None,
)


# ---------------------------------------------------------------- transcendental
@defop
def sin(x):
    """Sine."""
    return np.sin(x)


@sin.defvjp
def _(g, ans, x):
    return multiply(g, cos(x))


@defop
def cos(x):
    """Cosine."""
    return np.cos(x)


@cos.defvjp
def _(g, ans, x):
    return negative(multiply(g, sin(x)))


@defop
def tanh(x):
    """Hyperbolic tangent."""
    return np.tanh(x)


@tanh.defvjp
def _(g, ans, x):
    # d tanh = 1 - tanh^2
    return multiply(g, subtract(1, square(ans)))


_scipy_erf = None


def _erf_np(x):
    # SciPy's erf is vectorised and exact; without it, math.erf per element. Looked up on first use:
    # importing SciPy would double the time of `import descend`
    global _scipy_erf
    if _scipy_erf is None:
        try:
            from scipy.special import erf as _scipy_erf
        except ImportError:  # pragma: no cover - depends on the environment
            _scipy_erf = False
    if _scipy_erf:
        return _scipy_erf(x).astype(x.dtype, copy=False)
    return np.vectorize(math.erf, otypes=[x.dtype])(x) if x.size else x.copy()


@defop
def erf(x):
    """The error function."""
    return _erf_np(x)


@erf.defvjp
def _(g, ans, x):
    # d erf = 2/sqrt(pi) e^{-x^2}
    return multiply(g, multiply(exp(negative(square(x))), _SQRT_PI_INV2))


# ---------------------------------------------------------------- identity, casts, comparisons
@defop(view=True, sparse_grad=True)
def identity(x):
    """A Tensor with the same value (a snapshot when ``x`` is a Variable)."""
    return x


@identity.defvjp
def _(g, ans, x):
    return g


@defop(view=True, differentiable=False)
def stop_gradient(x):
    """The same value, through which no gradient flows."""
    return x


@defop("add_n", same_dtype="all")
def _add_n(*inputs):
    if not inputs:
        raise ValueError("add_n needs at least one input")
    out = np.array(inputs[0], copy=True)
    for a in inputs[1:]:
        if a.shape != out.shape:
            raise InvalidArgumentError(f"add_n: all inputs must have one shape; received {out.shape} and {a.shape}")
        out += a
    return out


@_add_n.defvjp
def _(g, ans, *inputs):
    return tuple(g for _ in inputs)


def add_n(inputs, name=None):
    """Sum a list of same-shaped tensors."""
    return _add_n(*inputs)


@defop
def cast(x, dtype=None):
    """Convert ``x`` to ``dtype``; the gradient flows only between float dtypes."""
    return x.astype(backend.np_dtype(dtype), copy=False)


@cast.defvjp
def _(g, ans, x, dtype=None):
    if x.dtype.kind not in "fc":
        return None
    return cast(g, dtype=x.dtype)


def _compare(name, fn, doc):
    op = defop(name, same_dtype=(0, 1), differentiable=False, elementwise=True)(lambda x, y: fn(x, y))
    op.__doc__ = doc
    return op


equal = _compare("equal", np.equal, "Elementwise ``x == y`` (bool).")
not_equal = _compare("not_equal", np.not_equal, "Elementwise ``x != y`` (bool).")
less = _compare("less", np.less, "Elementwise ``x < y`` (bool).")
less_equal = _compare("less_equal", np.less_equal, "Elementwise ``x <= y`` (bool).")
greater = _compare("greater", np.greater, "Elementwise ``x > y`` (bool).")
greater_equal = _compare("greater_equal", np.greater_equal, "Elementwise ``x >= y`` (bool).")
logical_and = _compare("logical_and", np.logical_and, "Elementwise ``x and y``.")
logical_or = _compare("logical_or", np.logical_or, "Elementwise ``x or y``.")


@defop(differentiable=False)
def logical_not(x):
    """Elementwise ``not x``."""
    return np.logical_not(x)


def _float_only(name, fn, doc):
    def forward(x):
        if x.dtype.kind != "f":
            raise TypeError(f"{name}: `x` must be a floating tensor. Received: dtype {x.dtype.name}")
        return fn(x)

    op = defop(name, differentiable=False, elementwise=True)(forward)
    op.__doc__ = doc
    return op


floor = _float_only("floor", np.floor, "Largest integer not above ``x``, elementwise; no gradient (as TF).")
ceil = _float_only("ceil", np.ceil, "Smallest integer not below ``x``, elementwise; no gradient (as TF).")


@defop(differentiable=False, elementwise=True)
def round(x):  # noqa: A001 - TF's name
    """``x`` rounded to the nearest integer, halves to even (as TF and NumPy); integers unchanged; no gradient."""
    return np.round(x) if x.dtype.kind == "f" else x


is_nan = _float_only("is_nan", np.isnan, "Elementwise: whether ``x`` is NaN (bool).")
is_inf = _float_only("is_inf", np.isinf, "Elementwise: whether ``x`` is +Inf or -Inf (bool).")
is_finite = _float_only("is_finite", np.isfinite, "Elementwise: whether ``x`` is neither NaN nor Inf (bool).")


@defop(differentiable=False)
def argmax(input, axis=0, output_type="int64"):  # noqa: A002 - TF's name
    """Index of the largest value along ``axis`` (default 0, as TF)."""
    return np.argmax(input, axis=axis).astype(output_type)


@defop(differentiable=False)
def argmin(input, axis=0, output_type="int64"):  # noqa: A002
    """Index of the smallest value along ``axis`` (default 0, as TF)."""
    return np.argmin(input, axis=axis).astype(output_type)


@defop(differentiable=False)
def zeros_like(x, dtype=None):
    """Zeros of ``x``'s shape (and dtype, unless given)."""
    return np.zeros(x.shape, x.dtype if dtype is None else backend.np_dtype(dtype))


@defop(differentiable=False)
def ones_like(x, dtype=None):
    """Ones of ``x``'s shape (and dtype, unless given)."""
    return np.ones(x.shape, x.dtype if dtype is None else backend.np_dtype(dtype))


# ---------------------------------------------------------------- reductions
@defop
def reduce_mean(input_tensor, axis=None, keepdims=False):
    """Mean over ``axis``; integer inputs give an integer (truncated) mean, as TF."""
    axes = normalize_axis(axis, input_tensor.ndim)
    if input_tensor.dtype.kind in "iu":
        n = max(int(np.prod([input_tensor.shape[a] for a in axes])), 1)
        total = np.sum(input_tensor, axis=axes, keepdims=keepdims)
        # C division truncates toward zero (TF's MeanReducer); // would floor
        return (np.sign(total) * (np.abs(total) // n)).astype(input_tensor.dtype)
    return np.mean(input_tensor, axis=axes, keepdims=keepdims)


@reduce_mean.defvjp
def _(g, ans, x, axis=None, keepdims=False):
    axes = normalize_axis(axis, x.ndim)
    n = math.prod([x.shape[a] for a in axes])
    return divide(_grad_to_input(g, x, axis, keepdims), float(max(n, 1)))


def _extremum_vjp(g, ans, x, axis, keepdims):
    # the gradient is shared equally by the elements that tie for the extremum (as TF)
    axes = normalize_axis(axis, x.ndim)
    a = ans if keepdims else reshape(ans, shape=_keep_shape(x.shape, axes))
    hit = cast(equal(x, a), dtype=x.dtype)
    count = reduce_sum(hit, axis=axes, keepdims=True)
    return multiply(divide(hit, count), _grad_to_input(g, x, axis, keepdims))


@defop
def reduce_max(input_tensor, axis=None, keepdims=False):
    """Maximum over ``axis``."""
    axes = normalize_axis(axis, input_tensor.ndim)
    if len(axes) == 1 and axes[0] == input_tensor.ndim - 1 and input_tensor.dtype.kind == "f":
        return reduce_last(np.maximum, input_tensor, keepdims)
    return np.max(input_tensor, axis=axes, keepdims=keepdims)


@reduce_max.defvjp
def _(g, ans, x, axis=None, keepdims=False):
    return _extremum_vjp(g, ans, x, axis, keepdims)


@defop
def reduce_min(input_tensor, axis=None, keepdims=False):
    """Minimum over ``axis``."""
    return np.min(input_tensor, axis=normalize_axis(axis, input_tensor.ndim), keepdims=keepdims)


@reduce_min.defvjp
def _(g, ans, x, axis=None, keepdims=False):
    return _extremum_vjp(g, ans, x, axis, keepdims)


@defop(differentiable=True)
def _prod_of_others(x, axis=None):
    """For each element, the product of the other elements of its reduction group
    (exact where x has zeros)."""
    axes = normalize_axis(axis, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = rest + list(axes)
    xt = np.transpose(x, perm)
    lead = xt.shape[: len(rest)]
    flat = xt.reshape(lead + (-1,))
    ones = np.ones(lead + (1,), x.dtype)
    left = np.cumprod(np.concatenate([ones, flat[..., :-1]], axis=-1), axis=-1)
    right = np.flip(np.cumprod(np.concatenate([ones, np.flip(flat, -1)[..., :-1]], axis=-1), axis=-1), -1)
    return np.transpose((left * right).reshape(xt.shape), np.argsort(perm))


@defop
def reduce_prod(input_tensor, axis=None, keepdims=False):
    """Product over ``axis``, in the input's dtype (an int32 product is int32, as TF)."""
    dtype = input_tensor.dtype if input_tensor.dtype.kind in "iu" else None  # NumPy would widen to int64
    return np.prod(input_tensor, axis=normalize_axis(axis, input_tensor.ndim), keepdims=keepdims, dtype=dtype)


@reduce_prod.defvjp
def _(g, ans, x, axis=None, keepdims=False):
    # d prod / d x_i = prod_{j != i} x_j
    return multiply(_grad_to_input(g, x, axis, keepdims), _prod_of_others(x, axis=axis))


@defop
def reduce_logsumexp(input_tensor, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` over ``axis``, computed without overflow."""
    axes = normalize_axis(axis, input_tensor.ndim)
    m = np.max(input_tensor, axis=axes, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(input_tensor - m), axis=axes, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axes)


@reduce_logsumexp.defvjp
def _(g, ans, x, axis=None, keepdims=False):
    # d lse / dx = softmax(x) = exp(x - lse)
    axes = normalize_axis(axis, x.ndim)
    a = ans if keepdims else reshape(ans, shape=_keep_shape(x.shape, axes))
    return multiply(_grad_to_input(g, x, axis, keepdims), exp(subtract(x, a)))


@defop
def cumsum(x, axis=0, exclusive=False, reverse=False):
    """Cumulative sum along ``axis`` (TF's ``exclusive``/``reverse`` flags)."""
    a = np.flip(x, axis) if reverse else x
    out = np.cumsum(a, axis=axis, dtype=x.dtype)
    if exclusive:
        out = np.concatenate([np.zeros_like(np.take(out, [0], axis=axis)),
                              np.take(out, range(out.shape[axis] - 1), axis=axis)], axis=axis)
    return np.flip(out, axis) if reverse else out


@cumsum.defvjp
def _(g, ans, x, axis=0, exclusive=False, reverse=False):
    return cumsum(g, axis=axis, exclusive=exclusive, reverse=not reverse)


# ---------------------------------------------------------------- linear algebra
@defop(same_dtype=(0, 1))
def matmul(a, b, transpose_a=False, transpose_b=False):
    """Matrix product over the last two axes; leading axes broadcast (batched)."""
    if a.ndim < 2 or b.ndim < 2:
        raise InvalidArgumentError(f"matmul: inputs must have rank >= 2; received shapes {a.shape} and {b.shape}")
    if transpose_a:
        a = np.swapaxes(a, -1, -2)
    if transpose_b:
        b = np.swapaxes(b, -1, -2)
    if a.shape[-1] != b.shape[-2]:
        raise InvalidArgumentError(
            f"matmul: inner dimensions differ: {a.shape} @ {b.shape} (after transposes)"
        )
    return blas.matmul(a, b)  # small products on one BLAS thread (descend._native.blas)


def _matmul_grad_a(g, ans, a, b, transpose_a=False, transpose_b=False):
    # C = A B : dA = G B^T (with the transposes folded in)
    if transpose_a:
        ga = matmul(b, g, transpose_a=transpose_b, transpose_b=True)
    else:
        ga = matmul(g, b, transpose_b=not transpose_b)
    return unbroadcast(ga, a)


def _matmul_grad_b(g, ans, a, b, transpose_a=False, transpose_b=False):
    # C = A B : dB = A^T G (with the transposes folded in)
    if transpose_b:
        gb = matmul(g, a, transpose_a=True, transpose_b=transpose_a)
    else:
        gb = matmul(a, g, transpose_a=not transpose_a)
    return unbroadcast(gb, b)


matmul.defvjp(_matmul_grad_a, _matmul_grad_b)


def _parse_einsum(equation: str, n: int):
    if "..." in equation:
        raise ValueError(f"einsum: ellipsis ('...') is not supported. Received: {equation!r}")
    eq = equation.replace(" ", "")
    if "->" not in eq:
        raise ValueError(f"einsum needs an explicit output ('->'). Received: {equation!r}")
    lhs, out = eq.split("->")
    ins = lhs.split(",")
    if len(ins) != n:
        raise ValueError(f"einsum: equation {equation!r} names {len(ins)} operands; received {n}")
    for s in ins:
        if len(set(s)) != len(s):
            raise ValueError(f"einsum: repeated index within one operand ({s!r}) is not supported")
    return ins, out


class EinsumAsMatmul:
    """A two-operand einsum of fixed shapes as one matrix product, as TF's ``Einsum`` computes it: each operand's
    axes in the order (indices of the output both share, its own indices of the output, the indices summed over),
    their product (one BLAS call per batch entry; a 2-D product as the ``matmul`` op makes it,
    :func:`descend._native.blas.matmul`), and the result's axes in the output's order, contiguous. The operand whose
    indices end the output comes second, so that the product lands in the output's own layout; an operand whose
    reordered axes are a view BLAS reads (unit stride along one of its two matrix axes) is read in place, any other
    is copied first, and a product whose layout is not the output's goes through a contiguous array. The eager op
    and a compiled plan both call :meth:`into`, so both give the same bits; NumPy's unoptimized ``einsum`` sums in a
    C loop, many times slower.

    :meth:`of` gives None for what it does not take (an index summed in one operand only, a size-1 axis that
    broadcasts, an index repeated in the output, a dtype other than float32/float64 or two dtypes): the op then
    runs ``np.einsum``."""

    __slots__ = ("swap", "perm_a", "perm_b", "shape_a", "shape_b", "shape_c", "perm_c", "perm_out", "shape_out")

    @classmethod
    def of(cls, equation: str, shape_a: tuple, shape_b: tuple, dtype_a, dtype_b):
        if dtype_a != dtype_b or dtype_a not in (np.dtype(np.float32), np.dtype(np.float64)):
            return None
        lhs, so = equation.replace(" ", "").split("->")
        sa, sb = lhs.split(",")
        if len(sa) != len(shape_a) or len(sb) != len(shape_b) or len(set(so)) != len(so):
            return None
        size: dict = {}
        for sub, shape in ((sa, shape_a), (sb, shape_b)):
            for c, d in zip(sub, shape):
                if size.setdefault(c, d) != d:
                    return None
        if any(c not in size for c in so) or any(c not in sb and c not in so for c in sa) \
                or any(c not in sa and c not in so for c in sb):
            return None
        self = cls()
        # the operand owning the output's last index goes second: its indices are the product's columns
        self.swap = bool(so) and so[-1] in sa and so[-1] not in sb
        if self.swap:
            sa, sb = sb, sa
        batch = [c for c in so if c in sa and c in sb]
        rows = [c for c in so if c in sa and c not in sb]
        cols = [c for c in so if c in sb and c not in sa]
        inner = [c for c in sa if c in sb and c not in so]
        m, k, n = (math.prod(size[c] for c in part) for part in (rows, inner, cols))
        lead = tuple(size[c] for c in batch)
        self.perm_a = tuple(sa.index(c) for c in batch + rows + inner)
        self.perm_b = tuple(sb.index(c) for c in batch + inner + cols)
        self.shape_a, self.shape_b, self.shape_c = lead + (m, k), lead + (k, n), lead + (m, n)
        order = batch + rows + cols
        self.perm_c = tuple(so.index(c) for c in order)  # the output's axes in the product's order
        self.perm_out = tuple(order.index(c) for c in so)
        self.shape_out = tuple(size[c] for c in so)
        return self

    def __call__(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        out = np.empty(self.shape_out, a.dtype)
        self.into(a, b, None, None, None, out)
        return out

    def buffers(self, dtype) -> tuple:
        """The arrays :meth:`into` may copy the operands and write the product into (a compiled plan's, made once)."""
        return tuple(np.empty(shape, dtype) for shape in (self.shape_a, self.shape_b, self.shape_c))

    def into(self, a: np.ndarray, b: np.ndarray, x, y, c, out: np.ndarray) -> None:
        """The product written into the C-contiguous ``out`` (the output's shape), through the arrays of
        :meth:`buffers` where a copy is needed (None: made when needed)."""
        if self.swap:
            a, b = b, a
        x = _matrices(a, self.perm_a, self.shape_a, x)
        y = _matrices(b, self.perm_b, self.shape_b, y)
        direct = _blas_view(np.transpose(out, self.perm_c), self.shape_c, out=True)
        if direct is not None:
            blas.matmul(x, y, out=direct)
            return
        if c is None:
            c = np.empty(self.shape_c, out.dtype)
        blas.matmul(x, y, out=c)
        np.copyto(out, np.transpose(c.reshape(tuple(out.shape[p] for p in self.perm_c)), self.perm_out))


def _blas_view(t: np.ndarray, shape: tuple, out: bool = False):
    """``t`` as an array of ``shape`` without a copy whose matrices (its last two axes) BLAS reads in place, row-major
    or (not for an output) column-major; None where that takes a copy."""
    v = t.reshape(shape)
    if v.size and not np.may_share_memory(v, t):  # (the reshape had to copy: NumPy 2.0 has no copy=False to ask)
        return None
    if v.ndim < 2 or v.size == 0:
        return v if v.flags.c_contiguous else None
    size = v.itemsize
    r, s = v.strides[-2:]
    rows, cols = v.shape[-2:]
    if s == size and r % size == 0 and r >= cols * size:
        return v
    if not out and r == size and s % size == 0 and s >= rows * size:
        return v
    return None


def _matrices(a: np.ndarray, perm: tuple, shape: tuple, buf):
    """``a``'s axes reordered by ``perm`` as an array of ``shape``: a view where BLAS reads it in place, else a copy
    into ``buf`` (made when None)."""
    t = np.transpose(a, perm)
    v = _blas_view(t, shape)
    if v is not None:
        return v
    if buf is None:
        buf = np.empty(shape, a.dtype)
    np.copyto(buf.reshape(t.shape), t)
    return buf


_einsum_pairs: dict = {}  # (equation, shapes, dtypes) -> EinsumAsMatmul or None


def einsum_as_matmul(equation: str, a: np.ndarray, b: np.ndarray):
    """The :class:`EinsumAsMatmul` of ``equation`` over ``a`` and ``b`` (kept per equation, shapes and dtypes), or
    None."""
    key = (equation, a.shape, b.shape, a.dtype, b.dtype)
    found = _einsum_pairs.get(key, False)
    if found is False:
        if len(_einsum_pairs) > 1024:
            _einsum_pairs.clear()
        found = _einsum_pairs[key] = EinsumAsMatmul.of(equation, a.shape, b.shape, a.dtype, b.dtype)
    return found


@defop("einsum", same_dtype="all")
def _einsum(*operands, equation=""):
    _parse_einsum(equation, len(operands))
    if len(operands) == 2:
        pair = einsum_as_matmul(equation, *operands)
        if pair is not None:
            return pair(*operands)
    out = np.einsum(equation, *operands, optimize=len(operands) > 2)
    # a Tensor's array is row-major, as TF's: NumPy's einsum may hand back a transposed view, and a reduction
    # over a strided array adds in another order than over a contiguous one (a compiled plan's einsum writes
    # a contiguous buffer: the two would differ in the last bits downstream)
    return out if out.flags.c_contiguous else np.ascontiguousarray(out)


@_einsum.defvjp
def _(g, ans, *operands, equation=""):
    ins, out = _parse_einsum(equation, len(operands))
    grads = []
    for i, sub in enumerate(ins):
        others = [s for j, s in enumerate(ins) if j != i]
        present = [c for c in sub if c in out or any(c in s for s in others)]
        target = "".join(present)
        eq = ",".join([out] + others) + "->" + target
        gi = _einsum(g, *[o for j, o in enumerate(operands) if j != i], equation=eq)
        if len(target) != len(sub):  # indices summed only in this operand: broadcast back
            shape = tuple(operands[i].shape[k] if c in present else 1 for k, c in enumerate(sub))
            gi = broadcast_to(reshape(gi, shape=shape), shape=operands[i].shape)
        grads.append(gi)
    return tuple(grads)


def _expand_einsum(equation: str, inputs: list):
    """``equation`` in the form the op takes: explicit output, no spaces, each ``...`` replaced by letters of its
    own (upper case ones the equation does not use), and ``inputs`` with their ``...`` axes broadcast against each
    other (so that a letter has one size everywhere, and the gradient of a broadcast axis sums back through
    ``broadcast_to``). The implicit output is NumPy's and TF's: the broadcast axes, then the letters that appear
    once, in alphabetical order."""
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    subs = lhs.split(",")
    if len(subs) != len(inputs):
        raise ValueError(f"einsum: equation {equation!r} names {len(subs)} operands; received {len(inputs)}")
    if any(s.count("...") > 1 or "." in s.replace("...", "") for s in subs + [out]):
        raise ValueError(f"einsum: each operand and the output may hold one ellipsis ('...'), and '.' only in one. "
                         f"Received: {equation!r}")
    if not arrow:
        letters = "".join(subs).replace(".", "")
        out = ("..." if "..." in lhs else "") + "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    if "..." not in lhs + "," + out:
        return ",".join(subs) + "->" + out, inputs
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in eq]
    ranks = [x.ndim - (len(s) - 3) if "..." in s else 0 for s, x in zip(subs, inputs)]
    if any(r < 0 for r in ranks):
        raise ValueError(f"einsum: an operand has fewer axes than its subscripts in {equation!r}; received shapes "
                         f"{[tuple(x.shape) for x in inputs]}")
    batch = max(ranks)
    if batch > len(free):
        raise ValueError(f"einsum: {batch} broadcast axes under '...' are more than this equation has letters for")
    try:
        shape = np.broadcast_shapes(*[tuple(x.shape[s.index("..."):s.index("...") + r])
                                      for s, x, r in zip(subs, inputs, ranks) if "..." in s])
    except ValueError:
        raise ValueError(f"einsum: the axes under '...' do not broadcast in {equation!r}; received shapes "
                         f"{[tuple(x.shape) for x in inputs]}") from None
    if batch and "..." not in out:
        raise ValueError(f"einsum: the output of {equation!r} needs '...' for the broadcast axes of shape {shape}")
    names = "".join(free[:batch])
    for i, (s, x, r) in enumerate(zip(subs, inputs, ranks)):
        if "..." in s:
            p = s.index("...")
            target = tuple(x.shape[:p]) + shape[batch - r:] + tuple(x.shape[p + r:])
            if tuple(x.shape) != target:
                inputs[i] = broadcast_to(x, shape=target)
            subs[i] = s.replace("...", names[batch - r:])
    return ",".join(subs) + "->" + out.replace("...", names), inputs


def einsum(equation: str, *inputs, name=None, optimize=None):
    """Einstein summation, e.g. ``einsum("ij,jk->ik", a, b)``, ``einsum("...ij,...jk->...ik", a, b)`` (batch axes
    under ``...`` broadcast against each other) or ``einsum("ab,b", a, b)`` (the implicit output: the letters that
    appear once, in alphabetical order, after the ``...`` axes).

    An index repeated within one operand takes that operand's diagonal first (``einsum("ii->i", a)`` is
    the diagonal, ``einsum("ii->", a)`` the trace), as NumPy and TensorFlow. ``optimize`` (TF's contraction
    order) changes nothing: NumPy's einsum picks its own.
    """
    inputs = [convert_to_tensor(x) for x in inputs]
    try:
        equation, inputs = _expand_einsum(equation, inputs)
    except ValueError as e:
        raise InvalidArgumentError(str(e)) from None
    eq = equation
    lhs, out = eq.split("->")
    subs = lhs.split(",")
    if all(len(set(sub)) == len(sub) for sub in subs):
        return _einsum(*inputs, equation=equation)
    inputs = list(inputs)
    for i, sub in enumerate(subs):
        x = inputs[i] if isinstance(inputs[i], Tensor) else Tensor(np.asarray(inputs[i]))
        while len(set(sub)) != len(sub):
            c = next(ch for ch in sub if sub.count(ch) > 1)
            p = sub.index(c)
            q = sub.index(c, p + 1)
            n = x.shape[p]
            if x.shape[q] != n:
                raise ValueError(f"einsum: index {c!r} repeats in operand {i} ({sub!r}) over axes of sizes {n} "
                                 f"and {x.shape[q]}")
            # the diagonal of axes (p, q): sum over q of x * I[p, q]
            mask_shape = [1] * x.ndim
            mask_shape[p] = mask_shape[q] = n
            mask = Tensor(np.eye(n, dtype=x.dtype.dtype).reshape(mask_shape))
            x = reduce_sum(multiply(x, mask), axis=q)
            sub = sub[:q] + sub[q + 1:]
        inputs[i], subs[i] = x, sub
    return _einsum(*inputs, equation=",".join(subs) + "->" + out)


def norm(tensor, ord="euclidean", axis=None, keepdims=False, name=None):  # noqa: A002 - TF's name
    """Vector norm over ``axis``: ``"euclidean"``/2, 1 or ``np.inf``; ``"fro"`` for matrices."""
    if ord in ("euclidean", 2, "fro", 2.0):
        return sqrt(reduce_sum(square(tensor), axis=axis, keepdims=keepdims))
    if ord in (1, 1.0):
        return reduce_sum(abs(tensor), axis=axis, keepdims=keepdims)
    if ord == np.inf:
        return reduce_max(abs(tensor), axis=axis, keepdims=keepdims)
    raise ValueError(f"norm: ord must be 'euclidean', 'fro', 1, 2 or np.inf. Received: {ord!r}")


def linspace(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``tf.linspace``).

    ``start`` and ``stop`` may be tensors of shapes that broadcast; the values run along a new axis ``axis``.
    Python or NumPy ints give float64, as TF; the ends are ``start`` and ``stop`` exactly and the values between
    are ``start + i * (stop - start) / (num - 1)`` in the inputs' dtype. Differentiable in ``start`` and
    ``stop``.

    Example:
        >>> import descend as ds
        >>> ds.linspace(0.0, 1.0, 5).numpy()
        array([0.  , 0.25, 0.5 , 0.75, 1.  ], dtype=float32)
        >>> ds.linspace([0.0, 1.0], [1.0, 2.0], 3).shape
        TensorShape([3, 2])
    """
    from ..framework.tensor import convert_to_tensor
    from .array_ops import concat, expand_dims, getitem, transpose

    start = start if hasattr(start, "_value") else convert_to_tensor(start)
    if start.dtype.kind in "iub":
        start = cast(start, "float64")
    if start.dtype.kind != "f":
        raise TypeError(f"linspace: `start` must be a number or a float tensor. Received dtype {start.dtype.name}")
    if hasattr(stop, "_value"):
        if stop.dtype != start.dtype:
            stop = cast(stop, start.dtype) if stop.dtype.kind in "iub" else stop
    else:
        stop = convert_to_tensor(np.asarray(stop, dtype=start.dtype))
    if stop.dtype != start.dtype:
        raise TypeError(f"linspace: `start` and `stop` must have one dtype. Received {start.dtype.name} and "
                        f"{stop.dtype.name}")
    count = num._value if hasattr(num, "_value") else np.asarray(num)
    if count.ndim != 0 or count.dtype.kind not in "iu" or int(count) < 0:
        raise ValueError(f"linspace: `num` must be a non-negative int. Received: num={num!r}")
    count = int(count)
    shape = np.broadcast_shapes(tuple(start.shape), tuple(stop.shape))
    rank = len(shape) + 1
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool) or not -rank <= axis < rank:
        raise ValueError(f"linspace: `axis` must be an int in [{-rank}, {rank}). Received: axis={axis!r}")
    first = expand_dims(broadcast_to(start, shape=shape), -1)
    last = expand_dims(broadcast_to(stop, shape=shape), -1)
    step = divide(subtract(last, first), np.asarray(max(count - 1, 1), start.dtype))
    between = add(first, multiply(step, Tensor(np.arange(1, max(count - 1, 1), dtype=start.dtype))))
    out = getitem(concat([first, between, last], axis=-1), (Ellipsis, slice(0, count)))
    axis = int(axis) % rank
    if axis != rank - 1:
        out = transpose(out, perm=list(range(axis)) + [rank - 1] + list(range(axis, rank - 1)))
    return out
