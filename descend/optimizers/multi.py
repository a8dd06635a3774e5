"""``MultiOptimizer``: different optimizers for disjoint parts of one model."""

from __future__ import annotations

import re

from ..framework.variable import Variable
from .optimizer import Optimizer
from .plan import ByVariable

__all__ = ["MultiOptimizer"]


class MultiOptimizer:
    """Route each variable to one optimizer, by variable list or by name pattern.

    Args:
        routes: ``[(optimizer, spec), ...]`` where ``spec`` is a list of
            Variables, or a regular expression (``re.search`` on the variable
            name), or a list mixing both. The first route that matches wins.

    Each optimizer keeps its own slots and ``iterations``. An update is
    all-or-nothing across the optimizers: every gradient is validated (and
    routed) before any optimizer changes anything. A sub-optimizer refuses a
    variable routed to another one.

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
        for opt, ids, patterns in self._routes:
            if id(var) in ids or any(p.search(var.name) for p in patterns):
                return opt
        return None

    def check_route(self, opt: Optimizer, var: Variable) -> None:
        """Raise unless ``var`` is routed to ``opt``."""
        owner = self.route(var)
        if owner is not opt:
            where = "no optimizer" if owner is None else f"optimizer '{owner.name}'"
            raise ValueError(
                f"variable '{var.name}' is routed to {where} of this MultiOptimizer, not to '{opt.name}'"
            )

    def _split(self, grads_and_vars) -> dict:
        groups: dict[int, list] = {}
        unrouted = []
        for item in grads_and_vars:
            try:
                grad, var = item
            except (TypeError, ValueError):
                raise TypeError(f"apply_gradients expects (gradient, variable) pairs. Received: {item!r}") from None
            opt = self.route(var) if isinstance(var, Variable) else None
            if opt is None:
                unrouted.append(getattr(var, "name", repr(var)))
                continue
            groups.setdefault(id(opt), []).append((grad, var))
        if unrouted:
            raise ValueError(f"MultiOptimizer: no optimizer is routed to variables {unrouted}")
        return groups

    def apply_gradients(self, grads_and_vars, *, weight: float | None = None) -> None:
        """Split the pairs by route, validate all of them, then let each optimizer update its share.

        Each optimizer applies its own ``on_nonfinite`` policy and gradient
        accumulation; ``weight`` is the micro-batch weight for accumulation.
        """
        groups = self._split(grads_and_vars)
        # every optimizer prepares its plan before any commits: a bad value anywhere changes nothing anywhere
        plans = [opt.prepare(groups[id(opt)], weight=weight) for opt, _, _ in self._routes if groups.get(id(opt))]
        for plan in plans:
            plan.optimizer.commit(plan)

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
