"""``tf.nest``: flatten, map and rebuild nested structures with TensorFlow's rules.

TF's public signatures, argument checks and messages over descend's one ``nest`` (:mod:`descend.framework.nest`)
with ``wide=True``: lists, tuples, namedtuples, dicts (and other ``collections.abc.Mapping`` types) nest;
everything else (None, strings, tensors, arrays, sets) is a leaf. Dict values come in sorted-key order; a
rebuilt dict keeps its original key order. ``IndexedSlices`` is a leaf.

Example:
    >>> import descend as ds
    >>> s = {"b": [1, 2], "a": (3, None)}
    >>> ds.nest.flatten(s)
    [3, None, 1, 2]
    >>> ds.nest.map_structure(lambda x, y: x + y, [1, (2, 3)], [10, (20, 30)])
    [11, (22, 33)]
    >>> ds.nest.pack_sequence_as(s, list(range(4)))
    {'b': [2, 3], 'a': (0, 1)}
"""

from __future__ import annotations

import collections.abc as _abc

from . import nest as _nest

__all__ = ["assert_same_structure", "flatten", "is_nested", "map_structure", "pack_sequence_as"]


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_nested(seq) -> bool:
    """Whether ``seq`` is a list, tuple, namedtuple or mapping (something :func:`flatten` descends into)."""
    return _nest.is_nested(seq, wide=True)


def flatten(structure, expand_composites=False):
    """The leaves of ``structure`` in order (dict values by sorted key); a leaf gives ``[leaf]``."""
    del expand_composites  # descend's composite tensors (IndexedSlices) are leaves either way
    return _nest.flatten(structure, wide=True)


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``structure``'s nesting filled with the leaves of ``flat_sequence`` in order."""
    del expand_composites
    if not is_nested(flat_sequence):
        raise TypeError(f"Attempted to pack value:\n  {flat_sequence!r}\ninto a structure, but found incompatible "
                        f"type `{type(flat_sequence).__name__}` instead.")
    flat = list(flat_sequence)
    if not is_nested(structure):
        if len(flat) != 1:
            raise ValueError(f"The target structure is of type `{type(structure).__name__}`\n  {structure!r}\nHowever "
                             f"the input is a sequence ({type(flat_sequence).__name__}) of length {len(flat)}.\n  "
                             f"{flat!r}\nnest cannot guarantee that it is safe to map one to the other.")
        return flat[0]
    n = len(flatten(structure))
    if n != len(flat):
        raise ValueError(f"Could not pack sequence. Structure had {n} atoms, but flat_sequence had {len(flat)} "
                         f"items. Structure: {structure!r}, flat_sequence: {flat!r}.")
    return _nest.pack_like(structure, flat, wide=True)


def _same_type(a, b) -> bool:
    if isinstance(a, _abc.Mapping) and isinstance(b, _abc.Mapping):
        return True  # TF: any two mappings are the same kind of sequence
    if _is_namedtuple(a) or _is_namedtuple(b):
        return _is_namedtuple(a) and _is_namedtuple(b) and type(a).__name__ == type(b).__name__ and \
            type(a)._fields == type(b)._fields
    return type(a) is type(b)


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raise if ``nest1`` and ``nest2`` differ in nesting (ValueError), or, with ``check_types``, in the
    types of their sequences (TypeError) and the keys of their dicts (ValueError, as TF only then)."""
    del expand_composites
    _assert_same(nest1, nest2, check_types, nest1, nest2)


def _assert_same(a, b, check_types, whole1, whole2):
    na, nb = is_nested(a), is_nested(b)
    if na != nb:
        raise ValueError("The two structures don't have the same nested structure.\n\nFirst structure: "
                         f"{whole1!r}\n\nSecond structure: {whole2!r}\n\nMore specifically: Substructure "
                         f"\"{type(a).__name__}={a!r}\" is a sequence, while substructure \"{type(b).__name__}="
                         f"{b!r}\" is not" if na else
                         "The two structures don't have the same nested structure.\n\nFirst structure: "
                         f"{whole1!r}\n\nSecond structure: {whole2!r}\n\nMore specifically: Substructure "
                         f"\"{type(b).__name__}={b!r}\" is a sequence, while substructure \"{type(a).__name__}="
                         f"{a!r}\" is not")
    if not na:
        return
    if check_types and not _same_type(a, b):
        raise TypeError(f"The two structures don't have the same sequence type. Input structure has type "
                        f"{type(a)!r}, while shallow structure has type {type(b)!r}.")
    if check_types and isinstance(a, _abc.Mapping) and isinstance(b, _abc.Mapping) and set(a) != set(b):
        raise ValueError(f"The two dictionaries don't have the same set of keys. First structure has keys "
                         f"{list(a)}, while second structure has keys {list(b)}.")
    ca, cb = _nest.children(a, wide=True), _nest.children(b, wide=True)
    if len(ca) != len(cb):
        raise ValueError(f"The two structures don't have the same number of elements.\n\nFirst structure "
                         f"({len(ca)} elements): {a!r}\n\nSecond structure ({len(cb)} elements): {b!r}")
    for x, y in zip(ca, cb):
        _assert_same(x, y, check_types, whole1, whole2)


def map_structure(func, *structure, **kwargs):
    """``func`` applied to the leaves at the same place of every structure, in the first one's nesting.

    Keyword arguments: ``check_types`` (default True) and ``expand_composites`` (accepted)."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func!r}")
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = kwargs.pop("check_types", True)
    kwargs.pop("expand_composites", None)
    if kwargs:
        raise ValueError(f"Only valid keyword arguments are `check_types` and `expand_composites`, not: "
                         f"`{', '.join(kwargs)}`")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*leaves) for leaves in zip(*flats)])
