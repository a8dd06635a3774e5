"""Rows whose sums show the order of their adds in their last bits, for the tests of the row reductions."""

from __future__ import annotations

import numpy as np

_RNG = np.random.default_rng(7)


def wide(shape, dtype):
    """Values over seven decades, so that the order of a sum's adds shows in its last bits."""
    return (_RNG.standard_normal(shape) * 10.0 ** _RNG.integers(-3, 4, shape)).astype(dtype)


def with_value(value, every: int = 5):
    """A maker of :func:`wide` rows with ``value`` (an infinity, a NaN) at every ``every``-th element."""
    def make(shape, dtype):
        x = wide(shape, dtype)
        x.reshape(-1)[::every] = value
        return x
    return make
