"""``tf.fingerprint``: FarmHash's 64-bit fingerprint of each row of a tensor, as 8 little-endian bytes.

A string tensor's row of one string is that string's fingerprint; a row of several is the fingerprint of
their fingerprints' bytes; a numeric row is the fingerprint of its bytes (little-endian), as TF.

Example:
    >>> import descend as ds
    >>> ds.fingerprint(["a"]).numpy()
    array([[227, 117, 223, 182, 101,  66,  69, 179]], dtype=uint8)
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from ..strings._fingerprint import fingerprint64

__all__ = ["fingerprint"]


def _bytes8(v: int) -> bytes:
    return v.to_bytes(8, "little")


def fingerprint(data, method="farmhash64", name=None):
    """A uint8 tensor ``[rows, 8]``: the fingerprint of each ``data[i]`` (``data`` has rank >= 1)."""
    if method != "farmhash64":
        raise ValueError(f"fingerprint: the only method is 'farmhash64'. Received method={method!r}")
    t = convert_to_tensor(data)
    a = np.asarray(t.numpy())
    if a.ndim < 1:
        raise InvalidArgumentError(f"fingerprint: `data` should have at least one dimension. Received shape "
                                   f"{list(a.shape)}")
    rows = a.reshape(a.shape[0], int(np.prod(a.shape[1:], dtype=np.int64)))
    if t.dtype == backend.string:
        out = [_bytes8(fingerprint64(r[0])) if r.size == 1 else
               _bytes8(fingerprint64(b"".join(_bytes8(fingerprint64(s)) for s in r))) for r in rows]
    else:
        little = rows.astype(rows.dtype.newbyteorder("<"), copy=False)
        out = [_bytes8(fingerprint64(np.ascontiguousarray(r).tobytes())) for r in little]
    return Tensor(np.frombuffer(b"".join(out), np.uint8).reshape(len(out), 8).copy())
