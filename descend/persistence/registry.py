"""descend's built-in objects by kind and name: the one table every name-to-object look-up reads.

A config's ``class_name`` (``"Dense"``), a ``get`` identifier (``losses.get("mse")``) and a Lambda layer's
function name all resolve through :func:`builtin_objects` (after the program's own objects: see
:mod:`descend.persistence.object_config`). The table is filled by the modules that define the objects,
never by this module importing them:

* a module registers its built-ins when it is imported, with :func:`register_builtins`::

      register_builtins("losses", ALL_OBJECTS_DICT)             # a dict: name -> class or function
      register_builtins("layers", public_names(__name__, keep))  # or a provider, read at the first look-up

  A provider (a function without arguments returning such a dict) lets a package register itself on its
  first lines, before its names are imported; :func:`public_names` makes one from a module's ``__all__``.
  Several modules may register into one kind (``layers``: the layers package, the models, the
  distribution package's sharded embedding); a name registered twice keeps the later object.
* a module reads a kind with :func:`builtin_objects` (``get`` functions through
  :func:`~descend.persistence.object_config.get_object`).

descend loads its namespaces on first use, so a kind's modules may not be imported yet when a name of it
is looked up: the package that loads them lazily registers, with :func:`register_loader`, a function
importing them, called before the kind's first look-up (``descend/__init__.py`` registers one per kind).
This module imports nothing of descend.

Example:
    >>> import descend as ds
    >>> from descend.persistence.registry import builtin_objects
    >>> builtin_objects("layers")["Dense"] is ds.layers.Dense, builtin_objects("losses")["mse"] is ds.losses.mean_squared_error
    (True, True)
"""

from __future__ import annotations

import sys
import threading

__all__ = ["KINDS", "builtin_objects", "public_names", "register_builtins", "register_loader"]

#: the kinds of objects a config holds, in the order an unhinted name is looked up (``metric_functions``: the
#: functions a metric's ``fn`` may name beside the losses', as ``accuracy``, whose name is also a metric class's)
KINDS = ("layers", "activations", "initializers", "regularizers", "constraints", "losses", "metrics", "optimizers",
         "dtype_policies", "random", "metric_functions")

_sources: dict[str, list] = {kind: [] for kind in KINDS}  # kind -> the dicts and providers registered, in order
_tables: dict[str, dict] = {}  # kind -> the merged table (dropped when a kind gets a new registration)
_loaders: dict[str, list] = {kind: [] for kind in KINDS}  # kind -> functions importing its modules, not called yet
_lock = threading.Lock()


def _check_kind(kind) -> None:
    if kind not in _sources:
        raise ValueError(f"Unknown kind of object {kind!r}; expected one of {KINDS}")


def register_builtins(kind: str, objects) -> None:
    """Register descend's built-in objects of ``kind`` (one of :data:`KINDS`): ``objects`` is a dict (name ->
    class or function) or a function without arguments returning one, called at the first look-up."""
    _check_kind(kind)
    if not (isinstance(objects, dict) or callable(objects)):
        raise TypeError(f"register_builtins({kind!r}, ...) expects a dict or a function returning one. "
                        f"Received: {type(objects).__name__}")
    with _lock:
        _sources[kind].append(objects)
        _tables.pop(kind, None)


def register_loader(kind: str, load) -> None:
    """Have ``load()`` (a function importing the modules that register built-ins of ``kind``) called once,
    before the first look-up of ``kind``."""
    _check_kind(kind)
    with _lock:
        _loaders[kind].append(load)
        _tables.pop(kind, None)


def builtin_objects(kind: str) -> dict:
    """Name -> descend's built-in class or function of ``kind`` (one of :data:`KINDS`); the dict is the
    registry's own: read it, never change it."""
    table = _tables.get(kind)
    if table is not None:
        return table
    _check_kind(kind)
    with _lock:
        loaders, _loaders[kind] = _loaders[kind], []
    for load in loaders:  # each is called once; an import it makes may register (or look up) meanwhile
        load()
    with _lock:
        sources = list(_sources[kind])
    table = {}
    for source in sources:
        table.update(source if isinstance(source, dict) else source())
    with _lock:
        if _sources[kind] == sources:  # no registration meanwhile: the table is whole
            _tables[kind] = table
    return table


def public_names(module_name: str, keep=None):
    """A provider for :func:`register_builtins`: the public names (``__all__``) of the module ``module_name``
    whose object ``keep`` accepts (every one without ``keep``), read when the kind is first looked up."""
    def provide() -> dict:
        module = sys.modules[module_name]
        found = {name: getattr(module, name) for name in module.__all__ if hasattr(module, name)}
        return {name: obj for name, obj in found.items() if keep is None or keep(obj)}
    return provide
