"""The memory bound of a model rebuilt from a file (``load_model``, ``model_from_json``).

A model config from a file declares sizes (``units``, ``input_dim``, input shapes) that decide how
much memory rebuilding it takes. While :func:`rebuilding` is active (in this thread):

* every weight a layer creates is charged against the bytes the saved state holds for the model
  (a model restored from a file must find all of its weights there, so more than that cannot be
  right): a weight past that budget is refused *before* it is allocated;
* every zero-filled probe tensor the rebuild runs through the layers (functional inputs, a
  Sequential's build) is limited to :data:`MAX_PROBE_BYTES`;
* the layer being rebuilt is remembered, so any error, a ``MemoryError`` included, can name it.
"""

from __future__ import annotations

import contextlib
import threading

import numpy as np

__all__ = ["MAX_PROBE_BYTES", "rebuilding", "charge_weight", "check_probe", "note_layer", "current"]

#: the largest zero-filled probe tensor (bytes) run through a layer while a model is rebuilt from a file
MAX_PROBE_BYTES = 256 * 2**20

_local = threading.local()


class _Rebuild:
    def __init__(self, source: str, weight_bytes: int | None):
        self.source = source
        self.budget = weight_bytes
        self.spent = 0
        self.layer = None  # "name (Class)" of the layer being rebuilt


def current():
    """The active rebuild (with ``source``, ``layer``), or None."""
    return getattr(_local, "rebuild", None)


@contextlib.contextmanager
def rebuilding(source: str, weight_bytes: int | None = None):
    """Rebuild a model from ``source`` (a file name, for messages) within ``weight_bytes`` of weights
    (None: no weight budget; probes are bounded either way)."""
    outer = current()
    _local.rebuild = _Rebuild(source, weight_bytes)
    try:
        yield _local.rebuild
    finally:
        _local.rebuild = outer


def _nbytes(shape, dtype) -> int:
    n = int(np.dtype(dtype).itemsize)
    for d in shape:
        n *= int(d)
    return n


def _size(n: int) -> str:
    for unit, scale in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


def note_layer(layer) -> None:
    """Remember ``layer`` (a Layer or a name) as the one being rebuilt."""
    rb = current()
    if rb is not None:
        rb.layer = layer if layer is None or isinstance(layer, str) else f"'{layer.name}' ({type(layer).__name__})"


def charge_weight(layer, name: str, shape: tuple, dtype) -> None:
    """Refuse, before it is allocated, a weight that would take the rebuild past its budget."""
    rb = current()
    if rb is None:
        return
    note_layer(layer)
    if rb.budget is None:
        return
    n = _nbytes(shape, dtype)
    if rb.spent + n > rb.budget:
        raise ValueError(f"{rb.source}: layer {rb.layer} declares a weight '{name}' of shape {tuple(shape)} "
                         f"{np.dtype(dtype).name} ({_size(n)}); with the weights before it, that is more than the "
                         f"{_size(rb.budget)} the saved state holds for this model (refused before allocating it)")
    rb.spent += n


def check_probe(shape: tuple, dtype, layer=None) -> None:
    """Refuse a probe tensor larger than :data:`MAX_PROBE_BYTES` while a model is rebuilt."""
    rb = current()
    if rb is None:
        return
    if layer is not None:
        note_layer(layer)
    n = _nbytes(shape, dtype)
    if n > MAX_PROBE_BYTES:
        where = f" at layer {rb.layer}" if rb.layer else ""
        raise ValueError(f"{rb.source}: the model's inputs{where} have shape {tuple(shape)} ({_size(n)} for the "
                         f"batch of {shape[0] if shape else 1} the rebuild runs); at most {_size(MAX_PROBE_BYTES)} "
                         "are allocated while a model is rebuilt from a file (refused before allocating it)")
