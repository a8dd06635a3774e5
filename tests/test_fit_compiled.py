"""``compile(jit_compile=..., run_eagerly=..., steps_per_execution=...)``: ``fit``, ``evaluate`` and ``predict`` run
their steps compiled by ``descend.function`` (Keras 3's default), with the eager run's numbers."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


def _digits(rows=None):
    (x, y), (xt, yt) = ds.datasets.load_digits()
    x, xt = x.astype(np.float32), xt.astype(np.float32)
    if rows is not None:
        x, y = x[:rows], y[:rows]
    return x, y.astype(np.int64), xt, yt.astype(np.int64)


def _mlp(jit_compile, dropout=0.0, **compile_args):
    ds.keras.utils.set_random_seed(0)
    layers = [ds.keras.Input((64,)), ds.layers.Dense(256, activation="relu")]
    if dropout:
        layers.append(ds.layers.Dropout(dropout))
    model = ds.Sequential(layers + [ds.layers.Dense(10)])
    model.compile(optimizer=ds.optimizers.Adam(1e-3), loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"], jit_compile=jit_compile, **compile_args)
    return model


def _dense(model):
    return [layer for layer in model.layers if isinstance(layer, ds.layers.Dense)]


def _weights(model):
    return [w.numpy() for w in model.weights]


@pytest.mark.parametrize("dropout", [0.0, 0.3])
def test_a_compiled_fit_gives_the_eager_numbers(dropout):
    """The digits MLP (hidden 256, batch 32): losses, metrics, validation and weights of two epochs equal the
    eager run's (bit for bit: the plan runs the same arithmetic, dropout draws the same masks), with one
    trace per batch shape (the full batches and the short last one)."""
    x, y, xt, yt = _digits()
    runs = {}
    for jit in (False, True):
        model = _mlp(jit, dropout)
        history = model.fit(x, y, batch_size=32, epochs=2, verbose=0, validation_data=(xt, yt))
        runs[jit] = (history.history, _weights(model), model.evaluate(xt, yt, verbose=0), model.predict(xt[:50]),
                     model)
    (h0, w0, e0, p0, _), (h1, w1, e1, p1, compiled) = runs[False], runs[True]
    assert h1.keys() == h0.keys()
    for key in h0:
        np.testing.assert_allclose(h1[key], h0[key], rtol=1e-5)
        assert h1[key] == h0[key], key  # bitwise
    for a, b in zip(w1, w0):
        np.testing.assert_array_equal(a, b)
    assert e1 == e0
    np.testing.assert_array_equal(p1, p0)
    train = compiled.step_function("train").traced
    assert train.experimental_get_tracing_count() == 2  # 45 batches of 32 and a last one of 5
    assert compiled.step_function("test").traced.experimental_get_tracing_count() >= 1


def test_dropout_draws_a_new_mask_at_every_compiled_step():
    # one example of 64 ones through Dropout into a bias-free unit: the kernel's update is zero exactly where the
    # step's mask dropped an input, so two steps on the same example show their two masks (equal by chance: 2**-64)
    x, y = np.ones((1, 64), np.float32), np.zeros((1, 1), np.float32)
    model = ds.keras.Sequential([ds.keras.Input((64,)), ds.keras.layers.Dropout(0.5),
                                 ds.keras.layers.Dense(1, use_bias=False, kernel_initializer="ones")])
    model.compile(ds.keras.optimizers.SGD(0.01), loss="mse", jit_compile=True)
    model.fit(x, y, epochs=1, verbose=0)  # (traced here)
    kernel = model.layers[-1].kernel
    masks = []
    for _ in range(2):
        before = kernel.numpy().copy()
        model.train_on_batch(x, y)
        masks.append((kernel.numpy() - before).ravel() != 0)
    assert hasattr(model.step_function("train"), "traced")
    assert 10 < masks[0].sum() < 54 and 10 < masks[1].sum() < 54  # (about half kept)
    assert not np.array_equal(masks[0], masks[1])


@pytest.mark.parametrize("args", [dict(run_eagerly=True), dict(jit_compile=False)])
def test_run_eagerly_or_jit_compile_false_runs_the_steps_op_by_op(args):
    model = _mlp(args.get("jit_compile", "auto"), **{k: v for k, v in args.items() if k != "jit_compile"})
    x, y, _, _ = _digits(64)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert not hasattr(model.step_function("train"), "traced")
    assert model.jit_compile is False


def test_setting_run_eagerly_after_compile_takes_effect_at_the_next_step():
    x, y, _, _ = _digits(64)
    model = _mlp("auto")
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert hasattr(model.step_function("train"), "traced")
    model.run_eagerly = True  # as Keras: the attribute switches the steps
    assert not hasattr(model.step_function("train"), "traced")
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)


def test_a_layer_frozen_after_a_compiled_fit_stays_frozen_in_the_next():
    x, y, _, _ = _digits(128)
    model = _mlp(True)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    first, second = _dense(model)
    first.trainable = False
    frozen, moving = first.kernel.numpy().copy(), second.kernel.numpy().copy()
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    np.testing.assert_array_equal(first.kernel.numpy(), frozen)  # the trace depends on what trains
    assert not np.array_equal(second.kernel.numpy(), moving)


def test_a_new_compile_makes_new_step_functions():
    x, y, _, _ = _digits(64)
    model = _mlp(True)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    first = model.step_function("train")
    model.compile(optimizer=ds.optimizers.SGD(0.1), loss="sparse_categorical_crossentropy")
    assert model.step_function("train") is not first
    model.fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert int(model.optimizer.iterations.numpy()) == 2


@pytest.mark.parametrize("steps_per_execution", [1, 4])
def test_steps_per_execution_numbers_the_callbacks_batches_as_keras(steps_per_execution):
    """10 batches a epoch: with ``steps_per_execution=4`` the callbacks see batches [0, 3], [4, 7], [8, 11]
    (Keras numbers the last, short one by where it would end); the weights are those of 10 steps either way."""
    x, y, _, _ = _digits(320)
    seen = []

    class Record(ds.callbacks.Callback):
        def on_train_batch_begin(self, batch, logs=None):
            seen.append(("begin", batch))

        def on_train_batch_end(self, batch, logs=None):
            seen.append(("end", batch, int(self.model.optimizer.iterations.numpy())))

    model = _mlp(True, steps_per_execution=steps_per_execution)
    model.fit(x, y, batch_size=32, epochs=1, verbose=0, shuffle=False, callbacks=[Record()])
    if steps_per_execution == 1:
        assert seen[:4] == [("begin", 0), ("end", 0, 1), ("begin", 1), ("end", 1, 2)] and len(seen) == 20
    else:
        assert seen == [("begin", 0), ("end", 3, 4), ("begin", 4), ("end", 7, 8), ("begin", 8), ("end", 11, 10)]
    reference = _mlp(False)
    reference.fit(x, y, batch_size=32, epochs=1, verbose=0, shuffle=False)
    for a, b in zip(_weights(model), _weights(reference)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("kwargs, message", [
    (dict(jit_compile="yes"), "`jit_compile` must be True, False or 'auto'. Received: jit_compile='yes'"),
    (dict(run_eagerly=1), "`run_eagerly` must be True or False. Received: run_eagerly=1"),
    (dict(steps_per_execution=0), "`steps_per_execution` must be a positive integer. Received: steps_per_execution=0"),
    (dict(steps_per_execution=2.0), "Received: steps_per_execution=2.0"),
    (dict(run_eagerly=True, jit_compile=True), "`jit_compile=True` cannot be combined with `run_eagerly=True`"),
])
def test_compile_refuses_bad_execution_arguments(kwargs, message):
    model = ds.Sequential([ds.layers.Dense(1)])
    with pytest.raises(ValueError, match=__import__("re").escape(message)):
        model.compile(optimizer="sgd", loss="mse", **kwargs)
    assert not model.compiled


def test_a_loss_scale_optimizer_step_compiles_and_skips_a_nonfinite_step_as_eagerly():
    """The LossScaleOptimizer's update is one node of the plan: its finiteness test (skip the step, halve the
    scale) and its growth run at each call with that call's gradients, the numbers those of the eager run."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 5)).astype(np.float32)
    y = np.ones((40, 2), np.float32)
    y[5, 0] = np.inf  # the first batch's gradient is not finite: that step is skipped
    runs = {}
    for jit in (False, True):
        ds.keras.utils.set_random_seed(1)
        model = ds.Sequential([ds.keras.Input((5,)), ds.layers.Dense(8), ds.layers.Dense(2)])
        opt = ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(0.1), initial_scale=2.0 ** 10, dynamic_growth_steps=2)
        model.compile(optimizer=opt, loss="mse", jit_compile=jit)
        model.fit(x, y, batch_size=10, epochs=2, verbose=0, shuffle=False)
        runs[jit] = (_weights(model), float(opt.dynamic_scale.numpy()), int(opt.iterations.numpy()), model)
    for a, b in zip(runs[True][0], runs[False][0]):
        np.testing.assert_array_equal(a, b)
    assert runs[True][1:3] == runs[False][1:3] == (1024.0, 6)  # halved once, doubled once; 2 of 8 steps skipped
    traced = runs[True][3].step_function("train").traced
    assert [cf.eager for cf in traced._list_all_concrete_functions()] == [None]  # a plan, not op by op


def test_fitting_many_models_gives_no_retracing_warning(caplog):
    # each model's compiled steps trace their own batch shapes: not the retracing TF's warning is about
    x, y, _, _ = _digits(70)  # batches of 32, 32 and 6: two traces per model
    with caplog.at_level("WARNING"):
        for _ in range(4):
            _mlp("auto").fit(x, y, batch_size=32, epochs=1, verbose=0)
    assert "traces of descend.function" not in caplog.text
