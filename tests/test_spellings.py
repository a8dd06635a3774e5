"""One optimizer -- SGD with momentum -- written in each of the three spellings (a declared rule, Keras 3's
``build``/``update_step``, TF 2's hooks) behaves the same as the built-in ``SGD(momentum=...)`` in every
situation the pipeline handles: dense and sparse gradients, gradient accumulation, a strategy (one
process, and ``mpiexec -n 2``), a checkpoint round trip, and the batched path."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_jobs  # noqa: E402

LR, MU = 0.05, 0.875


def _spellings(ds):
    from descend.optimizers import Optimizer, Slot

    def momentum_rule(param, grad, momentum, *, learning_rate, mu):
        # m <- mu m - lr g ; param <- param + m
        momentum = momentum * mu - grad * learning_rate
        return param + momentum, momentum

    class RuleMomentum(Optimizer):
        slots = (Slot("momentum"),)
        update = staticmethod(momentum_rule)

        def __init__(self, learning_rate=0.01, momentum=0.9, **kwargs):
            super().__init__(learning_rate=learning_rate, **kwargs)
            self.add_hyperparameter("momentum", momentum, low=0, high=1)

        def coefficients(self, step, hyper, dtype):
            return {"learning_rate": dtype.type(hyper["learning_rate"]), "mu": dtype.type(hyper["momentum"])}

        def get_config(self):
            return super().get_config()

    class KerasMomentum(Optimizer):
        def __init__(self, learning_rate=0.01, momentum=0.9, **kwargs):
            super().__init__(learning_rate=learning_rate, **kwargs)
            self.momentum = momentum

        def build(self, variables):
            if self.built:
                return
            super().build(variables)
            self.momentums = [self.add_variable_from_reference(v, name="momentum") for v in variables]

        def update_step(self, gradient, variable, learning_rate):
            m = self.momentums[self._get_variable_index(variable)]
            self.assign(m, -gradient * ds.cast(learning_rate, variable.dtype) + m * ds.cast(self.momentum,
                                                                                           variable.dtype))
            self.assign_add(variable, m)

    class TF2Momentum(Optimizer):
        def __init__(self, learning_rate=0.01, momentum=0.9, name="TF2Momentum", **kwargs):
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

        def _resource_apply_sparse(self, grad, var, indices, apply_state=None):
            c = apply_state[("/cpu:0", var.dtype.base_dtype)]
            m = self.get_slot(var, "momentum")
            m.assign(m * c["momentum"])
            self._resource_scatter_add(m, indices, -grad * c["lr_t"])
            var.assign_add(m)

    return {"builtin": lambda **kw: ds.optimizers.SGD(LR, momentum=MU, **kw),
            "rule": lambda **kw: RuleMomentum(LR, momentum=MU, **kw),
            "keras3": lambda **kw: KerasMomentum(LR, momentum=MU, **kw),
            "tf2": lambda **kw: TF2Momentum(LR, momentum=MU, **kw)}


def _gradients(ds, steps, sparse, seed=3):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(steps):
        if sparse:
            out.append(ds.IndexedSlices(ds.constant(rng.normal(size=(3, 2))), ds.constant(rng.integers(0, 6, 3)),
                                        (6, 2)))
        else:
            out.append(ds.constant(rng.normal(size=(6, 2))))
    return out


def _train(ds, make, grads, weight=None, **kwargs):
    w = ds.Variable(np.linspace(-1, 1, 12).reshape(6, 2), name="w")
    opt = make(**kwargs)
    for g in grads:
        opt.apply_gradients([(g, w)])
    return w.numpy(), opt.get_slot(w, "momentum").numpy(), int(opt.iterations.numpy())


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "sparse"])
@pytest.mark.parametrize("accumulate", [None, 2], ids=["", "accumulation"])
@pytest.mark.parametrize("under_strategy", [False, True], ids=["", "strategy"])
def test_the_three_spellings_update_alike(sparse, accumulate, under_strategy):
    import descend as ds

    ds.clear_session()
    grads = _gradients(ds, 6, sparse)
    results = {}
    for name, make in _spellings(ds).items():
        kwargs = {} if accumulate is None else {"gradient_accumulation_steps": accumulate}
        if under_strategy:
            with ds.distribute.MultiWorkerMirroredStrategy().scope():
                results[name] = _train(ds, make, grads, **kwargs)
        else:
            results[name] = _train(ds, make, grads, **kwargs)
    ref = results["builtin"]
    assert ref[2] == (6 if accumulate is None else 3)
    for name, got in results.items():
        np.testing.assert_allclose(got[0], ref[0], rtol=1e-12, atol=1e-14, err_msg=name)
        np.testing.assert_allclose(got[1], ref[1], rtol=1e-12, atol=1e-14, err_msg=name)
        assert got[2] == ref[2], name


@pytest.mark.parametrize("spelling", ["builtin", "rule", "keras3", "tf2"])
def test_a_checkpoint_round_trip_continues_alike(spelling, tmp_path):
    import descend as ds

    ds.clear_session()
    make = _spellings(ds)[spelling]
    grads = _gradients(ds, 6, False)
    w_ref = ds.Variable(np.ones((6, 2)), name="w")
    ref = make()
    for g in grads:
        ref.apply_gradients([(g, w_ref)])
    w = ds.Variable(np.ones((6, 2)), name="w")
    first = make()
    for g in grads[:3]:
        first.apply_gradients([(g, w)])
    path = ds.train.Checkpoint(w=w, optimizer=first).write(tmp_path / "ckpt")
    w2 = ds.Variable(np.zeros((6, 2)), name="w")
    second = make()
    second.build([w2])
    ds.train.Checkpoint(w=w2, optimizer=second).read(path)
    assert int(second.iterations.numpy()) == 3
    for g in grads[3:]:
        second.apply_gradients([(g, w2)])
    np.testing.assert_array_equal(w2.numpy(), w_ref.numpy())
    np.testing.assert_array_equal(second.get_slot(w2, "momentum").numpy(), ref.get_slot(w_ref, "momentum").numpy())


@pytest.mark.parametrize("spelling", ["builtin", "rule", "keras3", "tf2"])
def test_the_batched_path_changes_nothing(spelling):
    import descend as ds
    from descend.optimizers import batched

    ds.clear_session()
    make = _spellings(ds)[spelling]
    grads = [ds.constant(np.asarray(g.numpy(), np.float32)) for g in _gradients(ds, 5, False)]

    def run(flag):
        previous = batched.set_enabled(flag)
        try:
            before = batched.stats["steps"]
            w = ds.Variable(np.ones((6, 2), np.float32), name="w")
            opt = make()
            for g in grads:
                opt.apply_gradients([(g, w)])
            return w.numpy(), batched.stats["steps"] - before
        finally:
            batched.set_enabled(previous)

    (on, batched_steps), (off, _) = run(True), run(False)
    np.testing.assert_array_equal(on, off)
    from descend.optimizers import fused

    # a declared rule takes the batched step from its second update on (with compiled kernels); hooks never do
    expected = 4 if spelling in ("builtin", "rule") and fused.enabled() else 0
    assert batched_steps == expected


# ------------------------------------------------------------------------------------------- two ranks
def _under_two_ranks(ds, out):
    """Each rank applies its half of a global batch's gradient (the strategy sums them): every spelling ends
    where the built-in one does, and where one process with the whole gradient ends."""
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    n, rank = strategy.num_replicas_in_sync, strategy.group.rank
    res = {}
    for sparse in (False, True):
        grads = _gradients(ds, 6, sparse)
        for name, make in _spellings(ds).items():
            ds.clear_session()
            with strategy.scope():
                w = ds.Variable(np.linspace(-1, 1, 12).reshape(6, 2), name="w")
                opt = make()
            for g in grads:
                share = g if not sparse else ds.IndexedSlices(g.values, g.indices, g.dense_shape)
                part = ds.constant(g.numpy() / n) if not sparse else ds.IndexedSlices(
                    ds.constant(share.values.numpy() / n), share.indices, share.dense_shape)
                strategy.run(lambda part=part: opt.apply_gradients([(part, w)]))
            res[f"{name}/{'sparse' if sparse else 'dense'}"] = w.numpy().tolist()
    res["rank"] = rank
    return res


SCENARIOS = {"two_ranks": _under_two_ranks}


@mpi_jobs.needs_mpi
def test_the_three_spellings_under_mpiexec_n_2(tmp_path):
    import descend as ds

    runs = mpi_jobs.run(__file__, 2, ["two_ranks"], tmp_path, timeout=300)
    for sparse in ("dense", "sparse"):
        grads = _gradients(ds, 6, sparse == "sparse")
        one_process = _train(ds, _spellings(ds)["builtin"], grads)[0]
        for run in runs:
            for name in ("builtin", "rule", "keras3", "tf2"):
                np.testing.assert_allclose(run["two_ranks"][f"{name}/{sparse}"], one_process, rtol=1e-12, atol=1e-14,
                                           err_msg=f"{name} {sparse}")


if __name__ == "__main__":
    mpi_jobs.rank_main(SCENARIOS, sys.argv)
