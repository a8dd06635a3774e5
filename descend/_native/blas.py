"""Matrix products whose threads never fight: one-thread BLAS calls on row blocks, shared by the cores.

NumPy's BLAS (OpenBLAS in NumPy's wheels) splits every product over its
thread pool and waits for the slowest thread. On a quiet machine that buys
speed; on a busy one a worker that waits for a core another process holds
stalls the whole product for a scheduler time slice. Measured on a 2-core
Xeon with two CPU-bound processes beside it, float32: ``(128, 512) @ (512,
10)`` 28 us on one thread, 13.5 ms on two; ``(784, 128) @ (128, 512)`` 1.1 ms
on one thread, 11 ms on two. And OpenBLAS's result depends on its thread
count (other kernels and blockings: ``(64, 784) @ (784, 256)`` differs in the
last bit in 3,250 of 16,384 elements between one thread and two).

So descend never runs BLAS on more than one thread. :func:`matmul`:

* runs a product of fewer than :data:`PARALLEL_FROM` multiply-adds (per
  matrix) as one single-threaded BLAS call. Alone, two threads already save a
  little at a few million (``64 x 784 x 256``: 267 us on one thread, 233 us
  split), but inside a training step a split product also moves its operands
  between the cores' caches (the other core reads the weights this one just
  updated, and writes half of the gradient the optimizer reads next): the
  compiled step of an MLP 784-256-10, batch 64 (12.8 million multiply-adds a
  product) takes 0.79 ms with its products on one thread and 0.97 ms split;
  at 25.7 million (hidden 512 or batch 128) the split step is 7-12% faster,
  at 51 million (784-512-10, batch 128) 28% (2-core EPYC, quiet machine);
* splits a larger product into blocks of rows, one a thread (each block packs
  all of ``b`` again), and runs each block as a single-threaded BLAS call: the
  calling thread and :func:`helpers` take blocks as they come. When the
  calling thread finds no block left, it waits for the blocks a helper is
  computing as long as one of its own took (and half that again): a helper
  that has a core is done by then. Then it computes the blocks still out
  itself (a helper writes a block into its own scratch array and copies it in
  only if nobody did it first, and so does the calling thread for a block it
  takes over: BLAS writes partial sums into its output as it goes), so a
  product never waits long for a thread that another process keeps off its
  core. (It took over at once before, and so computed the helper's block a
  second time in most products: ``128 x 784 x 512`` took 990 us split, 1030
  on one thread; 640 us now);
* gives the same bits in every case: a block of rows of a one-thread BLAS
  product is that product's rows, bit for bit (checked on the shapes of the
  benchmarks' MLPs), so the result does not depend on how many threads took
  part, on the machine's load, or on its core count: it is ``np.matmul`` under
  ``threadpool_limits(1)``;
* splits only when a core is free for a helper: every :data:`PROBE_SECONDS`
  it reads the machine's CPU time (``/proc/stat``) and its own
  (``os.times``), and splits while the other processes leave at least half
  a core idle beside the calling thread. On a machine whose cores are all
  taken, waking a helper costs more than it brings (measured: 0.3 ms a
  product, the woken thread taking the caller's core). The decision changes
  no result (see above), so it may follow the load.

**descend owns NumPy's BLAS threads.** The first product descend makes
reads the BLAS thread count (as ``OPENBLAS_NUM_THREADS``, ``threadpoolctl`` or
a ``threadpool_limits`` then in force set it) as its *budget*, and sets the
BLAS pool to one thread for good: changing the count while another thread is
inside a BLAS call corrupts OpenBLAS's pool (measured: an MLP step's loss off
by half), and OpenBLAS 0.3.31's ``openblas_set_num_threads_local`` sets the
process-wide count too. So NumPy code outside descend then runs BLAS on one
thread as well. The helpers are ``min(cores, budget) - 1`` daemon threads
(cores from the process's CPU affinity); :func:`set_threads` changes the
budget, and a count someone else sets later (``threadpool_limits``) becomes
the budget at descend's next product. Only the main thread splits products
(other threads make one-thread calls); a process forked after the helpers
started gets its own.

**Outputs are reused.** A product's output of at least
:data:`REUSE_MIN_BYTES` comes from a small pool: an array the pool handed
out before is written again once nothing but the pool refers to it (its
reference count says so: no Tensor, view or user variable holds it). A
training step makes the same products every step, so its weight gradients
and activations land in the buffers of the step before, instead of memory
that glibc unmapped (or trimmed off the heap) when the last step freed it
and the kernel must fault in and zero again: 200 page faults a step for the
784-256-10 MLP, 720 for 784-512-512-10. ``np.matmul(a, b, out=buf)`` gives
the bits ``np.matmul(a, b)`` gives. The pool keeps at most
:data:`REUSE_PER_SHAPE` arrays per shape and dtype and
:data:`REUSE_MAX_BYTES` in all (the least recently used shapes go first).

Example:
    >>> import numpy as np
    >>> from descend._native import blas
    >>> a = np.ones((4, 3), np.float32)
    >>> blas.matmul(a, a.T)[0]
    array([3., 3., 3., 3.], dtype=float32)
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections import OrderedDict

import numpy as np

__all__ = ["BLOCK_ROWS", "PARALLEL_FROM", "REUSE_MAX_BYTES", "REUSE_MIN_BYTES", "REUSE_PER_SHAPE", "clear_reuse",
           "helpers", "matmul", "matmul_into", "matmul_into_for", "pools", "set_threads", "stats", "worth_splitting"]

#: products of at least this many multiply-adds (per matrix) are split into row blocks shared by the cores
PARALLEL_FROM = 2**24
#: the fewest rows a block has (a block of rows is one single-threaded BLAS call)
BLOCK_ROWS = 16
#: how often the machine's idle CPU is read to decide whether to split (seconds)
PROBE_SECONDS = 0.25
#: split while at least this much of a core is idle beside the calling thread
IDLE_TO_SPLIT = 0.5
#: outputs of at least this many bytes come from the reuse pool
REUSE_MIN_BYTES = 1 << 16
#: arrays the pool keeps per (shape, dtype)
REUSE_PER_SHAPE = 3
#: bytes the pool keeps in all
REUSE_MAX_BYTES = 64 << 20

#: counts for tests and profiling: ``stats["split"]`` products split, ``stats["helper_blocks"]`` blocks a helper
#: copied in, ``stats["taken_over"]`` blocks the calling thread computed while a helper still had them
stats: dict = {"split": 0, "helper_blocks": 0, "taken_over": 0}

_pools: tuple | None = None  # threadpoolctl controllers of the loaded BLAS libraries, found on first use
_main = threading.main_thread()


def pools() -> tuple:
    """``(get, set)`` thread-count functions of each BLAS library in this process, found with
    ``threadpoolctl`` on first use (empty without it)."""
    global _pools
    if _pools is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # not installed: NumPy's BLAS keeps its own thread count
            _pools = ()
        else:
            try:
                found = ThreadpoolController().select(user_api="blas").lib_controllers
            except Exception:  # a library threadpoolctl cannot query: leave BLAS as it is  # pragma: no cover
                found = []
            _pools = tuple(_counter(c) for c in found if c.get_num_threads() is not None)
    return _pools


def _counter(lib):
    """``(get, set)`` of ``lib``'s thread count: OpenBLAS's own functions when its pool is its own (a
    ctypes call, 0.3 us), else the controller's methods (threadpoolctl's bookkeeping, about 3 us)."""
    if getattr(lib, "internal_api", None) == "openblas" and getattr(lib, "threading_layer", None) != "openmp":
        for prefix in ("", "scipy_"):
            for suffix in ("", "64_", "_64"):
                get = getattr(lib.dynlib, f"{prefix}openblas_get_num_threads{suffix}", None)
                put = getattr(lib.dynlib, f"{prefix}openblas_set_num_threads{suffix}", None)
                if get is not None and put is not None:
                    return get, put
    return lib.get_num_threads, lib.set_num_threads


# ---------------------------------------------------------------------------------------------- the helpers
def _cores() -> int:
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(os.cpu_count() or 1, 1)


class _Job:
    """One split product: ``out[r0:r1] = a[r0:r1] @ b`` for each block of rows."""

    __slots__ = ("a", "b", "out", "edges", "next", "claimed", "done", "lock", "finished")

    def __init__(self, a, b, out, edges):
        self.a, self.b, self.out, self.edges = a, b, out, edges
        self.next = 0
        self.claimed = [False] * (len(edges) - 1)
        self.done = [False] * (len(edges) - 1)
        self.lock = threading.Lock()
        self.finished = threading.Condition(self.lock)  # notified when a helper copies a block in

    def claim(self):
        """``(block, a, b, out)`` of the next block nobody took, or None (all taken, or the product is over)."""
        with self.lock:
            k = self.next
            if k >= len(self.claimed) or self.out is None:
                return None
            self.next = k + 1
            self.claimed[k] = True
            return k, self.a, self.b, self.out

    def close(self) -> None:
        """The product is over: let go of its arrays (a helper still computing holds what it took)."""
        with self.lock:
            self.a = self.b = self.out = None


class _Helpers:
    """Daemon threads that take blocks of the main thread's split products (see the module docstring)."""

    def __init__(self, n: int):
        self.n = n
        self.cond = threading.Condition()
        self.job: _Job | None = None
        self.serial = 0
        self.scratch: list = [dict() for _ in range(n)]  # per helper: (shape, dtype) -> array
        self.threads = [threading.Thread(target=self._work, args=(k,), name=f"descend-blas-{k}", daemon=True)
                        for k in range(n)]
        for t in self.threads:
            t.start()

    def post(self, job: _Job) -> None:
        with self.cond:
            self.job = job
            self.serial += 1
            self.cond.notify_all()

    def retire(self) -> None:
        with self.cond:
            self.job = None

    def _work(self, k: int) -> None:
        seen = 0
        scratch = self.scratch[k]
        while True:
            with self.cond:
                while self.serial == seen or self.job is None:
                    self.cond.wait()
                seen = self.serial
                job = self.job
            while True:
                got = job.claim()
                if got is None:
                    break
                b, a, w, out = got
                r0, r1 = job.edges[b], job.edges[b + 1]
                key = (r1 - r0, out.shape[1], out.dtype)
                buf = scratch.get(key)
                if buf is None:
                    buf = scratch[key] = np.empty(key[:2], key[2])
                np.matmul(a[r0:r1], w, out=buf)
                with job.lock:
                    if not job.done[b]:
                        out[r0:r1] = buf
                        job.done[b] = True
                        stats["helper_blocks"] += 1
                        job.finished.notify_all()
                del a, w, out, got  # (the arrays go with the product, not with this thread's next wait)
            del job


_helpers: _Helpers | None = None
_helpers_lock = threading.Lock()


def helpers() -> int:
    """How many helper threads products are shared with (started on first use)."""
    h = _get_helpers()
    return 0 if h is None else h.n


def _get_helpers() -> _Helpers | None:
    global _helpers
    if _helpers is None:
        with _helpers_lock:
            if _helpers is None:
                n = _cores() - 1
                _helpers = _Helpers(n) if n > 0 else False
    return _helpers or None


def _after_fork_in_child():
    global _helpers, _helpers_lock, _reuse_lock
    _helpers = None  # the parent's helper threads do not exist here
    _helpers_lock = threading.Lock()
    _reuse_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


_own_scratch: dict = {}  # the calling thread's scratch for blocks it takes over, by (rows, cols, dtype)
#: how long the calling thread waits for a block a helper is computing before computing it itself: this many
#: times the time it took for one block of its own, plus _WAIT_SLACK seconds (a helper that has a core
#: finishes in about one block's time; one that has none is not waited for longer than that)
_WAIT_FACTOR = 1.5
_WAIT_SLACK = 50e-6
_WAIT_UNKNOWN = 0.0  # (the helpers took every block: no time of this thread's to go by, so no wait)


def _split(a, b, out, workers: int) -> None:
    m = a.shape[0]
    blocks = min(max(m // BLOCK_ROWS, 1), workers + 1)  # one block a thread: each block packs all of b again
    if blocks < 2:
        np.matmul(a, b, out=out)
        return
    edges = [(m * i // blocks) for i in range(blocks + 1)]
    h = _get_helpers()
    job = _Job(a, b, out, edges)
    h.post(job)
    try:
        own, started = 0, time.perf_counter()
        while True:
            got = job.claim()
            if got is None:
                break
            k = got[0]
            np.matmul(a[edges[k]:edges[k + 1]], b, out=out[edges[k]:edges[k + 1]])
            own += 1
            with job.lock:
                job.done[k] = True
        # nothing left to claim: a helper computing a block finishes it in about the time this thread took for
        # one, so wait that long (and a little) for the blocks still out; then compute those a helper still
        # has (it got no core) into a scratch array (BLAS writes partial sums into its output as it goes: only
        # finished blocks are copied in, under the lock)
        block = (time.perf_counter() - started) / own if own else _WAIT_UNKNOWN
        deadline = time.perf_counter() + _WAIT_FACTOR * block + _WAIT_SLACK
        with job.lock:
            while not all(job.done):
                left = deadline - time.perf_counter()
                if left <= 0:
                    break
                job.finished.wait(left)
        for k in range(blocks):
            if not job.done[k]:
                r0, r1 = edges[k], edges[k + 1]
                key = (r1 - r0, out.shape[1], out.dtype)
                buf = _own_scratch.get(key)
                if buf is None:
                    buf = _own_scratch[key] = np.empty(key[:2], key[2])
                np.matmul(a[r0:r1], b, out=buf)
                with job.lock:
                    if not job.done[k]:
                        out[r0:r1] = buf
                        job.done[k] = True
                        stats["taken_over"] += 1
    finally:
        job.close()  # (under the lock: a helper's copy in progress ends before the result is used)
        h.retire()
    stats["split"] += 1


_found: int | None = None   # the BLAS thread count found when descend took the pool over (None: not yet)
_budget: int | None = None  # set_threads's budget (None: the count found)
_probe = [float("-inf"), True, None]  # (time of the last reading, whether to split, (busy, total, own) then)


def _cpu_reading():
    """``(jiffies busy, jiffies in all, this process's CPU seconds)`` now, or None (no /proc/stat)."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()[1:]
    except OSError:
        return None
    ticks = [int(x) for x in fields[:8]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)
    t = os.times()
    return sum(ticks) - idle, sum(ticks), t.user + t.system


_CLOCK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
_CPUS = os.cpu_count() or 1


def worth_splitting() -> bool:
    """Whether another process leaves a core idle for a helper (read every :data:`PROBE_SECONDS`; True
    where the machine's CPU time cannot be read)."""
    now = time.perf_counter()
    if now - _probe[0] < PROBE_SECONDS:
        return _probe[1]
    reading = _cpu_reading()
    last = _probe[2]
    _probe[0], _probe[2] = now, reading
    if reading is None or last is None or reading[1] <= last[1]:
        return _probe[1]
    busy, total, own = reading[0] - last[0], reading[1] - last[1], (reading[2] - last[2]) * _CLOCK
    others = max(busy - own, 0) / total * _CPUS  # cores the other processes kept busy
    _probe[1] = min(_CPUS, _cores()) - others >= 1 + IDLE_TO_SPLIT
    return _probe[1]


def _take_over(libs) -> int:
    """The thread budget; on the first call (and when someone set another BLAS count since), the count
    read and the BLAS pool set to one thread (see the module docstring)."""
    global _found
    current = max((get() for get, _ in libs), default=1)
    if _found is None or current != 1:
        _found = max(current, 1)
        for get, put in libs:
            if get() != 1:
                put(1)
    return _budget if _budget is not None else _found


def set_threads(n: int | None) -> int | None:
    """Let descend's matrix products use ``n`` threads (``None``: the BLAS count found at the next product);
    returns the previous budget. BLAS itself stays on one thread (see the module docstring).

    Example:
        >>> from descend._native import blas
        >>> previous = blas.set_threads(1)   # products on the calling thread only
        >>> _ = blas.set_threads(previous)
    """
    global _budget
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise ValueError(f"set_threads: `n` must be a positive int or None. Received: {n!r}")
    previous, _budget = _budget, n
    return previous


def matmul_into(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> None:
    """``np.matmul(a, b, out=out)`` for 2-D ``a`` and ``b`` with the bits of a one-thread BLAS call, split
    into row blocks shared by the cores when the product is large (see the module docstring)."""
    libs = _pools if _pools is not None else pools()
    if libs and threading.current_thread() is _main:
        budget = _take_over(libs)
        if budget > 1 and a.shape[0] * a.shape[1] * b.shape[1] >= PARALLEL_FROM and worth_splitting():
            h = _get_helpers()
            if h is not None:
                _split(a, b, out, min(budget - 1, h.n))
                return
    np.matmul(a, b, out=out)


def matmul_into_for(m: int, k: int, n: int):
    """``f(a, b, out)`` for ``(m, k) @ (k, n)`` products (a compiled plan picks it once per product)."""
    return matmul_into


# ---------------------------------------------------------------------------------------------- reuse
_reuse: OrderedDict = OrderedDict()  # (shape, dtype) -> arrays handed out, least recently used key first
_reuse_bytes = 0
_reuse_lock = threading.Lock()


def _output(shape: tuple, dtype: np.dtype):
    """An array of ``shape`` and ``dtype`` to write a product into: a pooled one that nothing else
    refers to, else a new one (pooled when large enough); ``None`` for a small output."""
    global _reuse_bytes
    nbytes = dtype.itemsize
    for d in shape:
        nbytes *= d
    if nbytes < REUSE_MIN_BYTES:
        return None
    key = (shape, dtype)
    with _reuse_lock:
        held = _reuse.get(key)
        if held is not None:
            _reuse.move_to_end(key)
            for buf in held:
                if sys.getrefcount(buf) == 3:  # the pool's list, this loop and the call's argument
                    return buf
            if len(held) >= REUSE_PER_SHAPE:
                return np.empty(shape, dtype)
        else:
            held = _reuse[key] = []
        buf = np.empty(shape, dtype)
        held.append(buf)
        _reuse_bytes += nbytes
        while _reuse_bytes > REUSE_MAX_BYTES and len(_reuse) > 1:
            _, old = _reuse.popitem(last=False)
            _reuse_bytes -= sum(x.nbytes for x in old)
        return buf


def clear_reuse() -> None:
    """Let go of every pooled output (arrays still in use stay valid: they are only no longer reused)."""
    global _reuse_bytes
    with _reuse_lock:
        _reuse.clear()
        _reuse_bytes = 0


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)`` with the bits of a one-thread BLAS call, into a reused output when one is free
    (see the module docs); 2-D products run through :func:`matmul_into`."""
    if a.ndim == 2 and b.ndim == 2:
        out = _output((a.shape[0], b.shape[1]), np.result_type(a.dtype, b.dtype))
        if out is None:
            out = np.empty((a.shape[0], b.shape[1]), np.result_type(a.dtype, b.dtype))
        matmul_into(a, b, out)
        return out
    libs = _pools if _pools is not None else pools()
    if libs and threading.current_thread() is _main:
        _take_over(libs)
    return np.matmul(a, b)
