"""Run a ported guide (``examples/ported/``) under descend or under TensorFlow/Keras, with what each library would
draw at random fixed alike in both runs, and write what the program computed as JSON.

    python tests/guide_harness.py descend    GUIDE.py OUT.json WEIGHTS.npz   # first: records the weights
    python tests/guide_harness.py tensorflow GUIDE.py OUT.json WEIGHTS.npz   # the TF version of the file

What is fixed, in both runs, without touching the program's code:

* the data: NumPy's and Python's global generators are seeded with 0 just before the program starts, after
  the library's import (importing TensorFlow draws from NumPy's generator); the ported guides make their
  synthetic data with NumPy;
* the initial weights: descend's run records every weight a layer creates (``add_weight``); TensorFlow's run
  gives Keras' ``add_weight`` those values, those of each shape in the order descend created them (the order
  across shapes may differ: Keras builds a deserialized layer at once, descend at its first call), and fails if
  the two programs did not create as many weights of each shape;
* Dropout's mask: a training call of a ``Dropout`` layer keeps the same elements in both libraries (those
  where a generator seeded with the example's shape draws at least the rate; the same mask every step);
* the order of the data: ``Dataset.shuffle`` returns the dataset as it is, ``fit`` runs with
  ``shuffle=False`` and a torch ``DataLoader(shuffle=True)`` reads in order (each library would otherwise
  draw its own order).

What is recorded, in order: the sum of the absolute values of each weight a ``fit`` starts from
(``"weights"``), every ``fit``'s ``History.history`` (``"fit"``), every ``evaluate``'s result
(``"evaluate"``; ``fit``'s validation is in its history), and, outside ``fit``, the value of every scalar a
``GradientTape`` differentiates in eager code (``"loss"``: the losses of a custom training loop) and every
result a Keras metric gives eager code (``"metric"``: a custom loop's metrics, updated in or out of a function),
and, with ``DESCEND_GUIDE_PRINTS=1`` (the guides that compute without training), what the program prints in
eager code of what it computed (``"print"``: a tensor's dtype and values, a ragged
or sparse tensor's parts, a shape, a dtype, a number; text and other objects are not recorded).
With ``DESCEND_GUIDE_OUTPUTS=1`` (the guides of ``OUTPUTS`` in tests/test_ported_guides.py, which call models
but train none) it records too what each layer or model called by the program's eager code returns
(``"output"``: the sum and the sum of absolute values of each tensor, and the number of steps its mask keeps)
and what ``predict`` returns (``"predict"``).
``tests/test_ported_guides.py`` compares the two.
"""

from __future__ import annotations

import inspect
import json
import os
import random
import runpy
import sys

import numpy as np

TF_IMPORTS = {
    "import descend as tf\n": "import tensorflow as tf\n",
    "from descend import keras\n": "import keras\n",
    "from descend.keras import layers\n": "from keras import layers\n",
    "from descend.keras import ops\n": "from keras import ops\n",
    "from descend.keras.layers import Dense, Flatten, Conv2D\n":
        "from tensorflow.keras.layers import Dense, Flatten, Conv2D\n",
    "from descend.keras import Model\n": "from tensorflow.keras import Model\n",
    "import descend.keras as keras\n": "import tensorflow.keras as keras\n",
    "import descend.keras.layers as layers\n": "import keras.layers as layers\n",
    "from descend.keras import regularizers\n": "from tensorflow.keras import regularizers\n",
    "from descend.keras import initializers\n": "from keras import initializers\n",
    "import descend.experimental.numpy as tnp\n": "import tensorflow.experimental.numpy as tnp\n",
}


def tensorflow_source(source: str) -> str:
    """The guide with the original (TensorFlow/Keras) imports; nothing else differs."""
    for ours, theirs in TF_IMPORTS.items():
        source = source.replace(ours, theirs)
    left = [line for line in source.splitlines() if line.startswith(("import descend", "from descend"))]
    if left:
        raise ValueError(f"import lines the harness does not know how to give back to TensorFlow: {left}")
    return source


def _float(value):
    try:
        return float(np.asarray(value))
    except (TypeError, ValueError):
        return [float(v) for v in np.asarray(value).reshape(-1)]


def _text(value):
    """Strings as text (a string tensor holds bytes)."""
    if isinstance(value, list):
        return [_text(v) for v in value]
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else value


def _shown(value):
    """What ``print`` shows of ``value`` that a program computed, as JSON (None for what it did not compute:
    text, objects): a tensor's dtype and values (a string tensor's as text), a ragged tensor's rows, a sparse
    tensor's indices, values and shape, a shape, a dtype, a number; a list, tuple or dict of them item by item."""
    if value is None or isinstance(value, (str, bytes)):
        return None
    if isinstance(value, (list, tuple)) and value and all(v is None or (isinstance(v, int) and not isinstance(v, bool))
                                                          for v in value):
        return {"ints": list(value)}
    if isinstance(value, (list, tuple, dict)):
        items = [_shown(v) for v in (value.values() if isinstance(value, dict) else value)]
        items = [v for v in items if v is not None]
        return items or None
    if hasattr(value, "as_list") and hasattr(value, "rank"):  # a TensorShape
        return {"ints": value.as_list()} if value.rank is not None else {"ints": None}
    if hasattr(value, "as_numpy_dtype"):  # a DType
        return {"dtype": value.name}
    if hasattr(value, "to_list") and hasattr(value, "row_splits"):  # a RaggedTensor
        return {"ragged": _text(value.to_list())}
    if all(hasattr(value, a) for a in ("indices", "values", "dense_shape")):  # a SparseTensor
        parts = {k: _shown(getattr(value, k)) for k in ("indices", "values", "dense_shape")}
        return {"dtype": parts["values"]["dtype"], **{k: v["value"] for k, v in parts.items()}}
    if not isinstance(value, (int, float, np.generic, np.ndarray)) and not hasattr(value, "numpy"):
        return None
    try:
        array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
    except Exception:  # a symbolic tensor, being traced
        return None
    if array.dtype.kind in "biuf":
        return {"dtype": array.dtype.name, "value": array.tolist()}
    if array.dtype.kind in "OSU":
        return {"dtype": "string", "value": _text(array.tolist())}
    return None


def main(framework: str, script: str, out: str, weights_file: str) -> None:
    events: list = []
    depth = [0]  # inside fit/evaluate: the library's own steps, not the program's loop
    if framework == "descend":
        import descend
        from descend.framework import trace

        descend.random.set_seed(0)  # unseeded initializers draw from it, leaving NumPy's generator to the data
        created: list = []

        def record_weight(v):
            # a weight a function creates on its first call: its initial value, read outside the trace (a read
            # inside would make the function run eagerly, which TensorFlow's would not)
            recorders = list(trace.active)
            trace.active.clear()
            try:
                created.append(np.array(v.numpy()))
            finally:
                trace.active.extend(recorders)
        descend.layers.register_weight_hook(record_weight)
        Model, Dataset, Tape = descend.Model, descend.data.Dataset, descend.GradientTape
        Metric, Dropout, constant = descend.metrics.Metric, descend.keras.layers.Dropout, descend.constant
        Layer = descend.keras.layers.Layer

        eager = descend.executing_eagerly
    else:
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
        import keras
        import tensorflow as tf

        with np.load(weights_file) as f:
            recorded = [f[f"w{i}"] for i in range(len(f.files))]
        given: dict = {}  # shape -> descend's values of that shape, in the order descend created them
        for value in recorded:
            given.setdefault(tuple(value.shape), []).append(value)
        add_weight = keras.layers.Layer.add_weight
        signature = inspect.signature(add_weight)

        def add_weight_as_descend(self, *args, **kwargs):
            bound = signature.bind(self, *args, **kwargs)
            bound.apply_defaults()
            shape = tuple(bound.arguments["shape"] or ())
            if not given.get(shape):
                raise AssertionError(f"Keras creates more weights of shape {shape} than descend (in {self.name})")
            value = given[shape].pop(0)
            # an initializer, not an assign: Keras may create the variable's value later (deferred)
            bound.arguments["initializer"] = lambda shape, dtype=None: value.astype(dtype or value.dtype)
            return add_weight(*bound.args, **bound.kwargs)
        keras.layers.Layer.add_weight = add_weight_as_descend
        Model, Dataset, Tape = keras.Model, tf.data.Dataset, tf.GradientTape
        Metric, Dropout, constant = keras.metrics.Metric, keras.layers.Dropout, tf.constant
        Layer = keras.layers.Layer
        eager = tf.executing_eagerly

    Dataset.shuffle = lambda self, *args, **kwargs: self

    def dropout_fixed_mask(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        if self.noise_shape is not None:
            raise NotImplementedError("the harness fixes Dropout's mask without a noise_shape only")
        shape = tuple(int(d) for d in inputs.shape[1:])
        keep = np.random.default_rng(list(shape)).random(shape) >= self.rate
        return inputs * constant((keep / (1.0 - self.rate)).astype(np.float32))
    Dropout.call = dropout_fixed_mask
    try:  # a torch DataLoader(shuffle=True) reads its dataset in order too
        import torch.utils.data
    except ImportError:
        pass
    else:
        torch.utils.data.RandomSampler.__iter__ = lambda self: iter(range(len(self.data_source)))
    fit, evaluate, gradient = Model.fit, Model.evaluate, Tape.gradient

    def fit_in_order(self, *args, **kwargs):
        kwargs["shuffle"] = False
        # the weights the fit starts from (a model built lazily has none yet)
        events.append(["weights", [float(np.abs(np.asarray(w, np.float64)).sum()) for w in self.get_weights()]])
        depth[0] += 1
        try:
            history = fit(self, *args, **kwargs)
        finally:
            depth[0] -= 1
        events.append(["fit", {k: [float(v) for v in vs] for k, vs in history.history.items()}])
        return history

    def evaluate_recorded(self, *args, **kwargs):
        depth[0] += 1
        try:
            result = evaluate(self, *args, **kwargs)
        finally:
            depth[0] -= 1
        if depth[0]:  # fit's validation: in fit's history
            return result
        events.append(["evaluate", {k: float(v) for k, v in result.items()} if isinstance(result, dict)
                       else _float(result)])
        return result

    def gradient_recorded(self, target, *args, **kwargs):
        if depth[0] == 0 and eager() and getattr(target, "shape", None) == ():
            events.append(["loss", float(np.asarray(target))])
        return gradient(self, target, *args, **kwargs)

    Model.fit, Model.evaluate, Tape.gradient = fit_in_order, evaluate_recorded, gradient_recorded

    def result_recorded(result):
        def recorded(self, *args, **kwargs):
            value = result(self, *args, **kwargs)
            if depth[0] == 0 and eager() and not isinstance(value, dict):
                events.append(["metric", _float(value)])
            return value
        return recorded

    def metric_classes(cls):
        for sub in cls.__subclasses__():
            yield sub
            yield from metric_classes(sub)

    # each metric class that defines its own result (the library's; the program's are defined later)
    for cls in {Metric, *metric_classes(Metric)}:
        if "result" in vars(cls):
            cls.result = result_recorded(vars(cls)["result"])
    program_file = [os.path.abspath(script)]  # the file runpy runs (the TensorFlow version of it for TensorFlow)
    if os.environ.get("DESCEND_GUIDE_OUTPUTS") == "1":  # a guide that calls models but trains none
        predict, layer_call = Model.predict, Layer.__call__

        def summed(value):
            """``[sum, sum of absolute values]`` of each tensor in a (nested) output (and how many NaNs where it has
            some, which the sums leave out), then how many steps its mask keeps."""
            if isinstance(value, dict):
                return [s for k in sorted(value) for s in summed(value[k])]
            if isinstance(value, (list, tuple)):
                return [s for v in value for s in summed(v)]
            x = np.asarray(value, np.float64)
            sums = [float(np.nansum(x)), float(np.nansum(np.abs(x)))]
            if np.isnan(x).any():  # (a softmax over masked steps divides 0 by 0) the sums leave them out
                sums.append(float(np.isnan(x).sum()))
            mask = getattr(value, "_keras_mask", None)
            return sums + ([] if mask is None else [float(np.asarray(mask, np.float64).sum())])

        def call_recorded(self, *args, **kwargs):
            depth[0] += 1
            try:
                output = layer_call(self, *args, **kwargs)
            finally:
                depth[0] -= 1
            # a call the program makes (not one the library makes, as a Sequential model's build does), through a
            # layer's own __call__ if it has one (Keras' preprocessing layers) or Keras' traceback filter
            caller = sys._getframe(1)
            while caller.f_code.co_filename != program_file[0] and caller.f_code.co_name in ("__call__", "error_handler") \
                    and caller.f_back is not None:
                caller = caller.f_back
            if depth[0] == 0 and eager() and caller.f_code.co_filename == program_file[0]:
                try:
                    sums = summed(output)
                except (TypeError, ValueError):  # a symbolic output (a functional model being defined)
                    return output
                events.append(["output", sums])
            return output

        def predict_recorded(self, *args, **kwargs):
            depth[0] += 1
            try:
                output = predict(self, *args, **kwargs)
            finally:
                depth[0] -= 1
            events.append(["predict", summed(output)])
            return output
        Layer.__call__, Model.predict = call_recorded, predict_recorded

    def print_recorded(*args, **kwargs):
        # what the program prints of what it computed (eager values; a function prints while it is traced: then
        # the text it prints, for when it traces)
        if record_prints and not eager():  # a function being traced: when it traces is what is compared
            events.append(["print", {"tracing": " ".join(a for a in args if isinstance(a, str))}])
        elif record_prints:
            for value in args:
                shown = _shown(value)
                while isinstance(shown, list) and any(isinstance(v, list) for v in shown):
                    shown = [w for v in shown for w in (v if isinstance(v, list) else [v])]
                for item in shown if isinstance(shown, list) else [] if shown is None else [shown]:
                    events.append(["print", item])
        print(*args, **kwargs)
    program = {"print": print_recorded}
    record_prints = os.environ.get("DESCEND_GUIDE_PRINTS") == "1"  # the guides that train record their fits

    np.random.seed(0)  # after the imports: importing TensorFlow draws from NumPy's generator
    random.seed(0)
    if framework == "descend":
        runpy.run_path(program_file[0], init_globals=program, run_name="__main__")
        np.savez(weights_file, **{f"w{i}": w for i, w in enumerate(created)})
    else:
        source = tensorflow_source(open(script).read())
        path = os.path.join(os.path.dirname(os.path.abspath(out)), "tf_" + os.path.basename(script))
        with open(path, "w") as f:
            f.write(source)
        program_file[0] = os.path.abspath(path)
        runpy.run_path(program_file[0], init_globals=program, run_name="__main__")
        left = {shape: len(v) for shape, v in given.items() if v}
        if left:
            raise AssertionError(f"descend created weights Keras did not (shape: how many): {left}")
    with open(out, "w") as f:
        json.dump(events, f)


if __name__ == "__main__":
    main(*sys.argv[1:5])
