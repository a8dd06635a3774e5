"""SGD with optional (Nesterov) momentum, Keras 3 convention.

Follows ``keras/src/optimizers/sgd.py``::

    no momentum:  param <- param - lr * g
    momentum:     m <- momentum * m - lr * g ;  param <- param + m
    nesterov:     m <- momentum * m - lr * g ;  param <- param + momentum * m - lr * g
"""

from __future__ import annotations

import numpy as np

from .exact_lazy import decay_products, per_row
from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["SGD", "SGD_RULE", "linear_momentum_catch_up", "momentum_catch_up", "momentum_update", "nesterov_catch_up",
           "nesterov_update", "sgd_catch_up", "sgd_update"]


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


class SGD(Optimizer):
    """Gradient descent with optional momentum (Keras 3 convention).

    ``v <- momentum * v - lr * g; var <- var + v`` (Nesterov:
    ``var <- var + momentum * v - lr * g``). Sparse updates default to
    ``"exact"``; with no momentum a zero gradient changes nothing, so exact
    sparse updates touch only the gradient's rows. With momentum, ``"lazy"``
    moves only the rows in the gradient (TF1 ``MomentumOptimizer``'s sparse
    behaviour).

    Args:
        learning_rate: step size (default 0.01).
        momentum: in [0, 1] (default 0).
        nesterov: use Nesterov momentum.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.optimizers.SGD(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([2.0]), w)])
        >>> w.numpy()
        array([0.8], dtype=float32)
    """

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov: bool = False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("momentum", momentum, low=0, high=1,
                                message="`momentum` must be a float between [0, 1]. Received: momentum={value}")
        self.nesterov = bool(nesterov)
        # the momentum slot exists unless momentum is the constant 0 (0 or 0.0; a schedule always has it)
        self._has_momentum = self.hyperparameters()["momentum"] != 0.0

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
