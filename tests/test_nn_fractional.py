"""tf.nn.fractional_max_pool / fractional_avg_pool (issue 37): given TF's pooling sequences the outputs and
gradients are TF's; descend's own sequences follow TF's distribution (the same support, chi-square)."""

import collections

import numpy as np
import pytest

import descend as ds
from descend.composites.fractional_pooling import pool_with_sequences


@pytest.mark.parametrize("kind", ["max", "avg"])
@pytest.mark.parametrize("pseudo_random", [False, True])
@pytest.mark.parametrize("overlapping", [False, True])
@pytest.mark.parametrize("ratio", [[1.0, 1.5, 1.7, 1.0], [1.0, 2.0, 1.2, 1.0]])
def test_pooling_on_tfs_sequences_matches_tensorflow(kind, pseudo_random, overlapping, ratio):
    tf = pytest.importorskip("tensorflow")
    x = np.random.default_rng(0).normal(size=(2, 11, 9, 3))
    t = tf.constant(x)
    fn = tf.nn.fractional_max_pool if kind == "max" else tf.nn.fractional_avg_pool
    with tf.GradientTape() as tape:
        tape.watch(t)
        y, rows, cols = fn(t, ratio, pseudo_random=pseudo_random, overlapping=overlapping, seed=3)
        loss = tf.reduce_sum(y * y)
    d = ds.constant(x)
    with ds.GradientTape() as dtape:
        dtape.watch(d)
        ours = pool_with_sequences(d, rows.numpy(), cols.numpy(), overlapping, kind)
        dloss = ds.reduce_sum(ours * ours)
    np.testing.assert_allclose(ours.numpy(), y.numpy(), rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(dtape.gradient(dloss, d).numpy(), tape.gradient(loss, t).numpy(), rtol=1e-13,
                               atol=1e-15)


@pytest.mark.parametrize("pseudo_random,threshold", [(True, 26.1), (False, 65.2)])  # p = 0.001: 8 and 34 dof
def test_sequences_follow_tensorflows_distribution(pseudo_random, threshold):
    tf = pytest.importorskip("tensorflow")
    x = np.zeros((1, 11, 4, 1))
    counts = {"ds": collections.Counter(), "tf": collections.Counter()}
    for seed in range(1, 401):
        for key, lib in (("ds", ds), ("tf", tf)):
            seq = lib.nn.fractional_max_pool(x, [1.0, 1.5, 1.0, 1.0], pseudo_random=pseudo_random, seed=seed)[1]
            counts[key][tuple(seq.numpy().tolist())] += 1
    assert set(counts["ds"]) == set(counts["tf"])  # the same possible sequences
    keys = sorted(counts["tf"])
    table = np.array([[counts[k][s] for s in keys] for k in ("ds", "tf")], np.float64)
    expected = table.sum(1, keepdims=True) * table.sum(0, keepdims=True) / table.sum()
    assert ((table - expected) ** 2 / expected).sum() < threshold


def test_sequences_are_valid_and_seeded_draws_repeat():
    for pseudo in (False, True):
        for n, ratio in ((11, 1.5), (20, 3.3), (9, 1.0), (17, 2.0)):
            ds.random.set_seed(2)
            _, rows, _ = ds.nn.fractional_avg_pool(np.ones((1, n, 3, 1)), [1.0, ratio, 1.0, 1.0], pseudo, seed=9)
            ds.random.set_seed(2)
            again = ds.nn.fractional_avg_pool(np.ones((1, n, 3, 1)), [1.0, ratio, 1.0, 1.0], pseudo, seed=9)[1]
            seq = rows.numpy()
            m, k = int(np.floor(n / ratio)), n // int(np.floor(n / ratio))
            assert seq[0] == 0 and seq[-1] == n and seq.size == m + 1
            assert set(np.diff(seq).tolist()) <= {k, k + 1}
            np.testing.assert_array_equal(seq, again.numpy())


@pytest.mark.parametrize("call,error,match", [
    (lambda: ds.nn.fractional_max_pool(np.ones((1, 4, 4, 1)), [2.0, 1.5, 1.5, 1.0]), ValueError, "pooling_ratio"),
    (lambda: ds.nn.fractional_max_pool(np.ones((1, 4, 4, 1)), [1.0, 0.5, 1.5, 1.0]), ValueError, "pooling_ratio"),
    (lambda: ds.nn.fractional_avg_pool(np.ones((4, 4, 1)), 1.5), ValueError, "4-D"),
    (lambda: ds.nn.fractional_avg_pool(np.ones((1, 4, 4, 1), np.int32), 1.5), TypeError, "float"),
])
def test_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()
