"""``MultiHeadAttention`` (Vaswani et al. 2017), with Keras 3's arguments, weights and masking."""

from __future__ import annotations

import math

import numpy as np

from .. import constraints, initializers, regularizers
from ..framework.tensor import Tensor
from ..ops import math_ops, nn_ops, random_draw
from ._seeded import layer_rng
from .base import Layer, attention_masks
from .core import _positive_int

__all__ = ["MultiHeadAttention"]


class _Projection(Layer):
    """An einsum projection with a kernel of shape ``(in, *out)`` and a bias of shape ``out``
    (the ``query``/``key``/``value``/``attention_output`` sublayers of Keras' MultiHeadAttention)."""

    def __init__(self, equation: str, out_shape: tuple, contract: int, use_bias: bool, owner, **kwargs):
        super().__init__(**kwargs)
        self.equation, self.out_shape, self.contract, self.use_bias = equation, tuple(out_shape), contract, use_bias
        self.owner = owner
        self.kernel = self.bias = None

    def build(self, input_shape):
        o = self.owner
        in_dims = tuple(int(d) for d in tuple(input_shape)[-self.contract:])
        self.kernel = self.add_weight(shape=in_dims + self.out_shape, initializer=o.kernel_initializer,
                                      regularizer=o.kernel_regularizer, constraint=o.kernel_constraint,
                                      name="kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=self.out_shape, initializer=o.bias_initializer,
                                        regularizer=o.bias_regularizer, constraint=o.bias_constraint, name="bias")

    def call(self, inputs):
        y = math_ops.einsum(self.equation, inputs, self.kernel)
        return y if self.bias is None else math_ops.add(y, self.bias)


def _check_value_and_key(value_shape: tuple, key_shape: tuple) -> None:
    if value_shape[1:-1] != key_shape[1:-1]:
        raise ValueError("All dimensions of `value` and `key`, except the last one, must be equal. Received: "
                         f"value_shape={value_shape} and key_shape={key_shape}")  # Keras' words


class MultiHeadAttention(Layer):
    """Multi-head attention: ``softmax(Q K^T / sqrt(key_dim) + mask) V`` per head, then an output projection.

    ``query`` ``(B, Tq, dq)``, ``value`` ``(B, Tv, dv)`` and ``key`` (default
    ``value``) are projected to ``num_heads`` heads of ``key_dim`` (queries,
    keys) and ``value_dim`` (values) features, and the heads' results are
    projected back to ``dq`` features (or ``output_shape``). As Keras 3, masked
    scores get -1e9 added before the softmax and masked probabilities are
    set to 0 after it (a fully masked query row attends to nothing).

    Args:
        num_heads: the number of heads.
        key_dim: the size of each head for queries and keys.
        value_dim: the size of each head for values (default ``key_dim``).
        dropout: dropout rate on the attention probabilities (training only).
        use_bias: biases in the four projections (default True).
        output_shape: the last dimension of the output (default ``dq``).
        kernel_initializer, bias_initializer, kernel/bias regularizers and constraints: as Dense.
        seed: the dropout generator's seed.

    Call arguments: ``query``, ``value``, ``key=None``, ``attention_mask``
    (bool ``(B, Tq, Tv)``, True = attend), ``return_attention_scores``,
    ``training``, ``use_causal_mask`` (query ``i`` sees keys ``<= i``), and
    ``query_mask``/``value_mask``/``key_mask`` (bool ``(B, T)``; by default the
    Keras masks that ``query`` and ``value`` carry).

    Example:
        >>> import descend as ds
        >>> ds.clear_session()
        >>> mha = ds.layers.MultiHeadAttention(num_heads=2, key_dim=3)
        >>> out, scores = mha(ds.ones((4, 5, 8)), ds.ones((4, 6, 8)), return_attention_scores=True)
        >>> out.shape, scores.shape
        (TensorShape([4, 5, 8]), TensorShape([4, 2, 5, 6]))
        >>> [w.path for w in mha.weights][:2]
        ['multi_head_attention/query/kernel', 'multi_head_attention/query/bias']
    """

    supports_masking = True

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias: bool = True, output_shape=None,
                 attention_axes=None, kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None, kernel_constraint=None,
                 bias_constraint=None, seed=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.num_heads = _positive_int(num_heads, "num_heads", "MultiHeadAttention")
        self.key_dim = _positive_int(key_dim, "key_dim", "MultiHeadAttention")
        self.value_dim = self.key_dim if value_dim is None else _positive_int(value_dim, "value_dim",
                                                                              "MultiHeadAttention")
        if isinstance(dropout, bool) or not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"MultiHeadAttention: `dropout` must be in [0, 1). Received: dropout={dropout!r}")
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        if output_shape is not None and not isinstance(output_shape, (int, np.integer)):
            # Keras' rule: an int, or a tuple/list of ints (descend: of one int); anything else is a ValueError
            if not isinstance(output_shape, (tuple, list)):
                raise ValueError("Invalid `output_shape` of MultiHeadAttention: expected an int or a tuple/list of "
                                 f"ints. Received: output_shape={output_shape!r}")
            dims = tuple(output_shape)
            if len(dims) != 1:
                raise ValueError("MultiHeadAttention: descend supports an `output_shape` of one dimension (an int "
                                 f"or a tuple of one int). Received: output_shape={output_shape!r}")
            output_shape = dims[0]
        self.output_shape = None if output_shape is None else _positive_int(output_shape, "output_shape",
                                                                            "MultiHeadAttention")
        if attention_axes not in (None, -2, (-2,), [-2], 1, (1,), [1]):
            raise ValueError("MultiHeadAttention: only attention over the sequence axis of (batch, T, features) "
                             f"inputs is supported (attention_axes=None). Received: {attention_axes!r}")
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed, self._rng = layer_rng(seed, "MultiHeadAttention")
        h, k, v = self.num_heads, self.key_dim, self.value_dim
        self._query_dense = _Projection("abc,cde->abde", (h, k), 1, self.use_bias, self, name="query", dtype=self._dtype)
        self._key_dense = _Projection("abc,cde->abde", (h, k), 1, self.use_bias, self, name="key", dtype=self._dtype)
        self._value_dense = _Projection("abc,cde->abde", (h, v), 1, self.use_bias, self, name="value", dtype=self._dtype)
        self._output_dense = None

    def build(self, query_shape, value_shape=None, key_shape=None):
        """Create the projections: the query's and the output's from ``query_shape``; the value's and the key's
        too when their shapes are given (else at the first call)."""
        query_shape = tuple(query_shape)
        if value_shape is not None:
            _check_value_and_key(tuple(value_shape), tuple(value_shape if key_shape is None else key_shape))
        if len(query_shape) != 3:
            raise ValueError(f"MultiHeadAttention expects query of shape (batch, T, features). Received "
                             f"{query_shape}")
        out = self.output_shape or int(query_shape[-1])
        self._output_dense = _Projection("abcd,cde->abe", (out,), 2, self.use_bias, self, name="attention_output",
                                         dtype=self._dtype)
        self._query_dense.build(query_shape)
        if value_shape is not None:
            self._key_dense.build(tuple(value_shape if key_shape is None else key_shape))
            self._value_dense.build(tuple(value_shape))
        self._output_dense.build(query_shape[:-1] + (self.num_heads, self.value_dim))

    def call(self, query, value, key=None, query_mask=None, value_mask=None, key_mask=None, attention_mask=None,
             return_attention_scores: bool = False, training=None, use_causal_mask: bool = False):
        q_in, v_in = self._float_input(query), self._float_input(self._convert_inputs(value))
        k_in = v_in if key is None else self._float_input(self._convert_inputs(key))
        _check_value_and_key(tuple(v_in.shape), tuple(k_in.shape))
        for name, t in (("query", q_in), ("value", v_in), ("key", k_in)):
            if t.ndim != 3:
                raise ValueError(f"MultiHeadAttention expects {name} of shape (batch, T, features). Received "
                                 f"{tuple(t.shape)}")
        query_mask, value_mask, key_mask = attention_masks(query, value, key, query_mask, value_mask, key_mask)
        if self._output_dense is None:
            self.build(tuple(q_in.shape))
        q = self._query_dense(q_in)  # (B, Tq, H, dk)
        k = self._key_dense(k_in)  # (B, Tv, H, dk)
        v = self._value_dense(v_in)  # (B, Tv, H, dv)
        q = math_ops.multiply(q, 1.0 / math.sqrt(self.key_dim))
        scores = math_ops.einsum("aecd,abcd->acbe", k, q)  # (B, H, Tq, Tv)
        mask = self._combined_mask(q_in, v_in, query_mask, value_mask, key_mask, attention_mask, use_causal_mask)
        if mask is not None:
            scores = math_ops.add(scores, Tensor((1.0 - mask[:, None, :, :]).astype(scores.dtype.dtype) * -1e9))
        probs = nn_ops.softmax(scores, axis=-1)
        if mask is not None:  # Keras 3 zeroes masked positions after the softmax: a fully masked row is all 0
            probs = math_ops.multiply(probs, Tensor(mask[:, None, :, :].astype(probs.dtype.dtype)))
        dropped = probs
        if training and self.dropout > 0:
            shape, rate, dt = tuple(probs.shape), self.dropout, probs.dtype.dtype  # an op: drawn on every call
            dropped = math_ops.multiply(probs, random_draw.draw(
                fn=lambda: ((self._rng.random(shape) >= rate) / (1.0 - rate)).astype(dt)))
        out = math_ops.einsum("acbe,aecd->abcd", dropped, v)  # (B, Tq, H, dv)
        out = self._output_dense(out)
        if return_attention_scores:
            return out, probs
        return out

    @staticmethod
    def _combined_mask(q, v, query_mask, value_mask, key_mask, attention_mask, causal):
        b, tq, tv = q.shape[0], q.shape[1], v.shape[1]
        mask = None

        def both(m, extra):
            return extra if m is None else np.logical_and(m, extra)

        if query_mask is not None:
            mask = both(mask, np.asarray(query_mask).astype(bool)[:, :, None])
        if value_mask is not None:
            mask = both(mask, np.asarray(value_mask).astype(bool)[:, None, :])
        if key_mask is not None:
            mask = both(mask, np.asarray(key_mask).astype(bool)[:, None, :])
        if attention_mask is not None:
            am = np.asarray(attention_mask).astype(bool)
            if am.ndim == 2:
                am = am[None]
            mask = both(mask, am)
        if causal:
            mask = both(mask, np.tril(np.ones((tq, tv), dtype=bool))[None])
        if mask is None:
            return None
        return np.broadcast_to(mask, (b, tq, tv)).astype(np.float64)

    def compute_mask(self, inputs, mask=None):
        return mask

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape = tuple(query_shape)
        if value_shape is not None:
            _check_value_and_key(tuple(value_shape), tuple(value_shape if key_shape is None else key_shape))
        return query_shape[:-1] + (self.output_shape or query_shape[-1],)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "key_dim": self.key_dim,
            "value_dim": self.value_dim,
            "dropout": self.dropout,
            "use_bias": self.use_bias,
            "output_shape": self.output_shape,
            "attention_axes": None,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
            "seed": self.seed,
        }
