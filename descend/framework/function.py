"""``descend.function``: accepted for ported ``tf.function`` code; descend runs eagerly."""

from __future__ import annotations

import functools

__all__ = ["function"]


def function(func=None, input_signature=None, **options):
    """Return ``func`` unchanged (descend has no graph mode), so ``@tf.function`` code ports as is.

    With ``input_signature`` (a list of ``descend.TensorSpec``), calls are checked as TF checks
    them: Python and NumPy arguments are converted to the spec's dtype, and an argument whose
    dtype or shape the spec does not allow raises ``ValueError``.

    Example:
        >>> import descend as ds
        >>> @ds.function(input_signature=[ds.TensorSpec(shape=[None], dtype=ds.float32)])
        ... def double(x):
        ...     return x * 2.0
        >>> double([1.0, 2.0]).numpy()
        array([2., 4.], dtype=float32)
    """
    if input_signature is not None:
        if not isinstance(input_signature, (list, tuple)) or not all(
                hasattr(s, "is_compatible_with") for s in input_signature):
            raise TypeError(f"function: `input_signature` must be a list of TensorSpec. Received: "
                            f"{input_signature!r}")
        input_signature = tuple(input_signature)

    def wrap(f):
        if input_signature is None:
            return f
        return _checked(f, input_signature)

    if func is None:
        return wrap
    return wrap(func)


def _checked(f, signature: tuple):
    from .tensor import Tensor, convert_to_tensor
    from .variable import Variable

    name = getattr(f, "__name__", "function")

    @functools.wraps(f)
    def call(*args, **kwargs):
        if len(args) != len(signature) or kwargs:
            raise TypeError(f"{name}: called with {len(args)} positional and {len(kwargs)} keyword argument(s); its "
                            f"input_signature has {len(signature)} TensorSpec(s), one per positional argument")
        converted = []
        for i, (value, spec) in enumerate(zip(args, signature)):
            if not isinstance(value, (Tensor, Variable)):
                value = convert_to_tensor(value, dtype=spec.dtype)
            if not spec.is_compatible_with(value):
                raise ValueError(f"{name}: argument {i} must be compatible with {spec!r}; received shape "
                                 f"{tuple(value.shape)} and dtype {value.dtype.name}")
            converted.append(value)
        return f(*converted)

    call.input_signature = signature
    return call
