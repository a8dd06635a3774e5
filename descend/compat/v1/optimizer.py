"""TF 1's ``tf.compat.v1.train.Optimizer``: TF 1's ``minimize``, ``compute_gradients`` and
``apply_gradients(..., global_step)`` signatures over descend's optimizer framework. The TF 1 optimizers
(``descend.compat.v1.train``) derive from it and declare their rules as any optimizer does."""

from __future__ import annotations

import threading
import weakref

import numpy as np

from ...framework import context
from ...framework.indexed_slices import IndexedSlices
from ...framework.tape import GradientTape
from ...framework.tensor import Tensor, to_array
from ...framework.variable import Variable
from ...optimizers.optimizer import Optimizer as _Optimizer
from ...optimizers.update_plan import pairs_of
from ...persistence.checkpoint.tf_names import register_optimizer_source

__all__ = ["AggregationMethod", "Optimizer", "live_optimizers", "reset_live_optimizers"]

_live: list = []  # weak references to the TF 1 optimizers created, in order (a TF 1 graph's optimizers)
_live_lock = threading.Lock()


def live_optimizers() -> list:
    """The TF 1 optimizers still alive, in creation order: in TF 1 their slots are global variables that a
    ``Saver()`` without a list saves and restores; descend's ``Saver`` hands them the slots it restores."""
    with _live_lock:
        out = [r() for r in _live]
        _live[:] = [r for r, o in zip(_live, out) if o is not None]
    return [o for o in out if o is not None]


def reset_live_optimizers() -> None:
    """Forget the TF 1 optimizers created so far (``reset_default_graph``); they are not changed."""
    with _live_lock:
        _live.clear()


register_optimizer_source(live_optimizers)  # the Saver saves and restores their slots


def _loss_scale():
    """TF 1's ``_scale_loss`` factor: ``1 / num_replicas_in_sync`` under a strategy with several replicas
    (losses are mean-reduced), else None."""
    strategy = context.current_strategy()
    n = 1 if strategy is None else strategy.num_replicas_in_sync
    return 1.0 / n if n > 1 else None


class AggregationMethod:
    """How gradients of one tensor are summed (accepted and validated; descend always adds them)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class Optimizer(_Optimizer):
    """TF1's ``tf.compat.v1.train.Optimizer`` API over descend's optimizer framework.

    Subclasses set their rule and slots the same way as Keras-convention
    optimizers; this class adds TF1's ``minimize`` and ``compute_gradients``, the
    ``global_step`` and ``name`` arguments of ``apply_gradients`` (declared in
    ``call_arguments``, consumed by :meth:`prepare`) and the ``GATE_*``
    constants.
    """

    #: TF 1's arithmetic (each optimizer's "tf1" convention)
    native_convention = "tf1"

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2

    def __init__(self, use_locking: bool = False, name: str = "Optimizer", *, learning_rate=None, **kwargs):
        if not isinstance(name, str) or not name:
            raise ValueError(f"Must specify the optimizer name. Received: name={name!r}")
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self._use_locking = bool(use_locking)
        with _live_lock:
            _live.append(weakref.ref(self))

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

    #: TF 1's ``apply_gradients(grads_and_vars, global_step=None, name=None)`` (and descend's ``weight``)
    call_arguments = ("global_step", "name", "*", "weight")

    def prepare(self, grads_and_vars, *, global_step: Variable | None = None, name: str | None = None, **kwargs):
        """The plan of ``apply_gradients(grads_and_vars, global_step, name)``: the pairs' plan, which also adds one
        to ``global_step`` if given. A Tensor among the variables (``compute_gradients`` accepts them) raises
        ``NotImplementedError``, as TF 1.

        ``global_step`` (a scalar integer or float Variable) is checked before anything
        changes, and advances with each applied update (with
        ``gradient_accumulation_steps``: not with each micro-batch). ``name`` is accepted and unused.
        """
        pairs = []
        for grad, var in pairs_of(grads_and_vars):
            if isinstance(var, Tensor) and not isinstance(var, Variable):  # compute_gradients' var_list may hold
                raise NotImplementedError(f"Trying to update a Tensor {var!r}: apply_gradients updates Variables "
                                          "(TF 1's rule)")
            if isinstance(grad, IndexedSlices) and grad.dense_shape is not None and isinstance(var, Variable) and \
                    tuple(grad.dense_shape) != tuple(var.shape):
                # TF 1's sparse updates read the values and the indices alone: a dense_shape that does not describe
                # the variable is ignored (the rows and the values' shape are still checked against it)
                grad = IndexedSlices(grad.values, grad.indices, None)
            pairs.append((grad, var))
        plan = super().prepare(pairs, **kwargs)
        if global_step is not None:
            plan.add_counter(global_step)
        return plan

    def get_slot(self, var, name: str):
        """The slot ``name`` of ``var``, or None when it has none (TF 1's ``get_slot``: a non-centered
        ``RMSPropOptimizer`` has no ``mg``)."""
        try:
            return super().get_slot(var, name)
        except KeyError:
            return None

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
