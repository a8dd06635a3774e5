"""Facades whose names load on first use (PEP 562), the one way descend defers an import of a public name:
``import descend`` costs the core alone, ``import descend.layers`` the package's base alone, and
``descend.layers.Conv3D`` (or ``from descend.layers import Conv3D``) imports the module that defines ``Conv3D``
when it is first asked for.

A facade (the root package, a package such as ``descend.layers``, or a module such as ``descend.nn``) declares
which module defines which of its public names, in a literal dict named ``_LAZY`` (``tests/test_layering.py``
reads it as the facade's imports), and installs the module functions this module makes::

    _LAZY = {"core": ("Dense", "Dropout"), "pooling": ("MaxPooling2D",)}
    __getattr__, __dir__, _LAZY_NAMES = lazy_facade(__name__, _LAZY, aliases={"MaxPool2D": "MaxPooling2D"})
    __all__ = ["Layer", *_LAZY_NAMES]

A name is looked up each time it is asked for (the import system keeps the module), unless the facade asks for
``cache=True``: the root binds each value it loads, so that ``ds.constant`` in a hot loop stays a plain attribute
read. Any submodule of a package is an attribute too, as if the package had imported it (or only those it names).
This module imports nothing of descend.

Example:
    >>> import sys, descend.layers as layers
    >>> layers.Conv3D.__module__
    'descend.layers.conv3d'
    >>> "Conv3D" in dir(layers) and "Conv3D" in layers.__all__
    True
"""

from __future__ import annotations

import importlib
import importlib.util
import sys

__all__ = ["lazy_facade"]


def lazy_facade(facade: str, table: dict, *, aliases: dict | None = None, missing=None, submodules=None,
                cache: bool = False):
    """The ``__getattr__`` and ``__dir__`` of the module ``facade``, and its lazily loaded names in order.

    Args:
        facade: the facade's ``__name__`` (a package, or a module: call this while it is being imported).
        table: a module relative to the facade's package (``"core"`` is ``.core``, ``"..persistence.x"``; for a
            module facade, its package is its folder) -> the names it defines that the facade exports: a name,
            or ``(name, attribute)`` where the module calls it otherwise (``("constant_initializer",
            "Constant")``).
        aliases: other names of exported names (``{"MaxPool2D": "MaxPooling2D"}``), listed after them.
        missing: ``missing(name)`` returns the exception for a name that is neither exported nor a
            submodule (default: the ordinary ``AttributeError``).
        submodules: the submodules of a package facade that are its attributes (default: every one).
        cache: bind each loaded name in the facade, so that later look-ups do not call ``__getattr__``.

    Returns:
        ``(__getattr__, __dir__, names)``: ``names`` is every exported name, module by module, then the aliases.
    """
    aliases = dict(aliases or {})
    module = sys.modules.get(facade) or importlib.import_module(facade)  # (being imported: in sys.modules)
    anchor = facade if hasattr(module, "__path__") else facade.rpartition(".")[0]
    where = {}  # exported name -> (module, attribute)
    for source, names in table.items():
        for entry in names:
            name, attribute = (entry, entry) if isinstance(entry, str) else entry
            relative = source if source.startswith(".") else f".{source}"
            if name in where:
                raise ValueError(f"{facade}: {name!r} is exported from both {where[name][0]} and {relative}")
            where[name] = (relative, attribute)
    for alias, target in aliases.items():
        if target not in where or alias in where:
            raise ValueError(f"{facade}: the alias {alias!r} must name an exported name, not already exported. "
                             f"Received: {alias!r} -> {target!r}")
        where[alias] = where[target]
    names = list(where)
    if not hasattr(module, "__path__"):
        submodules = ()  # a module has no submodules

    def __getattr__(name: str):
        found = where.get(name)
        if found is not None:
            value = getattr(importlib.import_module(found[0], anchor), found[1])
            if cache:
                setattr(module, name, value)
            return value
        if (name in submodules if submodules is not None else name.isidentifier() and not name.startswith("__")
                and importlib.util.find_spec(f"{facade}.{name}")):
            return importlib.import_module(f"{facade}.{name}")  # the import binds the package's attribute too
        if missing is not None:
            raise missing(name)
        raise AttributeError(f"module {facade!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(module)) | set(names) | set(getattr(module, "__all__", ())))

    return __getattr__, __dir__, names
