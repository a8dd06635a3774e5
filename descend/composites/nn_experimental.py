"""``descend.nn.experimental`` (``tf.nn.experimental``): ``general_dropout`` and ``stateless_dropout``.

Both are inverted dropout, ``out = where(u >= rate, x * (1 / (1 - rate)), 0)`` with ``u`` uniform in [0, 1) of
``noise_shape`` (broadcast against ``x``; ``x``'s shape by default), the scale rounded to ``x``'s dtype as TF.
``general_dropout`` takes ``u`` from the caller's ``uniform_sampler(shape=..., dtype=...)``, so given the same
sampler its numbers are TF's. ``stateless_dropout`` draws ``u`` from a generator keyed by ``seed`` (two
integers) alone: the same seed gives the same mask on every call; the bits are not TF's Philox stream.

Example:
    >>> import descend as ds, numpy as np
    >>> sampler = lambda shape, dtype: np.array([0.1, 0.9, 0.6], dtype)
    >>> ds.nn.experimental.general_dropout(np.ones(3), 0.5, sampler).numpy().tolist()
    [0.0, 2.0, 2.0]
"""

from __future__ import annotations

import numbers

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import math_ops

__all__ = ["general_dropout", "stateless_dropout"]


def _noise_shape(shape: tuple, noise_shape, owner: str) -> tuple:
    if noise_shape is None:
        return tuple(shape)
    dims = list(noise_shape.numpy().tolist() if hasattr(noise_shape, "numpy") else noise_shape)
    if len(dims) == len(shape):
        dims = [d if n is None else n for n, d in zip(dims, shape)]
    ns = tuple(int(d) for d in dims)
    try:
        np.broadcast_shapes(ns, tuple(shape))
    except ValueError:
        raise ValueError(f"{owner}: noise_shape {ns} is not broadcastable to x's shape {tuple(shape)}") from None
    return ns


def _dropout(x, rate, noise_shape, sample, owner: str) -> Tensor:
    if isinstance(rate, bool) or not isinstance(rate, numbers.Real) or not 0 <= rate < 1:
        raise ValueError(f"{owner}: `rate` must be a float in the range [0, 1). Received: rate={rate!r}")
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        raise ValueError(f"{owner}: `x.dtype` must be a floating point tensor as `x` will be scaled. Received: "
                         f"x_dtype={x.dtype.name}")
    if rate == 0:
        return x
    ns = _noise_shape(x.shape, noise_shape, owner)
    u = np.asarray(sample(ns, x.dtype))
    scaled = math_ops.multiply(x, Tensor(np.asarray(1.0 / (1.0 - rate), x.dtype)))
    return math_ops.where(Tensor(u >= rate), scaled, math_ops.zeros_like(scaled))


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None) -> Tensor:
    """Dropout with the uniform numbers of ``uniform_sampler(shape=..., dtype=...)`` (``tf.nn.experimental.
    general_dropout``); ``rate`` a float in [0, 1)."""
    def sample(shape, dtype):
        u = uniform_sampler(shape=shape, dtype=dtype)
        return u.numpy() if hasattr(u, "numpy") else u

    return _dropout(x, rate, noise_shape, sample, "general_dropout")


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None) -> Tensor:
    """Dropout whose mask depends on ``seed`` (two integers) only (``tf.nn.experimental.stateless_dropout``)."""
    s = np.asarray(seed.numpy() if hasattr(seed, "numpy") else seed)
    if s.shape != (2,) or s.dtype.kind not in "iu":
        raise ValueError(f"stateless_dropout: `seed` must be a shape [2] integer tensor. Received {seed!r}")

    def sample(shape, dtype):
        rng = np.random.default_rng([int(v) % 2 ** 63 for v in s.tolist()] + [0x57A7E1E55])
        return rng.random(shape).astype(dtype)

    return _dropout(x, rate, noise_shape, sample, "stateless_dropout")
