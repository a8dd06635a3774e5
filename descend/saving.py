"""Model persistence: weights files, whole models (architecture + weights + optimizer), and
registration of custom classes by name. Nothing is pickled: architectures are JSON configs,
state goes through the checkpoint format (:mod:`descend.checkpoint`).

* ``model.save_weights(path)`` / ``model.load_weights(path)``: the model's state (weights and
  the state of layers such as Dropout's generator) as a checkpoint directory at ``path``
  (``tensors.safetensors`` + ``manifest.json``), keyed by path inside the model
  (``model/layers/0/kernel``), so any model of the same architecture loads it.
* ``model.save(path)`` / ``descend.models.load_model(path, custom_objects=...)``: a directory
  holding ``model.json`` (the class and ``get_config()`` of the model, the compile arguments:
  the optimizer's class and config, the loss, the metrics) and ``state/`` (a checkpoint of the
  model and, with ``include_optimizer=True``, the optimizer: a loaded model continues training
  exactly where the saved one stopped).
* Custom layers, models, losses, metrics and optimizers are found by name: pass
  ``custom_objects={"Name": cls}`` or decorate the class with :func:`register_serializable`.

Example:
    >>> import os, tempfile
    >>> import numpy as np
    >>> import descend as ds
    >>> model = ds.Sequential([ds.layers.Dense(2)])
    >>> _ = model.compile(optimizer="adam", loss="mse")
    >>> _ = model.fit(np.ones((4, 3)), np.ones((4, 2)), epochs=1, verbose=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "model")
    >>> model.save(path)
    >>> loaded = ds.models.load_model(path)
    >>> bool(np.array_equal(loaded.predict(np.ones((1, 3)), verbose=0), model.predict(np.ones((1, 3)), verbose=0)))
    True
"""

from __future__ import annotations

import inspect
import json
import os
import secrets
import shutil

from .checkpoint import Checkpoint, CheckpointCorruptedError, CheckpointError
from .checkpoint.errors import short
from .checkpoint.format import atomic_replace_file, fsync_dir, read_json_file, to_json
from .training.replica import replica_for

__all__ = [
    "register_serializable", "get_registered_object", "get_registered_name", "save_weights", "load_weights",
    "save_model", "load_model", "MODEL_FILE", "STATE_DIR",
]

MODEL_FILE = "model.json"
STATE_DIR = "state"
MODEL_FORMAT = "descend.model"
MODEL_VERSION = 1
_REGISTRY: dict[str, type] = {}


def register_serializable(package: str = "Custom", name: str | None = None):
    """A decorator registering a custom layer, model, loss (class or function), metric or optimizer under
    ``"<package>>Name"`` (Keras's ``register_keras_serializable``), so :func:`load_model` finds it
    without ``custom_objects``.

    Example:
        >>> import descend as ds
        >>> @ds.saving.register_serializable(package="demo")
        ... class Twice(ds.layers.Layer):
        ...     def call(self, x):
        ...         return x * 2
        >>> ds.saving.get_registered_name(Twice)
        'demo>Twice'
    """
    if not isinstance(package, str) or not package or ">" in package:
        raise ValueError(f"`package` must be a non-empty string without '>'. Received: package={package!r}")

    def decorate(cls):
        if not (inspect.isclass(cls) or inspect.isfunction(cls)):
            raise TypeError(f"register_serializable decorates classes and functions. Received: {cls!r}")
        key = f"{package}>{name or cls.__name__}"
        if key in _REGISTRY and _REGISTRY[key] is not cls:
            raise ValueError(f"'{key}' is already registered to {_REGISTRY[key]!r}")
        _REGISTRY[key] = cls
        cls._registered_name = key
        return cls
    return decorate


def get_registered_name(cls) -> str:
    """``"<package>>Name"`` for a registered class, else the class name."""
    cls = cls if inspect.isclass(cls) else type(cls)
    key = cls.__dict__.get("_registered_name")
    return key if key is not None and _REGISTRY.get(key) is cls else cls.__name__


def get_registered_object(name: str, custom_objects: dict | None = None, module=None):
    """The class ``name`` refers to: ``custom_objects`` first, then registered classes, then ``module``."""
    custom_objects = custom_objects or {}
    if name in custom_objects:
        return custom_objects[name]
    if name in _REGISTRY:
        return _REGISTRY[name]
    short_name = name.split(">")[-1]
    if short_name in custom_objects:
        return custom_objects[short_name]
    matches = [c for k, c in _REGISTRY.items() if k.split(">")[-1] == short_name]
    if len(matches) == 1:
        return matches[0]
    if module is not None:
        found = getattr(module, short_name, None)
        if inspect.isclass(found):
            return found
    return None


# ---------------------------------------------------------------------------------------------------------------
# weights
# ---------------------------------------------------------------------------------------------------------------
def _write_once(model, what: str, write, *, optimizer: bool) -> None:
    """``write()`` in one process, or on rank 0 alone when ``model`` trains under a strategy of several
    replicas (its state is the same on every rank): every rank returns once the file is in place, or
    raises rank 0's error. State that differs by rank (tables sharded over the ranks; with
    ``optimizer``, slots sharded by ``shard_optimizer_state``) cannot be written by one rank: refused on
    every rank, nothing written."""
    replica = replica_for(model)
    replica.refuse_unsharded_write(what, model, optimizer)
    replica.write_once(what, write)


def save_weights(model, path, overwrite: bool = True) -> None:
    """Write the model's state as a checkpoint directory at ``path`` (replaced atomically). Under a
    strategy of several replicas, rank 0 writes for every rank (see ``docs/distributed.md``)."""
    path = os.fspath(path)
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"save_weights: '{path}' exists and overwrite=False")
    _write_once(model, "save_weights", lambda: Checkpoint(model=model).write(path), optimizer=False)


def load_weights(model, path, strict: bool = True):
    """Restore the model's state from :func:`save_weights` output (matched by path; a model not
    built yet takes the values when its layers create their variables). Returns the RestoreReport."""
    return Checkpoint(model=model).read(os.fspath(path), strict=strict)


# ---------------------------------------------------------------------------------------------------------------
# whole models
# ---------------------------------------------------------------------------------------------------------------
def _describe(obj) -> dict:
    return {"class_name": type(obj).__name__, "registered_name": get_registered_name(obj),
            "config": to_json(obj.get_config(), f"{type(obj).__name__}.get_config()")}


def _compile_config(model) -> dict | None:
    if not getattr(model, "compiled", False):
        return None
    from . import losses, metrics

    out = {"optimizer": _describe(model.optimizer)}
    loss = model.loss
    if loss is None:
        out["loss"] = None
    else:
        fn = getattr(loss, "fn", None)
        if type(loss) is losses.LossFunctionWrapper and fn is not None:  # a plain function, by its name
            name = getattr(fn, "__name__", None)
            if losses.ALL_OBJECTS_DICT.get(name) is fn:
                out["loss"] = {"function": name}
            elif _REGISTRY.get(getattr(fn, "_registered_name", None)) is fn:
                out["loss"] = {"function": fn._registered_name}
            else:
                raise ValueError(f"model.save: the loss function {name!r} cannot be saved by name: register it "
                                 "with descend.saving.register_serializable or use a Loss class")
        else:
            out["loss"] = _describe(loss)
    out["metrics"] = [_describe(m) if isinstance(m, metrics.Metric) else m for m in model.compiled_metrics]
    return out


def save_model(model, path, overwrite: bool = True, include_optimizer: bool = True) -> None:
    """Write ``model.json`` and ``state/`` into the directory ``path`` (replaced atomically). Under a
    strategy of several replicas, rank 0 writes for every rank (see ``docs/distributed.md``)."""
    _write_once(model, "model.save", lambda: _save_model(model, path, overwrite, include_optimizer),
                optimizer=bool(include_optimizer and getattr(model, "compiled", False)))


def _save_model(model, path, overwrite, include_optimizer) -> None:
    path = os.fspath(path)
    if os.path.lexists(path):
        if not overwrite:
            raise FileExistsError(f"model.save: '{path}' exists and overwrite=False")
        if os.path.islink(path) or not os.path.isfile(os.path.join(path, MODEL_FILE)):
            raise FileExistsError(f"model.save: '{path}' exists and is not a saved descend model; refusing to "
                                  "replace it")
    spec = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "model": _describe(model),
            "compile": _compile_config(model),
            "include_optimizer": bool(include_optimizer and getattr(model, "compiled", False))}
    parent = os.path.dirname(os.path.abspath(path)) or "."
    os.makedirs(parent, exist_ok=True)
    tmp = os.path.join(parent, f".tmp-{os.path.basename(path)}-{secrets.token_hex(6)}")
    os.mkdir(tmp)
    try:
        roots = {"model": model}
        if spec["include_optimizer"]:
            roots["optimizer"] = model.optimizer
        Checkpoint(**roots).write(os.path.join(tmp, STATE_DIR))
        atomic_replace_file(os.path.join(tmp, MODEL_FILE), json.dumps(spec, indent=1, sort_keys=True).encode())
        fsync_dir(tmp)
        aside = None
        if os.path.lexists(path):
            aside = os.path.join(parent, f".tmp-old-{os.path.basename(path)}-{secrets.token_hex(6)}")
            os.rename(path, aside)
        os.rename(tmp, path)
        tmp = None
        fsync_dir(parent)
        if aside is not None:
            shutil.rmtree(aside, ignore_errors=True)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _field(spec, key, kind, mfile):
    value = spec.get(key) if isinstance(spec, dict) else None
    if not isinstance(value, kind):
        raise CheckpointCorruptedError(f"{mfile}: field '{key}' is missing or not a {kind.__name__} (found "
                                       f"{short(value)})", [key])
    return value


def _build(desc, custom_objects, module, what, mfile):
    if not isinstance(desc, dict) or not isinstance(desc.get("class_name"), str):
        raise CheckpointCorruptedError(f"{mfile}: the {what} entry must name a class; found {short(desc)}", [what])
    name = desc.get("registered_name") if isinstance(desc.get("registered_name"), str) else desc["class_name"]
    cls = get_registered_object(name, custom_objects, module)
    if cls is None:
        raise CheckpointError(f"{mfile}: unknown {what} class '{name}'; pass it in custom_objects={{'{name}': cls}} "
                              "or register it with descend.saving.register_serializable")
    config = desc.get("config") or {}
    if not isinstance(config, dict):
        raise CheckpointCorruptedError(f"{mfile}: the {what}'s config must be an object", [what])
    params = inspect.signature(cls.from_config).parameters
    try:
        return cls.from_config(config, custom_objects=custom_objects) if "custom_objects" in params else \
            cls.from_config(config)
    except (TypeError, ValueError, KeyError) as e:
        raise CheckpointError(f"{mfile}: cannot rebuild the {what} '{name}' from its config: "
                              f"{type(e).__name__}: {short(str(e), 300)}") from e


def load_model(path, custom_objects: dict | None = None, compile: bool = True):
    """The model :func:`save_model` wrote: rebuilt from its config, compiled as it was (with
    ``compile=True``), its state and its optimizer's state restored."""
    from . import layers, losses, metrics, models, optimizers

    path = os.fspath(path)
    mfile = os.path.join(path, MODEL_FILE)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"No saved model at '{path}' (expected a directory holding {MODEL_FILE})")
    spec = read_json_file(path, MODEL_FILE, "model description")
    if not isinstance(spec, dict) or spec.get("format") != MODEL_FORMAT:
        raise CheckpointCorruptedError(f"{mfile}: field 'format' is not {MODEL_FORMAT!r}", ["format"])
    custom = dict(custom_objects or {})
    lookup = dict(custom)
    for name in getattr(layers, "__all__", []):
        lookup.setdefault(name, getattr(layers, name))
    for key, cls in _REGISTRY.items():
        lookup.setdefault(key.split(">")[-1], cls)
    lookup.update(custom)
    model = _build(_field(spec, "model", dict, mfile), lookup, models, "model", mfile)
    roots = {"model": model}
    comp = spec.get("compile")
    if compile and isinstance(comp, dict):
        opt = _build(_field(comp, "optimizer", dict, mfile), custom, optimizers, "optimizer", mfile)
        loss_desc = comp.get("loss")
        if loss_desc is None:
            loss = None
        elif isinstance(loss_desc, dict) and isinstance(loss_desc.get("function"), str):
            fname = loss_desc["function"]
            loss = custom.get(fname) or custom.get(fname.split(">")[-1]) or _REGISTRY.get(fname) or losses.get(fname)
        else:
            loss = _build(loss_desc, custom, losses, "loss", mfile)
        mets = []
        for m in comp.get("metrics") or []:
            mets.append(m if isinstance(m, str) else _build(m, custom, metrics, "metric", mfile))
        model.compile(optimizer=opt, loss=loss, metrics=mets)
        if spec.get("include_optimizer"):
            roots["optimizer"] = opt
    ckpt = Checkpoint(**roots)
    ckpt.read(os.path.join(path, STATE_DIR), strict=bool(compile) or not spec.get("include_optimizer"))
    if ckpt.pending:
        model.keep_restored(ckpt)  # values wait for the variables a first call creates
    return model
