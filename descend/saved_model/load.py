"""``load``: a folder :func:`~descend.saved_model.save` wrote, or the variables of a TF SavedModel.

Every field of the JSON manifest is checked (type, range, count) before any
Variable is made; op names are looked up in descend's op registry and
Variable writes in a fixed list; nothing from the file is imported, called by
name outside those, or evaluated.
"""

from __future__ import annotations

import json
import os
import stat

import numpy as np

from .. import backend
from ..framework.op import OPS, execute
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from ..persistence.bounded_read import open_regular
from ..persistence.checkpoint_errors import CheckpointCorruptedError
from ..persistence.formats.tf_bundle import TensorBundle
from .save import FORMAT, MANIFEST, VERSION, WRITES


def _registered_op(name: str):
    """The op registered as ``name``; where none is yet, after importing every module of :mod:`descend.ops` (each
    registers its ops when imported, and a process that loads a file may not have imported the one that defines,
    say, the LSTM's sequence op). Only descend's own op modules are imported, never a name the file gives."""
    op = OPS.get(name)
    if op is None:
        import importlib
        import pkgutil

        from .. import ops

        for module in pkgutil.iter_modules(ops.__path__):
            importlib.import_module(f"{ops.__name__}.{module.name}")
        op = OPS.get(name)
    return op

__all__ = ["Loaded", "LoadedFunction", "load"]

MAX_MANIFEST_BYTES = 64 << 20   # the JSON is read only below this size
MAX_NODES = 1_000_000           # nodes in all plans together
MAX_RANK = 64
_NAMES = {"float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool", "complex64", "complex128"}


def _bad(path, field, problem):
    return CheckpointCorruptedError(f"{path}: {field} {problem}", [field])


class LoadedFunction:
    """A function of a loaded folder: calls the saved plan whose input shapes and dtypes fit the arguments."""

    def __init__(self, name, plans, variables, constants):
        self.__name__ = name
        self._plans, self._variables, self._constants = plans, variables, constants

    def __call__(self, *args):
        tensors = [convert_to_tensor(a) for a in args]
        for plan in self._plans:
            if _fits(plan["inputs"], tensors):
                return self._run(plan, tensors)
        have = [(tuple(t.shape), t.dtype.name) for t in tensors]
        saved = [[(tuple(i["shape"]), i["dtype"]) for i in p["inputs"]] for p in self._plans]
        raise TypeError(f"loaded function '{self.__name__}': no saved trace takes arguments {have}; saved traces take "
                        f"{saved}")

    def _run(self, plan, tensors):
        env: list = []

        def get(r):
            kind = r[0]
            if kind == "in":
                return tensors[r[1]]
            if kind == "node":
                return env[r[1]][r[2]]
            if kind == "var":
                return self._variables[r[1]]
            if kind == "const":
                return self._constants[r[1]]
            return r[1]  # lit

        for n in plan["nodes"]:
            if "op" in n:
                res = execute(n["op"], tuple(get(r) for r in n["in"]), dict(n["attrs"]))
                env.append(res if type(res) is tuple else (res,))
            else:
                var, value = (get(r) for r in n["in"])
                getattr(var, n["write"])(value)
                env.append(())
        out = [get(r) for r in plan["outputs"]]
        return out[0] if len(out) == 1 else tuple(out)


def _fits(inputs, tensors) -> bool:
    if len(inputs) != len(tensors):
        return False
    for spec, t in zip(inputs, tensors):
        if spec["dtype"] != t.dtype.name or len(spec["shape"]) != t.ndim:
            return False
        if any(d is not None and d != s for d, s in zip(spec["shape"], t.shape)):
            return False
    return True


class Loaded:
    """What :func:`load` returns: ``variables``, ``trainable_variables`` and one :class:`LoadedFunction`
    attribute per saved function (none for a TF SavedModel: ``variables`` holds its values only)."""

    def __init__(self, variables, functions, names=None):
        self.variables = tuple(variables)
        self.trainable_variables = tuple(v for v in variables if v.trainable)
        self.signatures = dict(functions)
        self.variable_keys = tuple(names) if names is not None else ()
        for name, f in functions.items():
            setattr(self, name, f)

    def __call__(self, *args):
        f = self.signatures.get("__call__")
        if f is None:
            raise TypeError("this loaded object has no saved __call__")
        return f(*args)


def load(export_dir, tags=None, options=None) -> Loaded:
    """Load a folder written by :func:`~descend.saved_model.save`, or the variables of a TF SavedModel.

    Raises:
        FileNotFoundError: no saved model at ``export_dir``.
        CheckpointCorruptedError: a file is damaged, hostile (sizes, unknown ops, links) or not what the
            format says; nothing is made then.
    """
    export_dir = os.fspath(export_dir)
    var_dir = os.path.join(export_dir, "variables")
    try:
        st = os.lstat(var_dir)
    except FileNotFoundError:
        st = None
    if st is not None and (stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode)):
        raise CheckpointCorruptedError(f"{var_dir}: is a symbolic link or not a folder; a saved model never follows "
                                       "links out of its folder", ["variables"])
    manifest_path = os.path.join(export_dir, MANIFEST)
    if os.path.lexists(manifest_path):
        return _load_descend(export_dir, manifest_path)
    if os.path.lexists(os.path.join(export_dir, "saved_model.pb")):
        return _load_tf_variables(export_dir)
    raise FileNotFoundError(f"No saved model at '{export_dir}' (neither {MANIFEST} nor saved_model.pb)")


def _load_tf_variables(export_dir) -> Loaded:
    bundle = TensorBundle(os.path.join(export_dir, "variables", "variables"))
    names, variables = [], []
    for key in sorted(bundle.keys()):
        if key == "_CHECKPOINTABLE_OBJECT_GRAPH" or bundle.dtypes()[key].kind not in "biufc":
            continue
        names.append(key)
        variables.append(Variable(np.array(bundle.read(key)), name=_tf_name(key), trainable=True))
    return Loaded(variables, {}, names)


def _tf_name(key: str) -> str:
    """A Variable name from a TF object-graph key (``layer/kernel/.ATTRIBUTES/VARIABLE_VALUE`` -> ``layer/kernel``)."""
    return key.split("/.ATTRIBUTES/")[0].replace(".", "_") or "variable"


def _load_descend(export_dir, path) -> Loaded:
    f, size = open_regular(export_dir, MANIFEST, "saved model manifest")
    with f:
        if size > MAX_MANIFEST_BYTES:
            raise _bad(path, "size", f"is {size} bytes; at most {MAX_MANIFEST_BYTES} are read (refused without reading "
                                     "it)")
        raw = f.read(size + 1)
    if len(raw) != size:
        raise CheckpointCorruptedError(f"{path}: changed size while it was read", ["size"])
    try:
        m = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise _bad(path, "json", f"is not valid JSON ({type(e).__name__}: {str(e)[:200]})") from None
    if not isinstance(m, dict) or m.get("format") != FORMAT:
        raise _bad(path, "format", f"must be {FORMAT!r}")
    if m.get("version") != VERSION:
        raise _bad(path, "version", f"is {m.get('version')!r}; descend reads version {VERSION}")
    specs = _list(m.get("variables"), path, "variables")
    funcs = m.get("functions")
    if not isinstance(funcs, dict):
        raise _bad(path, "functions", "must be an object")
    bundle = TensorBundle(os.path.join(export_dir, "variables", "variables"))
    shapes, dtypes = bundle.shapes(), bundle.dtypes()
    checked_vars = []
    for k, s in enumerate(specs):
        where = f"variables[{k}]"
        if not isinstance(s, dict) or not isinstance(s.get("name"), str) or not isinstance(s.get("trainable"), bool):
            raise _bad(path, where, "must have a string name and a boolean trainable")
        key = s.get("key")
        if key != f"variables/{k}" or key not in shapes:
            raise _bad(path, where + ".key", f"{key!r} is not the bundle entry variables/{k}")
        shape, dtype = _shape(s.get("shape"), path, where + ".shape"), _dtype(s.get("dtype"), path, where + ".dtype")
        if tuple(shapes[key]) != shape or np.dtype(dtypes[key]) != np.dtype(dtype):
            raise _bad(path, where, f"declares {shape} {dtype}; the bundle holds {tuple(shapes[key])} "
                                    f"{np.dtype(dtypes[key]).name}")
        checked_vars.append((key, s["name"], s["trainable"]))
    constants: dict = {}
    plans_by_name = {}
    total = 0
    for name, plans in funcs.items():
        if not isinstance(name, str) or not (name.isidentifier() or name == "__call__"):
            raise _bad(path, "functions", f"has a name {name!r} that is not an identifier")
        checked = []
        for p_i, p in enumerate(_list(plans, path, f"functions.{name}")):
            where = f"functions.{name}[{p_i}]"
            plan, n = _check_plan(p, path, where, len(checked_vars), shapes, dtypes, constants)
            total += n
            if total > MAX_NODES:
                raise _bad(path, "functions", f"hold more than {MAX_NODES} nodes (refused)")
            checked.append(plan)
        plans_by_name[name] = checked
    # every check passed: now the values are read and the Variables made
    variables = [Variable(np.array(bundle.read(key)), name=name, trainable=trainable)
                 for key, name, trainable in checked_vars]
    const_tensors = {key: Tensor(np.array(bundle.read(key))) for key in constants}
    functions = {name: LoadedFunction(name, plans, variables, const_tensors) for name, plans in plans_by_name.items()}
    return Loaded(variables, functions)


def _list(x, path, field) -> list:
    if not isinstance(x, list):
        raise _bad(path, field, "must be a list")
    return x


def _int(x, path, field, lo, hi) -> int:
    if type(x) is not int or not lo <= x < hi:
        raise _bad(path, field, f"must be an int in [{lo}, {hi}); found {x!r}")
    return x


def _shape(x, path, field) -> tuple:
    dims = _list(x, path, field)
    if len(dims) > MAX_RANK:
        raise _bad(path, field, f"has rank {len(dims)}; at most {MAX_RANK}")
    return tuple(None if d is None else _int(d, path, field, 0, 1 << 62) for d in dims)


def _dtype(x, path, field) -> str:
    if x not in _NAMES:
        raise _bad(path, field, f"is {x!r}, not a dtype descend knows")
    return x


def _check_plan(p, path, where, n_vars, shapes, dtypes, constants):
    if not isinstance(p, dict):
        raise _bad(path, where, "must be an object")
    inputs = []
    for k, spec in enumerate(_list(p.get("inputs"), path, where + ".inputs")):
        if not isinstance(spec, dict):
            raise _bad(path, f"{where}.inputs[{k}]", "must be an object")
        inputs.append({"shape": list(_shape(spec.get("shape"), path, f"{where}.inputs[{k}].shape")),
                       "dtype": _dtype(spec.get("dtype"), path, f"{where}.inputs[{k}].dtype")})
    nodes = []
    outs_of: list = []  # outputs count of each node so far

    def ref(r, field):
        if not isinstance(r, list) or not r:
            raise _bad(path, field, f"must be a reference list; found {r!r}")
        kind = r[0]
        if kind == "in" and len(r) == 2:
            return ["in", _int(r[1], path, field, 0, len(inputs))]
        if kind == "node" and len(r) == 3:
            i = _int(r[1], path, field, 0, len(outs_of))  # earlier nodes only: no cycles
            return ["node", i, _int(r[2], path, field, 0, outs_of[i])]
        if kind == "var" and len(r) == 2:
            return ["var", _int(r[1], path, field, 0, n_vars)]
        if kind == "const" and len(r) == 2:
            key = r[1]
            if not isinstance(key, str) or not key.startswith("constants/") or key not in shapes:
                raise _bad(path, field, f"names a constant {key!r} the bundle does not hold")
            if np.dtype(dtypes[key]).kind not in "biufc":
                raise _bad(path, field, f"names a constant {key!r} that is not numeric")
            constants[key] = True
            return ["const", key]
        if kind == "lit" and len(r) == 2:
            return ["lit", _attr(r[1], path, field, 0)]
        raise _bad(path, field, f"is not a reference ('in', 'node', 'var', 'const' or 'lit'); found {r!r}")

    for i, n in enumerate(_list(p.get("nodes"), path, where + ".nodes")):
        field = f"{where}.nodes[{i}]"
        if not isinstance(n, dict):
            raise _bad(path, field, "must be an object")
        n_out = _int(n.get("n_out"), path, field + ".n_out", 0, 1 << 16)
        ins = [ref(r, f"{field}.in[{k}]") for k, r in enumerate(_list(n.get("in"), path, field + ".in"))]
        if "op" in n:
            op = _registered_op(n["op"]) if isinstance(n["op"], str) else None
            if op is None:
                raise _bad(path, field + ".op", f"names no registered op: {n['op']!r} (refused)")
            attrs = n.get("attrs")
            if not isinstance(attrs, dict):
                raise _bad(path, field + ".attrs", "must be an object")
            bad = set(attrs) - set(op.attr_names)
            if bad:
                raise _bad(path, field + ".attrs", f"names attributes op '{op.name}' does not take: {sorted(bad)}")
            if op.num_inputs is not None and len(ins) != op.num_inputs:
                raise _bad(path, field + ".in", f"has {len(ins)} inputs; op '{op.name}' takes {op.num_inputs}")
            nodes.append({"op": op, "in": ins, "attrs": {k: _attr(v, path, f"{field}.attrs.{k}", 0)
                                                         for k, v in attrs.items()}})
        elif "write" in n:
            if n["write"] not in WRITES or n_out != 0 or len(ins) != 2 or ins[0][0] != "var":
                raise _bad(path, field, f"is not a Variable write ({', '.join(WRITES)} of a Variable and a value)")
            nodes.append({"write": n["write"], "in": ins})
        else:
            raise _bad(path, field, "is neither an op nor a write")
        outs_of.append(n_out)
    outputs = [ref(r, f"{where}.outputs[{k}]") for k, r in enumerate(_list(p.get("outputs"), path, where + ".outputs"))]
    return {"inputs": inputs, "nodes": nodes, "outputs": outputs}, len(nodes)


def _attr(v, path, field, depth):
    """An attribute decoded from JSON: numbers, strings, None, booleans, tuples/lists, dtypes; else refused."""
    if depth > 32:
        raise _bad(path, field, "nests too deeply")
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, dict) and len(v) == 1:
        (k, x), = v.items()
        if k in ("tuple", "list") and isinstance(x, list):
            items = [_attr(e, path, field, depth + 1) for e in x]
            return tuple(items) if k == "tuple" else items
        if k == "dtype" and x in _NAMES:
            return backend.as_dtype(x)
        if k == "float" and x in ("nan", "inf", "-inf"):
            return float(x)
    raise _bad(path, field, f"is not an attribute descend reads: {str(v)[:100]}")
