"""``tf.bitwise``: bitwise operations on integer tensors of one dtype (no gradient), with TF's shift rule:

The public namespace; the implementation is :mod:`descend.ops.bitwise_ops`."""

from .ops.bitwise_ops import (  # noqa: F401
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    invert,
    left_shift,
    right_shift,
)

__all__ = ['bitwise_and', 'bitwise_or', 'bitwise_xor', 'invert', 'left_shift', 'right_shift']
