"""``keras.preprocessing``: Keras 3's older home of the data utilities; each name is the ``keras.utils`` one
(as in Keras): ``image`` (``array_to_img``, ``img_to_array``, ``load_img``, ``save_img``), ``sequence``
(``pad_sequences``) and the dataset builders.

Example:
    >>> from descend.keras import preprocessing, utils
    >>> preprocessing.sequence.pad_sequences is utils.pad_sequences
    True
"""

from __future__ import annotations

from ..utils import image_dataset_from_directory, text_dataset_from_directory, timeseries_dataset_from_array
from . import image, sequence

__all__ = ["image", "image_dataset_from_directory", "sequence", "text_dataset_from_directory",
           "timeseries_dataset_from_array"]
