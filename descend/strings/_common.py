"""The helpers every ``descend.strings`` module shares: a string value's array, and a per-string map."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..framework.tensor import convert_to_tensor


def _strings(x, name: str, arg: str = "input") -> np.ndarray:
    """``x`` as a string value (object array of bytes); any other dtype is a TypeError naming ``name``."""
    t = convert_to_tensor(x)
    if t.dtype != backend.string:
        raise TypeError(f"strings.{name}: {arg} must be a string tensor; received dtype {t.dtype.name}")
    return t._value


def _map(fn, arr: np.ndarray, dtype=object) -> np.ndarray:
    out = np.empty(arr.shape, dtype=dtype)
    flat = out.reshape(-1)
    for i, s in enumerate(arr.reshape(-1).tolist()):
        flat[i] = fn(s)
    return out
