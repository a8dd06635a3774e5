"""descend.metrics against hand-computed values over several weighted batches, AUC against a
direct NumPy implementation of Keras's formulas (and an exact rank-based AUC), tape safety,
state variables, lookup, and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
import descend.losses as losses
import descend.metrics as metrics

rng = np.random.default_rng(11)


def batches(n_batches, make):
    return [make(i) for i in range(n_batches)]


# ---------------------------------------------------------------- Mean, Sum
@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # (1e30 as float16)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_mean_of_one_value_at_a_time_has_the_bits_of_one_element_batches(dtype):
    # fit records its loss as one value weighted by the batch's rows, every step; that takes a shorter path
    # than a batch of values: the same sums, bit for bit, NaN, infinities, zero and negative weights included
    values = [0.1, 2.5e-8, -3.0, 7.25, np.nan, 1.0, np.inf, 1e30, -1e-3, 5.0]
    weights = [32.0, 0.0, 7.0, -1.0, 1.0, 3.5, 2.0, 1.0, 0.5, None]
    for skip in (None, 4, 6):  # without the NaN, without the inf, and all of them
        scalar, batched = metrics.Mean(dtype=dtype), metrics.Mean(dtype=dtype)
        for k, (v, w) in enumerate(zip(values, weights)):
            if skip is not None and k >= skip:
                break
            as_tensor = k % 2 == 0
            scalar.update_state(ds.constant(np.float32(v)) if as_tensor else v,
                                sample_weight=None if w is None else (ds.constant(np.float32(w)) if as_tensor else w))
            batched.update_state(np.array([v], np.float32),
                                 sample_weight=None if w is None else np.array([w], np.float32))
            for a, b in ((scalar.total, batched.total), (scalar.count, batched.count)):
                assert a.numpy().tobytes() == b.numpy().tobytes()
            assert scalar.result().numpy().tobytes() == batched.result().numpy().tobytes()
    zero = metrics.Mean(dtype=dtype)
    assert zero.result().numpy().tobytes() == np.zeros((), dtype).tobytes()  # 0 / 0 is 0


def test_mean_over_weighted_batches_and_reset():
    m = metrics.Mean()
    assert [v.path for v in m.variables] == ["mean/total", "mean/count"]
    assert all(not v.trainable for v in m.variables)
    data = [(rng.normal(size=5), rng.uniform(size=5)) for _ in range(3)]
    for values, sw in data:
        m.update_state(values, sample_weight=sw)
    total = sum((v * w).sum() for v, w in data)
    count = sum(w.sum() for _, w in data)
    assert float(m.result()) == pytest.approx(total / count, rel=1e-5)
    m.update_state(7.0)  # a scalar is one sample
    assert float(m.result()) == pytest.approx((total + 7) / (count + 1), rel=1e-5)
    m.reset_state()
    assert float(m.result()) == 0.0 and float(m.count.numpy()) == 0.0
    # rank-2 values: each sample is the mean of its row
    m.update_state([[1.0, 3.0], [5.0, 7.0]])
    m.update_state([[0.0, 2.0]], sample_weight=[3.0])
    assert float(m.result()) == pytest.approx((2 + 6 + 3 * 1) / 5)
    m.reset_states()
    assert float(m(np.array([2.0, 4.0]))) == 3.0


def test_sum():
    m = metrics.Sum()
    m.update_state([1, 3, 5, 7], sample_weight=[1, 1, 0, 0])
    m.update_state([[1.0, 2.0]])
    assert float(m.result()) == 7.0
    assert m.result().dtype == ds.float32


# ---------------------------------------------------------------- accuracies
def _weighted_mean(per_sample_batches):
    num = sum((v * w).sum() for v, w in per_sample_batches)
    return num / sum(w.sum() for _, w in per_sample_batches)


def test_accuracy_and_binary_accuracy_over_batches():
    acc, bin_acc, bin_acc_3 = metrics.Accuracy(), metrics.BinaryAccuracy(), metrics.BinaryAccuracy(threshold=0.3)
    seen = {"acc": [], "bin": [], "bin3": []}
    for n in (4, 6, 3):
        t = rng.integers(0, 2, n)
        p_int = rng.integers(0, 2, n)
        p = rng.uniform(size=n)
        sw = rng.uniform(size=n)
        acc.update_state(t, p_int, sample_weight=sw)  # rank 1: one value per sample
        bin_acc.update_state(t[:, None], p[:, None], sample_weight=sw)
        bin_acc_3.update_state(t, p, sample_weight=sw)
        seen["acc"].append(((t == p_int).astype(float), sw))
        seen["bin"].append(((t == (p > 0.5)).astype(float), sw))
        seen["bin3"].append(((t == (p > 0.3)).astype(float), sw))
    assert float(acc.result()) == pytest.approx(_weighted_mean(seen["acc"]), rel=1e-5)
    assert float(bin_acc.result()) == pytest.approx(_weighted_mean(seen["bin"]), rel=1e-5)
    assert float(bin_acc_3.result()) == pytest.approx(_weighted_mean(seen["bin3"]), rel=1e-5)
    # multi-label rows average over the last axis first
    m = metrics.BinaryAccuracy()
    m.update_state([[1, 0, 1], [0, 0, 1]], [[0.9, 0.2, 0.1], [0.1, 0.7, 0.8]], sample_weight=[1.0, 3.0])
    assert float(m.result()) == pytest.approx((2 / 3 + 3 * 2 / 3) / 4, rel=1e-6)
    # Keras's documented values
    m = metrics.BinaryAccuracy()
    m.update_state([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]], sample_weight=[1, 0, 0, 1])
    assert float(m.result()) == 0.5
    m = metrics.BinaryAccuracy()
    m.update_state([1, 1, 0, 0], [[0.98], [1], [0], [0.6]])  # (n,) against (n, 1)
    assert float(m.result()) == 0.75
    # threshold 0 for logits
    assert float(metrics.BinaryAccuracy(threshold=0.0)([1, 0, 1], [2.5, -0.3, -1.0])) == pytest.approx(2 / 3)


def test_categorical_sparse_and_top_k_accuracy_over_batches():
    cat, sparse = metrics.CategoricalAccuracy(), metrics.SparseCategoricalAccuracy()
    top2, sparse_top2 = metrics.TopKCategoricalAccuracy(k=2), metrics.SparseTopKCategoricalAccuracy(k=2)
    seen = {"top1": [], "top2": []}
    for n in (5, 2, 4):
        labels = rng.integers(0, 4, n)
        logits = rng.normal(size=(n, 4))
        sw = rng.uniform(size=n)
        cat.update_state(np.eye(4)[labels], logits, sample_weight=sw)
        sparse.update_state(labels[:, None], logits, sample_weight=sw)
        top2.update_state(np.eye(4)[labels], logits, sample_weight=sw)
        sparse_top2.update_state(labels, logits, sample_weight=sw)
        rank = (logits > logits[np.arange(n), labels][:, None]).sum(axis=1)
        seen["top1"].append(((rank == 0).astype(float), sw))
        seen["top2"].append(((rank < 2).astype(float), sw))
    for m, key in [(cat, "top1"), (sparse, "top1"), (top2, "top2"), (sparse_top2, "top2")]:
        assert float(m.result()) == pytest.approx(_weighted_mean(seen[key]), rel=1e-5), m.name
    # ties straddling the top-k boundary count as in (tf.math.in_top_k)
    assert float(metrics.SparseTopKCategoricalAccuracy(k=1)([1, 0], [[0.5, 0.5, 0.0], [0.2, 0.4, 0.4]])) == 0.5
    # sequence labels: per-timestep matches, averaged per sample
    m = metrics.SparseCategoricalAccuracy()
    m.update_state([[0, 1], [1, 1]], [[[0.9, 0.1], [0.8, 0.2]], [[0.1, 0.9], [0.3, 0.7]]], sample_weight=[1, 2])
    assert float(m.result()) == pytest.approx((0.5 + 2 * 1.0) / 3)


def test_regression_and_crossentropy_metrics():
    mse, mae, rmse = metrics.MeanSquaredError(), metrics.MeanAbsoluteError(), metrics.RootMeanSquaredError()
    se_batches, ae_batches = [], []
    for n in (3, 5):
        t, p, sw = rng.normal(size=(n, 2)), rng.normal(size=(n, 2)), rng.uniform(size=n)
        for m in (mse, mae, rmse):
            m.update_state(t, p, sample_weight=sw)
        se_batches.append((((t - p) ** 2).mean(-1), sw))
        ae_batches.append((np.abs(t - p).mean(-1), sw))
    assert float(mse.result()) == pytest.approx(_weighted_mean(se_batches), rel=1e-5)
    assert float(mae.result()) == pytest.approx(_weighted_mean(ae_batches), rel=1e-5)
    assert float(rmse.result()) == pytest.approx(np.sqrt(_weighted_mean(se_batches)), rel=1e-5)
    m = metrics.MeanSquaredError()
    m.update_state([1.0, 2.0, 3.0], [1.0, 2.0, 5.0], sample_weight=[1.0, 1.0, 2.0])  # rank 1: per sample
    assert float(m.result()) == pytest.approx(2.0)
    labels, logits = rng.integers(0, 3, 6), rng.normal(size=(6, 3))
    sce = metrics.SparseCategoricalCrossentropy(from_logits=True)
    cce = metrics.CategoricalCrossentropy(from_logits=True)
    expected = losses.sparse_categorical_crossentropy(labels, logits, from_logits=True).numpy().mean()
    assert float(sce(labels, logits)) == pytest.approx(expected, rel=1e-5)
    assert float(cce(np.eye(3)[labels], logits)) == pytest.approx(expected, rel=1e-5)
    bce = metrics.BinaryCrossentropy()
    t, p = rng.integers(0, 2, (4, 2)), rng.uniform(0.1, 0.9, (4, 2))
    assert float(bce(t, p)) == pytest.approx(losses.binary_crossentropy(t, p).numpy().mean(), rel=1e-5)


# ---------------------------------------------------------------- confusion metrics
def counts_at(y_true, y_pred, thresholds, sw=None):
    """Direct weighted TP/FP/TN/FN with ``y_pred > t`` at each threshold."""
    y_true = np.asarray(y_true, bool).reshape(-1)
    y_pred = np.asarray(y_pred, np.float64).reshape(-1)
    w = np.ones_like(y_pred) if sw is None else np.broadcast_to(sw, y_pred.shape)
    out = {k: [] for k in ("tp", "fp", "tn", "fn")}
    for t in thresholds:
        pos = y_pred > t
        out["tp"].append(np.sum(w * (pos & y_true)))
        out["fp"].append(np.sum(w * (pos & ~y_true)))
        out["tn"].append(np.sum(w * (~pos & ~y_true)))
        out["fn"].append(np.sum(w * (~pos & y_true)))
    return {k: np.array(v) for k, v in out.items()}


def keras_auc_reference(c, curve="ROC", summation_method="interpolation"):
    """Keras's AUC formulas, written out directly from its documentation."""
    tp, fp, tn, fn = c["tp"], c["fp"], c["tn"], c["fn"]

    def div(a, b):
        return np.where(b == 0, 0.0, a / np.where(b == 0, 1.0, b))

    if curve == "PR" and summation_method == "interpolation":
        total = 0.0
        for i in range(len(tp) - 1):
            dtp = tp[i] - tp[i + 1]
            p_a, p_b = tp[i] + fp[i], tp[i + 1] + fp[i + 1]
            dp = p_a - p_b
            slope = dtp / dp if dp > 0 else 0.0
            intercept = tp[i + 1] - slope * p_b
            ratio = p_a / p_b if (p_a > 0 and p_b > 0) else 1.0
            pos = tp[i + 1] + fn[i + 1]
            total += slope * (dtp + intercept * np.log(ratio)) / pos if pos > 0 else 0.0
        return total
    recall = div(tp, tp + fn)
    x, y = (div(fp, fp + tn), recall) if curve == "ROC" else (recall, div(tp, tp + fp))
    heights = {"interpolation": (y[:-1] + y[1:]) / 2, "minoring": np.minimum(y[:-1], y[1:]),
               "majoring": np.maximum(y[:-1], y[1:])}[summation_method]
    return np.sum((x[:-1] - x[1:]) * heights)


def exact_auc(y_true, y_pred, sw):
    """Weighted Mann-Whitney AUC: P(score of a positive > score of a negative), ties half."""
    pos, neg = y_true == 1, y_true == 0
    sp, wp = y_pred[pos], sw[pos]
    sn, wn = y_pred[neg], sw[neg]
    greater = (sp[:, None] > sn[None, :]) + 0.5 * (sp[:, None] == sn[None, :])
    return np.sum(wp[:, None] * wn[None, :] * greater) / (wp.sum() * wn.sum())


def auc_thresholds(n):
    return [-1e-7] + [(i + 1) / (n - 1) for i in range(n - 2)] + [1 + 1e-7]


def auc_data(n_batches=3, n=400):
    out = []
    for _ in range(n_batches):
        y = rng.integers(0, 2, n)
        # informative but noisy scores in [0, 1], with exact 0s and 1s mixed in
        p = np.clip(0.35 * y + rng.uniform(0, 0.65, n), 0, 1).astype(np.float32)
        p[:5] = 0.0
        p[5:10] = 1.0
        out.append((y, p, rng.uniform(0.2, 2.0, n)))
    return out


@pytest.mark.parametrize("curve,method", [("ROC", "interpolation"), ("PR", "interpolation"), ("ROC", "minoring"),
                                          ("ROC", "majoring"), ("PR", "minoring"), ("PR", "majoring")])
def test_auc_matches_keras_formula_on_random_data(curve, method):
    data = auc_data()
    m = metrics.AUC(curve=curve, summation_method=method)
    for y, p, sw in data:
        m.update_state(y, p, sample_weight=sw)
    y_all = np.concatenate([d[0] for d in data])
    p_all = np.concatenate([d[1] for d in data])
    sw_all = np.concatenate([d[2] for d in data])
    c = counts_at(y_all, p_all, np.float32(auc_thresholds(200)), sw_all)
    for key, var in [("tp", m.true_positives), ("fp", m.false_positives), ("tn", m.true_negatives),
                     ("fn", m.false_negatives)]:
        np.testing.assert_allclose(var.numpy(), c[key], rtol=1e-5, atol=1e-3)
    expected = keras_auc_reference(c, curve, method)
    assert float(m.result()) == pytest.approx(expected, rel=1e-4)
    if curve == "ROC" and method == "interpolation":
        assert float(m.result()) == pytest.approx(exact_auc(y_all, p_all, sw_all), abs=5e-3)


def test_auc_documented_example_and_reset():
    m = metrics.AUC(num_thresholds=3)
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9])
    np.testing.assert_allclose(m.true_positives.numpy(), [2, 1, 0])
    np.testing.assert_allclose(m.false_positives.numpy(), [2, 0, 0])
    assert float(m.result()) == 0.75
    m.reset_state()
    assert np.all(m.true_positives.numpy() == 0)
    m.update_state([0, 0, 1, 1], [0, 0.5, 0.3, 0.9], sample_weight=[1, 0, 0, 1])
    assert float(m.result()) == 1.0
    assert [v.path for v in m.variables] == ["auc/true_positives", "auc/false_positives", "auc/true_negatives",
                                             "auc/false_negatives"]


def test_auc_explicit_thresholds_logits_and_multi_label():
    y, p, sw = auc_data(1, 300)[0]
    thresholds = [0.1, 0.25, 0.4, 0.8]  # uneven: compared directly
    m = metrics.AUC(thresholds=thresholds)
    m.update_state(y, p, sample_weight=sw)
    c = counts_at(y, p, np.float32([-1e-7] + thresholds + [1 + 1e-7]), sw)
    np.testing.assert_allclose(m.true_positives.numpy(), c["tp"], rtol=1e-5)
    assert float(m.result()) == pytest.approx(keras_auc_reference(c), rel=1e-5)
    assert metrics.AUC.from_config(m.get_config()).thresholds == m.thresholds
    # even explicit thresholds take the bucket path and agree with the direct count
    even = metrics.AUC(thresholds=[0.25, 0.5, 0.75])
    even.update_state(y, p, sample_weight=sw)
    c = counts_at(y, p, np.float32([-1e-7, 0.25, 0.5, 0.75, 1 + 1e-7]), sw)
    np.testing.assert_allclose(even.false_positives.numpy(), c["fp"], rtol=1e-5)
    # logits: the same as the sigmoid probabilities
    logits = rng.normal(size=50) * 3
    y2 = rng.integers(0, 2, 50)
    a, b = metrics.AUC(from_logits=True), metrics.AUC()
    a.update_state(y2, logits)
    b.update_state(y2, 1 / (1 + np.exp(-logits)))
    assert float(a.result()) == pytest.approx(float(b.result()), abs=1e-6)
    # multi-label: one AUC per column, averaged (weighted by label_weights)
    Y = rng.integers(0, 2, (200, 3))
    P = np.clip(0.3 * Y + rng.uniform(0, 0.7, (200, 3)), 0, 1)
    lw = np.array([1.0, 2.0, 0.5])
    ml = metrics.AUC(multi_label=True, label_weights=lw)
    ml.update_state(Y, P)
    per_label = []
    for j in range(3):
        single = metrics.AUC()
        single.update_state(Y[:, j], P[:, j])
        per_label.append(float(single.result()))
    assert float(ml.result()) == pytest.approx(np.dot(per_label, lw) / lw.sum(), rel=1e-5)
    assert ml.true_positives.shape == (200, 3)


def test_precision_recall_with_thresholds():
    thresholds = [0.0, 0.3, 0.55, 0.9]
    prec, rec = metrics.Precision(thresholds=thresholds), metrics.Recall(thresholds=thresholds)
    prec_even, rec_even = metrics.Precision(thresholds=[0.0, 0.5, 1.0]), metrics.Recall(thresholds=[0.0, 0.5, 1.0])
    p1, r1 = metrics.Precision(), metrics.Recall()
    ys, ps, sws = [], [], []
    for n in (10, 7, 12):
        y, p, sw = rng.integers(0, 2, n), rng.uniform(size=n).round(1), rng.uniform(size=n)
        p[0] = 0.0
        for m in (prec, rec, prec_even, rec_even, p1, r1):
            m.update_state(y, p, sample_weight=sw)
        ys.append(y), ps.append(p), sws.append(sw)
    y, p, sw = np.concatenate(ys), np.concatenate(ps), np.concatenate(sws)
    for m_p, m_r, thr in [(prec, rec, thresholds), (prec_even, rec_even, [0.0, 0.5, 1.0]), (p1, r1, [0.5])]:
        c = counts_at(y, p.astype(np.float32), np.float32(thr), sw)
        with np.errstate(invalid="ignore", divide="ignore"):
            exp_p = np.nan_to_num(c["tp"] / (c["tp"] + c["fp"]))
            exp_r = np.nan_to_num(c["tp"] / (c["tp"] + c["fn"]))
        if len(thr) == 1:
            exp_p, exp_r = exp_p[0], exp_r[0]
        np.testing.assert_allclose(m_p.result().numpy(), exp_p, rtol=1e-5)
        np.testing.assert_allclose(m_r.result().numpy(), exp_r, rtol=1e-5)
    assert prec.result().shape == (4,) and p1.result().shape == ()
    assert float(prec_even.result()[2]) == 0.0  # nothing is > 1.0


def test_precision_recall_top_k_class_id_and_documented_values():
    m = metrics.Precision()
    m.update_state([0, 1, 1, 1], [1, 0, 1, 1], sample_weight=[0, 0, 1, 0])
    assert float(m.result()) == 1.0
    assert float(metrics.Precision(top_k=2)([0, 0, 1, 1], [1, 1, 1, 1])) == 0.0
    assert float(metrics.Precision(top_k=4)([0, 0, 1, 1], [1, 1, 1, 1])) == 0.5
    y = [[0, 0, 1], [0, 1, 0], [1, 0, 0]]
    p = [[0.2, 0.7, 0.6], [0.1, 0.8, 0.1], [0.4, 0.5, 0.1]]
    # class 1 predicted (> 0.5) in rows 0 and 1; correct only in row 1
    assert float(metrics.Precision(class_id=1)(y, p)) == 0.5
    assert float(metrics.Recall(class_id=1)(y, p)) == 1.0
    # top-1 per row: classes 1, 1, 1 -> one hit of three; recall: 1 of 3 labels found
    assert float(metrics.Precision(top_k=1)(y, p)) == pytest.approx(1 / 3)
    assert float(metrics.Recall(top_k=1)(y, p)) == pytest.approx(1 / 3)
    for cls, expected in [(metrics.TruePositives, 2.0), (metrics.FalsePositives, 1.0),
                          (metrics.TrueNegatives, 0.0), (metrics.FalseNegatives, 1.0)]:
        assert float(cls()([0, 1, 1, 1], [1, 0, 1, 1])) == expected, cls.__name__
    tp = metrics.TruePositives(thresholds=[0.15, 0.5, 0.85])
    np.testing.assert_allclose(tp([0, 1, 1, 1], [0.1, 0.2, 0.6, 0.9]).numpy(), [3, 2, 1])


# ---------------------------------------------------------------- tapes
def test_metric_updates_inside_a_tape_record_nothing():
    w = ds.Variable(rng.normal(size=(3, 4)).astype(np.float32), name="w")
    x = ds.constant(rng.normal(size=(5, 3)).astype(np.float32))
    labels = rng.integers(0, 4, 5)
    loss_fn = losses.SparseCategoricalCrossentropy(from_logits=True)
    all_metrics = [metrics.SparseCategoricalAccuracy(), metrics.AUC(), metrics.Precision(), metrics.Mean(),
                   metrics.MeanSquaredError(), metrics.SparseCategoricalCrossentropy(from_logits=True),
                   metrics.TopKCategoricalAccuracy(k=2)]
    with ds.GradientTape() as tape:
        logits = ds.matmul(x, w)
        loss = loss_fn(labels, logits)
        probs = ds.nn.softmax(logits)
        n_entries = len(tape._entries)
        all_metrics[0].update_state(labels, logits)
        all_metrics[1].update_state(np.eye(4)[labels], probs)
        all_metrics[2].update_state(np.eye(4)[labels], probs)
        all_metrics[3].update_state(loss)
        all_metrics[4].update_state(np.eye(4)[labels], probs)
        all_metrics[5].update_state(labels, logits)
        all_metrics[6].update_state(np.eye(4)[labels], logits)
        all_metrics[4].update_state(np.zeros((3, 4), np.float32), w)  # a trainable Variable as y_pred
        assert len(tape._entries) == n_entries
    g = tape.gradient(loss, w)
    s = np.exp(logits.numpy() - logits.numpy().max(1, keepdims=True))
    s /= s.sum(1, keepdims=True)
    expected = x.numpy().T @ ((s - np.eye(4)[labels]) / 5)
    np.testing.assert_allclose(g.numpy(), expected, rtol=1e-4, atol=1e-6)
    for m in all_metrics:
        assert np.all(np.isfinite(m.result().numpy()))


def test_seed_001_training_loop():
    """Seed 001's custom training loop, imports changed, on a tiny linearly separable problem."""
    n_classes, dim = 3, 4
    centers = np.eye(n_classes, dim) * 5
    y_all = rng.integers(0, n_classes, 120)
    x_all = (centers[y_all] + rng.normal(size=(120, dim))).astype(np.float32)
    W = ds.Variable(np.zeros((dim, n_classes), np.float32), name="dense/kernel")
    b = ds.Variable(np.zeros((n_classes,), np.float32), name="dense/bias")

    def model(x, training=False):
        return ds.matmul(x, W) + b

    loss_function = losses.SparseCategoricalCrossentropy(from_logits=True)
    train_accuracy = metrics.SparseCategoricalAccuracy()
    val_acc_metric = metrics.SparseCategoricalAccuracy()
    history = []
    for _epoch in range(3):
        for step in range(4):
            x_batch, y_batch = x_all[step * 24:(step + 1) * 24], y_all[step * 24:(step + 1) * 24]
            with ds.GradientTape() as tape:
                logits = model(x_batch, training=True)
                loss_val = loss_function(y_batch, logits)
            grad = tape.gradient(loss_val, [W, b])
            for g, v in zip(grad, [W, b]):
                v.assign_sub(0.5 * g)
            train_accuracy.update_state(y_batch, logits)
        train_acc = train_accuracy.result()
        history.append(float(train_acc))
        train_accuracy.reset_states()
        val_logits = model(x_all[96:], training=False)
        val_acc_metric.update_state(y_all[96:], val_logits)
        val_acc = float(val_acc_metric.result())
        val_acc_metric.reset_states()
    assert history[-1] >= 0.9 and val_acc >= 0.9
    assert float(train_accuracy.result()) == 0.0  # reset
    assert train_accuracy.variables[0].path == "sparse_categorical_accuracy/total"
    assert val_acc_metric.variables[0].scoped_name == "sparse_categorical_accuracy/total_1"


# ---------------------------------------------------------------- API
def test_custom_metric_subclass():
    class BinaryTruePositives(metrics.Metric):
        def __init__(self, name="binary_true_positives", **kwargs):
            super().__init__(name=name, **kwargs)
            self.true_positives = self.add_variable(shape=(), initializer="zeros", name="true_positives")

        def update_state(self, y_true, y_pred, sample_weight=None):
            values = np.logical_and(np.asarray(y_true, bool), np.asarray(y_pred, bool)).astype(self.dtype)
            if sample_weight is not None:
                values = values * np.asarray(sample_weight, self.dtype)
            self.true_positives.assign_add(np.sum(values, dtype=self.dtype))

        def result(self):
            return self.true_positives.read_value()

    m = BinaryTruePositives()
    m.update_state([1, 1, 0], [1, 1, 1], sample_weight=[0.5, 1.0, 1.0])
    assert float(m.result()) == 1.5 and m.variables[0].path == "binary_true_positives/true_positives"
    m.reset_state()
    assert float(m.result()) == 0.0

    class Forgot(metrics.Metric):
        def __init__(self):
            self.v = self.add_variable(name="v")

    with pytest.raises(RuntimeError, match="super"):
        Forgot()

    class Composite(metrics.Metric):
        def __init__(self):
            super().__init__(name="composite")
            self.inner = metrics.Mean(name="composite_mean")
            self.extra = self.add_variable(name="extra")

    assert [v.path for v in Composite().variables] == ["composite/extra", "composite_mean/total",
                                                       "composite_mean/count"]


def test_dtype_config_round_trip_and_get():
    m = metrics.Mean(dtype="float64")
    m.update_state([0.1, 0.2])
    assert m.result().dtype == ds.float64 and m.variables[0].dtype == ds.float64
    for obj in [metrics.Accuracy(), metrics.BinaryAccuracy(threshold=0.7), metrics.TopKCategoricalAccuracy(k=3),
                metrics.AUC(num_thresholds=50, curve="PR"), metrics.Precision(thresholds=[0.2, 0.4], class_id=1),
                metrics.Recall(top_k=2), metrics.MeanSquaredError(), metrics.CategoricalCrossentropy(axis=-1),
                metrics.FalseNegatives(thresholds=0.3)]:
        config = obj.get_config()
        again = type(obj).from_config(config)
        assert again.get_config() == config and len(again.variables) == len(obj.variables)
        assert metrics.deserialize(metrics.serialize(obj)).get_config() == config
    assert isinstance(metrics.get("accuracy"), metrics.Accuracy)
    assert isinstance(metrics.get("acc"), metrics.Accuracy)
    assert isinstance(metrics.get("sparse_categorical_accuracy"), metrics.SparseCategoricalAccuracy)
    assert isinstance(metrics.get("AUC"), metrics.AUC) and isinstance(metrics.get("auc"), metrics.AUC)
    assert isinstance(metrics.get("mse"), metrics.MeanSquaredError)
    assert metrics.get({"class_name": "Precision", "config": {"thresholds": [0.1, 0.9]}}).thresholds == [0.1, 0.9]
    obj = metrics.Recall()
    assert metrics.get(obj) is obj and metrics.get(None) is None


@pytest.mark.parametrize("cls", [c for c in metrics.ALL_OBJECTS
                                 if c not in (metrics.Metric, metrics.MeanMetricWrapper)],
                         ids=lambda c: c.__name__)
def test_every_builtin_metric_updates_resets_and_round_trips(cls):
    m = cls()
    assert m.variables and all(not v.trainable for v in m.variables)
    assert all(v.path.startswith(m.name + "/") for v in m.variables)
    labels = np.array([0, 2, 1, 2])
    y_true, y_pred = np.eye(3)[labels], np.array([[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.2, 0.5, 0.3],
                                                   [0.5, 0.1, 0.4]])
    if cls in (metrics.SparseCategoricalAccuracy, metrics.SparseTopKCategoricalAccuracy,
               metrics.SparseCategoricalCrossentropy):
        y_true = labels
    if cls in (metrics.Mean, metrics.Sum):
        first = m(y_pred, sample_weight=[1.0, 2.0, 0.0, 1.0])
    else:
        first = m(y_true, y_pred, sample_weight=[1.0, 2.0, 0.0, 1.0])
    assert isinstance(first, ds.Tensor) and np.all(np.isfinite(first.numpy()))
    m.reset_state()
    assert all(np.all(v.numpy() == 0) for v in m.variables)
    again = cls.from_config(m.get_config())
    assert type(again) is cls and again.get_config() == m.get_config()
    assert isinstance(metrics.get(cls.__name__), cls)


# ---------------------------------------------------------------- bad inputs
def test_bad_inputs():
    with pytest.raises(ValueError, match=r"y_true.shape=\(3, 2\), y_pred.shape=\(3, 4\)"):
        metrics.CategoricalAccuracy().update_state(np.zeros((3, 2)), np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"y_true.shape=\(4,\), y_pred.shape=\(3, 5\)"):
        metrics.SparseCategoricalAccuracy().update_state([0, 1, 2, 3], np.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"y_true.shape=\(4,\), y_pred.shape=\(5,\)"):
        metrics.Accuracy().update_state([0, 1, 2, 3], [0, 1, 2, 3, 4])
    with pytest.raises(ValueError, match=r"y_true.shape=\(4,\), y_pred.shape=\(5,\)"):
        metrics.Precision().update_state([0, 1, 1, 0], [0.1, 0.2, 0.3, 0.4, 0.5])
    with pytest.raises(ValueError, match=r"y_true.shape"):
        metrics.MeanSquaredError().update_state(np.zeros((2, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="sample_weight of shape"):
        metrics.Mean().update_state([1.0, 2.0, 3.0], sample_weight=[1.0, 2.0])
    with pytest.raises(ValueError, match="threshold"):
        metrics.BinaryAccuracy(threshold=1.5)
    with pytest.raises(ValueError, match="threshold"):
        metrics.BinaryAccuracy(threshold=-0.1)
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        metrics.Precision(thresholds=[0.5, 1.2])
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]. Received: \[-1, 2\]$"):
        metrics.Recall(thresholds=[-1, 0.5, 2])  # the values as given, in Keras' words
    with pytest.raises(ValueError, match=r"Received: \[None, 'a'\]"):
        metrics.Precision(thresholds=[None, "a"])
    with pytest.raises(ValueError, match=r"When class_id is provided, y_pred must be a 2D array with shape "
                                         r"\(num_samples, num_classes\), found shape: \(3,\)"):
        metrics.Precision(class_id=1).update_state([1, 0, 1], [0.4, 0.6, 0.9])
    with pytest.raises(ValueError, match="num_thresholds"):
        metrics.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match="curve"):
        metrics.AUC(curve="XY")
    with pytest.raises(ValueError, match="summation"):
        metrics.AUC(summation_method="trapezoid")
    with pytest.raises(ValueError, match=r"Unknown metric 'acuracy'\. Known names: .*accuracy"):
        metrics.get("acuracy")
    with pytest.raises(ValueError, match="Could not interpret"):
        metrics.get(3)
    state = metrics.Mean()
    state.update_state([1.0, 3.0])
    with pytest.raises(ValueError):
        state.update_state([1.0], sample_weight=[[1.0, 2.0], [3.0, 4.0]])
    assert float(state.result()) == 2.0  # a failed update leaves the state alone


def _r2_reference(t, p, w, aggregation, k):
    """R2 from its definition in float64: per column, 1 - weighted SS_res / weighted SS_tot around the
    weighted mean; then the aggregation and the adjustment with n = every entry of y_true (rows times columns,
    weighted or not: Keras 3's count, checked on Keras' own values in tests/keras_suite)."""
    t, p, w = (np.asarray(a, np.float64) for a in (t, p, w))
    mean = (w * t).sum(0) / w.sum(0)
    ss_tot = (w * (t - mean) ** 2).sum(0)
    raw = 1 - (w * (t - p) ** 2).sum(0) / ss_tot
    score = {None: raw, "uniform_average": raw.mean(),
             "variance_weighted_average": (ss_tot * raw).sum() / ss_tot.sum()}[aggregation]
    n = t.size
    return score if k == 0 else 1 - (1 - score) * (n - 1) / (n - k - 1)


@pytest.mark.parametrize("aggregation", [None, "uniform_average", "variance_weighted_average"])
@pytest.mark.parametrize("k", [0, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_r2_score_over_batches_equals_its_definition(aggregation, k, weighted):
    rng = np.random.default_rng(5)
    t = rng.normal(size=(30, 3)) * [1.0, 3.0, 0.5]
    p = t + rng.normal(size=(30, 3)) * [0.5, 2.0, 0.6]
    w = rng.uniform(0, 2, size=(30, 1)) * (rng.uniform(size=(30, 1)) > 0.2) if weighted else np.ones((30, 1))
    m = metrics.R2Score(class_aggregation=aggregation, num_regressors=k, dtype="float64")
    for lo in range(0, 30, 7):  # uneven batches: the state is sums, not means of batch scores
        m.update_state(t[lo:lo + 7], p[lo:lo + 7], sample_weight=w[lo:lo + 7, 0] if weighted else None)
    np.testing.assert_allclose(m.result().numpy(), _r2_reference(t, p, np.broadcast_to(w, t.shape), aggregation, k),
                               rtol=1e-12)
    again = metrics.R2Score.from_config(m.get_config())
    assert (again.class_aggregation, again.num_regressors, again.name) == (aggregation, k, "r2_score")
    m.reset_state()
    m.update_state(t, t)
    assert float(np.mean(m.result().numpy())) == 1.0


def test_r2_score_documented_value_edges_and_errors():
    # Keras' documented example (scikit-learn gives the same 4/7)
    assert float(metrics.R2Score()([[1.0], [4.0], [3.0]], [[2.0], [4.0], [4.0]])) == pytest.approx(4 / 7, rel=1e-6)
    assert type(metrics.get("r2_score")) is metrics.R2Score and float(metrics.R2Score().result()) == 0.0
    m = metrics.R2Score(class_aggregation=None)
    m.update_state([[1.0, 2.0], [1.0, 3.0]], [[1.0, 2.0], [2.0, 3.0]])
    assert m.result().numpy().tolist() == [0.0, 1.0]  # a constant column scores 0, as Keras
    with pytest.warns(UserWarning, match="More independent predictors"):
        r = metrics.R2Score(num_regressors=5)([[1.0], [2.0], [4.0]], [[1.0], [2.0], [3.0]])
    assert float(r) == pytest.approx(1 - 1 / (14 / 3), rel=1e-6)  # the plain score
    with pytest.raises(ValueError, match="Invalid value for argument `class_aggregation`"):
        metrics.R2Score(class_aggregation="median")
    with pytest.raises(ValueError, match="Invalid value for argument `num_regressors`"):
        metrics.R2Score(num_regressors=-1)
    with pytest.raises(ValueError, match=r"expects 2D inputs with shape \(batch_size, output_dim\)"):
        metrics.R2Score().update_state([0.0, 1.0], [0.0, 1.0])
    m = metrics.R2Score()
    m.update_state([[1.0, 2.0]], [[1.0, 2.0]])
    with pytest.raises(ValueError, match="built for 2 output columns"):
        m.update_state([[1.0, 2.0, 3.0]], [[1.0, 2.0, 3.0]])


def test_accuracy_is_elementwise_so_weights_may_weigh_each_element():
    """Keras 3: accuracy and binary_accuracy compare element by element; the metric averages, so a weight
    per element (or per sample, broadcast) works."""
    np.testing.assert_array_equal(metrics.accuracy([[1, 2], [3, 4]], [[0, 2], [3, 4]]).numpy(), [[0, 1], [1, 1]])
    np.testing.assert_array_equal(metrics.binary_accuracy([[1, 0]], [[0.7, 0.6]]).numpy(), [[1, 0]])
    for cls, t, p in ((metrics.Accuracy, [[1, 2], [3, 4]], [[0, 2], [3, 4]]),
                      (metrics.BinaryAccuracy, [[1, 1], [0, 0]], [[0.2, 0.9], [0.1, 0.3]])):
        m = cls()
        m.update_state(t, p, sample_weight=[[1, 0], [0, 1]])
        assert float(m.result()) == 0.5  # (0*1 + 1*1) / 2 weight
        m = cls()
        m.update_state(t, p, sample_weight=[[0.5, 1.0]])  # broadcast over the rows
        assert float(m.result()) == pytest.approx((0 * 0.5 + 1 * 1 + 1 * 0.5 + 1 * 1) / 3)
        m = cls()
        m.update_state(t, p, sample_weight=[1.0, 0.0])  # one weight per sample: the first row only
        assert float(m.result()) == 0.5


def test_sparse_top_k_accuracy_from_sorted_ids():
    """``from_sorted_ids=True``: y_pred lists class ids best first; the target must be in the first k."""
    ids = np.array([[1, 0, 3], [1, 2, 3]])
    assert float(metrics.SparseTopKCategoricalAccuracy(k=1, from_sorted_ids=True)([2, 1], ids)) == 0.5
    m = metrics.SparseTopKCategoricalAccuracy(k=2, from_sorted_ids=True)
    m.update_state([2, 2], ids, sample_weight=[0.7, 0.3])
    assert float(m.result()) == pytest.approx(0.3)
    np.testing.assert_array_equal(
        metrics.sparse_top_k_categorical_accuracy([[3], [1]], ids, k=3, from_sorted_ids=True).numpy(), [1, 1])
    again = metrics.SparseTopKCategoricalAccuracy.from_config(m.get_config())
    assert again.from_sorted_ids is True and again.k == 2


def test_variables_held_in_attributes_lists_dicts_and_submetrics_are_tracked():
    """Keras 3 tracks state variables and metrics however a metric holds them (its metric_test)."""
    m = metrics.Mean(name="outer")
    own = list(m.variables)
    m.extra = [ds.Variable(0.0), {"a": ds.Variable(1.0), "b": (ds.Variable(2.0),)}]
    m.sub = metrics.Sum(name="inner")
    m.subs = {"x": metrics.Mean(name="m1"), "y": [metrics.Mean(name="m2")]}
    m.same = m.sub  # held twice: counted once
    assert len(m.variables) == len(own) + 3 + 1 + 2 + 2
    m.update_state([1.0, 3.0])
    m.sub.update_state([5.0])
    m.reset_state()  # resets everything tracked
    assert float(m.result()) == 0.0 and float(m.sub.result()) == 0.0 and float(m.extra[0].numpy()) == 0.0
    half = metrics.Mean(dtype=ds.mixed_precision.DTypePolicy("mixed_float16"))
    assert half.dtype == "float16"
