"""Nadam: Adam with Nesterov momentum (Dozat, 2015): Keras 3's, and PyTorch's and optax's conventions.

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

``convention="torch"`` (``torch.optim.NAdam``): the schedule is ``mu_t = beta_1 * (1 - 0.5 *
0.96^(t * momentum_decay))`` (``momentum_decay`` 0.004), epsilon is added to ``sqrt(v_hat)``, and
the product ``mu_1 ... mu_t`` (step state ``mu_product``) is kept in float32, PyTorch's default
dtype::

    param <- param - lr (1 - mu_t) / (1 - P_t) * g / d - lr mu_{t+1} / (1 - P_t mu_{t+1}) * m / d,
    d = sqrt(v / (1 - beta_2^t)) + epsilon

lr 0.002, epsilon 1e-8, ``weight_decay`` an L2 penalty.

``convention="optax"`` (``optax.nadam``, Adam with ``nesterov=True``): no schedule::

    m_hat = beta_1 m / (1 - beta_1^(t+1)) + (1 - beta_1) g / (1 - beta_1^t)
    param <- param - lr m_hat / (sqrt(v / (1 - beta_2^t) + eps_root) + epsilon)

epsilon 1e-8. TensorFlow 1 has no Nadam.
"""

from __future__ import annotations

import numpy as np

from .adam import optax_adam_coefficients
from .convention import Convention, Default
from .exact_lazy import REPLAY
from .optimizer import Optimizer
from .rule import Slot, StepState

__all__ = ["Nadam", "OptaxNadam", "TorchNadam", "nadam_update", "optax_nadam_update", "torch_nadam_update"]


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


# ================================================================ PyTorch (torch.optim.NAdam)
def _torch_mu(beta_1, momentum_decay, t):
    # mu_t = b1 (1 - 0.5 * 0.96^(t psi)), in Python floats
    return beta_1 * (1.0 - 0.5 * (0.96 ** (t * momentum_decay)))


def advance_mu_product(mu_product, step, hyper):
    # mu_product <- mu_product * mu_t, in mu_product's dtype (PyTorch's float32 tensor times a Python float)
    return mu_product * mu_product.dtype.type(_torch_mu(hyper["beta_1"], hyper["momentum_decay"], step + 1))


def torch_nadam_update(param, grad, m, v, *, beta_1, beta_2, bias_correction2, epsilon, grad_coefficient,
                       momentum_coefficient):
    # m <- m + (g - m)(1 - b1) ; v <- v b2 + (1 - b2) g g ; d = sqrt(v / (1 - b2^t)) + eps
    m = m + (grad - m) * (1 - beta_1)
    v = v * beta_2 + (1 - beta_2) * grad * grad
    denom = np.sqrt(v / bias_correction2) + epsilon
    # param <- param - lr (1 - mu_t)/(1 - P_t) g/d - lr mu_{t+1}/(1 - P_t mu_{t+1}) m/d  (two steps, as PyTorch)
    param = param + grad_coefficient * (grad / denom)
    return param + momentum_coefficient * (m / denom), m, v


class TorchNadam(Convention):
    """``torch.optim.NAdam``."""

    framework = "torch"
    reference = "torch.optim.NAdam"
    defaults = {"learning_rate": 0.002, "epsilon": 1e-8, "momentum_decay": 0.004}
    accepts = ("momentum_decay",)
    weight_decay = "l2"
    # P_t = mu_1 ... mu_t: PyTorch keeps it in its default dtype (float32) whatever the variables'
    slots = (Slot("momentum"), Slot("velocity", nonnegative=True),
             StepState("mu_product", initial=_one, advance=advance_mu_product, dtype="float32", advance_first=True))
    update = staticmethod(torch_nadam_update)

    def coefficients(self, step, hyper, dtype):
        # PyTorch's scalars in Python floats (P_t read back from its float32 tensor), cast where used
        t, c = step + 1, dtype.type
        lr, b1, psi = hyper["learning_rate"], hyper["beta_1"], hyper["momentum_decay"]
        mu, mu_next = _torch_mu(b1, psi, t), _torch_mu(b1, psi, t + 1)
        product = float(hyper["mu_product"])
        return {"beta_1": b1, "beta_2": hyper["beta_2"], "bias_correction2": c(1 - hyper["beta_2"] ** t),
                "epsilon": hyper["epsilon"], "grad_coefficient": c(-lr * (1.0 - mu) / (1.0 - product)),
                "momentum_coefficient": c((-lr * mu_next) / (1.0 - product * mu_next))}


# ================================================================ optax (optax.nadam)
def optax_nadam_update(param, grad, mu, nu, *, neg_learning_rate, bias_correction_1, bias_correction_1_next,
                       bias_correction_2, beta_1, beta_2, epsilon, eps_root):
    # mu <- (1 - b1) g + b1 mu ; nu <- (1 - b2) g^2 + b2 nu
    mu = (1 - beta_1) * grad + beta_1 * mu
    nu = (1 - beta_2) * (grad * grad) + beta_2 * nu
    # m_hat = b1 mu / (1 - b1^(t+1)) + (1 - b1) g / (1 - b1^t)
    mu_hat = beta_1 * (mu / bias_correction_1_next) + (1 - beta_1) * (grad / bias_correction_1)
    return param + neg_learning_rate * (mu_hat / (np.sqrt(nu / bias_correction_2 + eps_root) + epsilon)), mu, nu


class OptaxNadam(Convention):
    """``optax.nadam`` (``optax.adam(nesterov=True)``)."""

    framework = "optax"
    reference = "optax.nadam"
    defaults = {"epsilon": 1e-8, "eps_root": 0.0}
    accepts = ("eps_root",)
    lacks = ("weight_decay",)
    slots = (Slot("momentum"), Slot("velocity", nonnegative=True))
    update = staticmethod(optax_nadam_update)

    def coefficients(self, step, hyper, dtype):
        c = optax_adam_coefficients(step, hyper, dtype)
        c["bias_correction_1_next"] = dtype.type(1 - hyper["beta_1"] ** (step + 2))
        return c


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

    ``convention="torch"`` or ``"optax"`` computes PyTorch's or optax's NAdam
    instead (module docstring).

    Args:
        learning_rate: default 0.001 (0.002 under ``"torch"``).
        beta_1: in [0, 1), default 0.9.
        beta_2: in [0, 1), default 0.999.
        epsilon: >= 0, added to ``sqrt(v_hat)``; default 1e-7 (1e-8 under ``"torch"`` and ``"optax"``).
        momentum_decay: PyTorch only: >= 0, ``psi`` of its schedule ``0.96^(t * psi)`` (default 0.004).
        eps_root: optax only: >= 0, added to ``v_hat`` under the root (default 0).
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

    #: the other frameworks' NAdam (the class itself is Keras 3's; TF 1 has none)
    conventions = {"torch": TorchNadam, "optax": OptaxNadam}

    def __init__(self, learning_rate=Default(0.001), beta_1=0.9, beta_2=0.999, epsilon=Default(1e-7),
                 momentum_decay=None, eps_root=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_1", beta_1, low=0, high=1, high_open=True)
        self.add_hyperparameter("beta_2", beta_2, low=0, high=1, high_open=True)
        self.add_hyperparameter("epsilon", self.conventional("epsilon", epsilon), low=0)
        for name, value in (("momentum_decay", momentum_decay), ("eps_root", eps_root)):
            value = self.conventional(name, value)
            if value is not None:
                self.add_hyperparameter(name, value, low=0)

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
