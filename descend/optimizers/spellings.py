"""The two other ways of writing an optimizer -- Keras 3's ``update_step`` and TF 2's ``OptimizerV2``
hooks -- as rules of descend's pipeline.

Code written for either runs with its imports changed: a subclass of ``descend.optimizers.Optimizer``
(which is also ``keras.optimizers.Optimizer`` and ``tf.keras.optimizers.Optimizer`` under descend)
that defines ``update_step`` gets :class:`KerasRule` as its rule, one that defines TF 2's hooks
(``_create_slots``, ``_prepare_local``, ``_resource_apply_dense``, ``_resource_apply_sparse``) gets
:class:`TF2Rule`. The hooks update the variables themselves; everything around them -- validation,
gradient accumulation, clipping, the non-finite policy, de-duplication of sparse rows, weight decay,
``iterations`` -- is the pipeline, so a bad gradient or hyperparameter still changes nothing. Every
optimizer has what those hooks call on ``self`` (:class:`KerasSpelling`, :class:`TF2Spelling`).

Keras 3 (sparse gradients reach ``update_step`` densified, as Keras 3's ``IndexedSlices`` handling gives):

    >>> import descend as ds
    >>> class PlainSGD(ds.optimizers.Optimizer):
    ...     def update_step(self, gradient, variable, learning_rate):
    ...         self.assign_sub(variable, gradient * learning_rate)
    >>> w = ds.Variable([1.0], name="w")
    >>> _ = PlainSGD(learning_rate=0.5).apply_gradients([(ds.constant([1.0]), w)])
    >>> w.numpy()
    array([0.5], dtype=float32)

TF 2 (``descend.optimizers.legacy.Optimizer`` takes TF 2's constructor arguments):

    >>> class TF2SGD(ds.optimizers.legacy.Optimizer):
    ...     def __init__(self, learning_rate=0.1, name="TF2SGD", **kwargs):
    ...         super().__init__(name, **kwargs)
    ...         self._set_hyper("learning_rate", learning_rate)
    ...     def _resource_apply_dense(self, grad, var, apply_state=None):
    ...         var.assign_sub(grad * self._decayed_lr(var.dtype.base_dtype), use_locking=self._use_locking)
    >>> w = ds.Variable([1.0], name="w")
    >>> _ = TF2SGD(0.5).apply_gradients([(ds.constant([1.0]), w)])
    >>> w.numpy()
    array([0.5], dtype=float32)
"""

from __future__ import annotations

import inspect

import numpy as np

from .. import backend
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor, to_array
from ..framework.variable import Variable
from .rule import HookRule, initial_value

__all__ = ["KerasRule", "KerasSpelling", "TF2Rule", "TF2Spelling", "TF2_HOOKS"]


class KerasSpelling:
    """What a Keras 3 ``update_step`` subclass calls on ``self`` (part of every descend optimizer)."""

    def build_index(self, variables) -> None:
        """Keras 3's ``build``: remember the variables' order (``_get_variable_index``); mark the optimizer
        built. A subclass's ``build`` calls ``super().build(variables)`` first."""
        variables = list(variables)
        self.__dict__["_variable_index"] = {id(v): i for i, v in enumerate(variables)}
        self.built = True

    def _get_variable_index(self, variable) -> int:
        try:
            return self.__dict__.get("_variable_index", {})[id(variable)]
        except KeyError:
            raise KeyError(f"variable '{variable.scoped_name}' is not one this optimizer was built for") from None

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


class KerasRule(HookRule):
    """The rule of a Keras 3 subclass: ``build`` once, then ``update_step`` per variable."""

    def create(self, var_list):
        opt = self.optimizer
        if not opt.built:
            opt.build(var_list)
            return
        index = opt.__dict__.get("_variable_index", {})
        unknown = [v.name for v in var_list if id(v) not in index]
        if unknown:
            raise ValueError(f"{type(opt).__name__} was built for other variables; it cannot update {unknown}")

    def update(self, gradient, variable, context):
        if isinstance(gradient, IndexedSlices):
            dense = np.zeros(variable.shape, variable.dtype.as_numpy_dtype)
            dense[gradient.indices._value] = gradient.values._value
            gradient = Tensor(dense)
        lr = Tensor(np.asarray(context["hyper"]["learning_rate"], variable.dtype.as_numpy_dtype))
        self.optimizer.update_step(gradient, variable, lr)


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


#: the hooks whose definition makes a class a TF 2 style optimizer
TF2_HOOKS = ("_create_slots", "_resource_apply_dense", "_resource_apply_sparse",
             "_resource_apply_sparse_duplicate_indices", "_prepare_local")


class TF2Spelling:
    """What a TF 2 ``OptimizerV2`` subclass calls on ``self`` (part of every descend optimizer)."""

    _use_locking = True
    _initial_decay = 0.0

    def _set_initial_decay(self, decay) -> None:
        if isinstance(decay, bool) or not isinstance(decay, (int, float, np.integer, np.floating)) or not (
                np.isfinite(decay) and decay >= 0):
            raise ValueError(f"decay must be a non-negative finite number. Received: decay={decay!r}")
        if decay:
            self._initial_decay = float(decay)

    # -- hyperparameters, TF 2's spelling ------------------------------------------------------
    def _set_hyper(self, name, value):
        self.set_hyperparameter(name, value)

    def _get_hyper(self, name, dtype=None) -> Tensor:
        value = self.get_hyper(name)
        return Tensor(np.asarray(value, backend.floatx() if dtype is None else backend.np_dtype(dtype)))

    def _decayed_lr(self, var_dtype) -> Tensor:
        """The learning rate at this step as a Tensor of ``var_dtype`` (with TF 2's ``decay``)."""
        lr = self.get_hyper("learning_rate")
        t = np.dtype(backend.np_dtype(var_dtype)).type
        value = t(lr)
        if self._initial_decay > 0:
            value = value / (t(1) + t(self._initial_decay) * t(int(self.iterations.numpy())))
        return Tensor(np.asarray(value))

    def _serialize_hyperparameter(self, name):
        return self.serialize_hyperparameter(name)

    # -- slots ------------------------------------------------------------------------------------
    def _create_slots(self, var_list):
        """Override to create slots with ``add_slot``."""

    def _prepare_local(self, var_device, var_dtype, apply_state):
        """Override to add per-dtype coefficients to ``apply_state[(var_device, var_dtype)]``."""
        apply_state[(var_device, var_dtype)]["lr_t"] = self._decayed_lr(var_dtype)

    def _fallback_apply_state(self, var_device, var_dtype):
        state = {(var_device, var_dtype): {}}
        self._prepare_local(var_device, var_dtype, state)
        return state[(var_device, var_dtype)]

    # -- the update ---------------------------------------------------------------------------------
    def _resource_apply_dense(self, grad, handle, apply_state=None):
        raise NotImplementedError(f"{type(self).__name__} must override _resource_apply_dense")

    def _resource_apply_sparse(self, grad, handle, indices, apply_state=None):
        raise NotImplementedError(f"{type(self).__name__} must override _resource_apply_sparse for sparse gradients")

    def _resource_apply_sparse_duplicate_indices(self, grad, handle, indices, **kwargs):
        # the pipeline has already summed repeated rows: indices are unique
        return _call_hook(self, self._resource_apply_sparse, grad, handle, indices, **kwargs)

    def _resource_scatter_add(self, x, i, v):
        x.scatter_add(IndexedSlices(v, i, x.shape))
        return x.value()

    def _resource_scatter_update(self, x, i, v):
        x.scatter_update(IndexedSlices(v, i, x.shape))
        return x.value()


def _call_hook(opt, hook, *args, apply_state=None):
    cache = opt.__dict__.setdefault("_hook_takes_apply_state", {})
    takes = cache.get(hook.__name__)
    if takes is None:
        try:
            params = inspect.signature(hook).parameters
            takes = "apply_state" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
        except (TypeError, ValueError):
            takes = False
        cache[hook.__name__] = takes
    return hook(*args, apply_state=apply_state) if takes else hook(*args)


class TF2Rule(HookRule):
    """The rule of a TF 2 subclass: ``_create_slots`` once per new variable, then ``_prepare_local`` per
    dtype and ``_resource_apply_dense``/``_resource_apply_sparse_duplicate_indices`` per variable."""

    def create(self, var_list):
        self.optimizer._create_slots(var_list)

    def update(self, gradient, variable, context):
        opt = self.optimizer
        key = ("/cpu:0", variable.dtype.base_dtype if hasattr(variable.dtype, "base_dtype") else variable.dtype)
        states = context.setdefault("apply_state", {})
        if key not in states:
            states[key] = {}
            opt._prepare_local(key[0], key[1], states)
        if isinstance(gradient, IndexedSlices):
            _call_hook(opt, opt._resource_apply_sparse_duplicate_indices, gradient.values, variable,
                       gradient.indices, apply_state=states)
        else:
            _call_hook(opt, opt._resource_apply_dense, gradient, variable, apply_state=states)
