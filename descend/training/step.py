"""The one training step, the one test step and the one predict step, with or without a strategy.

The training step is the loop a user would write by hand (seed 001)::

    with GradientTape() as tape:
        y_pred = model(x, training=True)
        loss = loss_fn(y, y_pred, sample_weight) + sum(model.losses)
    grads = tape.gradient(optimizer.scale_loss(loss), model.trainable_weights)
    optimizer.apply_gradients(zip(grads, model.trainable_weights))

with the data-parallel context (:mod:`descend.training.replica`) asked for what depends on it: this
replica's share of the loss (so that the gradients the optimizer sums across the replicas are the
gradient of the global batch's loss) and the metrics over every replica's rows. In one process the
context changes nothing. ``fit``, ``train_on_batch``, ``descend train`` and a ``Model.train_step``
that calls ``super().train_step`` all run this step.
"""

from __future__ import annotations

import warnings
import weakref

import numpy as np

from ..framework.tape import GradientTape
from ..framework.tensor import to_array
from . import compile_utils

__all__ = ["unpack", "batch_size", "train_step", "test_step", "predict_step", "plain_logs", "CORES", "train_update",
           "test_update", "predict_call"]


def unpack(batch):
    """(x, y, sample_weight) from a dataset element: x, (x,), (x, y) or (x, y, sample_weight)."""
    if isinstance(batch, tuple):
        if len(batch) == 1:
            return batch[0], None, None
        if len(batch) == 2:
            return batch[0], batch[1], None
        if len(batch) == 3:
            return batch
        raise ValueError(f"Data is expected to be in format `x`, `(x,)`, `(x, y)`, or `(x, y, sample_weight)`, "
                         f"found: a tuple of {len(batch)} items")
    return batch, None, None


def batch_size(x) -> int:
    """The rows of a batch of inputs (the first input's, for several)."""
    if isinstance(x, dict):
        x = next(iter(x.values()))
    if isinstance(x, (list, tuple)):
        x = x[0]
    return int(x.shape[0]) if getattr(x, "shape", None) else 1


def train_step(model, data) -> dict:
    """One update on one batch (this replica's rows of it); returns the logs: running means over the epoch,
    over every replica's rows."""
    state = model.fit_state
    replica = state.replica
    x, y, sample_weight = unpack(data)
    n_local = batch_size(x)
    n_global = replica.global_rows(n_local)
    loss = model.step_function("train", replica)(x, y, sample_weight, n_local, n_global)
    if state.metrics is None:  # (walking the model's layers for the metrics they hold, once an epoch)
        state.metrics = compile_utils.flat_metrics(model.metrics)
    logs, state.batch_loss = replica.results(state.metrics, None if loss is None else (float(to_array(loss)), n_local))
    return logs


def train_update(model, x, y, sample_weight, n_local: int, n_global: int):
    """The part of :func:`train_step` that ``compile(jit_compile=...)`` compiles: the forward pass, the loss,
    the gradients, the update and the metrics' update; returns the loss (None for a replica with no rows)."""
    replica = model.fit_state.replica
    optimizer = model.optimizer
    loss = None
    with GradientTape() as tape:
        y_pred = model(x, training=True)
        variables = model.trainable_weights  # after the call: a model built lazily has them now
        if n_local == 0:  # a short last batch left this replica no rows: its share of the penalties only
            share = replica.empty_share(model, y_pred, list(model.losses))
        else:
            loss = model.compute_loss(x, y, y_pred, sample_weight)  # Keras 3: a model may compute its own
            share = replica.loss_share(loss, list(model.losses), n_local, n_global,
                                       getattr(model.loss, "reduction", None) == "sum")
        # a loss-scaling optimizer differentiates the scaled loss and divides the gradients again; the metrics
        # see the loss itself
        scaled = None if share is None else optimizer.scale_loss(share)
    if not variables:  # as Keras: nothing to update (a model of frozen or weightless layers) still runs
        warnings.warn("The model does not have any trainable weights.", stacklevel=3)
    else:
        if scaled is None:
            grads = [None] * len(variables)
        else:
            grads = tape.gradient(scaled, variables)
        if replica.num_replicas > 1:  # every replica exchanges the same list: no gradient is a zero one
            grads = [np.zeros(v.shape, v.dtype.as_numpy_dtype) if g is None else g for g, v in zip(grads, variables)]
        optimizer.apply_gradients(zip(grads, variables))
    if n_local:
        model.update_compiled_metrics(loss, y, y_pred, sample_weight)
    return loss


def _trace_key(model, kind: str) -> tuple:
    """What a compiled step's trace depends on besides its inputs: for training the optimizer, the loss and
    the trainable variables (a layer frozen or unfrozen since, another optimizer: traced again); otherwise
    the loss and every variable (a layer added since: traced again)."""
    if kind == "train":
        return (id(model.optimizer), id(model.loss), tuple(map(id, model.trainable_weights)))
    return (id(getattr(model, "loss", None)), tuple(map(id, model.weights)))


def test_update(model, x, y, sample_weight):
    """The part of :func:`test_step` that ``jit_compile`` compiles: the forward pass, the loss, the metrics."""
    y_pred = model(x, training=False)
    loss = model.compute_loss(x, y, y_pred, sample_weight, training=False)
    model.update_compiled_metrics(loss, y, y_pred, sample_weight)
    return loss


def predict_call(model, x):
    """The part of :func:`predict_step` that ``jit_compile`` compiles: the forward pass."""
    return model(x, training=False)


#: the compilable part of each step, as ``Trainer.step_function(kind)`` wraps it
CORES = {"train": train_update, "test": test_update, "predict": predict_call}


def make_step_function(model, kind: str, compiled):
    """``model``'s ``kind`` step core (``"train"``, ``"test"`` or ``"predict"``) as a function of the batch:
    plain Python, or (``compiled`` True or ``"auto"``) traced by ``descend.function`` once per input signature
    and trace key and run as a compiled plan. ``"auto"`` keeps quiet where a step cannot be compiled (it then
    runs op by op, as eagerly); ``True`` warns. The function holds the model weakly (no reference cycle)."""
    ref = weakref.ref(model)
    core = CORES[kind]
    if kind == "train":
        def run(x, y, sample_weight, n_local, n_global, key=None):
            return core(ref(), x, y, sample_weight, n_local, n_global)
    elif kind == "test":
        def run(x, y, sample_weight, key=None):
            return core(ref(), x, y, sample_weight)
    else:
        def run(x, key=None):
            return core(ref(), x)
    if not compiled:
        return run
    from ..compiler import function

    run.descend_traced_per_owner = True  # each model's steps trace their own signatures: no retracing warning
    traced = function(run)
    quiet = compiled == "auto"

    def call(*args):
        key = _trace_key(ref(), kind)
        if not quiet:
            return traced(*args, key)
        with warnings.catch_warnings():
            for category in _compiler_warnings():
                warnings.filterwarnings("ignore", category=category)
            return traced(*args, key)

    call.traced = traced
    return call


def _compiler_warnings() -> tuple:
    from .._native.backend import FusedKernelWarning
    from ..compiler.function import FunctionEagerWarning
    from ..compiler.plan import PlanCallbackWarning

    return (FunctionEagerWarning, PlanCallbackWarning, FusedKernelWarning)


def test_step(model, data) -> dict:
    """The loss and metrics of one batch, without an update (this replica's running means)."""
    x, y, sample_weight = unpack(data)
    if batch_size(x) == 0:
        return {}
    model.step_function("test")(x, y, sample_weight)
    return {m.name: m.result() for m in compile_utils.flat_metrics(model.metrics)}


def predict_step(model, data):
    """The model's outputs for one batch."""
    x, _, _ = unpack(data)
    return model.step_function("predict")(x)


def plain_logs(logs) -> dict:
    """A step's logs with scalar Tensors as floats (a ``train_step`` override returns ``m.result()``)."""
    if not isinstance(logs, dict):
        raise TypeError(f"train_step/test_step must return a dict of logs. Received: {type(logs).__name__}")
    out = {}
    for k, v in logs.items():
        if isinstance(v, dict):  # Keras 3's nested "compile_metrics" result
            out.update(plain_logs(v))
        elif getattr(v, "shape", None) == () or isinstance(v, (int, float, np.number)):
            out[k] = float(v)
        else:
            out[k] = v
    return out
