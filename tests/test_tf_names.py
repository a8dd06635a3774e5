"""TF 2 names that ported programs use: ``tf.Module``, ``tf.linspace``, binary ops on Python lists, the dtype
names (``tf.bool``, ``tf.half``...). Each is checked by hand and, where TensorFlow is installed, side by side with
it (the same program run with ``import tensorflow as tf`` and with ``import descend as tf``)."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds

# ---------------------------------------------------------------------------------------------- Module


def _module_program(tf):
    """TF's "Introduction to modules" guide, shortened: variables, submodules, name scopes."""

    class Dense(tf.Module):
        def __init__(self, in_features, out_features, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(tf.ones([in_features, out_features]), name="w")
            self.b = tf.Variable(tf.zeros([out_features]), name="b", trainable=False)

        @tf.Module.with_name_scope
        def __call__(self, x):
            self.made = tf.Variable(1.0, name="made_inside")
            return tf.nn.relu(tf.matmul(x, self.w) + self.b)

    class Sequential(tf.Module):
        def __init__(self, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.dense_1 = Dense(3, 3)
                self.dense_2 = Dense(3, 2, name="second")
                self.v = tf.Variable(1.0, name="v")
            self.extra = [self.dense_1, {"x": tf.Variable(2.0, name="x"), "a": (tf.Variable(3.0, name="a"),)}]

        def __call__(self, x):
            return self.dense_2(self.dense_1(x))

    m = Sequential(name="the_model")
    y = m(tf.constant([[1.0, 2.0, 3.0]]))

    class HTTPServer2(tf.Module):
        pass

    def names(vs):
        return [v.name.split(":")[0] for v in vs]

    return {
        "y": y.numpy().tolist(),
        "name": m.name, "scope": m.name_scope.name,
        "variables": names(m.variables), "trainable": names(m.trainable_variables),
        "non_trainable": names(m.non_trainable_variables),
        "submodules": [s.name for s in m.submodules],
        "made_inside": m.dense_1.made.name.split(":")[0],
        "default_names": [Sequential().name, Dense(1, 1).name, HTTPServer2().name],
        "sub_scope": m.dense_2.name_scope.name,
    }


def test_module_by_hand():
    ds.clear_session()
    got = _module_program(ds)
    assert got["name"] == "the_model" and got["scope"] == "the_model/"
    assert got["submodules"] == ["dense", "second"]
    assert got["default_names"] == ["sequential", "dense", "http_server2"]
    assert got["sub_scope"] == "the_model/second/"
    # own attributes sorted by name (a dict by key), then each submodule's: a, x (extra), v, then dense_1's
    # (made, w), then dense_2's; as eager TF, two variables may share a name
    assert got["trainable"] == ["a", "x", "the_model/v", "the_model/dense/made_inside", "the_model/w",
                                "the_model/second/made_inside", "the_model/w"]
    assert got["non_trainable"] == ["the_model/b", "the_model/b"]
    assert got["made_inside"] == "the_model/dense/made_inside"
    assert got["y"] == [[18.0, 18.0]]


def test_module_as_tensorflow():
    """Same names, order and values as TF, up to descend's unique variable names (``w_1`` where TF repeats
    ``w``)."""
    tf = pytest.importorskip("tensorflow")
    ds.clear_session()
    ours, theirs = _module_program(ds), _module_program(tf)

    def strip(names):
        return [n.rsplit("_1", 1)[0] if n.endswith("_1") else n for n in names]

    for key in ("variables", "trainable", "non_trainable"):
        assert strip(ours[key]) == theirs[key], key
    for key in ("y", "name", "scope", "submodules", "made_inside", "default_names", "sub_scope"):
        assert ours[key] == theirs[key], key


def test_module_walks_each_value_once_and_stops_at_cycles():
    a, b = ds.Module(name="a"), ds.Module(name="b")
    v = ds.Variable(1.0, name="shared")
    a.child, b.parent, a.v, b.v = b, a, v, v
    assert a.submodules == (b,) and b.submodules == (a,)
    assert a.variables == (v,) and b.variables == (v,)
    c = ds.Module(name="c")
    b.child = c
    assert a.submodules == (b, c)
    assert tuple(a._flatten(recursive=False, predicate=lambda x: isinstance(x, ds.Module))) == (b,)


@pytest.mark.parametrize("bad", ["a b", "1a", "", "a/b", "a.b", 3])
def test_module_refuses_a_name_that_is_not_an_identifier(bad):
    with pytest.raises(ValueError, match="is not a valid module name. Module names must be valid Python identifiers"):
        ds.Module(name=bad)


def test_module_name_scope_is_reentrant_and_restores_the_outer_scope():
    ds.clear_session()
    with ds.name_scope("outer"):
        m = ds.Module(name="inner")
    assert m.name_scope.name == "outer/inner/"
    scope = m.name_scope
    with ds.name_scope("elsewhere"):
        with scope as entered:
            assert entered == "outer/inner/"
            with scope:
                assert ds.Variable(1.0, name="deep").name == "outer/inner/deep:0"
            assert ds.Variable(1.0, name="v").name == "outer/inner/v:0"
        assert ds.Variable(1.0, name="after").name == "elsewhere/after:0"
    with pytest.raises(RuntimeError), m.name_scope:
        raise RuntimeError("inside")
    assert ds.Variable(1.0, name="top").name == "top:0"


# ---------------------------------------------------------------------------------------------- linspace
_LINSPACE = [
    ((0.0, 1.0, 5), {}),
    ((0, 1, 5), {}),
    ((np.float64(0.0), 1.0, 3), {}),
    (([0.0, 1.0], [1.0, 2.0], 3), {}),
    (([0.0, 1.0], [1.0, 2.0], 4), {"axis": 1}),
    (([[0.0], [1.0]], [1.0, 5.0, 9.0], 4), {"axis": -1}),
    ((0.0, 1.0, 1), {}),
    ((0.0, 1.0, 0), {}),
    ((0.0, 1.0, 2), {}),
    ((-3.5, 7.25, 11), {}),
    ((0.1, 0.7, 7), {}),
]


@pytest.mark.parametrize("args, kwargs", _LINSPACE)
def test_linspace_as_tensorflow(args, kwargs):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = ds.linspace(*args, **kwargs), tf.linspace(*args, **kwargs)
    assert ours.dtype == theirs.dtype.as_numpy_dtype and ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_linspace_by_hand_gradient_and_errors():
    np.testing.assert_array_equal(ds.linspace(0.0, 1.0, 5).numpy(), np.float32([0, 0.25, 0.5, 0.75, 1]))
    assert ds.linspace(0, 1, 3).dtype == np.float64
    start, stop = ds.Variable(np.float64(1.0)), ds.Variable(np.float64(3.0))
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(ds.linspace(start, stop, 5) * ds.constant(np.arange(5.0)))
    # value i is start + i/4 (stop - start): d/dstart = sum k (1 - k/4), d/dstop = sum k k/4
    g_start, g_stop = tape.gradient(y, [start, stop])
    k = np.arange(5.0)
    assert float(g_start) == pytest.approx(np.sum(k * (1 - k / 4)), rel=1e-12)
    assert float(g_stop) == pytest.approx(np.sum(k * k / 4), rel=1e-12)
    with pytest.raises(ValueError, match="`num` must be a non-negative int"):
        ds.linspace(0.0, 1.0, -1)
    with pytest.raises(ValueError, match="`num` must be a non-negative int"):
        ds.linspace(0.0, 1.0, 2.5)
    with pytest.raises(ValueError, match="`axis` must be an int in"):
        ds.linspace(0.0, 1.0, 3, axis=1)
    with pytest.raises(TypeError, match="one dtype"):
        ds.linspace(ds.constant(0.0), ds.constant(np.float64(1.0)), 3)


# ---------------------------------------------------------------------------------------------- Python lists
_BINARY_WITH_LISTS = [
    lambda tf: tf.maximum(0.0, [1, -1]),
    lambda tf: tf.minimum(0.0, [1, -1]),
    lambda tf: tf.maximum([1.0, -1], 0),
    lambda tf: tf.add([1.0, 2.0], [3, 4]),
    lambda tf: tf.subtract(1.0, [1, 2]),
    lambda tf: tf.multiply(2.0, [1, 2]),
    lambda tf: tf.pow(2.0, [1, 2]),
    lambda tf: tf.math.squared_difference(1.0, [2, 3]),
    lambda tf: tf.equal(1.0, [1, 2]),
    lambda tf: tf.less([1, 2], 2),
    lambda tf: tf.matmul([[1.0]], [[2]]),
    lambda tf: tf.minimum(np.float64(1.0), [1, 2]),
    lambda tf: tf.maximum(0.0, np.array([1, -1])),
    lambda tf: tf.maximum(tf.constant([1.0, 2.0]), [1, 2]),
    lambda tf: tf.where([True, False], 1.0, [2, 3]),
]


@pytest.mark.parametrize("program", _BINARY_WITH_LISTS)
def test_binary_ops_convert_python_values_as_tensorflow(program):
    """With no tensor among the operands, the first one's dtype decides and the others are converted to it."""
    tf = pytest.importorskip("tensorflow")
    ours, theirs = program(ds), program(tf)
    assert ours.dtype == theirs.dtype.as_numpy_dtype
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_binary_ops_with_lists_by_hand():
    got = ds.maximum(0.0, [1, -1])
    assert got.dtype == np.float32 and got.numpy().tolist() == [1.0, 0.0]
    with pytest.raises(TypeError, match=r"add: input 1: Cannot convert \[1.5, 2\] to a Tensor of dtype int32"):
        ds.add(1, [1.5, 2])  # TF refuses it too: the first value (an int) sets the dtype


# ---------------------------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("name", ["bool", "half", "double", "float16", "float32", "float64", "int8", "int16", "int32",
                                  "int64", "uint8", "uint16", "uint32", "uint64"])
def test_dtype_names_as_tensorflow(name):
    ours = getattr(ds, name)
    assert getattr(ds.dtypes, name) is ours
    tf = pytest.importorskip("tensorflow")
    theirs = getattr(tf, name)
    assert ours.name == theirs.name and ours == theirs.as_numpy_dtype and ours.as_numpy_dtype is theirs.as_numpy_dtype
    for flag in ("is_floating", "is_integer", "is_bool", "is_unsigned", "is_complex", "is_numpy_compatible"):
        assert getattr(ours, flag) == getattr(theirs, flag), flag
    assert ds.cast(ds.constant([1.0, 0.0]), ours).dtype == ours
    assert ds.constant([1, 0], dtype=ours).dtype == np.dtype(ours.name)


def test_bool_is_not_exported_by_star_imports():
    assert "bool" not in ds.__all__ and "bool" not in ds.dtypes.__all__
    assert ds.bool is ds.bool_ and isinstance(ds.DType, type) and ds.half is ds.float16
