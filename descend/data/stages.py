"""The stages of a ``Dataset``'s iteration: element references (``_Ref``: source index, map-of, batch-of),
the per-stage iterators that move them (map, filter, batch, take, skip, repeat, shuffle, prefetch, zip,
concatenate, cache) and the state each one saves for an exact resume (see :mod:`descend.data`)."""

from __future__ import annotations

import operator
import queue
import threading
import weakref

import numpy as np

from ..framework import nest
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable

_UNIFORM_BLOCK = 512  # shuffle draws its uniforms in blocks of this size


# ---------------------------------------------------------------------------
# structures and values
# ---------------------------------------------------------------------------
def _is_plain(v) -> bool:
    """True for Python/NumPy scalars and (nested) lists of them: a value TF turns into one tensor."""
    if isinstance(v, (bool, int, float, complex, np.generic, str, bytes)):
        return True
    if isinstance(v, list):
        return all(_is_plain(item) for item in v)
    return False


def _leaf_array(v, *, copy: bool) -> np.ndarray:
    """One component as a NumPy array that nobody else can modify."""
    if type(v) is Tensor:
        return v._value  # Tensors are immutable: share
    if isinstance(v, Variable):
        return np.array(v._value, copy=True)
    if isinstance(v, (np.ndarray, np.generic)):
        if v.dtype.kind in "US":  # NumPy text: a string tensor's object array of bytes, as TF
            return to_array(v)
        return np.array(v, copy=True) if copy else np.asarray(v)
    if v is None:
        raise TypeError("A dataset element component cannot be None")
    return to_array(v)


def _to_arrays(value, *, copy: bool = True):
    """Normalize a user value into a structure of arrays (plain lists of numbers become one array)."""
    return nest.map_structure(lambda v: _leaf_array(v, copy=copy), value,
                              is_leaf=lambda v: isinstance(v, list) and _is_plain(v))


def _paths(s):
    """(path, leaf) pairs in ``nest.flatten`` order, for error messages."""
    return [(path or "x", leaf) for path, leaf in nest.flatten_with_paths(s)]


class DatasetBase:
    """The base class of ``Dataset``, all the stages know of it: a window's element holds datasets (one per
    component), which pass through as they are."""

    __slots__ = ()


def _to_tensors(value):
    return nest.map_structure(lambda v: v if isinstance(v, DatasetBase) else Tensor(v), value)


def _call(fn, value):
    """Call a map/filter function the tf.data way: a tuple element is unpacked into positional args."""
    args = _to_tensors(value)
    if type(args) is tuple:
        return fn(*args)
    return fn(args)


def _stack(values):
    """Stack a list of same-structured elements along a new first axis."""
    flats = [nest.flatten(v) for v in values]
    n = len(flats[0])
    for i, f in enumerate(flats):
        if len(f) != n:
            raise ValueError(
                f"Cannot batch elements with different structures: element 0 has {n} components "
                f"and element {i} has {len(f)}"
            )
    stacked = []
    for c in range(n):
        parts = [f[c] for f in flats]
        shape0 = parts[0].shape
        for i, p in enumerate(parts):
            if p.shape != shape0:
                raise ValueError(
                    f"Cannot batch tensors with different shapes in component {c}. First element had "
                    f"shape {shape0} and element {i} had shape {p.shape}. (Use map to make them equal.)"
                )
        stacked.append(np.stack(parts))
    return nest.pack_like(values[0], stacked)


# ---------------------------------------------------------------------------
# element references: unevaluated until something needs the value
# ---------------------------------------------------------------------------
class _Ref:
    """A lazily computed element: ``fn(arg)``, evaluated at most once."""

    __slots__ = ("_fn", "_arg", "_value")

    def __init__(self, fn, arg):
        self._fn = fn
        self._arg = arg
        self._value = None

    def get(self):
        fn = self._fn
        if fn is not None:
            self._value = fn(self._arg)
            self._fn = self._arg = None  # let the inputs go
        return self._value


def _ready(value) -> _Ref:
    r = _Ref(None, None)
    r._value = value
    return r


class _Indexed:
    """Element ``i`` of a random-access source, plus a fast gather for batches of unevaluated refs."""

    def __call__(self, i):
        raise NotImplementedError

    def gather(self, indices):
        raise NotImplementedError


class _SliceFn(_Indexed):
    def __init__(self, structure):
        self.structure = structure

    def __call__(self, i):
        return nest.map_structure(lambda a: np.array(a[i], dtype=a.dtype), self.structure)  # dtype: bytes stay object

    def gather(self, indices):
        idx = np.asarray(indices, dtype=np.intp)
        return nest.map_structure(lambda a: a[idx], self.structure)


class _RangeFn(_Indexed):
    def __init__(self, start, step, dtype):
        self.start, self.step, self.dtype = start, step, dtype

    def __call__(self, i):
        return np.array(self.start + self.step * i, dtype=self.dtype)

    def gather(self, indices):
        return (self.start + self.step * np.asarray(indices, dtype=np.int64)).astype(self.dtype)


def _batch_value(refs):
    fn = refs[0]._fn
    if isinstance(fn, _Indexed) and all(r._fn is fn for r in refs):
        return fn.gather([r._arg for r in refs])  # one fancy-index per component
    return _stack([r.get() for r in refs])


# ---------------------------------------------------------------------------
# argument checking
# ---------------------------------------------------------------------------
def _int_arg(name: str, value, *, minimum: int, allowed: tuple = (), what: str) -> int:
    if isinstance(value, bool) or value is None:
        raise TypeError(f"`{name}` must be an integer. Received: {name}={value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        try:
            v = operator.index(np.asarray(value).item()) if np.ndim(value) == 0 else None
        except TypeError:
            v = None
        if v is None:
            raise TypeError(f"`{name}` must be an integer. Received: {name}={value!r}") from None
    if v < minimum and v not in allowed:
        raise ValueError(f"`{name}` must be {what}. Received: {name}={v}")
    return v


def _check_callable(name, fn):
    if not callable(fn):
        raise TypeError(f"`{name}` must be callable. Received: {fn!r}")


def _check_state(state, kind: str) -> dict:
    if not isinstance(state, dict) or state.get("type") != kind:
        found = state.get("type") if isinstance(state, dict) else type(state).__name__
        raise ValueError(
            f"Iterator state does not match this dataset: expected a '{kind}' stage, found {found!r}. "
            "Restore a state only into the pipeline that produced it."
        )
    return state


def _input_state(state, kind):
    """The upstream part of a stage's state (``None`` for a fresh start)."""
    if state is None:
        return None
    _check_state(state, kind)
    if "input" not in state:
        raise ValueError(f"Iterator state for the '{kind}' stage has no 'input' entry")
    return state["input"]


def _state_int(state, key, kind):
    v = state.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
        raise ValueError(f"Iterator state for the '{kind}' stage has an invalid {key!r}: {v!r}")
    return int(v)


# ---------------------------------------------------------------------------
# stage iterators: yield element references and report their state
# ---------------------------------------------------------------------------
class _StageIter:
    kind = "?"
    #: the random-access source whose element indices :meth:`take_indices` hands out (None: this stage hands
    #: out element references only, one at a time)
    source: _Indexed | None = None

    def __iter__(self):
        return self

    def take_indices(self, k: int) -> list:
        """The next (at most) ``k`` elements as indices into :attr:`source`, the elements ``next`` would give
        one by one, with the same state after; only where :attr:`source` is not None."""
        raise NotImplementedError

    def __next__(self) -> _Ref:
        raise NotImplementedError

    def state(self) -> dict:
        raise NotImplementedError

    def close(self) -> None:
        child = getattr(self, "_child", None)
        if child is not None:
            child.close()


class _IndexedIter(_StageIter):
    kind = "source"

    def __init__(self, fn, n, state):
        self._fn, self._n = fn, n
        self.source = fn if isinstance(fn, _Indexed) else None
        self._pos = 0
        if state is not None:
            self._pos = min(_state_int(_check_state(state, self.kind), "pos", self.kind), n)

    def __next__(self):
        if self._pos >= self._n:
            raise StopIteration
        r = _Ref(self._fn, self._pos)
        self._pos += 1
        return r

    def take_indices(self, k):
        start = self._pos
        self._pos = min(start + k, self._n)
        return list(range(start, self._pos))

    def state(self):
        return {"type": self.kind, "pos": self._pos}


class _GeneratorIter(_StageIter):
    kind = "generator"

    def __init__(self, make, state, conform=None):
        self._it = iter(make())
        self._conform = conform
        self._pos = 0
        self._done = False
        if state is not None:
            target = _state_int(_check_state(state, self.kind), "pos", self.kind)
            for _ in range(target):  # re-run the generator up to the saved position
                try:
                    next(self._it)
                except StopIteration:
                    self._done = True
                    break
                self._pos += 1

    def __next__(self):
        if self._done:
            raise StopIteration
        try:
            value = next(self._it)
        except StopIteration:
            self._done = True
            raise
        self._pos += 1
        if self._conform is not None:
            return _ready(self._conform(value))
        return _ready(_to_arrays(value))

    def state(self):
        return {"type": self.kind, "pos": self._pos}

    def close(self):
        close = getattr(self._it, "close", None)
        if close is not None:
            close()


class _MapIter(_StageIter):
    kind = "map"

    def __init__(self, ds, key, state):
        self._apply = ds._apply
        self._child = ds._input._open(key, _input_state(state, self.kind))

    def __next__(self):
        return _Ref(self._apply, next(self._child))

    def state(self):
        return {"type": self.kind, "input": self._child.state()}


class _FilterIter(_StageIter):
    kind = "filter"

    def __init__(self, ds, key, state):
        self._keep = ds._keep
        self._child = ds._input._open(key, _input_state(state, self.kind))

    def __next__(self):
        while True:
            r = next(self._child)
            if self._keep(r.get()):
                return r

    def state(self):
        return {"type": self.kind, "input": self._child.state()}


class _BatchIter(_StageIter):
    kind = "batch"

    def __init__(self, ds, key, state):
        self._size, self._drop = ds._batch_size, ds._drop_remainder
        self._child = ds._input._open(key, _input_state(state, self.kind))

    def __next__(self):
        child = self._child
        if child.source is not None:  # rows of a random-access source: one gather, no reference per element
            rows = child.take_indices(self._size)
            if not rows or (self._drop and len(rows) < self._size):
                raise StopIteration
            return _Ref(child.source.gather, rows)
        refs = []
        for _ in range(self._size):
            try:
                refs.append(next(child))
            except StopIteration:
                break
        if not refs or (self._drop and len(refs) < self._size):
            raise StopIteration
        return _Ref(_batch_value, refs)

    def state(self):
        return {"type": self.kind, "input": self._child.state()}


class _TakeIter(_StageIter):
    kind = "take"

    def __init__(self, ds, key, state):
        self._count = ds._count
        self._taken = 0
        child_state = None
        if state is not None:
            child_state = _input_state(state, self.kind)
            self._taken = _state_int(state, "taken", self.kind)
        self._child = ds._input._open(key, child_state)

    def __next__(self):
        if self._count != -1 and self._taken >= self._count:
            raise StopIteration
        r = next(self._child)
        self._taken += 1
        return r

    def state(self):
        return {"type": self.kind, "taken": self._taken, "input": self._child.state()}


class _SkipIter(_StageIter):
    kind = "skip"

    def __init__(self, ds, key, state):
        self._count = ds._count
        self._skipped = 0
        child_state = None
        if state is not None:
            child_state = _input_state(state, self.kind)
            self._skipped = _state_int(state, "skipped", self.kind)
        self._child = ds._input._open(key, child_state)

    def __next__(self):
        while self._count == -1 or self._skipped < self._count:
            next(self._child)  # StopIteration ends the dataset
            self._skipped += 1
        return next(self._child)

    def state(self):
        return {"type": self.kind, "skipped": self._skipped, "input": self._child.state()}


class _RepeatIter(_StageIter):
    kind = "repeat"

    def __init__(self, ds, key, state):
        self._ds, self._key, self._count = ds, key, ds._count
        self._rep, self._got, self._done = 0, False, False
        child_state = None
        if state is not None:
            _check_state(state, self.kind)
            self._rep = _state_int(state, "rep", self.kind)
            self._got, self._done = bool(state.get("got")), bool(state.get("done"))
            child_state = state.get("input")
        if self._count != -1 and self._rep >= self._count:
            self._done = True
        self._child = None if self._done else ds._input._open(key + (self._rep,), child_state)

    def __next__(self):
        while not self._done:
            try:
                r = next(self._child)
            except StopIteration:
                pass
            else:
                self._got = True
                return r
            self._child.close()
            self._child = None
            if self._count == -1 and not self._got:
                self._done = True  # an empty pass: repeating forever would never yield (tf.data stops too)
                break
            self._rep += 1
            self._got = False
            if self._count != -1 and self._rep >= self._count:
                self._done = True
                break
            self._child = self._ds._input._open(self._key + (self._rep,), None)
        raise StopIteration

    def state(self):
        return {
            "type": self.kind,
            "rep": self._rep,
            "got": self._got,
            "done": self._done,
            "input": None if self._child is None else self._child.state(),
        }


class _ShuffleIter(_StageIter):
    kind = "shuffle"

    def __init__(self, ds, key, state):
        self._bufsize = ds._buffer_size
        if state is not None:
            _check_state(state, self.kind)
            seed = state.get("seed")
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                raise ValueError(f"Iterator state for the 'shuffle' stage has an invalid 'seed': {seed!r}")
        else:
            seed = ds._seed
        self._seed = seed
        spawn = tuple(key) if ds._reshuffle else ()
        self._rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=spawn)))
        self._u: list = []  # the current block of uniforms (Python floats), self._ui the next one
        self._ui = 0
        self._buffer: list = []  # element references, or indices into `source` when the input has one
        self._exhausted = False
        self._emitted = 0
        self._child = ds._input._open(key, None)
        self.source = self._child.source
        if state is not None:
            target = _state_int(state, "emitted", self.kind)
            # rebuild the buffer by replaying this pass's picks (no element is evaluated)
            if len(self._pick(target)) < target:
                raise ValueError(
                    f"Iterator state for the 'shuffle' stage says {target} elements were emitted, but this "
                    f"pass has only {self._emitted}: the state belongs to a different pipeline"
                )

    def _pick(self, k: int) -> list:
        """The next (at most) ``k`` picks: before each, the buffer is refilled from the input (only the first
        fills more than one slot), then one of its elements is drawn uniformly and its slot given the last."""
        buf, out = self._buffer, []
        size, child, indexed, exhausted = self._bufsize, self._child, self.source is not None, self._exhausted
        u, ui = self._u, self._ui
        while exhausted and buf and len(out) < k:  # the input is spent: the picks alone, a block of uniforms at a time
            if ui == len(u):
                u, ui = self._rng.random(_UNIFORM_BLOCK).tolist(), 0
            n = len(buf)
            take = min(k - len(out), n, len(u) - ui)
            for x in u[ui:ui + take]:
                j = int(x * n)
                out.append(buf[j])
                n -= 1
                buf[j] = buf[n]
            del buf[n:]
            ui += take
        for _ in range(k - len(out)):
            n = len(buf)
            if n < size and not exhausted:
                if indexed:
                    got = child.take_indices(size - n)
                    exhausted = len(got) < size - n
                    buf += got
                else:
                    while len(buf) < size:
                        try:
                            buf.append(next(child))
                        except StopIteration:
                            exhausted = True
                            break
                n = len(buf)
            if not n:
                break
            if ui == len(u):
                u, ui = self._rng.random(_UNIFORM_BLOCK).tolist(), 0
            j = int(u[ui] * n)
            ui += 1
            out.append(buf[j])
            buf[j] = buf[-1]
            buf.pop()
        self._u, self._ui, self._exhausted = u, ui, exhausted
        self._emitted += len(out)
        return out

    def take_indices(self, k):
        return self._pick(k)

    def __next__(self):
        picked = self._pick(1)
        if not picked:
            raise StopIteration
        return _Ref(self.source, picked[0]) if self.source is not None else picked[0]

    def state(self):
        return {"type": self.kind, "seed": self._seed, "emitted": self._emitted}


_OK, _ERR, _END = 0, 1, 2


def _prefetch_worker(child, q, stop):
    """Producer: evaluate upstream elements ahead of the consumer, each with the state after it."""
    while not stop.is_set():
        fatal = False
        try:
            r = next(child)
            r.get()
            item = (_OK, r, child.state())
        except StopIteration:
            item = (_END, None, child.state())
        except BaseException as e:  # noqa: B036  (handed to the consumer, which re-raises it)
            fatal = not isinstance(e, Exception)
            try:
                st = child.state()
            except BaseException:  # noqa: B036
                st, fatal = None, True
            item = (_ERR, e, st)
        while True:
            if stop.is_set():
                return
            try:
                q.put(item, timeout=0.05)
                break
            except queue.Full:
                continue
        if item[0] == _END or fatal:
            return


def _prefetch_shutdown(child, q, stop, thread):
    stop.set()
    if thread is threading.current_thread():
        return  # collected from inside the producer: it sees `stop` and exits on its own
    if thread.is_alive():
        thread.join()
    try:
        while True:
            q.get_nowait()
    except queue.Empty:
        pass
    child.close()


class _PrefetchIter(_StageIter):
    kind = "prefetch"

    def __init__(self, ds, key, state):
        child = ds._input._open(key, _input_state(state, self.kind))
        self._last = child.state()  # the state as of the last element handed to the consumer
        self._q = queue.Queue(maxsize=ds._buffer_size)
        stop = threading.Event()
        thread = threading.Thread(
            target=_prefetch_worker, args=(child, self._q, stop), name="descend.data.prefetch", daemon=True
        )
        # the finalizer holds no reference to self, so dropping the iterator stops the thread
        self._shutdown = weakref.finalize(self, _prefetch_shutdown, child, self._q, stop, thread)
        self._shutdown.atexit = False  # daemon threads die with the interpreter
        self._done = False
        thread.start()

    def __next__(self):
        if self._done or not self._shutdown.alive:
            raise StopIteration
        kind, payload, st = self._q.get()
        if st is not None:
            self._last = st
        if kind == _OK:
            return payload
        if kind == _END:
            self._done = True
            self._shutdown()
            raise StopIteration
        if not isinstance(payload, Exception):
            self._done = True
            self._shutdown()
        raise payload

    def state(self):
        return {"type": self.kind, "input": self._last}

    def close(self):
        self._shutdown()


class _ZipIter(_StageIter):
    kind = "zip"

    def __init__(self, ds, key, state):
        states = [None] * len(ds._inputs)
        if state is not None:
            states = _check_state(state, self.kind).get("inputs")
            if not isinstance(states, list) or len(states) != len(ds._inputs):
                raise ValueError("Iterator state for the 'zip' stage has the wrong number of inputs")
        self._children = [d._open(key, s) for d, s in zip(ds._inputs, states)]
        self._structure = ds._structure

    def __next__(self):
        refs = [next(c) for c in self._children]
        return _Ref(self._build, refs)

    def _build(self, refs):
        return nest.pack_like(self._structure, [r.get() for r in refs])

    def state(self):
        return {"type": self.kind, "inputs": [c.state() for c in self._children]}

    def close(self):
        for c in self._children:
            c.close()


class _ConcatIter(_StageIter):
    kind = "concatenate"

    def __init__(self, ds, key, state):
        self._ds, self._key = ds, key
        self._which, child_state = 0, None
        if state is not None:
            self._which = _state_int(_check_state(state, self.kind), "which", self.kind)
            child_state = state.get("input")
        self._child = None if self._which > 1 else self._part(self._which)._open(key, child_state)

    def _part(self, i):
        return self._ds._input if i == 0 else self._ds._other

    def __next__(self):
        while self._child is not None:
            try:
                return next(self._child)
            except StopIteration:
                self._child.close()
                self._which += 1
                self._child = self._part(self._which)._open(self._key, None) if self._which == 1 else None
        raise StopIteration

    def state(self):
        return {
            "type": self.kind,
            "which": self._which,
            "input": None if self._child is None else self._child.state(),
        }


class _CacheIter(_StageIter):
    """Reads a finished cache, or passes the input through while recording it.

    The cache is finished by the first iterator that reads the input from its
    first element to its end; until then every pass reads the input. A state
    taken while reading a finished cache names the pass that filled it, so a
    fresh process (with an empty cache) refills it from that pass and continues.
    """

    kind = "cache"

    def __init__(self, ds, key, state):
        self._ds = ds
        self._child = None
        self._pos = 0
        self._recording = None
        self._fill_key = None
        if state is not None:
            st = _check_state(state, self.kind)
            self._pos = _state_int(st, "pos", self.kind)
            if st.get("fill_key") is not None:  # the state was taken while reading a finished cache
                fill_key = tuple(st["fill_key"])
                if ds._cached is None:
                    ds._fill_from(fill_key)
                self._fill_key = fill_key
                return
            self._child = ds._input._open(key, st.get("input"))
            return
        if ds._cached is None:
            ds._load_file()
        if ds._cached is not None:
            self._fill_key = ds._fill_key
            return
        self._child = ds._input._open(key, None)
        self._recording = []
        self._key = key

    def __next__(self):
        if self._child is None:
            cached = self._ds._cached
            if self._pos >= len(cached):
                raise StopIteration
            self._pos += 1
            return _ready(cached[self._pos - 1])
        try:
            ref = next(self._child)
        except StopIteration:
            if self._recording is not None and self._ds._cached is None:
                self._ds._finish(self._recording, self._key)
            self._recording = None
            raise
        self._pos += 1
        if self._recording is not None:
            value = ref.get()
            self._recording.append(value)
            return _ready(value)
        return ref

    def state(self):
        if self._child is None:
            return {"type": self.kind, "pos": self._pos, "fill_key": list(self._fill_key)}
        return {"type": self.kind, "pos": self._pos, "fill_key": None, "input": self._child.state()}
