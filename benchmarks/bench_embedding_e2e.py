"""(9) An embedding model end to end: training examples per second of a DLRM-like click model.

Four embedding tables of ``R`` rows x 32 float32 (``R`` = 1M and 8M in the full
run), each looked up with ``HOT`` ids per example (a [batch, HOT] id matrix,
ids drawn from a power law scattered over the table, so batches repeat rows)
and mean-pooled; the four pooled vectors and 13 dense features are
concatenated and fed to an MLP 141-256-128-1 (ReLU); the loss is the mean
sigmoid cross-entropy of a click label. One timed call is a whole training
step: forward, backward and both optimizers' updates, on a fresh batch from a
cycle of prepared batches. The tables have their own optimizer, the MLP an Adam:

* descend: ``layers.Embedding`` + ``reduce_mean(emb(ids), axis=1)``, ``GradientTape``,
  lazy Adam / lazy Adagrad / exact-lazy Adam on the tables (``IndexedSlices``
  gradients, only the touched rows change);
* PyTorch eager: ``nn.EmbeddingBag(mode="mean", sparse=True)`` with ``SparseAdam`` /
  ``Adagrad`` on the tables, Adam on the MLP;
* TensorFlow ``tf.function`` with Keras 3: ``keras.layers.Embedding`` + ``tf.reduce_mean``,
  Keras ``Adam`` / ``Adagrad`` on the tables (what Keras does with the ``IndexedSlices``
  gradient is part of what is measured).

Every (implementation, optimizer, table size) runs in a process of its own in a
full run, which also gives each its own peak RSS: ``VmHWM`` is reset through
``/proc/self/clear_refs`` once the model is built, so "peak RSS" is the peak of
the training steps (model, optimizer state, temporaries) and "build" the
resident size before them. CPU time per step (``time.process_time``, every
thread of the process) is reported beside the wall time: it moves less when
other processes share the cores. descend's rows also give the bytes one step
allocates at its peak (``tracemalloc``, after the timed steps), which shows that
nothing of a table's size is allocated on the lazy path.

    python benchmarks/bench_embedding_e2e.py [--quick] [--isolate]
"""

from __future__ import annotations

import gc
import os
import resource
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import add_goal, entry, fits, new_result, peer, skipped_note  # noqa: E402

N_TABLES = 4
DIM = 32
HOT = 8
N_DENSE = 13
HIDDEN = (256, 128)
LR_ADAM, LR_ADAGRAD, ACC0 = 1e-3, 0.01, 0.1
N_BATCHES = 8  # prepared batches, used in turn


def config(quick):
    if quick:
        return dict(sizes=[20_000, 160_000], batch=512, warmup=1, repeats=5, max_time=0.3)
    return dict(sizes=[1_000_000, 8_000_000], batch=4096, warmup=3, repeats=30, max_time=8.0)


def rows_label(n):
    return f"{n // 1_000_000}M rows" if n % 1_000_000 == 0 else f"{n // 1000}k rows"


# ------------------------------------------------------------------------------------------ data
def make_batches(n_rows, batch, seed=0):
    """``N_BATCHES`` batches of (``N_TABLES`` id matrices [batch, HOT] int64, dense [batch, 13], labels [batch]).

    Ids follow a power law over ranks (log-uniform: about half of the lookups hit the 0.1% most frequent
    rows of a 1M table), scattered over the table by a multiplication that is a bijection mod ``n_rows``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(N_BATCHES):
        ids = []
        for _t in range(N_TABLES):
            rank = np.exp(rng.random((batch, HOT)) * np.log(n_rows + 1.0)).astype(np.int64) - 1
            rank = np.minimum(rank, n_rows - 1)
            ids.append((rank * 2654435761) % n_rows)
        dense = rng.standard_normal((batch, N_DENSE), dtype=np.float32)
        labels = (rng.random(batch) < 0.25).astype(np.float32)
        out.append((ids, dense, labels))
    return out


def init_table(n_rows, seed):
    """A table's initial values, uniform in [-0.05, 0.05) (float32, generated without a float64 copy)."""
    a = np.random.default_rng(1000 + seed).random((n_rows, DIM), dtype=np.float32)
    a -= np.float32(0.5)
    a *= np.float32(0.1)
    return a


def mlp_init(seed=7):
    rng = np.random.default_rng(seed)
    sizes = (N_TABLES * DIM + N_DENSE,) + HIDDEN + (1,)
    ws = [(rng.standard_normal((a, b), dtype=np.float32) * np.float32(np.sqrt(2.0 / a))) for a, b in
          zip(sizes[:-1], sizes[1:])]
    bs = [np.zeros(b, np.float32) for b in sizes[1:]]
    return ws, bs


# ------------------------------------------------------------------------------------------ memory
def _status_kib(field):
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def reset_peak_rss() -> bool:
    """Reset the process's peak RSS (``VmHWM``) to its current RSS (Linux >= 4.0)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def peak_rss_bytes():
    """``VmHWM`` (since the last reset), else ``ru_maxrss`` (since the start)."""
    hwm = _status_kib("VmHWM")
    if hwm is not None:
        return hwm * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def rss_bytes():
    rss = _status_kib("VmRSS")
    return None if rss is None else rss * 1024


def gib(x):
    return f"{x / 2**30:.2f} GiB" if x is not None else "?"


# ------------------------------------------------------------------------------------------ timing
def time_steps(step, warmup, repeats, max_time, min_repeats=3):
    """Wall and CPU seconds of each timed call of ``step(k)`` (k: the call number): ``repeats`` calls, fewer
    once ``max_time`` seconds are spent and ``min_repeats`` done."""
    for k in range(warmup):
        step(k)
    walls, cpus = [], []
    spent = 0.0
    for k in range(warmup, warmup + repeats):
        gc_was = gc.isenabled()
        gc.disable()
        try:
            c0, t0 = time.process_time(), time.perf_counter()
            step(k)
            dt, dc = time.perf_counter() - t0, time.process_time() - c0
        finally:
            if gc_was:
                gc.enable()
        walls.append(dt)
        cpus.append(dc)
        spent += dt
        if spent > max_time and len(walls) >= min_repeats:
            break
    return walls, cpus


# ------------------------------------------------------------------------------------------ implementations
def make_descend(n_rows, batches, table_opt):
    import descend as ds

    ds.clear_session()
    embs = [ds.layers.Embedding(n_rows, DIM, embeddings_initializer=lambda shape, dtype=None, t=t: init_table(
        shape[0], t), name=f"table{t}") for t in range(N_TABLES)]
    ws, bs = mlp_init()
    layers = []
    for i, (w, b) in enumerate(zip(ws, bs)):
        layer = ds.layers.Dense(w.shape[1], activation="relu" if i < len(ws) - 1 else None, name=f"mlp{i}")
        layer.build((None, w.shape[0]))
        layer.kernel.assign(w)
        layer.bias.assign(b)
        layers.append(layer)
    for e in embs:
        e.build()
    tables = [e.embeddings for e in embs]
    dense_vars = [v for layer in layers for v in (layer.kernel, layer.bias)]
    if table_opt == "lazy Adam":
        opt_t = ds.optimizers.Adam(LR_ADAM, sparse_updates="lazy")
    elif table_opt == "exact-lazy Adam":
        opt_t = ds.optimizers.Adam(LR_ADAM, sparse_updates="exact_lazy")
    elif table_opt == "lazy Adagrad":
        opt_t = ds.optimizers.Adagrad(LR_ADAGRAD, initial_accumulator_value=ACC0, sparse_updates="lazy")
    else:
        raise ValueError(table_opt)
    opt_d = ds.optimizers.Adam(LR_ADAM)
    data = [([ds.constant(i) for i in ids], ds.constant(dense), ds.constant(y)) for ids, dense, y in batches]

    def step(k):
        ids, dense, y = data[k % len(data)]
        with ds.GradientTape() as tape:
            pooled = [ds.reduce_mean(emb(i), axis=1) for emb, i in zip(embs, ids)]
            h = ds.concat(pooled + [dense], axis=1)
            for layer in layers:
                h = layer(h)
            loss = ds.reduce_mean(ds.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=h[:, 0]))
        grads = tape.gradient(loss, tables + dense_vars)
        opt_t.apply_gradients(zip(grads[:N_TABLES], tables))
        opt_d.apply_gradients(zip(grads[N_TABLES:], dense_vars))
        return loss

    return step


def make_torch(torch, n_rows, batches, table_opt):
    nn = torch.nn
    bags = [nn.EmbeddingBag.from_pretrained(torch.from_numpy(init_table(n_rows, t)), freeze=False, mode="mean",
                                            sparse=True) for t in range(N_TABLES)]
    ws, bs = mlp_init()
    lins = []
    for w, b in zip(ws, bs):
        lin = nn.Linear(w.shape[0], w.shape[1])
        with torch.no_grad():
            lin.weight.copy_(torch.from_numpy(w.T.copy()))
            lin.bias.copy_(torch.from_numpy(b))
        lins.append(lin)
    mlp = nn.Sequential(lins[0], nn.ReLU(), lins[1], nn.ReLU(), lins[2])
    table_params = [b.weight for b in bags]
    if table_opt == "SparseAdam":
        opt_t = torch.optim.SparseAdam(table_params, lr=LR_ADAM)
    elif table_opt == "Adagrad":
        opt_t = torch.optim.Adagrad(table_params, lr=LR_ADAGRAD, initial_accumulator_value=ACC0)
    else:
        raise ValueError(table_opt)
    opt_d = torch.optim.Adam(mlp.parameters(), lr=LR_ADAM)
    data = [([torch.from_numpy(i) for i in ids], torch.from_numpy(dense), torch.from_numpy(y))
            for ids, dense, y in batches]
    bce = torch.nn.functional.binary_cross_entropy_with_logits

    def step(k):
        ids, dense, y = data[k % len(data)]
        opt_t.zero_grad(set_to_none=True)
        opt_d.zero_grad(set_to_none=True)
        h = torch.cat([bag(i) for bag, i in zip(bags, ids)] + [dense], dim=1)
        loss = bce(mlp(h)[:, 0], y)
        loss.backward()
        opt_t.step()
        opt_d.step()
        return loss

    return step


def make_tf(n_rows, batches, table_opt):
    import keras
    import tensorflow as tf

    embs = []
    for t in range(N_TABLES):
        e = keras.layers.Embedding(n_rows, DIM, embeddings_initializer="zeros")
        e.build((None, HOT))
        e.embeddings.assign(init_table(n_rows, t))
        embs.append(e)
    ws, bs = mlp_init()
    layers = []
    for i, (w, b) in enumerate(zip(ws, bs)):
        layer = keras.layers.Dense(w.shape[1], activation="relu" if i < len(ws) - 1 else None)
        layer.build((None, w.shape[0]))
        layer.kernel.assign(w)
        layer.bias.assign(b)
        layers.append(layer)
    tables = [e.embeddings for e in embs]
    dense_vars = [v for layer in layers for v in (layer.kernel, layer.bias)]
    if table_opt == "Adam":
        opt_t = keras.optimizers.Adam(LR_ADAM)
    elif table_opt == "Adagrad":
        opt_t = keras.optimizers.Adagrad(LR_ADAGRAD, initial_accumulator_value=ACC0)
    else:
        raise ValueError(table_opt)
    opt_d = keras.optimizers.Adam(LR_ADAM)
    opt_t.build(tables)
    opt_d.build(dense_vars)
    data = [([tf.constant(i) for i in ids], tf.constant(dense), tf.constant(y)) for ids, dense, y in batches]

    @tf.function
    def train(ids, dense, y):
        with tf.GradientTape() as tape:
            pooled = [tf.reduce_mean(emb(i), axis=1) for emb, i in zip(embs, ids)]
            h = tf.concat(pooled + [dense], axis=1)
            for layer in layers:
                h = layer(h)
            loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=h[:, 0]))
        grads = tape.gradient(loss, tables + dense_vars)
        opt_t.apply_gradients(zip(grads[:N_TABLES], tables))
        opt_d.apply_gradients(zip(grads[N_TABLES:], dense_vars))
        return loss

    def step(k):
        ids, dense, y = data[k % len(data)]
        return train(ids, dense, y).numpy()  # .numpy() waits for the step to finish

    return step


# ------------------------------------------------------------------------------------------ groups
IMPLS = {  # group prefix -> [(optimizer label, implementation label)]
    "descend": [("lazy Adam", "descend, lazy Adam"), ("lazy Adagrad", "descend, lazy Adagrad"),
                ("exact-lazy Adam", "descend, exact-lazy Adam")],
    "torch": [("SparseAdam", "PyTorch EmbeddingBag(sparse) + SparseAdam"),
              ("Adagrad", "PyTorch EmbeddingBag(sparse) + Adagrad")],
    "tf": [("Adam", "TF tf.function + Keras 3 Adam"), ("Adagrad", "TF tf.function + Keras 3 Adagrad")],
}
CASE_OF = {"lazy Adam": "Adam", "exact-lazy Adam": "Adam", "SparseAdam": "Adam", "Adam": "Adam",
           "lazy Adagrad": "Adagrad", "Adagrad": "Adagrad"}


def case_name(family, n_rows, batch):
    return f"{family}, {N_TABLES} tables x {rows_label(n_rows)}, batch {batch}"


def groups_of(quick):
    c = config(quick)
    return [f"{fw}|{opt}|{n}" for n in c["sizes"] for fw in IMPLS for opt, _ in IMPLS[fw]]


def measure_group(group, quick):
    fw, opt, n = group.split("|")
    n = int(n)
    c = config(quick)
    label = dict(IMPLS[fw])[opt]
    case = case_name(CASE_OF[opt], n, c["batch"])
    role = "descend" if fw == "descend" and opt == "lazy Adam" else "descend_alt" if fw == "descend" else "peer"
    if fw == "descend" and opt == "lazy Adagrad":
        role = "descend"  # the descend row of the Adagrad case
    table_bytes = N_TABLES * n * DIM * 4
    slots = 2 if "Adam" in opt else 1
    need = table_bytes * (1 + slots) * (1.6 if fw == "tf" else 1.15)  # Keras densifies the table gradients
    if not fits(need):
        return [entry(case, label, None, role=role,
                      note=f"skipped: needs about {need / 2**30:.1f} GiB, {common.mem_available() / 2**30:.1f} available")]
    if fw == "torch":
        torch = peer("torch")
        if torch is None:
            return [entry(case, label, None, role=role, note=skipped_note("torch"))]
    elif fw == "tf":
        if peer("tf") is None:
            return [entry(case, label, None, role=role, note=skipped_note("tf"))]
    batches = make_batches(n, c["batch"])
    t0 = time.perf_counter()
    if fw == "descend":
        step = make_descend(n, batches, opt)
    elif fw == "torch":
        step = make_torch(torch, n, batches, opt)
    else:
        step = make_tf(n, batches, opt)
    build_s = time.perf_counter() - t0
    gc.collect()
    build_rss = rss_bytes()
    reset = reset_peak_rss()
    repeats, warmup, least = c["repeats"], c["warmup"], 3
    if fw == "tf" and not quick and n >= 4_000_000:
        repeats, warmup, least = 2, 1, 2  # a Keras step over these tables takes 10-20 s (dense slot updates)
    walls, cpus = time_steps(step, warmup, repeats, c["max_time"], least)
    peak = peak_rss_bytes()
    extra = ""
    if fw == "descend":
        import tracemalloc

        gc.collect()
        tracemalloc.start()
        step(warmup + len(walls))
        _, traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        extra = f"; step allocates {traced / 2**20:.1f} MiB at peak (tables {table_bytes / 2**20:.0f} MiB)"
    timing = {"best": min(walls), "median": statistics.median(walls), "n": len(walls)}
    batch = c["batch"]
    per = (f"{batch / timing['best']:,.0f} ex/s (median {batch / timing['median']:,.0f}); "
           f"CPU {statistics.median(cpus) * 1e3:.1f} ms/step ({batch / statistics.median(cpus):,.0f} ex/CPU-s); "
           f"peak RSS {gib(peak)}" + ("" if reset else " (since start)") + f", build {gib(build_rss)}")
    e = entry(case, label, timing, role=role, per=per + extra, note=f"built in {build_s:.1f} s")
    e["examples_per_s"] = batch / timing["best"]
    e["examples_per_cpu_s"] = batch / statistics.median(cpus)
    e["cpu_ms"] = statistics.median(cpus) * 1e3
    e["peak_rss"] = peak
    e["build_rss"] = build_rss
    if fw == "descend":
        e["step_alloc_peak"] = traced
        e["table_bytes"] = table_bytes
    return [e]


def run(quick: bool = False, isolate: bool = False) -> dict:
    c = config(quick)
    sizes, batch = c["sizes"], c["batch"]
    res = new_result(
        "embedding_e2e", "Embedding model end to end (DLRM-like click model)",
        f"{N_TABLES} embedding tables of {' / '.join(rows_label(n) for n in sizes)} x {DIM} float32, {HOT} ids per "
        f"example per table (power-law ids: batches repeat rows), mean-pooled; 13 dense features; MLP "
        f"{N_TABLES * DIM + N_DENSE}-{'-'.join(map(str, HIDDEN))}-1 (ReLU), mean sigmoid cross-entropy; batch {batch}. "
        "A timed call is one training step (forward, backward, table optimizer + Adam on the MLP). "
        "`per`: examples/s (best and median step), CPU time per step (all threads), peak RSS during training "
        "(VmHWM reset after the model is built) and the resident size once built.",
        {"tables": N_TABLES, "rows": sizes, "dim": DIM, "hot": HOT, "batch": batch, "hidden": HIDDEN,
         **{k: c[k] for k in ("warmup", "repeats", "max_time")}})
    if not isolate:
        res["notes"].append("not isolated: all implementations in one process; peak RSS is the process's, "
                            "not each implementation's")
    out = {}
    for g in groups_of(quick):
        out.update(common.run_groups(__file__, [g], measure_group, quick, isolate, timeout=900))
    rows = [e for g in out for e in out[g]]
    cases = [case_name(f, n, batch) for n in sizes for f in ("Adam", "Adagrad")]
    common.add_entries(res, out, cases)
    by = {(e["case"], e["impl"]): e for e in rows}
    for r in res["rows"]:  # keep the extra figures in the JSON rows
        e = by.get((r["case"], r["impl"]))
        if e is not None:
            for k in ("examples_per_s", "examples_per_cpu_s", "cpu_ms", "peak_rss", "build_rss", "step_alloc_peak",
                      "table_bytes"):
                if k in e:
                    r[k] = e[k]
    common.finish(res)
    _goals(res, sizes, batch)
    return res


def _eps(res, case, impl_part):
    for r in res["rows"]:
        if r["case"] == case and impl_part in r["impl"] and r.get("examples_per_s"):
            return r["examples_per_s"], r.get("examples_per_cpu_s")
    return None, None


def _goals(res, sizes, batch):
    for fam, d_impl, peers in (("Adam", "descend, lazy Adam", ("SparseAdam", "Keras 3 Adam")),
                               ("Adagrad", "descend, lazy Adagrad", ("+ Adagrad", "Keras 3 Adagrad"))):
        for n in sizes:
            case = case_name(fam, n, batch)
            d, dc = _eps(res, case, d_impl)
            found = [(p, *_eps(res, case, p)) for p in peers]
            found = [(p, e, ec) for p, e, ec in found if e]
            if d is None or not found:
                add_goal(res, case, "more examples/s than every peer", None, "not measured")
                continue
            detail = "; ".join(f"descend / {p} = {d / e:.2f} (CPU-time basis {dc / ec:.2f})" for p, e, ec in found)
            add_goal(res, case, "more examples/s than every peer", all(d > e for _, e, _ in found), detail)
        small, big = (case_name(fam, n, batch) for n in (sizes[0], sizes[-1]))
        a, ac = _eps(res, small, d_impl)
        b, bc = _eps(res, big, d_impl)
        goal = f"flat in table rows ({rows_label(sizes[-1])} within 1.1x of {rows_label(sizes[0])})"
        if a is None or b is None:
            add_goal(res, fam, goal, None, "not measured")
        else:
            add_goal(res, fam, goal, a / b <= 1.1, f"{d_impl}: {rows_label(sizes[0])} / {rows_label(sizes[-1])} "
                                                    f"examples/s = {a / b:.2f} (CPU-time basis {ac / bc:.2f})")
    # memory: what one descend step allocates at its peak (tracemalloc) must not grow with the tables
    allocs = {}
    for r in res["rows"]:
        if r.get("step_alloc_peak") is not None and "lazy" in r["impl"]:
            allocs.setdefault(r["impl"], {})[r["case"].split(" tables x ")[1]] = (r["step_alloc_peak"], r["table_bytes"])
    lo, hi = rows_label(sizes[0]), rows_label(sizes[-1])
    for impl, by in allocs.items():
        a = next((v for k, v in by.items() if k.startswith(lo)), None)
        b = next((v for k, v in by.items() if k.startswith(hi)), None)
        goal = f"a step allocates the same at {hi} as at {lo} (within 1.1x): no temporary of a table's size"
        if a is None or b is None:
            add_goal(res, "memory", f"{impl}: {goal}", None, "not measured")
            continue
        add_goal(res, "memory", f"{impl}: {goal}", b[0] <= 1.1 * a[0],
                 f"{b[0] / 2**20:.1f} MiB vs {a[0] / 2**20:.1f} MiB per step; one table {b[1] / N_TABLES / 2**20:.0f} "
                 f"MiB at {hi}")


if __name__ == "__main__":
    if not common.group_main(measure_group):
        print(common.text_table([run("--quick" in sys.argv, "--isolate" in sys.argv)]))
