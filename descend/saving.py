"""``descend.saving`` (as ``keras.saving``): weights files, whole models, and the registration of custom classes by
name. The formats, what each file holds and an example are in :mod:`descend.persistence.model_saving`, which
implements them."""

from .persistence.model_saving import (  # the implementation: descend/persistence/model_saving.py
    MAX_CONFIG_BYTES,
    MAX_PROBE_BYTES,
    MODEL_FILE,
    STATE_DIR,
    CustomObjectScope,
    custom_object_scope,
    deserialize_keras_object,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    load_model,
    load_weights,
    model_from_json,
    register_keras_serializable,
    register_serializable,
    save_model,
    save_weights,
    serialize_keras_object,
)

__all__ = [
    "register_serializable", "register_keras_serializable", "get_custom_objects", "custom_object_scope",
    "CustomObjectScope", "get_registered_object", "get_registered_name", "serialize_keras_object",
    "deserialize_keras_object", "save_weights", "load_weights", "save_model", "load_model", "model_from_json",
    "MODEL_FILE", "STATE_DIR", "MAX_CONFIG_BYTES", "MAX_PROBE_BYTES",
]
