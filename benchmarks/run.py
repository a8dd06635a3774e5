"""Run descend's benchmark suite against the installed peers and report ratios.

    python benchmarks/run.py                  # everything (about 5 minutes on 2 cores)
    python benchmarks/run.py --quick          # smaller sizes: a smoke run
    python benchmarks/run.py --only dense     # one benchmark (repeat --only, or comma-separate)

Benchmarks: dense, many_small, sparse, tape, e2e, cold_start, exact_lazy, distributed, embedding_e2e (one module
each, ``benchmarks/bench_<name>.py``). Peers that are installed are measured
in the same run (PyTorch CPU, JAX + optax, TensorFlow/Keras 3); the others
are skipped with a note. Prints one table, writes ``benchmarks/results.json``
(machine description and every figure) and ``BENCHMARKS.md``. A ``--quick``
run writes ``benchmarks/results-quick.json`` instead and leaves
``BENCHMARKS.md`` alone. With ``--only``, the named benchmarks replace their
previous results in the JSON file and the others are kept.

In a full run each implementation (the floor, descend, each peer) runs in a
process of its own that loads only its own framework, so that no other
framework's thread pools compete for the cores (and the large tables' memory
is returned); ``--quick`` runs everything in this process to save the peers'
import time (``--isolate`` / ``--no-isolate`` override).
"""

from __future__ import annotations

import argparse
import datetime
import importlib
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
if ROOT not in sys.path:
    sys.path.insert(1, ROOT)  # the working tree's descend, also when it is not installed

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("KERAS_BACKEND", "tensorflow")

import common  # noqa: E402

BENCHMARKS = {
    "dense": "bench_dense",
    "many_small": "bench_many_small",
    "sparse": "bench_sparse",
    "tape": "bench_tape",
    "e2e": "bench_e2e",
    "cold_start": "bench_cold_start",
    "exact_lazy": "bench_exact_lazy",
    "distributed": "bench_distributed",
    "embedding_e2e": "bench_embedding_e2e",
}


def run_one(name: str, quick: bool, isolate: bool) -> dict:
    t0 = time.perf_counter()
    try:
        res = importlib.import_module(BENCHMARKS[name]).run(quick=quick, isolate=isolate)
    except Exception as e:  # noqa: BLE001 - reported in the table, the suite goes on
        traceback.print_exc()
        res = common.error_result(name, f"{type(e).__name__}: {e}")
    res["seconds"] = time.perf_counter() - t0
    res["quick"] = quick
    res["isolated"] = isolate
    res["run_at"] = datetime.datetime.now().isoformat(timespec="seconds")
    return res


def main(argv=None):
    p = argparse.ArgumentParser(description="descend's benchmark suite", epilog=", ".join(BENCHMARKS))
    p.add_argument("--quick", action="store_true", help="smaller sizes and fewer repeats (a smoke run)")
    p.add_argument("--only", action="append", default=[], metavar="NAME",
                   help=f"run only these benchmarks ({', '.join(BENCHMARKS)}); repeat or comma-separate")
    iso = p.add_mutually_exclusive_group()
    iso.add_argument("--isolate", dest="isolate", action="store_true", default=None,
                     help="each implementation (descend, each peer, the floor) in a process of its own, which "
                          "loads only its framework (default for full runs)")
    iso.add_argument("--no-isolate", dest="isolate", action="store_false",
                     help="every implementation in this process (default for --quick)")
    p.add_argument("--json", help="results file (default benchmarks/results.json, or results-quick.json)")
    p.add_argument("--markdown", help="Markdown report (default BENCHMARKS.md for full runs; none for --quick)")
    p.add_argument("--no-write", action="store_true", help="print the table only")
    a = p.parse_args(argv)

    names = [n.strip() for x in a.only for n in x.split(",") if n.strip()] or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        p.error(f"unknown benchmark(s) {unknown}; choose from {list(BENCHMARKS)}")
    isolate = (not a.quick) if a.isolate is None else a.isolate
    started = datetime.datetime.now().isoformat(timespec="seconds")
    load0 = os.getloadavg()
    if load0[0] > 0.5:
        common.log(f"note: load average {load0[0]:.2f} at start: other processes use the CPU; figures may be noisy")
    peers = {k: common.PEER_LABEL[k] for k in ("torch", "jax", "tf")}
    common.log(f"descend benchmarks ({'quick' if a.quick else 'full'}): {', '.join(names)}; peers probed: "
               + ", ".join(peers.values()))
    t0 = time.perf_counter()
    results = []
    for name in names:
        common.log(f"== {name}")
        res = run_one(name, a.quick, isolate)
        common.log(f"   ({res.get('seconds', 0):.0f} s)")
        results.append(res)
    seconds = time.perf_counter() - t0
    meta = {"started": started, "seconds": seconds, "quick": a.quick, "isolated": isolate,
            "loadavg_start": load0, "loadavg_end": os.getloadavg(), "command": " ".join(sys.argv),
            "machine": common.machine_info()}
    print(common.text_table(results))
    if not isolate:
        print("\nnot isolated: every implementation ran in this process, where the other frameworks' thread pools "
              "compete for the cores; use these figures as a smoke test, not as a comparison")
    print(f"\n{common.machine_line(meta['machine'])}\n{len(results)} benchmark(s) in {seconds:.0f} s; "
          f"load average {load0[0]:.2f} at start, {meta['loadavg_end'][0]:.2f} at end")
    if a.no_write:
        return 0
    json_path = a.json or os.path.join(HERE, "results-quick.json" if a.quick else "results.json")
    md_path = a.markdown or (None if a.quick else os.path.join(ROOT, "BENCHMARKS.md"))
    merged = results
    if set(names) != set(BENCHMARKS) and os.path.exists(json_path):  # --only: keep the other benchmarks
        try:
            with open(json_path) as f:
                old = json.load(f)
            fresh = {r["name"]: r for r in results}
            kept = [r for r in old.get("benchmarks", []) if r["name"] not in fresh]
            order = list(BENCHMARKS)
            merged = sorted(kept + results, key=lambda r: order.index(r["name"]) if r["name"] in order else 99)
        except (OSError, ValueError, KeyError):
            pass
    doc = {"meta": meta, "benchmarks": merged}
    with open(json_path, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    print(f"wrote {os.path.relpath(json_path, ROOT)}", end="")
    if md_path:
        with open(md_path, "w") as f:
            f.write(common.markdown(merged, meta))
        print(f" and {os.path.relpath(md_path, ROOT)}", end="")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
