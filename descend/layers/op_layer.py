"""``OpLambda``: an op applied to KerasTensors in a functional model (Keras' ``TFOpLambda``).

``x + y``, ``2.0 * x``, ``-x``, ``x @ w`` and ``x[:, 0]`` on KerasTensors each record
an ``OpLambda`` layer naming the op, so functional code written with operators builds a
graph (and its config names the op, so ``from_config`` rebuilds it).
"""

from __future__ import annotations

from ..ops import array_ops, math_ops
from .base import Layer
from .keras_tensor import register_operator_layer

__all__ = ["OpLambda", "OPERATORS"]


def _swap(fn):
    return lambda x, y: fn(y, x)


#: the ops an OpLambda may name (``r``-prefixed: the reflected operator, the KerasTensor second)
OPERATORS = {
    "add": math_ops.add, "subtract": math_ops.subtract, "multiply": math_ops.multiply,
    "truediv": math_ops.truediv, "floordiv": math_ops.floordiv, "mod": math_ops.mod, "pow": math_ops.pow,
    "matmul": math_ops.matmul,
    "radd": _swap(math_ops.add), "rsubtract": _swap(math_ops.subtract), "rmultiply": _swap(math_ops.multiply),
    "rtruediv": _swap(math_ops.truediv), "rfloordiv": _swap(math_ops.floordiv), "rmod": _swap(math_ops.mod),
    "rpow": _swap(math_ops.pow), "rmatmul": _swap(math_ops.matmul),
    "negative": math_ops.negative, "abs": math_ops.abs, "getitem": array_ops.getitem,
    "greater": math_ops.greater, "greater_equal": math_ops.greater_equal, "less": math_ops.less,
    "less_equal": math_ops.less_equal, "logical_and": math_ops.logical_and, "logical_or": math_ops.logical_or,
    "logical_not": math_ops.logical_not,
}


class OpLambda(Layer):
    """A layer applying the op ``function`` (a key of :data:`OPERATORS`) to its arguments.

    Example:
        >>> import descend as ds
        >>> x = ds.keras.Input(shape=(3,))
        >>> y = 2.0 * x + 1.0
        >>> type(y.node.layer).__name__, y.node.layer.function
        ('OpLambda', 'add')
        >>> ds.keras.Model(x, y)(ds.ones((1, 3))).numpy()
        array([[3., 3., 3.]], dtype=float32)
    """

    _autocast = False  # the op sees its inputs as they are

    def __init__(self, function: str, **kwargs):
        if function not in OPERATORS:
            raise ValueError(f"OpLambda: unknown op {function!r}; expected one of {sorted(OPERATORS)}")
        kwargs.setdefault("name", None)
        if kwargs["name"] is None:
            from ..framework.variable import unique_name

            kwargs["name"] = unique_name(f"tf_op_{function}")
        super().__init__(**kwargs)
        self.function = function

    def call(self, inputs, *args, training=None, mask=None):
        return OPERATORS[self.function](inputs, *args)

    def get_config(self) -> dict:
        return {**super().get_config(), "function": self.function}


register_operator_layer(OpLambda)
