"""``tf.sparse.segment_sum`` / ``segment_mean`` / ``segment_sqrt_n``: a segment reduction over the rows
``data[indices]``, with TF's gradient, and TF's gradient kernels themselves (``SparseSegmentSumGrad`` and its V2,
which also returns the distinct indices).

Row ``i`` of the selection is ``data[indices[i]]`` and belongs to segment ``segment_ids[i]``; the ids are sorted
(non-decreasing) and non-negative. The output has ``num_segments`` rows (the last id + 1 when not given), an empty
segment is 0. ``mean`` divides each segment by its size, ``sqrt_n`` by the square root of its size. The gradient with
respect to ``data`` scatters ``g[segment_ids[i]] * w[segment_ids[i]]`` onto row ``indices[i]`` (``w`` is 1, 1/size or
1/sqrt(size)); descend returns it dense (``sparse_gradient=True``, TF's ``IndexedSlices``, gives the same values).

Example:
    >>> import descend as ds
    >>> x = ds.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    >>> ds.sparse.segment_sum(x, [0, 2, 1], [0, 0, 1]).numpy().tolist()
    [[6.0, 8.0], [3.0, 4.0]]
    >>> ds.sparse.segment_mean(x, [0, 2, 1], [0, 0, 1], num_segments=3).numpy().tolist()
    [[3.0, 4.0], [3.0, 4.0], [0.0, 0.0]]
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor

__all__ = ["sparse_segment_sum", "sparse_segment_mean", "sparse_segment_sqrt_n", "sparse_segment_sum_with_num_segments",
           "sparse_segment_mean_with_num_segments", "sparse_segment_sqrt_n_with_num_segments", "sparse_segment_sum_grad",
           "sparse_segment_mean_grad", "sparse_segment_sqrt_n_grad", "sparse_segment_sum_grad_v2",
           "sparse_segment_mean_grad_v2", "sparse_segment_sqrt_n_grad_v2"]


def _ids(values, what: str, op: str) -> np.ndarray:
    arr = np.asarray(values.numpy() if isinstance(values, Tensor) else values)
    if arr.size == 0:
        return np.zeros((0,), np.int64)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{op}: `{what}` must be int32 or int64. Received dtype {arr.dtype.name}")
    if arr.ndim != 1:
        raise ValueError(f"{op}: `{what}` must be a vector. Received shape {arr.shape}")
    return arr.astype(np.int64)


def _weights(seg: np.ndarray, rows: int, mode: str, dtype) -> np.ndarray:
    """The factor of each output segment: 1, 1/size or 1/sqrt(size) (an empty segment: 1, its value is 0)."""
    if mode == "sum":
        return np.ones(rows, dtype)
    counts = np.maximum(np.bincount(seg, minlength=rows)[:rows], 1).astype(dtype)
    return 1.0 / counts if mode == "mean" else 1.0 / np.sqrt(counts)


def _check_ids(op, n_data, idx, seg, num_segments):
    if idx.shape != seg.shape:
        raise InvalidArgumentError(f"{op}: `indices` and `segment_ids` must have the same length. Received "
                                   f"{idx.shape[0]} and {seg.shape[0]}")
    bad = np.nonzero((idx < 0) | (idx >= n_data))[0]
    if bad.size:
        i = int(bad[0])
        raise InvalidArgumentError(f"{op}: indices[{i}] == {idx[i]} out of range [0, {n_data})")
    if seg.size and seg.min() < 0:
        raise InvalidArgumentError(f"{op}: segment ids must be >= 0. Received {int(seg.min())}")
    if seg.size > 1 and np.any(np.diff(seg) < 0):
        raise InvalidArgumentError(f"{op}: segment ids are not increasing. Received segment_ids={seg.tolist()}")
    if num_segments is not None and seg.size and seg.max() >= num_segments:
        raise InvalidArgumentError(f"{op}: segment ids must be < num_segments = {num_segments}. Received "
                                   f"{int(seg.max())}")


@defop("sparse_segment_reduction")
def _reduce(data, indices, segment_ids, rows=0, mode="sum"):
    out = np.zeros((rows,) + data.shape[1:], data.dtype)
    np.add.at(out, segment_ids, data[indices])
    if mode != "sum":
        out = out * _weights(segment_ids, rows, mode, data.dtype).reshape((rows,) + (1,) * (data.ndim - 1))
    return out


@_reduce.defvjp
def _(g, ans, data, indices, segment_ids, rows=0, mode="sum"):
    return _grad(g, indices, segment_ids, data.shape[0], mode), None, None


def _grad(g, indices, segment_ids, output_dim0, mode):
    """TF's ``SparseSegment{Sum,Mean,SqrtN}Grad``: ``out[indices[i]] += g[segment_ids[i]] * w[segment_ids[i]]``."""
    g = convert_to_tensor(g)
    idx = np.asarray(indices.numpy() if isinstance(indices, Tensor) else indices, np.int64)
    seg = np.asarray(segment_ids.numpy() if isinstance(segment_ids, Tensor) else segment_ids, np.int64)
    return _grad_op(g, Tensor(idx), Tensor(seg), output_dim0=int(output_dim0), mode=mode)


@defop("sparse_segment_reduction_grad")
def _grad_op(g, indices, segment_ids, output_dim0=0, mode="sum"):
    w = _weights(segment_ids, g.shape[0], mode, g.dtype).reshape((g.shape[0],) + (1,) * (g.ndim - 1))
    out = np.zeros((output_dim0,) + g.shape[1:], g.dtype)
    np.add.at(out, indices, (g * w)[segment_ids])
    return out


@_grad_op.defvjp
def _(gg, ans, g, indices, segment_ids, output_dim0=0, mode="sum"):
    # the gradient kernel is linear in g: its VJP gathers gg back (the forward reduction of gg)
    return _reduce(gg, indices, segment_ids, rows=g.shape[0], mode=mode), None, None


def _segment(op, mode, data, indices, segment_ids, num_segments):
    data = convert_to_tensor(data)
    if data.ndim < 1:
        raise ValueError(f"{op}: Shape must be at least rank 1 (`data` is indexed by rows). Received a scalar")
    if mode != "sum" and np.dtype(data.dtype).kind != "f":
        raise TypeError(f"{op}: `data` must be a float tensor. Received dtype {np.dtype(data.dtype).name}")
    idx, seg = _ids(indices, "indices", op), _ids(segment_ids, "segment_ids", op)
    if num_segments is not None:
        num_segments = int(np.asarray(num_segments.numpy() if isinstance(num_segments, Tensor) else num_segments))
        if num_segments < 0:
            raise ValueError(f"{op}: Cannot specify a negative value for num_segments. Received {num_segments}")
    _check_ids(op, data.shape[0], idx, seg, num_segments)
    rows = num_segments if num_segments is not None else (int(seg[-1]) + 1 if seg.size else 0)
    return _reduce(data, Tensor(idx), Tensor(seg), rows=rows, mode=mode)


def sparse_segment_sum(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """The sum of each segment of ``data[indices]`` (``tf.sparse.segment_sum``); ``segment_ids`` sorted."""
    return _segment("sparse_segment_sum", "sum", data, indices, segment_ids, num_segments)


def sparse_segment_mean(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """The mean of each segment of ``data[indices]`` (``tf.sparse.segment_mean``); an empty segment is 0."""
    return _segment("sparse_segment_mean", "mean", data, indices, segment_ids, num_segments)


def sparse_segment_sqrt_n(data, indices, segment_ids, num_segments=None, name=None, sparse_gradient=False):
    """Each segment's sum of ``data[indices]`` over the square root of its size (``tf.sparse.segment_sqrt_n``)."""
    return _segment("sparse_segment_sqrt_n", "sqrtn", data, indices, segment_ids, num_segments)


def sparse_segment_sum_with_num_segments(data, indices, segment_ids, num_segments, name=None, sparse_gradient=False):
    """``sparse_segment_sum`` with ``num_segments`` output rows (TF's ``math_ops`` form)."""
    return _segment("sparse_segment_sum_with_num_segments", "sum", data, indices, segment_ids, num_segments)


def sparse_segment_mean_with_num_segments(data, indices, segment_ids, num_segments, name=None,
                                          sparse_gradient=False):
    """``sparse_segment_mean`` with ``num_segments`` output rows (TF's ``math_ops`` form)."""
    return _segment("sparse_segment_mean_with_num_segments", "mean", data, indices, segment_ids, num_segments)


def sparse_segment_sqrt_n_with_num_segments(data, indices, segment_ids, num_segments, name=None,
                                            sparse_gradient=False):
    """``sparse_segment_sqrt_n`` with ``num_segments`` output rows (TF's ``math_ops`` form)."""
    return _segment("sparse_segment_sqrt_n_with_num_segments", "sqrtn", data, indices, segment_ids, num_segments)


def _grad_kernel(op, mode, grad, indices, segment_ids, output_dim0):
    grad = convert_to_tensor(grad)
    idx, seg = _ids(indices, "indices", op), _ids(segment_ids, "segment_ids", op)
    output_dim0 = int(np.asarray(output_dim0))
    if idx.shape != seg.shape:
        raise InvalidArgumentError(f"{op}: `indices` and `segment_ids` must have the same length. Received "
                                   f"{idx.shape[0]} and {seg.shape[0]}")
    bad = np.nonzero((idx < 0) | (idx >= output_dim0))[0]
    if bad.size:
        raise InvalidArgumentError(f"{op}: Index {idx[bad[0]]} out of range [0, {output_dim0})")
    bad = np.nonzero((seg < 0) | (seg >= grad.shape[0]))[0]
    if bad.size:
        raise InvalidArgumentError(f"{op}: Segment id {seg[bad[0]]} out of range [0, {grad.shape[0]})")
    return idx, seg, _grad(grad, idx, seg, output_dim0, mode)


def sparse_segment_sum_grad(grad, indices, segment_ids, output_dim0, name=None):
    """TF's ``SparseSegmentSumGrad``: the gradient of ``sparse_segment_sum`` for ``data`` of ``output_dim0`` rows."""
    return _grad_kernel("sparse_segment_sum_grad", "sum", grad, indices, segment_ids, output_dim0)[2]


def sparse_segment_mean_grad(grad, indices, segment_ids, output_dim0, name=None):
    """TF's ``SparseSegmentMeanGrad``: the gradient of ``sparse_segment_mean``."""
    return _grad_kernel("sparse_segment_mean_grad", "mean", grad, indices, segment_ids, output_dim0)[2]


def sparse_segment_sqrt_n_grad(grad, indices, segment_ids, output_dim0, name=None):
    """TF's ``SparseSegmentSqrtNGrad``: the gradient of ``sparse_segment_sqrt_n``."""
    return _grad_kernel("sparse_segment_sqrt_n_grad", "sqrtn", grad, indices, segment_ids, output_dim0)[2]


def _grad_v2(op, mode, grad, indices, segment_ids, dense_output_dim0):
    idx, seg, dense = _grad_kernel(op, mode, grad, indices, segment_ids, dense_output_dim0)
    unique = np.unique(idx)
    return Tensor(dense.numpy()[unique]), Tensor(unique.astype(np.asarray(indices).dtype if np.size(indices)
                                                                else np.int32))


def sparse_segment_sum_grad_v2(grad, indices, segment_ids, dense_output_dim0, name=None):
    """TF's ``SparseSegmentSumGradV2``: ``(rows of the gradient at the distinct indices, the sorted distinct
    indices)``."""
    return _grad_v2("sparse_segment_sum_grad_v2", "sum", grad, indices, segment_ids, dense_output_dim0)


def sparse_segment_mean_grad_v2(grad, indices, segment_ids, dense_output_dim0, name=None):
    """TF's ``SparseSegmentMeanGradV2`` (see ``sparse_segment_sum_grad_v2``)."""
    return _grad_v2("sparse_segment_mean_grad_v2", "mean", grad, indices, segment_ids, dense_output_dim0)


def sparse_segment_sqrt_n_grad_v2(grad, indices, segment_ids, dense_output_dim0, name=None):
    """TF's ``SparseSegmentSqrtNGradV2`` (see ``sparse_segment_sum_grad_v2``)."""
    return _grad_v2("sparse_segment_sqrt_n_grad_v2", "sqrtn", grad, indices, segment_ids, dense_output_dim0)
