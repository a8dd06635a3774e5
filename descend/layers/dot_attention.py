"""Attention over ``[query, value]`` or ``[query, value, key]`` as Keras' ``Attention`` (Luong-style, dot
product or "concat" scores) and ``AdditiveAttention`` (Bahdanau-style).

``scores`` is ``(batch, Tq, Tv)``; masked value positions (``mask=[query_mask, value_mask]``, or a causal
mask) get ``scores - 1e9`` (65504 in float16) before the softmax, as Keras; the output is
``softmax(scores) @ value``, zeroed where the query mask is False.

* ``Attention``: ``query @ key^T`` (times a learned scalar ``scale`` with ``use_scale``); ``score_mode=
  "concat"``: ``concat_score_weight * sum(tanh(scale * (q + k)), -1)``.
* ``AdditiveAttention``: ``sum(scale * tanh(q + k), -1)``, ``scale`` a learned vector of size ``dim``
  (``use_scale=True`` by default).

Example:
    >>> import descend as ds
    >>> q, v = ds.ones((2, 3, 4)), ds.ones((2, 5, 4))
    >>> ds.layers.Attention()([q, v]).shape, ds.layers.AdditiveAttention()([q, v]).shape
    (TensorShape([2, 3, 4]), TensorShape([2, 3, 4]))
"""

from __future__ import annotations

import numpy as np

from ..framework.tensor import Tensor, convert_to_tensor
from ..ops import array_ops, math_ops, nn_ops
from ._seeded import layer_rng
from .base import Layer

__all__ = ["Attention", "AdditiveAttention"]


class _BaseAttention(Layer):
    supports_masking = True

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        super().__init__(**kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError("Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                             f"Received: score_mode={score_mode}")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1:
            raise ValueError(f"`dropout` must be in [0, 1]. Received: dropout={dropout!r}")
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed, self._rng = layer_rng(seed, type(self).__name__)  # unseeded: Python's random draws the seed
        self.scale = None
        self.concat_score_weight = None

    def _validate(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, value] or [query, "
                             f"value, key]. Received: inputs={inputs}.")
        if not 2 <= len(inputs) <= 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely [query, value] or [query, "
                             f"value, key]. Received length: {len(inputs)}.")
        if mask is not None and (not isinstance(mask, (list, tuple)) or not 2 <= len(mask) <= 3):
            raise ValueError(f"{name} layer mask must be a list of length 2, namely [query_mask, value_mask]. "
                             f"Received: mask={mask}.")

    def _scores(self, q, k):
        raise NotImplementedError

    def call(self, inputs, mask=None, training=False, return_attention_scores=False, use_causal_mask=False):
        self._validate(inputs, mask)
        q = self._float_input(convert_to_tensor(inputs[0]))
        v = self._float_input(convert_to_tensor(inputs[1]))
        k = self._float_input(convert_to_tensor(inputs[2])) if len(inputs) > 2 else v
        q_mask = None if mask is None else mask[0]
        v_mask = None if mask is None else mask[1]
        scores = self._scores(q, k)
        keep = None
        if v_mask is not None:
            keep = np.asarray(convert_to_tensor(v_mask).numpy(), bool)[..., None, :]  # (batch, 1, Tv)
        if use_causal_mask:
            causal = np.tril(np.ones(tuple(scores.shape[-2:]), bool))[None]
            keep = causal if keep is None else keep & causal
        if keep is not None:
            big = 65504.0 if scores.dtype.dtype == np.float16 else 1.0e9
            # scores - big where the position is masked
            penalty = Tensor(np.where(np.broadcast_to(keep, tuple(scores.shape)), 0.0, big).astype(
                scores.dtype.dtype))
            scores = math_ops.subtract(scores, penalty)
        weights = nn_ops.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = nn_ops.dropout(weights, self.dropout, seed=self._rng)
        out = math_ops.matmul(weights, v)
        if q_mask is not None:
            qm = np.asarray(convert_to_tensor(q_mask).numpy(), bool)[..., None]
            out = math_ops.multiply(out, Tensor(qm.astype(out.dtype.dtype)))
        return (out, weights) if return_attention_scores else out

    def compute_mask(self, inputs, mask=None):
        if mask is None or mask[0] is None:
            return None
        return convert_to_tensor(mask[0])

    def compute_output_shape(self, input_shape):
        return (*tuple(input_shape[0])[:-1], tuple(input_shape[1])[-1])

    def get_config(self) -> dict:
        return {**super().get_config(), "use_scale": self.use_scale, "score_mode": self.score_mode,
                "dropout": self.dropout, "seed": self.seed}


class Attention(_BaseAttention):
    """Dot-product attention (Luong-style).

    Args:
        use_scale: learn a scalar that multiplies the scores (initialized to 1).
        score_mode: ``"dot"`` (default) or ``"concat"``.
        dropout: the dropout rate on the attention weights (training only).
        seed: the dropout's seed.

    Call arguments: ``inputs=[query, value]`` or ``[query, value, key]``; ``mask=[query_mask, value_mask]``;
    ``return_attention_scores``; ``use_causal_mask``; ``training``.
    """

    def build(self, input_shape):
        if self.use_scale:
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(shape=(), initializer="ones", name="concat_score_weight")

    def _scores(self, q, k):
        if self.score_mode == "dot":
            scores = math_ops.matmul(q, k, transpose_b=True)
            return scores if self.scale is None else math_ops.multiply(scores, self.scale)
        # concat: w * sum(tanh(scale * (q[:, :, None] + k[:, None])), -1)
        summed = math_ops.add(array_ops.expand_dims(q, axis=-2), array_ops.expand_dims(k, axis=-3))
        if self.scale is not None:
            summed = math_ops.multiply(summed, self.scale)
        return math_ops.multiply(self.concat_score_weight, math_ops.reduce_sum(math_ops.tanh(summed), axis=-1))


class AdditiveAttention(_BaseAttention):
    """Additive attention (Bahdanau-style): ``scores = sum(scale * tanh(q + k), -1)``.

    Args:
        use_scale: learn a vector ``scale`` of the features' size (default True, glorot-uniform).
        dropout, seed: as for ``Attention``.
    """

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        kwargs.pop("score_mode", None)
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        if self.use_scale:
            dim = tuple(input_shape[0])[-1]
            self.scale = self.add_weight(shape=(dim,), initializer="glorot_uniform", name="scale")

    def _scores(self, q, k):
        summed = math_ops.tanh(math_ops.add(array_ops.expand_dims(q, axis=-2), array_ops.expand_dims(k, axis=-3)))
        if self.scale is not None:
            summed = math_ops.multiply(summed, self.scale)
        return math_ops.reduce_sum(summed, axis=-1)

    def get_config(self) -> dict:
        config = super().get_config()
        del config["score_mode"]
        return config
