"""The descend command: the default job, the run folder it writes, the embedding example, compare,
--help/--version, and stdout carrying results only."""

import csv
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import descend
from descend.cli import main
from descend.cli.options import OPTIMIZERS, SCHEDULES, warmup_default
from descend.cli.rundir import smooth

ROOT = os.path.join(os.path.dirname(__file__), "..")


def _run(args, capsys):
    code = main(args)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_train_on_bundled_digits_writes_a_truthful_run_folder(tmp_path, capsys):
    out = tmp_path / "run"
    code, stdout, stderr = _run(["train", "--epochs", "3", "--out", str(out)], capsys)
    assert code == 0, stderr
    summary = json.loads((out / "summary.json").read_text())
    assert summary["status"] == "finished" and summary["test"]["accuracy"] > 0.85
    if os.path.exists("/proc/self/stat"):  # the cold-start figure: the process started before its first update
        assert 0 < summary["first_update_seconds_since_start"] < 3600
    for name in ("metrics.csv", "epochs.csv", "loss.png", "accuracy.png", "learning_rate.png", "config.json"):
        assert (out / name).stat().st_size > 0
    rows = list(csv.DictReader(open(out / "metrics.csv")))
    per_epoch = 20  # 1,258 training images (after the validation split) in batches of 64
    assert [int(r["step"]) for r in rows] == list(range(1, 3 * per_epoch + 1))
    assert [int(r["epoch"]) for r in rows] == [e for e in (1, 2, 3) for _ in range(per_epoch)]
    # the loss column is each batch's own loss: the mean of the epoch's batch losses, weighted by batch size
    # (the last batch holds 1,258 - 19 * 64 = 42 examples), is the epoch's reported training loss
    epochs = list(csv.DictReader(open(out / "epochs.csv")))
    sizes = np.array([64] * 19 + [1258 - 19 * 64], float)
    for e in range(3):
        batch = np.array([float(r["loss"]) for r in rows[e * per_epoch:(e + 1) * per_epoch]])
        assert np.isclose((batch * sizes).sum() / sizes.sum(), float(epochs[e]["loss"]), rtol=1e-5)
    assert [float(r["loss_smoothed"]) for r in rows] == pytest.approx(smooth([float(r["loss"]) for r in rows]))
    assert all(epochs[e][k] for e in range(3) for k in ("val_loss", "val_accuracy", "test_loss", "test_accuracy"))
    assert float(epochs[-1]["test_accuracy"]) == pytest.approx(summary["test"]["accuracy"])
    # the learning rate column is what the schedule gave at each update: warm-up from 0, then cosine
    warm = warmup_default(3 * per_epoch)
    lrs = [float(r["learning_rate"]) for r in rows]
    assert lrs[0] == 0.0 and lrs[warm] == pytest.approx(3e-3) and lrs[-1] < 1e-4
    assert summary["schedule"].startswith(f"linear warm-up 0 -> 0.003 over {warm} updates, then cosine decay")
    assert stdout.splitlines()[0].startswith("test loss") and "run folder" in stdout.splitlines()[1]
    assert "epoch 1/3" not in stdout and "epoch 1/3" in stderr  # the progress bar is on stderr


def test_train_on_npz_and_csv_with_a_label_column(tmp_path, capsys):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((80, 3)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int64)
    np.savez(tmp_path / "d.npz", x=x, y=y)
    code, _, err = _run(["train", "--data", str(tmp_path / "d.npz"), "--epochs", "2", "--out", str(tmp_path / "a")],
                        capsys)
    assert code == 0, err
    with open(tmp_path / "d.csv", "w") as f:
        f.write("a,b,target,c\n" + "".join(f"{r[0]},{r[1]},{t},{r[2]}\n" for r, t in zip(x, y)))
    code, _, err = _run(["train", "--data", str(tmp_path / "d.csv"), "--label", "target", "--epochs", "2",
                         "--model", "linear", "--optimizer", "sgd", "--accum-steps", "2", "--clip-norm", "1.0",
                         "--out", str(tmp_path / "b")], capsys)
    assert code == 0, err
    config = json.loads((tmp_path / "b" / "config.json").read_text())
    assert config["data"]["features"] == ["a", "b", "c"] and config["data"]["classes"] == [0, 1]
    assert config["settings"]["lr"] == 0.1  # SGD's usual rate, not Adam's


def test_embedding_example_loss_falls(tmp_path, capsys):
    out = tmp_path / "clicks"
    code, _, err = _run(["train", "--example", "clicks", "--examples", "20000", "--epochs", "2", "--out", str(out)],
                        capsys)
    assert code == 0, err
    rows = list(csv.DictReader(open(out / "metrics.csv")))
    first = np.mean([float(r["loss"]) for r in rows[:10]])
    last = np.mean([float(r["loss"]) for r in rows[-10:]])
    assert last < 0.8 * first


def test_warmup_is_a_fraction_of_the_run():
    assert warmup_default(30) == 2 and warmup_default(920) == 46 and warmup_default(10**7) == 1000
    assert warmup_default(5) == 0


def test_compare_uses_each_optimizers_rate_and_shows_progress(tmp_path, capsys):
    code, stdout, stderr = _run(["compare", "--optimizers", "sgd,adam", "--epochs", "2", "--out", str(tmp_path)],
                                capsys)
    assert code == 0, stderr
    assert (tmp_path / "compare.png").stat().st_size > 0
    result = json.loads((tmp_path / "compare.json").read_text())
    assert set(result) == {"sgd", "adam"} and result["sgd"]["lr"] == 0.1 and result["adam"]["lr"] == 3e-3
    assert "sgd lr 0.1 epoch 1/2" in stderr and "adam lr 0.003 epoch 2/2" in stderr
    lines = stdout.splitlines()
    assert lines[0].startswith("sgd") and lines[1].startswith("adam") and "step/s" not in stdout


def test_compare_conventions_trains_each_optimizer_under_each(tmp_path, capsys):
    """``--conventions``: one run per (optimizer, convention) on the same problem, labelled ``name/convention``;
    from the same start, the conventions' losses part (PyTorch's Adam puts epsilon elsewhere)."""
    code, stdout, stderr = _run(["compare", "--optimizers", "adam,sgd", "--conventions", "keras,torch", "--epochs",
                                 "1", "--out", str(tmp_path)], capsys)
    assert code == 0, stderr
    result = json.loads((tmp_path / "compare.json").read_text())
    assert list(result) == ["adam/keras", "adam/torch", "sgd/keras", "sgd/torch"]
    assert result["adam/keras"]["test"] != result["adam/torch"]["test"]
    assert [line.split()[0] for line in stdout.splitlines()[:4]] == list(result)
    assert (tmp_path / "compare.png").stat().st_size > 0


def test_compare_lr_sweep_keeps_the_best_rate_on_validation(tmp_path, capsys):
    code, stdout, stderr = _run(["compare", "--optimizers", "sgd", "--epochs", "1", "--lr-sweep", "--out",
                                 str(tmp_path)], capsys)
    assert code == 0, stderr
    tried = json.loads((tmp_path / "compare.json").read_text())["sgd"]
    assert len(tried["tried"]) == 3
    assert tried["tried"][f"{tried['lr']:g}"] == min(tried["tried"].values())


def test_help_lists_defaults_optimizers_schedules_and_examples(capsys):
    assert main(["train", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    for word in (*OPTIMIZERS, *SCHEDULES, "digits", "clicks", "default: 128", "default: adamw", "5% of the run"):
        assert word in text, word
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"descend {descend.__version__}"


def test_console_script_stdout_is_clean_without_a_terminal(tmp_path):
    env = {**os.environ, "PYTHONPATH": ROOT}
    result = subprocess.run([sys.executable, "-m", "descend", "train", "--epochs", "1", "--hidden", "8",
                             "--out", str(tmp_path / "r")], capture_output=True, text=True, timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("test loss") and lines[1].startswith("run folder")
    assert "epoch 1/1" in result.stderr and "task: classification" in result.stderr
    bad = subprocess.run([sys.executable, "-m", "descend", "train", "--optimizer", "nope"], capture_output=True,
                         text=True, timeout=300, env=env)
    assert bad.returncode == 2 and bad.stdout == ""
    assert bad.stderr.strip().splitlines() == ["descend train: error: unknown optimizer 'nope'; known optimizers: "
                                               + ", ".join(OPTIMIZERS)]


def test_overwrite_replaces_only_what_descend_wrote(tmp_path, capsys):
    out = tmp_path / "r"
    args = ["train", "--epochs", "1", "--max-steps", "2", "--hidden", "4", "--out", str(out)]
    assert _run(args, capsys)[0] == 0
    (out / "notes.txt").write_text("mine")
    assert _run(args, capsys)[0] == 2
    assert _run([*args, "--overwrite", "--seed", "5"], capsys)[0] == 0
    assert (out / "notes.txt").read_text() == "mine"
    assert json.loads((out / "config.json").read_text())["settings"]["seed"] == 5
