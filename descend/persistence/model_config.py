"""A model's compile arguments in a config, and the errors of rebuilding a model from a file: what
descend's model format (:mod:`descend.saving`) and Keras' ``.keras`` archives
(:mod:`descend.persistence.keras_files`) share."""

from __future__ import annotations

from ..checkpoint import CheckpointError
from ..layers import _rebuild
from ..layers.base import Layer
from .checkpoint_errors import short
from .object_config import build_object, get_registered_name, get_registered_object, serialize_keras_object

__all__ = ["compile_config", "compile_from", "REBUILD_ERRORS", "rebuild_error", "is_model"]


def loss_function_config(fn) -> dict:
    from .. import losses

    name = getattr(fn, "__name__", None)
    if name is not None and losses.ALL_OBJECTS_DICT.get(name) is fn:
        return {"module": "builtins", "class_name": "function", "config": name, "registered_name": "function"}
    if name is not None and get_registered_object(get_registered_name(fn)) is fn:
        return {"module": "builtins", "class_name": "function", "config": get_registered_name(fn),
                "registered_name": "function"}
    raise ValueError(f"model.save: the loss function {name!r} cannot be saved by name: register it with "
                     "descend.saving.register_serializable or use a Loss class")


def compile_config(model) -> dict | None:
    if not getattr(model, "compiled", False):
        return None
    from .. import losses, metrics

    out = {"optimizer": serialize_keras_object(model.optimizer)}
    loss = model.loss
    if loss is None:
        out["loss"] = None
    elif type(loss) is losses.LossFunctionWrapper and getattr(loss, "fn", None) is not None:
        out["loss"] = loss_function_config(loss.fn)  # a plain function, by its name
    else:
        out["loss"] = serialize_keras_object(loss)
    listed = getattr(model.compiled_metrics, "unweighted", model.compiled_metrics)
    out["metrics"] = [serialize_keras_object(m) if isinstance(m, metrics.Metric) else m for m in listed]
    weighted = getattr(model.compiled_metrics, "weighted", [])
    if weighted:  # compile's weighted_metrics (the sample weights reach them alone)
        out["weighted_metrics"] = [serialize_keras_object(m) if isinstance(m, metrics.Metric) else m
                                   for m in weighted]
    return out


#: what rebuilding a config can raise besides CheckpointError: reported naming the file and the layer
REBUILD_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, LookupError, OverflowError,
                   RecursionError, MemoryError, NotImplementedError)


def rebuild_error(source: str, what: str, e: BaseException) -> CheckpointError:
    text = str(e) if not isinstance(e, KeyError) or not e.args else str(e.args[0])
    if text.startswith(f"{source}: "):  # a bound of descend.layers._rebuild: it names the file and the layer
        return CheckpointError(text)
    rb = _rebuild.current()
    at = f" at layer {rb.layer}" if rb is not None and rb.layer and what == "model" else ""
    if isinstance(e, MemoryError):
        detail = ("MemoryError: its declared sizes need more memory than this process can have (refused before "
                  "restoring anything)")
    else:
        detail = f"{type(e).__name__}: {text if len(text) <= 1500 else text[:1497] + '...'}"
    return CheckpointError(f"{source}: cannot rebuild the {what}{at}: {detail}")


def _optimizer_config(comp, mfile):
    value = comp.get("optimizer") if isinstance(comp, dict) else None
    if not isinstance(value, dict):
        raise CheckpointError(f"{mfile}: field 'optimizer' of the compile arguments is missing or not a config (found "
                              f"{short(value)})")
    return value


def compile_from(comp: dict, mfile: str):
    """(optimizer, loss, {"metrics": [...], "weighted_metrics": [...]}) of a saved model's ``compile`` entry."""
    from .. import losses
    from .object_config import find_function

    what = "optimizer"
    try:
        opt = build_object(_optimizer_config(comp, mfile), "optimizers", "optimizer")
        what = "loss"
        desc = comp.get("loss")
        if desc is None:
            loss = None
        elif isinstance(desc, str) or isinstance(desc, dict) and ("function" in desc or
                                                                    desc.get("class_name") == "function"):
            name = desc if isinstance(desc, str) else desc.get("function", desc.get("config"))
            loss = find_function(name, losses.ALL_OBJECTS_DICT)
            if loss is None and isinstance(name, str) and isinstance(desc, str):
                loss = losses.get(name)
            if loss is None:
                raise ValueError(f"unknown loss function {short(name)}: pass it in custom_objects or register it "
                                 "with descend.saving.register_serializable")
        elif isinstance(desc, dict):
            loss = build_object(desc, "losses", "loss")
        else:
            raise ValueError(f"the loss must be a name or a config; found {short(desc)}")
        mets = {}
        for what in ("metrics", "weighted_metrics"):
            found = comp.get(what) or []
            if not isinstance(found, list):
                raise ValueError(f"'{what}' must be a list; found {short(found)}")
            mets[what] = [m if isinstance(m, str) else build_object(m, "metrics", "metric") if isinstance(m, dict)
                          else _bad_metric(m) for m in found]
    except CheckpointError:
        raise
    except REBUILD_ERRORS as e:
        raise rebuild_error(mfile, what, e) from e
    return opt, loss, mets


def _bad_metric(m):
    raise ValueError(f"a metric must be a name or a config; found {short(m)}")


def is_model(obj) -> bool:
    """Whether a rebuilt object is a model (a layer that trains: ``compile`` and ``fit``)."""
    return isinstance(obj, Layer) and callable(getattr(obj, "compile", None)) and callable(getattr(obj, "fit", None))
