"""``convention=``: each optimizer as TF 1, PyTorch and optax compute it, checked against the frameworks.

* every case of ``tests/convention_cases.py`` (25 steps of one gradient sequence with all-zero steps,
  float64 and float32) against the values PyTorch and optax recorded in
  ``tests/data/convention_goldens.npz`` -- these run everywhere -- and against live runs where torch or
  optax is installed (``pytest.importorskip``), which also check that the recorded values still hold;
* ``"tf1"``: bit for bit ``descend.compat.v1.train`` (itself checked against TensorFlow 1 in
  ``test_against_tensorflow.py``) and, where TensorFlow is installed, ``tf.compat.v1.train``;
* the fused kernels and the sparse paths of every convention; PyTorch's sparse optimizers;
* configuration, state and checkpoints carry the convention; bad input is refused, naming what was
  expected and what was received.
"""

from __future__ import annotations

import inspect

import convention_cases as cc
import numpy as np
import pytest

import descend as ds
from descend.compat.v1 import train as v1
from descend.optimizers.convention import CONVENTIONS, conventions_of

O = ds.optimizers
RUNS = [(case, dtype) for case in cc.CASES for dtype in cc.DTYPES]
IDS = [f"{case.id}-{dtype}" for case, dtype in RUNS]


@pytest.fixture(scope="module")
def goldens():
    return cc.load_goldens()


# ================================================================================ against the frameworks
@pytest.mark.parametrize("case,dtype", RUNS, ids=IDS)
def test_matches_the_recorded_reference(case, dtype, goldens):
    """descend with ``convention=`` against PyTorch's or optax's values (recorded by
    tools/make_convention_goldens.py): float64 every element within 1e-12 relative (to a thousandth of the
    variable's largest magnitude at least); float32 within 2e-6 of the variable's largest magnitude
    (``convention_cases.disagreement``)."""
    worst, first = cc.disagreement(cc.run_descend(case, dtype), cc.from_golden(goldens, case, dtype), dtype)
    assert first is None, f"{case.id} {dtype}: {worst:.2e} > {cc.TOLERANCE[dtype]:.0e} from step {first + 1} on"


@pytest.mark.parametrize("case,dtype", RUNS, ids=IDS)
def test_matches_the_live_reference(case, dtype, goldens):
    """The same against a live run of the framework, at every step; and the recorded values are still the
    framework's."""
    if case.framework == "torch":
        pytest.importorskip("torch")
    else:
        pytest.importorskip("optax")
    theirs = cc.run_reference(case, dtype)
    worst, first = cc.disagreement(cc.run_descend(case, dtype), dict(enumerate(theirs)), dtype)
    assert first is None, f"{case.id} {dtype}: {worst:.2e} > {cc.TOLERANCE[dtype]:.0e} from step {first + 1} on"
    recorded, _ = cc.disagreement(theirs, cc.from_golden(goldens, case, dtype), dtype)
    assert recorded <= cc.TOLERANCE[dtype], f"the recorded values of {case.id} are stale: run " \
                                            "tools/make_convention_goldens.py"


def test_every_convention_is_compared():
    """Every (optimizer, convention) pair that descend declares has a case (TF 1's are tested below)."""
    declared = {(name, conv) for name in O.__all__ if isinstance(getattr(O, name), type)
                for conv in conventions_of(getattr(O, name)) if conv != "tf1"}
    compared = {(case.cls, case.framework) for case in cc.CASES}
    assert declared - compared == set()
    assert {("Adam", "torch"), ("Adam", "optax"), ("SGD", "torch"), ("Lion", "optax"),
            ("Adafactor", "torch")} <= declared


# the defaults: descend's argument -> the framework's, per framework
_TORCH_NAMES = {"learning_rate": "lr", "epsilon": "eps", "weight_decay": "weight_decay", "dampening": "dampening",
                "initial_accumulator_value": "initial_accumulator_value", "lr_decay": "lr_decay",
                "momentum_decay": "momentum_decay", "momentum": "momentum", "beta_2_decay": "beta2_decay"}
_OPTAX_NAMES = {"learning_rate": "learning_rate", "epsilon": "eps", "weight_decay": "weight_decay",
                "eps_root": "eps_root", "initial_accumulator_value": "initial_accumulator_value",
                "min_dim_size_to_factor": "min_dim_size_to_factor", "epsilon_1": "eps",
                "clip_threshold": "clipping_threshold"}


def _default_pairs():
    seen = set()
    for case in cc.CASES:
        if (case.cls, case.reference) not in seen:
            seen.add((case.cls, case.reference))
            yield case


@pytest.mark.parametrize("case", list(_default_pairs()), ids=lambda c: f"{c.cls}-{c.framework}-{c.reference}")
def test_defaults_are_the_frameworks(case):
    """An argument left out takes the framework's default (a framework without one: descend's)."""
    if case.framework == "torch":
        torch = pytest.importorskip("torch")
        params = inspect.signature(getattr(torch.optim, case.reference).__init__).parameters
        names = dict(_TORCH_NAMES, rho="alpha" if case.reference == "RMSprop" else "rho")
    else:
        optax = pytest.importorskip("optax")
        params = inspect.signature(getattr(optax, case.reference)).parameters
        names = dict(_OPTAX_NAMES, rho="decay" if case.reference == "rmsprop" else "rho")
    hyper = getattr(O, case.cls)(convention=case.framework).hyperparameters()
    compared = []
    for ours, theirs in names.items():
        if ours not in hyper or theirs not in params:
            continue
        default = params[theirs].default
        if default is inspect.Parameter.empty or default is None:
            continue  # required, or "none" (optax's learning rate): descend's own default
        if isinstance(default, tuple):  # torch's Adafactor eps=(None, 1e-3)
            continue
        compared.append(ours)
        assert hyper[ours] == pytest.approx(float(default), rel=1e-15), f"{case.cls} {ours}"
    assert compared or not conventions_of(getattr(O, case.cls))[case.framework].defaults


def test_torch_adafactor_epsilon_defaults_to_the_dtypes():
    torch = pytest.importorskip("torch")
    assert inspect.signature(torch.optim.Adafactor.__init__).parameters["eps"].default == (None, 1e-3)
    opt = O.Adafactor(convention="torch")
    assert "epsilon_1" not in opt.hyperparameters() and opt.hyperparameters()["epsilon_2"] == 1e-3
    for dtype in (np.float32, np.float64):
        c = opt.rule.coefficients(0, opt.resolve_hyperparameters(), np.dtype(dtype))
        assert c["epsilon_1"] == float(np.finfo(dtype).eps)


# the "first step" column of docs/semantics.md: (difference, class, arguments A, arguments B, the first step whose
# numbers differ beyond rounding, None: rounding only)
_SCHEDULE = {"class_name": "ExponentialDecay", "config": {"initial_learning_rate": 0.05, "decay_steps": 1,
                                                           "decay_rate": 0.9}}
_FIRST_STEPS = [
    ("adam-epsilon-placement", "Adam", dict(epsilon=1e-8), dict(epsilon=1e-8, convention="torch"), 1),
    ("adam-epsilon-default", "Adam", {}, dict(convention="torch"), 1),
    ("adam-tf1-scalars", "Adam", dict(epsilon=1e-8), dict(convention="tf1"), None),
    ("adam-torch-optax", "Adam", dict(convention="optax"), dict(convention="torch"), None),
    ("amsgrad-corrected-maximum", "Adam", dict(amsgrad=True, epsilon=1e-3, convention="optax"),
     dict(amsgrad=True, epsilon=1e-3, convention="torch"), 2),
    ("adam-weight-decay", "Adam", dict(weight_decay=0.1, epsilon=1e-3), dict(weight_decay=0.1, epsilon=1e-3,
                                                                            convention="torch"), 1),
    ("adamw-decay", "AdamW", dict(weight_decay=0.1, convention="optax"), dict(weight_decay=0.1, convention="torch"),
     None),
    ("sgd-momentum", "SGD", dict(momentum=0.9), dict(momentum=0.9, convention="torch"), None),
    ("sgd-momentum-schedule", "SGD", dict(momentum=0.9, learning_rate=_SCHEDULE),
     dict(momentum=0.9, learning_rate=_SCHEDULE, convention="torch"), 2),
    ("sgd-nesterov", "SGD", dict(momentum=0.9, nesterov=True), dict(momentum=0.9, nesterov=True, convention="torch"),
     None),
    ("sgd-dampening", "SGD", dict(momentum=0.9, convention="torch"), dict(momentum=0.9, dampening=0.3,
                                                                           convention="torch"), 2),
    ("sgd-weight-decay", "SGD", dict(weight_decay=0.1), dict(weight_decay=0.1, convention="torch"), None),
    ("sgd-momentum-weight-decay", "SGD", dict(momentum=0.9, weight_decay=0.1),
     dict(momentum=0.9, weight_decay=0.1, convention="torch"), 2),
    ("rmsprop-epsilon", "RMSprop", dict(rho=0.9, epsilon=1e-8), dict(rho=0.9, epsilon=1e-8, convention="torch"), 1),
    ("rmsprop-tf1-ones", "RMSprop", dict(epsilon=1e-10), dict(convention="tf1"), 1),
    ("rmsprop-optax", "RMSprop", dict(epsilon=1e-8), dict(convention="optax"), None),
    ("rmsprop-momentum", "RMSprop", dict(momentum=0.5, epsilon=0.0), dict(momentum=0.5, epsilon=0.0, rho=0.9,
                                                                         convention="torch"), None),
    ("rmsprop-momentum-schedule", "RMSprop", dict(momentum=0.5, epsilon=0.0, learning_rate=_SCHEDULE),
     dict(momentum=0.5, epsilon=0.0, rho=0.9, learning_rate=_SCHEDULE, convention="torch"), 2),
    ("adagrad-epsilon", "Adagrad", dict(initial_accumulator_value=0.1, epsilon=1e-7),
     dict(initial_accumulator_value=0.1, epsilon=1e-7, convention="torch"), 1),
    ("adagrad-lr-decay", "Adagrad", dict(convention="torch"), dict(lr_decay=0.1, convention="torch"), 2),
    ("adadelta", "Adadelta", dict(rho=0.9, epsilon=1e-6), dict(convention="torch"), None),
    ("adamax-epsilon", "Adamax", dict(epsilon=1e-3), dict(epsilon=1e-3, convention="torch"), 2),
    ("nadam-torch", "Nadam", dict(epsilon=1e-8), dict(convention="torch"), 1),
    ("nadam-optax", "Nadam", dict(epsilon=1e-8), dict(convention="optax"), 1),
    ("lion", "Lion", dict(weight_decay=1e-3), dict(convention="optax"), None),
    ("adafactor-optax", "Adafactor", dict(relative_step=False), dict(convention="optax"), 1),
    ("adafactor-torch-epsilon", "Adafactor", dict(epsilon_1=1e-3), dict(epsilon_1=1e-3, convention="torch"), 1),
]


@pytest.mark.parametrize("name,cls,a,b,step", _FIRST_STEPS, ids=[r[0] for r in _FIRST_STEPS])
def test_first_step_of_each_difference(name, cls, a, b, step):
    """docs/semantics.md's "first step" column: switching only that difference changes the numbers from that step
    on (float64, beyond 1e-9 relative), or only in the rounding (None)."""
    def run(kwargs):
        kwargs = dict(kwargs)
        if isinstance(kwargs.get("learning_rate"), dict):
            kwargs["learning_rate"] = ds.optimizers.schedules.deserialize(kwargs["learning_rate"])
        case = cc.ConvCase(name, kwargs.pop("convention", "keras"), cls, {"learning_rate": 0.01, **kwargs}, "", {})
        return cc.run_descend(case, "float64")

    ta, tb = run(a), run(b)
    differs = [k + 1 for k in range(cc.STEPS) for x, y in zip(ta[k], tb[k])
               if np.max(np.abs(x - y) / np.maximum(np.abs(y), 1e-3 * np.max(np.abs(y)))) > 1e-9]
    assert (min(differs) if differs else None) == step


# ================================================================================ TF 1
_TF1_PAIRS = [
    ("adam", lambda: O.Adam(0.01, convention="tf1"), lambda: v1.AdamOptimizer(0.01)),
    ("sgd", lambda: O.SGD(0.05, convention="tf1"), lambda: v1.GradientDescentOptimizer(0.05)),
    ("momentum", lambda: O.SGD(0.05, momentum=0.875, convention="tf1"), lambda: v1.MomentumOptimizer(0.05, 0.875)),
    ("nesterov", lambda: O.SGD(0.05, momentum=0.875, nesterov=True, convention="tf1"),
     lambda: v1.MomentumOptimizer(0.05, 0.875, use_nesterov=True)),
    ("rmsprop", lambda: O.RMSprop(0.01, convention="tf1"), lambda: v1.RMSPropOptimizer(0.01)),
    ("rmsprop-centered", lambda: O.RMSprop(0.01, momentum=0.25, centered=True, convention="tf1"),
     lambda: v1.RMSPropOptimizer(0.01, momentum=0.25, centered=True)),
    ("adagrad", lambda: O.Adagrad(0.1, convention="tf1"), lambda: v1.AdagradOptimizer(0.1)),
    ("adadelta", lambda: O.Adadelta(0.5, convention="tf1"), lambda: v1.AdadeltaOptimizer(0.5)),
]


def _steps(make, dtype, sparse):
    table = ds.Variable(np.linspace(-1, 1, 24).reshape(6, 4).astype(dtype), name="table")
    opt = make()
    rng = np.random.default_rng(3)
    for k in range(12):
        values = rng.standard_normal((3, 4)).astype(dtype) * (0 if k == 4 else 1)
        if sparse:
            g = ds.IndexedSlices(ds.constant(values), ds.constant([1, 4, 1]), (6, 4))
        else:
            g = np.zeros((6, 4), dtype)
            np.add.at(g, [1, 4, 1], values)
            g = ds.constant(g)
        opt.apply_gradients([(g, table)])
    return table.numpy(), opt


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("name,ours,theirs", _TF1_PAIRS, ids=[p[0] for p in _TF1_PAIRS])
def test_tf1_convention_is_compat_v1_bit_for_bit(name, ours, theirs, sparse, dtype):
    """``convention="tf1"`` is descend.compat.v1.train's arithmetic (one declaration), dense and sparse
    (TF 1's lazy kernels for momentum, RMSProp, Adagrad and Adadelta; Adam's exact scatter order)."""
    a, opt = _steps(ours, dtype, sparse)
    b, ref = _steps(theirs, dtype, sparse)
    assert np.array_equal(a, b)
    assert opt.sparse_updates == ref.sparse_updates and opt.convention == ref.convention == "tf1"


@pytest.mark.parametrize("name", ["adam", "momentum", "rmsprop-centered", "adagrad", "adadelta"])
def test_tf1_convention_matches_tensorflow(name):
    """Against ``tf.compat.v1.train`` itself, float32, within test_against_tensorflow.py's 64 ulp (TensorFlow's
    own square roots round differently from NumPy's in a few elements)."""
    tf = pytest.importorskip("tensorflow")
    make = dict((p[0], p[1]) for p in _TF1_PAIRS)[name]
    reference = {
        "adam": lambda: tf.compat.v1.train.AdamOptimizer(0.01),
        "momentum": lambda: tf.compat.v1.train.MomentumOptimizer(0.05, 0.875),
        "rmsprop-centered": lambda: tf.compat.v1.train.RMSPropOptimizer(0.01, momentum=0.25, centered=True),
        "adagrad": lambda: tf.compat.v1.train.AdagradOptimizer(0.1),
        "adadelta": lambda: tf.compat.v1.train.AdadeltaOptimizer(0.5),
    }[name]()
    start = np.linspace(-1, 1, 24).reshape(6, 4).astype(np.float32)
    var = tf.Variable(start)
    rng = np.random.default_rng(3)
    for k in range(12):
        g = rng.standard_normal((6, 4)).astype(np.float32) * (0 if k == 4 else 1)
        reference.apply_gradients([(tf.constant(g), var)])
    ours = ds.Variable(start, name="table")
    opt = make()
    rng = np.random.default_rng(3)
    for k in range(12):
        g = rng.standard_normal((6, 4)).astype(np.float32) * (0 if k == 4 else 1)
        opt.apply_gradients([(ds.constant(g), ours)])
    a, b = ours.numpy().astype(np.float64), var.numpy().astype(np.float64)
    ulp = np.abs(a - b) / np.spacing(np.maximum(np.abs(a), np.abs(b)).astype(np.float32)).astype(np.float64)
    assert ulp.max() <= 64, f"{name}: {ulp.max():.0f} ulp"


# ================================================================================ kernels and sparse paths
_ELEMENTWISE = [case for case in cc.CASES if case.cls != "Adafactor"]


@pytest.mark.parametrize("case", _ELEMENTWISE, ids=lambda c: c.id)
def test_fused_kernel_equals_the_numpy_rule(case):
    """Every convention's rule compiles to a fused kernel that gives the NumPy path's values bit for bit."""
    from descend.optimizers import fused

    if not fused.enabled():
        pytest.skip("numba is not installed: no fused kernels")
    assert case.make().rule.kernel() is not None, f"{case.id}: no fused kernel"

    def run(use_fused):
        variables = [ds.Variable(x, name=f"v{k}") for k, x in enumerate(cc.initial(case.shapes, "float32"))]
        opt = case.make()
        opt.use_fused = use_fused
        out = []
        for grads in cc.gradients(case.shapes, "float32"):
            opt.apply_gradients([(ds.constant(g), v) for g, v in zip(grads, variables)])
            out.append([v.numpy().copy() for v in variables])
        return out

    for a, b in zip(run(True), run(False)):
        for x, y in zip(a, b):
            assert np.array_equal(x, y), case.id


def _sparse_run(case, mode, dtype="float64"):
    table = ds.Variable(np.linspace(-1, 1, 24).reshape(6, 4).astype(dtype), name="table")
    opt = case.make(sparse_updates=mode) if mode else case.make()
    rng = np.random.default_rng(5)
    for k in range(10):
        rows = [[0, 2], [5, 2, 5], [1]][k % 3]
        values = rng.standard_normal((len(rows), 4)).astype(dtype)
        opt.apply_gradients([(ds.IndexedSlices(ds.constant(values), ds.constant(rows), (6, 4)), table)])
    return table.numpy(), opt


def _dense_run(case, dtype="float64"):
    table = ds.Variable(np.linspace(-1, 1, 24).reshape(6, 4).astype(dtype), name="table")
    opt = case.make()
    rng = np.random.default_rng(5)
    for k in range(10):
        rows = [[0, 2], [5, 2, 5], [1]][k % 3]
        g = np.zeros((6, 4), dtype)
        np.add.at(g, rows, rng.standard_normal((len(rows), 4)).astype(dtype))
        opt.apply_gradients([(ds.constant(g), table)])
    return table.numpy()


@pytest.mark.parametrize("case", _ELEMENTWISE, ids=lambda c: c.id)
def test_sparse_paths_of_every_convention(case):
    """``"exact"`` equals the dense update of the densified gradient (duplicate ids summed first, as PyTorch
    coalesces); ``"exact_lazy"`` equals ``"exact"`` (where it is allowed); ``"lazy"`` moves only the rows
    the gradients name."""
    dense = _dense_run(case)
    exact, _ = _sparse_run(case, "exact")
    np.testing.assert_allclose(exact, dense, rtol=1e-13, atol=1e-15)
    lazy, opt = _sparse_run(case, "lazy")
    untouched = np.linspace(-1, 1, 24).reshape(6, 4)[3:5]
    assert np.array_equal(lazy[3:5], untouched)
    try:
        caught_up, _ = _sparse_run(case, "exact_lazy")
    except ValueError as e:  # PyTorch's L2 penalty moves every row at every step
        assert "L2 penalty" in str(e) and "weight_decay" in case.kwargs
        return
    np.testing.assert_allclose(caught_up, exact, rtol=1e-12, atol=1e-14)


def _torch_sparse(torch, opt_cls, kwargs, dtype):
    p = torch.tensor(np.linspace(-1, 1, 24).reshape(6, 4), dtype=getattr(torch, dtype), requires_grad=True)
    opt = opt_cls([p], **kwargs)
    rng = np.random.default_rng(5)
    for k in range(10):
        rows = [[0, 2], [5, 2, 5], [1]][k % 3]
        values = torch.tensor(rng.standard_normal((len(rows), 4)), dtype=getattr(torch, dtype))
        p.grad = torch.sparse_coo_tensor(torch.tensor([rows]), values, (6, 4))
        opt.step()
    return p.detach().numpy()


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["adam", "adagrad", "sgd"])
def test_torch_sparse_gradients(name, dtype):
    """PyTorch's sparse updates: ``Adam(convention="torch")`` is lazy by default with ``torch.optim.SparseAdam``'s
    arithmetic; Adagrad and SGD take sparse gradients as their dense update. Duplicate ids are summed first
    (PyTorch coalesces), as descend does."""
    torch = pytest.importorskip("torch")
    if name == "adam":
        ours = next(c for c in cc.CASES if c.id == "torch-adam")
        theirs = _torch_sparse(torch, torch.optim.SparseAdam, {}, dtype)
        assert ours.make().sparse_updates == "lazy"
    elif name == "adagrad":
        ours = next(c for c in cc.CASES if c.id == "torch-adagrad")
        theirs = _torch_sparse(torch, torch.optim.Adagrad, {}, dtype)
    else:
        ours = next(c for c in cc.CASES if c.id == "torch-sgd")
        theirs = _torch_sparse(torch, torch.optim.SGD, {"lr": 0.05}, dtype)
    got, _ = _sparse_run(ours, None, dtype)
    worst, first = cc.disagreement({0: [got]}, {0: [theirs]}, dtype)
    assert first is None, f"{name}: {worst:.2e}"


# ================================================================================ the default is unchanged
@pytest.mark.parametrize("cls", ["Adam", "AdamW", "SGD", "RMSprop", "Adagrad", "Adadelta", "Adamax", "Nadam", "Lion",
                                 "Adafactor"])
def test_keras_is_the_default_and_writes_nothing_new(cls):
    a, b = getattr(O, cls)(), getattr(O, cls)(convention="keras")
    assert a.convention == b.convention == "keras"

    def unnamed(config):  # (the second is auto-named adam_1, as Keras 3 names it)
        return {k: v for k, v in config.items() if k != "name"}

    assert unnamed(a.get_config()) == unnamed(b.get_config()) and "convention" not in a.get_config()
    assert a.rule.fn is b.rule.fn
    var = ds.Variable(np.ones(3, np.float32), name="w")
    a.apply_gradients([(ds.constant([0.5, -0.5, 0.0]), var)])
    assert not [k for k in a.state_dict() if k.startswith("convention:")]


def test_epsilon_default_follows_the_convention_and_stays_visible_in_the_signature():
    sig = inspect.signature(O.Adam.__init__).parameters
    assert sig["epsilon"].default == 1e-7 and repr(sig["epsilon"].default) == "1e-07"
    assert [O.Adam(convention=c).epsilon for c in CONVENTIONS] == [1e-7, 1e-8, 1e-8, 1e-8]
    assert O.Adam(epsilon=1e-7, convention="torch").epsilon == 1e-7  # given: kept
    assert type(O.Adam().hyperparameters()["epsilon"]) is float
    assert O.SGD(convention="torch").learning_rate == 1e-3 and O.SGD().learning_rate == 0.01
    assert O.AdamW(convention="torch").weight_decay == 0.01 and O.AdamW(convention="optax").weight_decay == 1e-4
    assert O.Lion(convention="optax").weight_decay == 1e-3 and O.Lion().weight_decay is None


# ================================================================================ config, state, checkpoints
_ALL = [(cls, conv) for cls in sorted(n for n in O.__all__ if isinstance(getattr(O, n), type))
        for conv in conventions_of(getattr(O, cls))]


@pytest.mark.parametrize("cls,conv", _ALL, ids=[f"{c}-{v}" for c, v in _ALL])
def test_config_round_trip_keeps_the_convention(cls, conv):
    opt = getattr(O, cls)(convention=conv)
    config = opt.get_config()
    assert config["convention"] == conv
    again = getattr(O, cls).from_config(config)
    assert again.convention == conv and again.get_config() == config
    assert O.get({"class_name": cls, "config": config}).convention == conv


def test_state_carries_the_convention_and_another_is_refused():
    w = ds.Variable(np.ones(3), name="w")
    opt = O.Adam(0.1, convention="torch")
    for _ in range(3):
        opt.apply_gradients([(ds.constant([0.5, -1.0, 2.0]), w)])
    state, before = opt.state_dict(), w.numpy()
    assert state["convention:torch"] == 1
    opt.apply_gradients([(ds.constant([0.5, -1.0, 2.0]), w)])
    want = w.numpy()
    # the same convention restores: the next step is the same
    w.assign(before)
    fresh = O.Adam(0.1, convention="torch")
    fresh.load_state_dict(state)
    fresh.apply_gradients([(ds.constant([0.5, -1.0, 2.0]), w)])
    assert int(fresh.iterations) == 4 and np.array_equal(w.numpy(), want) and not fresh.pending_state()
    # another convention (or Keras' state into PyTorch's) is refused, changing nothing
    for other, saved in ((O.Adam(0.1), state), (O.Adam(0.1, convention="optax"), state),
                         (O.Adam(0.1, convention="torch"), O.Adam(0.1).state_dict())):
        before = other.state_dict()
        with pytest.raises(ValueError, match=r"saved with convention='(torch|keras)'; this optimizer has "
                                             r"convention='(keras|optax|torch)'"):
            other.load_state_dict(saved)
        after = other.state_dict()
        assert sorted(before) == sorted(after) and all(np.array_equal(before[k], after[k]) for k in before)


def test_checkpoint_resumes_a_convention_bit_for_bit(tmp_path):
    import descend.train as train

    def run(opt, var, steps):
        rng = np.random.default_rng(len(steps))
        for k in steps:
            opt.apply_gradients([(ds.constant(rng.standard_normal(4) * (k + 1)), var)])

    w = ds.Variable(np.linspace(-1, 1, 4), name="w")
    opt = O.Nadam(0.01, convention="torch", weight_decay=0.01)
    run(opt, w, range(3))
    path = train.Checkpoint(w=w, optimizer=opt).save(tmp_path / "ckpt")
    run(opt, w, range(3, 6))
    w2 = ds.Variable(np.zeros(4), name="w")
    opt2 = O.Nadam.from_config(opt.get_config())
    train.Checkpoint(w=w2, optimizer=opt2).restore(path)
    run(opt2, w2, range(3, 6))
    assert np.array_equal(w.numpy(), w2.numpy())
    assert np.array_equal(opt.state_dict()["mu_product"], opt2.state_dict()["mu_product"])
    assert opt2.state_dict()["mu_product"].dtype == np.float32  # PyTorch's float32 step state
    with pytest.raises(ValueError, match="convention='torch'"):
        train.Checkpoint(w=ds.Variable(np.zeros(4), name="w"), optimizer=O.Nadam(0.01)).restore(path)


# ================================================================================ bad input
@pytest.mark.parametrize("kwargs,message", [
    (dict(convention="pytorch"), "`convention` must be one of 'keras', 'tf1', 'torch', 'optax'. "
                                 "Received: convention='pytorch'"),
    (dict(convention=None), "`convention` must be one of 'keras', 'tf1', 'torch', 'optax'. Received: convention=None"),
    (dict(convention="TORCH"), "Received: convention='TORCH'"),
])
def test_unknown_convention(kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        O.Adam(**kwargs)


@pytest.mark.parametrize("make,message", [
    (lambda: O.Adamax(convention="tf1"), "Adamax has no 'tf1' convention (TensorFlow 1 (tf.compat.v1.train) has no "
                                         "counterpart descend reproduces); Adamax supports: 'keras', 'torch', 'optax'. "
                                         "Received: convention='tf1'"),
    (lambda: O.Lion(convention="torch"), "Lion supports: 'keras', 'optax'. Received: convention='torch'"),
    (lambda: O.AdamW(convention="tf1"), "AdamW supports: 'keras', 'torch', 'optax'"),
    (lambda: O.Ftrl(convention="torch"), "Ftrl supports: 'keras', 'tf1'. Received: convention='torch'"),
    (lambda: O.AdamWeightDecay(convention="torch"), "AdamWeightDecay supports: 'keras'"),
    (lambda: O.Lamb(convention="optax"), "Lamb supports: 'keras'"),
])
def test_a_convention_the_optimizer_lacks(make, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace(".", r"\.")):
        make()


def test_a_subclass_with_its_own_rule_does_not_inherit_conventions():
    class MyAdam(O.Adam):
        @property
        def update(self):
            return super().update

    with pytest.raises(ValueError, match="MyAdam supports: 'keras'"):
        MyAdam(convention="torch")

    class Plain(O.Adam):  # no rule of its own: Adam's conventions apply
        pass

    assert Plain(convention="torch").convention == "torch"


@pytest.mark.parametrize("make,message", [
    (lambda: O.SGD(0.1, momentum=0.9, dampening=0.5),
     "`dampening` is an argument of SGD's 'torch' convention only. Received: dampening=0.5 with convention='keras'"),
    (lambda: O.SGD(0.1, momentum=0.9, dampening=0.5, convention="optax"),
     "`dampening` is an argument of SGD's 'torch' convention only. Received: dampening=0.5 with convention='optax'"),
    (lambda: O.Adam(eps_root=1e-8, convention="torch"),
     "`eps_root` is an argument of Adam's 'optax' convention only. Received: eps_root=1e-08 with convention='torch'"),
    (lambda: O.Adagrad(lr_decay=0.1),
     "`lr_decay` is an argument of Adagrad's 'torch' convention only. Received: lr_decay=0.1 with "
     "convention='keras'"),
    (lambda: O.Nadam(momentum_decay=0.1, convention="optax"), "`momentum_decay` is an argument of Nadam's 'torch'"),
    (lambda: O.Adafactor(min_dim_size_to_factor=4), "`min_dim_size_to_factor` is an argument of Adafactor's 'optax'"),
    (lambda: O.Adam(amsgrad=True, convention="tf1"),
     "tf.compat.v1.train.AdamOptimizer has no `amsgrad`: Adam with convention='tf1' does not take it. "
     "Received: amsgrad=True"),
    (lambda: O.Adagrad(epsilon=1e-3, convention="tf1"),
     "tf.compat.v1.train.AdagradOptimizer has no `epsilon`: Adagrad with convention='tf1' does not take it. "
     "Received: epsilon=0.001"),
    (lambda: O.Adam(weight_decay=0.1, convention="optax"),
     "optax.adam has no `weight_decay`: Adam with convention='optax' does not take it. Received: weight_decay=0.1"),
    (lambda: O.Adafactor(relative_step=False, convention="torch"),
     "torch.optim.Adafactor has no `relative_step`"),
    (lambda: O.Adafactor(weight_decay=0.1, convention="torch"),
     "Adafactor with convention='torch' does not take `weight_decay`: PyTorch computes the step size from the "
     "weights before it decays them"),
    (lambda: O.SGD(0.1, momentum=0.9, nesterov=True, dampening=0.1, convention="torch"),
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda: O.SGD(0.1, nesterov=True, dampening=0.0, convention="torch"),
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda: O.SGD(0.1, momentum=0.9, dampening=1.0, convention="torch"),
     r"`dampening` must be in \[0, 1\). Received: dampening=1.0"),
])
def test_an_argument_the_convention_does_not_take(make, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)") if "\\" not in message
                       else message):
        make()


def test_exact_lazy_is_refused_with_an_l2_penalty_and_nothing_changes():
    table = ds.Variable(np.ones((4, 2)), name="t")
    opt = O.Adagrad(0.1, weight_decay=0.01, convention="torch")
    with pytest.raises(ValueError, match="cannot use sparse_updates='exact_lazy': its torch weight decay is an L2 "
                                         "penalty added to the gradient"):
        opt.sparse_updates = "exact_lazy"
    assert opt.sparse_updates == "exact"
    with pytest.raises(ValueError, match="L2 penalty"):
        O.Adagrad(0.1, weight_decay=0.01, convention="torch", sparse_updates="exact_lazy").apply_gradients(
            [(ds.IndexedSlices(ds.constant([[1.0, 1.0]]), ds.constant([0]), (4, 2)), table)])
    assert np.array_equal(table.numpy(), np.ones((4, 2)))


def test_l2_penalty_respects_exclusions():
    """PyTorch's weight decay is an L2 penalty on the gradient; ``exclude_from_weight_decay`` exempts a
    variable (PyTorch: a parameter group with weight_decay=0)."""
    a, b = ds.Variable(np.ones(2), name="kernel"), ds.Variable(np.ones(2), name="bias")
    opt = O.SGD(0.1, weight_decay=0.5, convention="torch")
    opt.exclude_from_weight_decay(var_names=["bias"])
    opt.apply_gradients([(ds.constant([1.0, 0.0]), a), (ds.constant([1.0, 0.0]), b)])
    assert a.numpy().tolist() == [1 - 0.1 * 1.5, 1 - 0.1 * 0.5] and b.numpy().tolist() == [0.9, 1.0]


@pytest.mark.parametrize("lr, weight_decay, sparse", [(1e-3, 0.0, False), (0.1, 0.0, False), (0.01, 0.1, False),
                                                      (0.01, 0.0, True)])
def test_torch_amsgrad_with_epsilon_1e7_equals_torch_in_float64(lr, weight_decay, sparse):
    """``Adam(amsgrad=True, epsilon=1e-7, convention="torch")`` against ``torch.optim.Adam(amsgrad=True, eps=1e-7)``
    in float64, within 1e-12 (issue 38): gradients whose scale falls and rises (so the running maximum of ``v``
    decides the denominator), with PyTorch's L2 weight decay, and sparse gradients under ``sparse_updates="exact"``
    (PyTorch gets the same rows, densified)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(11)
    p0 = rng.standard_normal((6, 4))
    p = torch.tensor(p0.copy(), requires_grad=True)
    ref = torch.optim.Adam([p], lr=lr, eps=1e-7, amsgrad=True, weight_decay=weight_decay)
    w = ds.Variable(p0.copy(), name="w")
    opt = O.Adam(lr, epsilon=1e-7, amsgrad=True, weight_decay=weight_decay or None, convention="torch",
                 sparse_updates="exact" if sparse else None)
    worst = 0.0
    for k, scale in enumerate([1.0, 1e-3, 10.0, 1e-6, 0.5, 1e-2, 3.0, 1e-4] * 3):
        if sparse:
            rows = [k % 6, (k + 3) % 6]
            values = rng.standard_normal((2, 4)) * scale
            g = np.zeros((6, 4))
            g[rows] = values
            opt.apply_gradients([(ds.IndexedSlices(ds.constant(values), ds.constant(rows), (6, 4)), w)])
        else:
            g = rng.standard_normal((6, 4)) * scale
            opt.apply_gradients([(ds.constant(g), w)])
        p.grad = torch.tensor(g)
        ref.step()
        want = p.detach().numpy()
        worst = max(worst, float(np.max(np.abs(w.numpy() - want) / np.maximum(1.0, np.abs(want)))))
    assert worst <= 1e-12, worst
