"""The ``descend`` command under signals, concurrent runs, kills and ``--overwrite`` (issue 25, items 7, 10, 12).

Real processes and real signals: SIGTERM while the data is read (a wide CSV whose reading takes
seconds), while the model is built, while it trains and while the run folder is saved; two
``descend train --out SAME`` at once, many rounds; an owner killed with SIGKILL. Timeouts here are
hang detectors, many times what each step needs, not timing claims.
"""

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from descend.cli import main

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="POSIX signals, /proc, flock")

ROOT = os.path.join(os.path.dirname(__file__), "..")
ENV = {**os.environ, "PYTHONPATH": ROOT, "TQDM_MININTERVAL": "0", "TQDM_MINITERS": "1"}
HANG_CPU = 60  # CPU seconds of the command: far beyond what any step below needs, whatever the machine's load
HANG = 600  # wall seconds: only an outer limit, so that a command blocked without using CPU cannot hang the suite


def _start(argv, log):
    err = open(log, "w")
    proc = subprocess.Popen([sys.executable, "-m", "descend", *argv], stdout=subprocess.DEVNULL, stderr=err, text=True,
                            env=ENV, cwd=ROOT)
    err.close()
    return proc


def _text(log):
    with open(log, encoding="utf-8", errors="replace") as f:
        return f.read()


def _cpu_seconds(proc):
    """The CPU seconds (user + system) ``proc`` has used so far (0 once it has ended)."""
    try:
        with open(f"/proc/{proc.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _wait_for(proc, log, test, what):
    deadline = time.monotonic() + HANG
    while not test():
        assert proc.poll() is None, f"ended before {what}: {_text(log)[-2000:]}"
        assert _cpu_seconds(proc) < HANG_CPU, f"never reached {what} in {HANG_CPU} CPU s: {_text(log)[-2000:]}"
        assert time.monotonic() < deadline, f"never reached {what} in {HANG} s: {_text(log)[-2000:]}"
        time.sleep(0.005)


def _reading(proc, path):
    """Whether ``proc`` has ``path`` open (it is reading it)."""
    try:
        return any(os.readlink(f"/proc/{proc.pid}/fd/{fd}") == path for fd in os.listdir(f"/proc/{proc.pid}/fd"))
    except OSError:
        return False


def _stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        return proc.wait(timeout=HANG)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail("SIGTERM did not end the command")


def _summary(out):
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


# ---------------------------------------------------------------- SIGTERM at every moment
def test_sigterm_while_reading_a_slow_csv_ends_the_command_at_once(tmp_path):
    """The first SIGTERM during the data read ends the command (exit 143, nothing written); it used to
    be noted and acted on only after the read (runs lived 35-56 minutes until a second signal)."""
    path = str(tmp_path / "wide.csv")
    cols = 300_000
    row = ",".join(["0.1234"] * cols)
    with open(path, "w") as f:
        f.write(",".join(f"c{j}" for j in range(cols)) + ",label\n")
        for i in range(40):
            f.write(f"{row},{i % 2}\n")
    out = str(tmp_path / "run")
    log = str(tmp_path / "log")
    proc = _start(["train", "--data", path, "--out", out], log)
    _wait_for(proc, log, lambda: _reading(proc, path), "the data read")
    time.sleep(0.3)
    assert _reading(proc, path)  # still reading: the signal lands in the read
    assert _stop(proc) == 143
    text = _text(log)
    assert "descend train: stopped by SIGTERM before training started; nothing was written" in text, text
    assert "Traceback" not in text and not os.path.exists(out)


@pytest.mark.parametrize("moment", ["building", "training", "saving"])
def test_sigterm_while_building_training_or_saving_ends_with_the_usual_save(tmp_path, moment):
    """After the first write a signal stops training after its step, with a checkpoint and the run
    folder, and the run resumes to the end; at the very end the save completes."""
    out = str(tmp_path / "run")
    log = str(tmp_path / "log")
    argv = ["train", "--epochs", "4", "--hidden", "16", "--batch-size", "16", "--out", out]
    proc = _start(argv, log)
    if moment == "building":  # printed right before the model is built
        _wait_for(proc, log, lambda: "model: mlp" in _text(log), "the start of training")
    elif moment == "training":
        _wait_for(proc, log, lambda: "epoch 2/4:" in _text(log), "the second epoch")
    else:  # the last batch's progress: what follows is the last evaluation and the save
        _wait_for(proc, log, lambda: re.search(r"epoch 4/4: 100%", _text(log)), "the last batch")
    code = _stop(proc)
    text = _text(log)
    assert "Traceback" not in text, text
    summary = _summary(out)
    if code == 0:  # the signal came while the finished run was being saved: the save completed
        assert moment == "saving" and summary["status"] == "finished" and os.path.isdir(os.path.join(out, "final"))
        return
    assert code == 143, text
    assert summary["status"] == "interrupted" and "continue with: descend train --out" in text, text
    with open(os.path.join(out, "metrics.csv")) as f:
        assert len(list(csv.DictReader(f))) == summary["batches_done"] >= 1
    assert main(["train", "--out", out, "--resume"]) == 0
    assert _summary(out)["status"] == "finished"


def test_sigterm_before_the_first_write_leaves_an_existing_run_untouched(tmp_path):
    """--overwrite on a finished run, stopped while the new data is read: the old run stays whole."""
    out = str(tmp_path / "run")
    assert main(["train", "--epochs", "1", "--max-steps", "2", "--hidden", "4", "--out", out]) == 0
    before = _tree(out)
    path = str(tmp_path / "wide.csv")
    cols = 300_000
    with open(path, "w") as f:
        f.write(",".join(f"c{j}" for j in range(cols)) + ",label\n")
        row = ",".join(["0.5"] * cols)
        for i in range(40):
            f.write(f"{row},{i % 2}\n")
    log = str(tmp_path / "log")
    proc = _start(["train", "--data", path, "--out", out, "--overwrite"], log)
    _wait_for(proc, log, lambda: _reading(proc, path), "the data read")
    assert _stop(proc) == 143
    assert _tree(out) == before  # the lock file too: the finished run left none, the stopped one made none


# ---------------------------------------------------------------- one process per run folder
def _run_facts(out):
    """(hidden units, batches per epoch) as config.json says, and whether the weights, metrics.csv and
    summary.json are of that run."""
    import descend.train as train

    with open(os.path.join(out, "config.json")) as f:
        s = json.load(f)["settings"]
    reader = train.load_checkpoint(os.path.join(out, "final"))
    shapes = {np.shape(reader.get_tensor(k)) for k in reader.keys()}  # (the object graph is bytes: shape ())
    h = s["hidden"]
    with open(os.path.join(out, "metrics.csv")) as f:
        rows = len(list(csv.DictReader(f)))
    weights_agree = (64, h) in shapes and (h, h) in shapes and (h, 10) in shapes
    metrics_agree = rows == s["epochs"] * s["max_steps"] == _summary(out)["batches_done"]
    return h, s["max_steps"], weights_agree, metrics_agree


def test_two_trains_into_one_folder_never_mix_runs(tmp_path):
    """Two ``descend train --out SAME`` started together, 12 rounds: one finishes, the other exits 2
    naming the folder and the first one's process id (or, if it came after, that the folder holds a
    finished run); the folder is always one run's (config, weights and metrics agree)."""
    outcomes = []
    for r in range(12):
        out = str(tmp_path / f"run{r}")
        settings = [["--hidden", "4", "--max-steps", "2"], ["--hidden", "6", "--max-steps", "3"]]
        logs = [str(tmp_path / f"log{r}-{i}") for i in range(2)]
        procs = [_start(["train", "--epochs", "2", *settings[i], "--out", out], logs[i]) for i in range(2)]
        codes = [p.wait(timeout=300) for p in procs]
        assert sorted(codes) == [0, 2], [(c, _text(log)[-1500:]) for c, log in zip(codes, logs)]
        winner, loser = (0, 1) if codes[0] == 0 else (1, 0)
        err = [line for line in _text(logs[loser]).splitlines() if line.strip()]
        assert len(err) == 1 and out in err[0], err
        if "is in use by another descend process" in err[0]:
            assert f"(pid {procs[winner].pid})" in err[0], err
            outcomes.append("in use")
        else:
            assert "holds a finished run" in err[0], err
            outcomes.append("finished before")
        assert _run_facts(out) in [(4, 2, True, True), (6, 3, True, True)], _run_facts(out)
    assert outcomes.count("in use") >= 1, outcomes  # the runs did overlap


def test_a_killed_owner_leaves_no_lock_and_its_run_resumes(tmp_path, capsys):
    out = str(tmp_path / "run")
    log = str(tmp_path / "log")
    proc = _start(["train", "--epochs", "30", "--hidden", "16", "--batch-size", "16", "--out", out], log)
    _wait_for(proc, log, lambda: "epoch 2/30:" in _text(log), "the second epoch")
    capsys.readouterr()
    assert main(["train", "--out", out, "--resume"]) == 2
    err = capsys.readouterr().err
    assert f"--out {out} is in use by another descend process (pid {proc.pid}); wait for it to end" in err, err
    proc.kill()  # SIGKILL: no handler runs; the kernel drops the lock with the process
    proc.wait()
    assert main(["train", "--out", out, "--resume", "--allow-change", "epochs", "--epochs", "3"]) == 0
    assert _summary(out)["status"] == "finished"


def _stats(folder):
    """Every entry's (mode, size, modification time, content) under ``folder``, the folder's own included."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in ["."] + dirs + files:
            p = os.path.normpath(os.path.join(root, name))
            st = os.lstat(p)
            content = open(p, "rb").read() if os.path.isfile(p) else None
            out[os.path.relpath(p, folder)] = (st.st_mode, st.st_size, st.st_mtime_ns, content)
    return out


@pytest.mark.parametrize("stale_lock", [False, True], ids=["no lock file", "a killed run's lock file"])
def test_a_refused_train_changes_nothing_and_a_finished_run_leaves_no_lock(tmp_path, capsys, stale_lock):
    """Issue 38, item 12: a finished run removes its lock files (the folder's and checkpoints/'); a train
    refused because the folder holds a finished run changes nothing there, a lock file left by a killed
    run included (its content, its time, the folder's time)."""
    out = tmp_path / "run"
    args = ["train", "--epochs", "1", "--max-steps", "2", "--hidden", "4", "--out", str(out)]
    assert main(args) == 0
    assert [os.path.join(r, n) for r, _, names in os.walk(out) for n in names if n == ".lock"] == []
    if stale_lock:
        (out / ".lock").write_text("99999")
        (out / "checkpoints" / ".lock").write_text("99999")
    for p in [out / ".lock", out / "checkpoints" / ".lock", out / "checkpoints", out]:
        if os.path.lexists(p):
            os.utime(p, ns=(10**18, 10**18))
    before = _stats(out)
    capsys.readouterr()
    for _ in range(2):
        assert main(args) == 2
        assert "holds a finished run" in capsys.readouterr().err
        assert _stats(out) == before


# ---------------------------------------------------------------- --overwrite removes only descend's files
def _tree(folder):
    found = {}
    for root, _dirs, files in os.walk(folder):
        for name in files:
            p = os.path.join(root, name)
            with open(p, "rb") as f:
                found[os.path.relpath(p, folder)] = f.read()
    return found


def test_overwrite_removes_only_what_descend_wrote(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "--epochs", "2", "--max-steps", "2", "--hidden", "4", "--out", str(out)]
    assert main(args) == 0
    ckpts = sorted(n for n in os.listdir(out / "checkpoints") if n.startswith("ckpt-"))
    (out / "final" / "weights.bin").write_bytes(b"mine")
    before = _tree(out)
    assert main([*args, "--overwrite"]) == 2  # final/ must be free for the new run's weights: refused, untouched
    err = capsys.readouterr().err
    assert f"--overwrite removes only what descend wrote, and {out}/final holds weights.bin, which descend did not " \
           "write (the new run writes its final weights there): move that elsewhere, or choose another --out" in err
    assert _tree(out) == before
    (out / "final" / "weights.bin").unlink()
    (out / "checkpoints" / "mine.txt").write_text("mine")
    (out / "checkpoints" / "corrupted-ckpt-1").mkdir()
    (out / "checkpoints" / "corrupted-ckpt-1" / "notes.txt").write_text("mine")
    (out / "notes.txt").write_text("mine")
    (out / "plots").mkdir()
    (out / "plots" / "loss.png").write_text("mine")
    assert main([*args, "--overwrite", "--seed", "5"]) == 0
    after = _tree(out)
    for kept in ("checkpoints/mine.txt", "checkpoints/corrupted-ckpt-1/notes.txt", "notes.txt", "plots/loss.png"):
        assert after[kept] == b"mine", kept
    with open(out / "config.json") as f:
        assert json.load(f)["settings"]["seed"] == 5
    assert sorted(n for n in os.listdir(out / "checkpoints") if n.startswith("ckpt-")) == ckpts
    (out / "checkpoints" / ckpts[0] / "mine.txt").write_text("mine")
    assert main([*args, "--overwrite"]) == 2
    assert "which descend did not write (the new run writes a checkpoint of that name)" in capsys.readouterr().err
    assert _tree(out)[f"checkpoints/{ckpts[0]}/mine.txt"] == b"mine"


def test_overwrite_refuses_a_link_where_descend_writes_a_file(tmp_path, capsys):
    out = tmp_path / "run"
    args = ["train", "--epochs", "1", "--max-steps", "2", "--hidden", "4", "--out", str(out)]
    assert main(args) == 0
    victim = tmp_path / "victim.csv"
    victim.write_text("precious")
    (out / "metrics.csv").unlink()
    (out / "metrics.csv").symlink_to(victim)
    capsys.readouterr()
    assert main([*args, "--overwrite"]) == 2
    assert f"{out}/metrics.csv is a symbolic link to {victim}, which is a regular file, which descend did not " \
           "write" in capsys.readouterr().err
    assert victim.read_text() == "precious" and os.path.islink(out / "metrics.csv")
    shutil.rmtree(out)


def test_a_folder_written_by_another_process_between_the_checks_and_the_first_write_is_refused(tmp_path, capsys):
    """The lock of a new folder is taken at the first write; the folder is checked again then."""
    from descend.cli.options import UsageError
    from descend.cli.rundir import inspect_out

    run = tmp_path / "run"
    assert main(["train", "--epochs", "2", "--max-steps", "2", "--hidden", "4", "--out", str(run)]) == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    folder = inspect_out(str(empty), resume=False, overwrite=False)
    shutil.copy(run / "config.json", empty / "config.json")  # another run starts there meanwhile
    with pytest.raises(UsageError, match="holds an unfinished run"):
        folder.claim()
    assert not folder.locked
    interrupted = tmp_path / "interrupted"
    shutil.copytree(run, interrupted)
    shutil.rmtree(interrupted / "final")
    assert not os.path.lexists(interrupted / ".lock")  # a finished run leaves no lock file to take early
    summary = _summary(interrupted)
    summary["status"] = "interrupted"
    (interrupted / "summary.json").write_text(json.dumps(summary))
    folder = inspect_out(str(interrupted), resume=True, overwrite=False)
    (interrupted / "summary.json").write_text(json.dumps(dict(summary, batches_done=3)))  # it moved on meanwhile
    with pytest.raises(UsageError, match="changed while this command was preparing"):
        folder.claim()
    capsys.readouterr()
