"""``fit`` under ``mpiexec -n 2`` and ``-n 3`` equals one process with the same global batch, option by
option: one table, every rank comparing its replicated fit with a one-process fit of the same initial
weights (float32: weights and loss history to 1e-5; mixed_float16: 2e-3).

Run as a script by the tests below (``mpi_jobs``); each scenario returns, per option, the largest
relative differences of the weights and of the history, and the final weights' digest.
"""

from __future__ import annotations

import hashlib
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_jobs  # noqa: E402
from mpi_jobs import needs_mpi  # noqa: E402

ROWS, BATCH, EPOCHS = 42, 10, 3  # uneven splits, and a last batch of 2 rows (at 3 ranks one replica gets none)


def _rel(a, b) -> float:
    """The largest difference relative to the tensor's (or history's) largest value."""
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return float(np.max(np.abs(a - b)) / max(np.max(np.abs(b)), 1e-12)) if a.size else 0.0


def _options(ds):
    """name -> (build the model, compile keyword arguments, fit keyword arguments, dtype policy)."""
    L = ds.layers

    def dense(units=2):
        return [L.Dense(8, activation="tanh", kernel_regularizer=ds.regularizers.L2(0.01)), L.Dense(units)]

    class OwnStep(ds.Sequential):
        """A Keras 3 ``train_step`` override: its own tape, compute_loss, optimizer.apply and metrics."""

        def train_step(self, data):
            x, y = data
            with ds.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(x=x, y=y, y_pred=y_pred)
            self.optimizer.apply(tape.gradient(loss, self.trainable_variables), self.trainable_variables)
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    def adamw_excluding_bias():
        opt = ds.optimizers.AdamW(0.01, weight_decay=0.1)
        opt.exclude_from_weight_decay(var_names=["bias"])
        return opt

    return {
        "plain_sgd": (lambda: ds.Sequential(dense()), {"optimizer": lambda: ds.optimizers.SGD(0.1)}, {}, None),
        # float16 gradients summed in another order (per replica, then across) round differently: one epoch
        "mixed_float16": (lambda: ds.Sequential(dense()), {"optimizer": lambda: ds.optimizers.SGD(0.1)}, {"epochs": 1},
                          "mixed_float16"),
        "gradient_accumulation": (lambda: ds.Sequential(dense()), {
            "optimizer": lambda: ds.optimizers.Adam(0.01, gradient_accumulation_steps=2)}, {}, None),
        "global_clipnorm": (lambda: ds.Sequential(dense()), {
            "optimizer": lambda: ds.optimizers.Adam(0.01, global_clipnorm=0.05)}, {}, None),
        "use_ema": (lambda: ds.Sequential(dense()), {
            "optimizer": lambda: ds.optimizers.Adam(0.01, use_ema=True, ema_momentum=0.9)}, {}, None),
        "adamw_exclusion": (lambda: ds.Sequential(dense()), {"optimizer": adamw_excluding_bias}, {}, None),
        "metrics": (lambda: ds.Sequential(dense(3)), {
            "optimizer": lambda: ds.optimizers.Adam(0.01),
            "loss": ds.losses.SparseCategoricalCrossentropy(from_logits=True),
            "metrics": ["accuracy", ds.metrics.SparseCategoricalCrossentropy(from_logits=True, name="xent")]},
            {"classes": 3}, None),
        # its loss metric averages the per-call losses, as Keras' guide writes it: that is the global batch's
        # loss when every replica gets the same number of rows (12 = 6 + 6 = 4 + 4 + 4)
        "own_train_step": (lambda: OwnStep(dense()), {"optimizer": lambda: ds.optimizers.Adam(0.01),
                                                      "metrics": ["mae"]}, {"batch_size": 12}, None),
        "loss_scale_optimizer": (lambda: ds.Sequential(dense()), {
            "optimizer": lambda: ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(0.1), initial_scale=2.0 ** 10,
                                                                  dynamic_growth_steps=3)}, {}, None),
    }


def _fit_table(ds, out):
    from descend import mixed_precision

    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    results = {}
    for name, (build, compile_args, fit_args, policy) in _options(ds).items():
        mixed_precision.set_global_policy(policy or "float32")
        ds.random.set_seed(11)  # the same initial weights in every run
        rng = np.random.default_rng(7)
        x = rng.normal(size=(ROWS, 5)).astype(np.float32)
        classes = fit_args.get("classes")
        y = rng.integers(0, classes, size=ROWS) if classes else rng.normal(size=(ROWS, 2)).astype(np.float32)
        kwargs = dict(compile_args)

        def make(kwargs=kwargs, build=build):
            model = build()
            model(ds.constant(x[:1]))
            model.compile(**{"loss": "mse", **kwargs, "optimizer": kwargs["optimizer"]()})
            return model

        with strategy.scope():
            dist = make()
        ref = make()
        initial = dist.get_weights()
        ref.set_weights(initial)
        histories = {}
        for label, m in (("dist", dist), ("ref", ref)):
            histories[label] = m.fit(x, y, batch_size=fit_args.get("batch_size", BATCH),
                                     epochs=fit_args.get("epochs", EPOCHS), shuffle=True, seed=1, verbose=0).history
        wd, wr = dist.get_weights(), ref.get_weights()
        results[name] = {
            "weights": max(_rel(a, b) for a, b in zip(wd, wr)),
            "history": max(_rel(histories["dist"][k], histories["ref"][k]) for k in histories["ref"]),
            "keys": sorted(histories["dist"]) == sorted(histories["ref"]),
            "moved": max(float(np.max(np.abs(np.asarray(a, np.float64) - b))) for a, b in zip(wd, initial)),
            "digest": hashlib.sha256(b"".join(np.ascontiguousarray(a).tobytes() for a in wd)).hexdigest(),
            "history_keys": sorted(histories["dist"]),
            "plans": _plans(dist),
        }
    mixed_precision.set_global_policy("float32")
    ds.random.set_seed(None)
    return results


def _plans(model) -> int:
    """How many of the replicated fit's training-step signatures ran as a compiled plan (not op by op)."""
    traced = getattr(model.step_function("train"), "traced", None)
    if traced is None:
        return 0
    return sum(cf.eager is None for cf in traced._list_all_concrete_functions())


def _nonfinite_fit(ds, out):
    """A NaN in one rank's rows of a batch, in a compiled replicated ``fit``: every rank skips that step (an
    optimizer with ``on_nonfinite="skip"``, a LossScaleOptimizer) or raises in it (the default), together."""
    strategy = ds.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40, 5)).astype(np.float32)
    y = rng.normal(size=(40, 2)).astype(np.float32)
    x[13, 2] = np.nan  # in the second batch: one rank's rows when the batch is split
    results = {}
    for name, make in (("skip", lambda: ds.optimizers.SGD(0.1, on_nonfinite="skip")),
                       ("loss_scale", lambda: ds.optimizers.LossScaleOptimizer(ds.optimizers.SGD(0.1))),
                       ("raise", lambda: ds.optimizers.SGD(0.1))):
        with strategy.scope():
            ds.random.set_seed(3)
            model = ds.Sequential([ds.keras.Input((5,)), ds.layers.Dense(2)])
            model.compile(optimizer=make(), loss="mse")
        try:
            model.fit(x, y, batch_size=10, epochs=1, shuffle=False, verbose=0)
            error = None
        except ds.errors.InvalidArgumentError:
            error = "InvalidArgumentError"
        results[name] = {"error": error, "iterations": int(model.optimizer.iterations.numpy()),
                         "digest": hashlib.sha256(b"".join(w.tobytes() for w in model.get_weights())).hexdigest(),
                         "weights": [w.tolist() for w in model.get_weights()], "plans": _plans(model)}
    return results


SCENARIOS = {"fit_table": _fit_table, "nonfinite_fit": _nonfinite_fit}

TOLERANCE = {"mixed_float16": 2e-3}
#: the options whose replicated training step compiles (a user's own train_step runs as written)
COMPILED = {"plain_sgd", "gradient_accumulation", "global_clipnorm", "use_ema", "adamw_exclusion", "metrics",
            "loss_scale_optimizer", "mixed_float16"}
OPTIONS = ["plain_sgd", "mixed_float16", "gradient_accumulation", "global_clipnorm", "use_ema", "adamw_exclusion",
           "metrics", "own_train_step", "loss_scale_optimizer"]


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    if mpi_jobs.MPIEXEC is None:
        pytest.skip("mpiexec/mpi4py not installed (pip install 'descend[mpi]', which the test extra includes)")
    out = {}
    for n in (2, 3):
        d = tmp_path_factory.mktemp(f"fit{n}")
        out[n] = mpi_jobs.run(__file__, n, ["fit_table"], d, timeout=600)
    return out


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("option", OPTIONS)
def test_fit_under_a_strategy_equals_one_process(table, n, option):
    tol = TOLERANCE.get(option, 1e-5)
    for rank, res in enumerate(table[n]):
        r = res["fit_table"][option]
        assert r["keys"], r["history_keys"]
        assert r["weights"] <= tol, (rank, r)
        assert r["history"] <= tol, (rank, r)
    assert table[n][0]["fit_table"][option]["moved"] > 1e-3  # it trained
    assert len({res["fit_table"][option]["digest"] for res in table[n]}) == 1  # every rank holds the same weights
    assert {"accuracy", "loss", "xent"} <= set(table[n][0]["fit_table"]["metrics"]["history_keys"])
    if option in COMPILED:  # the replicated step ran as a plan, the exchange inside its optimizer stage
        assert all(res["fit_table"][option]["plans"] >= 1 for res in table[n]), [
            res["fit_table"][option]["plans"] for res in table[n]]


@needs_mpi
def test_a_nan_on_one_rank_in_a_compiled_fit_is_skipped_or_raised_on_every_rank(tmp_path):
    runs = {}
    for n in (1, 2, 3):
        (tmp_path / f"n{n}").mkdir()
        runs[n] = mpi_jobs.run(__file__, n, ["nonfinite_fit"], tmp_path / f"n{n}", timeout=300)
    one = runs[1][0]["nonfinite_fit"]
    assert one["skip"]["iterations"] == one["loss_scale"]["iterations"] == 3  # 4 batches, one skipped
    assert one["raise"]["error"] == "InvalidArgumentError" and one["raise"]["iterations"] == 1
    for n in (2, 3):
        for name in ("skip", "loss_scale", "raise"):
            assert len({res["nonfinite_fit"][name]["digest"] for res in runs[n]}) == 1  # every rank alike
            for res in runs[n]:
                got = res["nonfinite_fit"][name]
                assert got["plans"] >= 1, (n, name)  # the replicated step ran compiled
                # as one process: the same steps taken, the same error, the weights (summed in another order)
                assert (got["error"], got["iterations"]) == (one[name]["error"], one[name]["iterations"]), (n, name)
                assert max(_rel(a, b) for a, b in zip(got["weights"], one[name]["weights"])) <= 1e-5, (n, name)


if __name__ == "__main__":
    mpi_jobs.rank_main(SCENARIOS, sys.argv)
