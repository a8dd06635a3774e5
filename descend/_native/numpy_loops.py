"""NumPy's own loop of a one-input ufunc, as a C function a compiled kernel can call: the ufunc's bits, from inside it.

A kernel that fuses an elementwise ``exp`` or ``tanh`` into a loop of its own would give other bits than NumPy's
(NumPy's SIMD functions are not the C library's). :func:`strided_loop` hands out the very loop ``np.exp(x, out=y)``
runs on a contiguous float array, through NumPy's low-level access to its loops (``ufunc._resolve_dtypes_and_context``
and ``ufunc._get_strided_loop``, NumPy 1.24 on, documented as unstable across NumPy versions: where it is missing,
has another layout, or gives a single bit other than the ufunc's on a probe, there is no loop and the caller takes
its NumPy path). Measured on NumPy 2.4 (AVX-512), float32: the loops of ``exp`` and ``tanh`` give the ufuncs' bits
on all 2**32 inputs.

A kernel calls ``loop.function(loop.context, data, dimensions, strides, loop.auxdata)`` with the addresses of
``data`` (the input's and output's first elements), ``dimensions`` (the element count) and ``strides`` (their byte
strides), which the caller writes into a scratch ``int64`` array of :data:`CALL_WORDS` words. It returns 0. The
loop takes no lock and touches no Python object, so threads may call it at once.
"""

from __future__ import annotations

import ctypes
import threading
from typing import NamedTuple

import numpy as np

__all__ = ["CALL_WORDS", "LOOP_TYPE", "StridedLoop", "strided_loop"]

#: the C type of a NumPy strided loop: ``int (context, char **data, npy_intp *dimensions, npy_intp *strides, auxdata)``
LOOP_TYPE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                             ctypes.c_void_p)
#: the int64 words a call's arguments take in its scratch array: two data pointers, a count, two strides
CALL_WORDS = 5
_CAPSULE = b"numpy_1.24_ufunc_call_info"


class StridedLoop(NamedTuple):
    """A ufunc's loop for one dtype: ``function`` (a :data:`LOOP_TYPE`), its ``context`` and ``auxdata`` addresses,
    and the ``capsule`` that owns them (kept alive with the loop)."""

    function: object
    context: int
    auxdata: int
    capsule: object


_found: dict = {}
_lock = threading.Lock()


def strided_loop(ufunc, dtype) -> StridedLoop | None:
    """NumPy's loop of ``ufunc`` (one input, one output) for contiguous arrays of the float ``dtype``, or None where
    this NumPy does not hand it out as documented, the ufunc takes other inputs or another dtype, or the loop differs
    from the ufunc in any bit on a probe (found once per process).

    Example:
        >>> import numpy as np
        >>> from descend._native.numpy_loops import strided_loop
        >>> loop = strided_loop(np.exp, np.float32)
        >>> loop is None or loop.context != 0
        True
    """
    dtype = np.dtype(dtype)
    if dtype.kind != "f":  # (the kernels that call a loop are float ones; the probe's values are floats)
        return None
    key = (ufunc, dtype)
    if key not in _found:
        with _lock:
            if key not in _found:
                _found[key] = _find(ufunc, dtype)
    return _found[key]


def _find(ufunc, dtype):
    try:
        _, capsule = ufunc._resolve_dtypes_and_context((dtype, dtype))
        ufunc._get_strided_loop(capsule, fixed_strides=(dtype.itemsize, dtype.itemsize))
        get = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
            ("PyCapsule_GetPointer", ctypes.pythonapi))  # (a prototype of its own: ctypes.pythonapi's is shared)
        info = get(capsule, _CAPSULE)
        words = [ctypes.c_void_p.from_address(info + i * ctypes.sizeof(ctypes.c_void_p)).value for i in range(3)]
        requires_pyapi = ctypes.c_ubyte.from_address(info + 3 * ctypes.sizeof(ctypes.c_void_p)).value
    except Exception:  # noqa: BLE001 - another NumPy: no loop, the caller's NumPy path runs
        return None
    if not words[0] or requires_pyapi:
        return None
    loop = StridedLoop(LOOP_TYPE(words[0]), words[1] or 0, words[2] or 0, capsule)
    return loop if _same_as_ufunc(loop, ufunc, dtype) else None


def _probe(dtype) -> np.ndarray:
    """Inputs a loop must get right: signed zeros, infinities, NaN, the extremes, and values across the range."""
    info = np.finfo(dtype)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, info.max, -info.max, info.tiny, -info.tiny,
                        info.smallest_subnormal, 1.0, -1.0, 88.7, -87.3, 709.8, -745.1, 20.0, -20.0], dtype)
    rng = np.random.default_rng(11)
    spread = (rng.standard_normal(4099) * np.exp(rng.uniform(-12.0, 6.0, 4099))).astype(dtype)
    return np.concatenate([special, spread, np.linspace(-30.0, 30.0, 4001).astype(dtype)])


def _same_as_ufunc(loop: StridedLoop, ufunc, dtype) -> bool:
    x = _probe(dtype)
    out = np.empty_like(x)
    call = np.empty(CALL_WORDS, np.int64)
    call[:] = (x.ctypes.data, out.ctypes.data, x.size, dtype.itemsize, dtype.itemsize)
    address = call.ctypes.data
    word = call.itemsize
    if loop.function(loop.context, address, address + 2 * word, address + 3 * word, loop.auxdata) != 0:
        return False
    with np.errstate(all="ignore"):
        expected = ufunc(x)
    return out.tobytes() == expected.tobytes()
