"""``descend.layers``: Keras-style layers built on descend ops (as ``keras.layers``).

Example:
    >>> import descend as ds
    >>> import descend.layers as layers
    >>> ds.clear_session()
    >>> dense = layers.Dense(2)
    >>> dense(ds.ones((3, 4))).shape
    (3, 2)
    >>> dense.kernel.name
    'dense/kernel'
"""

from .base import Layer, register_weight_hook, to_snake_case
from .conv import Conv2D, MaxPooling2D
from .core import Activation, Dense, Dropout, Embedding, Flatten
from .input_layer import Input, InputLayer
from .normalization import BatchNormalization, LayerNormalization

__all__ = [
    "Layer", "register_weight_hook", "to_snake_case", "Dense", "Activation", "Flatten", "Dropout", "Embedding",
    "LayerNormalization", "BatchNormalization", "Conv2D", "MaxPooling2D", "Input", "InputLayer",
]
