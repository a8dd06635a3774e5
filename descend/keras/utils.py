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
from ..persistence.durable import replacing
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
from ..training.step import unpack
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
    """Seed Python's ``random`` (unseeded drawing layers take their seeds from it, as Keras'
    ``SeedGenerator``), NumPy's global state and :func:`descend.random.set_seed` (unseeded initializers draw
    from its sequence), and recreate ``keras.random``'s global SeedGenerator from the seeded ``random``, as
    ``keras.utils.set_random_seed``."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"set_random_seed expects a non-negative int. Received: seed={seed!r}")
    _py_random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)
    _ds_random.set_seed(int(seed))
    _keras_random.reset_global_seed_generator()


def _index_directory(fn, directory, labels, label_mode, class_names, extension, shuffle, seed, validation_split,
                     subset, follow_links, verbose):
    """The files of a ``*_dataset_from_directory`` call: ``(paths, label ids, class names, label_mode, seed)``,
    arguments checked, in Keras' order (one subdirectory per class, sorted names or ``class_names``, files sorted
    within each), permuted with NumPy's ``RandomState(seed)`` when ``shuffle``, as Keras, so that
    ``validation_split`` parts hold the same files as Keras'."""
    import os

    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple)):
        raise ValueError(f"{fn}: `labels` must be 'inferred', None or a list of ints. Received: labels={labels!r}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError(f"{fn}: `label_mode` must be 'int', 'categorical', 'binary' or None. "
                         f"Received: label_mode={label_mode!r}")
    if labels is None:
        label_mode = None
    if subset not in (None, "training", "validation", "both"):
        raise ValueError(f"{fn}: `subset` must be 'training', 'validation', 'both' or None. Received: subset={subset!r}")
    if (validation_split is None) != (subset is None):
        raise ValueError(f"{fn}: `validation_split` and `subset` must be given together. "
                         f"Received: validation_split={validation_split!r}, subset={subset!r}")
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"{fn}: `validation_split` must be in (0, 1). Received: {validation_split!r}")
    if not os.path.isdir(directory):
        raise ValueError(f"{fn}: directory {directory!r} does not exist or is not a folder")

    def files(folder):
        found = []
        for root, _, names in os.walk(folder, followlinks=follow_links):
            found += [os.path.join(root, f) for f in names if f.lower().endswith(extension)]
        return sorted(found)

    if labels == "inferred":
        subdirs = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        if class_names is not None:
            if sorted(class_names) != subdirs and set(class_names) != set(subdirs):
                raise ValueError(f"{fn}: `class_names` {list(class_names)} must match the subdirectories of "
                                 f"{directory!r}: {subdirs}")
            subdirs = list(class_names)
        paths, ids = [], []
        for k, name in enumerate(subdirs):
            found = files(os.path.join(directory, name))
            paths += found
            ids += [k] * len(found)
        names = subdirs
    else:
        paths = files(directory)
        if labels is not None and len(labels) != len(paths):
            raise ValueError(f"{fn}: {len(labels)} labels for {len(paths)} {extension} files in {directory!r}")
        ids = list(labels) if labels is not None else [0] * len(paths)
        names = class_names
    if label_mode == "binary" and len(set(ids) | set(range(len(names or [])))) > 2:
        raise ValueError(f"{fn}: label_mode='binary' needs 2 classes; found {len(names) if names else len(set(ids))}")
    if verbose:
        print(f"Found {len(paths)} files belonging to {len(names) if names else len(set(ids))} classes.")
    if shuffle:
        if seed is None:
            seed = np.random.randint(1_000_000)
        np.random.RandomState(seed).shuffle(paths)
        np.random.RandomState(seed).shuffle(ids)
    return paths, ids, names, label_mode, seed


def _label_array(ids, label_mode, names):
    """The labels of ``label_mode`` (Keras' dtypes and shapes), or None for ``label_mode=None``."""
    y = np.asarray(ids, dtype=np.int32)
    if label_mode is None:
        return None
    if label_mode == "int":
        return y
    if label_mode == "binary":
        return y.astype(np.float32).reshape(-1, 1)
    return to_categorical(y, num_classes=len(names)) if len(y) else np.zeros((0, len(names)), np.float32)


def _with_labels(x, ids, label_mode, names):
    """A dataset of ``x``'s rows, with the labels of ``label_mode``."""
    from ..data import Dataset

    y = _label_array(ids, label_mode, names)
    return Dataset.from_tensor_slices(x if y is None else (x, y))


def _split_parts(make, paths, ids, validation_split, subset, verbose):
    """The dataset of all files, or of Keras' training/validation part (the last ``validation_split``)."""
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
    from ..framework.tensor import constant

    paths, ids, names, label_mode, seed = _index_directory(
        "text_dataset_from_directory", directory, labels, label_mode, class_names, ".txt", shuffle, seed,
        validation_split, subset, follow_links, verbose)

    def make(part_paths, part_ids):
        texts = []
        for p in part_paths:
            with open(p, "rb") as f:
                data = f.read()
            texts.append(data if max_length is None else data[:int(max_length)])
        d = _with_labels(constant(np.array(texts + [b""], dtype=object)[:-1]), part_ids, label_mode, names)
        if shuffle:
            d = d.shuffle(buffer_size=batch_size * 8, seed=seed)
        d = d.batch(batch_size) if batch_size is not None else d
        d.class_names = names if label_mode is not None else None  # as Keras: no labels, no class names
        return d

    return _split_parts(make, paths, ids, validation_split, subset, verbose)


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, batch_size=32,
                                 sampling_rate=None, output_sequence_length=None, ragged=False, shuffle=True, seed=None,
                                 validation_split=None, subset=None, follow_links=False, verbose=True):
    """A :class:`descend.data.Dataset` of ``(audio, labels)`` batches from the ``.wav`` files of ``directory``, as
    ``keras.utils.audio_dataset_from_directory``: files and labels as :func:`text_dataset_from_directory`'s; each
    file decoded by ``descend.audio.decode_wav`` to float32 ``[samples, channels]``, cut or zero-padded to
    ``output_sequence_length`` samples when given, else each batch zero-padded to its longest file (Keras'
    ``padded_batch``). ``sampling_rate`` must be None (Keras resamples with tensorflow-io; descend does not
    resample) and ``ragged=True`` is refused (descend's ragged tensors have one ragged dimension of scalars).
    """
    from ..audio import decode_wav

    fn = "audio_dataset_from_directory"
    if sampling_rate is not None:
        raise NotImplementedError(f"{fn}: `sampling_rate` needs resampling (Keras uses tensorflow-io); descend reads "
                                  "each file at its own rate: pass sampling_rate=None")
    if ragged:
        raise NotImplementedError(f"{fn}: ragged=True is not supported (descend's RaggedTensor has one ragged "
                                  "dimension of scalars); pad with output_sequence_length or the default padding")
    if output_sequence_length is not None and int(output_sequence_length) <= 0:
        raise ValueError(f"{fn}: `output_sequence_length` must be positive. Received {output_sequence_length!r}")
    paths, ids, names, label_mode, seed = _index_directory(
        fn, directory, labels, label_mode, class_names, ".wav", shuffle, seed, validation_split, subset,
        follow_links, verbose)
    desired = -1 if output_sequence_length is None else int(output_sequence_length)

    def make(part_paths, part_ids):
        from ..data import Dataset

        clips = []
        for p in part_paths:
            with open(p, "rb") as f:
                clips.append(np.asarray(decode_wav(f.read(), desired_samples=desired).audio.numpy()))
        y = _label_array(part_ids, label_mode, names)
        d = Dataset.from_iterable(clips if y is None else list(zip(clips, y)))
        if shuffle:  # Keras shuffles the decoded files (a buffer of 8 batches), then batches
            d = d.shuffle(buffer_size=batch_size * 8 if batch_size is not None else 1024, seed=seed)
        if batch_size is not None:  # without a fixed length, each batch is zero-padded to its longest clip
            d = d.padded_batch(batch_size) if output_sequence_length is None else d.batch(batch_size)
        d.class_names = names if label_mode is not None else None
        return d

    return _split_parts(make, paths, ids, validation_split, subset, verbose)


__all__ += ["text_dataset_from_directory", "audio_dataset_from_directory"]




# ---------------------------------------------------------------------------------------------------------------
# more of keras.utils (issue 37): normalize, pad_sequences, Progbar, timeseries_dataset_from_array, split_dataset,
# get_file, image_dataset_from_directory, pack/unpack_x_y_sample_weight
# ---------------------------------------------------------------------------------------------------------------
def normalize(x, axis: int = -1, order: int = 2) -> np.ndarray:
    """``x`` divided by its ``order``-norm along ``axis`` (a zero norm divides by 1), as ``keras.utils.normalize``
    on NumPy input (a 1-D ``x`` gives shape ``(1, n)``, as Keras)."""
    x = np.asarray(x._value if hasattr(x, "_value") else x)
    if x.dtype.kind not in "fc":
        x = x.astype(np.float32)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre", value=0.0) -> np.ndarray:
    """Sequences of different lengths as one ``(len(sequences), maxlen, ...)`` array (``keras.utils.pad_sequences``).

    ``maxlen`` defaults to the longest sequence; longer sequences lose their start (``truncating="pre"``) or end
    (``"post"``); shorter ones are filled with ``value`` before (``padding="pre"``) or after (``"post"``) them.
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError(f"pad_sequences: `sequences` must be iterable. Received: {type(sequences).__name__}")
    if padding not in ("pre", "post"):
        raise ValueError(f'pad_sequences: padding type "{padding}" not understood (expected "pre" or "post")')
    if truncating not in ("pre", "post"):
        raise ValueError(f'pad_sequences: truncating type "{truncating}" not understood (expected "pre" or "post")')
    lengths, sample_shape, found = [], (), False
    for i, s in enumerate(sequences):
        try:
            lengths.append(len(s))
        except TypeError:
            raise ValueError(f"pad_sequences: `sequences` must be a list of iterables. Found non-iterable at index "
                             f"{i}: {s!r}") from None
        if not found and len(s):
            sample_shape, found = np.asarray(s).shape[1:], True
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    elif isinstance(maxlen, bool) or not isinstance(maxlen, (int, np.integer)) or maxlen < 0:
        raise ValueError(f"pad_sequences: `maxlen` must be a non-negative int or None. Received: {maxlen!r}")
    kind = np.dtype(dtype).kind
    if kind in "SU" and not isinstance(value, (str, bytes)):
        raise ValueError(f"pad_sequences: `dtype` {dtype} is a string type but `value` is {type(value).__name__}; "
                         "give a string `value`")
    x = np.full((len(sequences), int(maxlen)) + tuple(sample_shape), value, dtype=dtype)
    for i, s in enumerate(sequences):
        if not len(s) or not maxlen:
            continue
        trunc = np.asarray(s, dtype=dtype)
        trunc = trunc[-maxlen:] if truncating == "pre" else trunc[:maxlen]
        if trunc.shape[1:] != tuple(sample_shape):
            raise ValueError(f"pad_sequences: the elements of sequence {i} have shape {trunc.shape[1:]}, expected "
                             f"{tuple(sample_shape)} (that of the first non-empty sequence)")
        if padding == "post":
            x[i, :len(trunc)] = trunc
        else:
            x[i, -len(trunc):] = trunc
    return x


class Progbar:
    """A text progress bar (``keras.utils.Progbar``): ``update(current, values)`` moves it to step ``current``
    and averages each value over the steps since the start (weighted by the steps each update covers), except
    those named in ``stateful_metrics``, shown as given.

    Args:
        target: the number of steps, or None when unknown.
        width: the bar's width in characters.
        verbose: 0 silent, 1 a bar redrawn in place, 2 one line when finished.
        interval: the least number of seconds between redraws.
        stateful_metrics / stateless_metrics: names shown as given / averaged (give at most one of them).
        unit_name: the name of a step in the time per step.
    """

    def __init__(self, target, width=20, verbose=1, interval=0.05, stateful_metrics=None, stateless_metrics=None,
                 unit_name="step"):
        import sys
        import time

        if stateful_metrics is not None and stateless_metrics is not None:
            raise ValueError("Progbar: give only one of `stateful_metrics` and `stateless_metrics`")
        if target is not None and (isinstance(target, bool) or not isinstance(target, (int, np.integer))
                                   or target < 0):
            raise ValueError(f"Progbar: `target` must be a non-negative int or None. Received: {target!r}")
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stateful_metrics = set(stateful_metrics) if stateful_metrics is not None else (
            None if stateless_metrics is not None else set())
        self.stateless_metrics = set(stateless_metrics) if stateless_metrics is not None else None
        self._out = sys.stdout
        self._dynamic = hasattr(self._out, "isatty") and self._out.isatty()
        self._time = time.time
        self._start = self._last_update = self._time()
        self._seen_so_far = 0
        self._values: dict = {}
        self._values_order: list = []
        self._total_width = 0

    def _stateless(self, k) -> bool:
        if self.stateful_metrics is not None:
            return k not in self.stateful_metrics
        return k in self.stateless_metrics

    def update(self, current, values=None, finalize=None):
        """Move to step ``current``; ``values``: ``(name, value)`` pairs."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for k, v in values or []:
            v = float(np.asarray(v._value if hasattr(v, "_value") else v))
            if k not in self._values_order:
                self._values_order.append(k)
            if self._stateless(k):
                base = max(current - self._seen_so_far, 1)
                if k not in self._values:
                    self._values[k] = [v * base, base]
                else:
                    self._values[k][0] += v * base
                    self._values[k][1] += base
            else:
                self._values[k] = [v, 1]
        self._seen_so_far = current
        now = self._time()
        if self.verbose == 1 and (finalize or now - self._last_update >= self.interval):
            self._write(self._line(current, now), finalize)
            self._last_update = now
        elif self.verbose == 2 and finalize:
            if not is_interactive_logging_enabled():
                _logger().info(self._line(current, now, bar=False))
                return
            self._out.write(self._line(current, now, bar=False) + "\n")
            self._out.flush()

    def add(self, n, values=None):
        """``update(current + n, values)``."""
        self.update(self._seen_so_far + n, values)

    def value(self, name) -> float:
        """The value shown for ``name`` (its average for a stateless metric)."""
        total, count = self._values[name]
        return total / count

    def _line(self, current, now, bar=True) -> str:
        parts = []
        if bar and self.target is not None:
            digits = len(str(self.target))
            done = int(self.width * min(current / self.target, 1)) if self.target else self.width
            fill = "=" * max(done - 1, 0) + (">" if done < self.width else "=") if done else ""
            parts.append(f"{current:{digits}d}/{self.target} [{fill}{'.' * (self.width - len(fill))}]")
        elif self.target is not None:
            parts.append(f"{current}/{self.target}")
        else:
            parts.append(f"{current:7d}/Unknown")
        elapsed = now - self._start
        per = elapsed / current if current else 0.0
        parts.append(f"{elapsed:.0f}s {per * 1e3:.0f}ms/{self.unit_name}")
        for k in self._values_order:
            v = self.value(k)
            parts.append(f"{k}: {v:.4f}" if abs(v) > 1e-3 else f"{k}: {v:.4e}")
        return " - ".join(parts)

    def _write(self, line, finalize):
        if not is_interactive_logging_enabled():  # one INFO record per redraw, as Keras' print_msg
            _logger().info(line)
            self._total_width = len(line)
            return
        if self._dynamic:
            pad = max(self._total_width - len(line), 0)
            self._out.write("\r" + line + " " * pad + ("\n" if finalize else ""))
        elif finalize:
            self._out.write(line + "\n")
        self._total_width = len(line)
        self._out.flush()


def _positive_int(fn, name, v, minimum=1):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
        what = "a positive int" if minimum == 1 else f"an int >= {minimum}"
        raise ValueError(f"{fn}: `{name}` must be {what}. Received: {name}={v!r}")
    return int(v)


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1, sampling_rate=1,
                                  batch_size=128, shuffle=False, seed=None, start_index=None, end_index=None):
    """Sliding windows over ``data`` as a Dataset (``keras.utils.timeseries_dataset_from_array``).

    Window ``i`` holds ``data[start_index + p_i + j * sampling_rate]`` for ``j < sequence_length``, with
    ``p_i = i * sequence_stride``; its target is ``targets[start_index + p_i]``. With ``shuffle`` the start
    positions are permuted by ``np.random.RandomState(seed)`` (as Keras) and the batches drawn through a
    shuffle buffer of ``8 * batch_size`` elements (descend's shuffle, not TF's bits).
    """
    from ..data import Dataset

    fn = "timeseries_dataset_from_array"
    data = np.asarray(data._value if hasattr(data, "_value") else data)
    sequence_length = _positive_int(fn, "sequence_length", sequence_length)
    sequence_stride = _positive_int(fn, "sequence_stride", sequence_stride)
    sampling_rate = _positive_int(fn, "sampling_rate", sampling_rate)
    if batch_size is not None:
        batch_size = _positive_int(fn, "batch_size", batch_size)
    start_index = 0 if start_index is None else _positive_int(fn, "start_index", start_index, minimum=0)
    end_index = len(data) if end_index is None else _positive_int(fn, "end_index", end_index, minimum=0)
    if start_index >= len(data):
        raise ValueError(f"{fn}: `start_index` must be lower than the length of the data ({len(data)}). "
                         f"Received: start_index={start_index}")
    if end_index <= start_index or end_index > len(data):
        raise ValueError(f"{fn}: `end_index` must be in ({start_index}, {len(data)}]. Received: end_index={end_index}")
    if targets is not None:
        targets = np.asarray(targets._value if hasattr(targets, "_value") else targets)
        if len(targets) != len(data):
            raise ValueError(f"{fn}: `targets` must have the length of `data`. Received: len(data)={len(data)}, "
                             f"len(targets)={len(targets)}")
    num_seqs = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_seqs = min(num_seqs, len(targets))
    starts = np.arange(0, max(num_seqs, 0), sequence_stride, dtype=np.int64)
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(starts)
    window = starts[:, None] + np.arange(sequence_length)[None, :] * sampling_rate
    part = data[start_index:end_index]
    x = part[window] if len(starts) else np.zeros((0, sequence_length) + data.shape[1:], data.dtype)
    ds = Dataset.from_tensor_slices(x if targets is None else (x, targets[start_index:end_index][starts]))
    return _shuffled_batches(ds, batch_size, shuffle, seed)


def _shuffled_batches(ds, batch_size, shuffle: bool, seed):
    """The ``*_dataset_from_*`` utilities' last step: ``ds`` shuffled (a buffer of 8 batches, else 1024
    elements) when ``shuffle``, then batched when ``batch_size`` is not None."""
    if batch_size is not None:
        if shuffle:
            ds = ds.shuffle(batch_size * 8, seed=seed)
        return ds.batch(batch_size)
    return ds.shuffle(1024, seed=seed) if shuffle else ds


def _split_size(name, v, total):
    if v is None:
        return None
    if type(v) not in (int, float):
        raise TypeError(f"split_dataset: `{name}` must be an int or float. Received: {name}={v!r} of type "
                        f"{type(v).__name__}")
    if (type(v) is int and not 0 < v < total) or (type(v) is float and not 0 < v < 1):
        raise ValueError(f"split_dataset: `{name}` must be an int in (0, {total}) or a float in (0, 1). Received: "
                         f"{name}={v}")
    return round(v * total) if type(v) is float else v


def split_dataset(dataset, left_size=None, right_size=None, shuffle=False, seed=None):
    """Split arrays (a tuple/list of them, or one) or a Dataset into two Datasets of ``left_size`` and
    ``right_size`` elements (ints: counts; floats: fractions; one of them may be None for the rest), as
    ``keras.utils.split_dataset``. With ``shuffle`` the elements are permuted first by Python's
    ``random.Random(seed).shuffle`` (Keras' permutation). A Dataset is split element by element (a batched one
    is split by batches, where Keras unbatches it)."""
    from ..data import Dataset

    if left_size is None and right_size is None:
        raise ValueError("split_dataset: at least one of `left_size` or `right_size` must be specified. Received: "
                         "left_size=None and right_size=None")
    if isinstance(dataset, Dataset):
        elements = list(dataset.as_numpy_iterator())
    elif isinstance(dataset, (tuple, list)) or hasattr(dataset, "shape") or hasattr(dataset, "_value"):
        parts = dataset if isinstance(dataset, (tuple, list)) else (dataset,)
        arrays = [np.asarray(p._value if hasattr(p, "_value") else p) for p in parts]
        if len({len(a) for a in arrays}) > 1:
            raise ValueError(f"split_dataset: the arrays must have the same length. Received lengths "
                             f"{[len(a) for a in arrays]}")
        elements = [tuple(a[i] for a in arrays) if isinstance(dataset, (tuple, list)) else arrays[0][i]
                    for i in range(len(arrays[0]))]
    else:
        raise TypeError("split_dataset: `dataset` must be a Dataset, an array or a list/tuple of arrays. "
                        f"Received: {type(dataset).__name__}")
    total = len(elements)
    if shuffle:
        if seed is None:
            seed = _py_random.randint(0, int(1e6))
        _py_random.Random(seed).shuffle(elements)
    left, right = _split_size("left_size", left_size, total), _split_size("right_size", right_size, total)
    if type(left_size) is float and type(right_size) is float and left_size + right_size > 1:
        raise ValueError(f"split_dataset: the fractions must sum to at most 1. Received: left_size={left_size}, "
                         f"right_size={right_size}")
    left = total - right if left is None else left
    right = total - left if right is None else right
    if left + right > total:
        raise ValueError(f"split_dataset: left_size + right_size = {left + right} is more than the {total} elements")
    if left == 0 or right == 0:
        raise ValueError(f"split_dataset: a split would be empty (left {left}, right {right} of {total} elements)")

    def make(items):
        if isinstance(items[0], tuple):
            return Dataset.from_tensor_slices(tuple(np.stack([it[c] for it in items]) for c in range(len(items[0]))))
        return Dataset.from_iterable(items) if isinstance(items[0], dict) else Dataset.from_tensor_slices(
            np.stack(items))

    return make(elements[:left]), make(elements[-right:])


def pack_x_y_sample_weight(x, y=None, sample_weight=None):
    """``x``, ``(x, y)`` or ``(x, y, sample_weight)``, as ``keras.utils.pack_x_y_sample_weight`` (a lone tuple or
    list ``x`` is wrapped in a 1-tuple so that it is not read as ``(x, y)``)."""
    if y is None:
        return (x,) if isinstance(x, (tuple, list)) else x
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def unpack_x_y_sample_weight(data):
    """``(x, y, sample_weight)`` of a batch given as ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``."""
    return unpack(tuple(data) if isinstance(data, list) else data)  # (fit's own elements: a list is one x)


def _file_hash(path, algorithm, expected):
    import hashlib

    if algorithm == "sha256" or (algorithm == "auto" and expected is not None and len(expected) == 64):
        h = hashlib.sha256()
    elif algorithm in ("md5", "auto"):
        h = hashlib.md5()
    else:
        raise ValueError(f"get_file: unsupported `hash_algorithm` {algorithm!r} (expected 'auto', 'sha256' or 'md5')")
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None, cache_subdir="datasets",
             hash_algorithm="auto", extract=False, archive_format="auto", cache_dir=None, force_download=False):
    """A file from the cache (``cache_dir``, default ``~/.keras``, then ``cache_subdir``) or copied there from a
    local ``file://`` origin, as ``keras.utils.get_file``; with ``extract`` a tar or zip archive is unpacked
    (members escaping the folder are refused) and the folder returned.

    descend does not download: an ``http(s)://`` origin not already in the cache raises ``RuntimeError`` naming
    the path to place the file at. A ``file_hash`` (sha256, or md5 for 32 hex digits) is checked.
    """
    import os
    import shutil
    import urllib.parse
    import urllib.request

    if origin is None:
        raise ValueError('get_file: please specify the "origin" argument (the URL of the file)')
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    cache_dir = os.path.expanduser(cache_dir if cache_dir is not None else os.path.join("~", ".keras"))
    datadir = os.path.join(cache_dir, cache_subdir)
    provided = fname
    fname = os.fspath(fname) if fname else os.path.basename(urllib.parse.urlsplit(origin).path)
    if not fname:
        raise ValueError(f"get_file: can't parse the file name from the origin {origin!r}; give `fname`")
    if provided and os.sep in fname:
        raise ValueError(f"get_file: paths are not accepted as `fname`; use `cache_dir`. Received: fname={fname}")
    if extract or untar:
        if provided and "." in fname:
            target = os.path.join(datadir, fname)
            extraction_dir = os.path.join(datadir, f"{fname[:fname.find('.')]}_extracted")
        else:
            target = os.path.join(datadir, f"{fname}_archive")
            extraction_dir = os.path.join(datadir, fname)
    else:
        target, extraction_dir = os.path.join(datadir, fname), None
    fetch = force_download or not os.path.exists(target)
    if not fetch and file_hash is not None and _file_hash(target, hash_algorithm, file_hash) != file_hash:
        fetch = True  # a stale or corrupted cached copy: fetch again
    if fetch:
        scheme = urllib.parse.urlsplit(origin).scheme
        if scheme != "file":
            raise RuntimeError(f"get_file: descend does not download ({scheme or 'no'} scheme in origin {origin!r}). "
                               f"Place the file at {target!r} (or give a file:// origin)")
        source = urllib.request.url2pathname(urllib.parse.urlsplit(origin).path)
        if not os.path.isfile(source):
            raise FileNotFoundError(f"get_file: the origin {origin!r} names no file ({source!r})")
        os.makedirs(datadir, exist_ok=True)
        if file_hash is not None and _file_hash(source, hash_algorithm, file_hash) != file_hash:
            raise ValueError(f"get_file: incomplete or corrupted file: the {hash_algorithm} hash of {origin!r} does "
                             f"not match the provided value {file_hash}")
        with replacing(target) as f, open(source, "rb") as src:  # the target appears whole, or not at all
            shutil.copyfileobj(src, f)
    if extraction_dir is None:
        return target
    _extract(target, extraction_dir, "tar" if untar else archive_format)
    return extraction_dir


def _extract(path, into, archive_format):
    import os
    import tarfile
    import zipfile

    formats = ["tar", "zip"] if archive_format in ("auto", None) else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format))
    root = os.path.realpath(into)
    for fmt in formats:
        if fmt == "tar" and tarfile.is_tarfile(path):
            with tarfile.open(path) as t:
                t.extractall(into, filter="data")  # refuses absolute paths, links and members outside `into`
            return
        if fmt == "zip" and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                for name in z.namelist():
                    dest = os.path.realpath(os.path.join(into, name))
                    if not (dest == root or dest.startswith(root + os.sep)):
                        raise ValueError(f"get_file: the zip archive member {name!r} would be written outside "
                                         f"{into!r}")
                z.extractall(into)
            return
    raise ValueError(f"get_file: {path!r} is not a {' or '.join(formats)} archive")


_IMAGE_EXTENSIONS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")


def _resize_bilinear(img: np.ndarray, size) -> np.ndarray:
    """TF's bilinear resize (half-pixel centers, no antialiasing) of an ``(h, w, c)`` image, in float32."""
    out = img.astype(np.float32)
    for axis, n_out in ((0, size[0]), (1, size[1])):
        n_in = out.shape[axis]
        if n_in == n_out:
            continue
        pos = (np.arange(n_out, dtype=np.float64) + 0.5) * (n_in / n_out) - 0.5
        floor = np.floor(pos)
        lo = np.maximum(floor, 0).astype(np.int64)
        hi = np.minimum(np.ceil(pos), n_in - 1).astype(np.int64)
        frac = (pos - floor).astype(np.float32)
        shape = [1] * out.ndim
        shape[axis] = n_out
        a, b = np.take(out, lo, axis=axis), np.take(out, hi, axis=axis)
        out = a + (b - a) * frac.reshape(shape)
    return out


def _load_image(path, color_mode, image_size, interpolation):
    try:
        from PIL import Image  # matplotlib's own image library: installed with descend
    except ImportError:  # pragma: no cover - matplotlib requires pillow
        raise ImportError("image_dataset_from_directory needs Pillow (installed with matplotlib) to decode images. "
                          "Install it with `pip install pillow`") from None
    mode = {"rgb": "RGB", "grayscale": "L", "rgba": "RGBA"}[color_mode]
    with Image.open(path) as im:
        arr = np.asarray(im.convert(mode))
    if arr.ndim == 2:
        arr = arr[:, :, None]
    return _resize_bilinear(arr, image_size)


def image_dataset_from_directory(directory, labels="inferred", label_mode="int", class_names=None, color_mode="rgb",
                                 batch_size=32, image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear", follow_links=False,
                                 crop_to_aspect_ratio=False, pad_to_aspect_ratio=False, data_format=None,
                                 verbose=True):
    """Images in ``directory/<class>/...`` (png, jpg, jpeg, bmp, gif) as a Dataset of float32 ``(h, w, c)``
    batches and labels, as ``keras.utils.image_dataset_from_directory``. Images are decoded by Pillow (a
    dependency of matplotlib; grayscale is Pillow's luma, within one level of TF's) and resized bilinearly as
    TF (half-pixel centers; the only interpolation supported). ``subset="both"`` returns the training and
    validation datasets; the datasets have ``class_names`` and ``file_paths``."""
    import os

    from ..data import Dataset

    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple)):
        raise ValueError("image_dataset_from_directory: `labels` must be 'inferred', None or a list/tuple of "
                         f"integer labels. Received: labels={labels!r}")
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError("image_dataset_from_directory: `label_mode` must be one of 'int', 'categorical', 'binary' "
                         f"or None. Received: label_mode={label_mode!r}")
    if color_mode not in ("rgb", "rgba", "grayscale"):
        raise ValueError("image_dataset_from_directory: `color_mode` must be one of 'rgb', 'rgba', 'grayscale'. "
                         f"Received: color_mode={color_mode!r}")
    if interpolation != "bilinear":
        raise ValueError(f"image_dataset_from_directory: only interpolation='bilinear' is supported by descend. "
                         f"Received: {interpolation!r}")
    if crop_to_aspect_ratio or pad_to_aspect_ratio:
        raise NotImplementedError("image_dataset_from_directory: crop_to_aspect_ratio / pad_to_aspect_ratio are not "
                                  "supported by descend; resize, then crop or pad with a map")
    if subset not in (None, "training", "validation", "both"):
        raise ValueError("image_dataset_from_directory: `subset` must be 'training', 'validation', 'both' or None. "
                         f"Received: subset={subset!r}")
    if (validation_split is None) != (subset is None):
        raise ValueError("image_dataset_from_directory: `validation_split` and `subset` go together. Received: "
                         f"validation_split={validation_split!r}, subset={subset!r}")
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError(f"image_dataset_from_directory: `validation_split` must be in (0, 1). Received: "
                         f"{validation_split!r}")
    if not os.path.isdir(directory):
        raise ValueError(f"image_dataset_from_directory: {directory!r} is not a directory")
    if labels is None:
        label_mode = None
    if labels == "inferred":
        subdirs = sorted(d for d in os.listdir(directory) if os.path.isdir(os.path.join(directory, d)))
        if class_names is not None:
            if set(class_names) != set(subdirs):
                raise ValueError(f"image_dataset_from_directory: `class_names` {list(class_names)} do not match the "
                                 f"subdirectories {subdirs}")
            subdirs = list(class_names)
        paths, ids = [], []
        for i, d in enumerate(subdirs):
            for root, _, files in sorted(os.walk(os.path.join(directory, d), followlinks=follow_links)):
                for f in sorted(files):
                    if f.lower().endswith(_IMAGE_EXTENSIONS):
                        paths.append(os.path.join(root, f))
                        ids.append(i)
        class_names = subdirs
    else:
        paths = sorted(os.path.join(root, f) for root, _, files in os.walk(directory, followlinks=follow_links)
                       for f in files if f.lower().endswith(_IMAGE_EXTENSIONS))
        ids = list(labels) if labels is not None else [0] * len(paths)
        if labels is not None and len(ids) != len(paths):
            raise ValueError(f"image_dataset_from_directory: {len(ids)} labels given for {len(paths)} images found in "
                             f"{directory!r}")
    if not paths:
        raise ValueError(f"image_dataset_from_directory: no images found in {directory!r} (allowed extensions: "
                         f"{', '.join(_IMAGE_EXTENSIONS)})")
    if label_mode == "binary" and len(set(ids)) > 2:
        raise ValueError(f"image_dataset_from_directory: label_mode='binary' needs 2 classes. Found "
                         f"{len(set(ids))}")
    if shuffle:
        if seed is None:
            seed = np.random.randint(1e6)
        np.random.RandomState(seed).shuffle(paths)
        np.random.RandomState(seed).shuffle(ids)
    size = tuple(int(s) for s in image_size)

    def build(p, lab):
        images = Dataset.from_tensor_slices(np.arange(len(p))).map(
            lambda i: _load_image(p[int(i)], color_mode, size, interpolation))
        n_classes = len(class_names) if class_names else max(lab, default=0) + 1
        if label_mode is None:
            d = images
        else:
            lab_arr = np.asarray(lab, dtype=np.int32)
            if label_mode == "categorical":
                lab_arr = to_categorical(lab_arr, n_classes)
            elif label_mode == "binary":
                lab_arr = lab_arr.astype(np.float32)[:, None]
            d = Dataset.zip((images, Dataset.from_tensor_slices(lab_arr)))
        d = _shuffled_batches(d, batch_size, shuffle, seed)
        d.class_names, d.file_paths = class_names, list(p)
        return d

    if validation_split is None:
        return build(paths, ids)
    n_val = int(validation_split * len(paths))
    train = build(paths[:len(paths) - n_val], ids[:len(paths) - n_val])
    val = build(paths[len(paths) - n_val:], ids[len(paths) - n_val:])
    return {"training": train, "validation": val, "both": (train, val)}[subset]


__all__ += ["normalize", "pad_sequences", "Progbar", "timeseries_dataset_from_array", "split_dataset",
            "pack_x_y_sample_weight", "unpack_x_y_sample_weight", "get_file", "image_dataset_from_directory"]


# the same objects as in keras.backend / keras.layers (Keras exports them from keras.utils too)
from ..framework.variable import clear_session  # noqa: E402
from ..layers.keras_tensor import is_keras_tensor  # noqa: E402
from .backend import standardize_dtype  # noqa: E402


def img_to_array(img, data_format=None, dtype=None) -> np.ndarray:
    """A Pillow image (or array) as a ``(h, w, c)`` array (``(c, h, w)`` for ``"channels_first"``), float32 by
    default (``keras.utils.img_to_array``)."""
    if data_format not in (None, "channels_last", "channels_first"):
        raise ValueError(f"img_to_array: unknown data_format {data_format!r}")
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 2:
        x = x[:, :, None]
    if x.ndim != 3:
        raise ValueError(f"img_to_array: unsupported image shape {x.shape} (expected (h, w) or (h, w, c))")
    return np.transpose(x, (2, 0, 1)) if data_format == "channels_first" else x


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A ``(h, w, c)`` array (c = 1, 3 or 4) as a Pillow image; ``scale`` maps its range onto [0, 255]
    (``keras.utils.array_to_img``)."""
    from PIL import Image  # installed with matplotlib

    x = np.asarray(x._value if hasattr(x, "_value") else x, dtype="float32")
    if x.ndim != 3:
        raise ValueError(f"array_to_img: expected an image array of rank 3. Received shape {x.shape}")
    if data_format == "channels_first":
        x = np.transpose(x, (1, 2, 0))
    if scale:
        x = x - np.min(x)
        top = np.max(x)
        if top != 0:
            x = x / top
        x = x * 255
    channels = x.shape[2]
    if channels not in (1, 3, 4):
        raise ValueError(f"array_to_img: unsupported number of channels {channels} (expected 1, 3 or 4)")
    mode = {1: "L", 3: "RGB", 4: "RGBA"}[channels]
    arr = x.astype("uint8")
    return Image.fromarray(arr[:, :, 0] if channels == 1 else arr, mode)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest", keep_aspect_ratio=False):
    """An image file as a Pillow image in ``color_mode``, resized to ``target_size`` ``(h, w)`` if given
    (``keras.utils.load_img``; Pillow's resampling by ``interpolation``)."""
    from PIL import Image

    modes = {"rgb": "RGB", "grayscale": "L", "rgba": "RGBA"}
    if color_mode not in modes:
        raise ValueError(f"load_img: color_mode must be 'grayscale', 'rgb' or 'rgba'. Received: {color_mode!r}")
    filters = {"nearest": Image.NEAREST, "bilinear": Image.BILINEAR, "bicubic": Image.BICUBIC,
               "lanczos": Image.LANCZOS, "box": Image.BOX, "hamming": Image.HAMMING}
    if interpolation not in filters:
        raise ValueError(f"load_img: unknown interpolation {interpolation!r} (expected one of {sorted(filters)})")
    with Image.open(path) as im:
        img = im.convert(modes[color_mode])
    if target_size is not None and (img.size[1], img.size[0]) != tuple(target_size):
        if keep_aspect_ratio:
            raise NotImplementedError("load_img: keep_aspect_ratio=True is not supported by descend")
        img = img.resize((int(target_size[1]), int(target_size[0])), filters[interpolation])
    return img


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write an image array to ``path`` (format from the extension or ``file_format``; ``keras.utils.save_img``)."""
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or str(path).lower().endswith((".jpg", ".jpeg"))):
        img = img.convert("RGB")
    img.save(path, format=file_format, **kwargs)


__all__ += ["clear_session", "is_keras_tensor", "standardize_dtype", "img_to_array", "array_to_img", "load_img",
            "save_img"]


def get_source_inputs(tensor):
    """The ``keras.Input`` tensors that ``tensor`` (a functional model's symbolic tensor) is computed from, in
    the order first reached walking its graph back, each once. A tensor that is not symbolic is returned as
    is, as Keras does."""
    from ..layers.keras_tensor import KerasTensor

    if not isinstance(tensor, KerasTensor) or tensor._history is None:
        return tensor
    node = tensor.node
    if not node.input_tensors:  # an Input: the source itself
        return list(node.output_tensors)
    sources: list = []
    for parent in node.input_tensors:
        for s in get_source_inputs(parent):
            if all(s is not t for t in sources):
                sources.append(s)
    return sources


__all__ += ["get_source_inputs"]


# ------------------------------------------------------------------------------------ interactive logging
_INTERACTIVE = {"enabled": True}


def _logger():
    import logging

    return logging.getLogger("descend")


def enable_interactive_logging() -> None:
    """:class:`Progbar` writes to stdout (the default), as Keras' ``enable_interactive_logging``."""
    _INTERACTIVE["enabled"] = True


def disable_interactive_logging() -> None:
    """:class:`Progbar` sends each line it would write to the ``descend`` logger at INFO instead of stdout (for
    logs that are not a terminal), as Keras' ``disable_interactive_logging`` sends them to absl logging."""
    _INTERACTIVE["enabled"] = False


def is_interactive_logging_enabled() -> bool:
    """Whether :class:`Progbar` writes to stdout (True) or to the ``descend`` logger (False)."""
    return _INTERACTIVE["enabled"]


__all__ += ["enable_interactive_logging", "disable_interactive_logging", "is_interactive_logging_enabled"]


# ----------------------------------------------------------------------------------------------- Config
class Config:
    """Named values read and set as attributes or items (``keras.utils.Config``), which can be frozen against
    change and written as JSON.

    Example:
        >>> from descend.keras.utils import Config
        >>> c = Config(learning_rate=0.1)
        >>> c.seed = 7
        >>> c["momentum"] = 0.9
        >>> c.learning_rate, c["seed"], list(c), c.to_json()
        (0.1, 7, ['learning_rate', 'momentum', 'seed'], '{"learning_rate": 0.1, "seed": 7, "momentum": 0.9}')
        >>> c.freeze(); c.seed = 8
        Traceback (most recent call last):
        ...
        ValueError: Config: cannot set 'seed': the config is frozen (call unfreeze() first)
    """

    _OWN = frozenset({"_values", "_is_frozen"})

    def __init__(self, **kwargs):
        object.__setattr__(self, "_values", dict(kwargs))
        object.__setattr__(self, "_is_frozen", False)

    frozen = property(lambda self: self._is_frozen, doc="Whether changes are refused.")

    def freeze(self) -> None:
        """Refuse every change from now on (until :meth:`unfreeze`)."""
        object.__setattr__(self, "_is_frozen", True)

    def unfreeze(self) -> None:
        """Accept changes again."""
        object.__setattr__(self, "_is_frozen", False)

    def _check(self, what: str) -> None:
        if self._is_frozen:
            raise ValueError(f"Config: cannot {what}: the config is frozen (call unfreeze() first)")

    def as_dict(self) -> dict:
        """A (shallow) copy of the values as a dict."""
        return dict(self._values)

    def to_json(self) -> str:
        """The values as a JSON string (in the order they were set)."""
        import json

        return json.dumps(self._values)

    def keys(self):
        return self._values.keys()

    def values(self):
        return self._values.values()

    def items(self):
        return self._values.items()

    def get(self, keyname, value=None):
        return self._values.get(keyname, value)

    def pop(self, *args):
        self._check(f"pop {args[0]!r}" if args else "pop")
        return self._values.pop(*args)

    def update(self, *args, **kwargs):
        self._check("update")
        self._values.update(*args, **kwargs)

    def __getattr__(self, name):  # only called for names that are not the class's or the instance's own
        if name in Config._OWN or name.startswith("__"):
            raise AttributeError(name)
        try:
            return self._values[name]
        except KeyError:
            import difflib

            close = difflib.get_close_matches(name, [str(k) for k in self._values], n=1, cutoff=0.7)
            hint = f" Did you mean '{close[0]}'?" if close else ""
            raise AttributeError(f"Config has no value '{name}'.{hint}") from None

    def __setattr__(self, name, value):
        if name in Config._OWN or hasattr(type(self), name):
            raise AttributeError(f"Config: '{name}' is a method or property of Config, not a value; "
                                 f"set it as config[{name!r}]")
        self._check(f"set {name!r}")
        self._values[name] = value

    def __getitem__(self, key):
        return self._values[key]

    def __setitem__(self, key, value):
        self._check(f"set {key!r}")
        self._values[key] = value

    def __delitem__(self, key):
        self._check(f"delete {key!r}")
        del self._values[key]

    def __contains__(self, key) -> bool:
        return key in self._values

    def __iter__(self):  # the keys in sorted order, as Keras
        return iter(sorted(self._values))

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self):
        return f"<Config {self._values}>"


__all__ += ["Config"]


def __getattr__(name: str):
    from .._api_exclusions import refuse  # a name keras.utils has and descend leaves out says why

    raise refuse("keras.utils", name, __name__)
