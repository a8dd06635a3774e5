"""TensorFlow 1's name-based checkpoints (``tf.compat.v1.train.Saver``), restored by variable name.

A TF 1 checkpoint is a tensor bundle keyed by variable names: ``dense/kernel``, ``global_step``, an
optimizer's slots as ``<variable>/<optimizer name>`` for its first slot and ``<variable>/<optimizer
name>_<k>`` for the k-th after it (``dense/kernel/Adam``, ``dense/kernel/Adam_1``), and its non-slot
variables by their own names (Adam's ``beta1_power``, ``beta2_power``). descend's TF 1 optimizers
(:mod:`descend.compat.v1.train`) keep the same slots under TF 1's slot names; the k-th slot of each
class is the one TF 1 creates k-th (:data:`SLOT_ORDER`). An optimizer's slots that do not exist yet
(it has not updated the variable yet) wait in the optimizer and are given to the slots when
``apply_gradients`` creates them.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import descend as ds
    >>> from descend.persistence.formats import tf_bundle
    >>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt-1")
    >>> tf_bundle.write_bundle(prefix, {"w": np.array([3.0], np.float32), "w/Adam": np.array([0.5], np.float32),
    ...                                 "w/Adam_1": np.array([0.25], np.float32),
    ...                                 "beta1_power": np.float32(0.81), "beta2_power": np.float32(0.998)})
    >>> ds.compat.v1.reset_default_graph()
    >>> w = ds.Variable([0.0], name="w")
    >>> opt = ds.compat.v1.train.AdamOptimizer(0.1)
    >>> ds.compat.v1.train.Saver().restore(None, prefix)
    >>> w.numpy(), opt.pending_state()
    (array([3.], dtype=float32), ['beta1_power', 'beta2_power', 'w/m', 'w/v'])
"""

from __future__ import annotations

import re

import numpy as np

from ...framework.variable import Variable, live_variables
from ..checkpoint_errors import CheckpointError, CheckpointMismatchError, mismatch_message, short
from ..formats import tf_bundle

__all__ = ["SLOT_ORDER", "restore_by_name", "tf1_slot_names", "init_from_checkpoint", "register_optimizer_source"]

_optimizer_sources: list = []  # functions listing the TF 1 optimizers alive (filled by descend.compat.v1)


def register_optimizer_source(source) -> None:
    """Make ``source()`` (the TF 1 optimizers alive, in creation order) known to TF 1's name-keyed checkpoints:
    their slots are a TF 1 graph's global variables, which a ``Saver()`` without a list saves and restores.
    :mod:`descend.compat.v1.optimizer` registers its list when it is imported (this module never imports it)."""
    if source not in _optimizer_sources:
        _optimizer_sources.append(source)


def live_optimizers() -> list:
    """The TF 1 optimizers alive, from every registered source (none before ``descend.compat.v1`` is imported:
    then none exists)."""
    return [opt for source in _optimizer_sources for opt in source()]

#: the order in which TF 1's optimizers create their slots (descend's TF 1 class name -> slot names): the
#: k-th is saved as ``<variable>/<optimizer name>_<k>`` (the first without a suffix)
SLOT_ORDER = {
    "AdamOptimizer": ("m", "v"),
    "AdagradOptimizer": ("accumulator",),
    "AdagradDAOptimizer": ("gradient_accumulator", "gradient_squared_accumulator"),
    "AdadeltaOptimizer": ("accum", "accum_update"),
    "FtrlOptimizer": ("accum", "linear"),
    "MomentumOptimizer": ("momentum",),
    "ProximalAdagradOptimizer": ("accumulator",),
    "RMSPropOptimizer": ("rms", "mg", "momentum"),
    "GradientDescentOptimizer": (),
    "ProximalGradientDescentOptimizer": (),
}


def _order(opt) -> list[str]:
    have = opt.get_slot_names()
    for cls in type(opt).__mro__:
        if cls.__name__ in SLOT_ORDER:
            return [s for s in SLOT_ORDER[cls.__name__] if s in have]
    return list(have)


def tf1_slot_names(opt) -> dict[str, str]:
    """descend slot name -> the suffix TF 1 saves it under (``m`` -> ``Adam``, ``v`` -> ``Adam_1``)."""
    return {slot: opt.name if k == 0 else f"{opt.name}_{k}" for k, slot in enumerate(_order(opt))}


def _step_names(opt) -> list[str]:
    try:
        return [ss.name for ss in opt.rule.step_specs]
    except (AttributeError, TypeError):
        return []


def _owned(opt) -> set[int]:
    return {id(v) for v in opt.state.variables()}


def restore_by_name(prefix: str, var_list) -> None:
    """Restore ``var_list`` (None: every live Variable, and the slots of the live TF 1 optimizers; a list
    of Variables, by name; a dict ``{name in the file: Variable}``) from the TF 1 checkpoint ``prefix``.
    Every value is read, verified and checked first; one error lists every problem and nothing changes."""
    bundle = tf_bundle.TensorBundle(prefix)
    names = set(bundle.keys())
    optimizers = live_optimizers() if var_list is None else []
    owned: dict[int, tuple] = {}  # id(slot variable) -> (optimizer, variable, slot)
    for opt in live_optimizers():
        for var, slots in opt.state.slots.values():
            for slot, sv in slots.items():
                owned[id(sv)] = (opt, var, slot)
    skip = set()
    for opt in live_optimizers():
        skip |= _owned(opt)
    if var_list is None:
        wanted = {}
        for v in live_variables():
            if id(v) not in skip:
                wanted[v.scoped_name] = v  # a name reused after reset_default_graph: the newest
    elif isinstance(var_list, dict):
        wanted = dict(var_list)
    else:
        wanted = {}
        for v in var_list:
            key = v.scoped_name
            if id(v) in owned:  # a slot listed by the program: TF 1's name for it
                opt, var, slot = owned[id(v)]
                key = f"{var.scoped_name}/{tf1_slot_names(opt).get(slot, slot)}"
            if key in wanted and wanted[key] is not v:
                raise ValueError(f"Saver: two variables are named '{key}'; pass a dict to name them")
            wanted[key] = v
    missing = sorted(k for k in wanted if k not in names)
    bad, values = [], {}
    for k, v in wanted.items():
        if k in missing:
            continue
        arr = bundle.read(k)
        if not isinstance(arr, np.ndarray) or arr.dtype == object:
            bad.append(f"{k}: the checkpoint holds strings")
        elif arr.shape != tuple(v.shape) or arr.dtype != v.dtype.dtype:
            bad.append(f"{k}: expected shape {tuple(v.shape)} {v.dtype.name}, the checkpoint has shape "
                       f"{arr.shape} {arr.dtype.name}")
        else:
            values[k] = arr
    plans = []
    by_name = {v.scoped_name: v for v in live_variables()}
    by_name.update({v.scoped_name: v for v in wanted.values()})
    used_prefixes: dict[str, object] = {}
    for opt in optimizers:
        suffixes = tf1_slot_names(opt)
        if not suffixes and not _step_names(opt):
            continue
        state, found = _slot_state(opt, bundle, names, suffixes, by_name, bad)
        if not found:
            continue
        if opt.name in used_prefixes:
            raise CheckpointError(f"Saver: TensorFlow checkpoint '{prefix}' holds slots named '{opt.name}' and two "
                                  f"live optimizers are named '{opt.name}'; name them apart (name=...) to restore "
                                  "their slots")
        used_prefixes[opt.name] = opt
        try:
            plans.append(opt.restore_plan(state, var_key=lambda v: v.scoped_name, strict=True))
        except ValueError as e:
            bad.append(f"optimizer '{opt.name}': {short(str(e), 2000)}")
    if missing or bad:
        raise CheckpointMismatchError(mismatch_message(
            f"Saver: TensorFlow checkpoint '{prefix}' does not match the variables; nothing was restored", missing,
            (), bad), missing, (), bad)
    for k, v in wanted.items():
        v.assign(values[k])
    for plan in plans:
        plan.commit()


_SUFFIX = re.compile(r"^(.*)_(\d+)$")


def _slot_state(opt, bundle, names: set, suffixes: dict, by_name: dict, bad: list) -> tuple[dict, bool]:
    """The optimizer's state (descend's protocol, variables keyed by name) from TF 1's names."""
    slot_of = {suffix: slot for slot, suffix in suffixes.items()}
    state: dict = {}
    found = False
    current = opt.state_dict(var_key=lambda v: v.scoped_name)
    for k, v in current.items():  # TF 1 files hold no step counter or hyperparameters: kept as they are
        if k == "iterations" or k.startswith("hyper:"):
            state[k] = v
    for key in names:
        head, _, last = key.rpartition("/")
        if not head or last not in slot_of:
            continue
        var = by_name.get(head)
        if not isinstance(var, Variable):
            continue
        arr = bundle.read(key)
        if not isinstance(arr, np.ndarray) or arr.shape != tuple(var.shape) or arr.dtype != var.dtype.dtype:
            bad.append(f"{key}: the slot '{slot_of[last]}' of '{head}' must have shape {tuple(var.shape)} "
                       f"{var.dtype.name}; the checkpoint has {short(getattr(arr, 'shape', arr))} "
                       f"{getattr(arr, 'dtype', '')}")
            continue
        state[f"{head}/{slot_of[last]}"] = arr
        found = True
    if found:
        for step in _step_names(opt):
            if step in names:
                state[step] = np.asarray(bundle.read(step))
    return state, found


def init_from_checkpoint(ckpt_dir_or_file, assignment_map) -> None:
    """Give variables the values of a checkpoint, by name (TF 1's ``tf.compat.v1.train.init_from_checkpoint``).

    ``ckpt_dir_or_file``: a checkpoint (TensorFlow's prefix, or descend's directory) or a directory whose
    newest checkpoint is read. ``assignment_map`` maps names in the checkpoint to the variables to set:

    * ``{"old/w": "new/w"}`` or ``{"old/w": variable}``: one variable;
    * ``{"old_scope/": "new_scope/"}``: every live variable under ``new_scope/``, from the checkpoint's
      value of the same name under ``old_scope/``; ``"/"`` as the key is the checkpoint's root.

    The slots of live TF 1 optimizers go by TF 1's names (``dense/kernel/Adam`` for Adam's ``m``), so a
    scope's slots take the checkpoint's slots, as in TF 1. Every name and shape is checked before any
    variable changes (TF 1 sets the initializers instead; in eager code, as here, the values are assigned
    at once).

    Example:
        >>> import os, tempfile
        >>> import numpy as np
        >>> import descend as ds
        >>> from descend.persistence.formats import tf_bundle
        >>> prefix = os.path.join(tempfile.mkdtemp(), "model.ckpt")
        >>> tf_bundle.write_bundle(prefix, {"old/w": np.array([1.0, 2.0], np.float32)})
        >>> ds.compat.v1.reset_default_graph()
        >>> with ds.compat.v1.variable_scope("new"):
        ...     w = ds.compat.v1.get_variable("w", (2,))
        >>> ds.compat.v1.train.init_from_checkpoint(prefix, {"old/": "new/"})
        >>> w.numpy()
        array([1., 2.], dtype=float32)
    """
    import os

    from .manager import latest_checkpoint
    from .reader import CheckpointReader

    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path) and not tf_bundle.is_bundle(path) and not os.path.isfile(os.path.join(path, "manifest.json")):
        found = latest_checkpoint(path)
        if found is None:
            raise ValueError(f"init_from_checkpoint: no checkpoint found in directory '{path}'")
        path = found
    if not isinstance(assignment_map, dict):
        raise TypeError(f"init_from_checkpoint: assignment_map must be a dict. Received: {type(assignment_map).__name__}")
    reader = CheckpointReader(path)
    shapes = reader.get_variable_to_shape_map()
    live = _tf1_names()
    pairs: list[tuple[str, Variable]] = []
    problems: list[str] = []
    for ckpt_name, current in assignment_map.items():
        if not isinstance(ckpt_name, str):
            raise TypeError(f"init_from_checkpoint: assignment_map keys must be names in the checkpoint. Received: "
                            f"{ckpt_name!r}")
        if isinstance(current, Variable):
            pairs.append((ckpt_name, current))
            continue
        if not isinstance(current, str):
            raise TypeError(f"init_from_checkpoint: assignment_map values must be variable names, scopes or "
                            f"Variables. Received: {type(current).__name__}")
        if "/" in ckpt_name and not ckpt_name.endswith("/") or (not ckpt_name.endswith("/") and ckpt_name in shapes):
            var = live.get(current)
            if var is None:
                problems.append(f"{ckpt_name} -> {current}: no variable named '{current}'")
            else:
                pairs.append((ckpt_name, var))
            continue
        scope = current if current.endswith("/") or current == "" else current + "/"
        chosen = [(n, v) for n, v in live.items() if n.startswith(scope)] if scope != "/" else list(live.items())
        if not chosen:
            problems.append(f"{ckpt_name} -> {current}: no variable under the scope '{current}'")
        for name, var in chosen:
            rest = name[len(scope):] if scope != "/" else name
            full = rest if ckpt_name == "/" else ckpt_name.rstrip("/") + "/" + rest
            pairs.append((full, var))
    values = []
    for name, var in pairs:
        if name not in shapes:
            problems.append(f"{name}: not in checkpoint '{path}' (for variable '{var.scoped_name}')")
            continue
        if tuple(shapes[name]) != tuple(var.shape):
            problems.append(f"{name}: the checkpoint's shape {tuple(shapes[name])} differs from variable '{var.scoped_name}' "
                            f"{tuple(var.shape)}")
            continue
        arr = reader.get_tensor(name)
        if not isinstance(arr, np.ndarray) or arr.dtype == object:
            problems.append(f"{name}: holds strings, not numbers")
            continue
        values.append((var, arr.astype(var.dtype.dtype, copy=False) if arr.dtype.kind == var.dtype.dtype.kind
                       else arr))
        if values[-1][1].dtype != var.dtype.dtype:
            problems.append(f"{name}: the checkpoint's dtype {arr.dtype.name} differs from variable '{var.scoped_name}' "
                            f"({var.dtype.name})")
    if problems:
        raise ValueError(bounded_lines("init_from_checkpoint: nothing was assigned", problems))
    for var, arr in values:
        var.assign(arr)


def _tf1_names() -> dict[str, Variable]:
    """The live variables by TF 1's names: a live TF 1 optimizer's slot by the name TF 1 gives it
    (``dense/kernel/Adam``, ``dense/kernel/Adam_1``: TF 1 creates slots in the variable store under
    those names), every other variable by its own name."""
    live = {}
    slots = {}
    for opt in live_optimizers():
        suffixes = tf1_slot_names(opt)
        for var, held in opt.state.slots.values():
            for slot, sv in held.items():
                slots[id(sv)] = f"{var.scoped_name}/{suffixes.get(slot, slot)}"
    for v in live_variables():
        live[slots.get(id(v), v.scoped_name)] = v
    return live


def bounded_lines(head: str, lines: list[str]) -> str:
    shown = lines[:50] + ([f"... {len(lines) - 50} more"] if len(lines) > 50 else [])
    return head + ":\n  " + "\n  ".join(shown)
