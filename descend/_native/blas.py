"""Matrix products: one-thread BLAS calls, large products cut into blocks run at once or on OpenBLAS's threads.

NumPy's BLAS (OpenBLAS in NumPy's wheels) splits every product over its
thread pool and waits for the slowest thread. On a quiet machine that buys
speed; on a busy one a worker that waits for a core another process holds
stalls the whole product for a scheduler time slice. Measured on a 2-core
Xeon with two CPU-bound processes beside it, float32: ``(128, 512) @ (512,
10)`` 28 us on one thread, 13.5 ms on two; ``(784, 128) @ (128, 512)`` 1.1 ms
on one thread, 11 ms on two. And OpenBLAS's result depends on its thread
count (other kernels and blockings: ``(64, 784) @ (784, 256)`` differs in the
last bit in 3,250 of 16,384 elements between one thread and two).

So descend runs BLAS on one thread, except where one call on OpenBLAS's own
threads was measured faster in the default mode (below). :func:`matmul`:

* runs a product of fewer than :data:`PARALLEL_FROM` multiply-adds (per
  matrix) as one single-threaded BLAS call;
* cuts a larger float32 product into blocks of its longer side (rows or
  columns), each a single-threaded call of NumPy's own BLAS function
  (``cblas_sgemm``, found with ``threadpoolctl`` and checked against
  ``np.matmul`` on a probe), and runs the blocks at once from one compiled
  kernel (:func:`descend._native.jit.gemm_split`) on the compiled kernels'
  threads: no Python thread wakes, no lock is taken (measured, 2-core EPYC
  VM: ``64 x 784 x 256`` 270 us on one thread, 150 split; ``128 x 784 x
  512`` 1,030 us, 560 split, 700 on OpenBLAS's two threads). Inside a
  training step a split product also moves data between the cores' caches,
  which can cost more than the second core brings: a compiled plan measures
  its calls both ways and keeps the faster
  (:class:`descend.compiler.plan.ThreadChoice`, which turns threads off with
  :func:`descend._native.set_threads_on`); with threads off, on a busy
  machine, in a thread other than the main one or without compiled kernels,
  the calling thread makes the same calls one after another;
* so **which threads run the blocks never changes a bit**: how a product is
  cut depends on its shape, dtype and strides and on :func:`parts_for`
  alone, never on the machine's load, on the thread that asks, or on
  whether a plan or an eager op makes it. With op determinism on
  (:func:`set_deterministic`,
  ``descend.config.experimental.enable_op_determinism``) a product is cut by
  its shape alone, into up to :data:`DETERMINISTIC_BLOCKS` blocks of at
  least :data:`BLOCK_MIN` multiply-adds, so the result does not depend on
  the thread count either. Blocks are cut at multiples of
  :data:`BLOCK_ROWS`. Not cut: float64 products, and products NumPy would not
  hand to ``gemm`` as they are (other strides, an output that overlaps an
  operand, ``a @ a.T``);
* **by default** (op determinism off, as in TensorFlow) a product is cut into
  as many blocks as the thread budget allows, or runs as one call on
  OpenBLAS's own threads (as many as the budget, on at most the cores) where
  that is faster: a product descend cuts into blocks runs as its blocks
  (inside a step they were faster than OpenBLAS's threads, even where a
  trial of the product alone said otherwise: :data:`WAY_MARGIN`); the first
  time the main thread makes a product of a kind it does not cut (shape,
  dtype, strides, thread count: float64, other strides) it times one
  one-thread call against OpenBLAS's threads, :data:`WAY_TRIALS` times each,
  and keeps OpenBLAS's threads for the rest of the process only where their
  median was :data:`WAY_MARGIN` times faster and the other processes left a
  core idle (:func:`prefers_blas_threads`: on a busy machine OpenBLAS's
  threads wait for cores), the one call otherwise (:func:`way`). Every product of that kind, eager or in a plan,
  then runs the same way, so **a compiled step gives the eager step's bits in
  both modes**; the last bits may depend on the thread count (and, where the
  two ways were close, on which one the timing chose), as in TensorFlow and
  PyTorch. A call on OpenBLAS's threads sets the BLAS's thread count for that
  call only and back to one after it, from the main thread only, holding a
  lock that descend's products in other threads also take (they never run
  inside that window); another thread that meets a product of that kind
  computes it in one one-thread call (other last bits);
* **the bits depend on the CPU**: OpenBLAS picks its kernels for the CPU
  (``OPENBLAS_CORETYPE`` overrides it), and kernels differ in the last bits.
  On some (SkylakeX) a block of a one-thread product is that product's rows,
  on others (Haswell, any AVX2 CPU) it is not: descend promises only that a
  cut product is its blocks, each a one-thread BLAS call, on every kernel;
* splits a product only when a core is free for its threads
  (:func:`descend._native.idle_core`: every 0.25 s it reads the machine's CPU
  time, ``/proc/stat``, and its own, ``os.times``, and answers yes while the
  other processes leave at least half a core idle beside the calling
  thread). A split product waits for its slowest block, and on a machine
  whose cores are all taken a thread that waits for a core stalls it for a
  scheduler time slice (measured: 0.3 ms a product). Never in a process
  forked after the kernels' threads started. (A product found faster on
  OpenBLAS's threads runs on them whatever the load: its bits depend on
  their count.) Nor while OpenBLAS's workers still spin after such a call
  (about 0.1 s): two thread pools spinning for the same cores stall each
  other (:func:`descend._native.blas_threads_used`).

**descend owns NumPy's BLAS threads.** The first product descend makes
reads the BLAS thread count (as ``OPENBLAS_NUM_THREADS``, ``threadpoolctl`` or
a ``threadpool_limits`` then in force set it) as its *budget*, and sets the
BLAS pool to one thread (between the calls it runs on OpenBLAS's threads,
above): changing the count while another thread is inside a BLAS call
corrupts OpenBLAS's pool (measured: an MLP step's loss off by half), so only
the main thread changes it, and OpenBLAS 0.3.31's
``openblas_set_num_threads_local`` sets the process-wide count too. A program
that makes BLAS calls of its own from other threads while descend's main
thread runs large products should turn op determinism on (one-thread calls
only). So NumPy code outside descend then runs BLAS on one
thread as well. By default a product is cut into at most ``min(cores,
budget)`` blocks (cores from the process's CPU affinity); :func:`set_threads`
changes the budget, and a count someone else sets later
(``threadpool_limits``) becomes the budget at descend's next product. Only the
main thread takes the pool over: a product another thread makes before that
runs whole, as NumPy runs it. Where
no BLAS library can be set (``threadpoolctl`` not importable), products run
whole on the BLAS's own threads and descend's kernels on one thread
(:func:`descend._native.blas_pools.blas_threaded`).

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

from . import blas_pools

__all__ = ["BLOCK_MIN", "BLOCK_ROWS", "DETERMINISTIC_BLOCKS", "PARALLEL_FROM", "REUSE_MAX_BYTES", "REUSE_MIN_BYTES",
           "REUSE_PER_SHAPE", "WAY_MARGIN", "WAY_TRIALS", "clear_reuse", "clear_ways", "cuts", "deterministic",
           "gemm_function", "matmul", "matmul_into", "matmul_into_for", "own_pool", "parts_for", "pools",
           "set_deterministic", "set_threads", "stats", "thread_parts", "way"]

#: float32 products of at least this many multiply-adds (per matrix) are split into blocks shared by the cores
#: (measured, 2-core EPYC, compiled step of a MultiHeadAttention block whose projections are 1,024 x 64 x 64:
#: 2.77-2.99 ms cutting them, 3.07-3.47 ms at 2**23, where they ran on one core)
PARALLEL_FROM = 2**22
#: the fewest multiply-adds a block of a split product has: OpenBLAS computes products of up to about a
#: million with other ("small matrix") kernels, whose bits differ from those of a larger product's rows
BLOCK_MIN = 2**21
#: a split product is cut into blocks of rows (or columns) at multiples of this many: a block of at least
#: this many rows, cut where OpenBLAS's kernels cut, computes its rows (columns) exactly as the whole product
BLOCK_ROWS = 32
#: with op determinism on, a product is cut into at most this many blocks, whatever the thread count
DETERMINISTIC_BLOCKS = 16
#: outputs of at least this many bytes come from the reuse pool
REUSE_MIN_BYTES = 1 << 16
#: arrays the pool keeps per (shape, dtype)
REUSE_PER_SHAPE = 3
#: bytes the pool keeps in all
REUSE_MAX_BYTES = 64 << 20

#: counts for tests and profiling: ``stats["split"]`` products split
stats: dict = {"split": 0, "in_turn": 0, "threaded": 0}

_pools: tuple | None = None  # threadpoolctl controllers of the loaded BLAS libraries, found on first use
_main = threading.main_thread()


def pools() -> tuple:
    """``(get, set)`` thread-count functions of each BLAS library in this process, found with
    ``threadpoolctl`` on first use (empty without it): :func:`descend._native.blas_pools.find`."""
    global _pools
    if _pools is None:
        _pools = blas_pools.find()
    return _pools


# ---------------------------------------------------------------------------------------------- splitting
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112  # CblasRowMajor, CblasNoTrans, CblasTrans
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


def gemm_function(dtype):
    """NumPy's own ``cblas_?gemm`` for arrays of ``dtype`` as a ctypes function (cblas's arguments, row major), found
    once and checked on a probe to give ``np.matmul``'s bits on one thread, or None (float32 only; none found). A
    kernel that calls it itself makes what ``np.matmul`` makes on the same rows. Call it from the main thread only
    after :func:`own_pool`, or from a kernel's threads that the main thread started."""
    return (_gemms if _gemms is not None else _gemm_functions()).get(np.dtype(dtype))


def own_pool() -> bool:
    """In the main thread: take NumPy's BLAS pool over as a product does (one thread, the count found becoming the
    budget: the module docstring) and return True, so a kernel started now may call :func:`gemm_function`'s
    function on its threads. False in any other thread, or without a BLAS library whose threads can be set."""
    libs = _pools if _pools is not None else pools()
    if not libs or threading.get_ident() != _main.ident:
        return False
    _take_over(libs)
    return True


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
    multiples of :data:`BLOCK_ROWS` (whole register tiles of every kernel); ``[0, length]`` when it is too short to cut. No block is
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


class _Blocks:
    """How one product is cut: NumPy's ``?gemm`` for its dtype, the cuts of rows (or columns: the other is
    ``[0, 0]``), and the BLAS arguments of the whole product as NumPy would hand them over (see :func:`_blocks`)."""

    __slots__ = ("gemm", "rows", "cols", "k", "ta", "lda", "tb", "ldb", "ldc")

    def __init__(self, gemm, rows, cols, k, ta, lda, tb, ldb, ldc):
        self.gemm, self.rows, self.cols, self.k = gemm, rows, cols, k
        self.ta, self.lda, self.tb, self.ldb, self.ldc = ta, lda, tb, ldb, ldc


def _operand(x, rows: int, cols: int, size: int):
    """``(CblasNoTrans or CblasTrans, leading dimension)`` of the 2-D ``x`` (``rows x cols``) as NumPy hands it to
    BLAS (rows contiguous, or columns contiguous), or None where it would not hand these strides over as they are
    (the rule of :func:`descend._native.jit.gemm_split`, which checks it again)."""
    s0, s1 = x.strides
    if s1 == size and s0 % size == 0 and s0 // size >= cols:
        return _NO_TRANS, s0 // size
    if s0 == size and s1 % size == 0 and s1 // size >= rows:
        return _TRANS, s1 // size
    return None


def parts_for(m: int, k: int, n: int) -> int:
    """Into how many blocks a float32 ``(m, k) @ (k, n)`` product is cut at most (1: not cut; fewer where its
    longer side is too short for that many blocks of :data:`BLOCK_MIN` multiply-adds): none below
    :data:`PARALLEL_FROM` multiply-adds; with op determinism on, the largest power of two up to
    :data:`DETERMINISTIC_BLOCKS` that leaves every block :data:`BLOCK_MIN` multiply-adds (a function of the
    shape alone); otherwise the thread budget (:func:`set_threads`, else the BLAS thread count descend found)
    and the cores this process may run on, whichever is fewer. Never the machine's load."""
    madds = m * k * n
    if madds < PARALLEL_FROM:
        return 1
    if _deterministic:
        parts = 1
        while parts * 2 <= DETERMINISTIC_BLOCKS and madds // (parts * 2) >= BLOCK_MIN:
            parts *= 2
        return parts
    budget = _budget if _budget is not None else (_found or 1)
    return max(min(budget, _native.cores()), 1)


def _blocks(a, b, out):
    """How ``out[...] = a @ b`` is computed: None for one BLAS call (``np.matmul``), else a :class:`_Blocks`
    (see the module docstring). Decided from the shapes, dtypes, strides and :func:`parts_for` alone, so the same
    product is cut the same way whichever thread computes it and however busy the machine is."""
    if not (type(a) is np.ndarray and type(b) is np.ndarray and type(out) is np.ndarray):
        return None
    if a.ndim != 2 or b.ndim != 2 or out.ndim != 2 or not out.flags.writeable:
        return None  # (np.matmul says what is wrong: BLAS would write where it is told)
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k or out.shape != (m, n) or a.dtype != out.dtype or b.dtype != out.dtype:
        return None
    parts = parts_for(m, k, n)
    if parts < 2:
        return None
    gemm = (_gemms if _gemms is not None else _gemm_functions()).get(out.dtype)
    if gemm is None:
        return None
    size = out.itemsize
    op_a, op_b = _operand(a, m, k, size), _operand(b, k, n, size)
    so0, so1 = out.strides
    if (op_a is None or op_b is None or so1 != size or so0 % size or so0 // size < n
            or a.ctypes.data == b.ctypes.data  # (a @ a.T: NumPy computes it another way)
            or np.may_share_memory(out, a) or np.may_share_memory(out, b)):
        return None
    # the longer side is cut (see _split's docstring), into the most blocks (up to `parts`) whose first, the
    # smallest, has BLOCK_MIN multiply-adds
    by_rows = m // BLOCK_ROWS >= 2 and (m >= n or n // BLOCK_ROWS < 2)
    if not by_rows and n // BLOCK_ROWS < 2:
        return None
    length, other = (m, n) if by_rows else (n, m)
    per_unit = BLOCK_ROWS * other * k  # the multiply-adds of BLOCK_ROWS rows (columns)
    parts = min(parts, length // BLOCK_ROWS // -(-BLOCK_MIN // per_unit))
    if parts < 2:
        return None
    cut = cuts(length, parts)
    rows, cols = (cut, _NO_CUTS) if by_rows else (_NO_CUTS, cut)
    return _Blocks(gemm, rows, cols, k, op_a[0], op_a[1], op_b[0], op_b[1], so0 // size)


def _split(a, b, out, blocks: _Blocks) -> bool:
    """``out[...] = a @ b`` as the one-thread BLAS calls of ``blocks``, at once on the compiled kernels' threads;
    False, with nothing written, where that cannot be done now (no compiled kernels, still loading, a child forked
    after threads started, threads off: :func:`_in_turn` then makes the same calls one after another).

    The longer side of ``out`` is cut: blocks of rows when it has at least as many rows as columns, else
    blocks of columns. In a training step that keeps each thread on the memory it touches next. A layer's
    output (batch rows, more units) is cut by columns, so each thread reads only its columns of the
    weights. A weight's gradient (input features by units) is mostly as tall as wide or taller, so it is cut
    by rows, and each thread writes the rows that the same thread updates next: an optimizer's step shares
    a weight's elements out by these row cuts (:func:`thread_parts`). Measured, 2-core EPYC VM, compiled
    AdamW step of the 784-256-10 MLP (batch 64): 573 us cutting every product by columns, 542 cutting the
    longer side; 784-512-512-10 (batch 128): 3.20 ms and 3.09 ms."""
    if threading.current_thread() is not _main or not _native.threads_on():
        return False
    if not _native.enabled() or not _native.ready(exact=True) or not _native.parallel():
        return False
    kernels = _native.kernels()
    if not kernels.header_ok() or kernels.threads() < 2:
        return False
    if not kernels.gemm_split(blocks.gemm, out, id(a), id(b), blocks.k, blocks.rows, blocks.cols):
        return False  # (the kernel's own check of the strides disagreed: _in_turn computes the same blocks)
    stats["split"] += 1
    return True


def _in_turn(a, b, out, blocks: _Blocks) -> None:
    """``out[...] = a @ b`` as the one-thread BLAS calls of ``blocks`` made one after another on the calling
    thread: the very calls :func:`_split` spreads over threads, so the same bits."""
    gemm, size = blocks.gemm, out.itemsize
    pa, pb, pc = a.ctypes.data, b.ctypes.data, out.ctypes.data
    n, k = out.shape[1], blocks.k
    if blocks.cols is _NO_CUTS:
        sa0, so0 = a.strides[0], out.strides[0]
        edges = blocks.rows.tolist()
        for r0, r1 in zip(edges[:-1], edges[1:]):
            gemm(_ROW_MAJOR, blocks.ta, blocks.tb, r1 - r0, n, k, 1.0, pa + r0 * sa0, blocks.lda, pb, blocks.ldb, 0.0,
                 pc + r0 * so0, blocks.ldc)
    else:
        m, sb1 = out.shape[0], b.strides[1]
        edges = blocks.cols.tolist()
        for c0, c1 in zip(edges[:-1], edges[1:]):
            gemm(_ROW_MAJOR, blocks.ta, blocks.tb, m, c1 - c0, k, 1.0, pa, blocks.lda, pb + c0 * sb1, blocks.ldb, 0.0,
                 pc + c0 * size, blocks.ldc)
    stats["in_turn"] += 1


_deterministic = False  # set_deterministic: blocks follow the shape alone


def set_deterministic(flag: bool) -> bool:
    """Cut large products by their shape alone (True: results that do not depend on the thread count, what
    ``descend.config.experimental.enable_op_determinism`` turns on) or into as many blocks as the thread budget
    (False, the default: the fastest cut here; the last bits may depend on the thread count); returns the
    previous setting.

    Example:
        >>> from descend._native import blas
        >>> previous = blas.set_deterministic(True)
        >>> blas.parts_for(1024, 1024, 1024)  # 2**30 multiply-adds: 16 blocks on any machine
        16
        >>> _ = blas.set_deterministic(previous)
    """
    global _deterministic
    if not isinstance(flag, bool):
        raise TypeError(f"set_deterministic: expected True or False. Received: {flag!r}")
    previous, _deterministic = _deterministic, flag
    return previous


def deterministic() -> bool:
    """Whether products are cut by their shape alone (see :func:`set_deterministic`)."""
    return _deterministic


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
    """``np.matmul(a, b, out=out)`` for 2-D ``a`` and ``b``: a small product on one BLAS thread; a large one as the
    one-thread calls of its blocks, shared by the cores when one is free, or (by default, where that was measured
    faster: :func:`way`) as one call on OpenBLAS's own threads (see the module docstring)."""
    libs = _pools if _pools is not None else pools()
    if libs:
        main = threading.get_ident() == _main.ident  # (current_thread() is _main, without its Python call)
        if main:
            _take_over(libs)
        if _found is not None and a.ndim == 2 and b.ndim == 2 and a.shape[0] * a.shape[1] * b.shape[1] >= PARALLEL_FROM:
            way = None if _deterministic else _ways.get(_key(a, b, out))
            blocks = None if way == "threaded" else _blocks(a, b, out)  # (not needed on OpenBLAS's threads)
            if way is None and not _deterministic:
                way = _way_of(a, b, out, blocks, main, libs)
            if way == "threaded":
                if main:
                    _threaded(a, b, out, libs)
                else:  # (a thread other than the main one never changes the BLAS's thread count)
                    with _count_lock:
                        np.matmul(a, b, out=out)
                return
            if blocks is not None:
                if main:
                    if not _split(a, b, out, blocks):
                        _in_turn(a, b, out, blocks)
                else:
                    with _count_lock:
                        _in_turn(a, b, out, blocks)
                return
        if not main:  # (not while the main thread has the BLAS on more threads than one)
            with _count_lock:
                np.matmul(a, b, out=out)
            return
    np.matmul(a, b, out=out)


# ---------------------------------------------------------------------------------------------- OpenBLAS's threads
#: how many times each way is timed, in turns, when a product of a new kind is first made in the default mode
WAY_TRIALS = 5
#: how many times faster (median) OpenBLAS's threads must be in a way trial to be kept (:func:`prefers_blas_threads`).
#: Only a product descend does not cut into blocks itself (float64, other strides) is tried: one that it cuts runs
#: as its blocks, untried. A trial times the product alone, and inside a training step a product on OpenBLAS's
#: threads was slower than descend's blocks where the trial had found it faster, even 1.5 times faster (measured on
#: the 2-core EPYC VM, quiet, the kinds the trial gave OpenBLAS's threads against blocks only: the 784-512-512-10
#: MLP's compiled step 4.0-5.2 ms against 3.2-3.3 ms, its eager step 5.3-6.0 against 3.8 ms, a small MLP's fit
#: 3.8-4.9 against 3.0-3.8 ms a step).
WAY_MARGIN = 1.25
_ways: dict = {}  # (m, k, n, dtype, layout of a, of b, threads) -> "threaded" | "blocks" | "whole"
#: held while the main thread has the BLAS on more threads than one, and by descend's products in other threads
_count_lock = threading.Lock()


def _threads_for(m: int, k: int, n: int) -> int:
    """The threads OpenBLAS gets for a product taken to its own threads (the default mode's :func:`parts_for`)."""
    return parts_for(m, k, n)


def _key(a, b, out) -> tuple:
    m, k = a.shape
    n = b.shape[1]
    return (m, k, n, out.dtype.char, a.strides, b.strides, out.strides, _threads_for(m, k, n))


def _threaded(a, b, out, libs, note: bool = True) -> None:
    """``np.matmul(a, b, out=out)`` on OpenBLAS's own threads (as many as the default mode's :func:`parts_for`), the
    BLAS pool set back to one thread after it (only the main thread does this: see the module docstring). Unless
    ``note`` is False (a trial of :func:`_faster_on_blas_threads`), descend's threads then keep off the cores while
    OpenBLAS's workers spin (:func:`descend._native.blas_threads_used`)."""
    m, k = a.shape
    threads = _threads_for(m, k, b.shape[1])
    with _count_lock:
        for _, put in libs:
            put(threads)
        try:
            np.matmul(a, b, out=out)
        finally:
            for _, put in libs:
                put(1)
            if note:
                _native.blas_threads_used()  # (its workers spin a while now: descend's threads keep off the cores)
    stats["threaded"] += 1


def prefers_blas_threads(ours: list, threaded: list) -> bool:
    """The verdict of a way trial: whether the calls on OpenBLAS's threads (``threaded``, seconds) beat descend's way
    (``ours``) clearly enough to keep them for the rest of the process: their median at least :data:`WAY_MARGIN`
    times faster. A median, not the best call: on a busy machine a call on OpenBLAS's threads may be fast once and
    then wait a scheduler slice for a core on most calls (measured, a 784-256-10 MLP step at load 3-5: 10-50 times
    slower in processes that had kept OpenBLAS's threads, whose trial had seen one fast call); descend's blocks
    never wait for a core (they run in turn on the calling thread when none is free).

    Example:
        >>> from descend._native import blas
        >>> blas.prefers_blas_threads([1.0, 1.0, 1.0], [0.5, 0.6, 0.7])
        True
        >>> blas.prefers_blas_threads([1.0, 1.0, 1.0], [0.1, 2.0, 2.0])  # one fast call is not enough
        False
    """
    return float(np.median(threaded)) * WAY_MARGIN < float(np.median(ours))


def _faster_on_blas_threads(a, b, out, libs) -> bool:
    """Whether one call on OpenBLAS's threads computes ``a @ b`` (a product descend does not cut into blocks)
    faster than one one-thread call, timed :data:`WAY_TRIALS` times each into a scratch array (``out`` and the
    operands are not written) and judged by :func:`prefers_blas_threads`; never while the other processes leave no
    core idle (:func:`descend._native.idle_core`: the trial would see the calls on OpenBLAS's threads at their
    luckiest). The one-thread calls first; the trial calls on OpenBLAS's threads leave no mark of spinning workers
    (where the one call wins, no product of this kind will make OpenBLAS's workers spin)."""
    import time

    if not _native.idle_core():
        return False
    scratch = np.empty_like(out)
    seconds: dict = {True: [], False: []}
    for threaded in (False, True):
        for _ in range(WAY_TRIALS):
            start = time.perf_counter()
            if threaded:
                _threaded(a, b, scratch, libs, note=False)
            else:
                np.matmul(a, b, out=scratch)
            seconds[threaded].append(time.perf_counter() - start)
    return prefers_blas_threads(seconds[False], seconds[True])


def _way_of(a, b, out, blocks, main: bool, libs) -> str:
    """How the default mode computes this large product: the way found for its kind (shape, dtype, strides, threads)
    the first time the main thread made one, measured then (:func:`_faster_on_blas_threads`) and kept for the rest
    of the process, so every later product of the kind, eager or in a plan, is computed the same way."""
    key = _key(a, b, out)
    found = _ways.get(key)
    if found is None:
        if not main or _threads_for(key[0], key[1], key[2]) < 2 or not isinstance(out, np.ndarray) \
                or out.dtype not in (np.dtype(np.float32), np.dtype(np.float64)):
            return "blocks" if blocks is not None else "whole"
        if blocks is not None:  # (descend shares it between the cores itself: see WAY_MARGIN)
            found = "blocks"
        else:
            found = "threaded" if _faster_on_blas_threads(a, b, out, libs) else "whole"
        if len(_ways) > 4096:
            _ways.clear()
        _ways[key] = found
    return found


def way(m: int, k: int, n: int, dtype=np.float32) -> str | None:
    """How the default mode computes C-contiguous ``(m, k) @ (k, n)`` products of ``dtype`` in this process:
    ``"threaded"`` (one call on OpenBLAS's own threads), ``"blocks"`` (one-thread calls of its blocks),
    ``"whole"`` (one one-thread call), or None while no such product was made (or it is too small to ask).

    Example:
        >>> import numpy as np
        >>> from descend._native import blas
        >>> blas.way(3, 3, 3) is None
        True
    """
    size = np.dtype(dtype).itemsize
    return _ways.get((m, k, n, np.dtype(dtype).char, (k * size, size), (n * size, size), (n * size, size),
                      _threads_for(m, k, n)))


def clear_ways() -> None:
    """Forget the ways found (:func:`way`): each kind of product is timed again when next made. Products made
    after this may differ in the last bits from the same products made before it (default mode only)."""
    _ways.clear()


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


def matmul(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``np.matmul(a, b)`` on one BLAS thread (a large product as its blocks), into ``out`` when given (the same
    bits), else into a reused output when one is free (see the module docs); 2-D products run through
    :func:`matmul_into`."""
    if a.ndim == 2 and b.ndim == 2:
        if out is None:
            dtype = a.dtype if a.dtype is b.dtype else np.result_type(a.dtype, b.dtype)
            shape = (a.shape[0], b.shape[1])
            out = _output(shape, dtype)
            if out is None:
                out = np.empty(shape, dtype)
        matmul_into(a, b, out)
        return out
    libs = _pools if _pools is not None else pools()
    if libs:
        if threading.current_thread() is _main:
            _take_over(libs)
        else:
            with _count_lock:
                return np.matmul(a, b, out=out)
    return np.matmul(a, b, out=out)
    return np.matmul(a, b)
