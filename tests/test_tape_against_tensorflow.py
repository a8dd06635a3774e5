"""The tape behaviours issue 17 fixed, side by side with TensorFlow's own tape.

Each case runs the same program with ``import tensorflow as tf`` and with
``import descend as tf`` and compares the results (float64 where numbers are
compared, to 1e-12). Skipped where TensorFlow is not installed.
"""

from __future__ import annotations

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

import descend as ds  # noqa: E402

_RNG = np.random.default_rng(17)
_A = _RNG.normal(size=(3, 4))
_X = _RNG.normal(size=(4, 2))
_B = _RNG.normal(size=(5, 3))
_W = _RNG.normal(size=(3, 2))


def _np(x):
    return None if x is None else np.asarray(x.numpy())


def _second_derivative(lib):
    x = lib.constant(np.float64(3.0))
    with lib.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x * x
        dy = tape.gradient(y, x)
    return [dy, tape.gradient(dy, x)]


def _self_gradient(lib):
    v = lib.Variable(np.array([2.0, 5.0]))
    c = lib.constant(np.array([1.0, 2.0]))
    with lib.GradientTape(watch_accessed_variables=False) as tape:
        pass
    with lib.GradientTape() as tape2:
        pass
    return [tape.gradient(v, v), tape2.gradient(c, c)]


def _jacobian(lib):
    x = lib.Variable(_X)
    with lib.GradientTape() as tape:
        y = lib.tanh(lib.matmul(lib.constant(_A), x)) * lib.reduce_sum(lib.sin(x))
    return [tape.jacobian(y, x)]


def _batch_jacobian(lib):
    x = lib.constant(_B)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = lib.tanh(lib.matmul(x, lib.constant(_W))) * x[:, :1]
    return [tape.batch_jacobian(y, x)]


def _custom_gradient_float(lib):
    @lib.custom_gradient
    def f(x):
        return 2.0, lambda g: g * lib.ones_like(x)

    x = lib.constant([1.0, 2.0])
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = f(x) * x
    return [y, tape.gradient(y, x)]


@pytest.mark.parametrize("program", [_second_derivative, _self_gradient, _jacobian, _batch_jacobian,
                                     _custom_gradient_float])
def test_same_results_as_tensorflow(program):
    ours = program(ds)
    theirs = program(tf)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is None:
            continue
        assert a.dtype == np.dtype(b.dtype.as_numpy_dtype)
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-12, atol=1e-14)


def test_watched_variables_and_reentry_as_tensorflow():
    for lib in (ds, tf):
        a, b = lib.Variable(1.0), lib.Variable(2.0)
        with lib.GradientTape() as tape:
            y = a * b
        tape.gradient(y, [a, b])
        assert [id(v) for v in tape.watched_variables()] == [id(a), id(b)]
        t2 = lib.GradientTape(persistent=True)
        with t2:
            with pytest.raises(ValueError):
                with t2:
                    pass


def _second_gradient(lib):
    x = lib.constant(3.0)
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    tape.gradient(y, x)


def _second_jacobian(lib):
    x = lib.constant([3.0])
    with lib.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    tape.gradient(y, x)
    tape.jacobian(y, x)


def _unknown_unconnected(lib):
    x, y = lib.constant(1.0), lib.constant(1.0)
    with lib.GradientTape() as tape:
        tape.watch([x, y])
        z = y * 2
    tape.gradient(z, x, unconnected_gradients="nonsense")


def _watch_ndarray(lib):
    with lib.GradientTape() as tape:
        tape.watch(np.array([1.0]))


def _watch_float(lib):
    with lib.GradientTape() as tape:
        tape.watch([lib.constant(1.0), 2.0])


# TF's eager backprop tests assert these errors by type and by the phrase given here
@pytest.mark.parametrize("program, error, phrase", [
    (_second_gradient, RuntimeError, "A non-persistent GradientTape can only be used to compute one set of gradients"),
    (_second_jacobian, RuntimeError, "A non-persistent GradientTape can only be used to compute one set of gradients"),
    (_unknown_unconnected, ValueError, "Unknown value for unconnected_gradients: 'nonsense'"),
    (_watch_ndarray, ValueError, "of type 'ndarray'"),
    (_watch_float, ValueError, "Passed in object 2.0 of type 'float'"),
])
def test_tape_errors_as_tensorflow(program, error, phrase):
    for lib in (tf, ds):
        with pytest.raises(error, match=phrase):
            program(lib)
