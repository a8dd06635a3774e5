"""TF 2.x ``OptimizerV2`` subclassing, as an adapter onto descend's optimizer contract.

Code written for ``tf.keras.optimizers.Optimizer`` (TF 2.0-2.10) or
``tf.keras.optimizers.legacy.Optimizer`` (TF 2.11+) runs with its imports
changed: it overrides ``_create_slots``, ``_prepare_local``,
``_resource_apply_dense`` and ``_resource_apply_sparse`` and updates the
variables itself. Everything around those hooks -- validation, gradient
accumulation, clipping, the non-finite policy, de-duplication of sparse rows,
``iterations`` -- is the base class's pipeline, so it keeps the plan-then-commit
guarantee: a bad gradient or hyperparameter changes nothing.

A direct subclass of :class:`descend.optimizers.Optimizer` that defines one of
TF 2's hooks gets this class as its base automatically.

Example:
    >>> import descend as ds
    >>> class PlainSGD(ds.optimizers.legacy.Optimizer):
    ...     def __init__(self, learning_rate=0.1, name="PlainSGD", **kwargs):
    ...         super().__init__(name, **kwargs)
    ...         self._set_hyper("learning_rate", learning_rate)
    ...     def _resource_apply_dense(self, grad, var, apply_state=None):
    ...         var.assign_sub(grad * self._decayed_lr(var.dtype.base_dtype), use_locking=self._use_locking)
    >>> w = ds.Variable([1.0], name="w")
    >>> _ = PlainSGD(0.5).apply_gradients([(ds.constant([1.0]), w)])
    >>> w.numpy()
    array([0.5], dtype=float32)
"""

from __future__ import annotations

import inspect

import numpy as np

from .. import backend
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from .base import Optimizer, register_subclass_style

__all__ = ["Optimizer", "OptimizerV2"]

_HOOKS = ("_create_slots", "_resource_apply_dense", "_resource_apply_sparse", "_resource_apply_sparse_duplicate_indices",
          "_prepare_local")


class OptimizerV2(Optimizer):
    """TF 2's ``OptimizerV2`` API over descend's pipeline.

    Args:
        name: the optimizer's name.
        gradient_aggregator, gradient_transformers: accepted for TF 2 compatibility; gradients are summed
            by the tape and transformed by the pipeline's clipping stage.
        **kwargs: ``clipnorm``, ``clipvalue``, ``global_clipnorm``, ``decay`` (inverse-time decay of the
            learning rate, TF 2's ``lr / (1 + decay * iterations)``), ``lr``/``learning_rate``, and the
            :class:`~descend.optimizers.Optimizer` arguments.
    """

    rule_kind = "custom"

    def __init__(self, name="Optimizer", gradient_aggregator=None, gradient_transformers=None, **kwargs):
        decay = kwargs.pop("decay", 0.0)
        if isinstance(decay, bool) or not isinstance(decay, (int, float, np.integer, np.floating)) or not (
                np.isfinite(decay) and decay >= 0):
            raise ValueError(f"decay must be a non-negative finite number. Received: decay={decay!r}")
        learning_rate = kwargs.pop("learning_rate", kwargs.pop("lr", None))
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self._initial_decay = float(decay)
        self._use_locking = True
        self._apply_hook_args: dict = {}

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

    def get_config(self) -> dict:
        config = super().get_config()
        if self._initial_decay:
            config["decay"] = self._initial_decay
        return config

    # -- slots ------------------------------------------------------------------------------------
    def _create_slots(self, var_list):
        """Override to create slots with :meth:`add_slot`."""

    def create_slots(self, var_list):
        self._create_slots(var_list)

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
        return self._call_hook(self._resource_apply_sparse, grad, handle, indices, **kwargs)

    def _resource_scatter_add(self, x, i, v):
        x.scatter_add(IndexedSlices(v, i, x.shape))
        return x.value()

    def _resource_scatter_update(self, x, i, v):
        x.scatter_update(IndexedSlices(v, i, x.shape))
        return x.value()

    def _call_hook(self, hook, *args, apply_state=None):
        takes = self._apply_hook_args.get(hook.__name__)
        if takes is None:
            try:
                params = inspect.signature(hook).parameters
                takes = "apply_state" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
            except (TypeError, ValueError):
                takes = False
            self._apply_hook_args[hook.__name__] = takes
        return hook(*args, apply_state=apply_state) if takes else hook(*args)

    def update_variable(self, gradient, variable, context):
        key = ("/cpu:0", variable.dtype.base_dtype if hasattr(variable.dtype, "base_dtype") else variable.dtype)
        states = context.setdefault("apply_state", {})
        if key not in states:
            states[key] = {}
            self._prepare_local(key[0], key[1], states)
        if isinstance(gradient, IndexedSlices):
            self._call_hook(self._resource_apply_sparse_duplicate_indices, gradient.values, variable,
                            gradient.indices, apply_state=states)
        else:
            self._call_hook(self._resource_apply_dense, gradient, variable, apply_state=states)


def _is_tf2_style(cls) -> bool:
    return any(h in vars(cls) for h in _HOOKS)


register_subclass_style(_is_tf2_style, OptimizerV2)

Optimizer = OptimizerV2
