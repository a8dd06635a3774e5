"""What Keras 3's saving hooks of a layer are given by :mod:`descend.persistence.keras_files`: the store of
``save_own_variables`` / ``load_own_variables`` (one group of the weights file), and the folder of
``save_assets`` / ``load_assets`` (one folder under the ``.keras`` archive's ``assets/``).

An archive's ``assets/`` members are untrusted: they are copied into a fresh temporary folder before any
``load_assets`` runs, each a regular file written where its checked name says (the archive reader has
already refused absolute and climbing names, backslashes and symbolic links), never following a link, their
declared sizes bounded together (:data:`MAX_ASSETS_BYTES`) and each against its compressed size before a byte
is inflated. A folder ``save_assets`` fills may hold regular files and folders only.

Example:
    >>> import numpy as np
    >>> from descend.persistence import keras_hooks
    >>> store = keras_hooks.SaveStore("layers/dense/vars", "model.save")
    >>> store["0"] = np.ones(2, np.float32)
    >>> sorted(keras_hooks.LoadStore("layers/dense/vars", store.values(), "m.keras").keys())
    ['0']
"""

from __future__ import annotations

import os
from collections.abc import Mapping, MutableMapping

import numpy as np

from .checkpoint_errors import CheckpointCorruptedError, CheckpointError, short

__all__ = ["SaveStore", "LoadStore", "ASSETS", "MAX_ASSETS_BYTES", "MAX_ASSETS_RATIO", "asset_folder",
           "collect_assets", "extract_assets", "load_error"]

#: the archive's folder of assets
ASSETS = "assets"
#: the most bytes an archive's assets may declare together (refused before any is inflated)
MAX_ASSETS_BYTES = 4 * 2**30
#: a compressed asset inflates to at most this many times its compressed size (Keras stores them uncompressed)
MAX_ASSETS_RATIO = 16
_MAX_NAME = 1024
_MAX_DEPTH = 64


def _array(value, where: str) -> np.ndarray:
    if hasattr(value, "numpy") and not isinstance(value, np.ndarray):
        value = value.numpy()
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf" or arr.dtype.itemsize > 8:
        raise TypeError(f"{where}: a stored value must be an array of numbers (bool, integer or float); received "
                        f"dtype {arr.dtype}")
    return arr


class SaveStore(MutableMapping):
    """The store ``save_own_variables(store)`` fills: ``store[name] = array`` (a Variable, a tensor or a NumPy
    array of numbers); each becomes a dataset ``name`` of the group ``path`` of the weights file."""

    def __init__(self, path: str, where: str):
        self.path, self.where = path, where
        self._values: dict[str, np.ndarray] = {}

    def __setitem__(self, key, value) -> None:
        if not isinstance(key, str) or not key or "/" in key or key == "." or len(key) > _MAX_NAME:
            raise KeyError(f"{self.where}: the keys of the store of '{self.path}' are names without '/' (at most "
                           f"{_MAX_NAME} characters); received {short(key, 100)}")
        self._values[key] = _array(value, f"{self.where}: '{self.path}/{key}'")

    def __getitem__(self, key) -> np.ndarray:
        return self._values[key]

    def __delitem__(self, key) -> None:
        del self._values[key]

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def values(self) -> dict:
        """The stored arrays by name, in the order they were stored."""
        return dict(self._values)


class LoadStore(Mapping):
    """The store ``load_own_variables(store)`` reads: the datasets of the group ``path`` of the weights file, by
    name (read-only); a missing name is a ``KeyError`` naming the file, the group and the names it holds."""

    def __init__(self, path: str, arrays: dict, where: str):
        self.path, self.where = path, where
        self._values = dict(arrays)

    def __getitem__(self, key) -> np.ndarray:
        try:
            return self._values[key]
        except (KeyError, TypeError):
            raise KeyError(f"{self.where}: group '{self.path}' holds no {short(key, 100)} (it holds "
                           f"{short(list(self._values), 300)})") from None

    def __iter__(self):
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)


def asset_folder(root: str, path: str) -> str:
    """The folder of the layer at ``path`` (``layers/string_lookup``; ``""``: the model) under ``root``."""
    return os.path.join(root, ASSETS, *[p for p in path.split("/") if p])


def collect_assets(root: str, where: str) -> dict[str, bytes]:
    """The archive members (``assets/<path>`` -> bytes) of the files ``save_assets`` wrote under
    ``root/assets``, in a stable order; a symbolic link or other non-regular file there is refused."""
    out: dict[str, bytes] = {}
    top = os.path.join(root, ASSETS)
    if not os.path.isdir(top):
        return out
    for folder, dirs, files in os.walk(top, followlinks=False):
        dirs.sort()
        for name in sorted(dirs + files):
            full = os.path.join(folder, name)
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            if os.path.islink(full):
                raise ValueError(f"{where}: save_assets left a symbolic link at '{rel}'; the assets of a .keras "
                                 "file are regular files and folders")
            if name in files:
                if not os.path.isfile(full):
                    raise ValueError(f"{where}: save_assets left '{rel}', which is not a regular file")
                with open(full, "rb") as f:
                    out[rel] = f.read()
    return out


def _check_name(name: str, where: str) -> list[str]:
    parts = name.split("/")
    if name.endswith("/"):
        parts = parts[:-1]
    if (len(name) > _MAX_NAME or len(parts) > _MAX_DEPTH or parts[0] != ASSETS
            or any(p in ("", ".", "..") for p in parts)):
        raise CheckpointCorruptedError(f"{where}: member {short(name, 200)} is not a plain path under '{ASSETS}/' "
                                       f"(at most {_MAX_NAME} characters, {_MAX_DEPTH} levels, no empty, '.' or "
                                       "'..' part); refused, no asset was read", [name[:300]])
    return parts


def extract_assets(archive, where: str, root: str) -> bool:
    """Copy the archive's ``assets/`` members into ``root`` (an empty folder this process made): all names and
    declared sizes are checked first, then each file is written new (``O_EXCL | O_NOFOLLOW``) inside ``root``.
    Returns whether the archive holds assets."""
    names = [n for n in archive.names() if n == ASSETS or n.startswith(ASSETS + "/")]
    if not names:
        return False
    checked = [(n, _check_name(n, where)) for n in names]
    files = [(n, parts) for n, parts in checked if not n.endswith("/")]
    declared = sum(archive.declared_size(n) for n, _ in files)
    if declared > MAX_ASSETS_BYTES:
        raise CheckpointCorruptedError(f"{where}: its assets declare {declared} bytes; at most {MAX_ASSETS_BYTES} "
                                       "are read (refused before inflating them)", [ASSETS])
    real_root = os.path.realpath(root)
    for name, parts in checked:
        target = os.path.join(real_root, *parts)
        folder = target if name.endswith("/") else os.path.dirname(target)
        try:
            os.makedirs(folder, exist_ok=True)
        except OSError as e:
            raise CheckpointCorruptedError(f"{where}: member {short(name, 200)} cannot be placed ({short(str(e), 200)}:"
                                           " a file and a folder of one name?)", [name[:300]]) from None
        if os.path.realpath(folder) != os.path.normpath(folder) or \
                os.path.commonpath([real_root, os.path.realpath(folder)]) != real_root:
            raise CheckpointCorruptedError(f"{where}: member {short(name, 200)} leads outside the assets folder",
                                           [name[:300]])
        if name.endswith("/"):
            continue
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        except OSError as e:
            raise CheckpointCorruptedError(f"{where}: member {short(name, 200)} cannot be placed ({short(str(e), 200)}:"
                                           " a file and a folder of one name?)", [name[:300]]) from None
        with os.fdopen(fd, "wb") as f:
            for chunk in archive.chunks(name, MAX_ASSETS_BYTES, MAX_ASSETS_RATIO):
                f.write(chunk)
    return True


def load_error(where: str, layer, path: str, e: BaseException) -> CheckpointError:
    """The error of a layer's ``load_assets``, naming the file and the layer."""
    return CheckpointError(f"{where}: load_assets of layer '{layer.name}' ({path or 'the model'}) failed: "
                           f"{type(e).__name__}: {short(str(e), 1500)}")
