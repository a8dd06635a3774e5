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

from .api.lazy import lazy_facade as _lazy_facade
from .backend import string  # noqa: E402 - string tensors: ``descend.string`` (TF's ``tf.string``)

# the names that load on first use (descend.api.lazy): module -> the names it defines, or (name, attribute)
_LAZY = {
    "models": ("Model", "Sequential"),
    "optimizers.accumulation": ("GradientAccumulator",),
    "linalg": ("eye", "tensordot", ("matrix_square_root", "sqrtm")),
    "printing": ("print",),
    "tensor_spec": ("TensorSpec", "type_spec_from_value"),
    "framework.module": ("Module",),
    "compiler": ("function", "cond", "while_loop"),
    "config": ("device",),
    "ops.tensor_array": ("TensorArray",),
    "ops.script_ops": ("py_function", "numpy_function"),
    "ops.nn_ops": ("sigmoid",),
    "math": ("truncatediv", "truncatemod", "scalar_mul"),
    "initializers": (("constant_initializer", "Constant"), ("ones_initializer", "Ones"),
                     ("zeros_initializer", "Zeros"), ("random_normal_initializer", "RandomNormal"),
                     ("random_uniform_initializer", "RandomUniform")),
    "composites.higher_order": (
        "map_fn", "foldl", "foldr", "scan", "vectorized_map", "switch_case", "case", "Assert", "assert_equal",
        "assert_greater", "assert_less", "assert_rank", "executing_eagerly", "inside_function", "no_op", "group",
        "tuple", "control_dependencies", "get_static_value", "is_tensor", "is_symbolic_tensor", "get_logger",
        "newaxis", "get_current_name_scope", "grad_pass_through", "recompute_grad", "timestamp"),
    "strings": ("RaggedTensor", "as_string"),
    "ops.space_batch_ops": ("space_to_batch_nd", "space_to_batch", "batch_to_space",
                            "required_space_to_batch_paddings"),
    "ops.bitcast_ops": ("bitcast",),
    "top_level_more": ("approx_top_k",),
    "framework.tensor_shape": ("TensorShape",),
    "composites.fingerprint_ops": ("fingerprint",),
    "compat.v1.optimizer": ("AggregationMethod",),
    "sparse.sparse_tensor": ("SparseTensor",),
    "sparse.edit_distance": ("edit_distance",),
    "composites.type_spec": ("TypeSpec", "SparseTensorSpec", "IndexedSlicesSpec", "RaggedTensorSpec",
                             "NoneTensorSpec"),
}
# the submodules that are attributes, imported on first use
_SUBMODULES = frozenset({
    "activations", "audio", "autodiff", "autograph", "bitwise", "callbacks", "checkpoint", "compat", "compiler",
    "config", "constraints", "data", "datasets", "debugging", "distribute", "dtypes", "image", "initializers",
    "io", "keras", "layers", "linalg", "lookup", "losses", "math", "metrics", "mixed_precision", "models", "nest",
    "nn", "optimizers", "ragged", "random", "regularizers", "saved_model", "saving", "sets", "signal", "sparse",
    "strings", "summary", "test", "testing", "train", "types", "version",
})


def _refuse(name: str):
    from ._api_exclusions import refuse  # a name TF has and descend leaves out says why (descend/api/exclusions.py)

    return refuse("tf", name, __name__)


# each loaded value is bound here (cache=True): ``ds.Model`` in a hot loop is a plain attribute read
__getattr__, __dir__, _LAZY_NAMES = _lazy_facade(__name__, _LAZY, submodules=_SUBMODULES, missing=_refuse,
                                                 cache=True)


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

__all__ = [  # noqa: F405 - the core imported above, the names and submodules that load on first use, the ops
    "backend", "errors", "ops", "as_dtype", "bool_", "float16", "float32", "float64", "floatx", "int8", "int16",
    "int32", "int64", "set_floatx", "uint8", "InvalidArgumentError", "NoGradientError", "GradientTape",
    "IndexedSlices", "Tensor", "Variable", "clear_session", "constant", "convert_to_tensor", "custom_gradient",
    "deduplicate", "name_scope", "DType", "half", "double", "uint16", "uint32", "uint64", "UnconnectedGradients",
    "init_scope", "realdiv", "string",
    # (tuple and compiler stay out, so that ``from descend import *`` hides neither Python's tuple nor a module)
    *(name for name in _LAZY_NAMES if name != "tuple"), *sorted(_SUBMODULES - {"compiler"}), *ops.__all__,
]
