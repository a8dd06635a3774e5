"""TF 1's ``tf.compat.v1.train.AdadeltaOptimizer`` (kernel ``ApplyAdadelta``).

Slots ``accum`` and ``accum_update`` start at zeros; every scalar is in the variable's dtype::

    accum <- accum * rho + g^2 * (1 - rho)
    update = sqrt(accum_update + eps) * rsqrt(accum + eps) * g
    w <- w - update * lr
    accum_update <- accum_update * rho + update^2 * (1 - rho)

Sparse updates are lazy, as ``SparseApplyAdadelta``.
"""

from __future__ import annotations

from ...optimizers.adadelta import TF1Adadelta, tf1_adadelta_update
from .optimizer import Optimizer

__all__ = ["AdadeltaOptimizer", "tf1_adadelta_update"]


class AdadeltaOptimizer(Optimizer):
    """TF 1's Adadelta (Zeiler, 2012): ``lr`` scales the step (1.0 gives the paper's form).

    Args:
        learning_rate: default 0.001.
        rho: in [0, 1], the decay of both averages (default 0.95).
        epsilon: >= 0 (default 1e-8).
        use_locking, name: as TF 1 (``name`` default ``"Adadelta"``).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> opt = ds.compat.v1.train.AdadeltaOptimizer(learning_rate=1.0, rho=0.0, epsilon=1.0)
        >>> _ = opt.apply_gradients([(ds.constant([3.0]), w)])
        >>> w.numpy()
        array([0.05131674], dtype=float32)
    """

    # TF 1's arithmetic, declared once as Adadelta's "tf1" convention
    slots = TF1Adadelta.slots
    update = TF1Adadelta.update  # TF 1's sparse kernel updates only the gradient's rows
    coefficients = TF1Adadelta.coefficients

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking: bool = False,
                 name: str = "Adadelta", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("rho", rho, low=0, high=1)
        self.add_hyperparameter("epsilon", epsilon, low=0)

