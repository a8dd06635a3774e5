"""Keras' ``backend`` over descend: the Keras 3 backend functions of ``descend.keras.backend``; ``backend()`` is
``"descend"``, so the test files' branches for TensorFlow, JAX or PyTorch objects (ragged, sparse, jit) stay
off."""

from __future__ import annotations

import numpy as np

import descend as ds
from descend.keras.backend import (  # noqa: F401
    Variable,
    clear_session,
    convert_to_numpy,
    convert_to_tensor,
    epsilon,
    floatx as _floatx,
    get_keras_mask,
    image_data_format,
    is_tensor,
    name_scope,
    result_type,
    set_epsilon,
    set_floatx,
    set_image_data_format,
    set_keras_mask,
    standardize_dtype,
)
from descend.layers.keras_tensor import KerasTensor  # noqa: F401

from . import common, config  # noqa: F401

SUPPORTS_SPARSE_TENSORS = False
SUPPORTS_RAGGED_TENSORS = False
SUPPORTS_COMPLEX_DTYPES = False  # (descend has no complex dtypes)


def floatx() -> str:
    """Keras' ``backend.floatx()``: the name (``"float32"``), which the tests use as a string (``"int" in dtype``)."""
    return np.dtype(_floatx()).name


def backend() -> str:
    return "descend"


def is_float_dtype(dtype) -> bool:
    return np.dtype(standardize_dtype(dtype)).kind == "f"


def is_int_dtype(dtype) -> bool:
    return np.dtype(standardize_dtype(dtype)).kind in "iu"


def standardize_data_format(data_format):
    """Keras' backend helper (image_test's references call it): ``None`` is ``image_data_format()``."""
    data_format = image_data_format() if data_format is None else str(data_format).lower()
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"The `data_format` argument must be one of {{'channels_first', 'channels_last'}}. "
                         f"Received: data_format={data_format}")
    return data_format


def shape(x):
    return tuple(np.shape(convert_to_numpy(x)) if not hasattr(x, "shape") else x.shape)


def cast(x, dtype):
    return ds.keras.ops.cast(x, dtype)


random = ds.keras.random
numpy = ds.keras.ops
