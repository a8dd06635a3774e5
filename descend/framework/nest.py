"""Flatten and rebuild nested lists, tuples and dicts (dict keys in sorted order, as TF)."""

from __future__ import annotations

__all__ = ["flatten", "flatten_with_paths", "leaf_paths", "map_structure", "pack_like", "structure_of"]


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


def pack_like(structure, flat: list):
    """Rebuild ``structure``'s shape with the leaves of ``flat`` in order."""
    # a module-level helper, not a recursive closure: a closure that calls itself is a reference cycle
    # (function -> cell -> function) holding the iterator and so every leaf (a step's gradients) until
    # the garbage collector runs
    return _build(structure, iter(flat))


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


def structure_of(structure):
    """A hashable description of ``structure``'s nesting without its leaves: the types of its lists, tuples
    (namedtuples) and dicts, their lengths and keys (in :func:`flatten` order); ``None`` for a leaf. Two
    structures with equal descriptions flatten to as many leaves in the same places."""
    if isinstance(structure, dict):
        keys = _sorted_keys(structure)
        return (type(structure), tuple(keys), tuple(structure_of(structure[k]) for k in keys))
    if isinstance(structure, (list, tuple)):
        return (type(structure), len(structure), tuple(structure_of(x) for x in structure))
    return None


def leaf_paths(structure) -> list:
    """The path of each leaf in :func:`flatten` order: a tuple of the dict keys and sequence indices leading
    to it (``[("a",), ("b", 0)]`` for ``{"b": [x], "a": y}``)."""
    if isinstance(structure, dict):
        return [(k,) + p for k in _sorted_keys(structure) for p in leaf_paths(structure[k])]
    if isinstance(structure, (list, tuple)):
        return [(i,) + p for i, x in enumerate(structure) for p in leaf_paths(x)]
    return [()]


def _sorted_keys(d) -> list:
    """``d``'s keys in TF's order (sorted); TF's ``TypeError`` where they do not sort (``1`` and ``"a"``, say)."""
    try:
        return sorted(d)
    except TypeError:
        raise TypeError(f"nest only supports dicts with sortable keys (their order is the sorted one, as in "
                        f"TensorFlow). Received keys: {list(d)!r}") from None
