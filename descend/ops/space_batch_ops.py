"""Space-to-batch and batch-to-space (``tf.space_to_batch_nd``, ``tf.batch_to_space`` and their helper
``tf.required_space_to_batch_paddings``): blocks of the spatial axes moved into the batch axis and back, as
TensorFlow uses them to run a dilated convolution as a plain one.

Both are pads/crops, reshapes and transposes of descend's ops, so the tape differentiates them with those ops'
gradients (each is the other's adjoint up to the padding).

Example:
    >>> import numpy as np, descend as ds
    >>> x = np.arange(16.0).reshape(1, 4, 4, 1)
    >>> y = ds.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 0]])
    >>> y.shape, y.numpy()[:, :, :, 0].tolist()[1]
    (TensorShape([4, 2, 2, 1]), [[1.0, 3.0], [9.0, 11.0]])
    >>> bool(np.all(ds.batch_to_space(y, [2, 2], [[0, 0], [0, 0]]).numpy() == x))
    True
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.tensor import Tensor, convert_to_tensor
from . import array_ops, core_ops

__all__ = ["space_to_batch_nd", "space_to_batch", "batch_to_space", "required_space_to_batch_paddings"]


def _ints(fn, what, value, shape=None) -> np.ndarray:
    a = np.asarray(value._value if isinstance(value, Tensor) else value)
    if a.dtype.kind not in "iu" and not (a.size == 0 and a.dtype.kind == "f"):
        raise InvalidArgumentError(f"{fn}: `{what}` must be ints; received {value!r} of dtype {a.dtype}")
    a = a.astype(np.int64)
    if shape is not None and a.shape != shape:
        raise InvalidArgumentError(f"{fn}: `{what}` must have shape {shape}; received shape {a.shape}")
    return a


def _block(fn, block_shape, x) -> np.ndarray:
    b = _ints(fn, "block_shape", block_shape)
    if b.ndim != 1 or b.size < 1:
        raise InvalidArgumentError(f"{fn}: `block_shape` must be a non-empty 1-D list of ints; received shape "
                                   f"{b.shape}")
    if np.any(b < 1):
        raise InvalidArgumentError(f"{fn}: every `block_shape` entry must be >= 1; received {b.tolist()}")
    if x.ndim < 1 + b.size:
        raise InvalidArgumentError(f"{fn}: the input needs rank >= 1 + len(block_shape) = {1 + b.size}; received "
                                   f"shape {x.shape}")
    return b


def space_to_batch_nd(input, block_shape, paddings, name=None):  # noqa: A002 - TF's name
    """Zero-pad the ``M = len(block_shape)`` spatial axes after the batch axis by ``paddings`` (``[M, 2]``:
    before, after), cut them into ``block_shape`` blocks and move each block offset into the batch axis:
    ``[N, p_1, ..., p_M, rest...]`` -> ``[N * prod(block_shape), p_1 / b_1, ..., p_M / b_M, rest...]``, the
    block offset the outer part of the new batch index (as ``tf.space_to_batch_nd``)."""
    x = convert_to_tensor(input)
    b = _block("space_to_batch_nd", block_shape, x)
    m = b.size
    p = _ints("space_to_batch_nd", "paddings", paddings, (m, 2))
    if np.any(p < 0):
        raise InvalidArgumentError(f"space_to_batch_nd: `paddings` must be non-negative; received {p.tolist()}")
    padded = [int(x.shape[1 + i] + p[i].sum()) for i in range(m)]
    bad = [i for i in range(m) if padded[i] % b[i]]
    if bad:
        i = bad[0]
        raise InvalidArgumentError(f"space_to_batch_nd: padded spatial axis {i + 1} ({padded[i]} = {x.shape[1 + i]} "
                                   f"+ {p[i].tolist()}) is not divisible by block_shape[{i}] = {int(b[i])}")
    n, rest = int(x.shape[0]), tuple(x.shape[1 + m:])
    full = np.zeros((x.ndim, 2), np.int64)
    full[1:1 + m] = p
    y = array_ops.pad(x, full.tolist()) if p.any() else x
    split = [n]
    for i in range(m):
        split += [padded[i] // int(b[i]), int(b[i])]
    y = core_ops.reshape(y, split + list(rest))
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    y = array_ops.transpose(y, perm)
    return core_ops.reshape(y, [n * int(np.prod(b))] + [padded[i] // int(b[i]) for i in range(m)] + list(rest))


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002 - TF's name
    """``tf.space_to_batch`` (TF 2's, taking ``block_shape``): the same as :func:`space_to_batch_nd`."""
    return space_to_batch_nd(input, block_shape, paddings)


def batch_to_space(input, block_shape, crops, name=None):  # noqa: A002 - TF's name
    """The inverse of :func:`space_to_batch_nd`: ``[N * prod(block_shape), d_1, ..., d_M, rest...]`` ->
    ``[N, d_1 * b_1, ..., d_M * b_M, rest...]`` with ``crops`` (``[M, 2]``: before, after) cut off each spatial
    axis (as TF 2's ``tf.batch_to_space``, i.e. ``batch_to_space_nd``)."""
    x = convert_to_tensor(input)
    b = _block("batch_to_space", block_shape, x)
    m = b.size
    c = _ints("batch_to_space", "crops", crops, (m, 2))
    if np.any(c < 0):
        raise InvalidArgumentError(f"batch_to_space: `crops` must be non-negative; received {c.tolist()}")
    prod = int(np.prod(b))
    if x.shape[0] % prod:
        raise InvalidArgumentError(f"batch_to_space: the batch size {x.shape[0]} is not divisible by "
                                   f"prod(block_shape) = {prod}")
    n, dims, rest = x.shape[0] // prod, [int(d) for d in x.shape[1:1 + m]], tuple(x.shape[1 + m:])
    full = [dims[i] * int(b[i]) for i in range(m)]
    over = [i for i in range(m) if c[i].sum() > full[i]]
    if over:
        i = over[0]
        raise InvalidArgumentError(f"batch_to_space: crops[{i}] = {c[i].tolist()} remove more than spatial axis "
                                   f"{i + 1}'s {full[i]} entries")
    y = core_ops.reshape(x, [int(v) for v in b] + [n] + dims + list(rest))
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    y = array_ops.transpose(y, perm)
    y = core_ops.reshape(y, [n] + full + list(rest))
    if not c.any():
        return y
    key = (slice(None),) + tuple(slice(int(c[i, 0]), full[i] - int(c[i, 1])) for i in range(m))
    return y[key]


def required_space_to_batch_paddings(input_shape, block_shape, base_paddings=None, name=None):
    """``(paddings, crops)``, int32 ``[M, 2]``: the least extra padding at the end of each spatial axis that
    makes ``input_shape + base_paddings`` divisible by ``block_shape`` (``paddings`` = ``base_paddings`` plus
    that), and the crops that take the extra off again (``[0, extra]``), as
    ``tf.required_space_to_batch_paddings``."""
    fn = "required_space_to_batch_paddings"
    b = _ints(fn, "block_shape", block_shape)
    if b.ndim != 1:
        raise InvalidArgumentError(f"{fn}: `block_shape` must be 1-D; received shape {b.shape}")
    m = b.size
    s = _ints(fn, "input_shape", input_shape, (m,))
    base = np.zeros((m, 2), np.int64) if base_paddings is None else _ints(fn, "base_paddings", base_paddings, (m, 2))
    if np.any(b < 1):
        raise InvalidArgumentError(f"{fn}: every `block_shape` entry must be >= 1; received {b.tolist()}")
    total = s + base[:, 0] + base[:, 1]
    extra = (b - total % b) % b
    paddings = np.stack([base[:, 0], base[:, 1] + extra], axis=1).astype(np.int32)
    crops = np.stack([np.zeros(m, np.int64), extra], axis=1).astype(np.int32)
    return Tensor(paddings), Tensor(crops)
