"""Image differences and quality measures: ``image_gradients``, ``sobel_edges``, ``total_variation``,
``psnr``, ``ssim`` (TF's formulas, written with differentiable descend ops).
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import array_ops, math_ops
from . import _common, sampling

__all__ = ["image_gradients", "sobel_edges", "total_variation", "psnr", "ssim", "ssim_multiscale"]


def image_gradients(image):
    """``(dy, dx)``: forward differences along height and width of a ``[b, h, w, c]`` batch, zero in the
    last row (dy) and last column (dx).

    Example:
        >>> import descend as ds, numpy as np
        >>> dy, dx = ds.image.image_gradients(np.arange(4.0).reshape(1, 2, 2, 1))
        >>> dy[0, ..., 0].numpy(), dx[0, ..., 0].numpy()
        (array([[2., 2.],
               [0., 0.]]), array([[1., 0.],
               [1., 0.]]))
    """
    image = convert_to_tensor(image)
    if image.ndim != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d]; received shape {image.shape}")
    dy = math_ops.subtract(image[:, 1:, :, :], image[:, :-1, :, :])
    dx = math_ops.subtract(image[:, :, 1:, :], image[:, :, :-1, :])
    dy = array_ops.pad(dy, paddings=[[0, 0], [0, 1], [0, 0], [0, 0]])
    dx = array_ops.pad(dx, paddings=[[0, 0], [0, 0], [0, 1], [0, 0]])
    return dy, dx


def sobel_edges(image) -> Tensor:
    """Sobel responses ``[b, h, w, c, 2]`` (dy then dx) of a ``[b, h, w, c]`` batch, reflect-padded.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.sobel_edges(np.zeros((1, 3, 3, 2), np.float32)).shape
        TensorShape([1, 3, 3, 2, 2])
    """
    image = _common.as_image(image, "sobel_edges", ranks=(4,))
    if image.dtype.kind != "f":
        image = math_ops.cast(image, dtype="float32")
    _, h, w, _ = image.shape
    p = array_ops.pad(image, paddings=[[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    ky = [[-1, -2, -1], [0, 0, 0], [1, 2, 1]]
    out = []
    for kernel in (np.asarray(ky), np.asarray(ky).T):
        acc = None
        for i in range(3):
            for j in range(3):
                if kernel[i, j] == 0:
                    continue
                term = math_ops.multiply(p[:, i:i + h, j:j + w, :], np.asarray(kernel[i, j], image.dtype))
                acc = term if acc is None else math_ops.add(acc, term)
        out.append(acc)
    return array_ops.stack(out, axis=-1)


def total_variation(images, name=None) -> Tensor:
    """Sum of absolute differences between neighbouring pixels: a scalar for one image, ``[b]`` for a batch.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.total_variation(np.array([[[0.0], [1.0]], [[1.0], [3.0]]])).numpy()
        array(6.)
    """
    images = _common.as_image(images, "total_variation", what="images")
    axes = [-3, -2, -1]
    dh = math_ops.subtract(images[..., 1:, :, :], images[..., :-1, :, :])
    dw = math_ops.subtract(images[..., :, 1:, :], images[..., :, :-1, :])
    return math_ops.add(math_ops.reduce_sum(math_ops.abs(dh), axis=axes),
                        math_ops.reduce_sum(math_ops.abs(dw), axis=axes))


def _pair(a, b, fn):
    a, b = convert_to_tensor(a), convert_to_tensor(b)
    if a.shape != b.shape:
        raise ValueError(f"{fn}: the two images must have the same shape; received {a.shape} and {b.shape}")
    if a.dtype != b.dtype:
        raise TypeError(f"{fn}: the two images must have the same dtype; received {a.dtype.name} and {b.dtype.name}")
    if a.ndim < 3:
        raise ValueError(f"{fn}: images must have rank >= 3 ([..., height, width, channels]); received {a.shape}")
    return a, b


def _max_val(max_val, dtype, flt_dtype):
    """``max_val`` in the float units of the converted images (an integer max_val scales as the images do)."""
    v = np.asarray(max_val, dtype)
    return convert_to_tensor(_common.convert_image_dtype(convert_to_tensor(v), flt_dtype).numpy())


def psnr(a, b, max_val, name=None) -> Tensor:
    """Peak signal-to-noise ratio in dB, ``20 log10(max_val) - 10 log10(mse)``, per image.

    Example:
        >>> import descend as ds, numpy as np
        >>> round(float(ds.image.psnr(np.full((2, 2, 1), 0.5, np.float32), np.zeros((2, 2, 1), np.float32), 1.0)), 4)
        6.0206
    """
    a, b = _pair(a, b, "psnr")
    dtype = a.dtype
    a, b = _common.to_float(a), _common.to_float(b)
    mv = _max_val(max_val, dtype, a.dtype)
    mse = math_ops.reduce_mean(math_ops.squared_difference(a, b), axis=[-3, -2, -1])
    ten = np.asarray(np.log(10.0), a.dtype)
    first = math_ops.divide(math_ops.multiply(np.asarray(20.0, a.dtype), math_ops.log(mv)), ten)
    return math_ops.subtract(first, math_ops.multiply(np.asarray(10 / np.log(10), a.dtype), math_ops.log(mse)))


def _gauss(size: int, sigma: float, dtype) -> np.ndarray:
    """TF's normalized 2-D Gaussian window (a softmax of ``-(x^2 + y^2) / (2 sigma^2)``)."""
    coords = np.arange(size, dtype=np.float32) - np.float32((size - 1) / 2.0)
    g = np.square(coords) * np.float32(-0.5 / np.square(sigma))
    g = (g[None, :] + g[:, None]).reshape(-1)
    g = np.exp(g - g.max())
    return (g / g.sum()).reshape(size, size).astype(dtype)


def _ssim_maps(a: Tensor, b: Tensor, mv: np.ndarray, size: int, sigma: float, k1: float, k2: float):
    """TF's luminance and contrast-structure maps of two float image stacks ``[..., h, w, c]``."""
    if a.shape[-3] < size or a.shape[-2] < size:
        raise ValueError(f"ssim: image dimensions must be at least filter_size ({size}); received shape {a.shape}")
    kernel = _gauss(size, float(sigma), a.dtype)
    lead = a.shape[:-3]
    flat = (-1,) + tuple(a.shape[-3:])

    def reduce(x):
        y = sampling.correlate(array_ops.reshape(x, shape=flat), kernel)
        return array_ops.reshape(y, shape=tuple(lead) + tuple(y.shape[1:]))

    c1 = np.asarray((k1 * mv) ** 2, a.dtype)
    c2 = np.asarray((k2 * mv) ** 2, a.dtype)
    mean0, mean1 = reduce(a), reduce(b)
    num0 = math_ops.multiply(math_ops.multiply(mean0, mean1), np.asarray(2.0, a.dtype))
    den0 = math_ops.add(math_ops.square(mean0), math_ops.square(mean1))
    luminance = math_ops.divide(math_ops.add(num0, c1), math_ops.add(den0, c1))
    num1 = math_ops.multiply(reduce(math_ops.multiply(a, b)), np.asarray(2.0, a.dtype))
    den1 = reduce(math_ops.add(math_ops.square(a), math_ops.square(b)))
    cs = math_ops.divide(math_ops.add(math_ops.subtract(num1, num0), c2),
                         math_ops.add(math_ops.subtract(den1, den0), c2))
    return luminance, cs


def _prepare(img1, img2, max_val, filter_size, fn):
    a, b = _pair(img1, img2, fn)
    size = _common.static_int(filter_size, fn, "filter_size")
    if size < 1:
        raise ValueError(f"{fn}: filter_size must be >= 1; received {size}")
    dtype = a.dtype
    a, b = _common.to_float(a), _common.to_float(b)
    return a, b, np.asarray(_max_val(max_val, dtype, a.dtype).numpy()), size


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03, return_index_map=False) -> Tensor:
    """Structural similarity per image (mean over positions and channels), with TF's Gaussian window.

    Example:
        >>> import descend as ds, numpy as np
        >>> x = np.random.default_rng(0).random((16, 16, 1)).astype(np.float32)
        >>> round(float(ds.image.ssim(x, x, 1.0)), 6)
        1.0
    """
    a, b, mv, size = _prepare(img1, img2, max_val, filter_size, "ssim")
    luminance, cs = _ssim_maps(a, b, mv, size, filter_sigma, k1, k2)
    index_map = math_ops.multiply(luminance, cs)
    if return_index_map:
        return math_ops.reduce_mean(index_map, axis=-1)
    return math_ops.reduce_mean(math_ops.reduce_mean(index_map, axis=[-3, -2]), axis=-1)


def _halve(x: Tensor) -> Tensor:
    """TF's 2x2 average pooling of ``[..., h, w, c]``, an odd side first padded by repeating its last row/column."""
    h, w = x.shape[-3], x.shape[-2]
    if h % 2 or w % 2:
        pads = [[0, 0]] * (x.ndim - 3) + [[0, h % 2], [0, w % 2], [0, 0]]
        x = array_ops.pad(x, paddings=pads, mode="SYMMETRIC")
    s = math_ops.add(math_ops.add(x[..., 0::2, 0::2, :], x[..., 0::2, 1::2, :]),
                     math_ops.add(x[..., 1::2, 0::2, :], x[..., 1::2, 1::2, :]))
    return math_ops.multiply(s, np.asarray(0.25, x.dtype))


_MS_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def ssim_multiscale(img1, img2, max_val, power_factors=_MS_WEIGHTS, filter_size=11, filter_sigma=1.5, k1=0.01,
                    k2=0.03) -> Tensor:
    """Multi-scale SSIM: the contrast-structure terms of ``len(power_factors)`` successively halved scales and
    the SSIM of the last, combined as a weighted geometric mean (TF's ``ssim_multiscale``).

    Example:
        >>> import descend as ds, numpy as np
        >>> x = np.random.default_rng(0).random((32, 32, 1)).astype(np.float32)
        >>> round(float(ds.image.ssim_multiscale(x, x, 1.0, power_factors=(0.5, 0.5), filter_size=3)), 6)
        1.0
    """
    a, b, mv, size = _prepare(img1, img2, max_val, filter_size, "ssim_multiscale")
    weights = [float(p) for p in power_factors]
    if not weights:
        raise ValueError("ssim_multiscale: power_factors must not be empty")
    terms = []
    for k in range(len(weights)):
        if k:
            a, b = _halve(a), _halve(b)
        luminance, cs = _ssim_maps(a, b, mv, size, filter_sigma, k1, k2)
        cs_mean = math_ops.reduce_mean(cs, axis=[-3, -2])
        if k < len(weights) - 1:
            terms.append(math_ops.maximum(cs_mean, np.asarray(0, a.dtype)))
    last = math_ops.reduce_mean(math_ops.multiply(luminance, cs), axis=[-3, -2])
    terms.append(math_ops.maximum(last, np.asarray(0, a.dtype)))
    stacked = array_ops.stack(terms, axis=-1)
    ms = math_ops.reduce_prod(math_ops.pow(stacked, np.asarray(weights, a.dtype)), axis=-1)
    return math_ops.reduce_mean(ms, axis=-1)
