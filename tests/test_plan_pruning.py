"""A plan runs only what a function's results and side effects need: ops whose results nothing reads are pruned
(:meth:`descend.compiler.graph.Graph.prune`), so a Keras model built by its first call (inside the trace) runs the
plan of the same model built before."""

from __future__ import annotations

import collections

import numpy as np

import descend as ds


def _step(build_first: bool):
    ds.keras.utils.set_random_seed(0)
    model = ds.Sequential([ds.layers.Dense(64, activation="relu"), ds.layers.Dense(32, activation="relu"),
                           ds.layers.Dense(10)])
    if build_first:
        model.build((None, 20))
    opt = ds.optimizers.Adam(1e-3)
    loss_fn = ds.losses.SparseCategoricalCrossentropy(from_logits=True)

    @ds.function
    def step(x, y):
        with ds.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return model, step


def _ops(cf) -> collections.Counter:
    return collections.Counter(n.label() for n in cf.graph.walk())


def test_a_model_built_by_its_first_call_runs_the_plan_of_one_built_before():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 20)).astype(np.float32)
    y = rng.integers(0, 10, 16)
    runs = {}
    for first in (True, False):
        model, step = _step(first)
        losses = [step(x, y).numpy() for _ in range(4)]  # the second call builds the plan
        cf = step.get_concrete_function(x, y)
        assert cf.plan() is not None
        runs[first] = (losses, [w.numpy() for w in model.weights], _ops(cf), cf.plan())
    (l0, w0, ops0, plan0), (l1, w1, ops1, plan1) = runs[True], runs[False]
    assert ops0["matmul"] == 8  # 3 forward, 5 backward (no gradient of the input)
    assert ops1 == ops0  # the lazily built model's probe forward pass is gone
    assert plan1.pruned > 0 and plan0.pruned == 0
    assert [float(v) for v in l1] == [float(v) for v in l0]  # bit for bit
    for a, b in zip(w1, w0):
        np.testing.assert_array_equal(a, b)


def test_pruning_keeps_what_results_and_side_effects_read():
    v = ds.Variable([1.0, 2.0])

    @ds.function
    def f(x):
        dead = ds.matmul(ds.reshape(x, (1, 2)), ds.reshape(x, (2, 1)))  # noqa: F841 - nothing reads it
        v.assign_add(x * 2.0)  # a write: kept, with the op it reads
        return ds.reduce_sum(x)

    x = ds.constant([1.0, 3.0])
    f(x)
    out = f(x)
    cf = f.get_concrete_function(x)
    ops = _ops(cf)
    assert "matmul" not in ops and "reshape" not in ops
    assert ops["multiply"] == 1 and ops["reduce_sum"] == 1
    assert float(out) == 4.0
    np.testing.assert_array_equal(v.numpy(), [5.0, 14.0])


def test_a_random_draw_nothing_reads_still_advances_the_stream():
    """A draw is stateful: pruning it would change every later draw of the plan (a call makes it)."""

    def dead():
        ds.random.uniform((3,))  # unused, but it moves the generator
        return ds.random.uniform((2,))

    def live():
        first = ds.random.uniform((3,))
        return ds.random.uniform((2,)), first

    runs = []
    for body in (dead, live):
        ds.random.set_seed(5)
        f = ds.function(body)
        runs.append([np.asarray(f()[0] if body is live else f()) for _ in range(4)])  # calls 2-4 run the plan
        assert _ops(f.get_concrete_function())["random_draw"] == 2
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a, b)
