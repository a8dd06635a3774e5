"""Gradient accumulation: running sums over micro-batches, sparse ones kept sparse.

Two users share one pure arithmetic (:func:`add`, which returns new sums and
changes nothing, so a rejected call leaves the running sums as they were):

* the optimizer's ``gradient_accumulation_steps`` (an accumulation stage of
  its update pipeline, see ``descend.optimizers.pipeline``);
* :class:`GradientAccumulator`, Hugging Face's TF interface: call it with a
  list of gradients, read ``.step`` and ``.gradients``, ``.reset()``.

Each micro-batch may carry a weight (its example or token count): the mean is
then ``sum(w_i * g_i) / sum(w_i)``, which is exactly the gradient of the mean
loss over the concatenated batch when ``g_i`` is the gradient of micro-batch
i's mean loss and ``w_i`` its size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..framework.indexed_slices import IndexedSlices, deduplicate
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable

__all__ = ["GradientAccumulator", "AccumulatorState", "add"]


class _Sparse:
    """A running sparse sum: unique sorted indices and their summed values (never changed in place)."""

    __slots__ = ("indices", "values", "dense_shape")

    def __init__(self, indices, values, dense_shape):
        self.indices, self.values, self.dense_shape = indices, values, tuple(dense_shape)

    def plus(self, indices, values) -> _Sparse:
        idx = np.concatenate([self.indices, indices])
        vals = np.concatenate([self.values, values])
        uniq, inv = np.unique(idx, return_inverse=True)
        out = np.zeros((uniq.size,) + vals.shape[1:], vals.dtype)
        np.add.at(out, inv.reshape(-1), vals)
        return _Sparse(uniq, out, self.dense_shape)


@dataclass(frozen=True)
class AccumulatorState:
    """Running sums of one accumulation cycle: ``keys`` name the gradients (Variables for an optimizer,
    positions for :class:`GradientAccumulator`), ``sums[i]`` is an array, a sparse sum or None."""

    keys: tuple
    sums: tuple
    step: int = 0
    weight: float = 0.0


def _check_weight(weight) -> float:
    try:
        w = float(weight)
    except (TypeError, ValueError):
        raise TypeError(f"accumulation weight must be a number. Received: {weight!r}") from None
    if not (w > 0 and np.isfinite(w)):
        raise ValueError(f"accumulation weight must be a positive finite number. Received: {weight!r}")
    return w


def _sum(prev, g, w, where: str):
    """``prev + w * g`` as a new value (``prev`` is not changed)."""
    if g is None:
        return prev
    if isinstance(g, IndexedSlices):
        g = deduplicate(g)
        idx = g.indices._value.astype(np.int64)
        vals = g.values._value * g.values._value.dtype.type(w)
        shape = tuple(g.dense_shape)
        if prev is None:
            return _Sparse(idx, vals, shape)
        if isinstance(prev, _Sparse):
            if prev.dense_shape != shape:
                raise ValueError(f"{where}: dense_shape {shape} differs from the accumulated {prev.dense_shape}")
            return prev.plus(idx, vals)
        if prev.shape != shape:
            raise ValueError(f"{where}: shape {shape} differs from the accumulated {prev.shape}")
        out = prev.copy()
        np.add.at(out, idx, vals)
        return out
    arr = g._value if isinstance(g, (Tensor, Variable)) else np.asarray(to_array(g))
    contrib = np.asarray(arr * arr.dtype.type(w))
    if prev is None:
        return contrib.copy() if contrib is arr else contrib
    if isinstance(prev, _Sparse):
        if arr.shape != prev.dense_shape:
            raise ValueError(f"{where}: shape {arr.shape} differs from the accumulated {prev.dense_shape}")
        out = contrib.copy() if contrib is arr else contrib
        np.add.at(out, prev.indices, prev.values)
        return out
    if prev.shape != arr.shape:
        raise ValueError(f"{where}: shape {arr.shape} differs from the accumulated {prev.shape}")
    if prev.dtype != contrib.dtype:
        raise TypeError(f"{where}: dtype {contrib.dtype.name} differs from the accumulated {prev.dtype.name}")
    return np.asarray(prev + contrib)


def add(state: AccumulatorState | None, pairs, weight: float = 1.0) -> AccumulatorState:
    """The state after adding ``[(gradient, key), ...]`` with ``weight``; ``state`` is not changed.

    The first call of a cycle fixes the keys; a later call may not bring a key the first did not."""
    w = _check_weight(weight)
    pairs = list(pairs)
    if state is None or state.step == 0:
        keys = tuple(k for _, k in pairs)
        sums = [None] * len(keys)
        step, total = 0, 0.0
    else:
        keys, sums, step, total = state.keys, list(state.sums), state.step, state.weight
    index = {id(k): i for i, k in enumerate(keys)}
    for g, k in pairs:
        i = index.get(id(k))
        if i is None:
            name = getattr(k, "name", k)
            raise ValueError(f"variable '{name}' has a gradient in micro-step {step + 1} of an accumulation cycle but "
                             f"not in its first; expected only {[getattr(x, 'name', x) for x in keys]}")
        where = f"gradient {k}" if isinstance(k, int) else f"gradient for variable '{getattr(k, 'name', k)}'"
        sums[i] = _sum(sums[i], g, w, where)
    return AccumulatorState(keys, tuple(sums), step + 1, total + w)


def _wrap(s, scale=None):
    if s is None:
        return None
    if isinstance(s, _Sparse):
        vals = s.values if scale is None else s.values * s.values.dtype.type(scale)
        return IndexedSlices(Tensor(vals), Tensor(s.indices), s.dense_shape)
    return Tensor(s.copy() if scale is None else np.asarray(s * s.dtype.type(scale)))


def mean(state: AccumulatorState) -> list:
    """``sum(w_i g_i) / sum(w_i)`` for each key: Tensors, IndexedSlices or None."""
    return [_wrap(s, 1.0 / state.weight) for s in state.sums]


def to_arrays(state: AccumulatorState, names: list[str]) -> dict[str, np.ndarray]:
    """The partial sums keyed by ``names[i]`` (``<name>`` dense; ``<name>:indices``, ``<name>:values`` and
    ``<name>:dense_shape`` sparse), plus ``:step`` and ``:weight``."""
    out = {":step": np.asarray(state.step, np.int64), ":weight": np.asarray(state.weight, np.float64)}
    for name, s in zip(names, state.sums):
        if isinstance(s, _Sparse):
            out[f"{name}:indices"], out[f"{name}:values"] = s.indices.copy(), s.values.copy()
            out[f"{name}:dense_shape"] = np.asarray(s.dense_shape, np.int64)
        elif s is not None:
            out[name] = np.array(s)
    return out


def names_in(arrays: dict) -> list[str]:
    """The gradient names a :func:`to_arrays` dict holds partial sums for."""
    names = []
    for k in arrays:
        if k.startswith(":"):
            continue
        n = k.split(":", 1)[0]
        if n not in names:
            names.append(n)
    return names


def from_arrays(arrays: dict, names: list[str], keys: tuple, shapes=None) -> AccumulatorState:
    """Rebuild a state from :func:`to_arrays` output (validated: a ValueError names what is wrong)."""
    for k in (":step", ":weight"):
        if k not in arrays or np.asarray(arrays[k]).shape != ():
            raise ValueError(f"accumulator state: '{k}' must be a scalar")
    step, weight = int(arrays[":step"]), float(arrays[":weight"])
    if step < 0 or not np.isfinite(weight) or weight < 0 or (step > 0) != (weight > 0):
        raise ValueError(f"accumulator state: step {step} and weight {weight} are not a valid running count")
    sums = []
    for i, name in enumerate(names):
        shape = None if shapes is None else tuple(shapes[i])
        if name in arrays:
            s = np.array(arrays[name])
            if shape is not None and s.shape != shape:
                raise ValueError(f"accumulator state '{name}': expected shape {shape}, received {s.shape}")
        elif f"{name}:indices" in arrays:
            idx = np.array(arrays[f"{name}:indices"])
            vals = np.array(arrays[f"{name}:values"])
            dense = tuple(int(d) for d in np.asarray(arrays[f"{name}:dense_shape"]).reshape(-1))
            if idx.ndim != 1 or idx.dtype.kind not in "iu" or vals.shape != idx.shape + dense[1:]:
                raise ValueError(f"accumulator state '{name}': indices and values do not match dense shape {dense}")
            if idx.size and (idx.min() < 0 or idx.max() >= dense[0]):
                raise ValueError(f"accumulator state '{name}': an index is outside [0, {dense[0]})")
            if shape is not None and dense != shape:
                raise ValueError(f"accumulator state '{name}': expected dense shape {shape}, received {dense}")
            s = _Sparse(idx.astype(np.int64), vals, dense)
        else:
            s = None
        sums.append(s)
    return AccumulatorState(tuple(keys), tuple(sums), step, weight)


class GradientAccumulator:
    """Accumulate gradients across calls (micro-batches).

    Args:
        reduce_fn: optional hook ``list -> list`` applied to the accumulated
            sums when they are read (e.g. an all-reduce across replicas).

    Example:
        >>> import descend as ds
        >>> acc = ds.GradientAccumulator()
        >>> acc([ds.constant([1.0, 2.0]), None])
        >>> acc([ds.constant([3.0, 4.0]), None])
        >>> acc.step, acc.gradients[0].numpy(), acc.gradients[1]
        (2, array([4., 6.], dtype=float32), None)
    """

    def __init__(self, reduce_fn: Callable[[list], list] | None = None):
        self._state: AccumulatorState | None = None
        self._reduce_fn = reduce_fn

    @property
    def step(self) -> int:
        """How many times gradients were added since the last reset."""
        return 0 if self._state is None else self._state.step

    @property
    def total_weight(self) -> float:
        return 0.0 if self._state is None else self._state.weight

    def __call__(self, gradients, weight: float = 1.0) -> None:
        """Add ``weight * g`` for each gradient ``g`` (``None`` entries add nothing).

        Every entry is checked before the sums change: a bad one raises and changes nothing."""
        gradients = list(gradients)
        state = self._state
        if state is not None and len(gradients) != len(state.keys):
            raise ValueError(f"Expected {len(state.keys)} gradients, but got {len(gradients)}")
        keys = state.keys if state is not None else tuple(range(len(gradients)))
        self._state = add(state, list(zip(gradients, keys)), weight)

    @property
    def gradients(self) -> list:
        """The accumulated sums (Tensors, IndexedSlices; zeros after :meth:`reset`), after ``reduce_fn``."""
        if self._state is None:
            raise ValueError("The accumulator should be called first to initialize the gradients")
        out = [_wrap(s) for s in self._state.sums]
        return self._reduce_fn(out) if self._reduce_fn else out

    def mean(self) -> list:
        """``sum(w_i g_i) / sum(w_i)`` for each gradient."""
        if self._state is None or self._state.step == 0:
            raise ValueError("The accumulator should be called first to initialize the gradients")
        out = mean(self._state)
        return self._reduce_fn(out) if self._reduce_fn else out

    def reset(self) -> None:
        """Zero the sums and the step (the number of gradients and their shapes stay: the sums read as zeros)."""
        if self._state is None:
            return
        zeros = tuple(None if s is None else _Sparse(s.indices[:0], s.values[:0], s.dense_shape)
                      if isinstance(s, _Sparse) else np.zeros_like(s) for s in self._state.sums)
        self._state = AccumulatorState(self._state.keys, zeros, 0, 0.0)
