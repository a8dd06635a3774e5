"""Checkpoints under a strategy: a model with a table sharded over the ranks (``ShardedEmbedding``), with and
without sharded optimizer state (``shard_optimizer_state=True``), saved by ``fit`` at 2 ranks through each
of ``ds.train.Checkpoint``, ``CheckpointManager``, ``ModelCheckpoint(save_weights_only=True)`` and
``model.save`` (every rank writing its part), restores bit for bit in one process and at 3 ranks, and
training continues as the uninterrupted run does.

Run as a script by the tests below (``mpi_jobs``): ``save`` at 2 ranks, ``restore`` at 1 and 3.
"""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mpi_jobs  # noqa: E402
from mpi_jobs import needs_mpi  # noqa: E402

ROWS, WIDTH, BATCH, N = 23, 4, 8, 48  # 23 rows split 12/11 at 2 ranks, 8/8/7 at 3; 6 steps an epoch
WAYS = ["checkpoint", "manager", "save_weights", "model_save"]


def _data():
    rng = np.random.default_rng(5)
    return rng.integers(0, ROWS, size=(N, 3)), rng.normal(size=(N, 1))


def _make(ds, strategy, zero):
    """Ids -> ShardedEmbedding(sum) -> Dense(3, tanh) -> Dense(1), float64, compiled with Adam."""

    def build():
        ids = ds.keras.Input(shape=(3,), dtype="int64")
        e = ds.distribute.ShardedEmbedding(ROWS, WIDTH, ds.initializers.RandomNormal(stddev=0.5, seed=1),
                                           combiner="sum", name="table")(ids)
        h = ds.layers.Dense(3, activation="tanh", kernel_initializer=ds.initializers.GlorotUniform(seed=2))(e)
        model = ds.Model(ids, ds.layers.Dense(1, kernel_initializer=ds.initializers.GlorotUniform(seed=3))(h))
        model.compile(optimizer=ds.optimizers.Adam(0.05), loss="mse")
        return model

    if strategy is None:
        return build()
    with strategy.scope():
        return build()


def _state(ds, model, strategy):
    """Every weight and every slot of the Adam optimizer, whole: the table's rows gathered from the ranks, a
    slot held by one rank (sharded optimizer state) taken from it."""
    from descend.distribute import zero

    opt = model.optimizer
    table = next(layer for layer in model.layers if layer.name == "table")
    owners = zero.owners(opt)  # sharded optimizer state: a slot is current on its owner only
    out = {}
    for v in model.trainable_weights:
        sharded = v is table.embeddings and strategy is not None and strategy.num_replicas_in_sync > 1
        out[v.scoped_name] = (strategy.gather(v.numpy(), axis=0).numpy() if sharded else v.numpy()).tolist()
        for slot in ("m", "v"):
            try:
                value = opt.get_slot(v, slot).numpy()
            except KeyError:
                value = None  # another rank owns it (sharded optimizer state)
            if sharded:
                value = strategy.gather(value, axis=0).numpy()
            elif strategy is not None and strategy.num_replicas_in_sync > 1:
                values = strategy.group.allgather_object(value)
                value = values[owners[v.scoped_name]] if v.scoped_name in owners else values[0]
            out[f"{v.scoped_name}/{slot}"] = np.asarray(value).tolist()
    out["iterations"] = int(opt.iterations.numpy())
    return out


def _save(ds, outdir):
    ds.set_floatx("float64")
    x, y = _data()
    results = {}
    for zero in (False, True):
        ds.clear_session()
        strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=zero)
        model = _make(ds, strategy, zero)
        tag = "zero" if zero else "plain"
        ckpt_cb = ds.callbacks.ModelCheckpoint(os.path.join(outdir, f"{tag}-save_weights"), save_weights_only=True)
        model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0, callbacks=[ckpt_cb])
        ds.train.Checkpoint(model=model, optimizer=model.optimizer).write(os.path.join(outdir, f"{tag}-checkpoint"))
        manager = ds.train.CheckpointManager(ds.train.Checkpoint(model=model, optimizer=model.optimizer),
                                             os.path.join(outdir, f"{tag}-manager"), max_to_keep=1)
        manager.save()
        manager.save()  # rotation: rank 0 keeps the directory
        model.save(os.path.join(outdir, f"{tag}-model_save"))
        saved = _state(ds, model, strategy)
        model.fit(x, y, batch_size=BATCH, epochs=2, initial_epoch=1, shuffle=False, verbose=0)
        results[tag] = {"saved": saved, "final": _state(ds, model, strategy),
                        "listing": sorted(os.listdir(os.path.join(outdir, f"{tag}-checkpoint")))}
    ds.set_floatx("float32")
    return results


def _restore(ds, outdir):
    ds.set_floatx("float64")
    x, y = _data()
    saved_dir = os.environ["CKPT_MPI_DIR"]
    n = ds.distribute.size()
    results = {}
    for zero in (False, True):
        tag = "zero" if zero else "plain"
        for way in WAYS:
            ds.clear_session()
            strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=zero) if n > 1 else None
            path = os.path.join(saved_dir, f"{tag}-{way}")
            if way == "model_save":
                if n > 1:
                    with strategy.scope():
                        model = ds.models.load_model(path)
                else:
                    model = ds.models.load_model(path)
                model.optimizer.build(model.trainable_variables)  # the restored slots wait for their variables
            else:
                model = _make(ds, strategy, zero)
                model.optimizer.build(model.trainable_variables)
                if way == "save_weights":
                    model.load_weights(path)
                    # the optimizer's state is not in a weights file: restored from the full checkpoint
                    ds.train.Checkpoint(optimizer=model.optimizer, model=model).read(
                        os.path.join(saved_dir, f"{tag}-checkpoint"))
                elif way == "manager":
                    ds.train.CheckpointManager(ds.train.Checkpoint(model=model, optimizer=model.optimizer),
                                               path).restore_or_initialize()
                else:
                    ds.train.Checkpoint(model=model, optimizer=model.optimizer).read(path)
            restored = _state(ds, model, strategy)
            model.fit(x, y, batch_size=BATCH, epochs=2, initial_epoch=1, shuffle=False, verbose=0)
            results[f"{tag}/{way}"] = {"restored": restored, "final": _state(ds, model, strategy)}
    ds.set_floatx("float32")
    return results


def _outcome(fn):
    """``"ok"``, or the error's class and message (what each rank met)."""
    try:
        fn()
        return "ok"
    except Exception as e:  # noqa: BLE001 -- reported to the test
        return f"{type(e).__name__}: {e}"


def _weights(model):
    return [v.numpy().tolist() for v in model.weights]


def _disagree(ds, outdir):
    """Issue 38, item 10, at 2 ranks, for plain replicas and sharded optimizer state (ZeRO): the ranks restore
    different checkpoints, or one restores none; they name different paths to a collective save. Every rank
    raises ("the ranks disagree"), nothing changes; the same checkpoint under two paths restores."""
    import shutil

    ds.set_floatx("float64")
    x, y = _data()
    x = x.astype(np.float64)
    rank = ds.distribute.rank()
    results = {}
    for zero in (False, True):
        tag = "zero" if zero else "plain"
        ds.clear_session()
        strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=zero)
        with strategy.scope():
            model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2), ds.layers.Dense(1)])
            model.compile(optimizer=ds.optimizers.Adam(0.05), loss="mse")
        ckpt = ds.train.Checkpoint(model=model, optimizer=model.optimizer)
        model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
        collective = ckpt.collective_group() is not None  # ZeRO: every rank writes; else rank 0 alone
        ckpt_a, ckpt_b = os.path.join(outdir, f"{tag}-a"), os.path.join(outdir, f"{tag}-b")
        if collective or rank == 0:
            ckpt.write(ckpt_a)
        strategy.group.barrier()
        model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
        if collective or rank == 0:
            ckpt.write(ckpt_b)
        strategy.group.barrier()
        copy = os.path.join(outdir, f"{tag}-copy-of-a")
        if rank == 0:
            shutil.copytree(ckpt_a, copy)
        strategy.group.barrier()
        before = _weights(model)
        out = {"different": _outcome(lambda: ckpt.restore(ckpt_a if rank == 0 else ckpt_b)),
               "unchanged_after_different": _weights(model) == before,
               "none_and_one": _outcome(lambda: ckpt.restore(None if rank == 0 else ckpt_a)),
               "unchanged_after_none": _weights(model) == before,
               "load_weights": _outcome(lambda: model.load_weights(ckpt_a if rank == 0 else ckpt_b)),
               "unchanged_after_load_weights": _weights(model) == before,
               "one_missing": _outcome(lambda: ckpt.restore(ckpt_a if rank == 0 else ckpt_a + "-gone")),
               "same_content_two_paths": _outcome(lambda: ckpt.restore(ckpt_a if rank == 0 else copy))}
        out["restored_a"] = _weights(model) != before
        target = os.path.join(outdir, f"{tag}-save-{rank}")
        out["save_weights_two_paths"] = _outcome(lambda: model.save_weights(target + "-w"))
        if not collective:  # (ZeRO's sharded slots cannot go in a Keras weights file)
            out["keras_two_paths"] = _outcome(lambda: model.save_weights(target + ".weights.h5"))
        out["model_save_two_paths"] = _outcome(lambda: model.save(target + "-m"))
        if collective:  # a collective checkpoint (every rank writes its part)
            out["write_two_paths"] = _outcome(lambda: ckpt.write(target))
            out["manager_two_dirs"] = _outcome(lambda: ds.train.CheckpointManager(ckpt, target + "-mgr").save())
        strategy.group.barrier()
        out["written"] = sorted(n for n in os.listdir(outdir) if "-save-" in n and not n.endswith(("-mgr", ".json")))
        out["leftovers"] = sorted(n for n in os.listdir(outdir) if n.startswith(".tmp-"))
        results[tag] = out
    ds.set_floatx("float32")
    return results


def _leftovers(ds, outdir):
    """Issue 38, item 9: what a collective save killed on its ranks left beside its checkpoint (rank 0's
    unfinished folder, rank 1's staged part, the old checkpoint moved aside) is cleared by the next collective
    save of it; a user's file named alike stays."""
    import shutil

    ds.set_floatx("float64")
    x, y = _data()
    rank = ds.distribute.rank()
    strategy = ds.distribute.MultiWorkerMirroredStrategy(shard_optimizer_state=True)
    with strategy.scope():
        model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2), ds.layers.Dense(1)])
        model.compile(optimizer=ds.optimizers.Adam(0.05), loss="mse")
    model.fit(x.astype(np.float64), y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)
    ckpt = ds.train.Checkpoint(model=model, optimizer=model.optimizer)
    path = os.path.join(outdir, "c")
    ckpt.write(path)
    stale = [".tmp-c-0123456789ab", ".tmp-c-abcdef012345-shard-1", ".tmp-old-c-fedcba987654"]
    if rank == 0:  # as a save killed at each of its steps leaves them
        for name in stale:
            shutil.copytree(path, os.path.join(outdir, name))
        with open(os.path.join(outdir, ".tmp-c-notes"), "w") as f:
            f.write("mine")
    strategy.group.barrier()
    before = sorted(n for n in os.listdir(outdir) if not n.endswith(".json"))  # (not the ranks' results)
    ckpt.write(path)
    strategy.group.barrier()
    after = sorted(n for n in os.listdir(outdir) if not n.endswith(".json"))
    ds.set_floatx("float32")
    return {"before": before, "after": after}


SCENARIOS = {"save": _save, "restore": _restore, "disagree": _disagree, "leftovers": _leftovers}


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    if mpi_jobs.MPIEXEC is None:
        pytest.skip("mpiexec/mpi4py not installed (pip install 'descend[mpi]', which the test extra includes)")
    d = tmp_path_factory.mktemp("saved")
    return d, mpi_jobs.run(__file__, 2, ["save"], d, timeout=600)


def _compare(restored_runs, saved_runs):
    for r, res in enumerate(restored_runs):
        for key, got in res["restore"].items():
            tag = key.split("/")[0]
            want = saved_runs[0]["save"][tag]
            assert got["restored"].keys() == want["saved"].keys()
            for name, value in want["saved"].items():
                assert np.array_equal(np.asarray(got["restored"][name]), np.asarray(value)), (r, key, name)
            for name, value in want["final"].items():
                np.testing.assert_allclose(np.asarray(got["final"][name]), np.asarray(value), rtol=1e-10,
                                           atol=1e-13, err_msg=f"rank {r} {key} {name}")


@needs_mpi
def test_every_rank_writes_its_part_of_one_checkpoint(saved):
    d, runs = saved
    for run in runs:  # every rank saw the same state and the same files
        assert run["save"] == runs[0]["save"]
    listed = {}
    for tag in ("plain", "zero"):
        assert runs[0]["save"][tag]["listing"] == ["manifest.json", "shard-1", "tensors.safetensors"]
        manifest = json.load(open(d / f"{tag}-checkpoint" / "manifest.json"))
        assert manifest["ranks"] == 2 and list(manifest["tables"]) == ["model/layers/1/embeddings"]
        assert ("zero" in manifest) == (tag == "zero")
        assert sorted(os.listdir(d / f"{tag}-manager")) == [".lock", ".manager", "checkpoint.json", "ckpt-2"]
        # every rank's part, the rows of the table and the slots each rank owns, by TensorFlow's keys
        import descend as ds

        reader = ds.train.load_checkpoint(str(d / f"{tag}-checkpoint"))
        keys = [k for k in reader.keys() if k != "_CHECKPOINTABLE_OBJECT_GRAPH"]
        assert len(keys) == len(manifest["tf_keys"]) + len(manifest["tf_json_keys"]) + 1  # + save_counter
        assert all("/.ATTRIBUTES/" in k for k in keys)
        table = reader.get_tensor(manifest["tf_keys"]["model/layers/1/embeddings"])
        assert table.shape[0] == manifest["tables"]["model/layers/1/embeddings"]["global_shape"][0]
        listed[tag] = reader.get_variable_to_shape_map()
    assert listed["zero"] == listed["plain"]  # the slots each rank owns keep the numbering of the whole


@needs_mpi
def test_restores_bitwise_in_one_process_and_continues(saved, tmp_path):
    d, runs = saved
    _compare(mpi_jobs.run(__file__, 1, ["restore"], tmp_path, timeout=600, mpiexec_for_one=False,
                          CKPT_MPI_DIR=str(d)), runs)


@needs_mpi
def test_restores_bitwise_at_3_ranks_and_continues(saved, tmp_path):
    d, runs = saved
    _compare(mpi_jobs.run(__file__, 3, ["restore"], tmp_path, timeout=600, CKPT_MPI_DIR=str(d)), runs)


@needs_mpi
def test_ranks_that_disagree_on_the_checkpoint_raise_on_every_rank(tmp_path):
    runs = mpi_jobs.run(__file__, 2, ["disagree"], tmp_path, timeout=600)
    for r, run in enumerate(runs):
        for tag in ("plain", "zero"):
            out = run["disagree"][tag]
            for case in ("different", "load_weights"):
                assert out[case].startswith("CheckpointError: Checkpoint.restore("), (r, tag, case, out[case])
                assert "the ranks disagree (rank 0: '" in out[case] and "; rank 1: '" in out[case], out[case]
                assert f"{tag}-a' (content " in out[case] and "Nothing was changed on any rank" in out[case]
            assert "rank 0: nothing (path None: start from scratch); rank 1: '" in out["none_and_one"], out
            assert all(out[k] for k in ("unchanged_after_different", "unchanged_after_none",
                                        "unchanged_after_load_weights")), out
            if r == 1:  # the rank that could not read it raises its own error; the other names it
                assert "-gone" in out["one_missing"] and "the ranks disagree" not in out["one_missing"], out
            else:
                assert out["one_missing"].startswith("CheckpointError: Checkpoint.restore(") and \
                    "failed on 1 of the 2 ranks; nothing was changed on any rank: rank 1: " in out["one_missing"], out
            assert out["same_content_two_paths"] == "ok" and out["restored_a"], out
            cases = ["save_weights_two_paths", "model_save_two_paths"]
            cases += ["write_two_paths", "manager_two_dirs"] if tag == "zero" else ["keras_two_paths"]
            for case in cases:
                assert "the ranks disagree" in out[case] and "rank 0: '" in out[case] and "rank 1: '" in out[case], \
                    (r, tag, case, out[case])
                assert "FileNotFoundError" not in out[case], out[case]
            assert out["written"] == [] and out["leftovers"] == [], out


@needs_mpi
def test_a_collective_save_clears_what_killed_ones_left(tmp_path):
    for run in mpi_jobs.run(__file__, 2, ["leftovers"], tmp_path, timeout=600):
        out = run["leftovers"]
        assert len(out["before"]) == 5, out  # the stale entries were there
        assert out["after"] == [".tmp-c-notes", "c"], out


if __name__ == "__main__":
    mpi_jobs.rank_main(SCENARIOS, sys.argv)
