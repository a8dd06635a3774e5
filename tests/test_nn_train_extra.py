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
    assert ema.average_name(w) == f"{w.name}/avg"
    ema.apply([w])
    shadow = ema.average(w)
    assert shadow.name == f"{w.name}/avg" and not shadow.trainable
    w.assign([3.0, 4.0])
    ema.apply([w])
    np.testing.assert_array_equal(shadow.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(w.numpy(), [3.0, 4.0])  # the variable itself is untouched
    assert ema.variables_to_restore() == {f"{w.name}/avg": w}


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
    key = "w"  # the checkpoint key of the root w (ds.train.list_variables)
    assert [k for k, _ in ds.train.list_variables(path)] == [key]
    np.testing.assert_array_equal(ds.train.load_variable(path, key), w.numpy())
    np.testing.assert_array_equal(ds.train.load_variable(path, key + ":0"), w.numpy())
    with pytest.raises(KeyError, match="no tensor"):
        ds.train.load_variable(path, "missing")
    with pytest.raises(TypeError, match="name"):
        ds.train.load_variable(path, 3)
