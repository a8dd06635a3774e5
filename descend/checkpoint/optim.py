"""The optimizer's side of the state protocol, seen from the checkpoint.

The optimizer owns its state: ``opt.state_dict(var_key)`` gives copies of
everything (iterations, step counters, slots keyed ``<var_key(v)>/<slot>``,
slots restored but not created yet, partial sums of an accumulation cycle) and
``opt.restore_plan(state, var_key)`` validates a state and returns a commit
that cannot fail. The checkpoint passes a ``var_key`` that names each variable
by its path from the checkpoint's root, so slots follow the object structure.

:func:`state_of` and :func:`plan_for` call that protocol. Optimizers of an
older descend, whose ``state_dict()``/``load_state_dict()`` key slots by
variable name, are served by a translation layer here (the only place that
touches their internals); it also validates restored counters and the slots
that hold squares (second moments, accumulators), which must not be negative.

Example:
    >>> import descend as ds
    >>> from descend.checkpoint import optim
    >>> w = ds.Variable([1.0], name="w")
    >>> opt = ds.optimizers.Adam(0.1)
    >>> opt.apply_gradients([(ds.constant([1.0]), w)])
    >>> sorted(optim.state_of(opt, lambda v: "model/w"))[:3]
    ['hyper:beta_1', 'hyper:beta_2', 'hyper:epsilon']
"""

from __future__ import annotations

import inspect
import math
from typing import Callable

import numpy as np

__all__ = ["state_of", "plan_for", "hyperparameters", "NON_NEGATIVE_SLOTS"]

#: slots holding sums or averages of squares (or of absolute values): a negative value is corrupt
NON_NEGATIVE_SLOTS = frozenset({"v", "v_hat", "vhat", "accumulator", "accumulated_grad", "accumulated_delta_var",
                                "norm", "velocity", "rms", "ms"})
_COUNTERS = ("iterations", "skipped_steps")


def _has_protocol(opt) -> bool:
    plan = getattr(opt, "restore_plan", None)
    if plan is None:
        return False
    try:
        return "var_key" in inspect.signature(opt.state_dict).parameters
    except (TypeError, ValueError):
        return False


def hyperparameters(opt) -> dict[str, float]:
    """The constant (number) hyperparameters: a restore sets them, as TF does, so a learning
    rate changed by a callback survives a restart. Schedules and callables are code: not saved."""
    hyper = getattr(opt, "hyperparameters", None)
    if callable(hyper):
        return {k: float(v) for k, v in hyper().items() if isinstance(v, float)}
    return {k: v for k, v in vars(opt).get("_hyper", {}).items() if isinstance(v, float)}


# ---------------------------------------------------------------------------------------------------------------
# the translation layer for name-keyed optimizers
# ---------------------------------------------------------------------------------------------------------------
def _built_variables(opt) -> list:
    out = [v for v, _ in vars(opt).get("_slot_store", {}).values()]
    seen = {id(v) for v in out}
    return out + [v for v in vars(opt).get("_accum_vars") or [] if id(v) not in seen]


def _translate_out(key: str, by_name: dict, var_key) -> str:
    """``<variable name>/<slot>`` -> ``<var_key>/<slot>``; accumulator sums likewise."""
    if key.startswith("accumulator:"):
        inner = key[len("accumulator:"):]
        if inner.startswith(":"):
            return key
        name, _, tail = inner.partition(":")
        var = by_name.get(name)
        return f"accumulator:{var_key(var) if var is not None else name}{':' + tail if tail else ''}"
    if "/" not in key:
        return key
    name, slot = key.rsplit("/", 1)
    var = by_name.get(name)
    return f"{var_key(var)}/{slot}" if var is not None else key


def _legacy_state(opt, var_key) -> dict[str, np.ndarray]:
    by_name = {v.name: v for v in _built_variables(opt)}
    by_name.update(getattr(opt, "_descend_ckpt_names", {}))
    out = {}
    for k, v in opt.state_dict().items():
        out[_translate_out(k, by_name, var_key)] = v
    # slots restored but not created yet are state too (they are lost otherwise)
    for k, v in vars(opt).get("_deferred", {}).items():
        out.setdefault(_translate_out(k, by_name, var_key), np.array(v))
    return out


def _legacy_plan(opt, state: dict, var_key, resolve: Callable[[str], object | None]) -> Callable[[], None]:
    problems = _check_invariants(state)
    by_key = {}
    for v in _built_variables(opt):
        by_key[var_key(v)] = v
    names: dict[str, object] = {}
    translated: dict[str, np.ndarray] = {}
    waiting: dict[str, np.ndarray] = {}
    for k, arr in state.items():
        if k.startswith("accumulator:") and not k[len("accumulator:"):].startswith(":"):
            inner = k[len("accumulator:"):]
            path, _, tail = inner.partition(":")
            var = by_key.get(path)
            var = resolve(path) if var is None else var
            if var is None:
                waiting[k] = arr  # a variable that is not created yet: handed over when it is
                continue
            names[var.name] = var
            translated[f"accumulator:{var.name}{':' + tail if tail else ''}"] = arr
        elif "/" in k:
            path, slot = k.rsplit("/", 1)
            var = by_key.get(path)
            var = resolve(path) if var is None else var
            if var is None:
                waiting[k] = arr  # a variable that is not created yet: handed over when it is
            else:
                names[var.name] = var
                translated[f"{var.name}/{slot}"] = arr
        else:
            translated[k] = arr
    current = opt.state_dict()
    built = {v.name for v in _built_variables(opt)}
    for k in current:
        if k not in translated and not k.startswith("accumulator:") and k != "skipped_steps":
            problems.append(f"{_translate_out(k, {v.name: v for v in _built_variables(opt)}, var_key)}: missing")
    for k, arr in translated.items():
        arr = np.asarray(arr)
        if k in current and not k.startswith("accumulator:"):
            want = current[k]
            if arr.shape != want.shape or arr.dtype != want.dtype:
                problems.append(f"{k}: expected shape {want.shape} {want.dtype}, the state has {arr.shape} {arr.dtype}")
        elif k.startswith("accumulator:") or k == "skipped_steps":
            continue
        elif "/" not in k and built:
            problems.append(f"{k}: unexpected (this optimizer has no such state)")
    if problems:
        raise ValueError("; ".join(problems))

    def commit():
        vars(opt)["_deferred"].clear()  # a restore replaces state still waiting from an earlier one
        opt.load_state_dict(translated)
        object.__setattr__(opt, "_descend_ckpt_names", names)
        object.__setattr__(opt, "_descend_ckpt_waiting", waiting)

    return commit


def _check_invariants(state: dict) -> list[str]:
    problems = []
    for k, arr in state.items():
        a = np.asarray(arr)
        if a.dtype.kind == "f" and not np.isfinite(a).all():
            problems.append(f"{k}: holds non-finite values (NaN or infinity)")
        elif k in _COUNTERS or k.endswith(":step"):
            if a.shape != () or a.dtype.kind not in "iu" or int(a) < 0:
                problems.append(f"{k}: must be an integer >= 0; found {a.reshape(-1)[:1].tolist()} ({a.dtype})")
        elif "/" in k and k.rsplit("/", 1)[1] in NON_NEGATIVE_SLOTS and a.dtype.kind == "f" and (a < 0).any():
            problems.append(f"{k}: this slot holds squares and must be >= 0; found {float(a.min())}")
    return problems


def take_waiting(opt, var, path: str) -> None:
    """Hand slots restored for ``path`` (a variable created after the restore) to a name-keyed optimizer."""
    waiting = vars(opt).get("_descend_ckpt_waiting")
    if not waiting:
        return
    for k in [k for k in waiting if k.rsplit("/", 1)[0] == path and not k.startswith("accumulator:")]:
        vars(opt)["_deferred"][f"{var.name}/{k.rsplit('/', 1)[1]}"] = waiting.pop(k)
        vars(opt).setdefault("_descend_ckpt_names", {})[var.name] = var
    for k in [k for k in waiting if k.startswith("accumulator:")]:
        inner = k[len("accumulator:"):]
        p, _, tail = inner.partition(":")
        if p == path and vars(opt).get("_accum_pending") is not None:
            vars(opt)["_accum_pending"][f"{var.name}{':' + tail if tail else ''}"] = waiting.pop(k)
            vars(opt).setdefault("_descend_ckpt_names", {})[var.name] = var


# ---------------------------------------------------------------------------------------------------------------
# the two entry points
# ---------------------------------------------------------------------------------------------------------------
def state_of(opt, var_key) -> dict[str, np.ndarray]:
    """Everything the optimizer holds, slots keyed by ``var_key``, plus ``hyper:<name>`` constants."""
    if _has_protocol(opt):
        out = dict(opt.state_dict(var_key=var_key))
    else:
        out = _legacy_state(opt, var_key)
        waiting = vars(opt).get("_descend_ckpt_waiting") or {}
        for k, v in waiting.items():
            out.setdefault(k, np.array(v))
    for name, value in hyperparameters(opt).items():
        out[f"hyper:{name}"] = np.asarray(value, np.float64)
    return out


def plan_for(opt, state: dict, var_key, resolve=lambda path: None) -> Callable[[], None]:
    """Validate ``state`` for ``opt``; raise ValueError listing every problem (nothing changed)
    or return a commit that writes it."""
    state = dict(state)
    hyper_saved = {k[len("hyper:"):]: state.pop(k) for k in list(state) if k.startswith("hyper:")}
    current_hyper = hyperparameters(opt)
    problems = []
    hyper = {}
    for name, arr in hyper_saved.items():
        arr = np.asarray(arr)
        if name not in current_hyper:
            continue  # a schedule or callable here replaced a saved constant: the code's own wins
        if arr.shape != () or arr.dtype.kind != "f" or not math.isfinite(float(arr)):
            problems.append(f"hyper:{name}: must be a finite float scalar; found {arr.dtype} {arr.shape}")
        else:
            hyper[name] = float(arr)
    if _has_protocol(opt):
        try:
            commit_state = opt.restore_plan(state, var_key=var_key)
        except ValueError as e:
            problems.append(str(e))
            commit_state = None
    else:
        try:
            commit_state = _legacy_plan(opt, state, var_key, resolve)
        except ValueError as e:
            problems.append(str(e))
            commit_state = None
    if problems:
        raise ValueError("; ".join(problems))

    def commit():
        commit_state()
        for name, value in hyper.items():
            setattr(opt, name, value) if name != "learning_rate" else setattr(opt, "learning_rate", value)
    return commit
