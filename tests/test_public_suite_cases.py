"""Cases of the public Keras and TensorFlow test suites that failed on descend (issue 23), with their
assertions restated here: Keras' optimizer auto-naming, TF 1's ``compute_gradients`` of plain tensors and
``apply_gradients`` refusing them, TF 1 ``RMSPropOptimizer``'s slots (``mg`` only when centered, ``get_slot``
None otherwise) and its sparse update from an ``IndexedSlices`` whose ``dense_shape`` does not describe the
variable (TF 1 reads the values and indices alone). Where TensorFlow or Keras is installed the same calls
run there too and the results are compared."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds


# ================================================================ keras optimizer_test.test_optimizer_auto_naming
def test_optimizer_auto_naming_as_keras():
    ds.clear_session()
    opt = ds.keras.optimizers
    adam_1, adam_2 = opt.Adam(), opt.Adam()
    sgd_1, sgd_2 = opt.SGD(), opt.SGD()
    adamw_1, adamw_2 = opt.AdamW(), opt.AdamW()
    assert [o.name for o in (adam_1, adam_2, sgd_1, sgd_2, adamw_1, adamw_2)] == \
        ["adam", "adam_1", "sgd", "sgd_1", "adam_w", "adam_w_1"]
    assert opt.Adam(name="my_adam").name == "my_adam"
    assert opt.deserialize(opt.serialize(adam_2)).name == "adam_1"  # the name survives a config round trip
    ds.clear_session()  # a new session names from scratch, as Keras' clear_session
    assert opt.Adam().name == "adam"
    keras = pytest.importorskip("keras")
    keras.backend.clear_session()
    theirs = [keras.optimizers.Adam(), keras.optimizers.Adam(), keras.optimizers.AdamW()]
    assert [o.name for o in theirs] == ["adam", "adam_1", "adam_w"]


# ================================================================ tf training/optimizer_test.py
def test_compute_gradients_of_tensors_and_apply_gradients_refusing_them():
    x = ds.convert_to_tensor(1.0)
    sgd = ds.compat.v1.train.GradientDescentOptimizer(3.0)
    grads_and_vars = sgd.compute_gradients(lambda: x * x, [x])
    assert len(grads_and_vars) == 1
    grad, x_as_var = grads_and_vars[0]
    assert x_as_var is x and float(grad) == 2.0
    w = ds.Variable([1.0], name="w")
    with pytest.raises(NotImplementedError, match="Trying to update a Tensor"):
        sgd.apply_gradients([(ds.constant([1.0]), w)] + grads_and_vars)
    assert w.numpy().tolist() == [1.0]  # checked before anything changed
    tf = pytest.importorskip("tensorflow")
    tx = tf.convert_to_tensor(1.0)
    theirs = tf.compat.v1.train.GradientDescentOptimizer(3.0)
    tgv = theirs.compute_gradients(lambda: tx * tx, [tx])
    assert float(tgv[0][0]) == float(grad)
    with pytest.raises(NotImplementedError):
        theirs.apply_gradients(tgv)


# ================================================================ tf training/rmsprop_test.py
PARAMS = [  # learning_rate, decay, momentum, epsilon, centered (TF's table)
    (0.5, 0.9, 0.0, 1e-3, True), (0.5, 0.9, 0.0, 1e-3, False), (0.1, 0.9, 0.0, 1e-3, True),
    (0.5, 0.95, 0.0, 1e-3, False), (0.5, 0.95, 0.0, 1e-5, True), (0.5, 0.95, 0.9, 1e-5, True),
]


def _numpy_rmsprop(var, g, mg, rms, mom, lr, decay, momentum, epsilon, centered, rows=None):
    """TF's reference of one (sparse: rows ``rows``) RMSProp step."""
    var, mg, rms, mom = var.copy(), mg.copy(), rms.copy(), mom.copy()
    rows = np.arange(len(var)) if rows is None else rows
    for i, r in enumerate(rows):
        gv = g[i]
        rms[r] = rms[r] * decay + (1 - decay) * gv * gv
        denom = rms[r] + epsilon
        if centered:
            mg[r] = mg[r] * decay + (1 - decay) * gv
            denom -= mg[r] * mg[r]
        mom[r] = momentum * mom[r] + lr * gv / np.sqrt(denom)
        var[r] = var[r] - mom[r]
    return var, mg, rms, mom


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("lr,decay,momentum,epsilon,centered", PARAMS)
def test_rmsprop_optimizer_slots_and_steps_as_tf(lr, decay, momentum, epsilon, centered, sparse):
    var0 = ds.Variable(np.array([1.0, 2.0], np.float32))
    var1 = ds.Variable(np.array([3.0, 4.0], np.float32))
    if sparse:  # TF's test gives dense_shape [1]: it describes the gradient's values, not the variable
        g0_np, g1_np, rows = np.array([0.1], np.float32), np.array([0.01], np.float32), ([0], [1])
        grads = [ds.IndexedSlices(ds.constant(g), ds.constant(np.array(r, np.int32)), ds.constant([1]))
                 for g, r in zip((g0_np, g1_np), rows)]
    else:
        g0_np, g1_np, rows = np.array([0.1, 0.2], np.float32), np.array([0.01, 0.2], np.float32), (None, None)
        grads = [ds.constant(g0_np), ds.constant(g1_np)]
    opt = ds.compat.v1.train.RMSPropOptimizer(learning_rate=lr, decay=decay, momentum=momentum, epsilon=epsilon,
                                              centered=centered)
    ref = [(np.array([1.0, 2.0], np.float32), g0_np), (np.array([3.0, 4.0], np.float32), g1_np)]
    state = [[np.zeros(2, np.float32), np.ones(2, np.float32), np.zeros(2, np.float32)] for _ in ref]
    for _ in range(4):
        opt.apply_gradients(zip(grads, [var0, var1]))
        for k, ((v, g), r) in enumerate(zip(ref, rows)):
            v, *state[k] = _numpy_rmsprop(v, g, *state[k], lr, decay, momentum, epsilon, centered, r)
            ref[k] = (v, g)
        for var, (v, _), (mg, rms, mom) in zip((var0, var1), ref, state):
            assert (opt.get_slot(var, "mg") is not None) == centered
            if centered:
                np.testing.assert_allclose(opt.get_slot(var, "mg").numpy(), mg, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(opt.get_slot(var, "rms").numpy(), rms, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(opt.get_slot(var, "momentum").numpy(), mom, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(var.numpy(), v, rtol=1e-5, atol=1e-6)


def test_rmsprop_optimizer_matches_tensorflow_on_the_sparse_case():
    tf = pytest.importorskip("tensorflow")
    ours = [ds.Variable(np.array([1.0, 2.0], np.float32)), ds.Variable(np.array([3.0, 4.0], np.float32))]
    theirs = [tf.Variable(np.array([1.0, 2.0], np.float32)), tf.Variable(np.array([3.0, 4.0], np.float32))]
    o = ds.compat.v1.train.RMSPropOptimizer(0.5, decay=0.95, momentum=0.9, epsilon=1e-5, centered=True)
    t = tf.compat.v1.train.RMSPropOptimizer(0.5, decay=0.95, momentum=0.9, epsilon=1e-5, centered=True)
    for _ in range(4):
        o.apply_gradients([(ds.IndexedSlices(ds.constant([0.1]), ds.constant([i]), ds.constant([1])), v)
                           for i, v in enumerate(ours)])
        t.apply_gradients([(tf.IndexedSlices(tf.constant([0.1]), tf.constant([i]), tf.constant([1])), v)
                           for i, v in enumerate(theirs)])
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert o.get_slot(ours[0], "nope") is None and t.get_slot(theirs[0], "nope") is None
    # rows outside the variable are still refused, and nothing changes
    before = ours[0].numpy().copy()
    with pytest.raises((ValueError, IndexError)):
        o.apply_gradients([(ds.IndexedSlices(ds.constant([0.1]), ds.constant([5]), ds.constant([1])), ours[0])])
    np.testing.assert_array_equal(ours[0].numpy(), before)
