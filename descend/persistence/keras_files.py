"""Keras 3's files, read and written by descend: ``model.save("m.keras")`` /
``keras.models.load_model("m.keras")`` and ``save_weights("w.weights.h5")`` / ``load_weights(...)``
(:mod:`descend.saving` routes a path to here by its suffix).

* ``.weights.h5``: the model's variables by Keras' paths (:mod:`descend.persistence.checkpoint.keras_layout`) and,
  for a compiled model, its optimizer's (``optimizer/vars``: iterations, learning rate, slots);
* ``.keras``: a zip of ``config.json`` (the model's config, Keras 3's format, with its
  ``compile_config`` and each layer's ``build_config``), ``metadata.json``, ``model.weights.h5`` and the
  layers' ``assets/``.

Keras 3's saving hooks decide what goes where, as in Keras: each layer's ``save_own_variables`` /
``load_own_variables`` fills and reads its group (:mod:`descend.persistence.keras_hooks` gives the store),
``save_assets`` / ``load_assets`` its folder of the archive's ``assets/``, ``get_build_config`` /
``build_from_config`` and the model's ``get_compile_config`` / ``compile_from_config`` the config; loading calls
them in Keras' order (build, compile, variables, assets).

A model Keras saved in the middle of training continues in descend with the same numbers, and the
other way round: the optimizer's slots are restored (those of variables not updated yet wait in the
optimizer until its first step). Loading checks everything before anything changes: the archive's
members (:mod:`descend.persistence.formats.keras_zip`), the weights file (:mod:`descend.persistence.formats.keras_h5`), the
config (names resolve only to registered, custom and built-in objects; a ``lambda``'s code only with
``safe_mode=False``; declared sizes bounded by the weights the file holds), every shape; then all the
values are assigned at once.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import descend as ds
    >>> model = ds.Sequential([ds.keras.Input((3,)), ds.layers.Dense(2)])
    >>> _ = model.compile(optimizer="adam", loss="mse")
    >>> _ = model.fit(np.ones((4, 3)), np.ones((4, 2)), epochs=1, verbose=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.keras")
    >>> model.save(path)
    >>> loaded = ds.keras.models.load_model(path)
    >>> bool(np.array_equal(loaded.predict(np.ones((1, 3)), verbose=0), model.predict(np.ones((1, 3)), verbose=0)))
    True
"""

from __future__ import annotations

import datetime
import io
import json
import os
import re
import tempfile

import numpy as np

from ..layers import _rebuild
from ..layers.base import Layer
from ..optimizers.loss_scale import LossScaleOptimizer
from ..optimizers.rule import initial_value
from .bounded_read import parse_json
from .checkpoint import keras_layout
from .checkpoint.trackable import walk
from .checkpoint_errors import CheckpointCorruptedError, CheckpointError, CheckpointMismatchError, mismatch_message, short
from .durable import atomic_replace_file
from . import keras_hooks
from .formats import keras_h5, keras_zip
from .model_config import REBUILD_ERRORS, compile_config, compile_from, is_model, rebuild_error
from .object_config import build_object, extend_scope, resolve, safe_mode_scope, serialize_keras_object

__all__ = ["KERAS_SUFFIX", "WEIGHTS_SUFFIX", "KERAS_FORMAT_VERSION", "save_weights", "load_weights", "save_model",
           "load_model", "normalize_config", "MAX_CONFIG_BYTES", "MAX_WEIGHTS_BYTES", "MAX_WEIGHTS_RATIO"]

KERAS_SUFFIX = ".keras"
WEIGHTS_SUFFIX = ".weights.h5"
#: the Keras release whose file format descend writes (``metadata.json``'s ``keras_version``)
KERAS_FORMAT_VERSION = "3.15.1"
#: the largest config.json / metadata.json read from a ``.keras`` archive
MAX_CONFIG_BYTES = 64 * 2**20
#: config.json and metadata.json may together hold as many bytes as their archive, or this many
JSON_FLOOR_BYTES = 4 * 2**20
#: the largest model.weights.h5 read from a ``.keras`` archive (inflated into a temporary file)
MAX_WEIGHTS_BYTES = 1 << 40
#: a compressed model.weights.h5 inflates to at most this many times its compressed size (numbers compress
#: little: Keras stores the member uncompressed, and deflate makes weights about 10% smaller), so a model's
#: arrays cost a small multiple of the archive's size
MAX_WEIGHTS_RATIO = 16


def _where(path) -> str:
    return os.fspath(path)


# ---------------------------------------------------------------------------------------------------------------
# weights: model and optimizer state <-> Keras' groups
# ---------------------------------------------------------------------------------------------------------------
def _optimizer_of(model):
    opt = getattr(model, "optimizer", None) if getattr(model, "compiled", False) else None
    if isinstance(opt, LossScaleOptimizer):
        raise ValueError("descend cannot write or read a LossScaleOptimizer (mixed_float16) in Keras' files; save a "
                         "checkpoint (descend.train.Checkpoint) instead")
    return opt


def _var_key(model):
    return walk({"model": model}).var_key


def _learning_rate(opt):
    lr = opt.hyperparameters().get("learning_rate")
    return lr if isinstance(lr, float) else None


def _optimizer_arrays(opt, model, where: str) -> list[np.ndarray]:
    """``optimizer/vars`` as Keras 3 writes it (see :mod:`descend.persistence.checkpoint.keras_layout`)."""
    keras_layout.check_optimizer(opt, where)
    key = _var_key(model)
    state = opt.state_dict(var_key=key)
    out = [np.asarray(opt.iterations.numpy(), np.int64)]
    lr = _learning_rate(opt)
    if lr is not None:
        out.append(np.asarray(lr, np.float32))
    trainable = list(model.trainable_weights)
    slots_held = any("/" in k and not k.startswith(("hyper:", "accumulator:")) for k in state)
    if not slots_held:  # never stepped: Keras' unbuilt optimizer holds iterations and the learning rate only
        return out
    specs = {s.name: s for s in opt.rule.slot_specs}
    for group in keras_layout.optimizer_groups(opt):
        for v in trainable:
            for _attr, slot in group:
                value = state.get(f"{key(v)}/{slot}")
                if value is None:
                    value = initial_value(specs[slot].initializer if slot in specs else "zeros", tuple(v.shape),
                                          v.dtype.dtype)
                out.append(np.asarray(value))
    for _attr, step in keras_layout.optimizer_tail(opt):
        value = state.get(step)
        if value is None:
            raise ValueError(f"{where}: optimizer '{opt.name}' has slots but no '{step}'")
        out.append(np.asarray(value))
    return out


def _weight_groups(model, where: str, with_optimizer: bool) -> tuple[list, dict]:
    """The weights file's groups: each layer's ``save_own_variables`` fills its own (``<path>/vars``)."""
    groups, names = [], {}
    for path, layer in keras_layout.model_layers(model):
        store = keras_hooks.SaveStore(keras_layout.group_path(path), where)
        layer.save_own_variables(store)
        groups.append((store.path, store.values()))
    names["vars"] = model.name
    opt = _optimizer_of(model) if with_optimizer else None
    if opt is not None:
        groups.append(("optimizer/vars", {str(i): a for i, a in enumerate(_optimizer_arrays(opt, model, where))}))
        names["optimizer/vars"] = opt.name
    return groups, names


def _refuse_unbuilt(model, what: str) -> None:
    if not isinstance(model, Layer):
        raise TypeError(f"{what} expects a descend model. Received: {type(model).__name__}")
    waiting = getattr(model, "restored_checkpoint", None)
    if getattr(model, "built", True) is False or (waiting is not None and waiting.pending):
        raise ValueError(f"{what}: model '{model.name}' is not built yet, so it has no weights to write or read. "
                         "Build it first: call it on data, call model.build(input_shape), or start a Sequential "
                         "model with keras.Input(shape)")


def _weight_name(v) -> str:
    """A variable's own name within its layer (``kernel``), for messages."""
    return re.sub(r"_\d+$", "", v.scoped_name.rsplit("/", 1)[-1])


def _loads_its_own_way(layer) -> bool:
    """Whether a layer's class overrides ``load_own_variables``: its hook then says what its group must hold
    (the default one's keys and shapes are checked here first, with every other layer's)."""
    return getattr(type(layer), "load_own_variables", None) is not Layer.load_own_variables


def _plan_weights(model, groups: dict, where: str, strict: bool, with_optimizer: bool):
    """Check the file's groups against the model (and its optimizer); returns the commit: it calls each layer's
    ``load_own_variables`` in Keras' order, then assigns the optimizer's state. Only a layer's own
    ``load_own_variables`` can fail there: every variable of the model is then put back as it was."""
    missing, unexpected, bad = [], [], []
    layers = keras_layout.model_layers(model)
    known = set()
    for path, la in layers:
        path = keras_layout.group_path(path)
        known.add(path)
        if _loads_its_own_way(la):
            continue
        variables = keras_layout.own_variables(la)
        arrays = groups.get(path, {})
        layer = path[:-len("/vars")] if path.endswith("/vars") else path
        layer = f"layer '{layer.rsplit('/', 1)[-1]}' ({layer})" if layer else f"model '{model.name}'"
        names = [str(i) for i in range(len(variables))]
        if set(arrays) - set(names):
            bad.append(f"{path}: the file holds {len(arrays)} weights {short(list(arrays), 200)}; {layer} has "
                       f"{len(variables)} (stored as {short(names, 100)})")
            continue
        if len(arrays) < len(variables):
            for i, v in enumerate(variables):
                if str(i) not in arrays:
                    missing.append(f"{path}/{i}: missing from the file; it is weight '{_weight_name(v)}' of {layer}, "
                                   f"shape {tuple(v.shape)} {v.dtype.name} (the file holds {len(arrays)} of its "
                                   f"{len(variables)} weights)")
            continue
        for i, v in enumerate(variables):
            arr = arrays[str(i)]
            if tuple(arr.shape) != tuple(v.shape) or arr.dtype != v.dtype.dtype:
                bad.append(f"{path}/{i}: the file holds shape {tuple(arr.shape)} {arr.dtype.name}; it is weight "
                           f"'{_weight_name(v)}' of {layer}, shape {tuple(v.shape)} {v.dtype.name}")
    opt_plan = None
    opt = _optimizer_of(model) if with_optimizer else None
    if opt is not None and "optimizer/vars" in groups:
        known.add("optimizer/vars")
        try:
            opt_plan = _plan_optimizer(opt, model, _numbered(groups["optimizer/vars"]), where, strict)
        except ValueError as e:
            bad.append(f"optimizer/vars: {short(str(e), 3000)}")
    elif opt is None:
        known.add("optimizer/vars")  # an uncompiled model takes no optimizer state (as Keras)
    for path, arrays in groups.items():
        if path not in known and arrays:
            unexpected.append(f"{path} ({len(arrays)} variables no layer of the model takes)")
    if bad or missing or (strict and unexpected):
        raise CheckpointMismatchError(mismatch_message(
            f"{where} does not match model '{model.name}'; nothing was loaded", missing, unexpected, bad),
            missing, unexpected, bad)

    stores = [(keras_layout.group_path(path), la) for path, la in layers]
    own_way = any(_loads_its_own_way(la) for _, la in layers)

    def commit():
        # a layer's own hook may fail half way: the values to put back (only then: they cost a copy of the model)
        before = [(v, v.numpy().copy()) for _, la in layers for v in keras_layout.own_variables(la)] if own_way else []
        for path, la in stores:
            try:
                la.load_own_variables(keras_hooks.LoadStore(path, groups.get(path, {}), where))
            except Exception as e:
                for v, value in before:
                    v.assign(value)
                text = str(e.args[0]) if isinstance(e, KeyError) and e.args else str(e)
                raise CheckpointMismatchError(
                    f"{where}: load_own_variables of layer '{la.name}' ({path}) failed, so nothing was loaded: "
                    f"{type(e).__name__}: {short(text, 1500)}", [], [], [f"{path}: {short(text, 300)}"]) from e
        if opt_plan is not None:
            opt_plan.commit()
    return commit


def _numbered(arrays: dict) -> list:
    """A group's datasets ``"0"``, ``"1"``, ... as a list (the optimizer's group: Keras numbers them)."""
    names = [str(i) for i in range(len(arrays))]
    if sorted(arrays) != sorted(names):
        raise ValueError(f"the group holds datasets {short(list(arrays), 200)}; Keras names an optimizer's "
                         "variables '0', '1', ...")
    return [arrays[k] for k in names]


def _plan_optimizer(opt, model, arrays: list, where: str, strict: bool):
    keras_layout.check_optimizer(opt, where)
    key = _var_key(model)
    trainable = list(model.trainable_weights)
    groups = keras_layout.optimizer_groups(opt)
    tail = keras_layout.optimizer_tail(opt)
    slots = sum(len(g) for g in groups) * len(trainable) + len(tail)
    n = len(arrays)
    if n in (1, 2) and slots:  # Keras' optimizer was not built: its step and learning rate only
        head, slots_there = n, False
    elif n - slots in (1, 2):
        head, slots_there = n - slots, True
    else:
        raise ValueError(f"the file's optimizer has {n} variables; {type(opt).__name__} '{opt.name}' of this model "
                         f"({len(trainable)} trainable variables) has {slots + 2} (iterations, learning rate and "
                         f"{slots} slots): a different optimizer or model")
    state = {k: v for k, v in opt.state_dict(var_key=key).items() if k.startswith("hyper:")}
    step = np.asarray(arrays[0])
    if step.shape != () or step.dtype.kind not in "iu":
        raise ValueError(f"the file's iterations (optimizer/vars/0) must be an integer scalar; found shape "
                         f"{step.shape} {step.dtype}")
    state["iterations"] = step.astype(np.int64)
    if head == 2 and _learning_rate(opt) is not None:
        lr = np.asarray(arrays[1])
        if lr.shape != () or lr.dtype.kind != "f":
            raise ValueError(f"the file's learning rate (optimizer/vars/1) must be a float scalar; found shape "
                             f"{lr.shape} {lr.dtype}")
        state["hyper:learning_rate"] = lr.astype(np.float64)
    if slots_there:
        i = head
        for group in groups:
            for v in trainable:
                for _attr, slot in group:
                    arr = np.asarray(arrays[i])
                    if arr.shape != tuple(v.shape) or arr.dtype != v.dtype.dtype:
                        raise ValueError(f"optimizer/vars/{i} (slot '{slot}' of '{v.name}') has shape {arr.shape} "
                                         f"{arr.dtype}; the variable has {tuple(v.shape)} {v.dtype.name}")
                    state[f"{key(v)}/{slot}"] = arr
                    i += 1
        for _attr, name in tail:
            state[name] = np.asarray(arrays[i])
            i += 1
    return opt.restore_plan(state, var_key=key, strict=strict)


def save_weights(model, path, overwrite: bool = True) -> None:
    """Write the model's (and a compiled model's optimizer's) variables to ``path`` (``.weights.h5``) in
    Keras 3's layout, atomically."""
    path = os.fspath(path)
    _refuse_unbuilt(model, "save_weights")
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"save_weights: '{path}' exists and overwrite=False")
    groups, names = _weight_groups(model, path, with_optimizer=True)
    buffer = io.BytesIO()
    keras_h5.write_groups(buffer, groups, names)
    _replace(path, buffer.getvalue())


def load_weights(model, path, strict: bool = True) -> None:
    """Assign the variables a ``.weights.h5`` file holds (Keras 3 wrote it, or descend) to the model and,
    when the model is compiled, its optimizer's state; everything is checked first, then all is assigned.
    With ``strict=False`` groups of the file that no layer takes are left out (Keras' ``skip_mismatch``
    leaves out mis-shaped ones too; descend refuses those)."""
    path = os.fspath(path)
    _refuse_unbuilt(model, "load_weights")
    if not os.path.lexists(path):
        raise FileNotFoundError(f"No weights file at '{path}'")
    groups = keras_h5.read_groups(path, path)
    _plan_weights(model, groups, path, strict, with_optimizer=True)()


def _replace(path: str, data: bytes) -> None:
    """Write the file ``path`` whole or not at all (never a folder or device in its place)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)) or ".", exist_ok=True)
    atomic_replace_file(path, data)


# ---------------------------------------------------------------------------------------------------------------
# .keras archives
# ---------------------------------------------------------------------------------------------------------------
#: optimizer options only descend has, with the value that means Keras' behaviour: left out of a
#: ``.keras`` file when they hold it (Keras would refuse the key), written otherwise (descend reads them)
_DESCEND_ONLY = ("on_nonfinite", "sparse_updates")


def _keras_optimizer_config(opt, serialized: dict) -> dict:
    inner = dict(serialized.get("config") or {})
    if inner.get("on_nonfinite") == "raise":
        del inner["on_nonfinite"]
    if "sparse_updates" in inner:
        try:
            fresh = type(opt).from_config({k: v for k, v in inner.items() if k not in _DESCEND_ONLY})
            if fresh.sparse_updates == inner["sparse_updates"]:
                del inner["sparse_updates"]
        except (TypeError, ValueError):
            pass
    return {**serialized, "config": inner}


def keras_compile_config(model) -> dict | None:
    """Keras 3's ``compile_config`` of a model (what ``Model.get_compile_config`` gives by default): the
    optimizer, loss and metrics it was compiled with; None when it was not compiled."""
    comp = compile_config(model)
    if comp is None:
        return None
    opt = getattr(model, "optimizer", None)
    optimizer = _keras_optimizer_config(opt, comp["optimizer"]) if opt is not None else comp["optimizer"]
    return {"optimizer": optimizer, "loss": comp["loss"], "loss_weights": None,
            "metrics": comp["metrics"] or None, "weighted_metrics": comp.get("weighted_metrics"), "run_eagerly": False,
            "steps_per_execution": 1, "jit_compile": False}


def _build_config(model) -> dict | None:
    shape = getattr(model, "_build_input_shape", None)
    if shape is None:
        return {"input_shape": None}
    return {"input_shape": list(shape)}


def save_model(model, path, overwrite: bool = True, include_optimizer: bool = True) -> None:
    """Write the ``.keras`` archive Keras 3 writes: config (with compile and build configs), metadata and
    weights (with the optimizer's state when ``include_optimizer`` and compiled), atomically."""
    path = os.fspath(path)
    _refuse_unbuilt(model, "model.save")
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"model.save: '{path}' exists and overwrite=False")
    config = serialize_keras_object(model)  # with the build_config of each layer (get_build_config)
    config["build_config"] = serialize_keras_object(model.get_build_config() or _build_config(model))
    comp = model.get_compile_config() if callable(getattr(model, "get_compile_config", None)) else None
    if comp:
        config["compile_config"] = serialize_keras_object(comp)
    groups, names = _weight_groups(model, path, with_optimizer=include_optimizer)
    weights = io.BytesIO()
    keras_h5.write_groups(weights, groups, names)
    with tempfile.TemporaryDirectory(prefix="descend-assets-") as root:
        for inner, layer in keras_layout.model_layers(model):
            if callable(getattr(layer, "save_assets", None)):
                folder = keras_hooks.asset_folder(root, inner)
                os.makedirs(folder, exist_ok=True)
                layer.save_assets(folder)
        assets = keras_hooks.collect_assets(root, f"model.save: '{path}'")
    from .. import __version__

    metadata = {"keras_version": KERAS_FORMAT_VERSION, "date_saved": datetime.datetime.now().strftime("%Y-%m-%d@%H:%M:%S"),
                "descend_version": __version__}
    archive = io.BytesIO()
    keras_zip.write_archive(archive, {keras_zip.METADATA: json.dumps(metadata).encode(),
                                      keras_zip.CONFIG: json.dumps(config).encode(),
                                      keras_zip.WEIGHTS: weights.getvalue(), **assets})
    _replace(path, archive.getvalue())


#: config keys Keras 3 writes that descend's classes do not take, with the value that means "not used":
#: dropped when they hold it (or when the test says the key is not used), refused naming the key otherwise
_KERAS_ONLY = {
    "quantization_config": None, "lora_rank": None, "lora_alpha": None, "lora_enabled": False,  # layers
    "input_axes": None, "output_axes": None,  # variance-scaling initializers
    "synchronized": False, "renorm": False, "renorm_clipping": None,  # BatchNormalization
    "renorm_momentum": lambda inner: not inner.get("renorm"),
    "rms_scaling": False,  # LayerNormalization
    "sliding_window": None, "use_gate": False,  # MultiHeadAttention
}


#: the base classes of users' layers and models (module, name): a subclass of these alone writes its own config
_BASES = {("descend.layers.base", "Layer"), ("descend.models.model", "Model"), ("descend.training.loop", "Trainer")}


def _unused(key: str, inner: dict) -> bool:
    rule = _KERAS_ONLY[key]
    return rule(inner) if callable(rule) else inner[key] == rule


def _builtin_config(found) -> bool:
    """Whether ``found`` writes the config of one of descend's built-in classes: it is one, or a user's subclass
    of one (a custom Dense inherits Dense's config, with the keys Keras' Dense adds), not of the base Layer."""
    bases = getattr(found, "__mro__", (found,))
    return any(getattr(c, "__module__", "").startswith("descend.")
               and (c.__module__, getattr(c, "__name__", "")) not in _BASES for c in bases)


def normalize_config(config, where: str):
    """A copy of a Keras 3 model config that descend's classes take: keys only Keras uses, at their
    neutral value, dropped (``quantization_config: null``, an initializer's ``input_axes: null``); a
    functional model's recorded ``training`` call argument dropped (Keras replaces it by the ``training``
    of each call, as descend then does). A Keras-only key with another value raises, naming it."""

    def walk_config(value, depth):
        if depth > 200:
            raise CheckpointCorruptedError(f"{where}: the config nests more than 200 levels", ["config"])
        if isinstance(value, list):
            return [walk_config(v, depth + 1) for v in value]
        if not isinstance(value, dict):
            return value
        out = {k: walk_config(v, depth + 1) for k, v in value.items()}
        inner = out.get("config")
        name = out.get("class_name")
        if isinstance(name, str) and isinstance(inner, dict) and not name.startswith("__"):
            found = resolve(name, None, out.get("module"))
            builtin = found is not None and _builtin_config(found)
            if builtin:
                for key in [k for k in inner if k in _KERAS_ONLY]:
                    if not _unused(key, inner):
                        raise CheckpointError(f"{where}: {name} {short(inner.get('name', ''), 100)} has {key}="
                                              f"{short(inner[key], 200)}, which descend does not support")
                for key in [k for k in inner if k in _KERAS_ONLY]:
                    del inner[key]
        nodes = out.get("inbound_nodes")
        if isinstance(nodes, list):
            for node in nodes:
                if isinstance(node, dict) and isinstance(node.get("kwargs"), dict):
                    node["kwargs"].pop("training", None)
        return out

    return walk_config(config, 0)


def _weights_budget(groups: dict) -> int:
    return sum(a.nbytes for path, arrays in groups.items() if not path.startswith("optimizer/") for a in arrays.values())


def _check_json_members(archive, path: str) -> None:
    """``config.json`` and ``metadata.json`` together may declare at most the archive's size in bytes (or
    :data:`JSON_FLOOR_BYTES`): parsed JSON costs up to some twenty times its text, so a config deflated a
    thousand times would cost twenty thousand times the archive. Checked before either is inflated."""
    declared = sum(archive.declared_size(m) for m in (keras_zip.CONFIG, keras_zip.METADATA) if archive.has(m))
    most = max(JSON_FLOOR_BYTES, archive.size)
    if declared > most:
        raise CheckpointCorruptedError(f"{path}: {keras_zip.CONFIG} and {keras_zip.METADATA} declare {declared} bytes; "
                                       f"an archive of {archive.size} bytes may hold at most {most} of them "
                                       "(refused before inflating them)", [keras_zip.CONFIG])


def _inflate_weights(archive, where: str):
    """The archive's weights file, inflated a chunk at a time into an anonymous temporary file (never whole
    in memory) and checked as it comes: its HDF5 signature and its superblock's end-of-file address from
    the first chunk, its size and CRC-32 at the end. Returns the file (at its start) and its size."""
    size = archive.declared_size(keras_zip.WEIGHTS)
    spool = tempfile.TemporaryFile()
    try:
        first = True
        for chunk in archive.chunks(keras_zip.WEIGHTS, MAX_WEIGHTS_BYTES, MAX_WEIGHTS_RATIO):
            if first:
                keras_h5.check_head(chunk[:keras_h5.HEAD_BYTES], size, where)
                first = False
            spool.write(chunk)
        if first:
            keras_h5.check_head(b"", size, where)
        spool.seek(0)
    except BaseException:
        spool.close()
        raise
    return spool, size


def load_model(path, custom_objects: dict | None = None, compile: bool = True, safe_mode: bool = True):
    """The model of a ``.keras`` archive (Keras 3 wrote it, or descend), compiled as it was saved (with
    ``compile=True``) and with its weights and optimizer state."""
    path = os.fspath(path)
    if not os.path.lexists(path):
        raise FileNotFoundError(f"No model file at '{path}' (a .keras archive)")
    with keras_zip.KerasArchive(path, path) as archive:
        _check_json_members(archive, path)
        meta_raw = archive.read(keras_zip.METADATA, MAX_CONFIG_BYTES) if archive.has(keras_zip.METADATA) else b"{}"
        config_raw = archive.read(keras_zip.CONFIG, MAX_CONFIG_BYTES)
        if not archive.has(keras_zip.WEIGHTS):
            raise CheckpointCorruptedError(f"{path}: has no {keras_zip.WEIGHTS} (descend reads the weights Keras "
                                           "writes in HDF5; archives with npz or sharded weights are not read)",
                                           [keras_zip.WEIGHTS])
        weights, weights_size = _inflate_weights(archive, f"{path}: {keras_zip.WEIGHTS}")
        assets = tempfile.TemporaryDirectory(prefix="descend-assets-")
        try:
            has_assets = keras_hooks.extract_assets(archive, path, assets.name)
        except BaseException:
            assets.cleanup()
            weights.close()
            raise
    with assets:
        return _load_archive(path, meta_raw, config_raw, weights, weights_size, assets.name if has_assets else None,
                             custom_objects, compile, safe_mode)


def _load_archive(path, meta_raw, config_raw, weights, weights_size, assets, custom_objects, compile, safe_mode):
    """The model of an archive whose members were read (and its assets copied into the folder ``assets``)."""
    where = f"{path}: {keras_zip.CONFIG}"
    metadata = parse_json(meta_raw, f"{path}: {keras_zip.METADATA}", "metadata")
    if not isinstance(metadata, dict):
        raise CheckpointCorruptedError(f"{path}: {keras_zip.METADATA} is not a JSON object", [keras_zip.METADATA])
    config = parse_json(config_raw, where, "model config")
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise CheckpointCorruptedError(f"{where}: not a model config (a JSON object with 'class_name')", ["config"])
    with weights:
        groups = keras_h5.read_groups(weights, f"{path}: {keras_zip.WEIGHTS}", weights_size)
    with extend_scope(dict(custom_objects or {})):  # a custom subclass of a built-in layer has its Keras-only keys
        config = normalize_config(config, where)

    weights_where = f"{path}: {keras_zip.WEIGHTS}"
    budget = _weights_budget(groups)
    try:
        model = _model_from_config(config, where, budget, custom_objects, safe_mode, compile)
    except CheckpointError as e:
        if _OVER_BUDGET not in str(e):
            raise
        # the config declares more weight bytes than the weights file holds: a weight missing from the file, or
        # smaller there, would be blamed on the config and the layer after it. Within a small multiple of the
        # file's bytes, build again and let the weights file's check name the weight; past it, the config it is
        try:
            model = _model_from_config(config, where, 2 * budget + (1 << 20), custom_objects, safe_mode, compile)
        except (CheckpointError, *REBUILD_ERRORS):
            raise e from None
        if model.built:
            try:
                _plan_weights(model, groups, weights_where, True, with_optimizer=bool(compile))
            except CheckpointMismatchError as found:
                raise found from None
        raise
    if not model.built:
        raise CheckpointError(f"{where}: the model is not built after its config (no build_config input shape): "
                              "descend cannot give it the file's weights")
    _plan_weights(model, groups, weights_where, True, with_optimizer=bool(compile))()
    if assets is not None:
        for inner, layer in keras_layout.model_layers(model):
            if callable(getattr(layer, "load_assets", None)):
                folder = keras_hooks.asset_folder(assets, inner)
                try:
                    layer.load_assets(folder if os.path.isdir(folder) else None)
                except Exception as e:
                    raise keras_hooks.load_error(path, layer, inner, e) from e
    return model


#: the words of the rebuild's refusal of a weight past the bytes the weights file holds
_OVER_BUDGET = "the saved state holds for this model"


def _model_from_config(config: dict, where: str, budget: int, custom_objects, safe_mode, compile):
    """The model a normalized ``config.json`` describes, built and compiled as it says, its weights within
    ``budget`` bytes."""
    with extend_scope(dict(custom_objects or {})), safe_mode_scope(bool(safe_mode)), \
            _rebuild.rebuilding(where, budget):
        try:
            model = build_object({k: v for k, v in config.items() if k in ("module", "class_name", "config",
                                                                           "registered_name")}, "layers", "model")
            if not is_model(model):
                raise CheckpointError(f"{where}: describes a {type(model).__name__}, not a model")
            build = config.get("build_config")
            if not model.built and isinstance(build, dict) and build.get("input_shape", build) is not None:
                model.build_from_config(build)
        except CheckpointError:
            raise
        except REBUILD_ERRORS as e:
            raise rebuild_error(where, "model", e) from e
        comp = config.get("compile_config")
        if compile and isinstance(comp, dict) and comp:  # Keras writes {} for a model it did not compile
            try:
                model.compile_from_config(comp)
            except CheckpointError as e:
                text = str(e)
                raise CheckpointError(text if text.startswith(where) else f"{where}: {text}") from e
            except REBUILD_ERRORS as e:
                raise rebuild_error(where, "compile arguments", e) from e
    return model


def compile_from_keras_config(model, comp: dict, where: str = "compile_config") -> None:
    """Compile ``model`` as Keras 3's ``compile_config`` says (``Model.compile_from_config``'s default)."""
    opt, loss, mets = compile_from(comp, where)
    model.compile(optimizer=opt, loss=loss, metrics=mets["metrics"], weighted_metrics=mets["weighted_metrics"] or None,
                  loss_weights=comp.get("loss_weights"))
