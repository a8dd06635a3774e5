"""``descend.keras.random``: Keras 3's seed rules, shapes, dtypes, distributions and errors.

Statistics are checked on large samples against the distributions' known moments (bounds of 6 standard errors),
shapes, dtypes and error wording against Keras 3 where it is installed. The values themselves differ from Keras'
(NumPy's PCG64, not TF's Philox), as docs/semantics.md says.
"""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend.keras import random


def _np(x):
    return np.asarray(x.numpy())


# ---------------------------------------------------------------------------------------------- seeds
_DRAWS = {
    "normal": lambda seed: random.normal((3, 4), seed=seed),
    "uniform": lambda seed: random.uniform((3, 4), seed=seed),
    "truncated_normal": lambda seed: random.truncated_normal((3, 4), seed=seed),
    "randint": lambda seed: random.randint((3, 4), 0, 100, seed=seed),
    "dropout": lambda seed: random.dropout(ds.ones((3, 4)), 0.5, seed=seed),
    "shuffle": lambda seed: random.shuffle(ds.constant(np.arange(12.0)), seed=seed),
    "categorical": lambda seed: random.categorical(ds.zeros((3, 10)), 5, seed=seed),
    "gamma": lambda seed: random.gamma((3, 4), 2.0, seed=seed),
    "beta": lambda seed: random.beta((3, 4), 2.0, 3.0, seed=seed),
    "binomial": lambda seed: random.binomial((3, 4), 50, 0.5, seed=seed),
}


@pytest.mark.parametrize("fn", sorted(_DRAWS))
def test_an_int_seed_is_stateless_and_a_seed_generator_advances(fn):
    draw = _DRAWS[fn]
    a, b = draw(1234), draw(1234)
    np.testing.assert_array_equal(_np(a), _np(b))  # the same int seed: the same values, call after call
    assert not np.array_equal(_np(draw(1234)), _np(draw(99)))
    gen = random.SeedGenerator(1234)
    first, second = draw(gen), draw(gen)
    np.testing.assert_array_equal(_np(first), _np(a))  # seed=s is SeedGenerator(s)'s first draw (Keras)
    assert not np.array_equal(_np(first), _np(second))
    again = random.SeedGenerator(1234)
    np.testing.assert_array_equal(_np(draw(again)), _np(first))
    np.testing.assert_array_equal(_np(draw(again)), _np(second))


def test_seed_generator_state_config_and_errors():
    gen = random.SeedGenerator(5, name="gen")
    assert gen.state.numpy().tolist() == [5, 0] and gen.state.dtype == np.int64 and not gen.state.trainable
    random.normal((2,), seed=gen)
    random.uniform((2,), seed=gen)
    assert gen.state.numpy().tolist() == [5, 2]
    assert gen.get_config() == {"seed": 5, "name": "gen"}
    rebuilt = random.SeedGenerator.from_config(gen.get_config())
    assert rebuilt.state.numpy().tolist() == [5, 0]
    assert random.SeedGenerator().get_config()["seed"] is None
    with pytest.raises(ValueError, match="Argument `seed` must be an integer. Received: seed=1.5"):
        random.SeedGenerator(1.5)
    with pytest.raises(ValueError, match="Unrecognized keyword arguments"):
        random.SeedGenerator(1, backend="jax")
    with pytest.raises(ValueError, match="Argument `seed` must be either an integer or an instance of "
                                         "`SeedGenerator`. Received: seed=abc"):
        random.normal((2,), seed="abc")


def test_unseeded_draws_differ_and_set_random_seed_makes_them_reproducible():
    assert not np.array_equal(_np(random.normal((8,))), _np(random.normal((8,))))
    ds.keras.utils.set_random_seed(42)
    first = [_np(random.normal((8,))), _np(random.uniform((8,))), _np(random.normal((8,)))]
    ds.keras.utils.set_random_seed(42)
    second = [_np(random.normal((8,))), _np(random.uniform((8,))), _np(random.normal((8,)))]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0], first[2])
    ds.keras.utils.set_random_seed(43)
    assert not np.array_equal(_np(random.normal((8,))), first[0])


# ---------------------------------------------------------------------------------------------- distributions
_N = 200_000


def _close(sample, mean, std, what):
    se = std / np.sqrt(sample.size)
    assert abs(sample.mean() - mean) < 6 * se, f"{what}: mean {sample.mean()} vs {mean}"


def test_distributions_have_their_moments():
    x = _np(random.normal((_N,), mean=2.0, stddev=3.0, seed=1))
    _close(x, 2.0, 3.0, "normal")
    assert abs(x.std() - 3.0) < 0.03
    u = _np(random.uniform((_N,), minval=-1.0, maxval=3.0, seed=2))
    assert u.min() >= -1.0 and u.max() < 3.0
    _close(u, 1.0, 4 / np.sqrt(12), "uniform")
    t = _np(random.truncated_normal((_N,), mean=1.0, stddev=2.0, seed=3))
    assert t.min() >= 1.0 - 4.0 and t.max() <= 1.0 + 4.0
    _close(t, 1.0, 2.0 * 0.8796, "truncated_normal")  # the std of N(0, 1) cut at +-2 is 0.8796
    assert abs(t.std() - 2.0 * 0.8796) < 0.02
    r = _np(random.randint((_N,), -3, 7, seed=4))
    assert r.min() == -3 and r.max() == 6
    _close(r, 1.5, np.sqrt((10**2 - 1) / 12), "randint")
    g = _np(random.gamma((_N,), 3.0, seed=5))
    _close(g, 3.0, np.sqrt(3.0), "gamma")
    b = _np(random.beta((_N,), 2.0, 6.0, seed=6))
    assert b.min() > 0 and b.max() < 1
    _close(b, 0.25, np.sqrt(2 * 6 / (8**2 * 9)), "beta")
    n = _np(random.binomial((_N,), 20, 0.3, seed=7))
    assert np.all(n == np.round(n)) and n.min() >= 0 and n.max() <= 20
    _close(n, 6.0, np.sqrt(20 * 0.3 * 0.7), "binomial")
    logits = np.log(np.array([[0.2, 0.5, 0.3], [0.9, 0.05, 0.05]]))
    c = _np(random.categorical(logits, 50_000, seed=8))
    for row, p in zip(c, np.exp(logits)):
        freq = np.bincount(row, minlength=3) / row.size
        assert np.all(np.abs(freq - p) < 6 * np.sqrt(p * (1 - p) / row.size))


def test_dropout_scales_keeps_the_rate_and_is_differentiable():
    x = ds.Variable(np.ones((400, 50)))
    with ds.GradientTape() as tape:
        y = random.dropout(x, 0.3, seed=3)
    values = _np(y)
    assert set(np.unique(values).tolist()) == {0.0, 1 / 0.7}
    kept = values != 0
    assert abs(kept.mean() - 0.7) < 6 * np.sqrt(0.21 / kept.size)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), kept / 0.7)  # the same mask, scaled
    np.testing.assert_array_equal(_np(random.dropout(x, 0.0, seed=1)), x.numpy())
    np.testing.assert_array_equal(_np(random.dropout(x, 1.0, seed=1)), np.zeros((400, 50)))
    noisy = _np(random.dropout(ds.ones((2, 3, 5, 7)), 0.3, noise_shape=[None, 3, 5, None], seed=0))
    assert noisy.shape == (2, 3, 5, 7)
    broadcast = _np(random.dropout(ds.ones((4, 6)), 0.5, noise_shape=(4, 1), seed=0))
    assert all(len(set(row.tolist())) == 1 for row in broadcast)  # one decision per row


def test_shuffle_permutes_along_an_axis_and_is_differentiable():
    x = ds.Variable(np.arange(12.0).reshape(3, 4))
    with ds.GradientTape() as tape:
        y = random.shuffle(x, axis=1, seed=11)
        loss = ds.reduce_sum(y * ds.constant(np.arange(12.0).reshape(3, 4)))
    out = _np(y)
    assert sorted(out[0].tolist()) == [0.0, 1.0, 2.0, 3.0]
    perm = out[0].astype(int)
    np.testing.assert_array_equal(out, x.numpy()[:, perm])
    grad = tape.gradient(loss, x).numpy()
    np.testing.assert_array_equal(grad[:, perm], np.arange(12.0).reshape(3, 4))
    rows = _np(random.shuffle(np.arange(10), seed=1))
    assert sorted(rows.tolist()) == list(range(10)) and rows.dtype == np.int64


# ---------------------------------------------------------------------------------------------- against Keras
_CALLS = [
    ("normal", lambda r: r.normal((2, 3), seed=1)),
    ("normal", lambda r: r.normal([4], mean=1.0, stddev=2.0, dtype="float64", seed=1)),
    ("uniform", lambda r: r.uniform((2, 3), minval=-1, maxval=1, seed=1)),
    ("uniform", lambda r: r.uniform((5,), dtype="float16", seed=2)),
    ("truncated_normal", lambda r: r.truncated_normal((2, 3, 4), seed=1)),
    ("randint", lambda r: r.randint((2, 3), 0, 10, seed=1)),
    ("randint", lambda r: r.randint((5,), 0, 10, dtype="uint8", seed=1)),
    ("randint", lambda r: r.randint((5,), -1, 1, dtype="int64", seed=1)),
    ("dropout", lambda r: r.dropout(np.ones((3, 4), np.float32), 0.5, seed=1)),
    ("dropout", lambda r: r.dropout(np.ones((3, 4)), 0.5, seed=1)),
    ("shuffle", lambda r: r.shuffle(np.arange(12).reshape(3, 4), axis=1, seed=1)),
    ("categorical", lambda r: r.categorical(np.zeros((2, 5), np.float32), 7, seed=1)),
    ("categorical", lambda r: r.categorical(np.zeros((2, 5), np.float32), 7, dtype="int64", seed=1)),
    ("gamma", lambda r: r.gamma((2, 3), 2.0, seed=1)),
    ("beta", lambda r: r.beta((2, 3), 2.0, 3.0, seed=1)),
    ("binomial", lambda r: r.binomial((2, 3), 5, 0.5, seed=1)),
]


@pytest.mark.parametrize("name, call", _CALLS)
def test_shapes_and_dtypes_as_keras(name, call):
    keras = pytest.importorskip("keras")
    ours, theirs = call(random), call(keras.random)
    assert ours.shape == tuple(theirs.shape) and ours.dtype.name == keras.backend.standardize_dtype(theirs.dtype)


_ERRORS = [
    lambda r: r.uniform((2,), dtype="int32"),
    lambda r: r.randint((2,), 0, 3, dtype="float32"),
    lambda r: r.categorical(np.zeros((2, 3, 4), np.float32), 2),
    lambda r: r.normal((2,), seed="abc"),
    lambda r: r.SeedGenerator(seed=1.5),
]


@pytest.mark.parametrize("call", _ERRORS)
def test_errors_as_keras(call):
    keras = pytest.importorskip("keras")
    with pytest.raises(ValueError) as theirs:
        call(keras.random)
    with pytest.raises(ValueError) as ours:
        call(random)
    assert str(ours.value).split("Received")[0] == str(theirs.value).split("Received")[0]
