"""More of ``tf.nn``, as compositions of descend's ops (the gradients are theirs): moments and batch
normalization, ``bias_add``, ``depth_to_space``/``space_to_depth``, ``crelu``, the weighted and Poisson
losses, local response normalization, and the rank-generic ``convolution``, ``max_pool``/``avg_pool``.

Example:
    >>> import descend as ds
    >>> mean, var = ds.nn.moments(ds.constant([1.0, 2.0, 3.0, 4.0]), axes=[0])
    >>> float(mean), float(var)
    (2.5, 1.25)
"""

from __future__ import annotations

from ..errors import InvalidArgumentError
from ..framework.tensor import convert_to_tensor
from . import array_ops, math_ops, nn_ops
from .conv_more_ops import conv3d
from .conv_ops import avg_pool1d, avg_pool2d, conv1d, conv2d, max_pool1d, max_pool2d

__all__ = ["bias_add", "moments", "weighted_moments", "sufficient_statistics", "normalize_moments",
           "batch_normalization", "depth_to_space", "space_to_depth", "crelu", "weighted_cross_entropy_with_logits",
           "log_poisson_loss", "local_response_normalization", "lrn", "convolution", "atrous_conv2d", "max_pool",
           "avg_pool"]


def _t(x):
    return convert_to_tensor(x)


def bias_add(value, bias, data_format=None, name=None):
    """``value + bias`` with ``bias`` (1-D) on the channel axis: the last, or axis 1 with a ``"NC..."``
    data format (``tf.nn.bias_add``).

    Raises:
        InvalidArgumentError: (a ValueError) as TF: ``value`` of rank below 2, ``bias`` not 1-D, or ``bias`` not
            as long as the channel axis (no broadcasting).
    """
    x, b = _t(value), _t(bias)
    if x.ndim < 2:
        raise InvalidArgumentError(f"bias_add: `value` must be at least 2-D. Received shape {tuple(x.shape)}")
    if b.ndim != 1:
        raise InvalidArgumentError(f"bias_add: `bias` must be 1-D. Received shape {tuple(b.shape)}")
    channels_first = data_format is not None and data_format.startswith("NC") and x.ndim > 2
    channels = x.shape[1] if channels_first else x.shape[-1]
    if b.shape[0] != channels:
        raise InvalidArgumentError(f"bias_add: `bias` must have one entry per channel of `value`: expected "
                                   f"{channels} (from `value` of shape {tuple(x.shape)}), received {b.shape[0]}")
    if channels_first:
        b = array_ops.reshape(b, shape=(-1,) + (1,) * (x.ndim - 2))
    return math_ops.add(x, b)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """The mean and the (population) variance of ``x`` over ``axes`` (``tf.nn.moments``)."""
    x = _t(x)
    axes = tuple(axes)
    mean = math_ops.reduce_mean(x, axis=axes, keepdims=True)
    var = math_ops.reduce_mean(math_ops.squared_difference(x, math_ops.stop_gradient(mean)), axis=axes,
                               keepdims=keepdims)
    return (mean if keepdims else array_ops.squeeze(mean, axis=axes)), var


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """The ``frequency_weights``-weighted mean and variance of ``x`` over ``axes``."""
    x = _t(x)
    w = math_ops.add(math_ops.zeros_like(x), convert_to_tensor(frequency_weights, dtype=x.dtype))
    axes = tuple(axes)
    total = math_ops.reduce_sum(w, axis=axes, keepdims=True)
    mean = math_ops.divide(math_ops.reduce_sum(math_ops.multiply(x, w), axis=axes, keepdims=True), total)
    var = math_ops.divide(math_ops.reduce_sum(math_ops.multiply(math_ops.squared_difference(x, mean), w), axis=axes,
                                              keepdims=True), total)
    if not keepdims:
        mean, var = array_ops.squeeze(mean, axis=axes), array_ops.squeeze(var, axis=axes)
    return mean, var


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """``(count, sum(x - shift), sum((x - shift)**2), shift)`` over ``axes`` (``tf.nn.sufficient_statistics``)."""
    x = _t(x)
    axes = tuple(axes)
    count = 1
    for a in axes:
        count *= x.shape[a]
    count_t = convert_to_tensor(float(count), dtype=x.dtype)
    shifted = x if shift is None else math_ops.subtract(x, convert_to_tensor(shift, dtype=x.dtype))
    m_ss = math_ops.reduce_sum(shifted, axis=axes, keepdims=keepdims)
    v_ss = math_ops.reduce_sum(math_ops.square(shifted), axis=axes, keepdims=keepdims)
    return count_t, m_ss, v_ss, (None if shift is None else convert_to_tensor(shift, dtype=x.dtype))


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """The mean and variance from :func:`sufficient_statistics` (``tf.nn.normalize_moments``)."""
    divisor = math_ops.reciprocal(_t(counts))
    shifted_mean = math_ops.multiply(_t(mean_ss), divisor)
    mean = shifted_mean if shift is None else math_ops.add(shifted_mean, _t(shift))
    variance = math_ops.subtract(math_ops.multiply(_t(variance_ss), divisor), math_ops.square(shifted_mean))
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) / sqrt(variance + epsilon) * scale + offset`` (``tf.nn.batch_normalization``)."""
    x = _t(x)
    inv = math_ops.rsqrt(math_ops.add(_t(variance), float(variance_epsilon)))
    if scale is not None:
        inv = math_ops.multiply(inv, _t(scale))
    y = math_ops.multiply(math_ops.subtract(x, _t(mean)), inv)
    return y if offset is None else math_ops.add(y, _t(offset))


def depth_to_space(input, block_size, data_format="NHWC", name=None):  # noqa: A002 - TF's name
    """Channels moved into ``block_size`` x ``block_size`` spatial blocks (``tf.nn.depth_to_space``, NHWC)."""
    x = _t(input)
    if data_format != "NHWC":
        raise ValueError(f"depth_to_space: only data_format='NHWC' is supported. Received: {data_format!r}")
    n, h, w, c = x.shape
    b = int(block_size)
    if b < 2 or c % (b * b):
        raise ValueError(f"depth_to_space: the depth {c} must be divisible by block_size**2 ({b * b}), block_size "
                         ">= 2")
    y = array_ops.reshape(x, shape=(n, h, w, b, b, c // (b * b)))
    y = array_ops.transpose(y, perm=(0, 1, 3, 2, 4, 5))
    return array_ops.reshape(y, shape=(n, h * b, w * b, c // (b * b)))


def space_to_depth(input, block_size, data_format="NHWC", name=None):  # noqa: A002 - TF's name
    """Spatial ``block_size`` x ``block_size`` blocks moved into channels (``tf.nn.space_to_depth``, NHWC)."""
    x = _t(input)
    if data_format != "NHWC":
        raise ValueError(f"space_to_depth: only data_format='NHWC' is supported. Received: {data_format!r}")
    n, h, w, c = x.shape
    b = int(block_size)
    if b < 2 or h % b or w % b:
        raise ValueError(f"space_to_depth: height {h} and width {w} must be divisible by block_size {b} (>= 2)")
    y = array_ops.reshape(x, shape=(n, h // b, b, w // b, b, c))
    y = array_ops.transpose(y, perm=(0, 1, 3, 2, 4, 5))
    return array_ops.reshape(y, shape=(n, h // b, w // b, b * b * c))


def crelu(features, axis=-1, name=None):
    """``concat([relu(x), relu(-x)], axis)`` (``tf.nn.crelu``)."""
    x = _t(features)
    return array_ops.concat([nn_ops.relu(x), nn_ops.relu(math_ops.negative(x))], axis=axis)


def weighted_cross_entropy_with_logits(labels, logits, pos_weight, name=None):
    """The sigmoid cross-entropy with the positive term weighted by ``pos_weight``:
    ``(1 - z) x + (1 + (q - 1) z) log(1 + exp(-x))``, computed stably (``tf.nn.weighted_cross_entropy_with_
    logits``)."""
    x = _t(logits)
    z = convert_to_tensor(labels, dtype=x.dtype)
    q = convert_to_tensor(pos_weight, dtype=x.dtype)
    log_weight = math_ops.add(math_ops.multiply(math_ops.subtract(q, 1.0), z), 1.0)
    # log(1 + exp(-|x|)) + max(-x, 0)
    softplus_neg = math_ops.add(math_ops.log1p(math_ops.exp(math_ops.negative(math_ops.abs(x)))),
                                nn_ops.relu(math_ops.negative(x)))
    return math_ops.add(math_ops.multiply(math_ops.subtract(1.0, z), x), math_ops.multiply(log_weight, softplus_neg))


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """``exp(c) - z * c`` for log-rate ``c`` and count ``z``; with ``compute_full_loss`` Stirling's
    ``z log z - z + 0.5 log(2 pi z)`` is added where ``z > 1`` (``tf.nn.log_poisson_loss``)."""
    c = _t(log_input)
    z = convert_to_tensor(targets, dtype=c.dtype)
    loss = math_ops.subtract(math_ops.exp(c), math_ops.multiply(z, c))
    if not compute_full_loss:
        return loss
    import math

    safe = math_ops.maximum(z, 1.0)
    stirling = math_ops.add(math_ops.subtract(math_ops.multiply(z, math_ops.log(safe)), z),
                            math_ops.multiply(math_ops.log(math_ops.multiply(safe, 2.0 * math.pi)), 0.5))
    return math_ops.add(loss, math_ops.where(math_ops.greater(z, 1.0), stirling, math_ops.zeros_like(stirling)))


def local_response_normalization(input, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, name=None):  # noqa: A002
    """``x / (bias + alpha * sum of x**2 over the depth_radius neighbouring channels) ** beta``
    (``tf.nn.local_response_normalization``, NHWC)."""
    x = _t(input)
    r = int(depth_radius)
    squared = array_ops.pad(math_ops.square(x), [[0, 0]] * (x.ndim - 1) + [[r, r]])
    c = x.shape[-1]
    window = math_ops.add_n([squared[..., k:k + c] for k in range(2 * r + 1)]) if r else squared
    return math_ops.divide(x, math_ops.pow(math_ops.add(math_ops.multiply(window, float(alpha)), float(bias)),
                                           float(beta)))


lrn = local_response_normalization


def convolution(input, filters, strides=None, padding="VALID", data_format=None, dilations=None,  # noqa: A002
                name=None):
    """``conv1d``, ``conv2d`` or ``conv3d`` by the rank of ``filters`` (``tf.nn.convolution``; channels last)."""
    k = _t(filters)
    strides = 1 if strides is None else strides
    dilations = 1 if dilations is None else dilations
    if k.ndim == 3:
        s = strides[0] if isinstance(strides, (list, tuple)) else strides
        d = dilations[0] if isinstance(dilations, (list, tuple)) else dilations
        return conv1d(input, k, stride=s, padding=padding, dilations=d)
    if k.ndim == 4:
        return conv2d(input, k, strides=strides, padding=padding, dilations=dilations)
    if k.ndim == 5:
        return conv3d(input, k, strides, padding, dilations=dilations)
    raise ValueError(f"convolution: filters must have rank 3, 4 or 5. Received shape {tuple(k.shape)}")


def atrous_conv2d(value, filters, rate, padding, name=None):
    """``conv2d`` with dilation ``rate`` (``tf.nn.atrous_conv2d``)."""
    return conv2d(value, filters, strides=1, padding=padding, dilations=int(rate))


def _pool(which, input, ksize, strides, padding, data_format, owner):  # noqa: A002
    x = _t(input)
    if x.ndim == 3:
        k = ksize[0] if isinstance(ksize, (list, tuple)) else ksize
        s = strides[0] if isinstance(strides, (list, tuple)) else strides
        return (max_pool1d if which == "max" else avg_pool1d)(x, k, s, padding)
    if x.ndim == 4:
        return (max_pool2d if which == "max" else avg_pool2d)(x, ksize, strides, padding,
                                                              data_format=data_format or "NHWC")
    raise ValueError(f"{owner}: inputs of rank 3 or 4 are supported. Received shape {tuple(x.shape)}")


def max_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002 - TF's name
    """``max_pool1d`` or ``max_pool2d`` by the input's rank (``tf.nn.max_pool``)."""
    return _pool("max", input, ksize, strides, padding, data_format, "max_pool")


def avg_pool(input, ksize, strides, padding, data_format=None, name=None):  # noqa: A002 - TF's name
    """``avg_pool1d`` or ``avg_pool2d`` by the input's rank (``tf.nn.avg_pool``)."""
    return _pool("avg", input, ksize, strides, padding, data_format, "avg_pool")
