"""Optimizers (Keras 3's arithmetic; `convention=` gives TF 1's, PyTorch's or optax's), schedules and the Optimizer base class."""

from ..api.lazy import lazy_facade
from ..persistence.registry import public_names, register_builtins
from . import schedules
from .by_name import optimizer_class
from .optimizer import Optimizer
from .schedules import LearningRateSchedule

# each optimizer loads its module on first use (descend.api.lazy); the base class and the schedules are here
_LAZY = {  # submodule -> the names it defines (legacy, spellings: the submodules themselves)
    "accumulation": ("GradientAccumulator",),
    "adadelta": ("Adadelta",),
    "adafactor": ("Adafactor",),
    "adagrad": ("Adagrad",),
    "adagrad_decay": ("AdagradDecay",),
    "adam": ("Adam",),
    "adam_weight_decay": ("AdamWeightDecay",),
    "adamax": ("Adamax",),
    "adamw": ("AdamW",),
    "create": ("create_optimizer",),
    "ftrl": ("Ftrl",),
    "lamb": ("Lamb",),
    "legacy": (),
    "lion": ("Lion",),
    "loss_scale": ("LossScaleOptimizer",),
    "multi": ("MultiOptimizer",),
    "nadam": ("Nadam",),
    "optimizer_map": ("OptimizerMap",),
    "rmsprop": ("RMSprop",),
    "rule": ("Rule", "Slot", "StepState"),
    "schedule_free_adamw": ("ScheduleFreeAdamW",),
    "sgd": ("SGD",),
    "spellings": (),
}
__getattr__, __dir__, _LAZY_NAMES = lazy_facade(__name__, _LAZY)

__all__ = ["Optimizer", "LearningRateSchedule", "deserialize", "get", "legacy", "schedules", "serialize", "spellings",
           *_LAZY_NAMES]

register_builtins("optimizers", public_names(
    __name__, lambda obj: isinstance(obj, type) and hasattr(obj, "from_config")))  # what a config names


def _optimizer_types() -> tuple:
    """The classes ``get`` returns as they are: an Optimizer, a LossScaleOptimizer or a MultiOptimizer."""
    from .loss_scale import LossScaleOptimizer
    from .multi import MultiOptimizer

    return Optimizer, LossScaleOptimizer, MultiOptimizer


def get(identifier, **kwargs) -> Optimizer | None:
    """An optimizer from a name (``"adam"``), a config dict, or an optimizer object (an Optimizer, a
    LossScaleOptimizer or a MultiOptimizer, returned as is); None gives None (as Keras)."""
    if identifier is None:
        return None
    if isinstance(identifier, Optimizer) or isinstance(identifier, _optimizer_types()):
        return identifier
    if isinstance(identifier, dict):
        cls = optimizer_class(identifier.get("class_name"), _optimizer_types())
        return cls.from_config(identifier.get("config", {}))
    if isinstance(identifier, str):
        return optimizer_class(identifier)(**kwargs)
    raise TypeError(f"Expected an optimizer name, config or instance. Received: {identifier!r}")


def serialize(optimizer) -> dict:
    """An optimizer's config as Keras' ``optimizers.serialize``: ``{"class_name": ..., "config": ...}`` (its
    name included, so :func:`deserialize` gives an optimizer of the same name)."""
    if not isinstance(optimizer, _optimizer_types()):
        raise TypeError(f"serialize expects an optimizer. Received: {type(optimizer).__name__}")
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config: dict, custom_objects: dict | None = None) -> Optimizer:
    """The optimizer :func:`serialize` described (a built-in class, or one named in ``custom_objects``)."""
    if not isinstance(config, dict):
        raise TypeError(f"deserialize expects a {{'class_name', 'config'}} dict. Received: {type(config).__name__}")
    cls = (custom_objects or {}).get(config.get("class_name"))
    if cls is not None:
        return cls.from_config(config.get("config", {}))
    return get(config)
