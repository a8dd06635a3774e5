"""TensorFlow 1 optimizers: TF1's API and conventions on descend's one framework.

The math is not copied: each class reuses the update rule of the
Keras-convention module where TF1 computes the same thing, and states its
TF1-specific conventions (defaults, slot names and initial values, sparse
behaviour) here. ``apply_gradients(grads_and_vars, global_step)`` increments
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

from ...framework.tape import GradientTape
from ...framework.tensor import Tensor, to_array
from ...framework.variable import Variable
from ...optimizers import base as _base
from ...optimizers.adagrad import Adagrad
from ...optimizers.adagrad_decay import AdagradDecay
from ...optimizers.adam import adam_scatter_update, adam_update
from ...optimizers.base import Slot, StepState
from ...optimizers.rmsprop import RMSprop, centered_rmsprop_momentum_update, rmsprop_momentum_update
from ...optimizers.sgd import sgd_update

__all__ = [
    "AdadeltaOptimizer", "AdagradDAOptimizer", "AdagradDecayOptimizer", "AdagradOptimizer", "AdamOptimizer",
    "AggregationMethod", "FtrlOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer",
    "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer", "RMSPropOptimizer", "Saver",  # noqa: F822
    "get_global_step", "get_or_create_global_step",
]


def _loss_scale():
    """TF 1's ``_scale_loss`` factor: ``1 / num_replicas_in_sync`` under a strategy with several replicas
    (losses are mean-reduced), else None."""
    from ...distribute import strategy as _strategy  # above this layer: imported when called

    n = _strategy.get_strategy().num_replicas_in_sync
    return 1.0 / n if n > 1 else None


class AggregationMethod:
    """How gradients of one tensor are summed (accepted and validated; descend always adds them)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class Optimizer(_base.Optimizer):
    """TF1's ``tf.compat.v1.train.Optimizer`` API over descend's optimizer framework.

    Subclasses set their rule and slots the same way as Keras-convention
    optimizers; this class adds TF1's ``minimize``, ``compute_gradients`` and
    ``apply_gradients(..., global_step)`` signatures and the ``GATE_*``
    constants.
    """

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool = False, name: str = "Optimizer", *, learning_rate=None, **kwargs):
        if not isinstance(name, str) or not name:
            raise ValueError(f"Must specify the optimizer name. Received: name={name!r}")
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self._use_locking = bool(use_locking)

    def get_name(self) -> str:
        return self.name

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP, aggregation_method=None,
                          colocate_gradients_with_ops=False, grad_loss=None, tape: GradientTape | None = None):
        """``[(gradient, variable), ...]`` of ``loss`` (a callable, or a Tensor recorded by ``tape``).

        With ``var_list=None``, the trainable variables the loss read. Under a distribution strategy with
        ``num_replicas_in_sync > 1`` the loss (a mean over this replica's batch) is scaled by
        ``1 / num_replicas_in_sync``, as TF 1 does, so that ``apply_gradients``' sum over the replicas is the
        gradient of the mean over the global batch.
        """
        loss_arg = loss
        if gate_gradients not in (self.GATE_NONE, self.GATE_OP, self.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH. "
                f"Received: {gate_gradients!r}"
            )
        if aggregation_method not in (None, AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                                      AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
            raise ValueError(f"Invalid aggregation_method specified {aggregation_method!r}.")
        if callable(var_list):
            var_list = var_list()
        scale = _loss_scale()
        if callable(loss):
            with GradientTape() as tape:
                if var_list is not None:
                    tape.watch(list(var_list))
                loss = loss()
                if scale is not None:  # TF's _scale_loss: the mean loss times 1/num_replicas, on the tape
                    loss = loss * scale
        elif tape is None:
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a function when eager "
                               "execution is enabled, or pass the `tape` that recorded it")
        if var_list is None:
            var_list = [v for v in tape.watched_variables() if v.trainable]
        var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        if scale is not None and not callable(loss_arg):
            # a Tensor recorded elsewhere: d(loss * s) = s * the upstream gradient, TF's product's VJP
            upstream = np.ones(loss.shape, loss.dtype.as_numpy_dtype) if grad_loss is None else to_array(grad_loss)
            grad_loss = Tensor(np.asarray(upstream * np.asarray(scale, loss.dtype.as_numpy_dtype)))
        grads = tape.gradient(loss, var_list, output_gradients=grad_loss)
        return list(zip(grads, var_list))

    def apply_gradients(self, grads_and_vars, global_step: Variable | None = None, name: str | None = None, *,
                        weight: float | None = None):
        """Apply the pairs and add one to ``global_step`` if given; returns ``iterations``.

        ``global_step`` (a scalar integer or float Variable) is checked before anything
        changes, and advances with each applied update (with
        ``gradient_accumulation_steps``: not with each micro-batch).
        """
        plan = self.prepare(grads_and_vars, weight=weight)
        if global_step is not None:
            plan.add_counter(global_step)
        self.commit(plan)
        return self.iterations

    @property
    def variables(self):
        """The optimizer's state variables: step state and slots (TF 1 keeps no ``iterations`` variable)."""
        out = super().variables
        return type(out)(v for v in out if v is not self.iterations)

    def minimize(self, loss, global_step: Variable | None = None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None, grad_loss=None,
                 tape: GradientTape | None = None):
        """``compute_gradients`` then ``apply_gradients`` (TF1 signature)."""
        pairs = self.compute_gradients(loss, var_list=var_list, gate_gradients=gate_gradients,
                                       aggregation_method=aggregation_method,
                                       colocate_gradients_with_ops=colocate_gradients_with_ops,
                                       grad_loss=grad_loss, tape=tape)
        if all(g is None for g, _ in pairs):
            raise ValueError(f"No gradients provided for any variable, check your graph for ops that do not "
                             f"support gradients, between variables {[v.name for _, v in pairs]} and loss {loss}.")
        return self.apply_gradients(pairs, global_step=global_step, name=name)

    def get_config(self) -> dict:
        config = super().get_config()
        for k in ("clipnorm", "clipvalue", "global_clipnorm"):
            config.pop(k, None)
        config["use_locking"] = self._use_locking
        return config


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

    zero_grad_is_identity = True
    update = staticmethod(sgd_update)

    def __init__(self, learning_rate, use_locking: bool = False, name: str = "GradientDescent", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)


def tf1_momentum_update(param, grad, accum, *, learning_rate, momentum):
    # accum <- momentum * accum + g ; param <- param - lr * accum
    accum = accum * momentum + grad
    return param - accum * learning_rate, accum


def tf1_nesterov_update(param, grad, accum, *, learning_rate, momentum):
    # accum <- momentum * accum + g ; param <- param - lr * g - lr * momentum * accum
    accum = accum * momentum + grad
    return param - (grad * learning_rate + accum * momentum * learning_rate), accum


class MomentumOptimizer(Optimizer):
    """TF1 momentum: ``accum = momentum * accum + g; var -= lr * accum``.

    Nesterov: ``var -= lr * g + lr * momentum * accum``. Slot ``momentum``.
    Sparse updates default to ``"lazy"`` (TF's ``SparseApplyMomentum`` only
    touches the gradient's rows).
    """

    default_sparse_updates = "lazy"
    slots = (Slot("momentum"),)

    def __init__(self, learning_rate, momentum, use_locking: bool = False, name: str = "Momentum",
                 use_nesterov: bool = False, **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("momentum", momentum, low=0)
        self.use_nesterov = bool(use_nesterov)

    @property
    def update_rule(self):
        return tf1_nesterov_update if self.use_nesterov else tf1_momentum_update

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

    slots = (Slot("m"), Slot("v", nonnegative=True))
    update = staticmethod(adam_update)
    exact_sparse_rule = staticmethod(adam_scatter_update)  # TF1's _apply_sparse order

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, use_locking: bool = False,
                 name: str = "Adam", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("beta1", beta1, low=0, high=1, high_open=True)
        self.add_hyperparameter("beta2", beta2, low=0, high=1, high_open=True)
        self.add_hyperparameter("epsilon", epsilon, low=0)

    def step_states(self):
        # beta1_power/beta2_power: created at beta in the narrowest dtype of the first variables, used, then
        # multiplied by beta after each update (TF 1's _finish)
        return tuple(StepState(power, initial=_initial_power(beta), advance=_advance_power(beta), dtype="smallest",
                               advance_first=False)
                     for power, beta in (("beta1_power", "beta1"), ("beta2_power", "beta2")))

    def coefficients(self, step, hyper, dtype):
        # TF1 computes everything in the variable's dtype, with float32 beta-power variables
        c = dtype.type
        b1p = c(hyper["beta1_power"])
        b2p = c(hyper["beta2_power"])
        alpha = c(hyper["learning_rate"]) * np.sqrt(1 - b2p) / (1 - b1p)
        return {"alpha": alpha, "beta_1": c(hyper["beta1"]), "beta_2": c(hyper["beta2"]),
                "epsilon": c(hyper["epsilon"])}

    def _get_beta_accumulators(self):
        """TF 1's accessor: the (beta1_power, beta2_power) Variables (after the first update)."""
        return tuple(next(v for v in self.variables if v.name.endswith(f"/{n}")) for n in ("beta1_power", "beta2_power"))


def _initial_power(beta: str):
    return lambda hyper, dtype: np.asarray(hyper[beta], dtype)


def _advance_power(beta: str):
    # beta_power <- beta_power * beta
    return lambda power, step, hyper: power * power.dtype.type(hyper[beta])


class AdagradOptimizer(Optimizer, Adagrad):
    """TF1 Adagrad: ``acc += g^2; var -= lr * g / sqrt(acc)`` (no epsilon).

    Keras-convention :class:`~descend.optimizers.Adagrad`'s rule with
    epsilon 0. Slot ``accumulator`` starts at ``initial_accumulator_value``
    (> 0). A sparse update touches only the gradient's rows.
    """

    def __init__(self, learning_rate, initial_accumulator_value=0.1, use_locking: bool = False,
                 name: str = "Adagrad", **kwargs):
        if not isinstance(initial_accumulator_value, (int, float)) or initial_accumulator_value <= 0.0:
            raise ValueError(f"initial_accumulator_value must be positive: {initial_accumulator_value!r}")
        super().__init__(use_locking, name, learning_rate=learning_rate,
                         initial_accumulator_value=initial_accumulator_value, epsilon=0.0, **kwargs)

    def coefficients(self, step, hyper, dtype):
        # TF1 computes in the variable's dtype
        return {"learning_rate": dtype.type(hyper["learning_rate"]), "epsilon": dtype.type(0)}

    def get_config(self):
        config = super().get_config()
        config.pop("epsilon", None)
        return config


class RMSPropOptimizer(Optimizer, RMSprop):
    """TF1 RMSProp: slot ``rms`` starts at ONES, ``epsilon=1e-10`` inside the square root.

    ``rms <- decay rms + (1-decay) g^2``; ``mom <- momentum mom + lr g /
    sqrt(rms + eps)``; ``var -= mom`` (centered: ``mg <- decay mg + (1-decay)
    g`` and ``rms - mg^2`` under the root). The ``momentum`` slot always
    exists. Sparse updates default to ``"lazy"`` (TF's ``SparseApplyRMSProp``).
    """

    default_sparse_updates = "lazy"

    def __init__(self, learning_rate, decay=0.9, momentum=0.0, epsilon=1e-10, use_locking: bool = False,
                 centered: bool = False, name: str = "RMSProp", **kwargs):
        super().__init__(use_locking, name, learning_rate=learning_rate, rho=decay, momentum=momentum,
                         epsilon=epsilon, centered=centered, **kwargs)

    @property
    def decay(self):
        """TF1's name for ``rho``."""
        return self.hyperparameters()["rho"]

    def slot_specs(self):
        return (Slot("rms", "ones", nonnegative=True), Slot("momentum")) + ((Slot("mg"),) if self.centered else ())

    @property
    def update_rule(self):
        return centered_rmsprop_momentum_update if self.centered else rmsprop_momentum_update

    def coefficients(self, step, hyper, dtype):
        c = dtype.type  # TF1 computes in the variable's dtype
        return {"learning_rate": c(hyper["learning_rate"]), "rho": c(hyper["rho"]), "epsilon": c(hyper["epsilon"]),
                "momentum_rate": c(hyper["momentum"])}

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


# one module per optimizer; they build on Optimizer above
from .adadelta import AdadeltaOptimizer  # noqa: E402
from .adagrad_da import AdagradDAOptimizer  # noqa: E402
from .ftrl import FtrlOptimizer  # noqa: E402
from .proximal_adagrad import ProximalAdagradOptimizer  # noqa: E402
from .proximal_gradient_descent import ProximalGradientDescentOptimizer  # noqa: E402
from .variables import GraphKeys, add_to_collection, get_collection  # noqa: E402


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
    # TF 1's name-keyed Saver lives with the checkpoints (a layer above the optimizers)
    if name == "Saver":
        from ...checkpoint.saver import Saver

        return Saver
    raise AttributeError(f"module 'descend.compat.v1.train' has no attribute '{name}'")
