"""FTRL-Proximal ("Follow The Regularized Leader"), Keras 3 convention.

Follows ``keras/src/optimizers/ftrl.py`` (McMahan et al., 2013, "Ad Click
Prediction: a View from the Trenches"), which is TensorFlow's ``ApplyFtrlV2``
kernel. With ``p = -learning_rate_power`` (0.5 by default)::

    g_s = g + 2 * l2_shrinkage * param                (shrinkage-type L2)
    n_new = n + g^2                                   (the accumulator sees g, not g_s)
    z <- z + g_s - (n_new^p - n^p) / lr * param       (the "linear" slot)
    l2_eff = l2 + beta / (2 * lr)
    param <- (clip(z, -l1, l1) - z) / (n_new^p / lr + 2 * l2_eff)
    n <- n_new

``clip(z, -l1, l1) - z`` is ``-sign(z) * max(|z| - l1, 0)``: ``param`` is 0
wherever ``|z| <= l1`` (L1 sparsity).

``convention="tf1"`` (``tf.compat.v1.train.FtrlOptimizer``, kernels ``ApplyFtrl``/``ApplyFtrlV2``):
the same formula, every scalar in the variable's dtype (``2 * l2_shrinkage`` too), the new
``param`` written as ``(l1 * sign(z) - z) / ...`` where ``|z| > l1`` (else 0), ``sqrt`` (not a
power) when ``p == 0.5``, and the accumulator slot named ``accum``.
"""

from __future__ import annotations

import math

import numpy as np

from .convention import Convention
from .exact_lazy import REPLAY
from .optimizer import Optimizer
from .rule import NUMBERS, Rule, Slot

__all__ = ["Ftrl", "TF1Ftrl", "ftrl_update", "tf1_ftrl_sqrt_update", "tf1_ftrl_update"]


def ftrl_update(param, grad, accumulator, linear, *, learning_rate, power, l1, two_l2, two_l2_shrinkage):
    # g_s = g + 2 * l2_shrinkage * param ; n_new = n + g^2
    grad_shrunk = grad + param * two_l2_shrinkage
    new_accumulator = accumulator + grad * grad
    # z <- z + g_s - (n_new^p - n^p) / lr * param
    sigma = (np.power(new_accumulator, power) - np.power(accumulator, power)) / learning_rate
    linear = linear + (grad_shrunk - sigma * param)
    # param <- (clip(z, -l1, l1) - z) / (n_new^p / lr + 2 * l2_eff)
    quadratic = np.power(new_accumulator, power) / learning_rate + two_l2
    linear_clipped = np.minimum(np.maximum(linear, -l1), l1)
    return (linear_clipped - linear) / quadratic, new_accumulator, linear


# ================================================================ TF 1 (tf.compat.v1.train.FtrlOptimizer)
def tf1_ftrl_update(param, grad, accum, linear, *, learning_rate, power, l1, two_l2, two_l2_shrinkage):
    # n_new = n + g^2 ; z <- z + (g + 2 l2s w) - (n_new^p - n^p) / lr * w
    new_accum = accum + grad * grad
    sigma = (np.power(new_accum, power) - np.power(accum, power)) / learning_rate
    linear = linear + ((grad + two_l2_shrinkage * param) - sigma * param)
    # w <- (l1 sign(z) - z) / (n_new^p / lr + 2 l2) where |z| > l1, else 0
    quadratic = np.power(new_accum, power) / learning_rate + two_l2
    new = np.where(np.abs(linear) > l1, (l1 * np.sign(linear) - linear) / quadratic, 0.0)
    return new, new_accum, linear


def tf1_ftrl_sqrt_update(param, grad, accum, linear, *, learning_rate, power, l1, two_l2, two_l2_shrinkage):
    # the p == 0.5 case of tf1_ftrl_update, with sqrt as TF's kernel computes it
    new_accum = accum + grad * grad
    sigma = (np.sqrt(new_accum) - np.sqrt(accum)) / learning_rate
    linear = linear + ((grad + two_l2_shrinkage * param) - sigma * param)
    quadratic = np.sqrt(new_accum) / learning_rate + two_l2
    new = np.where(np.abs(linear) > l1, (l1 * np.sign(linear) - linear) / quadratic, 0.0)
    return new, new_accum, linear


#: TF's sparse FTRL kernels update only the gradient's rows
TF1_FTRL = Rule(tf1_ftrl_update, sparse="lazy")
TF1_FTRL_SQRT = Rule(tf1_ftrl_sqrt_update, sparse="lazy")


class TF1Ftrl(Convention):
    """``tf.compat.v1.train.FtrlOptimizer`` (``descend.compat.v1.train.FtrlOptimizer`` is :class:`Ftrl` under
    it)."""

    framework = "tf1"
    reference = "tf.compat.v1.train.FtrlOptimizer"

    @property
    def slots(self):
        return (Slot("accum", self.initial_accumulator_value, nonnegative=True), Slot("linear"))

    @property
    def update(self):
        # sqrt where the power is the constant 0.5 (a schedule of it takes the general form)
        return TF1_FTRL_SQRT if self.hyperparameters()["learning_rate_power"] == -0.5 else TF1_FTRL

    def coefficients(self, step, hyper, dtype):
        # every scalar in the variable's dtype; l2_adj = l2 + beta / (2 lr)
        t = dtype.type
        lr = t(hyper["learning_rate"])
        l2_adj = t(hyper["l2_regularization_strength"]) + t(hyper["beta"]) / (t(2.0) * lr)
        return {"learning_rate": lr, "power": t(-hyper["learning_rate_power"]),
                "l1": t(hyper["l1_regularization_strength"]), "two_l2": t(2.0) * l2_adj,
                "two_l2_shrinkage": t(2.0) * t(hyper["l2_shrinkage_regularization_strength"])}


# ================================================================ the optimizer (Keras 3)
class Ftrl(Optimizer):
    """FTRL-Proximal with L1, L2 and L2-shrinkage regularization (Keras 3's ``Ftrl``).

    With ``p = -learning_rate_power``, accumulator ``n`` and linear term ``z``::

        n_new = n + g^2
        z <- z + (g + 2 l2s w) - (n_new^p - n^p) / lr * w
        w <- (clip(z, -l1, l1) - z) / (n_new^p / lr + 2 (l2 + beta / (2 lr)))

    Sparse updates default to ``"lazy"``: only the gradient's rows, their
    accumulator and their linear term change, as TensorFlow's sparse FTRL
    kernel (``SparseApplyFtrlV2``) does; this is what FTRL is used for (huge
    sparse feature tables) and its cost does not grow with the table. Unlike
    most optimizers, a dense FTRL step with a zero gradient is *not* a no-op:
    ``w`` is recomputed from ``z`` and ``n``, so a row that has never received
    a gradient (``z = 0``) is set to 0, and L2 shrinkage moves ``z`` everywhere.
    ``sparse_updates="exact"`` gives the dense semantics (what Keras 3 does
    with an ``IndexedSlices`` gradient) at the cost of a pass over the whole
    variable. ``convention="tf1"`` computes TF 1's FTRL (module docstring).

    Args:
        learning_rate: > 0, default 0.001.
        learning_rate_power: <= 0, default -0.5; 0 gives a fixed learning rate.
        initial_accumulator_value: >= 0, the accumulator's starting value
            (default 0.1).
        l1_regularization_strength: >= 0, default 0.
        l2_regularization_strength: >= 0 (stabilization L2), default 0.
        l2_shrinkage_regularization_strength: >= 0 (magnitude L2, added to the
            gradient as ``2 * l2s * w``; with lazy sparse updates only active
            rows shrink), default 0.
        beta: >= 0, the paper's beta, added to ``l2`` as ``beta / (2 lr)``;
            default 0.
        **kwargs: the :class:`Optimizer` arguments (``weight_decay``,
            ``clipnorm``, ``clipvalue``, ``global_clipnorm``,
            ``sparse_updates``, ``name``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, -1.0], name="w")
        >>> opt = ds.optimizers.Ftrl(learning_rate=0.1, l1_regularization_strength=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([0.5, -0.05]), w)])
        >>> w.numpy().round(4)
        array([0.3641, 0.    ], dtype=float32)
    """

    #: TF 1's FTRL (the class itself is Keras 3's)
    conventions = {"tf1": TF1Ftrl}

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 l2_shrinkage_regularization_strength=0.0, beta=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        # the update divides by lr: it must be positive
        self.add_hyperparameter("learning_rate", learning_rate, low=0, low_open=True)
        # Keras' wording of the range errors
        nonneg, nonpos = "`{name}` needs to be positive or zero. Received: {name}={value}.", \
            "`{name}` needs to be negative or zero. Received: {name}={value}."
        self.add_hyperparameter("learning_rate_power", learning_rate_power, high=0, message=nonpos)
        self.add_hyperparameter("l1_regularization_strength", l1_regularization_strength, low=0, message=nonneg)
        self.add_hyperparameter("l2_regularization_strength", l2_regularization_strength, low=0, message=nonneg)
        self.add_hyperparameter("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength,
                                low=0, message=nonneg)
        self.add_hyperparameter("beta", beta, low=0)
        v = initial_accumulator_value
        if isinstance(v, bool) or not isinstance(v, NUMBERS) or not math.isfinite(v) or v < 0:
            raise ValueError(nonneg.format(name="initial_accumulator_value", value=v))
        self.initial_accumulator_value = float(v)

    @property
    def slots(self):
        return (Slot("accumulator", self.initial_accumulator_value, nonnegative=True), Slot("linear"))

    #: sparse_updates="exact_lazy": no O(1) closed form; the skipped steps are replayed per row (bit for bit
    #: the exact run)
    catch_up = REPLAY

    #: TF's sparse FTRL updates only the gradient's rows
    update = Rule(ftrl_update, sparse="lazy")

    def coefficients(self, step, hyper, dtype):
        # as Keras: lr is cast to the variable's dtype and l2_eff computed in it; 2 * l2_shrinkage
        # is computed in Python, then rounded
        t = dtype.type
        lr = t(hyper["learning_rate"])
        # l2_eff = l2 + beta / (2 lr)
        l2_eff = t(hyper["l2_regularization_strength"]) + t(hyper["beta"]) / (t(2.0) * lr)
        return {
            "learning_rate": lr,
            "power": t(-hyper["learning_rate_power"]),
            "l1": t(hyper["l1_regularization_strength"]),
            "two_l2": t(2.0) * l2_eff,
            "two_l2_shrinkage": t(2.0 * hyper["l2_shrinkage_regularization_strength"]),
        }

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value}
