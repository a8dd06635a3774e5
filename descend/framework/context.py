"""The distribution context: which strategy is active, which strategy owns a variable, which
variables are rank-local. The one place every layer asks.

A distribution strategy (``descend.distribute``) sits above the optimizers, the checkpoints and
the training loop, yet each of them must know whether one is active. They ask here; the strategy
enters itself here (``scope()``, ``run()``) and is told of each Variable created under it
(:func:`variable_created`, called by ``Variable.__init__``). Nothing here knows what a strategy
does: an active strategy is any object with the methods of :class:`StrategyProtocol`.

Example:
    >>> from descend.framework import context
    >>> context.current_strategy() is None       # no strategy active
    True
"""

from __future__ import annotations

import contextlib
import threading
import weakref
from typing import Protocol

__all__ = ["StrategyProtocol", "current_strategy", "in_replica", "entered", "strategy_of", "strategy_for",
           "variable_created", "local_variables", "is_local", "owned_by", "state_of"]


class StrategyProtocol(Protocol):
    """What the layers below ``descend.distribute`` ask of a strategy."""

    num_replicas_in_sync: int

    def variable_created(self, variable) -> None:
        """A Variable was just created under this strategy (replicate it: e.g. broadcast rank 0's value)."""

    def aggregation_for(self, optimizer):
        """The stage that sums ``optimizer``'s gradients across the replicas (``descend.optimizers.pipeline.
        Aggregation``), or None when this strategy has one replica."""

    def checkpoint_owners(self, graph):
        """Which rank holds the optimizer slots of each variable of a checkpoint (sharded optimizer state), or
        None."""

    def fit_replica(self):
        """This process's data-parallel context in ``fit`` (``descend.training.replica.Replica``)."""


_state = threading.local()
# variables created under a strategy: id -> (weak reference, strategy)
_OWNER: dict = {}
# variables whose value differs by rank (a shard of a sharded table, and its optimizer slots): id -> weak reference
_LOCAL: dict = {}


def _stack() -> list:
    s = getattr(_state, "stack", None)
    if s is None:
        s = _state.stack = []
    return s


def current_strategy():
    """The strategy whose ``scope()`` or ``run()`` is active in this thread, or None."""
    s = _stack()
    return s[-1][0] if s else None


def in_replica() -> bool | None:
    """True inside a strategy's ``run()``, False inside its ``scope()`` only, None with no strategy active."""
    s = _stack()
    return s[-1][1] if s else None


@contextlib.contextmanager
def entered(strategy, in_replica_context: bool):
    """Make ``strategy`` the active one inside the block (a strategy's ``scope()``/``run()``)."""
    s = _stack()
    if s and s[-1][0] is not strategy:
        raise ValueError(f"Mixing different distribution strategies: {s[-1][0]!r} is active and "
                         f"{strategy!r} was entered")
    s.append((strategy, bool(in_replica_context)))
    try:
        yield strategy
    finally:
        s.pop()


def owned_by(variable, strategy) -> None:
    """Record that ``variable`` belongs to ``strategy`` (created under it)."""
    key = id(variable)
    _OWNER[key] = (weakref.ref(variable, lambda _r, key=key: _OWNER.pop(key, None)), strategy)


def strategy_of(variable):
    """The strategy under whose ``scope()`` (or ``run()``) ``variable`` was created, or None."""
    entry = _OWNER.get(id(variable))
    if entry is None or entry[0]() is not variable:
        return None
    return entry[1]


def strategy_for(variables):
    """The active strategy, else the one that owns one of ``variables`` (None: neither)."""
    s = _stack()
    if s:
        return s[-1][0]
    if not _OWNER:
        return None
    return next((st for st in map(strategy_of, variables) if st is not None), None)


@contextlib.contextmanager
def local_variables():
    """Variables created inside are rank-local: not replicated at creation, and their gradients skip the
    cross-replica sum (each rank holds and updates its own part, e.g. a sharded table's shard)."""
    _state.local = getattr(_state, "local", 0) + 1
    try:
        yield
    finally:
        _state.local -= 1


def is_local(variable) -> bool:
    """Whether ``variable`` was created inside :func:`local_variables` (its value is this rank's own)."""
    entry = _LOCAL.get(id(variable))
    return entry is not None and entry() is variable


@contextlib.contextmanager
def state_of(variable):
    """Variables created inside hold per-variable state of ``variable`` (an optimizer's slots): each
    replica makes them alike, so no strategy is told of them; they belong to ``variable``'s strategy
    and are rank-local when it is."""
    previous = getattr(_state, "state_of", None)
    _state.state_of = variable
    try:
        yield
    finally:
        _state.state_of = previous


def _mark_local(variable) -> None:
    key = id(variable)
    _LOCAL[key] = weakref.ref(variable, lambda _r, key=key: _LOCAL.pop(key, None))


def variable_created(variable) -> None:
    """Called by every ``Variable.__init__``: records a rank-local variable and tells the active strategy."""
    of = getattr(_state, "state_of", None)
    if of is not None:
        if is_local(of):
            _mark_local(variable)
        owner = strategy_of(of)
        if owner is not None:
            owned_by(variable, owner)
        return
    if getattr(_state, "local", 0):
        _mark_local(variable)
    s = _stack()
    if s:
        s[-1][0].variable_created(variable)
