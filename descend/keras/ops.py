"""``descend.keras.ops``: Keras 3's backend-agnostic ops (``keras.ops``) on descend's ops.

Keras 3 code (and its test suites) build tensors with ``keras.ops``: NumPy's
names and argument order (``sum(x, axis)``, ``concatenate(xs, axis)``,
``clip(x, x_min, x_max)``) and Keras' dtype rules: Python floats and float
lists become ``floatx()`` tensors, operands of different dtypes are promoted
(an int tensor times a float tensor is a float tensor; a Python number takes
the tensor's dtype) where descend's own ops, as TensorFlow's, insist on one
dtype. Every function here is a thin call of descend's op of the same meaning,
so the tape differentiates through it.

Example:
    >>> import descend as ds
    >>> from descend.keras import ops
    >>> x = ops.array([1.0, 6.0, 7.0, 2.0])
    >>> ops.dtype(x), float(ops.sum(x)), ops.dtype(ops.arange(3))
    ('float32', 16.0, 'int32')
    >>> ops.add(ops.arange(3), 0.5).numpy()
    array([0.5, 1.5, 2.5], dtype=float32)
    >>> ops.convert_to_numpy(ops.clip(ops.array([-2.0, 0.5, 3.0]), -1.0, 1.0))
    array([-1. ,  0.5,  1. ], dtype=float32)
"""

from __future__ import annotations

import builtins

import numpy as np

from .. import activations as _activations
from .. import backend as _backend
from .. import linalg as _linalg
from .. import nn as _nn
from .. import ops as _o
from ..framework import Tensor, Variable
from ..framework import convert_to_tensor as _to_tensor

__all__ = [
    "abs", "absolute", "add", "all", "any", "arange", "argmax", "argmin", "array", "broadcast_to", "cast", "ceil",
    "clip", "concatenate", "convert_to_numpy", "convert_to_tensor", "cos", "cumsum", "divide", "dot", "dtype",
    "einsum", "equal", "exp", "expand_dims", "expm1", "eye", "floor", "full", "full_like", "greater",
    "greater_equal", "is_tensor", "isfinite", "isinf", "isnan", "less", "less_equal", "log", "log1p",
    "log_softmax", "logical_and", "logical_not", "logical_or", "matmul", "max", "maximum", "mean", "min",
    "minimum", "multiply", "ndim", "negative", "norm", "not_equal", "one_hot", "ones", "ones_like", "power",
    "prod", "relu", "reshape", "round", "shape", "sigmoid", "sign", "sin", "size", "softmax", "sqrt", "square",
    "squeeze", "stack", "std", "stop_gradient", "subtract", "sum", "take", "tanh", "tile", "transpose",
    "true_divide", "var", "where", "zeros", "zeros_like",
]

_FLOAT_ORDER = ("float16", "float32", "float64")


# ---------------------------------------------------------------------------------------------- dtypes
def _weak(x) -> bool:
    """A Python number (or bool): it takes the dtype of the tensors it meets, as in Keras 3."""
    return isinstance(x, (bool, int, float)) and not isinstance(x, np.generic)


def _dtype_of(x) -> np.dtype:
    if isinstance(x, (Tensor, Variable)):
        return x._value.dtype
    return _to_tensor(x)._value.dtype


def _result_dtype(*xs) -> np.dtype:
    """Keras 3's promotion for the operands ``xs``: floats win over ints and bools (the widest float
    tensor, else ``floatx()`` for a Python float), ints promote as NumPy's, Python numbers are weak."""
    strong = [_dtype_of(x) for x in xs if not _weak(x)]
    weak = [x for x in xs if _weak(x)]
    floats = [d for d in strong if d.kind == "f"]
    if floats:
        return builtins.max(floats, key=lambda d: d.itemsize)
    if builtins.any(isinstance(x, float) for x in weak):
        return np.dtype(_backend.floatx())
    ints = [d for d in strong if d.kind in "iu"]
    if ints:
        out = ints[0]
        for d in ints[1:]:
            out = np.promote_types(out, d)
        return out
    if builtins.any(isinstance(x, int) and not isinstance(x, bool) for x in weak):
        return np.dtype("int32")
    return np.dtype(bool)


def _promote(*xs) -> list:
    """``xs`` as tensors of their Keras 3 result dtype."""
    dtype = _result_dtype(*xs)
    out = []
    for x in xs:
        if _weak(x):
            out.append(_to_tensor(x, dtype))
            continue
        x = x if isinstance(x, (Tensor, Variable)) else _to_tensor(x)
        out.append(x if x._value.dtype == dtype else _o.cast(x, dtype))
    return out


def _floating(x):
    """``x`` as a float tensor: ints and bools become ``floatx()`` (Keras' rule for sqrt, exp, mean...)."""
    x = convert_to_tensor(x)
    return x if x._value.dtype.kind == "f" else _o.cast(x, _backend.floatx())


def _binary(op):
    def fn(x1, x2):
        return op(*_promote(x1, x2))

    fn.__name__ = op.__name__
    fn.__doc__ = f"``{op.__name__}`` of ``x1`` and ``x2`` after Keras' dtype promotion."
    return fn


# ---------------------------------------------------------------------------------------------- creation
def convert_to_tensor(x, dtype=None, sparse=None):
    """``x`` as a Tensor (Python floats as ``floatx()``, ints as int32, NumPy arrays keep their dtype)."""
    if sparse:
        raise ValueError("descend.keras.ops.convert_to_tensor: `sparse=True` is not supported (dense tensors only). "
                         f"Received: sparse={sparse!r}")
    if isinstance(x, (Tensor, Variable)) and dtype is not None and x.dtype != _backend.np_dtype(dtype):
        return _o.cast(x, dtype)
    if isinstance(x, Variable):
        return x.value() if callable(getattr(x, "value", None)) else _to_tensor(x)
    return _to_tensor(x, dtype)


def array(x, dtype=None):
    """``convert_to_tensor(x, dtype)`` (Keras 3's name)."""
    return convert_to_tensor(x, dtype)


def convert_to_numpy(x) -> np.ndarray:
    """``x`` as a NumPy array."""
    if isinstance(x, (Tensor, Variable)):
        return np.array(x.numpy())
    return np.asarray(x)


def is_tensor(x) -> bool:
    """Whether ``x`` is a descend Tensor (a Variable is not, as in Keras 3)."""
    return isinstance(x, Tensor)


def zeros(shape, dtype=None):
    """A tensor of zeros (``floatx()`` unless ``dtype``)."""
    return _o.zeros(shape, dtype=dtype or _backend.floatx())


def ones(shape, dtype=None):
    """A tensor of ones (``floatx()`` unless ``dtype``)."""
    return _o.ones(shape, dtype=dtype or _backend.floatx())


def full(shape, fill_value, dtype=None):
    """A tensor of ``shape`` filled with ``fill_value`` (``floatx()`` unless ``dtype``)."""
    return _o.broadcast_to(convert_to_tensor(fill_value, dtype or _backend.floatx()), shape)


def zeros_like(x, dtype=None):
    """Zeros of ``x``'s shape (and dtype unless ``dtype``)."""
    return _o.zeros_like(convert_to_tensor(x), dtype=dtype)


def ones_like(x, dtype=None):
    """Ones of ``x``'s shape (and dtype unless ``dtype``)."""
    return _o.ones_like(convert_to_tensor(x), dtype=dtype)


def full_like(x, fill_value, dtype=None):
    """``fill_value`` in ``x``'s shape (and dtype unless ``dtype``; a fraction cast to an int dtype truncates, as
    Keras)."""
    x = convert_to_tensor(x)
    return _o.broadcast_to(cast(fill_value, dtype or x.dtype), tuple(x.shape))


def arange(start, stop=None, step=None, dtype=None):
    """``start, start + step, ...`` below ``stop``; int32 for int arguments, ``floatx()`` with a float."""
    if dtype is None:
        dtype = _result_dtype(*[a for a in (start, stop, step) if a is not None])
    return _o.range(start, stop, 1 if step is None else step, dtype=dtype)


def eye(N, M=None, k=0, dtype=None):  # noqa: N803 - Keras' names
    """The ``N x M`` matrix with ones on the ``k``-th diagonal (``floatx()`` unless ``dtype``)."""
    if k == 0:
        return _linalg.eye(N, M, dtype=dtype or _backend.floatx())
    return convert_to_tensor(np.eye(N, M, k, dtype=_backend.np_dtype(dtype or _backend.floatx())))


# ---------------------------------------------------------------------------------------------- elementwise
add = _binary(_o.add)
subtract = _binary(_o.subtract)
multiply = _binary(_o.multiply)
maximum = _binary(_o.maximum)
minimum = _binary(_o.minimum)
equal = _binary(_o.equal)
not_equal = _binary(_o.not_equal)
greater = _binary(_o.greater)
greater_equal = _binary(_o.greater_equal)
less = _binary(_o.less)
less_equal = _binary(_o.less_equal)


def divide(x1, x2):
    """``x1 / x2``, a float result (ints divide as ``floatx()``)."""
    x1, x2 = _promote(x1, x2)
    if x1._value.dtype.kind != "f":
        x1, x2 = _o.cast(x1, _backend.floatx()), _o.cast(x2, _backend.floatx())
    return _o.divide(x1, x2)


true_divide = divide


def power(x1, x2):
    """``x1 ** x2`` after Keras' dtype promotion."""
    return _o.pow(*_promote(x1, x2))


def logical_and(x1, x2):
    """Elementwise ``x1 and x2`` (bool)."""
    return _o.logical_and(cast(x1, "bool"), cast(x2, "bool"))


def logical_or(x1, x2):
    """Elementwise ``x1 or x2`` (bool)."""
    return _o.logical_or(cast(x1, "bool"), cast(x2, "bool"))


def logical_not(x):
    """Elementwise ``not x`` (bool)."""
    return _o.logical_not(cast(x, "bool"))


def negative(x):
    """``-x``."""
    return _o.negative(convert_to_tensor(x))


def abs(x):  # noqa: A001 - Keras' name
    """``|x|``."""
    return _o.abs(convert_to_tensor(x))


absolute = abs


def sign(x):
    """-1, 0 or 1."""
    return _o.sign(convert_to_tensor(x))


def square(x):
    """``x * x`` (a bool squares as int32, as Keras)."""
    x = convert_to_tensor(x)
    return _o.square(_o.cast(x, "int32") if x._value.dtype == np.bool_ else x)


def _float_unary(op, doc):
    def fn(x):
        return op(_floating(x))

    fn.__name__ = op.__name__
    fn.__doc__ = doc
    return fn


sqrt = _float_unary(_o.sqrt, "Square root (ints as ``floatx()``).")
exp = _float_unary(_o.exp, "``e ** x`` (ints as ``floatx()``).")
expm1 = _float_unary(_o.expm1, "``e ** x - 1`` (ints as ``floatx()``).")
log = _float_unary(_o.log, "Natural logarithm (ints as ``floatx()``).")
log1p = _float_unary(_o.log1p, "``log(1 + x)`` (ints as ``floatx()``).")
sin = _float_unary(_o.sin, "Sine (ints as ``floatx()``).")
cos = _float_unary(_o.cos, "Cosine (ints as ``floatx()``).")
tanh = _float_unary(_o.tanh, "Hyperbolic tangent (ints as ``floatx()``).")


floor = _float_unary(_o.floor, "Largest integer not above ``x`` (ints and bools as ``floatx()``, as Keras).")
ceil = _float_unary(_o.ceil, "Smallest integer not below ``x`` (ints and bools as ``floatx()``, as Keras).")


def round(x, decimals=0):  # noqa: A001 - Keras' name
    """``x`` rounded to ``decimals`` places, halves to even (as NumPy)."""
    x = convert_to_tensor(x)
    if decimals == 0 or x._value.dtype.kind != "f":
        return _o.round(x)
    scale = x._value.dtype.type(10.0 ** decimals)
    return _o.divide(_o.round(_o.multiply(x, scale)), scale)


def _float_test(op, doc):
    def fn(x):
        x = convert_to_tensor(x)
        if x._value.dtype.kind != "f":  # an int or bool is finite and never NaN or Inf
            return _o.fill(tuple(x.shape), op is _o.is_finite, dtype="bool")
        return op(x)

    fn.__name__ = op.__name__
    fn.__doc__ = doc
    return fn


isnan = _float_test(_o.is_nan, "Whether ``x`` is NaN (bool).")
isinf = _float_test(_o.is_inf, "Whether ``x`` is +Inf or -Inf (bool).")
isfinite = _float_test(_o.is_finite, "Whether ``x`` is neither NaN nor Inf (bool).")


def clip(x, x_min, x_max):
    """``x`` limited to ``[x_min, x_max]`` (a bool clips as int32)."""
    x = convert_to_tensor(x)
    if x._value.dtype == np.bool_:
        x = _o.cast(x, "int32")
    bounds = [_o.cast(b, x.dtype) if isinstance(b, (Tensor, Variable)) else b for b in (x_min, x_max)]
    return _o.clip_by_value(x, *bounds)


def where(condition, x1=None, x2=None):
    """``x1`` where ``condition``, else ``x2``; with neither, the indices of the true elements per axis."""
    condition = cast(condition, "bool")
    if x1 is None and x2 is None:
        return tuple(convert_to_tensor(i.astype(np.int32)) for i in np.nonzero(condition.numpy()))
    if x1 is None or x2 is None:
        raise ValueError("`x1` and `x2` must be given together or not at all. "
                         f"Received: x1={'None' if x1 is None else 'a value'}, x2={'None' if x2 is None else 'a value'}")
    return _o.where(condition, *_promote(x1, x2))


def cast(x, dtype):
    """``x`` as ``dtype``."""
    return _o.cast(convert_to_tensor(x), dtype)


def stop_gradient(variable):
    """``variable``'s value, with no gradient flowing back through it."""
    return _o.stop_gradient(convert_to_tensor(variable))


# ---------------------------------------------------------------------------------------------- reductions
def _axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


def _widened(x):
    """``x`` with bool, int8 and int16 as int32 and uint8, uint16 as uint32: the dtypes Keras sums and
    multiplies in."""
    x = convert_to_tensor(x)
    if x._value.dtype in (np.bool_, np.int8, np.int16):
        return _o.cast(x, "int32")
    if x._value.dtype in (np.uint8, np.uint16):
        return _o.cast(x, "uint32")
    return x


def sum(x, axis=None, keepdims=False):  # noqa: A001 - Keras' name
    """Sum over ``axis`` (bool, int8 and int16 sum as int32, as Keras)."""
    return _o.reduce_sum(_widened(x), axis=_axis(axis), keepdims=keepdims)


def mean(x, axis=None, keepdims=False):
    """Mean over ``axis`` (ints average as ``floatx()``)."""
    return _o.reduce_mean(_floating(x), axis=_axis(axis), keepdims=keepdims)


def var(x, axis=None, keepdims=False):
    """Population variance over ``axis``."""
    x = _floating(x)
    m = _o.reduce_mean(x, axis=_axis(axis), keepdims=True)
    return _o.reduce_mean(_o.squared_difference(x, m), axis=_axis(axis), keepdims=keepdims)


def std(x, axis=None, keepdims=False):
    """Population standard deviation over ``axis``."""
    return _o.sqrt(var(x, axis=axis, keepdims=keepdims))


def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001 - Keras' name
    """Largest value over ``axis`` (at least ``initial`` when given)."""
    out = _o.reduce_max(convert_to_tensor(x), axis=_axis(axis), keepdims=keepdims)
    return out if initial is None else maximum(out, initial)


def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001 - Keras' name
    """Smallest value over ``axis`` (at most ``initial`` when given)."""
    out = _o.reduce_min(convert_to_tensor(x), axis=_axis(axis), keepdims=keepdims)
    return out if initial is None else minimum(out, initial)


def prod(x, axis=None, keepdims=False, dtype=None):
    """Product over ``axis`` (bool, int8 and int16 multiply as int32, as Keras)."""
    x = _widened(x) if dtype is None else cast(x, dtype)
    return _o.reduce_prod(x, axis=_axis(axis), keepdims=keepdims)


def all(x, axis=None, keepdims=False):  # noqa: A001 - Keras' name
    """Whether every element over ``axis`` is true."""
    return _o.equal(_o.reduce_min(_o.cast(cast(x, "bool"), "int32"), axis=_axis(axis), keepdims=keepdims), 1)


def any(x, axis=None, keepdims=False):  # noqa: A001 - Keras' name
    """Whether some element over ``axis`` is true."""
    return _o.equal(_o.reduce_max(_o.cast(cast(x, "bool"), "int32"), axis=_axis(axis), keepdims=keepdims), 1)


def _arg(op, x, axis, keepdims):
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = _o.reshape(x, (-1,)), 0
    out = op(x, axis=axis, output_type="int32")
    if out._value.dtype != np.int32:  # a 0-d result comes back as the platform int
        out = _o.cast(out, "int32")
    return _o.expand_dims(out, axis) if keepdims else out


def argmax(x, axis=None, keepdims=False):
    """Index of the largest value along ``axis`` (of the flattened ``x`` when None), int32."""
    return _arg(_o.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    """Index of the smallest value along ``axis`` (of the flattened ``x`` when None), int32."""
    return _arg(_o.argmin, x, axis, keepdims)


def cumsum(x, axis=None, dtype=None):
    """Running sum along ``axis`` (of the flattened ``x`` when None; a bool sums as int32, as Keras)."""
    x = convert_to_tensor(x) if dtype is None else cast(x, dtype)
    if x._value.dtype == np.bool_:
        x = _o.cast(x, "int32")
    if axis is None:
        x, axis = _o.reshape(x, (-1,)), 0
    return _o.cumsum(x, axis=axis)


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 - Keras' name
    """The vector or matrix norm: 2-norm / Frobenius by default; for vectors ``ord`` 1, 2, inf or p."""
    x = _floating(x)
    if ord is None or ord in ("fro", 2) and (axis is None or isinstance(axis, int) or x.ndim == 1):
        return _o.norm(x, ord="euclidean", axis=_axis(axis), keepdims=keepdims)
    if isinstance(ord, str) or (isinstance(axis, (tuple, list)) and len(axis) == 2):
        raise ValueError(f"norm: `ord` must be None, 'fro' or a number for a vector norm. Received: ord={ord!r}, "
                         f"axis={axis!r}")
    a = _o.abs(x)
    if ord == np.inf:
        return _o.reduce_max(a, axis=_axis(axis), keepdims=keepdims)
    if ord == -np.inf:
        return _o.reduce_min(a, axis=_axis(axis), keepdims=keepdims)
    if ord == 0:
        return _o.reduce_sum(_o.cast(_o.not_equal(x, 0.0), x.dtype), axis=_axis(axis), keepdims=keepdims)
    p = x._value.dtype.type(ord)
    return _o.pow(_o.reduce_sum(_o.pow(a, p), axis=_axis(axis), keepdims=keepdims), x._value.dtype.type(1.0) / p)


# ---------------------------------------------------------------------------------------------- shapes
def shape(x) -> tuple:
    """The static shape of ``x`` as a tuple of ints."""
    return tuple(convert_to_tensor(x).shape)


def ndim(x) -> int:
    """The rank of ``x``."""
    return len(shape(x))


def size(x) -> int:
    """The number of elements of ``x``."""
    return int(np.prod(shape(x), dtype=np.int64))


def dtype(x) -> str:
    """The dtype name of ``x`` (``"float32"``...)."""
    return np.dtype(_dtype_of(x)).name


def reshape(x, newshape):
    """``x`` in ``newshape`` (one entry may be -1)."""
    return _o.reshape(convert_to_tensor(x), newshape)


def transpose(x, axes=None):
    """``x`` with its axes permuted (reversed by default)."""
    return _o.transpose(convert_to_tensor(x), perm=axes)


def expand_dims(x, axis):
    """``x`` with a new axis of size 1 at ``axis``."""
    return _o.expand_dims(convert_to_tensor(x), axis)


def squeeze(x, axis=None):
    """``x`` without its size-1 axes (those in ``axis`` when given)."""
    return _o.squeeze(convert_to_tensor(x), axis=axis)


def broadcast_to(x, shape):  # noqa: F811 - Keras' argument name
    """``x`` broadcast to ``shape``."""
    return _o.broadcast_to(convert_to_tensor(x), tuple(shape))


def tile(x, repeats):
    """``x`` repeated ``repeats`` times along each axis (a shorter ``repeats`` pads with 1s in front)."""
    x = convert_to_tensor(x)
    repeats = [repeats] if isinstance(repeats, int) else list(repeats)
    if len(repeats) > x.ndim:
        x = _o.reshape(x, (1,) * (len(repeats) - x.ndim) + tuple(x.shape))
    repeats = [1] * (x.ndim - len(repeats)) + repeats
    return _o.tile(x, repeats)


def concatenate(xs, axis=0):
    """``xs`` joined along ``axis`` (promoted to one dtype)."""
    return _o.concat(_promote(*xs), axis=axis)


def stack(x, axis=0):
    """The tensors ``x`` stacked along a new ``axis`` (promoted to one dtype)."""
    return _o.stack(_promote(*x), axis=axis)


def take(x, indices, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (of the flattened ``x`` when None)."""
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = _o.reshape(x, (-1,)), 0
    indices = convert_to_tensor(indices)
    if indices._value.dtype.kind not in "iu":
        indices = _o.cast(indices, "int32")
    return _o.gather(x, indices, axis=axis)


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    """One-hot rows of the class ids ``x`` (``floatx()`` unless ``dtype``); float or bool ids are cast to int32
    first (a fraction truncates toward zero), as Keras."""
    if sparse:
        raise ValueError(f"one_hot: `sparse=True` is not supported (dense tensors only). Received: sparse={sparse!r}")
    x = convert_to_tensor(x)
    if x._value.dtype.kind not in "iu":
        x = _o.cast(x, "int32")
    return _o.one_hot(x, num_classes, axis=axis, dtype=dtype or _backend.floatx())


# ---------------------------------------------------------------------------------------------- linear algebra
def matmul(x1, x2):
    """Matrix product after Keras' dtype promotion (int8 by int8 gives int32, as Keras)."""
    both_int8 = _dtype_of(x1) == np.int8 and _dtype_of(x2) == np.int8
    x1, x2 = _promote(x1, x2)
    if both_int8:
        x1, x2 = _o.cast(x1, "int32"), _o.cast(x2, "int32")
    return _o.matmul(x1, x2)


def dot(x1, x2):
    """NumPy's ``dot``: the matrix product for 1-D and 2-D operands, a scalar product for scalars."""
    x1, x2 = _promote(x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        return _o.multiply(x1, x2)
    if x1.ndim == 1 and x2.ndim == 1:
        return _o.reduce_sum(_o.multiply(x1, x2))
    if x2.ndim == 1:
        return _o.squeeze(_o.matmul(x1, _o.expand_dims(x2, -1)), axis=-1)
    if x1.ndim == 1:
        return _o.squeeze(_o.matmul(_o.expand_dims(x1, 0), x2), axis=-2)
    if x2.ndim == 2:
        return _o.matmul(x1, x2)
    raise ValueError(f"dot: an operand of rank above 2 must be `x1` with a 2-D `x2`. Received: ranks {x1.ndim} and "
                     f"{x2.ndim} (use einsum or matmul)")


def einsum(subscripts, *operands):
    """Einstein summation (``matmul``'s generalisation) after Keras' dtype promotion."""
    return _o.einsum(subscripts, *_promote(*operands))


# ---------------------------------------------------------------------------------------------- nn
def relu(x):
    """``max(x, 0)``."""
    return _nn.relu(convert_to_tensor(x))


def sigmoid(x):
    """``1 / (1 + exp(-x))`` (a cross-entropy of the result works from ``x``, as Keras')."""
    x = _floating(x)
    return _activations.remember_logits(_nn.sigmoid(x), x, "sigmoid")


def softmax(x, axis=-1):
    """Softmax over ``axis`` (a cross-entropy of the result works from ``x``, as Keras')."""
    x = _floating(x)
    return _activations.remember_logits(_nn.softmax(x, axis=axis), x, "softmax", axis)


def log_softmax(x, axis=-1):
    """Log-softmax over ``axis``."""
    return _nn.log_softmax(_floating(x), axis=axis)
