"""Writing TensorFlow 2's object-based checkpoints: ``Checkpoint.save(prefix, format="tensorflow")``.

The objects are written as TensorFlow's ``tf.train.Checkpoint`` writes the same Keras 3 objects, so that
TensorFlow restores them (``tf.train.Checkpoint(model=..., optimizer=...).restore(path)``) and
``tf.train.list_variables`` lists the keys TensorFlow would: a tensor bundle
(:func:`descend.persistence.formats.tf_bundle.write_bundle`, ``<prefix>.index`` + ``<prefix>.data-00000-of-00001``)
whose ``_CHECKPOINTABLE_OBJECT_GRAPH`` is the graph of the objects, each value keyed by the first path
that reaches it breadth first (``model/_functional/_operations/1/_kernel/.ATTRIBUTES/VARIABLE_VALUE``,
``optimizer/_trainable_variables/0/...`` when the optimizer reaches a kernel first, ``optimizer/_variables/2/...``
for Adam's first slot: the keys TensorFlow writes for the same objects).

The graph follows Keras 3's attribute names:

* a root ``Checkpoint(name=obj)`` is the root's child ``name``; ``save_counter`` is the root's child
  ``save_counter`` (int64); a nested ``Checkpoint``, a dict or a list is a node with a child per key;
* a layer's weight ``kernel`` is its child ``kernel`` and ``_kernel`` (one node: Keras 3 keeps Dense's,
  EinsumDense's and Conv's kernel and Embedding's embeddings under a leading ``_``, and that name comes
  first); a sublayer or container by its attribute name;
* a Sequential model's layers are ``_functional/_operations/<i>`` after its input layer (index 0), a
  functional model's ``_operations/<i>``; a compiled model's ``optimizer`` is its child too;
* an optimizer is ``_iterations`` (int64), ``_learning_rate`` (float32, unless a schedule),
  ``_variables/<i>`` (those two, then the slots in the order Keras 3 builds them),
  ``_trainable_variables/<i>`` (the model's trainable variables, the same nodes as the model's) and its
  Keras 3 slot lists (Adam: ``_momentums/<i>`` and ``_velocities/<i>``, the slots of the ``i``-th variable).

State TensorFlow's files cannot hold (random generators, dataset iterators, descend-only optimizer state)
is refused with an error naming its path: write descend's own format for it.

Example:
    >>> import tempfile
    >>> import descend as ds
    >>> v = ds.Variable([1.0, 2.0], name="v")
    >>> path = ds.train.Checkpoint(net=ds.train.Checkpoint(bias=v)).save(tempfile.mkdtemp() + "/ckpt",
    ...                                                                 format="tensorflow")
    >>> [k for k, _ in ds.train.list_variables(path)]  # what tf.train.list_variables shows
    ['_CHECKPOINTABLE_OBJECT_GRAPH', 'net/bias/.ATTRIBUTES/VARIABLE_VALUE', 'save_counter/.ATTRIBUTES/VARIABLE_VALUE']
"""

from __future__ import annotations

import os

import numpy as np

from ...framework.variable import Variable
from ...layers.base import Layer
from ...layers.input_layer import InputLayer
from ...optimizers.optimizer import Optimizer
from ..durable import atomic_replace_file
from ..formats import tf_bundle
from . import keras_layout
from .trackable import compiled_optimizer, layer_children, unwrap, walk

__all__ = ["write_object_checkpoint", "record_latest", "escape", "KeyNames", "path_key", "SAVE_COUNTER_KEY"]

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"

#: the name of TensorFlow's checkpoint state file in a checkpoint folder (its newest and kept prefixes)
TF_STATE_FILE = "checkpoint"


#: (Keras 3 layer class, weight) kept under a leading ``_`` (``Dense._kernel``); the graph has both names, this
#: one first, so that a value is keyed as TensorFlow keys it
_UNDERSCORED = {("Dense", "kernel"), ("EinsumDense", "kernel"), ("Conv1D", "kernel"), ("Conv2D", "kernel"),
                ("Conv3D", "kernel"), ("Embedding", "embeddings")}


def escape(name: str) -> str:
    """A child's name in a checkpoint key, as TensorFlow escapes it (``.`` -> ``..``, ``/`` -> ``.S``)."""
    return name.replace(".", "..").replace("/", ".S")


class _Builder:
    """TensorFlow's object graph of some roots. ``lenient``: an object TensorFlow's graph has no place for (a
    random generator, a dataset iterator, an optimizer without a Keras 3 layout) is a node without children
    instead of an error (descend's own format keys its state under that node's path, see :class:`KeyNames`)."""

    def __init__(self, lenient: bool = False, states: dict | None = None):
        self.lenient = lenient
        self.states = states or {}  # id(optimizer) -> its state_dict, already read (keyed by walk's var_key)
        self.opt_nodes: dict[int, dict[str, int]] = {}  # id(optimizer) -> {its state's key: the node holding it}
        self.nodes: list[dict] = [{"children": []}]
        self.ids: dict[int, int] = {}
        self.values: dict[int, np.ndarray] = {}  # node -> the value to write
        self.full_names: dict[int, str] = {}
        self._keep: list = []
        self._model_of: dict[int, Layer] = {}  # id(optimizer) -> the compiled model holding it
        self._pending_opts: list = []  # optimizers whose slots are added last
        self._child_names: dict[int, set] = {}  # node -> its children's names (a set: a graph may hold 100,000s)

    def new(self) -> int:
        self.nodes.append({"children": []})
        return len(self.nodes) - 1

    def edge(self, parent: int, name: str, child: int) -> None:
        """``child`` under ``parent`` as ``name``, unless ``parent`` has a child of that name already (the first
        path that reaches a name keeps it)."""
        names = self._child_names.setdefault(parent, set())
        if name not in names:
            names.add(name)
            self.nodes[parent]["children"].append((name, child))

    def node_of(self, obj, path: str) -> int:
        """The node of ``obj`` (made once, whatever the path that reaches it)."""
        obj, with_optimizer = unwrap(obj)
        known = self.ids.get(id(obj))
        if known is not None:
            return known
        if isinstance(obj, Variable):
            n = self.new()
            self.ids[id(obj)] = n
            self._keep.append(obj)
            self.values[n] = None if self.lenient else obj.numpy()  # (the keys alone need no copy of the value)
            self.full_names[n] = obj.scoped_name
            return n
        nested = callable(getattr(type(obj), "_trackable_children", None))
        if not (nested or isinstance(obj, (Layer, Optimizer, dict, list, tuple))):
            if self.lenient:
                n = self.new()
                self.ids[id(obj)] = n
                self._keep.append(obj)
                return n
            raise ValueError(f"Checkpoint: '{path}' is a {type(obj).__name__}, whose state a TensorFlow checkpoint "
                             "cannot hold (it holds variables, layers, models, Keras 3 optimizers, and dicts and "
                             "lists of these); save descend's format (the default) for it")
        n = self.new()
        self.ids[id(obj)] = n
        self._keep.append(obj)
        if isinstance(obj, Layer):
            self._layer(obj, n, path, with_optimizer)
        elif isinstance(obj, Optimizer):
            self._optimizer(obj, n, path)
        elif nested:
            for k, v in obj._trackable_children().items():
                self.edge(n, str(k), self.node_of(v, f"{path}/{k}"))
        elif isinstance(obj, dict):
            for k, v in obj.items():
                self.edge(n, str(k), self.node_of(v, f"{path}/{k}"))
        else:
            for i, v in enumerate(obj):
                self.edge(n, str(i), self.node_of(v, f"{path}/{i}"))
        return n

    def value(self, parent: int, name: str, array, full_name: str) -> int:
        n = self.new()
        self.values[n] = np.asarray(array)
        self.full_names[n] = full_name
        self.edge(parent, name, n)
        return n

    # -- layers ---------------------------------------------------------------------------------------------
    def _layer(self, layer: Layer, n: int, path: str, with_optimizer: bool = True) -> None:
        children = layer_children(layer)
        taken = {name for name, _ in children}  # a second name `_kernel` only where no attribute has it already
        for name, child in children:
            if isinstance(child, Variable):
                node = self.node_of(child, f"{path}/{name}")
                names = [name] if name.startswith("_") or "_" + name in taken else [name, "_" + name]
                if (type(layer).__name__, name) in _UNDERSCORED:
                    names.reverse()  # the name Keras 3 keeps it under comes first: it makes the key
                for each in names:
                    self.edge(n, each, node)
                continue
            if name == "layers" and isinstance(child, list) and callable(getattr(layer, "fit", None)):
                ops = self.new()
                if "_graph_nodes" in layer.__dict__:  # functional: `_operations`, input layers included
                    items = list(child)
                    self.edge(n, "_operations", ops)
                else:  # Sequential: `_functional/_operations`, its input layer first
                    items = list(child)
                    if not items or not isinstance(items[0], InputLayer):
                        items = [None] + items
                    functional = self.new()
                    self.edge(n, "_functional", functional)
                    self.edge(functional, "_operations", ops)
                for i, la in enumerate(items):
                    self.edge(ops, str(i), self.new() if la is None else self.node_of(la, f"{path}/layers/{i}"))
                continue
            try:
                node = self.node_of(child, f"{path}/{name}")
            except ValueError:
                continue  # a layer's descend-only state (a Dropout's generator): not in TensorFlow's files
            self.edge(n, name, node)
        opt = compiled_optimizer(layer) if with_optimizer else None
        if opt is not None and (self.lenient or isinstance(opt, Optimizer)):  # (lenient: a node without children
            # for an optimizer with no Keras 3 layout, whose state descend's format keys under it)
            self.edge(n, "optimizer", self.node_of(opt, f"{path}/optimizer"))
            self._model_of[id(opt)] = layer

    # -- optimizers -----------------------------------------------------------------------------------------
    def _optimizer(self, opt: Optimizer, n: int, path: str) -> None:
        try:
            keras_layout.check_optimizer(opt, f"Checkpoint: '{path}'")
        except ValueError:
            if not self.lenient:
                raise
            return  # (descend's format keys its state under the optimizer's own path)
        own = [self.value(n, "_iterations", np.asarray(opt.iterations.numpy(), np.int64), f"{opt.name}/iteration")]
        self.opt_nodes[id(opt)] = {"iterations": own[0]}
        lr = opt.hyperparameters().get("learning_rate")
        if isinstance(lr, float):
            own.append(self.value(n, "_learning_rate", np.float32(lr), f"{opt.name}/learning_rate"))
            self.opt_nodes[id(opt)]["hyper:learning_rate"] = own[1]
        self._pending_opts.append((opt, n, path, own))

    def finish_optimizers(self, roots: dict) -> None:
        """Slots last: the model's variables are the model's nodes whichever root comes first. Keras 3's
        ``_variables`` lists the optimizer's own variables in the order it builds them (step, learning rate,
        then the slots group by group, each group interleaved per variable), before the slot lists."""
        var_key = walk(roots).var_key  # the keys restored slots wait under (see Checkpoint.restore)
        for opt, n, path, own in self._pending_opts:
            model = self._model_of.get(id(opt)) or _model_for(opt, roots)
            variables = list(model.trainable_weights) if model is not None else _slotted(opt)
            state = self.states.get(id(opt))
            if state is None:
                state = opt.state_dict(var_key=var_key)
            built = int(opt.iterations.numpy()) > 0 or any(
                "/" in k and not k.startswith(("hyper:", "accumulator:")) for k in state)
            slots: dict[tuple[str, int], int] = {}
            order = list(own)
            if built:  # never stepped: Keras' unbuilt optimizer holds its step and learning rate only
                for group in keras_layout.optimizer_groups(opt):
                    for i, v in enumerate(variables):
                        for attr, slot in group:
                            value = state.get(f"{var_key(v)}/{slot}")
                            if value is None and not self.lenient:
                                raise ValueError(f"Checkpoint: '{path}' has no '{slot}' slot for '{v.name}' yet; a "
                                                 "TensorFlow checkpoint holds every slot of a built optimizer")
                            node = self.new()
                            if value is not None:  # (lenient: a slot this process lacks, another rank's under
                                self.values[node] = np.asarray(value)  # ZeRO, keeps its place in the numbering)
                            self.full_names[node] = f"{opt.name}/{v.scoped_name.replace('/', '_')}_{slot}"
                            slots[(attr, i)] = node
                            self.opt_nodes[id(opt)][f"{var_key(v)}/{slot}"] = node
                            order.append(node)
                for attr, step in keras_layout.optimizer_tail(opt):
                    if step in state:
                        order.append(self.value(n, attr, state[step], f"{opt.name}/{step}"))
                        self.opt_nodes[id(opt)][step] = order[-1]
            listed = self.new()
            self.edge(n, "_variables", listed)
            for i, node in enumerate(order):
                self.edge(listed, str(i), node)
            if not built:
                continue
            tv = self.new()
            self.edge(n, "_trainable_variables", tv)
            for i, v in enumerate(variables):
                self.edge(tv, str(i), self.node_of(v, f"{path}/_trainable_variables/{i}"))
            for group in keras_layout.optimizer_groups(opt):
                for attr, _ in group:
                    lst = self.new()
                    self.edge(n, attr, lst)
                    for i in range(len(variables)):
                        if (attr, i) in slots:
                            self.edge(lst, str(i), slots[(attr, i)])


def _model_for(opt, roots: dict):
    roots = {k: unwrap(v)[0] for k, v in roots.items()}
    for obj in roots.values():
        if isinstance(obj, Layer) and getattr(obj, "optimizer", None) is opt:
            return obj
    for obj in roots.values():
        if isinstance(obj, Layer) and obj.trainable_weights:
            return obj
    return None


def _slotted(opt) -> list:
    found: list = []
    opt.state_dict(var_key=lambda v: found.append(v) or v.scoped_name)
    seen, out = set(), []
    for v in found:
        if id(v) not in seen:
            seen.add(id(v))
            out.append(v)
    return out


def _keys(nodes: list[dict]) -> dict[int, str]:
    """Each node's path from the root, breadth first (TensorFlow's checkpoint keys)."""
    keys, queue = {0: ""}, [0]
    for parent in queue:
        for name, child in nodes[parent]["children"]:
            if child not in keys:
                keys[child] = f"{keys[parent]}/{escape(name)}" if keys[parent] else escape(name)
                queue.append(child)
    return keys


#: the key of ``save_counter`` in TensorFlow's checkpoints of a ``tf.train.Checkpoint``
SAVE_COUNTER_KEY = "save_counter" + _SUFFIX


def path_key(path: str, attribute: str = "VARIABLE_VALUE") -> str:
    """The key of a value at a descend ``path`` that TensorFlow's graph does not place (each name escaped,
    then ``/.ATTRIBUTES/<attribute>``): a value kept for a variable not created yet, an object no walk of
    TensorFlow's graph reaches."""
    return "/".join(escape(p) for p in path.split("/")) + "/.ATTRIBUTES/" + escape(attribute)


class KeyNames:
    """The keys TensorFlow gives the values of ``roots`` (``Checkpoint(**roots)`` saved ``save_counter`` times),
    for descend's own format: each value of a leaf of :func:`walk` (``key(leaf, inner)``) by TensorFlow's object
    graph (the first path breadth first, ``.ATTRIBUTES/VARIABLE_VALUE``), descend's state that TensorFlow's
    graph has no place for under its object's node as ``<path>/.ATTRIBUTES/<name>`` (TensorFlow's style for
    an iterator's ``ITERATOR_STATE``), and :attr:`graph`, the ``_CHECKPOINTABLE_OBJECT_GRAPH`` with every key."""

    def __init__(self, roots: dict, save_counter: int, optimizer_states: dict | None = None):
        b = _Builder(lenient=True, states=optimizer_states)
        for name, obj in roots.items():
            b.edge(0, name, b.node_of(obj, name))
        b.value(0, "save_counter", np.int64(save_counter), "save_counter")
        b.finish_optimizers(roots)
        self._b, self._paths = b, _keys(b.nodes)
        self._extra: dict[int, list] = {}  # node -> [(attribute, key, full name)] of descend's own state
        self.placed: set[str] = set()  # the keys given by TensorFlow's graph (the others: descend's own state)

    def _node(self, obj) -> int | None:
        return self._b.ids.get(id(obj))

    def key(self, leaf, inner: str) -> str:
        """TensorFlow's key for the value ``inner`` of ``leaf`` (``""``: the leaf's one value, a variable's)."""
        b, node = self._b, self._node(leaf.obj)
        if node is not None and id(leaf.obj) in b.opt_nodes and inner in b.opt_nodes[id(leaf.obj)]:
            key = self._paths[b.opt_nodes[id(leaf.obj)][inner]] + _SUFFIX
            self.placed.add(key)
            return key
        if node is not None and inner == "" and node in b.values:
            key = self._paths[node] + _SUFFIX
            self.placed.add(key)
            return key
        name = leaf.attribute(inner)  # (a dataset iterator's state: ITERATOR_STATE)
        if node is None or not self._paths.get(node):
            return path_key(leaf.path, name)
        key = f"{self._paths[node]}/.ATTRIBUTES/{escape(name)}"
        self._extra.setdefault(node, []).append((name, key, leaf.path))
        return key

    def graph(self) -> bytes:
        """The object graph (``_CHECKPOINTABLE_OBJECT_GRAPH``) naming every key given by :meth:`key` so far."""
        entries = []
        for i, node in enumerate(self._b.nodes):
            entry = {"children": list(node["children"]), "attributes": self._extra.get(i, ())}
            if i in self._b.values:
                entry["value"], entry["full_name"] = self._paths[i] + _SUFFIX, self._b.full_names.get(i, "")
            entries.append(entry)
        return tf_bundle.encode_object_graph(entries)


def write_object_checkpoint(prefix: str, roots: dict, save_counter: int) -> str:
    """Write ``roots`` (name -> object, as ``Checkpoint(**roots)``) to ``prefix`` as TensorFlow's
    ``tf.train.Checkpoint`` would; returns ``prefix``."""
    b = _Builder()
    for name, obj in roots.items():
        b.edge(0, name, b.node_of(obj, name))
    b.value(0, "save_counter", np.int64(save_counter), "save_counter")
    b.finish_optimizers(roots)
    keys = _keys(b.nodes)
    tensors: dict = {}
    graph = []
    for i, node in enumerate(b.nodes):
        entry = {"children": [(name, c) for name, c in node["children"]]}
        if i in b.values:
            key = keys[i] + _SUFFIX
            entry["value"], entry["full_name"] = key, b.full_names.get(i, "")
            arr = b.values[i]
            tensors[key] = np.array(arr, order="C", copy=True)  # (ascontiguousarray makes a scalar 1-D)
        graph.append(entry)
    tensors[tf_bundle.OBJECT_GRAPH_KEY] = tf_bundle.encode_object_graph(graph)
    tf_bundle.write_bundle(prefix, tensors)
    return prefix



def _text_format_string(text: str) -> str:
    """``text`` as a protobuf text-format string's contents, as TensorFlow writes them: its UTF-8 bytes, each
    quote and backslash escaped, every byte that is not printable ASCII as a 3-digit octal escape."""
    out = []
    for b in os.fsencode(text):  # the bytes of its name on disk
        c = chr(b)
        out.append("\\" + c if c in '"\\' else c if 0x20 <= b < 0x7F else f"\\{b:03o}")
    return "".join(out)


def record_latest(path: str) -> None:
    """Name ``path`` the newest checkpoint in its folder's ``checkpoint`` file (TensorFlow's
    ``CheckpointState`` as text), as ``tf.train.Checkpoint.save`` does."""

    folder = os.path.dirname(os.path.abspath(path))
    name = _text_format_string(os.path.basename(path))
    text = f'model_checkpoint_path: "{name}"\nall_model_checkpoint_paths: "{name}"\n'
    atomic_replace_file(os.path.join(folder, TF_STATE_FILE), text.encode("utf-8"))
