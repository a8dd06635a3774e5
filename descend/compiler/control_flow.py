"""``descend.cond`` and ``descend.while_loop``: control flow that a trace records as such.

Outside a trace (and on values a trace did not compute) they are Python's
``if`` and ``while``. Inside ``descend.function``, on a Tensor the function
computed, ``cond`` records both branches and ``while_loop`` its condition
and body as subgraphs, as TF's ``tf.cond``/``tf.while_loop`` build
``If``/``While`` ops: the compiled function picks the branch and repeats the
body on each call's values. Python in a branch or a body runs once, while
tracing (both branches of a ``cond``: the one not taken *dry*, its Variable
writes and prints recorded but not made).

Example:
    >>> import descend as ds
    >>> @ds.function
    ... def collatz_steps(n):
    ...     def body(n, k):
    ...         n = ds.cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1)
    ...         return n, k + 1
    ...     return ds.while_loop(lambda n, k: n > 1, body, (n, 0))[1]
    >>> int(collatz_steps(ds.constant(6))), int(collatz_steps(ds.constant(27)))
    (8, 111)
    >>> collatz_steps.experimental_get_tracing_count()
    1
"""

from __future__ import annotations

import functools

import numpy as np

from ..errors import InvalidArgumentError
from ..framework import nest
from ..framework import tape as _tape
from ..framework import trace as _trace
from ..framework.tensor import ArrayLike, Tensor, convert_to_tensor
from .graph import Graph, Lit, Node, Value
from .interpret import replay
from .tracer import Recorder

__all__ = ["cond", "while_loop"]


#: errors that the values of a dry-run branch may cause (the program itself is not wrong)
_DATA_ERRORS = (InvalidArgumentError, IndexError, ArithmeticError)


def _truth(pred, what: str) -> bool:
    if isinstance(pred, ArrayLike):
        if pred._value.size != 1:
            raise ValueError(f"{what}: `pred` must be a scalar; received shape {tuple(pred.shape)}")
        return bool(pred)
    return bool(pred)


def _recorder_for(pred_like) -> Recorder | None:  # noqa: D401
    """The recorder that must record this construct, or None when it runs as Python (eager)."""
    r = _trace.current()
    if r is None or r.invalid is not None or r.paused or not isinstance(r, Recorder):
        return None
    if not any(isinstance(x, ArrayLike) and r.is_traced(x) for x in pred_like):
        return None
    if _tape.recording():  # the tape would see one path: gradients through a compiled branch are not built yet
        r.invalidate("a GradientTape records a ds.cond/ds.while_loop on a computed value, whose gradient a "
                     "trace does not compile yet")
        return None
    return r


def _as_leaf(x):
    """A branch or loop result leaf: Tensors stay, numbers become constants, other objects pass through."""
    if isinstance(x, ArrayLike):
        return x
    if isinstance(x, (bool, int, float, complex, np.number, np.ndarray)):
        return convert_to_tensor(x)
    return x


def _subgraph(r: Recorder, name: str, fn, placeholders, dry: bool):
    """Run ``fn(*placeholders)`` under a branch recorder; ``(graph, recorder, result)``."""
    g = Graph(name)
    sub = Recorder(g, parent=r, exclusive=True, dry=dry)
    for p in placeholders:
        v = Value(p._value.shape, p._value.dtype)
        g.inputs.append(v)
        sub.register(p, v)
    with sub, _tape.paused():
        out = fn(*placeholders)
    return g, sub, out


def _emit(r: Recorder, kind: str, payload, inputs: list, results: list) -> list:
    """Append one ``kind`` node reading ``inputs`` (Tensors of the enclosing graph) to every recorder of
    ``r``'s chain; return new Tensors holding ``results`` (arrays), registered as the node's outputs."""
    outs = [Tensor(a) for a in results]
    for rr in r.chain():
        if rr.invalid is not None:
            continue
        node = rr.graph.add(Node(kind, None, [rr.ref(x) for x in inputs], payload=payload), results)
        for t, v in zip(outs, node.outputs):
            rr.register(t, v)
    return outs


def _capture_union(graphs) -> tuple[list, list]:
    """The enclosing Tensors the subgraphs read (each once) and, per graph, where its captures are in it."""
    union, where, index = [], [], {}
    for g in graphs:
        idx = []
        for c in g.captures:
            k = index.get(id(c))
            if k is None:
                k = index[id(c)] = len(union)
                union.append(c)
            idx.append(k)
        where.append(idx)
    return union, where


# ====================================================================== cond
class CondPayload:
    """The two branch graphs of a recorded ``cond`` (node inputs: the predicate, then the captures)."""

    def __init__(self, true_graph: Graph, false_graph: Graph, true_idx: list, false_idx: list):
        self.true_graph, self.false_graph = true_graph, false_graph
        self.true_idx, self.false_idx = true_idx, false_idx

    def graphs(self):
        return (self.true_graph, self.false_graph)

    def replay(self, inputs, var_args):
        pred, caps = inputs[0], inputs[1:]
        out = cond(pred,
                   lambda: tuple(replay(self.true_graph, (), var_args, [caps[i] for i in self.true_idx])),
                   lambda: tuple(replay(self.false_graph, (), var_args, [caps[i] for i in self.false_idx])))
        return list(out)


def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``, as ``tf.cond``.

    Inside ``descend.function``, with a ``pred`` the function computed, both
    branches are traced and the compiled function picks one on each call. The
    branches must return the same structure, with Tensors of the same dtype
    and shape in the same places (numbers become Tensors; other Python
    objects must be the same object in both).

    Args:
        pred: a scalar boolean Tensor (or a Python bool).
        true_fn, false_fn: callables taking no arguments.
        name: accepted for TF code.

    Example:
        >>> import descend as ds
        >>> float(ds.cond(ds.constant(2.0) > 1.0, lambda: ds.constant(1.0), lambda: ds.constant(-1.0)))
        1.0
    """
    for label, fn in (("true_fn", true_fn), ("false_fn", false_fn)):
        if not callable(fn):
            raise TypeError(f"cond: `{label}` must be callable. Received: {fn!r}")
    r = _recorder_for([pred])
    if r is None:
        return true_fn() if _truth(pred, "cond") else false_fn()
    if pred._value.size != 1:
        raise ValueError(f"cond: `pred` must be a scalar; received shape {tuple(pred.shape)}")
    taken = bool(pred._value.reshape(()))
    traced = {}
    for branch in (True, False):  # in source order, as TF traces them; the branch not taken runs dry
        dry = branch != taken
        fn = true_fn if branch else false_fn
        try:
            g, sub, out = _subgraph(r, f"cond_{'true' if branch else 'false'}", lambda f=fn: f(), (), dry)
        except _DATA_ERRORS as e:
            if not dry:
                raise
            # the branch not taken ran on values it would not see (TF builds it without running it): an
            # error of the data, not of the program, makes the function run eagerly
            r.invalidate(f"the branch of ds.cond not taken while tracing raised {type(e).__name__}: {e}")
            return _finish_eagerly(traced, taken, true_fn, false_fn)
        leaves, rebuild = nest.flatten(out), functools.partial(nest.pack_like, out)
        traced[branch] = (g, sub, out, [_as_leaf(x) for x in leaves], rebuild)
        if sub.invalid is not None:
            r.invalidate(sub.invalid)
        if r.invalid is not None:
            return _finish_eagerly(traced, taken, true_fn, false_fn)
    (tg, tsub, tout, tl, _), (fg, fsub, fout, fl, _) = traced[True], traced[False]
    if nest.structure_of(tout) != nest.structure_of(fout) or len(tl) != len(fl):
        raise ValueError("cond: true_fn and false_fn must return the same nested structure. Received: "
                         f"{_describe(tout)} and {_describe(fout)}")
    tensor_pos = []
    for k, (a, b) in enumerate(zip(tl, fl)):
        ta, tb = isinstance(a, ArrayLike), isinstance(b, ArrayLike)
        if ta and tb:
            if a._value.dtype != b._value.dtype:
                raise TypeError(f"cond: the branches return different dtypes at position {k}: "
                                f"{a._value.dtype.name} and {b._value.dtype.name}")
            if a._value.shape != b._value.shape:
                r.invalidate(f"the branches of ds.cond return different shapes at position {k} "
                             f"({a._value.shape} and {b._value.shape}); descend compiles fixed shapes")
                return traced[taken][2]
            tensor_pos.append(k)
        elif ta or tb or not (a is b or _same_python(a, b)):
            raise TypeError(f"cond: at position {k} one branch returns {a!r} and the other {b!r}; branches must "
                            "return Tensors in the same places, and the same Python objects elsewhere")
    tg.outputs = [tsub.ref(tl[k]) for k in tensor_pos]
    fg.outputs = [fsub.ref(fl[k]) for k in tensor_pos]
    union, (t_idx, f_idx) = _capture_union([tg, fg])
    taken_leaves = tl if taken else fl
    outs = _emit(r, "cond", CondPayload(tg, fg, t_idx, f_idx), [pred] + union,
                 [taken_leaves[k]._value for k in tensor_pos])
    result = list(taken_leaves)
    for k, t in zip(tensor_pos, outs):
        result[k] = t
    return traced[taken][4](result)


def _finish_eagerly(traced: dict, taken: bool, true_fn, false_fn):
    """The result of the branch taken once the trace is given up: its traced result when it ran already,
    else the branch run now (the recorder is invalid: nothing more is recorded)."""
    if taken in traced:
        return traced[taken][2]
    return true_fn() if taken else false_fn()


def _same_python(a, b) -> bool:
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:  # noqa: BLE001 - an object whose == does not give a bool
        return False


def _describe(x) -> str:
    text = repr(nest.structure_of(x)) if isinstance(x, (list, tuple, dict)) else type(x).__name__
    return text if len(text) < 200 else text[:200] + "..."


# ====================================================================== while_loop
class WhilePayload:
    """The condition and body graphs of a recorded ``while_loop`` (node inputs: the loop variables, then
    the captures)."""

    def __init__(self, cond_graph: Graph, body_graph: Graph, n: int, cond_idx: list, body_idx: list,
                 maximum_iterations):
        self.cond_graph, self.body_graph, self.n = cond_graph, body_graph, n
        self.cond_idx, self.body_idx = cond_idx, body_idx
        self.maximum_iterations = maximum_iterations

    def graphs(self):
        return (self.cond_graph, self.body_graph)

    def replay(self, inputs, var_args):
        loop, caps = inputs[:self.n], inputs[self.n:]
        c_caps = [caps[i] for i in self.cond_idx]
        b_caps = [caps[i] for i in self.body_idx]
        out = while_loop(lambda *vs: replay(self.cond_graph, vs, var_args, c_caps)[0],
                         lambda *vs: tuple(replay(self.body_graph, vs, var_args, b_caps)),
                         tuple(loop), maximum_iterations=self.maximum_iterations)
        return list(out)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10, back_prop=True,
               swap_memory=False, maximum_iterations=None, name=None):
    """Repeat ``loop_vars = body(*loop_vars)`` while ``cond(*loop_vars)``, as ``tf.while_loop``.

    Inside ``descend.function``, with loop variables the function computed,
    the condition and body are traced once and the compiled function repeats
    the body on each call's values. The body must return the structure of
    ``loop_vars``, with Tensors of unchanged dtypes and shapes.

    Args:
        cond: callable taking the loop variables, returning a scalar boolean.
        body: callable taking the loop variables, returning new ones.
        loop_vars: a Tensor, or a (nested) tuple/list of Tensors and numbers.
        maximum_iterations: stop after this many iterations (a Python int).
        shape_invariants, parallel_iterations, back_prop, swap_memory, name: accepted for TF code.

    Returns:
        The loop variables after the loop, in the structure of ``loop_vars``.

    Example:
        >>> import descend as ds
        >>> i, s = ds.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i), (0, 0))
        >>> int(i), int(s)
        (4, 6)
    """
    if not callable(cond) or not callable(body):
        raise TypeError(f"while_loop: `cond` and `body` must be callable. Received: {cond!r}, {body!r}")
    if maximum_iterations is not None and not isinstance(maximum_iterations, ArrayLike):
        maximum_iterations = int(maximum_iterations)
    single = not isinstance(loop_vars, (list, tuple))
    packed = (loop_vars,) if single else loop_vars
    leaves, rebuild = nest.flatten(packed), functools.partial(nest.pack_like, packed)
    if not leaves:
        raise ValueError("while_loop: `loop_vars` must not be empty")
    leaves = [_as_leaf(x) for x in leaves]
    unpack = _unpacker(packed, rebuild)
    r = _trace.current()
    if r is not None and (not isinstance(r, Recorder) or r.invalid is not None or r.paused):
        r = None
    if r is not None and isinstance(maximum_iterations, ArrayLike) and r.is_traced(maximum_iterations):
        r.invalidate("ds.while_loop's maximum_iterations is a computed Tensor")
        r = None
    if r is not None:
        return _traced_while(r, cond, body, packed, leaves, rebuild, unpack, single, maximum_iterations)
    limit = None if maximum_iterations is None else int(maximum_iterations)
    return _eager_rest(cond, body, packed, leaves, rebuild, unpack, single, limit)


def _unpacker(packed, rebuild):
    def unpack(values):
        return tuple(rebuild(values))
    return unpack


def _loop_leaves(result, packed, before, what) -> list:
    if len(packed) == 1 and not isinstance(result, (list, tuple)):
        result = (result,)
    if nest.structure_of(tuple(result)) != nest.structure_of(tuple(packed)):
        raise ValueError(f"{what}: `body` must return the structure of loop_vars ({_describe(tuple(packed))}); "
                         f"received {_describe(result)}")
    leaves = nest.flatten(tuple(result))
    out = []
    for k, (a, b) in enumerate(zip(leaves, before)):
        a = _as_leaf(a)
        if isinstance(b, ArrayLike) and isinstance(a, ArrayLike) and a._value.dtype != b._value.dtype:
            raise TypeError(f"{what}: loop variable {k} entered the loop with dtype {b._value.dtype.name} and "
                            f"left the body with dtype {a._value.dtype.name}")
        out.append(a)
    return out


def _traced_while(r, cond_fn, body_fn, packed, leaves, rebuild, unpack, single, maximum_iterations):
    tensors = [isinstance(x, ArrayLike) for x in leaves]
    if not all(tensors):
        if any(isinstance(x, ArrayLike) and r.is_traced(x) for x in leaves):
            r.invalidate("ds.while_loop has a loop variable that is neither a Tensor nor a number")
        return _eager_rest(cond_fn, body_fn, packed, leaves, rebuild, unpack, single, maximum_iterations)
    ph = [Tensor(x._value) for x in leaves]
    cg, csub, c = _subgraph(r, "while_cond", lambda *vs: cond_fn(*unpack(list(vs))), ph, True)
    traced = (any(r.is_traced(x) for x in leaves) or (isinstance(c, ArrayLike) and csub.is_traced(c))
              or bool(cg.captures))
    if not traced:  # a loop over constants: Python's loop (its ops, if any, are recorded as they run)
        return _eager_rest(cond_fn, body_fn, packed, leaves, rebuild, unpack, single, maximum_iterations)
    if _tape.recording():  # the tape would see one path: gradients through a compiled loop are not built yet
        r.invalidate("a GradientTape records a ds.while_loop on computed values, whose gradient a trace does not "
                     "compile yet")
        return _eager_rest(cond_fn, body_fn, packed, leaves, rebuild, unpack, single, maximum_iterations)
    if csub.invalid is not None:
        r.invalidate(csub.invalid)
    if isinstance(c, ArrayLike):
        if c._value.size != 1:
            raise ValueError(f"while_loop: `cond` must return a scalar; received shape {tuple(c.shape)}")
        first = bool(c._value.reshape(()))
        cg.outputs = [csub.ref(c)]
    else:
        first = bool(c)
        cg.outputs = [Lit(first)]
    limit = maximum_iterations
    first = first and (limit is None or limit > 0)
    ph_b = [Tensor(x._value) for x in leaves]
    bg, bsub, out = _subgraph(r, "while_body", lambda *vs: body_fn(*unpack(list(vs))), ph_b, r.dry or not first)
    if bsub.invalid is not None:
        r.invalidate(bsub.invalid)
    new = _loop_leaves(out, packed, leaves, "while_loop")
    for k, (a, b) in enumerate(zip(new, leaves)):
        if not isinstance(a, ArrayLike):
            r.invalidate("ds.while_loop's body returns a loop variable that is not a Tensor")
        elif a._value.shape != b._value.shape:
            raise ValueError(f"while_loop: loop variable {k} has shape {b._value.shape} before the loop and shape "
                             f"{a._value.shape} after one iteration; descend compiles loops whose variables keep "
                             "their shapes")
    if r.invalid is not None:
        # the first iteration ran (when it had to); finish the loop as Python
        rest = new if first else leaves
        done = 1 if first else 0
        return _eager_rest(cond_fn, body_fn, packed, rest, rebuild, unpack, single,
                           None if limit is None else limit - done)
    bg.outputs = [bsub.ref(x) for x in new]
    union, (c_idx, b_idx) = _capture_union([cg, bg])
    payload = WhilePayload(cg, bg, len(leaves), c_idx, b_idx, limit)
    if first and not r.dry:
        values = new
        var_args = r.function_recorder().var_list
        c_caps = [x for x in cg.captures]
        b_caps = [x for x in bg.captures]
        k = 1
        for rr in r._all():
            rr.paused += 1
        try:
            with _tape.paused():
                while (limit is None or k < limit) and _replayed_truth(replay(cg, values, var_args, c_caps)[0]):
                    values = replay(bg, values, var_args, b_caps)
                    k += 1
        finally:
            for rr in r._all():
                rr.paused -= 1
    else:
        values = leaves
    outs = _emit(r, "while", payload, list(leaves) + union, [v._value for v in values])
    result = rebuild(outs)
    return result[0] if single else result


def _replayed_truth(c) -> bool:
    return bool(c._value.reshape(())) if isinstance(c, ArrayLike) else bool(c)


def _eager_rest(cond_fn, body_fn, packed, values, rebuild, unpack, single, limit):
    n = 0
    while (limit is None or n < limit) and _truth(cond_fn(*unpack(values)), "while_loop"):
        values = _loop_leaves(body_fn(*unpack(values)), packed, values, "while_loop")
        n += 1
    out = rebuild(values)
    return out[0] if single else out
