"""``descend.keras.utils``: ``to_categorical``, ``set_random_seed``, ``PyDataset`` (``Sequence``) and, as in
Keras, the registry's functions of :mod:`descend.saving` (the same objects: one registry).

Example:
    >>> import descend as ds
    >>> ds.keras.utils.to_categorical([0, 2], num_classes=3).tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
"""

from __future__ import annotations

import random as _py_random

import numpy as np

from .. import random as _ds_random
from ..saving import (
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_keras_serializable,
    serialize_keras_object,
)
from ..training.adapters import PyDataset, Sequence
from . import random as _keras_random

__all__ = ["to_categorical", "set_random_seed", "PyDataset", "Sequence", "CustomObjectScope", "custom_object_scope",
           "deserialize_keras_object",
           "get_custom_objects", "get_registered_name", "get_registered_object", "register_keras_serializable",
           "serialize_keras_object"]


def to_categorical(x, num_classes: int | None = None) -> np.ndarray:
    """One-hot rows for integer class ids, as a float32 NumPy array (``keras.utils.to_categorical``).

    A trailing axis of size 1 is dropped first (``(n, 1)`` ids give ``(n, num_classes)``).

    Args:
        x: integer class ids (array-like of any shape).
        num_classes: the number of classes; default ``max(x) + 1``.
    """
    ids = np.asarray(x)
    if ids.dtype.kind == "f":
        if not np.all(np.mod(ids, 1) == 0):
            raise ValueError("to_categorical: `x` must hold integer class ids. Received fractional values")
        ids = ids.astype(np.int64)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"to_categorical: `x` must hold integer class ids. Received dtype {ids.dtype}")
    if ids.ndim > 1 and ids.shape[-1] == 1:
        ids = ids.reshape(ids.shape[:-1])
    if num_classes is None:
        num_classes = int(ids.max()) + 1 if ids.size else 0
    if isinstance(num_classes, bool) or not isinstance(num_classes, (int, np.integer)) or num_classes < 1:
        raise ValueError(f"to_categorical: `num_classes` must be a positive int. Received: {num_classes!r}")
    if ids.size and (ids.min() < 0 or ids.max() >= num_classes):
        raise ValueError(f"to_categorical: class ids must be in [0, {num_classes}). Received ids from "
                         f"{int(ids.min())} to {int(ids.max())}")
    out = np.zeros(ids.shape + (int(num_classes),), dtype=np.float32)
    np.put_along_axis(out, ids[..., None].astype(np.int64), 1.0, axis=-1)
    return out


def set_random_seed(seed: int) -> None:
    """Seed Python's ``random``, NumPy's global state (dropout draws from it) and
    :func:`descend.random.set_seed` (unseeded initializers draw from its sequence), and recreate
    ``keras.random``'s global SeedGenerator from the seeded ``random``, as ``keras.utils.set_random_seed``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"set_random_seed expects a non-negative int. Received: seed={seed!r}")
    _py_random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    _ds_random.set_seed(int(seed))
    _keras_random.reset_global_seed_generator()


# ---------------------------------------------------------------- more of keras.utils (issue 37)
def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0):
    """Lists of ids as one ``(n, maxlen)`` NumPy array (``keras.utils.pad_sequences``): shorter sequences
    padded with ``value`` before (``"pre"``) or after (``"post"``), longer ones cut at the start (``"pre"``)
    or the end (``"post"``); ``maxlen`` defaults to the longest."""
    if padding not in ("pre", "post") or truncating not in ("pre", "post"):
        raise ValueError(f'`padding` and `truncating` must be "pre" or "post". Received: padding={padding!r}, '
                         f"truncating={truncating!r}")
    seqs = [list(s) for s in sequences]
    width = max((len(s) for s in seqs), default=0) if maxlen is None else int(maxlen)
    sample_shape = ()
    for s in seqs:
        if len(s):
            sample_shape = np.asarray(s).shape[1:]
            break
    out = np.full((len(seqs), width) + sample_shape, value, dtype=dtype)
    for i, s in enumerate(seqs):
        if not len(s):
            continue
        trunc = s[-width:] if truncating == "pre" else s[:width]
        if not len(trunc):
            continue
        arr = np.asarray(trunc, dtype=dtype)
        if arr.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {arr.shape[1:]} of sequence at position {i} is different from "
                             f"expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(arr)] = arr
        else:
            out[i, width - len(arr):] = arr
    return out


def normalize(x, axis=-1, order=2):
    """``x`` divided by its ``order``-norm along ``axis`` (a zero norm leaves zeros), as a NumPy array for a
    NumPy input (``keras.utils.normalize``)."""
    from .ops import normalize as _normalize

    if isinstance(x, np.ndarray):
        norm = np.atleast_1d(np.linalg.norm(x, order, axis))
        norm[norm == 0] = 1
        return x / np.expand_dims(norm, axis)
    return _normalize(x, axis=axis, order=order)


def is_keras_tensor(x) -> bool:
    """Whether ``x`` is a symbolic tensor of the functional API (``keras.utils.is_keras_tensor``)."""
    from ..layers.keras_tensor import KerasTensor

    return isinstance(x, KerasTensor)


def clear_session(free_memory=True):
    """Forget the layer and variable names used so far (``keras.utils.clear_session``)."""
    from ..framework import clear_session as _clear

    _clear()


def standardize_dtype(dtype) -> str:
    """The canonical name of ``dtype`` (``"float32"``...), as ``keras.utils.standardize_dtype``; None is
    ``floatx()``."""
    from .. import backend

    if dtype is None:
        return np.dtype(backend.floatx()).name
    return backend.as_dtype(dtype).name


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``: the tuple fit's data adapter unpacks; a lone tuple
    or list ``x`` is wrapped so it is not taken for ``(x, y)`` (``keras.utils.pack_x_y_sample_weight``)."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    if sample_weight is None:
        return (x, y)
    return (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` from a batch (missing parts None), as ``keras.utils.unpack_x_y_sample_weight``."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return (data, None, None)
    if len(data) == 1:
        return (data[0], None, None)
    if len(data) == 2:
        return (data[0], data[1], None)
    if len(data) == 3:
        return (data[0], data[1], data[2])
    raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, found: "
                     f"{data}")


__all__ += ["pad_sequences", "normalize", "is_keras_tensor", "clear_session", "standardize_dtype",
            "pack_x_y_sample_weight", "unpack_x_y_sample_weight"]
