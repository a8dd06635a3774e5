"""One update path (issue 34, item 1): every optimizer class enters the update through one template,
``apply_gradients`` defined once, and ``descend.function`` compiles every one of them into one optimizer node
that gives the eager step's bits.

The classes are found programmatically -- every class the public namespaces export that derives from the
template, and every subclass of the template anywhere -- so a new class fails here until it is in the table."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest

import descend as ds
from descend import keras
from descend.compiler import FunctionEagerWarning
from descend.compiler.nodes import OptimizerNode
from descend.optimizers import Optimizer, Slot, bound
from descend.optimizers.template import UpdateTemplate

T1 = ds.compat.v1.train
NAMESPACES = {"descend.optimizers": ds.optimizers, "descend.optimizers.legacy": ds.optimizers.legacy,
              "descend.compat.v1.train": T1, "descend.mixed_precision": ds.mixed_precision,
              "descend.keras.optimizers": keras.optimizers}
#: the bases that declare no update of their own (a subclass gives one)
ABSTRACT = {Optimizer, ds.optimizers.legacy.OptimizerV2, T1.Optimizer}


# ------------------------------------------------------------------------------------------------ a user's subclasses
def momentum_rule(param, grad, momentum, *, learning_rate, mu):
    # m <- mu m - lr g ; param <- param + m
    momentum = momentum * mu - grad * learning_rate
    return param + momentum, momentum


class RuleMomentum(Optimizer):
    """descend's spelling: a declared rule."""

    slots = (Slot("momentum"),)
    update = staticmethod(momentum_rule)

    def __init__(self, learning_rate=0.05, momentum=0.875, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.add_hyperparameter("momentum", momentum, low=0, high=1)

    def coefficients(self, step, hyper, dtype):
        return {"learning_rate": dtype.type(hyper["learning_rate"]), "mu": dtype.type(hyper["momentum"])}


class KerasMomentum(Optimizer):
    """Keras 3's spelling: ``build`` and ``update_step``."""

    def __init__(self, learning_rate=0.05, momentum=0.875, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.momentums = [self.add_variable_from_reference(v, name="momentum") for v in variables]

    def update_step(self, gradient, variable, learning_rate):
        m = self.momentums[self._get_variable_index(variable)]
        self.assign(m, -gradient * ds.cast(learning_rate, variable.dtype) + m * ds.cast(self.momentum, variable.dtype))
        self.assign_add(variable, m)


class TF2Momentum(Optimizer):
    """TF 2's spelling: ``_create_slots`` and ``_resource_apply_dense``."""

    def __init__(self, learning_rate=0.05, momentum=0.875, name="TF2Momentum", **kwargs):
        super().__init__(name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("momentum", momentum)

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "momentum")

    def _prepare_local(self, var_device, var_dtype, apply_state):
        super()._prepare_local(var_device, var_dtype, apply_state)
        apply_state[(var_device, var_dtype)]["momentum"] = self._get_hyper("momentum", var_dtype)

    def _resource_apply_dense(self, grad, var, apply_state=None):
        c = apply_state[("/cpu:0", var.dtype.base_dtype)]
        m = self.get_slot(var, "momentum")
        m.assign(-grad * c["lr_t"] + m * c["momentum"])
        var.assign_add(m)


# ------------------------------------------------------------------------------------------------ the table
# class -> make(variables, global_step) -> (optimizer, the call arguments of apply_gradients)
O = ds.optimizers
FACTORIES = {
    O.Adadelta: lambda vs, gs: (O.Adadelta(1.0), {}),
    O.Adafactor: lambda vs, gs: (O.Adafactor(0.01), {}),
    O.Adagrad: lambda vs, gs: (O.Adagrad(0.1), {}),
    O.AdagradDecay: lambda vs, gs: (O.AdagradDecay(0.1, accumulator_decay_step=2), {}),
    O.Adam: lambda vs, gs: (O.Adam(0.01, amsgrad=True), {}),
    O.AdamW: lambda vs, gs: (O.AdamW(0.01, weight_decay=0.1), {}),
    O.AdamWeightDecay: lambda vs, gs: (O.AdamWeightDecay(0.01, weight_decay_rate=0.1,
                                                         exclude_from_weight_decay=["bias"]), {"clip_norm": 0.5}),
    O.Adamax: lambda vs, gs: (O.Adamax(0.01), {}),
    O.Ftrl: lambda vs, gs: (O.Ftrl(0.1, l1_regularization_strength=0.01), {}),
    O.Lamb: lambda vs, gs: (O.Lamb(0.01), {}),
    O.Lion: lambda vs, gs: (O.Lion(0.01, weight_decay=0.1), {}),
    O.ScheduleFreeAdamW: lambda vs, gs: (O.ScheduleFreeAdamW(0.01, warmup_steps=2, weight_decay=0.1), {}),
    O.Nadam: lambda vs, gs: (O.Nadam(0.01), {}),
    O.RMSprop: lambda vs, gs: (O.RMSprop(0.01, momentum=0.5, centered=True), {}),
    O.SGD: lambda vs, gs: (O.SGD(0.1, momentum=0.9, nesterov=True), {}),
    O.MultiOptimizer: lambda vs, gs: (O.MultiOptimizer([(O.SGD(0.1), vs[:2]), (O.Adam(0.01), vs[2:])]), {}),
    O.LossScaleOptimizer: lambda vs, gs: (O.LossScaleOptimizer(O.Adam(0.01), initial_scale=4.0,
                                                               dynamic_growth_steps=2), {}),
    T1.AdadeltaOptimizer: lambda vs, gs: (T1.AdadeltaOptimizer(1.0), {"global_step": gs}),
    T1.AdagradDAOptimizer: lambda vs, gs: (T1.AdagradDAOptimizer(0.1, global_step=gs), {"global_step": gs}),
    T1.AdagradDecayOptimizer: lambda vs, gs: (T1.AdagradDecayOptimizer(0.1, global_step=gs), {"global_step": gs}),
    T1.AdagradOptimizer: lambda vs, gs: (T1.AdagradOptimizer(0.1), {}),
    T1.AdamOptimizer: lambda vs, gs: (T1.AdamOptimizer(0.01), {"global_step": gs}),
    T1.FtrlOptimizer: lambda vs, gs: (T1.FtrlOptimizer(0.1), {}),
    T1.GradientDescentOptimizer: lambda vs, gs: (T1.GradientDescentOptimizer(0.1), {"global_step": gs}),
    T1.MomentumOptimizer: lambda vs, gs: (T1.MomentumOptimizer(0.1, 0.9, use_nesterov=True), {}),
    T1.ProximalAdagradOptimizer: lambda vs, gs: (T1.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01),
                                                 {}),
    T1.ProximalGradientDescentOptimizer: lambda vs, gs: (T1.ProximalGradientDescentOptimizer(0.1), {}),
    T1.RMSPropOptimizer: lambda vs, gs: (T1.RMSPropOptimizer(0.01, momentum=0.5, centered=True), {}),
    RuleMomentum: lambda vs, gs: (RuleMomentum(), {}),
    KerasMomentum: lambda vs, gs: (KerasMomentum(), {}),
    TF2Momentum: lambda vs, gs: (TF2Momentum(), {}),
}
SPELLINGS = {RuleMomentum: "rule", KerasMomentum: "keras3", TF2Momentum: "tf2"}


def _exported() -> set:
    found = set()
    for space in NAMESPACES.values():
        for name in dir(space):
            value = getattr(space, name)
            if inspect.isclass(value) and issubclass(value, UpdateTemplate):
                found.add(value)
    return found


def _every_subclass(cls=UpdateTemplate) -> set:
    out = {cls}
    for sub in cls.__subclasses__():
        out |= _every_subclass(sub)
    return out


def test_the_table_holds_every_exported_optimizer_class_and_each_spelling():
    exported = _exported()
    assert exported - ABSTRACT - set(FACTORIES) == set(), "an exported optimizer class missing from FACTORIES"
    assert ABSTRACT <= exported and len(exported - ABSTRACT) >= 26  # Keras, TF 1, Hugging Face, the wrappers
    assert {c._spelling for c in SPELLINGS} == {"rule", "keras3", "tf2"}
    assert {c for c in ABSTRACT if c._spelling != "none"} == set()  # (they declare no update)


def _mlp(seed=0):
    rng = np.random.default_rng(seed)
    shapes = [(5, 6), (6,), (6, 3), (3,)]
    names = ["dense/kernel", "dense/bias", "out/kernel", "out/bias"]
    return [ds.Variable((rng.standard_normal(s) * 0.5).astype(np.float32), name=n) for s, n in zip(shapes, names)]


def _batches():
    rng = np.random.default_rng(1)
    return [(ds.constant(rng.standard_normal((8, 5)).astype(np.float32)),
             ds.constant(rng.standard_normal((8, 3)).astype(np.float32))) for _ in range(3)]


def _train(cls, compiled: bool):
    """Three steps of the MLP; the variables, the global step and the step function."""
    vs = _mlp()
    global_step = ds.Variable(np.int64(0), name="global_step", trainable=False)
    opt, call = FACTORIES[cls](vs, global_step)
    scaled = isinstance(opt, ds.optimizers.LossScaleOptimizer)

    def step(x, y):
        with ds.GradientTape() as tape:
            h = ds.tanh(ds.matmul(x, vs[0]) + vs[1])
            loss = ds.reduce_mean(ds.square(ds.matmul(h, vs[2]) + vs[3] - y))
            if scaled:
                loss = opt.scale_loss(loss)
        opt.apply_gradients(zip(tape.gradient(loss, vs), vs), **call)
        return loss

    fn = ds.function(step) if compiled else step
    for x, y in _batches():
        fn(x, y)
    return vs, global_step, fn, opt


@pytest.mark.parametrize("cls", list(FACTORIES), ids=lambda c: f"{c.__module__.split('.')[-1]}.{c.__name__}")
def test_every_optimizer_compiles_into_one_node_with_the_eager_bits(cls):
    eager_vs, eager_step, _, eager_opt = _train(cls, compiled=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FunctionEagerWarning)  # no eager fallback
        got_vs, got_step, fn, opt = _train(cls, compiled=True)
    for a, b in zip(got_vs, eager_vs):
        assert a.numpy().tobytes() == b.numpy().tobytes(), a.name
    assert int(got_step.numpy()) == int(eager_step.numpy())
    iterations = getattr(opt, "iterations", None)
    if iterations is not None:
        assert int(iterations.numpy()) == int(eager_opt.iterations.numpy()) == 3
    x, _ = _batches()[0]
    graph = fn.get_concrete_function(x, _batches()[0][1]).graph
    nodes = [n for n in graph.nodes if isinstance(getattr(n, "payload", None), OptimizerNode)]
    assert len(nodes) == 1 and nodes[0].payload.optimizer is opt


def test_apply_gradients_is_defined_once_and_is_the_one_way_into_the_update():
    classes = _every_subclass() | set(FACTORIES)
    assert len(classes) > 30
    defining = {c for c in classes if "apply_gradients" in vars(c)}
    assert defining == {UpdateTemplate}, sorted(c.__qualname__ for c in defining)
    entrance = UpdateTemplate.apply_gradients
    assert entrance.__descend_opaque__ == "optimizer"  # what descend.function records as one node
    for cls in classes:
        assert cls.apply_gradients is entrance, cls
        for name in ("apply", "minimize"):  # the other public ways in call it; they are not marked for a trace
            method = getattr(cls, name, None)
            assert method is None or not hasattr(method, "__descend_opaque__"), (cls, name)


WAYS = [(c, way) for c in FACTORIES for way in ("apply_gradients", "apply", "minimize")
        if not (way == "minimize" and c is ds.optimizers.MultiOptimizer)]  # (a MultiOptimizer has no minimize)


@pytest.mark.parametrize("cls, way", WAYS, ids=[f"{c.__name__}-{w}" for c, w in WAYS])
def test_each_public_way_reaches_the_update_once_through_the_bound_plan(cls, way, monkeypatch):
    vs = _mlp()
    global_step = ds.Variable(np.int64(0), name="global_step", trainable=False)
    opt, call = FACTORIES[cls](vs, global_step)
    calls = []
    for plan_cls in {type(opt.bind(vs)), bound.BoundUpdate}:
        real = plan_cls.prepare
        monkeypatch.setattr(plan_cls, "prepare",
                            lambda self, pairs, _real=real, **kw: (calls.append(type(self)), _real(self, pairs, **kw))[1])
    x, y = _batches()[0]

    def loss():
        return ds.reduce_mean(ds.square(ds.matmul(ds.tanh(ds.matmul(x, vs[0]) + vs[1]), vs[2]) + vs[3] - y))

    with ds.GradientTape() as tape:
        value = loss()
    grads = tape.gradient(value, vs)
    before = [v.numpy() for v in vs]
    if way == "apply_gradients":
        opt.apply_gradients(zip(grads, vs), **call)
    elif way == "apply":
        opt.apply(grads, vs)
    else:
        if isinstance(opt, T1.Optimizer):
            opt.minimize(loss, var_list=vs)
        else:
            opt.minimize(loss, vs)
    assert calls and calls[0] is type(opt.bind(vs))  # the optimizer's bound plan, first and once
    assert calls.count(calls[0]) == 1
    assert any((v.numpy() != b).any() for v, b in zip(vs, before))


def test_bind_is_cached_per_variable_list_and_says_what_it_runs():
    vs = _mlp()
    opt = ds.optimizers.Adam(0.01)
    plan = opt.bind(vs)
    assert plan is opt.bind(list(vs)) and plan is not opt.bind(vs[::-1])
    assert [s.name for s in plan.stages()] == ["validate", "check_input", "clip", "check_applied", "resolve", "update",
                                               "count"]
    assert plan.batchable()
    opt.clipnorm = 1.0  # an option with no batched form: the stage says so, no list of options does
    assert not plan.batchable()
    opt.clipnorm = None
    opt.use_ema = True
    assert "ema" in [s.name for s in plan.stages()] and not plan.batchable()
    with pytest.raises(ValueError, match="ema_momentum"):
        opt.ema_momentum = 2.0  # checked as the constructor checks; nothing changes
    assert opt.ema_momentum == 0.99 and opt.options.use_ema


def test_the_options_are_one_frozen_object_behind_get_config():
    opt = ds.optimizers.SGD(0.1, clipvalue=0.5, on_nonfinite="skip", gradient_accumulation_steps=2)
    options = opt.options
    with pytest.raises(AttributeError):
        options.clipvalue = 1.0  # frozen
    config = opt.get_config()
    for name, value in options.config().items():
        if name != "sparse_updates":
            assert config[name] == value, name
    again = ds.optimizers.SGD.from_config(config)
    assert again.options == options.replace(sparse_updates=config["sparse_updates"])
    with pytest.raises(ValueError, match="Only one of `clipnorm`, `clipvalue` and `global_clipnorm`"):
        opt.clipnorm = 1.0
    assert opt.options is options


@pytest.mark.parametrize("bad, message", [
    (dict(global_step=1.0), "step counter must be a descend.Variable"),
    (dict(weights=2.0), "unexpected keyword argument 'weights'"),
])
def test_a_wrong_call_argument_changes_nothing(bad, message):
    vs = _mlp()
    opt = T1.GradientDescentOptimizer(0.1)
    grads = [ds.ones_like(v) for v in vs]
    before = [v.numpy() for v in vs]
    with pytest.raises(TypeError, match=message):
        opt.apply_gradients(zip(grads, vs), **bad)
    assert all((v.numpy() == b).all() for v, b in zip(vs, before))
    with pytest.raises(TypeError, match="takes 2 positional argument"):
        opt.apply_gradients(zip(grads, vs), None, None, None)


@pytest.mark.parametrize("kind", ["multi_sparse", "loss_scale_skips"])
def test_the_wrappers_compositions_compile_with_the_eager_bits(kind):
    """A MultiOptimizer over a sparse (embedding) and a dense share, and a LossScaleOptimizer whose scale
    overflows the loss (skipped steps halve it, finite ones double it): compiled as eager, bit for bit."""

    def run(compiled):
        rng = np.random.default_rng(0)
        table = ds.Variable(rng.standard_normal((10, 3)).astype(np.float32), name="embedding")
        w = ds.Variable(rng.standard_normal((3, 1)).astype(np.float32), name="w")
        vs = [table, w]
        if kind == "multi_sparse":
            opt = O.MultiOptimizer([(O.Adagrad(0.1), [table]), (O.Adam(0.1), "w")])
        else:
            opt = O.LossScaleOptimizer(O.Adam(0.1), initial_scale=2.0 ** 126, dynamic_growth_steps=1)

        def step(ids, y):
            with ds.GradientTape() as tape:
                loss = ds.reduce_sum(ds.square(ds.matmul(ds.nn.embedding_lookup(table, ids), w) - y))
                if kind == "loss_scale_skips":
                    loss = opt.scale_loss(loss)
            opt.apply_gradients(zip(tape.gradient(loss, vs), vs))

        fn = ds.function(step) if compiled else step
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # (the overflowing loss)
            warnings.simplefilter("error", FunctionEagerWarning)
            for k in range(6):
                fn(ds.constant([k % 10, (k + 3) % 10, k % 10]), ds.constant(np.full((3, 1), k, np.float32)))
        scale = [float(opt.dynamic_scale.numpy()), int(opt.iterations.numpy())] if kind == "loss_scale_skips" else []
        return [v.numpy().tobytes() for v in vs], scale

    eager, compiled = run(False), run(True)
    assert eager == compiled
    if kind == "loss_scale_skips":
        assert 0 < eager[1][1] < 6  # some steps were skipped, some applied
