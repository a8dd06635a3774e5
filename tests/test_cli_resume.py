"""Nothing is lost: Ctrl-C and SIGTERM at random moments, corrupted checkpoints and a corrupted index.

Each interrupted run is continued with ``--resume`` and must end with the
final weights of an uninterrupted run, bit for bit (and the same per-batch
metrics). The runs are small (digits, a few hundred batches) so that the
ten signal runs take well under a minute.
"""

import csv
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from descend.cli import main

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

ROOT = os.path.join(os.path.dirname(__file__), "..")
TRAIN = ["train", "--epochs", "3", "--hidden", "32", "--batch-size", "8", "--seed", "7"]


def _weights(out):
    import descend.train as train

    reader = train.load_checkpoint(os.path.join(out, "final"))
    # the tensors (the object graph and descend's JSON state are bytes, the graph naming variables by their names)
    return {k: v for k in reader.keys() if isinstance(v := reader.get_tensor(k), np.ndarray)}


def _same_run(a, b):
    wa, wb = _weights(a), _weights(b)
    assert sorted(wa) == sorted(wb)
    for k in wa:
        assert wa[k].dtype == wb[k].dtype and np.array_equal(wa[k], wb[k]), k
    for name in ("metrics.csv", "epochs.csv"):
        assert list(csv.reader(open(os.path.join(a, name)))) == list(csv.reader(open(os.path.join(b, name)))), name


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("ref") / "run")
    assert main([*TRAIN, "--out", out]) == 0
    return out


def _start(out, log, *extra):
    # the bar redraws after every batch, so the test sees progress (and signals) at batch resolution
    env = {**os.environ, "PYTHONPATH": ROOT, "TQDM_MININTERVAL": "0", "TQDM_MINITERS": "1"}
    err = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-m", "descend", *TRAIN, "--out", out, *extra], stdout=subprocess.PIPE,
                            stderr=err, text=True, env=env)
    deadline = time.monotonic() + 120
    while "model: " not in open(log).read():  # printed right before training starts
        assert proc.poll() is None, open(log).read()
        assert time.monotonic() < deadline
        time.sleep(0.02)
    return proc


_BAR = re.compile(r"epoch (\d+)/(\d+):\s+\d+%\|[^|]*\|\s*(\d+)/(\d+)")


def _batches_done(log) -> int:
    """Batches done so far, from the newest progress-bar update in the log (tqdm writes them to stderr)."""
    found = _BAR.findall(open(log, encoding="utf-8", errors="replace").read())
    if not found:
        return 0
    epoch, _, n, per = map(int, found[-1])
    return (epoch - 1) * per + n


def test_sigint_and_sigterm_at_random_moments_then_resume_equals_the_uninterrupted_run(reference, tmp_path, capsys):
    rng = random.Random(14)
    total = len(list(csv.DictReader(open(os.path.join(reference, "metrics.csv")))))
    done, finished_first, where = 0, 0, []
    while done < 10:
        sig = (signal.SIGINT, signal.SIGTERM)[done % 2]
        out, log = str(tmp_path / f"run{done}"), str(tmp_path / f"run{done}.log")
        proc = _start(out, log)
        # a random point of training, by progress rather than by wall time (the machine's load varies):
        # the signal goes out once the progress bar shows that batch (it lands a little after, at random)
        target = rng.randrange(0, int(total * 0.9))
        while _batches_done(log) < target and proc.poll() is None:
            time.sleep(0.005)
        proc.send_signal(sig)
        stdout, _ = proc.communicate(timeout=300)
        err = open(log).read()
        if proc.returncode == 0:  # it finished before the signal: not an interruption; try again
            finished_first += 1
            assert finished_first < 10, "the runs finish before the signal arrives"
            shutil.rmtree(out)
            continue
        assert proc.returncode == 128 + sig, err
        assert "Traceback" not in err and stdout == ""  # stdout carries results only
        assert f"continue with: descend train --out {out} --resume" in err
        summary = json.load(open(os.path.join(out, "summary.json")))
        assert summary["status"] == "interrupted" and summary["batches_done"] > 0
        assert summary["resume_command"] == f"descend train --out {out} --resume"
        rows = list(csv.DictReader(open(os.path.join(out, "metrics.csv"))))
        assert len(rows) == summary["batches_done"]  # the metrics so far are in the folder
        assert os.path.getsize(os.path.join(out, "loss.png")) > 0
        where.append(summary["batches_done"])
        capsys.readouterr()
        assert main(["train", "--out", out, "--resume"]) == 0, capsys.readouterr().err
        assert "resuming from ckpt-" in capsys.readouterr().err
        _same_run(reference, out)
        done += 1
    assert len(set(where)) >= 4, where  # the interruptions landed at different batches


@pytest.fixture(scope="module")
def interrupted(tmp_path_factory):
    """A run (checkpointing every 10 batches) stopped by SIGTERM once two checkpoints exist: the signal
    adds a third. (--checkpoint-every changes when checkpoints are written, not the weights.)"""
    base = tmp_path_factory.mktemp("interrupted")
    out, log = str(base / "run"), str(base / "run.log")
    proc = _start(out, log, "--checkpoint-every", "10")
    ck = os.path.join(out, "checkpoints")
    while not (os.path.isdir(ck) and sum(n.startswith("ckpt-") for n in os.listdir(ck)) >= 2):
        assert proc.poll() is None, open(log).read()
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, open(log).read()
    return out


def _newest(ck):
    return max((n for n in os.listdir(ck) if n.startswith("ckpt-")), key=lambda n: int(n.split("-")[1]))


def test_a_corrupted_newest_checkpoint_falls_back_to_the_previous_one(reference, interrupted, tmp_path, capsys):
    out = str(tmp_path / "run")
    shutil.copytree(interrupted, out)
    ck = os.path.join(out, "checkpoints")
    newest = _newest(ck)
    path = os.path.join(ck, newest, "tensors.safetensors")
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0x01  # one flipped bit
    open(path, "wb").write(bytes(data))
    capsys.readouterr()
    assert main(["train", "--out", out, "--resume"]) == 0
    err = capsys.readouterr().err
    previous = f"ckpt-{int(newest.split('-')[1]) - 1}"
    assert f"checkpoint {newest}:" in err  # which one, and why
    assert f"resuming from {previous} (the newest valid one" in err
    assert f"moved {newest} aside to corrupted-{newest}" in err
    assert os.path.isdir(os.path.join(ck, f"corrupted-{newest}"))  # kept for inspection, not deleted
    _same_run(reference, out)


@pytest.mark.parametrize("damage", ["garbage", "deleted", "behind"])
def test_an_unreadable_or_deleted_index_is_rebuilt_from_the_checkpoint_folders(reference, interrupted, tmp_path,
                                                                                 capsys, damage):
    out = str(tmp_path / "run")
    shutil.copytree(interrupted, out)
    ck = os.path.join(out, "checkpoints")
    index = os.path.join(ck, "checkpoint.json")
    if damage == "garbage":
        open(index, "w").write('{"format": "descend.checkpoint_index", "checkpoints": [tru')
    elif damage == "deleted":
        os.remove(index)  # what the old error message advised
    else:  # a crash between the newest checkpoint's rename and the index's update
        content = json.load(open(index))
        content["checkpoints"] = content["checkpoints"][:-1]
        content["latest"] = content["checkpoints"][-1]["name"]
        json.dump(content, open(index, "w"))
    newest = _newest(ck)
    capsys.readouterr()
    assert main(["train", "--out", out, "--resume"]) == 0
    err = capsys.readouterr().err
    assert "rebuilt the index from" in err and f"resuming from {newest}" in err
    if damage == "garbage":
        assert os.path.exists(index + ".corrupted")
    _same_run(reference, out)


def test_resume_may_change_the_learning_rate_only_when_asked(interrupted, tmp_path, capsys):
    out = str(tmp_path / "run")
    shutil.copytree(interrupted, out)
    assert main(["train", "--out", out, "--resume", "--lr", "0.001"]) == 2
    assert "--allow-change lr" in capsys.readouterr().err
    assert main(["train", "--out", out, "--resume", "--lr", "0.001", "--allow-change", "lr"]) == 0
    config = json.load(open(os.path.join(out, "config.json")))
    assert config["settings"]["lr"] == 0.001
    rows = list(csv.DictReader(open(os.path.join(out, "metrics.csv"))))
    assert max(float(r["learning_rate"]) for r in rows[-50:]) <= 0.001
