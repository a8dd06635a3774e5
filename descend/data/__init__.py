"""``Dataset``: tf.data-style input pipelines with exact, resumable iteration.

A :class:`Dataset` is an immutable description of a stream of elements. Each
element is a nested structure (a single array, a tuple, a dict, or nests of
those) and iteration yields it as descend Tensors in the same structure::

    ds = Dataset.from_tensor_slices((x, y)).shuffle(1024, seed=0).batch(64)
    for step, (x_batch, y_batch) in enumerate(ds):
        ...

Semantics follow ``tf.data``:

* ``shuffle(b)`` keeps a buffer of ``b`` elements, emits one picked uniformly
  at random and refills it with the next upstream element, so it is a full
  random permutation only when ``b`` is at least the dataset size. With
  ``reshuffle_each_iteration=True`` (the default) each epoch has a new order.
* ``batch`` stacks each component along a new first axis and keeps the
  structure; ``map``/``filter`` receive a tuple element's components as
  positional arguments and any other element (a dict, a single Tensor) as one
  argument.
* ``repeat``, ``take``, ``skip``, ``prefetch``, ``cache``, ``cardinality`` and
  ``as_numpy_iterator`` behave as in TensorFlow.

Determinism and epochs
    Each ``iter(ds)`` starts a new *epoch* of ``ds`` (0, 1, 2, ... counted per
    dataset object). A shuffle's order is a pure function of its seed, the
    epoch and the repetition index of every enclosing ``repeat`` (its seed
    alone with ``reshuffle_each_iteration=False``), so a seeded pipeline
    produces the same sequence in every run. ``seed=None`` draws a random seed
    once, when ``shuffle`` is called.

Exact resume
    ``it.get_state()`` returns a small JSON-serializable dict of integers (no
    arrays): the epoch and, for every stage, its counters. Given that state,
    ``ds.iterator_from_state(state)`` (or ``it2.set_state(state)``) continues
    with exactly the elements the original iterator would have produced next.
    Internally elements travel through the pipeline as unevaluated
    *references* (source index, map-of, batch-of); shuffle, repeat, take and
    skip only move references around. Restoring a shuffle replays its
    reference stream from the start of its current pass (integers and random
    numbers only, no element is materialized) to rebuild its buffer;
    everything else is restored from its counters. Filters upstream of a
    shuffle re-evaluate their predicate during that replay, and generator
    sources (``from_generator``) are re-run and fast-forwarded. For exact
    resume, ``map`` and ``filter`` functions must therefore be pure
    (deterministic, no side effects), and restoring a pipeline built with
    ``seed=None`` is exact because the drawn seed is saved in the state.
    Restoring also moves the dataset's epoch counter to ``state epoch + 1``,
    so the next ``iter(ds)`` continues as the uninterrupted run would.

Threads
    ``prefetch`` runs the upstream pipeline (including ``map`` functions) in a
    background thread filling a bounded queue. It yields the same elements in
    the same order as without it; an exception raised upstream is re-raised
    by the consumer's ``next``; the thread stops when the iterator is
    exhausted, closed (``it.close()``, ``with iter(ds) as it``) or garbage
    collected. An iterator itself must be used from one thread at a time.

The implementation lives in :mod:`descend.data.dataset`; this module is the public namespace.
"""

from .dataset import *  # noqa: F403
from .dataset import __all__  # noqa: F401
from .dataset import default_seed  # noqa: F401 - used by descend's own modules
from . import experimental  # noqa: F401 - tf.data.experimental (CsvDataset)
