"""Keras' ``backend.common``: dtype helpers, KerasTensor and the global state."""

from descend.keras.backend import standardize_dtype  # noqa: F401

from . import dtypes, global_state, keras_tensor  # noqa: F401
from .keras_tensor import KerasTensor  # noqa: F401
