"""The functions the ops layer lends the framework.

The framework sits below the ops (``backend <- framework <- ops``), yet the
tape must add gradients, densify and de-duplicate ``IndexedSlices`` and stack
Jacobian rows, and ``Variable.read_value`` must be a recorded op, all with
real ops so that an outer tape can differentiate through them. Instead of
looking ops up by name, the framework calls the functions the ops package
hands over here when it is imported (``descend/ops/__init__.py`` calls
:func:`register`). ``import descend`` always imports the ops, so the
functions are present whenever user code runs.

Example:
    >>> import descend as ds
    >>> from descend.framework.ops_bridge import FUNCTIONS
    >>> FUNCTIONS.aggregate(ds.constant([1.0]), ds.constant([2.0])).numpy()
    array([3.], dtype=float32)
"""

from __future__ import annotations

__all__ = ["FUNCTIONS", "NAMES", "register"]

#: what the ops layer provides, and what each does
NAMES = {
    "aggregate": "aggregate(a, b): the sum of two gradients of one value (Tensor or IndexedSlices)",
    "densify": "densify(slices): the dense Tensor an IndexedSlices stands for",
    "deduplicate": "deduplicate(slices): an IndexedSlices with repeated rows summed, indices sorted",
    "read": "read(variable): a recorded snapshot of a Variable (the identity op)",
    "stack": "stack(tensors, shape, axis): the tensors stacked along a new axis `axis`, reshaped to `shape`",
}


def _missing(name):
    def fail(*args, **kwargs):
        raise RuntimeError(f"descend.framework needs `{name}` from the ops layer; import descend (or descend.ops) "
                           "before differentiating")

    fail.__name__ = name
    return fail


class _Functions:
    __slots__ = tuple(NAMES)

    def __init__(self):
        for name in NAMES:
            setattr(self, name, _missing(name))


#: the registered functions, as attributes (``FUNCTIONS.aggregate(a, b)``)
FUNCTIONS = _Functions()


def register(**functions) -> None:
    """Hand the framework the functions named in :data:`NAMES` (all of them, each callable).

    Raises:
        TypeError: a name is unknown or missing, or a value is not callable; nothing
            is registered then.
    """
    unknown = sorted(set(functions) - set(NAMES))
    missing = sorted(set(NAMES) - set(functions))
    if unknown or missing:
        raise TypeError(f"register expects exactly the functions {sorted(NAMES)}; "
                        f"received unknown {unknown} and missing {missing}")
    for name, fn in functions.items():
        if not callable(fn):
            raise TypeError(f"register: `{name}` must be callable. Received: {fn!r}")
    for name, fn in functions.items():
        setattr(FUNCTIONS, name, fn)
