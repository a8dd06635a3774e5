"""(7) Exact-lazy sparse updates: the exact optimizer at (close to) the lazy cost.

Tables of 1M and 8M rows x 64 float32 (``--quick``: 100k and 800k x 16); each step's
gradient is an ``IndexedSlices`` of 4,096 unique random rows (``--quick``: 1,024). For Adam,
Adagrad (with weight decay) and SGD with momentum, one ``apply_gradients`` is timed with
``sparse_updates`` = ``"exact"`` (every row's slots decay: cost grows with the table),
``"lazy"`` (a different algorithm, the touched rows only) and ``"exact_lazy"`` (the exact
result; the touched rows are caught up over the steps they skipped, in closed form for
Adagrad and momentum, by replaying the skipped steps for Adam). The exact-lazy figure is
the mean of a run of steps after a warm-up that leaves rows behind (its catch-up cost
depends on how long ago a row was touched, which a one-step timing would not show).

    python benchmarks/bench_exact_lazy.py [--quick]
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import add_goal, add_row, free, log, new_result  # noqa: E402

OPTS = [  # label, factory(ds, mode)
    ("Adam", lambda ds, mode: ds.optimizers.Adam(1e-3, sparse_updates=mode)),
    ("Adagrad + weight decay", lambda ds, mode: ds.optimizers.Adagrad(0.01, weight_decay=1e-4, sparse_updates=mode)),
    ("SGD momentum", lambda ds, mode: ds.optimizers.SGD(0.01, momentum=0.9, sparse_updates=mode)),
]
MODES = ("exact", "lazy", "exact_lazy")


def config(quick):
    if quick:
        return dict(sizes=[100_000, 800_000], dim=16, unique=1024, warmup=20, steps=20)
    return dict(sizes=[1_000_000, 8_000_000], dim=64, unique=4096, warmup=50, steps=50)


def rows_label(n):
    return f"{n // 1_000_000}M rows" if n % 1_000_000 == 0 else f"{n // 1000}k rows"


def time_steps(ds, table, opt, batches):
    """Mean seconds per apply_gradients over ``batches`` (gradients made beforehand)."""
    t0 = time.perf_counter()
    for g in batches:
        opt.apply_gradients([(g, table)])
    return (time.perf_counter() - t0) / len(batches)


def run(quick: bool = False, isolate: bool = False) -> dict:
    import descend as ds

    cfg = config(quick)
    res = new_result(
        "exact_lazy", "Exact-lazy sparse updates",
        f"Tables of {', '.join(rows_label(n) for n in cfg['sizes'])} x {cfg['dim']} float32, "
        f"{cfg['unique']:,} unique random rows per step; mean ms per apply_gradients over {cfg['steps']} steps "
        f"after {cfg['warmup']} warm-up steps (exact-lazy: rows left behind by the warm-up are caught up).",
        dict(cfg))
    rng = np.random.default_rng(0)
    for n in cfg["sizes"]:
        table = ds.Variable(np.full((n, cfg["dim"]), 0.01, np.float32), name="embedding")
        batches = []
        for _ in range(cfg["warmup"] + cfg["steps"]):
            idx = rng.choice(n, cfg["unique"], replace=False).astype(np.int64)
            vals = rng.standard_normal((cfg["unique"], cfg["dim"]), dtype=np.float32)
            batches.append(ds.IndexedSlices(ds.constant(vals), ds.constant(idx), (n, cfg["dim"])))
        for label, make in OPTS:
            for mode in MODES:
                opt = make(ds, mode)
                time_steps(ds, table, opt, batches[:cfg["warmup"]])
                s = time_steps(ds, table, opt, batches[cfg["warmup"]:])
                timing = {"best": s, "median": s, "n": cfg["steps"]}
                add_row(res, f"{label}, {rows_label(n)}", f"descend sparse_updates={mode!r}", timing,
                        role="descend" if mode == "exact_lazy" else "info")
                t0 = time.perf_counter()
                opt.flush()
                log(f"    flush after {cfg['warmup'] + cfg['steps']} steps: {time.perf_counter() - t0:.3f} s")
                opt = None
                free()
        table = None
        free()
    small, big = rows_label(cfg["sizes"][0]), rows_label(cfg["sizes"][-1])
    ms = {(r["case"], r["impl"]): r["ms"] for r in res["rows"]}
    for label, _ in OPTS:
        a = ms.get((f"{label}, {small}", "descend sparse_updates='exact_lazy'"))
        b = ms.get((f"{label}, {big}", "descend sparse_updates='exact_lazy'"))
        e = ms.get((f"{label}, {big}", "descend sparse_updates='exact'"))
        add_goal(res, label, f"exact-lazy step flat in row count ({big} within 1.5x of {small})", b <= 1.5 * a,
                 f"{b:.2f} / {a:.2f} ms = {b / a:.2f}")
        add_goal(res, label, f"exact-lazy faster than exact at {big}", b < e, f"{e:.2f} / {b:.2f} ms = {e / b:.1f}x")
    long_run(ds, res, quick)
    res["notes"].append("Adam's catch-up replays each skipped step for the rows read (no closed form with "
                        "epsilon > 0): over a long run every row goes through every step once (read, or swept "
                        "once the history holds 512 updates), so its steady cost is the dense update's "
                        "arithmetic without its memory traffic; see the long-run rows")
    return res


def long_run(ds, res, quick: bool) -> None:
    """Adam on a 1M x 16 table (``--quick``: 200k), 16 random rows a step, for 3,000 steps (``--quick``:
    1,500): the mean step over the first 500 and the last 500 steps, for each mode (exact: 200 steps)."""
    rows, width, per_step = (200_000 if quick else 1_000_000), 16, 16
    steps = 1500 if quick else 3000
    rng = np.random.default_rng(1)
    values = ds.constant(rng.standard_normal((per_step, width), dtype=np.float32))
    ids = [ds.constant(rng.integers(0, rows, per_step)) for _ in range(steps)]
    case = f"Adam long run, {rows_label(rows)} x {width}, {per_step} rows a step"
    means = {}
    for mode in MODES:
        table = ds.Variable(np.zeros((rows, width), np.float32), name="embedding")
        opt = ds.optimizers.Adam(1e-3, sparse_updates=mode)
        n = 200 if mode == "exact" else steps
        marks = []
        t0 = time.perf_counter()
        for k in range(n):
            opt.apply_gradients([(ds.IndexedSlices(values, ids[k], (rows, width)), table)])
            if k + 1 in (min(n, 500), n):
                t1 = time.perf_counter()
                marks.append(t1 - t0)
                t0 = t1
        first, last = marks[0] / min(n, 500), marks[-1] / (n - 500 if n > 500 else n)
        means[mode] = last
        spans = [(f"steps 1-{min(n, 500)}", first)] + ([(f"steps {n - 499}-{n}", last)] if n > 500 else [])
        for label, s in spans:
            add_row(res, case, f"descend sparse_updates={mode!r}, {label}", {"best": s, "median": s, "n": 1},
                    role="descend" if mode == "exact_lazy" else "info")
        table = opt = None
        free()
    add_goal(res, "Adam long run", "exact-lazy's steady step faster than exact's",
             means["exact_lazy"] < means["exact"],
             f"{means['exact'] * 1e3:.2f} / {means['exact_lazy'] * 1e3:.2f} ms = "
             f"{means['exact'] / means['exact_lazy']:.1f}x")


if __name__ == "__main__":
    import common

    out = run(quick="--quick" in sys.argv)
    print(common.text_table([out]))
