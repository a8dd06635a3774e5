"""``compile`` / ``fit`` / ``evaluate`` / ``predict``: the Keras training loop.

``Trainer`` is mixed into ``Model``; it needs only ``__call__``, ``trainable_weights``, ``weights`` and
``losses`` from the model. Every loop runs the one step of :mod:`descend.training.step` (a model's own
``train_step``/``test_step`` when it overrides them) in the data-parallel context of
:mod:`descend.training.replica`, and keeps its position in ``model.fit_state``
(:class:`~descend.training.state.FitState`).
"""

from __future__ import annotations

import math

import numpy as np

from .. import losses as losses_module
from .. import metrics as metrics_module
from ..data import Dataset, default_seed
from ..framework import nest
from ..ops.math_ops import add_n, cast
from ..optimizers import get as get_optimizer
from ..optimizers.loss_scale import LossScaleOptimizer
from . import callbacks as callbacks_module
from . import compile_utils, step
from .replica import LOCAL, replica_for
from .state import FitState
from .step import batch_size as _batch_size
from .step import plain_logs as _plain_logs
from .step import unpack as _unpack

__all__ = ["Trainer"]


def _loss_kind(loss) -> str | None:
    """Which cross-entropy a loss is ("sparse", "categorical", "binary"), for ``metrics=["accuracy"]``."""
    fn = getattr(loss, "fn", loss)  # a LossFunctionWrapper holds the function
    for kind, cls, func in (("sparse", losses_module.SparseCategoricalCrossentropy,
                             losses_module.sparse_categorical_crossentropy),
                            ("categorical", losses_module.CategoricalCrossentropy,
                             losses_module.categorical_crossentropy),
                            ("binary", losses_module.BinaryCrossentropy, losses_module.binary_crossentropy)):
        if isinstance(loss, cls) or fn is func:
            return kind
    return None


def _resolve_metric(identifier, loss):
    if identifier in ("accuracy", "acc"):
        cls = {"sparse": metrics_module.SparseCategoricalAccuracy, "categorical": metrics_module.CategoricalAccuracy,
               "binary": metrics_module.BinaryAccuracy}.get(_loss_kind(loss), metrics_module.Accuracy)
        return cls(name="accuracy")
    metric = metrics_module.get(identifier)
    if isinstance(identifier, str):
        metric.name = identifier  # logged under the name given, as Keras 3 ("mae", not "mean_absolute_error")
    return metric


def _resolve_loss(loss):
    if loss is None or isinstance(loss, losses_module.Loss):
        return loss
    fn = losses_module.get(loss) if isinstance(loss, str) else loss
    if isinstance(fn, losses_module.Loss):
        return fn
    if not callable(fn):
        raise TypeError(f"compile: loss must be a Loss, a function or a name. Received: {loss!r}")
    return losses_module.LossFunctionWrapper(fn)  # per-sample function -> reduced loss, as Keras


def _is_int(v) -> bool:
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _rows(v):
    """Examples in an array, a Tensor, a list of inputs or of values, a dict of inputs (None: unknown)."""
    if isinstance(v, dict):
        v = next(iter(v.values()), None)
    if isinstance(v, (list, tuple)) and v and getattr(v[0], "shape", ()) != ():
        v = v[0]  # several inputs: the first one's rows
    shape = getattr(v, "shape", None)
    if shape is None:
        return len(v) if isinstance(v, (list, tuple)) else None
    return int(shape[0]) if len(shape) else None


def _check_loop_args(what, x, y, batch_size, epochs=None, steps_per_epoch=None, validation_split=None,
                     verbose="auto", initial_epoch=None):
    """The checks ``fit``/``evaluate`` make before touching the model: one ValueError/TypeError naming
    the argument, what it must be and what was received."""
    if batch_size is not None and not (_is_int(batch_size) and batch_size >= 1):
        raise ValueError(f"{what}: `batch_size` must be a positive integer or None; received: {batch_size!r}")
    if epochs is not None and not (_is_int(epochs) and epochs >= 0):
        raise ValueError(f"{what}: `epochs` must be a non-negative integer; received: {epochs!r}")
    if initial_epoch is not None and not (_is_int(initial_epoch) and initial_epoch >= 0):
        raise ValueError(f"{what}: `initial_epoch` must be a non-negative integer; received: {initial_epoch!r}")
    if steps_per_epoch is not None and not (_is_int(steps_per_epoch) and steps_per_epoch >= 1):
        raise ValueError(f"{what}: `steps_per_epoch` must be a positive integer or None; received: "
                         f"{steps_per_epoch!r}")
    if validation_split is not None and not (isinstance(validation_split, (int, float, np.floating))
                                             and not isinstance(validation_split, bool)
                                             and 0 <= validation_split < 1):
        raise ValueError(f"{what}: `validation_split` must be in [0, 1); received: {validation_split!r}")
    if not (verbose == "auto" or (_is_int(verbose) and verbose in (0, 1, 2))):
        raise ValueError(f"{what}: `verbose` must be 0, 1, 2 or 'auto'; received: {verbose!r}")
    if x is None:
        raise ValueError(f"{what}: `x` must be an array, a Tensor or a Dataset; received: None")
    if y is not None and not isinstance(x, Dataset):
        nx, ny = _rows(x), _rows(y)
        if nx is not None and ny is not None and nx != ny:
            raise ValueError(f"{what}: x has {nx} rows but y has {ny}; they must have one row per example")


class Trainer:
    """``compile``, ``fit``, ``evaluate``, ``predict`` and the step methods behind them."""

    compiled = False
    stop_training = False
    run_eagerly = False
    jit_compile = "auto"  # the steps run compiled by descend.function (Keras 3's default)
    steps_per_execution = 1

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, **kwargs):
        """Choose the optimizer, the loss and the metrics (names or objects).

        Args:
            optimizer: an Optimizer or a name (``"adam"``).
            loss: a Loss, a callable ``(y_true, y_pred)`` or a name (``"mse"``);
                for several outputs, a dict keyed by output name or a list in
                output order (:mod:`descend.compile_utils`).
            metrics: a list of Metrics or names (``"accuracy"`` picks the
                accuracy that fits the loss); for several outputs, a dict keyed
                by output name (or a list of lists).
            loss_weights: per-output weights of the losses in the total (a dict or list).
            auto_scale_loss: when the model's dtype policy is ``"mixed_float16"``, wrap the optimizer
                in a :class:`~descend.optimizers.LossScaleOptimizer` (default ``True``, as Keras 3).
        """
        unknown = set(kwargs) - {"run_eagerly", "jit_compile", "steps_per_execution", "auto_scale_loss"}
        if unknown:
            raise TypeError(f"compile: argument(s) not recognized: {sorted(unknown)}")
        run_eagerly, jit_compile = kwargs.get("run_eagerly", False), kwargs.get("jit_compile", "auto")
        steps_per_execution = kwargs.get("steps_per_execution", 1)
        if not isinstance(run_eagerly, (bool, np.bool_)):
            raise ValueError(f"compile: `run_eagerly` must be True or False. Received: run_eagerly={run_eagerly!r}")
        if not (jit_compile == "auto" or isinstance(jit_compile, (bool, np.bool_))):
            raise ValueError(f"compile: `jit_compile` must be True, False or 'auto'. Received: "
                             f"jit_compile={jit_compile!r}")
        if not _is_int(steps_per_execution) or steps_per_execution < 1:
            raise ValueError(f"compile: `steps_per_execution` must be a positive integer. Received: "
                             f"steps_per_execution={steps_per_execution!r}")
        if run_eagerly and jit_compile is True:
            raise ValueError("compile: `jit_compile=True` cannot be combined with `run_eagerly=True`")
        self.run_eagerly = bool(run_eagerly)
        self.jit_compile = False if run_eagerly else (jit_compile if jit_compile == "auto" else bool(jit_compile))
        self.steps_per_execution = int(steps_per_execution)
        self.__dict__["_step_functions"] = {}
        self.optimizer = get_optimizer(optimizer)
        if (self.optimizer is not None and kwargs.get("auto_scale_loss", True) and self.dtype_policy.name == "mixed_float16"
                and not isinstance(self.optimizer, LossScaleOptimizer)):
            # as Keras 3: float16 gradients underflow without a loss scale, so a mixed_float16 model gets one
            self.optimizer = LossScaleOptimizer(self.optimizer)
        several = len(getattr(self, "_graph_flat_outputs", ())) > 1
        if compile_utils.is_structured(loss) or (several and loss is not None) or loss_weights is not None:
            self.loss = compile_utils.CompiledLoss(loss, loss_weights, self, _resolve_loss)
        else:
            self.loss = _resolve_loss(loss)
        if isinstance(metrics, dict) or (isinstance(metrics, (list, tuple)) and any(isinstance(m, (list, tuple))
                                                                                     for m in metrics)):
            found = compile_utils.output_metrics(metrics, self, self.loss, _resolve_metric)
        else:
            found = [_resolve_metric(m, self.loss) if isinstance(m, str) else m for m in (metrics or [])]
        self.compiled_metrics = compile_utils.MetricList(found)
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.compiled = True

    @property
    def metrics(self) -> list:
        """The loss tracker and the compiled metrics."""
        if not self.compiled:
            return list(getattr(self, "compiled_metrics", []))
        return [self._loss_tracker] + list(getattr(self.loss, "trackers", [])) + list(self.compiled_metrics)

    def _check_compiled(self, what):
        if not self.compiled:
            raise RuntimeError(f"You must call compile() before {what}()")
        if what == "fit" and self.optimizer is None:
            raise ValueError("fit() needs an optimizer: compile() was called with optimizer=None")
        # a model overriding train_step/test_step may compute its own loss (Keras' "customizing fit")
        step = {"fit": "train_step", "evaluate": "test_step"}.get(what)
        own_step = step is not None and getattr(type(self), step) is not getattr(Trainer, step)
        if self.loss is None and what != "predict" and not own_step:
            raise ValueError(f"{what}() needs a loss: pass loss= to compile()")

    def compiled_loss(self, y_true, y_pred, sample_weight=None, regularization_losses=None):
        """tf.keras' ``model.compiled_loss``: the compiled loss plus ``regularization_losses``, also
        recorded by the ``loss`` metric (for ``train_step`` overrides written for TF 2's Keras)."""
        if self.loss is None:
            raise ValueError("compiled_loss needs a loss: pass loss= to compile()")
        loss = self.loss(y_true, y_pred, sample_weight) if sample_weight is not None else self.loss(y_true, y_pred)
        extra = list(regularization_losses or [])
        if extra:
            loss = add_n([loss] + [cast(e, dtype=loss.dtype) for e in extra])
        self._loss_tracker.update_state(loss, sample_weight=float(_batch_size(y_pred)))
        return loss

    # ---------------------------------------------------------------- steps
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss plus the model's regularization losses."""
        loss = self.loss(y, y_pred, sample_weight) if sample_weight is not None else self.loss(y, y_pred)
        extra = list(self.losses)
        if extra:
            loss = add_n([loss] + [cast(e, dtype=loss.dtype) for e in extra])
        return loss

    def train_step(self, data):
        """One update on one batch; returns the logs (running means over the epoch). The one step of
        :mod:`descend.training.step`; override it to customize ``fit`` (Keras' ``train_step``)."""
        return step.train_step(self, data)

    def test_step(self, data):
        """The loss and metrics of one batch, without an update."""
        return step.test_step(self, data)

    def predict_step(self, data):
        """The model's outputs for one batch."""
        return step.predict_step(self, data)

    def step_function(self, kind: str, replica=None):
        """The compilable core of the ``kind`` step (``"train"``, ``"test"`` or ``"predict"``), compiled by
        ``descend.function`` unless ``compile(run_eagerly=True)`` or ``jit_compile=False`` (see
        :func:`descend.training.step.make_step_function`); made on first use after each ``compile``.

        Under a strategy (``replica``, default :func:`replica_for`'s) the step compiles too, the gradient
        exchange running inside the plan's optimizer stage, unless a layer talks to the other replicas in its
        forward pass (a table sharded over the ranks: its lookup is a collective, which a trace would run
        once and a plan never): that model's steps run op by op."""
        if replica is None:
            replica = replica_for(self)
        # (run_eagerly and jit_compile may both be set at any time)
        compiled = False if self.run_eagerly or not replica.compiles(self) else self.jit_compile
        functions = self.__dict__.setdefault("_step_functions", {})
        fn = functions.get((kind, compiled))
        if fn is None:
            fn = functions[(kind, compiled)] = step.make_step_function(self, kind, compiled)
        return fn

    def update_compiled_metrics(self, loss, y, y_pred, sample_weight=None) -> None:
        """Record a batch in the loss tracker (``loss`` weighted by the batch's rows) and the compiled metrics."""
        n = _batch_size(y_pred)
        self._loss_tracker.update_state(loss, sample_weight=float(n))
        for m in self.compiled_metrics:
            m.update_state(y, y_pred, sample_weight=sample_weight)

    @property
    def fit_state(self) -> FitState:
        """Where ``fit`` is (and was, after it returns): :class:`~descend.training.state.FitState`."""
        state = self.__dict__.get("_fit_state")
        if state is None:
            state = self.__dict__["_fit_state"] = FitState(replica=LOCAL)
        return state

    def keep_restored(self, checkpoint) -> None:
        """Keep ``checkpoint`` alive with the model while values it restored wait for variables the model has
        not created yet (None: nothing waits)."""
        self.__dict__["_restored_checkpoint"] = checkpoint

    @property
    def restored_checkpoint(self):
        """The checkpoint whose restored values wait for variables this model has not created yet, or None."""
        return self.__dict__.get("_restored_checkpoint")

    def _run_train_step(self, replica, data) -> dict:
        """The training step of one batch in ``replica``'s context: the one step, or the model's own
        ``train_step`` (run as this replica, its gradients weighted by the replica's share of the batch)."""
        if replica.num_replicas == 1:
            return _plain_logs(self.train_step(data))
        if type(self).train_step is Trainer.train_step:  # the one step, as this replica
            return _plain_logs(replica.run(self.train_step, data))
        rows = _batch_size(_unpack(data)[0])
        replica.run(self.train_step, data, local_rows=rows, global_rows=replica.global_rows(rows))
        return _plain_logs(replica.results(self.metrics)[0])

    # ---------------------------------------------------------------- data
    @staticmethod
    def _as_dataset(x, y, sample_weight, batch_size, shuffle, seed):
        if isinstance(x, Dataset):
            if y is not None:
                raise ValueError("fit: when x is a Dataset, y must be None (the dataset yields (x, y))")
            return x, None
        parts = (x,) if y is None else ((x, y) if sample_weight is None else (x, y, sample_weight))
        n = _batch_size(x)
        ds = Dataset.from_tensor_slices(parts)
        if shuffle:
            ds = ds.shuffle(n, seed=seed)
        return ds.batch(batch_size or 32), math.ceil(n / (batch_size or 32))

    # ---------------------------------------------------------------- loops
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, initial_epoch=0, steps_per_epoch=None, sample_weight=None,
            seed=None):
        """Train for ``epochs`` epochs; returns the ``History`` callback.

        Args:
            x, y: arrays/Tensors (batched with ``batch_size``, default 32) or a
                Dataset yielding ``(x, y)`` or ``(x, y, sample_weight)``.
            validation_split: hold out this fraction of the arrays (the last
                examples, before shuffling, as Keras).
            validation_data: ``(x_val, y_val)`` or a Dataset; evaluated at each
                epoch's end and logged with a ``val_`` prefix.
            verbose: 0 silent, 1 or "auto" a progress bar, 2 one line per epoch.
            seed: shuffling seed for array inputs.
        """
        _check_loop_args("fit", x, y, batch_size, epochs, steps_per_epoch, validation_split, verbose, initial_epoch)
        self._check_compiled("fit")
        if validation_split and validation_data is None:
            if isinstance(x, Dataset):
                raise ValueError("validation_split is only supported for array inputs")
            if not 0 < validation_split < 1:
                raise ValueError(f"validation_split must be in (0, 1). Received: {validation_split}")
            n = _batch_size(x)
            cut = int(n * (1 - validation_split))
            def part(structure, rows):  # arrays, or the lists/dicts of a model with several inputs/outputs
                return nest.pack_like(structure, [np.asarray(v)[rows] for v in nest.flatten(structure)])

            validation_data = (part(x, slice(cut, None)), part(y, slice(cut, None)))
            x, y = part(x, slice(None, cut)), part(y, slice(None, cut))
            if sample_weight is not None:
                sample_weight = np.asarray(sample_weight)[:cut]
        replica = replica_for(self)  # under a distribution strategy: this rank's rows, one progress bar
        if shuffle and seed is None and not isinstance(x, Dataset):
            seed = replica.from_chief(default_seed())  # every rank must shuffle alike to split the same batches
        train, steps = self._as_dataset(x, y, sample_weight, batch_size, shuffle, seed)
        train = replica.shard(train)
        verbose = verbose if replica.is_chief else 0
        steps = steps_per_epoch or steps
        if steps is None:
            try:
                steps = len(train)
            except TypeError:
                steps = None
        history = callbacks_module.History()
        cbs = list(callbacks or [])
        if verbose in ("auto", 1):
            cbs.append(callbacks_module.ProgbarLogger())
        cbs.append(history)
        cb = callbacks_module.CallbackList(cbs, model=self, params={"epochs": epochs, "steps": steps,
                                                                    "verbose": verbose})
        self.stop_training = False
        state = self.fit_state
        state.epoch, state.step, state.iterator, state.learning_rate = initial_epoch, 0, None, None
        state.batch_loss, state.resume, state.replica = float("nan"), None, replica
        cb.on_train_begin()
        # a callback that restored a backup (descend.train.BackupAndRestore) says where to continue:
        # which epoch, how many of its steps are done, and the data iterator's saved position
        resume, state.resume = state.resume, None
        logged_lr = None  # (value, iterations): the rate the interrupted run logged, until the next real update
        if resume is not None:
            initial_epoch = resume["epoch"]
            if resume.get("learning_rate") is not None:
                logged_lr = (resume["learning_rate"], int(self.optimizer.iterations.numpy()))
            if resume.get("iterator") is None and resume.get("data_epoch") is not None:
                # a backup taken at an epoch's end: the data continues with the epoch after the saved one
                # (its shuffle order), not with this new dataset's first epoch
                train.iterator_from_state(resume["data_epoch"])
            if not getattr(self, "built", True):
                self._build_like(x)  # restored weights wait for the variables: create them even if no step is left
        logs: dict = {}
        for epoch in range(initial_epoch, epochs):
            first_step = 0
            if resume is not None and resume.get("iterator") is not None:
                iterator = train.iterator_from_state(resume["iterator"])
                first_step = resume["step"]
            else:
                for m in self.metrics:
                    m.reset_state()
                if resume is not None and resume.get("data_epoch") is None and hasattr(train, "_set_next_epoch"):
                    # restored at an epoch's start with no saved data position: that epoch's order, not epoch 0's
                    train._set_next_epoch(epoch)
                iterator = iter(train)
            resume = None
            state.epoch, state.step, state.iterator = epoch, first_step, iterator
            cb.on_epoch_begin(epoch)
            # ``steps_per_execution = k`` (Keras): the callbacks see one batch of k steps, numbered by its
            # first and last step; training stops between such batches only
            per_execution, begun = self.steps_per_execution, None
            for n, data in enumerate(iterator, start=first_step):
                if steps_per_epoch is not None and n >= steps_per_epoch:
                    break
                if begun is None:
                    begun = n
                    cb.on_train_batch_begin(n)
                logs = self._run_train_step(replica, data)
                state.step = n + 1
                if n + 1 - begun < per_execution:
                    continue
                logged_lr = self._end_execution(cb, replica, begun + per_execution - 1, logs, data, logged_lr)
                begun = None
                if self.stop_training:
                    break
            if begun is not None:  # the epoch ended inside an execution
                logged_lr = self._end_execution(cb, replica, begun + per_execution - 1, logs, data, logged_lr)
            epoch_logs = dict(logs)
            if validation_data is not None:
                val = self.evaluate(*self._val_args(validation_data), batch_size=batch_size, verbose=0,
                                    return_dict=True)
                epoch_logs.update({f"val_{k}": v for k, v in val.items()})
            epoch_logs["learning_rate"] = (self.optimizer.current_hyper("learning_rate") if logged_lr is None
                                           else logged_lr[0])
            cb.on_epoch_end(epoch, epoch_logs)
            if verbose == 2:
                print(f"epoch {epoch + 1}/{epochs} - " + " - ".join(f"{k}: {v:.4g}" for k, v in epoch_logs.items()))
            self.stop_training = replica.any(self.stop_training)
            if self.stop_training:
                break
        flush = getattr(self.optimizer, "flush", None)
        if flush is not None:  # sparse_updates="exact_lazy": every row up to date when fit returns
            flush()
        finalize = getattr(self.optimizer, "finalize_variable_values", None)
        if finalize is not None:  # use_ema: the averages replace the weights at the end of training (Keras)
            finalize(self.trainable_variables)
        cb.on_train_end(logs)
        state.iterator = None
        self.history = history
        return history

    def _end_execution(self, cb, replica, last_step: int, logs: dict, data, logged_lr):
        """After the steps of one execution: the learning rate logged, ``on_train_batch_end(last_step)``, and
        ``stop_training`` decided with every replica (a callback on one rank, a time limit, stops every rank:
        none waits). Returns the restored learning rate still to log (None once a step moved past it)."""
        if logged_lr is not None and int(self.optimizer.iterations.numpy()) != logged_lr[1]:
            logged_lr = None
        lr = self.optimizer.current_hyper("learning_rate") if logged_lr is None else logged_lr[0]
        self.fit_state.learning_rate = lr
        cb.on_train_batch_end(last_step, dict(logs, size=_batch_size(_unpack(data)[0]), learning_rate=lr))
        self.stop_training = replica.any(self.stop_training)
        return logged_lr

    def _build_like(self, x) -> None:
        """Create the model's variables by calling it (inference mode) on one example of ``x``
        (arrays or Tensors; a Dataset is left alone: reading it would move its epoch counter)."""
        from ..framework.tensor import Tensor

        if isinstance(x, Dataset) or x is None:
            return
        first = x[:1] if isinstance(x, (np.ndarray, Tensor)) else None
        if first is not None and len(first):
            self(first if isinstance(first, Tensor) else np.asarray(first), training=False)

    @staticmethod
    def _val_args(validation_data):
        if isinstance(validation_data, Dataset):
            return (validation_data,)
        if isinstance(validation_data, (tuple, list)) and len(validation_data) in (2, 3):
            return tuple(validation_data[:2])
        raise ValueError("validation_data must be (x, y) or a Dataset")

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, callbacks=None,
                 return_dict=False):
        """The loss and metrics over the data (one pass, no updates)."""
        _check_loop_args("evaluate", x, y, batch_size, verbose=verbose)
        self._check_compiled("evaluate")
        data, _ = self._as_dataset(x, y, sample_weight, batch_size, False, None)
        replica = replica_for(self)
        data = replica.shard(data)
        for m in self.metrics:
            m.reset_state()
        cb = callbacks_module.CallbackList(callbacks, model=self)
        cb.on_test_begin()
        logs = {}
        for n, batch in enumerate(data):
            cb.on_test_batch_begin(n)
            if replica.num_replicas == 1 or _batch_size(_unpack(batch)[0]):  # a replica may get no rows
                logs = _plain_logs(self.test_step(batch))
            cb.on_test_batch_end(n, logs)
        if replica.num_replicas > 1:  # metrics over every rank's rows
            logs = _plain_logs(replica.results(self.metrics)[0])
        cb.on_test_end(logs)
        if return_dict:
            return logs
        values = [logs[m.name] for m in self.metrics]
        return values[0] if len(values) == 1 else values

    # ---------------------------------------------------------------- one batch (Keras' *_on_batch)
    def _batch_logs(self, logs, return_dict):
        logs = _plain_logs(logs)
        if return_dict:
            return logs
        values = [logs[m.name] for m in self.metrics if m.name in logs]
        return values[0] if len(values) == 1 else values

    def train_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """One update on one batch, as Keras 3: the metrics are reset first, so the loss (and metrics)
        returned are this batch's."""
        self._check_compiled("fit")
        if replica_for(self).num_replicas > 1:
            raise ValueError("train_on_batch runs on one process; under a distribution strategy use fit()")
        self.fit_state.replica = LOCAL
        data = (x,) if y is None else ((x, y) if sample_weight is None else (x, y, sample_weight))
        self.reset_metrics()
        return self._batch_logs(self.train_step(data), return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        """The loss (and metrics) of one batch without an update, as Keras 3 (the metrics are reset first)."""
        self._check_compiled("evaluate")
        data = (x,) if y is None else ((x, y) if sample_weight is None else (x, y, sample_weight))
        self.reset_metrics()
        return self._batch_logs(self.test_step(data), return_dict)

    def predict_on_batch(self, x):
        """The model's outputs for one batch, as NumPy arrays."""
        out = self.predict_step((x,))
        return nest.pack_like(out, [np.asarray(o) for o in nest.flatten(out)])

    def reset_metrics(self) -> None:
        """Zero the loss tracker and the compiled metrics (Keras)."""
        for m in self.metrics:
            m.reset_state()

    def predict(self, x, batch_size=None, verbose="auto", callbacks=None):
        """Model outputs for every example, as a NumPy array."""
        data, _ = self._as_dataset(x, None, None, batch_size, False, None)
        outs = []
        for batch in data:
            out = self.predict_step(batch)
            outs.append(out)
        if not outs:
            raise ValueError("predict: the input is empty")
        # several outputs (a list or dict): one array per output
        return nest.pack_like(outs[0], [np.concatenate([np.asarray(o) for o in parts], axis=0)
                                        for parts in zip(*(nest.flatten(o) for o in outs))])
