"""``save``: a Module's Variables as a tensor bundle, its traced functions as data (see the package)."""

from __future__ import annotations

import json
import math
import os

import numpy as np

from .. import backend
from ..compiler.function import Function
from ..compiler.graph import Lit, Value, VarRef
from ..framework.op import OPS
from ..framework.variable import Variable
from ..persistence.durable import atomic_replace_file
from ..persistence.formats.tf_bundle import write_bundle

__all__ = ["save"]

FORMAT = "descend.saved_model"
VERSION = 1
MANIFEST = "descend_saved_model.json"
#: the Variable writes a plan may hold (the method of that name is called on load)
WRITES = ("assign", "assign_add", "assign_sub")


def save(module, export_dir, signatures=None, options=None) -> None:
    """Write ``module``'s Variables and the traces of its ``descend.function`` methods to ``export_dir``.

    Args:
        module: a ``descend.Module`` (anything with ``variables`` and ``descend.function`` methods).
        export_dir: the folder to write (made if missing; the files it holds are replaced).
        signatures: optional ``{name: descend.function or ConcreteFunction}`` to save instead of the
            Module's methods (TF's ``signatures=``).
        options: accepted for TF's signature; unused.

    Each function is saved with every trace it has: its ``input_signature``'s (traced here if needed) and
    those its calls made. Raises ``ValueError`` naming the function and the node a plan cannot hold (see
    the package docstring) before anything is written.
    """
    variables = list(getattr(module, "variables", None) or ()) if hasattr(module, "variables") else None
    if variables is None or not all(isinstance(v, Variable) for v in variables):
        raise TypeError(f"saved_model.save: expected a Module whose variables are Variables; received "
                        f"{type(module).__name__}")
    seen, unique = set(), []
    for v in variables:
        if id(v) not in seen:
            seen.add(id(v))
            unique.append(v)
    var_index = {id(v): k for k, v in enumerate(unique)}
    tensors = {f"variables/{k}": np.asarray(v.numpy()) for k, v in enumerate(unique)}
    functions = {}
    for name, traces in _functions(module, signatures).items():
        plans = []
        for cf in traces:
            if cf.graph is None:
                raise ValueError(f"saved_model.save: function '{name}' has a trace that runs eagerly ({cf.eager}); "
                                 "it has no plan to save")
            if cf.graph.custom_gradients:
                raise ValueError(f"saved_model.save: function '{name}' calls custom_gradient function(s) "
                                 f"{sorted(set(cf.graph.custom_gradients))}, whose gradient rule is Python; a saved "
                                 "plan holds ops only (its loaded gradient would be the forward ops', not the rule)")
            plans.append(_encode_graph(cf.graph, name, var_index, tensors))
        if plans:
            functions[name] = plans
    manifest = {
        "format": FORMAT, "version": VERSION,
        "variables": [{"key": f"variables/{k}", "name": v.scoped_name, "trainable": bool(v.trainable),
                       "shape": list(v.shape), "dtype": v.dtype.name} for k, v in enumerate(unique)],
        "functions": functions,
    }
    text = json.dumps(manifest, allow_nan=False, sort_keys=True)
    export_dir = os.fspath(export_dir)
    os.makedirs(os.path.join(export_dir, "variables"), exist_ok=True)
    write_bundle(os.path.join(export_dir, "variables", "variables"), tensors)
    atomic_replace_file(os.path.join(export_dir, MANIFEST), text.encode("utf-8"))


def _functions(module, signatures) -> dict:
    """``{name: [ConcreteFunction]}`` to save."""
    found = {}
    if signatures is not None:
        if not isinstance(signatures, dict):
            signatures = {"serving_default": signatures}
        for name, f in signatures.items():
            if not isinstance(name, str) or not name.isidentifier():
                raise ValueError(f"saved_model.save: a signature name must be an identifier; received {name!r}")
            found[name] = _traces(f, name)
        return found
    for name in sorted(dir(type(module))):
        if name.startswith("__") and name != "__call__":
            continue
        if isinstance(getattr(type(module), name, None), Function):
            found[name] = _traces(getattr(module, name), name)
    return found


def _traces(f, name) -> list:
    if isinstance(f, Function):
        if f.input_signature is not None:
            f.get_concrete_function()  # traced now when the signature's shapes are fully known
        traces = list(f._list_all_concrete_functions())
        if not traces and f.input_signature is not None:
            raise ValueError(f"saved_model.save: function '{name}' has an input_signature with unknown dimensions "
                             f"({f.input_signature}) and no trace yet; a saved plan holds the shapes it was traced "
                             "with: call the function with the shapes to save first")
        return traces
    if getattr(f, "graph", None) is not None or hasattr(f, "eager"):  # a ConcreteFunction
        return [f]
    raise TypeError(f"saved_model.save: signature '{name}' must be a descend.function or a ConcreteFunction; "
                    f"received {type(f).__name__}")


def _encode_graph(graph, fname, var_index, tensors) -> dict:
    refs: dict = {}
    for k, v in enumerate(graph.inputs):
        refs[v] = ["in", k]

    def ref(r, where):
        if type(r) is Value:
            got = refs.get(r)
            if got is not None:
                return got
            if r.const is not None:
                key = f"constants/{len([t for t in tensors if t.startswith('constants/')])}"
                tensors[key] = np.asarray(r.const)
                refs[r] = ["const", key]
                return refs[r]
            raise ValueError(f"saved_model.save: function '{fname}': {where} reads a value captured from outside "
                             "the function, which a saved plan cannot hold")
        if type(r) is VarRef:
            if r.var is None:
                raise ValueError(f"saved_model.save: function '{fname}' takes a Variable as an argument ({where}); "
                                 "a saved plan reads the Module's Variables only")
            k = var_index.get(id(r.var))
            if k is None:
                raise ValueError(f"saved_model.save: function '{fname}' reads Variable '{r.var.name}', which the "
                                 "Module does not track (assign it to an attribute of the Module)")
            return ["var", k]
        if type(r) is Lit:
            return ["lit", _encode_attr(r.value, fname, where)]
        raise ValueError(f"saved_model.save: function '{fname}': {where} reads {r!r}, which a plan cannot hold")

    nodes = []
    for i, n in enumerate(graph.nodes):
        where = f"node {i} ({n.label()})"
        if n.kind == "op":
            if OPS.get(n.op.name) is not n.op:
                raise ValueError(f"saved_model.save: function '{fname}': {where} is not a registered op (a "
                                 "custom_gradient function: its gradient is Python, which a saved plan cannot hold)")
            entry = {"op": n.op.name, "in": [ref(r, where) for r in n.inputs],
                     "attrs": {k: _encode_attr(v, fname, where) for k, v in sorted(n.attrs.items())},
                     "n_out": len(n.outputs)}
        elif n.kind == "write":
            op, form, _ = n.payload
            if op not in WRITES or form == "slices":
                raise ValueError(f"saved_model.save: function '{fname}': {where} is a {op} write of {form} form; a "
                                 f"saved plan holds {', '.join(WRITES)} of whole values")
            entry = {"write": op, "in": [ref(r, where) for r in n.inputs[:2]], "n_out": 0}
        else:
            raise ValueError(f"saved_model.save: function '{fname}': {where} is a '{n.kind}' node, which a saved "
                             "plan cannot hold (cond/while_loop, callbacks, optimizer updates and print are not saved)")
        for k, v in enumerate(n.outputs):
            refs[v] = ["node", i, k]
        nodes.append(entry)
    return {"inputs": [{"shape": list(v.shape), "dtype": v.dtype.name} for v in graph.inputs],
            "nodes": nodes, "outputs": [ref(r, "the outputs") for r in graph.outputs]}


def _encode_attr(v, fname, where):
    """An op attribute as JSON data: numbers, strings, None, booleans, lists and tuples of them, dtypes."""
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        v = float(v)
        return v if math.isfinite(v) else {"float": repr(v)}
    if isinstance(v, tuple):
        return {"tuple": [_encode_attr(x, fname, where) for x in v]}
    if isinstance(v, list):
        return {"list": [_encode_attr(x, fname, where) for x in v]}
    if isinstance(v, (np.dtype, backend.DType)) or (isinstance(v, type) and issubclass(v, np.generic)):
        return {"dtype": np.dtype(backend.np_dtype(v)).name}
    raise ValueError(f"saved_model.save: function '{fname}': {where} has an attribute {v!r} "
                     f"({type(v).__name__}), which a saved plan cannot hold")
