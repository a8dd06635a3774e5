"""``MaxNumBoundingBoxes`` (as Keras 3's): gives every image exactly ``max_number`` bounding boxes.

The input is a dict ``{"images": ..., "bounding_boxes": {"boxes": (batch, n, 4), "labels": (batch, n)}, ...}``
(dense arrays: descend has no ragged tensors; pad short images' rows with -1 first, as Keras' densifying); boxes and
labels past ``max_number`` are dropped and missing ones are filled with ``fill_value``. Images, labels and other
entries pass unchanged; one image (rank-3 images, boxes ``(n, 4)``) works alike. A bounding-box format must be
named (``bounding_box_format``), as Keras requires. Not differentiable (a padding of data).

Example:
    >>> import descend as ds, numpy as np
    >>> layer = ds.layers.MaxNumBoundingBoxes(max_number=3, bounding_box_format="xyxy")
    >>> out = layer({"images": np.zeros((1, 4, 4, 3), np.float32),
    ...              "bounding_boxes": {"boxes": np.ones((1, 1, 4), np.float32), "labels": np.array([[7]])}})
    >>> out["bounding_boxes"]["labels"].numpy().tolist()
    [[7, -1, -1]]
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from .base import Layer

__all__ = ["MaxNumBoundingBoxes"]

_FORMATS = ("xyxy", "yxyx", "xywh", "center_xywh", "center_yxhw", "rel_xyxy", "rel_yxyx", "rel_xywh",
            "rel_center_xywh")


def _array(value) -> np.ndarray:
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


class MaxNumBoundingBoxes(Layer):
    """Pads or truncates each image's bounding boxes to ``max_number`` (``keras.layers.MaxNumBoundingBoxes``).

    Args:
        max_number: the number of boxes per image (a positive int).
        fill_value: the boxes' and labels' value where an image has fewer (default -1).
        bounding_box_format: the boxes' format (Keras' names: ``"xyxy"``, ``"yxyx"``, ``"xywh"``, ...); needed when
            the input has bounding boxes.
    """

    def __init__(self, max_number, fill_value=-1, bounding_box_format=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(max_number, bool) or not isinstance(max_number, (int, np.integer)) or max_number < 1:
            raise ValueError(f"MaxNumBoundingBoxes: `max_number` must be a positive int. Received: "
                             f"max_number={max_number!r}")
        if isinstance(fill_value, bool) or not isinstance(fill_value, (int, np.integer, float)):
            raise ValueError(f"MaxNumBoundingBoxes: `fill_value` must be a number. Received: fill_value={fill_value!r}")
        if bounding_box_format is not None and bounding_box_format not in _FORMATS:
            raise ValueError(f"MaxNumBoundingBoxes: unknown bounding_box_format {bounding_box_format!r}; expected one "
                             f"of {list(_FORMATS)}")
        self.max_number, self.fill_value = int(max_number), int(fill_value)
        self.bounding_box_format = bounding_box_format
        self._build_at_init()

    def transform_bounding_boxes(self, bounding_boxes: dict, transformation=None, training=True) -> dict:
        """``{"boxes": (batch, max_number, 4), "labels": (batch, max_number)}``."""
        extra = set(bounding_boxes) - {"boxes", "labels"}
        if extra:
            raise KeyError(f"There are unsupported keys in `bounding_boxes`: {sorted(extra)}. Only `boxes` and "
                           "`labels` are supported.")
        boxes = _array(bounding_boxes["boxes"])
        labels = _array(bounding_boxes["labels"])
        if boxes.ndim != 3 or boxes.shape[-1] != 4 or labels.shape != boxes.shape[:2]:
            raise ValueError(f"MaxNumBoundingBoxes: expected boxes (batch, n, 4) and labels (batch, n). Received "
                             f"{boxes.shape} and {labels.shape}")
        m, pad = self.max_number, max(self.max_number - boxes.shape[1], 0)
        boxes = np.pad(boxes[:, :m], [[0, 0], [0, pad], [0, 0]], constant_values=self.fill_value)
        labels = np.pad(labels[:, :m], [[0, 0], [0, pad]], constant_values=self.fill_value)
        return {**bounding_boxes, "boxes": Tensor(boxes), "labels": Tensor(labels)}

    def call(self, inputs, training=True):
        if not isinstance(inputs, dict):
            return inputs
        out = dict(inputs)
        if "bounding_boxes" in inputs:
            if not self.bounding_box_format:
                raise ValueError("You passed an input with a 'bounding_boxes' key, but you didn't specify a bounding "
                                 "box format. Pass a `bounding_box_format` argument to your MaxNumBoundingBoxes "
                                 "layer, e.g. `bounding_box_format='xyxy'`.")
            boxes = inputs["bounding_boxes"]
            single = _array(inputs["images"]).ndim == 3 if "images" in inputs else _array(boxes["boxes"]).ndim == 2
            if single:
                boxes = {k: _array(v)[None] for k, v in boxes.items()}
            result = self.transform_bounding_boxes(boxes)
            if single:
                result = {k: v[0] for k, v in result.items()}
            out["bounding_boxes"] = result
        return out

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        return {**super().get_config(), "max_number": self.max_number, "fill_value": self.fill_value,
                "bounding_box_format": self.bounding_box_format}
