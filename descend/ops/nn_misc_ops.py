"""``tf.nn.isotonic_regression`` (with its gradient), ``tf.nn.ctc_unique_labels`` and ``tf.nn.with_space_to_batch``.

``isotonic_regression`` solves, for each vector along ``axis``, ``min_y sum_i (x_i - y_i)^2`` subject to
``y_1 >= y_2 >= ... >= y_n`` (``decreasing=True``; ``<=`` otherwise) by pool-adjacent-violators: blocks are
merged while a block's mean is below (above) the next one's, so the solution is each block's mean and equal
neighbours stay separate blocks, as TF. ``segments`` numbers the blocks from 0 within each vector. The output's
gradient is constant within a block, so the input's gradient is the block mean of the upstream gradient (TF's
rule); that map is symmetric, which makes it its own VJP (second derivatives are zero blocks apart).

Example:
    >>> import descend as ds
    >>> y, segments = ds.nn.isotonic_regression([[3.0, 1.0, 2.0], [1.0, 3.0, 5.0]], axis=1)
    >>> y.numpy().tolist(), segments.numpy().tolist()
    ([[3.0, 1.5, 1.5], [3.0, 3.0, 3.0]], [[0, 1, 1], [0, 0, 0]])
"""

from __future__ import annotations

import numpy as np

from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from . import array_ops
from .space_batch_ops import batch_to_space, space_to_batch_nd

__all__ = ["isotonic_regression", "ctc_unique_labels", "with_space_to_batch"]


def _pava(row: np.ndarray, decreasing: bool):
    """``(solution, segments)`` of one vector (float64)."""
    sums, counts = [], []
    for v in (row if decreasing else -row).tolist():
        sums.append(v)
        counts.append(1)
        # merge while the previous block's mean is below the last one's (a strict violation)
        while len(sums) > 1 and sums[-2] * counts[-1] < sums[-1] * counts[-2]:
            s, c = sums.pop(), counts.pop()
            sums[-1] += s
            counts[-1] += c
    means = np.repeat(np.asarray(sums) / np.asarray(counts), counts)
    return (means if decreasing else -means), np.repeat(np.arange(len(counts), dtype=np.int32), counts)


def _solve(x: np.ndarray, decreasing: bool):
    flat = np.moveaxis(x, -1, 0).reshape(x.shape[-1], -1).T.astype(np.float64) if x.ndim else x.reshape(1, 1)
    out, seg = np.empty(flat.shape), np.empty(flat.shape, np.int32)
    for i, row in enumerate(flat):
        out[i], seg[i] = _pava(row, decreasing)
    shape = x.shape[:-1] + (x.shape[-1],)
    return out.reshape(shape), seg.reshape(shape)


@defop("isotonic_regression")
def _isotonic(x, decreasing=True):
    return _solve(x, decreasing)[0].astype(x.dtype)


@defop("isotonic_segment_mean")
def _segment_mean(g, segments=None):
    """The mean of ``g`` over each block of ``segments`` (along the last axis), broadcast back."""
    flat_g = g.reshape(-1, g.shape[-1]).astype(np.float64)
    flat_s = np.asarray(segments).reshape(flat_g.shape)
    out = np.empty(flat_g.shape)
    for i in range(flat_g.shape[0]):
        counts = np.bincount(flat_s[i])
        out[i] = (np.bincount(flat_s[i], weights=flat_g[i]) / counts)[flat_s[i]]
    return out.reshape(g.shape).astype(g.dtype)


_segment_mean.defvjp(lambda gg, ans, g, segments=None: _segment_mean(gg, segments=segments))  # symmetric


@_isotonic.defvjp
def _(g, ans, x, decreasing=True):
    return _segment_mean(g, segments=_solve(x.numpy(), decreasing)[1])


def isotonic_regression(inputs, decreasing: bool = True, axis: int = -1, name=None):
    """The isotonic (monotone) least-squares fit of each vector along ``axis`` (``tf.nn.isotonic_regression``).

    Args:
        inputs: a float or integer Tensor (integers give float64, as TF).
        decreasing: the fit is non-increasing (default) or, with False, non-decreasing.
        axis: the axis of the vectors.

    Returns:
        ``(output, segments)``: the fit (the input's float dtype) and the int32 block numbers.
    """
    x = convert_to_tensor(inputs)
    if x.ndim == 0:
        raise ValueError("isotonic_regression: inputs must have rank >= 1")
    if x.dtype.kind in "iu":
        x = Tensor(x.numpy().astype(np.float64))
    elif x.dtype.kind != "f":
        raise TypeError(f"isotonic_regression: inputs must be float or integer. Received dtype {x.dtype.name}")
    if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"isotonic_regression: axis must be an int in [{-x.ndim}, {x.ndim}). Received axis={axis!r}")
    axis = int(axis) % x.ndim
    last = axis == x.ndim - 1
    perm = tuple(i for i in range(x.ndim) if i != axis) + (axis,)
    moved = x if last else array_ops.transpose(x, perm=perm)
    out = _isotonic(moved, decreasing=bool(decreasing))
    segments = _solve(moved.numpy(), bool(decreasing))[1]
    if not last:
        back = tuple(np.argsort(perm))
        out = array_ops.transpose(out, perm=back)
        segments = np.transpose(segments, back)
    return out, Tensor(segments)


def ctc_unique_labels(labels, name=None):
    """The distinct labels of each row in order of first appearance, padded with 0 to the row length, and each
    label's index among them (``tf.nn.ctc_unique_labels``): ``(int64 [batch, max_len], int32 [batch, max_len])``."""
    a = convert_to_tensor(labels).numpy()
    if a.ndim != 2 or a.dtype.kind not in "iu":
        raise ValueError(f"ctc_unique_labels: labels must be a [batch, max_label_length] integer Tensor. Received "
                         f"shape {a.shape}, dtype {a.dtype.name}")
    unique = np.zeros(a.shape, np.int64)
    index = np.zeros(a.shape, np.int32)
    for i, row in enumerate(a.tolist()):
        seen: dict = {}
        for j, v in enumerate(row):
            index[i, j] = seen.setdefault(v, len(seen))
        unique[i, :len(seen)] = list(seen)
    return Tensor(unique), Tensor(index)


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,  # noqa: A002
                        data_format=None):
    """``op`` run on the ``space_to_batch`` of ``input`` and its result brought back by ``batch_to_space``
    (``tf.nn.with_space_to_batch``): how a ``"VALID"`` op becomes its dilated form.

    With block ``dilation_rate`` over ``spatial_dims`` (default the axes after the batch, or after the channels
    for an ``"NC..."`` ``data_format``), the input is padded by ``(filter - 1) * rate`` split as TF does
    (``"SAME"``, which needs ``filter_shape``) or not at all (``"VALID"``), plus what makes each padded size a
    multiple of the rate, moved into the batch, given to ``op(converted, num_spatial_dims, "VALID")``, and the
    extra padding cropped off the result. With every rate 1 it is ``op(input, num_spatial_dims, padding)``.

    Example:
        >>> import descend as ds, numpy as np
        >>> x = ds.constant(np.arange(16.0).reshape(1, 4, 4, 1))
        >>> pool = lambda v, n, p: ds.nn.pool(v, [2, 2], "MAX", padding=p)
        >>> ds.nn.with_space_to_batch(x, [2, 2], "VALID", pool).shape
        TensorShape([1, 2, 2, 1])
    """
    owner = "with_space_to_batch"
    x = convert_to_tensor(input)
    rates = np.asarray(dilation_rate.numpy() if hasattr(dilation_rate, "numpy") else dilation_rate)
    if rates.ndim != 1 or rates.size == 0 or rates.dtype.kind not in "iu" or np.any(rates < 1):
        raise ValueError(f"{owner}: dilation_rate must be a non-empty vector of positive integers. Received "
                         f"{dilation_rate!r}")
    n = rates.size
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"{owner}: padding must be 'SAME' or 'VALID'. Received: padding={padding!r}")
    if np.all(rates == 1):
        return op(x, n, padding)
    if spatial_dims is None:
        first = 2 if data_format is not None and str(data_format).startswith("NC") else 1
        spatial_dims = list(range(first, first + n))
    dims = [int(d) for d in spatial_dims]
    if len(dims) != n or any(b <= a for a, b in zip(dims, dims[1:])) or dims[0] < 1 or dims[-1] >= x.ndim:
        raise ValueError(f"{owner}: spatial_dims must be {n} increasing axes in [1, {x.ndim}). Received "
                         f"{spatial_dims!r}")
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError(f"{owner}: filter_shape must be given for padding='SAME'")
        filt = np.asarray(filter_shape.numpy() if hasattr(filter_shape, "numpy") else filter_shape)[:n]
        extra = (filt.astype(np.int64) - 1) * rates
        base = np.stack([extra // 2, extra - extra // 2], axis=1)
    else:
        base = np.zeros((n, 2), np.int64)
    size = np.asarray([x.shape[d] for d in dims], np.int64)
    end_extra = (rates - (size + base.sum(axis=1)) % rates) % rates  # each padded size a multiple of its rate
    # TF's block covers the axes 1 .. the last spatial one: rate 1 and no padding on the others
    block = np.ones(dims[-1], np.int64)
    pads = np.zeros((dims[-1], 2), np.int64)
    crops = np.zeros((dims[-1], 2), np.int64)
    for k, d in enumerate(dims):
        block[d - 1] = rates[k]
        pads[d - 1] = (base[k, 0], base[k, 1] + end_extra[k])
        crops[d - 1, 1] = end_extra[k]
    result = op(space_to_batch_nd(x, block, pads), n, "VALID")
    return batch_to_space(result, block, crops)
