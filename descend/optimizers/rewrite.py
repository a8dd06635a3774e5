"""The rewrite of an optimizer's elementwise rule into the kernel backends'
intermediate form (:class:`descend._native.backend.KernelSpec`). Pure Python:
nothing here imports numba.

:func:`rewrite` reads the source of a rule
``update(param, grad, *slots, **coefficients) -> (new_param, *new_slots)``
and produces

* the **prologue**: every sub-expression that involves no array (``1 - beta_1``,
  ``-l1``, ``lr * momentum``), and every local computed only from such values,
  as Python statements over the coefficients ``c_<name>``; it runs once per call
  with NumPy's rules, exactly as the NumPy path computes those values, and its
  results become the kernel's scalar arguments ``s0, s1, ...`` (cast to the
  variable's dtype by the backend);
* the **literals**: every number left inside an array expression, as a named
  constant ``_L<k>`` that the backend types in the kernel's dtype (numba has no
  weak scalars: a bare ``1`` or a float64 coefficient would turn float32 math
  into float64 math);
* the **body**: one scalar loop body over ``v_<name>`` elements, where
  ``np.where(c, x, y)`` is ``(x if c else y)``, ``x ** 2`` is ``np.square(x)`` and
  ``x ** 0.5`` is ``np.sqrt(x)`` (what NumPy computes for arrays), and only the
  NumPy functions in :data:`ALLOWED_FUNCTIONS` are called (their scalar forms keep
  float32 as float32).

Rules that are not plain ``def`` functions, or that use anything else (other
calls, indexing, reductions, loops, non-numeric constants), raise
:class:`UnsupportedRule` naming what; the optimizer then uses the NumPy path.

Example:

>>> from descend.optimizers.adam import adam_update
>>> spec = rewrite(adam_update)  # m = m + (grad - m) * (1 - beta_1) ...
>>> spec.arrays, spec.coefficients
(('param', 'grad', 'm', 'v'), ('alpha', 'beta_1', 'beta_2', 'epsilon'))
>>> spec.scalars[0], spec.body[0]
(('s0', '1 - c_beta_1'), 'v_m = v_m + (v_grad - v_m) * s0')
"""

from __future__ import annotations

import ast
import builtins
import collections
import inspect
import textwrap

import numpy as np

from .._native.backend import KernelSpec

__all__ = ["ALLOWED_FUNCTIONS", "TRANSFORM_VERSION", "UnsupportedRule", "rewrite"]

#: version of the intermediate form this rewrite produces (bump when its meaning changes; the
#: compiled kernels are keyed by their text, so a changed form never reuses a stale kernel)
TRANSFORM_VERSION = 3
#: NumPy functions a rule may call; numba's scalar forms keep float32 as float32
ALLOWED_FUNCTIONS = frozenset({
    "sqrt", "maximum", "minimum", "fmax", "fmin", "abs", "absolute", "fabs", "sign", "square", "exp", "expm1",
    "log", "log1p", "power", "tanh", "negative", "where",
})


class UnsupportedRule(ValueError):
    """The rule uses something the rewrite does not handle; the message says what.

    Attributes:
        rule_name: the rule's qualified name.
        reason: what the rewrite does not support (``"it calls _helper (only numpy functions are fused)"``).
    """

    def __init__(self, rule_name: str, reason: str):
        super().__init__(f"cannot fuse {rule_name}: {reason}")
        self.rule_name = rule_name
        self.reason = reason


class _Unsupported(Exception):
    """Raised inside the rewrite; :func:`rewrite` turns it into :class:`UnsupportedRule`."""


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
                raise _Unsupported(f"it calls np.{func.attr}, which is not in ALLOWED_FUNCTIONS (descend.optimizers.rewrite)")
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


def rewrite(rule) -> KernelSpec:
    """The intermediate form of ``rule`` (see the module docstring).

    Args:
        rule: a plain ``def`` function ``(param, grad, *slots, *, coefficient...)``
            returning the literal tuple ``(new_param, *new_slots)``.

    Returns:
        The :class:`~descend._native.backend.KernelSpec` of its kernels.

    Raises:
        UnsupportedRule: (a ``ValueError``) naming what the rewrite does not support.
    """
    try:
        rw = _Rewriter(rule).run()
    except _Unsupported as e:
        raise UnsupportedRule(getattr(rule, "__qualname__", repr(rule)), str(e)) from None
    return KernelSpec(
        name=getattr(rule, "__name__", "rule"),
        qualname=rw.qualname,
        arrays=tuple(rw.arrays),
        coefficients=tuple(rw.coefs),
        defaults=tuple(rw.defaults.items()),
        prologue=tuple(rw.prologue),
        scalars=tuple((arg, expr) for expr, arg in rw.scalar_args.items()),
        literals=tuple((name, value) for (_, value), name in rw.literals.items()),
        body=tuple(rw.kernel),
    )
