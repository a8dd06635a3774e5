"""``descend.keras.random``: Keras 3's random functions (``keras.random``), with Keras 3's seeds.

Seeds (Keras 3's rules, which differ from TF's in :mod:`descend.random`):

* an ``int``: the draw is stateless, so the same seed gives the same values call after call;
* a :class:`SeedGenerator`: each draw uses its state and advances it, so calls differ and a new generator with
  the same seed repeats the sequence (``seed=s`` equals the first draw of ``SeedGenerator(s)``);
* ``None``: a global SeedGenerator, created from Python's ``random`` module; ``keras.utils.set_random_seed(s)``
  recreates it, so a program that sets the seed draws the same values when rerun.

The values come from NumPy's PCG64 seeded with the generator's state, not from TF's Philox: a seeded program is
reproducible with descend but draws other numbers than Keras. Shapes, dtypes (``floatx()`` by default, int32 for
``randint`` and ``categorical``), value ranges and error messages are Keras'.

Example:
    >>> import descend as ds
    >>> from descend.keras import random
    >>> a, b = random.normal((2,), seed=7), random.normal((2,), seed=7)
    >>> bool((a.numpy() == b.numpy()).all()), a.dtype.name
    (True, 'float32')
    >>> gen = random.SeedGenerator(7)
    >>> first, second = random.normal((2,), seed=gen), random.normal((2,), seed=gen)
    >>> bool((first.numpy() == a.numpy()).all()), bool((second.numpy() == a.numpy()).all())
    (True, False)
    >>> random.randint((3,), 0, 10, seed=1).dtype.name
    'int32'
"""

from __future__ import annotations

import os
import random as _py_random
import threading

import numpy as np

from .. import backend as _backend
from .. import random as _tf_random
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable
from ..nn import dropout as _nn_dropout
from ..ops import array_ops as _array_ops
from ..ops.random_draw import draw as _draw
from ..persistence.registry import register_builtins

__all__ = ["SeedGenerator", "normal", "uniform", "truncated_normal", "randint", "dropout", "shuffle", "categorical",
           "gamma", "beta", "binomial"]

_lock = threading.Lock()
_global: SeedGenerator | None = None


def _reset_after_fork() -> None:
    # a fork while another thread drew numbers would leave the lock locked in the child
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


class SeedGenerator:
    """A random state that advances with each draw (``keras.random.SeedGenerator``).

    Args:
        seed: an int; default a random one from Python's ``random`` module.
        name: the generator's name (its state Variable is ``<name>/seed_generator_state``).

    Attributes:
        state: a non-trainable int64 Variable ``[seed, counter]``; each draw reads it and adds 1 to the counter.
    """

    def __init__(self, seed=None, name=None, **kwargs):
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        if name is None:
            from ..framework.variable import unique_name
            name = unique_name("seed_generator")
        self.name = name
        self._initial_seed = seed
        if seed is None:
            seed = make_default_seed()
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self.state = Variable(np.array([int(seed), 0], np.int64), trainable=False,
                              name=f"{name}/seed_generator_state")

    def next(self, ordered: bool = True) -> np.ndarray:
        """The state to draw with now (a copy); the state moves on: ``[s, k] -> [s, k + 1]``, or, with
        ``ordered=False``, to ``(state + 1) * 5387 % 933199`` (Keras' rule for the global generator)."""
        with _lock:
            current = np.array(self.state.numpy(), dtype=np.int64)
            following = current + np.array([0, 1]) if ordered else (current + 1) * 5387 % 933199
            self.state.assign(following)
        return current

    def get_config(self) -> dict:
        return {"seed": self._initial_seed, "name": self.name}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self):
        return f"<SeedGenerator name={self.name!r} state={self.state.numpy().tolist()}>"


register_builtins("random", {"SeedGenerator": SeedGenerator})


def make_default_seed() -> int:
    """A seed from Python's ``random`` module (``random.seed`` makes it reproducible), as Keras."""
    return _py_random.randint(1, int(1e9))


def global_seed_generator() -> SeedGenerator:
    """The generator draws with ``seed=None`` use (created on first use)."""
    global _global
    with _lock:
        if _global is None:
            _global = SeedGenerator(name="global_seed_generator")
        return _global


def reset_global_seed_generator() -> None:
    """Forget the global generator; the next unseeded draw makes a new one from Python's ``random``
    (``keras.utils.set_random_seed`` calls this after seeding ``random``)."""
    global _global
    with _lock:
        _global = None


def _rng(seed) -> np.random.Generator:
    """The NumPy generator a draw with ``seed`` uses (Keras 3's rules, see the module notes)."""
    if isinstance(seed, SeedGenerator):
        state = seed.next()
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        state = np.array([int(seed), 0])
    elif seed is None:
        state = global_seed_generator().next(ordered=False)
    else:
        raise ValueError("Argument `seed` must be either an integer or an instance of `SeedGenerator`. "
                         f"Received: seed={seed} (of type {type(seed)})")
    return np.random.default_rng([int(v) % 2**64 for v in state])


def _shape(shape) -> tuple:
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)
    return _tf_random.check_shape(shape)


def _float(dtype, fn: str) -> np.dtype:
    d = np.dtype(_backend.floatx()) if dtype is None else _backend.np_dtype(dtype)
    if d.kind != "f":
        raise ValueError(f"`keras.random.{fn}` requires a floating point `dtype`. Received: dtype={dtype} ")
    return d


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Values from ``N(mean, stddev**2)`` (``floatx()`` unless ``dtype``)."""
    return _tf_random.sample_normal(_rng(seed), _shape(shape), mean, stddev, _float(dtype, "normal"))


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None) -> Tensor:
    """Values uniform in ``[minval, maxval)`` (a float dtype, ``floatx()`` unless given)."""
    d = _float(dtype, "uniform")
    return _tf_random.sample_uniform(_rng(seed), _shape(shape), minval, maxval, d, "keras.random.uniform")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None) -> Tensor:
    """Normal values, those beyond 2 standard deviations drawn again (``floatx()`` unless ``dtype``)."""
    d = _float(dtype, "truncated_normal")
    return _tf_random.sample_truncated_normal(_rng(seed), _shape(shape), mean, stddev, d)


def randint(shape, minval, maxval, dtype="int32", seed=None) -> Tensor:
    """Integers uniform in ``[minval, maxval)`` (an integer dtype, int32 by default)."""
    d = _backend.np_dtype(dtype or "int32")
    if d.kind not in "iu":
        raise ValueError(f"`keras.random.randint` requires an integer `dtype`. Received: dtype={dtype} ")
    return _tf_random.sample_uniform(_rng(seed), _shape(shape), minval, maxval, d, "keras.random.randint")


def categorical(logits, num_samples, dtype="int32", seed=None) -> Tensor:
    """``(batch_size, num_samples)`` class ids drawn from ``softmax`` of each row of the 2-D ``logits``."""
    arr = np.asarray(to_array(logits))
    if arr.ndim != 2:
        raise ValueError("`logits` should be a 2-D tensor with shape [batch_size, num_classes]. "
                         f"Received: logits={logits}")
    d = _backend.np_dtype(dtype or "int32")
    if d.kind not in "iu":
        raise ValueError(f"`keras.random.categorical` requires an integer `dtype`. Received: dtype={dtype}")
    return _tf_random.sample_categorical(_rng(seed), arr, num_samples, d)


def dropout(inputs, rate, noise_shape=None, seed=None) -> Tensor:
    """``inputs`` with each element zeroed with probability ``rate`` and the rest scaled by ``1 / (1 - rate)``
    (``noise_shape`` entries of None take the input's size); ``rate=1`` gives zeros. Differentiable."""
    if rate == 1.0:
        return _array_ops.zeros(tuple(np.shape(to_array(inputs))), dtype=np.asarray(to_array(inputs)).dtype)
    return _nn_dropout(inputs, rate, noise_shape=noise_shape, seed=_rng(seed) if rate else None)


def shuffle(x, axis=0, seed=None) -> Tensor:
    """``x`` with its entries along ``axis`` randomly permuted (differentiable: a gather)."""
    arr = np.asarray(to_array(x))
    if arr.ndim == 0:
        raise ValueError("keras.random.shuffle: `x` must have at least one dimension. Received a scalar")
    rng, n = _rng(seed), arr.shape[axis]
    perm = _draw(fn=lambda: rng.permutation(n).astype(np.int64))  # drawn again on each call of a compiled step
    return _array_ops.gather(x, perm, axis=axis)


def gamma(shape, alpha, dtype=None, seed=None) -> Tensor:
    """Values from the Gamma distribution of shape ``alpha`` and scale 1 (``floatx()`` unless ``dtype``)."""
    d = _float(dtype, "gamma")
    a, rng, size = np.asarray(to_array(alpha), dtype=np.float64), _rng(seed), _shape(shape)
    return _draw(fn=lambda: rng.gamma(a, size=size).astype(d))


def beta(shape, alpha, beta, dtype=None, seed=None) -> Tensor:  # noqa: F811 - Keras' argument name
    """Values from the Beta distribution ``Beta(alpha, beta)`` (``floatx()`` unless ``dtype``)."""
    d = _float(dtype, "beta")
    a, b = (np.asarray(to_array(v), dtype=np.float64) for v in (alpha, beta))
    rng, size = _rng(seed), _shape(shape)
    return _draw(fn=lambda: rng.beta(a, b, size=size).astype(d))


def binomial(shape, counts, probabilities, dtype=None, seed=None) -> Tensor:
    """The number of successes of ``counts`` trials of success probability ``probabilities``, as floats
    (``floatx()`` unless ``dtype``, as Keras)."""
    d = _float(dtype, "binomial")
    n = np.asarray(to_array(counts), dtype=np.float64)
    p = np.asarray(to_array(probabilities), dtype=np.float64)
    rng, size = _rng(seed), _shape(shape)
    return _draw(fn=lambda: rng.binomial(n.astype(np.int64), p, size=size).astype(d))
