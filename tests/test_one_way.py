"""One way to do each thing in the optimizers (issue 36): each second way removed is checked here, by a table of
the classes or by the source itself, so that it cannot come back unnoticed."""

from __future__ import annotations

import ast
import pathlib
from collections import Counter

import numpy as np
import pytest

import descend as ds
from descend.optimizers import adadelta, adagrad, adagrad_decay, adam, ftrl, rmsprop, sgd
from descend.optimizers.convention import conventions_of

T1 = ds.compat.v1.train
O = ds.optimizers
ROOT = pathlib.Path(ds.__file__).parent

# ------------------------------------------------------------------------------ compat.v1: one pattern
#: TF 1 class -> (the Keras class it is, the module declaring its "tf1" convention)
OVER_KERAS = {
    T1.GradientDescentOptimizer: (O.SGD, sgd),
    T1.MomentumOptimizer: (O.SGD, sgd),
    T1.AdamOptimizer: (O.Adam, adam),
    T1.AdagradOptimizer: (O.Adagrad, adagrad),
    T1.RMSPropOptimizer: (O.RMSprop, rmsprop),
    T1.AdadeltaOptimizer: (O.Adadelta, adadelta),
    T1.FtrlOptimizer: (O.Ftrl, ftrl),
    T1.AdagradDecayOptimizer: (O.AdagradDecay, adagrad_decay),
}
#: TF 1's optimizers with no Keras counterpart: their rule, in TF 1's arithmetic, in their own module
TF1_ONLY = {T1.AdagradDAOptimizer, T1.ProximalAdagradOptimizer, T1.ProximalGradientDescentOptimizer}

_ARGS = {T1.MomentumOptimizer: (0.1, 0.5)}


def _tf1_classes():
    return {getattr(T1, n) for n in T1.__all__ if isinstance(getattr(T1, n, None), type)
            and issubclass(getattr(T1, n), T1.Optimizer) and getattr(T1, n) is not T1.Optimizer}


def test_every_tf1_optimizer_is_in_one_table():
    assert _tf1_classes() == set(OVER_KERAS) | TF1_ONLY and not set(OVER_KERAS) & TF1_ONLY


@pytest.mark.parametrize("cls", list(OVER_KERAS), ids=lambda c: c.__name__)
def test_tf1_class_is_the_keras_class_under_its_tf1_convention(cls):
    keras_cls, module = OVER_KERAS[cls]
    assert keras_cls in cls.__mro__ and T1.Optimizer in cls.__mro__
    tf1 = conventions_of(cls).get("tf1")
    assert tf1 is not None and tf1 is keras_cls.conventions["tf1"] and tf1.__module__ == module.__name__
    # the class declares no arithmetic of its own: nothing of the contract in its body
    assert not {"update", "slots", "coefficients", "catch_up", "conventions"} & set(vars(cls))
    opt = cls(*_ARGS.get(cls, (0.1,)))
    assert opt.convention == "tf1"
    assert type(opt).from_config(opt.get_config()).get_config() == opt.get_config()


@pytest.mark.parametrize("cls", sorted(TF1_ONLY, key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_tf1_only_classes_declare_their_rule_in_their_own_module(cls):
    assert not any(k.__module__.startswith("descend.optimizers.") and k is not O.Optimizer and
                   issubclass(k, O.Optimizer) and k.__module__ != "descend.optimizers.optimizer" for k in cls.__mro__)
    assert "update" in vars(cls) and cls.__module__ != T1.__name__


def test_compat_v1_imports_no_arithmetic():
    """compat.v1 takes the Keras classes, never a rule, a convention's attributes or its constants."""
    for path in (ROOT / "compat" / "v1").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and "optimizers" in node.module:
                names = [a.name for a in node.names]
                bad = [n for n in names if n.lower().startswith("tf1") or n.endswith(("_RULE", "_update", "_coefficients",
                                                                                       "_catch_up", "_powers"))]
                assert not bad, f"{path.name} imports {bad} from {node.module}"
            assert not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                        and node.value.id.startswith("TF1")), f"{path.name} reads a convention's attribute"


def test_ftrl_coefficients_are_written_once():
    # both conventions' "2 * l2_shrinkage" live in optimizers/ftrl.py, and nowhere else
    hits = [p.relative_to(ROOT) for p in ROOT.rglob("*.py") if "two_l2_shrinkage" in p.read_text()]
    assert [str(h) for h in hits] == ["optimizers/ftrl.py"]


def test_tf1_differences_kept():
    """What TF 1 has and the Keras classes do not, kept by the TF 1 classes."""
    w = ds.Variable([1.0, 2.0], name="w")
    plain = T1.MomentumOptimizer(0.1, 0.0)  # TF 1 keeps the accumulator with momentum=0
    plain.apply_gradients([(ds.constant([1.0, 1.0]), w)])
    assert plain.get_slot(w, "momentum") is not None
    assert T1.MomentumOptimizer(0.1, 1.5).momentum == 1.5  # TF 1 takes any momentum >= 0
    with pytest.raises(ValueError, match="between"):
        O.SGD(0.1, momentum=1.5)
    with pytest.raises(TypeError, match="GradientDescentOptimizer takes no momentum"):
        T1.GradientDescentOptimizer(0.1, momentum=0.5)
    step = ds.Variable(0, dtype="int64", name="gs", trainable=False)
    with pytest.raises(ValueError, match="`global_step` is an argument of AdagradDecay's 'tf1' convention only"):
        O.AdagradDecay(0.1, global_step=step)
    opt = T1.AdamOptimizer(0.1, beta1=0.5, beta2=0.25)
    assert (opt.beta1, opt.beta2) == (0.5, 0.25) and {"beta1", "beta2"} <= set(opt.get_config())
    f = T1.FtrlOptimizer(0.1)
    f.apply_gradients([(ds.constant([1.0, 1.0]), w)])
    assert f.get_slot(w, "accum") is not None and f.get_slot(w, "linear") is not None


def test_adagrad_decay_counts_periods_on_global_step():
    step = ds.Variable(0, dtype="int64", name="gs", trainable=False)
    a, b = ds.Variable(np.ones(2), name="a"), ds.Variable(np.ones(2), name="b")
    with_step = T1.AdagradDecayOptimizer(0.1, step, accumulator_decay_step=2, initial_accumulator_value=0.5)
    without = T1.AdagradDecayOptimizer(0.1, None, accumulator_decay_step=2, initial_accumulator_value=0.5)
    step.assign(5)  # gs + 1 = 6: three periods passed on the global step, none on iterations
    with_step.apply_gradients([(ds.constant([1.0, 2.0]), a)])
    without.apply_gradients([(ds.constant([1.0, 2.0]), b)])
    assert with_step.get_slot(a, "accumulator_decay_power").numpy().tolist() == [1.0, 1.0]
    assert without.get_slot(b, "accumulator_decay_power").numpy().tolist() == [0.0, 0.0]


# ------------------------------------------------------------------------------ one refusal, one message
def _source_count(text: str, where=ROOT) -> Counter:
    return Counter(str(p.relative_to(ROOT)) for p in where.rglob("*.py") for _ in range(p.read_text().count(text)))


def test_exact_lazy_refusal_is_written_once():
    assert _source_count("cannot use sparse_updates='exact_lazy'") == Counter({"optimizers/optimizer.py": 1})
    assert not _source_count("def exact_lazy_refusal") and not _source_count("def _exact_lazy_refusal")


@pytest.mark.parametrize("make,why", [
    (lambda: O.Lamb(sparse_updates="exact_lazy"), "per_tensor"),
    (lambda: O.Adagrad(0.1, weight_decay=0.01, convention="torch", sparse_updates="exact_lazy"), "L2 penalty"),
])
def test_exact_lazy_refusals_say_why(make, why):
    with pytest.raises(ValueError, match=f"cannot use sparse_updates='exact_lazy': .*{why}"):
        opt = make()
        opt.apply_gradients([(ds.IndexedSlices(ds.constant([[1.0]]), ds.constant([0]), (2, 1)),
                              ds.Variable(np.ones((2, 1)), name="t"))])


# ------------------------------------------------------------------------------ TF 2's arguments, read once
def test_tf2_constructor_arguments_are_read_once():
    optimizers = ROOT / "optimizers"
    assert _source_count('pop("decay"', optimizers) == Counter({"optimizers/optimizer.py": 1})
    assert _source_count('pop("lr"', optimizers) == Counter({"optimizers/optimizer.py": 1})


class _PlainSGD(O.legacy.Optimizer):
    def __init__(self, name="PlainSGD", **kwargs):
        super().__init__(name, **kwargs)

    def _resource_apply_dense(self, grad, var, apply_state=None):
        var.assign_sub(grad * self._decayed_lr(var.dtype.base_dtype))


@pytest.mark.parametrize("kwargs,lr", [(dict(lr=0.5), 0.5), (dict(learning_rate=0.25), 0.25),
                                       (dict(learning_rate=0.5, decay=1.0), 0.5)])
def test_legacy_optimizer_takes_tf2_arguments(kwargs, lr):
    w = ds.Variable([1.0], name="w")
    opt = _PlainSGD(**kwargs)
    opt.apply_gradients([(ds.constant([1.0]), w)])
    opt.apply_gradients([(ds.constant([1.0]), w)])
    decay = kwargs.get("decay", 0.0)
    assert opt.name == "PlainSGD" and opt.get_config().get("decay", 0.0) == decay
    np.testing.assert_allclose(w.numpy(), [1.0 - lr - lr / (1.0 + decay)], rtol=1e-6)


# ------------------------------------------------------------------------------ file names say what they hold
#: file names of optimizers/ and compat/ still repeated elsewhere in descend/, and why
REPEATED = {
    "optimizer.py": "compat/v1/optimizer.py is imported by path by the TF 1 checkpoint reader (another package)",
    "options.py": "descend.optimizers.options.Options is a documented public path (docs/api.md)",
    "pipeline.py": "descend.optimizers.pipeline is public (STAGES, Aggregation used by distribute/)",
    "train.py": "descend.compat.v1.train is TF's public tf.compat.v1.train",
}


def test_file_names_of_the_optimizers_are_not_repeated():
    everywhere = Counter(p.name for p in ROOT.rglob("*.py") if p.name != "__init__.py")
    mine = {p.name for d in ("optimizers", "compat") for p in (ROOT / d).rglob("*.py")}
    assert {n for n in mine if everywhere[n] > 1} == set(REPEATED)


# ------------------------------------------------------------------------------ names: one look-up, the registry's
def test_optimizer_names_are_looked_up_in_the_registry_only():
    from descend.persistence.registry import builtin_objects

    # no table of optimizer classes beside the registry in descend.optimizers
    tables = [name for name, value in vars(O).items() if isinstance(value, dict) and value
              and all(isinstance(v, type) and issubclass(v, O.Optimizer) for v in value.values())]
    assert tables == []
    registered = {n: c for n, c in builtin_objects("optimizers").items()
                  if isinstance(c, type) and issubclass(c, O.Optimizer) and c is not O.Optimizer}
    assert {"SGD", "Adam", "ScheduleFreeAdamW"} <= set(registered)
    for name, cls in registered.items():  # every registered optimizer, by name in any case and by config
        assert type(O.get(name.lower())) is cls and type(O.get(name.upper())) is cls
        assert type(O.get({"class_name": name, "config": cls().get_config()})) is cls
    with pytest.raises(ValueError, match=r"Unknown optimizer 'nope'. Known: \[.*'schedulefreeadamw'"):
        O.get("nope")
