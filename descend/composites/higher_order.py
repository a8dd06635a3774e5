"""``tf``'s higher-order functions, assertions and eager-runtime helpers, on descend's eager ops.

``map_fn``, ``foldl``, ``foldr``, ``scan`` and ``vectorized_map`` call the function once per element
(unrolled: inside :func:`descend.function` each call is recorded, so the trace grows with the
length); ``switch_case`` and ``case`` call the branch the predicate picks. The assertions raise
``InvalidArgumentError`` at once (descend runs eagerly), naming the tensors and what was expected;
``group``, ``tuple``, ``no_op`` and ``control_dependencies`` keep the graph-mode spellings working
(everything already ran in program order).

Example:
    >>> import descend as ds
    >>> ds.map_fn(lambda x: x * 2.0, ds.constant([1.0, 2.0])).numpy().tolist()
    [2.0, 4.0]
    >>> ds.scan(lambda acc, x: acc + x, ds.constant([1.0, 2.0, 3.0])).numpy().tolist()
    [1.0, 3.0, 6.0]
"""

from __future__ import annotations

import builtins
import contextlib
import logging

import numpy as np

from ..errors import InvalidArgumentError
from ..framework import nest
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from ..ops.array_ops import stack, unstack

__all__ = [
    "map_fn", "foldl", "foldr", "scan", "vectorized_map", "switch_case", "case", "Assert", "assert_equal",
    "assert_greater", "assert_less", "assert_rank", "executing_eagerly", "inside_function", "no_op", "group",
    "tuple", "control_dependencies", "get_static_value", "is_tensor", "is_symbolic_tensor", "get_logger",
    "newaxis",
]

newaxis = None  # tf.newaxis


def _elements(elems):
    """The per-element structures of ``elems`` (a tensor or a nest of them, unstacked along axis 0)."""
    flat = [convert_to_tensor(e) for e in nest.flatten(elems)]
    if not flat:
        raise ValueError("elems must be a tensor or a non-empty structure of tensors")
    n = flat[0].shape[0] if flat[0].ndim else None
    if n is None or any(f.ndim == 0 or f.shape[0] != n for f in flat):
        raise ValueError(f"elems must be tensors of rank >= 1 with one first dimension. Received shapes: "
                         f"{[builtins.tuple(f.shape) for f in flat]}")
    columns = [unstack(f, axis=0) if n else [] for f in flat]
    return n, [nest.pack_like(elems, [c[i] for c in columns]) for i in range(n)]


def _stack_results(results, fallback):
    if not results:
        return fallback
    first = results[0]
    leaves = [nest.flatten(r) for r in results]
    stacked = [stack([convert_to_tensor(row[k]) for row in leaves], axis=0) for k in range(len(leaves[0]))]
    return nest.pack_like(first, stacked)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False, infer_shape=True,
           name=None, fn_output_signature=None):
    """``stack([fn(e) for e in unstack(elems)])`` (``tf.map_fn``); ``elems`` may be a nest of tensors."""
    n, items = _elements(elems)
    if n == 0:
        raise ValueError("map_fn: elems has no elements along axis 0; the output's shape is unknown")
    return _stack_results([fn(e) for e in items], None)


def vectorized_map(fn, elems, fallback_to_while_loop=True, warn=True):
    """``fn`` on each element of ``elems`` along axis 0, results stacked (``tf.vectorized_map``, computed
    element by element)."""
    return map_fn(fn, elems)


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``acc = fn(acc, e)`` over the elements from the first (``tf.foldl``); ``acc`` starts at
    ``initializer``, or the first element when None."""
    return _fold(fn, elems, initializer, reverse=False)


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, name=None):
    """``acc = fn(acc, e)`` over the elements from the last (``tf.foldr``)."""
    return _fold(fn, elems, initializer, reverse=True)


def _fold(fn, elems, initializer, reverse):
    n, items = _elements(elems)
    if reverse:
        items = items[::-1]
    if initializer is None:
        if n == 0:
            raise ValueError("fold: elems is empty and there is no initializer")
        acc, items = items[0], items[1:]
    else:
        acc = initializer
    for e in items:
        acc = fn(acc, e)
    return acc


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True, swap_memory=False, infer_shape=True,
         reverse=False, name=None):
    """Every intermediate ``acc = fn(acc, e)``, stacked (``tf.scan``); without ``initializer`` the first
    element starts the accumulator and is the first output."""
    n, items = _elements(elems)
    order = list(range(n))[::-1] if reverse else list(range(n))
    outputs = [None] * n
    if initializer is None:
        if n == 0:
            raise ValueError("scan: elems is empty and there is no initializer")
        acc = items[order[0]]
        outputs[order[0]] = acc
        order = order[1:]
    else:
        acc = initializer
    for i in order:
        acc = fn(acc, items[i])
        outputs[i] = acc
    return _stack_results(outputs, None)


def switch_case(branch_index, branch_fns, default=None, name=None):
    """``branch_fns[branch_index]()`` (``tf.switch_case``; an index out of range calls ``default``, else the
    last branch). ``branch_fns`` is a list of callables or of ``(index, callable)`` pairs, or a dict."""
    index = int(np.asarray(getattr(branch_index, "_value", branch_index)))
    fns = dict(branch_fns) if isinstance(branch_fns, dict) else (
        dict(branch_fns) if branch_fns and isinstance(branch_fns[0], (list, builtins.tuple))
        else dict(enumerate(branch_fns)))
    if not fns:
        raise ValueError("switch_case: branch_fns must not be empty")
    if index in fns:
        return fns[index]()
    return (default or fns[max(fns)])()


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name=None):
    """The function of the first pair whose predicate is True (``tf.case``); ``default`` when none is
    (required then). With ``exclusive=True`` more than one True predicate is an error."""
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(pred_fn_pairs)
    chosen = [fn for pred, fn in pairs if bool(np.asarray(getattr(pred, "_value", pred)))]
    if exclusive and len(chosen) > 1:
        raise InvalidArgumentError(f"case: exclusive=True but {len(chosen)} predicates are True")
    if chosen:
        return chosen[0]()
    if default is None:
        raise InvalidArgumentError("case: no predicate is True and there is no default")
    return default()


# ---------------------------------------------------------------- assertions
def _value(x) -> np.ndarray:
    return np.asarray(convert_to_tensor(x).numpy())


def Assert(condition, data, summarize=None, name=None):  # noqa: N802 - TF's name
    """Raise ``InvalidArgumentError`` showing ``data`` if ``condition`` is False (``tf.debugging.Assert``)."""
    if not bool(np.all(_value(condition))):
        shown = [np.asarray(getattr(d, "_value", d)).tolist() if not isinstance(d, str) else d for d in data]
        raise InvalidArgumentError(f"assertion failed: {shown}")


def _assert(ok: bool, what: str, x, y, message):
    if not ok:
        prefix = f"{message} " if message else ""
        raise InvalidArgumentError(f"{prefix}Condition x {what} y did not hold. x = {_value(x).tolist()}, "
                                   f"y = {_value(y).tolist()}")


def assert_equal(x, y, message=None, summarize=None, name=None):
    """``InvalidArgumentError`` unless every ``x == y`` (broadcast), as ``tf.debugging.assert_equal``."""
    _assert(bool(np.all(_value(x) == _value(y))), "==", x, y, message)


def assert_greater(x, y, message=None, summarize=None, name=None):
    """``InvalidArgumentError`` unless every ``x > y``."""
    _assert(bool(np.all(_value(x) > _value(y))), ">", x, y, message)


def assert_less(x, y, message=None, summarize=None, name=None):
    """``InvalidArgumentError`` unless every ``x < y``."""
    _assert(bool(np.all(_value(x) < _value(y))), "<", x, y, message)


def assert_rank(x, rank, message=None, name=None):
    """``ValueError`` unless ``x`` has rank ``rank`` (``tf.debugging.assert_rank``)."""
    got = convert_to_tensor(x).ndim
    if got != int(rank):
        prefix = f"{message} " if message else ""
        raise ValueError(f"{prefix}Tensor must have rank {int(rank)}. Received rank {got}, shape "
                         f"{builtins.tuple(convert_to_tensor(x).shape)}")


# ---------------------------------------------------------------- the eager runtime
def executing_eagerly() -> bool:
    """True outside :func:`descend.function`'s tracing, as ``tf.executing_eagerly``: also inside a trace where
    what runs is not recorded but run (a ``py_function``'s Python, an ``init_scope`` block), as in TF."""
    from ..framework import trace

    r = trace.current()
    return r is None or bool(getattr(r, "paused", 0))


def inside_function() -> bool:
    """True while :func:`descend.function` traces (``tf.inside_function``)."""
    return not executing_eagerly()


def no_op(name=None):
    """Does nothing (``tf.no_op``); descend runs ops in program order."""
    return None


def group(*inputs, name=None):
    """Nothing to wait for: the inputs are computed already (``tf.group``)."""
    return None


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's name
    """The tensors, unchanged, as a list (``tf.tuple``)."""
    return list(tensors)


@contextlib.contextmanager
def control_dependencies(control_inputs):
    """A no-op context (``tf.control_dependencies``): descend runs ops in program order."""
    yield


def get_static_value(tensor, partial=False):
    """The NumPy value of ``tensor`` (``tf.get_static_value``; an eager tensor's value is always known)."""
    if isinstance(tensor, (Tensor, Variable)):
        return tensor.numpy()
    return np.asarray(tensor)


def is_tensor(x) -> bool:
    """Whether ``x`` is a descend Tensor or Variable (``tf.is_tensor``)."""
    return isinstance(x, (Tensor, Variable))


def is_symbolic_tensor(x) -> bool:
    """False: descend's tensors are eager values (``tf.is_symbolic_tensor``)."""
    return False


def get_logger() -> logging.Logger:
    """The ``descend`` logger (``tf.get_logger``)."""
    return logging.getLogger("descend")


# ---------------------------------------------------------------- more of tf's runtime helpers (issue 37)
def get_current_name_scope() -> str:
    """The active name scope, e.g. ``"outer/inner"`` ('' at the top), as ``tf.get_current_name_scope``."""
    from ..framework import current_name_scope

    return current_name_scope()


def grad_pass_through(f):
    """``f`` in the forward pass, the identity in the backward pass (``tf.grad_pass_through``): the
    gradient reaches ``f``'s input as if ``f`` were not there."""
    from ..framework import custom_gradient

    @custom_gradient
    def wrapped(x):
        return f(x), lambda g: g

    return wrapped


def recompute_grad(f):
    """``f`` itself: TF recomputes its forward pass in the backward pass to save memory; the values and the
    gradients are the same (``tf.recompute_grad``)."""
    return f


def timestamp(name=None):
    """Seconds since the epoch, as a float64 scalar tensor (``tf.timestamp``)."""
    import time

    return Tensor(np.float64(time.time()))


__all__ += ["get_current_name_scope", "grad_pass_through", "recompute_grad", "timestamp"]
