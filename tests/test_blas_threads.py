"""Matrix products whose threads never fight (descend._native.blas): one-thread BLAS calls, large products
split into row blocks that the calling thread and helper threads share, the pool's count restored, and the
result bit for bit NumPy's on one BLAS thread."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest

import descend as ds
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
def fake_pool(monkeypatch):
    pool = _FakePool(4)
    monkeypatch.setattr(blas, "_pools", ((pool.get, pool.put),))
    monkeypatch.setattr(blas, "_found", None)
    monkeypatch.setattr(blas, "_budget", None)
    monkeypatch.setattr(blas, "worth_splitting", lambda: True)
    return pool


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
    seen = []
    real = np.matmul
    monkeypatch.setattr(blas.np, "matmul", lambda a, b, out: (seen.append(fake_pool.n), real(a, b, out=out))[1])
    a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16)
    before = dict(blas.stats)
    got = blas.matmul(a, a.T)
    np.testing.assert_array_equal(got, real(a, a.T))
    assert blas.stats["split"] == before["split"] + (1 if blas.helpers() else 0)
    assert set(seen) == {1} and len(seen) >= (2 if blas.helpers() else 1)  # every block on one BLAS thread


def test_a_split_product_never_waits_for_a_helper_that_has_no_core(fake_pool, monkeypatch):
    # a helper that took a block and got no core: the calling thread computes the block itself
    class Stalled:
        n = 1

        def post(self, job):
            job.claim()  # the helper took block 0 ... and never runs

        def retire(self):
            pass

    monkeypatch.setattr(blas, "_helpers", Stalled())
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((64, 32), dtype=np.float32), rng.standard_normal((32, 16), dtype=np.float32)
    out = np.empty((64, 16), np.float32)
    taken = blas.stats["taken_over"]
    blas.matmul_into(a, b, out)
    np.testing.assert_array_equal(out, np.matmul(a, b))
    assert blas.stats["taken_over"] == taken + 1


def test_a_block_a_working_helper_computes_is_waited_for_not_computed_again(fake_pool, monkeypatch):
    # a helper that has a core finishes its block in about the time the calling thread took for its own: the
    # calling thread waits for it (bounded) instead of computing it a second time
    class Working:
        n = 1

        def post(self, job):
            k, a, b, out = job.claim()  # the helper takes block 0 and computes it a moment later

            def work():
                time.sleep(0.05)
                r0, r1 = job.edges[k], job.edges[k + 1]
                block = np.matmul(a[r0:r1], b)
                with job.lock:
                    out[r0:r1] = block
                    job.done[k] = True
                    job.finished.notify_all()

            threading.Thread(target=work).start()

        def retire(self):
            pass

    monkeypatch.setattr(blas, "_helpers", Working())
    monkeypatch.setattr(blas, "PARALLEL_FROM", 1)
    monkeypatch.setattr(blas, "_WAIT_SLACK", 10.0)  # (the bound, generous here: the helper is only late)
    main = threading.get_ident()
    calls = []
    real = np.matmul
    monkeypatch.setattr(blas.np, "matmul", lambda a, b, out=None: (
        calls.append(threading.get_ident() == main), real(a, b, out=out))[1])
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((64, 32), dtype=np.float32), rng.standard_normal((32, 16), dtype=np.float32)
    out = np.empty((64, 16), np.float32)
    taken = blas.stats["taken_over"]
    blas.matmul_into(a, b, out)
    np.testing.assert_array_equal(out, real(a, b))
    assert calls.count(True) == 1 and blas.stats["taken_over"] == taken  # its own block only


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
    monkeypatch.setattr(blas, "_cpu_reading", lambda: next(readings))
    monkeypatch.setattr(blas, "_probe", [float("-inf"), True, None])
    monkeypatch.setattr(blas, "PROBE_SECONDS", 0.0)
    monkeypatch.setattr(blas, "_CPUS", 2)
    monkeypatch.setattr(blas, "_cores", lambda: 2)
    assert blas.worth_splitting() is True     # no earlier reading: as before
    assert blas.worth_splitting() is False    # others kept 1.9 of 2 cores busy
    assert blas.worth_splitting() is True     # then nothing else ran


def test_a_failing_product_raises_and_leaves_one_thread(fake_pool):
    with pytest.raises(ValueError):
        blas.matmul(np.ones((2, 3)), np.ones((2, 3)))
    assert fake_pool.n == 1


def test_other_threads_never_change_the_count(fake_pool):
    out = []
    t = threading.Thread(target=lambda: out.append(blas.matmul(np.ones((2, 2)), np.ones((2, 2)))))
    t.start()
    t.join()
    assert fake_pool.history == [] and out[0].tolist() == [[2.0, 2.0], [2.0, 2.0]]


@pytest.mark.parametrize("shapes", [((64, 784), (784, 256)), ((128, 512), (512, 10)), ((3, 33, 65), (65, 17)),
                                    ((784, 128), (128, 512)), ((128, 784), (784, 512)), ((512, 512), (512, 512))])
def test_every_matmul_is_what_one_blas_thread_computes(shapes):
    # OpenBLAS's bits depend on its thread count: every product, split or not, is the one-thread result on
    # any machine and under any load
    threadpoolctl = pytest.importorskip("threadpoolctl")
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s, dtype=np.float32) for s in shapes)
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        want = np.matmul(a, b)
    got = ds.matmul(ds.constant(a), ds.constant(b)).numpy()
    assert got.tobytes() == want.tobytes()


def test_the_real_pool_runs_one_thread_after_ops():
    x = ds.constant(np.ones((16, 16), np.float32))
    ds.matmul(x, x)
    assert all(get() == 1 for get, _ in blas.pools())
    assert blas._found is not None and blas._found >= 1


# ------------------------------------------------------------------ reused outputs
def test_an_output_in_use_is_never_written_again(monkeypatch):
    monkeypatch.setattr(blas, "worth_splitting", lambda: True)  # (a helper holds a block's output only while it computes)
    a = np.ones((256, 256), np.float32)  # 256 KiB outputs: pooled
    kept = [ds.matmul(ds.constant(a * k), ds.constant(a)) for k in range(1, 6)]
    views = [ds.matmul(ds.constant(a * 7), ds.constant(a)).numpy()[:1]]  # a copy; the Tensor is gone
    ds.matmul(ds.constant(a * 9), ds.constant(a))
    for k, t in enumerate(kept, 1):
        assert (t.numpy() == 256 * k).all()
    assert (views[0] == 256 * 7).all()


def test_a_free_output_is_written_again_and_a_view_keeps_it_busy(monkeypatch):
    monkeypatch.setattr(blas, "worth_splitting", lambda: False)  # no helper that still holds an output for a moment
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


def test_split_products_under_load_give_exact_blocks(monkeypatch):
    # the calling thread and a helper race for blocks (and the caller takes over a helper's block):
    # every finished product is exactly right (a block is copied in only when it is complete)
    monkeypatch.setattr(blas, "worth_splitting", lambda: True)
    a = np.ones((256, 256), np.float32)
    for _ in range(40):
        kept = [blas.matmul(a * k, a) for k in range(1, 6)]
        for k, t in enumerate(kept, 1):
            assert (t == 256 * k).all()
