"""tf.SparseTensor, tf.sparse, tf.sets and tf.edit_distance (descend/sparse, descend/sets.py) against TF."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds

DENSE = np.array([[0.0, 2.0, 0.0, -1.0], [0.0, 0.0, 0.0, 0.0], [3.0, 0.0, 0.5, 0.0]], np.float32)
DENSE3 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) * (np.arange(24).reshape(2, 3, 4) % 3 == 0)


def _sp(m, dense):
    return m.sparse.from_dense(dense)


def _same(ours, theirs):
    if hasattr(theirs, "indices") and hasattr(theirs, "dense_shape"):
        assert isinstance(ours, ds.SparseTensor)
        assert np.asarray(ours.indices.numpy()).tolist() == theirs.indices.numpy().tolist()
        np.testing.assert_allclose(np.asarray(ours.values.numpy()), theirs.values.numpy(), rtol=1e-6)
        assert np.asarray(ours.dense_shape.numpy()).tolist() == theirs.dense_shape.numpy().tolist()
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b)
    else:
        np.testing.assert_allclose(np.asarray(ours.numpy()), theirs.numpy(), rtol=1e-6)


CASES = {
    "from_dense": lambda m: _sp(m, DENSE),
    "to_dense": lambda m: m.sparse.to_dense(_sp(m, DENSE3)),
    "to_dense_default": lambda m: m.sparse.to_dense(_sp(m, DENSE), default_value=-7.0),
    "matmul": lambda m: m.sparse.sparse_dense_matmul(_sp(m, DENSE), (np.ones((4, 2)) * [1, 3]).astype(np.float32)),
    "matmul_adj_a": lambda m: m.sparse.sparse_dense_matmul(_sp(m, DENSE), np.arange(6, dtype=np.float32).reshape(3, 2),
                                                           adjoint_a=True),
    "matmul_adj_b": lambda m: m.sparse.sparse_dense_matmul(_sp(m, DENSE), np.arange(8, dtype=np.float32).reshape(2, 4),
                                                           adjoint_b=True),
    "matmul_dense_sparse": lambda m: m.sparse.sparse_dense_matmul(np.arange(6, dtype=np.float32).reshape(2, 3),
                                                                  _sp(m, DENSE)),
    "reduce_sum_all": lambda m: m.sparse.reduce_sum(_sp(m, DENSE3)),
    "reduce_sum_1": lambda m: m.sparse.reduce_sum(_sp(m, DENSE3), axis=1),
    "reduce_sum_keep": lambda m: m.sparse.reduce_sum(_sp(m, DENSE3), axis=[0, 2], keepdims=True),
    "reduce_sum_sparse": lambda m: m.sparse.reduce_sum(_sp(m, DENSE3), axis=-1, output_is_sparse=True),
    "reduce_max_1": lambda m: m.sparse.reduce_max(_sp(m, -DENSE - 1 * (DENSE != 0)), axis=1),
    "add_sparse": lambda m: m.sparse.add(_sp(m, DENSE), _sp(m, -DENSE * (DENSE > 0) + np.eye(3, 4, dtype=np.float32))),
    "add_threshold": lambda m: m.sparse.add(_sp(m, DENSE), _sp(m, np.eye(3, 4, dtype=np.float32)), threshold=1.5),
    "add_dense": lambda m: m.sparse.add(_sp(m, DENSE), np.ones((3, 4), np.float32)),
    "transpose": lambda m: m.sparse.transpose(_sp(m, DENSE3), [2, 0, 1]),
    "transpose_default": lambda m: m.sparse.transpose(_sp(m, DENSE)),
    "reshape": lambda m: m.sparse.reshape(_sp(m, DENSE3), [4, -1]),
    "expand_dims": lambda m: m.sparse.expand_dims(_sp(m, DENSE), 1),
    "concat_0": lambda m: m.sparse.concat(0, [_sp(m, DENSE), _sp(m, DENSE[:2])]),
    "concat_1": lambda m: m.sparse.concat(1, [_sp(m, DENSE), _sp(m, DENSE[:, :2])]),
    "retain": lambda m: m.sparse.retain(_sp(m, DENSE), [True, False, True, False]),
    "slice": lambda m: m.sparse.slice(_sp(m, DENSE3), [0, 1, 1], [2, 5, 2]),
    "split": lambda m: m.sparse.split(sp_input=_sp(m, DENSE), num_split=3, axis=1),
    "reset_shape": lambda m: m.sparse.reset_shape(_sp(m, DENSE), [5, 6]),
    "reset_shape_tight": lambda m: m.sparse.reset_shape(_sp(m, DENSE[:, :3])),
    "fill_empty_rows": lambda m: m.sparse.fill_empty_rows(_sp(m, DENSE), -2.0),
    "maximum": lambda m: m.sparse.maximum(_sp(m, DENSE), _sp(m, (np.eye(3, 4) - 2 * (DENSE < 0)).astype(np.float32))),
    "minimum": lambda m: m.sparse.minimum(_sp(m, DENSE), _sp(m, np.eye(3, 4, dtype=np.float32))),
    "softmax": lambda m: m.sparse.softmax(_sp(m, DENSE3 / 10)),
    "eye": lambda m: m.sparse.eye(3, 5),
    "to_indicator": lambda m: m.sparse.to_indicator(m.sparse.from_dense(np.array([[0, 3, 3], [5, 0, 0]], np.int64)), 6),
    "map_values": lambda m: m.sparse.map_values(m.math.multiply, _sp(m, DENSE), _sp(m, DENSE)),
    "intersection": lambda m: m.sets.intersection([[1, 2, 3, 3], [4, 5, 6, 7]], [[3, 1, 9, 9], [7, 7, 0, 4]]),
    "union": lambda m: m.sets.union([[1, 2, 3, 3], [4, 5, 6, 7]], [[3, 1, 9, 9], [7, 7, 0, 4]]),
    "difference": lambda m: m.sets.difference([[1, 2, 3, 3], [4, 5, 6, 7]], [[3, 1, 9, 9], [7, 7, 0, 4]]),
    "difference_ba": lambda m: m.sets.difference([[1, 2], [4, 5]], [[3, 1], [7, 7]], aminusb=False),
    "sets_sparse": lambda m: m.sets.union(m.sparse.from_dense(np.array([[[1, 0], [2, 2]]], np.int64)),
                                          m.sparse.from_dense(np.array([[[0, 0], [3, 2]]], np.int64))),
    "sets_strings": lambda m: m.sets.intersection([[b"a", b"b"], [b"c", b"d"]], [[b"b", b"a"], [b"x", b"c"]]),
    "set_size": lambda m: m.sets.size(m.sparse.from_dense(np.array([[1, 1, 0], [2, 3, 4]]))),
    "edit_distance": lambda m: m.edit_distance(
        m.sparse.from_dense(np.array([[b"a", b"b", b""], [b"c", b"", b""], [b"", b"", b""]], object)),
        m.sparse.from_dense(np.array([[b"a", b"c", b"d"], [b"", b"", b""], [b"", b"", b""]], object))),
    "edit_distance_raw": lambda m: m.edit_distance(
        m.sparse.from_dense(np.array([[[1, 2, 3]], [[4, 0, 0]]], np.int64)),
        m.sparse.from_dense(np.array([[[1, 3, 0]], [[5, 4, 4]]], np.int64)), normalize=False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sparse_ops_equal_tensorflows(name):
    tf = pytest.importorskip("tensorflow")
    if name.startswith("sets_strings") or name.startswith("edit_distance") and "raw" not in name:
        ours = CASES[name](ds)
        theirs = CASES[name](tf)
        if hasattr(theirs, "values"):
            assert np.asarray(ours.indices.numpy()).tolist() == theirs.indices.numpy().tolist()
            assert list(np.asarray(ours.values.numpy())) == list(theirs.values.numpy())
        else:
            np.testing.assert_array_equal(np.asarray(ours.numpy()), theirs.numpy())
        return
    _same(CASES[name](ds), CASES[name](tf))


@pytest.mark.parametrize("name", ["to_dense", "matmul", "matmul_adj_a", "reduce_sum_1", "softmax", "add_dense"])
def test_gradients_reach_the_values_as_in_tensorflow(name):
    tf = pytest.importorskip("tensorflow")
    weights = np.linspace(-1, 1, 24).astype(np.float32)

    def run(m, watch):
        values = watch(m)
        sp = m.sparse.from_dense(DENSE if name != "to_dense" and name != "reduce_sum_1" and name != "softmax"
                                 else DENSE3)
        sp = sp.with_values(values)
        if name == "to_dense":
            out = m.sparse.to_dense(sp)
        elif name == "matmul":
            out = m.sparse.sparse_dense_matmul(sp, np.ones((4, 2), np.float32))
        elif name == "matmul_adj_a":
            out = m.sparse.sparse_dense_matmul(sp, np.ones((3, 2), np.float32), adjoint_a=True)
        elif name == "reduce_sum_1":
            out = m.sparse.reduce_sum(sp, axis=1)
        elif name == "softmax":
            out = m.sparse.softmax(sp).values
        else:
            out = m.sparse.add(sp, np.ones((3, 4), np.float32))
        flat = m.reshape(out, [-1])
        return m.reduce_sum(flat * flat * weights[: flat.shape[0]])

    n = int((DENSE3 != 0).sum()) if name in ("to_dense", "reduce_sum_1", "softmax") else int((DENSE != 0).sum())
    start = np.linspace(0.5, 2.0, n).astype(np.float32)
    v_ds, v_tf = ds.Variable(start), tf.Variable(start)
    with ds.GradientTape() as tape:
        loss = run(ds, lambda m: v_ds)
    ours = tape.gradient(loss, v_ds)
    with tf.GradientTape() as tape:
        loss_tf = run(tf, lambda m: v_tf)
    theirs = tape.gradient(loss_tf, v_tf)
    np.testing.assert_allclose(float(loss), float(loss_tf), rtol=1e-5)
    np.testing.assert_allclose(np.asarray(ds.convert_to_tensor(ours).numpy()), tf.convert_to_tensor(theirs).numpy(),
                               rtol=1e-5, atol=1e-6)


def test_sparse_tensor_without_tensorflow():
    sp = ds.SparseTensor([[0, 0], [1, 2]], [1.0, 2.0], [3, 4])
    assert sp.shape == [3, 4] and sp.dtype == ds.float32 and sp.indices.dtype == ds.int64
    assert ds.sparse.to_dense(sp).numpy()[1, 2] == 2.0
    assert ds.sets.intersection([[1, 2]], [[2, 3]]).values.numpy().tolist() == [2]
    assert ds.edit_distance(ds.sparse.from_dense([[1, 2]]), ds.sparse.from_dense([[1, 3, 4]])).numpy()[0] == \
        pytest.approx(2 / 3)


@pytest.mark.parametrize("make,error,match", [
    (lambda: ds.SparseTensor([[0, 0]], [1.0, 2.0], [3, 4]), ValueError, "values must have shape"),
    (lambda: ds.SparseTensor([[0]], [1.0], [3, 4]), ValueError, r"indices must have shape \[N, 2\]"),
    (lambda: ds.sparse.to_dense(ds.SparseTensor([[1, 0], [0, 0]], [1.0, 2.0], [3, 4])), ds.errors.InvalidArgumentError,
     "out of order"),
    (lambda: ds.sparse.to_dense(ds.SparseTensor([[0, 0], [0, 0]], [1.0, 2.0], [3, 4])), ds.errors.InvalidArgumentError,
     "repeated"),
    (lambda: ds.sparse.to_dense(ds.SparseTensor([[5, 0]], [1.0], [3, 4])), ds.errors.InvalidArgumentError,
     "out of bounds"),
    (lambda: ds.sparse.to_dense([[1.0]]), TypeError, "must be a SparseTensor"),
    (lambda: ds.sparse.reshape(ds.sparse.from_dense(DENSE), [5, -1]), ValueError, "cannot reshape"),
    (lambda: ds.sets.union([[1.5]], [[1.5]]), TypeError, "integer or string"),
    (lambda: ds.sets.union([[1]], [[1], [2]]), ValueError, "agree in all but the last"),
    (lambda: ds.sets.size([[1]]), TypeError, "must be a SparseTensor"),
    (lambda: ds.sparse.sparse_dense_matmul(ds.sparse.from_dense(DENSE), np.ones((3, 1))), ValueError, "inner"),
])
def test_bad_inputs_are_refused(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_to_dense_without_validation_sums_nothing_and_takes_the_last():
    tf = pytest.importorskip("tensorflow")
    idx, vals = [[1, 0], [0, 0]], [1.0, 2.0]
    ours = ds.sparse.to_dense(ds.SparseTensor(idx, vals, [3, 4]), validate_indices=False).numpy()
    theirs = tf.sparse.to_dense(tf.sparse.SparseTensor(idx, vals, [3, 4]), validate_indices=False).numpy()
    assert np.array_equal(ours, theirs)
