"""Numerical gradients against the tape's, for ops, layers and user code (public as ``descend.testing``)."""

from __future__ import annotations

import numpy as np

from ..framework.indexed_slices import IndexedSlices
from ..framework.tape import GradientTape
from ..framework.tensor import Tensor

__all__ = ["check_gradients", "numerical_gradients", "tape_gradients"]


def _scalarize(out, weights):
    from ..ops.math_ops import multiply, reduce_sum

    outs = out if isinstance(out, (list, tuple)) else [out]
    total = None
    for o, w in zip(outs, weights):
        if o is None:
            continue
        term = reduce_sum(multiply(o, Tensor(w)))
        total = term if total is None else total + term
    return total


def _projection(fn, args, seed):
    """Fixed random weights w so that the check covers every output element: f = sum(w * fn(x))."""
    out = fn(*[Tensor(a) for a in args])
    outs = out if isinstance(out, (list, tuple)) else [out]
    rng = np.random.default_rng(seed)
    return [None if o is None else rng.uniform(0.5, 1.5, size=o.shape).astype(np.float64) for o in outs]


def tape_gradients(fn, args, weights):
    xs = [Tensor(a) for a in args]
    with GradientTape() as tape:
        for x in xs:
            tape.watch(x)
        y = _scalarize(fn(*xs), weights)
    grads = tape.gradient(y, xs, unconnected_gradients="zero")
    return [g._to_dense().numpy() if isinstance(g, IndexedSlices) else g.numpy() for g in grads]


def numerical_gradients(fn, args, weights, delta=1e-6):
    """Central differences ``(f(x+h) - f(x-h)) / 2h`` of ``sum(w * fn(x))``, element by element."""
    grads = []
    for i, a in enumerate(args):
        g = np.zeros_like(a)
        for j in range(a.size):
            def f(h):
                shifted = [x.copy() for x in args]
                shifted[i].reshape(-1)[j] += h
                return float(_scalarize(fn(*[Tensor(x) for x in shifted]), weights).numpy())
            g.reshape(-1)[j] = (f(delta) - f(-delta)) / (2 * delta)
        grads.append(g)
    return grads


def check_gradients(fn, *args, delta: float = 1e-6, seed: int = 0) -> float:
    """Largest relative error between tape and central-difference gradients.

    Every floating-point argument is converted to float64 and differentiated;
    ``fn`` may return one Tensor or a list of them (each weighted by fixed
    random weights, so that every output element is checked). The error of
    an element is ``|tape - numeric| / max(|numeric|, 1e-3)``.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.testing.check_gradients(ds.tanh, np.array([0.5, -1.0])) < 1e-6
        True
    """
    arrays = []
    for a in args:
        arr = np.asarray(a.numpy() if hasattr(a, "numpy") else a)
        if arr.dtype.kind not in "f":
            raise TypeError(f"check_gradients differentiates floating-point arguments; received dtype {arr.dtype}")
        arrays.append(arr.astype(np.float64))
    weights = _projection(fn, arrays, seed)
    analytic = tape_gradients(fn, arrays, weights)
    numeric = numerical_gradients(fn, arrays, weights, delta)
    worst = 0.0
    for a, n in zip(analytic, numeric):
        if a.shape != n.shape:
            raise AssertionError(f"gradient shape {a.shape} differs from the argument's shape {n.shape}")
        if a.size:
            worst = max(worst, float(np.max(np.abs(a - n) / np.maximum(np.abs(n), 1e-3))))
    return worst
