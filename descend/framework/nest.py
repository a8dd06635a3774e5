"""Flatten and rebuild nested lists, tuples and dicts (dict keys in sorted order, as TF)."""

from __future__ import annotations

__all__ = ["flatten", "flatten_with_paths", "map_structure", "pack_like"]


def flatten(structure) -> list:
    if isinstance(structure, dict):
        return [leaf for k in sorted(structure) for leaf in flatten(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [leaf for item in structure for leaf in flatten(item)]
    return [structure]


def map_structure(fn, structure, is_leaf=None):
    """``structure`` with ``fn`` applied to every leaf, keeping tuples, namedtuples, lists and dicts (dict
    order kept). ``is_leaf(value)`` makes a list or tuple one leaf (a list of numbers that is one array)."""
    if is_leaf is not None and is_leaf(structure):
        return fn(structure)
    if isinstance(structure, dict):
        return {k: map_structure(fn, v, is_leaf) for k, v in structure.items()}
    if isinstance(structure, tuple):
        items = [map_structure(fn, v, is_leaf) for v in structure]
        return type(structure)(*items) if hasattr(structure, "_fields") else tuple(items)
    if isinstance(structure, list):
        return [map_structure(fn, v, is_leaf) for v in structure]
    return fn(structure)


def flatten_with_paths(structure, prefix: str = "") -> list:
    """``(path, leaf)`` pairs in :func:`flatten` order; a path reads like an index into the structure
    (``[0]['x']``), for error messages."""
    if isinstance(structure, dict):
        return [p for k in sorted(structure) for p in flatten_with_paths(structure[k], f"{prefix}[{k!r}]")]
    if isinstance(structure, (list, tuple)):
        return [p for i, v in enumerate(structure) for p in flatten_with_paths(v, f"{prefix}[{i}]")]
    return [(prefix, structure)]


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
