"""BLAS threads per matmul (descend._native.blas): small products on one thread, the count restored,
and the result bit for bit NumPy's."""

from __future__ import annotations

import threading

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
    return pool


def test_a_small_product_runs_on_one_thread_and_the_count_comes_back(fake_pool, monkeypatch):
    seen = []
    real = np.matmul
    monkeypatch.setattr(blas.np, "matmul", lambda a, b: (seen.append(fake_pool.n), real(a, b))[1])
    a = np.ones((8, 16), np.float32)
    blas.matmul(a, a.T)
    assert seen == [1]
    assert fake_pool.history == [1, 4] and fake_pool.n == 4


def test_a_large_product_keeps_the_pool(fake_pool, monkeypatch):
    monkeypatch.setattr(blas, "SINGLE_THREAD_BELOW", 8 * 16 * 8)
    a = np.ones((8, 16), np.float32)
    blas.matmul(a, a.T)
    assert fake_pool.history == []


def test_a_single_thread_limit_is_left_alone(fake_pool):
    fake_pool.n = 1
    blas.matmul(np.ones((2, 2)), np.ones((2, 2)))
    assert fake_pool.history == []


def test_the_count_comes_back_when_the_product_fails(fake_pool):
    with pytest.raises(ValueError):
        blas.matmul(np.ones((2, 3)), np.ones((2, 3)))
    assert fake_pool.history == [1, 4] and fake_pool.n == 4


def test_other_threads_never_change_the_count(fake_pool):
    out = []
    t = threading.Thread(target=lambda: out.append(blas.matmul(np.ones((2, 2)), np.ones((2, 2)))))
    t.start()
    t.join()
    assert fake_pool.history == [] and out[0].tolist() == [[2.0, 2.0], [2.0, 2.0]]


@pytest.mark.parametrize("shapes", [((64, 784), (784, 256)), ((128, 512), (512, 10)), ((3, 33, 65), (65, 17))])
def test_a_small_matmul_is_what_one_blas_thread_computes(shapes):
    # OpenBLAS's bits depend on its thread count: a small product is the one-thread result on any machine
    threadpoolctl = pytest.importorskip("threadpoolctl")
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal(s, dtype=np.float32) for s in shapes)
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        want = np.matmul(a, b)
    got = ds.matmul(ds.constant(a), ds.constant(b)).numpy()
    assert got.tobytes() == want.tobytes()


def test_the_real_pool_count_is_unchanged_after_ops():
    pools = blas.pools()
    before = [get() for get, _ in pools]
    x = ds.constant(np.ones((16, 16), np.float32))
    ds.matmul(x, x)
    assert [get() for get, _ in pools] == before
