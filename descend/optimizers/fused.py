"""Fused CPU kernels derived from an optimizer's elementwise update rule (numba).

An optimizer written the short way has a pure rule
``update(param, grad, *slots, **coefficients) -> (new_param, *new_slots)``
that the base class applies with NumPy on whole arrays (the reference path).
This module reads the rule's source, rewrites it into one scalar loop body and
compiles, per dtype, two kernels with numba that update params and slots in
place in a single pass:

* dense (``dense_<dtype>``): one call updates every variable of the step. It
  takes an offsets table -- for each variable the array objects of param,
  grad and slots (see ``_native``) and its decoupled weight-decay factor --
  and a list of chunks of at most ``descend._native.CHUNK`` elements, which threads share
  (``prange``); so 1,000 small tensors cost one launch. The weight decay
  ``param <- param - param * d`` runs first in the same pass, in the NumPy
  path's arithmetic;
* lazy sparse rows (``rows_<dtype>``): chunk ``c`` belongs to gradient row
  ``r`` and updates row ``idx[r]`` of the variable and its slots (gather,
  update, scatter), so the cost depends on the number of touched rows, never
  on the table's size.

Updates of fewer than ``descend._native.SERIAL_BELOW`` (2**14) elements take
the kernel's serial loop (see ``descend._native`` for that and for threads in
forked processes). The serial kernel beats the NumPy path at every size (about
7 us against 12 us per call for one element, Python overhead included), so
small arrays are fused too.

**Float32 stays float32.** NumPy treats Python numbers as weak scalars; numba
has none, so a literal ``1`` or a float64 coefficient would turn float32 math
into float64 math. The rewrite (see :func:`generate_source`) therefore:

1. evaluates every sub-expression that involves no array -- ``1 - beta_1``,
   ``-l1``, ``lr * momentum`` -- once per call in Python, with NumPy's rules,
   exactly as the reference path does (``prologue`` in the generated module);
2. casts those values and the coefficients to the variable's dtype before the
   kernel call;
3. replaces every literal left inside an array expression by a module-level
   constant ``_L<k>_<dtype> = _T(literal)``, ``_T`` being the kernel's dtype
   (``np.float32`` or ``np.float64``), so the kernel sees a typed constant;
4. turns ``np.where(c, x, y)`` into ``(x if c else y)`` (numba's ``np.where`` on
   scalars returns a 0-d float64 array), ``x ** 2`` into ``np.square(x)`` and
   ``x ** 0.5`` into ``np.sqrt(x)`` (what NumPy does for arrays);
5. allows only the NumPy functions in ``ALLOWED_FUNCTIONS``, whose scalar forms
   numba keeps in the input's dtype (tests/test_fused.py checks the compiled
   signatures).

The results match the reference path to the last bit for ``+ - * /`` and
``sqrt`` (IEEE, no fast-math, no FMA contraction). NumPy's SIMD ``power``,
``exp``, ``log``, ... differ from the C library's (numba's) by an ulp here and
there; a rule that subtracts two such values (FTRL's ``n_new^p - n^p``) turns
that into a few ulps of the result's scale.

Measured on a 2-core Xeon (AVX-512), Adam, 10M float32 parameters in 20
tensors, update only: NumPy path 97-111 ms, one fused call 4.8-6 ms, a numba
"floor" kernel that reads 4 arrays and writes 3 with no arithmetic 4.9-6 ms
(the machine is noisy; see BENCHMARKS.md for same-run ratios).

**Threads and processes.** Kernels release the GIL; ``descend._native`` says
how many threads they use and why a child forked after a parallel update runs
serial loops.

**Cold start.** The generated module is written to :func:`cache_dir` under a
name that hashes its text, numba's version and this transform's version, and
imported from there, so ``cache=True`` works: a second process loads the
compiled kernel from disk instead of compiling it.

**Fallback.** Without numba, with ``DESCEND_DISABLE_FUSED=1`` (read at import;
:func:`set_enabled` switches at run time), with ``Optimizer.use_fused = False``,
and for variables or slots that are not C-contiguous float32/float64 arrays,
the base class uses the NumPy path. A rule that cannot be
rewritten or compiled warns once (:class:`FusedKernelWarning`, saying why) and
uses the NumPy path from then on.
"""

from __future__ import annotations

import ast
import builtins
import collections
import hashlib
import importlib.util
import inspect
import logging
import os
import re
import sys
import tempfile
import textwrap
import threading
import warnings
import weakref
from pathlib import Path

import numpy as np

from .. import _native

__all__ = [
    "ALLOWED_FUNCTIONS", "FusedKernelWarning", "FusedRule", "cache_dir", "enabled", "find_nonfinite",
    "generate_source", "kernel_for", "set_enabled", "stats",
]

log = logging.getLogger("descend.fused")

#: bump when the generated code changes meaning (it is part of the cache key)
TRANSFORM_VERSION = 2
#: NumPy functions a rule may call; numba's scalar forms keep float32 as float32
ALLOWED_FUNCTIONS = frozenset({
    "sqrt", "maximum", "minimum", "fmax", "fmin", "abs", "absolute", "fabs", "sign", "square", "exp", "expm1",
    "log", "log1p", "power", "tanh", "negative", "where",
})
_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))

#: how many updates each fused path applied, for tests and profiling: ``stats["dense"]``, ``stats["rows"]``
stats: collections.Counter = collections.Counter()


class FusedKernelWarning(UserWarning):
    """An update rule could not be fused; the NumPy reference path is used for it."""


class _Unsupported(Exception):
    """The rule uses something the rewrite does not handle (the message says what)."""


# ---------------------------------------------------------------------------- switches
#: whether optimizers use fused kernels, and turning them on or off: the switch of all compiled kernels
enabled = _native.enabled
set_enabled = _native.set_enabled


def cache_dir() -> Path:
    """Where generated kernel modules (and numba's compiled code beside them) live:
    ``$DESCEND_CACHE_DIR``, else ``$XDG_CACHE_HOME/descend/kernels``, else
    ``~/.cache/descend/kernels``."""
    explicit = os.environ.get("DESCEND_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "descend" / "kernels"


# ---------------------------------------------------------------------------- the rewrite
_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow)
_NUMBERS = (bool, int, float)


def _const(node) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) in _NUMBERS


class _Rewriter:
    """Rewrites a rule's body into a scalar loop body plus a Python prologue.

    Names: rule arrays and array-valued locals become ``v_<name>`` in the
    kernel; scalar values reach the kernel as arguments ``s0, s1, ...``
    (computed by the prologue from the coefficients ``c_<name>``); scalar
    locals live in the prologue as ``p<k>_<name>``.
    """

    def __init__(self, rule):
        self.rule = rule
        self.qualname = f"{getattr(rule, '__module__', '?')}.{getattr(rule, '__qualname__', repr(rule))}"
        if not inspect.isfunction(rule) or rule.__name__ == "<lambda>":
            raise _Unsupported(f"it is a {'lambda' if inspect.isfunction(rule) else type(rule).__name__}, "
                               "not a plain function")
        try:
            src = textwrap.dedent(inspect.getsource(rule))
        except (OSError, TypeError) as e:
            raise _Unsupported(f"its source is not available ({e})") from None
        try:
            tree = ast.parse(src)
        except SyntaxError as e:
            raise _Unsupported(f"its source does not parse on its own ({e.msg})") from None
        fn = tree.body[0] if tree.body else None
        if not isinstance(fn, ast.FunctionDef):
            raise _Unsupported("it is not a plain `def` function (lambdas and async functions are not fused)")
        for d in fn.decorator_list:
            if not (isinstance(d, ast.Name) and d.id == "staticmethod"):
                raise _Unsupported(f"it has a decorator ({ast.unparse(d)})")
        a = fn.args
        if a.vararg or a.kwarg or a.defaults:
            raise _Unsupported("it takes *args, **kwargs or positional defaults")
        self.arrays = [x.arg for x in a.posonlyargs + a.args]
        if len(self.arrays) < 2:
            raise _Unsupported("it does not take (param, grad, *slots)")
        self.coefs = [x.arg for x in a.kwonlyargs]
        self.defaults = dict(getattr(rule, "__kwdefaults__", None) or {})
        try:
            cv = inspect.getclosurevars(rule)
        except (TypeError, ValueError) as e:
            raise _Unsupported(f"its free variables cannot be read ({e})") from None
        self.free = {**cv.builtins, **cv.globals, **cv.nonlocals}
        self.fn = fn
        self.env: dict[str, tuple[str, str]] = {}  # rule name -> ("arr", kernel name) | ("scl", prologue name)
        self.prologue: list[str] = []
        self.kernel: list[str] = []
        self.scalar_args: dict[str, str] = {}  # prologue expression/name -> kernel argument
        self.literals: dict = {}  # (type, value) -> constant name
        self.versions: collections.Counter = collections.Counter()
        self.n_temps = 0

    # -- names
    def _is_numpy(self, name: str) -> bool:
        return name not in self.env and self.free.get(name) is np

    def _free_number(self, name: str):
        v = self.free.get(name, None)
        if name in self.env or type(v) not in _NUMBERS:
            return None
        return v

    def _np_function(self, func) -> str | None:
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and self._is_numpy(func.value.id):
            if func.attr not in ALLOWED_FUNCTIONS:
                raise _Unsupported(f"it calls np.{func.attr}, which is not in fused.ALLOWED_FUNCTIONS")
            return func.attr
        return None

    def _literal(self, value) -> str:
        key = (type(value), value)
        name = self.literals.get(key)
        if name is None:
            name = self.literals[key] = f"_L{len(self.literals)}"
        return name

    def _scalar_arg(self, prologue_expr: str) -> str:
        name = self.scalar_args.get(prologue_expr)
        if name is None:
            name = self.scalar_args[prologue_expr] = f"s{len(self.scalar_args)}"
        return name

    # -- expressions
    def _check_expr(self, node) -> bool:
        """True when ``node`` involves no array (its value is a scalar the prologue can compute)."""
        if isinstance(node, ast.Constant):
            if type(node.value) not in _NUMBERS:
                raise _Unsupported(f"it uses the constant {node.value!r}")
            return True
        if isinstance(node, ast.Name):
            if node.id in self.env:
                return self.env[node.id][0] == "scl"
            if self._free_number(node.id) is not None:
                return True
            raise _Unsupported(f"it reads `{node.id}`, which is neither an argument, a local, numpy nor a "
                               "module-level number")
        if isinstance(node, ast.BinOp):
            if not isinstance(node.op, _BINOPS):
                raise _Unsupported(f"it uses the operator {type(node.op).__name__}")
            return self._check_expr(node.left) & self._check_expr(node.right)
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Invert):
                raise _Unsupported("it uses `~`")
            return self._check_expr(node.operand)
        if isinstance(node, ast.Compare):
            return all([self._check_expr(x) for x in [node.left, *node.comparators]])
        if isinstance(node, ast.BoolOp):
            return all([self._check_expr(x) for x in node.values])
        if isinstance(node, ast.IfExp):
            return all([self._check_expr(x) for x in (node.test, node.body, node.orelse)])
        if isinstance(node, ast.Call):
            name = self._np_function(node.func)
            if name is None:
                if isinstance(node.func, ast.Name) and node.func.id == "abs" and self.free.get("abs") is builtins.abs:
                    name = "abs"
                else:
                    raise _Unsupported(f"it calls {ast.unparse(node.func)} (only numpy functions are fused)")
            if node.keywords or any(isinstance(x, ast.Starred) for x in node.args):
                raise _Unsupported(f"it calls {ast.unparse(node.func)} with keyword or starred arguments")
            if name == "where" and len(node.args) != 3:
                raise _Unsupported("it calls np.where without three arguments")
            return all([self._check_expr(x) for x in node.args])
        raise _Unsupported(f"it uses the expression `{ast.unparse(node)}`")

    def _prologue_expr(self, node) -> ast.AST:
        """``node`` with names renamed to the prologue's (its value is computed in Python)."""
        rw = self

        class Rename(ast.NodeTransformer):
            def visit_Name(self, sub):
                if sub.id in rw.env:
                    return ast.Name(rw.env[sub.id][1])
                if rw._is_numpy(sub.id):
                    return ast.Name("np")
                if (v := rw._free_number(sub.id)) is not None:
                    return ast.Constant(v)  # an inlined module-level number
                return sub

        return Rename().visit(_copy(node))

    def expr(self, node) -> ast.AST:
        """``node`` rewritten for the scalar loop body."""
        if self._check_expr(node):
            if _const(node) and not isinstance(node.value, bool):
                return ast.Name(self._literal(node.value))  # a literal becomes a constant of the dtype
            if _const(node):
                return node
            return ast.Name(self._scalar_arg(ast.unparse(self._prologue_expr(node))))
        if isinstance(node, ast.Name):
            return ast.Name(self.env[node.id][1])
        if isinstance(node, ast.BinOp):
            if isinstance(node.op, ast.Pow) and _const(node.right) and node.right.value in (2, 0.5):
                # NumPy computes array ** 2 as np.square and array ** 0.5 as np.sqrt
                fn = "square" if node.right.value == 2 else "sqrt"
                return ast.Call(ast.Attribute(ast.Name("np"), fn), [self.expr(node.left)], [])
            return ast.BinOp(self.expr(node.left), node.op, self.expr(node.right))
        if isinstance(node, ast.UnaryOp):
            return ast.UnaryOp(node.op, self.expr(node.operand))
        if isinstance(node, ast.Compare):
            return ast.Compare(self.expr(node.left), node.ops, [self.expr(x) for x in node.comparators])
        if isinstance(node, ast.BoolOp):
            return ast.BoolOp(node.op, [self.expr(x) for x in node.values])
        if isinstance(node, ast.IfExp):
            return ast.IfExp(self.expr(node.test), self.expr(node.body), self.expr(node.orelse))
        if isinstance(node, ast.Call):
            name = self._np_function(node.func) or "abs"
            args = [self.expr(x) for x in node.args]
            if name == "where":  # np.where(c, x, y) on scalars: (x if c else y)
                return ast.IfExp(args[0], args[1], args[2])
            func = ast.Name("abs") if name == "abs" and isinstance(node.func, ast.Name) else ast.Attribute(
                ast.Name("np"), name)
            return ast.Call(func, args, [])
        raise _Unsupported(f"it uses the expression `{ast.unparse(node)}`")  # pragma: no cover

    # -- statements
    def _temp(self) -> str:
        self.n_temps += 1
        return f"_t{self.n_temps}"

    def _normalize(self, body: list, top: bool) -> list:
        """Plain single-name assignments, ifs and (at the top level, last) a return."""
        out = []
        for k, st in enumerate(body):
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str):
                continue  # a docstring
            if isinstance(st, ast.Pass):
                continue
            if isinstance(st, ast.AnnAssign) and st.value is not None and isinstance(st.target, ast.Name):
                st = ast.Assign([st.target], st.value)
            if isinstance(st, ast.AugAssign) and isinstance(st.target, ast.Name):
                st = ast.Assign([ast.Name(st.target.id)], ast.BinOp(ast.Name(st.target.id), st.op, st.value))
            if isinstance(st, ast.Assign):
                targets = st.targets
                if len(targets) == 1 and isinstance(targets[0], ast.Name):
                    out.append(st)
                    continue
                if len(targets) == 1 and isinstance(targets[0], (ast.Tuple, ast.List)) and isinstance(
                        st.value, (ast.Tuple, ast.List)) and len(targets[0].elts) == len(st.value.elts) and all(
                        isinstance(t, ast.Name) for t in targets[0].elts):
                    temps = [self._temp() for _ in targets[0].elts]  # a, b = x, y: both sides first
                    out += [ast.Assign([ast.Name(t)], v) for t, v in zip(temps, st.value.elts)]
                    out += [ast.Assign([ast.Name(n.id)], ast.Name(t)) for n, t in zip(targets[0].elts, temps)]
                    continue
                if all(isinstance(t, ast.Name) for t in targets):  # a = b = x
                    t = self._temp()
                    out.append(ast.Assign([ast.Name(t)], st.value))
                    out += [ast.Assign([ast.Name(n.id)], ast.Name(t)) for n in targets]
                    continue
                raise _Unsupported(f"it assigns to `{ast.unparse(targets[0])}`")
            if isinstance(st, ast.If):
                out.append(ast.If(st.test, self._normalize(st.body, False), self._normalize(st.orelse, False)))
                continue
            if isinstance(st, ast.Return) and top and k == len(body) - 1:
                if not isinstance(st.value, (ast.Tuple, ast.List)):
                    raise _Unsupported("it does not return a literal tuple (new_param, *new_slots)")
                out.append(st)
                continue
            raise _Unsupported(f"it uses the statement `{ast.unparse(st).splitlines()[0]}`")
        return out

    def _assigned(self, body) -> set:
        names = set()
        for st in body:
            for sub in ast.walk(st):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    names.add(sub.id)
        return names

    def _statements(self, body: list, depth: int) -> None:
        pad = "    " * depth
        for st in body:
            if isinstance(st, ast.Assign):
                name = st.targets[0].id
                if depth == 0 and self._check_expr(st.value):
                    # a scalar local: computed once by the prologue, with NumPy's rules
                    self.versions[name] += 1
                    pname = f"p{self.versions[name]}_{name}"
                    self.prologue.append(f"{pname} = {ast.unparse(self._prologue_expr(st.value))}")
                    self.env[name] = ("scl", pname)
                    continue
                value = ast.unparse(self.expr(st.value))
                self.env[name] = ("arr", f"v_{name}")
                self.kernel.append(f"{pad}v_{name} = {value}")
            elif isinstance(st, ast.If):
                # names assigned in a branch become loop locals: materialize the scalar ones first
                for name in sorted(self._assigned(st.body + st.orelse)):
                    if name in self.env and self.env[name][0] == "scl":
                        self.kernel.append(f"{pad}v_{name} = {self._scalar_arg(self.env[name][1])}")
                        self.env[name] = ("arr", f"v_{name}")
                test = ast.unparse(self.expr(st.test))
                before = dict(self.env)
                self.kernel.append(f"{pad}if {test}:")
                self._statements(st.body or [ast.Pass()], depth + 1)
                after_body, self.env = self.env, dict(before)
                if st.orelse:
                    self.kernel.append(f"{pad}else:")
                    self._statements(st.orelse, depth + 1)
                self.env.update(after_body)
                for name in self._assigned(st.body + st.orelse):
                    self.env[name] = ("arr", f"v_{name}")
            elif isinstance(st, ast.Pass):
                self.kernel.append(f"{pad}pass")
            elif isinstance(st, ast.Return):
                outs = st.value.elts
                if len(outs) != len(self.arrays) - 1:
                    raise _Unsupported(f"it returns {len(outs)} values for {len(self.arrays) - 1} arrays "
                                       "(new_param and one per slot)")
                for k, e in enumerate(outs):
                    self.kernel.append(f"{pad}_o{k} = {ast.unparse(self.expr(e))}")

    def run(self):
        for name in self.arrays:
            self.env[name] = ("arr", f"v_{name}")
        for name in self.coefs:
            self.env[name] = ("scl", f"c_{name}")
        body = self._normalize(self.fn.body, True)
        if not body or not isinstance(body[-1], ast.Return):
            raise _Unsupported("it does not end with `return (new_param, *new_slots)`")
        self._statements(body, 0)
        return self


def _copy(node):
    return ast.parse(ast.unparse(node), mode="eval").body


def _elementwise(rw: _Rewriter, t: str, decay: bool) -> list[str]:
    """The loop over one chunk: ``_p``, ``_g``, ``_s<k>`` are its 1-D pieces (a loop from 0 over
    1-D arrays: LLVM vectorizes it); with ``decay``, ``param <- param - param * _d`` first."""
    param, grad, slots = rw.arrays[0], rw.arrays[1], rw.arrays[2:]
    lines = ["for _j in range(_p.shape[0]):", f"    v_{param} = _p[_j]"]
    if decay:  # decoupled weight decay, as the NumPy path computes it: var -= var * (wd * lr)
        lines.append(f"    v_{param} = v_{param} - v_{param} * _d")
    lines.append(f"    v_{grad} = _g[_j]")
    lines += [f"    v_{s} = _s{k}[_j]" for k, s in enumerate(slots)]
    lines += ["    " + re.sub(r"\b(_L\d+)\b", rf"\1_{t}", line) for line in rw.kernel]
    lines += ["    _p[_j] = _o0"]
    lines += [f"    _s{k}[_j] = _o{k + 1}" for k in range(len(slots))]
    return lines


def _chunk_loop(rw: _Rewriter, loop: str, t: str, kind: str) -> list[str]:
    n_slots = len(rw.arrays) - 2
    if kind == "dense":  # chunk c: elements [start, stop) of tensor _chunks[c, 0] of the table
        size = np.dtype(t).itemsize
        lines = [
            f"for _c in {loop}(_chunks.shape[0]):",
            "    _t = _chunks[_c, 0]",
            f"    _o = _chunks[_c, 1] * {size}",
            "    _m = _chunks[_c, 2] - _chunks[_c, 1]",
            "    _d = _decay[_t]",
            f"    _p = carray(data_at(_objs[_t, 0], _o), _m, np.{t})",
            f"    _g = carray(data_at(_objs[_t, 1], _o), _m, np.{t})",
        ]
        lines += [f"    _s{k} = carray(data_at(_objs[_t, {k + 2}], _o), _m, np.{t})" for k in range(n_slots)]
    else:  # chunk c belongs to gradient row r and updates row _idx[r] of the variable and slots
        lines = [
            f"for _c in {loop}(_nc):",
            "    _r = _c // _cpr",
            "    _j0 = (_c - _r * _cpr) * _B",
            "    _j1 = min(_j0 + _B, _n)",
            "    _row = _idx[_r]",
            "    _p = _P[_row, _j0:_j1]",
            "    _g = _G[_r, _j0:_j1]",
        ]
        lines += [f"    _s{k} = _S{k}[_row, _j0:_j1]" for k in range(n_slots)]
    lines += [f"    if _d != _ZERO_{t}:"]
    lines += ["        " + line for line in _elementwise(rw, t, True)]
    lines += ["    else:"]
    lines += ["        " + line for line in _elementwise(rw, t, False)]
    return lines


def _module_source(rw: _Rewriter) -> str:
    slots = rw.arrays[2:]
    scalars = list(rw.scalar_args.values())
    row_args = ["_P", "_G"] + [f"_S{k}" for k in range(len(slots))] + ["_idx", "_B", "_d", "_serial"]
    out = [
        f'"""Fused kernels of {rw.qualname}, generated by descend.optimizers.fused (transform version '
        f'{TRANSFORM_VERSION}).',
        "",
        "dense_<dtype>: row t of _objs holds the array objects (id) of param, grad and the slots (in order "
        + ", ".join(map(repr, slots)) + ")",
        "of tensor t; _chunks rows are (tensor, start, stop); _decay[t] is tensor t's decoupled weight decay.",
        "rows_<dtype>: _P, _G, _S<k> as 2-D views; _G's row r updates row _idx[r].",
        "Do not edit: the file name is a hash of this text.",
        '"""',
        "",
        "import numpy as np",
        "from numba import carray, prange",
        "",
        "from descend._native.jit import data_at",
        "",
    ]
    out += [f"_T_{d.name} = np.{d.name}" for d in _DTYPES]
    out += [f"_ZERO_{d.name} = _T_{d.name}(0)" for d in _DTYPES]
    for (_, value), name in rw.literals.items():
        out += [f"{name}_{d.name} = _T_{d.name}({value!r})" for d in _DTYPES]
    out += ["", "", f"def prologue({', '.join(['*'] + [f'c_{c}' for c in rw.coefs]) if rw.coefs else ''}):",
            '    """The kernel\'s scalar arguments, computed from the coefficients with NumPy\'s rules."""']
    out += [f"    {line}" for line in rw.prologue]
    values = list(rw.scalar_args)
    out += [f"    return ({', '.join(values)}{',' if len(values) == 1 else ''})"]
    for d in _DTYPES:
        for kind, args, head in [
            ("dense", ["_objs", "_chunks", "_decay", "_serial"], []),
            ("rows", row_args, ["_n = _P.shape[1]", "_cpr = (_n + _B - 1) // _B", "_nc = _idx.shape[0] * _cpr"]),
        ]:
            out += ["", "", f"def {kind}_{d.name}({', '.join(args + scalars)}):"]
            out += [f"    {line}" for line in head]
            out += ["    if _serial:"]
            out += ["        " + line for line in _chunk_loop(rw, "range", d.name, kind)]
            out += ["    else:"]
            out += ["        " + line for line in _chunk_loop(rw, "prange", d.name, kind)]
    return "\n".join(out) + "\n"


def generate_source(rule) -> str:
    """The Python module generated for ``rule``: a ``prologue`` computing the
    kernel's scalar arguments and one ``kernel_<dtype>`` per dtype (plain
    Python; :func:`kernel_for` compiles it with numba). Raises ``ValueError``
    naming what the rewrite does not support."""
    try:
        return _module_source(_Rewriter(rule).run())
    except _Unsupported as e:
        raise ValueError(f"cannot fuse {getattr(rule, '__qualname__', rule)}: {e}") from None


# ---------------------------------------------------------------------------- compile and cache
def _load_module(source: str, name: str):
    """Import ``source`` from the cache directory (so numba can cache); ``(module, has_file)``."""
    import numba

    key = hashlib.sha256(
        f"{source}\n#{TRANSFORM_VERSION} numba {numba.__version__} {sys.version}".encode()).hexdigest()[:24]
    modname = f"descend_kernel_{name}_{key}"
    if modname in sys.modules:
        mod = sys.modules[modname]
        return mod, getattr(mod, "__file__", None) is not None
    try:
        d = cache_dir()
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{modname}.py"
        if not path.exists() or path.read_text() != source:  # never rewrite a good file: numba keys on its stamp
            fd, tmp = tempfile.mkstemp(dir=d, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                f.write(source)
            os.replace(tmp, path)
        spec = importlib.util.spec_from_file_location(modname, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[modname] = mod
        spec.loader.exec_module(mod)
        return mod, True
    except OSError as e:
        log.debug("cannot write kernel cache %s (%s): compiling without a disk cache", cache_dir(), e)
        sys.modules.pop(modname, None)
    mod = type(sys)(modname)
    exec(compile(source, f"<{modname}>", "exec"), mod.__dict__)
    return mod, False


class FusedRule:
    """The fused kernels of one rule (one per dtype, compiled on first use)."""

    def __init__(self, rule, source: str, n_slots: int, coefs: list, defaults: dict):
        self.rule = rule
        self.source = source
        self.n_slots = n_slots
        self.coefs = tuple(coefs)
        self.defaults = defaults
        self.name = getattr(rule, "__name__", "rule")
        self.module, self.cached = _load_module(source, "".join(ch if ch.isalnum() else "_" for ch in self.name))
        self.prologue = self.module.prologue
        self._coef_set = set(self.coefs)
        self._kernels: dict = {}
        self._last: dict = {}  # dtype -> (coefficient dict, scalar arguments)
        self._failed: set = set()

    def kernel(self, kind: str, dtype):
        """The numba dispatcher of ``kind`` ("dense" or "rows") for ``dtype`` (created once per
        generated module, so rules with the same source share it; compiled or loaded from the
        cache on first call)."""
        key = (kind, dtype)
        k = self._kernels.get(key)
        if k is None:
            import numba

            with _rules_lock:
                shared = self.module.__dict__.setdefault("_dispatchers", {})
                k = shared.get(f"{kind}_{dtype.name}")
                if k is None:
                    k = shared[f"{kind}_{dtype.name}"] = numba.njit(
                        parallel=True, cache=self.cached, error_model="numpy", nogil=True)(
                        getattr(self.module, f"{kind}_{dtype.name}"))
                self._kernels[key] = k
        return k

    def _scalars(self, coefficients: dict, dtype) -> tuple | None:
        """The kernel's scalar arguments in ``dtype`` (None: not scalars; use the NumPy path).

        Cached for the last coefficient dict per dtype: the base class computes
        one dict per step and dtype and never changes it."""
        hit = self._last.get(dtype)
        if hit is not None and hit[0] is coefficients:
            return hit[1]
        given = coefficients
        if coefficients.keys() != self._coef_set:
            if not (coefficients.keys() <= self._coef_set and self._coef_set - coefficients.keys() <= set(
                    self.defaults)):
                return None  # the reference path reports the mismatch
            coefficients = {**self.defaults, **coefficients}
        args = []
        for v in self.prologue(**{f"c_{k}": v for k, v in coefficients.items()}):
            if isinstance(v, (bool, np.bool_)):
                args.append(bool(v))
            elif isinstance(v, (int, float, np.number)) or (isinstance(v, np.ndarray) and v.ndim == 0):
                args.append(dtype.type(v))
            else:
                return None
        args = tuple(args)
        self._last[dtype] = (given, args)
        return args

    def apply_dense(self, params: list, grads: list, slots: list, decays: list, coefficients: dict) -> bool:
        """Update every ``params[t]`` and its ``slots[t]`` (a list per tensor) with
        ``grads[t]`` in one kernel call, after the decoupled weight decay
        ``param -= param * decays[t]`` where ``decays[t]`` is not 0. False when
        this call must take the NumPy path (nothing changed then): arrays that
        are not C-contiguous, writable arrays of one float dtype and matching sizes."""
        dtype = params[0].dtype
        if dtype not in _DTYPES or dtype in self._failed:
            return False
        width = 2 + self.n_slots
        objects = []
        add = objects.append
        for p, g, ss in zip(params, grads, slots):
            if len(ss) != self.n_slots:
                return False
            size = p.size
            flags = p.flags
            if not (flags.c_contiguous and flags.writeable):
                return False
            add(id(p))
            for a in (g, *ss):
                if (a.dtype is not dtype and a.dtype != dtype) or a.size != size or not a.flags.c_contiguous:
                    return False
                add(id(a))
        args = self._scalars(coefficients, dtype)
        if args is None:
            return False
        n = len(params)
        table = np.fromiter(objects, np.int64, n * width).reshape(n, width)
        sizes = np.fromiter((p.size for p in params), np.int64, n)
        chunks = _native.kernels().chunk_table(sizes, _native.CHUNK)
        return self._launch("dense", dtype, int(sizes.sum()),
                            (table, chunks, np.array(decays, dtype)) if n else None, args)

    def apply_rows(self, param: np.ndarray, grad: np.ndarray, slots: list, coefficients: dict, idx: np.ndarray,
                   decay: float = 0.0) -> bool:
        """Update the rows ``idx`` (unique) of ``param`` and ``slots`` in place with
        the rows of ``grad``, after ``param[idx] -= param[idx] * decay`` when
        ``decay`` is not 0; False when this call must take the NumPy path
        (nothing changed then)."""
        dtype = param.dtype
        if dtype not in _DTYPES or dtype in self._failed or grad.dtype != dtype or len(slots) != self.n_slots:
            return False
        shape = param.shape
        for a in (param, *slots):
            flags = a.flags
            if not (flags.c_contiguous and flags.writeable and a.dtype == dtype and a.shape == shape):
                return False
        if not param.size:
            return False
        args = self._scalars(coefficients, dtype)
        if args is None:
            return False
        rows = idx if idx.dtype == np.intp and idx.flags.c_contiguous else np.ascontiguousarray(idx, np.intp)
        width = param.size // shape[0]
        if grad.size != rows.shape[0] * width:
            return False
        G = grad.reshape(rows.shape[0], width) if grad.flags.c_contiguous else np.ascontiguousarray(
            grad).reshape(rows.shape[0], width)
        arrays = (param.reshape(-1, width), G, *[s.reshape(-1, width) for s in slots], rows, _native.CHUNK,
                  dtype.type(decay))
        return self._launch("rows", dtype, grad.size, arrays, args)

    def _launch(self, kind: str, dtype, n_elements: int, arrays, args) -> bool:
        if arrays is None:
            return True
        kernel = self._kernels.get((kind, dtype)) or self.kernel(kind, dtype)
        try:
            kernel(*arrays, _native.serial(n_elements), *args)
        except Exception as e:  # typing and compile errors come before any write
            self._failed.add(dtype)
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            warnings.warn(f"descend: cannot compile the fused {dtype.name} kernel of update rule "
                          f"{getattr(self.rule, '__qualname__', self.name)} ({type(e).__name__}: {first}); "
                          "using the NumPy path", FusedKernelWarning, stacklevel=5)
            log.debug("fused kernel compile failure", exc_info=True)
            return False
        stats[kind] += 1
        return True


def find_nonfinite(arrays: list) -> int | None:
    """Index of the first array holding a NaN or Inf, -1 when none does; None when
    the fused check cannot take these arrays (the caller checks with NumPy)."""
    if not arrays or not enabled():
        return None
    dtype = arrays[0].dtype
    if dtype not in _DTYPES:
        return None
    total = 0
    for a in arrays:
        if a.dtype != dtype or not a.flags.c_contiguous:
            return None
        total += a.size
    return _native.kernels().any_nonfinite(arrays, _native.CHUNK, _native.serial(total))


_rules: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # rule -> FusedRule | None
_warned: set = set()  # code objects of rules that could not be fused
_rules_lock = threading.RLock()


def kernel_for(rule) -> FusedRule | None:
    """The :class:`FusedRule` of ``rule``, built once per rule; None when the
    rule cannot be fused (a :class:`FusedKernelWarning` says why, once per
    function) or numba is missing."""
    try:
        return _rules[rule]
    except KeyError:
        pass
    except TypeError:  # not weakly referenceable: not a plain function
        return None
    with _rules_lock:
        if rule in _rules:
            return _rules[rule]
        fused = None
        if _native._numba_available():
            try:
                rw = _Rewriter(rule).run()
                fused = FusedRule(rule, _module_source(rw), len(rw.arrays) - 2, rw.coefs, rw.defaults)
            except _Unsupported as e:
                code = getattr(rule, "__code__", None)
                if code is None or code not in _warned:
                    _warned.add(code)
                    warnings.warn(f"descend: cannot fuse update rule {getattr(rule, '__qualname__', rule)}: {e}; "
                                  "using the NumPy path", FusedKernelWarning, stacklevel=4)
        _rules[rule] = fused
        return fused
