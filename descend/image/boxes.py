"""Bounding boxes: non-max suppression (``tf.image.non_max_suppression*``) and drawing boxes.

Selection is not differentiable (indices out), as in TF.
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor, to_array
from . import _common

__all__ = ["non_max_suppression", "non_max_suppression_with_scores", "non_max_suppression_padded",
           "draw_bounding_boxes"]


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


def _select(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma, fn):
    b, s = _arrays(boxes, scores, fn)
    n = _common.static_int(max_output_size, fn, "max_output_size")
    if n < 0:
        raise ValueError(f"{fn}: max_output_size must be >= 0; received {n}")
    iou_t = _common.static_float(iou_threshold, fn, "iou_threshold")
    if not 0.0 <= iou_t <= 1.0:
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
        iou = _iou(b[i], b[rest])
        if sigma > 0:
            # Soft-NMS: overlaps above the threshold drop out, the others decay by exp(-iou^2 / (2 sigma))
            s[rest] = np.where(iou <= iou_t, s[rest] * np.exp(-0.5 / sigma * iou * iou), 0.0)
            alive[rest] = s[rest] > score_t
        else:
            alive[rest[iou > iou_t]] = False
    return np.asarray(chosen, np.int32), np.asarray(chosen_scores)


def non_max_suppression(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf")) -> Tensor:
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
                                    score_threshold=float("-inf"), soft_nms_sigma=0.0):
    """``(indices, scores)``; with ``soft_nms_sigma > 0`` overlapping boxes' scores decay by
    ``exp(-iou^2 / (2 sigma))`` instead of being dropped (Soft-NMS)."""
    sdt = np.asarray(to_array(convert_to_tensor(scores))).dtype
    idx, sc = _select(boxes, scores, max_output_size, iou_threshold, score_threshold, soft_nms_sigma,
                      "non_max_suppression_with_scores")
    return convert_to_tensor(idx), convert_to_tensor(sc.astype(sdt))


def non_max_suppression_padded(boxes, scores, max_output_size, iou_threshold=0.5, score_threshold=float("-inf"),
                               pad_to_max_output_size=False, sorted_input=False, canonicalized_coordinates=False,
                               tile_size=512):
    """``(indices, valid_count)`` for one ``[n, 4]`` set of boxes; indices zero-padded to ``max_output_size``
    when ``pad_to_max_output_size``."""
    idx, _ = _select(boxes, scores, max_output_size, iou_threshold, score_threshold, 0.0,
                     "non_max_suppression_padded")
    valid = np.int32(idx.size)
    if pad_to_max_output_size:
        n = _common.static_int(max_output_size, "non_max_suppression_padded", "max_output_size")
        idx = np.concatenate([idx, np.zeros(n - idx.size, np.int32)])
    return convert_to_tensor(idx), convert_to_tensor(valid)


def draw_bounding_boxes(images, boxes, colors) -> Tensor:
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
