"""Bad input to optimizers: a clear error, and no variable, slot or counter changed."""

import numpy as np
import pytest

import descend as ds
from descend.optimizers import SGD, Adam, MultiOptimizer


def _snapshot(opt, variables):
    return [v.numpy() for v in variables] + [v.numpy() for v in opt.variables()]


def _assert_unchanged(before, opt, variables):
    after = _snapshot(opt, variables)
    assert len(after) == len(before)
    for a, b in zip(before, after):
        np.testing.assert_array_equal(a, b)


@pytest.fixture
def setup():
    a = ds.Variable(np.ones((2, 3)), name="a")
    b = ds.Variable(np.ones(4), name="b")
    opt = Adam(0.1)
    opt.apply_gradients([(ds.constant(np.ones((2, 3))), a), (ds.constant(np.ones(4)), b)])  # slots exist
    return opt, a, b


def test_all_none_gradients(setup):
    opt, a, b = setup
    before = _snapshot(opt, [a, b])
    with pytest.raises(ValueError, match=r"No gradients provided for any variable: \['a:0', 'b:0'\]"):
        opt.apply_gradients([(None, a), (None, b)])
    _assert_unchanged(before, opt, [a, b])


def test_some_none_gradients_warn_and_update_the_others(setup):
    opt, a, b = setup
    with pytest.warns(UserWarning, match=r"\['b:0'\]"):
        opt.apply_gradients([(ds.constant(np.ones((2, 3))), a), (None, b)])
    assert int(opt.iterations) == 2


@pytest.mark.parametrize("bad,match", [
    (lambda: ds.constant(np.ones((3, 2))), r"variable 'a': expected shape \(2, 3\), received \(3, 2\)"),
    (lambda: ds.constant(np.ones((2, 3), bool)), "variable 'a': expected dtype float64, received bool"),
    (lambda: ds.IndexedSlices(ds.constant(np.ones((1, 3))), ds.constant([5]), (2, 3)),
     r"variable 'a': index 5 is not in \[0, 2\)"),
    (lambda: ds.IndexedSlices(ds.constant(np.ones((1, 3))), ds.constant([0]), (4, 3)),
     r"expected shape \(2, 3\), received IndexedSlices of dense_shape \(4, 3\)"),
])
def test_a_bad_gradient_anywhere_changes_nothing(setup, bad, match):
    opt, a, b = setup
    before = _snapshot(opt, [a, b])
    # b's gradient is fine and comes first: it must not be applied either
    with pytest.raises((ValueError, TypeError), match=match):
        opt.apply_gradients([(ds.constant(np.ones(4)), b), (bad(), a)])
    _assert_unchanged(before, opt, [a, b])


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.int32])
def test_a_gradient_of_another_numeric_dtype_is_cast_to_the_variables_as_keras_3(dtype):
    grad = np.array([[0.5, -1.0, 2.0], [1.0, 3.0, -0.25]])
    updated = []
    for g in (grad.astype(dtype).astype(np.float64), grad.astype(dtype)):
        v = ds.Variable(np.ones((2, 3)), name="a")
        opt = ds.optimizers.Adam(0.1)
        opt.apply_gradients([(ds.constant(g), v)])
        opt.apply_gradients([(ds.IndexedSlices(ds.constant(g[1:]), ds.constant([0]), (2, 3)), v)])
        assert v.dtype == ds.float64
        updated.append(v.numpy())
    np.testing.assert_array_equal(updated[1], updated[0])


def test_integer_variable_is_rejected():
    v = ds.Variable(np.array([1, 2], np.int32), name="counts")
    opt = SGD(0.1)
    with pytest.raises(TypeError, match="variable 'counts' has dtype int32; optimizers update floating-point"):
        opt.apply_gradients([(ds.constant(np.array([1, 1], np.int32)), v)])
    assert int(opt.iterations) == 0 and v.numpy().tolist() == [1, 2]


def test_variable_listed_twice_is_rejected(setup):
    opt, a, b = setup
    before = _snapshot(opt, [a, b])
    with pytest.raises(ValueError, match="variable 'a' appears more than once"):
        opt.apply_gradients([(ds.constant(np.ones((2, 3))), a), (ds.constant(np.ones((2, 3))), a)])
    _assert_unchanged(before, opt, [a, b])


@pytest.mark.parametrize("kwargs,match", [
    (dict(learning_rate=float("nan")), r"`learning_rate` must be a finite number. Received: learning_rate=nan"),
    (dict(beta_1=float("nan")), r"`beta_1` must be a finite number"),
    (dict(beta_1=1.5), r"`beta_1` must be in \[0, 1\). Received: beta_1=1.5"),
    (dict(beta_2=-0.1), r"`beta_2` must be in \[0, 1\). Received: beta_2=-0.1"),
    (dict(epsilon=-1.0), r"`epsilon` must be in \[0, inf\)"),
    (dict(learning_rate=-0.1), r"`learning_rate` must be in \[0, inf\)"),
    (dict(clipnorm=1.0, global_clipnorm=1.0), "Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"),
    (dict(sparse_updates="sometimes"), "`sparse_updates` must be 'exact', 'lazy' or 'exact_lazy'"),
    (dict(gradient_accumulation_steps=0), "`gradient_accumulation_steps` must be an integer >= 1"),
    (dict(on_nonfinite="ignore"), "`on_nonfinite` must be 'raise', 'skip', 'zero' or 'apply'"),
    (dict(momentum=0.9), r"argument\(s\) not recognized: \['momentum'\]"),
])
def test_bad_hyperparameters(kwargs, match):
    with pytest.raises((ValueError, TypeError), match=match):
        Adam(**kwargs)


def test_setting_a_bad_hyperparameter_later_is_rejected():
    opt = Adam()
    with pytest.raises(ValueError, match="beta_1"):
        opt.beta_1 = 2.0
    assert opt.beta_1 == 0.9


def test_multioptimizer_refuses_a_variable_of_another_optimizer():
    emb = ds.Variable(np.ones((3, 2)), name="embedding")
    dense = ds.Variable(np.ones(2), name="dense/kernel")
    stray = ds.Variable(np.ones(2), name="stray")
    fast, slow = ds.optimizers.Adagrad(0.1), SGD(0.1)
    multi = MultiOptimizer([(fast, [emb]), (slow, "dense")])
    g_emb, g_dense = ds.constant(np.ones((3, 2))), ds.constant(np.ones(2))
    multi.apply_gradients([(g_emb, emb), (g_dense, dense)])
    before = _snapshot(fast, [emb, dense]) + _snapshot(slow, [])
    # calling a sub-optimizer directly with the other's variable
    with pytest.raises(ValueError, match="variable 'embedding' is routed to optimizer 'adagrad'.*not to 'sgd'"):
        slow.apply_gradients([(g_dense, dense), (g_emb, emb)])
    # a variable no route matches: nothing is applied, not even the routed ones
    with pytest.raises(ValueError, match=r"no optimizer is routed to variables \['stray:0'\]"):
        multi.apply_gradients([(g_emb, emb), (g_dense, dense), (ds.constant(np.ones(2)), stray)])
    # a bad gradient for one optimizer stops the other too
    with pytest.raises(ValueError, match="expected shape"):
        multi.apply_gradients([(g_emb, emb), (ds.constant(np.ones(3)), dense)])
    np.testing.assert_array_equal(emb.numpy(), before[0])
    np.testing.assert_array_equal(dense.numpy(), before[1])
    assert int(fast.iterations) == 1 and int(slow.iterations) == 1


def test_multioptimizer_trains_disjoint_lists_with_their_own_slots():
    emb = ds.Variable(np.ones((3, 2)), name="embedding")
    w = ds.Variable(np.ones(2), name="w")
    adam, sgd = Adam(0.1), SGD(0.5, momentum=0.5)
    multi = MultiOptimizer([(adam, [emb]), (sgd, [w])])
    for _ in range(3):
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(ds.gather(emb, [0, 2])) + ds.reduce_sum(w * w)
        ge, gw = tape.gradient(loss, [emb, w])
        multi.apply_gradients([(ge, emb), (gw, w)])
    assert adam.get_slot_names() == ["m", "v"] and sgd.get_slot_names() == ["momentum"]
    with pytest.raises(KeyError):
        adam.get_slot(w, "m")
    # w: SGD momentum, Keras convention, by hand
    v, x = np.zeros(2), np.ones(2)
    for _ in range(3):
        v = 0.5 * v - 0.5 * (2 * x)
        x = x + v
    np.testing.assert_allclose(w.numpy(), x, rtol=1e-15)


def test_load_state_dict_reports_every_problem_at_once(setup):
    opt, a, b = setup
    state = opt.state_dict()
    state.pop("b/v")
    state["a/m"] = np.ones((3, 2))
    state["bogus"] = np.ones(1)
    before = _snapshot(opt, [a, b])
    with pytest.raises(ValueError) as err:
        opt.load_state_dict(state)
    msg = str(err.value)
    assert "missing: ['b/v']" in msg and "unexpected: ['bogus']" in msg
    assert "a/m: expected shape (2, 3), received (3, 2)" in msg
    _assert_unchanged(before, opt, [a, b])
