"""``MaxNumBoundingBoxes``: truncation and padding as Keras (skips without Keras), one image,
passing other entries, config, refusals."""

import numpy as np
import pytest

import descend as ds

L = ds.layers
_IMAGES = np.zeros((2, 4, 4, 3), np.float32)
_BOXES = np.arange(2 * 5 * 4, dtype=np.float32).reshape(2, 5, 4)
_LABELS = np.arange(10).reshape(2, 5)


@pytest.mark.parametrize("max_number, fill", [(3, -1), (7, 0), (5, -2)])
def test_equals_keras(max_number, fill):
    keras = pytest.importorskip("keras")
    data = {"images": _IMAGES, "bounding_boxes": {"boxes": _BOXES, "labels": _LABELS}}
    want = keras.layers.MaxNumBoundingBoxes(max_number, fill_value=fill, bounding_box_format="xyxy")(
        {"images": _IMAGES, "bounding_boxes": {"boxes": _BOXES, "labels": _LABELS}})
    got = L.MaxNumBoundingBoxes(max_number, fill_value=fill, bounding_box_format="xyxy")(data)
    for key in ("boxes", "labels"):
        np.testing.assert_array_equal(got["bounding_boxes"][key].numpy(), np.asarray(want["bounding_boxes"][key]))
    np.testing.assert_array_equal(np.asarray(got["images"]), _IMAGES)


def test_padding_single_and_passthrough():
    layer = L.MaxNumBoundingBoxes(3, bounding_box_format="xyxy")
    padded = {"images": _IMAGES, "labels": np.array([1, 0]),
              "bounding_boxes": {"boxes": np.stack([np.pad(np.ones((1, 4)), [[0, 3], [0, 0]], constant_values=-1),
                                                    np.ones((4, 4)) * 2]),
                                 "labels": np.array([[5, -1, -1, -1], [6, 7, 8, 9]])}}
    out = layer(padded)
    assert out["bounding_boxes"]["labels"].numpy().tolist() == [[5, -1, -1], [6, 7, 8]]
    assert out["bounding_boxes"]["boxes"].numpy()[0, 1].tolist() == [-1, -1, -1, -1]
    np.testing.assert_array_equal(np.asarray(out["labels"]), [1, 0])
    one = layer({"images": _IMAGES[0], "bounding_boxes": {"boxes": _BOXES[0, :2], "labels": _LABELS[0, :2]}})
    assert one["bounding_boxes"]["boxes"].shape == (3, 4) and one["bounding_boxes"]["labels"].numpy().tolist() == [
        0, 1, -1]
    np.testing.assert_array_equal(layer(_IMAGES), _IMAGES)  # images alone pass unchanged
    config = layer.get_config()
    assert L.MaxNumBoundingBoxes.from_config(config).get_config() == config


def test_refusals():
    for kwargs in (dict(max_number=0), dict(max_number=2.5), dict(max_number=2, fill_value="x"),
                   dict(max_number=2, bounding_box_format="corners")):
        with pytest.raises(ValueError):
            L.MaxNumBoundingBoxes(**kwargs)
    data = {"images": _IMAGES, "bounding_boxes": {"boxes": _BOXES, "labels": _LABELS}}
    with pytest.raises(ValueError, match="bounding box format"):
        L.MaxNumBoundingBoxes(2)(data)
    with pytest.raises(KeyError, match="unsupported"):
        L.MaxNumBoundingBoxes(2, bounding_box_format="xyxy")(
            {"images": _IMAGES, "bounding_boxes": {"boxes": _BOXES, "labels": _LABELS, "scores": _LABELS}})
