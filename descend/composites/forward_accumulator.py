"""``tf.autodiff``: ``GradientTape`` (descend's, the same class) and ``ForwardAccumulator``, forward-mode
Jacobian-vector products.

descend has no forward-mode tape; :class:`ForwardAccumulator` computes ``J v`` exactly with two reverse passes
(the "double-backward" identity): inside the block a persistent tape records the ops from the primals; for
a target, ``g(u) = J^T u`` is the reverse pass with output gradient ``u`` (recorded by a second tape, the
reverse pass being made of descend's differentiable ops), and ``J v = d/du <J^T u, v>``. The values are TF's
(a JVP is linear in ``u``); the cost is two reverse passes per ``jvp`` call instead of TF's one forward pass.

Example:
    >>> import descend as ds
    >>> x = ds.Variable([1.0, 2.0])
    >>> with ds.autodiff.ForwardAccumulator(x, ds.constant([1.0, 0.0])) as acc:
    ...     y = ds.reduce_sum(x * x * x)
    >>> float(acc.jvp(y))
    3.0
"""

from __future__ import annotations

from .. import nest
from ..framework import GradientTape
from ..framework.tensor import convert_to_tensor
from ..ops import ones_like, reduce_sum, zeros_like

__all__ = ["ForwardAccumulator", "GradientTape"]


class ForwardAccumulator:
    """Jacobian-vector products of the ops run inside its ``with`` block, for ``primals`` moved along
    ``tangents`` (the same structure and shapes)."""

    def __init__(self, primals, tangents):
        self._primals, self._tangents = [], []
        self._tape = GradientTape(persistent=True, watch_accessed_variables=False)
        self._active = False
        self._add(primals, tangents)

    def _add(self, primals, tangents):
        flat_p, flat_t = nest.flatten(primals), nest.flatten(tangents)
        if len(flat_p) != len(flat_t):
            raise ValueError(f"ForwardAccumulator: {len(flat_p)} primals but {len(flat_t)} tangents")
        for p, t in zip(flat_p, flat_t):
            t = convert_to_tensor(t, dtype=p.dtype)
            if tuple(t.shape) != tuple(p.shape):
                raise ValueError(f"ForwardAccumulator: a tangent of shape {tuple(t.shape)} for a primal of shape "
                                 f"{tuple(p.shape)}")
            self._primals.append(p)
            self._tangents.append(t)
            self._tape.watch(p)

    def __enter__(self):
        self._tape.__enter__()
        self._active = True
        return self

    def __exit__(self, *exc):
        self._active = False
        return self._tape.__exit__(*exc)

    def jvp(self, primals, unconnected_gradients="none"):
        """``J v`` for each tensor of ``primals`` (a structure of targets computed in the block): None for a
        target that does not depend on the primals (zeros with ``unconnected_gradients="zero"``)."""
        mode = getattr(unconnected_gradients, "value", unconnected_gradients)
        if mode not in ("none", "zero"):
            raise ValueError(f"jvp: unconnected_gradients must be 'none' or 'zero'. Received {unconnected_gradients!r}")

        def one(target):
            u = zeros_like(target) + ones_like(target)  # any value: J^T u is linear in u
            with GradientTape() as outer:
                outer.watch(u)
                grads = self._tape.gradient(target, self._primals, output_gradients=u)
                pairs = [(g, t) for g, t in zip(grads, self._tangents) if g is not None]
                if not pairs:
                    return zeros_like(target) if mode == "zero" else None
                dot = sum(reduce_sum(convert_to_tensor(g) * t) for g, t in pairs)
            result = outer.gradient(dot, u)
            return zeros_like(target) if result is None else result  # J^T u free of u: J is zero here

        return nest.map_structure(one, primals)
