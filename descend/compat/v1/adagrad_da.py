"""TF 1's ``tf.compat.v1.train.AdagradDAOptimizer`` (kernel ``ApplyAdagradDA``): Adagrad dual averaging.

Slots ``gradient_accumulator`` (zeros) and ``gradient_squared_accumulator`` (starts at
``initial_gradient_squared_accumulator_value``). With ``T = global_step + 1`` (read when the
update is prepared), every scalar in the variable's dtype::

    g_acc <- g_acc + g ;  gg_acc <- gg_acc + g^2
    w <- -lr * sign(g_acc) * max(|g_acc| - l1 * T, 0) / (l2 * T * lr + sqrt(gg_acc))

The variable's new value depends only on the accumulators, not on its old value. Sparse
updates are lazy, as ``SparseApplyAdagradDA``.
"""

from __future__ import annotations

import math

import numpy as np

from ...framework.variable import Variable
from ...optimizers.rule import NUMBERS, Rule, Slot
from .optimizer import Optimizer

__all__ = ["AdagradDAOptimizer", "adagrad_da_update"]


def adagrad_da_update(param, grad, gradient_accumulator, gradient_squared_accumulator, *, neg_lr, l1_t, l2_t_lr):
    # g_acc <- g_acc + g ; gg_acc <- gg_acc + g^2
    g_acc = gradient_accumulator + grad
    gg_acc = gradient_squared_accumulator + grad * grad
    # w <- -lr sign(g_acc) max(|g_acc| - l1 T, 0) / (l2 T lr + sqrt(gg_acc))
    new = neg_lr * np.sign(g_acc) * np.maximum(np.abs(g_acc) - l1_t, 0.0) / (l2_t_lr + np.sqrt(gg_acc))
    return new, g_acc, gg_acc


class AdagradDAOptimizer(Optimizer):
    """TF 1's Adagrad dual averaging (Duchi et al., 2011), for sparse linear models with L1/L2.

    Args:
        learning_rate: >= 0.
        global_step: the integer step Variable the training loop advances (``apply_gradients(...,
            global_step=...)``); ``T = global_step + 1``. None (a descend extension): ``iterations`` is used.
        initial_gradient_squared_accumulator_value: > 0 (default 0.1).
        l1_regularization_strength, l2_regularization_strength: >= 0 (default 0).
        use_locking, name: as TF 1 (``name`` default ``"AdagradDA"``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> step = ds.Variable(0, dtype="int64", name="global_step", trainable=False)
        >>> opt = ds.compat.v1.train.AdagradDAOptimizer(0.5, step, initial_gradient_squared_accumulator_value=3.0)
        >>> _ = opt.apply_gradients([(ds.constant([1.0]), w)], global_step=step)  # -0.5 * 1 / sqrt(4)
        >>> w.numpy(), int(step)
        (array([-0.25], dtype=float32), 1)
    """

    update = Rule(adagrad_da_update, sparse="lazy")  # TF 1's sparse kernel updates only the gradient's rows

    def __init__(self, learning_rate, global_step=None, initial_gradient_squared_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking: bool = False,
                 name: str = "AdagradDA", **kwargs):
        v = initial_gradient_squared_accumulator_value
        if isinstance(v, bool) or not isinstance(v, NUMBERS) or not math.isfinite(v) or v <= 0:
            raise ValueError(f"initial_gradient_squared_accumulator_value must be positive: {v!r}")
        if global_step is not None and not isinstance(global_step, Variable):
            raise TypeError(f"`global_step` must be a Variable or None. Received: {type(global_step).__name__}")
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("l1_regularization_strength", l1_regularization_strength, low=0)
        self.add_hyperparameter("l2_regularization_strength", l2_regularization_strength, low=0)
        self.initial_gradient_squared_accumulator_value = float(v)
        self.global_step = global_step

    @property
    def slots(self):
        return (Slot("gradient_accumulator"),
                Slot("gradient_squared_accumulator", self.initial_gradient_squared_accumulator_value,
                     nonnegative=True))

    def coefficients(self, step, hyper, dtype):
        t = dtype.type
        gs = int(self.global_step.numpy()) if self.global_step is not None else step
        big_t = t(gs + 1)
        lr = t(hyper["learning_rate"])
        return {"neg_lr": lr * t(-1.0), "l1_t": t(hyper["l1_regularization_strength"]) * big_t,
                "l2_t_lr": t(hyper["l2_regularization_strength"]) * big_t * lr}

    def get_config(self):
        config = super().get_config()
        config["initial_gradient_squared_accumulator_value"] = self.initial_gradient_squared_accumulator_value
        return config
