"""LAMB: layer-wise adaptive moments (You et al., 2019), Keras 3 convention.

Follows ``keras/src/optimizers/lamb.py``. With ``t = iterations + 1``::

    m <- m + (g - m) * (1 - beta_1)
    v <- v + (g^2 - v) * (1 - beta_2)
    r = (m / (1 - beta_1^t)) / (sqrt(v / (1 - beta_2^t)) + epsilon)     (the Adam direction)
    ratio = ||param|| / ||r||   if ||param|| > 0 and ||r|| > 0, else 1  (the trust ratio)
    param <- param - ratio * lr * r

The norms are L2 norms over the whole variable (one trust ratio per
variable, "layer-wise"), so the update is not elementwise: :func:`lamb_direction`
is the elementwise part, :func:`lamb_trust_ratio` the reduction and
:func:`lamb_update` the whole per-tensor rule.
"""

from __future__ import annotations

import numpy as np

from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["Lamb", "lamb_direction", "lamb_trust_ratio", "lamb_update"]


def lamb_direction(grad, m, v, *, one_minus_beta_1, one_minus_beta_2, one_minus_beta_1_power,
                   one_minus_beta_2_power, epsilon):
    """Elementwise: the new moments and the bias-corrected Adam direction ``r``."""
    # m <- m + (g - m)(1 - b1) ; v <- v + (g^2 - v)(1 - b2)
    m = m + (grad - m) * one_minus_beta_1
    v = v + (grad * grad - v) * one_minus_beta_2
    # r = (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
    r = (m / one_minus_beta_1_power) / (np.sqrt(v / one_minus_beta_2_power) + epsilon)
    return r, m, v


def lamb_update(param, grad, m, v, *, learning_rate, one_minus_beta_1, one_minus_beta_2, one_minus_beta_1_power,
                one_minus_beta_2_power, epsilon):
    """The whole rule on one tensor (the variable, or its touched rows when lazy): direction, trust ratio, step."""
    r, m, v = lamb_direction(grad, m, v, one_minus_beta_1=one_minus_beta_1, one_minus_beta_2=one_minus_beta_2,
                             one_minus_beta_1_power=one_minus_beta_1_power,
                             one_minus_beta_2_power=one_minus_beta_2_power, epsilon=epsilon)
    # param <- param - (ratio * lr) * r
    return param - (lamb_trust_ratio(param, r) * learning_rate) * r, m, v


def lamb_trust_ratio(param, r):
    """``||param|| / ||r||`` when both norms are positive, else 1 (a scalar of param's dtype)."""
    w_norm = np.sqrt(np.sum(param * param))
    r_norm = np.sqrt(np.sum(r * r))
    one = param.dtype.type(1.0)
    if w_norm > 0 and r_norm > 0:
        return w_norm / r_norm
    return one


class Lamb(Optimizer):
    """LAMB: Adam's direction scaled by a per-variable trust ratio (Keras 3's ``Lamb``).

    ``m <- b1 m + (1-b1) g``, ``v <- b2 v + (1-b2) g^2``,
    ``r = m_hat / (sqrt(v_hat) + eps)`` with ``m_hat = m / (1 - b1^t)``,
    ``v_hat = v / (1 - b2^t)``, then
    ``var <- var - (||var|| / ||r||) * lr * r`` (ratio 1 when either norm is 0).

    Sparse updates default to ``"exact"``: the trust ratio is a norm over the
    whole variable, so the sparse gradient is scattered into a dense zero
    array and the dense update is applied. The result equals the dense update
    with zero rows elsewhere (as Keras 3) and costs a pass over the whole
    variable. ``sparse_updates="lazy"`` (descend's own definition; Keras and
    the paper have none) updates only the gradient's rows and their moments,
    and treats those rows as the "layer": the trust ratio is
    ``||var[rows]|| / ||r[rows]||``. It costs only the touched rows, which is
    what large embedding tables need, but it is a different algorithm from
    the dense one, not an approximation of it.

    Args:
        learning_rate: default 0.001.
        beta_1: in [0, 1), default 0.9.
        beta_2: in [0, 1), default 0.999.
        epsilon: >= 0, added to ``sqrt(v_hat)``; default 1e-7.
        **kwargs: the :class:`Optimizer` arguments (``weight_decay``,
            ``clipnorm``, ``clipvalue``, ``global_clipnorm``,
            ``sparse_updates``, ``name``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([3.0, -4.0], name="w")
        >>> opt = ds.optimizers.Lamb(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([1.0, 1.0]), w)])
        >>> w.numpy().round(4)
        array([ 2.6464, -4.3536], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_1", beta_1, low=0, high=1, high_open=True)
        self.add_hyperparameter("beta_2", beta_2, low=0, high=1, high_open=True)
        self.add_hyperparameter("epsilon", epsilon, low=0)

    #: the trust ratio reduces over the whole tensor: not elementwise
    update = Rule(lamb_update, per_tensor=True)  # the trust ratio is a norm over the whole tensor

    @property
    def slots(self):
        return (Slot("momentum"), Slot("velocity", nonnegative=True))

    def coefficients(self, step, hyper, dtype):
        t = dtype.type
        one = t(1.0)
        local_step = t(step + 1)
        return {
            "learning_rate": t(hyper["learning_rate"]),
            # Keras computes 1 - beta in Python (double precision) and rounds it once ...
            "one_minus_beta_1": t(1.0 - hyper["beta_1"]),
            "one_minus_beta_2": t(1.0 - hyper["beta_2"]),
            # ... but the beta powers in the variable's dtype
            "one_minus_beta_1_power": one - t(hyper["beta_1"]) ** local_step,
            "one_minus_beta_2_power": one - t(hyper["beta_2"]) ** local_step,
            "epsilon": t(hyper["epsilon"]),
        }
