"""Losses, as ``keras.losses`` (Keras 3): classes, functions and ``get``.

A loss *function* ``fn(y_true, y_pred)`` returns one value per sample: the
elementwise loss averaged (or, for the cross-entropies, summed) over the last
axis. A :class:`Loss` *object* calls its ``call(y_true, y_pred)`` to get those
per-sample losses, weights them by ``sample_weight`` and reduces them:

* ``"sum_over_batch_size"`` (default; ``"auto"`` and ``"mean"`` are aliases):
  ``sum(w * loss) / number_of_loss_elements``, as Keras 3 (not divided by the
  sum of the weights);
* ``"sum"``: ``sum(w * loss)``;
* ``"mean_with_sample_weight"``: ``sum(w * loss) / sum(w)``;
* ``"none"`` or ``None``: the weighted per-sample losses.

Everything is built from descend ops, so gradients flow to ``y_pred`` (and to
``y_true`` where the math allows). The cross-entropies on logits use the
stable ``descend.nn`` ops (finite for logits of any size); on probabilities
they clip to ``[1e-7, 1 - 1e-7]`` as Keras does (``keras.backend.epsilon()``).

Example:
    >>> import descend as ds, numpy as np
    >>> import descend.losses as losses
    >>> loss_fn = losses.SparseCategoricalCrossentropy(from_logits=True)
    >>> logits = ds.constant([[2.0, 0.5, -1.0], [0.1, 0.2, 3.0]])
    >>> round(float(loss_fn([0, 2], logits)), 4)
    0.1755

The loss functions live in :mod:`descend.losses.loss_functions`, the Loss classes and the look-up in
:mod:`descend.losses.keras_losses`; this module is the public namespace.
"""

from .keras_losses import *  # noqa: F403
from .keras_losses import __all__  # noqa: F401
from .keras_losses import ALL_OBJECTS, ALL_OBJECTS_DICT  # noqa: F401 - used by descend's own modules
