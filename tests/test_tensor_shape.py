"""tf.TensorShape (descend/framework/tensor_shape.py): every method against TF's on a table of shapes."""

from __future__ import annotations

import itertools

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
