"""``SpectralNormalization`` (as Keras'): a wrapper that divides the wrapped layer's kernel by its largest
singular value, estimated by power iteration, at every training call.

In training, with ``W`` the kernel reshaped to ``(-1, out)`` and ``u`` the ``(1, out)`` non-trainable estimate
``vector_u``, ``power_iterations`` times ``v = normalize(u W^T)``, ``u = normalize(v W)``; then ``sigma = v W
u^T`` and the kernel is *assigned* ``kernel / sigma`` and ``vector_u`` the new ``u`` (an all-zero kernel is left
as it is), before the wrapped layer runs on the inputs. ``normalize(x) = x * min(1 / ||x||, 1 / 1e-7)``. At
inference the wrapped layer runs unchanged. The layer must have a ``kernel`` (``Dense``, ``Conv*``) or an
``embeddings`` table.

Differences from Keras: ``get_weights()`` lists ``vector_u`` first, then the wrapped layer's weights (Keras
lists the kernel, ``vector_u``, then the rest); the weights' names are Keras' (``<wrapper>/vector_u``,
``<wrapper>/<layer>/kernel``); a float output stays float on integer inputs (an ``Embedding``'s, which Keras casts
to the ids' integer dtype).

Example:
    >>> import descend as ds, numpy as np
    >>> ds.clear_session()
    >>> sn = ds.layers.SpectralNormalization(ds.layers.Dense(2, kernel_initializer="ones"), power_iterations=5)
    >>> _ = sn(ds.ones((1, 3)), training=True)
    >>> round(float(np.linalg.svd(sn.layer.kernel.numpy(), compute_uv=False)[0]), 4)
    1.0
"""

from __future__ import annotations

import numpy as np

from .. import initializers
from ..ops import array_ops, math_ops
from .wrapper import Wrapper

__all__ = ["SpectralNormalization"]

_EPSILON = 1e-7  # Keras' backend.epsilon()


def _normalize(x):
    """``x / ||x||`` (all entries), the inverse norm capped at ``1 / epsilon``, as Keras' ``ops.normalize``."""
    inv = math_ops.rsqrt(math_ops.reduce_sum(math_ops.square(x)))
    return math_ops.multiply(x, math_ops.minimum(inv, np.asarray(1.0 / _EPSILON, x.dtype.dtype)))


class SpectralNormalization(Wrapper):
    """Spectral normalization of a layer's kernel (Miyato et al. 2018), as ``keras.layers.SpectralNormalization``.

    Args:
        layer: a layer with a ``kernel`` or ``embeddings`` weight.
        power_iterations: power-iteration steps per training call (a positive int, default 1).
        **kwargs: the base layer's arguments.
    """

    def __init__(self, layer, power_iterations=1, **kwargs):
        super().__init__(layer, **kwargs)
        if isinstance(power_iterations, bool) or not isinstance(power_iterations, (int, np.integer)) \
                or power_iterations <= 0:
            raise ValueError("SpectralNormalization: `power_iterations` must be a positive int. Received: "
                             f"power_iterations={power_iterations!r}")
        self.power_iterations = int(power_iterations)
        self.vector_u = None

    def _kernel(self):
        for attr in ("kernel", "embeddings"):
            value = getattr(self.layer, attr, None)
            if value is not None:
                return value
        raise ValueError(f"SpectralNormalization: {type(self.layer).__name__} has no attribute 'kernel' nor "
                         "'embeddings'")

    def build(self, input_shape):
        super().build(input_shape)
        kernel = self._kernel()
        self.vector_u = self.add_weight(shape=(1, kernel.shape[-1]), initializer=initializers.TruncatedNormal(
            stddev=0.02), trainable=False, name="vector_u", dtype=kernel.dtype.name)

    def normalized_weights(self):
        """``(new vector_u, kernel / sigma)`` from the current values (nothing assigned)."""
        kernel = self._kernel()
        k = kernel.read_value()
        w = array_ops.reshape(k, shape=(-1, k.shape[-1]))
        u = self.vector_u.read_value()
        v = None
        for _ in range(self.power_iterations):
            v = _normalize(math_ops.matmul(u, w, transpose_b=True))  # v <- normalize(u W^T)
            u = _normalize(math_ops.matmul(v, w))  # u <- normalize(v W)
        sigma = math_ops.matmul(math_ops.matmul(v, w), u, transpose_b=True)  # sigma = v W u^T
        return u, math_ops.divide(k, array_ops.reshape(sigma, shape=()))

    def call(self, inputs, training=False):
        if training:
            kernel = self._kernel()
            if np.any(kernel.numpy() != 0):  # an all-zero kernel stays as it is (Keras' cond)
                u, normalized = self.normalized_weights()
                self.vector_u.assign(u)
                kernel.assign(normalized)
        output = self.layer(inputs)
        if output.dtype != inputs.dtype and inputs.dtype.kind == "f":
            output = math_ops.cast(output, dtype=inputs.dtype)
        return output

    def compute_output_shape(self, input_shape):
        return self.layer.compute_output_shape(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "power_iterations": self.power_iterations}
