"""descend's one ``nest`` (descend/framework/nest.py): TF's leaf order (a dict's sorted keys), rebuilding
keeps types and key order, and the compiler's flatten/rebuild/paths/structure agree with it."""
from __future__ import annotations

import collections
import collections.abc
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


# tf.nest's wider inputs are options of this one nest (wide=True), not a second implementation
class _Frozen(collections.abc.Mapping):
    """A mapping that is not a dict."""

    def __init__(self, pairs):
        self._d = dict(pairs)

    def __getitem__(self, k):
        return self._d[k]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __eq__(self, other):
        return type(other) is _Frozen and list(self._d.items()) == list(other._d.items())


_WIDE = [
    (collections.defaultdict(int, {"y": 3, "x": 4}), [4, 3]),
    (_Frozen({"b": 1, "a": 2}), [2, 1]),
    ({"k": {"b": 1, "a": 2}.keys()}, ["b", "a"]),
    ([{"b": 1, "a": 2}.items()], ["b", 1, "a", 2]),
]


@pytest.mark.parametrize("structure, leaves", _WIDE)
def test_wide_takes_any_mapping_and_view_and_tf_nest_is_it(structure, leaves):
    from descend.framework import tf_nest

    assert nest.flatten(structure, wide=True) == leaves == tf_nest.flatten(structure)
    new = list(range(len(leaves)))
    packed = nest.pack_like(structure, new, wide=True)
    assert nest.flatten(packed, wide=True) == new and tf_nest.pack_sequence_as(structure, new) == packed
    assert nest.is_nested(structure, wide=True) and tf_nest.is_nested(structure)


def test_tf_nest_walks_no_structure_of_its_own():
    import ast
    import inspect

    from descend.framework import tf_nest

    tree = ast.parse(inspect.getsource(tf_nest))
    names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert not names & {"_sorted_keys", "_children", "_flatten", "_pack", "_sequence_like"}
    assert "sorted" not in calls  # the dict-key order is decided in framework/nest.py only


def test_a_defaultdict_is_rebuilt_with_its_factory():
    d = collections.defaultdict(list, {"b": 1, "a": 2})
    rebuilt = nest.pack_like(d, ["A", "B"])
    assert type(rebuilt) is collections.defaultdict and rebuilt.default_factory is list
    assert list(rebuilt.items()) == [("b", "B"), ("a", "A")]
