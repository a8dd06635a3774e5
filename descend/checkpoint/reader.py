"""Read-only, verified access to a checkpoint's tensors (``tf.train.load_checkpoint``).

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

from .format import from_json, read_checkpoint

__all__ = ["CheckpointReader", "load_checkpoint", "list_variables"]


class CheckpointReader:
    """The tensors of a checkpoint, every checksum verified.

    Attributes:
        path: the checkpoint directory.
        manifest: the parsed ``manifest.json``.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self.manifest, self._tensors = read_checkpoint(self.path)

    def keys(self) -> list[str]:
        return sorted(self._tensors)

    def has_tensor(self, key: str) -> bool:
        return key in self._tensors

    def get_tensor(self, key: str) -> np.ndarray:
        if key not in self._tensors:
            keys = self.keys()
            shown = keys if len(keys) <= 50 else keys[:50] + [f"... {len(keys) - 50} more"]
            raise KeyError(f"checkpoint '{self.path}' has no tensor '{key}'. It has: {shown}")
        return self._tensors[key].copy()

    def get_variable_to_shape_map(self) -> dict[str, tuple]:
        return {k: tuple(v.shape) for k, v in self._tensors.items()}

    def get_variable_to_dtype_map(self) -> dict[str, np.dtype]:
        return {k: v.dtype for k, v in self._tensors.items()}

    def variable_names(self) -> dict[str, str]:
        """Path -> the name the variable had when it was saved (metadata only)."""
        return dict(self.manifest.get("variable_names", {}))

    def json_state(self, path: str):
        """The JSON state saved for the object at ``path`` (e.g. ``"rng"``), or None."""
        entry = self.manifest["objects"].get(path)
        state = (entry or {}).get("json")
        return None if state is None else from_json(state, f"objects.{path}.json")


def load_checkpoint(path) -> CheckpointReader:
    """A :class:`CheckpointReader` for the checkpoint at ``path`` (verified)."""
    return CheckpointReader(path)


def list_variables(path) -> list[tuple[str, tuple]]:
    """``[(key, shape), ...]`` of every tensor in the checkpoint, sorted by key."""
    return sorted(CheckpointReader(path).get_variable_to_shape_map().items())
