"""keras.metrics' remaining names (issue 37): the IoU family, F-scores, correlations, the rate-at-bound metrics
and the loss functions Keras re-exports; each compared with Keras 3 where installed (two updates, with and
without sample weights, then reset), plus configs, bad inputs and the names list itself."""

from __future__ import annotations

import re

import numpy as np
import pytest

import descend as ds
import descend.metrics as metrics

rng = np.random.default_rng(37)
SCORES = rng.random((8, 3)).astype(np.float32)
ONE_HOT = np.eye(3, dtype=np.float32)[rng.integers(0, 3, 8)]
BIN_TRUE = rng.integers(0, 2, (8, 3)).astype(np.float32)
REG_TRUE = rng.normal(size=(6, 5)).astype(np.float32)
REG_PRED = (REG_TRUE + 0.5 * rng.normal(size=(6, 5))).astype(np.float32)
IDS_TRUE = np.array([0, 1, 2, 2, 1, 0, 3, 2, -1, 5])
IDS_PRED = np.array([0, 2, 2, 1, 1, 0, 3, 0, 1, 2])
W8 = rng.random(8).astype(np.float32)

# name: (constructor taking the metrics module, y_true, y_pred, sample_weight)
CASES = {
    "IoU": (lambda m: m.IoU(num_classes=4, target_class_ids=[0, 2]), IDS_TRUE, IDS_PRED, None),
    "IoU_weighted_ignore": (lambda m: m.IoU(num_classes=4, target_class_ids=[0, 1, 3], ignore_class=0), IDS_TRUE,
                            IDS_PRED, np.linspace(0, 2, 10)),
    "MeanIoU": (lambda m: m.MeanIoU(num_classes=4), IDS_TRUE, IDS_PRED, None),
    "MeanIoU_float": (lambda m: m.MeanIoU(num_classes=4, dtype="float32"), IDS_TRUE, IDS_PRED, np.linspace(0, 2, 10)),
    "MeanIoU_absent_class": (lambda m: m.MeanIoU(num_classes=6), IDS_TRUE[:5], IDS_PRED[:5], None),
    "BinaryIoU": (lambda m: m.BinaryIoU(), BIN_TRUE, SCORES, None),
    "BinaryIoU_one_class": (lambda m: m.BinaryIoU(target_class_ids=[1], threshold=0.3), BIN_TRUE, SCORES, None),
    "OneHotIoU": (lambda m: m.OneHotIoU(num_classes=3, target_class_ids=[0, 2]), ONE_HOT, SCORES, None),
    "OneHotMeanIoU": (lambda m: m.OneHotMeanIoU(num_classes=3), ONE_HOT, SCORES, W8),
    "F1Score": (lambda m: m.F1Score(), ONE_HOT, SCORES, None),
    "F1Score_micro": (lambda m: m.F1Score(average="micro", threshold=0.5), BIN_TRUE, SCORES, None),
    "F1Score_macro_w": (lambda m: m.F1Score(average="macro", threshold=0.4), BIN_TRUE, SCORES, W8),
    "F1Score_weighted": (lambda m: m.F1Score(average="weighted"), ONE_HOT, SCORES, W8),
    "FBetaScore": (lambda m: m.FBetaScore(beta=2.0, threshold=0.6), BIN_TRUE, SCORES, None),
    "FBetaScore_half": (lambda m: m.FBetaScore(average="macro", beta=0.5), ONE_HOT, SCORES, None),
    "PearsonCorrelation": (lambda m: m.PearsonCorrelation(), REG_TRUE, REG_PRED, None),
    "PearsonCorrelation_axis0_w": (lambda m: m.PearsonCorrelation(axis=0), REG_TRUE, REG_PRED, None),
    "ConcordanceCorrelation": (lambda m: m.ConcordanceCorrelation(), REG_TRUE, REG_PRED, np.arange(6) / 6),
    "SensitivityAtSpecificity": (lambda m: m.SensitivityAtSpecificity(0.6), BIN_TRUE, SCORES, None),
    "SpecificityAtSensitivity": (lambda m: m.SpecificityAtSensitivity(0.7, num_thresholds=7), BIN_TRUE, SCORES,
                                 W8[:, None]),
    "PrecisionAtRecall": (lambda m: m.PrecisionAtRecall(0.5, class_id=1), BIN_TRUE, SCORES, None),
    "RecallAtPrecision": (lambda m: m.RecallAtPrecision(0.6, num_thresholds=1), BIN_TRUE, SCORES, None),
    "Poisson": (lambda m: m.Poisson(), SCORES, ONE_HOT + 0.5, None),
    "KLDivergence": (lambda m: m.KLDivergence(), ONE_HOT, SCORES, W8),
    "LogCoshError": (lambda m: m.LogCoshError(), REG_TRUE, REG_PRED, None),
    "CategoricalHinge": (lambda m: m.CategoricalHinge(), ONE_HOT, SCORES, None),
    "SquaredHinge": (lambda m: m.SquaredHinge(), BIN_TRUE, SCORES, None),
    "Hinge": (lambda m: m.Hinge(), BIN_TRUE, SCORES, W8),
}


def _run(make, module, y_true, y_pred, sw):
    m = make(module)
    out = []
    m.update_state(y_true, y_pred, sample_weight=sw)
    out.append(np.asarray(m.result()))
    half = len(y_true) // 2
    m.update_state(y_true[:half], y_pred[::-1][:half], sample_weight=None if sw is None else sw[:half])
    out.append(np.asarray(m.result()))
    m.reset_state()
    m.update_state(y_true[half:], y_pred[half:], sample_weight=None if sw is None else sw[half:])
    out.append(np.asarray(m.result()))
    return m, out


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_keras(name):
    keras = pytest.importorskip("keras", minversion="3")
    make, t, p, sw = CASES[name]
    ours, got = _run(make, metrics, t, p, sw)
    theirs, want = _run(make, keras.metrics, t, p, sw)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=2e-6, atol=2e-7)
    assert ours.name == re.sub(r"_\d+$", "", theirs.name)  # (Keras numbers a repeated name)
    assert ours.get_config() == {**theirs.get_config(), "name": ours.name}
    assert sorted(v.name.split("/")[-1].split(":")[0] for v in ours.variables) == sorted(
        v.path.split("/")[-1] for v in theirs.variables)


def test_every_keras_metrics_name_exists():
    keras = pytest.importorskip("keras", minversion="3")
    missing = sorted(n for n in dir(keras.metrics) if not n.startswith("_") and not hasattr(ds.keras.metrics, n))
    assert missing == []


# values worked out by hand (these run without Keras)
KNOWN = [
    # confusion matrix [[1, 1], [1, 1]]: IoU of each class 1 / 3
    (lambda: metrics.IoU(2, [0]), [0, 0, 1, 1], [0, 1, 0, 1], None, 1 / 3),
    (lambda: metrics.MeanIoU(2), [0, 0, 1, 1], [0, 0, 0, 1], None, (2 / 3 + 1 / 2) / 2),
    # an ignored class and out-of-range ids count nowhere; class 1, absent, is left out of the mean
    (lambda: metrics.MeanIoU(2, ignore_class=1), [0, 1, 1, 7], [0, 0, 1, 0], None, 1.0),
    (lambda: metrics.BinaryIoU(target_class_ids=[1]), [1, 1, 0], [0.5, 0.4, 0.9], None, 1 / 3),
    (lambda: metrics.F1Score(average="micro", threshold=0.5), [[1, 0], [0, 1]], [[0.9, 0.2], [0.7, 0.6]], None,
     0.8),  # TP 2, FP 1, FN 0
    (lambda: metrics.FBetaScore(beta=2.0, threshold=0.5, average="micro"), [[1, 1]], [[0.9, 0.1]], None, 5 / 9),
    (lambda: metrics.PearsonCorrelation(), [[1.0, 2.0, 3.0]], [[2.0, 4.0, 6.5]], None, 4.5 / np.sqrt(2 * (2.1666667**2 + 0.1666667**2 + 2.3333333**2))),
    (lambda: metrics.PrecisionAtRecall(1.0, num_thresholds=3), [0, 1, 1, 0], [0.2, 0.6, 0.8, 0.7], None, 2 / 3),
]


@pytest.mark.parametrize("i", range(len(KNOWN)))
def test_known_values(i):
    make, t, p, sw, want = KNOWN[i]
    m = make()
    m.update_state(t, p, sample_weight=sw)
    assert float(m.result()) == pytest.approx(want, rel=1e-5)


@pytest.mark.parametrize("cls", ["IoU", "MeanIoU", "BinaryIoU", "F1Score", "FBetaScore", "PearsonCorrelation",
                                 "PrecisionAtRecall", "SpecificityAtSensitivity"])
def test_config_round_trip_and_lookup(cls):
    args = {"IoU": (3, [1]), "MeanIoU": (3,), "PrecisionAtRecall": (0.4,), "SpecificityAtSensitivity": (0.2,)}
    m = getattr(metrics, cls)(*args.get(cls, ()))
    again = metrics.deserialize(metrics.serialize(m))
    assert type(again) is type(m) and again.get_config() == m.get_config()
    assert type(metrics.get(cls)) is type(m) if cls not in args else True


@pytest.mark.parametrize("name", sorted(CASES))
def test_update_reset_round_trip(name):
    make, t, p, sw = CASES[name]
    m = make(metrics)
    assert isinstance(m(t, p, sample_weight=sw), ds.Tensor)
    assert m.variables and all(not v.trainable and v.path.startswith(m.name + "/") for v in m.variables)
    first = np.asarray(m.result())
    m.reset_state()
    assert all(np.all(v.numpy() == 0) for v in m.variables)
    again = type(m).from_config(m.get_config())
    assert again.get_config() == m.get_config()
    np.testing.assert_array_equal(np.asarray(again(t, p, sample_weight=sw)), first)


BAD = [
    (lambda: metrics.IoU(3, [3]), ValueError, r"target class ids must be in \[0, 3\)"),
    (lambda: metrics.IoU(3, []), ValueError, "non-empty"),
    (lambda: metrics.MeanIoU(0), ValueError, "num_classes"),
    (lambda: metrics.MeanIoU(2, ignore_class=0.5), ValueError, "ignore_class"),
    (lambda: metrics.MeanIoU(2).update_state([0, 1, 1], [0, 1]), ValueError, "as many class ids"),
    (lambda: metrics.F1Score(average="mean"), ValueError, "average"),
    (lambda: metrics.FBetaScore(beta=2), ValueError, "beta"),
    (lambda: metrics.FBetaScore(beta=-1.0), ValueError, "> 0"),
    (lambda: metrics.F1Score(threshold=1.5), ValueError, "threshold"),
    (lambda: metrics.F1Score().update_state([1, 0], [0.3, 0.7]), ValueError, "2D"),
    (lambda: metrics.PrecisionAtRecall(1.5), ValueError, "recall"),
    (lambda: metrics.SensitivityAtSpecificity(0.5, num_thresholds=0), ValueError, "num_thresholds"),
]


@pytest.mark.parametrize("i", range(len(BAD)))
def test_bad_inputs(i):
    fn, exc, match = BAD[i]
    with pytest.raises(exc, match=match):
        fn()


def test_fscore_state_is_unchanged_by_a_rejected_update():
    m = metrics.F1Score(threshold=0.5)
    m.update_state([[1.0, 0.0]], [[0.9, 0.1]])
    before = [v.numpy().copy() for v in m.variables]
    with pytest.raises(ValueError):
        m.update_state([[1.0, 0.0, 1.0]], [[0.9, 0.1, 0.2]])
    assert all(np.array_equal(a, v.numpy()) for a, v in zip(before, m.variables))
