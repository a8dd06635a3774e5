"""Op determinism (``ds.config.experimental.enable_op_determinism``), the compiled step against the eager one bit
for bit in both modes, and NumPy's BLAS beside descend's kernels when ``threadpoolctl`` is missing.

The bits of a matrix product depend on the CPU's BLAS kernel: CI runs this file under OpenBLAS's Haswell kernel
(``OPENBLAS_CORETYPE=Haswell``) as well as the machine's own, and nothing here compares with a stored value."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import descend as ds
from descend import _native
from descend._native import blas, blas_pools


def _numba_threads(n=None):
    """numba's thread count (set to ``n`` first when given); None without compiled kernels."""
    if not _native.enabled():
        return None
    numba = _native.kernels().numba
    if n is not None:
        numba.set_num_threads(min(n, numba.config.NUMBA_NUM_THREADS))
    return numba.get_num_threads()


def _mlp(sizes, batch, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    ws = [(rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(dtype) for a, b in zip(sizes[:-1], sizes[1:])]
    bs = [(rng.standard_normal(b) * 0.1).astype(dtype) for b in sizes[1:]]
    xs = [rng.standard_normal((batch, sizes[0])).astype(dtype) for _ in range(3)]
    ys = [rng.integers(0, sizes[-1], batch).astype(np.int64) for _ in range(3)]
    return ws, bs, xs, ys


def _step_fn(ws, bs):
    """An MLP training step (ReLU, sparse softmax cross-entropy, AdamW) on fresh Variables, and the Variables."""
    W = [ds.Variable(w) for w in ws]
    B = [ds.Variable(b) for b in bs]
    variables = [v for pair in zip(W, B) for v in pair]
    optimizer = ds.optimizers.AdamW(1e-3, weight_decay=0.01)

    def step(x, y):
        with ds.GradientTape() as tape:
            h = x
            for i, (w, b) in enumerate(zip(W, B)):
                h = ds.matmul(h, w) + b
                if i < len(W) - 1:
                    h = ds.nn.relu(h)
            loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        return loss

    return step, variables


# 784-256-10, batch 64: the forward product and two backward ones have 12.8M multiply-adds, over PARALLEL_FROM
SIZES, BATCH = (784, 256, 10), 64


def _train(steps=4, compiled=False):
    """The losses and final Variables of ``steps`` steps (bytes)."""
    ws, bs, xs, ys = _mlp(SIZES, BATCH)
    step, variables = _step_fn(ws, bs)
    if compiled:
        step = ds.function(step)
    losses = [step(ds.constant(xs[k % 3]), ds.constant(ys[k % 3])).numpy().tobytes() for k in range(steps)]
    return losses, [v.numpy().tobytes() for v in variables]


def test_the_flag_is_tfs(determinism):
    assert determinism.is_op_determinism_enabled() is False and blas.deterministic() is False
    determinism.enable_op_determinism()
    assert determinism.is_op_determinism_enabled() is True and blas.deterministic() is True
    determinism.disable_op_determinism()
    assert determinism.is_op_determinism_enabled() is False and blas.deterministic() is False


@pytest.mark.parametrize("mkn", [(64, 784, 256), (784, 64, 256), (128, 784, 512), (512, 512, 512), (2000, 2000, 2000)])
def test_under_determinism_a_products_cut_follows_its_shape_alone(determinism, mkn):
    determinism.enable_op_determinism()
    found = set()
    for budget in (1, 2, 3, 4, 16):
        blas.set_threads(budget)
        found.add(blas.parts_for(*mkn))
    parts, = found
    m, k, n = mkn
    assert parts & (parts - 1) == 0 and 2 <= parts <= blas.DETERMINISTIC_BLOCKS
    assert m * k * n // parts >= blas.BLOCK_MIN and (parts == blas.DETERMINISTIC_BLOCKS or m * k * n // (2 * parts) < blas.BLOCK_MIN)
    determinism.disable_op_determinism()  # by default the cut follows the thread budget (on at most the cores)
    blas.set_threads(1)
    assert blas.parts_for(*mkn) == 1
    blas.set_threads(2)
    assert blas.parts_for(*mkn) == min(2, _native.cores())


def test_under_determinism_changing_the_thread_count_between_runs_gives_the_same_bits(determinism, monkeypatch):
    # the BLAS budget, numba's threads, threads on or off: one training run's bits under each
    pytest.importorskip("threadpoolctl")
    determinism.enable_op_determinism()
    monkeypatch.setattr(_native, "idle_core", lambda: True)
    numba_threads = _numba_threads()
    runs = {}
    try:
        for budget, threads, on in [(1, 1, False), (2, 2, None), (4, 2, True), (2, 1, None), (3, 2, False)]:
            blas.set_threads(budget)
            _numba_threads(threads)
            previous = _native.set_threads_on(on)
            try:
                runs[(budget, threads, on)] = _train()
            finally:
                _native.set_threads_on(previous)
    finally:
        if numba_threads is not None:
            _numba_threads(numba_threads)
    first = next(iter(runs.values()))
    for setting, run in runs.items():
        assert run == first, setting


@pytest.mark.parametrize("deterministic, way", [(False, "measured"), (False, "threaded"), (False, "blocks"),
                                                (True, "blocks")])
def test_the_compiled_step_is_the_eager_step_bit_for_bit(determinism, monkeypatch, deterministic, way):
    # in both modes, whichever way (threads or not) the plan chose for each call, and whatever the load; by default
    # with the large products on OpenBLAS's own threads or as their one-thread blocks, whichever was faster here
    # (measured) or forced either way
    if deterministic:
        determinism.enable_op_determinism()
    monkeypatch.setattr(blas, "_ways", {})
    if way != "measured":
        monkeypatch.setattr(blas, "_faster_on_blas_threads", lambda *args: way == "threaded")
    threaded = blas.stats["threaded"]
    blas.set_threads(2)
    # (a product descend cuts into blocks never runs on OpenBLAS's threads: float64 products, which it does not
    # cut, take that way when it is found faster)
    ws, bs, xs, ys = _mlp(SIZES, BATCH, dtype=np.float64 if way == "threaded" else np.float32)
    eager, ve = _step_fn(ws, bs)
    compiled_fn, vc = _step_fn(ws, bs)
    compiled = ds.function(compiled_fn)
    ways = iter([True, False, None, True, False, False, True, None] * 3)
    for k in range(24):
        idle = next(ways)
        monkeypatch.setattr(_native, "idle_core", lambda idle=idle: bool(idle))
        x, y = ds.constant(xs[k % 3]), ds.constant(ys[k % 3])
        le, lc = eager(x, y).numpy(), compiled(x, y).numpy()
        assert le.tobytes() == lc.tobytes(), k
    for a, b in zip(vc, ve):
        assert a.numpy().tobytes() == b.numpy().tobytes()
    if way != "measured" and _native.cores() >= 2 and blas.pools():
        assert (blas.stats["threaded"] > threaded) == (way == "threaded")


def _bias_step(units, batch, seed):
    rng = np.random.default_rng(seed)
    w = ds.Variable(rng.standard_normal((20, units), dtype=np.float32))
    b = ds.Variable(rng.standard_normal(units, dtype=np.float32))

    def step(x, y):
        with ds.GradientTape() as tape:
            loss = ds.reduce_mean(ds.square(ds.matmul(x, w) + b - y))
        return tape.gradient(loss, [w, b])

    data = [(ds.constant(rng.standard_normal((batch, 20), dtype=np.float32)),
             ds.constant(rng.standard_normal((batch, units), dtype=np.float32))) for _ in range(4)]
    return step, data


@pytest.mark.parametrize("units", [1, 2, 3, 10])
@pytest.mark.parametrize("batch", [1, 7, 8, 9, 64])
def test_the_compiled_bias_gradient_is_the_eager_one_bit_for_bit(units, batch):
    # NumPy sums one column pairwise (a contiguous run: 8 partial sums from 8 rows on) and several columns row by
    # row: the compiled step's bias gradient must be the eager one either way
    step, data = _bias_step(units, batch, seed=100 * units + batch)
    compiled = ds.function(step)
    for x, y in data:
        eager = [g.numpy().tobytes() for g in step(x, y)]
        assert [g.numpy().tobytes() for g in compiled(x, y)] == eager


# ------------------------------------------------------------------ without threadpoolctl
_NO_THREADPOOLCTL = textwrap.dedent("""
    import sys
    import warnings

    class Blocker:  # threadpoolctl cannot be imported (a --no-deps install)
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "threadpoolctl":
                raise ImportError("No module named 'threadpoolctl'")

    sys.meta_path.insert(0, Blocker())
    import numpy as np
    import descend as ds
    from descend import _native
    from descend._native import blas, blas_pools

    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((128, 784), dtype=np.float32), rng.standard_normal((784, 512), dtype=np.float32)
    got = ds.matmul(ds.constant(a), ds.constant(b)).numpy()
    print("pools", blas.pools(), "threaded", blas_pools.blas_threaded())
    print("whole", got.tobytes() == np.matmul(a, b).tobytes(), blas.stats["split"] + blas.stats["in_turn"])
    previous = _native.set_threads_on(True)
    print("serial", _native.serial(2 ** 24))
    _native.set_threads_on(previous)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ds.config.experimental.enable_op_determinism()
        ds.config.experimental.enable_op_determinism()
    print("warned", [w.category.__name__ for w in caught], "threadpoolctl" in str(caught[0].message) if caught else None)
    print("imported", "threadpoolctl" in sys.modules)
""")


@pytest.mark.parametrize("env, threaded", [({}, True), ({"OPENBLAS_NUM_THREADS": "1"}, False),
                                           ({"OMP_NUM_THREADS": "1"}, False), ({"OPENBLAS_NUM_THREADS": "2"}, True)])
def test_without_threadpoolctl_the_kernels_run_on_one_thread_beside_a_threaded_blas(env, threaded):
    # descend cannot set NumPy's BLAS threads: products run whole on the BLAS's own threads, and descend's kernels
    # on one thread beside them (two pools spinning for the cores fight) unless the environment holds BLAS to one
    # thread; op determinism warns once that it cannot hold BLAS to one thread
    if _native.cores() < 2:
        pytest.skip("one core: BLAS runs one thread anyway")
    clean = {k: v for k, v in os.environ.items()
             if k not in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")}
    root = os.path.dirname(os.path.dirname(os.path.abspath(ds.__file__)))
    clean["PYTHONPATH"] = root + os.pathsep + clean.get("PYTHONPATH", "")
    out = subprocess.run([sys.executable, "-c", _NO_THREADPOOLCTL], capture_output=True, text=True, timeout=300,
                         env={**clean, **env})
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.strip().splitlines())
    assert lines["pools"] == f"() threaded {threaded}"
    assert lines["whole"] == "True 0"  # one BLAS call, never cut (no BLAS function descend can call)
    assert lines["serial"] == str(threaded or not _native.enabled())
    assert lines["warned"] == "['RuntimeWarning'] True"
    assert lines["imported"] == "False"


def test_the_blas_descend_holds_leaves_the_kernels_their_threads():
    pytest.importorskip("threadpoolctl")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no warning where descend holds the BLAS)
        ds.config.experimental.enable_op_determinism()
        ds.config.experimental.disable_op_determinism()
    assert blas.pools() and blas_pools.blas_threaded() is False and _native._beside_threaded_blas() is False
