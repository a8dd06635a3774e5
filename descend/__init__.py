"""descend: TensorFlow's gradient and optimizer system on NumPy.

Example:
    >>> import descend as ds
    >>> w = ds.Variable([1.0, -2.0], name="w")
    >>> with ds.GradientTape() as tape:
    ...     loss = ds.reduce_sum(w * w)
    >>> tape.gradient(loss, w).numpy()
    array([ 2., -4.], dtype=float32)
"""

import importlib as _importlib

# eager: the core every program uses (ops installs the Tensor/Variable operators and hands the tape its
# gradient arithmetic); everything else loads on first use (PEP 562), so ``import descend`` costs the
# core alone: layers, optimizers, checkpoints, datasets, the CLI and the peers' libraries they use
# (numba, tqdm, matplotlib, safetensors, mpi4py) load when a program touches them
from . import backend, errors, framework, ops  # noqa: F401
from .backend import (
    DType,
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
    uint16,
    uint32,
    uint64,
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
from .framework import UnconnectedGradients, init_scope
from .persistence.registry import register_loader as _register_builtin_loader
from .ops import *  # noqa: F403

# TF's other names for these dtypes (``tf.bool``, ``tf.half``, ``tf.double``); ``bool`` stays out of ``__all__``
# so that ``from descend import *`` does not hide Python's bool
bool = bool_  # noqa: A001
half = float16
double = float64
realdiv = divide  # noqa: F405 - tf.realdiv: real division, as divide

from .api.top_level import LAZY_NAMES as _LAZY_NAMES  # (the names below load on first use)
from .api.top_level import PUBLIC as _PUBLIC
from .api.top_level import SUBMODULES as _SUBMODULES
from .backend import string  # noqa: E402 - string tensors: ``descend.string`` (TF's ``tf.string``)


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")  # the import sets the package attribute too
    target = _LAZY_NAMES.get(name)
    if target is None:  # a name TF has and descend leaves out says why (descend/api/exclusions.py)
        from ._api_exclusions import refuse

        raise refuse("tf", name, __name__)
    value = getattr(_importlib.import_module(f"{__name__}.{target[0]}"), target[1])
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))


# the built-in objects a config or a `get` may name register themselves where they are defined
# (descend.persistence.registry); their modules load lazily, so the first look-up of a kind imports them
def _builtin_loader(*modules):
    return lambda: [_importlib.import_module(f"{__name__}.{m}") for m in modules]


for _kind, _modules in {"layers": ("layers", "models", "distribute.sharded"), "activations": ("activations",),
                        "initializers": ("initializers",), "regularizers": ("regularizers",),
                        "constraints": ("constraints",), "losses": ("losses",), "metrics": ("metrics",),
                        "optimizers": ("optimizers",), "dtype_policies": ("mixed_precision",),
                        "random": ("keras.random",), "metric_functions": ("metrics",)}.items():
    _register_builtin_loader(_kind, _builtin_loader(*_modules))


__version__ = "0.1.0"

__all__ = [  # noqa: F405 - the core imported above, the names that load on first use, then the ops
    "backend", "errors", "ops", "as_dtype", "bool_", "float16", "float32", "float64", "floatx", "int8", "int16",
    "int32", "int64", "set_floatx", "uint8", "InvalidArgumentError", "NoGradientError", "GradientTape",
    "IndexedSlices", "Tensor", "Variable", "clear_session", "constant", "convert_to_tensor", "custom_gradient",
    "deduplicate", "name_scope", "DType", "half", "double", "uint16", "uint32", "uint64", "UnconnectedGradients",
    "init_scope", "realdiv", "string",
] + _PUBLIC + list(ops.__all__)
