"""Keras 3's ``keras.ops.image`` (issue 37), on descend's ``tf.image`` ops: batched (rank 4) or single (rank 3)
images, channels last or first by ``data_format`` (``None``: ``keras.config.image_data_format()``), results in
the images' dtype. ``descend.keras.ops.image`` holds them (they are not in ``keras.ops`` itself, as in Keras).

Keras' ``Operation`` classes over these functions (``keras.ops.image.Resize``...) are made by
descend.keras.operations and live in ``descend.keras.ops.image``. Differences from Keras' TensorFlow backend are listed in docs/api.md.

Example:
    >>> import numpy as np
    >>> from descend.keras import ops
    >>> ops.image.resize(np.zeros((2, 8, 8, 3), np.float32), (4, 4)).shape
    TensorShape([2, 4, 4, 3])
"""

from .color import hsv_to_rgb, rgb_to_grayscale, rgb_to_hsv
from .filters import gaussian_blur, sobel_edges, ssim
from .geometry import crop_images, extract_patches, extract_patches_3d, pad_images, resize
from .sampling import affine_transform, elastic_transform, map_coordinates, perspective_transform, scale_and_translate

__all__ = ["affine_transform", "crop_images", "elastic_transform", "extract_patches", "extract_patches_3d",
           "gaussian_blur", "hsv_to_rgb", "map_coordinates", "pad_images", "perspective_transform", "resize",
           "rgb_to_grayscale", "rgb_to_hsv", "scale_and_translate", "sobel_edges", "ssim"]
