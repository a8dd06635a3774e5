"""``compile`` / ``fit`` / ``evaluate`` / ``predict``: the Keras training loop.

``Trainer`` is mixed into ``Model``; it needs only ``__call__``, ``trainable_weights``, ``weights`` and
``losses`` from the model. Every loop runs the one step of :mod:`descend.training.step` (a model's own
``train_step``/``test_step`` when it overrides them) in the data-parallel context of
:mod:`descend.training.replica`, and keeps its position in ``model.fit_state``
(:class:`~descend.training.fit_state.FitState`).
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import losses as losses_module
from .. import metrics as metrics_module
from ..data import Dataset, default_seed
from ..framework import nest
from ..ops.core_ops import reduce_sum
from ..ops.math_ops import add_n, cast
from ..optimizers import get as get_optimizer
from ..optimizers.loss_scale import LossScaleOptimizer
from . import adapters, compile_utils, step
from . import callbacks as callbacks_module
from .replica import LOCAL, replica_for
from .fit_state import FitState
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


def _accuracy_by_shapes(y_true, y_pred):
    """Keras 3's accuracy for ``metrics=["accuracy"]`` beside a loss that does not say which: binary when the
    predictions have one column, sparse categorical when the targets have a lower rank (or one column against
    several), categorical otherwise."""
    t, p = np.shape(y_true), np.shape(y_pred)
    if p and p[-1] == 1:
        return metrics_module.binary_accuracy(y_true, y_pred)
    if len(t) < len(p) or (t and p and t[-1] == 1 and p[-1] > 1):
        return metrics_module.sparse_categorical_accuracy(y_true, y_pred)
    return metrics_module.categorical_accuracy(y_true, y_pred)


def _resolve_metric(identifier, loss):
    if identifier in ("accuracy", "acc"):
        cls = {"sparse": metrics_module.SparseCategoricalAccuracy, "categorical": metrics_module.CategoricalAccuracy,
               "binary": metrics_module.BinaryAccuracy}.get(_loss_kind(loss))
        return cls(name="accuracy") if cls is not None else \
            metrics_module.MeanMetricWrapper(_accuracy_by_shapes, name="accuracy")
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


def _held_metrics(model, skip: set) -> list:
    """The Metrics held as attributes (or in lists/tuples/dicts there) by ``model`` and by each of its sublayers
    but those that are models (Keras 3 leaves a nested trainer's metrics to it), each once, but those in ``skip``."""
    found = []
    for layer in [model] + [la for la in model._flatten_layers(include_self=False) if not isinstance(la, Trainer)]:
        for value in vars(layer).values():
            for v in nest.held(value, 3):
                if isinstance(v, metrics_module.Metric) and id(v) not in skip:
                    skip.add(id(v))
                    found.append(v)
    return found


class Trainer:
    """``compile``, ``fit``, ``evaluate``, ``predict`` and the step methods behind them."""

    compiled = False
    stop_training = False
    run_eagerly = False
    jit_compile = "auto"  # the steps run compiled by descend.function (Keras 3's default)
    steps_per_execution = 1

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None, weighted_metrics=None,
                **kwargs):
        """Choose the optimizer, the loss and the metrics (names or objects). Compiling again without ``loss``
        keeps the loss of the previous ``compile``, and without ``metrics`` and ``weighted_metrics`` its metrics,
        as Keras 3 does.

        Args:
            optimizer: an Optimizer or a name (``"adam"``).
            loss: a Loss, a callable ``(y_true, y_pred)`` or a name (``"mse"``);
                for several outputs, a dict keyed by output name or a list in
                output order (:mod:`descend.compile_utils`).
            metrics: a list of Metrics or names (``"accuracy"`` picks the
                accuracy that fits the loss); for several outputs, a dict keyed
                by output name (or a list of lists). As in Keras 3 they do not see
                sample weights (nor ``class_weight``).
            loss_weights: per-output weights of the losses in the total (a dict or list).
            weighted_metrics: metrics (as ``metrics``) weighted by the sample weights; one whose name a
                metric of ``metrics`` has already is logged as ``weighted_<name>``.
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
        self.fit_state.metrics = None  # (the steps find the metrics of this compile)
        self.optimizer = get_optimizer(optimizer)
        if (self.optimizer is not None and kwargs.get("auto_scale_loss", True) and self.dtype_policy.name == "mixed_float16"
                and not isinstance(self.optimizer, LossScaleOptimizer)):
            # as Keras 3: float16 gradients underflow without a loss scale, so a mixed_float16 model gets one
            self.optimizer = LossScaleOptimizer(self.optimizer)
        several = len(getattr(self, "_graph_flat_outputs", ())) > 1
        again = self.compiled  # Keras 3: compiling again without a loss (or metrics) keeps the previous ones
        if loss is None and again:
            pass
        elif compile_utils.is_structured(loss) or (several and loss is not None) or \
                (loss_weights is not None and loss is not None):
            self.loss = compile_utils.CompiledLoss(loss, loss_weights, self, _resolve_loss)
        else:
            self.loss = _resolve_loss(loss)
        if not (again and metrics is None and weighted_metrics is None):
            found = self._compiled_metric_list(metrics, "metrics")
            weighted = self._compiled_metric_list(weighted_metrics, "weighted_metrics")
            self.compiled_metrics = compile_utils.CompileMetrics(found, weighted)
        self._loss_tracker = metrics_module.Mean(name="loss")
        self.compiled = True

    def _compiled_metric_list(self, metrics, what) -> list:
        if metrics is not None and not isinstance(metrics, (list, tuple, dict)):
            raise TypeError(f"compile: `{what}` must be a list, a tuple or a dict. Received: {metrics!r}")
        if isinstance(metrics, dict) or (isinstance(metrics, (list, tuple)) and any(isinstance(m, (list, tuple))
                                                                                     for m in metrics)):
            return compile_utils.output_metrics(metrics, self, self.loss, _resolve_metric)
        return [_resolve_metric(m, self.loss) if isinstance(m, str) else
                metrics_module.MeanMetricWrapper(m) if callable(m) and not isinstance(m, metrics_module.Metric) else m
                for m in (metrics or [])]  # a plain function: the mean of its values, as Keras 3

    @property
    def metrics(self) -> list:
        """As Keras 3: the loss tracker (``loss``), the compiled metrics as one metric (``compile_metrics``,
        when ``compile`` was given any), the loss of each output of a model with several, then the metrics the
        model and its layers hold as attributes (an endpoint layer's accuracy: fit logs and resets it too)."""
        compiled = []
        if self.compiled:
            compiled = [self._loss_tracker] + ([self.compiled_metrics] if len(self.compiled_metrics) else []) + \
                list(getattr(self.loss, "trackers", []))
        machinery = {id(m) for m in compiled} | {id(vars(self).get(k)) for k in ("compiled_metrics", "_loss_tracker")}
        return compiled + _held_metrics(self, machinery)

    def _check_compiled(self, what):
        if not self.compiled:
            raise RuntimeError(f"You must call compile() before {what}()")
        if what == "fit" and self.optimizer is None:
            raise ValueError("fit() needs an optimizer: compile() was called with optimizer=None")

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
        """The compiled loss plus the model's ``add_loss`` terms and regularization losses (each summed to a
        scalar). With no loss in ``compile`` the added terms are the loss, as Keras 3: ``fit(x)`` trains a
        model that computes its own loss with ``add_loss``."""
        extra = [e if not getattr(e, "shape", ()) else reduce_sum(e) for e in self.losses]
        if self.loss is None:
            if not extra:
                raise ValueError("No loss to compute: compile() was given no loss and the model added none "
                                 "(add_loss). Provide a `loss` argument in `compile()`")
            return extra[0] if len(extra) == 1 else add_n([cast(e, dtype=extra[0].dtype) for e in extra])
        loss = self.loss(y, y_pred, sample_weight) if sample_weight is not None else self.loss(y, y_pred)
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
        """Record a batch in the loss tracker (``loss`` weighted by the batch's rows) and the compiled metrics
        (the sample weights go to the ``weighted_metrics`` only, as Keras 3)."""
        n = _batch_size(y_pred)
        self._loss_tracker.update_state(loss, sample_weight=float(n))
        self.compiled_metrics.update_state(y, y_pred, sample_weight=sample_weight)

    @property
    def fit_state(self) -> FitState:
        """Where ``fit`` is (and was, after it returns): :class:`~descend.training.fit_state.FitState`."""
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
        return _plain_logs(replica.results(compile_utils.flat_metrics(self.metrics))[0])

    # ---------------------------------------------------------------- loops
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None, validation_split=0.0,
            validation_data=None, shuffle=True, class_weight=None, sample_weight=None, initial_epoch=0,
            steps_per_epoch=None, validation_steps=None, validation_batch_size=None, validation_freq=1,
            seed=None):
        """Train for ``epochs`` epochs; returns the ``History`` callback (Keras 3's arguments, in its order).

        Args:
            x, y: arrays/Tensors (batched with ``batch_size``, default 32), or a Dataset, a
                :class:`~descend.training.adapters.PyDataset`, a generator or a torch ``DataLoader``
                yielding ``x``, ``(x, y)`` or ``(x, y, sample_weight)`` (see :mod:`descend.training.adapters`).
                With no loss in ``compile`` the model trains on its ``add_loss`` terms, and ``y`` may be left out.
            validation_split: hold out this fraction of the arrays (the last
                examples, before shuffling, as Keras).
            validation_data: ``(x_val, y_val)``, ``(x_val, y_val, sample_weight)`` or any input ``x`` takes;
                evaluated at the end of every ``validation_freq``-th epoch (an int, or the 1-based epochs to
                evaluate after) on ``validation_steps`` batches (default: all) of ``validation_batch_size``
                (default ``batch_size``), firing the callbacks' ``on_test_*`` hooks; logged with a ``val_`` prefix.
            class_weight: ``{class id: weight}``, weighting each example's loss by its class's weight.
            steps_per_epoch: steps in an epoch; the next epoch continues the same pass over the data (as
                Keras), which starts again only when it runs out.
            verbose: 0 silent, 1 or "auto" a progress bar, 2 one line per epoch.
            seed: shuffling seed for array inputs and a PyDataset's batch order.
        """
        _check_loop_args("fit", x, y, batch_size, epochs, steps_per_epoch, validation_split, verbose, initial_epoch)
        _check_count("fit", "validation_steps", validation_steps)
        if validation_batch_size is not None and not (_is_int(validation_batch_size) and validation_batch_size >= 1):
            raise ValueError(f"fit: `validation_batch_size` must be a positive integer or None; received: "
                             f"{validation_batch_size!r}")
        _check_validation_freq(validation_freq)
        self._check_compiled("fit")
        if validation_split and validation_data is None:
            if not _is_arrays(x):
                raise ValueError(f"fit: `validation_split` is only supported for arrays and Tensors; x is a "
                                 f"{type(x).__name__}: pass validation_data instead")
            n = _batch_size(x)
            cut = int(n * (1 - validation_split))

            def part(structure, rows):  # arrays, or the lists/dicts of a model with several inputs/outputs
                return None if structure is None else \
                    nest.pack_like(structure, [np.asarray(v)[rows] for v in nest.flatten(structure)])

            validation_data = (part(x, slice(cut, None)), part(y, slice(cut, None)),
                               part(sample_weight, slice(cut, None)))
            x, y, sample_weight = part(x, slice(None, cut)), part(y, slice(None, cut)), part(sample_weight,
                                                                                          slice(None, cut))
        val_parts = None if validation_data is None else _validation_parts(validation_data)
        replica = replica_for(self)  # under a distribution strategy: this rank's rows, one progress bar
        if shuffle and seed is None and not isinstance(x, Dataset):
            seed = replica.from_chief(default_seed())  # every rank must shuffle alike to split the same batches
        data = adapters.batches_for("fit", x, y, sample_weight, batch_size=batch_size, steps=steps_per_epoch,
                                    shuffle=shuffle, seed=seed, class_weight=class_weight)
        train = replica.shard(data.dataset)
        verbose = verbose if replica.is_chief else 0
        steps = steps_per_epoch or data.num_batches
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
        state.batch_rows, state.continues, state.metrics = 0, False, None
        data.reset()
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
        training_logs = None
        carried, seen = None, 0  # with steps_per_epoch: the pass the next epoch continues, and its batches done
        for epoch in range(initial_epoch, epochs):
            first_step = 0
            if resume is not None and resume.get("iterator") is not None:
                iterator = train.iterator_from_state(resume["iterator"])
                first_step, seen = resume["step"], iterator.position
                if first_step == 0:  # saved at the end of the epoch before, whose pass this epoch continues
                    self.reset_metrics()
            else:
                self.reset_metrics()
                if carried is not None:
                    iterator = carried
                else:
                    if resume is not None and resume.get("data_epoch") is None and hasattr(train, "_set_next_epoch"):
                        # restored at an epoch's start with no saved data position: that epoch's order, not epoch 0's
                        train._set_next_epoch(epoch)
                    iterator, seen = iter(train), 0
            resume, carried = None, None
            state.epoch, state.step, state.iterator, state.continues = epoch, first_step, iterator, False
            state.metrics = None
            cb.on_epoch_begin(epoch)
            data.on_epoch_begin()
            # ``steps_per_execution = k`` (Keras): the callbacks see one batch of k steps, numbered by its
            # first and last step; training stops between such batches only
            per_execution, begun, batch = self.steps_per_execution, None, None
            n, ran_out = first_step, False
            while steps_per_epoch is None or n < steps_per_epoch:
                if steps_per_epoch is not None and data.num_batches is not None and seen >= data.num_batches:
                    ran_out = True  # the pass is over: the next epoch starts a new one
                    break
                try:
                    batch = next(iterator)
                except StopIteration:
                    ran_out = True
                    break
                seen += 1
                if begun is None:
                    begun = n
                    cb.on_train_batch_begin(n)
                logs = self._run_train_step(replica, batch)
                n += 1
                state.step = n
                if n - begun < per_execution:
                    continue
                logged_lr = self._end_execution(cb, replica, begun + per_execution - 1, logs, batch, logged_lr)
                begun = None
                if self.stop_training:
                    break
            if begun is not None:  # the epoch ended inside an execution
                logged_lr = self._end_execution(cb, replica, begun + per_execution - 1, logs, batch, logged_lr)
            data.on_epoch_end()
            if ran_out and steps_per_epoch is not None and n < steps_per_epoch:
                warnings.warn("Your input ran out of data; interrupting the epoch. Make sure that your dataset or "
                              "generator can generate at least `steps_per_epoch * epochs` batches (you may need "
                              "`.repeat()` on a Dataset)", stacklevel=2)
            if steps_per_epoch is not None and not ran_out and (data.num_batches is None or seen < data.num_batches):
                carried = iterator  # Keras: the next epoch continues this pass
                state.continues = True
            epoch_logs = dict(logs)
            if val_parts is not None and _should_validate(epoch, validation_freq):
                val = self.evaluate(val_parts[0], val_parts[1], batch_size=validation_batch_size or batch_size,
                                    verbose=0, sample_weight=val_parts[2], steps=validation_steps, callbacks=cb,
                                    return_dict=True)
                epoch_logs.update({f"val_{k}": v for k, v in val.items()})
            cb.on_epoch_end(epoch, epoch_logs)
            training_logs = epoch_logs
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
        cb.on_train_end(training_logs)
        state.iterator, state.continues = None, False
        self.history = history
        return history

    def _end_execution(self, cb, replica, last_step: int, logs: dict, batch, logged_lr):
        """After the steps of one execution: the learning rate logged, ``on_train_batch_end(last_step)``, and
        ``stop_training`` decided with every replica (a callback on one rank, a time limit, stops every rank:
        none waits). Returns the restored learning rate still to log (None once a step moved past it)."""
        if logged_lr is not None and int(self.optimizer.iterations.numpy()) != logged_lr[1]:
            logged_lr = None
        lr = self.optimizer.current_hyper("learning_rate") if logged_lr is None else logged_lr[0]
        state = self.fit_state
        state.learning_rate, state.batch_rows = lr, _batch_size(_unpack(batch)[0])
        cb.on_train_batch_end(last_step, logs)
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

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None, steps=None,
                 callbacks=None, return_dict=False):
        """The loss and metrics over the data (one pass, or ``steps`` batches; no updates), firing the
        callbacks' ``on_test_*`` hooks. Returns a dict with ``return_dict``, else the values in
        :attr:`metrics_names` order (one value alone)."""
        _check_loop_args("evaluate", x, y, batch_size, verbose=verbose)
        _check_count("evaluate", "steps", steps)
        self._check_compiled("evaluate")
        data = adapters.batches_for("evaluate", x, y, sample_weight, batch_size=batch_size, steps=steps)
        replica = replica_for(self)
        dataset = replica.shard(data.dataset)
        cb = callbacks if isinstance(callbacks, callbacks_module.CallbackList) else callbacks_module.CallbackList(
            callbacks, model=self, params={"epochs": 1, "steps": steps or data.num_batches, "verbose": verbose})
        data.reset()
        cb.on_test_begin()
        self.reset_metrics()
        logs = {}
        data.on_epoch_begin()
        for n, batch in enumerate(_batches(dataset, steps, data.num_batches)):
            cb.on_test_batch_begin(n)
            if replica.num_replicas == 1 or _batch_size(_unpack(batch)[0]):  # a replica may get no rows
                logs = _plain_logs(self.test_step(batch))
            cb.on_test_batch_end(n, logs)
        data.on_epoch_end()
        if replica.num_replicas > 1:  # metrics over every rank's rows
            logs = _plain_logs(replica.results(compile_utils.flat_metrics(self.metrics))[0])
        cb.on_test_end(logs)
        if return_dict:
            return logs
        values = [logs[name] for name in self._result_order() if name in logs]
        return values[0] if len(values) == 1 else values

    def _result_order(self) -> list:
        """The order of ``evaluate``'s (and ``*_on_batch``'s) list of values, as Keras 3: the loss, each output's
        loss, then the compiled metrics."""
        flat = compile_utils.flat_metrics(self.metrics)
        losses = [m.name for m in flat if m.name == "loss" or m.name.endswith("_loss")]
        return losses + [m.name for m in flat if m.name not in losses]

    @property
    def metrics_names(self) -> list:
        """The names of :attr:`metrics`, as Keras 3: ``["loss", "compile_metrics"]`` for a model compiled with
        metrics (``evaluate`` returns the loss, each compiled metric's value, then the per-output losses)."""
        return [m.name for m in self.metrics]
    # ---------------------------------------------------------------- one batch (Keras' *_on_batch)
    def _batch_logs(self, logs, return_dict):
        logs = _plain_logs(logs)
        if return_dict:
            return logs
        values = [logs[name] for name in self._result_order() if name in logs]
        return values[0] if len(values) == 1 else values

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None, return_dict=False):
        """One update on one batch, as Keras 3: the metrics are reset first, so the loss (and metrics)
        returned are this batch's. ``class_weight`` (``{class id: weight}``) weights each example by its class."""
        self._check_compiled("fit")
        if class_weight is not None:
            if sample_weight is not None:
                raise ValueError("train_on_batch: you cannot give `class_weight` and `sample_weight` at the same time")
            adapters.check_class_weight(class_weight)
            if y is None:
                raise ValueError("train_on_batch: `class_weight` needs targets `y`")
            sample_weight = adapters.class_weights_for(y, class_weight)
        if replica_for(self).num_replicas > 1:
            raise ValueError("train_on_batch runs on one process; under a distribution strategy use fit()")
        self.fit_state.replica, self.fit_state.metrics = LOCAL, None
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

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """Model outputs for every example (or ``steps`` batches), as NumPy arrays in the structure of the
        model's outputs; fires the callbacks' ``on_predict_*`` hooks (a batch's end gets ``{"outputs": ...}``)."""
        _check_loop_args("predict", x, None, batch_size, verbose=verbose)
        _check_count("predict", "steps", steps)
        data = adapters.batches_for("predict", x, batch_size=batch_size, steps=steps)
        cb = callbacks if isinstance(callbacks, callbacks_module.CallbackList) else callbacks_module.CallbackList(
            callbacks, model=self, params={"epochs": 1, "steps": steps or data.num_batches, "verbose": verbose})
        cb.on_predict_begin()
        outs = []
        data.on_epoch_begin()
        for n, batch in enumerate(_batches(data.dataset, steps, data.num_batches)):
            cb.on_predict_batch_begin(n)
            out = self.predict_step(batch)
            out = nest.pack_like(out, [np.asarray(o) for o in nest.flatten(out)])
            outs.append(out)
            cb.on_predict_batch_end(n, {"outputs": out})
        data.on_epoch_end()
        cb.on_predict_end()
        if not outs:
            raise ValueError("predict: the input is empty")
        # several outputs (a list or dict): one array per output
        return nest.pack_like(outs[0], [np.concatenate(parts, axis=0)
                                        for parts in zip(*(nest.flatten(o) for o in outs))])


def _batches(dataset, steps, num_batches):
    """The batches of one pass over ``dataset`` (at most ``steps``, warning when the data has fewer)."""
    iterator = iter(dataset)
    try:
        n = 0
        while steps is None or n < steps:
            if steps is not None and num_batches is not None and n >= num_batches:
                break
            try:
                batch = next(iterator)
            except StopIteration:
                break
            yield batch
            n += 1
        if steps is not None and n < steps:
            warnings.warn(f"Your input ran out of data after {n} of the {steps} steps asked for", stacklevel=3)
    finally:
        close = getattr(iterator, "close", None)
        if close is not None:
            close()


def _check_count(what, name, value) -> None:
    if value is not None and not (_is_int(value) and value >= 1):
        raise ValueError(f"{what}: `{name}` must be a positive integer or None; received: {value!r}")


def _check_validation_freq(freq) -> None:
    if _is_int(freq) and freq >= 1:
        return
    if isinstance(freq, (list, tuple, set, range)) and all(_is_int(e) and e >= 1 for e in freq):
        return
    raise ValueError(f"fit: `validation_freq` must be a positive integer or a collection of 1-based epochs; "
                     f"received: {freq!r}")


def _should_validate(epoch: int, freq) -> bool:
    """Keras: validate after every ``freq``-th epoch, or after the (1-based) epochs listed in ``freq``."""
    return (epoch + 1) % freq == 0 if _is_int(freq) else (epoch + 1) in freq


def _is_arrays(x) -> bool:
    """Whether ``x`` is arrays/Tensors (or lists or dicts of them), what ``validation_split`` can slice."""
    from ..framework.tensor import Tensor

    return all(isinstance(v, (np.ndarray, Tensor)) or hasattr(v, "__array__") for v in nest.flatten(x))


def _validation_parts(validation_data) -> tuple:
    """``(x, y, sample_weight)`` of ``fit``'s ``validation_data``."""
    if isinstance(validation_data, (tuple, list)):
        if len(validation_data) in (2, 3):
            parts = tuple(validation_data)
            return parts + (None,) * (3 - len(parts))
        raise ValueError(f"fit: `validation_data` must be (x_val, y_val), (x_val, y_val, sample_weight) or a "
                         f"dataset; received a {type(validation_data).__name__} of {len(validation_data)} items")
    if isinstance(validation_data, (np.ndarray, dict)) or hasattr(validation_data, "shape"):
        raise ValueError("fit: `validation_data` must be (x_val, y_val), (x_val, y_val, sample_weight) or a dataset "
                         f"yielding (x, y); received a {type(validation_data).__name__}")
    return validation_data, None, None
