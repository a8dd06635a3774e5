"""Keras' Operation classes over descend's keras.ops functions (descend/keras/operations, issue 37): each class
computes what its function computes, splits its arguments between __init__ and call as Keras' class does (checked
against Keras' classes where Keras is installed), round-trips its config, and refuses what it does not take."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from descend.keras import ops
from descend.keras import operations
from descend.keras.operations import Operation, operation_class
from descend.layers.keras_tensor import KerasTensor

RNG = np.random.default_rng(0)
X = RNG.uniform(0.1, 0.9, (2, 3)).astype(np.float32)
Y = RNG.uniform(0.1, 0.9, (2, 3)).astype(np.float32)
SPD = (np.eye(3) * 3 + 0.5).astype(np.float32)
IMAGES = RNG.uniform(0, 1, (2, 8, 8, 3)).astype(np.float32)

ALL = [(family, name, cls) for family, classes in operations.FAMILIES.items() for name, cls in classes.items()]


def _eq(a, b):
    if isinstance(a, (list, tuple)):
        assert isinstance(b, (list, tuple)) and len(a) == len(b)
        for u, v in zip(a, b):
            _eq(u, v)
        return
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# (class, __init__ args, __init__ kwargs, call args, the function's call that must give the same)
CASES = [
    (ops.image.Resize, ((4, 4),), {"interpolation": "nearest"}, (IMAGES,),
     lambda: ops.image.resize(IMAGES, (4, 4), interpolation="nearest")),
    (ops.image.RGBToGrayscale, (), {}, (IMAGES,), lambda: ops.image.rgb_to_grayscale(IMAGES)),
    (ops.image.ExtractPatches, (2,), {"strides": 2}, (IMAGES,), lambda: ops.image.extract_patches(IMAGES, 2, 2)),
    (ops.image.AffineTransform, (), {"interpolation": "nearest"},
     (IMAGES, np.array([[1, 0, 1, 0, 1, 1, 0, 0]], np.float32)),
     lambda: ops.image.affine_transform(IMAGES, np.array([[1, 0, 1, 0, 1, 1, 0, 0]], np.float32), "nearest")),
    (ops.image.SSIM, (), {"max_val": 1.0, "filter_size": 3}, (IMAGES, IMAGES[::-1]),
     lambda: ops.image.ssim(IMAGES, IMAGES[::-1], max_val=1.0, filter_size=3)),
    (ops.nn.Softmax, (), {"axis": 0}, (X,), lambda: ops.softmax(X, axis=0)),
    (ops.nn.Celu, (), {"alpha": 2.0}, (X - 0.5,), lambda: ops.celu(X - 0.5, alpha=2.0)),
    (ops.nn.OneHot, (4,), {}, (np.array([0, 3]),), lambda: ops.one_hot(np.array([0, 3]), 4)),
    (ops.nn.BinaryCrossentropy, (), {"from_logits": True}, (Y, X),
     lambda: ops.binary_crossentropy(Y, X, from_logits=True)),
    (ops.nn.MaxPool, (2,), {"strides": 1}, (IMAGES,), lambda: ops.max_pool(IMAGES, 2, strides=1)),
    (ops.nn.Conv, (), {"padding": "same"}, (IMAGES, np.ones((3, 3, 3, 2), np.float32)),
     lambda: ops.conv(IMAGES, np.ones((3, 3, 3, 2), np.float32), padding="same")),
    (ops.nn.Moments, ([0],), {}, (X,), lambda: ops.moments(X, [0])),
    (ops.linalg.Qr, (), {"mode": "complete"}, (SPD,), lambda: ops.qr(SPD, mode="complete")),
    (ops.linalg.Norm, (), {"ord": 1, "axis": 0}, (X,), lambda: ops.norm(X, ord=1, axis=0)),
    (ops.linalg.Solve, (), {}, (SPD, X.T), lambda: ops.solve(SPD, X.T)),
    (ops.linalg.Cholesky, (), {}, (SPD,), lambda: ops.cholesky(SPD)),
    (ops.Logsumexp, (), {"axis": 1, "keepdims": True}, (X,), lambda: ops.logsumexp(X, axis=1, keepdims=True)),
    (ops.TopK, (2,), {}, (X,), lambda: ops.top_k(X, 2)),
    (ops.SegmentSum, (), {"num_segments": 3}, (X[0], np.array([0, 0, 2])),
     lambda: ops.segment_sum(X[0], np.array([0, 0, 2]), num_segments=3)),
    (ops.Cast, ("float64",), {}, (X,), lambda: ops.cast(X, "float64")),
    (ops.Slice, ((1, 2),), {}, (X, (1, 0)), lambda: ops.slice(X, (1, 0), (1, 2))),
    (ops.Scan, (), {}, (lambda c, x: (c + x, c), np.float32(0), X[0]),
     lambda: ops.scan(lambda c, x: (c + x, c), np.float32(0), X[0])),
    (ops.ForiLoop, (0, 3, lambda i, v: v * 2), {}, (X,), lambda: ops.fori_loop(0, 3, lambda i, v: v * 2, X)),
    (ops.Unstack, (), {"axis": 1}, (X,), lambda: ops.unstack(X, axis=1)),
    (ops.numpy.Absolute, (), {}, (X - 0.5,), lambda: ops.absolute(X - 0.5)),
    (ops.numpy.Add, (), {}, (X, Y), lambda: ops.add(X, Y)),
    (ops.numpy.Einsum, ("ij,kj->ik",), {}, (X, Y), lambda: ops.einsum("ij,kj->ik", X, Y)),
    (ops.numpy.Meshgrid, (), {"indexing": "ij"}, (X[0], Y[0, :2]),
     lambda: ops.meshgrid(X[0], Y[0, :2], indexing="ij")),
    (ops.numpy.Pad, (((1, 1), (0, 2)),), {}, (X, 7.0), lambda: ops.pad(X, ((1, 1), (0, 2)), constant_values=7.0)),
    (ops.numpy.Full, ((2, 2),), {"dtype": "int32"}, (3,), lambda: ops.full((2, 2), 3, dtype="int32")),
    (ops.numpy.Isclose, (), {"equal_nan": True}, (X, Y, 0.5), lambda: ops.isclose(X, Y, 0.5, equal_nan=True)),
    (ops.numpy.Trapezoid, (), {"dx": 0.5}, (X,), lambda: ops.trapezoid(X, dx=0.5)),
    (ops.numpy.BitwiseAnd, (), {}, (np.array([6, 3]), np.array([3, 3])),
     lambda: ops.bitwise_and(np.array([6, 3]), np.array([3, 3]))),
    (ops.numpy.Sum, (), {"axis": 1}, (X,), lambda: ops.sum(X, axis=1)),
    (ops.numpy.Where, (), {}, (X > 0.5, X, Y), lambda: ops.where(X > 0.5, X, Y)),
]


@pytest.mark.parametrize("cls, init_args, init_kwargs, call_args, expected", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_class_computes_its_function(cls, init_args, init_kwargs, call_args, expected):
    op = cls(*init_args, **init_kwargs)
    assert isinstance(op, Operation)
    _eq(op(*call_args), expected())


def test_call_arguments_by_name_and_keras_names():
    # Keras' call names, including one that descend's function spells otherwise (BitwiseAnd's x/y: x1/x2)
    _eq(ops.numpy.BitwiseAnd()(x=np.array([6]), y=np.array([3])), np.array([2]))
    _eq(ops.image.Resize(size=(2, 2))(images=IMAGES), ops.image.resize(IMAGES, (2, 2)))


#: the classes of one tensor argument whose __init__ arguments all have defaults (the others are in CASES)
UNARY = [(f, n, c) for f, n, c in ALL if c.call_parameters == ("x",) and all(
    p.default is not inspect.Parameter.empty for p in inspect.signature(c.op_function).parameters.values()
    if p.name in c.init_parameters)]


@pytest.mark.parametrize("family, name, cls", UNARY, ids=[f"{f}.{n}" for f, n, _ in UNARY])
def test_unary_no_argument_classes_equal_their_function(family, name, cls):
    """Every class with no required __init__ argument and one tensor argument: the same result as its function."""
    try:
        expected = cls.op_function(X)
    except Exception as e:  # noqa: BLE001 - the class must then raise the same
        with pytest.raises(type(e)):
            cls()(X)
        return
    _eq(cls()(X), expected)


@pytest.mark.parametrize("family, name, cls", ALL, ids=[f"{f}.{n}" for f, n, _ in ALL])
def test_split_matches_keras_class(family, name, cls):
    """The __init__/call split of each class is Keras' (its class's signatures, read live)."""
    pytest.importorskip("keras")
    import importlib

    keras_cls = getattr(importlib.import_module(f"keras.src.ops.{family}"), name)
    init = tuple(p.name for p in inspect.signature(keras_cls.__init__).parameters.values()
                 if p.name not in ("self", "name") and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
    call = tuple(("*" if p.kind is p.VAR_POSITIONAL else "") + p.name
                 for p in inspect.signature(keras_cls.call).parameters.values()
                 if p.name != "self" and p.kind is not p.VAR_KEYWORD)
    dropped = {"ConvertToTensor": ("ragged",)}.get(name, ())  # Keras' arguments descend has no feature for
    assert cls.init_parameters == tuple(p for p in init if p not in dropped)
    assert cls.call_parameters == call


def test_every_table_row_is_made_or_listed():
    made = {n for _, n, _ in ALL}
    assert {f: set(v) for f, v in operations.NOT_MADE.items() if v} == {
        "linalg": {"Eig"}, "math": {"ViewAsComplex", "ViewAsReal"}, "nn": {"Polar"}}  # complex results
    assert len(made) == len(ALL)  # no class name in two families
    for family, name, cls in ALL:
        where = ops.image if family == "image" else ops
        assert getattr(where, name) is cls
        if family in ("linalg", "nn", "numpy"):
            assert getattr(getattr(ops, family), name) is cls
    assert not hasattr(ops, "Resize")  # keras.ops.image's classes are not in keras.ops itself, as its functions


CONFIG_CASES = [
    (ops.image.Resize, ((4, 5),), {"interpolation": "nearest", "name": "r"},
     {"name": "r", "size": (4, 5), "interpolation": "nearest", "antialias": False, "crop_to_aspect_ratio": False,
      "pad_to_aspect_ratio": False, "fill_mode": "constant", "fill_value": 0.0, "data_format": None}),
    (ops.nn.Softmax, (), {"axis": 0, "name": "s"}, {"name": "s", "axis": 0}),
    (ops.nn.Celu, (), {"name": "c"}, {"name": "c"}),  # alpha goes to celu's **kwargs: no default to show
    (ops.numpy.Sum, (1,), {"name": "t"}, {"name": "t", "axis": 1, "keepdims": False}),
    (ops.numpy.Absolute, (), {"name": "a"}, {"name": "a"}),
]


@pytest.mark.parametrize("cls, args, kwargs, config", CONFIG_CASES, ids=[c[0].__name__ for c in CONFIG_CASES])
def test_get_config_round_trip(cls, args, kwargs, config):
    op = cls(*args, **kwargs)
    assert op.get_config() == config
    assert all(getattr(op, k) == v for k, v in config.items())  # Keras' classes keep them as attributes
    again = cls.from_config(op.get_config())
    assert type(again) is cls and again.get_config() == config


def test_automatic_names():
    a, b = ops.numpy.Negative(), ops.numpy.Negative()
    assert a.name.startswith("negative") and b.name.startswith("negative") and a.name != b.name
    assert ops.image.RGBToHSV().name.startswith("rgb_to_hsv")  # Keras' snake case
    assert ops.numpy.Log10().name.startswith("log10") and ops.nn.HardSilu().name.startswith("hard_silu")


def test_errors():
    with pytest.raises(TypeError, match=r"Softmax\(\) got an unexpected keyword argument 'axes'"):
        ops.nn.Softmax(axes=1)
    with pytest.raises(TypeError, match=r"Softmax\(\) takes at most 1 positional"):
        ops.nn.Softmax(1, 2)
    with pytest.raises(TypeError, match=r"Resize\(\) missing required argument\(s\) \['size'\]"):
        ops.image.Resize()
    with pytest.raises(TypeError, match=r"multiple values for argument 'axis'"):
        ops.nn.Softmax(0, axis=1)
    with pytest.raises(ValueError, match="without the character '/'.*Received: name='a/b'"):
        ops.nn.Softmax(name="a/b")
    with pytest.raises(TypeError, match=r"Softmax.call\(\) got an unexpected or repeated argument 'axis'.*"
                                        r"go to __init__"):
        ops.nn.Softmax()(X, axis=0)  # an __init__ argument given to call
    with pytest.raises(TypeError, match=r"Sum.call\(\) takes at most 1 positional"):
        ops.numpy.Sum()(X, 1)
    with pytest.raises(TypeError, match=r"Foo: sum\(\) has no parameter \['axes'\]"):
        operation_class("Foo", ops.sum, ("axes",), ("x",), module=__name__)
    with pytest.raises(NotImplementedError, match="defines no call"):
        Operation()(X)


def test_compute_output_spec():
    out = ops.nn.Softmax()(KerasTensor((None, 3)))
    assert isinstance(out, KerasTensor) and out.shape == (None, 3) and out.dtype.name == "float32"
    out = ops.Slice((2, 2))(KerasTensor((None, 5)), (0, 0))
    assert out.shape == (2, 2)
    out = ops.image.Resize((4, 4))(KerasTensor((None, 8, None, 3)))
    assert out.shape == (None, 4, 4, 3)
    q, r = ops.linalg.Qr()(KerasTensor((4, 3)))
    assert (q.shape, r.shape) == ((4, 3), (3, 3))
    cast = ops.Cast("int32")(KerasTensor((2,)))
    assert cast.dtype.name == "int32"
    # a loop's output has its state's spec (its body never runs: this cond never ends)
    loop = ops.WhileLoop(lambda x: True, lambda x: (x,))
    out = loop.compute_output_spec((KerasTensor((10,)), KerasTensor((3, 7), "int32")))
    assert [(k.shape, k.dtype.name) for k in out] == [((10,), "float32"), ((3, 7), "int32")]
    assert ops.ForiLoop(0, 3, lambda i, v: v)(KerasTensor((None, 2))).shape == (None, 2)
    with pytest.raises(NotImplementedError, match="Nonzero.compute_output_spec: the output's shape depends"):
        ops.numpy.Nonzero()(KerasTensor((3,)))
    with pytest.raises(NotImplementedError, match="Cholesky.compute_output_spec: .*failed on them"):
        ops.linalg.Cholesky()(KerasTensor((3, 3)))  # zeros are not positive definite
