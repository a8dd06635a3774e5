"""Variable names as TF 2.21 and Keras 3.15 show them (issue 35): a TF variable's ``name`` is its scoped name
and output index (``x:0``; eager TF does not make names unique), a Keras 3 variable's ``name`` is the name
given (``kernel``) and its ``path`` the layers' path (``sequential/dense/kernel``; an optimizer's slot
``adam/sequential_dense_kernel_momentum``). Each case runs on descend and, where installed, on TF/Keras; the
recorded expectations are what TF/Keras gave (a test checks them against TF/Keras too)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

import descend as ds


def _named(variables):
    return [(v.name, getattr(v, "path", None)) for v in variables]


def _tf_variables(tf, keras):
    a, b, c = tf.Variable(1.0, name="x"), tf.Variable(2.0, name="x"), tf.Variable(3.0)
    with tf.name_scope("s"):
        d = tf.Variable(1.0, name="w")
    return _named([a, b, c, d])


def _dense(tf, keras):
    layer = keras.layers.Dense(3, name="dense")
    layer.build((None, 2))
    again = keras.layers.Dense(3, name="dense")  # the same layer name: the same paths (Keras does not uniquify)
    again.build((None, 2))
    return _named(layer.weights + again.weights)


def _sequential(tf, keras):
    model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(3), keras.layers.Dense(1)])
    return _named(model.weights)


def _nested(tf, keras):
    class Block(keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.inner = keras.layers.Dense(2)

        def build(self, shape):
            self.w = self.add_weight(shape=(2,), name="w")
            self.inner.build(shape)

        def call(self, x):
            return self.inner(x) + self.w

    block = Block(name="block")
    block.build((None, 2))
    return _named(block.weights)


def _batchnorm_lstm(tf, keras):
    bn = keras.layers.BatchNormalization()
    bn.build((None, 3))
    lstm = keras.layers.LSTM(2)
    lstm.build((None, 3, 4))
    return _named(bn.weights + lstm.weights)


def _metric(tf, keras):
    return _named(keras.metrics.Mean().variables)


def _keras_variable(tf, keras):
    return _named([keras.Variable(1.0, name="x"), keras.Variable(np.zeros(2, np.float32))])


def _optimizer(opt_name, **kwargs):
    def make(tf, keras):
        model = keras.Sequential([keras.Input((2,)), keras.layers.Dense(1)])
        opt = getattr(keras.optimizers, opt_name)(**kwargs)
        opt.build(model.trainable_variables)
        # Keras keeps its learning rate in a variable too (descend a float); the slots' order in the list
        # differs (Keras groups them by kind), their names must not
        return sorted(_named([v for v in opt.variables if v.name != "learning_rate"]))

    return make


@dataclass
class Case:
    id: str
    make: Callable
    want: list


CASES = [
    Case("tf_variables", _tf_variables, [("x:0", None), ("x:0", None), ("Variable:0", None), ("s/w:0", None)]),
    Case("dense", _dense, [("kernel", "dense/kernel"), ("bias", "dense/bias"),
                           ("kernel", "dense/kernel"), ("bias", "dense/bias")]),
    Case("sequential", _sequential, [("kernel", "sequential/dense/kernel"), ("bias", "sequential/dense/bias"),
                                     ("kernel", "sequential/dense_1/kernel"), ("bias", "sequential/dense_1/bias")]),
    Case("nested_layers", _nested, [("w", "block/w"), ("kernel", "block/dense/kernel"), ("bias", "block/dense/bias")]),
    Case("batchnorm_lstm", _batchnorm_lstm, [
        ("gamma", "batch_normalization/gamma"), ("beta", "batch_normalization/beta"),
        ("moving_mean", "batch_normalization/moving_mean"),
        ("moving_variance", "batch_normalization/moving_variance"),
        ("kernel", "lstm/lstm_cell/kernel"), ("recurrent_kernel", "lstm/lstm_cell/recurrent_kernel"),
        ("bias", "lstm/lstm_cell/bias")]),
    Case("metric", _metric, [("total", "mean/total"), ("count", "mean/count")]),
    Case("keras_variable", _keras_variable, [("x", "x"), ("variable", "variable")]),
    Case("adam", _optimizer("Adam"), sorted([
        ("iteration", "adam/iteration"),
        ("sequential_dense_kernel_momentum", "adam/sequential_dense_kernel_momentum"),
        ("sequential_dense_kernel_velocity", "adam/sequential_dense_kernel_velocity"),
        ("sequential_dense_bias_momentum", "adam/sequential_dense_bias_momentum"),
        ("sequential_dense_bias_velocity", "adam/sequential_dense_bias_velocity")])),
    Case("adam_amsgrad", _optimizer("Adam", amsgrad=True), sorted([
        ("iteration", "adam/iteration"),
        ("sequential_dense_kernel_momentum", "adam/sequential_dense_kernel_momentum"),
        ("sequential_dense_kernel_velocity", "adam/sequential_dense_kernel_velocity"),
        ("sequential_dense_bias_momentum", "adam/sequential_dense_bias_momentum"),
        ("sequential_dense_bias_velocity", "adam/sequential_dense_bias_velocity"),
        ("sequential_dense_kernel_velocity_hat", "adam/sequential_dense_kernel_velocity_hat"),
        ("sequential_dense_bias_velocity_hat", "adam/sequential_dense_bias_velocity_hat")])),
    Case("sgd_momentum", _optimizer("SGD", momentum=0.9), sorted([
        ("iteration", "sgd/iteration"),
        ("sequential_dense_kernel_momentum", "sgd/sequential_dense_kernel_momentum"),
        ("sequential_dense_bias_momentum", "sgd/sequential_dense_bias_momentum")])),
    Case("adagrad", _optimizer("Adagrad"), sorted([
        ("iteration", "adagrad/iteration"),
        ("sequential_dense_kernel_accumulator", "adagrad/sequential_dense_kernel_accumulator"),
        ("sequential_dense_bias_accumulator", "adagrad/sequential_dense_bias_accumulator")])),
]


def _reference():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    tf = pytest.importorskip("tensorflow")
    keras = pytest.importorskip("keras")
    keras.utils.clear_session()
    return tf, keras


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_names_and_paths_as_recorded_from_tensorflow_and_keras(case):
    assert case.make(ds, ds.keras) == case.want


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_names_and_paths_equal_tensorflow_and_keras(case):
    tf, keras = _reference()
    theirs = case.make(tf, keras)
    assert case.make(ds, ds.keras) == theirs
    assert theirs == case.want  # the recorded expectations are TF's and Keras'


def test_a_name_shared_by_two_variables_keeps_their_state_apart(tmp_path):
    """TF 2 names need not be unique; what descend keys state by (``scoped_name``, TF 1's ``op.name``) is."""
    a, b = ds.Variable([1.0], name="x"), ds.Variable([2.0], name="x")
    assert a.name == b.name == "x:0"
    assert (a.scoped_name, b.scoped_name) == ("x", "x_1") and (a.op.name, b.op.name) == ("x", "x_1")
    path = ds.train.Checkpoint(a=a, b=b).write(str(tmp_path / "ckpt"))
    a.assign([5.0])
    b.assign([6.0])
    ds.train.Checkpoint(a=a, b=b).read(path)
    assert (a.numpy().tolist(), b.numpy().tolist()) == ([1.0], [2.0])


def test_a_tf_variable_has_no_path_and_keras_variables_are_keras_variables():
    v, k = ds.Variable(1.0), ds.keras.Variable(1.0)
    assert not hasattr(v, "path") and k.path == "variable"
    assert isinstance(k, ds.keras.Variable) and not isinstance(v, ds.keras.Variable)
    assert isinstance(k, ds.Variable) and type(k) is type(v)  # one Variable class underneath


def test_optimizer_state_is_keyed_as_before_whatever_the_displayed_names():
    """Slot keys (checkpoints, files) stay ``<variable key>/<slot>``; only the displayed names are Keras'."""
    model = ds.Sequential([ds.keras.Input((2,)), ds.layers.Dense(1)])
    opt = ds.optimizers.Adam()
    opt.build(model.trainable_variables)
    keys = sorted(opt.state_dict())
    assert "sequential/dense/kernel/m" in keys and "sequential/dense/bias/v" in keys
    assert opt.get_slot(model.layers[0].kernel, "m").path == "adam/sequential_dense_kernel_momentum"


def test_tf1_optimizer_slots_keep_tf_variable_names():
    w = ds.Variable([1.0, 2.0], name="w")
    opt = ds.compat.v1.train.AdagradOptimizer(0.1)
    opt.apply_gradients([(ds.constant([1.0, 1.0]), w)])
    slot = opt.get_slot(w, "accumulator")
    assert slot.name == "w/accumulator:0" and not hasattr(slot, "path")
