"""``descend.keras``: Keras' namespace over descend's own modules, so ``tf.keras`` code ports.

Every name is descend's object itself, not a copy:
``ds.keras.layers.Dense is ds.layers.Dense``, ``ds.keras.optimizers`` *is*
:mod:`descend.optimizers` (with ``schedules``), ``ds.keras.saving`` *is* :mod:`descend.saving`, and ``import
descend.keras.layers`` gives the same module. Only ``backend``, ``utils``,
``ops`` (Keras 3's ``keras.ops``) and ``random`` (``keras.random``, with Keras 3's seeds) are modules of their own,
made of descend's functions.

Example:
    >>> import descend as ds
    >>> ds.keras.layers.Dense is ds.layers.Dense, ds.keras.Model is ds.Model
    (True, True)
    >>> from descend.keras.optimizers.schedules import ExponentialDecay
    >>> ExponentialDecay is ds.optimizers.schedules.ExponentialDecay
    True
"""

from __future__ import annotations

import sys

from .. import (
    activations,
    callbacks,
    constraints,
    initializers,
    layers,
    losses,
    metrics,
    mixed_precision,
    models,
    optimizers,
    regularizers,
    saving,
)
from ..config import device
from ..framework import name_scope
from ..framework.variable import KerasVariable as Variable
from ..initializers import Initializer
from ..layers import Input, Layer
from ..layers.input_spec import InputSpec
from ..layers.keras_tensor import KerasTensor
from ..losses import Loss
from ..metrics import Metric
from ..mixed_precision import DTypePolicy
from ..models import Model, Sequential
from ..optimizers import Optimizer
from ..regularizers import Regularizer
from ..optimizers import schedules as _schedules
from . import backend, ops, random, utils
from .ops import Operation  # Keras' keras.Operation: the base of the op classes (keras.ops.nn.Softmax...)
from . import config, dtype_policies, preprocessing, tree  # noqa: E402,I001 - issue 37
from ..composites.higher_order import recompute_grad as remat  # keras.remat: Keras' TF back end returns tf.recompute_grad(f)

__all__ = [
    "activations", "backend", "callbacks", "constraints", "initializers", "layers", "losses", "metrics",
    "mixed_precision", "models", "ops",
    "optimizers", "random", "regularizers", "saving", "utils", "Input", "Model", "Sequential", "Variable",
    "Layer", "Loss", "Metric", "InputSpec", "Initializer", "Regularizer", "Optimizer", "KerasTensor", "name_scope",
    "device", "version", "DTypePolicy", "FloatDTypePolicy",
    "config", "dtype_policies", "preprocessing", "tree", "remat", "Operation",
]

FloatDTypePolicy = DTypePolicy  # Keras 3's name for a policy of float dtypes


def version() -> str:
    """descend's version (``keras.version()`` gives Keras'; this is the library that runs the code)."""
    from .. import __version__

    return __version__

# ``import descend.keras.layers`` / ``from descend.keras.layers import Dense`` find descend's modules
for _name, _module in (("activations", activations), ("callbacks", callbacks), ("constraints", constraints),
                       ("initializers", initializers), ("layers", layers), ("losses", losses),
                       ("metrics", metrics), ("mixed_precision", mixed_precision), ("models", models),
                       ("optimizers", optimizers),
                       ("optimizers.schedules", _schedules), ("regularizers", regularizers), ("saving", saving)):
    sys.modules.setdefault(f"{__name__}.{_name}", _module)
del _name, _module


def __getattr__(name: str):
    if name == "__version__":  # as version(): a program that prints or checks keras.__version__ runs
        return version()
    from .._api_exclusions import refuse  # a name keras has and descend leaves out says why

    raise refuse("keras", name, __name__)
