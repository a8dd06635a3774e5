"""``tf.nn.depthwise_conv2d_backprop_input`` / ``_backprop_filter``: the two gradients of
``depthwise_conv2d`` as functions of their own, written with the ops ``depthwise_conv2d`` is made of.

With ``patches = im2col(x)`` of shape ``(N, OH, OW, kh, kw, C)`` and ``out[n, i, j, c*M + m] = sum_{a,b}
patches[n, i, j, a, b, c] * filter[a, b, c, m]``, and ``g`` the gradient of the output reshaped to
``(N, OH, OW, C, M)``:

* ``d filter[a, b, c, m] = sum_{n, i, j} patches[n, i, j, a, b, c] * g[n, i, j, c, m]``;
* ``d x = col2im(sum_m g[n, i, j, c, m] * filter[a, b, c, m])`` (the patches' gradient added back where
  each patch came from).

``dilations`` dilate the filter as in the forward convolution, so these are the gradients of a dilated
``depthwise_conv2d`` (TF's CPU kernels for these two ops ignore ``dilations``; descend does not).

No op is registered: the gradients of these functions (with respect to the filter, the input and
``out_backprop``) are those of ``im2col``, ``col2im`` and ``einsum``.

Example:
    >>> import descend as ds, numpy as np
    >>> x = np.ones((1, 3, 3, 1), np.float32); k = np.ones((2, 2, 1, 1), np.float32)
    >>> g = np.ones((1, 2, 2, 1), np.float32)
    >>> ds.nn.depthwise_conv2d_backprop_filter(x, [2, 2, 1, 1], g, [1, 1, 1, 1], "VALID").numpy().ravel().tolist()
    [4.0, 4.0, 4.0, 4.0]
"""

from __future__ import annotations

import numpy as np

from . import array_ops, math_ops
from .conv_ops import _nhwc_args, _padding, _spatial, _tensor, col2im, im2col

__all__ = ["depthwise_conv2d_backprop_input", "depthwise_conv2d_backprop_filter"]


def _sizes(value, what: str, owner: str) -> tuple:
    arr = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    if arr.shape != (4,) or arr.dtype.kind not in "iu" or np.any(arr < 0):
        raise ValueError(f"{owner}: `{what}` must be 4 non-negative integers. Received: {what}={value!r}")
    return tuple(int(v) for v in arr)


def _setup(x_shape, k_shape, out_backprop, strides, padding, data_format, dilations, owner):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{owner}: data_format must be 'NHWC' or 'NCHW'. Received: data_format={data_format!r}")
    sh = _nhwc_args(strides, "strides", owner, data_format)
    dl = _nhwc_args(1 if dilations is None else dilations, "dilations", owner, data_format)
    pad = _padding(padding, owner)
    g = _tensor(out_backprop)
    if g.ndim != 4:
        raise ValueError(f"{owner}: out_backprop must have rank 4. Received shape {tuple(g.shape)}")
    if data_format == "NCHW":
        x_shape = (x_shape[0], x_shape[2], x_shape[3], x_shape[1])
        g = array_ops.transpose(g, perm=(0, 2, 3, 1))
    n, _, _, c = x_shape
    kh, kw, kc, m = k_shape
    if kc != c:
        raise ValueError(f"{owner}: the filter expects {kc} input channels; the input has {c}")
    (oh, ow), pads = _spatial(x_shape, (kh, kw), sh, dl, pad, owner)
    if tuple(g.shape) != (n, oh, ow, c * m):
        raise ValueError(f"{owner}: out_backprop must have shape {(n, oh, ow, c * m)} (NHWC) for input "
                         f"{tuple(x_shape)} and filter {tuple(k_shape)}. Received shape {tuple(g.shape)}")
    return array_ops.reshape(g, shape=(n, oh, ow, c, m)), x_shape, sh, dl, pads


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,  # noqa: A002 - TF's
                                    data_format="NHWC", dilations=None, name=None):
    """The gradient of ``depthwise_conv2d`` with respect to its input (``tf.nn.depthwise_conv2d_backprop_input``).

    Args:
        input_sizes: the input's shape, 4 integers (in ``data_format``).
        filter: ``(kh, kw, C, M)``.
        out_backprop: the gradient of the output, ``(N, OH, OW, C * M)`` (in ``data_format``).
        strides, padding, data_format, dilations: those of the forward convolution.

    Returns:
        A Tensor of shape ``input_sizes`` and ``filter``'s dtype.
    """
    owner = "depthwise_conv2d_backprop_input"
    k = _tensor(filter)
    if k.ndim != 4:
        raise ValueError(f"{owner}: filter must have rank 4. Received shape {tuple(k.shape)}")
    sizes = _sizes(input_sizes, "input_sizes", owner)
    g, x_shape, sh, dl, pads = _setup(sizes, tuple(k.shape), out_backprop, strides, padding, data_format, dilations,
                                      owner)
    kh, kw = k.shape[0], k.shape[1]
    cols = math_ops.einsum("nhwcm,abcm->nhwabc", g, k)
    dx = col2im(cols, shape=tuple(x_shape), ksize=(kh, kw), strides=sh, dilations=dl, pads=pads)
    return array_ops.transpose(dx, perm=(0, 3, 1, 2)) if data_format == "NCHW" else dx


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,  # noqa: A002 - TF's
                                     data_format="NHWC", dilations=None, name=None):
    """The gradient of ``depthwise_conv2d`` with respect to its filter
    (``tf.nn.depthwise_conv2d_backprop_filter``).

    Args:
        input: ``(N, H, W, C)`` (or NCHW).
        filter_sizes: the filter's shape ``(kh, kw, C, M)``.
        out_backprop: the gradient of the output, ``(N, OH, OW, C * M)`` (in ``data_format``).
        strides, padding, data_format, dilations: those of the forward convolution.

    Returns:
        A Tensor of shape ``filter_sizes``.
    """
    owner = "depthwise_conv2d_backprop_filter"
    x = _tensor(input)
    if x.ndim != 4:
        raise ValueError(f"{owner}: input must have rank 4. Received shape {tuple(x.shape)}")
    sizes = _sizes(filter_sizes, "filter_sizes", owner)
    g, _, sh, dl, pads = _setup(tuple(x.shape), sizes, out_backprop, strides, padding, data_format, dilations, owner)
    if data_format == "NCHW":
        x = array_ops.transpose(x, perm=(0, 2, 3, 1))
    patches = im2col(x, ksize=sizes[:2], strides=sh, dilations=dl, pads=pads)
    return math_ops.einsum("nhwabc,nhwcm->abcm", patches, g)
