"""``CheckpointManager``: numbered checkpoints in a directory (``tf.train.CheckpointManager``).

The directory holds ``<name>-<N>`` checkpoints, the index ``checkpoint.json``
(its format and the kept checkpoints, oldest first) and ``.manager`` (a random
token its checkpoints carry in their manifests). A manager that saves holds
an advisory lock on the directory (``.lock``): a second writer gets a
:class:`CheckpointLockedError` instead of silently deleting the first one's
temporary folders. Rotation deletes only directories this manager wrote: a
real directory (not a link) named ``<name>-<N>`` whose manifest carries the
directory's token (``.manager``); an index edited to list anything else deletes nothing. A
read-only directory can still be opened and restored from.

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> import descend.train as train
    >>> w = ds.Variable([1.0], name="w")
    >>> directory = tempfile.mkdtemp()
    >>> manager = train.CheckpointManager(train.Checkpoint(w=w), directory, max_to_keep=2)
    >>> paths = [manager.save() for _ in range(3)]
    >>> [p.rsplit("/", 1)[-1] for p in manager.checkpoints]
    ['ckpt-2', 'ckpt-3']
    >>> train.latest_checkpoint(directory) == paths[-1]
    True
"""

from __future__ import annotations

import codecs
import json
import os
import re
import secrets
import time

from ..bounded_read import open_regular
from ..checkpoint_errors import CheckpointCorruptedError, CheckpointError, CheckpointLockedError, short
from ..durable import TMP_PREFIX, atomic_replace_file, remove_tree
from ..formats import tf_bundle
from . import collective
from .checkpoint import Checkpoint
from .descend_format import (
    INDEX_FILE,
    INDEX_FORMAT,
    MANAGER_FILE,
    MANIFEST_FILE,
    SCHEMA_VERSION,
    DirectoryLock,
    cleanup_tmp,
    is_checkpoint_dir,
    read_json_file,
)
from .tf_writer import TF_STATE_FILE  # the file in which TensorFlow names its newest checkpoint
from .trackable import KEY_RE

__all__ = ["CheckpointManager", "latest_checkpoint", "checkpoint_path_of"]

_NAME_RE = re.compile(r"^[A-Za-z0-9_\-][A-Za-z0-9_.\-]*-\d+$")


def _read_token(directory: str) -> str | None:
    """The directory's manager token (``.manager``), or None."""
    try:
        f, size = open_regular(directory, MANAGER_FILE, "manager token")
    except (FileNotFoundError, CheckpointError):
        return None
    with f:
        token = f.read(64).decode("ascii", "replace").strip()
    return token if re.fullmatch(r"[0-9a-f]{32}", token) else None


def _read_index(directory: str) -> tuple[list[dict], str | None]:
    """The index's entries (plain names of existing-looking checkpoints only) and the directory's token."""
    ipath = os.path.join(directory, INDEX_FILE)
    try:
        index = read_json_file(directory, INDEX_FILE, "checkpoint index", limit=16 * 2**20)
    except FileNotFoundError:
        return [], _read_token(directory)
    except CheckpointCorruptedError as e:
        raise CheckpointCorruptedError(f"{e}; delete {ipath} to start a new index (the checkpoint directories are "
                                       "untouched)", [INDEX_FILE]) from None
    if not isinstance(index, dict) or index.get("format") != INDEX_FORMAT:
        raise CheckpointCorruptedError(f"{ipath}: field 'format' is not {INDEX_FORMAT!r}; delete the file to start "
                                       "a new index", ["format"])
    entries = index.get("checkpoints")
    if not isinstance(entries, list) or not all(isinstance(e, dict) and isinstance(e.get("name"), str)
                                                for e in entries):
        raise CheckpointCorruptedError(f"{ipath}: field 'checkpoints' must be a list of objects with a string "
                                       f"'name'; found {short(entries)}", ["checkpoints"])
    return [{"name": e["name"], "time": e.get("time")} for e in entries if _NAME_RE.match(e["name"])], \
        _read_token(directory)


def latest_checkpoint(directory) -> str | None:
    """The path of the newest checkpoint a :class:`CheckpointManager` recorded in ``directory`` (descend's
    index ``checkpoint.json``, or the ``checkpoint`` file TensorFlow's managers and savers keep), or None."""
    directory = os.fspath(directory)
    entries, _ = _read_index(directory)
    if not entries and os.path.lexists(os.path.join(directory, TF_STATE_FILE)):
        return _tf_latest(directory)
    for entry in reversed(entries):
        path = os.path.join(directory, entry["name"])
        if is_checkpoint_dir(path):
            return path
        aside = _moved_aside(directory, entry["name"])  # a replace killed between its two renames
        if aside is not None:
            return aside
    return None


def checkpoint_path_of(path) -> str:
    """``path`` itself when it is a checkpoint (descend's folder or TensorFlow's prefix), else, for a folder
    a manager or ``Checkpoint.save`` wrote into, its newest checkpoint (as ``tf.train.load_checkpoint``)."""
    path = os.fspath(path)
    if os.path.isdir(path) and not is_checkpoint_dir(path) and not tf_bundle.is_bundle(path):
        found = latest_checkpoint(path)
        if found is None:
            raise CheckpointError(f"'{path}' is a folder with no checkpoint recorded in it (no checkpoint.json or "
                                  "TensorFlow 'checkpoint' file naming one)")
        return found
    return path


_TF_PATH_RE = re.compile(r'^\s*model_checkpoint_path\s*:\s*"((?:[^"\\]|\\.)*)"\s*$')


def _tf_latest(directory: str) -> str | None:
    """The ``model_checkpoint_path`` of TensorFlow's ``checkpoint`` file (CheckpointState as text), if its
    files exist (TensorFlow's ``.index``, or descend's checkpoint folder that ``Checkpoint.save`` names there
    too); a relative path is relative to ``directory``."""
    try:
        f, size = open_regular(directory, TF_STATE_FILE, "TensorFlow checkpoint state")
    except (FileNotFoundError, CheckpointError):
        return None
    with f:
        if size > 1 << 20:
            raise CheckpointCorruptedError(f"{os.path.join(directory, TF_STATE_FILE)}: has {size} bytes; a checkpoint "
                                           "state file holds a few paths (at most 1 MiB is read)", [TF_STATE_FILE])
        text = f.read(size).decode("utf-8", "replace")
    for line in text.splitlines():
        m = _TF_PATH_RE.match(line)
        if m:
            try:  # the string's bytes (raw UTF-8 or escapes: octal, as TensorFlow writes them, \xhh, \n, \", \\)
                path = codecs.escape_decode(m.group(1).encode("utf-8"))[0].decode("utf-8")
            except (UnicodeDecodeError, ValueError):
                raise CheckpointCorruptedError(f"{os.path.join(directory, TF_STATE_FILE)}: field "
                                               "'model_checkpoint_path' is not a valid path", [TF_STATE_FILE]) from None
            path = path if os.path.isabs(path) else os.path.join(directory, path)
            return path if os.path.isfile(path + ".index") or is_checkpoint_dir(path) else None
    return None


def _moved_aside(directory: str, name: str) -> str | None:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return None
    for n in names:
        if re.fullmatch(rf"{re.escape(TMP_PREFIX)}old-{re.escape(name)}-[0-9a-f]{{12}}", n):
            full = os.path.join(directory, n)
            if is_checkpoint_dir(full):
                return full
    return None


def _written_by(path: str, token: str | None) -> bool:
    """Whether ``path`` is a checkpoint directory a manager of this directory wrote (its token)."""
    if token is None or not is_checkpoint_dir(path):
        return False
    try:
        manifest = read_json_file(path, MANIFEST_FILE, "manifest")
    except (CheckpointError, OSError):
        return False
    return isinstance(manifest, dict) and manifest.get("manager_token") == token


class CheckpointManager:
    """Numbered checkpoints in a directory; keeps the newest ``max_to_keep`` (``tf.train.CheckpointManager``).

    Args:
        checkpoint: the :class:`Checkpoint` to save.
        directory: where checkpoints ``<checkpoint_name>-<N>`` and the index ``checkpoint.json`` live.
        max_to_keep: how many to keep (None keeps all); older ones are deleted
            only after the new checkpoint and the index are durable.
        checkpoint_name: the prefix of each checkpoint's name.

    The first :meth:`save` takes the directory's lock (released by :meth:`close`
    or when the process ends) and removes what interrupted saves left (``.tmp-*``).
    """

    def __init__(self, checkpoint: Checkpoint, directory, max_to_keep: int | None = 5, *,
                 checkpoint_name: str = "ckpt"):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager expects a descend.train.Checkpoint. Received "
                            f"{type(checkpoint).__name__}")
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or not isinstance(max_to_keep, int)
                                        or max_to_keep < 1):
            raise ValueError(f"`max_to_keep` must be a positive integer or None. Received: max_to_keep={max_to_keep!r}")
        if (not isinstance(checkpoint_name, str) or not KEY_RE.match(checkpoint_name) or checkpoint_name[0] == "."
                or ":" in checkpoint_name):
            raise ValueError(f"`checkpoint_name` must be letters, digits and _.- not starting with '.'. "
                             f"Received: {checkpoint_name!r}")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._name = checkpoint_name
        self._lock = DirectoryLock(self._directory)
        if not os.path.isdir(self._directory):
            os.makedirs(self._directory, exist_ok=True)
        entries, self._token = _read_index(self._directory)
        self._entries = [e for e in entries if is_checkpoint_dir(os.path.join(self._directory, e["name"]))]
        # a writer takes the lock now and cleans what dead writes left; a directory another process
        # writes, or a read-only one, can still be read (save() then raises)
        try:
            self._take_lock()
        except CheckpointError:
            pass

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def max_to_keep(self) -> int | None:
        return self._max_to_keep

    @property
    def checkpoints(self) -> list[str]:
        """Paths of the kept checkpoints, oldest first."""
        return [os.path.join(self._directory, e["name"]) for e in self._entries]

    @property
    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint this manager keeps; before it has saved any, the newest TensorFlow checkpoint
        a TensorFlow manager or saver left in the directory (its ``checkpoint`` file), or None."""
        if self._entries:
            return os.path.join(self._directory, self._entries[-1]["name"])
        if os.path.lexists(os.path.join(self._directory, TF_STATE_FILE)):
            return _tf_latest(self._directory)
        return None

    def _last_number(self) -> int:
        pattern = re.compile(rf"^{re.escape(self._name)}-(\d+)$")
        numbers = [int(m.group(1)) for e in self._entries if (m := pattern.match(e["name"]))]
        return max(numbers, default=0)

    def _take_lock(self) -> None:
        if self._lock.held:
            return
        if self._lock.taken_over:
            raise CheckpointLockedError(f"checkpoint directory '{self._directory}' was taken over by a newer "
                                        "CheckpointManager in this process; this one no longer writes there")
        try:
            self._lock.acquire()
        except OSError:  # read-only directory (or file system)
            raise CheckpointError(f"checkpoint directory '{self._directory}' is not writable; it can be restored "
                                  "from but not saved to") from None
        cleanup_tmp(self._directory)  # nobody else writes here now: what a .tmp-* holds is a dead write's
        entries, token = _read_index(self._directory)
        self._entries = [e for e in entries if is_checkpoint_dir(os.path.join(self._directory, e["name"]))]
        if token is None:  # the first writer here: the token its checkpoints carry (an index rebuilt by a
            token = secrets.token_hex(16)  # tool keeps it: it lives in its own file)
            atomic_replace_file(os.path.join(self._directory, MANAGER_FILE), token.encode("ascii"))
        self._token = token

    def close(self) -> None:
        """Release the directory's lock (another process may write to it then) and remove its ``.lock``
        file: a closed manager leaves no lock file behind (a killed one's stays, unlocked)."""
        self._lock.release(remove=True)

    def save(self, checkpoint_number=None) -> str:
        """Write ``<checkpoint_name>-<N>`` and return its path.

        Collective when the checkpoint is (objects trained under a strategy of several replicas): every
        rank calls it; rank 0 names the checkpoint, keeps the index and rotates.

        Args:
            checkpoint_number: N (an int or an integer Variable, e.g. the
                optimizer's ``iterations``); default: one more than both the
                newest checkpoint's number and the checkpoint's save counter.
        """
        ckpt = self._checkpoint
        group = ckpt.collective_group()
        if group is not None:  # rank 0 keeps the directory (its lock, names, index, rotation): the others let go
            if group.rank != 0:
                self.close()
            collective.agree(group, f"CheckpointManager.save on {group.size} ranks", os.path.abspath(self._directory))
        if group is not None and group.rank != 0:
            number, counter, token, error = group.allgather_object(None)[0]
            if error is not None:
                raise CheckpointError(f"CheckpointManager.save on rank 0 failed: {error}")
            path = ckpt._write(os.path.join(self._directory, f"{self._name}-{number}"), counter,
                               {"manager_token": token})
            ckpt._save_counter = counter
            return path
        try:
            self._take_lock()
            if checkpoint_number is None:
                number = max(ckpt.save_counter + 1, self._last_number() + 1)
                counter = number
            else:
                number = int(checkpoint_number)
                if number < 0:
                    raise ValueError(f"checkpoint_number must be >= 0. Received: {number}")
                counter = ckpt.save_counter + 1
        except Exception as e:
            if group is not None:  # the other ranks wait for the name: they hear of the error instead
                group.allgather_object((None, None, None, f"{type(e).__name__}: {e}"))
            raise
        if group is not None:
            group.allgather_object((number, counter, self._token, None))
        name = f"{self._name}-{number}"
        path = ckpt._write(os.path.join(self._directory, name), counter, {"manager_token": self._token})
        ckpt._save_counter = counter
        entries = [e for e in self._entries if e["name"] != name] + [{"name": name, "time": time.time()}]
        drop = []
        if self._max_to_keep is not None and len(entries) > self._max_to_keep:
            drop, entries = entries[:-self._max_to_keep], entries[-self._max_to_keep:]
        index = {"format": INDEX_FORMAT, "schema_version": SCHEMA_VERSION, "latest": entries[-1]["name"],
                 "checkpoints": entries}
        atomic_replace_file(os.path.join(self._directory, INDEX_FILE), json.dumps(index, indent=1).encode("utf-8"))
        self._entries = entries
        for e in drop:  # durable index first; then delete only what this manager wrote
            full = os.path.join(self._directory, e["name"])
            if _written_by(full, self._token):
                remove_tree(full)
        return path

    def restore_or_initialize(self, *, strict: bool = True) -> str | None:
        """Restore the latest checkpoint if there is one; return its path (None: nothing to restore)."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest, strict=strict)
        return latest

    def __repr__(self):
        return f"<CheckpointManager '{self._directory}' checkpoints={[e['name'] for e in self._entries]}>"
