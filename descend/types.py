"""``descend.types``: TF's ``tf.types`` names that programs use (``types.experimental.TraceType``)."""

from __future__ import annotations

from types import SimpleNamespace

from .compiler.trace_type import TraceType

__all__ = ["experimental"]

#: ``types.experimental.TraceType`` (see :class:`~descend.compiler.trace_type.TraceType`)
experimental = SimpleNamespace(TraceType=TraceType)
