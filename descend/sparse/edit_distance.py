"""``tf.edit_distance``: the Levenshtein distance between the sequences of two SparseTensors, row by row.

Example:
    >>> import descend as ds
    >>> h = ds.sparse.from_dense(ds.constant([[b"a", b"b", b""]]))
    >>> t = ds.sparse.from_dense(ds.constant([[b"a", b"c", b"d"]]))
    >>> ds.edit_distance(h, t, normalize=False).numpy()
    array([2.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from .sparse_tensor import SparseTensor

__all__ = ["edit_distance"]


def _levenshtein(a: list, b: list) -> int:
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y))
        prev = cur
    return prev[-1]


def _sequences(sp, arg):
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"edit_distance: `{arg}` must be a SparseTensor. Received {type(sp).__name__}")
    idx = np.asarray(sp.indices.numpy())
    shape = np.asarray(sp.dense_shape.numpy())
    if len(shape) < 2:
        raise ValueError(f"edit_distance: `{arg}` must have rank >= 2. Received dense_shape {shape.tolist()}")
    values = np.asarray(sp.values.numpy())
    order = np.lexsort(idx.T[::-1]) if len(idx) else np.zeros(0, int)
    rows: dict = {}
    for k in order:
        rows.setdefault(tuple(idx[k, :-1].tolist()), []).append(values[k])
    return shape[:-1], rows, values.dtype


def edit_distance(hypothesis, truth, normalize=True, name="edit_distance"):
    """float32 ``[...]`` (the leading dimensions, the larger of the two): the edit distance of each
    hypothesis sequence to its truth, divided by the truth's length when ``normalize`` (an empty truth gives
    inf, or 0 when the hypothesis is empty too), as TF."""
    lead_h, rows_h, dtype_h = _sequences(hypothesis, "hypothesis")
    lead_t, rows_t, dtype_t = _sequences(truth, "truth")
    if len(lead_h) != len(lead_t):
        raise ValueError(f"edit_distance: hypothesis and truth must have the same rank. Received "
                         f"{len(lead_h) + 1} and {len(lead_t) + 1}")
    if dtype_h != dtype_t and not (dtype_h.kind in "iu" and dtype_t.kind in "iu"):
        raise TypeError(f"edit_distance: hypothesis and truth must have the same dtype. Received {dtype_h.name} "
                        f"and {dtype_t.name}")
    lead = np.maximum(lead_h, lead_t)
    out = np.zeros(tuple(int(d) for d in lead), np.float32)
    for coord in np.ndindex(*out.shape):
        h, t = rows_h.get(coord, []), rows_t.get(coord, [])
        d = float(_levenshtein(h, t))
        if normalize:
            d = d / len(t) if t else (np.inf if h else 0.0)
        out[coord] = d
    return Tensor(out)
