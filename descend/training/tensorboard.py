"""``keras.callbacks.TensorBoard``: event files that ``tensorboard --logdir`` shows, written during ``fit``.

The files are written through ``descend.summary`` (:mod:`descend.persistence.summary_events`, descend's one
event-file writer), in TF 2's format as Keras 3's callback writes them through ``tf.summary``: scalars and
histograms as tensors with their plugin's metadata. The layout and the names are Keras 3's, so dashboards and
scripts made for Keras' logs read these:

* ``<log_dir>/train``: ``epoch_<name>`` for every training log at the end of each epoch (step = epoch, from 0),
  with ``epoch_learning_rate``; ``batch_<name>`` every ``update_freq`` batches (step = the batch count since
  training began, from 1); ``<weight name>/histogram`` for every weight of every layer every ``histogram_freq``
  epochs; the model's graph (step 0) for functional and Sequential models, as Keras' ``graph_keras_model``
  summary, which TensorBoard's Graphs dashboard draws layer by layer;
* ``<log_dir>/validation``: ``epoch_<name>`` for the ``val_`` logs (without the prefix), and after each
  evaluation ``evaluation_<name>_vs_iterations`` at step ``optimizer.iterations``.

Unlike Keras 3 (whose epoch summaries are lost when ``update_freq`` is an int that the epoch's last batch count
is not a multiple of), every epoch's summaries are written whatever ``update_freq`` is. Each epoch ends with the
files flushed, so a running TensorBoard shows the epoch. Profiling (``profile_batch``), embeddings
(``embeddings_freq``) and weight images (``write_images``) are TF's tools, not available here: asking for them
raises ``ValueError``.

Example:
    >>> import numpy as np, tempfile, descend as ds
    >>> model = ds.keras.Sequential([ds.keras.layers.Dense(1)])
    >>> model.compile(optimizer="sgd", loss="mse")
    >>> logs = tempfile.mkdtemp()
    >>> board = ds.keras.callbacks.TensorBoard(logs, histogram_freq=1)
    >>> _ = model.fit(np.ones((8, 2), np.float32), np.ones((8, 1), np.float32), epochs=2, verbose=0,
    ...               callbacks=[board])
    >>> import os; sorted(os.listdir(logs))
    ['train']
"""

from __future__ import annotations

import json
import os
import time

import numpy as np

from ..persistence import summary_events as _summary
from .callbacks import Callback

__all__ = ["TensorBoard"]

#: the buckets of a weight histogram (TF 2's tf.summary.histogram default)
_BUCKETS = 30
#: Keras' ``graph_keras_model`` summary: the model's JSON under the tag ``keras``
_GRAPH_METADATA = {"plugin_data": {"plugin_name": "graph_keras_model", "content": b"1"}}


class TensorBoard(Callback):
    """Write TensorBoard event files during ``fit``/``evaluate`` (Keras 3's ``keras.callbacks.TensorBoard``).

    Args:
        log_dir: the directory of the run; ``train`` and ``validation`` subdirectories are made in it.
        histogram_freq: every how many epochs to write each weight's histogram (0: never).
        write_graph: write the model's layer graph (functional and Sequential models).
        write_images: weights as images: not available (``ValueError`` if True).
        write_steps_per_second: also write ``epoch_steps_per_second`` (and ``batch_steps_per_second``).
        update_freq: ``"epoch"`` (epoch summaries only), ``"batch"`` (also every batch) or an int N (also every N
            batches).
        profile_batch: must be 0 (TF's profiler is not available).
        embeddings_freq: must be 0 (the embedding projector needs TF checkpoints).
        embeddings_metadata: must be None.

    Raises:
        ValueError: an argument out of range, or a TF-only feature asked for.
    """

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0, embeddings_freq=0,
                 embeddings_metadata=None):
        super().__init__()
        if not isinstance(log_dir, (str, os.PathLike)) or not os.fspath(log_dir):
            raise ValueError(f"TensorBoard: `log_dir` must be a non-empty path. Received: log_dir={log_dir!r}")
        if isinstance(histogram_freq, bool) or not isinstance(histogram_freq, (int, np.integer)) or histogram_freq < 0:
            raise ValueError(f"TensorBoard: `histogram_freq` must be a non-negative int. "
                             f"Received: histogram_freq={histogram_freq!r}")
        if update_freq == "batch":
            update_freq = 1
        if update_freq != "epoch" and (isinstance(update_freq, bool) or not isinstance(update_freq, (int, np.integer))
                                       or update_freq < 1):
            raise ValueError(f"TensorBoard: `update_freq` must be 'epoch', 'batch' or a positive int. "
                             f"Received: update_freq={update_freq!r}")
        if write_images:
            raise ValueError("TensorBoard: `write_images=True` (weights as images) is not available in descend; "
                             "use histogram_freq for the weights' distributions")
        if profile_batch not in (0, None, "0", "0,0", (0, 0), [0, 0]):
            raise ValueError("TensorBoard: profiling is not available in descend (it is TensorFlow's profiler). "
                             f"Received: profile_batch={profile_batch!r} (must be 0)")
        if embeddings_freq or embeddings_metadata is not None:
            raise ValueError("TensorBoard: the embedding projector is not available in descend (it reads TensorFlow "
                             f"checkpoints). Received: embeddings_freq={embeddings_freq!r}, "
                             f"embeddings_metadata={embeddings_metadata!r} (must be 0 and None)")
        self.log_dir = os.fspath(log_dir)
        self.histogram_freq = int(histogram_freq)
        self.write_graph = bool(write_graph)
        self.write_images = False
        self.write_steps_per_second = bool(write_steps_per_second)
        self.update_freq = update_freq if update_freq == "epoch" else int(update_freq)
        self._writers: dict = {}
        self._global_train_batch = 0
        self._batch_start = None
        self._epoch_start = None
        self._epoch_start_iterations = None

    # -- writers ------------------------------------------------------------------------------------------
    def _writer(self, which: str):
        w = self._writers.get(which)
        if w is None:
            w = self._writers[which] = _summary.create_file_writer(os.path.join(self.log_dir, which))
        return w

    def _summarize(self, which: str, summary, *args, **kwargs) -> None:
        """``summary`` (a ``descend.summary`` function) written to the file of run ``which`` (the user's
        default writer left as it was); the file is flushed after."""
        with self._writer(which).as_default():
            summary(*args, **kwargs)

    def _scalar(self, which: str, tag: str, value, step: int) -> None:
        number = _as_number(value)
        if number is not None:
            self._summarize(which, _summary.scalar, tag, number, step=int(step))

    def _flush(self) -> None:
        for w in self._writers.values():
            w.flush()

    def _close(self) -> None:
        writers, self._writers = self._writers, {}
        for w in writers.values():
            w.close()

    # -- hooks --------------------------------------------------------------------------------------------
    def set_model(self, model):
        super().set_model(model)
        if self.write_graph:
            graph = model_graph(model)
            if graph is not None:
                self._summarize("train", _summary.write, "keras", json.dumps(graph), step=0,
                                metadata=_GRAPH_METADATA)

    def on_train_begin(self, logs=None):
        self._global_train_batch = 0

    def on_train_end(self, logs=None):
        self._close()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.write_steps_per_second:
            self._batch_start = time.perf_counter()

    def on_train_batch_end(self, batch, logs=None):
        if self.update_freq == "epoch" or self._global_train_batch % self.update_freq:
            return
        step = self._global_train_batch
        if self.write_steps_per_second and self._batch_start is not None:
            elapsed = time.perf_counter() - self._batch_start
            if elapsed > 0:
                self._scalar("train", "batch_steps_per_second", 1.0 / elapsed, step)
        for name, value in (logs or {}).items():
            self._scalar("train", f"batch_{name}", value, step)

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._epoch_start = time.perf_counter()
            self._epoch_start_iterations = self._iterations()

    def on_epoch_end(self, epoch, logs=None):
        logs = dict(logs or {})
        train = {k: v for k, v in logs.items() if not k.startswith("val_")}
        validation = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        train.update(self._learning_rates())
        if self.write_steps_per_second and self._epoch_start is not None:
            elapsed = time.perf_counter() - self._epoch_start
            done = (self._iterations() or 0) - (self._epoch_start_iterations or 0)
            if elapsed > 0:
                train["steps_per_second"] = done / elapsed
        for name, value in train.items():
            self._scalar("train", f"epoch_{name}", value, epoch)
        for name, value in validation.items():
            self._scalar("validation", f"epoch_{name}", value, epoch)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._write_histograms(epoch)
        self._flush()

    def on_test_end(self, logs=None):
        step = self._iterations()
        if step is None:
            return
        for name, value in (logs or {}).items():
            self._scalar("validation", f"evaluation_{name}_vs_iterations", value, step)
        self._flush()

    # -- helpers ------------------------------------------------------------------------------------------
    def _iterations(self):
        optimizer = getattr(self.model, "optimizer", None)
        iterations = getattr(optimizer, "iterations", None)
        if iterations is None:
            return None
        return int(np.asarray(iterations.numpy() if hasattr(iterations, "numpy") else iterations))

    def _learning_rates(self) -> dict:
        """Keras' ``learning_rate`` (``learning_rate_<name>`` per optimizer of a multi-optimizer)."""
        optimizer = getattr(self.model, "optimizer", None)
        optimizer = getattr(optimizer, "inner_optimizer", optimizer)
        if optimizer is None:
            return {}
        inner = getattr(optimizer, "optimizers", None)
        if isinstance(inner, (list, tuple)):
            pairs = [(f"learning_rate_{o.name}", getattr(o, "learning_rate", None)) for o in inner]
        else:
            pairs = [("learning_rate", getattr(optimizer, "learning_rate", None))]
        out = {}
        for name, value in pairs:
            number = _as_number(value)
            if number is not None:
                out[name] = number
        return out

    def _write_histograms(self, epoch: int) -> None:
        for layer in getattr(self.model, "layers", []):
            for weight in layer.weights:
                values = np.asarray(weight.numpy(), dtype=np.float64)
                if values.size == 0 or not np.all(np.isfinite(values)):
                    continue  # TensorBoard cannot bin an empty or non-finite weight
                tag = (getattr(weight, "path", None) or weight.scoped_name).replace(":", "_") + "/histogram"
                self._summarize("train", _summary.histogram, tag, values, step=epoch, buckets=_BUCKETS)


def _as_number(value):
    """``value`` as a Python float when it is a real scalar (a number, a 0-d array or Tensor), else None."""
    if hasattr(value, "numpy"):
        value = value.numpy()
    try:
        arr = np.asarray(value)
    except Exception:  # noqa: BLE001 - anything that is not array-like is not logged
        return None
    if arr.size != 1 or arr.dtype.kind not in "biuf":
        return None
    return float(arr.reshape(()))


# ---------------------------------------------------------------------------------------------- the graph
def model_graph(model) -> dict | None:
    """The model's layer graph as Keras' JSON that TensorBoard's Graphs dashboard draws (its ``keras_util``):
    functional models with every call of every layer and the tensors between them, Sequential models as their
    chain of layers; None for other models (Keras writes none for them either)."""
    inputs, outputs = _graph_ends(model)
    if outputs is not None:
        return {"class_name": "Functional", "config": _functional_config(model, inputs, outputs)}
    layers = getattr(model, "layers", None)
    if type(model).__name__ == "Sequential" and isinstance(layers, list):
        return {"class_name": "Sequential",
                "config": {"name": model.name, "layers": [_layer_entry(la) for la in layers]}}
    return None


def _graph_ends(model):
    try:
        inputs, outputs = model.inputs, model.outputs
    except (AttributeError, ValueError, TypeError):
        return None, None
    if not inputs or not outputs:
        return None, None
    from ..layers.keras_tensor import KerasTensor

    if not all(isinstance(t, KerasTensor) for t in list(inputs) + list(outputs)):
        return None, None
    return list(inputs), list(outputs)


def _layer_entry(layer) -> dict:
    inputs, outputs = _graph_ends(layer) if hasattr(layer, "layers") else (None, None)
    if outputs is not None:  # a functional model used as a layer: its own graph, drawn inside it
        return {"class_name": "Functional", "config": _functional_config(layer, inputs, outputs)}
    dtype = getattr(layer, "dtype", None)
    return {"class_name": type(layer).__name__,
            "config": {"name": layer.name, "dtype": getattr(dtype, "name", dtype if isinstance(dtype, str) else None)}}


def _functional_config(model, inputs, outputs) -> dict:
    """Every node from the inputs to the outputs, each layer once with its calls as ``inbound_nodes``."""
    order, seen = [], set()

    def visit(node):
        if id(node) in seen:
            return
        seen.add(id(node))
        for parent in node.parent_nodes:
            visit(parent)
        order.append(node)

    for t in outputs:
        visit(t.node)
    calls: dict = {}  # id(layer) -> the layer's nodes in this model, in order
    layers = []
    for node in order:
        if id(node.layer) not in calls:
            calls[id(node.layer)] = []
            layers.append(node.layer)
        calls[id(node.layer)].append(node)

    def history(t):
        node = t.node
        return [node.layer.name, calls[id(node.layer)].index(node), _index(node.output_tensors, t)]

    entries = []
    for layer in layers:
        entry = _layer_entry(layer)
        entry["name"] = layer.name
        entry["inbound_nodes"] = [
            {"args": [{"class_name": "__keras_tensor__", "config": {"keras_history": history(t)}}
                      for t in node.input_tensors], "kwargs": {}}
            for node in calls[id(layer)] if node.input_tensors]
        entries.append(entry)
    # the input layers by name: TensorBoard's graph plugin joins a nested model's inputs to its callers by name
    return {"name": model.name, "layers": entries,
            "input_layers": [t.node.layer.name for t in inputs], "output_layers": [history(t) for t in outputs]}


def _index(tensors, t) -> int:
    for i, x in enumerate(tensors):
        if x is t:
            return i
    return 0
