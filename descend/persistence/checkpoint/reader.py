"""Read-only, verified access to a checkpoint's tensors (``tf.train.load_checkpoint``): descend's
checkpoint directories and TensorFlow's checkpoints (``<prefix>.index`` + ``.data-*``, TF 1 and TF 2),
told apart by the files at the path.

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> import descend.train as train
    >>> w = ds.Variable([1.0, 2.0], name="w")
    >>> path = train.Checkpoint(w=w).write(tempfile.mkdtemp() + "/ckpt")
    >>> for key, shape in train.list_variables(path):  # TensorFlow's keys, as tf.train.list_variables shows them
    ...     print(key, shape)
    _CHECKPOINTABLE_OBJECT_GRAPH ()
    save_counter/.ATTRIBUTES/VARIABLE_VALUE ()
    w/.ATTRIBUTES/VARIABLE_VALUE (2,)
"""

from __future__ import annotations

import base64
import binascii
import json
import os

import numpy as np

from ..checkpoint_errors import CheckpointCorruptedError, short
from ..formats import tf_bundle
from .descend_format import MANIFEST_FILE, from_json, is_checkpoint_dir, read_checkpoint
from .tf_writer import SAVE_COUNTER_KEY

__all__ = ["CheckpointReader", "load_checkpoint", "list_variables"]


class CheckpointReader:
    """The tensors of a checkpoint, every checksum verified.

    A descend checkpoint directory is read whole when opened; a TensorFlow checkpoint (``path`` is its
    prefix: ``path + ".index"`` exists) has its index checked when opened and each tensor read, and its
    checksum verified, by :meth:`get_tensor`. The keys are TensorFlow's:
    ``model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`` in a TF 2 checkpoint, variable names
    such as ``dense/kernel`` in a TF 1 one; in descend's checkpoints the keys TensorFlow gives the same
    objects (its ``_CHECKPOINTABLE_OBJECT_GRAPH`` and ``save_counter`` too), and descend's state TensorFlow
    has no place for under its object as ``<path>/.ATTRIBUTES/<name>`` (JSON state, such as a random
    generator's, as the bytes of its JSON text, as TensorFlow shows a Python object's ``py_state``). A
    checkpoint descend wrote before it recorded TensorFlow's keys shows descend's paths (``model/layers/0/kernel``).

    Attributes:
        path: the checkpoint directory or prefix.
        manifest: the parsed ``manifest.json`` (None for a TensorFlow checkpoint).
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self._bundle = None
        if tf_bundle.is_bundle(self.path) and not is_checkpoint_dir(self.path):
            self._bundle = tf_bundle.TensorBundle(self.path)
            self.manifest, self._tensors = None, None
        else:
            self.manifest, tensors = read_checkpoint(self.path)
            self._tensors = _by_tf_key(self.manifest, tensors, os.path.join(self.path, MANIFEST_FILE))

    def keys(self) -> list[str]:
        return self._bundle.keys() if self._bundle is not None else sorted(self._tensors)

    def has_tensor(self, key: str) -> bool:
        return key in self._bundle if self._bundle is not None else key in self._tensors

    def get_tensor(self, key: str):
        """The value saved under ``key``: a NumPy array (a copy), or ``bytes`` for a string (the object graph,
        descend's JSON state)."""
        if self._bundle is not None:
            value = self._bundle.read(key)
            return np.asarray(value) if not isinstance(value, bytes) else value
        if key not in self._tensors:
            keys = self.keys()
            shown = keys if len(keys) <= 50 else keys[:50] + [f"... {len(keys) - 50} more"]
            raise KeyError(f"checkpoint '{self.path}' has no tensor '{key}'. It has: {shown}")
        value = self._tensors[key]
        return value if isinstance(value, bytes) else value.copy()

    def get_variable_to_shape_map(self) -> dict[str, tuple]:
        if self._bundle is not None:
            return self._bundle.shapes()
        return {k: () if isinstance(v, bytes) else tuple(v.shape) for k, v in self._tensors.items()}

    def get_variable_to_dtype_map(self) -> dict[str, np.dtype]:
        if self._bundle is not None:
            return self._bundle.dtypes()
        return {k: np.dtype(object) if isinstance(v, bytes) else v.dtype for k, v in self._tensors.items()}

    def variable_names(self) -> dict[str, str]:
        """Path -> the name the variable had when it was saved (metadata only; empty for TensorFlow's files)."""
        return dict((self.manifest or {}).get("variable_names", {}))

    def json_state(self, path: str):
        """The JSON state saved for the object at ``path`` (e.g. ``"rng"``), or None."""
        entry = (self.manifest or {"objects": {}})["objects"].get(path)
        state = (entry or {}).get("json")
        return None if state is None else from_json(state, f"objects.{path}.json")


#: the most entries the manifest's TensorFlow key fields may hold
MAX_TF_KEYS = 1 << 22


def _by_tf_key(manifest: dict, tensors: dict, mpath: str) -> dict:
    """A descend checkpoint's values by TensorFlow's keys (its manifest's ``tf_keys``, ``tf_json_keys`` and
    ``tf_object_graph``, see :func:`descend.persistence.checkpoint.checkpoint._tf_fields`), checked: every
    tensor named once, every name different; a checkpoint written before descend recorded them: by its paths."""
    if "tf_keys" not in manifest:
        return tensors

    def corrupt(field, problem):
        return CheckpointCorruptedError(f"{mpath}: field '{field}' {problem}", [field])

    names, json_names, graph = manifest.get("tf_keys"), manifest.get("tf_json_keys"), manifest.get("tf_object_graph")
    if not isinstance(names, dict) or len(names) > MAX_TF_KEYS or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in names.items()):
        raise corrupt("tf_keys", f"must map each tensor's key to TensorFlow's (strings); found {short(names, 200)}")
    if sorted(names) != sorted(tensors):
        extra, absent = sorted(set(names) - set(tensors)), sorted(set(tensors) - set(names))
        raise corrupt("tf_keys", f"must name exactly the checkpoint's tensors; it names {short(extra, 200)} that "
                                 f"are not tensors and leaves out {short(absent, 200)}")
    if not isinstance(json_names, dict) or len(json_names) > MAX_TF_KEYS or not all(
            isinstance(k, str) and isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)
            for k, v in json_names.items()):
        raise corrupt("tf_json_keys", f"must map TensorFlow's keys to [object path, name]; found "
                                      f"{short(json_names, 200)}")
    try:
        graph_bytes = base64.b64decode(graph, validate=True) if isinstance(graph, str) else None
    except (binascii.Error, ValueError):
        graph_bytes = None
    if graph_bytes is None:
        raise corrupt("tf_object_graph", f"must be the object graph in base64; found {short(graph, 100)}")
    counter = manifest.get("save_counter")
    out: dict = {tf_bundle.OBJECT_GRAPH_KEY: graph_bytes, SAVE_COUNTER_KEY: np.asarray(counter, np.int64)}
    objects = manifest.get("objects", {})
    for key, (path, inner) in json_names.items():
        state = (objects.get(path) or {}).get("json") if isinstance(objects, dict) else None
        if key in out or not isinstance(state, dict) or inner not in state:
            raise corrupt("tf_json_keys", f"names '{short(key, 200)}' twice or a JSON value the objects do not hold "
                                          f"({short(path, 200)}: {short(inner, 100)})")
        out[key] = json.dumps(state[inner], sort_keys=True, separators=(",", ":")).encode("utf-8")
    for key, name in names.items():
        if name in out:
            raise corrupt("tf_keys", f"gives two values the key '{short(name, 200)}'")
        out[name] = tensors[key]
    return out


def load_checkpoint(path) -> CheckpointReader:
    """A :class:`CheckpointReader` for the checkpoint at ``path`` (verified); a folder's newest checkpoint."""
    from .manager import checkpoint_path_of

    return CheckpointReader(checkpoint_path_of(path))


def list_variables(path) -> list[tuple[str, tuple]]:
    """``[(key, shape), ...]`` of every tensor in the checkpoint (a folder's newest), sorted by key."""
    reader = load_checkpoint(path)
    if reader._bundle is not None:
        return reader._bundle.variables()  # already in order: no second copy of the list
    return sorted(reader.get_variable_to_shape_map().items())
