"""``keras.ops.image``'s filters: ``gaussian_blur`` (``descend.image.sampling``'s), ``sobel_edges`` and ``ssim`` on
descend's ``tf.image`` ones (issue 37). Differentiable in the images.

Example:
    >>> import numpy as np
    >>> from descend.keras import ops
    >>> x = np.ones((1, 5, 5, 1), np.float32)
    >>> round(float(ops.image.gaussian_blur(x)[0, 2, 2, 0]), 6)
    1.0
    >>> round(float(ops.image.ssim(x[0], x[0], filter_size=3)), 6)
    1.0
"""

from __future__ import annotations

import numpy as np

from ... import image as _image
from ... import ops as _o
from ...image import sampling as _sampling
from . import _format

__all__ = ["gaussian_blur", "sobel_edges", "ssim"]


def gaussian_blur(images, kernel_size=(3, 3), sigma=(1.0, 1.0), data_format=None):
    """``images`` convolved per channel with a Gaussian (``kernel_size`` and ``sigma`` per axis), zero-padded
    to keep their size (TF's "SAME" padding), in the images' dtype."""
    fn = "gaussian_blur"
    x, first = _format.images(images, data_format, fn)
    ks = tuple(int(k) for k in np.broadcast_to(np.asarray(kernel_size), (2,)))
    sg = tuple(float(s) for s in np.broadcast_to(np.asarray(sigma, np.float64), (2,)))
    if min(ks) < 1 or min(sg) <= 0:
        raise ValueError(f"{fn}: `kernel_size` must be positive and `sigma` > 0. Received: kernel_size="
                         f"{kernel_size}, sigma={sigma}")
    dtype = np.dtype(x.dtype) if x.dtype.kind == "f" else np.dtype(np.float32)
    x, had = _format.batch(_format.to_last(x, first))
    src = x.dtype
    out = _sampling.gaussian_blur(_o.cast(x, dtype) if src != dtype else x, ks, sg)
    out = _format.back_to(out, src)
    return _format.from_last(_format.unbatch(out, had), first)


def sobel_edges(images, data_format=None):
    """Sobel responses of a batch ``[b, h, w, c]`` as ``[b, h, w, c, 2]`` (vertical, then horizontal; channels
    first: ``[b, c, h, w, 2]``), edges reflect-padded (``tf.image.sobel_edges``)."""
    fn = "sobel_edges"
    x = _format.tensor(images)
    if x.ndim != 4:
        raise ValueError(f"{fn}: Invalid images rank: expected rank 4 (batch of images). Received input with "
                         f"shape: images.shape={tuple(x.shape)}")
    first = _format.channels_first(data_format, fn)
    out = _image.sobel_edges(_format.to_last(x, first))
    return _o.transpose(out, (0, 3, 1, 2, 4)) if first else out


def ssim(image1, image2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, data_format=None):
    """Structural similarity of two images or batches (one value per image, the mean over positions and
    channels), with a ``filter_size`` Gaussian window of ``filter_sigma`` (``tf.image.ssim``'s formula), in the
    images' dtype."""
    fn = "ssim"
    a, first = _format.images(image1, data_format, fn, name="image1")
    b, _ = _format.images(image2, data_format, fn, name="image2")
    dtype = a.dtype
    compute = dtype if dtype.kind == "f" else np.dtype(np.float32)
    a, b = (_format.to_last(_o.cast(t, compute) if t.dtype != compute else t, first) for t in (a, b))
    out = _image.ssim(a, b, max_val, filter_size=filter_size, filter_sigma=filter_sigma, k1=k1, k2=k2)
    return _o.cast(out, dtype) if out.dtype != dtype else out
