"""What the stages of an update hand each other: the :class:`UpdatePlan` (everything one update will
write, computed before anything is written), its :class:`Item` per variable, and the two protocols a
stage implements, :class:`Stage` and (summing across replicas) :class:`Aggregation`. The pipeline that
runs them is :mod:`descend.optimizers.pipeline`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..framework.variable import Variable

__all__ = ["STAGES", "Aggregation", "ByVariable", "Item", "Stage", "UpdatePlan", "check_uncommitted", "pairs_of"]

STAGES = ("validate", "check_input", "accumulate", "aggregate", "clip", "check_applied", "resolve", "update", "count",
          "ema")


class ByVariable(dict):
    """A dict keyed by variable name that also takes the Variable itself as a key
    (Variables compare elementwise, so they cannot be dict keys themselves)."""

    @staticmethod
    def _key(k):
        return k.scoped_name if isinstance(k, Variable) else k

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


def pairs_of(grads_and_vars):
    """Each ``(gradient, variable)`` of ``grads_and_vars`` (any iterable of pairs), in order.

    Raises:
        TypeError: at the first item that is not a pair, naming it.
    """
    for item in grads_and_vars:
        try:
            grad, var = item
        except (TypeError, ValueError):
            raise TypeError(f"apply_gradients expects (gradient, variable) pairs. Received: {item!r}") from None
        yield grad, var


def check_uncommitted(plan, step: int) -> None:
    """Refuse to commit ``plan`` (an :class:`UpdatePlan` or a batched step) twice, or at another step than the
    one it was prepared at (the optimizer moved on since: the plan's values are stale)."""
    if plan.committed:
        raise ValueError("this plan was already committed")
    if plan.step != step:
        raise ValueError(f"this plan was prepared at step {plan.step}; the optimizer is at step {step}: prepare "
                         "it again")


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
    overwrites: list = field(default_factory=list)     # (dense gradient, variable) of overwrite_with_gradient ones
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
    sparse_mode: str = "exact"                         # the optimizer's sparse_updates for this update

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
    """One stage of an update. It defines ``prepare(plan)`` (may fail, changes nothing), ``commit(plan)``
    (writes what the plan says, cannot fail), or both; ``None`` where it has nothing to do. ``prepare`` may
    end the preparation early by setting ``plan.kind`` to ``"skip"`` or ``"accumulate"``; a stage whose
    ``commits_always`` is False commits only plans that apply an update.

    A stage says itself whether an update of an optimizer runs it (:meth:`active`, from the optimizer's
    :class:`~descend.optimizers.options.Options`) and whether it has a *batched form* for that optimizer now
    (:meth:`batches`): its part of the batched dense step (:mod:`descend.optimizers.bound`), given by
    :meth:`prepare_batched` and :meth:`commit_batched`. A step takes the batched path only when every active
    stage batches; a stage that does not say (the default) keeps every update on the general pipeline."""

    name = "stage"
    prepare = None
    commit = None
    commits_always = False

    def active(self, optimizer) -> bool:
        """Whether an update of ``optimizer`` runs this stage (default: always)."""
        return True

    def batches(self, optimizer) -> bool:
        """Whether this stage, active for ``optimizer``, has a batched form now (default: no)."""
        return False

    def prepare_batched(self, step) -> bool:
        """This stage's part of preparing a batched step (a :class:`~descend.optimizers.bound.BatchedStep`);
        False: the step must take the general pipeline (nothing was changed). Default: nothing to do."""
        return True

    def commit_batched(self, step) -> None:
        """This stage's writes of a prepared batched step (cannot fail). Default: none."""

    def __repr__(self):
        return f"<stage {self.name}>"


class Aggregation(Stage):
    """The ``aggregate`` stage of a distribution strategy (or of Horovod's ``DistributedOptimizer``): sums
    ``plan.pairs`` across the replicas in ``prepare``. One process needs none."""

    name = "aggregate"

    def prepare(self, plan: UpdatePlan) -> None:
        """Sum ``plan.pairs`` over the replicas (set ``plan.changed`` for the sums)."""
        raise NotImplementedError

    def replicated(self, optimizer, pairs) -> bool:
        """True when every replica will hold the same sum of each of these gradients (the ``on_nonfinite``
        check then waits for the sums: NaN and Inf propagate through addition, so all decide alike)."""
        return False

    def any(self, optimizer, pairs, found: bool) -> bool:
        """Whether any replica found a non-finite gradient (every replica gets the same answer)."""
        return found

    def agree(self, optimizer, error: Exception | None) -> None:
        """Called on every replica at every update, right after ``validate``, with the error it raised on this
        replica (None: the gradients were accepted). When a replica's gradients were rejected, raise on every
        other replica too (the replica that rejected them raises its own error), so that no replica waits for
        an exchange that will not come, even when the program catches the error and carries on. One replica
        has nothing to agree on."""

    def global_norm(self, optimizer, pairs):
        """The global norm of gradients split across the replicas (a Tensor), or None when each replica
        holds all of them."""
        return None

    def finish(self, plan: UpdatePlan) -> None:
        """After every stage committed (sharded optimizer state: the owners' new values to every replica)."""
