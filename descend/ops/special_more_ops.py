"""The modified Bessel functions ``bessel_i0``/``bessel_i1`` and the segment product, with their VJPs (issue 37:
Keras 3's ``ops.i0`` and ``ops.segment_prod``).

* ``I0(x) = sum_k (x/2)^(2k) / (k!)^2`` and ``I1(x) = sum_k (x/2)^(2k+1) / (k! (k+1)!)``: every term is positive
  (no cancellation), each term is the previous one times ``(x/2)^2 / (k (k + j))``, and the sums run until a term
  no longer changes them (about ``|x| + 10 sqrt(|x|)`` terms). ``I0' = I1``, ``I1' = I0 - I1 / x`` (``1/2`` at 0).
* ``unsorted_segment_prod(data, segment_ids, num_segments)``: the product of the rows of each segment (1 for an
  empty one), as ``tf.math.unsorted_segment_prod``. The derivative of a product by one factor is the product of
  the others: ``out / x`` where ``x != 0``; where ``x == 0`` it is the product of the segment's other factors,
  which is non-zero only when ``x`` is the segment's only zero.

Example:
    >>> import descend as ds
    >>> from descend.ops.special_more_ops import bessel_i0, unsorted_segment_prod
    >>> round(float(bessel_i0(ds.constant(1.0))), 6)
    1.266066
    >>> unsorted_segment_prod(ds.constant([2.0, 3.0, 4.0]), [0, 1, 0], 2).numpy().tolist()
    [8.0, 3.0]
"""

from __future__ import annotations

import numpy as np

from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from . import array_ops, math_ops

__all__ = ["bessel_i0", "bessel_i1", "unsorted_segment_prod"]


def _bessel_series(x: np.ndarray, order: int) -> np.ndarray:
    half_sq = (np.asarray(x, np.float64) / 2.0) ** 2
    term = np.ones_like(half_sq) if order == 0 else np.asarray(x, np.float64) / 2.0
    total = term.copy()
    k = 1
    with np.errstate(over="ignore", invalid="ignore"):
        while True:
            term = term * half_sq / (k * (k + order))  # t_k = t_{k-1} (x/2)^2 / (k (k + order))
            new = total + term
            done = (new == total) | ~np.isfinite(new)  # converged, or overflowed / NaN for good
            total = new
            if np.all(done):
                break
            k += 1
    return total


@defop("bessel_i0")
def _bessel_i0(x):
    return _bessel_series(x, 0).astype(x.dtype)


@defop("bessel_i1")
def _bessel_i1(x):
    return _bessel_series(x, 1).astype(x.dtype)


@_bessel_i0.defvjp
def _(g, ans, x):
    # I0' = I1
    return math_ops.multiply(g, _bessel_i1(x))


@_bessel_i1.defvjp
def _(g, ans, x):
    # I1' = I0 - I1 / x, and 1/2 at x = 0
    zero = math_ops.equal(x, 0.0)
    safe_x = math_ops.where(zero, math_ops.ones_like(x), x)
    slope = math_ops.subtract(_bessel_i0(x), math_ops.divide(ans, safe_x))
    return math_ops.multiply(g, math_ops.where(zero, math_ops.multiply(math_ops.ones_like(x), 0.5), slope))


def _float_tensor(x, owner):
    x = convert_to_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"{owner}: `x` must be a float tensor. Received dtype {x.dtype.name}")
    return x


def bessel_i0(x) -> Tensor:
    """The modified Bessel function of the first kind of order 0, elementwise (``tf.math.bessel_i0``)."""
    return _bessel_i0(_float_tensor(x, "bessel_i0"))


def bessel_i1(x) -> Tensor:
    """The modified Bessel function of the first kind of order 1, elementwise (``tf.math.bessel_i1``)."""
    return _bessel_i1(_float_tensor(x, "bessel_i1"))


@defop("unsorted_segment_prod")
def _unsorted_segment_prod(data, segment_ids, num_segments=1):
    ids = np.asarray(segment_ids).astype(np.int64)
    out = np.ones((num_segments,) + data.shape[ids.ndim:], data.dtype)
    keep = ids >= 0  # negative ids are dropped, as TF's
    np.multiply.at(out, ids[keep], data[keep])
    return out


@_unsorted_segment_prod.defvjp
def _(g, ans, data, segment_ids, num_segments=1):
    ids = np.asarray(segment_ids.numpy() if hasattr(segment_ids, "numpy") else segment_ids).astype(np.int64)
    keep = ids >= 0
    safe_ids = np.where(keep, ids, 0).astype(np.int32)
    is_zero = math_ops.equal(data, 0.0)
    ones = math_ops.ones_like(data)
    # the product of the segment's non-zero factors, and its number of zeros
    nonzero_prod = _unsorted_segment_prod(math_ops.where(is_zero, ones, data), segment_ids,
                                          num_segments=num_segments)
    zeros = _unsorted_segment_prod(math_ops.where(is_zero, math_ops.multiply(ones, 2.0), ones), segment_ids,
                                   num_segments=num_segments)  # 2 ** (number of zeros)
    at_rows = array_ops.gather(ans, safe_ids)
    others_if_zero = math_ops.where(math_ops.equal(array_ops.gather(zeros, safe_ids), 2.0),
                                     array_ops.gather(nonzero_prod, safe_ids), math_ops.zeros_like(data))
    safe_data = math_ops.where(is_zero, ones, data)
    others = math_ops.where(is_zero, others_if_zero, math_ops.divide(at_rows, safe_data))
    grad = math_ops.multiply(array_ops.gather(g, safe_ids), others)
    mask = keep.reshape(keep.shape + (1,) * (len(data.shape) - keep.ndim)).astype(data.dtype.name)
    return math_ops.multiply(grad, mask), None


def unsorted_segment_prod(data, segment_ids, num_segments) -> Tensor:
    """The product of the rows of ``data`` in each of ``num_segments`` segments (1 where a segment is empty;
    rows with a negative id are dropped), as ``tf.math.unsorted_segment_prod``."""
    data = convert_to_tensor(data)
    ids = np.asarray(segment_ids.numpy() if hasattr(segment_ids, "numpy") else segment_ids)
    if ids.dtype.kind not in "iu":
        raise TypeError(f"unsorted_segment_prod: `segment_ids` must be integers. Received dtype {ids.dtype}")
    if tuple(ids.shape) != tuple(data.shape[:ids.ndim]):
        raise ValueError(f"unsorted_segment_prod: `segment_ids` must have the shape of a prefix of `data`'s shape "
                         f"{tuple(data.shape)}. Received shape {tuple(ids.shape)}")
    num_segments = int(num_segments)
    if ids.size and ids.max() >= num_segments:
        raise ValueError(f"unsorted_segment_prod: `segment_ids` must be < num_segments={num_segments}. "
                         f"Received max id {int(ids.max())}")
    return _unsorted_segment_prod(data, ids.astype(np.int32), num_segments=num_segments)
