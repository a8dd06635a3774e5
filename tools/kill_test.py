"""Kill test: SIGKILL training runs at random moments, resume each time, compare with uninterrupted runs.

    python tools/kill_test.py [--kills 40] [--seed 0] [--workdir DIR] [--scenarios steps,accum,epoch,dropout]

Scenarios (each: a reference run to completion, then a victim folder resumed and killed again and again):

* ``steps``: ``descend train`` with a checkpoint every step;
* ``accum``: the same with Lamb and 3 gradient-accumulation steps: kills land between a restore and the
  first real update, when the restored moments are still pending (not created);
* ``epoch``: ``descend train --resume`` without ``--checkpoint-every``: one backup per epoch, shuffled data
  (the next epoch's order must be the uninterrupted run's);
* ``dropout``: a ``fit`` with an unseeded Dropout layer and a per-step CSV (this file's ``--worker``).

Kills are spread over the scenarios in turn. Delays are measured from each scenario's reference run
(when its first checkpoint appears): about a third kill runs while they start, restore and resume,
the others while they train. After every kill the latest checkpoint must load and verify (checksums). At the end each
victim runs to completion, and its final weights and ``metrics.csv`` must equal the reference's bit
for bit. Exit code 0 when everything holds; prints one line per kill and a summary.
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

HERE = os.path.abspath(__file__)
_CLI = ["-m", "descend", "train", "--hidden", "64", "--batch-size", "32", "--seed", "3"]
SCENARIOS = {
    "steps": _CLI + ["--epochs", "4", "--max-steps", "40", "--checkpoint-every", "1"],
    "accum": _CLI + ["--epochs", "4", "--max-steps", "40", "--checkpoint-every", "1", "--accum-steps", "3",
                     "--optimizer", "lamb"],
    "epoch": _CLI + ["--epochs", "30", "--max-steps", "6"],
    "dropout": [HERE, "--worker", "dropout"],
}


def command(scenario, out, resume=False):
    """The scenario's command; ``--resume`` only for a started run (``descend train`` refuses a folder
    without its config.json), so the first run of a folder starts it, as a user would."""
    cmd = [sys.executable, *SCENARIOS[scenario], "--out", out]
    if resume and scenario != "dropout" and os.path.exists(os.path.join(out, "config.json")):
        cmd.append("--resume")
    return cmd


def optimizer_step(reader) -> int:
    """The optimizer's step in a checkpoint, by TensorFlow's key (Keras 3's layout) or descend's own (an
    optimizer without that layout, e.g. gradient accumulation)."""
    keys = reader.keys()
    for key in ("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE", "optimizer/.ATTRIBUTES/iterations"):
        if key in keys:
            return int(reader.get_tensor(key))
    raise KeyError(f"no optimizer step among the checkpoint's keys {keys}")


def final_weights(out):
    import descend.train as train

    reader = train.load_checkpoint(os.path.join(out, "final"))
    return {k: reader.get_tensor(k) for k in reader.keys()}


# ---------------------------------------------------------------------------------------------------------------
# the dropout worker: fit with BackupAndRestore, a per-step CSV saved in every backup
# ---------------------------------------------------------------------------------------------------------------
def dropout_worker(out: str) -> int:
    import descend as ds

    ds.clear_session()
    ds.keras.utils.set_random_seed(5)  # the unseeded Dropout's seed comes from Python's generator, as Keras' (this
    # seeds it); after a restore, the Dropout's saved state counts
    rng = np.random.default_rng(0)
    x = rng.standard_normal((160, 12)).astype(np.float32)
    y = (x[:, :3].sum(axis=1) > 0).astype(np.int32)
    model = ds.Sequential([ds.layers.Dense(32, activation="relu"), ds.layers.Dropout(0.4), ds.layers.Dense(2)])
    schedule = ds.optimizers.schedules.CosineDecay(0.01, decay_steps=200)
    model.compile(optimizer=ds.optimizers.AdamW(schedule, weight_decay=0.01),
                  loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True), metrics=["accuracy"])

    class Rows(ds.callbacks.Callback):
        def __init__(self):
            super().__init__()
            self.rows = []

        def on_train_batch_end(self, batch, logs=None):
            self.rows.append([len(self.rows) + 1, repr(logs["loss"]), repr(logs["accuracy"]),
                              repr(self.model.fit_state.learning_rate)])  # (Keras: no rate in the logs)

        def state_dict(self):
            return {"rows": self.rows}

        def restore_plan(self, state):
            rows = state.get("rows")
            if not isinstance(rows, list):
                raise ValueError("rows must be a list")

            def commit():
                self.rows = [list(r) for r in rows]
            return commit

    rows = Rows()
    backup = ds.callbacks.BackupAndRestore(os.path.join(out, "checkpoints"), save_freq=1, extra={"rows": rows})
    model.fit(x, y, batch_size=16, epochs=20, seed=1, verbose=0, callbacks=[rows, backup])
    with open(os.path.join(out, "metrics.csv"), "w", newline="") as f:
        csv.writer(f).writerows([["step", "loss", "accuracy", "learning_rate"]] + rows.rows)
    ds.train.Checkpoint(model=model).write(os.path.join(out, "final"))
    return 0


# ---------------------------------------------------------------------------------------------------------------
def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kills", type=int, default=40)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--min-delay", type=float, default=0.5, help="no kill earlier than this (seconds)")
    p.add_argument("--span", type=float, default=0.15,
                   help="training kills land within this fraction of a reference run's training time")
    p.add_argument("--workdir", default=None)
    p.add_argument("--scenarios", default=",".join(SCENARIOS))
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", default=None, help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    if a.worker == "dropout":
        return dropout_worker(a.out)
    import descend.train as train

    scenarios = [s for s in a.scenarios.split(",") if s]
    unknown = [s for s in scenarios if s not in SCENARIOS]
    if unknown:
        p.error(f"unknown scenarios {unknown}; known: {sorted(SCENARIOS)}")
    rng = random.Random(a.seed)
    work = a.workdir or tempfile.mkdtemp(prefix="descend-kill-")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(HERE))] + [x for x in [os.environ.get("PYTHONPATH")] if x]))
    timing = {}
    for s in scenarios:
        ref = os.path.join(work, s, "reference")
        t0 = time.perf_counter()
        proc = subprocess.Popen(command(s, ref), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, env=env)
        first = None
        while proc.poll() is None:  # when does the first checkpoint appear: how long starting takes
            if first is None and os.path.isfile(os.path.join(ref, "checkpoints", "checkpoint.json")):
                first = time.perf_counter() - t0
            time.sleep(0.02)
        out, err = proc.communicate()
        if proc.returncode != 0:
            print(out[-3000:], err[-3000:])
            return 1
        total = time.perf_counter() - t0
        last = train.latest_checkpoint(os.path.join(ref, "checkpoints"))
        final_step = optimizer_step(train.load_checkpoint(last))
        timing[s] = (first or total / 2, total, final_step)
        print(f"{s}: reference run {total:.1f} s (first checkpoint after {timing[s][0]:.1f} s, "
              f"{final_step} optimizer steps)")
    during_write = finished_early = before_first_save = k = 0
    last_step = {s: None for s in scenarios}
    while k < a.kills:
        s = scenarios[k % len(scenarios)]
        victim = os.path.join(work, s, "killed")
        proc = subprocess.Popen(command(s, victim, resume=True), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env)
        first, total, final_step = timing[s]
        if rng.random() < 0.3:  # while starting, restoring and resuming, before the first new checkpoint
            delay = rng.uniform(max(a.min_delay, first - 1.5), first + 0.2)
        else:  # while training: every resume re-starts, so each of these makes some progress
            delay = rng.uniform(first, max(first + 0.5, first + (total - first) * a.span))
        try:
            proc.wait(timeout=delay)
            finished_early += 1  # finished before the kill: start over so that later kills still hit training
            print(f"({s}: the run finished before {delay:.2f} s; not a kill: restarting its victim folder)")
            import shutil

            shutil.rmtree(victim)
            last_step[s] = None
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
            step = optimizer_step(reader)
        early = step == last_step[s]
        before_first_save += early
        last_step[s] = step
        k += 1
        notes = ("; killed during a checkpoint write" if leftovers else "") + (
            "; no new checkpoint since the last kill (killed while starting or resuming)" if early else "")
        remaining = len(range(k, a.kills, len(scenarios)))  # kills still to come for this scenario
        if step == final_step and remaining >= 2:  # it trained to the end: start it over so kills hit training
            import shutil

            shutil.rmtree(victim)
            last_step[s] = None
            notes += "; training had finished: its folder starts over"
        print(f"kill {k:2d} [{s}]: after {delay:.2f} s; latest checkpoint {os.path.basename(latest or '-')} "
              f"(optimizer step {step}) loads{notes}")
    ok = True
    for s in scenarios:
        victim = os.path.join(work, s, "killed")
        r = subprocess.run(command(s, victim, resume=True), capture_output=True, text=True, timeout=900, env=env)
        if r.returncode != 0 and "already finished" not in r.stderr:  # a run killed after it finished is complete
            print(r.stdout[-3000:], r.stderr[-3000:])
            return 1
        ref = os.path.join(work, s, "reference")
        a_w, b_w = final_weights(ref), final_weights(victim)
        same = sorted(a_w) == sorted(b_w) and all(np.array_equal(a_w[n], b_w[n]) for n in a_w)
        with open(os.path.join(ref, "metrics.csv")) as fa, open(os.path.join(victim, "metrics.csv")) as fb:
            rows_a, rows_b = list(csv.reader(fa)), list(csv.reader(fb))
        # the clean resume cleared what the killed saves left, and the finished run holds no lock
        left = sorted(os.path.relpath(os.path.join(d, n), victim) for d, dirs, files in os.walk(victim)
                      for n in dirs + files if n.startswith(".tmp-") or n == ".lock") if r.returncode == 0 else []
        print(f"{s}: final weights identical to the uninterrupted run: {same}; metrics.csv identical: "
              f"{rows_a == rows_b} ({len(rows_a) - 1} rows); leftovers after the clean resume: {left}")
        ok = ok and same and rows_a == rows_b and not left
    print(f"{a.kills} kills over {len(scenarios)} scenarios ({during_write} during a checkpoint write, "
          f"{before_first_save} before the resumed run's first checkpoint, {finished_early} runs finished first); "
          f"every resume bit-exact: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
