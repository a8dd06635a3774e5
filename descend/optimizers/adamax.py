"""Adamax: Adam with the infinity norm: Keras 3's, and PyTorch's and optax's conventions.

Follows ``keras/src/optimizers/adamax.py`` (Kingma & Ba, 2014, section 7.1);
epsilon is added to ``u`` and the bias correction divides the step::

    t = iterations + 1
    m <- m + (g - m) * (1 - beta_1)
    u <- max(beta_2 * u, |g|)
    param <- param - lr * m / ((1 - beta_1^t) * (u + epsilon))

``convention="torch"`` (``torch.optim.Adamax``) and ``"optax"`` (``optax.adamax``) put epsilon inside
the maximum instead::

    u <- max(beta_2 * u, |g| + epsilon)
    param <- param - lr / (1 - beta_1^t) * m / u

epsilon 1e-8 (PyTorch: lr 0.002, ``weight_decay`` an L2 penalty). TensorFlow 1 has no Adamax.
"""

from __future__ import annotations

import numpy as np

from .convention import Convention, Default
from .exact_lazy import REPLAY
from .optimizer import Optimizer
from .rule import Slot

__all__ = ["Adamax", "OptaxAdamax", "TorchAdamax", "adamax_update", "torch_adamax_update"]


def adamax_update(param, grad, momentum, norm, *, learning_rate, beta_1, beta_2, epsilon, bias_correction):
    # m <- m + (g - m)(1 - b1) ; u <- max(b2 u, |g|) ; param <- param - lr m / ((1 - b1^t)(u + eps))
    momentum = momentum + (grad - momentum) * (1 - beta_1)
    norm = np.maximum(beta_2 * norm, np.abs(grad))
    return param - (learning_rate * momentum) / (bias_correction * (norm + epsilon)), momentum, norm


def torch_adamax_update(param, grad, momentum, norm, *, neg_step_size, beta_1, beta_2, epsilon):
    # m <- m + (g - m)(1 - b1) ; u <- max(u b2, |g| + eps) ; param <- param - lr/(1 - b1^t) * m / u
    momentum = momentum + (grad - momentum) * (1 - beta_1)
    norm = np.maximum(norm * beta_2, np.abs(grad) + epsilon)
    return param + neg_step_size * (momentum / norm), momentum, norm


class TorchAdamax(Convention):
    """``torch.optim.Adamax``."""

    framework = "torch"
    reference = "torch.optim.Adamax"
    defaults = {"learning_rate": 0.002, "epsilon": 1e-8}
    weight_decay = "l2"
    update = staticmethod(torch_adamax_update)

    def coefficients(self, step, hyper, dtype):
        # clr = lr / (1 - b1^t) in Python floats; the other scalars cast by each operation
        b1 = hyper["beta_1"]
        return {"neg_step_size": dtype.type(-(hyper["learning_rate"] / (1 - b1 ** (step + 1)))), "beta_1": b1,
                "beta_2": hyper["beta_2"], "epsilon": hyper["epsilon"]}


class OptaxAdamax(Convention):
    """``optax.adamax``: PyTorch's formula (rounded in another order: ``-lr * ((m / (1 - b1^t)) / u)``)."""

    framework = "optax"
    reference = "optax.adamax"
    defaults = {"epsilon": 1e-8}
    lacks = ("weight_decay",)
    update = staticmethod(torch_adamax_update)

    def coefficients(self, step, hyper, dtype):
        b1 = hyper["beta_1"]
        return {"neg_step_size": dtype.type(-hyper["learning_rate"] / (1 - b1 ** (step + 1))), "beta_1": b1,
                "beta_2": hyper["beta_2"], "epsilon": hyper["epsilon"]}


class Adamax(Optimizer):
    """Adamax, the infinity-norm variant of Adam (Keras 3 convention).

    ``m <- b1 m + (1-b1) g``, ``u <- max(b2 u, |g|)``,
    ``var <- var - lr / (1 - b1^t) * m / (u + epsilon)`` with ``t =
    iterations + 1``. Slots ``momentum`` and ``norm`` start at zeros.

    Sparse updates default to ``"exact"``, as Keras 3: the moments of rows
    outside the gradient decay and, while their ``momentum`` is non-zero,
    those rows keep moving. ``sparse_updates="lazy"`` updates only the
    gradient's rows and their moments, with the global step's bias correction
    (as LazyAdam); its cost does not grow with the table.

    ``convention="torch"`` or ``"optax"`` puts epsilon inside the maximum, as
    PyTorch and optax (module docstring).

    Args:
        learning_rate: default 0.001 (0.002 under ``"torch"``).
        beta_1: in [0, 1), the decay of the first moment; default 0.9.
        beta_2: in [0, 1], the decay of the infinity norm; default 0.999.
        epsilon: >= 0, added to ``u``; default 1e-7 (1e-8 under ``"torch"`` and ``"optax"``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, -1.0], name="w")
        >>> opt = ds.optimizers.Adamax(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([2.0, -0.5]), w)])
        >>> w.numpy().round(4)
        array([ 0.9, -0.9], dtype=float32)
    """

    #: the other frameworks' Adamax (the class itself is Keras 3's; TF 1 has none)
    conventions = {"torch": TorchAdamax, "optax": OptaxAdamax}

    def __init__(self, learning_rate=Default(0.001), beta_1=0.9, beta_2=0.999, epsilon=Default(1e-7), **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_1", beta_1, low=0, high=1, high_open=True)
        self.add_hyperparameter("beta_2", beta_2, low=0, high=1)
        self.add_hyperparameter("epsilon", self.conventional("epsilon", epsilon), low=0)

    @property
    def slots(self):
        return (Slot("momentum"), Slot("norm", nonnegative=True))

    #: sparse_updates="exact_lazy": no O(1) closed form; the skipped steps are replayed per row (bit for bit
    #: the exact run)
    catch_up = REPLAY

    update = staticmethod(adamax_update)

    def coefficients(self, step, hyper, dtype):
        # Keras casts the learning rate to the variable dtype; the other scalars stay Python floats
        b1 = hyper["beta_1"]
        # 1 - b1^t, in the variable's dtype
        return {"learning_rate": dtype.type(hyper["learning_rate"]), "beta_1": b1, "beta_2": hyper["beta_2"],
                "epsilon": hyper["epsilon"], "bias_correction": 1 - b1 ** dtype.type(step + 1)}
