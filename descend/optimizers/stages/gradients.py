"""The stages that check and transform the gradients: ``validate``, ``check_input``, ``clip``
(de-duplication of sparse rows, then clipping) and ``check_applied``."""

from __future__ import annotations

import warnings

import numpy as np

from ..._native import backend as _backend
from ...debugging import missing_gradients_report
from ...errors import InvalidArgumentError
from ...framework.indexed_slices import IndexedSlices
from ...framework.tensor import Tensor
from ...framework.variable import Variable, overwrites_in_use
from ...ops import clip_ops
from ...ops.gradient_ops import deduplicate_checked
from ..update_plan import Stage, UpdatePlan, pairs_of

__all__ = ["Validate", "CheckInput", "Clip", "CheckApplied", "validate", "check_nonfinite", "clip"]


# ------------------------------------------------------------------------------------------------- validate
class Validate(Stage):
    """Stage ``validate``: ``[(gradient, variable)]`` checked and normalized to arrays or IndexedSlices
    (``None`` gradients dropped with a warning), then divided by ``loss_scale_factor`` (Keras 3's
    ``scale_loss``) when one is set. Decides which later check looks at which gradient."""

    name = "validate"

    def batches(self, optimizer) -> bool:
        # the batched step's gradients are checked when it binds them (type, dtype, shape, layout; a bound plan
        # checks the routes of its variables once); a loss-scale factor to divide out has no batched form
        return optimizer.options.loss_scale_factor is None

    def prepare(self, plan: UpdatePlan) -> None:
        opt = plan.optimizer
        options = opt.options
        owner = opt.owner
        route = None if owner is None else (lambda v: owner.check_route(opt, v))
        pairs = validate(plan.pairs, route)
        plan.targets = [v for _, v in pairs]
        if overwrites_in_use():  # (when every variable takes its gradient, the update counts a step, as Keras 3's)
            pairs = _set_aside_overwrites(plan, pairs, options)
        if options.loss_scale_factor is not None:
            pairs = _unscale(pairs, options.loss_scale_factor)
        if options.gradient_accumulation_steps is None and plan.weight is not None:
            raise ValueError("apply_gradients: `weight` is only used with gradient_accumulation_steps")
        # a sparse gradient's non-finite values survive de-duplication (NaN and Inf propagate through the
        # sums), so under "raise"/"skip" without accumulation it is checked once, after de-duplication,
        # on its unique rows; "zero" must see the raw values, accumulation must see each micro-batch
        sparse = [type(g) is IndexedSlices for g, _ in pairs]
        checks_later = options.gradient_accumulation_steps is None and options.on_nonfinite in ("raise", "skip")
        plan.changed = sparse if checks_later and any(sparse) else None
        plan.pairs = pairs


    def commit(self, plan: UpdatePlan) -> None:
        for g, var in plan.overwrites:  # (the variables with overwrite_with_gradient take their gradients)
            var._value[...] = g
            var._mark_updated()


def _set_aside_overwrites(plan: UpdatePlan, pairs: list, options) -> list:
    """The pairs whose variable has ``overwrite_with_gradient`` go to ``plan.overwrites`` (dense gradients, as
    Keras 3 assigns them: repeated sparse rows summed); the others are returned."""
    keep = []
    for g, var in pairs:
        if not var.overwrite_with_gradient:
            keep.append((g, var))
            continue
        if options.gradient_accumulation_steps is not None:
            raise ValueError(f"variable '{var.scoped_name}' has overwrite_with_gradient=True, which descend does not combine "
                             f"with gradient accumulation. Received: gradient_accumulation_steps="
                             f"{options.gradient_accumulation_steps}")
        if type(g) is IndexedSlices:
            dense = np.zeros(var.shape, var._value.dtype)
            np.add.at(dense, g.indices._value, g.values._value)
            g = dense
        plan.overwrites.append((g, var))
    return keep


def validate(grads_and_vars, route_check=None) -> list:
    """``[(gradient, variable)]`` checked and normalized to arrays or IndexedSlices."""
    pairs, skipped, seen = [], [], set()
    for grad, var in pairs_of(grads_and_vars):
        if not isinstance(var, Variable):
            raise TypeError(f"apply_gradients: expected a descend.Variable. Received: {type(var).__name__}")
        if id(var) in seen:
            raise ValueError(f"apply_gradients: variable '{var.scoped_name}' appears more than once")
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
                      "they are left unchanged\n" + missing_gradients_report(skipped), stacklevel=5)
    return pairs


def _unscale(pairs, factor):
    """Each gradient divided by ``factor`` in the gradient's dtype (new arrays). It runs before the input
    check, so a factor below 1 that overflows a gradient is caught there."""
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
        raise TypeError(f"variable '{var.scoped_name}' has dtype {vd.name}; optimizers update floating-point variables")
    if isinstance(grad, IndexedSlices):
        gd = grad.values._value.dtype
        if gd != vd:  # as Keras 3: a gradient of another numeric dtype is cast to the variable's
            if gd.kind not in "fiu":
                raise TypeError(f"gradient for variable '{var.scoped_name}': expected dtype {vd.name}, received {gd.name}")
            grad = IndexedSlices(Tensor(grad.values._value.astype(vd)), grad.indices, grad.dense_shape)
        if grad.dense_shape is not None and tuple(grad.dense_shape) != var.shape:
            raise ValueError(f"gradient for variable '{var.scoped_name}': expected shape {var.shape}, "
                             f"received IndexedSlices of dense_shape {tuple(grad.dense_shape)}")
        if grad.values.shape[1:] != var.shape[1:]:
            raise ValueError(f"gradient for variable '{var.scoped_name}': expected rows of shape {var.shape[1:]}, "
                             f"received values of shape {grad.values.shape}")
        idx = grad.indices._value
        if idx.size and (idx.min() < 0 or idx.max() >= var.shape[0]):
            bad = idx[(idx < 0) | (idx >= var.shape[0])][0]
            raise InvalidArgumentError(f"gradient for variable '{var.scoped_name}': index {int(bad)} is not in "
                                       f"[0, {var.shape[0]})")
        if grad.dense_shape is None:
            grad = IndexedSlices(grad.values, grad.indices, var.shape)
        return grad
    if isinstance(grad, (Tensor, Variable)):
        arr = grad._value
    else:
        arr = np.asarray(grad)
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"gradient for variable '{var.scoped_name}': expected a numeric array. Received {grad!r}")
        if not isinstance(grad, np.ndarray):
            arr = arr.astype(vd)
    if arr.dtype != vd:  # as Keras 3: a gradient of another numeric dtype is cast to the variable's
        if arr.dtype.kind not in "fiu":
            raise TypeError(f"gradient for variable '{var.scoped_name}': expected dtype {vd.name}, received {arr.dtype.name}")
        arr = arr.astype(vd)
    if arr.shape != var.shape:
        raise ValueError(f"gradient for variable '{var.scoped_name}': expected shape {var.shape}, received {arr.shape}")
    return arr


# ------------------------------------------------------------------------------------------------- non-finite
def _arrays(pairs):
    return [g.values._value if isinstance(g, IndexedSlices) else g for g, _ in pairs]


def find_nonfinite(arrays: list, use_fused: bool) -> int:
    """Index of the first array holding a NaN or Inf, -1 when none does."""
    first = _backend.default().find_nonfinite(arrays) if use_fused and arrays else None
    if first is None:
        # the sum is a fast pre-check: it is finite unless an element is not (or it overflows)
        first = next((k for k, a in enumerate(arrays) if not (np.isfinite(np.sum(a)) or np.isfinite(a).all())), -1)
    return first


def check_nonfinite(opt, pairs, what: str, only=None, *, aggregation=None, replicated: bool = False):
    """The ``on_nonfinite`` policy on ``pairs``: the pairs (non-finite elements zeroed under ``"zero"``), or
    None (skip the step).

    ``only`` (a list of booleans) limits the check to the gradients a stage produced anew; ``aggregation``
    decides with the other replicas; ``replicated``: every replica checks the same gradients (the sums), so
    none needs to hear from the others."""
    policy = opt.on_nonfinite
    agree = aggregation if policy in ("raise", "skip") and not replicated else None
    if policy == "apply" or (agree is None and only is not None and not any(only)):
        return pairs
    arrays = _arrays(pairs)
    positions = range(len(arrays)) if only is None else [i for i, flag in enumerate(only) if flag]
    checked = [arrays[i] for i in positions]
    first = find_nonfinite(checked, opt.use_fused)
    if agree is not None and agree.any(opt, pairs, first >= 0) and first < 0:  # all-or-nothing across replicas
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
            f"{what} for variable '{pairs[first][1].scoped_name}' contains {bad} (on_nonfinite='raise'); nothing was "
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


class CheckInput(Stage):
    """Stage ``check_input``: the ``on_nonfinite`` policy on the raw gradients (those a later check will
    not see: see :class:`Validate`)."""

    name = "check_input"

    def active(self, optimizer) -> bool:
        return optimizer.options.on_nonfinite != "apply"

    def batches(self, optimizer) -> bool:
        return True

    def prepare_batched(self, step) -> bool:
        # a NaN or Inf: the general pipeline applies the policy (and names the variable)
        return not any(g.batch.find_nonfinite(b) >= 0 for g, b in zip(step.groups, step.bound))

    def prepare(self, plan: UpdatePlan) -> None:
        opt, agg = plan.optimizer, plan.aggregation
        # summed into the same bits on every replica: checked once, after the sum (NaN and Inf propagate
        # through addition, so every replica decides alike without a message)
        if (agg is not None and opt.gradient_accumulation_steps is None and opt.on_nonfinite in ("raise", "skip")
                and plan.pairs and agg.replicated(opt, plan.pairs)):
            plan.replicated = True
            return
        only = None if plan.changed is None else [not s for s in plan.changed]
        pairs = check_nonfinite(plan.optimizer, plan.pairs, "gradient", only, aggregation=plan.aggregation)
        if pairs is None:
            plan.kind = "skip"
        else:
            plan.pairs = pairs


class CheckApplied(Stage):
    """Stage ``check_applied``: the ``on_nonfinite`` policy on what an earlier stage produced anew (sums of
    repeated rows or of replicas or micro-batches, per-tensor clips, a global norm that overflowed)."""

    name = "check_applied"

    def active(self, optimizer) -> bool:
        return optimizer.options.on_nonfinite != "apply"

    def batches(self, optimizer) -> bool:
        return True  # dense gradients, not clipped, summed or accumulated: nothing new to check

    def prepare(self, plan: UpdatePlan) -> None:
        opt = plan.optimizer
        clipped = plan.raw_global_clipnorm is not None or opt.options.clips
        only = [True] * len(plan.pairs) if plan.replicated else plan.changed
        pairs = check_nonfinite(opt, plan.pairs, "gradient after clipping" if clipped else "gradient", only,
                                aggregation=plan.aggregation, replicated=plan.replicated)
        if pairs is None:
            plan.kind, plan.items = "skip", []
        else:
            plan.pairs = pairs


# ------------------------------------------------------------------------------------------------- clip
class Clip(Stage):
    """Stage ``clip`` (Keras 3's order): sparse rows de-duplicated (after Hugging Face's call-level global
    clip of the raw gradients), then ``clipnorm``, ``clipvalue`` or ``global_clipnorm``. Records which
    gradients may hold a non-finite value the input check did not see."""

    name = "clip"

    def batches(self, optimizer) -> bool:
        return not optimizer.options.clips  # (dense gradients have no repeated rows to de-duplicate)

    def prepare(self, plan: UpdatePlan) -> None:
        plan.pairs, plan.changed = clip(plan.optimizer, plan.pairs, plan.raw_global_clipnorm, plan.changed,
                                        plan.aggregation)


def clip(opt, pairs, raw_global_clipnorm=None, changed=None, aggregation=None):
    """``(pairs, changed)`` de-duplicated and clipped; ``changed[i]`` says whether gradient i may hold a
    non-finite value the input check did not see (``changed`` comes in from the earlier stages)."""
    options = opt.options
    changed = [False] * len(pairs) if changed is None else list(changed)
    if raw_global_clipnorm is not None:  # Hugging Face clips the raw gradients, before de-duplication
        pairs, finite = _global_clip(pairs, raw_global_clipnorm, opt, aggregation)
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
    if options.clipnorm is not None:
        pairs = [(_as_array(clip_ops.clip_by_norm(_as_tensor(g), options.clipnorm)), v) for g, v in pairs]
        changed = [True] * len(pairs)
    elif options.clipvalue is not None:  # clipping finite values to a finite range keeps them finite
        pairs = [(_as_array(clip_ops.clip_by_value(_as_tensor(g), -options.clipvalue, options.clipvalue)), v)
                 for g, v in pairs]
    elif options.global_clipnorm is not None:
        pairs, finite = _global_clip(pairs, options.global_clipnorm, opt, aggregation)
        changed = [c or not finite for c in changed]
    return pairs, changed


def _global_clip(pairs, clip_norm, opt, aggregation=None):
    """Clip together to ``clip_norm``; also says whether the global norm was finite (then, every value
    being finite before, every clipped value is: the scale is at most 1). When the replicas hold parts of the
    gradients (sharded optimizer state), the norm is the norm of all of them."""
    norm = None if aggregation is None else aggregation.global_norm(opt, pairs)
    clipped, norm = clip_ops.clip_by_global_norm([_as_tensor(g) for g, _ in pairs], clip_norm, use_norm=norm)
    return [(_as_array(c), v) for c, (_, v) in zip(clipped, pairs)], bool(np.isfinite(float(norm)))


def _as_tensor(g):
    return g if isinstance(g, IndexedSlices) else Tensor(g)


def _as_array(g):
    return g if isinstance(g, IndexedSlices) else g._value
