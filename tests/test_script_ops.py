"""``py_function`` and ``numpy_function``: results and dtypes as TF's, gradients through the tape, calls inside
``descend.function`` on every call, and bad inputs."""

import numpy as np
import pytest

import descend as ds

# (label, call of the module): each returns a Tensor or a list of them
CASES = [
    ("py_single", lambda m: m.py_function(lambda a: a * 2.0, [m.constant([1.0, 2.0])], m.float32)),
    ("py_list", lambda m: m.py_function(lambda a, b: [a + b, a * b], [m.constant(2.0), m.constant(3.0)],
                                        [m.float32, m.float32])),
    ("py_numpy_out", lambda m: m.py_function(lambda a: np.float64(3.5), [m.constant(1.0)], m.float32)),
    ("py_python_in", lambda m: m.py_function(lambda a: a * 2.0, [[1.0, 2.0]], m.float32)),
    ("py_int_out", lambda m: m.py_function(lambda a: a.numpy().astype(np.int64) + 1, [m.constant([1, 2])], m.int64)),
    ("py_empty", lambda m: m.py_function(lambda a: [], [m.constant(1.0)], [])),
    ("np_single", lambda m: m.numpy_function(lambda a: np.sort(a)[::-1].copy(), [m.constant([1.0, 3.0, 2.0])],
                                             m.float32)),
    ("np_list", lambda m: m.numpy_function(lambda a: [a * 2, a], [m.constant([1.0, 2.0])], [m.float32, m.float32])),
    ("np_scalar", lambda m: m.numpy_function(lambda a: 3.0, [m.constant([1.0])], m.float32)),
    ("np_gets_arrays", lambda m: m.numpy_function(lambda a: np.array(type(a) is np.ndarray, np.bool_),
                                                  [m.constant(1.0)], m.bool)),
]

EXPECTED = {"py_single": [([2.0, 4.0], "float32")], "py_list": [(5.0, "float32"), (6.0, "float32")],
            "py_numpy_out": [(3.5, "float32")], "py_int_out": [([2, 3], "int64")], "py_empty": [],
            "np_single": [([3.0, 2.0, 1.0], "float32")], "np_gets_arrays": [(True, "bool")]}


def _flat(out):
    return [(np.asarray(t.numpy()).tolist(), t.dtype.name) for t in (out if isinstance(out, list) else [out])]


@pytest.mark.parametrize("label,call", CASES, ids=[c[0] for c in CASES])
def test_results(label, call):
    out = call(ds)
    if label in EXPECTED:
        assert _flat(out) == EXPECTED[label]


@pytest.mark.parametrize("label,call", CASES, ids=[c[0] for c in CASES])
def test_results_match_tf(label, call):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = call(ds), call(tf)
    assert isinstance(ours, list) == isinstance(theirs, list)
    assert _flat(ours) == _flat(theirs)


def _grads(m):
    x = m.Variable([1.0, 2.0])
    with m.GradientTape(persistent=True) as tape:
        y = m.py_function(lambda a: a * a * 3.0, [x], m.float32)
        z = m.numpy_function(lambda a: a * a, [x], m.float32)
        two = m.py_function(lambda a, b: [m.reduce_sum(a * b), a + b], [x, x * 2.0], [m.float32, m.float32])
    return [tape.gradient(y, x), tape.gradient(z, x), tape.gradient(two, x)]


def test_gradients():
    gy, gz, gtwo = _grads(ds)
    np.testing.assert_allclose(gy.numpy(), [6.0, 12.0])
    assert gz is None  # numpy_function cuts the path, as TF's
    np.testing.assert_allclose(gtwo.numpy(), [4.0 * 1.0 + 3.0, 4.0 * 2.0 + 3.0])  # d(2x^2 + 3x)


def test_gradients_match_tf():
    tf = pytest.importorskip("tensorflow")
    for a, b in zip(_grads(ds), _grads(tf), strict=True):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)


@pytest.mark.parametrize("api", ["py_function", "numpy_function"])
def test_runs_on_every_call_of_a_function(api):
    calls = []

    def host(a):
        calls.append(1)
        return np.asarray(a) + np.float32(len(calls))

    @ds.function
    def f(x):
        return getattr(ds, api)(host, [x * 2.0], ds.float32) + 1.0

    x = ds.constant([1.0, 2.0])
    got = [f(x).numpy().tolist() for _ in range(3)]
    assert len(calls) >= 3  # each call of f ran host (the trace may run it once more)
    assert got[0][0] < got[1][0] < got[2][0]  # with that call's count: nothing was frozen at trace time
    n = len(calls)
    assert got[-1] == [2.0 + n + 1.0, 4.0 + n + 1.0]


def test_decorator_form():
    @ds.py_function(Tout=ds.float32)
    def double(a):
        return a * 2.0

    assert double(ds.constant(4.0)).numpy() == 8.0


BAD = [
    ("not_callable", lambda: ds.py_function(3, [ds.constant(1.0)], ds.float32), TypeError, "callable"),
    ("bad_tout", lambda: ds.py_function(lambda a: a, [ds.constant(1.0)], "nope"), TypeError, "Tout"),
    ("inp_not_list", lambda: ds.py_function(lambda a: a, ds.constant(1.0), ds.float32), TypeError, "list"),
    ("tensor_dtype", lambda: ds.py_function(lambda a: ds.constant(3), [ds.constant(1.0)], ds.float32),
     ds.InvalidArgumentError, "dtype int32; Tout declares float32"),
    ("count", lambda: ds.py_function(lambda a: [a, a], [ds.constant(1.0)], [ds.float32]), ValueError,
     "returned 2 value"),
    ("none_out", lambda: ds.py_function(lambda a: None, [ds.constant(1.0)], ds.float32), ValueError, "None"),
    ("string_out", lambda: ds.py_function(lambda a: "x", [ds.constant(1.0)], ds.float32), TypeError,
     "does not convert"),
    ("np_dtype", lambda: ds.numpy_function(lambda a: a.astype(np.float64), [ds.constant(1.0)], ds.float32),
     ds.InvalidArgumentError, "float64; Tout declares float32"),
    ("func_raises", lambda: ds.py_function(lambda a: 1 / 0, [ds.constant(1.0)], ds.float32), ZeroDivisionError, ""),
]


@pytest.mark.parametrize("label,call,error,match", BAD, ids=[b[0] for b in BAD])
def test_bad_inputs(label, call, error, match):
    with pytest.raises(error, match=match or None):
        call()


def test_bad_tout_is_checked_before_func_runs():
    ran = []
    with pytest.raises(TypeError, match="Tout"):
        ds.py_function(lambda a: ran.append(1), [ds.constant(1.0)], [ds.float32, "nope"])
    assert not ran
