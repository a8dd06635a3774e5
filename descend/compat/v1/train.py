"""TensorFlow 1 optimizers: TF1's API and conventions on descend's one framework.

One pattern: each class here with a Keras 3 counterpart is that class under TF 1's API and TF 1's
arithmetic -- ``class XOptimizer(Optimizer, descend.optimizers.X)`` built with ``convention="tf1"``.
TF 1's arithmetic is declared once, as the ``"tf1"`` convention in the optimizer's own module
(``descend.optimizers.adam.TF1Adam``, ``sgd.TF1SGD``, ``rmsprop.TF1RMSprop``, ``adagrad.TF1Adagrad``,
``adadelta.TF1Adadelta``, ``ftrl.TF1Ftrl``, ``adagrad_decay.TF1AdagradDecay``); a class here only
translates TF 1's arguments (``beta1``, ``use_nesterov``, ``decay``, ...) onto it. TF 1's optimizers
without a Keras counterpart (``AdagradDAOptimizer``, ``ProximalAdagradOptimizer``,
``ProximalGradientDescentOptimizer``) declare their rule in their own module, in TF 1's arithmetic.
``apply_gradients(grads_and_vars, global_step)`` increments ``global_step``; ``minimize`` takes TF1's
arguments.

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

from ...api.lazy import lazy_facade as _lazy_facade
from ...framework.variable import Variable
from ...optimizers.adadelta import Adadelta
from ...optimizers.adagrad import Adagrad
from ...optimizers.adagrad_decay import AdagradDecay
from ...optimizers.adam import Adam
from ...optimizers.ftrl import Ftrl
from ...optimizers.rmsprop import RMSprop
from ...optimizers.sgd import SGD
from .adagrad_da import AdagradDAOptimizer
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


def _renamed(config: dict, names: dict, drop: tuple = ()) -> dict:
    """A Keras class's config in TF 1's argument names (``names``: Keras name -> TF 1 name), without ``drop``."""
    for k in drop:
        config.pop(k, None)
    for keras_name, tf1_name in names.items():
        config[tf1_name] = config.pop(keras_name)
    return config


class GradientDescentOptimizer(Optimizer, SGD):
    """``var -= learning_rate * g`` (TF1). Sparse updates touch only the gradient's rows.

    :class:`~descend.optimizers.SGD` without momentum, with ``convention="tf1"``.

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0], name="w")
        >>> step = ds.Variable(0, name="global_step", trainable=False)
        >>> opt = ds.compat.v1.train.GradientDescentOptimizer(0.5)
        >>> _ = opt.minimize(lambda: w * w, global_step=step)
        >>> w.numpy(), int(step)
        (array([0.], dtype=float32), 1)
    """

    def __init__(self, learning_rate, use_locking: bool = False, name: str = "GradientDescent", **kwargs):
        extra = sorted(k for k in ("momentum", "nesterov", "dampening") if k in kwargs)
        if extra:
            raise TypeError(f"GradientDescentOptimizer takes no {', '.join(extra)} (TF 1's MomentumOptimizer does). "
                            f"Received: {', '.join(f'{k}={kwargs[k]!r}' for k in extra)}")
        super().__init__(use_locking, name, learning_rate=learning_rate, convention="tf1", **kwargs)

    def get_config(self):
        # TF 1's class takes no momentum
        return _renamed(super().get_config(), {}, drop=("momentum", "nesterov"))


class MomentumOptimizer(Optimizer, SGD):
    """TF1 momentum: ``accum = momentum * accum + g; var -= lr * accum``.

    Nesterov: ``var -= lr * g + lr * momentum * accum``. Slot ``momentum`` (also with ``momentum=0``,
    as TF 1). :class:`~descend.optimizers.SGD` with ``convention="tf1"``. Sparse updates default to
    ``"lazy"`` (TF's ``SparseApplyMomentum`` only touches the gradient's rows);
    ``sparse_updates="exact_lazy"`` gives the exact (dense) result at the lazy cost, through the closed form
    Keras' momentum uses.
    """

    always_momentum = True  # TF 1 keeps the accumulator also with momentum=0

    def __init__(self, learning_rate, momentum, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False, **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, momentum=momentum,
                         nesterov=use_nesterov, convention="tf1", **kwargs)

    @property
    def use_nesterov(self) -> bool:
        """TF1's name for ``nesterov``."""
        return self.nesterov

    def get_config(self):
        return _renamed(super().get_config(), {"nesterov": "use_nesterov"})
class AdamOptimizer(Optimizer, Adam):
    """TF1 Adam: ``beta1_power``/``beta2_power`` non-slot variables and ``epsilon=1e-8``.

    ``lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power)``;
    ``m <- b1 m + (1-b1) g``; ``v <- b2 v + (1-b2) g^2``;
    ``var -= lr_t * m / (sqrt(v) + epsilon)``; then both powers are multiplied
    by their beta. Sparse updates are exact (the moments of every row decay),
    as TF1's ``_apply_sparse``. :class:`~descend.optimizers.Adam` with ``convention="tf1"``
    (``beta1``/``beta2`` are its ``beta_1``/``beta_2``).
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking: bool = False,
                 name: str = "Adam", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, beta_1=beta1, beta_2=beta2, epsilon=epsilon,
                         convention="tf1", **kwargs)

    @property
    def beta1(self):
        """TF1's name for ``beta_1``."""
        return self.hyperparameters()["beta_1"]

    @property
    def beta2(self):
        """TF1's name for ``beta_2``."""
        return self.hyperparameters()["beta_2"]

    def get_config(self):
        return _renamed(super().get_config(), {"beta_1": "beta1", "beta_2": "beta2"}, drop=("amsgrad",))

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
        return _renamed(super().get_config(), {"rho": "decay"})


class AdagradDecayOptimizer(Optimizer, AdagradDecay):
    """DeepRec's TF1 ``AdagradDecayOptimizer``: the decay period is counted on ``global_step``.

    :class:`~descend.optimizers.AdagradDecay` with ``convention="tf1"``; with
    ``gs = global_step + 1`` (or ``iterations + 1`` when ``global_step`` is
    None), an accumulator decays when ``gs // accumulator_decay_step`` passes
    its decay power. Sparse updates are lazy: each row keeps its own power.
    """

    def __init__(self, learning_rate, global_step=None, initial_accumulator_value=0.1,
                 accumulator_decay_step=100000, accumulator_decay_rate=0.9, use_locking: bool = False,
                 name: str = "AdagradDecay", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate,
                         initial_accumulator_value=initial_accumulator_value,
                         accumulator_decay_step=accumulator_decay_step,
                         accumulator_decay_rate=accumulator_decay_rate, global_step=global_step,
                         convention="tf1", **kwargs)


class AdadeltaOptimizer(Optimizer, Adadelta):
    """TF 1's Adadelta (Zeiler, 2012): ``lr`` scales the step (1.0 gives the paper's form).

    :class:`~descend.optimizers.Adadelta` with ``convention="tf1"`` (kernel ``ApplyAdadelta``): slots
    ``accum`` and ``accum_update`` start at zeros; every scalar is in the variable's dtype::

        accum <- accum * rho + g^2 * (1 - rho)
        update = sqrt(accum_update + eps) * rsqrt(accum + eps) * g
        w <- w - update * lr
        accum_update <- accum_update * rho + update^2 * (1 - rho)

    Sparse updates are lazy, as ``SparseApplyAdadelta``.

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

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-8, use_locking: bool = False,
                 name: str = "Adadelta", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, rho=rho, epsilon=epsilon, convention="tf1",
                         **kwargs)


class FtrlOptimizer(Optimizer, Ftrl):
    """TF 1's FTRL-Proximal (McMahan et al., 2013), with L1, L2, L2-shrinkage and ``beta``.

    :class:`~descend.optimizers.Ftrl` with ``convention="tf1"`` (kernels ``ApplyFtrl``/``ApplyFtrlV2``; slots
    ``accum`` and ``linear``; every scalar in the variable's dtype). Sparse updates are lazy, as
    ``SparseApplyFtrl``.

    Args:
        learning_rate: > 0.
        learning_rate_power: <= 0 (default -0.5; 0: a fixed learning rate).
        initial_accumulator_value: >= 0, the starting value of slot ``accum`` (default 0.1).
        l1_regularization_strength, l2_regularization_strength,
        l2_shrinkage_regularization_strength: >= 0 (default 0).
        use_locking, name: as TF 1 (``name`` default ``"Ftrl"``).
        accum_name, linear_name: accepted (TF 1 names the slots' variables with them); the slots are
            ``accum`` and ``linear``.
        beta: >= 0, added to L2 as ``beta / (2 lr)`` (default None: 0).

    Example:
        >>> import descend as ds
        >>> w = ds.Variable([1.0, -1.0], name="w")
        >>> opt = ds.compat.v1.train.FtrlOptimizer(0.1, l1_regularization_strength=0.1)
        >>> _ = opt.apply_gradients([(ds.constant([0.5, -0.05]), w)])
        >>> w.numpy().round(4)
        array([0.3641, 0.    ], dtype=float32)
    """

    def __init__(self, learning_rate, learning_rate_power=-0.5, initial_accumulator_value=0.1,
                 l1_regularization_strength=0.0, l2_regularization_strength=0.0, use_locking: bool = False,
                 name: str = "Ftrl", accum_name=None, linear_name=None, l2_shrinkage_regularization_strength=0.0,
                 beta=None, **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, learning_rate_power=learning_rate_power,
                         initial_accumulator_value=initial_accumulator_value,
                         l1_regularization_strength=l1_regularization_strength,
                         l2_regularization_strength=l2_regularization_strength,
                         l2_shrinkage_regularization_strength=l2_shrinkage_regularization_strength,
                         beta=0.0 if beta is None else beta, convention="tf1", **kwargs)
        self.accum_name, self.linear_name = accum_name, linear_name

    def get_config(self):
        return {**super().get_config(), "accum_name": self.accum_name, "linear_name": self.linear_name}


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


# TF 1's name-keyed Saver and init_from_checkpoint live with the checkpoints (a layer above the optimizers): they
# load on first use (descend.api.lazy)
_LAZY = {"...persistence.checkpoint.saver": ("Saver",),
         "...persistence.checkpoint.tf_names": ("init_from_checkpoint",)}
__getattr__, __dir__, _LAZY_NAMES = _lazy_facade(__name__, _LAZY)
