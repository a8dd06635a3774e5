"""The tracing protocol: how an argument that is not a Tensor says which trace it takes (TF's).

``descend.function`` traces once per *signature*; a Python object is part of
the signature by identity unless its class defines
``__tf_tracing_type__(self, context)``, returning a :class:`TraceType`: then
calls whose objects give equal (``==``, same ``hash``) trace types share one
trace, and the trace runs with the type's ``placeholder_value(context)``.

Example:
    >>> import descend as ds
    >>> class Scale(ds.types.experimental.TraceType):
    ...     def __init__(self, obj):
    ...         self.kind = type(obj)
    ...         self.obj = obj
    ...     def is_subtype_of(self, other):
    ...         return self == other
    ...     def most_specific_common_supertype(self, others):
    ...         return self if all(self == o for o in others) else None
    ...     def placeholder_value(self, placeholder_context=None):
    ...         return self.obj
    ...     def __eq__(self, other):
    ...         return isinstance(other, Scale) and self.kind is other.kind
    ...     def __hash__(self):
    ...         return hash(self.kind)
    >>> class Double:
    ...     factor = ds.constant(2.0)
    ...     def __tf_tracing_type__(self, context):
    ...         return Scale(self)
    >>> @ds.function
    ... def scale(m, x):
    ...     return m.factor * x
    >>> float(scale(Double(), ds.constant(3.0))), float(scale(Double(), ds.constant(4.0)))
    (6.0, 8.0)
    >>> scale.experimental_get_tracing_count()
    1
"""

from __future__ import annotations

import abc

__all__ = ["TraceType", "TracingContext"]


class TraceType(abc.ABC):
    """What identifies an argument in a trace's signature (TF's ``tf.types.experimental.TraceType``).

    A subclass defines equality and hashing (calls with equal trace types share a trace),
    ``is_subtype_of``, ``most_specific_common_supertype`` and ``placeholder_value`` (the value the
    trace runs with).
    """

    @abc.abstractmethod
    def is_subtype_of(self, other) -> bool:
        """Whether a trace made for ``other`` may serve this type."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type that every one of ``self`` and ``others`` is a subtype of, or None."""

    def placeholder_value(self, placeholder_context=None):
        """The value the trace runs with in place of the argument."""
        raise NotImplementedError(f"{type(self).__name__} does not define placeholder_value")

    @abc.abstractmethod
    def __eq__(self, other) -> bool:
        ...

    @abc.abstractmethod
    def __hash__(self) -> int:
        ...


class TracingContext:
    """The ``context`` handed to ``__tf_tracing_type__`` and ``placeholder_value`` (TF passes its
    tracing and placeholder contexts there; descend's carries nothing a trace type needs)."""

    __slots__ = ()
