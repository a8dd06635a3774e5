"""(7) Distributed: descend.distribute's gradient exchange and a data-parallel MLP step over MPI.

Four measurements, each in ``mpiexec`` jobs launched from here (one thread per rank):

1. **exchange**: summing the gradients of the MLP 784-512-512-10 (float32, six tensors, 2.7 MB) across 2
   ranks with ``GradientExchange`` (one 2.7 MB bucket: a scattered reduce from the gradients' own memory)
   against a bare mpi4py ``Allreduce`` of a preallocated buffer of the same bytes, interleaved in the same job.
   Goal: >= 0.9 of its throughput.
2. **step**: one training step of that MLP (batch 128 per rank, AdamW) at 2 ranks, descend under a
   ``MultiWorkerMirroredStrategy`` against PyTorch ``DistributedDataParallel`` (gloo, 2 processes,
   started by the same mpiexec). Goal: faster.
3. **weak scaling**: descend's step at 1 rank and at 2 ranks (batch 128 per rank); efficiency
   ``t(1) / t(2)``, with PyTorch DDP's at 1 and 2 ranks beside it. Goal >= 0.9 where the machine has a
   core per rank to spare.
4. **sparse**: the bytes and time of exchanging an embedding table's gradient (100,000 x 64 float32,
   256 rows touched per rank) as rows (all-gather) against a dense ``Allreduce`` of the table.
5. **sharded embedding model**: the end-to-end embedding model of ``bench_embedding_e2e`` (4 tables of
   1M rows x 32, global batch 4096) with ``ShardedEmbedding`` tables and lazy Adam at 1 and 2 ranks:
   examples per second, the bytes the tables exchange per step and the peak RSS per rank.

    python benchmarks/bench_distributed.py [--quick]
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import common  # noqa: E402
from common import add_goal, add_row, log, new_result  # noqa: E402

SIZES = (784, 512, 512, 10)
BATCH = 128
TABLE = (100_000, 64)
ROWS = 256


def _mlp(seed=0):
    rng = np.random.default_rng(seed)
    ws = [rng.standard_normal((a, b), dtype=np.float32) * np.float32(np.sqrt(2.0 / a)) for a, b in
          zip(SIZES[:-1], SIZES[1:])]
    bs = [np.zeros(b, np.float32) for b in SIZES[1:]]
    return ws, bs


def _batch(rank, step=0):
    rng = np.random.default_rng(1000 * rank + step)
    return rng.standard_normal((BATCH, SIZES[0]), dtype=np.float32), rng.integers(0, SIZES[-1], BATCH)


def _times(fn, repeats, warmup=3):
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


# ---------------------------------------------------------------------------------------------- rank side
def worker_exchange(repeats):
    from mpi4py import MPI

    from descend.distribute import collectives, comm

    group = comm.world()
    ws, bs = _mlp()
    grads = [a for pair in zip(ws, bs) for a in pair]
    names = [f"g{k}" for k in range(len(grads))]
    ex = collectives.GradientExchange(group)
    total = sum(g.size for g in grads)
    buf = np.ones(total, np.float32)
    bare = lambda: group.comm.Allreduce(MPI.IN_PLACE, buf, op=MPI.SUM)  # noqa: E731
    ours = lambda: ex.exchange(grads, names, reuse=True)  # noqa: E731  (the optimizers' aggregate stage)
    t_bare, t_ours = [], []
    for fn in (bare, ours):
        _times(fn, 0, warmup=5)
    for _ in range(repeats):  # interleaved: the same conditions for both
        group.barrier()
        t_bare += _times(bare, 1, warmup=0)
        group.barrier()
        t_ours += _times(ours, 1, warmup=0)
    # sparse vs dense table
    rng = np.random.default_rng(group.rank)
    from descend.framework.indexed_slices import IndexedSlices

    rows = np.sort(rng.choice(TABLE[0], ROWS, replace=False))
    sl = IndexedSlices(rng.standard_normal((ROWS, TABLE[1]), dtype=np.float32), rows, TABLE)
    table = np.zeros(TABLE, np.float32)
    table[rows] = sl.values.numpy()
    before = dict(ex.stats)
    ex.exchange([sl], ["table"])
    sparse_bytes = ex.stats["sparse_bytes"] - before["sparse_bytes"]
    t_sparse = _times(lambda: ex.exchange([sl], ["table"]), max(3, repeats // 5))
    dense_ex = collectives.GradientExchange(group, sparse_as_dense=True)
    t_dense = _times(lambda: dense_ex.exchange([sl], ["table"], shapes=[TABLE]), max(3, repeats // 5))
    return {"bytes": int(total * 4), "bare": float(np.median(t_bare)), "ours": float(np.median(t_ours)),
            "bare_best": min(t_bare), "ours_best": min(t_ours), "sparse_bytes": int(sparse_bytes),
            "dense_bytes": int(table.nbytes), "sparse_s": float(np.median(t_sparse)),
            "dense_s": float(np.median(t_dense))}


def worker_descend_step(repeats):
    import descend as ds

    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    ws, bs = _mlp()
    with strategy.scope():
        vs = [ds.Variable(a, name=f"w{k}") for k, a in enumerate(ws)] + [ds.Variable(b, name=f"b{k}")
                                                                       for k, b in enumerate(bs)]
        opt = ds.optimizers.AdamW(1e-3, weight_decay=0.01)
    x, y = _batch(strategy.group.rank)
    x, y = ds.constant(x), ds.constant(y)
    gb = BATCH * strategy.num_replicas_in_sync

    def step():
        def fn():
            with ds.GradientTape() as tape:
                h = x
                for k in range(3):
                    h = ds.matmul(h, vs[k]) + vs[3 + k]
                    if k < 2:
                        h = ds.nn.relu(h)
                per = ds.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h)
                loss = ds.nn.compute_average_loss(per, global_batch_size=gb)
            opt.apply_gradients(zip(tape.gradient(loss, vs), vs))

        strategy.run(fn)

    strategy.group.barrier()
    t = _times(step, repeats)
    return {"step": float(np.median(t)), "best": min(t)}


def worker_torch_step(repeats):
    import torch
    import torch.distributed as dist

    rank, size = int(os.environ.get("PMI_RANK", 0)), int(os.environ.get("PMI_SIZE", 1))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=os.environ["DESCEND_BENCH_TCP"], rank=rank, world_size=size)
    ws, bs = _mlp()
    layers = []
    for k, (w, b) in enumerate(zip(ws, bs)):
        lin = torch.nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T.copy()))
            lin.bias.copy_(torch.from_numpy(b))
        layers += [lin] + ([torch.nn.ReLU()] if k < 2 else [])
    model = torch.nn.parallel.DistributedDataParallel(torch.nn.Sequential(*layers))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    x, y = _batch(rank)
    x, y = torch.from_numpy(x), torch.from_numpy(y)

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(x), y).backward()
        opt.step()

    dist.barrier()
    t = _times(step, repeats)
    dist.destroy_process_group()
    return {"step": float(np.median(t)), "best": min(t)}


def worker_sharded_embedding(repeats):
    """The end-to-end embedding model (bench_embedding_e2e's DLRM-like click model) with its tables as
    ``ShardedEmbedding`` (row-wise over the ranks, mean-pooled) and lazy Adam, the global batch split over
    the ranks: seconds per step, the bytes each step sends between ranks, and this rank's peak RSS."""
    import bench_embedding_e2e as e2e

    import descend as ds

    rows = int(os.environ["DESCEND_BENCH_ROWS"])
    global_batch = int(os.environ["DESCEND_BENCH_BATCH"])
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    n, rank = strategy.num_replicas_in_sync, strategy.group.rank
    base = e2e.rss_bytes()  # the interpreter, NumPy, descend and MPI: what the model adds is measured above it
    ws, bs = e2e.mlp_init()
    with strategy.scope():
        tables = [ds.distribute.ShardedEmbedding(rows, e2e.DIM, lambda shape, dtype=None, t=t: e2e.init_table(
            shape[0], t), combiner="mean", strategy=strategy) for t in range(e2e.N_TABLES)]
        dense = [ds.Variable(a, name=f"w{k}") for k, a in enumerate(ws)] + [ds.Variable(b, name=f"b{k}")
                                                                          for k, b in enumerate(bs)]
        opt = ds.optimizers.Adam(e2e.LR_ADAM, sparse_updates="lazy")
    from descend.distribute.split import split_bounds

    lo, hi = split_bounds(global_batch, n, rank)
    data = [([ds.constant(i[lo:hi]) for i in ids], ds.constant(d[lo:hi]), ds.constant(y[lo:hi]))
            for ids, d, y in e2e.make_batches(rows, global_batch)]
    k = [0]

    def step():
        ids, d, y = data[k[0] % len(data)]
        k[0] += 1

        def fn():
            with ds.GradientTape() as tape:
                h = ds.concat([t(i) for t, i in zip(tables, ids)] + [d], axis=1)
                for j in range(3):
                    h = ds.matmul(h, dense[j]) + dense[3 + j]
                    if j < 2:
                        h = ds.nn.relu(h)
                per = ds.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=h[:, 0])
                loss = ds.nn.compute_average_loss(per, global_batch_size=global_batch)
            variables = [t.embeddings for t in tables] + dense
            opt.apply_gradients(zip(tape.gradient(loss, variables), variables))

        strategy.run(fn)
        strategy.group.barrier()  # a step ends when every rank's has

    e2e.reset_peak_rss()
    for _ in range(3):
        step()
    before = sum(sum(v for key, v in t.stats.items() if key.endswith("_bytes")) for t in tables)
    t = _times(step, repeats, warmup=0)
    sent = sum(sum(v for key, v in t_.stats.items() if key.endswith("_bytes")) for t_ in tables) - before
    totals = np.array([sent, (e2e.peak_rss_bytes() or 0) - base], np.float64)
    from mpi4py import MPI

    summed = np.empty_like(totals)
    strategy.group.comm.Allreduce(totals, summed, op=MPI.SUM)
    peak = np.empty(1)
    strategy.group.comm.Allreduce(totals[1:], peak, op=MPI.MAX)
    dense_bytes = sum(a.nbytes for a in ws + bs)
    return {"step": float(np.median(t)), "best": min(t), "table_bytes_per_step": summed[0] / repeats,
            "dense_grad_bytes": dense_bytes, "peak_rss_max": float(peak[0]), "peak_rss_sum": float(summed[1]),
            "ranks": n, "rows": rows, "batch": global_batch}


WORKERS = {"exchange": worker_exchange, "descend_step": worker_descend_step, "torch_step": worker_torch_step,
           "sharded_embedding": worker_sharded_embedding}


def worker_main(argv):
    name, repeats = argv[0], int(argv[1])
    res = WORKERS[name](repeats)
    rank = int(os.environ.get("PMI_RANK", 0))
    if rank == 0:
        print("RESULT " + json.dumps(res), flush=True)


# ---------------------------------------------------------------------------------------------- driver side
def _mpiexec():
    return shutil.which("mpiexec", path=os.path.dirname(sys.executable)) or shutil.which("mpiexec")


def _launch(n, name, repeats, extra_env=None):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               DESCEND_THREADS_PER_RANK="1", OMP_NUM_THREADS="1", **(extra_env or {}))
    cmd = [_mpiexec(), "-n", str(n), sys.executable, os.path.abspath(__file__), "--worker", name, str(repeats)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    line = next(ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT "))
    return json.loads(line[len("RESULT "):])


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(quick: bool = False, isolate: bool = True) -> dict:
    result = new_result("distributed", "Data-parallel exchange and step over MPI (2 ranks, 1 thread each)",
                        "descend.distribute against a bare mpi4py Allreduce and PyTorch DDP (gloo)",
                        {"mlp": SIZES, "batch_per_rank": BATCH, "table": TABLE, "rows_per_rank": ROWS})
    if _mpiexec() is None:
        result["notes"].append("mpiexec not found: pip install 'descend[mpi]'")
        return result
    reps = 30 if quick else 200
    ex = _launch(2, "exchange", reps)
    log(f"   exchange: {ex}")
    mb = ex["bytes"] / 1e6
    add_row(result, "exchange 2.7 MB (2 ranks)", "bare mpi4py Allreduce", {"best": ex["bare_best"], "median": ex["bare"],
                                                                          "n": reps}, role="floor",
            per=f"{mb / ex['bare']:.0f} MB/s")
    add_row(result, "exchange 2.7 MB (2 ranks)", "descend", {"best": ex["ours_best"], "median": ex["ours"], "n": reps},
            role="descend", per=f"{mb / ex['ours']:.0f} MB/s")
    ratio = ex["bare"] / ex["ours"]
    add_goal(result, "exchange", ">= 0.9 of a bare Allreduce's throughput", ratio >= 0.9, f"{ratio:.2f}")
    step_reps = 10 if quick else 60
    d2 = _launch(2, "descend_step", step_reps)
    d1 = _launch(1, "descend_step", step_reps)
    log(f"   descend step: 1 rank {d1}, 2 ranks {d2}")
    add_row(result, "MLP step (2 ranks)", "descend", {"best": d2["best"], "median": d2["step"], "n": step_reps},
            role="descend")
    try:
        import torch  # noqa: F401

        tt = _launch(2, "torch_step", step_reps, {"DESCEND_BENCH_TCP": f"tcp://127.0.0.1:{_free_port()}"})
        log(f"   torch DDP step: {tt}")
        add_row(result, "MLP step (2 ranks)", "PyTorch DDP (gloo)", {"best": tt["best"], "median": tt["step"],
                                                                     "n": step_reps})
        add_goal(result, "MLP step", "faster than PyTorch DDP", d2["step"] < tt["step"],
                 f"{tt['step'] / d2['step']:.2f}x")
        t1 = _launch(1, "torch_step", step_reps, {"DESCEND_BENCH_TCP": f"tcp://127.0.0.1:{_free_port()}"})
        log(f"   torch DDP step, 1 rank: {t1}")
        for label, r in (("PyTorch DDP 1 rank", t1), ("PyTorch DDP 2 ranks", tt)):
            add_row(result, "weak scaling", label, {"best": r["best"], "median": r["step"], "n": step_reps})
        result["notes"].append(f"PyTorch DDP's weak scaling in the same run: {t1['step'] / tt['step']:.2f}")
    except ImportError:
        result["notes"].append(common.skipped_note("torch"))
    add_row(result, "weak scaling", "descend 1 rank", {"best": d1["best"], "median": d1["step"], "n": step_reps},
            role="floor")
    add_row(result, "weak scaling", "descend 2 ranks", {"best": d2["best"], "median": d2["step"], "n": step_reps},
            role="descend")
    eff = d1["step"] / d2["step"]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    add_goal(result, "weak scaling", ">= 0.9 efficiency 1 -> 2 ranks", eff >= 0.9,
             f"{eff:.2f} on {cores} cores, load average {os.getloadavg()[0]:.1f}")
    add_row(result, "sparse table gradient", "descend rows (all-gather)",
            {"best": ex["sparse_s"], "median": ex["sparse_s"], "n": 1}, role="descend",
            per=f"{ex['sparse_bytes'] / 1e3:.0f} kB")
    add_row(result, "sparse table gradient", "dense Allreduce (sparse_as_dense)",
            {"best": ex["dense_s"], "median": ex["dense_s"], "n": 1}, role="floor",
            per=f"{ex['dense_bytes'] / 1e3:.0f} kB")
    add_goal(result, "sparse", "fewer bytes than a dense allreduce", ex["sparse_bytes"] < ex["dense_bytes"],
             f"{ex['dense_bytes'] / ex['sparse_bytes']:.0f}x fewer bytes")
    _sharded_embedding(result, quick)
    return common.finish(result)


def _sharded_embedding(result, quick):
    """The end-to-end embedding model with sharded tables at 1 and 2 ranks."""
    rows, batch, reps = (20_000, 512, 5) if quick else (1_000_000, 4096, 15)
    case = f"embedding model, 4 sharded tables x {rows:,} rows, global batch {batch}"
    env = {"DESCEND_BENCH_ROWS": str(rows), "DESCEND_BENCH_BATCH": str(batch)}
    runs = {n: _launch(n, "sharded_embedding", reps, env) for n in (1, 2)}
    for n, r in runs.items():
        log(f"   sharded embedding model, {n} rank(s): {r}")
        add_row(result, case, f"descend ShardedEmbedding + lazy Adam, {n} rank{'s' if n > 1 else ''}",
                {"best": r["best"], "median": r["step"], "n": reps}, role="descend" if n == 2 else "floor",
                per=(f"{batch / r['step']:,.0f} ex/s; tables exchange {r['table_bytes_per_step'] / 1e6:.2f} MB/step "
                     f"(ids, rows and gradient rows between ranks) + the dense gradients' allreduce "
                     f"({r['dense_grad_bytes'] / 1e6:.2f} MB); peak RSS per rank above its start "
                     f"{r['peak_rss_max'] / 2**30:.2f} GiB (all ranks {r['peak_rss_sum'] / 2**30:.2f} GiB)"),
                examples_per_s=batch / r["step"], exchanged_bytes_per_step=r["table_bytes_per_step"],
                peak_rss_per_rank=r["peak_rss_max"])
    one, two = runs[1], runs[2]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    add_goal(result, "sharded embedding", "memory per rank at 2 ranks about half of 1 rank's (the tables and "
             "their slots are split)", two["peak_rss_max"] < 0.75 * one["peak_rss_max"],
             f"peak RSS per rank above its start {two['peak_rss_max'] / 2**30:.2f} vs "
             f"{one['peak_rss_max'] / 2**30:.2f} GiB")
    add_goal(result, "sharded embedding", "examples/s at 2 ranks >= 1 rank's (2 ranks share this machine's "
             f"{cores} cores)", one["step"] >= two["step"], f"{one['step'] / two['step']:.2f}x")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2:])
    else:
        res = run(quick="--quick" in sys.argv)
        print(common.text_table([res]))
