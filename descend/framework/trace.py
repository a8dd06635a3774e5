"""The tracing context: what the op dispatcher and Tensors ask while ``descend.function`` records.

``descend.function`` runs a Python function once per input signature and
records the ops it runs into a small graph (:mod:`descend.compiler`). While
it does, a *recorder* is active on the calling thread, and the framework
tells it what happens, through the calls below (one test of a module-level
list when nothing is recording):

* the op dispatcher (:func:`descend.framework.op.execute`) calls
  :func:`record` with every op it ran;
* a Tensor or Variable whose value Python reads as a number (``bool(t)``,
  ``float(t)``, ``t.numpy()``, ``np.asarray(t)``...) calls :func:`host_read`:
  a value computed inside the function cannot be read that way in a trace
  (the recorder raises for ``bool`` and otherwise lets the function run
  eagerly);
* ``Variable`` calls :func:`variable_created` and, before every write,
  :func:`variable_write` (which says whether to skip the write: a *dry*
  trace, ``get_concrete_function``, records writes without making them);
* :func:`opaque` marks a method that runs as one node of the plan: kind
  ``"optimizer"`` (``Optimizer.apply_gradients``), kind ``"callback"`` (host
  code that computes with NumPy, such as a metric's ``update_state``: it runs
  in Python on every call of the compiled function); :func:`print_call` is
  ``descend.print``'s.

A recorder records only its own thread's work, as a tape does. This module
imports nothing from descend: the recorders are the compiler's objects.
"""

from __future__ import annotations

import functools
from threading import get_ident

__all__ = ["active", "current", "custom_gradient_called", "host_read", "opaque", "print_call", "record",
           "variable_created",
           "variable_write"]

#: recorders recording, innermost last (any thread; each holds its thread id in ``thread``)
active: list = []


def current():
    """The innermost recorder of this thread, or None."""
    if not active:
        return None
    me = get_ident()
    for r in reversed(active):
        if r.thread == me:
            return r
    return None


def record(op, inputs, result, attrs) -> None:
    """``op`` ran on ``inputs`` (Tensors, Variables or raw Python scalars) and gave ``result``."""
    r = current()
    if r is not None:
        r.record_op(op, inputs, result, attrs)


def host_read(value, what: str) -> None:
    """Python reads the value of ``value`` (a Tensor or Variable) as ``what`` (``"bool"``, ``"numpy"``...)."""
    r = current()
    if r is not None:
        r.host_read(value, what)


def traced_shape(value):
    """The shape a trace's own Tensor ``value`` shows the user's code (None dimensions where the trace serves
    several sizes), or None when no trace of this thread computed or received it (a value of its own)."""
    r = current()
    return None if r is None else r.traced_shape(value)


def variable_created(variable) -> None:
    r = current()
    if r is not None:
        r.variable_created(variable)


def variable_write(variable, kind: str, value) -> bool:
    """A write of ``kind`` (``"assign"``, ``"assign_add"``...) to ``variable`` is about to happen;
    True: skip it (a dry trace records it without making it)."""
    r = current()
    return r is not None and r.variable_write(variable, kind, value)


def custom_gradient_called(name: str) -> None:
    """A ``custom_gradient`` function named ``name`` ran: a trace records its forward ops only (its
    gradient rule is Python), which the recorder notes on its graph."""
    r = current()
    if r is not None:
        r.custom_gradient_called(name)


def print_call(inputs: tuple, options: dict, emit) -> bool:
    """``descend.print(*inputs, **options)`` is called; True: the recorder has handled it (recorded
    it, and printed it with ``emit(inputs, **options)`` unless it is a dry trace)."""
    r = current()
    return r is not None and r.print_call(inputs, options, emit)


def opaque(kind: str):
    """Decorate a method that a trace records as one node of ``kind`` (run whole, in Python, on
    every call of the compiled function), instead of recording what it does inside.

    Outside a trace the method runs as it is (one list test more).
    """
    def wrap(fn):
        @functools.wraps(fn)
        def call(*args, **kwargs):
            if active:
                r = current()
                if r is not None:
                    return r.opaque_call(kind, fn, args, kwargs, call)
            return fn(*args, **kwargs)

        call.__descend_opaque__ = kind
        return call

    return wrap
