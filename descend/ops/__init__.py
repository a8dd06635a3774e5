"""The ops layer: every differentiable primitive, and Tensor/Variable operators."""

from ..framework import ops_bridge
from ..framework.tensor import Tensor
from ..framework.variable import Variable
from . import (  # noqa: F401  (registers their ops)
    array_ops,
    clip_ops,
    conv_ops,
    elementwise_ops,
    gradient_ops,
    linalg_ops,
    manipulation_ops,
    math_ops,
    nn_ops,
    selection_ops,
)
from .array_ops import *  # noqa: F403
from .clip_ops import *  # noqa: F403
from .elementwise_ops import *  # noqa: F403
from .manipulation_ops import *  # noqa: F403
from .selection_ops import *  # noqa: F403
from .math_ops import *  # noqa: F403

__all__ = (list(math_ops.__all__) + list(array_ops.__all__) + list(clip_ops.__all__) + list(elementwise_ops.__all__)
           + list(manipulation_ops.__all__) + list(selection_ops.__all__))


def _method(fn):
    return lambda self, other: fn(self, other)


def _swap(fn):
    return lambda self, other: fn(other, self)


def _unary(fn):
    return lambda self: fn(self)


def _install_operators(cls):
    m, a = math_ops, array_ops
    binary = {
        "add": m.add, "sub": m.subtract, "mul": m.multiply, "truediv": m.divide,
        "floordiv": m.floordiv, "mod": m.mod, "pow": m.pow, "matmul": m.matmul,
    }
    for name, fn in binary.items():
        setattr(cls, f"__{name}__", _method(fn))
        setattr(cls, f"__r{name}__", _swap(fn))
    cls.__neg__ = _unary(m.negative)
    cls.__pos__ = lambda self: self
    cls.__abs__ = _unary(m.abs)
    cls.__eq__ = _method(m.equal)
    cls.__ne__ = _method(m.not_equal)
    cls.__lt__ = _method(m.less)
    cls.__le__ = _method(m.less_equal)
    cls.__gt__ = _method(m.greater)
    cls.__ge__ = _method(m.greater_equal)
    cls.__and__ = _method(m.logical_and)
    cls.__or__ = _method(m.logical_or)
    cls.__invert__ = _unary(m.logical_not)
    cls.__getitem__ = a.getitem  # a plain function: binds as a method


_install_operators(Tensor)
_install_operators(Variable)

# the framework's gradient arithmetic is done by these ops (the tape calls no op by name)
ops_bridge.register(
    aggregate=gradient_ops.aggregate,
    densify=gradient_ops.densify,
    deduplicate=gradient_ops.deduplicate,
    read=gradient_ops.read,
    stack=gradient_ops.stack_rows,
)
