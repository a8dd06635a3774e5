"""The conventions of the ops added for issue 37 at the points a central difference cannot check: the
guards of ``divide_no_nan``/``xlogy``/..., ties, empty segments, orderings, dtype errors (TensorFlow's
choices, written down from its documentation)."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _grads(fn, *args):
    xs = [ds.constant(np.asarray(a, np.float64)) for a in args]
    with ds.GradientTape() as tape:
        tape.watch(xs)
        y = ds.reduce_sum(fn(*xs))
    return y.numpy(), [g.numpy() for g in tape.gradient(y, xs)]


@pytest.mark.parametrize("fn,args,value,grads", [
    # y == 0: the value and both gradients are 0
    (ds.divide_no_nan, ([3.0, 2.0], [0.0, 4.0]), 0.5, ([0.0, 0.25], [0.0, -0.125])),
    # x == 0: 0 even where log(y) is -inf; d/dx is 0 there as well
    (ds.xlogy, ([0.0, 2.0], [0.0, np.e]), 2.0, ([0.0, 1.0], [0.0, 2.0 / np.e])),
    (ds.xdivy, ([0.0, 2.0], [0.0, 4.0]), 0.5, ([0.0, 0.25], [0.0, -0.125])),
    (ds.xlog1py, ([0.0, 1.0], [-1.0, 0.0]), 0.0, ([0.0, 0.0], [0.0, 1.0])),
    # y == 0: 0 even where x is inf
    (ds.multiply_no_nan, ([np.inf, 2.0], [0.0, 3.0]), 6.0, ([0.0, 3.0], [np.inf, 2.0])),
])
def test_guarded_ops_are_zero_with_a_zero_gradient_where_the_guard_holds(fn, args, value, grads):
    got, (gx, gy) = _grads(fn, *args)
    assert got == pytest.approx(value)
    np.testing.assert_allclose(gx, grads[0])
    np.testing.assert_allclose(gy, grads[1])


def test_reciprocal_no_nan_is_zero_at_zero():
    np.testing.assert_array_equal(ds.reciprocal_no_nan(ds.constant([0.0, 4.0])).numpy(), [0.0, 0.25])


@pytest.mark.parametrize("name", ["tan", "acos", "asin", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "erfc",
                                  "cbrt"])
def test_float_functions_refuse_integer_tensors_naming_the_op(name):
    with pytest.raises(TypeError, match=f"{name}: `x` must be a floating tensor"):
        getattr(ds, name)(ds.constant([1, 2]))


def test_out_of_domain_inputs_give_nan_and_inf_as_tensorflow():
    assert np.isnan(ds.acos(ds.constant([2.0])).numpy()).all()
    assert np.isnan(ds.acosh(ds.constant([0.5])).numpy()).all()
    np.testing.assert_array_equal(ds.atanh(ds.constant([1.0, -1.0])).numpy(), [np.inf, -np.inf])


def test_segment_max_shares_the_gradient_between_ties_and_fills_empty_segments():
    x = ds.constant([1.0, 3.0, 3.0, 2.0])
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.unsorted_segment_max(x, [0, 0, 0, 2], num_segments=3)
    g = tape.gradient(y, x, output_gradients=ds.constant([1.0, 1.0, 1.0]))
    assert y.numpy()[1] == np.finfo(np.float32).min
    np.testing.assert_array_equal(g.numpy(), [0.0, 0.5, 0.5, 1.0])
    np.testing.assert_array_equal(ds.segment_max(x, [0, 0, 2, 2]).numpy(), [3.0, 0.0, 3.0])


def test_sort_and_top_k_keep_the_order_of_ties():
    x = ds.constant([[2.0, 5.0, 2.0, 5.0]])
    values, indices = ds.top_k(x, 3)
    np.testing.assert_array_equal(indices.numpy(), [[1, 3, 0]])
    np.testing.assert_array_equal(values.numpy(), [[5.0, 5.0, 2.0]])
    np.testing.assert_array_equal(ds.argsort(x, direction="DESCENDING").numpy(), [[1, 3, 0, 2]])
    np.testing.assert_array_equal(ds.argsort(x).numpy(), [[0, 2, 1, 3]])
    with pytest.raises(ds.InvalidArgumentError, match="top_k: `k` must be an integer in \\[0, 4\\]"):
        ds.top_k(x, 5)


def test_in_top_k_counts_a_tie_at_the_kth_value_as_in():
    p = ds.constant([[0.1, 0.5, 0.5, 0.2], [0.4, 0.3, 0.2, 0.1]])
    np.testing.assert_array_equal(ds.in_top_k([2, 1], p, 1).numpy(), [True, False])


def test_unique_keeps_the_order_of_first_appearance():
    y, idx, counts = ds.unique_with_counts(ds.constant([4, 1, 4, 7, 1, 4]))
    assert y.numpy().tolist() == [4, 1, 7] and idx.numpy().tolist() == [0, 1, 0, 2, 1, 0]
    assert counts.numpy().tolist() == [3, 2, 1]


def test_tensor_scatter_nd_update_refuses_repeated_indices():
    with pytest.raises(ds.InvalidArgumentError, match="repeat an index"):
        ds.tensor_scatter_nd_update(ds.zeros((3,)), [[1], [1]], [1.0, 2.0])


def test_saturate_cast_clamps_to_the_target_range():
    np.testing.assert_array_equal(ds.saturate_cast(ds.constant([300.0, -5.0, 7.6]), "uint8").numpy(), [255, 0, 7])
    assert ds.saturate_cast(ds.constant([1e300], "float64"), "float32").numpy()[0] == np.finfo(np.float32).max


def test_ensure_shape_says_what_was_expected():
    assert ds.ensure_shape(ds.zeros((2, 3)), (None, 3)).shape == (2, 3)
    with pytest.raises(ds.InvalidArgumentError, match=r"\[2, 3\] is not compatible with expected shape \[2, 4\]"):
        ds.ensure_shape(ds.zeros((2, 3)), (2, 4))


def test_higher_order_functions_follow_tensorflow():
    x = ds.constant([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(ds.scan(lambda a, e: a + e, x, reverse=True).numpy(), [6.0, 5.0, 3.0])
    np.testing.assert_array_equal(ds.scan(lambda a, e: a * e, x, initializer=ds.constant(2.0)).numpy(),
                                  [2.0, 4.0, 12.0])
    assert float(ds.foldl(lambda a, e: a - e, x)) == -4.0 and float(ds.foldr(lambda a, e: a - e, x)) == 0.0
    pair = ds.map_fn(lambda t: (t[0] + t[1], t[0] * t[1]), (x, x))
    np.testing.assert_array_equal(pair[1].numpy(), [1.0, 4.0, 9.0])
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.reduce_sum(ds.map_fn(lambda e: e * e, x))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 4.0, 6.0])


def test_switch_case_and_case_pick_their_branch():
    branches = [lambda: "a", lambda: "b"]
    assert ds.switch_case(ds.constant(0), branches) == "a" and ds.switch_case(7, branches) == "b"
    assert ds.switch_case(7, branches, default=lambda: "d") == "d"
    assert ds.case([(ds.constant(False), lambda: 1), (ds.constant(True), lambda: 2)], default=lambda: 3) == 2
    with pytest.raises(ds.InvalidArgumentError, match="exclusive=True but 2 predicates"):
        ds.case([(True, lambda: 1), (True, lambda: 2)], exclusive=True)


def test_assertions_name_what_was_expected():
    ds.assert_less(ds.constant([1, 2]), 3)
    with pytest.raises(ds.InvalidArgumentError, match=r"x > y did not hold. x = \[1, 5\]"):
        ds.assert_greater(ds.constant([1, 5]), 2)
    with pytest.raises(ValueError, match="must have rank 2. Received rank 1"):
        ds.assert_rank(ds.constant([1.0]), 2)
    with pytest.raises(ds.InvalidArgumentError, match="assertion failed"):
        ds.Assert(ds.constant(False), ["x is", ds.constant([1.0])])


_TOP_LEVEL = [  # tf's top-level functions added for issue 37, compared with TensorFlow's
    ("reverse_sequence", lambda m, x: m.reverse_sequence(x, np.array([2, 3]), seq_axis=1)),
    ("unravel_index", lambda m, x: m.unravel_index(np.array([5, 7]), np.array([3, 4]))),
    ("strided_slice", lambda m, x: m.strided_slice(x, [0, 1], [2, 4], [1, 2])),
    ("histogram_fixed_width", lambda m, x: m.histogram_fixed_width(x, np.array([-1.0, 1.0], np.float32), 4)),
    ("histogram_fixed_width_bins", lambda m, x: m.histogram_fixed_width_bins(x, np.array([-1.0, 1.0], np.float32), 4)),
    ("dynamic_partition", lambda m, x: m.dynamic_partition(x, np.array([1, 0]), 2)[1]),
    # distinct indices: with a repeated index TF's gradient also reaches the overwritten entry
    ("dynamic_stitch", lambda m, x: m.dynamic_stitch([np.array([0, 2]), np.array([1, 3])], [x[0, :2], x[1, :2]])),
    ("repeat", lambda m, x: m.repeat(x, 2, axis=1)),
    ("boolean_mask", lambda m, x: m.boolean_mask(x, np.array([True, False]))),
    ("roll", lambda m, x: m.roll(x, [1, -1], [0, 1])),
    ("reverse", lambda m, x: m.reverse(x, [1])),
    ("sort", lambda m, x: m.sort(x, axis=1, direction="DESCENDING")),
    ("tensor_scatter_nd_add", lambda m, x: m.tensor_scatter_nd_add(x, np.array([[0, 1], [1, 1]]), x[:, 0, :])),
    ("searchsorted", lambda m, x: m.searchsorted(np.array([[-1.0, 0.0, 1.0]] * 2, np.float32), x[:, :, 0])),
    ("grad_pass_through", lambda m, x: m.grad_pass_through(m.round)(x * 3.0)),
    ("py_function", lambda m, x: m.py_function(lambda a: a * a, [x], x.dtype)),
]


@pytest.mark.parametrize("name,call", _TOP_LEVEL, ids=[n for n, _ in _TOP_LEVEL])
def test_top_level_functions_match_tensorflow(name, call):
    tf = pytest.importorskip("tensorflow")
    x = np.random.default_rng(3).standard_normal((2, 4, 3)).astype(np.float32)
    tx, dx = tf.constant(x), ds.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(tx)
        want = call(tf, tx)
        loss = tf.reduce_sum(tf.cast(want, tf.float32)) if want.dtype.is_floating else None
    with ds.GradientTape() as dtape:
        dtape.watch(dx)
        got = call(ds, dx)
        dloss = ds.reduce_sum(got) if got.dtype.kind == "f" else None
    np.testing.assert_allclose(np.asarray(got.numpy()), np.asarray(want), rtol=1e-6, atol=1e-6)
    if loss is not None:
        g, w = dtape.gradient(dloss, dx), tape.gradient(loss, tx)
        w = np.zeros_like(x) if w is None else np.asarray(tf.convert_to_tensor(w))
        np.testing.assert_allclose(ds.convert_to_tensor(g).numpy(), w, rtol=1e-6, atol=1e-6)


def test_approx_min_k_is_the_exact_k_smallest():
    x = ds.constant([[0.3, -1.0, 2.0, 0.1]])
    values, indices = ds.math.approx_min_k(x, 2)
    assert values.numpy().tolist() == [[-1.0, 0.10000000149011612]] and indices.numpy().tolist() == [[1, 3]]
