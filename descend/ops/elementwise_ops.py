"""More elementwise functions of ``tf.math``: inverse trigonometric and hyperbolic functions, ``erfc``,
``cbrt``, ``atan2`` and the ``*_no_nan`` / ``xlogy`` family.

Each op is its NumPy forward followed by its VJP, written with descend ops so that it is
differentiable again. Comments give the math. The ops with a guard (``divide_no_nan``, ``xlogy``,
...) follow TensorFlow's rule for it: the output *and* the gradient are 0 where the guard holds.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework.op import defop
from .core_ops import unbroadcast
from .math_ops import (
    add,
    divide,
    exp,
    log,
    log1p,
    multiply,
    negative,
    not_equal,
    rsqrt,
    square,
    subtract,
    where,
    zeros_like,
)

__all__ = [
    "tan", "acos", "asin", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfc", "cbrt", "atan2",
    "divide_no_nan", "multiply_no_nan", "reciprocal_no_nan", "xlogy", "xdivy", "xlog1py",
]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _float(name: str, x: np.ndarray) -> None:
    if x.dtype.kind != "f":
        raise TypeError(f"{name}: `x` must be a floating tensor (float16, float32 or float64). "
                        f"Received: dtype {x.dtype.name}")


def _float_pair(name: str, x, y) -> None:
    """The dtype check of a binary op: a Python number on one side (the scalar fast path) takes the other's."""
    for v in (x, y):
        if isinstance(v, np.ndarray):
            _float(name, v)


def _one_minus_square(x):
    return subtract(1.0, square(x))


def _unary(name: str, forward, doc: str, vjp, **ignore):
    """The op ``name`` on floating tensors, in one row: its NumPy ``forward(x)`` (the floating-point warnings
    named in ``ignore`` silenced, as ``np.errstate``) and its VJP ``vjp(g, ans, x)``."""
    if ignore:
        def compute(x):
            _float(name, x)
            with np.errstate(**ignore):
                return forward(x)
    else:
        def compute(x):
            _float(name, x)
            return forward(x)
    compute.__name__ = compute.__qualname__ = name
    compute.__doc__ = doc
    op = defop(compute)
    op.defvjp(vjp)
    return op


def _erfc_np(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erfc, otypes=[x.dtype])(x) if x.size else x.copy()


# ---------------------------------------------------------------- trigonometric
tan = _unary("tan", np.tan, "Tangent, elementwise.",
             lambda g, ans, x: multiply(g, add(square(ans), 1.0)))  # d tan(x) = 1 + tan(x)^2
acos = _unary("acos", np.arccos, "Arc cosine, elementwise (NaN outside [-1, 1]).",
              lambda g, ans, x: negative(multiply(g, rsqrt(_one_minus_square(x)))),  # -1 / sqrt(1 - x^2)
              invalid="ignore")
asin = _unary("asin", np.arcsin, "Arc sine, elementwise (NaN outside [-1, 1]).",
              lambda g, ans, x: multiply(g, rsqrt(_one_minus_square(x))), invalid="ignore")  # 1 / sqrt(1 - x^2)
atan = _unary("atan", np.arctan, "Arc tangent, elementwise.",
              lambda g, ans, x: divide(g, add(square(x), 1.0)))  # d atan(x) = 1 / (1 + x^2)


@defop(same_dtype=(0, 1), elementwise=True)
def atan2(y, x):
    """The angle of the point ``(x, y)``, in (-pi, pi], with broadcasting (``tf.math.atan2(y, x)``)."""
    _float_pair("atan2", y, x)
    return np.arctan2(y, x)


def _atan2_grads(g, ans, y, x):
    # d/dy = x / (x^2 + y^2) ; d/dx = -y / (x^2 + y^2)
    s = divide(g, add(square(x), square(y)))
    return unbroadcast(multiply(s, x), y), unbroadcast(negative(multiply(s, y)), x)


atan2.defvjp(_atan2_grads)


# ---------------------------------------------------------------- hyperbolic
sinh = _unary("sinh", np.sinh, "Hyperbolic sine, elementwise.",
              lambda g, ans, x: multiply(g, cosh(x)), over="ignore")  # d sinh = cosh
cosh = _unary("cosh", np.cosh, "Hyperbolic cosine, elementwise.",
              lambda g, ans, x: multiply(g, sinh(x)), over="ignore")  # d cosh = sinh
asinh = _unary("asinh", np.arcsinh, "Inverse hyperbolic sine, elementwise.",
               lambda g, ans, x: multiply(g, rsqrt(add(square(x), 1.0))))  # d asinh(x) = 1 / sqrt(x^2 + 1)
acosh = _unary("acosh", np.arccosh, "Inverse hyperbolic cosine, elementwise (NaN below 1).",
               lambda g, ans, x: multiply(g, rsqrt(subtract(square(x), 1.0))),  # 1 / sqrt(x^2 - 1)
               invalid="ignore")
atanh = _unary("atanh", np.arctanh, "Inverse hyperbolic tangent, elementwise (NaN outside [-1, 1], +-inf at +-1).",
               lambda g, ans, x: divide(g, _one_minus_square(x)), invalid="ignore", divide="ignore")  # 1 / (1 - x^2)

# ---------------------------------------------------------------- special
erfc = _unary("erfc", _erfc_np, "The complementary error function ``1 - erf(x)``, accurate where ``erf(x)`` is "
              "near 1.", lambda g, ans, x: multiply(g, multiply(exp(negative(square(x))), -_TWO_OVER_SQRT_PI)))
# (d erfc(x) = -2/sqrt(pi) exp(-x^2))
cbrt = _unary("cbrt", np.cbrt, "The real cube root, elementwise (negative for negative ``x``).",
              lambda g, ans, x: divide(g, multiply(square(ans), 3.0)))  # d x^(1/3) = 1 / (3 cbrt(x)^2)


# ---------------------------------------------------------------- guarded division and logarithms
def _guarded(name, fn):
    """``fn(x, y)``, 0 where ``y == 0`` (``*_no_nan``)."""

    def forward(x, y):
        _float_pair(name, x, y)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.asarray(fn(x, y))
        return np.where(np.asarray(y) == 0, np.zeros((), out.dtype), out).astype(out.dtype, copy=False)

    return forward


@defop(same_dtype=(0, 1), elementwise=True)
def divide_no_nan(x, y):
    """``x / y``, and 0 where ``y == 0`` (whatever ``x`` is), with broadcasting."""
    return _guarded("divide_no_nan", np.true_divide)(x, y)


def _divide_no_nan_grads(g, ans, x, y):
    # d/dx = 1/y ; d/dy = -x/y^2 ; both 0 where y == 0
    gx = divide_no_nan(g, y)
    gy = negative(divide_no_nan(divide_no_nan(multiply(g, x), y), y))
    return unbroadcast(gx, x), unbroadcast(gy, y)


divide_no_nan.defvjp(_divide_no_nan_grads)


@defop(same_dtype=(0, 1), elementwise=True)
def multiply_no_nan(x, y):
    """``x * y``, and 0 where ``y == 0`` (even where ``x`` is inf or NaN), with broadcasting."""
    return _guarded("multiply_no_nan", np.multiply)(x, y)


def _multiply_no_nan_grads(g, ans, x, y):
    # d/dx = y (0 where y == 0) ; d/dy = x (0 where the upstream gradient is 0), as TF's rule
    return unbroadcast(multiply_no_nan(g, y), x), unbroadcast(multiply_no_nan(x, g), y)


multiply_no_nan.defvjp(_multiply_no_nan_grads)


def reciprocal_no_nan(x, name=None):
    """``1 / x``, and 0 where ``x == 0`` (``tf.math.reciprocal_no_nan``)."""
    from ..framework.tensor import convert_to_tensor

    x = convert_to_tensor(x)
    return divide_no_nan(add(zeros_like(x), 1.0), x)


def _where_x(x, value):
    """``value`` where ``x != 0``, else 0 (TF's guard for ``xlogy``, ``xdivy``, ``xlog1py``)."""
    return where(not_equal(x, zeros_like(x)), value, zeros_like(value))


def _x_guarded(name, fn):
    def forward(x, y):
        _float_pair(name, x, y)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.asarray(fn(x, y))
        zero = np.broadcast_to(np.asarray(x) == 0, out.shape)
        return np.where(zero, np.zeros((), out.dtype), out).astype(out.dtype, copy=False)

    return forward


@defop(same_dtype=(0, 1), elementwise=True)
def xlogy(x, y):
    """``x * log(y)``, and 0 where ``x == 0`` (even where ``y`` is 0), with broadcasting."""
    return _x_guarded("xlogy", lambda a, b: a * np.log(b))(x, y)


def _xlogy_grads(g, ans, x, y):
    # d/dx = log(y) ; d/dy = x / y ; both 0 where x == 0
    return (unbroadcast(_where_x(x, multiply(g, log(y))), x),
            unbroadcast(_where_x(x, divide(multiply(g, x), y)), y))


xlogy.defvjp(_xlogy_grads)


@defop(same_dtype=(0, 1), elementwise=True)
def xdivy(x, y):
    """``x / y``, and 0 where ``x == 0`` (even where ``y`` is 0), with broadcasting."""
    return _x_guarded("xdivy", np.true_divide)(x, y)


def _xdivy_grads(g, ans, x, y):
    # d/dx = 1/y ; d/dy = -x/y^2 ; both 0 where x == 0
    return (unbroadcast(_where_x(x, divide(g, y)), x),
            unbroadcast(_where_x(x, negative(divide(multiply(g, x), square(y)))), y))


xdivy.defvjp(_xdivy_grads)


@defop(same_dtype=(0, 1), elementwise=True)
def xlog1py(x, y):
    """``x * log1p(y)``, and 0 where ``x == 0``, with broadcasting."""
    return _x_guarded("xlog1py", lambda a, b: a * np.log1p(b))(x, y)


def _xlog1py_grads(g, ans, x, y):
    # d/dx = log1p(y) ; d/dy = x / (1 + y) ; both 0 where x == 0
    return (unbroadcast(_where_x(x, multiply(g, log1p(y))), x),
            unbroadcast(_where_x(x, divide(multiply(g, x), add(y, 1.0))), y))


xlog1py.defvjp(_xlog1py_grads)


# ---------------------------------------------------------------- the inverse error function (issue 37)
_erf_vec = np.vectorize(math.erf, otypes=[np.float64])


def _erfinv_np(y: np.ndarray) -> np.ndarray:
    """``erfinv`` by Newton's method on ``erf`` from Giles' (2010) single-precision approximation; +-inf at
    +-1, NaN outside [-1, 1]."""
    y64 = np.asarray(y, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = -np.log((1.0 - y64) * (1.0 + y64))
        small = w < 5.0
        ws, wb = w - 2.5, np.sqrt(w) - 3.0
        ps = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
                  0.246640727, 1.50140941):
            ps = c + ps * ws
        pb = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
                  1.00167406, 2.83297682):
            pb = c + pb * wb
        x = np.where(small, ps, pb) * y64
        for _ in range(3):  # Newton: x <- x - (erf(x) - y) / erf'(x)
            x = x - (_erf_vec(x) - y64) / (_TWO_OVER_SQRT_PI * np.exp(-x * x))
        x = np.where(np.abs(y64) == 1.0, np.sign(y64) * np.inf, x)
        x = np.where(np.abs(y64) > 1.0, np.nan, x)
    return x.astype(y.dtype)


@defop
def erfinv(x):
    """The inverse of ``erf`` on (-1, 1) (+-inf at +-1, NaN outside), as ``tf.math.erfinv``."""
    _float("erfinv", x)
    return _erfinv_np(x) if x.size else x.copy()


@erfinv.defvjp
def _(g, ans, x):
    # d erfinv(y) = sqrt(pi)/2 * exp(erfinv(y)^2)
    return multiply(g, multiply(exp(square(ans)), 1.0 / _TWO_OVER_SQRT_PI))


__all__ += ["erfinv"]
