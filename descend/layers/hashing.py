"""``Hashing`` (as Keras'): each value's bin by TF's FarmHash ``Fingerprint64`` of its string form (with a
``salt``, by the keyed SipHash-2-4 of ``tf.strings.to_hash_bucket_strong``), the same bins as Keras with TensorFlow.

Strings are hashed as they are; integers by their decimal string (``tf.as_string``); floats are first cast to
int64 (truncated toward zero), as Keras. ``bin = Fingerprint64(s) % num_bins``; with ``mask_value`` the mask's
elements get bin 0 and the others ``Fingerprint64(s) % (num_bins - 1) + 1``. ``output_mode`` ``"one_hot"``,
``"multi_hot"`` or ``"count"`` encode the bins as ``CategoryEncoding`` does.

Example:
    >>> import descend as ds
    >>> ds.layers.Hashing(num_bins=3)([["A"], ["B"], ["C"], ["D"], ["E"]]).numpy().ravel()
    array([1, 0, 1, 1, 2])
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..strings import as_string, to_hash_bucket_fast, to_hash_bucket_strong
from .base import Layer
from .preprocessing import CategoryEncoding

__all__ = ["Hashing"]

_MODES = ("int", "one_hot", "multi_hot", "count")


class Hashing(Layer):
    """Hashes strings or integers into ``num_bins`` bins.

    Args:
        num_bins: the number of bins, counting the mask's bin 0 when ``mask_value`` is set.
        mask_value: a value (string or int) sent to bin 0; None (default): no mask bin.
        salt: None (default: FarmHash), or the key of a keyed SipHash-2-4 (``tf.strings.to_hash_bucket_strong``):
            an int ``k`` (the key ``[k, k]``) or two ints.
        output_mode: ``"int"`` (default; int64 bins), ``"one_hot"``, ``"multi_hot"`` or ``"count"`` (float32).
        sparse: must be False (descend has no sparse outputs here).
    """

    _autocast = False  # strings and integers are read as they are

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False, **kwargs):
        if kwargs.get("dtype") is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        super().__init__(**kwargs)
        if isinstance(num_bins, bool) or not isinstance(num_bins, (int, np.integer)) or num_bins <= 0:
            raise ValueError(f"Hashing: `num_bins` must be a positive int. Received: num_bins={num_bins!r}")
        if output_mode not in _MODES:
            raise ValueError(f"Hashing: `output_mode` must be one of {_MODES}. Received: output_mode={output_mode!r}")
        if output_mode == "int" and np.dtype(self.compute_dtype) not in (np.dtype("int32"), np.dtype("int64")):
            raise ValueError(f"Hashing: with output_mode='int', `dtype` must be 'int32' or 'int64'. Received: "
                             f"dtype={self.compute_dtype!r}")
        if sparse:
            raise ValueError("Hashing: sparse outputs are not supported by descend (sparse=True)")
        if salt is not None:
            if isinstance(salt, (tuple, list)) and len(salt) == 2 and all(
                    isinstance(k, (int, np.integer)) and not isinstance(k, bool) for k in salt):
                salt = [int(k) for k in salt]
            elif isinstance(salt, (int, np.integer)) and not isinstance(salt, bool):
                salt = [int(salt), int(salt)]
            else:
                raise ValueError("Hashing: `salt` must be an int or a tuple of 2 ints (the SipHash key). Received: "
                                 f"salt={salt!r}")
        self.num_bins = int(num_bins)
        self.mask_value = mask_value
        self.salt = salt
        self.output_mode = output_mode
        self.sparse = False
        self._build_at_init()

    def _bins(self, values: np.ndarray) -> np.ndarray:
        bins = self.num_bins
        mask = None
        if self.mask_value is not None and bins > 1:
            bins -= 1
            target = self.mask_value
            if values.dtype == object and isinstance(target, str):
                target = target.encode("utf-8")
            mask = values == target
        if values.dtype.kind == "f":
            values = values.astype(np.int64)
        if values.dtype.kind in "iub":
            strings = as_string(Tensor(values.astype(np.int64)))
        elif values.dtype == object or values.dtype.kind in "SU":
            strings = Tensor(values.astype(object)) if values.dtype.kind != "U" else convert_to_tensor(values.tolist())
        else:
            raise ValueError(f"Hashing: inputs must be strings or numbers. Received dtype {values.dtype}")
        hashed = to_hash_bucket_fast(strings, bins) if self.salt is None else \
            to_hash_bucket_strong(strings, bins, key=self.salt)
        out = np.asarray(hashed.numpy(), dtype=np.int64)
        if mask is not None:
            out = np.where(mask, 0, out + 1)
        return out

    def call(self, inputs):
        values = convert_to_tensor(inputs).numpy()
        values = np.asarray(values)
        bins = self._bins(values)
        if self.output_mode == "int":
            return Tensor(bins.astype(self.compute_dtype))
        encoder = CategoryEncoding(self.num_bins, output_mode=self.output_mode, dtype=self.compute_dtype)
        return encoder(Tensor(bins))

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        if self.output_mode == "int":
            return shape
        if not shape:
            return (self.num_bins,)
        return shape[:-1] + (self.num_bins,)

    def get_config(self) -> dict:
        return {**super().get_config(), "num_bins": self.num_bins, "mask_value": self.mask_value, "salt": self.salt,
                "output_mode": self.output_mode, "sparse": False}
