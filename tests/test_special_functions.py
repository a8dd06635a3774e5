"""tf.math's special functions and segment products (issue 37): closed forms without TF, then values over wide
ranges, TF's edge values and gradients against TensorFlow (float64 to 1e-13 or tighter where the function is
well conditioned)."""

import math
from fractions import Fraction

import numpy as np
import pytest

import descend as ds

_RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- closed forms (no TF needed)
def _harmonic(n):
    return sum(1.0 / k for k in range(1, n))


IDENTITIES = [
    ("lgamma of integers", lambda: ds.math.lgamma(np.arange(1.0, 30.0)),
     [math.log(math.factorial(n - 1)) for n in range(1, 30)]),
    ("digamma of integers", lambda: ds.math.digamma(np.arange(1.0, 30.0)),
     [_harmonic(n) - 0.5772156649015329 for n in range(1, 30)]),
    ("digamma of halves", lambda: ds.math.digamma(np.array([0.5, -0.5])),
     [-0.5772156649015329 - 2 * math.log(2), -0.5772156649015329 - 2 * math.log(2) + 2]),
    ("zeta(2), zeta(4), zeta(6)", lambda: ds.math.zeta(np.array([2.0, 4.0, 6.0]), 1.0),
     [math.pi ** 2 / 6, math.pi ** 4 / 90, math.pi ** 6 / 945]),
    ("zeta(x, q) - zeta(x, q + 1) = q^-x", lambda: ds.math.zeta(np.full(3, 3.5), np.array([0.3, 2.0, 40.0]))
     - ds.math.zeta(np.full(3, 3.5), np.array([1.3, 3.0, 41.0])), [0.3 ** -3.5, 2.0 ** -3.5, 40.0 ** -3.5]),
    ("polygamma(1, 1) = pi^2/6", lambda: ds.math.polygamma(np.array([1.0, 2.0]), 1.0),
     [math.pi ** 2 / 6, -2 * 1.2020569031595942]),
    ("igamma(1, x) = 1 - e^-x", lambda: ds.math.igamma(np.ones(4), np.array([0.1, 1.0, 5.0, 30.0])),
     [1 - math.exp(-x) for x in (0.1, 1.0, 5.0, 30.0)]),
    ("igammac(1, x) = e^-x", lambda: ds.math.igammac(np.ones(4), np.array([0.1, 1.0, 5.0, 30.0])),
     [math.exp(-x) for x in (0.1, 1.0, 5.0, 30.0)]),
    ("igamma(0.5, x) = erf(sqrt x)", lambda: ds.math.igamma(np.full(4, 0.5), np.array([0.01, 0.7, 2.0, 9.0])),
     [math.erf(math.sqrt(x)) for x in (0.01, 0.7, 2.0, 9.0)]),
    ("betainc(a, 1, x) = x^a", lambda: ds.math.betainc(np.array([0.5, 2.0, 7.0]), np.ones(3), np.array([0.3, 0.6, 0.9])),
     [0.3 ** 0.5, 0.6 ** 2, 0.9 ** 7]),
    ("betainc(2, 2, x) = 3x^2 - 2x^3", lambda: ds.math.betainc(np.full(3, 2.0), np.full(3, 2.0), np.array([0.2, 0.5, 0.85])),
     [3 * x * x - 2 * x ** 3 for x in (0.2, 0.5, 0.85)]),
    ("lbeta([a, b]) = log B(a, b)", lambda: ds.math.lbeta(np.array([[2.0, 3.0], [0.5, 0.5]])),
     [math.log(1 / 12), math.log(math.pi)]),
    ("bessel_i0(x) by its series", lambda: ds.math.bessel_i0(np.array([1.0, -2.0])),
     [sum((0.25) ** k / math.factorial(k) ** 2 for k in range(30)),
      sum(1.0 ** k / math.factorial(k) ** 2 for k in range(30))]),
    ("bessel_i1e(x) = e^-|x| i1(x)", lambda: ds.math.bessel_i1e(np.array([3.0, -50.0])),
     [math.exp(-3) * sum(1.5 ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1)) for k in range(40)),
      -math.exp(-50) * float(sum(Fraction(25) ** (2 * k + 1) / (math.factorial(k) * math.factorial(k + 1))
                                 for k in range(150)))]),
    ("unsorted_segment_prod", lambda: ds.math.unsorted_segment_prod(np.array([2.0, 3.0, -1.0, 4.0]), [1, 1, 0, 1], 3),
     [-1.0, 24.0, 1.0]),
]


@pytest.mark.parametrize("name,call,expected", IDENTITIES, ids=[c[0] for c in IDENTITIES])
def test_closed_forms(name, call, expected):
    np.testing.assert_allclose(call().numpy(), expected, rtol=2e-14, atol=1e-300)


def test_float32_in_float32_out_and_integers_refused():
    assert ds.math.lgamma(np.float32([2.5])).dtype.name == "float32"
    assert ds.math.betainc(np.float32(1), np.float32(2), np.float32([0.5])).dtype.name == "float32"
    with pytest.raises(TypeError, match="float"):
        ds.math.digamma(np.array([1, 2]))
    with pytest.raises(TypeError):
        ds.math.zeta(ds.constant(np.float32([2.0])), ds.constant(np.float64([1.0])))
    with pytest.raises(ValueError, match="num_segments"):
        ds.math.unsorted_segment_prod([1.0, 2.0], [0, 1], -1)
    with pytest.raises(ds.errors.InvalidArgumentError, match="sorted"):
        ds.math.segment_prod([1.0, 2.0], [1, 0])


# ---------------------------------------------------------------- against TF
def _wide():
    return np.concatenate([_RNG.uniform(-50, 50, 800), 10 ** _RNG.uniform(-10, 10, 800),
                           0.5 - 10 ** _RNG.uniform(-10, 3, 800), np.linspace(0.01, 5, 300)])


def _pos(lo, hi, n=2000):
    return 10 ** _RNG.uniform(lo, hi, n)


_INF, _NAN = np.inf, np.nan
_EDGE1 = np.array([0.0, -0.0, -1.0, -2.0, -2.5, _INF, -_INF, _NAN, 1e-300, -1e-300, 1e300, 0.5])
_N = np.floor(_RNG.uniform(0, 8, 2000))
_A, _B = _pos(-2, 3), _pos(-2, 3)
# (name, args, rtol, atol): lgamma near its zeros and digamma near its root lose relative accuracy in any
# float64 method (absolute error ~1e-16 there)
WIDE = [
    ("lgamma", [_wide()], 1e-13, 1e-15),
    ("digamma", [_wide()], 1e-13, 1e-15),
    ("lgamma", [_EDGE1], 1e-14, 0),
    ("digamma", [_EDGE1], 1e-14, 0),
    ("zeta", [1 + _pos(-6, 3), _pos(-3, 4)], 1e-13, 1e-300),
    ("zeta", [np.floor(_RNG.uniform(2, 20, 2000)), _RNG.uniform(-30, -0.1, 2000)], 1e-13, 0),
    ("zeta", [np.array([1.0, 0.5, 2, 2, 2, 3, 2, _INF, 2, _NAN, 3, 2.5, _INF, _INF, 2]),
              np.array([1.0, 1, 0, -1, -1.5, -1.5, _INF, 1, 1e-300, 1, -2.5, -2.5, 0.5, 2, -_INF])], 1e-14, 0),
    ("polygamma", [_N, _pos(-3, 3)], 1e-13, 0),
    ("polygamma", [_N, _RNG.uniform(-20, 0, 2000)], 1e-13, 0),
    # large a: a log x - x - lgamma(a) cancels; TF's and descend's values are both within ~2e-12 of mpmath's
    ("igamma", [_A, _A * 10 ** _RNG.uniform(-2, 1, 2000)], 1e-11, 1e-300),
    ("igammac", [_A, _A * 10 ** _RNG.uniform(-2, 1, 2000)], 1e-11, 1e-300),
    ("betainc", [_A, _B, _RNG.uniform(0, 1, 2000)], 1e-11, 1e-300),
    ("bessel_i0", [_RNG.uniform(-750, 750, 2000)], 1e-14, 0),
    ("bessel_i0e", [_RNG.uniform(-750, 750, 2000)], 1e-14, 0),
    ("bessel_i1", [_RNG.uniform(-40, 40, 2000)], 1e-14, 0),
    ("bessel_i1e", [np.concatenate([_RNG.uniform(-750, 750, 2000), 10 ** _RNG.uniform(-300, 1, 200)])], 1e-14, 0),
]
_TWO_EDGE = [np.array([0.0, 1, 2.5, -1, _NAN, 1, 1, 1, _INF, 0, 3, 1, 4]),
             np.array([1.0, 1, 1, 1, 1, -1, 0, _INF, 2, 0, 1, -_INF, _NAN])]
WIDE += [(n, _TWO_EDGE, 1e-14, 0) for n in ("polygamma", "igamma", "igammac")]
WIDE += [(n, [_EDGE1], 1e-14, 0) for n in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e")]
WIDE += [("betainc", [np.array([0.0, 1, -1, 1, 1, 1, _INF, 1, _NAN, 2, 2, 1]),
                      np.array([1.0, 0, 1, 1, 1, 1, 1, _INF, 1, 3, 3, 1]),
                      np.array([0.5, 0.5, 0.5, -0.1, 1.1, 0, 0.5, 0.5, 0.5, 1, 0, _NAN])], 1e-14, 0)]


@pytest.mark.parametrize("name,args,rtol,atol", WIDE, ids=[f"{c[0]}-{i}" for i, c in enumerate(WIDE)])
def test_values_match_tensorflow(name, args, rtol, atol):
    tf = pytest.importorskip("tensorflow")
    with np.errstate(all="ignore"):
        got = getattr(ds.math, name)(*args).numpy()
    want = getattr(tf.math, name)(*args).numpy()
    # TF flushes results below the smallest normal float64 to zero; descend keeps them
    want_normal = np.where(np.abs(got) < np.finfo(np.float64).tiny, got, want)
    np.testing.assert_allclose(got, want_normal, rtol=rtol, atol=atol)


def test_float32_values_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    x = _RNG.uniform(0.1, 20, 500).astype(np.float32)
    for name, args in (("lgamma", [x]), ("digamma", [x]), ("zeta", [x + 1.5, x]), ("igamma", [x, x[::-1]]),
                       ("betainc", [x, x[::-1], np.float32(0.37) + 0 * x]), ("bessel_i1e", [x - 10])):
        got, want = getattr(ds.math, name)(*args).numpy(), getattr(tf.math, name)(*args).numpy()
        assert got.dtype == want.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, err_msg=name)


def test_incomplete_gamma_and_beta_against_mpmath():
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    rng = np.random.default_rng(11)
    a, b, x = 10 ** rng.uniform(-2, 3, 150), 10 ** rng.uniform(-2, 3, 150), rng.uniform(0, 1, 150)
    y = a * 10 ** rng.uniform(-2, 1, 150)
    p, q, ib = ds.math.igamma(a, y).numpy(), ds.math.igammac(a, y).numpy(), ds.math.betainc(a, b, x).numpy()
    for i in range(150):
        want_p = float(mpmath.gammainc(a[i], 0, y[i], regularized=True))
        want_q = float(mpmath.gammainc(a[i], y[i], mpmath.inf, regularized=True))
        want_b = float(mpmath.betainc(a[i], b[i], 0, x[i], regularized=True))
        for got, want in ((p[i], want_p), (q[i], want_q), (ib[i], want_b)):
            if abs(want) > 1e-290:
                assert abs(got - want) <= 5e-12 * abs(want), (i, a[i], b[i], x[i], y[i], got, want)


GRADS = [  # (name, args, which inputs get a gradient)
    ("lgamma", [_RNG.uniform(-5, 10, 50)], [0]),
    ("digamma", [_RNG.uniform(-5, 10, 50)], [0]),
    ("polygamma", [np.floor(_RNG.uniform(0, 5, 50)), _RNG.uniform(0.1, 10, 50)], [1]),
    ("zeta", [_RNG.uniform(1.5, 6, 50), _RNG.uniform(0.2, 10, 50)], [1]),
    ("igamma", [_pos(-2, 2.3, 300), _pos(-2, 2.5, 300)], [0, 1]),
    ("igammac", [_pos(-2, 2.3, 300), _pos(-2, 2.5, 300)], [0, 1]),
    ("betainc", [_RNG.uniform(0.2, 10, 50), _RNG.uniform(0.2, 10, 50), _RNG.uniform(0.01, 0.99, 50)], [2]),
    ("lbeta", [_RNG.uniform(0.2, 5, (10, 5))], [0]),
    ("unsorted_segment_prod", [np.array([[2.0, 3.0], [0.0, 4.0], [5.0, 0.0], [0.0, 0.0], [1.5, -2.0], [3.0, 0.5]])],
     [0]),
    ("unsorted_segment_prod_dropping_negative_ids", [_RNG.uniform(-2, 2, (6, 2)) * (_RNG.uniform(size=(6, 2)) > 0.3)],
     [0]),
] + [(n, [np.concatenate([_RNG.uniform(-40, 40, 49), [0.0]])], [0])
     for n in ("bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e")]


def _call(lib, name, ts):
    if name == "unsorted_segment_prod":
        return lib.math.unsorted_segment_prod(ts[0], np.array([0, 0, 1, 1, 3, 1]), 5)
    if name == "unsorted_segment_prod_dropping_negative_ids":
        return lib.math.unsorted_segment_prod(ts[0], np.array([0, -1, 1, 1, -1, 1]), 3)
    return getattr(lib.math, name)(*ts)


@pytest.mark.parametrize("name,args,wrt", GRADS, ids=[c[0] for c in GRADS])
def test_gradients_match_tensorflow(name, args, wrt):
    tf = pytest.importorskip("tensorflow")
    out = []
    for lib in (ds, tf):
        ts = [lib.constant(a) for a in args]
        with lib.GradientTape() as tape:
            for i in wrt:
                tape.watch(ts[i])
            y = lib.reduce_sum(_call(lib, name, ts) ** 2)
        out.append([np.asarray(g) for g in tape.gradient(y, [ts[i] for i in wrt])])
    for got, want in zip(*out):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_no_gradient_where_tf_has_none():
    a, x = ds.constant([2.0]), ds.constant([1.5])
    with ds.GradientTape() as tape:
        tape.watch(a)
        y = ds.math.zeta(a, x)
    with pytest.raises(ds.NoGradientError, match="zeta"):
        tape.gradient(y, a)
