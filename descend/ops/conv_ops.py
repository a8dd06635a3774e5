"""2-D convolution and max pooling as ops: ``im2col`` and its adjoint ``col2im``, ``max_pool_windows``.

Convolution is patches (``im2col``) times the reshaped kernel. Max pooling is
one pass over the image (``max_pool_windows``) that gives each window's first
maximum and its offset in the window; its gradient puts each window's
gradient back at that offset (``max_pool_scatter``, TensorFlow's
``MaxPoolGrad``), whose adjoint picks it up again (``max_pool_gather``).
``im2col`` and ``col2im`` are each other's VJP, as the scatter and the gather
are, so all are differentiable to any order. "SAME" padding follows
TensorFlow: the extra row or column goes at the bottom/right.
"""

from __future__ import annotations

import numpy as np

from .. import _native
from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from . import array_ops, math_ops

__all__ = ["avg_pool1d", "avg_pool2d", "col2im", "conv1d", "conv2d", "conv_output_size", "im2col", "max_pool1d",
           "max_pool2d", "max_pool_gather", "max_pool_scatter", "max_pool_windows"]


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
        kernels[0](np.ascontiguousarray(x), out, sh, sw, dh, dw, _native.serial(out.size))
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
        kernels[1](np.ascontiguousarray(cols), out, sh, sw, dh, dw, _native.serial(cols.size))
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


def _offset_dtype(ksize):
    """The dtype of a window's offsets ``a * kw + b``: one byte where every offset fits in one."""
    return np.dtype(np.int8) if ksize[0] * ksize[1] <= 127 else np.dtype(np.int32)


def _pool_shape(x_shape, ksize, strides, pads, owner):
    n, h, w, c = x_shape
    (kh, kw), (sh, sw), ((pt, pb), (pl, pr)) = ksize, strides, pads
    oh, ow = _out_size(h + pt + pb, kh, sh, 1), _out_size(w + pl + pr, kw, sw, 1)
    if oh <= 0 or ow <= 0 or pt >= kh or pb >= kh or pl >= kw or pr >= kw:
        raise ValueError(f"{owner}: the window ({kh}x{kw}) with pads {pads} does not fit the input "
                         f"({h}x{w}); every window must hold an element of the input")
    return n, oh, ow, c


def _real_offsets(h, w, ksize, strides, pads, oh, ow):
    """``(1, OH, OW, kh*kw, 1)``: True where a window's offset falls inside the image (not in its padding)."""
    ones = np.ones((1, h, w, 1), np.int8)
    return im2col.forward(ones, ksize=ksize, strides=strides, pads=pads, pad_value=0).reshape(
        1, oh, ow, ksize[0] * ksize[1], 1).astype(bool)


def _check_offsets(arg, owner, x_shape, ksize, strides, pads):
    """The window offsets ``arg`` of max pooling over an image of ``x_shape``: their dtype, shape and range."""
    n, oh, ow, c = _pool_shape(x_shape, ksize, strides, pads, owner)
    if arg.dtype.kind not in "iu" or arg.shape != (n, oh, ow, c):
        raise ValueError(f"{owner}: the window offsets must be integers of shape {(n, oh, ow, c)}; received "
                         f"{arg.dtype.name} of shape {arg.shape}")
    return n, oh, ow, c


def _bad_offset(owner, arg, flat):
    return ValueError(f"{owner}: the window offset {int(arg.reshape(-1)[flat])} at flat index {flat} is outside its "
                      f"window or falls in the padding")


@defop("max_pool_windows", multi_output=True)
def max_pool_windows(x, ksize=(1, 1), strides=(1, 1), pads=((0, 0), (0, 0))):
    """Max pooling of an NHWC image: ``(values, offsets)``, each ``(N, OH, OW, C)``.

    ``values`` is each window's first largest element in row-major window order (the first NaN, as
    ``np.argmax``); the padding (``pads = ((top, bottom), (left, right))``) never wins. ``offsets`` is its offset
    ``a * kw + b`` in the window (int8, int32 for windows of more than 127 elements): what the gradient
    (:func:`max_pool_scatter`, TensorFlow's ``MaxPoolGrad``) needs, so it need not look at the image again.
    """
    if x.ndim != 4:
        raise ValueError(f"max_pool_windows expects an NHWC tensor of rank 4; received rank {x.ndim}")
    (kh, kw), (sh, sw), ((pt, pb), (pl, pr)) = ksize, strides, pads
    n, oh, ow, c = _pool_shape(x.shape, ksize, strides, pads, "max_pool_windows")
    out = np.empty((n, oh, ow, c), x.dtype)
    arg = np.empty((n, oh, ow, c), _offset_dtype(ksize))
    kernels = _window_kernels(x.dtype)
    if kernels is not None:
        kernels[2](np.ascontiguousarray(x), out, arg, kh, kw, sh, sw, pt, pl, _native.serial(x.size))
        return [out, arg]
    pad_value = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    flat = im2col.forward(x, ksize=ksize, strides=strides, pads=pads, pad_value=pad_value).reshape(
        n, oh, ow, kh * kw, c)
    first = flat.argmax(axis=3)  # the first of tied maxima, the first NaN
    if pt or pb or pl or pr:  # a window whose real elements are all the lowest value: its first real element
        real = _real_offsets(x.shape[1], x.shape[2], ksize, strides, pads, oh, ow)
        first_real = real.argmax(axis=3)
        in_pad = ~np.take_along_axis(np.broadcast_to(real, flat.shape), first[:, :, :, None, :], axis=3)[:, :, :, 0]
        first = np.where(in_pad, first_real, first)
    arg[...] = first
    out[...] = np.take_along_axis(flat, first[:, :, :, None, :], axis=3)[:, :, :, 0]
    return [out, arg]


@max_pool_windows.defvjp
def _(gs, ans, x, ksize=(1, 1), strides=(1, 1), pads=((0, 0), (0, 0))):
    g = gs[0]
    if g is None:
        return None
    return max_pool_scatter(g, ans[1], shape=tuple(x.shape), ksize=ksize, strides=strides, pads=pads)


@defop("max_pool_scatter")
def max_pool_scatter(g, offsets, shape=(), ksize=(1, 1), strides=(1, 1), pads=((0, 0), (0, 0))):
    """The gradient of max pooling: an image of ``shape`` (NHWC), zero but where a window's maximum was
    (``offsets``, from :func:`max_pool_windows`), which gets the window's ``g``; an element that is the maximum of
    several (overlapping) windows gets their sum, added offset by offset in row-major order."""
    owner = "max_pool_scatter"
    n, oh, ow, c = _check_offsets(offsets, owner, shape, ksize, strides, pads)
    if g.shape != (n, oh, ow, c):
        raise ValueError(f"{owner}: the gradient must have shape {(n, oh, ow, c)}; received {g.shape}")
    (kh, kw), (sh, sw), ((pt, pb), (pl, pr)) = ksize, strides, pads
    h, w = int(shape[1]), int(shape[2])
    kernels = _window_kernels(g.dtype)
    if kernels is not None:
        out = np.empty((n, h, w, c), g.dtype)
        bad = kernels[3](np.ascontiguousarray(g), np.ascontiguousarray(offsets), out, kh, kw, sh, sw, pt, pl,
                         _native.serial(out.size))
        if bad >= 0:
            raise _bad_offset(owner, offsets, bad)
        return out
    _check_range(owner, offsets, h, w, ksize, strides, pads, oh, ow)
    acc = np.zeros((n, h + pt + pb, w + pl + pr, c), g.dtype)
    for a in range(kh):  # (adding zeros changes no sum: each element's terms are added in this order)
        for b in range(kw):
            acc[:, _window(a, 1, sh, oh), _window(b, 1, sw, ow), :] += np.where(offsets == a * kw + b, g, 0)
    return np.ascontiguousarray(acc[:, pt:pt + h, pl:pl + w, :])


@defop("max_pool_gather")
def max_pool_gather(x, offsets, ksize=(1, 1), strides=(1, 1), pads=((0, 0), (0, 0))):
    """The adjoint of :func:`max_pool_scatter`: ``(N, OH, OW, C)``, the element of the NHWC ``x`` at each window's
    ``offsets``."""
    owner = "max_pool_gather"
    n, oh, ow, c = _check_offsets(offsets, owner, x.shape, ksize, strides, pads)
    (kh, kw), (sh, sw), ((pt, pb), (pl, pr)) = ksize, strides, pads
    out = np.empty((n, oh, ow, c), x.dtype)
    kernels = _window_kernels(x.dtype)
    if kernels is not None:
        bad = kernels[4](np.ascontiguousarray(x), np.ascontiguousarray(offsets), out, kh, kw, sh, sw, pt, pl,
                         _native.serial(out.size))
        if bad >= 0:
            raise _bad_offset(owner, offsets, bad)
        return out
    _check_range(owner, offsets, x.shape[1], x.shape[2], ksize, strides, pads, oh, ow)
    flat = im2col.forward(x, ksize=ksize, strides=strides, pads=pads).reshape(n, oh, ow, kh * kw, c)
    out[...] = np.take_along_axis(flat, offsets[:, :, :, None, :].astype(np.intp), axis=3)[:, :, :, 0]
    return out


def _check_range(owner, offsets, h, w, ksize, strides, pads, oh, ow):
    k = ksize[0] * ksize[1]
    bad = (offsets < 0) | (offsets >= k)
    if not bad.any():
        real = _real_offsets(h, w, ksize, strides, pads, oh, ow)
        bad = ~np.take_along_axis(np.broadcast_to(real, offsets.shape[:3] + (k, offsets.shape[3])),
                                  offsets[:, :, :, None, :].astype(np.intp), axis=3)[:, :, :, 0]
    if bad.any():
        raise _bad_offset(owner, offsets, int(np.flatnonzero(bad)[0]))


max_pool_scatter.defvjp(
    lambda g, ans, grad, offsets, shape=(), ksize=(1, 1), strides=(1, 1), pads=((0, 0), (0, 0)):
        max_pool_gather(g, offsets, ksize=ksize, strides=strides, pads=pads),
    None)
max_pool_gather.defvjp(
    lambda g, ans, x, offsets, ksize=(1, 1), strides=(1, 1), pads=((0, 0), (0, 0)):
        max_pool_scatter(g, offsets, shape=tuple(x.shape), ksize=ksize, strides=strides, pads=pads),
    None)


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
    y, _ = max_pool_windows(x, ksize=ks, strides=st, pads=pads)
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
