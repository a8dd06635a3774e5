"""Optimizers (Keras 3's arithmetic; `convention=` gives TF 1's, PyTorch's or optax's), schedules and the Optimizer base class."""

from ..persistence.registry import public_names, register_builtins
from . import legacy, schedules, spellings
from .accumulation import GradientAccumulator
from .adadelta import Adadelta
from .adafactor import Adafactor
from .adagrad import Adagrad
from .adagrad_decay import AdagradDecay
from .adam import Adam
from .adam_weight_decay import AdamWeightDecay
from .adamax import Adamax
from .adamw import AdamW
from .by_name import optimizer_class
from .create import create_optimizer
from .ftrl import Ftrl
from .lamb import Lamb
from .lion import Lion
from .loss_scale import LossScaleOptimizer
from .multi import MultiOptimizer
from .nadam import Nadam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .rule import Rule, Slot, StepState
from .schedules import LearningRateSchedule
from .sgd import SGD

__all__ = [
    "SGD", "Adadelta", "Adafactor", "Adagrad", "AdagradDecay", "Adam", "AdamW", "AdamWeightDecay", "Adamax", "Ftrl",
    "GradientAccumulator", "Lamb", "LearningRateSchedule", "Lion", "LossScaleOptimizer", "MultiOptimizer", "Nadam", "Optimizer",
    "RMSprop", "Rule", "Slot", "StepState", "create_optimizer", "deserialize", "get", "legacy", "schedules", "serialize",
    "spellings",
]

register_builtins("optimizers", public_names(
    __name__, lambda obj: isinstance(obj, type) and hasattr(obj, "from_config")))  # what a config names


def get(identifier, **kwargs) -> Optimizer | None:
    """An optimizer from a name (``"adam"``), a config dict, or an optimizer object (an Optimizer, a
    LossScaleOptimizer or a MultiOptimizer, returned as is); None gives None (as Keras)."""
    if identifier is None:
        return None
    if isinstance(identifier, (Optimizer, LossScaleOptimizer, MultiOptimizer)):
        return identifier
    if isinstance(identifier, dict):
        cls = optimizer_class(identifier.get("class_name"), (Optimizer, LossScaleOptimizer, MultiOptimizer))
        return cls.from_config(identifier.get("config", {}))
    if isinstance(identifier, str):
        return optimizer_class(identifier)(**kwargs)
    raise TypeError(f"Expected an optimizer name, config or instance. Received: {identifier!r}")


def serialize(optimizer) -> dict:
    """An optimizer's config as Keras' ``optimizers.serialize``: ``{"class_name": ..., "config": ...}`` (its
    name included, so :func:`deserialize` gives an optimizer of the same name)."""
    if not isinstance(optimizer, (Optimizer, LossScaleOptimizer, MultiOptimizer)):
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
from .schedule_free_adamw import ScheduleFreeAdamW  # noqa: E402

__all__ += ["ScheduleFreeAdamW"]
from .optimizer_map import OptimizerMap  # noqa: E402

__all__ += ["OptimizerMap"]
