"""Adadelta, Keras 3 convention.

Follows ``keras/src/optimizers/adadelta.py`` (Zeiler, 2012), with Keras'
learning rate scaling the step (1.0 gives the paper's form)::

    E[g^2] <- rho * E[g^2] + (1 - rho) * g^2
    delta <- -sqrt(E[dx^2] + epsilon) * g / sqrt(E[g^2] + epsilon)   (old E[dx^2])
    E[dx^2] <- rho * E[dx^2] + (1 - rho) * delta^2
    param <- param + lr * delta
"""

from __future__ import annotations

import numpy as np

from .exact_lazy import REPLAY, decay_products, per_row, suffix_products
from .optimizer import Optimizer
from .rule import Slot

__all__ = ["Adadelta", "adadelta_catch_up", "adadelta_update"]


def adadelta_update(param, grad, accumulated_grad, accumulated_delta_var, *, learning_rate, rho, epsilon):
    # E[g^2] <- rho E[g^2] + (1 - rho) g^2
    accumulated_grad = rho * accumulated_grad + (1 - rho) * (grad * grad)
    # delta <- -sqrt(E[dx^2] + eps) g / sqrt(E[g^2] + eps)
    delta = -((np.sqrt(accumulated_delta_var + epsilon) * grad) / np.sqrt(accumulated_grad + epsilon))
    # E[dx^2] <- rho E[dx^2] + (1 - rho) delta^2 ; param <- param + lr delta
    accumulated_delta_var = rho * accumulated_delta_var + (1 - rho) * (delta * delta)
    return param + learning_rate * delta, accumulated_grad, accumulated_delta_var


def adadelta_catch_up(param, accumulated_grad, accumulated_delta_var, *, steps, first):
    # a zero gradient gives delta = 0: param only decays; both averages scale by prod_j rho_j
    r = suffix_products([s["rho"] for s in steps])
    return (param * per_row(decay_products(steps), first, param), accumulated_grad * per_row(r, first, param),
            accumulated_delta_var * per_row(r, first, param))


class Adadelta(Optimizer):
    """Adadelta: step sizes from running averages of squared gradients and squared updates.

    ``E[g^2] <- rho E[g^2] + (1-rho) g^2``,
    ``delta = -sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps) * g``,
    ``E[dx^2] <- rho E[dx^2] + (1-rho) delta^2``, ``var <- var + lr * delta``
    (Keras 3). Slots ``accumulated_grad`` and ``accumulated_delta_var`` start
    at zeros.

    Sparse updates default to ``"exact"``, as Keras 3: a zero gradient leaves
    the variable unchanged but decays both running averages, so the averages
    of rows outside the gradient decay too. ``sparse_updates="lazy"`` updates
    only the gradient's rows and their averages (TF's ``SparseApplyAdadelta``);
    its cost does not grow with the table.

    Args:
        learning_rate: default 0.001 (the paper's form uses 1.0).
        rho: in [0, 1], the decay rate of both averages; default 0.95.
        epsilon: >= 0, added under both square roots; default 1e-7.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.Adadelta(learning_rate=1.0, rho=0.0, epsilon=1.0)
        >>> _ = opt.apply_gradients([(ds.constant([3.0]), w)])
        >>> w.numpy()
        array([0.05131674], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("rho", rho, low=0, high=1)
        self.add_hyperparameter("epsilon", epsilon, low=0)

    @property
    def slots(self):
        return (Slot("accumulated_grad", nonnegative=True), Slot("accumulated_delta_var", nonnegative=True))

    update = staticmethod(adadelta_update)

    @property
    def catch_up(self):
        # sparse_updates="exact_lazy": closed form; with epsilon = 0 a zero gradient can give 0/0 (NaN) in the
        # exact run, which only a replay reproduces
        return REPLAY if self.hyperparameters()["epsilon"] == 0.0 else adadelta_catch_up

    def coefficients(self, step, hyper, dtype):
        # Keras casts the learning rate to the variable dtype; the other scalars stay Python floats
        return {"learning_rate": dtype.type(hyper["learning_rate"]), "rho": hyper["rho"], "epsilon": hyper["epsilon"]}
