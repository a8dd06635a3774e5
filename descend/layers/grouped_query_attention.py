"""``GroupQueryAttention`` (Keras' ``GroupedQueryAttention``, Ainslie et al. 2023): attention whose
``num_query_heads`` query heads share ``num_key_value_heads`` key/value heads (each key/value head serves
``num_query_heads / num_key_value_heads`` consecutive query heads).

``query`` ``(B, Tq, d)`` is projected to ``(B, Tq, Hq, head_dim)``, ``key``/``value`` ``(B, Tv, dv)`` to ``(B, Tv,
Hkv, head_dim)``; each key/value head is repeated for its group, ``scores = softmax(q k^T / sqrt(head_dim) +
mask)`` per query head, the heads' results ``scores v`` are projected back to ``d`` features (``use_gate``
multiplies them by ``sigmoid(query @ gate)`` first). As Keras, masked scores get -1e9 before the softmax and masked
probabilities are 0 after it; the mask combines the query/value/key masks (given or carried by the inputs),
``attention_mask``, ``use_causal_mask`` (query ``i`` sees keys ``<= i``) and ``sliding_window=w`` (keys with
``|i - j| < w``). The weights are Keras': ``query``, ``key``, (``gate``,) ``value``, ``attention_output``, each a
``kernel`` and (``use_bias``) a ``bias``.

Example:
    >>> import descend as ds
    >>> ds.clear_session()
    >>> gqa = ds.layers.GroupQueryAttention(head_dim=4, num_query_heads=4, num_key_value_heads=2)
    >>> out, scores = gqa(ds.ones((2, 5, 8)), ds.ones((2, 3, 6)), return_attention_scores=True)
    >>> out.shape, scores.shape, gqa.weights[2].path, gqa.weights[2].shape
    (TensorShape([2, 5, 8]), TensorShape([2, 4, 5, 3]), 'grouped_query_attention/key/kernel', TensorShape([6, 2, 4]))
"""

from __future__ import annotations

import math

import numpy as np

from .. import constraints, initializers, regularizers
from ..framework.tensor import Tensor
from ..ops import math_ops, nn_ops, random_draw
from ..ops.manipulation_ops import repeat
from ._seeded import layer_rng
from .base import Layer, attention_masks
from .core import _positive_int
from .einsum_dense import EinsumDense

__all__ = ["GroupedQueryAttention"]


class GroupedQueryAttention(Layer):
    """Grouped-query attention (``keras.layers.GroupQueryAttention``).

    Args:
        head_dim: the size of each head.
        num_query_heads: the number of query heads.
        num_key_value_heads: the number of key/value heads (it must divide ``num_query_heads``).
        dropout: dropout rate on the attention probabilities (training only; descend's draws, from ``seed``).
        use_bias: biases in the projections (default True).
        sliding_window: None or a positive int: keys farther than ``sliding_window - 1`` positions are masked.
        flash_attention: accepted for Keras' signature; descend computes the same attention either way.
        use_gate: gate the heads' outputs by ``sigmoid(query @ gate + bias)`` (default False).
        kernel_initializer, bias_initializer, kernel/bias regularizers and constraints, seed: as Keras.

    Call arguments: ``query``, ``value``, ``key=None``, ``query_mask``, ``value_mask``, ``key_mask``,
    ``attention_mask`` (bool ``(B, Tq, Tv)``, True = attend), ``return_attention_scores``, ``training``,
    ``use_causal_mask``.
    """

    supports_masking = True

    def __init__(self, head_dim, num_query_heads, num_key_value_heads, dropout=0.0, use_bias=True,
                 sliding_window=None, flash_attention=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, use_gate=False, seed=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        owner = "GroupQueryAttention"
        self.head_dim = _positive_int(head_dim, "head_dim", owner)
        self.num_query_heads = _positive_int(num_query_heads, "num_query_heads", owner)
        self.num_key_value_heads = _positive_int(num_key_value_heads, "num_key_value_heads", owner)
        if self.num_query_heads % self.num_key_value_heads:
            raise ValueError(f"{owner}: `num_query_heads` must be divisible by `num_key_value_heads`. Received: "
                             f"num_query_heads={num_query_heads}, num_key_value_heads={num_key_value_heads}")
        self.num_repeats = self.num_query_heads // self.num_key_value_heads
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float, np.number)) or not 0 <= dropout < 1:
            raise ValueError(f"{owner}: `dropout` must be in [0, 1). Received: dropout={dropout!r}")
        self.dropout = float(dropout)
        if flash_attention and self.dropout > 0:
            raise ValueError(f"{owner}: dropout is not supported when flash attention is enabled. Received: "
                             f"dropout={dropout}, flash_attention={flash_attention}")
        self.flash_attention = flash_attention  # not in the config, as Keras
        if sliding_window is not None and (isinstance(sliding_window, bool) or not isinstance(
                sliding_window, (int, np.integer)) or sliding_window <= 0):
            raise ValueError(f"{owner}: `sliding_window` must be None or a positive integer. Received: "
                             f"sliding_window={sliding_window!r}")
        self.sliding_window = None if sliding_window is None else int(sliding_window)
        self.use_bias, self.use_gate = bool(use_bias), bool(use_gate)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed, self._rng = layer_rng(seed, owner)
        self._query_dense = self._key_dense = self._gate_dense = self._value_dense = self._output_dense = None

    def _projection(self, equation, out_shape, bias_axes, name, activation=None):
        return EinsumDense(equation, output_shape=out_shape, bias_axes=bias_axes if self.use_bias else None,
                           activation=activation, kernel_initializer=self.kernel_initializer,
                           bias_initializer=self.bias_initializer, kernel_regularizer=self.kernel_regularizer,
                           bias_regularizer=self.bias_regularizer, kernel_constraint=self.kernel_constraint,
                           bias_constraint=self.bias_constraint, name=name, dtype=self._dtype)

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Create the projections; with the query's shape alone (a first call's), wait for the call's shapes."""
        query_shape = tuple(query_shape)
        if value_shape is None:
            if len(query_shape) != 3:
                raise ValueError(f"GroupQueryAttention expects query of shape (batch, T, features). Received "
                                 f"{query_shape}")
            return
        value_shape = tuple(value_shape)
        key_shape = value_shape if key_shape is None else tuple(key_shape)
        for what, shape in (("query", query_shape), ("value", value_shape), ("key", key_shape)):
            if len(shape) != 3 or shape[-1] is None:
                raise ValueError(f"GroupQueryAttention expects {what} of shape (batch, T, features) with known "
                                 f"features. Received {shape}")
        hq, hkv, d = self.num_query_heads, self.num_key_value_heads, self.head_dim
        self._query_dense = self._projection("bqm,muh->bquh", (None, hq, d), "uh", "query")
        self._query_dense.build(query_shape)
        self._key_dense = self._projection("bkm,mvh->bkvh", (None, hkv, d), "vh", "key")
        self._key_dense.build(key_shape)
        if self.use_gate:
            self._gate_dense = self._projection("bqm,muh->bquh", (None, hq, d), "uh", "gate", activation="sigmoid")
            self._gate_dense.build(query_shape)
        self._value_dense = self._projection("bkm,mvh->bkvh", (None, hkv, d), "vh", "value")
        self._value_dense.build(value_shape)
        self._output_dense = self._projection("bquh,uhm->bqm", (None, int(query_shape[-1])), "m", "attention_output")
        self._output_dense.build((None, None, hq, d))

    def _mask(self, b, tq, tv, query_mask, value_mask, key_mask, attention_mask, causal):
        parts = []
        if query_mask is not None:
            parts.append(np.asarray(query_mask).astype(bool)[:, :, None])
        if value_mask is not None:
            parts.append(np.asarray(value_mask).astype(bool)[:, None, :])
        if key_mask is not None:
            parts.append(np.asarray(key_mask).astype(bool)[:, None, :])
        if causal:
            parts.append(np.tril(np.ones((tq, tv), dtype=bool))[None])
        if self.sliding_window is not None:
            i, j = np.arange(tq)[:, None], np.arange(tv)[None, :]
            parts.append((np.abs(i - j) < self.sliding_window)[None])
        if attention_mask is not None:
            am = np.asarray(attention_mask.numpy() if hasattr(attention_mask, "numpy") else attention_mask)
            parts.append(am.astype(bool)[None] if am.ndim == 2 else am.astype(bool))
        if not parts:
            return None
        mask = parts[0]
        for p in parts[1:]:
            mask = np.logical_and(mask, p)
        try:
            return np.broadcast_to(mask, (b, tq, tv))
        except ValueError:
            raise ValueError(f"GroupQueryAttention: the masks must broadcast to (batch, Tq, Tv) = {(b, tq, tv)}. "
                             f"Received a combined mask of shape {mask.shape}") from None

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores=False, training=None, use_causal_mask=False):
        q_in = self._float_input(query)
        v_in = self._float_input(self._convert_inputs(value))
        k_in = v_in if key is None else self._float_input(self._convert_inputs(key))
        if v_in.shape[1:-1] != k_in.shape[1:-1]:
            raise ValueError("All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                             f"value_shape={tuple(v_in.shape)} and key_shape={tuple(k_in.shape)}")
        query_mask, value_mask, key_mask = attention_masks(query, value, key, query_mask, value_mask, key_mask)
        if self._query_dense is None:
            self.build(tuple(q_in.shape), tuple(v_in.shape), tuple(k_in.shape))
        gate = self._gate_dense(q_in) if self.use_gate else None
        q = self._query_dense(q_in)  # (B, Tq, Hq, D)
        k = repeat(self._key_dense(k_in), self.num_repeats, axis=2)  # (B, Tv, Hq, D)
        v = repeat(self._value_dense(v_in), self.num_repeats, axis=2)
        q = math_ops.multiply(q, np.asarray(1.0 / math.sqrt(float(self.head_dim)), q.dtype.dtype))
        scores = math_ops.einsum("bquh,bkuh->buqk", q, k)  # (B, Hq, Tq, Tv)
        mask = self._mask(q_in.shape[0], q_in.shape[1], v_in.shape[1], query_mask, value_mask, key_mask,
                          attention_mask, use_causal_mask)
        if mask is not None:
            keep = mask[:, None].astype(scores.dtype.dtype)
            scores = math_ops.add(scores, Tensor((1.0 - keep) * np.asarray(-1e9, scores.dtype.dtype)))
        probs = nn_ops.softmax(scores, axis=-1)
        if mask is not None:  # masked probabilities are 0 (a fully masked row attends to nothing), as Keras
            probs = math_ops.multiply(probs, Tensor(keep))
        dropped = probs
        if training and self.dropout > 0:
            shape, rate, dt = tuple(probs.shape), self.dropout, probs.dtype.dtype  # an op: drawn on every call
            dropped = math_ops.multiply(probs, random_draw.draw(
                fn=lambda: ((self._rng.random(shape) >= rate) / (1.0 - rate)).astype(dt)))
        out = math_ops.einsum("buqk,bkuh->bquh", dropped, v)
        if gate is not None:
            out = math_ops.multiply(out, gate)
        out = self._output_dense(out)
        if return_attention_scores:
            return out, probs
        return out

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape = tuple(query_shape)
        if value_shape is not None:
            value_shape = tuple(value_shape)
            key_shape = value_shape if key_shape is None else tuple(key_shape)
            if query_shape[-1] != value_shape[-1]:
                raise ValueError("The last dimension of `query_shape` and `value_shape` must be equal, but are "
                                 f"{query_shape[-1]}, {value_shape[-1]}. Received: query_shape={query_shape}, "
                                 f"value_shape={value_shape}")
            if value_shape[1:-1] != key_shape[1:-1]:
                raise ValueError("All dimensions of `value` and `key`, except the last one, must be equal. "
                                 f"Received: value_shape={value_shape} and key_shape={key_shape}")
        return query_shape

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "head_dim": self.head_dim,
            "num_query_heads": self.num_query_heads,
            "num_key_value_heads": self.num_key_value_heads,
            "use_bias": self.use_bias,
            "use_gate": self.use_gate,
            "dropout": self.dropout,
            "sliding_window": self.sliding_window,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "seed": self.seed,
        }
