"""Stage ``accumulate``: with ``gradient_accumulation_steps = k``, each call adds its (weighted)
micro-batch to the running sums; the first k-1 calls of a cycle end the update here, the k-th goes
on with the weighted mean. The sums are new arrays: a call refused by a later stage leaves them as
they were."""

from __future__ import annotations

from ...framework.indexed_slices import IndexedSlices
from .. import accumulation
from ..update_plan import Stage, UpdatePlan

__all__ = ["Accumulate"]


class Accumulate(Stage):
    name = "accumulate"
    commits_always = True  # a micro-step's plan commits its sums; a skipped step drops the cycle

    def active(self, optimizer) -> bool:
        return optimizer.options.gradient_accumulation_steps is not None

    def prepare(self, plan: UpdatePlan) -> None:
        opt = plan.optimizer
        state = accumulation.add(opt.state.accumulator_for(plan.pairs), plan.pairs,
                                 1.0 if plan.weight is None else plan.weight)
        if state.step < opt.gradient_accumulation_steps:
            plan.kind, plan.accumulation = "accumulate", state
            return
        plan.accumulation = accumulation.AccumulatorState((), (), 0, 0.0)  # the cycle closes
        plan.pairs = [(g if isinstance(g, IndexedSlices) else g._value, v)
                      for g, v in zip(accumulation.mean(state), state.keys) if g is not None]
        plan.changed = [True] * len(plan.pairs)  # sums of finite values can overflow

    def commit(self, plan: UpdatePlan) -> None:
        if plan.accumulation is not None:  # a skip after accumulation drops the cycle whose sum was not finite
            state = plan.optimizer.state
            state.accumulator, state.accumulator_restored = plan.accumulation, None
        agg = plan.aggregation
        if plan.kind == "accumulate" and (agg is None or agg.replicated(plan.optimizer, plan.pairs)):
            # the slots exist from the first micro-step on, as Keras' build makes them: a compiled step then
            # creates every variable on its first call, whichever call of the cycle applies the update (under
            # sharded optimizer state each replica makes the slots of its share when it first applies)
            plan.optimizer.build([v for _, v in plan.pairs])
