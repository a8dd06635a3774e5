"""``HashedCrossing`` (as Keras'): the cross of two or more categorical features hashed into ``num_bins`` bins,
the same bins as Keras with TensorFlow (``tf.sparse.cross_hashed``).

For each row the hash starts at TF's key ``0xDECAFCAFFE`` and folds in each feature in turn with TF's
``FingerprintCat64``; a string feature enters as its FarmHash ``Fingerprint64``, an integer one as its 64-bit
value. The row's bin is the final 64-bit hash modulo ``num_bins``.

Example:
    >>> import descend as ds
    >>> layer = ds.layers.HashedCrossing(num_bins=5)
    >>> layer((["A", "B", "A", "B", "A"], [101, 101, 101, 102, 102])).numpy()
    array([1, 4, 1, 1, 3])
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..strings import fingerprint64
from .base import Layer

__all__ = ["HashedCrossing"]

_MASK = (1 << 64) - 1
_MUL = 0xC6A4A7935BD1E995
_KEY = 0xDECAFCAFFE


def _shift_mix(v: int) -> int:
    return v ^ (v >> 47)


def _fingerprint_cat64(first: int, second: int) -> int:
    """TF's ``FingerprintCat64``: two 64-bit fingerprints combined, order-dependent."""
    result = first ^ _MUL
    result ^= (_shift_mix((second * _MUL) & _MASK) * _MUL) & _MASK
    result = (result * _MUL) & _MASK
    result = (_shift_mix(result) * _MUL) & _MASK
    return _shift_mix(result)


def _feature(value) -> int:
    if isinstance(value, (bytes, str)):
        return fingerprint64(value.encode("utf-8") if isinstance(value, str) else value)
    return int(value) & _MASK


class HashedCrossing(Layer):
    """Crosses categorical features (strings or integers) by hashing, as Keras' ``HashedCrossing``.

    Args:
        num_bins: the number of bins.
        output_mode: ``"int"`` (default; int64 bins) or ``"one_hot"`` (float32 rows of ``num_bins``).
        sparse: must be False (descend has no sparse outputs here).

    Called on a list or tuple of at least two inputs of equal shape: scalars, ``(batch,)`` or ``(batch, 1)``.
    """

    _autocast = False

    def __init__(self, num_bins, output_mode="int", sparse=False, **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        super().__init__(**kwargs)
        if isinstance(num_bins, bool) or not isinstance(num_bins, (int, np.integer)) or num_bins <= 0:
            raise ValueError(f"HashedCrossing: `num_bins` must be a positive int. Received: num_bins={num_bins!r}")
        if output_mode not in ("int", "one_hot"):
            raise ValueError("HashedCrossing: `output_mode` must be 'int' or 'one_hot'. "
                             f"Received: output_mode={output_mode!r}")
        if sparse:
            raise ValueError("HashedCrossing: sparse outputs are not supported by descend (sparse=True)")
        self.num_bins = int(num_bins)
        self.output_mode = output_mode
        self.sparse = False
        self._build_at_init()

    def _convert_inputs(self, x):
        if isinstance(x, (list, tuple)):  # the features one by one: strings and integers may mix
            return type(x)(super(HashedCrossing, self)._convert_inputs(v) for v in x)
        return super()._convert_inputs(x)

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 2:
            raise ValueError(f"HashedCrossing should be called on a list or tuple of at least two inputs. "
                             f"Received: inputs={inputs!r}")
        arrays = [np.asarray(convert_to_tensor(x).numpy()) for x in inputs]
        shape = arrays[0].shape
        if len(shape) > 2 or (len(shape) == 2 and shape[-1] != 1):
            raise ValueError("All HashedCrossing inputs should have shape (), (batch_size) or (batch_size, 1). "
                             f"Received shape {shape}")
        if any(a.shape != shape for a in arrays[1:]):
            raise ValueError(f"All HashedCrossing inputs should have equal shape. Received shapes "
                             f"{[a.shape for a in arrays]}")
        for a in arrays:
            if a.dtype.kind not in "iuSU" and a.dtype != object:
                raise ValueError(f"All HashedCrossing inputs should have an integer or string dtype. Received "
                                 f"dtype {a.dtype}")
        flat = [a.reshape(-1) for a in arrays]
        bins = np.empty(flat[0].shape, np.int64)
        for row in range(bins.size):
            h = _KEY
            for column in flat:
                h = _fingerprint_cat64(h, _feature(column[row]))
            bins[row] = h % self.num_bins
        bins = bins.reshape(shape)
        if self.output_mode == "int":
            return Tensor(bins.astype(self.compute_dtype))
        if bins.ndim == 2:
            bins = bins[:, 0]
        return Tensor(np.eye(self.num_bins, dtype=self.compute_dtype)[bins])

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape[0])
        if self.output_mode == "int":
            return shape
        if shape and shape[-1] == 1:
            shape = shape[:-1]
        return shape + (self.num_bins,)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_bins": self.num_bins, "output_mode": self.output_mode, "sparse": False}
