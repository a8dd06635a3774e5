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
import sys
import warnings

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


def _floating_pair(x1, x2) -> list:
    """``x1`` and ``x2`` promoted together (Keras' ``result_type(x1.dtype, x2.dtype, float)``): a float operand's
    dtype wins (float16 with an int stays float16); ints and bools together become ``floatx()``."""
    return [_floating(x) for x in _promote(x1, x2)]


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


def _int_size(fn, name, v):
    if v is None:
        return None
    if isinstance(v, (Tensor, Variable)):
        if v.ndim != 0 or v._value.dtype.kind not in "iu":
            raise TypeError(f"{fn}: `{name}` must be an int; received a tensor of dtype {v._value.dtype.name} and "
                            f"shape {tuple(v.shape)}")
        return int(v._value)
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise TypeError(f"{fn}: `{name}` must be an int; received {v!r} of type {type(v).__name__}")
    return int(v)


def eye(N, M=None, k=0, dtype=None):  # noqa: N803 - Keras' names
    """The ``N x M`` matrix with ones on the ``k``-th diagonal (``floatx()`` unless ``dtype``); ``N`` and ``M`` are
    ints (Python or NumPy ints, or int scalar tensors): a float is a TypeError, as in Keras."""
    N, M = (_int_size("eye", name, v) for name, v in (("N", N), ("M", M)))
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
    rank = x.ndim
    if axis is None:
        x, axis = _o.reshape(x, (-1,)), 0
    out = op(x, axis=axis, output_type="int32")
    if out._value.dtype != np.int32:  # a 0-d result comes back as the platform int
        out = _o.cast(out, "int32")
    if keepdims and x.ndim == 1 and rank != 1:  # axis None: every axis kept as 1 (NumPy's keepdims)
        return _o.reshape(out, (1,) * rank)
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
    """The vector or matrix norm, as ``np.linalg.norm`` and Keras' ``ops.norm``.

    ``axis`` an int (or a 1-D ``x`` with ``axis=None``): the vector norm of order ``ord`` (None or 2: Euclidean;
    inf, -inf; 0: the count of non-zeros; any other number p: ``sum(|x|^p)^(1/p)``). ``axis`` a pair (or a 2-D
    ``x`` with ``axis=None``): the matrix norm (None or ``'fro'``: Frobenius; ``'nuc'``: the sum of the singular
    values; 2, -2: the largest, smallest singular value; 1, -1: the largest, smallest column sum of ``|x|``;
    inf, -inf: the largest, smallest row sum). ``ord=None, axis=None`` on any rank: the Euclidean norm of all
    elements. Ints and bools compute in ``floatx()``. Raises ValueError for an axis outside
    ``x``'s rank, a string ``ord`` of a vector norm, or a matrix ``ord`` other than those above."""
    x = _floating(x)
    if isinstance(ord, str) and ord not in ("fro", "nuc"):
        raise ValueError(f"norm: a string `ord` must be 'fro' or 'nuc'. Received: ord={ord!r}")
    if axis is None:
        if ord is None:
            return _o.norm(x, ord="euclidean", axis=None, keepdims=keepdims)
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    if builtins.any(not -x.ndim <= a < x.ndim for a in axes):
        raise ValueError(f"norm: every `axis` must be in [-ndim, ndim) for an input of rank {x.ndim}. "
                         f"Received: axis={axis!r}")
    axes = tuple(int(a) % x.ndim for a in axes)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2 and axes[0] != axes[1]:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError(f"norm: `axis` must be an int or a pair of distinct axes. Received: axis={axis!r}")


def _vector_norm(x, ord, axis, keepdims):  # noqa: A002
    if isinstance(ord, str):
        raise ValueError(f"norm: `ord` must be None or a number for a vector norm. Received: ord={ord!r}")
    if ord is None or ord == 2:
        return _o.norm(x, ord="euclidean", axis=axis, keepdims=keepdims)
    a = _o.abs(x)
    if ord == np.inf:
        return _o.reduce_max(a, axis=axis, keepdims=keepdims)
    if ord == -np.inf:
        return _o.reduce_min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return _o.reduce_sum(_o.cast(_o.not_equal(x, 0.0), x.dtype), axis=axis, keepdims=keepdims)
    p = x._value.dtype.type(ord)
    return _o.pow(_o.reduce_sum(_o.pow(a, p), axis=axis, keepdims=keepdims), x._value.dtype.type(1.0) / p)


def _matrix_norm(x, ord, axes, keepdims):  # noqa: A002
    rows, cols = axes
    if ord is None or ord == "fro":
        return _o.norm(x, ord="euclidean", axis=axes, keepdims=keepdims)
    if ord in (1, -1, np.inf, -np.inf):
        # 1/-1: the sums run down each column (over the row axis), then the extreme over the column axis; inf/-inf
        # the other way round
        summed, across = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = _o.reduce_sum(_o.abs(x), axis=summed, keepdims=True)
        extreme = _o.reduce_max if ord > 0 else _o.reduce_min
        out = extreme(sums, axis=across, keepdims=True)
    elif ord in ("nuc", 2, -2):
        rest = [a for a in range(x.ndim) if a not in axes]
        s = _linalg.svd(_o.transpose(x, perm=(*rest, rows, cols)), compute_uv=False)
        out = {"nuc": _o.reduce_sum, 2: _o.reduce_max, -2: _o.reduce_min}[ord](s, axis=-1)
        for a in sorted(axes):
            out = _o.expand_dims(out, a)
    else:
        raise ValueError(f"norm: `ord` must be None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf for a matrix norm. "
                         f"Received: ord={ord!r}")
    return out if keepdims else _o.squeeze(out, axis=list(axes))


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
    """``x`` in ``newshape`` (one entry may be -1; Keras' refusals of any other negative entry, or of two -1)."""
    dims = [newshape] if isinstance(newshape, (int, np.integer)) else newshape
    if not isinstance(dims, (Tensor, Variable, np.ndarray)):
        dims = [d for d in dims if isinstance(d, (int, np.integer))]
        if builtins.any(d < -1 for d in dims):
            raise ValueError("reshape: Each dimension in `newshape` must be a non-negative integer, or `-1` for a "
                             f"single unknown dimension. Received: newshape={newshape}.")
        if builtins.sum(d == -1 for d in dims) > 1:
            raise ValueError("reshape: There must be at most one unknown dimension (-1) in `newshape`. Received: "
                             f"newshape={newshape}.")
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
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"matmul: the operands must not be scalars (use multiply). Received shapes {tuple(x1.shape)} "
                         f"and {tuple(x2.shape)}")
    if x1.ndim == 1 or x2.ndim == 1:  # NumPy's rule: a vector is a row (x1) or a column (x2), dropped after
        a = _o.expand_dims(x1, 0) if x1.ndim == 1 else x1
        b = _o.expand_dims(x2, -1) if x2.ndim == 1 else x2
        out = _o.matmul(a, b)
        if x2.ndim == 1:
            out = _o.squeeze(out, axis=-1)
        return _o.squeeze(out, axis=-1 if x2.ndim == 1 else -2) if x1.ndim == 1 else out
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
    """Einstein summation (``matmul``'s generalisation) after Keras' dtype promotion (int8 operands only: int32,
    as ``matmul``)."""
    all_int8 = builtins.all(_dtype_of(x) == np.int8 for x in operands)
    operands = _promote(*operands)
    if all_int8:
        operands = [_o.cast(x, "int32") for x in operands]
    return _o.einsum(subscripts, *operands)


# ---------------------------------------------------------------------------------------------- nn
def relu(x):
    """``max(x, 0)``."""
    return _nn.relu(convert_to_tensor(x))


def sigmoid(x):
    """``1 / (1 + exp(-x))`` (a cross-entropy of the result works from ``x``, as Keras')."""
    x = _floating(x)
    return _activations.remember_logits(_nn.sigmoid(x), x, "sigmoid")


def _softmax_axes(x, axis, owner):
    """``axis`` as Keras takes it: an int (warning, as Keras, when that axis has size 1), or None (all axes) or
    several axes as a tuple (returned as a tuple)."""
    if axis is None:
        return tuple(range(x.ndim))
    if isinstance(axis, (tuple, list)):
        return tuple(int(a) for a in axis)
    if x.ndim and x.shape[axis] == 1:
        warnings.warn(f"You are using a softmax over axis {axis} of a tensor of shape {tuple(x.shape)}. This axis "
                      "has size 1. The softmax operation will always return the value 1, which is likely not what "
                      "you intended. Did you mean to use a sigmoid instead?", UserWarning, stacklevel=3)
    return axis


def softmax(x, axis=-1):
    """Softmax over ``axis``: an int, several axes (a tuple) or None (all); a cross-entropy of the result works
    from ``x``, as Keras'."""
    x = _floating(x)
    axes = _softmax_axes(x, axis, "softmax")
    if isinstance(axes, tuple):
        return _o.exp(_o.subtract(x, _o.reduce_logsumexp(x, axis=axes, keepdims=True)))
    return _activations.remember_logits(_nn.softmax(x, axis=axes), x, "softmax", axes)


def log_softmax(x, axis=-1):
    """Log-softmax over ``axis``: an int, several axes (a tuple) or None (all)."""
    x = _floating(x)
    axes = _softmax_axes(x, axis, "log_softmax")
    if isinstance(axes, tuple):
        return _o.subtract(x, _o.reduce_logsumexp(x, axis=axes, keepdims=True))
    return _nn.log_softmax(x, axis=axes)


# ====================================================================================== issue 37: the rest of
# keras.ops, each a thin call of descend's op of the same meaning after Keras' dtype rules
from ..composites import higher_order as _control  # noqa: E402
from .. import math as _math  # noqa: E402

arccos = _float_unary(_o.acos, "Arc cosine (ints as ``floatx()``).")
arccosh = _float_unary(_o.acosh, "Inverse hyperbolic cosine (ints as ``floatx()``).")
arcsin = _float_unary(_o.asin, "Arc sine (ints as ``floatx()``).")
arcsinh = _float_unary(_o.asinh, "Inverse hyperbolic sine (ints as ``floatx()``).")
arctan = _float_unary(_o.atan, "Arc tangent (ints as ``floatx()``).")
arctanh = _float_unary(_o.atanh, "Inverse hyperbolic tangent (ints as ``floatx()``).")
cosh = _float_unary(_o.cosh, "Hyperbolic cosine (ints as ``floatx()``).")
sinh = _float_unary(_o.sinh, "Hyperbolic sine (ints as ``floatx()``).")
tan = _float_unary(_o.tan, "Tangent (ints as ``floatx()``).")
erf = _float_unary(_o.erf, "The error function (ints as ``floatx()``).")
cbrt = _float_unary(_o.cbrt, "The real cube root (ints as ``floatx()``).")
rsqrt = _float_unary(_o.rsqrt, "``1 / sqrt(x)`` (ints as ``floatx()``).")


def _float_composite(fn, doc, name):
    def wrapped(x):
        return fn(_floating(x))

    wrapped.__name__ = name
    wrapped.__doc__ = doc
    return wrapped


_LN2 = float(np.log(2.0))
_LN10 = float(np.log(10.0))
log2 = _float_composite(lambda x: _o.divide(_o.log(x), _LN2), "Base-2 logarithm (ints as ``floatx()``).", "log2")
log10 = _float_composite(lambda x: _o.divide(_o.log(x), _LN10), "Base-10 logarithm (ints as ``floatx()``).",
                         "log10")
exp2 = _float_composite(lambda x: _o.exp(_o.multiply(x, _LN2)), "``2 ** x`` (ints as ``floatx()``).", "exp2")
reciprocal = _float_composite(lambda x: _o.reciprocal(x), "``1 / x`` (ints as ``floatx()``).", "reciprocal")
deg2rad = _float_composite(lambda x: _o.multiply(x, float(np.pi / 180.0)), "Degrees to radians.", "deg2rad")
rad2deg = _float_composite(lambda x: _o.multiply(x, float(180.0 / np.pi)), "Radians to degrees.", "rad2deg")
fabs = _float_composite(lambda x: _o.abs(x), "``|x|`` as a float (ints as ``floatx()``).", "fabs")


def trunc(x):
    """``x`` rounded toward zero (ints unchanged); no gradient, as ``floor``."""
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        return x
    return _o.where(_o.less(x, 0.0), _o.ceil(x), _o.floor(x))


def signbit(x):
    """Whether the sign bit of ``x`` is set (True for -0.0 and negative numbers), bool."""
    return Tensor(np.signbit(convert_to_numpy(x)))


def isneginf(x):
    """Whether ``x`` is -inf (bool)."""
    return Tensor(np.isneginf(convert_to_numpy(x)))


def isposinf(x):
    """Whether ``x`` is +inf (bool)."""
    return Tensor(np.isposinf(convert_to_numpy(x)))


def isreal(x):
    """True for every entry of a real tensor (descend's tensors are real)."""
    return Tensor(np.isreal(convert_to_numpy(x)))


def arctan2(x1, x2):
    """The angle of the point ``(x2, x1)`` (NumPy's ``arctan2``), ints as ``floatx()``."""
    x1, x2 = _floating_pair(x1, x2)
    return _o.atan2(x1, x2)


def hypot(x1, x2):
    """``sqrt(x1**2 + x2**2)``, ints as ``floatx()``."""
    x1, x2 = _floating_pair(x1, x2)
    return _o.sqrt(_o.add(_o.square(x1), _o.square(x2)))


def logaddexp(x1, x2):
    """``log(exp(x1) + exp(x2))`` without overflow: ``max + log1p(exp(-|x1 - x2|))``."""
    x1, x2 = _floating_pair(x1, x2)
    return _o.add(_o.maximum(x1, x2), _o.log1p(_o.exp(_o.negative(_o.abs(_o.subtract(x1, x2))))))


def logaddexp2(x1, x2):
    """``log2(2**x1 + 2**x2)`` without overflow."""
    x1, x2 = _floating_pair(x1, x2)
    d = _o.multiply(_o.negative(_o.abs(_o.subtract(x1, x2))), _LN2)
    return _o.add(_o.maximum(x1, x2), _o.divide(_o.log1p(_o.exp(d)), _LN2))


def floor_divide(x1, x2):
    """``floor(x1 / x2)`` after Keras' dtype promotion (no gradient)."""
    return _o.floordiv(*_promote(x1, x2))


def mod(x1, x2):
    """The remainder of ``floor_divide`` (the sign of ``x2``)."""
    return _o.mod(*_promote(x1, x2))


def fmod(x1, x2):
    """The remainder of division rounding toward zero (the sign of ``x1``), as C's ``fmod``."""
    return _math.truncatemod(*_promote(x1, x2))


def fmax(x1, x2):
    """The larger of ``x1`` and ``x2``, ignoring NaN (the other value wins)."""
    x1, x2 = _promote(x1, x2)
    return _o.where(_o.is_nan(x2), x1, _o.where(_o.is_nan(x1), x2, _o.maximum(x1, x2))) \
        if x1._value.dtype.kind == "f" else _o.maximum(x1, x2)


def fmin(x1, x2):
    """The smaller of ``x1`` and ``x2``, ignoring NaN."""
    x1, x2 = _promote(x1, x2)
    return _o.where(_o.is_nan(x2), x1, _o.where(_o.is_nan(x1), x2, _o.minimum(x1, x2))) \
        if x1._value.dtype.kind == "f" else _o.minimum(x1, x2)


def heaviside(x1, x2):
    """0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0``."""
    x1, x2 = _floating_pair(x1, x2)
    x2 = _o.broadcast_to(x2, np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    one, zero = _o.ones_like(x2), _o.zeros_like(x2)
    return _o.where(_o.greater(x1, 0.0), one, _o.where(_o.less(x1, 0.0), zero, x2))


def divide_no_nan(x1, x2):
    """``x1 / x2``, and 0 where ``x2 == 0``."""
    x1, x2 = _floating_pair(x1, x2)
    return _o.divide_no_nan(x1, x2)


def logical_xor(x1, x2):
    """Elementwise exclusive or (bool)."""
    return _math.logical_xor(_o.cast(convert_to_tensor(x1), "bool"), _o.cast(convert_to_tensor(x2), "bool"))


def _int_pair(x1, x2, what):
    """``x1`` and ``x2`` as NumPy arrays of their Keras result dtype (a Python int takes the tensor's dtype)."""
    a, b = convert_to_numpy(x1), convert_to_numpy(x2)
    if a.dtype.kind not in "iub" or b.dtype.kind not in "iub":
        raise TypeError(f"{what}: expected integer tensors. Received dtypes {a.dtype.name} and {b.dtype.name}")
    dtype = _result_dtype(x1, x2)
    return a.astype(dtype, copy=False), b.astype(dtype, copy=False)


def _int_binary(fn, name):
    def op(x1, x2):
        a, b = _int_pair(x1, x2, name)
        return Tensor(np.asarray(fn(a, b)))

    op.__name__ = name
    op.__doc__ = f"NumPy's ``{fn.__name__}`` of two integer tensors (no gradient)."
    return op


gcd = _int_binary(np.gcd, "gcd")
lcm = _int_binary(np.lcm, "lcm")
bitwise_and = _int_binary(np.bitwise_and, "bitwise_and")
bitwise_or = _int_binary(np.bitwise_or, "bitwise_or")
bitwise_xor = _int_binary(np.bitwise_xor, "bitwise_xor")
bitwise_left_shift = left_shift = _int_binary(np.left_shift, "left_shift")
bitwise_right_shift = right_shift = _int_binary(np.right_shift, "right_shift")


def bitwise_invert(x):
    """The bitwise complement of an integer (or bool) tensor (no gradient)."""
    a = convert_to_numpy(x)
    if a.dtype.kind not in "iub":
        raise TypeError(f"bitwise_invert: expected an integer tensor. Received dtype {a.dtype.name}")
    return Tensor(np.invert(a))


bitwise_not = bitwise_invert


# ---------------------------------------------------------------- reductions
def amax(x, axis=None, keepdims=False):
    """The largest entry over ``axis`` (as ``max``)."""
    return max(x, axis=axis, keepdims=keepdims)


def amin(x, axis=None, keepdims=False):
    """The smallest entry over ``axis`` (as ``min``)."""
    return min(x, axis=axis, keepdims=keepdims)


def average(x, axis=None, weights=None):
    """The mean over ``axis``, weighted by ``weights`` (1-D along ``axis``, or of ``x``'s shape)."""
    if weights is None:
        return _o.reduce_mean(_floating(x), axis=_axis(axis))
    x, w = _floating_pair(x, weights)  # (Keras' result_type(x, weights, float))
    if w.ndim == 1 and x.ndim > 1 and axis is not None:
        shape_ = [1] * x.ndim
        shape_[int(axis)] = -1
        w = _o.reshape(w, tuple(shape_))
    w = _o.broadcast_to(w, tuple(x.shape))
    return _o.divide(_o.reduce_sum(_o.multiply(x, w), axis=_axis(axis)), _o.reduce_sum(w, axis=_axis(axis)))


def count_nonzero(x, axis=None):
    """How many entries over ``axis`` are not zero (int32)."""
    return _o.cast(_o.count_nonzero(convert_to_tensor(x), axis=_axis(axis)), "int32")


def logsumexp(x, axis=None, keepdims=False):
    """``log(sum(exp(x)))`` over ``axis``, stable."""
    return _o.reduce_logsumexp(_floating(x), axis=_axis(axis), keepdims=keepdims)


def ptp(x, axis=None, keepdims=False):
    """``max - min`` over ``axis``."""
    x = convert_to_tensor(x)
    return _o.subtract(_o.reduce_max(x, axis=_axis(axis), keepdims=keepdims),
                       _o.reduce_min(x, axis=_axis(axis), keepdims=keepdims))


def cumprod(x, axis=None, dtype=None):
    """Running product along ``axis`` (of the flattened ``x`` when None)."""
    x = convert_to_tensor(x) if dtype is None else cast(x, dtype)
    if x._value.dtype == np.bool_:
        x = _o.cast(x, "int32")
    if axis is None:
        x, axis = _o.reshape(x, (-1,)), 0
    return _o.cumprod(x, axis=axis)


def _nan_filled(x, value):
    x = _floating(x)
    return _o.where(_o.is_nan(x), _o.add(_o.zeros_like(x), value), x)


def _has_nan(x) -> bool:
    """Whether ``x`` is of a float dtype (only floats hold NaN: the nan-reductions of ints and bools are the plain
    ones, with their dtypes, as Keras)."""
    return _dtype_of(x).kind == "f"


def nansum(x, axis=None, keepdims=False):
    """The sum over ``axis``, NaN counted as 0."""
    if not _has_nan(x):
        return sum(x, axis=axis, keepdims=keepdims)
    return _o.reduce_sum(_nan_filled(x, 0.0), axis=_axis(axis), keepdims=keepdims)


def nanmean(x, axis=None, keepdims=False):
    """The mean over ``axis`` of the entries that are not NaN."""
    x = _floating(x)
    count = _o.reduce_sum(_o.cast(_o.logical_not(_o.is_nan(x)), x.dtype), axis=_axis(axis), keepdims=keepdims)
    return _o.divide(nansum(x, axis, keepdims), count)


def nanmax(x, axis=None, keepdims=False):
    """The largest entry over ``axis`` ignoring NaN (NaN where all are)."""
    if not _has_nan(x):
        return max(x, axis=axis, keepdims=keepdims)
    x = _floating(x)
    out = _o.reduce_max(_nan_filled(x, -np.inf), axis=_axis(axis), keepdims=keepdims)
    return _o.where(_o.reduce_all(_o.is_nan(x), axis=_axis(axis), keepdims=keepdims), _o.add(out, np.nan), out)


def nanmin(x, axis=None, keepdims=False):
    """The smallest entry over ``axis`` ignoring NaN (NaN where all are)."""
    if not _has_nan(x):
        return min(x, axis=axis, keepdims=keepdims)
    x = _floating(x)
    out = _o.reduce_min(_nan_filled(x, np.inf), axis=_axis(axis), keepdims=keepdims)
    return _o.where(_o.reduce_all(_o.is_nan(x), axis=_axis(axis), keepdims=keepdims), _o.add(out, np.nan), out)


def nanprod(x, axis=None, keepdims=False):
    """The product over ``axis``, NaN counted as 1."""
    if not _has_nan(x):
        return prod(x, axis=axis, keepdims=keepdims)
    return _o.reduce_prod(_nan_filled(x, 1.0), axis=_axis(axis), keepdims=keepdims)


def nancumsum(x, axis=None, dtype=None):
    """The running sum, NaN counted as 0."""
    if not _has_nan(x):
        return cumsum(x, axis=axis, dtype=dtype)
    return cumsum(_nan_filled(x, 0.0), axis=axis, dtype=dtype)


def nancumprod(x, axis=None, dtype=None):
    """The running product, NaN counted as 1."""
    if not _has_nan(x):
        return cumprod(x, axis=axis, dtype=dtype)
    return cumprod(_nan_filled(x, 1.0), axis=axis, dtype=dtype)


def nanvar(x, axis=None, keepdims=False):
    """The variance over ``axis`` of the entries that are not NaN."""
    x = _floating(x)
    m = nanmean(x, axis, keepdims=True)
    return nanmean(_o.square(_o.subtract(x, m)), axis, keepdims)


def nanstd(x, axis=None, keepdims=False):
    """The standard deviation over ``axis`` of the entries that are not NaN."""
    return _o.sqrt(nanvar(x, axis, keepdims))


# ---------------------------------------------------------------- shapes and building
def append(x1, x2, axis=None):
    """``x2`` after ``x1`` along ``axis`` (both flattened when None)."""
    x1, x2 = _promote(x1, x2)
    if axis is None:
        x1, x2, axis = _o.reshape(x1, (-1,)), _o.reshape(x2, (-1,)), 0
    return _o.concat([x1, x2], axis=axis)


def flip(x, axis=None):
    """``x`` with the order of ``axis`` reversed (all axes when None)."""
    x = convert_to_tensor(x)
    axes = list(range(x.ndim)) if axis is None else ([axis] if isinstance(axis, int) else list(axis))
    return _o.reverse(x, axes)


def fliplr(x):
    """``x`` with its second axis reversed."""
    return flip(x, 1)


def flipud(x):
    """``x`` with its first axis reversed."""
    return flip(x, 0)


def roll(x, shift, axis=None):
    """Entries moved ``shift`` places along ``axis`` (of the flattened ``x`` when None), wrapping."""
    x = convert_to_tensor(x)
    if axis is None:
        return _o.reshape(_o.roll(_o.reshape(x, (-1,)), shift=shift, axis=0), tuple(x.shape))
    return _o.roll(x, shift=shift, axis=axis)


def repeat(x, repeats, axis=None):
    """Each entry repeated ``repeats`` times along ``axis`` (flattened when None)."""
    return _o.repeat(convert_to_tensor(x), repeats, axis=axis)


def moveaxis(x, source, destination):
    """``x`` with the axes ``source`` moved to ``destination``."""
    x = convert_to_tensor(x)
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: `source` and `destination` must have the same number of axes. Received: "
                         f"{source} and {destination}")
    src = [a % x.ndim for a in src]
    dst = [a % x.ndim for a in dst]
    # NumPy's rule: the axes not moved keep their order; each moved axis is inserted at its destination
    perm = [a for a in range(x.ndim) if a not in src]
    for d, a in sorted(zip(dst, src)):
        perm.insert(d, a)
    return _o.transpose(x, perm=perm)


def swapaxes(x, axis1, axis2):
    """``x`` with two axes exchanged."""
    x = convert_to_tensor(x)
    perm = list(range(x.ndim))
    perm[axis1], perm[axis2] = perm[axis2], perm[axis1]
    return _o.transpose(x, perm=perm)


def ravel(x):
    """``x`` flattened."""
    return _o.reshape(convert_to_tensor(x), (-1,))


def copy(x):
    """A new tensor with ``x``'s values."""
    return _o.identity(convert_to_tensor(x))


def empty(shape, dtype=None):
    """A tensor of ``shape`` (zeros: descend does not hand out uninitialized memory)."""
    return zeros(shape, dtype)


def empty_like(x, dtype=None):
    """A tensor of ``x``'s shape (zeros)."""
    return zeros_like(x, dtype)


def identity(n, dtype=None):
    """The ``n`` by ``n`` identity matrix."""
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None):  # noqa: N803 - Keras' names
    """Ones on and below the ``k``-th diagonal of an ``N`` by ``M`` matrix."""
    return Tensor(np.tri(N, M, k, dtype=_backend.np_dtype(dtype or _backend.floatx())))


def tril(x, k=0):
    """``x`` with the entries above the ``k``-th diagonal of its last two axes zeroed."""
    x = convert_to_tensor(x)
    keep = Tensor(np.tri(x.shape[-2], x.shape[-1], k, dtype=bool))
    return _o.where(keep, x, _o.zeros_like(x))


def triu(x, k=0):
    """``x`` with the entries below the ``k``-th diagonal of its last two axes zeroed."""
    x = convert_to_tensor(x)
    keep = Tensor(~np.tri(x.shape[-2], x.shape[-1], k - 1, dtype=bool))
    return _o.where(keep, x, _o.zeros_like(x))


def diagonal(x, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the plane ``(axis1, axis2)``, as the last axis (NumPy's order)."""
    x = convert_to_tensor(x)
    n, m = x.shape[axis1], x.shape[axis2]
    rows = np.arange(builtins.max(0, -offset), builtins.min(n, m - offset))
    moved = moveaxis(x, (axis1, axis2), (-2, -1))
    flat = _o.reshape(moved, (*moved.shape[:-2], n * m))
    return _o.gather(flat, Tensor((rows * m + rows + offset).astype(np.int64)), axis=-1 % builtins.max(flat.ndim, 1))


def diag(x, k=0):
    """The ``k``-th diagonal of a matrix, or the matrix with the vector ``x`` on its ``k``-th diagonal."""
    x = convert_to_tensor(x)
    if x.ndim == 2:
        return diagonal(x, offset=k)
    if x.ndim != 1:
        raise ValueError(f"diag: `x` must be 1-D or 2-D. Received shape {tuple(x.shape)}")
    n = x.shape[0] + builtins.abs(k)
    rows = np.arange(x.shape[0]) + builtins.max(0, -k)
    cols = rows + k
    return _o.scatter_nd(Tensor(np.stack([rows, cols], -1).astype(np.int64)), x, shape=(n, n))


def diagflat(x, k=0):
    """The flattened ``x`` on the ``k``-th diagonal of a square matrix."""
    return diag(ravel(x), k)


def trace(x, offset=0, axis1=0, axis2=1):
    """The sum of the ``offset`` diagonal of the plane ``(axis1, axis2)``."""
    return sum(diagonal(x, offset, axis1, axis2), axis=-1)


def hstack(xs):
    """``xs`` joined along axis 1 (axis 0 for vectors)."""
    xs = _promote(*xs)
    return _o.concat(xs, axis=0 if xs[0].ndim == 1 else 1)


def vstack(xs):
    """``xs`` joined along axis 0 (vectors as rows)."""
    xs = [_o.reshape(x, (1, -1)) if x.ndim == 1 else x for x in _promote(*xs)]
    return _o.concat(xs, axis=0)


def dstack(xs):
    """``xs`` joined along axis 2 (as at least 3-D arrays)."""
    out = []
    for x in _promote(*xs):
        if x.ndim == 1:
            x = _o.reshape(x, (1, -1, 1))
        elif x.ndim == 2:
            x = _o.expand_dims(x, -1)
        out.append(x)
    return _o.concat(out, axis=2)


def split(x, indices_or_sections, axis=0):
    """``x`` cut into equal sections (an int) or at the given indices along ``axis`` (NumPy's ``split``)."""
    x = convert_to_tensor(x)
    n = x.shape[axis]
    if isinstance(indices_or_sections, (int, np.integer)):
        if n % int(indices_or_sections):
            raise ValueError(f"split: axis {axis} of size {n} does not divide into {indices_or_sections} sections")
        return list(_o.split(x, int(indices_or_sections), axis=axis))
    cuts = [0] + [int(i) for i in indices_or_sections] + [n]
    sizes = [builtins.max(b - a, 0) for a, b in zip(cuts[:-1], cuts[1:])]
    return list(_o.split(x, sizes, axis=axis))


def array_split(x, indices_or_sections, axis=0):
    """``x`` cut into ``indices_or_sections`` nearly equal sections (the first ones one longer)."""
    x = convert_to_tensor(x)
    n, k = x.shape[axis], int(indices_or_sections)
    sizes = [n // k + (1 if i < n % k else 0) for i in range(k)]
    return list(_o.split(x, sizes, axis=axis))


def hsplit(x, indices_or_sections):
    """``split`` along axis 1 (axis 0 for vectors)."""
    x = convert_to_tensor(x)
    return split(x, indices_or_sections, axis=0 if x.ndim == 1 else 1)


def vsplit(x, indices_or_sections):
    """``split`` along axis 0."""
    return split(x, indices_or_sections, axis=0)


def dsplit(x, indices_or_sections):
    """``split`` along axis 2."""
    return split(x, indices_or_sections, axis=2)


def unstack(x, num=None, axis=0):
    """The slices of ``x`` along ``axis``, as a list."""
    return list(_o.unstack(convert_to_tensor(x), axis=axis))


def pad(x, pad_width, mode="constant", constant_values=None):
    """``x`` padded by ``pad_width`` (pairs per axis, or one pair / int for all); modes ``"constant"``,
    ``"reflect"``, ``"symmetric"``."""
    x = convert_to_tensor(x)
    width = np.broadcast_to(np.asarray(pad_width, np.int64), (x.ndim, 2)).tolist()
    if mode not in ("constant", "reflect", "symmetric"):
        raise ValueError(f"pad: `mode` must be 'constant', 'reflect' or 'symmetric'. Received: mode={mode!r}")
    if mode != "constant" and constant_values is not None:
        raise ValueError("pad: Argument `constant_values` can only be provided when `mode == 'constant'`. "
                         f"Received: mode={mode}")
    return _o.pad(x, width, mode=mode.upper(), constant_values=constant_values or 0)


def outer(x1, x2):
    """The outer product of the flattened ``x1`` and ``x2``."""
    x1, x2 = _promote(x1, x2)
    return _o.multiply(_o.reshape(x1, (-1, 1)), _o.reshape(x2, (1, -1)))


def inner(x1, x2):
    """The sum product over the last axes of ``x1`` and ``x2`` (a scalar product for scalars)."""
    x1, x2 = _promote(x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        return _o.multiply(x1, x2)
    return _linalg.tensordot(x1, x2, [[-1], [-1]])


def vdot(x1, x2):
    """The dot product of the flattened ``x1`` and ``x2``."""
    x1, x2 = _promote(x1, x2)
    return _o.reduce_sum(_o.multiply(_o.reshape(x1, (-1,)), _o.reshape(x2, (-1,))))


def tensordot(x1, x2, axes=2):
    """``tensordot`` after Keras' dtype promotion."""
    return _linalg.tensordot(*_promote(x1, x2), axes)


def cross(x1, x2, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of vectors along ``axisa``/``axisb`` (the other axes broadcast), as NumPy's: vectors of 3
    components, or 2 (their z taken as 0); two 2-component vectors give the z component alone (no vector axis)."""
    x1, x2 = _promote(x1, x2)
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = moveaxis(x1, axisa, -1), moveaxis(x2, axisb, -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(f"cross: the vectors must have 2 or 3 components. Received shapes {tuple(x1.shape)} and "
                         f"{tuple(x2.shape)}")
    planar = a.shape[-1] == 2 and b.shape[-1] == 2
    a = _o.unstack(a, axis=-1)
    b = _o.unstack(b, axis=-1)
    a0, a1 = a[0], a[1]
    b0, b1 = b[0], b[1]
    z = _o.subtract(_o.multiply(a0, b1), _o.multiply(a1, b0))
    if planar:
        return z
    a2 = a[2] if len(a) == 3 else _o.zeros_like(a0)
    b2 = b[2] if len(b) == 3 else _o.zeros_like(b0)
    c = _o.stack([_o.subtract(_o.multiply(a1, b2), _o.multiply(a2, b1)),
                  _o.subtract(_o.multiply(a2, b0), _o.multiply(a0, b2)), z], axis=-1)
    return moveaxis(c, -1, axisc)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` (NumPy's ``linspace``)."""
    values, step = np.linspace(convert_to_numpy(start), convert_to_numpy(stop), int(num), endpoint=endpoint,
                               retstep=True, axis=axis)
    out = Tensor(values.astype(_backend.np_dtype(dtype or _backend.floatx())))
    return (out, step) if retstep else out


def logspace(start, stop, num=50, endpoint=True, base=10, dtype=None, axis=0):
    """``base ** linspace(start, stop, num)``."""
    values = np.logspace(convert_to_numpy(start), convert_to_numpy(stop), int(num), endpoint=endpoint, base=base,
                         axis=axis)
    return Tensor(values.astype(_backend.np_dtype(dtype or _backend.floatx())))


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """``num`` values from ``start`` to ``stop`` evenly spaced on a log scale."""
    values = np.geomspace(convert_to_numpy(start), convert_to_numpy(stop), int(num), endpoint=endpoint, axis=axis)
    return Tensor(values.astype(_backend.np_dtype(dtype or _backend.floatx())))


def meshgrid(*x, indexing="xy"):
    """Coordinate grids of the 1-D inputs."""
    return _o.meshgrid(*x, indexing=indexing)


def sort(x, axis=-1):
    """``x`` sorted along ``axis`` (ascending)."""
    return _o.sort(convert_to_tensor(x), axis=axis)


def argsort(x, axis=-1):
    """The indices that sort ``x`` along ``axis`` (stable; int32)."""
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = _o.reshape(x, (-1,)), -1
    return _o.argsort(x, axis=axis)


def take_along_axis(x, indices, axis=None):
    """``x`` picked at ``indices`` along ``axis`` (of the flattened ``x`` when None)."""
    x = convert_to_tensor(x)
    if axis is None:
        x, axis = _o.reshape(x, (-1,)), 0
    idx = convert_to_numpy(indices)
    shape_ = list(np.broadcast_shapes(tuple(x.shape[:axis % x.ndim]) + (1,) + tuple(x.shape[axis % x.ndim + 1:]),
                                      idx.shape))
    shape_x = list(shape_)
    shape_x[axis % x.ndim] = x.shape[axis % x.ndim]
    x = _o.broadcast_to(x, tuple(shape_x))
    idx = np.broadcast_to(idx, tuple(shape_))
    return _o.take_along_axis(x, Tensor(np.ascontiguousarray(idx).astype(np.int64)), axis=axis)


def top_k(x, k, sorted=True):  # noqa: A002 - Keras' name
    """The ``k`` largest entries of the last axis and their indices (int32)."""
    return _o.top_k(convert_to_tensor(x), k)


def in_top_k(targets, predictions, k):
    """Whether each target is among the ``k`` largest predictions of its row."""
    return _o.in_top_k(targets, predictions, k)


def _segments(data, segment_ids, num_segments):
    """``data`` as a tensor, ``segment_ids`` as an array and the number of segments (``max(segment_ids) + 1`` by
    default), after Keras' checks: ``segment_ids`` is a vector as long as ``data``'s first axis."""
    data = convert_to_tensor(data)
    ids = np.asarray(convert_to_numpy(segment_ids))
    if ids.ndim > 1:
        raise ValueError(f"Argument `segment_ids` should be an 1-D vector, got shape: {ids.ndim}. Consider either "
                         f"flatten input with segment_ids.reshape((-1)) and data.reshape((-1, ) + "
                         f"data.shape[len(segment_ids.shape):]) or vectorize with vmap.")
    if ids.ndim == 1 and (data.ndim == 0 or ids.shape[0] != data.shape[0]):
        raise ValueError(f"Argument `segment_ids` and `data` should have same leading dimension. Got {ids.shape} "
                         f"v.s. {tuple(data.shape)}.")
    return data, ids, num_segments if num_segments is not None else int(ids.max(initial=-1)) + 1


def segment_sum(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002 - Keras' name
    """The sum of each segment (``num_segments`` defaults to ``max(segment_ids) + 1``; an entry whose id is
    negative is dropped, as TF)."""
    data, segment_ids, n = _segments(data, segment_ids, num_segments)
    return _o.unsorted_segment_sum(data, segment_ids, num_segments=n)


def segment_max(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002 - Keras' name
    """The largest entry of each segment (an empty segment holds the dtype's lowest value, as TF)."""
    data, segment_ids, n = _segments(data, segment_ids, num_segments)
    return _o.unsorted_segment_max(data, segment_ids, num_segments=n)


def segment_min(data, segment_ids, num_segments=None, sorted=False):  # noqa: A002 - Keras' name
    """The smallest entry of each segment (an empty segment holds the dtype's highest value, as TF)."""
    data, segment_ids, n = _segments(data, segment_ids, num_segments)
    return _o.unsorted_segment_min(data, segment_ids, num_segments=n)


def isclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """``|x1 - x2| <= atol + rtol * |x2|`` elementwise (bool)."""
    return Tensor(np.isclose(convert_to_numpy(x1), convert_to_numpy(x2), rtol=rtol, atol=atol, equal_nan=equal_nan))


def allclose(x1, x2, rtol=1e-5, atol=1e-8, equal_nan=False):
    """Whether every entry is ``isclose`` (a bool scalar)."""
    return Tensor(np.bool_(np.allclose(convert_to_numpy(x1), convert_to_numpy(x2), rtol=rtol, atol=atol,
                                       equal_nan=equal_nan)))


def isin(x1, x2, assume_unique=False, invert=False):
    """Whether each entry of ``x1`` occurs in ``x2`` (bool)."""
    return Tensor(np.isin(convert_to_numpy(x1), convert_to_numpy(x2), invert=invert))


def digitize(x, bins):
    """The index of the bin of ``bins`` (increasing) each entry falls in (int32)."""
    return Tensor(np.digitize(convert_to_numpy(x), convert_to_numpy(bins)).astype(np.int32))


def searchsorted(sorted_sequence, values, side="left"):
    """Where ``values`` would be inserted into the 1-D ``sorted_sequence`` (int32)."""
    s = convert_to_numpy(sorted_sequence)
    if s.ndim != 1:
        raise ValueError(f"searchsorted: `sorted_sequence` must be 1-D. Received shape {s.shape}")
    return Tensor(np.searchsorted(s, convert_to_numpy(values), side=side).astype(np.int32))


def nonzero(x):
    """The indices of the nonzero entries, one int32 vector per axis."""
    return tuple(Tensor(i.astype(np.int32)) for i in np.nonzero(convert_to_numpy(x)))


def select(condlist, choicelist, default=0):
    """The first choice whose condition holds, elementwise (NumPy's ``select``)."""
    choices = _promote(*choicelist)
    out = _o.add(_o.zeros_like(choices[0]), default)
    for cond_, choice in reversed(list(zip(condlist, choices))):
        cond_ = _o.cast(convert_to_tensor(cond_), "bool")
        out = _o.where(cond_, choice, out)
    return out


def slice(inputs, start_indices, shape):  # noqa: A001 - Keras' name
    """The block of ``inputs`` starting at ``start_indices`` with ``shape``."""
    return _o.slice(convert_to_tensor(inputs), convert_to_numpy(start_indices), list(shape))


def slice_update(inputs, start_indices, updates):
    """``inputs`` with the block at ``start_indices`` replaced by ``updates``."""
    x = convert_to_tensor(inputs)
    u = convert_to_tensor(updates, dtype=x.dtype)
    starts = convert_to_numpy(start_indices).reshape(-1)
    grids = np.meshgrid(*[np.arange(s, s + n) for s, n in zip(starts, u.shape)], indexing="ij")
    idx = np.stack(grids, -1).astype(np.int64)
    return _o.tensor_scatter_nd_update(x, idx, u)


def scatter(indices, values, shape):
    """Zeros of ``shape`` with ``values`` added at ``indices`` (repeats add up)."""
    values = convert_to_tensor(values)
    return _o.scatter_nd(Tensor(convert_to_numpy(indices).astype(np.int64)), values, shape=tuple(shape))


def scatter_update(inputs, indices, updates, reduction=None):
    """``inputs`` with the entries at ``indices`` replaced by ``updates`` (the last of repeated indices wins), or,
    with ``reduction`` ``"add"``, ``"max"``, ``"min"`` or ``"mul"``, combined with them (repeats all count)."""
    if reduction is not None:
        reduction = str(reduction).lower()
        if reduction not in ("add", "max", "min", "mul"):
            raise ValueError(f"scatter_update: Invalid reduction: {reduction}. Supported values are: None, 'add', "
                             f"'max', 'min', 'mul'.")
    x = convert_to_tensor(inputs)
    idx = convert_to_numpy(indices).astype(np.int64)
    upd = convert_to_tensor(updates, dtype=x.dtype)
    if reduction is None:
        return _o.tensor_scatter_nd_update(x, idx, upd)
    if reduction != "mul":
        op = {"add": _o.tensor_scatter_nd_add, "max": _o.tensor_scatter_nd_max, "min": _o.tensor_scatter_nd_min}
        return op[reduction](x, idx, upd)
    for i in builtins.range(idx.shape[0]):  # one update after the other: each product stays differentiable
        at = idx[i:i + 1]
        x = _o.tensor_scatter_nd_update(x, at, _o.multiply(_o.gather_nd(x, at), upd[i:i + 1]))
    return x


def get_item(x, key):
    """``x[key]``."""
    return convert_to_tensor(x)[key]


def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """``x`` with NaN, +inf and -inf replaced (by 0 and the dtype's extremes by default)."""
    x = convert_to_tensor(x)
    if x._value.dtype.kind != "f":
        return x
    info = np.finfo(x._value.dtype)
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    full = _o.zeros_like(x)
    x = _o.where(_o.is_nan(x), _o.add(full, nan), x)
    x = _o.where(_o.logical_and(_o.is_inf(x), _o.greater(x, 0.0)), _o.add(full, hi), x)
    return _o.where(_o.logical_and(_o.is_inf(x), _o.less(x, 0.0)), _o.add(full, lo), x)


def saturate_cast(x, dtype):
    """``x`` cast to ``dtype`` (``floatx()`` when None, as Keras), clamped to its range."""
    return _o.saturate_cast(convert_to_tensor(x), _backend.floatx() if dtype is None else dtype)


# ---------------------------------------------------------------- control flow
def cond(pred, true_fn, false_fn):
    """``true_fn()`` if ``pred`` else ``false_fn()``."""
    from ..compiler import cond as _cond

    return _cond(pred, true_fn, false_fn)


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    """Run ``body`` while ``cond`` holds on ``loop_vars``."""
    from ..compiler import while_loop as _while

    return _while(cond, body, loop_vars, maximum_iterations=maximum_iterations)


def fori_loop(lower, upper, body_fun, init_val):
    """``val = body_fun(i, val)`` for ``i`` in ``range(lower, upper)``."""
    val = init_val
    for i in range(int(lower), int(upper)):
        val = body_fun(i, val)
    return val


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """JAX's ``scan``: ``carry, y = f(carry, x)`` over ``xs`` (or ``length`` steps); returns the final carry and
    the stacked ``y``."""
    if not callable(f):
        raise TypeError(f"scan: `f` should be a callable. Received: f={f!r}")
    if not isinstance(unroll, bool) and (not isinstance(unroll, (int, np.integer)) or unroll < 1):
        raise ValueError(f"scan: `unroll` must be an positive integer or boolean. Received: unroll={unroll!r}")
    if xs is None and length is None:
        raise ValueError("scan: Got no `xs` to scan over and `length` not provided.")
    if xs is None:
        items = [None] * int(length)
    else:
        n, items = _control._elements(xs)
    order = list(range(len(items)))[::-1] if reverse else list(range(len(items)))
    carry, ys = init, [None] * len(items)
    for i in order:
        carry, ys[i] = f(carry, items[i])
    stacked = _control._stack_results(ys, None) if ys and ys[0] is not None else None
    return carry, stacked


def map(f, xs):  # noqa: A001 - Keras' name
    """``f`` on each element of ``xs`` along axis 0, stacked."""
    return _control.map_fn(f, xs)


def switch(index, branches, *operands):
    """``branches[index](*operands)`` (the index clamped to the branches)."""
    i = builtins.min(builtins.max(int(convert_to_numpy(index)), 0), len(branches) - 1)
    return branches[i](*operands)


def vectorized_map(function, elements):
    """``function`` on each element of ``elements`` along axis 0, stacked."""
    return _control.map_fn(function, elements)


def custom_gradient(f):
    """Keras' ``custom_gradient``: ``f`` returns ``(value, grad_fn)``."""
    from ..framework import custom_gradient as _cg

    return _cg(f)


# ---------------------------------------------------------------- nn
def relu6(x):
    """``min(max(x, 0), 6)``."""
    return _activations.relu6(_floating(x))


def _activation(name, doc):
    fn_ = getattr(_activations, name)

    def op(x, *args, **kwargs):
        return fn_(_floating(x), *args, **kwargs)

    op.__name__ = name
    op.__doc__ = doc
    return op


elu = _activation("elu", "``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``.")
selu = _activation("selu", "Scaled ELU.")


def gelu(x, approximate=True):
    """Gaussian error linear unit; Keras' op uses the tanh approximation by default (the activation does not)."""
    return _activations.gelu(_floating(x), approximate=approximate)


silu = _activation("silu", "``x * sigmoid(x)``.")
swish = silu
softplus = _activation("softplus", "``log(1 + exp(x))``.")
softsign = _activation("softsign", "``x / (1 + |x|)``.")
leaky_relu = _activation("leaky_relu", "``x`` for ``x > 0``, else ``negative_slope * x``.")
log_sigmoid = _activation("log_sigmoid", "``log(sigmoid(x))``.")
hard_sigmoid = _activation("hard_sigmoid", "``relu6(x + 3) / 6``.")
hard_silu = _activation("hard_silu", "``x * hard_sigmoid(x)``.")
hard_swish = hard_silu
celu = _activation("celu", "Continuously differentiable ELU.")
glu = _activation("glu", "Gated linear unit.")
hard_tanh = _activation("hard_tanh", "``clip(x, -1, 1)``.")
hard_shrink = _activation("hard_shrink", "``x`` where ``|x| > threshold``, else 0.")
soft_shrink = _activation("soft_shrink", "Soft thresholding.")
tanh_shrink = _activation("tanh_shrink", "``x - tanh(x)``.")
sparse_plus = _activation("sparse_plus", "SparsePlus.")
sparse_sigmoid = _activation("sparse_sigmoid", "SparseSigmoid.")
squareplus = _activation("squareplus", "``(x + sqrt(x**2 + b)) / 2``.")
threshold = _activation("threshold", "``x`` where ``x > threshold``, else ``default_value``.")
sparsemax = _activation("sparsemax", "The projection onto the simplex.")


def normalize(x, axis=-1, order=2, epsilon=None):
    """``x`` divided by its ``order``-norm along ``axis`` (at least ``epsilon``); ``order`` an int >= 1."""
    if isinstance(order, bool) or not isinstance(order, (int, np.integer)) or order < 1:
        raise ValueError(f"normalize: Argument `order` must be an int >= 1. Received: order={order!r}")
    x = _floating(x)
    eps = 1e-12 if epsilon is None else float(epsilon)
    if order == 2:
        return _o.multiply(x, _o.rsqrt(_o.maximum(_o.reduce_sum(_o.square(x), axis=axis, keepdims=True), eps * eps)))
    n = norm(x, ord=order, axis=axis, keepdims=True)
    return _o.divide(x, _o.maximum(n, eps))


def moments(x, axes, keepdims=False, synchronized=False):
    """The mean and the variance of ``x`` over ``axes``; float16 computes in float32 and comes back clipped to
    float16's finite range (Keras' rule: a variance that overflows float16 is its largest value, not inf)."""
    x = _floating(x)
    half = x._value.dtype == np.float16
    if half:
        x = _o.cast(x, "float32")
    m = _o.reduce_mean(x, axis=_axis(axes), keepdims=True)
    v = _o.reduce_mean(_o.square(_o.subtract(x, m)), axis=_axis(axes), keepdims=keepdims)
    m = m if keepdims else _o.squeeze(m, axis=_axis(axes))
    if half:
        top = float(np.finfo(np.float16).max)
        m, v = (_o.cast(_o.clip_by_value(t, -top, top), "float16") for t in (m, v))
    return m, v


def batch_normalization(x, mean, variance, axis, offset=None, scale=None, epsilon=1e-3):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset``, the statistics along ``axis``."""
    x = _floating(x)
    shape_ = [1] * x.ndim
    shape_[axis] = x.shape[axis]

    def along(v):
        return _o.reshape(convert_to_tensor(v, dtype=x.dtype), tuple(shape_))

    y = _o.multiply(_o.subtract(x, along(mean)), _o.rsqrt(_o.add(along(variance), float(epsilon))))
    if scale is not None:
        y = _o.multiply(y, along(scale))
    if offset is not None:
        y = _o.add(y, along(offset))
    return y


def rms_normalization(x, scale=None, axis=-1, epsilon=None):
    """``x / sqrt(mean(x**2, axis) + epsilon) * scale`` (``epsilon`` defaults to Keras' 1e-7)."""
    x = _floating(x)
    eps = 1e-7 if epsilon is None else float(epsilon)
    y = _o.multiply(x, _o.rsqrt(_o.add(_o.reduce_mean(_o.square(x), axis=axis, keepdims=True), eps)))
    return y if scale is None else _o.multiply(y, convert_to_tensor(scale, dtype=x.dtype))


def layer_normalization(x, gamma=None, beta=None, axis=-1, epsilon=None, **kwargs):
    """``(x - mean) / sqrt(var + epsilon) * gamma + beta`` over ``axis`` (``epsilon`` defaults to 1e-7).

    Keras' deprecated ``rms_scaling=True`` gives ``x / sqrt(var + epsilon) * gamma`` (no centring, no ``beta``:
    Keras' formula, scaled by the variance rather than the root mean square), with Keras' warning."""
    rms_scaling = kwargs.pop("rms_scaling", False)
    if kwargs:
        raise TypeError(f"layer_normalization: unexpected keyword arguments {sorted(kwargs)}")
    x = _floating(x)
    eps = 1e-7 if epsilon is None else float(epsilon)
    if rms_scaling:
        warnings.warn("You passed `rms_scaling=True`, which is deprecated. This argument incorrectly scales the "
                      "input by the variance, not the root mean square. To correctly use RMS Normalization, please "
                      "use `keras.ops.rms_normalization` / `keras.ops.nn.rms_normalization` instead.", UserWarning,
                      stacklevel=2)
        _, v = moments(x, axis, keepdims=True)
        y = _o.multiply(x, _o.rsqrt(_o.add(v, eps)))
        return y if gamma is None else _o.multiply(y, convert_to_tensor(gamma, dtype=x.dtype))
    m, v = moments(x, axis, keepdims=True)
    y = _o.multiply(_o.subtract(x, m), _o.rsqrt(_o.add(v, eps)))
    if gamma is not None:
        y = _o.multiply(y, convert_to_tensor(gamma, dtype=x.dtype))
    if beta is not None:
        y = _o.add(y, convert_to_tensor(beta, dtype=x.dtype))
    return y


def multi_hot(inputs, num_classes, axis=-1, dtype=None, sparse=False):
    """One row per example with a 1 at each class id it holds."""
    ids = convert_to_numpy(inputs).astype(np.int64)
    if ids.ndim == 1:
        ids = ids[None]
        squeeze_ = True
    else:
        squeeze_ = False
    out = np.zeros((ids.shape[0], int(num_classes)), _backend.np_dtype(dtype or _backend.floatx()))
    for r, row in enumerate(ids):
        out[r, row[(row >= 0) & (row < num_classes)]] = 1
    out = out[0] if squeeze_ else out
    return Tensor(np.moveaxis(out, -1, axis) if out.ndim > 1 else out)


def binary_crossentropy(target, output, from_logits=False):
    """The elementwise binary cross-entropy (Keras' backend op)."""
    target, output = _promote(_floating(target), _floating(output))
    if from_logits:
        return _nn.sigmoid_cross_entropy_with_logits(labels=target, logits=output)
    eps = 1e-7
    p = _o.clip_by_value(output, eps, 1.0 - eps)
    return _o.negative(_o.add(_o.multiply(target, _o.log(p)),
                              _o.multiply(_o.subtract(1.0, target), _o.log(_o.subtract(1.0, p)))))


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """The cross-entropy of one-hot ``target`` and ``output`` along ``axis``."""
    target, output = _promote(_floating(target), _floating(output))
    if from_logits:
        return _nn.softmax_cross_entropy_with_logits(labels=target, logits=output, axis=axis)
    p = _o.divide(output, _o.reduce_sum(output, axis=axis, keepdims=True))
    p = _o.clip_by_value(p, 1e-7, 1.0 - 1e-7)
    return _o.negative(_o.reduce_sum(_o.multiply(target, _o.log(p)), axis=axis))


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    """The cross-entropy of integer ``target`` and ``output`` along ``axis`` (the last)."""
    output = _floating(output)
    target = convert_to_tensor(target)
    if target._value.dtype.kind not in "iu":
        target = _o.cast(target, "int64")
    depth = output.shape[axis]
    return categorical_crossentropy(_o.one_hot(target, depth, dtype=output.dtype), output, from_logits, axis)


def dot_product_attention(query, key, value, bias=None, mask=None, scale=None, is_causal=False, **kwargs):
    """``softmax(q k^T * scale + bias, masked) v`` over inputs ``(batch, length, heads, dim)``; with fewer key and
    value heads than query heads (grouped-query attention: a divisor of them), each key/value head serves
    ``query heads / key heads`` consecutive query heads, as Keras."""
    q, k, v = _promote(_floating(query), _floating(key), _floating(value))
    if k.ndim == 4 and q.shape[2] != k.shape[2]:
        if k.shape[2] == 0 or q.shape[2] % k.shape[2] or v.shape[2] != k.shape[2]:
            raise ValueError(f"dot_product_attention: the query heads ({q.shape[2]}) must be a multiple of the key "
                             f"and value heads ({k.shape[2]}, {v.shape[2]})")
        reps = q.shape[2] // k.shape[2]
        k, v = _o.repeat(k, reps, axis=2), _o.repeat(v, reps, axis=2)
    d = q.shape[-1]
    s = float(1.0 / np.sqrt(d)) if scale is None else float(scale)
    logits = _o.multiply(_o.einsum("bqhd,bkhd->bhqk", q, k), s)
    if bias is not None:
        logits = _o.add(logits, convert_to_tensor(bias, dtype=logits.dtype))
    allowed = None
    if mask is not None:
        allowed = np.broadcast_to(convert_to_numpy(mask).astype(bool), tuple(logits.shape))
    if is_causal:
        causal = np.tril(np.ones((q.shape[1], k.shape[1]), bool))
        allowed = causal if allowed is None else allowed & causal
    if allowed is not None:
        big = np.finfo(logits._value.dtype).min
        logits = _o.where(Tensor(np.broadcast_to(allowed, tuple(logits.shape))), logits,
                          _o.add(_o.zeros_like(logits), float(big)))
    weights = _nn.softmax(logits, axis=-1)
    return _o.einsum("bhqk,bkhd->bqhd", weights, v)


__all__ += [
    "arccos", "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "cosh", "sinh", "tan", "erf", "cbrt", "rsqrt",
    "log2", "log10", "exp2", "reciprocal", "deg2rad", "rad2deg", "fabs", "trunc", "signbit", "isneginf",
    "isposinf", "isreal", "arctan2", "hypot", "logaddexp", "logaddexp2", "floor_divide", "mod", "fmod", "fmax",
    "fmin", "heaviside", "divide_no_nan", "logical_xor", "gcd", "lcm", "bitwise_and", "bitwise_or", "bitwise_xor",
    "bitwise_left_shift", "left_shift", "bitwise_right_shift", "right_shift", "bitwise_invert", "bitwise_not",
    "amax", "amin", "average", "count_nonzero", "logsumexp", "ptp", "cumprod", "nansum", "nanmean", "nanmax",
    "nanmin", "nanprod", "nancumsum", "nancumprod", "nanvar", "nanstd", "append", "flip", "fliplr", "flipud", "roll",
    "repeat", "moveaxis", "swapaxes", "ravel", "copy", "empty", "empty_like", "identity", "tri", "tril", "triu",
    "diagonal", "diag", "diagflat", "trace", "hstack", "vstack", "dstack", "split", "array_split", "hsplit",
    "vsplit", "dsplit", "unstack", "pad", "outer", "inner", "vdot", "tensordot", "cross", "linspace", "logspace",
    "geomspace", "meshgrid", "sort", "argsort", "take_along_axis", "top_k", "in_top_k", "segment_sum",
    "segment_max", "segment_min", "isclose", "allclose", "isin", "digitize", "searchsorted", "nonzero", "select",
    "slice", "slice_update", "scatter", "scatter_update", "get_item", "nan_to_num", "saturate_cast", "cond",
    "while_loop", "fori_loop", "scan", "map", "switch", "vectorized_map", "custom_gradient", "relu6", "elu", "selu",
    "gelu", "silu", "swish", "softplus", "softsign", "leaky_relu", "log_sigmoid", "hard_sigmoid", "hard_silu",
    "hard_swish", "celu", "glu", "hard_tanh", "hard_shrink", "soft_shrink", "tanh_shrink", "sparse_plus",
    "sparse_sigmoid", "squareplus", "threshold", "sparsemax", "normalize", "moments", "batch_normalization",
    "rms_normalization", "layer_normalization", "multi_hot", "binary_crossentropy", "categorical_crossentropy",
    "sparse_categorical_crossentropy", "dot_product_attention",
]


# ---------------------------------------------------------------- linear algebra (issue 37)
def inv(x):
    """The inverse of each square matrix of the last two axes."""
    return _linalg.inv(_floating(x))


def det(x):
    """The determinant of each square matrix."""
    return _linalg.det(_floating(x))


def slogdet(x):
    """``(sign, log|det|)`` of each square matrix."""
    return _linalg.slogdet(_floating(x))


def logdet(x):
    """``log(det(x))`` of each symmetric positive-definite matrix."""
    return _linalg.logdet(_floating(x))


def solve(a, b):
    """``x`` with ``a @ x = b``."""
    a, b = _promote(_floating(a), _floating(b))
    return _linalg.solve(a, b)


def solve_triangular(a, b, lower=False):
    """``x`` with ``T @ x = b`` for the lower (``lower=True``) or upper triangle ``T`` of ``a``; ``b`` holds
    matrices (``(..., n, k)``) or, one rank below ``a``, vectors (``(..., n)``)."""
    a, b = _promote(_floating(a), _floating(b))
    if b.ndim == a.ndim - 1:  # one right-hand side vector per matrix
        return _o.squeeze(_linalg.triangular_solve(a, _o.expand_dims(b, -1), lower=lower), axis=-1)
    return _linalg.triangular_solve(a, b, lower=lower)


def cholesky(x, upper=False):
    """The Cholesky factor of each symmetric positive-definite matrix (lower, or upper with ``upper=True``)."""
    factor = _linalg.cholesky(_floating(x))
    return _linalg.matrix_transpose(factor) if upper else factor


__all__ += ["inv", "det", "slogdet", "logdet", "solve", "solve_triangular", "cholesky"]


# ---------------------------------------------------------------- convolutions and pooling (issue 37)
def _channels_last(data_format):
    return data_format in (None, "channels_last")


def _to_last(x, data_format):
    return x if _channels_last(data_format) else _o.transpose(x, perm=(0, *range(2, x.ndim), 1))


def _from_last(y, data_format):
    return y if _channels_last(data_format) else _o.transpose(y, perm=(0, y.ndim - 1, *range(1, y.ndim - 1)))


def conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """The N-d convolution of Keras' ``ops.conv`` (1-D, 2-D or 3-D by the kernel's rank)."""
    x, k = _promote(_floating(inputs), _floating(kernel))
    x = _to_last(x, data_format)
    groups = x.shape[-1] // k.shape[-2] if k.shape[-2] else 1
    if groups > 1 and x.shape[-1] == groups * k.shape[-2] and k.shape[-1] % groups == 0:
        # a grouped convolution (Keras infers the groups from the channels): each group of input channels with its
        # share of the filters, the outputs side by side
        per = k.shape[-1] // groups
        xs = [x[..., g * k.shape[-2]:(g + 1) * k.shape[-2]] for g in range(groups)]
        y = _o.concat([_nn.convolution(xg, k[..., g * per:(g + 1) * per], strides=strides, padding=padding.upper(),
                                       dilations=dilation_rate) for g, xg in enumerate(xs)], axis=-1)
    else:
        y = _nn.convolution(x, k, strides=strides, padding=padding.upper(), dilations=dilation_rate)
    return _from_last(y, data_format)


def depthwise_conv(inputs, kernel, strides=1, padding="valid", data_format=None, dilation_rate=1):
    """Each input channel convolved with its own filters (2-D, or 1-D as a 2-D of height 1)."""
    x, k = _promote(_floating(inputs), _floating(kernel))
    x = _to_last(x, data_format)
    if x.ndim == 3:
        s = strides if isinstance(strides, int) else strides[0]
        d = dilation_rate if isinstance(dilation_rate, int) else dilation_rate[0]
        y = _o.squeeze(_nn.depthwise_conv2d(_o.expand_dims(x, 1), _o.expand_dims(k, 0), (1, s), padding.upper(),
                                            dilations=(1, d)), axis=1)
    else:
        y = _nn.depthwise_conv2d(x, k, strides, padding.upper(), dilations=dilation_rate)
    return _from_last(y, data_format)


def separable_conv(inputs, depthwise_kernel, pointwise_kernel, strides=1, padding="valid", data_format=None,
                   dilation_rate=1):
    """A depthwise convolution followed by a pointwise (1x1) one."""
    y = depthwise_conv(inputs, depthwise_kernel, strides, padding, data_format, dilation_rate)
    return conv(y, pointwise_kernel, 1, "valid", data_format)


def conv_transpose(inputs, kernel, strides=1, padding="valid", output_padding=None, data_format=None,
                   dilation_rate=1):
    """The transposed convolution (1-D or 2-D), with Keras' output size."""
    from ..ops.conv_more_ops import transposed_output_size

    x, k = _promote(_floating(inputs), _floating(kernel))
    x = _to_last(x, data_format)
    rank = x.ndim - 2
    st = (strides,) * rank if isinstance(strides, int) else tuple(strides)
    dl = (dilation_rate,) * rank if isinstance(dilation_rate, int) else tuple(dilation_rate)
    op_ = (output_padding,) * rank if isinstance(output_padding, int) or output_padding is None else tuple(
        output_padding)
    out = [transposed_output_size(n, kk, s, padding, p, d)
           for n, kk, s, p, d in zip(x.shape[1:-1], k.shape[:rank], st, op_, dl)]
    if rank == 1:
        y = _nn.conv1d_transpose(x, k, (x.shape[0], out[0], k.shape[-2]), strides=st[0], padding=padding.upper(),
                                 dilations=dl[0])
    else:
        y = _nn.conv2d_transpose(x, k, (x.shape[0], *out, k.shape[-2]), strides=st, padding=padding.upper(),
                                 dilations=dl)
    return _from_last(y, data_format)


def max_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Max pooling (1-D or 2-D); ``strides`` defaults to ``pool_size``."""
    x = _to_last(_floating(inputs), data_format)
    y = _nn.max_pool(x, pool_size, pool_size if strides is None else strides, padding.upper())
    return _from_last(y, data_format)


def average_pool(inputs, pool_size, strides=None, padding="valid", data_format=None):
    """Average pooling (1-D or 2-D); ``strides`` defaults to ``pool_size``."""
    x = _to_last(_floating(inputs), data_format)
    y = _nn.avg_pool(x, pool_size, pool_size if strides is None else strides, padding.upper())
    return _from_last(y, data_format)


def _block_size(block_size, owner):
    if isinstance(block_size, bool) or not isinstance(block_size, (int, np.integer)) or block_size < 2:
        raise ValueError(f"{owner}: `block_size` must be at least 2. Received: block_size={block_size!r}")


def depth_to_space(x, block_size, data_format="channels_last"):
    """Channels moved into spatial blocks (channels last); ``block_size`` at least 2."""
    _block_size(block_size, "depth_to_space")
    return _from_last(_nn.depth_to_space(_to_last(convert_to_tensor(x), data_format), block_size), data_format)


def space_to_depth(x, block_size, data_format="channels_last"):
    """Spatial blocks moved into channels (channels last); ``block_size`` at least 2."""
    _block_size(block_size, "space_to_depth")
    return _from_last(_nn.space_to_depth(_to_last(convert_to_tensor(x), data_format), block_size), data_format)


# ---------------------------------------------------------------- more NumPy (issue 37)
def rot90(array, k=1, axes=(0, 1)):
    """``array`` rotated by 90 degrees ``k`` times in the plane ``axes`` (NumPy's ``rot90``)."""
    x = convert_to_tensor(array)
    if x.ndim < 2:
        raise ValueError(f"rot90: Input array must have at least 2 dimensions. Received: array.ndim={x.ndim}")
    if len(axes) != 2 or axes[0] % x.ndim == axes[1] % x.ndim:
        raise ValueError(f"rot90: Invalid axes: {axes}. Axes must be a tuple of two different dimensions.")
    k = int(k) % 4
    a, b = (ax % x.ndim for ax in axes)
    for _ in range(k):  # one turn: reverse b, then swap a and b
        x = swapaxes(_o.reverse(x, [b]), a, b)
    return x


def kron(x1, x2):
    """The Kronecker product (NumPy's ``kron``, any ranks: the lower-ranked operand gets leading axes of 1)."""
    a, b = _promote(x1, x2)
    rank = builtins.max(a.ndim, b.ndim)
    sa = (1,) * (rank - a.ndim) + tuple(a.shape)
    sb = (1,) * (rank - b.ndim) + tuple(b.shape)
    # a[i1.., ir] * b[j1.., jr] laid out as (i1, j1, i2, j2, ...), then each pair merged into one axis
    a = _o.reshape(a, builtins.tuple(d for m in sa for d in (m, 1)))
    b = _o.reshape(b, builtins.tuple(d for p in sb for d in (1, p)))
    return _o.reshape(_o.multiply(a, b), builtins.tuple(m * p for m, p in zip(sa, sb)))


def diff(a, n=1, axis=-1):
    """The ``n``-th discrete difference along ``axis``."""
    x = convert_to_tensor(a)
    sub = _o.not_equal if x._value.dtype == np.bool_ else _o.subtract  # (bools differ, as NumPy's and Keras')
    for _ in range(int(n)):
        size = x.shape[axis]
        hi = [builtins.slice(None)] * x.ndim
        lo = [builtins.slice(None)] * x.ndim
        hi[axis], lo[axis] = builtins.slice(1, size), builtins.slice(0, size - 1)
        x = sub(x[builtins.tuple(hi)], x[builtins.tuple(lo)])
    return x


_QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def quantile(x, q, axis=None, method="linear", keepdims=False):
    """The ``q``-quantiles (in [0, 1]) over ``axis`` (None: all; an int or a tuple of ints), the ``q`` axes first,
    by NumPy's ``method``: ``"linear"`` interpolation between the sorted values (the default), ``"lower"``,
    ``"higher"``, ``"nearest"`` (one of them) or ``"midpoint"`` (their mean); differentiable through the sort."""
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"quantile: `method` must be one of {', '.join(builtins.map(repr, _QUANTILE_METHODS))}. Received: "
                         f"method={method!r}")
    x = _floating(x)
    nd = x.ndim
    axes = builtins.list(builtins.range(nd)) if axis is None else sorted(
        {int(a) % builtins.max(nd, 1) for a in ((axis,) if isinstance(axis, (int, np.integer)) else axis)})
    others = [i for i in builtins.range(nd) if i not in axes]
    other_shape = [x.shape[i] for i in others]
    rows = _o.reshape(_o.transpose(x, others + axes) if nd else x, other_shape + [-1])
    s = _o.sort(rows, axis=-1)
    n = rows.shape[-1]
    qs = np.asarray(q, np.float64)
    outs = []
    for qq in qs.reshape(-1):
        pos = qq * (n - 1)
        lo, hi = int(np.floor(pos)), int(np.ceil(pos))
        if method in ("lower", "higher", "nearest"):  # NumPy's choice of index, for NumPy's tie rules
            k = int(np.quantile(np.arange(n, dtype=np.float64), qq, method=method))
            outs.append(s[..., k])
            continue
        a, b = s[..., lo], s[..., hi]
        frac = 0.5 if method == "midpoint" else float(pos - lo)
        outs.append(_o.add(a, _o.multiply(_o.subtract(b, a), frac)))
    out = _o.reshape(_o.stack(outs, axis=0), builtins.list(qs.shape) + other_shape)
    if keepdims:
        out = _o.reshape(out, builtins.list(qs.shape) + [1 if i in axes else x.shape[i] for i in builtins.range(nd)])
    return out


def percentile(x, q, axis=None, method="linear", keepdims=False):
    """``quantile(x, q / 100)``."""
    return quantile(x, np.asarray(q, np.float64) / 100.0, axis=axis, method=method, keepdims=keepdims)


def median(x, axis=None, keepdims=False):
    """The median over ``axis`` (the mean of the two middle values for an even count)."""
    return quantile(x, 0.5, axis=axis, keepdims=keepdims)


def sinc(x):
    """``sin(pi x) / (pi x)``, 1 at 0."""
    x = _floating(x)
    px = _o.multiply(x, float(np.pi))
    safe = _o.where(_o.equal(x, 0.0), _o.ones_like(x), px)
    return _o.where(_o.equal(x, 0.0), _o.ones_like(x), _o.divide(_o.sin(safe), safe))


def ldexp(x1, x2):
    """``x1 * 2**x2`` for integer ``x2``."""
    x1 = _floating(x1)
    return _o.multiply(x1, _o.cast(_o.pow(2.0, _o.cast(convert_to_tensor(x2), x1.dtype)), x1.dtype))


def nextafter(x1, x2):
    """The next float after ``x1`` toward ``x2`` (no gradient)."""
    return _math.nextafter(*_floating_pair(x1, x2))


def real(x):
    """The real part: ``x`` (descend's tensors are real)."""
    return _math.real(convert_to_tensor(x))


def imag(x):
    """The imaginary part: zeros."""
    return _math.imag(convert_to_tensor(x))


def conj(x):
    """The complex conjugate: ``x``."""
    return _math.conj(convert_to_tensor(x))


conjugate = conj


def angle(x):
    """pi where ``x`` is negative, else 0."""
    return _math.angle(_floating(x))


erfc = _float_unary(_o.erfc, "The complementary error function (ints as ``floatx()``).")
erfinv = _float_unary(_o.erfinv, "The inverse error function (ints as ``floatx()``).")


def unravel_index(indices, shape):
    """The coordinates of flat ``indices`` in an array of ``shape``, one tensor per axis."""
    coords = np.unravel_index(convert_to_numpy(indices), builtins.tuple(shape))
    return builtins.tuple(Tensor(np.asarray(c).astype(convert_to_numpy(indices).dtype)) for c in coords)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The integral of ``y`` by the trapezoidal rule (spacing ``dx``, or the points ``x``)."""
    y = _floating(y)
    n = y.shape[axis]
    a = [builtins.slice(None)] * y.ndim
    b = [builtins.slice(None)] * y.ndim
    a[axis], b[axis] = builtins.slice(1, n), builtins.slice(0, n - 1)
    pair = _o.multiply(_o.add(y[builtins.tuple(a)], y[builtins.tuple(b)]), 0.5)
    if x is None:
        return _o.multiply(_o.reduce_sum(pair, axis=axis), float(dx))
    return _o.reduce_sum(_o.multiply(pair, diff(_floating(x), axis=axis)), axis=axis)


def vander(x, N=None, increasing=False):  # noqa: N803 - Keras' name
    """The Vandermonde matrix of the vector ``x``: columns ``x**(N-1), ..., x**0`` (reversed if ``increasing``)."""
    x = convert_to_tensor(x)
    n = x.shape[0] if N is None else int(N)
    powers = range(n) if increasing else range(n - 1, -1, -1)
    cols = [_o.pow(x, x._value.dtype.type(p)) if p else _o.ones_like(x) for p in powers]
    return _o.stack(cols, axis=1)


def corrcoef(x):
    """The correlation coefficients of the rows of ``x``."""
    x = _floating(x)
    centred = _o.subtract(x, _o.reduce_mean(x, axis=1, keepdims=True))
    cov = _o.matmul(centred, centred, transpose_b=True)
    d = _o.sqrt(_linalg.diag_part(cov))
    return _o.divide(cov, _o.multiply(_o.expand_dims(d, 1), _o.expand_dims(d, 0)))


def cdist(x1, x2, metric="euclidean"):
    """The pairwise distances between the rows of ``x1`` and ``x2`` (``"euclidean"``, ``"sqeuclidean"``,
    ``"cityblock"``)."""
    a, b = _promote(_floating(x1), _floating(x2))
    d = _o.subtract(_o.expand_dims(a, -2), _o.expand_dims(b, -3))
    if metric == "cityblock":
        return _o.reduce_sum(_o.abs(d), axis=-1)
    sq = _o.reduce_sum(_o.square(d), axis=-1)
    if metric == "sqeuclidean":
        return sq
    if metric == "euclidean":
        return _o.sqrt(sq)
    raise ValueError(f"cdist: `metric` must be 'euclidean', 'sqeuclidean' or 'cityblock'. Received: {metric!r}")


def nanargmax(x, axis=None, keepdims=False):
    """The index of the largest value ignoring NaN."""
    return argmax(_nan_filled(x, -np.inf), axis=axis, keepdims=keepdims)


def nanargmin(x, axis=None, keepdims=False):
    """The index of the smallest value ignoring NaN."""
    return argmin(_nan_filled(x, np.inf), axis=axis, keepdims=keepdims)


def bincount(x, weights=None, minlength=0, sparse=False):
    """How many times each non-negative int occurs (weighted sums with ``weights``)."""
    return _math.bincount(convert_to_tensor(x), weights=weights, minlength=minlength,
                          dtype="int32", axis=-1 if convert_to_tensor(x).ndim == 2 else None)


__all__ += ["conv", "depthwise_conv", "separable_conv", "conv_transpose", "max_pool", "average_pool",
            "depth_to_space", "space_to_depth", "rot90", "kron", "diff", "quantile", "percentile", "median", "sinc",
            "ldexp", "nextafter", "real", "imag", "conj", "conjugate", "angle", "erfc", "erfinv", "unravel_index",
            "trapezoid", "vander", "corrcoef", "cdist", "nanargmax", "nanargmin", "bincount"]


# ------------------------------------------------------------------------------- windows and histogram
def _window_length(fn, x) -> int:
    n = convert_to_numpy(x) if isinstance(x, (Tensor, Variable)) else x
    if isinstance(n, np.ndarray) and n.ndim == 0:  # a scalar tensor of any dtype, cast to int as Keras does
        n = int(n.item()) if float(n.item()) == int(n.item()) else n.item()
    if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"{fn}: `x` (the window length) must be an int; received {x!r} of type {type(x).__name__}")
    if n < 0:
        raise ValueError(f"{fn}: `x` (the window length) must be non-negative; received {n}")
    return int(n)


def _window(fn, x, make):
    return Tensor(make(_window_length(fn, x)).astype(_backend.floatx()))


def bartlett(x):
    """The symmetric Bartlett (triangular) window of ``x`` points, ``floatx()``."""
    return _window("bartlett", x, np.bartlett)


def blackman(x):
    """The symmetric Blackman window of ``x`` points, ``floatx()``."""
    return _window("blackman", x, np.blackman)


def hamming(x):
    """The symmetric Hamming window of ``x`` points, ``floatx()``."""
    return _window("hamming", x, np.hamming)


def hanning(x):
    """The symmetric Hann window of ``x`` points, ``floatx()``."""
    return _window("hanning", x, np.hanning)


def kaiser(x, beta):
    """The symmetric Kaiser window of ``x`` points with shape parameter ``beta``, ``floatx()``."""
    return _window("kaiser", x, lambda n: np.kaiser(n, float(beta)))


def histogram(x, bins=10, range=None):  # noqa: A002 - Keras' name
    """``(counts, bin_edges)`` of the 1-D ``x`` over ``bins`` equal bins spanning ``range`` (default: ``x``'s
    min to max), as Keras: values outside ``range`` are dropped, the last bin includes its right edge, the edges
    take ``x``'s dtype (so int inputs get truncated int edges) and the counts too (not differentiable)."""
    if isinstance(bins, (bool, np.bool_)) or not isinstance(bins, (int, np.integer)):
        raise TypeError(f"histogram: Argument `bins` must be of type `int`. Received: bins={bins!r}")
    if bins < 0:
        raise ValueError(f"histogram: Argument `bins` should be a non-negative integer. Received: bins={bins}")
    if bins == 0:
        raise ValueError("histogram: Argument `bins` must be at least 1 (no bin has no edges). Received: bins=0")
    if range is not None and (not isinstance(range, tuple) or len(range) != 2):
        raise ValueError(f"histogram: Argument `range` must be a tuple of two elements. Received: range={range!r}")
    if range is not None and range[1] < range[0]:
        raise ValueError("histogram: The second element of `range` must be greater than the first. "
                         f"Received: range={range!r}")
    a = convert_to_numpy(x)
    if a.ndim != 1:
        raise ValueError(f"histogram: Input tensor must be 1-dimensional. Received: input.shape={a.shape}")
    if range is None:
        if a.size == 0:
            raise ValueError("histogram: `x` is empty and no `range` was given")
        lo, hi = a.min(), a.max()
    else:
        lo, hi = range
    kept = a[(a >= lo) & (a <= hi)]
    if range is None:  # the edges are computed in x's dtype (float64 for ints), as Keras' TF backend
        step = np.dtype(a.dtype if a.dtype.kind == "f" else np.float64).type
    else:  # ... or in the range's: a Python float is float32 to TF, an int float64
        given = np.float32 if builtins.type(lo) is float else np.asarray(lo).dtype
        step = np.dtype(given if np.dtype(given).kind == "f" else np.float64).type
    lo_f, hi_f = step(lo), step(hi)
    edges = lo_f + np.arange(bins + 1).astype(step) * ((hi_f - lo_f) / step(bins))
    edges[-1] = hi_f
    edges = edges.astype(a.dtype)
    index = np.searchsorted(edges[1:-1], kept, side="right")
    counts = np.bincount(index, minlength=bins).astype(a.dtype)
    return Tensor(counts), Tensor(edges)


__all__ += ["bartlett", "blackman", "hamming", "hanning", "kaiser", "histogram"]


def cholesky_inverse(x, upper=False):
    """The inverse of the matrix ``A`` whose Cholesky factor is ``x`` (lower: ``A = x @ x.T``; ``upper=True``:
    ``A = x.T @ x``), as Keras: ``inv(x)`` by a triangular solve, then its product with its transpose."""
    x = _floating(x)
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"cholesky_inverse: `x` must be square matrices in its last two axes; received shape "
                         f"{x.shape}")
    eye_ = _o.cast(_linalg.eye(x.shape[-1]), x._value.dtype.name)
    inv_factor = _linalg.triangular_solve(x, _o.broadcast_to(eye_, x.shape), lower=not upper)
    if upper:
        return _o.matmul(inv_factor, inv_factor, transpose_b=True)
    return _o.matmul(inv_factor, inv_factor, transpose_a=True)


__all__ += ["cholesky_inverse"]


def view(x, dtype=None):
    """``x``'s bytes read as ``dtype``, NumPy's ``ndarray.view``: a narrower dtype multiplies the last axis by the
    item-size ratio, a wider one divides it (it must divide evenly); not differentiable."""
    from ..ops.bitcast_ops import bitcast

    x = convert_to_tensor(x)
    old = x._value.dtype
    new = np.dtype(_backend.np_dtype(dtype)) if dtype is not None else old
    shape = list(x.shape)
    if (not shape and old.itemsize != new.itemsize) or (shape and shape[-1] * old.itemsize % new.itemsize):
        raise ValueError(f"view: cannot view an array of shape {tuple(shape)} and dtype {old} as {new}: the last "
                         f"axis' bytes are not divisible by the new item size {new.itemsize}")
    if old.itemsize == new.itemsize:
        return bitcast(x, new.name)
    if old.itemsize > new.itemsize:
        return _o.reshape(bitcast(x, new.name), shape[:-1] + [shape[-1] * (old.itemsize // new.itemsize)])
    ratio = new.itemsize // old.itemsize
    return bitcast(_o.reshape(x, shape[:-1] + [shape[-1] // ratio, ratio]), new.name)


__all__ += ["view"]


def nanquantile(x, q, axis=None, method="linear", keepdims=False):
    """:func:`quantile` ignoring NaN: each slice over ``axis`` (None: all; an int or a tuple) keeps its non-NaN
    values (NaN where it has none), as Keras; the ``q`` axis, if any, comes first; ``q`` is taken in
    ``floatx()`` as Keras does. Differentiable in the kept values."""
    if method not in _QUANTILE_METHODS:
        raise ValueError(f"nanquantile: `method` must be one of {', '.join(builtins.map(repr, _QUANTILE_METHODS))}. "
                         f"Received: method={method!r}")
    x = _floating(x)
    nd = x.ndim
    axes = list(range(nd)) if axis is None else [a % nd for a in ((axis,) if isinstance(axis, int) else axis)]
    others = [i for i in range(nd) if i not in axes]
    xt = _o.transpose(x, others + axes) if nd else x
    other_shape = [x.shape[i] for i in others]
    rows = _o.reshape(xt, (int(np.prod(other_shape, dtype=np.int64)), -1))
    nan = np.isnan(rows._value)
    qs = np.asarray(q, _backend.floatx()).astype(np.float64)  # Keras takes q as floatx()
    outs = []
    for r in builtins.range(rows.shape[0]):
        keep = np.flatnonzero(~nan[r])
        if keep.size:
            outs.append(quantile(_o.gather(rows[r], keep), qs, method=method))
        else:
            outs.append(Tensor(np.full(qs.shape, np.nan, dtype=x._value.dtype)))
    res = _o.stack(outs, axis=-1) if outs else Tensor(np.zeros(qs.shape + (0,), x._value.dtype))
    res = _o.reshape(res, list(qs.shape) + other_shape)
    if keepdims:
        res = _o.reshape(res, list(qs.shape) + [1 if i in axes else x.shape[i] for i in range(nd)])
    return res


def nanpercentile(x, q, axis=None, method="linear", keepdims=False):
    """``nanquantile(x, q / 100)``."""
    q100 = np.asarray(q, _backend.floatx()) / np.asarray(100.0, _backend.floatx())  # in floatx(), as Keras
    return nanquantile(x, q100, axis=axis, method=method, keepdims=keepdims)


def nanmedian(x, axis=None, keepdims=False):
    """The median over ``axis`` ignoring NaN (NaN where a slice has no other value)."""
    if axis == () or axis == []:
        return convert_to_tensor(x)
    return nanquantile(x, 0.5, axis=axis, keepdims=keepdims)


__all__ += ["nanquantile", "nanpercentile", "nanmedian"]


def psnr(x1, x2, max_val):
    """The peak signal-to-noise ratio ``20 log10(max_val) - 10 log10(mean((x1 - x2)**2))`` over all entries (one
    scalar, as Keras' ``ops.psnr``; ``tf.image.psnr`` gives one per image)."""
    x1, x2 = convert_to_tensor(x1), convert_to_tensor(x2)
    if builtins.tuple(x1.shape) != builtins.tuple(x2.shape):
        raise ValueError(f"psnr: `x1` and `x2` must have the same shape; received {x1.shape} and {x2.shape}")
    peak = _o.cast(convert_to_tensor(max_val), x2._value.dtype.name)
    mse = mean(square(subtract(x1, x2)))
    return subtract(multiply(log10(peak), 20.0), multiply(log10(mse), 10.0))


__all__ += ["psnr"]


# the decompositions, Fourier transforms, framing, unique... (issue 37): descend/keras/ops_more.py
from . import ops_more as _more  # noqa: E402
from .ops_more import *  # noqa: E402, F403

__all__ += _more.__all__


def _sub_namespace(name: str, names: tuple, source: dict | None = None):
    """``keras.ops.<name>``: a module holding the functions Keras puts there (``names``) that ``source`` (this
    module's globals by default) has."""
    import sys
    import types

    source = globals() if source is None else source
    module = types.ModuleType(f"{__name__}.{name}", f"Keras 3's ``keras.ops.{name}``: the functions of descend "
                                                    f"that Keras puts there.")
    module.__all__ = [n for n in names if n in source and not n.startswith("_")]
    for n in module.__all__:
        setattr(module, n, source[n])
    sys.modules[module.__name__] = module  # `import descend.keras.ops.numpy` works too
    return module


from . import _ops_namespaces  # noqa: E402
from . import ops_image as _ops_image  # noqa: E402  (keras.ops.image's own functions)

linalg = _sub_namespace("linalg", _ops_namespaces.LINALG)
nn = _sub_namespace("nn", _ops_namespaces.NN)
numpy = _sub_namespace("numpy", _ops_namespaces.NUMPY)
image = _sub_namespace("image", _ops_namespaces.IMAGE, vars(_ops_image))  # not names of keras.ops itself


def __getattr__(name):
    from .._api_exclusions import refuse

    raise refuse("keras.ops", name, __name__)


# Keras' Operation classes (issue 37): made in descend.keras.operations from the functions above; each family's in
# its sub-namespace (ops.nn.Softmax, ops.image.Resize), and all but the image ones in keras.ops itself too, where
# Keras' keras.src.ops.core / .math / .numpy classes are looked up
from . import operations as _operations  # noqa: E402

_operations.register(sys.modules[__name__], _ops_image)
Operation = _operations.Operation
for _family, _classes in _operations.FAMILIES.items():
    for _class_name, _class in _classes.items():
        if _family != "image":
            globals()[_class_name] = _class
        if _family in ("image", "linalg", "nn", "numpy"):
            setattr(globals()[_family], _class_name, _class)
del _family, _classes, _class_name, _class
