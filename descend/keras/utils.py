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
