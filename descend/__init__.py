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

#: submodules imported on first attribute access
_SUBMODULES = frozenset({
    "activations", "callbacks", "checkpoint", "compat", "compiler", "config", "constraints", "data", "datasets",
    "debugging", "distribute", "dtypes", "initializers", "keras", "layers", "linalg", "losses", "math", "metrics",
    "mixed_precision",
    "models", "nn", "optimizers", "random", "regularizers", "saving", "testing", "train", "types",
    "image",
    "autograph", "saved_model",
})
#: names imported from a submodule on first access: name -> (submodule, attribute)
_LAZY_NAMES = {
    "Model": ("models", "Model"),
    "Sequential": ("models", "Sequential"),
    "GradientAccumulator": ("optimizers.accumulation", "GradientAccumulator"),
    "eye": ("linalg", "eye"),
    "print": ("printing", "print"),
    "TensorSpec": ("tensor_spec", "TensorSpec"),
    "Module": ("framework.module", "Module"),
    "function": ("compiler", "function"),
    "cond": ("compiler", "cond"),
    "while_loop": ("compiler", "while_loop"),
    "device": ("config", "device"),
    "TensorArray": ("ops.tensor_array", "TensorArray"),
    "py_function": ("ops.script_ops", "py_function"),
    "numpy_function": ("ops.script_ops", "numpy_function"),
    # issue 37: tf's top-level names over descend's modules
    "sigmoid": ("ops.nn_ops", "sigmoid"),
    "truncatediv": ("math", "truncatediv"),
    "truncatemod": ("math", "truncatemod"),
    "scalar_mul": ("math", "scalar_mul"),
    "tensordot": ("linalg", "tensordot"),
    "constant_initializer": ("initializers", "Constant"),
    "ones_initializer": ("initializers", "Ones"),
    "zeros_initializer": ("initializers", "Zeros"),
    "random_normal_initializer": ("initializers", "RandomNormal"),
    "random_uniform_initializer": ("initializers", "RandomUniform"),
    **{name: ("composites.higher_order", name) for name in (
        "map_fn", "foldl", "foldr", "scan", "vectorized_map", "switch_case", "case", "Assert", "assert_equal",
        "assert_greater", "assert_less", "assert_rank", "executing_eagerly", "inside_function", "no_op", "group",
        "tuple", "control_dependencies", "get_static_value", "is_tensor", "is_symbolic_tensor", "get_logger",
        "newaxis", "get_current_name_scope",
        "grad_pass_through", "recompute_grad", "timestamp")},
}


def __getattr__(name: str):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")  # the import sets the package attribute too
    target = _LAZY_NAMES.get(name)
    if target is None:  # a name TF has and descend leaves out says why (descend/_api_exclusions.py)
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
                        "random": ("keras.random",)}.items():
    _register_builtin_loader(_kind, _builtin_loader(*_modules))


__version__ = "0.1.0"

# the submodules and lazy names listed here are defined by __getattr__ on first use
__all__ = [  # noqa: F405
    "Model", "Sequential", "activations", "constraints", "initializers", "layers", "models", "regularizers",
    "backend", "callbacks", "checkpoint", "compat", "data", "datasets", "debugging", "distribute", "errors", "function", "losses",
    "metrics", "mixed_precision", "nn", "ops", "optimizers", "saving", "testing", "train", "as_dtype", "bool_", "float16", "float32",
    "float64",
    "floatx", "int8", "int16", "int32", "int64", "set_floatx", "uint8", "InvalidArgumentError",
    "NoGradientError", "GradientAccumulator", "GradientTape", "IndexedSlices", "Tensor", "Variable", "clear_session",
    "constant", "convert_to_tensor", "custom_gradient", "deduplicate", "name_scope",
    "config", "keras", "linalg", "math", "print", "random", "TensorSpec", "eye", "cond", "while_loop",
    "DType", "dtypes", "half", "double", "uint16", "uint32", "uint64", "Module", "device", "types",
    "image",
    "UnconnectedGradients", "TensorArray", "py_function", "numpy_function",
    "init_scope", "autograph", "saved_model",
    "realdiv", "sigmoid", "truncatediv", "truncatemod", "scalar_mul", "tensordot", "constant_initializer",
    "ones_initializer", "zeros_initializer", "random_normal_initializer", "random_uniform_initializer",
    "map_fn", "foldl", "foldr", "scan", "vectorized_map", "switch_case", "case", "Assert", "assert_equal",
    "assert_greater", "assert_less", "assert_rank", "executing_eagerly", "inside_function", "no_op", "group",
    "control_dependencies", "get_static_value", "is_tensor", "is_symbolic_tensor", "get_logger", "newaxis",
    "get_current_name_scope", "grad_pass_through",
    "recompute_grad", "timestamp",
] + list(ops.__all__)

# string tensors: ``descend.string`` (TF's ``tf.string``) and the ``descend.strings`` ops
from .backend import string  # noqa: E402

_SUBMODULES = _SUBMODULES | {"strings"}
_LAZY_NAMES["RaggedTensor"] = ("strings", "RaggedTensor")
__all__ += ["string", "strings", "RaggedTensor"]

# space-to-batch and batch-to-space (issue 37)
for _n in ("space_to_batch_nd", "space_to_batch", "batch_to_space", "required_space_to_batch_paddings"):
    _LAZY_NAMES[_n] = ("ops.space_batch_ops", _n)
__all__ += ["space_to_batch_nd", "space_to_batch", "batch_to_space", "required_space_to_batch_paddings"]
_LAZY_NAMES["bitcast"] = ("ops.bitcast_ops", "bitcast")
__all__ += ["bitcast"]
_LAZY_NAMES["approx_top_k"] = ("top_level_more", "approx_top_k")
_LAZY_NAMES["as_string"] = ("strings", "as_string")  # tf.as_string is tf.strings.as_string
__all__ += ["approx_top_k", "as_string"]

# issue 37: tf.TensorShape
_LAZY_NAMES["TensorShape"] = ("framework.tensor_shape", "TensorShape")
__all__ += ["TensorShape"]
_SUBMODULES = _SUBMODULES | {"nest"}  # tf.nest (issue 37)
__all__ += ["nest"]
# issue 37: tf.bitwise, tf.version, tf.audio, tf.fingerprint, tf.AggregationMethod
_SUBMODULES = _SUBMODULES | {"bitwise", "version", "audio"}
_LAZY_NAMES["fingerprint"] = ("fingerprint_ops", "fingerprint")
_LAZY_NAMES["AggregationMethod"] = ("compat.v1.optimizer", "AggregationMethod")  # tf.AggregationMethod is TF 1's
__all__ += ["bitwise", "version", "audio", "fingerprint", "AggregationMethod"]
# issue 37: tf.SparseTensor, tf.sparse, tf.sets, tf.edit_distance
_SUBMODULES = _SUBMODULES | {"sparse", "sets"}
_LAZY_NAMES["SparseTensor"] = ("sparse.sparse_tensor", "SparseTensor")
_LAZY_NAMES["edit_distance"] = ("sparse.edit_distance", "edit_distance")
__all__ += ["sparse", "sets", "SparseTensor", "edit_distance"]
# issue 37: tf.io, tf.matrix_square_root (TF's alias of tf.linalg.sqrtm)
_SUBMODULES = _SUBMODULES | {"io"}
_LAZY_NAMES["matrix_square_root"] = ("linalg", "sqrtm")
__all__ += ["io", "matrix_square_root"]
_SUBMODULES = _SUBMODULES | {"lookup"}  # tf.lookup (issue 37)
__all__ += ["lookup"]
_SUBMODULES = _SUBMODULES | {"signal"}  # tf.signal over real tensors (issue 37)
__all__ += ["signal"]
# issue 37: tf.TypeSpec and the composite values' specs
for _n in ("TypeSpec", "SparseTensorSpec", "IndexedSlicesSpec", "RaggedTensorSpec", "NoneTensorSpec"):
    _LAZY_NAMES[_n] = ("type_spec", _n)
_LAZY_NAMES["type_spec_from_value"] = ("tensor_spec", "type_spec_from_value")
__all__ += ["TypeSpec", "SparseTensorSpec", "IndexedSlicesSpec", "RaggedTensorSpec", "NoneTensorSpec",
            "type_spec_from_value"]
_SUBMODULES = _SUBMODULES | {"autodiff"}  # tf.autodiff (issue 37)
__all__ += ["autodiff"]
_SUBMODULES = _SUBMODULES | {"test"}  # tf.test (issue 37)
__all__ += ["test"]
_SUBMODULES = _SUBMODULES | {"summary"}  # tf.summary (issue 37)
__all__ += ["summary"]
_SUBMODULES = _SUBMODULES | {"ragged"}  # tf.ragged over the one-ragged-dimension RaggedTensor (issue 37)
__all__ += ["ragged"]
