"""tf.nest (descend/nest.py): each function against TF's on a table of structures."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import descend as ds

Point = collections.namedtuple("Point", "x y")
Other = collections.namedtuple("Other", "x y")

STRUCTURES = [
    1, None, "text", [], (), {}, [1, 2], (1, [2, 3]), {"b": 1, "a": [2, 3]}, Point(1, (2, 3)),
    collections.OrderedDict([("z", 1), ("a", 2)]), [{"k": (1, None)}, Point([4], 5)], {"a": {"c": 1, "b": 2}},
    [np.float32(1.5), b"x"], collections.defaultdict(int, {"y": 3, "x": 4}),
]


def _outcome(fn):
    try:
        value = fn()
    except (TypeError, ValueError) as e:
        return type(e).__name__
    return (type(value).__name__, repr(value))


@pytest.mark.parametrize("i", range(len(STRUCTURES)))
def test_flatten_is_nested_and_pack_equal_tensorflows(i):
    tf = pytest.importorskip("tensorflow")
    s = STRUCTURES[i]
    assert ds.nest.flatten(s) == tf.nest.flatten(s)
    assert ds.nest.is_nested(s) == tf.nest.is_nested(s)
    n = len(tf.nest.flatten(s))
    for flat in (list(range(n)), list(range(n + 1)), 7):
        assert _outcome(lambda: ds.nest.pack_sequence_as(s, flat)) == \
            _outcome(lambda: tf.nest.pack_sequence_as(s, flat))  # noqa: B023
    assert _outcome(lambda: ds.nest.map_structure(lambda v: (v,), s)) == \
        _outcome(lambda: tf.nest.map_structure(lambda v: (v,), s))


@pytest.mark.parametrize("check_types", [True, False])
def test_assert_same_structure_and_map_over_two_equal_tensorflows(check_types):
    tf = pytest.importorskip("tensorflow")
    pairs = [(a, b) for a in STRUCTURES for b in STRUCTURES] + [
        (Point(1, 2), Other(1, 2)), ([1, 2], (1, 2)), ({"a": 1}, collections.OrderedDict(a=2)), ({"a": 1}, {"b": 1})]
    for a, b in pairs:
        ours = _outcome(lambda: ds.nest.assert_same_structure(a, b, check_types=check_types))  # noqa: B023
        theirs = _outcome(lambda: tf.nest.assert_same_structure(a, b, check_types=check_types))  # noqa: B023
        assert ours == theirs, (a, b)
        ours = _outcome(lambda: ds.nest.map_structure(lambda x, y: [x, y], a, b, check_types=check_types))  # noqa: B023
        theirs = _outcome(lambda: tf.nest.map_structure(lambda x, y: [x, y], a, b, check_types=check_types))  # noqa: B023
        assert ours == theirs, (a, b)


def test_rules_without_tensorflow():
    s = {"b": [1, 2], "a": (3, None)}
    assert ds.nest.flatten(s) == [3, None, 1, 2]
    assert list(ds.nest.pack_sequence_as(s, [0, 1, 2, 3])) == ["b", "a"]  # the dict keeps its key order
    assert ds.nest.map_structure(lambda x, y: x * y, Point(2, [3]), Point(4, [5])) == Point(8, [15])
    with pytest.raises(ValueError, match="same nested structure"):
        ds.nest.assert_same_structure([1, [2]], [1, 2])
    with pytest.raises(TypeError, match="same sequence type"):
        ds.nest.assert_same_structure([1], (1,))
    with pytest.raises(ValueError, match="Structure had 2 atoms, but flat_sequence had 3"):
        ds.nest.pack_sequence_as([1, 2], [1, 2, 3])
    with pytest.raises(TypeError, match="callable"):
        ds.nest.map_structure(3, [1])
