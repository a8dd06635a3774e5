"""Where Keras 3 keeps each value of a model and its optimizer, for descend's objects.

Keras 3 saves a model's state (``.weights.h5``, the weights inside a ``.keras`` archive) by walking the
model: a Sequential or functional model's ``layers`` first, then its other attributes in sorted order
(names starting with ``_`` last); a list of layers names each layer by its class in snake case, made
unique in the list (``dense``, ``dense_1``); an object reached twice is saved once; each layer's own
variables go to ``<path>/vars/<i>`` (trainable first, in creation order). The optimizer's variables go
to ``optimizer/vars/<i>``: ``iterations``, ``learning_rate`` (unless it is a schedule), then its slots,
made one group after another, each group interleaving its slots per trainable variable (Adam:
``m0, v0, m1, v1, ...``; RMSprop: all velocities, then all momentums). This module computes the same
walk over descend's layers and the same order over descend's optimizers (whose classes and slots mirror
Keras'), so that a file either of them wrote is read by the other.

Example:
    >>> import descend as ds
    >>> from descend.persistence.checkpoint import keras_layout
    >>> ds.clear_session()
    >>> model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2), ds.layers.Dense(1)])
    >>> for path, ws in keras_layout.model_groups(model):
    ...     print(path, [w.path for w in ws])
    vars []
    layers/dense/vars ['sequential/dense/kernel', 'sequential/dense/bias']
    layers/dense_1/vars ['sequential/dense_1/kernel', 'sequential/dense_1/bias']
    >>> opt = ds.optimizers.Adam()
    >>> keras_layout.optimizer_groups(opt)
    [[('_momentums', 'm'), ('_velocities', 'v')]]
"""

from __future__ import annotations

from ...framework import nest
from ...framework.variable import Variable
from ...layers.base import Layer, to_snake_case
from ...layers.input_layer import InputLayer
from ...optimizers import (
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    Ftrl,
    Lamb,
    Lion,
    Nadam,
    RMSprop,
)
from ...optimizers.optimizer import Optimizer

__all__ = ["model_groups", "model_layers", "group_path", "own_variables", "optimizer_groups", "optimizer_tail", "check_optimizer",
           "KERAS2_SLOT_NAMES", "keras_name_key"]

#: (descend class, its Keras 3 slot groups: (Keras' list attribute, descend slot name) per slot, in build order)
_GROUPS = [
    (Nadam, [[("_momentums", "momentum"), ("_velocities", "velocity")]]),
    (Adamax, [[("_m", "momentum"), ("_u", "norm")]]),
    (Adam, [[("_momentums", "m"), ("_velocities", "v")], [("_velocity_hats", "v_hat")]]),
    (Adagrad, [[("_accumulators", "accumulator")]]),
    (Adadelta, [[("_accumulated_grads", "accumulated_grad"), ("_accumulated_delta_vars", "accumulated_delta_var")]]),
    (RMSprop, [[("_velocities", "velocity")], [("_momentums", "momentum")], [("_average_gradients", "average_gradient")]]),
    (Ftrl, [[("_accumulators", "accumulator"), ("_linears", "linear")]]),
    (Lion, [[("_momentums", "momentum")]]),
    (Lamb, [[("_momentums", "momentum"), ("_velocities", "velocity")]]),
    (SGD, [[("momentums", "momentum")]]),
]
#: optimizer-level variables Keras 3 appends after the slots: (Keras' attribute, descend's step state)
_TAIL = {Nadam: [("_u_product", "u_product")]}

#: the slot names of Keras 2's (``tf.keras``, OptimizerV2) and TF 1's optimizers that differ from descend's,
#: by descend class name (the others are the same names)
KERAS2_SLOT_NAMES = {
    "RMSprop": {"rms": "velocity", "mg": "average_gradient"},
    "Adadelta": {"accum_grad": "accumulated_grad", "accum_var": "accumulated_delta_var"},
    "Adamax": {"m": "momentum", "v": "norm"},
    "Nadam": {"m": "momentum", "v": "velocity"},
    "Lamb": {"m": "momentum", "v": "velocity"},
    "Lion": {"m": "momentum"},
}


def keras_name_key(name: str) -> str:
    """Keras' order of attributes: names starting with ``_`` after the others."""
    return f"~{name}" if name.startswith("_") else name


def check_optimizer(opt, where: str) -> None:
    """Refuse what Keras' optimizer files cannot hold, naming the file."""
    if not isinstance(opt, Optimizer):
        raise ValueError(f"{where}: descend writes and reads the state of Keras 3 optimizers (Adam, SGD, RMSprop, "
                         f"...); {type(opt).__name__} has no Keras 3 layout")
    if opt.gradient_accumulation_steps:
        raise ValueError(f"{where}: an optimizer with gradient_accumulation_steps cannot be written to or read from "
                         "a Keras file by descend (its partial sums have no Keras layout); save a checkpoint instead")
    if not any(isinstance(opt, cls) for cls, _ in _GROUPS):
        raise ValueError(f"{where}: {type(opt).__name__} has no Keras 3 layout that descend knows (it knows Adam, "
                         "AdamW, Adamax, Adagrad, Adadelta, RMSprop, Nadam, Ftrl, Lion, Lamb and SGD); save a "
                         "checkpoint instead")


def optimizer_groups(opt) -> list[list[tuple[str, str]]]:
    """The slot groups of ``opt`` in Keras 3's build order, only the slots ``opt`` has: each a list of
    ``(Keras list attribute, descend slot name)``; a moving-average group first with ``use_ema``."""
    have = set(opt.get_slot_names())
    out = []
    if getattr(opt, "use_ema", False):
        out.append([("_model_variables_moving_average", "average")])
    for cls, groups in _GROUPS:
        if isinstance(opt, cls):
            for group in groups:
                kept = [(attr, slot) for attr, slot in group if slot in have]
                if kept:
                    out.append(kept)
            break
    return out


def optimizer_tail(opt) -> list[tuple[str, str]]:
    """Optimizer-level variables Keras 3 keeps after the slots: ``(Keras attribute, descend step state)``."""
    for cls, tail in _TAIL.items():
        if isinstance(opt, cls):
            return list(tail)
    return []


def own_variables(layer: Layer) -> list:
    """A layer's own variables in Keras' order: trainable ones first, each kind in creation order."""
    own = [v for v in layer.__dict__.get("_own_weights", [])]
    seen = {id(v) for v in own}
    for key in layer.__dict__.get("_tracked", {}):
        value = layer.__dict__.get(key)
        if isinstance(value, Variable) and id(value) not in seen:
            seen.add(id(value))
            own.append(value)
    return [v for v in own if v.trainable] + [v for v in own if not v.trainable]


def _children(layer: Layer) -> list[tuple[str, object]]:
    """A layer's children as Keras 3 walks them: a model's ``layers`` first, then its attributes that hold
    layers (sorted, ``_``-names last); a subclassed model's ``layers`` property is one of them."""
    d = layer.__dict__
    attrs = {}
    for key in d.get("_tracked", {}):
        value = d.get(key)
        if isinstance(value, Layer) or (isinstance(value, (list, tuple, dict)) and _holds_layers(value)):
            attrs[key] = value
    from_graph = "layers" in attrs and isinstance(attrs["layers"], list) and callable(getattr(layer, "fit", None))
    out = []
    if from_graph:  # a Sequential or functional model
        layers = attrs.pop("layers")
        sequential = not any(isinstance(la, InputLayer) for la in layers[1:]) and not _is_graph(layer)
        out.append(("layers", [la for la in layers if not (sequential and isinstance(la, InputLayer))]))
    elif callable(getattr(layer, "fit", None)) and "layers" not in attrs:  # a subclassed model: Keras' `layers`
        attrs["layers"] = layer._flatten_layers(include_self=False, recursive=False)
    out += sorted(attrs.items(), key=lambda kv: keras_name_key(kv[0]))
    return out


def _is_graph(layer) -> bool:
    return "_graph_nodes" in layer.__dict__


def _holds_layers(value) -> bool:
    return any(isinstance(v, Layer) for v in nest.held(value, 4))


def model_layers(model: Layer) -> list[tuple[str, Layer]]:
    """``(path, layer)`` for the model and every layer in Keras 3's walk, each once: ``""`` for the model,
    ``layers/dense`` for a layer. A layer's variables go to the group ``<path>/vars`` of the weights file,
    its assets to the folder ``assets/<path>`` of a ``.keras`` archive."""
    out: list[tuple[str, Layer]] = []
    visited: set[int] = set()

    def join(path: str, name: str) -> str:
        return f"{path}/{name}" if path else name

    def visit(layer: Layer, path: str) -> None:
        if id(layer) in visited:
            return
        visited.add(id(layer))
        out.append((path, layer))
        for name, child in _children(layer):
            if isinstance(child, Layer):
                visit(child, join(path, name))
            else:
                container(child, join(path, name), set())

    def container(items, path: str, seen: set) -> None:
        if id(items) in seen:
            return
        seen.add(id(items))
        used: dict[str, int] = {}

        def unique(name: str) -> str:
            if name in used:
                used[name] += 1
                return f"{name}_{used[name]}"
            used[name] = 0
            return name

        for item in (items.values() if isinstance(items, dict) else items):
            if isinstance(item, Layer):
                visit(item, join(path, unique(to_snake_case(type(item).__name__))))
            elif isinstance(item, (list, tuple, dict)):
                container(item, join(path, unique("container")), seen)

    visit(model, "")
    return out


def group_path(path: str) -> str:
    """The weights-file group of the layer at ``path`` (of :func:`model_layers`)."""
    return f"{path}/vars" if path else "vars"


def model_groups(model: Layer) -> list[tuple[str, list]]:
    """``(group path, [variables])`` for every layer of ``model`` in Keras 3's walk: the model's own
    ``vars`` first, then each layer's ``<path>/vars`` (layers without variables too: Keras writes their
    groups empty)."""
    return [(group_path(path), own_variables(layer)) for path, layer in model_layers(model)]
