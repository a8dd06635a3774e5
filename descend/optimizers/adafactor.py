"""Adafactor (Shazeer & Stern, 2018), Keras 3 convention.

Follows ``keras/src/optimizers/adafactor.py``. With ``t = iterations + 1`` and every scalar in the
variable's dtype::

    rho_t = min(lr, 1 / sqrt(t))            (lr itself is capped the same way when relative_step
                                              and the learning rate is a number)
    alpha_t = max(epsilon_2, rms(w)) * rho_t
    G = g^2 + epsilon_1
    beta_2_t = 1 - t^beta_2_decay
    for w of rank >= 2 (factored second moments over the last two axes):
        r <- beta_2_t * r + (1 - beta_2_t) * mean(G, axis=-1)
        c <- beta_2_t * c + (1 - beta_2_t) * mean(G, axis=-2)
        v = (r / mean(r, axis=-1))[..., None] * c[..., None, :]
    else:
        v <- beta_2_t * v + (1 - beta_2_t) * G
    u = g / sqrt(v);  u_hat = u / max(1, rms(u) / clip_threshold)
    w <- w - alpha_t * u_hat

``rms(x) = sqrt(mean(x^2))`` over the whole tensor, so the rule is per-tensor.
"""

from __future__ import annotations

import numpy as np

from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["Adafactor", "adafactor_update"]


def adafactor_update(param, grad, r, c, v, *, rho_t, epsilon_1, epsilon_2, beta_2_t, one_minus_beta_2_t,
                     clip_threshold, one):
    # alpha_t = max(eps2, rms(w)) rho_t ; G = g^2 + eps1
    alpha_t = np.maximum(epsilon_2, np.sqrt(np.mean(np.square(param)))) * rho_t
    regulated = np.square(grad) + epsilon_1
    if param.ndim >= 2:
        # r, c: the factored moments, kept broadcast to the variable's shape (r along the last axis, c along the
        # second last); each row of r and column of c holds one value
        r_new = beta_2_t * r[..., 0] + one_minus_beta_2_t * np.mean(regulated, axis=-1)
        c_new = beta_2_t * c[..., 0, :] + one_minus_beta_2_t * np.mean(regulated, axis=-2)
        v = np.expand_dims(r_new / np.mean(r_new, axis=-1, keepdims=True), -1) * np.expand_dims(c_new, -2)
        r = np.broadcast_to(np.expand_dims(r_new, -1), param.shape)
        c = np.broadcast_to(np.expand_dims(c_new, -2), param.shape)
    else:
        v = beta_2_t * v + one_minus_beta_2_t * regulated
    # u = g / sqrt(v) ; u_hat = u / max(1, rms(u) / d) ; w <- w - alpha_t u_hat
    u = grad / np.sqrt(v)
    u_hat = u / np.maximum(one, np.sqrt(np.mean(np.square(u))) / clip_threshold)
    return param - alpha_t * u_hat, r, c, v


class Adafactor(Optimizer):
    """Adafactor: Adam-like steps scaled by the parameter's RMS, with factored second moments.

    For a variable of rank >= 2 the second moment is estimated from a row mean ``r`` and a column mean
    ``c`` over its last two axes (Keras 3's Adafactor; no first moment). The slots ``r`` and ``c`` are
    stored broadcast to the variable's shape (every entry of a row of ``r``, of a column of ``c``, is the
    same); for a variable of rank < 2 they are unused zeros and ``v`` is an ordinary moving average.

    The rule reduces over the whole tensor (``rms``, the means), so it is per-tensor: sparse gradients are
    applied exactly by default (scattered into zeros, as Keras 3 does). ``sparse_updates="lazy"`` applies
    the rule to the gathered rows as if they were the whole tensor (descend's definition).

    Args:
        learning_rate: default 0.001; with ``relative_step`` and a number, capped at ``1/sqrt(t)``.
        beta_2_decay: the decay exponent of ``beta_2_t = 1 - t^beta_2_decay`` (default -0.8; <= 0).
        epsilon_1: added to the squared gradient (default 1e-30; >= 0).
        epsilon_2: the smallest parameter scale (default 1e-3; >= 0).
        clip_threshold: the RMS the update is clipped to (default 1.0; > 0).
        relative_step: cap the learning rate at ``1/sqrt(t)`` (default True).
        **kwargs: the :class:`Optimizer` arguments.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
        >>> opt = ds.optimizers.Adafactor(learning_rate=0.5)
        >>> _ = opt.apply_gradients([(ds.constant([[1.0, 1.0], [1.0, 1.0]]), w)])
        >>> w.numpy().round(4)
        array([[-0.3693,  0.6307],
               [ 1.6307,  2.6307]], dtype=float32)
    """

    slots = (Slot("r", nonnegative=True), Slot("c", nonnegative=True), Slot("v", nonnegative=True))
    update = Rule(adafactor_update, per_tensor=True)  # the factored second moment reduces over rows and columns

    def __init__(self, learning_rate=0.001, beta_2_decay=-0.8, epsilon_1=1e-30, epsilon_2=1e-3, clip_threshold=1.0,
                 relative_step=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_2_decay", beta_2_decay, high=0)
        self.add_hyperparameter("epsilon_1", epsilon_1, low=0)
        self.add_hyperparameter("epsilon_2", epsilon_2, low=0)
        self.add_hyperparameter("clip_threshold", clip_threshold, low=0, low_open=True)
        if not isinstance(relative_step, (bool, np.bool_)):
            raise TypeError(f"`relative_step` must be a bool. Received: relative_step={relative_step!r}")
        self.relative_step = bool(relative_step)

    def coefficients(self, step, hyper, dtype):
        t = dtype.type
        local_step = t(step + 1)
        inv_sqrt = t(1) / np.sqrt(local_step)
        lr = t(hyper["learning_rate"])
        if self.relative_step and isinstance(self.hyperparameters()["learning_rate"], float):
            lr = np.minimum(lr, inv_sqrt)  # Keras: only a number learning rate is capped here
        beta_2_t = t(1) - np.power(local_step, t(hyper["beta_2_decay"]))
        return {"rho_t": np.minimum(lr, inv_sqrt), "epsilon_1": t(hyper["epsilon_1"]),
                "epsilon_2": t(hyper["epsilon_2"]), "beta_2_t": beta_2_t, "one_minus_beta_2_t": t(1) - beta_2_t,
                "clip_threshold": t(hyper["clip_threshold"]), "one": t(1)}

    def get_config(self):
        return {**super().get_config(), "relative_step": self.relative_step}
