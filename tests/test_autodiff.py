"""tf.autodiff (descend/autodiff.py): ForwardAccumulator's JVPs against TF's, and GradientTape is descend's."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds

W = np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32)
X0 = np.array([0.5, -1.0, 2.0], np.float32)
V0 = np.array([1.0, 0.5, -2.0], np.float32)

FUNCTIONS = {
    "cubic_sum": lambda m, x: m.reduce_sum(x * x * x),
    "matmul_tanh": lambda m, x: m.tanh(m.matmul(m.reshape(x, [1, 3]), W)),
    "gather": lambda m, x: m.gather(x, [2, 0, 2]) * 3.0,
    "softmax": lambda m, x: m.nn.softmax(x),
    "exp_over_norm": lambda m, x: m.exp(x) / m.sqrt(m.reduce_sum(x * x)),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jvp_equals_tensorflows(name):
    tf = pytest.importorskip("tensorflow")

    def run(m):
        x = m.Variable(X0)
        with m.autodiff.ForwardAccumulator(x, m.constant(V0)) as acc:
            y = FUNCTIONS[name](m, x)
        return np.asarray(acc.jvp(y).numpy())

    np.testing.assert_allclose(run(ds), run(tf), rtol=1e-5, atol=1e-6)


def test_several_primals_structures_and_unconnected_targets():
    tf = pytest.importorskip("tensorflow")

    def run(m, mode):
        a, b = m.Variable(X0), m.Variable(2.0)
        with m.autodiff.ForwardAccumulator((a, b), (m.constant(V0), m.constant(-1.5))) as acc:
            out = {"p": a * b, "q": m.reduce_sum(a) + b * b}
            free = m.constant([4.0, 5.0])
        jv = acc.jvp(out)
        unconnected = acc.jvp(free, unconnected_gradients=mode)
        return ({k: np.asarray(v.numpy()) for k, v in jv.items()},
                None if unconnected is None else np.asarray(unconnected.numpy()))

    for mode in ("none", "zero"):
        (ours, our_free), (theirs, their_free) = run(ds, mode), run(tf, mode)
        for k in theirs:
            np.testing.assert_allclose(ours[k], theirs[k], rtol=1e-6)
        assert (our_free is None) == (their_free is None)
        if their_free is not None:
            np.testing.assert_array_equal(our_free, their_free)


def test_without_tensorflow():
    assert ds.autodiff.GradientTape is ds.GradientTape
    x = ds.Variable([1.0, 2.0])
    with ds.autodiff.ForwardAccumulator(x, ds.constant([0.0, 1.0])) as acc:
        y = x * x
    np.testing.assert_allclose(acc.jvp(y).numpy(), [0.0, 4.0])
    with pytest.raises(ValueError, match="tangent of shape"):
        ds.autodiff.ForwardAccumulator(x, ds.constant([1.0]))
    with pytest.raises(ValueError, match="unconnected_gradients"):
        acc.jvp(y, unconnected_gradients="maybe")
