"""Flattening the nested arguments and results of a traced function.

Lists, tuples, namedtuples and dicts (keys in sorted order, as TF) nest; an
``IndexedSlices`` is one leaf; everything else is a leaf.
"""

from __future__ import annotations

__all__ = ["flatten_leaves", "leaf_paths", "structure_of"]


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def flatten_leaves(structure):
    """``(leaves, rebuild)``: the leaves in order and ``rebuild(new_leaves)`` giving the same structure."""
    leaves: list = []
    shape = _shape(structure, leaves)
    return leaves, lambda new: _build(shape, iter(new))


def _shape(s, leaves):
    if isinstance(s, dict):
        keys = sorted(s, key=_key_order)
        return ("dict", type(s), tuple(keys), tuple(_shape(s[k], leaves) for k in keys), tuple(s))
    if _is_namedtuple(s):
        return ("namedtuple", type(s), None, tuple(_shape(x, leaves) for x in s), None)
    if isinstance(s, (list, tuple)):
        return ("seq", type(s), None, tuple(_shape(x, leaves) for x in s), None)
    leaves.append(s)
    return None


def _key_order(k):
    return (type(k).__name__, k) if not isinstance(k, str) else ("", k)


def _build(shape, it):
    if shape is None:
        return next(it)
    kind, typ, keys, items, order = shape
    if kind == "dict":
        values = {k: _build(x, it) for k, x in zip(keys, items)}
        ordered = [(k, values[k]) for k in order]
        return dict(ordered) if typ is dict else typ(ordered)
    built = [_build(x, it) for x in items]
    if kind == "namedtuple":
        return typ(*built)
    return typ(built) if typ in (list, tuple) else typ(built)


def structure_of(s):
    """A hashable description of ``s``'s nesting (types and dict keys), without its leaves."""
    if isinstance(s, dict):
        keys = sorted(s, key=_key_order)
        return (type(s), tuple(keys), tuple(structure_of(s[k]) for k in keys))
    if isinstance(s, (list, tuple)):
        return (type(s), len(s), tuple(structure_of(x) for x in s))
    return None


def leaf_paths(structure) -> list:
    """The path of each leaf (a tuple of dict keys and sequence indices), in :func:`flatten_leaves` order."""
    out: list = []
    _paths(structure, (), out)
    return out


def _paths(s, prefix, out):
    if isinstance(s, dict):
        for k in sorted(s, key=_key_order):
            _paths(s[k], prefix + (k,), out)
    elif isinstance(s, (list, tuple)):
        for i, x in enumerate(s):
            _paths(x, prefix + (i,), out)
    else:
        out.append(prefix)
