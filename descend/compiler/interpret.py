"""Running a recorded graph op by op, as eager code: the reference for every compiled plan.

:func:`replay` calls each recorded op through the op dispatcher, writes
Variables through their methods and runs opaque nodes with Tensors. So a
tape that is recording sees every op (gradients flow through a call of a
``descend.function``), an enclosing trace records them (a traced function
called inside another is inlined), and no Python of the traced function runs
again (its side effects stay those of its trace).
"""

from __future__ import annotations

from ..framework.indexed_slices import IndexedSlices
from ..framework.op import execute
from ..framework.tensor import Tensor
from .graph import Graph, Value, VarRef

__all__ = ["replay"]


def replay(graph: Graph, inputs, var_args=(), captures=()) -> list:
    """Run ``graph`` on ``inputs`` (one Tensor per placeholder) and return its outputs (a flat list of
    Tensors, Variables and Python values). ``var_args`` bind the Variable arguments; ``captures`` give
    a subgraph the enclosing graph's Tensors it reads."""
    env: dict = {}
    for v, t in zip(graph.inputs, inputs):
        env[v] = t
    for v, t in zip(graph.capture_values, captures):
        env[v] = t

    def get(r):
        if type(r) is Value:
            t = env.get(r)
            if t is None:
                if r.const is None:
                    raise RuntimeError(f"descend.function: {r!r} is read before it is computed (a bug in descend)")
                t = env[r] = Tensor(r.const)
            return t
        if type(r) is VarRef:
            return r.var if r.var is not None else var_args[r.arg]
        return r.value

    for n in graph.nodes:
        kind = n.kind
        if kind == "op":
            res = execute(n.op, tuple(get(r) for r in n.inputs), dict(n.attrs))
            if type(res) is tuple:
                env.update(zip(n.outputs, res))
            else:
                env[n.outputs[0]] = res
        elif kind == "write":
            op, form, dense_shape = n.payload
            var = get(n.inputs[0])
            value = (IndexedSlices(get(n.inputs[1]), get(n.inputs[2]), dense_shape) if form == "slices"
                     else get(n.inputs[1]))
            getattr(var, op)(value)
        elif kind == "opaque":
            outs = n.payload.replay([get(r) for r in n.inputs])
            env.update(zip(n.outputs, outs))
        elif kind == "print":
            from .. import printing

            rebuild, options, _ = n.payload
            printing.print(*rebuild([get(r) for r in n.inputs]), **options)
        else:  # cond, while
            outs = n.payload.replay([get(r) for r in n.inputs], var_args)
            env.update(zip(n.outputs, outs))
    return [get(r) for r in graph.outputs]
