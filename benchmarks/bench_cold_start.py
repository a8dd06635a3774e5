"""(6) Cold start: wall time of fresh Python processes.

* ``python -m descend train --epochs 1 --max-steps 1``: from process start to
  the end of the first training step (``first_update_seconds_since_start`` in
  the run's ``summary.json``: the goal's figure), and the whole process
  (evaluation on the test set, three plots and exit included).
* ``python -c "import descend"``, against ``python -c "pass"`` (the floor:
  the interpreter alone) and the peers' imports (``import torch``,
  ``import jax, optax``, ``import tensorflow, keras``).

The first run of each command is reported separately ("first run") because
it may read files from disk; the table's figure is the best of the runs after.

    python benchmarks/bench_cold_start.py [--quick]
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from common import add_goal, add_row, new_result  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _env():
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.setdefault("KERAS_BACKEND", "tensorflow")
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _timing(values) -> dict:
    return {"best": min(values), "median": statistics.median(values), "n": len(values)}


def wall(cmd, runs, timeout=600, before_each=None, collect=None):
    """(timing of runs 2.. (or the only run), first run's seconds, returncode, stderr tail). With ``collect``,
    the timing also has ``collected``: the timing of what ``collect()`` returned after each of those runs."""
    times, collected = [], []
    rc, err = 0, ""
    for _ in range(runs):
        if before_each is not None:
            before_each()
        t0 = time.perf_counter()
        p = subprocess.run(cmd, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=timeout)
        times.append(time.perf_counter() - t0)
        if p.returncode != 0:
            rc, err = p.returncode, (p.stderr.strip().splitlines() or [""])[-1]
            break
        if collect is not None:
            collected.append(collect())
    timing = _timing(times[1:] or times)
    if collect is not None and not rc:
        timing["collected"] = _timing(collected[1:] or collected)
    return timing, times[0], rc, err


def _first_update(out) -> float:
    with open(os.path.join(out, "summary.json")) as f:
        return float(json.load(f)["first_update_seconds_since_start"])


def _bytecode() -> str:
    """How the runs so far loaded descend's own modules: from .pyc files, or compiled from source in
    every process (PYTHONDONTWRITEBYTECODE set and no __pycache__: about a quarter second more)."""
    import importlib.util

    cached = os.path.exists(importlib.util.cache_from_source(os.path.join(ROOT, "descend", "__init__.py")))
    return "descend's modules from .pyc" if cached else "descend's modules compiled from source in every run"


def has_cli() -> bool:
    p = subprocess.run([sys.executable, "-c", "import importlib.util as u, sys; "
                        "sys.exit(0 if u.find_spec('descend.cli') else 1)"],
                       cwd=ROOT, env=_env(), capture_output=True)
    return p.returncode == 0


def _importable(mods) -> bool:
    p = subprocess.run([sys.executable, "-c", "import importlib.util as u, sys; sys.exit(0 if all("
                        f"u.find_spec(m) for m in {mods!r}) else 1)"], cwd=ROOT, env=_env(), capture_output=True)
    return p.returncode == 0


def run(quick: bool = False, isolate: bool = True) -> dict:
    # every figure here is a fresh process already: `isolate` changes nothing
    runs = 2 if quick else 6
    res = new_result(
        "cold_start", "Cold start",
        "Wall time of a fresh process: `python -m descend train --epochs 1 --max-steps 1` (start to the end of "
        "the first training step, from its summary.json, and the whole process: evaluation, plots and exit) "
        "and `python -c \"import descend\"`, against the bare "
        f"interpreter (floor) and the peers' imports. Best of {runs - 1} runs after a first run (shown in the "
        "note).", {"runs": runs})
    py = sys.executable
    # descend train
    case = "descend train, first step"
    if has_cli():
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "run")
            cmd = [py, "-m", "descend", "train", "--epochs", "1", "--max-steps", "1", "--out", out]
            t, first, rc, err = wall(cmd, 1 if quick else runs, before_each=lambda: shutil.rmtree(out, True),
                                     collect=lambda: _first_update(out))
        label = "python -m descend train --epochs 1 --max-steps 1"
        if rc:
            add_row(res, case, label, None, role="descend", note=f"failed (exit {rc}): {err[:160]}")
        else:
            add_row(res, case, label + ": process start to the end of the first update", t["collected"],
                    role="descend", note="from the run's summary.json (first_update_seconds_since_start); "
                    + _bytecode())
            first_step = t["collected"]["best"]
            add_goal(res, case, "first training step under 1 s (warm kernel cache)", first_step < 1.0,
                     f"{first_step:.2f} s")
            add_row(res, case, label + ": the whole process (evaluation, plots, exit)", t, role="descend",
                    note=f"first run {first * 1e3:.0f} ms")
    else:
        add_row(res, case, "python -m descend train --epochs 1 --max-steps 1", None, role="descend",
                note="n/a (descend train not yet available)")
    # imports
    case = "import"
    cmds = [("python -c pass (floor)", "pass", (), "floor"),
            ("import descend", "import descend", ("descend",), "descend"),
            ("import torch", "import torch", ("torch",), "peer"),
            ("import jax, optax", "import jax, optax", ("jax", "optax"), "peer"),
            ("import tensorflow, keras", "import tensorflow, keras", ("tensorflow", "keras"), "peer")]
    for label, code, mods, role in cmds:
        if quick and "tensorflow" in mods:
            add_row(res, case, label, None, role=role, note="quick: skipped")
            continue
        if mods and not _importable(list(mods)):
            add_row(res, case, label, None, role=role, note="not installed: skipped")
            continue
        t, first, rc, err = wall([py, "-c", code], runs)
        if rc:
            add_row(res, case, label, None, role=role, note=f"failed (exit {rc}): {err[:160]}")
        else:
            add_row(res, case, label, t, role=role, note=f"first run {first * 1e3:.0f} ms")
            if code == "import descend":
                add_goal(res, case, "import descend under 0.25 s", t["best"] < 0.25, f"{t['best']:.3f} s")
    return common.finish(res)


if __name__ == "__main__":
    print(common.text_table([run("--quick" in sys.argv)]))
