"""SGD with optional (Nesterov) momentum, Keras 3 convention.

Follows ``keras/src/optimizers/sgd.py``::

    no momentum:  param <- param - lr * g
    momentum:     m <- momentum * m - lr * g ;  param <- param + m
    nesterov:     m <- momentum * m - lr * g ;  param <- param + momentum * m - lr * g
"""

from __future__ import annotations

from .base import Optimizer, Slot

__all__ = ["SGD", "momentum_update", "nesterov_update", "sgd_update"]


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
        self.add_hyperparameter("momentum", momentum, low=0, high=1)
        self.nesterov = bool(nesterov)
        # the momentum slot exists unless momentum is the constant 0 (0 or 0.0; a schedule always has it)
        self._has_momentum = self.hyperparameters()["momentum"] != 0.0
        self.zero_grad_is_identity = not self._has_momentum

    def slot_specs(self):
        return (Slot("momentum"),) if self._has_momentum else ()

    @property
    def update_rule(self):
        if not self._has_momentum:
            return sgd_update
        return nesterov_update if self.nesterov else momentum_update

    def coefficients(self, step, hyper, dtype):
        # Keras casts both to the variable's dtype
        c = {"learning_rate": dtype.type(hyper["learning_rate"])}
        if self._has_momentum:
            c["momentum"] = dtype.type(hyper["momentum"])
        return c

    def get_config(self):
        return {**super().get_config(), "nesterov": self.nesterov}
