"""descend: TensorFlow's gradient and optimizer system on NumPy.

Example:
    >>> import descend as ds
    >>> w = ds.Variable([1.0, -2.0], name="w")
    >>> with ds.GradientTape() as tape:
    ...     loss = ds.reduce_sum(w * w)
    >>> tape.gradient(loss, w).numpy()
    array([ 2., -4.], dtype=float32)
"""

from . import (  # ops installs the Tensor/Variable operators
    activations,
    backend,
    callbacks,
    checkpoint,
    compat,
    config,
    constraints,
    data,
    datasets,
    debugging,
    distribute,
    errors,
    initializers,
    keras,
    layers,
    linalg,
    losses,
    math,
    metrics,
    mixed_precision,
    models,
    nn,
    ops,
    optimizers,
    random,
    regularizers,
    saving,
    testing,
    train,
)
from .backend import (
    as_dtype,
    bool_,
    float16,
    float32,
    float64,
    floatx,
    int8,
    int16,
    int32,
    int64,
    set_floatx,
    uint8,
)
from .errors import InvalidArgumentError, NoGradientError
from .framework import (
    GradientTape,
    IndexedSlices,
    Tensor,
    Variable,
    clear_session,
    constant,
    convert_to_tensor,
    custom_gradient,
    deduplicate,
    name_scope,
)
from .framework.function import function
from .linalg import eye
from .models import Model, Sequential
from .ops import *  # noqa: F403
from .optimizers.accumulation import GradientAccumulator
from .printing import print  # noqa: A004
from .tensor_spec import TensorSpec

__version__ = "0.1.0"

__all__ = [
    "Model", "Sequential", "activations", "constraints", "initializers", "layers", "models", "regularizers",
    "backend", "callbacks", "checkpoint", "compat", "data", "datasets", "debugging", "distribute", "errors", "function", "losses",
    "metrics", "mixed_precision", "nn", "ops", "optimizers", "saving", "testing", "train", "as_dtype", "bool_", "float16", "float32",
    "float64",
    "floatx", "int8", "int16", "int32", "int64", "set_floatx", "uint8", "InvalidArgumentError",
    "NoGradientError", "GradientAccumulator", "GradientTape", "IndexedSlices", "Tensor", "Variable", "clear_session",
    "constant", "convert_to_tensor", "custom_gradient", "deduplicate", "name_scope",
    "config", "keras", "linalg", "math", "print", "random", "TensorSpec", "eye",
] + list(ops.__all__)
