"""Fusion: a run of elementwise ops in a recorded graph becomes one generated loop.

:func:`find_groups` scans a graph's nodes in program order for runs of
consecutive elementwise ops over one output shape (``add``, ``subtract``,
``multiply``, ``divide``, ``negative``, ``square``, ``sqrt``, ``abs``,
``maximum``, ``minimum``, ``relu``, comparisons, ``cast`` between bool and
float), optionally followed by a ``reduce_sum`` over the rows of one of their
results (a bias gradient) of two columns or more (NumPy sums a single column
pairwise, as a contiguous run: that sum stays NumPy's reduction). Each run becomes a
:class:`~descend._native.backend.LoopSpec`, which the kernel backend compiles
(:mod:`descend._native.loops` on the CPU): a bias add and its ReLU, or the
ReLU's gradient (``greater``, ``cast``, ``multiply``) and the bias gradient,
are one pass over memory instead of two to five NumPy calls with a temporary
each. A value used after the run is written out; the others live in
registers.

Only ops whose NumPy forward the loop reproduces to the last bit are fused
(no ``exp``, ``log``...: the C library's and NumPy's differ in the last bits),
so a fused plan gives the eager numbers. Inputs must broadcast to the run's
shape as a whole array, a row (a bias), a column or a scalar.

Example:
    >>> import descend as ds
    >>> w, b = ds.Variable(ds.ones((3, 4))), ds.Variable(ds.zeros((4,)))
    >>> f = ds.function(lambda x: ds.nn.relu(ds.matmul(x, w) + b))
    >>> x = ds.ones((2, 3))
    >>> _ = f(x), f(x)
    >>> f.get_concrete_function(x).plan().fused  # one loop: the bias add and the ReLU (0 without numba)
    1
"""

from __future__ import annotations

import numpy as np

from ..framework.op import OPS
from ..ops._util import normalize_axis
from .graph import Graph, Lit, Value, VarRef

__all__ = ["EXACT_OPS", "Group", "find_groups"]

#: op name -> (number of inputs, expression over the input locals {0}, {1}; {zero}, {one} are typed
#: constants of the run's float dtype)
EXACT_OPS = {
    "add": (2, "{0} + {1}"),
    "subtract": (2, "{0} - {1}"),
    "multiply": (2, "{0} * {1}"),
    "divide": (2, "{0} / {1}"),
    "negative": (1, "-{0}"),
    "square": (1, "{0} * {0}"),
    "sqrt": (1, "np.sqrt({0})"),
    "abs": (1, "abs({0})"),
    # NumPy's rules: a NaN operand wins, and equal operands give the second (so maximum(-0.0, 0.0) is 0.0)
    "maximum": (2, "{0} if ({0} > {1} or {0} != {0}) else {1}"),
    "minimum": (2, "{0} if ({0} < {1} or {0} != {0}) else {1}"),
    "relu": (1, "{0} if ({0} > {zero} or {0} != {0}) else {zero}"),
    "greater": (2, "{0} > {1}"),
    "greater_equal": (2, "{0} >= {1}"),
    "less": (2, "{0} < {1}"),
    "less_equal": (2, "{0} <= {1}"),
    "equal": (2, "{0} == {1}"),
    "not_equal": (2, "{0} != {1}"),
}
_COMPARISONS = {"greater", "greater_equal", "less", "less_equal", "equal", "not_equal"}
_BOOL = np.dtype(np.bool_)
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class Group:
    """A run of nodes fused into one loop (see :func:`find_groups`)."""

    def __init__(self, start: int, stop: int, shape: tuple, rows: int, cols: int):
        self.start, self.stop = start, stop     # the nodes[start:stop] it replaces
        self.shape, self.rows, self.cols = shape, rows, cols
        self.inputs: list = []   # (reference, layout) read by the loop, in argument order
        self.outputs: list = []  # Values written per element
        self.sums: list = []     # Values holding column sums
        self.spec = None


def _shape_of(r):
    if type(r) is Value:
        return r.shape, r.dtype
    if type(r) is VarRef:
        if r.var is None:
            return None, None
        return r.var._value.shape, r.var._value.dtype
    return None, None


def _layout(shape, full) -> str | None:
    """How an input of ``shape`` broadcasts to the run's shape ``full``."""
    if shape == full:
        return "full"
    if int(np.prod(shape, dtype=np.int64)) == 1:
        return "scalar"
    if len(full) >= 2 and tuple(shape) in ((full[-1],), (1,) * (len(full) - 1) + (full[-1],)):
        return "row"
    if len(full) >= 2 and tuple(shape) == tuple(full[:-1]) + (1,):  # (one value per row: a sum kept over the last axis)
        return "col"
    return None


def _uses(graph: Graph) -> dict:
    """Value -> how many node inputs and graph outputs read it."""
    count: dict = {}
    for n in graph.nodes:
        for r in n.inputs:
            if type(r) is Value:
                count[r] = count.get(r, 0) + 1
    for r in graph.outputs:
        if type(r) is Value:
            count[r] = count.get(r, 0) + 1
    return count


class _Builder:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype
        self.locals: dict = {}    # Value -> local name
        self.inputs: list = []    # (ref, layout, name)
        self.ids: dict = {}       # id(ref object) -> local (inputs read once)
        self.literals: list = []  # (name, dtype name, value)
        self.body: list = []

    def literal(self, value, dtype) -> str:
        name = f"_L{len(self.literals)}"
        self.literals.append((name, np.dtype(dtype).name, value))
        return name

    def operand(self, r) -> str | None:
        if type(r) is Lit:
            v = r.value
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                return None
            return self.literal(float(v) if self.dtype.kind == "f" else v, self.dtype)
        if type(r) is Value and r in self.locals:
            return self.locals[r]
        key = id(r.var) if type(r) is VarRef else id(r)
        if key in self.ids:
            return self.ids[key]
        shape, dtype = _shape_of(r)
        if shape is None or (dtype != self.dtype and dtype != _BOOL):
            return None
        layout = _layout(tuple(shape), self.shape)
        if layout is None:
            return None
        name = f"i{len(self.inputs)}"
        self.inputs.append((r, layout, name))
        self.ids[key] = f"v_{name}"
        return f"v_{name}"

    def node(self, node) -> bool:
        """Add ``node`` to the loop body; False when it cannot be fused (nothing added)."""
        name = node.op.name
        out = node.outputs[0]
        if out.shape != self.shape:
            return False
        mark = (len(self.inputs), len(self.literals), dict(self.ids))
        if name == "cast":
            src = node.inputs[0]
            _, dtype = _shape_of(src) if type(src) is not Lit else (None, None)
            x = self.operand(src) if dtype is not None else None
            if x is None or out.dtype not in (self.dtype, _BOOL) or dtype not in (self.dtype, _BOOL):
                return self._undo(mark)
            if dtype == _BOOL and out.dtype == self.dtype:
                expr = f"{self.literal(1.0, self.dtype)} if {x} else {self.literal(0.0, self.dtype)}"
            elif dtype == out.dtype:
                expr = x
            else:
                return self._undo(mark)
        else:
            arity, template = EXACT_OPS[name]
            if len(node.inputs) != arity or out.dtype not in (self.dtype, _BOOL):
                return False
            args = [self.operand(r) for r in node.inputs]
            if any(a is None for a in args):
                return self._undo(mark)
            # arithmetic on a bool is NumPy's integer arithmetic: not fused
            if name not in _COMPARISONS and any(self._is_bool(r) for r in node.inputs):
                return self._undo(mark)
            extra = {}
            if "{zero}" in template:
                extra["zero"] = self.literal(0.0, self.dtype)
            expr = template.format(*args, **extra)
        local = f"v_t{len(self.locals)}"
        self.body.append(f"{local} = {expr}")
        self.locals[out] = local
        return True

    def _is_bool(self, r) -> bool:
        _, dtype = _shape_of(r)
        return dtype == _BOOL

    def _undo(self, mark) -> bool:
        n_in, n_lit, ids = mark
        del self.inputs[n_in:]
        del self.literals[n_lit:]
        self.ids = ids
        return False


def _fusible(node) -> bool:
    if node.kind != "op" or len(node.outputs) != 1:
        return False
    name = node.op.name
    return (name in EXACT_OPS or name == "cast") and OPS.get(name) is node.op


def _float_dtype(node):
    for r in list(node.inputs) + list(node.outputs):
        _, dtype = _shape_of(r)
        if dtype is not None and dtype in _FLOATS:
            return dtype
    return None


def find_groups(graph: Graph) -> list[Group]:
    """The runs of ``graph``'s nodes that fuse into one loop each (see the module docstring)."""
    from .._native.backend import LoopSpec

    uses = _uses(graph)
    nodes = graph.nodes
    groups = []
    i = 0
    while i < len(nodes):
        node = nodes[i]
        dtype = _float_dtype(node) if _fusible(node) else None
        shape = node.outputs[0].shape if dtype is not None else None
        if dtype is None or len(shape) == 0:
            i += 1
            continue
        b = _Builder(shape, dtype)
        j = i
        while j < len(nodes) and _fusible(nodes[j]) and b.node(nodes[j]):
            j += 1
        members = nodes[i:j]
        sums = []
        # a column sum over one column is NumPy's pairwise sum of a contiguous run (8 partial sums from 8
        # rows on), not the rows added in order: it stays NumPy's reduction (``np.add.reduce``) after the run
        # (a sum over every axis but the last of a run of higher rank, a convolution's bias gradient, is that
        # same sum: NumPy coalesces the reduced axes of a contiguous array into one run of rows)
        if j < len(nodes) and len(shape) >= 2 and shape[-1] != 1:
            n = nodes[j]
            if (n.kind == "op" and n.op is OPS.get("reduce_sum") and len(n.inputs) == 1 and n.inputs[0] in b.locals
                    and normalize_axis(n.attrs.get("axis"), len(shape)) == tuple(range(len(shape) - 1))
                    and not n.attrs.get("keepdims", False)
                    and n.outputs[0].dtype == dtype):
                sums.append((n.outputs[0], b.locals[n.inputs[0]]))
                j += 1
        if len(members) < 2 and not sums:
            i = max(j, i + 1)
            continue
        inside = {v for m in members for v in m.outputs}
        used_inside: dict = {}
        for m in nodes[i:j]:
            for r in m.inputs:
                if type(r) is Value and r in inside:
                    used_inside[r] = used_inside.get(r, 0) + 1
        rows, cols = (shape[0], shape[1]) if len(shape) == 2 else (
            (1, shape[0]) if len(shape) == 1 else (int(np.prod(shape[:-1])), shape[-1]))
        g = Group(i, j, shape, rows, cols)
        g.inputs = [(r, layout) for r, layout, _ in b.inputs]
        g.outputs = [v for v in (m.outputs[0] for m in members) if uses.get(v, 0) > used_inside.get(v, 0)]
        g.sums = [v for v, _ in sums]
        names = {v: b.locals[v][2:] for v in b.locals}
        g.spec = LoopSpec(
            name="_".join(m.op.name for m in members)[:60] + ("_colsum" if sums else ""),
            inputs=tuple((name, layout) for _, layout, name in b.inputs),
            literals=tuple(b.literals),
            body=tuple(b.body),
            outputs=tuple((names[v], b.locals[v]) for v in g.outputs),
            sums=tuple((local[2:], local) for _, local in sums))
        groups.append(g)
        i = j
    return groups
