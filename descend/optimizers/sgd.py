"""SGD with optional (Nesterov) momentum: Keras 3's, and TF 1's, PyTorch's and optax's conventions.

Keras 3 (``keras/src/optimizers/sgd.py``, the default)::

    no momentum:  param <- param - lr * g
    momentum:     m <- momentum * m - lr * g ;  param <- param + m
    nesterov:     m <- momentum * m - lr * g ;  param <- param + momentum * m - lr * g

TF 1 (``MomentumOptimizer``), PyTorch (``torch.optim.SGD``) and optax (``optax.sgd``) keep the sum of
the gradients instead and scale it by this step's learning rate::

    accum <- momentum * accum + g ;  param <- param - lr * accum
    nesterov (TF 1):          param <- param - (lr * g + lr * momentum * accum)
    nesterov (PyTorch, optax): param <- param - lr * (g + momentum * accum)

With a constant learning rate all of them give the same trajectory (``m = -lr * accum``), rounded
differently. PyTorch's ``dampening`` scales the gradient added after the first step
(``accum <- momentum * accum + (1 - dampening) * g``; the first step's ``accum`` is ``g``).
"""

from __future__ import annotations

import numpy as np

from .convention import Convention, Default
from .exact_lazy import REPLAY, decay_products, per_row
from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["SGD", "SGD_RULE", "OptaxSGD", "TF1SGD", "TF1_MOMENTUM", "TF1_NESTEROV", "TorchSGD",
           "linear_momentum_catch_up", "momentum_catch_up", "momentum_update", "nesterov_catch_up", "nesterov_update",
           "sgd_catch_up", "sgd_update", "tf1_momentum_catch_up", "tf1_momentum_update", "tf1_nesterov_catch_up",
           "tf1_nesterov_update", "torch_damped_momentum_update", "torch_nesterov_catch_up", "torch_nesterov_update"]


def sgd_update(param, grad, *, learning_rate):
    # param <- param - lr * g
    return (param - grad * learning_rate,)


def momentum_update(param, grad, m, *, learning_rate, momentum):
    # m <- momentum * m - lr * g ; param <- param + m
    m = -grad * learning_rate + m * momentum
    return param + m, m


def nesterov_update(param, grad, m, *, learning_rate, momentum):
    # m <- momentum * m - lr * g ; param <- param + momentum * m - lr * g
    m = -grad * learning_rate + m * momentum
    return param + (-grad * learning_rate + m * momentum), m


def sgd_catch_up(param, *, steps, first):
    # a zero gradient changes nothing: only the decoupled decay, param <- param * prod_j (1 - d_j)
    return (param * per_row(decay_products(steps), first, param),)


def linear_momentum_catch_up(param, m, steps, first, c_of):
    """The closed form of momentum over skipped steps (zero gradient), shared by every momentum that is linear
    in its buffer: per skipped step j, ``m <- mu_j m`` and ``param <- (1 - d_j) param + c_j m`` (the new ``m``
    scaled: ``c_j = c_of(steps[j])``, in terms of the buffer before the step). After the steps from j on:
    ``param = A_j param + B_j m``, ``m = M_j m``, with ``A_j = (1 - d_j) A_{j+1}``,
    ``B_j = c_j A_{j+1} + mu_j B_{j+1}``, ``M_j = mu_j M_{j+1}``."""
    n = len(steps)
    a, b, mm = np.ones(n + 1), np.zeros(n + 1), np.ones(n + 1)
    for j in range(n - 1, -1, -1):
        mu = float(steps[j]["momentum"])
        a[j] = (1.0 - float(steps[j]["decay"])) * a[j + 1]
        b[j] = c_of(steps[j]) * a[j + 1] + mu * b[j + 1]
        mm[j] = mu * mm[j + 1]
    return param * per_row(a, first, param) + m * per_row(b, first, m), m * per_row(mm, first, m)


def momentum_catch_up(param, m, *, steps, first):
    # Keras momentum over skipped steps: m <- mu m ; param <- (1 - d) param + mu m
    return linear_momentum_catch_up(param, m, steps, first, lambda s: float(s["momentum"]))


def nesterov_catch_up(param, m, *, steps, first):
    # Nesterov: each skipped step moves param by mu * (mu m)
    return linear_momentum_catch_up(param, m, steps, first, lambda s: float(s["momentum"]) ** 2)


#: plain SGD's rule: a zero gradient changes nothing
SGD_RULE = Rule(sgd_update, zero_grad_is_identity=True)


# ================================================================ the sum of the gradients: TF 1, PyTorch, optax
def tf1_momentum_update(param, grad, accum, *, learning_rate, momentum):
    # accum <- momentum * accum + g ; param <- param - lr * accum  (PyTorch without dampening, optax: the same)
    accum = accum * momentum + grad
    return param - accum * learning_rate, accum


def tf1_nesterov_update(param, grad, accum, *, learning_rate, momentum):
    # accum <- momentum * accum + g ; param <- param - lr * g - lr * momentum * accum
    accum = accum * momentum + grad
    return param - (grad * learning_rate + accum * momentum * learning_rate), accum


def torch_nesterov_update(param, grad, accum, *, learning_rate, momentum):
    # accum <- momentum * accum + g ; param <- param - lr * (g + momentum * accum)  (optax's nesterov: the same)
    accum = accum * momentum + grad
    return param - learning_rate * (grad + momentum * accum), accum


def torch_damped_momentum_update(param, grad, accum, started, *, learning_rate, momentum, one_minus_dampening):
    # accum <- g on an element's first step, else momentum * accum + (1 - dampening) * g ; param <- param - lr * accum
    accum = np.where(started > 0, accum * momentum + grad * one_minus_dampening, grad)
    return param - learning_rate * accum, accum, np.maximum(started, 1.0)


def tf1_momentum_catch_up(param, accum, *, steps, first):
    # a zero-gradient step: accum <- mu accum ; param <- (1 - d) param - lr mu accum (the closed form shared
    # with Keras' momentum, with c_j = -lr_j mu_j)
    return linear_momentum_catch_up(param, accum, steps, first,
                                    lambda s: -float(s["learning_rate"]) * float(s["momentum"]))


def tf1_nesterov_catch_up(param, accum, *, steps, first):
    # Nesterov: param <- (1 - d) param - lr mu^2 accum
    return linear_momentum_catch_up(param, accum, steps, first,
                                    lambda s: -float(s["learning_rate"]) * float(s["momentum"]) ** 2)


#: PyTorch's and optax's Nesterov over zero-gradient steps: param <- param - lr * mu * (mu accum), as TF 1's
torch_nesterov_catch_up = tf1_nesterov_catch_up

#: TF's SparseApplyMomentum only touches the gradient's rows
TF1_MOMENTUM = Rule(tf1_momentum_update, sparse="lazy")
TF1_NESTEROV = Rule(tf1_nesterov_update, sparse="lazy")


class TF1SGD(Convention):
    """``tf.compat.v1.train.GradientDescentOptimizer`` (no momentum) or ``MomentumOptimizer``."""

    framework = "tf1"
    reference = "tf.compat.v1.train.MomentumOptimizer"

    @property
    def update(self):
        if not self._has_momentum:
            return SGD_RULE
        return TF1_NESTEROV if self.nesterov else TF1_MOMENTUM

    @property
    def catch_up(self):
        if not self._has_momentum:
            return sgd_catch_up
        return tf1_nesterov_catch_up if self.nesterov else tf1_momentum_catch_up


class TorchSGD(Convention):
    """``torch.optim.SGD``: the sum of the gradients; ``dampening``; ``weight_decay`` an L2 penalty."""

    framework = "torch"
    reference = "torch.optim.SGD"
    defaults = {"learning_rate": 0.001, "dampening": 0.0}
    accepts = ("dampening",)
    weight_decay = "l2"

    @property
    def slots(self):
        if not self._has_momentum:
            return ()
        # PyTorch's buffer is the first gradient itself: with dampening, a flag says which elements have one
        return (Slot("momentum"), Slot("momentum_started", nonnegative=True)) if self._damped else (Slot("momentum"),)

    @property
    def update(self):
        if not self._has_momentum:
            return SGD_RULE
        if self._damped:
            return torch_damped_momentum_update
        return torch_nesterov_update if self.nesterov else tf1_momentum_update

    @property
    def catch_up(self):
        if not self._has_momentum:
            return sgd_catch_up
        if self._damped:
            return REPLAY
        return torch_nesterov_catch_up if self.nesterov else tf1_momentum_catch_up

    def coefficients(self, step, hyper, dtype):
        c = {"learning_rate": dtype.type(hyper["learning_rate"])}
        if self._has_momentum:
            c["momentum"] = dtype.type(hyper["momentum"])
            if self._damped:
                c["one_minus_dampening"] = dtype.type(1 - hyper["dampening"])
        return c


class OptaxSGD(Convention):
    """``optax.sgd``: ``optax.trace`` (the sum of the gradients) scaled by ``-lr``."""

    framework = "optax"
    reference = "optax.sgd"
    lacks = ("weight_decay",)

    @property
    def update(self):
        if not self._has_momentum:
            return SGD_RULE
        return torch_nesterov_update if self.nesterov else tf1_momentum_update

    @property
    def catch_up(self):
        if not self._has_momentum:
            return sgd_catch_up
        return torch_nesterov_catch_up if self.nesterov else tf1_momentum_catch_up


class SGD(Optimizer):
    """Gradient descent with optional momentum (Keras 3 convention).

    ``v <- momentum * v - lr * g; var <- var + v`` (Nesterov:
    ``var <- var + momentum * v - lr * g``). Sparse updates default to
    ``"exact"``; with no momentum a zero gradient changes nothing, so exact
    sparse updates touch only the gradient's rows. With momentum, ``"lazy"``
    moves only the rows in the gradient (TF1 ``MomentumOptimizer``'s sparse
    behaviour).

    ``convention="tf1"``, ``"torch"`` or ``"optax"`` keeps the sum of the
    gradients instead, as those frameworks (module docstring).

    Args:
        learning_rate: step size (default 0.01; 0.001 under ``"torch"``).
        momentum: in [0, 1] (default 0).
        nesterov: use Nesterov momentum.
        dampening: PyTorch only: in [0, 1), the share of the gradient left out of the momentum
            after the first step (default 0; not with ``nesterov``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.SGD(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([2.0]), w)])
        >>> w.numpy()
        array([0.8], dtype=float32)
    """

    #: the other frameworks' SGD (the class itself is Keras 3's)
    conventions = {"tf1": TF1SGD, "torch": TorchSGD, "optax": OptaxSGD}

    #: keep the momentum slot also with momentum=0 (TF 1's MomentumOptimizer)
    always_momentum: bool = False

    def __init__(self, learning_rate=Default(0.01), momentum=0.0, nesterov: bool = False, dampening=None,
                 **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        if self.convention == "tf1":  # TF 1's MomentumOptimizer takes any momentum >= 0
            self.add_hyperparameter("momentum", momentum, low=0)
        else:
            self.add_hyperparameter("momentum", momentum, low=0, high=1,
                                    message="`momentum` must be a float between [0, 1]. Received: momentum={value}")
        self.nesterov = bool(nesterov)
        # the momentum slot exists unless momentum is the constant 0 (0 or 0.0; a schedule always has it), or
        # always_momentum
        self._has_momentum = self.always_momentum or self.hyperparameters()["momentum"] != 0.0
        dampening = self.conventional("dampening", dampening)
        self._damped = False
        if dampening is not None:
            self.add_hyperparameter("dampening", dampening, low=0, high=1, high_open=True)
            self._damped = self._has_momentum and self.hyperparameters()["dampening"] != 0.0
            if self.nesterov and (not self._has_momentum or self._damped):
                raise ValueError("Nesterov momentum requires a momentum and zero dampening (as torch.optim.SGD). "
                                 f"Received: momentum={momentum!r}, dampening={dampening!r}")

    @property
    def slots(self):
        return (Slot("momentum"),) if self._has_momentum else ()

    @property
    def catch_up(self):
        # sparse_updates="exact_lazy": closed forms (within rounding of the exact run; bit for bit without
        # weight decay and momentum)
        if not self._has_momentum:
            return sgd_catch_up
        return nesterov_catch_up if self.nesterov else momentum_catch_up

    @property
    def update(self):
        if not self._has_momentum:
            return SGD_RULE  # a zero gradient changes nothing: exact sparse updates touch only the gradient's rows
        return nesterov_update if self.nesterov else momentum_update

    def coefficients(self, step, hyper, dtype):
        # Keras casts both to the variable's dtype
        c = {"learning_rate": dtype.type(hyper["learning_rate"])}
        if self._has_momentum:
            c["momentum"] = dtype.type(hyper["momentum"])
        return c

    def get_config(self):
        return {**super().get_config(), "nesterov": self.nesterov}
