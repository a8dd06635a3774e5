"""Mixed precision: dtype policies (``keras.mixed_precision``) and ``LossScaleOptimizer``.

A :class:`Policy` names a layer's two dtypes: the **compute** dtype (inputs are cast to it and the
layer computes in it) and the **variable** dtype (its weights are created and kept in it, and
cast to the compute dtype where the layer reads them). ``"mixed_float16"`` is float16 compute
with float32 variables: the optimizer updates float32 weights, so small updates are not lost to
float16 rounding. Pair it with :class:`LossScaleOptimizer`, which keeps small float16
gradients from underflowing.

Layers created without a ``dtype`` take the global policy when they are created; ``dtype=`` may
be a policy or a policy name.

Example:
    >>> import descend as ds
    >>> ds.mixed_precision.set_global_policy("mixed_float16")
    >>> layer = ds.layers.Dense(2)
    >>> ds.mixed_precision.set_global_policy("float32")
    >>> y = layer(ds.ones((1, 3)))
    >>> layer.kernel.dtype.name, y.dtype.name, layer.dtype_policy.name
    ('float32', 'float16', 'mixed_float16')

The implementation lives in :mod:`descend.mixed_precision.dtype_policy`; this module is the public namespace.
"""

from .dtype_policy import *  # noqa: F403
from .dtype_policy import __all__ as _policies
from ..optimizers.loss_scale import LossScaleOptimizer
from .dtype_policy import layer_dtypes  # noqa: F401 - used by descend's own modules

__all__ = ["LossScaleOptimizer", *_policies]
