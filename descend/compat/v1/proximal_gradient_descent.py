"""TF 1's ``tf.compat.v1.train.ProximalGradientDescentOptimizer`` (kernel ``ApplyProximalGradientDescent``).

No slots; every scalar in the variable's dtype::

    prox = w - g * lr
    w <- sign(prox) * max(|prox| - lr * l1, 0) / (1 + l2 * lr)

(with ``l1 = 0`` this is ``prox / (1 + l2 * lr)``). Sparse updates are lazy, as
``SparseApplyProximalGradientDescent``: rows outside the gradient are not shrunk.
"""

from __future__ import annotations

import numpy as np

from ...optimizers.rule import Rule
from .optimizer import Optimizer

__all__ = ["ProximalGradientDescentOptimizer", "proximal_gradient_descent_update"]


def proximal_gradient_descent_update(param, grad, *, learning_rate, lr_l1, one_plus_l2_lr):
    # prox = w - g lr ; w <- sign(prox) max(|prox| - lr l1, 0) / (1 + l2 lr)
    prox = param - grad * learning_rate
    return (np.sign(prox) * np.maximum(np.abs(prox) - lr_l1, 0.0) / one_plus_l2_lr,)


class ProximalGradientDescentOptimizer(Optimizer):
    """TF 1's proximal gradient descent: an SGD step, then L1 soft-thresholding and L2 shrinkage.

    Args:
        learning_rate: >= 0.
        l1_regularization_strength, l2_regularization_strength: >= 0 (default 0).
        use_locking, name: as TF 1 (``name`` default ``"ProximalGradientDescent"``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, 0.01], name="w")
        >>> opt = ds.compat.v1.train.ProximalGradientDescentOptimizer(0.5, l1_regularization_strength=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([1.0, 0.0]), w)])
        >>> w.numpy()
        array([0.45, 0.  ], dtype=float32)
    """

    update = Rule(proximal_gradient_descent_update, sparse="lazy")  # TF 1's sparse kernel updates only the gradient's rows

    def __init__(self, learning_rate, l1_regularization_strength=0.0, l2_regularization_strength=0.0,
                 use_locking: bool = False, name: str = "ProximalGradientDescent", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("l1_regularization_strength", l1_regularization_strength, low=0)
        self.add_hyperparameter("l2_regularization_strength", l2_regularization_strength, low=0)

    def coefficients(self, step, hyper, dtype):
        t = dtype.type
        lr = t(hyper["learning_rate"])
        return {"learning_rate": lr, "lr_l1": lr * t(hyper["l1_regularization_strength"]),
                "one_plus_l2_lr": t(1) + t(hyper["l2_regularization_strength"]) * lr}
