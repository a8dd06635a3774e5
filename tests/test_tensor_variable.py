"""Tensor, Variable, IndexedSlices, name scopes and value conversion.

Expected values are computed with NumPy (or written out by hand), never with descend.
"""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _f64(*values):
    return np.array(values, dtype=np.float64)


# ---------------------------------------------------------------- dtype rules
@pytest.mark.parametrize("value, dtype", [
    (1.0, np.float32),
    ([1.0, 2.0], np.float32),
    ([1.0, 2], np.float32),
    (1, np.int32),
    ([[1, 2], [3, 4]], np.int32),
    (True, np.bool_),
    (np.array([1.0, 2.0]), np.float64),
    (np.array([1.0], np.float32), np.float32),
    (np.array([1, 2], np.int64), np.int64),
    (np.float64(2.5), np.float64),
    (2 ** 40, np.int64),  # TF: int64 where int32 cannot hold the value (never a silent wrap)
    ([1, -(2 ** 31) - 1], np.int64),
    ([2 ** 31 - 1, -(2 ** 31)], np.int32),
    ([np.float16(1.5), np.float16(2)], np.float16),  # TF: a list of NumPy scalars keeps their dtype
    ([np.float32(1.5)], np.float32),
])
@pytest.mark.parametrize("convert", [ds.constant, ds.convert_to_tensor], ids=["constant", "convert_to_tensor"])
def test_conversion_dtype_rules(convert, value, dtype):
    t = convert(value)
    assert isinstance(t, ds.Tensor)
    assert t.dtype == np.dtype(dtype), f"{value!r} -> {t.dtype}, expected {np.dtype(dtype).name}"
    np.testing.assert_array_equal(t.numpy(), np.asarray(value, dtype=dtype))
    assert t.numpy().dtype == np.dtype(dtype)


def test_constant_with_explicit_dtype():
    assert ds.constant(1, dtype="float64").dtype == np.float64
    assert ds.constant([1.0, 2.0], dtype=ds.float64).dtype == np.float64
    assert ds.constant(np.array([1.0, 2.0]), dtype="float32").dtype == np.float32
    np.testing.assert_array_equal(ds.constant(3, dtype=ds.int64).numpy(), np.array(3, np.int64))


def test_constant_refuses_a_fractional_value_for_an_integer_dtype():
    with pytest.raises(TypeError, match="1.5"):
        ds.constant(1.5, dtype="int32")


def test_constant_shape_broadcasts_a_scalar_and_reshapes():
    np.testing.assert_array_equal(ds.constant(2.0, shape=(2, 3)).numpy(), np.full((2, 3), 2.0, np.float32))
    np.testing.assert_array_equal(ds.constant([1, 2, 3, 4], shape=(2, 2)).numpy(), np.array([[1, 2], [3, 4]]))
    with pytest.raises(ValueError, match=r"\(3,\)"):
        ds.constant([1.0, 2.0], shape=(3,))


def test_set_floatx_changes_the_python_float_default():
    ds.set_floatx("float64")  # the conftest fixture restores float32
    assert ds.constant(1.0).dtype == np.float64
    assert ds.constant(1).dtype == np.int32


def test_constant_and_convert_copy_numpy_input():
    a = np.array([1.0, 2.0])
    t1, t2 = ds.constant(a), ds.convert_to_tensor(a)
    a[0] = 100.0
    np.testing.assert_array_equal(t1.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(t2.numpy(), [1.0, 2.0])


def test_numpy_returns_a_copy():
    t = ds.constant(np.array([1.0, 2.0]))
    t.numpy()[0] = 100.0
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])


def test_convert_to_tensor_returns_the_same_tensor():
    t = ds.constant([1.0])
    assert ds.convert_to_tensor(t) is t
    assert ds.convert_to_tensor(t, dtype="float32") is t


def test_convert_to_tensor_refuses_to_recast_a_tensor():
    with pytest.raises(TypeError, match=r"float64.*float32|float32.*float64"):
        ds.convert_to_tensor(ds.constant([1.0]), dtype="float64")


def test_convert_to_tensor_of_a_variable_is_a_snapshot():
    v = ds.Variable(np.array([1.0, 2.0]), name="v")
    t = ds.convert_to_tensor(v)
    assert type(t) is ds.Tensor and t.dtype == np.float64
    v.assign(np.array([5.0, 6.0]))
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])


def test_convert_to_tensor_refuses_strings_for_a_numeric_dtype():
    with pytest.raises(TypeError, match="abc"):
        ds.convert_to_tensor("abc", dtype="float32")
    assert ds.convert_to_tensor("abc").dtype == ds.string  # a string tensor, as TF (tests/test_strings.py)


_SCALAR_OPS = {
    "x*2": (lambda x: x * 2, lambda a: a * 2),
    "2*x": (lambda x: 2 * x, lambda a: 2 * a),
    "x*2.5": (lambda x: x * 2.5, lambda a: a * 2.5),
    "x+1": (lambda x: x + 1, lambda a: a + 1),
    "1-x": (lambda x: 1 - x, lambda a: 1 - a),
    "x/2": (lambda x: x / 2, lambda a: a / 2),
    "x**2": (lambda x: x ** 2, lambda a: a ** 2),
    "maximum(x,0)": (lambda x: ds.maximum(x, 0), lambda a: np.maximum(a, 0)),
    "x*np.float32": (lambda x: ds.multiply(x, np.float32(2.0)), lambda a: a * 2),
}


@pytest.mark.parametrize("name", sorted(_SCALAR_OPS))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_python_and_numpy_scalars_take_the_tensor_dtype(name, dtype):
    ds_fn, np_fn = _SCALAR_OPS[name]
    a = np.array([1.5, -2.0], dtype)
    y = ds_fn(ds.constant(a))
    assert y.dtype == np.dtype(dtype)
    expected = np_fn(a)
    assert expected.dtype == np.dtype(dtype)  # NumPy 2 (NEP 50) keeps the array dtype too
    np.testing.assert_array_equal(y.numpy(), expected)


def test_scalar_arithmetic_values_with_float64():
    x = ds.constant(_f64(1.5, -2.0))
    np.testing.assert_array_equal((x * 2).numpy(), _f64(3.0, -4.0))
    np.testing.assert_array_equal((2 * x).numpy(), _f64(3.0, -4.0))
    np.testing.assert_array_equal((1 - x).numpy(), _f64(-0.5, 3.0))
    np.testing.assert_array_equal((x ** 2).numpy(), _f64(2.25, 4.0))


def test_mixed_float_dtypes_raise_type_error_naming_both():
    a = ds.constant(np.array([1.0], np.float32))
    b = ds.constant(np.array([1.0], np.float64))
    a2, b2 = ds.reshape(a, shape=(1, 1)), ds.reshape(b, shape=(1, 1))
    for f in (lambda: a + b, lambda: b * a, lambda: ds.matmul(a2, b2)):
        with pytest.raises(TypeError) as info:
            f()
        assert "float32" in str(info.value) and "float64" in str(info.value)


def test_int_tensor_plus_fractional_float_raises():
    with pytest.raises(TypeError, match="int32"):
        ds.constant([1, 2]) + 2.5


def test_integer_true_division_gives_float64():
    y = ds.constant([1, 3]) / ds.constant([2, 2])
    assert y.dtype == np.float64
    np.testing.assert_array_equal(y.numpy(), [0.5, 1.5])


# ---------------------------------------------------------------- operators
_A = np.array([[1.5, -2.0, 3.0], [-0.5, 4.0, -6.5]])
_B = np.array([[2.0, 3.0, -1.5], [0.25, -4.0, 2.5]])


@pytest.mark.parametrize("op", [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
    lambda a, b: a // b, lambda a, b: a % b, lambda a, b: abs(a) ** b,
], ids=["add", "sub", "mul", "truediv", "floordiv", "mod", "pow"])
def test_binary_operators_match_numpy(op):
    expected = op(_A, _B)
    for got in (op(ds.constant(_A), ds.constant(_B)), op(ds.constant(_A), _B), op(_A, ds.constant(_B))):
        assert isinstance(got, ds.Tensor)
        assert got.dtype == np.float64
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-15)


@pytest.mark.parametrize("op", [
    lambda a: a + 2.0, lambda a: 2.0 - a, lambda a: a * 3, lambda a: a / 4.0, lambda a: 3.0 / a,
    lambda a: a // 2.0, lambda a: a % 2.0, lambda a: 7.0 // a, lambda a: 7.0 % a, lambda a: abs(a) ** 2,
    lambda a: 2.0 ** a,
], ids=["x+2.0", "2.0-x", "x*3", "x/4.0", "3.0/x", "x//2.0", "x%2.0", "7.0//x", "7.0%x", "abs(x)**2", "2.0**x"])
def test_operators_with_python_scalars_match_numpy(op):
    got = op(ds.constant(_A))
    assert got.dtype == np.float64
    np.testing.assert_allclose(got.numpy(), op(_A), rtol=1e-15)


def test_integer_operators_match_python_floor_semantics():
    a = np.array([7, -7, 7, -7], np.int32)
    b = np.array([2, 2, -2, -2], np.int32)
    ta, tb = ds.constant(a), ds.constant(b)
    np.testing.assert_array_equal((ta // tb).numpy(), [3, -4, -4, 3])
    np.testing.assert_array_equal((ta % tb).numpy(), [1, 1, -1, -1])
    np.testing.assert_array_equal((ta // 2).numpy(), [3, -4, 3, -4])
    np.testing.assert_array_equal((ta % 2).numpy(), [1, 1, 1, 1])
    assert (ta // tb).dtype == np.int32 and (ta % 2).dtype == np.int32


def test_matmul_operator_and_unary_operators():
    a = np.array([[1.0, 2.0], [3.0, 4.0]])
    b = np.array([[0.5], [-1.0]])
    np.testing.assert_allclose((ds.constant(a) @ ds.constant(b)).numpy(), a @ b)
    np.testing.assert_allclose((a @ ds.constant(b)).numpy(), a @ b)
    np.testing.assert_array_equal((-ds.constant(a)).numpy(), -a)
    np.testing.assert_array_equal(abs(ds.constant(-a)).numpy(), a)
    t = ds.constant(a)
    assert (+t) is t


@pytest.mark.parametrize("op, np_op", [
    (lambda a, b: a < b, np.less), (lambda a, b: a <= b, np.less_equal), (lambda a, b: a > b, np.greater),
    (lambda a, b: a >= b, np.greater_equal), (lambda a, b: a == b, np.equal), (lambda a, b: a != b, np.not_equal),
], ids=["lt", "le", "gt", "ge", "eq", "ne"])
def test_comparisons_are_elementwise_and_boolean(op, np_op):
    a = np.array([1.0, 2.0, 3.0])
    b = np.array([2.0, 2.0, 2.0])
    got = op(ds.constant(a), ds.constant(b))
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got.numpy(), np_op(a, b))
    np.testing.assert_array_equal(op(ds.constant(a), 2.0).numpy(), np_op(a, 2.0))


def test_logical_operators():
    a = ds.constant([True, True, False])
    b = ds.constant([True, False, False])
    np.testing.assert_array_equal((a & b).numpy(), [True, False, False])
    np.testing.assert_array_equal((a | b).numpy(), [True, True, False])
    np.testing.assert_array_equal((~a).numpy(), [False, False, True])


def test_tensors_are_unhashable_but_have_refs():
    t = ds.constant([1.0])
    with pytest.raises(TypeError):
        hash(t)
    d = {t.ref(): 1}
    assert d[t.ref()] == 1 and t.ref().deref() is t
    assert ds.constant([1.0]).ref() != t.ref()


_M = np.arange(24, dtype=np.float64).reshape(4, 6) / 4.0


@pytest.mark.parametrize("key", [
    1, -1, (1, 2), (slice(1, 3),), (slice(None), slice(None, None, -1)), (slice(3, 0, -2), 2),
    (None, 0), (Ellipsis, 1), np.array([0, 2, 2]), [3, 0], (np.array([0, 1]), np.array([5, 4])),
    (slice(None), np.array([1, 1, 0])),
], ids=["int", "neg_int", "two_ints", "slice", "reversed", "neg_step_and_int", "none", "ellipsis",
        "int_array", "list", "two_int_arrays", "slice_and_int_array"])
def test_indexing_matches_numpy(key):
    got = ds.constant(_M)[key]
    assert isinstance(got, ds.Tensor)
    np.testing.assert_array_equal(got.numpy(), _M[key])


def test_indexing_with_an_integer_tensor_and_a_bool_mask():
    np.testing.assert_array_equal(ds.constant(_M)[ds.constant([3, 1])].numpy(), _M[[3, 1]])
    mask = np.array([True, False, True, False])
    np.testing.assert_array_equal(ds.constant(_M)[ds.constant(mask)].numpy(), _M[mask])


def test_indexing_returns_a_copy_not_a_view_of_a_variable():
    v = ds.Variable(_M.copy(), name="m")
    row = v[1]
    v.assign(np.zeros_like(_M))
    np.testing.assert_array_equal(row.numpy(), _M[1])


def test_len_iteration_and_python_scalars():
    t = ds.constant(_f64(1.5, -2.0, 3.0))
    assert len(t) == 3
    assert [float(x) for x in t] == [1.5, -2.0, 3.0]
    assert float(ds.constant(2.5)) == 2.5 and int(ds.constant(7)) == 7
    assert bool(ds.constant(True)) is True
    assert [0, 1, 2, 3][ds.constant(2)] == 2
    with pytest.raises(TypeError):
        len(ds.constant(1.0))
    with pytest.raises(TypeError):
        [0, 1][ds.constant(1.0)]


def test_shape_dtype_ndim_size():
    t = ds.constant(np.zeros((2, 3), np.float64))
    assert t.shape == (2, 3) and t.ndim == 2 and t.size == 6 and t.dtype == np.float64
    assert t.dtype == ds.float64 and t.dtype.name == "float64"


def test_array_protocol():
    t = ds.constant(_f64(1.0, 2.0, 3.5))
    assert np.sum(t) == 6.5
    a = np.asarray(t)
    assert a.dtype == np.float64
    np.testing.assert_array_equal(a, [1.0, 2.0, 3.5])
    assert np.asarray(t, dtype=np.float32).dtype == np.float32
    np.testing.assert_array_equal(np.array(ds.Variable(_f64(1.0, 2.0), name="a")), [1.0, 2.0])
    assert np.mean(ds.Variable(_f64(1.0, 2.0), name="b")) == 1.5


# ---------------------------------------------------------------- Variable
def test_variable_basics():
    v = ds.Variable(_f64(1.0, 2.0), name="w")
    assert v.name == "w:0" and v.shape == (2,) and v.dtype == np.float64 and v.trainable
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    assert ds.Variable([1.0, 2.0], name="f").dtype == np.float32
    assert ds.Variable(1, name="i").dtype == np.int32
    assert ds.Variable([1, 2], dtype="float64", name="cast").dtype == np.float64
    assert ds.Variable(lambda: np.ones((2, 2)), name="init").shape == (2, 2)
    assert not ds.Variable(1.0, trainable=False, name="nt").trainable


def test_variable_copies_its_initial_value():
    a = _f64(1.0, 2.0)
    v = ds.Variable(a, name="v")
    a[0] = 9.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    v.numpy()[1] = 9.0
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


def test_variable_needs_a_value():
    with pytest.raises(ValueError, match="None"):
        ds.Variable(None)


def test_assign_family():
    v = ds.Variable(_f64(1.0, 2.0, 3.0), name="v")
    ret = v.assign(_f64(4.0, 5.0, 6.0))
    assert ret is v
    np.testing.assert_array_equal(v.numpy(), [4.0, 5.0, 6.0])
    v.assign_add(_f64(0.5, 0.5, 1.0))
    np.testing.assert_array_equal(v.numpy(), [4.5, 5.5, 7.0])
    v.assign_sub(ds.constant(_f64(1.5, 0.5, 2.0)))
    np.testing.assert_array_equal(v.numpy(), [3.0, 5.0, 5.0])
    v.assign([1, 2, 3])  # Python values are converted to the variable's dtype
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    assert v.dtype == np.float64


def test_assign_keeps_the_same_buffer():
    v = ds.Variable(_f64(1.0, 2.0), name="v")
    buf = v._value
    v.assign(_f64(3.0, 4.0))
    v.assign_add(_f64(1.0, 1.0))
    assert v._value is buf


def test_scatter_add_sub_update():
    base = np.arange(8, dtype=np.float64).reshape(4, 2)
    v = ds.Variable(base.copy(), name="table")
    v.scatter_add(ds.IndexedSlices(ds.constant(_f64(1.0, 2.0, 10.0, 20.0, 100.0, 200.0).reshape(3, 2)),
                                   ds.constant([3, 0, 3]), (4, 2)))
    expected = base.copy()
    expected[3] += [1.0, 2.0]
    expected[0] += [10.0, 20.0]
    expected[3] += [100.0, 200.0]
    np.testing.assert_array_equal(v.numpy(), expected)

    v.scatter_sub(ds.IndexedSlices(ds.constant(_f64(1.0, 1.0, 2.0, 2.0).reshape(2, 2)), ds.constant([1, 1]), (4, 2)))
    expected[1] -= [3.0, 3.0]
    np.testing.assert_array_equal(v.numpy(), expected)

    v.scatter_update(ds.IndexedSlices(ds.constant(_f64(-1.0, -2.0).reshape(1, 2)), ds.constant([2]), (4, 2)))
    expected[2] = [-1.0, -2.0]
    np.testing.assert_array_equal(v.numpy(), expected)


def test_scatter_rejects_dense_values_and_wrong_row_shape():
    v = ds.Variable(np.zeros((3, 2)), name="v")
    with pytest.raises(TypeError, match="IndexedSlices"):
        v.scatter_add(ds.constant(np.ones((3, 2))))
    with pytest.raises(ValueError, match=r"\(1, 2\)"):
        v.scatter_add(ds.IndexedSlices(ds.constant(np.ones((1, 3))), ds.constant([0]), (3, 3)))
    np.testing.assert_array_equal(v.numpy(), np.zeros((3, 2)))


def test_read_value_is_a_snapshot():
    v = ds.Variable(_f64(1.0, 2.0), name="v")
    r1 = v.read_value()
    r2 = v.value()
    i = ds.identity(v)
    v.assign(_f64(7.0, 8.0))
    v.assign_add(_f64(1.0, 1.0))
    v.scatter_update(ds.IndexedSlices(ds.constant(_f64(0.0)), ds.constant([0]), (2,)))
    for r in (r1, r2, i):
        assert type(r) is ds.Tensor
        np.testing.assert_array_equal(r.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.read_value().numpy(), [0.0, 9.0])


def test_ops_on_variables_read_the_current_value():
    v = ds.Variable(_f64(1.0, 2.0), name="v")
    a = v * 2
    v.assign(_f64(10.0, 20.0))
    np.testing.assert_array_equal(a.numpy(), [2.0, 4.0])
    np.testing.assert_array_equal((v + 1).numpy(), [11.0, 21.0])
    np.testing.assert_array_equal(ds.reshape(v, shape=(2, 1)).numpy(), [[10.0], [20.0]])
    r = ds.reshape(v, shape=(2, 1))  # a view op on a variable must not alias it
    v.assign(_f64(0.0, 0.0))
    np.testing.assert_array_equal(r.numpy(), [[10.0], [20.0]])


def test_variable_operators():
    v = ds.Variable(_f64(1.0, -2.0), name="v")
    np.testing.assert_array_equal((v - ds.constant(_f64(1.0, 1.0))).numpy(), [0.0, -3.0])
    np.testing.assert_array_equal((-v).numpy(), [-1.0, 2.0])
    np.testing.assert_array_equal((v > 0).numpy(), [True, False])
    np.testing.assert_array_equal(v[1:].numpy(), [-2.0])


# ---------------------------------------------------------------- names
def test_name_scope_gives_scoped_unique_names():
    with ds.name_scope("dense"):
        k1 = ds.Variable([1.0], name="kernel")
        b1 = ds.Variable([1.0], name="bias")
    with ds.name_scope("dense"):
        k2 = ds.Variable([1.0], name="kernel")
    # TF 2's names (eager TF does not make them unique); the keys descend saves them under are unique
    assert (k1.name, b1.name, k2.name) == ("dense/kernel:0", "dense/bias:0", "dense/kernel:0")
    assert (k1.scoped_name, b1.scoped_name, k2.scoped_name) == ("dense/kernel", "dense/bias", "dense/kernel_1")
    assert k2.op.name == "dense/kernel_1"  # TF 1's graph name


def test_nested_name_scopes_and_default_names():
    with ds.name_scope("model"):
        with ds.name_scope("dense"):
            k = ds.Variable([1.0], name="kernel")
        outside = ds.Variable([1.0], name="kernel")
    assert k.name == "model/dense/kernel:0" and outside.name == "model/kernel:0"
    assert ds.Variable(1.0).scoped_name == "Variable" and ds.Variable(1.0).name == "Variable:0"
    assert ds.Variable(1.0).scoped_name == "Variable_2"
    assert ds.Variable(1.0, name="kernel").scoped_name == "kernel"


def test_clear_session_frees_names():
    assert ds.Variable(1.0, name="w").scoped_name == "w"
    assert ds.Variable(1.0, name="w").scoped_name == "w_1"
    ds.clear_session()
    assert ds.Variable(1.0, name="w").scoped_name == "w"


def test_name_scope_rejects_bad_names():
    with pytest.raises(ValueError, match="name"), ds.name_scope("bad name"):
        pass
    with pytest.raises(ValueError, match="name"):
        ds.Variable(1.0, name="bad name")


def test_name_scope_is_popped_after_an_exception():
    with pytest.raises(KeyError), ds.name_scope("broken"):
        raise KeyError("x")
    assert ds.Variable(1.0, name="v").scoped_name == "v"


# ---------------------------------------------------------------- IndexedSlices
def test_indexed_slices_construction():
    s = ds.IndexedSlices(ds.constant(np.ones((2, 3))), ds.constant([4, 1]), (5, 3))
    assert s.dense_shape == (5, 3) and s.shape == (5, 3) and s.dtype == np.float64
    np.testing.assert_array_equal(s.indices.numpy(), [4, 1])
    assert isinstance(s.values, ds.Tensor)
    s2 = ds.IndexedSlices(np.ones((2,)), np.array([0, 0]), [3])
    assert s2.dense_shape == (3,)


def test_indexed_slices_validation():
    with pytest.raises(TypeError, match="float"):
        ds.IndexedSlices(ds.constant(np.ones((2, 3))), ds.constant([0.0, 1.0]), (5, 3))
    with pytest.raises(ValueError, match=r"\(1, 2\)"):
        ds.IndexedSlices(ds.constant(np.ones((2, 3))), ds.constant([[0, 1]]), (5, 3))
    with pytest.raises(ValueError) as info:
        ds.IndexedSlices(ds.constant(np.ones((2, 4))), ds.constant([0, 1]), (5, 3))
    assert "(2, 3)" in str(info.value) and "(2, 4)" in str(info.value)


def test_convert_indexed_slices_to_dense_sums_repeats():
    vals = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    s = ds.IndexedSlices(ds.constant(vals), ds.constant([2, 0, 2]), (4, 2))
    dense = ds.convert_to_tensor(s)
    expected = np.zeros((4, 2))
    expected[2] = vals[0] + vals[2]
    expected[0] = vals[1]
    assert dense.dtype == np.float64
    np.testing.assert_array_equal(dense.numpy(), expected)


def test_deduplicate_sums_repeats_and_sorts():
    vals = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
    s = ds.IndexedSlices(ds.constant(vals), ds.constant([3, 1, 3, 0]), (5, 2))
    d = ds.deduplicate(s)
    np.testing.assert_array_equal(d.indices.numpy(), [0, 1, 3])
    np.testing.assert_array_equal(d.values.numpy(), [vals[3], vals[1], vals[0] + vals[2]])
    assert d.dense_shape == (5, 2)
    np.testing.assert_array_equal(ds.convert_to_tensor(d).numpy(), ds.convert_to_tensor(s).numpy())


def test_deduplicate_sorts_unique_unsorted_indices():
    vals = np.array([10.0, 20.0, 30.0])
    d = ds.deduplicate(ds.IndexedSlices(ds.constant(vals), ds.constant([2, 0, 1]), (3,)))
    np.testing.assert_array_equal(d.indices.numpy(), [0, 1, 2])
    np.testing.assert_array_equal(d.values.numpy(), [20.0, 30.0, 10.0])


def test_deduplicate_of_sorted_unique_keeps_values():
    s = ds.IndexedSlices(ds.constant(_f64(1.0, 2.0)), ds.constant([0, 4]), (5,))
    d = ds.deduplicate(s)
    np.testing.assert_array_equal(d.indices.numpy(), [0, 4])
    np.testing.assert_array_equal(d.values.numpy(), [1.0, 2.0])


def test_deduplicate_rejects_dense():
    with pytest.raises(TypeError, match="IndexedSlices"):
        ds.deduplicate(ds.constant([1.0]))


# ---------------------------------------------------------------- integer reductions, iteration
def test_integer_reduce_mean_of_positive_values_truncates():
    assert int(ds.reduce_mean(ds.constant([1, 2]))) == 1
    assert ds.reduce_mean(ds.constant([1, 2])).dtype == np.int32
    np.testing.assert_array_equal(ds.reduce_mean(ds.constant([[1, 2, 4], [3, 3, 4]]), axis=1).numpy(), [2, 3])


def test_integer_reduce_mean_of_negative_values_truncates_toward_zero():
    assert int(ds.reduce_mean(ds.constant([-1, -2]))) == -1  # -1.5 truncated, as tf.reduce_mean


def test_variable_is_iterable_like_a_tensor():
    v = ds.Variable(_f64(1.0, 2.0), name="v")
    assert [float(x) for x in v] == [1.0, 2.0]


def _write_through(arr):
    try:
        arr[0] = 99.0
    except ValueError:  # a read-only array is fine too
        pass


def test_numpy_conversion_cannot_change_a_tensor():
    t = ds.constant(_f64(1.0, 2.0))
    _write_through(np.asarray(t))
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])


def test_numpy_conversion_cannot_change_a_variable_behind_the_tapes_back():
    v = ds.Variable(_f64(1.0, 2.0), name="v")
    _write_through(np.asarray(v))
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])


# ---------------------------------------------------------------- TF/Keras Variable spellings (issue 17 part 5)
def test_variable_value_is_a_snapshot_tensor():
    v = ds.Variable([1.0, 2.0])
    t = v.value()
    assert type(t) is ds.Tensor
    v.assign([5.0, 6.0])
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(v.value().numpy(), [5.0, 6.0])


def test_variable_value_is_recorded_by_a_tape():
    v = ds.Variable(3.0)
    with ds.GradientTape() as tape:
        y = v.value() * v.value()
    assert float(tape.gradient(y, v)) == 6.0


def test_get_shape_of_variable_and_tensor():
    assert ds.Variable(np.zeros((2, 3))).get_shape() == (2, 3)
    assert ds.constant([1.0, 2.0]).get_shape() == (2,)


def test_initializer_is_none_as_in_tf2_eager():
    v = ds.Variable([1.0])
    assert v.initializer is None


def test_constraint_is_settable():
    v = ds.Variable([-1.0, 2.0])
    assert v.constraint is None
    v.constraint = ds.constraints.NonNeg() if hasattr(ds, "constraints") else (lambda x: x)
    assert callable(v.constraint)
    v.constraint = None
    assert v.constraint is None
    with pytest.raises(TypeError, match="must be callable or None. Received: 3"):
        v.constraint = 3
    assert v.constraint is None  # a refused value changes nothing


# ---------------------------------------------------------------- printing, as TF prints
_PRINTED = [
    lambda lib: lib.constant(1.0),
    lambda lib: lib.constant(0.1),
    lambda lib: lib.constant(np.float64(0.1)),
    lambda lib: lib.constant(3),
    lambda lib: lib.constant(True),
    lambda lib: lib.constant(123456789.0),
    lambda lib: lib.constant([0.1, 0.2]),
    lambda lib: lib.constant(np.arange(12.0).reshape(3, 4)),
    lambda lib: lib.constant(np.zeros((0, 3))),
    lambda lib: lib.constant(np.arange(2000.0)),
    lambda lib: lib.Variable(0.1, name="w"),
    lambda lib: lib.Variable(np.zeros((2, 2)), name="kernel"),
]


@pytest.mark.parametrize("make", _PRINTED)
def test_repr_and_str_as_tensorflow(make):
    """TF's layout exactly; the type is named descend's (``descend.Tensor``), a Variable by TF's name."""
    tf = pytest.importorskip("tensorflow")
    ours, theirs = make(ds), make(tf)
    theirs_repr = repr(theirs).replace("<tf.", "<descend.")
    theirs_str = str(theirs).replace("tf.Tensor(", "descend.Tensor(").replace("<tf.", "<descend.")
    assert repr(ours) == theirs_repr
    assert str(ours) == theirs_str
    assert f"{ours}" == f"{theirs}".replace("<tf.", "<descend.")


def test_repr_and_str_by_hand():
    assert repr(ds.constant(1.0)) == "<descend.Tensor: shape=(), dtype=float32, numpy=1.0>"
    assert str(ds.constant(1.0)) == "descend.Tensor(1.0, shape=(), dtype=float32)"
    assert str(ds.constant([[1.0, 2.0]])) == "descend.Tensor([[1. 2.]], shape=(1, 2), dtype=float32)"
    assert repr(ds.Variable([1.0, 2.0], name="v")) == (
        "<descend.Variable 'v:0' shape=(2,) dtype=float32, numpy=array([1., 2.], dtype=float32)>")
    assert f"{ds.constant(0.5)} {ds.constant(0.123456):.3f}" == "0.5 0.123"


def test_tensors_and_variables_name_their_device_as_tf():
    """``x.device`` (the customization basics tutorial: ``x.device.endswith('GPU:0')``): always the host's CPU."""
    with ds.device("CPU:0"):
        made = [ds.constant([1.0]), ds.Variable([1.0]), ds.zeros([2]) + 1.0]
    for x in made:
        assert x.device == "/job:localhost/replica:0/task:0/device:CPU:0"
        assert not x.device.endswith("GPU:0")
