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
import warnings
from collections import namedtuple

__all__ = [
    "device", "PhysicalDevice", "LogicalDevice", "run_functions_eagerly", "functions_run_eagerly", "list_physical_devices",
    "list_logical_devices", "get_visible_devices", "set_visible_devices", "experimental",
]

PhysicalDevice = namedtuple("PhysicalDevice", "name device_type")
LogicalDevice = namedtuple("LogicalDevice", "name device_type")
_CPU = PhysicalDevice("/physical_device:CPU:0", "CPU")
_state = {"eager": False}


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
    """``tf.config.experimental.enable_op_determinism``: from now on, ops give results that do not depend on
    the thread count or the machine's load, at some cost in speed.

    descend's ops other than matrix products are deterministic in both modes. By default a large matrix
    product runs on OpenBLAS's own threads where one such call was measured faster, else as blocks, as many as
    its thread budget, each a one-thread BLAS call (the last bits may then depend on the thread count, as in
    TensorFlow and PyTorch); with determinism on, it is always cut into one-thread blocks fixed by its shape
    alone (``descend._native.blas.parts_for``). Either way a ``descend.function`` step gives the eager step's
    bits in one process. The bits still depend on the CPU's BLAS kernel (OpenBLAS
    picks one per CPU: AVX2 and AVX-512 machines differ in the last bits): see docs/semantics.md. Where descend
    cannot hold NumPy's BLAS on one thread (``threadpoolctl`` not importable) it warns once: products then
    run on the BLAS's own threads.

    Example:
        >>> import descend as ds
        >>> ds.config.experimental.enable_op_determinism()
        >>> ds.config.experimental.is_op_determinism_enabled()
        True
        >>> ds.config.experimental.disable_op_determinism()
    """
    from ._native import blas

    blas.set_deterministic(True)
    if not blas.pools() and not _state.get("warned_blas"):
        _state["warned_blas"] = True
        warnings.warn("enable_op_determinism: descend cannot hold NumPy's BLAS on one thread here (threadpoolctl is "
                      "not importable, or it knows no BLAS library in this process): matrix products run on the "
                      "BLAS's own threads, and their last bits may depend on its thread count. Install threadpoolctl "
                      "or set OPENBLAS_NUM_THREADS=1.", RuntimeWarning, stacklevel=2)


def _disable_op_determinism() -> None:
    """TensorFlow's ``disable_op_determinism`` (in ``tensorflow.python.framework.config``): the default again,
    large products on OpenBLAS's threads or cut for the thread budget, whichever was faster."""
    from ._native import blas

    blas.set_deterministic(False)


def _is_op_determinism_enabled() -> bool:
    """Whether :func:`_enable_op_determinism` is in force (TensorFlow's ``is_op_determinism_enabled``)."""
    from ._native import blas

    return blas.deterministic()


experimental = types.SimpleNamespace(
    set_memory_growth=_set_memory_growth, get_memory_growth=_get_memory_growth,
    enable_op_determinism=_enable_op_determinism, disable_op_determinism=_disable_op_determinism,
    is_op_determinism_enabled=_is_op_determinism_enabled,
    list_physical_devices=list_physical_devices, set_visible_devices=set_visible_devices,
)
