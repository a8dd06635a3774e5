"""``TensorArray`` as TF's eager one: writes, reads (clear_after_read), stack/unstack/gather/scatter/concat, sizes,
shapes, gradients through the tape, and bad inputs."""

import numpy as np
import pytest

import descend as ds


def _value(x):
    if isinstance(x, (bool, int, tuple, type(None))):
        return x
    return (np.asarray(x.numpy()).tolist(), x.dtype.name)


# each scenario: a function of the module (descend or tf) returning a list of results to compare
def _write_read(m):
    ta = m.TensorArray(m.float32, size=3)
    ta = ta.write(0, [1.0, 2.0]).write(2, [5.0, 6.0])
    return [ta.read(0), ta.read(1), ta.read(2), ta.size(), ta.stack()]  # stack after reads: cleared slots are zeros


def _no_clear(m):
    ta = m.TensorArray(m.float32, size=2, clear_after_read=False).write(0, 3.0).write(1, 4.0)
    return [ta.read(0), ta.read(0), ta.stack(), ta.gather([1, 1, 0])]


def _dynamic(m):
    ta = m.TensorArray(m.int32, size=0, dynamic_size=True)
    ta = ta.write(3, 7).write(1, 2)
    return [ta.size(), ta.stack(), ta.dynamic_size, tuple(ta.element_shape)]


def _unstack(m):
    ta = m.TensorArray(m.float32, size=3).write(2, [9.0])
    ta = ta.unstack([[1.0], [2.0]])  # replaces the elements: the size becomes 2
    return [ta.size(), ta.stack()]


def _scatter_gather_concat(m):
    ta = m.TensorArray(m.float32, size=4, element_shape=[2], clear_after_read=False)
    ta = ta.scatter([3, 1], [[1.0, 2.0], [3.0, 4.0]])
    return [ta.gather([3, 0, 1]), ta.concat(), ta.stack(), ta.size()]


def _concat_ragged(m):
    ta = m.TensorArray(m.float32, size=2, infer_shape=False).write(0, [1.0]).write(1, [2.0, 3.0])
    return [ta.concat()]


def _empty(m):
    return [m.TensorArray(m.float32, size=0).stack(), m.TensorArray(m.float32, size=0, element_shape=[3]).stack()]


def _element_shape(m):
    a = m.TensorArray(m.float32, size=3, element_shape=[None, 2])
    before = tuple(a.element_shape)
    a = a.write(0, [[1.0, 2.0]])
    return [before, tuple(a.element_shape), a.read(1)]  # the merged shape is fully known: zeros of it


def _int_into_float(m):
    return [m.TensorArray(m.float32, size=1).write(0, 1).read(0)]


SCENARIOS = [_write_read, _no_clear, _dynamic, _unstack, _scatter_gather_concat, _concat_ragged, _empty,
             _element_shape, _int_into_float]

# descend's results, written out independently of TF (the TF comparison below checks them too)
EXPECTED = {
    "_write_read": [([1.0, 2.0], "float32"), ([0.0, 0.0], "float32"), ([5.0, 6.0], "float32"), (3, "int32"),
                    ([[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]], "float32")],
    "_dynamic": [(4, "int32"), ([0, 2, 0, 7], "int32"), True, ()],
    "_unstack": [(2, "int32"), ([[1.0], [2.0]], "float32")],
    "_scatter_gather_concat": [([[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]], "float32"),
                               ([0.0, 0.0, 3.0, 4.0, 0.0, 0.0, 1.0, 2.0], "float32"),
                               ([[0.0, 0.0], [3.0, 4.0], [0.0, 0.0], [1.0, 2.0]], "float32"), (4, "int32")],
    "_concat_ragged": [([1.0, 2.0, 3.0], "float32")],
    "_element_shape": [(None, 2), (1, 2), ([[0.0, 0.0]], "float32")],
}


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_scenario(scenario):
    out = [_value(x) for x in scenario(ds)]
    if scenario.__name__ in EXPECTED:
        assert out == EXPECTED[scenario.__name__]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.__name__ for s in SCENARIOS])
def test_scenario_matches_tf(scenario):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = scenario(ds), scenario(tf)
    for a, b in zip(ours, theirs, strict=True):
        if hasattr(b, "numpy"):
            assert a.dtype.name == b.dtype.name and tuple(a.shape) == tuple(b.shape)
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        else:
            assert a == b


def _gradients(m):
    x = m.Variable([1.0, 2.0])
    with m.GradientTape(persistent=True) as tape:
        a = m.TensorArray(m.float32, size=3)
        for i in range(3):
            a = a.write(i, x * float(i + 1))
        y = m.reduce_sum(a.stack() ** 2)
        b = m.TensorArray(m.float32, size=2).unstack(m.stack([x, x * 3.0]))
        z = m.reduce_sum(b.read(1) * b.read(0))
        c = m.TensorArray(m.float32, size=2, clear_after_read=False).scatter([1, 0], m.stack([x, x * x]))
        w = m.reduce_sum(c.gather([0, 0, 1]) * 2.0) + m.reduce_sum(c.concat())
    return [tape.gradient(t, x).numpy() for t in (y, z, w)]


def test_gradients_through_stack_read_gather_concat():
    gy, gz, gw = _gradients(ds)
    # y = sum_i (i+1)^2 x^2: 2*14*x; z = 3 x^2: 6x; w = 2*(2*x^2 + x) + x^2 + x: 10x + 3
    np.testing.assert_allclose(gy, [28.0, 56.0])
    np.testing.assert_allclose(gz, [6.0, 12.0])
    np.testing.assert_allclose(gw, [13.0, 23.0])


def test_gradients_match_tf():
    tf = pytest.importorskip("tensorflow")
    for a, b in zip(_gradients(ds), _gradients(tf), strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_in_a_traced_function_matches_eager():
    def body(v):
        ta = ds.TensorArray(ds.float32, size=0, dynamic_size=True)
        for i in range(3):
            ta = ta.write(i, v * float(i))
        return ta.stack()

    f = ds.function(body)
    x = ds.constant([1.0, 2.0])
    for _ in range(2):  # the traced call, then the compiled one
        np.testing.assert_array_equal(f(x).numpy(), [[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]])
    np.testing.assert_array_equal(f(ds.constant([3.0, 1.0])).numpy(), body(ds.constant([3.0, 1.0])).numpy())


# bad inputs: (label, call, error, match); state afterwards is checked where a write failed
def _ta(**kw):
    return ds.TensorArray(ds.float32, **{"size": 2, **kw})


BAD = [
    ("read_twice", lambda: (lambda t: (t.read(0), t.read(0)))(_ta().write(0, 1.0)), ds.InvalidArgumentError,
     "Could not read index 0 twice"),
    ("write_past_end", lambda: _ta().write(2, 1.0), ds.errors.OutOfRangeError, "not resizeable and size is: 2"),
    ("write_negative", lambda: _ta().write(-1, 1.0), ds.errors.OutOfRangeError, "negative indices"),
    ("read_past_end", lambda: _ta().read(5), ds.errors.OutOfRangeError, "index 5 but array size is: 2"),
    ("read_negative", lambda: _ta().read(-1), ds.errors.OutOfRangeError, "negative indices"),
    ("gather_past_end", lambda: _ta().gather([0, 5]), ds.errors.OutOfRangeError, "index 5"),
    ("scatter_past_end", lambda: _ta().scatter([3], [[1.0]]), ds.errors.OutOfRangeError, "index 3"),
    ("write_dtype", lambda: ds.TensorArray(ds.int32, size=1).write(0, 1.5), ds.InvalidArgumentError,
     "dtype is int32 but Op is trying to write dtype float32"),
    ("write_shape", lambda: _ta().write(0, [1.0, 2.0]).write(1, [1.0, 2.0, 3.0]), ValueError,
     r"Incompatible shape for value \(3,\), expected \(2,\)"),
    ("element_shape", lambda: _ta(element_shape=[None, 2]).write(0, [[1.0, 2.0, 3.0]]), ValueError,
     r"expected \(None, 2\)"),
    ("unstack_too_many", lambda: _ta().unstack([[1.0], [2.0], [3.0]]), ValueError,
     "Cannot unstack 3 tensors into a TensorArray of static size 2"),
    ("unstack_scalar", lambda: _ta().unstack(1.0), ValueError, "rank >= 1"),
    ("stack_unknown_shape", lambda: _ta().stack(), ValueError, "not fully known"),
    ("stack_ragged", lambda: _ta(infer_shape=False).write(0, [1.0]).write(1, [1.0, 2.0]).stack(),
     ds.InvalidArgumentError, "one shape"),
    ("negative_size", lambda: ds.TensorArray(ds.float32, size=-1), ValueError, "size must be >= 0"),
    ("no_size", lambda: ds.TensorArray(ds.float32), ValueError, "size must be given"),
    ("float_index", lambda: _ta().write(0.5, 1.0), TypeError, "integer scalar"),
    ("bad_dtype", lambda: ds.TensorArray("no_such_dtype", size=1), (TypeError, ValueError), "no_such_dtype"),
    ("handle", lambda: ds.TensorArray(ds.float32, size=1, handle=object()), ValueError, "graph-mode"),
]


@pytest.mark.parametrize("label,call,error,match", BAD, ids=[b[0] for b in BAD])
def test_bad_inputs(label, call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_a_failed_write_leaves_the_array_as_it_was():
    ta = _ta().write(0, [1.0, 2.0])
    for bad in (lambda: ta.write(1, [1.0]), lambda: ta.write(5, [1.0, 1.0]), lambda: ta.scatter([1, 7], [[1.0, 1.0]] * 2)):
        with pytest.raises((ValueError, ds.errors.OutOfRangeError)):
            bad()
        assert ta.size().numpy() == 2 and ta.element_shape == (2,)
    np.testing.assert_array_equal(ta.stack().numpy(), [[1.0, 2.0], [0.0, 0.0]])


def _traced_loop(m):
    @m.function
    def f(v, n):
        ta = m.TensorArray(m.float32, size=0, dynamic_size=True)
        for i in m.range(n):
            ta = ta.write(i, v * m.cast(i, m.float32))
        return ta.stack()

    return [f(m.constant([1.0, 2.0]), m.constant(k)).numpy().tolist() for k in (3, 1, 4)]


def test_indexed_by_a_traced_loop_counter():
    # descend runs such a signature eagerly (with a warning): the numbers are the eager ones
    with pytest.warns(UserWarning, match="runs eagerly"):
        out = _traced_loop(ds)
    assert out == [[[0.0, 0.0], [1.0, 2.0], [2.0, 4.0]], [[0.0, 0.0]],
                   [[0.0, 0.0], [1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]]


def test_indexed_by_a_traced_loop_counter_matches_tf():
    tf = pytest.importorskip("tensorflow")
    with pytest.warns(UserWarning):
        ours = _traced_loop(ds)
    assert ours == _traced_loop(tf)
