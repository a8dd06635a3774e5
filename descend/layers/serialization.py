"""``keras.layers.serialize`` / ``deserialize``: a layer as its Keras 3 config and back (a module of its own, so
that layers holding other layers, such as ``Pipeline``, use it without importing the package)."""

from __future__ import annotations

from ..persistence import object_config as _serialization
from .base import Layer

__all__ = ["serialize", "deserialize"]


def serialize(layer) -> dict:
    """A layer's config in Keras 3's format (``keras.layers.serialize``): ``{"module", "class_name",
    "config", "registered_name"}``, nested objects written as their configs.

    Example:
        >>> import descend as ds
        >>> config = ds.layers.serialize(ds.layers.Dense(3, name="d"))
        >>> config["class_name"], ds.layers.deserialize(config).units
        ('Dense', 3)
    """
    if not isinstance(layer, Layer):
        raise TypeError(f"layers.serialize expects a Layer. Received: {type(layer).__name__}")
    return _serialization.serialize_keras_object(layer)


def deserialize(config, custom_objects: dict | None = None, safe_mode: bool = True) -> Layer:
    """The layer :func:`serialize` described (``keras.layers.deserialize``). Its class is found among
    descend's layers, registered classes, ``custom_objects`` and an active ``custom_object_scope``;
    nothing is imported, and a lambda's bytecode is refused unless ``safe_mode=False``."""
    if not isinstance(config, dict):
        raise ValueError(f"layers.deserialize expects a layer config (a dict). Received: {str(config)[:200]}")
    with _serialization.extend_scope(custom_objects), _serialization.safe_mode_scope(
            _serialization.in_safe_mode(safe_mode)):
        layer = _serialization.build_object(config, "layers", "layer")
    if not isinstance(layer, Layer):
        raise ValueError(f"layers.deserialize: the config does not describe a Layer. Received: {str(config)[:200]}")
    return layer
