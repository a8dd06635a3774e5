"""RMSprop (plain or centered, with optional momentum): Keras 3's, and TF 1's, PyTorch's and optax's
conventions.

Follows ``keras/src/optimizers/rmsprop.py`` (Hinton, 2012). The mean square
starts at zeros (TF1's ``RMSPropOptimizer`` starts it at ones) and epsilon is
added under the square root::

    v <- rho * v + (1 - rho) * g^2
    a <- rho * a + (1 - rho) * g                        (centered only)
    inc <- lr * g / sqrt(v + epsilon)                   (centered: sqrt(v - a^2 + epsilon))
    m <- momentum * m + inc ;  param <- param - m       (momentum > 0)
    param <- param - inc                                (momentum = 0)

``convention="tf1"`` (``tf.compat.v1.train.RMSPropOptimizer``): the same formula with the mean square
(slot ``rms``) starting at ones, every scalar in the variable's dtype, epsilon 1e-10, the ``momentum``
slot always there (centered: slot ``mg``) and lazy sparse updates.

``convention="torch"`` (``torch.optim.RMSprop``): epsilon outside the root and the learning rate
outside the momentum buffer::

    avg = sqrt(v) + epsilon                             (centered: sqrt(v - a^2) + epsilon)
    m <- momentum * m + g / avg ;  param <- param - lr * m     (momentum > 0)
    param <- param - lr * g / avg                               (momentum = 0)

lr 0.01, rho ("alpha") 0.99, epsilon 1e-8; ``weight_decay`` an L2 penalty.

``convention="optax"`` (``optax.rmsprop``): Keras 3's formula (optax's trace of ``-lr * g / sqrt(v + eps)``
is ``-m``); epsilon 1e-8.
"""

from __future__ import annotations

import numpy as np

from .convention import Convention, Default
from .exact_lazy import REPLAY, decay_products, per_row, suffix_products
from .optimizer import Optimizer
from .rule import Rule, Slot

__all__ = ["RMSprop", "OptaxRMSprop", "TF1RMSprop", "TF1_CENTERED_RMSPROP", "TF1_RMSPROP", "TorchRMSprop",
           "centered_rmsprop_catch_up", "centered_rmsprop_momentum_catch_up", "centered_rmsprop_momentum_update",
           "centered_rmsprop_update", "rmsprop_catch_up", "rmsprop_momentum_catch_up", "rmsprop_momentum_update",
           "rmsprop_update", "torch_centered_rmsprop_momentum_update", "torch_centered_rmsprop_update",
           "torch_rmsprop_momentum_update", "torch_rmsprop_update"]


def rmsprop_update(param, grad, velocity, *, learning_rate, rho, epsilon):
    # v <- rho v + (1 - rho) g^2 ; param <- param - lr g / sqrt(v + eps)
    velocity = rho * velocity + (1 - rho) * (grad * grad)
    return param - (learning_rate * grad) / np.sqrt(velocity + epsilon), velocity


def rmsprop_momentum_update(param, grad, velocity, momentum, *, learning_rate, rho, epsilon, momentum_rate):
    # v <- rho v + (1 - rho) g^2 ; m <- momentum m + lr g / sqrt(v + eps) ; param <- param - m
    velocity = rho * velocity + (1 - rho) * (grad * grad)
    momentum = momentum_rate * momentum + (learning_rate * grad) / np.sqrt(velocity + epsilon)
    return param - momentum, velocity, momentum


def centered_rmsprop_update(param, grad, velocity, average_gradient, *, learning_rate, rho, epsilon):
    # v <- rho v + (1 - rho) g^2 ; a <- rho a + (1 - rho) g ; param <- param - lr g / sqrt(v - a^2 + eps)
    velocity = rho * velocity + (1 - rho) * (grad * grad)
    average_gradient = rho * average_gradient + (1 - rho) * grad
    denominator = velocity - average_gradient * average_gradient + epsilon
    return param - (learning_rate * grad) / np.sqrt(denominator), velocity, average_gradient


def centered_rmsprop_momentum_update(param, grad, velocity, momentum, average_gradient, *, learning_rate, rho,
                                     epsilon, momentum_rate):
    # as centered_rmsprop_update, then m <- momentum m + inc ; param <- param - m
    velocity = rho * velocity + (1 - rho) * (grad * grad)
    average_gradient = rho * average_gradient + (1 - rho) * grad
    denominator = velocity - average_gradient * average_gradient + epsilon
    momentum = momentum_rate * momentum + (learning_rate * grad) / np.sqrt(denominator)
    return param - momentum, velocity, momentum, average_gradient


def _scaled(steps, first, param, *decaying):
    # param decays by prod (1 - d_j); each slot in `decaying` by prod rho_j
    r = suffix_products([s["rho"] for s in steps])
    return (param * per_row(decay_products(steps), first, param),) + tuple(x * per_row(r, first, x) for x in decaying)


def rmsprop_catch_up(param, velocity, *, steps, first):
    # a zero gradient: v <- rho v, param unchanged (but for the decoupled decay)
    return _scaled(steps, first, param, velocity)


def centered_rmsprop_catch_up(param, velocity, average_gradient, *, steps, first):
    # a zero gradient: v <- rho v, a <- rho a, param unchanged (but for the decoupled decay)
    return _scaled(steps, first, param, velocity, average_gradient)


def _momentum_factors(steps):
    # per skipped step j: param <- (1 - d_j) param - mu_j m ; m <- mu_j m. After the steps from j on:
    # param = A_j param + B_j m, m = M_j m; A_j = (1 - d_j) A_{j+1}, B_j = mu_j (B_{j+1} - A_{j+1}), M_j = mu_j M_{j+1}
    n = len(steps)
    a, b, mm = np.ones(n + 1), np.zeros(n + 1), np.ones(n + 1)
    for j in range(n - 1, -1, -1):
        mu = float(steps[j]["momentum_rate"])
        a[j] = (1.0 - float(steps[j]["decay"])) * a[j + 1]
        b[j] = mu * (b[j + 1] - a[j + 1])
        mm[j] = mu * mm[j + 1]
    return a, b, mm


def rmsprop_momentum_catch_up(param, velocity, momentum, *, steps, first):
    # a zero gradient: v <- rho v ; m <- mu m ; param <- param - m (closed form over the skipped steps)
    a, b, mm = _momentum_factors(steps)
    v = _scaled(steps, first, param, velocity)[1]
    return (param * per_row(a, first, param) + momentum * per_row(b, first, param), v,
            momentum * per_row(mm, first, param))


def centered_rmsprop_momentum_catch_up(param, velocity, momentum, average_gradient, *, steps, first):
    # as rmsprop_momentum_catch_up, and a <- rho a
    a, b, mm = _momentum_factors(steps)
    _, v, avg = _scaled(steps, first, param, velocity, average_gradient)
    return (param * per_row(a, first, param) + momentum * per_row(b, first, param), v,
            momentum * per_row(mm, first, param), avg)


# ================================================================ TF 1 (tf.compat.v1.train.RMSPropOptimizer)
#: TF's SparseApplyRMSProp only touches the gradient's rows
TF1_RMSPROP = Rule(rmsprop_momentum_update, sparse="lazy")
TF1_CENTERED_RMSPROP = Rule(centered_rmsprop_momentum_update, sparse="lazy")


class TF1RMSprop(Convention):
    """``tf.compat.v1.train.RMSPropOptimizer`` (``descend.compat.v1.train.RMSPropOptimizer`` is this)."""

    framework = "tf1"
    reference = "tf.compat.v1.train.RMSPropOptimizer"
    defaults = {"epsilon": 1e-10}

    @property
    def slots(self):
        return (Slot("rms", "ones", nonnegative=True), Slot("momentum")) + ((Slot("mg"),) if self.centered else ())

    @property
    def update(self):
        return TF1_CENTERED_RMSPROP if self.centered else TF1_RMSPROP

    @property
    def catch_up(self):
        if self.hyperparameters()["epsilon"] == 0.0:
            return REPLAY
        return centered_rmsprop_momentum_catch_up if self.centered else rmsprop_momentum_catch_up

    def coefficients(self, step, hyper, dtype):
        c = dtype.type  # TF1 computes in the variable's dtype
        return {"learning_rate": c(hyper["learning_rate"]), "rho": c(hyper["rho"]), "epsilon": c(hyper["epsilon"]),
                "momentum_rate": c(hyper["momentum"])}


# ================================================================ PyTorch (torch.optim.RMSprop)
def torch_rmsprop_update(param, grad, velocity, *, learning_rate, rho, epsilon, momentum_rate):
    # v <- v rho + (1 - rho) g g ; param <- param - lr g / (sqrt(v) + eps)
    velocity = velocity * rho + (1 - rho) * grad * grad
    return param - learning_rate * (grad / (np.sqrt(velocity) + epsilon)), velocity


def torch_rmsprop_momentum_update(param, grad, velocity, momentum, *, learning_rate, rho, epsilon, momentum_rate):
    # v as above ; m <- m momentum + g / (sqrt(v) + eps) ; param <- param - lr m
    velocity = velocity * rho + (1 - rho) * grad * grad
    momentum = momentum * momentum_rate + grad / (np.sqrt(velocity) + epsilon)
    return param - learning_rate * momentum, velocity, momentum


def torch_centered_rmsprop_update(param, grad, velocity, average_gradient, *, learning_rate, rho, epsilon,
                                  momentum_rate):
    # a <- a + (1 - rho)(g - a) (lerp) ; param <- param - lr g / (sqrt(v - a^2) + eps)
    velocity = velocity * rho + (1 - rho) * grad * grad
    average_gradient = average_gradient + (1 - rho) * (grad - average_gradient)
    avg = np.sqrt(velocity - average_gradient * average_gradient) + epsilon
    return param - learning_rate * (grad / avg), velocity, average_gradient


def torch_centered_rmsprop_momentum_update(param, grad, velocity, momentum, average_gradient, *, learning_rate, rho,
                                           epsilon, momentum_rate):
    # centered, then m <- m momentum + g / avg ; param <- param - lr m
    velocity = velocity * rho + (1 - rho) * grad * grad
    average_gradient = average_gradient + (1 - rho) * (grad - average_gradient)
    avg = np.sqrt(velocity - average_gradient * average_gradient) + epsilon
    momentum = momentum * momentum_rate + grad / avg
    return param - learning_rate * momentum, velocity, momentum, average_gradient


class TorchRMSprop(Convention):
    """``torch.optim.RMSprop`` (``rho`` is its ``alpha``)."""

    framework = "torch"
    reference = "torch.optim.RMSprop"
    defaults = {"learning_rate": 0.01, "rho": 0.99, "epsilon": 1e-8}
    weight_decay = "l2"
    catch_up = REPLAY

    @property
    def update(self):
        if self.centered:
            return torch_centered_rmsprop_momentum_update if self._has_momentum else torch_centered_rmsprop_update
        return torch_rmsprop_momentum_update if self._has_momentum else torch_rmsprop_update

    def coefficients(self, step, hyper, dtype):
        # Python floats, as PyTorch passes them: each operation casts its scalar to the dtype (NumPy's weak
        # scalars), and 1 - rho is computed in float64 first
        return {"learning_rate": hyper["learning_rate"], "rho": hyper["rho"], "epsilon": hyper["epsilon"],
                "momentum_rate": hyper["momentum"]}


class OptaxRMSprop(Convention):
    """``optax.rmsprop`` (``rho`` is its ``decay``): Keras 3's arithmetic, optax's epsilon."""

    framework = "optax"
    reference = "optax.rmsprop"
    defaults = {"epsilon": 1e-8}
    lacks = ("weight_decay",)


class RMSprop(Optimizer):
    """RMSprop: divide the gradient by a running root mean square (Keras 3 convention).

    ``v <- rho v + (1-rho) g^2``, ``var <- var - lr g / sqrt(v + epsilon)``.
    Centered: also ``a <- rho a + (1-rho) g`` and divide by
    ``sqrt(v - a^2 + epsilon)``. With momentum: ``m <- momentum m + inc``,
    ``var <- var - m``. Slots: ``velocity`` (starts at zeros), ``momentum``
    (only when ``momentum`` is not 0), ``average_gradient`` (only when centered).

    Sparse updates default to ``"exact"``, as Keras 3: the mean squares (and
    momentum) of rows outside the gradient decay too, and with momentum those
    rows keep moving. ``sparse_updates="lazy"`` updates only the gradient's
    rows and their slots (TF1 ``SparseApplyRMSProp``); its cost does not grow
    with the table.

    ``convention="tf1"``, ``"torch"`` or ``"optax"`` computes TF 1's, PyTorch's
    or optax's RMSprop instead (module docstring).

    Args:
        learning_rate: default 0.001 (0.01 under ``"torch"``).
        rho: in [0, 1], the discount of the old mean square; default 0.9 (0.99 under ``"torch"``).
        momentum: in [0, 1]; default 0.0 (no momentum slot).
        epsilon: >= 0, added under the square root; default 1e-7 (1e-10 under ``"tf1"``, 1e-8 under
            ``"torch"`` and ``"optax"``).
        centered: normalize by the estimated variance instead of the
            uncentered second moment.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([10.0], name="w")
        >>> opt = ds.optimizers.RMSprop(learning_rate=0.1)
        >>> _ = opt.minimize(lambda: ds.reduce_sum(w * w) / 2.0, [w])
        >>> w.numpy()
        array([9.683772], dtype=float32)
    """

    #: the other frameworks' RMSprop (the class itself is Keras 3's)
    conventions = {"tf1": TF1RMSprop, "torch": TorchRMSprop, "optax": OptaxRMSprop}

    def __init__(self, learning_rate=Default(0.001), rho=Default(0.9), momentum=0.0, epsilon=Default(1e-7),
                 centered: bool = False, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("rho", self.conventional("rho", rho), low=0, high=1)
        self.add_hyperparameter("momentum", momentum, low=0, high=1)
        self.add_hyperparameter("epsilon", self.conventional("epsilon", epsilon), low=0)
        self.centered = bool(centered)
        # a momentum slot exists unless momentum is the number 0 (a schedule always gets one)
        self._has_momentum = not (isinstance(momentum, (int, float, np.integer, np.floating)) and momentum == 0)

    @property
    def slots(self):
        return ((Slot("velocity", nonnegative=True),) + ((Slot("momentum"),) if self._has_momentum else ())
                + ((Slot("average_gradient"),) if self.centered else ()))

    @property
    def update(self):
        if self.centered:
            return centered_rmsprop_momentum_update if self._has_momentum else centered_rmsprop_update
        return rmsprop_momentum_update if self._has_momentum else rmsprop_update

    @property
    def catch_up(self):
        # sparse_updates="exact_lazy": closed forms; with epsilon = 0 a zero gradient can give 0/0 (NaN) in the
        # exact run, which only a replay reproduces
        if self.hyperparameters()["epsilon"] == 0.0:
            return REPLAY
        if self.centered:
            return centered_rmsprop_momentum_catch_up if self._has_momentum else centered_rmsprop_catch_up
        return rmsprop_momentum_catch_up if self._has_momentum else rmsprop_catch_up

    def coefficients(self, step, hyper, dtype):
        # Keras casts the learning rate to the variable dtype; the other scalars stay Python floats
        c = {"learning_rate": dtype.type(hyper["learning_rate"]), "rho": hyper["rho"], "epsilon": hyper["epsilon"]}
        if self._has_momentum:
            c["momentum_rate"] = hyper["momentum"]
        return c

    def get_config(self):
        return {**super().get_config(), "centered": self.centered}
