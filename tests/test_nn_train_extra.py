"""tf.train.ExponentialMovingAverage / load_variable and tf.nn's aliases of tf.math (issue 37), against TF."""

import re

import numpy as np
import pytest

import descend as ds


def test_nn_approx_k_are_tf_math_aliases():
    assert ds.nn.approx_max_k is ds.math.approx_max_k
    assert ds.nn.approx_min_k is ds.math.approx_min_k
    values, indices = ds.nn.approx_min_k(ds.constant([3.0, -1.0, 2.0, 0.5]), 2)
    np.testing.assert_array_equal(values.numpy(), [-1.0, 0.5])
    np.testing.assert_array_equal(indices.numpy(), [1, 3])


# (decay, num_updates per step or None, dtype)
EMA_CASES = [
    (0.9, None, "float32"),
    (0.999, "step", "float32"),  # the num_updates rule wins early
    (0.3, "step", "float64"),
    (0.7, None, "float16"),
    (0.99, 5, "float64"),
]


def _values(dtype, steps=6):
    rng = np.random.default_rng(7)
    return [rng.normal(size=(2, 3)).astype(dtype) for _ in range(steps)], rng.normal(size=(4,)).astype(dtype)


@pytest.mark.parametrize("decay,updates,dtype", EMA_CASES)
def test_ema_matches_tensorflow_bit_for_bit(decay, updates, dtype):
    tf = pytest.importorskip("tensorflow")
    seq, other = _values(dtype)
    results = []
    for lib in (ds, tf):
        a = lib.Variable(seq[0], name="ema_a")
        b = lib.Variable(other, name="ema_b")
        step = lib.Variable(0, dtype="int64", name="ema_step") if updates == "step" else None
        num = step if updates == "step" else updates
        ema = lib.train.ExponentialMovingAverage(decay, num_updates=num)
        history = []
        for i, value in enumerate(seq):
            a.assign(value)
            b.assign(other * (i + 1))
            ema.apply([a, b] if i % 2 == 0 else [a])  # b is only averaged every second step
            if step is not None:
                step.assign_add(1)
            history.append((np.array(ema.average(a).numpy()), np.array(ema.average(b).numpy())))
        results.append((history, ema.average_name(a), ema.average_name(b)))
    (ours, ours_a, ours_b), (theirs, theirs_a, theirs_b) = results
    for (oa, ob), (ta, tb) in zip(ours, theirs):
        np.testing.assert_array_equal(oa, ta)
        np.testing.assert_array_equal(ob, tb)
        assert oa.dtype == ta.dtype
    # TF's eager names may carry a uniquifying suffix; the scheme is <variable>/<ema name>
    assert re.fullmatch(r"ema_a(_\d+)?/ExponentialMovingAverage", ours_a), ours_a
    assert re.fullmatch(r"ema_a/ExponentialMovingAverage(_\d+)?", theirs_a), theirs_a


def test_ema_names_shadows_and_restores():
    w = ds.Variable([1.0, 2.0], name="ema_names_w")
    ema = ds.train.ExponentialMovingAverage(0.5, name="avg")
    assert ema.average(w) is None
    assert ema.average_name(w) == "ema_names_w/avg"  # TF's: the variable's op name and the EMA's
    ema.apply([w])
    shadow = ema.average(w)
    assert shadow.name == "ema_names_w/avg:0" and not shadow.trainable
    w.assign([3.0, 4.0])
    ema.apply([w])
    np.testing.assert_array_equal(shadow.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(w.numpy(), [3.0, 4.0])  # the variable itself is untouched
    assert ema.variables_to_restore() == {"ema_names_w/avg": w}


@pytest.mark.parametrize("bad,error,match", [
    (lambda: [ds.Variable([1, 2], name="ema_int")], TypeError, "half, float, or double"),
    (lambda: [ds.constant([1.0])], TypeError, "must be a Variable"),
    (lambda: None, ValueError, "var_list"),
])
def test_ema_refuses_bad_var_lists_and_leaves_state(bad, error, match):
    good = ds.Variable([1.0], name="ema_good")
    ema = ds.train.ExponentialMovingAverage(0.5)
    ema.apply([good])
    before = ema.average(good).numpy().copy()
    good.assign([5.0])
    with pytest.raises(error, match=match):
        var_list = bad()
        ema.apply(None if var_list is None else [good] + var_list)
    np.testing.assert_array_equal(ema.average(good).numpy(), before)


def test_ema_refuses_duplicates_and_bad_decay():
    v = ds.Variable([1.0], name="ema_dup")
    with pytest.raises(ValueError, match="more than once"):
        ds.train.ExponentialMovingAverage(0.5).apply([v, v])
    with pytest.raises(TypeError, match="decay"):
        ds.train.ExponentialMovingAverage("0.9")


def test_load_variable_reads_a_saved_value(tmp_path):
    w = ds.Variable(np.arange(6.0).reshape(2, 3), name="lv_w")
    path = ds.train.Checkpoint(w=w).write(str(tmp_path / "ckpt"))
    key = "w/.ATTRIBUTES/VARIABLE_VALUE"  # TensorFlow's checkpoint key of the root w (ds.train.list_variables)
    assert key in [k for k, _ in ds.train.list_variables(path)]
    np.testing.assert_array_equal(ds.train.load_variable(path, key), w.numpy())
    np.testing.assert_array_equal(ds.train.load_variable(path, key + ":0"), w.numpy())
    with pytest.raises(KeyError, match="no tensor"):
        ds.train.load_variable(path, "missing")
    with pytest.raises(TypeError, match="name"):
        ds.train.load_variable(path, 3)


# ---------------------------------------------------------------- descend/ops/nn_extra_ops.py against TF
_X5 = np.random.default_rng(3).normal(size=(2, 5, 6, 7, 3)).astype(np.float32)

POOL3D_CASES = [  # (ksize, strides, padding)
    (2, 2, "VALID"), (2, 2, "SAME"), ((2, 3, 2), (1, 2, 2), "SAME"), ((3, 1, 2), (2, 1, 3), "VALID"),
    ([1, 3, 3, 3, 1], [1, 2, 2, 2, 1], "SAME"),
]


@pytest.mark.parametrize("name", ["max_pool3d", "avg_pool3d"])
@pytest.mark.parametrize("ksize,strides,padding", POOL3D_CASES)
def test_pool3d_matches_tensorflow(name, ksize, strides, padding):
    tf = pytest.importorskip("tensorflow")
    ours = getattr(ds.nn, name)(_X5, ksize, strides, padding).numpy()
    theirs = getattr(tf.nn, name)(_X5, ksize, strides, padding).numpy()
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)


def test_pool3d_channels_first_is_the_transpose():
    x = np.transpose(_X5, (0, 4, 1, 2, 3))
    ours = ds.nn.max_pool3d(x, [1, 1, 2, 2, 3], [1, 1, 2, 1, 2], "SAME", data_format="NCDHW").numpy()
    last = ds.nn.max_pool3d(_X5, [1, 2, 2, 3, 1], [1, 2, 1, 2, 1], "SAME").numpy()
    np.testing.assert_array_equal(ours, np.transpose(last, (0, 4, 1, 2, 3)))


@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("pooling_type", ["MAX", "AVG"])
@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_pool_matches_tensorflow(rank, pooling_type, padding):
    tf = pytest.importorskip("tensorflow")
    x = _X5[(slice(None),) + (0,) * (3 - rank)]
    window, strides = [2, 3, 2][:rank], [2, 2, 1][:rank]
    ours = ds.nn.pool(x, window, pooling_type, strides, padding).numpy()
    theirs = tf.nn.pool(x, window, pooling_type, strides, padding).numpy()
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
    if rank == 2:  # channels first: the same, transposed
        first = ds.nn.pool(np.transpose(x, (0, 3, 1, 2)), window, pooling_type, strides, padding, data_format="NCHW")
        np.testing.assert_allclose(first.numpy(), np.transpose(theirs, (0, 3, 1, 2)), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("block,paddings", [
    ([2, 3], [[1, 0], [0, 0]]), ([2], [[1, 0]]), ([1, 2, 2], [[0, 0], [0, 0], [1, 0]]), ([5, 1], [[0, 0], [1, 2]]),
])
def test_space_to_batch_matches_tensorflow(block, paddings):
    tf = pytest.importorskip("tensorflow")
    ours = ds.nn.space_to_batch(_X5, block, paddings).numpy()
    theirs = tf.nn.space_to_batch(_X5, block, paddings).numpy()
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(ours, theirs)


def test_collapse_repeated_matches_tensorflow():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(11)
    for dtype, len_dtype in (("int64", "int32"), ("int32", "int64")):
        labels = rng.integers(0, 3, size=(5, 8)).astype(dtype)
        lengths = np.array([8, 0, 3, 5, 12], dtype=len_dtype)  # 12 > max_length: the whole row
        ours = ds.nn.collapse_repeated(labels, lengths)
        theirs = tf.nn.collapse_repeated(labels, lengths)
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a.numpy(), b.numpy())
            assert a.numpy().dtype == b.numpy().dtype


@pytest.mark.parametrize("call,error,match", [
    (lambda: ds.nn.max_pool3d(_X5[0], 2, 2, "VALID"), ValueError, "rank 5"),
    (lambda: ds.nn.avg_pool3d(_X5, (2, 2), 2, "VALID"), ValueError, "ksize"),
    (lambda: ds.nn.max_pool3d(_X5, 2, 2, "VALID", data_format="NHWC"), ValueError, "data_format"),
    (lambda: ds.nn.pool(_X5, [2, 2], "MAX"), ValueError, "window_shape"),
    (lambda: ds.nn.pool(_X5, [2, 2, 2], "MIN"), ValueError, "pooling_type"),
    (lambda: ds.nn.pool(_X5, [2, 2, 2], "MAX", [3, 1, 1]), ValueError, "strides"),
    (lambda: ds.nn.pool(_X5, [2, 2, 2], "MAX", dilations=[2, 1, 1]), ValueError, "dilat"),
    (lambda: ds.nn.space_to_batch(_X5, [2], [[0, 0]]), ValueError, "divisible"),
    (lambda: ds.nn.space_to_batch(_X5, [2, 2], [[1, 0]]), ValueError, "paddings"),
    (lambda: ds.nn.space_to_batch(_X5, [0], [[1, 0]]), ValueError, "block_shape"),
    (lambda: ds.nn.collapse_repeated([1, 2], [2]), ValueError, "rank 2"),
    (lambda: ds.nn.collapse_repeated([[1, 2]], [2, 1]), ValueError, "seq_length"),
])
def test_nn_extra_ops_refuse_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


@pytest.mark.parametrize("name", ["dilation2d", "erosion2d"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("strides,rates,padding", [
    ([1, 1, 1, 1], [1, 1, 1, 1], "SAME"), ([1, 2, 3, 1], [1, 1, 1, 1], "SAME"), ([1, 1, 1, 1], [1, 2, 2, 1], "VALID"),
    ([1, 2, 1, 1], [1, 1, 3, 1], "SAME"),
])
def test_morphology_matches_tensorflow_with_gradients(name, dtype, strides, rates, padding):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(5)
    x, k = rng.normal(size=(2, 7, 8, 3)).astype(dtype), rng.normal(size=(3, 2, 3)).astype(dtype)
    xt, kt = tf.constant(x), tf.constant(k)
    with tf.GradientTape() as tape:
        tape.watch([xt, kt])
        y = getattr(tf.nn, name)(xt, kt, strides, padding, "NHWC", rates)
        loss = tf.reduce_sum(y * y)
    theirs = [y.numpy()] + [g.numpy() for g in tape.gradient(loss, [xt, kt])]
    xd, kd = ds.constant(x), ds.constant(k)
    with ds.GradientTape() as tape:
        tape.watch(xd)
        tape.watch(kd)
        y = getattr(ds.nn, name)(xd, kd, strides, padding, "NHWC", rates)
        loss = ds.reduce_sum(y * y)
    ours = [y.numpy()] + [g.numpy() for g in tape.gradient(loss, [xd, kd])]
    np.testing.assert_array_equal(ours[0], theirs[0])
    for a, b in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("call,error,match", [
    (lambda: ds.nn.dilation2d(_X5[0], np.ones((2, 2, 3)), 1, "SAME", "NCHW", 1), ValueError, "data_format"),
    (lambda: ds.nn.dilation2d(_X5[0], np.ones((2, 2, 4)), 1, "SAME", "NHWC", 1), ValueError, "depth"),
    (lambda: ds.nn.dilation2d(_X5, np.ones((2, 2, 3)), 1, "SAME", "NHWC", 1), ValueError, "rank 4"),
    (lambda: ds.nn.erosion2d(_X5[0], np.ones((2, 2, 3)), 1, "FULL", "NHWC", 1), ValueError, "padding"),
    (lambda: ds.nn.erosion2d(_X5[0], np.ones((2, 3)), 1, "SAME", "NHWC", 1), ValueError, "rank 3"),
])
def test_morphology_refuses_bad_arguments(call, error, match):
    with pytest.raises(error, match=match):
        call()


CONV3D_T_CASES = [  # (input spatial, output spatial, strides, padding, kernel depth)
    ((3, 4, 5), (6, 8, 10), 2, "SAME", 3),
    ((3, 4, 5), (7, 9, 11), 2, "VALID", 3),
    ((4, 4, 4), (4, 4, 4), 1, "SAME", 2),
    ((2, 3, 3), (6, 3, 6), (3, 1, 2), "SAME", 1),  # a depth stride above the filter depth: zero slices
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("ins,outs,strides,padding,kd", CONV3D_T_CASES)
def test_conv3d_transpose_matches_tensorflow(dtype, ins, outs, strides, padding, kd):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(9)
    x, k = rng.normal(size=(2,) + ins + (3,)).astype(dtype), rng.normal(size=(kd, 2, 3, 4, 3)).astype(dtype)
    shape = (2,) + outs + (4,)
    theirs = tf.nn.conv3d_transpose(x, k, shape, strides, padding).numpy()
    ours = ds.nn.conv3d_transpose(x, k, shape, strides, padding).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-4 if dtype == "float32" else 1e-10)
    np.testing.assert_array_equal(ds.nn.conv_transpose(x, k, shape, strides, padding).numpy(), ours)


@pytest.mark.parametrize("dilations,padding", [(1, "SAME"), ((2, 1, 2), "SAME"), ((1, 2, 1), "VALID")])
def test_conv3d_transpose_is_conv3d_adjoint(dilations, padding):
    """<conv3d(u), v> == <u, conv3d_transpose(v)>: also with dilations (TF's CPU kernel has none)."""
    rng = np.random.default_rng(2)
    u, k = rng.normal(size=(1, 6, 7, 5, 2)), rng.normal(size=(2, 3, 2, 2, 3))
    y = ds.nn.conv3d(u, k, (2, 1, 2), padding, dilations=dilations).numpy()
    v = rng.normal(size=y.shape)
    back = ds.nn.conv3d_transpose(v, k, u.shape, (2, 1, 2), padding, dilations=dilations).numpy()
    np.testing.assert_allclose(np.sum(y * v), np.sum(u * back), rtol=1e-10)
    first = ds.nn.conv3d_transpose(np.transpose(v, (0, 4, 1, 2, 3)), k, (1, 2, 6, 7, 5), (2, 1, 2), padding,
                                   data_format="NCDHW", dilations=dilations).numpy()
    np.testing.assert_allclose(first, np.transpose(back, (0, 4, 1, 2, 3)), rtol=1e-12)


@pytest.mark.parametrize("call,match", [
    (lambda: ds.nn.conv3d_transpose(np.ones((1, 3, 4, 5, 3)), np.ones((3, 2, 3, 4, 3)), (1, 7, 8, 10, 4), 2),
     "gives depth"),
    (lambda: ds.nn.conv3d_transpose(np.ones((1, 3, 4, 5, 3)), np.ones((3, 2, 3, 4, 3)), (1, 6, 8, 10), 2),
     "5 entries"),
    (lambda: ds.nn.conv3d_transpose(np.ones((1, 3, 4, 5)), np.ones((3, 2, 3, 4, 3)), (1, 6, 8, 10, 4), 2), "rank 5"),
    (lambda: ds.nn.conv_transpose(np.ones((1, 3)), np.ones((3, 2)), (1, 6), 2), "3, 4 or 5"),
])
def test_conv3d_transpose_refuses_bad_shapes(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_checkpoints_iterator_yields_each_new_checkpoint_once(tmp_path):
    manager = ds.train.CheckpointManager(ds.train.Checkpoint(v=ds.Variable(1.0)), str(tmp_path), max_to_keep=3)
    assert list(ds.train.checkpoints_iterator(str(tmp_path), timeout=0)) == []  # none yet: ends at the timeout
    first = manager.save()
    saved, calls = [], []

    def save_once_more():  # called at each timeout: a second checkpoint appears once, then the iterator ends
        calls.append(1)
        if len(calls) == 1:
            saved.append(manager.save())
            return False
        return True

    seen = list(ds.train.checkpoints_iterator(str(tmp_path), timeout=0, timeout_fn=save_once_more))
    assert seen == [first, saved[0]] and len(calls) == 2


@pytest.mark.parametrize("kwargs,error", [
    ({"timeout": -1}, ValueError), ({"min_interval_secs": "1"}, ValueError), ({"timeout_fn": 3}, TypeError),
])
def test_checkpoints_iterator_refuses_bad_arguments(tmp_path, kwargs, error):
    with pytest.raises(error):
        next(ds.train.checkpoints_iterator(str(tmp_path), **{"timeout": 0, **kwargs}))


def _coordinator_scenario(lib, errors, scenario):
    """What a Coordinator scenario ends in: ("ok"|"raised", exception type name, message, flags)."""
    import threading

    coord = lib.train.Coordinator()
    release = threading.Event()

    def worker(raise_what):
        with coord.stop_on_exception():
            if raise_what is not None:
                raise raise_what
            coord.wait_for_stop()

    if scenario == "first_error_wins":
        plan = [ValueError("first"), None, None]
    elif scenario == "clean_stop":
        plan = [errors.OutOfRangeError(None, None, "end") if lib.__name__ == "tensorflow"
                else errors.OutOfRangeError("end"), None]
    else:
        plan = [None, None]
    threads = [threading.Thread(target=worker, args=(p,), name=f"w{i}") for i, p in enumerate(plan)]
    for t in threads:
        t.start()
    if scenario == "first_error_wins":
        coord.wait_for_stop()
        coord.request_stop(KeyError("second"))  # not kept: the first stays
    elif scenario == "straggler":
        stuck = threading.Thread(target=release.wait, name="stuck")
        stuck.start()
        coord.register_thread(stuck)
        coord.request_stop()
    elif scenario == "stop_without_error":
        coord.request_stop()
    try:
        coord.join(threads, stop_grace_period_secs=0.05)
        outcome = ("ok", None, None)
    except Exception as e:  # noqa: BLE001 - the outcome under test
        outcome = ("raised", type(e).__name__, str(e))
    finally:
        release.set()
    flags = (coord.should_stop(), coord.joined)
    try:  # after join, a request with an exception (from its handler, as TF expects) raises at once
        try:
            raise ValueError("late")
        except ValueError as handled:
            coord.request_stop(handled)
        late = None
    except ValueError as e:
        late = str(e)
    coord.clear_stop()
    return outcome, flags, late, coord.should_stop(), coord.joined


@pytest.mark.parametrize("scenario", ["first_error_wins", "clean_stop", "straggler", "stop_without_error"])
def test_coordinator_matches_tensorflow(scenario):
    tf = pytest.importorskip("tensorflow")
    ours = _coordinator_scenario(ds, ds.errors, scenario)
    theirs = _coordinator_scenario(tf, tf.errors, scenario)
    assert ours == theirs
    expected = {"first_error_wins": ("raised", "ValueError", "first"), "clean_stop": ("ok", None, None),
                "straggler": ("raised", "RuntimeError", "Coordinator stopped with threads still running: stuck"),
                "stop_without_error": ("ok", None, None)}[scenario]
    assert ours[0] == expected


def test_coordinator_ignores_live_threads_when_asked():
    import threading

    coord = ds.train.Coordinator()
    release = threading.Event()
    stuck = threading.Thread(target=release.wait)
    stuck.start()
    coord.request_stop()
    try:
        coord.join([stuck], stop_grace_period_secs=0.01, ignore_live_threads=True)
        assert coord.joined
    finally:
        release.set()
    with pytest.raises(TypeError, match="exception types"):
        ds.train.Coordinator(clean_stop_exception_types=[int])


@pytest.mark.parametrize("scale", [True, False])
def test_batch_norm_with_global_normalization_matches_tensorflow(scale):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(4)
    x, m, v, b, g = rng.normal(size=(3, 4)), rng.normal(size=4), rng.uniform(0.5, 2, 4), rng.normal(size=4), \
        rng.normal(size=4)
    ours = ds.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, scale).numpy()
    theirs = tf.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, scale).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    with pytest.raises(TypeError, match="bool"):
        ds.nn.batch_norm_with_global_normalization(x, m, v, b, g, 1e-3, "yes")


@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("rate,window", [(2, (3, 3)), (3, (2, 3)), (1, (3, 2))])
def test_atrous_conv2d_transpose_matches_tensorflow(padding, rate, window):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(8)
    x, k = rng.normal(size=(2, 6, 7, 3)), rng.normal(size=window + (4, 3))
    shape = (2, 6, 7, 4) if padding == "SAME" else (2, 6 + (window[0] - 1) * rate, 7 + (window[1] - 1) * rate, 4)
    ours = ds.nn.atrous_conv2d_transpose(x, k, shape, rate, padding).numpy()
    np.testing.assert_allclose(ours, tf.nn.atrous_conv2d_transpose(x, k, shape, rate, padding).numpy(), rtol=1e-10,
                               atol=1e-10)
    with pytest.raises(ValueError, match="rate"):
        ds.nn.atrous_conv2d_transpose(x, k, shape, 0, padding)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("ksize,strides", [(2, 2), ((3, 2), (2, 1)), (3, 2)])
@pytest.mark.parametrize("include_batch", [False, True])
def test_max_pool_with_argmax_matches_tensorflow(dtype, padding, ksize, strides, include_batch):
    tf = pytest.importorskip("tensorflow")
    x = np.random.default_rng(6).normal(size=(2, 5, 7, 3)).astype(dtype)
    x[0, 0, :2, 0] = 1.5  # a tie: the first in the window wins
    ours = ds.nn.max_pool_with_argmax(x, ksize, strides, padding, include_batch_in_index=include_batch)
    theirs = tf.nn.max_pool_with_argmax(x, ksize, strides, padding, include_batch_in_index=include_batch)
    np.testing.assert_array_equal(ours[0].numpy(), theirs[0].numpy())
    np.testing.assert_array_equal(ours[1].numpy(), theirs[1].numpy())
    assert ours[1].numpy().dtype == theirs[1].numpy().dtype == np.int64
    small = ds.nn.max_pool_with_argmax(x, ksize, strides, padding, output_dtype="int32")[1].numpy()
    assert small.dtype == np.int32


@pytest.mark.parametrize("kwargs,error", [({"data_format": "NCHW"}, ValueError), ({"output_dtype": "float32"}, TypeError)])
def test_max_pool_with_argmax_refuses_bad_arguments(kwargs, error):
    with pytest.raises(error):
        ds.nn.max_pool_with_argmax(np.ones((1, 4, 4, 1)), 2, 2, "VALID", **kwargs)
