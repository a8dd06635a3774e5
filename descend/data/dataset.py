"""The input pipeline (``tf.data``): ``Dataset``, the dataset of each transformation and ``DatasetIterator``
(public as ``descend.data``); the stages that iterate are in :mod:`.stages`."""

from __future__ import annotations

import os
import threading
import weakref

import numpy as np

from ..backend import np_dtype
from ..errors import EndOfIterator
from ..framework import nest
from ..framework import trace as _trace
from ..framework.tensor import Tensor, to_array
from ..persistence.durable import replacing
from .stages import (
    DatasetBase, _UNIFORM_BLOCK,
    _to_arrays, _paths, _to_tensors, _call, _stack, _Ref, _ready, _Indexed, _SliceFn, _RangeFn, _int_arg,
    _check_callable, _check_state, _input_state, _state_int, _StageIter, _IndexedIter, _GeneratorIter, _MapIter,
    _FilterIter, _BatchIter, _TakeIter, _SkipIter, _RepeatIter, _ShuffleIter, _PrefetchIter, _ZipIter,
    _ConcatIter, _CacheIter,
)

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "Dataset",
    "DatasetIterator",
    "TextLineDataset",
]

AUTOTUNE = -1
INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2

_STATE_FORMAT = "descend.data.iterator"
_STATE_VERSION = 1
_AUTOTUNE_PREFETCH = 2  # queue depth used for prefetch(AUTOTUNE)


# ---------------------------------------------------------------------------
# the public iterator
# ---------------------------------------------------------------------------
_live_datasets: weakref.WeakSet = weakref.WeakSet()


def _after_fork_in_child() -> None:
    # a fork while another thread held a dataset's epoch lock would leave it locked in the child
    for d in list(_live_datasets):
        d._epoch_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def default_seed(what: str | None = None) -> int:
    """The seed of a shuffle given none: derived from the global seed and the op counter when a global seed
    is set (the same program draws the same seeds: reproducible runs, the same order on every MPI rank),
    else fresh entropy; with ``what`` (the op asking) under op determinism, TF's ``RuntimeError`` instead."""
    from ..random import get_seed

    g, o = get_seed(None)
    if g is None:
        if what is not None:
            from .._native.blas import deterministic

            if deterministic():  # (TF's: an order that cannot be repeated)
                raise RuntimeError(f"Random ops require a seed to be set when determinism is enabled "
                                   f"(descend.config.experimental.enable_op_determinism): {what} needs `seed` or a "
                                   "global seed (descend.random.set_seed(1))")
        return int(np.random.SeedSequence().entropy) % 2**64
    return int(np.random.SeedSequence([g % 2**63, o % 2**63]).generate_state(1, np.uint64)[0])


class DatasetIterator:
    """An iterator over a :class:`Dataset`: yields elements and can save and restore its position.

    Example:
        >>> import numpy as np
        >>> from descend.data import Dataset
        >>> ds = Dataset.range(10).shuffle(4, seed=1).batch(3)
        >>> it = iter(ds)
        >>> first = next(it).numpy()
        >>> state = it.get_state()           # JSON-serializable integers
        >>> rest = [b.numpy() for b in it]
        >>> again = [b.numpy() for b in ds.iterator_from_state(state)]
        >>> all(np.array_equal(a, b) for a, b in zip(rest, again))
        True
    """

    #: the attribute a checkpoint keys this iterator's state by (``it/.ATTRIBUTES/ITERATOR_STATE``, TensorFlow's name)
    checkpoint_attribute = "ITERATOR_STATE"

    def __init__(self, dataset: Dataset, epoch: int, node_state=None, *, numpy: bool = False, position: int = 0):
        self._dataset = dataset
        self._epoch = epoch
        self._numpy = numpy
        self._position = position
        self._closed = False
        self._returned: list = []  # elements put back (put_back), taken again first
        self._node = dataset._open((epoch,), node_state)
        # made while descend.function traces: the trace's own iterator, its elements part of the trace
        self._made_in_trace = bool(_trace.active) and _trace.current() is not None

    @property
    def epoch(self) -> int:
        """Which pass over the dataset this iterator makes (0 for the first ``iter(ds)``)."""
        return self._epoch

    @property
    def position(self) -> int:
        """How many elements this iterator has produced in its epoch."""
        return self._position

    def __iter__(self):
        return self

    def __next__(self):
        if _trace.active and not self._made_in_trace and _trace.current() is not None:
            # inside descend.function: a node of the plan, taking the next element on every call (TF's
            # IteratorGetNext), not this one element frozen into the trace
            from ..errors import OutOfRangeError

            try:
                return self.get_next()
            except OutOfRangeError:
                raise EndOfIterator from None  # (Python's protocol: a loop over the iterator ends)
        return self._take()

    @_trace.opaque("iterator")
    def get_next(self):
        """The next element, as TF's ``get_next``: ``descend.errors.OutOfRangeError`` at the end (``next``
        raises ``StopIteration`` outside ``descend.function``). Inside ``descend.function`` each call of
        the compiled function takes the next element."""
        from ..errors import OutOfRangeError

        try:
            return self._take()
        except StopIteration:
            raise OutOfRangeError("End of sequence: the Dataset iterator has no more elements") from None

    def put_back(self, element) -> None:
        """Return ``element`` (what ``next`` just gave) to the iterator: the next ``next`` gives it again.
        A compiled function whose trace cannot take an element (another shape: a last partial batch) puts it
        back, so that the call taking it eagerly gets it and a call that fails takes nothing."""
        self._returned.append(element)
        self._position -= 1

    def _take(self):
        if self._closed:
            raise EndOfIterator
        if self._returned:
            self._position += 1
            return self._returned.pop()
        try:
            value = next(self._node).get()
        except StopIteration:
            raise EndOfIterator from None  # (a StopIteration: a descend.function call that meets it says OutOfRange)
        self._position += 1
        if self._numpy:
            return value
        return _to_tensors(value)

    def copy(self) -> DatasetIterator:
        """An independent iterator at this one's position (taking from it leaves this one as it is)."""
        it = DatasetIterator(self._dataset, self._epoch, self._node.state(), numpy=self._numpy,
                             position=self._position)
        it._closed = self._closed
        it._returned = list(self._returned)
        return it

    def get_state(self) -> dict:
        """The iterator's position as a JSON-serializable dict (integers and strings only)."""
        if self._returned:
            raise ValueError(f"get_state: {len(self._returned)} element(s) were put back into this iterator (a "
                             "compiled function could not take them) and are not taken again yet; a saved position "
                             "would skip them. Take them first")
        return {
            "format": _STATE_FORMAT,
            "version": _STATE_VERSION,
            "epoch": self._epoch,
            "position": self._position,
            "stages": self._node.state(),
        }

    def set_state(self, state: dict) -> None:
        """Move this iterator to ``state`` (from :meth:`get_state` on the same pipeline)."""
        epoch, position, stages = _parse_state(state)
        node = self._dataset._open((epoch,), stages)
        self._node.close()
        self._node, self._epoch, self._position, self._closed = node, epoch, position, False
        self._returned = []
        self._dataset._set_next_epoch(epoch + 1)

    def close(self) -> None:
        """Stop background work (prefetch threads, generators). Further ``next`` calls end the iteration."""
        self._closed = True
        self._node.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __repr__(self):
        return f"<DatasetIterator epoch={self._epoch} position={self._position}>"


def _parse_state(state):
    if not isinstance(state, dict) or state.get("format") != _STATE_FORMAT:
        raise ValueError(f"Not a descend.data iterator state (from DatasetIterator.get_state()): {state!r:.200}")
    if state.get("version") != _STATE_VERSION:
        raise ValueError(f"Unsupported iterator state version {state.get('version')!r}; expected {_STATE_VERSION}")
    epoch, position = state.get("epoch"), state.get("position")
    for name, v in (("epoch", epoch), ("position", position)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise ValueError(f"Iterator state has an invalid {name!r}: {v!r}")
    return epoch, position, state.get("stages")


# ---------------------------------------------------------------------------
# datasets
# ---------------------------------------------------------------------------
class Dataset(DatasetBase):
    """An immutable, re-iterable pipeline of elements, with tf.data's API and semantics.

    Build one with :meth:`from_tensor_slices`, :meth:`from_tensors`, :meth:`range`,
    :meth:`from_generator` or :meth:`from_iterable`, then chain transformations;
    each returns a new dataset and leaves its input unchanged.

    Example:
        >>> import numpy as np
        >>> from descend.data import Dataset
        >>> x = np.arange(10, dtype=np.float32).reshape(5, 2)
        >>> y = np.arange(5)
        >>> ds = Dataset.from_tensor_slices((x, y)).shuffle(5, seed=0).batch(2)
        >>> [tuple(yb.shape) for _, yb in ds]
        [(2,), (2,), (1,)]
        >>> int(ds.cardinality())
        3
    """

    def __init__(self):
        self._epoch_lock = threading.Lock()
        self._next_epoch = 0
        _live_datasets.add(self)

    # -- to implement -------------------------------------------------------------
    def _open(self, key: tuple, state) -> _StageIter:
        """A stage iterator for pass ``key`` (epoch, then enclosing repeat indices), at ``state`` if given."""
        raise NotImplementedError

    def _cardinality(self) -> int:
        raise NotImplementedError

    # -- sources ----------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None) -> Dataset:
        """One element per row of ``tensors`` (an array, Tensor, tuple, list or dict of them, nested).

        All components must have the same size in their first dimension; the
        element ``i`` is the structure of their ``i``-th slices. NumPy inputs
        keep their dtype; Python numbers follow descend's defaults (float32,
        int32). The data is copied, so later changes to the inputs do not
        affect the dataset. A list of numbers is one component (as in TF); a
        list holding arrays or Tensors is a structure and stays a list.

        Raises:
            ValueError: if a component is a scalar or the first dimensions differ.
        """
        structure = _to_arrays(tensors, copy=True)
        leaves = _paths(structure)
        if not leaves:
            raise ValueError("from_tensor_slices needs at least one component. Received an empty structure")
        for path, a in leaves:
            if a.ndim == 0:
                raise ValueError(
                    f"from_tensor_slices: component {path} is a scalar (shape ()); every component needs a first "
                    "dimension to slice"
                )
        sizes = {path: a.shape[0] for path, a in leaves}
        if len(set(sizes.values())) > 1:
            listed = ", ".join(f"{p}: {s}" for p, s in sizes.items())
            raise ValueError(
                f"from_tensor_slices: all components must have the same size in their first dimension. "
                f"Received sizes: {listed}"
            )
        return _IndexedSource(_SliceFn(structure), leaves[0][1].shape[0], "from_tensor_slices")

    @staticmethod
    def from_tensors(tensors, name=None) -> Dataset:
        """A dataset with exactly one element: ``tensors`` (any structure)."""
        structure = _to_arrays(tensors, copy=True)
        if not nest.flatten(structure):
            raise ValueError("from_tensors needs at least one component. Received an empty structure")
        return _IndexedSource(_SliceFn(nest.map_structure(lambda a: a[np.newaxis], structure)), 1, "from_tensors")

    @staticmethod
    def range(*args, dtype=np.int64) -> Dataset:
        """``range(stop)``, ``range(start, stop)`` or ``range(start, stop, step)`` as scalar int64 elements."""
        if not 1 <= len(args) <= 3:
            raise TypeError(f"range expects 1 to 3 integer arguments (start, stop, step). Received {len(args)}")
        names = {1: ("stop",), 2: ("start", "stop"), 3: ("start", "stop", "step")}[len(args)]
        vals = {n: _int_arg(n, a, minimum=-(2**62), what="an integer") for n, a in zip(names, args)}
        start, stop, step = vals.get("start", 0), vals["stop"], vals.get("step", 1)
        if step == 0:
            raise ValueError("range: `step` must not be zero. Received: step=0")
        n = len(range(start, stop, step))
        return _IndexedSource(_RangeFn(start, step, np_dtype(dtype)), n, "range")

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None) -> Dataset:
        """Elements from ``generator(*args)``, a callable returning an iterable; called once per epoch.

        Each yielded value may be an array, Tensor, number or a tuple/dict
        structure of them. The cardinality is unknown. Resuming from a state
        calls the generator again and skips the elements already produced, so
        it must yield the same sequence each time for exact resume.

        Args:
            generator: the callable.
            output_types: TF's (the second positional argument): the dtype of each
                component, in the element's structure; each yielded component is
                converted to it (``TypeError`` when it cannot be).
            output_shapes: the shape of each component (``None`` dimensions
                allowed); a yielded component of another shape raises
                ``InvalidArgumentError``.
            args: the arguments ``generator`` is called with.
            output_signature: ``TensorSpec`` s in the element's structure (dtypes
                and shapes at once, instead of ``output_types``/``output_shapes``).
            name: accepted for TF code.

        Example:
            >>> import descend as ds
            >>> d = ds.data.Dataset.from_generator(lambda: [(1, 2.0)], (ds.int32, ds.float32))
            >>> [(int(a), a.dtype.name, b.dtype.name) for a, b in d]
            [(1, 'int32', 'float32')]
        """
        _check_callable("generator", generator)
        if output_signature is not None:
            if output_types is not None or output_shapes is not None:
                raise TypeError("from_generator: `output_signature` replaces `output_types` and `output_shapes`; "
                                "give one or the other")
            specs = nest.flatten(output_signature)
            if not all(hasattr(s, "dtype") and hasattr(s, "shape") for s in specs):
                raise TypeError(f"from_generator: `output_signature` must be a structure of TensorSpec. "
                                f"Received: {output_signature!r}")
            output_types = nest.map_structure(lambda s: s.dtype, output_signature)
            output_shapes = nest.map_structure(lambda s: s.shape, output_signature)
        elif output_types is None and output_shapes is not None:
            raise TypeError("from_generator: `output_shapes` needs `output_types`")
        extra = tuple(args) if args is not None else ()
        conform = None if output_types is None else _Conform(output_types, output_shapes)
        return _GeneratorSource(lambda: generator(*extra), conform)

    @staticmethod
    def from_iterable(iterable) -> Dataset:
        """Elements from a re-iterable collection (list, tuple, ...), iterated afresh each epoch."""
        try:
            it = iter(iterable)
        except TypeError:
            raise TypeError(f"from_iterable expects an iterable. Received: {type(iterable).__name__}") from None
        if it is iterable:
            raise TypeError(
                "from_iterable needs a re-iterable collection (a list, tuple, ...), not a one-shot iterator or "
                "generator: every epoch iterates it again. Use from_generator(callable) for generators"
            )
        return _GeneratorSource(lambda: iterable)

    @staticmethod
    def zip(*args, datasets=None, name=None) -> Dataset:
        """Combine a tuple/dict (nested) of datasets element-wise; ends with the shortest. As TF 2.21 the
        datasets may also be given as several positional arguments (``zip(a, b)`` is ``zip((a, b))``)."""
        if datasets is not None and args:
            raise TypeError("zip: give the datasets either positionally or as `datasets=`, not both")
        if datasets is None:
            if not args:
                raise TypeError("zip expects a non-empty tuple or dict of Datasets. Received no arguments")
            datasets = args[0] if len(args) == 1 else tuple(args)
        flat = nest.flatten(datasets)
        if not flat or not all(isinstance(d, Dataset) for d in flat):
            raise TypeError("zip expects a non-empty tuple or dict of Datasets")
        return _ZipDataset(datasets, flat)

    # -- transformations ------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None) -> Dataset:
        """Apply ``map_func`` to every element.

        A tuple element's components are passed as positional arguments; any
        other element (a dict, a single Tensor) as one argument. The function
        receives descend Tensors and may return Tensors, arrays or numbers in
        any structure (a returned list becomes a tuple, as in tf.data). It must
        be pure for exact resume. ``num_parallel_calls`` and ``deterministic``
        are accepted for compatibility; calls run in order (use ``prefetch``
        to overlap them with training).
        """
        _check_callable("map_func", map_func)
        return _MapDataset(self, map_func)

    def filter(self, predicate, name=None) -> Dataset:
        """Keep the elements for which ``predicate`` (called like ``map``'s function) returns True.

        The predicate must return a scalar boolean (Python bool or a boolean
        Tensor/array of shape ()) and be pure for exact resume.
        """
        _check_callable("predicate", predicate)
        return _FilterDataset(self, predicate)

    def batch(self, batch_size: int, drop_remainder: bool = False, num_parallel_calls=None, deterministic=None, name=None):
        """Stack ``batch_size`` consecutive elements along a new first axis, keeping the structure.

        The last batch is smaller unless ``drop_remainder=True``, which drops it.
        """
        batch_size = _int_arg("batch_size", batch_size, minimum=1, what="a positive integer")
        return _BatchDataset(self, batch_size, bool(drop_remainder))

    def shuffle(self, buffer_size: int, seed: int | None = None, reshuffle_each_iteration: bool = True, name=None) -> Dataset:
        """Randomly shuffle with a buffer of ``buffer_size`` elements (tf.data semantics).

        The first ``buffer_size`` elements fill the buffer; each output is
        picked uniformly at random from the buffer and its slot refilled with
        the next input element. Element ``i`` of the input therefore appears at
        output position ``>= i - buffer_size + 1``; use a buffer at least as
        large as the dataset for a uniform permutation.

        Args:
            buffer_size: positive number of elements held in the buffer.
            seed: an integer making the order reproducible; ``None`` takes one
                from the global seed when one is set (``descend.random.set_seed``,
                ``keras.utils.set_random_seed``; as TF), else draws one at random now
                (under op determinism: ``RuntimeError``, as TF's).
            reshuffle_each_iteration: a different order in each epoch (each
                ``iter()`` and each pass of an enclosing ``repeat``), still a
                function of the seed; ``False`` repeats one order.
        """
        buffer_size = _int_arg("buffer_size", buffer_size, minimum=1, what="a positive integer")
        if seed is None:
            seed = default_seed(what="Dataset.shuffle")
        else:
            seed = _int_arg("seed", seed, minimum=-(2**63), what="an integer") % (2**64)
        return _ShuffleDataset(self, buffer_size, seed, bool(reshuffle_each_iteration))

    def repeat(self, count: int | None = None, name=None) -> Dataset:
        """Repeat the dataset ``count`` times (forever for ``None`` or -1)."""
        count = -1 if count is None else _int_arg("count", count, minimum=0, allowed=(-1,), what=">= 0 or -1")
        return _RepeatDataset(self, count)

    def take(self, count: int, name=None) -> Dataset:
        """The first ``count`` elements (all of them for -1)."""
        count = _int_arg("count", count, minimum=0, allowed=(-1,), what=">= 0 or -1 (all elements)")
        return _TakeDataset(self, count)

    def skip(self, count: int, name=None) -> Dataset:
        """All but the first ``count`` elements (none of them for -1)."""
        count = _int_arg("count", count, minimum=0, allowed=(-1,), what=">= 0 or -1 (all elements)")
        return _SkipDataset(self, count)

    def prefetch(self, buffer_size: int, name=None) -> Dataset:
        """Produce up to ``buffer_size`` elements ahead in a background thread (``AUTOTUNE``: 2; 0: no-op)."""
        buffer_size = _int_arg("buffer_size", buffer_size, minimum=0, allowed=(AUTOTUNE,), what=">= 0 or AUTOTUNE")
        if buffer_size == 0:
            return self
        return _PrefetchDataset(self, _AUTOTUNE_PREFETCH if buffer_size == AUTOTUNE else buffer_size)

    def cache(self, filename: str = "", name=None) -> Dataset:
        """Keep the elements of the first complete pass and replay them in every later pass.

        As ``tf.data``'s ``cache``: the first iteration that reads the input
        to its end records it (upstream ``map`` functions and random orders
        then run once); a pass stopped early records nothing. Shuffle after
        ``cache`` for a new order each epoch. With a ``filename`` the recorded
        elements are also written there (atomically, when the pass ends), and
        a later pipeline ``cache(filename)`` reads them from the file instead
        of its input; the file is a descend cache (pickled arrays): only read
        files you wrote. An iterator state taken while reading the cache
        resumes exactly in a fresh process (the cache is refilled from the
        recorded pass); a state taken during the filling pass resumes the
        input itself.

        Args:
            filename: ``""`` (default) keeps the cache in memory only.

        Example:
            >>> from descend.data import Dataset
            >>> calls = []
            >>> ds = Dataset.range(3).map(lambda x: calls.append(1) or x * 2).cache()
            >>> [int(v) for v in ds], [int(v) for v in ds], len(calls)
            ([0, 2, 4], [0, 2, 4], 3)
        """
        if not isinstance(filename, str):
            raise TypeError(f"cache: `filename` must be a string. Received: {type(filename).__name__}")
        return _CacheDataset(self, filename)

    def concatenate(self, dataset: Dataset, name=None) -> Dataset:
        """This dataset's elements followed by ``dataset``'s."""
        if not isinstance(dataset, Dataset):
            raise TypeError(f"concatenate expects a Dataset. Received: {type(dataset).__name__}")
        return _ConcatDataset(self, dataset)

    # -- more transformations (tf.data's catalogue) -----------------------------------
    @staticmethod
    def counter(start: int = 0, step: int = 1, dtype=np.int64, name=None) -> Dataset:
        """``start, start + step, ...`` forever (``INFINITE_CARDINALITY``), as ``tf.data.Dataset.counter``."""
        start = _int_arg("start", start, minimum=-(2**62), what="an integer")
        step = _int_arg("step", step, minimum=-(2**62), what="an integer")
        return _CounterSource(start, step, np_dtype(dtype))

    @staticmethod
    def random(seed: int | None = None, rerandomize_each_iteration: bool | None = None, name=None) -> Dataset:
        """Random int64 scalars forever. Descend's own generator (not TF's bits); a pure function of ``seed``
        (``None``: as ``shuffle``) and, with ``rerandomize_each_iteration=True``, of the epoch."""
        seed = default_seed() if seed is None else _int_arg("seed", seed, minimum=-(2**63), what="an integer") % 2**64
        return _RandomSource(seed, bool(rerandomize_each_iteration))

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset: bool = True) -> Dataset:
        """Element ``i`` from ``datasets[choice_i]``, the choices read from ``choice_dataset`` (scalar ints).

        With ``stop_on_empty_dataset`` (the default, as TF) the result ends when a chosen dataset is exhausted;
        otherwise exhausted datasets are passed over and it ends when all are. A choice out of range raises
        ``InvalidArgumentError``."""
        datasets = list(datasets) if isinstance(datasets, (list, tuple)) else None
        if not datasets or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("choose_from_datasets: `datasets` must be a non-empty list of Datasets")
        if not isinstance(choice_dataset, Dataset):
            raise TypeError(f"choose_from_datasets: `choice_dataset` must be a Dataset of scalar integers. "
                            f"Received: {type(choice_dataset).__name__}")
        return _ChooseDataset(datasets, choice_dataset, bool(stop_on_empty_dataset))

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset: bool = False,
                             rerandomize_each_iteration=None) -> Dataset:
        """Each element from a dataset drawn at random with probabilities ``weights`` (uniform by default).

        The draws are descend's (a pure function of ``seed``; not TF's bits). Exhausted datasets are passed over
        (``stop_on_empty_dataset=False``, TF's default) or end the result (``True``)."""
        datasets = list(datasets) if isinstance(datasets, (list, tuple)) else None
        if not datasets or not all(isinstance(d, Dataset) for d in datasets):
            raise TypeError("sample_from_datasets: `datasets` must be a non-empty list of Datasets")
        if weights is None:
            w = np.full(len(datasets), 1.0 / len(datasets))
        else:
            if isinstance(weights, Dataset):
                raise TypeError("sample_from_datasets: `weights` as a Dataset is not supported; give a list of "
                                "floats")
            w = np.asarray(to_array(weights), dtype=np.float64).reshape(-1)
            if w.shape != (len(datasets),) or not np.all(np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
                raise ValueError(f"sample_from_datasets: `weights` must be {len(datasets)} non-negative finite "
                                 f"numbers with a positive sum (one per dataset). Received: {weights!r}")
            w = w / w.sum()
        seed = default_seed() if seed is None else _int_arg("seed", seed, minimum=-(2**63), what="an integer") % 2**64
        selector = _CategoricalSource(seed, bool(rerandomize_each_iteration), np.cumsum(w))
        return _ChooseDataset(datasets, selector, bool(stop_on_empty_dataset))

    def enumerate(self, start: int = 0, name=None) -> Dataset:
        """``(index, element)`` pairs, the index an int64 counting from ``start``."""
        return Dataset.zip((Dataset.counter(start), self))

    def flat_map(self, map_func, name=None) -> Dataset:
        """``map_func`` maps each element (called like ``map``'s function) to a Dataset; their elements follow
        one another in order."""
        _check_callable("map_func", map_func)
        return _InterleaveDataset(self, map_func, 1, 1, "flat_map")

    def interleave(self, map_func, cycle_length=None, block_length=None, num_parallel_calls=None,
                   deterministic=None, name=None) -> Dataset:
        """Interleave the datasets ``map_func`` makes of the input elements, in tf.data's order.

        ``cycle_length`` input elements are open at once; ``block_length`` consecutive elements are taken from
        each in turn; an exhausted one is replaced in its slot by the next input element's dataset.
        ``cycle_length=None`` (or ``AUTOTUNE``) is the number of CPUs, as TF (so the order depends on the
        machine: give it for a portable order). ``num_parallel_calls`` and ``deterministic`` are accepted; the
        order is always the deterministic one. State restore replays the pass (see ``window``)."""
        _check_callable("map_func", map_func)
        if cycle_length is None or cycle_length == AUTOTUNE:
            cycle_length = os.cpu_count() or 1
        cycle_length = _int_arg("cycle_length", cycle_length, minimum=1, what="a positive integer or AUTOTUNE")
        block_length = 1 if block_length is None else _int_arg("block_length", block_length, minimum=1,
                                                               what="a positive integer")
        return _InterleaveDataset(self, map_func, cycle_length, block_length, "interleave")

    def scan(self, initial_state, scan_func, name=None) -> Dataset:
        """A running state: ``scan_func(state, element)`` returns ``(new_state, output_element)``.

        The new state must keep the structure of ``initial_state``. Restoring an iterator state replays the
        pass from its start (``scan_func`` must be pure)."""
        _check_callable("scan_func", scan_func)
        initial = _to_arrays(initial_state)
        return _ScanDataset(self, initial, scan_func)

    def window(self, size: int, shift: int | None = None, stride: int = 1, drop_remainder: bool = False, name=None):
        """Windows of ``size`` elements, each a structure of Datasets (one per component, as TF).

        Window ``k`` holds the input elements ``k*shift + j*stride`` (``j < size``); ``shift`` defaults to
        ``size``. The last windows are shorter unless ``drop_remainder``. Iterator states of this stage (and of
        ``interleave``, ``flat_map``, ``scan``, ``unbatch``, ``group_by_window``, ``unique``,
        ``ignore_errors``, ``choose_from_datasets``) hold the number of elements emitted: restoring replays
        the pass from its start, which is exact for pure functions."""
        size = _int_arg("size", size, minimum=1, what="a positive integer")
        shift = size if shift is None else _int_arg("shift", shift, minimum=1, what="a positive integer")
        stride = _int_arg("stride", stride, minimum=1, what="a positive integer")
        return _WindowDataset(self, size, shift, stride, bool(drop_remainder))

    def unbatch(self, name=None) -> Dataset:
        """Split each element along its first dimension into that many elements (inverse of ``batch``)."""
        return _UnbatchDataset(self)

    def rebatch(self, batch_size, drop_remainder: bool = False, name=None) -> Dataset:
        """``unbatch()`` then ``batch(batch_size)``: batches of another size (a scalar ``batch_size`` only)."""
        if np.ndim(batch_size) != 0:
            raise TypeError("rebatch: only a scalar `batch_size` is supported (not a list of sizes). "
                            f"Received: {batch_size!r}")
        return self.unbatch().batch(batch_size, drop_remainder=drop_remainder)

    def padded_batch(self, batch_size: int, padded_shapes=None, padding_values=None, drop_remainder: bool = False, name=None):
        """Batch elements of different shapes, padding each component to ``padded_shapes`` (``None`` or -1
        dimensions: the longest in the batch; default all of them) with ``padding_values`` (default 0)."""
        batch_size = _int_arg("batch_size", batch_size, minimum=1, what="a positive integer")
        return _PaddedBatchDataset(self, batch_size, bool(drop_remainder), padded_shapes, padding_values)

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None, name=None) -> Dataset:
        """Group elements by ``key_func`` (a scalar int); a group of ``window_size`` (or
        ``window_size_func(key)``) elements becomes a Dataset given to ``reduce_func(key, window)``, whose
        elements are emitted. At the end the unfinished groups follow in ascending key order (as tf.data)."""
        _check_callable("key_func", key_func)
        _check_callable("reduce_func", reduce_func)
        if (window_size is None) == (window_size_func is None):
            raise ValueError("group_by_window: give exactly one of `window_size` and `window_size_func`. Received "
                             f"window_size={window_size!r}, window_size_func={window_size_func!r}")
        if window_size is not None:
            window_size = _int_arg("window_size", window_size, minimum=1, what="a positive integer")
        else:
            _check_callable("window_size_func", window_size_func)
        return _GroupByWindowDataset(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries, bucket_batch_sizes,
                                  padded_shapes=None, padding_values=None, pad_to_bucket_boundary=False,
                                  no_padding=False, drop_remainder=False, name=None) -> Dataset:
        """Batch elements of similar length together: bucket ``i`` holds lengths in
        ``[boundaries[i-1], boundaries[i])`` and is batched (padded) by ``bucket_batch_sizes[i]``."""
        _check_callable("element_length_func", element_length_func)
        bounds = [_int_arg("bucket_boundaries", b, minimum=1, what="positive integers") for b in bucket_boundaries]
        if any(a >= b for a, b in zip(bounds, bounds[1:])):
            raise ValueError(f"bucket_by_sequence_length: `bucket_boundaries` must be increasing. Received {bounds}")
        sizes = [_int_arg("bucket_batch_sizes", b, minimum=1, what="positive integers") for b in bucket_batch_sizes]
        if len(sizes) != len(bounds) + 1:
            raise ValueError(f"bucket_by_sequence_length: `bucket_batch_sizes` must have len(bucket_boundaries) + 1 "
                             f"= {len(bounds) + 1} entries. Received {len(sizes)}")
        if pad_to_bucket_boundary and padded_shapes is None:
            raise ValueError("bucket_by_sequence_length: `pad_to_bucket_boundary=True` needs `padded_shapes` "
                             "(its None dimensions are padded to the bucket's boundary - 1)")
        import bisect

        def bucket_of(*args):
            length = _scalar_key(element_length_func(*args), "bucket_by_sequence_length: `element_length_func`")
            return bisect.bisect_right(bounds, length)

        def key_func(*args):
            return np.int64(bucket_of(*args))

        def reduce_func(bucket, window):
            b = int(bucket)
            if no_padding:
                return window.batch(sizes[b], drop_remainder=drop_remainder)
            shapes = padded_shapes
            if pad_to_bucket_boundary:
                if b == len(bounds):
                    raise ValueError("bucket_by_sequence_length: with `pad_to_bucket_boundary=True` every length "
                                     f"must be below the last boundary {bounds[-1]}")
                fill = bounds[b] - 1
                shapes = nest.map_structure(lambda s: [fill if d is None or d == -1 else d for d in s],
                                            padded_shapes, is_leaf=lambda s: isinstance(s, (list, tuple)) and all(
                                                d is None or isinstance(d, (int, np.integer)) for d in s))
            return window.padded_batch(sizes[b], shapes, padding_values, drop_remainder)

        return self.group_by_window(key_func, reduce_func, window_size_func=lambda b: np.int64(sizes[int(b)]))

    def unique(self, name=None) -> Dataset:
        """The elements (scalar integers or strings) without repeats, in first-seen order."""
        return _UniqueDataset(self)

    def ignore_errors(self, log_warning: bool = False, name=None) -> Dataset:
        """Drop the elements whose computation raises an ``Exception`` (with a warning if ``log_warning``)."""
        return _IgnoreErrorsDataset(self, bool(log_warning))

    def reduce(self, initial_state, reduce_func, name=None):
        """Fold the elements: ``state = reduce_func(state, element)`` from ``initial_state``; the final state
        as Tensors (same structure)."""
        _check_callable("reduce_func", reduce_func)
        state = _to_arrays(initial_state)
        with self.as_numpy_iterator() as it:
            for value in it:
                out = reduce_func(_to_tensors(state), _to_tensors(value))
                new_state = _to_arrays(tuple(out) if isinstance(out, list) else out)
                _match_structure(state, new_state, "reduce")
                state = new_state
        return _to_tensors(state)

    def get_single_element(self, name=None):
        """The only element, as Tensors; ``InvalidArgumentError`` if the dataset has none or more than one."""
        from ..errors import InvalidArgumentError

        with self.as_numpy_iterator() as it:
            try:
                value = next(it)
            except StopIteration:
                raise InvalidArgumentError("get_single_element: the dataset was empty (expected one element)") \
                    from None
            try:
                next(it)
            except StopIteration:
                return _to_tensors(value)
        raise InvalidArgumentError("get_single_element: the dataset had more than one element (expected one)")

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None) -> None:
        """Write every element (one pass) to the folder ``path``: ``spec.json`` (the structure) and
        ``elements.npz`` (NumPy arrays, read back without pickle: no code runs when loading). Descend's own
        format (not TF's snapshot files); ``compression`` ("GZIP"/"ZLIB": a compressed npz). Object arrays
        cannot be saved."""
        import json

        if shard_func is not None or checkpoint_args is not None:
            raise NotImplementedError("Dataset.save: `shard_func` and `checkpoint_args` are not supported by descend")
        if compression not in (None, "GZIP", "ZLIB", "NONE"):
            raise ValueError(f"Dataset.save: `compression` must be None, 'GZIP' or 'ZLIB'. Received: {compression!r}")
        arrays, structure, count = {}, None, 0
        with self.as_numpy_iterator() as it:
            for value in it:
                leaves = nest.flatten(value)
                for c, a in enumerate(leaves):
                    a = np.asarray(a)
                    if a.dtype.kind == "O":
                        raise TypeError(f"Dataset.save: element {count} component {c} holds Python objects (dtype "
                                        "object), which descend does not save (they would need pickle to load)")
                    arrays[f"e{count}_{c}"] = a
                if structure is None:
                    structure = _encode_structure(value)
                count += 1
        os.makedirs(path, exist_ok=True)
        writer = np.savez_compressed if compression in ("GZIP", "ZLIB") else np.savez
        with replacing(os.path.join(path, "elements.npz")) as f:
            writer(f, **arrays)
        with replacing(os.path.join(path, "spec.json")) as f:
            f.write(json.dumps({"format": "descend.data.save", "version": 1, "count": count, "structure": structure}).encode())

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None, name=None) -> Dataset:
        """The names of the files matching ``file_pattern`` (a glob, or a list of them: each pattern's matches
        sorted, in the patterns' order), as string elements, shuffled unless ``shuffle`` is False (with
        ``seed``), as ``tf.data.Dataset.list_files``. No match raises ``InvalidArgumentError``."""
        from ..io import matching_files

        patterns = [file_pattern] if isinstance(file_pattern, (str, bytes, os.PathLike)) else list(file_pattern)
        names = [n for p in patterns for n in matching_files(os.fsdecode(p)).numpy().tolist()]
        if not names:
            from ..errors import InvalidArgumentError

            raise InvalidArgumentError(f"Dataset.list_files: No files matched pattern: "
                                       f"{', '.join(os.fsdecode(p) for p in patterns)}")
        files = Dataset.from_tensor_slices(np.array(names, dtype=object))
        return files if shuffle is False else files.shuffle(len(names), seed=seed)

    @staticmethod
    def load(path, element_spec=None, compression=None, reader_func=None) -> Dataset:
        """The dataset :meth:`save` wrote to ``path`` (arrays only, loaded without pickle)."""
        import json

        if reader_func is not None:
            raise NotImplementedError("Dataset.load: `reader_func` is not supported by descend")
        spec_path = os.path.join(path, "spec.json")
        if not os.path.isfile(spec_path):
            raise FileNotFoundError(f"Dataset.load: {path!r} holds no descend dataset (no spec.json; "
                                    "write one with Dataset.save)")
        with open(spec_path) as f:
            spec = json.load(f)
        if not isinstance(spec, dict) or spec.get("format") != "descend.data.save" or spec.get("version") != 1:
            raise ValueError(f"Dataset.load: {spec_path!r} is not a descend dataset spec (format "
                             f"'descend.data.save', version 1)")
        count = spec.get("count")
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"Dataset.load: {spec_path!r} has an invalid element count {count!r}")
        values = []
        with np.load(os.path.join(path, "elements.npz"), allow_pickle=False) as data:
            for i in range(count):
                values.append(_decode_structure(spec.get("structure"), lambda c, i=i: data[f"e{i}_{c}"], [0]))
        if not values:
            return Dataset.range(0)
        return _list_dataset(values, "load")

    def apply(self, transformation_func) -> Dataset:
        """``transformation_func(self)``, which must return a Dataset (for chaining a reusable transformation)."""
        _check_callable("transformation_func", transformation_func)
        return _as_dataset(transformation_func(self), "apply: `transformation_func`")

    def take_while(self, predicate, name=None) -> Dataset:
        """The elements up to (not including) the first for which ``predicate`` (called like ``filter``'s) is
        False."""
        _check_callable("predicate", predicate)
        return _TakeWhileDataset(self, predicate)

    def shard(self, num_shards: int, index: int, name=None) -> Dataset:
        """Every ``num_shards``-th element, starting at element ``index`` (one worker's part of the input)."""
        num_shards = _int_arg("num_shards", num_shards, minimum=1, what="a positive integer")
        index = _int_arg("index", index, minimum=0, what=">= 0")
        if index >= num_shards:
            raise ValueError(f"shard: `index` must be lower than `num_shards`. Received: index={index}, "
                             f"num_shards={num_shards}")
        return _ShardDataset(self, num_shards, index)

    # -- iteration ----------------------------------------------------------------------
    def _take_epoch(self) -> int:
        with self._epoch_lock:
            e = self._next_epoch
            self._next_epoch += 1
        return e

    def _set_next_epoch(self, e: int) -> None:
        with self._epoch_lock:
            self._next_epoch = e

    def __iter__(self) -> DatasetIterator:
        """A new iterator yielding descend Tensors; each call starts the next epoch."""
        return DatasetIterator(self, self._take_epoch())

    def as_numpy_iterator(self) -> DatasetIterator:
        """Like ``iter(ds)`` but yields NumPy arrays (same structure); also starts the next epoch."""
        return DatasetIterator(self, self._take_epoch(), numpy=True)

    def iterator_from_state(self, state: dict, *, numpy: bool = False) -> DatasetIterator:
        """An iterator continuing exactly where the one that produced ``state`` was.

        Also sets this dataset's epoch counter to the state's epoch + 1.

        Raises:
            ValueError: if ``state`` does not come from this pipeline.
        """
        epoch, position, stages = _parse_state(state)
        it = DatasetIterator(self, epoch, stages, numpy=numpy, position=position)
        self._set_next_epoch(epoch + 1)
        return it

    def cardinality(self) -> Tensor:
        """The number of elements as a scalar int64 Tensor; ``INFINITE_CARDINALITY`` (-1) or
        ``UNKNOWN_CARDINALITY`` (-2) when it is infinite or cannot be known without iterating."""
        return Tensor(np.array(self._cardinality(), dtype=np.int64))

    def __len__(self) -> int:
        n = self._cardinality()
        if n == INFINITE_CARDINALITY:
            raise TypeError("The dataset is infinite.")
        if n == UNKNOWN_CARDINALITY:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True  # do not fall back to __len__, which may raise

    def __repr__(self):
        n = self._cardinality()
        card = {INFINITE_CARDINALITY: "infinite", UNKNOWN_CARDINALITY: "unknown"}.get(n, str(n))
        return f"<{type(self).__name__.lstrip('_')} cardinality={card}>"


class _IndexedSource(Dataset):
    def __init__(self, fn: _Indexed, n: int, name: str):
        super().__init__()
        self._fn, self._n, self._name = fn, n, name

    def _open(self, key, state):
        return _IndexedIter(self._fn, self._n, state)

    def _cardinality(self):
        return self._n

    def __repr__(self):
        return f"<Dataset {self._name} cardinality={self._n}>"


class _Conform:
    """A generator's element converted to ``from_generator``'s ``output_types`` (and checked against its
    ``output_shapes``), as tf.data does."""

    def __init__(self, types, shapes):
        self.types = types
        self.dtypes = [np_dtype(t) for t in nest.flatten(types)]
        if shapes is None:
            self.shapes = [None] * len(self.dtypes)
        else:
            # a shape is a leaf, not a structure: flatten along the structure of ``types``
            self.shapes = _flatten_up_to(types, shapes)
            if len(self.shapes) != len(self.dtypes):
                raise ValueError(f"from_generator: `output_shapes` {shapes!r} does not have the structure of "
                                 f"`output_types` {types!r}")
            self.shapes = [None if s is None else tuple(None if d is None else int(d) for d in s)
                           for s in self.shapes]

    def __call__(self, value):
        if isinstance(value, list) and isinstance(self.types, tuple):
            value = tuple(value)
        try:
            leaves = _flatten_up_to(self.types, value)
        except (TypeError, ValueError):
            leaves = None
        if leaves is None or len(leaves) != len(self.dtypes):
            raise TypeError(f"`generator` yielded an element that did not match the expected structure. The "
                            f"expected structure was {self.types!r}, but the yielded element was {value!r}.")
        out = []
        for leaf, dtype, shape in zip(leaves, self.dtypes, self.shapes):
            try:
                a = np.array(leaf._value if hasattr(leaf, "_value") else leaf, dtype=dtype)
            except (TypeError, ValueError) as e:
                raise TypeError(f"`generator` yielded an element that could not be converted to the expected "
                                f"type. The expected type was {np.dtype(dtype).name}, but the yielded element was "
                                f"{leaf!r}: {e}") from None
            if shape is not None and (a.ndim != len(shape)
                                      or any(d is not None and d != n for d, n in zip(shape, a.shape))):
                from ..errors import InvalidArgumentError

                raise InvalidArgumentError(f"`generator` yielded an element of shape {a.shape} where an element of "
                                           f"shape {tuple('?' if d is None else d for d in shape)} was expected.")
            out.append(a)
        return nest.pack_like(self.types, out)


def _flatten_up_to(structure, value) -> list:
    """The parts of ``value`` where ``structure`` has its leaves (``value`` must nest like it)."""
    if isinstance(structure, dict):
        if not isinstance(value, dict) or set(value) != set(structure):
            raise TypeError("structure")
        return [x for k in sorted(structure) for x in _flatten_up_to(structure[k], value[k])]
    if isinstance(structure, (list, tuple)):
        if not isinstance(value, (list, tuple)) or len(value) != len(structure):
            raise TypeError("structure")
        return [x for s, v in zip(structure, value) for x in _flatten_up_to(s, v)]
    return [value]


class _GeneratorSource(Dataset):
    def __init__(self, make, conform=None):
        super().__init__()
        self._make = make
        self._conform = conform

    def _open(self, key, state):
        return _GeneratorIter(self._make, state, self._conform)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY


def _file_names(filenames, what) -> list:
    """``filenames`` (a name, a list of names, or a string Tensor of them) as a list of ``str``."""
    if isinstance(filenames, Tensor):
        filenames = np.asarray(filenames._value, dtype=object).reshape(-1).tolist()
    elif isinstance(filenames, (str, bytes, os.PathLike)):
        filenames = [filenames]
    names = []
    for f in filenames:
        f = f.decode() if isinstance(f, bytes) else os.fspath(f) if isinstance(f, (str, os.PathLike)) else None
        if f is None:
            raise TypeError(f"{what}: `filenames` must be a file name, a list of them or a string Tensor; received "
                            f"{filenames!r}")
        names.append(f)
    return names


class TextLineDataset(_GeneratorSource):
    """The lines of text files, file after file, as scalar string Tensors without their line ends (``\n`` or
    ``\r\n``; a last line without one is a line), read when the dataset is iterated (``tf.data.TextLineDataset``).

    Args:
        filenames: a file name, a list of them, or a string Tensor of them.
        compression_type: ``None`` or ``""`` (plain text), ``"GZIP"`` or ``"ZLIB"``.
        buffer_size, num_parallel_reads, name: TF's; accepted (files are read in order, one at a time).

    Raises:
        ValueError: an unknown ``compression_type``. A missing file is ``FileNotFoundError`` when iterated (TF's
            ``NotFoundError``).
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None, num_parallel_reads=None, name=None):
        names = _file_names(filenames, "TextLineDataset")
        kind = _compression(compression_type, "TextLineDataset")

        def lines():
            for _, data in _file_bytes(names, kind, "TextLineDataset"):
                for line in _lines(data):
                    yield np.array(line, dtype=object)

        super().__init__(lines)


def _file_bytes(names, kind, what):
    """Each file's content, decompressed (``kind``: ``""``, ``"GZIP"`` or ``"ZLIB"``), one file at a time."""
    import gzip
    import zlib

    for f in names:
        try:
            with open(f, "rb") as handle:
                data = handle.read()
        except FileNotFoundError:
            raise FileNotFoundError(f"{what}: {f}; No such file or directory") from None
        yield f, gzip.decompress(data) if kind == "GZIP" else zlib.decompress(data) if kind == "ZLIB" else data


def _compression(compression_type, what) -> str:
    kind = (compression_type or "").upper()
    if kind not in ("", "GZIP", "ZLIB"):
        raise ValueError(f"{what}: compression_type must be None, '', 'GZIP' or 'ZLIB'; received {compression_type!r}")
    return kind


def _lines(data: bytes) -> list:
    parts = data.split(b"\n")
    if parts and parts[-1] == b"":
        parts.pop()  # the file ends with a line end: no empty line after it
    return [line[:-1] if line.endswith(b"\r") else line for line in parts]


class CsvDataset(_GeneratorSource):
    """The records of CSV files, each a tuple of scalar Tensors, one per column (``tf.data.experimental.CsvDataset``).

    Args:
        filenames: a file name, a list of them, or a string Tensor of them.
        record_defaults: one entry per column read: a Python value (``float()`` is a float32 column defaulting to
            0.0, an ``int`` an int32 one, a ``str`` a string one, a NumPy scalar its dtype) used where a field is
            empty, or a dtype (``ds.float32``...) for a column that must have a value.
        compression_type: ``None``/``""``, ``"GZIP"`` or ``"ZLIB"``.
        header: skip each file's first line.
        field_delim: the one-character field separator.
        use_quote_delim: fields may be quoted with ``"`` (and hold the separator).
        na_value: a field equal to it counts as empty.
        select_cols / exclude_cols: the columns read (sorted indices), or those skipped; ``record_defaults`` has
            one entry per column read.
        buffer_size, name: TF's; accepted.

    Raises:
        ValueError: bad arguments. When iterated, ``InvalidArgumentError`` for a record with another number of
        fields, an empty field of a column without a default, or a field that is not a number of its column's
        dtype (naming the file and line).
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None, header=False,
                 field_delim=",", use_quote_delim=True, na_value="", select_cols=None, exclude_cols=None, name=None):
        import csv

        from ..backend import dtype_of
        from ..errors import InvalidArgumentError

        names = _file_names(filenames, "CsvDataset")
        kind = _compression(compression_type, "CsvDataset")
        if not isinstance(record_defaults, (list, tuple)) or not record_defaults:
            raise ValueError("CsvDataset: record_defaults must be a non-empty list, one entry per column read")
        if not isinstance(field_delim, str) or len(field_delim) != 1:
            raise ValueError(f"CsvDataset: field_delim must be one character; received {field_delim!r}")
        if select_cols is not None and exclude_cols is not None:
            raise ValueError("CsvDataset: select_cols and exclude_cols cannot both be given")
        if select_cols is not None:
            select_cols = [int(c) for c in select_cols]
            if select_cols != sorted(set(select_cols)) or select_cols[0] < 0:
                raise ValueError(f"CsvDataset: select_cols must be sorted, distinct and >= 0; received {select_cols}")
            if len(select_cols) != len(record_defaults):
                raise ValueError(f"CsvDataset: {len(select_cols)} select_cols but {len(record_defaults)} "
                                 "record_defaults")
        exclude = set(int(c) for c in exclude_cols) if exclude_cols is not None else set()
        columns = []  # (numpy dtype, default or None)
        for k, d in enumerate(record_defaults):
            if isinstance(d, Tensor):
                d = d.numpy()
            if hasattr(d, "as_numpy_dtype") or isinstance(d, np.dtype) or isinstance(d, type):
                dt = dtype_of(np.dtype(getattr(d, "as_numpy_dtype", d)))
                columns.append((dt, None))
            elif isinstance(d, (bytes, str)):
                columns.append((np.dtype(object), d.encode() if isinstance(d, str) else d))
            elif isinstance(d, bool) or not isinstance(d, (int, float, np.generic, np.ndarray)):
                raise ValueError(f"CsvDataset: record_defaults[{k}] must be a number, a string or a dtype; received "
                                 f"{d!r}")
            else:
                a = np.asarray(d)
                dt = a.dtype if isinstance(d, (np.generic, np.ndarray)) else \
                    np.dtype(np.float32) if isinstance(d, float) else np.dtype(np.int32)
                columns.append((dt, a.astype(dt)[()]))
        columns = [(np.dtype(object) if c[0] == np.dtype(object) else np.dtype(getattr(c[0], "as_numpy_dtype", c[0])),
                    c[1]) for c in columns]
        na = na_value.encode() if isinstance(na_value, str) else na_value

        def records():
            for f, data in _file_bytes(names, kind, "CsvDataset"):
                lines = _lines(data)
                for number, line in enumerate(lines[1:] if header else lines, start=2 if header else 1):
                    text = line.decode("utf-8", "surrogateescape")
                    fields = next(csv.reader([text], delimiter=field_delim,
                                             quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE))
                    if not fields and text == "":
                        fields = [""]
                    keep = select_cols if select_cols is not None else [i for i in range(len(fields))
                                                                        if i not in exclude]
                    if (select_cols is not None and keep[-1] >= len(fields)) or \
                            (select_cols is None and len(keep) != len(columns)):
                        raise InvalidArgumentError(f"CsvDataset: {f}:{number}: expected {len(columns)} fields, found "
                                                   f"{len(keep) if select_cols is None else len(fields)}")
                    out = []
                    for col, i in enumerate(keep):
                        dt, default = columns[col]
                        field = fields[i].encode("utf-8", "surrogateescape")
                        if field == b"" or field == na:
                            if default is None:
                                raise InvalidArgumentError(f"CsvDataset: {f}:{number}: field {i} is empty and its "
                                                           "column has no default")
                            out.append(np.array(default, dtype=dt))
                            continue
                        if dt == np.dtype(object):
                            out.append(np.array(field, dtype=object))
                            continue
                        try:
                            value = float(field) if dt.kind == "f" else int(field)
                        except ValueError:
                            raise InvalidArgumentError(f"CsvDataset: {f}:{number}: field {i} ({field[:40]!r}) is "
                                                       f"not a {dt.name} number") from None
                        out.append(np.array(value, dtype=dt))
                    yield tuple(out)

        super().__init__(records)


class _UnaryDataset(Dataset):
    _iter_type: type = _StageIter

    def __init__(self, input_dataset: Dataset):
        super().__init__()
        self._input = input_dataset

    def _open(self, key, state):
        return self._iter_type(self, key, state)

    def _cardinality(self):
        return self._input._cardinality()


class _MapDataset(_UnaryDataset):
    _iter_type = _MapIter

    def __init__(self, input_dataset, fn):
        super().__init__(input_dataset)
        self._fn = fn

    def _apply(self, ref):
        out = _call(self._fn, ref.get())
        if out is None:
            raise TypeError(f"The map function {getattr(self._fn, '__name__', self._fn)!r} returned None")
        if isinstance(out, list):
            out = tuple(out)  # as tf.data: a returned list is a tuple of components
        return _to_arrays(out)


class _FilterDataset(_UnaryDataset):
    _iter_type = _FilterIter

    def __init__(self, input_dataset, predicate):
        super().__init__(input_dataset)
        self._predicate = predicate

    def _keep(self, value) -> bool:
        out = _call(self._predicate, value)
        arr = out._value if type(out) is Tensor else np.asarray(out)
        if arr.shape != () or arr.dtype != np.bool_:
            raise TypeError(
                "The filter predicate must return a scalar boolean. "
                f"Received a value of shape {arr.shape} and dtype {arr.dtype}"
            )
        return bool(arr)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY


class _BatchDataset(_UnaryDataset):
    _iter_type = _BatchIter

    def __init__(self, input_dataset, batch_size, drop_remainder):
        super().__init__(input_dataset)
        self._batch_size, self._drop_remainder = batch_size, drop_remainder

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return n // self._batch_size if self._drop_remainder else -(-n // self._batch_size)


class _ShuffleDataset(_UnaryDataset):
    _iter_type = _ShuffleIter

    def __init__(self, input_dataset, buffer_size, seed, reshuffle):
        super().__init__(input_dataset)
        self._buffer_size, self._seed, self._reshuffle = buffer_size, seed, reshuffle


class _RepeatDataset(_UnaryDataset):
    _iter_type = _RepeatIter

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count == 0 or n == 0:
            return 0
        if n == INFINITE_CARDINALITY:
            return INFINITE_CARDINALITY
        if self._count == -1:
            return INFINITE_CARDINALITY if n > 0 else UNKNOWN_CARDINALITY
        return n * self._count if n > 0 else UNKNOWN_CARDINALITY


class _TakeDataset(_UnaryDataset):
    _iter_type = _TakeIter

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _cardinality(self):
        n = self._input._cardinality()
        if self._count == -1:
            return n
        if n == INFINITE_CARDINALITY:
            return self._count
        if n == UNKNOWN_CARDINALITY:
            return 0 if self._count == 0 else UNKNOWN_CARDINALITY
        return min(n, self._count)


class _SkipDataset(_UnaryDataset):
    _iter_type = _SkipIter

    def __init__(self, input_dataset, count):
        super().__init__(input_dataset)
        self._count = count

    def _cardinality(self):
        n = self._input._cardinality()
        if n == INFINITE_CARDINALITY:
            return UNKNOWN_CARDINALITY if self._count == -1 else INFINITE_CARDINALITY
        if n == UNKNOWN_CARDINALITY:
            return UNKNOWN_CARDINALITY
        return 0 if self._count == -1 else max(0, n - self._count)


class _PrefetchDataset(_UnaryDataset):
    _iter_type = _PrefetchIter

    def __init__(self, input_dataset, buffer_size):
        super().__init__(input_dataset)
        self._buffer_size = buffer_size


class _CacheDataset(_UnaryDataset):
    _iter_type = _CacheIter

    def __init__(self, input_dataset, filename):
        super().__init__(input_dataset)
        self._filename = filename
        self._cached = None  # the finished cache: a list of element values
        self._fill_key = None  # the pass key of the iteration that filled it
        self._lock = threading.Lock()

    def _finish(self, values, key) -> None:
        with self._lock:
            if self._cached is not None:
                return
            self._cached, self._fill_key = values, tuple(key)
        if self._filename:
            import pickle

            with replacing(self._filename) as f:
                pickle.dump({"format": "descend.data.cache", "fill_key": list(key), "elements": values}, f,
                            protocol=pickle.HIGHEST_PROTOCOL)

    def _load_file(self) -> None:
        import os
        import pickle

        if not self._filename or not os.path.exists(self._filename):
            return
        with open(self._filename, "rb") as f:
            data = pickle.load(f)
        if not isinstance(data, dict) or data.get("format") != "descend.data.cache":
            raise ValueError(f"cache: {self._filename!r} is not a descend dataset cache file")
        with self._lock:
            if self._cached is None:
                self._cached, self._fill_key = data["elements"], tuple(data["fill_key"])

    def _fill_from(self, key) -> None:
        """Record the input's pass ``key`` in full (restoring a state taken while reading the cache)."""
        self._load_file()
        if self._cached is not None:
            return
        child = self._input._open(key, None)
        try:
            values = [ref.get() for ref in child]
        finally:
            child.close()
        self._finish(values, key)

    def _cardinality(self):
        if self._cached is not None:
            return len(self._cached)
        return self._input._cardinality()


class _ZipDataset(Dataset):
    def __init__(self, structure, flat):
        super().__init__()
        self._structure, self._inputs = structure, flat

    def _open(self, key, state):
        return _ZipIter(self, key, state)

    def _cardinality(self):
        cards = [d._cardinality() for d in self._inputs]
        finite = [c for c in cards if c >= 0]
        if finite:
            return min(finite) if UNKNOWN_CARDINALITY not in cards or min(finite) == 0 else UNKNOWN_CARDINALITY
        return UNKNOWN_CARDINALITY if UNKNOWN_CARDINALITY in cards else INFINITE_CARDINALITY


class _ConcatDataset(_UnaryDataset):
    _iter_type = _ConcatIter

    def __init__(self, input_dataset, other):
        super().__init__(input_dataset)
        self._other = other

    def _cardinality(self):
        a, b = self._input._cardinality(), self._other._cardinality()
        if INFINITE_CARDINALITY in (a, b):
            return INFINITE_CARDINALITY
        if UNKNOWN_CARDINALITY in (a, b):
            return UNKNOWN_CARDINALITY
        return a + b


# ---------------------------------------------------------------------------
# more tf.data transformations (enumerate, interleave, window, scan, group_by_window, ...)
# ---------------------------------------------------------------------------
class _ListFn(_Indexed):
    """Element ``i`` of a list of element values (the windows of ``window`` and ``group_by_window``)."""

    def __init__(self, values):
        self.values = values

    def __call__(self, i):
        return self.values[i]

    def gather(self, indices):
        return _stack([self.values[i] for i in indices])


def _list_dataset(values, name) -> Dataset:
    return _IndexedSource(_ListFn(values), len(values), name)


class _RandomFn(_Indexed):
    """Random int64 values, element ``i`` a pure function of (seed, spawn key, i): generated in blocks."""

    def __init__(self, seed, spawn):
        self.seed, self.spawn = seed, tuple(spawn)
        self._block, self._values = -1, None

    def _get_block(self, b):
        if b != self._block:
            ss = np.random.SeedSequence(self.seed, spawn_key=self.spawn + (b,))
            rng = np.random.Generator(np.random.PCG64(ss))
            self._values = rng.integers(-(2**63), 2**63 - 1, size=_UNIFORM_BLOCK, dtype=np.int64, endpoint=True)
            self._block = b
        return self._values

    def __call__(self, i):
        return np.array(self._get_block(i // _UNIFORM_BLOCK)[i % _UNIFORM_BLOCK])

    def gather(self, indices):
        return np.array([self(i) for i in indices], dtype=np.int64)


_ENDLESS = 2**62  # the length used for an infinite random-access source


class _CounterSource(_IndexedSource):
    def __init__(self, start, step, dtype):
        super().__init__(_RangeFn(start, step, dtype), _ENDLESS, "counter")

    def _cardinality(self):
        return INFINITE_CARDINALITY


class _RandomSource(Dataset):
    def __init__(self, seed, rerandomize):
        super().__init__()
        self._seed, self._rerandomize = seed, rerandomize

    def _open(self, key, state):
        return _IndexedIter(_RandomFn(self._seed, key if self._rerandomize else ()), _ENDLESS, state)

    def _cardinality(self):
        return INFINITE_CARDINALITY


class _ReplayIter(_StageIter):
    """A stage whose state is the number of elements it has emitted in its pass: restoring re-opens its input
    at the start of the pass and replays that many elements (upstream functions run again, so they must be
    pure; exact, at a cost linear in the position)."""

    def __init__(self, ds, key, state):
        self._ds, self._key = ds, key
        self._emitted = 0
        self._setup()
        if state is not None:
            target = _state_int(_check_state(state, self.kind), "emitted", self.kind)
            for _ in range(target):
                try:
                    self._step()
                except StopIteration:
                    raise ValueError(
                        f"Iterator state for the '{self.kind}' stage says {target} elements were emitted, but this "
                        f"pass has only {self._emitted}: the state belongs to a different pipeline") from None
                self._emitted += 1

    def _setup(self):
        self._child = self._ds._input._open(self._key, None)

    def _step(self) -> _Ref:
        raise NotImplementedError

    def __next__(self):
        r = self._step()
        self._emitted += 1
        return r

    def state(self):
        return {"type": self.kind, "emitted": self._emitted}


def _as_dataset(out, what) -> Dataset:
    if not isinstance(out, Dataset):
        raise TypeError(f"{what} must return a Dataset. Received: {type(out).__name__}")
    return out


class _InterleaveIter(_ReplayIter):
    """tf.data's interleave order: ``cycle_length`` open inner iterators visited in turn, ``block_length``
    elements from each; an exhausted one is replaced (in its slot) by the next input element's dataset."""

    kind = "interleave"

    def _setup(self):
        super()._setup()
        self._slots = [None] * self._ds._cycle_length
        self._ci = self._bi = self._opened = self._n_open = 0
        self._eoi = False

    def _advance(self):
        self._bi = 0
        self._ci = (self._ci + 1) % len(self._slots)

    def _step(self):
        ds = self._ds
        while not self._eoi or self._n_open:
            it = self._slots[self._ci]
            if it is not None:
                try:
                    r = next(it)
                except StopIteration:
                    it.close()
                    self._slots[self._ci] = None
                    self._n_open -= 1
                    self._advance()
                    continue
                self._bi += 1
                if self._bi == ds._block_length:
                    self._advance()
                return r
            if not self._eoi:
                try:
                    value = next(self._child).get()
                except StopIteration:
                    self._eoi = True
                    continue
                inner = _as_dataset(_call(ds._fn, value), f"The {ds._what} function")
                self._slots[self._ci] = inner._open(self._key + (self._opened,), None)
                self._opened += 1
                self._n_open += 1
            else:
                self._advance()
        raise StopIteration

    def close(self):
        for s in self._slots:
            if s is not None:
                s.close()
        self._child.close()


class _InterleaveDataset(_UnaryDataset):
    _iter_type = _InterleaveIter

    def __init__(self, input_dataset, fn, cycle_length, block_length, what):
        super().__init__(input_dataset)
        self._fn, self._cycle_length, self._block_length, self._what = fn, cycle_length, block_length, what

    def _cardinality(self):
        return 0 if self._input._cardinality() == 0 else UNKNOWN_CARDINALITY


def _window_value(refs):
    values = [r.get() for r in refs]
    flats = [nest.flatten(v) for v in values]
    parts = [_list_dataset([f[c] for f in flats], "window") for c in range(len(flats[0]))]
    return nest.pack_like(values[0], parts)


class _WindowIter(_ReplayIter):
    kind = "window"

    def _setup(self):
        super()._setup()
        self._buf, self._base, self._k, self._eoi = [], 0, 0, False

    def _step(self):
        ds = self._ds
        start = self._k * ds._shift
        last = start + (ds._size - 1) * ds._stride
        while not self._eoi and self._base + len(self._buf) <= last:
            try:
                self._buf.append(next(self._child))
            except StopIteration:
                self._eoi = True
        drop = min(start - self._base, len(self._buf))
        del self._buf[:drop]
        self._base += drop
        if self._base < start or not self._buf:  # the input ended before this window's first element
            raise StopIteration
        refs = self._buf[0:(ds._size - 1) * ds._stride + 1:ds._stride]
        if len(refs) < ds._size and ds._drop_remainder:
            raise StopIteration
        self._k += 1
        return _Ref(_window_value, refs)


class _WindowDataset(_UnaryDataset):
    _iter_type = _WindowIter

    def __init__(self, input_dataset, size, shift, stride, drop_remainder):
        super().__init__(input_dataset)
        self._size, self._shift, self._stride, self._drop_remainder = size, shift, stride, drop_remainder

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        if self._drop_remainder:
            n -= (self._size - 1) * self._stride
        return max(0, -(-n // self._shift))


def _match_structure(reference, value, what):
    a, b = nest.flatten(reference), nest.flatten(value)
    if len(a) != len(b) or type(reference) is not type(value):
        raise TypeError(f"{what}: the new state must have the structure of the initial state. "
                        f"Expected {len(a)} component(s) in a {type(reference).__name__}, received "
                        f"{len(b)} in a {type(value).__name__}")


class _ScanIter(_ReplayIter):
    kind = "scan"

    def _setup(self):
        super()._setup()
        self._carry = self._ds._initial

    def _step(self):
        value = next(self._child).get()
        out = self._ds._fn(_to_tensors(self._carry), _to_tensors(value))
        if not isinstance(out, (tuple, list)) or len(out) != 2:
            raise TypeError("scan: `scan_func` must return a pair (new_state, output_element). "
                            f"Received: {type(out).__name__}")
        new_state = _to_arrays(tuple(out[0]) if isinstance(out[0], list) else out[0])
        _match_structure(self._ds._initial, new_state, "scan")
        self._carry = new_state
        result = out[1]
        return _ready(_to_arrays(tuple(result) if isinstance(result, list) else result))


class _ScanDataset(_UnaryDataset):
    _iter_type = _ScanIter

    def __init__(self, input_dataset, initial, fn):
        super().__init__(input_dataset)
        self._initial, self._fn = initial, fn


class _UnbatchIter(_ReplayIter):
    kind = "unbatch"

    def _setup(self):
        super()._setup()
        self._value, self._flat, self._i, self._n = None, None, 0, 0

    def _step(self):
        while self._i >= self._n:
            value = next(self._child).get()
            flat = nest.flatten(value)
            sizes = {a.shape[0] if a.ndim else None for a in flat}
            if None in sizes:
                raise ValueError("unbatch: every component of an element needs a first dimension. Received a "
                                 "scalar component")
            if len(sizes) != 1:
                raise ValueError("unbatch: the components of an element must have the same first dimension. "
                                 f"Received sizes {sorted(sizes)}")
            self._value, self._flat, self._i, self._n = value, flat, 0, sizes.pop()
        i = self._i
        self._i += 1
        return _ready(nest.pack_like(self._value, [a[i] for a in self._flat]))


class _UnbatchDataset(_UnaryDataset):
    _iter_type = _UnbatchIter

    def _cardinality(self):
        n = self._input._cardinality()
        return n if n in (0, INFINITE_CARDINALITY) else UNKNOWN_CARDINALITY


def _scalar_key(out, what) -> int:
    arr = out._value if type(out) is Tensor else np.asarray(out)
    if arr.shape != () or arr.dtype.kind not in "iu":
        raise TypeError(f"{what} must return a scalar integer (int64). Received shape {arr.shape}, "
                        f"dtype {arr.dtype}")
    return int(arr)


class _GroupByWindowIter(_ReplayIter):
    kind = "group_by_window"

    def _setup(self):
        super()._setup()
        self._groups, self._out, self._eoi, self._windows = {}, None, False, 0

    def _emit(self, k):
        refs = self._groups.pop(k)
        window = _list_dataset([r.get() for r in refs], "group_by_window")
        out = self._ds._reduce(Tensor(np.array(k, dtype=np.int64)), window)
        self._out = _as_dataset(out, "group_by_window: `reduce_func`")._open(self._key + (self._windows,), None)
        self._windows += 1

    def _step(self):
        ds = self._ds
        while True:
            if self._out is not None:
                try:
                    return next(self._out)
                except StopIteration:
                    self._out.close()
                    self._out = None
            if not self._eoi:
                try:
                    r = next(self._child)
                except StopIteration:
                    self._eoi = True
                    continue
                k = _scalar_key(_call(ds._key_func, r.get()), "group_by_window: `key_func`")
                group = self._groups.setdefault(k, [])
                group.append(r)
                if len(group) >= ds._window_size_of(k):
                    self._emit(k)
            elif self._groups:
                self._emit(min(self._groups))  # at the end, the rest by ascending key (as tf.data)
            else:
                raise StopIteration

    def close(self):
        if self._out is not None:
            self._out.close()
        self._child.close()


class _GroupByWindowDataset(_UnaryDataset):
    _iter_type = _GroupByWindowIter

    def __init__(self, input_dataset, key_func, reduce_func, window_size, window_size_func):
        super().__init__(input_dataset)
        self._key_func, self._reduce = key_func, reduce_func
        self._window_size, self._window_size_func = window_size, window_size_func

    def _window_size_of(self, k) -> int:
        if self._window_size_func is None:
            return self._window_size
        out = self._window_size_func(Tensor(np.array(k, dtype=np.int64)))
        size = _scalar_key(out, "group_by_window: `window_size_func`")
        if size < 1:
            raise ValueError(f"group_by_window: `window_size_func` must return a positive size. Received {size} "
                             f"for key {k}")
        return size

    def _cardinality(self):
        return 0 if self._input._cardinality() == 0 else UNKNOWN_CARDINALITY


class _ChooseIter(_ReplayIter):
    kind = "choose_from_datasets"

    def _setup(self):
        ds = self._ds
        self._child = ds._choice._open(self._key, None)
        self._inputs = [d._open(self._key, None) for d in ds._inputs]
        self._empty = [False] * len(self._inputs)

    def _step(self):
        ds = self._ds
        while not all(self._empty):
            c = _scalar_key(next(self._child).get(), "choose_from_datasets: `choice_dataset`")
            if not 0 <= c < len(self._inputs):
                from ..errors import InvalidArgumentError

                raise InvalidArgumentError(f"choose_from_datasets: a choice selected dataset {c}, but there are only "
                                           f"{len(self._inputs)} datasets (valid: 0 to {len(self._inputs) - 1})")
            if self._empty[c]:
                continue
            try:
                return next(self._inputs[c])
            except StopIteration:
                self._empty[c] = True
                if ds._stop_on_empty:
                    break
        raise StopIteration

    def close(self):
        self._child.close()
        for c in self._inputs:
            c.close()


class _ChooseDataset(Dataset):
    def __init__(self, inputs, choice, stop_on_empty):
        super().__init__()
        self._inputs, self._choice, self._stop_on_empty = inputs, choice, stop_on_empty

    def _open(self, key, state):
        return _ChooseIter(self, key, state)

    def _cardinality(self):
        return UNKNOWN_CARDINALITY


class _CategoricalFn(_Indexed):
    """Draws of dataset indices with fixed probabilities; element ``i`` a function of (seed, spawn key, i)."""

    def __init__(self, seed, spawn, cumulative):
        self._uniform = _RandomFn(seed, spawn)
        self._cum = cumulative

    def __call__(self, i):
        u = (int(self._uniform(i)) & (2**53 - 1)) / 2**53
        return np.array(min(int(np.searchsorted(self._cum, u, side="right")), len(self._cum) - 1), dtype=np.int64)

    def gather(self, indices):
        return np.array([self(i) for i in indices], dtype=np.int64)


class _CategoricalSource(Dataset):
    def __init__(self, seed, rerandomize, cumulative):
        super().__init__()
        self._seed, self._rerandomize, self._cum = seed, rerandomize, cumulative

    def _open(self, key, state):
        fn = _CategoricalFn(self._seed, key if self._rerandomize else (), self._cum)
        return _IndexedIter(fn, _ENDLESS, state)

    def _cardinality(self):
        return INFINITE_CARDINALITY


class _UniqueIter(_ReplayIter):
    kind = "unique"

    def _setup(self):
        super()._setup()
        self._seen = set()

    def _step(self):
        while True:
            r = next(self._child)
            value = r.get()
            if not isinstance(value, np.ndarray) or value.ndim != 0 or value.dtype.kind not in "iuSUO":
                shape = getattr(value, "shape", None)
                raise TypeError("unique: elements must be scalar integers or strings. Received an element of "
                                f"shape {shape} and dtype {getattr(value, 'dtype', type(value).__name__)}")
            k = value.item()
            if k not in self._seen:
                self._seen.add(k)
                return r


class _UniqueDataset(_UnaryDataset):
    _iter_type = _UniqueIter

    def _cardinality(self):
        n = self._input._cardinality()
        return n if n in (0, INFINITE_CARDINALITY) else UNKNOWN_CARDINALITY


class _IgnoreErrorsIter(_ReplayIter):
    kind = "ignore_errors"

    def _step(self):
        while True:
            try:
                r = next(self._child)
                r.get()
                return r
            except StopIteration:
                raise
            except Exception as e:  # noqa: BLE001  (the point of ignore_errors)
                if self._ds._log_warning:
                    import warnings

                    warnings.warn(f"ignore_errors: dropped an element that raised {type(e).__name__}: {e}",
                                  stacklevel=2)


class _IgnoreErrorsDataset(_UnaryDataset):
    _iter_type = _IgnoreErrorsIter

    def __init__(self, input_dataset, log_warning):
        super().__init__(input_dataset)
        self._log_warning = log_warning

    def _cardinality(self):
        return UNKNOWN_CARDINALITY if self._input._cardinality() != INFINITE_CARDINALITY else INFINITE_CARDINALITY


def _padded_stack(values, padded_shapes, padding_values):
    flats = [nest.flatten(v) for v in values]
    n = len(flats[0])
    shapes = [None] * n if padded_shapes is None else _flatten_up_to(values[0], padded_shapes)
    pads = [None] * n if padding_values is None else _flatten_up_to(values[0], padding_values)
    out = []
    for c in range(n):
        parts = [f[c] for f in flats]
        rank = parts[0].ndim
        if any(p.ndim != rank for p in parts):
            raise ValueError(f"padded_batch: component {c} has elements of different ranks: "
                             f"{sorted({p.ndim for p in parts})}")
        longest = [max(p.shape[d] for p in parts) for d in range(rank)]
        target = longest
        if shapes[c] is not None:
            want = [None if d is None or d == -1 else int(d) for d in shapes[c]]
            if len(want) != rank:
                raise ValueError(f"padded_batch: `padded_shapes` for component {c} has rank {len(want)}, but the "
                                 f"elements have rank {rank}")
            for d, (w, m) in enumerate(zip(want, longest)):
                if w is not None and m > w:
                    raise ValueError(f"padded_batch: component {c} has size {m} in dimension {d}, larger than its "
                                     f"padded shape {w}")
            target = [m if w is None else w for w, m in zip(want, longest)]
        pad = 0 if pads[c] is None else np.asarray(pads[c]._value if type(pads[c]) is Tensor else pads[c])
        batch = np.full((len(parts),) + tuple(target), pad, dtype=parts[0].dtype)
        for i, p in enumerate(parts):
            batch[(i,) + tuple(slice(0, s) for s in p.shape)] = p
        out.append(batch)
    return nest.pack_like(values[0], out)


class _PaddedBatchIter(_BatchIter):
    kind = "padded_batch"

    def __init__(self, ds, key, state):
        super().__init__(ds, key, state)
        self._shapes, self._pads = ds._padded_shapes, ds._padding_values

    def __next__(self):
        refs = []
        for _ in range(self._size):
            try:
                refs.append(next(self._child))
            except StopIteration:
                break
        if not refs or (self._drop and len(refs) < self._size):
            raise StopIteration
        return _Ref(lambda rs: _padded_stack([r.get() for r in rs], self._shapes, self._pads), refs)


class _PaddedBatchDataset(_BatchDataset):
    _iter_type = _PaddedBatchIter

    def __init__(self, input_dataset, batch_size, drop_remainder, padded_shapes, padding_values):
        super().__init__(input_dataset, batch_size, drop_remainder)
        self._padded_shapes, self._padding_values = padded_shapes, padding_values


def _encode_structure(value):
    """A JSON description of an element's nesting (leaves numbered in ``nest.flatten`` order)."""
    if isinstance(value, dict):
        return {"dict": [[k, _encode_structure(value[k])] for k in sorted(value)]}
    if isinstance(value, (tuple, list)):
        return {"tuple" if isinstance(value, tuple) else "list": [_encode_structure(v) for v in value]}
    return "leaf"


def _decode_structure(spec, leaf, counter):
    if spec == "leaf":
        counter[0] += 1
        return leaf(counter[0] - 1)
    if isinstance(spec, dict) and len(spec) == 1:
        (kind, items), = spec.items()
        if kind == "dict" and isinstance(items, list):
            return {k: _decode_structure(v, leaf, counter) for k, v in items}
        if kind in ("tuple", "list") and isinstance(items, list):
            out = [_decode_structure(v, leaf, counter) for v in items]
            return tuple(out) if kind == "tuple" else out
    raise ValueError(f"Dataset.load: invalid element structure in spec.json: {str(spec)[:200]}")


class _TakeWhileIter(_StageIter):
    kind = "take_while"

    def __init__(self, ds, key, state):
        self._keep = ds._keep
        self._done = bool(state.get("done")) if isinstance(state, dict) else False
        self._child = ds._input._open(key, _input_state(state, self.kind))

    def __next__(self):
        if self._done:
            raise StopIteration
        r = next(self._child)
        if not self._keep(r.get()):
            self._done = True
            raise StopIteration
        return r

    def state(self):
        return {"type": self.kind, "done": self._done, "input": self._child.state()}


class _TakeWhileDataset(_FilterDataset):
    _iter_type = _TakeWhileIter


class _ShardIter(_StageIter):
    kind = "shard"

    def __init__(self, ds, key, state):
        self._n, self._index = ds._num_shards, ds._index
        self._pos = 0 if state is None else _state_int(_check_state(state, self.kind), "pos", self.kind)
        self._child = ds._input._open(key, _input_state(state, self.kind))

    def __next__(self):
        while True:
            r = next(self._child)
            self._pos += 1
            if (self._pos - 1) % self._n == self._index:
                return r

    def state(self):
        return {"type": self.kind, "pos": self._pos, "input": self._child.state()}


class _ShardDataset(_UnaryDataset):
    _iter_type = _ShardIter

    def __init__(self, input_dataset, num_shards, index):
        super().__init__(input_dataset)
        self._num_shards, self._index = num_shards, index

    def _cardinality(self):
        n = self._input._cardinality()
        if n < 0:
            return n
        return max(0, -(-(n - self._index) // self._num_shards))
