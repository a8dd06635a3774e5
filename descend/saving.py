"""Model persistence: weights files, whole models (architecture + weights + optimizer), and
registration of custom classes by name. Nothing is pickled: architectures are JSON configs.

The path's suffix says which file: ``.keras`` and ``.weights.h5`` are Keras 3's own formats
(:mod:`descend.persistence.keras_files`: Keras reads what descend writes and the other way round); any other path
is descend's directory format, whose state goes through the checkpoint format
(:mod:`descend.persistence.checkpoint`) and which also holds what Keras' files cannot (state of layers such as
Dropout's generator, tables sharded over the ranks of a strategy). Keras 2's legacy ``.h5`` files are
refused. ``load_weights`` also reads TensorFlow checkpoints (Keras 2's TF-format ``save_weights``).

* ``model.save_weights(path)`` / ``model.load_weights(path)``: the model's state; in descend's format
  a checkpoint directory at ``path`` (``tensors.safetensors`` + ``manifest.json``), keyed by path
  inside the model (``model/layers/0/kernel``), so any model of the same architecture loads it.
* ``model.save(path)`` / ``descend.models.load_model(path, custom_objects=...)``: in descend's format
  a directory
  holding ``model.json`` (the class and ``get_config()`` of the model, the compile arguments:
  the optimizer's class and config, the loss, the metrics) and ``state/`` (a checkpoint of the
  model and, with ``include_optimizer=True``, the optimizer: a loaded model continues training
  exactly where the saved one stopped).
* Custom layers, models, losses, metrics and optimizers are found by name: pass
  ``custom_objects={"Name": cls}`` or decorate the class with :func:`register_serializable`.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import descend as ds
    >>> model = ds.Sequential([ds.layers.Dense(2)])
    >>> _ = model.compile(optimizer="adam", loss="mse")
    >>> _ = model.fit(np.ones((4, 3)), np.ones((4, 2)), epochs=1, verbose=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "model")
    >>> model.save(path)
    >>> loaded = ds.models.load_model(path)
    >>> bool(np.array_equal(loaded.predict(np.ones((1, 3)), verbose=0), model.predict(np.ones((1, 3)), verbose=0)))
    True
"""

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
