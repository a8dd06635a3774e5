"""``UnconnectedGradients``: what a gradient is for a source the target does not depend on (TF's enum)."""

from __future__ import annotations

import enum

__all__ = ["UnconnectedGradients", "as_unconnected"]


class UnconnectedGradients(enum.Enum):
    """The gradient of an unconnected source: ``NONE`` gives ``None``, ``ZERO`` gives zeros of its shape.

    ``GradientTape.gradient``/``jacobian``/``batch_jacobian`` take a member or
    its value (``"none"``, ``"zero"``), as TF's do.

    Example:
        >>> import descend as ds
        >>> x, y = ds.Variable(1.0), ds.Variable(2.0)
        >>> with ds.GradientTape() as tape:
        ...     z = 3.0 * x
        >>> float(tape.gradient(z, [x, y], unconnected_gradients=ds.UnconnectedGradients.ZERO)[1])
        0.0
    """

    NONE = "none"
    ZERO = "zero"


def as_unconnected(value) -> str:
    """The value (``"none"`` or ``"zero"``) of ``value``, a member or its value; ``ValueError`` otherwise."""
    if isinstance(value, UnconnectedGradients):
        return value.value
    if isinstance(value, str) and value in ("none", "zero"):
        return value
    raise ValueError(f"Unknown value for unconnected_gradients: {value!r} (expected UnconnectedGradients.NONE or "
                     f"UnconnectedGradients.ZERO, or 'none' or 'zero')")
