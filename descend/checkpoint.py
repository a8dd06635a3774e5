"""Checkpoints: save and restore training state by name, atomically, without pickle.

``Checkpoint(**trackables)`` saves and restores a set of named objects
(TensorFlow's ``tf.train.Checkpoint``); ``CheckpointManager`` numbers
checkpoints in a directory, keeps the newest ``max_to_keep`` and knows the
latest one (``tf.train.CheckpointManager``).

What can be checkpointed (checked in this order):

* any object following the **trackable protocol** (duck-typed):
  ``_checkpoint_tensors() -> dict[str, np.ndarray]`` and
  ``_restore_tensors(tensors: dict[str, np.ndarray], strict: bool)``;
  optionally ``_checkpoint_json() -> JSON-able`` and ``_restore_json(state)``,
  and ``_check_restore(tensors, json_state) -> dict`` with lists under
  ``"missing"``, ``"unexpected"``, ``"mismatched"`` (when absent, the saved
  tensors are compared by key, shape and dtype with ``_checkpoint_tensors()``);
* a :class:`~descend.Variable` (one tensor, keyed by the trackable's name);
* an :class:`~descend.optimizers.Optimizer`: its ``state_dict()`` (iterations,
  ``skipped_steps``, slots ``<variable name>/<slot>``, non-slot state, the
  gradient accumulator's partial sums), its constant hyperparameters as
  ``hyper:<name>`` (as in TF, a restore sets them: a learning rate changed by a
  callback survives a restart) and, in the manifest, its class and
  ``get_config()`` (schedules as config dicts);
* a :class:`~descend.optimizers.MultiOptimizer`: its optimizers, keyed by index;
* ``numpy.random.Generator`` / ``BitGenerator`` / ``RandomState``: the bit
  generator's state, as JSON;
* an object with a ``weights`` attribute (a list of Variables: a model or a
  layer): one tensor per variable, keyed by the variable's full name;
* an object with ``get_state()`` / ``set_state(state)`` exchanging JSON-able
  dicts (dataset iterators);
* dicts (string keys) and lists/tuples of the above, keyed ``<key>`` / ``<index>``.

A tensor's key in the file is ``<trackable path>/<inner key>``, e.g.
``model/sequential/dense/kernel``, ``optimizer/dense/kernel/m``,
``optimizer/iterations``, ``optimizer/hyper:learning_rate``; a Variable's key is
its trackable path (``step``, ``variables/0``).

**Format.** A checkpoint is a directory ``<prefix>-<N>`` holding
``tensors.safetensors`` (every tensor, little-endian, in the safetensors
format) and ``manifest.json``: the format name, ``schema_version``, creation
time, descend version, the save counter, the size and SHA-256 of the tensors
file, per tensor its shape, dtype and the SHA-256 of its raw bytes, per
trackable its kind, class and JSON state, and the SHA-256 of the manifest
itself. Nothing is pickled and loading never executes code.

**Atomicity.** A checkpoint is written into ``.tmp-<name>-<random>`` next to its
final place; every file and the directory are fsynced, the directory is
renamed to its final name and the parent directory fsynced. A crash at any
moment leaves the previous checkpoint intact; ``CheckpointManager`` removes
leftover ``.tmp-*`` entries when it opens a directory.

**Restore.** Every checksum is verified before any object is touched, then
the whole plan (missing, unexpected, mis-shaped and mis-typed entries across
all objects) is computed; in strict mode (the default) one
:class:`CheckpointMismatchError` lists every problem and nothing changes.
``strict=False`` restores what matches and returns a :class:`RestoreReport`
of the rest. State for optimizer slots and model variables that do not exist
yet is kept and handed over when they are created (deferred restoration);
:meth:`Checkpoint.assert_consumed` checks that it all arrived.

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> import descend.train as train
    >>> w = ds.Variable([1.0, 2.0], name="w")
    >>> opt = ds.optimizers.Adam(0.1)
    >>> ckpt = train.Checkpoint(w=w, optimizer=opt)
    >>> path = ckpt.save(tempfile.mkdtemp() + "/ckpt")
    >>> _ = w.assign([0.0, 0.0])
    >>> _ = ckpt.restore(path)
    >>> w.numpy()
    array([1., 2.], dtype=float32)
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import secrets
import shutil
import struct
import sys
import threading
import time
import weakref
from typing import Any, Callable

import numpy as np

from .framework import variable as _variable_module
from .framework.variable import Variable
from .optimizers.base import Optimizer
from .optimizers.multi import MultiOptimizer

__all__ = [
    "Checkpoint", "CheckpointManager", "CheckpointReader", "RestoreReport", "CheckpointError",
    "CheckpointCorruptedError", "CheckpointMismatchError", "latest_checkpoint", "load_checkpoint", "list_variables",
]

FORMAT = "descend.checkpoint"
INDEX_FORMAT = "descend.checkpoint_index"
SCHEMA_VERSION = 1
TENSORS_FILE = "tensors.safetensors"
MANIFEST_FILE = "manifest.json"
INDEX_FILE = "checkpoint.json"
_TMP_PREFIX = ".tmp-"
_KEY_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")
_SUPPORTED_DTYPES = frozenset(np.dtype(t) for t in (
    np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
    np.float16, np.float32, np.float64))


# ---------------------------------------------------------------------------------------------------------------
# errors and the report
# ---------------------------------------------------------------------------------------------------------------
class CheckpointError(ValueError):
    """A checkpoint cannot be written or restored."""


class CheckpointCorruptedError(CheckpointError):
    """A checkpoint's files are truncated, modified or inconsistent. ``entries`` names
    the tensors (or files) concerned."""

    def __init__(self, message: str, entries=()):
        super().__init__(message)
        self.entries = list(entries)


class CheckpointMismatchError(CheckpointError):
    """The checkpoint does not match the objects to restore; ``missing``,
    ``unexpected`` and ``mismatched`` list every problem."""

    def __init__(self, message: str, missing=(), unexpected=(), mismatched=()):
        super().__init__(message)
        self.missing, self.unexpected, self.mismatched = list(missing), list(unexpected), list(mismatched)


def _mismatch_message(head: str, missing, unexpected, mismatched, hint: str = "") -> str:
    lines = [head]
    if missing:
        lines.append(f"  missing (in the objects, not in the checkpoint) [{len(missing)}]:")
        lines += [f"    {m}" for m in missing]
    if unexpected:
        lines.append(f"  unexpected (in the checkpoint, not in the objects) [{len(unexpected)}]:")
        lines += [f"    {u}" for u in unexpected]
    if mismatched:
        lines.append(f"  mis-shaped or mis-typed [{len(mismatched)}]:")
        lines += [f"    {m}" for m in mismatched]
    if hint:
        lines.append(hint)
    return "\n".join(lines)


class RestoreReport:
    """What :meth:`Checkpoint.restore` did.

    Attributes:
        path: the checkpoint restored (None for ``restore(None)``).
        restored: keys (and JSON-state objects) whose values were applied.
        deferred: keys kept for optimizer slots or model variables that do not
            exist yet; they are applied when those are created.
        missing: keys the objects have and the checkpoint lacks.
        unexpected: keys the checkpoint has and the objects lack.
        mismatched: entries whose shape, dtype or kind differ (one line each).
    """

    def __init__(self, path=None, checkpoint=None):
        self.path = path
        self.restored: list[str] = []
        self.deferred: list[str] = []
        self.missing: list[str] = []
        self.unexpected: list[str] = []
        self.mismatched: list[str] = []
        self._checkpoint = checkpoint

    @property
    def complete(self) -> bool:
        """True when nothing was missing, unexpected or mismatched."""
        return not (self.missing or self.unexpected or self.mismatched)

    def assert_consumed(self) -> RestoreReport:
        """Raise if anything was missing, unexpected or mismatched, or deferred state is still waiting."""
        if not self.complete:
            raise CheckpointMismatchError(
                _mismatch_message(f"checkpoint '{self.path}' did not match the objects", self.missing,
                                  self.unexpected, self.mismatched), self.missing, self.unexpected, self.mismatched)
        if self._checkpoint is not None:
            self._checkpoint.assert_consumed()
        return self

    def expect_partial(self) -> RestoreReport:
        """TF's spelling for "a partial restore is fine": returns self."""
        return self

    def __repr__(self):
        return (f"<RestoreReport path={self.path!r} restored={len(self.restored)} deferred={len(self.deferred)} "
                f"missing={self.missing} unexpected={self.unexpected} mismatched={self.mismatched}>")


# ---------------------------------------------------------------------------------------------------------------
# JSON states (numpy values tagged, nothing executable)
# ---------------------------------------------------------------------------------------------------------------
def _to_json(obj, where: str):
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, float)):
        return obj
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            raise TypeError(f"{where}: cannot store an array of dtype {obj.dtype} in a checkpoint's JSON state")
        return {"__ndarray__": obj.tolist(), "dtype": obj.dtype.name}
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise TypeError(f"{where}: JSON state keys must be strings. Received key {k!r}")
            out[k] = _to_json(v, f"{where}.{k}")
        return out
    if isinstance(obj, (list, tuple)):
        return [_to_json(v, f"{where}[{i}]") for i, v in enumerate(obj)]
    raise TypeError(f"{where}: a checkpoint's JSON state holds numbers, strings, lists, dicts and numeric arrays. "
                    f"Received {type(obj).__name__}")


def _from_json(obj):
    if isinstance(obj, dict):
        if set(obj) == {"__ndarray__", "dtype"}:
            dtype = np.dtype(obj["dtype"])
            if dtype.kind not in "biuf":
                raise CheckpointCorruptedError(f"JSON state: unsupported array dtype {obj['dtype']!r}")
            return np.array(obj["__ndarray__"], dtype=dtype)
        return {k: _from_json(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_from_json(v) for v in obj]
    return obj


def _canonical(obj) -> bytes:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _sha256(data) -> str:
    return hashlib.sha256(data).hexdigest()


def _qualname(obj) -> str:
    t = type(obj)
    return f"{t.__module__}.{t.__qualname__}"


# ---------------------------------------------------------------------------------------------------------------
# adapters: one per kind of trackable
# ---------------------------------------------------------------------------------------------------------------
class _Plan:
    """What restoring one trackable would do (inner keys; the Checkpoint prefixes them)."""

    __slots__ = ("restored", "deferred", "missing", "unexpected", "mismatched", "data", "pending")

    def __init__(self):
        self.restored: list[str] = []
        self.deferred: list[str] = []
        self.missing: list[str] = []
        self.unexpected: list[str] = []
        self.mismatched: list[str] = []
        self.data: Any = None
        self.pending: dict[str, np.ndarray] = {}  # model variables that do not exist yet: name -> value


def _describe(arr) -> str:
    return f"shape {tuple(arr.shape)} {np.dtype(arr.dtype).name}"


def _compare(plan: _Plan, label: str, want, got) -> bool:
    """Record a shape/dtype mismatch between the current value ``want`` and the saved ``got``."""
    if tuple(want.shape) != tuple(got.shape) or np.dtype(want.dtype) != got.dtype:
        plan.mismatched.append(f"{label}: expected {_describe(want)}, the checkpoint has {_describe(got)}")
        return False
    return True


class _Adapter:
    kind = "object"

    def __init__(self, obj, path: str):
        self.obj, self.path = obj, path

    def full(self, inner: str) -> str:
        return self.path if inner == "" else f"{self.path}/{inner}"

    def tensors(self) -> dict[str, np.ndarray]:
        return {}

    def json_state(self):
        return None

    def plan(self, saved: dict, entry: dict | None, strict: bool) -> _Plan:
        raise NotImplementedError

    def snapshot(self) -> Callable[[], None]:
        raise NotImplementedError

    def apply(self, plan: _Plan, strict: bool) -> None:
        raise NotImplementedError


def _plan_by_comparison(adapter: _Adapter, current: dict, saved: dict) -> _Plan:
    plan = _Plan()
    ok = {}
    for k, want in current.items():
        if k not in saved:
            plan.missing.append(k)
        elif _compare(plan, adapter.full(k), np.asarray(want), saved[k]):
            ok[k] = saved[k]
    plan.unexpected += [k for k in saved if k not in current]
    plan.restored += list(ok)
    plan.data = ok
    return plan


class _VariableAdapter(_Adapter):
    kind = "variable"

    def tensors(self):
        return {"": self.obj.numpy()}

    def plan(self, saved, entry, strict):
        return _plan_by_comparison(self, {"": self.obj._value}, saved)

    def snapshot(self):
        var, old = self.obj, self.obj.numpy()

        def rollback():
            var._value[...] = old
            var._mark_updated()
        return rollback

    def apply(self, plan, strict):
        if "" in plan.data:
            self.obj._value[...] = plan.data[""]
            self.obj._mark_updated()


def _weights_of(obj, path: str) -> list[Variable]:
    weights = obj.weights
    if callable(weights):
        weights = weights()
    out, seen = [], set()
    for v in list(weights or []):
        if not isinstance(v, Variable):
            raise TypeError(f"Checkpoint: '{path}'.weights must be descend.Variables. Received {type(v).__name__}")
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


class _WeightsAdapter(_Adapter):
    """A model or layer: its ``weights``, keyed by full variable name; unbuilt ones defer."""

    kind = "weights"

    def tensors(self):
        return {v.name: v.numpy() for v in _weights_of(self.obj, self.path)}

    def plan(self, saved, entry, strict):
        current = {v.name: v for v in _weights_of(self.obj, self.path)}
        plan = _plan_by_comparison(self, {k: v._value for k, v in current.items()}, saved)
        plan.data = {k: (current[k], a) for k, a in plan.data.items()}
        # names the model does not have (yet): a model that is not built keeps them for later
        if plan.unexpected and not plan.missing and getattr(self.obj, "built", False) is not True:
            plan.pending = {k: saved[k] for k in plan.unexpected}
            plan.deferred, plan.unexpected = plan.unexpected, []
        return plan

    def snapshot(self):
        olds = [(v, v.numpy()) for v in _weights_of(self.obj, self.path)]

        def rollback():
            for v, old in olds:
                v._value[...] = old
                v._mark_updated()
        return rollback

    def apply(self, plan, strict):
        for var, arr in plan.data.values():
            var._value[...] = arr
            var._mark_updated()


class _OptimizerAdapter(_Adapter):
    """The optimizer's own state protocol (``state_dict`` / ``restore_plan``) and its class/config."""

    kind = "optimizer"

    def tensors(self):
        return self.obj.state_dict()

    def json_state(self):
        opt = self.obj
        state: dict = {"class_name": type(opt).__name__}
        try:
            state["config"] = _to_json(opt.get_config(), f"{self.path}.config")
        except Exception as e:  # the config is informational: a custom optimizer may not provide one
            state["config"] = None
            state["config_error"] = f"{type(e).__name__}: {e}"
        state["hyperparameters"] = {
            k: "constant" if isinstance(v, float) else "schedule" if hasattr(v, "get_config") else "callable"
            for k, v in opt.hyperparameters().items()}
        return state

    def plan(self, saved, entry, strict):
        opt = self.obj
        plan = _Plan()
        saved_class = ((entry or {}).get("json") or {}).get("class_name")
        if saved_class is not None and saved_class != type(opt).__name__:
            plan.mismatched.append(f"{self.path}: the checkpoint holds the state of a {saved_class} optimizer; "
                                   f"the object to restore is a {type(opt).__name__}")
        try:
            restore = opt.restore_plan(saved, strict=False)
        except ValueError as e:
            plan.mismatched.append(f"{self.path}: {e}")
            plan.data = None
            return plan
        plan.missing += restore.missing
        plan.unexpected += restore.unexpected
        plan.mismatched += [f"{self.path}/{m}" for m in restore.mismatched]
        plan.deferred += list(restore.deferred)
        plan.restored = restore.restored + [f"hyper:{n}" for n in restore.hyper]
        plan.data = restore
        return plan

    def snapshot(self):
        opt = self.obj
        state = opt.state_dict()

        def rollback():
            opt.load_state_dict(state, strict=False)
        return rollback

    def apply(self, plan, strict):
        if plan.data is not None:
            plan.data.commit()


class _JsonStateAdapter(_Adapter):
    """Objects whose whole state is JSON (random generators, dataset iterators)."""

    def get(self):
        raise NotImplementedError

    def set(self, state) -> None:
        raise NotImplementedError

    def check(self, state) -> str | None:
        return None

    def json_state(self):
        return {"state": _to_json(self.get(), self.path)}

    def plan(self, saved, entry, strict):
        plan = _Plan()
        plan.unexpected += list(saved)
        state = (entry or {}).get("json")
        if entry is None:
            plan.missing.append("")
        elif not isinstance(state, dict) or "state" not in state or entry.get("kind") != self.kind:
            plan.mismatched.append(f"{self.path}: the checkpoint holds a {entry.get('kind')} "
                                   f"({entry.get('class')}), not the state of a {self.kind} ({_qualname(self.obj)})")
        else:
            value = _from_json(state["state"])
            problem = self.check(value)
            if problem:
                plan.mismatched.append(f"{self.path}: {problem}")
            else:
                plan.data = value
                plan.restored.append("")
        return plan

    def snapshot(self):
        old = self.get()
        return lambda: self.set(old)

    def apply(self, plan, strict):
        if plan.data is not None:
            self.set(plan.data)


class _GeneratorAdapter(_JsonStateAdapter):
    kind = "random_generator"

    def _bitgen(self):
        return self.obj if isinstance(self.obj, np.random.BitGenerator) else self.obj.bit_generator

    def get(self):
        return self._bitgen().state

    def set(self, state):
        self._bitgen().state = state

    def check(self, state):
        have = type(self._bitgen()).__name__
        got = state.get("bit_generator") if isinstance(state, dict) else None
        if got != have:
            return f"the checkpoint holds the state of a {got} bit generator; the generator uses {have}"
        return None


class _RandomStateAdapter(_JsonStateAdapter):
    kind = "random_state"

    def get(self):
        return self.obj.get_state(legacy=False)

    def set(self, state):
        self.obj.set_state(state)

    def check(self, state):
        if not isinstance(state, dict) or "bit_generator" not in state:
            return "not a numpy RandomState state"
        return None


class _StateAdapter(_JsonStateAdapter):
    kind = "state"

    def get(self):
        return self.obj.get_state()

    def set(self, state):
        self.obj.set_state(state)


class _ProtocolAdapter(_Adapter):
    """An object implementing the trackable protocol itself."""

    kind = "custom"

    def tensors(self):
        out = self.obj._checkpoint_tensors()
        if not isinstance(out, dict):
            raise TypeError(f"{self.path}: _checkpoint_tensors() must return a dict. Received {type(out).__name__}")
        return {k: np.asarray(v) for k, v in out.items()}

    def json_state(self):
        fn = getattr(self.obj, "_checkpoint_json", None)
        return None if fn is None else {"state": _to_json(fn(), self.path)}

    def plan(self, saved, entry, strict):
        json_state = ((entry or {}).get("json") or {}).get("state")
        json_state = None if json_state is None else _from_json(json_state)
        check = getattr(self.obj, "_check_restore", None)
        if check is not None:
            plan = _Plan()
            result = check(dict(saved), json_state) or {}
            plan.missing += list(result.get("missing", ()))
            plan.unexpected += list(result.get("unexpected", ()))
            plan.mismatched += [f"{self.path}: {m}" for m in result.get("mismatched", ())]
            bad = set(plan.missing) | set(plan.unexpected)
            plan.restored = [k for k in saved if k not in bad]
            plan.data = {k: saved[k] for k in plan.restored}
        else:
            plan = _plan_by_comparison(self, self.tensors(), saved)
        if hasattr(self.obj, "_checkpoint_json"):
            if entry is None or json_state is None:
                plan.missing.append("<json state>")
            else:
                plan.restored.append("<json state>")
        plan.data = (plan.data, json_state)
        return plan

    def snapshot(self):
        tensors = {k: v.copy() for k, v in self.tensors().items()}
        js = self.obj._checkpoint_json() if hasattr(self.obj, "_checkpoint_json") else None

        def rollback():
            self.obj._restore_tensors(tensors, False)
            if js is not None:
                self.obj._restore_json(js)
        return rollback

    def apply(self, plan, strict):
        tensors, js = plan.data
        result = self.obj._restore_tensors(tensors, strict)
        if js is not None and hasattr(self.obj, "_restore_json"):
            self.obj._restore_json(js)
        return result


def _adapter_for(obj, path: str):
    """The adapter for a leaf, a dict of children for a container; TypeError otherwise."""
    if hasattr(obj, "_checkpoint_tensors") and hasattr(obj, "_restore_tensors"):
        return _ProtocolAdapter(obj, path)
    if isinstance(obj, Variable):
        return _VariableAdapter(obj, path)
    if isinstance(obj, Optimizer):
        return _OptimizerAdapter(obj, path)
    if isinstance(obj, MultiOptimizer):
        return {str(i): o for i, o in enumerate(obj.optimizers)}
    if isinstance(obj, (np.random.Generator, np.random.BitGenerator)):
        return _GeneratorAdapter(obj, path)
    if isinstance(obj, np.random.RandomState):
        return _RandomStateAdapter(obj, path)
    if not isinstance(obj, (dict, list, tuple)) and hasattr(obj, "weights"):
        return _WeightsAdapter(obj, path)
    if callable(getattr(obj, "get_state", None)) and callable(getattr(obj, "set_state", None)):
        return _StateAdapter(obj, path)
    if isinstance(obj, dict):
        return dict(obj)
    if isinstance(obj, (list, tuple)):
        return {str(i): o for i, o in enumerate(obj)}
    kind = type(obj).__name__
    hint = " (wrap numbers in a descend.Variable)" if isinstance(obj, (int, float, str, bool, np.generic)) else ""
    raise TypeError(
        f"Checkpoint: '{path}' is a {kind}, which is not trackable{hint}. Trackable: Variables, optimizers, "
        "numpy random generators, objects with `weights`, objects with get_state()/set_state(), objects with "
        "_checkpoint_tensors()/_restore_tensors(), and dicts/lists of these")


def _check_key(key, where: str) -> str:
    if not isinstance(key, str) or not _KEY_RE.match(key):
        raise ValueError(f"Checkpoint: names must be non-empty strings of letters, digits and _.- (no '/'). "
                         f"Received {key!r} in {where or 'the checkpoint'}")
    return key


def _flatten(objects: dict, prefix: str = "") -> list[_Adapter]:
    out = []
    for key, obj in objects.items():
        path = f"{prefix}/{_check_key(key, prefix)}" if prefix else _check_key(key, prefix)
        adapter = _adapter_for(obj, path)
        if isinstance(adapter, dict):
            out += _flatten(adapter, path)
        else:
            out.append(adapter)
    return out


# ---------------------------------------------------------------------------------------------------------------
# deferred restoration of model variables
# ---------------------------------------------------------------------------------------------------------------
_pending_lock = threading.RLock()
_pending_owners: list[weakref.ref] = []  # Checkpoints holding values for variables not created yet, oldest first


def _claim_pending(variable: Variable) -> bool:
    """Hand a restored value to a newly created variable; True if one was waiting.

    The hook for deferred restoration of models: call it for each variable a
    layer creates (``Layer.build`` / ``add_weight``), or register it to run on
    every Variable's creation. A value restored into a model that was not
    built yet is keyed by the variable's full name; the most recent restore
    wins. A value of the wrong shape or dtype raises
    :class:`CheckpointMismatchError` naming the variable.
    """
    if not _pending_owners:
        return False
    name = variable.name
    with _pending_lock:
        for ref in reversed(_pending_owners):
            ckpt = ref()
            if ckpt is None or name not in ckpt._pending:
                continue
            value, key = ckpt._pending.pop(name)
            if not ckpt._pending:
                _unregister(ckpt)
            if value.shape != variable.shape or value.dtype != variable._value.dtype:
                raise CheckpointMismatchError(
                    f"restored value '{key}' has {_describe(value)}; variable '{name}' was created with "
                    f"{_describe(variable._value)}", mismatched=[key])
            variable._value[...] = value
            variable._mark_updated()
            return True
    return False


def _ref(obj) -> Callable[[], Any]:
    try:
        return weakref.ref(obj)
    except TypeError:
        return lambda: obj


def _register(ckpt) -> None:
    with _pending_lock:
        _pending_owners[:] = [r for r in _pending_owners if r() is not None and r() is not ckpt]
        _pending_owners.append(weakref.ref(ckpt))


def _unregister(ckpt) -> None:
    with _pending_lock:
        _pending_owners[:] = [r for r in _pending_owners if r() is not None and r() is not ckpt]


def _install_variable_hook() -> None:
    """Run :func:`_claim_pending` on every Variable's creation when the framework offers a hook list."""
    hooks = getattr(_variable_module, "creation_hooks", None)
    if isinstance(hooks, list) and _claim_pending not in hooks:
        hooks.append(_claim_pending)


_install_variable_hook()


# ---------------------------------------------------------------------------------------------------------------
# durable files
# ---------------------------------------------------------------------------------------------------------------
def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # platforms that cannot open directories (Windows)
        return
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_durable(path: str, data: bytes) -> None:
    with open(path, "xb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _atomic_replace_file(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: temporary file, fsync, rename, fsync the directory."""
    parent = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(parent, f"{_TMP_PREFIX}{os.path.basename(path)}-{secrets.token_hex(6)}")
    try:
        _write_durable(tmp, data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise
    _fsync_dir(parent)


def _is_checkpoint_dir(path: str) -> bool:
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, MANIFEST_FILE))


def _remove_tree(path: str) -> None:
    """Delete a checkpoint directory: hide it under a temporary name first, so a crash never
    leaves a half-deleted checkpoint under its real name."""
    parent, base = os.path.split(os.path.abspath(path))
    hidden = os.path.join(parent, f"{_TMP_PREFIX}del-{base}-{secrets.token_hex(6)}")
    try:
        os.rename(path, hidden)
    except FileNotFoundError:
        return
    shutil.rmtree(hidden, ignore_errors=True)


def _write_checkpoint_dir(path: str, tensors: dict[str, np.ndarray], manifest: dict) -> None:
    from safetensors.numpy import save as st_save

    data = st_save(tensors)
    manifest["tensors_file"] = {"name": TENSORS_FILE, "size": len(data), "sha256": _sha256(data)}
    manifest["manifest_sha256"] = _sha256(_canonical(manifest))
    text = json.dumps(manifest, indent=1, sort_keys=True).encode("utf-8")

    parent = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(os.path.abspath(path))
    os.makedirs(parent, exist_ok=True)
    if os.path.lexists(path) and not (_is_checkpoint_dir(path) or (os.path.isdir(path) and not os.listdir(path))):
        raise FileExistsError(f"Checkpoint: '{path}' exists and is not a checkpoint; refusing to replace it")
    tmp: str | None = os.path.join(parent, f"{_TMP_PREFIX}{base}-{secrets.token_hex(6)}")
    aside = None
    os.mkdir(tmp)
    try:
        _write_durable(os.path.join(tmp, TENSORS_FILE), data)
        _write_durable(os.path.join(tmp, MANIFEST_FILE), text)
        _fsync_dir(tmp)
        if os.path.lexists(path):  # replacing a checkpoint: move the old one aside, never delete it first
            aside = os.path.join(parent, f"{_TMP_PREFIX}old-{base}-{secrets.token_hex(6)}")
            os.rename(path, aside)
        os.rename(tmp, path)
        tmp = None
        _fsync_dir(parent)
    except BaseException:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if aside is not None and not os.path.lexists(path):
            try:
                os.rename(aside, path)
                aside = None
            except OSError:
                pass
        raise
    if aside is not None:
        shutil.rmtree(aside, ignore_errors=True)


def _cleanup_tmp(directory: str) -> list[str]:
    """Remove what interrupted writes left in ``directory``; put back a replaced checkpoint
    whose replacement never arrived. Returns the names removed."""
    removed = []
    try:
        names = os.listdir(directory)
    except FileNotFoundError:
        return removed
    for name in names:
        if not name.startswith(_TMP_PREFIX):
            continue
        full = os.path.join(directory, name)
        m = re.match(rf"^{re.escape(_TMP_PREFIX)}old-(.+)-[0-9a-f]{{12}}$", name)
        if m and not os.path.lexists(os.path.join(directory, m.group(1))) and _is_checkpoint_dir(full):
            os.rename(full, os.path.join(directory, m.group(1)))
            continue
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full, ignore_errors=True)
        else:
            try:
                os.remove(full)
            except OSError:
                pass
        removed.append(name)
    return removed


# ---------------------------------------------------------------------------------------------------------------
# reading and verifying
# ---------------------------------------------------------------------------------------------------------------
def _truncated_keys(data: bytes) -> list[str]:
    """Which tensors a truncated safetensors file cuts off (from its own header; best effort)."""
    try:
        if len(data) < 8:
            return []
        n = struct.unpack("<Q", data[:8])[0]
        if 8 + n > len(data):
            return []
        header = json.loads(data[8:8 + n])
        return sorted(k for k, info in header.items()
                      if k != "__metadata__" and 8 + n + int(info["data_offsets"][1]) > len(data))
    except Exception:
        return []


def _check_manifest(manifest, mpath: str) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise CheckpointCorruptedError(f"{mpath}: not a descend checkpoint manifest (format "
                                       f"{manifest.get('format') if isinstance(manifest, dict) else None!r})",
                                       [MANIFEST_FILE])
    version = manifest.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise CheckpointCorruptedError(f"{mpath}: invalid schema_version {version!r}", [MANIFEST_FILE])
    if version > SCHEMA_VERSION:
        raise CheckpointError(f"{mpath}: written with checkpoint schema {version}; this descend reads schema "
                              f"{SCHEMA_VERSION} and older. Upgrade descend to read it")
    for field, typ in (("tensors", dict), ("objects", dict), ("tensors_file", dict)):
        if not isinstance(manifest.get(field), typ):
            raise CheckpointCorruptedError(f"{mpath}: field '{field}' is missing or not a {typ.__name__}",
                                           [MANIFEST_FILE])
    for key, info in manifest["tensors"].items():
        if not (isinstance(info, dict) and isinstance(info.get("shape"), list) and isinstance(info.get("dtype"), str)
                and isinstance(info.get("sha256"), str)):
            raise CheckpointCorruptedError(f"{mpath}: the entry of tensor '{key}' is malformed: {info!r}", [key])


def _read_checkpoint(path) -> tuple[dict, dict[str, np.ndarray]]:
    """The manifest and every tensor of the checkpoint at ``path``, all verified."""
    path = os.fspath(path)
    mpath = os.path.join(path, MANIFEST_FILE)
    tpath = os.path.join(path, TENSORS_FILE)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"No checkpoint at '{path}' (expected a directory holding {MANIFEST_FILE} and "
                                f"{TENSORS_FILE})")
    if not os.path.isfile(mpath):
        hint = (f"; it is a CheckpointManager directory: pass descend.train.latest_checkpoint('{path}')"
                if os.path.isfile(os.path.join(path, INDEX_FILE)) else "")
        raise FileNotFoundError(f"No checkpoint at '{path}': {MANIFEST_FILE} is missing{hint}")
    with open(mpath, "rb") as f:
        raw = f.read()
    try:
        manifest = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise CheckpointCorruptedError(f"checkpoint '{path}': {MANIFEST_FILE} is corrupted or truncated "
                                       f"(not valid JSON: {e})", [MANIFEST_FILE]) from None
    _check_manifest(manifest, mpath)
    problems: list[tuple[str, str]] = []
    body = {k: v for k, v in manifest.items() if k != "manifest_sha256"}
    if manifest.get("manifest_sha256") != _sha256(_canonical(body)):
        problems.append((MANIFEST_FILE, "checksum mismatch: the manifest was modified or corrupted"))
    if not os.path.isfile(tpath):
        raise CheckpointCorruptedError(f"checkpoint '{path}': {TENSORS_FILE} is missing", [TENSORS_FILE])
    with open(tpath, "rb") as f:
        data = f.read()
    want = manifest["tensors_file"]
    if want.get("size") != len(data):
        problems.append((TENSORS_FILE, f"has {len(data)} bytes; the manifest records {want.get('size')} "
                                       "(truncated or modified)"))
    from safetensors import SafetensorError
    from safetensors.numpy import load as st_load

    try:
        loaded = st_load(data)
    except (SafetensorError, ValueError, TypeError, KeyError) as e:
        cut = _truncated_keys(data)
        entries = [TENSORS_FILE] + cut
        lines = [f"{TENSORS_FILE} cannot be read ({e}): the file is truncated or corrupted"]
        if cut:
            lines.append(f"tensors cut off: {cut}")
        lines += [f"{k}: {msg}" for k, msg in problems]
        raise CheckpointCorruptedError(f"checkpoint '{path}' is corrupted; nothing was restored:\n  "
                                       f"file {tpath}\n  " + "\n  ".join(lines), entries) from None
    for key, info in manifest["tensors"].items():
        arr = loaded.get(key)
        if arr is None:
            problems.append((key, f"listed in {MANIFEST_FILE} but absent from {TENSORS_FILE}"))
            continue
        if list(arr.shape) != info["shape"] or arr.dtype.name != info["dtype"]:
            problems.append((key, f"{TENSORS_FILE} holds {_describe(arr)}; {MANIFEST_FILE} records shape "
                                  f"{tuple(info['shape'])} {info['dtype']}"))
        elif _sha256(arr.tobytes()) != info["sha256"]:
            problems.append((key, "checksum mismatch: the tensor's bytes were modified or corrupted"))
    for key in loaded:
        if key not in manifest["tensors"]:
            problems.append((key, f"present in {TENSORS_FILE} but not listed in {MANIFEST_FILE}"))
    if want.get("sha256") != _sha256(data) and not any(k != MANIFEST_FILE for k, _ in problems):
        problems.append((TENSORS_FILE, "checksum mismatch: the file was modified or corrupted"))
    if problems:
        lines = "\n".join(f"  {k}: {msg}" for k, msg in problems)
        raise CheckpointCorruptedError(f"checkpoint '{path}' is corrupted; nothing was restored:\n{lines}",
                                       [k for k, _ in problems])
    return manifest, {k: np.array(v) for k, v in loaded.items()}


class CheckpointReader:
    """Read-only, verified access to a checkpoint's tensors (``tf.train.load_checkpoint``).

    Attributes:
        path: the checkpoint directory.
        manifest: the parsed ``manifest.json``.
    """

    def __init__(self, path):
        self.path = os.fspath(path)
        self.manifest, self._tensors = _read_checkpoint(self.path)

    def keys(self) -> list[str]:
        return sorted(self._tensors)

    def has_tensor(self, key: str) -> bool:
        return key in self._tensors

    def get_tensor(self, key: str) -> np.ndarray:
        if key not in self._tensors:
            raise KeyError(f"checkpoint '{self.path}' has no tensor '{key}'. It has: {self.keys()}")
        return self._tensors[key].copy()

    def get_variable_to_shape_map(self) -> dict[str, tuple]:
        return {k: tuple(v.shape) for k, v in self._tensors.items()}

    def get_variable_to_dtype_map(self) -> dict[str, np.dtype]:
        return {k: v.dtype for k, v in self._tensors.items()}

    def json_state(self, path: str):
        """The JSON state saved for the trackable at ``path`` (e.g. ``"rng"``), or None."""
        entry = self.manifest["objects"].get(path)
        state = (entry or {}).get("json")
        return None if state is None else _from_json(state)


def load_checkpoint(path) -> CheckpointReader:
    """A :class:`CheckpointReader` for the checkpoint at ``path`` (verified)."""
    return CheckpointReader(path)


def list_variables(path) -> list[tuple[str, tuple]]:
    """``[(key, shape), ...]`` of every tensor in the checkpoint, sorted by key."""
    reader = CheckpointReader(path)
    return sorted(reader.get_variable_to_shape_map().items())


# ---------------------------------------------------------------------------------------------------------------
# Checkpoint
# ---------------------------------------------------------------------------------------------------------------
def _descend_version() -> str:
    return str(getattr(sys.modules.get("descend"), "__version__", "unknown"))


class Checkpoint:
    """Save and restore named trackable objects (``tf.train.Checkpoint``).

    Args:
        **trackables: the objects to save, by name (see the module docstring
            for what is trackable). Names are letters, digits and ``_.-``.

    Example:
        >>> import tempfile
        >>> import numpy as np
        >>> import descend as ds
        >>> import descend.train as train
        >>> step = ds.Variable(np.int64(3), name="step", trainable=False)
        >>> rng = np.random.default_rng(0)
        >>> ckpt = train.Checkpoint(step=step, rng=rng)
        >>> path = ckpt.save(tempfile.mkdtemp() + "/ckpt")
        >>> before = rng.random()
        >>> _ = step.assign_add(1)
        >>> report = ckpt.restore(path)
        >>> int(step), rng.random() == before
        (3, True)
    """

    def __init__(self, **trackables):
        self._objects = dict(trackables)
        _flatten(self._objects)  # fail now, naming the object, if something is not trackable
        self._save_counter = 0
        self._pending: dict[str, tuple[np.ndarray, str]] = {}  # variable name -> (value, key in the file)
        self._pending_models: list = []

    # -- facts -------------------------------------------------------------------------------------------------
    @property
    def save_counter(self) -> int:
        """How many times :meth:`save` has run (restored by :meth:`restore`); numbers the next save."""
        return self._save_counter

    def __getattr__(self, name):
        objects = self.__dict__.get("_objects")
        if objects is not None and name in objects:
            return objects[name]
        raise AttributeError(f"'Checkpoint' object has no attribute '{name}'")

    def _adapters(self) -> list[_Adapter]:
        return _flatten(self._objects)

    # -- saving ------------------------------------------------------------------------------------------------
    def _collect(self) -> tuple[dict[str, np.ndarray], dict]:
        tensors: dict[str, np.ndarray] = {}
        objects: dict = {}
        for ad in self._adapters():
            objects[ad.path] = {"kind": ad.kind, "class": _qualname(ad.obj), "json": ad.json_state()}
            for inner, value in ad.tensors().items():
                key = ad.full(inner)
                arr = np.asarray(value)
                if arr.dtype not in _SUPPORTED_DTYPES:
                    raise TypeError(f"Checkpoint: '{key}' has dtype {arr.dtype}, which a checkpoint cannot hold "
                                    f"(supported: bool, int8-64, uint8-64, float16/32/64)")
                if key in tensors:
                    raise ValueError(f"Checkpoint: two objects save the same key '{key}'")
                tensors[key] = np.array(arr, dtype=arr.dtype.newbyteorder("<"), order="C")  # a copy
        try:
            json.dumps(objects)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Checkpoint: an object's JSON state cannot be written: {e}") from None
        return tensors, objects

    def _write(self, path, counter: int) -> str:
        path = os.fspath(path)
        tensors, objects = self._collect()
        now = time.time()
        manifest = {
            "format": FORMAT,
            "schema_version": SCHEMA_VERSION,
            "descend_version": _descend_version(),
            "created": now,
            "created_utc": datetime.datetime.fromtimestamp(now, datetime.timezone.utc).isoformat(),
            "save_counter": int(counter),
            "tensors": {k: {"shape": list(a.shape), "dtype": a.dtype.name, "sha256": _sha256(a.tobytes())}
                        for k, a in sorted(tensors.items())},
            "objects": objects,
        }
        _write_checkpoint_dir(path, tensors, manifest)
        return path

    def write(self, path) -> str:
        """Write a checkpoint to exactly ``path`` (a directory; an existing checkpoint there is
        replaced atomically). Does not change :attr:`save_counter`. Returns ``path``."""
        return self._write(path, self._save_counter)

    def save(self, file_prefix) -> str:
        """Write ``<file_prefix>-<save_counter + 1>`` and return its path."""
        n = self._save_counter + 1
        path = self._write(f"{os.fspath(file_prefix)}-{n}", n)
        self._save_counter = n
        return path

    # -- restoring ---------------------------------------------------------------------------------------------
    def restore(self, path, *, strict: bool = True) -> RestoreReport:
        """Restore every object from the checkpoint at ``path``.

        Every checksum is verified first, then everything that does not match
        is collected. With ``strict=True`` one :class:`CheckpointMismatchError`
        lists every missing, unexpected, mis-shaped and mis-typed entry, and no
        object changes. With ``strict=False`` the entries that match are
        restored and the returned report lists the rest. A corrupted checkpoint
        raises :class:`CheckpointCorruptedError` either way. ``path=None``
        restores nothing (TF's "start from scratch" spelling).

        Returns:
            a :class:`RestoreReport`.
        """
        return self._restore(path, strict=strict, counter=True)

    def read(self, path, *, strict: bool = True) -> RestoreReport:
        """:meth:`restore` without restoring :attr:`save_counter` (pairs with :meth:`write`)."""
        return self._restore(path, strict=strict, counter=False)

    def _restore(self, path, *, strict: bool, counter: bool) -> RestoreReport:
        if path is None:
            return RestoreReport(None, self)
        path = os.fspath(path)
        manifest, saved = _read_checkpoint(path)
        adapters = self._adapters()
        paths = {ad.path: ad for ad in adapters}
        by_owner: dict[str, dict[str, np.ndarray]] = {p: {} for p in paths}
        orphans: list[str] = []
        for key, arr in saved.items():
            parts = key.split("/")
            for i in range(1, len(parts) + 1):
                owner = "/".join(parts[:i])
                if owner in paths:
                    by_owner[owner]["/".join(parts[i:])] = arr
                    break
            else:
                orphans.append(key)
        objects = manifest["objects"]
        report = RestoreReport(path, self)
        plans = []
        for ad in adapters:
            entry = objects.get(ad.path)
            if entry is None and not by_owner[ad.path]:
                report.missing.append(f"{ad.path} (no such object in the checkpoint)")
                continue
            plan = ad.plan(by_owner[ad.path], entry, strict)
            plans.append((ad, plan))
            report.restored += [ad.full(k) for k in plan.restored]
            report.deferred += [ad.full(k) for k in plan.deferred]
            report.missing += [ad.full(k) for k in plan.missing]
            report.unexpected += [ad.full(k) for k in plan.unexpected]
            report.mismatched += plan.mismatched
        report.unexpected += sorted(orphans)
        report.unexpected += sorted(f"{p} (object)" for p in objects if p not in paths and not any(
            k == p or k.startswith(p + "/") for k in orphans))
        if strict and not report.complete:
            hint = ""
            if any(m.endswith("(no such object in the checkpoint)") for m in report.missing):
                hint = f"  the checkpoint holds the objects: {sorted(objects)}"
            raise CheckpointMismatchError(
                _mismatch_message(f"checkpoint '{path}' does not match the objects to restore; nothing was "
                                  "restored (restore(path, strict=False) restores what matches):",
                                  report.missing, report.unexpected, report.mismatched, hint),
                report.missing, report.unexpected, report.mismatched)
        for ad, result in self._apply(plans, strict, path):  # what protocol objects report themselves
            report.missing += [ad.full(k) for k in result.get("missing", ()) if ad.full(k) not in report.missing]
            report.unexpected += [ad.full(k) for k in result.get("unexpected", ())
                                  if ad.full(k) not in report.unexpected]
            report.mismatched += [f"{ad.path}: {m}" for m in result.get("mismatched", ())]
        pending, models = {}, []
        for ad, plan in plans:
            for name, value in plan.pending.items():
                pending[name] = (value, ad.full(name))
            if plan.pending:
                models.append(_ref(ad.obj))
        self._pending, self._pending_models = pending, models
        if pending:
            _register(self)
        else:
            _unregister(self)
        if counter:
            sc = manifest.get("save_counter")
            if isinstance(sc, int) and not isinstance(sc, bool):
                self._save_counter = sc
        return report

    def _apply(self, plans, strict: bool, path: str) -> list:
        # state objects first (their set_state may refuse), variables last; undo everything if one fails
        order = sorted(plans, key=lambda p: 0 if isinstance(p[0], (_JsonStateAdapter, _ProtocolAdapter)) else 1)
        undo, results = [], []
        for ad, plan in order:
            undo.append(ad.snapshot())
            try:
                result = ad.apply(plan, strict)
                if isinstance(result, dict):
                    results.append((ad, result))
            except Exception as e:
                failures = []
                for i, rollback in reversed(list(enumerate(undo))):
                    try:
                        rollback()
                    except Exception as e2:
                        # the failing object's own rollback is best effort: it refused the new state
                        # and may refuse the old one (a set_state that validates before changing anything)
                        if i != len(undo) - 1:
                            failures.append(f"{type(e2).__name__}: {e2}")
                tail = ("every object was returned to its previous state" if not failures else
                        f"rolling back also failed: {failures}")
                raise CheckpointError(f"restoring '{ad.path}' from checkpoint '{path}' failed: "
                                      f"{type(e).__name__}: {e}; {tail}") from e
        return results

    # -- deferred restoration ----------------------------------------------------------------------------------
    @property
    def pending(self) -> list[str]:
        """Keys restored into models whose variables do not exist yet, still waiting."""
        return sorted(key for _, key in self._pending.values())

    def apply_pending(self) -> list[str]:
        """Hand waiting values to variables that now exist in the restored models (for models
        whose ``build`` does not call the creation hook). Returns the keys applied."""
        applied = []
        for ref in self._pending_models:
            obj = ref()
            if obj is None:
                continue
            for var in _weights_of(obj, "model"):
                if var.name in self._pending:
                    value, key = self._pending[var.name]
                    if value.shape != var.shape or value.dtype != var._value.dtype:
                        raise CheckpointMismatchError(
                            f"restored value '{key}' has {_describe(value)}; variable '{var.name}' has "
                            f"{_describe(var._value)}", mismatched=[key])
                    var._value[...] = value
                    var._mark_updated()
                    del self._pending[var.name]
                    applied.append(key)
        if not self._pending:
            _unregister(self)
            self._pending_models = []
        return applied

    def assert_consumed(self) -> None:
        """Raise if restored values are still waiting for model variables or optimizer slots
        that were never created (names that exist in the checkpoint but not in the program)."""
        waiting = self.pending
        for ad in self._adapters():
            if isinstance(ad, _OptimizerAdapter):
                waiting += [ad.full(k) for k in sorted(ad.obj.pending_state())]
        if waiting:
            raise CheckpointMismatchError(
                "restored values were never used: no variable or slot of these names was created:\n"
                + "\n".join(f"    {w}" for w in waiting), unexpected=waiting)

    def __repr__(self):
        return f"<Checkpoint {sorted(self._objects)} save_counter={self._save_counter}>"


# ---------------------------------------------------------------------------------------------------------------
# CheckpointManager
# ---------------------------------------------------------------------------------------------------------------
def _read_index(directory: str) -> list[dict]:
    ipath = os.path.join(directory, INDEX_FILE)
    try:
        with open(ipath, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        return []
    try:
        index = json.loads(raw.decode("utf-8"))
        if index.get("format") != INDEX_FORMAT:
            raise ValueError(f"format {index.get('format')!r}")
        entries = index["checkpoints"]
        if not all(isinstance(e, dict) and isinstance(e.get("name"), str) for e in entries):
            raise ValueError("malformed entries")
    except (UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise CheckpointCorruptedError(f"checkpoint index '{ipath}' is corrupted ({e}); delete it to start a new "
                                       "index (the checkpoint directories are untouched)", [INDEX_FILE]) from None
    return [e for e in entries if "/" not in e["name"] and not e["name"].startswith(".")]


def _write_index(directory: str, entries: list[dict]) -> None:
    index = {"format": INDEX_FORMAT, "schema_version": SCHEMA_VERSION,
             "latest": entries[-1]["name"] if entries else None, "checkpoints": entries}
    _atomic_replace_file(os.path.join(directory, INDEX_FILE), json.dumps(index, indent=1).encode("utf-8"))


def latest_checkpoint(directory) -> str | None:
    """The path of the newest checkpoint a :class:`CheckpointManager` recorded in ``directory``, or None."""
    directory = os.fspath(directory)
    for entry in reversed(_read_index(directory)):
        path = os.path.join(directory, entry["name"])
        if _is_checkpoint_dir(path):
            return path
    return None


class CheckpointManager:
    """Numbered checkpoints in a directory; keeps the newest ``max_to_keep`` (``tf.train.CheckpointManager``).

    Args:
        checkpoint: the :class:`Checkpoint` to save.
        directory: where checkpoints ``<checkpoint_name>-<N>`` and the index ``checkpoint.json`` live.
        max_to_keep: how many to keep (None keeps all); older ones are deleted
            only after the new checkpoint and the index are durable.
        checkpoint_name: the prefix of each checkpoint's name.

    Opening a directory removes what interrupted saves left (``.tmp-*``).

    Example:
        >>> import tempfile
        >>> import descend as ds
        >>> import descend.train as train
        >>> w = ds.Variable([1.0], name="w")
        >>> directory = tempfile.mkdtemp()
        >>> manager = train.CheckpointManager(train.Checkpoint(w=w), directory, max_to_keep=2)
        >>> paths = [manager.save() for _ in range(3)]
        >>> [p.rsplit("/", 1)[-1] for p in manager.checkpoints]
        ['ckpt-2', 'ckpt-3']
        >>> train.latest_checkpoint(directory) == paths[-1]
        True
    """

    def __init__(self, checkpoint: Checkpoint, directory, max_to_keep: int | None = 5, *,
                 checkpoint_name: str = "ckpt"):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager expects a descend.train.Checkpoint. Received "
                            f"{type(checkpoint).__name__}")
        if max_to_keep is not None and (isinstance(max_to_keep, bool) or not isinstance(max_to_keep, int)
                                        or max_to_keep < 1):
            raise ValueError(f"`max_to_keep` must be a positive integer or None. Received: max_to_keep={max_to_keep!r}")
        if not isinstance(checkpoint_name, str) or not _KEY_RE.match(checkpoint_name) or checkpoint_name[0] == ".":
            raise ValueError(f"`checkpoint_name` must be letters, digits and _.- not starting with '.'. "
                             f"Received: {checkpoint_name!r}")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._name = checkpoint_name
        os.makedirs(self._directory, exist_ok=True)
        _cleanup_tmp(self._directory)
        self._entries = [e for e in _read_index(self._directory)
                         if _is_checkpoint_dir(os.path.join(self._directory, e["name"]))]

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def max_to_keep(self) -> int | None:
        return self._max_to_keep

    @property
    def checkpoints(self) -> list[str]:
        """Paths of the kept checkpoints, oldest first."""
        return [os.path.join(self._directory, e["name"]) for e in self._entries]

    @property
    def latest_checkpoint(self) -> str | None:
        return os.path.join(self._directory, self._entries[-1]["name"]) if self._entries else None

    def _last_number(self) -> int:
        pattern = re.compile(rf"^{re.escape(self._name)}-(\d+)$")
        numbers = [int(m.group(1)) for e in self._entries if (m := pattern.match(e["name"]))]
        return max(numbers, default=0)

    def save(self, checkpoint_number=None) -> str:
        """Write ``<checkpoint_name>-<N>`` and return its path.

        Args:
            checkpoint_number: N (an int or an integer Variable, e.g. the
                optimizer's ``iterations``); default: one more than both the
                newest checkpoint's number and the checkpoint's save counter.
        """
        ckpt = self._checkpoint
        if checkpoint_number is None:
            number = max(ckpt.save_counter + 1, self._last_number() + 1)
            counter = number
        else:
            number = int(checkpoint_number)
            if number < 0:
                raise ValueError(f"checkpoint_number must be >= 0. Received: {number}")
            counter = ckpt.save_counter + 1
        name = f"{self._name}-{number}"
        path = ckpt._write(os.path.join(self._directory, name), counter)
        ckpt._save_counter = counter
        entries = [e for e in self._entries if e["name"] != name] + [{"name": name, "time": time.time()}]
        drop = []
        if self._max_to_keep is not None and len(entries) > self._max_to_keep:
            drop, entries = entries[:-self._max_to_keep], entries[-self._max_to_keep:]
        _write_index(self._directory, entries)  # durable before anything is deleted
        self._entries = entries
        for e in drop:
            _remove_tree(os.path.join(self._directory, e["name"]))
        return path

    def restore_or_initialize(self, *, strict: bool = True) -> str | None:
        """Restore the latest checkpoint if there is one; return its path (None: nothing to restore)."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest, strict=strict)
        return latest

    def __repr__(self):
        return f"<CheckpointManager '{self._directory}' checkpoints={[e['name'] for e in self._entries]}>"
