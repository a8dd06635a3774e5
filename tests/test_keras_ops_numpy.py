"""keras.ops' NumPy family where Keras' numpy_test.py (tests/keras_suite/numpy_test.py) found descend differing from
Keras: dtypes as Keras' result_type, NumPy's ranks for matmul and kron, the nan-reductions of ints, and Keras' refusals
(wording the Keras tests match). Each expected dtype here is Keras 3's on its TensorFlow backend (what descend
follows; JAX's too except uint32 with a signed int, which TensorFlow widens to int64)."""

from __future__ import annotations

import numpy as np
import pytest

from descend.keras import ops


def _dt(x) -> str:
    return np.dtype(ops.convert_to_numpy(x).dtype).name


# (function, x1 dtype, x2 dtype, expected): a float operand's dtype wins, ints and bools together give floatx()
@pytest.mark.parametrize("name", ["arctan2", "hypot", "logaddexp", "logaddexp2", "heaviside", "nextafter"])
@pytest.mark.parametrize("d1,d2,expected", [
    ("float16", "int16", "float16"), ("bool", "float16", "float16"), ("float16", "uint8", "float16"),
    ("float16", "float32", "float32"), ("int8", "int16", "float32"), ("bool", "bool", "float32"),
    ("float64", "int32", "float64"),
])
def test_float_binaries_take_keras_result_type(name, d1, d2, expected):
    out = getattr(ops, name)(np.ones((2,), d1), np.ones((2,), d2))
    assert _dt(out) == expected


def test_float_binaries_values_unchanged_by_the_promotion():
    a, b = np.array([1.0, -2.0, 0.5], np.float16), np.array([3, 0, -1], np.int16)
    np.testing.assert_allclose(ops.arctan2(a, b).numpy(), np.arctan2(a, b.astype(np.float16)), rtol=1e-3)
    np.testing.assert_allclose(ops.hypot(a, b).numpy(), np.hypot(a, b.astype(np.float16)), rtol=1e-3)


@pytest.mark.parametrize("name,dtype,expected", [
    ("nansum", "bool", "int32"), ("nansum", "int8", "int32"), ("nansum", "uint16", "uint32"),
    ("nanprod", "bool", "int32"), ("nanprod", "int16", "int32"),
    ("nanmax", "bool", "bool"), ("nanmax", "int16", "int16"), ("nanmin", "uint8", "uint8"),
    ("nancumsum", "bool", "int32"), ("nancumprod", "bool", "int32"), ("nancumsum", "int32", "int32"),
    ("nansum", "float16", "float16"), ("nanmax", "float32", "float32"),
])
def test_nan_reductions_of_ints_and_bools_are_the_plain_ones(name, dtype, expected):
    x = np.array([[1, 0, 1], [1, 1, 0]]).astype(dtype)
    out = getattr(ops, name)(x)
    assert _dt(out) == expected
    plain = {"nansum": np.sum, "nanprod": np.prod, "nanmax": np.max, "nanmin": np.min,
             "nancumsum": lambda v: np.cumsum(v.reshape(-1)), "nancumprod": lambda v: np.cumprod(v.reshape(-1))}[name]
    np.testing.assert_array_equal(out.numpy().astype(np.float64), plain(x).astype(np.float64))


def test_nan_reductions_of_floats_still_skip_nan():
    x = np.array([1.0, np.nan, 3.0], np.float32)
    assert float(ops.nansum(x)) == 4.0 and float(ops.nanmax(x)) == 3.0 and float(ops.nanmin(x)) == 1.0
    np.testing.assert_array_equal(ops.nancumsum(x).numpy(), [1.0, 1.0, 4.0])


@pytest.mark.parametrize("dtype,expected", [("bool", "int32"), ("int8", "int32"), ("uint8", "uint32"),
                                            ("int32", "int32"), ("float16", "float16")])
def test_trace_sums_as_sum_does(dtype, expected):
    x = np.ones((2, 2, 3)).astype(dtype)
    out = ops.trace(x)
    assert _dt(out) == expected
    np.testing.assert_array_equal(out.numpy(), np.trace(x.astype(np.float64)))


@pytest.mark.parametrize("name,ref", [("bitwise_left_shift", np.left_shift), ("bitwise_right_shift", np.right_shift),
                                      ("bitwise_and", np.bitwise_and), ("bitwise_xor", np.bitwise_xor)])
@pytest.mark.parametrize("dtype", ["int8", "int16", "uint8", "uint16", "int32"])
def test_int_binaries_with_a_python_int_keep_the_tensor_dtype(name, ref, dtype):
    x = np.array([1, 2, 5]).astype(dtype)
    out = getattr(ops, name)(x, 1)
    assert _dt(out) == dtype
    np.testing.assert_array_equal(out.numpy(), ref(x, 1))


@pytest.mark.parametrize("sa,sb", [((), ()), ((2,), ()), ((3,), (2,)), ((2, 3), (2, 2)), ((2,), (3, 2)),
                                   ((2, 1, 3), (2, 2, 1)), ((3,), (2, 2, 2))])
def test_kron_of_any_ranks_matches_numpy(sa, sb):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=sa).astype(np.float32), rng.integers(-3, 4, size=sb).astype(np.int32)
    out = ops.kron(a, b).numpy()
    ref = np.kron(a, b)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-6)


@pytest.mark.parametrize("sa,sb", [((4,), (2, 3, 4, 5)), ((2, 3, 4, 5), (5,)), ((4,), (4,)), ((3, 4), (4,)),
                                   ((4,), (4, 2)), ((2, 1, 3, 4), (3, 4, 2)), ((3, 4), (4, 5))])
def test_matmul_takes_vectors_and_batches_as_numpy(sa, sb):
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=sa).astype(np.float32), rng.normal(size=sb).astype(np.float32)
    out = ops.matmul(a, b).numpy()
    ref = np.matmul(a, b)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_average_promotes_x_with_its_weights():
    x, w = np.array([1.0, 2.0, 4.0], np.float16), np.array([1.0, 1.0, 2.0], np.float32)
    out = ops.average(x, weights=w)
    assert _dt(out) == "float32"
    assert float(out) == pytest.approx(np.average(x.astype(np.float32), weights=w))


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "bool"])
def test_windows_take_a_scalar_tensor_length(name, dtype):
    n = ops.ones((), dtype=dtype) if dtype == "bool" else ops.array(5, dtype=dtype)
    out = getattr(ops, name)(n)
    np.testing.assert_allclose(out.numpy(), getattr(np, name)(1 if dtype == "bool" else 5), atol=1e-6)
    assert _dt(out) == "float32"


@pytest.mark.parametrize("call,exc,match", [
    (lambda: ops.pad(np.ones((2, 2)), 1, mode="reflect", constant_values=0), ValueError,
     r"Argument `constant_values` can only be provided when `mode == 'constant'`\. Received: mode=reflect"),
    (lambda: ops.histogram(np.ones((3, 4))), ValueError, "Input tensor must be 1-dimensional"),
    (lambda: ops.histogram(np.ones(4), bins=-5), ValueError, "Argument `bins` should be a non-negative integer"),
    (lambda: ops.histogram(np.ones(4), bins=2.5), TypeError, "Argument `bins` must be of type `int`"),
    (lambda: ops.histogram(np.ones(4), range=(1,)), ValueError, "Argument `range` must be a tuple of two elements"),
    (lambda: ops.histogram(np.ones(4), range=(5, 1)), ValueError,
     "The second element of `range` must be greater than the first"),
    (lambda: ops.rot90(np.ones(3)), ValueError, "at least 2 dimensions. Received: array.ndim=1"),
    (lambda: ops.rot90(np.ones((2, 2)), axes=(0, 0)), ValueError, "Axes must be a tuple of two different"),
    (lambda: ops.rot90(np.ones((2, 2)), axes=(0, -2)), ValueError, "Axes must be a tuple of two different"),
    (lambda: ops.reshape(np.zeros(20), (-2, 5)), ValueError, r"non-negative integer.*-1.*newshape=\(-2, 5\)"),
    (lambda: ops.reshape(np.zeros(20), (-1, -1, 5)), ValueError,
     r"at most one unknown dimension.*newshape=\(-1, -1, 5\)"),
    (lambda: ops.eye(3.0), TypeError, "`N` must be an int"),
    (lambda: ops.eye(3, 2.0), TypeError, "`M` must be an int"),
    (lambda: ops.eye(ops.max(ops.arange(4.0))), TypeError, "`N` must be an int; received a tensor of dtype float32"),
    (lambda: ops.matmul(np.ones(()), np.ones((2, 2))), ValueError, "must not be scalars"),
])
def test_refusals_as_keras(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_refusals_leave_working_calls_alone():
    np.testing.assert_array_equal(ops.reshape(np.arange(6), (-1, 3)).numpy(), np.arange(6).reshape(2, 3))
    np.testing.assert_array_equal(ops.eye(ops.array(3), np.int64(2)).numpy(), np.eye(3, 2))
    np.testing.assert_array_equal(ops.rot90(np.arange(4).reshape(2, 2), axes=(1, 0)).numpy(),
                                  np.rot90(np.arange(4).reshape(2, 2), axes=(1, 0)))
    counts, edges = ops.histogram(np.array([0.0, 1.0, 2.0, 3.0]), bins=3, range=(0.0, 3.0))
    np.testing.assert_array_equal(counts.numpy(), [1, 1, 2])
    np.testing.assert_array_equal(ops.pad(np.arange(3), 1, mode="reflect").numpy(), [1, 0, 1, 2, 1])


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("axis", [None, 1, (1, 2), (0, 3), -1])
@pytest.mark.parametrize("q,keepdims", [(0.5, False), ([0.1, 0.35, 0.9], True), ([0.0, 1.0], False)])
def test_quantile_methods_and_axes_match_numpy(method, axis, q, keepdims):
    x = np.random.default_rng(2).normal(size=(2, 3, 4, 5)).astype(np.float32)
    out = ops.quantile(x, q, axis=axis, method=method, keepdims=keepdims).numpy()
    ref = np.quantile(x, q, axis=axis, method=method, keepdims=keepdims)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, atol=1e-6)


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_nanquantile_methods_match_numpy(method):
    x = np.random.default_rng(3).normal(size=(2, 3, 6)).astype(np.float32)
    x[0, 0, :2] = np.nan
    # (q exact in float32: Keras takes q in floatx(), where 0.7 is 0.69999999, a hair off NumPy's index ties)
    out = ops.nanquantile(x, [0.25, 0.75], axis=-1, method=method).numpy()
    np.testing.assert_allclose(out, np.nanquantile(x, [0.25, 0.75], axis=-1, method=method), atol=1e-6)


def test_median_over_a_tuple_of_axes():
    x = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_allclose(ops.median(x, axis=(1,)).numpy(), np.median(x, axis=(1,)))
    np.testing.assert_allclose(ops.median(x, axis=(0, 2), keepdims=True).numpy(),
                               np.median(x, axis=(0, 2), keepdims=True))


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
def test_quantile_refuses_an_unknown_method(name):
    with pytest.raises(ValueError, match="`method` must be one of 'linear'.*Received: method='cubic'"):
        getattr(ops, name)(np.ones(4), 0.5, method="cubic")


@pytest.mark.parametrize("shape,axis", [((2, 3), None), ((2, 3, 4), None), ((2, 3, 4), 1), ((5,), None)])
@pytest.mark.parametrize("name", ["argmax", "argmin"])
def test_arg_reductions_keepdims_as_numpy(shape, axis, name):
    x = np.random.default_rng(4).normal(size=shape)
    out = getattr(ops, name)(x, axis=axis, keepdims=True).numpy()
    ref = getattr(np, name)(x, axis=axis, keepdims=True)
    assert out.shape == ref.shape
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("d1,d2,expected", [("float16", "float32", "float32"), ("float16", "int8", "float16"),
                                            ("int8", "int16", "float32"), ("int64", "int8", "float64"),
                                            ("float64", "float16", "float64"), ("bool", "bool", "float32")])
def test_correlate_dtype_is_keras(d1, d2, expected):
    a, v = np.array([1, 2, 3]).astype(d1), np.array([0, 1, 1]).astype(d2)
    out = ops.correlate(a, v)
    assert _dt(out) == expected
    np.testing.assert_allclose(out.numpy(), np.correlate(a.astype(np.float64), v.astype(np.float64)))


def test_diff_of_bools_and_einsum_of_int8():
    b = np.array([True, False, False, True])
    np.testing.assert_array_equal(ops.diff(b).numpy(), np.diff(b))
    assert _dt(ops.diff(b)) == "bool"
    a = np.array([100, 100, 100], np.int8)
    out = ops.einsum("i,i->", a, a)
    assert _dt(out) == "int32" and int(out) == 30000
    assert _dt(ops.einsum("i,i->", a, a.astype(np.int16))) == "int16"


@pytest.mark.parametrize("sa,sb", [((2, 1, 4, 3), (2, 1, 4, 3)), ((2, 1, 4, 3), (1, 5, 4, 3)),
                                   ((2, 1, 4, 3), (1, 5, 4, 2)), ((2, 1, 4, 2), (1, 5, 4, 2)), ((2,), (3,)),
                                   ((4, 2), (4, 3))])
def test_cross_of_two_and_three_components_broadcasts_as_numpy(sa, sb):
    rng = np.random.default_rng(5)
    a, b = rng.normal(size=sa).astype(np.float32), rng.normal(size=sb).astype(np.float32)
    out = ops.cross(a, b).numpy()
    ref = np.cross(a, b)
    assert out.shape == ref.shape
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_cross_refuses_other_lengths():
    with pytest.raises(ValueError, match=r"2 or 3 components. Received shapes \(4,\) and \(3,\)"):
        ops.cross(np.ones(4), np.ones(3))


def test_unique_keeps_each_nan_apart():
    x = np.array([1.0, np.nan, 2.0, np.nan], np.float32)
    v, inv, counts = ops.unique(x, return_inverse=True, return_counts=True)
    v = v.numpy()
    assert v.shape == (4,) and np.isnan(v).sum() == 2
    np.testing.assert_array_equal(v[:2], [1.0, 2.0])
    np.testing.assert_array_equal(counts.numpy(), [1, 1, 1, 1])
    np.testing.assert_array_equal(v[inv.numpy()][[0, 2]], [1.0, 2.0])
    np.testing.assert_array_equal(ops.unique(np.array([3, 1, 3])).numpy(), [1, 3])


def _references():
    """tests/keras_suite/kshim/references.py (the Keras suite's reference modules), with JAX."""
    import os
    import sys

    pytest.importorskip("jax")
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keras_suite")
    if here not in sys.path:
        sys.path.insert(0, here)
    from kshim import references

    return references


@pytest.mark.parametrize("call", [
    lambda jnp: jnp.add(jnp.ones((1,), "uint8"), jnp.ones((1,), "int16")),
    lambda jnp: jnp.add(jnp.ones((1,), "float16"), 1.0),  # a weak Python float keeps float16
    lambda jnp: jnp.add(jnp.ones((1,), "int8"), 1),
    lambda jnp: jnp.true_divide(jnp.ones((2,), "int32"), jnp.ones((2,), "int32")),
    lambda jnp: jnp.split(jnp.ones((1, 4), "uint16"), 2, -1)[1],
    lambda jnp: jnp.where(jnp.ones((2,), "bool"), jnp.ones((2,), "int8"), 1.0),
    lambda jnp: jnp.nonzero(jnp.array([0, 3, 0, 2], dtype="int16"))[0],  # value-dependent: computed eagerly
    lambda jnp: jnp.sum(jnp.ones((3,), "bool")),
    lambda jnp: jnp.arange(0, 5, 1, "int16"),
])
def test_kshim_traced_jax_numpy_gives_eager_jax_dtypes_and_shapes(call):
    refs = _references()
    eager, traced = call(refs.jnp), call(refs.jnp_dtypes)
    assert (traced.dtype, tuple(traced.shape)) == (eager.dtype, tuple(eager.shape))
    np.testing.assert_array_equal(np.asarray(traced), np.asarray(eager))  # values, on request, are JAX's
