"""The update pipeline: what ``apply_gradients`` does, as named stages.

``Optimizer.apply_gradients(pairs)`` is ``commit(prepare(pairs))``.
:func:`prepare` runs every stage that can fail and records the outcome in an
:class:`UpdatePlan`, changing no variable, slot, accumulator or counter;
:func:`commit` only writes what the plan says and cannot fail on user input.
A composite (``MultiOptimizer``, several replicas) prepares every part before
it commits any, so a bad value anywhere changes nothing anywhere. A dry run
(``Optimizer.preview``) commits the plan into copies.

The stages, in order (``STAGES`` names them):

1. ``validate``: pairs, Variables, dtypes, shapes, sparse indices; ``None``
   gradients are dropped with a warning.
   ``unscale``: with Keras 3's ``loss_scale_factor``, each gradient divided by
   the factor the loss was multiplied by (``scale_loss``).
2. ``check_input``: the ``on_nonfinite`` policy on the raw gradients.
3. ``accumulate``: with ``gradient_accumulation_steps = k``, add this
   micro-batch (weighted) to the running sums; the first k-1 calls of a cycle
   end here (the plan only carries the new sums).
4. ``aggregate``: sum across replicas (identity in one process; a
   distribution strategy plugs in here).
5. ``deduplicate``: sum the rows of repeated sparse indices (after an optional
   call-level global-norm clip of the raw gradients, Hugging Face's
   ``apply_gradients(clip_norm=...)``).
6. ``clip``: ``clipnorm``, ``clipvalue`` or ``global_clipnorm``.
7. ``check_applied``: the ``on_nonfinite`` policy again on what will be
   applied (clipping can overflow a finite gradient into Inf/NaN).
8. ``resolve``: hyperparameters and schedules at this step, optimizer-level
   step state advanced, per-step coefficients per dtype, weight-decay factors,
   new slots' initial values, outputs of constraints that can be computed now.
9. commit: ``decay``, ``rule``, ``constrain``, ``count`` (iterations,
   step state, extra counters such as TF 1's ``global_step``, accumulator reset),
   then ``ema`` (with ``use_ema``: the moving average of every variable the
   optimizer keeps one for, from the values just written, and every
   ``ema_overwrite_frequency`` updates the averages copied into the variables).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from ..debugging import missing_gradients_report
from ..errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import Tensor
from ..framework.variable import Variable
from ..ops import clip_ops
from ..ops.gradient_ops import deduplicate_checked
from . import accumulation

__all__ = ["STAGES", "ByVariable", "Item", "UpdatePlan"]

#: the ``aggregate`` stage's cross-replica sum, ``fn(optimizer, pairs) -> pairs``; ``descend.distribute``
#: installs it (None: one process, the stage is the identity)
cross_replica_sum = None
#: hooks of a strategy that shards the optimizer's state (``descend.distribute.zero``; None: every replica holds
#: every gradient): ``cross_replica_norm(optimizer, pairs)`` -> the global norm of gradients split over the
#: replicas (a Tensor) or None; ``cross_replica_any(optimizer, pairs, found)`` -> whether any replica found a
#: non-finite gradient; ``after_commit(optimizer, plan)`` runs at the end of a commit that applied an update
cross_replica_norm = None
cross_replica_any = None
after_commit = None
#: ``replicated_sum(optimizer, pairs) -> bool``: True when the ``aggregate`` stage will hand every replica the same
#: sum of every one of these gradients (several replicas, nothing sharded, nothing rank-local). Without gradient
#: accumulation the ``on_nonfinite`` check then waits for the sums: a NaN or Inf on any replica is in them (both
#: propagate through addition), and every replica, holding the same bits, decides alike without a message.
replicated_sum = None
#: ``hooks_idle(optimizer, pairs) -> bool``, without side effects: True when none of the hooks above will
#: communicate or change anything in this update of ``optimizer`` with these ``(gradient, variable)`` pairs (no
#: strategy with more than one replica is active or owns the variables). A step may then leave the hooks out:
#: the batched step (``descend.optimizers.batched``) runs only where no hook is installed or this says True.
#: None: unknown (the batched step stands aside while any hook is installed)
hooks_idle = None

STAGES = ("validate", "unscale", "check_input", "accumulate", "aggregate", "deduplicate", "clip", "check_applied", "resolve",
          "decay", "rule", "constrain", "count", "ema")


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


# ------------------------------------------------------------------------------------------- stages that can fail
def validate(opt, grads_and_vars, route_check=None) -> list:
    """Stage ``validate``: ``[(gradient, variable)]`` checked and normalized to arrays or IndexedSlices."""
    pairs, skipped, seen = [], [], set()
    for item in grads_and_vars:
        try:
            grad, var = item
        except (TypeError, ValueError):
            raise TypeError(f"apply_gradients expects (gradient, variable) pairs. Received: {item!r}") from None
        if not isinstance(var, Variable):
            raise TypeError(f"apply_gradients: expected a descend.Variable. Received: {type(var).__name__}")
        if id(var) in seen:
            raise ValueError(f"apply_gradients: variable '{var.name}' appears more than once")
        seen.add(id(var))
        if route_check is not None:
            route_check(var)
        if grad is None:
            skipped.append(var)
            continue
        if type(grad) is Tensor:  # the common case, checked inline: a float Tensor of var's dtype and shape
            gv, vv = grad._value, var._value
            if gv.dtype is vv.dtype and gv.shape == vv.shape and vv.dtype.kind == "f":
                pairs.append((gv, var))
                continue
        pairs.append((_check_gradient(grad, var), var))
    if not pairs:
        raise ValueError(f"No gradients provided for any variable: {[v.name for v in skipped]}\n"
                         + missing_gradients_report(skipped))
    if skipped:
        warnings.warn(f"Gradients do not exist for variables {[v.name for v in skipped]} when minimizing the loss; "
                      "they are left unchanged\n" + missing_gradients_report(skipped), stacklevel=4)
    return pairs


def unscale(opt, pairs):
    """Stage ``unscale``: with ``loss_scale_factor`` set (Keras 3), each gradient divided by it, in the
    gradient's dtype (new arrays); the identity otherwise. It runs before the input check, so a factor
    below 1 that overflows a gradient is caught there."""
    factor = opt.loss_scale_factor
    if factor is None:
        return pairs
    out = []
    for g, v in pairs:
        if isinstance(g, IndexedSlices):
            values = g.values._value
            out.append((IndexedSlices(Tensor(values / values.dtype.type(factor)), g.indices, g.dense_shape), v))
        else:
            out.append((g / g.dtype.type(factor), v))
    return out


def _check_gradient(grad, var: Variable):
    vd = var._value.dtype
    if vd.kind != "f":
        raise TypeError(f"variable '{var.name}' has dtype {vd.name}; optimizers update floating-point variables")
    if isinstance(grad, IndexedSlices):
        gd = grad.values._value.dtype
        if gd != vd:  # as Keras 3: a gradient of another numeric dtype is cast to the variable's
            if gd.kind not in "fiu":
                raise TypeError(f"gradient for variable '{var.name}': expected dtype {vd.name}, received {gd.name}")
            grad = IndexedSlices(Tensor(grad.values._value.astype(vd)), grad.indices, grad.dense_shape)
        if grad.dense_shape is not None and tuple(grad.dense_shape) != var.shape:
            raise ValueError(f"gradient for variable '{var.name}': expected shape {var.shape}, "
                             f"received IndexedSlices of dense_shape {tuple(grad.dense_shape)}")
        if grad.values.shape[1:] != var.shape[1:]:
            raise ValueError(f"gradient for variable '{var.name}': expected rows of shape {var.shape[1:]}, "
                             f"received values of shape {grad.values.shape}")
        idx = grad.indices._value
        if idx.size and (idx.min() < 0 or idx.max() >= var.shape[0]):
            bad = idx[(idx < 0) | (idx >= var.shape[0])][0]
            raise InvalidArgumentError(f"gradient for variable '{var.name}': index {int(bad)} is not in "
                                       f"[0, {var.shape[0]})")
        if grad.dense_shape is None:
            grad = IndexedSlices(grad.values, grad.indices, var.shape)
        return grad
    if isinstance(grad, (Tensor, Variable)):
        arr = grad._value
    else:
        arr = np.asarray(grad)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"gradient for variable '{var.name}': expected a numeric array. Received {grad!r}")
        if not isinstance(grad, np.ndarray):
            arr = arr.astype(vd)
    if arr.dtype != vd:  # as Keras 3: a gradient of another numeric dtype is cast to the variable's
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"gradient for variable '{var.name}': expected dtype {vd.name}, received {arr.dtype.name}")
        arr = arr.astype(vd)
    if arr.shape != var.shape:
        raise ValueError(f"gradient for variable '{var.name}': expected shape {var.shape}, received {arr.shape}")
    return arr


def _arrays(pairs):
    return [g.values._value if isinstance(g, IndexedSlices) else g for g, _ in pairs]


def check_nonfinite(opt, pairs, what: str, only=None, *, replicated: bool = False):
    """Stages ``check_input`` and ``check_applied``: the ``on_nonfinite`` policy.

    ``only`` (a list of booleans) limits the check to the gradients a stage produced anew;
    ``replicated``: every replica checks the same gradients (the sums), so none needs to hear from the
    others. Returns the pairs (non-finite elements zeroed under ``"zero"``) or None (skip the step)."""
    policy = opt.on_nonfinite
    agree = cross_replica_any if policy in ("raise", "skip") and not replicated else None
    if policy == "apply" or (agree is None and only is not None and not any(only)):
        return pairs
    arrays = _arrays(pairs)
    positions = range(len(arrays)) if only is None else [i for i, flag in enumerate(only) if flag]
    checked = [arrays[i] for i in positions]
    first = opt.kernels_find_nonfinite(checked) if checked else -1
    if first is None:
        # the sum is a fast pre-check: it is finite unless an element is not (or it overflows)
        first = next((k for k, a in enumerate(checked) if not (np.isfinite(np.sum(a)) or np.isfinite(a).all())), -1)
    if agree is not None and agree(opt, pairs, first >= 0) and first < 0:  # all-or-nothing across replicas
        if policy == "raise":
            raise InvalidArgumentError(
                f"{what} on another replica contains NaN or Inf (on_nonfinite='raise'); nothing was updated. Use "
                "on_nonfinite='skip' or 'zero' to carry on")
        return None
    if first < 0:
        return pairs
    first = list(positions)[first]
    if policy == "raise":
        bad = "NaN" if np.isnan(arrays[first]).any() else "Inf"
        raise InvalidArgumentError(
            f"{what} for variable '{pairs[first][1].name}' contains {bad} (on_nonfinite='raise'); nothing was "
            "updated. Use on_nonfinite='skip' or 'zero' to carry on")
    if policy == "skip":
        return None
    pairs = list(pairs)
    for k in range(first, len(pairs)):
        g, var = pairs[k]
        arr = arrays[k]
        finite = np.isfinite(arr)
        if finite.all():
            continue
        clean = np.where(finite, arr, arr.dtype.type(0))
        pairs[k] = (IndexedSlices(Tensor(clean), g.indices, g.dense_shape) if isinstance(g, IndexedSlices) else clean,
                    var)
    return pairs


def accumulate(opt, state, pairs, weight):
    """Stage ``accumulate``: the accumulator's state after adding this micro-batch (nothing is changed)."""
    return accumulation.add(state, pairs, 1.0 if weight is None else weight)


def deduplicate_and_clip(opt, pairs, raw_global_clipnorm=None, changed=None):
    """Stages ``deduplicate`` and ``clip`` (Keras 3 order: de-duplicate, then clip).

    Returns ``(pairs, changed)``: ``changed[i]`` says whether gradient i may hold a non-finite value the
    input check did not see (a sum of repeated rows, a per-tensor clip, a global clip whose norm
    overflowed); only those are checked again. ``changed`` comes in from the earlier stages."""
    changed = [False] * len(pairs) if changed is None else list(changed)
    if raw_global_clipnorm is not None:  # Hugging Face clips the raw gradients, before de-duplication
        pairs, finite = _global_clip(pairs, raw_global_clipnorm, opt)
        changed = [c or not finite for c in changed]
    out = []
    for i, (g, v) in enumerate(pairs):
        if type(g) is IndexedSlices:
            d, finite = deduplicate_checked(g)
            # the kernel that summed the rows checked them (a sum is finite only when all its terms are)
            changed[i] = (changed[i] or d is not g) if finite is None else not finite
            g = d
        out.append((g, v))
    pairs = out
    if opt.clipnorm is not None:
        pairs = [(_as_array(clip_ops.clip_by_norm(_as_tensor(g), opt.clipnorm)), v) for g, v in pairs]
        changed = [True] * len(pairs)
    elif opt.clipvalue is not None:  # clipping finite values to a finite range keeps them finite
        pairs = [(_as_array(clip_ops.clip_by_value(_as_tensor(g), -opt.clipvalue, opt.clipvalue)), v) for g, v in pairs]
    elif opt.global_clipnorm is not None:
        pairs, finite = _global_clip(pairs, opt.global_clipnorm, opt)
        changed = [c or not finite for c in changed]
    return pairs, changed


def _global_clip(pairs, clip_norm, opt=None):
    """Clip together to ``clip_norm``; also says whether the global norm was finite (then, every value
    being finite before, every clipped value is: the scale is at most 1). When the replicas hold parts of the
    gradients (sharded optimizer state), the norm is the norm of all of them (``cross_replica_norm``)."""
    norm = None if opt is None or cross_replica_norm is None else cross_replica_norm(opt, pairs)
    clipped, norm = clip_ops.clip_by_global_norm([_as_tensor(g) for g, _ in pairs], clip_norm, use_norm=norm)
    return [(_as_array(c), v) for c, (_, v) in zip(clipped, pairs)], bool(np.isfinite(float(norm)))


def _as_tensor(g):
    return g if isinstance(g, IndexedSlices) else Tensor(g)


def _as_array(g):
    return g if isinstance(g, IndexedSlices) else g._value


def items(opt, pairs, hyper, decay_of) -> list:
    """The plan's items: how each variable's gradient is applied, and its weight-decay coefficients
    (``decay_of(var, hyper)``; None when no variable decays)."""
    out = []
    for g, var in pairs:
        decay = None if decay_of is None else decay_of(var, hyper)
        if type(g) is not IndexedSlices:
            out.append(Item(var, g, None, None, "dense", decay))
            continue
        idx, vals = g.indices._value, g.values._value
        if opt.sparse_updates == "lazy":
            out.append(Item(var, None, idx, vals, "rows", decay))
        elif opt.sparse_updates == "exact_lazy":
            # exact at the touched rows' cost: they are caught up over the steps they skipped, then updated
            out.append(Item(var, None, idx, vals, "exact_lazy", decay))
        elif opt.rule_kind == "elementwise" and opt.zero_grad_is_identity:
            # exact == the touched rows, since a zero gradient changes nothing; the decay still covers every row
            out.append(Item(var, None, idx, vals, "rows", decay, decay_all_rows=decay is not None))
        else:
            out.append(Item(var, None, idx, vals, "densify", decay))
    return out



# ------------------------------------------------------------------------------------------- commit stages
def moving_average(pairs, momentum: float, *, first: bool, fresh=frozenset()) -> None:
    """Stage ``ema``: ``average <- m * average + (1 - m) * var`` for each ``(var, average)``, in the
    variable's dtype (Keras 3's arithmetic). ``m`` is 0 on the optimizer's first update (``first``) and for
    the averages created by this update (``id(var)`` in ``fresh``), else ``momentum``."""
    for var, average in pairs:
        value = var._value
        m = value.dtype.type(0.0 if first or id(var) in fresh else momentum)
        average._value[...] = m * average._value + (value.dtype.type(1) - m) * value
        average._mark_updated()
