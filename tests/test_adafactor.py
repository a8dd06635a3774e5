"""Adafactor's factored moments against the independent reference, for ranks 1 to 3."""

from __future__ import annotations

import numpy as np
import optimizer_reference as R
import pytest

import descend as ds


@pytest.mark.parametrize("shape", [(5,), (4, 3), (2, 3, 4)])
def test_factored_moments_match_the_reference(shape):
    rng = np.random.default_rng(7)
    v0, grads = rng.standard_normal(shape), [rng.standard_normal(shape) for _ in range(12)]
    opt = ds.optimizers.Adafactor(0.05, clip_threshold=0.5, weight_decay=0.01)
    var = ds.Variable(v0.copy(), name="w")
    for g in grads:
        opt.apply_gradients([(ds.constant(g), var)])
    ref = R.adafactor(v0, grads, learning_rate=0.05, clip_threshold=0.5, weight_decay=0.01)
    np.testing.assert_allclose(var.numpy(), ref["var"], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(opt.get_slot(var, "v").numpy(), ref["velocity"], rtol=1e-12)
    r, c = opt.get_slot(var, "r").numpy(), opt.get_slot(var, "c").numpy()
    if len(shape) >= 2:  # stored broadcast: every column of r, every row of c the same
        np.testing.assert_allclose(r[..., 0], ref["r"], rtol=1e-12)
        np.testing.assert_allclose(c[..., 0, :], ref["c"], rtol=1e-12)
        assert (r == r[..., :1]).all() and (c == c[..., :1, :]).all()
    else:
        assert not r.any() and not c.any()


def test_a_schedule_is_not_capped_by_relative_step():
    sched = ds.optimizers.schedules.ExponentialDecay(2.0, 1, 0.5)  # 2, 1, 0.5, ...
    rng = np.random.default_rng(3)
    v0, grads = rng.standard_normal((3, 2)), [rng.standard_normal((3, 2)) for _ in range(4)]
    opt = ds.optimizers.Adafactor(sched)
    var = ds.Variable(v0.copy(), name="w")
    for g in grads:
        opt.apply_gradients([(ds.constant(g), var)])
    ref = R.adafactor(v0, grads, lr_schedule=lambda it: 2.0 * 0.5 ** it)
    np.testing.assert_allclose(var.numpy(), ref["var"], rtol=1e-12)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="clip_threshold"):
        ds.optimizers.Adafactor(clip_threshold=0.0)
    with pytest.raises(ValueError, match="beta_2_decay"):
        ds.optimizers.Adafactor(beta_2_decay=0.5)
    with pytest.raises(TypeError, match="relative_step"):
        ds.optimizers.Adafactor(relative_step="yes")
    assert ds.optimizers.get("adafactor").relative_step is True


def test_docstring_example_runs():
    import doctest

    import descend.optimizers.adafactor as module

    result = doctest.testmod(module)
    assert result.attempted and not result.failed
