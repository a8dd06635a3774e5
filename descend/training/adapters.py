"""The inputs ``fit``, ``evaluate`` and ``predict`` accept, as Keras 3 does, and ``PyDataset``.

Every input becomes one :class:`~descend.data.Dataset` of batches (:class:`Batches`), so that the loop,
a distribution strategy's sharding and ``BackupAndRestore``'s exact resume treat them alike:

* arrays, Tensors, and lists or dicts of them (with ``y`` and ``sample_weight``), batched by ``batch_size``
  (default 32, or ``ceil(rows / steps)`` when only ``steps_per_epoch`` is given, as Keras);
* a :class:`~descend.data.Dataset` yielding ``x``, ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)``;
* a :class:`PyDataset` (``keras.utils.PyDataset``), or any object with ``__len__`` and ``__getitem__``
  returning whole batches: batch ``i`` is ``ds[i]``; ``on_epoch_begin``/``on_epoch_end`` are called around
  every pass (and ``on_epoch_end`` once before ``fit``'s first epoch and before each evaluation, as Keras'
  reset of the data does); ``fit(shuffle=True)`` visits the batches in a shuffled order;
* a Python generator or iterator (one pass for all of ``fit``: give ``steps_per_epoch``);
* a PyTorch ``DataLoader`` (its tensors become NumPy arrays; each epoch iterates it again).

``class_weight`` (``{class id: weight}``) turns the targets of every batch into sample weights, as
Keras: the arg-max of one-hot rows, else the rounded class id.
"""

from __future__ import annotations

import itertools
import math
import types
import warnings
from collections import deque
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ..data import Dataset
from ..framework import nest
from ..framework.tensor import Tensor, to_array

__all__ = ["PyDataset", "Sequence", "Batches", "batches_for", "class_weights_for", "check_class_weight"]


class PyDataset:
    """A dataset written in Python: ``__getitem__(i)`` returns batch ``i`` (``x``, ``(x, y)`` or
    ``(x, y, sample_weight)``), ``__len__`` the number of batches (``keras.utils.PyDataset``).

    Args:
        workers: how many threads load batches ahead of the training step (1: the step's own thread).
        use_multiprocessing: accepted for Keras' code; descend loads the batches in ``workers`` threads
            either way (the batches and their order are the same).
        max_queue_size: how many batches may wait, loaded, ahead of the step (with ``workers > 1``).

    Override ``on_epoch_end`` (and ``on_epoch_begin``) to change the data between epochs.

    Example:
        >>> import math, numpy as np, descend as ds
        >>> class Squares(ds.keras.utils.PyDataset):
        ...     def __init__(self, n, batch_size, **kwargs):
        ...         super().__init__(**kwargs)
        ...         self.x = np.arange(n, dtype=np.float32)[:, None]
        ...         self.batch_size = batch_size
        ...     def __len__(self):
        ...         return math.ceil(len(self.x) / self.batch_size)
        ...     def __getitem__(self, i):
        ...         x = self.x[i * self.batch_size:(i + 1) * self.batch_size]
        ...         return x, x ** 2
        >>> model = ds.Sequential([ds.keras.Input((1,)), ds.layers.Dense(1)])
        >>> model.compile(optimizer="sgd", loss="mse")
        >>> history = model.fit(Squares(10, 4, workers=2), epochs=2, verbose=0)
        >>> len(history.history["loss"])
        2
    """

    def __init__(self, workers: int = 1, use_multiprocessing: bool = False, max_queue_size: int = 10):
        for name, value, least in (("workers", workers, 0), ("max_queue_size", max_queue_size, 1)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < least:
                raise ValueError(f"PyDataset: `{name}` must be an integer >= {least}. Received: {value!r}")
        if not isinstance(use_multiprocessing, (bool, np.bool_)):
            raise ValueError(f"PyDataset: `use_multiprocessing` must be True or False. Received: "
                             f"{use_multiprocessing!r}")
        self._workers = int(workers)
        self._use_multiprocessing = bool(use_multiprocessing)
        self._max_queue_size = int(max_queue_size)

    def _settings(self) -> tuple[int, bool, int]:
        if not hasattr(self, "_workers"):
            warnings.warn("Your `PyDataset` class should call `super().__init__(**kwargs)` in its constructor "
                          "(`**kwargs` can include `workers`, `use_multiprocessing`, `max_queue_size`)",
                          stacklevel=3)
            self._workers, self._use_multiprocessing, self._max_queue_size = 1, False, 10
        return self._workers, self._use_multiprocessing, self._max_queue_size

    @property
    def workers(self) -> int:
        return self._settings()[0]

    @workers.setter
    def workers(self, value):
        self._workers = value

    @property
    def use_multiprocessing(self) -> bool:
        return self._settings()[1]

    @use_multiprocessing.setter
    def use_multiprocessing(self, value):
        self._use_multiprocessing = value

    @property
    def max_queue_size(self) -> int:
        return self._settings()[2]

    @max_queue_size.setter
    def max_queue_size(self, value):
        self._max_queue_size = value

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__(index), returning batch "
                                  "`index`")

    @property
    def num_batches(self) -> int | None:
        """The number of batches (``len(self)``), or None for an endless dataset."""
        if hasattr(self, "__len__"):
            return len(self)
        raise NotImplementedError(f"{type(self).__name__} must implement __len__ (the number of batches) or "
                                  "a `num_batches` property (None for an endless dataset)")

    def __iter__(self):
        n = self.num_batches
        for i in range(n) if n is not None else itertools.count():
            yield self[i]

    def on_epoch_begin(self):
        """Called before each pass over the batches."""

    def on_epoch_end(self):
        """Called after each pass over the batches."""


#: Keras' older name of :class:`PyDataset` (``keras.utils.Sequence``)
Sequence = PyDataset


# ------------------------------------------------------------------------------------------------ class_weight
def class_weights_for(y, class_weight: dict) -> np.ndarray:
    """One weight per row of ``y``: ``class_weight[class]`` (1 for a class not in it); the class of a row is
    the arg-max of a one-hot row, else the rounded id (Keras' rule)."""
    y = np.asarray(to_array(y) if isinstance(y, Tensor) else y)
    if y.ndim > 1:
        y = np.argmax(y, axis=-1) if y.shape[-1] != 1 else np.squeeze(y, axis=-1)
    ids = np.round(y).astype(np.int64).reshape(-1)
    weights = np.ones(ids.shape[0], np.float32)
    for i, c in enumerate(ids):
        weights[i] = class_weight.get(int(c), 1.0)
    return weights


def check_class_weight(class_weight) -> None:
    if class_weight is None:
        return
    if not isinstance(class_weight, dict) or not all(
            isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in class_weight):
        raise ValueError(f"`class_weight` must be a dict from class id (an int) to weight. Received: "
                         f"{str(class_weight)[:200]}")
    for k, v in class_weight.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.number)) or not math.isfinite(float(v)):
            raise ValueError(f"`class_weight`: the weight of class {k} must be a finite number. Received: {v!r}")


def _with_class_weight(batch: tuple, class_weight, what: str) -> tuple:
    if class_weight is None:
        return batch
    if len(batch) == 3:
        raise ValueError(f"{what}: you cannot give `class_weight` and sample weights (the data's third part) at "
                         "the same time")
    if len(batch) == 2:
        if isinstance(batch[1], (dict, list, tuple)):
            raise ValueError("`class_weight` is only supported for models with a single output")
        return batch + (class_weights_for(batch[1], class_weight),)
    return batch


# ------------------------------------------------------------------------------------------------ batches
def _standardize(batch, what: str) -> tuple:
    """A batch as ``(x,)``, ``(x, y)`` or ``(x, y, sample_weight)`` of NumPy values (Keras' rules: a list is
    a tuple, a lone array or dict is ``x``)."""
    batch = nest.map_structure(_numpy, batch)
    if isinstance(batch, list):
        batch = tuple(batch)
    if not isinstance(batch, tuple):
        batch = (batch,)
    if len(batch) not in (1, 2, 3):
        raise ValueError(f"{what} must give batches as x, (x,), (x, y) or (x, y, sample_weight). Received a "
                         f"tuple of {len(batch)}")
    while batch and batch[-1] is None:  # (x, y, None), as Keras' data may carry
        batch = batch[:-1]
    return batch


def _numpy(v):
    """A batch leaf as NumPy (a torch tensor leaves the graph; a descend Tensor its buffer)."""
    if v is None or isinstance(v, np.ndarray):
        return v
    if isinstance(v, Tensor):
        return to_array(v)
    if type(v).__module__.startswith("torch") and hasattr(v, "detach"):
        return v.detach().cpu().numpy()
    return np.asarray(v)


def _ordered(get, indices, workers: int, depth: int):
    """``get(i)`` for each index, in order, loaded by ``workers`` threads at most ``depth`` batches ahead."""
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="descend-pydataset")
    pending: deque = deque()
    it = iter(indices)
    try:
        for i in itertools.islice(it, depth):
            pending.append(pool.submit(get, i))
        while pending:
            batch = pending.popleft().result()
            for i in itertools.islice(it, 1):
                pending.append(pool.submit(get, i))
            yield batch
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


class Batches:
    """An input of ``fit``/``evaluate``/``predict`` as a Dataset of batches.

    Attributes:
        dataset: the :class:`~descend.data.Dataset` of batches (``(x,)``, ``(x, y)`` or ``(x, y, sw)``).
        num_batches: batches in one pass, or None when unknown or endless.
    """

    def __init__(self, dataset: Dataset, num_batches: int | None, source=None):
        self.dataset, self.num_batches = dataset, num_batches
        self._source = source  # a PyDataset (its epoch hooks), or None

    def _hook(self, name: str) -> None:
        hook = getattr(self._source, name, None)  # an object that is not a PyDataset may lack the hooks
        if hook is not None:
            hook()

    def reset(self) -> None:
        """Keras' reset of the data before a fit or an evaluation (a PyDataset's ``on_epoch_end``)."""
        self._hook("on_epoch_end")

    def on_epoch_begin(self) -> None:
        self._hook("on_epoch_begin")

    def on_epoch_end(self) -> None:
        self._hook("on_epoch_end")


def _is_torch_loader(x) -> bool:
    return type(x).__module__.startswith("torch.utils.data") and hasattr(x, "__iter__") and \
        not hasattr(x, "__getitem__")


def _is_array_like(x) -> bool:
    return isinstance(x, (np.ndarray, Tensor, list, tuple, dict, int, float, np.number)) or \
        hasattr(x, "__array__") or hasattr(x, "shape")


def _is_py_dataset(x) -> bool:
    return isinstance(x, PyDataset) or (not _is_array_like(x) and hasattr(x, "__getitem__")
                                        and (hasattr(x, "__len__") or hasattr(x, "num_batches")))


def batches_for(what: str, x, y=None, sample_weight=None, *, batch_size=None, steps=None, shuffle=False,
                seed=None, class_weight=None) -> Batches:
    """``x`` (and ``y``, ``sample_weight``) as :class:`Batches`; ``what`` names the caller in errors."""
    check_class_weight(class_weight)
    if isinstance(x, Dataset) or _is_torch_loader(x) or _is_py_dataset(x) or \
            isinstance(x, (types.GeneratorType, types.AsyncGeneratorType)) or \
            (hasattr(x, "__next__") and not _is_array_like(x)):
        kind = ("a Dataset" if isinstance(x, Dataset) else "a torch DataLoader" if _is_torch_loader(x)
                else "a PyDataset" if _is_py_dataset(x) else "a generator")
        for name, value in (("y", y), ("sample_weight", sample_weight)):
            if value is not None:
                raise ValueError(f"{what}: `{name}` must be None when x is {kind} (it yields (x, y) or "
                                 f"(x, y, sample_weight) itself). Received: {name} of type {type(value).__name__}")
    if isinstance(x, Dataset):
        if class_weight is None:
            return Batches(x, _known_length(x))

        def weigh(*parts):
            return _with_class_weight(tuple(parts), class_weight, what)
        return Batches(x.map(weigh), _known_length(x))
    if _is_torch_loader(x):
        if class_weight is not None:
            raise ValueError(f"{what}: `class_weight` is not supported for a torch DataLoader: return "
                             "(x, y, sample_weight) from its dataset instead")

        def loader():
            for batch in x:
                yield _standardize(batch, "the DataLoader")
        try:
            n = len(x)
        except TypeError:
            n = None
        return Batches(Dataset.from_generator(loader), n)
    if _is_py_dataset(x):
        return _py_dataset_batches(what, x, shuffle, seed, class_weight)
    if isinstance(x, types.AsyncGeneratorType):
        raise TypeError(f"{what}: an async generator is not supported; pass a generator, a Dataset or arrays")
    if isinstance(x, types.GeneratorType) or (hasattr(x, "__next__") and not _is_array_like(x)):
        def generator():
            for batch in x:
                yield _with_class_weight(_standardize(batch, "the generator"), class_weight, what)
        return Batches(Dataset.from_generator(generator), None)  # each pass continues the generator
    return _array_batches(what, x, y, sample_weight, batch_size, steps, shuffle, seed, class_weight)


def _known_length(dataset: Dataset) -> int | None:
    try:
        return len(dataset)
    except TypeError:  # unknown or infinite cardinality
        return None


def _py_dataset_batches(what, x, shuffle, seed, class_weight) -> Batches:
    workers, _, depth = (x.workers, x.use_multiprocessing, x.max_queue_size) if isinstance(x, PyDataset) else \
        (getattr(x, "workers", 1), getattr(x, "use_multiprocessing", False), getattr(x, "max_queue_size", 10))
    n = x.num_batches if hasattr(x, "num_batches") else len(x)
    if n is not None and (isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0):
        raise ValueError(f"{what}: the PyDataset's length must be an integer >= 0. Received: {n!r}")
    if n == 0:
        raise ValueError(f"{what}: the PyDataset has no batches (its length is 0)")
    if n is None and shuffle:
        warnings.warn("`shuffle=True` is ignored for an endless PyDataset (num_batches None): shuffle it "
                      "yourself", stacklevel=4)
    rng = np.random.default_rng(seed) if shuffle and n is not None else None

    def get(i):
        return _with_class_weight(_standardize(x[int(i)], "PyDataset.__getitem__"), class_weight, what)

    def passes():
        order = itertools.count() if n is None else (rng.permutation(n) if rng is not None else range(n))
        if workers > 1:
            yield from _ordered(get, order, int(workers), max(int(depth), 1))
        else:
            for i in order:
                yield get(i)
    # each pass of the Dataset is one epoch of the PyDataset; its hooks run through Batches
    return Batches(Dataset.from_generator(passes), None if n is None else int(n), source=x)


def _array_batches(what, x, y, sample_weight, batch_size, steps, shuffle, seed, class_weight) -> Batches:
    if class_weight is not None:
        if sample_weight is not None:
            raise ValueError(f"{what}: you cannot give `class_weight` and `sample_weight` at the same time")
        if y is None:
            raise ValueError(f"{what}: `class_weight` needs targets `y`")
        if isinstance(y, (dict, list, tuple)) and not (isinstance(y, (list, tuple)) and y
                                                        and getattr(y[0], "shape", None) is None):
            raise ValueError("`class_weight` is only supported for models with a single output")
        sample_weight = class_weights_for(y, class_weight)
    parts = (x,) if y is None else ((x, y) if sample_weight is None else (x, y, sample_weight))
    dataset = Dataset.from_tensor_slices(parts)
    n = len(dataset)
    if not batch_size:
        batch_size = math.ceil(n / steps) if steps else 32
    if shuffle:
        dataset = dataset.shuffle(max(n, 1), seed=seed)
    return Batches(dataset.batch(batch_size), math.ceil(n / batch_size))
