"""Optimizers (Keras 3's arithmetic; `convention=` gives TF 1's, PyTorch's or optax's), schedules and the Optimizer base class."""

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
    "RMSprop", "Rule", "Slot", "StepState", "create_optimizer", "get", "legacy", "schedules", "spellings",
]

_BY_NAME = {c.__name__.lower(): c for c in (SGD, Adadelta, Adafactor, Adagrad, AdagradDecay, Adam, AdamW,
                                            AdamWeightDecay, Adamax, Ftrl, Lamb, Lion,
                                            Nadam, RMSprop)}


def get(identifier, **kwargs) -> Optimizer | None:
    """An optimizer from a name (``"adam"``), a config dict, or an optimizer object (an Optimizer, a
    LossScaleOptimizer or a MultiOptimizer, returned as is); None gives None (as Keras)."""
    if identifier is None:
        return None
    if isinstance(identifier, (Optimizer, LossScaleOptimizer, MultiOptimizer)):
        return identifier
    if isinstance(identifier, dict):
        if identifier.get("class_name") == "LossScaleOptimizer":  # Keras' config of the wrapper
            return LossScaleOptimizer.from_config(identifier.get("config", {}))
        cls = _BY_NAME.get(identifier.get("class_name", "").lower())
        if cls is None:
            raise ValueError(f"Unknown optimizer {identifier.get('class_name')!r}. Known: {sorted(_BY_NAME)}")
        return cls.from_config(identifier.get("config", {}))
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Unknown optimizer {identifier!r}. Known: {sorted(_BY_NAME)}")
        return cls(**kwargs)
    raise TypeError(f"Expected an optimizer name, config or instance. Received: {identifier!r}")
