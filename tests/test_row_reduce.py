"""Reductions over the last axis of short rows (``descend.ops.row_reduce``): the row kernels give NumPy's bits, or
hand the rows back to NumPy; the eager ops and the compiled plan both reduce through them."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend._native import backend as kb
from descend._native import cpu as _cpu  # noqa: F401 - registers numba's backend, whose row kernels these are
from descend.ops.row_reduce import MAX_ROW, reduce_last

from row_values import wide, with_value


def _signed_zeros(shape, dtype):
    x = wide(shape, dtype)
    x[..., ::2] = -0.0
    x[..., 1::2] = 0.0 if shape[-1] > 1 else -0.0
    return x


#: name -> (shape, make): rows of every length class NumPy's pairwise sum has (under 8, a multiple of 8 and not, over
#: 128 by the split), the values the kernels must hand back (infinities, NaN, maxima of zero)
CASES = {
    "one element": ((7, 1), wide),
    "under eight": ((33, 5), wide),
    "eight": ((9, 8), wide),
    "a multiple of eight": ((4096 // 32, 32), wide),
    "eight and a rest": ((50, 29), wide),
    "a sequence's softmax rows": ((2, 4, 32, 32), wide),
    "the longest row": ((6, MAX_ROW), wide),
    "longer than the kernels take": ((3, 700), wide),
    "signed zeros": ((10, 12), _signed_zeros),
    "an infinity": ((10, 12), with_value(np.inf)),
    "a NaN": ((10, 12), with_value(np.nan)),
    "all negative": ((10, 12), lambda s, d: -np.abs(wide(s, d)) - 1),
}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.parametrize("ufunc", [np.add, np.maximum], ids=["sum", "max"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_the_row_reductions_give_numpys_bits(name, dtype, ufunc, keepdims):
    shape, make = CASES[name]
    x = make(shape, dtype)
    want = ufunc.reduce(x, axis=-1, keepdims=keepdims)
    got = reduce_last(ufunc, x, keepdims)
    assert got.dtype == want.dtype and got.shape == want.shape
    assert got.tobytes() == want.tobytes()
    out = np.full(want.shape, 7, dtype)  # into a buffer, as a compiled plan calls it
    assert reduce_last(ufunc, x, keepdims, out=out) is out
    assert out.tobytes() == want.tobytes()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_the_kernels_take_short_rows_and_hand_back_what_numpy_decides(dtype):
    row_sum, row_max = kb.row_kernels(dtype)[:2]
    x = wide((64, 40), dtype)
    out = np.empty(64, dtype)
    assert row_sum(x, out) and row_max(x, out)  # finite rows with non-zero maxima: the kernels' own result
    for value in (np.inf, -np.inf, np.nan):
        y = x.copy()
        y[3, 7] = value
        assert not row_sum(y, out)  # which NaN NumPy gives depends on its vector loops: NumPy's
    y = -np.abs(x)
    y[5, :] = 0.0
    assert not row_max(y, out)  # a maximum of zero: which zero (+0 or -0) is NumPy's to say


def test_strided_integer_and_half_inputs_are_numpys_reductions():
    x = wide((6, 40), np.float32)
    for y, ufunc in ((x[:, ::2], np.add), (x.T, np.maximum), (x.astype(np.float16), np.add),
                     (np.arange(24, dtype=np.int32).reshape(4, 6), np.add)):
        assert reduce_last(ufunc, y, False).tobytes() == ufunc.reduce(y, axis=-1).tobytes()


def test_the_eager_ops_and_the_compiled_step_give_the_same_bits():
    x = ds.constant(wide((3, 4, 16, 24), np.float32))

    def f(t):
        return (ds.nn.softmax(t), ds.nn.log_softmax(t), ds.reduce_sum(t, axis=-1), ds.reduce_max(t, axis=3),
                ds.reduce_mean(t, axis=-1, keepdims=True))

    eager = f(x)
    compiled = ds.function(f)(x)
    for e, c, want in zip(eager, compiled, (None, None, np.add.reduce(x.numpy(), axis=-1),
                                            np.maximum.reduce(x.numpy(), axis=-1), None)):
        assert e.numpy().tobytes() == c.numpy().tobytes()
        if want is not None:
            assert e.numpy().tobytes() == want.tobytes()
