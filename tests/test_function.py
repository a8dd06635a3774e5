"""``descend.function``: traces give eager execution's numbers, side effects as TF's, and a plan that allocates
nothing in a steady state. (TensorFlow's own tests, ported, are in test_function_tf.py.)"""

from __future__ import annotations

import gc
import sys
import threading
import tracemalloc
import warnings

import numpy as np
import pytest

import descend as ds
from descend.compiler import FunctionEagerWarning

RNG = np.random.default_rng(0)


# ====================================================================== the training step
def _mlp(sizes, batch, seed=0):
    rng = np.random.default_rng(seed)
    ws = [rng.standard_normal((a, b), dtype=np.float32) * np.float32(np.sqrt(2.0 / a))
          for a, b in zip(sizes[:-1], sizes[1:])]
    bs = [rng.standard_normal(b, dtype=np.float32) * np.float32(0.1) for b in sizes[1:]]
    xs = [rng.standard_normal((batch, sizes[0]), dtype=np.float32) for _ in range(3)]
    ys = [rng.integers(0, sizes[-1], batch).astype(np.int64) for _ in range(3)]
    return ws, bs, xs, ys


def _step_fn(ws, bs, optimizer):
    W = [ds.Variable(w) for w in ws]
    B = [ds.Variable(b) for b in bs]
    variables = [v for pair in zip(W, B) for v in pair]
    last = len(W) - 1

    def step(x, y):
        with ds.GradientTape() as tape:
            h = x
            for i, (w, b) in enumerate(zip(W, B)):
                h = ds.matmul(h, w) + b
                if i < last:
                    h = ds.nn.relu(h)
            loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        return loss

    return step, variables


def _relative(a, b) -> float:
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-30))


@pytest.mark.parametrize("make_opt", [lambda: ds.optimizers.AdamW(1e-3, weight_decay=0.01),
                                      lambda: ds.optimizers.SGD(0.05, momentum=0.9)], ids=["adamw", "sgd"])
def test_compiled_step_agrees_with_eager_after_30_steps(make_opt):
    sizes, batch = (784, 64, 32, 10), 32
    ws, bs, xs, ys = _mlp(sizes, batch)
    eager, ve = _step_fn(ws, bs, make_opt())
    step, vc = _step_fn(ws, bs, make_opt())
    compiled = ds.function(step)
    le, lc = [], []
    for k in range(30):
        x, y = ds.constant(xs[k % 3]), ds.constant(ys[k % 3])
        le.append(eager(x, y).numpy())
        lc.append(compiled(x, y).numpy())
    assert compiled.experimental_get_tracing_count() == 1
    assert max(_relative(a, b) for a, b in zip(lc, le)) <= 1e-5
    for a, b in zip(vc, ve):
        assert _relative(a.numpy(), b.numpy()) <= 1e-5
    # the plan makes the eager ops' NumPy calls into its buffers: the same bits
    np.testing.assert_array_equal(np.array(lc), np.array(le))
    for a, b in zip(vc, ve):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_the_plans_prepared_update_follows_every_change_the_optimizer_sees():
    # a plan's optimizer node runs the batched step prepared once for its gradient buffers; each event below
    # must reach it as it reaches apply_gradients: the same bits as the eager step after every one
    from descend import _native
    from descend.optimizers import batched, bound

    sizes, batch = (784, 64, 32, 10), 32
    ws, bs, xs, ys = _mlp(sizes, batch)
    opts = [ds.optimizers.AdamW(1e-3, weight_decay=0.01), ds.optimizers.AdamW(1e-3, weight_decay=0.01)]
    eager, ve = _step_fn(ws, bs, opts[0])
    step, vc = _step_fn(ws, bs, opts[1])
    compiled = ds.function(step)
    events = {
        4: lambda opt, vs: setattr(opt, "clipnorm", 0.05),            # clipping: the general pipeline
        7: lambda opt, vs: setattr(opt, "clipnorm", None),
        9: lambda opt, vs: opt.exclude_from_weight_decay(var_list=[vs[1], vs[3]]),
        11: lambda opt, vs: bound.clear(opt),                         # the bound plans forgotten
        13: lambda opt, vs: setattr(opt, "learning_rate", 3e-3),
        15: lambda opt, vs: setattr(opt, "on_nonfinite", "apply"),
    }
    before = batched.stats["steps"]
    previous = _native.set_threads_on(None)
    try:
        for k in range(18):
            for opt, vs in zip(opts, (ve, vc)):
                if k in events:
                    events[k](opt, vs)
            if k == 16:
                _native.set_threads_on(False)  # (a thread count of one from here: the chunk list follows)
            x, y = ds.constant(xs[k % 3]), ds.constant(ys[k % 3])
            le, lc = eager(x, y).numpy(), compiled(x, y).numpy()
            assert le.tobytes() == lc.tobytes(), k
            for a, b in zip(vc, ve):
                assert a.numpy().tobytes() == b.numpy().tobytes(), k
    finally:
        _native.set_threads_on(previous)
    assert opts[1].iterations.numpy() == opts[0].iterations.numpy() == 18
    assert batched.stats["steps"] - before >= 2 * 10  # (both took the batched step outside steps 4-6)
    # a NaN gradient under the default policy: the prepared step gives way to the general one, which raises
    # naming the variable, with nothing changed
    values = [v.numpy().copy() for v in vc]
    opts[1].on_nonfinite = "raise"
    bad = ds.constant(np.full_like(xs[0], np.nan))
    with pytest.raises(Exception, match="NaN|nan|finite"):
        compiled(bad, ds.constant(ys[0]))
    assert all(v.numpy().tobytes() == w.tobytes() for v, w in zip(vc, values))
    assert opts[1].iterations.numpy() == 18


def test_a_plans_update_of_variable_arguments_updates_the_variables_of_each_call():
    # two Variables alike share a trace: the prepared update of the first call's Variables must not write them
    # when the next call passes others
    opt = ds.optimizers.SGD(0.5)
    a, b = ds.Variable([1.0, 2.0]), ds.Variable([10.0, 20.0])

    @ds.function
    def f(v, x):
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(v * x)
        opt.apply_gradients([(tape.gradient(loss, v), v)])

    x = ds.constant([1.0, 1.0])
    for v in (a, b, a, b, b, a):
        f(v, x)
    assert f.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(a.numpy(), [1.0 - 1.5, 2.0 - 1.5])
    np.testing.assert_array_equal(b.numpy(), [10.0 - 1.5, 20.0 - 1.5])


def test_steady_state_allocates_nothing():
    ws, bs, xs, ys = _mlp((64, 32, 10), 16)
    step, _ = _step_fn(ws, bs, ds.optimizers.AdamW(1e-3, weight_decay=0.01))
    compiled = ds.function(step)
    x, y = ds.constant(xs[0]), ds.constant(ys[0])
    for _ in range(20):  # trace, plan, the optimizer's state and remembered lists
        compiled(x, y)
    gc.collect()
    tracemalloc.start()
    try:
        for _ in range(50):
            compiled(x, y)
        gc.collect()
        before = tracemalloc.take_snapshot()
        for _ in range(1000):
            compiled(x, y)
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(s.size_diff for s in after.compare_to(before, "filename") if s.size_diff > 0)
    assert grown < 16 * 1024, [str(s) for s in after.compare_to(before, "lineno")[:10]]
    plan_files = [s for s in after.compare_to(before, "filename")
                  if "descend/compiler" in s.traceback[0].filename and s.count_diff > 0]
    assert not plan_files, plan_files


def test_results_are_not_the_plans_buffers():
    @ds.function
    def f(x):
        return x * 2.0, ds.reduce_sum(x)

    a, s = f(ds.constant([1.0, 2.0]))
    b, t = f(ds.constant([3.0, 4.0]))
    c, u = f(ds.constant([5.0, 6.0]))
    np.testing.assert_array_equal(a.numpy(), [2.0, 4.0])  # earlier results keep their values
    np.testing.assert_array_equal(b.numpy(), [6.0, 8.0])
    np.testing.assert_array_equal(c.numpy(), [10.0, 12.0])
    assert (float(s), float(t), float(u)) == (3.0, 7.0, 11.0)


def test_embedding_step_with_sparse_gradients_agrees_with_eager():
    def make():
        table = ds.Variable(np.arange(40, dtype=np.float32).reshape(20, 2) / 10)
        opt = ds.optimizers.Adam(0.1)

        def step(ids):
            with ds.GradientTape() as tape:
                e = ds.nn.embedding_lookup(table, ids)
                loss = ds.reduce_sum(e * e) + ds.reduce_sum(ds.gather(table, ids))
            grads = tape.gradient(loss, [table])
            assert isinstance(grads[0], ds.IndexedSlices)
            opt.apply_gradients(zip(grads, [table]))
            return loss
        return step, table

    eager, te = make()
    step, tc = make()
    compiled = ds.function(step)
    for _k in range(6):
        ids = ds.constant(RNG.integers(0, 20, 5))
        assert float(eager(ids)) == float(compiled(ids))
        np.testing.assert_array_equal(te.numpy(), tc.numpy())
    assert compiled.experimental_get_tracing_count() == 1


def test_dropout_draws_a_new_mask_on_every_call():
    layer = ds.layers.Dropout(0.5, seed=7)
    reference = ds.layers.Dropout(0.5, seed=7)
    compiled = ds.function(lambda x: layer(x, training=True))
    x = ds.ones((64,))
    masks = [compiled(x).numpy() for _ in range(4)]
    assert not all(np.array_equal(masks[0], m) for m in masks[1:])
    for m in masks:  # the same stream as eager calls of a layer seeded alike
        np.testing.assert_array_equal(m, reference(x, training=True).numpy())


# ====================================================================== side effects, variables
def test_assignments_and_ds_print_happen_on_every_call_python_print_once(capsys):
    v = ds.Variable(0.0)

    @ds.function
    def f(x):
        print("python print")
        v.assign_add(x)
        ds.print("v =", v, output_stream=sys.stdout)
        return v.read_value() * 2.0

    outs = [float(f(ds.constant(1.0))) for _ in range(3)]
    assert outs == [2.0, 4.0, 6.0]
    assert capsys.readouterr().out.splitlines() == ["python print", "v = 1", "v = 2", "v = 3"]


def test_get_concrete_function_changes_nothing(capsys):
    v = ds.Variable([1.0, 2.0])
    w = ds.Variable([1.0, 1.0])
    opt = ds.optimizers.SGD(0.5)

    @ds.function
    def step(x):
        v.assign_add(x)
        ds.print("printed", output_stream=sys.stdout)
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(w * x)
        opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
        return v.read_value()

    cf = step.get_concrete_function(ds.constant([1.0, 1.0]))
    assert capsys.readouterr().out == ""
    np.testing.assert_array_equal(v.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(w.numpy(), [1.0, 1.0])
    assert int(opt.iterations) == 0
    np.testing.assert_array_equal(cf(ds.constant([1.0, 1.0])).numpy(), [2.0, 3.0])  # now it runs
    np.testing.assert_array_equal(w.numpy(), [0.5, 0.5])
    assert capsys.readouterr().out == "printed\n"
    assert step.experimental_get_tracing_count() == 1


def test_variables_created_on_a_later_trace_raise():
    made = []

    @ds.function
    def f(x):
        made.append(ds.Variable(x))
        return made[-1] * 2.0

    assert float(f(ds.constant(1.0))) == 2.0  # the first trace may create (and keep) variables
    with pytest.raises(ValueError, match="singleton Variables created on the first call"):
        f(ds.constant([1.0]))


def test_a_variable_written_outside_the_recorded_methods_makes_the_function_eager():
    v = ds.Variable([1.0, 2.0])

    @ds.function
    def f(x):
        v._value[...] += 1.0  # an untraceable write, announced as the optimizers' kernels do
        v._mark_updated()
        return x + v

    with pytest.warns(FunctionEagerWarning, match="writes variable"):
        out = f(ds.constant([0.0, 0.0]))
    np.testing.assert_array_equal(out.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(f(ds.constant([0.0, 0.0])).numpy(), [3.0, 4.0])  # eager: done again


def test_python_reading_a_computed_value_makes_the_function_eager_and_right():
    seen = []

    @ds.function
    def f(x):
        y = x * 2.0
        seen.append(float(np.asarray(y).sum()))  # host code on a computed value
        return y + 1.0

    with pytest.warns(FunctionEagerWarning, match="reads the value of a Tensor computed inside it"):
        assert f(ds.constant([1.0])).numpy()[0] == 3.0
    assert f(ds.constant([5.0])).numpy()[0] == 11.0
    assert seen == [2.0, 10.0]  # runs eagerly: the Python runs on every call


def test_python_bool_of_a_computed_tensor_names_the_line():
    @ds.function
    def f(x):
        while True:  # a loop with break is not converted
            if x > 0:
                break
            x = x + 1.0
        return x

    with pytest.raises(ds.errors.OperatorNotAllowedInGraphError, match=r"test_function.py:\d+: `if x > 0:`"):
        f(ds.constant(1.0))


def test_out_of_range_ids_raise_in_the_plan_too():
    table = ds.Variable(np.zeros((4, 2), np.float32))

    @ds.function
    def f(ids):
        return ds.gather(table, ids)

    f(ds.constant([0, 1]))
    f(ds.constant([2, 3]))
    with pytest.raises(ds.InvalidArgumentError, match="gather"):
        f(ds.constant([1, 9]))


def test_gradients_flow_through_a_compiled_call():
    w = ds.Variable([1.0, 2.0])

    @ds.function
    def f(x):
        return ds.reduce_sum(w * x * x)

    x = ds.constant([3.0, 4.0])
    f(x)  # traced without a tape; later calls under a tape run op by op
    for _ in range(2):
        with ds.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        gx, gw = tape.gradient(y, [x, w])
        np.testing.assert_array_equal(gx.numpy(), [6.0, 16.0])
        np.testing.assert_array_equal(gw.numpy(), [9.0, 16.0])


def test_concurrent_calls_of_one_plan():
    @ds.function
    def f(x):
        return ds.reduce_sum(x * 3.0)

    f(ds.constant([1.0, 1.0]))
    results = {}

    def worker(k):
        results[k] = [float(f(ds.constant([float(k), 1.0]))) for _ in range(50)]

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(r == [3.0 * (k + 1)] * 50 for k, r in results.items())


# ====================================================================== control flow
def test_cond_and_while_loop_outside_a_function():
    assert float(ds.cond(ds.constant(True), lambda: ds.constant(1.0), lambda: ds.constant(2.0))) == 1.0
    assert ds.cond(False, lambda: 1, lambda: 2) == 2
    i, s = ds.while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + i), (ds.constant(0), ds.constant(0)))
    assert (int(i), int(s)) == (5, 10)
    (n,) = ds.while_loop(lambda n: n < 100, lambda n: (n * 2,), [ds.constant(1)], maximum_iterations=3)
    assert int(n) == 8
    with pytest.raises(TypeError, match="must be callable"):
        ds.cond(True, 1, lambda: 2)


def test_cond_in_a_function_takes_only_the_branch_its_predicate_picks(capsys):
    v = ds.Variable(0.0)

    @ds.function
    def f(x):
        print("traced")
        return ds.cond(x > 0, lambda: v.assign_add(x).read_value(), lambda: v.assign_sub(1.0).read_value())

    assert float(f(ds.constant(2.0))) == 2.0  # the branch not taken was traced dry: no write
    assert float(f(ds.constant(-5.0))) == 1.0
    assert float(f(ds.constant(3.0))) == 4.0
    assert float(v) == 4.0
    assert capsys.readouterr().out == "traced\n"


def test_cond_branches_must_agree():
    @ds.function
    def f(x):
        return ds.cond(x > 0, lambda: x, lambda: ds.cast(x, ds.int32))

    with pytest.raises(TypeError, match="different dtypes"):
        f(ds.constant(1.0))


def test_while_loop_in_a_function_runs_as_many_times_as_each_call_needs():
    @ds.function
    def steps(n):
        def body(n, k):
            return ds.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1), k + 1
        return ds.while_loop(lambda n, k: n > 1, body, (n, 0))[1]

    assert [int(steps(ds.constant(n))) for n in (1, 6, 27)] == [0, 8, 111]
    assert steps.experimental_get_tracing_count() == 1


def test_while_loop_variables_must_keep_their_shapes():
    @ds.function
    def f(x):
        return ds.while_loop(lambda x: ds.reduce_sum(x) < 10.0, lambda x: ds.concat([x, x], 0), [x])

    with pytest.raises(ValueError, match="keep their shapes"):
        f(ds.constant([1.0]))


def test_autograph_converts_plain_if_while_and_for_range():
    @ds.function
    def f(x, n):
        total = ds.constant(0.0)
        i = 0
        while i < n:
            if x > 0:
                total += x
            elif x < -10:
                total -= 1.0
            else:
                total += 0.5
            i += 1
        for k in range(n):
            total += ds.cast(k, ds.float32)
        return total

    def reference(x, n):
        step = x if x > 0 else (-1.0 if x < -10 else 0.5)
        return n * step + sum(range(n))

    for x, n in [(2.0, 3), (-20.0, 4), (-1.0, 0), (0.5, 7)]:
        assert float(f(ds.constant(x), ds.constant(n))) == reference(x, n)
    assert f.experimental_get_tracing_count() == 1


def test_autograph_leaves_python_conditions_to_python(capsys):
    @ds.function
    def f(x, training):
        if training:  # a Python bool: traced once per value
            print("training branch")
            x = x * 2.0
        return x

    assert float(f(ds.constant(1.0), True)) == 2.0
    assert float(f(ds.constant(1.0), False)) == 1.0
    assert float(f(ds.constant(3.0), True)) == 6.0
    assert capsys.readouterr().out == "training branch\n"


def test_autograph_if_with_returns():
    @ds.function
    def sign(x):
        if x > 0:
            return 1.0
        if x < 0:
            return -1.0
        return 0.0

    assert [float(sign(ds.constant(v))) for v in (3.0, -2.0, 0.0)] == [1.0, -1.0, 0.0]
    assert sign.experimental_get_tracing_count() == 1


def test_autograph_variable_assigned_in_one_branch_only():
    @ds.function
    def f(x):
        if x > 0:
            y = x
        return y  # noqa: F821

    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        f(ds.constant(1.0))


def test_nested_function_traced_inline_and_reused():
    calls = []

    @ds.function
    def inner(x):
        calls.append(1)
        return x * 3.0

    @ds.function
    def outer(x):
        return inner(x) + 1.0

    assert float(outer(ds.constant(1.0))) == 4.0
    assert float(outer(ds.constant(2.0))) == 7.0
    assert float(inner(ds.constant(2.0))) == 6.0  # its own trace from the first call
    assert calls == [1]


def test_plan_source_shows_one_call_per_node():
    w = ds.Variable(np.ones((4, 3), np.float32))

    @ds.function
    def f(x):
        return ds.nn.relu(ds.matmul(x, w))

    x = ds.constant(np.ones((2, 4), np.float32))
    f(x)
    f(x)
    plan = f.get_concrete_function(x).plan()
    assert plan is not None and "run(" in plan.source
    assert "_asarray" not in plan.source  # matmul and relu are lowered: no op runs its generic forward


def test_run_functions_eagerly():
    calls = []

    @ds.function
    def f(x):
        calls.append(1)
        return x + 1

    ds.config.run_functions_eagerly(True)
    try:
        f(ds.constant(1.0))
        f(ds.constant(1.0))
    finally:
        ds.config.run_functions_eagerly(False)
    assert calls == [1, 1]
    assert f.experimental_get_tracing_count() == 0


def test_keras_style_training_loop_compiles_with_its_loss_and_metric():
    def make():
        ds.clear_session()
        ds.random.set_seed(5)
        model = ds.Sequential([ds.layers.Dense(16, activation="relu"), ds.layers.Dense(3)])
        model.build((None, 8))
        loss_fn = ds.losses.SparseCategoricalCrossentropy(from_logits=True)
        metric = ds.metrics.SparseCategoricalAccuracy()
        opt = ds.optimizers.Adam(0.01)

        def step(x, y):
            with ds.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_weights)
            opt.apply_gradients(zip(grads, model.trainable_weights))
            metric.update_state(y, logits)
            return loss, metric.result()
        return step, model, metric

    eager, me, ke = make()
    step, mc, kc = make()
    compiled = ds.function(step)
    rng = np.random.default_rng(3)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FunctionEagerWarning)  # nothing in the loop makes it run eagerly
        for _ in range(8):
            x = ds.constant(rng.standard_normal((10, 8), dtype=np.float32))
            y = ds.constant(rng.integers(0, 3, 10))
            (le, ae), (lc, ac) = eager(x, y), compiled(x, y)
            assert float(le) == float(lc) and float(ae) == float(ac)
    for a, b in zip(me.weights, mc.weights):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert compiled.experimental_get_tracing_count() == 1
    assert any(n.kind == "opaque" and "update_state" in n.payload.name
               for n in compiled.get_concrete_function(x, y).graph.nodes)


# ====================================================================== fusion
_SPECIAL = np.array([np.nan, -0.0, 0.0, 1.5, -2.5, np.inf, -np.inf, 3e38, -1e-45], np.float32)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_fused_loops_give_the_eager_bits(dtype):
    rng = np.random.default_rng(4)
    x = rng.standard_normal((6, 9)).astype(dtype)
    x[0] = _SPECIAL.astype(dtype)
    y = rng.standard_normal((6, 9)).astype(dtype)
    y[1, :] = _SPECIAL[::-1].astype(dtype)
    row = rng.standard_normal(9).astype(dtype)
    col = rng.standard_normal((6, 1)).astype(dtype)

    def chain(x, y, row, col):
        a = ds.maximum(x, y) + row
        b = ds.minimum(a, col) * 2.0 - y / 3.0
        c = ds.nn.relu(b) + ds.cast(ds.greater(x, y), x.dtype) * ds.square(a)
        d = ds.where(ds.less_equal(c, 1.0), c, -c)  # (where is not fused: the run ends before it)
        e = ds.abs(ds.negative(d)) * ds.sqrt(ds.abs(a))
        return e, ds.reduce_sum(ds.nn.relu(e) * col, axis=0)

    args = [ds.constant(v) for v in (x, y, row, col)]
    compiled = ds.function(chain)
    with np.errstate(all="ignore"):
        expected = [t.numpy() for t in chain(*args)]
        for _ in range(2):
            got = [t.numpy() for t in compiled(*args)]
            for g, e in zip(got, expected):
                np.testing.assert_array_equal(g, e)
                assert np.array_equal(np.signbit(g), np.signbit(e))
    plan = compiled.get_concrete_function(*args).plan()
    assert plan.fused >= 2 and "colsum" in plan.source


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape,axis,keepdims", [((64,), None, False), ((64, 10), 0, False), ((64, 10), -1, True),
                                                 ((7, 5, 3), (0, 2), False), ((1000, 33), None, True),
                                                 ((0, 4), 0, False), ((5, 0), 1, True)])
def test_compiled_reductions_and_division_by_a_number_give_the_eager_bits(dtype, shape, axis, keepdims):
    # a plan calls the ufuncs' reduce and divides a mean's sum itself (as np.mean does): the bits, dtypes and
    # shapes of eager, float16's float32 mean and an empty mean's NaN included; dividing by a number warns
    # no more than eager
    x = ds.constant((np.random.default_rng(len(shape)).standard_normal(shape) * 100).astype(dtype))
    ops = [ds.reduce_sum, ds.reduce_mean] + ([ds.reduce_max, ds.reduce_min] if 0 not in shape else [])

    def f(t):
        return [op(t, axis=axis, keepdims=keepdims) for op in ops] + [t / 3.0, t * 2.0 / -7]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # (the mean of nothing)
        want = [t.numpy() for t in f(x)]
        compiled = ds.function(f)
        for _ in range(2):
            got = [t.numpy() for t in compiled(x)]
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        if 0 not in shape:
            compiled(x)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_compiled_add_n_sums_in_the_eager_order_with_no_callback(dtype):
    # a sum of many tensors of mixed magnitudes (the order decides the last bits) and Variables, and its
    # gradient: the eager bits, no op run as a callback
    rng = np.random.default_rng(11)
    top = 1 if dtype == np.float16 else 4  # (float16's sum of squares stays finite)
    vs = [ds.Variable((rng.standard_normal((3, 4)) * 10.0 ** rng.integers(-3, top)).astype(dtype)) for _ in range(5)]

    def f(x):
        with ds.GradientTape() as tape:
            total = ds.add_n([x * 3.0, *vs, x, ds.square(x)])
            loss = ds.reduce_sum(total * total)
        return [total, *tape.gradient(loss, vs)]

    x = ds.constant((rng.standard_normal((3, 4)) * 10.0 ** (top - 1)).astype(dtype))
    want = [t.numpy() for t in f(x)]
    compiled = ds.function(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            got = [t.numpy() for t in compiled(x)]
            for g, w in zip(got, want):
                assert g.dtype == w.dtype and g.shape == w.shape and g.tobytes() == w.tobytes()
    assert "np.add(" in compiled.get_concrete_function(x).plan().source


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 10), (3, 5, 7), (1, 1), (6,)])
def test_compiled_activations_and_where_give_the_eager_bits_and_gradients(dtype, shape):
    # sigmoid, softmax and log_softmax, softmax cross-entropy (labels broadcast; last and first axis), leaky_relu,
    # elu, rsqrt, where, squared_difference, zeros_like, ones_like and views of a Variable (copies, as eager)
    # lower to their forwards' NumPy calls: the eager values
    # and gradients bit for bit (NaN, +-inf and -0.0 included), and no op runs as a callback
    rng = np.random.default_rng(len(shape))
    values = (rng.standard_normal(shape) * 8).astype(dtype)
    flat = values.reshape(-1)
    flat[:4] = np.array([np.nan, np.inf, -np.inf, -0.0], dtype)[:flat.size]
    x = ds.Variable(values)
    y = ds.constant(rng.standard_normal(shape[-1:]).astype(dtype))

    def f():
        with ds.GradientTape() as tape:
            outs = [ds.nn.sigmoid(x), ds.nn.softmax(x), ds.nn.softmax(x, axis=0), ds.nn.leaky_relu(x, alpha=0.3),
                    ds.nn.elu(x), ds.where(x > 0.5, x, ds.zeros_like(x) - y), ds.math.squared_difference(x, y),
                    ds.ones_like(x) * x, ds.math.rsqrt(x), ds.reshape(x, [-1]), ds.transpose(x), ds.nn.log_softmax(x),
                    ds.nn.softmax_cross_entropy_with_logits(labels=ds.nn.softmax(y * 1.0), logits=x),
                    ds.nn.softmax_cross_entropy_with_logits(labels=ds.nn.softmax(x * 0.5, axis=0), logits=x, axis=0)]
            loss = ds.add_n([ds.reduce_sum(o * (k + 1.0)) for k, o in enumerate(outs)])
        return [*outs, tape.gradient(loss, x)]

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        want = [t.numpy() for t in f()]
        compiled = ds.function(f)
        with warnings.catch_warnings():
            for _ in range(2):
                got = [t.numpy() for t in compiled()]
                for k, (g, w) in enumerate(zip(got, want)):
                    assert g.dtype == w.dtype and g.shape == w.shape, k
                    # (bits, NaN where eager has NaN: the sign of a NaN that two NaN gradients add up to follows
                    # the order the sum takes its operands in, which the plan's accumulation does not promise)
                    nan = np.isnan(w)
                    assert (np.isnan(g) == nan).all() and g[~nan].tobytes() == w[~nan].tobytes(), k
    source = compiled.get_concrete_function().plan().source
    assert "np.copyto(" in source and "_asarray(" not in source  # (a callback's result goes through _asarray)


def test_a_view_of_a_variable_in_a_plan_is_the_value_it_had_then():
    v = ds.Variable(np.arange(6.0, dtype=np.float32).reshape(2, 3))

    @ds.function
    def f():
        before = ds.reshape(v, [3, 2])
        v.assign_add(ds.ones_like(v))
        return before, ds.transpose(v)

    for k in range(3):
        before, after = f()
        np.testing.assert_array_equal(before.numpy(), (np.arange(6.0).reshape(2, 3) + k).reshape(3, 2))
        np.testing.assert_array_equal(after.numpy(), (np.arange(6.0).reshape(2, 3) + k + 1).T)


def _flat(t):
    return [y for x in t for y in (_flat(x) if isinstance(x, tuple) else [x])]


def test_calls_with_python_values_and_defaults_take_the_fast_path_and_keep_the_retracing_rules():
    # fit's step is called as step(x, y, None, n_local, n_global, key): Tensors, None, ints and a tuple of ids,
    # with a parameter that has a default. The fast path must tell apart what the signature tells apart: 1, 1.0
    # and True; (1, 2) and (1.0, 2); shapes and dtypes
    traces = []

    @ds.function
    def f(x, n, k, key=None):
        traces.append((type(n).__name__, k))
        return x * n + (0.0 if key is None else float(sum(_flat(key))))

    x = ds.constant([1.0, 2.0])
    calls = [(x, 1, "a", (1, 2)), (x, 1.0, "a", (1, 2)), (x, True, "a", (1, 2)), (x, 1, "a", (1.0, 2)),
             (x, 1, "b", (1, 2)), (x, 1, "a", None), (ds.constant([1.0, 2.0, 3.0]), 1, "a", (1, 2)),
             (np.array([1.0, 2.0]), 1, "a", (1, 2)), (x, 1, "a", (1, (2,), ())), (x, 1, "a", (1, (2.0,), ()))]
    for _ in range(3):
        for args in calls:
            want = np.asarray(args[0]) * args[1] + (0.0 if args[3] is None else float(sum(_flat(args[3]))))
            np.testing.assert_allclose(np.asarray(f(*args)), want.astype(np.float32))
    assert f.experimental_get_tracing_count() == len(traces) == 10  # (the float64 array: a trace of its own)
    assert len(f._fast) == 10


def test_an_optimizer_node_finds_each_buffers_tensor_by_a_lookup():
    # the plan hands the optimizer the same gradient buffers each call, and the node hands it the same Tensors
    # over them; finding them must not compare every buffer with every other (a list searched per gradient:
    # 400 variables took 10 ms a step)
    from descend.compiler.nodes import OptimizerNode

    vs = [ds.Variable(np.ones(2, np.float32)) for _ in range(300)]
    opt = ds.optimizers.SGD(0.1, clipnorm=100.0)  # (clipping: the public method, not the batched step)
    seen = []

    @ds.function
    def step(x):
        with ds.GradientTape() as tape:
            loss = ds.add_n([ds.reduce_sum(v * x) for v in vs])
        opt.apply_gradients(zip(tape.gradient(loss, vs), vs))

    x = ds.constant(np.ones(2, np.float32))
    step(x)
    node = next(n.payload for n in step.get_concrete_function(x).graph.nodes
                if isinstance(getattr(n, "payload", None), OptimizerNode))
    from descend.optimizers.bound import BoundUpdate

    prepare = BoundUpdate.prepare

    def spy(self, pairs, **kw):
        seen.append([g for g, _ in pairs])
        return prepare(self, pairs, **kw)

    BoundUpdate.prepare = spy
    try:
        step(x)
        step(x)
    finally:
        BoundUpdate.prepare = prepare
    assert len(seen) == 2 and all(a is b for a, b in zip(*seen))
    assert isinstance(node._wrapped, dict) and len(node._wrapped) == 300
    assert all(found[0] is t._value for found, t in zip(node._wrapped.values(), seen[0]))
    np.testing.assert_allclose(vs[0].numpy(), 1.0 - 0.3, rtol=1e-6)


def test_a_reshape_that_copies_is_made_at_every_run():
    # the transposed product cannot be reshaped in place: a plan that copied it once, when it was built, would
    # return that moment's values (uninitialized memory) at every call
    def f(a, b):
        t = ds.transpose(ds.matmul(a, b))
        return ds.reshape(t, [-1]) * 2.0, ds.reshape(ds.broadcast_to(ds.reduce_sum(t, axis=0), [3, 4]), [12]) + 1.0

    compiled = ds.function(f)
    rng = np.random.default_rng(7)
    for _ in range(3):
        a, b = (ds.constant(rng.standard_normal(s).astype(np.float32)) for s in ((4, 5), (5, 3)))
        for got, want in zip(compiled(a, b), f(a, b)):
            np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_plans_without_fusion_make_numpy_calls_only():
    from descend.compiler import plan as plan_module

    b = ds.Variable(np.zeros(4, np.float32))
    f = ds.function(lambda x: ds.nn.relu(x + b))
    x = ds.ones((3, 4))
    with plan_module.options(fuse=False):
        f(x)
        np.testing.assert_array_equal(f(x).numpy(), np.ones((3, 4), np.float32))
    assert f.get_concrete_function(x).plan().fused == 0
    with pytest.raises(TypeError, match="unknown option"):
        with plan_module.options(unroll=True):
            pass


def test_softmax_cross_entropy_kernels_check_labels_as_the_op_does():
    logits = ds.Variable(np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32))

    @ds.function
    def f(labels):
        with ds.GradientTape() as tape:
            loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
        return loss, tape.gradient(loss, logits)

    good = ds.constant([0, 2, 1, 1])
    eager = f.python_function(good)
    f(good)
    for a, b in zip(f(good), eager):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    with pytest.raises(ds.InvalidArgumentError, match="label"):
        f(ds.constant([0, 3, 1, 1]))


def _train(build, xshape, compiled, steps=3):
    ds.clear_session()
    ds.random.set_seed(1)
    model = build()
    model.build((None,) + xshape)
    loss_fn = ds.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = ds.optimizers.Adam(0.01)

    def step(x, y):
        with ds.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_weights)
        opt.apply_gradients(zip(grads, model.trainable_weights))
        return loss

    f = ds.function(step) if compiled else step
    rng = np.random.default_rng(0)
    losses = [float(f(ds.constant(rng.standard_normal((4,) + xshape).astype(np.float32)),
                      ds.constant(rng.integers(0, 3, 4)))) for _ in range(steps)]
    return losses, [v.numpy() for v in model.weights]


@pytest.mark.parametrize("build,xshape", [
    (lambda: ds.Sequential([ds.layers.Conv2D(4, 3, activation="relu"), ds.layers.MaxPooling2D(),
                            ds.layers.Flatten(), ds.layers.Dropout(0.3, seed=5), ds.layers.Dense(3)]), (8, 8, 2)),
    # global pooling's gradient is a broadcast the plan must not copy once when it builds (it reads it at each run)
    (lambda: ds.Sequential([ds.layers.Conv2D(4, 3, activation="relu"), ds.layers.GlobalAveragePooling2D(),
                            ds.layers.Dense(3)]), (8, 8, 2)),
    (lambda: ds.Sequential([ds.layers.LSTM(5), ds.layers.Dense(3)]), (6, 3)),
    (lambda: ds.Sequential([ds.layers.GRU(5, dropout=0.2, seed=5), ds.layers.Dense(3)]), (6, 3)),
    (lambda: ds.Sequential([ds.layers.Dense(8, activation="tanh"), ds.layers.LayerNormalization(),
                            ds.layers.Dense(3)]), (5,)),
], ids=["cnn_dropout", "cnn_global_pooling", "lstm", "gru_dropout", "layernorm"])
def test_compiled_layers_train_as_eager(build, xshape):
    with warnings.catch_warnings():
        warnings.simplefilter("error", FunctionEagerWarning)
        compiled = _train(build, xshape, True)
    eager = _train(build, xshape, False)
    assert compiled[0] == eager[0]
    for a, b in zip(compiled[1], eager[1]):
        np.testing.assert_array_equal(a, b)


def test_batch_normalization_statistics_compile_and_train_as_eager():
    # the moving statistics are updated with ops (recorded), not from NumPy reads of the batch's mean
    build = lambda: ds.Sequential([ds.layers.Dense(8), ds.layers.BatchNormalization(), ds.layers.Dense(3)])  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("error", FunctionEagerWarning)
        compiled = _train(build, (5,), True)
    eager = _train(build, (5,), False)
    assert compiled[0] == eager[0]
    for a, b in zip(compiled[1], eager[1]):
        np.testing.assert_array_equal(a, b)


def test_an_op_without_a_compiled_form_warns_once_and_runs_its_forward(monkeypatch):
    from descend.compiler import plan as plan_module

    monkeypatch.setattr(plan_module, "_warned", set())
    f = ds.function(lambda x: ds.cumsum(x * 2.0))
    x = ds.constant([1.0, 2.0])
    f(x)
    with pytest.warns(plan_module.PlanCallbackWarning, match="op 'cumsum' has no compiled form"):
        out = f(x)  # the second call builds the plan
    np.testing.assert_array_equal(out.numpy(), [2.0, 6.0])
    g = ds.function(lambda x: ds.cumsum(x))
    g(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", plan_module.PlanCallbackWarning)
        g(x)  # once per op name


def test_a_dropped_compiled_step_leaves_no_reference_cycle():
    # (as TF's assert_no_garbage_created): its Variables, plan and buffers go when the function goes
    import weakref

    def make():
        w = ds.Variable(np.ones((3, 2), np.float32))
        opt = ds.optimizers.Adam(0.1)

        @ds.function
        def step(x):
            with ds.GradientTape() as tape:
                loss = ds.reduce_sum(ds.nn.relu(ds.matmul(x, w)))
            opt.apply_gradients(zip(tape.gradient(loss, [w]), [w]))
            return ds.cond(loss > 0, lambda: loss, lambda: -loss)

        x = ds.ones((4, 3))
        for _ in range(3):
            step(x)
        return weakref.ref(w), weakref.ref(step)

    gc.collect()
    gc.disable()
    try:
        w, step = make()
        assert w() is None and step() is None
    finally:
        gc.enable()


# ====================================================================== threads or one thread
def _run_choice(c, calls, time_of):
    seen = []
    for _ in range(calls):
        on = c.threads()
        seen.append(on)
        c.record(time_of(on))
    return seen


@pytest.fixture
def steady_load(monkeypatch):
    from descend import _native

    load = {"idle": True}
    monkeypatch.setattr(_native, "idle_core", lambda: load["idle"])
    return load


def test_a_plan_keeps_the_faster_way_and_tries_again_later(steady_load):
    from descend.compiler.plan import ThreadChoice

    trial = [True] * (ThreadChoice.TRIAL + 1) + [False] * (ThreadChoice.TRIAL + 1)
    for faster_on in (True, False):
        c = ThreadChoice()
        # the two ways close (1.2x): a trial every EVERY calls
        seen = _run_choice(c, c.WARM + 2 * c.EVERY + len(trial), lambda on: 1.0 if on == faster_on else 1.2)
        w = c.WARM
        assert seen[:w] == [None] * w                          # warm-up calls: threads while a core is idle
        assert seen[w:w + len(trial)] == trial                 # a trial: threads forced on, then off
        again = w + len(trial) + c.EVERY
        assert set(seen[w + len(trial):again]) == {faster_on}  # then the faster way, EVERY calls
        assert seen[again:again + len(trial)] == trial         # and a trial again
        assert c.on is faster_on


def test_a_way_far_slower_is_tried_less_and_less_often(steady_load):
    from descend.compiler.plan import ThreadChoice

    c = ThreadChoice()
    n = ThreadChoice.TRIAL + 1
    seen = _run_choice(c, 60000, lambda on: 1.0 if on is not True else 3.0)  # threads 3x slower: a busy machine
    starts = [k for k in range(1, len(seen)) if seen[k] is True and seen[k - 1] is not True]
    gaps = [b - a - 2 * n for a, b in zip(starts, starts[1:])]  # calls between one trial's end and the next
    assert gaps[:5] == [2 * c.EVERY, 4 * c.EVERY, 8 * c.EVERY, c.LONGEST, c.LONGEST]
    assert c.on is False
    # the ways come close again: back to a trial every EVERY calls
    seen = _run_choice(c, 3 * c.LONGEST, lambda on: 1.0 if on is True else 1.1)
    starts = [k for k in range(1, len(seen)) if seen[k] is True and seen[k - 1] is not True]
    assert [b - a - 2 * n for a, b in zip(starts, starts[1:])][-3:] == [c.EVERY] * 3 and c.on is True


def test_a_trial_does_not_count_the_first_call_after_a_switch(steady_load):
    # that call pays for moving the data between the cores' caches: it says nothing about the way itself
    from descend.compiler.plan import ThreadChoice

    c = ThreadChoice()
    for _ in range(c.WARM):
        c.threads()
        c.record(1.0)
    for k in range(2 * (c.TRIAL + 1)):
        on = c.threads()
        first = k in (0, c.TRIAL + 1)
        c.record(100.0 if first else (1.0 if on else 1.5))
    assert c.on is True


def test_a_change_of_load_starts_a_trial_at_once(steady_load):
    from descend.compiler.plan import ThreadChoice

    c = ThreadChoice()
    n = ThreadChoice.TRIAL + 1
    _run_choice(c, c.WARM + 2 * n + 10, lambda on: 1.0 if on else 2.0)
    assert c.on is True and c.threads() is True
    steady_load["idle"] = False  # two CPU-bound processes started
    seen = _run_choice(c, 2 * n + 5, lambda on: 1.0 if on is False else 3.0)
    assert seen[:2 * n] == [True] * n + [False] * n and set(seen[2 * n:]) == {False} and c.on is False
    steady_load["idle"] = True  # and stopped
    seen = _run_choice(c, 2 * n + 5, lambda on: 1.0 if on else 2.0)
    assert seen[:2 * n] == [True] * n + [False] * n and set(seen[2 * n:]) == {True}


def test_a_chosen_way_that_turns_far_slower_starts_a_trial_at_once(steady_load):
    # beside CPU-bound processes a step with threads measured fast in its trial and took 30x as long a few
    # calls later; the load reading does not change then, so the plan's own times must start the trial
    from descend.compiler.plan import ThreadChoice

    c = ThreadChoice()
    n = ThreadChoice.TRIAL + 1
    _run_choice(c, c.WARM + 2 * n + 10, lambda on: 0.7 if on else 0.8)
    assert c.on is True
    # one spike, then two slow calls and a normal one: no trial (the strikes must be in a row)
    times = iter([5.0, 0.7, 20.0, 20.0] + [0.7] * 16)
    seen = _run_choice(c, 20, lambda on: next(times))
    assert set(seen) == {True} and c.on is True
    # threads now 30x slower: STRIKES calls, then a trial, which keeps one thread (its way with threads ends at
    # its first counted call: more than ABORT times the median without threads of the last trial)
    seen = _run_choice(c, c.STRIKES + 2 + n + 50, lambda on: 20.0 if on else 0.8)
    assert seen[:c.STRIKES] == [True] * c.STRIKES
    assert seen[c.STRIKES:c.STRIKES + 2 + n] == [True] * 2 + [False] * n
    assert set(seen[c.STRIKES + 2 + n:]) == {False} and c.on is False
    # the host slows both ways down: one trial, whose times the next strikes are measured against (not a
    # trial every few calls)
    seen = _run_choice(c, 200, lambda on: 40.0 if on else 2.0)
    assert seen.count(True) == 2 and seen[:c.STRIKES] == [False] * c.STRIKES and c.on is False


@pytest.mark.parametrize("slow", [True, False], ids=["with threads", "without threads"])
def test_a_trials_way_far_slower_than_the_other_was_ends_at_its_first_counted_call(steady_load, slow):
    # a busy machine: a step with threads took 60 ms against 3.7 ms without; eight such calls per trial cost more
    # than the trial can win
    from descend.compiler.plan import ThreadChoice

    c = ThreadChoice()
    n = ThreadChoice.TRIAL + 1
    _run_choice(c, c.WARM + 2 * n, lambda on: 1.0 if on else 2.0)  # a first trial: all its calls, both ways
    assert c.on is True
    steady_load["idle"] = False  # the load changes: a trial at once
    if slow:  # threads now 50x slower than the last median without them
        seen = _run_choice(c, 2 + n + 20, lambda on: 100.0 if on else 2.0)
        assert seen == [True] * 2 + [False] * n + [False] * 20 and c.on is False
    else:  # one thread now 50x slower than the last median with threads (ABORT x 1.0 < 50)
        seen = _run_choice(c, n + 2 + 20, lambda on: 1.0 if on else 50.0)
        assert seen == [True] * n + [False] * 2 + [True] * 20 and c.on is True
    # a way ABORT times slower or less runs its whole trial
    steady_load["idle"] = True
    seen = _run_choice(c, 2 * n, lambda on: 3.0 if on else 1.0)
    assert seen == [True] * n + [False] * n


def test_the_setting_is_each_threads_own():
    # plans run at once in two threads, each setting threads on or off while it runs: neither sees the
    # other's setting, and each thread's setting is back to unset afterwards
    import threading

    from descend import _native

    seen, barrier = {}, threading.Barrier(2)

    def run(flag):
        previous = _native.set_threads_on(flag)
        barrier.wait()
        seen[flag] = (_native.serial(10**9), getattr(_native._threads, "mode", "?"))
        barrier.wait()
        _native.set_threads_on(previous)
        seen[(flag, "after")] = getattr(_native._threads, "mode", None)

    threads = [threading.Thread(target=run, args=(f,)) for f in (True, False)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert seen[False] == (True, False) and seen[True][1] is True
    assert seen[(True, "after")] is None and seen[(False, "after")] is None
    with pytest.raises(TypeError, match="True, False or None"):
        _native.set_threads_on("yes")


@pytest.mark.parametrize("way", [True, False])
def test_a_plan_runs_the_way_it_chose_and_gives_the_same_bits(monkeypatch, way):
    # with threads (the large products' blocks at once, the optimizer's kernels parallel) or on one thread (the
    # same blocks in turn): the same numbers, and the switch is set back after every call, also after a failing one
    from descend import _native
    from descend._native import blas
    from descend.compiler.plan import ThreadChoice

    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    monkeypatch.setattr(blas, "BLOCK_MIN", 1)
    monkeypatch.setattr(_native, "SERIAL_BELOW", 0)
    monkeypatch.setattr(_native, "idle_core", lambda: True)
    monkeypatch.setattr(blas, "_budget", 2)  # (two blocks a product, wherever two cores are)
    monkeypatch.setattr(blas, "_ways", {})
    monkeypatch.setattr(blas, "_faster_on_blas_threads", lambda *args: False)  # (the blocks, not OpenBLAS's threads)
    sizes, batch = (784, 96, 64, 10), 64
    ws, bs, xs, ys = _mlp(sizes, batch)
    seen = []
    monkeypatch.setattr(ThreadChoice, "threads", lambda self: way)
    real_split = blas._split
    monkeypatch.setattr(blas, "_split", lambda *a: real_split(*a) and not seen.append(getattr(_native._threads, "mode", None)))
    eager, ve = _step_fn(ws, bs, ds.optimizers.AdamW(1e-3, weight_decay=0.01))
    step, vc = _step_fn(ws, bs, ds.optimizers.AdamW(1e-3, weight_decay=0.01))
    compiled = ds.function(step)
    for k in range(6):
        x, y = ds.constant(xs[k % 3]), ds.constant(ys[k % 3])
        le = eager(x, y).numpy()
        before = len(seen)
        in_turn = blas.stats["in_turn"]
        lc = compiled(x, y).numpy()
        assert le.tobytes() == lc.tobytes()
        assert getattr(_native._threads, "mode", None) is None  # set back after the call
        if k:  # (the first call traces: eager ops): 3 forward products, 5 backward, their blocks at once or in turn
            at_once = way and _native.enabled() and _native.kernels().threads() > 1
            cut = ((8, 0) if at_once else (0, 8)) if _native.cores() > 1 else (0, 0)
            assert (len(seen) - before, blas.stats["in_turn"] - in_turn) == cut
            assert seen[before:] == [True] * 8 if way else True
    for a, b in zip(vc, ve):
        assert a.numpy().tobytes() == b.numpy().tobytes()
    with pytest.raises(ds.errors.InvalidArgumentError):
        compiled(ds.constant(xs[0]), ds.constant(np.full(batch, 99, np.int64)))  # a label out of range
    assert getattr(_native._threads, "mode", None) is None
