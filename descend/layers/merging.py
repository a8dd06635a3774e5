"""Merging layers: ``Concatenate``, ``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``,
``Minimum``, and their functional forms (``concatenate([a, b])``...)."""

from __future__ import annotations

from ..ops import array_ops, math_ops
from .base import Layer

__all__ = ["Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "concatenate", "add",
           "subtract", "multiply", "average", "maximum", "minimum"]


class _Merge(Layer):
    _min_inputs = 2
    _max_inputs = None

    def _check(self, inputs) -> list:
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) must be called on a list of inputs. "
                             f"Received: {type(inputs).__name__}")
        n = len(inputs)
        if n < self._min_inputs or (self._max_inputs is not None and n > self._max_inputs):
            want = (f"exactly {self._max_inputs}" if self._max_inputs == self._min_inputs
                    else f"at least {self._min_inputs}")
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) needs {want} inputs. Received: {n}")
        return list(inputs)

    def _check_same_shape(self, inputs) -> None:
        shapes = [tuple(x.shape) for x in inputs]
        rest = {s[1:] for s in shapes}
        if len(rest) > 1 or len({s[:1] for s in shapes if s[:1] != (1,)}) > 1:
            raise ValueError(f"Layer '{self.name}' ({type(self).__name__}) needs inputs of one shape. Received "
                             f"shapes {shapes}")

    def _merge(self, inputs):
        raise NotImplementedError

    def call(self, inputs):
        inputs = self._check(inputs)
        self._check_same_shape(inputs)
        return self._merge(inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0])


class Add(_Merge):
    """The elementwise sum of a list of inputs of one shape.

    Example:
        >>> import descend as ds
        >>> ds.layers.Add()([ds.ones((1, 2)), ds.ones((1, 2))]).numpy()
        array([[2., 2.]], dtype=float32)
    """

    def _merge(self, inputs):
        return math_ops.add_n(inputs) if len(inputs) > 2 else math_ops.add(inputs[0], inputs[1])


class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    _max_inputs = 2

    def _merge(self, inputs):
        return math_ops.subtract(inputs[0], inputs[1])


class Multiply(_Merge):
    """The elementwise product of a list of inputs of one shape."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = math_ops.multiply(out, x)
        return out


class Average(_Merge):
    """The elementwise mean of a list of inputs of one shape."""

    def _merge(self, inputs):
        total = math_ops.add_n(inputs) if len(inputs) > 2 else math_ops.add(inputs[0], inputs[1])
        return math_ops.divide(total, float(len(inputs)))


class Maximum(_Merge):
    """The elementwise maximum of a list of inputs."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = math_ops.maximum(out, x)
        return out


class Minimum(_Merge):
    """The elementwise minimum of a list of inputs."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = math_ops.minimum(out, x)
        return out


class Concatenate(_Merge):
    """Concatenates a list of inputs along ``axis`` (default -1, the features).

    Args:
        axis: the axis to join along; the other axes must match.

    Example:
        >>> import descend as ds
        >>> ds.layers.Concatenate()([ds.ones((2, 3)), ds.zeros((2, 1))]).shape
        (2, 4)
    """

    _min_inputs = 1

    def __init__(self, axis: int = -1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"Concatenate: `axis` must be an int. Received: axis={axis!r}")
        self.axis = axis

    def call(self, inputs):
        inputs = self._check(inputs)
        ranks = {x.ndim for x in inputs}
        if len(ranks) > 1:
            raise ValueError(f"Layer '{self.name}' (Concatenate) needs inputs of one rank. Received shapes "
                             f"{[tuple(x.shape) for x in inputs]}")
        rank = ranks.pop()
        axis = self.axis % rank
        shapes = [tuple(x.shape) for x in inputs]
        if len({s[:axis] + s[axis + 1:] for s in shapes}) > 1:
            raise ValueError(f"A Concatenate layer requires inputs with matching shapes except for the "
                             f"concatenation axis. Received: input_shape={shapes}")
        # integer and float inputs (tags next to features): join in the floating dtype
        dtypes = {x.dtype.name for x in inputs}
        if len(dtypes) > 1:
            inputs = [self._float_input(x) if x.dtype.kind != "f" else x for x in inputs]
        return array_ops.concat(inputs, axis=axis)

    def compute_output_shape(self, input_shape):
        shapes = [tuple(s) for s in input_shape]
        axis = self.axis % len(shapes[0])
        total = None if any(s[axis] is None for s in shapes) else sum(s[axis] for s in shapes)
        return shapes[0][:axis] + (total,) + shapes[0][axis + 1:]

    def get_config(self) -> dict:
        return {**super().get_config(), "axis": self.axis}


def concatenate(inputs, axis: int = -1, **kwargs):
    """``Concatenate(axis=axis, **kwargs)(inputs)`` (Keras' functional form)."""
    return Concatenate(axis=axis, **kwargs)(inputs)


def add(inputs, **kwargs):
    """``Add(**kwargs)(inputs)``."""
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    """``Subtract(**kwargs)(inputs)``."""
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    """``Multiply(**kwargs)(inputs)``."""
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    """``Average(**kwargs)(inputs)``."""
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    """``Maximum(**kwargs)(inputs)``."""
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    """``Minimum(**kwargs)(inputs)``."""
    return Minimum(**kwargs)(inputs)
