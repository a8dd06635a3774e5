"""Exception types. Each subclasses the built-in a Python user would catch."""

__all__ = ["EndOfIterator", "InvalidArgumentError", "NoGradientError", "OperatorNotAllowedInGraphError",
           "OutOfRangeError"]


class InvalidArgumentError(ValueError):
    """A value has the right type but a wrong shape, range or content."""


class OutOfRangeError(Exception):
    """An iterator is exhausted where a value was required (``next`` of a ``Dataset`` iterator inside
    ``descend.function`` past its last element, as TF's ``End of sequence``). As TF's, it subclasses no
    built-in error but ``Exception``."""


class EndOfIterator(StopIteration):
    """The ``StopIteration`` of a ``Dataset`` iterator at its end (Python's protocol: a loop over it ends). One
    that escapes a ``descend.function`` call becomes ``OutOfRangeError``, as TF's ``IteratorGetNext`` says
    there, whether the call ran a plan, traced or ran eagerly."""


class NoGradientError(LookupError):
    """The tape reached an op that has no gradient rule."""


class OperatorNotAllowedInGraphError(TypeError):
    """Python used a Tensor computed inside ``descend.function`` in a way a trace cannot record
    (as a Python ``bool``, as TF's error of the same name)."""
