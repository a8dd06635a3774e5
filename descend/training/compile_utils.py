"""Losses and metrics for models with several outputs: ``compile(loss={...}, metrics={...})``.

A model whose outputs are a list or a dict takes, in ``compile``:

* ``loss``: a dict from output name to loss, a list with one loss per
  output, or one loss applied to every output; ``loss_weights`` (a dict or
  a list) scales each output's loss in the total (default 1);
* ``metrics``: a dict from output name to a metric or a list of metrics, or
  a list with one metric (or list of metrics) per output.

Output names are the keys of a dict output, else ``model.output_names`` (the
names of the layers producing the outputs). Targets ``y`` are given in the
same structure (a dict keyed by output names, or a list in output order).
The logs gain ``<output>_loss`` per output and ``<output>_<metric>`` per
metric, as Keras.
"""

from __future__ import annotations

from .. import metrics as metrics_module
from ..ops.math_ops import add_n, cast, multiply

__all__ = ["CompileMetrics", "CompiledLoss", "OutputMetric", "flat_metrics", "output_metrics", "is_structured"]


def is_structured(spec) -> bool:
    """Whether ``compile``'s ``loss`` names one loss per output (a dict, or a list/tuple of several)."""
    return isinstance(spec, dict) or (isinstance(spec, (list, tuple)) and len(spec) != 1)


def _output_keys(model, y_pred=None) -> list | None:
    if isinstance(y_pred, dict):
        return list(y_pred)
    try:
        return list(model.output_names)
    except AttributeError:
        pass
    if isinstance(y_pred, (list, tuple)):
        return [f"output_{i + 1}" for i in range(len(y_pred))]
    return None


def _select(value, key, index):
    if isinstance(value, dict):
        if key not in value:
            raise ValueError(f"The targets have no entry for output '{key}'. Received keys: {sorted(value)}")
        return value[key]
    if isinstance(value, (list, tuple)):
        if index is None or index >= len(value):
            raise ValueError(f"The targets are a list of {len(value)}; output '{key}' has no position in it")
        return value[index]
    return value


def _per_output(spec, keys: list, what: str) -> dict:
    """``spec`` (dict, list or one value) as ``{output key: value}``."""
    if isinstance(spec, dict):
        unknown = sorted(set(spec) - set(keys))
        if unknown:
            raise ValueError(f"compile: `{what}` names outputs {unknown} that the model does not have; its outputs "
                             f"are {keys}")
        return {k: spec[k] for k in keys if k in spec and spec[k] is not None}
    if isinstance(spec, (list, tuple)):
        if len(spec) != len(keys):
            raise ValueError(f"compile: `{what}` has {len(spec)} entries, but the model has {len(keys)} outputs "
                             f"{keys}")
        return {k: v for k, v in zip(keys, spec) if v is not None}
    return dict.fromkeys(keys, spec)


class CompiledLoss:
    """The total loss of a model with several outputs: ``sum(weight[k] * loss[k](y[k], y_pred[k]))``.

    Built on the first call, when the outputs' names are known; keeps a
    ``Mean`` tracker ``<output>_loss`` per output (in ``trackers``).
    """

    def __init__(self, spec, loss_weights, model, resolve_loss):
        self._spec = spec
        self._weights = loss_weights
        self._model = model
        self._resolve = resolve_loss
        self._terms = None  # [(key, index, loss, weight, tracker)]
        self.trackers: list = []
        keys = _output_keys(model)
        if keys is not None:
            self._build(keys)

    def _build(self, keys: list) -> None:
        losses = _per_output(self._spec, keys, "loss")
        if not losses:
            raise ValueError("compile: `loss` gives no loss for any output")
        weights = _per_output(self._weights, keys, "loss_weights") if self._weights is not None else {}
        terms = []
        for i, k in enumerate(keys):
            if k in losses:
                tracker = metrics_module.Mean(name=f"{k}_loss")
                terms.append((k, i, self._resolve(losses[k]), float(weights.get(k, 1.0)), tracker))
        self._terms = terms
        self.trackers = [t[4] for t in terms]

    def loss_for(self, key):
        """The loss object of output ``key`` (for ``metrics=["accuracy"]``)."""
        for k, _, loss, _, _ in self._terms or []:
            if k == key:
                return loss
        return None

    def __call__(self, y_true, y_pred, sample_weight=None):
        if self._terms is None:
            self._build(_output_keys(self._model, y_pred))
        total = []
        for key, index, loss, weight, tracker in self._terms:
            yt, yp = _select(y_true, key, index), _select(y_pred, key, index)
            sw = _select(sample_weight, key, index) if isinstance(sample_weight, (dict, list, tuple)) else sample_weight
            value = loss(yt, yp, sw) if sw is not None else loss(yt, yp)
            # each batch counts once in the per-output means, as in Keras 3 on TensorFlow (whose traced step
            # sees no static batch size); the total "loss" weighs the batches by their rows
            tracker.update_state(value)
            total.append(value if weight == 1.0 else multiply(value, cast(weight, dtype=value.dtype)))
        return total[0] if len(total) == 1 else add_n(total)


class OutputMetric:
    """A metric of one output: ``update_state(y, y_pred)`` picks that output from both structures.

    Its ``name`` is ``<output>_<metric name>``; ``metric`` is the wrapped Metric.
    """

    def __init__(self, metric, key, index):
        self.metric = metric
        self.key, self.index = key, index
        metric.name = f"{key}_{metric.name}"

    @property
    def name(self) -> str:
        return self.metric.name

    @property
    def variables(self) -> list:
        return self.metric.variables

    def update_state(self, y_true, y_pred, sample_weight=None):
        sw = (_select(sample_weight, self.key, self.index) if isinstance(sample_weight, (dict, list, tuple))
              else sample_weight)
        return self.metric.update_state(_select(y_true, self.key, self.index),
                                        _select(y_pred, self.key, self.index), sample_weight=sw)

    def result(self):
        return self.metric.result()

    def reset_state(self):
        return self.metric.reset_state()

    def __repr__(self):
        return f"<OutputMetric {self.name}>"


def output_metrics(spec, model, loss, resolve_metric) -> list:
    """One :class:`OutputMetric` per (output, metric) in ``spec`` (a dict or a list of lists)."""
    keys = _output_keys(model)
    if keys is None:
        if not isinstance(spec, dict):
            raise ValueError("compile: a list of per-output metrics needs a functional model (to know the output "
                             "order); pass a dict keyed by output name")
        keys = list(spec)
    per = _per_output(spec, keys, "metrics")
    out = []
    for i, k in enumerate(keys):
        items = per.get(k)
        if items is None:
            continue
        for m in items if isinstance(items, (list, tuple)) else [items]:
            own_loss = loss.loss_for(k) if isinstance(loss, CompiledLoss) else loss
            metric = resolve_metric(m, own_loss) if isinstance(m, str) else m
            if not hasattr(metric, "update_state"):
                metric = metrics_module.get(metric)
            out.append(OutputMetric(metric, k, i))
    return out



class CompileMetrics(metrics_module.Metric):
    """The compiled metrics as one metric named ``compile_metrics``, as Keras 3's ``model.metrics`` holds them
    (after the loss tracker): ``compile``'s ``metrics``, then its ``weighted_metrics``.

    ``update_state(y, y_pred, sample_weight)`` gives the sample weights to the weighted metrics alone (Keras
    3's rule), so a ``train_step`` that updates every metric of ``self.metrics`` logs what Keras logs;
    ``result()`` is ``{metric name: result}`` (``fit`` flattens it into its logs). It is also ``model.
    compiled_metrics`` (tf.keras' container: ``update_state``, ``reset_state``, ``metrics``), and iterates over
    its metrics."""

    def __init__(self, metrics=(), weighted=()):
        super().__init__(name="compile_metrics")
        metrics, weighted = list(metrics), list(weighted)
        names = {m.name for m in metrics}
        for m in weighted:  # Keras: a weighted metric named as a plain one is logged as weighted_<name>
            if m.name in names:
                if isinstance(m, OutputMetric):
                    m.metric.name = f"{m.key}_weighted_{m.metric.name[len(m.key) + 1:]}"
                else:
                    m.name = f"weighted_{m.name}"
            names.add(m.name)
        self._metrics = metrics + weighted
        self._weighted = {id(m) for m in weighted}

    @property
    def metrics(self) -> list:
        """Every compiled metric: the plain ones, then the weighted ones."""
        return list(self._metrics)

    @property
    def unweighted(self) -> list:
        """The metrics of ``compile``'s ``metrics``."""
        return [m for m in self._metrics if id(m) not in self._weighted]

    @property
    def weighted(self) -> list:
        """The metrics of ``compile``'s ``weighted_metrics``."""
        return [m for m in self._metrics if id(m) in self._weighted]

    @property
    def variables(self) -> list:
        return [v for m in self._metrics for v in m.variables]

    def update_state(self, y_true, y_pred, sample_weight=None) -> None:
        for m in self._metrics:
            m.update_state(y_true, y_pred, sample_weight=sample_weight if id(m) in self._weighted else None)

    def result(self) -> dict:
        return {m.name: m.result() for m in self._metrics}

    def reset_state(self) -> None:
        for m in self._metrics:
            m.reset_state()

    def __iter__(self):
        return iter(self._metrics)

    def __len__(self) -> int:
        return len(self._metrics)

    def __getitem__(self, index):
        return self._metrics[index]


def flat_metrics(metrics) -> list:
    """``metrics`` (a model's ``metrics``) with ``compile_metrics`` replaced by the metrics it holds: what
    ``fit`` logs, a strategy sums and a backup saves, one metric at a time."""
    out = []
    for m in metrics:
        out.extend(m.metrics if isinstance(m, CompileMetrics) else [m])
    return out
