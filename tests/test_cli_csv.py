"""Real CSV files: text labels (iris-like), a regression target (California-housing-like, generated),
a semicolon file with decimal commas, missing fields; ``descend predict`` on each."""

import csv
import doctest
import io
import json

import numpy as np
import pytest

import descend.cli
import descend.cli.job
import descend.cli.rundir
import descend.cli.tabular
from descend.cli import main
from descend.cli.tabular import DataError, infer_task, read_csv

SPECIES = ("setosa", "versicolor", "virginica")


def _iris_like(path, n_per=50, seed=0, label=True, sep=",", decimal="."):
    """Three species with four measurements each (Gaussian clusters around iris-like means)."""
    rng = np.random.default_rng(seed)
    means = {"setosa": (5.0, 3.4, 1.5, 0.25), "versicolor": (5.9, 2.8, 4.3, 1.3), "virginica": (6.6, 3.0, 5.6, 2.0)}
    rows = []
    for s in SPECIES:
        for v in rng.normal(means[s], (0.35, 0.3, 0.3, 0.15), size=(n_per, 4)):
            rows.append([f"{a:.2f}".replace(".", decimal) for a in v] + ([s] if label else []))
    order = rng.permutation(len(rows))
    header = ["sepal_length", "sepal_width", "petal_length", "petal_width"] + (["species"] if label else [])
    with open(path, "w", newline="") as f:
        w = csv.writer(f, delimiter=sep)
        w.writerow(header)
        w.writerows([rows[i] for i in order])
    return [rows[i][-1] for i in order] if label else None


def _housing_like(path, n=2000, seed=0):
    """California-housing-like columns; the value depends on income, location and rooms, plus noise."""
    rng = np.random.default_rng(seed)
    inc = rng.gamma(4.0, 1.0, n)
    age = rng.integers(1, 52, n).astype(float)
    rooms = rng.normal(5.4, 1.2, n)
    bedrms = rooms * rng.normal(0.2, 0.02, n)
    pop = rng.gamma(2.0, 700.0, n)
    occup = rng.normal(3.0, 0.6, n)
    lat = rng.uniform(32.5, 42.0, n)
    lon = rng.uniform(-124.3, -114.3, n)
    value = 0.45 * inc + 0.25 * (lat < 38.5) + 0.01 * age + 0.08 * (rooms - 5.4) - 0.1 * (occup - 3) + 0.6
    value = np.clip(value + rng.normal(0, 0.15, n), 0.15, 5.0)
    names = ["MedInc", "HouseAge", "AveRooms", "AveBedrms", "Population", "AveOccup", "Latitude", "Longitude",
             "MedHouseVal"]
    with open(path, "w") as f:
        f.write(",".join(names) + "\n")
        for r in zip(inc, age, rooms, bedrms, pop, occup, lat, lon, value):
            f.write(",".join(f"{v:.5f}" for v in r) + "\n")
    return value


def _train(args, capsys):
    code = main(["train", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _predict(args, capsys):
    code = main(["predict", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_iris_with_text_labels_trains_and_predicts_species(tmp_path, capsys):
    _iris_like(tmp_path / "iris.csv")
    run = tmp_path / "run"
    code, stdout, err = _train(["--data", str(tmp_path / "iris.csv"), "--epochs", "30", "--out", str(run)], capsys)
    assert code == 0, err
    assert "task: classification into 3 classes (setosa, versicolor, virginica) from 'species'" in err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["test"]["accuracy"] >= 0.9
    config = json.loads((run / "config.json").read_text())
    assert config["data"]["classes"] == list(SPECIES)  # the label mapping, saved in the run folder
    # new rows without the label column: predictions are species names
    _iris_like(tmp_path / "new.csv", n_per=10, seed=1, label=False)
    code, stdout, err = _predict(["--run", str(run), "--data", str(tmp_path / "new.csv")], capsys)
    assert code == 0, err
    pred = list(csv.DictReader(io.StringIO(stdout)))
    assert len(pred) == 30 and {p["prediction"] for p in pred} <= set(SPECIES)
    assert all(0 < float(p["probability"]) <= 1 for p in pred)
    # with the label column: the accuracy is reported on stderr; --output writes a file
    truth = _iris_like(tmp_path / "labelled.csv", n_per=10, seed=2)
    code, stdout, err = _predict(["--run", str(run), "--data", str(tmp_path / "labelled.csv"), "--output",
                                  str(tmp_path / "pred.csv")], capsys)
    assert code == 0 and stdout == "" and "accuracy on the 30 labelled rows" in err
    pred = [p["prediction"] for p in csv.DictReader(open(tmp_path / "pred.csv"))]
    assert np.mean([a == b for a, b in zip(pred, truth)]) >= 0.85


def test_a_continuous_target_is_a_regression_with_mean_squared_error(tmp_path, capsys):
    value = _housing_like(tmp_path / "housing.csv")
    run = tmp_path / "run"
    code, stdout, err = _train(["--data", str(tmp_path / "housing.csv"), "--epochs", "15", "--out", str(run)], capsys)
    assert code == 0, err
    assert "task: regression of 'MedHouseVal' with mean squared error" in err
    summary = json.loads((run / "summary.json").read_text())
    assert summary["task"] == "regression" and set(summary["test"]) == {"mse", "rmse", "mae", "r2"}
    assert summary["test"]["r2"] > 0.8 and summary["test"]["rmse"] < 0.5 * value.std()
    assert stdout.startswith("test mse ")
    header = open(run / "metrics.csv").readline().strip().split(",")
    assert header == ["step", "epoch", "loss", "loss_smoothed", "learning_rate"]
    assert not (run / "accuracy.png").exists()
    # predictions come back in the target's units (not standardized)
    _housing_like(tmp_path / "new.csv", n=200, seed=5)
    code, stdout, err = _predict(["--run", str(run), "--data", str(tmp_path / "new.csv")], capsys)
    assert code == 0, err
    truth = np.loadtxt(tmp_path / "new.csv", delimiter=",", skiprows=1)[:, -1]
    pred = np.array([float(r["prediction"]) for r in csv.DictReader(io.StringIO(stdout))])
    assert np.sqrt(np.mean((pred - truth) ** 2)) < 0.5 * truth.std()
    assert "rmse" in err
    # --task classification overrides the inference (here refused: too many classes for a classifier)
    code, _, err = _train(["--data", str(tmp_path / "housing.csv"), "--task", "classification", "--out",
                           str(tmp_path / "r2")], capsys)
    assert code == 2 and "more than 1,000" in err


def test_task_inference_and_override():
    assert infer_task(np.arange(100, dtype=float))[0] == "regression"
    assert infer_task(np.array([0.0, 1.0] * 20))[0] == "classification"
    assert infer_task(np.array(["a", "b"] * 20, dtype=object))[0] == "classification"
    assert infer_task(np.arange(100, dtype=float), "classification")[0] == "classification"
    assert infer_task(np.array([0.0, 1.0] * 20), "regression")[0] == "regression"
    with pytest.raises(DataError, match="needs a numeric label column"):
        infer_task(np.array(["a", "b"], dtype=object), "regression")


def test_a_semicolon_file_with_decimal_commas(tmp_path, capsys):
    _iris_like(tmp_path / "iris.csv", sep=";", decimal=",")
    table = read_csv(tmp_path / "iris.csv")
    assert table.delimiter == ";" and table.x.shape == (150, 4) and table.label_name == "species"
    assert 4.0 < table.x[:, 0].mean() < 7.0  # "5,12" read as 5.12
    run = tmp_path / "run"
    code, _, err = _train(["--data", str(tmp_path / "iris.csv"), "--epochs", "20", "--out", str(run)], capsys)
    assert code == 0, err
    assert "(semicolon-separated)" in err
    _iris_like(tmp_path / "new.csv", n_per=5, seed=3, sep=";", decimal=",", label=False)
    code, stdout, err = _predict(["--run", str(run), "--data", str(tmp_path / "new.csv")], capsys)
    assert code == 0 and len(stdout.strip().splitlines()) == 16, err


def test_tab_separated_and_quoted_cells(tmp_path):
    (tmp_path / "t.tsv").write_text('a\t"b c"\tlabel\n' + "".join(f"{i}\t{i * 2}\t\"x y\"\n" for i in range(3)))
    table = read_csv(tmp_path / "t.tsv")
    assert table.delimiter == "\t" and table.feature_names == ["a", "b c"] and list(table.labels) == ["x y"] * 3


@pytest.mark.parametrize("content,message", [
    ("a,b,label\n1,2,x\n3,4,y\n5,,x\n", "1 missing value(s): line 4, column 'b'; fill or remove those rows"),
    ("a,b,label\n1,2,x\n3,NA,y\n5,6,\n", "2 missing value(s): line 3, column 'b'; line 4, column 'label'"),
    ("a,b,label\n1,2,x\n3,4\n5,6,x,7\n", "line 3 has 2 fields; line 4 has 4 fields (the header has 3)"),
    ("a,b,label\n" + "1,,x\n" * 5, "5 missing value(s): line 2, column 'b'; line 3, column 'b'; line 4, column "
                                   "'b'; and 2 more"),
])
def test_missing_fields_are_reported_by_line_and_column(tmp_path, content, message):
    (tmp_path / "m.csv").write_text(content)
    with pytest.raises(DataError) as info:
        read_csv(tmp_path / "m.csv")
    assert message in str(info.value)


def test_missing_fields_on_the_command_line_and_in_predict(tmp_path, capsys):
    _iris_like(tmp_path / "iris.csv")
    lines = open(tmp_path / "iris.csv").read().splitlines()
    lines[7] = ",".join(["", *lines[7].split(",")[1:]])
    (tmp_path / "holes.csv").write_text("\n".join(lines) + "\n")
    code, out, err = _train(["--data", str(tmp_path / "holes.csv"), "--out", str(tmp_path / "r")], capsys)
    assert code == 2 and err.strip().endswith("1 missing value(s): line 8, column 'sepal_length'; fill or remove "
                                              "those rows") and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()
    run = tmp_path / "run"
    assert _train(["--data", str(tmp_path / "iris.csv"), "--epochs", "2", "--out", str(run)], capsys)[0] == 0
    code, out, err = _predict(["--run", str(run), "--data", str(tmp_path / "holes.csv")], capsys)
    assert code == 2 and "line 8, column 'sepal_length'" in err and out == ""
    (tmp_path / "other.csv").write_text("x,y\n1,2\n")
    code, out, err = _predict(["--run", str(run), "--data", str(tmp_path / "other.csv")], capsys)
    assert code == 2 and "feature column(s) ['sepal_length', 'sepal_width', 'petal_length', 'petal_width'] of " \
                         "the trained model are missing" in err


def test_predict_refuses_a_run_that_did_not_finish(tmp_path, capsys):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "config.json").write_text(json.dumps({"settings": {}, "data": {}}))
    code, out, err = _predict(["--run", str(tmp_path / "run"), "--data", "x.csv"], capsys)
    assert code == 2 and "has no final weights: the run did not finish" in err
    code, out, err = _predict(["--run", str(tmp_path / "nope"), "--data", "x.csv"], capsys)
    assert code == 2 and "does not exist" in err


def test_predict_on_the_bundled_digits_run_with_an_npz_file(tmp_path, capsys):
    import descend as ds

    run = tmp_path / "run"
    assert _train(["--epochs", "3", "--out", str(run)], capsys)[0] == 0
    (_, _), (xt, yt) = ds.datasets.load_digits(seed=0)
    np.savez(tmp_path / "digits.npz", x=xt, y=yt)
    code, stdout, err = _predict(["--run", str(run), "--data", str(tmp_path / "digits.npz")], capsys)
    assert code == 0, err
    pred = [int(r["prediction"]) for r in csv.DictReader(io.StringIO(stdout))]
    accuracy = np.mean(np.array(pred) == yt)
    summary = json.loads((run / "summary.json").read_text())
    assert accuracy == pytest.approx(summary["test"]["accuracy"], abs=1e-6)  # the same weights, the same test set


@pytest.mark.parametrize("module", [descend.cli, descend.cli.tabular, descend.cli.rundir, descend.cli.job])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
