"""Opaque plan nodes: calls a trace records whole and a plan runs as one step.

:class:`OptimizerNode` is ``Optimizer.apply_gradients`` (the method is marked
with :func:`descend.framework.trace.opaque`): the trace records the call and
its gradients, and every call of the compiled function makes it again through
the optimizer's public method, whose repeated dense step is one fused kernel
over all variables. The plan hands it Tensors over the plan's gradient
buffers (the same arrays every call; the optimizer reads them during the
call). This is the one place a plan meets the optimizer: a later optimizer
stage that a plan can fuse with replaces this class, not the plan.
"""

from __future__ import annotations

import numpy as np

from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import ArrayLike, Tensor
from ..framework.variable import Variable
from .graph import OpaqueNode, Value

__all__ = ["OptimizerNode"]


class OptimizerNode(OpaqueNode):
    """``optimizer.apply_gradients(pairs, **kwargs)`` as one plan node.

    Node inputs: the Variables (one per pair), then each gradient's arrays (one for a dense
    gradient, values and indices for an ``IndexedSlices``, none for ``None``).
    """

    name = "apply_gradients"

    def __init__(self, optimizer, fn, layout: list, kwargs: dict):
        self.optimizer = optimizer
        self.fn = fn                # the undecorated method: a plan runs with no trace active
        self.layout = layout        # per pair: None, "dense" or ("slices", dense_shape)
        self.kwargs = kwargs
        self._wrapped: list = []    # (array, Tensor) of the last call, so the same buffer keeps its Tensor

    @classmethod
    def record(cls, recorder, fn, args: list, kwargs: dict):
        """``(node, input references, dry result)`` for a call ``fn(optimizer, grads_and_vars, **kwargs)``,
        or None when the call cannot be recorded (the trace then runs eagerly)."""
        if len(args) != 2 or set(kwargs) - {"weight"}:
            return None
        optimizer = args[0]
        try:
            pairs = list(args[1])
        except TypeError:
            return None
        args[1] = pairs  # the call that follows uses the list (a zip is consumed here)
        layout, var_refs, grad_refs = [], [], []
        for pair in pairs:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2 or not isinstance(pair[1], Variable):
                return None
            g, v = pair
            var_refs.append(recorder.var_ref(v))
            if g is None:
                layout.append(None)
            elif isinstance(g, IndexedSlices):
                layout.append(("slices", g.dense_shape))
                grad_refs += [recorder.ref(g.values), recorder.ref(g.indices)]
            elif isinstance(g, ArrayLike) and not isinstance(g, Variable):
                layout.append("dense")
                grad_refs.append(recorder.ref(g))
            elif isinstance(g, np.ndarray):
                layout.append("dense")
                grad_refs.append(Value(g.shape, g.dtype, const=np.array(g)))
            else:
                return None
        weight = kwargs.get("weight")
        if isinstance(weight, ArrayLike) and recorder.is_traced(weight):
            return None
        node = cls(optimizer, fn, layout, dict(kwargs))
        return node, var_refs + grad_refs, getattr(optimizer, "_iterations", None)

    def _grads(self, rest: list, wrap) -> list:
        grads, it = [], iter(rest)
        for kind in self.layout:
            if kind is None:
                grads.append(None)
            elif kind == "dense":
                grads.append(wrap(next(it)))
            else:
                values, indices = wrap(next(it)), wrap(next(it))
                grads.append(IndexedSlices(values, indices, kind[1]))
        return grads

    def _tensor(self, a):
        for arr, t in self._wrapped:
            if arr is a:
                return t
        t = Tensor(a)
        self._wrapped.append((a, t))
        if len(self._wrapped) > 2 * len(self.layout) + 2:
            del self._wrapped[0]
        return t

    def run(self, arrays: list) -> None:
        n = len(self.layout)
        grads = self._grads(arrays[n:], self._tensor)
        self.fn(self.optimizer, list(zip(grads, arrays[:n])), **self.kwargs)

    def replay(self, values: list) -> None:
        n = len(self.layout)
        grads = self._grads(values[n:], lambda x: x)
        self.optimizer.apply_gradients(list(zip(grads, values[:n])), **self.kwargs)
