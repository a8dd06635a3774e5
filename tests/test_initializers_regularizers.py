"""Initializers (statistics, seeding, configs, lookups), regularizers (values, gradients,
defaults, custom subclasses), constraints (values, configs, after an optimizer step) and
activations (lookups, values, gradients)."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

import descend as ds
import descend.activations as activations
import descend.constraints as constraints
import descend.initializers as initializers
import descend.regularizers as regularizers
from descend.testing import check_gradients

ALL_INITIALIZERS = [
    initializers.Zeros(), initializers.Ones(), initializers.Constant(0.5), initializers.Identity(2.0),
    initializers.RandomNormal(0.1, 0.2, seed=1), initializers.RandomUniform(-1.0, 2.0, seed=1),
    initializers.TruncatedNormal(0.0, 0.3, seed=1), initializers.VarianceScaling(0.5, "fan_out", "uniform", seed=1),
    initializers.GlorotUniform(seed=1), initializers.GlorotNormal(seed=1), initializers.HeUniform(seed=1),
    initializers.HeNormal(seed=1), initializers.LecunUniform(seed=1), initializers.LecunNormal(seed=1),
    initializers.Orthogonal(gain=1.5, seed=1),
]


# ================================================================ initializers: shapes, dtypes, lookups
@pytest.mark.parametrize("init", ALL_INITIALIZERS, ids=lambda i: type(i).__name__)
def test_initializer_shape_and_dtype(init):
    v = init((4, 3))
    assert isinstance(v, ds.Tensor) and v.shape == (4, 3) and v.dtype == np.float32
    assert init((4, 3), dtype="float64").dtype == np.float64
    assert init(shape=[4, 3], dtype=ds.float64).dtype == np.float64
    ds.set_floatx("float64")
    assert init((4, 3)).dtype == np.float64


@pytest.mark.parametrize("init", ALL_INITIALIZERS, ids=lambda i: type(i).__name__)
def test_initializer_config_round_trip(init):
    config = init.get_config()
    clone = type(init).from_config(config)
    assert clone.get_config() == config
    np.testing.assert_array_equal(clone((3, 3)).numpy(), init((3, 3)).numpy())  # seeded: the same values
    rebuilt = initializers.deserialize(initializers.serialize(init))
    assert type(rebuilt) is type(init) and rebuilt.get_config() == config
    assert initializers.get(initializers.serialize(init)).get_config() == config
    assert init.clone().get_config() == config


@pytest.mark.parametrize("name,cls", [
    ("zeros", initializers.Zeros), ("ones", initializers.Ones), ("constant", initializers.Constant),
    ("random_normal", initializers.RandomNormal), ("normal", initializers.RandomNormal),
    ("random_uniform", initializers.RandomUniform), ("uniform", initializers.RandomUniform),
    ("truncated_normal", initializers.TruncatedNormal), ("variance_scaling", initializers.VarianceScaling),
    ("glorot_uniform", initializers.GlorotUniform), ("glorot_normal", initializers.GlorotNormal),
    ("he_uniform", initializers.HeUniform), ("he_normal", initializers.HeNormal),
    ("lecun_uniform", initializers.LecunUniform), ("lecun_normal", initializers.LecunNormal),
    ("orthogonal", initializers.Orthogonal), ("identity", initializers.Identity), ("GlorotUniform",
                                                                                    initializers.GlorotUniform),
])
def test_initializer_lookup_by_name(name, cls):
    assert type(initializers.get(name)) is cls


def test_initializer_get_passes_instances_and_callables_through_and_rejects_unknown_names():
    init = initializers.HeNormal()
    assert initializers.get(init) is init
    assert initializers.get(None) is None

    def fn(shape, dtype=None):
        return np.zeros(shape)

    assert initializers.get(fn) is fn
    assert type(initializers.get(initializers.Ones)) is initializers.Ones
    with pytest.raises(ValueError, match=r"Unknown initializer: 'glorot'. Expected one of \[.*'glorot_uniform'.*\]"
                                         r".*Received: 'glorot'"):
        initializers.get("glorot")
    with pytest.raises(ValueError, match="Unknown initializer class: 'Nope'"):
        initializers.get({"class_name": "Nope", "config": {}})
    with pytest.raises(ValueError, match="Could not interpret initializer identifier"):
        initializers.get(3)
    assert initializers.get("uniform").get_config() == {"seed": None, "minval": -0.05, "maxval": 0.05}


def test_custom_initializer_subclass_round_trips_with_custom_objects():
    class Halves(initializers.Initializer):
        def __init__(self, scale=0.5):
            self.scale = scale

        def __call__(self, shape, dtype=None):
            return ds.constant(np.full(shape, self.scale), dtype=dtype or ds.floatx())

        def get_config(self):
            return {"scale": self.scale}

    config = initializers.serialize(Halves(0.25))
    assert config == {"module": __name__, "class_name": "Halves", "config": {"scale": 0.25}, "registered_name": "Halves"}
    rebuilt = initializers.get(config, custom_objects={"Halves": Halves})
    np.testing.assert_array_equal(rebuilt((2,)).numpy(), [0.25, 0.25])


# ================================================================ initializers: values and statistics
def test_constant_zeros_ones_identity_values():
    np.testing.assert_array_equal(initializers.Zeros()((2, 2)).numpy(), np.zeros((2, 2)))
    np.testing.assert_array_equal(initializers.Ones()((3,), "int32").numpy(), [1, 1, 1])
    np.testing.assert_array_equal(initializers.Constant(3)((2,)).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(initializers.Constant([1.0, 2.0])((2, 2)).numpy(), [[1, 2], [1, 2]])
    np.testing.assert_array_equal(initializers.Identity()((2, 3)).numpy(), np.eye(2, 3))
    with pytest.raises(ValueError, match=r"does not broadcast to shape \(3,\)"):
        initializers.Constant([1.0, 2.0])((3,))
    with pytest.raises(ValueError, match="2-D shape"):
        initializers.Identity()((2, 2, 2))


def _draw(init, shape=(200, 300)):
    return init(shape, "float64").numpy()


def test_random_normal_and_uniform_statistics():
    v = _draw(initializers.RandomNormal(mean=1.0, stddev=2.0, seed=0))
    assert v.mean() == pytest.approx(1.0, abs=0.03) and v.std() == pytest.approx(2.0, rel=0.02)
    v = _draw(initializers.RandomUniform(-1.0, 3.0, seed=0))
    assert v.min() >= -1.0 and v.max() < 3.0
    assert v.mean() == pytest.approx(1.0, abs=0.03) and v.std() == pytest.approx(4 / math.sqrt(12), rel=0.02)
    v = _draw(initializers.RandomUniform(seed=0))  # Keras defaults: U[-0.05, 0.05)
    assert v.min() >= -0.05 and v.max() < 0.05
    v = _draw(initializers.RandomNormal(seed=0))  # Keras default stddev 0.05
    assert v.std() == pytest.approx(0.05, rel=0.02)


def test_truncated_normal_statistics():
    v = _draw(initializers.TruncatedNormal(mean=0.5, stddev=2.0, seed=0))
    assert np.abs(v - 0.5).max() <= 4.0  # redrawn beyond two standard deviations
    assert v.mean() == pytest.approx(0.5, abs=0.03)
    assert v.std() == pytest.approx(2.0 * 0.87962566103423978, rel=0.02)


# (initializer, expected std as a function of (fan_in, fan_out), bound or None)
_FAN_CASES = [
    (initializers.GlorotUniform, lambda i, o: math.sqrt(2 / (i + o)), lambda i, o: math.sqrt(6 / (i + o))),
    (initializers.GlorotNormal, lambda i, o: math.sqrt(2 / (i + o)), None),
    (initializers.HeUniform, lambda i, o: math.sqrt(2 / i), lambda i, o: math.sqrt(6 / i)),
    (initializers.HeNormal, lambda i, o: math.sqrt(2 / i), None),
    (initializers.LecunUniform, lambda i, o: math.sqrt(1 / i), lambda i, o: math.sqrt(3 / i)),
    (initializers.LecunNormal, lambda i, o: math.sqrt(1 / i), None),
]


@pytest.mark.parametrize("cls,std,bound", _FAN_CASES, ids=lambda c: getattr(c, "__name__", ""))
@pytest.mark.parametrize("shape", [(200, 300), (3, 3, 40, 60)])
def test_variance_scaling_family_statistics(cls, std, bound, shape):
    fan_in, fan_out = initializers.compute_fans(shape)
    v = cls(seed=0)(shape, "float64").numpy()
    assert abs(v.mean()) < 0.05 * std(fan_in, fan_out)
    assert v.std() == pytest.approx(std(fan_in, fan_out), rel=0.03)
    if bound is not None:
        assert np.abs(v).max() <= bound(fan_in, fan_out)
    else:  # truncated: nothing beyond two (pre-truncation) standard deviations
        assert np.abs(v).max() <= 2 * std(fan_in, fan_out) / 0.87962566103423978 + 1e-12


@pytest.mark.parametrize("mode,distribution", [("fan_in", "untruncated_normal"), ("fan_out", "truncated_normal"),
                                               ("fan_avg", "uniform"), ("fan_out", "normal")])
def test_variance_scaling_modes(mode, distribution):
    shape = (100, 400)
    n = {"fan_in": 100, "fan_out": 400, "fan_avg": 250}[mode]
    init = initializers.VarianceScaling(scale=3.0, mode=mode, distribution=distribution, seed=5)
    assert init.get_config()["distribution"] == ("truncated_normal" if distribution == "normal" else distribution)
    assert init(shape, "float64").numpy().std() == pytest.approx(math.sqrt(3.0 / n), rel=0.03)


def test_compute_fans():
    assert initializers.compute_fans(()) == (1, 1)
    assert initializers.compute_fans((7,)) == (7, 7)
    assert initializers.compute_fans((3, 5)) == (3, 5)
    assert initializers.compute_fans((3, 3, 4, 8)) == (36, 72)


@pytest.mark.parametrize("shape", [(5, 5), (8, 3), (3, 8), (2, 3, 4)])
def test_orthogonal_initializer(shape):
    q = initializers.Orthogonal(gain=2.0, seed=3)(shape, "float64").numpy()
    assert q.shape == shape
    m = q.reshape(-1, shape[-1]) / 2.0
    if m.shape[0] >= m.shape[1]:
        np.testing.assert_allclose(m.T @ m, np.eye(m.shape[1]), atol=1e-12)
    else:
        np.testing.assert_allclose(m @ m.T, np.eye(m.shape[0]), atol=1e-12)
    with pytest.raises(ValueError, match=r"rank >= 2. Received: shape=\(4,\)"):
        initializers.Orthogonal()((4,))


# ================================================================ initializers: seeding
@pytest.mark.parametrize("cls", [initializers.RandomNormal, initializers.RandomUniform, initializers.TruncatedNormal,
                                 initializers.GlorotUniform, initializers.HeNormal, initializers.Orthogonal,
                                 initializers.VarianceScaling])
def test_int_seed_gives_the_same_values_every_call_and_across_instances(cls):
    a, b = cls(seed=42), cls(seed=42)
    first = a((4, 5)).numpy()
    np.testing.assert_array_equal(a((4, 5)).numpy(), first)
    np.testing.assert_array_equal(b((4, 5)).numpy(), first)
    assert not np.array_equal(cls(seed=43)((4, 5)).numpy(), first)
    # the same draws in float64, up to rounding
    np.testing.assert_allclose(a((4, 5), "float64").numpy(), first, rtol=1e-6)


def test_generator_seed_advances_and_none_follows_pythons_random_as_keras():
    init = initializers.GlorotNormal(seed=np.random.default_rng(0))
    first, second = init((3, 3)).numpy(), init((3, 3)).numpy()
    assert not np.array_equal(first, second)
    replay = initializers.GlorotNormal(seed=np.random.default_rng(0))
    np.testing.assert_array_equal(replay((3, 3)).numpy(), first)
    assert init.get_config() == {"seed": None}
    unseeded = initializers.RandomNormal()
    random.seed(123)  # Keras 3 draws an unseeded initializer's seed from Python's random
    a, b = unseeded((5,)).numpy(), unseeded((5,)).numpy()
    assert not np.array_equal(a, b)
    random.seed(123)
    np.testing.assert_array_equal(unseeded((5,)).numpy(), a)


def test_initializer_argument_validation():
    with pytest.raises(ValueError, match=r"seed must be None, a non-negative int or a numpy.random.Generator. "
                                         r"Received: seed='x'"):
        initializers.RandomNormal(seed="x")
    with pytest.raises(ValueError, match=r"scale must be a positive float. Received: scale=0"):
        initializers.VarianceScaling(scale=0)
    with pytest.raises(ValueError, match=r"mode must be one of \['fan_in', 'fan_out', 'fan_avg'\]. "
                                         r"Received: mode='fan'"):
        initializers.VarianceScaling(mode="fan")
    with pytest.raises(ValueError, match="distribution must be one of"):
        initializers.VarianceScaling(distribution="cauchy")
    with pytest.raises(ValueError, match="Expected a float dtype, received dtype=int32"):
        initializers.GlorotUniform()((2, 2), "int32")
    with pytest.raises(ValueError, match="shape must be a tuple of non-negative integers"):
        initializers.Zeros()((2, -1))
    with pytest.raises(ValueError, match="maxval must be >= minval"):
        initializers.RandomUniform(1.0, 0.0)


# ================================================================ regularizers
def test_l1_l2_l1l2_values_and_keras_defaults():
    w = ds.constant([[1.0, -2.0], [0.5, 0.0]])
    assert float(regularizers.L1(0.1)(w)) == pytest.approx(0.35)
    assert float(regularizers.L2(0.1)(w)) == pytest.approx(0.525)
    assert float(regularizers.L1L2(0.1, 0.1)(w)) == pytest.approx(0.875)
    assert regularizers.L1().get_config() == {"l1": 0.01}
    assert regularizers.L2().get_config() == {"l2": 0.01}
    assert regularizers.L1L2().get_config() == {"l1": 0.0, "l2": 0.0}  # Keras 3 constructor defaults
    assert regularizers.get("l1_l2").get_config() == {"l1": 0.01, "l2": 0.01}  # the string's defaults
    assert float(regularizers.L1L2()(w)) == 0.0
    assert type(regularizers.get("l2")) is regularizers.L2 and regularizers.get("l2").l2 == 0.01
    assert type(regularizers.get("L1")) is regularizers.L1


def test_regularizers_are_differentiable_and_keep_the_weight_dtype():
    w = ds.Variable(np.array([[1.0, -2.0], [0.5, -0.25]]), name="w")  # float64
    for reg, expected in [(regularizers.L1(0.3), 0.3 * np.sign(w.numpy())),
                          (regularizers.L2(0.3), 0.6 * w.numpy()),
                          (regularizers.L1L2(0.3, 0.3), 0.3 * np.sign(w.numpy()) + 0.6 * w.numpy())]:
        with ds.GradientTape() as tape:
            penalty = reg(w)
        assert penalty.shape == () and penalty.dtype == np.float64
        np.testing.assert_allclose(tape.gradient(penalty, w).numpy(), expected, rtol=1e-12)


def test_orthogonal_regularizer_against_numpy_and_its_gradient():
    x = np.random.default_rng(0).standard_normal((4, 3))
    for mode, m in (("rows", x), ("columns", x.T)):
        u = m / np.linalg.norm(m, axis=1, keepdims=True)
        p = u @ u.T
        n = p.shape[0]
        expected = 0.1 * 0.5 * np.abs(p - np.diag(np.diag(p))).sum() / (n * (n - 1) / 2)
        reg = regularizers.OrthogonalRegularizer(0.1, mode)
        assert float(reg(ds.constant(x))) == pytest.approx(expected, rel=1e-12)
        assert check_gradients(reg, x) < 1e-6
    with pytest.raises(ValueError, match="rank-2"):
        regularizers.OrthogonalRegularizer()(ds.ones((2, 2, 2)))


def test_regularizer_config_round_trips_and_errors():
    for reg in [regularizers.L1(0.2), regularizers.L2(0.3), regularizers.L1L2(0.1, 0.4),
                regularizers.OrthogonalRegularizer(0.5, "columns")]:
        rebuilt = regularizers.deserialize(regularizers.serialize(reg))
        assert type(rebuilt) is type(reg) and rebuilt.get_config() == reg.get_config()
        assert type(reg).from_config(reg.get_config()).get_config() == reg.get_config()
    with pytest.raises(ValueError, match=r"expected a non-negative float. Received: l2=-0.1"):
        regularizers.L2(-0.1)
    with pytest.raises(ValueError, match=r"Received: l1=inf"):
        regularizers.L1(float("inf"))
    with pytest.raises(ValueError, match=r"Unknown regularizer: 'l3'. Expected one of \["):
        regularizers.get("l3")
    with pytest.raises(ValueError, match="mode"):
        regularizers.OrthogonalRegularizer(mode="diagonal")


def test_custom_regularizers_subclass_with_call_or_dunder_call_and_plain_functions():
    class SeedStyle(regularizers.Regularizer):  # seed 001: `call`, `get_config`
        def __init__(self, _factor):
            super().__init__()
            self.factor = _factor

        def call(self, weights):
            return ds.reduce_sum(ds.abs(self.factor * weights))

        def get_config(self):
            return {"factor": self.factor}

    class KerasStyle(regularizers.Regularizer):
        def __init__(self, l2=0.0):
            self.l2 = l2

        def __call__(self, x):
            return self.l2 * ds.reduce_sum(ds.square(x))

        def get_config(self):
            return {"l2": float(self.l2)}

    w = ds.Variable([1.0, -3.0], name="w")
    assert float(SeedStyle(0.5)(w)) == 2.0
    assert float(KerasStyle(0.5)(w)) == 5.0
    config = regularizers.serialize(KerasStyle(0.5))
    assert config == {"module": __name__, "class_name": "KerasStyle", "config": {"l2": 0.5},
                      "registered_name": "KerasStyle"}
    assert regularizers.get(config, custom_objects={"KerasStyle": KerasStyle}).l2 == 0.5

    def l1_reg(weight_matrix):
        return 0.01 * ds.reduce_sum(ds.abs(weight_matrix))

    assert regularizers.get(l1_reg) is l1_reg
    assert float(regularizers.Regularizer()(w)) == 0.0  # the base penalty
    with pytest.raises(NotImplementedError, match="does not implement get_config"):
        regularizers.Regularizer().get_config()


# ================================================================ constraints
def _w():
    return np.array([[3.0, 0.1, -1.0], [4.0, -0.2, 1.0]])


@pytest.mark.parametrize("constraint,expected", [
    (constraints.NonNeg(), np.maximum(_w(), 0)),
    (constraints.MaxNorm(2.0), _w() * np.minimum(np.linalg.norm(_w(), axis=0), 2.0)
     / (1e-7 + np.linalg.norm(_w(), axis=0))),
    (constraints.MaxNorm(1.0, axis=1), _w() * np.minimum(np.linalg.norm(_w(), axis=1, keepdims=True), 1.0)
     / (1e-7 + np.linalg.norm(_w(), axis=1, keepdims=True))),
    (constraints.UnitNorm(), _w() / (1e-7 + np.linalg.norm(_w(), axis=0))),
    (constraints.UnitNorm(axis=[0, 1]), _w() / (1e-7 + np.linalg.norm(_w()))),
    (constraints.MinMaxNorm(0.5, 1.0, rate=0.5), _w() * (0.5 * np.clip(np.linalg.norm(_w(), axis=0), 0.5, 1.0)
                                                          + 0.5 * np.linalg.norm(_w(), axis=0))
     / (1e-7 + np.linalg.norm(_w(), axis=0))),
], ids=lambda c: type(c).__name__ if not isinstance(c, np.ndarray) else "")
def test_constraint_values(constraint, expected):
    out = constraint(ds.constant(_w()))
    assert out.dtype == np.float64 and out.shape == _w().shape
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    rebuilt = constraints.deserialize(constraints.serialize(constraint))
    assert type(rebuilt) is type(constraint) and rebuilt.get_config() == constraint.get_config()


def test_constraint_defaults_lookups_and_errors():
    assert constraints.MaxNorm().get_config() == {"max_value": 2, "axis": 0}
    assert constraints.UnitNorm().get_config() == {"axis": 0}
    assert constraints.MinMaxNorm().get_config() == {"min_value": 0.0, "max_value": 1.0, "rate": 1.0, "axis": 0}
    assert type(constraints.get("non_neg")) is constraints.NonNeg
    assert type(constraints.get("MaxNorm")) is constraints.MaxNorm
    assert constraints.get(None) is None
    with pytest.raises(ValueError, match=r"Unknown constraint: 'positive'. Expected one of \["):
        constraints.get("positive")
    with pytest.raises(ValueError, match="0 <= min_value <= max_value"):
        constraints.MinMaxNorm(2.0, 1.0)
    with pytest.raises(ValueError, match=r"rate must be in \[0, 1\]"):
        constraints.MinMaxNorm(rate=2.0)


def test_constraints_are_applied_after_an_optimizer_step():
    w = ds.Variable(np.array([[0.5, -0.5], [0.1, 0.2]], np.float32), name="w", constraint=constraints.UnitNorm())
    v = ds.Variable(np.array([1.0, -1.0], np.float32), name="v", constraint=constraints.NonNeg())
    with ds.GradientTape() as tape:
        loss = ds.reduce_sum(w) + ds.reduce_sum(v * v)
    grads = tape.gradient(loss, [w, v])
    ds.optimizers.SGD(learning_rate=0.1).apply_gradients(zip(grads, [w, v]))
    np.testing.assert_allclose(np.linalg.norm(w.numpy(), axis=0), 1.0, rtol=1e-5)
    np.testing.assert_array_equal(v.numpy(), np.array([0.8, 0.0], np.float32))


# ================================================================ activations
_ACTIVATION_REFS = {
    "linear": lambda x: x,
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "softplus": lambda x: np.log1p(np.exp(x)),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "tanh": np.tanh,
    "silu": lambda x: x / (1 + np.exp(-x)),
    "swish": lambda x: x / (1 + np.exp(-x)),
    "exponential": np.exp,
    "mish": lambda x: x * np.tanh(np.log1p(np.exp(x))),
    "softmax": lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True),
    "log_softmax": lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True)),
    "gelu": None,
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
}
_X = np.array([[-3.1, -1.2, -0.4, 0.3], [0.7, 1.6, 2.9, 7.3]])  # away from the kinks at 0 (and 6, -3, 3)


@pytest.mark.parametrize("name", sorted(_ACTIVATION_REFS))
def test_activation_values_and_gradients(name):
    fn = activations.get(name)
    ref = _ACTIVATION_REFS[name]
    if ref is not None:
        np.testing.assert_allclose(fn(ds.constant(_X)).numpy(), ref(_X), rtol=1e-10, atol=1e-14)
    assert check_gradients(fn, _X) < 1e-6
    assert activations.serialize(fn) == {"swish": "silu"}.get(name, name)  # an alias serializes to the name
    assert activations.get(activations.serialize(fn)) is fn


def test_activation_lookup_edge_cases():
    assert activations.get(None) is activations.linear
    assert activations.serialize(ds.nn.relu) == "relu"
    assert activations.get(ds.nn.relu) is ds.nn.relu

    def custom(x):
        return x * 2.0

    assert activations.get(custom) is custom  # a custom function: Keras 3's function config, found again by name
    assert activations.serialize(custom) == {"module": "builtins", "class_name": "function", "config": "custom",
                                             "registered_name": "function"}
    assert activations.get("custom", custom_objects={"custom": custom}) is custom
    with pytest.raises(ValueError, match=r"Unknown activation: 'rleu'. Expected one of \[.*'relu'"):
        activations.get("rleu")
    with pytest.raises(ValueError, match="Could not interpret activation identifier"):
        activations.get(3)


def test_relu_with_keras_options():
    x = np.linspace(-3.0, 3.0, 13)
    y = activations.relu(ds.constant(x), negative_slope=0.1, max_value=2.5, threshold=0.5).numpy()
    expected = np.where(x > 0.5, np.minimum(x, 2.5), 0.0) - 0.1 * np.maximum(0.5 - x, 0.0)
    np.testing.assert_allclose(y, expected, rtol=1e-12)
    y = activations.relu(ds.constant(x), max_value=1.0).numpy()
    np.testing.assert_allclose(y, np.clip(x, 0, 1.0))
    np.testing.assert_allclose(activations.elu(ds.constant(x), alpha=0.5).numpy(),
                               np.where(x > 0, x, 0.5 * np.expm1(x)), rtol=1e-12)


def test_the_global_seed_makes_unseeded_weights_reproducible_as_tf_random_set_seed():
    def weights():
        ds.random.set_seed(5)
        dense, emb = ds.layers.Dense(3), ds.layers.Embedding(10, 2)
        dense(ds.ones((1, 4)))
        emb(ds.constant([[1]]))
        return dense.kernel.numpy(), emb.embeddings.numpy()

    first, second = weights(), weights()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(first[0][:2, :2], first[1][:2, :2])  # each unseeded draw takes the next seed
    # a rerun in a fresh process draws the same weights
    code = ("import descend as ds; ds.random.set_seed(5); d = ds.layers.Dense(3); d(ds.ones((1, 4))); "
            "print(d.kernel.numpy().tobytes().hex())")
    import os
    import subprocess
    import sys
    env = {**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..")}
    runs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout
            for _ in range(2)}
    assert runs == {first[0].tobytes().hex() + "\n"}
    # without a global seed: Python's random decides, as Keras 3 (random.seed reproduces it)
    ds.random.set_seed(None)
    random.seed(3)
    a = ds.initializers.GlorotUniform()((3, 3)).numpy()
    random.seed(3)
    np.testing.assert_array_equal(a, ds.initializers.GlorotUniform()((3, 3)).numpy())


def test_lower_case_regularizer_names_are_keras_3s_aliases():
    assert regularizers.l1 is regularizers.L1 and regularizers.l2 is regularizers.L2
    assert regularizers.l1_l2 is regularizers.L1L2
    assert regularizers.orthogonal_regularizer is regularizers.OrthogonalRegularizer
    assert ds.keras.regularizers.l2 is regularizers.L2
    w = ds.constant([[1.0, -2.0]])
    assert float(regularizers.l2(0.1)(w)) == pytest.approx(0.5)
    assert regularizers.l1_l2(l1=0.1).get_config() == {"l1": 0.1, "l2": 0.0}  # Keras 3: the class's defaults
    for reg in (regularizers.l1(0.2), regularizers.l2(0.3), regularizers.l1_l2(l1=0.1, l2=0.4),
                regularizers.orthogonal_regularizer(0.5)):
        config = regularizers.serialize(reg)
        rebuilt = regularizers.deserialize(config)
        assert type(rebuilt) is type(reg) and rebuilt.get_config() == reg.get_config()


def test_lower_case_regularizers_as_keras():
    keras = pytest.importorskip("keras")
    for name, kwargs in [("l1", {"l1": 0.2}), ("l2", {}), ("l1_l2", {"l1": 0.1}), ("l1_l2", {}),
                         ("orthogonal_regularizer", {"factor": 0.3, "mode": "columns"})]:
        ours, theirs = getattr(regularizers, name)(**kwargs), getattr(keras.regularizers, name)(**kwargs)
        # Keras 3 rounds the factors to float32 in its config (0.2 -> 0.20000000298023224); descend keeps the float
        mine, keras_config = ours.get_config(), theirs.get_config()
        assert mine.keys() == keras_config.keys()
        for k in mine:
            assert mine[k] == (keras_config[k] if isinstance(mine[k], str) else pytest.approx(keras_config[k], rel=1e-7))
        assert regularizers.serialize(ours)["class_name"] == keras.regularizers.serialize(theirs)["class_name"]
        x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
        assert float(ours(ds.constant(x))) == pytest.approx(float(theirs(keras.ops.convert_to_tensor(x))), rel=1e-5)
