"""The trace: a small graph of recorded ops, in the order they ran.

A :class:`Graph` is what one trace of a Python function recorded: its
placeholders (:attr:`Graph.inputs`, one per Tensor argument), its nodes in
program order, and the references its results are made of. Nodes read:

* a :class:`Value`: a placeholder, a constant (:attr:`Value.const`), a value
  captured from an enclosing graph (a branch of ``cond``, a loop body), or an
  output of an earlier node;
* a :class:`VarRef`: a Variable, read when the node runs (captured by
  identity, or the call's ``k``-th Variable argument);
* a :class:`Lit`: a Python number the op took as it was.

Node kinds: ``"op"`` (a registered op and its attributes), ``"write"`` (an
``assign``/``assign_add``/... of a Variable), ``"opaque"`` (a call recorded
whole, such as ``Optimizer.apply_gradients``: its payload is an
:class:`OpaqueNode`), ``"print"`` (``descend.print``), ``"cond"`` and
``"while"`` (their payloads hold the branch or loop subgraphs). Program order
is execution order: nothing is reordered across a write, an opaque node or a
print.
"""

from __future__ import annotations

import numpy as np

__all__ = ["Graph", "GraphDef", "Lit", "Node", "NodeDef", "OpaqueNode", "STATEFUL_OPS", "Value", "VarRef"]

#: ops that change state when they run (a random draw advances its generator): never pruned, so every call
#: of a plan continues the stream as eager calls would
STATEFUL_OPS = frozenset({"random_draw"})


class Value:
    """One array the graph computes or receives: shape and dtype as traced."""

    __slots__ = ("shape", "dtype", "producer", "index", "const", "capture", "__weakref__")

    def __init__(self, shape, dtype, node=None, index=0, const=None, capture=None):
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        # the producing node's label (not the node: a graph holds no reference cycle, so a dropped trace
        # and the Variables it names go at once, not at the next garbage collection)
        self.producer = None if node is None else node.label()
        self.index = index      # which output of the producing node
        self.const = const      # the array of a constant
        self.capture = capture  # the enclosing graph's object this placeholder stands for (subgraphs)

    def __repr__(self):
        what = "const" if self.const is not None else ("input" if self.producer is None else self.producer)
        return f"<Value {what} {self.shape} {self.dtype.name}>"


class VarRef:
    """A Variable read when the node runs: ``var`` (captured) or the call's Variable argument ``arg``."""

    __slots__ = ("var", "arg")

    def __init__(self, var=None, arg=None):
        self.var = var
        self.arg = arg

    def __repr__(self):
        return f"<VarRef {self.var.name if self.var is not None else f'arg {self.arg}'}>"


class Lit:
    """A Python value an op took as it was (a scalar of the binary fast path)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self):
        return f"<Lit {self.value!r}>"


class OpaqueNode:
    """What a node that runs whole (in Python) implements, for a compiled plan and for an eager replay.

    ``inputs`` are the references it reads (each resolved to an array for :meth:`run`, to a Tensor or
    Variable for :meth:`replay`); both return the node's outputs (arrays for :meth:`run`, Tensors for
    :meth:`replay`; an empty list for a node without outputs). :meth:`outputs_of` picks, from what the
    call returned while tracing, the Tensors that are the node's outputs (None: it cannot give them back).
    """

    #: a short label for messages
    name = "opaque"
    #: whether a dry trace runs the call (with Variable writes skipped) to get its outputs
    runs_dry = False

    def run(self, arrays: list) -> list:
        raise NotImplementedError

    def replay(self, values: list) -> list:
        raise NotImplementedError

    def outputs_of(self, result) -> list | None:
        return []


class Node:
    """One recorded step (see the module docstring for the kinds)."""

    __slots__ = ("kind", "op", "inputs", "attrs", "outputs", "payload", "site")

    def __init__(self, kind, op=None, inputs=(), attrs=None, payload=None, site=None):
        self.kind = kind
        self.op = op
        self.inputs = list(inputs)
        self.attrs = attrs if attrs is not None else {}
        self.outputs: list[Value] = []
        self.payload = payload
        self.site = site

    def label(self) -> str:
        if self.kind == "op":
            return self.op.name
        if self.kind == "opaque":
            return self.payload.name
        if self.kind == "write":
            return self.payload[0]
        return self.kind

    def __repr__(self):
        return f"<Node {self.label()} in={len(self.inputs)} out={len(self.outputs)}>"


class Graph:
    """The recorded graph of one trace (or of one branch or loop body)."""

    def __init__(self, name: str = "function"):
        self.name = name
        self.inputs: list[Value] = []        # placeholders of the Tensor arguments, in order
        self.captures: list = []              # subgraphs: enclosing-graph Tensors read, one placeholder each
        self.capture_values: list[Value] = []  # ... and those placeholders
        self.nodes: list[Node] = []
        self.outputs: list = []               # flat references (Value, VarRef, Lit)
        self.variables: dict = {}             # id -> Variable captured by identity, in first-use order
        self.n_var_args = 0                   # Variable arguments (bound per call)
        self.input_names: list = []           # a name per placeholder (the parameter's), for as_graph_def
        self.custom_gradients: list = []      # custom_gradient functions that ran (their forward ops only)

    def add(self, node: Node, results) -> Node:
        """Append ``node``; its outputs get the shapes and dtypes of ``results`` (arrays)."""
        node.outputs = [Value(r.shape, r.dtype, node, k) for k, r in enumerate(results)]
        self.nodes.append(node)
        return node

    def walk(self):
        """Every node, subgraphs' nodes included (depth first)."""
        for n in self.nodes:
            yield n
            if n.kind in ("cond", "while"):
                for g in n.payload.graphs():
                    yield from g.walk()

    def prune(self) -> int:
        """Remove the ``"op"`` nodes whose outputs nothing reads: neither the graph's outputs,
        nor a later node (a write, an opaque call, a print, a branch or loop, which are all kept), nor a
        kept op. Ops that change state (:data:`STATEFUL_OPS`) are kept. Branch and loop subgraphs are pruned
        the same way against their own outputs. Returns how many nodes went (subgraphs' included).

        A model built by its first call inside a trace runs a probe forward pass on zeros to create its
        weights; nothing reads its results, so its products go here and the plan is the plan of the model
        built before the call."""
        removed = 0
        live: set = {id(r) for r in self.outputs if type(r) is Value}
        kept: list = []
        for n in reversed(self.nodes):
            if n.kind in ("cond", "while"):
                for g in n.payload.graphs():
                    removed += g.prune()
            if (n.kind == "op" and n.op.name not in STATEFUL_OPS
                    and not any(id(v) in live for v in n.outputs)):
                removed += 1
                continue
            kept.append(n)
            live.update(id(r) for r in n.inputs if type(r) is Value)
        kept.reverse()
        self.nodes = kept  # (a new list: a replay iterating the old one on another thread is not disturbed)
        return removed

    def fold_constants(self, foldable) -> int:
        """Compute now, once, the ``"op"`` nodes named in ``foldable`` (ops whose result is a function of their
        inputs alone: the caller says which) whose inputs are all constants or Python literals: each such node's
        output becomes a constant (:attr:`Value.const`, what the op's forward returns for those inputs, so the
        bits every call computed) and the node goes. Later nodes then see the constant, so chains fold
        (``divide(reshape(ones), n)``: a gradient's seed scaled by a mean's count). A node whose output is one of
        the graph's outputs is kept (each call hands back an array of its own). Branch and loop subgraphs are
        folded the same way. Returns how many nodes went (subgraphs' included)."""
        folded = 0
        results = {id(r) for r in self.outputs if type(r) is Value}
        kept: list = []
        for n in self.nodes:
            if n.kind in ("cond", "while"):
                for g in n.payload.graphs():
                    folded += g.fold_constants(foldable)
            elif (n.kind == "op" and n.op.name in foldable and n.op.name not in STATEFUL_OPS and len(n.outputs) == 1
                  and not n.op.multi_output and id(n.outputs[0]) not in results
                  and all(type(r) is Lit or (type(r) is Value and r.const is not None) for r in n.inputs)):
                out = n.outputs[0]
                try:
                    value = np.asarray(n.op.forward(*(r.value if type(r) is Lit else r.const for r in n.inputs),
                                                    **n.attrs))
                except Exception:  # noqa: BLE001 - (an op that refuses its constants: the plan runs it, and raises)
                    value = None
                if value is not None and value.shape == out.shape and value.dtype == out.dtype:
                    out.const = value
                    folded += 1
                    continue
            kept.append(n)
        self.nodes = kept  # (a new list, as prune's)
        return folded

    def all_variables(self) -> list:
        """The Variables this graph (and its subgraphs) capture, in first-use order."""
        out = dict(self.variables)
        for n in self.nodes:
            if n.kind in ("cond", "while"):
                for g in n.payload.graphs():
                    for v in g.all_variables():
                        out.setdefault(id(v), v)
        return list(out.values())

    def __repr__(self):
        return f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.nodes)} nodes, {len(self.outputs)} outputs>"

    def as_graph_def(self) -> GraphDef:
        """The graph as TF's ``GraphDef``: a :class:`GraphDef` whose ``node`` lists what the trace runs
        (see :class:`GraphDef`). A loop over a ``Dataset`` is one ``While`` node whatever the data's
        length; a Python loop the trace unrolled is a node per step."""
        return _as_graph_def(self)

    def describe(self) -> str:
        """A readable listing (one line per node), for debugging and tests."""
        names: dict = {}

        def name(r):
            if isinstance(r, Value):
                if r not in names:
                    names[r] = f"%{len(names)}"
                return names[r] + ("c" if r.const is not None else "")
            return repr(r)

        lines = [f"graph {self.name}({', '.join(name(v) for v in self.inputs)})"]
        for n in self.nodes:
            outs = ", ".join(name(v) for v in n.outputs)
            ins = ", ".join(name(r) for r in n.inputs)
            attrs = f" {n.attrs}" if n.attrs else ""
            lines.append(f"  {outs or '-'} = {n.label()}({ins}){attrs}")
        lines.append(f"  return {', '.join(name(r) for r in self.outputs)}")
        return "\n".join(lines)


class NodeDef:
    """One node of :meth:`Graph.as_graph_def`: ``name``, ``op`` and ``input`` (the names of the nodes whose
    results it reads, ``"name:k"`` for a node's ``k``-th result), as TF's ``NodeDef``."""

    __slots__ = ("name", "op", "input", "attr")

    def __init__(self, name: str, op: str, inputs: list, attr: dict):
        self.name, self.op, self.input, self.attr = name, op, inputs, attr

    def __repr__(self):
        return f"NodeDef(name={self.name!r}, op={self.op!r}, input={self.input!r})"


class GraphDef:
    """What a trace runs, node by node (:meth:`Graph.as_graph_def`): ``node`` lists the graph's
    placeholders, constants, recorded steps in program order and an ``Identity`` per output, as TF's
    ``GraphDef``; the bodies of ``cond`` and ``while`` nodes are in ``library`` (name -> GraphDef), as
    TF keeps them in its function library."""

    def __init__(self, nodes: list, library: dict):
        self.node = nodes
        self.library = library

    def __repr__(self):
        return f"<GraphDef {len(self.node)} nodes, {len(self.library)} library functions>"


_KIND_OPS = {"cond": "If", "while": "While", "print": "PrintV2"}


def _as_graph_def(graph: Graph, prefix: str = "") -> GraphDef:
    nodes: list = []
    library: dict = {}
    used: dict = {}
    names: dict = {}   # Value -> its name as an input ("node" or "node:k")

    def unique(base: str) -> str:
        base = base.replace("/", "_") or "node"
        k = used.get(base, 0)
        used[base] = k + 1
        return base if k == 0 else f"{base}_{k}"

    def source(r) -> str | None:
        if isinstance(r, Value):
            name = names.get(r)
            if name is None:  # a constant, named where first read
                name = names[r] = unique("Const")
                nodes.append(NodeDef(name, "Const", [], {"dtype": r.dtype.name, "shape": r.shape}))
            return name
        if isinstance(r, VarRef):
            key = ("var", id(r.var) if r.var is not None else r.arg)
            name = names.get(key)
            if name is None:
                label = r.var.name if r.var is not None else f"variable_argument_{r.arg}"
                name = names[key] = unique(label)
                nodes.append(NodeDef(name, "VarHandleOp", [], {"variable": label}))
            return name
        return None  # a Python value the op took as it was

    in_names = list(graph.input_names) + [None] * (len(graph.inputs) - len(graph.input_names))
    for k, (v, label) in enumerate(zip(graph.inputs, in_names)):
        names[v] = name = unique(label or f"input_{k}")
        nodes.append(NodeDef(name, "Placeholder", [], {"dtype": v.dtype.name, "shape": v.shape}))
    for v in graph.capture_values:
        names[v] = name = unique("capture")
        nodes.append(NodeDef(name, "Placeholder", [], {"dtype": v.dtype.name, "shape": v.shape}))
    for n in graph.nodes:
        inputs = [x for x in (source(r) for r in n.inputs) if x is not None]
        op = n.label() if n.kind in ("op", "write", "opaque") else _KIND_OPS.get(n.kind, n.kind)
        name = unique(op)
        attr = dict(n.attrs) if n.kind == "op" else {}
        if n.kind in ("cond", "while"):
            for part, sub in zip(("then", "else") if n.kind == "cond" else ("cond", "body"), n.payload.graphs()):
                fname = f"{prefix}{name}_{part}"
                library[fname] = sub_def = _as_graph_def(sub, fname + "/")
                library.update(sub_def.library)
                attr[f"{part}_branch" if n.kind == "cond" else part] = fname
        nodes.append(NodeDef(name, op, inputs, attr))
        for k, v in enumerate(n.outputs):
            names[v] = name if k == 0 else f"{name}:{k}"
    for r in graph.outputs:
        src = source(r)
        if src is not None:
            nodes.append(NodeDef(unique("Identity"), "Identity", [src], {}))
    return GraphDef(nodes, library)

