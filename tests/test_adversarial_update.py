"""Adversarial checks of the one update path and descend.function's tracing rules (attacks that found a bug).

Each test names the attack; the expected behaviour is TensorFlow's (tf.function, tf.data), checked by hand
against TF 2.21 where stated."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import descend as ds
from descend.compiler.function import FunctionEagerWarning
from descend.errors import OutOfRangeError


def _sums(fn, iterator, calls):
    out = []
    for _ in range(calls):
        try:
            out.append(float(fn(iterator)))
        except OutOfRangeError:
            out.append("end")
    return out


# ------------------------------------------- next(iterator) in a function over batches that change shape
# TF: batch(3) without drop_remainder has element spec (None,), so the one graph serves the last partial
# batch: [3, 12, 6, end]. descend's trace has the first batch's shape: the partial batch must still be served
# (here by running that call eagerly), and never consumed by a call that then fails.
@pytest.mark.parametrize("body", ["sum", "sum_then_write", "two_ops"])
def test_next_of_an_iterator_whose_batches_change_shape(body):
    v = ds.Variable(0.0)

    def step(it):
        x = next(it)
        if body == "sum":
            return ds.reduce_sum(x)
        if body == "two_ops":
            return ds.reduce_sum(x * 2.0) / 2.0
        v.assign_add(ds.reduce_sum(x))
        return ds.reduce_sum(x)

    f = ds.function(step)
    it = iter(ds.data.Dataset.from_tensor_slices(np.arange(7, dtype=np.float32)).batch(3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FunctionEagerWarning)
        assert _sums(f, it, 4) == [3.0, 12.0, 6.0, "end"]
    if body == "sum_then_write":
        assert float(v.numpy()) == 21.0  # every batch added once


def test_an_element_of_another_shape_after_a_write_is_not_lost():
    """A step that wrote a Variable before taking an element cannot run that call again: it raises, and the
    element stays in the iterator (a failure leaves the iterator as it was)."""
    v = ds.Variable(0.0)

    @ds.function
    def step(it):
        v.assign_add(1.0)
        return ds.reduce_sum(next(it))

    it = iter(ds.data.Dataset.from_tensor_slices(np.arange(7, dtype=np.float32)).batch(3))
    assert [float(step(it)), float(step(it))] == [3.0, 12.0]
    with pytest.raises(ds.errors.InvalidArgumentError, match="shape"):
        step(it)
    assert [float(x.numpy()[0]) for x in it] == [6.0]  # the partial batch is still there


# ------------------------------------------- the end of an iterator reached while tracing
# TF 2.21: next(it) inside tf.function is IteratorGetNext, so a call at the end raises OutOfRangeError even when
# that call traces (a new iterator already at its end, or one with fewer elements than the function takes); the
# usual loop `while True: try: step(it) except OutOfRangeError: break` relies on it. A StopIteration escaping
# the call would pass that except clause (and end an enclosing generator).
@pytest.mark.parametrize("case", ["empty", "fewer_than_taken", "exhausted_then_new_function", "eager_after"])
def test_a_call_at_the_end_of_an_iterator_raises_out_of_range(case):
    def two(it):
        return next(it) + next(it)

    f = ds.function(two)
    if case == "empty":
        it = iter(ds.data.Dataset.from_tensor_slices(np.zeros(0, np.float32)))
    elif case == "fewer_than_taken":
        it = iter(ds.data.Dataset.from_tensor_slices(np.ones(1, np.float32)))
    else:
        it = iter(ds.data.Dataset.from_tensor_slices(np.ones(2, np.float32)))
        assert float(ds.function(two)(it)) == 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FunctionEagerWarning)
        with pytest.raises(OutOfRangeError):
            f(it)
        if case == "eager_after":  # the signature now runs eagerly: its later calls say the same
            with pytest.raises(OutOfRangeError):
                f(it)


# ------------------------------------------- op determinism and unseeded random ops
# TF 2.21 (checked by hand): with enable_op_determinism, tf.random.normal/uniform/shuffle (and tf.image's random
# ops, which draw through them) raise RuntimeError when neither a global nor an op seed is set; a seed of
# either kind makes them run. Keras 3's initializers keep their own seeding and are not concerned.
_UNSEEDED = {
    "normal": lambda seed: ds.random.normal([2], seed=seed),
    "uniform": lambda seed: ds.random.uniform([2], seed=seed),
    "truncated_normal": lambda seed: ds.random.truncated_normal([2], seed=seed),
    "shuffle": lambda seed: ds.random.shuffle(ds.constant([1, 2, 3]), seed=seed),
    "categorical": lambda seed: ds.random.categorical(ds.zeros((1, 3)), 2, seed=seed),
    "image.random_flip_left_right": lambda seed: ds.image.random_flip_left_right(ds.zeros((2, 2, 1)), seed=seed),
    "Dataset.shuffle": lambda seed: list(ds.data.Dataset.range(5).shuffle(5, seed=seed)),
}


@pytest.fixture
def determinism():
    ds.config.experimental.enable_op_determinism()
    yield
    ds.config.experimental.disable_op_determinism()


@pytest.mark.parametrize("op", sorted(_UNSEEDED))
def test_unseeded_random_ops_raise_under_op_determinism(op, determinism):
    with pytest.raises(RuntimeError, match="require a seed"):
        _UNSEEDED[op](None)
    assert _UNSEEDED[op](7) is not None  # an op seed is enough
    ds.random.set_seed(1)
    assert _UNSEEDED[op](None) is not None  # so is a global seed
    ds.config.experimental.disable_op_determinism()
    ds.random.set_seed(None)
    assert _UNSEEDED[op](None) is not None  # and without determinism nothing is required


# ------------------------------------------- TensorSpec names and the order of calls
# TF 2.21: a ConcreteFunction of an input_signature shows the signature's TensorSpec names (structured_input_signature,
# function_type, pretty_printed_signature) whether or not the function was called before get_concrete_function.
@pytest.mark.parametrize("called_first", [False, True])
def test_signature_names_do_not_depend_on_an_earlier_call(called_first):
    sig = [ds.TensorSpec([2], ds.float32, name="foo"), [ds.TensorSpec([], ds.float32, name="bar"),
                                                         ds.TensorSpec([], ds.float32)]]

    @ds.function(input_signature=sig)
    def f(x, pair):
        return x * pair[0] + pair[1]

    if called_first:
        f(ds.constant([1.0, 2.0]), [ds.constant(1.0), ds.constant(2.0)])
    cf = f.get_concrete_function()
    args, kwargs = cf.structured_input_signature
    assert [args[0].name, args[1][0].name, args[1][1].name] == ["foo", "bar", "pair_1"]
    assert "name='foo'" in cf.pretty_printed_signature()
