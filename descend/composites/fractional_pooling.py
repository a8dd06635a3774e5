"""``tf.nn.fractional_max_pool`` / ``fractional_avg_pool``: pooling by a non-integer ratio (Graham, 2014).

Along each spatial axis an input of length ``n`` gives ``m = floor(n / ratio)`` outputs over the pooling
sequence ``0 = a_0 < a_1 < ... < a_m = n`` whose steps are ``floor(n/m)`` or ``floor(n/m) + 1`` (all
``n/m`` when ``m`` divides ``n``). ``pseudo_random=False`` places the longer steps at random (a shuffle);
``pseudo_random=True`` takes ``a_i = ceil(alpha (i + u)) - ceil(alpha u)`` for one uniform ``u`` (``alpha =
n/m``) drawn in the range that keeps every step in ``{floor(alpha), floor(alpha) + 1}``. Output ``i`` pools the
rows ``a_i .. a_(i+1) - 1`` (``overlapping=False``) or ``a_i .. a_(i+1)`` (``overlapping=True``, clipped to the
input). The functions return ``(output, row_pooling_sequence, col_pooling_sequence)`` (int64), as TF.

The draws come from ``descend.random.uniform`` (``seed=0`` means unseeded, as TF's); they are not TF's numbers:
given the same sequences the outputs and gradients are TF's (tests/test_nn_fractional.py checks them against
TF's with TF's own sequences). The pooling is a gather of each window (padded to the longest) and a max or a
mean, so the gradient of the max goes to each window's maximum and that of the mean is spread over the window.

Example:
    >>> import descend as ds, numpy as np
    >>> y, rows, cols = ds.nn.fractional_max_pool(np.arange(25.0).reshape(1, 5, 5, 1), [1.0, 1.6, 1.6, 1.0], seed=3)
    >>> y.shape, rows.numpy()[[0, -1]].tolist()
    (TensorShape([1, 3, 3, 1]), [0, 5])
"""

from __future__ import annotations

import math

import numpy as np

from .. import random as _random
from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import array_ops, math_ops

__all__ = ["fractional_max_pool", "fractional_avg_pool"]


def _ratios(pooling_ratio, owner: str) -> tuple:
    r = np.atleast_1d(np.asarray(pooling_ratio, dtype=np.float64))
    if r.size == 1:
        r = np.array([1.0, r[0], r[0], 1.0])
    elif r.size == 2:
        r = np.array([1.0, r[0], r[1], 1.0])
    if r.size != 4 or r[0] != 1.0 or r[3] != 1.0 or np.any(r[1:3] < 1.0) or not np.all(np.isfinite(r)):
        raise ValueError(f"{owner}: pooling_ratio must be >= 1.0 on the spatial axes and 1.0 on the batch and channel "
                         f"axes ([1.0, r_h, r_w, 1.0], or 1 or 2 spatial ratios). Received {pooling_ratio!r}")
    return float(r[1]), float(r[2])


def _sequence(n: int, m: int, pseudo_random: bool, seed, owner: str) -> np.ndarray:
    if m < 1:
        raise ValueError(f"{owner}: the pooling ratio leaves no output along an axis of length {n}")
    k = n // m
    if n % m == 0:
        steps = np.full(m, k, np.int64)
    elif pseudo_random:
        alpha = n / m
        # u in [0, max_u) keeps every ceil(alpha (i + u)) - ceil(alpha (i - 1 + u)) in {k, k + 1}
        max_u = min((k + 2) / alpha - 1, (n + 1 - k) / alpha - (m - 1))
        u = float(_random.uniform((), dtype="float64", seed=seed).numpy()) * max_u
        cum = np.array([1] + [math.ceil(alpha * (i + u)) for i in range(1, m)] + [n + 1], np.int64)
        steps = np.diff(cum)
    else:
        steps = np.full(m, k, np.int64)
        steps[:n % m] += 1
        order = np.argsort(_random.uniform((m,), dtype="float64", seed=seed).numpy(), kind="stable")
        steps = steps[order]  # the longer steps at random places
    return np.concatenate([[0], np.cumsum(steps)]).astype(np.int64)


def _windows(seq: np.ndarray, n: int, overlapping: bool):
    """``(index [m, L], valid [m, L])``: the rows of each window, padded to the longest with row 0."""
    starts = seq[:-1]
    ends = np.minimum(seq[1:] + (1 if overlapping else 0), n)  # exclusive
    width = int((ends - starts).max())
    index = starts[:, None] + np.arange(width)[None, :]
    valid = index < ends[:, None]
    return np.where(valid, index, 0), valid


def pool_with_sequences(value, row_seq, col_seq, overlapping: bool, kind: str) -> Tensor:
    """``kind`` ("max" or "avg") pooling of ``value`` (NHWC) over the given pooling sequences."""
    x = convert_to_tensor(value)
    n, h, w, c = x.shape
    ri, rv = _windows(np.asarray(row_seq), h, overlapping)
    ci, cv = _windows(np.asarray(col_seq), w, overlapping)
    rows = array_ops.gather(x, ri, axis=1)  # (N, mr, Lr, W, C)
    patches = array_ops.gather(rows, ci, axis=3)  # (N, mr, Lr, mc, Lc, C)
    valid = (rv[:, :, None, None] & cv[None, None, :, :])[None, :, :, :, :, None]
    if kind == "max":
        low = Tensor(np.full((1,) * 6, -np.inf, x.dtype.name))
        return math_ops.reduce_max(math_ops.where(Tensor(valid), patches, low), axis=(2, 4))
    total = math_ops.reduce_sum(math_ops.multiply(patches, Tensor(valid.astype(x.dtype.name))), axis=(2, 4))
    count = rv.sum(axis=1)[:, None] * cv.sum(axis=1)[None, :]
    return math_ops.divide(total, Tensor(count[None, :, :, None].astype(x.dtype.name)))


def _fractional(kind, value, pooling_ratio, pseudo_random, overlapping, seed, owner):
    x = convert_to_tensor(value)
    if x.ndim != 4:
        raise ValueError(f"{owner}: value must be a 4-D NHWC tensor. Received shape {tuple(x.shape)}")
    if x.dtype.kind != "f":
        raise TypeError(f"{owner}: value must be a float tensor. Received dtype {x.dtype.name}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{owner}: seed must be an int (0: unseeded). Received {seed!r}")
    rh, rw = _ratios(pooling_ratio, owner)
    op_seed = None if seed == 0 else int(seed)
    _, h, w, _ = x.shape
    rows = _sequence(h, int(math.floor(h / rh)), bool(pseudo_random), op_seed, owner)
    cols = _sequence(w, int(math.floor(w / rw)), bool(pseudo_random), op_seed, owner)
    return pool_with_sequences(x, rows, cols, bool(overlapping), kind), Tensor(rows), Tensor(cols)


def fractional_max_pool(value, pooling_ratio, pseudo_random: bool = False, overlapping: bool = False, seed: int = 0,
                        name=None):
    """Fractional max pooling of an NHWC ``value`` (``tf.nn.fractional_max_pool``).

    Args:
        value: ``[batch, height, width, channels]`` floats.
        pooling_ratio: ``[1.0, r_h, r_w, 1.0]`` (or one or two spatial ratios), each >= 1.
        pseudo_random: the pseudo-random sequences (see the module's notes) instead of random ones.
        overlapping: each window also takes the next window's first row/column.
        seed: 0 for an unseeded draw, else the op seed.

    Returns:
        ``(output, row_pooling_sequence, col_pooling_sequence)``.
    """
    return _fractional("max", value, pooling_ratio, pseudo_random, overlapping, seed, "fractional_max_pool")


def fractional_avg_pool(value, pooling_ratio, pseudo_random: bool = False, overlapping: bool = False, seed: int = 0,
                        name=None):
    """Fractional average pooling of an NHWC ``value`` (``tf.nn.fractional_avg_pool``); arguments and results as
    :func:`fractional_max_pool`."""
    return _fractional("avg", value, pooling_ratio, pseudo_random, overlapping, seed, "fractional_avg_pool")
