"""``tf.sets``: set operations over the last dimension of integer or string tensors (dense or

The public namespace; the implementation is :mod:`descend.composites.set_ops`."""

from .composites.set_ops import (  # noqa: F401
    difference,
    intersection,
    size,
    union,
)

__all__ = ['difference', 'intersection', 'size', 'union']
