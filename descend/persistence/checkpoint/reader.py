"""Read-only, verified access to a checkpoint's tensors (``tf.train.load_checkpoint``): descend's
checkpoint directories and TensorFlow's checkpoints (``<prefix>.index`` + ``.data-*``, TF 1 and TF 2),
told apart by the files at the path.

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> import descend.train as train
    >>> w = ds.Variable([1.0, 2.0], name="w")
    >>> path = train.Checkpoint(w=w).write(tempfile.mkdtemp() + "/ckpt")
    >>> train.list_variables(path)
    [('w', (2,))]
"""

from __future__ import annotations

import os

import numpy as np

from ..formats import tf_bundle
from .descend_format import from_json, is_checkpoint_dir, read_checkpoint

__all__ = ["CheckpointReader", "load_checkpoint", "list_variables"]


class CheckpointReader:
    """The tensors of a checkpoint, every checksum verified.

    A descend checkpoint directory is read whole when opened; a TensorFlow checkpoint (``path`` is its
    prefix: ``path + ".index"`` exists) has its index checked when opened and each tensor read, and its
    checksum verified, by :meth:`get_tensor` (its keys are TensorFlow's:
    ``model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`` in a TF 2 checkpoint, variable names
    such as ``dense/kernel`` in a TF 1 one).

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
            self.manifest, self._tensors = read_checkpoint(self.path)

    def keys(self) -> list[str]:
        return self._bundle.keys() if self._bundle is not None else sorted(self._tensors)

    def has_tensor(self, key: str) -> bool:
        return key in self._bundle if self._bundle is not None else key in self._tensors

    def get_tensor(self, key: str) -> np.ndarray:
        if self._bundle is not None:
            value = self._bundle.read(key)
            return np.asarray(value) if not isinstance(value, bytes) else value
        if key not in self._tensors:
            keys = self.keys()
            shown = keys if len(keys) <= 50 else keys[:50] + [f"... {len(keys) - 50} more"]
            raise KeyError(f"checkpoint '{self.path}' has no tensor '{key}'. It has: {shown}")
        return self._tensors[key].copy()

    def get_variable_to_shape_map(self) -> dict[str, tuple]:
        if self._bundle is not None:
            return self._bundle.shapes()
        return {k: tuple(v.shape) for k, v in self._tensors.items()}

    def get_variable_to_dtype_map(self) -> dict[str, np.dtype]:
        if self._bundle is not None:
            return self._bundle.dtypes()
        return {k: v.dtype for k, v in self._tensors.items()}

    def variable_names(self) -> dict[str, str]:
        """Path -> the name the variable had when it was saved (metadata only; empty for TensorFlow's files)."""
        return dict((self.manifest or {}).get("variable_names", {}))

    def json_state(self, path: str):
        """The JSON state saved for the object at ``path`` (e.g. ``"rng"``), or None."""
        entry = (self.manifest or {"objects": {}})["objects"].get(path)
        state = (entry or {}).get("json")
        return None if state is None else from_json(state, f"objects.{path}.json")


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
