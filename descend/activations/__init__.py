"""Activation functions by name, as ``keras.activations``, built on :mod:`descend.nn` and descend ops.

Every function takes a Tensor (or Variable, array, number) and returns a
Tensor of the same shape and dtype; all are differentiable through the tape.
``get(name)`` looks one up (``None`` -> ``linear``), ``serialize(fn)`` gives
the name back.

Example:
    >>> import descend as ds
    >>> relu = ds.activations.get("relu")
    >>> relu(ds.constant([-1.0, 2.0])).numpy()
    array([0., 2.], dtype=float32)
    >>> ds.activations.serialize(relu)
    'relu'

The implementation lives in :mod:`descend.activations.keras_activations`; this module is the public namespace.
"""

from .keras_activations import *  # noqa: F403
from .keras_activations import __all__  # noqa: F401
from .keras_activations import logits_of, remember_logits  # noqa: F401 - used by descend's own modules
