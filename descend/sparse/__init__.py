"""``tf.sparse``: ops over :class:`SparseTensor`, written over descend's differentiable ops so that gradients
reach ``values`` and dense operands through the tape (``to_dense`` is a scatter, ``sparse_dense_matmul`` a
gather and a segment sum, as TF's gradients are).

TF's index-order rules: ops that need indices in row-major order (``to_dense`` with ``validate_indices``)
refuse others naming :func:`reorder`.

Example:
    >>> import descend as ds
    >>> sp = ds.sparse.from_dense([[0.0, 2.0], [3.0, 0.0]])
    >>> sp.indices.numpy().tolist(), sp.values.numpy().tolist()
    ([[0, 1], [1, 0]], [2.0, 3.0])
    >>> ds.sparse.sparse_dense_matmul(sp, [[1.0], [10.0]]).numpy().ravel()
    array([20.,  3.], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from ..ops.sparse_segment_ops import sparse_segment_mean as segment_mean
from ..ops.sparse_segment_ops import sparse_segment_sqrt_n as segment_sqrt_n
from ..ops.sparse_segment_ops import sparse_segment_sum as segment_sum
from .sparse_tensor import SparseTensor

__all__ = ["SparseTensor", "add", "concat", "expand_dims", "eye", "fill_empty_rows", "from_dense", "map_values",
           "mask", "maximum", "minimum", "reduce_max", "reduce_sum", "reorder", "reset_shape", "reshape", "retain",
           "slice", "softmax", "sparse_dense_matmul", "split", "to_dense", "to_indicator", "transpose",
           "segment_mean", "segment_sqrt_n", "segment_sum"]


def _check(sp, op: str, arg: str = "sp_input") -> SparseTensor:
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"sparse.{op}: `{arg}` must be a SparseTensor. Received {type(sp).__name__}")
    return sp


def _parts(sp):
    return np.asarray(sp.indices.numpy()), np.asarray(sp.dense_shape.numpy())


def _linear(idx, shape):
    return np.ravel_multi_index(tuple(idx.T), tuple(shape)) if idx.size else np.zeros(len(idx), np.int64)


def _validate(sp, op, ordered=True):
    idx, shape = _parts(sp)
    for n, row in enumerate(idx):
        if (row < 0).any() or (row >= shape).any():
            raise InvalidArgumentError(f"sparse.{op}: indices[{n}] = {row.tolist()} is out of bounds: need "
                                       f"0 <= index < {shape.tolist()}")
    if ordered and len(idx) > 1:
        lin = _linear(idx, shape)
        bad = np.nonzero(np.diff(lin) <= 0)[0]
        if bad.size:
            n = int(bad[0]) + 1
            what = "is repeated" if lin[n] == lin[n - 1] else "is out of order"
            raise InvalidArgumentError(f"sparse.{op}: indices[{n}] = {idx[n].tolist()} {what}. Many sparse ops "
                                       "require sorted indices; use descend.sparse.reorder to create a correctly "
                                       "ordered copy.")
    return idx, shape


def from_dense(tensor, name=None) -> SparseTensor:
    """The non-zero (non-empty, for strings) entries of ``tensor``, in row-major order."""
    t = convert_to_tensor(tensor)
    a = np.asarray(t.numpy())
    nonzero = (a != b"") if a.dtype == object else (a != 0)
    idx = np.argwhere(nonzero).astype(np.int64).reshape(-1, a.ndim)
    values = _ops.gather_nd(t, idx) if a.dtype != object else Tensor(a[nonzero])
    return SparseTensor(idx, values, np.array(a.shape, np.int64))


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: ``values`` at ``indices``, ``default_value`` (zero) elsewhere; differentiable in the
    values. With ``validate_indices`` the indices must be in row-major order without repeats."""
    sp = _check(sp_input, "to_dense")
    idx, shape = _validate(sp, "to_dense", ordered=validate_indices)
    values = sp.values
    if values.dtype.name == "string":
        out = np.full(tuple(shape), b"" if default_value is None else default_value, dtype=object)
        for row, v in zip(idx, np.asarray(values.numpy())):
            out[tuple(row)] = v
        return Tensor(out)
    dense = _ops.scatter_nd(idx, values, shape.tolist()) if len(idx) else \
        _ops.zeros(shape.tolist(), dtype=values.dtype)
    if default_value is not None and default_value != 0:
        filled = np.full(tuple(shape), default_value, dtype=values.dtype.name)
        filled[tuple(idx.T)] = 0
        dense = dense + Tensor(filled)
    return dense


def reorder(sp_input, name=None) -> SparseTensor:
    """The same entries with indices in row-major order."""
    sp = _check(sp_input, "reorder")
    idx, shape = _parts(sp)
    order = np.argsort(_linear(idx, shape), kind="stable")
    return SparseTensor(idx[order], _ops.gather(sp.values, order), shape)


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """``A @ B`` for a sparse rank-2 ``A`` and a dense ``B`` (a dense ``A`` and sparse ``B`` too); the gradient
    reaches ``A.values`` and ``B``."""
    if isinstance(b, SparseTensor) and not isinstance(sp_a, SparseTensor):  # dense @ sparse = (sp^T @ d^T)^T
        return _ops.transpose(sparse_dense_matmul(b, sp_a, adjoint_a=not adjoint_b, adjoint_b=not adjoint_a))
    sp = _check(sp_a, "sparse_dense_matmul", "sp_a")
    idx, shape = _parts(sp)
    if len(shape) != 2:
        raise ValueError(f"sparse.sparse_dense_matmul: sp_a must be a matrix. Received dense_shape {shape.tolist()}")
    dense = convert_to_tensor(b, dtype=sp.values.dtype)
    if adjoint_b:
        dense = _ops.transpose(dense)
    rows, cols = (idx[:, 1], idx[:, 0]) if adjoint_a else (idx[:, 0], idx[:, 1])
    n_rows, inner = (shape[1], shape[0]) if adjoint_a else (shape[0], shape[1])
    if dense.shape[0] != inner:
        raise ValueError(f"sparse.sparse_dense_matmul: inner dimensions differ: A has {inner} columns, B has "
                         f"{dense.shape[0]} rows")
    products = _ops.reshape(sp.values, [-1, 1]) * _ops.gather(dense, cols.astype(np.int64))
    return _ops.unsorted_segment_sum(products, rows.astype(np.int64), int(n_rows))


def reduce_sum(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The sum over ``axis`` (all axes when None), as a dense tensor (a SparseTensor if ``output_is_sparse``)."""
    return _reduce(sp_input, axis, keepdims, output_is_sparse, "reduce_sum")


def reduce_max(sp_input, axis=None, keepdims=None, output_is_sparse=False, name=None):
    """The maximum over ``axis`` of the entries present (an output with no entry is 0, as TF's dense
    output)."""
    return _reduce(sp_input, axis, keepdims, output_is_sparse, "reduce_max")


def _reduce(sp_input, axis, keepdims, output_is_sparse, op):
    sp = _check(sp_input, op)
    idx, shape = _parts(sp)
    rank = len(shape)
    axes = list(range(rank)) if axis is None else [int(a) % rank if rank else 0 for a in np.ravel(axis)]
    kept = [d for d in range(rank) if d not in axes]
    out_shape = [1 if d in axes else int(shape[d]) for d in range(rank)] if keepdims else [int(shape[d])
                                                                                        for d in kept]
    kept_shape = [int(shape[d]) for d in kept]
    seg = _linear(idx[:, kept], kept_shape) if kept else np.zeros(len(idx), np.int64)
    n = int(np.prod(kept_shape, dtype=np.int64)) if kept else 1
    if op == "reduce_sum":
        flat = _ops.unsorted_segment_sum(sp.values, seg, n)
    else:
        flat = _ops.unsorted_segment_max(sp.values, seg, n)
        present = np.zeros(n, bool)
        present[seg] = True
        flat = _ops.where(Tensor(present), flat, _ops.zeros_like(flat))
    dense = _ops.reshape(flat, out_shape)
    return from_dense(dense) if output_is_sparse else dense


def add(a, b, threshold=0, name=None):
    """``a + b``: two SparseTensors give a SparseTensor (a sum of two entries at one place whose magnitude
    is below ``threshold`` is dropped; entries of one operand alone are kept, as TF); a SparseTensor and a
    dense tensor give a dense one."""
    if isinstance(a, SparseTensor) and isinstance(b, SparseTensor):
        ia, sa = _parts(a)
        ib, sb = _parts(b)
        if sa.tolist() != sb.tolist():
            raise InvalidArgumentError(f"sparse.add: operands' shapes do not match: {sa.tolist()} and {sb.tolist()}")
        la, lb = _linear(ia, sa), _linear(ib, sb)
        keys = np.unique(np.concatenate([la, lb]))
        pos = np.searchsorted(keys, np.concatenate([la, lb]))
        summed = _ops.unsorted_segment_sum(_ops.concat([a.values, b.values], 0), pos, len(keys))
        idx = np.stack(np.unravel_index(keys, tuple(sa)), axis=1).astype(np.int64).reshape(-1, len(sa))
        if threshold:
            overlap = np.isin(keys, la) & np.isin(keys, lb)
            keep = ~overlap | (np.abs(np.asarray(summed.numpy())) >= threshold)
            idx, summed = idx[keep], _ops.gather(summed, np.nonzero(keep)[0])
        return SparseTensor(idx, summed, sa)
    if isinstance(b, SparseTensor):
        a, b = b, a
    _check(a, "add", "a")
    return to_dense(a, validate_indices=False) + convert_to_tensor(b, dtype=a.values.dtype)


def _elementwise(a, b, fn, op):
    _check(a, op, "sp_a")
    _check(b, op, "sp_b")
    da, db = to_dense(reorder(a)), to_dense(reorder(b))
    both = np.zeros(tuple(_parts(a)[1]), bool)
    for sp in (a, b):
        i = _parts(sp)[0]
        both[tuple(i.T)] = True
    idx = np.argwhere(both).astype(np.int64).reshape(-1, both.ndim)
    return SparseTensor(idx, _ops.gather_nd(fn(da, db), idx), _parts(a)[1])


def maximum(sp_a, sp_b, name=None) -> SparseTensor:
    """The elementwise maximum over the union of both operands' entries (a missing entry is 0)."""
    return _elementwise(sp_a, sp_b, _ops.maximum, "maximum")


def minimum(sp_a, sp_b, name=None) -> SparseTensor:
    """The elementwise minimum over the union of both operands' entries (a missing entry is 0)."""
    return _elementwise(sp_a, sp_b, _ops.minimum, "minimum")


def transpose(sp_input, perm=None, name=None) -> SparseTensor:
    """The entries with their coordinates permuted by ``perm`` (reversed when None), in row-major order."""
    sp = _check(sp_input, "transpose")
    idx, shape = _parts(sp)
    perm = list(range(len(shape)))[::-1] if perm is None else [int(p) for p in perm]
    if sorted(perm) != list(range(len(shape))):
        raise ValueError(f"sparse.transpose: perm must be a permutation of 0..{len(shape) - 1}. Received {perm}")
    return reorder(SparseTensor(idx[:, perm], sp.values, shape[perm]))


def reshape(sp_input, shape, name=None) -> SparseTensor:
    """The same entries in a dense tensor of ``shape`` (one dimension may be -1), row-major order kept."""
    sp = _check(sp_input, "reshape")
    idx, old = _parts(sp)
    new = [int(d) for d in np.ravel(np.asarray(convert_to_tensor(shape).numpy()))]
    total = int(np.prod(old, dtype=np.int64))
    if new.count(-1) > 1:
        raise ValueError(f"sparse.reshape: at most one dimension may be -1. Received {new}")
    if -1 in new:
        known = int(np.prod([d for d in new if d != -1], dtype=np.int64))
        if known == 0 or total % known:
            raise ValueError(f"sparse.reshape: cannot reshape {old.tolist()} to {new}")
        new[new.index(-1)] = total // known
    if int(np.prod(new, dtype=np.int64)) != total:
        raise ValueError(f"sparse.reshape: cannot reshape a tensor of {total} elements ({old.tolist()}) to {new}")
    lin = _linear(idx, old)
    new_idx = np.stack(np.unravel_index(lin, tuple(new)), axis=1).astype(np.int64).reshape(-1, len(new))
    return SparseTensor(new_idx, sp.values, np.array(new, np.int64))


def expand_dims(sp_input, axis=None, name=None) -> SparseTensor:
    """A dimension of size 1 inserted at ``axis`` (-1 appends)."""
    sp = _check(sp_input, "expand_dims")
    idx, shape = _parts(sp)
    axis = -1 if axis is None else int(axis)
    axis = axis + len(shape) + 1 if axis < 0 else axis
    if not 0 <= axis <= len(shape):
        raise ValueError(f"sparse.expand_dims: axis must be in [-{len(shape) + 1}, {len(shape)}]. Received {axis}")
    return SparseTensor(np.insert(idx, axis, 0, axis=1), sp.values, np.insert(shape, axis, 1))


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None) -> SparseTensor:
    """The SparseTensors joined along ``axis`` (other dimensions must agree, or grow to the largest with
    ``expand_nonconcat_dims``)."""
    sps = [_check(s, "concat", "sp_inputs") for s in sp_inputs]
    if not sps:
        raise ValueError("sparse.concat: sp_inputs must not be empty")
    shapes = [_parts(s)[1] for s in sps]
    rank = len(shapes[0])
    axis = int(axis) % rank
    others = [np.delete(s, axis) for s in shapes]
    if expand_nonconcat_dims:
        grown = np.max(others, axis=0)
    elif any(o.tolist() != others[0].tolist() for o in others):
        raise InvalidArgumentError(f"sparse.concat: the dimensions other than {axis} differ: "
                                   f"{[s.tolist() for s in shapes]}")
    else:
        grown = others[0]
    offset, idx = 0, []
    for s, shape in zip(sps, shapes):
        i = _parts(s)[0].copy()
        i[:, axis] += offset
        offset += int(shape[axis])
        idx.append(i)
    out_shape = np.insert(grown, axis, offset)
    return reorder(SparseTensor(np.concatenate(idx), _ops.concat([s.values for s in sps], 0), out_shape))


def retain(sp_input, to_retain) -> SparseTensor:
    """The entries where the boolean vector ``to_retain`` (one per entry) is True."""
    sp = _check(sp_input, "retain")
    keep = np.asarray(convert_to_tensor(to_retain).numpy(), bool)
    idx, shape = _parts(sp)
    if keep.shape != (len(idx),):
        raise ValueError(f"sparse.retain: to_retain must have shape [{len(idx)}]. Received {list(keep.shape)}")
    where = np.nonzero(keep)[0]
    return SparseTensor(idx[where], _ops.gather(sp.values, where), shape)


def slice(sp_input, start, size, name=None) -> SparseTensor:  # noqa: A001 - TF's name
    """The entries inside the box ``[start, start + size)``, re-based at ``start`` (the box clipped to the
    dense shape)."""
    sp = _check(sp_input, "slice")
    idx, shape = _parts(sp)
    start = np.asarray(convert_to_tensor(start, dtype="int64").numpy()).reshape(-1)
    size = np.asarray(convert_to_tensor(size, dtype="int64").numpy()).reshape(-1)
    if len(start) != len(shape) or len(size) != len(shape):
        raise ValueError(f"sparse.slice: start and size must have {len(shape)} entries. Received {start.tolist()}, "
                         f"{size.tolist()}")
    stop = np.minimum(start + size, shape)
    inside = np.all((idx >= start) & (idx < stop), axis=1) if len(idx) else np.zeros(0, bool)
    where = np.nonzero(inside)[0]
    return SparseTensor(idx[where] - start, _ops.gather(sp.values, where), np.maximum(stop - start, 0))


def split(sp_input=None, num_split=None, axis=None, name=None) -> list:
    """``num_split`` SparseTensors along ``axis``; the first ``size % num_split`` pieces one larger, as TF."""
    sp = _check(sp_input, "split")
    shape = _parts(sp)[1]
    axis = int(axis) % len(shape)
    n = int(num_split)
    if n < 1:
        raise ValueError(f"sparse.split: num_split must be >= 1. Received {num_split}")
    base, extra = divmod(int(shape[axis]), n)
    out, begin = [], 0
    for k in range(n):
        width = base + (1 if k < extra else 0)
        start = np.zeros(len(shape), np.int64)
        start[axis] = begin
        size = shape.copy()
        size[axis] = width
        out.append(slice(sp, start, size))
        begin += width
    return out


def reset_shape(sp_input, new_shape=None) -> SparseTensor:
    """The same entries with ``dense_shape`` ``new_shape`` (each dimension at least as large), or the
    tightest shape that holds the indices when None."""
    sp = _check(sp_input, "reset_shape")
    idx, shape = _parts(sp)
    if new_shape is None:
        tight = idx.max(axis=0) + 1 if len(idx) else np.zeros(len(shape), np.int64)
        return SparseTensor(idx, sp.values, tight)
    new = np.asarray(convert_to_tensor(new_shape, dtype="int64").numpy()).reshape(-1)
    if len(new) != len(shape) or (new < shape).any():
        raise ValueError(f"sparse.reset_shape: new_shape {new.tolist()} must have rank {len(shape)} and be at least "
                         f"the current shape {shape.tolist()}")
    return SparseTensor(idx, sp.values, new)


def fill_empty_rows(sp_input, default_value, name=None):
    """``(filled, empty_row_indicator)``: a ``default_value`` entry at column 0 of every row (of dimension 0)
    that has none, and which rows were empty."""
    sp = _check(sp_input, "fill_empty_rows")
    idx, shape = _parts(sp)
    empty = np.ones(int(shape[0]), bool)
    empty[idx[:, 0]] = False
    rows = np.nonzero(empty)[0]
    new_idx = np.zeros((len(rows), len(shape)), np.int64)
    new_idx[:, 0] = rows
    fill = Tensor(np.full(len(rows), default_value, dtype=sp.values.dtype.name))
    filled = reorder(SparseTensor(np.concatenate([idx, new_idx]), _ops.concat([sp.values, fill], 0), shape))
    return filled, Tensor(empty)


def map_values(op, *args, **kwargs):
    """``op`` applied to the values of the SparseTensor arguments (all with the same indices), as TF."""
    sparse = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sparse:
        raise ValueError("sparse.map_values: no SparseTensor among the arguments")
    first = _parts(sparse[0])
    for s in sparse[1:]:
        other = _parts(s)
        if not (np.array_equal(first[0], other[0]) and np.array_equal(first[1], other[1])):
            raise ValueError("sparse.map_values: the SparseTensor arguments must have the same indices and shape")
    unwrap = lambda a: a.values if isinstance(a, SparseTensor) else a  # noqa: E731
    out = op(*[unwrap(a) for a in args], **{k: unwrap(v) for k, v in kwargs.items()})
    return sparse[0].with_values(out)


def mask(a, mask_indices, name=None):
    """TF's ``tf.sparse.mask`` over ``IndexedSlices``: the rows of ``a`` whose index is not in
    ``mask_indices``."""
    from ..framework.indexed_slices import IndexedSlices

    if not isinstance(a, IndexedSlices):
        raise TypeError(f"sparse.mask: `a` must be IndexedSlices. Received {type(a).__name__}")
    rows = np.asarray(convert_to_tensor(a.indices).numpy())
    keep = np.nonzero(~np.isin(rows, np.asarray(convert_to_tensor(mask_indices).numpy())))[0]
    return IndexedSlices(_ops.gather(a.values, keep), Tensor(rows[keep]), a.dense_shape)


def to_indicator(sp_input, vocab_size, name=None):
    """A boolean dense tensor ``[..., vocab_size]``: True at ``[..., v]`` for every value ``v`` in the last
    dimension's row (the values are integer ids below ``vocab_size``)."""
    sp = _check(sp_input, "to_indicator")
    idx, shape = _parts(sp)
    ids = np.asarray(sp.values.numpy())
    if ids.dtype.kind not in "iu":
        raise TypeError(f"sparse.to_indicator: values must be integer ids. Received dtype {ids.dtype.name}")
    if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
        raise InvalidArgumentError(f"sparse.to_indicator: ids must be in [0, {vocab_size}). Received "
                                   f"{ids.min()}..{ids.max()}")
    out = np.zeros(tuple(shape[:-1]) + (int(vocab_size),), bool)
    out[tuple(idx[:, :-1].T) + (ids,)] = True
    return Tensor(out)


def eye(num_rows, num_columns=None, dtype="float32", name=None) -> SparseTensor:
    """The identity matrix ``[num_rows, num_columns]`` as a SparseTensor."""
    cols = num_rows if num_columns is None else int(num_columns)
    n = min(int(num_rows), cols)
    idx = np.stack([np.arange(n), np.arange(n)], axis=1).astype(np.int64).reshape(-1, 2)
    return SparseTensor(idx, _ops.ones([n], dtype=dtype), [int(num_rows), cols])


def softmax(sp_input, name=None) -> SparseTensor:
    """The softmax over the entries present in each innermost row (missing entries take no part)."""
    sp = _check(sp_input, "softmax")
    sp = reorder(sp)
    idx, shape = _parts(sp)
    seg = _linear(idx[:, :-1], shape[:-1]) if len(shape) > 1 else np.zeros(len(idx), np.int64)
    n = int(np.prod(shape[:-1], dtype=np.int64))
    row_max = _ops.gather(_ops.unsorted_segment_max(sp.values, seg, n), seg)
    e = _ops.exp(sp.values - _ops.stop_gradient(row_max))
    return sp.with_values(e / _ops.gather(_ops.unsorted_segment_sum(e, seg, n), seg))
