"""descend.distribute in one process (no mpiexec): the one-replica fallback, the API's errors, the docstrings.
The multi-process behaviour is in test_distribute_mpi.py."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import descend as ds
import descend.distribute.horovod as hvd
from descend.compat.v1 import train as v1
from descend.distribute import collectives, comm

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_without_mpiexec_a_script_is_one_replica_and_never_imports_mpi4py():
    code = ("import sys, descend as ds; s = ds.distribute.MultiWorkerMirroredStrategy(); "
            "print(s.num_replicas_in_sync, ds.distribute.rank(), ds.distribute.size(), 'mpi4py' in sys.modules)")
    env = {k: v for k, v in os.environ.items() if k not in comm._LAUNCHER_VARS}
    env["PYTHONPATH"] = ROOT
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "0", "1", "False"]


def _train(opt_factory, use_strategy):
    ds.clear_session()
    s = ds.distribute.MultiWorkerMirroredStrategy()
    rng = np.random.default_rng(0)
    ctx = s.scope() if use_strategy else ds.name_scope("m")
    with ctx:
        w = ds.Variable(rng.normal(size=(3, 2)), name="w")
        emb = ds.Variable(rng.normal(size=(5, 2)), name="emb")
        opt = opt_factory()
    for _ in range(5):
        x = ds.constant(rng.normal(size=(4, 3)))
        ids = ds.constant(rng.integers(0, 5, size=4))

        def fn():
            with ds.GradientTape() as tape:
                per = ds.reduce_sum(ds.square(ds.matmul(x, w) + ds.gather(emb, ids)), axis=1)
                loss = ds.nn.compute_average_loss(per)
            opt.apply_gradients(zip(tape.gradient(loss, [w, emb]), [w, emb]))

        s.run(fn) if use_strategy else fn()
    return w.numpy(), emb.numpy()


@pytest.mark.parametrize("factory", [lambda: ds.optimizers.Adam(0.1), lambda: ds.optimizers.SGD(0.1, momentum=0.9),
                                     lambda: hvd.DistributedOptimizer(ds.optimizers.Adam(0.1))])
def test_one_replica_strategy_is_bitwise_the_plain_loop(factory):
    a, b = _train(factory, True), _train(factory, False)
    for x, y in zip(a, b):
        np.testing.assert_array_equal(x, y)


def test_contexts():
    s = ds.distribute.MirroredStrategy()
    assert not ds.distribute.has_strategy() and ds.distribute.get_strategy().num_replicas_in_sync == 1
    assert ds.distribute.get_replica_context().num_replicas_in_sync == 1
    with s.scope():
        assert ds.distribute.has_strategy() and ds.distribute.in_cross_replica_context()
        assert ds.distribute.get_replica_context() is None
        with pytest.raises(RuntimeError, match="cross replica context"):
            ds.nn.compute_average_loss(ds.constant([1.0]))
        with pytest.raises(ValueError, match="Mixing different distribution strategies"):
            with ds.distribute.MultiWorkerMirroredStrategy().scope():
                pass
        ctx = s.run(ds.distribute.get_replica_context)
        assert ctx.replica_id_in_sync_group == 0 and ctx.num_replicas_in_sync == 1
    assert not ds.distribute.has_strategy()


def test_reduce_and_datasets_in_one_process():
    s = ds.distribute.MultiWorkerMirroredStrategy()
    np.testing.assert_array_equal(s.reduce("MEAN", ds.constant([1.0, 3.0]), axis=0).numpy(), np.float32(2.0))
    np.testing.assert_array_equal(s.reduce(ds.distribute.ReduceOp.SUM, ds.constant([1.0, 3.0])).numpy(), [1.0, 3.0])
    data = ds.data.Dataset.from_tensor_slices(np.arange(6.0)).batch(4)
    assert [b.numpy().tolist() for b in s.experimental_distribute_dataset(data)] == [[0, 1, 2, 3], [4, 5]]
    assert s.experimental_local_results(3) == (3,)
    assert s.gather(ds.constant([[1.0, 2.0]]), axis=1).numpy().tolist() == [[1.0, 2.0]]


def test_errors_name_what_was_expected_and_received():
    s = ds.distribute.MultiWorkerMirroredStrategy()
    with pytest.raises(ValueError, match=r"`reduce_op` must be ReduceOp.SUM or ReduceOp.MEAN. Received: 'MAX'"):
        s.reduce("MAX", ds.constant(1.0))
    with pytest.raises(ValueError, match="`axis` must be an integer"):
        s.reduce("SUM", ds.constant([1.0]), axis=3)
    with pytest.raises(TypeError, match="`fn` must be callable"):
        s.run(3)
    with pytest.raises(ValueError, match="batched dataset"):
        list(s.experimental_distribute_dataset(ds.data.Dataset.from_tensor_slices(np.arange(3.0))))
    with pytest.raises(ValueError, match="not divisible"):
        ds.distribute.InputContext(2, 0, 2).get_per_replica_batch_size(7)
    assert ds.distribute.InputContext(2, 0, 2).get_per_replica_batch_size(8) == 4
    with pytest.raises(ValueError, match="`bucket_bytes` must be a positive integer"):
        ds.distribute.MultiWorkerMirroredStrategy(bucket_bytes=0)
    with pytest.raises(ValueError, match="at least rank 1"):
        ds.nn.compute_average_loss(ds.constant(1.0))
    with pytest.raises(ValueError, match="`global_batch_size` must be positive"):
        ds.nn.compute_average_loss(ds.constant([1.0]), global_batch_size=0)
    with pytest.raises(TypeError, match="`global_batch_size` must be an integer"):
        ds.nn.compute_average_loss(ds.constant([1.0]), global_batch_size=2.5)
    with pytest.raises(ValueError, match="`op` must be hvd.Average or hvd.Sum"):
        hvd.DistributedGradientTape(ds.GradientTape(), op="Max")
    with pytest.raises(TypeError, match="expects a descend optimizer"):
        hvd.DistributedOptimizer(object())
    with pytest.raises(ValueError, match="gradient_accumulation_steps=4"):
        hvd.DistributedOptimizer(ds.optimizers.SGD(0.1), backward_passes_per_step=4)
    with pytest.raises(TypeError, match="expects descend.Variable"):
        hvd.broadcast_variables([np.zeros(2)])
    with pytest.raises(ValueError, match="DESCEND_THREADS_PER_RANK"):
        os.environ["DESCEND_THREADS_PER_RANK"] = "x"
        try:
            comm.threads_per_rank(2)
        finally:
            del os.environ["DESCEND_THREADS_PER_RANK"]


def test_compute_average_loss_and_regularization_scaling():
    per = ds.constant([1.0, 2.0, 3.0, 6.0])
    assert float(ds.nn.compute_average_loss(per)) == 3.0
    assert float(ds.nn.compute_average_loss(per, global_batch_size=8)) == 1.5
    assert float(ds.nn.compute_average_loss(per, sample_weight=ds.constant([1.0, 0.0, 0.0, 0.5]), global_batch_size=2)) \
        == 2.0
    assert ds.nn.compute_average_loss(per).dtype == ds.float32
    assert float(ds.nn.scale_regularization_loss(ds.constant([1.0, 2.0]))) == 3.0


def test_threads_per_rank_divides_the_cores():
    cores = len(os.sched_getaffinity(0))
    assert comm.threads_per_rank(1) == cores
    assert comm.threads_per_rank(cores * 2) == 1


def test_exchange_signature_mismatch_message():
    sigs = [(("w", (3,), "<f8", "dense"), ("b", (4,), "<f8", "dense")),
            (("w", (3,), "<f8", "dense"), ("b", (5,), "<f8", "dense"))]
    msg = collectives._first_difference(sigs)
    assert msg == ("at gradient 1, rank 0 has 'b' (dense, shape (4,), dtype float64) and rank 1 has 'b' "
                   "(dense, shape (5,), dtype float64)")
    assert "rank 0 has 1 gradients and rank 1 has 2" in collectives._first_difference([sigs[0][:1], sigs[1]])


def test_tf1_compute_gradients_is_unscaled_with_one_replica():
    w = ds.Variable([1.0, 2.0], name="w")
    opt = v1.GradientDescentOptimizer(0.1)
    with ds.distribute.MultiWorkerMirroredStrategy().scope():
        (g, _), = opt.compute_gradients(lambda: ds.reduce_mean(w * w), var_list=[w])
    np.testing.assert_array_equal(g.numpy(), [1.0, 2.0])
