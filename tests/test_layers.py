"""Layers: naming and scoping, weight bookkeeping, losses, forward values against NumPy,
numerical gradients through every layer (float64), BatchNorm's moving statistics and the
tape, Conv2D/MaxPooling2D against direct loops, Embedding's sparse gradient, constraints
after an optimizer step, configs, and bad inputs."""

from __future__ import annotations

import numpy as np
import pytest
from op_cases_layers import ref_conv2d, ref_max_pool2d

import descend as ds
import descend.constraints as constraints
import descend.initializers as initializers
import descend.layers as layers
import descend.regularizers as regularizers
from descend.testing import check_gradients

RNG = np.random.default_rng(7)
# the checked objective sums up to ~100 outputs: central differences carry ~1e-9 of rounding noise,
# which is 1e-6 relative to the smallest gradients the error's 1e-3 floor lets through
TOL = 1e-5


def _normal(*shape):
    return RNG.standard_normal(shape)


def _dense_grad(g):
    return ds.convert_to_tensor(g).numpy() if isinstance(g, ds.IndexedSlices) else g.numpy()


def layer_gradient_error(layer, x, training=None, wrt_input=True, delta=1e-6):
    """Largest relative error between the tape's gradients of ``sum(w * layer(x))`` with respect
    to the input and to every trainable weight, and central differences (the weights are
    perturbed in place with ``assign``, so the real Variable path is checked)."""
    x_is_float = np.asarray(x).dtype.kind == "f"
    x = np.asarray(x, np.float64) if x_is_float else np.asarray(x)
    out = layer(ds.constant(x), training=training)
    proj = ds.constant(np.random.default_rng(0).uniform(0.5, 1.5, out.shape).astype(out.dtype.dtype))
    variables = layer.trainable_weights
    assert all(v.dtype == np.float64 for v in variables), "build the layer with dtype='float64'"

    def objective(x_value):
        return float(ds.reduce_sum(layer(ds.constant(x_value), training=training) * proj))

    xt = ds.constant(x)
    with ds.GradientTape() as tape:
        if wrt_input:
            tape.watch(xt)
        y = ds.reduce_sum(layer(xt, training=training) * proj)
    sources = ([xt] if wrt_input else []) + variables
    analytic = [_dense_grad(g) for g in tape.gradient(y, sources, unconnected_gradients="zero")]
    numeric = []
    if wrt_input:
        g = np.zeros_like(x)
        for j in range(x.size):
            plus, minus = x.copy(), x.copy()
            plus.reshape(-1)[j] += delta
            minus.reshape(-1)[j] -= delta
            g.reshape(-1)[j] = (objective(plus) - objective(minus)) / (2 * delta)
        numeric.append(g)
    for v in variables:
        base = v.numpy()
        g = np.zeros_like(base)
        for j in range(base.size):
            shifted = base.copy()
            shifted.reshape(-1)[j] += delta
            v.assign(shifted)
            f_plus = objective(x)
            shifted.reshape(-1)[j] -= 2 * delta
            v.assign(shifted)
            f_minus = objective(x)
            g.reshape(-1)[j] = (f_plus - f_minus) / (2 * delta)
        v.assign(base)
        numeric.append(g)
    worst = 0.0
    for a, n in zip(analytic, numeric):
        assert a.shape == n.shape
        worst = max(worst, float(np.max(np.abs(a - n) / np.maximum(np.abs(n), 1e-3))))
    return worst


def _randomize(layer, scale=0.5, seed=3):
    """Give every weight (bias, beta... included) nonzero random values."""
    rng = np.random.default_rng(seed)
    for v in layer.weights:
        v.assign((rng.standard_normal(v.shape) * scale).astype(v.dtype.dtype))


# ================================================================ naming and scoping
def test_auto_names_count_per_class_and_clear_session_resets_them():
    names = [layers.Dense(2).name, layers.Dense(2).name, layers.Conv2D(1, 1).name, layers.Dense(1).name]
    assert names == ["dense", "dense_1", "conv2d", "dense_2"]
    assert layers.BatchNormalization().name == "batch_normalization"
    assert layers.MaxPooling2D().name == "max_pooling2d"
    assert layers.LayerNormalization().name == "layer_normalization"
    ds.clear_session()
    assert layers.Dense(2).name == "dense"


def test_snake_case_rule():
    assert layers.to_snake_case("BatchNormalization") == "batch_normalization"
    assert layers.to_snake_case("Conv2D") == "conv2d"
    assert layers.to_snake_case("MyHTTPLayer") == "my_http_layer"


def test_weights_are_named_after_the_layer_scope():
    d1, d2 = layers.Dense(3), layers.Dense(2)
    d2(d1(np.ones((1, 4), np.float32)))
    assert [v.path for v in d1.weights] == ["dense/kernel", "dense/bias"]
    assert [v.path for v in d2.weights] == ["dense_1/kernel", "dense_1/bias"]


def test_an_outer_scope_composes_with_the_layer_scope():
    d = layers.Dense(2)
    with ds.name_scope("sequential"):
        d(np.ones((1, 3), np.float32))
        inner = layers.Dense(1)
        inner(np.ones((1, 2), np.float32))
    assert d.kernel.path == "sequential/dense/kernel"
    assert inner.bias.path == "sequential/dense_1/bias"
    assert ds.framework.current_name_scope() == ""


class Block(layers.Layer):
    """A layer made of layers: attributes, a list and a dict of sublayers, one of them shared."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.first = layers.Dense(4, activation="relu")
        self.norm = layers.BatchNormalization()
        self.stack = [layers.Dense(3), layers.Dropout(0.5, seed=1)]
        self.heads = {"out": layers.Dense(2)}
        self.alias = self.first  # the same layer twice: tracked once

    def call(self, x, training=None):
        h = self.norm(self.first(x))
        h = self.stack[1](self.stack[0](h))
        return self.heads["out"](h)


def test_sublayers_are_tracked_recursively_in_attribute_order_and_nest_their_scopes():
    block = Block()
    with ds.name_scope("model"):
        y = block(np.ones((5, 6), np.float32), training=True)
    assert y.shape == (5, 2)
    names = [v.path for v in block.weights]
    assert names == [
        "model/block/dense/kernel", "model/block/dense/bias",
        "model/block/batch_normalization/gamma", "model/block/batch_normalization/beta",
        "model/block/batch_normalization/moving_mean", "model/block/batch_normalization/moving_variance",
        "model/block/dense_1/kernel", "model/block/dense_1/bias",
        "model/block/dense_2/kernel", "model/block/dense_2/bias",
    ]
    assert len(block.trainable_weights) == 8
    assert [v.name.split("/")[-1] for v in block.non_trainable_weights] == ["moving_mean", "moving_variance"]
    assert [type(x).__name__ for x in block._flatten_layers()] == [
        "Block", "Dense", "BatchNormalization", "Dense", "Dropout", "Dense"]
    assert block.count_params() == sum(v.size for v in block.weights)


def test_build_called_directly_is_scoped_and_marks_the_layer_built():
    d = layers.Dense(2)
    assert not d.built
    d.build((None, 3))
    assert d.built and d.kernel.path == "dense/kernel" and d.kernel.shape == (3, 2)
    assert d(np.ones((2, 3), np.float32)).shape == (2, 2)
    assert len(d.weights) == 2  # not built twice


def test_add_weight_outside_build_is_scoped_too():
    class Scale(layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = self.add_weight(shape=(2,), initializer="ones", name="w")
            self.steps = self.add_weight(shape=(), initializer="zeros", trainable=False, name="steps")

        def call(self, x):
            self.steps.assign_add(np.float32(1.0))
            return x * self.w

    s = Scale()
    assert [v.path for v in s.weights] == ["scale/w", "scale/steps"]
    s(np.ones((1, 2), np.float32))
    s(np.ones((1, 2), np.float32))
    assert float(s.steps.numpy()) == 2.0
    assert [v.path for v in s.trainable_weights] == ["scale/w"]


def test_keras2_positional_add_weight_and_default_initializers():
    class L(layers.Layer):
        def build(self, input_shape):
            self.a = self.add_weight("a", (2, 3))  # Keras 2 order: name first
            self.b = self.add_weight(shape=(2,), dtype="int32", name="b")
            self.c = self.add_weight("c", shape=[2], initializer="ones", trainable=False)  # tf.keras style
            self.d = self.add_weight((3,), "zeros", "float64", False, name="d")  # Keras 3 positional order

    layer = L()
    layer.build((1,))
    assert layer.a.path == "l/a" and layer.a.name == "a" and layer.a.shape == (2, 3)
    assert np.abs(layer.a.numpy()).max() > 0  # glorot_uniform by default for floats
    assert layer.b.dtype == np.int32 and not layer.b.numpy().any()
    assert layer.c.path == "l/c" and layer.c.name == "c" and not layer.c.trainable and layer.c.numpy().tolist() == [1.0, 1.0]
    assert layer.d.dtype == np.float64 and layer.d.shape == (3,) and not layer.d.trainable
    with pytest.raises(TypeError, match="multiple values for argument 'shape'"):
        layer.add_weight((2,), shape=(2,))
    with pytest.raises(TypeError, match=r"unexpected keyword arguments: \['initialiser'\]"):
        layer.add_weight(shape=(2,), initialiser="ones")


def test_explicit_and_invalid_layer_names():
    assert layers.Dense(1, name="head").name == "head"
    with pytest.raises(ValueError, match="no '/'"):
        layers.Dense(1, name="a/b")
    assert layers.Dense(1, name="").name == ""  # as Keras 3 (the custom layers tutorial names a model '')
    with pytest.raises(TypeError, match=r"Unrecognized keyword arguments passed to Dense: \{'unitz': 3\}"):
        layers.Dense(1, unitz=3)


def test_input_shape_arguments_are_kept_for_models():
    assert layers.Dense(2, input_shape=(4,))._input_shape_arg == (4,)
    assert layers.Dense(2, input_dim=5)._input_shape_arg == (5,)


# ================================================================ trainable bookkeeping
def test_freezing_a_layer_moves_its_weights_to_non_trainable_and_back():
    bn = layers.BatchNormalization()
    bn(np.ones((2, 3), np.float32))
    assert [v.path for v in bn.trainable_weights] == ["batch_normalization/gamma", "batch_normalization/beta"]
    assert len(bn.non_trainable_weights) == 2
    bn.trainable = False
    assert bn.trainable_weights == [] and len(bn.non_trainable_weights) == 4
    bn.trainable = True
    assert len(bn.trainable_weights) == 2


def test_freezing_an_outer_layer_freezes_its_sublayers():
    block = Block()
    block(np.ones((2, 6), np.float32))
    block.trainable = False
    assert block.trainable_weights == []
    assert len(block.non_trainable_weights) == len(block.weights) == 10
    assert not block.first.trainable
    # an inner layer unfrozen inside a frozen one stays frozen from the outside (Keras)
    block.first.trainable = True
    assert block.trainable_weights == []
    assert len(block.first.trainable_weights) == 2


def test_weights_get_and_set():
    d = layers.Dense(2)
    d(np.ones((1, 3), np.float32))
    values = [np.full((3, 2), 0.5, np.float32), np.array([1.0, -1.0], np.float32)]
    d.set_weights(values)
    np.testing.assert_array_equal(d.get_weights()[1], values[1])
    with pytest.raises(ValueError, match="expects 2 weight arrays; received 1"):
        d.set_weights(values[:1])
    with pytest.raises(ValueError, match=r"has shape \(3, 2\); received an array of shape \(2, 2\)"):
        d.set_weights([np.zeros((2, 2)), values[1]])
    with pytest.raises(ValueError, match="not built"):
        layers.Dense(1).count_params()


# ================================================================ losses
def test_weight_regularization_losses_are_computed_from_the_current_weights():
    d = layers.Dense(2, kernel_regularizer=regularizers.L2(0.1), bias_regularizer="l1", dtype="float64")
    d(np.ones((1, 3)))
    d.set_weights([np.ones((3, 2)), np.array([1.0, -3.0])])
    values = [float(t) for t in d.losses]
    assert values == pytest.approx([0.1 * 6.0, 0.01 * 4.0])
    d.kernel.assign(2 * np.ones((3, 2)))
    assert float(d.losses[0]) == pytest.approx(0.1 * 24.0)
    # differentiable: d(0.1 * sum k^2)/dk = 0.2 k
    with ds.GradientTape() as tape:
        total = ds.add_n(d.losses)
    g_kernel, g_bias = tape.gradient(total, [d.kernel, d.bias])
    np.testing.assert_allclose(g_kernel.numpy(), 0.4 * np.ones((3, 2)))
    np.testing.assert_allclose(g_bias.numpy(), [0.01, -0.01])


def test_activity_regularizer_is_divided_by_the_batch_size_and_replaced_each_call():
    # the Keras docstring example: kernel L1 term 0.25, activity term 25 / batch 5 = 5.0
    d = layers.Dense(5, kernel_initializer="ones", kernel_regularizer=regularizers.L1(0.01),
                     activity_regularizer=regularizers.L2(0.01))
    d(np.ones((5, 5), np.float32) * 2.0)
    assert [float(t) for t in d.losses] == pytest.approx([5.0, 0.25])
    d(np.ones((5, 5), np.float32))  # a new outermost call replaces the activity term
    assert [float(t) for t in d.losses] == pytest.approx([1.25, 0.25])


def test_add_loss_tensors_last_one_call_and_callables_are_reevaluated():
    class WithLoss(layers.Layer):
        def __init__(self):
            super().__init__()
            self.w = self.add_weight(shape=(), initializer="ones", name="w")
            self.add_loss(lambda: self.w * 3.0)

        def call(self, x):
            self.add_loss(ds.reduce_sum(x))
            return x

    class Outer(layers.Layer):
        def __init__(self):
            super().__init__()
            self.inner = WithLoss()

        def call(self, x):
            return self.inner(self.inner(x))

    outer = Outer()
    outer(np.ones(2, np.float32))
    assert sorted(float(t) for t in outer.losses) == [2.0, 2.0, 3.0]  # two inner calls in one outer call
    outer(np.zeros(2, np.float32))
    outer.inner.w.assign(np.float32(2.0))
    assert sorted(float(t) for t in outer.losses) == [0.0, 0.0, 6.0]


def test_frozen_weights_contribute_no_regularization_loss():
    d = layers.Dense(2, kernel_regularizer="l2")
    d(np.ones((1, 3), np.float32))
    assert len(d.losses) == 1
    d.trainable = False
    assert d.losses == []


# ================================================================ Dense
def test_dense_forward_rank2_and_rank3():
    d = layers.Dense(4, activation="tanh", dtype="float64")
    x = _normal(2, 3)
    y = d(x)
    k, b = d.get_weights()
    assert not b.any()  # zeros initializer
    _randomize(d)
    k, b = d.get_weights()
    np.testing.assert_allclose(d(x).numpy(), np.tanh(x @ k + b), rtol=1e-12)
    x3 = _normal(2, 5, 3)
    y3 = d(x3)
    assert y3.shape == (2, 5, 4) and y.dtype == np.float64
    np.testing.assert_allclose(y3.numpy(), np.tanh(x3 @ k + b), rtol=1e-12)
    assert d.compute_output_shape((None, 5, 3)) == (None, 5, 4)


@pytest.mark.parametrize("shape", [(3, 4), (2, 2, 4)])
def test_dense_gradients(shape):
    d = layers.Dense(3, activation="tanh", dtype="float64")
    d(np.zeros(shape))
    _randomize(d)
    assert layer_gradient_error(d, _normal(*shape)) < TOL


def test_dense_input_gradient_with_check_gradients():
    d = layers.Dense(2, activation="sigmoid", dtype="float64")
    d(np.zeros((3, 4)))
    _randomize(d)
    assert check_gradients(d, _normal(3, 4)) < TOL


def test_dense_casts_inputs_to_its_dtype():
    d = layers.Dense(2)
    assert d(np.ones((1, 3))).dtype == np.float32  # float64 NumPy input
    assert d(np.ones((1, 3), np.int32)).dtype == np.float32  # integer input
    d64 = layers.Dense(2, dtype=ds.float64)
    assert d64(ds.ones((1, 3))).dtype == np.float64 and d64.kernel.dtype == np.float64
    assert d64.dtype == "float64"


def test_dense_bad_inputs():
    with pytest.raises(ValueError, match=r"`units` must be a positive integer. Received: units=-1"):
        layers.Dense(-1)
    with pytest.raises(ValueError, match="units=0"):
        layers.Dense(0)
    with pytest.raises(ValueError, match="units=2.5"):
        layers.Dense(2.5)
    with pytest.raises(ValueError, match=r"expected min_ndim=2, found ndim=1. Full shape received: \(3,\)"):
        layers.Dense(2)(np.ones(3, np.float32))
    d = layers.Dense(2)
    d(np.ones((1, 3), np.float32))
    with pytest.raises(ValueError, match=r"expected axis -1 of input shape to have value 3, but received input "
                                         r"with shape \(1, 4\)"):
        d(np.ones((1, 4), np.float32))
    with pytest.raises(ValueError, match=r"Unknown activation: 'rleu'. Expected one of \["):
        layers.Dense(2, activation="rleu")
    with pytest.raises(ValueError, match=r"Unknown initializer: 'glorot'. Expected one of \["):
        layers.Dense(2, kernel_initializer="glorot")
    with pytest.raises(ValueError, match="Unknown regularizer"):
        layers.Dense(2, kernel_regularizer="l3")
    with pytest.raises(ValueError, match="Unknown constraint"):
        layers.Dense(2, kernel_constraint="positive")


# ================================================================ Activation, Flatten
def test_activation_layer_forward_and_gradient():
    layer = layers.Activation("softmax", dtype="float64")
    x = _normal(2, 3)
    e = np.exp(x - x.max(-1, keepdims=True))
    np.testing.assert_allclose(layer(x).numpy(), e / e.sum(-1, keepdims=True), rtol=1e-12)
    assert check_gradients(layer, x) < TOL
    assert layers.Activation(ds.nn.relu).get_config()["activation"] == "relu"
    with pytest.raises(ValueError, match="Unknown activation"):
        layers.Activation("nope")


def test_flatten_shapes_order_and_gradient():
    x = _normal(2, 3, 4, 5)
    np.testing.assert_array_equal(layers.Flatten(dtype="float64")(x).numpy(), x.reshape(2, -1))
    np.testing.assert_array_equal(layers.Flatten(data_format="channels_first", dtype="float64")(x).numpy(),
                                  x.transpose(0, 2, 3, 1).reshape(2, -1))
    assert layers.Flatten()(np.ones(4, np.float32)).shape == (4, 1)
    assert layers.Flatten().compute_output_shape((None, 3, 4)) == (None, 12)
    assert check_gradients(layers.Flatten(dtype="float64", data_format="channels_first"), x) < TOL
    with pytest.raises(ValueError, match="data_format"):
        layers.Flatten(data_format="nhwc")


# ================================================================ Dropout
def test_dropout_is_the_identity_outside_training():
    x = ds.constant(_normal(3, 4).astype(np.float32))
    layer = layers.Dropout(0.5, seed=0)
    assert layer(x) is x
    assert layer(x, training=False) is x
    assert layers.Dropout(0.0)(x, training=True) is x


def test_dropout_training_masks_scales_and_its_gradient_is_the_mask():
    layer = layers.Dropout(0.25, seed=3, dtype="float64")
    x = ds.constant(np.ones((20, 30)))
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = layer(x, training=True)
    values = set(np.unique(y.numpy()).tolist())
    assert values == {0.0, 1.0 / 0.75}
    assert 0.15 < float(np.mean(y.numpy() == 0)) < 0.35
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), y.numpy())  # (mask / keep) * 1


def test_dropout_generator_advances_per_call_and_a_seed_reproduces_the_sequence():
    x = np.ones((6, 7), np.float32)
    a, b = layers.Dropout(0.5, seed=11), layers.Dropout(0.5, seed=11)
    first, second = a(x, training=True).numpy(), a(x, training=True).numpy()
    assert not np.array_equal(first, second)
    np.testing.assert_array_equal(b(x, training=True).numpy(), first)
    np.testing.assert_array_equal(b(x, training=True).numpy(), second)


def test_dropout_noise_shape_and_training_flag_inherited_from_the_caller():
    class Net(layers.Layer):
        def __init__(self):
            super().__init__()
            self.drop = layers.Dropout(0.5, noise_shape=(None, 1), seed=2)

        def call(self, x):
            return self.drop(x)  # no training argument: inherited

    net = Net()
    x = np.ones((8, 5), np.float32)
    np.testing.assert_array_equal(net(x).numpy(), x)
    y = net(x, training=True).numpy()
    assert all(len(set(row.tolist())) == 1 for row in y)  # one mask value per row
    assert {0.0, 2.0} == set(np.unique(y).tolist())


def test_dropout_bad_rate():
    with pytest.raises(ValueError, match=r"between 0 and 1. Received: rate=1.5"):
        layers.Dropout(1.5)
    assert not layers.Dropout(1.0)(np.ones(3, np.float32), training=True).numpy().any()


# ================================================================ Embedding
def test_embedding_forward_and_sparse_gradient():
    emb = layers.Embedding(10, 3, dtype="float64")
    ids = np.array([[1, 4], [4, 9]])
    y = emb(ids)
    table = emb.embeddings.numpy()
    assert y.shape == (2, 2, 3) and emb.embeddings.path == "embedding/embeddings"
    np.testing.assert_array_equal(y.numpy(), table[ids])
    assert np.abs(table).max() <= 0.05  # RandomUniform(-0.05, 0.05)
    w = _normal(2, 2, 3)
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(emb(ids) * w)
    g = tape.gradient(loss, emb.embeddings)
    assert isinstance(g, ds.IndexedSlices)
    assert g.indices.numpy().tolist() == [1, 4, 4, 9] and g.dense_shape == (10, 3)
    np.testing.assert_allclose(g.values.numpy(), w.reshape(4, 3))
    assert layer_gradient_error(emb, ids, wrt_input=False) < TOL


def test_embedding_inputs_masks_and_errors():
    emb = layers.Embedding(5, 2, mask_zero=True)
    np.testing.assert_array_equal(emb(np.array([[0.0, 3.0]])).numpy(), emb(np.array([[0, 3]])).numpy())
    np.testing.assert_array_equal(emb.compute_mask(ds.constant([[0, 3]])).numpy(), [[False, True]])
    assert layers.Embedding(5, 2).compute_mask(ds.constant([0])) is None
    assert emb.compute_output_shape((None, 7)) == (None, 7, 2)
    with pytest.raises(ds.InvalidArgumentError, match="not in"):
        emb(np.array([5]))
    with pytest.raises(ValueError, match="input_dim=0"):
        layers.Embedding(0, 2)
    with pytest.raises(ValueError, match="output_dim=-2"):
        layers.Embedding(3, -2)


class _SplitInTime(layers.Layer):
    """The masking guide's TemporalSplit: overrides compute_mask, says nothing of supports_masking."""

    def call(self, inputs):
        return ds.split(inputs, 2, axis=1)

    def compute_mask(self, inputs, mask=None):
        return None if mask is None else ds.split(mask, 2, axis=1)


class _Relu(layers.Layer):
    def __init__(self, passes_mask, **kwargs):
        super().__init__(**kwargs)
        if passes_mask:
            self.supports_masking = True

    def call(self, inputs):
        return ds.nn.relu(inputs)


def test_keras_masks_are_the_outputs_keras_mask_attribute_as_in_keras():
    """Keras programs read and set ``x._keras_mask`` (the masking guide prints it); a layer whose class overrides
    compute_mask supports masking unless it says otherwise (Keras 3), one that neither overrides nor opts in drops
    the mask; symbolic outputs carry a symbolic mask."""
    ids = np.array([[5, 3, 0, 0], [2, 0, 0, 0]])
    out = layers.Embedding(10, 3, mask_zero=True)(ids)
    np.testing.assert_array_equal(out._keras_mask.numpy(), ids != 0)
    first, second = _SplitInTime()(out)
    np.testing.assert_array_equal(first._keras_mask.numpy(), [[True, True], [True, False]])
    np.testing.assert_array_equal(second._keras_mask.numpy(), [[False, False], [False, False]])
    assert _SplitInTime().supports_masking and not _Relu(False).supports_masking
    np.testing.assert_array_equal(_Relu(True)(out)._keras_mask.numpy(), ids != 0)
    with pytest.raises(AttributeError, match="_keras_mask"):
        _Relu(False)(out)._keras_mask  # noqa: B018 - the mask is dropped, as Keras drops it
    plain = ds.constant([1.0, 2.0])
    plain._keras_mask = ds.constant([True, False])  # Keras code sets it too
    np.testing.assert_array_equal(layers.get_mask(plain).numpy(), [True, False])

    x = ds.keras.Input(shape=(None,), dtype="int32")
    h = layers.Embedding(10, 3, mask_zero=True)(x)
    for layer, has_mask in [(_Relu(True), True), (_Relu(False), False)]:
        y = layer(h)
        assert hasattr(y, "_keras_mask") == has_mask, layer
    assert tuple(_Relu(True)(h)._keras_mask.shape) == (None, None)


@pytest.mark.parametrize("make", [lambda: layers.LSTM(4), lambda: layers.GRU(4), lambda: layers.SimpleRNN(4),
                                  lambda: layers.LSTM(4, recurrent_dropout=0.0)])
def test_a_recurrent_layer_without_dropout_leaves_numpys_global_generator_alone(make):
    """Keras draws nothing from NumPy's generator; a program that makes an LSTM between seeding NumPy and drawing
    its data (the masking guide) must get the same data (the cell drew a dropout seed from it at construction).
    With a global seed set, the initializers draw from descend's own streams (without one they draw their seeds
    from Python's random, as Keras 3)."""
    ds.random.set_seed(5)
    try:
        np.random.seed(3)
        want = np.random.random(3)
        np.random.seed(3)
        layer = make()
        layer(np.ones((2, 3, 5), np.float32), training=True)
        np.testing.assert_array_equal(np.random.random(3), want)
    finally:
        ds.random.set_seed(None)


def test_embedding_sparse_sgd_step_touches_only_the_rows_read_and_applies_the_constraint():
    emb = layers.Embedding(6, 2, embeddings_initializer="ones", embeddings_constraint=constraints.MaxNorm(1.0, axis=1))
    emb.build()
    before = emb.embeddings.numpy()
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(emb(np.array([2, 2, 5])))
    grads = tape.gradient(loss, emb.trainable_weights)
    ds.optimizers.SGD(learning_rate=0.1).apply_gradients(zip(grads, emb.trainable_weights))
    after = emb.embeddings.numpy()
    # untouched rows keep norm sqrt(2) > 1 only if the constraint were not applied: it is, to every row
    np.testing.assert_allclose(np.linalg.norm(after, axis=1), 1.0, rtol=1e-6)
    np.testing.assert_allclose(after[0], before[0] / np.sqrt(2), rtol=1e-6)
    np.testing.assert_allclose(after[2], np.full(2, 0.8) / np.linalg.norm(np.full(2, 0.8)), rtol=1e-6)


# ================================================================ LayerNormalization
def _ln_reference(x, axes, gamma, beta, eps):
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


def test_layer_normalization_forward_and_gradient():
    ln = layers.LayerNormalization(dtype="float64")
    x = _normal(3, 4) * 2 + 1
    ln(x)
    _randomize(ln)
    gamma, beta = ln.get_weights()
    np.testing.assert_allclose(ln(x).numpy(), _ln_reference(x, -1, gamma, beta, 1e-3), rtol=1e-12)
    assert layer_gradient_error(ln, x) < TOL


def test_layer_normalization_over_several_axes():
    ln = layers.LayerNormalization(axis=[1, 2], epsilon=1e-5, dtype="float64")
    x = _normal(2, 3, 4)
    ln(x)
    _randomize(ln)
    assert [v.shape for v in ln.weights] == [(3, 4), (3, 4)]
    gamma, beta = ln.get_weights()
    np.testing.assert_allclose(ln(x).numpy(), _ln_reference(x, (1, 2), gamma, beta, 1e-5), rtol=1e-12)
    assert layer_gradient_error(ln, x) < TOL


def test_layer_normalization_without_center_and_scale_has_no_weights():
    ln = layers.LayerNormalization(center=False, scale=False)
    y = ln(np.array([[1.0, 2.0, 3.0]], np.float32)).numpy()
    assert ln.weights == []
    np.testing.assert_allclose(y.mean(), 0.0, atol=1e-6)
    with pytest.raises(ValueError, match="incompatible"):
        ln(np.ones((1, 4), np.float32))
    with pytest.raises(ValueError, match="out of range"):
        layers.LayerNormalization(axis=3)(np.ones((2, 2), np.float32))


# ================================================================ BatchNormalization
def test_batch_norm_training_forward_and_moving_statistics_against_numpy():
    bn = layers.BatchNormalization(momentum=0.9, epsilon=1e-3, dtype="float64")
    xs = [_normal(6, 3) * 2.0 + 1.0 for _ in range(2)]
    bn(xs[0][:1])  # build (inference call: no update)
    _randomize(bn)
    gamma, beta, mm, mv = (v.numpy() for v in bn.weights)
    mv = np.abs(mv) + 0.5
    bn.moving_variance.assign(mv)
    for x in xs:
        mean, var = x.mean(0), x.var(0)
        expected = (x - mean) / np.sqrt(var + 1e-3) * gamma + beta
        np.testing.assert_allclose(bn(x, training=True).numpy(), expected, rtol=1e-12)
        mm = mm * 0.9 + mean * 0.1
        mv = mv * 0.9 + var * 0.1
        np.testing.assert_allclose(bn.moving_mean.numpy(), mm, rtol=1e-12)
        np.testing.assert_allclose(bn.moving_variance.numpy(), mv, rtol=1e-12)
    # inference: the moving statistics, and no update
    x = _normal(4, 3)
    expected = (x - mm) / np.sqrt(mv + 1e-3) * gamma + beta
    np.testing.assert_allclose(bn(x).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(bn(x, training=False).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(bn.moving_mean.numpy(), mm, rtol=1e-12)


def test_batch_norm_channels_first_images():
    bn = layers.BatchNormalization(axis=1, momentum=0.5, center=False)
    x = (_normal(2, 3, 4, 5) * 3).astype(np.float32)
    y = bn(x, training=True).numpy()
    assert [v.name.split("/")[-1] for v in bn.weights] == ["gamma", "moving_mean", "moving_variance"]
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    np.testing.assert_allclose(y, (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-3), rtol=1e-4,
                               atol=1e-5)
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.5 * mean, rtol=1e-5)
    np.testing.assert_allclose(bn.moving_variance.numpy(), 0.5 + 0.5 * var, rtol=1e-5)


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_gradients(training):
    bn = layers.BatchNormalization(dtype="float64")
    x = _normal(5, 3) * 1.5 + 0.5
    bn(x)
    _randomize(bn)
    bn.moving_variance.assign(np.abs(bn.moving_variance.numpy()) + 0.5)
    assert layer_gradient_error(bn, x, training=training) < TOL


def test_batch_norm_update_inside_a_tape_and_an_optimizer_step():
    bn = layers.BatchNormalization()
    dense = layers.Dense(1)
    x = (_normal(8, 3) * 2 + 1).astype(np.float32)
    opt = ds.optimizers.SGD(learning_rate=0.1)
    for _ in range(2):
        with ds.GradientTape() as tape:
            loss = ds.reduce_mean(ds.square(dense(bn(x, training=True))))
        variables = bn.trainable_weights + dense.trainable_weights
        grads = tape.gradient(loss, variables)
        assert all(g is not None for g in grads)
        opt.apply_gradients(zip(grads, variables))
    assert bn.moving_mean.numpy() == pytest.approx(x.mean(0) * (1 - 0.99 ** 2), rel=1e-4)


def test_batch_norm_inference_reads_a_snapshot_so_a_later_update_does_not_break_the_tape():
    bn = layers.BatchNormalization(momentum=0.5, dtype="float64")
    x = _normal(4, 2)
    bn(x)
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(bn.moving_mean)  # even when the moving statistics are watched
        y_infer = ds.reduce_sum(bn(x, training=False))
        y_train = ds.reduce_sum(bn(x, training=True) ** 2)  # updates moving_mean in place
    g_x = tape.gradient(y_infer, bn.gamma)
    np.testing.assert_allclose(g_x.numpy(), (x / np.sqrt(1 + 1e-3)).sum(0), rtol=1e-12)
    assert tape.gradient(y_train, bn.beta) is not None


def test_frozen_batch_norm_runs_in_inference_mode():
    bn = layers.BatchNormalization()
    x = (_normal(4, 2) + 3).astype(np.float32)
    bn(x)
    bn.trainable = False
    np.testing.assert_allclose(bn(x, training=True).numpy(), x / np.sqrt(1 + 1e-3), rtol=1e-5)
    assert not bn.moving_mean.numpy().any()


def test_batch_norm_bad_arguments():
    with pytest.raises(ValueError, match=r"momentum must be in \[0, 1\]. Received: momentum=1.5"):
        layers.BatchNormalization(momentum=1.5)
    with pytest.raises(ValueError, match="epsilon"):
        layers.BatchNormalization(epsilon=0)
    bn = layers.BatchNormalization()
    bn(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r"expected axis -1 of input shape to have value 3"):
        bn(np.ones((2, 4), np.float32))


# ================================================================ Conv2D and MaxPooling2D
@pytest.mark.parametrize("kwargs,size", [
    (dict(kernel_size=3), (6, 5)),
    (dict(kernel_size=3, padding="same"), (5, 5)),
    (dict(kernel_size=(2, 3), strides=2, padding="same"), (5, 6)),  # asymmetric "same" padding
    (dict(kernel_size=3, strides=(2, 1)), (7, 5)),
    (dict(kernel_size=2, dilation_rate=2, padding="same"), (5, 4)),
    (dict(kernel_size=4, strides=3, padding="same"), (7, 7)),
])
def test_conv2d_forward_against_a_loop(kwargs, size):
    conv = layers.Conv2D(3, dtype="float64", **kwargs)
    x = _normal(2, *size, 2)
    conv(x)
    _randomize(conv)
    k, b = conv.get_weights()
    strides = conv.strides
    expected = ref_conv2d(x, k, strides, conv.padding, conv.dilation_rate) + b
    y = conv(x)
    assert y.shape == expected.shape == conv.compute_output_shape((2, *size, 2))
    np.testing.assert_allclose(y.numpy(), expected, rtol=1e-10, atol=1e-12)


def test_conv2d_same_padding_puts_the_extra_element_at_the_bottom_right():
    # 1-channel 4x4 input, 2x2 kernel of ones, stride 1, "same": pad 0 before, 1 after on each axis
    x = np.arange(16.0).reshape(1, 4, 4, 1)
    conv = layers.Conv2D(1, 2, padding="same", kernel_initializer="ones", use_bias=False, dtype="float64")
    y = conv(x).numpy()[0, :, :, 0]
    assert y[0, 0] == 0 + 1 + 4 + 5
    assert y[3, 3] == 15  # only x[3, 3]: the padding is after
    assert y[0, 3] == 3 + 7


def test_conv2d_channels_first_matches_channels_last():
    x = _normal(2, 3, 5, 6)
    last = layers.Conv2D(4, 3, strides=2, padding="same", dtype="float64")
    first = layers.Conv2D(4, 3, strides=2, padding="same", data_format="channels_first", dtype="float64")
    last(x.transpose(0, 2, 3, 1))
    first(x)
    _randomize(last)
    first.set_weights(last.get_weights())
    np.testing.assert_allclose(first(x).numpy(), last(x.transpose(0, 2, 3, 1)).numpy().transpose(0, 3, 1, 2),
                               rtol=1e-12)
    assert first.compute_output_shape((2, 3, 5, 6)) == (2, 4, 3, 3)


@pytest.mark.parametrize("kwargs", [dict(padding="valid"), dict(padding="same", strides=2),
                                    dict(padding="same", dilation_rate=2)])
def test_conv2d_gradients(kwargs):
    conv = layers.Conv2D(2, 3, activation="tanh", dtype="float64", **kwargs)
    x = _normal(2, 5, 5, 2)
    conv(x)
    _randomize(conv)
    assert layer_gradient_error(conv, x) < TOL


def test_conv2d_bad_inputs():
    with pytest.raises(ValueError, match=r"expected ndim=4, found ndim=3. Full shape received: \(5, 5, 2\)"):
        layers.Conv2D(2, 3)(np.ones((5, 5, 2), np.float32))
    conv = layers.Conv2D(2, 3)
    conv(np.ones((1, 5, 5, 2), np.float32))
    with pytest.raises(ValueError, match="expected axis -1 of input shape to have value 2"):
        conv(np.ones((1, 5, 5, 3), np.float32))
    with pytest.raises(ValueError, match="does not fit the input's spatial size"):
        conv(np.ones((1, 2, 5, 2), np.float32))
    with pytest.raises(ValueError, match="filters=0"):
        layers.Conv2D(0, 3)
    with pytest.raises(ValueError, match=r"kernel_size. must be a positive int or a tuple of 2 positive ints"):
        layers.Conv2D(1, (3, 3, 3))
    with pytest.raises(ValueError, match=r"padding. must be 'valid' or 'same'. Received: padding='full'"):
        layers.Conv2D(1, 3, padding="full")
    with pytest.raises(ValueError, match="`strides > 1` not supported in conjunction with `dilation_rate > 1`"):
        layers.Conv2D(1, 3, strides=2, dilation_rate=2)


@pytest.mark.parametrize("kwargs,size", [
    (dict(), (4, 6)),
    (dict(pool_size=3, strides=2, padding="same"), (5, 6)),
    (dict(pool_size=(2, 3), strides=1, padding="same"), (4, 4)),
    (dict(pool_size=2, padding="same"), (5, 5)),  # 3x3 outputs, the last window holds one row/column
    (dict(pool_size=3, strides=(1, 2)), (5, 7)),
])
def test_max_pooling_forward_against_a_loop_and_gradient(kwargs, size):
    pool = layers.MaxPooling2D(dtype="float64", **kwargs)
    n = 2 * size[0] * size[1] * 2
    x = (RNG.permutation(n) * 0.05).reshape(2, *size, 2)  # distinct values: no ties in a window
    y = pool(x)
    expected = ref_max_pool2d(x, pool.pool_size, pool.strides, pool.padding)
    assert y.shape == expected.shape == pool.compute_output_shape(x.shape)
    np.testing.assert_array_equal(y.numpy(), expected)
    assert check_gradients(pool, x) < TOL


def test_max_pooling_defaults_and_channels_first():
    pool = layers.MaxPooling2D()
    assert pool.pool_size == pool.strides == (2, 2)
    x = _normal(1, 2, 4, 4)
    y = layers.MaxPooling2D(data_format="channels_first", dtype="float64")(x).numpy()
    np.testing.assert_array_equal(y, ref_max_pool2d(x, (2, 2), (2, 2), nchw=True))
    with pytest.raises(ValueError, match="expected ndim=4"):
        pool(np.ones((4, 4), np.float32))


# ================================================================ constraints through an optimizer
def test_kernel_and_bias_constraints_are_applied_after_an_sgd_step():
    d = layers.Dense(3, kernel_initializer="ones", bias_initializer="zeros", kernel_constraint="non_neg",
                     bias_constraint=constraints.MaxNorm(0.5))
    x = np.ones((2, 4), np.float32)
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(d(x))  # d/dk = 2 everywhere, d/db = 2
    grads = tape.gradient(loss, d.trainable_weights)
    ds.optimizers.SGD(learning_rate=1.0).apply_gradients(zip(grads, d.trainable_weights))
    np.testing.assert_array_equal(d.kernel.numpy(), np.zeros((4, 3)))  # 1 - 2 = -1, clipped to 0
    assert np.linalg.norm(d.bias.numpy()) == pytest.approx(0.5, rel=1e-5)  # (-2, -2, -2) scaled to norm 0.5


# ================================================================ configs
def _roundtrip(layer):
    config = layer.get_config()
    clone = type(layer).from_config(config)
    assert clone.get_config() == config
    return config


def test_get_config_round_trips():
    configs = [
        _roundtrip(layers.Dense(3, activation="relu", use_bias=False, kernel_initializer=initializers.HeNormal(seed=2),
                                kernel_regularizer=regularizers.L1L2(0.1, 0.2), kernel_constraint="max_norm",
                                activity_regularizer="l2", name="d", dtype="float64", trainable=False)),
        _roundtrip(layers.Activation("gelu")),
        _roundtrip(layers.Flatten(data_format="channels_first")),
        _roundtrip(layers.Dropout(0.3, noise_shape=(None, 1), seed=5)),
        _roundtrip(layers.Embedding(7, 2, mask_zero=True, embeddings_regularizer="l2")),
        _roundtrip(layers.LayerNormalization(axis=[1, 2], epsilon=1e-5, center=False)),
        _roundtrip(layers.BatchNormalization(axis=1, momentum=0.9, gamma_constraint="non_neg")),
        _roundtrip(layers.Conv2D(4, (3, 2), strides=2, padding="same", data_format="channels_first",
                                 activation="tanh", bias_regularizer=regularizers.L2(0.3))),
        _roundtrip(layers.MaxPooling2D(3, 2, "same")),
    ]
    dense = configs[0]
    def keras(module, name, config):  # Keras 3's config of a built-in object
        return {"module": f"keras.{module}", "class_name": name, "config": config, "registered_name": None}

    assert dense["kernel_initializer"] == keras("initializers", "HeNormal", {"seed": 2})
    assert dense["kernel_regularizer"] == keras("regularizers", "L1L2", {"l1": 0.1, "l2": 0.2})
    assert dense["activity_regularizer"] == keras("regularizers", "L2", {"l2": 0.01})
    assert dense["name"] == "d" and dense["trainable"] is False
    assert dense["dtype"] == {"module": "keras", "class_name": "DTypePolicy", "config": {"name": "float64"},
                              "registered_name": None}
    assert configs[8]["strides"] == (2, 2) and configs[8]["pool_size"] == (3, 3)
    # the rebuilt layer computes the same function
    d = layers.Dense(2, kernel_initializer=initializers.GlorotUniform(seed=4))
    d2 = layers.Dense.from_config({**d.get_config(), "name": "d2"})
    x = np.ones((1, 3), np.float32)
    np.testing.assert_array_equal(d(x).numpy(), d2(x).numpy())


# ================================================================ seed 001: custom regularizer, custom loop
class CustomRegularizer(regularizers.Regularizer):
    """Seed 001's regularizer: it implements `call` (not `__call__`) and `get_config`."""

    def __init__(self, _factor):
        super().__init__()
        self.factor = _factor

    def call(self, weights):
        return ds.reduce_sum(ds.abs(self.factor * weights))

    def get_config(self):
        return {"factor": self.factor}


def test_seed_001_custom_regularizer_and_training_loop_with_layers():
    ds.set_floatx("float32")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 4)).astype(np.float32)
    y = (x @ np.array([1.0, -2.0, 0.5, 3.0], np.float32) > 0).astype(np.int32)
    hidden = layers.Dense(16, activation="relu", kernel_regularizer=CustomRegularizer(1e-4),
                          kernel_initializer=initializers.GlorotUniform(seed=1))
    out = layers.Dense(2, kernel_initializer=initializers.GlorotUniform(seed=2))
    assert float(hidden(x[:1]) .shape[1]) == 16
    assert float(hidden.losses[0]) == pytest.approx(1e-4 * np.abs(hidden.kernel.numpy()).sum(), rel=1e-5)
    assert hidden.kernel_regularizer.get_config() == {"factor": 1e-4}
    optimizer = ds.optimizers.Adam(learning_rate=0.05)
    losses = []
    for _ in range(30):
        with ds.GradientTape() as tape:
            logits = out(hidden(x, training=True), training=True)
            loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(y, logits))
            loss = loss + ds.add_n(hidden.losses)
        variables = hidden.trainable_weights + out.trainable_weights
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        losses.append(float(loss))
    assert losses[-1] < 0.5 * losses[0]


def test_weight_hooks_see_every_weight_a_layer_creates():
    from descend.layers import base

    seen = []
    layers.register_weight_hook(seen.append)
    try:
        layers.Dense(2)(np.ones((1, 3), np.float32))
    finally:
        base._weight_hooks.remove(seen.append)
    assert [v.path for v in seen] == ["dense/kernel", "dense/bias"]
    with pytest.raises(TypeError, match="expects a callable"):
        layers.register_weight_hook(3)


def test_sublayers_first_called_later_are_still_built_in_the_outer_scope():
    class Net(layers.Layer):
        def __init__(self):
            super().__init__()
            self.a = layers.Dense(2)
            self.b = layers.Dense(2)
            self.extra = None

        def call(self, x, training=None):
            x = self.a(x)
            if training:
                x = self.b(x)
            return x if self.extra is None else self.extra(x)

    net = Net()
    x = np.ones((1, 3), np.float32)
    net(x)
    net(x)
    net(x, training=True)  # b is built on this third call
    net.extra = layers.Dense(1)  # a sublayer assigned after the layer was built
    net(x)
    assert [v.path for v in net.weights] == [
        "net/dense/kernel", "net/dense/bias", "net/dense_1/kernel", "net/dense_1/bias",
        "net/dense_2/kernel", "net/dense_2/bias"]


def test_a_failing_build_or_call_leaves_no_scope_or_training_flag_behind():
    from descend.layers import base

    d = layers.Dense(2)
    with pytest.raises(ValueError):
        d(np.ones(3, np.float32), training=True)
    assert ds.framework.current_name_scope() == "" and base._training_stack() == []
    assert not d.built
    d(np.ones((1, 3), np.float32))
    assert d.kernel.path == "dense/kernel"

