"""``ReversibleEmbedding`` (as Keras'): an ``Embedding`` that also maps vectors back to logits over its vocabulary.

``layer(ids)`` is the lookup ``embeddings[ids]``; ``layer(vectors, reverse=True)`` is ``vectors @ embeddings.T``
(``tie_weights=True``, the default) or ``vectors @ reverse_embeddings`` (a separate ``(output_dim, input_dim)``
table when ``tie_weights=False``), cast to ``reverse_dtype`` when one is given, and with ``logit_soft_cap=s``
squashed to ``s * tanh(logits / s)``. The language-model head that shares its input embedding.

Example:
    >>> import descend as ds
    >>> layer = ds.layers.ReversibleEmbedding(5, 2, embeddings_initializer="ones")
    >>> vectors = layer(ds.constant([[1, 3]]))
    >>> vectors.shape, layer(vectors, reverse=True).numpy()[0, 0].tolist()
    (TensorShape([1, 2, 2]), [2.0, 2.0, 2.0, 2.0, 2.0])
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..ops import array_ops, math_ops
from .base import set_mask
from .core import Embedding

__all__ = ["ReversibleEmbedding"]


class ReversibleEmbedding(Embedding):
    """An embedding table usable in both directions (``keras.layers.ReversibleEmbedding``).

    Args:
        input_dim, output_dim, embeddings_initializer, embeddings_regularizer, embeddings_constraint, mask_zero:
            as :class:`Embedding`.
        tie_weights: reuse the table's transpose for the reverse projection (default True); else a separate
            trainable ``reverse_embeddings`` of shape ``(output_dim, input_dim)``.
        reverse_dtype: the dtype of the reverse matmul (e.g. ``"float32"`` under mixed precision); None keeps the
            inputs'.
        logit_soft_cap: a positive number ``s``: reverse logits become ``s * tanh(logits / s)``; None: none.

    Call arguments: ``inputs``, ``reverse`` (default False).
    """

    def __init__(self, input_dim, output_dim, tie_weights=True, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False, reverse_dtype=None,
                 logit_soft_cap=None, **kwargs):
        super().__init__(input_dim, output_dim, embeddings_initializer=embeddings_initializer,
                         embeddings_regularizer=embeddings_regularizer, embeddings_constraint=embeddings_constraint,
                         mask_zero=mask_zero, **kwargs)
        if not isinstance(tie_weights, (bool, np.bool_)):
            raise ValueError(f"ReversibleEmbedding: `tie_weights` must be a bool. Received: tie_weights={tie_weights!r}")
        self.tie_weights = bool(tie_weights)
        if reverse_dtype is not None:
            reverse_dtype = backend.np_dtype(reverse_dtype).name
            if np.dtype(reverse_dtype).kind != "f":
                raise ValueError(f"ReversibleEmbedding: `reverse_dtype` must be a float dtype. Received: "
                                 f"reverse_dtype={reverse_dtype!r}")
        self.reverse_dtype = reverse_dtype
        if logit_soft_cap is not None and (isinstance(logit_soft_cap, bool) or not isinstance(
                logit_soft_cap, (int, float, np.number)) or not logit_soft_cap > 0):
            raise ValueError(f"ReversibleEmbedding: `logit_soft_cap` must be None or a positive number. Received: "
                             f"logit_soft_cap={logit_soft_cap!r}")
        self.logit_soft_cap = logit_soft_cap
        self.reverse_embeddings = None

    def build(self, input_shape=None):
        super().build(input_shape)
        if not self.tie_weights:
            self.reverse_embeddings = self.add_weight(shape=(self.output_dim, self.input_dim),
                                                      initializer=self.embeddings_initializer,
                                                      name="reverse_embeddings")

    def call(self, inputs, reverse=False):
        if not reverse:
            result = super().call(inputs)
            if self.mask_zero:  # as Keras: the forward output carries the mask, the reverse one none
                set_mask(result, math_ops.not_equal(inputs, 0))
            return result
        x = inputs
        if x.dtype.kind != "f":
            raise ValueError(f"ReversibleEmbedding(reverse=True) expects float vectors of size {self.output_dim}. "
                             f"Received dtype {x.dtype.name}")
        if x.shape[-1] != self.output_dim:
            raise ValueError(f"ReversibleEmbedding(reverse=True): the inputs' last axis must be output_dim="
                             f"{self.output_dim}. Received shape {tuple(x.shape)}")
        kernel = array_ops.transpose(self.embeddings) if self.tie_weights else self.reverse_embeddings
        if self.reverse_dtype is not None:
            x = math_ops.cast(x, dtype=self.reverse_dtype)
            kernel = math_ops.cast(kernel, dtype=self.reverse_dtype)
        elif kernel.dtype != x.dtype:
            kernel = math_ops.cast(kernel, dtype=x.dtype)
        logits = math_ops.matmul(x, kernel)
        if self.logit_soft_cap is not None:
            cap = np.asarray(self.logit_soft_cap, dtype=logits.dtype.dtype)
            logits = math_ops.multiply(math_ops.tanh(math_ops.divide(logits, cap)), cap)
        return logits

    def compute_mask(self, inputs, mask=None):
        return None

    def compute_output_shape(self, input_shape, reverse=False):
        shape = list(input_shape)
        if reverse:
            shape[-1] = self.input_dim
            return tuple(shape)
        return tuple(shape) + (self.output_dim,)

    def get_config(self) -> dict:
        return {**super().get_config(), "tie_weights": self.tie_weights, "reverse_dtype": self.reverse_dtype,
                "logit_soft_cap": self.logit_soft_cap}
