"""Bad inputs give clear errors that say what was expected and what was received."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend.framework.op import Op

_M23 = np.arange(6, dtype=np.float64).reshape(2, 3)


def _msg(excinfo) -> str:
    return str(excinfo.value)


# ---------------------------------------------------------------- shapes
@pytest.mark.parametrize("op", [
    lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b,
    ds.add, ds.maximum, ds.squared_difference, ds.pow,
], ids=["+", "-", "*", "/", "add", "maximum", "squared_difference", "pow"])
def test_binary_shape_mismatch_names_both_shapes(op):
    with pytest.raises(ValueError) as info:
        op(ds.constant(_M23), ds.constant(np.ones(4)))
    assert isinstance(info.value, ds.InvalidArgumentError)
    assert "(2, 3)" in _msg(info) and "(4,)" in _msg(info)


def test_shape_mismatch_with_a_variable_names_both_shapes():
    v = ds.Variable(np.ones((3, 2)), name="w")
    with pytest.raises(ds.InvalidArgumentError) as info:
        v + ds.constant(_M23)
    assert "(3, 2)" in _msg(info) and "(2, 3)" in _msg(info)


def test_matmul_inner_dimension_mismatch():
    with pytest.raises(ds.InvalidArgumentError) as info:
        ds.matmul(ds.constant(_M23), ds.constant(np.ones((4, 5))))
    assert "(2, 3)" in _msg(info) and "(4, 5)" in _msg(info)
    with pytest.raises(ds.InvalidArgumentError) as info:
        ds.constant(_M23) @ ds.constant(_M23)
    assert "(2, 3)" in _msg(info)


def test_matmul_needs_rank_2():
    with pytest.raises(ds.InvalidArgumentError, match=r"rank") as info:
        ds.matmul(ds.constant(np.ones(3)), ds.constant(_M23))
    assert "(3,)" in _msg(info)


@pytest.mark.parametrize("call, expected_parts", [
    (lambda m: ds.reshape(m, shape=(4, 2)), ["(2, 3)", "(4, 2)"]),
    (lambda m: ds.concat([m, ds.constant(np.ones((2, 2)))], axis=0), ["(2, 3)", "(2, 2)"]),
    (lambda m: ds.stack([m, ds.constant(np.ones((2, 2)))]), ["(2, 3)", "(2, 2)"]),
    (lambda m: ds.add_n([m, ds.constant(np.ones((3, 2)))]), ["(2, 3)", "(3, 2)"]),
    (lambda m: ds.broadcast_to(m, shape=(3, 3)), ["(2, 3)", "(3, 3)"]),
    (lambda m: ds.transpose(m, perm=[0, 0]), ["(0, 0)"]),
    (lambda m: ds.split(m, [1, 1], axis=1), ["[1, 1]", "3"]),
    (lambda m: ds.split(m, 2, axis=1), ["3", "2"]),
    (lambda m: ds.tile(m, [2]), ["1", "2"]),
    (lambda m: ds.squeeze(m, axis=0), ["(2, 3)"]),
    (lambda m: ds.expand_dims(m, axis=5), ["5"]),
    (lambda m: ds.reduce_sum(m, axis=2), ["axis 2", "rank 2"]),
    (lambda m: ds.pad(m, [[1, 1]]), ["(2, 2)", "[[1, 1]]"]),
    (lambda m: ds.unsorted_segment_sum(m, [0, 1, 1], num_segments=2), ["(3,)", "(2, 3)"]),
], ids=["reshape", "concat", "stack", "add_n", "broadcast_to", "transpose", "split_sizes", "split_num", "tile",
        "squeeze", "expand_dims", "reduce_axis", "pad_paddings", "segment_ids_shape"])
def test_shape_errors_say_expected_and_received(call, expected_parts):
    with pytest.raises(ds.InvalidArgumentError) as info:
        call(ds.constant(_M23))
    for part in expected_parts:
        assert part in _msg(info), f"{part!r} not in {_msg(info)!r}"


def test_bad_mode_and_ord_name_the_received_value():
    with pytest.raises(ValueError, match="WRAP"):
        ds.pad(ds.constant(_M23), [[0, 0], [1, 1]], mode="WRAP")
    with pytest.raises(ValueError, match="3"):
        ds.norm(ds.constant(_M23), ord=3)
    with pytest.raises(ValueError, match=r"\.\.\."):
        ds.einsum("...i...->i", ds.constant(_M23))  # one ellipsis per operand
    with pytest.raises(ds.InvalidArgumentError, match="clip_value_min"):
        ds.clip_by_value(ds.constant(_M23), 2.0, 1.0)


# ---------------------------------------------------------------- dtypes
def test_mixed_dtypes_name_both():
    with pytest.raises(TypeError) as info:
        ds.constant(np.ones(2, np.float32)) + ds.constant(np.ones(2, np.float64))
    assert "float32" in _msg(info) and "float64" in _msg(info)
    with pytest.raises(TypeError) as info:
        ds.constant(np.ones(2, np.float64)) * ds.constant([1, 2])
    assert "float64" in _msg(info) and "int32" in _msg(info)


def test_where_condition_must_be_bool():
    with pytest.raises(TypeError, match="float64"):
        ds.where(ds.constant(_M23), ds.constant(_M23), ds.constant(_M23))


def test_float_indices_are_rejected():
    with pytest.raises(TypeError, match="float"):
        ds.gather(ds.constant(_M23), [0.0])
    with pytest.raises(TypeError, match="float"):
        ds.constant(_M23)[np.array([0.0])]


def test_not_a_dtype():
    with pytest.raises(TypeError, match="notadtype"):
        ds.cast(ds.constant(_M23), dtype="notadtype")


# ---------------------------------------------------------------- gradient sources and tape use
def test_integer_variable_source_has_no_gradient_as_in_tensorflow():
    # TF 2.21: an int Variable is never watched; its gradient is None, with the source-dtype warning
    v = ds.Variable([1, 2], name="counts")
    with ds.GradientTape() as tape:
        y = v * 2
    with pytest.warns(UserWarning, match="int32"):
        assert tape.gradient(y, [v]) == [None]


def test_non_tensor_source_is_rejected():
    x = ds.constant(np.ones(2))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(TypeError, match="float"):
        tape.gradient(y, [x, 1.0])


def test_gradient_on_a_finished_non_persistent_tape():
    x = ds.constant(np.ones(2))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    with pytest.raises(RuntimeError) as info:
        tape.gradient(y, x)
    assert "persistent" in _msg(info)
    with pytest.raises(RuntimeError, match="persistent"), tape:
        pass


def test_output_gradients_count_and_shape():
    x = ds.constant(np.ones(2))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(ValueError, match="2 entries"):
        tape.gradient(y, x, output_gradients=[x, x])
    with pytest.raises(ValueError) as info:
        tape.gradient(y, x, output_gradients=np.ones(3))
    assert "(2,)" in _msg(info) and "(3,)" in _msg(info)


def test_op_without_a_vjp_raises_no_gradient_error_naming_it():
    op = Op(lambda x: np.cumprod(x), name="test_cumprod_without_vjp", register=False)
    x = ds.constant(np.array([1.0, 2.0]))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = op(x * 2.0)
    with pytest.raises(ds.NoGradientError, match="test_cumprod_without_vjp"):
        tape.gradient(y, x)


def test_op_with_a_missing_per_input_vjp_names_the_input():
    op = Op(lambda x, y: x * y, name="test_half_vjp", register=False)
    op.defvjp(lambda g, ans, x, y: g * y, None)
    x = ds.constant(np.array([1.0, 2.0]))
    y = ds.constant(np.array([3.0, 4.0]))
    with ds.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        z = op(x, y)
    np.testing.assert_array_equal(tape.gradient(z, x).numpy(), [3.0, 4.0])
    with pytest.raises(ds.NoGradientError) as info:
        tape.gradient(z, y)
    assert "test_half_vjp" in _msg(info) and "input 1" in _msg(info)


def test_custom_gradient_returning_the_wrong_number_of_gradients():
    @ds.custom_gradient
    def f(a):
        return a * 2.0, lambda g: (g, g)

    x = ds.constant(np.ones(2))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = f(x)
    with pytest.raises(ValueError) as info:
        tape.gradient(y, x)
    assert "2 gradients" in _msg(info) and "1 input" in _msg(info)


# ---------------------------------------------------------------- out-of-range indices
def test_gather_out_of_range_names_the_index():
    with pytest.raises(ds.InvalidArgumentError) as info:
        ds.gather(ds.constant(_M23), [0, 1, 7])
    assert "7" in _msg(info) and "[0, 2)" in _msg(info)
    with pytest.raises(ds.InvalidArgumentError) as info:
        ds.gather(ds.constant(_M23), [-1])
    assert "-1" in _msg(info)
    with pytest.raises(ds.InvalidArgumentError) as info:
        ds.gather(ds.constant(_M23), [[0, 3]], axis=1)
    assert "3" in _msg(info) and "[0, 3)" in _msg(info)


def test_gather_out_of_range_on_a_variable():
    v = ds.Variable(_M23, name="table")
    with ds.GradientTape(), pytest.raises(ds.InvalidArgumentError, match="5"):
        ds.gather(v, [5])


@pytest.mark.parametrize("call, bad", [
    (lambda m: ds.gather_nd(m, [[0, 3]]), "3"),
    (lambda m: ds.gather_nd(m, [[2, 0]]), "2"),
    (lambda m: ds.unsorted_segment_sum(m, [0, 4], num_segments=2), "4"),
    (lambda m: ds.scatter_nd([[5]], m[:1], shape=(2, 3)), "5"),
    (lambda m: m[5], "5"),
    (lambda m: m[:, np.array([0, 9])], "9"),
], ids=["gather_nd_axis1", "gather_nd_axis0", "unsorted_segment_sum", "scatter_nd", "getitem_int", "getitem_array"])
def test_index_errors_name_the_index(call, bad):
    with pytest.raises(ds.InvalidArgumentError) as info:
        call(ds.constant(_M23))
    assert bad in _msg(info)


# ---------------------------------------------------------------- division by zero
@pytest.mark.parametrize("op", [
    lambda a, b: a // b, lambda a, b: a % b, ds.floordiv, ds.mod,
], ids=["//", "%", "floordiv", "mod"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_division_by_zero(op, dtype):
    x = ds.constant(np.array([7, -3], dtype))
    with pytest.raises(ds.InvalidArgumentError, match="zero"):
        op(x, ds.constant(np.array([2, 0], dtype)))
    with pytest.raises(ds.InvalidArgumentError, match="zero"):
        op(x, 0)
    with pytest.raises(ds.InvalidArgumentError, match="zero"):
        op(7, ds.constant(np.array([0, 1], dtype)))


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_integer_true_division_by_zero_gives_inf_as_tf(dtype):
    # tf.math.truediv casts integers to float64 first, so 7 / 0 is inf, not an error
    out = ds.constant(np.array([7, -3], dtype)) / ds.constant(np.array([0, 0], dtype))
    assert out.dtype == ds.float64
    np.testing.assert_array_equal(out.numpy(), [np.inf, -np.inf])


# ---------------------------------------------------------------- Variable updates are all-or-nothing
def test_assign_wrong_shape_leaves_the_variable_unchanged():
    v = ds.Variable(np.array([1.0, 2.0, 3.0]), name="w")
    for f in (lambda: v.assign([1.0, 2.0]), lambda: v.assign(5.0), lambda: v.assign_add(np.ones((3, 1))),
              lambda: v.assign_sub(ds.constant(np.ones(4)))):
        with pytest.raises(ValueError) as info:
            f()
        assert "'w'" in _msg(info) and "(3,)" in _msg(info)
        np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    with pytest.raises(ValueError) as info:
        v.assign([1.0, 2.0])
    assert "(2,)" in _msg(info)


def test_assign_wrong_dtype_leaves_the_variable_unchanged():
    v = ds.Variable(np.array([1.0, 2.0, 3.0]), name="w")
    for bad in (ds.constant(np.ones(3, np.float32)), ds.constant([1, 2, 3])):
        for method in (v.assign, v.assign_add, v.assign_sub):
            with pytest.raises(TypeError) as info:
                method(bad)
            assert "'w'" in _msg(info) and "float64" in _msg(info) and bad.dtype.name in _msg(info)
            np.testing.assert_array_equal(v.numpy(), [1.0, 2.0, 3.0])
    assert v.dtype == np.float64


def test_assign_fractional_python_value_to_an_integer_variable():
    v = ds.Variable([1, 2], name="counts")
    with pytest.raises(TypeError, match="2.5"):
        v.assign([1, 2.5])
    np.testing.assert_array_equal(v.numpy(), [1, 2])


@pytest.mark.parametrize("method", ["scatter_add", "scatter_sub", "scatter_update"])
@pytest.mark.parametrize("indices, bad", [([0, 4], "4"), ([-1, 1], "-1")], ids=["too_large", "negative"])
def test_scatter_with_out_of_range_indices_leaves_the_variable_unchanged(method, indices, bad):
    base = np.arange(6, dtype=np.float64).reshape(3, 2)
    v = ds.Variable(base.copy(), name="table")
    delta = ds.IndexedSlices(ds.constant(np.ones((2, 2))), ds.constant(indices), (3, 2))
    with pytest.raises(ds.InvalidArgumentError) as info:
        getattr(v, method)(delta)
    assert "'table'" in _msg(info) and bad in _msg(info) and "[0, 3)" in _msg(info)
    np.testing.assert_array_equal(v.numpy(), base)


def test_scatter_wrong_dtype_leaves_the_variable_unchanged():
    v = ds.Variable(np.zeros(3), name="table")
    with pytest.raises(TypeError) as info:
        v.scatter_add(ds.IndexedSlices(ds.constant(np.ones(2, np.float32)), ds.constant([0, 1]), (3,)))
    assert "float64" in _msg(info) and "float32" in _msg(info)
    np.testing.assert_array_equal(v.numpy(), np.zeros(3))


def test_bad_variable_arguments():
    with pytest.raises(ValueError, match="a b"):
        ds.Variable(1.0, name="a b")
    with pytest.raises(TypeError, match="callable"):
        ds.Variable(1.0, constraint=3)
