"""NumPy's ufunc loops called from compiled kernels (``descend/_native/numpy_loops.py``): the ufunc's bits, or no loop."""

from __future__ import annotations

import numpy as np
import pytest

from descend._native import numpy_loops


def _call(loop, x):
    out = np.empty_like(x)
    words = np.empty(numpy_loops.CALL_WORDS, np.int64)
    words[:] = (x.ctypes.data, out.ctypes.data, x.size, x.itemsize, x.itemsize)
    at = words.ctypes.data
    assert loop.function(loop.context, at, at + 16, at + 24, loop.auxdata) == 0
    return out


@pytest.mark.parametrize("ufunc", [np.exp, np.tanh])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_loop_gives_the_ufuncs_bits_on_random_bit_patterns(ufunc, dtype):
    loop = numpy_loops.strided_loop(ufunc, dtype)
    if loop is None:
        pytest.skip("this NumPy hands out no loop (the kernels' callers take their NumPy paths)")
    itype = np.uint32 if dtype == np.float32 else np.uint64
    rng = np.random.default_rng(5)
    x = rng.integers(0, np.iinfo(itype).max, 1 << 18, dtype=itype, endpoint=True).view(dtype)
    x = np.concatenate([x, np.linspace(-40, 40, 100_001).astype(dtype)])
    with np.errstate(all="ignore"):
        assert _call(loop, x).tobytes() == ufunc(x).tobytes()


def test_a_loop_is_found_once_and_kept():
    assert numpy_loops.strided_loop(np.exp, np.float32) is numpy_loops.strided_loop(np.exp, np.float32)


class _NoLowLevelAccess:
    """A ufunc of a NumPy without ``_resolve_dtypes_and_context``."""

    def __call__(self, x):
        return np.exp(x)


class _OtherBits:
    """A ufunc whose loop is NumPy's ``exp`` but whose result is not (as if the loop had another layout)."""

    def __init__(self):
        self._resolve_dtypes_and_context = np.exp._resolve_dtypes_and_context
        self._get_strided_loop = np.exp._get_strided_loop

    def __call__(self, x):
        return np.exp(x) * 2


@pytest.mark.parametrize("ufunc", [_NoLowLevelAccess(), _OtherBits()], ids=["no access", "other bits"])
def test_no_loop_where_numpy_hands_none_out_or_its_bits_differ(ufunc):
    assert numpy_loops.strided_loop(ufunc, np.float32) is None


@pytest.mark.parametrize("ufunc, dtype", [(np.add, np.float32), (np.exp, np.int32), (np.exp, np.complex64),
                                          (np.isnan, np.float32), (np.exp, np.float16)])
def test_no_loop_for_another_arity_or_dtype(ufunc, dtype):
    """Two inputs, an integer or complex dtype, a bool result: no loop (a kernel's caller takes its NumPy path);
    float16 either gives the ufunc's bits or none."""
    loop = numpy_loops.strided_loop(ufunc, dtype)
    if np.dtype(dtype) == np.float16 and loop is not None:
        x = np.linspace(-10, 10, 1001).astype(np.float16)
        assert _call(loop, x).tobytes() == ufunc(x).tobytes()
    else:
        assert loop is None
