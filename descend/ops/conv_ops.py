"""2-D convolution and max pooling as ops: ``im2col`` and its adjoint ``col2im``.

Convolution is patches (``im2col``) times the reshaped kernel; max pooling is
``reduce_max`` over patches padded with -inf. ``im2col`` and ``col2im`` are
each other's VJP, so both are differentiable to any order. "SAME" padding
follows TensorFlow: the extra row or column goes at the bottom/right.
"""

from __future__ import annotations

import numpy as np

from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from . import array_ops, math_ops

__all__ = ["avg_pool1d", "avg_pool2d", "col2im", "conv1d", "conv2d", "conv_output_size", "im2col", "max_pool1d",
           "max_pool2d", "window_first_max", "window_max"]


def _out_size(padded: int, k: int, s: int, d: int) -> int:
    return (padded - (k - 1) * d - 1) // s + 1


def _window(a: int, d: int, s: int, n: int) -> slice:
    # input rows a*d, a*d + s, ..., a*d + (n - 1)*s: window offset a of the n outputs
    return slice(a * d, a * d + (n - 1) * s + 1, s)


@defop("im2col")
def im2col(x, ksize=(1, 1), strides=(1, 1), dilations=(1, 1), pads=((0, 0), (0, 0)), pad_value=0.0):
    """Patches of an NHWC tensor: ``(N, H, W, C)`` -> ``(N, OH, OW, kh, kw, C)``.

    ``out[n, i, j, a, b, c] = xpad[n, i*sh + a*dh, j*sw + b*dw, c]`` where
    ``xpad`` is ``x`` padded by ``pads = ((top, bottom), (left, right))`` with
    ``pad_value``.
    """
    if x.ndim != 4:
        raise ValueError(f"im2col expects an NHWC tensor of rank 4; received rank {x.ndim}")
    (kh, kw), (sh, sw), (dh, dw) = ksize, strides, dilations
    (pt, pb), (pl, pr) = pads
    if pt or pb or pl or pr:
        x = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), mode="constant", constant_values=pad_value)
    n, h, w, c = x.shape
    oh, ow = _out_size(h, kh, sh, dh), _out_size(w, kw, sw, dw)
    if oh <= 0 or ow <= 0:
        raise ValueError(f"the window ({kh}x{kw}, dilation {dh}x{dw}) is larger than the padded input "
                         f"({h}x{w})")
    out = np.empty((n, oh, ow, kh, kw, c), x.dtype)
    kernels = _window_kernels(x.dtype)
    if kernels is not None:  # one pass writing the patches in order (the same copies)
        kernels[0](np.ascontiguousarray(x), out, sh, sw, dh, dw)
        return out
    for a in range(kh):
        for b in range(kw):
            out[:, :, :, a, b, :] = x[:, _window(a, dh, sh, oh), _window(b, dw, sw, ow), :]
    return out


@im2col.defvjp
def _(g, ans, x, ksize=(1, 1), strides=(1, 1), dilations=(1, 1), pads=((0, 0), (0, 0)), pad_value=0.0):
    return col2im(g, shape=tuple(x.shape), ksize=ksize, strides=strides, dilations=dilations, pads=pads)


@defop("col2im")
def col2im(cols, shape=(), ksize=(1, 1), strides=(1, 1), dilations=(1, 1), pads=((0, 0), (0, 0))):
    """The adjoint of :func:`im2col`: ``(N, OH, OW, kh, kw, C)`` -> ``shape`` (NHWC).

    Adds ``cols[n, i, j, a, b, c]`` into position ``(n, i*sh + a*dh - top,
    j*sw + b*dw - left, c)``; entries that fall in the padding are dropped.
    """
    n, h, w, c = (int(s) for s in shape)
    (kh, kw), (sh, sw), (dh, dw) = ksize, strides, dilations
    (pt, pb), (pl, pr) = pads
    if cols.ndim != 6 or cols.shape[0] != n or cols.shape[3:] != (kh, kw, c):
        raise ValueError(f"col2im expects patches of shape ({n}, OH, OW, {kh}, {kw}, {c}); received {cols.shape}")
    oh, ow = cols.shape[1], cols.shape[2]
    kernels = _window_kernels(cols.dtype)
    if kernels is not None:  # each element's terms added offset by offset, in the order of the loop below
        out = np.empty((n, h + pt + pb, w + pl + pr, c), cols.dtype)
        kernels[2](np.ascontiguousarray(cols), out, sh, sw, dh, dw)
    else:
        out = np.zeros((n, h + pt + pb, w + pl + pr, c), cols.dtype)
        for a in range(kh):
            for b in range(kw):
                out[:, _window(a, dh, sh, oh), _window(b, dw, sw, ow), :] += cols[:, :, :, a, b, :]
    if pt or pb or pl or pr:
        out = np.ascontiguousarray(out[:, pt:pt + h, pl:pl + w, :])
    return out


@col2im.defvjp
def _(g, ans, cols, shape=(), ksize=(1, 1), strides=(1, 1), dilations=(1, 1), pads=((0, 0), (0, 0))):
    return im2col(g, ksize=ksize, strides=strides, dilations=dilations, pads=pads, pad_value=0.0)


@defop("window_max")
def window_max(patches):
    """The largest value of each window of :func:`im2col`'s patches: ``(N, OH, OW, kh, kw, C)`` ->
    ``(N, OH, OW, C)`` (max pooling).

    Its gradient goes to one element per window: the first maximum in the window's row-major order
    (TensorFlow's ``MaxPoolGrad``), not shared among tied maxima as ``reduce_max``'s is.
    """
    if patches.ndim != 6:
        raise ValueError(f"window_max expects patches of rank 6 (N, OH, OW, kh, kw, C); received rank {patches.ndim}")
    return patches.max(axis=(3, 4))


@defop("window_first_max", differentiable=False)
def window_first_max(patches):
    """One-hot of each window's first maximum in row-major order (``window_max``'s gradient goes there):
    ``(N, OH, OW, kh, kw, C)``, 1 at the first maximum of each window and channel, 0 elsewhere."""
    kernels = _window_kernels(patches.dtype)
    if kernels is not None:
        mask = np.empty(patches.shape, patches.dtype)
        kernels[1](np.ascontiguousarray(patches), mask)
        return mask
    n, oh, ow, kh, kw, c = patches.shape
    flat = patches.reshape(n, oh, ow, kh * kw, c)
    first = flat.argmax(axis=3)[:, :, :, None, :]  # argmax returns the first of tied maxima
    mask = np.zeros(flat.shape, dtype=patches.dtype)
    np.put_along_axis(mask, first, 1, axis=3)
    return mask.reshape(patches.shape)


@window_max.defvjp
def _(g, ans, patches):
    n, oh, ow, _, _, c = patches.shape
    spread = array_ops.reshape(g, shape=(n, oh, ow, 1, 1, c))
    return math_ops.multiply(spread, window_first_max(patches))


def _window_kernels(dtype):
    """The exact window kernels the compiled plan runs too (:func:`descend._native.backend.window_kernels`), or None:
    the NumPy calls, with the same bits."""
    from .._native import backend as kb, cpu  # noqa: F401 (importing cpu registers the default backend)

    return kb.window_kernels(dtype)


# ---------------------------------------------------------------- shapes and padding
def _pair(value, what: str, owner: str) -> tuple[int, int]:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        value = (value, value)
    try:
        pair = tuple(value)
    except TypeError:
        pair = ()
    if len(pair) != 2 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0 for v in pair):
        raise ValueError(f"{owner}: `{what}` must be a positive int or a tuple of 2 positive ints. "
                         f"Received: {what}={value!r}")
    return int(pair[0]), int(pair[1])


def _padding(value, owner: str) -> str:
    p = str(value).lower() if isinstance(value, str) else None
    if p not in ("valid", "same"):
        raise ValueError(f"{owner}: `padding` must be 'valid' or 'same'. Received: padding={value!r}")
    return p


def conv_output_size(size: int, k: int, stride: int, padding: str, dilation: int = 1) -> tuple[int, int, int]:
    """``(output size, pad before, pad after)`` along one spatial axis, with TF's padding rule."""
    eff = (k - 1) * dilation + 1
    if padding == "same":
        out = -(-size // stride)  # ceil(size / stride)
        total = max((out - 1) * stride + eff - size, 0)
        return out, total // 2, total - total // 2  # the odd element goes after (bottom/right)
    return (size - eff) // stride + 1, 0, 0


def _spatial(x_shape, ksize, strides, dilations, padding, owner: str):
    n, h, w, c = x_shape
    oh, pt, pb = conv_output_size(h, ksize[0], strides[0], padding, dilations[0])
    ow, pl, pr = conv_output_size(w, ksize[1], strides[1], padding, dilations[1])
    if oh <= 0 or ow <= 0:
        raise ValueError(f"{owner}: the window {ksize} (dilation {dilations}) does not fit the input's spatial size "
                         f"{(h, w)} with padding='valid'. Expected spatial dimensions >= "
                         f"{tuple((k - 1) * d + 1 for k, d in zip(ksize, dilations))}")
    return (oh, ow), ((pt, pb), (pl, pr))


def _nhwc_args(value, what: str, owner: str, data_format: str):
    """TF-style strides/dilations: an int, 2 entries, or 4 entries with 1 for batch and channels."""
    if isinstance(value, (list, tuple)) and len(value) == 4:
        spatial = (value[1], value[2]) if data_format == "NHWC" else (value[2], value[3])
        batch_channel = [v for i, v in enumerate(value) if i not in ((1, 2) if data_format == "NHWC" else (2, 3))]
        if any(v != 1 for v in batch_channel):
            raise ValueError(f"{owner}: `{what}` must be 1 on the batch and channel axes. Received: {what}={value!r}")
        value = spatial
    return _pair(value, what, owner)


def _tensor(x):
    return x if isinstance(x, (Tensor, Variable)) else convert_to_tensor(x)


def conv2d(input, filters, strides=1, padding="VALID", data_format="NHWC", dilations=1, name=None):  # noqa: A002 - TF's name
    """2-D convolution (cross-correlation, as ``tf.nn.conv2d``).

    ``out[n, i, j, f] = sum_{a, b, c} xpad[n, i*sh + a*dh, j*sw + b*dw, c] * filters[a, b, c, f]``.

    Args:
        input: ``(N, H, W, C)`` (or ``(N, C, H, W)`` with ``data_format="NCHW"``).
        filters: ``(kh, kw, C, F)``.
        strides: an int, 2 ints or 4 (NHWC order, 1 on batch and channels).
        padding: ``"VALID"`` or ``"SAME"`` (TF's rule; case-insensitive).
        data_format: ``"NHWC"`` (default) or ``"NCHW"``.
        dilations: like ``strides``.

    Returns:
        ``(N, OH, OW, F)`` (or ``(N, F, OH, OW)``).

    Example:
        >>> import descend as ds, numpy as np
        >>> from descend.nn import conv2d
        >>> x = ds.constant(np.arange(16.0).reshape(1, 4, 4, 1))
        >>> conv2d(x, ds.constant(np.ones((2, 2, 1, 1))), strides=2).numpy()[0, :, :, 0]
        array([[10., 18.],
               [42., 50.]])
    """
    owner = "conv2d"
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{owner}: data_format must be 'NHWC' or 'NCHW'. Received: data_format={data_format!r}")
    x, k = _tensor(input), _tensor(filters)
    if x.ndim != 4:
        raise ValueError(f"{owner}: input must have rank 4 ({data_format}). Received shape {tuple(x.shape)}")
    if k.ndim != 4:
        raise ValueError(f"{owner}: filters must have rank 4 (kh, kw, in_channels, out_channels). "
                         f"Received shape {tuple(k.shape)}")
    sh = _nhwc_args(strides, "strides", owner, data_format)
    dl = _nhwc_args(dilations, "dilations", owner, data_format)
    pad = _padding(padding, owner)
    if data_format == "NCHW":
        x = array_ops.transpose(x, perm=(0, 2, 3, 1))
    n, _, _, c = x.shape
    kh, kw, kc, f = k.shape
    if kc != c:
        raise ValueError(f"{owner}: filters expect {kc} input channels; the input has {c} (shape {tuple(x.shape)})")
    (oh, ow), pads = _spatial(x.shape, (kh, kw), sh, dl, pad, owner)
    patches = im2col(x, ksize=(kh, kw), strides=sh, dilations=dl, pads=pads)
    # (N*OH*OW, kh*kw*C) @ (kh*kw*C, F)
    y = math_ops.matmul(array_ops.reshape(patches, shape=(n * oh * ow, kh * kw * c)),
                        array_ops.reshape(k, shape=(kh * kw * c, f)))
    y = array_ops.reshape(y, shape=(n, oh, ow, f))
    if data_format == "NCHW":
        y = array_ops.transpose(y, perm=(0, 3, 1, 2))
    return y


def _pool_args(input, ksize, strides, padding, data_format, owner):  # noqa: A002 - TF's name
    """Check a 2-D pooling's arguments; returns the NHWC input, window, strides and pads."""
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError(f"{owner}: data_format must be 'NHWC' or 'NCHW'. Received: data_format={data_format!r}")
    x = _tensor(input)
    if x.ndim != 4:
        raise ValueError(f"{owner}: input must have rank 4 ({data_format}). Received shape {tuple(x.shape)}")
    if x.dtype.kind != "f":
        raise TypeError(f"{owner}: input must be floating-point. Received dtype {x.dtype.name}")
    ks = _nhwc_args(ksize, "ksize", owner, data_format)
    st = _nhwc_args(strides, "strides", owner, data_format)
    pad = _padding(padding, owner)
    if data_format == "NCHW":
        x = array_ops.transpose(x, perm=(0, 2, 3, 1))
    _, pads = _spatial(x.shape, ks, st, (1, 1), pad, owner)
    return x, ks, st, pads


def max_pool2d(input, ksize, strides, padding="VALID", data_format="NHWC", name=None):  # noqa: A002 - TF's name
    """2-D max pooling (as ``tf.nn.max_pool2d``): the largest value of each window.

    Args:
        input: ``(N, H, W, C)`` (or ``(N, C, H, W)`` with ``data_format="NCHW"``).
        ksize: the window: an int, 2 ints or 4 (NHWC order).
        strides: like ``ksize``.
        padding: ``"VALID"`` or ``"SAME"`` (padding never wins the max).
        data_format: ``"NHWC"`` (default) or ``"NCHW"``.

    Example:
        >>> import descend as ds, numpy as np
        >>> from descend.nn import max_pool2d
        >>> x = ds.constant(np.arange(16.0).reshape(1, 4, 4, 1))
        >>> max_pool2d(x, 2, 2).numpy()[0, :, :, 0]
        array([[ 5.,  7.],
               [13., 15.]])
    """
    owner = "max_pool2d"
    x, ks, st, pads = _pool_args(input, ksize, strides, padding, data_format, owner)
    y = window_max(im2col(x, ksize=ks, strides=st, dilations=(1, 1), pads=pads, pad_value=-np.inf))
    if data_format == "NCHW":
        y = array_ops.transpose(y, perm=(0, 3, 1, 2))
    return y


# ---------------------------------------------------------------- layers


def avg_pool2d(input, ksize, strides, padding="VALID", data_format="NHWC", name=None):  # noqa: A002 - TF's name
    """2-D average pooling (as ``tf.nn.avg_pool2d``): the mean of each window.

    With ``"SAME"`` padding a window's mean is over the input elements it
    covers only (the padding is not counted), as TensorFlow.

    Example:
        >>> import descend as ds, numpy as np
        >>> from descend.ops.conv_ops import avg_pool2d
        >>> x = ds.constant(np.arange(9.0).reshape(1, 3, 3, 1))
        >>> avg_pool2d(x, 2, 2, padding="SAME").numpy()[0, :, :, 0]
        array([[2. , 3.5],
               [6.5, 8. ]])
    """
    owner = "avg_pool2d"
    x, ks, st, pads = _pool_args(input, ksize, strides, padding, data_format, owner)
    sums = math_ops.reduce_sum(im2col(x, ksize=ks, strides=st, dilations=(1, 1), pads=pads), axis=(3, 4))
    # how many input elements each window covers (a constant: the same patches of a ones image)
    ones = np.ones((1, x.shape[1], x.shape[2], 1), dtype=x.dtype.dtype)
    counts = im2col.forward(ones, ksize=ks, strides=st, dilations=(1, 1), pads=pads).sum(axis=(3, 4))
    y = math_ops.divide(sums, Tensor(counts.astype(x.dtype.dtype)))
    if data_format == "NCHW":
        y = array_ops.transpose(y, perm=(0, 3, 1, 2))
    return y


def _one_d(value, what: str, owner: str) -> int:
    if isinstance(value, (list, tuple)):
        if len(value) != 1:
            raise ValueError(f"{owner}: `{what}` must be an int or a tuple of 1 int. Received: {what}={value!r}")
        value = value[0]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"{owner}: `{what}` must be a positive int. Received: {what}={value!r}")
    return int(value)


def _check_1d(x, data_format: str, owner: str):
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"{owner}: data_format must be 'NWC' or 'NCW'. Received: data_format={data_format!r}")
    if x.ndim != 3:
        raise ValueError(f"{owner}: input must have rank 3 ({data_format}). Received shape {tuple(x.shape)}")


def conv1d(input, filters, stride=1, padding="VALID", data_format="NWC", dilations=1, name=None):  # noqa: A002 - TF's name
    """1-D convolution (as ``tf.nn.conv1d``): :func:`conv2d` on a height-1 image.

    Args:
        input: ``(N, W, C)`` (or ``(N, C, W)`` with ``data_format="NCW"``).
        filters: ``(k, C, F)``.
        stride, dilations: ints.
        padding: ``"VALID"``, ``"SAME"`` or ``"CAUSAL"`` (left padding by ``(k - 1) * dilation``).

    Example:
        >>> import descend as ds, numpy as np
        >>> from descend.ops.conv_ops import conv1d
        >>> conv1d(ds.constant(np.arange(5.0).reshape(1, 5, 1)), ds.ones((2, 1, 1), dtype="float64")).numpy()[0, :, 0]
        array([1., 3., 5., 7.])
    """
    owner = "conv1d"
    x, k = _tensor(input), _tensor(filters)
    _check_1d(x, data_format, owner)
    if k.ndim != 3:
        raise ValueError(f"{owner}: filters must have rank 3 (k, in_channels, out_channels). Received shape "
                         f"{tuple(k.shape)}")
    s, d = _one_d(stride, "stride", owner), _one_d(dilations, "dilations", owner)
    if data_format == "NCW":
        x = array_ops.transpose(x, perm=(0, 2, 1))
    if isinstance(padding, str) and padding.lower() == "causal":
        x = array_ops.pad(x, paddings=((0, 0), ((k.shape[0] - 1) * d, 0), (0, 0)))
        padding = "VALID"
    y = conv2d(array_ops.expand_dims(x, axis=1), array_ops.expand_dims(k, axis=0), strides=(1, s),
               padding=padding, dilations=(1, d))
    y = array_ops.squeeze(y, axis=1)
    if data_format == "NCW":
        y = array_ops.transpose(y, perm=(0, 2, 1))
    return y


def _pool1d(pool2d, input, ksize, strides, padding, data_format, owner):
    x = _tensor(input)
    _check_1d(x, data_format, owner)
    k, s = _one_d(ksize, "ksize", owner), _one_d(strides, "strides", owner)
    if data_format == "NCW":
        x = array_ops.transpose(x, perm=(0, 2, 1))
    y = array_ops.squeeze(pool2d(array_ops.expand_dims(x, axis=1), (1, k), (1, s), padding=padding), axis=1)
    if data_format == "NCW":
        y = array_ops.transpose(y, perm=(0, 2, 1))
    return y


def max_pool1d(input, ksize, strides, padding="VALID", data_format="NWC", name=None):  # noqa: A002 - TF's name
    """1-D max pooling (as ``tf.nn.max_pool1d``) on ``(N, W, C)``."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format, "max_pool1d")


def avg_pool1d(input, ksize, strides, padding="VALID", data_format="NWC", name=None):  # noqa: A002 - TF's name
    """1-D average pooling (as ``tf.nn.avg_pool1d``) on ``(N, W, C)``; "SAME" padding is not counted."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format, "avg_pool1d")
