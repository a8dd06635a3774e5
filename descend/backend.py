"""The dtypes (``DType``, ``float32``, ...) and the dtype policy: default float type as TensorFlow's
(Python floats become float32, Python ints become int32; ``floatx``/``set_floatx``).

``xp`` is NumPy, and it is not a seam: only the Tensor conversions (framework/tensor.py) go
through it, while the ops, layers, losses, metrics and optimizers call NumPy directly (``np.``,
some 2,600 uses). Dropping another array library in as ``xp`` would not move their computation.
The one backend seam descend has today is the kernel backend (:mod:`descend._native.backend`): the
optimizers' elementwise update rules are compiled to kernels through it (numba on the CPU).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "xp",
    "DType",
    "dtype_of",
    "np_dtype",
    "floatx",
    "set_floatx",
    "as_dtype",
    "is_floating",
    "is_integer",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "bool_",
    "string",
]

xp = np



class DType:
    """A dtype as TensorFlow code expects it (``.base_dtype``, ``.as_numpy_dtype``...).

    NumPy accepts it wherever it accepts a dtype (it has a ``.dtype``), and it
    compares equal to the NumPy dtype, type or name it stands for.
    """

    __slots__ = ("dtype",)

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)

    name = property(lambda self: self.dtype.name)
    kind = property(lambda self: self.dtype.kind)
    itemsize = property(lambda self: self.dtype.itemsize)
    size = itemsize
    base_dtype = property(lambda self: self)
    as_numpy_dtype = property(lambda self: self.dtype.type)
    is_floating = property(lambda self: self.dtype.kind == "f")
    is_integer = property(lambda self: self.dtype.kind in "iu")
    is_bool = property(lambda self: self.dtype.kind == "b")
    is_unsigned = property(lambda self: self.dtype.kind == "u")
    is_complex = property(lambda self: self.dtype.kind == "c")
    is_numpy_compatible = True

    @property
    def min(self):
        return np.finfo(self.dtype).min if self.is_floating else np.iinfo(self.dtype).min

    @property
    def max(self):
        return np.finfo(self.dtype).max if self.is_floating else np.iinfo(self.dtype).max

    def __eq__(self, other):
        if isinstance(other, DType):
            return self.dtype == other.dtype
        try:
            return self.dtype == np.dtype(other)
        except (TypeError, ValueError):  # not a dtype (TF: unequal, not an error)
            return NotImplemented

    def __hash__(self):
        return hash(self.dtype)

    def __repr__(self):
        return f"descend.{self.dtype.name}"

    def __str__(self):
        return self.dtype.name


_DTYPES: dict = {}


def dtype_of(np_dtype) -> DType:
    """The (cached) DType for a NumPy dtype."""
    d = _DTYPES.get(np_dtype)
    if d is None:
        d = _DTYPES[np_dtype] = DType(np_dtype)
    return d


float16 = dtype_of(np.dtype("float16"))
float32 = dtype_of(np.dtype("float32"))
float64 = dtype_of(np.dtype("float64"))
int8 = dtype_of(np.dtype("int8"))
int16 = dtype_of(np.dtype("int16"))
int32 = dtype_of(np.dtype("int32"))
int64 = dtype_of(np.dtype("int64"))
uint8 = dtype_of(np.dtype("uint8"))
uint16 = dtype_of(np.dtype("uint16"))
uint32 = dtype_of(np.dtype("uint32"))
uint64 = dtype_of(np.dtype("uint64"))
bool_ = dtype_of(np.dtype("bool"))


class _StringDType(DType):
    """TF's ``string``: a tensor of byte strings, held as a NumPy object array of ``bytes`` (what TF's
    ``.numpy()`` returns). It has no range and no gradient."""

    __slots__ = ()
    name = property(lambda self: "string")
    is_numpy_compatible = False

    @property
    def min(self):
        raise TypeError("Cannot find minimum value of string.")

    @property
    def max(self):
        raise TypeError("Cannot find maximum value of string.")

    def __repr__(self):
        return "descend.string"

    def __str__(self):
        return "string"


string = _DTYPES[np.dtype(object)] = _StringDType(object)

_FLOATX = float32


def floatx() -> np.dtype:
    """The NumPy dtype Python floats and initializers default to (float32)."""
    return _FLOATX.dtype


def set_floatx(dtype) -> None:
    """Set the default float dtype (``"float32"`` or ``"float64"``)."""
    global _FLOATX
    d = as_dtype(dtype)
    if not d.is_floating:
        raise ValueError(f"floatx must be a floating dtype. Received: {dtype!r}")
    _FLOATX = d


def np_dtype(dtype) -> np.dtype:
    """Normalise ``"float32"``, ``np.float32``, a DType or a NumPy dtype to ``np.dtype``."""
    if isinstance(dtype, np.dtype):
        resolved = dtype
    else:
        try:
            resolved = np.dtype(dtype)
        except TypeError as e:
            if dtype == "string":  # TF's name for string (NumPy has no such dtype name)
                return string.dtype
            if isinstance(dtype, str) and dtype.startswith(("bfloat16", "float8", "float4", "int4", "uint4")):
                raise TypeError(f"Not a dtype. Received: {dtype!r} (descend has no {dtype}: NumPy has none)") from e
            raise TypeError(f"Not a dtype. Received: {dtype!r}") from e
    if resolved.type.__module__.startswith("ml_dtypes"):
        # bfloat16, float8_*, int4...: NumPy has none; ml_dtypes adds them to NumPy's names once TF or JAX imports
        # it, and descend refuses them alike whatever else the process imported
        raise TypeError(f"Not a dtype. Received: {str(dtype)!r} (descend has no {resolved.name}: NumPy has none)")
    return resolved


def as_dtype(dtype) -> DType:
    """The :class:`DType` for ``"float32"``, ``np.float32``, a NumPy dtype or a DType."""
    return dtype if isinstance(dtype, DType) else dtype_of(np_dtype(dtype))


def is_floating(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def is_integer(dtype) -> bool:
    return np.dtype(dtype).kind in "iu"
