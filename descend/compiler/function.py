"""``descend.function``: trace a Python function once per input signature, run the trace as a plan.

The rules are TensorFlow's (``tf.function``), checked against TF 2.21:

* a call is traced once per *signature*: Tensors (and NumPy arrays) by shape
  and dtype, Variables by shape, dtype and which arguments are the same
  Variable, Python values by value (an object that is not a number, string or
  container by identity), nested lists, tuples and dicts by their structure;
* the trace runs the Python function once; Python side effects (``print``,
  appending to a list) happen then and only then, ``descend.print`` on every
  call, Variable assignments on every call;
* Variables may be created on the first trace only (``ValueError``
  otherwise);
* ``input_signature`` fixes the signature (``None`` dimensions allowed,
  nested structures allowed); arguments are converted to its dtypes and a
  wrong structure, dtype or shape is a ``TypeError``;
* a method gets one trace cache per instance.

Shapes, as TF: ``None`` dimensions of ``input_signature`` make one trace
serve every size there; with ``reduce_retracing=True`` the first call
traces its shapes and a call whose shapes differ traces once more for the
shapes both fit (differing dimensions become ``None``), which then serves
them all. Inside that trace the function's own code sees those dimensions as
``None`` (``x.shape == (None,)``), as in TF. descend's trace runs on the
concrete values of the call that made it, so it serves other shapes only when
nothing in it read a concrete shape (descend's own code reading an argument's
shape, ``ds.shape(x)``, ``len(x)``, a computed value's ``.shape``): then a
call with other shapes replays the recorded graph on its values (no Python,
no trace counted) and compiles a plan for them; otherwise each shape gets a
trace of its own (the Python runs again: never a graph wrong for the shape).

A traced call is an eager call that records (:mod:`~descend.compiler.tracer`):
later calls run the recorded graph as a compiled plan
(:mod:`~descend.compiler.plan`), or op by op through the dispatcher when a
``GradientTape`` is recording or an enclosing function is being traced (so
gradients flow through the call, and a function called inside another is
inlined in it). A trace that cannot be recorded (Python reading a computed
value with NumPy, say) makes that signature run eagerly, with a warning
naming the line.
"""

from __future__ import annotations

import functools
import gc
import inspect
import logging
import threading
import types
import warnings
import weakref

import numpy as np

from .. import backend
from ..errors import EndOfIterator, OutOfRangeError
from ..framework import nest
from ..framework import tape as _tape
from ..framework import trace as _trace
from ..framework.indexed_slices import IndexedSlices
from ..framework.tensor import ArrayLike, Tensor, convert_to_tensor
from ..framework.variable import Variable
from .graph import STATEFUL_OPS, Graph, Lit, Value, VarRef
from .interpret import replay
from .trace_type import TraceType, TracingContext
from .tracer import SINGLETON_VARIABLES, ElementChanged, Recorder, trace_local

__all__ = ["ConcreteFunction", "Function", "FunctionEagerWarning", "function"]


log = logging.getLogger("descend")

#: how many traces make :class:`Function` log TF's "tracing is expensive" warning (and the most it logs)
RETRACE_WARNING_AFTER, RETRACE_WARNINGS_MAX = 5, 2
_traces_by_code: dict = {}  # code object -> (traces, warnings logged); for the retracing warning



class FunctionEagerWarning(UserWarning):
    """A ``descend.function`` trace could not be recorded: that signature runs eagerly."""


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_implements=None, experimental_autograph_options=None, experimental_attributes=None,
             experimental_relax_shapes=None, experimental_compile=None, experimental_follow_type_hints=None):
    """Compile ``func``: trace it once per input signature and run the trace as a plan, as ``tf.function``.

    Use it as ``@ds.function``, ``@ds.function(...)`` or ``ds.function(f)``.
    See :mod:`descend.compiler.function` for the tracing rules (TF's) and
    ``docs/function.md`` for what the plan does.

    Args:
        func: the Python function (or method) to compile.
        input_signature: a (nested) list of ``descend.TensorSpec``, one per
            positional parameter: calls are checked and converted against it.
        autograph: convert the function's plain Python ``if``/``while``
            statements on computed Tensors to ``ds.cond``/``ds.while_loop``.
        jit_compile: accepted (``True``, ``False`` or ``None``); descend always compiles.
        reduce_retracing: after a second trace with other shapes, serve every
            shape both fit with that trace (TF's relaxed ``None`` dimensions;
            see the module docstring for when a trace can serve other shapes).
        experimental_*: TF's; accepted (``experimental_relax_shapes`` is
            ``reduce_retracing``, ``experimental_compile`` is ``jit_compile``).

    Example:
        >>> import descend as ds
        >>> @ds.function(input_signature=[ds.TensorSpec(shape=[None], dtype=ds.float32)])
        ... def double(x):
        ...     return x * 2.0
        >>> double([1.0, 2.0]).numpy()
        array([2., 4.], dtype=float32)
    """
    if input_signature is not None:
        input_signature = _check_signature(input_signature)
    if jit_compile is None and experimental_compile is not None:
        jit_compile = experimental_compile
    if experimental_relax_shapes is not None:
        reduce_retracing = bool(experimental_relax_shapes)
    if jit_compile not in (None, True, False):
        raise TypeError(f"function: `jit_compile` must be True, False or None. Received: {jit_compile!r}")

    def wrap(f):
        if not callable(f):
            raise TypeError(f"function: {f!r} is not a callable object")
        return Function(f, input_signature=input_signature, autograph=autograph, jit_compile=jit_compile,
                        reduce_retracing=reduce_retracing)

    return wrap if func is None else wrap(func)


def _is_spec(x) -> bool:
    from ..tensor_spec import TensorSpec

    return isinstance(x, TensorSpec)


def _check_signature(signature) -> tuple:
    if not isinstance(signature, (list, tuple)):
        raise TypeError(f"function: `input_signature` must be a possibly nested sequence of TensorSpec objects. "
                        f"Received: {signature!r}")
    leaves = nest.flatten(list(signature))
    for s in leaves:
        if type(s).__name__ == "VariableSpec":
            raise TypeError("function: input_signature doesn't support VariableSpec")
        if not _is_spec(s):
            raise TypeError(f"function: `input_signature` must be a possibly nested sequence of TensorSpec objects. "
                            f"Received an element {s!r}")
    return tuple(signature)


_config = None  # descend.config, imported on the first call (it imports this package's parents)


def _eager() -> bool:
    global _config
    if _config is None:
        from .. import config as _config
    return _config.functions_run_eagerly()


# ====================================================================== signatures
class _Unhashable(TypeError):
    pass


def _trace_type(x, variables: dict):
    """What identifies ``x`` in a signature (TF's TraceType rules, see the module docstring)."""
    if isinstance(x, Variable):
        alias = variables.setdefault(id(x), len(variables))
        return ("V", x._value.shape, x._value.dtype.str, alias)
    if isinstance(x, ArrayLike):
        return ("T", x._value.shape, x._value.dtype.str)
    if isinstance(x, np.ndarray):
        return ("T", x.shape, x.dtype.str)
    if _is_spec(x):
        return ("T", x.shape, np.dtype(backend.np_dtype(x.dtype)).str)
    if isinstance(x, IndexedSlices):
        return ("IS", _trace_type(x.values, variables), _trace_type(x.indices, variables), x.dense_shape)
    if x is None or isinstance(x, (bool, int, float, complex, str, bytes, np.number, np.bool_)):
        return ("P", type(x), x)
    if isinstance(x, weakref.ref):
        raise TypeError(f"function: weakref arguments are not supported (received {x!r})")
    if hasattr(type(x), "__tf_tracing_type__"):  # the tracing protocol: the object names its trace type
        return ("TT", _tracing_type(x))
    if isinstance(x, dict):
        keys = sorted(x, key=lambda k: (type(k).__name__, k if isinstance(k, str) else repr(k)))
        return ("D", type(x), tuple(keys), tuple(_trace_type(x[k], variables) for k in keys))
    if isinstance(x, (list, tuple)):
        return ("S", type(x), tuple(_trace_type(v, variables) for v in x))
    try:
        hash(x)
    except TypeError:
        raise TypeError(f"function: Could not generate a generic TraceType for {x!r} (of type {type(x).__name__}): "
                        "arguments that are not Tensors, Variables, numbers, strings or nested lists, tuples and "
                        "dicts of them must be hashable") from None
    try:
        return ("W", weakref.ref(x))
    except TypeError:
        return ("H", type(x), x)


def _tracing_type(x):
    """``x.__tf_tracing_type__(context)``, checked: a hashable :class:`TraceType`."""
    tt = x.__tf_tracing_type__(TracingContext())
    if not isinstance(tt, TraceType):
        raise TypeError(f"function: {type(x).__name__}.__tf_tracing_type__ must return a "
                        f"types.experimental.TraceType. Received: {tt!r}")
    try:
        hash(tt)
    except TypeError:
        raise TypeError(f"function: the TraceType {tt!r} of a {type(x).__name__} argument must be hashable") from None
    return tt


def _key(canonical: tuple):
    variables: dict = {}
    return tuple(_trace_type(v, variables) for v in canonical)


class _Binder:
    """Binds a call's arguments to the Python signature: ``canonical(args, kwargs)`` is the tuple of
    parameter values (defaults applied, ``*args`` as a tuple, ``**kwargs`` as a dict)."""

    def __init__(self, fn, input_signature):
        try:
            self.signature = inspect.signature(fn)
        except (TypeError, ValueError):
            self.signature = None
        self.params = list(self.signature.parameters.values()) if self.signature is not None else []
        self.input_signature = input_signature
        # (a call that passes every parameter positionally is its own canonical form: the fast path)
        self.simple = (self.signature is not None and input_signature is None
                       and all(p.kind is p.POSITIONAL_OR_KEYWORD for p in self.params))
        self.n = len(self.params)
        if input_signature is not None and self.signature is not None:
            self._check_covered()

    def _check_covered(self):
        n = len(self.input_signature)
        k = 0
        for p in self.params:
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                if k >= n and p.default is p.empty:
                    raise TypeError(f"function: input_signature missing type constraint for parameter '{p.name}' "
                                    f"(the signature has {n} TensorSpec(s); a parameter beyond them needs a default)")
                k += 1
            elif p.kind is p.VAR_POSITIONAL:
                k = n
            elif p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) and p.kind is p.KEYWORD_ONLY and p.default is p.empty:
                raise TypeError(f"function: input_signature missing type constraint for parameter '{p.name}'")

    def canonical(self, args, kwargs) -> tuple:
        if self.signature is None:
            return tuple(args) + ((dict(kwargs),) if kwargs else ())
        ba = self.signature.bind(*args, **kwargs)
        ba.apply_defaults()
        out = []
        for p in self.params:
            v = ba.arguments.get(p.name, () if p.kind is p.VAR_POSITIONAL else {} if p.kind is p.VAR_KEYWORD else None)
            if p.kind is p.VAR_KEYWORD:
                v = dict(sorted(v.items()))
            out.append(v)
        return tuple(out)

    def call_args(self, canonical):
        """``(args, kwargs)`` that call the Python function with these parameter values."""
        if self.signature is None:
            if canonical and isinstance(canonical[-1], dict):
                return list(canonical[:-1]), canonical[-1]
            return list(canonical), {}
        args, kwargs = [], {}
        for p, v in zip(self.params, canonical):
            if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                args.append(v)
            elif p.kind is p.VAR_POSITIONAL:
                args.extend(v)
            elif p.kind is p.KEYWORD_ONLY:
                kwargs[p.name] = v
            else:
                kwargs.update(v)
        return args, kwargs

    def apply_signature(self, canonical, *, specs_ok=False) -> tuple:
        """The parameter values with the input_signature's parts converted and checked (TypeError)."""
        sig = self.input_signature
        if sig is None:
            return canonical
        out = list(canonical)
        k = 0
        for i, p in enumerate(self.params if self.signature is not None else [None] * len(out)):
            if p is not None and p.kind is p.VAR_POSITIONAL:
                values = list(out[i])
                if len(values) > len(sig) - k:
                    raise TypeError(f"Binding inputs to function failed due to `too many positional arguments` "
                                    f"(the input_signature has {len(sig)} TensorSpec(s))")
                out[i] = tuple(_conform(v, sig[k + j], specs_ok) for j, v in enumerate(values))
                k = len(sig)
                continue
            if p is not None and p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                continue
            if k < len(sig):
                out[i] = _conform(out[i], sig[k], specs_ok)
            k += 1
        return tuple(out)


def _conform(value, spec, specs_ok):
    """``value`` converted to match the (nested) ``spec``; TypeError as TF's when it cannot."""
    if isinstance(spec, (list, tuple)) and not _is_spec(spec):
        if not isinstance(value, (list, tuple)) or isinstance(value, tuple) != isinstance(spec, tuple):
            raise TypeError(f"Binding inputs to function failed due to `Can not cast {value!r} to "
                            f"{type(spec).__name__} type.`")
        if len(value) != len(spec):
            raise TypeError(f"Binding inputs to function failed due to `Can not cast {value!r}: its length "
                            f"{len(value)} differs from the signature's {len(spec)}`")
        items = [_conform(v, s, specs_ok) for v, s in zip(value, spec)]
        return type(value)(*items) if hasattr(type(value), "_fields") else type(value)(items)
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError(f"Binding inputs to function failed due to `{value!r} has different keys with the "
                            f"signature {spec!r}.`")
        return type(value)((k, _conform(value[k], spec[k], specs_ok)) for k in value)
    if specs_ok and _is_spec(value):
        if not spec.is_compatible_with(value):
            raise TypeError(f"Binding inputs to function failed due to `Can not cast {value!r} to {spec!r}`")
        return value
    if isinstance(value, Variable):
        if not spec.is_compatible_with(value):
            raise TypeError(f"Binding inputs to function failed due to `Can not cast {_spec_text(value)} to "
                            f"{spec!r}`")
        return value
    if not isinstance(value, ArrayLike):
        try:
            value = convert_to_tensor(value, dtype=spec.dtype)
        except (TypeError, ValueError) as e:
            raise TypeError(f"Binding inputs to function failed due to `Can not cast {value!r} to {spec!r}`: "
                            f"{e}") from None
    if not spec.is_compatible_with(value):
        raise TypeError(f"Binding inputs to function failed due to `Can not cast {_spec_text(value)} to {spec!r}`")
    return value


def _spec_text(value) -> str:
    return f"TensorSpec(shape={tuple(value.shape)}, dtype={value.dtype.name}, name=None)"


# ====================================================================== Function
class Function:
    """A compiled Python function: what ``descend.function`` returns (TF's ``tf.function`` object)."""

    def __init__(self, python_function, *, input_signature=None, autograph=True, jit_compile=None,
                 reduce_retracing=False, _instance=None):
        self._python_function = python_function
        self.input_signature = input_signature
        self._autograph = autograph
        self._jit_compile = jit_compile
        self._reduce_retracing = reduce_retracing
        self._instance = _instance           # weakref of the instance of a bound method
        self._bound: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._bound_strong: dict = {}        # instances that cannot be weakly referenced
        self._converted = None
        self._binder = None
        self._cache: dict = {}               # signature key -> ConcreteFunction
        self._fast: dict = {}                # _fast_key of a plain call -> ConcreteFunction
        self._relaxed: dict = {}             # signature key -> ConcreteFunction of TensorSpecs with None dimensions
        self._families: list = []            # _Family: traces that serve several shapes (None dimensions)
        self._template = None                # the _Family input_signature's None dimensions make (or False)
        self._tracing_count = 0
        self._traced_once = False            # a trace has completed (Variables may be created only before)
        self._lock = threading.RLock()
        functools.update_wrapper(self, python_function)
        self.__wrapped__ = python_function

    # ------------------------------------------------------------------ methods
    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = self._bound_strong.get(id(instance))
        if bound is None:
            try:
                ref = weakref.ref(instance)
            except TypeError:
                ref = (lambda obj: (lambda: obj))(instance)
            bound = Function(self._python_function, input_signature=self.input_signature, autograph=self._autograph,
                             jit_compile=self._jit_compile, reduce_retracing=self._reduce_retracing, _instance=ref)
            try:
                self._bound[instance] = bound
            except TypeError:
                self._bound_strong[id(instance)] = bound
        return bound

    def _target(self):
        """The Python function to call (bound to its instance for a method)."""
        fn = self._python_function
        if self._instance is not None:
            obj = self._instance()
            if obj is None:
                raise ReferenceError("descend.function: the instance this method was bound to no longer exists")
            return types.MethodType(fn, obj)
        return fn

    def _traced_target(self):
        """What a trace runs: the AutoGraph-converted function when ``autograph`` (else the function)."""
        fn = self._python_function
        if self._autograph:
            if self._converted is None:
                from .autograph import convert

                self._converted = convert(fn)
            fn = self._converted
        if self._instance is not None:
            return types.MethodType(fn, self._instance())
        return fn

    def _get_binder(self) -> _Binder:
        if self._binder is None:
            self._binder = _Binder(self._target(), self.input_signature)
        return self._binder

    # ------------------------------------------------------------------ calling
    @property
    def python_function(self):
        """The Python function this compiles (called directly, it runs eagerly with its side effects)."""
        return self._target() if self._instance is not None else self._python_function

    def __call__(self, *args, **kwargs):
        if _eager():
            if self.input_signature is None:
                return self._target()(*args, **kwargs)
            binder = self._get_binder()  # the signature's conversions and checks still apply
            call_args, call_kwargs = binder.call_args(binder.apply_signature(binder.canonical(args, kwargs)))
            return self._target()(*call_args, **call_kwargs)
        if not kwargs and self._fast:
            key = _fast_key(args)
            if key is not None:
                cf = self._fast.get(key)
                if cf is not None:
                    return cf._call_flat(_fast_inputs(args), (), args, kwargs)
        binder = self._get_binder()
        canonical = binder.apply_signature(binder.canonical(args, kwargs))
        key = _key(canonical)
        cf = self._cache.get(key)
        if cf is None:
            with self._lock:
                cf = self._cache.get(key)
                if cf is None:
                    family = self._family_for(key)
                    if family is not None and family.serves() and _trace.current() is None:
                        return self._respecialize(family, key, canonical)[1]
                    return self._trace(key, canonical, dry=False, family=family)[1]
        flat, var_args = _flat_inputs(canonical)
        if binder.simple and cf.eager is None:
            fk = _fast_key(args) if not kwargs else None
            if fk is not None and len(args) == binder.n:
                self._fast[fk] = cf
        return cf._call_flat(flat, var_args, args, kwargs)

    def _trace(self, key, canonical, dry: bool, family=None):
        """Trace (an eager call that records); ``(ConcreteFunction, the call's result)``. With a
        :class:`_Family` that has no trace yet, the trace is to serve its shapes: it notes whether its
        Python reads a shape."""
        binder = self._get_binder()
        parent = _trace.current()
        if parent is not None and (not isinstance(parent, Recorder) or parent.invalid is not None or parent.paused):
            parent = None
        graph = Graph(getattr(self._python_function, "__name__", "function"))
        rec = Recorder(graph, parent=parent, dry=dry)
        rec.frozen = self._traced_once  # Variables may be created on the first trace only (TF's ValueError)
        if family is not None and family.cf is None:
            rec.watch_shapes = True
        structure = list(canonical)
        leaves, rebuild = nest.flatten(structure), functools.partial(nest.pack_like, structure)
        new_leaves = []
        for x, name in zip(leaves, _leaf_names(binder, canonical)):
            if isinstance(x, Variable):
                rec.add_variable_argument(x)
                new_leaves.append(x)
            elif isinstance(x, (ArrayLike, np.ndarray)) or _is_spec(x):
                new_leaves.append(_placeholder(rec, graph, x))
                graph.input_names.append(name)
            elif isinstance(x, IndexedSlices):
                new_leaves.append(IndexedSlices(_placeholder(rec, graph, x.values), _placeholder(rec, graph, x.indices),
                                                x.dense_shape))
                graph.input_names += [f"{name}_values", f"{name}_indices"]
            elif hasattr(type(x), "__tf_tracing_type__"):  # the trace runs with the type's placeholder value
                new_leaves.append(_tracing_type(x).placeholder_value(TracingContext()))
            else:
                new_leaves.append(x)
        graph.n_var_args = len(rec.var_list)
        if family is not None and family.cf is None:  # the user's code sees the family's shapes (None dimensions)
            placeholders = [t for x, t in zip(leaves, new_leaves) if isinstance(x, (ArrayLike, np.ndarray))
                            and not isinstance(x, Variable) or _is_spec(x)]
            for t, shape in zip(placeholders, family.shapes):
                if shape is not None and _fits(tuple(t._value.shape), shape):
                    rec.relaxed[id(t)] = shape
        args, kwargs = binder.call_args(tuple(rebuild(new_leaves)))
        target = self._traced_target()
        self._tracing_count += 1
        _note_trace(self._python_function)
        snapshot = _containers(args, kwargs)
        with rec:
            out = _python_call(target, args, kwargs)
        _check_unmodified(snapshot, graph.name)
        first = not self._traced_once
        self._traced_once = True
        if rec.created and not first:
            raise ValueError(
                f"{SINGLETON_VARIABLES} (function '{graph.name}' created {', '.join(repr(v.name) for v in rec.created)} on a later trace)")
        if rec.created:
            _check_kept(rec)
        cf = ConcreteFunction(self, graph, rec, canonical, key, out)
        if rec.invalid is None:
            out = _eager_outputs(out, nested=parent is not None)
            if parent is None:
                trace_local.update((id(t), t) for t in rec.keep if isinstance(t, Tensor)
                                   and rec.values[id(t)].const is None)
        if cf.eager is not None:
            warnings.warn(f"descend.function '{graph.name}' runs eagerly for this input signature: "
                          f"{cf.eager}. Its Python runs on every call (print and other side effects included).",
                          FunctionEagerWarning, stacklevel=3)
        self._cache[key] = cf
        if family is not None and family.cf is None and not dry:
            family.cf, family.shape_free = cf, not rec.shape_read
        return cf, out

    # ------------------------------------------------------------------ traces that serve several shapes
    def _family_for(self, key):
        """The :class:`_Family` whose shapes ``key`` has, or a new one (TF's rules: the None dimensions
        of ``input_signature``; with ``reduce_retracing``, the dimensions in which this call differs
        from an earlier trace's); None when the call takes a trace of its own shapes."""
        for f in self._families:
            if f.admits(key):
                return f
        if self._template is None:
            self._template = self._signature_family() or False
        if self._template and self._template.admits(key):
            return self._template
        if not self._reduce_retracing:
            return None
        for known in list(self._cache):
            shapes = _generalize(known, key)
            if shapes is not None:
                f = _Family(_strip_tensor_shapes(key), shapes)
                self._families.append(f)
                return f
        return None

    def _signature_family(self):
        if self.input_signature is None:
            return None
        try:
            binder = self._get_binder()
            canonical = binder.apply_signature(binder.canonical(tuple(self.input_signature), {}), specs_ok=True)
        except TypeError:
            return None
        key = _key(canonical)
        shapes = [k[1] for k in _key_leaves(key) if k[0] == "T"]
        if not any(s is None or None in s for s in shapes):
            return None
        f = _Family(_strip_tensor_shapes(key), shapes)
        self._families.append(f)
        return f

    def _respecialize(self, family, key, canonical):
        """The family's trace made for this call's shapes without running the Python function: its
        graph replayed on this call's values, recorded (the call's results and writes are the replay's,
        as a trace's are the Python's). Not counted as a trace (TF: no retrace)."""
        source = family.cf
        binder = self._get_binder()
        graph = Graph(source.graph.name)
        rec = Recorder(graph)
        leaves = nest.flatten(list(canonical))
        flat = []
        for x, name in zip(leaves, _leaf_names(binder, canonical)):
            if isinstance(x, Variable):
                rec.add_variable_argument(x)
            elif isinstance(x, (ArrayLike, np.ndarray)):
                flat.append(_placeholder(rec, graph, x))
                graph.input_names.append(name)
            elif isinstance(x, IndexedSlices):
                flat += [_placeholder(rec, graph, x.values), _placeholder(rec, graph, x.indices)]
                graph.input_names += [f"{name}_values", f"{name}_indices"]
        graph.n_var_args = len(rec.var_list)
        with rec:
            outs = replay(source.graph, flat, rec.var_list)
        out = source._rebuild_outputs(outs)
        cf = ConcreteFunction(self, graph, rec, canonical, key, out)
        if rec.invalid is None:
            out = _eager_outputs(out, nested=False)
            trace_local.update((id(t), t) for t in rec.keep if isinstance(t, Tensor) and rec.values[id(t)].const is None)
        self._cache[key] = cf
        return cf, out

    # ------------------------------------------------------------------ TF's introspection
    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The ConcreteFunction for these arguments (Tensors, TensorSpecs or Python values), traced
        without running it (a *dry* trace: no Variable write, print or optimizer update happens).

        With an ``input_signature`` and no arguments, the signature's. TensorSpecs with ``None``
        dimensions give a :class:`ConcreteFunction` that traces each concrete shape when called."""
        binder = self._get_binder()
        if not args and not kwargs and self.input_signature is not None:
            args = tuple(self.input_signature)
        canonical = binder.apply_signature(binder.canonical(args, kwargs), specs_ok=True)
        leaves = nest.flatten(list(canonical))
        key = _key(canonical)
        if any(_is_spec(x) and (x.shape is None or None in x.shape) for x in leaves):
            with self._lock:
                cf = self._relaxed.get(key)
                if cf is None:
                    cf = self._relaxed[key] = ConcreteFunction(self, None, None, canonical, key, None)
                    if not any(f.admits(key) for f in self._families):  # calls it fits share a trace (TF's)
                        shapes = [k[1] for k in _key_leaves(key) if k[0] == "T"]
                        self._families.append(_Family(_strip_tensor_shapes(key), shapes))
            return cf
        with self._lock:
            cf = self._cache.get(key)
            if cf is None:
                cf = self._trace(key, canonical, dry=True)[0]
        return cf

    def experimental_get_tracing_count(self) -> int:
        """How many times the Python function was traced (for a method: on this instance)."""
        return self._tracing_count

    def clear_cache(self) -> None:
        """Forget every trace (the next call traces again; its count starts from 0)."""
        with self._lock:
            self._cache.clear()
            self._fast.clear()
            self._relaxed.clear()
            self._families.clear()
            self._template = None
            self._tracing_count = 0
            self._traced_once = False
            for b in list(self._bound.values()) + list(self._bound_strong.values()):
                b.clear_cache()

    def _list_all_concrete_functions(self) -> list:
        return list(self._cache.values())

    def pretty_printed_concrete_signatures(self, verbose: bool = True) -> str:
        """The signature of every trace (:meth:`ConcreteFunction.pretty_printed_signature`), in the order
        they were traced, separated by blank lines."""
        return "\n\n".join(cf.pretty_printed_signature(verbose) for cf in self._list_all_concrete_functions())

    def __repr__(self):
        return f"<descend.function {getattr(self._python_function, '__qualname__', self._python_function)}>"


def _note_trace(fn) -> None:
    """TF's warning when one Python function is traced again and again (not for a function that says it is
    made anew for each object it serves, as ``fit``'s steps are for each model: ``descend_traced_per_owner``)."""
    if getattr(fn, "descend_traced_per_owner", False):
        return
    code = getattr(fn, "__code__", fn)
    try:
        count, said = _traces_by_code.get(code, (0, 0))
    except TypeError:
        return
    count += 1
    if count % RETRACE_WARNING_AFTER == 0 and said < RETRACE_WARNINGS_MAX:
        said += 1
        log.warning("%d traces of descend.function '%s': Tracing is expensive, and a compiled function traced for "
                    "every call runs slower than eager code. Usual causes: calls with Python numbers or objects "
                    "that change (pass Tensors), new shapes (descend traces each concrete shape), a function "
                    "defined again inside a loop.", count, getattr(fn, "__qualname__", fn))
    _traces_by_code[code] = (count, said)


def _containers(args, kwargs) -> list:
    """The lists and dicts of the arguments (nested), each with a shallow copy of what it holds."""
    top = [list(args), dict(kwargs)]
    out, stack, seen = [], list(top), {id(t) for t in top}
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            items = list(x.values())
        elif isinstance(x, (list, tuple)):
            items = list(x)
        else:
            continue
        for y in items:
            if isinstance(y, (list, dict, tuple)) and id(y) not in seen:
                seen.add(id(y))
                if isinstance(y, dict):
                    out.append((y, list(y.items())))
                elif isinstance(y, list):
                    out.append((y, list(y)))
                stack.append(y)
    return out


def _check_unmodified(snapshot, name) -> None:
    for container, before in snapshot:
        now = list(container.items()) if isinstance(container, dict) else list(container)
        if len(now) != len(before) or any(a is not b and not (isinstance(a, tuple) and a[0] == b[0] and a[1] is b[1])
                                          for a, b in zip(now, before)):
            raise ValueError(f"{name}() should not modify its Python input arguments. Check if it modifies any "
                             "lists or dicts passed as arguments. Modifying a copy is allowed.")


_NUMBERS = (bool, int, float, complex, np.number, np.bool_)


def _eager_outputs(out, nested: bool):
    """The trace call's result as later calls give it: new Tensors (the trace's own stay inside it; not
    inside an enclosing trace, which records the inner function inline), a returned Variable as a Tensor
    of its value, Python numbers as Tensors (as TF returns them)."""
    leaves, rebuild = nest.flatten(out), functools.partial(nest.pack_like, out)
    recording = _tape.recording()
    if recording:
        from ..ops.math_ops import identity
    new = []
    for x in leaves:
        if isinstance(x, Variable):
            x = x.read_value()
        elif isinstance(x, Tensor) and not nested:
            x = identity(x) if recording else Tensor(x._value)
        elif isinstance(x, IndexedSlices) and not nested:
            x = IndexedSlices(Tensor(x.values._value), Tensor(x.indices._value), x.dense_shape)
        elif isinstance(x, _NUMBERS):
            x = convert_to_tensor(x)
        new.append(x)
    return rebuild(new)


_FAST_SCALARS = frozenset({type(None), bool, int, float, str})


def _fast_key(args):
    """A key for a call whose arguments are Tensors, arrays, Python scalars (None, bool, int, float, str) and
    (nested) tuples of scalars, that tells apart what the signature key tells apart (shape and dtype; type and
    value); None for any other call."""
    out = []
    for a in args:
        t = type(a)
        if t is Tensor:
            v = a._value
            out.append((v.shape, v.dtype))
        elif t is np.ndarray:
            out.append((a.shape, a.dtype))
        elif t in _FAST_SCALARS:
            out.append((t, a))
        elif t is tuple:
            k = _fast_tuple(a)
            if k is None:
                return None
            out.append(k)
        else:
            return None
    return tuple(out)


def _fast_tuple(a: tuple):
    """:func:`_fast_key`'s part for a tuple of scalars and such tuples (fit's trace key: ids of the optimizer,
    the loss and the weights), or None."""
    types = tuple(map(type, a))
    if _FAST_SCALARS.issuperset(types):
        return (tuple, types, a)
    parts = []
    for x, t in zip(a, types):
        if t in _FAST_SCALARS:
            parts.append((t, x))
        elif t is tuple and (k := _fast_tuple(x)) is not None:
            parts.append(k)
        else:
            return None
    return (tuple, tuple(parts))


def _fast_inputs(args) -> list:
    """The flat Tensor inputs of a call :func:`_fast_key` accepted (its Tensors and arrays, in order)."""
    return [Tensor(a) if type(a) is np.ndarray else a for a in args if type(a) is Tensor or type(a) is np.ndarray]


def _placeholder(rec: Recorder, graph: Graph, x) -> Tensor:
    """A new Tensor standing for the argument leaf ``x`` (a Tensor, array or TensorSpec) in the trace: a
    placeholder of ``graph``, and in an enclosing trace the value ``x`` is there."""
    arr = x._value if isinstance(x, ArrayLike) else x if isinstance(x, np.ndarray) else _placeholder_array(x)
    if isinstance(x, ArrayLike) and _tape.recording():
        from ..ops.math_ops import identity

        w = identity(x)  # a new Tensor a recording tape links to ``x`` (gradients flow through the trace call)
    else:
        w = Tensor(arr)
    v = Value(arr.shape, arr.dtype)
    graph.inputs.append(v)
    rec.register(w, v)
    for pr in list(rec.chain())[1:]:
        if pr.invalid is None and id(w) not in pr.values:
            pr.register(w, pr.ref(x) if isinstance(x, ArrayLike) else Value(arr.shape, arr.dtype, const=arr))
    return w


def _placeholder_array(spec) -> np.ndarray:
    return np.zeros(tuple(spec.shape), backend.np_dtype(spec.dtype))


def _flat_inputs(canonical) -> tuple[list, list]:
    """The call's Tensor leaves (arrays become Tensors) and its Variable arguments (each once)."""
    leaves = nest.flatten(list(canonical))
    flat, var_args, seen = [], [], set()
    for x in leaves:
        if isinstance(x, Variable):
            if id(x) not in seen:
                seen.add(id(x))
                var_args.append(x)
        elif isinstance(x, ArrayLike):
            flat.append(x)
        elif isinstance(x, np.ndarray):
            flat.append(Tensor(x))
        elif isinstance(x, IndexedSlices):
            flat.append(x.values)
            flat.append(x.indices)
    return flat, var_args


def _check_kept(rec: Recorder) -> None:
    """TF's rule for Variables created in a trace: they must outlive it (stored by the function, a layer, a
    list...); one only the trace holds would be created again on every call."""
    ours = {id(rec.created), id(rec.graph.variables), id(rec.graph), id(rec)}
    for var in rec.created:
        held = [r for r in gc.get_referrers(var) if id(r) not in ours and not isinstance(r, (VarRef, types.FrameType))]
        if not held:
            raise ValueError(
                f"{SINGLETON_VARIABLES} (Variable '{var.name}' is created by the function and kept by nothing, so "
                "it would be created on every call)")


# ====================================================================== ConcreteFunction
class ConcreteFunction:
    """One trace of a :class:`Function`: its graph, and the compiled plan that runs it.

    Call it with the arguments of its trace (Tensors of the traced shapes and dtypes, the same Python
    values). A ConcreteFunction from TensorSpecs with ``None`` dimensions (``graph`` is None) checks a
    call against them; its first call traces, and that trace serves the other shapes it fits (see the
    module docstring).
    """

    def __init__(self, function: Function, graph: Graph | None, rec: Recorder | None, canonical, key, out):
        self._function = weakref.ref(function)  # (the Function holds its ConcreteFunctions: no cycle)
        # ... and what makes it again once it is gone: a ConcreteFunction keeps working without it, as TF's
        self._remake = (function._python_function, dict(
            input_signature=function.input_signature, autograph=function._autograph,
            jit_compile=function._jit_compile, reduce_retracing=function._reduce_retracing,
            _instance=function._instance))
        self._remade = None
        self.graph = graph
        self._key = key
        self._canonical = canonical
        self.eager = None if rec is None else rec.invalid
        self._plan = None
        self._plan_failed = None
        self._lock = threading.Lock()
        self._specs = tuple(canonical)
        if graph is None:
            self._out_rebuild = None
            self._one_tensor = False
            return
        self.variables_created = list(rec.created)
        leaves, rebuild = nest.flatten(out), functools.partial(nest.pack_like, out)
        self._out_rebuild = rebuild
        self._out_kinds = []
        refs = []
        for x in leaves:
            if self.eager is not None:
                break
            if isinstance(x, Variable):
                refs.append(rec.var_ref(x))
                self._out_kinds.append("var")
            elif isinstance(x, ArrayLike):
                refs.append(rec.ref(x))
                self._out_kinds.append("tensor")
            elif isinstance(x, IndexedSlices):
                refs.append(rec.ref(x.values))
                refs.append(rec.ref(x.indices))
                self._out_kinds.append(("slices", x.dense_shape))
            else:
                refs.append(Lit(x))
                self._out_kinds.append("python")
        graph.outputs = refs
        self._out_structure = nest.structure_of(out)
        # the result is one Tensor (not inside a list, tuple or dict): _finish hands it back as it is
        self._one_tensor = self._out_kinds == ["tensor"] and self._out_structure is None
        self._outer_capture = getattr(graph, "outer_capture", False)

    @property
    def function(self) -> Function:
        """The :class:`Function` this was traced from (made again, with no trace, when that one is gone:
        as TF's, a ConcreteFunction outlives the function object; Variables cannot be created by it)."""
        f = self._function()
        if f is None:
            f = self._remade
            if f is None:
                fn, options = self._remake
                f = Function(fn, **options)
                f._traced_once = True
                self._remade = f
        return f

    # ------------------------------------------------------------------ TF's attributes
    @property
    def structured_input_signature(self):
        from ..tensor_spec import TensorSpec

        def spec(x, name, given):  # as TF: each Tensor's spec named by its input_signature's spec, else by its
            if given is not None:   # parameter (and its place in it)
                name = given
            if isinstance(x, ArrayLike) and not isinstance(x, Variable):
                return TensorSpec(tuple(x.shape), x.dtype, name)
            if isinstance(x, np.ndarray):
                return TensorSpec(x.shape, x.dtype, name)
            if _is_spec(x) and x.name is None:
                return TensorSpec(x.shape, x.dtype, name)
            return x

        structure = list(self._specs)
        leaves, rebuild = nest.flatten(structure), functools.partial(nest.pack_like, structure)
        binder = self.function._get_binder()
        names = _leaf_names(binder, self._specs)
        given = self._signature_names()
        args, kwargs = binder.call_args(tuple(rebuild([spec(x, n, g) for x, n, g in zip(leaves, names, given)])))
        return tuple(args), kwargs

    def _signature_names(self) -> list:
        """Per leaf of the trace's arguments: the name the function's ``input_signature`` gives it (None where
        none does), whichever call made the trace (a call's Tensors carry no name)."""
        signature = self.function.input_signature
        out = []
        for k, value in enumerate(self._specs):
            leaves = nest.flatten([value])
            specs = nest.flatten([signature[k]]) if signature is not None and k < len(signature) else []
            if len(specs) == len(leaves):
                out += [getattr(x, "name", None) if _is_spec(x) else None for x in specs]
            else:
                out += [None] * len(leaves)
        return out

    def _named_specs(self) -> tuple:
        """The trace's arguments, each Tensor as the TensorSpec its input_signature names (as it is elsewhere)."""
        from ..tensor_spec import TensorSpec

        structure = list(self._specs)
        leaves, rebuild = nest.flatten(structure), functools.partial(nest.pack_like, structure)
        out = []
        for x, given in zip(leaves, self._signature_names()):
            if given is not None and isinstance(x, (ArrayLike, np.ndarray)) and not isinstance(x, Variable):
                x = TensorSpec(tuple(x.shape), x.dtype, given)
            elif given is not None and _is_spec(x) and x.name is None:
                x = TensorSpec(x.shape, x.dtype, given)
            out.append(x)
        return tuple(rebuild(out))

    @property
    def function_type(self) -> inspect.Signature:
        """The parameters and what they take, and the output, as TF's ``FunctionType`` (an
        ``inspect.Signature``): ``(a: TensorSpec(shape=(), dtype=float32, name=None), b: Literal[2])
        -> TensorSpec(...)``."""
        binder = self.function._get_binder()
        params = []
        specs = self._named_specs()
        if binder.signature is None:
            for k, v in enumerate(specs):
                params.append(inspect.Parameter(f"arg_{k}", inspect.Parameter.POSITIONAL_ONLY,
                                                annotation=_TypeText(_type_text(v))))
        else:
            for p, v in zip(binder.params, specs):
                params.append(p.replace(default=inspect.Parameter.empty, annotation=_TypeText(_type_text(v))))
        return inspect.Signature(params, return_annotation=_TypeText(self._output_text()))

    def _output_text(self) -> str:
        if self.graph is None:
            return "Unknown (this ConcreteFunction traces each concrete shape it is called with)"
        if self.eager is not None:
            return "Unknown (this trace runs eagerly)"
        from ..tensor_spec import TensorSpec

        leaves = []
        it = iter(self.graph.outputs)
        for kind in self._out_kinds:
            r = next(it)
            if kind == "tensor":
                leaves.append(TensorSpec(r.shape, r.dtype) if isinstance(r, Value) else _Any("Tensor"))
            elif kind == "var":
                var = r.var
                leaves.append(TensorSpec(var.shape, var.dtype) if var is not None else _Any("Tensor"))
            elif kind == "python":
                leaves.append(r.value if r.value is None else convert_to_tensor(r.value))
            else:
                next(it)
                leaves.append(_Any(f"IndexedSlicesSpec(dense_shape={kind[1]})"))
        return _type_text(self._out_rebuild(leaves), literal_none=False)

    def pretty_printed_signature(self, verbose: bool = True) -> str:
        """TF's listing of this trace: its input parameters (name, kind, type), output type and captures
        (the Variables it reads or writes that are not arguments)."""
        ft = self.function_type
        lines = ["Input Parameters:"]
        lines += [f"  {p.name} ({p.kind.name}): {p.annotation!r}" for p in ft.parameters.values()]
        lines += ["Output Type:", f"  {ft.return_annotation!r}", "Captures:"]
        captured = [] if self.graph is None else self.graph.all_variables()
        lines += [f"  {v.scoped_name}: VariableSpec(shape={tuple(v.shape)}, dtype={v.dtype.name})" for v in captured] or ["  None"]
        return "\n".join(lines)

    def __str__(self):
        return "ConcreteFunction " + self.pretty_printed_signature()

    @property
    def output_shapes(self):
        return self._output_meta(lambda v: v.shape)

    @property
    def output_dtypes(self):
        return self._output_meta(lambda v: backend.dtype_of(v.dtype))

    def _output_meta(self, get):
        if self.graph is None or self.eager is not None:
            return None
        vals = []
        it = iter(self.graph.outputs)
        for kind in self._out_kinds:
            r = next(it)
            if kind == "tensor":
                vals.append(get(r) if isinstance(r, Value) else None)
            elif kind == "var":
                vals.append(get(Value(r.var._value.shape, r.var._value.dtype)) if r.var is not None else None)
            elif kind == "python":
                vals.append(None if r.value is None else r.value)
            else:
                next(it)
                vals.append(None)
        return self._out_rebuild(vals)

    @property
    def variables(self) -> tuple:
        """The Variables the trace reads or writes (captured ones and Variable arguments)."""
        if self.graph is None:
            return ()
        return tuple(self.graph.all_variables())

    @property
    def trainable_variables(self) -> tuple:
        return tuple(v for v in self.variables if v.trainable)

    # ------------------------------------------------------------------ calling
    def __call__(self, *args, **kwargs):
        f = self.function
        binder = f._get_binder()
        try:
            canonical = self._bind(binder, args, kwargs)
        except TypeError as e:
            canonical = self._flat(args, kwargs)  # TF's flat signature: the trace's Tensors, in order
            if canonical is None:
                raise TypeError(f"Binding inputs to function failed due to `{e}`") from None
        if self.graph is None:  # from TensorSpecs with None dimensions
            leaves_s = nest.flatten(list(self._specs))
            leaves = nest.flatten(list(canonical))
            if len(leaves) != len(leaves_s):
                raise TypeError("Binding inputs to function failed: the arguments do not have the structure of "
                                "the signature")
            for k, (a, s) in enumerate(zip(leaves, leaves_s)):
                if _is_spec(s) and not s.is_compatible_with(a):
                    if (isinstance(a, ArrayLike) and _with_dtype(s, a.dtype).is_compatible_with(a)
                            and _trace.current() is None):
                        raise _dtype_error(self, k, s.dtype, a.dtype)
                    raise TypeError(f"Binding inputs to function failed due to `Can not cast "
                                    f"{_spec_text(a) if isinstance(a, ArrayLike) else repr(a)} to {s!r}`")
                if not _is_spec(s) and not _holds_tensors(s) and not _same_value(a, s):
                    raise TypeError(f"Binding inputs to function failed due to `Can not cast {a!r} to "
                                    f"Literal[{s!r}]`: this ConcreteFunction was traced with that Python value")
            call_args, call_kwargs = binder.call_args(canonical)
            return f(*call_args, **call_kwargs)
        key = _key(canonical)
        if key != self._key:
            flat = self._flat(args, kwargs)  # TF's flat signature: the trace's Tensors, in order
            if flat is not None:
                canonical, key = flat, _key(flat)
        if key != self._key:
            if (_trace.current() is None and _strip(key, shape=True, dtype=True) == _strip(self._key, shape=True, dtype=True)
                    and _strip(key, shape=False, dtype=True) != key):
                # another dtype where the trace had a Tensor: TF's kernel refuses it
                got = _key_leaves(key)
                want = _key_leaves(self._key)
                for k, (g, w) in enumerate(zip(got, want)):
                    if g[2] != w[2]:
                        raise _dtype_error(self, k, np.dtype(w[2]), np.dtype(g[2]))
            if _shapeless(key) == _shapeless(self._key) and _trace.current() is None:
                # called from eager code with other shapes: as TF's (no shape check there), run that shape's trace
                call_args, call_kwargs = binder.call_args(canonical)
                return f(*call_args, **call_kwargs)
            raise TypeError(f"Binding inputs to function failed due to `Can not cast the arguments "
                            f"({_describe_key(key)}) to this ConcreteFunction's ({_describe_key(self._key)})`")
        flat, var_args = _flat_inputs(canonical)
        call_args, call_kwargs = binder.call_args(canonical)
        return self._call_flat(flat, var_args, call_args, call_kwargs)

    def _flat(self, args, kwargs):
        """The parameter values of a call that passes the trace's Tensor arguments flat, or None."""
        if self.graph is None or kwargs or not all(isinstance(a, ArrayLike) and not isinstance(a, Variable)
                                                   for a in args):
            return None
        structure = list(self._canonical)
        leaves, rebuild = nest.flatten(structure), functools.partial(nest.pack_like, structure)
        slots = [k for k, x in enumerate(leaves) if isinstance(x, (ArrayLike, np.ndarray)) and not isinstance(x, Variable)]
        if len(slots) != len(args) or any(tuple(a.shape) != tuple(leaves[k].shape) or a.dtype != leaves[k].dtype
                                          for a, k in zip(args, slots)):
            return None
        for a, k in zip(args, slots):
            leaves[k] = a
        return tuple(rebuild(leaves))

    def _bind(self, binder, args, kwargs) -> tuple:
        """The parameter values of a call: a parameter that was a Python value in the trace may be left out
        (it is taken from the trace); Python numbers where the trace had Tensors become Tensors of the
        traced dtype. TypeError (inspect's wording) for a call the trace does not take."""
        traced = list(self._canonical)
        if binder.signature is None:
            return tuple(_like(v, w) for v, w in zip(binder.canonical(args, kwargs), traced))
        ba = binder.signature.bind_partial(*args, **kwargs)
        out = []
        for k, p in enumerate(binder.params):
            was = traced[k]
            if p.kind is p.VAR_POSITIONAL:
                given = tuple(ba.arguments.get(p.name, ()))
                if len(given) > len(was):
                    raise TypeError("too many positional arguments")
                if len(given) < len(was):
                    if _holds_tensors(was[len(given):]):
                        raise TypeError(f"missing a required argument: '{p.name}_{len(given)}'")
                    given = given + tuple(was[len(given):])
                out.append(tuple(_like(v, w) for v, w in zip(given, was)))
            elif p.kind is p.VAR_KEYWORD:
                given = dict(ba.arguments.get(p.name, {}))
                extra = sorted(set(given) - set(was))
                if extra:
                    raise TypeError(f"got an unexpected keyword argument '{extra[0]}'")
                for name in set(was) - set(given):
                    if _holds_tensors(was[name]):
                        raise TypeError(f"missing a required argument: '{name}'")
                    given[name] = was[name]
                out.append(dict(sorted((n, _like(v, was[n])) for n, v in given.items())))
            elif p.name in ba.arguments:
                out.append(_like(ba.arguments[p.name], was))
            elif not _holds_tensors(was):
                out.append(was)
            else:
                raise TypeError(f"missing a required argument: '{p.name}'")
        return binder.apply_signature(tuple(out))

    def _call_flat(self, flat: list, var_args, args, kwargs):
        if self.eager is not None:
            return _python_call(self.function._target(), args, kwargs)
        recorder = _trace.current()
        tracing = recorder is not None and isinstance(recorder, Recorder) and recorder.invalid is None
        if self._outer_capture and not tracing:
            raise TypeError(f"descend.function '{self.graph.name}' reads a Tensor that an enclosing function computed "
                            "while it was traced; that Tensor is out of scope outside that function. Pass it as an "
                            "argument instead")
        if tracing or _tape.recording() or recorder is not None:
            return self._finish(replay(self.graph, flat, var_args), op_by_op=True)
        plan = self._plan
        if plan is None and self._plan_failed is None:
            plan = self._build_plan()
        if plan is None or not self._lock.acquire(blocking=False):
            return self._finish(replay(self.graph, flat, var_args), op_by_op=True)
        try:
            outs = plan.run(flat, var_args)
        except ElementChanged as e:
            if not _first_effect(self.graph, e.node):
                raise  # (what ran before it cannot run again; the element is back in its iterator)
            changed = e
        else:
            changed = None
        finally:
            self._lock.release()
        if changed is not None:
            # an iterator's element of another shape than the trace's (TF's element spec has None there, so its
            # one graph serves it): nothing observable ran before taking it, so this call runs eagerly
            warnings.warn(f"descend.function '{self.graph.name}': {changed}; this call runs eagerly "
                          "(batch(..., drop_remainder=True) makes the batches alike)", FunctionEagerWarning,
                          stacklevel=4)
            return _python_call(self.function._target(), args, kwargs)
        return self._finish(outs, op_by_op=False)

    def plan(self):
        """The compiled :class:`~descend.compiler.plan.Plan` of this trace (built now if no call built it
        yet): its ``source`` is the generated Python function, ``fused`` the number of generated loops.
        None when the trace runs eagerly or the plan could not be built."""
        if self.graph is None or self.eager is not None:
            return None
        if self._plan is None and self._plan_failed is None:
            with self._lock:
                if self._plan is None and self._plan_failed is None:
                    self._build_plan()
        return self._plan

    def _build_plan(self):
        from .plan import build_plan

        try:
            self._plan = build_plan(self.graph)
        except Exception as e:  # noqa: BLE001 - a plan that cannot be built: the graph runs op by op
            self._plan_failed = f"{type(e).__name__}: {e}"
            warnings.warn(f"descend.function '{self.graph.name}': the plan could not be built ({self._plan_failed}); "
                          "the trace runs op by op", FunctionEagerWarning, stacklevel=4)
            return None
        return self._plan

    def _rebuild_outputs(self, outs: list):
        """The traced output structure from a replay's flat outputs (Tensors kept as they are)."""
        it = iter(outs)
        leaves = []
        for kind in self._out_kinds:
            x = next(it)
            if isinstance(kind, tuple):
                leaves.append(IndexedSlices(x, next(it), kind[1]))
            else:
                leaves.append(x)
        return self._out_rebuild(leaves)

    def _finish(self, outs: list, op_by_op: bool):
        """Rebuild the traced output structure from the flat outputs."""
        if self._one_tensor:  # (a step that returns its loss: no structure to rebuild)
            x = outs[0]
            return x if isinstance(x, Tensor) else Tensor(x)
        it = iter(outs)
        leaves = []
        for kind in self._out_kinds:
            x = next(it)
            if kind == "tensor":
                leaves.append(x if isinstance(x, Tensor) else Tensor(x))
            elif kind == "var":
                leaves.append(x.read_value() if isinstance(x, Variable) else Tensor(x))
            elif kind == "python":
                leaves.append(convert_to_tensor(x) if isinstance(x, _NUMBERS) else x)
            else:
                idx = next(it)
                leaves.append(IndexedSlices(x if isinstance(x, Tensor) else Tensor(x),
                                            idx if isinstance(idx, Tensor) else Tensor(idx), kind[1]))
        return self._out_rebuild(leaves)

    @property
    def inference_fn(self) -> AtomicFunction:
        """The traced graph as TF's ``AtomicFunction``: called with the trace's Tensor inputs only, flat and in
        order (the Python values it was traced with are part of it), it returns the trace's outputs."""
        return AtomicFunction(self)

    def __repr__(self):
        return f"<ConcreteFunction {self.graph.name if self.graph is not None else 'relaxed'} at {id(self):#x}>"


class AtomicFunction:
    """A ConcreteFunction's graph called with its flat Tensor inputs (TF's ``ConcreteFunction.inference_fn``)."""

    def __init__(self, concrete: ConcreteFunction):
        self._concrete = concrete

    @property
    def name(self) -> str:
        return self._concrete.graph.name if self._concrete.graph is not None else "relaxed"

    def __call__(self, *args):
        concrete = self._concrete
        if concrete.graph is None or concrete._flat(args, {}) is None:
            raise TypeError(f"AtomicFunction '{self.name}': expected the trace's Tensor inputs, flat and in order "
                            f"({_describe_key(concrete._key)}). Received {len(args)} argument(s): "
                            f"{', '.join(_spec_text(a) if isinstance(a, ArrayLike) else repr(a) for a in args)}")
        return concrete(*args)

    def __repr__(self):
        return f"<AtomicFunction {self.name} at {id(self):#x}>"


def _python_call(target, args, kwargs):
    """``target(*args, **kwargs)``, the function's Python (a trace or an eager call): the end of a ``Dataset``
    iterator it meets (Python's ``StopIteration``, which would end a loop around the call) is TF's
    ``OutOfRangeError``, as in a plan."""
    try:
        return target(*args, **kwargs)
    except EndOfIterator:
        raise OutOfRangeError("End of sequence: the Dataset iterator has no more elements") from None


def _first_effect(graph: Graph, node) -> bool:
    """Whether the opaque ``node`` is the first thing ``graph`` does that anyone can see (only ops that change
    nothing run before it), so that a call it stopped may run again."""
    for n in graph.nodes:
        if n.kind == "opaque" and n.payload is node:
            return True
        if n.kind != "op" or n.op.name in STATEFUL_OPS:
            return False
    return False


class _Family:
    """Traces that serve several shapes: those whose signature key is ``stripped`` (the key with its
    Tensors' shapes left out) and whose Tensors fit ``shapes`` (None: any shape; a None dimension:
    any size). ``cf`` is the trace made for the family; it serves the family's other shapes (its graph
    replayed, see :meth:`Function._respecialize`) when its Python read no shape (``shape_free``)."""

    def __init__(self, stripped, shapes: list):
        self.stripped = stripped
        self.shapes = shapes
        self.cf = None
        self.shape_free = False

    def admits(self, key) -> bool:
        if _strip_tensor_shapes(key) != self.stripped:
            return False
        got = [k[1] for k in _key_leaves(key) if k[0] == "T"]
        return len(got) == len(self.shapes) and all(_fits(g, s) for g, s in zip(got, self.shapes))

    def serves(self) -> bool:
        return self.cf is not None and self.shape_free and self.cf.eager is None


def _fits(shape, relaxed) -> bool:
    if relaxed is None:
        return True
    return len(shape) == len(relaxed) and all(r is None or r == d for d, r in zip(shape, relaxed))


def _strip_tensor_shapes(key):
    """A signature key with the shapes of its Tensors (not its Variables) left out."""
    if isinstance(key, tuple):
        if key and key[0] == "T":
            return ("T", None) + key[2:]
        if key and key[0] == "V":
            return key
        return tuple(_strip_tensor_shapes(k) for k in key)
    return key


def _generalize(known, key):
    """TF's most specific common shapes of two signature keys that differ in their Tensors' shapes only
    (a dimension that differs becomes None; a rank that differs, an unknown shape); None otherwise."""
    if known == key or _strip_tensor_shapes(known) != _strip_tensor_shapes(key):
        return None
    out = []
    for a, b in zip((k[1] for k in _key_leaves(known) if k[0] == "T"), (k[1] for k in _key_leaves(key) if k[0] == "T")):
        if a is None or b is None or len(a) != len(b):
            out.append(None)
        else:
            out.append(tuple(x if x == y else None for x, y in zip(a, b)))
    return out


def _with_dtype(spec, dtype):
    """``spec`` with another dtype."""
    from ..tensor_spec import TensorSpec

    return TensorSpec(spec.shape, dtype, spec.name)


def _dtype_error(cf: ConcreteFunction, k: int, want, got):
    from ..errors import InvalidArgumentError

    name = cf.graph.name if cf.graph is not None else getattr(cf.function._python_function, "__name__", "function")
    return InvalidArgumentError(f"cannot compute {name} as input #{k}(zero-based) was expected to be a "
                                f"{np.dtype(backend.np_dtype(want)).name} tensor but is a "
                                f"{np.dtype(backend.np_dtype(got)).name} tensor")


def _same_value(a, b) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except Exception:  # noqa: BLE001 - an object whose == does not give a bool
        return False


def _leaf_names(binder: _Binder, canonical) -> list:
    """A name per leaf of the parameter values (in :func:`descend.framework.nest.flatten` order), as TF names its
    placeholders: the parameter's name, with the keys and indices of a nested place joined by ``_``
    (``d_p``, ``l_0``); a ``**kwargs`` entry by its key."""
    params = binder.params if binder.signature is not None else []
    out = []
    for k, value in enumerate(canonical):
        p = params[k] if k < len(params) else None
        base = p.name if p is not None else f"arg_{k}"
        by_key = p is not None and p.kind is p.VAR_KEYWORD
        for path in nest.leaf_paths(value):
            parts = [str(x) for x in path]
            out.append("_".join(parts) if by_key and parts else "_".join([base] + parts))
    return out


class _TypeText:
    """An annotation printed as it is (the types of :attr:`ConcreteFunction.function_type`)."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self):
        return self.text


class _Any(_TypeText):
    pass


def _type_text(x, literal_none: bool = True) -> str:
    """TF's text for what a parameter (or the output) takes: a TensorSpec, ``Literal[value]`` for a
    Python value, ``List[...]``/``Tuple[...]``/``Dict[[key, ...], ...]`` for structures."""
    from ..tensor_spec import TensorSpec

    if isinstance(x, _TypeText):
        return x.text
    if isinstance(x, Variable):
        return f"VariableSpec(shape={tuple(x.shape)}, dtype={x.dtype.name})"
    if isinstance(x, ArrayLike):
        return repr(TensorSpec(tuple(x.shape), x.dtype))
    if isinstance(x, np.ndarray):
        return repr(TensorSpec(x.shape, x.dtype))
    if _is_spec(x):
        return repr(TensorSpec(x.shape, x.dtype, getattr(x, "name", None)))  # (TF shows a signature's names)
    if isinstance(x, IndexedSlices):
        return f"IndexedSlicesSpec(dense_shape={x.dense_shape})"
    if isinstance(x, dict):
        keys = sorted(x, key=lambda k: (type(k).__name__, k if isinstance(k, str) else repr(k)))
        return "Dict[" + ", ".join(f"[{k!r}, {_type_text(x[k], literal_none)}]" for k in keys) + "]"
    if isinstance(x, (list, tuple)):
        label = type(x).__name__ if hasattr(type(x), "_fields") else "List" if isinstance(x, list) else "Tuple"
        return f"{label}[" + ", ".join(_type_text(v, literal_none) for v in x) + "]"
    if x is None and not literal_none:
        return "None"
    return f"Literal[{x!r}]"


def _strip(key, shape: bool, dtype: bool):
    """A signature key with the shapes and/or dtypes of Tensors and Variables left out."""
    if isinstance(key, tuple):
        if key and key[0] in ("T", "V"):
            return (key[0], None if shape else key[1], None if dtype else key[2]) + key[3:]
        return tuple(_strip(k, shape, dtype) for k in key)
    return key


def _key_leaves(key) -> list:
    """The ``("T", shape, dtype)`` and ``("V", ...)`` entries of a signature key, in order."""
    out = []
    if isinstance(key, tuple):
        if key and key[0] in ("T", "V"):
            return [key]
        for k in key:
            out += _key_leaves(k)
    return out


def _holds_tensors(x) -> bool:
    leaves = nest.flatten(x)
    return any(isinstance(v, (ArrayLike, np.ndarray, IndexedSlices)) or _is_spec(v) for v in leaves)


def _like(value, was):
    """``value`` with Python numbers (or nested lists of them) where ``was`` had a Tensor made Tensors of
    its dtype, recursively through matching structures."""
    if isinstance(was, (ArrayLike, np.ndarray)) and not isinstance(was, Variable) or _is_spec(was):
        if not isinstance(value, (ArrayLike, np.ndarray, IndexedSlices)) and not _is_spec(value):
            try:
                t = convert_to_tensor(value, dtype=was.dtype)
            except (TypeError, ValueError):
                return value
            shape = getattr(was, "shape", None)
            if shape is not None and None not in tuple(shape) and tuple(t.shape) != tuple(shape):
                # a Python value converted where the trace had a Tensor must have its shape (TF's cast check)
                raise TypeError(f"Can not cast {_spec_text(t)} to {_spec_text(was)}")
            return t
        return value
    if isinstance(was, dict) and isinstance(value, dict):
        return type(value)((k, _like(v, was[k]) if k in was else v) for k, v in value.items())
    if isinstance(was, (list, tuple)) and isinstance(value, (list, tuple)) and len(was) == len(value):
        items = [_like(v, w) for v, w in zip(value, was)]
        return type(value)(*items) if hasattr(type(value), "_fields") else type(value)(items)
    return value


def _shapeless(key):
    """A signature key with the shapes of Tensors and Variables left out."""
    if isinstance(key, tuple):
        if key and key[0] in ("T", "V"):
            return (key[0],) + key[2:]
        return tuple(_shapeless(k) for k in key)
    return key


def _describe_key(key) -> str:
    text = repr(key)
    return text if len(text) < 300 else text[:300] + "..."
