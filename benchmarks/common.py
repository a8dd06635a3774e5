"""Shared helpers of the benchmark suite: timing, peers, results, tables.

Every benchmark module (``bench_*.py``) has ``run(quick: bool) -> dict`` that
returns a *result*::

    {"name": "dense", "title": "...", "description": "...", "params": {...},
     "rows": [row, ...], "goals": [goal, ...], "notes": ["..."]}

A row is one implementation measured on one case::

    {"case": "Adam", "impl": "descend", "role": "descend" | "floor" | "peer",
     "ms": best time in ms (None when skipped), "median_ms": ..., "n": repeats,
     "cpu_ms": median CPU time of the process per call, all its threads (absent when skipped),
     "per": optional extra figure ("3.1 us/op"), "note": "..."}

:func:`finish` adds ``x_descend`` (ms / descend's ms in the same case) and
``x_floor`` (ms / the floor's ms in the same case) to every row. A ratio above
1 means slower than descend (or than the floor).
"""

from __future__ import annotations

import gc
import importlib
import importlib.metadata
import math
import os
import platform
import statistics
import sys
import time

THREADS = 2  # the thread budget of every peer (torch.set_num_threads, TF intra-op)

# ---------------------------------------------------------------------------------------------------- timing


def measure(fn, *, repeats=10, warmup=1, setup=None, max_time=None, min_repeats=3):
    """Time ``fn``; returns ``{"best": s, "median": s, "n": k}``.

    Args:
        fn: the code to time. Called as ``fn()`` or, with ``setup``, ``fn(setup())``.
        repeats: number of timed calls (fewer when ``max_time`` runs out).
        warmup: untimed calls first (compilation, slot creation, page faults).
        setup: untimed preparation of each call's argument (e.g. a fresh sparse gradient).
        max_time: stop after this many seconds of timed calls once ``min_repeats`` are done.
        min_repeats: see ``max_time``.
    """
    call = (lambda: fn()) if setup is None else (lambda: fn(setup()))
    for _ in range(warmup):
        call()
    times, cpu = [], []
    spent = 0.0
    for _ in range(repeats):
        arg = None if setup is None else setup()
        gc_was = gc.isenabled()
        gc.disable()
        try:
            c0 = time.process_time()
            t0 = time.perf_counter()
            if setup is None:
                fn()
            else:
                fn(arg)
            dt = time.perf_counter() - t0
            cpu.append(time.process_time() - c0)
        finally:
            if gc_was:
                gc.enable()
        times.append(dt)
        spent += dt
        if max_time is not None and spent > max_time and len(times) >= min_repeats:
            break
    # cpu: the process's CPU time per call (all its threads), a figure a busy machine disturbs less
    return {"best": min(times), "median": statistics.median(times), "n": len(times),
            "cpu": statistics.median(cpu)}


def measure_interleaved(fns: dict, *, repeats=10, warmup=1, max_time=None, min_repeats=3):
    """Time several implementations in turns: round k calls each once (rotating the order), so
    that a noisy moment of the machine falls on all of them alike. Returns ``{name: timing}``
    as :func:`measure` does. ``max_time`` bounds the timed seconds of the whole set."""
    names = list(fns)
    for name in names:
        for _ in range(warmup):
            fns[name]()
    times = {n: [] for n in names}
    spent = 0.0
    for k in range(repeats):
        order = names[k % len(names):] + names[:k % len(names)]
        for name in order:
            fn = fns[name]
            gc_was = gc.isenabled()
            gc.disable()
            try:
                t0 = time.perf_counter()
                fn()
                dt = time.perf_counter() - t0
            finally:
                if gc_was:
                    gc.enable()
            times[name].append(dt)
            spent += dt
        if max_time is not None and spent > max_time and k + 1 >= min_repeats:
            break
    return {n: {"best": min(t), "median": statistics.median(t), "n": len(t)} for n, t in times.items()}


def log(*args):
    """Progress lines go to stderr so that the parent's table stays clean."""
    print(*args, file=sys.stderr, flush=True)


def free():
    gc.collect()


def mem_available() -> int:
    """Bytes of memory available (``MemAvailable`` of /proc/meminfo), or a large number if unknown."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 1 << 62


def fits(nbytes: float, margin: float = 0.85) -> bool:
    return nbytes <= mem_available() * margin


# ---------------------------------------------------------------------------------------------------- peers

_PEER_CACHE: dict = {}


def peer(name: str):
    """Import a peer framework configured for this suite, or return ``None`` (not installed).

    ``name``: ``"torch"``, ``"jax"`` (with optax), ``"tf"`` (TensorFlow with Keras 3), ``"numba"``.
    """
    if name in _PEER_CACHE:
        return _PEER_CACHE[name]
    mod = None
    if name in os.environ.get("DESCEND_BENCH_SKIP", "").split(","):  # pretend it is not installed
        _PEER_CACHE[name] = None
        return None
    try:
        if name == "torch":
            import torch

            torch.set_num_threads(THREADS)
            mod = torch
        elif name == "jax":
            os.environ.setdefault("JAX_PLATFORMS", "cpu")
            import jax
            import optax  # noqa: F401

            mod = jax
        elif name == "tf":
            os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
            os.environ.setdefault("KERAS_BACKEND", "tensorflow")
            import tensorflow as tf

            try:
                tf.config.threading.set_intra_op_parallelism_threads(THREADS)
                tf.config.threading.set_inter_op_parallelism_threads(THREADS)
            except RuntimeError:  # already initialized
                pass
            import keras

            if keras.backend.backend() != "tensorflow":
                raise ImportError(f"Keras backend is {keras.backend.backend()!r}, not 'tensorflow'")
            mod = tf
        elif name == "numba":
            import numba

            mod = numba
        else:
            raise ValueError(name)
    except ImportError as e:
        log(f"  {name}: not available ({e})")
        mod = None
    _PEER_CACHE[name] = mod
    gc.collect()
    gc.freeze()  # the frameworks' many objects: out of later collections (free() stays fast)
    return mod


INSTALL_HINT = {
    "torch": "pip install torch==2.13.0",
    "jax": "pip install jax optax",
    "tf": "pip install tensorflow-cpu",
    "numba": "pip install numba",
}
PEER_LABEL = {"torch": "PyTorch", "jax": "JAX + optax", "tf": "TensorFlow/Keras", "numba": "numba"}


def skipped_note(name: str) -> str:
    return f"{PEER_LABEL[name]} not installed: skipped ({INSTALL_HINT[name]})"


# ---------------------------------------------------------------------------------------------------- groups
# A benchmark measures its implementations in *groups* (the floor, descend, PyTorch, JAX, TensorFlow). In a
# full run each group runs in a process of its own, which loads only its own framework: no other framework's
# thread pools (OpenMP, OpenBLAS, Eigen, XLA) compete with it for the cores, as with a user who runs one of
# them. ``--quick`` runs the groups in one process (no import time).

RESULT_MARK = "@@descend-bench-result@@ "


def entry(case, impl, timing=None, *, role="peer", note="", per=None):
    """One measured (or skipped: ``timing=None``) implementation, as a group returns it. A group run in a
    process of its own that measures one case adds ``rss_mb``, the process's peak resident memory
    (:func:`group_main`)."""
    return {"case": case, "impl": impl, "timing": timing, "role": role, "note": note, "per": per}


def peak_rss_mb() -> float | None:
    """This process's peak resident memory so far in MiB (``getrusage``'s ``ru_maxrss``; None where there is none)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return None
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib / (1 << 20) if sys.platform == "darwin" else kib / 1024  # (bytes on macOS, KiB on Linux)


#: rounds a full run measures its groups in (``run_rounds``); a quick run measures them once
ROUNDS = 3


def run_rounds(module_file, groups, measure_group, quick, isolate, rounds=None, run_once=None):
    """``{group: [entries]}`` like :func:`run_groups`, every group measured ``rounds`` times in turns
    (default :data:`ROUNDS`, 1 for a quick run): per implementation, the median of the rounds' medians and
    the best of their bests, so a busy moment of a shared machine falls on every implementation alike.
    ``run_once()`` (default: :func:`run_groups` of ``groups``) measures one round and returns
    ``{group: [entries]}``."""
    import numpy as np

    rounds = max(int(rounds if rounds is not None else (1 if quick else ROUNDS)), 1)
    collected: dict = {}
    order: list = []
    for k in range(rounds):
        if rounds > 1:
            log(f"round {k + 1} of {rounds} (load average {os.getloadavg()[0]:.2f})")
        out = run_once() if run_once is not None else run_groups(module_file, groups, measure_group, quick, isolate)
        for g in out:
            for e in out[g]:
                key = (g, e["case"], e["impl"])
                if key not in collected:
                    collected[key] = dict(e, timings=[])
                    order.append(key)
                if e["timing"] is not None:
                    collected[key]["timings"].append(e["timing"])
                if e.get("rss_mb") is not None:  # the largest peak of the rounds
                    collected[key]["rss_mb"] = max(e["rss_mb"], collected[key].get("rss_mb") or 0.0)
    merged: dict = {}
    for key in order:
        e = collected.pop(key)
        ts = e.pop("timings")
        if ts:
            e["timing"] = {"best": min(t["best"] for t in ts), "median": float(np.median([t["median"] for t in ts])),
                           "n": sum(t["n"] for t in ts)}
            if all("cpu" in t for t in ts):
                e["timing"]["cpu"] = float(np.median([t["cpu"] for t in ts]))
        merged.setdefault(key[0], []).append(e)
    return merged


def run_groups(module_file, groups, measure_group, quick, isolate, timeout=1800):
    """``{group: [entries]}``: each group measured in this process, or in a child process
    ``python module_file --group NAME [--quick]`` when ``isolate``."""
    import json
    import subprocess
    import traceback

    out = {}
    for g in groups:
        t0 = time.perf_counter()
        if not isolate:
            try:
                out[g] = measure_group(g, quick)
            except Exception as e:  # noqa: BLE001 - reported in the table
                traceback.print_exc()
                out[g] = [entry("—", g, None, note=f"failed: {type(e).__name__}: {str(e)[:160]}")]
            continue
        cmd = [sys.executable, os.path.abspath(module_file), "--group", g] + (["--quick"] if quick else [])
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        try:
            p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True, timeout=timeout)
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith(RESULT_MARK)]
            if lines:
                out[g] = json.loads(lines[-1][len(RESULT_MARK):])
            else:
                out[g] = [entry("—", g, None, note=f"failed: process exited with {p.returncode} "
                                                  "(out of memory?)")]
        except subprocess.TimeoutExpired:
            out[g] = [entry("—", g, None, note=f"failed: timed out after {timeout:.0f} s")]
        log(f"  [{g}: {time.perf_counter() - t0:.1f} s]")
    return out


def group_main(measure_group):
    """The ``__main__`` of a benchmark module: ``--group NAME`` measures one group and prints it."""
    import json

    if "--group" in sys.argv:
        g = sys.argv[sys.argv.index("--group") + 1]
        entries = measure_group(g, "--quick" in sys.argv)
        if len({e["case"] for e in entries}) == 1:  # one case in this process: its peak memory is the case's
            rss = peak_rss_mb()
            for e in entries:
                if e["timing"] is not None:
                    e.setdefault("rss_mb", rss)
        sys.stdout.flush()
        print(RESULT_MARK + json.dumps(entries), flush=True)
        return True
    return False


def add_entries(result, groups_out: dict, case_order: list):
    """Add every group's entries to ``result`` as rows: by case (``case_order`` first), then floor,
    descend, peers (in group order) and other figures."""
    rows = [e for g in groups_out for e in groups_out[g]]
    order = {c: i for i, c in enumerate(case_order)}
    rank = {"floor": 0, "descend": 1, "descend_apply": 1, "descend_fit": 1, "peer": 2, "info": 3}
    rows.sort(key=lambda e: (order.get(e["case"], len(order)), rank.get(e["role"], 2)))  # stable within a rank
    for e in rows:
        add_row(result, e["case"], e["impl"], e["timing"], role=e["role"], note=e["note"] or "", per=e["per"],
                peak_rss_mb=e.get("rss_mb"))


# ---------------------------------------------------------------------------------------------------- results


def new_result(name, title, description, params=None):
    return {"name": name, "title": title, "description": description, "params": params or {}, "rows": [],
            "goals": [], "notes": []}


def add_row(result, case, impl, timing=None, *, role="peer", note="", per=None, **extra):
    """Append a row; ``timing`` is :func:`measure`'s dict (or ``None`` for a skipped row)."""
    row = {"case": case, "impl": impl, "role": role,
           "ms": None if timing is None else timing["best"] * 1e3,
           "median_ms": None if timing is None else timing["median"] * 1e3,
           "n": None if timing is None else timing["n"], "per": per, "note": note}
    if timing is not None and "cpu" in timing:
        row["cpu_ms"] = timing["cpu"] * 1e3
    row.update(extra)
    result["rows"].append(row)
    if timing is not None:
        cpu = f"(cpu {row['cpu_ms']:.3f} ms) " if "cpu_ms" in row else ""
        rss = f"(peak RSS {row['peak_rss_mb']:.0f} MiB) " if row.get("peak_rss_mb") is not None else ""
        log(f"  {case:28s} {impl:44s} {row['ms']:10.3f} ms  median {row['median_ms']:.3f} ms  {cpu}{rss}{per or ''}")
    else:
        log(f"  {case:28s} {impl:44s}    skipped  {note}")
    return row


def add_goal(result, case, goal, met, detail=""):
    result["goals"].append({"case": case, "goal": goal, "met": met, "detail": detail})


def case_ms(result, case, role="descend", impl=None):
    for r in result["rows"]:
        if r["case"] == case and r["role"] == role and (impl is None or r["impl"] == impl) and r["ms"] is not None:
            return r["ms"]
    return None


def peers_ms(result, case):
    return [(r["impl"], r["ms"]) for r in result["rows"] if r["case"] == case and r["role"] == "peer"
            and r["ms"] is not None]


def finish(result):
    """Fill in the ratios ``x_descend`` and ``x_floor`` of every row."""
    for r in result["rows"]:
        d = case_ms(result, r["case"], "descend")
        f = case_ms(result, r["case"], "floor")
        r["x_descend"] = None if r["ms"] is None or not d else r["ms"] / d
        r["x_floor"] = None if r["ms"] is None or not f else r["ms"] / f
    return result


def error_result(name, message):
    res = new_result(name, name, "")
    res["error"] = message
    res["notes"].append(f"benchmark failed: {message}")
    return res


# ---------------------------------------------------------------------------------------------------- machine


def _version(dist):
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return None


def machine_info() -> dict:
    cpu = ""
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name") and not cpu:
                    cpu = line.split(":", 1)[1].strip()
                elif line.startswith("flags") and not flags:
                    fl = line.split(":", 1)[1].split()
                    flags = " ".join(x for x in ("avx2", "avx512f", "fma") if x in fl)
    except OSError:
        pass
    cpu = cpu or platform.processor() or "unknown CPU"
    mem = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem = round(int(line.split()[1]) / 1024**2, 1)
    except OSError:
        pass
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:
        affinity = None
    versions = {"python": platform.python_version()}
    for label, dist in (("numpy", "numpy"), ("numba", "numba"), ("torch", "torch"), ("jax", "jax"),
                        ("jaxlib", "jaxlib"), ("optax", "optax"), ("tensorflow", "tensorflow"),
                        ("tensorflow-cpu", "tensorflow-cpu"), ("keras", "keras"), ("descend", "descend")):
        versions[label] = _version(dist)
    if versions["tensorflow"] is None:
        versions["tensorflow"] = versions.pop("tensorflow-cpu")
    else:
        versions.pop("tensorflow-cpu")
    return {"platform": platform.platform(), "machine": platform.machine(), "cpu": cpu, "cpu_flags": flags,
            "cores": os.cpu_count(), "cores_usable": affinity, "memory_gib": mem, "threads": THREADS,
            "versions": versions}


def machine_line(m: dict) -> str:
    v = m["versions"]
    vs = ", ".join(f"{k} {x}" for k, x in v.items() if x)
    return (f"{m['cpu']} ({m['cores_usable'] or m['cores']} cores, {m['cpu_flags']}), {m['memory_gib']} GiB, "
            f"{m['platform']}; {vs}")


# ---------------------------------------------------------------------------------------------------- tables


def _fmt_ms(x):
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.3f}"


def _fmt_x(x):
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:.0f}x"
    if x >= 10:
        return f"{x:.1f}x"
    return f"{x:.2f}x"


def _fmt_mb(x):
    return "—" if x is None else f"{x:.0f}"


def _met(m):
    return "yes" if m is True else "no" if m is False else "n/a"


def text_table(results: list[dict]) -> str:
    """The one table printed at the end of a run."""
    head = ("benchmark", "case", "implementation", "ms", "median ms", "RSS MiB", "x descend", "x floor", "note")
    body = []
    for res in results:
        for r in res["rows"]:
            note = "; ".join(x for x in (r.get("per") or "", r.get("note") or "") if x)
            body.append((res["name"], r["case"], r["impl"], _fmt_ms(r["ms"]), _fmt_ms(r.get("median_ms")),
                         _fmt_mb(r.get("peak_rss_mb")), _fmt_x(r.get("x_descend")), _fmt_x(r.get("x_floor")), note))
        if not res["rows"] and res.get("error"):
            body.append((res["name"], "—", "—", "—", "—", "—", "—", "—", "FAILED: " + res["error"][:100]))
    widths = [max(len(str(x[i])) for x in [head] + body) for i in range(len(head) - 1)]
    lines = []

    def fmt(row):
        cells = [str(c).ljust(w) if i < 3 else str(c).rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        return "  ".join(cells) + "  " + row[-1]

    lines.append(fmt(head))
    lines.append("-" * (sum(widths) + 2 * len(widths) + 4))
    prev = None
    for row in body:
        if prev is not None and row[0] != prev:
            lines.append("")
        prev = row[0]
        lines.append(fmt(row))
    lines.append("")
    lines.append("goals (ratios: time / descend's time and time / the memory-traffic or NumPy floor; >1 = slower)")
    for res in results:
        for g in res["goals"]:
            lines.append(f"  [{_met(g['met']):>3s}] {res['name']}: {g['case']}: {g['goal']}"
                         + (f" ({g['detail']})" if g["detail"] else ""))
    notes = [(res["name"], n) for res in results for n in res["notes"]]
    if notes:
        lines.append("")
        lines.append("notes")
        for name, n in notes:
            lines.append(f"  {name}: {n}")
    return "\n".join(lines)


def _md_escape(s):
    return str(s).replace("|", "\\|")


def markdown(results: list[dict], meta: dict) -> str:
    m = meta["machine"]
    out = ["# Benchmarks", "",
           "Generated by `python benchmarks/run.py` from `benchmarks/results.json`; do not edit by hand.",
           "Every figure is measured in the same run as the figures it is compared with. `ms` is the best of",
           "N timed calls after a warm-up, `median ms` their median; `peak RSS MiB` is the peak resident memory of",
           "the process that measured the row, where that process measured one case only; `x descend` is",
           "time / descend's time in the same case (above 1: slower than descend) and `x floor` is time / the",
           "floor's time (the memory-traffic kernel, or the NumPy floor). Peers get the same thread budget",
           "(2 threads: `torch.set_num_threads(2)`, TF intra-op 2, numba's default), and each implementation",
           "runs in a process of its own that imports only its framework (no other framework's thread pools",
           "compete for the cores).", "",
           "## Machine", "",
           f"- CPU: {m['cpu']} ({m['cores_usable'] or m['cores']} usable cores of {m['cores']}; {m['cpu_flags']})",
           f"- memory: {m['memory_gib']} GiB",
           f"- platform: {m['platform']}",
           "- versions: " + ", ".join(f"{k} {v}" for k, v in m["versions"].items() if v),
           "- not installed: " + (", ".join(k for k, v in m["versions"].items() if not v) or "none"),
           f"- run: {meta['started']} ({'quick' if meta['quick'] else 'full'} sizes, {meta['seconds']:.0f} s); "
           f"load average {meta['loadavg_start'][0]:.2f} at start, {meta['loadavg_end'][0]:.2f} at end"
           + (" (other processes were using the CPU: figures are noisier than on an idle machine)"
              if meta["loadavg_start"][0] > 0.5 else ""),
           ""]
    summary = []
    for res in results:
        for g in res["goals"]:
            summary.append(f"| {res['name']} | {_md_escape(g['case'])} | {_md_escape(g['goal'])} | "
                           f"{_md_escape(g['detail'])} | **{_met(g['met'])}** |")
    if summary:
        out += ["## Goals", "", "| benchmark | case | goal | measured | met |", "| --- | --- | --- | --- | --- |"]
        out += summary + [""]
    for res in results:
        out += [f"## {res['title']} (`--only {res['name']}`)", ""]
        if res.get("description"):
            out += [res["description"], ""]
        if res.get("run_at"):
            out += [f"Measured {res['run_at']}" + (" (quick sizes)" if res.get("quick") else "") + ".", ""]
        if res["rows"]:
            out += ["| case | implementation | ms | median ms | peak RSS MiB | x descend | x floor | note |",
                    "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
            for r in res["rows"]:
                impl = f"**{r['impl']}**" if r["role"] == "descend" else r["impl"]
                note = "; ".join(x for x in (r.get("per") or "", r.get("note") or "") if x)
                out.append(f"| {_md_escape(r['case'])} | {_md_escape(impl)} | {_fmt_ms(r['ms'])} | "
                           f"{_fmt_ms(r.get('median_ms'))} | {_fmt_mb(r.get('peak_rss_mb'))} | "
                           f"{_fmt_x(r.get('x_descend'))} | {_fmt_x(r.get('x_floor'))} | {_md_escape(note)} |")
            out.append("")
        if res["goals"]:
            out += ["| case | goal | measured | met |", "| --- | --- | --- | --- |"]
            for g in res["goals"]:
                out.append(f"| {_md_escape(g['case'])} | {_md_escape(g['goal'])} | {_md_escape(g['detail'])} | "
                           f"{_met(g['met'])} |")
            out.append("")
        for n in res["notes"]:
            out.append(f"- {n}")
        if res["notes"]:
            out.append("")
    out += ["## Re-running", "",
            "```bash",
            "pip install -e \".[bench]\"              # numba and the peers; each peer is optional",
            "python benchmarks/run.py               # everything; writes benchmarks/results.json and BENCHMARKS.md",
            "python benchmarks/run.py --quick       # small sizes, a smoke run (writes benchmarks/results-quick.json)",
            "python benchmarks/run.py --only dense  # one benchmark (dense, many_small, sparse, tape, e2e, cold_start)",
            "```", ""]
    return "\n".join(out)


def geomean(xs):
    xs = [x for x in xs if x]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None
