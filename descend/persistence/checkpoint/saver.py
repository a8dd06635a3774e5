"""``Saver``: TF 1's name-keyed checkpoints (``tf.compat.v1.train.Saver``), for TF 1 style code.

Variables are saved under their names (or the keys of a ``var_list`` dict) in the
checkpoint format of :mod:`descend.persistence.checkpoint.descend_format` (atomic, verified, no
pickle). ``var_list=None`` saves every live Variable, as TF 1's global
variables. Restoring assigns by name; one error lists every missing or
mis-shaped name and nothing changes. ``restore`` also reads a checkpoint TensorFlow 1's ``Saver``
wrote (``<path>.index`` exists): variables by name, and the slots of the live TF 1 optimizers by TF 1's
slot names (:mod:`descend.persistence.checkpoint.tf_names`).

Example:
    >>> import os, tempfile
    >>> import descend as ds
    >>> w = ds.Variable([1.0, 2.0], name="w")
    >>> saver = ds.compat.v1.train.Saver([w])
    >>> path = saver.save(None, os.path.join(tempfile.mkdtemp(), "model.ckpt"), global_step=3)
    >>> os.path.basename(path)
    'model.ckpt-3'
    >>> _ = w.assign([0.0, 0.0])
    >>> saver.restore(None, path)
    >>> w.numpy()
    array([1., 2.], dtype=float32)
"""

from __future__ import annotations

import os

import numpy as np

from ...framework.variable import Variable, live_variables
from ..checkpoint_errors import CheckpointMismatchError, mismatch_message
from ..formats import tf_bundle
from .descend_format import is_checkpoint_dir, new_manifest, read_checkpoint, write_checkpoint_dir

__all__ = ["Saver"]


class Saver:
    """Save and restore Variables by name.

    Args:
        var_list: None (every live Variable), a list of Variables (keyed by
            their names) or a dict ``{name in the file: Variable}``.
        max_to_keep: accepted for TF 1 code; this Saver keeps every file.
    """

    def __init__(self, var_list=None, max_to_keep: int = 5, **kwargs):
        if var_list is not None and not isinstance(var_list, (list, tuple, dict)):
            raise TypeError(f"`var_list` must be None, a list of Variables or a dict of them. Received: "
                            f"{type(var_list).__name__}")
        items = var_list.items() if isinstance(var_list, dict) else [(None, v) for v in (var_list or [])]
        for key, v in items:
            if not isinstance(v, Variable):
                raise TypeError(f"`var_list` must hold descend Variables. Received: {type(v).__name__}")
            if key is not None and not isinstance(key, str):
                raise TypeError(f"`var_list` keys must be strings. Received: {key!r}")
        self._var_list = var_list

    def _vars(self) -> dict[str, Variable]:
        if self._var_list is None:
            named = {v.scoped_name: v for v in live_variables()}  # a name reused after clear_session: the newest
            return dict(sorted(named.items(), key=lambda kv: kv[0]))
        if isinstance(self._var_list, dict):
            return dict(self._var_list)
        out = {}
        for v in self._var_list:
            if v.scoped_name in out and out[v.scoped_name] is not v:
                raise ValueError(f"Saver: two variables are named '{v.scoped_name}'; pass a dict to name them")
            out[v.scoped_name] = v
        return out

    def save(self, sess, save_path, global_step=None, **kwargs) -> str:
        """Write ``save_path`` (``save_path-<global_step>`` when given) and return the path."""
        path = os.fspath(save_path)
        if global_step is not None:
            path = f"{path}-{int(np.asarray(global_step.numpy() if hasattr(global_step, 'numpy') else global_step))}"
        tensors = {k: np.array(v.numpy(), dtype=v.numpy().dtype.newbyteorder("<")) for k, v in self._vars().items()}
        write_checkpoint_dir(path, tensors, new_manifest({}, {k: k for k in tensors}, 0, {"keyed_by": "name"}))
        return path

    def restore(self, sess, save_path) -> None:
        """Assign every variable the value saved under its name; nothing changes on a mismatch. A
        TensorFlow 1 checkpoint is read too: with ``var_list=None`` the slots of the live TF 1 optimizers
        are restored as well (kept until ``apply_gradients`` creates them)."""
        if save_path is None:
            raise ValueError("Saver.restore: save_path is None; pass the path of a checkpoint (e.g. "
                             "descend.train.latest_checkpoint(directory))")
        path = os.fspath(save_path)
        if tf_bundle.is_bundle(path) and not is_checkpoint_dir(path):
            from .tf_names import restore_by_name

            restore_by_name(path, self._var_list)
            return
        _, saved = read_checkpoint(path)
        wanted = self._vars()
        missing = sorted(k for k in wanted if k not in saved)
        bad = []
        for k, v in wanted.items():
            if k in saved and (saved[k].shape != tuple(v.shape) or saved[k].dtype != v.dtype.dtype):
                bad.append(f"{k}: expected shape {tuple(v.shape)} {v.dtype.name}, the checkpoint has shape "
                           f"{saved[k].shape} {saved[k].dtype.name}")
        if missing or bad:
            raise CheckpointMismatchError(mismatch_message(
                f"Saver: checkpoint '{save_path}' does not match the variables; nothing was restored", missing, (),
                bad), missing, (), bad)
        for k, v in wanted.items():
            v.assign(saved[k])
