"""The object protocol and the object graph: what is saved, under which path.

**Paths.** Every object is saved under its path from the checkpoint's root,
made of attribute names, list indices and dict keys, TF 2 style::

    model/layers/0/kernel                 Sequential: the first layer's kernel
    model/hidden/kernel                   a subclassed model's attribute ``hidden``
    model/layers/2/rng                    a Dropout layer's random generator (JSON)
    optimizer/iterations                  the optimizer's step counter
    optimizer/model/layers/0/kernel/m     Adam's ``m`` slot of that kernel
    optimizer/hyper:learning_rate         a constant hyperparameter
    metrics/0/total                       a metric's state variable
    model/optimizer/iterations            a compiled model's optimizer (``model.optimizer``, TensorFlow's
                                          child ``optimizer``), walked after everything else: an optimizer
                                          also given as a root keeps the root's path

:class:`WithoutOptimizer` (``Checkpoint(model=WithoutOptimizer(model))``) walks a model without its
compiled optimizer (Keras' weights-only saves).

A layer's weights made with ``add_weight`` are named by the name given to
``add_weight`` (known when the weight is created, so a weight restored before
its layer is built finds its value); Variables assigned as attributes by the
attribute's name. Variable names (``sequential_3/dense_7/kernel``) depend on
creation order, so they are kept only as metadata (``variable_names`` in the
manifest). An object reachable along two paths is saved once, under the first;
the other paths are recorded as aliases of the first (``aliases`` in the manifest,
:attr:`Graph.aliases`), so a restore reaches it through either, as TensorFlow's
object graph does. A nested ``Checkpoint`` is walked as a dict of its roots.
Variables that no root reaches (an optimizer saved without its model) are keyed
by name under ``.by_name/``.

**The protocol.** An object owns its state through two methods:

* ``state_dict() -> dict[str, value]``: copies of everything to save; NumPy
  arrays go to the tensors file, JSON-able values (numbers, strings, lists,
  dicts) to the manifest;
* ``restore_plan(state) -> commit``: validate ``state`` completely and raise
  ``ValueError`` naming every problem with nothing changed, or return a
  zero-argument ``commit()`` that writes it and cannot fail.

Optimizers take a ``var_key`` argument in both (slots keyed by their
variable's path). Layers (and so models) are walked structurally; a layer may
implement the protocol too for state that is not a Variable (Dropout's
generator). Also accepted: Variables, NumPy random generators, objects with
``get_state()``/``set_state()`` exchanging JSON-able dicts (dataset iterators),
objects with a ``weights`` list (keyed by position) and dicts/lists of these.

Example:
    >>> import descend as ds
    >>> from descend.persistence.checkpoint import trackable
    >>> ds.clear_session()
    >>> model = ds.Sequential([ds.layers.Dense(2), ds.layers.Dropout(0.5, seed=1)])
    >>> _ = model(ds.ones((1, 3)))
    >>> [leaf.path for leaf in trackable.walk({"model": model}).leaves]
    ['model/layers/0/kernel', 'model/layers/0/bias', 'model/layers/1']
"""

from __future__ import annotations

import copy
import re
from typing import Any, Callable

import numpy as np

from ...framework import nest
from ...framework.variable import Variable
from ...layers.base import Layer
from ...optimizers.loss_scale import LossScaleOptimizer
from ...optimizers.multi import MultiOptimizer
from ...optimizers.optimizer import Optimizer
from ..checkpoint_errors import short
from .descend_format import SUPPORTED_DTYPES, from_json, to_json

__all__ = ["walk", "Graph", "Leaf", "KEY_RE", "check_key", "is_trackable", "compiled_optimizer", "WithoutOptimizer",
           "unwrap"]

KEY_RE = re.compile(r"^[A-Za-z0-9_.\-:]+$")
_CONTAINER_DEPTH = 4


def check_key(key, where: str) -> str:
    if not isinstance(key, str) or not KEY_RE.match(key) or key.startswith("."):
        raise ValueError(f"Checkpoint: names must be non-empty strings of letters, digits and _.-: (no '/', not "
                         f"starting with '.'). Received {short(key)} in {where or 'the checkpoint'}")
    return key


def _qualname(obj) -> str:
    t = type(obj)
    return f"{t.__module__}.{t.__qualname__}"


def has_protocol(obj) -> bool:
    return callable(getattr(obj, "state_dict", None)) and callable(getattr(obj, "restore_plan", None))


# ---------------------------------------------------------------------------------------------------------------
# leaves: one per object that owns state
# ---------------------------------------------------------------------------------------------------------------
class Leaf:
    """An object with state at ``path``: ``state()`` to save, ``plan(state)`` to restore.

    ``state()`` returns ``{inner key: ndarray or JSON value}``; ``plan`` takes the
    same shape back and returns ``(commit, fallible)``: ``fallible`` commits
    (``set_state`` of duck-typed objects) run first and are undone if one fails.
    """

    kind = "object"
    fallible = False

    def __init__(self, obj, path: str, graph: Graph):
        self.obj, self.path, self.graph = obj, path, graph

    def full(self, inner: str) -> str:
        return self.path if inner == "" else f"{self.path}/{inner}"

    def state(self) -> dict:
        raise NotImplementedError

    def plan(self, state: dict) -> Callable[[], None]:
        raise NotImplementedError

    def snapshot(self) -> Callable[[], None]:
        commit = self.plan(self.state())
        return commit

    def attribute(self, inner: str) -> str:
        """The name TensorFlow's style gives the value ``inner`` of this object (``<path>/.ATTRIBUTES/<name>``)."""
        return inner or "VARIABLE_VALUE"


class VariableLeaf(Leaf):
    kind = "variable"

    def state(self):
        return {"": self.obj.numpy()}

    def plan(self, state):
        var = self.obj
        arr = state.get("")
        if not isinstance(arr, np.ndarray):
            raise ValueError("the checkpoint holds no tensor here")
        if tuple(arr.shape) != tuple(var.shape) or arr.dtype != var.dtype.dtype:
            raise ValueError(f"expected shape {tuple(var.shape)} {var.dtype.name}, the checkpoint has shape "
                             f"{tuple(arr.shape)} {arr.dtype.name}")
        return lambda: var.assign(arr)


class ProtocolLeaf(Leaf):
    """An object implementing ``state_dict()`` / ``restore_plan(state)``."""

    kind = "protocol"

    def state(self):
        out = self.obj.state_dict()
        if not isinstance(out, dict):
            raise TypeError(f"{self.path}: state_dict() must return a dict. Received {type(out).__name__}")
        return out

    def plan(self, state):
        commit = self.obj.restore_plan(state)
        if not callable(commit):
            raise TypeError(f"{self.path}: restore_plan() must return a callable commit. Received "
                            f"{type(commit).__name__}")
        return commit


class OptimizerLeaf(Leaf):
    kind = "optimizer"

    def state(self):
        from .optimizer_protocol import state_of

        return state_of(self.obj, self.graph.var_key)

    def plan(self, state, strict=True):
        from .optimizer_protocol import plan_for

        return plan_for(self.obj, state, self.graph.var_key, strict)

    def config(self):
        opt = self.obj
        out: dict = {"class_name": type(opt).__name__}
        try:
            out["config"] = to_json(opt.get_config(), f"{self.path}.config")
        except Exception as e:  # informational: a custom optimizer may not provide one
            out["config"], out["config_error"] = None, short(f"{type(e).__name__}: {e}", 200)
        return out


class GeneratorLeaf(Leaf):
    """A NumPy ``Generator``, ``BitGenerator`` or ``RandomState``: its bit generator's state (JSON)."""

    kind = "random_generator"

    def _bitgen(self):
        obj = self.obj
        if isinstance(obj, np.random.RandomState):
            return None
        return obj if isinstance(obj, np.random.BitGenerator) else obj.bit_generator

    def state(self):
        if isinstance(self.obj, np.random.RandomState):
            return {"state": self.obj.get_state(legacy=False)}
        return {"state": self._bitgen().state}

    def plan(self, state):
        value = state.get("state")
        if isinstance(self.obj, np.random.RandomState):
            target = copy.deepcopy(self.obj)
            setter = "set_state"
        else:
            target = copy.deepcopy(self._bitgen())
            have = type(target).__name__
            got = value.get("bit_generator") if isinstance(value, dict) else None
            if got != have:
                raise ValueError(f"the checkpoint holds the state of a {short(got)} bit generator; the generator "
                                 f"uses {have}")
            setter = None
        try:  # try it on a copy: a commit must not fail
            if setter:
                target.set_state(value)
            else:
                target.state = value
        except Exception as e:
            raise ValueError(f"not a valid generator state ({type(e).__name__}: {short(str(e), 200)})") from None
        if setter:
            return lambda: self.obj.set_state(value)
        bitgen = self._bitgen()

        def commit():
            bitgen.state = value
        return commit


class StateLeaf(Leaf):
    """An object with ``get_state()`` / ``set_state(state)`` (JSON dicts); ``set_state`` may refuse."""

    kind = "state"
    fallible = True

    def state(self):
        return {"state": self.obj.get_state()}

    def plan(self, state):
        if "state" not in state:
            raise ValueError("the checkpoint holds no state here")
        value = state["state"]
        return lambda: self.obj.set_state(value)

    def snapshot(self):
        old = self.obj.get_state()
        return lambda: self.obj.set_state(old)

    def attribute(self, inner):
        """The object's ``checkpoint_attribute`` (a dataset iterator's ``ITERATOR_STATE``, TensorFlow's name), else
        ``state``. Only the key shown changes: descend's manifest keeps the state under ``state``, as before."""
        name = getattr(type(self.obj), "checkpoint_attribute", None)
        return name if inner == "state" and isinstance(name, str) and KEY_RE.match(name) else inner


# ---------------------------------------------------------------------------------------------------------------
# the graph
# ---------------------------------------------------------------------------------------------------------------
def _holds_state(value) -> bool:
    return any(isinstance(v, (Layer, Variable)) for v in nest.held(value, _CONTAINER_DEPTH))


def layer_children(layer: Layer) -> list[tuple[str, Any]]:
    """A layer's weights (by attribute or ``add_weight`` name) then its sublayers and containers."""
    d = layer.__dict__
    tracked = list(d.get("_tracked", {}))
    attr_of = {}
    for key in tracked:
        value = d.get(key)
        if isinstance(value, Variable) and id(value) not in attr_of:
            attr_of[id(value)] = key
    names = d.get("_weight_names", {})
    out, used = [], set()
    for v in d.get("_own_weights", []):
        base = names.get(id(v)) or attr_of.get(id(v)) or v.scoped_name.rsplit("/", 1)[-1]
        name, k = base, 1
        while name in used:
            name, k = f"{base}_{k}", k + 1
        used.add(name)
        out.append((name, v))
    for key in tracked:
        value = d.get(key)
        if key in used or not _holds_state(value):
            continue
        if isinstance(value, Variable) and any(value is v for _, v in out):
            continue
        used.add(key)
        out.append((key, value))
    return out


def compiled_optimizer(layer: Layer):
    """The optimizer of a compiled model (``model.optimizer``, which TensorFlow's object graph tracks as the
    model's child ``optimizer``), else None."""
    opt = getattr(layer, "optimizer", None) if getattr(layer, "compiled", False) is True else None
    return opt if isinstance(opt, (Optimizer, LossScaleOptimizer, MultiOptimizer)) else None


class WithoutOptimizer:
    """A model as a checkpoint's root without its compiled optimizer: its layers and weights under the same
    paths as the model's (``Checkpoint(model=WithoutOptimizer(model))`` saves ``model/layers/0/kernel``, not
    ``model/optimizer``). For Keras' weights-only saves (``save_weights`` to descend's folder,
    ``model.save(include_optimizer=False)``), whose files a model compiled otherwise, or not at all, reads."""

    __slots__ = ("model",)

    def __init__(self, model: Layer):
        if not isinstance(model, Layer):
            raise TypeError(f"WithoutOptimizer: expected a layer or model. Received {type(model).__name__}")
        self.model = model

    def __repr__(self):
        return f"WithoutOptimizer({self.model!r})"


def unwrap(obj) -> tuple[Any, bool]:
    """``(object, with its compiled optimizer)``: a :class:`WithoutOptimizer`'s model without it, else ``obj``."""
    return (obj.model, False) if isinstance(obj, WithoutOptimizer) else (obj, True)


class Graph:
    """The objects of a checkpoint, walked from its roots: leaves with their paths, the layers
    (for deferred restoration) and every variable's path (for the optimizers' slots)."""

    def __init__(self, roots: dict):
        self.roots = roots
        self.leaves: list[Leaf] = []
        self.layers: dict[str, Layer] = {}
        self.var_paths: dict[int, str] = {}
        self.vars_by_path: dict[str, Variable] = {}
        self.aliases: dict[str, str] = {}  # a second path to an object -> its first path
        self._seen: dict[int, str] = {}  # id -> the object's first path
        self._keep: list = []  # objects whose ids are in _seen stay alive while the graph does
        self._compiled: list = []  # (optimizer, path) of compiled models, walked after everything else
        for key, obj in roots.items():
            self._visit(obj, check_key(key, ""))
        while self._compiled:  # a root optimizer keeps its own path; the model's is then a second path to it
            opt, path = self._compiled.pop(0)
            self._visit(opt, path)

    def _mark(self, obj, path: str) -> bool:
        first = self._seen.get(id(obj))
        if first is not None:
            if first != path:
                self.aliases.setdefault(path, first)
            return False
        self._seen[id(obj)] = path
        self._keep.append(obj)
        return True

    def _visit(self, obj, path: str, depth: int = 0) -> None:
        obj, with_optimizer = unwrap(obj)
        if isinstance(obj, Variable):
            if self._mark(obj, path):
                self.var_paths[id(obj)] = path
                self.vars_by_path[path] = obj
                self.leaves.append(VariableLeaf(obj, path, self))
            return
        if isinstance(obj, Layer):
            if not self._mark(obj, path):
                return
            self.layers[path] = obj
            if has_protocol(obj):
                self.leaves.append(ProtocolLeaf(obj, path, self))
            for name, child in layer_children(obj):
                self._visit(child, f"{path}/{name}", 0)
            opt = compiled_optimizer(obj) if with_optimizer else None
            if opt is not None:
                self._compiled.append((opt, f"{path}/optimizer"))
            return
        if isinstance(obj, (Optimizer, LossScaleOptimizer)):  # slots keyed by their variables' paths
            if self._mark(obj, path):
                self.leaves.append(OptimizerLeaf(obj, path, self))
            return
        if isinstance(obj, MultiOptimizer):
            if self._mark(obj, path):
                for i, o in enumerate(obj.optimizers):
                    self._visit(o, f"{path}/{i}")
            return
        if isinstance(obj, (np.random.Generator, np.random.BitGenerator, np.random.RandomState)):
            if self._mark(obj, path):
                self.leaves.append(GeneratorLeaf(obj, path, self))
            return
        if has_protocol(obj):
            if self._mark(obj, path):
                self.leaves.append(ProtocolLeaf(obj, path, self))
            return
        if callable(getattr(obj, "get_state", None)) and callable(getattr(obj, "set_state", None)):
            if self._mark(obj, path):
                self.leaves.append(StateLeaf(obj, path, self))
            return
        children = getattr(type(obj), "_trackable_children", None)
        if callable(children):  # a Checkpoint nested in another: its roots, as a dict
            if self._mark(obj, path):
                for k, v in children(obj).items():
                    self._visit(v, f"{path}/{check_key(k, path)}", depth + 1)
            return
        if isinstance(obj, dict):
            if depth >= _CONTAINER_DEPTH * 4:
                raise ValueError(f"Checkpoint: '{path}' nests containers too deeply")
            for k, v in obj.items():
                self._visit(v, f"{path}/{check_key(k, path)}", depth + 1)
            return
        if isinstance(obj, (list, tuple)):
            if depth >= _CONTAINER_DEPTH * 4:
                raise ValueError(f"Checkpoint: '{path}' nests containers too deeply")
            for i, v in enumerate(obj):
                self._visit(v, f"{path}/{i}", depth + 1)
            return
        weights = getattr(obj, "weights", None)
        if weights is not None and not isinstance(obj, (str, bytes, int, float, np.generic)):
            if self._mark(obj, path):
                weights = weights() if callable(weights) else weights
                for i, v in enumerate(list(weights or [])):
                    if not isinstance(v, Variable):
                        raise TypeError(f"Checkpoint: '{path}'.weights must be descend.Variables. Received "
                                        f"{type(v).__name__}")
                    self._visit(v, f"{path}/{i}")
            return
        hint = " (wrap numbers in a descend.Variable)" if isinstance(obj, (int, float, str, bool, np.generic)) else ""
        raise TypeError(
            f"Checkpoint: '{path}' is a {type(obj).__name__}, which is not trackable{hint}. Trackable: Variables, "
            "layers and models, optimizers, metrics, numpy random generators, objects with state_dict()/"
            "restore_plan(), objects with get_state()/set_state(), objects with `weights`, and dicts/lists of these")

    # -- variables' keys for the optimizers ------------------------------------------------------------------
    def var_key(self, var: Variable) -> str:
        """The path naming ``var`` in optimizer state: its path from the roots (walked again for a
        variable created since), else ``.by_name/<name>``."""
        path = self.var_paths.get(id(var))
        if path is None:
            fresh = Graph(self.roots)
            self.var_paths, self.vars_by_path, self._keep = fresh.var_paths, fresh.vars_by_path, fresh._keep
            path = self.var_paths.get(id(var))
        return path if path is not None else f".by_name/{var.scoped_name}"

    def resolve(self, path: str):
        """The variable at ``path`` now (walking again if needed), or None."""
        var = self.vars_by_path.get(path)
        if var is None and path.startswith(".by_name/"):
            return None
        if var is None:
            fresh = Graph(self.roots)
            self.var_paths, self.vars_by_path, self._keep = fresh.var_paths, fresh.vars_by_path, fresh._keep
            var = self.vars_by_path.get(path)
        return var

    def layer_owning(self, key: str) -> tuple[str, Layer] | None:
        """The innermost layer whose path is a prefix of ``key``."""
        parts = key.split("/")
        for i in range(len(parts) - 1, 0, -1):
            p = "/".join(parts[:i])
            if p in self.layers:
                return p, self.layers[p]
        return None


def walk(roots: dict) -> Graph:
    """The :class:`Graph` of ``roots`` (name -> object); TypeError names an object that is not trackable."""
    return Graph(dict(roots))


def is_trackable(obj) -> bool:
    try:
        walk({"x": obj})
        return True
    except (TypeError, ValueError):
        return False


def split_state(state: dict, where: str) -> tuple[dict[str, np.ndarray], dict]:
    """A leaf's state into tensors (arrays of supported dtypes) and JSON values."""
    tensors, js = {}, {}
    for k, v in state.items():
        if not isinstance(k, str) or (k and not all(KEY_RE.match(p) for p in k.split("/"))):
            raise ValueError(f"Checkpoint: '{where}' has a state key {short(k)}; keys are letters, digits and "
                             "_.-: separated by '/'")
        if isinstance(v, np.ndarray) or (hasattr(v, "numpy") and not isinstance(v, (dict, list))):
            arr = np.asarray(v.numpy() if hasattr(v, "numpy") and not isinstance(v, np.ndarray) else v)
            if arr.dtype not in SUPPORTED_DTYPES:
                raise TypeError(f"Checkpoint: '{where + '/' + k if k else where}' has dtype {arr.dtype}, which a checkpoint cannot hold "
                                "(supported: bool, int8-64, uint8-64, float16/32/64)")
            tensors[k] = arr
        else:
            js[k] = to_json(v, f"{where}.{k}")
    return tensors, js


def join_state(tensors: dict, js: dict | None, where: str) -> dict:
    out = dict(tensors)
    for k, v in (js or {}).items():
        out[k] = from_json(v, f"{where}.{k}")
    return out
