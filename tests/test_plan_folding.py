"""A plan computes once what its constants alone decide (:meth:`descend.compiler.graph.Graph.fold_constants`), and a
Keras ``Sequential`` step compiles to the plan of raw Variables doing the same arithmetic: the model, however it was
built, adds no node to the step."""

from __future__ import annotations

import collections

import numpy as np
import pytest

import descend as ds
from descend.compiler.graph import Lit, Value


def _constant_only(graph) -> list:
    """The op nodes of ``graph`` (subgraphs included) whose inputs are all constants or literals."""
    return [n.label() for n in graph.walk() if n.kind == "op"
            and all(type(r) is Lit or (type(r) is Value and r.const is not None) for r in n.inputs)]


def _scaled_mean():
    w = ds.Variable(np.arange(6, dtype=np.float32).reshape(2, 3) / 7, name="w")

    def f(x):
        c = ds.reshape(ds.constant([1.0, 2.0, 3.0]) / 3.0, (1, 3))   # divide, reshape
        k = ds.cast(ds.constant([1, 2, 3]), ds.float32) * 0.5          # cast, multiply
        with ds.GradientTape() as tape:
            loss = ds.reduce_mean(x * w * c + k)  # its gradient's seed: reshape, broadcast_to, divide by the count
        return loss, tape.gradient(loss, w)

    return f, [w]


def _mlp_step():
    rng = np.random.default_rng(3)
    w = ds.Variable(rng.standard_normal((5, 4)).astype(np.float32), name="w")
    b = ds.Variable(np.zeros(4, np.float32), name="b")
    opt = ds.optimizers.AdamW(1e-2, weight_decay=0.01)

    def f(x, y):
        with ds.GradientTape() as tape:
            logits = ds.matmul(x, w) + b
            loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b]))
        return loss

    return f, [w, b]


def _in_a_branch():
    def f(x):
        def yes():
            return x * (ds.constant(2.0) / 4.0)

        return ds.cond(ds.reduce_sum(x) > 0, yes, lambda: x - ds.cast(ds.constant(1), ds.float32))

    return f, []


def _by_zero():
    def f(x):
        return x * (ds.constant([1.0, 0.0, -2.0]) / 0.0)  # inf, nan, -inf: silent, as the eager op

    return f, []


CASES = [
    # (name, maker, arguments)
    ("constant chains and a mean's gradient seed", _scaled_mean, lambda: (ds.constant(np.ones((2, 3), np.float32)),)),
    ("a training step", _mlp_step,
     lambda: (ds.constant(np.random.default_rng(4).standard_normal((6, 5)).astype(np.float32)),
              ds.constant(np.array([0, 1, 2, 3, 1, 0])))),
    ("both branches of a cond", _in_a_branch, lambda: (ds.constant([1.0, -3.0]),)),
    ("a division by zero", _by_zero, lambda: (ds.constant([1.0, 2.0, 3.0]),)),
]


@pytest.mark.parametrize("name,make,args", CASES, ids=[c[0] for c in CASES])
def test_constant_only_ops_are_computed_when_the_plan_is_built_and_give_the_eager_bits(name, make, args):
    results = {}
    for compiled in (False, True):
        f, variables = make()
        fn = ds.function(f) if compiled else f
        outs = [ds.nest.map_structure(lambda t: np.array(t), fn(*args())) for _ in range(4)]  # calls 2-4: the plan
        results[compiled] = (outs, [v.numpy() for v in variables])
        if compiled:
            cf = fn.get_concrete_function(*args())
            before = _constant_only(cf.graph)
            plan = cf.plan()
            assert plan is not None
    assert before == [] and plan.folded > 0  # (the plan was built by the second call: nothing left to fold)
    assert _constant_only(plan.graph) == []
    (eager, eager_vars), (compiled, compiled_vars) = results[False], results[True]
    for a, b in zip(ds.nest.flatten(compiled), ds.nest.flatten(eager)):
        np.testing.assert_array_equal(a, b)  # bit for bit
    for a, b in zip(compiled_vars, eager_vars):
        np.testing.assert_array_equal(a, b)


def test_a_constant_result_is_kept_as_a_node_so_each_call_hands_back_its_own_array():
    @ds.function
    def f(x):
        return x + 1.0, ds.constant([1.0, 2.0]) * 3.0

    x = ds.constant([0.5, 0.25])
    f(x)
    first = f(x)[1].numpy()
    first[0] = 100.0  # (a caller writing into what it got)
    second = f(x)[1].numpy()
    np.testing.assert_array_equal(second, [3.0, 6.0])
    cf = f.get_concrete_function(x)
    assert _constant_only(cf.plan().graph) == ["multiply"]


def test_an_op_that_refuses_its_constants_stays_a_node():
    """Folding never raises: a constant-only op whose forward fails stays a node (what the trace ran is what a call
    runs). The graph's own constants here are valid; a broken one is made by hand."""
    from descend.compiler.graph import Graph, Node
    from descend.framework.op import OPS

    g = Graph("g")
    a = Value((2,), np.float32, const=np.ones(2, np.float32))
    node = Node("op", op=OPS["reshape"], inputs=[a], attrs={"shape": (3,)})  # 2 elements cannot be 3
    node.outputs = [Value((3,), np.float32, node)]
    g.nodes.append(node)
    g.outputs = [Value((1,), np.float32, const=np.ones(1, np.float32))]
    assert g.fold_constants({"reshape"}) == 0 and g.nodes == [node]


# ---------------------------------------------------------------------------------------- a Sequential's plan
def _keras_step(how: str, sizes=(20, 16, 10)):
    """The training step of an MLP with ReLU, sparse softmax cross-entropy from logits (Keras' loss object) and AdamW:
    ``how`` is "lazy" (a Sequential built by the step's first call), "built" (built before it) or "raw" (Variables and
    ``ds.matmul``)."""
    rng = np.random.default_rng(0)
    shapes = list(zip(sizes[:-1], sizes[1:]))
    init = [(rng.standard_normal(s).astype(np.float32) * 0.3, rng.standard_normal(s[1]).astype(np.float32) * 0.1)
            for s in shapes]
    loss_fn = ds.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    opt = ds.keras.optimizers.AdamW(learning_rate=1e-2, weight_decay=0.01)
    if how == "raw":
        params = [(ds.Variable(k, name=f"k{i}"), ds.Variable(b, name=f"b{i}")) for i, (k, b) in enumerate(init)]
        variables = [v for pair in params for v in pair]

        def forward(x):
            h = x
            for i, (k, b) in enumerate(params):
                h = ds.matmul(h, k) + b
                if i < len(params) - 1:
                    h = ds.nn.relu(h)
            return h

        weights = lambda: variables  # noqa: E731
    else:
        L = ds.keras.layers

        def dense(units, k, b, **kw):  # (the raw step's values, through initializers: no write in the step)
            return L.Dense(units, kernel_initializer=lambda shape, dtype=None: k,
                           bias_initializer=lambda shape, dtype=None: b, **kw)

        model = ds.keras.Sequential([dense(u, k, b, activation="relu") for u, (k, b) in zip(sizes[1:-1], init)]
                                    + [dense(sizes[-1], *init[-1])])
        if how == "built":
            model.build((None, sizes[0]))

        def forward(x):
            return model(x, training=True)

        weights = lambda: model.trainable_variables  # noqa: E731

    @ds.function
    def step(x, y):
        with ds.GradientTape() as tape:
            loss = loss_fn(y, forward(x))
        grads = tape.gradient(loss, weights())
        opt.apply_gradients(zip(grads, weights()))
        return loss

    return step, weights


def _plan_ops(cf) -> list:
    return [n.label() for n in cf.plan().graph.walk()]


def test_a_sequential_step_runs_the_plan_of_raw_variables_doing_the_same_arithmetic():
    rng = np.random.default_rng(1)
    x = ds.constant(rng.standard_normal((8, 20)).astype(np.float32))
    y = ds.constant(rng.integers(0, 10, 8))
    runs = {}
    for how in ("raw", "built", "lazy"):
        step, weights = _keras_step(how)
        losses = [float(step(x, y)) for _ in range(4)]  # the second call builds the plan
        cf = step.get_concrete_function(x, y)
        runs[how] = (losses, [w.numpy() for w in weights()], _plan_ops(cf), cf.plan().source.count("\n"))
    raw = runs["raw"]
    assert collections.Counter(raw[2])["matmul"] == 5  # 2 forward, 3 backward (no gradient of the input)
    for how in ("built", "lazy"):
        losses, values, ops, lines = runs[how]
        assert ops == raw[2], how  # the same nodes in the same order: the model adds none, built either way
        assert lines == raw[3], how
        assert losses == raw[0], how  # bit for bit
        for a, b in zip(values, raw[1]):
            np.testing.assert_array_equal(a, b)
    assert _constant_only(step.get_concrete_function(x, y).plan().graph) == []
