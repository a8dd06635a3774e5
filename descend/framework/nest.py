"""Flatten and rebuild nested lists, tuples, namedtuples and dicts: descend's one ``nest``.

A dict's leaves come in the order of its sorted keys, as TF's ``tf.nest`` (keys that do not sort, such as
``1`` and ``"a"`` together, raise ``TypeError`` as TF's do); a rebuilt dict keeps the original's key order.
Everything that is not a list, tuple or dict is one leaf (an ``IndexedSlices``, an array, ``None``).

``wide=True`` (:func:`flatten`, :func:`pack_like`, :func:`is_nested`, :func:`children`) takes TF's wider inputs
as ``tf.nest`` does: any ``collections.abc.Mapping`` nests as a dict (its values by sorted key), and a mapping
view (``d.keys()``, ``d.items()``) as a list in its own order, rebuilt as a list. ``descend.nest`` (tf.nest's
public functions, :mod:`descend.framework.tf_nest`) is this module with ``wide=True``.
"""

from __future__ import annotations

import collections
import collections.abc as _abc
import functools
import itertools

__all__ = ["children", "flatten", "flatten_leaves", "flatten_with_paths", "held", "is_nested", "leaf_paths",
           "map_structure", "pack_like", "structure_of"]


def _sorted_keys(d) -> list:
    """``d``'s keys in TF's order (sorted)."""
    try:
        return sorted(d)
    except TypeError:
        raise TypeError(f"nest only supports dicts with sortable keys: a dict's keys must sort (TF orders a "
                        f"dict's leaves by sorted key). Received keys: {list(d)[:10]!r}") from None


def is_nested(structure, wide: bool = False) -> bool:
    """Whether :func:`flatten` descends into ``structure`` (a list, tuple or dict; with ``wide``, any mapping or
    mapping view too)."""
    return isinstance(structure, (list, tuple, dict)) or wide and isinstance(structure, (_abc.Mapping,
                                                                                        _abc.MappingView))


def children(structure, wide: bool = False) -> list:
    """The items :func:`flatten` descends into, in its order (a mapping's values by sorted key); ``[]`` for a
    leaf."""
    if isinstance(structure, dict) or wide and isinstance(structure, _abc.Mapping):
        return [structure[k] for k in _sorted_keys(structure)]
    if isinstance(structure, (list, tuple)) or wide and isinstance(structure, _abc.MappingView):
        return list(structure)
    return []


def flatten(structure, wide: bool = False) -> list:
    """The leaves of ``structure`` in order (a dict's values by sorted key); a leaf gives ``[leaf]``."""
    if isinstance(structure, dict) or wide and isinstance(structure, _abc.Mapping):
        return [leaf for k in _sorted_keys(structure) for leaf in flatten(structure[k], wide)]
    if isinstance(structure, (list, tuple)) or wide and isinstance(structure, _abc.MappingView):
        return [leaf for item in structure for leaf in flatten(item, wide)]
    return [structure]


def held(value, levels: int):
    """``value``, then, when it is a list, tuple or dict, what it holds (a dict's values in its own order), down to
    ``levels`` levels of containers: what an attribute holds, as Keras and TF track the layers, variables and metrics
    an object keeps in lists and dicts.

    Example:
        >>> list(held({"a": [1, (2,)], "b": 3}, levels=2))
        [{'a': [1, (2,)], 'b': 3}, [1, (2,)], 1, (2,), 3]
    """
    yield value
    if levels > 0 and isinstance(value, (list, tuple, dict)):
        for item in value.values() if isinstance(value, dict) else value:
            yield from held(item, levels - 1)


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


def pack_like(structure, flat: list, wide: bool = False):
    """Rebuild ``structure``'s shape with the leaves of ``flat`` in order."""
    # a module-level helper, not a recursive closure: a closure that calls itself is a reference cycle
    # (function -> cell -> function) holding the iterator and so every leaf (a step's gradients) until
    # the garbage collector runs
    return _build(structure, iter(flat), wide)


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


def _build(s, it, wide: bool = False):
    if not is_nested(s, wide):
        return next(it)
    return _like(s, [_build(c, it, wide) for c in children(s, wide)])


def _like(instance, items: list):
    """A container of ``instance``'s type holding ``items`` (:func:`children`'s order): a mapping keeps its
    key order (and a defaultdict its factory), a namedtuple its fields, a mapping view becomes a list."""
    kind = type(instance)
    if kind is list:
        return items
    if kind is tuple:
        return tuple(items)
    if isinstance(instance, _abc.Mapping):
        by_key = dict(zip(_sorted_keys(instance), items))
        ordered = [(k, by_key[k]) for k in instance]
        if type(instance) is dict:
            return dict(ordered)
        if isinstance(instance, collections.defaultdict):
            out = type(instance)(instance.default_factory)
            out.update(ordered)
            return out
        return type(instance)(ordered)
    if isinstance(instance, _abc.MappingView):
        return items
    if isinstance(instance, tuple) and hasattr(type(instance), "_fields"):
        return type(instance)(*items)
    return type(instance)(items) if type(instance) is not list else items
