"""NumPy's BLAS libraries and their thread counts, found with ``threadpoolctl``; nothing here imports the rest of
:mod:`descend._native` (which asks :func:`blas_threaded` whether its kernels may use threads, and whose
:mod:`.blas` sets the BLAS's threads through :func:`find`)."""

from __future__ import annotations

import os

__all__ = ["blas_threaded", "find"]

_found: tuple | None = None  # (get, set) of each BLAS library's thread count, found on first use


def find() -> tuple:
    """``(get, set)`` thread-count functions of each BLAS library in this process, found with
    ``threadpoolctl`` on first use (empty without it)."""
    global _found
    if _found is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # not installed: NumPy's BLAS keeps its own thread count
            _found = ()
        else:
            try:
                found = ThreadpoolController().select(user_api="blas").lib_controllers
            except Exception:  # a library threadpoolctl cannot query: leave BLAS as it is  # pragma: no cover
                found = []
            _found = tuple(_counter(c) for c in found if c.get_num_threads() is not None)
    return _found


def _cores() -> int:
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return max(os.cpu_count() or 1, 1)


_threaded: bool | None = None


def blas_threaded() -> bool:
    """Whether NumPy's BLAS may run on several threads of its own beside descend's kernels: descend found no
    BLAS library whose threads it can set (:func:`find` is empty: ``threadpoolctl`` is not importable, say
    after a ``--no-deps`` install, or it knows no such library here), and neither the environment
    (``OPENBLAS_NUM_THREADS``, ``GOTO_NUM_THREADS``, ``MKL_NUM_THREADS``, ``OMP_NUM_THREADS``, the first one
    set) nor the process's CPU affinity holds it to one thread. The compiled kernels then run on one thread
    (:func:`descend._native.serial`): two thread pools that both spin for the cores fight (measured, eager MLP
    step: 1.3 ms with one pool, 8.8 ms with both). Found once per process."""
    global _threaded
    if _threaded is None:
        if find():
            _threaded = False  # descend._native.blas holds the BLAS on one thread from its first product
        else:
            names = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
            pinned = next((os.environ[k].strip() for k in names if os.environ.get(k, "").strip()), "")
            _threaded = pinned.split(",")[0] != "1" and _cores() > 1
    return _threaded


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
