"""TensorFlow 2's object-based checkpoints (``tf.train.Checkpoint``, Keras 2's TF-format ``save_weights``),
read into descend's objects by their structure, as TensorFlow matches them.

A TF 2 checkpoint is a tensor bundle (:mod:`descend.persistence.formats.tf_bundle`) whose value
``_CHECKPOINTABLE_OBJECT_GRAPH`` lists the saved objects: each node's children by name, the key of its
value for a variable, and an optimizer's slot variables (``(original variable, slot name, slot
variable)``). Restoring walks descend's objects from the checkpoint's roots along the same names:

* a root ``Checkpoint(model=..., optimizer=...)`` is the graph's child ``model`` / ``optimizer`` (a single
  model whose name the graph's root does not have is the root itself: Keras 2's ``save_weights`` in TF
  format, read by ``model.load_weights(prefix)``); dicts and lists by key and index;
* a layer's weight ``kernel`` is the child ``kernel`` (Keras 2) or ``_kernel`` (Keras 3); a sublayer or
  a container by its attribute name;
* a Sequential or functional model's ``layers`` are the list Keras keeps (Keras 3: ``_operations``, of
  ``_functional`` for a Sequential; Keras 2: ``layer_with_weights-<n>``, ``layer-<n>``), matched by
  position (only the layers with weights when the two lists differ in length, e.g. by an InputLayer);
  a compiled model's optimizer is its child ``optimizer`` (one object: found there for a root
  ``optimizer`` the file does not hold);
* an optimizer's slots come from Keras 3's per-variable lists (``_momentums/<i>`` is the slot of
  ``_trainable_variables/<i>``) or from the slot variables TF 1 and Keras 2 optimizers record;
  ``_iterations`` / ``iter`` is the step, ``_learning_rate`` the learning rate, non-slot variables
  (TF 1 Adam's ``beta1_power``) the optimizer's step state.

The values found go through :class:`~descend.checkpoint.Checkpoint`'s restore: every file check and
every shape first, then all or nothing; values of variables a layer has not created yet wait for it.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import descend as ds
    >>> from descend.persistence.formats import tf_bundle
    >>> prefix = os.path.join(tempfile.mkdtemp(), "ckpt-1")
    >>> graph = tf_bundle.encode_object_graph([
    ...     {"children": [("w", 1)]}, {"value": "w/.ATTRIBUTES/VARIABLE_VALUE"}])
    >>> tf_bundle.write_bundle(prefix, {"w/.ATTRIBUTES/VARIABLE_VALUE": np.array([1.0, 2.0], np.float32),
    ...                                 tf_bundle.OBJECT_GRAPH_KEY: graph})
    >>> w = ds.Variable([0.0, 0.0], name="w")
    >>> _ = ds.train.Checkpoint(w=w).restore(prefix)
    >>> w.numpy()
    array([1., 2.], dtype=float32)
"""

from __future__ import annotations

import re

import numpy as np

from ...framework.variable import Variable
from ...layers.base import Layer
from ...optimizers.loss_scale import LossScaleOptimizer
from ...optimizers.optimizer import Optimizer
from ..checkpoint_errors import CheckpointCorruptedError, CheckpointError, short
from ..formats import tf_bundle
from . import keras_layout
from .trackable import compiled_optimizer, layer_children, unwrap, walk

__all__ = ["read_object_checkpoint", "waiting_values", "unescape", "VALUE"]

VALUE = "VARIABLE_VALUE"
_WEIGHTED = re.compile(r"^layer_with_weights-(\d+)$")
_ANY_LAYER = re.compile(r"^layer-(\d+)$")
_LIST_NAMES = ("_operations", "_layers", "layers", "_self_tracked_trackables")
_MAX_DEPTH = 64


class _Graph:
    """The checkpoint's object graph with the questions the matcher asks of it."""

    def __init__(self, nodes: list[dict], bundle):
        self.nodes = nodes
        self.bundle = bundle
        self._has_values: dict[int, bool] = {}

    def children(self, node: int) -> dict[str, int]:
        return {c["local_name"]: c["node_id"] for c in self.nodes[node]["children"]}

    def value_key(self, node: int) -> str | None:
        for a in self.nodes[node]["attributes"]:
            if a["name"] == VALUE:
                return a["checkpoint_key"]
        return None

    def has_values(self, node: int) -> bool:
        """Whether a value is reachable from ``node`` (not through an ``optimizer`` edge)."""
        if node in self._has_values:
            return self._has_values[node]
        seen, stack, found = {node}, [node], False
        while stack and not found:
            n = stack.pop()
            if self.nodes[n]["attributes"]:
                found = True
                break
            for c in self.nodes[n]["children"]:
                if c["local_name"] != "optimizer" and c["node_id"] not in seen:
                    seen.add(c["node_id"])
                    stack.append(c["node_id"])
        self._has_values[node] = found
        return found

    def list_items(self, node: int) -> list[int]:
        """The items of a list node (children ``0``, ``1``, ... in order)."""
        kids = self.children(node)
        out = []
        i = 0
        while str(i) in kids:
            out.append(kids[str(i)])
            i += 1
        return out


class _Match:
    def __init__(self):
        self.vars: dict[int, tuple[Variable, int]] = {}  # id(var) -> (var, node)
        self.layers: list[tuple[Layer, int]] = []  # layers whose variables do not exist yet, with their node
        self.opts: list[tuple[object, int]] = []
        self.problems: list[str] = []  # descend objects the checkpoint has no counterpart for (paths)
        self.seen: set[tuple[int, int]] = set()  # (id(object), node) matched: a cycle of objects is walked once


def _find(kids: dict, *names) -> int | None:
    for n in names:
        if n in kids:
            return kids[n]
    return None


def _is_model_with_layer_list(layer, name, child) -> bool:
    return name == "layers" and isinstance(child, list) and callable(getattr(layer, "fit", None))


def _match(g: _Graph, m: _Match, obj, node: int, path: str, depth: int = 0) -> None:
    obj, with_optimizer = unwrap(obj)
    if (id(obj), node) in m.seen:
        return
    m.seen.add((id(obj), node))
    if depth > _MAX_DEPTH:
        raise CheckpointError(f"'{path}': objects nest more than {_MAX_DEPTH} levels")
    if isinstance(obj, Variable):
        if g.value_key(node) is None:
            m.problems.append(f"{path} (the checkpoint's object there holds no value)")
        else:
            m.vars.setdefault(id(obj), (obj, node))
        return
    if isinstance(obj, (Optimizer, LossScaleOptimizer)):
        if all(o is not obj for o, _ in m.opts):  # one object on two paths (a root and a model's): read once
            m.opts.append((obj, node))
        return
    if isinstance(obj, Layer):
        _match_layer(g, m, obj, node, path, depth, with_optimizer)
        return
    children = getattr(type(obj), "_trackable_children", None)
    if callable(children):  # a nested Checkpoint or a list wrapper: its children by name
        obj = children(obj)
    if isinstance(obj, (dict, list, tuple)):  # children named by key, or by position
        kids = g.children(node)
        for k, v in (obj.items() if isinstance(obj, dict) else enumerate(obj)):
            child = kids.get(str(k))
            if child is None:
                m.problems.append(f"{path}/{k}")
            else:
                _match(g, m, v, child, f"{path}/{k}", depth + 1)
        return
    # descend-only state (random generators, dataset iterators): TensorFlow's files do not hold it


def _layer_list(g: _Graph, node: int) -> tuple[list[int], bool] | None:
    """The layer list of a Keras model's node: (items, weighted_only)."""
    kids = g.children(node)
    weighted = sorted((int(mt.group(1)), n) for k, n in kids.items() if (mt := _WEIGHTED.match(k)))
    if weighted:
        return [n for _, n in weighted], True
    for name in _LIST_NAMES:
        if name in kids:
            return g.list_items(kids[name]), False
    if "_functional" in kids:
        return _layer_list(g, kids["_functional"])
    every = sorted((int(mt.group(1)), n) for k, n in kids.items() if (mt := _ANY_LAYER.match(k)))
    if every:
        return [n for _, n in every], False
    return None


def _match_layer(g: _Graph, m: _Match, layer: Layer, node: int, path: str, depth: int,
                 with_optimizer: bool = True) -> None:
    kids = g.children(node)
    made_any = False
    for name, child in layer_children(layer):
        where = f"{path}/{name}"
        if _is_model_with_layer_list(layer, name, child):
            found = _layer_list(g, node)
            if found is None:
                m.problems.append(f"{where} (the checkpoint's model has no list of layers)")
                continue
            items, weighted_only = found
            ours = list(child)
            if weighted_only or len(items) != len(ours):
                ours = [la for la in ours if la.weights or la.built is not True]
                items = [n for n in items if g.has_values(n)]
            if len(items) != len(ours):
                m.problems.append(f"{where} ({len(ours)} layers with weights; the checkpoint's model has "
                                  f"{len(items)})")
                continue
            for i, (la, n) in enumerate(zip(ours, items)):
                _match(g, m, la, n, f"{where}/{child.index(la) if la in child else i}", depth + 1)
            continue
        target = _find(kids, name, "_" + name, name.lstrip("_"))
        if target is None:
            if isinstance(child, Variable) or (isinstance(child, Layer) and child.weights):
                m.problems.append(where)
            continue
        if isinstance(child, Variable):
            made_any = True
        _match(g, m, child, target, where, depth + 1)
    if not made_any and layer.built is not True and any(g.value_key(n) is not None for n in kids.values()):
        m.layers.append((layer, node))  # values for the variables this layer creates when it is built
    opt = compiled_optimizer(layer) if with_optimizer else None
    if opt is not None and "optimizer" in kids:  # a compiled model's optimizer: TensorFlow tracks it as its child
        _match(g, m, opt, kids["optimizer"], f"{path}/optimizer", depth + 1)


# ---------------------------------------------------------------------------------------------------------------
# optimizers
# ---------------------------------------------------------------------------------------------------------------
def _optimizer_state(g: _Graph, opt, node: int, key_of, read, used: set) -> dict:
    """The optimizer's state in descend's protocol, from its node: ``{state key: array}``."""
    inner = opt.inner_optimizer if isinstance(opt, LossScaleOptimizer) else opt
    kids = g.children(node)
    if isinstance(opt, LossScaleOptimizer):
        inner_node = _find(kids, "inner_optimizer", "_optimizer")
        if inner_node is not None:
            node, kids = inner_node, g.children(inner_node)
    state: dict = {}
    current = inner.state_dict(var_key=lambda v: v.scoped_name)
    for k, v in current.items():  # what TensorFlow's files do not hold keeps its value here
        if k.startswith("hyper:") or k == "iterations":
            state[k] = v

    def value(n):
        k = g.value_key(n)
        if k is None:
            return None
        used.add(k)
        return read(k)

    step = _find(kids, "_iterations", "iter", "iterations")
    if step is not None and (v := value(step)) is not None:
        state["iterations"] = np.asarray(v).astype(np.int64)
    lr = _find(kids, "_learning_rate", "learning_rate")
    if lr is not None and "hyper:learning_rate" in state and (v := value(lr)) is not None:
        state["hyper:learning_rate"] = np.asarray(v, np.float64)
    for name in list(kids):  # TF 1 / Keras 2 hyperparameter and step-state variables by name
        plain = name.lstrip("_")
        if f"hyper:{plain}" in state and name not in ("_learning_rate", "learning_rate"):
            if (v := value(kids[name])) is not None:
                state[f"hyper:{plain}"] = np.asarray(v, np.float64)
        elif plain in _step_state_names(inner):
            if (v := value(kids[name])) is not None:
                state[plain] = np.asarray(v)
    # Keras 3: per-variable lists, the i-th entry the slot of _trainable_variables/<i>
    tv = kids.get("_trainable_variables")
    if tv is not None:
        originals = g.list_items(tv)
        for group in keras_layout.optimizer_groups(inner) if isinstance(inner, Optimizer) else []:
            for attr, slot in group:
                lst = kids.get(attr)
                if lst is None:
                    continue
                for i, n in enumerate(g.list_items(lst)):
                    if i < len(originals) and (k := key_of(originals[i])) is not None:
                        if (v := value(n)) is not None:
                            state[f"{k}/{slot}"] = np.asarray(v)
        for attr, step_name in keras_layout.optimizer_tail(inner):
            if attr in kids and (v := value(kids[attr])) is not None:
                state[step_name] = np.asarray(v)
    # TF 1 and Keras 2: slot variables recorded on the optimizer's node
    aliases = keras_layout.KERAS2_SLOT_NAMES.get(type(inner).__name__, {})
    have = set(inner.get_slot_names()) if isinstance(inner, Optimizer) else set()
    for s in g.nodes[node]["slot_variables"]:
        k = key_of(s["original_variable_node_id"])
        if k is None:
            continue
        slot = aliases.get(s["slot_name"], s["slot_name"])
        if have and slot not in have:
            continue  # reported as unexpected: its value stays unused
        if (v := value(s["slot_variable_node_id"])) is not None:
            state[f"{k}/{slot}"] = np.asarray(v)
    return state


def _step_state_names(opt) -> set:
    try:
        return {ss.name for ss in opt.rule.step_specs}
    except (AttributeError, TypeError):
        return set()


# ---------------------------------------------------------------------------------------------------------------
# the restore
# ---------------------------------------------------------------------------------------------------------------
def read_object_checkpoint(prefix: str, roots: dict) -> tuple[dict, dict, list, list]:
    """Match ``roots`` (name -> object, as ``Checkpoint(**roots)``) to the TF 2 checkpoint at ``prefix``.

    Returns ``(manifest, values, missing, unexpected)``: ``values`` maps descend's checkpoint keys (the
    paths of :mod:`descend.persistence.checkpoint.trackable`, optimizer state under the optimizer's path) to arrays,
    all read and verified; ``missing`` lists descend objects the checkpoint has nothing for and
    ``unexpected`` the checkpoint's values no object took."""
    bundle = tf_bundle.TensorBundle(prefix)
    nodes = tf_bundle.object_graph(bundle)
    if nodes is None:
        raise CheckpointError(f"'{prefix}' is a TensorFlow 1 name-based checkpoint (no object graph): restore it "
                              "with descend.compat.v1.train.Saver().restore(None, path), which matches variables by "
                              "name")
    g = _Graph(nodes, bundle)
    m = _Match()
    root_kids = g.children(0)
    unmatched: list = []
    for name, obj in roots.items():
        node = root_kids.get(name)
        if node is None and len(roots) == 1 and isinstance(unwrap(obj)[0], Layer):
            node = 0  # Keras 2's save_weights in TF format: the checkpoint's root is the model itself
        if node is None:
            unmatched.append((name, obj))
            continue
        _match(g, m, obj, node, name)
    for name, obj in unmatched:  # an optimizer saved as a compiled model's child is found there (one object)
        if not any(o is obj for o, _ in m.opts):
            m.problems.append(f"{name} (no such object in the checkpoint; it holds {short(sorted(root_kids), 300)})")
    graph = walk(roots)
    cache: dict[str, np.ndarray] = {}

    def read(key: str):
        if key not in cache:
            cache[key] = bundle.read(key)
        return cache[key]

    used: set[str] = set()
    values: dict[str, np.ndarray] = {}
    node_key: dict[int, str] = {}  # TF variable node -> descend key of the variable
    for var, node in m.vars.values():
        path = graph.var_paths.get(id(var))
        if path is None:
            continue
        k = g.value_key(node)
        used.add(k)
        values[path] = np.asarray(read(k))
        node_key[node] = path
    layer_path = {id(la): p for p, la in graph.layers.items()}
    for layer, node in m.layers:
        base = layer_path.get(id(layer))
        if base is None:
            continue
        for cname, child in g.children(node).items():
            k = g.value_key(child)
            if k is not None:
                used.add(k)
                values[f"{base}/{cname.lstrip('_')}"] = np.asarray(read(k))
                node_key[child] = f"{base}/{cname.lstrip('_')}"
    opt_path = {id(leaf.obj): leaf.path for leaf in graph.leaves if leaf.kind == "optimizer"}
    for opt, node in m.opts:
        base = opt_path.get(id(opt))
        if base is None:
            continue
        state = _optimizer_state(g, opt, node, node_key.get, read, used)
        for k, v in state.items():
            values[f"{base}/{k}"] = v
    counter = root_kids.get("save_counter")
    manifest: dict = {"objects": {}}
    if counter is not None and (k := g.value_key(counter)) is not None:
        used.add(k)
        sc = np.asarray(read(k))
        if sc.shape == () and sc.dtype.kind in "iu":
            if int(sc) < 0:  # descend's own format (a later save of these objects) holds a count, never below 0
                raise CheckpointCorruptedError(f"TensorFlow checkpoint '{prefix}': '{k}' (the save counter) must be "
                                               f">= 0; found {int(sc)}", [k])
            manifest["save_counter"] = int(sc)
    unexpected = sorted(k for n in nodes for a in n["attributes"] if a["name"] == VALUE
                        and (k := a["checkpoint_key"]) not in used)
    return manifest, values, sorted(set(m.problems)), unexpected


def unescape(key: str) -> str | None:
    """The object path of a value's checkpoint key (``net/bias/.ATTRIBUTES/VARIABLE_VALUE`` -> ``net/bias``),
    TensorFlow's escapes undone; None when a name holds a ``/`` (no descend path has one)."""
    suffix = "/.ATTRIBUTES/" + VALUE
    if not key.endswith(suffix):
        return None
    parts = []
    for name in key[:-len(suffix)].split("/"):
        out, i = [], 0
        while i < len(name):
            if name.startswith("..", i):
                out.append(".")
                i += 2
            elif name.startswith(".S", i):
                return None
            else:
                out.append(name[i])
                i += 1
        parts.append("".join(out))
    return "/".join(parts)


def waiting_values(prefix: str, keys) -> dict[str, tuple[np.ndarray, str]]:
    """Values no object took, by the path of the object they wait for: ``{path: (array, checkpoint key)}``
    (a restore that is not strict gives them to objects attached later)."""
    bundle = tf_bundle.TensorBundle(prefix)
    out = {}
    for k in keys:
        path = unescape(k)
        if path:
            value = bundle.read(k)
            if isinstance(value, np.ndarray) and value.dtype != object:
                out[path] = (value, k)
    return out


def check_values(prefix: str, values: dict) -> None:
    """Refuse values of dtypes descend's variables cannot take, naming the file."""
    for k, v in values.items():
        if not isinstance(v, np.ndarray) or v.dtype == object:
            raise CheckpointCorruptedError(f"TensorFlow checkpoint '{prefix}': '{k}' holds strings, not numbers", [k])
