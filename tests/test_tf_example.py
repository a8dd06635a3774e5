"""tf.train.Example and its messages (descend/persistence/formats/tf_example.py): bytes equal to TF's SerializeToString, parsing,
presence, type checks and hostile bytes."""

from __future__ import annotations

import math

import numpy as np
import pytest

import descend as ds

T = ds.train


def _build(m, spec):
    """The same message built with ``m`` (descend.train or tf.train) from a plain description."""
    kind, payload = spec
    if kind == "int64":
        return m.Feature(int64_list=m.Int64List(value=payload))
    if kind == "float":
        return m.Feature(float_list=m.FloatList(value=payload))
    if kind == "bytes":
        return m.Feature(bytes_list=m.BytesList(value=payload))
    if kind == "empty_int64":
        return m.Feature(int64_list=m.Int64List())
    return m.Feature()


EXAMPLES = [
    {"label": ("int64", [3])},
    {"z": ("int64", [1, -2, 300, 2**63 - 1, -2**63]), "a": ("float", [1.5, 0.1, -0.0, 1e-30]),
     "m": ("bytes", [b"hi", b"", bytes(range(256))])},
    {"empty": ("empty_int64", None), "none": ("unset", None)},
    {"\u00e9t\u00e9": ("float", [float("inf"), -float("inf")] + [0.25] * 200)},
    {},
]


def _example(m, features):
    return m.Example(features=m.Features(feature={k: _build(m, v) for k, v in features.items()}))


def _sequence(m, features):
    lists = m.FeatureLists(feature_list={k: m.FeatureList(feature=[_build(m, v), _build(m, v)])
                                         for k, v in features.items()})
    return m.SequenceExample(context=m.Features(feature={k: _build(m, v) for k, v in features.items()}),
                             feature_lists=lists)


@pytest.mark.parametrize("make", [_example, _sequence], ids=["Example", "SequenceExample"])
@pytest.mark.parametrize("features", EXAMPLES, ids=range(len(EXAMPLES)))
def test_serialized_bytes_equal_tensorflows(make, features):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = make(T, features), make(tf.train, features)
    # map entries: TF's upb runtime writes them in its hash table's order; deterministic=True sorts them
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(deterministic=True)
    if len(features) <= 1:
        assert ours.SerializeToString() == theirs.SerializeToString()
    # and each side parses the other's bytes into the same message
    back = type(theirs).FromString(ours.SerializeToString())
    assert back == theirs
    assert type(ours).FromString(theirs.SerializeToString()) == ours


def test_text_format_equals_tensorflows_for_one_feature_each():
    tf = pytest.importorskip("tensorflow")
    for spec in (("int64", [1, -2]), ("float", [0.1, 3.0, 123456789.0, 1e-10, float("nan")]),
                 ("bytes", [b"a\"b\n\x00\xff", b"'"])):
        assert str(_example(T, {"k": spec})) == str(_example(tf.train, {"k": spec}))
        assert str(_build(T, spec)) == str(_build(tf.train, spec))


def test_bytes_without_tensorflow_are_tfs_recorded_bytes():
    # recorded from TF 2.21's tf.train.Example(...).SerializeToString() for the doctest's example
    ex = _example(T, {"label": ("int64", [3])})
    assert ex.SerializeToString() == b"\n\x10\n\x0e\n\x05label\x12\x05\x1a\x03\n\x01\x03"
    assert T.Feature(int64_list=T.Int64List()).SerializeToString() == b"\x1a\x00"
    assert T.Feature().SerializeToString() == b""
    assert T.FloatList(value=[1.5]).SerializeToString() == b"\n\x04\x00\x00\xc0?"


def test_presence_and_oneof_follow_writes():
    f = T.Feature()
    child = f.int64_list
    assert f.WhichOneof("kind") is None and not f.HasField("int64_list")
    child.value.append(4)
    assert f.WhichOneof("kind") == "int64_list" and f.HasField("int64_list") and f.HasField("kind")
    f.float_list.value.append(1.0)  # the oneof switches: the int64 list is gone
    assert f.WhichOneof("kind") == "float_list" and not f.HasField("int64_list")
    assert f.SerializeToString() == T.Feature(float_list=T.FloatList(value=[1.0])).SerializeToString()
    ex = T.Example()
    ex.features.feature["x"].bytes_list.value.append(b"v")  # a map entry created on read, as protobuf
    assert ex.HasField("features") and list(ex.features.feature) == ["x"]
    assert T.Example.FromString(ex.SerializeToString()) == ex


def test_values_are_stored_as_tf_stores_them():
    assert T.FloatList(value=[0.1]).value[0] == float(np.float32(0.1))
    assert T.Int64List(value=np.array([1, 2], np.int32)).value == [1, 2]
    assert T.FloatList(value=np.array([1, 2])).value == [1.0, 2.0]
    assert math.isnan(T.FloatList.FromString(T.FloatList(value=[float("nan")]).SerializeToString()).value[0])


@pytest.mark.parametrize("make,error,match", [
    (lambda: T.Int64List(value=[1.5]), TypeError, "expected an int"),
    (lambda: T.Int64List(value=[True]), TypeError, "boolean"),
    (lambda: T.Int64List(value=[2**63]), ValueError, "int64 range"),
    (lambda: T.BytesList(value=["text"]), TypeError, "expected bytes"),
    (lambda: T.FloatList(value=["1"]), TypeError, "expected a number"),
    (lambda: T.Example(foo=1), ValueError, 'no "foo" field'),
    (lambda: T.Feature(int64_list=[1]), TypeError, "expected a Int64List"),
    (lambda: T.Int64List(value=5), TypeError, "iterable"),
    (lambda: setattr(T.Example(), "features", T.Features()), AttributeError, "Assignment not allowed"),
    (lambda: T.Feature().WhichOneof("other"), ValueError, "no oneof"),
    (lambda: T.Int64List().HasField("value"), ValueError, "singular"),
])
def test_bad_values_are_refused(make, error, match):
    with pytest.raises(error, match=match):
        make()


@pytest.mark.parametrize("data", [
    b"\n\x05\x01",                      # a length past the end
    b"\n\x02\x1a\x05",                  # a nested length past its message
    b"\n\x04\n\x02\x12\x00" + b"\x08",  # a truncated key
    b"\x0a\x03\x0a\x01\xff",            # a map key that is not UTF-8
    b"\x08\x01",                        # features as a varint
])
def test_malformed_bytes_raise_decode_error_and_leave_the_message(data):
    ex = _example(T, {"k": ("int64", [1])})
    before = ex.SerializeToString()
    with pytest.raises(T.DecodeError if hasattr(T, "DecodeError") else ValueError):
        ex.ParseFromString(data)
    assert ex.SerializeToString() == before


def test_parse_replaces_and_merge_appends():
    a = T.Int64List(value=[1])
    a.MergeFromString(T.Int64List(value=[2]).SerializeToString())
    assert a.value == [1, 2]
    a.ParseFromString(T.Int64List(value=[7]).SerializeToString())
    assert a.value == [7]
    b = T.Int64List()
    b.CopyFrom(a)
    assert b == a and b is not a
