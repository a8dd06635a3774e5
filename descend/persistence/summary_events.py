"""``tf.summary``: TensorBoard event files written as TF 2 writes them (TFRecord-framed ``Event`` protocol
buffers, the summaries as tensors with their plugin's metadata), so ``tensorboard --logdir`` and TF's readers
read them: ``scalar``, ``text``, ``histogram`` (TF's buckets), ``image`` (PNG), ``write``, with
``create_file_writer``/``as_default``, the default step (``experimental.set_step``), ``record_if`` and
``flush``. TF's graph/profiler traces (``trace_on``...) are not here.

Example:
    >>> import tempfile, descend as ds
    >>> writer = ds.summary.create_file_writer(tempfile.mkdtemp())
    >>> with writer.as_default(step=1):
    ...     ds.summary.scalar("loss", 0.25)
    True
    >>> writer.close()
"""

from __future__ import annotations

import contextlib
import os
import socket
import struct
import threading
import time
import types

import numpy as np

from .. import backend
from .formats import wire
from ..framework.tensor import convert_to_tensor
from .tf_io import TFRecordWriter

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "experimental", "flush", "histogram",
           "image", "record_if", "scalar", "should_record_summaries", "text", "write"]

_DIM = {1: ("size", "int64", False), 2: ("name", "string", False)}
_TENSOR = {1: ("dtype", "enum", False), 2: ("tensor_shape", {2: ("dim", _DIM, True)}, False),
           4: ("tensor_content", "bytes", False), 8: ("string_val", "bytes", True)}
_METADATA = {1: ("plugin_data", {1: ("plugin_name", "string", False), 2: ("content", "bytes", False)}, False),
             2: ("display_name", "string", False), 3: ("summary_description", "string", False)}
_VALUE = {1: ("tag", "string", False), 8: ("tensor", _TENSOR, False), 9: ("metadata", _METADATA, False)}
_EVENT = {1: ("wall_time", "fixed64", False), 2: ("step", "int64", False), 3: ("file_version", "string", False),
          5: ("summary", {1: ("value", _VALUE, True)}, False),
          10: ("source_metadata", {1: ("writer", "string", False)}, False)}
_DT = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6, "string": 7, "int64": 9,
       "bool": 10, "uint16": 17, "float16": 19, "uint32": 22, "uint64": 23}

_state = threading.local()
_counter = [0]


def _local():
    if not hasattr(_state, "writer"):
        _state.writer, _state.step, _state.record = None, None, True
    return _state


class SummaryWriter:
    """An event file in ``logdir``: ``events.out.tfevents.<time>.<host>.<pid>.<n>.v2``, opened with the event
    that names the format (``brain.Event:2``)."""

    def __init__(self, logdir, filename_suffix=None):
        self._logdir = os.fspath(logdir)
        os.makedirs(self._logdir, exist_ok=True)
        _counter[0] += 1
        name = (f"events.out.tfevents.{int(time.time())}.{socket.gethostname()}.{os.getpid()}.{_counter[0]}.v2"
                + (filename_suffix or ""))
        self.path = os.path.join(self._logdir, name)
        self._records = TFRecordWriter(self.path)
        self._write_event({"wall_time": _double_bits(time.time()), "file_version": "brain.Event:2",
                           "source_metadata": {"writer": "descend.summary"}})
        self._records.flush()

    def _write_event(self, event: dict) -> None:
        if self._records is None:
            raise ValueError("SummaryWriter: the writer is closed")
        self._records.write(wire.encode(event, _EVENT))

    def _write_value(self, value: dict, step: int) -> None:
        self._write_event({"wall_time": _double_bits(time.time()), "step": int(step), "summary": {"value": [value]}})

    @contextlib.contextmanager
    def as_default(self, step=None):
        """Inside the block, summaries go to this writer (and ``step`` is the default step, when given)."""
        state = _local()
        before = (state.writer, state.step)
        state.writer = self
        if step is not None:
            state.step = step
        try:
            yield self
        finally:
            state.writer, state.step = before[0], before[1] if step is not None else state.step
            self.flush()

    def set_as_default(self, step=None) -> None:
        """Make this writer the default outside any ``with`` block (and ``step`` the default step)."""
        state = _local()
        state.writer = self
        if step is not None:
            state.step = step

    def init(self) -> None:
        """Nothing to do: the file is opened when the writer is made."""

    def flush(self) -> None:
        if self._records is not None:
            self._records.flush()

    def close(self) -> None:
        if self._records is not None:
            self._records.close()
            self._records = None


class _NoopWriter(SummaryWriter):
    def __init__(self):
        self._records = None

    def _write_event(self, event):
        return None

    def flush(self):
        return None

    def close(self):
        return None


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None, name=None,
                       experimental_trackable=False, experimental_mesh=None) -> SummaryWriter:
    """A :class:`SummaryWriter` writing to a new event file in ``logdir`` (events are written when they are
    made; ``max_queue``/``flush_millis`` are accepted)."""
    return SummaryWriter(logdir, filename_suffix)


def create_noop_writer() -> SummaryWriter:
    """A writer that writes nothing."""
    return _NoopWriter()


def _double_bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", float(x)))[0]


def _step(step) -> int:
    if step is None:
        step = _local().step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` argument or through "
                         "tf.summary.experimental.set_step()")
    return int(np.asarray(convert_to_tensor(step).numpy()) if not isinstance(step, int) else step)


def _tensor_proto(a: np.ndarray, dtype: str) -> dict:
    shape = {"dim": [{"size": int(d)} for d in a.shape]}
    if dtype == "string":
        return {"dtype": _DT["string"], "tensor_shape": shape, "string_val": [bytes(v) for v in a.reshape(-1)]}
    return {"dtype": _DT[dtype], "tensor_shape": shape, "tensor_content": a.astype(a.dtype.newbyteorder("<")).tobytes()}


def write(tag, tensor, step=None, metadata=None, name=None) -> bool:
    """Write ``tensor`` under ``tag`` at ``step`` to the default writer (``metadata``: a dict with
    ``plugin_data={"plugin_name", "content"}``, ``display_name``, ``summary_description``). Returns whether a
    summary was written (False without a default writer or under ``record_if(False)``)."""
    state = _local()
    if state.writer is None or not should_record_summaries():
        return False
    t = convert_to_tensor(tensor)
    dtype = "string" if t.dtype == backend.string else t.dtype.name
    if dtype not in _DT:
        raise TypeError(f"summary.write: a {dtype} tensor cannot be written")
    a = np.asarray(t.numpy(), dtype=object if dtype == "string" else None)
    value = {"tag": str(tag), "tensor": _tensor_proto(a, dtype)}
    if metadata is not None:
        value["metadata"] = dict(metadata)
    state.writer._write_value(value, _step(step))
    return True


def _plugin(name, description=None, content=b""):
    out = {"plugin_data": {"plugin_name": name, "content": content}}
    if description:
        out["summary_description"] = description
    return out


def scalar(name, data, step=None, description=None) -> bool:
    """A scalar (written as float32, as TF) under ``name``, for TensorBoard's scalars dashboard."""
    a = np.asarray(convert_to_tensor(data).numpy(), np.float32)
    if a.ndim != 0:
        raise ValueError(f"summary.scalar: data must be a scalar. Received shape {list(a.shape)}")
    return write(name, a, step, _plugin("scalars", description))


def text(name, data, step=None, description=None) -> bool:
    """A string (or string tensor) under ``name``, for the text dashboard."""
    t = convert_to_tensor(data)
    if t.dtype != backend.string:
        raise TypeError(f"summary.text: data must be a string tensor. Received dtype {t.dtype.name}")
    return write(name, t, step, _plugin("text", description))


def _buckets(data: np.ndarray, count: int) -> np.ndarray:
    """TensorBoard's histogram buckets ``[count, 3]`` (left edge, right edge, count) of ``data`` (float64):
    equal widths over ``[min, max]``; one value gives ``count`` zero-width buckets at it, all of it in the last;
    no data gives zeros."""
    if data.size == 0:
        return np.zeros((count, 3), np.float64)
    low, high = data.min(), data.max()
    counts = np.zeros(count, np.float64)
    if high == low:
        counts[-1] = data.size
        edges = np.full(count, high)
        return np.stack([edges, edges, counts], axis=1)
    width = (high - low) / count
    index = np.minimum(np.floor((data - low) / width).astype(np.int64), count - 1)
    counts += np.bincount(index, minlength=count)
    edges = np.linspace(low, high, count + 1)
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], axis=1)


def histogram(name, data, step=None, buckets=None, description=None) -> bool:
    """The histogram of ``data``'s values in ``buckets`` (30) equal buckets spanning their range, as TF 2."""
    count = 30 if buckets is None else int(buckets)
    if count < 1:
        raise ValueError(f"summary.histogram: buckets must be >= 1. Received {buckets}")
    a = np.asarray(convert_to_tensor(data).numpy(), np.float64).reshape(-1)
    return write(name, _buckets(a, count), step, _plugin("histograms", description))


def image(name, data, step=None, max_outputs=3, description=None) -> bool:
    """Up to ``max_outputs`` images of ``data`` (``[k, h, w, c]``, c in 1, 3, 4; floats in [0, 1] or uint8)
    as PNG files, for the images dashboard."""
    from ..image import convert_image_dtype, encode_png

    t = convert_to_tensor(data)
    if len(t.shape) != 4 or t.shape[-1] not in (1, 3, 4):
        raise ValueError(f"summary.image: data must be [k, h, w, c] with c in (1, 3, 4). Received shape {t.shape}")
    pixels = np.asarray(convert_image_dtype(t, "uint8", saturate=True).numpy())[:int(max_outputs)]
    height, width = t.shape[1], t.shape[2]
    encoded = [str(width).encode(), str(height).encode()] + [encode_png(p).numpy() for p in pixels]
    return write(name, np.array(encoded, dtype=object), step, _plugin("images", description))


@contextlib.contextmanager
def record_if(condition):
    """Inside the block, summaries are written only when ``condition`` (a bool, or a callable giving one)."""
    state = _local()
    before = state.record
    state.record = condition
    try:
        yield
    finally:
        state.record = before


def should_record_summaries() -> bool:
    """Whether summaries are written now: a default writer is set and ``record_if``'s condition holds."""
    state = _local()
    condition = state.record() if callable(state.record) else state.record
    return state.writer is not None and bool(condition)


def flush(writer=None, name=None) -> None:
    """Flush ``writer`` (the default writer when None)."""
    target = writer if writer is not None else _local().writer
    if target is not None:
        target.flush()


def _get_step():
    return _local().step


def _set_step(step) -> None:
    _local().step = step


experimental = types.SimpleNamespace(get_step=_get_step, set_step=_set_step)
