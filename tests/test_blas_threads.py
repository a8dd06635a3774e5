"""Matrix products whose threads never fight (descend._native.blas): one-thread BLAS calls, large products
split into blocks of rows or columns computed at once by a compiled kernel's threads, and the result bit for
bit NumPy's on one BLAS thread."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import descend as ds
from descend import _native
from descend._native import blas


class _FakePool:
    """A (get, set) pair that records the counts set on it."""

    def __init__(self, n):
        self.n = n
        self.history = []

    def get(self):
        return self.n

    def put(self, n):
        self.history.append(n)
        self.n = n


@pytest.fixture
def fake_pool(monkeypatch, blocks_way):
    """A BLAS pool of 4 threads that records the counts set on it (the real one held on one thread, as a split
    block is a one-thread BLAS call), a core free, and large products computed as their blocks (the default
    mode's way where OpenBLAS's own threads were not faster)."""
    blas._take_over(blas.pools())
    pool = _FakePool(4)
    monkeypatch.setattr(blas, "_pools", ((pool.get, pool.put),))
    monkeypatch.setattr(blas, "_found", None)
    monkeypatch.setattr(blas, "_budget", None)
    monkeypatch.setattr(_native, "idle_core", lambda: True)
    monkeypatch.setattr(_native, "_blas_spins_until", float("-inf"))  # (no earlier test's OpenBLAS workers spinning)
    return pool


@pytest.fixture
def blocks_way(monkeypatch):
    """In the default mode, OpenBLAS's own threads measured slower than a product's blocks for every product (the
    ways found before the test kept aside)."""
    monkeypatch.setattr(blas, "_ways", {})
    monkeypatch.setattr(blas, "_faster_on_blas_threads", lambda *args: False)


def test_descend_takes_the_pool_over_at_its_first_product(fake_pool, monkeypatch):
    seen = []
    real = np.matmul
    monkeypatch.setattr(blas.np, "matmul", lambda a, b, out=None: (seen.append(fake_pool.n), real(a, b, out=out))[1])
    a = np.ones((8, 16), np.float32)
    blas.matmul(a, a.T)
    blas.matmul(a, a.T)
    assert seen == [1, 1]  # BLAS on one thread, for good: changing it while a helper is inside BLAS is unsafe
    assert fake_pool.history == [1] and blas._found == 4


def test_a_large_product_is_split_into_one_thread_blocks(fake_pool, monkeypatch):
    monkeypatch.setattr(blas, "PARALLEL_FROM", 8 * 16 * 8)
    monkeypatch.setattr(blas, "BLOCK_ROWS", 2)
    monkeypatch.setattr(blas, "BLOCK_MIN", 1)
    a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    b = np.arange(16 * 12, dtype=np.float32).reshape(16, 12)
    before = blas.stats["split"]
    got = blas.matmul(a, b)
    np.testing.assert_array_equal(got, np.matmul(a, b))
    assert blas.stats["split"] == before + (1 if _can_split() else 0)
    assert fake_pool.n == 1  # BLAS itself stays on one thread


def _can_split() -> bool:
    from descend import _native

    return bool(blas._gemm_functions()) and _native.enabled() and _native.kernels().threads() > 1


def _blockwise(a, b, blocks):
    """``a @ b`` as one-thread ``np.matmul`` calls of the blocks ``blocks`` (a ``blas._Blocks``, or None: whole)."""
    import threadpoolctl

    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        if blocks is None:
            return np.matmul(a, b)
        out = np.empty((a.shape[0], b.shape[1]), np.result_type(a, b))
        rows, cols = blocks.rows.tolist(), blocks.cols.tolist()
        if cols == [0, 0]:
            for r0, r1 in zip(rows[:-1], rows[1:]):
                out[r0:r1] = np.matmul(a[r0:r1], b)
        else:
            for c0, c1 in zip(cols[:-1], cols[1:]):
                out[:, c0:c1] = np.matmul(a, b[:, c0:c1])
        return out


def _counts():
    return blas.stats["split"], blas.stats["in_turn"]


def _operands(rng, m, k, n, dtype, layout):
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    if "a.T" in layout:
        a = np.ascontiguousarray(a.T).T  # (m, k) with the strides of a transposed array
    if "b.T" in layout:
        b = np.ascontiguousarray(b.T).T
    if "a[::]" in layout:
        a = np.ascontiguousarray(np.pad(a, ((0, 0), (0, 5))))[:, :k]  # rows further apart than k
    return a, b


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["", "a.T", "b.T", "a.T b.T", "a[::]"])
@pytest.mark.parametrize("mkn", [(64, 784, 256), (784, 64, 256), (128, 784, 512), (128, 512, 512), (512, 128, 784),
                                 (8, 3000, 96), (37, 450, 301), (97, 330, 131), (250, 1700, 33), (5, 10000, 67),
                                 (1000, 30, 70), (37, 45, 301), (250, 17, 3)])
def test_a_split_product_is_its_blocks_each_one_blas_thread_call(fake_pool, monkeypatch, dtype, layout, mkn):
    # a product cut into blocks of rows (or of columns, for a product of few rows) is those blocks, each what one
    # BLAS thread computes for it, whether the compiled kernel's threads run them at once or the calling thread in
    # turn: the training step of the benchmarks' MLPs, transposed operands (the backward pass's products) and padded
    # rows included. A block of a one-thread product is that product's rows on some of OpenBLAS's kernels only:
    # this holds on every one. float64 products are not cut: one BLAS thread computes them whole
    pytest.importorskip("threadpoolctl")
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    a, b = _operands(np.random.default_rng(sum(mkn)), *mkn, dtype, layout)
    m, k, n = mkn
    blas._take_over(blas._pools)  # (as the first product does: the budget read, the BLAS pool on one thread)
    blocks = blas._blocks(a, b, np.empty((m, n), dtype))
    want = _blockwise(a, b, blocks)
    got = []
    for threads in (None, False):  # at once where a core is free, then in turn on the calling thread
        previous = _native.set_threads_on(threads)
        try:
            out = np.full(want.shape, np.nan, dtype)
            before = _counts()
            blas.matmul_into(a, b, out)
            after = _counts()
        finally:
            _native.set_threads_on(previous)
        assert out.tobytes() == want.tobytes(), threads
        got.append((after[0] - before[0], after[1] - before[1]))
    big = dtype == np.float32 and (
        (m >= 2 * blas.BLOCK_ROWS and np.diff(blas.cuts(m, 2)).min() * n * k >= blas.BLOCK_MIN)
        or (m < 2 * blas.BLOCK_ROWS and n >= 2 * blas.BLOCK_ROWS and np.diff(blas.cuts(n, 2)).min() * m * k >= blas.BLOCK_MIN))
    assert (blocks is not None) == big
    if big:  # in at least two blocks, at most the budget 4 on at most the cores
        cut = blocks.rows if blocks.cols.tolist() == [0, 0] else blocks.cols
        assert 3 <= len(cut) <= min(_native.cores(), 4) + 1
    assert got == ([(1, 0) if _can_split() else (0, 1), (0, 1)] if big else [(0, 0), (0, 0)])


class _SpyKernels:
    """The compiled kernels, with the blocks each split product is cut into recorded."""

    def __init__(self, kernels):
        self.kernels, self.cuts = kernels, []

    def __getattr__(self, name):
        return getattr(self.kernels, name)

    def gemm_split(self, *args):
        self.cuts.append((args[-2].tolist(), args[-1].tolist()))
        return self.kernels.gemm_split(*args)


@pytest.mark.parametrize("mkn, by", [((784, 64, 256), "rows"), ((512, 128, 512), "rows"), ((64, 784, 256), "columns"),
                                     ((128, 512, 784), "columns"), ((40, 3000, 2000), "columns"),
                                     ((3000, 2000, 40), "rows")])
def test_a_split_product_cuts_its_longer_side(fake_pool, monkeypatch, mkn, by):
    # a weight's gradient (tall) by rows, which the optimizer's same thread updates next; a layer's output
    # (wide) by columns; a side too short to cut leaves the other
    if not _can_split():
        pytest.skip("no split products here (no numba, or one kernel thread)")
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    spy = _SpyKernels(_native.kernels())
    monkeypatch.setattr(_native, "kernels", lambda: spy)
    m, k, n = mkn
    a, b = _operands(np.random.default_rng(m), m, k, n, np.float32, "a.T")
    out = np.full((m, n), np.nan, np.float32)
    blas.matmul_into(a, b, out)
    assert out.tobytes() == _blockwise(a, b, blas._blocks(a, b, out)).tobytes()
    (rows, cols), = spy.cuts
    cut, other, length = (rows, cols, m) if by == "rows" else (cols, rows, n)
    parts = len(cut) - 1  # (the budget 4, on at most the cores: fewer where a block would be too small)
    assert 2 <= parts <= min(4, _native.cores()) and cut == blas.cuts(length, parts).tolist() and other == [0, 0]


@pytest.mark.parametrize("shape", [(784, 256), (512, 512), (256, 10), (63, 7), (10,), (0, 5), (3,), (100, 4, 3), ()])
@pytest.mark.parametrize("parts", [1, 2, 3, 4])
def test_thread_parts_share_every_element_once_at_a_split_products_row_cuts(shape, parts):
    size = int(np.prod(shape))
    bounds = blas.thread_parts(shape, parts)
    assert len(bounds) == parts + 1 and bounds[0] == 0 and bounds[-1] == size and bounds == sorted(bounds)
    cuts = blas.cuts(shape[0], parts).tolist() if len(shape) >= 2 else []
    if size and len(cuts) == parts + 1:  # rows cut where a split product cuts them
        assert [b * shape[0] // size for b in bounds] == cuts
    else:  # equal runs at multiples of 16 elements
        assert all(b % 16 == 0 for b in bounds[:-1]) and max(np.diff(bounds)) - min(np.diff(bounds)) <= 16 + size % 16


def test_products_numpy_would_not_give_to_gemm_as_they_are_are_not_split(fake_pool, monkeypatch):
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    monkeypatch.setattr(blas, "BLOCK_MIN", 1)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((64, 48), dtype=np.float32)
    cases = [
        (a, a.T, np.empty((64, 64), np.float32)),                    # a @ a.T: NumPy computes it another way
        (a[:, ::2], rng.standard_normal((24, 40), dtype=np.float32), np.empty((64, 40), np.float32)),  # strided
        (a, rng.standard_normal((48, 40), dtype=np.float32), np.empty((40, 64), np.float32).T),  # output by columns
        (a.astype(np.float64), rng.standard_normal((48, 40), dtype=np.float32), np.empty((64, 40))),  # mixed dtypes
    ]
    for x, y, out in cases:
        want = np.matmul(x, y, out=out.copy(order="K"))  # (NumPy's own loop where its BLAS cannot take them)
        before = blas.stats["split"]
        blas.matmul_into(x, y, out)
        assert out.tobytes() == want.tobytes() and blas.stats["split"] == before
    # an output that overlaps an operand: NumPy copies the operand first, and so does descend (no split)
    x = rng.standard_normal((64, 64), dtype=np.float32)
    y = rng.standard_normal((64, 64), dtype=np.float32)
    want = np.matmul(x, y)
    before = blas.stats["split"]
    blas.matmul_into(x, y, x)
    assert x.tobytes() == want.tobytes() and blas.stats["split"] == before
    # ... by a few rows of the other operand; an operand with negative strides
    big = rng.standard_normal((112, 40), dtype=np.float32)
    for x, y, out in [(a, big[:48], big[40:104]), (a[::-1], big[:48].copy(), np.empty((64, 40), np.float32))]:
        want = np.matmul(x.copy(), y.copy())
        before = blas.stats["split"]
        blas.matmul_into(x, y, out)
        assert out.tobytes() == want.tobytes() and blas.stats["split"] == before
    # the rows right after an operand's last byte do not overlap it: split, each block with a one-thread call's bits
    y, out = big[:48], big[48:112]
    blocks = blas._blocks(a, y, out)
    assert blocks is not None
    want = _blockwise(a, y.copy(), blocks)
    before = _counts()
    blas.matmul_into(a, y, out)
    assert out.tobytes() == want.tobytes() and _counts() == (before[0] + 1, before[1]) if _can_split() else (
        before[0], before[1] + 1)


@pytest.mark.parametrize("bad", ["read_only", "short_output", "long_output", "inner_mismatch", "one_dim"])
def test_a_product_numpy_refuses_is_refused_with_numpys_error_and_nothing_written(fake_pool, monkeypatch, bad):
    # a split product's threads write where BLAS is told: an output of another shape, a read-only output or
    # operands whose inner sizes differ must reach np.matmul's checks, never the kernel
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    monkeypatch.setattr(blas, "BLOCK_MIN", 1)
    a, b = np.ones((256, 256), np.float32), np.ones((256, 256), np.float32)
    out = np.zeros((256, 256), np.float32)
    if bad == "read_only":
        out.flags.writeable = False
    elif bad == "short_output":
        out = np.zeros((128, 256), np.float32)
    elif bad == "long_output":
        out = np.zeros((256, 512), np.float32)
    elif bad == "inner_mismatch":
        b = np.ones((128, 256), np.float32)
    else:
        out = np.zeros(256 * 256, np.float32)
    guard = out.copy()
    before = blas.stats["split"]
    with pytest.raises(ValueError):
        blas.matmul_into(a, b, out)
    assert blas.stats["split"] == before and out.tobytes() == guard.tobytes()


def test_without_compiled_kernels_or_in_a_forked_child_the_blocks_run_in_turn(fake_pool, monkeypatch):
    # no threads to run the blocks at once: the calling thread makes the same one-thread calls one after another
    from descend import _native

    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    monkeypatch.setattr(blas, "BLOCK_MIN", 1)
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((64, 32), dtype=np.float32), rng.standard_normal((32, 16), dtype=np.float32)
    blas._take_over(blas._pools)
    blocks = blas._blocks(a, b, np.empty((64, 16), np.float32))
    assert blocks is not None and blocks.rows.tolist() == [0, 32, 64]
    want = _blockwise(a, b, blocks)
    for setting in ("disabled", "forked"):
        with monkeypatch.context() as m:
            if setting == "disabled":
                m.setattr(_native, "_forced", False)
            else:
                m.setattr(_native, "_forked_after_parallel", True)
            before = _counts()
            out = np.empty_like(want)
            blas.matmul_into(a, b, out)
            assert out.tobytes() == want.tobytes() and _counts() == (before[0], before[1] + 1), setting


def test_a_blas_library_that_is_not_numpys_is_never_called(fake_pool, monkeypatch):
    # the gemm found is checked against np.matmul on a probe: a library that gives other bits is not used
    monkeypatch.setattr(blas, "_gemms", None)
    monkeypatch.setattr(blas, "_same_as_numpy", lambda gemm, dtype: False)
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    monkeypatch.setattr(blas, "BLOCK_MIN", 1)
    assert blas._gemm_functions() == {}
    a = np.ones((64, 32), np.float32)
    before = blas.stats["split"]
    np.testing.assert_array_equal(blas.matmul(a, a.T.copy()), np.full((64, 64), 32, np.float32))
    assert blas.stats["split"] == before


def test_the_gemm_found_is_numpys(fake_pool):
    if not blas._gemm_functions():
        pytest.skip("no OpenBLAS cblas_?gemm found (another BLAS library)")
    for dtype, f in blas._gemm_functions().items():
        assert blas._same_as_numpy(f, dtype)


def test_a_single_thread_budget_splits_nothing(fake_pool, monkeypatch):
    fake_pool.n = 1
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    split = blas.stats["split"]
    blas.matmul(np.ones((64, 64)), np.ones((64, 64)))
    assert fake_pool.history == [] and blas.stats["split"] == split
    assert blas.set_threads(3) is None and blas.set_threads(None) == 3
    with pytest.raises(ValueError, match="positive int"):
        blas.set_threads(0)


def test_a_count_set_later_becomes_the_budget(fake_pool):
    blas.matmul(np.ones((2, 2)), np.ones((2, 2)))
    fake_pool.n = 3  # threadpool_limits(3), say
    blas.matmul(np.ones((2, 2)), np.ones((2, 2)))
    assert blas._found == 3 and fake_pool.n == 1


def test_splitting_follows_the_idle_cpu(monkeypatch):
    readings = iter([(100, 1000, 0.0), (100 + 950 * 2, 1000 + 1000 * 2, 0.0), (100 + 950 * 2, 1000 + 1000 * 4, 0.0)])
    monkeypatch.setattr(_native, "_cpu_reading", lambda: next(readings))
    monkeypatch.setattr(_native, "_probe", [float("-inf"), True, None])
    monkeypatch.setattr(_native, "PROBE_SECONDS", 0.0)
    monkeypatch.setattr(_native, "_CPUS", 2)
    monkeypatch.setattr(_native, "cores", lambda: 2)
    assert _native.idle_core() is True     # no earlier reading: as before
    assert _native.idle_core() is False    # others kept 1.9 of 2 cores busy
    monkeypatch.setattr(_native, "PROBE_SECONDS", 1e9)  # (the answer kept: no reading taken)
    assert _native.serial(2**16) and _native.serial(2**30)  # every kernel runs serial
    assert not _native.threads_on()        # and products are not split
    monkeypatch.setattr(_native, "PROBE_SECONDS", 0.0)
    assert _native.idle_core() is True     # then nothing else ran
    monkeypatch.setattr(_native, "PROBE_SECONDS", 1e9)
    assert not _native.serial(2**16) and _native.serial(2**13)


def test_a_failing_product_raises_and_leaves_one_thread(fake_pool):
    with pytest.raises(ValueError):
        blas.matmul(np.ones((2, 3)), np.ones((2, 3)))
    assert fake_pool.n == 1


def test_other_threads_never_change_the_count_nor_split(fake_pool, monkeypatch):
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    monkeypatch.setattr(blas, "BLOCK_MIN", 1)
    out = []
    before = blas.stats["split"]
    t = threading.Thread(target=lambda: out.append(blas.matmul(np.ones((64, 64)), np.ones((64, 64)))))
    t.start()
    t.join()
    assert fake_pool.history == [] and (out[0] == 64.0).all() and blas.stats["split"] == before


@pytest.fixture(params=["deterministic", "default"])
def one_thread_calls(request, monkeypatch):
    """Products as one-thread BLAS calls: under op determinism (always), or by default where OpenBLAS's own threads
    were measured slower."""
    monkeypatch.setattr(blas, "_ways", {})
    if request.param == "deterministic":
        monkeypatch.setattr(blas, "_faster_on_blas_threads", lambda *args: True)  # (never asked under determinism)
        ds.config.experimental.enable_op_determinism()
        yield request.param
        ds.config.experimental.disable_op_determinism()
    else:
        monkeypatch.setattr(blas, "_faster_on_blas_threads", lambda *args: False)
        yield request.param


@pytest.mark.parametrize("shapes", [((64, 784), (784, 256)), ((128, 512), (512, 10)), ((3, 33, 65), (65, 17)),
                                    ((784, 128), (128, 512)), ((128, 784), (784, 512)), ((512, 512), (512, 512))])
def test_every_matmul_is_its_blocks_each_one_blas_thread_call(shapes, monkeypatch, one_thread_calls):
    # every product, cut or not, is one-thread BLAS calls: the same bits under any load, with its blocks on the
    # kernels' threads or on the calling thread
    pytest.importorskip("threadpoolctl")
    threaded = blas.stats["threaded"]
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s, dtype=np.float32) for s in shapes)
    ds.matmul(ds.constant(a[..., :1, :]), ds.constant(b))  # (descend takes the BLAS pool over at its first product)
    blocks = blas._blocks(a, b, np.empty((a.shape[0], b.shape[1]), np.float32)) if a.ndim == 2 else None
    want = _blockwise(a, b, blocks)
    for idle in (True, False):
        monkeypatch.setattr(_native, "idle_core", lambda idle=idle: idle)
        got = ds.matmul(ds.constant(a), ds.constant(b)).numpy()
        assert got.tobytes() == want.tobytes(), idle
    assert blas.stats["threaded"] == threaded


def test_the_real_pool_runs_one_thread_after_ops():
    x = ds.constant(np.ones((16, 16), np.float32))
    ds.matmul(x, x)
    assert all(get() == 1 for get, _ in blas.pools())
    assert blas._found is not None and blas._found >= 1


# ------------------------------------------------------------------ reused outputs
def test_an_output_in_use_is_never_written_again(monkeypatch):
    monkeypatch.setattr(_native, "idle_core", lambda: True)  # (a helper holds a block's output only while it computes)
    a = np.ones((256, 256), np.float32)  # 256 KiB outputs: pooled
    kept = [ds.matmul(ds.constant(a * k), ds.constant(a)) for k in range(1, 6)]
    views = [ds.matmul(ds.constant(a * 7), ds.constant(a)).numpy()[:1]]  # a copy; the Tensor is gone
    ds.matmul(ds.constant(a * 9), ds.constant(a))
    for k, t in enumerate(kept, 1):
        assert (t.numpy() == 256 * k).all()
    assert (views[0] == 256 * 7).all()


def test_a_free_output_is_written_again_and_a_view_keeps_it_busy(monkeypatch):
    monkeypatch.setattr(_native, "idle_core", lambda: False)  # no helper that still holds an output for a moment
    blas.clear_reuse()
    a = np.ones((256, 256), np.float32)
    first = blas.matmul(a, a)
    address = first.ctypes.data
    view = first[:2]
    del first
    second = blas.matmul(a, a)
    assert second.ctypes.data != address  # the view still refers to the first output
    assert (view == 256).all()
    del view, second
    assert blas.matmul(a, a).ctypes.data == address


def test_the_pool_is_bounded(monkeypatch):
    blas.clear_reuse()
    monkeypatch.setattr(blas, "REUSE_MAX_BYTES", 3 * 256 * 256 * 4)
    a = np.ones((256, 256), np.float32)
    kept = [blas.matmul(a, a) for _ in range(5)]  # all in use: the pool keeps REUSE_PER_SHAPE of them
    assert sum(len(v) for v in blas._reuse.values()) == blas.REUSE_PER_SHAPE
    for n in (300, 310, 320):
        blas.matmul(np.ones((n, 256), np.float32), a)
    assert blas._reuse_bytes <= blas.REUSE_MAX_BYTES
    assert all((k == 256).all() for k in kept)
    blas.clear_reuse()


def test_a_training_step_leaves_no_reference_cycle():
    # gradients held by a cycle outlive the step: with the collector off (as while a step is timed) each
    # step's gradients would take fresh memory
    import gc

    w = ds.Variable(np.ones((4, 3), np.float32))
    x = ds.constant(np.ones((2, 4), np.float32))
    gc.collect()
    gc.disable()
    try:
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(ds.matmul(x, w))
        grads = tape.gradient(loss, [w])
        del tape, loss
        assert gc.collect() == 0
    finally:
        gc.enable()
    assert grads[0].shape == (4, 3)


# ------------------------------------------------------------------ cold start
def test_import_descend_loads_the_core_only():
    import subprocess
    import sys

    code = ("import sys, descend; heavy = ('matplotlib', 'tqdm', 'numba', 'safetensors', 'mpi4py', 'threadpoolctl', "
            "'descend.layers', 'descend.optimizers', 'descend.checkpoint', 'descend.data'); "
            "print([m for m in heavy if m in sys.modules]); "
            "descend.layers.Dense, descend.Sequential, descend.optimizers.AdamW; print('descend.layers' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "True"


def test_the_lazy_names_are_the_submodules_objects():
    import descend.models
    import descend.optimizers.accumulation

    assert ds.Model is descend.models.Model and ds.Sequential is descend.models.Sequential
    assert ds.GradientAccumulator is descend.optimizers.accumulation.GradientAccumulator
    assert "layers" in dir(ds) and "Model" in dir(ds)
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        ds.not_a_name  # noqa: B018


def test_split_products_under_load_give_exact_blocks(monkeypatch, blocks_way):
    # split products back to back, their outputs handed out by the reuse pool while the threads of the
    # last split may still be finishing theirs: every product is exactly right
    monkeypatch.setattr(_native, "idle_core", lambda: True)
    a = np.ones((256, 256), np.float32)
    for _ in range(40):
        kept = [blas.matmul(a * k, a) for k in range(1, 6)]
        for k, t in enumerate(kept, 1):
            assert (t == 256 * k).all()


@pytest.mark.parametrize("mkn", [(784, 64, 256), (64, 784, 256), (128, 784, 512), (4096, 64, 4096), (40, 3000, 2000),
                                 (3000, 2000, 40), (2000, 2000, 2000), (33, 9000, 31), (100, 100, 100000)])
@pytest.mark.parametrize("budget", [2, 3, 8, 64])
def test_a_product_is_cut_into_the_most_blocks_that_keep_block_min(fake_pool, monkeypatch, mkn, budget):
    # the most blocks up to the budget (on as many cores) whose smallest has BLOCK_MIN multiply-adds, on the longer
    # side (rows when as tall as wide), found without trying every count (a 64-thread budget costs no more)
    monkeypatch.setattr(_native, "cores", lambda: 64)
    monkeypatch.setattr(blas, "_found", budget)
    m, k, n = mkn
    a, b, out = np.empty((m, k), np.float32), np.empty((k, n), np.float32), np.empty((m, n), np.float32)
    want = None
    for p in range(budget, 1, -1):  # (the rule, by trying each count)
        by_rows = m // blas.BLOCK_ROWS >= 2 and (m >= n or n // blas.BLOCK_ROWS < 2)
        length, other = (m, n) if by_rows else (n, m)
        cut = blas.cuts(length, p)
        if length // blas.BLOCK_ROWS >= 2 and int(cut[1]) * other * k >= blas.BLOCK_MIN:
            want = (by_rows, cut.tolist())
            break
    blocks = blas._blocks(a, b, out)
    got = None if blocks is None else (blocks.cols.tolist() == [0, 0],
                                       (blocks.rows if blocks.cols.tolist() == [0, 0] else blocks.cols).tolist())
    assert got == (want if m * k * n >= blas.PARALLEL_FROM else None)


# ------------------------------------------------------------------ OpenBLAS's own threads (the default mode)
@pytest.fixture
def blas_threads(monkeypatch):
    """The default mode, a thread budget of 2 on at least 2 cores, OpenBLAS's own threads measured faster for every
    product (the ways found before the test kept aside); yields the shapes of the products the choice was asked for."""
    pytest.importorskip("threadpoolctl")
    if _native.cores() < 2:
        pytest.skip("one core: a product's budget is one thread")
    assert not ds.config.experimental.is_op_determinism_enabled()
    monkeypatch.setattr(blas, "_ways", {})
    asked = []
    monkeypatch.setattr(blas, "_faster_on_blas_threads", lambda a, b, *rest: asked.append((a.shape, b.shape)) or True)
    previous = blas.set_threads(2)
    ds.matmul(ds.constant(np.ones((2, 2), np.float32)), ds.constant(np.ones((2, 2), np.float32)))  # (the take-over)
    yield asked
    blas.set_threads(previous)


def _on_blas_threads(a, b, threads):
    import threadpoolctl

    with threadpoolctl.threadpool_limits(threads, user_api="blas"):
        return np.matmul(a, b)


@pytest.mark.parametrize("layout", ["", "a.T", "b.T", "a[::]"])
@pytest.mark.parametrize("mkn", [(128, 784, 512), (64, 784, 256), (784, 64, 256), (8, 3000, 400)])
def test_by_default_a_large_product_descend_does_not_cut_may_run_on_openblas_threads(blas_threads, layout, mkn):
    # a float64 product (never cut into blocks), where one call on OpenBLAS's threads was measured faster: that
    # call, on the budget's threads, and the BLAS pool back on one thread after it
    dtype = np.float64
    a, b = _operands(np.random.default_rng(sum(mkn)), *mkn, dtype, layout)
    want = _on_blas_threads(a, b, 2)
    before = blas.stats["threaded"], blas.stats["split"] + blas.stats["in_turn"]
    got = ds.matmul(ds.constant(a), ds.constant(b)).numpy()
    assert got.tobytes() == want.tobytes()
    assert (blas.stats["threaded"], blas.stats["split"] + blas.stats["in_turn"]) == (before[0] + 1, before[1])
    assert all(get() == 1 for get, _ in blas.pools())
    assert blas_threads == [(a.shape, b.shape)]
    if not layout:
        assert blas.way(*mkn, dtype) == "threaded"


@pytest.mark.parametrize("layout", ["", "a.T", "b.T"])
@pytest.mark.parametrize("mkn", [(128, 784, 512), (64, 784, 256), (784, 64, 256)])
def test_by_default_a_product_descend_cuts_runs_as_its_blocks_untried(blas_threads, layout, mkn):
    # inside a training step its blocks were faster than OpenBLAS's threads even where a trial of the product alone
    # said otherwise (blas.WAY_MARGIN): no trial, never OpenBLAS's threads, the bits of its one-thread blocks
    a, b = _operands(np.random.default_rng(sum(mkn)), *mkn, np.float32, layout)
    out = np.empty((mkn[0], mkn[2]), np.float32)
    before = blas.stats["threaded"]
    got = ds.matmul(ds.constant(a), ds.constant(b)).numpy()
    assert got.tobytes() == _blockwise(a, b, blas._blocks(a, b, out)).tobytes()
    assert blas_threads == [] and blas.stats["threaded"] == before
    if not layout:
        assert blas.way(*mkn, np.float32) == "blocks"


def test_the_way_is_found_once_per_kind_of_product(blas_threads, monkeypatch):
    # timed the first time a product of a shape, dtype, layout and thread count is made, then kept: every later
    # product of the kind, eager or in a plan, is computed the same way
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((128, 784)), rng.standard_normal((784, 512))  # (float64: never cut into blocks)
    first = blas.matmul(a, b).copy()
    for _ in range(3):
        assert blas.matmul(a, b).tobytes() == first.tobytes()
    assert len(blas_threads) == 1
    blas.matmul(np.asfortranarray(a), b)  # another layout
    blas.matmul(a[:, :700], b[:700])  # another shape
    monkeypatch.setattr(_native, "cores", lambda: 4)
    blas.set_threads(3)  # another thread count
    blas.matmul(a, b)
    blas.matmul(a, b)
    assert len(blas_threads) == 4
    assert blas.way(128, 784, 512, np.float64) == "threaded" and blas.way(128, 784, 511, np.float64) is None
    blas.clear_ways()
    blas.matmul(a, b)
    assert len(blas_threads) == 5


def test_a_small_product_or_determinism_never_asks_for_openblas_threads(blas_threads):
    rng = np.random.default_rng(2)
    small = rng.standard_normal((64, 64), dtype=np.float32)
    a, b = rng.standard_normal((128, 784), dtype=np.float32), rng.standard_normal((784, 512), dtype=np.float32)
    threaded = blas.stats["threaded"]
    blas.matmul(small, small)
    ds.config.experimental.enable_op_determinism()
    try:
        got = blas.matmul(a, b).copy()
        blocks = blas._blocks(a, b, np.empty((128, 512), np.float32))  # (cut by the shape alone)
    finally:
        ds.config.experimental.disable_op_determinism()
    assert blas_threads == [] and blas.stats["threaded"] == threaded
    assert got.tobytes() == _blockwise(a, b, blocks).tobytes()


def test_another_thread_never_sets_openblas_threads(blas_threads):
    # it neither times a new kind of product nor changes the BLAS's thread count: it computes on one thread
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((128, 784)), rng.standard_normal((784, 512))  # (float64: never cut into blocks)
    blas.matmul(a, b)  # (the main thread finds the way: OpenBLAS's threads)
    threaded = blas.stats["threaded"]
    out = []
    t = threading.Thread(target=lambda: out.append((blas.matmul(a, b).copy(), blas.matmul(a[:, :700], b[:700]).copy())))
    t.start()
    t.join()
    assert blas.stats["threaded"] == threaded and len(blas_threads) == 1
    whole, new = out[0]
    assert whole.tobytes() == _on_blas_threads(a, b, 1).tobytes()
    assert new.tobytes() == _on_blas_threads(a[:, :700], b[:700], 1).tobytes()


def test_timing_the_ways_writes_nothing_it_was_given(monkeypatch):
    pytest.importorskip("threadpoolctl")
    monkeypatch.setattr(_native, "idle_core", lambda: True)  # (a trial, whatever the machine's load)
    libs = blas.pools()
    rng = np.random.default_rng(4)
    a, b = rng.standard_normal((128, 784)), rng.standard_normal((784, 512))  # (float64: never cut into blocks)
    a0, b0 = a.copy(), b.copy()
    out = np.full((128, 512), np.nan)
    blas.matmul(a[:2], b)  # (the take-over)
    assert blas._faster_on_blas_threads(a, b, out, libs) in (True, False)
    assert np.isnan(out).all() and a.tobytes() == a0.tobytes() and b.tobytes() == b0.tobytes()
    assert all(get() == 1 for get, _ in libs)


def test_another_threads_products_wait_while_the_blas_runs_on_more_threads(blas_threads):
    # the main thread's call on OpenBLAS's threads holds the lock that every product of another thread takes: no
    # BLAS call of descend's runs while the count is not one
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((128, 784), dtype=np.float32), rng.standard_normal((784, 512), dtype=np.float32)
    seen = []
    with blas._count_lock:
        threads = [threading.Thread(target=lambda x=x: seen.append(blas.matmul(x, b[:, :x.shape[0]]).shape))
                   for x in (a[:4, :], a[:8, :])]  # (small products)
        for t in threads:
            t.start()
        for t in threads:
            t.join(0.2)
        assert seen == [] and all(t.is_alive() for t in threads)
    for t in threads:
        t.join()
    assert sorted(seen) == [(4, 4), (8, 8)]


def test_a_call_on_openblas_threads_sets_the_count_holding_the_lock():
    pool = _FakePool(1)
    held = []
    a = np.ones((64, 32), np.float32)
    out = np.empty((64, 64), np.float32)
    blas._threaded(a, a.T.copy(), out, ((pool.get, lambda n: (held.append(blas._count_lock.locked()), pool.put(n))),))
    assert held == [True, True] and pool.history[-1] == 1 and not blas._count_lock.locked()
    assert (out == 32).all()


# ------------------------------------------------------------------ one thread pool at a time
@pytest.fixture
def spin(monkeypatch):
    """A core idle and no OpenBLAS workers spinning yet."""
    if blas.blas_pools.blas_threaded() or not _native.parallel():
        pytest.skip("descend's kernels run on one thread here whatever OpenBLAS does")
    monkeypatch.setattr(_native, "idle_core", lambda: True)
    monkeypatch.setattr(_native, "_blas_spins_until", float("-inf"))
    previous = _native.set_threads_on(None)
    yield
    _native.set_threads_on(previous)


def test_while_openblas_workers_spin_descends_threads_keep_off_the_cores(spin, monkeypatch):
    # after a call on OpenBLAS's threads its workers spin for the next call: descend's kernels and split products
    # then run on the calling thread (two pools spinning for two cores stall each other), unless a plan forces
    # threads on; once the workers sleep, threads again
    monkeypatch.setattr(_native, "_blas_spin", 0.05)  # (the spin shortened to 50 ms)
    big = 2 * _native.SERIAL_BELOW
    assert (_native.serial(big), _native.threads_on(), _native.blas_spinning()) == (False, True, False)
    pool = _FakePool(1)
    a = np.ones((64, 32), np.float32)
    blas._threaded(a, a.T.copy(), np.empty((64, 64), np.float32), ((pool.get, pool.put),))
    assert (_native.serial(big), _native.threads_on(), _native.blas_spinning()) == (True, False, True)
    for forced, want in ((True, (False, True)), (False, (True, False))):
        _native.set_threads_on(forced)
        assert (_native.serial(big), _native.threads_on()) == want, forced
    _native.set_threads_on(None)
    import time

    time.sleep(0.06)
    assert (_native.serial(big), _native.threads_on(), _native.blas_spinning()) == (False, True, False)


@pytest.mark.parametrize("setting, seconds", [(None, 0.1), ("28", 0.1), ("25", 0.1 / 8), ("30", 0.4), ("40", 0.4),
                                              ("1", 0.1 / 2**24), ("many", 0.1), ("", 0.1)])
def test_the_spin_follows_openblas_thread_timeout(monkeypatch, setting, seconds):
    # OpenBLAS's workers spin 2**N cycles, N = OPENBLAS_THREAD_TIMEOUT (4 to 30, else 28)
    if setting is None:
        monkeypatch.delenv("OPENBLAS_THREAD_TIMEOUT", raising=False)
    else:
        monkeypatch.setenv("OPENBLAS_THREAD_TIMEOUT", setting)
    assert _native._blas_spin_seconds() == pytest.approx(max(seconds, 0.1 / 2**24))


def test_an_eager_step_after_a_product_on_openblas_threads_updates_on_one_thread(spin, blas_threads, monkeypatch):
    # the layer's large products run on OpenBLAS's threads (measured faster, here forced): the optimizer's kernel
    # and the non-finite check that follow run on the calling thread
    monkeypatch.setattr(_native, "_blas_spin", 60.0)  # (however long the first step takes to load its kernels)
    asked = []
    real = _native.serial
    monkeypatch.setattr(_native, "serial", lambda n: asked.append((n, real(n))) or asked[-1][1])
    rng = np.random.default_rng(8)
    w = ds.Variable(rng.standard_normal((784, 256)) * 0.05)  # (float64: a product descend does not cut)
    x = ds.constant(rng.standard_normal((64, 784)))
    opt = ds.optimizers.AdamW(1e-3, weight_decay=0.01)
    for _ in range(2):
        with ds.GradientTape() as tape:
            loss = ds.reduce_mean(ds.nn.relu(ds.matmul(x, w)))
        opt.apply_gradients([(tape.gradient(loss, w), w)])
    assert blas.stats["threaded"] and blas_threads
    large = [on_one for n, on_one in asked if n >= w.numpy().size]
    assert large and all(large)


def test_timing_the_ways_times_the_one_call_before_openblas_threads(monkeypatch):
    # the one-thread calls first, then OpenBLAS's threads, whose trial calls leave no mark of spinning workers
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((128, 784)), rng.standard_normal((784, 512))
    out = np.empty((128, 512))
    calls = []
    monkeypatch.setattr(blas, "_threaded", lambda *args, note=True: calls.append(("threaded", note)))
    monkeypatch.setattr(blas.np, "matmul", lambda *args, **kw: calls.append("whole"))
    monkeypatch.setattr(_native, "idle_core", lambda: True)
    blas._faster_on_blas_threads(a, b, out, ())
    assert calls == ["whole"] * blas.WAY_TRIALS + [("threaded", False)] * blas.WAY_TRIALS


def test_a_trial_on_openblas_threads_leaves_descends_threads_on(spin):
    pool = _FakePool(1)
    rng = np.random.default_rng(10)
    a, b = rng.standard_normal((128, 784), dtype=np.float32), rng.standard_normal((784, 512), dtype=np.float32)
    blas._faster_on_blas_threads(a, b, np.empty((128, 512), np.float32), ((pool.get, pool.put),))
    assert pool.history and not _native.blas_spinning() and _native.threads_on()


@pytest.mark.parametrize("ours, threaded, kept", [
    ([1.0] * 5, [0.5] * 5, True),                       # twice as fast: kept
    ([1.0] * 5, [0.95] * 5, False),                     # 5% faster: within WAY_MARGIN, descend's way
    ([1.0] * 5, [0.85] * 5, False),                     # 1.18x faster: within WAY_MARGIN
    ([1.0] * 5, [0.01, 0.02, 5.0, 6.0, 7.0], False),    # two lucky calls, then waits for a core (a busy machine)
    ([1.0] * 5, [0.5, 0.5, 0.5, 9.0, 9.0], True),       # the median decides, not the worst call
    ([2.0, 0.1, 0.1, 0.1, 0.1], [0.5] * 5, False),      # descend's way's median, 0.1, wins
])
def test_openblas_threads_are_kept_only_when_their_median_is_clearly_faster(ours, threaded, kept):
    assert blas.prefers_blas_threads(ours, threaded) is kept


def test_a_busy_machine_never_times_openblas_threads(monkeypatch):
    # where the other processes leave no core idle, a call on OpenBLAS's threads waits for one: descend's way,
    # without a trial (no call on OpenBLAS's threads at all)
    calls = []
    monkeypatch.setattr(_native, "idle_core", lambda: False)
    monkeypatch.setattr(blas, "_threaded", lambda *args, note=True: calls.append("threaded"))
    rng = np.random.default_rng(11)
    a, b = rng.standard_normal((128, 784), dtype=np.float32), rng.standard_normal((784, 512), dtype=np.float32)
    assert blas._faster_on_blas_threads(a, b, np.empty((128, 512), np.float32), ()) is False
    assert calls == []
