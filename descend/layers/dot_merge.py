"""The ``Dot`` merge layer (as Keras'): the dot product of two batches of tensors along given axes.

``Dot(axes=1)([a, b])`` of ``(batch, n)`` inputs is ``(batch, 1)``: ``sum(a * b, axis=1)``; with
``normalize=True`` both are L2-normalized along the axes first (cosine proximity).

Example:
    >>> import descend as ds
    >>> ds.layers.Dot(axes=1)([ds.constant([[1.0, 2.0]]), ds.constant([[3.0, 4.0]])]).numpy().tolist()
    [[11.0]]
"""

from __future__ import annotations

from ..ops import math_ops
from .base import Layer

__all__ = ["Dot", "dot"]


def _l2_normalize(x, axis):
    squared = math_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)
    return math_ops.multiply(x, math_ops.rsqrt(math_ops.maximum(squared, 1e-12)))


class Dot(Layer):
    """``batch_dot(a, b, axes)``: contract ``axes`` (an int, or one axis per input; batch axis 0 excluded).

    Args:
        axes: an int or a pair of ints.
        normalize: L2-normalize both inputs along the axes first.
    """

    supports_masking = True

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axes, int):
            axes = (axes, axes)
        if not isinstance(axes, (list, tuple)) or len(axes) != 2 or not all(isinstance(a, int) for a in axes):
            raise TypeError(f"Invalid type for argument `axes`: it should be a list or an int. Received: "
                            f"axes={axes!r}")
        self.axes = tuple(axes)
        self.normalize = bool(normalize)
        self._build_at_init()

    def _axes(self, a, b):
        return [ax % x.ndim for ax, x in zip(self.axes, (a, b))]

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) != 2:
            raise ValueError(f"A `Dot` layer should be called on a list of 2 inputs. Received: {inputs!r}")
        a, b = inputs
        ax_a, ax_b = self._axes(a, b)
        if a.shape[ax_a] != b.shape[ax_b]:
            raise ValueError(f"Incompatible input shapes: axis values {a.shape[ax_a]} (at axis {ax_a}) != "
                             f"{b.shape[ax_b]} (at axis {ax_b}). Full input shapes: {tuple(a.shape)}, {tuple(b.shape)}")
        if self.normalize:
            a, b = _l2_normalize(a, ax_a), _l2_normalize(b, ax_b)
        letters = "abcdefghij"
        sa = ["z"] + list(letters[:a.ndim - 1])
        sb = ["z"] + list(letters[a.ndim - 1:a.ndim - 1 + b.ndim - 1])
        sb[ax_b] = sa[ax_a]
        out = [c for k, c in enumerate(sa) if k != ax_a] + [c for k, c in enumerate(sb) if k not in (0, ax_b)]
        y = math_ops.einsum(f"{''.join(sa)},{''.join(sb)}->{''.join(out)}", a, b)
        if y.ndim == 1:  # Keras keeps a trailing axis of 1
            from ..ops import array_ops

            y = array_ops.expand_dims(y, axis=1)
        return y

    def compute_mask(self, inputs, mask=None):
        return None  # the contraction leaves no step axis to mask, as Keras' Dot

    def compute_output_shape(self, input_shape):
        sa, sb = (list(s) for s in input_shape)
        ax_a, ax_b = (ax % len(s) for ax, s in zip(self.axes, (sa, sb)))
        out = [s for k, s in enumerate(sa) if k != ax_a] + [s for k, s in enumerate(sb) if k not in (0, ax_b)]
        return tuple(out) if len(out) > 1 else (out[0], 1)

    def get_config(self) -> dict:
        return {**super().get_config(), "axes": self.axes, "normalize": self.normalize}


def dot(inputs, axes=-1, **kwargs):
    """``Dot(axes, **kwargs)(inputs)`` (the functional form)."""
    return Dot(axes=axes, **kwargs)(inputs)
