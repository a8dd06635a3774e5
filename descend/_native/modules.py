"""Generated kernel modules: written under :func:`cache_dir` with a name that hashes their text, imported
from there (so numba's ``cache=True`` keeps their compiled code beside them), one module per text and
process. The rule kernels (:mod:`descend._native.cpu`) and the compiler's fused loops
(:mod:`descend._native.loops`) both load theirs here.
"""

from __future__ import annotations

import hashlib
import importlib.util
import logging
import os
import sys
import threading
from pathlib import Path

from ..persistence.durable import atomic_replace_file

__all__ = ["cache_dir", "compiled_modules", "load", "lock"]

log = logging.getLogger("descend.fused")


def cache_dir() -> Path:
    """Where generated kernel modules (and numba's compiled code beside them) live:
    ``$DESCEND_CACHE_DIR``, else ``$XDG_CACHE_HOME/descend/kernels``, else
    ``~/.cache/descend/kernels``."""
    explicit = os.environ.get("DESCEND_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "descend" / "kernels"


_lock = threading.RLock()
_modules: dict = {}  # hash of the kernel text -> (kernel module, whether it has a file numba can cache beside)


def _after_fork_in_child():
    global _lock  # held by another thread of the parent at the fork: free in the child
    _lock = threading.RLock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def lock() -> threading.RLock:
    """The lock held while a kernel module is loaded or its dispatchers are made (reentrant)."""
    return _lock


def load(source: str, name: str, version: int):
    """Import the kernel module ``source`` from the cache directory (so numba can cache beside
    it); ``(module, has_file)``. One module per text (and generator ``version``) and process."""
    import numba

    key = hashlib.sha256(
        f"{source}\n#{version} numba {numba.__version__} {sys.version}".encode()).hexdigest()[:24]
    with _lock:
        hit = _modules.get(key)
        if hit is not None:
            return hit
        modname = f"descend_kernel_{name}_{key}"
        try:
            d = cache_dir()
            d.mkdir(parents=True, exist_ok=True)
            path = d / f"{modname}.py"
            if not path.exists() or path.read_text() != source:  # never rewrite a good file: numba keys on its stamp
                atomic_replace_file(path, source.encode())
            spec = importlib.util.spec_from_file_location(modname, path)
            mod = importlib.util.module_from_spec(spec)
            sys.modules[modname] = mod
            spec.loader.exec_module(mod)
            hit = (mod, True)
        except OSError as e:
            log.debug("cannot write kernel cache %s (%s): compiling without a disk cache", cache_dir(), e)
            sys.modules.pop(modname, None)
            mod = type(sys)(modname)
            exec(compile(source, f"<{modname}>", "exec"), mod.__dict__)
            hit = (mod, False)
        mod._dispatchers = {}
        _modules[key] = hit
        return hit


def compiled_modules() -> int:
    """How many kernel modules this process has loaded (each compiles at most four kernels)."""
    return len(_modules)
