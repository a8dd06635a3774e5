"""ZeRO stage 1 (``shard_optimizer_state=True``) under ``mpiexec -n 2`` and ``-n 3``, launched from pytest.

Run as a script (``mpiexec -n N python tests/test_zero.py SCENARIO OUTDIR``) this file is the job each rank
runs; as a test module it launches those jobs and checks what every rank wrote. The models are small float64
MLPs, so each job takes seconds.
"""

from __future__ import annotations

import json
import os
import sys

import mpi_jobs
import numpy as np
import pytest
from mpi_jobs import MPIEXEC, needs_mpi

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
STEPS = 20
GLOBAL_BATCH = 12  # split 6/6 over 2 ranks, 4/4/4 over 3
SIZES = [(10, 12), (12,), (12, 12), (12,), (12, 10), (10,)]


# =============================================================================================== the rank side
def _data(steps=STEPS, micro=1):
    rng = np.random.default_rng(5)
    n = steps * micro * GLOBAL_BATCH
    return rng.normal(size=(n, 10)), rng.integers(0, 30, size=(n, 2)), rng.normal(size=(n, 10))


def _model(ds, *, embedding=False, seed=3):
    rng = np.random.default_rng(seed)
    vs = [ds.Variable(rng.normal(size=s) * (0.3 if len(s) == 2 else 0.1), name=f"mlp/v{i}")
          for i, s in enumerate(SIZES)]
    if embedding:
        vs.append(ds.Variable(rng.normal(size=(30, 10)) * 0.1, name="mlp/embedding"))
    return vs


def _loss(ds, vs, x, ids, y, nan=False):
    h = ds.constant(x)
    if len(vs) > len(SIZES):  # rows of an embedding: an IndexedSlices gradient (the replicated, unsharded path)
        h = h + ds.reduce_sum(ds.gather(vs[-1], ds.constant(ids)), axis=1)
    for i in range(0, len(SIZES), 2):
        h = ds.matmul(h, vs[i]) + vs[i + 1]
        if i + 2 < len(SIZES):
            h = ds.tanh(h)
    per = ds.reduce_sum(ds.square(h - ds.constant(y)), axis=1)
    loss = ds.nn.compute_average_loss(per, global_batch_size=GLOBAL_BATCH)
    return loss * float("nan") if nan else loss


CASES = {
    "adam": lambda ds, **kw: ds.optimizers.Adam(0.01, **kw),
    "sgd_momentum": lambda ds, **kw: ds.optimizers.SGD(0.05, momentum=0.9, nesterov=True, **kw),
    "adamw_clipnorm": lambda ds, **kw: ds.optimizers.AdamW(
        ds.optimizers.schedules.ExponentialDecay(0.02, decay_steps=5, decay_rate=0.7), weight_decay=0.05,
        global_clipnorm=0.3, **kw),
    "adam_accumulate": lambda ds, **kw: ds.optimizers.Adam(0.01, gradient_accumulation_steps=2, **kw),
    "adam_embedding": lambda ds, **kw: ds.optimizers.Adam(0.01, **kw),
}


def _bounds(strategy):
    if strategy is None:
        return 0, GLOBAL_BATCH
    n, r = strategy.num_replicas_in_sync, strategy.group.rank
    return r * GLOBAL_BATCH // n, (r + 1) * GLOBAL_BATCH // n


def _steps(ds, strategy, vs, opt, data, first, last, nan_at=None):
    x, ids, y = data
    a, b = _bounds(strategy)
    for step in range(first, last):
        sl = slice(step * GLOBAL_BATCH + a, step * GLOBAL_BATCH + b)

        def fn(sl=sl, step=step):
            with ds.GradientTape() as tape:
                loss = _loss(ds, vs, x[sl], ids[sl], y[sl], nan=nan_at is not None and step == nan_at)
            opt.apply_gradients(zip(tape.gradient(loss, vs), vs))

        if strategy is None:
            fn()
        else:
            strategy.run(fn)


def _run(ds, case, strategy, *, embedding=False, **kw):
    micro = 2 if case == "adam_accumulate" else 1
    if strategy is None:
        vs, opt = _model(ds, embedding=embedding), CASES[case](ds, **kw)
    else:
        with strategy.scope():
            vs, opt = _model(ds, embedding=embedding, seed=3 + strategy.group.rank), CASES[case](ds, **kw)
    _steps(ds, strategy, vs, opt, _data(micro=micro), 0, STEPS * micro)
    return vs, opt


def _digest(vs):
    return [float(np.sum(v.numpy() * np.arange(v.numpy().size).reshape(v.shape))).hex() for v in vs]


def _slots(opt, vs):
    from descend.distribute import zero

    held = []
    for v in vs:
        try:
            opt.get_slot(v, opt.get_slot_names()[0])
            held.append(v.scoped_name)
        except KeyError:
            pass
    return {"bytes": zero.slot_bytes(opt), "held": held, "owners": zero.owners(opt)}


def _equivalence(ds, out):
    zero_strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=True)
    mirrored = ds.distribute.MultiWorkerMirroredStrategy()
    results = {}
    for case in CASES:
        embedding = case == "adam_embedding"
        zv, zopt = _run(ds, case, zero_strategy, embedding=embedding)
        mv, mopt = _run(ds, case, mirrored, embedding=embedding)
        rv, _ = _run(ds, case, None, embedding=embedding)
        init = _model(ds, embedding=embedding)
        results[case] = {
            "bitwise_vs_mirrored": all(np.array_equal(a.numpy(), b.numpy()) for a, b in zip(zv, mv)),
            "rel_vs_one_process": max(float(np.max(np.abs(a.numpy() - b.numpy())) / np.max(np.abs(b.numpy())))
                                      for a, b in zip(zv, rv)),
            "moved": min(float(np.max(np.abs(a.numpy() - b.numpy()))) for a, b in zip(zv, init)),
            "digest": _digest(zv),
            "iterations": int(zopt.iterations.numpy()),
            "zero": _slots(zopt, zv),
            "mirrored_slot_bytes": _slots(mopt, mv)["bytes"],
            "sizes": {v.scoped_name: int(v.numpy().nbytes) for v in zv},
        }
        ds.clear_session()
    return results


CKPT_STEPS = 10


def _ckpt_save(ds, out):
    """3 ranks with ZeRO: 10 steps, a collective checkpoint, 10 more; rank 0 also writes an unsharded checkpoint
    of a one-process run after 10 steps."""
    strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=True)
    with strategy.scope():
        vs, opt = _model(ds), CASES["adamw_clipnorm"](ds)
    data = _data()
    _steps(ds, strategy, vs, opt, data, 0, CKPT_STEPS)
    ds.train.Checkpoint(variables=vs, optimizer=opt).write(os.path.join(out, "zero_ckpt"))
    _steps(ds, strategy, vs, opt, data, CKPT_STEPS, STEPS)
    if strategy.group.rank == 0:
        pv, popt = _model(ds), CASES["adamw_clipnorm"](ds)
        _steps(ds, None, pv, popt, data, 0, CKPT_STEPS)
        ds.train.Checkpoint(variables=pv, optimizer=popt).write(os.path.join(out, "plain_ckpt"))
    strategy.group.barrier()
    return {"digest": _digest(vs), "weights": [v.numpy().tolist() for v in vs], "slots": _slots(opt, vs)}


def _ckpt_restore(ds, out):
    """Restore the 3-rank checkpoint here (ZeRO under mpiexec, no strategy in one process), 10 more steps; and
    under mpiexec the unsharded one into ZeRO."""
    from descend.distribute import comm

    src = os.environ["DESCEND_TEST_CKPT"]
    strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=True) if comm.world().size > 1 \
        else None
    res = {}
    for name in ("zero_ckpt", "plain_ckpt") if strategy is not None else ("zero_ckpt",):
        if strategy is None:
            vs, opt = _model(ds, seed=11), CASES["adamw_clipnorm"](ds)
        else:
            with strategy.scope():
                vs, opt = _model(ds, seed=11), CASES["adamw_clipnorm"](ds)
        ds.train.Checkpoint(variables=vs, optimizer=opt).read(os.path.join(src, name))
        restored_iterations = int(opt.iterations.numpy())
        _steps(ds, strategy, vs, opt, _data(), CKPT_STEPS, STEPS)
        res[name] = {"digest": _digest(vs), "weights": [v.numpy().tolist() for v in vs],
                     "iterations": restored_iterations, "slots": _slots(opt, vs),
                     "pending": opt.pending_state()}
        ds.clear_session()
    return res


def _nonfinite(ds, out):
    """A NaN gradient on the last rank only, at step 3: skipped on every rank ("skip"), raised on every rank
    with nothing changed ("raise"); a sum that overflows only after the reduce-scatter: skipped everywhere."""
    strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=True)
    n, rank = strategy.num_replicas_in_sync, strategy.group.rank
    data = _data()
    res = {}
    with strategy.scope():
        vs, opt = _model(ds), CASES["adam"](ds, on_nonfinite="skip")
    _steps(ds, strategy, vs, opt, data, 0, 3)
    _steps(ds, strategy, vs, opt, data, 3, 4, nan_at=3 if rank == n - 1 else None)
    _steps(ds, strategy, vs, opt, data, 4, 6)
    res["skip"] = {"skipped": opt.skipped_steps, "iterations": int(opt.iterations.numpy()), "digest": _digest(vs)}
    # the same run without step 3, one process: the skipped step changed nothing anywhere
    rv, ropt = _model(ds), CASES["adam"](ds)
    _steps(ds, None, rv, ropt, data, 0, 3)
    _steps(ds, None, rv, ropt, data, 4, 6)
    res["skip"]["rel_vs_without_step"] = max(float(np.max(np.abs(a.numpy() - b.numpy()))) for a, b in zip(vs, rv))
    ds.clear_session()

    with strategy.scope():
        vs, opt = _model(ds), CASES["adam"](ds)  # on_nonfinite="raise"
    _steps(ds, strategy, vs, opt, data, 0, 3)
    before = [v.numpy().copy() for v in vs] + [s.numpy().copy() for s in opt.variables]
    try:
        _steps(ds, strategy, vs, opt, data, 3, 4, nan_at=3 if rank == n - 1 else None)
        res["raise"] = {"raised": None}
    except ds.errors.InvalidArgumentError as e:
        after = [v.numpy() for v in vs] + [s.numpy() for s in opt.variables]
        res["raise"] = {"raised": str(e), "unchanged": all(np.array_equal(a, b) for a, b in zip(before, after))}
    _steps(ds, strategy, vs, opt, data, 4, 6)  # every rank carries on together
    res["raise"]["iterations"] = int(opt.iterations.numpy())
    res["raise"]["digest"] = _digest(vs)
    ds.clear_session()

    with strategy.scope():
        w = ds.Variable(np.zeros(4), name="w")
        u = ds.Variable(np.zeros(4), name="u")
        opt = ds.optimizers.SGD(0.1, on_nonfinite="skip")
    big = np.full(4, 1e308)  # finite on every rank; the sum overflows on the owner only
    strategy.run(lambda: opt.apply_gradients([(big, w), (np.ones(4), u)]))
    res["overflow"] = {"skipped": opt.skipped_steps, "w": w.numpy().tolist(), "u": u.numpy().tolist()}
    return res


def _fit(ds, out):
    """``fit`` (uneven splits: 41 rows, global batch 10) under ZeRO and under the unsharded strategy, from the
    same weights; and use_ema refused on every rank."""
    ds.set_floatx("float64")
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=(41, 5)), rng.normal(size=(41, 2))
    res = {}
    for name, shard in (("zero", True), ("mirrored", False)):
        strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=shard)
        with strategy.scope():
            model = ds.Sequential([ds.layers.Dense(8, activation="tanh"), ds.layers.Dense(2)])
            model(ds.constant(x[:1]))
            model.compile(optimizer=ds.optimizers.Adam(0.01, global_clipnorm=0.5), loss="mse", metrics=["mae"])
        model.set_weights([np.random.default_rng(9).normal(size=w.shape) * 0.3 for w in model.get_weights()])
        h = model.fit(x, y, batch_size=10, epochs=3, shuffle=True, seed=1, verbose=0)
        res[name] = {"history": h.history, "weights": [w.tolist() for w in model.get_weights()]}
        if shard:  # BackupAndRestore under ZeRO: every rank writes the slots it owns into each backup
            try:
                model.fit(x, y, batch_size=10, epochs=1, verbose=0,
                          callbacks=[ds.callbacks.BackupAndRestore(os.path.join(out, "backup"))])
                latest = ds.train.latest_checkpoint(os.path.join(out, "backup"))
                res["backup"] = sorted(os.listdir(latest))
            except ValueError as e:
                res["backup"] = str(e)
        ds.clear_session()
    ds.set_floatx("float32")
    strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=True)
    with strategy.scope():
        w = ds.Variable(np.zeros(3), name="w")
        opt = ds.optimizers.Adam(0.1, use_ema=True)
    try:
        strategy.run(lambda: opt.apply_gradients([(np.ones(3), w)]))
        res["ema"] = None
    except ValueError as e:
        res["ema"] = str(e)
    return res


SCENARIOS = {"fit": _fit, "equivalence": _equivalence, "ckpt_save": _ckpt_save, "ckpt_restore": _ckpt_restore,
             "nonfinite": _nonfinite}


# =============================================================================================== the pytest side
def _launch(n, scenarios, out, **extra_env):
    return mpi_jobs.run(__file__, n, scenarios, out, mpiexec_for_one=False, **extra_env)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if MPIEXEC is None:
        pytest.skip("mpiexec/mpi4py not installed (pip install 'descend[mpi]', which the test extra includes)")
    return {n: _launch(n, ["equivalence", "nonfinite", "fit"], tmp_path_factory.mktemp(f"zero{n}")) for n in (2, 3)}


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_zero_trains_to_the_unsharded_numbers(runs, n):
    res = runs[n][0]["equivalence"]
    assert set(res) == set(CASES)
    for case, r in res.items():
        # bit for bit the unsharded run at the same number of ranks (the reduce-scatter adds in the allreduce's
        # order for these sizes), and the one-process run with the global batch to 1e-10
        assert r["bitwise_vs_mirrored"], case
        assert r["rel_vs_one_process"] <= 1e-10, (case, r["rel_vs_one_process"])
        assert r["moved"] > 1e-4, case
        assert r["iterations"] == STEPS, case
    for other in runs[n][1:]:  # identical weights on every rank
        assert {c: r["digest"] for c, r in other["equivalence"].items()} == {c: r["digest"] for c, r in res.items()}


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_each_rank_holds_the_slots_of_its_share_only(runs, n):
    for case in CASES:
        per_rank = [r["equivalence"][case] for r in runs[n]]
        first = per_rank[0]
        owners = first["zero"]["owners"]
        dense = [name for name in first["sizes"] if name != "mlp/embedding"]
        assert sorted(owners) == sorted(dense) and set(owners.values()) == set(range(n)), (case, owners)
        assert all(r["zero"]["owners"] == owners for r in per_rank)
        total = first["mirrored_slot_bytes"]  # one replica's slots without ZeRO
        slot_bytes = [r["zero"]["bytes"] for r in per_rank]
        assert sum(slot_bytes) - (n - 1) * _replicated_slot_bytes(case, first) == total, (case, slot_bytes, total)
        largest = max(first["sizes"][name] for name in dense)
        per_slot = total // sum(first["sizes"][k] for k in first["sizes"])
        for rank, r in enumerate(per_rank):
            mine = sorted(name for name, owner in owners.items() if owner == rank)
            held = sorted(name for name in r["zero"]["held"] if name != "mlp/embedding")
            assert held == mine, (case, rank, held, mine)  # no slot for a variable another rank owns
            # balanced by bytes: within one (largest) variable of 1/N
            assert r["zero"]["bytes"] - _replicated_slot_bytes(case, first) <= per_slot * (
                sum(first["sizes"][k] for k in dense) / n + largest), (case, rank, r["zero"]["bytes"])


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_fit_under_zero_is_the_unsharded_fit(runs, n):
    for r in runs[n]:
        fit = r["fit"]
        assert fit["zero"] == fit["mirrored"]  # history and weights, bit for bit
        assert fit["ema"] is not None and "use_ema" in fit["ema"]
        assert fit["backup"] == ["manifest.json", *(f"shard-{r}" for r in range(1, n)), "tensors.safetensors"]
    assert all(r["fit"]["zero"]["weights"] == runs[n][0]["fit"]["zero"]["weights"] for r in runs[n])


def _replicated_slot_bytes(case, res):
    """The slots of the sparse (unsharded) embedding, which every rank holds."""
    if case != "adam_embedding":
        return 0
    return 2 * res["sizes"]["mlp/embedding"]


@needs_mpi
@pytest.mark.parametrize("n", [2, 3])
def test_a_nonfinite_gradient_on_one_rank_is_skipped_or_raised_on_every_rank(runs, n):
    per_rank = [r["nonfinite"] for r in runs[n]]
    for r in per_rank:
        assert r["skip"]["skipped"] == 1 and r["skip"]["iterations"] == 5
        assert r["skip"]["rel_vs_without_step"] <= 1e-12
        assert r["raise"]["raised"] is not None and r["raise"]["unchanged"]
        assert r["raise"]["iterations"] == 5
        assert r["overflow"]["skipped"] == 1 and r["overflow"]["w"] == [0.0] * 4 and r["overflow"]["u"] == [0.0] * 4
    assert "another replica" in per_rank[0]["raise"]["raised"]
    assert "'mlp/" in per_rank[-1]["raise"]["raised"]  # the rank that saw it names the variable
    assert len({json.dumps(r["skip"]["digest"]) for r in per_rank}) == 1
    assert len({json.dumps(r["raise"]["digest"]) for r in per_rank}) == 1


@needs_mpi
def test_a_checkpoint_saved_at_3_ranks_restores_at_2_and_at_1(tmp_path):
    (tmp_path / "three").mkdir()
    saved = _launch(3, ["ckpt_save"], tmp_path / "three")
    final = saved[0]["ckpt_save"]
    assert all(r["ckpt_save"]["digest"] == final["digest"] for r in saved)
    ckpt = tmp_path / "three" / "zero_ckpt"
    manifest = json.load(open(ckpt / "manifest.json"))
    assert manifest["zero"]["ranks"] == 3 and [s["dir"] for s in manifest["shards"]] == ["shard-1", "shard-2"]
    owners = manifest["zero"]["owners"]
    for s in manifest["shards"]:  # each shard holds the slots its rank owned, nothing else
        keys = json.load(open(ckpt / s["dir"] / "manifest.json"))["tensors"]
        assert keys and {k.rsplit("/", 1)[0] for k in keys} == {p for p, r in owners.items() if r == s["rank"]}
    assert not any(k.rsplit("/", 1)[0] in owners and owners[k.rsplit("/", 1)[0]] != 0 for k in manifest["tensors"])

    for n in (2, 1):
        out = tmp_path / f"restore{n}"
        out.mkdir()
        got = _launch(n, ["ckpt_restore"], out, DESCEND_TEST_CKPT=str(tmp_path / "three"))
        for r in got:
            res = r["ckpt_restore"]
            assert res["zero_ckpt"]["iterations"] == CKPT_STEPS and not res["zero_ckpt"]["pending"]
            err = max(float(np.max(np.abs(np.array(a) - np.array(b)) / np.max(np.abs(np.array(b)))))
                      for a, b in zip(res["zero_ckpt"]["weights"], final["weights"]))
            assert err <= 1e-10, (n, err)
            if n > 1:  # the unsharded checkpoint (one process) restores into ZeRO and continues the same way
                assert res["plain_ckpt"]["iterations"] == CKPT_STEPS and not res["plain_ckpt"]["pending"]
                err = max(float(np.max(np.abs(np.array(a) - np.array(b)) / np.max(np.abs(np.array(b)))))
                          for a, b in zip(res["plain_ckpt"]["weights"], final["weights"]))
                assert err <= 1e-10, (n, err)
                assert len(res["zero_ckpt"]["slots"]["held"]) < len(SIZES)  # restored slots of its share only


def test_shards_are_read_verified_and_merged(tmp_path):
    """The format side, in one process: shards adopted into a checkpoint are merged on read; a shard that is
    not the recorded one, or a tensor in two parts, is refused."""
    from descend.checkpoint import CheckpointCorruptedError
    from descend.persistence.checkpoint import descend_format as fmt

    shard = fmt.new_manifest({}, {}, 1)
    fmt.write_checkpoint_dir(str(tmp_path / "staged"), {"opt/w/m": np.arange(3.0)}, shard)
    main = fmt.new_manifest({}, {}, 1, {"shards": [{"dir": "shard-1", "rank": 1,
                                                      "manifest_sha256": shard["manifest_sha256"]}]})
    fmt.write_checkpoint_dir(str(tmp_path / "ck"), {"w": np.ones(3)}, main, adopt={"shard-1": str(tmp_path / "staged")})
    assert not (tmp_path / "staged").exists()
    manifest, tensors = fmt.read_checkpoint(tmp_path / "ck")
    assert sorted(tensors) == ["opt/w/m", "w"] and sorted(manifest["tensors"]) == ["opt/w/m", "w"]
    assert tensors["opt/w/m"].tolist() == [0.0, 1.0, 2.0]

    other = fmt.new_manifest({}, {}, 2)  # another shard in its place: its manifest's checksum differs
    fmt.write_checkpoint_dir(str(tmp_path / "ck" / "shard-1"), {"opt/w/m": np.arange(3.0)}, other)
    with pytest.raises(CheckpointCorruptedError, match="shard-1 is not the one the manifest records"):
        fmt.read_checkpoint(tmp_path / "ck")

    dup = fmt.new_manifest({}, {}, 1)
    fmt.write_checkpoint_dir(str(tmp_path / "staged2"), {"w": np.ones(3)}, dup)
    main = fmt.new_manifest({}, {}, 1, {"shards": [{"dir": "shard-1", "rank": 1, "manifest_sha256": dup["manifest_sha256"]}]})
    fmt.write_checkpoint_dir(str(tmp_path / "ck2"), {"w": np.ones(3)}, main, adopt={"shard-1": str(tmp_path / "staged2")})
    with pytest.raises(CheckpointCorruptedError, match="'w' is in shard shard-1 and in another part"):
        fmt.read_checkpoint(tmp_path / "ck2")

    bad = fmt.new_manifest({}, {}, 1, {"shards": [{"dir": "../elsewhere", "manifest_sha256": "0" * 64}]})
    fmt.write_checkpoint_dir(str(tmp_path / "ck3"), {"w": np.ones(3)}, bad)
    with pytest.raises(CheckpointCorruptedError, match="shards\\[0\\]"):
        fmt.read_checkpoint(tmp_path / "ck3")


def test_one_process_the_option_changes_nothing():
    import descend as ds

    strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=True)
    assert strategy.shard_optimizer_state
    with pytest.raises(TypeError, match="`shard_optimizer_state` must be a bool"):
        ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state="yes")
    with strategy.scope():
        w = ds.Variable(np.ones(3), name="w")
        opt = ds.optimizers.Adam(0.1)
    plain_w, plain = ds.Variable(np.ones(3), name="w_plain"), ds.optimizers.Adam(0.1)
    for _ in range(3):
        strategy.run(lambda: opt.apply_gradients([(np.arange(3.0), w)]))
        plain.apply_gradients([(np.arange(3.0), plain_w)])
    assert np.array_equal(w.numpy(), plain_w.numpy())
    assert ds.distribute.zero.slot_bytes(opt) == 48


if __name__ == "__main__":
    mpi_jobs.rank_main(SCENARIOS, sys.argv)
