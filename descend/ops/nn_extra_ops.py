"""Still more of ``tf.nn``, as compositions of descend's ops (the gradients are theirs): 3-D pooling,
the rank-generic ``pool``, ``space_to_batch``, grayscale morphology (``dilation2d``/``erosion2d``), ``conv3d_transpose`` (``conv2d_transpose`` of each
depth slice, summed into the depths it reaches), the rank-generic ``conv_transpose``, and
``collapse_repeated`` (integer labels, no gradient).

3-D pooling is separable: a window's maximum is the maximum over depth of the maxima over height x width,
and (with ``"SAME"`` padding too) a window's mean is the mean over depth of the means over height x width,
because the number of input elements a window covers is the product of its per-axis counts. So
``max_pool3d``/``avg_pool3d`` are a 2-D pooling of each depth slice followed by a pooling over depth.

Example:
    >>> import descend as ds, numpy as np
    >>> x = ds.constant(np.arange(8.0).reshape(1, 2, 2, 2, 1))
    >>> float(ds.nn.max_pool3d(x, 2, 2, "VALID")[0, 0, 0, 0, 0]), float(ds.nn.avg_pool3d(x, 2, 2, "VALID")[0, 0, 0, 0, 0])
    (7.0, 3.5)
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from . import array_ops, math_ops
from .conv_more_ops import (
    _FORMATS_3D,
    _channels_last,
    _fit,
    _in_format,
    _output_shape,
    _triple,
    conv1d_transpose,
    conv2d_transpose,
)
from .conv_ops import _nhwc_args, _padding, _pool_args, _spatial, avg_pool2d, conv_output_size, im2col, max_pool2d
from .selection_ops import reverse
from .nn_more_ops import avg_pool, batch_normalization, max_pool

__all__ = ["max_pool3d", "avg_pool3d", "pool", "space_to_batch", "collapse_repeated", "dilation2d", "erosion2d",
           "conv3d_transpose", "conv_transpose",
           "batch_norm_with_global_normalization", "atrous_conv2d_transpose",
           "max_pool_with_argmax"]


def _pool3d(pool2d, input, ksize, strides, padding, data_format, owner):  # noqa: A002 - TF's name
    if data_format not in ("NDHWC", "NCDHW"):
        raise ValueError(f"{owner}: data_format must be 'NDHWC' or 'NCDHW'. Received: data_format={data_format!r}")
    x = convert_to_tensor(input)
    if x.ndim != 5:
        raise ValueError(f"{owner}: input must have rank 5 ({data_format}). Received shape {tuple(x.shape)}")
    if data_format == "NCDHW":
        x = array_ops.transpose(x, perm=(0, 2, 3, 4, 1))
        ksize = [ksize[0], ksize[2], ksize[3], ksize[4], ksize[1]] if isinstance(ksize, (list, tuple)) and \
            len(ksize) == 5 else ksize
        strides = [strides[0], strides[2], strides[3], strides[4], strides[1]] if isinstance(strides, (list, tuple)) \
            and len(strides) == 5 else strides
    kd, kh, kw = _triple(ksize, "ksize", owner)
    sd, sh, sw = _triple(strides, "strides", owner)
    n, d, h, w, c = x.shape
    # height x width of every depth slice, then depth (as the height of a (depth, h' * w') image)
    y = pool2d(array_ops.reshape(x, shape=(n * d, h, w, c)), (kh, kw), (sh, sw), padding=padding)
    h2, w2 = y.shape[1], y.shape[2]
    y = pool2d(array_ops.reshape(y, shape=(n, d, h2 * w2, c)), (kd, 1), (sd, 1), padding=padding)
    y = array_ops.reshape(y, shape=(n, y.shape[1], h2, w2, c))
    if data_format == "NCDHW":
        y = array_ops.transpose(y, perm=(0, 4, 1, 2, 3))
    return y


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002 - TF's name
    """3-D max pooling (``tf.nn.max_pool3d``): the largest value of each ``ksize`` window.

    Args:
        input: ``(N, D, H, W, C)`` (or ``(N, C, D, H, W)`` with ``data_format="NCDHW"``), floating-point.
        ksize, strides: an int, 3 ints, or 5 (1 on the batch and channel axes).
        padding: ``"VALID"`` or ``"SAME"``.
    """
    return _pool3d(max_pool2d, input, ksize, strides, padding, data_format, "max_pool3d")


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002 - TF's name
    """3-D average pooling (``tf.nn.avg_pool3d``); with ``"SAME"`` the padding is not counted, as TF."""
    return _pool3d(avg_pool2d, input, ksize, strides, padding, data_format, "avg_pool3d")


def pool(input, window_shape, pooling_type, strides=None, padding="VALID", data_format=None,  # noqa: A002
         dilations=None, name=None):
    """``max_pool``/``avg_pool`` of 1, 2 or 3 spatial dimensions chosen by ``pooling_type`` (``tf.nn.pool``).

    ``window_shape``, ``strides`` and ``dilations`` hold one int per spatial dimension. Dilated windows
    (a ``dilations`` entry above 1) are not supported and raise ``ValueError``.
    """
    owner = "pool"
    if pooling_type not in ("MAX", "AVG"):
        raise ValueError(f"{owner}: pooling_type must be 'MAX' or 'AVG'. Received: pooling_type={pooling_type!r}")
    x = convert_to_tensor(input)
    dims = x.ndim - 2
    if dims not in (1, 2, 3):
        raise ValueError(f"{owner}: input must have rank 3, 4 or 5 (1 to 3 spatial dimensions). Received shape "
                         f"{tuple(x.shape)}")

    def _per_dim(value, what, default):
        value = [default] * dims if value is None else list(np.atleast_1d(value))
        if len(value) != dims or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0
                                     for v in value):
            raise ValueError(f"{owner}: `{what}` must hold {dims} positive ints (one per spatial dimension). "
                             f"Received: {what}={value!r}")
        return [int(v) for v in value]

    window = _per_dim(window_shape, "window_shape", 1)
    steps = _per_dim(strides, "strides", 1)
    rates = _per_dim(dilations, "dilations", 1)
    if any(s > w for s, w in zip(steps, window)):
        raise ValueError(f"{owner}: `strides` > `window_shape` is not supported (as TF). Received: strides={steps} "
                         f"and window_shape={window}")
    if any(r != 1 for r in rates):
        raise ValueError(f"{owner}: dilated pooling is not supported; dilations must be all 1. "
                         f"Received: dilations={rates}")
    if data_format is not None and data_format.startswith("NC"):
        channels_first = {1: "NCW", 2: "NCHW", 3: "NCDHW"}[dims]
        if data_format != channels_first:
            raise ValueError(f"{owner}: data_format must be {channels_first!r} for this input. Received: "
                             f"{data_format!r}")
    if dims == 3:
        fn = max_pool3d if pooling_type == "MAX" else avg_pool3d
        return fn(x, window, steps, padding, data_format=data_format or "NDHWC")
    if data_format is not None and data_format.startswith("NC"):  # rank-generic pools take channels last
        x = array_ops.transpose(x, perm=(0,) + tuple(range(2, x.ndim)) + (1,))
    y = (max_pool if pooling_type == "MAX" else avg_pool)(x, window, steps, padding)
    if data_format is not None and data_format.startswith("NC"):
        y = array_ops.transpose(y, perm=(0, y.ndim - 1) + tuple(range(1, y.ndim - 1)))
    return y


def space_to_batch(input, block_shape, paddings, name=None):  # noqa: A002 - TF's name
    """Zero-pads the ``M`` spatial axes after the batch by ``paddings`` and moves each
    ``block_shape`` block into the batch (``tf.nn.space_to_batch``, TF's ``space_to_batch_nd``).

    The output has shape ``[batch * prod(block_shape)] + [padded_i / block_shape[i]] + remaining``; its
    batch index ``b * batch + n`` (``b`` the block offset, row-major) holds the elements at offset ``b``.
    """
    owner = "space_to_batch"
    x = convert_to_tensor(input)
    block = np.asarray(block_shape.numpy() if hasattr(block_shape, "numpy") else block_shape)
    pads = np.asarray(paddings.numpy() if hasattr(paddings, "numpy") else paddings)
    if block.ndim != 1 or block.size < 1 or not np.issubdtype(block.dtype, np.integer) or np.any(block < 1):
        raise ValueError(f"{owner}: `block_shape` must be a 1-D list of positive ints. Received: {block_shape!r}")
    m = block.size
    if pads.shape != (m, 2) or not np.issubdtype(pads.dtype, np.integer) or np.any(pads < 0):
        raise ValueError(f"{owner}: `paddings` must be non-negative ints of shape ({m}, 2). Received: {paddings!r}")
    if x.ndim < m + 1:
        raise ValueError(f"{owner}: input must have rank >= {m + 1} (batch + {m} spatial axes). Received shape "
                         f"{tuple(x.shape)}")
    spatial = [x.shape[1 + i] + int(pads[i].sum()) for i in range(m)]
    bad = [i for i in range(m) if spatial[i] % int(block[i])]
    if bad:
        raise ValueError(f"{owner}: padded spatial size {spatial} must be divisible by block_shape "
                         f"{block.tolist()}. Received input shape {tuple(x.shape)}, paddings {pads.tolist()}")
    rest = tuple(x.shape[1 + m:])
    full = [(0, 0)] + [tuple(int(v) for v in pads[i]) for i in range(m)] + [(0, 0)] * len(rest)
    y = array_ops.pad(x, paddings=full) if np.any(pads) else x
    n = x.shape[0]
    split = (n,) + tuple(v for i in range(m) for v in (spatial[i] // int(block[i]), int(block[i]))) + rest
    y = array_ops.reshape(y, shape=split)
    perm = tuple(2 + 2 * i for i in range(m)) + (0,) + tuple(1 + 2 * i for i in range(m)) + \
        tuple(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    y = array_ops.transpose(y, perm=perm)
    out = (n * int(np.prod(block)),) + tuple(spatial[i] // int(block[i]) for i in range(m)) + rest
    return array_ops.reshape(y, shape=out)


def collapse_repeated(labels, seq_length, name=None):
    """Merges runs of a repeated label into one (``tf.nn.collapse_repeated``).

    Args:
        labels: ``[batch, max_length]`` integer labels.
        seq_length: ``[batch]`` the length of each row (labels past it are dropped).

    Returns:
        ``(collapsed, new_seq_length)``: ``[batch, max(new_seq_length)]`` labels (zero-padded, labels' dtype)
        and each row's new length (``seq_length``'s dtype).

    Example:
        >>> import descend as ds
        >>> out, n = ds.nn.collapse_repeated([[1, 1, 2, 2, 2, 1], [3, 3, 0, 0, 0, 0]], [6, 3])
        >>> out.numpy().tolist(), n.numpy().tolist()
        ([[1, 2, 1], [3, 0, 0]], [3, 2])
    """
    owner = "collapse_repeated"
    lab = np.asarray(labels.numpy() if hasattr(labels, "numpy") else labels)
    lengths = np.asarray(seq_length.numpy() if hasattr(seq_length, "numpy") else seq_length)
    if lab.ndim != 2:
        raise ValueError(f"{owner}: `labels` must have rank 2 [batch, max_length]. Received shape {lab.shape}")
    if lengths.shape != (lab.shape[0],) or not np.issubdtype(lengths.dtype, np.integer):
        raise ValueError(f"{owner}: `seq_length` must be {lab.shape[0]} integers (one per row of labels). "
                         f"Received: {seq_length!r}")
    if np.any(lengths < 0):
        raise ValueError(f"{owner}: `seq_length` must be non-negative. Received: {lengths.tolist()}")
    keep = np.ones(lab.shape, dtype=bool)
    keep[:, 1:] = lab[:, 1:] != lab[:, :-1]
    keep &= np.arange(lab.shape[1])[None, :] < lengths[:, None]
    new_lengths = keep.sum(axis=1)
    out = np.zeros((lab.shape[0], int(new_lengths.max(initial=0))), dtype=lab.dtype)
    for row in range(lab.shape[0]):
        out[row, :new_lengths[row]] = lab[row][keep[row]]
    return Tensor(out), Tensor(new_lengths.astype(lengths.dtype))


def dilation2d(input, filters, strides, padding, data_format, dilations, name=None):  # noqa: A002 - TF's name
    """Grayscale dilation (``tf.nn.dilation2d``): the maximum over each window of ``input + filters``.

    ``out[b, y, x, c] = max over (dy, dx) of input[b, y*sy + dy*ry, x*sx + dx*rx, c] + filters[dy, dx, c]``
    (on the input padded with -inf by TF's ``"SAME"``/``"VALID"`` rule).

    Args:
        input: ``(N, H, W, C)``, floating-point.
        filters: ``(kh, kw, C)``.
        strides, dilations: 4 ints ``[1, s_h, s_w, 1]`` (or 2, or an int).
        padding: ``"VALID"`` or ``"SAME"``.
        data_format: ``"NHWC"`` (the only one TF supports).
    """
    owner = "dilation2d"
    if data_format != "NHWC":
        raise ValueError(f"{owner}: data_format must be 'NHWC'. Received: data_format={data_format!r}")
    x, k = convert_to_tensor(input), convert_to_tensor(filters)
    if x.ndim != 4:
        raise ValueError(f"{owner}: input must have rank 4 (NHWC). Received shape {tuple(x.shape)}")
    if x.dtype.kind != "f":
        raise TypeError(f"{owner}: input must be floating-point. Received dtype {x.dtype.name}")
    if k.ndim != 3 or k.shape[2] != x.shape[3]:
        raise ValueError(f"{owner}: filters must have shape (height, width, {x.shape[3]}) (the input's depth). "
                         f"Received shape {tuple(k.shape)}")
    st = _nhwc_args(strides, "strides", owner, "NHWC")
    rates = _nhwc_args(dilations, "dilations", owner, "NHWC")

    ks = (k.shape[0], k.shape[1])
    _, pads = _spatial(x.shape, ks, st, rates, _padding(padding, owner), owner)
    patches = im2col(x, ksize=ks, strides=st, dilations=rates, pads=pads, pad_value=-np.inf)
    shifted = math_ops.add(patches, array_ops.reshape(math_ops.cast(k, x.dtype), shape=(1, 1, 1) + tuple(k.shape)))
    return math_ops.reduce_max(shifted, axis=(3, 4))


def erosion2d(value, filters, strides, padding, data_format, dilations, name=None):
    """Grayscale erosion (``tf.nn.erosion2d``): the minimum over each window of ``value - filters``, with the
    filter mirrored: ``-dilation2d(-value, reverse(filters, [0, 1]))``. The arguments are
    :func:`dilation2d`'s."""
    k = convert_to_tensor(filters)
    if k.ndim != 3:
        raise ValueError(f"erosion2d: filters must have rank 3 (height, width, depth). Received shape {tuple(k.shape)}")
    return math_ops.negative(dilation2d(math_ops.negative(convert_to_tensor(value)), reverse(k, axis=(0, 1)),
                                        strides, padding, data_format, dilations))


def conv3d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NDHWC",  # noqa: A002
                     dilations=None, name=None):
    """The transpose of ``conv3d`` (``tf.nn.conv3d_transpose``).

    Input depth slice ``z`` and filter depth ``a`` give ``conv2d_transpose(input[:, z], filters[a])`` at output
    depth ``z * s_d + a * d_d`` (before cropping by the padding), the adjoint of ``conv3d``'s sum.

    Args:
        input: ``(N, D, H, W, C_in)`` (or NCDHW).
        filters: ``(kd, kh, kw, C_out, C_in)``.
        output_shape: ``(N, OD, OH, OW, C_out)`` (or NCDHW): the shape whose ``conv3d`` has ``input``'s shape.
        strides, dilations: an int, 3 ints or 5 (1 on batch and channels).
        padding: ``"VALID"`` or ``"SAME"``.
    """
    owner = "conv3d_transpose"
    x, k = _channels_last(owner, input, filters, data_format, _FORMATS_3D)
    out = _output_shape(owner, output_shape, data_format, _FORMATS_3D)
    st = _triple(strides, "strides", owner)
    dl = _triple(1 if dilations is None else dilations, "dilations", owner)
    pad = _padding(padding, owner)
    n, depth = x.shape[0], x.shape[1]
    kd = k.shape[0]
    od = out[1]
    expected, before, _ = conv_output_size(od, kd, st[0], pad, dl[0])
    if expected != depth:
        raise ValueError(f"{owner}: a conv3d of output_shape {out} with these strides and padding gives depth "
                         f"{expected}, not the input's {depth}")
    full = (depth - 1) * st[0] + (kd - 1) * dl[0] + 1
    terms: list[list] = [[] for _ in range(full)]
    for z in range(depth):
        for a in range(kd):
            terms[z * st[0] + a * dl[0]].append(conv2d_transpose(
                x[:, z], k[a], (n, out[2], out[3], out[4]), strides=st[1:], padding=pad.upper(), dilations=dl[1:]))
    zeros = None
    slices = []
    for group in terms:
        if group:
            slices.append(math_ops.add_n(group) if len(group) > 1 else group[0])
        else:  # a depth no window reaches (stride above the dilated filter depth)
            if zeros is None:
                zeros = Tensor(np.zeros((n, out[2], out[3], out[4]), dtype=x.dtype.dtype))
            slices.append(zeros)
    return _in_format(_fit(array_ops.stack(slices, axis=1), 1, od, before), data_format, _FORMATS_3D)


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,  # noqa: A002
                   dilations=None, name=None):
    """``conv1d_transpose``, ``conv2d_transpose`` or ``conv3d_transpose`` by ``output_shape``'s length (3, 4 or
    5), as ``tf.nn.conv_transpose``; ``data_format`` defaults to channels last."""
    n = int(np.asarray(getattr(output_shape, "_value", output_shape)).size)
    if n not in (3, 4, 5):
        raise ValueError(f"conv_transpose: output_shape must have 3, 4 or 5 entries (1 to 3 spatial dimensions). "
                         f"Received: {output_shape!r}")
    if n == 3:
        return conv1d_transpose(input, filters, output_shape, strides=strides, padding=padding,
                                data_format=data_format or "NWC", dilations=1 if dilations is None else dilations)
    if n == 4:
        return conv2d_transpose(input, filters, output_shape, strides=strides, padding=padding,
                                data_format=data_format or "NHWC", dilations=1 if dilations is None else dilations)
    return conv3d_transpose(input, filters, output_shape, strides, padding=padding,
                            data_format=data_format or "NDHWC", dilations=dilations)


def batch_norm_with_global_normalization(input, mean, variance, beta, gamma, variance_epsilon,  # noqa: A002
                                         scale_after_normalization, name=None):
    """TF 1's batch normalization (``tf.nn.batch_norm_with_global_normalization``): :func:`batch_normalization`
    with offset ``beta`` and, when ``scale_after_normalization``, scale ``gamma`` (else no scale)."""
    if not isinstance(scale_after_normalization, (bool, np.bool_)):
        raise TypeError("batch_norm_with_global_normalization: `scale_after_normalization` must be a bool. "
                        f"Received: {scale_after_normalization!r}")
    return batch_normalization(input, mean, variance, beta, gamma if scale_after_normalization else None,
                               variance_epsilon)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of ``atrous_conv2d`` (``tf.nn.atrous_conv2d_transpose``): :func:`conv2d_transpose` with
    stride 1 and dilation ``rate``; ``filters`` is ``(kh, kw, C_out, C_in)``."""
    if isinstance(rate, bool) or not isinstance(rate, (int, np.integer)) or rate < 1:
        raise ValueError(f"atrous_conv2d_transpose: `rate` must be a positive int. Received: rate={rate!r}")
    return conv2d_transpose(value, filters, output_shape, strides=1, padding=padding, dilations=int(rate))


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", output_dtype="int64",  # noqa: A002
                         include_batch_in_index=False, name=None):
    """2-D max pooling and where each maximum is (``tf.nn.max_pool_with_argmax``).

    Returns ``(output, argmax)``: ``output`` is :func:`max_pool2d`'s (its gradient too); ``argmax`` holds the
    flattened index ``(y * width + x) * channels + c`` of each window's first largest value (in row-major window
    order), plus ``b * height * width * channels`` when ``include_batch_in_index``; no gradient.
    """
    owner = "max_pool_with_argmax"
    if data_format != "NHWC":
        raise ValueError(f"{owner}: data_format must be 'NHWC'. Received: data_format={data_format!r}")
    out_dtype = np.dtype(getattr(output_dtype, "name", output_dtype))
    if out_dtype not in (np.dtype("int32"), np.dtype("int64")):
        raise TypeError(f"{owner}: output_dtype must be int32 or int64. Received: output_dtype={output_dtype!r}")
    x, ks, st, pads = _pool_args(input, ksize, strides, padding, data_format, owner)
    values = max_pool2d(x, ks, st, padding=padding)
    n, h, w, c = x.shape
    patches = im2col.forward(np.asarray(x.numpy()), ksize=ks, strides=st, dilations=(1, 1), pads=pads,
                             pad_value=-np.inf)
    oh, ow = patches.shape[1], patches.shape[2]
    first = np.argmax(patches.reshape(n, oh, ow, ks[0] * ks[1], c), axis=3)  # the first maximum
    rows = np.arange(oh)[None, :, None, None] * st[0] + first // ks[1] - pads[0][0]
    cols = np.arange(ow)[None, None, :, None] * st[1] + first % ks[1] - pads[1][0]
    index = (rows * w + cols) * c + np.arange(c)[None, None, None, :]
    if include_batch_in_index:
        index = index + np.arange(n)[:, None, None, None] * (h * w * c)
    return values, Tensor(index.astype(out_dtype))
