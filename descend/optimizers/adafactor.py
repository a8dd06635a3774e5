"""Adafactor (Shazeer & Stern, 2018): Keras 3's, and PyTorch's and optax's conventions.

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

``convention="torch"`` (``torch.optim.Adafactor``)::

    alpha_t = max(epsilon_2, rms(w)) * min(lr, 1 / sqrt(t));  b = t^beta_2_decay
    rank >= 2: r <- r + b * (mean(g^2, -1) - r);  c <- c + b * (mean(g^2, -2) - c)
               v = r[..., None] * c[..., None, :] / max(mean(r), epsilon_1)
    else:      v <- v + b * (g^2 - v)
    u = g / sqrt(max(v, epsilon_1^2));  w <- w - alpha_t * u / max(1, rms(u) / clip_threshold)

lr 0.01; ``epsilon_1`` defaults to the dtype's machine epsilon (it floors ``mean(r)`` and ``v``, not
``g^2``). ``convention="optax"`` (``optax.adafactor``): no relative step, factored only when the
second-largest dimension is at least ``min_dim_size_to_factor`` (128), over the two largest::

    b = 1 - t^(-0.8) (float32);  G = g^2 + epsilon_1
    factored: r <- b r + (1 - b) mean(G, largest axis);  c <- b c + (1 - b) mean(G, second largest)
              u = g * (r / mean(r))^-0.5 * c^-0.5
    else:     v <- b v + (1 - b) G;  u = g * v^-0.5
    u <- u / max(1, rms(u) / clip_threshold);  w <- w - lr * max(rms(w), epsilon_2) * u

with learning rate 1 unless given (optax scales by none). TensorFlow 1 has no Adafactor.
"""

from __future__ import annotations

import math

import numpy as np

from .convention import Convention, Default
from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["Adafactor", "OptaxAdafactor", "TorchAdafactor", "adafactor_update", "optax_adafactor_update",
           "torch_adafactor_update"]


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


def _rms(x) -> float:
    # sqrt(mean(x^2)) as a Python float (PyTorch: x.norm(2).item() / sqrt(x.numel()))
    return float(np.sqrt(np.sum(x * x))) / math.sqrt(x.size) if x.size else 0.0


def _keep(reduced, axis, shape):
    # a factored moment, kept broadcast to the variable's shape along the axis it was reduced over
    return np.broadcast_to(np.expand_dims(reduced, axis), shape)


# ================================================================ PyTorch (torch.optim.Adafactor)
def torch_adafactor_update(param, grad, r, c, v, *, rho_t, beta_2_t, epsilon_1, epsilon_2, clip_threshold):
    # alpha_t = max(eps2, rms(w)) rho_t, from the weights before the update
    alpha = max(epsilon_2, _rms(param)) * rho_t
    if param.ndim > 1:
        # r <- lerp(r, mean(g^2, -1), b) ; c <- lerp(c, mean(g^2, -2), b) ; v = r c / max(mean(r), eps1)
        square = grad * grad
        row = r[..., 0]
        row = row + beta_2_t * (np.sum(square, axis=-1) / grad.shape[-1] - row)
        col = c[..., 0, :]
        col = col + beta_2_t * (np.sum(square, axis=-2) / grad.shape[-2] - col)
        estimate = np.expand_dims(row, -1) * np.expand_dims(col, -2)
        estimate = estimate / np.maximum(np.mean(row, axis=-1)[..., None, None], epsilon_1)
        r, c = _keep(row, -1, param.shape), _keep(col, -2, param.shape)
    else:
        v = v + beta_2_t * (grad * grad - v)
        estimate = v
    # u = rsqrt(max(v, eps1^2)) g ; w <- w - alpha_t u / max(1, rms(u) / d)
    update = (1 / np.sqrt(np.maximum(estimate, epsilon_1 * epsilon_1))) * grad
    return param + (-alpha / max(1.0, _rms(update) / clip_threshold)) * update, r, c, v


class TorchAdafactor(Convention):
    """``torch.optim.Adafactor`` (``beta_2_decay``, ``epsilon_1``/``epsilon_2`` its ``eps``, ``clip_threshold``
    its ``d``)."""

    framework = "torch"
    reference = "torch.optim.Adafactor"
    defaults = {"learning_rate": 0.01, "epsilon_1": None}
    lacks = ("relative_step",)
    refuses = {"weight_decay": "PyTorch computes the step size from the weights before it decays them, which "
                               "descend's decoupled decay (applied before the rule) does not reproduce"}
    update = Rule(torch_adafactor_update, per_tensor=True)

    def coefficients(self, step, hyper, dtype):
        # Python floats, as PyTorch: t^beta_2_decay, min(lr, 1/sqrt(t)); eps1 defaults to the dtype's epsilon
        t = float(step + 1)
        return {"rho_t": min(hyper["learning_rate"], 1 / t**0.5), "beta_2_t": t ** hyper["beta_2_decay"],
                "epsilon_1": hyper.get("epsilon_1", float(np.finfo(dtype).eps)), "epsilon_2": hyper["epsilon_2"],
                "clip_threshold": hyper["clip_threshold"]}


# ================================================================ optax (optax.adafactor)
def optax_adafactor_update(param, grad, r, c, v, *, learning_rate, decay_rate, one_minus_decay_rate, epsilon_1,
                           epsilon_2, clip_threshold, min_dim_size_to_factor):
    shape = param.shape
    order = np.argsort(shape) if param.ndim >= 2 else None
    square = grad * grad + epsilon_1
    if order is not None and shape[order[-2]] >= min_dim_size_to_factor:
        # factored over the largest axis (d0) and the second largest (d1)
        d1, d0 = int(order[-2]), int(order[-1])
        row = decay_rate * np.take(r, 0, axis=d0) + one_minus_decay_rate * np.mean(square, axis=d0)
        col = decay_rate * np.take(c, 0, axis=d1) + one_minus_decay_rate * np.mean(square, axis=d1)
        reduced_d1 = d1 - 1 if d1 > d0 else d1
        row_factor = (row / np.mean(row, axis=reduced_d1, keepdims=True)) ** -0.5
        update = grad * np.expand_dims(row_factor, d0) * np.expand_dims(col ** -0.5, d1)
        r, c = _keep(row, d0, shape), _keep(col, d1, shape)
    else:
        v = decay_rate * v + one_minus_decay_rate * square
        update = grad * v ** -0.5
    # clip to rms clip_threshold, scale by lr and by max(rms(w), eps2), descend
    update = update / np.maximum(1.0, np.sqrt(np.mean(update * update)) / clip_threshold)
    update = learning_rate * update
    scale = np.sqrt(np.mean(param * param))
    update = update * (epsilon_2 if scale <= epsilon_2 else scale)
    return param + -1 * update, r, c, v


class OptaxAdafactor(Convention):
    """``optax.adafactor`` (``beta_2_decay`` is minus its ``decay_rate``, ``epsilon_1`` its ``eps``,
    ``clip_threshold`` its ``clipping_threshold``, ``epsilon_2`` the ``min_scale`` of its parameter scale)."""

    framework = "optax"
    reference = "optax.adafactor"
    defaults = {"learning_rate": 1.0, "min_dim_size_to_factor": 128.0}
    accepts = ("min_dim_size_to_factor",)
    lacks = ("relative_step",)
    refuses = {"weight_decay": "optax's weight_decay_rate is not scaled by the learning rate"}
    update = Rule(optax_adafactor_update, per_tensor=True)

    def coefficients(self, step, hyper, dtype):
        # optax computes the decay rate in float32 whatever the variables' dtype
        f = np.float32
        decay = f(1.0) - f(step + 1) ** f(hyper["beta_2_decay"])
        return {"learning_rate": hyper["learning_rate"], "decay_rate": float(decay),
                "one_minus_decay_rate": float(f(1.0) - decay), "epsilon_1": hyper["epsilon_1"],
                "epsilon_2": hyper["epsilon_2"], "clip_threshold": hyper["clip_threshold"],
                "min_dim_size_to_factor": hyper["min_dim_size_to_factor"]}


class Adafactor(Optimizer):
    """Adafactor: Adam-like steps scaled by the parameter's RMS, with factored second moments.

    For a variable of rank >= 2 the second moment is estimated from a row mean ``r`` and a column mean
    ``c`` over its last two axes (Keras 3's Adafactor; no first moment). The slots ``r`` and ``c`` are
    stored broadcast to the variable's shape (every entry of a row of ``r``, of a column of ``c``, is the
    same); for a variable of rank < 2 they are unused zeros and ``v`` is an ordinary moving average.

    The rule reduces over the whole tensor (``rms``, the means), so it is per-tensor: sparse gradients are
    applied exactly by default (scattered into zeros, as Keras 3 does). ``sparse_updates="lazy"`` applies
    the rule to the gathered rows as if they were the whole tensor (descend's definition).

    ``convention="torch"`` or ``"optax"`` computes PyTorch's or optax's Adafactor
    instead (module docstring; no ``relative_step``, no ``weight_decay``).

    Args:
        learning_rate: default 0.001 (0.01 under ``"torch"``, 1 under ``"optax"``); with
            ``relative_step`` and a number, capped at ``1/sqrt(t)``.
        beta_2_decay: the decay exponent of ``beta_2_t = 1 - t^beta_2_decay`` (default -0.8; <= 0).
        epsilon_1: added to the squared gradient (default 1e-30; >= 0).
        epsilon_2: the smallest parameter scale (default 1e-3; >= 0).
        clip_threshold: the RMS the update is clipped to (default 1.0; > 0).
        relative_step: cap the learning rate at ``1/sqrt(t)`` (default True; Keras 3 only).
        min_dim_size_to_factor: optax only: factor a variable's second moment only when its
            second-largest dimension is at least this (default 128).
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

    #: the other frameworks' Adafactor (the class itself is Keras 3's; TF 1 has none)
    conventions = {"torch": TorchAdafactor, "optax": OptaxAdafactor}

    def __init__(self, learning_rate=Default(0.001), beta_2_decay=-0.8, epsilon_1=Default(1e-30), epsilon_2=1e-3,
                 clip_threshold=1.0, relative_step=True, min_dim_size_to_factor=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_2_decay", beta_2_decay, high=0)
        epsilon_1 = self.conventional("epsilon_1", epsilon_1)
        if epsilon_1 is not None:  # PyTorch's default: the machine epsilon of each variable's dtype
            self.add_hyperparameter("epsilon_1", epsilon_1, low=0)
        self.add_hyperparameter("epsilon_2", epsilon_2, low=0)
        self.add_hyperparameter("clip_threshold", clip_threshold, low=0, low_open=True)
        if not isinstance(relative_step, (bool, np.bool_)):
            raise TypeError(f"`relative_step` must be a bool. Received: relative_step={relative_step!r}")
        # Keras 3's only (None under a convention without it)
        self.relative_step = bool(self.conventional("relative_step", bool(relative_step), unset=True))
        factor = self.conventional("min_dim_size_to_factor", min_dim_size_to_factor)
        if factor is not None:
            self.add_hyperparameter("min_dim_size_to_factor", factor, low=0)

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
        config = super().get_config()
        if self.convention == "keras":
            config["relative_step"] = self.relative_step
        return config
