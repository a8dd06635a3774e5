"""Matrix products whose threads never fight: one-thread BLAS calls, large products split into blocks run at once.

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
  matrix) as one single-threaded BLAS call;
* splits a larger float32 product into blocks of its longer side (rows or
  columns), one a thread, and runs the blocks at once as
  single-threaded calls of NumPy's own BLAS function (``cblas_sgemm``, found
  with ``threadpoolctl`` and checked against ``np.matmul`` on a probe) from
  one compiled kernel (:func:`descend._native.jit.gemm_split`) on the
  compiled kernels' threads: no Python thread wakes, no lock is taken
  (measured, 2-core EPYC VM: ``64 x 784 x 256`` 270 us on one thread, 150
  split; ``128 x 784 x 512`` 1,030 us, 560 split, 700 on OpenBLAS's two
  threads). Inside a training step a split product also moves data between
  the cores' caches, which can cost more than the second core brings: a
  compiled plan measures its calls both ways and keeps the faster
  (:class:`descend.compiler.plan.ThreadChoice`, which turns threads off
  with :func:`descend._native.set_threads_on`);
* gives the same bits in every case: a block of rows (or columns) of a
  one-thread BLAS product is that product's rows (columns), bit for bit (the
  tests check the benchmarks' MLP shapes, transposed operands included), so
  the result does not depend on how many threads took part, on the machine's
  load, or on its core count: it is ``np.matmul`` under
  ``threadpool_limits(1)``. Blocks are cut at multiples of :data:`BLOCK_ROWS`
  and have at least :data:`BLOCK_MIN` multiply-adds (OpenBLAS computes
  smaller products with other kernels). Not split: float64 products (a
  one-thread ``dgemm``'s bits depend on the shape it is given), and products
  NumPy would not hand to ``gemm`` as they are (other strides, an output that
  overlaps an operand, ``a @ a.T``);
* splits only when a core is free for the other threads
  (:func:`descend._native.idle_core`: every 0.25 s it reads the machine's CPU
  time, ``/proc/stat``, and its own, ``os.times``, and answers yes while the
  other processes leave at least half a core idle beside the calling
  thread). A split product waits for its
  slowest block, and on a machine whose cores are all taken a thread that
  waits for a core stalls it for a scheduler time slice (measured: 0.3 ms a
  product). The decision changes no result (see above), so it may follow the
  load. Products are split only where compiled kernels run
  (:func:`descend._native.enabled`), never in a process forked after the
  kernels' threads started, and only from the main thread.

**descend owns NumPy's BLAS threads.** The first product descend makes
reads the BLAS thread count (as ``OPENBLAS_NUM_THREADS``, ``threadpoolctl`` or
a ``threadpool_limits`` then in force set it) as its *budget*, and sets the
BLAS pool to one thread for good: changing the count while another thread is
inside a BLAS call corrupts OpenBLAS's pool (measured: an MLP step's loss off
by half), and OpenBLAS 0.3.31's ``openblas_set_num_threads_local`` sets the
process-wide count too. So NumPy code outside descend then runs BLAS on one
thread as well. A product is split into at most ``min(cores, budget,
numba.get_num_threads())`` blocks (cores from the process's CPU affinity);
:func:`set_threads` changes the budget, and a count someone else sets later
(``threadpool_limits``) becomes the budget at descend's next product.

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

import ctypes
import os
import sys
import threading
from collections import OrderedDict

import numpy as np

from descend import _native

__all__ = ["BLOCK_MIN", "BLOCK_ROWS", "PARALLEL_FROM", "REUSE_MAX_BYTES", "REUSE_MIN_BYTES", "REUSE_PER_SHAPE", "clear_reuse",
           "cuts", "matmul", "matmul_into", "matmul_into_for", "pools", "set_threads", "stats", "thread_parts"]

#: float32 products of at least this many multiply-adds (per matrix) are split into blocks shared by the cores
PARALLEL_FROM = 2**23
#: the fewest multiply-adds a block of a split product has: OpenBLAS computes products of up to about a
#: million with other ("small matrix") kernels, whose bits differ from those of a larger product's rows
BLOCK_MIN = 2**21
#: a split product is cut into blocks of rows (or columns) at multiples of this many: a block of at least
#: this many rows, cut where OpenBLAS's kernels cut, computes its rows (columns) exactly as the whole product
BLOCK_ROWS = 32
#: outputs of at least this many bytes come from the reuse pool
REUSE_MIN_BYTES = 1 << 16
#: arrays the pool keeps per (shape, dtype)
REUSE_PER_SHAPE = 3
#: bytes the pool keeps in all
REUSE_MAX_BYTES = 64 << 20

#: counts for tests and profiling: ``stats["split"]`` products split
stats: dict = {"split": 0}

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


# ---------------------------------------------------------------------------------------------- splitting
_NO_TRANS = 111  # CblasNoTrans
_gemms: dict | None = None  # dtype -> NumPy's BLAS ?gemm (a ctypes function), found on the first split


def _gemm_functions() -> dict:
    """``{float32: cblas_sgemm}`` of the OpenBLAS NumPy calls (a ctypes function with its argument types),
    found with ``threadpoolctl`` once; empty when there is none, or when a probe product through it differs
    from ``np.matmul``'s in any bit (another BLAS library than NumPy's). float64 products are not split:
    OpenBLAS's one-thread ``dgemm`` gives a block of rows other bits than the whole product's (its blocking
    depends on the shape: measured, 114 of 200 random shapes differ)."""
    global _gemms
    if _gemms is None:
        _gemms = {}
        try:
            from threadpoolctl import ThreadpoolController

            libs = [c for c in ThreadpoolController().select(user_api="blas").lib_controllers
                    if getattr(c, "internal_api", None) == "openblas"]
        except Exception:  # not installed, or a library it cannot query: products are not split
            libs = []
        libs.sort(key=lambda c: f"{os.sep}numpy" not in str(getattr(c, "filepath", "")))  # NumPy's own first
        for lib in libs[:1]:
            for prefix, suffix in ((p, x) for p in ("scipy_", "") for x in ("64_", "_64", "")):
                gemm = getattr(lib.dynlib, f"{prefix}cblas_sgemm{suffix}", None)
                if gemm is not None:
                    index = ctypes.c_int64 if "64" in suffix else ctypes.c_int
                    gemm.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, index, index, index, ctypes.c_float,
                                     ctypes.c_void_p, index, ctypes.c_void_p, index, ctypes.c_float, ctypes.c_void_p,
                                     index]
                    gemm.restype = None
                    if _same_as_numpy(gemm, np.dtype(np.float32)):
                        _gemms = {np.dtype(np.float32): gemm}
                    break
    return _gemms


def _same_as_numpy(gemm, dtype) -> bool:
    """Whether ``gemm`` gives ``np.matmul``'s bits on one thread (the library NumPy calls)."""
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal((37, 301)).astype(dtype), rng.standard_normal((301, 45)).astype(dtype)
    out = np.empty((37, 45), dtype)
    gemm(101, _NO_TRANS, _NO_TRANS, 37, 45, 301, 1.0, a.ctypes.data, 301, b.ctypes.data, 45, 0.0, out.ctypes.data, 45)
    return out.tobytes() == np.matmul(a, b).tobytes()


_NO_CUTS = np.zeros(2, np.int64)
_cut_cache: dict = {}


def cuts(length: int, threads: int) -> np.ndarray:
    """Where ``length`` rows (columns) are cut into at most ``threads`` blocks of nearly equal size, at
    multiples of :data:`BLOCK_ROWS` (so a block's edges fall where a one-thread BLAS call's own blocking
    puts them: its bits do not depend on the cut); ``[0, length]`` when it is too short to cut. No block is
    smaller than the first (the last takes the remainder). The array is shared by every caller (cached):
    read it, never write it."""
    key = (length, threads)
    found = _cut_cache.get(key)
    if found is None:
        units = length // BLOCK_ROWS
        blocks = max(min(threads, units), 1)
        found = np.array([units * i // blocks * BLOCK_ROWS for i in range(blocks)] + [length], np.int64)
        if len(_cut_cache) > 1024:
            _cut_cache.clear()
        _cut_cache[key] = found
    return found


def thread_parts(shape: tuple, parts: int) -> list:
    """Where ``parts`` threads share the elements of a C-contiguous array of ``shape`` (``parts + 1`` flat
    offsets): the row blocks a split product cuts the array's rows into (:func:`cuts`), so the thread that
    wrote a row block of a product's output is the one that goes on with those elements; a vector, or a
    matrix too short to cut, in equal runs cut at multiples of 16 elements (64 bytes of float32).

    Example:
        >>> from descend._native import blas
        >>> blas.thread_parts((784, 256), 2)
        [0, 98304, 200704]
    """
    size = 1
    for d in shape:
        size *= int(d)
    if len(shape) >= 2 and size:
        rows = int(shape[0])
        row_cuts = cuts(rows, parts)
        if row_cuts.shape[0] == parts + 1:
            return [int(c) * (size // rows) for c in row_cuts]
    return [size * i // parts // 16 * 16 for i in range(parts)] + [size]


def _split(a, b, out, threads: int) -> bool:
    """``out[...] = a @ b`` as ``threads`` single-threaded BLAS calls running at once on the compiled kernels'
    threads; False, with nothing written, where it cannot be done that way (``np.matmul`` then computes it on
    one thread).

    The longer side of ``out`` is cut: blocks of rows when it has at least as many rows as columns, else
    blocks of columns. In a training step that keeps each thread on the memory it touches next. A layer's
    output (batch rows, more units) is cut by columns, so each thread reads only its columns of the
    weights. A weight's gradient (input features by units) is mostly as tall as wide or taller, so it is cut
    by rows, and each thread writes the rows that the same thread updates next: an optimizer's step shares
    a weight's elements out by these row cuts (:func:`thread_parts`). Measured, 2-core EPYC VM, compiled
    AdamW step of the 784-256-10 MLP (batch 64): 573 us cutting every product by columns, 542 cutting the
    longer side; 784-512-512-10 (batch 128): 3.20 ms and 3.09 ms."""
    gemm = (_gemms if _gemms is not None else _gemm_functions()).get(out.dtype)
    if gemm is None or a.dtype != out.dtype or b.dtype != out.dtype:
        return False
    if a.ndim != 2 or b.ndim != 2 or out.ndim != 2 or not out.flags.writeable:
        return False  # (np.matmul says what is wrong: BLAS would write where it is told)
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k or out.shape != (m, n) or not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)):
        return False
    if not _native.enabled() or not _native.ready(exact=True) or not _native.parallel():
        return False  # (no compiled kernels, still loading, or a child forked after threads started)
    kernels = _native.kernels()
    if not kernels.header_ok():
        return False  # (the kernel reads the operands' addresses and strides from their array headers)
    threads = min(threads, kernels.threads())
    rows, cols = cuts(m, threads), cuts(n, threads)  # the longer side is cut (see _split's docstring)
    if rows.shape[0] >= 3 and (m >= n or cols.shape[0] < 3):
        cols = _NO_CUTS
    elif cols.shape[0] >= 3:
        rows = _NO_CUTS
    else:
        return False
    if int((rows if cols is _NO_CUTS else cols)[1]) * (n if cols is _NO_CUTS else m) * k < BLOCK_MIN:  # (the first block is the smallest)
        return False
    if not kernels.gemm_split(gemm, out, id(a), id(b), k, rows, cols):
        return False  # (strides NumPy would not hand to BLAS as they are, a @ a.T, an output overlapping an operand)
    stats["split"] += 1
    return True


_found: int | None = None   # the BLAS thread count found when descend took the pool over (None: not yet)
_budget: int | None = None  # set_threads's budget (None: the count found)
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
        if (budget > 1 and a.shape[0] * a.shape[1] * b.shape[1] >= PARALLEL_FROM and _native.threads_on()
                and _split(a, b, out, min(budget, _native.cores()))):
            return
    np.matmul(a, b, out=out)


def matmul_into_for(m: int, k: int, n: int):
    """``f(a, b, out)`` for ``(m, k) @ (k, n)`` products (a compiled plan picks it once per product)."""
    return matmul_into


# ---------------------------------------------------------------------------------------------- reuse
_reuse: OrderedDict = OrderedDict()  # (shape, dtype) -> arrays handed out, least recently used key first
_reuse_bytes = 0
_reuse_lock = threading.Lock()


def _after_fork_in_child():
    global _reuse_lock
    _reuse_lock = threading.Lock()  # (another thread of the parent may have held it at the fork)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


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
