"""``Pipeline`` (as Keras 3's ``keras.layers.Pipeline``): layers applied one after the other, as a layer (not a
Model): meant for preprocessing, e.g. several augmentation layers in a ``tf.data``-style map.

Each layer gets the previous one's output (and its Keras mask, which descend carries on the tensor) and
``training`` (default True, as Keras). The weights of the layers are the pipeline's.

Example:
    >>> import descend as ds
    >>> p = ds.layers.Pipeline([ds.layers.Rescaling(2.0), ds.layers.Rescaling(1.0, offset=-1.0)])
    >>> p(ds.constant([1.0, 3.0])).numpy()
    array([1., 5.], dtype=float32)
"""

from __future__ import annotations

from .base import Layer

__all__ = ["Pipeline"]


class Pipeline(Layer):
    """Applies ``layers`` in order.

    Args:
        layers: a list of Layers.
        name: the pipeline's name.
    """

    def __init__(self, layers, name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        if not isinstance(layers, (list, tuple)) or not all(isinstance(x, Layer) for x in layers):
            raise ValueError(f"Pipeline: `layers` must be a list of Layers. Received: layers={layers!r}")
        self._pipeline_layers = list(layers)

    @property
    def layers(self) -> list:
        return self._pipeline_layers

    def call(self, inputs, training=True):
        for layer in self._pipeline_layers:
            inputs = layer(inputs, training=training)
        return inputs

    def compute_output_shape(self, input_shape):
        for layer in self._pipeline_layers:
            input_shape = layer.compute_output_shape(input_shape)
        return input_shape

    def get_config(self) -> dict:
        from .serialization import serialize

        return {"name": self.name, "layers": [serialize(x) for x in self._pipeline_layers]}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        from .serialization import deserialize

        layers = config.get("layers")
        if not isinstance(layers, (list, tuple)):
            raise ValueError("Pipeline: the config must hold a `layers` list of serialized layers. Received "
                             f"layers={layers!r}")
        config = {**config, "layers": [deserialize(x, custom_objects) for x in layers]}
        return cls(**config)
