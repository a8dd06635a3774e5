"""``tf.train.get_checkpoint_state``: the ``checkpoint`` file TensorFlow's savers and managers keep in a folder
(a ``CheckpointState`` message in protobuf's text format), read into a :class:`CheckpointState`.

Example:
    >>> import os, tempfile
    >>> import descend as ds
    >>> d = tempfile.mkdtemp()
    >>> with open(os.path.join(d, "checkpoint"), "w") as f:
    ...     _ = f.write('model_checkpoint_path: "ckpt-2"\\nall_model_checkpoint_paths: "ckpt-1"\\n'
    ...                 'all_model_checkpoint_paths: "ckpt-2"\\n')
    >>> state = ds.train.get_checkpoint_state(d)
    >>> os.path.basename(state.model_checkpoint_path), len(state.all_model_checkpoint_paths)
    ('ckpt-2', 2)
"""

from __future__ import annotations

import codecs
import os
import re

from .manager import latest_checkpoint

__all__ = ["CheckpointState", "get_checkpoint_state"]

_MAX_BYTES = 1 << 20  # a state file names a few paths
_FIELDS = {"model_checkpoint_path": str, "all_model_checkpoint_paths": list,
           "all_model_checkpoint_timestamps": list, "last_preserved_timestamp": float}
_LINE = re.compile(r'\s*([A-Za-z_]+)\s*:\s*(?:"((?:[^"\\]|\\.)*)"|([-+0-9.eE]+|inf|nan))\s*(?:#.*)?')


class CheckpointState:
    """TensorFlow's ``CheckpointState``: the newest checkpoint's path, the paths kept (oldest first), their
    timestamps (seconds since the epoch) and the time of the last checkpoint kept for good."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __eq__(self, other):
        return isinstance(other, CheckpointState) and vars(self) == vars(other)

    def __repr__(self):
        lines = [f'model_checkpoint_path: "{self.model_checkpoint_path}"']
        lines += [f'all_model_checkpoint_paths: "{p}"' for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {t!r}" for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:
            lines.append(f"last_preserved_timestamp: {self.last_preserved_timestamp!r}")
        return "\n".join(lines) + "\n"


def _parse(text: str, where: str) -> CheckpointState:
    state = CheckpointState()
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.strip().startswith("#"):
            continue
        m = _LINE.fullmatch(line)
        if m is None or m.group(1) not in _FIELDS:
            raise ValueError(f"{where}:{number}: not a CheckpointState field line: {line[:80]!r}")
        name, quoted, number_text = m.groups()
        kind = _FIELDS[name]
        is_path = name.endswith("_paths") or name == "model_checkpoint_path"
        if is_path != (quoted is not None):
            raise ValueError(f"{where}:{number}: field '{name}' expects a {'string' if is_path else 'number'}")
        if quoted is not None:
            try:  # the string's bytes: raw UTF-8 or escapes (octal, as TF writes them, \xhh, \n, \", \\)
                value = codecs.escape_decode(quoted.encode("utf-8"))[0].decode("utf-8")
            except (UnicodeDecodeError, ValueError):
                raise ValueError(f"{where}:{number}: field '{name}' is not a valid string") from None
        else:
            value = float(number_text)
        if kind is list:
            getattr(state, name).append(value)
        else:
            setattr(state, name, value)
    return state


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The :class:`CheckpointState` of the ``checkpoint`` file (or ``latest_filename``) in ``checkpoint_dir``,
    as ``tf.train.get_checkpoint_state``: relative paths joined to ``checkpoint_dir``; None when there is no
    such file. A folder that only descend's own :class:`~descend.train.CheckpointManager` index names
    checkpoints in gives a state naming its newest checkpoint.

    Raises:
        ValueError: the file is not a CheckpointState, or names no ``model_checkpoint_path``
            ("Invalid checkpoint state", as TF).
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    name = "checkpoint" if latest_filename is None else os.fspath(latest_filename)
    path = os.path.join(checkpoint_dir, name)
    if not os.path.isfile(path):
        if latest_filename is None and os.path.isdir(checkpoint_dir):
            newest = latest_checkpoint(checkpoint_dir)  # descend's checkpoint.json index
            if newest is not None:
                return CheckpointState(newest, [newest])
        return None
    if os.path.getsize(path) > _MAX_BYTES:
        raise ValueError(f"{path}: has {os.path.getsize(path)} bytes; a checkpoint state file names a few paths "
                         f"(at most {_MAX_BYTES} bytes are read)")
    with open(path, "rb") as f:
        text = f.read(_MAX_BYTES).decode("utf-8", "replace")
    state = _parse(text, path)
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}: {path} names no "
                         "model_checkpoint_path")
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
                                        for p in state.all_model_checkpoint_paths]
    return state
