"""``sparse_updates="exact_lazy"``: the exact optimizer at the cost of the rows a step touches.

An exact sparse update changes every row of a table: a zero gradient still decays the
slots (Adam's moments), moves a row with momentum, and applies weight decay. Lazy updates
skip that work and so are a different algorithm. ``"exact_lazy"`` skips it too, but keeps,
for each row, the number of updates it has been brought up to (:class:`TableState`), and
the per-step scalars of every update since (the rule's coefficients -- schedules already
evaluated -- and the weight-decay coefficients). Before a row is read (by an update, an
embedding lookup, ``numpy()``, a checkpoint) it is *caught up* over the steps it skipped:

* in closed form, by the optimizer's pure ``catch_up(param, *slots, steps)`` (declared in
  its module), where ``steps`` lists, oldest first, each skipped step's coefficients plus
  ``"decay"``, its decoupled weight-decay factor ``lr * weight_decay`` (0.0 without decay);
* or, for an optimizer that declares ``catch_up = "replay"``, by running the dense rule with
  a zero gradient (and the step's weight decay) once per skipped step on those rows only:
  the same arithmetic as the exact update, so bit for bit its result.

The result equals the ``"exact"`` run whenever it is read. :class:`TableState` is the
bookkeeping; the base class applies the catch-up (``Optimizer.flush()`` catches up every row).

Example:
    >>> import numpy as np, descend as ds
    >>> table = ds.Variable(np.ones((4, 1), np.float32), name="table")
    >>> opt = ds.optimizers.SGD(0.1, momentum=0.5, sparse_updates="exact_lazy")
    >>> for row in (0, 1):
    ...     _ = opt.apply_gradients([(ds.IndexedSlices(ds.constant([[1.0]]), ds.constant([row]), (4, 1)), table)])
    >>> table.numpy()[:, 0].round(4)   # row 0 kept moving at step 2 (momentum -0.05), caught up when read
    array([0.85, 0.9 , 1.  , 1.  ], dtype=float32)
"""

from __future__ import annotations

import numpy as np

__all__ = ["REPLAY", "MAX_HISTORY", "TableState", "decay_products", "group_by_start", "per_row", "steps_of", "suffix_products"]

#: the ``catch_up`` declaration of an optimizer that replays the skipped steps with its dense rule
REPLAY = "replay"
#: history entries kept per table before rows that far behind are caught up (bounds memory)
MAX_HISTORY = 1024


class TableState:
    """Which update each row of one table has been brought up to, and the scalars of the updates since.

    ``count`` is the number of updates the optimizer has applied to the table; row ``r`` has had
    the first ``last[r]`` of them. ``history[k - start]`` holds update ``k``'s ``(coefficients,
    decay coefficients or None)`` for ``start <= k < count``.
    """

    __slots__ = ("count", "last", "history", "start")

    def __init__(self, rows: int):
        self.count = 0
        self.last = np.zeros(rows, np.int64)
        self.history: list = []
        self.start = 0

    def behind(self, rows: np.ndarray | None) -> np.ndarray:
        """The rows of ``rows`` (every row when None) not up to date, as an index array."""
        if rows is None:
            return np.flatnonzero(self.last < self.count)
        rows = np.unique(np.asarray(rows, np.intp).reshape(-1))
        return rows[self.last[rows] < self.count]

    def record(self, coefficients: dict, decay: dict | None, touched: np.ndarray) -> None:
        """One more update, applied to the rows ``touched`` (after their catch-up)."""
        self.history.append((coefficients, decay))
        self.count += 1
        self.last[touched] = self.count

    def oldest_needed(self) -> int:
        """The oldest update some row still needs (O(rows): called once per ``MAX_HISTORY`` updates)."""
        return int(self.last.min()) if self.last.size else self.count

    def drop_before(self, k: int) -> None:
        """Forget the history of updates before ``k`` (no row needs them)."""
        k = min(max(k, self.start), self.count)
        del self.history[:k - self.start]
        self.start = k


def group_by_start(state: TableState, rows: np.ndarray):
    """``(rows sorted by the update they are at, those updates)``: rows behind, oldest first."""
    starts = state.last[rows]
    order = np.argsort(starts, kind="stable")
    return rows[order], starts[order]


def steps_of(state: TableState, first: int) -> list:
    """The skipped steps from update ``first`` on, as ``catch_up`` takes them: each step's coefficients
    plus ``"decay"`` (the decoupled weight-decay factor, 0.0 without decay)."""
    out = []
    for coefficients, decay in state.history[first - state.start:]:
        step = dict(coefficients)
        step["decay"] = 0.0 if decay is None else decay["d"]
        out.append(step)
    return out


def suffix_products(factors) -> np.ndarray:
    """``out[i] = factors[i] * ... * factors[-1]`` (float64), ``out[len(factors)] = 1``: the product of the
    per-step factors a row starting at step ``i`` skipped (as ``catch_up``'s ``first`` indexes ``steps``)."""
    out = np.ones(len(factors) + 1, np.float64)
    acc = 1.0
    for i in range(len(factors) - 1, -1, -1):
        acc *= float(factors[i])
        out[i] = acc
    return out


def per_row(values: np.ndarray, first: np.ndarray, like: np.ndarray) -> np.ndarray:
    """``values[first]`` shaped to broadcast over the rows ``like`` (one value per row)."""
    return values[first].reshape((-1,) + (1,) * (like.ndim - 1))


def decay_products(steps) -> np.ndarray:
    """:func:`suffix_products` of ``1 - decay``: what decoupled weight decay multiplies a row by."""
    return suffix_products([1.0 - float(s["decay"]) for s in steps])
