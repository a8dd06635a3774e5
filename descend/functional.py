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

import inspect

import numpy as np

from .framework import nest
from .framework.tensor import Tensor
from .layers.base import Layer
from .layers.input_layer import Input, InputLayer
from .layers.keras_tensor import KerasTensor, Node, map_symbolic

__all__ = ["init_graph", "run_graph", "graph_config", "graph_from_config", "graph_summary_rows"]


def _check_tensors(structure, what: str) -> list:
    flat = nest.flatten(structure)
    if not flat:
        raise ValueError(f"Model: `{what}` must not be empty")
    for t in flat:
        if not isinstance(t, KerasTensor):
            raise TypeError(f"Model: `{what}` must be KerasTensors (from keras.Input and layers called on them), "
                            f"or lists/dicts of them. Received: {type(t).__name__}")
    return flat


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
    layers = [t.node.layer for t in flat_in]
    for node in order:
        if all(node.layer is not la for la in layers):
            layers.append(node.layer)
    object.__setattr__(model, "_graph_inputs", inputs)
    object.__setattr__(model, "_graph_outputs", outputs)
    object.__setattr__(model, "_graph_flat_inputs", flat_in)
    object.__setattr__(model, "_graph_flat_outputs", flat_out)
    object.__setattr__(model, "_graph_nodes", order)
    model.layers = layers  # a tracked list: the weights of every layer, in this order (Keras' model.layers)
    model.built = True


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
    if isinstance(value, Tensor) or hasattr(value, "read_value"):
        return value
    arr = np.asarray(value)
    if arr.dtype.kind in "biuf" and arr.dtype != t.dtype.dtype and (arr.dtype.kind == "f") == t.dtype.is_floating:
        arr = arr.astype(t.dtype.dtype)
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
        _check_input(model, i, t, v)
        values[id(t)] = _as_tensor(v, t)
    for node in model._graph_nodes:
        args = map_symbolic(node.call_args, lambda k: values[id(k)])
        kwargs = map_symbolic(node.call_kwargs, lambda k: values[id(k)])
        if training is not None and "training" not in kwargs:
            kwargs["training"] = training
        out = node.layer(*args, **kwargs)
        flat = nest.flatten(out)
        if len(flat) != len(node.output_tensors):
            raise ValueError(f"Layer '{node.layer.name}' returned {len(flat)} output(s) where the graph has "
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
    if isinstance(value, KerasTensor):
        layer, k = index[id(value.node)]
        return {"__keras_tensor__": [layer.name, k, value._history[2]]}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, where, index) for v in value]}
    if isinstance(value, list):
        return [_encode(v, where, index) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode(v, where, index) for k, v in value.items()}
    if isinstance(value, slice):
        return {"__slice__": [_encode(v, where, index) for v in (value.start, value.stop, value.step)]}
    if value is Ellipsis:
        return {"__ellipsis__": True}
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"get_config: the call of layer '{where}' has an argument that cannot be written in a config "
                    f"(only KerasTensors, numbers, strings and lists/dicts of them): {type(value).__name__}")


def _layer_entry(layer) -> dict:
    if getattr(layer, "_graph_nodes", None) is not None:
        class_name = "Functional" if type(layer).__name__ == "Model" else type(layer).__name__
    else:
        class_name = type(layer).__name__
    return {"class_name": class_name, "name": layer.name, "config": layer.get_config()}


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


def _layer_class(class_name: str, custom_objects: dict | None):
    from . import layers as layers_module
    from .models import Model, Sequential

    found = (custom_objects or {}).get(class_name)
    if found is None and class_name in ("Functional", "Model"):
        found = Model
    if found is None and class_name == "Sequential":
        found = Sequential
    if found is None and class_name == "InputLayer":
        found = InputLayer
    if found is None:
        found = getattr(layers_module, class_name, None)
    if found is None:
        raise ValueError(f"Unknown layer class '{class_name}' in the model config: pass it in custom_objects")
    return found


def graph_from_config(config: dict, custom_objects: dict | None = None):
    """Rebuild the layers and replay their calls; returns ``(inputs, outputs, name)`` for the model."""
    for key in ("layers", "input_layers", "output_layers"):
        if key not in config:
            raise ValueError(f"Not a functional model config: the key '{key}' is missing")
    made: dict = {}  # layer name -> layer
    produced: dict = {}  # layer name -> list of node outputs (flattened)
    pending = []
    for entry in config["layers"]:
        cls = _layer_class(entry["class_name"], custom_objects)
        cfg = dict(entry["config"])
        if cls is InputLayer:
            tensor = Input(batch_shape=tuple(cfg["batch_shape"]), dtype=cfg.get("dtype"), name=cfg.get("name"))
            made[entry["name"]] = tensor.node.layer
            produced[entry["name"]] = [[tensor]]
            continue
        if "custom_objects" in inspect.signature(cls.from_config).parameters:
            layer = cls.from_config(cfg, custom_objects=custom_objects)
        else:
            layer = cls.from_config(cfg)
        made[entry["name"]] = layer
        produced[entry["name"]] = []
        pending.extend((entry["name"], n) for n in entry.get("inbound_nodes", []))

    def decode(value):
        if isinstance(value, dict) and set(value) == {"__keras_tensor__"}:
            name, k, i = value["__keras_tensor__"]
            outs = produced.get(name)
            if outs is None:
                raise ValueError(f"The model config refers to an unknown layer '{name}'")
            if k >= len(outs):
                raise LookupError(name)
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
            try:
                args = decode(node["args"])
                kwargs = decode(node["kwargs"])
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

    def resolve(structure):
        if isinstance(structure, dict):
            return {k: resolve(v) for k, v in structure.items()}
        if isinstance(structure, list) and len(structure) == 3 and isinstance(structure[0], str):
            name, k, i = structure
            return produced[name][k][i]
        return [resolve(v) for v in structure]

    return resolve(config["input_layers"]), resolve(config["output_layers"]), config.get("name")


# ---------------------------------------------------------------------------------------- summary
def _shape_text(structure) -> str:
    flat = nest.flatten(structure)
    if len(flat) == 1:
        return str(flat[0].shape)
    return "[" + ", ".join(str(t.shape) for t in flat) + "]"


def graph_summary_rows(model) -> list:
    """``(name (Type), output shape, param count, connected to)`` per layer of the graph."""
    index = _model_nodes(model)
    rows = []
    for layer in model.layers:
        nodes = [n for n in layer.__dict__.get("_inbound_nodes", []) if id(n) in index]
        shape = _shape_text(nodes[0].outputs) if len(nodes) == 1 else "multiple"
        n = sum(w.size for w in layer.weights) if not isinstance(layer, InputLayer) else 0
        sources = []
        for node in nodes:
            for t in node.input_tensors:
                src, k = index[id(t.node)]
                sources.append(f"{src.name}[{k}][{t._history[2]}]")
        rows.append((f"{layer.name} ({type(layer).__name__})", shape, n, ", ".join(sources) or "-"))
    return rows


def is_graph_model(layer: Layer) -> bool:
    return getattr(layer, "_graph_nodes", None) is not None
