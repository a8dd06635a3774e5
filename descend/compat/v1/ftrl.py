"""TF 1's ``tf.compat.v1.train.FtrlOptimizer`` (kernels ``ApplyFtrl``/``ApplyFtrlV2``).

With ``p = -learning_rate_power``, accumulator ``n`` (slot ``accum``, starts at
``initial_accumulator_value``) and linear term ``z`` (slot ``linear``)::

    g_s = g + 2 * l2_shrinkage * w
    n_new = n + g^2
    z <- z + (g_s - (n_new^p - n^p) / lr * w)
    w <- (l1 * sign(z) - z) / (n_new^p / lr + 2 * l2_adj)   where |z| > l1, else 0
    n <- n_new

``l2_adj = l2 + beta / (2 * lr)``. TF 1's arithmetic: every scalar in the variable's
dtype, ``sqrt`` (not a power) when ``p == 0.5``. Sparse updates are lazy, as
``SparseApplyFtrl``: only the gradient's rows and their slots change.
"""

from __future__ import annotations

import math

import numpy as np

from ...optimizers.rule import NUMBERS, Rule, Slot
from .optimizer import Optimizer

__all__ = ["FtrlOptimizer", "tf1_ftrl_sqrt_update", "tf1_ftrl_update"]


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


class FtrlOptimizer(Optimizer):
    """TF 1's FTRL-Proximal (McMahan et al., 2013), with L1, L2, L2-shrinkage and ``beta``.

    Args:
        learning_rate: > 0.
        learning_rate_power: <= 0 (default -0.5; 0: a fixed learning rate).
        initial_accumulator_value: >= 0, the starting value of slot ``accum`` (default 0.1).
        l1_regularization_strength, l2_regularization_strength,
        l2_shrinkage_regularization_strength: >= 0 (default 0).
        use_locking, name: as TF 1 (``name`` default ``"Ftrl"``).
        accum_name, linear_name: accepted (TF 1 names the slots' variables with them); the slots are
            ``accum`` and ``linear``.
        beta: >= 0, added to L2 as ``beta / (2 lr)`` (default None: 0).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, -1.0], name="w")
        >>> opt = ds.compat.v1.train.FtrlOptimizer(0.1, l1_regularization_strength=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([0.5, -0.05]), w)])
        >>> w.numpy().round(4)
        array([0.3641, 0.    ], dtype=float32)
    """

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking: bool = False,
                 name: str = "Ftrl", accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0,
                 beta=None, **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("learning_rate", learning_rate, low=0, low_open=True)
        self.add_hyperparameter("learning_rate_power", learning_rate_power, high=0)
        self.add_hyperparameter("l1_regularization_strength", l1_regularization_strength, low=0)
        self.add_hyperparameter("l2_regularization_strength", l2_regularization_strength, low=0)
        self.add_hyperparameter("l2_shrinkage_regularization_strength", l2_shrinkage_regularization_strength, low=0)
        self.add_hyperparameter("beta", 0.0 if beta is None else beta, low=0)
        v = initial_accumulator_value
        if isinstance(v, bool) or not isinstance(v, NUMBERS) or not math.isfinite(v) or v < 0:
            raise ValueError(f"initial_accumulator_value {v!r} needs to be positive or zero")
        self.initial_accumulator_value = float(v)
        self.accum_name, self.linear_name = accum_name, linear_name

    @property
    def slots(self):
        return (Slot("accum", self.initial_accumulator_value, nonnegative=True), Slot("linear"))

    @property
    def update(self):
        power = self._hyper_value("learning_rate_power")
        return TF1_FTRL_SQRT if power == -0.5 else TF1_FTRL

    def _hyper_value(self, name):
        value = self.hyperparameters()[name]
        return value if isinstance(value, float) else None

    def coefficients(self, step, hyper, dtype):
        t = dtype.type
        lr = t(hyper["learning_rate"])
        # l2_adj = l2 + beta / (2 lr), in the variable's dtype
        l2_adj = t(hyper["l2_regularization_strength"]) + t(hyper["beta"]) / (t(2.0) * lr)
        return {"learning_rate": lr, "power": t(-hyper["learning_rate_power"]),
                "l1": t(hyper["l1_regularization_strength"]), "two_l2": t(2.0) * l2_adj,
                "two_l2_shrinkage": t(2.0) * t(hyper["l2_shrinkage_regularization_strength"])}

    def get_config(self):
        return {**super().get_config(), "initial_accumulator_value": self.initial_accumulator_value,
                "accum_name": self.accum_name, "linear_name": self.linear_name}
