"""Nadam: Adam with Nesterov momentum (Dozat, 2015), Keras 3 convention.

Follows ``keras/src/optimizers/nadam.py``. With ``t = iterations + 1`` and the
momentum schedule ``u_t = beta_1 * (1 - 0.5 * 0.96^t)``::

    u_product <- u_product * beta_1 * (1 - 0.5 * 0.96^t)     (once per step; = u_1 ... u_t)
    m <- m + (g - m) * (1 - beta_1)
    v <- v + (g^2 - v) * (1 - beta_2)
    m_hat = u_{t+1} * m / (1 - u_product * u_{t+1}) + (1 - u_t) * g / (1 - u_product)
    v_hat = v / (1 - beta_2^t)
    param <- param - lr * m_hat / (sqrt(v_hat) + epsilon)

``u_product`` is optimizer-level state (Keras keeps it in a variable of the
first variable's dtype and multiplies it in place once per step). It is kept
the same way here, as the optimizer-level step state ``u_product``, because the running
product rounds differently from any closed form in float32 and because
``beta_1`` may follow a schedule.
"""

from __future__ import annotations

import numpy as np

from .exact_lazy import REPLAY
from .optimizer import Optimizer
from .rule import Slot, StepState

__all__ = ["Nadam", "nadam_update"]


def nadam_update(param, grad, m, v, *, learning_rate, one_minus_beta_1, one_minus_beta_2, epsilon, u_t_1,
                 one_minus_u_t, one_minus_u_product_t, one_minus_u_product_t_1, one_minus_beta_2_power):
    # m <- m + (g - m)(1 - b1) ; v <- v + (g^2 - v)(1 - b2)
    m = m + (grad - m) * one_minus_beta_1
    v = v + (grad * grad - v) * one_minus_beta_2
    # m_hat = u_{t+1} m / (1 - prod_{t+1}) + (1 - u_t) g / (1 - prod_t) ; v_hat = v / (1 - b2^t)
    m_hat = (m * u_t_1) / one_minus_u_product_t_1 + (grad * one_minus_u_t) / one_minus_u_product_t
    v_hat = v / one_minus_beta_2_power
    # param <- param - lr m_hat / (sqrt(v_hat) + eps)
    return param - (m_hat * learning_rate) / (np.sqrt(v_hat) + epsilon), m, v


def _one(hyper, dtype):
    return np.ones((), dtype)


def advance_u_product(u_product, step, hyper):
    # u_product <- u_product * beta_1 * (1 - 0.5 * 0.96^t), in u_product's dtype
    s = u_product.dtype.type
    return (u_product * s(hyper["beta_1"])) * (s(1.0) - s(0.5) * s(0.96) ** s(step + 1))


class Nadam(Optimizer):
    """Nadam: Adam with Nesterov momentum (Keras 3's ``Nadam``).

    With ``u_t = beta_1 (1 - 0.5 * 0.96^t)`` and ``P_t = u_1 u_2 ... u_t``::

        m <- b1 m + (1-b1) g ;  v <- b2 v + (1-b2) g^2
        var <- var - lr * (u_{t+1} m / (1 - P_{t+1}) + (1 - u_t) g / (1 - P_t))
                        / (sqrt(v / (1 - b2^t)) + eps)

    ``P_t`` is the step state ``u_product``, created with the first
    variables in the first one's dtype and advanced once per step in that
    dtype (as Keras), then cast to each variable's dtype.

    Sparse updates default to ``"exact"``: the same as the dense update with
    zero gradient rows elsewhere (the moments of untouched rows decay and those
    rows still move), which is what Keras 3 does with an ``IndexedSlices``
    gradient. ``sparse_updates="lazy"`` updates only the gradient's rows and
    their moments (the step count and ``u_product`` stay global).

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
        >>> w = ds.Variable([1.0, -1.0], name="w")
        >>> opt = ds.optimizers.Nadam(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([0.5, -0.5]), w)])
        >>> w.numpy().round(4)
        array([ 0.8937, -0.8937], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_1", beta_1, low=0, high=1, high_open=True)
        self.add_hyperparameter("beta_2", beta_2, low=0, high=1, high_open=True)
        self.add_hyperparameter("epsilon", epsilon, low=0)

    # P_t = u_1 ... u_t, created with the first variables in the first one's dtype and advanced
    # before each update uses it (Keras multiplies its variable in place once per step)
    slots = (Slot("momentum"), Slot("velocity", nonnegative=True),
             StepState("u_product", initial=_one, advance=advance_u_product, dtype="first", advance_first=True))

    #: sparse_updates="exact_lazy": no O(1) closed form; the skipped steps are replayed per row (bit for bit
    #: the exact run)
    catch_up = REPLAY

    update = staticmethod(nadam_update)

    def coefficients(self, step, hyper, dtype):
        # Keras casts lr, beta_1, beta_2, 0.96 and the step to the variable's dtype and computes
        # every scalar below in that dtype
        t = dtype.type
        one = t(1.0)
        b1, b2 = t(hyper["beta_1"]), t(hyper["beta_2"])
        decay = t(0.96)
        # u_t = b1 (1 - 0.5 * 0.96^t) ; u_{t+1} likewise
        u_t = b1 * (one - t(0.5) * decay ** t(step + 1))
        u_t_1 = b1 * (one - t(0.5) * decay ** t(step + 2))
        u_product_t = t(hyper["u_product"])
        u_product_t_1 = u_product_t * u_t_1
        return {
            "learning_rate": t(hyper["learning_rate"]),
            "one_minus_beta_1": one - b1,
            "one_minus_beta_2": one - b2,
            "epsilon": t(hyper["epsilon"]),
            "u_t_1": u_t_1,
            "one_minus_u_t": one - u_t,
            "one_minus_u_product_t": one - u_product_t,
            "one_minus_u_product_t_1": one - u_product_t_1,
            "one_minus_beta_2_power": one - b2 ** t(step + 1),
        }
