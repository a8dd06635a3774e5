"""Flatten and rebuild nested lists, tuples and dicts (dict keys in sorted order, as TF)."""

from __future__ import annotations

__all__ = ["flatten", "pack_like"]


def flatten(structure) -> list:
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def pack_like(structure, flat: list):
    """Rebuild ``structure``'s shape with the leaves of ``flat`` in order."""
    # a module-level helper, not a recursive closure: a closure that calls itself is a reference cycle
    # (function -> cell -> function) holding the iterator and so every leaf (a step's gradients) until
    # the garbage collector runs
    return _build(structure, iter(flat))


def _build(s, it):
    if isinstance(s, dict):
        out = {k: _build(s[k], it) for k in sorted(s)}
        return type(s)((k, out[k]) for k in s) if type(s) is not dict else {k: out[k] for k in s}
    if isinstance(s, (list, tuple)):
        items = [_build(x, it) for x in s]
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*items)
        return type(s)(items)
    return next(it)
