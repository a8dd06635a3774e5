"""``init_scope``: run a block outside every ``descend.function`` trace and every tape, as TF's.

Inside a trace, the ops of the block run eagerly and are not recorded (the
plan sees their results as captured values), Variables created in it are made
eagerly, as by code outside the function (TF's rule holds still: only the
first trace of a function may create Variables, so guard the creation as in
the example), and no ``GradientTape`` records the block. Outside any trace it only pauses the tapes.

The recorders are the compiler's objects; this module asks the innermost one
of this thread to ``lift`` (a method every recorder has) and knows nothing
else of them.
"""

from __future__ import annotations

import contextlib

from . import tape as _tape
from . import trace as _trace

__all__ = ["init_scope"]


@contextlib.contextmanager
def init_scope():
    """Lift the block out of any function trace and pause the gradient tapes (TF's ``tf.init_scope``).

    Example:
        >>> import descend as ds
        >>> class Scale(ds.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.w = None
        ...     @ds.function
        ...     def __call__(self, x):
        ...         with ds.init_scope():  # created once, eagerly, on the first trace
        ...             if self.w is None:
        ...                 self.w = ds.Variable(2.0)
        ...         return x * self.w
        >>> float(Scale()(ds.constant(3.0)))
        6.0
    """
    recorder = _trace.current()
    if recorder is not None:
        recorder.lift(1)
    try:
        with _tape.paused():
            yield
    finally:
        if recorder is not None:
            recorder.lift(-1)
