"""Adagrad: Keras 3's, and TF 1's, PyTorch's and optax's conventions.

Keras 3 (``keras/src/optimizers/adagrad.py``, Duchi et al., 2011, the default); epsilon is
added to the accumulator inside the square root::

    acc <- acc + g^2                          (acc starts at initial_accumulator_value)
    param <- param - lr * g / sqrt(acc + epsilon)

``convention="tf1"`` (``tf.compat.v1.train.AdagradOptimizer``): no epsilon, every scalar in the
variable's dtype. ``convention="torch"`` (``torch.optim.Adagrad``): epsilon outside the root and a
decaying learning rate, ``param <- param - lr / (1 + (t - 1) * lr_decay) * g / (sqrt(acc) + epsilon)``;
lr 0.01, acc from 0, epsilon 1e-10, ``weight_decay`` an L2 penalty. ``convention="optax"``
(``optax.adagrad``): Keras 3's formula, but an element whose accumulator is 0 does not move
(``g * rsqrt(acc + eps)`` where ``acc > 0``, else 0).
"""

from __future__ import annotations

import math

import numpy as np

from .convention import Convention, Default
from .exact_lazy import decay_products, per_row
from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["Adagrad", "OptaxAdagrad", "TF1Adagrad", "TorchAdagrad", "adagrad_catch_up", "adagrad_update",
           "optax_adagrad_update", "torch_adagrad_update"]


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


class TF1Adagrad(Convention):
    """``tf.compat.v1.train.AdagradOptimizer`` (``descend.compat.v1.train.AdagradOptimizer`` is this): no
    epsilon, every scalar in the variable's dtype."""

    framework = "tf1"
    reference = "tf.compat.v1.train.AdagradOptimizer"
    lacks = ("epsilon",)

    def coefficients(self, step, hyper, dtype):
        return {"learning_rate": dtype.type(hyper["learning_rate"]), "epsilon": dtype.type(0)}


def torch_adagrad_update(param, grad, accumulator, *, neg_learning_rate, epsilon):
    # acc <- acc + g g ; param <- param - lr_t g / (sqrt(acc) + eps), lr_t = lr / (1 + (t - 1) lr_decay)
    accumulator = accumulator + grad * grad
    return param + neg_learning_rate * (grad / (np.sqrt(accumulator) + epsilon)), accumulator


class TorchAdagrad(Convention):
    """``torch.optim.Adagrad`` (its sparse path: the gradient's rows, duplicates summed first, as descend)."""

    framework = "torch"
    reference = "torch.optim.Adagrad"
    defaults = {"learning_rate": 0.01, "initial_accumulator_value": 0.0, "epsilon": 1e-10, "lr_decay": 0.0}
    accepts = ("lr_decay",)
    weight_decay = "l2"
    update = Rule(torch_adagrad_update, zero_grad_is_identity=True)

    def coefficients(self, step, hyper, dtype):
        # clr = lr / (1 + (t - 1) lr_decay) in Python floats, t = iterations + 1
        clr = hyper["learning_rate"] / (1 + step * hyper["lr_decay"])
        return {"neg_learning_rate": dtype.type(-clr), "epsilon": hyper["epsilon"]}


def optax_adagrad_update(param, grad, accumulator, *, neg_learning_rate, epsilon):
    # acc <- g^2 + acc ; param <- param - lr g rsqrt(acc + eps) where acc > 0 (else the element stays)
    accumulator = grad * grad + accumulator
    scale = np.where(accumulator > 0, 1 / np.sqrt(accumulator + epsilon), 0.0)
    return param + neg_learning_rate * (scale * grad), accumulator


class OptaxAdagrad(Convention):
    """``optax.adagrad`` (the same defaults as Keras 3's)."""

    framework = "optax"
    reference = "optax.adagrad"
    lacks = ("weight_decay",)
    update = Rule(optax_adagrad_update, zero_grad_is_identity=True)

    def coefficients(self, step, hyper, dtype):
        return {"neg_learning_rate": dtype.type(-hyper["learning_rate"]), "epsilon": hyper["epsilon"]}


class Adagrad(Optimizer):
    """Adagrad: per-coordinate step sizes that shrink with the sum of squared gradients.

    ``acc <- acc + g^2``, ``var <- var - lr * g / sqrt(acc + epsilon)``, with
    ``acc`` (slot ``accumulator``) starting at ``initial_accumulator_value``.
    Follows Keras 3's ``Adagrad`` (epsilon inside the square root).

    A zero gradient changes neither the variable nor the accumulator, so a
    sparse update touches only the gradient's rows and ``"exact"`` (the
    default) and ``"lazy"`` give the same result (TF's ``SparseApplyAdagrad``).

    ``convention="tf1"``, ``"torch"`` or ``"optax"`` computes TF 1's, PyTorch's
    or optax's Adagrad instead (module docstring).

    Args:
        learning_rate: default 0.001 (the original paper's form uses 1.0; 0.01 under ``"torch"``).
        initial_accumulator_value: starting value of the accumulators,
            >= 0; default 0.1 (0 under ``"torch"``).
        epsilon: >= 0, added to the accumulator under the square root;
            default 1e-7 (1e-10 under ``"torch"``; none under ``"tf1"``).
        lr_decay: PyTorch only: >= 0, the learning rate's decay ``lr / (1 + (t - 1) * lr_decay)``
            (default 0).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.Adagrad(learning_rate=0.1, initial_accumulator_value=0.0, epsilon=0.0)
        >>> _ = opt.apply_gradients([(ds.constant([2.0]), w)])
        >>> w.numpy()
        array([0.9], dtype=float32)
    """


    #: the other frameworks' Adagrad (the class itself is Keras 3's)
    conventions = {"tf1": TF1Adagrad, "torch": TorchAdagrad, "optax": OptaxAdagrad}

    def __init__(self, learning_rate=Default(0.001), initial_accumulator_value=Default(0.1), epsilon=Default(1e-7),
                 lr_decay=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.initial_accumulator_value = _check_constant(
            "initial_accumulator_value", self.conventional("initial_accumulator_value", initial_accumulator_value),
            low=0)
        for name, value in (("epsilon", epsilon), ("lr_decay", lr_decay)):
            value = self.conventional(name, value)
            if value is not None:
                self.add_hyperparameter(name, value, low=0)

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
