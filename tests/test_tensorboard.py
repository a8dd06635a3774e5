"""``keras.callbacks.TensorBoard``: the event files are read back with TensorBoard's own reader (the
``tensorboard`` package's EventAccumulator, what ``tensorboard --logdir`` uses, or else TensorFlow's
``summary_iterator``), and compared with what Keras 3's callback writes for the same program."""

from __future__ import annotations

import glob
import json
import os
import sys
import threading

import numpy as np
import pytest

from descend import keras



# ---------------------------------------------------------------------------------------------- reading
class _Histogram:
    """A v2 histogram (TF 2's ``[k, 3]`` buckets: left edge, right edge, count) read as TensorBoard's
    dashboard reads it: ``num``, ``min``, ``max`` and the bucket counts."""

    def __init__(self, buckets: np.ndarray):
        self.buckets = buckets
        self.bucket = list(buckets[:, 2])
        self.num = float(buckets[:, 2].sum())
        self.min, self.max = float(buckets[0, 0]), float(buckets[-1, 1])


def _sort(out: dict, tag: str, step: int, tensor, plugin: str, to_array) -> None:
    if plugin == "scalars":
        out["scalars"].setdefault(tag, []).append((step, float(to_array(tensor))))
    elif plugin == "histograms":
        out["histograms"].setdefault(tag, []).append((step, _Histogram(to_array(tensor))))
    else:
        out["tensors"].setdefault(tag, []).append((step, tensor))


def _read(run_dir) -> dict:
    """``{"scalars": {tag: [(step, value)]}, "histograms": {tag: [(step, _Histogram)]}, "tensors": {tag:
    [(step, TensorProto)]}}`` of every event file in ``run_dir``, read with TensorBoard's reader (the
    ``tensorboard`` package's plugin EventAccumulator, what ``tensorboard --logdir`` uses, which reads TF 1's
    simple values and histograms as TF 2's tensors), else TensorFlow's ``summary_iterator``."""
    out = {"scalars": {}, "histograms": {}, "tensors": {}}
    try:
        from tensorboard.backend.event_processing import plugin_event_accumulator
    except ImportError:
        plugin_event_accumulator = None
    if plugin_event_accumulator is not None:
        from tensorboard.util import tensor_util

        acc = plugin_event_accumulator.EventAccumulator(str(run_dir), size_guidance={"tensors": 0})
        acc.Reload()
        for tag in acc.Tags()["tensors"]:
            plugin = acc.SummaryMetadata(tag).plugin_data.plugin_name
            for e in acc.Tensors(tag):
                _sort(out, tag, e.step, e.tensor_proto, plugin, tensor_util.make_ndarray)
        return out
    tf = pytest.importorskip("tensorflow")
    for path in sorted(glob.glob(os.path.join(str(run_dir), "events.out.tfevents*"))):
        for event in tf.compat.v1.train.summary_iterator(path):
            for v in event.summary.value:
                if v.WhichOneof("value") == "tensor":
                    _sort(out, v.tag, event.step, v.tensor, v.metadata.plugin_data.plugin_name, tf.make_ndarray)
    return out


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 3)).astype(np.float32)
    return x, (x @ np.float32([[1.0], [-2.0], [0.5]]) + 0.1).astype(np.float32)


def _functional():
    inp = keras.Input((3,), name="inp")
    h = keras.layers.Dense(4, name="h")(inp)
    out = keras.layers.Dense(1, name="d")(h)
    model = keras.Model(inp, out, name="net")
    model.compile(optimizer=keras.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
    return model


class _WeightsAtEpochEnd(keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.seen = []

    def on_epoch_end(self, epoch, logs=None):
        self.seen.append({w.path: w.numpy().copy() for w in self.model.weights})


# ---------------------------------------------------------------------------------------------- tests
def test_epoch_and_batch_scalars_histograms_and_graph(tmp_path):
    x, y = _data()
    model = _functional()
    weights = _WeightsAtEpochEnd()
    board = keras.callbacks.TensorBoard(tmp_path, histogram_freq=1, update_freq=2)
    history = model.fit(x[:32], y[:32], batch_size=8, epochs=3, validation_data=(x[32:], y[32:]), verbose=0,
                        callbacks=[weights, board])
    assert sorted(os.listdir(tmp_path)) == ["train", "validation"]
    train, validation = _read(tmp_path / "train"), _read(tmp_path / "validation")
    # epoch summaries: every epoch, the values fit returned
    for name in ("loss", "mae"):
        steps, values = zip(*train["scalars"][f"epoch_{name}"])
        assert steps == (0, 1, 2)
        np.testing.assert_allclose(values, history.history[name], rtol=1e-6)
        steps, values = zip(*validation["scalars"][f"epoch_{name}"])
        assert steps == (0, 1, 2)
        np.testing.assert_allclose(values, history.history[f"val_{name}"], rtol=1e-6)
    assert [v for _, v in train["scalars"]["epoch_learning_rate"]] == pytest.approx([0.05] * 3)
    # batch summaries every 2 batches: 4 batches per epoch, steps counted from the start of training
    assert [s for s, _ in train["scalars"]["batch_loss"]] == [2, 4, 6, 8, 10, 12]
    # histograms: every weight of every layer at every epoch, of the weights' values then
    assert sorted(train["histograms"]) == ["d/bias/histogram", "d/kernel/histogram", "h/bias/histogram",
                                           "h/kernel/histogram"]
    for tag, events in train["histograms"].items():
        assert [s for s, _ in events] == [0, 1, 2]
        name = tag[: -len("/histogram")]
        for (_step, histo), seen in zip(events, weights.seen):
            w = seen[name].astype(np.float64)
            assert histo.num == w.size and len(histo.bucket) == 30  # TF 2's default count
            assert histo.min == pytest.approx(w.min()) and histo.max == pytest.approx(w.max())
            inside = [np.sum((w >= lo) & (w < hi)) for lo, hi, _ in histo.buckets[:-1]]
            assert histo.bucket[:-1] == pytest.approx(inside)  # each weight in its bucket, the last closed
    # the graph: Keras' graph_keras_model summary, which TensorBoard's graph plugin turns into a GraphDef
    [(step, blob)] = train["tensors"]["keras"]
    assert step == 0
    graph = json.loads(blob.string_val[0])
    assert graph["class_name"] == "Functional"
    keras_util = pytest.importorskip("tensorboard.plugins.graph.keras_util")
    graph_def = keras_util.keras_model_to_graph_def(graph)
    edges = {n.name: list(n.input) for n in graph_def.node}
    assert edges == {"net/inp": [], "net/h": ["net/inp"], "net/d": ["net/h"]}
    kinds = {n.name: n.attr["keras_class"].s.decode() for n in graph_def.node}
    assert kinds == {"net/inp": "InputLayer", "net/h": "Dense", "net/d": "Dense"}


def test_graph_of_shared_layers_nested_models_and_sequential_models(tmp_path):
    keras_util = pytest.importorskip("tensorboard.plugins.graph.keras_util")
    a, b = keras.Input((3,), name="a"), keras.Input((3,), name="b")
    shared = keras.layers.Dense(2, name="shared")
    inner_in = keras.Input((2,), name="inner_in")
    inner = keras.Model(inner_in, keras.layers.Dense(1, name="inner_d")(inner_in), name="inner")
    out = inner(keras.layers.Add(name="add")([shared(a), shared(b)]))
    model = keras.Model([a, b], out, name="outer")
    board = keras.callbacks.TensorBoard(tmp_path / "f")
    board.set_model(model)
    board.on_train_end()
    graph = json.loads(_read(tmp_path / "f" / "train")["tensors"]["keras"][0][1].string_val[0])
    edges = {n.name: list(n.input) for n in keras_util.keras_model_to_graph_def(graph).node}
    assert edges["outer/add"] == ["outer/shared", "outer/shared"]
    assert edges["outer/shared"] == ["outer/a", "outer/b"]
    assert edges["outer/inner/inner_d"] == ["outer/inner/inner_in"]
    assert edges["outer/inner/inner_in"] == ["outer/add"]

    seq = keras.Sequential([keras.layers.Dense(2, name="s1"), keras.layers.Dense(1, name="s2")], name="seq")
    seq.build((None, 3))
    board = keras.callbacks.TensorBoard(tmp_path / "s")
    board.set_model(seq)
    board.on_train_end()
    graph = json.loads(_read(tmp_path / "s" / "train")["tensors"]["keras"][0][1].string_val[0])
    edges = {n.name: list(n.input) for n in keras_util.keras_model_to_graph_def(graph).node}
    assert edges == {"seq/input_layer": [], "seq/s1": ["seq/input_layer"], "seq/s2": ["seq/s1"]}  # as Keras 3


def test_a_subclassed_model_writes_no_graph_and_write_graph_false_writes_none(tmp_path):
    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.d = keras.layers.Dense(1)

        def call(self, x):
            return self.d(x)

    x, y = _data(16)
    model = Net()
    model.compile(optimizer="sgd", loss="mse")
    model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.TensorBoard(tmp_path / "sub")])
    assert "keras" not in _read(tmp_path / "sub" / "train")["tensors"]
    model = _functional()
    model.fit(x, y, epochs=1, verbose=0, callbacks=[keras.callbacks.TensorBoard(tmp_path / "ng", write_graph=False)])
    read = _read(tmp_path / "ng" / "train")
    assert "keras" not in read["tensors"] and "epoch_loss" in read["scalars"]


def test_evaluate_writes_the_metrics_at_the_optimizer_step(tmp_path):
    x, y = _data()
    model = _functional()
    model.fit(x, y, batch_size=8, epochs=1, verbose=0)
    threads = threading.active_count()
    loss, mae = model.evaluate(x, y, verbose=0, callbacks=[keras.callbacks.TensorBoard(tmp_path)])
    # the events are in the file when evaluate returns: written in this thread, not queued to another one
    # (whose flush would not wait for them)
    assert threading.active_count() == threads
    read = _read(tmp_path / "validation")["scalars"]
    assert read["evaluation_loss_vs_iterations"] == [(5, pytest.approx(loss, rel=1e-6))]
    assert read["evaluation_mae_vs_iterations"] == [(5, pytest.approx(mae, rel=1e-6))]


def test_a_second_fit_adds_files_and_steps_per_second_is_written(tmp_path):
    x, y = _data()
    model = _functional()
    board = keras.callbacks.TensorBoard(tmp_path, update_freq="batch", write_steps_per_second=True)
    model.fit(x, y, batch_size=20, epochs=1, verbose=0, callbacks=[board])
    model.fit(x, y, batch_size=20, epochs=1, verbose=0, callbacks=[board])
    assert len(glob.glob(str(tmp_path / "train" / "events.out.tfevents*"))) == 2
    read = _read(tmp_path / "train")["scalars"]
    assert [s for s, _ in read["batch_loss"]] == [1, 2, 1, 2]  # the batch count restarts with each fit, as Keras
    assert all(v > 0 for _, v in read["epoch_steps_per_second"]) and len(read["batch_steps_per_second"]) == 4


@pytest.mark.parametrize("kwargs, match", [
    ({"histogram_freq": -1}, "`histogram_freq` must be a non-negative int"),
    ({"update_freq": 0}, "`update_freq` must be 'epoch', 'batch' or a positive int"),
    ({"update_freq": "step"}, "`update_freq` must be 'epoch', 'batch' or a positive int"),
    ({"profile_batch": 3}, "profiling is not available"),
    ({"embeddings_freq": 1}, "embedding projector is not available"),
    ({"write_images": True}, "write_images=True"),
    ({"log_dir": ""}, "`log_dir` must be a non-empty path"),
])
def test_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        keras.callbacks.TensorBoard(**kwargs)


def test_one_event_writer_descend_summary_without_tensorboardx(tmp_path, monkeypatch):
    """The callback writes through descend.summary, the one event-file writer: it needs no tensorboardX, and
    leaves the user's default writer and step as they were."""
    from descend import summary

    monkeypatch.setitem(sys.modules, "tensorboardX", None)  # importing tensorboardX fails
    x, y = _data(16)
    model = _functional()
    mine = summary.create_file_writer(str(tmp_path / "mine"))
    with mine.as_default(step=7):
        model.fit(x, y, epochs=2, verbose=0, callbacks=[keras.callbacks.TensorBoard(tmp_path / "board")])
        assert summary.experimental.get_step() == 7
        summary.scalar("user", 1.5)
    mine.close()
    assert [s for s, _ in _read(tmp_path / "board" / "train")["scalars"]["epoch_loss"]] == [0, 1]
    assert _read(tmp_path / "mine")["scalars"] == {"user": [(7, 1.5)]}
    for path in glob.glob(str(tmp_path / "board" / "train" / "events.out.tfevents*")):
        with open(path, "rb") as f:
            assert b"descend.summary" in f.read()  # the writer descend.summary names in each file


def test_the_same_tags_and_steps_as_keras(tmp_path):
    """The same program under Keras 3 and descend: the same runs, tags and steps (update_freq="epoch": Keras 3
    loses epoch summaries with an int update_freq, see the module's notes)."""
    real_keras = pytest.importorskip("keras")
    pytest.importorskip("tensorflow")
    x, y = _data()

    def program(lib, log_dir):
        inp = lib.Input((3,), name="inp")
        out = lib.layers.Dense(1, name="d")(lib.layers.Dense(4, name="h")(inp))
        model = lib.Model(inp, out, name="net")
        model.compile(optimizer=lib.optimizers.SGD(0.05), loss="mse", metrics=["mae"])
        model.fit(x[:32], y[:32], batch_size=8, epochs=2, validation_data=(x[32:], y[32:]), verbose=0,
                  callbacks=[lib.callbacks.TensorBoard(str(log_dir), histogram_freq=1)])

    program(real_keras, tmp_path / "keras")
    program(keras, tmp_path / "descend")
    fires_test_end = []
    _functional().fit(x, y, epochs=1, validation_data=(x, y), verbose=0,
                      callbacks=[keras.callbacks.LambdaCallback(on_test_end=lambda logs: fires_test_end.append(1))])

    def layout(root):
        out = {}
        for run in ("train", "validation"):
            read = _read(root / run)
            out[run] = {kind: {tag: [s for s, _ in events] for tag, events in read[kind].items()}
                        for kind in ("scalars", "histograms")}
            out[run]["tensors"] = sorted(read["tensors"])
        return out

    theirs, ours = layout(tmp_path / "keras"), layout(tmp_path / "descend")
    # both write scalars and histograms as tensors (the v2 format)
    for run in ("train", "validation"):
        theirs_tags = {**theirs[run]["scalars"], **theirs[run]["histograms"]}
        theirs_tensors = {t: s for t, s in _read(tmp_path / "keras" / run)["tensors"].items() if t != "keras"}
        theirs_tags.update({t: [step for step, _ in s] for t, s in theirs_tensors.items()})
        ours_tags = {**ours[run]["scalars"], **ours[run]["histograms"]}
        if not fires_test_end:  # Keras' fit evaluates through on_test_end, which writes evaluation_*; descend's
            # fit does not call on_test_end for its validation (yet): those tags come only from evaluate()
            theirs_tags = {t: s for t, s in theirs_tags.items() if not t.startswith("evaluation_")}
        assert ours_tags == theirs_tags, run
