"""TF 1's ``tf.compat.v1.train.ProximalAdagradOptimizer`` (kernel ``ApplyProximalAdagrad``).

Slot ``accumulator`` starts at ``initial_accumulator_value``; every scalar in the variable's dtype::

    accumulator <- accumulator + g^2
    a = lr * rsqrt(accumulator)
    prox = w - g * a
    w <- sign(prox) * max(|prox| - a * l1, 0) / (1 + l2 * a)

Sparse updates are lazy, as ``SparseApplyProximalAdagrad``.
"""

from __future__ import annotations

import math

import numpy as np

from ...optimizers.rule import NUMBERS, Rule, Slot
from .optimizer import Optimizer

__all__ = ["ProximalAdagradOptimizer", "proximal_adagrad_update"]


def proximal_adagrad_update(param, grad, accumulator, *, learning_rate, l1, l2):
    # acc <- acc + g^2 ; a = lr rsqrt(acc)
    accumulator = accumulator + grad * grad
    rate = learning_rate * (1.0 / np.sqrt(accumulator))
    # prox = w - g a ; w <- sign(prox) max(|prox| - a l1, 0) / (1 + l2 a)
    prox = param - grad * rate
    return np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0.0) / (1.0 + l2 * rate), accumulator


class ProximalAdagradOptimizer(Optimizer):
    """TF 1's proximal Adagrad (FOBOS with Adagrad rates): an Adagrad step, then L1/L2 proximal shrinkage.

    Args:
        learning_rate: >= 0.
        initial_accumulator_value: > 0 (default 0.1).
        l1_regularization_strength, l2_regularization_strength: >= 0 (default 0).
        use_locking, name: as TF 1 (``name`` default ``"ProximalAdagrad"``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.compat.v1.train.ProximalAdagradOptimizer(0.5, initial_accumulator_value=3.0)
        >>> _ = opt.apply_gradients([(ds.constant([1.0]), w)])  # a = 0.5 / sqrt(4)
        >>> w.numpy()
        array([0.75], dtype=float32)
    """

    update = Rule(proximal_adagrad_update, sparse="lazy")  # TF 1's sparse kernel updates only the gradient's rows

    def __init__(self, learning_rate, initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, use_locking: bool = False, name: str = "ProximalAdagrad", **kwargs):
        v = initial_accumulator_value
        if isinstance(v, bool) or not isinstance(v, NUMBERS) or not math.isfinite(v) or v <= 0:
            raise ValueError(f"initial_accumulator_value must be positive: {v!r}")
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("l1_regularization_strength", l1_regularization_strength, low=0)
        self.add_hyperparameter("l2_regularization_strength", l2_regularization_strength, low=0)
        self.initial_accumulator_value = float(v)

    @property
    def slots(self):
        return (Slot("accumulator", self.initial_accumulator_value, nonnegative=True),)

    def coefficients(self, step, hyper, dtype):
        t = dtype.type
        return {"learning_rate": t(hyper["learning_rate"]), "l1": t(hyper["l1_regularization_strength"]),
                "l2": t(hyper["l2_regularization_strength"])}

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value}
