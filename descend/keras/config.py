"""``keras.config``: Keras 3's global settings, over descend's own (the same state ``keras.backend`` and
``descend.mixed_precision`` read and write).

Keras' settings descend has no counterpart for are left out rather than faked: ``set_backend`` (descend is
its one back end), flash attention (descend's attention has one kernel), traceback filtering (descend
does not filter tracebacks), NNX (Flax), the epoch/step caps (``fit`` takes ``epochs``/``steps_per_epoch``)
and ``enable_unsafe_deserialization`` (pass ``safe_mode=False`` to the loading function instead).

Example:
    >>> from descend.keras import config
    >>> config.floatx(), config.image_data_format(), config.backend()
    ('float32', 'channels_last', 'tensorflow')
"""

from __future__ import annotations

from .. import backend as _backend
from ..mixed_precision import dtype_policy, set_dtype_policy
from . import backend as _keras_backend
from .utils import disable_interactive_logging, enable_interactive_logging, is_interactive_logging_enabled

__all__ = ["backend", "disable_interactive_logging", "dtype_policy", "enable_interactive_logging", "epsilon",
           "floatx", "image_data_format", "is_interactive_logging_enabled", "set_dtype_policy", "set_epsilon",
           "set_floatx", "set_image_data_format"]

backend = _keras_backend.backend
epsilon = _keras_backend.epsilon
set_epsilon = _keras_backend.set_epsilon
image_data_format = _keras_backend.image_data_format
set_image_data_format = _keras_backend.set_image_data_format


def floatx() -> str:
    """The default float dtype's name (``"float32"``), as Keras gives it."""
    return _backend.floatx().name


def set_floatx(value) -> None:
    """Set the default float dtype (``"float16"``, ``"float32"`` or ``"float64"``)."""
    _backend.set_floatx(value)
