"""Adagrad, Keras 3 convention.

Follows ``keras/src/optimizers/adagrad.py`` (Duchi et al., 2011); epsilon is
added to the accumulator inside the square root::

    acc <- acc + g^2                          (acc starts at initial_accumulator_value)
    param <- param - lr * g / sqrt(acc + epsilon)
"""

from __future__ import annotations

import math

import numpy as np

from .exact_lazy import decay_products, per_row
from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["Adagrad", "adagrad_catch_up", "adagrad_update"]


def adagrad_update(param, grad, accumulator, *, learning_rate, epsilon):
    # acc <- acc + g^2 ; param <- param - lr g / sqrt(acc + eps)
    accumulator = accumulator + grad * grad
    return param - (learning_rate * grad) / np.sqrt(accumulator + epsilon), accumulator


def adagrad_catch_up(param, accumulator, *, steps, first):
    # a zero gradient changes neither: only the decoupled decay, param <- param * prod_j (1 - d_j)
    return param * per_row(decay_products(steps), first, param), accumulator


def _check_constant(name: str, value, *, low, low_open: bool = False) -> float:
    """Validate a number that is a constructor argument but not a hyperparameter."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"`{name}` must be a number. Received: {name}={value!r}")
    value = float(value)
    if not math.isfinite(value):
        raise ValueError(f"`{name}` must be a finite number. Received: {name}={value!r}")
    if value < low or (low_open and value == low):
        raise ValueError(f"`{name}` must be in {'(' if low_open else '['}{low}, inf). Received: {name}={value!r}")
    return value


class Adagrad(Optimizer):
    """Adagrad: per-coordinate step sizes that shrink with the sum of squared gradients.

    ``acc <- acc + g^2``, ``var <- var - lr * g / sqrt(acc + epsilon)``, with
    ``acc`` (slot ``accumulator``) starting at ``initial_accumulator_value``.
    Follows Keras 3's ``Adagrad`` (epsilon inside the square root).

    A zero gradient changes neither the variable nor the accumulator, so a
    sparse update touches only the gradient's rows and ``"exact"`` (the
    default) and ``"lazy"`` give the same result (TF's ``SparseApplyAdagrad``).

    Args:
        learning_rate: default 0.001 (the original paper's form uses 1.0).
        initial_accumulator_value: starting value of the accumulators,
            >= 0; default 0.1.
        epsilon: >= 0, added to the accumulator under the square root;
            default 1e-7.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=0.0, epsilon=0.0)
        >>> _ = opt.apply_gradients([(ds.constant([2.0]), w)])
        >>> w.numpy()
        array([0.9], dtype=float32)
    """


    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.initial_accumulator_value = _check_constant("initial_accumulator_value", initial_accumulator_value,
                                                         low=0)
        self.add_hyperparameter("epsilon", epsilon, low=0)

    @property
    def slots(self):
        return (Slot("accumulator", self.initial_accumulator_value, nonnegative=True),)

    update = Rule(adagrad_update, zero_grad_is_identity=True)
    #: sparse_updates="exact_lazy": nothing to catch up but the weight decay (closed form)
    catch_up = staticmethod(adagrad_catch_up)

    def coefficients(self, step, hyper, dtype):
        # Keras casts the learning rate to the variable dtype; the other scalars stay Python floats
        return {"learning_rate": dtype.type(hyper["learning_rate"]), "epsilon": hyper["epsilon"]}

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value}
