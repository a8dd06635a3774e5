"""Adadelta: Keras 3's, and TF 1's, PyTorch's and optax's conventions.

Follows ``keras/src/optimizers/adadelta.py`` (Zeiler, 2012), with Keras'
learning rate scaling the step (1.0 gives the paper's form)::

    E[g^2] <- rho * E[g^2] + (1 - rho) * g^2
    delta <- -sqrt(E[dx^2] + epsilon) * g / sqrt(E[g^2] + epsilon)   (old E[dx^2])
    E[dx^2] <- rho * E[dx^2] + (1 - rho) * delta^2
    param <- param + lr * delta

The other frameworks compute the same formula in their own order: ``convention="tf1"``
(``tf.compat.v1.train.AdadeltaOptimizer``: every scalar in the variable's dtype, slots ``accum`` and
``accum_update``, epsilon 1e-8, lazy sparse updates), ``"torch"`` (``torch.optim.Adadelta``: lr 1.0,
rho 0.9, epsilon 1e-6, ``weight_decay`` an L2 penalty) and ``"optax"`` (``optax.adadelta``: rho 0.9,
epsilon 1e-6, ``weight_decay`` an L2 penalty).
"""

from __future__ import annotations

import numpy as np

from .convention import Convention, Default
from .exact_lazy import REPLAY, decay_products, per_row, suffix_products
from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["Adadelta", "OptaxAdadelta", "TF1Adadelta", "TorchAdadelta", "adadelta_catch_up", "adadelta_update",
           "optax_adadelta_update", "tf1_adadelta_coefficients", "tf1_adadelta_update", "torch_adadelta_update"]


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


# ================================================================ TF 1 (tf.compat.v1.train.AdadeltaOptimizer)
def tf1_adadelta_update(param, grad, accum, accum_update, *, learning_rate, rho, one_minus_rho, epsilon):
    # accum <- accum rho + g^2 (1 - rho)
    accum = accum * rho + grad * grad * one_minus_rho
    # update = sqrt(accum_update + eps) * rsqrt(accum + eps) * g
    update = np.sqrt(accum_update + epsilon) * (1.0 / np.sqrt(accum + epsilon)) * grad
    # w <- w - update lr ; accum_update <- accum_update rho + update^2 (1 - rho)
    accum_update = accum_update * rho + update * update * one_minus_rho
    return param - update * learning_rate, accum, accum_update


def tf1_adadelta_coefficients(self, step, hyper, dtype):
    # TF 1's kernel ApplyAdadelta: every scalar in the variable's dtype
    t = dtype.type
    rho = t(hyper["rho"])
    return {"learning_rate": t(hyper["learning_rate"]), "rho": rho, "one_minus_rho": t(1) - rho,
            "epsilon": t(hyper["epsilon"])}


class TF1Adadelta(Convention):
    """``tf.compat.v1.train.AdadeltaOptimizer`` (``descend.compat.v1.train.AdadeltaOptimizer`` is
    :class:`Adadelta` under it)."""

    framework = "tf1"
    reference = "tf.compat.v1.train.AdadeltaOptimizer"
    defaults = {"epsilon": 1e-8}
    slots = (Slot("accum", nonnegative=True), Slot("accum_update", nonnegative=True))
    update = Rule(tf1_adadelta_update, sparse="lazy")  # TF 1's sparse kernel updates only the gradient's rows
    coefficients = tf1_adadelta_coefficients


# ================================================================ PyTorch (torch.optim.Adadelta)
def torch_adadelta_update(param, grad, square_avg, acc_delta, *, learning_rate, rho, epsilon):
    # E[g^2] <- E[g^2] rho + (1 - rho) g g ; delta = sqrt(E[dx^2] + eps) / sqrt(E[g^2] + eps) * g
    square_avg = square_avg * rho + (1 - rho) * grad * grad
    delta = np.sqrt(acc_delta + epsilon) / np.sqrt(square_avg + epsilon) * grad
    # E[dx^2] <- E[dx^2] rho + (1 - rho) delta delta ; param <- param - lr delta
    acc_delta = acc_delta * rho + (1 - rho) * delta * delta
    return param - learning_rate * delta, square_avg, acc_delta


class TorchAdadelta(Convention):
    """``torch.optim.Adadelta``."""

    framework = "torch"
    reference = "torch.optim.Adadelta"
    defaults = {"learning_rate": 1.0, "rho": 0.9, "epsilon": 1e-6}
    weight_decay = "l2"
    update = staticmethod(torch_adadelta_update)
    catch_up = REPLAY

    def coefficients(self, step, hyper, dtype):
        # Python floats, cast by each operation (1 - rho computed in float64 first), as PyTorch
        return {"learning_rate": hyper["learning_rate"], "rho": hyper["rho"], "epsilon": hyper["epsilon"]}


# ================================================================ optax (optax.adadelta)
def optax_adadelta_update(param, grad, e_g, e_x, *, neg_learning_rate, rho, epsilon):
    # e_g <- (1 - rho) g^2 + rho e_g ; u = sqrt(e_x + eps) / sqrt(e_g + eps) * g
    e_g = (1 - rho) * (grad * grad) + rho * e_g
    update = np.sqrt(e_x + epsilon) / np.sqrt(e_g + epsilon) * grad
    # e_x <- (1 - rho) u^2 + rho e_x ; param <- param + (-lr) u
    e_x = (1 - rho) * (update * update) + rho * e_x
    return param + neg_learning_rate * update, e_g, e_x


class OptaxAdadelta(Convention):
    """``optax.adadelta`` (its ``weight_decay``, ``add_decayed_weights`` before the scaling, is an L2
    penalty)."""

    framework = "optax"
    reference = "optax.adadelta"
    defaults = {"rho": 0.9, "epsilon": 1e-6}
    weight_decay = "l2"
    update = staticmethod(optax_adadelta_update)
    catch_up = REPLAY

    def coefficients(self, step, hyper, dtype):
        return {"neg_learning_rate": dtype.type(-hyper["learning_rate"]), "rho": hyper["rho"],
                "epsilon": hyper["epsilon"]}


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

    ``convention="tf1"``, ``"torch"`` or ``"optax"`` computes TF 1's, PyTorch's
    or optax's Adadelta instead (module docstring).

    Args:
        learning_rate: default 0.001 (the paper's form uses 1.0; 1.0 under ``"torch"``).
        rho: in [0, 1], the decay rate of both averages; default 0.95 (0.9 under ``"torch"`` and
            ``"optax"``).
        epsilon: >= 0, added under both square roots; default 1e-7 (1e-8 under ``"tf1"``, 1e-6 under
            ``"torch"`` and ``"optax"``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.Adadelta(learning_rate=1.0, rho=0.0, epsilon=1.0)
        >>> _ = opt.apply_gradients([(ds.constant([3.0]), w)])
        >>> w.numpy()
        array([0.05131674], dtype=float32)
    """

    #: the other frameworks' Adadelta (the class itself is Keras 3's)
    conventions = {"tf1": TF1Adadelta, "torch": TorchAdadelta, "optax": OptaxAdadelta}

    def __init__(self, learning_rate=Default(0.001), rho=Default(0.95), epsilon=Default(1e-7), **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("rho", self.conventional("rho", rho), low=0, high=1)
        self.add_hyperparameter("epsilon", self.conventional("epsilon", epsilon), low=0)

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
