"""Gradient accumulation is exact: k weighted micro-batches equal one step on their
concatenation, for every optimizer in the table; plus GradientAccumulator's seed-000
interface, the non-finite policy and create_optimizer."""

from __future__ import annotations

import json

import numpy as np
import pytest
from optimizer_cases import CASES, OptCase

import descend as ds
from descend.optimizers import schedules as S

SIZES = (2, 5, 3)  # unequal micro-batches
UPDATES = 3


def _data(seed=0):
    rng = np.random.default_rng(seed)
    n = sum(SIZES) * UPDATES
    return rng.standard_normal((n, 4)), rng.standard_normal((n, 3)), rng.integers(0, 8, size=(n, 2))


def _dense_loss(w, x, y):
    return ds.reduce_mean(ds.square(ds.matmul(x, w) - y))


def _sparse_loss(table, ids, y):
    rows = ds.gather(table, ids)  # (batch, 2, 3)
    return ds.reduce_mean(ds.square(ds.reduce_sum(rows, axis=1) - y))


def _grad(loss_fn, var, *batch):
    with ds.GradientTape() as tape:
        loss = loss_fn(var, *batch)
    return tape.gradient(loss, var)


def _train(make, init, loss_fn, batches, accumulate: bool):
    ds.clear_session()
    opt = make(gradient_accumulation_steps=len(SIZES)) if accumulate else make()
    var = ds.Variable(init.copy(), name="w")
    start = 0
    for _ in range(UPDATES):
        if accumulate:
            for n in SIZES:
                part = [b[start:start + n] for b in batches]
                opt.apply_gradients([(_grad(loss_fn, var, *part), var)], weight=n)
                start += n
        else:
            n = sum(SIZES)
            part = [b[start:start + n] for b in batches]
            opt.apply_gradients([(_grad(loss_fn, var, *part), var)])
            start += n
    return opt, var


def _assert_same(case_id, a, va, b, vb):
    np.testing.assert_allclose(va.numpy(), vb.numpy(), rtol=1e-10, atol=1e-13, err_msg=case_id)
    assert int(a.iterations) == int(b.iterations) == UPDATES
    for name in a.get_slot_names():
        np.testing.assert_allclose(a.get_slot(va, name).numpy(), b.get_slot(vb, name).numpy(), rtol=1e-10,
                                   atol=1e-13, err_msg=f"{case_id} slot {name}")


EXTRA = [OptCase("adamw_warmup_global_clip", ds.optimizers.AdamW,
                 dict(learning_rate=S.WarmUp(0.05, S.PolynomialDecay(0.05, 10, 0.0), warmup_steps=2),
                      weight_decay=0.1, global_clipnorm=0.5), None, {})]
ALL = CASES + EXTRA


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_accumulated_micro_batches_equal_one_large_batch(case):
    x, y, _ = _data()
    init = np.random.default_rng(9).standard_normal((4, 3))
    big = _train(case.make, init, _dense_loss, (x, y), accumulate=False)
    acc = _train(case.make, init, _dense_loss, (x, y), accumulate=True)
    _assert_same(case.id, *big, *acc)


@pytest.mark.parametrize("case", ALL, ids=[c.id for c in ALL])
def test_accumulated_sparse_gradients_equal_one_large_batch(case):
    _, y, ids = _data(1)
    init = np.random.default_rng(10).standard_normal((8, 3))
    big = _train(case.make, init, _sparse_loss, (ids, y), accumulate=False)
    acc = _train(case.make, init, _sparse_loss, (ids, y), accumulate=True)
    _assert_same(case.id, *big, *acc)


def test_micro_steps_do_not_advance_iterations_or_schedules():
    lr = S.PiecewiseConstantDecay([0, 1], [1.0, 0.5, 0.25])
    opt = ds.optimizers.SGD(learning_rate=lr, gradient_accumulation_steps=4)
    v = ds.Variable(np.zeros(1), name="v")
    for i in range(8):
        opt.apply_gradients([(ds.constant(np.ones(1)), v)])
        assert int(opt.iterations) == (i + 1) // 4
    assert opt.current_hyper("learning_rate") == 0.5
    np.testing.assert_allclose(v.numpy(), [-1.5])  # one step at 1.0, one at 0.5, each with mean gradient 1


def test_resume_in_the_middle_of_an_accumulation_cycle_is_bit_exact():
    x, y, _ = _data()
    init = np.random.default_rng(9).standard_normal((4, 3))
    make = lambda **kw: ds.optimizers.Adam(0.05, **kw)  # noqa: E731
    _, full = _train(make, init, _dense_loss, (x, y), accumulate=True)

    ds.clear_session()
    opt = make(gradient_accumulation_steps=3)
    w = ds.Variable(init.copy(), name="w")
    offsets = np.cumsum((0,) + SIZES * UPDATES)
    for k in range(4):  # one full cycle and one micro-step of the next
        a, b = offsets[k], offsets[k + 1]
        opt.apply_gradients([(_grad(_dense_loss, w, x[a:b], y[a:b]), w)], weight=b - a)
    state, value = json.loads(json.dumps({k: v.tolist() for k, v in opt.state_dict().items()})), w.numpy()

    ds.clear_session()
    opt2 = make(gradient_accumulation_steps=3)
    w2 = ds.Variable(value, name="w")
    opt2.load_state_dict({k: np.asarray(v) for k, v in state.items()})
    for k in range(4, 3 * UPDATES):
        a, b = offsets[k], offsets[k + 1]
        opt2.apply_gradients([(_grad(_dense_loss, w2, x[a:b], y[a:b]), w2)], weight=b - a)
    np.testing.assert_array_equal(w2.numpy(), full.numpy())
    assert int(opt2.iterations) == UPDATES


# ---------------------------------------------------------------- GradientAccumulator (seed 000)
def test_gradient_accumulator_seed_interface():
    acc = ds.GradientAccumulator()
    acc([ds.constant([1.0, 2.0]), None])
    acc([ds.constant([3.0, 4.0]), ds.constant([1.0])])
    assert acc.step == 2
    total, second = acc.gradients
    np.testing.assert_array_equal(total.numpy(), [4.0, 6.0])
    np.testing.assert_array_equal(second.numpy(), [1.0])
    acc.reset()  # as Hugging Face: the sums become zeros of the same shapes
    assert acc.step == 0
    zeros = acc.gradients
    np.testing.assert_array_equal(zeros[0].numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(zeros[1].numpy(), [0.0])
    acc([ds.constant([5.0, 5.0]), None])
    np.testing.assert_array_equal(acc.gradients[0].numpy(), [5.0, 5.0])
    assert acc.gradients[1] is None and acc.step == 1
    with pytest.raises(ValueError, match="Expected 2 gradients, but got 3"):
        acc([ds.constant([1.0, 1.0]), None, None])
    with pytest.raises(ValueError, match="should be called first"):
        _ = ds.GradientAccumulator().gradients


def test_gradient_accumulator_keeps_sparse_gradients_sparse():
    acc = ds.GradientAccumulator()
    acc([ds.IndexedSlices(ds.constant([[1.0], [2.0]]), ds.constant([5, 1]), (1000, 1))], weight=2.0)
    acc([ds.IndexedSlices(ds.constant([[10.0], [1.0]]), ds.constant([1, 1]), (1000, 1))], weight=1.0)
    (g,) = acc.gradients
    assert isinstance(g, ds.IndexedSlices) and g.dense_shape == (1000, 1)
    np.testing.assert_array_equal(g.indices.numpy(), [1, 5])  # unique, sorted: never a 1000-row table
    np.testing.assert_array_equal(g.values.numpy(), [[4.0 + 11.0], [2.0]])
    (m,) = acc.mean()
    np.testing.assert_allclose(m.values.numpy(), [[15.0 / 3], [2.0 / 3]])


def test_gradient_accumulator_validates_before_adding():
    acc = ds.GradientAccumulator()
    acc([ds.constant([1.0, 2.0]), ds.constant([1.0])])
    with pytest.raises(ValueError, match="gradient 1: shape"):
        acc([ds.constant([1.0, 2.0]), ds.constant([1.0, 2.0])])
    np.testing.assert_array_equal(acc.gradients[0].numpy(), [1.0, 2.0])  # the first entry was not added
    assert acc.step == 1
    with pytest.raises(ValueError, match="weight must be a positive"):
        acc([None, None], weight=0.0)


def test_gradient_accumulator_reduce_hook_for_replicas():
    acc = ds.GradientAccumulator(reduce_fn=lambda gs: [None if g is None else g * 2.0 for g in gs])
    acc([ds.constant([1.0])])
    np.testing.assert_array_equal(acc.gradients[0].numpy(), [2.0])


# ---------------------------------------------------------------- non-finite gradients
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_raise_names_the_variable_and_changes_nothing(bad):
    a, b = ds.Variable(np.ones(2), name="first"), ds.Variable(np.ones(2), name="second")
    opt = ds.optimizers.Adam(0.1)
    with pytest.raises(ds.InvalidArgumentError, match="variable 'second' contains (NaN|Inf)"):
        opt.apply_gradients([(ds.constant(np.ones(2)), a), (ds.constant(np.array([1.0, bad])), b)])
    assert int(opt.iterations) == 0 and a.numpy().tolist() == [1.0, 1.0] and opt.variables() == [opt.iterations]


def test_nonfinite_skip_leaves_every_byte_of_state_unchanged():
    v = ds.Variable(np.ones(3), name="v")
    table = ds.Variable(np.ones((4, 2)), name="table")
    opt = ds.optimizers.Adam(0.1, on_nonfinite="skip", gradient_accumulation_steps=2)
    good = [(ds.constant(np.ones(3)), v), (ds.IndexedSlices(ds.constant(np.ones((1, 2))), ds.constant([1]), (4, 2)), table)]
    for _ in range(3):  # one update and one pending micro-step
        opt.apply_gradients(good)
    before = {k: x.copy() for k, x in opt.state_dict().items()}
    values = (v.numpy(), table.numpy())
    bad = [(ds.constant(np.ones(3)), v),
           (ds.IndexedSlices(ds.constant(np.array([[np.nan, 1.0]])), ds.constant([2]), (4, 2)), table)]
    opt.apply_gradients(bad)
    after = opt.state_dict()
    assert opt.skipped_steps == 1 and int(after.pop("skipped_steps")) == 1
    before.pop("skipped_steps")
    assert sorted(after) == sorted(before)
    for k in before:
        np.testing.assert_array_equal(after[k], before[k], err_msg=k)
    np.testing.assert_array_equal(v.numpy(), values[0])
    np.testing.assert_array_equal(table.numpy(), values[1])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("use_fused", [True, False], ids=["fused_check", "numpy_check"])
def test_nonfinite_zero_replaces_bad_elements_of_every_tensor(dtype, use_fused):
    vs = [ds.Variable(np.ones(n, dtype), name=f"v{n}") for n in (3, 40_000, 5)]
    opt = ds.optimizers.SGD(1.0, on_nonfinite="zero")
    opt.use_fused = use_fused
    big = np.ones(40_000, dtype)
    big[[0, 39_999]] = [np.inf, np.nan]
    grads = [np.array([1.0, np.nan, np.inf], dtype), big, np.array([-np.inf, 2, 2, 2, 2], dtype)]
    opt.apply_gradients([(ds.constant(g), v) for g, v in zip(grads, vs)])
    for g, v in zip(grads, vs):
        np.testing.assert_array_equal(v.numpy(), 1 - np.where(np.isfinite(g), g, 0))


def test_nonfinite_apply_propagates_as_tensorflow_does():
    a, b = ds.Variable(np.ones(2, np.float32), name="a"), ds.Variable(np.ones(2, np.float32), name="b")
    opt = ds.optimizers.SGD(0.5, on_nonfinite="apply")
    opt.apply_gradients([(ds.constant(np.ones(2, np.float32)), a),
                         (ds.constant(np.array([np.nan, np.inf], np.float32)), b)])
    assert a.numpy().tolist() == [0.5, 0.5] and np.isnan(b.numpy()[0]) and b.numpy()[1] == -np.inf
    assert int(opt.iterations) == 1 and opt.skipped_steps == 0


# ---------------------------------------------------------------- create_optimizer (Hugging Face)
def test_create_optimizer_without_weight_decay_is_adam_with_warmup_and_decay():
    opt, schedule = ds.optimizers.create_optimizer(1e-3, num_train_steps=110, num_warmup_steps=10,
                                                   min_lr_ratio=0.1)
    assert type(opt) is ds.optimizers.Adam and opt.epsilon == 1e-8
    assert schedule(0) == 0.0 and schedule(5) == pytest.approx(5e-4) and schedule(10) == pytest.approx(1e-3)
    assert schedule(60) == pytest.approx(1e-4 + (1e-3 - 1e-4) * 0.5) and schedule(500) == pytest.approx(1e-4)


def test_create_optimizer_with_weight_decay_excludes_norms_and_biases_and_round_trips():
    opt, _ = ds.optimizers.create_optimizer(2e-3, 100, 0, weight_decay_rate=0.01, adam_global_clipnorm=1.0)
    assert type(opt) is ds.optimizers.AdamWeightDecay
    config = json.loads(json.dumps(opt.get_config()))
    assert config["exclude_from_weight_decay"] == ["LayerNorm", "layer_norm", "bias"]
    again = ds.optimizers.AdamWeightDecay.from_config(config)
    assert again.get_config() == opt.get_config()
    kernel = ds.Variable(np.ones(2), name="dense/kernel")
    bias = ds.Variable(np.ones(2), name="dense/bias")
    again.apply_gradients([(ds.constant(np.zeros(2)), kernel), (ds.constant(np.zeros(2)), bias)])
    assert kernel.numpy()[0] == pytest.approx(1 - 2e-3 * 0.01) and bias.numpy()[0] == 1.0
