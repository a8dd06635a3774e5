"""``descend.print``: print Tensors and Python values, as ``tf.print``."""

from __future__ import annotations

import sys

import numpy as np

from .framework import trace as _trace
from .framework.indexed_slices import IndexedSlices
from .framework.tensor import ArrayLike

__all__ = ["print"]

_print = print


def _float(v) -> str:
    """Shortest round-trip digits without a trailing point: ``1``, ``1.5`` (as tf.print)."""
    return np.format_float_positional(v, trim="-")


def _format(value, summarize: int) -> str:
    if isinstance(value, IndexedSlices):
        value = value._to_dense()
    if isinstance(value, ArrayLike):
        arr = np.asarray(value)
        if arr.ndim == 0:
            return _float(arr[()]) if arr.dtype.kind == "f" else str(arr[()])
        threshold = sys.maxsize if summarize is None or summarize < 0 else 2 * summarize
        edge = 3 if summarize is None or summarize < 0 else summarize
        return np.array2string(arr, separator=" ", threshold=threshold, edgeitems=edge, max_line_width=sys.maxsize,
                               formatter={"float_kind": _float})
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_format(v, summarize) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_format(v, summarize)}" for k, v in value.items()) + "}"
    return str(value)


def print(*inputs, output_stream=None, summarize: int = 3, sep: str = " ", end: str = "\n", name=None) -> None:  # noqa: A001
    """Print ``inputs`` (Tensors as their values, e.g. ``[1 2 3]``) joined by ``sep``.

    As ``tf.print``: tensors with more than ``2 * summarize`` elements on an
    axis show the first and last ``summarize`` (``-1`` or None: all), and the
    default stream is ``sys.stderr``.

    Args:
        *inputs: Tensors, Variables, Python values, or nests of them.
        output_stream: ``sys.stdout``, ``sys.stderr`` (default), a file
            object, or ``"file://path"`` (appended to).
        summarize: how many elements to show at each end of an axis.
        sep, end: as Python's ``print``.

    Example:
        >>> import sys, descend as ds
        >>> ds.print("loss:", ds.constant([1, 2, 3]), output_stream=sys.stdout)
        loss: [1 2 3]
    """
    options = dict(output_stream=output_stream, summarize=summarize, sep=sep, end=end)
    if _trace.active and _trace.print_call(inputs, options, _emit):
        return None  # a trace records the print (and prints it through _emit unless it is a dry trace)
    _emit(inputs, **options)


def _emit(inputs, output_stream, summarize, sep, end) -> None:
    text = sep.join(_format(v, summarize) for v in inputs) + end
    if isinstance(output_stream, str):
        if not output_stream.startswith("file://"):
            raise ValueError(f"print: a string output_stream must start with 'file://'. Received: {output_stream!r}")
        with open(output_stream[len("file://"):], "a") as f:
            f.write(text)
        return
    stream = sys.stderr if output_stream is None else output_stream
    if not hasattr(stream, "write"):
        raise TypeError(f"print: output_stream must be a file object or 'file://path'. Received: {output_stream!r}")
    stream.write(text)
