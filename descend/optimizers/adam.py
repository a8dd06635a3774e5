"""Adam (and AMSGrad), Keras 3 convention.

Follows ``keras/src/optimizers/adam.py``; epsilon is added to the
uncorrected ``sqrt(v)`` and the bias correction is folded into the step size::

    t = iterations + 1
    alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)
    m <- m + (g - m) * (1 - beta_1)
    v <- v + (g^2 - v) * (1 - beta_2)
    v_hat <- max(v_hat, v)                      (amsgrad only)
    param <- param - alpha * m / (sqrt(v or v_hat) + epsilon)
"""

from __future__ import annotations

import numpy as np

from .exact_lazy import REPLAY
from .optimizer import Optimizer
from .rule import Slot

__all__ = ["Adam", "adam_update", "amsgrad_update", "adam_step_size"]


def adam_step_size(learning_rate, beta_1, beta_2, t):
    # alpha = lr * sqrt(1 - b2^t) / (1 - b1^t), in the dtype of the inputs
    return learning_rate * np.sqrt(1 - beta_2**t) / (1 - beta_1**t)


def adam_update(param, grad, m, v, *, alpha, beta_1, beta_2, epsilon):
    # m <- m + (g - m)(1 - b1) ; v <- v + (g^2 - v)(1 - b2) ; param <- param - alpha m / (sqrt(v) + eps)
    m = m + (grad - m) * (1 - beta_1)
    v = v + (grad * grad - v) * (1 - beta_2)
    return param - (m * alpha) / (np.sqrt(v) + epsilon), m, v


def amsgrad_update(param, grad, m, v, v_hat, *, alpha, beta_1, beta_2, epsilon):
    # as adam_update, with v_hat <- max(v_hat, v) in the denominator
    m = m + (grad - m) * (1 - beta_1)
    v = v + (grad * grad - v) * (1 - beta_2)
    v_hat = np.maximum(v_hat, v)
    return param - (m * alpha) / (np.sqrt(v_hat) + epsilon), m, v, v_hat


def adam_scatter_update(param, grad, m, v, *, alpha, beta_1, beta_2, epsilon):
    # TF1 / Keras 2 sparse Adam's order: m <- m b1 + g (1 - b1) ; v <- v b2 + g^2 (1 - b2)
    # (their dense kernels use adam_update's order; the math is the same)
    m = m * beta_1 + grad * (1 - beta_1)
    v = v * beta_2 + (grad * grad) * (1 - beta_2)
    return param - (m * alpha) / (np.sqrt(v) + epsilon), m, v


class Adam(Optimizer):
    """Adam (Kingma & Ba), Keras 3 convention.

    ``m <- b1 m + (1-b1) g``, ``v <- b2 v + (1-b2) g^2``,
    ``var <- var - lr sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps)``.

    Sparse updates default to ``"exact"`` (the moments of untouched rows decay,
    as TF1's ``AdamOptimizer``). ``sparse_updates="lazy"`` updates only the
    gradient's rows and their moments, with the global step's bias correction
    (LazyAdam / PyTorch ``SparseAdam``); its cost does not grow with the table.

    Args:
        learning_rate: default 0.001.
        beta_1: in [0, 1), default 0.9.
        beta_2: in [0, 1), default 0.999.
        epsilon: >= 0, added to ``sqrt(v)``; default 1e-7.
        amsgrad: keep the running maximum of ``v`` (slot ``v_hat``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, -1.0], name="w")
        >>> opt = ds.optimizers.Adam(learning_rate=0.1)
        >>> _ = opt.minimize(lambda: ds.reduce_sum(w * w), [w])
        >>> w.numpy().round(4)
        array([ 0.9, -0.9], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7, amsgrad: bool = False,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_1", beta_1, low=0, high=1, high_open=True)
        self.add_hyperparameter("beta_2", beta_2, low=0, high=1, high_open=True)
        self.add_hyperparameter("epsilon", epsilon, low=0)
        self.amsgrad = bool(amsgrad)

    @property
    def slots(self):
        return (Slot("m"), Slot("v", nonnegative=True)) + ((Slot("v_hat", nonnegative=True),) if self.amsgrad else ())

    #: sparse_updates="exact_lazy": no O(1) closed form; the skipped steps are replayed per row (bit for bit
    #: the exact run)
    catch_up = REPLAY

    @property
    def update(self):
        return amsgrad_update if self.amsgrad else adam_update

    def coefficients(self, step, hyper, dtype):
        # Keras casts lr, the betas (for the powers) and the step to the variable's dtype; 1 - beta and
        # epsilon stay Python floats
        c = dtype.type
        alpha = adam_step_size(c(hyper["learning_rate"]), c(hyper["beta_1"]), c(hyper["beta_2"]), c(step + 1))
        return {"alpha": alpha, "beta_1": hyper["beta_1"], "beta_2": hyper["beta_2"], "epsilon": hyper["epsilon"]}

    def get_config(self):
        return {**super().get_config(), "amsgrad": self.amsgrad}
