"""Recording a trace: the recorder the framework's tracing hooks talk to.

A trace runs the Python function on real values, as eager code runs, and
records on the side (:mod:`descend.framework.trace` says what the framework
reports). So the call that traces *is* an eager call: its results and side
effects are eager execution's. What cannot be recorded does not make the
results wrong: it makes the recording invalid (:attr:`Recorder.invalid`), the
call finishes eagerly, and the function then runs eagerly for that input
signature (with a warning naming the line).

A recorder is one of:

* a **function** recorder (``exclusive=False``): the trace of one
  ``descend.function``. Inside another function's trace, what it records is
  recorded by the enclosing one too (the inner function is inlined there);
* a **branch** recorder (``exclusive=True``): a branch of ``cond`` or the
  condition or body of ``while_loop``. Its ops go to its subgraph only; a
  Tensor of the enclosing graph it reads becomes one of its captures;
* **dry** (``dry=True``): writes to Variables, ``descend.print`` and opaque
  calls are recorded but not made (``get_concrete_function``, the branch of
  a ``cond`` not taken); arithmetic warnings are silenced.
"""

from __future__ import annotations

import functools
import linecache
import os
import sys
import weakref
from threading import get_ident

import numpy as np

from ..errors import InvalidArgumentError, OperatorNotAllowedInGraphError
from ..framework import trace as _trace
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import ArrayLike, Tensor
from ..framework.variable import Variable
from .graph import Graph, Lit, Node, Value, VarRef
from .nodes import CallbackNode, OptimizerNode

__all__ = ["OPAQUE", "ElementChanged", "IteratorNode", "Recorder", "ShapeWatched", "user_site"]



class IteratorNode(CallbackNode):
    """``next`` of a ``Dataset`` iterator the function received (``DatasetIterator.get_next``): every call
    of the compiled function takes the next element, as TF's ``IteratorGetNext``. A dry trace
    (``get_concrete_function``) reads the element from a copy of the iterator, which stays where it was."""

    @classmethod
    def record(cls, recorder, fn, args: list, kwargs: dict, public=None):
        made = super().record(recorder, fn, args, kwargs, public)
        if made is not None and recorder.dry and args and hasattr(args[0], "copy"):
            args[0] = args[0].copy()  # (the node keeps the iterator itself: later calls take from it)
        return made

    def run(self, arrays: list) -> list:
        element = self._call([a if isinstance(a, Variable) else Tensor(a) for a in arrays])
        try:
            return self.arrays_of(element)
        except InvalidArgumentError as e:
            # an element of another shape (a last partial batch): it goes back into the iterator, so the call
            # that fails takes nothing from it, and the function may run the call again eagerly
            self.leaves[0].put_back(element)
            raise ElementChanged(str(e), self) from None


class ElementChanged(InvalidArgumentError):
    """A compiled function's iterator node met an element whose shape or dtype is not the trace's (``node``:
    that :class:`IteratorNode`); the element is back in its iterator."""

    def __init__(self, message: str, node: IteratorNode):
        super().__init__(message)
        self.node = node


#: kind (of :func:`descend.framework.trace.opaque`) -> ``factory(recorder, fn, args, kwargs)`` returning
#: ``(OpaqueNode, input references, result of a dry call)``, or None when the call cannot be recorded
OPAQUE: dict = {"optimizer": OptimizerNode.record, "callback": CallbackNode.record, "iterator": IteratorNode.record}

#: Tensors that stand for values inside a finished trace (its placeholders and intermediates): another
#: trace that reads one raises TF's "out of scope" TypeError (the value belongs to that trace's call)
trace_local: weakref.WeakValueDictionary = weakref.WeakValueDictionary()  # id -> Tensor

#: TF's words when a trace after the first creates a Variable
SINGLETON_VARIABLES = ("descend.function only supports singleton Variables created on the first call. Make sure the "
                       "Variable is only created once or created outside descend.function")

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def user_site(depth: int = 2) -> str:
    """``file:line: source`` of the innermost frame outside descend (the user's line), or ``''``."""
    f = sys._getframe(depth)
    while f is not None:
        fn = f.f_code.co_filename
        if not os.path.abspath(fn).startswith(_PACKAGE + os.sep) and not fn.startswith("<frozen"):
            line = linecache.getline(fn, f.f_lineno).strip()
            return f"{fn}:{f.f_lineno}" + (f": `{line}`" if line else "")
        f = f.f_back
    return ""


def _note_shape_read() -> None:
    r = _trace.current()
    while r is not None:
        if getattr(r, "watch_shapes", False) and not getattr(r, "paused", 0):
            r.shape_read = True
        r = getattr(r, "parent", None)


def _relaxed_view(t):
    """The shape with None dimensions the user's code sees of a placeholder of a trace that is to serve
    several shapes (TF's view), or None: descend's own code (an op, a gradient) sees the real shape."""
    r = _trace.current()
    while r is not None:
        shape = getattr(r, "relaxed", {}).get(id(t))
        if shape is not None:
            caller = sys._getframe(2).f_code.co_filename
            if os.path.abspath(caller).startswith(_PACKAGE + os.sep):
                return None
            return shape
        r = getattr(r, "parent", None)
    return None


class ShapeWatched(Tensor):
    """A Tensor a trace that is to serve other shapes computed: reading its shape (``shape``,
    ``get_shape()``, ``ndim``, ``size``, ``len``, iterating it) while that trace records tells the
    recorder the trace depends on the shapes it ran with. Otherwise a Tensor like any other.

    The user's code reading the shape of one of that trace's placeholders sees TF's view instead, the
    dimensions the trace serves as None (``x.shape == (None,)``): what it does with that holds for every
    shape the trace serves, so that read does not tie the trace to its shapes."""

    __slots__ = ()

    @property
    def shape(self) -> tuple:
        relaxed = _relaxed_view(self)
        if relaxed is not None:
            return relaxed
        _note_shape_read()
        return self._value.shape

    def get_shape(self) -> tuple:
        relaxed = _relaxed_view(self)
        if relaxed is not None:
            return relaxed
        _note_shape_read()
        return self._value.shape

    @property
    def ndim(self) -> int:
        if _relaxed_view(self) is None:  # (a relaxed placeholder's rank is the same for every shape it serves)
            _note_shape_read()
        return self._value.ndim

    @property
    def size(self) -> int:
        _note_shape_read()
        return self._value.size

    def __len__(self):
        _note_shape_read()
        return super().__len__()

    def __iter__(self):
        _note_shape_read()
        return super().__iter__()


class Recorder:
    """Records the ops, writes and calls of one trace (see the module docstring)."""

    def __init__(self, graph: Graph, *, parent=None, exclusive=False, dry=False):
        self.thread = get_ident()
        self.graph = graph
        self.parent = parent
        self.exclusive = exclusive
        self.dry = dry or (parent is not None and parent.dry)
        self.values: dict = {}       # id(Tensor) -> Value
        self.keep: list = []         # the objects whose ids are keys of ``values`` (ids stay valid)
        self.arrays: dict = {}       # id(array of a computed Value) -> (Value, Tensor): a Tensor made again
                                     # around the same array (or a reshaped view of it) is that value
        self.var_args: dict = {}     # id(Variable argument) -> its index (function recorders)
        self.var_list: list = []     # ... and the Variable arguments in order
        self.created: list = []      # Variables created while recording
        self.frozen = False          # a later trace of its function: creating a Variable is TF's ValueError
        # a trace meant to serve other shapes too (reduce_retracing, None dimensions of input_signature):
        # its computed Tensors note when Python reads their shapes (the trace then depends on them)
        self.watch_shapes = parent.watch_shapes if parent is not None else False
        self.shape_read = False
        self.relaxed: dict = {}      # id(placeholder) -> the shape the user's code sees (None dimensions)
        self.invalid: str | None = None
        self.paused = 0              # > 0 while an opaque call runs (what it does is not recorded)
        self.suppress = 0            # > 0 while a dry trace runs a callback: its Variable writes are skipped
        self.allow_reads = 0         # > 0 while the recorder itself reads values (descend.print)

    # ------------------------------------------------------------------ the chain of recorders
    def add_variable_argument(self, var) -> None:
        """Record ``var``, a Variable the function was called with, as its next Variable argument (once)."""
        if id(var) not in self.var_args:
            self.var_args[id(var)] = len(self.var_list)
            self.var_list.append(var)

    def chain(self):
        """This recorder and those its records also go to (up to and including the first branch)."""
        r = self
        while r is not None:
            yield r
            if r.exclusive:
                return
            r = r.parent

    def ancestors(self):
        r = self.parent
        while r is not None:
            yield r
            r = r.parent

    def function_recorder(self):
        """The nearest function recorder (the one whose call binds Variable arguments)."""
        r = self
        while r.exclusive and r.parent is not None:
            r = r.parent
        return r

    def invalidate(self, reason: str) -> None:
        """The trace cannot be compiled (``reason`` says why): stop recording, let the call run eagerly."""
        for r in self.chain():
            if r.invalid is None:
                r.invalid = reason
                r.values.clear()
                r.keep.clear()

    # ------------------------------------------------------------------ references
    def register(self, tensor, value: Value) -> None:
        self.values[id(tensor)] = value
        self.keep.append(tensor)
        if value.const is None:
            self.arrays.setdefault(id(tensor._value), (value, tensor))
            if self.watch_shapes and type(tensor) is Tensor:
                tensor.__class__ = ShapeWatched  # (same layout: only its shape properties differ)

    def is_traced(self, x) -> bool:
        """Whether ``x`` is a Variable or a Tensor this trace (or an enclosing one) computed or received."""
        if isinstance(x, Variable):
            return True
        i = id(x)
        if i in self.values:
            return True
        return any(i in r.values for r in self.ancestors())

    def traced_shape(self, x):
        """The shape the user's code sees of ``x``, a Tensor this trace (or an enclosing one) computed or
        received (its relaxed view, None dimensions, where the trace serves several shapes), without that
        read tying the trace to its shapes; None for anything else."""
        if isinstance(x, Variable) or self.paused or not self.is_traced(x):
            return None  # (paused: a py_function's Python, an init_scope block, which see values, as TF's)
        r = self
        while r is not None:
            shape = r.relaxed.get(id(x))
            if shape is not None:
                return shape
            r = r.parent
        return x._value.shape

    def ref(self, x):
        """The reference a node of this graph uses for ``x`` (a Tensor, Variable or Python value)."""
        if isinstance(x, Variable):
            return self.var_ref(x)
        if isinstance(x, Tensor):
            v = self.values.get(id(x))
            if v is not None:
                return v
            known_outside = any(id(x) in r.values for r in self.ancestors())
            if not known_outside:
                v = self._by_array(x)
                if v is not None:
                    return v
            return self._outside(x, known_outside)
        if isinstance(x, ArrayLike):  # another ArrayLike: treated as a Tensor snapshot
            return Value(x._value.shape, x._value.dtype, const=np.array(x._value))
        return Lit(x)

    def _outside(self, x, known_outside: bool) -> Value:
        """The Value of a Tensor this graph did not compute: a capture (a branch reading its enclosing
        graph's value) or a constant."""
        if self.exclusive and known_outside:
            v = Value(x._value.shape, x._value.dtype, capture=x)  # read from the enclosing graph
            self.graph.captures.append(x)
            self.graph.capture_values.append(v)
        else:
            if trace_local.get(id(x)) is x:
                raise TypeError(
                    f"A Tensor computed inside another descend.function's trace is out of scope here "
                    f"({user_site(5) or 'in this trace'}): it stands for a value of that function's calls. "
                    "Return it from that function and pass it in as an argument instead")
            if not self.exclusive and known_outside:
                # a nested function reading a value the calling function computed: as TF, the inner
                # trace cannot run on its own later (its graph holds this call's value)
                self.graph.outer_capture = True
            v = Value(x._value.shape, x._value.dtype, const=x._value)
        self.register(x, v)
        return v

    def _by_array(self, x):
        """The Value of a Tensor made (outside an op) around the array of a computed value: that value, or
        a recorded reshape of it for a reshaped view of the whole array; None when the array is no computed
        value's. Any other view of a computed value's array makes the trace invalid (its data would be
        read as a constant)."""
        a = x._value
        base, root = a, None
        while base is not None:
            for r in self._all():
                hit = r.arrays.get(id(base))
                if hit is not None and hit[1]._value is base:
                    root = (r, hit)
                    break
            if root is not None:
                break
            base = base.base if isinstance(base, np.ndarray) else None
        if root is None:
            return None
        owner, (value, src) = root
        if owner is not self:  # an enclosing graph's value: captured (or a constant) through its Tensor
            value = self.values.get(id(src)) or self._outside(src, True)
        if base is a:
            self.register(x, value)
            return value
        if (a.size == base.size and a.dtype == base.dtype and a.flags.c_contiguous and base.flags.c_contiguous
                and a.ctypes.data == base.ctypes.data):
            from ..ops.core_ops import reshape

            for r in self._all():
                r.paused += 1
            try:
                res = reshape(src, shape=a.shape)  # the op's result: a view of the same data
            finally:
                for r in self._all():
                    r.paused -= 1
            node = self.graph.add(Node("op", reshape, [value], {"shape": tuple(a.shape)}), [res._value])
            self.register(x, node.outputs[0])
            return node.outputs[0]
        self.invalidate(f"{user_site(4) or 'Python'} makes a Tensor of part of a computed value's array (a view "
                        "made outside an op), which a trace cannot record")
        return None

    def var_ref(self, var) -> VarRef:
        f = self.function_recorder()
        k = f.var_args.get(id(var))
        if k is not None:
            return VarRef(arg=k)
        self.graph.variables.setdefault(id(var), var)
        return VarRef(var=var)

    # ------------------------------------------------------------------ what the framework reports
    def record_op(self, op, inputs, result, attrs) -> None:
        for r in self.chain():
            if r.paused:
                return
            if r.invalid is None:
                r._record_op(op, inputs, result, attrs)

    def _record_op(self, op, inputs, result, attrs):
        for k, a in attrs.items():
            if isinstance(a, ArrayLike) and self.is_traced(a):
                self.invalidate(f"op '{op.name}' takes a Tensor computed inside the function as its attribute "
                                f"`{k}` ({user_site(4)})")
                return
        refs = [self.ref(x) for x in inputs]
        outs = result if type(result) is tuple else (result,)
        node = self.graph.add(Node("op", op, refs, dict(attrs)), [o._value for o in outs])
        for o, v in zip(outs, node.outputs):
            self.register(o, v)

    def host_read(self, value, what: str) -> None:
        for r in self._all():
            if r.paused or r.allow_reads:
                return
            if r.invalid is not None or not r.is_traced(value):
                continue
            if what == "bool":
                raise OperatorNotAllowedInGraphError(
                    f"Using a Tensor computed inside a descend.function as a Python `bool` is not allowed: "
                    f"{user_site(3) or 'here'}. A trace records ops, not the branch Python takes; descend "
                    "converts the plain `if`/`while` statements of the decorated function itself (those without "
                    "return, break or continue inside). Use ds.cond or ds.while_loop here, or compute the "
                    "condition outside the function.")
            kind = "a Variable's value" if isinstance(value, Variable) else "the value of a Tensor computed inside it"
            r.invalidate(f"{user_site(3) or 'Python'} reads {kind} ({what}), which a trace cannot record")
            return

    def _all(self):
        """Every recorder of this thread, innermost first (a value read matters to each that traced it)."""
        r = self
        while r is not None:
            yield r
            r = r.parent

    def lift(self, by: int) -> None:
        """``descend.init_scope`` enters (``by=1``) or leaves (``-1``): every recorder of this thread stops
        recording (the block runs eagerly; its results are captured values of the plan)."""
        for r in self._all():
            r.paused += by

    def custom_gradient_called(self, name: str) -> None:
        """A ``custom_gradient`` function ran: each graph of this thread notes it (its rule is not recorded)."""
        for r in self._all():
            r.graph.custom_gradients.append(name)

    def variable_created(self, var) -> None:
        for r in self._all():  # (also inside a call recorded whole: an optimizer creating its slots)
            if r.frozen:
                raise ValueError(
                    f"{SINGLETON_VARIABLES} (function '{r.graph.name}' creates Variable '{var.name}' on a trace "
                    f"after its first: {user_site(3) or 'here'})")
        for r in self._all():
            if r.paused:
                return
            r.created.append(var)

    def variable_write(self, var, kind: str, value) -> bool:
        if self.suppress:
            return True
        for r in self.chain():
            if r.paused:
                return False
            if r.invalid is not None:
                continue
            if kind == "direct":
                r.invalidate(f"{user_site(3) or 'Python'} writes variable '{var.scoped_name}' directly, which a trace "
                             "cannot record")
                continue
            if isinstance(value, IndexedSlices):
                refs = [r.ref(value.values), r.ref(value.indices)]
                payload = (kind, "slices", value.dense_shape)
            else:
                refs = [r.ref(value)]
                payload = (kind, "dense", None)
            r.graph.nodes.append(Node("write", None, [r.var_ref(var)] + refs, payload=payload))
        return self.dry

    def print_call(self, inputs, options, emit) -> bool:
        from ..framework import nest

        leaves, rebuild = nest.flatten(inputs), functools.partial(nest.pack_like, inputs)
        for r in self.chain():
            if r.paused:
                return False
            if r.invalid is None:
                refs = [r.ref(x) if isinstance(x, ArrayLike) else Lit(x) for x in leaves]
                r.graph.nodes.append(Node("print", None, refs, payload=(rebuild, dict(options), emit)))
        if not self.dry:
            self.allow_reads += 1
            try:
                emit(inputs, **options)
            finally:
                self.allow_reads -= 1
        return True

    def opaque_call(self, kind, fn, args, kwargs, public=None):
        factory = OPAQUE.get(kind)
        if any(r.paused for r in self.chain()):
            return fn(*args, **kwargs)
        chain = [r for r in self.chain() if r.invalid is None]
        args, kwargs = list(args), dict(kwargs)
        dry_result, nodes = None, []
        for r in chain:
            made = None if factory is None else factory(r, fn, args, kwargs, public)
            if made is None:
                r.invalidate(f"{user_site(3) or 'Python'} calls {getattr(fn, '__qualname__', fn)}, which a trace "
                             "cannot record")
                continue
            node, refs, dry_result = made
            nodes.append((r, r.graph.add(Node("opaque", None, refs, payload=node), [])))
        runs_dry = bool(nodes) and getattr(nodes[0][1].payload, "runs_dry", False)
        if self.dry and self.invalid is None and not runs_dry:
            return dry_result
        for r in self._all():
            r.paused += 1
        if self.dry:
            self.suppress += 1
        try:
            result = fn(*args, **kwargs)
        except BaseException as e:
            # a call that failed did not happen: its nodes go (the error is the trace's, or is handled by
            # the function, as a loop ending at the end of an iterator)
            for r, node in nodes:
                if node in r.graph.nodes:
                    r.graph.nodes.remove(node)
            if kind == "iterator" and type(e).__name__ == "OutOfRangeError":
                # the trace reached the end of an iterator it was given: what later calls do there depends
                # on Python's loop, which a plan cannot repeat; the signature runs eagerly
                for r in chain:
                    r.invalidate(f"{user_site(3) or 'Python'} reaches the end of a Dataset iterator while tracing")
            raise
        finally:
            for r in self._all():
                r.paused -= 1
            if self.dry:
                self.suppress -= 1
        for r, node in nodes:
            if r.invalid is not None:
                continue
            outs = node.payload.outputs_of(result)
            if outs is None:
                r.invalidate(f"{getattr(fn, '__qualname__', fn)} returns what a recorded callback cannot give back")
                continue
            node.outputs = [Value(t._value.shape, t._value.dtype, node, k) for k, t in enumerate(outs)]
            for t, v in zip(outs, node.outputs):
                r.register(t, v)
        return result

    # ------------------------------------------------------------------ activation
    def __enter__(self):
        _trace.active.append(self)
        if self.dry:
            self._errstate = np.errstate(all="ignore")
            self._errstate.__enter__()
        return self

    def __exit__(self, *exc):
        for i in range(len(_trace.active) - 1, -1, -1):
            if _trace.active[i] is self:
                del _trace.active[i]
                break
        if self.dry:
            self._errstate.__exit__(*exc)
        return False
