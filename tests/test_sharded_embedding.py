"""``descend.distribute.ShardedEmbedding`` under ``mpiexec -n 2`` and ``-n 3``, launched from pytest, and in one process.

Run as a script (``mpiexec -n N python tests/test_sharded_embedding.py SCENARIO OUTDIR``) this file is the job
each rank runs; as a test module it launches those jobs and checks what every rank wrote. The model (two sharded
tables and a Dense layer on top) is float64 and small, so a job takes seconds.
"""

from __future__ import annotations

import json
import os
import random
import sys

import mpi_jobs
import numpy as np
import pytest
from mpi_jobs import MPIEXEC, needs_mpi

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STEPS = 20
GLOBAL_BATCH = 8  # 3 ranks: 3, 3 and 2 rows
ROWS = (23, 17)  # two tables: 23 rows split 8/8/7 over 3 ranks, 17 rows 6/6/5
CONFIGS = [(opt, mode) for opt in ("adam", "adagrad") for mode in ("lazy", "exact", "exact_lazy")]




# =============================================================================================== the rank side
def _data(seed=7, steps=STEPS):
    rng = np.random.default_rng(seed)
    n = steps * GLOBAL_BATCH
    ids_a = rng.integers(0, ROWS[0], size=(n, 3))
    ids_a[::5, 1] = ids_a[::5, 0]  # repeated ids inside an example: their gradient rows add up
    ids_b = rng.integers(0, ROWS[1], size=(n, 2))
    y = rng.normal(size=(n, 1))
    return ids_a, ids_b, y


class _Model:
    """Two sharded tables (sum and mean combiners) -> Dense(5, tanh) -> Dense(1); ``plain``: the same model
    with ordinary ``Embedding`` layers (one process)."""

    def __init__(self, ds, strategy=None, seed=0, plain=False):
        init_a = ds.initializers.RandomNormal(stddev=0.5, seed=1 + seed)
        init_b = ds.initializers.RandomUniform(-0.4, 0.4, seed=2 + seed)
        self.plain = plain
        if plain:
            self.a, self.b = ds.layers.Embedding(ROWS[0], 4, init_a), ds.layers.Embedding(ROWS[1], 3, init_b)
        else:
            self.a = ds.distribute.ShardedEmbedding(ROWS[0], 4, init_a, combiner="sum", strategy=strategy,
                                                    chunk_rows=5)
            self.b = ds.distribute.ShardedEmbedding(ROWS[1], 3, init_b, combiner="mean", strategy=strategy)
        self.h = ds.layers.Dense(5, activation="tanh", kernel_initializer=ds.initializers.GlorotUniform(seed=3 + seed))
        self.out = ds.layers.Dense(1, kernel_initializer=ds.initializers.GlorotUniform(seed=4 + seed))

    def __call__(self, ds, ids_a, ids_b):
        ea, eb = self.a(ds.constant(ids_a)), self.b(ds.constant(ids_b))
        if self.plain:
            ea, eb = ds.reduce_sum(ea, axis=1), ds.reduce_mean(eb, axis=1)
        return self.out(self.h(ds.concat([ea, eb], axis=1)))

    def roots(self, opt):
        return {"a": self.a, "b": self.b, "h": self.h, "out": self.out, "optimizer": opt}

    @property
    def variables(self):
        return [self.a.embeddings, self.b.embeddings] + self.h.trainable_weights + self.out.trainable_weights

    def values(self):
        """Every weight, the tables whole (gathered from the ranks)."""
        if self.plain:
            return [v.numpy() for v in self.variables]
        return [self.a.gather_table(), self.b.gather_table()] + [v.numpy() for v in self.variables[2:]]


def _optimizer(ds, name, mode):
    if name == "adam":
        return ds.optimizers.Adam(0.05, sparse_updates=mode)
    return ds.optimizers.Adagrad(0.3, sparse_updates=mode)


def _steps(ds, model, opt, data, first, last, strategy):
    """Updates ``first .. last - 1``: each rank takes its rows of every global batch of ``GLOBAL_BATCH``."""
    from descend.distribute.split import split_bounds

    ids_a, ids_b, y = data
    n = 1 if strategy is None else strategy.num_replicas_in_sync
    rank = 0 if strategy is None else strategy.group.rank
    for step in range(first, last):
        sl = slice(step * GLOBAL_BATCH, (step + 1) * GLOBAL_BATCH)
        a, b = split_bounds(GLOBAL_BATCH, n, rank)
        ba, bb, by = ids_a[sl][a:b], ids_b[sl][a:b], y[sl][a:b]

        def step_fn(ba=ba, bb=bb, by=by):
            with ds.GradientTape() as tape:
                per = ds.reduce_sum(ds.square(model(ds, ba, bb) - ds.constant(by)), axis=1)
                loss = ds.nn.compute_average_loss(per, global_batch_size=GLOBAL_BATCH)
            variables = model.variables
            opt.apply_gradients(zip(tape.gradient(loss, variables), variables))

        if strategy is None:
            step_fn()
        else:
            strategy.run(step_fn)


def _build(ds, strategy, **kwargs):
    if strategy is None:
        model = _Model(ds, **kwargs)
    else:
        with strategy.scope():
            model = _Model(ds, **kwargs)
    with (strategy.scope() if strategy is not None else _nothing()):
        model(ds, np.zeros((1, 3), np.int64), np.zeros((1, 2), np.int64))  # build: every rank takes part
    return model


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _rel(got, want):
    return max(float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300)) for a, b in zip(got, want))


def _equivalence(ds, out):
    ds.set_floatx("float64")
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    data = _data()
    results = {}
    for name, mode in CONFIGS:
        ds.clear_session()
        dist = _build(ds, strategy)
        with strategy.scope():
            opt = _optimizer(ds, name, mode)
        initial = dist.values()
        _steps(ds, dist, opt, data, 0, STEPS, strategy)
        got = dist.values()
        ds.clear_session()
        ref = _build(ds, None)
        ref_initial = ref.values()
        ref_opt = _optimizer(ds, name, mode)
        _steps(ds, ref, ref_opt, data, 0, STEPS, None)
        want = ref.values()
        results[f"{name}/{mode}"] = {
            "initial_equal": all(bool(np.array_equal(a, b)) for a, b in zip(initial, ref_initial)),
            "rel_err": _rel(got, want),
            "moved": max(float(np.max(np.abs(a - b))) for a, b in zip(want, ref_initial)),
            "shard_rows": [int(dist.a.embeddings.shape[0]), int(dist.b.embeddings.shape[0])],
            "slot_rows": int(opt.get_slot(dist.a.embeddings, opt.get_slot_names()[0]).shape[0]),
            "bytes_per_lookup": dist.a.bytes_per_lookup(),
        }
    ds.set_floatx("float32")
    return results


def _fit(ds, out):
    """``fit`` of a Sequential model with a sharded table under ``scope()`` against the one-process ``fit``."""
    ds.set_floatx("float64")
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(5)  # 41 rows: the last global batch of 1 row leaves the other ranks none
    ids, y = rng.integers(0, ROWS[0], size=(41, 3)), rng.normal(size=(41, 1))

    def make():
        model = ds.Sequential([
            ds.distribute.ShardedEmbedding(ROWS[0], 4, ds.initializers.RandomNormal(seed=8), combiner="sum"),
            ds.layers.Dense(1, kernel_initializer=ds.initializers.GlorotUniform(seed=9))])
        model(ds.constant(ids[:1]))  # built under scope(), as TF requires: fit then knows the model is replicated
        model.compile(optimizer=ds.optimizers.Adam(0.05, sparse_updates="exact_lazy"), loss="mse")
        return model

    with strategy.scope():
        dist = make()
    history = dist.fit(ids, y, batch_size=GLOBAL_BATCH, epochs=2, shuffle=False, verbose=0).history
    got = [dist.layers[0].gather_table()] + [w.numpy() for w in dist.layers[1].weights]
    ds.clear_session()
    ref = make()
    ref_history = ref.fit(ids, y, batch_size=GLOBAL_BATCH, epochs=2, shuffle=False, verbose=0).history
    want = [ref.layers[0].embeddings.numpy()] + [w.numpy() for w in ref.layers[1].weights]
    ds.set_floatx("float32")
    return {"rel_err": _rel(got, want), "loss": history["loss"], "ref_loss": ref_history["loss"]}


def _bad_ids(ds, out):
    """Rank 1 looks up an id out of range: every rank raises the same error, nobody hangs."""
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        layer = ds.distribute.ShardedEmbedding(10, 2)
    ids = np.array([[1, 2]]) if strategy.group.rank != 1 else np.array([[3, 12]])
    try:
        layer(ds.constant(ids))
    except ds.errors.InvalidArgumentError as e:
        message = str(e)
    else:
        message = None
    layer(ds.constant(np.array([[1, 9]])))  # the ranks are still in step afterwards
    try:  # a gradient outside strategy.run would train each rank on its whole batch: refused (no collective yet)
        with ds.GradientTape():
            layer(ds.constant(np.array([[1, 9]])))
    except ValueError as e:
        outside = str(e)
    else:
        outside = None
    with strategy.scope():
        opt = ds.optimizers.SGD(0.1, global_clipnorm=1.0)

    def step():
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(layer(ds.constant(np.array([[1, 9]]))))
        opt.apply_gradients([(tape.gradient(loss, layer.embeddings), layer.embeddings)])

    try:  # a norm of this rank's rows only would clip differently on each rank: refused on every rank
        strategy.run(step)
    except ValueError as e:
        clipped = str(e)
    else:
        clipped = None
    return {"message": message, "outside_run": outside, "clip": clipped}


def _rss_kib(field="VmRSS"):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def _memory(ds, out, width=64):
    """Build a ``rows x width`` float32 table (``SHARDED_MEMORY_ROWS``, default 200000 rows): the shard's bytes,
    and the RSS growth of building it."""
    rows = int(os.environ.get("SHARDED_MEMORY_ROWS", 200_000))
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    before, peak_before = _rss_kib(), _rss_kib("VmHWM")
    with strategy.scope():
        layer = ds.distribute.ShardedEmbedding(rows, width)
        layer.build()
    return {"table_bytes": rows * width * 4, "shard_bytes": int(layer.embeddings._value.nbytes),
            "rss_growth_kib": _rss_kib() - before, "peak_rss_growth_kib": _rss_kib("VmHWM") - peak_before,
            "peak_before_kib": peak_before}


CKPT_CONFIGS = [("adam", "exact_lazy"), ("adagrad", "lazy")]
CKPT_AT = 10  # the checkpoint is written after this many updates


def _reference(ds, name, mode, data):
    """The uninterrupted one-process run: the values after ``STEPS`` updates."""
    ds.clear_session()
    ref = _build(ds, None)
    opt = _optimizer(ds, name, mode)
    _steps(ds, ref, opt, data, 0, STEPS, None)
    return ref.values()


def _ckpt_save(ds, out):
    """Train ``CKPT_AT`` updates, write a checkpoint (every rank its rows) into ``out``, train on to ``STEPS``."""
    from descend.checkpoint import Checkpoint

    ds.set_floatx("float64")
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    data = _data()
    results = {}
    for name, mode in CKPT_CONFIGS:
        ds.clear_session()
        model = _build(ds, strategy)
        with strategy.scope():
            opt = _optimizer(ds, name, mode)
        _steps(ds, model, opt, data, 0, CKPT_AT, strategy)
        Checkpoint(**model.roots(opt)).write(os.path.join(out, f"ckpt-{name}-{mode}"))
        _steps(ds, model, opt, data, CKPT_AT, STEPS, strategy)
        got = model.values()
        results[f"{name}/{mode}"] = {"rel_err": _rel(got, _reference(ds, name, mode, data))}
    ds.set_floatx("float32")
    return results


def _ckpt_restore(ds, out, plain=False):
    """A fresh model (other initial values) restores what ``_ckpt_save`` wrote and trains from ``CKPT_AT`` to
    ``STEPS``: the values must be the uninterrupted one-process run's."""
    from descend.checkpoint import Checkpoint

    ds.set_floatx("float64")
    strategy = None if plain else ds.distribute.MultiWorkerMirroredStrategy()
    data = _data()
    saved = os.environ.get("SHARDED_CKPT_DIR", out)
    results = {}
    for name, mode in CKPT_CONFIGS:
        ds.clear_session()
        model = _build(ds, strategy, seed=50, plain=plain)
        if strategy is None:
            opt = _optimizer(ds, name, mode)
        else:
            with strategy.scope():
                opt = _optimizer(ds, name, mode)
        report = Checkpoint(**model.roots(opt)).restore(os.path.join(saved, f"ckpt-{name}-{mode}"))
        _steps(ds, model, opt, data, CKPT_AT, STEPS, strategy)
        got = model.values()
        results[f"{name}/{mode}"] = {"rel_err": _rel(got, _reference(ds, name, mode, data)),
                                     "restored": len(report.restored), "complete": bool(report.complete),
                                     "iterations": int(opt.iterations.numpy())}
    ds.set_floatx("float32")
    return results


SCENARIOS = {"equivalence": _equivalence, "fit": _fit, "bad_ids": _bad_ids, "memory": _memory, "ckpt_save": _ckpt_save,
             "ckpt_restore": _ckpt_restore}


# =============================================================================================== the pytest side
def _launch(n, scenarios, outdir, **extra_env):
    return mpi_jobs.run(__file__, n, scenarios, outdir, **extra_env)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One job per rank count runs the scenarios the tests below read."""
    if MPIEXEC is None:
        pytest.skip("mpiexec/mpi4py not installed (pip install 'descend[mpi]', which the test extra includes)")
    out = {}
    for n in (2, 3):
        out[n] = _launch(n, ["memory", "equivalence", "fit", "bad_ids"], tmp_path_factory.mktemp(f"n{n}"))
    return out


@pytest.fixture(scope="module")
def saved_at_3(tmp_path_factory):
    """A checkpoint written by 3 ranks after CKPT_AT updates (and that run's own end)."""
    if MPIEXEC is None:
        pytest.skip("mpiexec/mpi4py not installed (pip install 'descend[mpi]', which the test extra includes)")
    d = tmp_path_factory.mktemp("saved3")
    return d, _launch(3, ["ckpt_save"], d)


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("name,mode", CONFIGS)
def test_trains_like_one_process(runs, n, name, mode):
    for rank, result in enumerate(runs[n]):
        r = result["equivalence"][f"{name}/{mode}"]
        assert r["initial_equal"], f"rank {rank}: the sharded tables do not start as one process's"
        assert r["moved"] > 1e-3  # the run changed the weights: the comparison is not vacuous
        assert r["rel_err"] < 1e-10, (rank, r)


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_fit_trains_like_one_process(runs, n):
    for result in runs[n]:
        r = result["fit"]
        assert r["rel_err"] < 1e-10, r
        np.testing.assert_allclose(r["loss"], r["ref_loss"], rtol=1e-10)


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_each_rank_holds_its_rows_only(runs, n):
    from descend.distribute.split import split_bounds

    for rank, result in enumerate(runs[n]):
        r = result["equivalence"]["adam/exact"]
        want = [split_bounds(rows, n, rank)[1] - split_bounds(rows, n, rank)[0] for rows in ROWS]
        assert r["shard_rows"] == want
        assert r["slot_rows"] == want[0]  # the optimizer's slots live beside the rows, on the owner
        assert r["bytes_per_lookup"] > 0


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_memory_per_rank_is_a_share_of_the_table(runs, n):
    """The shard variable of a 200000 x 64 float32 table holds 1/N of its bytes (within a row per rank), and
    the bytes summed over the ranks are the table's: no replica."""
    shards = [result["memory"]["shard_bytes"] for result in runs[n]]
    table = runs[n][0]["memory"]["table_bytes"]
    assert sum(shards) == table
    for b in shards:
        assert abs(b - table / n) <= 64 * 4


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_ids_out_of_range_raise_on_every_rank(runs, n):
    for result in runs[n]:
        message = result["bad_ids"]["message"]
        assert message is not None and "rank 1" in message and "12" in message and "[0, 10)" in message
        assert "inside strategy.run()" in result["bad_ids"]["outside_run"]
        assert "`global_clipnorm` cannot clip the gradient of a table sharded" in result["bad_ids"]["clip"]


@needs_mpi
def test_checkpoint_run_continues_like_one_process(saved_at_3):
    d, results = saved_at_3
    assert sorted(os.listdir(d / "ckpt-adam-exact_lazy")) == ["manifest.json", "shard-1", "shard-2",
                                                              "tensors.safetensors"]
    manifest = json.load(open(d / "ckpt-adam-exact_lazy" / "manifest.json"))
    assert manifest["ranks"] == 3 and [s["rank"] for s in manifest["shards"]] == [1, 2]
    table = manifest["tables"]["a/embeddings"]
    assert table["row_ranges"][0][0] == 0 and table["row_ranges"][-1][1] == table["global_shape"][0]
    for result in results:
        for r in result["ckpt_save"].values():
            assert r["rel_err"] < 1e-10


@needs_mpi
def test_checkpoint_at_3_ranks_restores_at_2(saved_at_3, tmp_path):
    d, _ = saved_at_3
    for result in _launch(2, ["ckpt_restore"], tmp_path, SHARDED_CKPT_DIR=str(d)):
        for key, r in result["ckpt_restore"].items():
            assert r["complete"] and r["iterations"] == STEPS, (key, r)
            assert r["rel_err"] < 1e-10, (key, r)


@needs_mpi
@pytest.mark.parametrize("plain", [False, True], ids=["sharded_layer", "plain_embedding"])
def test_checkpoint_at_3_ranks_restores_in_one_process(saved_at_3, plain):
    import descend as ds

    d, _ = saved_at_3
    for key, r in _ckpt_restore(ds, str(d), plain=plain).items():
        assert r["complete"] and r["iterations"] == STEPS, (key, r)
        assert r["rel_err"] < 1e-10, (key, r)


if __name__ == "__main__":
    mpi_jobs.rank_main(SCENARIOS, sys.argv)


# =============================================================================================== one process
def test_one_process_is_an_ordinary_table():
    import descend as ds

    init = ds.initializers.RandomNormal(seed=11)
    sharded = ds.distribute.ShardedEmbedding(9, 4, init, combiner="mean")
    plain = ds.layers.Embedding(9, 4, init)
    ids = ds.constant([[1, 8, 8], [0, 2, 3]])
    got, want = sharded(ids), ds.reduce_mean(plain(ids), axis=1)
    assert sharded.num_shards == 1 and sharded.row_range == (0, 9) and sharded.embeddings.shape == (9, 4)
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert sharded.stats["lookups"] == 0  # nothing exchanged in one process
    assert ds.distribute.ShardedEmbedding(9, 4)(ids).shape == (2, 3, 4)  # combiner None: one vector per id


@pytest.mark.parametrize("make", [lambda ds: ds.initializers.RandomUniform(-1.0, 1.0, seed=3),
                                  lambda ds: ds.initializers.RandomNormal(0.5, 2.0, seed=4),
                                  lambda ds: ds.initializers.Constant(0.25),
                                  lambda ds: ds.initializers.TruncatedNormal(seed=5),  # whole draw, sliced
                                  lambda ds: ds.initializers.GlorotUniform(seed=6)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_each_shard_holds_the_rows_one_process_draws(make, dtype):
    """Drawn in chunks of 7 rows, each of 4 shards equals its rows of the whole table drawn at once."""
    import descend as ds
    from descend.distribute import comm
    from descend.distribute.sharded import _initial_rows, _seeded
    from descend.distribute.split import split_bounds

    whole = np.asarray(make(ds)((50, 3), dtype=dtype))
    parts = [_initial_rows(_seeded(make(ds), comm.LocalGroup()), (50, 3), np.dtype(dtype), *split_bounds(50, 4, r), 7)
             for r in range(4)]
    assert all(p.dtype == dtype for p in parts)
    np.testing.assert_array_equal(np.concatenate(parts), whole)


def test_unseeded_initializer_follows_pythons_random_as_keras():
    import descend as ds

    random.seed(123)
    a = ds.distribute.ShardedEmbedding(5, 2)
    a.build()
    random.seed(123)
    b = ds.layers.Embedding(5, 2)
    b.build()
    np.testing.assert_array_equal(a.embeddings.numpy(), b.embeddings.numpy())


@pytest.mark.parametrize("kwargs,match", [
    ({"input_dim": 0}, "`input_dim` of ShardedEmbedding must be a positive integer"),
    ({"output_dim": 2.5}, "`output_dim` of ShardedEmbedding must be a positive integer"),
    ({"combiner": "max"}, "`combiner` must be None, 'sum' or 'mean'. Received: combiner='max'"),
    ({"chunk_rows": -1}, "`chunk_rows`"),
])
def test_bad_arguments(kwargs, match):
    import descend as ds

    args = {"input_dim": 5, "output_dim": 2, **kwargs}
    with pytest.raises(ValueError, match=match.replace("(", r"\(").replace(")", r"\)")):
        ds.distribute.ShardedEmbedding(**args)


def test_ids_out_of_range_in_one_process():
    import descend as ds

    with pytest.raises(ds.errors.InvalidArgumentError, match="out of range|ids"):
        ds.distribute.ShardedEmbedding(5, 2)(ds.constant([[1, 5]]))


def test_generator_seed_is_refused():
    import descend as ds

    layer = ds.distribute.ShardedEmbedding(5, 2, ds.initializers.RandomNormal(seed=np.random.default_rng(0)))
    with pytest.raises(ValueError, match="integer seed or None"):
        layer.build()


def test_checkpoint_with_another_global_shape_is_refused(tmp_path):
    import descend as ds
    from descend.checkpoint import Checkpoint, CheckpointMismatchError

    saved = ds.distribute.ShardedEmbedding(6, 2)
    saved.build()
    path = Checkpoint(table=saved).write(tmp_path / "ckpt")
    for other in (ds.distribute.ShardedEmbedding(7, 2), ds.distribute.ShardedEmbedding(6, 3), ds.layers.Embedding(7, 2)):
        other.build()
        before = other.embeddings.numpy()
        with pytest.raises(CheckpointMismatchError, match=r"table/embeddings: expected shape \((7, 2|6, 3)\) float32, "
                                                          r"the checkpoint has shape \(6, 2\)"):
            Checkpoint(table=other).restore(path)
        np.testing.assert_array_equal(other.embeddings.numpy(), before)  # nothing restored


def test_checkpoint_replaces_atomically_and_refuses_foreign_directories(tmp_path):
    import descend as ds
    from descend.checkpoint import Checkpoint

    table = ds.distribute.ShardedEmbedding(6, 2)
    table.build()
    ckpt = Checkpoint(table=table)
    first = ckpt.save(tmp_path / "ckpt")
    _ = table.embeddings.assign(np.ones((6, 2), np.float32))
    again = ckpt.write(first)  # replaces the checkpoint in place
    # no temporary left beside it; save named it in the folder's checkpoint file, as TF's save does
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "ckpt-1"]
    _ = table.embeddings.assign(np.zeros((6, 2), np.float32))
    ckpt.restore(again)
    np.testing.assert_array_equal(table.embeddings.numpy(), np.ones((6, 2), np.float32))
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError, match="is not a checkpoint; refusing to replace it"):
        ckpt.write(tmp_path / "other")
    assert (tmp_path / "other" / "notes.txt").read_text() == "mine"
    with pytest.raises(FileNotFoundError, match="manifest.json is missing"):
        ckpt.restore(tmp_path / "other")


def test_restore_before_build_is_kept_for_the_shard(tmp_path):
    """A checkpoint restored before the table is built: the built shard takes the saved rows, not fresh ones."""
    import descend as ds
    from descend.checkpoint import Checkpoint

    saved = ds.distribute.ShardedEmbedding(6, 2, ds.initializers.RandomNormal(seed=1))
    saved.build()
    path = Checkpoint(table=saved).write(tmp_path / "ckpt")
    later = ds.distribute.ShardedEmbedding(6, 2, ds.initializers.RandomNormal(seed=2))
    report = Checkpoint(table=later).restore(path)
    assert report.deferred == ["table/embeddings"]
    later.build()
    np.testing.assert_array_equal(later.embeddings.numpy(), saved.embeddings.numpy())
