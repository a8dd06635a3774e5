"""Resizing images (``tf.image.resize`` and the crops and pads built on it).

Every method is linear in the pixels, so each is written as gathers and weighted sums of existing
differentiable ops: the gradient is the transpose of the same weights, as TF's resize gradients are.
Arithmetic follows TF's kernels: bilinear and nearest use half-pixel centres in float32 index arithmetic
(``(x + 0.5) * in/out - 0.5``), bicubic uses TF's 1024-entry Keys table (a = -0.5) with out-of-range taps
dropped and the rest renormalized, area averages the overlapped source pixels, and ``antialias=True`` or
the lanczos/gaussian/mitchell kernels use TF's scale-and-translate spans.
"""

from __future__ import annotations

import math

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor, to_array
from ..ops import array_ops, math_ops
from . import _common

__all__ = ["ResizeMethod", "resize", "resize_with_pad", "crop_to_bounding_box", "pad_to_bounding_box",
           "resize_with_crop_or_pad", "central_crop", "crop_and_resize"]


class ResizeMethod:
    """The names of ``resize``'s methods (``tf.image.ResizeMethod``)."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


_METHODS = (ResizeMethod.BILINEAR, ResizeMethod.NEAREST_NEIGHBOR, ResizeMethod.BICUBIC, ResizeMethod.AREA,
            ResizeMethod.LANCZOS3, ResizeMethod.LANCZOS5, ResizeMethod.GAUSSIAN, ResizeMethod.MITCHELLCUBIC)
_F = np.float32


# ---------------------------------------------------------------- sampling kernels (float32, as TF's)
def _lanczos(radius):
    def k(x):
        x = np.abs(x).astype(np.float64)
        px = x * np.pi
        with np.errstate(divide="ignore", invalid="ignore"):
            v = radius * np.sin(px) * np.sin(px / radius) / (px * px)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, v)).astype(_F)
    return k, float(radius)


def _triangle(x):
    x = np.abs(x)
    return np.where(x < 1, 1 - x, 0).astype(_F)


def _keys_cubic(x):
    x = np.abs(x).astype(_F)
    far = ((_F(-0.5) * x + _F(2.5)) * x - _F(4.0)) * x + _F(2.0)
    near = ((_F(1.5) * x - _F(2.5)) * x) * x + _F(1.0)
    return np.where(x >= 2, _F(0), np.where(x >= 1, far, near)).astype(_F)


def _mitchell(x):
    x = np.abs(x).astype(_F)
    far = ((_F(-7.0 / 18.0) * x + _F(2.0)) * x - _F(10.0 / 3.0)) * x + _F(16.0 / 9.0)
    near = ((_F(7.0 / 6.0) * x - _F(2.0)) * x) * x + _F(8.0 / 9.0)
    return np.where(x >= 2, _F(0), np.where(x >= 1, far, near)).astype(_F)


def _gaussian(x):
    x = np.abs(x).astype(_F)
    sigma = 0.5
    return np.where(x >= 3 * sigma, _F(0), np.exp(-x * x / (2.0 * sigma * sigma))).astype(_F)


_KERNELS = {
    "triangle": (_triangle, 1.0), "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell, 2.0),
    "gaussian": (_gaussian, 1.5), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
}


def _span_weights(in_size: int, out_size: int, kernel: str, antialias: bool) -> np.ndarray:
    """TF's scale-and-translate weights as a dense ``[out_size, in_size]`` float32 matrix."""
    fn, radius = _KERNELS[kernel]
    scale = _F(out_size) / _F(in_size)
    inv_scale = _F(1.0 / float(scale))
    kernel_scale = max(inv_scale, _F(1.0)) if antialias else _F(1.0)
    w = np.zeros((out_size, in_size), _F)
    for x in range(out_size):
        sample = _F(_F(x) + _F(0.5)) * inv_scale
        if sample < 0 or sample > in_size:
            continue
        reach = _F(radius) * kernel_scale
        start = min(max(int(math.ceil(sample - reach - _F(0.5))), 0), in_size - 1)
        end = min(max(int(math.floor(sample + reach - _F(0.5))), 0), in_size - 1) + 1
        src = np.arange(start, end, dtype=_F)
        pos = (src + _F(0.5) - sample) * (_F(1.0) / kernel_scale)
        weights = fn(np.abs(pos))
        total = _F(0)
        for v in weights:
            total = _F(total + v)
        if abs(total) >= 1000.0 * np.finfo(_F).tiny:
            weights = weights * (_F(1.0) / total)
        w[x, start:end] = weights
    return w


def _area_weights(in_size: int, out_size: int) -> np.ndarray:
    """TF's ResizeArea: each output averages the source interval ``[y*s, (y+1)*s)`` it covers, ``s = in/out``."""
    s = _F(in_size) / _F(out_size)
    w = np.zeros((out_size, in_size), _F)
    for y in range(out_size):
        lo, hi = _F(y) * s, _F(y + 1) * s
        for v in range(int(math.floor(lo)), int(math.ceil(hi))):
            if v < lo:
                part = s if v + 1 > hi else _F(v + 1) - lo
            else:
                part = hi - _F(v) if v + 1 > hi else _F(1.0)
            w[y, min(max(v, 0), in_size - 1)] += _F(part)
    return w / s


def _keys_table():
    a = _F(-0.5)
    table = np.zeros((1025, 2), _F)
    for i in range(1025):
        x = _F(i * 1.0 / 1024)
        table[i, 0] = ((a + 2) * x - (a + 3)) * x * x + 1
        x = _F(x + 1.0)
        table[i, 1] = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return table


_KEYS_TABLE = None


def _bicubic_taps(in_size: int, out_size: int):
    """TF's ResizeBicubic (half-pixel centres, Keys a=-0.5 table): four ``(index, weight)`` taps per output."""
    global _KEYS_TABLE
    if _KEYS_TABLE is None:
        _KEYS_TABLE = _keys_table()
    t = _KEYS_TABLE
    scale = _F(in_size) / _F(out_size)
    loc_f = (np.arange(out_size, dtype=_F) + _F(0.5)) * scale - _F(0.5)
    loc = np.floor(loc_f).astype(np.int64)
    offset = np.rint((loc_f - loc.astype(_F)) * _F(1024)).astype(np.int64)
    want = [loc - 1, loc, loc + 1, loc + 2]
    raw = [t[offset, 1], t[offset, 0], t[1024 - offset, 0], t[1024 - offset, 1]]
    idx = [np.clip(i, 0, in_size - 1) for i in want]
    wts = [np.where(i == wnt, r, _F(0)).astype(_F) for i, wnt, r in zip(idx, want, raw)]
    total = ((wts[0] + wts[1]) + wts[2]) + wts[3]
    ok = np.abs(total) >= 1000.0 * np.finfo(_F).tiny
    inv = np.where(ok, _F(1.0) / np.where(ok, total, _F(1)), _F(1)).astype(_F)
    return idx, [w * inv for w in wts]


# ---------------------------------------------------------------- per-axis resamplers (images are [b, h, w, c])
def _weights_like(w: np.ndarray, images: Tensor, axis: int):
    shape = [1, 1, 1, 1]
    shape[axis] = w.shape[0]
    return np.asarray(w, images.dtype).reshape(shape)


def _bilinear_axis(images: Tensor, out_size: int, axis: int) -> Tensor:
    in_size = images.shape[axis]
    scale = _F(in_size) / _F(out_size)
    pos = (np.arange(out_size, dtype=_F) + _F(0.5)) * scale - _F(0.5)
    floor = np.floor(pos)
    lower = np.maximum(floor.astype(np.int64), 0)
    upper = np.minimum(np.ceil(pos).astype(np.int64), in_size - 1)
    lerp = pos - floor
    a = array_ops.gather(images, lower, axis=axis)
    b = array_ops.gather(images, upper, axis=axis)
    # a + (b - a) * lerp, TF's order of operations
    return math_ops.add(a, math_ops.multiply(math_ops.subtract(b, a), _weights_like(lerp, images, axis)))


def _nearest_axis(images: Tensor, out_size: int, axis: int) -> Tensor:
    in_size = images.shape[axis]
    scale = _F(in_size) / _F(out_size)
    idx = np.floor((np.arange(out_size, dtype=_F) + _F(0.5)) * scale).astype(np.int64)
    return array_ops.gather(images, np.clip(idx, 0, in_size - 1), axis=axis)


def _bicubic_axis(images: Tensor, out_size: int, axis: int) -> Tensor:
    idx, wts = _bicubic_taps(images.shape[axis], out_size)
    terms = [math_ops.multiply(array_ops.gather(images, i, axis=axis), _weights_like(w, images, axis))
             for i, w in zip(idx, wts)]
    return math_ops.add(math_ops.add(math_ops.add(terms[0], terms[1]), terms[2]), terms[3])


def _matrix_axis(images: Tensor, w: np.ndarray, axis: int) -> Tensor:
    w = np.asarray(w, images.dtype)
    spec = "oh,bhwc->bowc" if axis == 1 else "ow,bhwc->bhoc"
    return math_ops.einsum(spec, w, images)


def _resize_float(images: Tensor, height: int, width: int, method: str, antialias: bool) -> Tensor:
    """Resize a float ``[b, h, w, c]`` batch, keeping its dtype."""
    _, in_h, in_w, _ = images.shape
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return _nearest_axis(_nearest_axis(images, height, 1), width, 2)
    if method == ResizeMethod.AREA:
        return _matrix_axis(_matrix_axis(images, _area_weights(in_w, width), 2), _area_weights(in_h, height), 1)
    if method == ResizeMethod.BILINEAR and not antialias:
        return _bilinear_axis(_bilinear_axis(images, width, 2), height, 1)
    if method == ResizeMethod.BICUBIC and not antialias:
        return _bicubic_axis(_bicubic_axis(images, width, 2), height, 1)
    kernel = {"bilinear": "triangle", "bicubic": "keyscubic"}.get(method, method)
    images = _matrix_axis(images, _span_weights(in_w, width, kernel, antialias), 2)
    return _matrix_axis(images, _span_weights(in_h, height, kernel, antialias), 1)


def _check_size(size, fn: str):
    if isinstance(size, Tensor):
        size = to_array(size)
    try:
        arr = np.asarray(size)
    except (TypeError, ValueError):
        arr = np.asarray(None)
    if arr.shape != (2,) or arr.dtype.kind not in "iu":
        raise ValueError(f"{fn}: 'size' must be a 1-D sequence of 2 ints (new_height, new_width); received "
                         f"size={size!r}")
    h, w = int(arr[0]), int(arr[1])
    if h <= 0 or w <= 0:
        raise ValueError(f"{fn}: 'size' must be positive; received size={[h, w]}")
    return h, w


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio: bool = False,
           antialias: bool = False, name=None) -> Tensor:
    """Resize ``images`` (``[h, w, c]`` or ``[b, h, w, c]``) to ``size`` (``tf.image.resize``).

    ``method`` is one of :class:`ResizeMethod`'s names. The result is float32 (float64 stays float64)
    except for ``"nearest"``, which keeps the input's dtype. ``preserve_aspect_ratio`` scales both sides
    by the same factor so that the image fits in ``size``; ``antialias`` widens the kernel when
    downsampling (bilinear, bicubic, lanczos, gaussian, mitchellcubic).

    Example:
        >>> import descend as ds, numpy as np
        >>> img = ds.constant(np.arange(4.0, dtype=np.float32).reshape(2, 2, 1))
        >>> ds.image.resize(img, [4, 4])[..., 0].numpy()[0]
        array([0.  , 0.25, 0.75, 1.  ], dtype=float32)
    """
    images = _common.as_image(images, "resize", what="images")
    height, width = _check_size(size, "resize")
    if method not in _METHODS:
        raise ValueError(f"resize: unknown 'method'; expected one of {list(_METHODS)}, received method={method!r}")
    batch, was_batched = _common.batched(images)
    in_h, in_w = batch.shape[1], batch.shape[2]
    if in_h == 0 or in_w == 0:
        raise ValueError(f"resize: 'images' must have a non-empty height and width; received shape {images.shape}")
    if preserve_aspect_ratio:
        factor = min(_F(height) / _F(in_h), _F(width) / _F(in_w))
        height = int(np.rint(_F(factor * _F(in_h))))
        width = int(np.rint(_F(factor * _F(in_w))))
    if method != ResizeMethod.NEAREST_NEIGHBOR and batch.dtype not in (np.float32, np.float64):
        batch = math_ops.cast(batch, dtype="float32")
    out = _resize_float(batch, height, width, method, bool(antialias))
    return _common.unbatched(out, was_batched)


def _require(fn: str, checks) -> None:
    """Raise ``ValueError("<fn>: <message>")`` for the first ``(ok, message)`` of ``checks`` that is not ok."""
    for ok, msg in checks:
        if not ok:
            raise ValueError(f"{fn}: {msg}")


def _bounding_box(fn: str, image, offset_height, offset_width, target_height, target_width):
    """``(batch, was_batched, (oh, ow, th, tw))`` of crop/pad_to_bounding_box: the image as a batch and the box's
    four static ints, the offsets checked to be >= 0."""
    image = _common.as_image(image, fn)
    box = tuple(_common.static_int(v, fn, n) for v, n in ((offset_height, "offset_height"),
                                                          (offset_width, "offset_width"),
                                                          (target_height, "target_height"),
                                                          (target_width, "target_width")))
    batch, was_batched = _common.batched(image)
    _require(fn, ((box[0] >= 0, f"offset_height must be >= 0; received {box[0]}"),
                  (box[1] >= 0, f"offset_width must be >= 0; received {box[1]}")))
    return batch, was_batched, box


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width) -> Tensor:
    """The ``target_height x target_width`` window of ``image`` whose top-left corner is at the offsets.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.crop_to_bounding_box(np.arange(16.).reshape(4, 4, 1), 1, 1, 2, 2)[..., 0].numpy()
        array([[ 5.,  6.],
               [ 9., 10.]])
    """
    fn = "crop_to_bounding_box"
    batch, was_batched, (oh, ow, th, tw) = _bounding_box(fn, image, offset_height, offset_width, target_height,
                                                         target_width)
    h, w = batch.shape[1], batch.shape[2]
    _require(fn, ((th > 0, f"target_height must be > 0; received {th}"),
                  (tw > 0, f"target_width must be > 0; received {tw}"),
                  (h >= oh + th, f"height must be >= target + offset; received height {h}, target_height {th}, "
                                 f"offset_height {oh}"),
                  (w >= ow + tw, f"width must be >= target + offset; received width {w}, target_width {tw}, "
                                 f"offset_width {ow}")))
    return _common.unbatched(batch[:, oh:oh + th, ow:ow + tw, :], was_batched)


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width) -> Tensor:
    """``image`` placed at the offsets inside a zero image of ``target_height x target_width``.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.pad_to_bounding_box(np.ones((1, 1, 1)), 1, 0, 2, 2)[..., 0].numpy()
        array([[0., 0.],
               [1., 0.]])
    """
    fn = "pad_to_bounding_box"
    batch, was_batched, (oh, ow, th, tw) = _bounding_box(fn, image, offset_height, offset_width, target_height,
                                                         target_width)
    h, w = batch.shape[1], batch.shape[2]
    after_h, after_w = th - oh - h, tw - ow - w
    _require(fn, ((after_h >= 0, f"height must be <= target - offset; received height {h}, target_height {th}, "
                                 f"offset_height {oh}"),
                  (after_w >= 0, f"width must be <= target - offset; received width {w}, target_width {tw}, "
                                 f"offset_width {ow}")))
    padded = array_ops.pad(batch, paddings=[[0, 0], [oh, after_h], [ow, after_w], [0, 0]])
    return _common.unbatched(padded, was_batched)


def resize_with_crop_or_pad(image, target_height, target_width) -> Tensor:
    """Centre-crop and/or zero-pad ``image`` to ``target_height x target_width`` (no resampling).

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.resize_with_crop_or_pad(np.ones((2, 4, 1)), 4, 2)[..., 0].numpy()
        array([[0., 0.],
               [1., 1.],
               [1., 1.],
               [0., 0.]])
    """
    fn = "resize_with_crop_or_pad"
    image = _common.as_image(image, fn)
    th = _common.static_int(target_height, fn, "target_height")
    tw = _common.static_int(target_width, fn, "target_width")
    if th <= 0 or tw <= 0:
        raise ValueError(f"{fn}: target_height and target_width must be > 0; received {th}, {tw}")
    h, w = image.shape[-3], image.shape[-2]
    dh, dw = th - h, tw - w
    cropped = crop_to_bounding_box(image, max(-dh // 2, 0), max(-dw // 2, 0), min(th, h), min(tw, w))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), th, tw)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias: bool = False) -> Tensor:
    """Resize ``image`` keeping its aspect ratio, then zero-pad it to ``target_height x target_width``.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.resize_with_pad(np.ones((2, 4, 1)), 4, 4).shape
        TensorShape([4, 4, 1])
    """
    fn = "resize_with_pad"
    image = _common.as_image(image, fn)
    th = _common.static_int(target_height, fn, "target_height")
    tw = _common.static_int(target_width, fn, "target_width")
    if th <= 0 or tw <= 0:
        raise ValueError(f"{fn}: target_height and target_width must be > 0; received {th}, {tw}")
    h, w = image.shape[-3], image.shape[-2]
    ratio = max(_F(w) / _F(tw), _F(h) / _F(th))
    rh, rw = _F(h) / ratio, _F(w) / ratio
    ph = max(0, int(np.floor((_F(th) - rh) / _F(2))))
    pw = max(0, int(np.floor((_F(tw) - rw) / _F(2))))
    resized = resize(image, [int(np.floor(rh)), int(np.floor(rw))], method=method, antialias=antialias)
    return pad_to_bounding_box(resized, ph, pw, th, tw)


def central_crop(image, central_fraction: float) -> Tensor:
    """The central ``central_fraction`` (in (0, 1]) of ``image``'s height and width.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.image.central_crop(np.ones((10, 10, 3)), 0.5).shape  # TF's rounding: a start of int(2.5) = 2 on each side
        TensorShape([6, 6, 3])
    """
    fn = "central_crop"
    image = _common.as_image(image, fn)
    frac = _common.static_float(central_fraction, fn, "central_fraction")
    if not 0.0 < frac <= 1.0:
        raise ValueError(f"{fn}: central_fraction must be within (0, 1]; received {frac}")
    if frac == 1.0:
        return image
    h, w = image.shape[-3], image.shape[-2]
    start_h = int((h - h * frac) / 2)
    start_w = int((w - w * frac) / 2)
    return crop_to_bounding_box(image, start_h, start_w, h - 2 * start_h, w - 2 * start_w)


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0, name=None) -> Tensor:
    """Crops of a ``[b, h, w, c]`` batch at normalized ``boxes`` (``[n, 4]``: y1, x1, y2, x2) resized to
    ``crop_size`` (``tf.image.crop_and_resize``; bilinear or nearest sampling, ``extrapolation_value``
    outside the image). Differentiable with respect to ``image``.

    Example:
        >>> import descend as ds, numpy as np
        >>> img = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
        >>> ds.image.crop_and_resize(img, [[0.0, 0.0, 1.0, 1.0]], [0], [2, 2])[0, ..., 0].numpy()
        array([[ 0.,  3.],
               [12., 15.]], dtype=float32)
    """
    fn = "crop_and_resize"
    image = _common.as_image(image, fn, ranks=(4,))
    if image.dtype not in (np.float32, np.float64):
        image = math_ops.cast(image, dtype="float32")
    boxes = np.asarray(to_array(convert_to_tensor(boxes)), np.float32)
    idx = np.asarray(to_array(convert_to_tensor(box_indices))).astype(np.int64).reshape(-1)
    ch, cw = _check_size(crop_size, fn)
    if boxes.ndim != 2 or boxes.shape[1] != 4 or idx.shape[0] != boxes.shape[0]:
        raise ValueError(f"{fn}: 'boxes' must be [num_boxes, 4] and 'box_indices' [num_boxes]; received "
                         f"{boxes.shape} and {idx.shape}")
    b, h, w, _ = image.shape
    if np.any((idx < 0) | (idx >= b)):
        raise ValueError(f"{fn}: 'box_indices' must be in [0, {b}); received {idx.tolist()}")
    if method not in ("bilinear", "nearest"):
        raise ValueError(f"{fn}: 'method' must be 'bilinear' or 'nearest'; received {method!r}")
    crops = []
    for (y1, x1, y2, x2), i in zip(boxes, idx):
        ys = _crop_coords(y1, y2, h, ch)
        xs = _crop_coords(x1, x2, w, cw)
        crops.append(_sample(image[int(i)], ys, xs, h, w, method, extrapolation_value))
    if not crops:
        return convert_to_tensor(np.zeros((0, ch, cw, image.shape[3]), image.dtype))
    return array_ops.stack(crops, axis=0)


def _crop_coords(a, b, size, n):
    if n > 1:
        return a * (size - 1) + np.arange(n, dtype=np.float32) * ((b - a) * (size - 1) / (n - 1))
    return np.array([0.5 * (a + b) * (size - 1)], np.float32)


def _sample(img: Tensor, ys, xs, h, w, method, extrapolation_value):
    """Sample ``img`` ([h, w, c]) on the grid ``ys x xs`` (float32 source coordinates)."""
    valid = ((ys >= 0) & (ys <= h - 1))[:, None] & ((xs >= 0) & (xs <= w - 1))[None, :]
    if method == "nearest":
        # TF rounds halves away from zero (roundf), not to even
        yi = np.clip((np.sign(ys) * np.floor(np.abs(ys) + 0.5)).astype(np.int64), 0, h - 1)
        xi = np.clip((np.sign(xs) * np.floor(np.abs(xs) + 0.5)).astype(np.int64), 0, w - 1)
        out = array_ops.gather(array_ops.gather(img, yi, axis=0), xi, axis=1)
    else:
        yc, xc = np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)
        y0, x0 = np.floor(yc).astype(np.int64), np.floor(xc).astype(np.int64)
        y1, x1 = np.minimum(np.ceil(yc).astype(np.int64), h - 1), np.minimum(np.ceil(xc).astype(np.int64), w - 1)
        ly = np.asarray(yc - y0, img.dtype)[:, None, None]
        lx = np.asarray(xc - x0, img.dtype)[None, :, None]
        top = array_ops.gather(img, y0, axis=0)
        bottom = array_ops.gather(img, y1, axis=0)

        def along_x(rows):
            left, right = array_ops.gather(rows, x0, axis=1), array_ops.gather(rows, x1, axis=1)
            return math_ops.add(left, math_ops.multiply(math_ops.subtract(right, left), lx))
        t, bt = along_x(top), along_x(bottom)
        out = math_ops.add(t, math_ops.multiply(math_ops.subtract(bt, t), ly))
    fill = np.asarray(extrapolation_value, img.dtype)
    return math_ops.where(valid[:, :, None], out, fill)
