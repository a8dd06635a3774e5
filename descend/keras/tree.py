"""``keras.tree``: Keras 3's nested-structure utilities, with Keras' rules (those of its optree back end).

Lists, tuples, namedtuples, dicts and ``OrderedDict`` nest; None and everything else is a leaf. A dict's
values come in sorted-key order, an ``OrderedDict``'s in its own order. Structures compare strictly: a list
and a tuple differ, a namedtuple and a tuple differ (``ValueError``, as Keras).

Example:
    >>> from descend.keras import tree
    >>> tree.flatten({"b": 1, "a": [2, None]})
    [2, None, 1]
    >>> tree.flatten_with_path({"b": 1, "a": [2]})
    [(('a', 0), 2), (('b',), 1)]
    >>> tree.map_structure(lambda x, y: x + y, (1, [2]), (10, [20]))
    (11, [22])
"""

from __future__ import annotations

import collections

__all__ = ["MAP_TO_NONE", "assert_same_paths", "assert_same_structure", "flatten", "flatten_with_path", "is_nested",
           "lists_to_tuples", "map_shape_structure", "map_structure", "map_structure_up_to", "pack_sequence_as",
           "traverse"]


class MAP_TO_NONE:  # noqa: N801 - Keras' name
    """Returned by a :func:`traverse` function: this node becomes None (returning None keeps descending)."""


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(structure) -> bool:
    """Whether ``structure`` is a list, tuple, namedtuple or dict (not a leaf)."""
    return isinstance(structure, (list, tuple, dict))


def _items(s):
    """``[(key, child)]`` of a node in flattening order."""
    if isinstance(s, dict):
        keys = list(s) if isinstance(s, collections.OrderedDict) else sorted(s)
        return [(k, s[k]) for k in keys]
    return list(enumerate(s))


def _rebuild(s, children):
    """A node of ``s``'s kind holding ``children`` (in :func:`_items` order)."""
    if isinstance(s, dict):
        by_key = dict(zip([k for k, _ in _items(s)], children))
        ordered = [(k, by_key[k]) for k in s]
        if isinstance(s, collections.defaultdict):
            out = type(s)(s.default_factory)
            out.update(ordered)
            return out
        return type(s)(ordered)
    if _is_namedtuple(s):
        return type(s)(*children)
    return type(s)(children)


def flatten(structure) -> list:
    """The leaves of ``structure`` in order; a leaf (None included) gives ``[leaf]``."""
    return [leaf for _, leaf in flatten_with_path(structure)]


def flatten_with_path(structure) -> list:
    """``(path, leaf)`` pairs in :func:`flatten` order; a path is the tuple of keys and indices to the leaf."""
    out: list = []
    _walk(structure, (), out)
    return out


def _walk(s, path, out):
    if not is_nested(s):
        out.append((path, s))
        return
    for k, child in _items(s):
        _walk(child, path + (k,), out)


def _kind(s) -> str:
    if _is_namedtuple(s):
        return "collections.namedtuple"
    return type(s).__name__


def _same(a, b):
    """Raise ValueError where the nesting of ``a`` and ``b`` differs (kinds, lengths, keys)."""
    if not is_nested(a):
        if is_nested(b):
            raise ValueError(f"Expected a leaf, got {_kind(b)} {b!r}.")
        return
    if isinstance(a, dict) and isinstance(b, dict):
        pass  # any two dicts (dict, OrderedDict, defaultdict) may match, as Keras
    elif not is_nested(b) or _kind(a) != _kind(b) or (_is_namedtuple(a) and type(a) is not type(b)):
        raise ValueError(f"Expected an instance of {_kind(a)}, got {b!r}.")
    if isinstance(a, dict):
        if set(a) != set(b):
            raise ValueError(f"dictionary key mismatch; expected key(s): {sorted(a, key=repr)}, got key(s): "
                             f"{sorted(b, key=repr)}")
    elif len(a) != len(b):
        raise ValueError(f"{_kind(a)} arity mismatch; expected: {len(a)}, got: {len(b)}; {_kind(a)}: {b!r}.")
    for (_, x), (_, y) in zip(_items(a), _items(b)):
        _same(x, y)


def assert_same_structure(a, b, check_types=None):
    """Raise ValueError unless ``a`` and ``b`` nest alike (``check_types`` is accepted, as Keras' deprecated
    argument: kinds are always compared)."""
    _same(a, b)


def assert_same_paths(a, b):
    """Raise ValueError unless ``a`` and ``b`` have the same leaf paths (kinds may differ)."""
    pa = {p for p, _ in flatten_with_path(a)}
    pb = {p for p, _ in flatten_with_path(b)}
    if pa != pb:
        raise ValueError(f"`a` and `b` don't have the same paths.\nPaths in `a` missing in `b`:\n{pa - pb}\n"
                         f"Paths in `b` missing in `a`:\n{pb - pa}")


def pack_sequence_as(structure, flat_sequence):
    """``structure``'s nesting filled with the leaves of ``flat_sequence`` in order."""
    flat = list(flat_sequence)
    n = len(flatten(structure))
    if len(flat) != n:
        raise ValueError(f"Too {'few' if len(flat) < n else 'many'} leaves for the structure; expected: {n}, got: "
                         f"{len(flat)}.")
    return _pack(structure, iter(flat))


def _pack(s, it):
    if not is_nested(s):
        return next(it)
    return _rebuild(s, [_pack(child, it) for _, child in _items(s)])


def map_structure(func, *structures, none_is_leaf=True):
    """``func`` applied to the leaves at the same place of every structure, in the first one's nesting.
    ``none_is_leaf=False``: a None in the first structure stays None without calling ``func``."""
    if not callable(func):
        raise TypeError(f"`func` must be callable. Received: func={func!r}")
    if not structures:
        raise ValueError("Must provide at least one structure")
    for other in structures[1:]:
        try:
            _same(structures[0], other)
        except ValueError as e:
            raise ValueError(f"Structures don't have the same nested structure. {e}") from None
    flats = [flatten(s) for s in structures]

    def call(*leaves):
        return None if not none_is_leaf and leaves[0] is None else func(*leaves)

    return pack_sequence_as(structures[0], [call(*leaves) for leaves in zip(*flats)])


def map_structure_up_to(shallow_structure, func, *structures):
    """``func`` applied to the parts of ``structures`` at the leaves of ``shallow_structure`` (deeper parts
    are passed whole)."""
    if not structures:
        raise ValueError("Must provide at least one structure")
    parts = [_up_to(shallow_structure, s) for s in structures]
    return pack_sequence_as(shallow_structure, [func(*p) for p in zip(*parts)])


def _up_to(shallow, s) -> list:
    if not is_nested(shallow):
        return [s]
    if not is_nested(s) or _kind(shallow) != _kind(s):
        raise ValueError(f"Expected an instance of {_kind(shallow)}, got {s!r}.")
    if isinstance(shallow, dict):
        missing = set(shallow) - set(s)
        if missing:
            raise ValueError(f"The structure lacks the key(s) {sorted(missing, key=repr)} of the shallow structure")
        return [p for k, child in _items(shallow) for p in _up_to(child, s[k])]
    if len(shallow) != len(s):
        raise ValueError(f"{_kind(shallow)} arity mismatch; expected: {len(shallow)}, got: {len(s)}.")
    return [p for (_, a), b in zip(_items(shallow), s) for p in _up_to(a, b)]


def lists_to_tuples(structure):
    """``structure`` with every list turned into a tuple."""
    if not is_nested(structure):
        return structure
    children = [lists_to_tuples(c) for _, c in _items(structure)]
    return tuple(children) if isinstance(structure, list) else _rebuild(structure, children)


def _is_shape(x) -> bool:
    return isinstance(x, (list, tuple)) and not _is_namedtuple(x) and \
        all(d is None or (isinstance(d, int) and not isinstance(d, bool)) for d in x)


def map_shape_structure(func, structure):
    """``func`` applied to every shape (a list or tuple of ints and None) in ``structure``."""
    if _is_shape(structure):
        return func(structure)
    if not is_nested(structure):
        return func(structure)
    return _rebuild(structure, [map_shape_structure(func, c) for _, c in _items(structure)])


def traverse(func, structure, top_down=True):
    """``func`` applied to every node, nested ones included. Top down: a node for which ``func`` returns None
    is descended into, any other value replaces it (:class:`MAP_TO_NONE` gives None). Bottom up: children
    first, then ``func`` on the node rebuilt from them, with the same rule for None."""

    def result(value, keep):
        if value is MAP_TO_NONE:
            return None
        return keep if value is None else value

    if top_down:
        value = func(structure)
        if value is not None:
            return result(value, None)
        if not is_nested(structure):
            return structure
        return _rebuild(structure, [traverse(func, c, True) for _, c in _items(structure)])
    node = structure
    if is_nested(structure):
        node = _rebuild(structure, [traverse(func, c, False) for _, c in _items(structure)])
    return result(func(node), node)
