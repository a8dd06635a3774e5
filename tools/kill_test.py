"""Kill test: SIGKILL `descend train` at random moments, resume each time, compare with an uninterrupted run.

    python tools/kill_test.py [--kills 20] [--seed 0] [--workdir DIR]

1. Runs `descend train` to completion (checkpoint every step) -> the reference final weights.
2. Starts the same command with --resume in another folder and SIGKILLs it after a random delay,
   again and again (--kills times). After every kill the latest checkpoint must load and verify
   (checksums), and leftover temporary directories tell how often a kill landed in a checkpoint write.
3. Runs the command once more to completion and checks that the final weights (and the per-step
   metrics CSV) equal the reference bit for bit.

Exit code 0 when everything holds; prints one line per kill and a summary.
"""

from __future__ import annotations

import argparse
import csv
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np

TRAIN = ["train", "--epochs", "8", "--hidden", "64", "--batch-size", "32", "--checkpoint-every", "1", "--seed", "3"]


def run(out, *extra, timeout=600):
    cmd = [sys.executable, "-m", "descend", *TRAIN, "--out", out, *extra]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def resume_flag(out):
    """--resume continues a started run (one with config.json); it refuses a folder that holds none."""
    return ["--resume"] if os.path.exists(os.path.join(out, "config.json")) else []


def final_weights(out):
    import descend.train as train

    reader = train.load_checkpoint(os.path.join(out, "final"))
    return {k: reader.get_tensor(k) for k in reader.keys()}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--min-delay", type=float, default=1.2, help="seconds after start before a kill (imports)")
    p.add_argument("--max-delay", type=float, default=4.0)
    p.add_argument("--workdir", default=None)
    a = p.parse_args(argv)
    import descend.train as train

    rng = random.Random(a.seed)
    work = a.workdir or tempfile.mkdtemp(prefix="descend-kill-")
    ref, victim = os.path.join(work, "reference"), os.path.join(work, "killed")
    t0 = time.perf_counter()
    r = run(ref)
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        return 1
    ref_seconds = time.perf_counter() - t0
    print(f"reference run: {ref_seconds:.1f} s")
    during_write = finished_early = k = 0
    while k < a.kills:
        proc = subprocess.Popen([sys.executable, "-m", "descend", *TRAIN, "--out", victim, *resume_flag(victim)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        delay = rng.uniform(a.min_delay, a.max_delay)
        try:
            proc.wait(timeout=delay)
            finished_early += 1  # it finished before the kill: start over so later kills still hit training
            print(f"(the run finished before {delay:.2f} s; not a kill: restarting the victim folder)")
            import shutil

            shutil.rmtree(victim)
            continue
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        ckdir = os.path.join(victim, "checkpoints")
        leftovers = [n for n in os.listdir(ckdir) if n.startswith(".tmp")] if os.path.isdir(ckdir) else []
        during_write += bool(leftovers)
        latest = train.latest_checkpoint(ckdir) if os.path.isdir(ckdir) else None
        step = "-"
        if latest is not None:
            reader = train.load_checkpoint(latest)  # verifies every checksum; raises if anything is broken
            step = int(reader.get_tensor("optimizer/iterations"))
        k += 1
        print(f"kill {k:2d}: after {delay:.2f} s; latest checkpoint {os.path.basename(latest or '-')} "
              f"(step {step}) loads{'; killed during a checkpoint write' if leftovers else ''}")
    r = run(victim, *resume_flag(victim))
    if r.returncode != 0:
        print(r.stdout, r.stderr)
        return 1
    a_w, b_w = final_weights(ref), final_weights(victim)
    same = sorted(a_w) == sorted(b_w) and all(np.array_equal(a_w[k], b_w[k]) for k in a_w)
    rows_a = list(csv.reader(open(os.path.join(ref, "metrics.csv"))))
    rows_b = list(csv.reader(open(os.path.join(victim, "metrics.csv"))))
    print(f"{a.kills} kills ({during_write} during a checkpoint write, {finished_early} runs finished first); "
          f"final weights identical to the uninterrupted run: {same}; metrics.csv identical: {rows_a == rows_b}")
    return 0 if same and rows_a == rows_b else 1


if __name__ == "__main__":
    sys.exit(main())
