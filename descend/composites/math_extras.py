"""The composite ``tf.math`` functions: built from descend's ops, so the tape differentiates them
(public as ``descend.math``)."""

from __future__ import annotations

import numpy as _np

from ..ops.elementwise_ops import erfinv
from ..ops.math_ops import (
    add, add_n, cumsum, exp, identity, log, logical_and, logical_not, logical_or, maximum, multiply, negative,
    reduce_max, reduce_mean, reduce_sum, rsqrt, sqrt, square, squared_difference, subtract, zeros_like
)
from ..ops.nn_ops import softplus
from ..ops.selection_ops import top_k

__all__ = [
    "reduce_variance", "reduce_std", "l2_normalize", "log_sigmoid", "logical_xor", "scalar_mul",
    "reduce_euclidean_norm", "cumulative_logsumexp", "polyval", "zero_fraction", "is_non_decreasing",
    "is_strictly_increasing", "bincount", "truncatediv", "truncatemod", "confusion_matrix", "accumulate_n",
    "ndtri", "erfcinv", "real", "imag", "conj", "angle", "approx_max_k", "approx_min_k", "nextafter"
]


def reduce_variance(input_tensor, axis=None, keepdims: bool = False, name=None):
    """The population variance over ``axis``: ``mean(square(x - mean(x)))`` (as ``tf.math.reduce_variance``)."""
    mean = reduce_mean(input_tensor, axis=axis, keepdims=True)
    return reduce_mean(squared_difference(input_tensor, mean), axis=axis, keepdims=keepdims)


def reduce_std(input_tensor, axis=None, keepdims: bool = False, name=None):
    """The population standard deviation over ``axis``: ``sqrt(reduce_variance(x))``."""
    return sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


def l2_normalize(x, axis=None, epsilon: float = 1e-12, name=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``, as ``tf.math.l2_normalize``."""
    squared = reduce_sum(square(x), axis=axis, keepdims=True)
    return multiply(x, rsqrt(maximum(squared, epsilon)))


def log_sigmoid(x, name=None):
    """``log(sigmoid(x)) = -softplus(-x)``, stable for large ``|x|`` (``tf.math.log_sigmoid``)."""
    return negative(softplus(negative(x)))


def logical_xor(x, y, name=None):
    """Elementwise ``x != y`` of two bool tensors (``tf.math.logical_xor``)."""
    return logical_and(logical_or(x, y), logical_not(logical_and(x, y)))


def scalar_mul(scalar, x, name=None):
    """``scalar * x`` for a scalar ``scalar`` (``tf.math.scalar_mul``)."""
    if _np.ndim(getattr(scalar, "_value", scalar)) != 0:
        raise ValueError(f"scalar_mul: `scalar` must be a scalar. Received shape {_np.shape(scalar)}")
    return multiply(scalar, x)


def reduce_euclidean_norm(input_tensor, axis=None, keepdims: bool = False, name=None):
    """``sqrt(sum(x**2))`` over ``axis`` (``tf.math.reduce_euclidean_norm``)."""
    return sqrt(reduce_sum(square(input_tensor), axis=axis, keepdims=keepdims))


def cumulative_logsumexp(x, axis=0, exclusive: bool = False, reverse: bool = False, name=None):
    """``log(cumsum(exp(x)))`` along ``axis``, computed after subtracting the maximum along ``axis``
    (``tf.math.cumulative_logsumexp``; an empty exclusive prefix is ``-inf``)."""
    from ..framework.tensor import convert_to_tensor
    from ..ops.math_ops import stop_gradient

    x = convert_to_tensor(x)
    top = stop_gradient(reduce_max(x, axis=axis, keepdims=True))
    with _np.errstate(divide="ignore"):
        return add(log(cumsum(exp(subtract(x, top)), axis=axis, exclusive=exclusive, reverse=reverse)), top)


def polyval(coeffs, x, name=None):
    """``coeffs[0] * x**(n-1) + ... + coeffs[n-1]`` by Horner's rule (``tf.math.polyval``)."""
    from ..framework.tensor import convert_to_tensor

    x = convert_to_tensor(x)
    if not list(coeffs):
        return multiply(x, 0.0)
    out = convert_to_tensor(coeffs[0], dtype=x.dtype)
    for c in list(coeffs)[1:]:
        out = add(multiply(out, x), convert_to_tensor(c, dtype=x.dtype))
    return out


def zero_fraction(value, name=None):
    """The fraction of entries of ``value`` that are zero, as float32 (``tf.math.zero_fraction``)."""
    from ..framework.tensor import Tensor, convert_to_tensor

    v = convert_to_tensor(value).numpy()
    return Tensor(_np.float32(_np.mean(v == 0) if v.size else _np.nan))


def is_non_decreasing(x, name=None):
    """Whether the flattened ``x`` never decreases (``tf.math.is_non_decreasing``; True when empty)."""
    from ..framework.tensor import Tensor, convert_to_tensor

    return Tensor(_np.bool_(_np.all(_np.diff(convert_to_tensor(x).numpy().reshape(-1)) >= 0)))


def is_strictly_increasing(x, name=None):
    """Whether the flattened ``x`` always increases (``tf.math.is_strictly_increasing``; True when empty)."""
    from ..framework.tensor import Tensor, convert_to_tensor

    return Tensor(_np.bool_(_np.all(_np.diff(convert_to_tensor(x).numpy().reshape(-1)) > 0)))


def bincount(arr, weights=None, minlength=None, maxlength=None, dtype="int32", axis=None, binary_output=False, name=None):
    """How many times each value ``0..max(arr)`` occurs in the non-negative ints ``arr`` (weighted sums with
    ``weights``), as ``tf.math.bincount`` over the flattened input (``axis`` None) or per row (``axis=-1``)."""
    from .. import backend
    from ..framework.tensor import Tensor, convert_to_tensor

    a = convert_to_tensor(arr).numpy()
    if a.dtype.kind not in "iu" or (a.size and a.min() < 0):
        raise ValueError("bincount: `arr` must hold non-negative integers")
    w = None if weights is None else convert_to_tensor(weights).numpy()
    size = int(a.max()) + 1 if a.size else 0
    if minlength is not None:
        size = max(size, int(minlength))
    if maxlength is not None:
        size = min(size, int(maxlength))
    out_dtype = w.dtype if w is not None else backend.np_dtype(dtype)

    def count(values, wts):
        keep = values < size
        values = values[keep]
        if binary_output:
            out = _np.zeros(size, out_dtype)
            out[values] = 1
            return out
        return _np.bincount(values, None if wts is None else wts[keep], minlength=size)[:size].astype(out_dtype)

    if axis is None or a.ndim <= 1:
        return Tensor(count(a.reshape(-1), None if w is None else w.reshape(-1)))
    if axis not in (-1, a.ndim - 1) or a.ndim != 2:
        raise ValueError(f"bincount: `axis` must be None or -1 (rows of a matrix). Received: axis={axis}")
    return Tensor(_np.stack([count(r, None if w is None else wr) for r, wr in
                             zip(a, w if w is not None else [None] * len(a))]))


def truncatediv(x, y, name=None):
    """Integer division rounding toward zero (C's ``/``), as ``tf.truncatediv``; no gradient."""
    from ..framework.tensor import Tensor, convert_to_tensor

    a, b = convert_to_tensor(x).numpy(), convert_to_tensor(y).numpy()
    if a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
        raise TypeError("truncatediv: `x` and `y` must be integer tensors")
    if _np.any(b == 0):
        from ..errors import InvalidArgumentError

        raise InvalidArgumentError("truncatediv: Integer division by zero")
    q = _np.abs(a) // _np.abs(b)
    return Tensor((q * _np.sign(a) * _np.sign(b)).astype(_np.result_type(a, b)))


def truncatemod(x, y, name=None):
    """The remainder of division rounding toward zero (C's ``fmod``: the sign of ``x``), as
    ``tf.truncatemod``; no gradient."""
    from ..framework.tensor import Tensor, convert_to_tensor

    a, b = convert_to_tensor(x).numpy(), convert_to_tensor(y).numpy()
    with _np.errstate(divide="ignore", invalid="ignore"):
        return Tensor(_np.fmod(a, b))


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype="int32", name=None):
    """``m[i, j]``: how many examples of label ``i`` were predicted ``j`` (``tf.math.confusion_matrix``)."""
    from .. import backend
    from ..framework.tensor import Tensor, convert_to_tensor

    lab = convert_to_tensor(labels).numpy().reshape(-1).astype(_np.int64)
    pred = convert_to_tensor(predictions).numpy().reshape(-1).astype(_np.int64)
    if lab.shape != pred.shape:
        raise ValueError(f"confusion_matrix: labels and predictions differ in size: {lab.size} vs {pred.size}")
    if (lab.size and min(lab.min(), pred.min()) < 0):
        raise ValueError("confusion_matrix: labels and predictions must be non-negative")
    n = int(num_classes) if num_classes is not None else int(max(lab.max(initial=-1), pred.max(initial=-1)) + 1)
    w = _np.ones(lab.size) if weights is None else convert_to_tensor(weights).numpy().reshape(-1)
    out = _np.zeros((n, n), backend.np_dtype(dtype))
    _np.add.at(out, (lab, pred), w.astype(out.dtype))
    return Tensor(out)


def accumulate_n(inputs, shape=None, tensor_dtype=None, name=None):
    """The sum of a list of tensors of one shape (``tf.math.accumulate_n``, which is ``add_n``)."""
    return add_n(inputs)


def ndtri(x, name=None):
    """The inverse of the standard normal CDF: ``sqrt(2) * erfinv(2x - 1)`` (``tf.math.ndtri``)."""
    from ..ops.elementwise_ops import erfinv

    return multiply(erfinv(subtract(multiply(x, 2.0), 1.0)), 1.4142135623730951)


def erfcinv(x, name=None):
    """The inverse of ``erfc``: ``-ndtri(x / 2) / sqrt(2)`` (``tf.math.erfcinv``)."""
    return multiply(ndtri(multiply(x, 0.5)), -0.7071067811865476)


def real(input, name=None):  # noqa: A002 - TF's name
    """The real part: ``input`` itself (descend's tensors are real), as ``tf.math.real``."""
    return identity(input)


def imag(input, name=None):  # noqa: A002 - TF's name
    """The imaginary part: zeros (descend's tensors are real), as ``tf.math.imag``."""
    return zeros_like(input)


def conj(x, name=None):
    """The complex conjugate: ``x`` itself for real tensors (``tf.math.conj``)."""
    return identity(x)


def angle(input, name=None):  # noqa: A002 - TF's name
    """The argument of a real number: pi where negative, else 0 (``tf.math.angle``; no gradient)."""
    from ..framework.tensor import Tensor, convert_to_tensor

    x = convert_to_tensor(input).numpy()
    return Tensor(_np.where(x < 0, _np.pi, 0.0).astype(x.dtype if x.dtype.kind == "f" else _np.float32))


def approx_max_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The ``k`` largest values and their indices along the last axis, exactly (``tf.math.approx_max_k``
    may return an approximation; the exact answer meets any recall target)."""
    if reduction_dimension not in (-1, len(getattr(operand, "shape", ())) - 1):
        raise ValueError(f"approx_max_k: only the last axis is supported. Received: {reduction_dimension}")
    return top_k(operand, k)


def approx_min_k(operand, k, reduction_dimension=-1, recall_target=0.95, reduction_input_size_override=-1,
                 aggregate_to_topk=True, name=None):
    """The ``k`` smallest values and their indices along the last axis, exactly (``tf.math.approx_min_k``)."""
    values, indices = approx_max_k(negative(operand), k, reduction_dimension)
    return negative(values), indices


def nextafter(x1, x2, name=None):
    """The next representable float after ``x1`` toward ``x2`` (``tf.math.nextafter``; no gradient)."""
    from ..framework.tensor import Tensor, convert_to_tensor

    a, b = convert_to_tensor(x1).numpy(), convert_to_tensor(x2).numpy()
    return Tensor(_np.nextafter(a, b.astype(a.dtype)))
