"""Keras 3's weight constraints (public as ``descend.constraints``)."""

from __future__ import annotations

import numpy as np

from ..persistence.object_config import deserialize_object, serialize_object
from ..persistence.registry import public_names, register_builtins
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from ..ops import math_ops

__all__ = ["Constraint", "MaxNorm", "MinMaxNorm", "NonNeg", "UnitNorm", "get", "serialize", "deserialize"]

_EPSILON = 1e-7  # keras.backend.epsilon()


def _tensor(x):
    return x if isinstance(x, (Tensor, Variable)) else convert_to_tensor(x)


def _norms(w, axis):
    # ||w|| over `axis`, kept for broadcasting
    return math_ops.sqrt(math_ops.reduce_sum(math_ops.square(w), axis=axis, keepdims=True))


def _check_axis(axis):
    if isinstance(axis, (list, tuple)):
        if not all(isinstance(a, int) for a in axis):
            raise ValueError(f"axis must be an int or a list of ints. Received: axis={axis!r}")
        return list(axis)
    if not isinstance(axis, int) or isinstance(axis, bool):
        raise ValueError(f"axis must be an int or a list of ints. Received: axis={axis!r}")
    return axis


class Constraint:
    """Base class: ``__call__(w)`` returns the projected value (the identity here).

    Example:
        >>> import descend as ds
        >>> class Clip(ds.constraints.Constraint):
        ...     def __call__(self, w):
        ...         return ds.clip_by_value(w, -1.0, 1.0)
        >>> Clip()(ds.constant([2.0, -0.5])).numpy()
        array([ 1. , -0.5], dtype=float32)
    """

    def __call__(self, w):
        return w

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class MaxNorm(Constraint):
    """Scale down slices whose L2 norm over ``axis`` exceeds ``max_value``.

    ``w * clip(n, 0, max_value) / (eps + n)`` with ``n = ||w||`` over ``axis``
    (``eps = 1e-7``). For a Dense kernel ``(in, out)``, ``axis=0`` constrains
    each unit's incoming weights.

    Args:
        max_value: the largest norm (default 2).
        axis: the axis or axes the norm runs over (default 0).

    Example:
        >>> import descend as ds
        >>> ds.constraints.MaxNorm(1.0)(ds.constant([[3.0], [4.0]])).numpy().round(4)
        array([[0.6],
               [0.8]], dtype=float32)
    """

    def __init__(self, max_value=2, axis=0):
        if not isinstance(max_value, (int, float, np.number)) or not max_value >= 0:
            raise ValueError(f"max_value must be a non-negative number. Received: max_value={max_value!r}")
        self.max_value = max_value
        self.axis = _check_axis(axis)

    def __call__(self, w):
        w = _tensor(w)
        n = _norms(w, self.axis)
        desired = math_ops.clip_by_value(n, 0.0, float(self.max_value))
        return math_ops.multiply(w, math_ops.divide(desired, math_ops.add(n, _EPSILON)))

    def get_config(self) -> dict:
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Zero the negative entries: ``where(w >= 0, w, 0)``.

    Example:
        >>> import descend as ds
        >>> ds.constraints.NonNeg()(ds.constant([-1.0, 2.0])).numpy()
        array([0., 2.], dtype=float32)
    """

    def __call__(self, w):
        w = _tensor(w)
        return math_ops.where(math_ops.greater_equal(w, 0.0), w, math_ops.zeros_like(w))


class UnitNorm(Constraint):
    """Scale every slice to unit L2 norm over ``axis``: ``w / (eps + ||w||)``.

    Args:
        axis: the axis or axes the norm runs over (default 0).

    Example:
        >>> import descend as ds
        >>> ds.constraints.UnitNorm()(ds.constant([[3.0], [4.0]])).numpy().round(4)
        array([[0.6],
               [0.8]], dtype=float32)
    """

    def __init__(self, axis=0):
        self.axis = _check_axis(axis)

    def __call__(self, w):
        w = _tensor(w)
        return math_ops.divide(w, math_ops.add(_norms(w, self.axis), _EPSILON))

    def get_config(self) -> dict:
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Keep the L2 norm over ``axis`` within ``[min_value, max_value]``, moving it there at ``rate``.

    ``desired = rate * clip(n, min_value, max_value) + (1 - rate) * n`` and
    ``w * desired / (eps + n)``; ``rate=1`` enforces the bounds strictly.

    Args:
        min_value: the smallest norm (default 0.0).
        max_value: the largest norm (default 1.0).
        rate: in [0, 1], how far to move towards the bounds (default 1.0).
        axis: the axis or axes the norm runs over (default 0).

    Example:
        >>> import descend as ds
        >>> ds.constraints.MinMaxNorm(1.0, 2.0)(ds.constant([[0.3], [0.4]])).numpy().round(4)
        array([[0.6],
               [0.8]], dtype=float32)
    """

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        for k, v in (("min_value", min_value), ("max_value", max_value), ("rate", rate)):
            if not isinstance(v, (int, float, np.number)) or isinstance(v, bool):
                raise ValueError(f"{k} must be a number. Received: {k}={v!r}")
        if not 0 <= min_value <= max_value:
            raise ValueError(f"MinMaxNorm needs 0 <= min_value <= max_value. Received: min_value={min_value!r}, "
                             f"max_value={max_value!r}")
        if not 0 <= rate <= 1:
            raise ValueError(f"rate must be in [0, 1]. Received: rate={rate!r}")
        self.min_value = min_value
        self.max_value = max_value
        self.rate = rate
        self.axis = _check_axis(axis)

    def __call__(self, w):
        w = _tensor(w)
        n = _norms(w, self.axis)
        clipped = math_ops.clip_by_value(n, float(self.min_value), float(self.max_value))
        # desired = rate * clip(n) + (1 - rate) * n
        desired = math_ops.add(math_ops.multiply(clipped, float(self.rate)), math_ops.multiply(n, 1.0 - self.rate))
        return math_ops.multiply(w, math_ops.divide(desired, math_ops.add(n, _EPSILON)))

    def get_config(self) -> dict:
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate, "axis": self.axis}


# ---------------------------------------------------------------- lookup
register_builtins("constraints", public_names(
    __name__, lambda obj: isinstance(obj, type) and issubclass(obj, Constraint)))
_ALIASES = {"max_norm": MaxNorm, "min_max_norm": MinMaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm}


def serialize(constraint) -> dict | str | None:
    """``{"class_name": ..., "config": ...}`` for a Constraint; a plain function gives its name."""
    return serialize_object(constraint, Constraint)


def deserialize(config, custom_objects: dict | None = None):
    """Rebuild a constraint from :func:`serialize`'s output (or a name)."""
    return deserialize_object(config, "constraint", _ALIASES, "constraints", custom_objects)


def get(identifier, custom_objects: dict | None = None):
    """The constraint for ``identifier``: None, a name (``"non_neg"``), a config dict, a
    Constraint or any callable ``value -> value``.

    Raises:
        ValueError: for an unknown name, saying which names are known.
    """
    if identifier is None or isinstance(identifier, Constraint):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier, custom_objects)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret constraint identifier. Expected a name such as 'non_neg', a config dict, a "
                     f"Constraint or a callable. Received: {identifier!r}")
