"""``tf.nn.embedding_lookup_sparse`` and ``tf.nn.safe_embedding_lookup_sparse``: one embedding per row of a
sparse batch of ids, the looked-up rows combined by ``"sum"``, ``"mean"`` or ``"sqrtn"``, optionally weighted.

As in TF, the distinct ids are looked up once (``embedding_lookup`` of the unique ids, so the gradient with
respect to the table is an ``IndexedSlices`` of those rows, never the dense table), then gathered back per
entry and summed per row by ``segment_sum``:

* ``"sum"``: ``sum_i w_i e_i``; ``"mean"``: ``sum_i w_i e_i / sum_i w_i``; ``"sqrtn"``: ``sum_i w_i e_i /
  sqrt(sum_i w_i^2)`` (``w_i = 1`` without weights; a zero denominator gives 0, TF's ``div_no_nan``).
* ``embedding_lookup_sparse`` has one output row per row up to the last one holding an id (TF's
  ``segment_sum``: trailing empty rows are dropped, empty rows before it are 0).
* ``safe_embedding_lookup_sparse`` takes ids of any rank ``R >= 2``, drops ids < 0 (and, unless the combiner
  is ``"sum"``, entries of weight <= 0), gives every row of ``dense_shape[:-1]`` an output (the embedding of
  ``default_id`` for an empty row, or zeros without one) and returns shape ``dense_shape[:-1] + embedding``.

The sparse ids are anything with TF's ``SparseTensor`` fields ``indices`` (``[n, R]``), ``values`` (``[n]``
integer ids) and ``dense_shape`` (``[R]``), TF's own ``tf.SparseTensor`` among them, or a
``descend.RaggedTensor`` of ids (row ``r``'s ids are its values).

Example:
    >>> import descend as ds, numpy as np
    >>> from collections import namedtuple
    >>> Sparse = namedtuple("Sparse", "indices values dense_shape")
    >>> ids = Sparse([[0, 0], [0, 1], [2, 0]], [1, 3, 1], [3, 2])
    >>> table = ds.Variable(np.arange(8.0).reshape(4, 2))
    >>> with ds.GradientTape() as tape:
    ...     y = ds.nn.embedding_lookup_sparse(table, ids, None, combiner="sum")
    >>> y.numpy().tolist()
    [[8.0, 10.0], [0.0, 0.0], [2.0, 3.0]]
    >>> tape.gradient(y, table).indices.numpy().tolist()
    [1, 3]
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from ..ops import array_ops, math_ops
from ..ops.elementwise_ops import divide_no_nan
from ..ops.nn_ops import embedding_lookup
from ..ops.selection_ops import segment_sum

__all__ = ["embedding_lookup_sparse", "safe_embedding_lookup_sparse"]

_COMBINERS = ("mean", "sqrtn", "sum")


def _array(x) -> np.ndarray:
    if isinstance(x, (Tensor, Variable)):
        return x.numpy()
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def _sparse(sp, what: str, owner: str):
    """``(indices [n, R] int64, values [n], dense_shape [R] int64)`` of a SparseTensor-like or RaggedTensor."""
    from ..strings._ragged import RaggedTensor  # a value type beside the strings ops; imports nothing of ours

    if isinstance(sp, RaggedTensor):
        splits = sp.row_splits.numpy()
        lengths = np.diff(splits)
        rows = np.repeat(np.arange(lengths.size), lengths)
        cols = np.arange(splits[-1]) - np.repeat(splits[:-1], lengths)
        indices = np.stack([rows, cols], axis=1).astype(np.int64)
        return indices, sp.values.numpy(), np.array([lengths.size, lengths.max(initial=0)], np.int64)
    if not all(hasattr(sp, f) for f in ("indices", "values", "dense_shape")):
        raise TypeError(f"{owner}: `{what}` must be a SparseTensor (indices, values, dense_shape) or a RaggedTensor. "
                        f"Received: {type(sp).__name__}")
    indices = _array(sp.indices).astype(np.int64).reshape(-1, np.asarray(_array(sp.dense_shape)).size)
    values, shape = _array(sp.values), _array(sp.dense_shape).astype(np.int64)
    if values.ndim != 1 or indices.shape[0] != values.shape[0]:
        raise ValueError(f"{owner}: `{what}` must hold one index row per value. Received indices of shape "
                         f"{indices.shape} and values of shape {values.shape}")
    if np.any(indices < 0) or np.any(indices >= shape):
        raise ValueError(f"{owner}: `{what}` has an index outside its dense_shape {shape.tolist()}")
    return indices, values, shape


def _check_combiner(combiner, owner: str) -> str:
    combiner = "mean" if combiner is None else combiner
    if combiner not in _COMBINERS:
        raise ValueError(f"{owner}: combiner must be one of 'mean', 'sqrtn' or 'sum'. Received: combiner={combiner!r}")
    return combiner


def _combine(params, segment_ids, ids, weights, combiner, max_norm, owner):
    if ids.dtype.kind not in "iu":
        raise TypeError(f"{owner}: the ids must be integers. Received dtype {ids.dtype.name}")
    # the distinct ids in order of first appearance (TF's unique): the table's gradient holds these rows
    _, first, inverse = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    distinct, idx = ids[first[order]], rank[inverse.reshape(-1)]
    rows = array_ops.gather(embedding_lookup(params, distinct, max_norm=max_norm), idx)
    segments = segment_ids.astype(np.int32)
    w = np.ones(ids.shape, rows.dtype.name) if weights is None else weights
    w = convert_to_tensor(np.asarray(w).astype(rows.dtype.name).reshape((-1,) + (1,) * (rows.ndim - 1)))
    total = segment_sum(math_ops.multiply(rows, w) if weights is not None else rows, segments)
    if combiner == "sum":
        return total
    norm = segment_sum(w if combiner == "mean" else math_ops.square(w), segments)
    return divide_no_nan(total, norm if combiner == "mean" else math_ops.sqrt(norm))


def embedding_lookup_sparse(params, sp_ids, sp_weights, combiner=None, max_norm=None, name=None,
                            allow_fast_lookup: bool = False) -> Tensor:
    """The combined embeddings of each row of sparse ids (``tf.nn.embedding_lookup_sparse``).

    Args:
        params: the table ``[vocab, ...]`` (a Variable, a Tensor, or a list of shards split by rows in order,
            as ``embedding_lookup``).
        sp_ids: sparse integer ids ``[N, M]`` (TF's SparseTensor fields, or a RaggedTensor); row ``indices[:, 0]``.
        sp_weights: ``None`` (every weight 1) or sparse float weights with the ids' indices.
        combiner: ``"mean"`` (the default), ``"sqrtn"`` or ``"sum"``.
        max_norm: if given, each looked-up embedding of a larger L2 norm is scaled down to it.
        allow_fast_lookup: accepted for TF's signature; the numbers are the same either way.

    Returns:
        ``[rows, ...]`` with ``rows = 1 + the last row holding an id``.

    Raises:
        TypeError: if ``sp_ids`` or ``sp_weights`` is not sparse, or the ids are not integers.
        ValueError: for an unknown combiner, or weights whose shape differs from the ids'.
    """
    owner = "embedding_lookup_sparse"
    combiner = _check_combiner(combiner, owner)
    indices, ids, _ = _sparse(sp_ids, "sp_ids", owner)
    weights = None
    if sp_weights is not None:
        w_indices, weights, _ = _sparse(sp_weights, "sp_weights", owner)
        if weights.shape != ids.shape or w_indices.shape != indices.shape:
            raise ValueError(f"{owner}: sp_weights must have the shape of sp_ids: {ids.shape[0]} values with indices "
                             f"{indices.shape}. Received {weights.shape[0]} values with indices {w_indices.shape}")
    return _combine(params, indices[:, 0], ids, weights, combiner, max_norm, owner)


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None, combiner="mean",
                                 default_id=None, max_norm=None, name=None, allow_fast_lookup: bool = False) -> Tensor:
    """``embedding_lookup_sparse`` made safe for invalid ids and empty rows
    (``tf.nn.safe_embedding_lookup_sparse``).

    Ids < 0 are dropped, and so are entries of weight <= 0 unless ``combiner`` is ``"sum"``. A row left empty
    gets the embedding of ``default_id`` (weight 1), or zeros when ``default_id`` is None.

    Args:
        embedding_weights: the table (or a list of row shards); converted to ``sparse_weights``' dtype.
        sparse_ids: sparse integer ids of dense shape ``[d_0, ..., d_{R-2}, M]`` (R >= 2).
        sparse_weights: ``None`` or sparse weights with the ids' indices.
        combiner: ``"mean"`` (the default), ``"sqrtn"`` or ``"sum"``.
        default_id: the id whose embedding fills an empty row, or None for zeros.
        max_norm: as in ``embedding_lookup``.

    Returns:
        ``[d_0, ..., d_{R-2}] + params.shape[1:]``.
    """
    owner = "safe_embedding_lookup_sparse"
    if embedding_weights is None or (isinstance(embedding_weights, (list, tuple)) and not embedding_weights):
        raise ValueError(f"{owner}: missing embedding_weights. Received: {embedding_weights!r}")
    combiner = _check_combiner(combiner, owner)
    indices, ids, shape = _sparse(sparse_ids, "sparse_ids", owner)
    if shape.size < 2:
        raise ValueError(f"{owner}: sparse_ids must have rank >= 2. Received dense_shape {shape.tolist()}")
    weights = None
    if sparse_weights is not None:
        _, weights, _ = _sparse(sparse_weights, "sparse_weights", owner)
        if weights.shape != ids.shape:
            raise ValueError(f"{owner}: sparse_weights must hold one weight per id ({ids.shape[0]}). Received "
                             f"{weights.shape[0]}")
        dtype = np.dtype(weights.dtype)
        if isinstance(embedding_weights, (list, tuple)):
            embedding_weights = [w if isinstance(w, Variable) and w.dtype == dtype else convert_to_tensor(w, dtype)
                                 for w in embedding_weights]
        elif not (isinstance(embedding_weights, Variable) and embedding_weights.dtype == dtype):
            embedding_weights = convert_to_tensor(embedding_weights, dtype)
    nrows = int(np.prod(shape[:-1]))
    rows = np.ravel_multi_index(tuple(indices[:, :-1].T), tuple(shape[:-1])) if ids.size else np.zeros(0, np.int64)
    keep = ids >= 0
    if weights is not None and combiner != "sum":
        keep &= weights > 0
    rows, ids = rows[keep], ids[keep]
    weights = None if weights is None else weights[keep]
    empty = np.ones(nrows, bool)
    empty[rows] = False
    # every empty row gets one entry (default_id or 0, weight 1), in row order (TF's sparse_fill_empty_rows)
    fill = np.flatnonzero(empty)
    rows = np.concatenate([rows, fill])
    ids = np.concatenate([ids, np.full(fill.size, 0 if default_id is None else int(default_id), ids.dtype)])
    if weights is not None:
        weights = np.concatenate([weights, np.ones(fill.size, weights.dtype)])
    order = np.argsort(rows, kind="stable")
    rows, ids = rows[order], ids[order]
    weights = None if weights is None else weights[order]
    result = _combine(embedding_weights, rows, ids, weights, combiner, max_norm, owner)
    if default_id is None and fill.size:
        mask = convert_to_tensor(~empty.reshape((nrows,) + (1,) * (result.ndim - 1)))
        result = math_ops.where(mask, result, math_ops.zeros_like(result))
    return array_ops.reshape(result, shape=tuple(int(d) for d in shape[:-1]) + tuple(result.shape[1:]))
