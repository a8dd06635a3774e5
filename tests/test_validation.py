"""The shared checks (framework/validation.py) and the ops-to-framework bridge."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend.errors import InvalidArgumentError
from descend.framework import ops_bridge
from descend.framework.validation import check_axis, check_index_range, check_number, format_range


# ---------------------------------------------------------------- check_index_range
def test_index_range_accepts_in_range_and_empty():
    check_index_range(np.array([0, 4, 2]), 5, "gather")
    check_index_range(np.zeros((0,), np.int64), 0, "gather")


@pytest.mark.parametrize("indices, message", [
    (np.array([0, 5, 1]), r"^gather: indices\[1\] = 5 is not in \[0, 5\)$"),
    (np.array([[0, 1], [-1, 2]]), r"^gather: indices\[1, 0\] = -1 is not in \[0, 5\)$"),
    (np.array(7), r"^gather: indices = 7 is not in \[0, 5\)$"),
])
def test_index_range_names_the_first_bad_position(indices, message):
    with pytest.raises(InvalidArgumentError, match=message):
        check_index_range(indices, 5, "gather")


def test_index_range_name_and_hint():
    with pytest.raises(InvalidArgumentError, match=r"^lookup: ids\[0\] = 9 is not in \[0, 3\) \(3 rows\)$"):
        check_index_range([9], 3, "lookup", name="ids", hint="3 rows")


@pytest.mark.parametrize("call, message", [
    (lambda: ds.gather(ds.constant([1.0, 2.0]), [0, 2]), r"gather: indices\[1\] = 2 is not in \[0, 2\)"),
    (lambda: ds.unsorted_segment_sum(ds.constant([1.0]), [3], num_segments=2),
     r"unsorted_segment_sum: segment_ids\[0\] = 3 is not in \[0, 2\)"),
    (lambda: ds.nn.embedding_lookup(ds.constant([[1.0], [2.0]]), [[0, 5]]),
     r"embedding_lookup: ids\[0, 1\] = 5 is not in \[0, 2\) \(the table has 2 rows\)"),
    (lambda: ds.Variable([1.0, 2.0], name="v").scatter_add(ds.IndexedSlices(ds.constant([1.0]), [4], (2,))),
     r"scatter_add to variable 'v': indices\[0\] = 4 is not in \[0, 2\)"),
])
def test_ops_and_variables_use_the_one_index_check(call, message):
    with pytest.raises(InvalidArgumentError, match=message):
        call()


# ---------------------------------------------------------------- check_axis
def test_axis_normalizes_negative_axes():
    assert check_axis(-1, 3, "op") == 2
    assert check_axis(np.int64(1), 3, "op") == 1
    assert check_axis(ds.constant(-3), 3, "op") == 0
    assert check_axis(-3, 2, "expand_dims", extra=1) == 0
    assert check_axis(0, 0, "reduce_sum") == 0


@pytest.mark.parametrize("axis, ndim, kwargs, error, message", [
    (3, 3, {"what": "op"}, InvalidArgumentError, r"^op: axis 3 is out of range for a tensor of rank 3$"),
    (-4, 3, {"what": "op"}, InvalidArgumentError, r"^op: axis -4 is out of range"),
    (-1, 0, {"what": "op"}, InvalidArgumentError, r"^op: axis -1 is out of range for a tensor of rank 0$"),
    (1.0, 3, {"what": "op"}, TypeError, r"^op: axis must be an integer. Received: axis=1.0$"),
    (True, 3, {"what": "op"}, TypeError, r"axis must be an integer"),
])
def test_axis_refusals(axis, ndim, kwargs, error, message):
    with pytest.raises(error, match=message):
        check_axis(axis, ndim, **kwargs)


def test_axis_without_an_owner_is_a_plain_value_error_the_op_runner_names():
    with pytest.raises(ValueError) as info:
        check_axis(5, 2)
    assert type(info.value) is ValueError
    with pytest.raises(InvalidArgumentError, match=r"^reduce_sum: axis 2 is out of range for a tensor of rank 2"):
        ds.reduce_sum(ds.ones((2, 3)), axis=2)


def test_gather_refuses_an_axis_out_of_range_instead_of_wrapping_it():
    x = ds.constant(np.arange(6.0).reshape(2, 3))
    with pytest.raises(InvalidArgumentError, match="gather: axis 5 is out of range for a tensor of rank 2"):
        ds.gather(x, [0], axis=5)  # was taken as axis 5 % 2 == 1
    np.testing.assert_array_equal(ds.gather(x, [2], axis=-1).numpy(), [[2.0], [5.0]])


# ---------------------------------------------------------------- check_number
def test_number_returns_float_or_int():
    assert check_number(np.float32(0.25), "rate", low=0.0, high=1.0) == 0.25
    assert type(check_number(3, "rate")) is float
    out = check_number(np.int64(4), "depth", low=0, integer=True)
    assert out == 4 and type(out) is int
    assert check_number(ds.constant(2.0), "x") == 2.0


@pytest.mark.parametrize("value, kwargs, error, message", [
    ("0.5", {}, TypeError, r"^`rate` must be a number. Received: rate='0.5'$"),
    (True, {}, TypeError, r"^`rate` must be a number. Received: rate=True$"),
    (None, {"integer": True}, TypeError, r"^`rate` must be an integer. Received: rate=None$"),
    (float("nan"), {}, ValueError, r"^`rate` must be a finite number. Received: rate=nan$"),
    (float("inf"), {}, ValueError, r"finite number"),
    (1.5, {"integer": True}, ValueError, r"^`rate` must be an integer. Received: rate=1.5$"),
    (1.0, {"low": 0.0, "high": 1.0, "high_open": True}, ValueError, r"^`rate` must be in \[0, 1\). Received: rate=1$"),
    (0.0, {"low": 0.0, "low_open": True}, ValueError, r"^`rate` must be in \(0, inf\). Received: rate=0$"),
    (-0.5, {"high": -1.0}, ValueError, r"^`rate` must be in \(-inf, -1\]. Received: rate=-0.5$"),
])
def test_number_refusals(value, kwargs, error, message):
    with pytest.raises(error, match=message):
        check_number(value, "rate", **kwargs)


def test_number_owner_prefix_and_infinity_when_allowed():
    with pytest.raises(ValueError, match=r"^dropout: `rate` must be in \[0, 1\). Received: rate=2$"):
        check_number(2, "rate", low=0.0, high=1.0, high_open=True, owner="dropout")
    assert check_number(float("inf"), "clip_norm", low=0.0, finite=False) == float("inf")
    with pytest.raises(ValueError, match="finite"):
        check_number(float("nan"), "clip_norm", finite=False)


def test_format_range():
    assert format_range(0, 1) == "[0, 1]"
    assert format_range(0.0, None, low_open=True) == "(0, inf)"
    assert format_range(None, 0.5, high_open=True) == "(-inf, 0.5)"


@pytest.mark.parametrize("call, message", [
    (lambda: ds.nn.dropout(ds.ones((2,)), rate=1.0), r"dropout: `rate` must be in \[0, 1\)"),
    (lambda: ds.clip_by_norm(ds.ones((2,)), -1.0), r"clip_by_norm: `clip_norm` must be in \[0, inf\)"),
    (lambda: ds.clip_by_global_norm([ds.ones((2,))], float("nan")), r"clip_by_global_norm: `clip_norm` must be a finite"),
    (lambda: ds.nn.embedding_lookup(ds.ones((2, 2)), [0], max_norm=0.0), r"embedding_lookup: `max_norm` must be in \(0, inf\)"),
    (lambda: ds.unsorted_segment_sum(ds.constant([1.0]), [0], num_segments=-1), r"`num_segments` must be in \[0, inf\)"),
])
def test_ops_use_the_one_number_check(call, message):
    with pytest.raises(ValueError, match=message):
        call()


# ---------------------------------------------------------------- the bridge
def test_bridge_holds_the_ops_layers_functions():
    from descend.ops import gradient_ops

    assert ops_bridge.FUNCTIONS.aggregate is gradient_ops.aggregate
    assert ops_bridge.FUNCTIONS.deduplicate is gradient_ops.deduplicate
    assert ops_bridge.FUNCTIONS.densify is gradient_ops.densify


def test_bridge_register_refuses_a_partial_or_wrong_set_and_changes_nothing():
    before = {n: getattr(ops_bridge.FUNCTIONS, n) for n in ops_bridge.NAMES}
    with pytest.raises(TypeError, match=r"missing \['deduplicate', 'densify', 'read', 'stack'\]"):
        ops_bridge.register(aggregate=lambda a, b: a)
    full = dict(before, stack=3)
    with pytest.raises(TypeError, match="`stack` must be callable. Received: 3"):
        ops_bridge.register(**full)
    assert {n: getattr(ops_bridge.FUNCTIONS, n) for n in ops_bridge.NAMES} == before


def test_deduplicate_equals_a_numpy_reference_bit_for_bit():
    rng = np.random.default_rng(11)
    for dtype in (np.float16, np.float32, np.float64):
        idx = rng.integers(0, 9, size=40)
        vals = rng.normal(size=(40, 3)).astype(dtype)
        d = ds.deduplicate(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (9, 3)))
        unique, inverse = np.unique(idx, return_inverse=True)
        expected = np.zeros((unique.size, 3), dtype)
        np.add.at(expected, inverse, vals)  # row by row, in index order
        np.testing.assert_array_equal(d.indices.numpy(), unique)
        assert d.values.numpy().tobytes() == expected.tobytes()
