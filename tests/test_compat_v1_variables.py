"""TF 1 graph collections, variable_scope/get_variable with reuse, and a seed-003-style program that trains
several TF 1 optimizers on variable lists taken from collections."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import descend as ds

v1 = ds.compat.v1
T = v1.train


@pytest.fixture(autouse=True)
def _fresh_graph():
    v1.reset_default_graph()
    yield
    v1.reset_default_graph()


def test_collections_list_the_live_variables_with_a_scope_filter():
    with v1.variable_scope("gen"):
        g_w = ds.Variable([1.0], name="w")
        g_frozen = ds.Variable([1.0], name="frozen", trainable=False)
    with v1.variable_scope("disc"):
        d_w = ds.Variable([1.0], name="w")
    names = [v.name for v in v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES)]
    assert names == ["gen/w:0", "disc/w:0"]
    assert v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, scope="gen")[0] is g_w
    assert [v.name for v in v1.get_collection(v1.GraphKeys.GLOBAL_VARIABLES, scope="gen")] == ["gen/w:0", "gen/frozen:0"]
    assert v1.trainable_variables("disc") == [d_w] and g_frozen in v1.global_variables()
    del d_w
    gc.collect()
    assert [v.name for v in v1.trainable_variables()] == ["gen/w:0"]  # a dead Variable drops out


def test_user_collections_hold_what_was_added():
    loss = ds.constant(2.0)
    v1.add_to_collection("losses", loss)
    v1.add_to_collections(["a", "b"], 3)
    assert v1.get_collection("losses")[0] is loss and v1.get_collection("a") == [3] == v1.get_collection("b")
    v1.get_collection_ref("a").append(4)
    assert v1.get_collection("a") == [3, 4] and v1.get_collection("missing") == []


def test_get_variable_creates_then_reuses_by_scope():
    with v1.variable_scope("layer", initializer=v1.zeros_initializer()):
        w = v1.get_variable("w", shape=(2, 3))
        with pytest.raises(ValueError, match="Variable layer/w already exists, disallowed"):
            v1.get_variable("w", shape=(2, 3))
    assert w.name == "layer/w:0" and w.shape == (2, 3) and not w.numpy().any()
    with v1.variable_scope("layer", reuse=True):
        assert v1.get_variable("w") is w
        with pytest.raises(ValueError, match="Trying to share variable layer/w, but specified shape"):
            v1.get_variable("w", shape=(3, 3))
        with pytest.raises(ValueError, match="Variable layer/b does not exist"):
            v1.get_variable("b", shape=(3,))
        with v1.variable_scope("inner"):  # reuse=True is inherited
            assert v1.get_variable_scope().reuse is True
    with v1.variable_scope("layer", reuse=v1.AUTO_REUSE):
        b = v1.get_variable("b", shape=(3,), initializer=np.ones(3, np.float32))
        assert v1.get_variable("b") is b and v1.get_variable("w") is w
    with v1.variable_scope("layer") as scope:
        scope.reuse_variables()
        assert v1.get_variable("b") is b
    with pytest.raises(ValueError, match="must be fully defined"):
        v1.get_variable("nothing")


def test_default_names_and_regularization_losses():
    with v1.variable_scope(None, default_name="block"):
        a = v1.get_variable("w", shape=(2,), regularizer=lambda v: ds.reduce_sum(v * v))
    with v1.variable_scope(None, default_name="block"):
        b = v1.get_variable("w", shape=(2,))
    assert (a.name, b.name) == ("block/w:0", "block_1/w:0")
    a.assign([1.0, 2.0])
    losses = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 1 and float(losses[0]) == 5.0  # read now: the current value
    assert v1.get_variable_scope().name == ""


def test_global_step():
    step = T.get_or_create_global_step()
    assert T.get_or_create_global_step() is step and T.get_global_step() is step
    assert step.dtype == ds.int64 and not step.trainable


def test_seed_003_style_program_trains_several_optimizers_on_collection_lists():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 4)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)).astype(np.float32)
    with v1.variable_scope("embedding"):
        w1 = v1.get_variable("weights", shape=(4, 4), initializer=np.eye(4, dtype=np.float32))
    with v1.variable_scope("head"):
        w2 = v1.get_variable("weights", shape=(4, 1), initializer=v1.zeros_initializer())
        b2 = v1.get_variable("bias", shape=(1,), initializer=v1.zeros_initializer())
    step = T.get_or_create_global_step()
    emb_vars = v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, scope="embedding")
    head_vars = v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, scope="head")
    assert emb_vars == [w1] and [v.name for v in head_vars] == ["head/weights:0", "head/bias:0"]
    emb_opt = T.ProximalAdagradOptimizer(0.05)
    head_opt = T.FtrlOptimizer(0.5)

    def loss_fn():
        return ds.reduce_mean(ds.square(ds.matmul(ds.matmul(x, w1), w2) + b2 - y))

    first = float(loss_fn())
    for _ in range(200):
        with ds.GradientTape() as tape:
            loss = loss_fn()
        grads = tape.gradient(loss, emb_vars + head_vars)
        emb_opt.apply_gradients(zip(grads[:1], emb_vars))
        head_opt.apply_gradients(zip(grads[1:], head_vars), global_step=step)
    assert float(loss_fn()) < 0.01 * first and int(step) == 200
    # the optimizers' slots are live, non-trainable Variables: global, not trainable
    slots = {v.op.name for v in v1.global_variables()} - {v.op.name for v in v1.trainable_variables()}
    assert {"embedding/weights/accumulator", "head/weights/accum", "head/weights/linear", "global_step"} <= slots


@pytest.mark.parametrize("module", ["descend.compat.v1.variables", "descend.compat.v1.train",
                                    "descend.compat.v1.proximal_adagrad", "descend.compat.v1.proximal_gradient_descent",
                                    "descend.compat.v1.adagrad_da"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    v1.reset_default_graph()
    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted and not result.failed
