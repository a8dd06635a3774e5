"""descend.function flattens its arguments and results with descend.framework.nest, the one implementation of
TensorFlow's nesting: dict keys in sorted order, TF's ``TypeError`` for keys that do not sort; the structure
descriptions and leaf paths the compiler reads follow the same order."""

from __future__ import annotations

import collections

import pytest

import descend as ds
from descend.framework import nest

Point = collections.namedtuple("Point", "y x")


@pytest.mark.parametrize("structure, leaves, paths", [
    ({"b": 1, "a": [2, 3]}, [2, 3, 1], [("a", 0), ("a", 1), ("b",)]),
    ([Point(y=1, x=2), (3,)], [1, 2, 3], [(0, 0), (0, 1), (1, 0)]),
    (collections.OrderedDict([("z", 1), ("m", {"q": 2, "c": 3})]), [3, 2, 1], [("m", "c"), ("m", "q"), ("z",)]),
    ({2: "two", 1: "one"}, ["one", "two"], [(1,), (2,)]),
    ([], [], []),
    (7, [7], [()]),
])
def test_leaves_and_their_paths_in_tfs_order(structure, leaves, paths):
    assert nest.flatten(structure) == leaves
    assert nest.leaf_paths(structure) == paths
    assert nest.pack_like(structure, leaves) == structure
    assert type(nest.pack_like(structure, leaves)) is type(structure)


@pytest.mark.parametrize("a, b, same", [
    ({"a": 1, "b": [2]}, {"b": [5], "a": 4}, True),     # insertion order does not matter
    ({"a": 1, "b": [2]}, {"a": 1, "b": (2,)}, False),   # a list is not a tuple
    ([1, 2], [1, 2, 3], False),
    (Point(1, 2), (1, 2), False),
    ({"a": 1}, {"b": 1}, False),
    ([1, [2]], [3, [4]], True),
])
def test_structure_descriptions_compare_types_lengths_and_keys(a, b, same):
    assert (nest.structure_of(a) == nest.structure_of(b)) is same
    hash(nest.structure_of(a))


def test_a_traced_function_gets_a_dicts_leaves_in_sorted_key_order_and_rebuilds_it():
    f = ds.function(lambda d: {k: v * 2.0 for k, v in d.items()})
    out = f({"b": ds.constant(1.0), "a": ds.constant(2.0)})
    assert list(out) == ["b", "a"] and float(out["a"]) == 4.0 and float(out["b"]) == 2.0
    concrete = f.get_concrete_function({"b": ds.constant(1.0), "a": ds.constant(2.0)})
    (specs,), _ = concrete.structured_input_signature
    assert {k: spec.name for k, spec in specs.items()} == {"b": "d_b", "a": "d_a"}  # each leaf named by its path
    assert concrete.pretty_printed_signature().index("['a'") < concrete.pretty_printed_signature().index("['b'")


def test_dict_keys_that_do_not_sort_are_tfs_type_error():
    f = ds.function(lambda d: d["a"] * 2.0)
    with pytest.raises(TypeError, match=r"sortable keys.*Received keys: \[1, 'a'\]"):
        f({1: ds.constant(1.0), "a": ds.constant(2.0)})
