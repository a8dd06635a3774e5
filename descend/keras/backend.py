"""``descend.keras.backend``: the ``keras.backend`` basics ported code calls.

Keras 3's own names are here too (``Variable``, ``convert_to_tensor``,
``convert_to_numpy``, ``is_tensor``, ``name_scope``, ``standardize_dtype``,
``result_type``). ``backend()`` answers ``"tensorflow"``: descend follows
TensorFlow's semantics (``IndexedSlices`` gradients, TF's dtype rules), so
code that branches on the backend takes TensorFlow's branch.

Example:
    >>> import descend as ds
    >>> ds.keras.backend.floatx() == "float32", ds.keras.backend.epsilon()
    (True, 1e-07)
    >>> ds.keras.backend.int_shape(ds.ones((2, 3)))
    (2, 3)
    >>> ds.keras.backend.result_type("int32", "float32", float), ds.keras.backend.standardize_dtype(ds.float64)
    ('float32', 'float64')
"""

from __future__ import annotations

import numpy as np

from ..backend import floatx, np_dtype, set_floatx
from ..framework import Variable, name_scope
from ..framework.variable import clear_session
from ..layers.base import get_mask as get_keras_mask
from ..layers.base import set_mask as set_keras_mask
from ..framework.image_format import image_data_format, set_image_data_format
from . import ops as numpy  # Keras 3's ``backend.numpy``: the ops under NumPy's names
from .ops import _result_dtype, convert_to_numpy, convert_to_tensor, is_tensor

__all__ = ["floatx", "set_floatx", "epsilon", "set_epsilon", "clear_session", "int_shape", "image_data_format",
           "set_image_data_format", "backend", "Variable", "convert_to_tensor", "convert_to_numpy", "is_tensor",
           "name_scope", "standardize_dtype", "result_type", "numpy", "SUPPORTS_SPARSE_TENSORS", "get_value",
           "set_value", "get_keras_mask", "set_keras_mask"]

#: descend's gradients of gathers are sparse (``IndexedSlices``) and its optimizers update them as such
SUPPORTS_SPARSE_TENSORS = True


def backend() -> str:
    """``"tensorflow"``: the framework whose semantics descend follows."""
    return "tensorflow"


def standardize_dtype(dtype) -> str:
    """The dtype's name (``"float32"``...) from a name, a NumPy dtype or a descend dtype; None is ``floatx()``."""
    if dtype is None:
        return np.dtype(floatx()).name
    return np.dtype(np_dtype(dtype)).name


def result_type(*dtypes) -> str:
    """Keras 3's promotion of ``dtypes`` (names, dtypes, or the Python types ``int``/``float``/``bool`` that
    stand for weak Python numbers): floats win over ints and bools, Python numbers take the others' dtype."""
    if not dtypes:
        return floatx()
    weak = {int: 1, float: 1.0, bool: True}
    return np.dtype(_result_dtype(*[weak[d] if d in weak else np.zeros((), np_dtype(d)) for d in dtypes])).name

_state = {"epsilon": 1e-7}


def epsilon() -> float:
    """The fuzz factor Keras adds to denominators (1e-7 unless :func:`set_epsilon` changed it)."""
    return _state["epsilon"]


def set_epsilon(value: float) -> None:
    """Set the value :func:`epsilon` returns (descend's losses and optimizers keep their own constants)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"set_epsilon expects a non-negative float. Received: {value!r}")
    _state["epsilon"] = float(value)


def get_value(x) -> np.ndarray:
    """The value of a Variable, Tensor or number as a NumPy array (TF 2's ``keras.backend.get_value``)."""
    return np.asarray(x.numpy() if hasattr(x, "numpy") else x)


def set_value(x, value) -> None:
    """Set a Variable, or an optimizer's ``learning_rate``/``lr``, to ``value`` in place (TF 2's
    ``keras.backend.set_value``, as in ``set_value(model.optimizer.lr, 1e-4)``)."""
    if not hasattr(x, "assign"):
        raise TypeError("set_value expects a Variable or an optimizer's learning_rate (something with `assign`). "
                        f"Received: {type(x).__name__}")
    x.assign(np.asarray(value) if not np.isscalar(value) else value)


def int_shape(x) -> tuple:
    """The shape of a Tensor, Variable, array or symbolic ``Input`` as a tuple of ints (None unknown)."""
    shape = getattr(x, "shape", None)
    if shape is None:
        raise TypeError(f"int_shape expects a Tensor, Variable or array. Received: {type(x).__name__}")
    return tuple(None if d is None else int(d) for d in shape)
