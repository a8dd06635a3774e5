"""Bounding boxes: non-max suppression (``tf.image.non_max_suppression*``) and drawing boxes.

Selection is not differentiable (indices out), as in TF.
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor, to_array
from . import _common

__all__ = ["non_max_suppression", "non_max_suppression_with_scores", "non_max_suppression_padded",
           "non_max_suppression_overlaps", "combined_non_max_suppression", "draw_bounding_boxes",
           "sample_distorted_bounding_box", "stateless_sample_distorted_bounding_box"]


def _arrays(boxes, scores, fn):
    b = np.asarray(to_array(convert_to_tensor(boxes)), np.float64)
    s = np.asarray(to_array(convert_to_tensor(scores)), np.float64)
    if b.ndim != 2 or b.shape[1] != 4:
        raise ValueError(f"{fn}: 'boxes' must be [num_boxes, 4] (y1, x1, y2, x2); received shape {b.shape}")
    if s.shape != (b.shape[0],):
        raise ValueError(f"{fn}: 'scores' must be [num_boxes] = [{b.shape[0]}]; received shape {s.shape}")
    return b, s


def _iou(box, others):
    y1, x1 = np.minimum(box[0], box[2]), np.minimum(box[1], box[3])
    y2, x2 = np.maximum(box[0], box[2]), np.maximum(box[1], box[3])
    oy1, ox1 = np.minimum(others[:, 0], others[:, 2]), np.minimum(others[:, 1], others[:, 3])
    oy2, ox2 = np.maximum(others[:, 0], others[:, 2]), np.maximum(others[:, 1], others[:, 3])
    area = (y2 - y1) * (x2 - x1)
    oarea = (oy2 - oy1) * (ox2 - ox1)
    inter = np.maximum(np.minimum(y2, oy2) - np.maximum(y1, oy1), 0) * np.maximum(np.minimum(x2, ox2) - np.maximum(x1, ox1), 0)
    union = area + oarea - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.where((area <= 0) | (oarea <= 0), 0.0, inter / union)
    return iou


def _select(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, fn, overlaps=None):
    if overlaps is None:
        b, s = _arrays(boxes, scores, fn)
        overlap = lambda i, rest: _iou(b[i], b[rest])  # noqa: E731
    else:
        s = np.asarray(to_array(convert_to_tensor(scores)), np.float64)
        o = np.asarray(to_array(convert_to_tensor(overlaps)), np.float64)
        if s.ndim != 1 or o.shape != (s.shape[0], s.shape[0]):
            raise ValueError(f"{fn}: 'overlaps' must be [num_boxes, num_boxes] and 'scores' [num_boxes]; received "
                             f"{o.shape} and {s.shape}")
        overlap = lambda i, rest: o[rest, i]  # noqa: E731 - TF reads the candidate's row
    n = _common.static_int(max_output_size, fn, "max_output_size")
    if n < 0:
        raise ValueError(f"{fn}: max_output_size must be >= 0; received {n}")
    iou_t = _common.static_float(iou_threshold, fn, "iou_threshold")
    if overlaps is None and not 0.0 <= iou_t <= 1.0:
        raise ValueError(f"{fn}: iou_threshold must be in [0, 1]; received {iou_t}")
    score_t = _common.static_float(score_threshold, fn, "score_threshold")
    sigma = _common.static_float(soft_nms_sigma, fn, "soft_nms_sigma")
    if sigma < 0:
        raise ValueError(f"{fn}: soft_nms_sigma must be >= 0; received {sigma}")
    s = s.copy()
    alive = s > score_t
    chosen, chosen_scores = [], []
    while len(chosen) < n and alive.any():
        # the best remaining score; ties go to the lower index
        cand = np.flatnonzero(alive)
        i = cand[np.argmax(s[cand])]
        alive[i] = False
        chosen.append(int(i))
        chosen_scores.append(s[i])
        rest = np.flatnonzero(alive)
        if rest.size == 0:
            break
        iou = overlap(i, rest)
        if sigma > 0:
            # Soft-NMS: overlaps above the threshold drop out, the others decay by exp(-iou^2 / (2 sigma))
            s[rest] = np.where(iou <= iou_t, s[rest] * np.exp(-0.5 / sigma * iou * iou), 0.0)
            alive[rest] = s[rest] > score_t
        else:
            alive[rest[iou > iou_t]] = False
    return np.asarray(chosen, np.int32), np.asarray(chosen_scores)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=-np.inf, name=None) -> Tensor:
    """Indices (int32) of at most ``max_output_size`` boxes, by decreasing score, skipping any box whose IoU
    with an already selected one exceeds ``iou_threshold`` and any score not above ``score_threshold``.

    Example:
        >>> import descend as ds
        >>> boxes = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3]]
        >>> ds.image.non_max_suppression(boxes, [0.9, 0.8, 0.7], 3).numpy()
        array([0, 2], dtype=int32)
    """
    idx, _ = _select(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0, "non_max_suppression")
    return convert_to_tensor(idx)


def non_max_suppression_with_scores(boxes, scores, max_output_size, iou_threshold=0.5,
                                    score_threshold=-np.inf, soft_nms_sigma=0.0, name=None):
    """``(indices, scores)``; with ``soft_nms_sigma > 0`` overlapping boxes' scores decay by
    ``exp(-iou^2 / (2 sigma))`` instead of being dropped (Soft-NMS)."""
    sdt = np.asarray(to_array(convert_to_tensor(scores))).dtype
    idx, sc = _select(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
                      "non_max_suppression_with_scores")
    return convert_to_tensor(idx), convert_to_tensor(sc.astype(sdt))


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=-np.inf,
                               pad_to_max_output_size=False, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512, name=None):
    """``(indices, valid_count)`` for one ``[n, 4]`` set of boxes; indices zero-padded to ``max_output_size``
    when ``pad_to_max_output_size``."""
    idx, _ = _select(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0,
                     "non_max_suppression_padded")
    valid = np.int32(idx.size)
    if pad_to_max_output_size:
        n = _common.static_int(max_output_size, "non_max_suppression_padded", "max_output_size")
        idx = np.concatenate([idx, np.zeros(n - idx.size, np.int32)])
    return convert_to_tensor(idx), convert_to_tensor(valid)


def non_max_suppression_overlaps(overlaps, scores, max_output_size, overlap_threshold=0.5,
                                 score_threshold=-np.inf, name=None) -> Tensor:
    """:func:`non_max_suppression` with a given ``[n, n]`` overlap matrix instead of boxes' IoU.

    Example:
        >>> import descend as ds
        >>> ds.image.non_max_suppression_overlaps([[1, .9, 0], [.9, 1, 0], [0, 0, 1]], [.8, .9, .1], 3).numpy()
        array([1, 2], dtype=int32)
    """
    idx, _ = _select(None, scores, max_output_size, overlap_threshold, score_threshold, 0.0,
                     "non_max_suppression_overlaps", overlaps=overlaps)
    return convert_to_tensor(idx)


def combined_non_max_suppression(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold=0.5,
                                 score_threshold=-np.inf, pad_per_class=False, clip_boxes=True, name=None):
    """Per-class greedy NMS over a batch, then the best ``max_total_size`` detections of each image
    (``tf.image.combined_non_max_suppression``).

    ``boxes`` is ``[batch, num_boxes, q, 4]`` (``q`` 1: shared by the classes, or ``num_classes``),
    ``scores`` ``[batch, num_boxes, num_classes]``. Returns ``(boxes [batch, n, 4], scores [batch, n],
    classes [batch, n], valid_detections [batch])``, zero-padded, with ``n = max_total_size`` (or
    ``min(max_total_size, max_output_size_per_class * num_classes)`` when ``pad_per_class``).

    Example:
        >>> import descend as ds, numpy as np
        >>> boxes = np.array([[[[0, 0, 1, 1]], [[0, 0, 1, 0.9]]]], np.float32)
        >>> out = ds.image.combined_non_max_suppression(boxes, np.array([[[0.9], [0.8]]], np.float32), 2, 2)
        >>> out[3].numpy()
        array([1], dtype=int32)
    """
    fn = "combined_non_max_suppression"
    b = np.asarray(to_array(convert_to_tensor(boxes)), np.float32)
    s = np.asarray(to_array(convert_to_tensor(scores)), np.float32)
    if b.ndim != 4 or b.shape[3] != 4 or s.ndim != 3 or s.shape[:2] != b.shape[:2] or b.shape[2] not in (1, s.shape[2]):
        raise ValueError(f"{fn}: 'boxes' must be [batch, num_boxes, q, 4] with q 1 or num_classes and 'scores' "
                         f"[batch, num_boxes, num_classes]; received {b.shape} and {s.shape}")
    per_class = _common.static_int(max_output_size_per_class, fn, "max_output_size_per_class")
    total = _common.static_int(max_total_size, fn, "max_total_size")
    if per_class <= 0 or total <= 0:
        raise ValueError(f"{fn}: max_output_size_per_class and max_total_size must be > 0; received {per_class}, "
                         f"{total}")
    num_classes = s.shape[2]
    n = min(total, per_class * num_classes) if pad_per_class else total
    out_boxes = np.zeros((b.shape[0], n, 4), np.float32)
    out_scores = np.zeros((b.shape[0], n), np.float32)
    out_classes = np.zeros((b.shape[0], n), np.float32)
    valid = np.zeros(b.shape[0], np.int32)
    for i in range(b.shape[0]):
        found = []  # (score, class, box)
        for c in range(num_classes):
            cb = b[i, :, 0 if b.shape[2] == 1 else c]
            idx, sc = _select(cb, s[i, :, c], per_class, iou_threshold, score_threshold, 0.0, fn)
            found += [(float(v), c, cb[j]) for j, v in zip(idx, sc)]
        found.sort(key=lambda t: -t[0])  # stable: within a score, the lower class first
        found = found[:n]
        valid[i] = len(found)
        for k, (v, c, box) in enumerate(found):
            out_boxes[i, k] = np.clip(box, 0.0, 1.0) if clip_boxes else box
            out_scores[i, k], out_classes[i, k] = v, c
    return (convert_to_tensor(out_boxes), convert_to_tensor(out_scores), convert_to_tensor(out_classes),
            convert_to_tensor(valid))


def draw_bounding_boxes(images, boxes, colors, name=None) -> Tensor:
    """Draw box outlines (normalized ``[y1, x1, y2, x2]``, ``boxes`` ``[b, n, 4]``) onto a float or int batch
    ``[b, h, w, c]``, cycling through ``colors`` (``[k, c]``)."""
    fn = "draw_bounding_boxes"
    images = _common.as_image(images, fn, ranks=(4,), what="images")
    img = np.array(to_array(images))
    bx = np.asarray(to_array(convert_to_tensor(boxes)), np.float64)
    col = np.asarray(to_array(convert_to_tensor(colors)), np.float64)
    if bx.ndim != 3 or bx.shape[0] != img.shape[0] or bx.shape[2] != 4:
        raise ValueError(f"{fn}: 'boxes' must be [batch={img.shape[0]}, num_boxes, 4]; received shape {bx.shape}")
    if col.ndim != 2 or col.shape[0] == 0 or col.shape[1] < img.shape[3]:
        raise ValueError(f"{fn}: 'colors' must be [num_colors, >= {img.shape[3]}]; received shape {col.shape}")
    _, h, w, c = img.shape
    for bi in range(img.shape[0]):
        for k, (y1, x1, y2, x2) in enumerate(bx[bi]):
            color = col[k % col.shape[0], :c].astype(img.dtype)
            t, lft = int(y1 * (h - 1)), int(x1 * (w - 1))
            btm, rgt = int(y2 * (h - 1)), int(x2 * (w - 1))
            if t > btm or lft > rgt or t >= h or lft >= w or btm < 0 or rgt < 0:
                continue
            tc, bc = min(max(t, 0), h - 1), min(max(btm, 0), h - 1)
            lc, rc = min(max(lft, 0), w - 1), min(max(rgt, 0), w - 1)
            for row in (t, btm):
                if 0 <= row < h:
                    img[bi, row, lc:rc + 1] = color
            for column in (lft, rgt):
                if 0 <= column < w:
                    img[bi, tc:bc + 1, column] = color
    return convert_to_tensor(img)


def _coverage_ok(crop, boxes, min_covered):
    """Whether ``crop`` (y0, x0, y1, x1 in pixels) covers at least ``min_covered`` of some box's area."""
    if min_covered <= 0:
        return True
    y0, x0, y1, x1 = crop
    for by0, bx0, by1, bx1 in boxes:
        area = (by1 - by0) * (bx1 - bx0)
        if area <= 0:
            continue
        inter = max(min(y1, by1) - max(y0, by0), 0) * max(min(x1, bx1) - max(x0, bx0), 0)
        if inter / area >= min_covered:
            return True
    return False


def _distorted_box(image_size, bounding_boxes, rng, min_object_covered, aspect_ratio_range, area_range, max_attempts,
                   use_image_if_no_bounding_boxes, fn):
    raw = np.asarray(to_array(convert_to_tensor(image_size)))
    size = raw.astype(np.int64).reshape(-1)
    if size.shape != (3,):
        raise ValueError(f"{fn}: 'image_size' must be [height, width, channels]; received {size.tolist()}")
    h, w = int(size[0]), int(size[1])
    bb = np.asarray(to_array(convert_to_tensor(bounding_boxes)), np.float64).reshape(-1, 4) \
        if bounding_boxes is not None else np.zeros((0, 4))
    if bb.size == 0:
        if not use_image_if_no_bounding_boxes:
            raise ValueError(f"{fn}: no bounding boxes given; pass some or use_image_if_no_bounding_boxes=True")
        bb = np.array([[0.0, 0.0, 1.0, 1.0]])
    boxes = bb * np.array([h, w, h, w])
    ar_lo, ar_hi = (float(v) for v in aspect_ratio_range)
    a_lo, a_hi = (float(v) for v in area_range)
    if not (0 < ar_lo <= ar_hi) or not (0 < a_lo <= a_hi <= 1):
        raise ValueError(f"{fn}: need 0 < aspect_ratio_range[0] <= [1] and 0 < area_range[0] <= [1] <= 1; received "
                         f"{aspect_ratio_range}, {area_range}")
    min_area, max_area = a_lo * w * h, a_hi * w * h
    for _ in range(int(max_attempts)):
        ratio = rng.uniform(ar_lo, ar_hi)
        height = int(np.rint(np.sqrt(min_area / ratio)))
        max_height = int(np.rint(np.sqrt(max_area / ratio)))
        if np.rint(max_height * ratio) > w:  # the tallest crop whose rounded width still fits
            max_height = int((w + 0.5 - 1e-7) / ratio)
            if np.rint(max_height * ratio) > w:
                max_height -= 1
        max_height = min(max_height, h)
        height = min(height, max_height)
        if height < max_height:
            height += int(rng.integers(0, max_height - height + 1))
        width = int(np.rint(height * ratio))
        if width * height < min_area:
            height += 1
            width = int(np.rint(height * ratio))
        if width * height > max_area:
            height -= 1
            width = int(np.rint(height * ratio))
        area = width * height
        if area < min_area or area > max_area or width > w or height > h or width <= 0 or height <= 0:
            continue
        y = int(rng.integers(0, h - height)) if height < h else 0
        x = int(rng.integers(0, w - width)) if width < w else 0
        if _coverage_ok((y, x, y + height, x + width), boxes, float(min_object_covered)):
            break
    else:
        y, x, height, width = 0, 0, h, w
    begin = np.array([y, x, 0], raw.dtype if raw.dtype.kind in "iu" else np.int32)
    extent = np.array([height, width, -1], begin.dtype)
    box = np.array([[[y / h, x / w, (y + height) / h, (x + width) / w]]], np.float32)
    return convert_to_tensor(begin), convert_to_tensor(extent), convert_to_tensor(box)


def sample_distorted_bounding_box(image_size, bounding_boxes, seed=0, min_object_covered=0.1,
                                  aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                                  use_image_if_no_bounding_boxes=None, name=None):
    """A random crop window (Inception-style): ``(begin, size, bboxes)`` for ``tf.slice``-like use, with an
    aspect ratio in ``aspect_ratio_range``, an area fraction in ``area_range``, covering at least
    ``min_object_covered`` of one of ``bounding_boxes`` (normalized ``[y1, x1, y2, x2]``); the whole image if
    ``max_attempts`` draws all fail (TF's algorithm; the draws are not TF's).

    Example:
        >>> import descend as ds
        >>> begin, size, box = ds.image.sample_distorted_bounding_box([10, 10, 3], [[[0, 0, 1, 1]]], seed=1)
        >>> size.numpy()[2]
        np.int32(-1)
    """
    from .. import random as _random  # the op seed and the global seed, as TF's
    g, o = _random.get_seed(None if seed == 0 else seed)
    rng = np.random.default_rng(None if g is None else [g % 2**63, o % 2**63])
    return _distorted_box(image_size, bounding_boxes, rng, min_object_covered, aspect_ratio_range, area_range,
                          max_attempts, use_image_if_no_bounding_boxes, "sample_distorted_bounding_box")


def stateless_sample_distorted_bounding_box(image_size, bounding_boxes, seed, min_object_covered=0.1,
                                            aspect_ratio_range=(0.75, 1.33), area_range=(0.05, 1.0), max_attempts=100,
                                            use_image_if_no_bounding_boxes=None, name=None):
    """:func:`sample_distorted_bounding_box` decided by the ``seed`` pair alone."""
    arr = np.asarray(to_array(seed) if isinstance(seed, Tensor) else seed)
    if arr.shape != (2,) or arr.dtype.kind not in "iu":
        raise ValueError(f"stateless_sample_distorted_bounding_box: 'seed' must be a pair of ints; received {seed!r}")
    rng = np.random.default_rng([int(v) % 2**63 for v in arr])
    return _distorted_box(image_size, bounding_boxes, rng, min_object_covered, aspect_ratio_range, area_range,
                          max_attempts, use_image_if_no_bounding_boxes, "stateless_sample_distorted_bounding_box")
