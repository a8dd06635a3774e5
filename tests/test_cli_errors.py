"""Every bad input to the descend command: one line on stderr, exit code 2, and nothing written.

The table holds each numeric flag with negative, zero, NaN, infinite and huge
values, each file flag with missing, empty, wrong-type and unwritable paths,
the run-folder and --resume cases, and every case from issue 14's list. Most
cases also pass ``--out RUN --overwrite`` naming a finished run: a check that
came after the first write would destroy it, and the test compares the folder
byte for byte.
"""

import os
import shutil

import numpy as np
import pytest

from descend.cli import main

INT_FLAGS = ["seed", "hidden", "epochs", "batch-size", "max-steps", "accum-steps", "warmup-steps",
             "checkpoint-every"]
FLOAT_FLAGS = ["lr", "weight-decay", "clip-norm"]
ZERO_OK = {"seed", "warmup-steps", "weight-decay"}


def _numeric_cases():
    cases = []
    for flag in INT_FLAGS:
        for value in ["-1", "nan", "inf", "99999999999", "1.5", "ten"] + ([] if flag in ZERO_OK else ["0"]):
            cases.append((f"{flag}={value}", [f"--{flag}", value], f"--{flag} must be an integer"))
    for flag in FLOAT_FLAGS:
        for value in ["-1", "-0.5", "nan", "inf", "1e30", "x"] + ([] if flag in ZERO_OK else ["0"]):
            cases.append((f"{flag}={value}", [f"--{flag}", value], f"--{flag} must be a number"))
        cases.append((f"{flag}=-inf-spaced", [f"--{flag}", "-inf"], f"--{flag} needs a value"))
        cases.append((f"{flag}=-inf", [f"--{flag}=-inf"], f"--{flag} must be a number"))
    for value in ["-5", "0", "5", "nan", "1e12"]:
        cases.append((f"examples={value}", ["--example", "clicks", "--examples", value],
                      "--examples must be an integer"))
    return cases


def _write_npz(path, **arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)


def _setup(tmp, what):
    """Create the file a case needs; returns its path."""
    rng = np.random.default_rng(0)
    p = os.path.join(tmp, what)
    if what == "empty.csv":
        open(p, "w").close()
    elif what == "header_only.csv":
        open(p, "w").write("a,b,label\n")
    elif what == "garbage.npz":
        open(p, "wb").write(b"not a zip file")
    elif what == "scalar_x.npz":
        _write_npz(p, x=np.float32(3.0), y=np.zeros(40))
    elif what == "labels_2d.npz":
        _write_npz(p, x=rng.standard_normal((40, 3)), y=np.zeros((40, 3)))
    elif what == "nan.npz":
        x = np.ones((40, 2))
        x[3, 1] = np.nan
        _write_npz(p, x=x, y=np.zeros(40))
    elif what == "rows.npz":
        _write_npz(p, x=rng.standard_normal((40, 3)), y=np.zeros(39))
    elif what == "object.npz":
        _write_npz(p, x=np.array([{"a": 1}] * 40, dtype=object), y=np.zeros(40))
    elif what == "few.csv":
        open(p, "w").write("a,b,label\n" + "".join(f"{i},{i},{i % 2}\n" for i in range(5)))
    elif what == "text.csv":
        open(p, "w").write("a,city,label\n" + "".join(f"{i},Paris,{i % 2}\n" for i in range(40)))
    elif what == "one_column.csv":
        open(p, "w").write("label\n" + "".join(f"{i % 2}\n" for i in range(40)))
    elif what == "one_class.csv":
        open(p, "w").write("a,label\n" + "".join(f"{i},yes\n" for i in range(40)))
    elif what == "latin1.csv":
        open(p, "wb").write(b"a,label\n" + "".join(f"{i},caf\xe9\n" for i in range(40)).encode("latin-1"))
    elif what == "data.json":
        open(p, "w").write("{}")
    elif what == "a_folder":
        os.mkdir(p)
    elif what == "a_file":
        open(p, "w").write("not a folder")
    elif what == "good.csv":
        open(p, "w").write("a,b,label\n" + "".join(f"{i},{i * 2},{i % 3}\n" for i in range(40)))
    return p


# (id, arguments, expected text in the one line, files to create); RUN is the finished run folder,
# UNFINISHED an interrupted one, TMP the test's folder
OTHER_CASES = [
    ("no-command", None, [], "the following arguments are required"),
    ("bad-command", None, ["fly"], "invalid choice: 'fly'"),
    ("unknown-flag", None, ["--sede", "1"], "unrecognized arguments: --sede"),
    ("optimizer", None, ["--optimizer", "adamm"], "unknown optimizer 'adamm'; known optimizers: sgd, momentum"),
    ("schedule", None, ["--schedule", "zigzag"], "unknown schedule 'zigzag'"),
    ("model", None, ["--model", "cnn"], "unknown model 'cnn'"),
    ("task", None, ["--task", "ranking"], "unknown task 'ranking'"),
    ("example", None, ["--example", "mnist"], "unknown example 'mnist'"),
    ("examples-without-clicks", None, ["--examples", "5000"], "--examples sets the size of --example clicks"),
    ("label-without-data", None, ["--label", "y"], "--label needs --data"),
    ("example-and-data", "good.csv", ["--example", "clicks", "--data", "TMP/good.csv"], "pass one of them"),
    ("warmup-too-long", None, ["--epochs", "1", "--warmup-steps", "500"], "--warmup-steps must be below the run's"),
    ("ftrl-warmup", None, ["--optimizer", "ftrl", "--warmup-steps", "5"],
     "--optimizer ftrl divides by the learning rate, so it cannot start from a warm-up at 0"),
    ("accum-no-update", None, ["--epochs", "1", "--max-steps", "2", "--accum-steps", "4"], "leaves no update"),
    ("data-missing", None, ["--data", "TMP/missing.csv"], "data file not found"),
    ("data-empty", "empty.csv", ["--data", "TMP/empty.csv"], "the file is empty"),
    ("data-header-only", "header_only.csv", ["--data", "TMP/header_only.csv"], "no data rows"),
    ("data-folder", "a_folder", ["--data", "TMP/a_folder"], "is a folder"),
    ("data-json", "data.json", ["--data", "TMP/data.json"], "unsupported data format"),
    ("data-garbage-npz", "garbage.npz", ["--data", "TMP/garbage.npz"], "not a readable .npz file"),
    ("data-0d-x", "scalar_x.npz", ["--data", "TMP/scalar_x.npz"], "x must have one row per example"),
    ("data-2d-labels", "labels_2d.npz", ["--data", "TMP/labels_2d.npz"], "y must be one label per example"),
    ("data-nan", "nan.npz", ["--data", "TMP/nan.npz"], "contains NaN or infinite values (first at row 3)"),
    ("data-rows", "rows.npz", ["--data", "TMP/rows.npz"], "x has 40 rows but y has 39"),
    ("data-pickled", "object.npz", ["--data", "TMP/object.npz"], "pickled"),
    ("data-few-rows", "few.csv", ["--data", "TMP/few.csv"], "need at least 30 examples"),
    ("data-text-feature", "text.csv", ["--data", "TMP/text.csv"], "feature columns must be numeric"),
    ("data-one-column", "one_column.csv", ["--data", "TMP/one_column.csv"], "found 1 column"),
    ("data-one-class", "one_class.csv", ["--data", "TMP/one_class.csv"], "holds one class only"),
    ("data-not-utf8", "latin1.csv", ["--data", "TMP/latin1.csv"], "not a UTF-8 text file"),
    ("label-missing", "good.csv", ["--data", "TMP/good.csv", "--label", "nope"], "label column 'nope' does not"),
    ("label-on-npz", "nan.npz", ["--data", "TMP/nan.npz", "--label", "y"], "--label names a column of a .csv"),
    ("regression-on-text", "one_class.csv", ["--data", "TMP/one_class.csv", "--task", "regression"],
     "--task regression needs a numeric label"),
    ("out-is-file", "a_file", ["--out", "TMP/a_file"], "is a regular file, not a folder"),
    ("out-under-file", "a_file", ["--out", "TMP/a_file/run"], "cannot be created"),
    ("out-unwritable", None, ["--out", "/proc/descend-run"], "cannot be created in /proc"),
    ("out-unwritable-existing", None, ["--out", "/proc"], "--out /proc is not writable"),
    ("out-finished", None, ["--out", "RUN"], "holds a finished run (test loss"),
    ("out-unfinished", None, ["--out", "UNFINISHED"], "holds an unfinished run"),
    ("resume-missing", None, ["--out", "TMP/nothing", "--resume"], "does not exist, so there is no run"),
    ("resume-no-run", "a_folder", ["--out", "TMP/a_folder", "--resume"], "holds no descend train run"),
    ("resume-finished", None, ["--out", "RUN", "--resume"], "already finished"),
    ("resume-overwrite", None, ["--out", "UNFINISHED", "--resume", "--overwrite"], "pass one of them"),
    ("resume-without-out", None, ["--resume"], "--resume needs --out"),
    ("resume-optimizer", None, ["--out", "UNFINISHED", "--resume", "--optimizer", "adam", "--hidden", "16"],
     "--hidden 16 (saved: 8); --optimizer adam (saved: adamw). Drop these flags"),
    ("resume-lr", None, ["--out", "UNFINISHED", "--resume", "--lr", "0.01"],
     "--lr 0.01 (saved: 0.003). Drop these flags to continue it; to change --lr on purpose add --allow-change lr"),
    ("allow-change-bad", None, ["--out", "UNFINISHED", "--resume", "--allow-change", "hidden"],
     "'hidden' cannot change on --resume"),
    ("allow-change-alone", None, ["--allow-change", "lr"], "--allow-change only applies with --resume"),
    ("compare-unknown", None, ["--optimizers", "sgd,nope"], "--optimizers: unknown optimizer 'nope'"),
    ("compare-empty", None, ["--optimizers", ","], "--optimizers names no optimizer"),
    ("compare-twice", None, ["--optimizers", "sgd,SGD"], "names an optimizer twice"),
    ("compare-lr", None, ["--lr", "nan"], "--lr must be a number"),
    ("compare-convention-unknown", None, ["--conventions", "keras,pytorch"],
     "--conventions: unknown convention 'pytorch'; expected some of keras, tf1, torch, optax"),
    ("compare-convention-twice", None, ["--conventions", "torch,torch"], "--conventions must name each convention once"),
    ("compare-convention-lacking", None, ["--optimizers", "adam,lion", "--conventions", "keras,torch"],
     "--optimizer lion: Lion has no 'torch' convention"),
    ("predict-no-run", None, ["--data", "x.csv"], "the following arguments are required: --run"),
    ("predict-run-missing", None, ["--run", "TMP/nope", "--data", "x.csv"], "(it does not exist)"),
    ("predict-run-file", "a_file", ["--run", "TMP/a_file", "--data", "x.csv"], "(it is a regular file)"),
    ("predict-run-empty", "a_folder", ["--run", "TMP/a_folder", "--data", "x.csv"], "holds no descend train run"),
    ("predict-run-unfinished", None, ["--run", "UNFINISHED", "--data", "x.csv"], "has no final weights"),
    ("predict-data-missing", None, ["--run", "RUN", "--data", "TMP/missing.csv"], "data file not found"),
    ("predict-data-empty", "empty.csv", ["--run", "RUN", "--data", "TMP/empty.csv"], "the file is empty"),
    ("predict-data-folder", "a_folder", ["--run", "RUN", "--data", "TMP/a_folder"], "is a folder"),
    ("predict-data-garbage", "garbage.npz", ["--run", "RUN", "--data", "TMP/garbage.npz"], "not a readable"),
    ("predict-data-features", "nan.npz", ["--run", "RUN", "--data", "TMP/nan.npz"], "contains NaN"),
    ("predict-output-folder", "a_folder", ["--run", "RUN", "--data", "x.csv", "--output", "TMP/a_folder"],
     "is a folder; name a file"),
    ("predict-output-nowhere", None, ["--run", "RUN", "--data", "x.csv", "--output", "TMP/no/p.csv"],
     "does not exist"),
]


def _cases():
    out = [pytest.param(None, ["train", *args], msg, True, id=i) for i, args, msg in _numeric_cases()]
    for i, setup, args, msg in OTHER_CASES:
        top = i in ("no-command", "bad-command")
        command = i.split("-")[0] if i.startswith(("compare-", "predict-")) else "train"
        overwrite = not any(a in ("--out", "--resume") for a in args) and not top and command != "predict"
        out.append(pytest.param(setup, args if top else [command, *args], msg, overwrite, id=i))
    return out


def _snapshot(folder):
    snap = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            snap[os.path.relpath(p, folder)] = open(p, "rb").read() if os.path.isfile(p) else None
    return snap


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A finished run and an interrupted one (its final weights removed, its summary marked so)."""
    import json

    base = tmp_path_factory.mktemp("runs")
    finished = str(base / "finished")
    assert main(["train", "--epochs", "2", "--max-steps", "3", "--hidden", "8", "--out", finished]) == 0
    unfinished = str(base / "unfinished")
    shutil.copytree(finished, unfinished)
    shutil.rmtree(os.path.join(unfinished, "final"))
    summary = json.load(open(os.path.join(unfinished, "summary.json")))
    summary.update(status="interrupted", epochs_done=1, test=None)
    json.dump(summary, open(os.path.join(unfinished, "summary.json"), "w"))
    return finished, unfinished


@pytest.mark.parametrize("setup,args,message,overwrite", _cases())
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, runs, capsys, monkeypatch, setup, args, message,
                                                         overwrite):
    finished, unfinished = runs
    if setup:
        _setup(str(tmp_path), setup)
    argv = [a.replace("TMP", str(tmp_path)).replace("UNFINISHED", unfinished).replace("RUN", finished)
            for a in args]
    if overwrite:
        argv += ["--out", finished, "--overwrite"]
    monkeypatch.chdir(tmp_path)
    before = (_snapshot(finished), _snapshot(unfinished))
    listing = sorted(os.listdir(tmp_path))
    capsys.readouterr()
    code = main(argv)
    out = capsys.readouterr()
    lines = [line for line in out.err.splitlines() if line.strip()]
    assert code == 2, (argv, out.err)
    assert len(lines) == 1, out.err
    assert message in lines[0], lines[0]
    assert "Traceback" not in out.err and out.out == ""
    assert (_snapshot(finished), _snapshot(unfinished)) == before
    assert sorted(os.listdir(tmp_path)) == listing  # no run folder appeared


def test_zero_is_accepted_where_it_means_something(tmp_path, capsys):
    """--seed 0, --warmup-steps 0 and --weight-decay 0 are valid settings, not errors."""
    code = main(["train", "--epochs", "1", "--max-steps", "2", "--hidden", "4", "--seed", "0", "--warmup-steps", "0",
                 "--weight-decay", "0", "--out", str(tmp_path / "r")])
    assert code == 0, capsys.readouterr().err


def test_ftrl_runs_without_a_warm_up_by_default(tmp_path, capsys):
    """FTRL divides by the learning rate: the default warm-up (from 0) would make its first update fail."""
    code = main(["train", "--optimizer", "ftrl", "--epochs", "1", "--max-steps", "3", "--hidden", "4",
                 "--out", str(tmp_path / "r")])
    out = capsys.readouterr()
    assert code == 0 and "Traceback" not in out.err, out.err
    code = main(["compare", "--optimizers", "sgd,ftrl", "--epochs", "1", "--max-steps", "2", "--hidden", "4",
                 "--out", str(tmp_path / "c")])
    out = capsys.readouterr()
    assert code == 0 and "Traceback" not in out.err, out.err


def test_every_checkpoint_corrupted_is_one_line_and_changes_nothing(runs, tmp_path, capsys):
    _, unfinished = runs
    run = str(tmp_path / "run")
    shutil.copytree(unfinished, run)
    ck = os.path.join(run, "checkpoints")
    for name in os.listdir(ck):
        tensors = os.path.join(ck, name, "tensors.safetensors")
        if os.path.exists(tensors):
            data = bytearray(open(tensors, "rb").read())
            data[-1] ^= 0xFF
            open(tensors, "wb").write(bytes(data))
    before = _snapshot(run)
    capsys.readouterr()
    assert main(["train", "--out", run, "--resume"]) == 2
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "no checkpoint in" in err[0] and "can be read" in err[0], err
    assert _snapshot(run) == before


def test_fit_and_evaluate_check_their_arguments():
    import descend as ds

    model = ds.Sequential([ds.layers.Dense(1)])
    model.compile(optimizer="sgd", loss="mse")
    x, y = np.ones((8, 2), np.float32), np.ones((8, 1), np.float32)
    for kwargs, text in [({"batch_size": 0}, "`batch_size` must be a positive integer or None; received: 0"),
                         ({"batch_size": -2}, "received: -2"), ({"batch_size": 2.5}, "received: 2.5"),
                         ({"epochs": -1}, "`epochs` must be a non-negative integer; received: -1"),
                         ({"steps_per_epoch": 0}, "`steps_per_epoch` must be a positive integer or None"),
                         ({"validation_split": 1.0}, "`validation_split` must be in [0, 1)"),
                         ({"verbose": 5}, "`verbose` must be 0, 1, 2 or 'auto'"),
                         ({"initial_epoch": -1}, "`initial_epoch` must be a non-negative integer")]:
        with pytest.raises((ValueError, TypeError), match=None) as info:
            model.fit(x, y, **{"epochs": 1, "verbose": 0, **kwargs})
        assert text in str(info.value), (kwargs, str(info.value))
    with pytest.raises(ValueError, match="x has 8 rows but y has 7"):
        model.fit(x, y[:7], verbose=0)
    with pytest.raises(ValueError, match="`batch_size` must be a positive integer or None; received: 0"):
        model.evaluate(x, y, batch_size=0, verbose=0)
    with pytest.raises(ValueError, match="x has 8 rows but y has 7"):
        model.evaluate(x, y[:7], verbose=0)
    assert model.fit(x, y, epochs=1, batch_size=4, verbose=0) is not None
