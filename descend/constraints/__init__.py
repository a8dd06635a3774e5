"""Weight constraints, as ``keras.constraints`` (Keras 3 names, arguments and defaults).

A constraint is a callable ``value -> value`` (Tensor or Variable in, Tensor of
the same shape and dtype out). Give one to a Variable (``Variable(...,
constraint=...)``) or to a layer (``kernel_constraint=...``): descend's
optimizers assign ``var.constraint(var)`` to the variable after each update.

Example:
    >>> import descend as ds
    >>> w = ds.Variable([[-1.0, 2.0]], name="w", constraint=ds.constraints.NonNeg())
    >>> _ = ds.optimizers.SGD(0.1).apply_gradients([(ds.constant([[1.0, 1.0]]), w)])
    >>> w.numpy()
    array([[0. , 1.9]], dtype=float32)

The implementation lives in :mod:`descend.constraints.keras_constraints`; this module is the public namespace.
"""

from .keras_constraints import *  # noqa: F403
from .keras_constraints import __all__  # noqa: F401
