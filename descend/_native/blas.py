"""BLAS threads per call: small matrix products run on the calling thread alone.

NumPy's BLAS (OpenBLAS in NumPy's wheels) splits every matrix product over
its thread pool. For a small product that buys little on a quiet machine and
costs a great deal on a busy one: the product waits for its slowest thread,
and a worker that has to wait for a core that another process holds stalls
it for a whole scheduler time slice. Measured on a 2-core Xeon with two
CPU-bound processes running beside it, float32: ``(128, 512) @ (512, 10)``
28 us on one thread, 13.5 ms on two; ``(784, 128) @ (128, 512)`` 1.1 ms on
one thread, 11 ms on two. On a quiet machine two threads save 30-45% of the
products at and above about 2**24 multiply-adds, less below.

:func:`matmul` is ``np.matmul`` that, for a product of fewer than
:data:`SINGLE_THREAD_BELOW` multiply-adds per matrix, lowers the BLAS pool
to one thread for the call (through ``threadpoolctl``) and restores the count
it found, so a limit the user set (``threadpoolctl.threadpool_limits``, the
``OPENBLAS_NUM_THREADS`` variable) is kept for the larger products.

OpenBLAS's result depends on its thread count (it picks other kernels and
blockings: ``(64, 784) @ (784, 256)`` differs in the last bit in 3,250 of
16,384 elements between one thread and two). A small product is now what
one thread computes on any machine, whatever its core count, bit for bit
``np.matmul`` under ``threadpool_limits(1)``. Only the main thread changes the count (OpenBLAS's
pool is process-wide; two threads setting and restoring it would race), and
without ``threadpoolctl``, or with a BLAS it does not know, the products run
as NumPy runs them.

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

import sys
import threading
from collections import OrderedDict

import numpy as np

__all__ = ["REUSE_MAX_BYTES", "REUSE_MIN_BYTES", "REUSE_PER_SHAPE", "SINGLE_THREAD_BELOW", "clear_reuse", "matmul",
           "matmul_into_for", "pools"]

#: products of fewer multiply-adds than this (per matrix of a batch) run on one BLAS thread
SINGLE_THREAD_BELOW = 2**24
#: outputs of at least this many bytes come from the reuse pool
REUSE_MIN_BYTES = 1 << 16
#: arrays the pool keeps per (shape, dtype)
REUSE_PER_SHAPE = 3
#: bytes the pool keeps in all
REUSE_MAX_BYTES = 64 << 20

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


def _product(a, b):
    if a.ndim == 2 and b.ndim == 2:
        out = _output((a.shape[0], b.shape[1]), np.result_type(a.dtype, b.dtype))
        if out is not None:
            return np.matmul(a, b, out=out)
    return np.matmul(a, b)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)``, on one BLAS thread when the product is small, into a reused output when
    one is free (see the module docs)."""
    if a.shape[-2] * a.shape[-1] * b.shape[-1] >= SINGLE_THREAD_BELOW or threading.current_thread() is not _main:
        return _product(a, b)
    libs = _pools if _pools is not None else pools()
    lowered = []
    try:
        for get, put in libs:
            n = get()
            if n > 1:
                put(1)
                lowered.append((put, n))
        return _product(a, b)
    finally:
        for put, n in lowered:
            put(n)


def _into_single(a, b, out):
    if threading.current_thread() is not _main:
        np.matmul(a, b, out=out)
        return
    libs = _pools if _pools is not None else pools()
    lowered = []
    try:
        for get, put in libs:
            n = get()
            if n > 1:
                put(1)
                lowered.append((put, n))
        np.matmul(a, b, out=out)
    finally:
        for put, n in lowered:
            put(n)


def _into_all(a, b, out):
    np.matmul(a, b, out=out)


def matmul_into_for(m: int, k: int, n: int):
    """``f(a, b, out)``: ``np.matmul(a, b, out=out)`` for ``(m, k) @ (k, n)`` products, on the BLAS threads
    :func:`matmul` would use for that size (so it gives :func:`matmul`'s bits). A compiled plan picks it
    once per product."""
    return _into_single if m * k * n < SINGLE_THREAD_BELOW else _into_all
