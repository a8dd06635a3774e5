"""AutoGraph for ``descend.function``: plain ``if``, ``while`` and ``for ... in range(...)`` statements
on computed Tensors become ``descend.cond`` and ``descend.while_loop``.

A trace records ops, not the path Python takes, so ``if loss > 0:`` on a
Tensor the function computed must become a recorded branch, as TF's
AutoGraph makes it. :func:`convert` rewrites the source of the decorated
function (not of the functions it calls) once:

* ``if test: ... else: ...`` becomes :func:`if_stmt`: when ``test`` is a
  traced Tensor, both blocks run as the branches of ``cond`` over the local
  variables they assign; otherwise Python's ``if``;
* ``while test: ...`` becomes :func:`while_stmt`: a ``while_loop`` over the
  local variables the body assigns when the test is a traced Tensor;
* ``for x in ...`` becomes :func:`for_stmt`: a ``while_loop`` when it runs
  over ``range(...)`` (or ``ds.range(...)``) with a traced Tensor among its
  arguments, or over a ``Dataset`` (each call of the compiled function opens
  a new iterator and takes its elements, as TF's loop over a dataset);
  Python's loop otherwise;
* a ``while`` that carries no local variable (its body writes Variables)
  is a ``while_loop`` too;
* an ``if`` whose branches both end with ``return`` (also ``if c: return a``
  followed by statements that end with ``return b``) returns the value the
  branch taken gives;
* ``and``, ``or`` and ``not`` in those tests work on Tensors.

Other blocks holding ``return``, ``break``, ``continue`` or ``yield`` are left as
they are: a traced Tensor used there as a Python bool raises
:class:`~descend.errors.OperatorNotAllowedInGraphError` naming the line
(never a branch silently fixed while tracing). Functions whose source is not
available (lambdas, code built at run time) are not converted.

Example:
    >>> import descend as ds
    >>> @ds.function
    ... def clip_step(x):
    ...     if ds.reduce_sum(x) > 1.0:
    ...         x = x / ds.reduce_sum(x)
    ...     return x
    >>> clip_step(ds.constant([3.0, 1.0])).numpy(), clip_step(ds.constant([0.25, 0.5])).numpy()
    (array([0.75, 0.25], dtype=float32), array([0.25, 0.5 ], dtype=float32))
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
import types

import numpy as np

from ..framework import trace as _trace
from ..framework.tensor import ArrayLike

__all__ = ["Undefined", "and_", "convert", "for_stmt", "if_stmt", "not_", "or_", "range_", "to_code", "while_stmt"]

_PREFIX = "ag__"


# ====================================================================== runtime helpers
class Undefined:
    """The value of a local variable not (yet) assigned where a converted statement reads it."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<local variable '{self.name}' not assigned>"

    def __bool__(self):
        raise NameError(f"local variable '{self.name}' is used before it is assigned")


def _traced(x) -> bool:
    if not isinstance(x, ArrayLike):
        return False
    r = _trace.current()
    return r is not None and getattr(r, "invalid", "x") is None and not r.paused and r.is_traced(x)


def not_(x):
    if _traced(x):
        from ..ops import math_ops

        return math_ops.logical_not(x)
    return not x


def and_(first, second):
    a = first()
    if _traced(a):
        from ..ops import math_ops

        return math_ops.logical_and(a, second())
    return a and second()


def or_(first, second):
    a = first()
    if _traced(a):
        from ..ops import math_ops

        return math_ops.logical_or(a, second())
    return a or second()


def if_stmt(test, body, orelse, get_state, set_state, names, site):
    """``if test: body() else: orelse()``, a recorded ``cond`` when ``test`` is a traced Tensor."""
    if not _traced(test):
        if test:
            body()
        else:
            orelse()
        return
    from .control_flow import cond

    start = get_state()
    seen = {}

    def branch(fn, label):
        def run():
            set_state(start)
            fn()
            state = seen[label] = get_state()
            for name, value in zip(names, state):
                if isinstance(value, Undefined):
                    raise ValueError(f"{site}: '{name}' must also be initialized in the {label} branch of this "
                                     "`if` (its test is a Tensor computed inside descend.function, so both branches "
                                     "are traced and each must define what the code after it reads)")
            return state
        return run

    try:
        result = cond(test, branch(body, "main"), branch(orelse, "else"))
    except TypeError:
        _name_the_dtype_clash(seen, names, site)
        raise
    set_state(tuple(result))


def _name_the_dtype_clash(seen: dict, names, site) -> None:
    """TF's TypeError naming the variable whose branches give it different dtypes (when one does)."""
    if "main" not in seen or "else" not in seen:
        return
    from .control_flow import _as_leaf

    for name, a, b in zip(names, seen["main"], seen["else"]):
        a, b = _as_leaf(a), _as_leaf(b)
        if isinstance(a, ArrayLike) and isinstance(b, ArrayLike) and a._value.dtype != b._value.dtype:
            raise TypeError(f"{site}: '{name}' has dtype {a._value.dtype.name} in the main branch, but dtype "
                            f"{b._value.dtype.name} in the else branch")


def _loop_parts(state, names):
    """Which state entries are loop variables (Tensors and numbers), and which pass through."""
    from .control_flow import _as_leaf

    loop, keep = [], []
    for k, v in enumerate(state):
        if isinstance(v, Undefined):
            continue
        leaf = _as_leaf(v)
        if isinstance(leaf, ArrayLike):
            loop.append(k)
        else:
            keep.append(k)
    return loop, keep


def while_stmt(test, body, get_state, set_state, names, site):
    """``while test(): body()``, a recorded ``while_loop`` when the test is a traced Tensor."""
    t = test()
    if not _traced(t):
        while t:
            body()
            t = test()
        return
    _graph_loop(test, body, get_state, set_state, names, site)


def _graph_loop(test, body, get_state, set_state, names, site, prepare=None):
    from .control_flow import _as_leaf, while_loop

    start = get_state()
    undefined = [k for k, v in enumerate(start) if isinstance(v, Undefined)]
    if undefined:
        start = _initial_values(start, undefined, body, prepare, get_state, set_state)
        undefined = [k for k, v in enumerate(start) if isinstance(v, Undefined)]
    loop, keep = _loop_parts(start, names)

    def merged(values):
        state = list(start)
        for k, v in zip(loop, values):
            state[k] = v
        return tuple(state)

    def c(*values):
        set_state(merged(values))
        return test()

    def b(*values):
        set_state(merged(values))
        if prepare is not None:
            prepare()
        body()
        state = get_state()
        for k in keep:
            if state[k] is not start[k]:
                raise ValueError(f"{site}: '{names[k]}' changes in this loop but is neither a Tensor nor a number "
                                 "(its test is a Tensor computed inside descend.function)")
        return tuple(state[k] for k in loop)

    if loop:
        out = while_loop(c, b, tuple(_as_leaf(start[k]) for k in loop))
    else:  # a loop that carries no local variable (it writes Variables, say): one placeholder loop variable
        while_loop(lambda _: c(), lambda k: (b(), k)[1], _as_leaf(0))
        out = ()
    final = merged(out if isinstance(out, (list, tuple)) else (out,))
    final = tuple(Undefined(names[k]) if k in undefined else v for k, v in enumerate(final))
    set_state(final)


def _initial_values(start, undefined, body, prepare, get_state, set_state) -> tuple:
    """TF's rule for a local variable a traced loop's body assigns but that has no value before the loop:
    it enters the loop as zeros of the shape and dtype the body gives it (a dry run of the body, whose
    writes and prints are not made, tells which). Left undefined when the dry run cannot tell."""
    from ..framework.tensor import Tensor
    from .control_flow import _as_leaf, _subgraph

    def run():
        set_state(start)
        if prepare is not None:
            prepare()
        body()
        return get_state()

    try:
        _, _, probed = _subgraph(_trace.current(), "loop_probe", run, (), True)
    except Exception:  # noqa: BLE001 - the dry run cannot tell (the loop itself will say what is wrong)
        probed = None
    set_state(start)
    if probed is None:
        return start
    out = list(start)
    for k in undefined:
        v = probed[k]
        if not isinstance(v, Undefined):
            v = _as_leaf(v)
            if isinstance(v, ArrayLike):
                out[k] = Tensor(np.zeros(v._value.shape, v._value.dtype))
    return tuple(out)


def _recording() -> bool:
    from .tracer import Recorder

    r = _trace.current()
    return isinstance(r, Recorder) and r.invalid is None and not r.paused


def _is_dataset(x) -> bool:
    from ..data import Dataset

    return isinstance(x, Dataset)


def _is_dataset_iterator(x) -> bool:
    from ..data import DatasetIterator

    return isinstance(x, DatasetIterator)


class _DatasetLoop:
    """``for x in dataset`` in a trace: the loop's iterator. Its three methods are plan nodes (host
    callbacks), so each call of the compiled function opens a new iterator (a new epoch, as TF's) and
    the loop takes its elements; the elements must keep the shapes and dtypes of the first one. Over a
    ``DatasetIterator`` the function received (``for x in iterator``), each call takes what is left."""

    def __init__(self, source):
        self.dataset = source
        self.iterator = None if _is_dataset(source) else source
        self.current = None
        self.spec = None      # the (shape, dtype) of each component of the first element
        self.ragged = None    # a description of the first element of another shape, if any

    @_trace.opaque("callback")
    def start(self):
        self.iterator = iter(self.dataset)
        self.current = None

    @_trace.opaque("callback")
    def advance(self):
        """Take the next element; a bool Tensor: whether there was one."""
        from ..errors import OutOfRangeError
        from ..framework.tensor import Tensor

        try:
            self.current = self.iterator.get_next()
        except (StopIteration, OutOfRangeError):
            return Tensor(np.array(False))
        from ..framework import nest

        leaves = nest.flatten(self.current)
        spec = tuple((tuple(getattr(x, "shape", ())), str(getattr(x, "dtype", type(x)))) for x in leaves)
        if self.spec is None:
            self.spec = spec
        elif spec != self.spec and self.ragged is None:
            self.ragged = f"{self.spec} then {spec}"
        return Tensor(np.array(True))

    @_trace.opaque("callback")
    def element(self):
        return self.current


class _TracedRange:
    """``range(start, stop, step)`` with a traced Tensor among its arguments."""

    def __init__(self, args):
        self.args = args


def range_(fn, *args):
    """``fn(*args)`` (``range``, ``ds.range``), or a traced range when an argument is a traced Tensor."""
    if any(_traced(a) for a in args):
        return _TracedRange(args)
    return fn(*args)


def for_stmt(iterable, set_target, body, get_state, set_state, names, site):
    """``for target in iterable: body()``: a recorded ``while_loop`` over a traced ``range`` or over a
    ``Dataset`` (its elements taken on every call of the compiled function, as TF's AutoGraph makes it),
    Python's loop over anything else."""
    if (_is_dataset(iterable) or _is_dataset_iterator(iterable)) and _recording():
        loop = _DatasetLoop(iterable)
        if _is_dataset(iterable):
            loop.start()

        def prepare():
            set_target(loop.element())

        _graph_loop(loop.advance, body, get_state, set_state, names, site, prepare=prepare)
        r = _trace.current()
        if loop.ragged is not None and r is not None and r.invalid is None:
            # a compiled loop has one element shape: the function runs eagerly, its numbers right
            r.invalidate(f"{site}: the elements of the Dataset this loop runs over change shape ({loop.ragged}); "
                         "a compiled loop takes one shape (batch(..., drop_remainder=True) makes the batches "
                         "alike)")
        return
    if not isinstance(iterable, _TracedRange):
        for item in iterable:
            set_target(item)
            body()
        return
    from ..ops import math_ops

    args = list(iterable.args)
    start, stop, step = (0, args[0], 1) if len(args) == 1 else (args[0], args[1], 1) if len(args) == 2 else args
    counter = ["__ag_i"]
    holder = {"i": start}

    def get_all():
        return get_state() + (holder["i"],)

    def set_all(state):
        set_state(state[:-1])
        holder["i"] = state[-1]

    def test():
        i = holder["i"]
        positive = math_ops.greater(step, 0) if isinstance(step, ArrayLike) else step > 0
        if isinstance(positive, ArrayLike):
            return math_ops.logical_or(math_ops.logical_and(positive, math_ops.less(i, stop)),
                                       math_ops.logical_and(math_ops.logical_not(positive), math_ops.greater(i, stop)))
        return math_ops.less(i, stop) if positive else math_ops.greater(i, stop)

    def prepare():
        set_target(holder["i"])

    # the target enters the loop with the counter's first value (as TF's AutoGraph): no dry run of the body to
    # learn its shape and dtype, which would run the body's Python one time more than TF does
    set_target(start)

    def step_body():
        body()
        holder["i"] = holder["i"] + step

    _graph_loop(test, step_body, get_all, set_all, tuple(names) + tuple(counter), site, prepare=prepare)


# ====================================================================== the conversion
def convert(fn):
    """``fn`` with its plain control flow statements converted (see the module docstring); ``fn`` itself
    when it cannot be converted or has nothing to convert."""
    try:
        return _convert(fn)
    except Exception:  # noqa: BLE001 - anything unexpected in the source: the function as it is
        return fn


def to_code(entity, recursive=True, experimental_optional_features=None) -> str:
    """The source of ``entity`` as AutoGraph converts it for ``descend.function`` (TF's ``autograph.to_code``).

    ``entity`` is a Python function, a method, or a ``descend.function``. The converted statements call
    this module's helpers through the name ``ag__`` (``ag__.if_stmt``, ``ag__.for_stmt``...). A function with
    nothing to convert, or one AutoGraph leaves as it is (a generator, one wrapped by a decorator, one marked
    ``do_not_convert``), gives its own source without decorators: what a trace runs. ``recursive`` and
    ``experimental_optional_features`` are accepted for TF's signature (descend converts the function
    itself, never the functions it calls).

    Raises:
        TypeError: ``entity`` is not a Python function.
        ValueError: its source is not available (code built at run time).
    """
    fn = getattr(entity, "python_function", entity)  # a descend.function
    fn = getattr(fn, "__func__", fn)  # a bound method
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"to_code: expected a Python function, a method or a descend.function; received "
                        f"{type(entity).__name__}")
    try:
        lines, _ = inspect.getsourcelines(fn)
    except (OSError, TypeError) as e:
        raise ValueError(f"to_code: the source of {fn.__qualname__} is not available ({e})") from None
    made = None
    try:
        made = _converted_tree(fn)
    except Exception:  # noqa: BLE001 - convert() leaves such a function as it is: so does its code
        made = None
    if made is not None:
        return ast.unparse(ast.fix_missing_locations(made[0])) + "\n"
    src = textwrap.dedent("".join(lines))
    try:
        tree = ast.parse(src)
    except SyntaxError:  # a lambda inside an expression: its whole line
        return src
    if tree.body and isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef)):
        tree.body[0].decorator_list = []
        return ast.unparse(tree.body[0]) + "\n"
    return src


def _convert(fn):
    made = _converted_tree(fn)
    if made is None:
        return fn
    fdef, code, first = made
    free = [n for n in code.co_freevars if n != _PREFIX] + [_PREFIX]
    factory = ast.FunctionDef(
        name="__descend_autograph_factory", args=ast.arguments(posonlyargs=[], args=[], kwonlyargs=[],
                                                              kw_defaults=[], defaults=[]),
        body=[ast.Assign(targets=[ast.Name(n, ast.Store())], value=ast.Constant(None)) for n in free]
        + [fdef, ast.Return(ast.Name(fdef.name, ast.Load()))], decorator_list=[], returns=None, type_params=[])
    module = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, first - 1)
    compiled = compile(module, code.co_filename, "exec")
    factory_code = next(c for c in compiled.co_consts if isinstance(c, types.CodeType))
    inner = next(c for c in factory_code.co_consts if isinstance(c, types.CodeType) and c.co_name == fn.__name__)
    cells = []
    helpers = sys.modules[__name__]
    for name in inner.co_freevars:
        if name == _PREFIX:
            cells.append(types.CellType(helpers))
        elif name in code.co_freevars:
            cells.append(fn.__closure__[code.co_freevars.index(name)])
        else:
            return fn
    new = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, tuple(cells) or None)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__module__ = fn.__module__
    new.__doc__ = fn.__doc__
    new.__dict__.update(fn.__dict__)
    new.__annotations__ = getattr(fn, "__annotations__", {})
    return new


def _converted_tree(fn):
    """``(the converted FunctionDef, fn's code, its first line)``, or None when ``fn`` is left as it is."""
    if not isinstance(fn, types.FunctionType) or hasattr(fn, "__wrapped__") or fn.__name__ == "<lambda>":
        return None
    code = fn.__code__
    if code.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR):
        return None
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    src = textwrap.dedent("".join(lines))
    tree = ast.parse(src)
    if not tree.body or not isinstance(tree.body[0], ast.FunctionDef) or tree.body[0].name != fn.__name__:
        return None
    fdef = tree.body[0]
    fdef.decorator_list = []
    declared = set()
    for node in _walk_scope(fdef.body):
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared.update(node.names)
    params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    for extra in (fdef.args.vararg, fdef.args.kwarg):
        if extra is not None:
            params.add(extra.arg)
    conv = _Converter(declared, code.co_filename, _loads(fdef), first - 1)
    fdef.body = conv.block(fdef.body)
    if not conv.converted:
        return None
    inits = [ast.Assign(targets=[ast.Name(n, ast.Store())],
                        value=ast.Call(ast.Attribute(ast.Name(_PREFIX, ast.Load()), "Undefined", ast.Load()),
                                       [ast.Constant(n)], []))
             for n in sorted(conv.names - params)]
    if "__class__" in code.co_freevars:  # keep zero-argument super() working: __class__ stays a free variable
        inits.insert(0, ast.Expr(ast.Name("__class__", ast.Load())))
    fdef.body = inits + fdef.body
    return fdef, code, first


def _walk_scope(stmts):
    """The nodes of these statements, not descending into nested functions, lambdas or classes."""
    stack = list(stmts)
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    yield child  # its name is bound here
                continue
            stack.append(child)


def _assigned(stmts) -> set:
    """Names these statements bind (in this scope)."""
    out = set()
    for node in _walk_scope(stmts):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            out.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            out.add(node.name)
        elif isinstance(node, ast.NamedExpr):
            out.add(node.target.id)
    return out


def _escapes(stmts, loop: bool) -> bool:
    """Whether these statements leave the block other than by its end (return, yield; break/continue of
    an enclosing loop when ``loop`` is False; of this loop when it is True)."""
    def visit(nodes, in_loop):
        for node in nodes:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom, ast.Await)):
                return True
            if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
                return True
            inner_loop = in_loop or isinstance(node, (ast.For, ast.While, ast.AsyncFor))
            if visit(list(ast.iter_child_nodes(node)), inner_loop):
                return True
        return False
    return visit(stmts, False)


def _loads(node) -> dict:
    """How many times each name is read in ``node`` (the user's code: not in nodes the conversion made)."""
    counts: dict = {}
    stack = [node]
    while stack:
        n = stack.pop()
        if getattr(n, "_ag_generated", False):
            continue
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
            counts[n.id] = counts.get(n.id, 0) + 1
        stack.extend(ast.iter_child_nodes(n))
    return counts


class _Converter:
    def __init__(self, declared: set, filename: str, loads: dict, line_offset: int):
        self.line_offset = line_offset
        self.declared = declared
        self.filename = filename
        self.total_loads = loads  # of the whole function, before conversion (conversion moves reads, adds none)
        self.names: set = set()
        self.converted = 0
        self.count = 0

    def block(self, stmts: list) -> list:
        stmts = list(stmts)
        out = []
        for i, s in enumerate(stmts):
            if (isinstance(s, ast.If) and not s.orelse and _ends_with_return(s.body)
                    and _ends_with_return(stmts[i + 1:])):
                s.orelse = stmts[i + 1:]  # `if c: ... return a` then `... return b`: the rest is the else branch
                out.extend(self.stmt(s))
                break
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        if isinstance(s, ast.If):
            s.body = self.block(s.body)
            s.orelse = self.block(s.orelse)
            if (_ends_with_return(s.body) and _ends_with_return(s.orelse)
                    and not _escapes(s.body[:-1] + s.orelse[:-1], loop=False)):
                # both branches return: each assigns the value, one return after the statement
                name = f"ag__retval_{self.count}"
                for branch in (s.body, s.orelse):
                    ret = branch[-1]
                    branch[-1] = ast.copy_location(ast.Assign(targets=[ast.Name(name, ast.Store())],
                                                              value=ret.value or ast.Constant(None)), ret)
                return self.convert_if(s, name) + [ast.copy_location(ast.Return(ast.Name(name, ast.Load())), s)]
            if _escapes(s.body + s.orelse, loop=False):
                return [s]
            return self.convert_if(s)
        if isinstance(s, ast.While):
            s.body = self.block(s.body)
            if s.orelse or _escapes(s.body, loop=False) or _has_loop_exit(s.body):
                return [s]
            return self.convert_while(s)
        if isinstance(s, ast.For):
            s.body = self.block(s.body)
            if s.orelse or _escapes(s.body, loop=False) or _has_loop_exit(s.body):
                return [s]
            return self.convert_for(s)
        for field in ("body", "orelse", "finalbody"):
            if isinstance(s, (ast.With, ast.Try)) and isinstance(getattr(s, field, None), list):
                setattr(s, field, self.block(getattr(s, field)))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = self.block(h.body)
        return [s]

    def _ag(self, name):
        return ast.Attribute(ast.Name(_PREFIX, ast.Load()), name, ast.Load())

    def _site(self, node) -> ast.Constant:
        return ast.Constant(f"{self.filename}:{node.lineno + self.line_offset}")

    def _state_fns(self, names, k, node):
        """``get_state`` (a lambda) and ``set_state`` (a def) of ``names``; the statements to insert."""
        getter = ast.Lambda(args=_no_args(), body=ast.Tuple([ast.Name(n, ast.Load()) for n in names], ast.Load()))
        getter._ag_generated = True
        setter_name = f"__ag_set_{k}"
        setter = ast.FunctionDef(
            name=setter_name,
            args=ast.arguments(posonlyargs=[], args=[ast.arg("__ag_state")], kwonlyargs=[], kw_defaults=[],
                               defaults=[]),
            body=([ast.Nonlocal(list(names))] if names else [])
            + ([ast.Assign(targets=[ast.Tuple([ast.Name(n, ast.Store()) for n in names], ast.Store())],
                           value=ast.Name("__ag_state", ast.Load()))] if names else [ast.Pass()]),
            decorator_list=[], returns=None, type_params=[])
        return getter, setter, setter_name

    def _fn(self, name, names, body):
        return ast.FunctionDef(name=name, args=_no_args(),
                               body=([ast.Nonlocal(list(names))] if names else []) + (body or [ast.Pass()]),
                               decorator_list=[], returns=None, type_params=[])

    def _test(self, e):
        """``and``/``or``/``not`` that work on Tensors."""
        if isinstance(e, ast.BoolOp):
            fn = "and_" if isinstance(e.op, ast.And) else "or_"
            acc = self._test(e.values[0])
            for v in e.values[1:]:
                acc = ast.Call(self._ag(fn), [ast.Lambda(_no_args(), acc), ast.Lambda(_no_args(), self._test(v))], [])
            return acc
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.Not):
            return ast.Call(self._ag("not_"), [self._test(e.operand)], [])
        return e

    def _names(self, stmts):
        names = sorted(_assigned(stmts) - self.declared - {"__class__"})
        if any(n.startswith("__ag_") for n in names):
            names = [n for n in names if not n.startswith("__ag_")]
        return names

    def convert_if(self, s: ast.If, retval: str | None = None):
        k = self.count
        self.count += 1
        names = self._names(s.body + s.orelse)
        inside = _loads(s)  # only what is read outside the statement is an output of it
        names = [n for n in names if n == retval or self.total_loads.get(n, 0) > inside.get(n, 0)]
        if set(names) & self.declared:
            return [s]
        self.names.update(names)
        self.converted += 1
        getter, setter, setter_name = self._state_fns(names, k, s)
        body_fn = self._fn(f"__ag_if_true_{k}", names, s.body)
        else_fn = self._fn(f"__ag_if_false_{k}", names, s.orelse)
        call = ast.Expr(ast.Call(self._ag("if_stmt"), [
            self._test(s.test), ast.Name(body_fn.name, ast.Load()), ast.Name(else_fn.name, ast.Load()), getter,
            ast.Name(setter_name, ast.Load()), ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
            self._site(s)], []))
        out = [body_fn, else_fn, setter, call]
        for n in out:
            ast.copy_location(n, s)
        return out

    def convert_while(self, s: ast.While):
        k = self.count
        self.count += 1
        names = self._names(s.body)
        self.names.update(names)
        self.converted += 1
        getter, setter, setter_name = self._state_fns(names, k, s)
        test_fn = ast.FunctionDef(name=f"__ag_test_{k}", args=_no_args(), body=[ast.Return(self._test(s.test))],
                                  decorator_list=[], returns=None, type_params=[])
        body_fn = self._fn(f"__ag_body_{k}", names, s.body)
        call = ast.Expr(ast.Call(self._ag("while_stmt"), [
            ast.Name(test_fn.name, ast.Load()), ast.Name(body_fn.name, ast.Load()), getter,
            ast.Name(setter_name, ast.Load()), ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
            self._site(s)], []))
        out = [test_fn, body_fn, setter, call]
        for n in out:
            ast.copy_location(n, s)
        return out

    def convert_for(self, s: ast.For):
        k = self.count
        self.count += 1
        target_names = sorted(_assigned([ast.Assign(targets=[s.target], value=ast.Constant(None))]))
        names = sorted(set(self._names(s.body)) | set(target_names))
        self.names.update(names)
        self.converted += 1
        getter, setter, setter_name = self._state_fns(names, k, s)
        target_fn = ast.FunctionDef(
            name=f"__ag_target_{k}",
            args=ast.arguments(posonlyargs=[], args=[ast.arg("__ag_item")], kwonlyargs=[], kw_defaults=[],
                               defaults=[]),
            body=([ast.Nonlocal(target_names)] if target_names else [])
            + [ast.Assign(targets=[s.target], value=ast.Name("__ag_item", ast.Load()))],
            decorator_list=[], returns=None, type_params=[])
        body_fn = self._fn(f"__ag_body_{k}", names, s.body)
        func = s.iter.func if isinstance(s.iter, ast.Call) else None
        if (func is not None and not s.iter.keywords and not any(isinstance(a, ast.Starred) for a in s.iter.args)
                and ((isinstance(func, ast.Name) and func.id == "range")
                     or (isinstance(func, ast.Attribute) and func.attr == "range"))):
            it = ast.Call(self._ag("range_"), [s.iter.func] + s.iter.args, [])
        else:
            it = s.iter
        call = ast.Expr(ast.Call(self._ag("for_stmt"), [
            it, ast.Name(target_fn.name, ast.Load()), ast.Name(body_fn.name, ast.Load()), getter,
            ast.Name(setter_name, ast.Load()), ast.Tuple([ast.Constant(n) for n in names], ast.Load()),
            self._site(s)], []))
        out = [target_fn, body_fn, setter, call]
        for n in out:
            ast.copy_location(n, s)
        return out


def _ends_with_return(stmts) -> bool:
    return bool(stmts) and isinstance(stmts[-1], ast.Return)


def _has_loop_exit(stmts) -> bool:
    """A ``break`` or ``continue`` of this loop (not of a loop nested in it)."""
    for node in stmts:
        if isinstance(node, (ast.Break, ast.Continue)):
            return True
        if isinstance(node, (ast.For, ast.While, ast.AsyncFor, ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                             ast.ClassDef)):
            continue
        if _has_loop_exit(list(ast.iter_child_nodes(node))):
            return True
    return False


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
