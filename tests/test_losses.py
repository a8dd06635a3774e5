"""descend.losses against hand-written NumPy references, Keras's documented values,
float64 gradient checks, reductions and sample weights, and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
import descend.losses as losses
from descend.testing import check_gradients

EPS = 1e-7
rng = np.random.default_rng(7)


@pytest.fixture(autouse=True)
def _float64_losses():
    """Loss objects compute in floatx (Keras 3): these float64 references and gradient checks make them in
    float64 (the conftest fixture restores floatx after each test)."""
    ds.set_floatx("float64")


# ---------------------------------------------------------------- NumPy references (per sample)
def _clip(p):
    return np.clip(p, EPS, 1 - EPS)


def _log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def ref_mse(t, p):
    return np.mean((t - p) ** 2, axis=-1)


def ref_mae(t, p):
    return np.mean(np.abs(t - p), axis=-1)


def ref_mape(t, p):
    return 100 * np.mean(np.abs((t - p) / np.maximum(np.abs(t), EPS)), axis=-1)


def ref_msle(t, p):
    return np.mean((np.log(np.maximum(p, EPS) + 1) - np.log(np.maximum(t, EPS) + 1)) ** 2, axis=-1)


def ref_huber(t, p, delta=1.0):
    e = np.abs(p - t)
    return np.mean(np.where(e <= delta, 0.5 * e**2, delta * e - 0.5 * delta**2), axis=-1)


def ref_log_cosh(t, p):
    return np.mean(np.log(np.cosh(p - t)), axis=-1)


def ref_cosine(t, p):
    tn = t / np.linalg.norm(t, axis=-1, keepdims=True)
    pn = p / np.linalg.norm(p, axis=-1, keepdims=True)
    return -np.sum(tn * pn, axis=-1)


def ref_kld(t, p):
    t, p = np.clip(t, EPS, 1), np.clip(p, EPS, 1)
    return np.sum(t * np.log(t / p), axis=-1)


def ref_poisson(t, p):
    return np.mean(p - t * np.log(p + EPS), axis=-1)


def ref_hinge(t, p):
    t = 2 * t - 1 if np.all((t == 0) | (t == 1)) else t
    return np.mean(np.maximum(1 - t * p, 0), axis=-1)


def ref_squared_hinge(t, p):
    t = 2 * t - 1 if np.all((t == 0) | (t == 1)) else t
    return np.mean(np.maximum(1 - t * p, 0) ** 2, axis=-1)


def ref_categorical_hinge(t, p):
    return np.maximum(np.max((1 - t) * p, axis=-1) - np.sum(t * p, axis=-1) + 1, 0)


def ref_bce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        # -t log s(x) - (1 - t) log(1 - s(x)) = softplus(x) - t x
        return np.mean(np.logaddexp(0, p) - t * p, axis=-1)
    q = _clip(p)
    return -np.mean(t * np.log(q) + (1 - t) * np.log(1 - q), axis=-1)


def ref_cce(t, p, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + label_smoothing / t.shape[-1]
    logp = _log_softmax(p) if from_logits else np.log(_clip(p / p.sum(axis=-1, keepdims=True)))
    return -np.sum(t * logp, axis=-1)


def ref_binary_focal(t, p, balance=False, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + 0.5 * label_smoothing
    p = 1 / (1 + np.exp(-p)) if from_logits else p
    q = _clip(p)
    bce = -(t * np.log(q) + (1 - t) * np.log(1 - q))
    focal = (1 - (t * p + (1 - t) * (1 - p))) ** gamma * bce
    if balance:
        focal = (t * alpha + (1 - t) * (1 - alpha)) * focal
    return np.mean(focal, axis=-1)


def ref_categorical_focal(t, p, alpha=0.25, gamma=2.0, from_logits=False, label_smoothing=0.0):
    t = t * (1 - label_smoothing) + label_smoothing / t.shape[-1]
    p = np.exp(_log_softmax(p)) if from_logits else p
    q = _clip(p / p.sum(axis=-1, keepdims=True))
    return np.sum(alpha * (1 - q) ** gamma * -t * np.log(q), axis=-1)


def ref_dice(t, p, axis=-1):
    return 1 - 2 * np.sum(t * p, axis=axis) / (np.sum(t, axis=axis) + np.sum(p, axis=axis) + 1e-7)


def ref_tversky(t, p, alpha=0.5, beta=0.5, axis=-1):
    # Keras 3's formula: alpha weighs the missed positives t (1 - p), beta the spurious ones (1 - t) p
    tp, missed, spurious = np.sum(t * p, axis=axis), np.sum(t * (1 - p), axis=axis), np.sum((1 - t) * p, axis=axis)
    return 1 - tp / (tp + alpha * missed + beta * spurious + 1e-7)


def ref_gce(labels, p, q=0.5):
    return (1 - p[np.arange(len(labels)), labels] ** q) / q


def ref_scce(labels, p, from_logits=False):
    logp = _log_softmax(p) if from_logits else np.log(_clip(p / p.sum(axis=-1, keepdims=True)))
    return -np.take_along_axis(logp, labels[..., None], axis=-1)[..., 0]


# ---------------------------------------------------------------- data
def probs(shape):
    return rng.uniform(0.05, 0.95, size=shape)


def dist(shape):
    p = rng.uniform(0.1, 1.0, size=shape)
    return p / p.sum(axis=-1, keepdims=True)


def one_hot(labels, n):
    return np.eye(n)[labels]


def normal(shape):
    return rng.normal(size=shape)


SHAPE = (4, 3)
LABELS = np.array([0, 2, 1, 2])

# name, class, class kwargs, function, function kwargs, reference, y_true, y_pred
CASES = [
    ("mse", losses.MeanSquaredError, {}, losses.mean_squared_error, {}, ref_mse, normal(SHAPE), normal(SHAPE)),
    ("mae", losses.MeanAbsoluteError, {}, losses.mean_absolute_error, {}, ref_mae, normal(SHAPE), normal(SHAPE)),
    ("mape", losses.MeanAbsolutePercentageError, {}, losses.mean_absolute_percentage_error, {}, ref_mape,
     normal(SHAPE) + 3, normal(SHAPE)),
    ("msle", losses.MeanSquaredLogarithmicError, {}, losses.mean_squared_logarithmic_error, {}, ref_msle,
     probs(SHAPE) * 3, probs(SHAPE) * 3),
    ("huber", losses.Huber, {"delta": 0.7}, losses.huber, {"delta": 0.7},
     lambda t, p: ref_huber(t, p, 0.7), normal(SHAPE), normal(SHAPE)),
    ("log_cosh", losses.LogCosh, {}, losses.log_cosh, {}, ref_log_cosh, normal(SHAPE), normal(SHAPE)),
    ("cosine", losses.CosineSimilarity, {}, losses.cosine_similarity, {}, ref_cosine, normal(SHAPE),
     normal(SHAPE)),
    ("kld", losses.KLDivergence, {}, losses.kl_divergence, {}, ref_kld, dist(SHAPE), dist(SHAPE)),
    ("poisson", losses.Poisson, {}, losses.poisson, {}, ref_poisson, probs(SHAPE) * 4, probs(SHAPE) * 4),
    ("hinge", losses.Hinge, {}, losses.hinge, {}, ref_hinge, rng.integers(0, 2, SHAPE).astype(float),
     normal(SHAPE)),
    ("squared_hinge", losses.SquaredHinge, {}, losses.squared_hinge, {}, ref_squared_hinge,
     rng.choice([-1.0, 1.0], SHAPE), normal(SHAPE)),
    ("categorical_hinge", losses.CategoricalHinge, {}, losses.categorical_hinge, {}, ref_categorical_hinge,
     one_hot(LABELS, 3), normal(SHAPE)),
    ("bce", losses.BinaryCrossentropy, {}, losses.binary_crossentropy, {}, ref_bce,
     rng.integers(0, 2, SHAPE).astype(float), probs(SHAPE)),
    ("bce_logits", losses.BinaryCrossentropy, {"from_logits": True}, losses.binary_crossentropy,
     {"from_logits": True}, lambda t, p: ref_bce(t, p, True), rng.integers(0, 2, SHAPE).astype(float),
     normal(SHAPE) * 3),
    ("bce_smooth", losses.BinaryCrossentropy, {"label_smoothing": 0.2}, losses.binary_crossentropy,
     {"label_smoothing": 0.2}, lambda t, p: ref_bce(t, p, label_smoothing=0.2),
     rng.integers(0, 2, SHAPE).astype(float), probs(SHAPE)),
    ("bce_logits_smooth", losses.BinaryCrossentropy, {"from_logits": True, "label_smoothing": 0.1},
     losses.binary_crossentropy, {"from_logits": True, "label_smoothing": 0.1},
     lambda t, p: ref_bce(t, p, True, 0.1), rng.integers(0, 2, SHAPE).astype(float), normal(SHAPE)),
    ("cce", losses.CategoricalCrossentropy, {}, losses.categorical_crossentropy, {}, ref_cce,
     one_hot(LABELS, 3), dist(SHAPE)),
    ("cce_unnormalised", losses.CategoricalCrossentropy, {}, losses.categorical_crossentropy, {}, ref_cce,
     one_hot(LABELS, 3), probs(SHAPE)),
    ("cce_logits", losses.CategoricalCrossentropy, {"from_logits": True}, losses.categorical_crossentropy,
     {"from_logits": True}, lambda t, p: ref_cce(t, p, True), one_hot(LABELS, 3), normal(SHAPE) * 3),
    ("cce_smooth", losses.CategoricalCrossentropy, {"label_smoothing": 0.3}, losses.categorical_crossentropy,
     {"label_smoothing": 0.3}, lambda t, p: ref_cce(t, p, label_smoothing=0.3), one_hot(LABELS, 3),
     dist(SHAPE)),
    ("cce_logits_smooth", losses.CategoricalCrossentropy, {"from_logits": True, "label_smoothing": 0.1},
     losses.categorical_crossentropy, {"from_logits": True, "label_smoothing": 0.1},
     lambda t, p: ref_cce(t, p, True, 0.1), dist(SHAPE), normal(SHAPE)),
    ("binary_focal", losses.BinaryFocalCrossentropy, {}, losses.binary_focal_crossentropy, {}, ref_binary_focal,
     rng.integers(0, 2, SHAPE).astype(float), probs(SHAPE)),
    ("binary_focal_all", losses.BinaryFocalCrossentropy,
     {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5, "from_logits": True, "label_smoothing": 0.1},
     losses.binary_focal_crossentropy,
     {"apply_class_balancing": True, "alpha": 0.3, "gamma": 1.5, "from_logits": True, "label_smoothing": 0.1},
     lambda t, p: ref_binary_focal(t, p, True, 0.3, 1.5, True, 0.1), rng.integers(0, 2, SHAPE).astype(float),
     normal(SHAPE)),
    ("categorical_focal", losses.CategoricalFocalCrossentropy, {}, losses.categorical_focal_crossentropy, {},
     ref_categorical_focal, one_hot(LABELS, 3), dist(SHAPE)),
    ("categorical_focal_all", losses.CategoricalFocalCrossentropy,
     {"alpha": 0.5, "gamma": 1.0, "from_logits": True, "label_smoothing": 0.2}, losses.categorical_focal_crossentropy,
     {"alpha": 0.5, "gamma": 1.0, "from_logits": True, "label_smoothing": 0.2},
     lambda t, p: ref_categorical_focal(t, p, 0.5, 1.0, True, 0.2), one_hot(LABELS, 3), normal(SHAPE)),
    ("dice", losses.Dice, {"axis": -1}, losses.dice, {"axis": -1}, ref_dice, rng.integers(0, 2, SHAPE).astype(float),
     probs(SHAPE)),
    ("tversky", losses.Tversky, {"alpha": 0.3, "beta": 0.7, "axis": -1}, losses.tversky,
     {"alpha": 0.3, "beta": 0.7, "axis": -1}, lambda t, p: ref_tversky(t, p, 0.3, 0.7),
     rng.integers(0, 2, SHAPE).astype(float), probs(SHAPE)),
    ("generalized_ce", losses.CategoricalGeneralizedCrossEntropy, {"q": 0.4},
     losses.categorical_generalized_cross_entropy, {"q": 0.4}, lambda t, p: ref_gce(t, p, 0.4), LABELS,
     dist(SHAPE)),
    ("scce", losses.SparseCategoricalCrossentropy, {}, losses.sparse_categorical_crossentropy, {}, ref_scce,
     LABELS, dist(SHAPE)),
    ("scce_logits", losses.SparseCategoricalCrossentropy, {"from_logits": True},
     losses.sparse_categorical_crossentropy, {"from_logits": True}, lambda t, p: ref_scce(t, p, True),
     LABELS, normal(SHAPE) * 3),
]
IDS = [c[0] for c in CASES]

def ref_ctc(y_true, y_pred):
    """-log of the summed probability of every path that collapses (repeats merged, blanks 0 removed) to the
    labels: all classes ** steps paths enumerated."""
    import itertools

    out = []
    for labels, logits in zip(np.asarray(y_true), np.asarray(y_pred, np.float64)):
        probs = np.exp(logits - logits.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        want = [int(v) for v in labels if v != 0]
        total = 0.0
        for path in itertools.product(range(logits.shape[1]), repeat=logits.shape[0]):
            merged = [k for i, k in enumerate(path) if i == 0 or k != path[i - 1]]
            if [k for k in merged if k != 0] == want:
                total += np.prod(probs[np.arange(len(path)), path])
        out.append(-np.log(total))
    return np.array(out)


def ref_circle(y_true, y_pred, gamma=80.0, margin=0.4):
    labels = np.asarray(y_true)
    dist = np.maximum(1.0 - y_pred @ y_pred.T, 0.0)
    pos = (labels[:, None] == labels[None, :]) & ~np.eye(len(labels), dtype=bool)
    neg = labels[:, None] != labels[None, :]
    pos_terms = -gamma * np.maximum(margin + dist, 0.0) * (margin - dist)
    neg_terms = gamma * np.maximum(1.0 + margin - dist, 0.0) * (1.0 - margin - dist)
    lse = lambda v, m: np.log(np.sum(np.where(m, np.exp(v), 0.0), axis=1))  # noqa: E731
    return np.log1p(np.exp(lse(pos_terms, pos) + lse(neg_terms, neg)))


_CTC_LABELS = np.array([[1, 2, 0], [2, 2, 0], [0, 0, 0]])
CASES += [
    ("ctc", losses.CTC, {}, losses.ctc, {}, ref_ctc, _CTC_LABELS, normal((3, 4, 3))),
    ("circle", losses.Circle, {"gamma": 2.0, "margin": 0.25}, losses.circle, {"gamma": 2.0, "margin": 0.25},
     lambda t, p: ref_circle(t, p, 2.0, 0.25), np.array([0, 1, 0, 1]),
     (lambda e: e / np.linalg.norm(e, axis=1, keepdims=True))(normal(SHAPE))),
]
IDS = [c[0] for c in CASES]


def test_every_builtin_loss_is_in_the_table():
    in_table = {c[1] for c in CASES} | {c[3] for c in CASES}
    builtin = set(losses.ALL_OBJECTS) - {losses.Loss, losses.LossFunctionWrapper}
    assert builtin - in_table == set(), "add these losses to CASES"


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_function_matches_numpy(case):
    _, _, _, fn, fn_kwargs, ref, y_true, y_pred = case
    out = fn(y_true, ds.constant(y_pred, dtype="float64"), **fn_kwargs)
    assert out.dtype == ds.float64
    np.testing.assert_allclose(out.numpy(), ref(y_true, y_pred), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("reduction", ["sum_over_batch_size", "sum", "none", None, "auto", "mean",
                                       "mean_with_sample_weight"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_class_reductions_with_sample_weight(case, reduction):
    _, cls, kwargs, _, _, ref, y_true, y_pred = case
    per_sample = ref(y_true, y_pred)
    sw = rng.uniform(0.0, 2.0, size=per_sample.shape)
    loss = cls(reduction=reduction, **kwargs)
    out = loss(y_true, ds.constant(y_pred, dtype="float64"), sample_weight=sw).numpy()
    weighted = per_sample * sw
    expected = {
        "sum_over_batch_size": weighted.sum() / weighted.size, "auto": weighted.sum() / weighted.size,
        "mean": weighted.sum() / weighted.size, "sum": weighted.sum(), "none": weighted, None: weighted,
        "mean_with_sample_weight": weighted.sum() / sw.sum(),
    }[reduction]
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
    unweighted = cls(reduction=reduction, **kwargs)(y_true, ds.constant(y_pred, dtype="float64")).numpy()
    expected = per_sample if reduction in ("none", None) else (
        per_sample.sum() if reduction == "sum" else per_sample.mean())
    np.testing.assert_allclose(unweighted, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradient_wrt_predictions(case):
    _, cls, kwargs, fn, fn_kwargs, ref, y_true, y_pred = case
    sw = rng.uniform(0.5, 1.5, size=ref(y_true, y_pred).shape)  # one weight per sample
    assert check_gradients(lambda p: fn(y_true, p, **fn_kwargs), y_pred) < 1e-5
    for reduction in ("sum_over_batch_size", "sum"):
        loss = cls(reduction=reduction, **kwargs)
        assert check_gradients(lambda p, loss=loss: loss(y_true, p, sample_weight=sw), y_pred) < 1e-5


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_config_round_trip(case):
    _, cls, kwargs, _, _, _, y_true, y_pred = case
    loss = cls(reduction="sum", name="my_loss", **kwargs)
    config = loss.get_config()
    assert config["name"] == "my_loss" and config["reduction"] == "sum"
    for k, v in kwargs.items():
        assert config[k] == v
    again = cls.from_config(config)
    assert again.get_config() == config
    np.testing.assert_allclose(again(y_true, y_pred).numpy(), loss(y_true, y_pred).numpy())
    restored = losses.deserialize(losses.serialize(loss))
    assert type(restored) is cls and restored.get_config() == config


# ---------------------------------------------------------------- Keras's documented values
def test_keras_documented_values():
    y_true = np.array([[0, 1, 0], [0, 0, 1]])
    y_pred = np.array([[0.05, 0.95, 0], [0.1, 0.8, 0.1]])
    cce = losses.CategoricalCrossentropy()
    assert float(cce(y_true, y_pred)) == pytest.approx(1.177, abs=1e-3)
    assert float(cce(y_true, y_pred, sample_weight=np.array([0.3, 0.7]))) == pytest.approx(0.814, abs=1e-3)
    assert float(losses.CategoricalCrossentropy(reduction="sum")(y_true, y_pred)) == pytest.approx(2.354, abs=1e-3)
    np.testing.assert_allclose(losses.CategoricalCrossentropy(reduction=None)(y_true, y_pred).numpy(),
                               [0.0513, 2.303], atol=1e-3)
    scce = losses.SparseCategoricalCrossentropy()
    assert float(scce([1, 2], y_pred)) == pytest.approx(1.177, abs=1e-3)
    assert float(scce([1, 2], y_pred, sample_weight=np.array([0.3, 0.7]))) == pytest.approx(0.814, abs=1e-3)
    bce_true, bce_pred = [[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]]
    np.testing.assert_allclose(losses.binary_crossentropy(bce_true, bce_pred).numpy(), [0.916, 0.714], atol=1e-3)
    assert float(losses.BinaryCrossentropy()(bce_true, bce_pred)) == pytest.approx(0.815, abs=1e-3)
    assert float(losses.Huber()(bce_true, bce_pred)) == pytest.approx(0.155, abs=1e-3)
    assert float(losses.MeanSquaredError()(bce_true, bce_pred)) == pytest.approx(0.31, abs=1e-6)


def test_default_names_and_the_dtype_is_floatx_when_made():
    ds.set_floatx("float32")
    assert losses.MeanSquaredError().name == "mean_squared_error"
    assert losses.Huber().name == "huber_loss"
    assert losses.SparseCategoricalCrossentropy().name == "sparse_categorical_crossentropy"
    out = losses.MeanSquaredError()([[1, 2]], [[1, 3]])  # ints: computed in floatx
    assert out.dtype == ds.float32 and float(out) == 0.5
    # Keras 3: float64 data gives a float32 loss unless the loss's dtype says otherwise
    mse = losses.MeanSquaredError()
    assert mse.dtype == "float32" and "dtype" not in mse.get_config()
    assert mse(np.array([[1.0]]), np.array([[2.5]])).dtype == ds.float32
    out = losses.MeanSquaredError(dtype="float64")(ds.constant([[1.0]]), ds.constant([[2.0]]))
    assert out.dtype == ds.float64
    assert losses.MeanSquaredError(dtype=ds.mixed_precision.DTypePolicy("mixed_float16")).dtype == "float16"
    ds.set_floatx("float64")
    assert losses.MeanSquaredError().dtype == "float64"  # floatx when the loss is made
    v = ds.Variable(np.array([[2.0]]))  # float64 weights, float32 loss: the gradient comes back as float64
    with ds.GradientTape() as tape:
        value = losses.MeanSquaredError(dtype="float32")(np.array([[1.0]]), v * 1.0)
    assert value.dtype == ds.float32 and tape.gradient(value, v).dtype == ds.float64


def test_a_keras_mask_on_predictions_leaves_the_masked_entries_out():
    """Keras 3's Loss reads the mask attached to y_pred (its loss_test.test_mask)."""
    y_true, y_pred = ds.constant([1.0, 0.0, 1.0, 0.0]), ds.constant([0.1, 0.2, 0.3, 0.4])

    class Squared(losses.Loss):
        def call(self, t, p):
            return (t - p) ** 2

    ds.layers.set_mask(y_pred, np.array([True, False, True, True]))
    expected = ((1 - 0.1) ** 2 + (1 - 0.3) ** 2 + 0.4**2) / 3
    assert float(Squared()(y_true, y_pred)) == pytest.approx(expected, rel=1e-6)
    ds.layers.set_mask(y_pred, np.array([False] * 4))
    assert float(Squared()(y_true, y_pred)) == 0.0  # everything masked: 0, not NaN
    ds.layers.set_mask(y_pred, None)
    assert ds.layers.get_mask(y_pred) is None
    assert float(Squared()(y_true, y_pred)) == pytest.approx(np.mean((np.array([1, 0, 1, 0]) -
                                                                      np.array([0.1, 0.2, 0.3, 0.4])) ** 2), rel=1e-6)


# ---------------------------------------------------------------- stability
def test_large_logits_stay_finite_and_exact():
    x = ds.constant([[1e4, -1e4, 3e3]], dtype="float32")
    bce = losses.binary_crossentropy([[1.0, 0.0, 0.0]], x, from_logits=True)
    np.testing.assert_allclose(bce.numpy(), [1e3], rtol=1e-6)  # mean(0, 0, 3000)
    cce = losses.categorical_crossentropy([[0.0, 1.0, 0.0]], x, from_logits=True)
    np.testing.assert_allclose(cce.numpy(), [2e4], rtol=1e-6)
    scce = losses.sparse_categorical_crossentropy([2], x, from_logits=True)
    np.testing.assert_allclose(scce.numpy(), [7e3], rtol=1e-6)
    for loss, y in [(losses.BinaryCrossentropy(from_logits=True), [[1.0, 0.0, 0.0]]),
                    (losses.CategoricalCrossentropy(from_logits=True), [[0.0, 1.0, 0.0]]),
                    (losses.SparseCategoricalCrossentropy(from_logits=True), [2])]:
        v = ds.Variable(x)
        with ds.GradientTape() as tape:
            value = loss(y, v)
        g = tape.gradient(value, v).numpy()
        assert np.isfinite(float(value)) and np.all(np.isfinite(g))


def test_probabilities_are_clipped_as_keras():
    # p = 0 for the true class: -log(1e-7), not inf
    out = losses.binary_crossentropy([[1.0]], [[0.0]])
    np.testing.assert_allclose(out.numpy(), [-np.log(np.float32(1e-7))], rtol=1e-5)
    out = losses.categorical_crossentropy([[1.0, 0.0]], [[0.0, 1.0]])
    assert np.isfinite(out.numpy()).all() and out.numpy()[0] == pytest.approx(16.118, abs=1e-3)
    v = ds.Variable([[0.0, 1.0]])
    with ds.GradientTape() as tape:
        value = losses.CategoricalCrossentropy()([[1.0, 0.0]], v)
    assert np.all(np.isfinite(tape.gradient(value, v).numpy()))


def test_from_logits_agrees_with_probabilities():
    logits = normal((5, 4))
    t_bin = rng.integers(0, 2, (5, 4)).astype(float)
    sig = 1 / (1 + np.exp(-logits))
    np.testing.assert_allclose(losses.binary_crossentropy(t_bin, logits, from_logits=True).numpy(),
                               losses.binary_crossentropy(t_bin, sig).numpy(), rtol=1e-6)
    soft = np.exp(_log_softmax(logits))
    labels = rng.integers(0, 4, 5)
    np.testing.assert_allclose(losses.sparse_categorical_crossentropy(labels, logits, from_logits=True).numpy(),
                               losses.sparse_categorical_crossentropy(labels, soft).numpy(), rtol=1e-6)
    np.testing.assert_allclose(
        losses.categorical_crossentropy(one_hot(labels, 4), logits, from_logits=True).numpy(),
        losses.categorical_crossentropy(one_hot(labels, 4), soft).numpy(), rtol=1e-6)


# ---------------------------------------------------------------- shapes and weights
def test_rank_alignment_and_trailing_unit_axes():
    t = np.array([1.0, 0.0, 2.0])
    p = np.array([[1.5], [0.0], [1.0]])
    np.testing.assert_allclose(losses.mean_squared_error(t, p).numpy(), [0.25, 0.0, 1.0])
    # sparse labels with a trailing 1
    np.testing.assert_allclose(losses.sparse_categorical_crossentropy([[1], [0]], [[0.2, 0.8], [0.6, 0.4]]).numpy(),
                               -np.log([0.8, 0.6]), rtol=1e-6)
    # 1-D inputs: one loss (the mean over the last axis), as Keras
    assert losses.mean_squared_error([1.0, 2.0], [1.0, 4.0]).numpy() == pytest.approx(2.0)


def test_per_sample_weights_on_per_timestep_losses():
    labels = rng.integers(0, 3, (2, 4))
    logits = normal((2, 4, 3))
    sw = np.array([1.0, 3.0])
    per_step = ref_scce(labels, logits, True)
    out = losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits, sample_weight=sw)
    np.testing.assert_allclose(float(out), (per_step * sw[:, None]).sum() / per_step.size, rtol=1e-6)
    sw_steps = rng.uniform(size=(2, 4))
    out = losses.SparseCategoricalCrossentropy(from_logits=True, reduction="sum")(labels, logits, sw_steps)
    np.testing.assert_allclose(float(out), (per_step * sw_steps).sum(), rtol=1e-6)


@pytest.mark.parametrize("sw", [2.0, np.array([[1.0], [0.0], [3.0]]), np.array([1.0, 0.0, 3.0])])
def test_sample_weight_shapes(sw):
    t, p = normal((3, 2)), normal((3, 2))
    expected = ref_mse(t, p) * np.reshape(sw, (-1,)) if np.ndim(sw) else ref_mse(t, p) * sw
    out = losses.MeanSquaredError(reduction="none")(t, p, sample_weight=sw)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-6)  # the losses keep their shape (3,)

    class Column(losses.Loss):  # per-sample losses of shape (n, 1)
        def call(self, y_true, y_pred):
            return ds.reduce_mean(ds.square(y_true - y_pred), axis=-1, keepdims=True)

    out = Column(reduction="none")(t, p, sample_weight=sw)
    np.testing.assert_allclose(out.numpy(), expected[:, None], rtol=1e-6)


def test_ignore_class_leaves_samples_out_of_the_mean():
    labels = np.array([0, -1, 2, -1])
    logits = normal((4, 3))
    per = ref_scce(np.where(labels < 0, 0, labels), logits, True)
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    np.testing.assert_allclose(float(loss(labels, logits)), per[[0, 2]].mean(), rtol=1e-6)
    none = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1, reduction="none")
    np.testing.assert_allclose(none(labels, logits).numpy(), [per[0], 0.0, per[2], 0.0], rtol=1e-6)
    summed = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1, reduction="sum")
    sw = np.array([1.0, 5.0, 2.0, 5.0])
    np.testing.assert_allclose(float(summed(labels, logits, sw)), per[0] + 2 * per[2], rtol=1e-6)
    # probabilities: ignored rows give no NaN, in the value or the gradient
    v = ds.Variable(dist((4, 3)))
    with ds.GradientTape() as tape:
        value = losses.SparseCategoricalCrossentropy(ignore_class=-1)(labels, v)
    g = tape.gradient(value, v).numpy()
    assert np.isfinite(float(value)) and np.all(np.isfinite(g)) and np.all(g[[1, 3]] == 0)
    # every label ignored: 0, not NaN
    assert float(loss([-1, -1], logits[:2])) == 0.0


def test_empty_batch_gives_zero():
    assert float(losses.MeanSquaredError()(np.zeros((0, 3)), np.zeros((0, 3)))) == 0.0


# ---------------------------------------------------------------- seed 001's custom loss
class CustomMSE(losses.Loss):
    """Seed 001's custom loss, imports changed (tf.math.square -> ds.square)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)

    def call(self, y_true, y_pred):
        L = ds.square(y_true - y_pred)
        L = ds.reduce_mean(L)
        return L


def test_seed_custom_loss_subclass():
    loss = CustomMSE()
    assert loss.name == "custom_mse" and loss.reduction == "sum_over_batch_size"
    t, p = normal((4, 3)), normal((4, 3))
    assert float(loss(t, p)) == pytest.approx(((t - p) ** 2).mean(), rel=1e-6)
    # a scalar from call() is not reduced again; sample weights scale it as in Keras
    sw = rng.uniform(size=4)
    assert float(loss(t, p, sample_weight=sw)) == pytest.approx(((t - p) ** 2).mean() * sw.mean(), rel=1e-6)
    assert check_gradients(lambda q: CustomMSE()(t, q), p) < 1e-6
    w = ds.Variable(np.ones((3, 3), np.float32))
    x = ds.constant(normal((4, 3)).astype(np.float32))
    with ds.GradientTape() as tape:
        value = loss(t.astype(np.float32), ds.matmul(x, w))
    np.testing.assert_allclose(tape.gradient(value, w).numpy(),
                               x.numpy().T @ (2 * (x.numpy() @ w.numpy() - t) / t.size), rtol=1e-5)
    again = CustomMSE.from_config(CustomMSE(name="m", reduction="sum").get_config())
    assert again.name == "m" and again.reduction == "sum"


def test_subclass_with_per_sample_call_and_wrapper():
    class Absolute(losses.Loss):
        def call(self, y_true, y_pred):
            return ds.reduce_sum(ds.abs(y_true - y_pred), axis=-1)

    t, p = normal((3, 2)), normal((3, 2))
    assert float(Absolute(reduction="sum")(t, p)) == pytest.approx(np.abs(t - p).sum(), rel=1e-6)
    wrapped = losses.LossFunctionWrapper(losses.huber, delta=0.5, reduction="none")
    np.testing.assert_allclose(wrapped(t, p).numpy(), ref_huber(t, p, 0.5), rtol=1e-6)
    restored = losses.LossFunctionWrapper.from_config(wrapped.get_config())
    np.testing.assert_allclose(restored(t, p).numpy(), wrapped(t, p).numpy())
    with pytest.raises(NotImplementedError, match="call"):
        losses.Loss()(t, p)


# ---------------------------------------------------------------- lookup
def test_get():
    assert losses.get("mse") is losses.mean_squared_error
    assert losses.get("MSE") is losses.mean_squared_error
    assert losses.get("sparse_categorical_crossentropy") is losses.sparse_categorical_crossentropy
    assert losses.get("bce") is losses.binary_crossentropy
    assert isinstance(losses.get("SparseCategoricalCrossentropy"), losses.SparseCategoricalCrossentropy)
    assert isinstance(losses.get(losses.Huber), losses.Huber)
    configured = losses.get({"class_name": "CategoricalCrossentropy", "config": {"from_logits": True}})
    assert configured.from_logits is True
    obj = losses.MeanAbsoluteError()
    assert losses.get(obj) is obj and losses.get(None) is None
    custom = losses.deserialize({"class_name": "CustomMSE", "config": {"name": "c"}},
                                custom_objects={"CustomMSE": CustomMSE})
    assert isinstance(custom, CustomMSE) and custom.name == "c"


# ---------------------------------------------------------------- bad inputs
def test_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r"y_true.shape=\(4, 3\), y_pred.shape=\(4, 2\)"):
        losses.MeanSquaredError()(np.zeros((4, 3)), np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"y_true.shape=\(2, 3\), y_pred.shape=\(2, 4\)"):
        losses.CategoricalCrossentropy()(np.zeros((2, 3)), np.ones((2, 4)))
    with pytest.raises(ValueError, match=r"y_true.shape=\(3,\), y_pred.shape=\(2, 4\)"):
        losses.SparseCategoricalCrossentropy()([0, 1, 2], np.ones((2, 4)))
    with pytest.raises(ValueError, match="y_true.shape"):
        losses.binary_crossentropy(np.zeros((5,)), np.zeros((4,)))


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"reduction.*Received: reduction='average'"):
        losses.MeanSquaredError(reduction="average")
    with pytest.raises(ValueError, match="outside the valid range"):
        losses.SparseCategoricalCrossentropy(from_logits=True)([0, 3], np.zeros((2, 3)))
    with pytest.raises(ValueError, match="integer class indices"):
        losses.sparse_categorical_crossentropy([0.5, 1.0], np.ones((2, 3)))
    with pytest.raises(ValueError, match="label_smoothing"):
        losses.BinaryCrossentropy(label_smoothing=1.5)
    with pytest.raises(ValueError, match="delta"):
        losses.Huber(delta=0.0)
    with pytest.raises(ValueError, match="sample_weight of shape"):
        losses.MeanSquaredError()(np.zeros((4, 3)), np.zeros((4, 3)), sample_weight=np.ones(3))
    with pytest.raises(ValueError, match=r"Unknown loss 'msee'\. Known names: .*mean_squared_error"):
        losses.get("msee")
    with pytest.raises(ValueError, match="Could not interpret"):
        losses.get(42)
    with pytest.raises(ValueError, match="Unknown loss class"):
        losses.deserialize({"class_name": "Nope", "config": {}})


def test_focal_losses_match_keras_3_golden_values():
    # computed with Keras 3.15 (keras.losses) in float32
    yt, yp = [[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]]
    np.testing.assert_allclose(losses.binary_focal_crossentropy(yt, yp, gamma=2.0).numpy(), [0.32986468, 0.20579839],
                               rtol=1e-6)
    got = losses.BinaryFocalCrossentropy(apply_class_balancing=True, alpha=0.3, gamma=1.5, from_logits=True,
                                         label_smoothing=0.1)(yt, yp)
    assert float(got) == pytest.approx(0.25157007575035095, rel=1e-6)
    t, p = [[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0.0], [0.1, 0.8, 0.1]]
    np.testing.assert_allclose(losses.categorical_focal_crossentropy(t, p).numpy(), [3.2058331e-05, 4.6627346e-01],
                               rtol=1e-5)
    got = losses.CategoricalFocalCrossentropy(alpha=0.5, gamma=1.0, from_logits=True, label_smoothing=0.2)(t, p)
    assert float(got) == pytest.approx(0.34436944127082825, rel=1e-6)
    with pytest.raises(ValueError, match="`gamma` must be a number >= 0"):
        losses.BinaryFocalCrossentropy(gamma=-1)
    with pytest.raises(ValueError, match=r"`alpha` must be a number in \[0, 1\]"):
        losses.CategoricalFocalCrossentropy(alpha=2)
    with pytest.warns(SyntaxWarning, match="num_classes > 1"):
        losses.categorical_focal_crossentropy([[1.0]], [[0.5]])


def test_dice_and_tversky_over_whole_images_and_the_batch():
    """Keras 3's documented values (axis over each image, and over everything: one value for the batch);
    Tversky with alpha = beta = 0.5 is Dice; the generalized cross-entropy's range check."""
    y_true = np.array([[[[1.0], [1.0]], [[0.0], [0.0]]], [[[1.0], [1.0]], [[0.0], [0.0]]]])
    y_pred = np.array([[[[0.0], [1.0]], [[0.0], [1.0]]], [[[0.4], [0.0]], [[0.0], [0.9]]]])
    np.testing.assert_allclose(losses.dice(y_true, y_pred, axis=(1, 2, 3)).numpy(), [0.5, 0.75757575], rtol=1e-6)
    assert float(losses.dice(y_true, y_pred)) == pytest.approx(0.6164384, rel=1e-6)
    assert float(losses.Dice()(y_true, y_pred)) == pytest.approx(0.6164384, rel=1e-6)
    np.testing.assert_allclose(losses.Dice(axis=(1, 2, 3), reduction=None)(y_true, y_pred).numpy(),
                               ref_dice(y_true, y_pred, axis=(1, 2, 3)), rtol=1e-6)
    np.testing.assert_allclose(losses.tversky(y_true, y_pred, axis=(1, 2, 3)).numpy(),
                               losses.dice(y_true, y_pred, axis=(1, 2, 3)).numpy(), rtol=1e-6)
    assert float(losses.Tversky(alpha=0.2, beta=0.8)(y_true, y_pred)) == pytest.approx(
        float(ref_tversky(y_true, y_pred, 0.2, 0.8, axis=None)), rel=1e-6)
    # Keras 3.15's value for these inputs (its test_binary_segmentation_custom_coefficients)
    t2 = np.array([[1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 1, 0], [0, 1, 0, 1]])
    p2 = np.array([[0, 1, 0, 1], [1, 0, 1, 1], [0, 1, 0, 1], [1, 0, 1, 1]])
    assert float(losses.Tversky(alpha=0.2, beta=0.8)(t2, p2)) == pytest.approx(0.7916667, rel=1e-6)
    assert type(losses.get("dice")) is not type and losses.get("Tversky").name == "tversky"
    with pytest.raises(ValueError, match=r"q must be in the interval \(0, 1\)"):
        losses.CategoricalGeneralizedCrossEntropy(q=1.5)
    # labels of shape (batch, 1) are the same as (batch,)
    p = dist((3, 4))
    np.testing.assert_allclose(losses.categorical_generalized_cross_entropy([[0], [3], [1]], p, q=0.7).numpy(),
                               ref_gce(np.array([0, 3, 1]), p, 0.7), rtol=1e-12)
