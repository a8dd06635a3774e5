"""Lion ("EvoLved Sign Momentum", Chen et al., 2023): Keras 3's and optax's conventions.

Follows ``keras/src/optimizers/lion.py``::

    param <- param - lr * sign(beta_1 * m + (1 - beta_1) * g)
    m <- beta_2 * m + (1 - beta_2) * g

The step interpolates with ``beta_1`` but the momentum is tracked with
``beta_2``; every element moves by exactly ``lr`` (or 0), so Lion usually
wants a learning rate 3-10x smaller than Adam's.

``convention="optax"`` (``optax.lion``) computes the same formula; its ``weight_decay`` (the same
decoupled decay of the old value, ``lr * weight_decay * var``) defaults to 1e-3. PyTorch and
TensorFlow 1 have no Lion.
"""

from __future__ import annotations

import numpy as np

from .convention import Convention
from .exact_lazy import REPLAY
from .optimizer import Optimizer
from .rule import Slot

__all__ = ["Lion", "OptaxLion", "lion_update"]


def lion_update(param, grad, m, *, learning_rate, beta_1, one_minus_beta_1, beta_2, one_minus_beta_2):
    # param <- param - lr * sign(b1 m + (1 - b1) g)
    param = param - learning_rate * np.sign(m * beta_1 + grad * one_minus_beta_1)
    # m <- b2 m + (1 - b2) g
    return param, m * beta_2 + grad * one_minus_beta_2


class OptaxLion(Convention):
    """``optax.lion``: Keras 3's arithmetic, with optax's default weight decay."""

    framework = "optax"
    reference = "optax.lion"
    defaults = {"weight_decay": 1e-3}


class Lion(Optimizer):
    """Lion: sign of an interpolated momentum (Keras 3's ``Lion``).

    ``var <- var - lr * sign(b1 m + (1-b1) g)``, then ``m <- b2 m + (1-b2) g``.

    Sparse updates default to ``"exact"``: the same as the dense update with
    zero gradient rows elsewhere (rows with a non-zero momentum keep moving by
    ``lr * sign(m)`` and their momentum decays), which is what Keras 3 does
    with an ``IndexedSlices`` gradient. ``sparse_updates="lazy"`` updates only
    the gradient's rows and their momentum.

    ``convention="optax"`` is ``optax.lion``: the same arithmetic, with
    ``weight_decay`` 1e-3 unless given (module docstring).

    Args:
        learning_rate: default 0.001.
        beta_1: in (0, 1], default 0.9: the interpolation used for the step
            (0 would make Lion signSGD).
        beta_2: in [0, 1], default 0.99: the decay of the momentum.
        **kwargs: the :class:`Optimizer` arguments (``weight_decay``,
            ``clipnorm``, ``clipvalue``, ``global_clipnorm``,
            ``sparse_updates``, ``name``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, -1.0, 0.5], name="w")
        >>> opt = ds.optimizers.Lion(learning_rate=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([0.3, -2.0, 0.0]), w)])
        >>> w.numpy()
        array([ 0.9, -0.9,  0.5], dtype=float32)
    """

    #: the other frameworks' Lion (the class itself is Keras 3's)
    conventions = {"optax": OptaxLion}

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta_1", beta_1, low=0, high=1, low_open=True,
                                message="Argument `beta_1` must be in the [0, 1] range. Otherwise, the optimizer "
                                        "degenerates to SignSGD. Received: beta_1={value}.")
        self.add_hyperparameter("beta_2", beta_2, low=0, high=1)

    @property
    def slots(self):
        return (Slot("momentum"),)

    #: sparse_updates="exact_lazy": no O(1) closed form; the skipped steps are replayed per row (bit for bit
    #: the exact run)
    catch_up = REPLAY

    @property
    def update(self):
        return lion_update

    def coefficients(self, step, hyper, dtype):
        # Keras casts lr and the betas to the variable's dtype, then computes 1 - beta in that dtype
        t = dtype.type
        b1, b2 = t(hyper["beta_1"]), t(hyper["beta_2"])
        return {"learning_rate": t(hyper["learning_rate"]), "beta_1": b1, "one_minus_beta_1": t(1.0) - b1,
                "beta_2": b2, "one_minus_beta_2": t(1.0) - b2}
