"""Opaque plan nodes: calls a trace records whole and a plan runs as one step.

:class:`CallbackNode` is host code marked ``@trace.opaque("callback")`` (a
metric's ``update_state`` and ``result``): it runs in Python with each
call's values, so a step that updates metrics still compiles.

:class:`OptimizerNode` is an optimizer's ``apply_gradients``, the one template
every optimizer class shares (:mod:`descend.optimizers.template`; the method is
marked with :func:`descend.framework.trace.opaque`): the trace records the call,
its gradients and its call arguments (``global_step``, ``clip_norm``...), and
every call of the compiled function makes it again through the optimizer's
bound plan of the variables (``optimizer.bind(variables)``, the same entrance
as an eager call), with Tensors over the plan's gradient buffers (the same
arrays every call, so the batched step checks them once). This is the one
place a plan meets the optimizer: a later optimizer stage that a plan can fuse
with replaces this class, not the plan.
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from ..errors import InvalidArgumentError
from ..framework import nest
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import ArrayLike, Tensor
from ..framework.variable import Variable
from .graph import OpaqueNode, Value

__all__ = ["CallbackNode", "OptimizerNode"]


class OptimizerNode(OpaqueNode):
    """``optimizer.apply_gradients(pairs, **kwargs)`` as one plan node.

    Node inputs: the Variables (one per pair), then each gradient's arrays (one for a dense
    gradient, values and indices for an ``IndexedSlices``, none for ``None``).
    """

    name = "apply_gradients"

    def __init__(self, optimizer, layout: list, kwargs: dict):
        self.optimizer = optimizer
        self.layout = layout        # per pair: None, "dense" or ("slices", dense_shape)
        self.kwargs = kwargs        # the call arguments, by name
        self._wrapped: dict = {}    # id -> (array, its Tensor): the same buffer keeps its Tensor from call to call
        self._bound = None          # optimizer.bind(the variables of the last call)
        self._last = None           # (that call's arrays, its bound plan, its (gradient Tensor, Variable) pairs)

    @classmethod
    def record(cls, recorder, fn, args: list, kwargs: dict, public=None):
        """``(node, input references, dry result)`` for a call ``apply_gradients(optimizer, grads_and_vars, *call
        arguments)``, or None when the call cannot be recorded (the trace then runs eagerly)."""
        if len(args) < 2:
            return None
        optimizer = args[0]
        try:
            call = optimizer.call_arguments_of(tuple(args[2:]), kwargs)
            pairs = list(args[1])
        except TypeError:
            return None  # (the eager call reports it)
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
        for value in call.values():  # a value computed inside the function cannot be a call argument
            if isinstance(value, ArrayLike) and not isinstance(value, Variable) and recorder.is_traced(value):
                return None
        node = cls(optimizer, layout, call)
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
        found = self._wrapped.get(id(a))
        if found is not None and found[0] is a:
            return found[1]
        if len(self._wrapped) >= 2 * len(self.layout) + 2:  # (other arrays than last time: a rebuilt plan's)
            self._wrapped.clear()
        t = Tensor(a)
        self._wrapped[id(a)] = (a, t)
        return t

    def run(self, arrays: list) -> list:
        last = self._last
        if last is not None and len(arrays) == len(last[0]) and all(map(operator.is_, arrays, last[0])):
            # the same Variables and gradient buffers as the last call (a plan's steady state): its pairs again
            last[1].apply(last[2], buffers=True, **self.kwargs)
            return []
        n = len(self.layout)
        variables = arrays[:n]
        bound = self._bound
        if bound is None or len(bound.variables) != n or not all(map(operator.is_, variables, bound.variables)):
            bound = self._bound = self.optimizer.bind(variables)  # (Variable arguments may change per call)
        pairs = tuple(zip(self._grads(arrays[n:], self._tensor), variables))
        self._last = (list(arrays), bound, pairs)
        bound.apply(pairs, buffers=True, **self.kwargs)
        return []

    def replay(self, values: list) -> list:
        n = len(self.layout)
        grads = self._grads(values[n:], lambda x: x)
        self.optimizer.apply_gradients(list(zip(grads, values[:n])), **self.kwargs)
        return []


class CallbackNode(OpaqueNode):
    """A call of host code (a metric's ``update_state`` or ``result``, which compute with NumPy) as one
    plan node: it runs in Python on every call of the compiled function, with that call's values.

    Node inputs: the Tensors and Variables among the call's arguments (nested in lists, tuples and
    dicts); everything else is passed as it was while tracing. Node outputs: the Tensors the call
    returns, which must keep the shapes and dtypes they had while tracing.
    """

    runs_dry = True  # (the dry trace skips its Variable writes)

    def __init__(self, public, leaves: list, rebuild, slots: list):
        self.public = public        # the decorated method: a replay inside another trace records it again
        self.name = getattr(public, "__qualname__", "callback")
        self.leaves, self.rebuild, self.slots = leaves, rebuild, slots
        self.out_rebuild = None
        self.out_specs: list = []

    @classmethod
    def record(cls, recorder, fn, args: list, kwargs: dict, public=None):
        if public is None:
            return None
        structure = [list(args), dict(kwargs)]
        leaves, rebuild = nest.flatten(structure), functools.partial(nest.pack_like, structure)
        refs, slots = [], []
        for k, x in enumerate(leaves):
            if isinstance(x, IndexedSlices):
                return None
            if isinstance(x, ArrayLike):
                refs.append(recorder.ref(x))
                slots.append(k)
        node = cls(public, list(leaves), rebuild, slots)
        return node, refs, None

    def outputs_of(self, result):
        leaves, rebuild = nest.flatten(result), functools.partial(nest.pack_like, result)
        if any(isinstance(x, (Variable, IndexedSlices)) for x in leaves):
            return None
        self.out_rebuild = rebuild
        self.out_specs = [(k, x._value.shape, x._value.dtype) for k, x in enumerate(leaves) if isinstance(x, ArrayLike)]
        self.out_leaves = leaves
        return [leaves[k] for k, _, _ in self.out_specs]

    def _call(self, values: list):
        leaves = list(self.leaves)
        for k, v in zip(self.slots, values):
            leaves[k] = v
        args, kwargs = self.rebuild(leaves)
        return self.public(*args, **kwargs)

    def run(self, arrays: list) -> list:
        return self.arrays_of(self._call([a if isinstance(a, Variable) else Tensor(a) for a in arrays]))

    def arrays_of(self, result) -> list:
        """The arrays of the node's outputs in ``result`` (what a call returned), checked against the trace's."""
        leaves = nest.flatten(result)
        out = []
        for k, shape, dtype in self.out_specs:
            x = leaves[k] if k < len(leaves) else None
            if not isinstance(x, ArrayLike) or x._value.shape != shape or x._value.dtype != dtype:
                raise InvalidArgumentError(f"{self.name}: returned {x!r}; the compiled function expects a Tensor of "
                                           f"shape {shape} and dtype {dtype.name} (what it returned while tracing)")
            out.append(x._value)
        return out

    def replay(self, values: list) -> list:
        result = self._call(values)
        leaves = nest.flatten(result)
        return [leaves[k] for k, _, _ in self.out_specs]
