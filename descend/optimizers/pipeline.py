"""The update pipeline: what ``apply_gradients`` does, as an ordered list of stage objects.

``Optimizer.apply_gradients(pairs)`` is ``bind(variables).apply(pairs)``
(:mod:`descend.optimizers.bound`), which is ``commit(prepare(pairs))``. :meth:`Pipeline.prepare`
runs each stage's ``prepare`` -- everything that can fail -- and records the outcome in an
:class:`UpdatePlan`, changing no variable, slot, accumulator or counter; :meth:`Pipeline.commit`
runs each stage's ``commit``, which only writes what the plan says and cannot fail on user input.
A composite (``MultiOptimizer``, several replicas) prepares every part before it commits any, so a
bad value anywhere changes nothing anywhere. A dry run (``Optimizer.preview``) commits the plan
into copies.

Each optimizer owns its pipeline. The stages (``STAGES`` names them, in order; a stage says itself
whether an update runs it, from the optimizer's :class:`~descend.optimizers.options.Options`, and
whether it has a batched form: :class:`~descend.optimizers.update_plan.Stage`):

* ``validate`` (:mod:`.stages.gradients`): pairs, Variables, dtypes, shapes, sparse indices; ``None``
  gradients dropped with a warning; the variables with ``overwrite_with_gradient`` set aside (they take
  their gradients, written when the update commits); ``loss_scale_factor`` divided out.
* ``check_input`` (gradients): the ``on_nonfinite`` policy on the raw gradients.
* ``accumulate`` (:mod:`.stages.accumulate`): with ``gradient_accumulation_steps``, the running sums; the
  first k-1 calls of a cycle end here.
* ``aggregate``: the sum across replicas -- the stage a strategy, Horovod's ``DistributedOptimizer`` or
  ZeRO hands over (in ``descend.distribute``); one process has none.
* ``clip`` (gradients): sparse rows de-duplicated, then ``clipnorm``, ``clipvalue`` or ``global_clipnorm``.
* ``check_applied`` (gradients): ``on_nonfinite`` again on what a stage produced anew (sums, clips).
* ``resolve`` (:mod:`.stages.update`): hyperparameters and schedules at this step, step state,
  coefficients, new slots, weight-decay factors, outputs of constraints.
* ``update`` (update): the writes -- weight decay, the rule, constrained values.
* ``count`` (:mod:`.stages.update`): ``iterations``, step state, counters (TF 1's ``global_step``),
  skipped steps.
* ``ema`` (finish): with ``use_ema``, the moving averages.

A strategy's aggregation stage is an :class:`Aggregation`: besides the sum (its ``prepare``) it
makes a replica's rejected gradients an error on every replica (``agree``, right after
``validate``), says whether every replica then holds the same sums (``replicated``), decides
``on_nonfinite`` with the other replicas (``any``), measures a global norm over gradients split
across them (``global_norm``) and finishes a committed update (``finish``: ZeRO's all-gather of new
values).
"""

from __future__ import annotations

from ..framework import context
from . import stages
from .update_plan import STAGES, Aggregation, ByVariable, Item, Stage, UpdatePlan

__all__ = ["STAGES", "Aggregation", "ByVariable", "Item", "Pipeline", "Stage", "UpdatePlan", "aggregation_for"]


def aggregation_for(optimizer, variables):
    """The aggregation stage an update of ``variables`` by ``optimizer`` runs: the one set on its pipeline,
    else the one of the strategy active (or owning the variables), else None (one replica)."""
    agg = optimizer.pipeline.aggregation
    if agg is not None:
        return agg
    strategy = context.strategy_for(variables)
    if strategy is None or strategy.num_replicas_in_sync == 1:
        return None
    return strategy.aggregation_for(optimizer)


def _variables_named(pairs) -> list:
    """The variables of the well-formed ``(gradient, variable)`` pairs of a list the ``validate`` stage
    rejected (to find the aggregation stage the other replicas run)."""
    if not isinstance(pairs, (list, tuple)):
        return []
    return [item[1] for item in pairs if isinstance(item, (list, tuple)) and len(item) == 2]


class Pipeline:
    """An optimizer's stages, in order (``stages``), and the update they make together.

    ``stages`` holds every stage the optimizer may run; :meth:`active` picks those an update runs.
    ``aggregation`` is the aggregation stage set explicitly (Horovod's ``DistributedOptimizer``); otherwise
    the strategy under which the update runs hands one over."""

    def __init__(self, stage_list=None):
        self.stages = stages.default() if stage_list is None else list(stage_list)
        self.aggregation: Aggregation | None = None

    def replace(self, name: str, stage: Stage) -> None:
        """Put ``stage`` in place of the stage named ``name``."""
        for k, s in enumerate(self.stages):
            if s.name == name:
                self.stages[k] = stage
                return
        raise KeyError(f"no stage named {name!r}; the stages are {[s.name for s in self.stages]}")

    def active(self, optimizer, aggregation, stages) -> tuple:
        """The stages of ``stages`` an update of ``optimizer`` runs (each stage says whether it is active:
        :meth:`Stage.active`), with ``aggregation`` before ``clip``."""
        out = []
        for s in stages:
            if s.name == "clip" and aggregation is not None:
                out.append(aggregation)
            if s.active(optimizer):
                out.append(s)
        return tuple(out)

    def prepare(self, plan: UpdatePlan) -> UpdatePlan:
        """Run the first stage (``validate``), find the aggregation stage of the variables it names (the one
        set on this pipeline, else the strategy's: ``Optimizer.aggregation_for``), then every other active
        stage's ``prepare`` on ``plan`` (until one ends the preparation)."""
        first, opt = self.stages[0], plan.optimizer
        try:
            if type(plan.pairs) not in (list, tuple):  # a zip, a generator: kept, to name the variables on failure
                plan.pairs = list(plan.pairs)
            first.prepare(plan)
        except Exception as error:  # the other replicas must hear of it, or they would wait for this one
            agg = aggregation_for(opt, _variables_named(plan.pairs))
            if agg is not None:
                agg.agree(opt, error)
            raise
        plan.aggregation = aggregation_for(opt, plan.targets)
        if plan.aggregation is not None:
            plan.aggregation.agree(opt, None)
        plan.stages = (first, *self.active(opt, plan.aggregation, self.stages[1:]))
        for stage in plan.stages[1:]:
            if plan.kind != "apply":
                break
            if stage.prepare is not None:
                stage.prepare(plan)
        return plan

    def commit(self, plan: UpdatePlan) -> None:
        """Run every stage's ``commit`` (only those that always commit when the plan applies no update)."""
        applies = plan.kind == "apply"
        for stage in plan.stages:
            if stage.commit is not None and (applies or stage.commits_always):
                stage.commit(plan)
        if applies and plan.aggregation is not None:
            plan.aggregation.finish(plan)
