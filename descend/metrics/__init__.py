"""Metrics, as ``keras.metrics`` (Keras 3): stateful accumulators over batches.

A metric keeps its state in non-trainable :class:`descend.Variable` objects
named ``<metric name>/<state>`` (``"accuracy/total"``), so a checkpoint can
save them. ``update_state(y_true, y_pred, sample_weight=None)`` adds a batch,
``result()`` returns the value so far as a Tensor, ``reset_state()`` (alias
``reset_states()``) zeroes the state, and calling the metric does
``update_state`` then ``result``.

Updates compute with NumPy on the values of their inputs: nothing is
recorded on a :class:`descend.GradientTape`, so a metric may be updated
inside a ``with GradientTape()`` block without touching the gradients.

Example:
    >>> import descend.metrics as metrics
    >>> m = metrics.SparseCategoricalAccuracy()
    >>> m.update_state([2, 1], [[0.1, 0.6, 0.3], [0.05, 0.95, 0.0]])
    >>> float(m.result())
    0.5
    >>> m.variables[0].path
    'sparse_categorical_accuracy/total'

The base class and the reductions live in :mod:`descend.metrics.metric`, the metrics on confusion counts in
:mod:`descend.metrics.confusion_metrics`, the others and the look-up in :mod:`descend.metrics.keras_metrics`;
this module is the public namespace.
"""

from .keras_metrics import *  # noqa: F403
from .keras_metrics import __all__  # noqa: F401
from .keras_metrics import ALL_OBJECTS, ALL_OBJECTS_DICT  # noqa: F401 - used by descend's own modules
