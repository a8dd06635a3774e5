"""Merging layers: ``Concatenate``, ``Add``, ``Subtract``, ``Multiply``, ``Average``, ``Maximum``,
``Minimum``, and their functional forms (``concatenate([a, b])``...).

Keras masks (``Masking``, ``Embedding(mask_zero=True)``) pass through as in Keras 3: the output's mask is the
OR of the inputs' masks when every input has one (for ``Concatenate``, the masks joined, an unmasked input
counting as all kept). ``Multiply`` treats a masked entry as 1 and ``Maximum``/``Minimum`` leave it out.
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from ..ops import array_ops, math_ops
from .base import Layer

__all__ = ["Concatenate", "Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "concatenate", "add",
           "subtract", "multiply", "average", "maximum", "minimum"]


def _bool_mask(m):
    """A mask (a Tensor, Variable or array of any dtype) as a bool Tensor: non-zero entries are kept."""
    t = m if isinstance(m, (Tensor, Variable)) else convert_to_tensor(np.asarray(m))
    return t if t.dtype.kind == "b" else math_ops.not_equal(t, 0)


def _check_masks(inputs, mask) -> None:
    """Keras' checks of ``compute_mask``'s arguments, in its words."""
    if not isinstance(mask, (tuple, list)):
        raise ValueError(f"`mask` should be a list. Received: mask={mask}")
    if not isinstance(inputs, (tuple, list)):
        raise ValueError(f"`inputs` should be a list. Received: inputs={inputs}")
    if len(mask) != len(inputs):
        raise ValueError("The lists `inputs` and `mask` should have the same length. Received: inputs of length "
                         f"{len(inputs)}, and mask of length {len(mask)}")


def _broadcast_mask(m, x):
    """A mask of ``x``'s shape from ``m`` (one value per entry of ``x``'s axes but the last)."""
    m = _bool_mask(m)
    return array_ops.broadcast_to(array_ops.expand_dims(m, -1), tuple(x.shape)) if m.ndim < x.ndim else m


class _Merge(Layer):
    _min_inputs = 2
    _max_inputs = None
    supports_masking = True

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

    def _merge(self, inputs, masks=None):
        raise NotImplementedError

    def call(self, inputs, mask=None):
        inputs = self._check(inputs)
        self._check_same_shape(inputs)
        masks = list(mask) if isinstance(mask, (list, tuple)) and len(mask) == len(inputs) else [None] * len(inputs)
        return self._merge(inputs, masks)

    def compute_mask(self, inputs, mask=None):
        """The OR of the inputs' masks; None when an input has none (Keras 3)."""
        if mask is None:
            return None
        _check_masks(inputs, mask)
        if any(m is None for m in mask):
            return None
        out = _bool_mask(mask[0])
        for m in mask[1:]:
            out = math_ops.logical_or(out, _bool_mask(m))
        return out

    def compute_output_shape(self, input_shape):
        return tuple(input_shape[0])


class Add(_Merge):
    """The elementwise sum of a list of inputs of one shape.

    Example:
        >>> import descend as ds
        >>> ds.layers.Add()([ds.ones((1, 2)), ds.ones((1, 2))]).numpy()
        array([[2., 2.]], dtype=float32)
    """

    def _merge(self, inputs, masks=None):
        return math_ops.add_n(inputs) if len(inputs) > 2 else math_ops.add(inputs[0], inputs[1])


class Subtract(_Merge):
    """``inputs[0] - inputs[1]`` (exactly two inputs)."""

    _max_inputs = 2

    def _check(self, inputs) -> list:
        if isinstance(inputs, (list, tuple)) and len(inputs) != 2:
            raise ValueError(f"A `Subtract` layer should be called on exactly 2 inputs. Received: {len(inputs)} "
                             "inputs")
        return super()._check(inputs)

    def _merge(self, inputs, masks=None):
        return math_ops.subtract(inputs[0], inputs[1])


class Multiply(_Merge):
    """The elementwise product of a list of inputs of one shape (a masked entry counts as 1; where every input
    is masked the product is 0)."""

    def _merge(self, inputs, masks=None):
        masks = masks or [None] * len(inputs)
        out, kept = None, None
        every = all(m is not None for m in masks)
        for x, m in zip(inputs, masks):
            if m is not None:
                m = _broadcast_mask(m, x)
                x = math_ops.where(m, x, math_ops.cast(1, dtype=x.dtype))
                if every:
                    kept = m if kept is None else math_ops.logical_or(kept, m)
            out = x if out is None else math_ops.multiply(out, x)
        if kept is not None:
            out = math_ops.where(kept, out, math_ops.cast(0, dtype=out.dtype))
        return out


class Average(_Merge):
    """The elementwise mean of a list of inputs of one shape."""

    def _merge(self, inputs, masks=None):
        total = math_ops.add_n(inputs) if len(inputs) > 2 else math_ops.add(inputs[0], inputs[1])
        return math_ops.divide(total, float(len(inputs)))


class Maximum(_Merge):
    """The elementwise maximum of a list of inputs (masked entries left out)."""

    def _merge(self, inputs, masks=None):
        return _masked_reduce(math_ops.maximum, inputs, masks)


class Minimum(_Merge):
    """The elementwise minimum of a list of inputs (masked entries left out)."""

    def _merge(self, inputs, masks=None):
        return _masked_reduce(math_ops.minimum, inputs, masks)


def _masked_reduce(op, inputs, masks):
    """``op`` over the inputs where an entry masked in one input takes the others' value (Keras 3's rule for
    Maximum and Minimum, which have no neutral element)."""
    masks = masks or [None] * len(inputs)
    out, out_mask = None, None
    for x, m in zip(inputs, masks):
        m = None if m is None else _broadcast_mask(m, x)
        if out is None:
            out, out_mask = x, m
            continue
        if m is not None:
            x = math_ops.where(m, x, out)
        if out_mask is not None:
            out = math_ops.where(out_mask, out, x)
        out_mask = math_ops.logical_or(out_mask, m) if m is not None and out_mask is not None else None
        out = op(out, x)
    return out


class Concatenate(_Merge):
    """Concatenates a list of inputs along ``axis`` (default -1, the features).

    Args:
        axis: the axis to join along; the other axes must match.

    Example:
        >>> import descend as ds
        >>> ds.layers.Concatenate()([ds.ones((2, 3)), ds.zeros((2, 1))]).shape
        TensorShape([2, 4])
    """

    _min_inputs = 1

    def __init__(self, axis: int = -1, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, int):
            raise ValueError(f"Concatenate: `axis` must be an int. Received: axis={axis!r}")
        self.axis = axis

    def compute_mask(self, inputs, mask=None):
        """The inputs' masks joined along ``axis`` (an unmasked input counts as all kept), reduced over the last
        axis with OR (Keras 3)."""
        if mask is None:
            return None
        _check_masks(inputs, mask)
        if all(m is None for m in mask):
            return None
        joined = []
        for x, m in zip(inputs, mask):
            if m is None:
                joined.append(array_ops.fill(tuple(x.shape), True, dtype="bool"))
            else:
                joined.append(_broadcast_mask(m, x))
        return math_ops.greater(math_ops.reduce_max(math_ops.cast(array_ops.concat(joined, axis=self.axis),
                                                                  dtype="int32"), axis=-1), 0)

    def call(self, inputs, mask=None):
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
