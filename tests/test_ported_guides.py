"""The Keras guides and TensorFlow tutorials ported to descend (``examples/ported/``, table in docs/ported.md):
each runs with only its import lines changed, and computes TensorFlow's numbers from the same initial weights
and data.

Each guide runs under descend in a subprocess with the harness of ``tests/guide_harness.py`` (which fixes the
data, the initial weights and the data order alike in both libraries and records every fit's history, every
evaluate's result and every loss a custom training loop differentiates). The same program with the
TensorFlow/Keras imports put back was run by ``tools/compare_guides.py --update`` under TensorFlow 2.21 and
Keras 3.15, from the initial weights descend's run drew, and its numbers are stored in
``tests/golden/ported/``; every value descend computes must be within 1e-5 of TensorFlow's (relative, or
absolute below 1). With ``DESCEND_LIVE_TENSORFLOW=1`` and TensorFlow installed, TensorFlow runs again here
instead of the stored numbers being read.

Where TensorFlow 2.21/Keras 3.15 computes something else on purpose of neither the guide nor descend, the
event is listed in ``KNOWN`` with the reason (docs/semantics.md has them too).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PORTED = os.path.join(ROOT, "examples", "ported")
GOLDEN = os.path.join(HERE, "golden", "ported")
HARNESS = os.path.join(HERE, "guide_harness.py")
TOLERANCE = 1e-5

#: guide -> its source (for docs/ported.md) and what it covers
GUIDES = {
    "custom_training_walkthrough": "a custom training loop: GradientTape, SGD, Keras metrics, tf.data",
    "functional_api": "the functional API: Input, layers, Model; fit/evaluate; save/load; nested models",
    "writing_your_own_callbacks": "callbacks: every hook and its logs, early stopping, a learning-rate scheduler",
    "training_with_built_in_methods": "compile/fit/evaluate/predict, custom losses and metrics, add_loss, "
                                      "Datasets, PyDataset, torch DataLoader, class and sample weights, "
                                      "several inputs and outputs, callbacks, checkpoints",
    "making_new_layers_and_models_via_subclassing": "subclassed layers: add_weight, build, add_loss, "
                                                    "get_config/from_config",
    "serialization_and_saving": "saving and loading, custom objects, configs, JSON, weight transfer, "
                                "save_weights/load_weights",
    "transfer_learning": "trainable and freezing, a frozen base under a new head, fine-tuning",
    "working_with_rnns": "LSTM, GRU, SimpleRNN, states, Bidirectional, RNN(LSTMCell)",
    "basic_training_loops": "tf.Module, a hand-written training loop, a Keras model trained by it and by fit",
    "load_csv_abalone": "structured data without preprocessing layers: regression on NumPy arrays",
    "keras_classification": "a Sequential image classifier (Flatten, Dense) trained by compile/fit, evaluated",
    "quickstart_advanced": "a subclassed model (Conv2D, Dense) trained by a loop of tf.function steps: "
                           "GradientTape, Adam, Keras metrics, tf.data",
    "autodiff": "GradientTape: variables and watched tensors, Keras layers, persistent tapes, non-scalar "
                "targets, control flow, None gradients",
    "advanced_autodiff": "stop_recording, reset, stop_gradient, custom_gradient, nested tapes, higher-order "
                         "gradients, jacobian, Hessians, batch_jacobian",
    "quickstart_beginner": "a Sequential model with Dropout: untrained logits and loss, compile/fit/evaluate",
    "imbalanced_classification": "CSV rows vectorized with NumPy, an MLP with Dropout trained with class weights, "
                                 "confusion-matrix/precision/recall metrics, ModelCheckpoint per epoch",
    "timeseries_classification_transformer": "transformer encoder blocks (MultiHeadAttention with dropout, "
                                             "LayerNormalization, Conv1D) trained by fit with EarlyStopping",
    "antirectifier": "a custom layer (add_weight with an initializer from keras.initializers.get, get_config) "
                     "between Dense layers, trained by compile/fit with RMSprop and a validation split",
    "custom_training_loop": "a GradientTape loop over a Dataset with optimizer.apply, metrics updated and reset by "
                            "hand, the same steps compiled with tf.function, add_loss in a compiled step",
    "custom_train_step": "train_step overrides (compute_loss and self.metrics, a loss tracker of its own, sample "
                         "weights) and a test_step override, Keras 3's compile_metrics",
    "sequential_model": "Sequential models: add/pop, weights at the first call, Input and input_shape, summary, a "
                        "Conv2D/MaxPooling2D stack, feature extractors from the layers' outputs",
    "understanding_masking_and_padding": "pad_sequences, masks from Embedding(mask_zero=True) and Masking, masks "
                                         "through models into an LSTM, custom layers that split, generate, pass "
                                         "on or use a mask",
    "endpoint_layer_pattern": "a layer taking targets and sample weights (add_loss, a metric of its own) in a "
                              "functional model fit on a dict without a compiled loss, an inference model, a "
                              "subclassed model",
    "trainer_pattern": "one Model subclass (train_step, test_step, an overridden metrics) training a Sequential "
                       "and a functional model it wraps, with Dropout and validation data",
    "reproducibility_recipes": "set_random_seed, seeded initializers, a Conv2D/MaxPooling2D/Dropout network fit on "
                               "a tf.data pipeline (shuffle, batch, a map resizing images, prefetch), evaluated",
    "preprocessing_layers": "adapt() of Normalization and TextVectorization, StringLookup/IntegerLookup (one-hot), "
                            "Hashing with a salt and CategoryEncoding, text as indices, multi-hot and TF-IDF bigrams "
                            "fed to models by mapped tf.data pipelines, end-to-end models on strings",
    "tensor": "tensors: ranks, arithmetic, reductions, indexing, shapes, reshapes, dtypes and casts, broadcasting, "
              "ragged, string (split, to_number, bytes, Unicode) and sparse tensors",
    "variable": "variables: dtypes, reading as tensors, assign/assign_add/assign_sub, copies, names, trainable, "
                "device placement",
    "intro_to_modules": "tf.Module: trainable and non-trainable variables, submodules, variables made on the first "
                        "call, checkpoints (deferred restoration of a module's variables), a tf.function __call__, "
                        "a SavedModel; Keras layers with build, a subclassed and a functional model",
    "function": "tf.function: gradients through it, tracing and retracing (Python values, dtypes, input "
                "signatures, reduce_retracing, TraceTypes), concrete functions and graphs, AutoGraph loops, "
                "TensorArray, py_function, side effects, init_scope, iterators, captures, variables, optimizers",
    "basics": "customization basics: operations, NumPy conversion, devices, Datasets from tensors and from a text "
              "file (map, shuffle, batch)",
    "custom_layers": "custom layers: Dense variables, a layer with build/add_weight, a ResNet identity block with "
                     "BatchNormalization, a Sequential of the same layers",
    "regression": "Auto MPG regression: Normalization adapted to the data, linear and deep models of one feature "
                  "and of all, Adam on the mean absolute error, validation_split, evaluate, save and reload",
    "intro_to_graphs": "graphs and tf.function: nested functions, AutoGraph's code and graph, a graph per input type, "
                       "run_functions_eagerly, side effects once per trace, pruned unused ops, retracing",
    "overfit_and_underfit": "Higgs data read with CsvDataset (GZIP), tiny to large models with InverseTimeDecay, "
                            "EarlyStopping and TensorBoard, L2, dropout and both (3 epochs each)",
    "customizing_saving_and_serialization": "Keras 3's saving hooks overridden in .keras files: save_own_variables/"
                                            "load_own_variables, save_assets/load_assets, get_build_config/"
                                            "build_from_config, get_compile_config/compile_from_config",
}

#: (guide, event kind, its occurrence among the events of that kind) -> why TensorFlow differs there
KNOWN = {
    ("transfer_learning", "fit", 3): "Keras 3.15 replaces the training=False the base model is called with by fit's "
                                     "training=True, so its BatchNormalization layers use and update batch "
                                     "statistics during fine-tuning, contrary to the guide; descend keeps training=False",
    ("basic_training_loops", "weights", 0): "a tf.Variable assigned to a Keras 3 model is not among its weights",
    ("customizing_saving_and_serialization", "weights", 0): "the tf.Variable the guide's first layer assigns to "
                                                            "itself is not among a Keras 3 layer's weights; "
                                                            "descend tracks it, as tf.keras 2 did",
    ("basic_training_loops", "fit", 0): "Keras 3 does not train a tf.Variable assigned to a model (its loss stays "
                                        "10.646 for 10 epochs); descend trains it, as tf.keras 2 did and the guide "
                                        "shows",
    ("preprocessing_layers", "output", 8): "the end-to-end text model after one RMSprop step whose Embedding gradient "
                                           "repeats ids (the padding): Keras 3 on TensorFlow squares each occurrence "
                                           "(g1^2 + g2^2), descend the summed gradient (docs/semantics.md, 'Sparse "
                                           "gradients and repeated ids')",
    ("intro_to_modules", "print", 23): "Keras 3.15 builds the subclassed model's first FlexibleDense twice (a symbolic "
                                       "build of the model, which fails on tf.matmul of a KerasTensor, then the "
                                       "call), drawing its NumPy weights twice: its weights are not descend's",
    ("intro_to_modules", "print", 24): "the functional model after it: its FlexibleDense weights come next in NumPy's "
                                       "stream (shifted by Keras' extra draw)",
}


def _env() -> dict:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


#: the guides that call models but train none: the harness records what each call and predict returns
OUTPUTS = {"sequential_model", "understanding_masking_and_padding", "endpoint_layer_pattern", "preprocessing_layers"}
#: the guides TensorFlow runs without its oneDNN kernels (``TF_ENABLE_ONEDNN_OPTS=0``, its reference CPU kernels):
#: with them its own numbers move by more than the tolerance (docs/ported.md gives the figures)
ONEDNN_OFF = {"reproducibility_recipes"}
#: the guides whose printed values are recorded too (``"print"`` events: tensors, shapes, dtypes, numbers), those
#: that show what they compute rather than train
PRINTS = {"tensor", "variable", "intro_to_modules", "function", "basics", "custom_layers",
          "intro_to_graphs"}


def _run(framework: str, name: str, folder: str) -> list:
    """The events of one run of guide ``name`` (in ``folder/<framework>``, where it writes its files)."""
    cwd = os.path.join(folder, framework)
    os.makedirs(cwd, exist_ok=True)
    out = os.path.join(folder, f"{framework}.json")
    env = dict(_env(), DESCEND_GUIDE_OUTPUTS="1" if name in OUTPUTS else "0",
               DESCEND_GUIDE_PRINTS="1" if name in PRINTS else "0")
    if name in ONEDNN_OFF:
        env["TF_ENABLE_ONEDNN_OPTS"] = "0"
    proc = subprocess.run([sys.executable, HARNESS, framework, os.path.join(PORTED, f"{name}.py"), out,
                           os.path.join(folder, "weights.npz")], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, f"{name} under {framework} failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    with open(out) as f:
        return json.load(f)


def run_descend(name: str, folder: str) -> tuple[list, list]:
    """descend's events and the initial weights it drew, as ``[shape, sum of absolute values]`` per weight."""
    events = _run("descend", name, folder)
    with np.load(os.path.join(folder, "weights.npz")) as f:
        drawn = [f[f"w{i}"] for i in range(len(f.files))]
    return events, [[list(w.shape), float(np.abs(w.astype(np.float64)).sum())] for w in drawn]


def same_weights(a: list, b: list) -> bool:
    """Whether two ``run_descend`` weight summaries describe the same initial weights (to 1e-6, relative)."""
    return len(a) == len(b) and all(sa == sb and abs(va - vb) <= 1e-6 * max(1.0, abs(vb))
                                    for (sa, va), (sb, vb) in zip(a, b))


def run_tensorflow(name: str, folder: str) -> list:
    """TensorFlow's events, from the weights descend's run (in ``folder``) drew."""
    return _run("tensorflow", name, folder)


def _numeric(value) -> bool:
    try:
        np.asarray(value, np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _values(a, b, where):
    if not (_numeric(a) and _numeric(b)):  # text, a dtype, ragged rows: equal, counted as one value
        assert a == b, f"{where}: descend shows {a!r}, TensorFlow {b!r}"
        return np.zeros(1), np.zeros(1)
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    assert x.shape == y.shape, f"{where}: descend has {x.shape} values, TensorFlow {y.shape}"
    return x, y


def compare(name: str, ours: list, theirs: list) -> dict:
    """Check that descend's events are TensorFlow's within the tolerance (KNOWN events excepted); returns the
    number of values compared, the largest difference and where it is."""
    assert [e[0] for e in ours] == [e[0] for e in theirs], \
        f"{name}: descend and TensorFlow recorded different steps:\n{[e[0] for e in ours]}\n{[e[0] for e in theirs]}"
    seen: dict = {}
    report = {"values": 0, "worst": 0.0, "worst_at": "-", "known": 0}
    for (kind, a), (_, b) in zip(ours, theirs):
        k = seen[kind] = seen.get(kind, -1) + 1
        if (name, kind, k) in KNOWN:
            report["known"] += 1
            continue
        pairs = []
        if isinstance(a, dict):
            assert isinstance(b, dict) and sorted(a) == sorted(b), f"{name} {kind} #{k}: logs {sorted(a)} vs {b}"
            pairs = [(f"{kind} #{k} {key}", *_values(a[key], b[key], f"{name} {kind} #{k} {key}")) for key in a]
        else:
            pairs = [(f"{kind} #{k}", *_values(a, b, f"{name} {kind} #{k}"))]
        for where, x, y in pairs:
            if not x.size:
                continue
            diff = np.atleast_1d(np.abs(x - y) / np.maximum(1.0, np.abs(y)))
            diff[np.isnan(x) & np.isnan(y)] = 0.0  # NaN (or an unknown dimension) on both sides
            report["values"] += int(x.size)
            if float(diff.max()) > report["worst"]:
                report["worst"], report["worst_at"] = float(diff.max()), where
            assert float(diff.max()) <= TOLERANCE, \
                f"{name} {where}: descend {x.tolist()} vs TensorFlow {y.tolist()} (difference {diff.max():.2e})"
    return report


#: the packages a guide imports besides descend and NumPy, as its original does (the test skips without them)
NEEDS = {"training_with_built_in_methods": ["torch"]}


@pytest.mark.parametrize("name", list(GUIDES))
def test_ported_guide_computes_tensorflows_numbers(name, tmp_path):
    for package in NEEDS.get(name, []):
        pytest.importorskip(package)
    ours, drawn = run_descend(name, str(tmp_path))
    if os.environ.get("DESCEND_LIVE_TENSORFLOW") == "1":
        pytest.importorskip("tensorflow")
        theirs = run_tensorflow(name, str(tmp_path))
    else:
        with open(os.path.join(GOLDEN, f"{name}.json")) as f:
            golden = json.load(f)
        assert same_weights(drawn, golden["initial_weights"]), (
            f"{name}: descend drew other initial weights than those TensorFlow's stored numbers start from (its "
            "initializers or random streams changed): run `python tools/compare_guides.py --update " + name + "`")
        theirs = golden["events"]
    report = compare(name, ours, theirs)
    assert report["values"] > 0


def test_the_ported_guides_name_descend_in_their_import_lines_only():
    """Each guide differs from its TensorFlow version only in the lines the harness gives back."""
    sys.path.insert(0, HERE)
    from guide_harness import TF_IMPORTS, tensorflow_source

    for name in GUIDES:
        source = open(os.path.join(PORTED, f"{name}.py")).read()
        theirs = tensorflow_source(source)
        changed = [(a, b) for a, b in zip(source.splitlines(True), theirs.splitlines(True)) if a != b]
        assert changed and all(a in TF_IMPORTS for a, _ in changed), (name, changed)
        assert "Apache License 2.0" in source and "Source: https://" in source, name
