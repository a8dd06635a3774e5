"""tf.TensorShape (descend/framework/tensor_shape.py): every method against TF's on a table of shapes."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import descend as ds
from descend.framework.tensor_shape import Dimension, TensorShape

SHAPES = [None, [], [0], [5], [2, 3], [2, None], [None, 3], [None, None], [2, None, 3], [2, 5, 3], [3, None, 3]]


def _outcome(fn):
    try:
        value = fn()
    except (ValueError, TypeError, IndexError) as e:
        return type(e).__name__
    if type(value).__name__ == "TensorShape":
        return ("shape", repr(value))
    return value


UNARY = {
    "repr": repr, "str": str, "rank": lambda s: s.rank, "ndims": lambda s: s.ndims, "as_list": lambda s: s.as_list(),
    "len": len, "bool": bool, "fully": lambda s: s.is_fully_defined(), "num": lambda s: s.num_elements(),
    "first": lambda s: s[0], "last": lambda s: s[-1], "slice": lambda s: s[0:2], "slice1": lambda s: s[1:],
    "with_rank2": lambda s: s.with_rank(2), "least2": lambda s: s.with_rank_at_least(2),
    "most1": lambda s: s.with_rank_at_most(1), "list": list, "hash_eq": lambda s: hash(s) == hash(type(s)(s)),
    "dims": lambda s: None if s.dims is None else [d.value for d in s.dims],
}
BINARY = {
    "merge": lambda a, b: a.merge_with(b), "compatible": lambda a, b: a.is_compatible_with(b),
    "specific": lambda a, b: a.most_specific_compatible_shape(b), "subtype": lambda a, b: a.is_subtype_of(b),
    "concat": lambda a, b: a.concatenate(b), "eq": lambda a, b: a == b, "ne": lambda a, b: a != b,
    "eq_list": lambda a, b: a == (b.as_list() if b.rank is not None else b), "add": lambda a, b: a + b,
    "same_rank": lambda a, b: a.assert_same_rank(b), "assert_compat": lambda a, b: a.assert_is_compatible_with(b),
}


@pytest.mark.parametrize("name", sorted(UNARY))
def test_one_shape_methods_equal_tensorflows(name):
    tf = pytest.importorskip("tensorflow")
    for dims in SHAPES:
        ours = _outcome(lambda: UNARY[name](TensorShape(dims)))  # noqa: B023
        theirs = _outcome(lambda: UNARY[name](tf.TensorShape(dims)))  # noqa: B023
        assert ours == theirs, (name, dims, ours, theirs)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_two_shape_methods_equal_tensorflows(name):
    tf = pytest.importorskip("tensorflow")
    for a, b in itertools.product(SHAPES, repeat=2):
        ours = _outcome(lambda: BINARY[name](TensorShape(a), TensorShape(b)))  # noqa: B023
        theirs = _outcome(lambda: BINARY[name](tf.TensorShape(a), tf.TensorShape(b)))  # noqa: B023
        assert ours == theirs, (name, a, b, ours, theirs)


def test_printing_and_merging_without_tensorflow():
    s = ds.TensorShape([2, None, 3])
    assert (repr(s), str(s), str(ds.TensorShape(None)), str(ds.TensorShape([5]))) == (
        "TensorShape([2, None, 3])", "(2, None, 3)", "<unknown>", "(5,)")
    assert s.merge_with([2, 5, None]) == [2, 5, 3]
    assert s.is_compatible_with([2, 7, 3]) and not s.is_compatible_with([2, 7])
    with pytest.raises(ValueError, match=r"Shapes \(2, None, 3\) and \(3, None, 3\) are not compatible"):
        s.merge_with([3, None, 3])
    assert ds.TensorShape(None).with_rank(2) == [None, None]
    assert (Dimension(None) == 3) is None and (Dimension(3) == 3) is True


@pytest.mark.parametrize("dims,error,match", [
    ([1.5], TypeError, "Dimension value must be integer"),
    ([-1], ValueError, "must be >= 0"),
    ([True], TypeError, "Dimension value must be integer"),
    (object(), TypeError, "expected None, an int or an iterable"),
])
def test_bad_dimensions_are_refused_as_tf_does(dims, error, match):
    with pytest.raises(error, match=match):
        ds.TensorShape(dims)


# ---------------------------------------------------------------- a tensor's shape (issue 35)
def _constant(lib):
    return lib.constant(np.zeros((2, 3), np.float32))


def _vector(lib):
    return lib.constant([1.0, 2.0, 3.0])


def _scalar(lib):
    return lib.constant(1.0)


def _variable(lib):
    return lib.Variable(np.zeros((4, 1), np.float32))


def _matmul(lib):
    return lib.matmul(lib.ones((2, 5)), lib.ones((5, 7)))


_TENSORS = {"constant": _constant, "vector": _vector, "scalar": _scalar, "variable": _variable, "matmul": _matmul}
# recorded from TF 2.21: repr and str of each tensor's shape, and of get_shape()
_PRINTED = {"constant": ("TensorShape([2, 3])", "(2, 3)"), "vector": ("TensorShape([3])", "(3,)"),
            "scalar": ("TensorShape([])", "()"), "variable": ("TensorShape([4, 1])", "(4, 1)"),
            "matmul": ("TensorShape([2, 7])", "(2, 7)")}


def _facts(t):
    shape = t.shape
    dims = tuple(shape)
    return {"type": type(shape).__name__, "repr": repr(shape), "str": str(shape), "get_shape": repr(t.get_shape()),
            "tuple_eq": shape == dims, "list_eq": shape == list(dims), "rank": shape.rank, "len": len(shape),
            "as_list": shape.as_list(), "items": [shape[i] for i in range(len(shape))],
            "last": shape[-1] if dims else None, "slice": repr(shape[1:]), "unpacked": [*shape],
            "numpy_zeros": np.zeros(shape).shape, "hashes_as_tuple": hash(shape) == hash(dims)}


@pytest.mark.parametrize("name", sorted(_TENSORS))
def test_a_tensors_shape_is_a_tensorshape_printed_as_recorded(name):
    facts = _facts(_TENSORS[name](ds))
    assert facts["type"] == "TensorShape" and (facts["repr"], facts["str"]) == _PRINTED[name]
    assert facts["get_shape"] == facts["repr"]
    assert facts["tuple_eq"] and facts["list_eq"] and facts["hashes_as_tuple"]  # still compares as today
    assert facts["items"] == facts["unpacked"] == facts["as_list"] and facts["numpy_zeros"] == tuple(facts["as_list"])


@pytest.mark.parametrize("name", sorted(_TENSORS))
def test_a_tensors_shape_behaves_as_tensorflows(name):
    tf = pytest.importorskip("tensorflow")
    theirs = _facts(_TENSORS[name](tf))
    assert _facts(_TENSORS[name](ds)) == theirs
    assert (theirs["repr"], theirs["str"]) == _PRINTED[name]


def test_shape_prints_unknown_as_tf():
    assert (repr(TensorShape(None)), str(TensorShape(None))) == ("TensorShape(None)", "<unknown>")
    assert str(TensorShape([None, 3])) == "(None, 3)"
