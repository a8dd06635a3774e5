"""``tf.TensorShape``: a shape whose rank or dimensions may be unknown (None), with TF's printing, merging
and compatibility rules.

Example:
    >>> from descend.framework.tensor_shape import TensorShape
    >>> s = TensorShape([2, None, 3])
    >>> s, str(s), s.as_list()
    (TensorShape([2, None, 3]), '(2, None, 3)', [2, None, 3])
    >>> s.merge_with([2, 5, None])
    TensorShape([2, 5, 3])
    >>> s.is_compatible_with([2, 7, 3]), s.is_fully_defined()
    (True, False)
"""

from __future__ import annotations

__all__ = ["Dimension", "TensorShape", "as_shape", "known_shape"]


def _dim_value(value):
    """An int >= 0 or None from ``value`` (an int, anything with ``__index__``, a Dimension or None)."""
    if isinstance(value, Dimension):
        return value.value
    if value is None:
        return None
    if isinstance(value, (bool, float)) or not hasattr(value, "__index__"):
        raise TypeError("Dimension value must be integer or None or have an __index__ method, got value "
                        f"'{value!r}' with type '{type(value)}'")
    value = value.__index__()
    if value < 0:
        raise ValueError(f"Dimension {value} must be >= 0")
    return value


class Dimension:
    """One dimension of a :class:`TensorShape` (``tf.compat.v1.Dimension``): its ``value`` is an int or None
    (unknown); comparing with an unknown dimension gives None, as TF."""

    __slots__ = ("_value",)

    def __init__(self, value):
        self._value = _dim_value(value)

    @property
    def value(self):
        return self._value

    def __repr__(self):
        return f"Dimension({self._value!r})"

    def __str__(self):
        return "?" if self._value is None else str(self._value)

    def __int__(self):
        if self._value is None:
            raise TypeError("an unknown Dimension has no int value")
        return self._value

    __index__ = __int__

    def __eq__(self, other):
        try:
            other = _dim_value(other)
        except (TypeError, ValueError):
            return NotImplemented
        return None if self._value is None or other is None else self._value == other

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is None or equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self._value)

    def is_compatible_with(self, other) -> bool:
        other = _dim_value(other)
        return self._value is None or other is None or self._value == other


def as_shape(shape) -> TensorShape:
    """``shape`` as a :class:`TensorShape` (a TensorShape is returned as is)."""
    return shape if isinstance(shape, TensorShape) else TensorShape(shape)


def known_shape(dims: tuple) -> TensorShape:
    """The TensorShape of an array's shape (a tuple of ints >= 0, as NumPy's ``shape``), made without checks."""
    shape = object.__new__(TensorShape)
    shape._dims = dims
    return shape


class TensorShape:
    """The static shape of a tensor: a list of dimensions (an int or None each), or an unknown rank
    (``TensorShape(None)``). Prints as TF: ``repr`` ``TensorShape([2, None])``, ``str`` ``(2, None)``,
    ``<unknown>``. Equality with a list or tuple compares the dimensions (None equals None, as TF 2)."""

    __slots__ = ("_dims",)

    def __init__(self, dims):
        if dims is None:
            self._dims = None
        elif isinstance(dims, TensorShape):
            self._dims = dims._dims
        elif isinstance(dims, (int, Dimension)) or (hasattr(dims, "__index__") and not hasattr(dims, "__iter__")):
            self._dims = (_dim_value(dims),)
        else:
            try:
                items = list(dims)
            except TypeError:
                raise TypeError(f"TensorShape: expected None, an int or an iterable of dimensions. Received "
                                f"{dims!r} of type {type(dims).__name__}") from None
            self._dims = tuple(_dim_value(d) for d in items)

    # -- reading
    @property
    def rank(self):
        """The number of dimensions, or None when unknown."""
        return None if self._dims is None else len(self._dims)

    ndims = rank

    @property
    def dims(self):
        """The dimensions as :class:`Dimension` objects, or None when the rank is unknown."""
        return None if self._dims is None else [Dimension(d) for d in self._dims]

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def __len__(self):
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __bool__(self):
        return self._dims is not None

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if self._dims is not None:
            if isinstance(key, slice):
                return TensorShape(self._dims[key])
            return self._dims[key]
        if isinstance(key, slice):  # TF: a slice of an unknown shape is unknown, or of known length
            start, stop, step = key.start, key.stop, key.step
            if (step or 1) == 1 and stop is not None and stop >= 0 and (start or 0) >= 0:
                return TensorShape([None] * max(stop - (start or 0), 0))
            return TensorShape(None)
        return None

    def is_fully_defined(self) -> bool:
        return self._dims is not None and all(d is not None for d in self._dims)

    def num_elements(self):
        """The product of the dimensions, or None when one is unknown."""
        if not self.is_fully_defined():
            return None
        n = 1
        for d in self._dims:
            n *= d
        return n

    # -- compatibility
    def is_compatible_with(self, other) -> bool:
        """Whether the two shapes may describe the same tensor (unknown parts match anything)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def assert_is_compatible_with(self, other) -> None:
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are incompatible")

    def merge_with(self, other) -> TensorShape:
        """The shape combining what both know; ValueError when they disagree."""
        other = as_shape(other)
        if self._dims is None:
            return other
        if other._dims is None:
            return self
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {other} are not compatible")
        return TensorShape([a if a is not None else b for a, b in zip(self._dims, other._dims)])

    def most_specific_compatible_shape(self, other) -> TensorShape:
        """The most specific shape compatible with both (dimensions that differ become None)."""
        other = as_shape(other)
        if self._dims is None or other._dims is None or len(self._dims) != len(other._dims):
            return TensorShape(None)
        return TensorShape([a if a == b else None for a, b in zip(self._dims, other._dims)])

    most_specific_common_supertype_of_two = most_specific_compatible_shape

    def most_specific_common_supertype(self, others):
        """The most specific shape that this shape and each of ``others`` are subtypes of."""
        result = self
        for other in others:
            result = result.most_specific_compatible_shape(other)
        return result

    def is_subtype_of(self, other) -> bool:
        """Whether every tensor of this shape has ``other`` (unknown parts of ``other`` match anything)."""
        other = as_shape(other)
        if other._dims is None:
            return True
        if self._dims is None or len(self._dims) != len(other._dims):
            return False
        return all(b is None or a == b for a, b in zip(self._dims, other._dims))

    def concatenate(self, other) -> TensorShape:
        other = as_shape(other)
        if self._dims is None or other._dims is None:
            return TensorShape(None)
        return TensorShape(self._dims + other._dims)

    def __add__(self, other):
        return self.concatenate(other)

    def __radd__(self, other):
        return as_shape(other).concatenate(self)

    def assert_same_rank(self, other) -> None:
        other = as_shape(other)
        if self.rank is not None and other.rank is not None and self.rank != other.rank:
            raise ValueError(f"Shapes {self} and {other} must have the same rank")

    def assert_has_rank(self, rank) -> None:
        if self.rank not in (None, rank):
            raise ValueError(f"Shape {self} must have rank {rank}")

    def with_rank(self, rank) -> TensorShape:
        """This shape with rank ``rank`` (an unknown rank becomes ``rank`` unknown dimensions)."""
        try:
            return self.merge_with(TensorShape([None] * rank))
        except ValueError:
            raise ValueError(f"Shape {self} must have rank {rank}") from None

    def with_rank_at_least(self, rank) -> TensorShape:
        if self.rank is not None and self.rank < rank:
            raise ValueError(f"Shape {self} must have rank at least {rank}")
        return self

    def with_rank_at_most(self, rank) -> TensorShape:
        if self.rank is not None and self.rank > rank:
            raise ValueError(f"Shape {self} must have rank at most {rank}")
        return self

    def assert_is_fully_defined(self) -> None:
        if not self.is_fully_defined():
            raise ValueError(f"Shape {self} is not fully defined")

    # -- comparison and printing
    def __eq__(self, other):
        try:
            other = as_shape(other)
        except (TypeError, ValueError):
            return NotImplemented
        return self._dims == other._dims

    def __ne__(self, other):
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    def __hash__(self):
        return hash(self._dims)

    def __repr__(self):
        return "TensorShape(None)" if self._dims is None else f"TensorShape({list(self._dims)!r})"

    def __str__(self):
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __reduce__(self):
        return TensorShape, (None if self._dims is None else list(self._dims),)
