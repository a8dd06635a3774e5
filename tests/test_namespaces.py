"""The porting surface of issue 17 part 1: ``ds.keras`` and the TF namespaces (``math``, ``random``,
``linalg``, ``print``, ``config``, ``TensorSpec``), ``Tensor.__format__`` and ``Dataset.cache``."""

from __future__ import annotations

import importlib
import io
import sys

import numpy as np
import pytest

import descend as ds
from descend.data import Dataset


# ================================================================ ds.keras: the real objects
@pytest.mark.parametrize("path,obj", [
    ("layers.Dense", lambda: ds.layers.Dense),
    ("layers.Embedding", lambda: ds.layers.Embedding),
    ("optimizers.Adam", lambda: ds.optimizers.Adam),
    ("optimizers.schedules.ExponentialDecay", lambda: ds.optimizers.schedules.ExponentialDecay),
    ("losses.SparseCategoricalCrossentropy", lambda: ds.losses.SparseCategoricalCrossentropy),
    ("metrics.Mean", lambda: ds.metrics.Mean),
    ("metrics.SparseCategoricalAccuracy", lambda: ds.metrics.SparseCategoricalAccuracy),
    ("callbacks.EarlyStopping", lambda: ds.callbacks.EarlyStopping),
    ("initializers.GlorotUniform", lambda: ds.initializers.GlorotUniform),
    ("regularizers.L2", lambda: ds.regularizers.L2),
    ("constraints.MaxNorm", lambda: ds.constraints.MaxNorm),
    ("activations.relu", lambda: ds.activations.relu),
    ("Model", lambda: ds.Model),
    ("Sequential", lambda: ds.Sequential),
    ("models.Sequential", lambda: ds.Sequential),
    ("backend.floatx", lambda: ds.floatx),
])
def test_keras_names_are_descends_objects(path, obj):
    found = ds.keras
    for part in path.split("."):
        found = getattr(found, part)
    assert found is obj()


def test_keras_submodules_import_as_descends_modules():
    assert importlib.import_module("descend.keras.layers") is ds.layers
    assert importlib.import_module("descend.keras.optimizers") is ds.optimizers
    assert importlib.import_module("descend.keras.optimizers.schedules") is ds.optimizers.schedules
    from descend.keras.layers import Dense
    from descend.keras.losses import MeanSquaredError

    assert Dense is ds.layers.Dense and MeanSquaredError is ds.losses.MeanSquaredError


def test_keras_backend_basics():
    kb = ds.keras.backend
    assert kb.floatx() == "float32" and kb.epsilon() == 1e-7 and kb.image_data_format() == "channels_last"
    assert kb.int_shape(ds.ones((2, 3))) == (2, 3) and kb.int_shape(np.zeros((4,))) == (4,)
    kb.set_epsilon(1e-5)
    try:
        assert kb.epsilon() == 1e-5
    finally:
        kb.set_epsilon(1e-7)
    with pytest.raises(ValueError, match="non-negative float"):
        kb.set_epsilon(-1.0)
    with pytest.raises(TypeError, match="int_shape expects"):
        kb.int_shape(3)


def test_to_categorical_matches_keras():
    out = ds.keras.utils.to_categorical(np.array([[1], [0], [2]]))
    assert out.dtype == np.float32 and out.tolist() == [[0, 1, 0], [1, 0, 0], [0, 0, 1]]
    assert ds.keras.utils.to_categorical([[0, 1], [1, 1]], 2).shape == (2, 2, 2)
    with pytest.raises(ValueError, match=r"class ids must be in \[0, 2\)"):
        ds.keras.utils.to_categorical([0, 2], num_classes=2)
    with pytest.raises(ValueError, match="fractional"):
        ds.keras.utils.to_categorical([0.5])


def test_set_random_seed_makes_unseeded_initialization_and_random_ops_reproducible():
    def draw():
        ds.clear_session()
        ds.keras.utils.set_random_seed(42)
        layer = ds.keras.layers.Dense(3)
        layer(ds.ones((1, 2)))
        return layer.kernel.numpy(), ds.random.normal((4,)).numpy(), np.random.rand()

    a, b = draw(), draw()
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


# ================================================================ ds.math, ds.linalg
def test_math_names_are_the_ops_and_composites_match_numpy():
    assert ds.math.reduce_sum is ds.reduce_sum and ds.math.sigmoid is ds.nn.sigmoid
    assert ds.math.floormod is ds.mod and ds.math.log is ds.log
    x = np.array([[1.0, -2.0, 4.0], [0.5, 3.0, -1.0]])
    t = ds.constant(x, dtype="float64")
    np.testing.assert_allclose(ds.math.reduce_variance(t, axis=1).numpy(), x.var(axis=1), rtol=1e-15)
    np.testing.assert_allclose(ds.math.reduce_std(t).numpy(), x.std(), rtol=1e-15)
    np.testing.assert_allclose(ds.math.l2_normalize(t, axis=1).numpy(),
                               x / np.sqrt((x * x).sum(axis=1, keepdims=True)), rtol=1e-15)
    with ds.GradientTape() as tape:
        tape.watch(t)
        y = ds.math.reduce_std(t)
    # d std / dx = (x - mean) / (n * std)
    np.testing.assert_allclose(tape.gradient(y, t).numpy(), (x - x.mean()) / (x.size * x.std()), rtol=1e-12)


def test_linalg_subset_against_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 5))
    ta, tb = ds.constant(a, dtype="float64"), ds.constant(b, dtype="float64")
    assert ds.linalg.matmul is ds.matmul and ds.linalg.global_norm is ds.global_norm
    np.testing.assert_allclose(ds.linalg.matrix_transpose(ta).numpy(), a.transpose(0, 2, 1))
    np.testing.assert_allclose(ds.linalg.diag_part(ta).numpy(), np.diagonal(a, axis1=1, axis2=2))
    np.testing.assert_allclose(ds.linalg.trace(ta).numpy(), np.trace(a, axis1=1, axis2=2), rtol=1e-14)
    np.testing.assert_allclose(ds.linalg.tensordot(ta, tb, 1).numpy(), np.tensordot(a, b, 1), rtol=1e-13)
    np.testing.assert_allclose(ds.linalg.tensordot(ta, tb, [[2], [0]]).numpy(), np.tensordot(a, b, [[2], [0]]),
                               rtol=1e-13)
    assert ds.linalg.eye(2, 3, batch_shape=[4]).shape == (4, 2, 3) and ds.eye is ds.linalg.eye
    np.testing.assert_array_equal(ds.linalg.eye(3).numpy(), np.eye(3, dtype=np.float32))
    with pytest.raises(ValueError, match="rank >= 2"):
        ds.linalg.matrix_transpose(ds.ones((3,)))


# ================================================================ ds.random
def test_global_seed_makes_unseeded_draws_reproducible_and_each_call_different():
    ds.random.set_seed(7)
    first = [ds.random.uniform((3,)).numpy() for _ in range(2)]
    ds.random.set_seed(7)
    again = [ds.random.uniform((3,)).numpy() for _ in range(2)]
    np.testing.assert_array_equal(first[0], again[0])
    np.testing.assert_array_equal(first[1], again[1])
    assert not np.array_equal(first[0], first[1])


def test_op_seed_continues_one_stream_that_set_seed_restarts():
    ds.random.set_seed(1)
    a, b = ds.random.normal((4,), seed=3).numpy(), ds.random.normal((4,), seed=3).numpy()
    assert not np.array_equal(a, b)
    ds.random.set_seed(1)
    np.testing.assert_array_equal(ds.random.normal((4,), seed=3).numpy(), a)
    ds.random.set_seed(2)
    assert not np.array_equal(ds.random.normal((4,), seed=3).numpy(), a)
    ds.random.set_seed(None)
    assert ds.random.get_seed(None) == (None, None) and ds.random.get_seed(5) == (87654321, 5)


def test_random_distributions_ranges_dtypes_and_moments():
    ds.random.set_seed(0)
    u = ds.random.uniform((20000,), minval=-2.0, maxval=3.0)
    assert u.dtype == np.float32 and u.numpy().min() >= -2 and u.numpy().max() < 3
    assert abs(float(u.numpy().mean()) - 0.5) < 0.05
    i = ds.random.uniform((1000,), minval=2, maxval=5, dtype="int64").numpy()
    assert i.dtype == np.int64 and set(np.unique(i).tolist()) == {2, 3, 4}
    n = ds.random.normal((20000,), mean=1.0, stddev=2.0, dtype="float64").numpy()
    assert n.dtype == np.float64 and abs(n.mean() - 1) < 0.05 and abs(n.std() - 2) < 0.05
    t = ds.random.truncated_normal((20000,), stddev=0.5).numpy()
    assert np.abs(t).max() <= 1.0 and 0.4 < t.std() < 0.45  # std of N(0,1) cut at 2 sigma is 0.880
    s = ds.random.shuffle(ds.constant(np.arange(10).reshape(5, 2))).numpy()
    assert sorted(s[:, 0].tolist()) == [0, 2, 4, 6, 8] and (s[:, 1] == s[:, 0] + 1).all()
    c = ds.random.categorical(ds.math.log(ds.constant([[0.2, 0.8], [1.0, 1e-30]])), 5000).numpy()
    assert c.shape == (2, 5000) and c.dtype == np.int64
    assert abs(c[0].mean() - 0.8) < 0.03 and (c[1] == 0).all()
    with pytest.raises(ValueError, match="`maxval` must be given"):
        ds.random.uniform((2,), dtype="int32")
    with pytest.raises(ValueError, match="floating dtype"):
        ds.random.normal((2,), dtype="int32")
    with pytest.raises(TypeError, match="`seed` must be None or an int"):
        ds.random.uniform((2,), seed=1.5)


# ================================================================ ds.print, ds.config, ds.TensorSpec
def test_print_formats_like_tf_print():
    out = io.StringIO()
    ds.print("loss:", ds.constant(0.25), ds.constant([1.0, 2.5]), ds.range(10), output_stream=out)
    assert out.getvalue() == "loss: 0.25 [1 2.5] [0 1 2 ... 7 8 9]\n"
    out = io.StringIO()
    ds.print(ds.range(10), summarize=-1, sep="|", end="", output_stream=out)
    assert out.getvalue() == "[0 1 2 3 4 5 6 7 8 9]"


def test_print_defaults_to_stderr_and_appends_to_files(capsys, tmp_path):
    ds.print("x", ds.constant([[1, 2], [3, 4]]))
    assert capsys.readouterr().err == "x [[1 2]\n [3 4]]\n"
    path = tmp_path / "log.txt"
    ds.print("a", output_stream=f"file://{path}")
    ds.print("b", output_stream=f"file://{path}")
    assert path.read_text() == "a\nb\n"
    with pytest.raises(ValueError, match="file://"):
        ds.print("a", output_stream="log.txt")


def test_config_calls_of_eager_programs():
    was = ds.config.functions_run_eagerly()
    ds.config.run_functions_eagerly(True)
    assert ds.config.functions_run_eagerly() is True
    ds.config.run_functions_eagerly(was)
    gpus = ds.config.list_physical_devices("GPU")
    assert gpus == [] and ds.config.list_physical_devices()[0].device_type == "CPU"
    ds.config.set_visible_devices([], "GPU")
    for gpu in gpus:  # the usual loop runs zero times
        ds.config.experimental.set_memory_growth(gpu, True)
    with pytest.raises(TypeError, match="expects a bool"):
        ds.config.run_functions_eagerly("yes")


def test_tensor_spec_and_function_input_signature():
    spec = ds.TensorSpec(shape=[None, 2], dtype=ds.float32, name="x")
    assert spec.shape == (None, 2) and spec.dtype == ds.float32 and spec.name == "x"
    assert spec.is_compatible_with(ds.ones((7, 2))) and not spec.is_compatible_with(ds.ones((7, 3)))
    assert not spec.is_compatible_with(ds.ones((7, 2), dtype="float64"))
    assert ds.TensorSpec(None).is_compatible_with(ds.ones((1, 2, 3)))
    assert spec == ds.TensorSpec((None, 2), "float32", "x") and len({spec, ds.TensorSpec((None, 2), name="x")}) == 1

    @ds.function(input_signature=[ds.TensorSpec(shape=[None], dtype=ds.float32)])
    def double(x):
        return x * 2.0

    np.testing.assert_array_equal(double(ds.constant([1.0, 2.0])).numpy(), [2.0, 4.0])
    np.testing.assert_array_equal(double([1.0, 2.0]).numpy(), [2.0, 4.0])  # converted to the spec's dtype
    # TF's errors: a TypeError naming both specs, or inspect's binding message
    with pytest.raises(TypeError, match=r"Can not cast TensorSpec\(shape=\(2, 2\).* to TensorSpec\(shape=\(None,\)"):
        double(ds.ones((2, 2)))
    with pytest.raises(TypeError, match="dtype=float64"):
        double(ds.ones((2,), dtype="float64"))
    with pytest.raises(TypeError, match="too many positional arguments"):
        double(ds.ones((2,)), ds.ones((2,)))
    with pytest.raises(TypeError, match="possibly nested sequence of TensorSpec"):
        ds.function(lambda x: x, input_signature=[(None, 2)])
    with pytest.raises(TypeError, match="`shape` must be None or a sequence"):
        ds.TensorSpec(3)


# ================================================================ Tensor.__format__
def test_format_spec_on_scalar_tensors_and_metric_results():
    m = ds.metrics.Mean()
    m.update_state([1.0, 2.0])
    assert f"{m.result():.4f}" == "1.5000"
    assert f"{ds.constant(7):>3d}" == "  7" and f"{ds.constant(0.5, dtype='float64'):.2%}" == "50.00%"
    assert f"{ds.constant([1, 2])}" == "[1 2]"  # the value alone, as TF
    assert f"{ds.Variable(2.5):.1f}" == "2.5"
    with pytest.raises(TypeError, match=r"needs a scalar; received shape \(2,\)"):
        f"{ds.constant([1.0, 2.0]):.2f}"


# ================================================================ Dataset.cache
def test_cache_runs_the_pipeline_once_and_replays_it():
    calls = []
    d = Dataset.range(5).map(lambda x: calls.append(int(x)) or x * 10).cache()
    assert [int(v) for v in d] == [0, 10, 20, 30, 40] and len(calls) == 5
    assert [int(v) for v in d] == [0, 10, 20, 30, 40] and len(calls) == 5
    assert int(d.cardinality()) == 5


def test_cache_freezes_an_upstream_random_order_and_a_later_shuffle_reshuffles():
    d = Dataset.range(8).shuffle(8, seed=3).cache()
    epochs = [[int(v) for v in d] for _ in range(3)]
    assert epochs[0] == epochs[1] == epochs[2] and sorted(epochs[0]) == list(range(8))
    e = Dataset.range(8).cache().shuffle(8, seed=3)
    epochs = [[int(v) for v in e] for _ in range(3)]
    assert len({tuple(x) for x in epochs}) == 3


def test_a_partial_pass_records_nothing():
    calls = []
    d = Dataset.range(4).map(lambda x: calls.append(1) or x).cache()
    it = iter(d)
    next(it)
    next(it)
    assert [int(v) for v in d] == [0, 1, 2, 3] and len(calls) == 6
    assert [int(v) for v in d] == [0, 1, 2, 3] and len(calls) == 6


def test_cache_state_resumes_exactly_in_a_fresh_pipeline():
    def make():
        return Dataset.range(6).map(lambda x: x * 3).cache().shuffle(6, seed=2).batch(2)

    d = make()
    [b.numpy() for b in d]  # epoch 0 fills the cache
    it = iter(d)
    next(it)
    state = it.get_state()
    rest = [b.numpy().tolist() for b in it]
    assert [b.numpy().tolist() for b in make().iterator_from_state(state)] == rest
    assert [b.numpy().tolist() for b in d.iterator_from_state(state)] == rest


def test_cache_to_a_file_is_read_by_a_later_pipeline(tmp_path):
    path = str(tmp_path / "cache.bin")
    calls = []
    d = Dataset.from_tensor_slices((np.arange(3.0), np.arange(3))).map(lambda x, y: (calls.append(1) or x, y))
    assert [(float(a), int(b)) for a, b in d.cache(path)] == [(0, 0), (1, 1), (2, 2)]
    assert len(calls) == 3
    assert [(float(a), int(b)) for a, b in d.cache(path)] == [(0, 0), (1, 1), (2, 2)]
    assert len(calls) == 3  # read from the file
    with pytest.raises(TypeError, match="`filename` must be a string"):
        d.cache(3)
    (tmp_path / "bad.bin").write_bytes(b"\x80\x04N.")
    with pytest.raises(ValueError, match="not a descend dataset cache file"):
        list(d.cache(str(tmp_path / "bad.bin")))


def test_cache_in_a_training_loop_over_epochs():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    d = Dataset.from_tensor_slices((x, np.arange(6))).cache().shuffle(6, seed=0).batch(3)
    seen = [sorted(int(i) for _, yb in d for i in yb.numpy()) for _ in range(2)]
    assert seen == [list(range(6))] * 2


def test_module_names_do_not_shadow_the_standard_library():
    import math

    assert math.sqrt(4.0) == 2.0 and sys.modules["math"] is math
    assert ds.math is sys.modules["descend.math"]
