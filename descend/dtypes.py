"""``descend.dtypes``: the dtype names under ``tf.dtypes`` (each the same object as ``descend.<name>``).

descend has no complex, bfloat16 or quantized tensors, so those names are absent; ``string`` is TF's byte-string
dtype (values are NumPy object arrays of ``bytes``, as TF's ``.numpy()`` gives).

Example:
    >>> import descend as ds
    >>> ds.dtypes.float32 is ds.float32, ds.dtypes.half is ds.float16, ds.bool == "bool"
    (True, True, True)
    >>> ds.dtypes.as_dtype("int64").is_integer
    True
"""

from .backend import (
    DType,
    as_dtype,
    bool_,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .ops.math_ops import cast

# TF's names for the same dtypes; ``bool`` is kept out of ``__all__`` so that ``from descend.dtypes import *``
# does not hide Python's bool
bool = bool_  # noqa: A001
half = float16
double = float64

__all__ = ["DType", "as_dtype", "cast", "bool_", "half", "double", "float16", "float32", "float64", "int8", "int16",
           "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "string"]
