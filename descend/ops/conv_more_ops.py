"""The other convolutions of ``tf.nn``: transposed (``conv2d_transpose``, ``conv1d_transpose``), depthwise,
separable and 3-D, as compositions of the registered ``im2col``/``col2im`` pair and matmul/einsum.

* ``conv2d_transpose`` is the adjoint of ``conv2d`` with respect to its input: the input times the
  kernel gives patches, which ``col2im`` adds back to the positions they would have come from. The
  output shape is the one passed in, with TensorFlow's padding for it (``"SAME"``: the padding of the
  forward convolution from that shape; ``"VALID"``: none; rows the kernel does not reach are 0).
* ``depthwise_conv2d`` convolves each input channel with its own ``M`` filters:
  ``out[n, i, j, c*M + m] = sum_{a, b} patch[n, i, j, a, b, c] * filter[a, b, c, m]``.
* ``separable_conv2d`` is a depthwise convolution followed by a 1x1 convolution.
* ``conv3d`` sums ``kd`` 2-D convolutions of depth slices per output depth.

No op is registered here: the gradients are the VJPs of ``im2col``, ``col2im``, ``matmul`` and ``einsum``.
"""

from __future__ import annotations

import numpy as np

from . import array_ops, math_ops
from .conv_ops import _nhwc_args, _padding, _spatial, _tensor, col2im, conv2d, conv_output_size, im2col

__all__ = ["conv2d_transpose", "conv1d_transpose", "depthwise_conv2d", "separable_conv2d", "conv3d",
           "transposed_output_size"]


def transposed_output_size(size: int, k: int, stride: int, padding: str, output_padding=None, dilation: int = 1):
    """The output length of a transposed convolution (Keras' rule): ``"valid"``: ``size * stride + max(k_eff
    - stride, 0)``, ``"same"``: ``size * stride``; with ``output_padding``: ``(size - 1) * stride + k_eff - 2 *
    pad + output_padding`` (``pad`` is ``k_eff // 2`` for ``"same"``, else 0)."""
    eff = (k - 1) * dilation + 1
    if output_padding is None:
        return size * stride + max(eff - stride, 0) if padding == "valid" else size * stride
    pad = eff // 2 if padding == "same" else 0
    return (size - 1) * stride + eff - 2 * pad + int(output_padding)


_FORMATS_2D = ("NHWC", "NCHW")
_FORMATS_3D = ("NDHWC", "NCDHW")


def _channels_last(owner: str, input, filters, data_format, formats: tuple, filters_name: str = "filters"):  # noqa: A002
    """``(x, k)``: the input, channels last, and the filters of a convolution, checked: ``data_format`` one of
    ``formats`` (channels last, channels first: ``("NHWC", "NCHW")``), both of its rank."""
    rank = len(formats[0])
    if data_format not in formats:
        raise ValueError(f"{owner}: data_format must be {formats[0]!r} or {formats[1]!r}. Received: "
                         f"data_format={data_format!r}")
    x, k = _tensor(input), _tensor(filters)
    if x.ndim != rank or k.ndim != rank:
        raise ValueError(f"{owner}: input and {filters_name} must have rank {rank}. Received shapes "
                         f"{tuple(x.shape)} and {tuple(k.shape)}")
    if data_format == formats[1]:
        x = array_ops.transpose(x, perm=(0, *range(2, rank), 1))
    return x, k


def _output_shape(owner: str, output_shape, data_format, formats: tuple) -> list:
    """A transposed convolution's ``output_shape`` as a list, channels last."""
    rank = len(formats[0])
    out = [int(s) for s in np.asarray(getattr(output_shape, "_value", output_shape)).reshape(-1)]
    if len(out) != rank:
        raise ValueError(f"{owner}: output_shape must have {rank} entries. Received: {out}")
    return [out[0], *out[2:], out[1]] if data_format == formats[1] else out


def _in_format(y, data_format, formats: tuple):
    """``y`` (channels last) in ``data_format``."""
    rank = len(formats[0])
    return array_ops.transpose(y, perm=(0, rank - 1, *range(1, rank - 1))) if data_format == formats[1] else y


def conv2d_transpose(input, filters, output_shape, strides=1, padding="SAME", data_format="NHWC",  # noqa: A002
                     dilations=1, name=None):
    """The transpose of ``conv2d`` (``tf.nn.conv2d_transpose``).

    Args:
        input: ``(N, H, W, C_in)`` (or NCHW).
        filters: ``(kh, kw, C_out, C_in)``.
        output_shape: ``(N, OH, OW, C_out)`` (or NCHW): the shape whose ``conv2d`` has ``input``'s shape.
        strides, dilations: an int, 2 ints or 4 (1 on batch and channels).
        padding: ``"VALID"`` or ``"SAME"``.

    Example:
        >>> import descend as ds, numpy as np
        >>> y = ds.nn.conv2d_transpose(ds.ones((1, 2, 2, 1)), ds.ones((2, 2, 1, 1)), (1, 4, 4, 1), strides=2)
        >>> y.numpy()[0, :, :, 0].tolist()[0]
        [1.0, 1.0, 1.0, 1.0]
    """
    owner = "conv2d_transpose"
    x, k = _channels_last(owner, input, filters, data_format, _FORMATS_2D)
    out_shape = _output_shape(owner, output_shape, data_format, _FORMATS_2D)
    sh = _nhwc_args(strides, "strides", owner, data_format)
    dl = _nhwc_args(dilations, "dilations", owner, data_format)
    pad = _padding(padding, owner)
    n, h, w, c_in = x.shape
    kh, kw, c_out, kc = k.shape
    if kc != c_in:
        raise ValueError(f"{owner}: filters expect {kc} input channels; the input has {c_in} "
                         f"(shape {tuple(x.shape)})")
    if out_shape[0] != n or out_shape[3] != c_out:
        raise ValueError(f"{owner}: output_shape {out_shape} must have batch {n} and {c_out} channels (the "
                         f"filters' third axis)")
    oh, ow = out_shape[1], out_shape[2]
    # the forward convolution from (oh, ow) must give (h, w)
    for size, got, kk, s, d in ((oh, h, kh, sh[0], dl[0]), (ow, w, kw, sh[1], dl[1])):
        expected = conv_output_size(size, kk, s, pad, d)[0]
        if expected != got:
            raise ValueError(f"{owner}: a conv2d of output_shape {out_shape} with these strides and padding gives "
                             f"spatial size {expected}, not the input's {got}")
    # patches: (N*H*W, C_in) @ (C_in, kh*kw*C_out)
    cols = math_ops.matmul(array_ops.reshape(x, shape=(n * h * w, c_in)),
                           array_ops.reshape(k, shape=(kh * kw * c_out, c_in)), transpose_b=True)
    cols = array_ops.reshape(cols, shape=(n, h, w, kh, kw, c_out))
    full_h, full_w = (h - 1) * sh[0] + (kh - 1) * dl[0] + 1, (w - 1) * sh[1] + (kw - 1) * dl[1] + 1
    full = col2im(cols, shape=(n, full_h, full_w, c_out), ksize=(kh, kw), strides=sh, dilations=dl,
                  pads=((0, 0), (0, 0)))
    y = _fit(full, 1, oh, conv_output_size(oh, kh, sh[0], pad, dl[0])[1])
    y = _fit(y, 2, ow, conv_output_size(ow, kw, sh[1], pad, dl[1])[1])
    return _in_format(y, data_format, _FORMATS_2D)


def _fit(x, axis: int, size: int, before: int):
    """``x[before:before + size]`` along ``axis``, zero-padded at the end where ``x`` is shorter."""
    have = x.shape[axis]
    key = [slice(None)] * x.ndim
    key[axis] = slice(before, min(before + size, have))
    y = array_ops.getitem(x, tuple(key))
    missing = size - y.shape[axis]
    if missing > 0:
        widths = [[0, 0] for _ in range(x.ndim)]
        widths[axis] = [0, missing]
        y = array_ops.pad(y, widths)
    return y


def conv1d_transpose(input, filters, output_shape, strides=1, padding="SAME", data_format="NWC",  # noqa: A002
                     dilations=1, name=None):
    """The transpose of ``conv1d`` (``tf.nn.conv1d_transpose``): filters ``(k, C_out, C_in)``, output_shape
    ``(N, OW, C_out)``."""
    if data_format not in ("NWC", "NCW"):
        raise ValueError(f"conv1d_transpose: data_format must be 'NWC' or 'NCW'. Received: {data_format!r}")
    x, k = _tensor(input), _tensor(filters)
    if data_format == "NCW":
        x = array_ops.transpose(x, perm=(0, 2, 1))
    out = [int(s) for s in np.asarray(getattr(output_shape, "_value", output_shape)).reshape(-1)]
    if data_format == "NCW":
        out = [out[0], out[2], out[1]]
    s = strides[0] if isinstance(strides, (list, tuple)) and len(strides) == 1 else strides
    d = dilations[0] if isinstance(dilations, (list, tuple)) and len(dilations) == 1 else dilations
    y = conv2d_transpose(array_ops.expand_dims(x, axis=1), array_ops.expand_dims(k, axis=0),
                         (out[0], 1, out[1], out[2]), strides=(1, s), padding=padding, dilations=(1, d))
    y = array_ops.squeeze(y, axis=1)
    return array_ops.transpose(y, perm=(0, 2, 1)) if data_format == "NCW" else y


def depthwise_conv2d(input, filter, strides, padding, data_format="NHWC", dilations=None, name=None):  # noqa: A002
    """Each input channel convolved with its own ``M`` filters (``tf.nn.depthwise_conv2d``).

    Args:
        input: ``(N, H, W, C)`` (or NCHW).
        filter: ``(kh, kw, C, M)``; the output has ``C * M`` channels, channel ``c * M + m``.
        strides: 4 ints (1 on batch and channels) or 2 or one.
        padding: ``"VALID"`` or ``"SAME"``.
        dilations: 2 ints or one (default 1).
    """
    owner = "depthwise_conv2d"
    x, k = _channels_last(owner, input, filter, data_format, _FORMATS_2D, "filter")
    sh = _nhwc_args(strides, "strides", owner, data_format)
    dl = _nhwc_args(1 if dilations is None else dilations, "dilations", owner, data_format)
    pad = _padding(padding, owner)
    n, _, _, c = x.shape
    kh, kw, kc, m = k.shape
    if kc != c:
        raise ValueError(f"{owner}: the filter expects {kc} input channels; the input has {c}")
    (oh, ow), pads = _spatial(x.shape, (kh, kw), sh, dl, pad, owner)
    patches = im2col(x, ksize=(kh, kw), strides=sh, dilations=dl, pads=pads)  # (N, OH, OW, kh, kw, C)
    y = math_ops.einsum("nhwabc,abcm->nhwcm", patches, k)
    return _in_format(array_ops.reshape(y, shape=(n, oh, ow, c * m)), data_format, _FORMATS_2D)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, data_format="NHWC",  # noqa: A002
                     dilations=None, name=None):
    """``depthwise_conv2d`` then a 1x1 ``conv2d`` with ``pointwise_filter`` ``(1, 1, C * M, F)``
    (``tf.nn.separable_conv2d``)."""
    y = depthwise_conv2d(input, depthwise_filter, strides, padding, data_format=data_format, dilations=dilations)
    return conv2d(y, pointwise_filter, strides=1, padding="VALID", data_format=data_format)


def _triple(value, what: str, owner: str) -> tuple:
    if isinstance(value, (list, tuple)) and len(value) == 5:
        if value[0] != 1 or value[4] != 1:
            raise ValueError(f"{owner}: `{what}` must be 1 on the batch and channel axes. Received: {value!r}")
        value = value[1:4]
    values = (value,) * 3 if isinstance(value, (int, np.integer)) else tuple(value)
    if len(values) != 3 or any(isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v <= 0
                               for v in values):
        raise ValueError(f"{owner}: `{what}` must be a positive int, 3 of them, or 5 (NDHWC). Received: {value!r}")
    return tuple(int(v) for v in values)


def conv3d(input, filters, strides, padding, data_format="NDHWC", dilations=None, name=None):  # noqa: A002 - TF's name
    """3-D convolution (``tf.nn.conv3d``): input ``(N, D, H, W, C)``, filters ``(kd, kh, kw, C, F)``;
    ``out[:, z] = sum_a conv2d(xpad[:, z * sd + a * dd], filters[a])``."""
    owner = "conv3d"
    x, k = _channels_last(owner, input, filters, data_format, _FORMATS_3D)
    st = _triple(strides, "strides", owner)
    dl = _triple(1 if dilations is None else dilations, "dilations", owner)
    pad = _padding(padding, owner)
    kd = k.shape[0]
    if k.shape[3] != x.shape[4]:
        raise ValueError(f"{owner}: filters expect {k.shape[3]} input channels; the input has {x.shape[4]}")
    od, before, after = conv_output_size(x.shape[1], kd, st[0], pad, dl[0])
    if od <= 0:
        raise ValueError(f"{owner}: the depth window {kd} (dilation {dl[0]}) does not fit the input's depth "
                         f"{x.shape[1]}")
    if before or after:
        x = array_ops.pad(x, [[0, 0], [before, after], [0, 0], [0, 0], [0, 0]])
    depth = []
    for z in range(od):
        terms = [conv2d(x[:, z * st[0] + a * dl[0]], k[a], strides=st[1:], padding=pad.upper(), dilations=dl[1:])
                 for a in range(kd)]
        depth.append(math_ops.add_n(terms) if len(terms) > 1 else terms[0])
    return _in_format(array_ops.stack(depth, axis=1), data_format, _FORMATS_3D)
