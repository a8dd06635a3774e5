"""The special functions of ``tf.math``: ``lgamma``, ``digamma``, ``polygamma``, ``zeta`` (Hurwitz), ``igamma`` /
``igammac`` (the regularized incomplete gamma functions), ``betainc`` (the regularized incomplete beta function),
``lbeta``, the modified Bessel functions ``bessel_i0``, ``bessel_i0e``, ``bessel_i1``, ``bessel_i1e`` and the rest
of ``tf.math.special``: ``dawsn``, ``expint``, ``fresnel_cos``, ``fresnel_sin``, ``spence``, ``bessel_j0/j1``,
``bessel_y0/y1``, ``bessel_k0/k0e/k1/k1e`` (each method in its function's docstring; float64 accuracy about 1e-13
absolute or relative, checked against mpmath; the domain edges are TF's: ``expint`` and ``spence`` NaN at ``inf``,
``j``/``y`` NaN at +-inf, ``y`` ``-inf`` and ``k`` ``inf`` at 0 and below, the Fresnel integrals 1/2 beyond 36974).

Every forward computes in float64 (whatever the input's float dtype) and returns the input's dtype; the domain
edges (poles, NaN, infinities, out-of-domain arguments) give TF's values. The methods:

* ``lgamma``: ``log|Gamma(x)|`` from the C library's ``lgamma`` (Python's ``math.lgamma``), ``inf`` at the poles.
* ``digamma``: the reflection ``psi(x) = psi(1 - x) - pi / tan(pi x)`` for ``x < 0`` (the tangent of the
  reduced argument ``x - round(x)``), the recurrence ``psi(x) = psi(x + 1) - 1/x`` up to ``x >= 10``, then the
  asymptotic series ``log x - 1/(2x) - sum_k B_2k / (2k x^2k)`` (7 terms: below 1e-17 relative at 10).
* ``zeta(x, q) = sum_{k >= 0} (q + k)^-x``: the terms up to ``a = q + N >= max(12, 2x)`` summed directly, the rest by
  Euler-Maclaurin: ``a^(1-x)/(x-1) + a^-x/2 + sum_{j=1}^{12} B_2j/(2j)! x(x+1)...(x+2j-2) a^(-x-2j+1)``.
* ``polygamma(n, x) = (-1)^(n+1) n! zeta(n + 1, x)`` for integer ``n >= 1``, ``digamma`` at 0, NaN otherwise.
* ``igamma``: the series ``P = x^a e^-x / Gamma(a + 1) * sum_n x^n / ((a+1)...(a+n))`` where ``x <= max(a, 1)``,
  else ``1 - Q`` with ``Q`` from the continued fraction of Legendre evaluated by the modified Lentz method;
  ``igammac`` the other way round.
* ``betainc``: the continued fraction of the incomplete beta function (modified Lentz), on ``I_x(a, b)`` where
  ``x <= max((a + 1) / (a + b + 2), a / (a + b))``, else ``1 - I_{1-x}(b, a)``.
* ``bessel_i0/i1``: the power series ``sum_k (x/2)^(2k+v) / (k! (k+v)!)`` (all terms positive: no cancellation)
  for ``|x| < 30``; above, the asymptotic series ``e^|x| / sqrt(2 pi |x|) sum_k (-1)^k a_k(v) / |x|^k`` to its
  smallest term (error below ``e^-60``). The ``e`` variants are ``e^-|x|`` times them, computed without overflow.

Gradients are TF's: ``lgamma' = digamma``, ``digamma' = polygamma(1, .)``, ``d/dx polygamma(n, x) =
polygamma(n + 1, x)``, ``d/dq zeta(x, q) = -x zeta(x + 1, q)``, ``d/dx igamma(a, x) = x^(a-1) e^-x / Gamma(a)``,
``d/da igamma(a, x)`` by differentiating the series or continued fraction term by term (TF's
``IgammaGradA``, which has no gradient itself), ``d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b)``,
``i0' = i1``, ``i1' = i0 - i1/x`` (1/2 at 0),
``i0e' = i1e - sign(x) i0e``, ``i1e' = i0e - i1e (sign(x) + 1/x)`` (1/2 at 0), ``dawsn' = 1 - 2x dawsn``,
``expint' = e^x / x``, ``fresnel_cos' = cos(pi x^2/2)``, ``fresnel_sin' = sin(pi x^2/2)``, ``spence' = log(x) / (1 - x)``
(-1 at 1), ``j0' = -j1``, ``j1' = j0 - j1/x`` (1/2 at 0), ``y0' = -y1``, ``y1' = y0 - y1/x``, ``k0' = -k1``,
``k0e' = k0e - k1e``, ``k1' = -k0 - k1/x``, ``k1e' = -k0e - k1e (1/x - 1)``. As in TF, ``zeta`` has no gradient
with respect to ``x``, ``polygamma`` none with respect to ``n``, and ``betainc`` none with respect to ``a`` and ``b``
(asking for one raises ``NoGradientError``).

Example:
    >>> import descend as ds
    >>> x = ds.constant([0.5, 1.0, 2.0], dtype="float64")
    >>> ["%.12f" % v for v in ds.math.lgamma(x).numpy()]
    ['0.572364942925', '0.000000000000', '0.000000000000']
    >>> "%.12f" % float(ds.math.digamma(x)[1]), "%.12f" % float(ds.math.zeta(x[2], x[1]))
    ('-0.577215664902', '1.644934066848')
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..framework.op import defop
from ..framework.tensor import convert_to_tensor
from . import math_ops
from .core_ops import reduce_sum, unbroadcast

__all__ = ["lgamma", "digamma", "polygamma", "zeta", "igamma", "igammac", "betainc", "lbeta", "bessel_i0",
           "bessel_i0e", "bessel_i1", "bessel_i1e", "dawsn", "expint", "fresnel_cos", "fresnel_sin", "spence", "bessel_j0",
           "bessel_j1", "bessel_y0", "bessel_y1", "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e"]

_EPS = np.finfo(np.float64).eps
_TINY = 1e-300


def _bernoulli_even(count: int) -> list:
    """B_2, B_4, ..., B_2count as Fractions (from the recurrence sum_{k<m} C(m+1, k) B_k = -(m+1) B_m)."""
    b = [Fraction(1)]
    for m in range(1, 2 * count + 1):
        b.append(-sum(Fraction(math.comb(m + 1, k)) * b[k] for k in range(m)) / (m + 1))
    return [b[2 * j] for j in range(1, count + 1)]


_B2 = _bernoulli_even(12)
#: B_2k / (2k) for digamma's asymptotic series
_PSI_COEF = [float(b / (2 * j)) for j, b in enumerate(_B2[:7], start=1)]
#: B_2j / (2j)! for Euler-Maclaurin
_EM_COEF = [float(b / math.factorial(2 * j)) for j, b in enumerate(_B2, start=1)]


def _f64(*xs):
    return [np.asarray(x, dtype=np.float64) for x in xs]


def _out(result, like):
    return np.asarray(result, dtype=like.dtype) if np.dtype(like.dtype).kind == "f" else np.asarray(result)


def _require_float(name, *xs):
    for x in xs:
        if np.dtype(x.dtype).kind != "f":
            raise TypeError(f"{name}: expected a float tensor (float16, float32 or float64). Received dtype "
                            f"{np.dtype(x.dtype).name}")


# ---------------------------------------------------------------- lgamma
def _lgamma64(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    out = np.empty(x.shape, np.float64)
    flat, res = x.reshape(-1), out.reshape(-1)
    for i, v in enumerate(flat.tolist()):
        if v != v:
            res[i] = v
        elif v in (math.inf, -math.inf) or (v <= 0 and v == math.floor(v)):
            res[i] = math.inf  # the poles and both infinities
        else:
            res[i] = math.lgamma(v)
    return out


@defop("lgamma", elementwise=True)
def _lgamma(x):
    _require_float("lgamma", x)
    return _out(_lgamma64(x), x)


_lgamma.defvjp(lambda g, ans, x: math_ops.multiply(g, _digamma(x)))


# ---------------------------------------------------------------- digamma
def _digamma64(x: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _digamma_unchecked(np.array(x, dtype=np.float64))


def _digamma_unchecked(x: np.ndarray) -> np.ndarray:
    out = np.full(x.shape, np.nan)
    reflect = x < 0
    pole = (x <= 0) & (x == np.floor(x))
    y = np.where(reflect, 1.0 - x, x)
    y = np.where(pole | ~np.isfinite(y), 10.0, y)
    # psi(x) = psi(x + n) - sum_{k<n} 1/(x + k), with x + n >= 10
    acc = np.zeros(x.shape)
    steps = np.maximum(np.ceil(10.0 - y), 0.0)
    for k in range(int(steps.max(initial=0.0))):
        active = k < steps
        acc -= np.where(active, 1.0 / np.where(active, y + k, 1.0), 0.0)
    y = y + steps
    inv2 = 1.0 / (y * y)
    series, power = 0.0, inv2
    for c in _PSI_COEF:
        series = series + c * power
        power = power * inv2
    psi = np.log(y) - 0.5 / y - series + acc
    # reflection: psi(x) = psi(1 - x) - pi / tan(pi x), with the tangent of x's distance to its nearest integer
    frac = x - np.round(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        cot = np.pi / np.tan(np.pi * np.where(reflect & ~pole, frac, 0.25))
    psi = np.where(reflect, psi - cot, psi)
    finite = np.isfinite(x) & ~pole
    out[finite] = psi[finite]
    out[x == np.inf] = np.inf
    return out


@defop("digamma", elementwise=True)
def _digamma(x):
    _require_float("digamma", x)
    return _out(_digamma64(x), x)


_digamma.defvjp(lambda g, ans, x: math_ops.multiply(g, _polygamma(math_ops.ones_like(x), x)))


# ---------------------------------------------------------------- zeta
def _zeta64(x: np.ndarray, q: np.ndarray) -> np.ndarray:
    x, q = np.broadcast_arrays(*_f64(x, q))
    out = np.full(x.shape, np.nan)
    x_int = x == np.floor(x)
    q_int = q == np.floor(q)
    pole = (x == 1) | ((q <= 0) & q_int & (x > 1))
    ok = (x > 1) & ~pole & ~np.isnan(q) & ((q > 0) | x_int)
    ok &= np.isfinite(q) & ~np.isinf(x)
    out[pole] = np.inf
    out[(x > 1) & (q == np.inf)] = 0.0
    big_x = (x == np.inf) & (q > 0) & ~np.isnan(q)
    out[big_x] = np.where(q[big_x] == 1, 1.0, np.where(q[big_x] < 1, np.inf, 0.0))
    if ok.any():
        xs, qs = x[ok], q[ok]
        # a = q + N >= max(12, 2x): the Euler-Maclaurin terms then shrink by ((x + 2j) / (2 pi a))^2 <= 0.025 each
        steps = np.maximum(np.ceil(np.maximum(12.0, np.minimum(2.0 * xs, 20000.0)) - qs), 0.0)
        total = np.zeros(xs.shape)
        with np.errstate(over="ignore", divide="ignore"):
            for k in range(int(steps.max(initial=0.0))):
                active = k < steps
                total += np.where(active, np.power(np.where(active, qs + k, 1.0), -xs), 0.0)
            a = qs + steps
            a_x = np.power(a, -xs)
            tail = a * a_x / (xs - 1.0) + 0.5 * a_x
            rising, power = xs.copy(), a_x / a  # x(x+1)...(x+2j-2) and a^(-x-2j+1)
            for j, c in enumerate(_EM_COEF):
                tail = tail + np.where(power == 0, 0.0, c * rising * power)
                rising = rising * (xs + 2 * j + 1) * (xs + 2 * j + 2)
                power = power / (a * a)
        out[ok] = total + tail
    return out


@defop("zeta", same_dtype=(0, 1))
def _zeta(x, q):
    _require_float("zeta", x, q)
    return _out(_zeta64(x, q), x)


_zeta.defvjp(
    None,  # TF defines no gradient with respect to x
    lambda g, ans, x, q: unbroadcast(math_ops.multiply(g, math_ops.negative(math_ops.multiply(
        x, _zeta(math_ops.add(x, math_ops.ones_like(x)), q)))), q),
)


# ---------------------------------------------------------------- polygamma
def _polygamma64(n: np.ndarray, x: np.ndarray) -> np.ndarray:
    n, x = np.broadcast_arrays(*_f64(n, x))
    out = np.full(x.shape, np.nan)
    valid = (n >= 0) & (n == np.floor(n)) & np.isfinite(n)
    zero = valid & (n == 0)
    out[zero] = _digamma64(x[zero])
    pos = valid & (n > 0)
    if pos.any():
        order = n[pos]
        sign = np.where(np.mod(order, 2) == 1, 1.0, -1.0)  # (-1)^(n+1)
        with np.errstate(over="ignore", invalid="ignore"):
            out[pos] = sign * np.exp(_lgamma64(order + 1.0)) * _zeta64(order + 1.0, x[pos])
    return out


@defop("polygamma", same_dtype=(0, 1))
def _polygamma(a, x):
    _require_float("polygamma", a, x)
    return _out(_polygamma64(a, x), x)


_polygamma.defvjp(
    None,  # TF defines no gradient with respect to the order
    lambda g, ans, a, x: unbroadcast(math_ops.multiply(g, _polygamma(math_ops.add(a, math_ops.ones_like(a)), x)), x),
)


# ---------------------------------------------------------------- igamma / igammac
def _igamma_parts(a, x):
    """``(P, Q)`` of the regularized incomplete gamma functions, both float64, with TF's edge values."""
    a, x = np.broadcast_arrays(*_f64(a, x))
    p, q = np.full(a.shape, np.nan), np.full(a.shape, np.nan)
    nan = np.isnan(a) | np.isnan(x)
    bad = nan | (x < 0) | (a <= 0)
    p[(x == 0) & ~nan] = 0.0  # TF: igamma(a, 0) = 0 before the domain check
    q[(x == 0) & (a > 0)] = 1.0
    inf_x = ~bad & (x == np.inf)
    p[inf_x], q[inf_x] = 1.0, 0.0
    inf_a = ~bad & (a == np.inf) & np.isfinite(x)
    p[inf_a], q[inf_a] = 0.0, 1.0
    ok = ~bad & (x > 0) & np.isfinite(x) & np.isfinite(a)
    series = ok & ((x <= 1) | (x <= a))
    frac = ok & ~series
    if series.any():
        aa, xx = a[series], x[series]
        log_front = aa * np.log(xx) - xx - _lgamma64(aa + 1.0)  # x^a e^-x / Gamma(a + 1)
        term, total = np.ones(aa.shape), np.ones(aa.shape)
        k, active = 0, np.ones(aa.shape, bool)
        while active.any() and k < 100000:
            k += 1
            term = np.where(active, term * xx / (aa + k), term)
            total = np.where(active, total + term, total)
            active &= term > _EPS * total
        val = np.exp(log_front) * total
        p[series], q[series] = val, 1.0 - val
    if frac.any():
        aa, xx = a[frac], x[frac]
        log_front = aa * np.log(xx) - xx - _lgamma64(aa)
        # Q = front * 1/(x+1-a- 1(1-a)/(x+3-a- 2(2-a)/(x+5-a- ...))), by the modified Lentz method
        b = xx + 1.0 - aa
        c = np.full(aa.shape, 1.0 / _TINY)
        d = 1.0 / b
        h = d.copy()
        k, active = 0, np.ones(aa.shape, bool)
        while active.any() and k < 100000:
            k += 1
            an = -k * (k - aa)
            b = b + 2.0
            d = an * d + b
            d = np.where(np.abs(d) < _TINY, _TINY, d)
            c = b + an / c
            c = np.where(np.abs(c) < _TINY, _TINY, c)
            d = 1.0 / d
            delta = d * c
            h = np.where(active, h * delta, h)
            active &= np.abs(delta - 1.0) > _EPS
        val = np.exp(log_front) * h
        q[frac], p[frac] = val, 1.0 - val
    return p, q


def _igamma_da(a, x):
    """``dP(a, x)/da`` in float64: the series and the continued fraction of :func:`_igamma_parts` differentiated
    term by term with respect to ``a`` (forward mode), as TF's ``IgammaGradA``."""
    a, x = np.broadcast_arrays(*_f64(a, x))
    out = np.full(a.shape, np.nan)
    ok = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    out[(x == 0) & (a > 0)] = 0.0
    out[(x == np.inf) & (a > 0) & np.isfinite(a)] = 0.0
    series = ok & ((x <= 1) | (x <= a))
    frac = ok & ~series
    if series.any():
        aa, xx = a[series], x[series]
        # P = exp(L) S, L = a log x - x - lgamma(a + 1), S = sum t_n, t_n = t_(n-1) x / (a + n)
        log_front = aa * np.log(xx) - xx - _lgamma64(aa + 1.0)
        d_log_front = np.log(xx) - _digamma64(aa + 1.0)
        t, dt = np.ones(aa.shape), np.zeros(aa.shape)
        total, d_total = np.ones(aa.shape), np.zeros(aa.shape)
        k, active = 0, np.ones(aa.shape, bool)
        while active.any() and k < 100000:
            k += 1
            r = xx / (aa + k)
            dt = np.where(active, (dt - t / (aa + k)) * r, dt)  # d(t r)/da with dr/da = -r / (a + k)
            t = np.where(active, t * r, t)
            total = np.where(active, total + t, total)
            d_total = np.where(active, d_total + dt, d_total)
            active &= (t > _EPS * total) | (np.abs(dt) > _EPS * np.abs(d_total))
        out[series] = np.exp(log_front) * (d_log_front * total + d_total)
    if frac.any():
        with np.errstate(over="ignore"):  # c starts at 1/tiny: c * c is inf once, where dc is 0
            out[frac] = _igammac_da_fraction(a[frac], x[frac])
    return out


def _igammac_da_fraction(aa, xx):
    """``dP/da`` from the continued fraction of ``Q`` (the ``x > max(a, 1)`` side)."""
    # Q = exp(L) h, L = a log x - x - lgamma(a); h by modified Lentz, each quantity with its a-derivative
    log_front = aa * np.log(xx) - xx - _lgamma64(aa)
    d_log_front = np.log(xx) - _digamma64(aa)
    b, db = xx + 1.0 - aa, -np.ones(aa.shape)
    c, dc = np.full(aa.shape, 1.0 / _TINY), np.zeros(aa.shape)
    d = 1.0 / b
    dd = d * d  # d(1/b)/da = -db / b^2 = 1 / b^2
    h, dh = d.copy(), dd.copy()
    k, active = 0, np.ones(aa.shape, bool)
    while active.any() and k < 100000:
        k += 1
        an, dan = -k * (k - aa), float(k)
        b = b + 2.0
        den = an * d + b
        d_den = dan * d + an * dd + db
        den = np.where(np.abs(den) < _TINY, _TINY, den)
        d_new = 1.0 / den
        dd = -d_new * d_new * d_den
        d = d_new
        c_new = b + an / c
        dc = db + dan / c - an * dc / (c * c)
        c = np.where(np.abs(c_new) < _TINY, _TINY, c_new)
        delta, d_delta = d * c, dd * c + d * dc
        dh_new = dh * delta + h * d_delta
        converged = (np.abs(delta - 1.0) <= _EPS) & (np.abs(dh_new - dh) <= _EPS * np.abs(dh_new))
        h = np.where(active, h * delta, h)
        dh = np.where(active, dh_new, dh)
        active &= ~converged
    return -np.exp(log_front) * (d_log_front * h + dh)  # dP/da = -dQ/da


@defop("igamma_grad_a", same_dtype=(0, 1))
def _igamma_grad_a(a, x):
    """``d igamma(a, x) / da`` (TF's ``IgammaGradA``; like TF's, it has no gradient itself)."""
    return _out(_igamma_da(a, x), a)


@defop("igamma", same_dtype=(0, 1))
def _igamma(a, x):
    _require_float("igamma", a, x)
    return _out(_igamma_parts(a, x)[0], a)


@defop("igammac", same_dtype=(0, 1))
def _igammac(a, x):
    _require_float("igammac", a, x)
    return _out(_igamma_parts(a, x)[1], a)


def _igamma_density(a, x):
    # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a) = exp((a-1) log x - x - lgamma(a))
    one = math_ops.ones_like(a)
    return math_ops.exp(math_ops.subtract(math_ops.subtract(
        math_ops.multiply(math_ops.subtract(a, one), math_ops.log(x)), x), _lgamma(a)))


_igamma.defvjp(lambda g, ans, a, x: unbroadcast(math_ops.multiply(g, _igamma_grad_a(a, x)), a),
               lambda g, ans, a, x: unbroadcast(math_ops.multiply(g, _igamma_density(a, x)), x))
_igammac.defvjp(lambda g, ans, a, x: unbroadcast(math_ops.negative(math_ops.multiply(g, _igamma_grad_a(a, x))), a),
                lambda g, ans, a, x: unbroadcast(
    math_ops.negative(math_ops.multiply(g, _igamma_density(a, x))), x))


# ---------------------------------------------------------------- betainc
def _betacf(a, b, x):
    """The continued fraction of I_x(a, b) (modified Lentz), for x < (a + 1) / (a + b + 2)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones(a.shape)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < _TINY, _TINY, d)
    d = 1.0 / d
    h = d.copy()
    m, active = 0, np.ones(a.shape, bool)
    while active.any() and m < 100000:
        m += 1
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))  # the even step
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        h = np.where(active, h * d * c, h)
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))  # the odd step
        d = 1.0 + aa * d
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = 1.0 + aa / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = d * c
        h = np.where(active, h * delta, h)
        active &= np.abs(delta - 1.0) > _EPS
    return h


def _betainc64(a, b, x):
    a, b, x = np.broadcast_arrays(*_f64(a, b, x))
    out = np.full(a.shape, np.nan)
    valid = (a > 0) & (b > 0) & np.isfinite(a) & np.isfinite(b) & (x >= 0) & (x <= 1)
    out[valid & (x == 0)] = 0.0
    out[valid & (x == 1)] = 1.0
    ok = valid & (x > 0) & (x < 1)
    if ok.any():
        aa, bb, xx = a[ok], b[ok], x[ok]
        # the fraction converges fast below (a + 1) / (a + b + 2); up to a / (a + b) it still converges, and there
        # 1 - I_(1-x)(b, a) would cancel (the answer small, the complement near 1)
        swap = xx > np.maximum((aa + 1.0) / (aa + bb + 2.0), aa / (aa + bb))
        a2, b2, x2 = np.where(swap, bb, aa), np.where(swap, aa, bb), np.where(swap, 1.0 - xx, xx)
        log_front = (a2 * np.log(x2) + b2 * np.log1p(-x2) - _lgamma64(a2) - _lgamma64(b2) + _lgamma64(a2 + b2))
        val = np.exp(log_front) * _betacf(a2, b2, x2) / a2
        out[ok] = np.where(swap, 1.0 - val, val)
    return out


@defop("betainc", same_dtype="all")
def _betainc(a, b, x):
    _require_float("betainc", a, b, x)
    return _out(_betainc64(a, b, x), a)


def _betainc_dx(g, ans, a, b, x):
    # d/dx I_x(a, b) = x^(a-1) (1-x)^(b-1) / B(a, b)
    one = math_ops.ones_like(x)
    log_b = math_ops.subtract(math_ops.add(_lgamma(a), _lgamma(b)), _lgamma(math_ops.add(a, b)))
    log_density = math_ops.subtract(math_ops.add(
        math_ops.multiply(math_ops.subtract(a, one), math_ops.log(x)),
        math_ops.multiply(math_ops.subtract(b, one), math_ops.log1p(math_ops.negative(x)))), log_b)
    return unbroadcast(math_ops.multiply(g, math_ops.exp(log_density)), x)


_betainc.defvjp(None, None, _betainc_dx)  # TF defines none with respect to a and b


# ---------------------------------------------------------------- Bessel I0, I1
_ASYMPTOTIC_FROM = 30.0


def _bessel_e64(x, order: int) -> np.ndarray:
    """``e^-|x| I_order(|x|)`` for order 0 or 1, float64 (the sign of I1 is applied by the caller)."""
    ax = np.abs(np.asarray(x, dtype=np.float64))
    out = np.full(ax.shape, np.nan)
    small = ax < _ASYMPTOTIC_FROM
    if small.any():
        s = ax[small]
        quarter = 0.25 * s * s
        term = np.ones(s.shape) if order == 0 else 0.5 * s
        total = term.copy()
        for k in range(1, 120):  # (x/2)^(2k+v) / (k! (k+v)!): the ratio of successive terms is x^2/4 / (k (k+v))
            term = term * quarter / (k * (k + order))
            total = total + term
        out[small] = total * np.exp(-s)
    big = ~small & np.isfinite(ax)
    if big.any():
        s = ax[big]
        mu = 4.0 * order * order
        term, total = np.ones(s.shape), np.ones(s.shape)
        for k in range(1, 60):  # (-1)^k a_k(v) / x^k, a_k = prod_{j<=k} (mu - (2j-1)^2) / (k! 8^k)
            nxt = -term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * s)
            if np.all(np.abs(nxt) >= np.abs(term)):
                break
            term = np.where(np.abs(nxt) < np.abs(term), nxt, 0.0)
            total = total + term
        out[big] = total / np.sqrt(2.0 * np.pi * s)
    out[ax == np.inf] = 0.0
    return out


def _signed(values, x):
    return np.where(np.asarray(x) < 0, -values, values)


@defop("bessel_i0e", elementwise=True)
def _bessel_i0e(x):
    _require_float("bessel_i0e", x)
    return _out(_bessel_e64(x, 0), x)


@defop("bessel_i1e", elementwise=True)
def _bessel_i1e(x):
    _require_float("bessel_i1e", x)
    return _out(_signed(_bessel_e64(x, 1), x), x)


@defop("bessel_i0", elementwise=True)
def _bessel_i0(x):
    _require_float("bessel_i0", x)
    x64 = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return _out(np.exp(np.abs(x64)) * _bessel_e64(x64, 0), x)


@defop("bessel_i1", elementwise=True)
def _bessel_i1(x):
    _require_float("bessel_i1", x)
    x64 = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        return _out(_signed(np.exp(np.abs(x64)) * _bessel_e64(x64, 1), x64), x)


def _over_x(y, x):
    # y / x, with y / x -> 1/2 at x = 0 (both I1 and I1e are x/2 + O(x^3) there)
    zero = math_ops.equal(x, math_ops.zeros_like(x))
    safe = math_ops.where(zero, math_ops.ones_like(x), x)
    return math_ops.where(zero, math_ops.multiply(math_ops.ones_like(x), 0.5), math_ops.divide(y, safe))


_bessel_i0.defvjp(lambda g, ans, x: math_ops.multiply(g, _bessel_i1(x)))
_bessel_i0e.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.subtract(
    _bessel_i1e(x), math_ops.multiply(math_ops.sign(x), ans))))
_bessel_i1.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.subtract(_bessel_i0(x), _over_x(ans, x))))
_bessel_i1e.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.subtract(
    _bessel_i0e(x), math_ops.add(math_ops.multiply(math_ops.sign(x), ans), _over_x(ans, x)))))


# ---------------------------------------------------------------- Dawson, Ei, Fresnel, Spence (tf.math.special)
_EULER_GAMMA = 0.57721566490153286061


def _unary64(x):
    return np.asarray(x, dtype=np.float64)


def _dawsn64(x) -> np.ndarray:
    """``F(x) = e^-x^2 int_0^x e^t^2 dt``: for ``|x| < 6`` ``e^-x^2 sum_n x^(2n+1) / (n! (2n+1))`` (positive terms),
    above the asymptotic ``1/(2x) sum_k (2k-1)!! / (2x^2)^k`` to its smallest term (below ``e^-36``)."""
    x = _unary64(x)
    ax = np.abs(x)
    out = np.full(x.shape, np.nan)
    small = ax < 6.0
    if small.any():
        s = ax[small]
        s2 = s * s
        term = s.copy()  # x^(2n+1) / n!
        total = s.copy()
        for n in range(1, 160):
            term = term * s2 / n
            total = total + term / (2 * n + 1)
        out[small] = np.exp(-s2) * total
    big = (ax >= 6.0) & np.isfinite(ax)
    if big.any():
        s = ax[big]
        inv = 1.0 / (2.0 * s * s)
        term, total = np.ones(s.shape), np.ones(s.shape)
        for k in range(1, 40):
            nxt = term * (2 * k - 1) * inv
            term = np.where(nxt < term, nxt, 0.0)
            total = total + term
        out[big] = total / (2.0 * s)
    out[np.isinf(ax)] = 0.0
    return np.where(x < 0, -out, out)


def _expint64(x) -> np.ndarray:
    """The exponential integral ``Ei(x)`` for ``x >= 0`` (NaN below, ``-inf`` at 0): ``gamma + ln x + sum_n
    x^n / (n n!)`` for ``x <= 40``, above ``e^x / x sum_k k! / x^k`` to its smallest term (below ``e^-40``)."""
    x = _unary64(x)
    out = np.full(x.shape, np.nan)
    small = (x > 0) & (x <= 40.0)
    if small.any():
        s = x[small]
        term = np.ones(s.shape)
        total = np.zeros(s.shape)
        for n in range(1, 200):
            term = term * s / n
            total = total + term / n
        out[small] = _EULER_GAMMA + np.log(s) + total
    big = (x > 40.0) & np.isfinite(x)
    if big.any():
        s = x[big]
        term, total = np.ones(s.shape), np.ones(s.shape)
        for k in range(1, 60):
            nxt = term * k / s
            term = np.where(nxt < term, nxt, 0.0)
            total = total + term
        with np.errstate(over="ignore"):
            out[big] = np.exp(s) / s * total
    out[x == 0] = -np.inf
    return out  # NaN at inf, as TF's


def _half_pi_square_phase(x):
    """``cos`` and ``sin`` of ``pi x^2 / 2``, the square reduced modulo 4 exactly (``x^2 = hi + lo`` by Dekker's
    split), so that large arguments keep their phase."""
    split = 134217729.0 * x
    xh = split - (split - x)
    xl = x - xh
    hi = x * x
    lo = ((xh * xh - hi) + 2.0 * xh * xl) + xl * xl
    u = np.mod(hi, 4.0) + lo
    u = np.mod(u, 4.0)
    angle = 0.5 * np.pi * u
    return np.cos(angle), np.sin(angle)


def _fresnel64(x):
    """``(S(x), C(x))``, the Fresnel integrals ``int_0^x sin(pi t^2/2) dt`` and ``cos``: the power series for
    ``|x| < 1.8``; above, ``C + iS = (1 + i)/2 erf(z)``, ``z = sqrt(pi)/2 (1 - i) |x|``, with ``erfc(z)`` from its
    continued fraction ``e^-z^2 / sqrt(pi) 2z / (2z^2 + 1 - 1*2 / (2z^2 + 5 - 3*4 / (2z^2 + 9 - ...)))``, evaluated
    by the modified Lentz method (``e^-z^2 = e^(i pi x^2/2)`` from the exact phase reduction)."""
    x = _unary64(x)
    ax = np.abs(x)
    s_out = np.full(x.shape, np.nan)
    c_out = np.full(x.shape, np.nan)
    small = ax < 1.8
    if small.any():
        t = ax[small]
        w = 0.5 * np.pi * t * t  # the series in powers of w = pi x^2 / 2
        w2 = w * w
        term_c = t.copy()  # (-1)^n w^(2n) x / (2n)!
        term_s = t * w  # (-1)^n w^(2n+1) x / (2n+1)!
        c_sum, s_sum = term_c.copy(), term_s / 3.0
        for n in range(1, 40):
            term_c = -term_c * w2 / ((2 * n - 1) * (2 * n))
            term_s = -term_s * w2 / ((2 * n) * (2 * n + 1))
            c_sum = c_sum + term_c / (4 * n + 1)
            s_sum = s_sum + term_s / (4 * n + 3)
        c_out[small], s_out[small] = c_sum, s_sum
    big = (ax >= 1.8) & np.isfinite(ax)
    if big.any():
        t = ax[big]
        z = (0.5 * np.sqrt(np.pi)) * (1.0 - 1.0j) * t
        b = -1.0j * np.pi * t * t + 1.0  # 2z^2 + 1
        tiny = 1e-300
        f = b.copy()
        c, d = b.copy(), np.zeros(b.shape, complex)
        for n in range(1, 400):
            a = -(2.0 * n - 1.0) * (2.0 * n)
            b = b + 4.0
            d = b + a * d
            d = np.where(d == 0, tiny, d)
            c = b + a / c
            c = np.where(c == 0, tiny, c)
            d = 1.0 / d
            delta = c * d
            f = f * delta
            if np.all(np.abs(delta - 1.0) < 1e-16):
                break
        cos_p, sin_p = _half_pi_square_phase(t)
        erfc = (cos_p + 1.0j * sin_p) / np.sqrt(np.pi) * (2.0 * z) / f
        cs = 0.5 * (1.0 + 1.0j) * (1.0 - erfc)
        c_out[big], s_out[big] = cs.real, cs.imag
    flat = ax > _FRESNEL_FLAT_FROM  # TF (Cephes) returns 1/2 there, the limit
    c_out[flat] = 0.5
    s_out[flat] = 0.5
    return np.where(x < 0, -s_out, s_out), np.where(x < 0, -c_out, c_out)


_FRESNEL_FLAT_FROM = 36974.0


def _li2_small(u):
    """``Li2(u) = sum_k u^k / k^2`` for ``|u| <= 1/2`` (70 terms: below 1e-21)."""
    term = u.copy()
    total = u.copy()
    for k in range(2, 70):
        term = term * u
        total = total + term / (k * k)
    return total


def _spence64(x) -> np.ndarray:
    """``spence(x) = int_1^x log(t) / (1 - t) dt = Li2(1 - x)`` for ``x >= 0`` (NaN below): the series of ``Li2``
    where ``|1 - x| <= 1/2``, else brought there by ``Li2``'s reflection and inversion formulas."""
    x = _unary64(x)
    out = np.full(x.shape, np.nan)
    pi2_6 = np.pi * np.pi / 6.0
    with np.errstate(divide="ignore", invalid="ignore"):
        mid = (x >= 0.5) & (x <= 1.5)
        out[mid] = _li2_small(1.0 - x[mid])
        low = (x >= 0) & (x < 0.5)  # Li2(u) = pi^2/6 - ln(u) ln(1 - u) - Li2(1 - u), u = 1 - x
        s = x[low]
        out[low] = pi2_6 - np.log1p(-s) * np.log(s) - _li2_small(s)
        out[x == 0] = pi2_6
        upper = (x > 1.5) & (x <= 2.0)  # Li2(u) = -Li2(u / (u - 1)) - ln(1 - u)^2 / 2
        s = x[upper]
        out[upper] = -_li2_small((s - 1.0) / s) - 0.5 * np.log(s) ** 2
        far = (x > 2.0) & np.isfinite(x)  # the formula above, with Li2(v), v = 1 - 1/x > 1/2, reflected
        s = x[far]
        out[far] = -pi2_6 - np.log1p(-1.0 / s) * np.log(s) + _li2_small(1.0 / s) - 0.5 * np.log(s) ** 2
    return out  # spence(inf) is NaN, as TF's


@defop("dawsn", elementwise=True)
def _dawsn(x):
    _require_float("dawsn", x)
    return _out(_dawsn64(x), x)


@defop("expint", elementwise=True)
def _expint(x):
    _require_float("expint", x)
    return _out(_expint64(x), x)


@defop("fresnel_cos", elementwise=True)
def _fresnel_cos(x):
    _require_float("fresnel_cos", x)
    return _out(_fresnel64(x)[1], x)


@defop("fresnel_sin", elementwise=True)
def _fresnel_sin(x):
    _require_float("fresnel_sin", x)
    return _out(_fresnel64(x)[0], x)


@defop("spence", elementwise=True)
def _spence(x):
    _require_float("spence", x)
    return _out(_spence64(x), x)


def _half_pi_x2(x):
    return math_ops.multiply(math_ops.multiply(x, x), np.pi / 2)


def _spence_grad(g, ans, x):
    # TF: log(x) / (1 - x), and -1 at x = 1 (its limit)
    one = math_ops.equal(x, math_ops.ones_like(x))
    safe = math_ops.where(one, math_ops.zeros_like(x), x)
    slope = math_ops.divide(math_ops.log(math_ops.where(one, math_ops.ones_like(x), x)),
                            math_ops.subtract(math_ops.ones_like(x), safe))
    return math_ops.multiply(g, math_ops.where(one, math_ops.negative(math_ops.ones_like(x)), slope))


_dawsn.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.subtract(
    math_ops.ones_like(x), math_ops.multiply(math_ops.multiply(x, 2.0), ans))))
_expint.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.divide(math_ops.exp(x), x)))
_fresnel_cos.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.cos(_half_pi_x2(x))))
_fresnel_sin.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.sin(_half_pi_x2(x))))
_spence.defvjp(_spence_grad)


# ---------------------------------------------------------------- Bessel J0, J1, Y0, Y1, K0, K1
_HANKEL_FROM = 16.0


def _hankel_pq(s, order: int):
    """Hankel's asymptotic ``P`` and ``Q`` of ``J``/``Y`` of order 0 or 1 at ``s >= 16``: ``P = sum_k (-1)^k
    a_2k / s^2k``, ``Q = sum_k (-1)^k a_2k+1 / s^(2k+1)``, ``a_k = prod_{j<=k} (4v^2 - (2j-1)^2) / (k! 8^k)``, both
    summed to the smallest term (below ``e^-32``)."""
    mu = 4.0 * order * order
    p, q = np.ones(s.shape), np.zeros(s.shape)
    term = np.ones(s.shape)  # a_k / s^k
    live = np.ones(s.shape, bool)
    for k in range(1, 80):
        nxt = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * s)
        live = live & (np.abs(nxt) < np.abs(term))
        term = np.where(live, nxt, 0.0)
        sign = -1.0 if (k // 2) % 2 else 1.0  # i^-k's real/imaginary sign: P gets k = 0, 2, 4 as +, -, +
        if k % 2 == 0:
            p = p + sign * term
        else:
            q = q + sign * term
    return p, q


def _bessel_jy64(x, order: int):
    """``(J_order(|x|), Y_order(|x|))`` for ``|x| > 0``: power series below 16, Hankel's expansion above."""
    ax = np.abs(_unary64(x))
    j = np.full(ax.shape, np.nan)
    y = np.full(ax.shape, np.nan)
    small = ax < _HANKEL_FROM
    if small.any():
        # the alternating series cancels up to I0(16) ~ 1e6: summed in long double (64-bit mantissa where the
        # platform has it), so that the float64 result keeps ~1e-13 absolute accuracy
        ld = np.longdouble
        s = ax[small].astype(ld)
        q = ld(-0.25) * s * s
        term = np.ones(s.shape, ld) if order == 0 else ld(0.5) * s  # (x/2)^(2k+v) (-1)^k / (k! (k+v)!)
        js = term.copy()
        gamma = ld("0.577215664901532860606512090082402431")
        psi_k, psi_kv = -gamma, -gamma + (ld(1) if order else ld(0))  # psi(k+1), psi(k+v+1)
        ys = (psi_k + psi_kv) * term
        for k in range(1, 90):
            term = term * q / ld(k * (k + order))
            psi_k += ld(1) / ld(k)
            psi_kv += ld(1) / ld(k + order)
            js = js + term
            ys = ys + (psi_k + psi_kv) * term
        j[small] = js
        pi = ld("3.14159265358979323846264338327950288")
        with np.errstate(divide="ignore", invalid="ignore"):
            logpart = (ld(2) / pi) * np.log(ld(0.5) * s) * js
            if order == 0:
                y[small] = logpart - ys / pi
            else:
                y[small] = logpart - ys / pi - ld(2) / (pi * s)
    big = (ax >= _HANKEL_FROM) & np.isfinite(ax)
    if big.any():
        s = ax[big]
        p, q = _hankel_pq(s, order)
        phase = s - (0.25 + 0.5 * order) * np.pi
        amp = np.sqrt(2.0 / (np.pi * s))
        c, sn = np.cos(phase), np.sin(phase)
        j[big] = amp * (p * c - q * sn)
        y[big] = amp * (p * sn + q * c)
    return j, y  # NaN at +-inf, as TF's


_K_SERIES_UNTIL = 2.0
_K_ASYMPTOTIC_FROM = 25.0
_K_STEP = 0.05
_K_NODES = np.arange(0.0, 6.0, _K_STEP)


def _bessel_ke64(x, order: int) -> np.ndarray:
    """``e^x K_order(x)`` for ``x >= 0`` (NaN below, ``inf`` at 0): the power series up to 2; up to 25 the
    trapezoidal rule on ``int_0^inf e^-x (cosh t - 1) cosh(v t) dt`` (step 0.05: exponentially accurate for this
    analytic integrand, error below 1e-15); above, the asymptotic ``sqrt(pi / (2x)) sum_k a_k(v) / x^k``."""
    x = _unary64(x)
    out = np.full(x.shape, np.nan)
    small = (x > 0) & (x <= _K_SERIES_UNTIL)
    if small.any():
        s = x[small]
        quarter = 0.25 * s * s
        term = np.ones(s.shape) if order == 0 else 0.5 * s  # (x/2)^(2k+v) / (k! (k+v)!)
        i_sum = term.copy()
        psi_k, psi_kv = -_EULER_GAMMA, -_EULER_GAMMA + (1.0 if order else 0.0)
        h_sum = (psi_k + psi_kv) * term
        for k in range(1, 40):
            term = term * quarter / (k * (k + order))
            psi_k += 1.0 / k
            psi_kv += 1.0 / (k + order)
            i_sum = i_sum + term
            h_sum = h_sum + (psi_k + psi_kv) * term
        if order == 0:
            k_val = -np.log(0.5 * s) * i_sum + 0.5 * h_sum
        else:
            k_val = 1.0 / s + np.log(0.5 * s) * i_sum - 0.5 * h_sum
        out[small] = k_val * np.exp(s)
    mid = (x > _K_SERIES_UNTIL) & (x <= _K_ASYMPTOTIC_FROM)
    if mid.any():
        s = x[mid][:, None]
        weights = np.exp(-s * (np.cosh(_K_NODES) - 1.0)) * np.cosh(order * _K_NODES)
        out[mid] = _K_STEP * (weights.sum(axis=1) - 0.5 * weights[:, 0])
    big = (x > _K_ASYMPTOTIC_FROM) & np.isfinite(x)
    if big.any():
        s = x[big]
        mu = 4.0 * order * order
        term, total = np.ones(s.shape), np.ones(s.shape)
        live = np.ones(s.shape, bool)
        for k in range(1, 80):
            nxt = term * (mu - (2 * k - 1) ** 2) / (k * 8.0 * s)
            live = live & (np.abs(nxt) < np.abs(term))
            term = np.where(live, nxt, 0.0)
            total = total + term
        out[big] = np.sqrt(np.pi / (2.0 * s)) * total
    out[x <= 0] = np.inf  # TF's K0, K1 (and scaled) are inf at 0 and for every negative argument
    out[x == np.inf] = 0.0
    return out


def _odd(values, x):
    return np.where(np.asarray(x) < 0, -values, values)


def _y_domain(values, x):
    # TF's Y0 and Y1 are -inf at 0 and for every negative argument
    x = np.asarray(x)
    return np.where(x <= 0, -np.inf, values)


@defop("bessel_j0", elementwise=True)
def _bessel_j0(x):
    _require_float("bessel_j0", x)
    return _out(np.where(np.asarray(x) == 0, 1.0, _bessel_jy64(x, 0)[0]), x)


@defop("bessel_j1", elementwise=True)
def _bessel_j1(x):
    _require_float("bessel_j1", x)
    return _out(np.where(np.asarray(x) == 0, 0.0, _odd(_bessel_jy64(x, 1)[0], x)), x)


@defop("bessel_y0", elementwise=True)
def _bessel_y0(x):
    _require_float("bessel_y0", x)
    return _out(_y_domain(_bessel_jy64(x, 0)[1], x), x)


@defop("bessel_y1", elementwise=True)
def _bessel_y1(x):
    _require_float("bessel_y1", x)
    return _out(_y_domain(_bessel_jy64(x, 1)[1], x), x)


@defop("bessel_k0e", elementwise=True)
def _bessel_k0e(x):
    _require_float("bessel_k0e", x)
    return _out(_bessel_ke64(x, 0), x)


@defop("bessel_k1e", elementwise=True)
def _bessel_k1e(x):
    _require_float("bessel_k1e", x)
    return _out(_bessel_ke64(x, 1), x)


def _unscaled_k(x, order):
    x64 = _unary64(x)
    with np.errstate(over="ignore", invalid="ignore"):
        return np.where(x64 == np.inf, 0.0, np.exp(-x64) * _bessel_ke64(x64, order))


@defop("bessel_k0", elementwise=True)
def _bessel_k0(x):
    _require_float("bessel_k0", x)
    return _out(_unscaled_k(x, 0), x)


@defop("bessel_k1", elementwise=True)
def _bessel_k1(x):
    _require_float("bessel_k1", x)
    return _out(_unscaled_k(x, 1), x)


# TF's gradients: j0' = -j1, j1' = j0 - j1/x (1/2 at 0), y0' = -y1, y1' = y0 - y1/x, k0' = -k1, k0e' = k0e - k1e,
# k1' = -k0 - k1/x, k1e' = -k0e - k1e (1/x - 1)
_bessel_j0.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.negative(_bessel_j1(x))))
_bessel_j1.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.subtract(_bessel_j0(x), _over_x(ans, x))))
_bessel_y0.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.negative(_bessel_y1(x))))
_bessel_y1.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.subtract(_bessel_y0(x), math_ops.divide(ans, x))))
_bessel_k0.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.negative(_bessel_k1(x))))
_bessel_k0e.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.subtract(ans, _bessel_k1e(x))))
_bessel_k1.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.negative(
    math_ops.add(_bessel_k0(x), math_ops.divide(ans, x)))))
_bessel_k1e.defvjp(lambda g, ans, x: math_ops.multiply(g, math_ops.negative(math_ops.add(
    _bessel_k0e(x), math_ops.multiply(ans, math_ops.subtract(math_ops.reciprocal(x), math_ops.ones_like(x)))))))


# ---------------------------------------------------------------- the public functions
def lgamma(x, name=None):
    """``log|Gamma(x)|`` elementwise (``tf.math.lgamma``); ``inf`` at 0, the negative integers and +-inf."""
    return _lgamma(x)


def digamma(x, name=None):
    """``psi(x) = d/dx lgamma(x)`` elementwise (``tf.math.digamma``); NaN at 0, the negative integers and -inf."""
    return _digamma(x)


def polygamma(a, x, name=None):
    """The ``a``-th derivative of ``digamma`` at ``x`` (``tf.math.polygamma``); ``a`` a non-negative integer value
    of ``x``'s float dtype (NaN otherwise)."""
    return _polygamma(a, x)


def zeta(x, q, name=None):
    """The Hurwitz zeta function ``sum_{k >= 0} (q + k)^-x`` (``tf.math.zeta``); ``inf`` at ``x = 1``, NaN for
    ``x < 1``."""
    return _zeta(x, q)


def igamma(a, x, name=None):
    """The regularized lower incomplete gamma function ``P(a, x)`` (``tf.math.igamma``)."""
    return _igamma(a, x)


def igammac(a, x, name=None):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` (``tf.math.igammac``)."""
    return _igammac(a, x)


def betainc(a, b, x, name=None):
    """The regularized incomplete beta function ``I_x(a, b)`` (``tf.math.betainc``); ``a``, ``b`` and ``x``
    broadcast together and share one float dtype."""
    return _betainc(a, b, x)


def lbeta(x, name=None):
    """``log|B(x)| = sum_i lgamma(x_i) - lgamma(sum_i x_i)`` over the last axis (``tf.math.lbeta``); an empty last
    axis gives ``-inf`` (``lgamma(0)`` subtracted from the empty sum), as TF."""
    x = convert_to_tensor(x)
    if x.ndim < 1:
        raise ValueError(f"lbeta: x must have rank >= 1 (the vectors are its last axis). Received shape {x.shape}")
    return math_ops.subtract(reduce_sum(_lgamma(x), axis=-1), _lgamma(reduce_sum(x, axis=-1)))


def bessel_i0(x, name=None):
    """The modified Bessel function of the first kind of order 0 (``tf.math.bessel_i0``)."""
    return _bessel_i0(x)


def bessel_i0e(x, name=None):
    """``e^-|x| I0(x)``, the exponentially scaled ``bessel_i0`` (``tf.math.bessel_i0e``)."""
    return _bessel_i0e(x)


def bessel_i1(x, name=None):
    """The modified Bessel function of the first kind of order 1 (``tf.math.bessel_i1``)."""
    return _bessel_i1(x)


def bessel_i1e(x, name=None):
    """``e^-|x| I1(x)``, the exponentially scaled ``bessel_i1`` (``tf.math.bessel_i1e``)."""
    return _bessel_i1e(x)


def dawsn(x, name=None):
    """Dawson's integral ``e^-x^2 int_0^x e^t^2 dt`` (``tf.math.special.dawsn``)."""
    return _dawsn(x)


def expint(x, name=None):
    """The exponential integral ``Ei(x)`` (``tf.math.special.expint``); NaN for ``x < 0``, ``-inf`` at 0."""
    return _expint(x)


def fresnel_cos(x, name=None):
    """The Fresnel integral ``int_0^x cos(pi t^2 / 2) dt`` (``tf.math.special.fresnel_cos``)."""
    return _fresnel_cos(x)


def fresnel_sin(x, name=None):
    """The Fresnel integral ``int_0^x sin(pi t^2 / 2) dt`` (``tf.math.special.fresnel_sin``)."""
    return _fresnel_sin(x)


def spence(x, name=None):
    """Spence's function ``int_1^x log(t) / (1 - t) dt`` (``tf.math.special.spence``); NaN for ``x < 0``."""
    return _spence(x)


def bessel_j0(x, name=None):
    """The Bessel function of the first kind of order 0 (``tf.math.special.bessel_j0``)."""
    return _bessel_j0(x)


def bessel_j1(x, name=None):
    """The Bessel function of the first kind of order 1 (``tf.math.special.bessel_j1``)."""
    return _bessel_j1(x)


def bessel_y0(x, name=None):
    """The Bessel function of the second kind of order 0 (``tf.math.special.bessel_y0``); NaN for ``x < 0``."""
    return _bessel_y0(x)


def bessel_y1(x, name=None):
    """The Bessel function of the second kind of order 1 (``tf.math.special.bessel_y1``); NaN for ``x < 0``."""
    return _bessel_y1(x)


def bessel_k0(x, name=None):
    """The modified Bessel function of the second kind of order 0 (``tf.math.special.bessel_k0``)."""
    return _bessel_k0(x)


def bessel_k0e(x, name=None):
    """``e^x K0(x)``, the exponentially scaled ``bessel_k0`` (``tf.math.special.bessel_k0e``)."""
    return _bessel_k0e(x)


def bessel_k1(x, name=None):
    """The modified Bessel function of the second kind of order 1 (``tf.math.special.bessel_k1``)."""
    return _bessel_k1(x)


def bessel_k1e(x, name=None):
    """``e^x K1(x)``, the exponentially scaled ``bessel_k1`` (``tf.math.special.bessel_k1e``)."""
    return _bessel_k1e(x)
