"""``descend.keras.backend``: the ``keras.backend`` basics ported code calls.

Example:
    >>> import descend as ds
    >>> ds.keras.backend.floatx() == "float32", ds.keras.backend.epsilon()
    (True, 1e-07)
    >>> ds.keras.backend.int_shape(ds.ones((2, 3)))
    (2, 3)
"""

from __future__ import annotations

from ..backend import floatx, set_floatx
from ..framework.variable import clear_session

__all__ = ["floatx", "set_floatx", "epsilon", "set_epsilon", "clear_session", "int_shape", "image_data_format",
           "set_image_data_format"]

_state = {"epsilon": 1e-7, "image_data_format": "channels_last"}


def epsilon() -> float:
    """The fuzz factor Keras adds to denominators (1e-7 unless :func:`set_epsilon` changed it)."""
    return _state["epsilon"]


def set_epsilon(value: float) -> None:
    """Set the value :func:`epsilon` returns (descend's losses and optimizers keep their own constants)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ValueError(f"set_epsilon expects a non-negative float. Received: {value!r}")
    _state["epsilon"] = float(value)


def image_data_format() -> str:
    """``"channels_last"`` (the layers' default)."""
    return _state["image_data_format"]


def set_image_data_format(data_format: str) -> None:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"data_format must be 'channels_last' or 'channels_first'. Received: {data_format!r}")
    _state["image_data_format"] = data_format


def int_shape(x) -> tuple:
    """The shape of a Tensor, Variable, array or symbolic ``Input`` as a tuple of ints (None unknown)."""
    shape = getattr(x, "shape", None)
    if shape is None:
        raise TypeError(f"int_shape expects a Tensor, Variable or array. Received: {type(x).__name__}")
    return tuple(None if d is None else int(d) for d in shape)
