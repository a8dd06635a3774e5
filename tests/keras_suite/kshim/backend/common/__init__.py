"""Keras' ``backend.common``: dtype helpers, KerasTensor and the global state."""

from descend.keras.backend import standardize_dtype as _standardize_dtype


def standardize_dtype(dtype):
    """descend's standardize_dtype, which also takes a PyTorch or JAX dtype (``torch.float16``), as Keras' does:
    Keras' tests compare descend's dtypes with those of PyTorch's results."""
    if dtype is not None and not isinstance(dtype, str) and str(dtype).startswith(("torch.", "jax.numpy.")):
        dtype = str(dtype).split(".")[-1]
    return _standardize_dtype(dtype)

def is_int_dtype(dtype) -> bool:
    """Keras' ``backend.common.is_int_dtype``: an int or uint dtype (bool is not)."""
    return _standardize_dtype(dtype).startswith(("int", "uint"))


def is_float_dtype(dtype) -> bool:
    """Keras' ``backend.common.is_float_dtype``."""
    return _standardize_dtype(dtype).startswith(("float", "bfloat"))


from . import dtypes, global_state, keras_tensor  # noqa: F401
from .keras_tensor import KerasTensor  # noqa: F401
