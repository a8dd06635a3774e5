"""descend.distribute under ``mpiexec -n 2`` and ``-n 3``, launched from pytest.

Run as a script (``mpiexec -n N python tests/test_distribute_mpi.py SCENARIO OUTDIR``) this file is
the job each rank runs; as a test module it launches those jobs and checks what rank 0 wrote.
The models are float64 and small (a few hundred parameters) so every job takes seconds.
"""

from __future__ import annotations

import csv
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import mpi_jobs
import numpy as np
import pytest
from mpi_jobs import MPIEXEC, needs_mpi

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STEPS = 20
LOCAL_BATCH = 4




# =============================================================================================== the rank side
def _data(rng_seed, steps, global_batch, micro=1):
    rng = np.random.default_rng(rng_seed)
    n = steps * micro * global_batch
    x = rng.normal(size=(n, 6))
    ids = rng.integers(0, 20, size=(n, 3))
    y = rng.normal(size=(n, 1))
    return x, ids, y


def _model(ds, dtype, seed):
    rng = np.random.default_rng(seed)
    emb = ds.Variable(rng.normal(size=(20, 4)).astype(dtype), name="embedding")
    w1 = ds.Variable((rng.normal(size=(10, 12)) * 0.3).astype(dtype), name="dense/kernel")
    b1 = ds.Variable(np.zeros(12, dtype), name="dense/bias")
    w2 = ds.Variable((rng.normal(size=(12, 1)) * 0.3).astype(dtype), name="out/kernel")
    return [emb, w1, b1, w2]


def _per_example(ds, vs, x, ids, y):
    emb, w1, b1, w2 = vs
    e = ds.reduce_sum(ds.gather(emb, ds.constant(ids)), axis=1)  # IndexedSlices gradient for emb
    h = ds.tanh(ds.matmul(ds.concat([ds.constant(x), e], axis=1), w1) + b1)
    return ds.reduce_sum(ds.square(ds.matmul(h, w2) - ds.constant(y)), axis=1)


def _train(ds, case, vs, data, *, strategy, n, rank, micro, dtype, v1_minimize=False, **overrides):
    """20 updates; with a strategy each rank takes its rows of every global batch."""
    from descend.distribute.split import split_bounds

    x, ids, y = (a.astype(dtype) if a.dtype.kind == "f" else a for a in data)
    opt = case.make(**overrides) if strategy is None else None
    if strategy is not None:
        with strategy.scope():
            opt = case.make(**overrides)
    gb = n * LOCAL_BATCH
    for step in range(STEPS * micro):
        sl = slice(step * gb, (step + 1) * gb)
        bx, bi, by = x[sl], ids[sl], y[sl]
        if strategy is not None:
            a, b = split_bounds(gb, n, rank)
            bx, bi, by = bx[a:b], bi[a:b], by[a:b]

        def step_fn(bx=bx, bi=bi, by=by):
            if v1_minimize:
                opt.minimize(lambda: ds.reduce_mean(_per_example(ds, vs, bx, bi, by)), var_list=vs)
                return
            with ds.GradientTape() as tape:
                per = _per_example(ds, vs, bx, bi, by)
                loss = ds.nn.compute_average_loss(per, global_batch_size=gb)
            opt.apply_gradients(zip(tape.gradient(loss, vs), vs))

        if strategy is None:
            step_fn()
        else:
            strategy.run(step_fn)
    return [v.numpy() for v in vs]


def _rel(got, want):
    """The largest, over the variables, of max|got - want| / max|want| (a per-tensor relative error)."""
    # (a tensor the reference drives to exactly zero, as AdagradDA's L1 term can, must be exactly zero here)
    return max(float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(b))), 1e-300)) for a, b in zip(got, want))


# with 3 ranks on a 2-core CI machine the ranks outnumber the cores: there every configuration runs plain,
# and these also with accumulation and clipping (2 ranks run every configuration with every variant)
THREE_RANK_VARIANTS = ("sgd_momentum", "adam", "adagrad", "ftrl", "lamb", "adamw", "momentum_v1", "adam_v1")


def _equivalence(ds, out, *, dtype, cases=None):
    import optimizer_cases

    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    n, rank = strategy.num_replicas_in_sync, strategy.group.rank
    results = {}
    variants = {"plain": (1, {}), "accumulate": (2, {"gradient_accumulation_steps": 2}),
                "clip": (1, {"global_clipnorm": 0.05})}
    for case in optimizer_cases.CASES:
        if cases is not None and case.id not in cases:
            continue
        for variant, (micro, overrides) in variants.items():
            if n > 2 and cases is None and variant != "plain" and case.id not in THREE_RANK_VARIANTS:
                continue
            data = _data(7, STEPS, n * LOCAL_BATCH, micro)
            with strategy.scope():
                dist_vars = _model(ds, dtype, seed=100 + rank)  # rank-dependent init: the broadcast must fix it
            dist = _train(ds, case, dist_vars, data, strategy=strategy, n=n, rank=rank, micro=micro, dtype=dtype,
                          **overrides)
            ref = _train(ds, case, _model(ds, dtype, seed=100), data, strategy=None, n=n, rank=0, micro=micro,
                         dtype=dtype, **overrides)
            err = _rel(dist, ref)
            moved = max(float(np.max(np.abs(b - a0))) for b, a0 in zip(ref, _model(ds, dtype, seed=100)))
            results[f"{case.id}/{variant}"] = {"rel_err": err, "moved": moved,
                                               "digest": [float(np.sum(a * np.arange(a.size).reshape(a.shape)))
                                                          for a in dist]}
            ds.clear_session()
    return results


def _v1_minimize(ds, out):
    import optimizer_cases

    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    n, rank = strategy.num_replicas_in_sync, strategy.group.rank
    results = {}
    for case in optimizer_cases.CASES:
        if not case.id.endswith("_v1"):
            continue
        data = _data(11, STEPS, n * LOCAL_BATCH)
        with strategy.scope():
            dist_vars = _model(ds, np.float64, seed=5)
        dist = _train(ds, case, dist_vars, data, strategy=strategy, n=n, rank=rank, micro=1, dtype=np.float64,
                      v1_minimize=True)
        ref = _train(ds, case, _model(ds, np.float64, seed=5), data, strategy=None, n=n, rank=0, micro=1,
                     dtype=np.float64, v1_minimize=True)
        results[case.id] = _rel(dist, ref)
        ds.clear_session()
    return results


def _fit(ds, out):
    """fit under scope() against the one-process fit from the same initial weights (41 rows, global batch
    10: uneven splits, and a last batch of one row that leaves the other replicas none)."""
    ds.set_floatx("float64")
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(41, 5)), rng.normal(size=(41, 2))
    xv, yv = rng.normal(size=(13, 5)), rng.normal(size=(13, 2))

    def make():
        model = ds.Sequential([ds.layers.Dense(8, activation="tanh", kernel_regularizer=ds.regularizers.L2(0.01)),
                               ds.layers.Dense(2)])
        model(ds.constant(x[:1]))
        model.compile(optimizer=ds.optimizers.Adam(0.01, global_clipnorm=0.5), loss="mse", metrics=["mae"])
        return model

    with strategy.scope():
        model = make()
    reference = make()
    reference.set_weights(model.get_weights())
    results = {}
    for name, m in (("dist", model), ("ref", reference)):
        h = m.fit(x, y, batch_size=10, epochs=3, shuffle=True, seed=1, validation_data=(xv, yv), verbose=0)
        results[name] = {"history": h.history, "weights": [w.tolist() for w in m.get_weights()],
                         "evaluate": m.evaluate(xv, yv, batch_size=4, verbose=0, return_dict=True)}
    ds.set_floatx("float32")
    return results


CKPT_BATCH = 8  # the global batch stays 8 whatever the number of processes (3 ranks: 3, 3, 2 rows)


def _ckpt_steps(ds, strategy, vs, opt, data, first, last):
    from descend.distribute.split import split_bounds

    x, ids, y = data
    n, rank = strategy.num_replicas_in_sync, strategy.group.rank
    for step in range(first, last):
        a, b = split_bounds(CKPT_BATCH, n, rank)
        sl = slice(step * CKPT_BATCH + a, step * CKPT_BATCH + b)

        def fn(sl=sl):
            with ds.GradientTape() as tape:
                loss = ds.nn.compute_average_loss(_per_example(ds, vs, x[sl], ids[sl], y[sl]),
                                                  global_batch_size=CKPT_BATCH)
            opt.apply_gradients(zip(tape.gradient(loss, vs), vs))

        strategy.run(fn)


def _ckpt_setup(ds):
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        vs = _model(ds, np.float64, seed=9)
        opt = ds.optimizers.Adam(0.01)
    return strategy, vs, opt, _data(21, 1, CKPT_BATCH * STEPS)


def _ckpt_save(ds, out):
    """10 steps, a checkpoint written by rank 0, 10 more: the uninterrupted run's weights."""
    strategy, vs, opt, data = _ckpt_setup(ds)
    _ckpt_steps(ds, strategy, vs, opt, data, 0, STEPS // 2)
    if strategy.group.rank == 0:
        ds.checkpoint.Checkpoint(variables=vs, optimizer=opt).write(os.path.join(out, "ckpt"))
    strategy.group.barrier()
    _ckpt_steps(ds, strategy, vs, opt, data, STEPS // 2, STEPS)
    return [v.numpy().tolist() for v in vs]


def _ckpt_restore(ds, out):
    """The checkpoint restored on this job's number of processes, then the last 10 steps."""
    strategy, vs, opt, data = _ckpt_setup(ds)
    ds.checkpoint.Checkpoint(variables=vs, optimizer=opt).read(os.path.join(os.environ["DESCEND_TEST_CKPT"], "ckpt"))
    assert int(opt.iterations.numpy()) == STEPS // 2
    _ckpt_steps(ds, strategy, vs, opt, data, STEPS // 2, STEPS)
    return [v.numpy().tolist() for v in vs]


def _surface(ds, out):
    """Datasets, reduce, all_reduce, Horovod, sparse exchange sizes, broadcast."""
    import descend.distribute.horovod as hvd

    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    n, rank = strategy.num_replicas_in_sync, strategy.group.rank
    res = {"n": n, "rank": hvd.rank(), "size": hvd.size(), "local_rank": hvd.local_rank()}
    # a global batch of 7 rows over n replicas: array_split, deterministic
    rows = np.arange(14, dtype=np.float64).reshape(7, 2)
    ds_ = ds.data.Dataset.from_tensor_slices((rows, np.arange(7))).batch(7)
    got = [(x.numpy().tolist(), y.numpy().tolist()) for x, y in strategy.experimental_distribute_dataset(ds_)]
    res["dataset"] = strategy.gather(ds.constant(got[0][1]), axis=0).numpy().tolist()
    res["local_rows"] = len(got[0][1])

    def fn(ctx):
        res["input_context"] = [ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync]
        return [np.full((2,), ctx.input_pipeline_id)]

    res["from_function"] = [x.tolist() for x in strategy.distribute_datasets_from_function(fn)]
    value = ds.constant([float(rank + 1), 2.0 * (rank + 1)], dtype="float64")
    res["reduce_sum"] = strategy.reduce("SUM", value).numpy().tolist()
    res["reduce_mean"] = strategy.reduce(ds.distribute.ReduceOp.MEAN, value).numpy().tolist()
    res["reduce_mean_axis"] = float(strategy.reduce("MEAN", ds.constant(np.arange(rank + 1, dtype=np.float64)), axis=0))
    res["replica_context_outside"] = ds.distribute.get_replica_context() is not None
    with strategy.scope():
        res["cross_replica"] = ds.distribute.get_replica_context() is None
        w = ds.Variable(np.full(3, float(rank)), name="w")  # broadcast from rank 0 at creation
    res["broadcast"] = w.numpy().tolist()

    def replica_fn():
        ctx = ds.distribute.get_replica_context()
        s = ctx.all_reduce("SUM", {"a": ds.constant([1.0]), "b": [ds.constant(float(ctx.replica_id_in_sync_group))]})
        sparse = ctx.all_reduce("SUM", ds.IndexedSlices(ds.constant([[1.0, 2.0]]), ds.constant([rank]), (4, 2)))
        return s["a"].numpy().tolist(), float(s["b"][0]), ds.convert_to_tensor(sparse).numpy().tolist()

    res["all_reduce"] = strategy.run(replica_fn)
    # Horovod: averaged gradients; broadcast_variables
    v = ds.Variable(np.array([1.0, 2.0]) * (rank + 1), name="hv")
    hvd.broadcast_variables([v], root_rank=n - 1)
    res["hvd_broadcast"] = v.numpy().tolist()
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(v * v) * float(rank + 1)
    tape = hvd.DistributedGradientTape(tape)
    res["hvd_grad"] = tape.gradient(loss, [v])[0].numpy().tolist()
    res["hvd_allreduce_sum"] = hvd.allreduce(ds.constant([float(rank)]), op=hvd.Sum).numpy().tolist()
    # the sparse exchange moves rows, never the table
    table = ds.Variable(np.zeros((10000, 8)), name="table")
    opt = hvd.DistributedOptimizer(ds.optimizers.SGD(0.1), op=hvd.Sum)
    before = dict(opt_stats(hvd))
    opt.apply_gradients([(ds.IndexedSlices(ds.constant(np.ones((2, 8))), ds.constant([rank, rank + 1]), (10000, 8)),
                          table)])
    after = opt_stats(hvd)
    res["sparse_bytes"] = after["sparse_bytes"] - before["sparse_bytes"]
    res["dense_bytes"] = after["dense_bytes"] - before["dense_bytes"]
    res["table_rows"] = table.numpy()[: n + 1, 0].tolist()
    # compute_average_loss without global_batch_size: local batch * replicas
    res["cal"] = strategy.run(lambda: float(ds.nn.compute_average_loss(ds.constant([1.0, 3.0]))))
    res["srl"] = strategy.run(lambda: float(ds.nn.scale_regularization_loss(ds.constant(6.0))))
    return res


def opt_stats(hvd):
    ex = hvd._exchange(False, hvd.DEFAULT_BUCKET_BYTES)
    return dict(ex.stats)


def _repeat(ds, out):
    return _equivalence(ds, out, dtype=np.float64, cases=["adam", "lamb", "ftrl"])


def _float32(ds, out):
    return _equivalence(ds, out, dtype=np.float32, cases=["sgd_momentum", "adam", "adagrad", "rmsprop"])


def _mismatch(ds, out):
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.group.rank
    w = ds.Variable(np.zeros(3), name="w")
    extra = ds.Variable(np.zeros(4 if rank == 0 else 5), name="b")  # rank 1 disagrees on the shape
    with strategy.scope():
        opt = ds.optimizers.SGD(0.1)
    strategy.run(lambda: opt.apply_gradients([(np.ones(3), w), (np.ones(extra.shape), extra)]))


def _mismatch_variable(ds, out):
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        ds.Variable(np.zeros(3), name="w")
        ds.Variable(np.zeros(4, np.float64 if strategy.group.rank == 0 else np.float32), name="b")


def _raise(ds, out):
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        w = ds.Variable(np.zeros(3), name="w")
        opt = ds.optimizers.SGD(0.1)
    for step in range(1000):
        if step == 3 and strategy.group.rank == 1:
            raise RuntimeError("boom on rank 1 at step 3")
        strategy.run(lambda: opt.apply_gradients([(np.ones(3), w)]))


def _sigkill(ds, out):
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    with strategy.scope():
        w = ds.Variable(np.zeros(3), name="w")
        opt = ds.optimizers.SGD(0.1)
    for step in range(100000):
        if step == 50 and strategy.group.rank == 1:
            os.kill(os.getpid(), signal.SIGKILL)
        strategy.run(lambda: opt.apply_gradients([(np.ones(3), w)]))


def _exchange(ds, out):
    """GradientExchange over MPI, both algorithms: the rank-order sum on every rank, the inputs only read."""
    from descend.distribute import collectives, comm

    group = comm.world()
    rng = np.random.default_rng(group.rank)
    ro = rng.normal(size=(333, 401)).astype(np.float32)
    ro.setflags(write=False)
    grads = [rng.normal(size=7).astype(np.float32), rng.normal(size=(611, 300)).astype(np.float32).T, ro,
             rng.normal(size=(200, 171)), rng.normal(size=5), rng.normal(size=40011).astype(np.float16),
             np.zeros((0, 3), np.float32)]
    names = [f"g{k}" for k in range(len(grads))]
    before = [g.copy() for g in grads]
    everyone = group.allgather_object(grads)
    res = {}
    for scatter in (0, collectives.DEFAULT_SCATTER_BYTES, 1 << 40):
        for average in (False, True):
            ex = collectives.GradientExchange(group, scatter_bytes=scatter)
            for reuse in (False, True, True):
                got = ex.exchange(grads, names, average=average, reuse=reuse)
            errors = []
            for k, g in enumerate(got):
                want = np.array(everyone[0][k], copy=True)
                for other in everyone[1:]:
                    want = want + other[k]
                if average:
                    want = want / want.dtype.type(group.size)
                same = g.dtype == want.dtype and g.shape == want.shape
                errors.append(float(np.max(np.abs(g - want), initial=0)) if same else float("inf"))
            res[f"{scatter}/{average}"] = {"errors": errors, "bytes": [hashlib.sha256(g.tobytes()).hexdigest()
                                                                       for g in got],
                                           "collectives": ex.stats["collectives"]}
    res["untouched"] = all(np.array_equal(a, b) for a, b in zip(grads, before))
    return res


def _scattered_training(ds, out):
    """The equivalence of N ranks with one process when every bucket takes the scattered reduce."""
    from descend.distribute import collectives

    default = collectives.DEFAULT_SCATTER_BYTES
    collectives.DEFAULT_SCATTER_BYTES = 0
    try:
        return _equivalence(ds, out, dtype=np.float64, cases=["sgd_momentum", "adam", "adagrad", "ftrl", "lamb"])
    finally:
        collectives.DEFAULT_SCATTER_BYTES = default


def _nonfinite(ds, out):
    """A NaN or Inf in one rank's gradient (or a sum that overflows): every rank skips, or raises, together,
    and the job carries on (no rank waits in an exchange the others left)."""
    import descend.distribute.horovod as hvd

    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    n, rank = strategy.num_replicas_in_sync, strategy.group.rank
    res = {}

    def run(make, steps=4, bad_step=1, value=np.nan, every_rank=False, use_strategy=True):
        ds.clear_session()
        ctx = strategy.scope() if use_strategy else ds.name_scope("m")
        with ctx:
            w = ds.Variable(np.zeros(3), name="w")
            u = ds.Variable(np.zeros(2), name="u")
        opt = make()
        errors = []
        for step in range(steps):
            g = np.ones(3) * (rank + 1)
            if step == bad_step and (every_rank or rank == n - 1):
                g[0] = value
            try:
                if use_strategy:
                    strategy.run(lambda g=g: opt.apply_gradients([(g, w), (np.ones(2), u)]))
                else:
                    opt.apply_gradients([(g, w), (np.ones(2), u)])
            except ds.errors.InvalidArgumentError as e:
                errors.append(str(e))
        scale = getattr(opt, "dynamic_scale", None)
        return {"w": w.numpy().tolist(), "u": u.numpy().tolist(), "iterations": int(opt.iterations.numpy()),
                "skipped": int(getattr(opt, "skipped_steps", 0)), "errors": errors,
                "scale": None if scale is None else float(scale.numpy())}

    res["skip"] = run(lambda: ds.optimizers.SGD(0.1, on_nonfinite="skip"))
    res["raise"] = run(lambda: ds.optimizers.SGD(0.1))
    res["inf"] = run(lambda: ds.optimizers.Adam(0.1, on_nonfinite="skip"), value=np.inf)
    res["overflow"] = run(lambda: ds.optimizers.SGD(0.1, on_nonfinite="skip"), value=1e308, every_rank=True)
    res["accumulate"] = run(lambda: ds.optimizers.SGD(0.1, on_nonfinite="skip", gradient_accumulation_steps=2),
                            steps=6, bad_step=2)
    res["horovod"] = run(lambda: hvd.DistributedOptimizer(ds.optimizers.SGD(0.1, on_nonfinite="skip"), op=hvd.Sum),
                         use_strategy=False)
    # a loss-scale optimizer skips (and halves its scale) on every rank together
    res["loss_scale"] = run(lambda: ds.mixed_precision.LossScaleOptimizer(ds.optimizers.SGD(0.1)), value=np.inf)
    res["horovod_accumulate"] = run(lambda: hvd.DistributedOptimizer(
        ds.optimizers.SGD(0.1, on_nonfinite="skip", gradient_accumulation_steps=2), op=hvd.Sum), steps=6, bad_step=2,
        use_strategy=False)
    return res


def _rejected(ds, out):
    """A gradient one rank's optimizer rejects (a wrong shape, an index out of range, a wrong dtype, not a pair)
    while the program catches the error and carries on: every rank raises in that step, nothing changes
    anywhere, and the job goes on together (no rank waits for an exchange that will not come)."""
    import descend.distribute.horovod as hvd

    n, rank = ds.distribute.MultiWorkerMirroredStrategy().num_replicas_in_sync, None
    res = {}

    def bad_gradient(kind, w):
        if kind == "shape":
            return [(np.ones(4), w)]
        if kind == "index":
            return [(ds.IndexedSlices(ds.constant(np.ones((1, 3))), ds.constant([7]), (2, 3)), w)]
        if kind == "dtype":
            return [(np.array(["a", "b", "c"]), w)]
        return [(np.ones(3),)]  # not a (gradient, variable) pair

    def run(kind, make, strategy_kwargs=None, steps=4, bad_step=1, mode="run"):
        ds.clear_session()
        strategy = ds.distribute.MultiWorkerMirroredStrategy(**(strategy_kwargs or {}))
        nonlocal rank
        rank = strategy.group.rank
        with strategy.scope() if mode != "horovod" else ds.name_scope("m"):
            w = ds.Variable(np.zeros((2, 3)) if kind == "index" else np.zeros(3), name="w")
            u = ds.Variable(np.zeros(2), name="u")
            opt = make()
        errors = []
        for step in range(steps):
            good = [(np.ones(w.shape) * (rank + 1), w), (np.ones(2), u)]
            pairs = bad_gradient(kind, w) + good[1:] if step == bad_step and rank == n - 1 else good
            try:
                if mode == "run":
                    strategy.run(lambda pairs=pairs: opt.apply_gradients(pairs))
                else:  # outside strategy.run, the pairs as a zip: the strategy is found by the variables
                    opt.apply_gradients(zip(*zip(*pairs)) if mode == "zip" else pairs)
            except Exception as e:  # noqa: BLE001 - the program carries on, as the issue's repro does
                errors.append(type(e).__name__ + ": " + str(e))
        return {"w": w.numpy().tolist(), "u": u.numpy().tolist(), "iterations": int(opt.iterations.numpy()),
                "errors": errors}

    for kind in ("shape", "index", "dtype", "pair"):
        res[kind] = run(kind, lambda: ds.optimizers.SGD(0.1))
    res["zip"] = run("shape", lambda: ds.optimizers.SGD(0.1), mode="zip")
    res["adam_zero"] = run("shape", lambda: ds.optimizers.Adam(0.1), {"shard_optimizer_state": True})
    res["accumulate"] = run("shape", lambda: ds.optimizers.SGD(0.1, gradient_accumulation_steps=2), steps=5)
    res["horovod"] = run("shape", lambda: hvd.DistributedOptimizer(ds.optimizers.SGD(0.1), op=hvd.Sum),
                         mode="horovod")
    res["rank"] = rank
    return res


def _fit_io(ds, out):
    """A model built lazily under ``scope()`` (no input shape: its variables appear inside ``fit``), shuffled
    without a seed but under a global seed, with the callbacks that write files and one that stops training
    on one rank only; then ``save`` and ``save_weights`` from every rank into the same paths."""
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    rank = strategy.group.rank
    folder = os.path.join(out, "io")
    if rank == 0:
        os.makedirs(folder, exist_ok=True)
    strategy.group.barrier()
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(48, 4)), rng.normal(size=(48, 1))

    class StopOnOneRank(ds.callbacks.Callback):  # a time limit, say: true on one rank only
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 2 and rank == strategy.num_replicas_in_sync - 1:
                self.model.stop_training = True

    def train(distributed):
        ds.clear_session()
        ds.set_floatx("float64")
        ds.keras.utils.set_random_seed(3)
        scope = strategy.scope() if distributed else ds.name_scope("single")
        with scope:
            model = ds.Sequential([ds.layers.Dense(6, activation="tanh"), ds.layers.Dense(1)])
            model.compile(optimizer=ds.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
        callbacks = [StopOnOneRank()]
        if distributed:
            callbacks += [ds.callbacks.ModelCheckpoint(os.path.join(folder, "best"), monitor="loss",
                                                       save_best_only=True, save_weights_only=True),
                          ds.callbacks.CSVLogger(os.path.join(folder, "log.csv"))]
        history = model.fit(x, y, batch_size=12, epochs=6, verbose=0, callbacks=callbacks)
        return model, history.history

    try:
        model, dist = train(True)
        model.save(os.path.join(folder, "model"))
        model.save_weights(os.path.join(folder, "weights"))
        saved = sorted(os.listdir(folder))  # every rank returns once the files are in place
        weights = [w.numpy().tolist() for w in model.weights]
        _, single = train(False) if rank == 0 else (None, None)
        with strategy.scope():  # a table sharded over the ranks: every rank writes its rows
            sharded = ds.Sequential([ds.distribute.ShardedEmbedding(10, 2, strategy=strategy)])
            sharded(np.array([[1, 2]]))
        try:
            sharded.save_weights(os.path.join(folder, "sharded"))
            refused = sorted(os.listdir(os.path.join(folder, "sharded")))
        except ValueError as e:
            refused = str(e)
    finally:
        ds.set_floatx("float32")
        ds.random.set_seed(None)
    return {"history": dist, "single": single, "saved": saved, "weights": weights, "refused": refused,
            "csv": open(os.path.join(folder, "log.csv")).read().splitlines()}


def _horovod_more(ds, out):
    """Horovod's collectives on tensors and objects, and a Keras program in Horovod's style: each rank builds
    its own model (its own random init) and fits its own shard, with DistributedOptimizer and the two
    callbacks."""
    import descend.distribute.horovod as hvd

    hvd.init()
    r, n = hvd.rank(), hvd.size()
    res = {"allgather": hvd.allgather(np.full((r + 1, 2), float(r))).numpy().tolist(),
           "broadcast": hvd.broadcast(np.arange(3.0) + 10 * r, root_rank=n - 1).numpy().tolist(),
           "broadcast_object": hvd.broadcast_object({"rank": r}, root_rank=1),
           "allgather_object": hvd.allgather_object(r * r)}
    try:
        hvd.allgather(np.zeros((1, r + 2)))
    except ValueError as e:
        res["allgather_error"] = str(e)
    ds.clear_session()
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(24 * n, 3)), rng.normal(size=(24 * n, 1))
    ds.keras.utils.set_random_seed(100 + r)  # a different init on every rank: the callback must fix it
    model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(5, activation="tanh"), ds.layers.Dense(1)])
    model.compile(optimizer=hvd.DistributedOptimizer(ds.optimizers.Adam(0.01)), loss="mse", metrics=["mae"])
    history = model.fit(x[r::n], y[r::n], batch_size=6, epochs=3, verbose=0, shuffle=False,
                        callbacks=[hvd.callbacks.BroadcastGlobalVariablesCallback(0),
                                   hvd.callbacks.MetricAverageCallback()])
    res["weights"] = [w.numpy().tolist() for w in model.weights]
    res["history"] = history.history
    ds.random.set_seed(None)
    return res


SCENARIOS = {"horovod_more": _horovod_more, "equivalence": lambda ds, out: _equivalence(ds, out, dtype=np.float64), "v1": _v1_minimize,
             "exchange": _exchange, "scattered": _scattered_training, "nonfinite": _nonfinite, "fit_io": _fit_io,
             "rejected": _rejected,
             "surface": _surface, "repeat": _repeat, "float32": _float32, "fit": _fit, "ckpt_save": _ckpt_save,
             "ckpt_restore": _ckpt_restore, "mismatch": _mismatch, "mismatch_variable": _mismatch_variable,
             "raise": _raise, "sigkill": _sigkill}


# =============================================================================================== the pytest side
def _launch(n, scenarios, tmp_path, timeout=240, **extra_env):
    return mpi_jobs.launch(__file__, n, scenarios, tmp_path, timeout, **extra_env)


_results = mpi_jobs.results


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One job per rank count runs the scenarios every test below reads (a few launches in all)."""
    if MPIEXEC is None:
        pytest.skip("mpiexec/mpi4py not installed (pip install 'descend[mpi]', which the test extra includes)")
    out = {}
    for n in (2, 3):
        d = tmp_path_factory.mktemp(f"n{n}")
        proc, _ = _launch(n, ["equivalence", "v1", "surface", "float32", "fit", "exchange", "scattered", "nonfinite",
                              "rejected", "fit_io", "horovod_more"], d,
                          timeout=600)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-5000:]
        out[n] = _results(d, n)
    return out


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_n_ranks_equal_one_process_with_the_global_batch_float64(runs, n):
    res = runs[n][0]["equivalence"]
    import optimizer_cases

    expected = 3 * len(optimizer_cases.CASES) if n == 2 else len(optimizer_cases.CASES) + 2 * len(THREE_RANK_VARIANTS)
    assert len(res) == expected
    bad = {k: v["rel_err"] for k, v in res.items() if not v["rel_err"] <= 1e-10}
    assert not bad, bad
    assert all(v["moved"] > 1e-4 for v in res.values())  # every configuration trained
    # every rank ends with the same weights
    for other in runs[n][1:]:
        assert [v["digest"] for v in other["equivalence"].values()] == [v["digest"] for v in res.values()]


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_the_exchange_gives_every_rank_the_rank_order_sum(runs, n):
    """The scattered reduce adds in rank order: bit for bit the sum computed here; MPI's Allreduce (the packed
    path) may add in another order (within rounding for 3 ranks). Every rank gets the same bits."""
    first = runs[n][0]["exchange"]
    assert first.pop("untouched") is True
    for key, r in first.items():
        scatter = int(key.split("/")[0])
        exact = scatter < (1 << 40) or n == 2
        if exact:
            assert r["errors"] == [0.0] * 7, (key, r["errors"])
        else:
            assert max(r["errors"]) < 1e-2 and max(r["errors"][:5]) < 1e-5, (key, r["errors"])
        # one bucket per dtype (float32, float64, float16); the 1 MiB default scatters only the 1.27 MB one
        assert r["collectives"] == 3 * {0: 6, 1 << 20: 4, 1 << 40: 3}[scatter], (key, r["collectives"])
        for other in runs[n][1:]:
            assert other["exchange"][key]["bytes"] == r["bytes"]


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_n_ranks_equal_one_process_when_every_bucket_is_scattered(runs, n):
    res = runs[n][0]["scattered"]
    assert len(res) == 15 and all(v["rel_err"] <= 1e-10 and v["moved"] > 1e-4 for v in res.values()), res
    for other in runs[n][1:]:
        assert [v["digest"] for v in other["scattered"].values()] == [v["digest"] for v in res.values()]


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_a_nonfinite_gradient_on_one_rank_is_skipped_or_raised_on_every_rank(runs, n):
    per_rank = [r["nonfinite"] for r in runs[n]]
    assert all(r == per_rank[0] for r in per_rank[1:])  # every rank ends in the same state
    res = per_rank[0]
    total = n * (n + 1) / 2  # the sum over the ranks of (rank + 1)
    for key in ("skip", "inf", "overflow", "horovod"):  # 4 steps, the second skipped everywhere
        assert (res[key]["iterations"], res[key]["skipped"], res[key]["errors"]) == (3, 1, []), (key, res[key])
    np.testing.assert_allclose(res["skip"]["w"], [-0.3 * total] * 3)
    np.testing.assert_allclose(res["skip"]["u"], [-0.3 * n] * 2)
    assert res["horovod"] == res["skip"]
    # raise: the rank that saw the NaN names the variable, the others say it was on another replica; nothing
    # changed in that step, and all carry on together
    assert res["raise"]["iterations"] == 3 and len(res["raise"]["errors"]) == 1
    assert "'w'" in res["raise"]["errors"][0] or "another replica" in res["raise"]["errors"][0]
    np.testing.assert_allclose(res["raise"]["w"], [-0.3 * total] * 3)
    assert res["loss_scale"]["iterations"] == 3 and res["loss_scale"]["scale"] == 2.0 ** 14
    np.testing.assert_allclose(res["loss_scale"]["w"], [-0.1 * total * (2 ** -15 + 2 * 2 ** -14)] * 3, rtol=1e-6)
    for key in ("accumulate", "horovod_accumulate"):  # 6 micro-steps, the third skipped: 2 updates, 1 pending
        assert (res[key]["iterations"], res[key]["skipped"]) == (2, 1), (key, res[key])
        np.testing.assert_allclose(res[key]["w"], [-0.2 * total] * 3)


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_a_gradient_one_rank_rejects_raises_on_every_rank_and_the_job_carries_on(runs, n):
    per_rank = [r["rejected"] for r in runs[n]]
    total = n * (n + 1) / 2  # the sum over the ranks of (rank + 1)
    own = {"shape": "ValueError: gradient for variable '", "index": "InvalidArgumentError: gradient for variable 'w': "
           "index 7 is not in [0, 2)", "dtype": "TypeError: gradient for variable 'w': expected a numeric array",
           "pair": "TypeError: apply_gradients expects (gradient, variable) pairs"}
    for key in ("shape", "index", "dtype", "pair", "zip", "adam_zero", "accumulate", "horovod"):
        results = [r[key] for r in per_rank]
        for rank, r in enumerate(results):  # one error per rank, in the same step; the same state everywhere
            assert len(r["errors"]) == 1, (key, rank, r)
            (error,) = r["errors"]
            if rank == n - 1:
                assert error.startswith(own.get(key, own["shape"])), (key, error)
                assert key in own or error.endswith("w': expected shape (3,), received (4,)"), (key, error)
            else:
                assert error.startswith("ReplicaMismatchError: apply_gradients of optimizer"), (key, error)
                assert f"failed on rank {n - 1} of {n}" in error and own.get(key, own["shape"]).split(": ", 1)[1] in error
                assert "Nothing was updated on any rank" in error
            assert (r["w"], r["u"], r["iterations"]) == (results[0]["w"], results[0]["u"], results[0]["iterations"])
        r = results[0]
        if key == "accumulate":  # 5 micro-steps, the second refused: 2 updates of 2 micro-batches each
            assert r["iterations"] == 2
            np.testing.assert_allclose(r["w"], [-0.2 * total] * 3)
        elif key != "adam_zero":  # 4 steps, one refused everywhere
            assert r["iterations"] == 3
            np.testing.assert_allclose(np.ravel(r["w"]), -0.3 * total)
            np.testing.assert_allclose(r["u"], [-0.3 * n] * 2)
        else:
            assert r["iterations"] == 3


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_fit_of_a_lazily_built_model_writes_its_files_once_and_stops_on_every_rank(runs, n):
    first = runs[n][0]["fit_io"]
    for other in runs[n][1:]:
        r = other["fit_io"]
        assert (r["history"], r["weights"], r["saved"], r["csv"]) == (first["history"], first["weights"],
                                                                   first["saved"], first["csv"])
    # the model built inside fit trained data-parallel: the one-process run on the same rows, same shuffles
    for key, values in first["single"].items():  # (the one-process run has no callback stopping it)
        np.testing.assert_allclose(first["history"][key], values[:3], rtol=1e-10)
    assert len(first["history"]["loss"]) == 3  # stopped after epoch 2 by one rank's callback, on every rank
    assert first["saved"] == ["best", "log.csv", "model", "weights"]  # nothing half-written left behind
    assert len(first["csv"]) == 4 and first["csv"][0].startswith("epoch,")
    # a table sharded over the ranks: every rank wrote its rows into the one checkpoint
    assert first["refused"] == ["manifest.json", *(f"shard-{r}" for r in range(1, n)), "tensors.safetensors"]


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_horovod_collectives_and_keras_callbacks(runs, n):
    per_rank = [r["horovod_more"] for r in runs[n]]
    rows = [[float(r)] * 2 for r in range(n) for _ in range(r + 1)]
    for res in per_rank:
        assert res["allgather"] == rows
        assert res["broadcast"] == [10.0 * (n - 1) + k for k in range(3)]
        assert res["broadcast_object"] == {"rank": 1} and res["allgather_object"] == [k * k for k in range(n)]
        assert "rank 0 has shape (2,)" in res["allgather_error"] and "rank 1 has shape (3,)" in res["allgather_error"]
    # different inits, different shards: the same weights and the same (averaged) logs on every rank
    assert all(res["weights"] == per_rank[0]["weights"] for res in per_rank[1:])
    assert all(res["history"] == per_rank[0]["history"] for res in per_rank[1:])
    assert len(per_rank[0]["history"]["loss"]) == 3


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_float32_within_1e5(runs, n):
    res = runs[n][0]["float32"]
    assert res and all(v["rel_err"] <= 1e-5 for v in res.values()), res


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_tf1_minimize_under_a_strategy_equals_the_large_batch(runs, n):
    res = runs[n][0]["v1"]
    assert len(res) >= 5 and all(e <= 1e-10 for e in res.values()), res


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_strategy_and_horovod_surface(runs, n):
    for rank, r in enumerate(runs[n]):
        s = r["surface"]
        assert (s["n"], s["rank"], s["size"], s["local_rank"]) == (n, rank, n, rank)
        assert s["dataset"] == list(range(7))  # every row once, in rank order
        assert s["local_rows"] == len(np.array_split(np.arange(7), n)[rank])
        assert s["input_context"] == [n, rank, n] and s["from_function"] == [[rank, rank]]
        total = n * (n + 1) / 2
        assert s["reduce_sum"] == [total, 2 * total] and s["reduce_mean"] == [total / n, 2 * total / n]
        counts = np.arange(1, n + 1)
        assert s["reduce_mean_axis"] == pytest.approx(sum(c * (c - 1) / 2 for c in counts) / counts.sum())
        assert s["replica_context_outside"] and s["cross_replica"]
        assert s["broadcast"] == [0.0, 0.0, 0.0]
        assert s["all_reduce"][0] == [float(n)] and s["all_reduce"][1] == n * (n - 1) / 2
        dense = np.zeros((4, 2))
        dense[:n] = [1.0, 2.0]
        assert s["all_reduce"][2] == dense.tolist()
        assert s["hvd_broadcast"] == [float(n), 2.0 * n]
        # d/dv of (rank+1) * sum(v*v), averaged: mean(rank+1) * 2v
        assert s["hvd_grad"] == pytest.approx((np.array([2.0, 4.0]) * n * ((n + 1) / 2)).tolist())
        assert s["hvd_allreduce_sum"] == [n * (n - 1) / 2]
        assert s["dense_bytes"] == 0 and 0 < s["sparse_bytes"] < 10000 * 8 * 8 / 100
        rows = [-0.1 * ((k < n) + (1 <= k <= n)) for k in range(n + 1)]
        assert s["table_rows"] == pytest.approx(rows)
        assert s["cal"] == pytest.approx(4.0 / (2 * n)) and s["srl"] == pytest.approx(6.0 / n)


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_fit_under_scope_equals_the_one_process_fit(runs, n):
    for r in runs[n]:
        dist, ref = r["fit"]["dist"], r["fit"]["ref"]
        for a, b in zip(dist["weights"], ref["weights"]):
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13)
        assert dist["history"].keys() == ref["history"].keys() and "val_loss" in dist["history"]
        for k in ref["history"]:
            np.testing.assert_allclose(dist["history"][k], ref["history"][k], rtol=1e-10)
        for k in ref["evaluate"]:
            np.testing.assert_allclose(dist["evaluate"][k], ref["evaluate"][k], rtol=1e-10)
    assert runs[n][0]["fit"]["dist"]["weights"] == runs[n][-1]["fit"]["dist"]["weights"]


@needs_mpi
def test_a_checkpoint_saved_with_2_ranks_restores_with_1_and_3_and_continues_to_the_same_numbers(tmp_path):
    saved = tmp_path / "save"
    saved.mkdir()
    proc, _ = _launch(2, ["ckpt_save"], saved)
    assert proc.returncode == 0, proc.stderr[-5000:]
    uninterrupted = _results(saved, 2)[0]["ckpt_save"]
    for n in (1, 3):
        d = tmp_path / f"restore{n}"
        d.mkdir()
        proc, _ = _launch(n, ["ckpt_restore"], d, DESCEND_TEST_CKPT=str(saved))
        assert proc.returncode == 0, proc.stderr[-5000:]
        for r in _results(d, n):
            for a, b in zip(r["ckpt_restore"], uninterrupted):
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-13)


@needs_mpi
def test_repeated_runs_with_the_same_number_of_processes_are_bitwise_identical(tmp_path):
    digests = []
    for k in range(2):
        d = tmp_path / str(k)
        d.mkdir()
        proc, _ = _launch(3, ["repeat"], d)
        assert proc.returncode == 0, proc.stderr[-5000:]
        digests.append({key: v["digest"] for key, v in _results(d, 3)[0]["repeat"].items()})
    assert digests[0] == digests[1]


class _CpuSampler:
    """The CPU seconds (user + system) the processes below ``root`` use, read from /proc every 0.2 s on a thread:
    unlike wall time, this does not grow when the machine is loaded. A rank left waiting on a dead peer polls the
    network busily (MPICH), so a job that lingers shows in its CPU time. (A process's last 0.2 s, and one that
    lives less, can be missed: a bound set well above a healthy job's figure allows for it.)"""

    def __init__(self, root: int):
        self.root, self.seen, self._done = root, {}, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @staticmethod
    def _cpu(pid):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime

    def sample(self) -> float:
        for pid in _descendants(self.root):
            t = self._cpu(pid)
            if t is not None:
                self.seen[pid] = max(self.seen.get(pid, 0.0), t)
        return sum(self.seen.values())

    def _run(self):
        while not self._done.wait(0.2):
            self.sample()

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._done.set()
        self._thread.join()


# CPU seconds: a healthy job that ends itself (two ranks starting, one failing) uses about 3; one whose surviving rank
# lingered a minute would use tens, whatever the machine's load (a generous outer timeout catches one that hangs)
CPU_BOUND = 15


def _job_cpu_seconds(launch):
    """``launch()``'s result, and the CPU seconds its job used (see _CpuSampler)."""
    with _CpuSampler(os.getpid()) as cpu:
        out = launch()
    return out, cpu.sample()


@needs_mpi
def test_ranks_that_disagree_on_the_model_get_a_clear_error(tmp_path):
    proc, elapsed = _launch(2, ["mismatch"], tmp_path, timeout=600)
    assert proc.returncode != 0
    assert "ReplicaMismatchError" in proc.stderr and "rank 0 has 'b' (dense, shape (4,)" in proc.stderr
    assert "rank 1 has 'b' (dense, shape (5,)" in proc.stderr
    proc, elapsed = _launch(2, ["mismatch_variable"], tmp_path, timeout=600)
    assert proc.returncode != 0
    assert ("rank 0 has 'b' (variable, shape (4,), dtype float64) and rank 1 has 'b' (variable, shape (4,), dtype "
            "float32)") in proc.stderr


@needs_mpi
def test_an_exception_on_one_rank_ends_the_job_with_its_message(tmp_path):
    (proc, _), cpu = _job_cpu_seconds(lambda: _launch(2, ["raise"], tmp_path, timeout=600))
    assert proc.returncode != 0
    assert "boom on rank 1 at step 3" in proc.stderr and "[descend rank 1/2]" in proc.stderr
    assert cpu < CPU_BOUND, f"the job used {cpu:.1f} CPU seconds (a healthy one ends in a few)"


@needs_mpi
def test_a_sigkilled_rank_ends_the_job_within_seconds(tmp_path):
    (proc, _), cpu = _job_cpu_seconds(lambda: _launch(2, ["sigkill"], tmp_path, timeout=600))
    assert proc.returncode != 0
    assert cpu < CPU_BOUND, f"the job used {cpu:.1f} CPU seconds (a healthy one ends in a few)"


TRAIN = ["train", "--epochs", "3", "--hidden", "32", "--batch-size", "32", "--checkpoint-every", "2", "--seed", "3"]


def _descendants(pid):
    children: dict = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def _ranks_of(proc):
    """The pids of the Python ranks an mpiexec process started."""
    pids = []
    for pid in _descendants(proc.pid):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                cmd = f.read().split(b"\0")
        except OSError:
            continue
        if b"descend" in cmd and b"train" in cmd:
            pids.append(pid)
    return pids


def _final_weights(out):
    import descend.train as train

    reader = train.load_checkpoint(os.path.join(out, "final"))
    # the tensors (the object graph and descend's JSON state are bytes, the graph naming variables by their names)
    return {k: v for k in reader.keys() if isinstance(v := reader.get_tensor(k), np.ndarray)}


@needs_mpi
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the ranks through /proc")
def test_sigkill_a_rank_of_descend_train_10_times_then_resume_bit_exactly(tmp_path):
    import random

    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    base = [MPIEXEC, "-n", "2", sys.executable, "-m", "descend", *TRAIN]
    ref, victim = str(tmp_path / "reference"), str(tmp_path / "killed")
    t0 = time.monotonic()
    r = subprocess.run(base + ["--out", ref], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    whole = time.monotonic() - t0  # the kills land at random fractions of a whole run (the machine's speed varies)
    rng = random.Random(0)
    kills, exits = 0, []
    while kills < 10:
        started = os.path.exists(os.path.join(victim, "config.json"))  # a run to resume (else start it over)
        if not started:
            shutil.rmtree(victim, ignore_errors=True)
        proc = subprocess.Popen(base + ["--out", victim] + (["--resume"] if started else []),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        delay = rng.uniform(0.3, 0.95) * whole
        try:
            proc.wait(timeout=delay)
            shutil.rmtree(victim, ignore_errors=True)  # it finished first: start over so the kills hit training
            continue
        except subprocess.TimeoutExpired:
            pass
        ranks = _ranks_of(proc)
        if not ranks:
            proc.kill()
            proc.wait()
            continue
        cpu = _CpuSampler(proc.pid)
        at_kill = cpu.sample()
        os.kill(rng.choice(ranks), signal.SIGKILL)
        try:
            with cpu:  # the CPU the job uses after the kill, not the wall time (which grows with the load)
                proc.wait(timeout=300)
        finally:
            if proc.poll() is None:
                proc.kill()
                for pid in _ranks_of(proc):
                    os.kill(pid, signal.SIGKILL)
        exits.append(cpu.sample() - at_kill)
        assert proc.returncode != 0
        kills += 1
    assert max(exits) < CPU_BOUND / 3, f"CPU seconds the jobs used after a rank was killed: {exits}"
    r = subprocess.run(base + ["--out", victim, "--resume"], capture_output=True, text=True, env=env, timeout=300)
    # the last kill may land after the run had finished (its final weights written): --resume then refuses
    # with one line and exit 2, and the finished run is what is compared
    finished = r.returncode == 2 and "already finished" in r.stderr
    assert r.returncode == 0 or finished, r.stderr[-3000:]
    a, b = _final_weights(ref), _final_weights(victim)
    assert sorted(a) == sorted(b) and all(np.array_equal(a[k], b[k]) for k in a)
    # the per-step metrics: the same rows; a resume mid-epoch restores the replicas' summed metric totals onto
    # rank 0, which rounds the float32 running means differently in the last bits (the weights are bit-exact)
    rows = [list(csv.reader(open(os.path.join(d, "metrics.csv")))) for d in (ref, victim)]
    assert rows[0][0] == rows[1][0] and len(rows[0]) == len(rows[1])
    np.testing.assert_allclose(np.array(rows[1][1:], float), np.array(rows[0][1:], float), rtol=1e-6)


if __name__ == "__main__":
    mpi_jobs.rank_main(SCENARIOS, sys.argv)
