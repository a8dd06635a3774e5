"""TensorFlow's seeding rules (global and operation seeds) and the draws that follow them (public as ``descend.random``)."""

from __future__ import annotations

import os
import threading

import numpy as np

from .. import backend
from ..framework import trace as _trace
from ..framework.tensor import ArrayLike, Tensor, to_array
from ..ops.random_draw import draw

__all__ = ["set_seed", "get_seed", "uniform", "normal", "truncated_normal", "shuffle", "categorical"]

DEFAULT_GRAPH_SEED = 87654321
_lock = threading.Lock()
_global_seed: int | None = None
_op_counter = 0
_streams: dict = {}  # (global seed, op seed) -> Generator, for explicit op seeds
_unseeded = np.random.default_rng()


def _reset_after_fork() -> None:
    # a fork while another thread drew numbers would leave the lock locked in the child
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def _check_seed(seed, what: str):
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"`{what}` must be None or an int. Received: {what}={seed!r}")
    return int(seed)


def set_seed(seed) -> None:
    """Set the global seed (None unsets it) and restart every op-level stream (as ``tf.random.set_seed``)."""
    global _global_seed, _op_counter
    seed = _check_seed(seed, "seed")
    with _lock:
        _global_seed = seed
        _op_counter = 0
        _streams.clear()


def get_seed(op_seed=None) -> tuple:
    """The ``(global, op)`` seed pair a draw with ``seed=op_seed`` uses (``tf.compat.v1.get_seed``).

    With a global seed and no op seed this takes the next op seed from the counter.
    """
    global _op_counter
    op_seed = _check_seed(op_seed, "seed")
    with _lock:
        if _global_seed is None:
            return (None, None) if op_seed is None else (DEFAULT_GRAPH_SEED, op_seed)
        if op_seed is None:
            _op_counter += 1
            return _global_seed, _op_counter
        return _global_seed, op_seed


def _generator(seed) -> np.random.Generator:
    explicit = seed is not None
    g, o = get_seed(seed)
    if g is None:
        from .._native.blas import deterministic

        if deterministic():  # (TF's get_seed: an unseeded draw cannot be repeated)
            raise RuntimeError("Random ops require a seed to be set when determinism is enabled "
                               "(descend.config.experimental.enable_op_determinism). Please set a seed before "
                               "running the op, e.g. by calling descend.random.set_seed(1), or give the op `seed`")
        return _unseeded
    entropy = [g % 2**63, o % 2**63]
    if not explicit:
        return np.random.default_rng(entropy)
    with _lock:
        rng = _streams.get((g, o))
        if rng is None:
            rng = _streams[(g, o)] = np.random.default_rng(entropy)
        return rng


def check_shape(shape) -> tuple:
    """``shape`` as a tuple of non-negative ints (a 1-D sequence or an int Tensor)."""
    try:
        arr = np.asarray(to_array(shape) if isinstance(shape, Tensor) else shape)
        dims = tuple(int(d) for d in arr.reshape(-1))
    except (TypeError, ValueError):
        raise TypeError(f"`shape` must be a 1-D sequence of non-negative ints. Received: shape={shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"`shape` must be a 1-D sequence of non-negative ints. Received: shape={dims}")
    return dims


def _value(x, what: str) -> np.ndarray:
    if isinstance(x, ArrayLike) and _trace.active:  # a bound computed inside descend.function: read as data
        _trace.host_read(x, "numpy")
    arr = np.asarray(to_array(x) if isinstance(x, Tensor) else x)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"`{what}` must be a number or a numeric Tensor. Received: {what}={x!r}")
    return arr


def _float_dtype(dtype, fn: str) -> np.dtype:
    d = backend.np_dtype(dtype)
    if d.kind != "f":
        raise ValueError(f"{fn}: `dtype` must be a floating dtype. Received: dtype={d.name}")
    return d


def uniform(shape, minval=0, maxval=None, dtype="float32", seed=None, name=None) -> Tensor:
    """Values drawn uniformly from ``[minval, maxval)``.

    Args:
        shape: the output shape.
        minval, maxval: bounds (numbers or Tensors broadcasting to ``shape``);
            ``maxval`` defaults to 1 for floats and is required for integers.
        dtype: a float or integer dtype (default float32).
        seed: the op seed (see the module's notes).
    """
    shape = check_shape(shape)
    d = backend.np_dtype(dtype)
    if d.kind in "iu" and maxval is None:
        raise ValueError(f"uniform: `maxval` must be given for integer dtype {d.name}")
    if d.kind not in "iuf":
        raise ValueError(f"uniform: `dtype` must be a float or integer dtype. Received: dtype={d.name}")
    return sample_uniform(_generator(seed), shape, minval, 1.0 if maxval is None else maxval, d, "uniform")


def normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None, name=None) -> Tensor:
    """Values drawn from a normal distribution ``N(mean, stddev**2)``."""
    shape = check_shape(shape)
    d = _float_dtype(dtype, "normal")
    return sample_normal(_generator(seed), shape, mean, stddev, d)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype="float32", seed=None, name=None) -> Tensor:
    """Normal values more than 2 standard deviations from the mean are drawn again (``tf.random.truncated_normal``)."""
    shape = check_shape(shape)
    d = _float_dtype(dtype, "truncated_normal")
    return sample_truncated_normal(_generator(seed), shape, mean, stddev, d)


def shuffle(value, seed=None, name=None) -> Tensor:
    """``value`` with its first dimension randomly permuted (``tf.random.shuffle``)."""
    value = value if isinstance(value, ArrayLike) else Tensor(np.asarray(to_array(value)))
    if value.ndim == 0:
        raise ValueError("shuffle: `value` must have at least one dimension. Received a scalar")
    rng = _generator(seed)
    return draw(value, fn=lambda arr: arr[rng.permutation(arr.shape[0])].copy())


def categorical(logits, num_samples: int, dtype=None, seed=None, name=None) -> Tensor:
    """Class indices drawn from ``softmax(logits)`` for each row: shape ``(batch, num_samples)``.

    Args:
        logits: a ``(batch, num_classes)`` float Tensor of unnormalized log-probabilities.
        num_samples: how many draws per row.
        dtype: int32 or int64 (default int64).
    """
    d = np.dtype(np.int64) if dtype is None else backend.np_dtype(dtype)
    if d not in (np.int32, np.int64):
        raise ValueError(f"categorical: `dtype` must be int32 or int64. Received: dtype={d.name}")
    return sample_categorical(_generator(seed), logits, num_samples, d)


# ---------------------------------------------------------------- the samplers
# Both seeding rules draw through these: TF's (above) and Keras 3's (descend.keras.random), each handing over the
# numpy Generator its rule selects. Values are drawn in float64 and then cast.
def sample_uniform(rng: np.random.Generator, shape: tuple, minval, maxval, d: np.dtype, fn: str) -> Tensor:
    """``shape`` values uniform in ``[minval, maxval)`` of the float or integer dtype ``d``."""
    if d.kind in "iu":
        lo, hi = _value(minval, "minval"), _value(maxval, "maxval")
        if np.any(lo >= hi):
            raise ValueError(f"{fn}: need minval < maxval. Received: minval={minval!r}, maxval={maxval!r}")
        return draw(fn=lambda: rng.integers(lo, hi, size=shape, dtype=np.int64).astype(d))
    lo = _value(minval, "minval").astype(np.float64)
    hi = _value(maxval, "maxval").astype(np.float64)
    return draw(fn=lambda: np.asarray(lo + (hi - lo) * rng.random(shape), dtype=d))


def sample_normal(rng: np.random.Generator, shape: tuple, mean, stddev, d: np.dtype) -> Tensor:
    """``shape`` values from ``N(mean, stddev**2)`` of the float dtype ``d``."""
    mu, sigma = _value(mean, "mean"), _value(stddev, "stddev")
    return draw(fn=lambda: np.asarray(mu + sigma * rng.standard_normal(shape), dtype=d))


def sample_truncated_normal(rng: np.random.Generator, shape: tuple, mean, stddev, d: np.dtype) -> Tensor:
    """As :func:`sample_normal`, with values beyond 2 standard deviations drawn again."""
    mu, sigma = _value(mean, "mean"), _value(stddev, "stddev")

    def truncated():
        z = rng.standard_normal(shape)
        bad = np.abs(z) > 2.0
        while bad.any():
            z[bad] = rng.standard_normal(int(bad.sum()))
            bad = np.abs(z) > 2.0
        return np.asarray(mu + sigma * z, dtype=d)

    return draw(fn=truncated)


def sample_categorical(rng: np.random.Generator, logits, num_samples, d: np.dtype) -> Tensor:
    """``(batch, num_samples)`` class ids of dtype ``d`` drawn from ``softmax`` of each row of ``logits``."""
    logits = logits if isinstance(logits, ArrayLike) else Tensor(np.asarray(logits, dtype=np.float64))
    if logits.ndim != 2:
        raise ValueError(f"categorical: `logits` must have shape (batch, num_classes). Received shape "
                         f"{tuple(logits.shape)}")
    if isinstance(num_samples, bool) or not isinstance(num_samples, (int, np.integer)) or num_samples < 0:
        raise ValueError(f"categorical: `num_samples` must be a non-negative int. Received: {num_samples!r}")

    def sample(arr):
        arr = np.asarray(arr, dtype=np.float64)
        p = np.exp(arr - arr.max(axis=1, keepdims=True))
        cdf = np.cumsum(p / p.sum(axis=1, keepdims=True), axis=1)
        u = rng.random((arr.shape[0], int(num_samples)))
        out = np.empty(u.shape, dtype=d)
        for i in range(arr.shape[0]):
            out[i] = np.minimum(np.searchsorted(cdf[i], u[i], side="right"), arr.shape[1] - 1)
        return out

    return draw(logits, fn=sample)
