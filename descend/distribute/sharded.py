"""Embedding tables sharded row-wise over the ranks of an MPI job: :class:`ShardedEmbedding`.

**Layout.** A table of ``input_dim`` rows is split into contiguous row ranges,
rank ``r`` of ``N`` owning rows ``split_bounds(input_dim, N, r)`` (the first
``input_dim % N`` ranks one row more). Each rank holds only its rows, as an
ordinary Variable of shape ``(rows owned, output_dim)`` created rank-local
(:func:`~descend.distribute.strategy.local_variables`): it is not broadcast
and its gradient skips the cross-replica sum, so the optimizer's slots for
those rows live on the owner only. Summed over the ranks, the memory is one
table plus its slots.

**A lookup** (per call, every rank takes part):

1. the ids of this rank's batch are de-duplicated (sorted unique ids, so the
   ids each owner gets are contiguous) and their count per owner and a range
   check are exchanged with one ``Allgather`` of ``N + 2`` int64 per rank: an
   id out of range raises the same ``InvalidArgumentError`` on every rank,
   naming the rank and the id, before any row moves;
2. the ids go to their owners (``Alltoallv``, int64);
3. each owner reads the requested rows of its shard (an ordinary
   :func:`~descend.nn.embedding_lookup` of its shard Variable, so
   ``sparse_updates="exact_lazy"`` catches those rows up first) and sends them
   back (``Alltoallv``);
4. the backward pass sums the gradient rows of repeated ids locally and sends
   one row per unique id back to its owner (``Alltoallv``), whose gradient for
   the shard is an ``IndexedSlices`` of the rows it served; its optimizer
   applies it as any sparse gradient (``lazy``, ``exact``, ``exact_lazy``).

Per step a rank sends ``8 * u`` bytes of ids, ``s * d * itemsize`` bytes of rows
and ``u * d * itemsize`` bytes of gradients, ``u`` being its unique ids, ``s``
the ids it serves and ``d`` the row width (``stats`` counts them).

**Initialisation** equals one process's: a seeded :class:`RandomUniform` or
:class:`RandomNormal` (``"uniform"``, the default, included) or a constant
initializer draws the whole table's stream in chunks of ``chunk_rows`` rows and
each rank keeps its rows (peak memory: its shard plus one chunk); other
initializers are called on the whole shape once and sliced. An unseeded one
draws its seed as one process would (``initializers.draw_seed``), and rank 0's
seed is used everywhere.

Without mpiexec (or outside a strategy) the layer is an ordinary table.
Checkpoints: :class:`ShardedCheckpoint`.

Example:
    >>> import descend as ds
    >>> ds.clear_session()
    >>> layer = ds.distribute.ShardedEmbedding(10, 3, combiner="sum")
    >>> with ds.GradientTape() as tape:
    ...     y = ds.reduce_sum(layer(ds.constant([[1, 2], [2, 5]])))
    >>> y.shape, layer.num_shards, layer.row_range
    (TensorShape([]), 1, (0, 10))
    >>> g = tape.gradient(y, layer.embeddings)
    >>> sorted(g.indices.numpy().tolist())
    [1, 2, 2, 5]
"""

from __future__ import annotations

import contextlib
import copy

import numpy as np

from .. import initializers
from ..errors import InvalidArgumentError
from ..framework import tape as _tape
from ..framework.op import Op
from ..framework.tensor import Tensor
from ..layers.base import Layer
from ..ops import math_ops, nn_ops
from ..persistence.registry import register_builtins
from . import strategy as _strategy
from .split import split_bounds

__all__ = ["ShardedEmbedding", "shard_owner", "COMBINERS"]

#: what ``combiner`` may be: None (one vector per id) or a reduction over the last axis of the ids
COMBINERS = (None, "sum", "mean")
_CHUNKABLE = (initializers.RandomUniform, initializers.RandomNormal, initializers.Zeros, initializers.Ones,
              initializers.Constant)


def shard_owner(ids, input_dim: int, num_shards: int) -> np.ndarray:
    """The rank owning each id when ``input_dim`` rows are split over ``num_shards`` ranks (contiguous ranges)."""
    starts = np.array([split_bounds(input_dim, num_shards, r)[0] for r in range(num_shards)], np.int64)
    return np.searchsorted(starts, np.asarray(ids, np.int64), side="right") - 1


# ---------------------------------------------------------------------------------------------------- the exchange
def _alltoallv(group, send: np.ndarray, send_counts, recv_counts, width: int) -> np.ndarray:
    """Rank ``j`` gets rows ``send[offsets[j]:offsets[j] + send_counts[j]]`` (rows of ``width`` elements)."""
    send = np.ascontiguousarray(send)
    recv = np.empty((int(np.sum(recv_counts)),) + send.shape[1:], send.dtype)
    if group.size == 1:
        recv[...] = send
        return recv
    sc = (np.asarray(send_counts, np.int64) * width).tolist()
    rc = (np.asarray(recv_counts, np.int64) * width).tolist()
    sd = np.concatenate([[0], np.cumsum(sc)[:-1]]).astype(np.int64).tolist()
    rd = np.concatenate([[0], np.cumsum(rc)[:-1]]).astype(np.int64).tolist()
    group.comm.Alltoallv([send.reshape(-1), (sc, sd)], [recv.reshape(-1), (rc, rd)])
    return recv


class _Plan:
    """One lookup's routing: how many unique ids this rank asked of each owner and how many each rank asked
    of it, and where each looked-up id sits among this rank's unique ids."""

    __slots__ = ("group", "asked", "served", "inverse", "shape", "layer")

    def __init__(self, group, asked, served, inverse, shape, layer):
        self.group, self.asked, self.served, self.inverse, self.shape, self.layer = \
            group, asked, served, inverse, shape, layer


def _exchange_forward(rows, plan=None):
    """``rows`` (the rows this rank serves, in request order) to their requesters; returns this rank's
    looked-up vectors, shaped ``ids.shape + (d,)``."""
    width = int(np.prod(rows.shape[1:], dtype=np.int64))
    mine = _alltoallv(plan.group, rows, plan.served, plan.asked, width)
    plan.layer._count("row_bytes", plan.served, rows.dtype.itemsize * width)
    return mine[plan.inverse].reshape(plan.shape)


# the forward and the backward exchange, one op (not registered: it exists only inside a sharded lookup). Its VJP
# is a collective computed in NumPy: first-order gradients only
_exchange = Op(_exchange_forward, name="sharded_embedding_exchange", register=False)


@_exchange.defvjp
def _(g, ans, rows, plan=None):
    width = int(np.prod(rows.shape[1:], dtype=np.int64))
    grad = np.asarray(g._value if isinstance(g, Tensor) else g).reshape((-1,) + tuple(rows.shape[1:]))
    unique = np.zeros((int(np.sum(plan.asked)),) + tuple(rows.shape[1:]), grad.dtype)
    np.add.at(unique, plan.inverse, grad)  # repeated ids: one summed row each
    back = _alltoallv(plan.group, unique, plan.asked, plan.served, width)
    plan.layer._count("grad_bytes", plan.asked, grad.dtype.itemsize * width)
    return Tensor(back)


# ---------------------------------------------------------------------------------------------------- the layer
class ShardedEmbedding(Layer):
    """An embedding table split row-wise over the ranks of the strategy (see the module docs).

    Args:
        input_dim: the vocabulary size (ids in ``[0, input_dim)``).
        output_dim: the embedding size.
        embeddings_initializer: default ``"uniform"`` (``RandomUniform(-0.05, 0.05)``); the rows equal those
            one process creates with the same seed.
        combiner: None (``ids.shape + (output_dim,)``), ``"sum"`` or ``"mean"`` (reduce over the last axis of
            the ids: ``(batch, k)`` ids give ``(batch, output_dim)``).
        strategy: the strategy whose ranks hold the shards; default the strategy active when the layer is
            created or built (one shard without one).
        chunk_rows: rows drawn at a time when the initializer is drawn in chunks.

    Attributes:
        embeddings: this rank's shard, a Variable of shape ``(rows owned, output_dim)``.
        row_range: ``(start, stop)``: the global rows this rank owns.
        stats: bytes this rank sent to other ranks (``id_bytes``, ``row_bytes``, ``grad_bytes``, plus
            ``count_bytes`` of the routing ``Allgather``) and the number of ``lookups``; see
            :meth:`bytes_per_lookup`.

    Example:
        >>> import descend as ds
        >>> ds.clear_session()
        >>> a = ds.distribute.ShardedEmbedding(6, 2, embeddings_initializer=ds.initializers.RandomNormal(seed=3))
        >>> b = ds.layers.Embedding(6, 2, embeddings_initializer=ds.initializers.RandomNormal(seed=3))
        >>> bool((a(ds.constant([0, 5])).numpy() == b(ds.constant([0, 5])).numpy()).all())
        True
    """

    _autocast = False  # ids stay integers

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", combiner=None, *, strategy=None,
                 chunk_rows: int = 65536, **kwargs):
        super().__init__(**kwargs)
        for name, value in (("input_dim", input_dim), ("output_dim", output_dim), ("chunk_rows", chunk_rows)):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
                raise ValueError(f"`{name}` of ShardedEmbedding must be a positive integer. Received: "
                                 f"{name}={value!r}")
        if combiner not in COMBINERS:
            raise ValueError(f"`combiner` must be None, 'sum' or 'mean'. Received: combiner={combiner!r}")
        if strategy is not None and not isinstance(strategy, _strategy.Strategy):
            raise TypeError(f"`strategy` must be a descend.distribute strategy or None. Received: {strategy!r}")
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.combiner = combiner
        self.chunk_rows = int(chunk_rows)
        self._strategy = strategy if strategy is not None else (
            _strategy.get_strategy() if _strategy.has_strategy() else None)
        self.embeddings = None
        self.num_shards, self.shard_index, self.row_range = 1, 0, (0, self.input_dim)
        self.stats = {"lookups": 0, "count_bytes": 0, "id_bytes": 0, "row_bytes": 0, "grad_bytes": 0}

    # -- facts
    @property
    def strategy(self):
        """The strategy whose ranks hold the shards (the default strategy when none was active)."""
        if self._strategy is None:
            self._strategy = _strategy.get_strategy()
        return self._strategy

    @property
    def group(self):
        return self.strategy.group

    def table_shard(self) -> dict:
        """This rank's part of the table, for checkpoints (:mod:`descend.persistence.checkpoint.collective`): the variable
        (None before the layer is built), the table's global shape, every rank's rows, this rank and the group."""
        group = self.group
        n = group.size
        return {"variable": self.embeddings, "name": "embeddings", "global_shape": (self.input_dim, self.output_dim),
                "row_ranges": [split_bounds(self.input_dim, n, r) for r in range(n)], "rank": group.rank,
                "shards": n, "group": group}

    @property
    def collective_backward(self) -> bool:
        """Whether this layer's backward pass is a collective (rows over the ranks): every replica takes part
        in every step, even one whose share of a batch has no rows."""
        return self.num_shards > 1

    def bytes_per_lookup(self) -> float:
        """Mean bytes this rank sent to other ranks per lookup, forward and backward (``stats``)."""
        n = self.stats["lookups"]
        total = sum(v for k, v in self.stats.items() if k.endswith("_bytes"))
        return total / n if n else 0.0

    def _count(self, key, counts, row_bytes):
        counts = np.asarray(counts, np.int64).copy()
        counts[self.shard_index] = 0  # rows a rank keeps for itself cross no wire
        self.stats[key] += int(counts.sum()) * int(row_bytes)

    # -- building
    def build(self, input_shape=None):
        group = self.group
        self.num_shards, self.shard_index = group.size, group.rank
        start, stop = split_bounds(self.input_dim, self.num_shards, self.shard_index)
        self.row_range = (start, stop)
        dtype = self._dtype
        init = _seeded(self.embeddings_initializer, group)
        # built outside scope() (a model built by its first call in fit): the shard still belongs to the strategy,
        # so fit and the optimizers find it; zeros first (no second copy of the rows), then filled in place
        strategy = self.strategy
        owner = strategy.scope() if not strategy.is_default and _strategy.get_strategy() is not strategy \
            else contextlib.nullcontext()
        with owner, _strategy.local_variables():
            self.embeddings = self.add_weight(shape=(stop - start, self.output_dim),
                                              initializer=lambda shape, dtype=None: np.broadcast_to(
                                                  np.zeros((), dtype), shape), dtype=dtype, name="embeddings")
        if self.embeddings._version == 0:  # a value a checkpoint restored into the new weight wins
            _initial_rows(init, (self.input_dim, self.output_dim), dtype, start, stop, self.chunk_rows,
                          out=self.embeddings._value)

    # -- the lookup
    def call(self, inputs):
        ids = np.asarray(inputs)  # a host read: a traced step with a lookup runs eagerly (never baked ids)
        if ids.dtype.kind not in "iu":
            if ids.dtype.kind != "f":
                raise TypeError(f"ShardedEmbedding ids must be integers (or floats holding integers). Received "
                                f"dtype {ids.dtype.name}")
            ids = ids.astype(np.int64)
        if self.combiner is not None and ids.ndim < 1:
            raise ValueError(f"combiner={self.combiner!r} reduces the last axis of the ids; received scalar ids")
        if self.num_shards == 1:
            out = nn_ops.embedding_lookup(self.embeddings, Tensor(ids))
        else:
            if _tape._active and not _strategy.has_strategy():
                raise ValueError(
                    f"ShardedEmbedding '{self.name}' is sharded over {self.num_shards} ranks; a gradient of it must "
                    "be taken as one replica of its strategy: inside strategy.run() (a custom loop), or with fit on a "
                    "model built under strategy.scope(). Received: a lookup recorded by a GradientTape outside both")
            out = self._sharded_lookup(ids)
        if self.combiner == "sum":
            return math_ops.reduce_sum(out, axis=-2)
        if self.combiner == "mean":
            return math_ops.reduce_mean(out, axis=-2)
        return out

    def _sharded_lookup(self, ids: np.ndarray):
        group, n = self.group, self.num_shards
        flat = ids.reshape(-1).astype(np.int64)
        bad = (flat < 0) | (flat >= self.input_dim)
        unique, inverse = np.unique(np.where(bad, 0, flat), return_inverse=True)
        asked = np.bincount(shard_owner(unique, self.input_dim, n), minlength=n).astype(np.int64)
        first_bad = int(flat[bad][0]) if bad.any() else 0
        info = group.allgather_counts(np.concatenate([[int(bad.sum()), first_bad], asked]))  # (n, n + 2)
        self.stats["count_bytes"] += (n - 1) * info.shape[1] * 8
        culprits = np.flatnonzero(info[:, 0])
        if culprits.size:  # every rank raises the same error: nobody waits in an exchange
            r = int(culprits[0])
            raise InvalidArgumentError(
                f"ShardedEmbedding '{self.name}': ids must be in [0, {self.input_dim}); rank {r} looked up "
                f"{int(info[r, 0])} id(s) out of range, the first being {int(info[r, 1])}")
        served = info[:, 2 + self.shard_index].copy()
        requests = _alltoallv(group, unique, asked, served, 1)
        self._count("id_bytes", asked, 8)
        self.stats["lookups"] += 1
        local = Tensor(requests - self.row_range[0])
        rows = nn_ops.embedding_lookup(self.embeddings, local)  # exact_lazy: only the served rows caught up
        plan = _Plan(group, asked, served, inverse.reshape(-1), ids.shape + (self.output_dim,), self)
        return _exchange(rows, plan=plan)

    # -- whole-table views
    def gather_table(self) -> np.ndarray:
        """The whole table on every rank (an ``Allgatherv``: for tests and export, not for training)."""
        if self.embeddings is None:
            raise ValueError(f"ShardedEmbedding '{self.name}' is not built yet: call it (or build()) first")
        shard = self.embeddings.numpy()
        if self.num_shards == 1:
            return shard
        counts = [(b - a) * self.output_dim for a, b in
                  (split_bounds(self.input_dim, self.num_shards, r) for r in range(self.num_shards))]
        return self.group.allgatherv(shard.reshape(-1), counts).reshape(self.input_dim, self.output_dim)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        return (shape[:-1] if self.combiner is not None else shape) + (self.output_dim,)

    def get_config(self) -> dict:
        return {**super().get_config(), "input_dim": self.input_dim, "output_dim": self.output_dim,
                "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
                "combiner": self.combiner, "chunk_rows": self.chunk_rows}


register_builtins("layers", {"ShardedEmbedding": ShardedEmbedding})  # a layer a config may name


def _seeded(init, group):
    """``init`` with an integer seed every rank shares: an unseeded one draws its seed as one process would
    (``initializers.draw_seed``), and rank 0's is used everywhere (a collective)."""
    if not isinstance(init, initializers.RandomInitializer):
        return init
    seed = init.seed
    if isinstance(seed, np.random.Generator):
        raise ValueError("ShardedEmbedding cannot draw from an initializer seeded with a numpy Generator (each "
                         "rank's generator is its own): give an integer seed or None")
    if seed is None:
        mine = np.array([initializers.draw_seed()], np.int64)
        group.bcast(mine, 0)
        seed = int(mine[0])
    init = copy.copy(init)
    init.seed = seed
    return init


def _initial_rows(init, shape, dtype, start, stop, chunk_rows, out=None) -> np.ndarray:
    """Rows ``[start, stop)`` of ``init(shape)`` as one process draws them (``init`` seeded by :func:`_seeded`),
    written into ``out`` (allocated when None)."""
    if out is None:
        out = np.empty((stop - start,) + tuple(shape[1:]), dtype)
    if not isinstance(init, _CHUNKABLE):
        out[...] = np.asarray(init(shape, dtype=dtype))[start:stop]
        return out
    if isinstance(init, initializers.RandomInitializer):  # one generator: consecutive chunks continue the stream
        init = copy.copy(init)
        init.seed = np.random.default_rng(init.seed)
    for a in range(0, stop, chunk_rows):
        b = min(a + chunk_rows, stop)
        chunk = np.asarray(init((b - a,) + tuple(shape[1:]), dtype=dtype))
        lo, hi = max(a, start), b
        if hi > lo:
            out[lo - start:hi - start] = chunk[lo - a:hi - a]
    return out
