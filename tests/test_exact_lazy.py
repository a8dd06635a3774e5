"""sparse_updates="exact_lazy": the exact run's numbers at every read, at the cost of the touched rows."""

from __future__ import annotations

import re

import numpy as np
import pytest

import descend as ds
from descend.optimizers import exact_lazy, schedules

O = ds.optimizers
ROWS, WIDTH, STEPS = 40, 3, 50


def _schedule():
    return schedules.ExponentialDecay(0.05, 10, 0.7)


# (class, arguments, bit-identical to "exact"): replays are bit for bit; closed forms within rounding
CASES = [
    (O.SGD, dict(weight_decay=0.01), False),
    (O.SGD, dict(momentum=0.9, weight_decay=0.01), False),
    (O.SGD, dict(momentum=0.9, nesterov=True, weight_decay=0.01), False),
    (O.Adagrad, dict(weight_decay=0.01), False),
    (O.Adadelta, dict(weight_decay=0.01), False),
    (O.Adadelta, dict(weight_decay=0.01, epsilon=0.0), True),
    (O.RMSprop, dict(weight_decay=0.01), False),
    (O.RMSprop, dict(weight_decay=0.01, momentum=0.5), False),
    (O.RMSprop, dict(weight_decay=0.01, centered=True), False),
    (O.RMSprop, dict(weight_decay=0.01, momentum=0.5, centered=True), False),
    (O.Adam, dict(weight_decay=0.01), True),
    (O.Adam, dict(weight_decay=0.01, amsgrad=True), True),
    (O.AdamW, dict(weight_decay=0.01), True),
    (O.Adamax, dict(weight_decay=0.01), True),
    (O.Nadam, dict(weight_decay=0.01), True),
    (O.Lion, dict(weight_decay=0.01), True),
    (O.Ftrl, dict(weight_decay=0.01, l2_shrinkage_regularization_strength=0.01), True),
    (O.AdamWeightDecay, dict(weight_decay_rate=0.01), True),
    (O.AdagradDecay, dict(weight_decay=0.01, accumulator_decay_step=5), True),
]


def _batches(seed, dtype):
    rng = np.random.default_rng(seed)
    init = rng.standard_normal((ROWS, WIDTH)).astype(dtype)
    batches = []
    for _ in range(STEPS):
        idx = rng.choice(ROWS, size=6, replace=True).astype(np.int64)  # repeats: de-duplicated by the pipeline
        batches.append((idx, rng.standard_normal((6, WIDTH)).astype(dtype)))
    return init, batches


def _run(cls, kwargs, mode, dtype, seed=0):
    """50 sparse steps; the table read (numpy, a lookup, the slots) every few steps; then state_dict."""
    init, batches = _batches(seed, dtype)
    table = ds.Variable(init, name="table")
    opt = cls(learning_rate=_schedule(), sparse_updates=mode, **kwargs)
    reads = []
    for step, (idx, vals) in enumerate(batches):
        opt.apply_gradients([(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (ROWS, WIDTH)), table)])
        if step % 7 == 3:  # a lookup of a few rows (only those are caught up)
            reads.append(ds.nn.embedding_lookup(table, [1, 5, 5, 30]).numpy())
        if step % 11 == 5:  # the whole table
            reads.append(table.numpy())
        if step % 13 == 7 and opt.rule.slot_specs:
            reads.append(opt.get_slot(table, opt.rule.slot_specs[0].name).numpy())
    state = {re.sub(r"^table(_\d+)?/", "table/", k): v for k, v in opt.state_dict().items()}
    reads.append(table.numpy())
    return reads, state


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("cls,kwargs,bitwise", CASES, ids=[f"{c.__name__}-{'-'.join(k)}" for c, k, _ in CASES])
def test_exact_lazy_equals_exact_at_every_read(cls, kwargs, bitwise, dtype):
    exact, exact_state = _run(cls, kwargs, "exact", dtype)
    lazy, lazy_state = _run(cls, kwargs, "exact_lazy", dtype)
    lazy_only, _ = _run(cls, kwargs, "lazy", dtype)
    assert sorted(exact_state) == sorted(lazy_state)
    pairs = list(zip(exact, lazy)) + [(exact_state[k], lazy_state[k]) for k in exact_state if k.startswith("table/")]
    for a, b in pairs:
        if bitwise:
            np.testing.assert_array_equal(b, a)
        else:  # closed forms: rounding only, relative to the array's scale
            tol = 1e-12 if dtype == "float64" else 2e-6
            np.testing.assert_allclose(b, a, rtol=tol, atol=tol * float(np.max(np.abs(a))))
    # the test can tell: plain lazy updates are a different algorithm here
    assert not all(np.allclose(a, b, rtol=1e-6) for a, b in zip(exact, lazy_only))


def test_untouched_rows_are_not_computed_until_read():
    table = ds.Variable(np.ones((8, 2)), name="t")
    opt = O.SGD(0.1, momentum=0.9, sparse_updates="exact_lazy")
    g = ds.IndexedSlices(ds.constant(np.ones((1, 2))), ds.constant([3]), (8, 2))
    opt.apply_gradients([(g, table)])
    g = ds.IndexedSlices(ds.constant(np.ones((1, 2))), ds.constant([4]), (8, 2))
    opt.apply_gradients([(g, table)])
    raw = table._value  # the storage, read without the hook: row 3 has not had step 2 yet
    assert raw[3, 0] == pytest.approx(0.9) and raw[4, 0] == pytest.approx(0.9)
    assert table.numpy()[3, 0] == pytest.approx(0.9 - 0.09)   # the read catches it up: m = -0.09 moves it
    assert table._before_read is None                            # nothing left behind: the hook is gone


def test_flush_and_fit_and_checkpoint_bring_every_row_up_to_date(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.integers(0, 50, size=(64, 2))
    y = rng.standard_normal((64, 1)).astype(np.float32)

    def build(mode):
        model = ds.models.Sequential([ds.layers.Embedding(50, 4, embeddings_initializer="ones"),
                                      ds.layers.Flatten(), ds.layers.Dense(1, kernel_initializer="ones")])
        model.compile(optimizer=O.Adam(0.01, weight_decay=0.1, sparse_updates=mode), loss="mse")
        model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        return model

    exact, lazy = build("exact"), build("exact_lazy")
    table = lazy.layers[0].embeddings
    assert table._before_read is None  # fit flushed
    np.testing.assert_array_equal(table._value, exact.layers[0].embeddings._value)
    # a checkpoint save reads through the hook: it sees the caught-up table
    opt = O.Adagrad(0.1, weight_decay=0.5, sparse_updates="exact_lazy")
    t = ds.Variable(np.ones((5, 2), np.float32), name="ck")
    opt.apply_gradients([(ds.IndexedSlices(ds.constant(np.ones((1, 2), np.float32)), ds.constant([0]), (5, 2)), t)])
    opt.apply_gradients([(ds.IndexedSlices(ds.constant(np.ones((1, 2), np.float32)), ds.constant([1]), (5, 2)), t)])
    assert t._before_read is not None
    ckpt = ds.checkpoint.Checkpoint(t=t, optimizer=opt)
    path = ckpt.save(str(tmp_path / "ck"))
    assert t._before_read is None
    expect = t.numpy()
    t.assign(np.zeros((5, 2), np.float32))
    ckpt.restore(path)
    np.testing.assert_array_equal(t.numpy(), expect)
    opt.flush()  # nothing pending: O(1)


def test_preview_and_constraint_see_the_exact_values():
    init, batches = _batches(4, "float64")
    a = ds.Variable(init, name="a")
    b = ds.Variable(init, name="b")
    ea = O.Adam(0.1, weight_decay=0.1, sparse_updates="exact")
    eb = O.Adam(0.1, weight_decay=0.1, sparse_updates="exact_lazy")
    for idx, vals in batches[:10]:
        ga = ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (ROWS, WIDTH))
        ahead = eb.preview([(ga, b)])
        ea.apply_gradients([(ga, a)])
        np.testing.assert_array_equal(ahead[b], a.numpy())
        eb.apply_gradients([(ga, b)])
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    c = ds.Variable(init, name="c", constraint=lambda v: ds.clip_by_value(v, -0.5, 0.5))
    d = ds.Variable(init, name="d", constraint=lambda v: ds.clip_by_value(v, -0.5, 0.5))
    oc, od = O.SGD(0.1, momentum=0.9, sparse_updates="exact"), O.SGD(0.1, momentum=0.9, sparse_updates="exact_lazy")
    for idx, vals in batches[:10]:
        g = ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (ROWS, WIDTH))
        oc.apply_gradients([(g, c)])
        od.apply_gradients([(g, d)])
        assert d._before_read is None  # a constraint writes every row: nothing is left behind
    np.testing.assert_allclose(d.numpy(), c.numpy(), rtol=1e-12, atol=1e-12)


def test_a_dense_gradient_catches_up_first_and_a_failed_update_changes_nothing():
    init, batches = _batches(5, "float64")
    a, b = ds.Variable(init, name="a"), ds.Variable(init, name="b")
    oa, ob = O.Adam(0.1, sparse_updates="exact"), O.Adam(0.1, sparse_updates="exact_lazy")
    for k, (idx, vals) in enumerate(batches[:12]):
        g = ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (ROWS, WIDTH))
        if k == 6:
            g = np.full((ROWS, WIDTH), 0.5)
        oa.apply_gradients([(g, a)])
        ob.apply_gradients([(g, b)])
    raw = b._value.copy()
    bad = ds.IndexedSlices(ds.constant(np.full((1, WIDTH), np.nan)), ds.constant([2]), (ROWS, WIDTH))
    with pytest.raises(ds.errors.InvalidArgumentError):
        ob.apply_gradients([(bad, b)])
    np.testing.assert_array_equal(b._value, raw)  # nothing written, nothing caught up
    np.testing.assert_array_equal(b.numpy(), a.numpy())


def test_history_stays_bounded(monkeypatch):
    monkeypatch.setattr(exact_lazy, "MAX_HISTORY", 8)
    init, batches = _batches(6, "float64")
    a, b = ds.Variable(init, name="a"), ds.Variable(init, name="b")
    oa, ob = O.Adam(0.1, sparse_updates="exact"), O.Adam(0.1, sparse_updates="exact_lazy")
    for _, vals in batches:
        g = ds.IndexedSlices(ds.constant(vals[:1]), ds.constant(np.array([0])), (ROWS, WIDTH))  # row 0 only
        oa.apply_gradients([(g, a)])
        ob.apply_gradients([(g, b)])
        state = next(iter(ob.lazy_rows.tables.values()))[1]
        assert len(state.history) <= 8
    np.testing.assert_array_equal(b.numpy(), a.numpy())


@pytest.mark.parametrize("make", [lambda: O.Lamb(sparse_updates="exact_lazy")])
def test_optimizers_without_an_exact_catch_up_refuse(make):
    with pytest.raises(ValueError, match=r"cannot use sparse_updates='exact_lazy'.*per_tensor.*Received: "
                                         r"sparse_updates='exact_lazy'"):
        make()


def test_custom_optimizers_refuse_unless_they_declare_a_catch_up():
    def rule(param, grad, *, learning_rate):
        return (param - grad * learning_rate,)

    class Plain(ds.optimizers.Optimizer):
        update = staticmethod(rule)

    with pytest.raises(ValueError, match="declares no catch-up"):
        Plain(0.1, sparse_updates="exact_lazy")

    class Replayed(Plain):
        catch_up = exact_lazy.REPLAY

    t = ds.Variable(np.ones((4, 1)), name="r")
    Replayed(0.5, sparse_updates="exact_lazy").apply_gradients(
        [(ds.IndexedSlices(ds.constant(np.ones((1, 1))), ds.constant([2]), (4, 1)), t)])
    assert t.numpy()[:, 0].tolist() == [1.0, 1.0, 0.5, 1.0]
    with pytest.raises(ValueError, match="'exact', 'lazy' or 'exact_lazy'"):
        Plain(0.1, sparse_updates="lazzy")


@pytest.mark.parametrize("use_fused", [True, False])
@pytest.mark.parametrize("cls, kwargs", [(O.Adam, dict(weight_decay=0.01)), (O.Nadam, {}), (O.Ftrl, {})])
def test_a_long_run_sweeps_the_rows_and_replays_them_in_one_call(monkeypatch, cls, kwargs, use_fused):
    """Past half the history, each update also catches up a slice of the rows (every row at most MAX_HISTORY
    updates behind, no pause); the replay kernel brings many rows through many updates in one call, with the
    exact run's bits (the NumPy replay too)."""
    from descend._native import backend

    monkeypatch.setattr(exact_lazy, "MAX_HISTORY", 16)
    rng = np.random.default_rng(7)
    init = rng.standard_normal((300, 5))
    a, b = ds.Variable(init, name="a"), ds.Variable(init, name="b")
    oa = cls(learning_rate=_schedule(), sparse_updates="exact", **kwargs)
    ob = cls(learning_rate=_schedule(), sparse_updates="exact_lazy", **kwargs)
    oa.use_fused = ob.use_fused = use_fused
    before = backend.stats["replay"]
    for step in range(120):
        idx = rng.choice(300, size=4, replace=False)
        g = ds.IndexedSlices(ds.constant(rng.standard_normal((4, 5))), ds.constant(idx), (300, 5))
        oa.apply_gradients([(g, a)])
        ob.apply_gradients([(g, b)])
        state = ob.lazy_rows.tables[id(b)][1]
        assert len(state.history) <= 16
        assert (state.last >= state.count - 16).all()  # no row further behind than the history holds
        if step == 60:
            np.testing.assert_array_equal(b.numpy()[idx], a.numpy()[idx])
    np.testing.assert_array_equal(b.numpy(), a.numpy())
    for name in ob.rule.slot_names:
        np.testing.assert_array_equal(ob.get_slot(b, name).numpy(), oa.get_slot(a, name).numpy())
    if use_fused and ob.rule.kernel(ob.rule.sparse_fn) is not None:
        assert backend.stats["replay"] > before
