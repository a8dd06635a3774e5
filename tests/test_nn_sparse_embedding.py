"""tf.nn.embedding_lookup_sparse / safe_embedding_lookup_sparse and the depthwise backprops (issue 37):
values and gradients against TF, and the table's gradient an IndexedSlices of the distinct ids read."""

from collections import namedtuple

import numpy as np
import pytest

import descend as ds

Sparse = namedtuple("Sparse", "indices values dense_shape")

_TABLE = np.random.default_rng(3).normal(size=(7, 3))
# (indices, ids, dense_shape, weights or None): row 1 empty, row 4 (last) empty, an id repeated
_IDS = ([[0, 0], [0, 1], [0, 2], [2, 0], [3, 0], [3, 1]], [1, 4, 1, 6, 0, 2], [5, 3])
_WEIGHTS = [0.5, 2.0, 1.5, -1.0, 3.0, 0.25]


def _tf_sparse(tf, indices, values, shape):
    return tf.SparseTensor(np.array(indices, np.int64), np.array(values), np.array(shape, np.int64))


def _run(lib, fn, table, weighted, dtype, **kwargs):
    t = lib.Variable(table.astype(dtype))
    idx, ids, shape = _IDS
    if lib is ds:
        sp, sw = Sparse(idx, np.array(ids, np.int64), shape), Sparse(idx, np.array(_WEIGHTS, dtype), shape)
    else:
        sp, sw = _tf_sparse(lib, idx, np.array(ids, np.int64), shape), _tf_sparse(lib, idx, np.array(_WEIGHTS, dtype),
                                                                                  shape)
    with lib.GradientTape() as tape:
        y = getattr(lib.nn, fn)(t, sp, sw if weighted else None, **kwargs)
        loss = lib.reduce_sum(y * np.linspace(-1, 1, int(np.prod(y.shape))).reshape(y.shape).astype(dtype))
    return y.numpy(), tape.gradient(loss, t)


_FN_EXTRA = [("embedding_lookup_sparse", {}), ("embedding_lookup_sparse", {"max_norm": 1.1}),
             ("safe_embedding_lookup_sparse", {}), ("safe_embedding_lookup_sparse", {"max_norm": 1.1}),
             ("safe_embedding_lookup_sparse", {"default_id": 5})]  # default_id is the safe form's


@pytest.mark.parametrize("fn,extra", _FN_EXTRA)
@pytest.mark.parametrize("combiner", ["sum", "mean", "sqrtn"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_matches_tensorflow_values_and_sparse_gradient(fn, extra, combiner, weighted, dtype):
    tf = pytest.importorskip("tensorflow")
    y, g = _run(ds, fn, _TABLE, weighted, dtype, combiner=combiner, **extra)
    ty, tg = _run(tf, fn, _TABLE, weighted, dtype, combiner=combiner, **extra)
    tol = 1e-6 if dtype == "float32" else 1e-13
    assert y.shape == ty.shape and y.dtype == ty.dtype
    np.testing.assert_allclose(y, ty, rtol=tol, atol=tol)
    assert isinstance(g, ds.IndexedSlices), type(g)
    idx = g.indices.numpy()
    assert len(set(idx.tolist())) == idx.size  # each row read once, never the whole table
    dense = np.zeros_like(_TABLE, dtype=dtype)
    np.add.at(dense, idx, g.values.numpy())
    np.testing.assert_allclose(dense, tf.convert_to_tensor(tg).numpy(), rtol=tol, atol=tol)


def test_rank3_ids_and_ragged_ids():
    tf = pytest.importorskip("tensorflow")
    idx = [[0, 0, 0], [0, 1, 1], [1, 0, 0], [1, 0, 1]]
    ids, shape = np.array([3, -1, 2, 5], np.int64), [2, 2, 2]
    got = ds.nn.safe_embedding_lookup_sparse(ds.constant(_TABLE), Sparse(idx, ids, shape))
    want = tf.nn.safe_embedding_lookup_sparse(tf.constant(_TABLE), _tf_sparse(tf, idx, ids, shape))
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)
    ragged = ds.RaggedTensor.from_row_lengths(np.array([1, 4, 4, 2], np.int64), [2, 0, 2])
    got = ds.nn.embedding_lookup_sparse(ds.constant(_TABLE), ragged, None, combiner="sum")
    want = tf.nn.embedding_lookup_sparse(tf.constant(_TABLE), tf.RaggedTensor.from_row_lengths(
        np.array([1, 4, 4, 2], np.int64), [2, 0, 2]), None, combiner="sum")
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-14)


def test_sharded_table_gives_each_shard_its_rows():
    shards = [ds.Variable(_TABLE[:4]), ds.Variable(_TABLE[4:])]
    sp = Sparse(*_IDS)
    with ds.GradientTape() as tape:
        y = ds.nn.embedding_lookup_sparse(shards, sp, None, combiner="sum")
    g0, g1 = tape.gradient(y, shards)
    assert sorted(g0.indices.numpy().tolist()) == [0, 1, 2] and sorted(g1.indices.numpy().tolist()) == [0, 2]
    np.testing.assert_allclose(y.numpy(), ds.nn.embedding_lookup_sparse(ds.constant(_TABLE), sp, None,
                                                                         combiner="sum").numpy())


@pytest.mark.parametrize("call,error,match", [
    (lambda: ds.nn.embedding_lookup_sparse(_TABLE, Sparse(*_IDS), None, combiner="max"), ValueError, "combiner"),
    (lambda: ds.nn.embedding_lookup_sparse(_TABLE, [[1, 2]], None), TypeError, "SparseTensor"),
    (lambda: ds.nn.embedding_lookup_sparse(_TABLE, Sparse(*_IDS), Sparse([[0, 0]], [1.0], [5, 3])), ValueError,
     "shape of sp_ids"),
    (lambda: ds.nn.embedding_lookup_sparse(_TABLE, Sparse([[0, 0]], [1.5], [1, 1]), None), TypeError, "integers"),
    (lambda: ds.nn.embedding_lookup_sparse(_TABLE, Sparse([[0, 0]], [9], [1, 1]), None), ds.errors.InvalidArgumentError,
     "ids"),
    (lambda: ds.nn.safe_embedding_lookup_sparse(None, Sparse(*_IDS)), ValueError, "embedding_weights"),
])
def test_bad_inputs_raise_clear_errors(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ---------------------------------------------------------------- depthwise backprops
@pytest.mark.parametrize("strides,padding,dilations,fmt", [
    ([1, 1, 1, 1], "VALID", [1, 1, 1, 1], "NHWC"),
    ([1, 2, 2, 1], "SAME", [1, 1, 1, 1], "NHWC"),
    ([1, 1, 1, 1], "SAME", [1, 2, 1, 1], "NHWC"),
    ([1, 3, 3, 1], "VALID", [1, 1, 1, 1], "NHWC"),
])
def test_depthwise_backprops_match_tensorflow_and_the_tape(strides, padding, dilations, fmt):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(1)
    x, k = rng.normal(size=(2, 6, 7, 3)), rng.normal(size=(3, 2, 3, 2))
    y = tf.nn.depthwise_conv2d(x, k, strides, padding, dilations=dilations[1:3])
    g = rng.normal(size=y.shape)
    kw = dict(strides=strides, padding=padding, dilations=dilations)
    for name, args in (("depthwise_conv2d_backprop_input", (list(x.shape), k, g)),
                       ("depthwise_conv2d_backprop_filter", (x, list(k.shape), g))):
        if dilations == [1, 1, 1, 1]:  # TF's CPU kernels ignore `dilations` (the tape's gradient below does not)
            want = getattr(tf.nn, name)(*args, **kw).numpy()
            got = getattr(ds.nn, name)(*args, **kw).numpy()
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    # and they are the tape's gradients of depthwise_conv2d
    xs, ks = ds.constant(x), ds.constant(k)
    with ds.GradientTape() as tape:
        tape.watch([xs, ks])
        out = ds.nn.depthwise_conv2d(xs, ks, strides, padding, dilations=dilations[1:3])
    dx, dk = tape.gradient(out, [xs, ks], output_gradients=ds.constant(g))
    np.testing.assert_allclose(ds.nn.depthwise_conv2d_backprop_input(x.shape, k, g, **kw).numpy(), dx.numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(ds.nn.depthwise_conv2d_backprop_filter(x, k.shape, g, **kw).numpy(), dk.numpy(),
                               rtol=1e-12)


def test_depthwise_backprop_rejects_a_mismatched_out_backprop():
    with pytest.raises(ValueError, match="out_backprop must have shape"):
        ds.nn.depthwise_conv2d_backprop_input([1, 4, 4, 2], np.ones((2, 2, 2, 1)), np.ones((1, 3, 3, 3)), [1, 1, 1, 1],
                                              "VALID")
