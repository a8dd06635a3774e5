"""Weight regularizers, as ``keras.regularizers`` (Keras 3 names, arguments and defaults).

A regularizer is a callable ``reg(weight) -> scalar Tensor`` built from
descend ops, so the penalty is differentiable: a layer computes it from the
current weights each time ``layer.losses`` is read (inside a GradientTape it
is recorded like any other op).

Example:
    >>> import descend as ds
    >>> w = ds.Variable([[1.0, -2.0]], name="w")
    >>> float(ds.regularizers.L2(0.1)(w))
    0.5
    >>> round(float(ds.regularizers.get("l1")(w)), 6)
    0.03

The implementation lives in :mod:`descend.regularizers.keras_regularizers`; this module is the public namespace.
"""

from .keras_regularizers import *  # noqa: F403
from .keras_regularizers import __all__  # noqa: F401
