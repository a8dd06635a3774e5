"""keras.ops windows/histogram, keras.utils logging switches and tf space-to-batch ops (issue 37).

The comparisons with TF/Keras are rows of tests/differential_cases.py; here: hand-computed values and errors."""

import numpy as np
import pytest

from descend.keras import ops


@pytest.mark.parametrize("name,n,expected", [
    ("bartlett", 5, [0.0, 0.5, 1.0, 0.5, 0.0]),
    ("hanning", 3, [0.0, 1.0, 0.0]),
    ("hamming", 3, [0.08, 1.0, 0.08]),
    ("blackman", 3, [0.0, 1.0, 0.0]),
    ("hamming", 1, [1.0]),
    ("hamming", 0, []),
])
def test_windows_values_and_dtype(name, n, expected):
    w = getattr(ops, name)(n)
    assert w.dtype == "float32"
    np.testing.assert_allclose(w.numpy(), expected, atol=1e-6)


def test_kaiser_beta_zero_is_rectangular():
    np.testing.assert_array_equal(ops.kaiser(4, 0.0).numpy(), np.ones(4, np.float32))


@pytest.mark.parametrize("bad,err", [(-1, ValueError), (2.5, TypeError), (True, TypeError)])
def test_windows_reject_bad_lengths(bad, err):
    with pytest.raises(err, match="window length"):
        ops.hamming(bad)


def test_histogram_counts_edges_and_range():
    counts, edges = ops.histogram(np.array([1.0, 2.0, 2.0, 3.5, 7.0], np.float32), bins=4)
    np.testing.assert_array_equal(counts.numpy(), [3, 1, 0, 1])  # 7 falls in the last, closed bin
    np.testing.assert_allclose(edges.numpy(), [1.0, 2.5, 4.0, 5.5, 7.0])
    assert counts.dtype == "float32"
    counts, edges = ops.histogram(np.array([-1.0, 0.5, 1.0, 3.9, 4.0, 9.0]), bins=2, range=(0, 4))
    np.testing.assert_array_equal(counts.numpy(), [2, 2])  # -1 and 9 dropped, 4.0 in the last bin
    # int input: Keras casts the edges to int (1, 2.5, 4, 5.5, 7 -> 1, 2, 4, 5, 7), so 2 counts in bin 1
    counts, edges = ops.histogram(np.array([1, 2, 2, 3, 7]), bins=4)
    np.testing.assert_array_equal(edges.numpy(), [1, 2, 4, 5, 7])
    np.testing.assert_array_equal(counts.numpy(), [1, 3, 0, 1])


@pytest.mark.parametrize("kwargs,match", [
    (dict(x=np.zeros((2, 2))), "1-dimensional"),
    (dict(x=np.zeros(3), bins=0), "must be at least 1"),
    (dict(x=np.zeros(0)), "empty"),
    (dict(x=np.zeros(3), range=(2, 1)), "must be greater than the first"),
])
def test_histogram_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        ops.histogram(**kwargs)


def test_get_source_inputs_walks_the_graph_back():
    import descend as ds
    from descend.keras.utils import get_source_inputs

    a, b = ds.keras.Input(shape=(3,)), ds.keras.Input(shape=(3,))
    h = ds.layers.Dense(3)(a)
    out = ds.layers.Add()([ds.layers.Add()([h, b]), a])
    got = get_source_inputs(out)
    assert len(got) == 2 and got[0] is a and got[1] is b  # a reached first, each once
    assert get_source_inputs(a)[0] is a and len(get_source_inputs(a)) == 1
    x = np.ones(2)
    assert get_source_inputs(x) is x


# ------------------------------------------------------------------------------ tf space-to-batch family
_S2B = [  # input shape, block_shape, paddings (space_to_batch_nd) / crops (batch_to_space of its output)
    ((1, 4, 4, 1), [2, 2], [[0, 0], [0, 0]]),
    ((2, 3, 5, 2), [2, 3], [[1, 0], [0, 1]]),
    ((3, 5, 2), [2], [[1, 2]]),
    ((2, 2, 3, 4, 1), [1, 2, 2], [[0, 1], [1, 0], [0, 0]]),
]


@pytest.mark.parametrize("shape,block,pads", _S2B)
def test_space_to_batch_and_back_match_tensorflow_with_gradients(shape, block, pads):
    tf = pytest.importorskip("tensorflow")
    import descend as ds

    x = np.random.default_rng(3).standard_normal(shape)
    tx, dx = tf.constant(x), ds.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(tx)
        want = tf.space_to_batch_nd(tx, block, pads)
        back_want = tf.batch_to_space(want * 1.5, block, pads)
        w = np.random.default_rng(4).uniform(0.5, 1.5, want.shape)
        wb = np.random.default_rng(5).uniform(0.5, 1.5, back_want.shape)
        loss = tf.reduce_sum(want * w) + tf.reduce_sum(back_want ** 2 * wb)
    with ds.GradientTape() as dtape:
        dtape.watch(dx)
        got = ds.space_to_batch(dx, block, pads)
        back_got = ds.batch_to_space(ds.multiply(got, 1.5), block, pads)
        dloss = ds.reduce_sum(ds.multiply(got, w)) + ds.reduce_sum(ds.multiply(ds.square(back_got), wb))
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_array_equal(back_got.numpy(), back_want.numpy())
    np.testing.assert_allclose(dtape.gradient(dloss, dx).numpy(), tape.gradient(loss, tx).numpy(), rtol=1e-12)


@pytest.mark.parametrize("shape,block,base", [([5, 7], [2, 3], None), ([4, 6], [2, 3], [[1, 0], [2, 2]]),
                                              ([1], [4], [[0, 2]])])
def test_required_space_to_batch_paddings_matches_tensorflow(shape, block, base):
    tf = pytest.importorskip("tensorflow")
    import descend as ds

    for got, want in zip(ds.required_space_to_batch_paddings(shape, block, base),
                         tf.required_space_to_batch_paddings(shape, block, base)):
        assert got.dtype == "int32"
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_required_paddings_values():
    import descend as ds

    paddings, crops = ds.required_space_to_batch_paddings([5, 6], [2, 4], [[1, 0], [0, 0]])
    assert paddings.numpy().tolist() == [[1, 0], [0, 2]] and crops.numpy().tolist() == [[0, 0], [0, 2]]


@pytest.mark.parametrize("call,match", [
    (lambda ds, x: ds.space_to_batch_nd(x, [2, 2], [[0, 0], [0, 1]]), "not divisible by block_shape"),
    (lambda ds, x: ds.space_to_batch_nd(x, [2, 0], [[0, 0], [0, 0]]), ">= 1"),
    (lambda ds, x: ds.space_to_batch_nd(x, [2, 2], [[0, 0]]), "shape \\(2, 2\\)"),
    (lambda ds, x: ds.space_to_batch_nd(x, [2, 2], [[0, 0], [-2, 2]]), "non-negative"),
    (lambda ds, x: ds.space_to_batch_nd(x, [2, 2, 2, 2], [[0, 0]] * 4), "rank >= 1 \\+ len\\(block_shape\\) = 5"),
    (lambda ds, x: ds.space_to_batch_nd(x, [2.0, 2.0], [[0, 0], [0, 0]]), "must be ints"),
    (lambda ds, x: ds.batch_to_space(x, [2, 2], [[0, 0], [0, 0]]), "not divisible by prod"),
    (lambda ds, x: ds.batch_to_space(x, [1, 1], [[0, 5], [0, 0]]), "remove more than"),
])
def test_space_batch_errors(call, match):
    import descend as ds
    from descend.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match=match):
        call(ds, ds.constant(np.zeros((3, 4, 4, 1))))


# ----------------------------------------------------------------------------------------- tf.bitcast
_BITCASTS = [  # value, to
    (np.array([1.0, -2.5, np.inf], np.float32), "int32"),
    (np.array([[1, 2], [3, -4]], np.int32), "uint8"),
    (np.arange(8, dtype=np.uint8).reshape(2, 4), "float32"),
    (np.array([1.5, -0.0]), "int64"),
    (np.array([[7, 9]], np.int16), "int32"),
    (np.float64(3.0), "uint16"),
]


@pytest.mark.parametrize("value,to", _BITCASTS)
def test_bitcast_matches_tensorflow(value, to):
    tf = pytest.importorskip("tensorflow")
    import descend as ds

    got, want = ds.bitcast(value, to), tf.bitcast(tf.constant(value), to)
    assert got.dtype == to and got.shape == tuple(want.shape)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_bitcast_values_and_errors():
    import descend as ds
    from descend.errors import InvalidArgumentError

    assert int(ds.bitcast(np.float32(1.0), "int32").numpy()) == 0x3F800000
    np.testing.assert_array_equal(ds.bitcast(np.array([0x3F800000], np.int32), ds.float32).numpy(), [1.0])
    with pytest.raises(InvalidArgumentError, match="last axis of 4 entries"):
        ds.bitcast(np.zeros((2, 3), np.uint8), "int32")
    with pytest.raises(TypeError, match="numeric dtype"):
        ds.bitcast(np.array([True]), "uint8")
    with pytest.raises(TypeError, match="numeric dtype"):
        ds.bitcast(np.array([1], np.uint8), "bool")
    x = ds.Variable(np.array([1.0, 2.0], np.float32))
    with ds.GradientTape() as tape:
        y = ds.bitcast(x, "int32")
    assert tape.gradient(y, x) is None  # not differentiable, as TF


# ----------------------------------------------------------------------- keras.utils interactive logging
def test_disabled_interactive_logging_sends_progbar_lines_to_the_logger(capsys, caplog):
    import logging

    from descend.keras import utils

    assert utils.is_interactive_logging_enabled()
    utils.disable_interactive_logging()
    try:
        assert not utils.is_interactive_logging_enabled()
        with caplog.at_level(logging.INFO, logger="descend"):
            for verbose in (1, 2):
                bar = utils.Progbar(2, verbose=verbose)
                bar.update(2, [("loss", 0.5)])
        assert capsys.readouterr().out == ""
        lines = [r.getMessage() for r in caplog.records if r.name == "descend"]
        assert len(lines) == 2 and all("loss: 0.5000" in m for m in lines) and lines[0].startswith("2/2 [")
    finally:
        utils.enable_interactive_logging()
    assert utils.is_interactive_logging_enabled()
    utils.Progbar(1, verbose=2).update(1, [("loss", 0.25)])
    assert "loss: 0.2500" in capsys.readouterr().out


# ------------------------------------------------------------------------------------ keras.utils.Config
def test_config_values_freeze_and_json():
    import json

    from descend.keras.utils import Config

    c = Config(b=1, a=2)
    c.lr = 0.5
    c["x"] = [1, 2]
    assert (c.lr, c["b"], c.get("nope", 3), len(c), "x" in c) == (0.5, 1, 3, 4, True)
    assert list(c) == ["a", "b", "lr", "x"] and list(c.keys()) == ["b", "a", "lr", "x"]
    assert json.loads(c.to_json()) == {"b": 1, "a": 2, "lr": 0.5, "x": [1, 2]}
    d = c.as_dict()
    d["b"] = 9
    assert c.b == 1  # a copy
    with pytest.raises(AttributeError, match="Did you mean 'lr'"):
        c.lrr  # noqa: B018
    c.freeze()
    assert c.frozen
    for change in (lambda: setattr(c, "lr", 1.0), lambda: c.__setitem__("a", 0), lambda: c.pop("a"),
                   lambda: c.update(a=0), lambda: c.__delitem__("a")):
        with pytest.raises(ValueError, match="frozen"):
            change()
    assert c.as_dict() == {"b": 1, "a": 2, "lr": 0.5, "x": [1, 2]}  # nothing changed
    c.unfreeze()
    c.update(a=3)
    del c["x"]
    assert c.pop("b") == 1 and c.as_dict() == {"a": 3, "lr": 0.5}
    with pytest.raises(AttributeError, match="method or property"):
        c.freeze = 1


def test_cholesky_inverse_inverts_and_checks_shape():
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    lower = np.linalg.cholesky(a)
    np.testing.assert_allclose(ops.cholesky_inverse(lower).numpy(), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(ops.cholesky_inverse(lower.T, upper=True).numpy(), np.linalg.inv(a), rtol=1e-12)
    with pytest.raises(ValueError, match="square"):
        ops.cholesky_inverse(np.ones((2, 3)))


# ------------------------------------------------------------------------- tf.approx_top_k, tf.as_string
def test_approx_top_k_matches_tensorflow_with_gradient():
    # TF's CPU kernel has only is_max_k=True; the smallest-k case is checked by hand below
    is_max_k = True
    tf = pytest.importorskip("tensorflow")
    import descend as ds

    x = np.random.default_rng(9).permutation(24).reshape(3, 8).astype(np.float32) * 0.5
    tx, dx = tf.constant(x), ds.constant(x)
    w = np.random.default_rng(1).uniform(0.5, 1.5, (3, 3))
    with tf.GradientTape() as tape:
        tape.watch(tx)
        tv, ti = tf.approx_top_k(tx, 3, is_max_k=is_max_k)
        loss = tf.reduce_sum(tv * w)
    with ds.GradientTape() as dtape:
        dtape.watch(dx)
        dv, di = ds.approx_top_k(dx, 3, is_max_k=is_max_k)
        dloss = ds.reduce_sum(ds.multiply(dv, w))
    np.testing.assert_array_equal(dv.numpy(), tv.numpy())
    np.testing.assert_array_equal(di.numpy(), ti.numpy())
    np.testing.assert_array_equal(dtape.gradient(dloss, dx).numpy(), tape.gradient(loss, tx).numpy())


def test_approx_top_k_values_and_errors():
    import descend as ds

    v, i = ds.approx_top_k([[4.0, 1.0, 3.0]], 2, is_max_k=False)
    assert v.numpy().tolist() == [[1.0, 3.0]] and i.numpy().tolist() == [[1, 2]]
    with pytest.raises(TypeError, match="is_max_k"):
        ds.approx_top_k([[1.0]], 1, is_max_k="yes")
    with pytest.raises(ValueError, match="last axis"):
        ds.approx_top_k([[1.0, 2.0]], 1, reduction_dimension=0)
    with pytest.raises(TypeError, match="float16 or float32; received float64"):
        ds.approx_top_k(np.array([[1.0, 2.0]]), 1)


def test_as_string_is_the_strings_function():
    import descend as ds

    assert ds.as_string is ds.strings.as_string
    assert ds.as_string([1, 2]).numpy().tolist() == [b"1", b"2"]


def test_keras_view_shapes_and_errors():
    x = np.array([[1, 2], [3, -4]], np.int32)
    assert ops.view(x, "uint8").shape == (2, 8)
    np.testing.assert_array_equal(ops.view(x, "uint8").numpy(), x.view(np.uint8))
    np.testing.assert_array_equal(ops.view(x, "int64").numpy(), x.view(np.int64))
    np.testing.assert_array_equal(ops.view(x, "float32").numpy(), x.view(np.float32))
    with pytest.raises(ValueError, match="not divisible"):
        ops.view(np.zeros(3, np.int32), "int64")
    with pytest.raises(ValueError, match="not divisible"):
        ops.view(np.int32(3), "int64")


def test_nan_quantiles_skip_nan_and_give_nan_for_empty_slices():
    x = np.array([[1.0, np.nan, 3.0, 5.0], [np.nan] * 4])
    np.testing.assert_allclose(ops.nanmedian(x, axis=1).numpy(), [3.0, np.nan])
    np.testing.assert_allclose(ops.nanquantile(x, [0.0, 1.0], axis=1).numpy(), [[1.0, np.nan], [5.0, np.nan]])
    np.testing.assert_allclose(ops.nanpercentile(x, 50.0).numpy(), 3.0)
    assert ops.nanmedian(x, axis=1, keepdims=True).shape == (2, 1)
    for method in ("lower", "higher", "nearest", "midpoint"):  # NumPy's methods, as Keras'
        np.testing.assert_allclose(ops.nanquantile(x[:1], 0.4, axis=1, method=method).numpy(),
                                   np.nanquantile(x[:1], 0.4, axis=1, method=method))
    with pytest.raises(ValueError, match="method"):
        ops.nanquantile(x, 0.5, method="cubic")


def test_keras_psnr_value_and_shape_error():
    a, b = np.zeros((2, 3)), np.full((2, 3), 0.1)
    np.testing.assert_allclose(float(ops.psnr(a, b, 1.0)), 20.0, rtol=1e-12)  # mse 0.01
    with pytest.raises(ValueError, match="same shape"):
        ops.psnr(np.zeros(2), np.zeros(3), 1.0)
