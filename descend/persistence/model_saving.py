"""Saving and loading models, the implementation of :mod:`descend.saving`: weights files, whole models
(architecture + weights + optimizer), and registration of custom classes by name. Nothing is pickled:
architectures are JSON configs.

The path's suffix says which file: ``.keras`` and ``.weights.h5`` are Keras 3's own formats
(:mod:`descend.persistence.keras_files`: Keras reads what descend writes and the other way round); any other path
is descend's directory format, whose state goes through the checkpoint format
(:mod:`descend.checkpoint`) and which also holds what Keras' files cannot (state of layers such as
Dropout's generator, tables sharded over the ranks of a strategy). Keras 2's legacy ``.h5`` files are
refused. ``load_weights`` also reads TensorFlow checkpoints (Keras 2's TF-format ``save_weights``).

* ``model.save_weights(path)`` / ``model.load_weights(path)``: the model's state; in descend's format
  a checkpoint directory at ``path`` (``tensors.safetensors`` + ``manifest.json``), keyed by path
  inside the model (``model/layers/0/kernel``), so any model of the same architecture loads it.
* ``model.save(path)`` / ``descend.models.load_model(path, custom_objects=...)``: in descend's format
  a directory
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

import json
import os
import shutil

from ..layers import _rebuild
from ..training.replica import replica_for
from . import keras_files
from .bounded_read import parse_json
from .checkpoint import collective
from .checkpoint.checkpoint import Checkpoint
from .checkpoint.trackable import WithoutOptimizer
from .checkpoint.descend_format import MANIFEST_FILE, MAX_MANIFEST_BYTES, SHARD_RE, check_manifest, read_json_file
from .checkpoint_errors import CheckpointCorruptedError, CheckpointError, CheckpointMismatchError, short
from .durable import atomic_replace_file, clear_leftovers, naming_target, replace_dir, temp_dir
from .model_config import REBUILD_ERRORS, compile_config, compile_from, is_model, rebuild_error
from .object_config import (
    CustomObjectScope,
    build_object,
    custom_object_scope,
    deserialize_keras_object,
    extend_scope,
    get_custom_objects,
    get_registered_name,
    get_registered_object,
    register_serializable,
    safe_mode_scope,
    serialize_keras_object,
)

__all__ = [
    "register_serializable", "register_keras_serializable", "get_custom_objects", "custom_object_scope",
    "CustomObjectScope", "get_registered_object", "get_registered_name", "serialize_keras_object",
    "deserialize_keras_object", "save_weights", "load_weights", "save_model", "load_model", "model_from_json",
    "MODEL_FILE", "STATE_DIR", "MAX_CONFIG_BYTES", "MAX_PROBE_BYTES",
]

MODEL_FILE = "model.json"
STATE_DIR = "state"
MODEL_FORMAT = "descend.model"
#: 2: configs in Keras 3's format (``module``/``registered_name``, dtype policies, ``build_input_shape``);
#: 1 is still read
MODEL_VERSION = 2
#: the largest model.json (or to_json string) read, in bytes
MAX_CONFIG_BYTES = MAX_MANIFEST_BYTES

#: the largest zero-filled probe tensor (bytes) run through a layer while a model is rebuilt from a file
MAX_PROBE_BYTES = _rebuild.MAX_PROBE_BYTES

#: Keras' name for :func:`register_serializable` (the same function: one registry)
register_keras_serializable = register_serializable


# ---------------------------------------------------------------------------------------------------------------
# weights
# ---------------------------------------------------------------------------------------------------------------
def save_weights(model, path, overwrite: bool = True) -> None:
    """Write the model's state to ``path``: a path ending ``.weights.h5`` gets Keras 3's weights file
    (:mod:`descend.persistence.keras_files`: Keras reads it), any other path descend's checkpoint directory (replaced
    atomically). Under a strategy of several replicas every rank calls it: rank 0 writes the state every
    replica holds alike, and each rank its rows of tables sharded over the ranks (see
    ``docs/distributed.md``; descend's directory only)."""
    path = os.fspath(path)
    kind = _kind_of_path(path, "save_weights")
    if not overwrite and os.path.lexists(path):
        raise FileExistsError(f"save_weights: '{path}' exists and overwrite=False")
    _refuse_unbuilt(model, "save_weights")
    ckpt = Checkpoint(model=WithoutOptimizer(model))  # weights only: a model compiled otherwise reads them
    if kind == "weights.h5":
        if ckpt.collective_group() is not None:
            raise ValueError(f"save_weights: '{path}' is a Keras weights file, which cannot hold tables sharded over "
                             "the ranks of a strategy; save to a descend checkpoint directory (a path without "
                             "the .weights.h5 suffix)")
        replica_for(model).write_once("save_weights", lambda: keras_files.save_weights(model, path, overwrite),
                                      path)
        return
    with naming_target(path):
        if ckpt.collective_group() is not None:  # every rank writes its part
            ckpt.write(path)
        else:  # the same on every replica: rank 0 writes, every rank returns once it is in place
            replica_for(model).write_once("save_weights", lambda: ckpt.write(path), path)


def _kind_of_path(path: str, what: str, reading: bool = False) -> str:
    """Which file a path names, by its suffix: ``"keras"`` (a ``.keras`` archive), ``"weights.h5"``
    (Keras' ``.weights.h5``) or ``"descend"`` (descend's directory; when reading, any existing directory:
    an older descend wrote its directories under any name). Keras 2's legacy ``.h5``/``.hdf5`` files are
    refused."""
    if reading and os.path.isdir(path):
        return "descend"
    low = path.lower()
    if low.endswith(keras_files.WEIGHTS_SUFFIX):
        return "weights.h5"
    if low.endswith(keras_files.KERAS_SUFFIX):
        return "keras"
    if low.endswith((".h5", ".hdf5")):
        raise ValueError(f"{what}: '{path}' names Keras 2's legacy HDF5 format, which descend does not read or "
                         "write. Use a '.keras' path (model.save) or a '.weights.h5' path (save_weights), Keras 3's "
                         "formats")
    return "descend"


def _refuse_unbuilt(model, what: str) -> None:
    """A model whose weights do not exist yet, or wait for a first call to take restored values,
    would be written without them: refused (Keras refuses an unbuilt model too)."""
    waiting = getattr(model, "restored_checkpoint", None)
    if waiting is not None and waiting.pending:
        raise ValueError(f"{what}: model '{model.name}' holds restored weights that wait for its first call "
                         f"({len(waiting.pending)} values, e.g. {waiting.pending[0]}); writing it now would lose them. "
                         "Call the model on data (or build it) first")
    if getattr(model, "built", True) is False:
        raise ValueError(f"{what}: model '{model.name}' is not built yet, so it has no weights to write. Build it "
                         "first: call it on data, call model.build(input_shape), or start a Sequential model with "
                         "keras.Input(shape)")


def load_weights(model, path, strict: bool = True):
    """Restore the model's state, by the file at ``path``: a ``.weights.h5`` file (Keras 3 wrote it, or
    descend; a compiled model's optimizer state too), a TensorFlow checkpoint prefix (``path.index``
    exists: Keras 2's ``save_weights`` in TF format, matched by structure), or descend's checkpoint
    directory (matched by path: a model not built yet takes the values when its layers create their
    variables, and a value of another shape then fails every call and nothing is restored). Returns the
    RestoreReport of a checkpoint (None for a ``.weights.h5`` file)."""
    path = os.fspath(path)
    if _kind_of_path(path, "load_weights", reading=True) == "weights.h5":
        keras_files.load_weights(model, path, strict=strict)
        return None
    ckpt = Checkpoint(model=WithoutOptimizer(model))
    report = ckpt.read(path, strict=strict)
    if ckpt.pending:
        model.keep_restored(ckpt)  # kept alive until the first call creates the variables
    return report


# ---------------------------------------------------------------------------------------------------------------
# whole models
# ---------------------------------------------------------------------------------------------------------------
def save_model(model, path, overwrite: bool = True, include_optimizer: bool = True) -> None:
    """Write the model: a path ending ``.keras`` gets Keras 3's archive (:mod:`descend.persistence.keras_files`: Keras
    loads it), any other path descend's directory of ``model.json`` and ``state/`` (replaced atomically).
    Under a strategy of several replicas every rank calls it: rank 0 writes ``model.json`` and the state
    every replica holds alike, each rank its rows of tables sharded over the ranks (see
    ``docs/distributed.md``; descend's directory only)."""
    path = os.fspath(path)
    if _kind_of_path(path, "model.save") in ("keras", "weights.h5"):
        if path.lower().endswith(keras_files.WEIGHTS_SUFFIX):
            raise ValueError(f"model.save: '{path}' names a weights file; use model.save_weights for it, or a "
                             "'.keras' path for the whole model")
        if Checkpoint(model=model).collective_group() is not None:
            raise ValueError(f"model.save: '{path}' is a Keras archive, which cannot hold tables sharded over the "
                             "ranks of a strategy; save to a descend directory (a path without the .keras suffix)")
        replica_for(model).write_once("model.save", lambda: keras_files.save_model(
            model, path, overwrite=overwrite, include_optimizer=include_optimizer), path)
        return
    waiting = getattr(model, "restored_checkpoint", None)
    if waiting is not None and waiting.pending:
        _refuse_unbuilt(model, "model.save")
    path = os.fspath(path)
    if os.path.lexists(path):
        if not overwrite:
            raise FileExistsError(f"model.save: '{path}' exists and overwrite=False")
        if os.path.islink(path) or not os.path.isfile(os.path.join(path, MODEL_FILE)):
            raise FileExistsError(f"model.save: '{path}' exists and is not a saved descend model; refusing to "
                                  "replace it")
    spec = {"format": MODEL_FORMAT, "version": MODEL_VERSION, "model": serialize_keras_object(model),
            "compile": compile_config(model),
            "include_optimizer": bool(include_optimizer and getattr(model, "compiled", False))}
    text = json.dumps(spec, indent=1, sort_keys=True).encode()
    roots: dict = {"model": WithoutOptimizer(model)}  # its optimizer a root of its own, or not saved
    if spec["include_optimizer"]:
        roots["optimizer"] = model.optimizer
    ckpt = Checkpoint(**roots)
    group = ckpt.collective_group()  # state that differs by rank: every rank writes its part
    if group is None:  # the same on every replica: rank 0 writes, every rank returns once it is in place
        replica_for(model).write_once("model.save", lambda: _save_model(ckpt, path, text, None), path)
        return
    _save_model(ckpt, path, text, group)


def _save_model(ckpt, path, text, group) -> None:
    """Write ``state/`` (the checkpoint; with ``group``, every rank its part) and ``model.json`` (the chief)
    into a new directory, then rename it into place."""
    if group is not None:  # every rank names the same model folder, or none writes
        collective.agree(group, f"model.save('{path}') on {group.size} ranks", os.path.abspath(path))
    chief = group is None or group.rank == 0
    parent = os.path.dirname(os.path.abspath(path)) or "."
    tmp, held, error = None, None, None
    if chief:
        try:
            with naming_target(path):
                os.makedirs(parent, exist_ok=True)
                clear_leftovers(path)  # what killed saves of this model left beside it
                held = temp_dir(path)  # locked while written: a later save tells it from a dead one's
            tmp = held.path
        except OSError as e:
            error = f"{type(e).__name__}: {e}"
    if group is not None:
        tmp, error = group.allgather_object((tmp, error) if chief else None)[0]
    if error is not None:
        raise OSError(f"model.save: cannot write '{path}': {error}")
    try:
        with naming_target(path):
            ckpt.write(os.path.join(tmp, STATE_DIR))  # collective under a strategy: every rank has its part in it
            if chief:
                atomic_replace_file(os.path.join(tmp, MODEL_FILE), text)
                finished, tmp = tmp, None
                replace_dir(finished, path)  # removes the folder itself on a failure
    except Exception as e:
        error = f"{type(e).__name__}: {e}"
        if group is None:
            raise
    finally:
        if chief and tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
        if held is not None:
            held.release()
    if group is not None:  # every rank returns once the model is in place, or raises the first rank's error
        errors = group.allgather_object(error)
        first = next((e for e in errors if e is not None), None)
        if first is not None:
            raise OSError(f"model.save: writing '{path}' failed: {first}")


def _field(spec, key, kind, mfile):
    value = spec.get(key) if isinstance(spec, dict) else None
    if not isinstance(value, kind):
        raise CheckpointCorruptedError(f"{mfile}: field '{key}' is missing or not a {kind.__name__} (found "
                                       f"{short(value)})", [key])
    return value


def _model_bytes(path: str) -> int:
    """The bytes of the model's tensors in the saved state: what rebuilding its layers may allocate."""
    state = os.path.join(path, STATE_DIR)
    manifest = read_json_file(state, MANIFEST_FILE, "manifest")
    check_manifest(manifest, os.path.join(state, MANIFEST_FILE))
    manifests = [manifest]
    shards = manifest.get("shards")  # written by several ranks: each shard holds its rows of sharded tables
    for entry in shards if isinstance(shards, list) else ():
        name = entry.get("dir") if isinstance(entry, dict) else None
        if isinstance(name, str) and SHARD_RE.match(name):
            shard = os.path.join(state, name)
            part = read_json_file(shard, MANIFEST_FILE, "manifest")
            check_manifest(part, os.path.join(shard, MANIFEST_FILE))
            manifests.append(part)
    total = 0
    for m in manifests:
        for key, spec in m["tensors"].items():
            if key.startswith("model/"):
                n = int(_dtype_size(spec["dtype"]))
                for d in spec["shape"]:
                    n *= d
                total += n
    return total


def _dtype_size(name: str) -> int:
    import numpy as np

    return np.dtype(name).itemsize


def _check_version(spec, mfile: str) -> None:
    if not isinstance(spec, dict) or spec.get("format") != MODEL_FORMAT:
        raise CheckpointCorruptedError(f"{mfile}: field 'format' is not {MODEL_FORMAT!r}", ["format"])
    version = spec.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise CheckpointCorruptedError(f"{mfile}: field 'version' must be a positive integer; found {short(version)}",
                                       ["version"])
    if version > MODEL_VERSION:
        raise CheckpointError(f"{mfile}: written in model format version {version}; this descend reads versions 1 "
                              f"to {MODEL_VERSION}. Upgrade descend to load it")


def _check_model_dir(path: str) -> None:
    """A folder :func:`save_model` wrote: ``model.json`` and ``state/``, both inside it (a ``state`` that is a
    symbolic link would read weights from elsewhere: refused)."""
    where = f"load_model: '{path}'"
    if not os.path.lexists(os.path.join(path, MODEL_FILE)):
        names = sorted(os.listdir(path))[:5]
        if names == [] or not os.path.lexists(os.path.join(path, STATE_DIR)):
            held = "is empty" if not names else f"holds {', '.join(names)}{', ...' if len(names) == 5 else ''}"
            raise FileNotFoundError(f"{where} is not a saved model: the folder {held}, but a model saved by "
                                    f"model.save holds {MODEL_FILE} and {STATE_DIR}/ (a checkpoint or weights "
                                    "folder is read by model.load_weights or train.Checkpoint.restore)")
        raise CheckpointCorruptedError(f"{where}: holds {STATE_DIR}/ but no {MODEL_FILE} (the model's description); "
                                       "the saved model is incomplete", [MODEL_FILE])
    state = os.path.join(path, STATE_DIR)
    if os.path.islink(state):
        raise CheckpointCorruptedError(f"{where}: {STATE_DIR} is a symbolic link (to {os.readlink(state)}), not the "
                                       f"folder model.save writes; refusing to read weights from outside the saved "
                                       "model", [STATE_DIR])
    if not os.path.isdir(state):
        what = "is missing" if not os.path.lexists(state) else "is not a folder"
        raise CheckpointCorruptedError(f"{where}: its {STATE_DIR}/ folder (the model's weights) {what}; the saved "
                                       "model is incomplete", [STATE_DIR])


def load_model(path, custom_objects: dict | None = None, compile: bool = True, safe_mode: bool = True):
    """The model :func:`save_model` wrote: rebuilt from its config, compiled as it was (with
    ``compile=True``), its state and its optimizer's state restored.

    Reading a file trusts nothing in it:

    * class and function names resolve only to ``custom_objects``, an active ``custom_object_scope``,
      registered objects and descend's built-ins (never an import); a ``lambda``'s bytecode only with
      ``safe_mode=False`` (your own models only);
    * ``model.json`` is read only up to :data:`MAX_CONFIG_BYTES` and 64 levels of nesting; the weights its
      layers declare may not exceed what ``state/`` holds for the model, and probe tensors are bounded
      (:mod:`descend.layers._rebuild`): a hostile size is refused, naming the file and the layer, before it is
      allocated;
    * a model whose config does not match its saved state (a layer added or dropped) is refused, with
      nothing restored;
    * a folder without ``model.json`` or ``state/``, or whose ``state`` is a symbolic link, is refused,
      naming what is missing.
    """
    path = os.fspath(path)
    kind = _kind_of_path(path, "load_model", reading=True)
    if kind == "weights.h5":
        raise ValueError(f"load_model: '{path}' is a weights file; build the model and call "
                         "model.load_weights on it, or load a '.keras' archive")
    if kind == "keras":
        return keras_files.load_model(path, custom_objects=custom_objects, compile=compile, safe_mode=safe_mode)
    mfile = os.path.join(path, MODEL_FILE)
    if not os.path.isdir(path):
        raise FileNotFoundError(f"No saved model at '{path}' (expected a directory holding {MODEL_FILE})")
    _check_model_dir(path)
    spec = read_json_file(path, MODEL_FILE, "model description", limit=MAX_CONFIG_BYTES)
    _check_version(spec, mfile)
    desc = _field(spec, "model", dict, mfile)
    budget = _model_bytes(path)
    custom = dict(custom_objects or {})
    with extend_scope(custom), safe_mode_scope(bool(safe_mode)), _rebuild.rebuilding(mfile, budget):
        try:
            model = build_object(desc, "layers", "model")
        except CheckpointError:
            raise
        except REBUILD_ERRORS as e:
            raise rebuild_error(mfile, "model", e) from e
        if not is_model(model):
            raise CheckpointError(f"{mfile}: the 'model' entry describes a {type(model).__name__}, not a model")
        roots: dict = {"model": WithoutOptimizer(model)}
        comp = spec.get("compile")
        if compile and isinstance(comp, dict):
            opt, loss, mets = compile_from(comp, mfile)
            try:
                model.compile(optimizer=opt, loss=loss, metrics=mets["metrics"],
                              weighted_metrics=mets["weighted_metrics"] or None)
            except REBUILD_ERRORS as e:
                raise rebuild_error(mfile, "compile arguments", e) from e
            if spec.get("include_optimizer"):
                roots["optimizer"] = opt
    state = os.path.join(path, STATE_DIR)
    ckpt = Checkpoint(**roots)
    try:
        ckpt.read(state, strict=bool(compile) or not spec.get("include_optimizer"))
    except CheckpointMismatchError as e:
        raise CheckpointMismatchError(f"{mfile} describes a model that does not match its saved state (a layer "
                                      f"added, dropped or resized?); nothing was restored.\n{e}", e.missing,
                                      e.unexpected, e.mismatched) from None
    if ckpt.pending:
        model.keep_restored(ckpt)  # values wait for the variables a first call creates
    return model


def model_from_json(json_string, custom_objects: dict | None = None, safe_mode: bool = True):
    """The model a :meth:`~descend.Model.to_json` string describes, with new weights (see
    :func:`descend.models.model_from_json`)."""
    raw = json_string.encode("utf-8") if isinstance(json_string, str) else json_string
    if not isinstance(raw, (bytes, bytearray)):
        raise TypeError(f"model_from_json expects a JSON string. Received: {type(json_string).__name__}")
    where = "model_from_json"
    if len(raw) > MAX_CONFIG_BYTES:
        raise ValueError(f"{where}: the JSON has {len(raw)} bytes; at most {MAX_CONFIG_BYTES} are read")
    config = parse_json(bytes(raw), where, "model JSON")
    if not isinstance(config, dict):
        raise ValueError(f"{where}: the JSON is not a model config (a JSON {type(config).__name__})")
    with extend_scope(custom_objects), safe_mode_scope(bool(safe_mode)), _rebuild.rebuilding(where, None):
        try:
            model = build_object(config, "layers", "model")
        except CheckpointError:
            raise
        except MemoryError as e:
            raise rebuild_error(where, "model", e) from None
    if not is_model(model):
        raise ValueError(f"{where}: the JSON describes a {type(model).__name__}, not a model")
    return model
