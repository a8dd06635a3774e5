"""Adam (and AMSGrad): Keras 3's, and TF 1's, PyTorch's and optax's conventions.

Keras 3 (``keras/src/optimizers/adam.py``, the default): epsilon is added to the
uncorrected ``sqrt(v)`` and the bias correction is folded into the step size::

    t = iterations + 1
    alpha = lr * sqrt(1 - beta_2^t) / (1 - beta_1^t)
    m <- m + (g - m) * (1 - beta_1)
    v <- v + (g^2 - v) * (1 - beta_2)
    v_hat <- max(v_hat, v)                      (amsgrad only)
    param <- param - alpha * m / (sqrt(v or v_hat) + epsilon)

``convention="tf1"`` (``tf.compat.v1.train.AdamOptimizer``): the same formula, every scalar in the
variable's dtype, ``beta1_power``/``beta2_power`` kept as step state; epsilon 1e-8.

``convention="torch"`` (``torch.optim.Adam``): epsilon is added to the corrected root::

    param <- param - lr / (1 - beta_1^t) * m / (sqrt(v or v_hat) / sqrt(1 - beta_2^t) + epsilon)

epsilon 1e-8; ``weight_decay`` is an L2 penalty (``g <- g + wd * param``); sparse gradients are
lazy with ``torch.optim.SparseAdam``'s arithmetic (Keras' epsilon placement).

``convention="optax"`` (``optax.adam``, ``optax.amsgrad``)::

    param <- param - lr * (m / (1 - beta_1^t)) / (sqrt(v / (1 - beta_2^t) + eps_root) + epsilon)

AMSGrad keeps the maximum of the *corrected* ``v / (1 - beta_2^t)``; epsilon 1e-8, ``eps_root`` 0.
"""

from __future__ import annotations

import math

import numpy as np

from .convention import Convention, Default
from .exact_lazy import REPLAY
from .optimizer import Optimizer
from .rule import Rule, Slot, StepState

__all__ = ["Adam", "OptaxAdam", "TF1Adam", "TF1_ADAM_RULE", "TorchAdam", "adam_step_size", "adam_update", "amsgrad_update",
           "optax_adam_coefficients", "optax_adam_update", "optax_amsgrad_update", "tf1_adam_coefficients",
           "tf1_beta_powers", "torch_adam_update", "torch_amsgrad_update", "torch_sparse_adam_update"]


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


# ================================================================ TF 1 (tf.compat.v1.train.AdamOptimizer)
#: TF 1's dense kernel uses adam_update's order, its _apply_sparse the scatter order
TF1_ADAM_RULE = Rule(adam_update, sparse_fn=adam_scatter_update)


def tf1_beta_powers(beta_1: str, beta_2: str) -> tuple:
    """TF 1's ``beta1_power``/``beta2_power``: created at beta (hyperparameters ``beta_1``/``beta_2`` name them)
    in the narrowest dtype of the first variables, used, then multiplied by beta after each update (its
    ``_finish``)."""
    return tuple(StepState(power, initial=lambda hyper, dtype, beta=beta: np.asarray(hyper[beta], dtype),
                           advance=lambda power, step, hyper, beta=beta: power * power.dtype.type(hyper[beta]),
                           dtype="smallest", advance_first=False)
                 for power, beta in (("beta1_power", beta_1), ("beta2_power", beta_2)))


def tf1_adam_coefficients(hyper, dtype, beta_1: str, beta_2: str) -> dict:
    """TF 1's scalars, all in the variable's dtype: ``alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``."""
    c = dtype.type
    b1p, b2p = c(hyper["beta1_power"]), c(hyper["beta2_power"])
    alpha = c(hyper["learning_rate"]) * np.sqrt(1 - b2p) / (1 - b1p)
    return {"alpha": alpha, "beta_1": c(hyper[beta_1]), "beta_2": c(hyper[beta_2]), "epsilon": c(hyper["epsilon"])}


class TF1Adam(Convention):
    """``tf.compat.v1.train.AdamOptimizer`` (``descend.compat.v1.train.AdamOptimizer`` is :class:`Adam` under
    it)."""

    framework = "tf1"
    reference = "tf.compat.v1.train.AdamOptimizer"
    defaults = {"epsilon": 1e-8}
    lacks = ("amsgrad",)
    update = TF1_ADAM_RULE
    slots = (Slot("m"), Slot("v", nonnegative=True), *tf1_beta_powers("beta_1", "beta_2"))

    def coefficients(self, step, hyper, dtype):
        return tf1_adam_coefficients(hyper, dtype, "beta_1", "beta_2")


# ================================================================ PyTorch (torch.optim.Adam, SparseAdam)
def torch_adam_update(param, grad, m, v, *, neg_step_size, neg_sparse_step_size, bias_correction2_sqrt, beta_1,
                      beta_2, epsilon):
    # m <- m + (g - m)(1 - b1) (lerp) ; v <- v b2 + (1 - b2) g g
    m = m + (grad - m) * (1 - beta_1)
    v = v * beta_2 + (1 - beta_2) * grad * grad
    # param <- param - lr/(1 - b1^t) * m / (sqrt(v)/sqrt(1 - b2^t) + eps)
    return param + neg_step_size * (m / (np.sqrt(v) / bias_correction2_sqrt + epsilon)), m, v


def torch_amsgrad_update(param, grad, m, v, v_hat, *, neg_step_size, neg_sparse_step_size, bias_correction2_sqrt,
                         beta_1, beta_2, epsilon):
    # as torch_adam_update, with v_hat <- max(v_hat, v) in the denominator
    m = m + (grad - m) * (1 - beta_1)
    v = v * beta_2 + (1 - beta_2) * grad * grad
    v_hat = np.maximum(v_hat, v)
    return param + neg_step_size * (m / (np.sqrt(v_hat) / bias_correction2_sqrt + epsilon)), m, v, v_hat


def torch_sparse_adam_update(param, grad, m, v, *, neg_step_size, neg_sparse_step_size, bias_correction2_sqrt,
                             beta_1, beta_2, epsilon):
    # SparseAdam, on the gradient's rows: m <- m + (g - m)(1 - b1) ; v <- v + (g^2 - v)(1 - b2) ;
    # param <- param - (lr sqrt(1 - b2^t)/(1 - b1^t)) * (m / (sqrt(v) + eps))   (Keras' epsilon placement)
    m = m + (grad - m) * (1 - beta_1)
    v = v + (grad * grad - v) * (1 - beta_2)
    return param + (m / (np.sqrt(v) + epsilon)) * neg_sparse_step_size, m, v


class TorchAdam(Convention):
    """``torch.optim.Adam`` (``torch.optim.SparseAdam`` for lazy sparse updates, the default)."""

    framework = "torch"
    reference = "torch.optim.Adam"
    defaults = {"epsilon": 1e-8}
    weight_decay = "l2"

    @property
    def update(self):
        if self.amsgrad:  # PyTorch has no sparse AMSGrad: lazy updates run the dense rule on the rows
            return Rule(torch_amsgrad_update, sparse="lazy")
        return Rule(torch_adam_update, sparse="lazy", lazy_fn=torch_sparse_adam_update)

    def coefficients(self, step, hyper, dtype):
        # PyTorch computes the step sizes in Python floats, then each operation casts its scalar to the dtype
        c, t = dtype.type, step + 1
        b1, b2, lr = hyper["beta_1"], hyper["beta_2"], hyper["learning_rate"]
        bc1, bc2 = 1 - b1**t, 1 - b2**t
        return {"neg_step_size": c(-(lr / bc1)), "neg_sparse_step_size": c(-(lr * math.sqrt(bc2) / bc1)),
                "bias_correction2_sqrt": c(bc2**0.5), "beta_1": b1, "beta_2": b2, "epsilon": c(hyper["epsilon"])}


# ================================================================ optax (optax.adam, optax.amsgrad)
def optax_adam_update(param, grad, mu, nu, *, neg_learning_rate, bias_correction_1, bias_correction_2, beta_1,
                      beta_2, epsilon, eps_root):
    # mu <- (1 - b1) g + b1 mu ; nu <- (1 - b2) g^2 + b2 nu
    mu = (1 - beta_1) * grad + beta_1 * mu
    nu = (1 - beta_2) * (grad * grad) + beta_2 * nu
    # param <- param + (-lr) * (mu/(1 - b1^t)) / (sqrt(nu/(1 - b2^t) + eps_root) + eps)
    return param + neg_learning_rate * ((mu / bias_correction_1) / (np.sqrt(nu / bias_correction_2 + eps_root)
                                                                     + epsilon)), mu, nu


def optax_amsgrad_update(param, grad, mu, nu, nu_max, *, neg_learning_rate, bias_correction_1, bias_correction_2,
                         beta_1, beta_2, epsilon, eps_root):
    # as optax_adam_update, with nu_max <- max(nu_max, nu/(1 - b2^t)) (the corrected moment) in the denominator
    mu = (1 - beta_1) * grad + beta_1 * mu
    nu = (1 - beta_2) * (grad * grad) + beta_2 * nu
    nu_max = np.maximum(nu_max, nu / bias_correction_2)
    return param + neg_learning_rate * ((mu / bias_correction_1) / (np.sqrt(nu_max + eps_root) + epsilon)), mu, nu, \
        nu_max


def optax_adam_coefficients(step, hyper, dtype) -> dict:
    """optax's scalars: ``1 - b^t`` computed in float64 (JAX with x64) and cast to the dtype, ``-lr`` a weak
    scalar, the rest weak Python floats."""
    c, t = dtype.type, step + 1
    b1, b2 = hyper["beta_1"], hyper["beta_2"]
    return {"neg_learning_rate": c(-hyper["learning_rate"]), "bias_correction_1": c(1 - b1**t),
            "bias_correction_2": c(1 - b2**t), "beta_1": b1, "beta_2": b2, "epsilon": hyper["epsilon"],
            "eps_root": hyper["eps_root"]}


class OptaxAdam(Convention):
    """``optax.adam`` (``optax.amsgrad`` with ``amsgrad=True``)."""

    framework = "optax"
    reference = "optax.adam"
    defaults = {"epsilon": 1e-8, "eps_root": 0.0}
    accepts = ("eps_root",)
    lacks = ("weight_decay",)

    @property
    def update(self):
        return optax_amsgrad_update if self.amsgrad else optax_adam_update

    def coefficients(self, step, hyper, dtype):
        return optax_adam_coefficients(step, hyper, dtype)


class Adam(Optimizer):
    """Adam (Kingma & Ba), Keras 3 convention.

    ``m <- b1 m + (1-b1) g``, ``v <- b2 v + (1-b2) g^2``,
    ``var <- var - lr sqrt(1-b2^t)/(1-b1^t) * m / (sqrt(v) + eps)``.

    Sparse updates default to ``"exact"`` (the moments of untouched rows decay,
    as TF1's ``AdamOptimizer``). ``sparse_updates="lazy"`` updates only the
    gradient's rows and their moments, with the global step's bias correction
    (LazyAdam / PyTorch ``SparseAdam``); its cost does not grow with the table.

    ``convention="tf1"``, ``"torch"`` or ``"optax"`` computes TF 1's, PyTorch's or
    optax's Adam instead (module docstring; ``docs/semantics.md``).

    Args:
        learning_rate: default 0.001.
        beta_1: in [0, 1), default 0.9.
        beta_2: in [0, 1), default 0.999.
        epsilon: >= 0, added to ``sqrt(v)``; default 1e-7 (1e-8 under the other conventions).
        amsgrad: keep the running maximum of ``v`` (slot ``v_hat``); not under ``"tf1"``.
        eps_root: optax only: added to the corrected ``v`` under the root (default 0).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, -1.0], name="w")
        >>> opt = ds.optimizers.Adam(learning_rate=0.1)
        >>> _ = opt.minimize(lambda: ds.reduce_sum(w * w), [w])
        >>> w.numpy().round(4)
        array([ 0.9, -0.9], dtype=float32)
    """

    #: the other frameworks' Adam (the class itself is Keras 3's)
    conventions = {"tf1": TF1Adam, "torch": TorchAdam, "optax": OptaxAdam}

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=Default(1e-7), amsgrad: bool = False,
                 eps_root=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_1", beta_1, low=0, high=1, high_open=True)
        self.add_hyperparameter("beta_2", beta_2, low=0, high=1, high_open=True)
        self.add_hyperparameter("epsilon", self.conventional("epsilon", epsilon), low=0)
        eps_root = self.conventional("eps_root", eps_root)
        if eps_root is not None:
            self.add_hyperparameter("eps_root", eps_root, low=0)
        self.amsgrad = bool(self.conventional("amsgrad", amsgrad, unset=False))

    @property
    def slots(self):
        return ((Slot("m", keras_name="momentum"), Slot("v", nonnegative=True, keras_name="velocity"))
                + ((Slot("v_hat", nonnegative=True, keras_name="velocity_hat"),) if self.amsgrad else ()))

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
