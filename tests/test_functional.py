"""The functional API (issue 17 part 2): Input, Model(inputs, outputs) with several inputs and
outputs, shared layers, nesting, summary, get_config/from_config, Keras masks through the graph,
fit with per-output losses and metrics, and subclassed models overriding train_step/test_step."""

from __future__ import annotations

import json

import numpy as np
import pytest

import descend as ds
from descend import keras
from descend.layers import keras_tensor

layers = keras.layers
RNG = np.random.default_rng(11)


def _two_in_two_out():
    a = keras.Input(shape=(4,), name="a")
    b = keras.Input(shape=(3,), name="b")
    x = layers.Dense(5, activation="relu", name="hidden_a")(a)
    y = layers.Dense(5, activation="relu", name="hidden_b")(b)
    merged = layers.concatenate([x, y])
    priority = layers.Dense(1, name="priority")(merged)
    department = layers.Dense(3, name="department")(merged)
    return keras.Model(inputs=[a, b], outputs=[priority, department], name="two_heads")


# ================================================================ building and calling
def test_input_is_symbolic_and_layers_record_nodes():
    x = keras.Input(shape=(None, 3), dtype="int32", name="ids")
    assert x.shape == (None, None, 3) and x.dtype == "int32" and x.name == "ids"
    assert isinstance(x, keras_tensor.KerasTensor) and keras.backend.int_shape(x) == (None, None, 3)
    dense = layers.Dense(2)
    y = dense(layers.Lambda(lambda t: ds.cast(t, "float32"))(x))
    assert y.shape == (None, None, 2) and y.dtype == "float32"
    assert dense.built and [w.path for w in dense.weights] == ["dense/kernel", "dense/bias"]
    assert len(dense._inbound_nodes) == 1 and y.node.layer is dense
    with pytest.raises(TypeError, match="is symbolic: it has no value"):
        x.numpy()
    with pytest.raises(TypeError, match="is symbolic"):
        np.asarray(y)


def test_several_inputs_and_outputs_compute_what_the_layers_compute():
    model = _two_in_two_out()
    assert [la.name for la in model.layers][:2] == ["a", "b"]
    assert model.input_names == ["a", "b"] and model.output_names == ["priority", "department"]
    xa, xb = RNG.standard_normal((6, 4)).astype(np.float32), RNG.standard_normal((6, 3)).astype(np.float32)
    p, d = model([xa, xb])
    g = {la.name: la for la in model.layers}
    h = np.concatenate([np.maximum(xa @ g["hidden_a"].kernel.numpy() + g["hidden_a"].bias.numpy(), 0),
                        np.maximum(xb @ g["hidden_b"].kernel.numpy() + g["hidden_b"].bias.numpy(), 0)], axis=1)
    np.testing.assert_allclose(p.numpy(), h @ g["priority"].kernel.numpy() + g["priority"].bias.numpy(), rtol=1e-6)
    np.testing.assert_allclose(d.numpy(), h @ g["department"].kernel.numpy(), rtol=1e-5, atol=1e-6)
    by_name = model({"b": xb, "a": xa})  # a dict of inputs is matched by the Input names
    np.testing.assert_array_equal(by_name[0].numpy(), p.numpy())
    with pytest.raises(ValueError, match=r"expects inputs named \['a', 'b'\]"):
        model({"a": xa})
    with pytest.raises(ValueError, match=r"Input 1 of layer 'two_heads' is incompatible.*expected shape=\(None, 3\)"):
        model([xa, xa])


def test_a_shared_layer_has_one_set_of_weights_and_two_nodes():
    a, b = keras.Input(shape=(3,)), keras.Input(shape=(3,))
    shared = layers.Dense(2, name="shared")
    out = layers.Add()([shared(a), shared(b)])
    model = keras.Model([a, b], out)
    assert [w.path for w in model.weights] == ["shared/kernel", "shared/bias"]
    assert len(shared._inbound_nodes) == 2
    xa, xb = np.ones((1, 3), np.float32), 2 * np.ones((1, 3), np.float32)
    want = shared(xa).numpy() + shared(xb).numpy()
    np.testing.assert_allclose(model([xa, xb]).numpy(), want, rtol=1e-6)
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(model([xa, xb]))
    np.testing.assert_allclose(tape.gradient(y, shared.kernel).numpy(), np.full((3, 2), 3.0))


def test_a_model_is_a_layer_of_another_model():
    inner_in = keras.Input(shape=(3,))
    inner = keras.Model(inner_in, layers.Dense(2, name="inner_dense")(inner_in), name="encoder")
    x = keras.Input(shape=(3,))
    model = keras.Model(x, layers.Dense(1, name="head")(inner(x)))
    assert [w.path for w in model.weights] == ["inner_dense/kernel", "inner_dense/bias", "head/kernel", "head/bias"]
    data = np.ones((2, 3), np.float32)
    np.testing.assert_allclose(model(data).numpy(), model.get_layer("head")(inner(data)).numpy(), rtol=1e-6)


def test_graph_errors_name_what_is_wrong():
    a, b = keras.Input(shape=(2,), name="a"), keras.Input(shape=(2,), name="b")
    out = layers.Add()([a, b])
    with pytest.raises(ValueError, match="Graph disconnected: cannot obtain value for tensor .*name=b"):
        keras.Model(a, out)
    with pytest.raises(ValueError, match="needs both `inputs` and `outputs`"):
        keras.Model(inputs=a)
    with pytest.raises(TypeError, match="must be KerasTensors"):
        keras.Model(a, ds.ones((1, 2)))
    with pytest.raises(ValueError, match="must come from keras.Input"):
        keras.Model(out, layers.Dense(1)(out))
    with pytest.raises(ValueError, match="not used by any output"):
        keras.Model([a, b], layers.Dense(1)(a))


def test_summary_lists_output_shapes_params_and_connections():
    model = _two_in_two_out()
    lines = []
    assert model.summary(print_fn=lines.append, line_length=200) is None  # Keras: the text goes to print_fn
    (text,) = lines
    assert 'Model: "two_heads"' in text and "Connected to" in text
    assert "hidden_a (Dense)" in text and "(None, 5)" in text and "a[0][0]" in text
    assert "concatenate (Concatenate)" in text and "hidden_a[0][0], hidden_b[0][0]" in text
    assert f"Total params: {sum(w.size for w in model.weights):,}" in text


@pytest.mark.parametrize("first", ["input", "input_shape", "called"])
def test_a_built_sequential_summary_lists_each_layers_output_shape(first):
    """Keras' Sequential summary shows output shapes (the Sequential guide reads (40, 40, 32) from it)."""
    model = keras.Sequential([keras.Input(shape=(250, 250, 3))] if first == "input" else [])
    model.add(layers.Conv2D(32, 5, strides=2, activation="relu",
                            **({"input_shape": (250, 250, 3)} if first == "input_shape" else {})))
    model.add(layers.Conv2D(32, 3, activation="relu"))
    model.add(layers.MaxPooling2D(3))
    if first == "called":
        model(np.ones((1, 250, 250, 3), np.float32))
    model.add(layers.Flatten())  # added after the model was built: it is built again, its shapes follow
    lines = []
    model.summary(print_fn=lines.append)
    (text,) = lines
    rows = [" ".join(line.replace("│", " ").replace("┃", " ").split()) for line in text.splitlines()]
    assert "Layer (type) Output Shape Param #" in rows, text
    for row in ["conv2d (Conv2D) (None, 123, 123, 32) 2,432", "conv2d_1 (Conv2D) (None, 121, 121, 32) 9,248",
                "max_pooling2d (MaxPooling2D) (None, 40, 40, 32) 0", "flatten (Flatten) (None, 51200) 0"]:
        assert row in rows, (row, text)


def test_an_unbuilt_sequential_summary_shows_unknown_shapes_as_keras():
    model = keras.Sequential([layers.Dense(2)])
    lines = []
    model.summary(print_fn=lines.append)
    rows = [" ".join(line.replace("│", " ").replace("┃", " ").split()) for line in lines[0].splitlines()]
    assert "dense (Dense) ? 0 (unbuilt)" in rows, lines[0]


def test_get_config_is_json_and_from_config_rebuilds_the_same_function():
    model = _two_in_two_out()
    config = model.get_config()
    text = json.dumps(config)
    assert config["input_layers"] == [["a", 0, 0], ["b", 0, 0]]
    assert config["output_layers"] == [["priority", 0, 0], ["department", 0, 0]]
    weights = model.get_weights()
    data = [RNG.standard_normal((2, 4)).astype(np.float32), RNG.standard_normal((2, 3)).astype(np.float32)]
    want = [o.numpy() for o in model(data)]
    ds.clear_session()
    clone = keras.Model.from_config(json.loads(text))
    assert clone.get_config() == config
    clone.set_weights(weights)
    for w, g in zip(want, clone(data)):
        np.testing.assert_array_equal(w, g.numpy())


def test_config_round_trip_with_shared_layers_nested_models_and_dict_outputs():
    a = keras.Input(shape=(3,), name="a")
    inner_in = keras.Input(shape=(3,), name="inner_in")
    inner = keras.Model(inner_in, layers.Dense(3, name="inner_dense")(inner_in), name="inner")
    shared = layers.Dense(3, name="shared")
    y = shared(inner(shared(a)))
    model = keras.Model(a, {"out": layers.Dense(1, name="out")(y), "mid": y})
    config = model.get_config()
    weights = model.get_weights()
    data = RNG.standard_normal((2, 3)).astype(np.float32)
    want = model(data)
    ds.clear_session()
    clone = keras.Model.from_config(json.loads(json.dumps(config)))
    clone.set_weights(weights)
    got = clone(data)
    assert sorted(got) == ["mid", "out"]
    for k in got:
        np.testing.assert_array_equal(got[k].numpy(), want[k].numpy())


def test_lambda_configs_refuse_python_lambdas_unless_unsafe():
    layer = layers.Lambda(lambda t: t + 1.0)
    config = layer.get_config()
    with pytest.raises(ValueError, match="safe_mode=False"):
        layers.Lambda.from_config(config)
    clone = layers.Lambda.from_config(config, safe_mode=False)
    assert float(clone(ds.constant(1.0))) == 2.0
    scale = 3.0
    with pytest.raises(ValueError, match="reads variables of an enclosing function"):
        layers.Lambda(lambda t: t * scale).get_config()


def test_sequential_accepts_an_input_first():
    model = keras.Sequential([keras.Input(shape=(4,)), layers.Dense(2)])
    model.build()
    assert [type(la).__name__ for la in model.layers] == ["Dense"]  # the Input is not a layer of the stack (Keras 3)
    assert model.layers[0].kernel.shape == (4, 2)


# ================================================================ masks through the graph
def test_embedding_mask_reaches_the_lstm_in_a_functional_model():
    ids = np.array([[3, 1, 0, 0], [2, 7, 1, 0]])
    inp = keras.Input(shape=(None,), dtype="int32")
    emb = layers.Embedding(10, 4, mask_zero=True)
    lstm = layers.LSTM(3)
    model = keras.Model(inp, lstm(emb(inp)))
    # the same as passing the mask by hand; a padded example equals its unpadded version
    by_hand = lstm(emb(ds.constant(ids)), mask=ds.constant(ids != 0))
    np.testing.assert_array_equal(model(ids).numpy(), by_hand.numpy())
    np.testing.assert_allclose(model(ids[:1, :2]).numpy()[0], model(ids).numpy()[0], rtol=1e-6)
    assert layers.get_mask(emb(ds.constant(ids))).numpy().tolist() == (ids != 0).tolist()


# ================================================================ fit with several outputs
def _data(n=64):
    x = {"a": RNG.standard_normal((n, 4)).astype(np.float32), "b": RNG.standard_normal((n, 3)).astype(np.float32)}
    y = {"priority": RNG.random((n, 1)).astype(np.float32),
         "department": np.eye(3, dtype=np.float32)[RNG.integers(0, 3, n)]}
    return x, y


def test_fit_with_dicts_of_losses_weights_and_metrics():
    model = _two_in_two_out()
    model.compile(optimizer=keras.optimizers.RMSprop(1e-3),
                  loss={"priority": "mse", "department": keras.losses.CategoricalCrossentropy(from_logits=True)},
                  loss_weights={"priority": 1.0, "department": 0.2},
                  metrics={"priority": ["mae"], "department": ["accuracy"]})
    x, y = _data()
    history = model.fit(x, y, epochs=2, batch_size=16, verbose=0)
    assert set(history.history) >= {"loss", "priority_loss", "department_loss", "priority_mae",
                                    "department_accuracy"}
    logs = model.evaluate(x, y, batch_size=64, verbose=0, return_dict=True)
    p, d = model([x["a"], x["b"]])
    mse = float(np.mean((p.numpy() - y["priority"]) ** 2))
    logits = d.numpy().astype(np.float64)
    logp = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    cce = float(-np.mean((y["department"] * logp).sum(axis=1)))
    assert logs["priority_loss"] == pytest.approx(mse, rel=1e-5)
    assert logs["department_loss"] == pytest.approx(cce, rel=1e-5)
    assert logs["loss"] == pytest.approx(mse + 0.2 * cce, rel=1e-5)
    assert logs["priority_mae"] == pytest.approx(float(np.mean(np.abs(p.numpy() - y["priority"]))), rel=1e-5)
    acc = float(np.mean(d.numpy().argmax(1) == y["department"].argmax(1)))
    assert logs["department_accuracy"] == pytest.approx(acc)
    preds = model.predict(x, batch_size=10, verbose=0)
    assert [a.shape for a in preds] == [(64, 1), (64, 3)]


def test_list_losses_and_targets_and_dict_outputs_train():
    a = keras.Input(shape=(2,), name="a")
    h = layers.Dense(4, activation="tanh")(a)
    model = keras.Model(a, {"y1": layers.Dense(1)(h), "y2": layers.Dense(1)(h)})
    model.compile("adam", loss={"y1": "mse", "y2": "mae"})
    x = RNG.standard_normal((32, 2)).astype(np.float32)
    first = model.evaluate(x, {"y1": x[:, :1], "y2": x[:, 1:]}, verbose=0, return_dict=True)["loss"]
    model.fit(x, {"y1": x[:, :1], "y2": x[:, 1:]}, epochs=30, batch_size=8, verbose=0)
    last = model.evaluate(x, {"y1": x[:, :1], "y2": x[:, 1:]}, verbose=0, return_dict=True)["loss"]
    assert last < first
    lm = _two_in_two_out()
    lm.compile("sgd", loss=["mse", "mse"], loss_weights=[1.0, 0.0])
    xs, ys = _data(8)
    logs = lm.evaluate([xs["a"], xs["b"]], [ys["priority"], ys["department"]], verbose=0, return_dict=True)
    assert logs["loss"] == pytest.approx(logs["priority_loss"], rel=1e-6)
    with pytest.raises(ValueError, match=r"names outputs \['nope'\] that the model does not have"):
        lm.compile("sgd", loss={"nope": "mse"})
    with pytest.raises(ValueError, match="has 3 entries, but the model has 2 outputs"):
        lm.compile("sgd", loss=["mse", "mse", "mse"])


# ================================================================ customizing what happens in fit
class CustomModel(keras.Model):
    """The Keras guide's first example: train_step with compute_loss and self.metrics."""

    def train_step(self, data):
        x, y = data
        with ds.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(y=y, y_pred=y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        for metric in self.metrics:
            if metric.name == "loss":
                metric.update_state(loss)
            else:
                metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def test_train_step_override_as_in_the_keras_guide():
    inputs = keras.Input(shape=(32,))
    model = CustomModel(inputs, layers.Dense(1)(inputs))
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x, y = RNG.random((1000, 32)).astype(np.float32), RNG.random((1000, 1)).astype(np.float32)
    history = model.fit(x, y, epochs=3, verbose=0)
    assert sorted(history.history) == ["loss", "mae"]  # Keras 3's keys: no learning_rate unless a callback adds it
    assert all(isinstance(v, float) for v in history.history["loss"])
    assert history.history["loss"][-1] < history.history["loss"][0]


class LowLevelModel(keras.Model):
    """The guide's lower-level example: own loss tracker and metrics, compile() without a loss."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_tracker = keras.metrics.Mean(name="loss")
        self.mae_metric = keras.metrics.MeanAbsoluteError(name="mae")
        self.loss_fn = keras.losses.MeanSquaredError()

    def train_step(self, data):
        x, y = data
        with ds.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.loss_fn(y, y_pred)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.loss_tracker.update_state(loss)
        self.mae_metric.update_state(y, y_pred)
        return {"loss": self.loss_tracker.result(), "mae": self.mae_metric.result()}

    def test_step(self, data):
        x, y = data
        y_pred = self(x, training=False)
        self.loss_tracker.update_state(self.loss_fn(y, y_pred))
        self.mae_metric.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}

    @property
    def metrics(self):
        return [self.loss_tracker, self.mae_metric]


def test_low_level_train_step_and_test_step_with_own_metrics():
    inputs = keras.Input(shape=(8,))
    model = LowLevelModel(inputs, layers.Dense(1)(inputs))
    model.compile(optimizer="adam")
    x, y = RNG.random((200, 8)).astype(np.float32), RNG.random((200, 1)).astype(np.float32)
    history = model.fit(x, y, epochs=2, batch_size=50, verbose=0)
    assert sorted(history.history) == ["loss", "mae"]  # Keras 3's keys: no learning_rate unless a callback adds it
    logs = model.evaluate(x, y, batch_size=200, verbose=0, return_dict=True)
    pred = model(x).numpy()
    assert logs["loss"] == pytest.approx(float(np.mean((pred - y) ** 2)), rel=1e-5)
    assert logs["mae"] == pytest.approx(float(np.mean(np.abs(pred - y))), rel=1e-5)
    plain = keras.Model(inputs, layers.Dense(1)(inputs))
    plain.compile(optimizer="adam")
    before = [w.numpy().copy() for w in plain.weights]
    with pytest.raises(ValueError, match="No loss to compute"):  # Keras 3's words; no weight changed
        plain.fit(x, y, verbose=0)
    assert all(np.array_equal(a, w.numpy()) for a, w in zip(before, plain.weights))


class TF2StyleModel(keras.Model):
    """The TF 2 (tf.keras) version of the guide: compiled_loss and compiled_metrics."""

    def train_step(self, data):
        x, y = data
        with ds.GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
        grads = tape.gradient(loss, self.trainable_variables)
        self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
        self.compiled_metrics.update_state(y, y_pred)
        return {m.name: m.result() for m in self.metrics}


def test_tf2_style_compiled_loss_and_compiled_metrics():
    inputs = keras.Input(shape=(4,))
    model = TF2StyleModel(inputs, layers.Dense(1, kernel_regularizer="l2")(inputs))
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    x, y = RNG.random((64, 4)).astype(np.float32), RNG.random((64, 1)).astype(np.float32)
    kernel, bias = (w.numpy().astype(np.float64) for w in model.layers[1].weights)
    pred = x @ kernel + bias
    history = model.fit(x, y, epochs=1, batch_size=64, verbose=0, shuffle=False)
    assert sorted(history.history) == ["loss", "mae"]  # Keras 3's keys: no learning_rate unless a callback adds it
    # one step: the logged loss is the loss before the update, with the kernel's L2 penalty (0.01 * sum k^2)
    expected = np.mean((pred - y) ** 2) + 0.01 * np.sum(kernel ** 2)
    assert history.history["loss"][0] == pytest.approx(expected, rel=1e-5)
    assert history.history["mae"][0] == pytest.approx(np.mean(np.abs(pred - y)), rel=1e-5)
    model.compiled_metrics.reset_state()
    assert float(model.compiled_metrics[0].result()) == 0.0


# ================================================================ operators on KerasTensors, training flag
def test_operators_on_keras_tensors_build_op_layers_that_round_trip():
    x = keras.Input(shape=(3,), name="x")
    h = layers.Dense(4, name="d")(x)
    y = (2.0 - h) * h + abs(-h) / 2.0
    model = keras.Model(x, [y, y[:, 1:3], h[..., 0], h ** 2])
    assert isinstance(y.node.layer, layers.OpLambda) and y.node.layer.function == "add"
    data = RNG.standard_normal((2, 3)).astype(np.float32)
    d = model.get_layer("d")
    hv = data @ d.kernel.numpy() + d.bias.numpy()
    yv = (2.0 - hv) * hv + np.abs(-hv) / 2.0
    out = model(data)
    np.testing.assert_allclose(out[0].numpy(), yv, rtol=1e-6)
    np.testing.assert_allclose(out[1].numpy(), yv[:, 1:3], rtol=1e-6)
    np.testing.assert_allclose(out[2].numpy(), hv[..., 0], rtol=1e-6)
    np.testing.assert_allclose(out[3].numpy(), hv ** 2, rtol=1e-6)
    config = json.loads(json.dumps(model.get_config()))
    weights = model.get_weights()
    ds.clear_session()
    clone = keras.Model.from_config(config)
    clone.set_weights(weights)
    for a, b in zip(out, clone(data)):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ValueError, match="unknown op 'sqrt'"):
        layers.OpLambda("sqrt")


def test_fit_runs_the_graph_in_training_mode():
    x = keras.Input(shape=(8,))
    model = keras.Model(x, layers.Dropout(0.5, seed=1)(x))
    data = np.ones((4, 8), np.float32)
    np.testing.assert_array_equal(model(data).numpy(), data)
    dropped = model(data, training=True).numpy()
    assert set(np.unique(dropped).tolist()) == {0.0, 2.0}
    seen = []

    class Probe(layers.Layer):
        def call(self, inputs, training=None):
            seen.append(training)
            return inputs

    inp = keras.Input(shape=(2,))
    probe_model = keras.Model(inp, layers.Dense(1)(Probe()(inp)))
    probe_model.compile("sgd", "mse")
    seen.clear()
    probe_model.fit(np.ones((4, 2)), np.ones((4, 1)), batch_size=4, verbose=0)
    probe_model.evaluate(np.ones((4, 2)), np.ones((4, 1)), verbose=0)
    assert seen == [True, False]


def test_validation_split_with_dicts_of_inputs_and_targets():
    model = _two_in_two_out()
    model.compile("sgd", loss={"priority": "mse", "department": "mse"})
    x, y = _data(40)
    history = model.fit(x, y, validation_split=0.25, epochs=1, batch_size=40, verbose=0, shuffle=False)
    val = model.evaluate({k: v[30:] for k, v in x.items()}, {k: v[30:] for k, v in y.items()}, verbose=0,
                         return_dict=True)
    assert history.history["val_loss"][0] == pytest.approx(val["loss"], rel=1e-6)
    assert history.history["val_priority_loss"][0] == pytest.approx(val["priority_loss"], rel=1e-6)


def test_a_sequential_model_has_keras_3s_layers_and_functional_view():
    """As Keras 3: the Input is not one of ``layers``; a built model has ``inputs``/``outputs`` and each layer its
    ``output``, so ``Model(model.inputs, [layer.output for layer in model.layers])`` extracts features (the
    Sequential guide's example); ``build(shape)`` makes the Input; the config lists it first."""
    model = keras.Sequential([keras.Input((3,)), layers.Dense(2, name="d1"), layers.Dense(1, name="d2")])
    assert [la.name for la in model.layers] == ["d1", "d2"]
    assert model.input_shape == (None, 3) and model.output_shape == (None, 1)
    features = keras.Model(inputs=model.inputs, outputs=[la.output for la in model.layers])
    x = np.ones((4, 3), np.float32)
    a, b = features(x)
    np.testing.assert_array_equal(b.numpy(), model(x).numpy())
    np.testing.assert_array_equal(a.numpy(), model.layers[0](x).numpy())
    assert [c["class_name"] for c in model.get_config()["layers"]] == ["InputLayer", "Dense", "Dense"]
    lazy = keras.Sequential([layers.Dense(2)])
    with pytest.raises(AttributeError, match="has no defined inputs yet"):
        _ = lazy.inputs
    with pytest.raises(AttributeError, match="has never been called"):
        _ = layers.Dense(2).output
    lazy.build((None, 5))
    assert lazy.inputs[0].shape == (None, 5) and len(lazy.layers) == 1
    with pytest.raises(ValueError, match="an Input can only come first"):
        keras.Sequential([layers.Dense(2), keras.Input((3,))])
    k = pytest.importorskip("keras")
    theirs = k.Sequential([k.Input((3,)), k.layers.Dense(2), k.layers.Dense(1)])
    assert len(theirs.layers) == len(model.layers)
    assert [c["class_name"] for c in theirs.get_config()["layers"]] == ["InputLayer", "Dense", "Dense"]


# ---------------------------------------------------------------- model.layers in Keras 3's order
def _layer_order_graphs(K):
    L = K.layers

    def branches():
        t, b, g = K.Input((5,), name="title"), K.Input((7,), name="body"), K.Input((3,), name="tags")
        te, be = L.Dense(4, name="te")(t), L.Dense(4, name="be")(b)
        x = L.Concatenate(name="cat")([L.Dense(2, name="tf2")(te), be, g])
        return K.Model([t, b, g], [L.Dense(1, name="prio")(x), L.Dense(2, name="dept")(x)])

    def two_towers():
        t, b, g = K.Input((None,), name="title"), K.Input((None,), name="body"), K.Input((12,), name="tags")
        tf_, bf = L.Embedding(100, 8, name="et")(t), L.Embedding(100, 8, name="eb")(b)
        x = L.concatenate([L.LSTM(16, name="lt")(tf_), L.LSTM(4, name="lb")(bf), g], name="cat")
        return K.Model([t, b, g], [L.Dense(1, name="p")(x), L.Dense(4, name="d")(x)])

    def shared_and_skip():
        a, b = K.Input((4,), name="a"), K.Input((4,), name="b")
        sh = L.Dense(4, name="shared")
        x, y = sh(a), sh(b)
        w = L.Dense(4, name="d2")(L.Add(name="add")([x, L.Dense(4, name="d1")(y)]))
        return K.Model([a, b], [L.Add(name="add2")([w, x]), y])

    return {"branches": branches, "two_towers": two_towers, "shared_and_skip": shared_and_skip}


# the orders Keras 3.15 gives (checked against Keras below where it is installed)
KERAS_LAYER_ORDER = {
    "branches": ["title", "te", "body", "tf2", "be", "tags", "cat", "prio", "dept"],
    "two_towers": ["title", "body", "et", "eb", "lt", "lb", "tags", "cat", "p", "d"],
    "shared_and_skip": ["a", "b", "shared", "d1", "add", "d2", "add2"],
}


@pytest.mark.parametrize("graph", sorted(KERAS_LAYER_ORDER))
def test_model_layers_and_weights_come_in_keras_order(graph):
    """Keras 3 orders a functional model's layers by depth (farthest from the outputs first), so its weights,
    get_weights/set_weights and checkpoints follow that order; a program that indexes them ports unchanged."""
    ds.clear_session()
    ours = _layer_order_graphs(ds.keras)[graph]()
    assert [la.name for la in ours.layers] == KERAS_LAYER_ORDER[graph]
    keras = pytest.importorskip("keras")
    theirs = _layer_order_graphs(keras)[graph]()
    assert [la.name for la in theirs.layers] == KERAS_LAYER_ORDER[graph]
    assert [tuple(w.shape) for w in ours.weights] == [tuple(w.shape) for w in theirs.weights]


@pytest.mark.parametrize("given", [(4, 5, 5), (4, 5, 5, 1)])
def test_an_input_one_axis_of_size_1_short_of_its_input_gets_it_as_keras(given):
    """Keras 3 adjusts the rank of a functional model's input by a last axis of size 1 (the trainer-pattern example
    feeds (64, 28, 28) images to Input((28, 28, 1)))."""
    x = keras.Input(shape=(5, 5, 1))
    model = keras.Model(x, layers.Flatten()(x))
    values = RNG.normal(size=given).astype(np.float32)
    np.testing.assert_array_equal(model(values).numpy(), values.reshape(4, 25))
    np.testing.assert_array_equal(model(ds.constant(values)).numpy(), values.reshape(4, 25))
    squeezed = keras.Input(shape=(5,))
    plain = keras.Model(squeezed, layers.Dense(2)(squeezed))
    assert tuple(plain(np.ones((3, 5, 1), np.float32)).shape) == (3, 2)  # an extra last axis of size 1 goes
    with pytest.raises(ValueError, match="incompatible"):
        model(np.ones((4, 5, 6), np.float32))
