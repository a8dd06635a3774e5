"""``tf.bitcast``: a tensor's bytes read as another numeric dtype, without copying or converting values.

Example:
    >>> import numpy as np, descend as ds
    >>> ds.bitcast(np.float32(1.0), "int32").numpy()
    array(1065353216, dtype=int32)
    >>> ds.bitcast(np.array([1, 2], np.int32), "uint8").shape
    TensorShape([2, 4])
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.op import defop

__all__ = ["bitcast"]


def _numeric(fn, what, dt: np.dtype) -> None:
    if dt.kind not in "iufc":
        raise TypeError(f"{fn}: {what} must be a numeric dtype (ints, floats, complex); received {dt}")


@defop("bitcast", differentiable=False)
def _bitcast(x, type=None):  # noqa: A002 - TF's name
    out = np.dtype(type)
    a = np.asarray(x, order="C")  # (ascontiguousarray would make a scalar 1-D)
    if a.itemsize == out.itemsize:
        return a.view(out).copy()
    if a.itemsize > out.itemsize:  # each value becomes a new last axis of itemsize ratio entries
        return a.reshape(a.shape + (1,)).view(out).copy()
    ratio = out.itemsize // a.itemsize
    if a.ndim == 0 or a.shape[-1] != ratio:
        raise InvalidArgumentError(f"bitcast: casting {a.dtype} to the wider {out} needs a last axis of "
                                   f"{ratio} entries; received shape {a.shape}")
    return a.view(out).reshape(a.shape[:-1])


def bitcast(input, type, name=None):  # noqa: A002 - TF's names
    """``input``'s bytes as ``type`` (``tf.bitcast``): the same shape for the same item size; a new last axis of
    ``in_size / out_size`` entries when ``type`` is narrower; the last axis (which must have ``out_size /
    in_size`` entries) folded away when it is wider. Byte order is the machine's (little-endian, as TF's).
    Not differentiable."""
    from ..framework.tensor import convert_to_tensor

    x = convert_to_tensor(input)
    out = backend.np_dtype(type)
    _numeric("bitcast", "the input", x._value.dtype)
    _numeric("bitcast", "`type`", out)
    return _bitcast(x, type=out.name)
