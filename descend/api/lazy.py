"""Package facades whose names load on first use (PEP 562): ``import descend.layers`` costs the package's
base alone, and ``descend.layers.Conv3D`` (or ``from descend.layers import Conv3D``) imports the submodule that
defines ``Conv3D`` when it is first asked for.

A facade declares which submodule defines which of its public names, in a literal dict named ``_LAZY``
(``tests/test_layering.py`` reads it as the facade's imports), and installs the module functions this module
makes::

    _LAZY = {"core": ("Dense", "Dropout"), "pooling": ("MaxPooling2D",)}
    __getattr__, __dir__, _LAZY_NAMES = lazy_facade(__name__, _LAZY, aliases={"MaxPool2D": "MaxPooling2D"})
    __all__ = ["Layer", *_LAZY_NAMES]

A name is looked up each time it is asked for (the import system keeps the submodule; nothing is bound in
the package, so that importing one module never rebinds another's names). Any submodule of the package is
an attribute too, as if the package had imported it. This module imports nothing of descend.

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

__all__ = ["lazy_facade"]


def lazy_facade(package: str, submodules: dict, *, aliases: dict | None = None, missing=None):
    """The ``__getattr__`` and ``__dir__`` of the facade ``package``, and its lazily loaded names in order.

    Args:
        package: the facade's ``__name__``.
        submodules: submodule of ``package`` (``"core"``), or a module relative to it (``"..persistence.x"``)
            -> the names it defines that the facade exports.
        aliases: other names of exported objects (``{"MaxPool2D": "MaxPooling2D"}``), listed after them.
        missing: ``missing(name)`` returns the exception for a name that is neither exported nor a
            submodule (default: the ordinary ``AttributeError``).

    Returns:
        ``(__getattr__, __dir__, names)``: ``names`` is every exported name, submodule by submodule, then the
        aliases.
    """
    aliases = dict(aliases or {})
    where = {}
    for module, names in submodules.items():
        for name in names:
            if name in where:
                raise ValueError(f"{package}: {name!r} is exported from both .{where[name]} and .{module}")
            where[name] = module
    for alias, target in aliases.items():
        if target not in where or alias in where:
            raise ValueError(f"{package}: the alias {alias!r} must name an exported name, not already exported. "
                             f"Received: {alias!r} -> {target!r}")
    names = [*where, *aliases]

    def __getattr__(name: str):
        module = where.get(aliases.get(name, name))
        if module is not None:
            return getattr(importlib.import_module(module if module.startswith(".") else f".{module}", package),
                           aliases.get(name, name))
        if name.isidentifier() and not name.startswith("__") and importlib.util.find_spec(f"{package}.{name}"):
            return importlib.import_module(f"{package}.{name}")  # the import binds the package's attribute too
        if missing is not None:
            raise missing(name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        import sys

        module = sys.modules[package]
        return sorted(set(vars(module)) | set(names) | set(getattr(module, "__all__", ())))

    return __getattr__, __dir__, names
