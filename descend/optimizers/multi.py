"""``MultiOptimizer``: different optimizers for disjoint parts of one model."""

from __future__ import annotations

import operator
import re

from ..framework.variable import Variable
from . import bound
from .optimizer import Optimizer
from .optimizer_map import OptimizerMap
from .update_plan import ByVariable, pairs_of
from .template import UpdateTemplate, variables_of

__all__ = ["MultiOptimizer"]


class MultiOptimizer(UpdateTemplate):
    """Route each variable to one optimizer, by variable list or by name pattern.

    Args:
        routes: ``[(optimizer, spec), ...]`` where ``spec`` is a list of
            Variables, or a regular expression (``re.search`` on the variable
            name), or a list mixing both. The first route that matches wins.
            Or, as Keras 3, an :class:`OptimizerMap` (its rule routes each
            variable by its path; its default takes the rest).

    Each optimizer keeps its own slots and ``iterations``. An update is
    all-or-nothing across the optimizers: every gradient is validated (and
    routed) before any optimizer changes anything. A sub-optimizer refuses a
    variable routed to another one. Its bound plan (:meth:`bind`) is the
    composition of its optimizers' bound plans: each prepares its share, then
    each commits. ``apply_gradients`` takes ``weight`` (the micro-batch weight
    for gradient accumulation), given to every optimizer.

    Example:
        >>> import descend as ds
        >>> emb = ds.Variable([[1.0], [2.0]], name="embedding")
        >>> w = ds.Variable([1.0], name="dense")
        >>> multi = ds.optimizers.MultiOptimizer([
        ...     (ds.optimizers.Adagrad(0.1), [emb]),
        ...     (ds.optimizers.SGD(0.1), "dense"),
        ... ])
        >>> _ = multi.apply_gradients([(ds.constant([[1.0], [1.0]]), emb), (ds.constant([1.0]), w)])
        >>> w.numpy()
        array([0.9], dtype=float32)
    """

    def __init__(self, routes):
        self._routes = []
        self._map = None
        if isinstance(routes, OptimizerMap):  # Keras 3: the map decides; its optimizers are the routes
            self._map = routes
            routes = [(opt, []) for opt in routes.optimizers]
        for item in routes:
            try:
                opt, spec = item
            except (TypeError, ValueError):
                raise TypeError(f"MultiOptimizer expects (optimizer, variables or pattern) pairs. Received: {item!r}") from None
            if not isinstance(opt, Optimizer):
                raise TypeError(f"MultiOptimizer: expected an Optimizer. Received: {type(opt).__name__}")
            if opt.owner is not None:
                raise ValueError(f"optimizer '{opt.name}' already belongs to a MultiOptimizer")
            specs = spec if isinstance(spec, (list, tuple)) else [spec]
            ids, patterns = set(), []
            for s in specs:
                if isinstance(s, Variable):
                    ids.add(id(s))
                elif isinstance(s, str):
                    patterns.append(re.compile(s))
                else:
                    raise TypeError(f"MultiOptimizer: a route is a Variable or a regex string. Received: {s!r}")
            self._routes.append((opt, ids, patterns))
        if not self._routes:
            raise ValueError("MultiOptimizer needs at least one (optimizer, variables) route")
        for opt, _, _ in self._routes:
            opt.owner = self

    @property
    def optimizers(self) -> list[Optimizer]:
        return [r[0] for r in self._routes]

    def route(self, var: Variable) -> Optimizer | None:
        """The optimizer that updates ``var`` (None if no route matches)."""
        if self._map is not None:
            return self._map(var)
        for opt, ids, patterns in self._routes:
            if id(var) in ids or any(p.search(var.scoped_name) for p in patterns):
                return opt
        return None

    def check_route(self, opt: Optimizer, var: Variable) -> None:
        """Raise unless ``var`` is routed to ``opt``."""
        owner = self.route(var)
        if owner is not opt:
            where = "no optimizer" if owner is None else f"optimizer '{owner.name}'"
            raise ValueError(
                f"variable '{var.scoped_name}' is routed to {where} of this MultiOptimizer, not to '{opt.name}'"
            )

    def _split(self, grads_and_vars) -> dict:
        groups: dict[int, list] = {}
        unrouted = []
        for grad, var in pairs_of(grads_and_vars):
            opt = self.route(var) if isinstance(var, Variable) else None
            if opt is None:
                unrouted.append(getattr(var, "name", repr(var)))
                continue
            groups.setdefault(id(opt), []).append((grad, var))
        if unrouted:
            raise ValueError(f"MultiOptimizer: no optimizer is routed to variables {unrouted}")
        return groups

    def bind(self, variables) -> _MultiBound:
        """The bound plan of an update of ``variables``: the bound plans of each optimizer's share."""
        return bound.bind(self, variables, _MultiBound)

    def _variables_to_apply(self) -> list:
        return [v for opt in self.optimizers for v in opt.state.tracked()]

    def preview(self, grads_and_vars, *, weight: float | None = None, slots: bool = False):
        """What :meth:`apply_gradients` would give, changing nothing (see :meth:`Optimizer.preview`)."""
        groups = self._split(grads_and_vars)
        values, slot_values = ByVariable(), ByVariable()
        for opt, _, _ in self._routes:
            if groups.get(id(opt)):
                out = opt.preview(groups[id(opt)], weight=weight, slots=slots)
                if slots:
                    values.update(out[0])
                    slot_values.update(out[1])
                else:
                    values.update(out)
        return (values, slot_values) if slots else values

    def variables(self) -> list:
        return [v for opt in self.optimizers for v in opt.variables()]

    def get_config(self) -> dict:
        return {"optimizers": [{"class_name": type(o).__name__, "config": o.get_config()} for o in self.optimizers]}


class _MultiBound:
    """An update of one list of variables by a :class:`MultiOptimizer`: each optimizer's bound plan of the
    variables routed to it (made when the list is bound); every share is prepared before any is committed."""

    __slots__ = ("_multi", "variables", "ids", "parts")

    def __init__(self, multi: MultiOptimizer, variables):
        self._multi, self.variables = bound.weak(multi), tuple(variables)
        self.ids = tuple(map(id, self.variables))
        positions: dict = {}
        for k, v in enumerate(self.variables):
            opt = multi.route(v) if isinstance(v, Variable) else None
            if opt is None:
                positions = None  # the general split reports it
                break
            positions.setdefault(id(opt), (opt, []))[1].append(k)
        self.parts = None if positions is None else [
            (opt.bind([self.variables[k] for k in ks]), ks) for opt, ks in positions.values()]

    def prepare(self, grads_and_vars, *, buffers: bool = False, **call) -> list:
        """``[(bound plan, its plan)]``, one per optimizer with a share; changes nothing."""
        pairs = grads_and_vars if type(grads_and_vars) in (list, tuple) else list(grads_and_vars)
        given = variables_of(pairs)
        if self.parts is not None and len(given) == len(self.variables) and all(map(operator.is_, given,
                                                                                     self.variables)):
            shares = [(b, [pairs[k] for k in ks]) for b, ks in self.parts]
        else:  # (pairs of other variables than bound, or malformed: split and reported as they come)
            multi = bound.strong(self._multi)
            groups = multi._split(pairs)
            shares = [(opt.bind(variables_of(groups[id(opt)])), groups[id(opt)]) for opt in multi.optimizers
                      if groups.get(id(opt))]
        # every optimizer prepares its plan before any commits: a bad value anywhere changes nothing anywhere
        return [(b, b.prepare(share, buffers=buffers, **call)) for b, share in shares]

    def commit(self, plans: list) -> None:
        for b, plan in plans:
            b.commit(plan)

    def apply(self, grads_and_vars, *, buffers: bool = False, **call) -> None:
        self.commit(self.prepare(grads_and_vars, buffers=buffers, **call))
