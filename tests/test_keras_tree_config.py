"""keras.tree, keras.config, keras.dtype_policies and keras.preprocessing (descend/keras, issue 37) against
Keras."""

from __future__ import annotations

import collections

import pytest

import descend as ds
from descend.keras import config, dtype_policies, preprocessing, tree

P = collections.namedtuple("P", "x y")
Q = collections.namedtuple("Q", "x y")

STRUCTURES = [
    None, 1, "s", [], (), {}, [1, None], (1, [2, 3]), {"b": 1, "a": [2, None]}, P(1, (2, 3)),
    collections.OrderedDict([("z", 1), ("a", 2)]), [{"k": (1, None)}, P([4], 5)], {"a": {"c": 1, "b": 2}},
    (1,), [[], [[]]], collections.defaultdict(int, {"y": 3, "x": 4}),
]


def _outcome(fn):
    try:
        value = fn()
    except (TypeError, ValueError) as e:
        return type(e).__name__
    return (type(value).__name__, repr(value))


@pytest.mark.parametrize("i", range(len(STRUCTURES)))
def test_one_structure_functions_equal_keras(i):
    keras = pytest.importorskip("keras")
    s = STRUCTURES[i]
    for name, call in {
        "flatten": lambda t: t.flatten(s), "flatten_with_path": lambda t: t.flatten_with_path(s),
        "is_nested": lambda t: t.is_nested(s), "map": lambda t: t.map_structure(lambda v: [v], s),
        "map_none": lambda t: t.map_structure(lambda v: 0, s, none_is_leaf=False),
        "lists_to_tuples": lambda t: t.lists_to_tuples(s),
        "pack": lambda t: t.pack_sequence_as(s, list(range(len(t.flatten(s))))),
        "pack_short": lambda t: t.pack_sequence_as(s, list(range(len(t.flatten(s)) + 1))),
        "traverse_down": lambda t: t.traverse(lambda v: v * 10 if isinstance(v, int) else None, s),
        "traverse_none": lambda t: t.traverse(lambda v: t.MAP_TO_NONE if v == 2 else None, s),
        "traverse_up": lambda t: t.traverse(lambda v: [v] if isinstance(v, int) else None, s, top_down=False),
        "shapes": lambda t: t.map_shape_structure(lambda v: ("shape", v), s),
    }.items():
        assert _outcome(lambda: call(tree)) == _outcome(lambda: call(keras.tree)), name  # noqa: B023


def test_two_structure_functions_equal_keras():
    keras = pytest.importorskip("keras")
    pairs = [(a, b) for a in STRUCTURES for b in STRUCTURES] + [(P(1, 2), Q(1, 2)), ([1, 2], (1, 2)),
                                                              ({"a": 1}, collections.OrderedDict(a=2))]
    for a, b in pairs:
        for name, call in {
            "same": lambda t: t.assert_same_structure(a, b),  # noqa: B023
            "paths": lambda t: t.assert_same_paths(a, b),  # noqa: B023
            "map2": lambda t: t.map_structure(lambda x, y: (x, y), a, b),  # noqa: B023
        }.items():
            ours, theirs = _outcome(lambda: call(tree)), _outcome(lambda: call(keras.tree))  # noqa: B023
            assert ours == theirs, (name, a, b, ours, theirs)


@pytest.mark.parametrize("shallow,deep", [
    ([1, [2, 3]], [1, [2, 3]]), ([1, 2], [[1, 2], {"a": 3}]), ({"a": 0, "b": 0}, {"a": [1, 2], "b": (3,)}),
    ((1, 2), [1, 2]), ([1, 2], [1, 2, 3]),
])
def test_map_structure_up_to_equals_keras(shallow, deep):
    keras = pytest.importorskip("keras")
    assert _outcome(lambda: tree.map_structure_up_to(shallow, lambda a: [a], deep)) == \
        _outcome(lambda: keras.tree.map_structure_up_to(shallow, lambda a: [a], deep))


def test_tree_rules_without_keras():
    assert tree.flatten({"b": 1, "a": [2, None]}) == [2, None, 1]
    assert tree.flatten(collections.OrderedDict([("z", 1), ("a", 2)])) == [1, 2]
    with pytest.raises(ValueError, match="Expected an instance of list"):
        tree.assert_same_structure([1, 2], (1, 2))
    assert tree.traverse(lambda v: tree.MAP_TO_NONE if v == 2 else None, [1, 2]) == [1, None]


def test_config_reads_and_writes_descends_settings():
    assert config.floatx() == "float32" and config.backend() == "tensorflow"
    before = config.epsilon()
    try:
        config.set_epsilon(1e-5)
        assert ds.keras.backend.epsilon() == 1e-5
        config.set_floatx("float64")
        assert ds.floatx() == ds.float64.dtype and config.floatx() == "float64"
    finally:
        config.set_epsilon(before)
        config.set_floatx("float32")
    config.set_dtype_policy("mixed_float16")
    try:
        assert config.dtype_policy().name == "mixed_float16" and ds.layers.Dense(2).dtype_policy.name == "mixed_float16"
    finally:
        config.set_dtype_policy(None)
    with pytest.raises(ValueError, match="floating"):
        config.set_floatx("int32")


def test_config_names_are_kerass_functions_of_the_same_meaning():
    keras = pytest.importorskip("keras")
    for name in config.__all__:
        assert hasattr(keras.config, name), name
    assert config.floatx() == keras.config.floatx() and config.image_data_format() == keras.config.image_data_format()
    assert config.epsilon() == keras.config.epsilon()


@pytest.mark.parametrize("name", ["float32", "float16", "float64", "mixed_float16"])
def test_dtype_policies_serialize_as_keras(name):
    keras = pytest.importorskip("keras")
    ours = dtype_policies.get(name)
    theirs = keras.dtype_policies.get(name)
    assert dtype_policies.serialize(ours) == keras.dtype_policies.serialize(theirs)
    assert (ours.compute_dtype, ours.variable_dtype) == (theirs.compute_dtype, theirs.variable_dtype)
    back = dtype_policies.deserialize(keras.dtype_policies.serialize(theirs))
    assert back == ours


def test_dtype_policies_refuse_what_they_cannot_build():
    with pytest.raises(ValueError, match="Cannot interpret"):
        dtype_policies.get(3)
    with pytest.raises(ValueError, match="unknown dtype policy class"):
        dtype_policies.deserialize({"class_name": "Int8DTypePolicy", "config": {"name": "int8_from_float32"}})


def test_preprocessing_names_are_the_utils_ones_as_in_keras():
    assert preprocessing.image_dataset_from_directory is ds.keras.utils.image_dataset_from_directory
    assert preprocessing.sequence.pad_sequences is ds.keras.utils.pad_sequences
    assert preprocessing.image.img_to_array is ds.keras.utils.img_to_array
    keras = pytest.importorskip("keras")
    for name in preprocessing.__all__:
        assert hasattr(keras.preprocessing, name)
    for name in preprocessing.image.__all__:
        assert getattr(keras.preprocessing.image, name) is getattr(keras.utils, name)
