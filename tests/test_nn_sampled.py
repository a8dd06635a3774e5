"""tf.nn's candidate samplers, compute_accidental_hits, nce_loss and sampled_softmax_loss (issue 37): the
deterministic parts (hits, losses given sampled values, their gradients) against TF exactly; the random draws
against TF's distributions and expected counts, statistically."""

import numpy as np
import pytest

import descend as ds

_TRUE = np.array([[1, 3], [2, 2], [0, 5]], np.int64)
_SAMPLED = np.array([3, 2, 2, 7, 1], np.int64)


def test_accidental_hits_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    got = ds.nn.compute_accidental_hits(_TRUE, _SAMPLED, num_true=2)
    want = tf.nn.compute_accidental_hits(_TRUE, _SAMPLED, num_true=2)
    for g, w in zip(got, want):
        assert g.dtype.name == w.dtype.name
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def _sampled_values(rng, classes, num_sampled, batch, num_true):
    sampled = rng.choice(classes, num_sampled, replace=False).astype(np.int64)
    return (sampled, rng.uniform(0.05, 0.9, (batch, num_true)).astype(np.float32),
            rng.uniform(0.05, 0.9, num_sampled).astype(np.float32))


@pytest.mark.parametrize("loss", ["nce_loss", "sampled_softmax_loss"])
@pytest.mark.parametrize("num_true", [1, 2])
@pytest.mark.parametrize("remove", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_losses_and_gradients_match_tensorflow_given_the_samples(loss, num_true, remove, dtype):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(num_true)
    classes, dim, batch = 12, 4, 5
    w0, b0 = rng.normal(size=(classes, dim)).astype(dtype), rng.normal(size=classes).astype(dtype)
    x0 = rng.normal(size=(batch, dim)).astype(dtype)
    labels = rng.integers(0, classes, (batch, num_true))
    values = _sampled_values(rng, classes, 6, batch, num_true)
    values = (np.concatenate([values[0][:4], labels[:2, 0]]), values[1].astype(dtype),  # accidental hits certain
              values[2].astype(dtype))
    out = []
    for lib in (ds, tf):
        w, b, x = lib.Variable(w0), lib.Variable(b0), lib.constant(x0)
        with lib.GradientTape() as tape:
            tape.watch(x)
            y = getattr(lib.nn, loss)(w, b, labels, x, 6, classes, num_true=num_true, sampled_values=values,
                                      remove_accidental_hits=remove)
            total = lib.reduce_sum(y * np.linspace(0.5, 1.5, batch).astype(dtype))
        out.append((y.numpy(),) + tuple(tape.gradient(total, [w, b, x])))
    tol = 2e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=tol, atol=tol)
    for g, t in zip(out[0][1:], out[1][1:]):
        if isinstance(t, tf.IndexedSlices):
            assert isinstance(g, ds.IndexedSlices)  # the rows used, never the whole table
        np.testing.assert_allclose(ds.convert_to_tensor(g).numpy(), tf.convert_to_tensor(t).numpy(), rtol=tol,
                                   atol=tol)


@pytest.mark.parametrize("unique", [False, True])
def test_fixed_unigram_draws_follow_tensorflows_distribution(unique):
    tf = pytest.importorskip("tensorflow")
    unigrams, reserved, distortion = [5.0, 1.0, 3.0, 0.5, 8.0, 2.0], 2, 0.75
    kw = dict(true_classes=[[3, 0]], num_true=2, unique=unique, range_max=8, unigrams=unigrams,
              num_reserved_ids=reserved, distortion=distortion)
    n = 4 if unique else 4000
    ds.random.set_seed(5)
    counts = {"ds": np.zeros(8), "tf": np.zeros(8)}
    for _ in range(300 if unique else 3):
        for key, lib in (("ds", ds), ("tf", tf)):
            s = lib.nn.fixed_unigram_candidate_sampler(num_sampled=n, **kw)
            counts[key] += np.bincount(s.sampled_candidates.numpy(), minlength=8)
            if unique:
                assert len(set(s.sampled_candidates.numpy().tolist())) == n
            else:  # without replacement the expected counts are p * num_sampled: TF's, to float32 rounding
                np.testing.assert_allclose(s.true_expected_count.numpy(),
                                           tf.nn.fixed_unigram_candidate_sampler(num_sampled=n, **kw)
                                           .true_expected_count.numpy(), rtol=1e-6)
    assert counts["ds"][:reserved].sum() == 0
    # a chi-square test of the two samples against each other (homogeneity), 5 degrees of freedom
    table = np.stack([counts["ds"][reserved:], counts["tf"][reserved:]])
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    chi2 = ((table - expected) ** 2 / expected).sum()
    assert chi2 < 20.5, (chi2, table)  # p < 0.001 for 5 degrees of freedom


def test_unique_expected_counts_are_tfs_rule():
    s = ds.nn.fixed_unigram_candidate_sampler([[0]], 1, 3, True, 4, unigrams=[1.0, 1.0, 1.0, 97.0], seed=3)
    p = np.array([0.01, 0.01, 0.01, 0.97])
    got = s.sampled_expected_count.numpy()
    # unique draws of 3 among 4 classes, one of them of weight 0.97: repeats are certain in practice
    rare = int(np.flatnonzero(p[s.sampled_candidates.numpy()] < 0.5)[0])  # its count is not rounded to 1
    tries = np.log1p(-got[rare]) / np.log1p(-p[s.sampled_candidates.numpy()[rare]])
    assert tries > 3 and abs(tries - round(tries)) < 1e-2
    np.testing.assert_allclose(got, -np.expm1(round(tries) * np.log1p(-p[s.sampled_candidates.numpy()])), rtol=1e-6)


def test_seeded_draws_repeat_and_all_candidate_sampler_is_tfs():
    ds.random.set_seed(1)
    a = ds.nn.fixed_unigram_candidate_sampler([[0]], 1, 5, False, 3, unigrams=[1, 2, 3], seed=7)
    ds.random.set_seed(1)
    b = ds.nn.fixed_unigram_candidate_sampler([[0]], 1, 5, False, 3, unigrams=[1, 2, 3], seed=7)
    np.testing.assert_array_equal(a.sampled_candidates.numpy(), b.sampled_candidates.numpy())
    s = ds.nn.all_candidate_sampler([[0, 2]], 2, 4, True)
    assert s.sampled_candidates.numpy().tolist() == [0, 1, 2, 3]
    assert s.true_expected_count.numpy().tolist() == [[1.0, 1.0]]


def test_default_log_uniform_sampler_trains_without_sampled_values():
    ds.random.set_seed(0)
    w, b = ds.Variable(np.zeros((50, 3))), ds.Variable(np.zeros(50))
    with ds.GradientTape() as tape:
        y = ds.nn.sampled_softmax_loss(w, b, [[1], [7]], np.ones((2, 3)), 10, 50, seed=4)
        total = ds.reduce_sum(y)
    g = tape.gradient(total, w)
    assert y.shape == (2,) and isinstance(g, ds.IndexedSlices)
    # every class equally scored: the loss is log of the sum of exp(-log Q), finite and positive
    assert np.all(np.isfinite(y.numpy())) and np.all(y.numpy() > 0)


@pytest.mark.parametrize("call,error,match", [
    (lambda: ds.nn.fixed_unigram_candidate_sampler([[0]], 1, 2, False, 5, unigrams=[1, 2]), ValueError, "range_max"),
    (lambda: ds.nn.fixed_unigram_candidate_sampler([[0]], 1, 9, True, 2, unigrams=[1, 2]), ValueError, "num_sampled"),
    (lambda: ds.nn.fixed_unigram_candidate_sampler([[0]], 2, 2, False, 2, unigrams=[1, 2]), ValueError, "num_true"),
    (lambda: ds.nn.all_candidate_sampler([[5]], 1, 4, True), ValueError, "true_classes"),
    (lambda: ds.nn.compute_accidental_hits([[0.5]], [1], 1), TypeError, "integer"),
    (lambda: ds.nn.nce_loss(np.ones((4, 2)), np.ones(4), [[1]], np.ones(2), 2, 4), ValueError, "inputs"),
])
def test_bad_arguments_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_learned_unigram_counts_follow_tensorflows():
    tf = pytest.importorskip("tensorflow")
    batches = [[[0], [0], [2]], [[0], [3], [3]], [[1], [0], [2]]]
    for unique in (False, True):
        for batch in batches:  # a seed no other test uses: the counts belong to the sampler of these arguments
            got = ds.nn.learned_unigram_candidate_sampler(batch, 1, 3, unique, 4, seed=7701)
            want = tf.nn.learned_unigram_candidate_sampler(batch, 1, 3, unique, 4, seed=7701)
            if not unique:  # p * num_sampled from the counts so far: TF's numbers
                np.testing.assert_allclose(got.true_expected_count.numpy(), want.true_expected_count.numpy(),
                                           rtol=1e-6)
            else:
                assert len(set(got.sampled_candidates.numpy().tolist())) == 3


def test_learned_unigram_draws_follow_the_learned_counts():
    tf = pytest.importorskip("tensorflow")
    counts = {"ds": np.zeros(5), "tf": np.zeros(5)}
    for key, lib in (("ds", ds), ("tf", tf)):
        lib.nn.learned_unigram_candidate_sampler([[4], [4], [4], [1]], 1, 1000, False, 5, seed=7703)  # learn
        for _ in range(4):
            s = lib.nn.learned_unigram_candidate_sampler([[0]], 1, 1000, False, 5, seed=7703)
            counts[key] += np.bincount(s.sampled_candidates.numpy(), minlength=5)
    table = np.stack([counts["ds"], counts["tf"]])
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    assert ((table - expected) ** 2 / expected).sum() < 18.5  # p = 0.001, 4 degrees of freedom
