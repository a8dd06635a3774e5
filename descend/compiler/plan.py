"""The plan: a recorded graph turned into one generated Python function over preallocated buffers.

:func:`build_plan` lowers each node of a graph, for the shapes it was traced
with, and writes the whole graph as the straight-line body of one Python
function (``Plan.source`` shows it), so a call costs one Python call per
node and no dispatch, no Tensor and no tape bookkeeping:

* a **matrix product** is one :func:`descend._native.blas.matmul_into` call
  into a buffer, as the eager op makes it (one-thread BLAS calls, a large
  product cut into blocks as the eager op cuts it: the same bits); transposed
  operands are views made once;
* an **elementwise op**, a **sum**, **mean** or **max** writes its NumPy ufunc
  or reduction into a buffer (``out=``); a chain of elementwise ops is one
  generated kernel (:mod:`descend.compiler.fusion`); a reduction over short
  rows of a buffer calls the row kernel the eager op would call
  (:meth:`_Builder.reduce_rows`: NumPy's bits, chosen at plan time);
* a **view** (reshape, transpose, expand_dims, broadcast_to...) of a buffer
  or constant is made once, at plan time;
* a Variable **write** is the in-place NumPy update the method makes;
* any other op runs its NumPy forward (it allocates its result): slower,
  the same numbers. A one-time :class:`PlanCallbackWarning` names each such
  op (``descend.compiler.plan.WARN_CALLBACKS = False`` silences them);
* an **opaque** node (``Optimizer.apply_gradients``) runs whole;
* ``cond`` and ``while_loop`` run sub-plans.

A plan runs with threads or on one thread, whichever its calls measured
faster (:class:`ThreadChoice`).

Buffers are allocated once per plan (a trace has fixed shapes) and reused by
every call; results handed to the caller are copied into arrays from a small
pool that reuses an array once the caller has let go of it, so a steady
state allocates no new arrays. The values are eager execution's: each
lowered node is the NumPy call the op's forward makes, into ``out=``.
"""

from __future__ import annotations

import contextlib
import functools
import math
import sys
import time
import warnings

import numpy as np

from .. import _native
from ..errors import InvalidArgumentError
from ..framework.indexed_slices import IndexedSlices
from ..framework.op import OPS
from ..framework.tensor import Tensor
from .graph import Graph, Lit, Value, VarRef

__all__ = ["Plan", "PlanCallbackWarning", "WARN_CALLBACKS", "build_plan", "options"]

#: warn once per op name (per process) when an op runs its NumPy forward inside a plan (no lowered form)
WARN_CALLBACKS = True
_warned: set = set()
#: how plans are built: ``fuse`` elementwise runs into generated loops and use the backend's kernels
_OPTIONS = {"fuse": True}


@contextlib.contextmanager
def options(**kwargs):
    """Build the plans made inside this block with these options (``fuse``: generated loops and kernels).

    Example:
        >>> from descend.compiler import plan
        >>> with plan.options(fuse=False):
        ...     pass  # plans built here make only NumPy calls
    """
    unknown = set(kwargs) - set(_OPTIONS)
    if unknown:
        raise TypeError(f"options: unknown option(s) {sorted(unknown)}; expected some of {sorted(_OPTIONS)}")
    saved = dict(_OPTIONS)
    _OPTIONS.update({k: bool(v) for k, v in kwargs.items()})
    try:
        yield
    finally:
        _OPTIONS.clear()
        _OPTIONS.update(saved)


class PlanCallbackWarning(UserWarning):
    """An op has no compiled form: it runs its NumPy forward inside the plan (slower, the same numbers)."""


class _Rebuild(Exception):
    """A Variable's array changed since the plan was built: build it again."""


def build_plan(graph: Graph) -> Plan:
    return Plan(graph)


# ====================================================================== lowering tables
#: op name -> NumPy ufunc its forward is (exactly), for ops of one or two inputs
_UFUNC = {
    "add": np.add, "subtract": np.subtract, "multiply": np.multiply, "negative": np.negative,
    "reciprocal": np.reciprocal, "square": np.square, "sqrt": np.sqrt, "exp": np.exp, "log": np.log,
    "log1p": np.log1p, "expm1": np.expm1, "abs": np.abs, "sign": np.sign, "maximum": np.maximum,
    "minimum": np.minimum, "tanh": np.tanh, "equal": np.equal, "not_equal": np.not_equal, "less": np.less,
    "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
    "logical_and": np.logical_and, "logical_or": np.logical_or,
}
#: reduction op -> the ufunc whose ``reduce`` computes it (np.sum, np.mean's sum, np.max, np.min)
_REDUCE = {"reduce_sum": np.add, "reduce_mean": np.add, "reduce_max": np.maximum, "reduce_min": np.minimum}
#: ops lowered as the few NumPy calls of their forward (:meth:`_Builder.composite`)
_COMPOSITE = {"sigmoid", "softmax", "log_softmax", "softmax_cross_entropy_with_logits", "leaky_relu", "elu", "rsqrt",
              "where", "squared_difference", "zeros_like", "ones_like"}
_VIEWS = {"reshape", "expand_dims", "squeeze", "broadcast_to", "transpose", "identity", "stop_gradient"}
#: ops lowered by a method of :class:`_Builder` of their own (copies and gathers into buffers: the same bits)
_ARRAY_OPS = {"concat": "concat", "split": "split", "getitem": "getitem", "_getitem_grad": "getitem_grad",
              "gather": "gather", "einsum": "einsum", "im2col": "im2col", "col2im": "col2im",
              "max_pool_windows": "max_pool_windows", "max_pool_scatter": "max_pool_scatter",
              "max_pool_gather": "max_pool_gather", "lstm_sequence": "recurrent", "lstm_sequence_grad": "recurrent"}
#: ops whose forward is what the plan runs anyway (a draw is a fresh array by nature): no warning
_NO_WARNING = {"random_draw"}
#: ops a plan computes once, when it is built, where every input is a constant or a Python literal
#: (:meth:`descend.compiler.graph.Graph.fold_constants`): pure NumPy functions of their inputs (no BLAS, whose
#: way may depend on threads; no state), so the op's forward then gives the bits each call computed
_FOLDABLE = frozenset(_UFUNC) | frozenset(_REDUCE) | frozenset(_VIEWS) | {"divide", "relu", "cast"}


def _nonzero_finite(r) -> bool:
    """Whether ``r`` is a number (a literal or a constant) with no zero, infinity or NaN in it."""
    value = r.value if type(r) is Lit else r.const if type(r) is Value else None
    if value is None:
        return False
    try:
        a = np.asarray(value)
        return a.dtype.kind in "iuf" and bool(np.all(np.isfinite(a)) and np.all(a != 0))
    except (TypeError, ValueError):
        return False


def _registered(node, name) -> bool:
    return OPS.get(name) is node.op


class _OutputPool:
    """Arrays of one shape and dtype that results are copied into; one is reused once nothing but the
    pool holds it (its reference count says so), so a caller that lets results go costs no allocation."""

    __slots__ = ("shape", "dtype", "held")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.held = shape, dtype, []

    def take(self, src):
        for a in self.held:
            if sys.getrefcount(a) == 3:  # the list, the loop variable and getrefcount's argument
                np.copyto(a, src)
                return a
        a = np.array(src, dtype=self.dtype, copy=True)
        if len(self.held) < 4:
            self.held.append(a)
        return a


def _asarray(x):
    return x if type(x) is np.ndarray else np.asarray(x)


def _view_of(fixed: np.ndarray, make):
    """``make(fixed)`` when it is a view of ``fixed``'s memory, which a plan may bind once; None when it is a
    copy (a reshape of a broadcast or transposed array), which holds the values of the moment it was made and
    must be made again at every run."""
    out = make(fixed)
    if out.size == 0 or np.may_share_memory(out, fixed):  # (a copy is fresh memory: never within the bounds)
        return out
    return None


class _Builder:
    """Writes the plan function of one graph (see the module docstring)."""

    def __init__(self, graph: Graph, sub: bool):
        self.graph = graph
        self.sub = sub
        self.g: dict = {"np": np, "_asarray": _asarray, "Tensor": Tensor, "_errstate": np.errstate}
        self.lines: list[str] = []
        self.names: dict = {}        # Value -> expression
        self.fixed: dict = {}        # Value -> the array object, for names bound at plan time
        self.fresh: set = set()      # Values whose array no plan buffer or Variable backs
        self.var_names: dict = {}    # id(captured Variable) -> local name of its array
        self.var_objs: dict = {}     # id(captured Variable) -> global name of the Variable
        self.var_arrays: list = []   # (global Variable name, array object) checked at each run
        self.sites: list = []        # node index -> label, for error messages
        self.counter = 0
        self.fused = 0               # loops generated
        self.xent_cache: dict = {}   # logits Value -> buffers (shifted, exp, row sums) computed from them

    def glob(self, obj, prefix="G") -> str:
        name = f"{prefix}{self.counter}"
        self.counter += 1
        self.g[name] = obj
        return name

    # -------------------------------------------------------------- references
    def expr(self, r) -> str:
        if type(r) is Value:
            name = self.names.get(r)
            if name is None:
                if r.const is None:
                    raise RuntimeError(f"plan: {r!r} used before it is computed")
                name = self.names[r] = self.glob(r.const, "K")
                self.fixed[r] = r.const
            return name
        if type(r) is VarRef:
            if r.var is None:
                return f"va{r.arg}._value"
            return self.var_local(r.var)
        return self.glob(r.value, "L")

    def var_local(self, var) -> str:
        name = self.var_names.get(id(var))
        if name is None:
            gname = self.glob(var, "V")
            self.var_objs[id(var)] = gname
            name = self.var_names[id(var)] = f"w{len(self.var_names)}"
            self.var_arrays.append((gname, var._value, name))
        return name

    def var_obj(self, r: VarRef) -> str:
        if r.var is None:
            return f"va{r.arg}"
        self.var_local(r.var)
        return self.var_objs[id(r.var)]

    def fixed_array(self, r):
        """The array object ``r`` always is (a buffer, constant, view of one, or a captured Variable's
        array), or None."""
        if type(r) is Value:
            if r in self.fixed:
                return self.fixed[r]
            if r.const is not None:
                return r.const
            return None
        if type(r) is VarRef and r.var is not None and not self.sub:  # checked at each run of the top plan
            return r.var._value
        return None

    def buffer(self, v: Value) -> str:
        arr = np.empty(v.shape, v.dtype)
        name = self.names[v] = self.glob(arr, "B")
        self.fixed[v] = arr
        return name

    def local(self, v: Value, fresh=True) -> str:
        name = self.names[v] = f"v{self.counter}"
        self.counter += 1
        if fresh:
            self.fresh.add(v)
        return name

    # -------------------------------------------------------------- nodes
    def build(self):
        graph = self.graph
        groups = {g.start: g for g in self._groups()}
        k = 0
        while k < len(graph.nodes):
            node = graph.nodes[k]
            mark = len(self.lines)
            self.lines.append(f"_n = {len(self.sites)}")
            group = groups.get(k)
            if group is not None and self.loop(group):
                self.sites.append(graph.nodes[group.stop - 1])
                k = group.stop
                continue
            self.sites.append(node)
            getattr(self, f"node_{node.kind}")(node)
            if len(self.lines) == mark + 1:  # nothing to run (a view made at plan time)
                del self.lines[mark]
            k += 1
        outs = []
        for r in graph.outputs:
            if type(r) is VarRef:
                outs.append(self.var_obj(r))
            elif type(r) is Lit:
                outs.append(self.glob(r.value, "L"))
            elif self.sub:
                outs.append(self.expr(r))
            elif r in self.fresh:
                outs.append(self.expr(r))
            else:
                pool = self.glob(_OutputPool(r.shape, r.dtype), "P")
                outs.append(f"{pool}.take({self.expr(r)})")
        head = []
        if self.sub:
            args = "xs, cs, var_args"
            for i, v in enumerate(graph.inputs):
                self.names.setdefault(v, f"x{i}")
        else:
            args = "xs, var_args"
        for i in range(len(graph.inputs)):
            head.append(f"x{i} = xs[{i}]" if self.sub else f"x{i} = xs[{i}]._value")
        for i in range(len(graph.capture_values)):
            head.append(f"c{i} = cs[{i}]")
        for k in range(self._max_var_arg() + 1):
            head.append(f"va{k} = var_args[{k}]")
        for gname, arr, local in self.var_arrays:
            head.append(f"if {gname}._before_read is not None: {gname}._before_read({gname}, None)")
            head.append(f"{local} = {gname}._value")
            if not self.sub:
                head.append(f"if {local} is not {self.glob(arr, 'A')}: raise _Rebuild")
        self.g["_Rebuild"] = _Rebuild
        body = ["def run(" + args + "):"]
        body += ["    " + line for line in head]
        body += ["    " + line for line in self.lines]
        body += [f"    return [{', '.join(outs)}]"]
        return "\n".join(body) + "\n"

    def _groups(self) -> list:
        if not _OPTIONS["fuse"] or not _native.enabled() or not _native.ready(exact=False):
            return []
        from .fusion import find_groups

        return find_groups(self.graph)

    def reshaped(self, r, shape) -> str:
        """An expression of ``r``'s array with ``shape`` (a view made once when the array is fixed)."""
        fixed = self.fixed_array(r)
        if fixed is not None:
            if fixed.shape == tuple(shape):
                return self.expr(r)
            view = _view_of(fixed, lambda a: a.reshape(shape))
            if view is not None:
                return self.glob(view, "W")
            # (a broadcast or transposed array has no such view: reshaping it copies, so at every run)
        cur = self.shape_of(r)
        e = self.expr(r)
        return e if cur is not None and tuple(cur) == tuple(shape) else f"np.reshape({e}, {tuple(shape)!r})"

    def loop(self, group) -> bool:
        """Emit ``group`` (a fused run of elementwise ops) as one call of its generated loop; False when the
        backend cannot compile it (the nodes are emitted one by one)."""
        from .._native import backend as kb, cpu  # noqa: F401 (importing cpu registers the default backend)

        R, C = group.rows, group.cols
        try:
            kernel = kb.default().compile_loop(group.spec)
            dummies = []
            for r, layout in group.inputs:
                _, dtype = _ref_meta(r)
                dummies.append(np.zeros((1, 1) if layout == "full" else (1,), dtype))
            dummies += [np.zeros((1, 1), v.dtype) for v in group.outputs] + [np.zeros(1, v.dtype) for v in group.sums]
            kernel(1, 1, *dummies)  # compile now (or load from the disk cache), not in the middle of a call
        except NotImplementedError:
            return False
        except Exception as e:  # noqa: BLE001 - a loop that does not compile: the ops run one by one
            warnings.warn(f"descend.function: cannot compile the fused loop {group.spec.name} ({type(e).__name__}: "
                          f"{str(e).strip().splitlines()[0] if str(e).strip() else ''}); its ops run one by one",
                          kb.FusedKernelWarning, stacklevel=6)
            return False
        args = []
        for r, layout in group.inputs:
            shape = {"full": (R, C), "row": (C,), "col": (R,), "scalar": (1,)}[layout]
            args.append(self.reshaped(r, shape))
        for v in group.outputs:
            b = self.buffer(v)
            args.append(b if len(v.shape) == 2 else self.glob(self.fixed[v].reshape(R, C), "W"))
        for v in group.sums:
            args.append(self.buffer(v))
        k = self.glob(kernel, "K")
        self.lines.append(f"{k}({R}, {C}, {', '.join(args)})  # {group.spec.name}")
        self.fused += 1
        return True

    def _max_var_arg(self) -> int:
        m = -1
        for node in self.graph.nodes:
            for r in node.inputs:
                if type(r) is VarRef and r.var is None:
                    m = max(m, r.arg)
        for r in self.graph.outputs:
            if type(r) is VarRef and r.var is None:
                m = max(m, r.arg)
        return m

    def bind_inputs(self):
        for i, v in enumerate(self.graph.inputs):
            self.names[v] = f"x{i}"
        for i, v in enumerate(self.graph.capture_values):
            self.names[v] = f"c{i}"

    def node_op(self, node):
        op = node.op
        name = op.name
        ins = node.inputs
        if len(node.outputs) == 1 and _registered(node, name):
            out = node.outputs[0]
            if name in _UFUNC and len(ins) == op.num_inputs:
                self.ufunc(node, _UFUNC[name], ins, out)
                return
            if name == "divide":
                b = self.buffer(out)
                args = ", ".join(self.expr(r) for r in ins)
                if _nonzero_finite(ins[1]):  # (nothing to silence: no division by zero, no inf / inf)
                    self.lines.append(f"np.true_divide({args}, out={b})")
                    return
                self.lines.append("with _errstate(divide='ignore', invalid='ignore'):")
                self.lines.append(f"    np.true_divide({args}, out={b})")
                return
            if name == "relu" and out.dtype.kind == "f":
                self.lines.append(f"np.maximum({self.expr(ins[0])}, 0, out={self.buffer(out)})")
                return
            if name == "matmul" and self.matmul(node, out):
                return
            if name in ("reduce_sum", "reduce_mean", "reduce_max", "reduce_min") and self.reduction(node, out):
                return
            if name in _VIEWS and self.view(node, out):
                return
            if name in ("identity", "stop_gradient") and type(ins[0]) is VarRef and ins[0].var is not None:
                # a snapshot of a Variable (read_value): a copy into a buffer, as eager copies it
                self.lines.append(f"np.copyto({self.buffer(out)}, {self.expr(ins[0])})")
                return
            if name == "cast" and self.cast(node, out):
                return
            if name == "add_n" and self.add_n(node, out):
                return
            if name in _COMPOSITE and self.composite(node, out):
                return
            if name.startswith("sparse_softmax_cross_entropy_with_logits") and self.xent(node, out):
                return
        if _registered(node, name) and name in _ARRAY_OPS and getattr(self, _ARRAY_OPS[name])(node):
            return
        self.generic(node)

    def ufunc(self, node, fn, ins, out):
        b = self.buffer(out)
        f = self.glob(fn, "U")
        self.lines.append(f"{f}({', '.join(self.expr(r) for r in ins)}, out={b})")

    def matmul(self, node, out) -> bool:
        from .._native import blas

        a_ref, b_ref = node.inputs
        ta, tb = bool(node.attrs.get("transpose_a", False)), bool(node.attrs.get("transpose_b", False))
        shapes = []
        exprs = []
        for r, t in ((a_ref, ta), (b_ref, tb)):
            shape = self.shape_of(r)
            if shape is None or len(shape) != 2:
                return False
            fixed = self.fixed_array(r)
            if t:
                shape = shape[::-1]
                if fixed is not None:
                    exprs.append(self.glob(np.swapaxes(fixed, -1, -2), "T"))
                else:
                    exprs.append(f"np.swapaxes({self.expr(r)}, -1, -2)")
            else:
                exprs.append(self.expr(r))
            shapes.append(shape)
        (m, k), (k2, n) = shapes
        if k != k2 or out.shape != (m, n):
            return False
        b = self.buffer(out)
        mm = self.glob(blas.matmul_into_for(m, k, n), "M")
        self.lines.append(f"{mm}({exprs[0]}, {exprs[1]}, {b})")
        return True

    def xent(self, node, out) -> bool:
        """Sparse softmax cross-entropy (or its gradient): the eager op's NumPy calls into buffers for the
        max, exp, sum and log, and the backend's exact kernels for the rest (picking the label's logit;
        ``g * (softmax - one_hot)``). The gradient reuses the forward's exponentials and sums when the plan
        computed them from the same logits: the eager op's bits, without its temporaries."""
        from .._native import backend as kb, cpu  # noqa: F401 (importing cpu registers the default backend)

        if not _OPTIONS["fuse"] or not _native.enabled() or not _native.ready(exact=False):
            return False
        grad = node.op.name.endswith("_grad")
        refs = node.inputs
        metas = [_ref_meta(r) for r in refs]
        if any(m[0] is None for m in metas) or any(type(r) is Lit for r in refs):
            return False
        (*lead, (lshape, ldtype), (xshape, xdtype)) = metas
        if (len(xshape) != 2 or xdtype not in (np.dtype(np.float32), np.dtype(np.float64)) or lshape != xshape[:1]
                or ldtype.kind not in "iu" or out.dtype != xdtype):
            return False
        if grad and (lead[0][0] != xshape[:1] or lead[0][1] != xdtype):
            return False
        try:
            pick, gradient = kb.default().softmax_cross_entropy()
            if grad:
                gradient(np.zeros(1, xdtype), np.zeros(1, ldtype), np.zeros((1, 1), xdtype), np.zeros(1, xdtype),
                         np.zeros((1, 1), xdtype), xdtype.type(1))
            else:
                pick(np.zeros(1, ldtype), np.zeros((1, 1), xdtype), np.zeros(1, xdtype), np.zeros(1, xdtype))
        except NotImplementedError:
            return False
        except Exception as e:  # noqa: BLE001 - the op's own forward runs instead
            warnings.warn(f"descend.function: cannot compile the softmax cross-entropy kernels ({type(e).__name__}); "
                          "the op runs its NumPy forward", kb.FusedKernelWarning, stacklevel=6)
            return False
        logits = refs[-1]
        fail = self.glob(functools.partial(_raise_forward, node.op), "G")
        ins = ", ".join(self.expr(r) for r in refs)
        cached = self.xent_cache.get(logits) if type(logits) is Value else None
        if cached is None:
            n, c = xshape
            m, sh, e, s = (self.glob(np.empty(shape, xdtype), "B") for shape in ((n, 1), (n, c), (n, c), (n,)))
            x = self.expr(logits)
            # (the eager op's np.maximum.reduce and np.add.reduce over rows: the row kernels give their bits)
            self.lines += [self.reduce_rows(np.maximum, x, True, m), f"np.subtract({x}, {m}, out={sh})",
                           f"np.exp({sh}, out={e})", self.reduce_rows(np.add, e, False, s)]
            cached = (sh, e, s)
            if type(logits) is Value:
                self.xent_cache[logits] = cached
        sh, e, s = cached
        b = self.buffer(out)
        if grad:
            k = self.glob(gradient, "X")
            one = self.glob(xdtype.type(1), "L")
            g, labels = (self.expr(r) for r in refs[:2])
            self.lines.append(f"if {k}({g}, {labels}, {e}, {s}, {b}, {one}) >= 0: {fail}({ins})")
        else:
            k = self.glob(pick, "X")
            lse = self.glob(np.empty(xshape[:1], xdtype), "B")
            self.lines.append(f"np.log({s}, out={lse})")
            self.lines.append(f"if {k}({self.expr(refs[0])}, {sh}, {lse}, {b}) >= 0: {fail}({ins})")
        return True

    def shape_of(self, r):
        if type(r) is Value:
            return r.shape
        if type(r) is VarRef:
            return r.var._value.shape if r.var is not None else None
        return None

    def reduction(self, node, out) -> bool:
        from ..ops._util import normalize_axis

        (x,) = node.inputs
        if type(x) is Lit:
            return False
        shape = self.shape_of(x)
        if shape is None:
            return False
        dtype = x.dtype if type(x) is Value else x.var._value.dtype
        if dtype.kind != "f":
            return False
        axes = normalize_axis(node.attrs.get("axis"), len(shape))
        keep = bool(node.attrs.get("keepdims", False))
        name = node.op.name
        b = self.buffer(out)
        count = math.prod(shape[a] for a in axes)
        if name == "reduce_mean" and (not count or dtype.itemsize < 4):
            # np.mean's own result (a float16 mean sums in float32 and rounds once or twice, by whether it
            # gives an array or a scalar; a mean of nothing warns and gives NaN): into the buffer after
            mean = self.glob(functools.partial(np.mean, axis=axes, keepdims=keep), "F")
            self.lines.append(f"np.copyto({b}, {mean}({self.expr(x)}), casting='unsafe')")
            return True
        # the ufunc's reduce, as np.sum, np.max, ... call it (without their Python wrappers); a mean is
        # np.mean's own two steps: the sum into the output, divided in place by the count (an np.intp)
        if axes == (len(shape) - 1,) and name != "reduce_min":  # (short rows by the row kernels, NumPy's bits)
            self.lines.append(self.reduce_rows(_REDUCE[name], self.expr(x), keep, b))
        else:
            reduce = self.glob(_REDUCE[name].reduce, "U")
            self.lines.append(f"{reduce}({self.expr(x)}, axis={axes!r}, keepdims={keep}, out={b})")
        if name == "reduce_mean":
            self.lines.append(f"np.true_divide({b}, {self.glob(np.intp(count), 'L')}, out={b}, casting='unsafe')")
        return True

    def view(self, node, out) -> bool:
        (x,) = node.inputs[:1]
        fn = functools.partial(node.op.forward, **node.attrs)
        if type(x) is VarRef:  # a view of a Variable is a copy (eager copies it)
            self.lines.append(f"np.copyto({self.buffer(out)}, {self.glob(fn, 'F')}({self.expr(x)}))")
            return True
        if type(x) is not Value:
            return False  # a Lit is not a view
        fixed = self.fixed_array(x)
        arr = None if fixed is None else _view_of(fixed, lambda a: np.asarray(fn(a)))
        if arr is not None:
            self.names[out] = self.glob(arr, "W")
            self.fixed[out] = arr
            return True
        f = self.glob(fn, "F")
        name = self.local(out, fresh=False)
        self.lines.append(f"{name} = {f}({self.expr(x)})")
        return True

    def add_n(self, node, out) -> bool:
        """``add_n``: the first input copied into the buffer, then each other added to it in order (the eager
        op's sum, in its order)."""
        ins = node.inputs
        if not ins or any(_ref_meta(r) != (out.shape, out.dtype) for r in ins):
            return False
        b = self.buffer(out)
        self.lines.append(f"np.copyto({b}, {self.expr(ins[0])})")
        self.lines.extend(f"np.add({b}, {self.expr(r)}, out={b})" for r in ins[1:])
        return True

    # -------------------------------------------------------------- array ops (lowered copies)
    def _metas(self, refs):
        """The (shape, dtype) of each reference, or None when one is a literal or an unbound Variable."""
        metas = [_ref_meta(r) for r in refs]
        if any(type(r) is Lit or m[0] is None for r, m in zip(refs, metas)):
            return None
        return metas

    def concat(self, node) -> bool:
        """``np.concatenate`` of the inputs into a buffer (the op's forward, with ``out=``)."""
        out = node.outputs[0]
        metas = self._metas(node.inputs)
        if not metas or any(m[1] != out.dtype or len(m[0]) != len(out.shape) for m in metas):
            return False
        axis = node.attrs.get("axis", 0)
        b = self.buffer(out)
        parts = ", ".join(self.expr(r) for r in node.inputs)
        self.lines.append(f"np.concatenate(({parts},), axis={int(axis)}, out={b})")
        return True

    def split(self, node) -> bool:
        """The parts are views of the input (as the op's): made once when the input is a buffer or constant."""
        (x,) = node.inputs
        if type(x) is Lit:
            return False
        sizes, axis = tuple(int(n) for n in node.attrs.get("sizes", ())), int(node.attrs.get("axis", 0))
        offsets = [int(o) for o in np.cumsum(sizes)[:-1]]
        if type(x) is VarRef:  # a Variable's parts are copies (eager copies them), into buffers
            parts = f"t{self.counter}"
            self.counter += 1
            self.lines.append(f"{parts} = np.split({self.expr(x)}, {offsets!r}, axis={axis})")
            self.lines += [f"np.copyto({self.buffer(v)}, {parts}[{k}])" for k, v in enumerate(node.outputs)]
            return True
        fixed = self.fixed_array(x)
        if fixed is not None:
            parts = np.split(fixed, offsets, axis=axis)
            if all(p.size == 0 or np.may_share_memory(p, fixed) for p in parts):
                for v, p in zip(node.outputs, parts):
                    self.names[v] = self.glob(p, "W")
                    self.fixed[v] = p
                return True
        names = [self.local(v, fresh=False) for v in node.outputs]
        self.lines.append(f"{', '.join(names)}, = np.split({self.expr(x)}, {offsets!r}, axis={axis})")
        return True

    def getitem(self, node) -> bool:
        """``x[key]``: a view made once for basic indexing of a buffer or constant; otherwise the indexing each
        call, a copy into a buffer for a Variable's (eager copies it) or for integer-array keys."""
        (x,) = node.inputs
        out = node.outputs[0]
        if type(x) is Lit:
            return False
        key = self.glob(node.attrs.get("key", ()), "L")
        fixed = self.fixed_array(x) if type(x) is Value else None
        if fixed is not None:
            view = _view_of(fixed, lambda a: np.asarray(a[node.attrs.get("key", ())]))
            if view is not None and view.shape == out.shape:
                self.names[out] = self.glob(view, "W")
                self.fixed[out] = view
                return True
        if type(x) is VarRef or fixed is not None:
            self.lines.append(f"np.copyto({self.buffer(out)}, {self.expr(x)}[{key}])")
            return True
        name = self.local(out, fresh=False)
        self.lines.append(f"{name} = {self.expr(x)}[{key}]")
        return True

    def getitem_grad(self, node) -> bool:
        """The op's zeros and ``np.add.at``, into a buffer zeroed at each call."""
        (g,) = node.inputs
        out = node.outputs[0]
        if type(g) is Lit:
            return False
        b = self.buffer(out)
        key = self.glob(node.attrs.get("key", ()), "L")
        self.lines += [f"{b}.fill(0)", f"{self.glob(np.add.at, 'U')}({b}, {key}, {self.expr(g)})"]
        return True

    def gather(self, node) -> bool:
        """The op's index check, then ``np.take`` into a buffer."""
        from ..framework.validation import check_index_range

        params, indices = node.inputs
        out = node.outputs[0]
        metas = self._metas(node.inputs)
        if not metas or node.attrs.get("batch_dims", 0) or not metas[0][0] or metas[1][1].kind not in "iu":
            return False
        ax = int(node.attrs.get("axis", 0)) % len(metas[0][0])
        check = self.glob(functools.partial(check_index_range, size=metas[0][0][ax], what="gather"), "F")
        idx = self.expr(indices)
        self.lines += [f"{check}({idx})", f"np.take({self.expr(params)}, {idx}, axis={ax}, out={self.buffer(out)})"]
        return True

    def einsum(self, node) -> bool:
        """Two operands: the op's matrix product (:class:`descend.ops.math_ops.EinsumAsMatmul`, made once for the
        plan's shapes), or where it does not apply ``np.einsum`` (the op's unoptimized sum) into a buffer; more
        operands run the op."""
        from ..ops.math_ops import EinsumAsMatmul

        out = node.outputs[0]
        metas = self._metas(node.inputs)
        if not metas or len(node.inputs) > 2 or any(m[1] != out.dtype for m in metas):
            return False
        if len(metas) == 2:
            pair = EinsumAsMatmul.of(node.attrs.get("equation", ""), metas[0][0], metas[1][0], metas[0][1],
                                     metas[1][1])
            if pair is not None:
                f = self.glob(pair.into, "E")
                scratch = ", ".join(self.glob(arr, "B") for arr in pair.buffers(out.dtype))
                args = ", ".join(self.expr(r) for r in node.inputs)
                self.lines.append(f"{f}({args}, {scratch}, {self.buffer(out)})")
                return True
        eq = self.glob(node.attrs.get("equation", ""), "L")
        args = ", ".join(self.expr(r) for r in node.inputs)
        self.lines.append(f"np.einsum({eq}, {args}, out={self.buffer(out)})")
        return True

    def im2col(self, node) -> bool:
        """The op's patches into a buffer: the input copied into a padded buffer whose border is filled once."""
        from ..ops.conv_ops import _window

        (x,) = node.inputs
        out = node.outputs[0]
        metas = self._metas(node.inputs)
        if not metas or len(metas[0][0]) != 4 or metas[0][1] != out.dtype or len(out.shape) != 6:
            return False
        a = node.attrs
        (kh, kw), (sh, sw), (dh, dw) = a.get("ksize", (1, 1)), a.get("strides", (1, 1)), a.get("dilations", (1, 1))
        (pt, pb), (pl, pr) = a.get("pads", ((0, 0), (0, 0)))
        n, h, w, c = metas[0][0]
        src = self.expr(x)
        whole = self.contiguous(x, src)  # (what the kernel reads unless the input is copied into a padded buffer)
        if pt or pb or pl or pr:
            padded = np.full((n, h + pt + pb, w + pl + pr, c), a.get("pad_value", 0.0), out.dtype)
            inner = self.glob(padded[:, pt:pt + h, pl:pl + w, :], "W")
            self.lines.append(f"np.copyto({inner}, {src})")
            src = whole = self.glob(padded, "B")
        oh, ow = out.shape[1], out.shape[2]
        b = self.buffer(out)
        kernels = self.window_kernels(out.dtype)
        if kernels is not None:  # one pass writing the patches in order
            self.lines.append(f"{self.glob(kernels[0], 'X')}({whole}, {b}, {sh}, {sw}, {dh}, {dw}, "
                              f"{self.serial(out.shape)})")
            return True
        fixed = self.fixed[out]
        for i in range(kh):
            for j in range(kw):
                dst = self.glob(fixed[:, :, :, i, j, :], "W")
                rows, cols = _window(i, dh, sh, oh), _window(j, dw, sw, ow)
                self.lines.append(f"np.copyto({dst}, {src}[:, {rows.start}:{rows.stop}:{rows.step}, "
                                  f"{cols.start}:{cols.stop}:{cols.step}, :])")
        return True

    def window_kernels(self, dtype):
        """The backend's exact window kernels for arrays of ``dtype`` (:func:`descend._native.backend.window_kernels`,
        which the eager ops call too), or None (the NumPy calls of the ops then run, one per window offset)."""
        from .._native import backend as kb, cpu  # noqa: F401 (importing cpu registers the default backend)

        return kb.window_kernels(dtype) if _OPTIONS["fuse"] else None

    def serial(self, shape) -> str:
        """An expression of whether a window kernel over an array of ``shape`` runs its serial loop now
        (:func:`descend._native.serial` of its size, as the eager op asks)."""
        return f"{self.glob(_native.serial, 'F')}({math.prod(shape)})"

    def contiguous(self, r, e: str) -> str:
        """``e`` (the array of ``r``) as a C-contiguous array: itself when it always is one, else
        ``np.ascontiguousarray`` at each run (as the eager op makes it)."""
        fixed = self.fixed_array(r)
        if fixed is not None and fixed.flags.c_contiguous:
            return e
        return f"np.ascontiguousarray({e})"

    def _pool_attrs(self, node):
        a = node.attrs
        (kh, kw), (sh, sw) = a.get("ksize", (1, 1)), a.get("strides", (1, 1))
        (pt, _), (pl, _) = a.get("pads", ((0, 0), (0, 0)))
        return f"{kh}, {kw}, {sh}, {sw}, {pt}, {pl}"

    def max_pool_windows(self, node) -> bool:
        """Max pooling into two buffers, the values and each window's offset of its maximum: the op's kernel (without
        kernels, the op's NumPy calls, copied into the buffers)."""
        (x,) = node.inputs
        out, arg = node.outputs
        metas = self._metas(node.inputs)
        if not metas or len(metas[0][0]) != 4 or metas[0][1] != out.dtype:
            return False
        kernels = self.window_kernels(out.dtype)
        if kernels is None:
            t = f"t{self.counter}"
            self.counter += 1
            self.lines += [f"{t} = {self.glob(functools.partial(node.op.forward, **node.attrs), 'F')}({self.expr(x)})",
                           f"np.copyto({self.buffer(out)}, {t}[0])", f"np.copyto({self.buffer(arg)}, {t}[1])"]
            return True
        src = self.contiguous(x, self.expr(x))
        self.lines.append(f"{self.glob(kernels[2], 'X')}({src}, {self.buffer(out)}, {self.buffer(arg)}, "
                          f"{self._pool_attrs(node)}, {self.serial(metas[0][0])})")
        return True

    def max_pool_scatter(self, node) -> bool:
        """Max pooling's gradient into a buffer (the op's kernel); offsets the kernel refuses run the op, which
        raises its error."""
        return self._pool_index(node, 3)

    def max_pool_gather(self, node) -> bool:
        """The adjoint of max pooling's gradient into a buffer (the op's kernel)."""
        return self._pool_index(node, 4)

    def _pool_index(self, node, which: int) -> bool:
        from ..ops.conv_ops import _check_offsets

        src, arg = node.inputs
        out = node.outputs[0]
        metas = self._metas(node.inputs)
        if not metas or metas[0][1] != out.dtype or metas[1][1].kind not in "iu" or len(metas[0][0]) != 4 \
                or len(out.shape) != 4:
            return False
        kernels = self.window_kernels(out.dtype)
        s, a = self.expr(src), self.expr(arg)
        if kernels is None:
            f = self.glob(functools.partial(node.op.forward, **node.attrs), "F")
            self.lines.append(f"np.copyto({self.buffer(out)}, {f}({s}, {a}))")
            return True
        try:  # the op's own checks of the shapes, once (the plan's shapes are fixed)
            _check_offsets(np.zeros(metas[1][0], metas[1][1]), node.op.name,
                           metas[0][0] if which == 4 else node.attrs.get("shape", ()), node.attrs.get("ksize", (1, 1)),
                           node.attrs.get("strides", (1, 1)), node.attrs.get("pads", ((0, 0), (0, 0))))
        except ValueError:
            return False
        fail = self.glob(functools.partial(_raise_forward, node.op, **node.attrs), "G")
        self.lines.append(f"if {self.glob(kernels[which], 'X')}({self.contiguous(src, s)}, {self.contiguous(arg, a)}, "
                          f"{self.buffer(out)}, {self._pool_attrs(node)}, {self.serial(out.shape)}) >= 0: {fail}({s}, {a})")
        return True

    def col2im(self, node) -> bool:
        """The op's sum of the patches, in its order, into a padded buffer zeroed at each call."""
        from ..ops.conv_ops import _window

        (cols,) = node.inputs
        out = node.outputs[0]
        metas = self._metas(node.inputs)
        if not metas or len(metas[0][0]) != 6 or metas[0][1] != out.dtype or len(out.shape) != 4:
            return False
        a = node.attrs
        (kh, kw), (sh, sw), (dh, dw) = a.get("ksize", (1, 1)), a.get("strides", (1, 1)), a.get("dilations", (1, 1))
        (pt, pb), (pl, pr) = a.get("pads", ((0, 0), (0, 0)))
        n, h, w, c = out.shape
        (_, oh, ow, *_rest), _ = metas[0]
        padded = pt or pb or pl or pr
        acc = np.empty((n, h + pt + pb, w + pl + pr, c), out.dtype) if padded else None
        b = self.buffer(out)
        acc = acc if padded else self.fixed[out]
        accn = self.glob(acc, "B") if padded else b
        src = self.expr(cols)
        kernels = self.window_kernels(out.dtype)
        if kernels is not None:
            self.lines.append(f"{self.glob(kernels[1], 'X')}({self.contiguous(cols, src)}, {accn}, {sh}, {sw}, {dh}, "
                              f"{dw}, {self.serial(metas[0][0])})")
        else:
            self.lines.append(f"{accn}.fill(0)")
        for i in range(kh if kernels is None else 0):
            for j in range(kw):
                dst = self.glob(acc[:, _window(i, dh, sh, oh), _window(j, dw, sw, ow), :], "W")
                self.lines.append(f"np.add({dst}, {src}[:, :, :, {i}, {j}, :], out={dst})")
        if padded:
            self.lines.append(f"np.copyto({b}, {self.glob(acc[:, pt:pt + h, pl:pl + w, :], 'W')})")
        return True

    def recurrent(self, node) -> bool:
        """``lstm_sequence`` and its gradient: the functions the eager ops run (:mod:`descend.ops.rnn_ops`), into
        buffers (the same bits)."""
        from ..ops import rnn_ops

        metas = self._metas(node.inputs)
        if not metas or any(m[1] != node.outputs[0].dtype for m in metas):
            return False
        fn = rnn_ops.forward_into if node.op.name == "lstm_sequence" else rnn_ops.backward_into
        outs = [self.buffer(v) for v in node.outputs]
        args = ", ".join(self.expr(r) for r in node.inputs)
        self.lines.append(f"{self.glob(fn, 'F')}({args}, ({', '.join(outs)},))")
        return True

    def composite(self, node, out) -> bool:
        """An op whose forward is a few NumPy calls (an activation, ``where``, ``squared_difference``, ``zeros_like``):
        the same calls, in the same order and dtypes, into buffers of their own."""
        name, ins = node.op.name, node.inputs
        metas = [_ref_meta(r) for r in ins]
        if any(type(r) is Lit or m[0] is None for r, m in zip(ins, metas)):
            return False
        if name in ("zeros_like", "ones_like"):  # (its values never change: made once, like a constant)
            arr = (np.zeros if name == "zeros_like" else np.ones)(out.shape, out.dtype)
            self.names[out] = self.glob(arr, "K")
            self.fixed[out] = arr
            return True
        x = self.expr(ins[0])
        if name == "where":
            if metas[0][1] != np.bool_ or any(m[1] != out.dtype for m in metas[1:]):
                return False
            b = self.buffer(out)
            self.lines += [f"np.copyto({b}, {self.expr(ins[2])})", f"np.copyto({b}, {self.expr(ins[1])}, where={x})"]
            return True
        if any(m[1] != out.dtype for m in metas) or out.dtype.kind != "f":
            return False
        if name == "squared_difference":  # d = x - y; d * d
            d = self.temporary(out)
            self.lines += [f"np.subtract({x}, {self.expr(ins[1])}, out={d})", f"np.multiply({d}, {d}, out={self.buffer(out)})"]
            return True
        if name == "softmax_cross_entropy_with_logits":  # -sum(labels * log_softmax(logits), axis)
            (lshape, _), (xshape, _) = metas
            axis = node.attrs.get("axis", -1)
            try:
                full = tuple(np.broadcast_shapes(lshape, xshape))
            except ValueError:
                return False
            if type(axis) is not int or not -len(full) <= axis < len(full) or full[:axis % len(full)] + \
                    full[axis % len(full) + 1:] != out.shape:
                return False
            exps = self.exponentials(self.expr(ins[1]), xshape, out.dtype, axis)
            if exps is None:
                return False
            sh, _, total, kept = exps
            log, lsm = self.temporary(out, shape=kept), self.temporary(out, shape=xshape)
            prod, total_loss = self.temporary(out, shape=full), self.temporary(out)
            self.lines += [f"np.log({total}, out={log})", f"np.subtract({sh}, {log}, out={lsm})",
                           f"np.multiply({x}, {lsm}, out={prod})",
                           f"{self.glob(np.add.reduce, 'U')}({prod}, axis={axis}, out={total_loss})",
                           f"np.negative({total_loss}, out={self.buffer(out)})"]
            return True
        if metas[0][0] != out.shape:
            return False
        if name == "sigmoid":  # e = exp(-|x|); r = 1 / (1 + e); r where x >= 0, else e * r
            a, na, e, d, r, er = (self.temporary(out) for _ in range(6))
            mask = self.temporary(out, np.bool_)
            b = self.buffer(out)
            self.lines += [f"np.abs({x}, out={a})", f"np.negative({a}, out={na})", f"np.exp({na}, out={e})",
                           f"np.add(1, {e}, out={d})", f"np.true_divide(1, {d}, out={r})", f"np.multiply({e}, {r}, out={er})",
                           f"np.greater_equal({x}, 0, out={mask})", f"np.copyto({b}, {er})", f"np.copyto({b}, {r}, where={mask})"]
            return True
        if name == "rsqrt":  # 1 / sqrt(x)
            t = self.temporary(out)
            self.lines += [f"np.sqrt({x}, out={t})", f"np.true_divide(1, {t}, out={self.buffer(out)})"]
            return True
        if name == "leaky_relu":  # x where x > 0, else x * alpha
            xa, mask = self.temporary(out), self.temporary(out, np.bool_)
            b = self.buffer(out)
            alpha = self.glob(float(node.attrs.get("alpha", 0.2)), "L")
            self.lines += [f"np.multiply({x}, {alpha}, out={xa})", f"np.greater({x}, 0, out={mask})",
                           f"np.copyto({b}, {xa})", f"np.copyto({b}, {x}, where={mask})"]
            return True
        if name == "elu":  # expm1(min(x, 0)) where x < 0, else x
            t, t1, mask = self.temporary(out), self.temporary(out), self.temporary(out, np.bool_)
            b = self.buffer(out)
            self.lines += [f"np.minimum({x}, 0, out={t})", f"np.expm1({t}, out={t1})", f"np.less({x}, 0, out={mask})",
                           f"np.copyto({b}, {x})", f"np.copyto({b}, {t1}, where={mask})"]
            return True
        if name in ("softmax", "log_softmax"):  # e = exp(x - max(x)); e / sum(e) or (x - max(x)) - log(sum(e))
            mark = len(self.lines)
            exps = self.exponentials(x, out.shape, out.dtype, node.attrs.get("axis", -1))
            if exps is None:
                return False
            sh, e, total, kept = exps
            if name == "softmax":
                b = self.buffer(out)
                self.lines.append(f"np.true_divide({e}, {total}, out={b})")
                self.fuse_softmax(x, exps, b, mark)
            else:
                log = self.temporary(out, shape=kept)
                self.lines += [f"np.log({total}, out={log})", f"np.subtract({sh}, {log}, out={self.buffer(out)})"]
            return True
        return False

    def exponentials(self, x: str, shape: tuple, dtype, axis):
        """Buffers ``(x - max(x), exp of it, its sum, the sum's shape)`` along one axis (keepdims), as softmax and
        log-softmax compute them, with the lines that fill them; None for another axis (several, or an empty one)."""
        from ..ops._util import normalize_axis

        try:
            axes = normalize_axis(axis, len(shape))
        except Exception:  # noqa: BLE001 - the op's own forward says what is wrong
            return None
        if len(axes) != 1 or not shape[axes[0]]:
            return None
        a = axes[0]
        kept = tuple(1 if d == a else n for d, n in enumerate(shape))
        m, sh, e, total = (self.glob(np.empty(s, dtype), "B") for s in (kept, shape, shape, kept))
        if a == len(shape) - 1:  # (the eager op's row kernels: NumPy's bits)
            first = self.reduce_rows(np.maximum, x, True, m)
            last = self.reduce_rows(np.add, e, True, total)
        else:
            first = f"{self.glob(np.maximum.reduce, 'U')}({x}, axis={a}, keepdims=True, out={m})"
            last = f"{self.glob(np.add.reduce, 'U')}({e}, axis={a}, keepdims=True, out={total})"
        self.lines += [first, f"np.subtract({x}, {m}, out={sh})", f"np.exp({sh}, out={e})", last]
        return sh, e, total, kept

    def fuse_softmax(self, x: str, exps, out: str, mark: int) -> None:
        """The softmax's lines from ``mark`` on (``exponentials``' and the division) made the fallback of one call of
        the row kernels' softmax (:mod:`descend._native.row_loops`: the same calls' bits, a run of rows a thread,
        NumPy's own ``exp`` loop) where it takes the arrays: a last axis of at most ``MAX_ROW`` elements, every
        array one the plan holds, C-contiguous. NumPy's calls run where the kernel refuses a row."""
        from .._native import backend as kb
        from .._native import numpy_loops
        from ..ops.row_reduce import MAX_ROW

        sh, e, total, _ = exps
        arrays = [self.g.get(name) for name in (x, sh, e, total, out)]
        if not _OPTIONS["fuse"] or any(type(a) is not np.ndarray or not a.flags.c_contiguous for a in arrays):
            return
        xa = arrays[0]
        if not xa.ndim or not 0 < xa.shape[-1] <= MAX_ROW or arrays[1].shape != xa.shape \
                or any(a.dtype != xa.dtype for a in arrays):
            return
        kernels, loop = kb.row_kernels(xa.dtype), numpy_loops.strided_loop(np.exp, xa.dtype)
        if kernels is None or loop is None:
            return
        n = xa.shape[-1]
        views = [_view_of(a, lambda v: v.reshape(-1, n)) for a in (xa, arrays[1], arrays[2], arrays[4])]
        flat = [_view_of(a, lambda v: v.reshape(-1)) for a in (arrays[3],)]
        maxima = np.empty(views[0].shape[0] if views[0] is not None else 0, xa.dtype)
        if any(v is None for v in views + flat) or flat[0].size != maxima.size:
            return
        threads = _native.kernels().threads()
        calls = np.zeros((threads, numpy_loops.CALL_WORDS), np.int64)
        w = [self.glob(v, "W") for v in views + flat]
        parts = f"(1 if {self.glob(_native.serial, 'F')}({xa.size}) else {threads})"
        head = (f"if not {self.glob(kernels[2], 'X')}({w[0]}, {self.glob(maxima, 'B')}, {w[1]}, {w[2]}, {w[4]}, {w[3]}, "
                f"{self.glob(loop.function, 'F')}, {loop.context}, {loop.auxdata}, {self.glob(calls, 'B')}, {parts}):")
        self.g.setdefault("_keep", []).append(loop)  # (the loop's capsule lives as long as the plan)
        self.lines[mark:] = [head] + ["    " + line for line in self.lines[mark:]]

    def row_reduce(self, ufunc) -> str:
        """The name of ``reduce_last(ufunc, x, keepdims, out=)`` in the plan (:mod:`descend.ops.row_reduce`: the
        eager ops' reduction over the last axis, short rows by the backend's row kernels)."""
        from ..ops.row_reduce import reduce_last

        if not _OPTIONS["fuse"]:
            return self.glob(functools.partial(_numpy_reduce_last, ufunc), "F")
        return self.glob(functools.partial(reduce_last, ufunc), "F")

    def reduce_rows(self, ufunc, x: str, keepdims: bool, out: str) -> str:
        """A line that computes ``ufunc.reduce(x, axis=-1, keepdims=keepdims, out=out)`` (``np.add`` or
        ``np.maximum``) as :func:`descend.ops.row_reduce.reduce_last` does, for the plan's names ``x`` and ``out``.
        Where both are arrays the plan holds (buffers, constants, views of them) that the row kernels take, the
        kernel is called on 2-D and 1-D views of them made once, and NumPy's reduce runs only where the kernel
        refuses (a row whose result is not finite, a maximum that is zero): ``reduce_last``'s choices made at plan
        time, so the same bits, without its checks and lookups at every call."""
        from .._native import backend as kb
        from ..ops.row_reduce import MAX_ROW

        xa, oa = self.g.get(x), self.g.get(out)
        if _OPTIONS["fuse"] and type(xa) is np.ndarray and type(oa) is np.ndarray and xa.ndim \
                and 0 < xa.shape[-1] <= MAX_ROW and xa.flags.c_contiguous and oa.flags.c_contiguous \
                and oa.dtype == xa.dtype and oa.size == xa.size // xa.shape[-1]:
            kernels = kb.row_kernels(xa.dtype)
            if kernels is not None:
                rows = _view_of(xa, lambda a: a.reshape(-1, a.shape[-1]))
                flat = _view_of(oa, lambda a: a.reshape(-1))
                if rows is not None and flat is not None:
                    k = self.glob(kernels[0 if ufunc is np.add else 1], "X")
                    return (f"if not {k}({self.glob(rows, 'W')}, {self.glob(flat, 'W')}): "
                            f"{self.glob(ufunc.reduce, 'U')}({x}, axis=-1, keepdims={keepdims}, out={out})")
        return f"{self.row_reduce(ufunc)}({x}, {keepdims}, out={out})"

    def temporary(self, like: Value, dtype=None, shape=None) -> str:
        """A buffer of the plan for an intermediate of one lowered op (``like``'s shape and dtype unless given)."""
        arr = np.empty(like.shape if shape is None else shape, like.dtype if dtype is None else dtype)
        return self.glob(arr, "B")

    def cast(self, node, out) -> bool:
        (x,) = node.inputs
        if type(x) is VarRef:  # a Variable's array cast (a mixed-precision layer's weights) into a buffer
            shape, dtype = _ref_meta(x)
            if dtype is None or dtype == out.dtype:
                return False  # (the same dtype: the op gives the Variable's own array, as the generic path)
            self.lines.append(f"np.copyto({self.buffer(out)}, {self.expr(x)}, casting='unsafe')")
            return True
        if type(x) is not Value:
            return False
        if x.dtype == out.dtype:
            self.names[out] = self.expr(x)
            if x in self.fixed:
                self.fixed[out] = self.fixed[x]
            if x in self.fresh:
                self.fresh.add(out)
            return True
        b = self.buffer(out)
        self.lines.append(f"np.copyto({b}, {self.expr(x)}, casting='unsafe')")
        return True

    def generic(self, node):
        op = node.op
        if WARN_CALLBACKS and op.name not in _warned and op.name not in _NO_WARNING:
            _warned.add(op.name)
            warnings.warn(f"descend.function '{self.graph.name}': op '{op.name}' has no compiled form; the plan runs "
                          "its NumPy forward (a fresh array each call: slower, the same numbers)", PlanCallbackWarning,
                          stacklevel=6)
        fn = functools.partial(op.forward, **node.attrs) if node.attrs else op.forward
        f = self.glob(fn, "F")
        args = ", ".join(self.expr(r) for r in node.inputs)
        copy = op.view and any(type(r) is VarRef for r in node.inputs)
        if op.multi_output:
            names = [self.local(v) for v in node.outputs]
            tmp = f"t{self.counter}"
            self.counter += 1
            self.lines.append(f"{tmp} = {f}({args})")
            for k, nm in enumerate(names):
                self.lines.append(f"{nm} = np.array({tmp}[{k}], copy=True)" if copy else f"{nm} = _asarray({tmp}[{k}])")
        else:
            nm = self.local(node.outputs[0], fresh=not op.view or copy)
            self.lines.append(f"{nm} = np.array({f}({args}), copy=True)" if copy else f"{nm} = _asarray({f}({args}))")

    def node_write(self, node):
        kind, form, dense_shape = node.payload
        var_ref, *vals = node.inputs
        vobj = self.var_obj(var_ref)
        if form == "dense" and type(vals[0]) is Value and kind in ("assign", "assign_add", "assign_sub") \
                and var_ref.var is not None and vals[0].shape == var_ref.var._value.shape \
                and vals[0].dtype == var_ref.var._value.dtype:
            w = self.var_local(var_ref.var)
            x = self.expr(vals[0])
            self.lines.append(f"if {vobj}._before_read is not None: {vobj}._before_read({vobj}, None)")
            if kind == "assign":
                self.lines.append(f"{w}[...] = {x}")
            else:
                fn = "np.add" if kind == "assign_add" else "np.subtract"
                self.lines.append(f"{fn}({w}, {x}, out={w})")
            self.lines.append(f"{vobj}._version += 1")
            return
        if form == "slices":
            ds_ = self.glob(dense_shape, "L")
            islices = self.glob(IndexedSlices, "G")
            arg = f"{islices}(Tensor({self.expr(vals[0])}), Tensor({self.expr(vals[1])}), {ds_})"
        else:
            r = vals[0]
            arg = self.expr(r) if type(r) is Lit else (
                self.var_obj(r) if type(r) is VarRef else f"Tensor({self.expr(r)})")
        self.lines.append(f"{vobj}.{kind}({arg})")

    def node_opaque(self, node):
        o = self.glob(node.payload, "O")
        args = ", ".join(self.expr(r) if type(r) is not VarRef else self.var_obj(r) for r in node.inputs)
        if node.outputs:
            names = [self.local(v) for v in node.outputs]
            self.lines.append(f"{', '.join(names)}{',' if len(names) == 1 else ''} = {o}.run([{args}])")
        else:
            self.lines.append(f"{o}.run([{args}])")

    def node_print(self, node):
        rebuild, options, emit = node.payload
        p = self.glob(functools.partial(_print, rebuild, options, emit), "G")
        args = ", ".join(f"Tensor({self.expr(r)})" if type(r) is Value else
                         (self.var_obj(r) if type(r) is VarRef else self.expr(r)) for r in node.inputs)
        self.lines.append(f"{p}([{args}])")

    def node_cond(self, node):
        c = self.glob(_CondRunner(node.payload), "C")
        pred, *caps = node.inputs
        names = [self.local(v, fresh=False) for v in node.outputs]
        lhs = ", ".join(names) + ("," if len(names) == 1 else "")
        call = f"{c}.run({self.expr(pred)}, [{', '.join(self.expr(r) for r in caps)}], var_args)"
        self.lines.append(f"{lhs} = {call}" if names else call)

    def node_while(self, node):
        p = node.payload
        w = self.glob(_WhileRunner(p, node.outputs), "C")
        loop, caps = node.inputs[:p.n], node.inputs[p.n:]
        names = [self.local(v, fresh=False) for v in node.outputs]
        lhs = ", ".join(names) + ("," if len(names) == 1 else "")
        self.lines.append(f"{lhs} = {w}.run([{', '.join(self.expr(r) for r in loop)}], "
                          f"[{', '.join(self.expr(r) for r in caps)}], var_args)")


def _ref_meta(r):
    if type(r) is Value:
        return r.shape, r.dtype
    if type(r) is VarRef and r.var is not None:
        return r.var._value.shape, r.var._value.dtype
    return None, None


def _raise_forward(op, *arrays, **attrs):
    """Run ``op``'s forward on the arrays a kernel refused (an out-of-range label): it raises the op's error."""
    op.forward(*arrays, **attrs)
    raise InvalidArgumentError(f"{op.name}: the compiled kernel refused its inputs")


def _print(rebuild, options, emit, values):
    emit(rebuild(values), **options)


class _SubPlan:
    """The plan of a branch or loop body: ``run(inputs, captures, var_args)`` on arrays, returning arrays."""

    def __init__(self, graph: Graph):
        b = _Builder(graph, sub=True)
        b.bind_inputs()
        self.source = b.build()
        ns = dict(b.g)
        exec(compile(self.source, f"<descend plan {graph.name}>", "exec"), ns)
        self.run = ns.pop("run")  # (its globals must not hold it: no reference cycle)
        self.sites = b.sites


class _CondRunner:
    def __init__(self, payload):
        self.p = payload
        self.t = _SubPlan(payload.true_graph)
        self.f = _SubPlan(payload.false_graph)

    def run(self, pred, caps, var_args):
        if bool(pred.reshape(())):
            return self.t.run((), [caps[i] for i in self.p.true_idx], var_args)
        return self.f.run((), [caps[i] for i in self.p.false_idx], var_args)


class _WhileRunner:
    def __init__(self, payload, outputs):
        self.p = payload
        self.c = _SubPlan(payload.cond_graph)
        self.b = _SubPlan(payload.body_graph)
        # the loop variables between iterations (the body's results live in its buffers)
        self.vars = [np.empty(v.shape, v.dtype) for v in outputs]

    def run(self, loop, caps, var_args):
        p = self.p
        c_caps = [caps[i] for i in p.cond_idx]
        b_caps = [caps[i] for i in p.body_idx]
        values = loop
        limit = p.maximum_iterations
        k = 0
        while limit is None or k < limit:
            c = self.c.run(values, c_caps, var_args)[0]
            if not bool(np.asarray(c).reshape(())):
                break
            out = self.b.run(values, b_caps, var_args)
            # a result that is (a view of) a loop variable's buffer is read before any buffer is written
            # (`z = x; x = x - 1` passes x's buffer through as z's)
            out = [np.array(src, copy=True) if any(np.may_share_memory(src, v) for v in self.vars) else src
                   for src in out]
            for dst, src in zip(self.vars, out):
                np.copyto(dst, src)
            values = self.vars
            k += 1
        return [np.array(v, copy=True) for v in values]


class ThreadChoice:
    """Whether a plan runs with threads (parallel kernels, split products) or on one thread: whichever its
    own calls measured faster.

    Alone, a split product or a parallel kernel is faster; inside a step it also moves data between the
    cores' caches, and what that costs depends on the machine and changes with it (measured on the 2-core
    EPYC VM, the compiled step of the 784-256-10 MLP: 0.62 ms with threads against 0.78 ms on one thread at
    one moment, 1.4 against 0.80 ms an hour later, the host busier). Whether another process leaves a core
    idle does not settle it either: beside two CPU-bound processes, a step whose threads sleep between
    bursts may still get its share of both cores. So after :data:`WARM` calls (threads while a core is idle)
    a plan times :data:`TRIAL` calls each way (the first call after a switch is not counted: it pays for
    moving the data), threads on whatever the load and then off, and keeps the way with the lower median.
    The trial repeats :data:`EVERY` calls later, or up to :data:`LONGEST` when one way took more than
    :data:`FAR` times the other (a trial of the slow way costs little then), at once when the machine's
    load changes (:func:`descend._native.idle_core` says otherwise than at the last trial), and at once when
    :data:`STRIKES` calls in a row take more than :data:`SLOW` times the median the chosen way had in its
    trial: beside two CPU-bound processes a step with threads ran at 0.6-0.7 ms in its trial and at 20 ms a
    few calls later, every parallel region waiting a scheduler slice for its second thread, and nothing else
    would have tried again for 512 calls. A trial's way ends at its first counted call that takes more than
    :data:`ABORT` times the other way's median of the last trial (that way counts as that slow): on a busy
    machine a step with threads took 60 ms against 3.7 ms without (the small MLP, load 5 on 2 cores), and the
    trials' eight calls with threads took a quarter of the time of 1,500 calls. Both ways give the same bits
    (:func:`descend._native.set_threads_on`)."""

    WARM = 2
    TRIAL = 8
    EVERY = 512
    LONGEST = 8192
    FAR = 1.5
    SLOW = 2.0
    STRIKES = 3
    ABORT = 4.0
    __slots__ = ("on", "_idle", "_state", "_times", "_limit", "_medians")

    def __init__(self):
        self.on = True      # the way chosen by the last trial
        self._idle = True   # whether a core was idle then (descend._native.idle_core)
        # calls recorded, the call the next trial starts at, calls from a trial to the next, slow calls in a row;
        # the trial's counted times, TRIAL with threads then TRIAL without; SLOW x the chosen way's median
        # (arrays: a steady state allocates no Python object)
        self._state = np.array([0, self.WARM, self.EVERY, 0], np.int64)
        self._times = np.zeros(2 * self.TRIAL)
        self._limit = np.full(1, np.inf)
        self._medians = np.full(2, np.inf)  # the last trial's medians, with threads and without

    @property
    def calls(self) -> int:
        """Calls recorded."""
        return int(self._state[0])

    def threads(self) -> bool | None:
        """The setting for the next call (:func:`descend._native.set_threads_on`)."""
        calls, start, _, _ = self._state.tolist()
        if calls < self.WARM:
            return None
        t = calls - start
        if 0 <= t < 2 * (self.TRIAL + 1):
            return t <= self.TRIAL
        if _native.idle_core() is not self._idle:  # the machine's load changed: a trial now
            self._state[1] = calls
            return True
        return self.on

    def record(self, seconds: float) -> None:
        """A call made with :meth:`threads`'s setting took ``seconds``."""
        state = self._state
        calls, start, every, strikes = state.tolist()
        state[0] = calls + 1
        t = calls - start
        if calls < self.WARM:
            return
        if not 0 <= t < 2 * (self.TRIAL + 1):  # between trials: has the chosen way become far slower?
            strikes = strikes + 1 if seconds > self._limit[0] else 0
            if strikes >= self.STRIKES:
                state[1], strikes = calls + 1, 0  # a trial from the next call
            state[3] = strikes
            return
        trial = self.TRIAL
        if t != 0 and t != trial + 1:
            on_way = t <= trial
            k = t - 1 if on_way else t - 2
            self._times[k] = seconds
            if seconds > self.ABORT * self._medians[1 if on_way else 0]:  # far slower than the other way was
                end = trial if on_way else 2 * trial
                self._times[k:end] = seconds  # (this way's remaining calls count as this one)
                if on_way:
                    state[1] = calls - trial  # the next call starts the way without threads
                    return
                t = 2 * (trial + 1) - 1  # the trial is over
        if t == 2 * (trial + 1) - 1:
            on, off = float(np.median(self._times[:trial])), float(np.median(self._times[trial:]))
            self._medians[:] = on, off
            self.on = on <= off
            self._idle = _native.idle_core()
            self._limit[0] = self.SLOW * min(on, off)
            far = max(on, off) > self.FAR * min(on, off)
            every = min(2 * every, self.LONGEST) if far else self.EVERY
            state[1], state[2] = calls + 1 + every, every


class Plan:
    """A compiled graph: ``run(inputs, var_args)`` takes the call's Tensors and Variable arguments and
    returns the graph's flat outputs (arrays, Variables, Python values). A plan chooses whether it runs
    with threads (:class:`ThreadChoice`)."""

    def __init__(self, graph: Graph):
        self.graph = graph
        self.folded = graph.fold_constants(_FOLDABLE)  # (a gradient's seed, scaled: computed once, not every call)
        self.pruned = graph.prune()  # (the ops nothing reads: a first call's probe pass, shape inference)
        self.threads = ThreadChoice()
        self._compile()

    def _compile(self):
        b = _Builder(self.graph, sub=False)
        b.bind_inputs()
        self.source = b.build()
        ns = dict(b.g)
        exec(compile(self.source, f"<descend plan {self.graph.name}>", "exec"), ns)
        self._run = ns.pop("run")  # (its globals must not hold it: no reference cycle)
        self._sites = b.sites
        self.fused = b.fused

    def run(self, inputs, var_args):
        choice = self.threads
        previous = _native.set_threads_on(choice.threads())
        try:
            start = time.perf_counter()
            out = self._run(inputs, var_args)
            choice.record(time.perf_counter() - start)
            return out
        except _Rebuild:
            self._compile()
            return self._run(inputs, var_args)
        except (ValueError, IndexError) as e:
            if isinstance(e, InvalidArgumentError):
                raise
            node = _failed_node(e, self._sites)
            label = node.label() if node is not None else "plan"
            raise InvalidArgumentError(f"{label}: {e}") from None
        finally:
            _native.set_threads_on(previous)


def _numpy_reduce_last(ufunc, x, keepdims, out):
    """``ufunc.reduce`` over the last axis (the plans built with ``fuse=False``: NumPy's calls only)."""
    ufunc.reduce(x, axis=-1, keepdims=keepdims, out=out)


def _failed_node(e, sites):
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == "run" and "_n" in tb.tb_frame.f_locals:
            k = tb.tb_frame.f_locals["_n"]
            if 0 <= k < len(sites):
                return sites[k]
        tb = tb.tb_next
    return None
