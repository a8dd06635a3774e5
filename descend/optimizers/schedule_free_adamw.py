"""Schedule-free AdamW (Defazio et al., 2024), as Keras 3's ``ScheduleFreeAdamW``.

Follows ``keras/src/optimizers/schedule_free_adamw.py``. Three sequences: ``z`` (the ``momentum`` slot, started
at the variable's value), the average ``x``, and the variable itself ``y``, where the gradient is taken. At step
``t`` (1-based), with ``lr_t = lr * min(t / warmup_steps, 1)`` when ``warmup_steps > 0``::

    v <- v + (g^2 - v) * (1 - beta_2)
    z <- z - lr_t * g / (sqrt(v / (1 - beta_2^t)) + epsilon)
    x_old = (y - (1 - beta_1) * z) / beta_1          (z already updated: see below)
    x <- (1 - 1/t) * x_old + (1/t) * z
    y <- (1 - beta_1) * z + beta_1 * x

``x`` is not stored: it is recovered from ``y`` and ``z``. The paper (and Keras on JAX) recovers ``x_old`` from
the previous ``z``; Keras 3.15 on TensorFlow reads its ``momentum`` variable after ``assign_sub`` has updated it,
so its ``x_old`` uses the new ``z``. descend gives TensorFlow-Keras' numbers, bit for bit
(tests/test_schedule_free_adamw.py). Keras' ``weight_decay`` (decoupled, ``y <- y - lr * wd
* y`` before the step) comes from the base class. No learning-rate schedule is needed (the averaging replaces
it); one may still be given. The evaluation point of the paper is ``x``; as Keras, the variables hold ``y``.
"""

from __future__ import annotations

import numpy as np

from .optimizer import Optimizer
from .rule import Slot

__all__ = ["ScheduleFreeAdamW", "schedule_free_adamw_update"]


def schedule_free_adamw_update(param, grad, z, v, *, learning_rate, one_minus_beta_2, bias_correction_2, epsilon,
                               beta_1, one_minus_beta_1, weight, one_minus_weight):
    # v <- v + (g^2 - v)(1 - b2)
    v = v + (grad * grad - v) * one_minus_beta_2
    # z <- z - lr g / (sqrt(v / (1 - b2^t)) + eps)
    z_new = z - learning_rate * grad / (np.sqrt(v / bias_correction_2) + epsilon)
    # x_old = (y - (1 - b1) z) / b1 with the updated z, as Keras on TF ;  x <- (1 - 1/t) x_old + (1/t) z
    x_new = (param - z_new * one_minus_beta_1) / beta_1 * one_minus_weight + z_new * weight
    # y <- (1 - b1) z + b1 x
    return z_new * one_minus_beta_1 + x_new * beta_1, z_new, v


class ScheduleFreeAdamW(Optimizer):
    """AdamW without a learning-rate schedule: an averaged iterate replaces the decay (Keras 3's
    ``ScheduleFreeAdamW``; the formula in the module docstring).

    The ``momentum`` slot (``z``) starts at the variable's value, as Keras' ``build``; ``velocity`` at zeros.

    Args:
        learning_rate: default 0.0025.
        beta_1: in (0, 1), default 0.9: the interpolation between ``z`` and ``x``.
        beta_2: in [0, 1), default 0.999: the decay of the second moment.
        epsilon: default 1e-8.
        warmup_steps: a non-negative int (default 0): the learning rate grows linearly over these steps.
        **kwargs: the :class:`Optimizer` arguments (``weight_decay``, ``clipnorm``, ``clipvalue``,
            ``global_clipnorm``, ``name``, ...).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, -1.0], name="w")
        >>> opt = ds.optimizers.ScheduleFreeAdamW(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([0.5, -2.0]), w)])
        >>> w.numpy().round(4), opt.get_slot(w, "momentum").numpy().round(4)
        (array([ 0.9, -0.9], dtype=float32), array([ 0.9, -0.9], dtype=float32))
    """

    def __init__(self, learning_rate=0.0025, beta_1=0.9, beta_2=0.999, epsilon=1e-8, warmup_steps=0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_1", beta_1, low=0, high=1, low_open=True, high_open=True)
        self.add_hyperparameter("beta_2", beta_2, low=0, high=1, high_open=True)
        self.add_hyperparameter("epsilon", epsilon, low=0)
        if isinstance(warmup_steps, bool) or not isinstance(warmup_steps, (int, np.integer)) or warmup_steps < 0:
            raise ValueError(f"`warmup_steps` must be a non-negative int. Received: warmup_steps={warmup_steps!r}")
        self.warmup_steps = int(warmup_steps)

    @property
    def slots(self):
        return (Slot("momentum", "variable"), Slot("velocity", nonnegative=True))

    @property
    def update(self):
        return schedule_free_adamw_update

    def coefficients(self, step, hyper, dtype):
        # Keras casts lr, the betas, epsilon and the step t = iterations + 1 to the variable's dtype
        c = dtype.type
        t = c(step + 1)
        lr = c(hyper["learning_rate"])
        if self.warmup_steps > 0:
            lr = lr * np.minimum(t / c(self.warmup_steps), c(1.0))
        b1, b2 = c(hyper["beta_1"]), c(hyper["beta_2"])
        weight = c(1.0) / t
        return {"learning_rate": lr, "one_minus_beta_2": c(1.0) - b2, "bias_correction_2": c(1.0) - b2 ** t,
                "epsilon": c(hyper["epsilon"]), "beta_1": b1, "one_minus_beta_1": c(1.0) - b1, "weight": weight,
                "one_minus_weight": c(1.0) - weight}

    def get_config(self) -> dict:
        return {**super().get_config(), "warmup_steps": self.warmup_steps}
