"""The update pipeline: what ``apply_gradients`` does, as an ordered list of stage objects.

``Optimizer.apply_gradients(pairs)`` is ``commit(prepare(pairs))``. :meth:`Pipeline.prepare`
runs each stage's ``prepare`` -- everything that can fail -- and records the outcome in an
:class:`UpdatePlan`, changing no variable, slot, accumulator or counter; :meth:`Pipeline.commit`
runs each stage's ``commit``, which only writes what the plan says and cannot fail on user input.
A composite (``MultiOptimizer``, several replicas) prepares every part before it commits any, so a
bad value anywhere changes nothing anywhere. A dry run (``Optimizer.preview``) commits the plan
into copies.

Each optimizer owns its pipeline. The stages (``STAGES`` names them, in order; a stage whose
option is off is left out of an update):

* ``validate`` (:mod:`.stages.gradients`): pairs, Variables, dtypes, shapes, sparse indices; ``None``
  gradients dropped with a warning; ``loss_scale_factor`` divided out.
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
* ``count`` (:mod:`.stages.finish`): ``iterations``, step state, counters (TF 1's ``global_step``),
  skipped steps.
* ``ema`` (finish): with ``use_ema``, the moving averages.

A strategy's aggregation stage is an :class:`Aggregation`: besides the sum (its ``prepare``) it
says whether every replica then holds the same sums (``replicated``), decides ``on_nonfinite``
with the other replicas (``any``), measures a global norm over gradients split across them
(``global_norm``) and finishes a committed update (``finish``: ZeRO's all-gather of new values).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..framework.variable import Variable

__all__ = ["STAGES", "Aggregation", "ByVariable", "Item", "Pipeline", "Stage", "UpdatePlan"]

STAGES = ("validate", "check_input", "accumulate", "aggregate", "clip", "check_applied", "resolve", "update", "count",
          "ema")


class ByVariable(dict):
    """A dict keyed by variable name that also takes the Variable itself as a key
    (Variables compare elementwise, so they cannot be dict keys themselves)."""

    @staticmethod
    def _key(k):
        return k.name if isinstance(k, Variable) else k

    def __getitem__(self, k):
        return super().__getitem__(self._key(k))

    def __setitem__(self, k, v):
        super().__setitem__(self._key(k), v)

    def __contains__(self, k):
        return super().__contains__(self._key(k))

    def get(self, k, default=None):
        return super().get(self._key(k), default)


@dataclass(slots=True)
class Item:
    """One variable's share of an update: its gradient as it will be applied and how."""

    var: Variable
    grad: np.ndarray | None        # dense gradient (None for a sparse item)
    indices: np.ndarray | None     # unique sorted rows of a sparse gradient
    values: np.ndarray | None      # their summed values
    path: str                      # "dense", "rows" (touched rows only), "densify" (exact sparse, scattered) or
    #                                "exact_lazy" (touched rows, first caught up over the steps they skipped)
    decay: dict | None             # weight-decay coefficients (None: no decay)
    decay_all_rows: bool = False   # exact sparse with a zero-is-identity rule: decay every row, update the touched
    constrained: tuple | None = None  # (new param, new slots) precomputed when the variable has a constraint


@dataclass
class UpdatePlan:
    """Everything one update will write, computed without writing anything.

    ``kind`` is ``"apply"`` (an update), ``"accumulate"`` (a micro-step of an
    accumulation cycle: only the sums change) or ``"skip"`` (a non-finite
    gradient under ``on_nonfinite="skip"``: only ``skipped_steps`` changes).
    """

    optimizer: object
    kind: str = "apply"
    items: list = field(default_factory=list)
    step: int = 0
    hyper: dict = field(default_factory=dict)
    coefficients: dict = field(default_factory=dict)   # dtype -> the rule's coefficients
    step_state: dict = field(default_factory=dict)     # name -> its value after this update
    new_step_state: dict = field(default_factory=dict)  # name -> initial value of step state created now
    new_slots: dict = field(default_factory=dict)      # id(var) -> (var, {slot name: initial array})
    accumulation: object = None                        # the accumulator's state after this call
    counters: list = field(default_factory=list)       # extra Variables to add one to (TF 1's global_step)
    targets: list = field(default_factory=list)        # the variables this call names (with a gradient)
    committed: bool = False
    # -- what the preparing stages hand each other
    rule: object = None                                # the optimizer's rule for this update
    aggregation: object = None                         # the Aggregation of this update (None: one replica)
    pairs: list = field(default_factory=list)          # (gradient, variable) as the stages transform them
    changed: list | None = None                        # which gradients a later check must look at (again)
    replicated: bool = False                           # every replica will hold the same sums: checked after them
    raw_global_clipnorm: float | None = None           # Hugging Face's call-level clip of the raw gradients
    weight: float | None = None                        # this micro-batch's weight (gradient accumulation)
    stages: tuple = ()                                 # the stages that prepared it (and commit it)

    @property
    def variables(self) -> list:
        """The variables this plan updates."""
        return [it.var for it in self.items]

    def add_counter(self, variable: Variable) -> None:
        """Also add one to ``variable`` (a scalar integer or float Variable) when this plan applies an update.

        Checked now: a wrong shape or dtype, or an integer that would overflow, raises here."""
        if not isinstance(variable, Variable):
            raise TypeError(f"a step counter must be a descend.Variable. Received: {type(variable).__name__}")
        if variable.shape != ():
            raise ValueError(f"step counter '{variable.name}' must be a scalar. Received shape {variable.shape}")
        dt = variable.dtype
        if dt.kind not in "iuf":
            raise TypeError(f"step counter '{variable.name}' must have an integer or float dtype. Received {dt.name}")
        value = variable.numpy()
        if dt.kind in "iu" and self.kind == "apply" and int(value) >= np.iinfo(dt).max:
            raise OverflowError(f"step counter '{variable.name}' of dtype {dt.name} is at its maximum "
                                f"{int(value)}: one more step would wrap around")
        if any(c is variable for c in self.counters):
            raise ValueError(f"step counter '{variable.name}' was added twice")
        self.counters.append(variable)


class Stage:
    """One stage of an update: ``prepare`` (may fail, changes nothing) and ``commit`` (writes what the plan
    says, cannot fail). ``prepare`` may end the preparation early by setting ``plan.kind`` to ``"skip"`` or
    ``"accumulate"``; a stage whose ``commits_always`` is False commits only plans that apply an update."""

    name = "stage"
    commits_always = False

    def prepare(self, plan: UpdatePlan) -> None:
        """Check and transform ``plan`` (``plan.pairs``, ...); raise to refuse the update."""

    def commit(self, plan: UpdatePlan) -> None:
        """Write what ``plan`` says."""

    def __repr__(self):
        return f"<stage {self.name}>"


class Aggregation(Stage):
    """The ``aggregate`` stage of a distribution strategy (or of Horovod's ``DistributedOptimizer``): sums
    ``plan.pairs`` across the replicas in ``prepare``. One process needs none."""

    name = "aggregate"

    def replicated(self, optimizer, pairs) -> bool:
        """True when every replica will hold the same sum of each of these gradients (the ``on_nonfinite``
        check then waits for the sums: NaN and Inf propagate through addition, so all decide alike)."""
        return False

    def any(self, optimizer, pairs, found: bool) -> bool:
        """Whether any replica found a non-finite gradient (every replica gets the same answer)."""
        return found

    def global_norm(self, optimizer, pairs):
        """The global norm of gradients split across the replicas (a Tensor), or None when each replica
        holds all of them."""
        return None

    def finish(self, plan: UpdatePlan) -> None:
        """After every stage committed (sharded optimizer state: the owners' new values to every replica)."""


class Pipeline:
    """An optimizer's stages, in order (``stages``), and the update they make together.

    ``stages`` holds every stage the optimizer may run; :meth:`active` picks those an update runs (a stage
    whose option is off is left out). ``aggregation`` is the aggregation stage set explicitly (Horovod's
    ``DistributedOptimizer``); otherwise the strategy under which the update runs hands one over."""

    def __init__(self, stages):
        self.stages = list(stages)
        self.aggregation: Aggregation | None = None

    def replace(self, name: str, stage: Stage) -> None:
        """Put ``stage`` in place of the stage named ``name``."""
        for k, s in enumerate(self.stages):
            if s.name == name:
                self.stages[k] = stage
                return
        raise KeyError(f"no stage named {name!r}; the stages are {[s.name for s in self.stages]}")

    def active(self, optimizer, aggregation, stages) -> tuple:
        """The stages of ``stages`` an update runs, with ``aggregation`` before ``clip``."""
        out = []
        for s in stages:
            if s.name == "clip" and aggregation is not None:
                out.append(aggregation)
            active = getattr(s, "active", None)
            if active is None or active(optimizer):
                out.append(s)
        return tuple(out)

    def prepare(self, plan: UpdatePlan) -> UpdatePlan:
        """Run the first stage (``validate``), find the aggregation stage of the variables it names (the one
        set on this pipeline, else the strategy's: ``Optimizer.aggregation_for``), then every other active
        stage's ``prepare`` on ``plan`` (until one ends the preparation)."""
        first = self.stages[0]
        first.prepare(plan)
        opt = plan.optimizer
        plan.aggregation = opt.aggregation_for(plan.targets)
        plan.stages = (first, *self.active(opt, plan.aggregation, self.stages[1:]))
        for stage in plan.stages[1:]:
            stage.prepare(plan)
            if plan.kind != "apply":
                break
        return plan

    def commit(self, plan: UpdatePlan) -> None:
        """Run every stage's ``commit`` (only those that always commit when the plan applies no update)."""
        applies = plan.kind == "apply"
        for stage in plan.stages:
            if applies or stage.commits_always:
                stage.commit(plan)
        if applies and plan.aggregation is not None:
            plan.aggregation.finish(plan)
