"""The functional API's graph: a model defined by ``Model(inputs, outputs)``.

``Input`` gives symbolic :class:`~descend.layers.keras_tensor.KerasTensor` s;
calling layers on them records :class:`~descend.layers.keras_tensor.Node` s.
``Model(inputs, outputs)`` walks back from the outputs to the inputs, keeps
the nodes in an order where every node comes after the nodes it reads, and
the model's ``call`` replays them on real Tensors. A layer called twice (a
shared layer) has two nodes and one set of weights.

The config (``get_config``) is Keras': every layer's class and config, and
for each of its calls in this model the arguments, with each KerasTensor
written as ``{"__keras_tensor__": [layer name, node index, output index]}``;
``from_config`` replays those calls on new layers.
"""

from __future__ import annotations

import numpy as np

from ..persistence import object_config as _serialization
from ..framework import nest
from ..framework.tensor import Tensor
from ..layers import _rebuild
from ..layers.base import Layer
from ..layers.input_layer import Input, InputLayer
from ..layers.keras_tensor import KerasTensor, Node, map_symbolic
from ..ops.array_ops import expand_dims, squeeze
from ..ops.math_ops import cast

__all__ = ["init_graph", "run_graph", "graph_config", "graph_from_config", "graph_summary_rows", "clone_graph"]


def _check_tensors(structure, what: str) -> list:
    flat = nest.flatten(structure)
    if not flat:
        raise ValueError(f"Model: `{what}` must not be empty")
    for t in flat:
        if not isinstance(t, KerasTensor):
            raise TypeError(f"Model: `{what}` must be KerasTensors (from keras.Input and layers called on them), "
                            f"or lists/dicts of them. Received: {type(t).__name__}")
    return flat


def _keras_layer_order(flat_in: list, flat_out: list) -> list:
    """The layers of the graph (its Input layers too) in Keras 3's order, which ``model.layers``, ``weights``
    and ``get_weights`` follow: by depth, the farthest from the outputs first (a layer's depth is the longest
    path from any of its calls to an output), layers of one depth in the order a walk from the outputs, each
    output in turn and each call's inputs in order, first reaches them. An Input no output uses comes last."""
    index: dict = {}      # id(layer) -> when the walk first reached it
    finished: set = set()
    post: list = []       # the nodes, each after those it reads
    inputs = {id(t) for t in flat_in}

    def walk(tensor):
        node = tensor.node
        if id(node) in finished:
            return
        index.setdefault(id(node.layer), len(index))
        if not isinstance(node.layer, InputLayer) and id(tensor) not in inputs:
            for t in node.input_tensors:
                walk(t)
        finished.add(id(node))
        post.append(node)

    for t in flat_out:
        walk(t)
    node_depth: dict = {}
    layer_depth: dict = {}
    layer_of: dict = {}
    for node in reversed(post):
        depth = max(node_depth.setdefault(id(node), 0), layer_depth.get(id(node.layer), 0))
        layer_depth[id(node.layer)] = node_depth[id(node)] = depth
        layer_of[id(node.layer)] = node.layer
        for parent in node.parent_nodes:
            node_depth[id(parent)] = max(depth + 1, node_depth.get(id(parent), 0))
    for t in flat_in:  # an Input no output reads: depth 0, before every other layer of that depth
        layer = t.node.layer
        if id(layer) not in layer_depth:
            layer_depth[id(layer)], index[id(layer)], layer_of[id(layer)] = 0, -1, layer
    return [layer_of[k] for k in sorted(layer_depth, key=lambda k: (-layer_depth[k], index[k]))]


def init_graph(model, inputs, outputs) -> None:
    """Make ``model`` run the graph from ``inputs`` to ``outputs`` (KerasTensors, or lists/dicts of them)."""
    if isinstance(inputs, tuple):
        inputs = list(inputs)
    if isinstance(outputs, tuple):
        outputs = list(outputs)
    flat_in = _check_tensors(inputs, "inputs")
    flat_out = _check_tensors(outputs, "outputs")
    for t in flat_in:
        if not isinstance(t.node.layer, InputLayer):
            raise ValueError(f"Model: every input must come from keras.Input; {t!r} is the output of layer "
                             f"'{t.node.layer.name}'")
    given = {id(t) for t in flat_in}
    order: list[Node] = []
    state: dict = {}  # id(node) -> 1 visiting, 2 done
    used_inputs = set()

    def visit(node: Node, path: list):
        mark = state.get(id(node))
        if mark == 2:
            return
        if mark == 1:
            raise ValueError(f"Model: the graph has a cycle through layer '{node.layer.name}'")
        if isinstance(node.layer, InputLayer):
            t = node.output_tensors[0]
            if id(t) not in given:
                done = ", ".join(sorted({n.layer.name for n in order})) or "none"
                raise ValueError(f"Graph disconnected: cannot obtain value for tensor {t!r} at layer "
                                 f"'{path[-1] if path else node.layer.name}': it is an Input that is not among the "
                                 f"model's inputs. The following previous layers were accessed without issue: "
                                 f"{done}")
            used_inputs.add(id(t))
            state[id(node)] = 2
            return
        state[id(node)] = 1
        for parent in node.parent_nodes:
            visit(parent, path + [node.layer.name])
        state[id(node)] = 2
        order.append(node)

    for t in flat_out:
        visit(t.node, [])
    for t in flat_in:
        if id(t) not in used_inputs and not any(t is o for o in flat_out):
            raise ValueError(f"Model: input {t!r} is not used by any output")
    layers = _keras_layer_order(flat_in, flat_out)
    object.__setattr__(model, "_graph_inputs", inputs)
    object.__setattr__(model, "_graph_outputs", outputs)
    object.__setattr__(model, "_graph_flat_inputs", flat_in)
    object.__setattr__(model, "_graph_flat_outputs", flat_out)
    object.__setattr__(model, "_graph_nodes", order)
    model.layers = layers  # a tracked list: the weights of every layer, in this order (Keras' model.layers)
    model.built = True


def adjust_rank(value, shape):
    """``value`` with the rank of an input of ``shape`` where Keras 3 adjusts it: one axis more whose size is
    1 is squeezed, one axis less where the input's last size is 1 is added (``model.predict(x[:, 0])`` of a
    model whose Input is ``(None, 1)``); anything else is returned as it is (the shape check then speaks)."""
    have = getattr(value, "shape", None)
    if have is None or shape is None:
        return value
    have, shape = tuple(have), tuple(shape)
    if len(have) == len(shape) + 1 and have and have[-1] == 1:
        return squeeze(value, axis=-1)
    if len(have) == len(shape) - 1 and shape[-1] == 1:
        return expand_dims(value, axis=-1)
    return value


def _check_input(model, i: int, t: KerasTensor, value):
    shape = getattr(value, "shape", None)
    if shape is None:
        return
    shape = tuple(shape)
    ok = len(shape) == len(t.shape) and all(d is None or d == s for d, s in zip(t.shape, shape))
    if not ok:
        raise ValueError(f"Input {i} of layer '{model.name}' is incompatible with the layer: expected "
                         f"shape={t.shape}, found shape={shape}")


def _as_tensor(value, t: KerasTensor):
    """An input value in the dtype of its ``Input``, as Keras 3 converts it: numbers of another float or
    integer dtype, and integers or booleans into a floating Input (``calc(np.array([1]))`` of a float32 Input
    computes in float32); floating values into an integer Input are left as they are."""
    want = t.dtype.dtype
    if isinstance(value, Tensor) or hasattr(value, "read_value"):
        have = value.dtype.dtype
        if have != want and have.kind in "biu" and t.dtype.is_floating:
            return cast(value, dtype=want)
        return value
    arr = np.asarray(value)
    if arr.dtype.kind in "biuf" and arr.dtype != want and \
            ((arr.dtype.kind == "f") == t.dtype.is_floating or (arr.dtype.kind in "biu" and t.dtype.is_floating)):
        arr = arr.astype(want)
    return Tensor(np.array(arr, copy=True))


def _match_inputs(model, inputs) -> list:
    flat_in = model._graph_flat_inputs
    spec = model._graph_inputs
    if isinstance(inputs, dict):
        names = [t.name for t in flat_in]
        if isinstance(spec, dict):
            keys = list(spec)
            values = nest.flatten({k: inputs[k] for k in keys}) if set(keys) <= set(inputs) else None
        else:
            values = [inputs[n] for n in names] if set(names) <= set(inputs) else None
        if values is None:
            expected = sorted(spec) if isinstance(spec, dict) else names
            raise ValueError(f"Model '{model.name}' expects inputs named {expected}; received a dict with keys "
                             f"{sorted(inputs)}")
        return values
    flat = nest.flatten(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(flat) != len(flat_in):
        raise ValueError(f"Model '{model.name}' expects {len(flat_in)} input(s); received {len(flat)}")
    return flat


def run_graph(model, inputs, training=None):
    """Replay the model's nodes on real inputs; returns the outputs in the structure they were given."""
    values = {}
    for i, (t, v) in enumerate(zip(model._graph_flat_inputs, _match_inputs(model, inputs))):
        v = adjust_rank(v, t.shape)
        _check_input(model, i, t, v)
        values[id(t)] = _as_tensor(v, t)

    def call(node, args, kwargs):
        if training is not None and "training" not in kwargs:
            kwargs["training"] = training
        return node.layer, node.layer(*args, **kwargs)
    return _replay(model, values, call, "Layer", "graph")


def _replay(model, values: dict, call, who: str, whole: str):
    """The model's nodes run in order on ``values`` (``id`` of a graph tensor -> its value, the inputs' given):
    ``call(node, args, kwargs)`` gives ``(layer, outputs)``, whose outputs are stored for the nodes after it; the
    model's outputs in their structure. ``who`` and ``whole`` word the error for a wrong count of outputs."""
    for node in model._graph_nodes:
        args = map_symbolic(node.call_args, lambda k: values[id(k)])
        kwargs = map_symbolic(node.call_kwargs, lambda k: values[id(k)])
        layer, out = call(node, args, kwargs)
        flat = nest.flatten(out)
        if len(flat) != len(node.output_tensors):
            raise ValueError(f"{who} '{layer.name}' returned {len(flat)} output(s) where the {whole} has "
                             f"{len(node.output_tensors)}")
        for t, v in zip(node.output_tensors, flat):
            values[id(t)] = v
    return nest.pack_like(model._graph_outputs, [values[id(t)] for t in model._graph_flat_outputs])


# ---------------------------------------------------------------------------------------- config
def _model_nodes(model) -> dict:
    """For each layer, its nodes that belong to this model, in call order: id(node) -> (layer, index)."""
    members = {id(n) for n in model._graph_nodes}
    members.update(id(t.node) for t in model._graph_flat_inputs)
    out = {}
    for layer in model.layers:
        k = 0
        for node in layer.__dict__.get("_inbound_nodes", []):
            if id(node) in members:
                out[id(node)] = (layer, k)
                k += 1
    return out


def _encode(value, where: str, index: dict):
    # Keras 3's encoding (serialize_keras_object), so that Keras reads the config. A tuple of tensors becomes
    # a list, as Keras writes it; any other tuple (an index key of an op layer: slices, numbers) stays a tuple
    if isinstance(value, tuple) and not all(isinstance(v, KerasTensor) for v in value):
        return {"class_name": "__tuple__", "config": {"value": [_encode(v, where, index) for v in value]}}
    if isinstance(value, KerasTensor):
        layer, k = index[id(value.node)]
        return {"class_name": "__keras_tensor__",
                "config": {"shape": list(value.shape), "dtype": value.dtype.name,
                           "keras_history": [layer.name, k, value._history[2]]}}
    if isinstance(value, (list, tuple)):
        return [_encode(v, where, index) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode(v, where, index) for k, v in value.items()}
    if isinstance(value, slice):
        return {"class_name": "__slice__", "config": {k: _encode(getattr(value, k), where, index)
                                                      for k in ("start", "stop", "step")}}
    if value is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"get_config: the call of layer '{where}' has an argument that cannot be written in a config "
                    f"(only KerasTensors, numbers, strings and lists/dicts of them): {type(value).__name__}")


def _layer_entry(layer) -> dict:
    return {**_serialization.serialize_keras_object(layer), "name": layer.name}


def graph_config(model) -> dict:
    index = _model_nodes(model)
    entries = []
    for layer in model.layers:
        entry = _layer_entry(layer)
        nodes = [n for n in layer.__dict__.get("_inbound_nodes", []) if id(n) in index]
        if not isinstance(layer, InputLayer):
            entry["inbound_nodes"] = [{"args": [_encode(a, layer.name, index) for a in n.call_args],
                                       "kwargs": _encode(n.call_kwargs, layer.name, index)} for n in nodes]
        else:
            entry["inbound_nodes"] = []
        entries.append(entry)

    def ref(t):
        layer, k = index[id(t.node)]
        return [layer.name, k, t._history[2]]

    def refs(structure):
        if isinstance(structure, dict):
            return {k: refs(v) for k, v in structure.items()}
        if isinstance(structure, (list, tuple)):
            return [refs(v) for v in structure]
        return ref(structure)

    return {"name": model.name, "trainable": model.trainable, "layers": entries,
            "input_layers": refs(model._graph_inputs), "output_layers": refs(model._graph_outputs)}


_MAX_SHAPE_RANK = 32


def _bad(problem: str):
    return ValueError(f"The functional model config is malformed: {problem}")


def _input_from_config(entry: dict):
    cfg = entry.get("config")
    if not isinstance(cfg, dict):
        raise _bad(f"the InputLayer '{str(entry.get('name'))[:100]}' has no config dict")
    shape = cfg.get("batch_shape", cfg.get("batch_input_shape"))
    if (not isinstance(shape, list) or len(shape) > _MAX_SHAPE_RANK
            or not all(d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0) for d in shape)):
        raise _bad(f"the InputLayer '{str(entry.get('name'))[:100]}' needs a 'batch_shape': a list of at most "
                   f"{_MAX_SHAPE_RANK} sizes (non-negative ints or null). Received: {str(shape)[:200]}")
    dtype = cfg.get("dtype")
    if isinstance(dtype, dict):
        from ..layers.base import dtype_from_config

        dtype = dtype_from_config(dtype)
    for flag in ("sparse", "ragged", "optional"):
        if cfg.get(flag):
            raise _bad(f"the InputLayer '{str(entry.get('name'))[:100]}' is {flag}; descend's inputs are dense")
    return Input(batch_shape=tuple(shape), dtype=dtype, name=cfg.get("name"))


def _ref(value, what: str) -> tuple:
    """``[layer name, node index, tensor index]`` from a config, checked."""
    if (not isinstance(value, list) or len(value) != 3 or not isinstance(value[0], str)
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v < 1 << 20 for v in value[1:])):
        raise _bad(f"{what} must be [layer name, node index, tensor index]. Received: {str(value)[:200]}")
    return value[0], value[1], value[2]


def graph_from_config(config: dict, custom_objects: dict | None = None):
    """Rebuild the layers and replay their calls; returns ``(inputs, outputs, name)`` for the model.
    Layer classes are found among descend's layers, registered classes, ``custom_objects`` and an
    active ``custom_object_scope``; nothing named in the config is imported."""
    for key in ("layers", "input_layers", "output_layers"):
        if key not in config:
            raise ValueError(f"Not a functional model config: the key '{key}' is missing")
    if not isinstance(config["layers"], list):
        raise _bad(f"'layers' must be a list. Received: {type(config['layers']).__name__}")
    made: dict = {}  # layer name -> layer
    produced: dict = {}  # layer name -> list of node outputs (flattened)
    pending = []
    with _serialization.extend_scope(custom_objects):
        for i, entry in enumerate(config["layers"]):
            if not isinstance(entry, dict) or not isinstance(entry.get("class_name"), str):
                raise _bad(f"layer {i} must be a dict with a string 'class_name'. Received: {str(entry)[:200]}")
            name = entry.get("name")
            if name is None and isinstance(entry.get("config"), dict):
                name = entry["config"].get("name")
            if not isinstance(name, str):
                raise _bad(f"layer {i} ({entry['class_name'][:100]}) has no string 'name'")
            if name in made:
                raise _bad(f"two layers are named '{name[:100]}'")
            _rebuild.note_layer(f"'{name[:100]}' ({entry['class_name'][:100]})")
            if entry["class_name"] == "InputLayer" and entry.get("registered_name") in (None, "InputLayer"):
                tensor = _input_from_config(entry)
                made[name] = tensor.node.layer
                produced[name] = [[tensor]]
                continue
            layer = _serialization.build_object(entry, "layers", "layer")
            if not isinstance(layer, Layer):
                raise _bad(f"layer '{name[:100]}': {entry['class_name'][:100]} is not a layer class")
            made[name] = layer
            produced[name] = []
            nodes = entry.get("inbound_nodes", [])
            if not isinstance(nodes, list):
                raise _bad(f"layer '{name[:100]}': 'inbound_nodes' must be a list")
            for node in nodes:
                if not isinstance(node, dict) or not isinstance(node.get("args", []), list) \
                        or not isinstance(node.get("kwargs", {}), dict):
                    raise _bad(f"layer '{name[:100]}': each inbound node must be a dict with 'args' (a list) and "
                               f"'kwargs' (a dict). Received: {str(node)[:200]}")
                pending.append((name, node))

    def decode(value):
        history = None
        if isinstance(value, dict) and set(value) == {"__keras_tensor__"}:  # descend's model.json before Keras' form
            history = value["__keras_tensor__"]
        elif isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
            inner = value.get("config")
            history = inner.get("keras_history") if isinstance(inner, dict) else None
        if history is not None or (isinstance(value, dict) and value.get("class_name") == "__keras_tensor__"):
            name, k, i = _ref(history, "a tensor reference")
            outs = produced.get(name)
            if outs is None:
                raise _bad(f"a call refers to an unknown layer '{name[:100]}'")
            if k >= len(outs):
                raise LookupError(name)
            if i >= len(outs[k]):
                raise _bad(f"a call refers to output {i} of layer '{name[:100]}', which has {len(outs[k])}")
            return outs[k][i]
        if isinstance(value, list):
            return [decode(v) for v in value]
        if isinstance(value, dict):
            if set(value) == {"__tuple__"}:
                return tuple(decode(v) for v in value["__tuple__"])
            if set(value) == {"__slice__"}:
                return slice(*(decode(v) for v in value["__slice__"]))
            if set(value) == {"__ellipsis__"}:
                return Ellipsis
            kind = value.get("class_name")
            inner = value.get("config")
            if kind == "__slice__" and isinstance(inner, dict):
                return slice(*(decode(inner.get(k)) for k in ("start", "stop", "step")))
            if kind == "__ellipsis__":
                return Ellipsis
            if kind == "__tuple__" and isinstance(inner, dict) and isinstance(inner.get("value"), list):
                return tuple(decode(v) for v in inner["value"])
            if isinstance(kind, str) and kind.startswith("__"):
                raise _bad(f"a call argument of kind {kind[:100]!r} cannot be rebuilt")
            return {k: decode(v) for k, v in value.items()}
        return value

    # replay the calls in an order where every argument exists (a shared layer's later call may wait)
    while pending:
        progress = False
        waiting = []
        for name, node in pending:
            if waiting and any(w[0] == name for w in waiting):
                waiting.append((name, node))  # keep a layer's calls in their order
                continue
            _rebuild.note_layer(made[name])
            try:
                args = decode(node.get("args", []))
                kwargs = decode(node.get("kwargs", {}))
            except LookupError:
                waiting.append((name, node))
                continue
            out = made[name](*args, **kwargs)
            produced[name].append(nest.flatten(out))
            progress = True
        if not progress:
            raise ValueError(f"The model config cannot be replayed: the calls of {sorted({w[0] for w in waiting})} "
                             "wait on each other")
        pending = waiting

    def resolve(structure, what):
        if isinstance(structure, dict):
            return {k: resolve(v, what) for k, v in structure.items()}
        if isinstance(structure, list) and len(structure) == 3 and isinstance(structure[0], str):
            name, k, i = _ref(structure, what)
            if name not in produced or k >= len(produced[name]) or i >= len(produced[name][k]):
                raise _bad(f"{what} refers to output [{name[:100]!r}, {k}, {i}], which the layers do not produce")
            return produced[name][k][i]
        if isinstance(structure, list) and structure:
            return [resolve(v, what) for v in structure]
        raise _bad(f"{what} must be [layer name, node index, tensor index] or lists/dicts of them. Received: "
                   f"{str(structure)[:200]}")

    _rebuild.note_layer(None)
    name = config.get("name")
    return (resolve(config["input_layers"], "'input_layers'"), resolve(config["output_layers"], "'output_layers'"),
            name if isinstance(name, str) else None)


def clone_graph(model, clone, input_tensors=None, call_function=None):
    """``(inputs, outputs)`` of a functional model like ``model`` on new layers: ``clone(layer)`` for each layer
    (InputLayers are made anew, or ``input_tensors`` are used), its calls replayed (through ``call_function``
    when given)."""
    if input_tensors is not None:
        given = nest.flatten(input_tensors)
        if len(given) != len(model._graph_flat_inputs) or not all(isinstance(t, KerasTensor) for t in given):
            raise ValueError(f"clone_model: `input_tensors` must be {len(model._graph_flat_inputs)} KerasTensor(s) in "
                             f"the structure of model.input. Received: {input_tensors!r}")
        new_inputs = input_tensors
    else:
        given = [Input(batch_shape=t.shape, dtype=t.dtype.name, name=t.name) for t in model._graph_flat_inputs]
        new_inputs = nest.pack_like(model._graph_inputs, given)
    values = {id(t): n for t, n in zip(model._graph_flat_inputs, given)}

    def call(node, args, kwargs):
        layer = clone(node.layer)
        return layer, call_function(layer, *args, **kwargs) if call_function is not None else layer(*args, **kwargs)
    return new_inputs, _replay(model, values, call, "clone_model: layer", "model")


# ---------------------------------------------------------------------------------------- summary
def shape_text(shape) -> str:
    """A shape as Keras' summary writes it: ``(None, 3)``, ``(5)`` for one dimension."""
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _structure_text(structure) -> str:
    # Keras: one output's shape alone; several as the structure they come in, without quotes
    flat = nest.flatten(structure)
    if len(flat) == 1:
        return shape_text(flat[0].shape)
    return str(nest.map_structure(lambda t: shape_text(t.shape), structure)).replace("'", "")


def layer_output_shape(layer) -> str:
    """The output shape of ``layer``'s last call (symbolic or eager), or ``?`` before its first."""
    nodes = layer.__dict__.get("_inbound_nodes")
    if nodes:
        return _structure_text(nodes[-1].outputs)
    shapes = layer.__dict__.get("_last_output_shapes")
    if shapes is None:
        return "?"
    if isinstance(shapes, list):
        return str([shape_text(s) for s in shapes]).replace("'", "")
    return shape_text(shapes)


def is_chain(model) -> bool:
    """Whether a functional model is a chain (Keras' "sequential-like"): one input, each layer called once,
    each call on at most one tensor, no tensor read twice."""
    index = _model_nodes(model)
    read, per_layer = set(), {}
    for layer, _ in index.values():
        per_layer[id(layer)] = per_layer.get(id(layer), 0) + 1
    if any(n > 1 for n in per_layer.values()) or len(model._graph_flat_inputs) != 1:
        return False
    for layer in model.layers:
        for node in layer.__dict__.get("_inbound_nodes", []):
            if id(node) not in index:
                continue
            inputs = list(node.input_tensors)
            if len(inputs) > 1 or any(id(t) in read for t in inputs):
                return False
            read.update(id(t) for t in inputs)
    return True


def graph_summary_rows(model) -> list:
    """``(name, Type, output shape, param count, connected to)`` per layer of the graph, as Keras 3's summary."""
    index = _model_nodes(model)
    rows = []
    for layer in model.layers:
        nodes = [n for n in layer.__dict__.get("_inbound_nodes", []) if id(n) in index]
        shape = _structure_text(nodes[-1].outputs) if nodes else "?"
        n = sum(w.size for w in layer.weights) if not isinstance(layer, InputLayer) else 0
        sources = []
        for node in nodes:
            for t in node.input_tensors:
                src, k = index[id(t.node)]
                sources.append(f"{src.name}[{k}][{t._history[2]}]")
        rows.append((layer.name, type(layer).__name__, shape, f"{n:,}", ", ".join(sources) or "-"))
    return rows


def is_graph_model(layer: Layer) -> bool:
    return getattr(layer, "_graph_nodes", None) is not None
