"""Flatten and rebuild nested lists, tuples, namedtuples and dicts: descend's one ``nest``.

A dict's leaves come in the order of its sorted keys, as TF's ``tf.nest`` (keys that do not sort, such as
``1`` and ``"a"`` together, raise ``TypeError`` as TF's do); a rebuilt dict keeps the original's key order.
Everything that is not a list, tuple or dict is one leaf (an ``IndexedSlices``, an array, ``None``).
"""

from __future__ import annotations

import functools
import itertools

__all__ = ["flatten", "flatten_leaves", "flatten_with_paths", "leaf_paths", "map_structure", "pack_like",
           "structure_of"]


def _sorted_keys(d) -> list:
    """``d``'s keys in TF's order (sorted)."""
    try:
        return sorted(d)
    except TypeError:
        raise TypeError(f"nest only supports dicts with sortable keys: a dict's keys must sort (TF orders a "
                        f"dict's leaves by sorted key). Received keys: {list(d)[:10]!r}") from None


def flatten(structure) -> list:
    if isinstance(structure, dict):
        return [leaf for k in _sorted_keys(structure) for leaf in flatten(structure[k])]
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
        return [p for k in _sorted_keys(structure) for p in flatten_with_paths(structure[k], f"{prefix}[{k!r}]")]
    if isinstance(structure, (list, tuple)):
        return [p for i, v in enumerate(structure) for p in flatten_with_paths(v, f"{prefix}[{i}]")]
    return [(prefix, structure)]


def leaf_paths(structure) -> list:
    """The path of each leaf (a tuple of dict keys and sequence indices), in :func:`flatten` order."""
    out: list = []
    _paths(structure, (), out)
    return out


def _paths(s, prefix, out):
    if isinstance(s, dict):
        for k in _sorted_keys(s):
            _paths(s[k], prefix + (k,), out)
    elif isinstance(s, (list, tuple)):
        for i, x in enumerate(s):
            _paths(x, prefix + (i,), out)
    else:
        out.append(prefix)


def pack_like(structure, flat: list):
    """Rebuild ``structure``'s shape with the leaves of ``flat`` in order."""
    # a module-level helper, not a recursive closure: a closure that calls itself is a reference cycle
    # (function -> cell -> function) holding the iterator and so every leaf (a step's gradients) until
    # the garbage collector runs
    return _build(structure, iter(flat))


def flatten_leaves(structure):
    """``(leaves, rebuild)``: :func:`flatten`'s leaves and ``rebuild(new_leaves)``, which gives ``structure``'s
    shape with new leaves. ``rebuild`` holds the shape alone (its leaves are ``None``), not the old leaves."""
    skeleton = _build(structure, itertools.repeat(None))
    return flatten(structure), functools.partial(pack_like, skeleton)


def structure_of(s):
    """A hashable description of ``s``'s nesting (types and dict keys), without its leaves."""
    if isinstance(s, dict):
        keys = _sorted_keys(s)
        return (type(s), tuple(keys), tuple(structure_of(s[k]) for k in keys))
    if isinstance(s, (list, tuple)):
        return (type(s), len(s), tuple(structure_of(x) for x in s))
    return None


def _build(s, it):
    if isinstance(s, dict):
        out = {k: _build(s[k], it) for k in _sorted_keys(s)}
        return type(s)((k, out[k]) for k in s) if type(s) is not dict else {k: out[k] for k in s}
    if isinstance(s, (list, tuple)):
        items = [_build(x, it) for x in s]
        if isinstance(s, tuple) and hasattr(s, "_fields"):
            return type(s)(*items)
        return type(s)(items)
    return next(it)
