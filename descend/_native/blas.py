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

Example:
    >>> import numpy as np
    >>> from descend._native import blas
    >>> a = np.ones((4, 3), np.float32)
    >>> blas.matmul(a, a.T)[0]
    array([3., 3., 3., 3.], dtype=float32)
"""

from __future__ import annotations

import threading

import numpy as np

__all__ = ["SINGLE_THREAD_BELOW", "matmul", "pools"]

#: products of fewer multiply-adds than this (per matrix of a batch) run on one BLAS thread
SINGLE_THREAD_BELOW = 2**24

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


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.matmul(a, b)``, on one BLAS thread when the product is small (see the module docs)."""
    if a.shape[-2] * a.shape[-1] * b.shape[-1] >= SINGLE_THREAD_BELOW or threading.current_thread() is not _main:
        return np.matmul(a, b)
    libs = _pools if _pools is not None else pools()
    lowered = []
    try:
        for get, put in libs:
            n = get()
            if n > 1:
                put(1)
                lowered.append((put, n))
        return np.matmul(a, b)
    finally:
        for put, n in lowered:
            put(n)
