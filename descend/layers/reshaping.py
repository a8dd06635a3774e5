"""Reshaping layers: ``Reshape``, ``Permute``, ``RepeatVector``, and ``Masking``."""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor
from ..ops import array_ops, math_ops
from .base import Layer

__all__ = ["Reshape", "Permute", "RepeatVector", "Masking"]


class Reshape(Layer):
    """Reshapes each example to ``target_shape`` (the batch axis is kept): ``(batch, *target_shape)``.

    One entry of ``target_shape`` may be -1: it takes whatever size is left.

    Args:
        target_shape: a tuple of ints (one may be -1), without the batch axis.

    Example:
        >>> import descend as ds
        >>> ds.layers.Reshape((3, -1))(ds.ones((2, 12))).shape
        TensorShape([2, 3, 4])
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        try:
            target = tuple(int(d) for d in target_shape)
        except (TypeError, ValueError):
            raise ValueError(f"Reshape: `target_shape` must be a tuple of ints. Received: {target_shape!r}") from None
        if any(d < -1 or d == 0 for d in target):
            raise ValueError("Invalid value for argument `target_shape`: each dimension must be a non-negative integer "
                             f"(positive here) or -1 for one unknown dimension. Received: target_shape={target}")
        if sum(d == -1 for d in target) > 1:
            raise ValueError("Invalid value for argument `target_shape`: there can be at most one unknown dimension "
                             f"(-1). Received: target_shape={target}")
        self.target_shape = target

    def _resolve(self, input_shape) -> tuple:
        rest = input_shape[1:]
        if any(d is None for d in rest):
            return tuple(None if d == -1 else d for d in self.target_shape)
        n = int(np.prod(rest, dtype=np.int64))
        known = int(np.prod([d for d in self.target_shape if d != -1], dtype=np.int64))
        if -1 in self.target_shape:
            if known == 0 or n % known:
                raise ValueError(f"Layer '{self.name}': cannot reshape an input of shape {tuple(input_shape)} to "
                                 f"{self.target_shape}: {n} elements per example")
            return tuple(n // known if d == -1 else d for d in self.target_shape)
        if known != n:
            raise ValueError(f"Layer '{self.name}': cannot reshape an input of shape {tuple(input_shape)} "
                             f"({n} elements per example) to {self.target_shape} ({known})")
        return self.target_shape

    def call(self, inputs):
        if inputs.ndim == 0:
            raise ValueError(f"Layer '{self.name}' needs inputs with a batch axis. Received a scalar")
        return array_ops.reshape(inputs, shape=(inputs.shape[0], *self._resolve(tuple(inputs.shape))))

    def compute_output_shape(self, input_shape):
        return (tuple(input_shape)[0], *self._resolve(tuple(input_shape)))

    def get_config(self) -> dict:
        return {**super().get_config(), "target_shape": self.target_shape}


class Permute(Layer):
    """Permutes the non-batch axes: ``dims`` is a permutation of ``1..rank`` (1-indexed, as Keras).

    Args:
        dims: e.g. ``(2, 1)`` swaps the two axes of ``(batch, a, b)``.

    Example:
        >>> import descend as ds
        >>> ds.layers.Permute((2, 1))(ds.ones((2, 3, 4))).shape
        TensorShape([2, 4, 3])
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        try:
            dims = tuple(int(d) for d in dims)
        except (TypeError, ValueError):
            raise ValueError(f"Permute: `dims` must be a tuple of ints. Received: {dims!r}") from None
        if sorted(dims) != list(range(1, len(dims) + 1)):
            raise ValueError("Invalid permutation argument `dims` for Permute Layer. The set of indices in `dims` must "
                             f"be consecutive and start from 1 (the batch axis is not permuted). Received dims={dims}")
        self.dims = dims

    def call(self, inputs):
        if inputs.ndim != len(self.dims) + 1:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected ndim="
                             f"{len(self.dims) + 1}, found ndim={inputs.ndim}. Full shape received: "
                             f"{tuple(inputs.shape)}")
        return array_ops.transpose(inputs, perm=(0, *self.dims))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        return (input_shape[0], *(input_shape[d] for d in self.dims))

    def get_config(self) -> dict:
        return {**super().get_config(), "dims": self.dims}


class RepeatVector(Layer):
    """Repeats each example ``n`` times: ``(batch, features)`` -> ``(batch, n, features)``.

    Example:
        >>> import descend as ds
        >>> ds.layers.RepeatVector(3)(ds.ones((2, 4))).shape
        TensorShape([2, 3, 4])
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"Expected an integer value for `n`, got {type(n)}.")  # Keras' words
        if n <= 0:
            raise ValueError(f"Argument `n` should be a positive integer. Received: n={n}")
        self.n = int(n)

    def call(self, inputs):
        if inputs.ndim != 2:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected ndim=2, "
                             f"found ndim={inputs.ndim}. Full shape received: {tuple(inputs.shape)}")
        return array_ops.tile(array_ops.expand_dims(inputs, axis=1), multiples=(1, self.n, 1))

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        return (input_shape[0], self.n, input_shape[1])

    def get_config(self) -> dict:
        return {**super().get_config(), "n": self.n}


class Masking(Layer):
    """Masks the timesteps whose features all equal ``mask_value`` (padding of float sequences).

    As Keras: the output is the input with those steps zeroed, and it carries
    the Keras mask ``any(inputs != mask_value, axis=-1)``, which recurrent
    layers and ``GlobalAveragePooling1D`` use.

    Args:
        mask_value: the padding value (default 0.0).

    Example:
        >>> import descend as ds
        >>> x = ds.constant([[[1.0, 2.0], [0.0, 0.0]]])
        >>> y = ds.layers.Masking()(x)
        >>> ds.layers.get_mask(y).numpy()
        array([[ True, False]])
    """

    supports_masking = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(mask_value, bool) or not isinstance(mask_value, (int, float, np.number)):
            raise ValueError(f"Masking: `mask_value` must be a number. Received: mask_value={mask_value!r}")
        self.mask_value = float(mask_value)
        self._build_at_init()

    def _keep(self, inputs) -> np.ndarray:
        return np.any(np.asarray(inputs) != self.mask_value, axis=-1)

    def call(self, inputs):
        keep = self._keep(inputs)
        return math_ops.multiply(inputs, Tensor(keep[..., None].astype(inputs.dtype.dtype)))

    def compute_mask(self, inputs, mask=None):
        return Tensor(self._keep(inputs))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "mask_value": self.mask_value}
