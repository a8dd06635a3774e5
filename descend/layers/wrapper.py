"""``Wrapper`` (as Keras'): the base class of layers that hold one other layer and change how it runs
(``TimeDistributed``, ``SpectralNormalization``, your own).

A wrapper owns ``self.layer``: its weights are the wrapper's, ``build`` builds it when it is not yet built,
and the config holds the inner layer's config under ``"layer"`` (rebuilt by ``from_config`` through the
layer registry and ``custom_objects``).

Example:
    >>> import descend as ds
    >>> class Twice(ds.layers.Wrapper):
    ...     def call(self, inputs):
    ...         return self.layer(inputs) * 2.0
    >>> ds.clear_session()
    >>> twice = Twice(ds.layers.Dense(3, kernel_initializer="ones"))
    >>> twice(ds.ones((1, 2))).numpy().tolist(), [w.path for w in twice.weights]
    ([[4.0, 4.0, 4.0]], ['twice/dense/kernel', 'twice/dense/bias'])
"""

from __future__ import annotations

from ..persistence import object_config as _serialization
from .base import Layer

__all__ = ["Wrapper"]


def inner_layer(spec, custom_objects=None) -> Layer:
    """The layer a wrapper's config holds (its class found among descend's layers, registered ones and
    ``custom_objects``)."""
    if not isinstance(spec, dict):
        raise ValueError(f"A wrapper's 'layer' must be a layer config. Received: {str(spec)[:200]}")
    with _serialization.extend_scope(custom_objects):
        layer = _serialization.build_object(spec, "layers", "layer")
    if not isinstance(layer, Layer):
        raise ValueError(f"A wrapper's 'layer' must be a layer config. Received: {str(spec)[:200]}")
    return layer


class Wrapper(Layer):
    """The base class of a layer that wraps another (Keras' ``keras.layers.Wrapper``).

    Subclasses write ``call`` (and ``build`` when they add weights of their own, calling
    ``super().build(input_shape)`` to build the inner layer).

    Args:
        layer: the wrapped layer (a ``Layer``).
        **kwargs: the base layer's arguments (``name``, ``dtype``, ``trainable``).
    """

    def __init__(self, layer, **kwargs):
        if not isinstance(layer, Layer):
            raise ValueError(f"{type(self).__name__}: the wrapped `layer` must be a Layer. Received: layer={layer!r}")
        super().__init__(**kwargs)
        self.layer = layer

    def build(self, input_shape=None):
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True

    def get_config(self) -> dict:
        return {**super().get_config(), "layer": _serialization.serialize_keras_object(self.layer)}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        config = dict(config)
        if "layer" not in config:
            raise ValueError(f"{cls.__name__}.from_config: the config must hold the wrapped layer under 'layer'. "
                             f"Received keys: {sorted(config)}")
        return cls(inner_layer(config.pop("layer"), custom_objects), **config)
