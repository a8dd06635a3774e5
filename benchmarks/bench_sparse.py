"""(3) Sparse embedding update: tables of 1M, 4M and 8M rows x 64 float32.

Each step's gradient is the gradient of an embedding lookup of 8,192 ids drawn
with duplicates (4,096 unique rows, random over the table). Only the optimizer
step is timed, with the sparse gradient prepared beforehand (a fresh batch of
ids for every call, so the rows are not in cache):

* descend: ``apply_gradients`` with the ``IndexedSlices`` from
  ``descend.nn.embedding_lookup`` (de-duplication included): lazy Adam, exact
  Adagrad, SGD;
* PyTorch: ``Embedding(sparse=True)`` with ``SparseAdam``, ``Adagrad`` and
  ``SGD`` (``step()`` coalesces the gradient: de-duplication included);
* Keras 3 ``Adam`` on a ``tf.IndexedSlices`` under ``tf.function`` (TensorFlow);
* the floor: a kernel that reads and writes the unique rows of the table and
  slots (after de-duplication);
* descend's Adam with a dense gradient on the largest table (the cost a sparse
  path saves).

    python benchmarks/bench_sparse.py [--quick] [--isolate]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import floor  # noqa: E402
from common import add_goal, entry, fits, free, log, measure, new_result, peer, skipped_note  # noqa: E402

DIM = 64
N_IDS = 8192
N_UNIQUE = 4096
INIT = 0.01  # every table starts at this value (np.full: every page is touched before timing)


def rows_label(n):
    return f"{n // 1_000_000}M rows" if n % 1_000_000 == 0 else f"{n // 1000}k rows"


def make_batches(n_rows, count, seed):
    """``count`` batches of (ids with duplicates, upstream gradient rows)."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        uniq = rng.choice(n_rows, N_UNIQUE, replace=False)
        ids = np.concatenate([uniq, rng.choice(uniq, N_IDS - N_UNIQUE)])
        rng.shuffle(ids)
        w = rng.standard_normal((N_IDS, DIM), dtype=np.float32)
        out.append((ids.astype(np.int64), w))
    return out


def touch(a):
    """Write every page of ``a`` with its own values (``a[...] = a`` would not: NumPy skips a copy onto
    itself, so lazily mapped zeros stayed unmapped until the timed steps faulted them in)."""
    every = a.reshape(-1)[::1024]  # one element per 4 KiB of float32
    every[...] = every.copy()


class Cycle:
    """Hands out the prepared batches in turn."""

    def __init__(self, batches):
        self.batches, self.k = batches, 0

    def next(self):
        b = self.batches[self.k % len(self.batches)]
        self.k += 1
        return b


# ------------------------------------------------------------------------------------------ implementations
OPTS = [  # label, floor slots, descend factory, torch (class, kwargs)
    ("lazy Adam", 2, lambda ds: ds.optimizers.Adam(1e-3, sparse_updates="lazy"), ("SparseAdam", {"lr": 1e-3})),
    ("exact Adagrad", 1, lambda ds: ds.optimizers.Adagrad(0.01, sparse_updates="exact"), ("Adagrad", {"lr": 0.01})),
    ("SGD", 0, lambda ds: ds.optimizers.SGD(0.01), ("SGD", {"lr": 0.01})),
]


def time_floor(n_rows, batches, timing, cases):
    arrays = [np.full((n_rows, DIM), INIT, np.float32) for _ in range(3)]
    out = []
    for (_, slots, _, _), case in zip(OPTS, cases):
        cyc = Cycle(batches)

        def setup():
            ids, w = cyc.next()
            uniq, inv = np.unique(ids, return_inverse=True)
            g = np.zeros((uniq.size, DIM), np.float32)
            np.add.at(g, inv, w)
            return uniq, g

        def fn(a, slots=slots):
            floor.traffic_rows(arrays[0], a[1], arrays[1:1 + slots], a[0])

        t = measure(fn, setup=setup, **timing)
        out.append(entry(case, f"memory floor (unique rows, {floor.BYTES_PER_PARAM[slots]} B/param)", t,
                         role="floor"))
    return out


def time_descend(n_rows, batches, timing, cases):
    import descend as ds

    table = ds.Variable(np.full((n_rows, DIM), INIT, np.float32), name="embedding")
    free()
    out = []
    for (_, _, make, _), case in zip(OPTS, cases):
        opt = make(ds)
        opt.build([table])
        for s in opt.get_slot_names():  # touch every page of the slots (NumPy's zeros are lazily mapped)
            touch(opt.get_slot(table, s)._value)
        cyc = Cycle(batches)

        def setup():
            ids, w = cyc.next()
            with ds.GradientTape() as tape:
                loss = ds.reduce_sum(ds.nn.embedding_lookup(table, ids) * w)
            g = tape.gradient(loss, table)
            assert isinstance(g, ds.IndexedSlices)
            return [(g, table)]

        out.append(entry(case, "descend", measure(opt.apply_gradients, setup=setup, **timing), role="descend"))
        opt = None
        free()
    return out


def time_descend_interleaved(sizes, timing):
    """descend at every table size in turns (one process, all tables alive), so that the flatness in
    row count is not confounded by the machine's load changing between sizes."""
    import descend as ds

    n_calls = timing["repeats"] + timing["warmup"]
    tables, grads = {}, {}
    for n in sizes:
        tables[n] = ds.Variable(np.full((n, DIM), INIT, np.float32), name=f"embedding_{n}")
        grads[n] = []
        for ids, w in make_batches(n, n_calls, seed=n):
            with ds.GradientTape() as tape:
                loss = ds.reduce_sum(ds.nn.embedding_lookup(tables[n], ids) * w)
            grads[n].append(tape.gradient(loss, tables[n]))
        free()
    out = []
    for label, _, make, _ in OPTS:
        fns = {}
        for n in sizes:
            opt = make(ds)
            opt.build([tables[n]])
            for s in opt.get_slot_names():  # touch every page of the slots (NumPy's zeros are lazily mapped)
                touch(opt.get_slot(tables[n], s)._value)
            it = iter(grads[n] * 2)
            fns[n] = lambda opt=opt, it=it, table=tables[n]: opt.apply_gradients([(next(it), table)])
        ts = common.measure_interleaved(fns, **timing)
        out += [entry(f"{label}, {rows_label(n)}", "descend", ts[n], role="descend") for n in sizes]
        fns = None
        free()
    return out


def time_torch(torch, n_rows, batches, timing, cases):
    import warnings

    warnings.filterwarnings("ignore", message="Sparse invariant checks")  # torch's Adagrad on sparse grads
    emb = torch.nn.Embedding.from_pretrained(torch.full((n_rows, DIM), INIT), freeze=False, sparse=True)
    out = []
    for (_, _, _, (cls, kw)), case in zip(OPTS, cases):
        opt = getattr(torch.optim, cls)(emb.parameters(), **kw)
        cyc = Cycle(batches)

        def setup():
            ids, w = cyc.next()
            emb.weight.grad = None
            (emb(torch.from_numpy(ids)) * torch.from_numpy(w)).sum().backward()

        t = measure(lambda _: opt.step(), setup=setup, **timing)
        out.append(entry(case, f"PyTorch {cls} (Embedding sparse=True)", t))
        opt = None
        free()
    return out


def time_keras(n_rows, batches, timing, case):
    import keras
    import tensorflow as tf

    var = keras.Variable(np.full((n_rows, DIM), INIT, np.float32))
    opt = keras.optimizers.Adam(1e-3)
    opt.build([var])
    cyc = Cycle(batches)
    shape = tf.constant([n_rows, DIM], tf.int64)

    def setup():
        ids, w = cyc.next()
        return tf.IndexedSlices(tf.constant(w), tf.constant(ids), shape)

    for jit in (True, False):
        fn = tf.function(lambda g: opt.apply_gradients([(g, var)]), jit_compile=jit)
        try:
            fn(setup())
        except Exception as e:  # noqa: BLE001
            log(f"  keras jit_compile={jit}: {type(e).__name__}: {str(e)[:200]}")
            continue

        def step(g, fn=fn):
            fn(g)
            var.value.numpy().flat[0]  # wait for completion

        mode = "jit_compile" if jit else "tf.function"
        return entry(case, f"Keras 3 Adam (IndexedSlices, {mode})", measure(step, setup=setup, **timing))
    return entry(case, "Keras 3 Adam (IndexedSlices)", None, note="tf.function failed")


def dense_adam(n_rows, repeats):
    """descend Adam on an (n_rows, 64) table with a dense gradient (the step a sparse path saves)."""
    import descend as ds

    ids, w = make_batches(n_rows, 1, seed=7)[0]
    g = np.zeros((n_rows, DIM), np.float32)
    np.add.at(g, ids, w)
    table = ds.Variable(np.full((n_rows, DIM), INIT, np.float32), name="embedding")
    grad = ds.convert_to_tensor(g)
    opt = ds.optimizers.Adam(1e-3)
    opt.build([table])
    for s in opt.get_slot_names():
        touch(opt.get_slot(table, s)._value)
    return measure(lambda: opt.apply_gradients([(grad, table)]), repeats=repeats, warmup=1, max_time=10.0)


# ------------------------------------------------------------------------------------------ the benchmark
GROUPS = ["dense_adam", "floor", "descend", "torch", "tf"]  # dense_adam first, while memory is free


def config(quick):
    sizes = [50_000, 200_000, 400_000] if quick else [1_000_000, 4_000_000, 8_000_000]
    timing = dict(repeats=8, warmup=2, max_time=0.5) if quick else dict(repeats=30, warmup=3, max_time=3.0)
    return sizes, timing


def cases_of(n):
    return [f"{label}, {rows_label(n)}" for label, *_ in OPTS]


def measure_group(group, quick):
    sizes, timing = config(quick)
    out = []
    if group == "dense_adam":
        big = sizes[-1]
        case = f"lazy Adam, {rows_label(big)}"
        need = 5 * big * DIM * 4  # table, gradient, two slots, and room for temporaries
        if not fits(need):
            return [entry(case, "descend Adam, dense gradient", None, role="info",
                          note=f"skipped: needs about {need / 2**30:.0f} GiB, "
                               f"{common.mem_available() / 2**30:.0f} GiB available")]
        return [entry(case, "descend Adam, dense gradient", dense_adam(big, 3 if quick else 5), role="info")]
    if group == "descend" and fits(sum(sizes) * DIM * 4 * 4):  # tables and two slots, with room to spare
        return time_descend_interleaved(sizes, timing)
    torch = tf = None
    if group == "floor":
        floor.compile_rows()
    elif group == "torch":
        torch = peer("torch")
        if torch is None:
            return [entry(c, "PyTorch", None, note=skipped_note("torch")) for n in sizes for c in cases_of(n)]
    elif group == "tf":
        tf = peer("tf")
        if tf is None:
            return [entry(cases_of(n)[0], "Keras 3 Adam", None, note=skipped_note("tf")) for n in sizes]
    n_batches = timing["repeats"] + timing["warmup"]
    for n in sizes:
        cases = cases_of(n)
        batches = make_batches(n, n_batches, seed=n)
        t0 = time.perf_counter()
        if group == "floor":
            out += time_floor(n, batches, timing, cases)
        elif group == "descend":
            out += time_descend(n, batches, timing, cases)
        elif group == "torch":
            out += time_torch(torch, n, batches, timing, cases)
        elif group == "tf":
            need = 6 * n * DIM * 4
            if quick and n != sizes[0]:
                pass
            elif fits(need):
                out.append(time_keras(n, batches, timing, cases[0]))
            else:
                out.append(entry(cases[0], "Keras 3 Adam (IndexedSlices)", None,
                                 note=f"skipped: needs about {need / 2**30:.0f} GiB"))
        else:
            raise ValueError(group)
        log(f"  ({group}, {rows_label(n)}: {time.perf_counter() - t0:.1f} s)")
        free()
    return out


def run(quick: bool = False, isolate: bool = False) -> dict:
    sizes, timing = config(quick)
    res = new_result(
        "sparse", "Sparse embedding update",
        f"Tables of {', '.join(rows_label(n) for n in sizes)} x {DIM} float32; each step's gradient comes from "
        f"an embedding lookup of {N_IDS:,} ids with duplicates ({N_UNIQUE:,} unique rows, random over the table). "
        "Only the optimizer step is timed, gradient prepared, a fresh batch each call (de-duplication included "
        "for descend and PyTorch). Floor: a kernel reading and writing the unique rows of table, gradient and "
        "slots.",
        {"rows": sizes, "dim": DIM, "ids": N_IDS, "unique": N_UNIQUE, **timing})
    if quick:
        res["notes"].append("quick: Keras on the smallest table only")
    out = common.run_groups(__file__, GROUPS, measure_group, quick, isolate)
    common.add_entries(res, out, [c for n in sizes for c in cases_of(n)])

    # goals
    big = sizes[-1]
    small, big_l = rows_label(sizes[0]), rows_label(big)
    for label, *_ in OPTS:
        a, b = common.case_ms(res, f"{label}, {small}"), common.case_ms(res, f"{label}, {big_l}")
        goal = f"flat in row count ({big_l} within 1.1x of {small})"
        if a is None or b is None:
            add_goal(res, label, goal, None, "not measured")
        else:
            add_goal(res, label, goal, b / a <= 1.1, f"{big_l} / {small} = {b / a:.2f}")
    big_case = f"lazy Adam, {big_l}"
    lazy = common.case_ms(res, big_case)
    dense = common.case_ms(res, big_case, role="info", impl="descend Adam, dense gradient")
    if dense is None or lazy is None:
        add_goal(res, big_case, ">= 100x faster than a dense Adam step", None, "not measured")
    else:
        add_goal(res, big_case, ">= 100x faster than a dense Adam step", dense / lazy >= 100,
                 f"dense / lazy = {dense / lazy:.0f}")
    ratios = []
    for n in sizes:
        c = f"lazy Adam, {rows_label(n)}"
        sa = [ms for impl, ms in common.peers_ms(res, c) if "SparseAdam" in impl]
        d = common.case_ms(res, c)
        if sa and d:
            ratios.append((rows_label(n), sa[0] / d))
    goal = "faster than PyTorch SparseAdam at every size"
    if ratios:
        add_goal(res, "lazy Adam", goal, all(r > 1 for _, r in ratios),
                 "; ".join(f"{n}: SparseAdam / descend = {r:.2f}" for n, r in ratios))
    else:
        add_goal(res, "lazy Adam", goal, None, "not measured")
    return common.finish(res)


if __name__ == "__main__":
    if not common.group_main(measure_group):
        print(common.text_table([run("--quick" in sys.argv, "--isolate" in sys.argv)]))
