"""``descend.autograph.experimental``: ``do_not_convert``."""

from __future__ import annotations

import functools

__all__ = ["do_not_convert"]


def do_not_convert(func=None):
    """Keep ``func`` as it is when ``descend.function`` traces it (TF's ``autograph.experimental.do_not_convert``).

    Its ``if``/``while``/``for`` statements stay Python's: a Tensor computed inside the function used as
    their test raises ``OperatorNotAllowedInGraphError``. Usable as ``@do_not_convert`` or
    ``@do_not_convert()``.

    Example:
        >>> import descend as ds
        >>> @ds.function
        ... @ds.autograph.experimental.do_not_convert
        ... def double(x):
        ...     return x * 2.0
        >>> float(double(ds.constant(2.0)))
        4.0
    """
    if func is None:
        return do_not_convert
    if not callable(func):
        raise TypeError(f"do_not_convert: expected a function; received {type(func).__name__}")

    # AutoGraph leaves a wrapped function (one with ``__wrapped__``) as it is
    @functools.wraps(func)
    def unconverted(*args, **kwargs):
        return func(*args, **kwargs)

    return unconverted
