"""``py_function`` and ``numpy_function``: Python code called as one op, as TF's.

Eagerly ``py_function`` calls ``func`` on Tensors, so the ops it runs are
recorded by the active tapes and a gradient flows through them as through any
other code (a trip through NumPy inside ``func`` cuts it). ``numpy_function``
calls ``func`` on NumPy arrays: its outputs have no gradient.

Inside ``descend.function`` each call is one *callback* node of the plan: the
Python function runs on every call of the compiled function, with that call's
values, and must give back outputs of the shapes and dtypes it gave while
tracing.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..errors import InvalidArgumentError
from ..framework import trace as _trace
from ..framework.tensor import ArrayLike, Tensor, convert_to_tensor

__all__ = ["numpy_function", "py_function"]


def _dtypes(Tout, what):
    """``(list of dtypes, whether the result is a list)`` of ``Tout``: one dtype, a list/tuple of them, or None."""
    if Tout is None:
        return [], None
    if isinstance(Tout, (list, tuple)):
        return [_one_dtype(t, what) for t in Tout], True
    return [_one_dtype(Tout, what)], False


def _one_dtype(t, what):
    try:
        return backend.as_dtype(t)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: Tout must be a dtype or a list of dtypes; received {t!r} ({e})") from None


def _inputs(inp, what):
    if inp is None:
        return []
    if not isinstance(inp, (list, tuple)):
        raise TypeError(f"{what}: inp must be a list of Tensors (or values convertible to them); received "
                        f"{type(inp).__name__}")
    return [convert_to_tensor(x) for x in inp]  # a Variable gives a (recorded) read of its value


def _outputs(result, dtypes, as_list, what, numpy_strict):
    """``result`` as Tensors of ``dtypes``; an error naming the output that is not one."""
    if as_list is None:
        return None
    values = list(result) if as_list and isinstance(result, (list, tuple)) else [result]
    if len(values) != len(dtypes):
        raise ValueError(f"{what}: func returned {len(values)} value(s); Tout declares {len(dtypes)}")
    out = []
    for k, (v, dtype) in enumerate(zip(values, dtypes)):
        if isinstance(v, ArrayLike):
            if v.dtype != dtype:
                raise InvalidArgumentError(f"{what}: output {k} of func is a Tensor of dtype {v.dtype.name}; Tout "
                                           f"declares {dtype.name}")
            out.append(v if isinstance(v, Tensor) else v.read_value())
            continue
        if v is None:
            raise ValueError(f"{what}: output {k} of func is None; Tout declares {dtype.name}")
        if numpy_strict and isinstance(v, np.ndarray) and v.dtype != backend.np_dtype(dtype):
            raise InvalidArgumentError(f"{what}: output {k} of func is an array of dtype {v.dtype.name}; Tout "
                                       f"declares {dtype.name}")
        try:
            arr = np.asarray(v)
            if arr.dtype.kind not in "biufc":
                raise TypeError(f"an array of dtype {arr.dtype}")
            out.append(Tensor(np.array(arr, dtype=backend.np_dtype(dtype), copy=True)))
        except (TypeError, ValueError) as e:
            raise TypeError(f"{what}: output {k} of func, {type(v).__name__}, does not convert to {dtype.name} "
                            f"({e})") from None
    return out if as_list else out[0]


@_trace.opaque("callback")
def _call_py(func, inputs, Tout):
    dtypes, as_list = _dtypes(Tout, "py_function")
    return _outputs(func(*inputs), dtypes, as_list, "py_function", numpy_strict=False)


@_trace.opaque("callback")
def _call_numpy(func, inputs, Tout):
    dtypes, as_list = _dtypes(Tout, "numpy_function")
    return _outputs(func(*[np.array(x._value, copy=True) for x in inputs]), dtypes, as_list, "numpy_function",
                    numpy_strict=True)


def py_function(func=None, inp=None, Tout=None, name=None):
    """Call ``func(*inp)`` on Tensors and return its outputs as Tensors of ``Tout`` (TF's ``tf.py_function``).

    Args:
        func: a Python callable taking ``len(inp)`` Tensors and returning one value (``Tout`` a dtype) or a
            list of them (``Tout`` a list); NumPy arrays and Python numbers are converted to ``Tout``, a Tensor
            must already have its dtype.
        inp: a list of Tensors (or values convertible to them).
        Tout: a dtype, a list of dtypes, or None (the result is then None).
        name: accepted for TF's signature; unused.

    Eagerly the ops ``func`` runs are recorded by the active tapes, so gradients flow through it. Inside
    ``descend.function`` it runs in Python on every call. Called with ``func`` alone it is a decorator.

    Example:
        >>> import descend as ds
        >>> float(ds.py_function(lambda a: a * 2.0, [ds.constant(3.0)], ds.float32))
        6.0
    """
    if func is None:
        return lambda f: _decorated(py_function, f, Tout)
    if not callable(func):
        raise TypeError(f"py_function: func must be callable; received {type(func).__name__}")
    _dtypes(Tout, "py_function")  # checked before func runs
    return _call_py(func, _inputs(inp, "py_function"), Tout)


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Call ``func(*arrays)`` on NumPy copies of ``inp`` and return its outputs as Tensors of ``Tout``.

    As TF's ``tf.numpy_function``: the outputs have no gradient. An array ``func`` returns must have
    ``Tout``'s dtype (``InvalidArgumentError`` otherwise); Python numbers are converted. ``stateful`` and
    ``name`` are accepted for TF's signature; descend always calls ``func``.

    Example:
        >>> import descend as ds, numpy as np
        >>> ds.numpy_function(np.sort, [ds.constant([3.0, 1.0])], ds.float32).numpy()
        array([1., 3.], dtype=float32)
    """
    if func is None:
        return lambda f: _decorated(numpy_function, f, Tout)
    if not callable(func):
        raise TypeError(f"numpy_function: func must be callable; received {type(func).__name__}")
    _dtypes(Tout, "numpy_function")
    return _call_numpy(func, _inputs(inp, "numpy_function"), Tout)


def _decorated(api, f, Tout):
    def call(*args):
        return api(f, list(args), Tout)

    call.__name__ = getattr(f, "__name__", "py_function")
    call.__wrapped__ = f
    return call
