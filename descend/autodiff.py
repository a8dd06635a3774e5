"""``tf.autodiff``: ``GradientTape`` (descend's, the same class) and ``ForwardAccumulator``, forward-mode

The public namespace; the implementation is :mod:`descend.composites.forward_accumulator`."""

from .composites.forward_accumulator import (  # noqa: F401
    ForwardAccumulator,
    GradientTape,
)

__all__ = ['ForwardAccumulator', 'GradientTape']
