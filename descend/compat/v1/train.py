"""TensorFlow 1 optimizers: TF1's API and conventions on descend's one framework.

The math is not copied: TF 1's arithmetic is declared once, as the ``"tf1"``
convention in each optimizer's own module (``descend.optimizers.adam.TF1Adam``,
``sgd.TF1SGD``, ``rmsprop.TF1RMSprop``, ``adagrad.TF1Adagrad``,
``adadelta.TF1Adadelta``), and each class here reuses it with TF 1's API. ``apply_gradients(grads_and_vars, global_step)`` increments
``global_step``; ``minimize`` takes TF1's arguments.

Differences from the Keras-convention classes, as in TensorFlow 1:

* ``MomentumOptimizer`` keeps ``accum <- momentum * accum + g`` and steps
  ``var -= lr * accum`` (Keras keeps ``v <- momentum * v - lr * g``); its
  sparse update is lazy (TF's ``SparseApplyMomentum``).
* ``AdamOptimizer`` keeps ``beta1_power``/``beta2_power`` as non-slot
  variables multiplied each step, and ``epsilon`` defaults to 1e-8.
* ``RMSPropOptimizer``'s ``rms`` slot starts at ones, ``epsilon`` is 1e-10
  and goes inside the square root; its sparse update is lazy.
* ``AdagradOptimizer`` has no epsilon.
"""

from __future__ import annotations

import numpy as np

from ...framework.variable import Variable
from ...optimizers.adagrad import Adagrad
from ...optimizers.adagrad_decay import AdagradDecay
from ...optimizers.adam import TF1_ADAM_RULE, tf1_adam_coefficients, tf1_beta_powers
from ...optimizers.rmsprop import RMSprop
from ...optimizers.rule import Slot
from ...optimizers.sgd import SGD_RULE, TF1_MOMENTUM, TF1_NESTEROV, tf1_momentum_catch_up, tf1_nesterov_catch_up
from .adadelta import AdadeltaOptimizer
from .adagrad_da import AdagradDAOptimizer
from .ftrl import FtrlOptimizer
from .optimizer import AggregationMethod, Optimizer
from .proximal_adagrad import ProximalAdagradOptimizer
from .proximal_gradient_descent import ProximalGradientDescentOptimizer
from .variables import GraphKeys, add_to_collection, get_collection

__all__ = [
    "AdadeltaOptimizer", "AdagradDAOptimizer", "AdagradDecayOptimizer", "AdagradOptimizer", "AdamOptimizer",
    "AggregationMethod", "FtrlOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer",
    "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer", "RMSPropOptimizer", "Saver",  # noqa: F822
    "get_global_step", "get_or_create_global_step", "init_from_checkpoint",  # noqa: F822
]


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * g`` (TF1). Sparse updates touch only the gradient's rows.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> step = ds.Variable(0, name="global_step", trainable=False)
        >>> opt = ds.compat.v1.train.GradientDescentOptimizer(0.5)
        >>> _ = opt.minimize(lambda: w * w, global_step=step)
        >>> w.numpy(), int(step)
        (array([0.], dtype=float32), 1)
    """

    update = SGD_RULE

    def __init__(self, learning_rate, use_locking: bool = False, name: str = "GradientDescent", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)


class MomentumOptimizer(Optimizer):
    """TF1 momentum: ``accum = momentum * accum + g; var -= lr * accum``.

    Nesterov: ``var -= lr * g + lr * momentum * accum``. Slot ``momentum``.
    Sparse updates default to ``"lazy"`` (TF's ``SparseApplyMomentum`` only
    touches the gradient's rows); ``sparse_updates="exact_lazy"`` gives the
    exact (dense) result at the lazy cost, through the closed form Keras'
    momentum uses.
    """

    slots = (Slot("momentum"),)

    def __init__(self, learning_rate, momentum, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False, **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("momentum", momentum, low=0)
        self.use_nesterov = bool(use_nesterov)

    @property
    def update(self):
        return TF1_NESTEROV if self.use_nesterov else TF1_MOMENTUM

    @property
    def catch_up(self):
        return tf1_nesterov_catch_up if self.use_nesterov else tf1_momentum_catch_up

    def get_config(self):
        return {**super().get_config(), "use_nesterov": self.use_nesterov}


class AdamOptimizer(Optimizer):
    """TF1 Adam: ``beta1_power``/``beta2_power`` non-slot variables and ``epsilon=1e-8``.

    ``lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``;
    ``m <- b1 m + (1-b1) g``; ``v <- b2 v + (1-b2) g^2``;
    ``var -= lr_t * m / (sqrt(v) + epsilon)``; then both powers are multiplied
    by their beta. Sparse updates are exact (the moments of every row decay),
    as TF1's ``_apply_sparse``.
    """

    update = TF1_ADAM_RULE  # TF1's _apply_sparse order for exact sparse updates
    # beta1_power/beta2_power, as optimizers.adam.TF1Adam (named after this class's beta1/beta2)
    slots = (Slot("m"), Slot("v", nonnegative=True), *tf1_beta_powers("beta1", "beta2"))

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking: bool = False,
                 name: str = "Adam", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta1", beta1, low=0, high=1, high_open=True)
        self.add_hyperparameter("beta2", beta2, low=0, high=1, high_open=True)
        self.add_hyperparameter("epsilon", epsilon, low=0)

    def coefficients(self, step, hyper, dtype):
        # TF1 computes everything in the variable's dtype, with float32 beta-power variables
        return tf1_adam_coefficients(hyper, dtype, "beta1", "beta2")

    def _get_beta_accumulators(self):
        """TF 1's accessor: the ``(beta1_power, beta2_power)`` Variables, created with the first update's slots
        (``(None, None)`` before, as TF 1's non-slot variables not yet made)."""
        step_vars = self.state.step_vars
        return step_vars.get("beta1_power"), step_vars.get("beta2_power")


class AdagradOptimizer(Optimizer, Adagrad):
    """TF1 Adagrad: ``acc += g^2; var -= lr * g / sqrt(acc)`` (no epsilon).

    :class:`~descend.optimizers.Adagrad` with ``convention="tf1"``. Slot
    ``accumulator`` starts at ``initial_accumulator_value`` (> 0). A sparse
    update touches only the gradient's rows.
    """

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking: bool = False,
                 name: str = "Adagrad", **kwargs):
        if not isinstance(initial_accumulator_value, (int, float)) or initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value!r}")
        super().__init__(use_locking, name, learning_rate=learning_rate,
                         initial_accumulator_value=initial_accumulator_value, convention="tf1", **kwargs)



class RMSPropOptimizer(Optimizer, RMSprop):
    """TF1 RMSProp: slot ``rms`` starts at ONES, ``epsilon=1e-10`` inside the square root.

    ``rms <- decay rms + (1-decay) g^2``; ``mom <- momentum mom + lr g /
    sqrt(rms + eps)``; ``var -= mom`` (centered: ``mg <- decay mg + (1-decay)
    g`` and ``rms - mg^2`` under the root). The ``momentum`` slot always
    exists. Sparse updates default to ``"lazy"`` (TF's ``SparseApplyRMSProp``).
    :class:`~descend.optimizers.RMSprop` with ``convention="tf1"``.
    """

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking: bool = False,
                 centered: bool = False, name: str = "RMSProp", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, rho=decay, momentum=momentum,
                         epsilon=epsilon, centered=centered, convention="tf1", **kwargs)

    @property
    def decay(self):
        """TF1's name for ``rho``."""
        return self.hyperparameters()["rho"]

    def get_config(self):
        config = super().get_config()
        config["decay"] = config.pop("rho")
        return config


class AdagradDecayOptimizer(Optimizer, AdagradDecay):
    """DeepRec's TF1 ``AdagradDecayOptimizer``: the decay period is counted on ``global_step``.

    The math is :class:`~descend.optimizers.AdagradDecay`'s; with
    ``gs = global_step + 1`` (or ``iterations + 1`` when ``global_step`` is
    None), an accumulator decays when ``gs // accumulator_decay_step`` passes
    its decay power. Sparse updates are lazy: each row keeps its own power.
    """

    def __init__(self, learning_rate, global_step=None, initial_accumulator_value=0.1,
                 accumulator_decay_step=100000, accumulator_decay_rate=0.9, use_locking: bool = False,
                 name: str = "AdagradDecay", **kwargs):
        if global_step is not None and not isinstance(global_step, Variable):
            raise TypeError(f"global_step must be a Variable or None. Received: {type(global_step).__name__}")
        super().__init__(use_locking, name, learning_rate=learning_rate,
                         initial_accumulator_value=initial_accumulator_value,
                         accumulator_decay_step=accumulator_decay_step,
                         accumulator_decay_rate=accumulator_decay_rate, **kwargs)
        self._global_step = global_step

    def coefficients(self, step, hyper, dtype):
        if self._global_step is not None:
            step = int(self._global_step.numpy())
        return super().coefficients(step, hyper, dtype)


def get_global_step(graph=None):
    """The live global-step Variable (collection ``GraphKeys.GLOBAL_STEP``), or None."""
    steps = get_collection(GraphKeys.GLOBAL_STEP)
    if len(steps) > 1:
        raise TypeError(f"There are {len(steps)} global step Variables in GraphKeys.GLOBAL_STEP; expected one")
    return steps[0] if steps else None


def get_or_create_global_step(graph=None):
    """The global step: a scalar int64 non-trainable Variable named ``global_step``, created once."""
    step = get_global_step()
    if step is None:
        step = Variable(np.int64(0), name="global_step", trainable=False)
        add_to_collection(GraphKeys.GLOBAL_STEP, step)
    return step


def __getattr__(name):
    # TF 1's name-keyed Saver and init_from_checkpoint live with the checkpoints (a layer above the optimizers)
    if name == "Saver":
        from ...persistence.checkpoint.saver import Saver

        return Saver
    if name == "init_from_checkpoint":
        from ...persistence.checkpoint.tf_names import init_from_checkpoint

        return init_from_checkpoint
    raise AttributeError(f"module 'descend.compat.v1.train' has no attribute '{name}'")
