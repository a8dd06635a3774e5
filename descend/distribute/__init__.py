"""``descend.distribute``: data-parallel training over MPI processes, with TensorFlow's semantics.

Launch with ``mpiexec -n N python train.py`` (the ``mpi`` extra installs
mpi4py and MPICH's ``mpiexec``); without mpiexec the same script runs as one
replica. See ``docs/distributed.md``.

* TF's surface: :class:`MultiWorkerMirroredStrategy` (and
  :class:`MirroredStrategy`), ``scope()``, ``run``, ``reduce``,
  ``experimental_distribute_dataset``, ``distribute_datasets_from_function``,
  :func:`get_strategy`, :func:`has_strategy`, :func:`get_replica_context`.
* Horovod's: ``descend.distribute.horovod`` (``rank``, ``size``,
  ``local_rank``, ``broadcast_variables``, ``DistributedGradientTape``,
  ``DistributedOptimizer``), also exported here.

Example:
    >>> import descend as ds
    >>> strategy = ds.distribute.MultiWorkerMirroredStrategy()
    >>> ds.distribute.has_strategy()
    False
    >>> with strategy.scope():
    ...     ds.distribute.get_strategy() is strategy
    True
"""

from ..api.lazy import lazy_facade

# each name loads its submodule on first use (descend.api.lazy): `descend train` on one process asks for the
# MPI group alone, never for Horovod's surface, ZeRO or the sharded embedding
_LAZY = {  # submodule -> the names it defines (comm and zero: the submodules themselves)
    "collectives": ("GradientExchange", "ReplicaMismatchError"),
    "comm": (),
    "horovod": ("DistributedGradientTape", "DistributedOptimizer", "broadcast_variables", "local_rank", "local_size",
                "rank", "size"),
    "sharded": ("ShardedEmbedding",),
    "zero": (),
    "strategy": ("DistributedDataset", "InputContext", "MirroredStrategy", "MultiWorkerMirroredStrategy",
                 "ReduceOp", "ReplicaContext", "Strategy", "get_replica_context", "get_strategy", "has_strategy",
                 "in_cross_replica_context", "is_local", "local_variables", "strategy_of"),
}
__getattr__, __dir__, _LAZY_NAMES = lazy_facade(__name__, _LAZY)

__all__ = ["collectives", "comm", "horovod", "sharded", "zero", *_LAZY_NAMES]
