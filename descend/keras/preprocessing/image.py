"""``keras.preprocessing.image``: the ``keras.utils`` image helpers under their older names (Keras'
``smart_resize`` is left out: descend's ``layers.Resizing(crop_to_aspect_ratio=True)`` does its resize)."""

from ..utils import array_to_img, img_to_array, load_img, save_img

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]
