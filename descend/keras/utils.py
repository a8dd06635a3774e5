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


def text_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                max_length=None, shuffle=True, seed=None, validation_split=None, subset=None,
                                follow_links=False, verbose=True):
    """A :class:`descend.data.Dataset` of ``(texts, labels)`` batches from the ``.txt`` files of ``directory``, as
    ``keras.utils.text_dataset_from_directory``: one subdirectory per class (sorted names, or ``class_names``),
    files in sorted order within each; texts are string tensors (cut to ``max_length`` bytes); labels ``int32``
    (``"int"``), one-hot ``float32`` (``"categorical"``), ``float32`` of shape ``(n, 1)`` (``"binary"``) or absent
    (``label_mode=None``). ``labels`` may be a list of ints, one per file in sorted path order.

    ``shuffle`` permutes the file list with NumPy's ``RandomState(seed)`` as Keras does, so ``validation_split``
    parts hold the same files as Keras'; the per-epoch shuffle of batches that follows draws from descend's own
    generator, so batch order differs from TF's (with ``shuffle=False`` it is the same). The dataset's
    ``class_names`` attribute lists the classes; ``subset="both"`` returns (training, validation).
    """
    import os

    from ..data import Dataset
    from ..framework.tensor import constant

    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple)):
        raise ValueError(f"text_dataset_from_directory: `labels` must be 'inferred', None or a list of ints. "
                         f"Received: labels={labels!r}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(f"text_dataset_from_directory: `label_mode` must be 'int', 'categorical', 'binary' or None. "
                         f"Received: label_mode={label_mode!r}")
    if labels is None:
        label_mode = None
    if subset not in (None, "training", "validation", "both"):
        raise ValueError(f"text_dataset_from_directory: `subset` must be 'training', 'validation', 'both' or None. "
                         f"Received: subset={subset!r}")
    if (validation_split is None) != (subset is None):
        raise ValueError("text_dataset_from_directory: `validation_split` and `subset` must be given together. "
                         f"Received: validation_split={validation_split!r}, subset={subset!r}")
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"text_dataset_from_directory: `validation_split` must be in (0, 1). "
                         f"Received: {validation_split!r}")
    if not os.path.isdir(directory):
        raise ValueError(f"text_dataset_from_directory: directory {directory!r} does not exist or is not a folder")

    def txt_files(folder):
        found = []
        for root, _, files in os.walk(folder, followlinks=follow_links):
            found += [os.path.join(root, f) for f in files if f.lower().endswith(".txt")]
        return sorted(found)

    if labels == "inferred":
        subdirs = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        if class_names is not None:
            if sorted(class_names) != subdirs and set(class_names) != set(subdirs):
                raise ValueError(f"text_dataset_from_directory: `class_names` {list(class_names)} must match the "
                                 f"subdirectories of {directory!r}: {subdirs}")
            subdirs = list(class_names)
        paths, ids = [], []
        for k, name in enumerate(subdirs):
            found = txt_files(os.path.join(directory, name))
            paths += found
            ids += [k] * len(found)
        names = subdirs
    else:
        paths = txt_files(directory)
        if labels is not None and len(labels) != len(paths):
            raise ValueError(f"text_dataset_from_directory: {len(labels)} labels for {len(paths)} .txt files in "
                             f"{directory!r}")
        ids = list(labels) if labels is not None else [0] * len(paths)
        names = class_names
    if label_mode == "binary" and len(set(ids) | set(range(len(names or [])))) > 2:
        raise ValueError(f"text_dataset_from_directory: label_mode='binary' needs 2 classes; found "
                         f"{len(names) if names else len(set(ids))}")
    if verbose:
        print(f"Found {len(paths)} files belonging to {len(names) if names else len(set(ids))} classes.")
    if shuffle:
        if seed is None:
            seed = np.random.randint(1_000_000)
        np.random.RandomState(seed).shuffle(paths)
        np.random.RandomState(seed).shuffle(ids)

    def make(part_paths, part_ids):
        texts = []
        for p in part_paths:
            with open(p, "rb") as f:
                data = f.read()
            texts.append(data if max_length is None else data[:int(max_length)])
        x = constant(np.array(texts + [b""], dtype=object)[:-1])
        y = np.asarray(part_ids, dtype=np.int32)
        if label_mode is None:
            d = Dataset.from_tensor_slices(x)
        elif label_mode == "int":
            d = Dataset.from_tensor_slices((x, y))
        elif label_mode == "binary":
            d = Dataset.from_tensor_slices((x, y.astype(np.float32).reshape(-1, 1)))
        else:
            d = Dataset.from_tensor_slices((x, to_categorical(y, num_classes=len(names)) if len(y) else
                                            np.zeros((0, len(names)), np.float32)))
        if shuffle:
            d = d.shuffle(buffer_size=batch_size * 8, seed=seed)
        d = d.batch(batch_size) if batch_size is not None else d
        d.class_names = names if label_mode is not None else None  # as Keras: no labels, no class names
        return d

    if validation_split is None:
        return make(paths, ids)
    n_val = int(validation_split * len(paths))
    train = make(paths[:len(paths) - n_val], ids[:len(ids) - n_val])
    val = make(paths[len(paths) - n_val:], ids[len(ids) - n_val:])
    if verbose and subset in ("training", "both"):
        print(f"Using {len(paths) - n_val} files for training.")
    if verbose and subset in ("validation", "both"):
        print(f"Using {n_val} files for validation.")
    return {"training": train, "validation": val, "both": (train, val)}[subset]


__all__ += ["text_dataset_from_directory"]


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
