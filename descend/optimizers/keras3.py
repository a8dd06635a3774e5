"""Keras 3 optimizer subclassing, as an adapter onto descend's optimizer contract.

Code written for ``keras.optimizers.Optimizer`` (Keras 3) runs with its imports
changed: it overrides ``build(var_list)`` (creating state with
``add_variable_from_reference`` or ``add_variable``) and
``update_step(gradient, variable, learning_rate)``, which updates with
``self.assign``, ``self.assign_add`` and ``self.assign_sub``. The base class's
pipeline runs around it (validation, accumulation, clipping, the non-finite
policy, weight decay, ``iterations``), so a bad gradient or hyperparameter
changes nothing.

A direct subclass of :class:`descend.optimizers.Optimizer` that defines
``update_step`` gets this class as its base automatically.

Sparse gradients reach ``update_step`` densified (the exact update, as Keras
3's ``IndexedSlices`` handling gives).

Example:
    >>> import descend as ds
    >>> class PlainSGD(ds.optimizers.Optimizer):
    ...     def update_step(self, gradient, variable, learning_rate):
    ...         self.assign_sub(variable, gradient * learning_rate)
    >>> w = ds.Variable([1.0], name="w")
    >>> _ = PlainSGD(learning_rate=0.5).apply_gradients([(ds.constant([1.0]), w)])
    >>> w.numpy()
    array([0.5], dtype=float32)
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable
from .base import Optimizer, initial_value, register_subclass_style

__all__ = ["KerasOptimizer"]


class KerasOptimizer(Optimizer):
    """Keras 3's ``Optimizer`` subclassing API over descend's pipeline."""

    rule_kind = "custom"

    def __init__(self, learning_rate=0.001, *args, **kwargs):
        super().__init__(learning_rate, *args, **kwargs)
        self.built = False
        self._index: dict[int, int] = {}

    def build(self, variables) -> None:
        """Override to create state; call ``super().build(variables)`` first (records the variables' order)."""
        variables = list(variables)
        self._index = {id(v): i for i, v in enumerate(variables)}
        self.built = True

    def create_slots(self, var_list):
        if not self.built:
            self.build(var_list)
            return
        unknown = [v.name for v in var_list if id(v) not in self._index]
        if unknown:
            raise ValueError(f"{type(self).__name__} was built for other variables; it cannot update {unknown}")

    def _get_variable_index(self, variable) -> int:
        try:
            return self._index[id(variable)]
        except KeyError:
            raise KeyError(f"variable '{variable.name}' is not one this optimizer was built for") from None

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="none", name=None) -> Variable:
        """Optimizer-level state of ``shape`` (saved under ``name``)."""
        if name is None:
            name = f"variable_{len(self.variables)}"
        dtype = backend.np_dtype(dtype) if dtype is not None else backend.floatx()
        value = initial_value(initializer, tuple(shape), dtype)
        return self.add_state_variable(name, value)

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros") -> Variable:
        """Per-variable state shaped like ``reference_variable`` (a slot named ``name``)."""
        if name is None:
            raise ValueError("add_variable_from_reference needs a `name` for the new state")
        return self.add_slot(reference_variable, name, initializer)

    # -- writes from update_step: dense values cast to the variable's dtype, IndexedSlices scattered ----------
    @staticmethod
    def assign(variable, value):
        _write(variable, value, "assign", "scatter_update")

    @staticmethod
    def assign_add(variable, value):
        _write(variable, value, "assign_add", "scatter_add")

    @staticmethod
    def assign_sub(variable, value):
        _write(variable, value, "assign_sub", "scatter_sub")

    def update_step(self, gradient, variable, learning_rate):
        raise NotImplementedError(f"{type(self).__name__} must override update_step(gradient, variable, learning_rate)")

    def update_variable(self, gradient, variable, context):
        if isinstance(gradient, IndexedSlices):
            dense = np.zeros(variable.shape, variable.dtype.as_numpy_dtype)
            dense[gradient.indices._value] = gradient.values._value
            gradient = Tensor(dense)
        lr = Tensor(np.asarray(context["hyper"]["learning_rate"], variable.dtype.as_numpy_dtype))
        self.update_step(gradient, variable, lr)


def _write(variable, value, dense: str, sparse: str) -> None:
    if isinstance(value, IndexedSlices):
        getattr(variable, sparse)(value)
    else:
        getattr(variable, dense)(_cast(value, variable))


def _cast(value, variable):
    if isinstance(value, (Tensor, Variable)):
        if value.dtype != variable.dtype:
            return Tensor(np.asarray(value._value, variable.dtype.as_numpy_dtype))
        return value
    return np.asarray(to_array(value), variable.dtype.as_numpy_dtype)


def _is_keras3_style(cls) -> bool:
    return "update_step" in vars(cls)


register_subclass_style(_is_keras3_style, KerasOptimizer)
