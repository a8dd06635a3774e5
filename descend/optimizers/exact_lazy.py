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

__all__ = ["REPLAY", "MAX_HISTORY", "LazyRows", "TableState", "decay_products", "group_by_start", "per_row", "steps_of", "suffix_products"]

#: the ``catch_up`` declaration of an optimizer that replays the skipped steps with its dense rule
REPLAY = "replay"
#: the most updates whose scalars a table keeps (bounds memory): past half of it, each update also catches up a
#: slice of the rows, so that every row is at most this many updates behind
MAX_HISTORY = 1024


class TableState:
    """Which update each row of one table has been brought up to, and the scalars of the updates since.

    ``count`` is the number of updates the optimizer has applied to the table; row ``r`` has had
    the first ``last[r]`` of them. ``history[k - start]`` holds update ``k``'s ``(coefficients,
    decay coefficients or None)`` for ``start <= k < count``.
    """

    __slots__ = ("count", "last", "history", "start", "sweep", "replay")

    def __init__(self, rows: int):
        self.count = 0
        self.last = np.zeros(rows, np.int64)
        self.history: list = []
        self.start = 0
        self.sweep = None  # (next row, count when the pass began) while a pass over the rows is under way
        self.replay = None  # (kernel, dtype, scalar rows, decays) of the history's updates, for the replay kernel

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

    def drop_before(self, k: int) -> None:
        """Forget the history of updates before ``k`` (no row needs them)."""
        k = min(max(k, self.start), self.count)
        del self.history[:k - self.start]
        if self.replay is not None:
            kernel, dtype, scalars, decays = self.replay
            self.replay = (kernel, dtype, scalars[k - self.start:], decays[k - self.start:])
        self.start = k

    def replay_table(self, kernel, dtype, fused: bool):
        """``(scalars, decays)``: the replay kernel's scalar arguments and weight-decay factor of every update
        in the history (row ``k - start``: update ``k``), in ``dtype``; None when a coefficient is not a
        number. Kept between calls and extended by the updates recorded since."""
        cached = self.replay
        if cached is None or cached[0] is not kernel or cached[1] != dtype:
            cached = (kernel, dtype, np.empty((0, len(kernel.spec.scalars)), dtype), np.empty(0, dtype))
        have = cached[3].shape[0]
        if have < len(self.history):
            new = self.history[have:]
            rows = kernel.scalar_rows([c for c, _ in new], dtype)
            if rows is None:
                return None
            decays = np.array([0.0 if d is None or not fused else d["d"] for _, d in new], dtype)
            cached = (kernel, dtype, np.concatenate([cached[2], rows]), np.concatenate([cached[3], decays]))
        self.replay = cached
        return cached[2], cached[3]


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


class LazyRows:
    """An optimizer's tables updated with ``sparse_updates="exact_lazy"`` whose rows are behind: the
    bookkeeping (:class:`TableState` per table), the catch-up before reads, and the flush."""

    __slots__ = ("tables",)

    def __init__(self):
        self.tables: dict = {}  # id(table) -> (table, TableState) while rows are behind

    def behind(self, var) -> bool:
        """Whether some rows of ``var`` are behind."""
        return bool(self.tables) and id(var) in self.tables

    def flush(self, opt) -> None:
        """Bring every row of every table up to date."""
        for table, _ in list(self.tables.values()):
            self.flush_table(opt, table)

    def flush_table(self, opt, table) -> None:
        entry = self.tables.pop(id(table), None)
        self.unhook(opt, table)
        if entry is None:
            return
        state = entry[1]
        rule = opt.rule
        param, slots, slot_vars = opt.state.arrays_of(table, rule.slot_specs)
        if self.catch_up(opt, rule, state, param, slots, state.behind(None)):
            table._mark_updated()
            for sv in slot_vars:
                sv._mark_updated()

    def hook(self, opt, table) -> None:
        def before_read(var, rows, table=table, opt=opt):
            opt.lazy_rows.read(opt, table, rows if var is table else None)
        table.set_before_read(before_read)
        for sv in opt.state.slots[id(table)][1].values():
            sv.set_before_read(before_read)

    def unhook(self, opt, table) -> None:
        table.set_before_read(None)
        found = opt.state.slots.get(id(table))
        for sv in (found[1].values() if found else ()):
            sv.set_before_read(None)

    def read(self, opt, table, rows) -> None:
        """The before-read callback: catch up ``rows`` of ``table`` (all of it, and its slots, when None)."""
        entry = self.tables.get(id(table))
        if entry is None or rows is None:
            self.flush_table(opt, table)
            return
        state = entry[1]
        behind = state.behind(rows)
        rule = opt.rule
        param, slots, slot_vars = opt.state.arrays_of(table, rule.slot_specs)
        if self.catch_up(opt, rule, state, param, slots, behind):
            state.last[behind] = state.count
            table._mark_updated()
            for sv in slot_vars:
                sv._mark_updated()

    def write_path(self, opt, rule, item, param, slots, copy: bool):
        """Catch up what this update of ``item.var`` reads; returns the write path and whether the decay
        covers every row. Live (commit): the touched rows (a dense gradient: all rows). Into copies
        (preview, a constraint): every row, then this step's exact update."""
        entry = self.tables.get(id(item.var))
        if entry is not None and (copy or item.path != "exact_lazy"):
            self.catch_up(opt, rule, entry[1], param, slots, entry[1].behind(None))
            if not copy:  # a dense gradient: the whole table is current; no state left
                self.tables.pop(id(item.var))
                self.unhook(opt, item.var)
        elif entry is not None:
            self.catch_up(opt, rule, entry[1], param, slots, entry[1].behind(item.indices))
        if item.path != "exact_lazy":
            return item.path, item.decay_all_rows
        if not copy:
            return "exact_lazy", False
        if rule.zero_grad_is_identity:
            return "rows", item.decay is not None
        return "densify", False

    def record(self, opt, plan) -> None:
        """After a commit: the touched rows are at the new count; untouched rows now skip this step."""
        for item in plan.items:
            if item.path != "exact_lazy":
                continue
            var = item.var
            if item.constrained is not None:  # the constraint wrote every row's exact value
                self.tables.pop(id(var), None)
                self.unhook(opt, var)
                continue
            entry = self.tables.get(id(var))
            if entry is None:
                entry = self.tables[id(var)] = (var, TableState(var.shape[0]))
                self.hook(opt, var)
            state = entry[1]
            state.record(plan.coefficients[var._value.dtype], item.decay, item.indices)
            if len(state.history) > MAX_HISTORY // 2:
                self.sweep(opt, var, state)

    def sweep(self, opt, table, state) -> None:
        """Bound the history: once it holds more than ``MAX_HISTORY / 2`` updates, each update also catches
        up the next ``rows / (MAX_HISTORY / 2)`` rows, in order; when a pass over the rows ends, every row is
        at least at the update the pass began with, and the history before it is dropped. The catch-up work a
        long run defers is so spread evenly over the steps (never a pause), and the history never holds more
        than ``MAX_HISTORY`` updates."""
        rows = state.last.shape[0]
        begin, since = state.sweep if state.sweep is not None else (0, state.count)
        end = min(rows, begin + -(-rows // (MAX_HISTORY // 2)))
        window = np.arange(begin, end)
        behind = window[state.last[window] < state.count]
        if behind.size:
            rule = opt.rule
            param, slots, slot_vars = opt.state.arrays_of(table, rule.slot_specs)
            self.catch_up(opt, rule, state, param, slots, behind)
            state.last[behind] = state.count
        if end < rows:
            state.sweep = (end, since)
        else:
            state.sweep = None
            state.drop_before(since)

    def catch_up(self, opt, rule, state, param, slots, rows) -> bool:
        """Bring ``rows`` (unique, all behind) of ``param`` and ``slots`` up to ``state.count`` updates, in
        place, with the optimizer's closed form or by replaying its dense rule. Does not move ``state.last``."""
        if rows.size == 0:
            return False
        rows, starts = group_by_start(state, rows)
        p = param[rows]
        ss = [s[rows] for s in slots]
        how = rule.catch_up
        if callable(how) and opt.weight_decay_form.fused:
            steps = steps_of(state, int(starts[0]))
            out = rule.check_outputs(how(p, *ss, steps=steps, first=starts - starts[0]), len(ss))
            p = np.asarray(out[0], param.dtype)
            ss = [np.asarray(o, s.dtype) for o, s in zip(out[1:], ss)]
        else:
            self.replay(opt, rule, state, p, ss, starts)
        param[rows] = p
        for s, new in zip(slots, ss):
            s[rows] = new
        return True

    def replay(self, opt, rule, state, p, ss, starts) -> None:
        """The skipped steps, one at a time, with the exact path's arithmetic: this step's weight decay,
        then (unless a zero gradient is the identity) the rule with a zero gradient. ``p``/``ss`` hold the
        rows sorted by ``starts``, so the rows a step applies to are a prefix."""
        fn = rule.sparse_fn
        kernel = rule.kernel(fn)
        form = opt.weight_decay_form
        if kernel is not None and not rule.zero_grad_is_identity and form.fused and p.ndim:
            table = state.replay_table(kernel, p.dtype, form.fused)
            n = len(p)  # gathered copies: 2-D views of them are written in place
            if table is not None and kernel.apply_replay(
                    p.reshape(n, -1), [s.reshape(n, -1) for s in ss], starts - state.start,
                    state.count - state.start, *table):
                return
        zeros = np.zeros_like(p)
        first = int(starts[0])
        ends = np.searchsorted(starts, np.arange(first, state.count), side="right")
        positions = np.arange(len(starts))
        for k, n in zip(range(first, state.count), ends.tolist()):
            coefficients, decay = state.history[k - state.start]
            rows_p, rows_s = p[:n], [s[:n] for s in ss]
            if rule.zero_grad_is_identity:
                if decay is not None:
                    rows_p[...] = form.apply(rows_p, **decay)
                continue
            d = 0.0
            if decay is not None:
                if form.fused:
                    d = decay["d"]
                else:
                    rows_p[...] = form.apply(rows_p, **decay)
            rule.rows(fn, kernel, rows_p, zeros[:n], rows_s, coefficients, positions[:n], d)
