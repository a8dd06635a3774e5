"""``tf.math.unsorted_segment_prod`` and ``tf.math.segment_prod``: the product of each segment (1 for an
empty one), with TF's gradient, exact where entries are zero.

For an entry ``x_i`` of segment ``k`` with product ``P_k``: ``dP_k/dx_i`` is the product of the segment's other
entries. Without a zero in the segment that is ``P_k / x_i``; with exactly one zero it is 0 for every entry
but the zero, whose derivative is the product of the segment's non-zero entries; with two zeros or more it is
0 everywhere. So the VJP needs the product of the non-zero entries (one more segment product) and the count
of zeros per segment, no division by zero.

Example:
    >>> import descend as ds
    >>> ds.math.unsorted_segment_prod([2.0, 3.0, 0.0, 4.0], [0, 0, 1, 1], num_segments=3).numpy().tolist()
    [6.0, 0.0, 1.0]
"""

from __future__ import annotations

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.op import defop
from ..framework.tensor import Tensor
from ._util import check_segment_prefix
from .array_ops import gather, unsorted_segment_sum
from .math_ops import cast, divide, equal, greater, multiply, ones_like, where, zeros_like
from .selection_ops import _segment_ids, _sorted_segments

__all__ = ["unsorted_segment_prod", "segment_prod"]


@defop("unsorted_segment_prod")
def _unsorted_segment_prod(data, segment_ids, num_segments=None):
    ids = np.asarray(segment_ids)
    n = int(num_segments)
    check_segment_prefix("unsorted_segment_prod", data, ids)
    if ids.size and ids.max() >= n:
        raise InvalidArgumentError(f"unsorted_segment_prod: segment_ids must be < num_segments = {n}. Received: max "
                                   f"{ids.max()}")
    out = np.ones((n,) + data.shape[ids.ndim:], data.dtype)
    keep = ids >= 0  # a negative id drops its entry, as TF's unsorted segment ops
    np.multiply.at(out, ids[keep], data[keep])
    return out


@_unsorted_segment_prod.defvjp
def _(g, ans, data, segment_ids, num_segments=None):
    ids = np.asarray(segment_ids.numpy())
    if ids.size and ids.min() < 0:  # dropped entries get no gradient
        keep = Tensor((ids >= 0).reshape(ids.shape + (1,) * (data.ndim - ids.ndim)))
        grad = _vjp_data(g, ans, data, np.maximum(ids, 0), num_segments)
        return where(keep, grad, zeros_like(grad)), None
    return _vjp_data(g, ans, data, segment_ids, num_segments), None


def _vjp_data(g, ans, data, segment_ids, num_segments):
    is_zero = equal(data, zeros_like(data))
    zeros = gather(unsorted_segment_sum(cast(is_zero, data.dtype), segment_ids, num_segments=num_segments),
                   segment_ids)
    # the product of the segment's non-zero entries: the derivative at its single zero
    nonzero = where(is_zero, ones_like(data), data)
    nonzero_prod = gather(_unsorted_segment_prod(nonzero, segment_ids, num_segments=num_segments), segment_ids)
    others = where(is_zero, nonzero_prod, divide(gather(ans, segment_ids), nonzero))  # prod / x where x != 0
    others = where(greater(zeros, ones_like(zeros)), zeros_like(others), others)  # two zeros or more: 0
    return multiply(gather(g, segment_ids), others)


def unsorted_segment_prod(data, segment_ids, num_segments, name=None):
    """The product of each segment: ``out[k] = prod of data[i] with segment_ids[i] == k`` for k < num_segments,
    1 for an empty segment (``tf.math.unsorted_segment_prod``).

    Args:
        data: a Tensor; ``segment_ids.shape`` must be a prefix of its shape.
        segment_ids: integer ids below ``num_segments``, in any order; an entry with a negative id is dropped.
        num_segments: the number of output rows.
    """
    ids = _segment_ids(segment_ids, "unsorted_segment_prod")
    if isinstance(num_segments, bool) or int(np.asarray(num_segments)) != np.asarray(num_segments) or \
            int(np.asarray(num_segments)) < 0:
        raise ValueError(f"unsorted_segment_prod: `num_segments` must be a non-negative integer. Received: "
                         f"num_segments={num_segments!r}")
    return _unsorted_segment_prod(data, ids, num_segments=int(np.asarray(num_segments)))


def segment_prod(data, segment_ids, name=None):
    """The product of each segment of sorted ``segment_ids`` (``tf.math.segment_prod``; an empty segment is 1)."""
    n = _sorted_segments(segment_ids, "segment_prod")
    return _unsorted_segment_prod(data, _segment_ids(segment_ids, "segment_prod"), num_segments=n)
