"""descend's one ``nest`` (descend/framework/nest.py): TF's leaf order (a dict's sorted keys), rebuilding
keeps types and key order, and the compiler's flatten/rebuild/paths/structure agree with it."""
from __future__ import annotations

import collections
import gc
import weakref

import numpy as np
import pytest

from descend.framework import nest

Point = collections.namedtuple("Point", "x y")

# (structure, its leaves in TF's order)
_CASES = [
    ({"b": 1, "a": 2}, [2, 1]),
    ({"b": [1, 2], "a": (3, {"z": 4, "c": 5})}, [3, 5, 4, 1, 2]),
    (collections.OrderedDict([("y", 1), ("x", 2)]), [2, 1]),
    (Point(y=1, x=2), [2, 1]),
    ([None, (), [7]], [None, 7]),
    ({3: "three", 1: "one", 2: "two"}, ["one", "two", "three"]),
    (5, [5]),
]


@pytest.mark.parametrize("structure, leaves", _CASES)
def test_leaves_in_tf_order_and_rebuilt_alike(structure, leaves):
    assert nest.flatten(structure) == leaves
    flat, rebuild = nest.flatten_leaves(structure)
    assert flat == leaves
    new = [f"new {i}" for i in range(len(leaves))]
    rebuilt = rebuild(new)
    assert nest.flatten(rebuilt) == new
    assert type(rebuilt) is (type(structure) if isinstance(structure, (list, tuple, dict)) else str)
    if isinstance(structure, dict):
        assert list(rebuilt) == list(structure)  # the original key order, not the sorted one
    assert rebuilt == nest.pack_like(structure, new)
    assert nest.structure_of(rebuilt) == nest.structure_of(structure)
    assert len(nest.leaf_paths(structure)) == len(leaves)
    assert [p for p, _ in nest.flatten_with_paths(structure)] == \
        ["".join(f"[{k!r}]" for k in path) for path in nest.leaf_paths(structure)]


def test_paths_follow_the_sorted_keys():
    assert nest.leaf_paths({"b": [1, 2], "a": {"d": 3, "c": 4}}) == [("a", "c"), ("a", "d"), ("b", 0), ("b", 1)]


@pytest.mark.parametrize("fn", [nest.flatten, nest.flatten_leaves, nest.leaf_paths, nest.structure_of,
                                nest.flatten_with_paths])
def test_keys_that_do_not_sort_are_refused_as_tf_does(fn):
    with pytest.raises(TypeError, match="must sort"):
        fn({1: "a", "b": 2})


def test_structure_of_tells_types_keys_and_lengths_apart():
    s = nest.structure_of
    assert s({"a": 1}) != s({"b": 1})
    assert s([1, 2]) != s((1, 2)) != s(Point(1, 2))
    assert s([1, 2]) != s([1, 2, 3])
    assert s({"a": [1]}) == s({"a": [np.zeros(3)]})  # leaves do not matter
    hash(s({"a": (1, [2])}))


def test_rebuild_does_not_hold_the_old_leaves():
    class Leaf:
        pass

    leaf = Leaf()
    ref = weakref.ref(leaf)
    rebuild = nest.flatten_leaves({"w": [leaf]})[1]
    del leaf
    gc.collect()
    assert ref() is None
    assert rebuild([1]) == {"w": [1]}


def test_the_order_is_tensorflows():
    tf = pytest.importorskip("tensorflow")
    for structure, _ in _CASES:
        assert nest.flatten(structure) == tf.nest.flatten(structure)
