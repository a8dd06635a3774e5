"""TF's ``name=`` on tensor-creating functions and ops: accepted, unused eagerly (TF's eager tensors have no name)."""

import numpy as np
import pytest

import descend as ds

# (label, descend call, TF call): each passes ``name=`` as TF programs do
CASES = [
    ("constant", lambda m: m.constant([1.0, 2.0], name="c"), None),
    ("constant_shape", lambda m: m.constant(3.0, shape=[2, 2], name="c"), None),
    ("convert_to_tensor", lambda m: m.convert_to_tensor([1, 2], name="x"), None),
    ("convert_hint", lambda m: m.convert_to_tensor(1, dtype_hint=m.float32, name="x"), None),
    ("convert_hint_refused", lambda m: m.convert_to_tensor(1.5, dtype_hint=m.int32), None),
    ("zeros", lambda m: m.zeros([2, 3], name="z"), None),
    ("ones", lambda m: m.ones([3], dtype=m.int32, name="o"), None),
    ("fill", lambda m: m.fill([2], 7.0, name="f"), None),
    ("range", lambda m: m.range(1, 7, 2, name="r"), None),
    ("zeros_like", lambda m: m.zeros_like(m.constant([1.0, 2.0]), name="zl"), None),
    ("ones_like", lambda m: m.ones_like(m.constant([1, 2]), name="ol"), None),
    ("identity", lambda m: m.identity(m.constant([1.0, 2.0]), name="i"), None),
    ("add", lambda m: m.add(m.constant(1.0), m.constant(2.0), name="a"), None),
    ("reduce_sum", lambda m: m.reduce_sum(m.constant([[1.0, 2.0], [3.0, 4.0]]), axis=1, name="s"), None),
    ("reshape", lambda m: m.reshape(m.constant([1.0, 2.0]), [2, 1], name="r"), None),
]

# (label, expected value and dtype without TF)
EXPECTED = {
    "constant": (np.float32, [1.0, 2.0]), "convert_hint": (np.float32, 1.0), "convert_hint_refused": (np.float32, 1.5),
    "ones": (np.int32, [1, 1, 1]), "range": (np.int32, [1, 3, 5]), "add": (np.float32, 3.0),
}


@pytest.mark.parametrize("label,call,_", CASES, ids=[c[0] for c in CASES])
def test_name_accepted(label, call, _):
    out = call(ds)
    if label in EXPECTED:
        dtype, value = EXPECTED[label]
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.numpy(), value)


@pytest.mark.parametrize("label,call,_", CASES, ids=[c[0] for c in CASES])
def test_name_matches_tf(label, call, _):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = call(ds), call(tf)
    assert ours.dtype.name == theirs.dtype.name
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_name_in_a_traced_function():
    @ds.function
    def f(x):
        return ds.identity(x * 2.0, name="double") + ds.constant(1.0, name="one")

    np.testing.assert_array_equal(f(ds.constant([1.0, 2.0])).numpy(), [3.0, 5.0])


BAD = [
    ("constant_shape", lambda: ds.constant([1.0, 2.0, 3.0], shape=[2, 2], name="c"), ValueError, "shape"),
    ("constant_dtype", lambda: ds.constant(1.5, dtype=ds.int32, name="c"), TypeError, "fractional"),
    ("convert_dtype", lambda: ds.convert_to_tensor(ds.constant(1.0), dtype=ds.int32, name="x"), TypeError, "int32"),
    ("convert_string", lambda: ds.convert_to_tensor("abc", dtype=ds.float32, name="s"), (TypeError, ValueError), "float32"),
    ("op_extra_positional", lambda: ds.identity(ds.constant(1.0), "n", 3), TypeError, "positional"),
    ("op_unknown_keyword", lambda: ds.identity(ds.constant(1.0), nme="x"), TypeError, "nme"),
]


@pytest.mark.parametrize("label,call,error,match", BAD, ids=[b[0] for b in BAD])
def test_bad_inputs_still_fail_with_a_name(label, call, error, match):
    with pytest.raises(error, match=match):
        call()
