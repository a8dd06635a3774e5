"""``descend.config``: the ``tf.config`` calls eager-only programs make.

descend runs on one CPU process: ``run_functions_eagerly(True)`` makes every
``descend.function`` call its Python function directly (no trace, no plan), as
TF's does; the device listings name the one CPU, and the GPU memory settings
have nothing to act on and are accepted for ported code.

Example:
    >>> import descend as ds
    >>> ds.config.run_functions_eagerly(True)
    >>> ds.config.functions_run_eagerly()
    True
    >>> ds.config.run_functions_eagerly(False)
    >>> [d.device_type for d in ds.config.list_physical_devices()]
    ['CPU']
    >>> ds.config.list_physical_devices("GPU")
    []
"""

from __future__ import annotations

import contextlib
import re
import types
from collections import namedtuple

__all__ = [
    "device", "PhysicalDevice", "LogicalDevice", "run_functions_eagerly", "functions_run_eagerly", "list_physical_devices",
    "list_logical_devices", "get_visible_devices", "set_visible_devices", "experimental",
]

PhysicalDevice = namedtuple("PhysicalDevice", "name device_type")
LogicalDevice = namedtuple("LogicalDevice", "name device_type")
_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_state = {"eager": False, "determinism": False}


def run_functions_eagerly(run_eagerly: bool) -> None:
    """With True, ``descend.function`` calls run the Python function directly (for debugging), as TF's."""
    if not isinstance(run_eagerly, bool):
        raise TypeError(f"run_functions_eagerly expects a bool. Received: {run_eagerly!r}")
    _state["eager"] = run_eagerly


def functions_run_eagerly() -> bool:
    """The flag set by :func:`run_functions_eagerly` (False until set, as TF)."""
    return _state["eager"]


def _check_type(device_type):
    if device_type is not None and not isinstance(device_type, str):
        raise TypeError(f"device_type must be None or a string such as 'CPU'. Received: {device_type!r}")
    return None if device_type is None else device_type.upper()


_DEVICE = re.compile(r"^(/job:[A-Za-z0-9_]+)?(/replica:\d+)?(/task:\d+)?"
                     r"((/device:)?[A-Za-z_]+:(\d+|\*))?$|^[A-Za-z_]+:(\d+|\*)$|^/[A-Za-z_]+:(\d+|\*)$")


@contextlib.contextmanager
def device(device_name):
    """``tf.device``: a context naming the device to compute on. descend computes on the CPU, so every op
    in the context runs there, as TensorFlow's soft placement runs them on a machine without the device
    named; the name is checked (``"CPU:0"``, ``"/device:GPU:0"``, ``"/job:worker/task:0/cpu:0"``; None:
    no device).

    Example:
        >>> import descend as ds
        >>> with ds.device("CPU:0"):
        ...     float(ds.reduce_sum(ds.ones((2, 2))))
        4.0
    """
    if device_name is not None:
        if not isinstance(device_name, str):
            raise ValueError(f"device: expected a device name such as 'CPU:0' or '/device:GPU:0'. Received: "
                             f"{device_name!r}")
        if device_name and not _DEVICE.match(device_name):
            raise ValueError(f"device: cannot parse device specification '{device_name[:200]}' (expected e.g. "
                             "'CPU:0', '/device:GPU:0' or '/job:worker/task:0/device:CPU:0')")
    yield


def list_physical_devices(device_type=None) -> list:
    """The devices descend computes on: the CPU (no GPU or TPU)."""
    t = _check_type(device_type)
    return [_CPU] if t in (None, "CPU") else []


def list_logical_devices(device_type=None) -> list:
    t = _check_type(device_type)
    return [LogicalDevice("/device:CPU:0", "CPU")] if t in (None, "CPU") else []


def get_visible_devices(device_type=None) -> list:
    return list_physical_devices(device_type)


def set_visible_devices(devices, device_type=None) -> None:
    """Accept the CPU (or an empty list of GPUs, as programs hiding GPUs pass)."""
    items = devices if isinstance(devices, (list, tuple)) else [devices]
    for d in items:
        if d != _CPU:
            raise ValueError(f"set_visible_devices: descend has only {_CPU}. Received: {d!r}")


def _set_memory_growth(device, enable: bool) -> None:
    if device != _CPU:
        raise ValueError(f"set_memory_growth: unknown device {device!r}; descend has only {_CPU}")


def _get_memory_growth(device) -> bool:
    return False


def _enable_op_determinism() -> None:
    """descend's ops are deterministic already; recorded for ``is_op_determinism_enabled``."""
    _state["determinism"] = True


experimental = types.SimpleNamespace(
    set_memory_growth=_set_memory_growth, get_memory_growth=_get_memory_growth,
    enable_op_determinism=_enable_op_determinism,
    is_op_determinism_enabled=lambda: _state["determinism"],
    list_physical_devices=list_physical_devices, set_visible_devices=set_visible_devices,
)
