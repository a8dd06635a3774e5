"""Exception types. Each subclasses the built-in a Python user would catch."""

__all__ = ["InvalidArgumentError", "NoGradientError", "OperatorNotAllowedInGraphError"]


class InvalidArgumentError(ValueError):
    """A value has the right type but a wrong shape, range or content."""


class NoGradientError(LookupError):
    """The tape reached an op that has no gradient rule."""


class OperatorNotAllowedInGraphError(TypeError):
    """Python used a Tensor computed inside ``descend.function`` in a way a trace cannot record
    (as a Python ``bool``, as TF's error of the same name)."""
