"""Keras 3's spellings: ``keras.ops``, ``keras.backend``'s Keras 3 names, ``Variable(initializer=, shape=)``,
and the optimizer surface Keras 3 code calls (``_clip_gradients``, ``set_weights``, Keras' error wording)."""

import numpy as np
import pytest

import descend as ds
from descend.keras import backend as K
from descend.keras import ops


def numerical_gradient(f, x0, eps=1e-6):
    """Central differences of the scalar ``f`` at the float64 array ``x0``."""
    out = np.zeros_like(x0)
    for i in np.ndindex(x0.shape):
        up, down = x0.copy(), x0.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out


# ---------------------------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("make,dtype", [
    (lambda: ops.array([1.0, 2.0]), "float32"),
    (lambda: ops.array([1, 2]), "int32"),
    (lambda: ops.array(np.ones(2)), "float64"),
    (lambda: ops.zeros((2,)), "float32"),
    (lambda: ops.full((2,), 3), "float32"),
    (lambda: ops.arange(3), "int32"),
    (lambda: ops.arange(0.1, 1.1, 0.1), "float32"),
    (lambda: ops.add(ops.arange(3), 0.5), "float32"),
    (lambda: ops.add(ops.arange(3), 2), "int32"),
    (lambda: ops.multiply(ops.array([1, 2]), ops.array([1.0, 2.0])), "float32"),
    (lambda: ops.multiply(ops.array(np.ones(2)), ops.array([1.0, 2.0])), "float64"),
    (lambda: ops.sqrt(ops.array([4, 9])), "float32"),
    (lambda: ops.mean(ops.array([1, 2])), "float32"),
    (lambda: ops.sum(ops.array([True, True])), "int32"),
    (lambda: ops.divide(ops.array([1, 2]), 2), "float32"),
    (lambda: ops.argmax(ops.array([[1.0, 5.0], [7.0, 0.0]])), "int32"),
    (lambda: ops.one_hot(ops.array([0, 2]), 3), "float32"),
    (lambda: ops.concatenate([ops.array([1]), ops.array([2.0])]), "float32"),
])
def test_keras_dtype_rules(make, dtype):
    assert make().dtype == dtype


def test_result_type_and_standardize_dtype():
    assert K.result_type("int32", "float32") == "float32"
    assert K.result_type("int8", "uint8") == "int16"
    assert K.result_type("float16", float) == "float16"
    assert K.result_type("int64", int) == "int64"
    assert K.result_type(int, float) == "float32"
    assert K.standardize_dtype(None) == "float32" and K.standardize_dtype(np.float64) == "float64"
    assert K.backend() == "tensorflow" and K.numpy is ops and K.SUPPORTS_SPARSE_TENSORS


# ---------------------------------------------------------------------------------------------- values
def test_values_match_numpy():
    x = np.array([[1.5, -2.0, 3.0], [0.25, 4.0, -1.0]], np.float32)
    t = ops.array(x)
    np.testing.assert_array_equal(ops.sum(t, axis=1).numpy(), x.sum(axis=1))
    np.testing.assert_array_equal(ops.max(t, axis=0, keepdims=True).numpy(), x.max(axis=0, keepdims=True))
    np.testing.assert_array_equal(ops.min(t, initial=-5.0).numpy(), np.float32(-5.0))
    np.testing.assert_array_equal(ops.argmax(t).numpy(), np.argmax(x))
    np.testing.assert_array_equal(ops.argmin(t, axis=1, keepdims=True).numpy(), np.argmin(x, axis=1)[:, None])
    np.testing.assert_array_equal(ops.clip(t, -1.0, 1.0).numpy(), np.clip(x, -1, 1))
    np.testing.assert_array_equal(ops.transpose(t).numpy(), x.T)
    np.testing.assert_array_equal(ops.take(t, [0, 5]).numpy(), x.reshape(-1)[[0, 5]])
    np.testing.assert_array_equal(ops.take(t, ops.array([1, 0]), axis=1).numpy(), x[:, [1, 0]])
    np.testing.assert_array_equal(ops.tile(ops.array([1, 2]), (2, 2)).numpy(), np.tile([1, 2], (2, 2)))
    np.testing.assert_array_equal(ops.cumsum(t).numpy(), np.cumsum(x))
    np.testing.assert_allclose(ops.var(t, axis=0).numpy(), x.var(axis=0), rtol=1e-6)
    np.testing.assert_allclose(ops.std(t).numpy(), x.std(), rtol=1e-6)
    np.testing.assert_allclose(ops.norm(t).numpy(), np.linalg.norm(x), rtol=1e-6)
    np.testing.assert_allclose(ops.norm(t, ord=1, axis=1).numpy(), np.linalg.norm(x, ord=1, axis=1), rtol=1e-6)
    np.testing.assert_allclose(ops.norm(t, ord=np.inf, axis=0).numpy(), np.abs(x).max(axis=0))
    np.testing.assert_array_equal(ops.round(ops.array([0.5, 1.5, 2.25]), 1).numpy(),
                                  np.round(np.float32([0.5, 1.5, 2.25]) * np.float32(10)) / np.float32(10))
    np.testing.assert_array_equal(ops.dot(t, ops.array([1.0, 0.0, 1.0])).numpy(), x @ np.array([1, 0, 1], np.float32))
    np.testing.assert_array_equal(ops.where(ops.greater(t, 0.0), t, 0.0).numpy(), np.where(x > 0, x, 0))
    assert [i.numpy().tolist() for i in ops.where(ops.array([[True, False], [False, True]]))] == [[0, 1], [0, 1]]
    assert ops.all(ops.isfinite(t)).numpy() and not ops.any(ops.isnan(t)).numpy()
    assert ops.isnan(ops.array([1, 2])).numpy().tolist() == [False, False]
    assert ops.shape(t) == (2, 3) and ops.ndim(t) == 2 and ops.size(t) == 6 and ops.dtype(t) == "float32"
    assert ops.convert_to_numpy(ds.Variable([1.0])).tolist() == [1.0]
    assert ops.is_tensor(t) and not ops.is_tensor(x)


def test_bad_arguments_say_what_was_expected():
    with pytest.raises(ValueError, match="`x1` and `x2` must be given together"):
        ops.where(ops.array([True]), 1.0)
    with pytest.raises(ValueError, match="sparse=True"):
        ops.convert_to_tensor([1.0], sparse=True)
    with pytest.raises(ValueError, match="`ord` must be None, 'fro', 'nuc', 1, -1, 2, -2, inf or -inf for a matrix"):
        ops.norm(ops.ones((2, 2)), ord=3, axis=(0, 1))
    with pytest.raises(ValueError, match="`ord` must be None or a number for a vector norm"):
        ops.norm(ops.ones((2, 2)), ord="nuc", axis=1)


def test_gradients_flow_through_the_keras_spellings_float64():
    x0 = np.array([[0.3, -1.2, 2.0], [1.1, 0.4, -0.7]])

    def f(x):
        y = ops.multiply(ops.sum(ops.square(x), axis=1), ops.mean(ops.exp(x), axis=1))
        return ops.sum(ops.concatenate([y, ops.max(ops.clip(x, -1.0, 1.0), axis=0)]))

    x = ds.Variable(x0)
    with ds.GradientTape() as tape:
        loss = f(x)
    got = tape.gradient(loss, x).numpy()
    want = numerical_gradient(lambda a: float(f(ops.array(a)).numpy()), x0)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


# ---------------------------------------------------------------------------------------------- tf.math additions
def test_floor_ceil_round_and_finiteness_as_tf():
    x = ds.constant([1.5, -0.5, 2.5, -2.5, float("nan"), float("inf")])
    np.testing.assert_array_equal(ds.floor(x).numpy(), np.floor(x.numpy()))
    np.testing.assert_array_equal(ds.math.ceil(x).numpy(), np.ceil(x.numpy()))
    np.testing.assert_array_equal(ds.round(x).numpy(), [2.0, -0.0, 2.0, -2.0, np.nan, np.inf])
    assert ds.math.is_nan(x).numpy().tolist() == [False] * 4 + [True, False]
    assert ds.math.is_inf(x).numpy().tolist() == [False] * 5 + [True]
    assert ds.math.is_finite(x).numpy().tolist() == [True] * 4 + [False, False]
    assert ds.round(ds.constant([3, 4])).numpy().tolist() == [3, 4]
    assert ds.reduce_sum(ds.constant([1, 2])).dtype == "int32" and ds.reduce_prod(ds.constant([2, 3])).dtype == "int32"
    with pytest.raises(TypeError, match="floor: `x` must be a floating tensor. Received: dtype int32"):
        ds.floor(ds.constant([1, 2]))
    v = ds.Variable([1.3, 2.7])
    with ds.GradientTape() as tape:  # floor has no gradient (TF's is None): only the second factor's
        y = ds.reduce_sum(ds.floor(v) * v)
    assert tape.gradient(y, v).numpy().tolist() == [1.0, 2.0]


# ---------------------------------------------------------------------------------------------- Variable
def test_variable_from_an_initializer_and_shape_as_keras_3():
    v = K.Variable(initializer="ones", shape=(2, 3))
    assert v.dtype == "float32" and v.numpy().tolist() == [[1.0] * 3] * 2
    w = ds.keras.Variable(initializer=ds.initializers.Constant(2.0), shape=(2,), dtype="float64")
    assert w.dtype == "float64" and w.numpy().tolist() == [2.0, 2.0]
    assert ds.Variable(np.ones(2), shape=(2,)).dtype == "float64"  # a value keeps its dtype
    with pytest.raises(ValueError, match="needs its `shape`"):
        ds.Variable("ones")
    with pytest.raises(ValueError, match=r"initial value has shape \(2,\) but `shape` is \(3,\)"):
        ds.Variable(np.ones(2), shape=(3,))
    with pytest.raises(ValueError, match="not both"):
        ds.Variable([1.0], initializer="ones")


# ---------------------------------------------------------------------------------------------- optimizers
def test_clip_gradients_as_keras_3():
    clipped = ds.optimizers.Adam(clipnorm=1)._clip_gradients([np.array([100.0, 100.0]), None])
    np.testing.assert_allclose(clipped[0].numpy(), [2 ** 0.5 / 2] * 2)
    assert clipped[1] is None
    np.testing.assert_array_equal(ds.optimizers.Adam(clipvalue=1)._clip_gradients([np.array([100.0, -5.0])])[0].numpy(),
                                  [1.0, -1.0])
    g = ds.optimizers.SGD(global_clipnorm=5.0)._clip_gradients([np.array([3.0, 0.0]), np.array([0.0, 8.0])])
    np.testing.assert_allclose([a.numpy() for a in g], [[15 / 73 ** 0.5, 0.0], [0.0, 40 / 73 ** 0.5]], rtol=1e-12)


def test_set_weights_copies_state_and_a_bad_list_changes_nothing():
    x = ds.Variable([[1.0, 2.0], [3.0, 4.0]])
    first = ds.optimizers.Adam()
    first.apply_gradients([(ds.constant([[1.0, 2.0], [3.0, 4.0]]), x)])
    second = ds.optimizers.Adam()
    with pytest.raises(ValueError, match="You are calling `set_weights\\(\\)` on an optimizer that has not"):
        second.set_weights(first.variables)
    second.build([x])
    before = second.get_weights()
    bad = first.get_weights()
    bad[-1] = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"has shape \(2, 2\) not compatible with provided weight shape \(3, 3\)"):
        second.set_weights(bad)
    for a, b in zip(second.get_weights(), before):
        np.testing.assert_array_equal(a, b)
    second.set_weights(first.variables)
    for a, b in zip(second.get_weights(), first.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert int(second.iterations) == 1


@pytest.mark.parametrize("make,match", [
    (lambda: ds.optimizers.SGD(momentum=-1.0), r"`momentum` must be a float between \[0, 1\]"),
    (lambda: ds.optimizers.Lion(beta_1=-0.1), r"Argument `beta_1` must be in the \[0, 1\] range\. Otherwise"),
    (lambda: ds.optimizers.Ftrl(initial_accumulator_value=-0.1),
     r"^`initial_accumulator_value` needs to be positive or zero. Received: initial_accumulator_value=-0.1.$"),
    (lambda: ds.optimizers.Ftrl(learning_rate_power=0.1),
     r"^`learning_rate_power` needs to be negative or zero. Received: learning_rate_power=0.1.$"),
    (lambda: ds.optimizers.Ftrl(l2_shrinkage_regularization_strength=-0.1),
     r"^`l2_shrinkage_regularization_strength` needs to be positive or zero"),
    (lambda: ds.optimizers.AdamW(weight_decay=None), r"Argument `weight_decay` must be a float"),
    (lambda: ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(), foo=1, bar=2),
     r"does not support arguments: `foo`, `bar`"),
])
def test_keras_wording_of_bad_arguments(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_optimizers_get_none_and_ema_averages_in_keras_3s_name():
    assert ds.optimizers.get(None) is None
    v = ds.Variable([[3.0, 4.0], [5.0, 6.0]])
    opt = ds.optimizers.SGD(learning_rate=1.0, use_ema=True, ema_momentum=0.9)
    opt.apply_gradients([(ds.constant([[1.0, 1.0], [1.0, 1.0]]), v)])
    opt.apply_gradients([(ds.constant([[1.0, 1.0], [1.0, 1.0]]), v)])
    np.testing.assert_allclose(opt._model_variables_moving_average[0].numpy(), [[1.9, 2.9], [3.9, 4.9]], rtol=1e-6)


def test_compile_without_optimizer_then_fit_says_so():
    model = ds.Sequential([ds.layers.Dense(1)])
    model.compile(optimizer=None, loss="mse")
    with pytest.raises(ValueError, match="fit\\(\\) needs an optimizer"):
        model.fit(np.ones((2, 3), np.float32), np.ones((2, 1), np.float32), verbose=0)


def test_schedules_take_negative_steps_as_keras():
    sched = ds.optimizers.schedules.PiecewiseConstantDecay([10, 20], [1.0, 0.5, 0.1])
    assert float(sched(-999)) == 1.0
    assert float(ds.optimizers.schedules.ExponentialDecay(1.0, 10, 0.5)(-10)) == 2.0
    with pytest.raises(ValueError, match="finite number"):
        sched(float("nan"))


def test_losses_broadcast_shapes_as_keras():
    y_true, y_pred = np.zeros((1, 1), np.float32), np.array([[0.5, 1.0]], np.float32)
    assert float(ds.losses.MeanSquaredError()(y_true, y_pred)) == pytest.approx(0.625)
    with pytest.raises(ValueError, match="shapes that broadcast together"):
        ds.losses.MeanSquaredError()(np.zeros((2, 3)), np.zeros((2, 4)))


def test_train_on_batch_is_one_fit_step_and_reports_that_batch():
    x = np.random.default_rng(0).standard_normal((8, 3)).astype("float32")
    y = np.ones((8, 1), "float32")

    def make():
        m = ds.Sequential([ds.layers.Dense(1, kernel_initializer="ones")])
        m.compile(optimizer=ds.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
        return m

    a, b = make(), make()
    logs = [a.train_on_batch(x, y) for _ in range(3)]
    b.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
    np.testing.assert_array_equal(a.layers[0].kernel.numpy(), b.layers[0].kernel.numpy())
    # each call reports its own batch (metrics reset first), as Keras 3: the loss before the update
    pred = x @ np.ones((3, 1), np.float32)
    assert logs[0][0] == pytest.approx(float(np.mean((pred - y) ** 2)), rel=1e-6)
    assert logs[1][0] < logs[0][0] and logs[2][0] < logs[1][0]
    after = a.test_on_batch(x, y, return_dict=True)
    pred = a.predict_on_batch(x)
    assert isinstance(pred, np.ndarray) and pred.shape == (8, 1)
    assert after["loss"] == pytest.approx(float(np.mean((pred - y) ** 2)), rel=1e-6)
    assert a.test_on_batch(x, y) == [after["loss"], after["mae"]]
    with pytest.raises(RuntimeError, match="compile"):
        ds.Sequential([ds.layers.Dense(1)]).train_on_batch(x, y)


def test_loss_scale_optimizer_builds_its_inner_optimizer():
    v = ds.Variable([1.0, 2.0])
    opt = ds.optimizers.LossScaleOptimizer(ds.optimizers.Adam())
    assert not opt.built
    opt.build([v])
    assert opt.built and opt.inner_optimizer.built and len(opt.inner_optimizer.variables) == 3


def test_cross_entropies_still_insist_on_one_shape_as_keras():
    y_true, y_pred = np.array([[0], [1], [2]]), np.array([[0.9, 0.05, 0.05], [0.5, 0.89, 0.6], [0.05, 0.01, 0.94]])
    for loss in (ds.losses.BinaryCrossentropy(), ds.losses.CategoricalCrossentropy()):
        with pytest.raises(ValueError, match="must have the same shape. Received"):
            loss(y_true, y_pred)


@pytest.mark.parametrize("name,fn", [
    ("hinge", "hinge"), ("squared_hinge", "squared_hinge"), ("categorical_hinge", "categorical_hinge"),
    ("logcosh", "log_cosh"), ("mape", "mean_absolute_percentage_error"), ("msle", "mean_squared_logarithmic_error"),
    ("kl_divergence", "kl_divergence"), ("poisson", "poisson"),
])
def test_loss_metrics_average_their_loss_over_samples(name, fn):
    y_true = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], np.float32)
    y_pred = np.array([[0.6, 0.4], [0.4, 0.6], [0.9, 0.8]], np.float32)
    metric = ds.metrics.get(name)
    metric.update_state(y_true[:2], y_pred[:2])
    metric.update_state(y_true[2:], y_pred[2:], sample_weight=[2.0])
    per_sample = getattr(ds.losses, fn)(y_true, y_pred).numpy()
    assert float(metric.result()) == pytest.approx(float(np.average(per_sample, weights=[1, 1, 2])), rel=1e-6)
    assert type(metric).from_config(metric.get_config()).get_config() == metric.get_config()


def test_cosine_similarity_metric_is_the_positive_similarity():
    m = ds.metrics.CosineSimilarity(axis=1)
    m.update_state([[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [2.0, 2.0]])
    assert float(m.result()) == pytest.approx(0.5) and m.get_config()["axis"] == 1


def test_sparse_cross_entropy_axis_and_ignore_class_as_keras_3():
    y_true = np.array([0, 1, 2])
    y_pred = np.array([[0.8, 0.1, 0.1], [0.05, 0.95, 0.0], [0.1, 0.8, 0.1]])
    per_sample = ds.losses.sparse_categorical_crossentropy(y_true, y_pred).numpy()
    # the metric: ignored samples count as 0 in an unweighted mean and drop out of a weighted one (Keras 3)
    m = ds.metrics.SparseCategoricalCrossentropy(ignore_class=0)
    assert float(m(y_true, y_pred)) == pytest.approx((per_sample[1] + per_sample[2]) / 3, rel=1e-5)
    m = ds.metrics.SparseCategoricalCrossentropy(ignore_class=0)
    got = float(m(y_true, y_pred, sample_weight=np.array([0.5, 1.5, 2.0])))
    assert got == pytest.approx((1.5 * per_sample[1] + 2.0 * per_sample[2]) / 3.5, rel=1e-5)
    assert m.get_config()["ignore_class"] == 0
    # the loss's class axis: channels-first maps give the channels-last result
    maps = np.random.default_rng(0).random((2, 3, 4, 4)).astype(np.float32)
    labels = np.random.default_rng(1).integers(0, 3, (2, 4, 4))
    first = ds.losses.SparseCategoricalCrossentropy(axis=1)(labels, maps)
    last = ds.losses.SparseCategoricalCrossentropy()(labels, np.moveaxis(maps, 1, -1))
    assert float(first) == pytest.approx(float(last), rel=1e-6)
    assert ds.losses.SparseCategoricalCrossentropy(axis=1).get_config()["axis"] == 1
    with pytest.raises(ValueError, match="`ignore_class` must be an int or None"):
        ds.metrics.SparseCategoricalCrossentropy(ignore_class=0.5)


def test_loss_scale_factor_scales_the_loss_and_unscales_every_gradient():
    v = ds.Variable([[1.0, 2.0], [3.0, 4.0]])
    grads = ds.convert_to_tensor([[1.0, 2.0], [3.0, 4.0]]) * 1024.0
    opt = ds.optimizers.SGD(learning_rate=1.0, loss_scale_factor=1024.0)
    assert float(opt.scale_loss(1.0)) == 1024.0 and ds.optimizers.SGD().scale_loss(3.0) == 3.0
    opt.apply_gradients([(grads, v)])
    np.testing.assert_array_equal(v.numpy(), np.zeros((2, 2)))
    again = ds.optimizers.SGD.from_config(opt.get_config())
    assert again.loss_scale_factor == 1024.0
    # sparse rows and accumulation see the unscaled gradients
    table = ds.Variable(np.ones((4, 2), np.float32))
    acc = ds.optimizers.SGD(0.5, loss_scale_factor=8.0, gradient_accumulation_steps=2)
    for _ in range(2):
        acc.apply_gradients([(ds.IndexedSlices(ds.constant(np.full((1, 2), 8.0, np.float32)), ds.constant([2]),
                                               (4, 2)), table)])
    np.testing.assert_array_equal(table.numpy()[2], [0.5, 0.5])
    np.testing.assert_array_equal(table.numpy()[[0, 1, 3]], np.ones((3, 2)))
    # a factor below 1 that overflows a gradient is caught by the input check, and nothing changes
    tiny = ds.optimizers.SGD(1.0, loss_scale_factor=1e-38)
    w = ds.Variable([1.0])
    with pytest.raises(ValueError, match="contains Inf"):
        tiny.apply_gradients([(ds.constant([10.0]), w)])
    assert w.numpy().tolist() == [1.0] and int(tiny.iterations) == 0
    for bad in (0.0, -2.0, float("inf"), True, "2"):
        with pytest.raises(ValueError, match="`loss_scale_factor` must be a positive finite number"):
            ds.optimizers.SGD(loss_scale_factor=bad)


def test_fit_with_a_power_of_two_loss_scale_factor_trains_the_same_weights():
    x = np.random.default_rng(0).standard_normal((32, 4)).astype(np.float32)
    y = x @ np.array([[1.0], [-2.0], [0.5], [3.0]], np.float32)
    weights = []
    for factor in (None, 256.0):
        ds.random.set_seed(3)
        model = ds.Sequential([ds.layers.Dense(1)])
        model.compile(optimizer=ds.optimizers.Adam(0.01, loss_scale_factor=factor), loss="mse")
        model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)
        weights.append(model.layers[0].kernel.numpy())
    np.testing.assert_array_equal(weights[0], weights[1])


def test_loss_scale_optimizer_takes_over_the_inner_factor_and_old_configs():
    inner = ds.optimizers.SGD(loss_scale_factor=4.0)
    ds.optimizers.LossScaleOptimizer(inner)
    assert inner.loss_scale_factor is None
    ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(), loss_scale_factor=None, clipnorm=None, use_ema=False)
    with pytest.raises(ValueError, match="LossScaleOptimizer does not support `clipnorm`. Instead, set"):
        ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(), clipnorm=1.0)
    with pytest.raises(ValueError, match="set `loss_scale_factor`"):
        ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(), dynamic=False)


def test_learning_rate_is_a_float_that_keras_and_tf_code_can_set_in_place():
    """``optimizer.learning_rate`` is a variable in Keras 3 and TF 2: ported code calls ``.assign``,
    ``.numpy()``, ``keras.backend.set_value(optimizer.lr, x)`` and ``get_value``. In descend it is the float
    rate at the current step that also takes those calls; copies and pickles are the plain number."""
    import copy
    import pickle

    K = ds.keras.backend
    opt = ds.keras.optimizers.Adam(0.01)
    assert isinstance(opt.learning_rate, float) and opt.learning_rate == 0.01
    K.set_value(opt.lr, 1e-4)
    assert opt.learning_rate == 1e-4 and K.get_value(opt.learning_rate) == 1e-4
    opt.learning_rate.assign(ds.constant(0.5))
    assert opt.learning_rate == 0.5 and opt.get_config()["learning_rate"] == 0.5
    assert type(opt.get_config()["learning_rate"]) is float
    assert type(copy.deepcopy(opt.lr)) is float and pickle.loads(pickle.dumps(opt.lr)) == 0.5
    w = ds.Variable([1.0], name="w")
    opt2 = ds.optimizers.SGD(1.0)
    opt2.learning_rate.assign(0.25)  # the update uses the new rate
    opt2.apply_gradients([(ds.constant([1.0]), w)])
    assert w.numpy().tolist() == [0.75]
    lso = ds.mixed_precision.LossScaleOptimizer(ds.optimizers.SGD(0.1))
    lso.learning_rate.assign(0.3)
    assert lso.inner_optimizer.learning_rate == 0.3
    scheduled = ds.optimizers.SGD(ds.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5))
    with pytest.raises(TypeError, match="schedule or a callable, not a value to assign"):
        scheduled.learning_rate.assign(0.2)
    with pytest.raises(TypeError, match="set_value expects a Variable"):
        K.set_value(3.0, 1.0)
    v = ds.Variable(1.0)
    K.set_value(v, 3.0)
    assert float(v.numpy()) == 3.0 and K.get_value(v) == 3.0


def test_variable_value_is_keras_3_property_and_tf_method():
    v = ds.Variable([1.0, 2.0])
    assert v.value.numpy().tolist() == [1.0, 2.0] and v.value().numpy().tolist() == [1.0, 2.0]
    with ds.GradientTape() as tape:
        y = ds.reduce_sum(v.value * v.value())
    assert tape.gradient(y, v).numpy().tolist() == [2.0, 4.0]
    assert bool(ds.keras.optimizers.SGD().iterations.value == 0)


# ---------------------------------------------------------------------------------------------- against Keras 3
def test_one_hot_casts_float_and_bool_labels_as_keras():
    got = ops.one_hot(ops.array([0.0, 2.0, 1.9]), 3)  # Keras casts to int32: 1.9 -> 1
    assert got.dtype == "float32"
    np.testing.assert_array_equal(got.numpy(), [[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    np.testing.assert_array_equal(ops.one_hot(ops.array([True, False]), 2, dtype="int32").numpy(), [[0, 1], [1, 0]])


_DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "float16", "float32", "float64"]
_UNARY = ["abs", "negative", "sign", "square", "sqrt", "exp", "expm1", "log", "log1p", "sin", "cos", "tanh", "floor",
          "ceil", "round", "isnan", "isinf", "isfinite", "logical_not", "relu", "sigmoid", "softmax", "log_softmax", "sum",
          "mean", "var", "std", "max", "min", "prod", "all", "any", "argmax", "argmin", "cumsum", "norm",
          "stop_gradient", "zeros_like", "ones_like", "transpose", "squeeze"]
_BINARY = ["add", "subtract", "multiply", "divide", "true_divide", "power", "maximum", "minimum", "equal", "not_equal",
           "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or", "matmul", "dot"]


def _sample(lib, dtype, shape=(2, 3)):
    if dtype == "pyint":
        return 2
    if dtype == "pyfloat":
        return 2.0
    return lib.convert_to_tensor((np.arange(int(np.prod(shape))).reshape(shape) % 3).astype(dtype))


def _compare_with_keras(keras, call):
    """The dtype and values of ``call(ops)`` against ``call(keras.ops)``; an input Keras' TF backend refuses
    (a bool negated, a sigmoid of ints) is not compared: descend may accept it."""
    try:
        theirs = call(keras.ops)
    except Exception:  # noqa: BLE001 - Keras refusing the input: nothing to compare
        return
    ours = call(ops)
    assert ops.dtype(ours) == keras.ops.dtype(theirs)
    np.testing.assert_allclose(ops.convert_to_numpy(ours).astype(np.float64),
                               keras.ops.convert_to_numpy(theirs).astype(np.float64), rtol=2e-3, atol=1e-6)


@pytest.mark.parametrize("name", _UNARY + ["one_hot", "take", "tile", "full_like"])
def test_unary_ops_dtypes_and_values_as_keras(name):
    keras = pytest.importorskip("keras")
    for dtype in _DTYPES:
        if name == "one_hot":
            _compare_with_keras(keras, lambda o: o.one_hot(_sample(o, dtype), 3))
        elif name == "take":
            _compare_with_keras(keras, lambda o: o.take(_sample(o, dtype), [0, 4]))
        elif name == "tile":
            _compare_with_keras(keras, lambda o: o.tile(_sample(o, dtype), 2))
        elif name == "full_like":
            _compare_with_keras(keras, lambda o: o.full_like(_sample(o, dtype), 2.5))
        else:
            _compare_with_keras(keras, lambda o: getattr(o, name)(_sample(o, dtype)))


@pytest.mark.parametrize("name", _BINARY)
def test_binary_ops_dtypes_and_values_as_keras(name):
    keras = pytest.importorskip("keras")
    kinds = _DTYPES + ([] if name in ("matmul", "dot") else ["pyint", "pyfloat"])
    for a in kinds:
        for b in kinds:
            if a.startswith("py") and b.startswith("py"):
                continue
            _compare_with_keras(keras, lambda o: getattr(o, name)(_sample(o, a, (3, 3)), _sample(o, b, (3, 3))))


def test_joining_and_creation_dtypes_as_keras():
    keras = pytest.importorskip("keras")
    for a in _DTYPES:
        for b in _DTYPES:
            _compare_with_keras(keras, lambda o: o.concatenate([_sample(o, a), _sample(o, b)]))
            _compare_with_keras(keras, lambda o: o.stack([_sample(o, a), _sample(o, b)]))
            _compare_with_keras(keras, lambda o: o.where(_sample(o, "bool"), _sample(o, a), _sample(o, b)))
    for call in [lambda o: o.zeros((2,)), lambda o: o.full((2,), 3), lambda o: o.full((2,), 3.0),
                 lambda o: o.arange(3), lambda o: o.arange(0, 3, 0.5), lambda o: o.eye(3), lambda o: o.array([1, 2]),
                 lambda o: o.array([1.0, 2]), lambda o: o.convert_to_tensor([True]),
                 lambda o: o.convert_to_tensor(np.array([1.0])), lambda o: o.one_hot(o.array([0.0, 2.0]), 3),
                 lambda o: o.one_hot(o.array([0, 2]), 3, dtype="int32"),
                 lambda o: o.einsum("ij,jk->ik", o.ones((2, 2), "int32"), o.ones((2, 2)))]:
        _compare_with_keras(keras, call)


def test_tf_experimental_numpy_gives_the_numpy_named_keras_ops():
    """``tf.experimental.numpy`` (the TNP example's ``tnp.matmul``/``maximum``/``mean``/``square``): the NumPy-named
    functions of keras.ops, the same objects, differentiable; other names raise AttributeError naming the module."""
    import descend.experimental.numpy as tnp
    from descend.keras import ops as kops

    for name in ["matmul", "maximum", "mean", "square", "exp", "concatenate", "where", "argmax"]:
        assert getattr(tnp, name) is getattr(kops, name), name
    assert "matmul" in dir(tnp) and all(hasattr(np, n) for n in tnp.__all__)
    w = ds.Variable(np.array([[1.0], [-2.0]], np.float32))
    x = np.array([[3.0, 1.0]], np.float32)
    with ds.GradientTape() as tape:
        y = tnp.mean(tnp.square(tnp.maximum(tnp.matmul(x, w), 0.0)))
    assert float(y) == 1.0
    np.testing.assert_allclose(tape.gradient(y, w).numpy(), [[6.0], [2.0]])
    with pytest.raises(AttributeError, match="descend.experimental.numpy"):
        tnp.not_a_numpy_function  # noqa: B018
