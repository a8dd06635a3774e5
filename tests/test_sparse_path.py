"""The lazy sparse path of an embedding model allocates O(batch), never O(table).

A pooled lookup (``reduce_mean(emb(ids), axis=1)`` over a [batch, hot] id matrix)
must give the table an ``IndexedSlices`` gradient of exactly the rows read, and a
whole training step (forward, backward, de-duplication, the optimizer's lazy
update) must allocate the same at its peak whatever the table's size.
"""

from __future__ import annotations

import gc
import os
import sys
import tracemalloc

import numpy as np
import pytest

import descend as ds

DIM = 16
BATCH, HOT = 64, 4


def _ids(n_rows, seed=0):
    rng = np.random.default_rng(seed)
    ids = rng.integers(0, n_rows, (BATCH, HOT))
    ids[:, 1] = ids[:, 0]  # every example repeats a row: de-duplication has work to do
    ids[1] = ids[0]
    return ids


def _model(n_rows):
    ds.clear_session()
    emb = ds.layers.Embedding(n_rows, DIM, embeddings_initializer="zeros", name="table")
    emb.build()
    emb.embeddings.assign(np.full((n_rows, DIM), 0.01, np.float32))
    w = ds.constant(np.random.default_rng(1).standard_normal((BATCH, DIM)).astype(np.float32))
    return emb, w


def _loss(emb, ids, w):
    return ds.reduce_sum(ds.reduce_mean(emb(ids), axis=1) * w)


def test_pooled_lookup_gradient_is_the_rows_read():
    emb, w = _model(1000)
    ids = _ids(1000)
    with ds.GradientTape() as tape:
        loss = _loss(emb, ds.constant(ids), w)
    g = tape.gradient(loss, emb.embeddings)
    assert isinstance(g, ds.IndexedSlices)
    np.testing.assert_array_equal(g.indices.numpy(), ids.reshape(-1))
    expected = np.repeat(w.numpy() / np.float32(HOT), HOT, axis=0)
    np.testing.assert_array_equal(g.values.numpy(), expected)
    d = ds.deduplicate(g)
    np.testing.assert_array_equal(d.indices.numpy(), np.unique(ids))
    dense = np.zeros((1000, DIM), np.float32)
    np.add.at(dense, ids.reshape(-1), expected)
    np.testing.assert_array_equal(d.values.numpy(), dense[np.unique(ids)])


def _step_peak(n_rows, make_opt):
    """Peak bytes traced by one training step, after two warm-up steps (which create the slots)."""
    emb, w = _model(n_rows)
    opt = make_opt()
    table = emb.embeddings
    batches = [ds.constant(_ids(n_rows, seed=s)) for s in range(3)]

    def step(ids):
        with ds.GradientTape() as tape:
            loss = _loss(emb, ids, w)
        g = tape.gradient(loss, table)
        assert isinstance(g, ds.IndexedSlices)
        opt.apply_gradients([(g, table)])

    step(batches[0])
    step(batches[1])
    before = table._value.copy()  # the storage itself: reading the Variable would catch exact-lazy rows up
    gc.collect()
    tracemalloc.start()
    try:
        step(batches[2])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    changed = np.flatnonzero(np.any(table._value != before, axis=1))
    assert set(changed.tolist()) <= set(np.unique(_ids(n_rows, seed=2)).tolist())  # only the rows read changed
    return peak


@pytest.mark.parametrize("make_opt", [
    lambda: ds.optimizers.Adam(1e-2, sparse_updates="lazy"),
    lambda: ds.optimizers.Adagrad(1e-2, sparse_updates="lazy"),
    lambda: ds.optimizers.SGD(1e-2),
    lambda: ds.optimizers.Adam(1e-2, sparse_updates="exact_lazy"),
], ids=["lazy Adam", "lazy Adagrad", "SGD", "exact-lazy Adam"])
def test_a_step_allocates_o_batch_not_o_table(make_opt):
    small = _step_peak(20_000, make_opt)
    big = _step_peak(400_000, make_opt)
    table_bytes = 400_000 * DIM * 4
    assert big < table_bytes / 20, f"a step allocated {big} bytes on a table of {table_bytes}"
    assert big < 2 * small + 65536, f"a step allocated {big} bytes at 400k rows, {small} at 20k"


def test_embedding_benchmark_quick_descend_group(monkeypatch):
    """The quick end-to-end benchmark's descend group runs and reports its figures."""
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
    monkeypatch.syspath_prepend(here)
    import bench_embedding_e2e as bench

    (entry,) = bench.measure_group("descend|lazy Adam|20000", quick=True)
    assert entry["timing"]["best"] > 0 and entry["examples_per_s"] > 0
    assert entry["step_alloc_peak"] < entry["table_bytes"]
    assert "bench_embedding_e2e" in sys.modules


@pytest.mark.parametrize("ids", [
    np.array([], np.int64), np.array([5]), np.array([3, 1, 3, 0, 1, 3], np.int32),
    np.array([2**40, 7, 2**40, 0], np.int64), np.array([-1, 4, -1, 2]), np.array([2**62, 1, 2**62], np.int64),
    np.array([9, 9, 1], np.uint64), np.random.default_rng(3).integers(0, 50, 5000),
], ids=["empty", "one", "int32", "large", "negative", "too large to pack", "uint64", "many"])
def test_stable_order_is_the_stable_argsort(ids):
    from descend._native import stable_order

    order, sorted_ids = stable_order(ids)
    want = np.argsort(ids, kind="stable")
    np.testing.assert_array_equal(order, want)
    np.testing.assert_array_equal(sorted_ids, ids[want])


def test_deduplicate_matches_np_unique_and_add_at_bit_for_bit():
    rng = np.random.default_rng(5)
    for n, rows, dtype in ((3000, 100, np.float32), (50, 7, np.float64), (20000, 30000, np.float32)):
        idx = rng.integers(0, rows, n).astype(np.int32 if rows < 1000 else np.int64)
        vals = rng.standard_normal((n, 3)).astype(dtype)
        d = ds.deduplicate(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (rows, 3)))
        unique, inverse = np.unique(idx, return_inverse=True)
        ref = np.zeros((unique.size, 3), dtype)
        np.add.at(ref, inverse, vals)
        assert d.indices.numpy().dtype == idx.dtype
        np.testing.assert_array_equal(d.indices.numpy(), unique)
        np.testing.assert_array_equal(d.values.numpy(), ref)


@pytest.mark.parametrize("make_opt, slots", [
    (lambda: ds.optimizers.Adagrad(1e-2, sparse_updates="lazy"), 1),
    (lambda: ds.optimizers.Adam(1e-2, sparse_updates="lazy"), 2),
], ids=["Adagrad", "Adam"])
def test_creating_the_slots_of_a_table_allocates_each_once(make_opt, slots):
    n_rows = 200_000
    warm = ds.Variable(np.zeros((4, DIM), np.float32), name="warm")  # imports and compiles the kernels first
    make_opt().apply_gradients([(ds.IndexedSlices(ds.ones((1, DIM)), ds.constant([1]), (4, DIM)), warm)])
    emb, w = _model(n_rows)
    opt = make_opt()
    table_bytes = n_rows * DIM * 4
    ids = ds.constant(_ids(n_rows))
    with ds.GradientTape() as tape:
        loss = _loss(emb, ids, w)
    g = tape.gradient(loss, emb.embeddings)
    gc.collect()
    tracemalloc.start()
    try:
        opt.apply_gradients([(g, emb.embeddings)])  # the first update creates the slots
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < (slots + 0.5) * table_bytes, f"{peak} bytes for {slots} slot(s) of {table_bytes}"
    for name in opt.get_slot_names():
        assert opt.get_slot(emb.embeddings, name)._value.flags.owndata


# ---------------------------------------------------------------------------- grouping and the checked sums
_GROUP_CASES = [
    np.array([5]), np.array([3, 1, 3, 0, 1, 3], np.int32), np.array([2**40, 7, 2**40, 0], np.int64),
    np.array([-1, 4, -1, 2]), np.array([2**62, 1, 2**62], np.int64), np.array([-2**63, 2**63 - 1, -2**63]),
    np.array([9, 9, 1], np.uint64), np.array([2**64 - 1, 0, 2**64 - 1], np.uint64), np.array([7] * 40, np.int16),
    np.array([0, 2, 5]), np.random.default_rng(3).integers(0, 50, 5000),
    np.random.default_rng(4).integers(0, 8_000_000, 8192), np.random.default_rng(5).integers(-2**62, 2**62, 3000),
    np.random.default_rng(6).integers(0, 200, 31).astype(np.uint8),
]


@pytest.mark.parametrize("compiled", [True, False], ids=["kernel", "numpy"])
@pytest.mark.parametrize("ids", _GROUP_CASES, ids=[
    "one", "int32", "large", "negative", "too large to pack", "int64 extremes", "uint64", "uint64 extremes",
    "all equal", "increasing", "many small", "8M range", "signed wide", "few uint8"])
def test_group_is_the_stable_sort_and_np_unique(ids, compiled):
    from descend import _native

    previous = _native.set_enabled(None if compiled else False)
    try:
        got = _native.group(ids)
    finally:
        _native.set_enabled(previous)
    if ids.size < 2 or bool(np.all(ids[1:] > ids[:-1])):
        assert got is None
        return
    order, unique, bounds, inverse = got
    want_unique, want_inverse = np.unique(ids, return_inverse=True)
    np.testing.assert_array_equal(order, np.argsort(ids, kind="stable"))
    assert unique.dtype == ids.dtype
    np.testing.assert_array_equal(unique, want_unique)
    np.testing.assert_array_equal(inverse, want_inverse.reshape(-1))
    np.testing.assert_array_equal(ids[order][bounds[:-1]], unique)  # each group starts at its bound
    assert bounds[-1] == ids.size and np.all(np.diff(bounds) > 0)


@pytest.mark.parametrize("mode", ["serial", "parallel"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_checked_deduplication_sums_bit_for_bit_and_says_whether_finite(mode, dtype, monkeypatch):
    from descend import _native
    from descend.ops.gradient_ops import deduplicate_checked

    monkeypatch.setattr(_native, "SERIAL_BELOW", 1 << 62 if mode == "serial" else 0)
    monkeypatch.setattr(_native, "idle_core", lambda: True)
    rng = np.random.default_rng(9)
    idx = rng.integers(0, 300, 2000)
    scale = 10 ** rng.uniform(-3, 3, (2000, 1))  # magnitudes that make the order of additions matter
    vals = (rng.standard_normal((2000, 5)) * scale).astype(dtype)
    vals[7] = -0.0  # a row of negative zeros alone in its group sums to +0.0, as np.add.at into zeros gives
    idx[7] = 300
    unique, inverse = np.unique(idx, return_inverse=True)
    ref = np.zeros((unique.size, 5), dtype)
    np.add.at(ref, inverse, vals)
    d, finite = deduplicate_checked(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (301, 5)))
    assert finite is (True if _native.enabled() else None)
    np.testing.assert_array_equal(d.indices.numpy(), unique)
    assert d.values.numpy().tobytes() == ref.tobytes()  # bit for bit, signs of zeros included
    big = np.finfo(dtype).max
    for bad in (np.nan, np.inf, "overflow"):
        v = vals.copy()
        if bad == "overflow":  # two finite terms of one row whose sum is not finite
            idx2 = idx.copy()
            idx2[11] = idx2[10]
            v[10, 2] = v[11, 2] = big
        else:
            idx2 = idx
            v[123, 4] = bad
        d, finite = deduplicate_checked(ds.IndexedSlices(ds.constant(v), ds.constant(idx2), (301, 5)))
        assert finite is (False if _native.enabled() else None)
        assert not np.isfinite(d.values.numpy()).all()


def test_small_or_unique_sorted_gradients_are_not_checked_by_deduplication():
    from descend.ops.gradient_ops import deduplicate_checked

    s = ds.IndexedSlices(ds.constant(np.ones((3, 2))), ds.constant([0, 2, 5]), (6, 2))
    assert deduplicate_checked(s) == (s, None)  # nothing summed
    d, finite = deduplicate_checked(ds.IndexedSlices(ds.constant(np.ones((3, 2))), ds.constant([2, 0, 2]), (6, 2)))
    assert finite is None  # a few elements: np.add.at sums them, unchecked
    np.testing.assert_array_equal(d.values.numpy(), [[1.0, 1.0], [2.0, 2.0]])


@pytest.mark.parametrize("policy", ["raise", "skip"])
def test_sums_that_overflow_are_caught_and_nothing_changes(policy):
    """Every term finite, one sum of repeated rows not: the kernel's check finds it before any write."""
    table = ds.Variable(np.ones((100, 64), np.float32), name="table")
    opt = ds.optimizers.Adam(1e-3, sparse_updates="lazy", on_nonfinite=policy)
    idx = np.arange(64) % 40
    vals = np.ones((64, 64), np.float32)
    vals[5, 3] = vals[45, 3] = np.finfo(np.float32).max  # both land in row 5
    g = ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (100, 64))
    before = table.numpy().copy()
    if policy == "raise":
        with pytest.raises(ds.errors.InvalidArgumentError, match="gradient for variable 'table' contains Inf"):
            opt.apply_gradients([(g, table)])
    else:
        opt.apply_gradients([(g, table)])
        assert opt.skipped_steps == 1
    np.testing.assert_array_equal(table.numpy(), before)
    assert int(opt.iterations.numpy()) == 0


def test_a_sparse_gradient_the_deduplication_checked_is_not_read_again(monkeypatch):
    from descend import _native

    if not _native.enabled():
        pytest.skip("compiled kernels are off: NumPy sums, and the check reads the rows")
    table = ds.Variable(np.ones((100, 64), np.float32), name="table")
    dense = ds.Variable(np.ones(3, np.float32), name="dense")
    opt = ds.optimizers.Adam(1e-3, sparse_updates="lazy")
    checked = []
    from descend.optimizers.stages import gradients

    real = gradients.find_nonfinite
    monkeypatch.setattr(gradients, "find_nonfinite",
                        lambda arrays, use_fused: checked.append(len(arrays)) or real(arrays, use_fused))
    g = ds.IndexedSlices(ds.constant(np.ones((64, 64), np.float32)), ds.constant(np.arange(64) % 40), (100, 64))
    opt.apply_gradients([(g, table), (ds.constant(np.ones(3, np.float32)), dense)])
    assert checked == [1]  # the dense gradient alone
    assert table.numpy()[0, 0] < 1.0 and dense.numpy()[0] < 1.0


@pytest.mark.parametrize("width", [1, 64, 600, 40], ids=["scalars", "prefetched rows", "rows too wide to prefetch",
                                                           "rows cut in chunks"])
def test_the_rows_kernel_that_prefetches_writes_what_numpy_does(width, monkeypatch):
    """Prefetching is a hint: the lazy rows kernel's result is the NumPy path's, bit for bit, whether rows are
    prefetched (the last PREFETCH_ROWS rows included), too wide to be, or cut into several chunks."""
    from descend import _native
    from descend._native import cpu
    from descend.optimizers.adam import adam_update
    from descend.optimizers.rewrite import rewrite

    if not _native.enabled():
        pytest.skip("compiled kernels are off")
    if width == 40:
        monkeypatch.setattr(_native, "CHUNK", 16)
    assert "prefetch(_P, _a + _l)" in cpu.kernel_source(rewrite(adam_update))
    rng = np.random.default_rng(width)
    start = rng.standard_normal((300, width)).astype(np.float32)
    idx = rng.choice(300, 37, replace=False)
    vals = rng.standard_normal((37, width)).astype(np.float32)
    results = []
    for compiled in (True, False):
        previous = _native.set_enabled(None if compiled else False)
        try:
            table = ds.Variable(start.copy(), name="table")
            opt = ds.optimizers.Adam(1e-2, sparse_updates="lazy")
            for _ in range(2):
                opt.apply_gradients([(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (300, width)), table)])
            results.append([table.numpy()] + [opt.get_slot(table, s).numpy() for s in opt.get_slot_names()])
        finally:
            _native.set_enabled(previous)
    for fast, reference in zip(*results):
        assert fast.tobytes() == reference.tobytes()
    assert not np.array_equal(results[0][0], start)
