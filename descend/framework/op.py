"""The op table: every differentiable primitive, its forward and its VJP.

An op is declared once, forward and gradient side by side::

    @defop(same_dtype=(0, 1))
    def multiply(x, y):
        return x * y                      # NumPy arrays in, array out

    multiply.defvjp(                      # one VJP per input: Tensors in
        lambda g, ans, x, y: unbroadcast(g * y, x),
        lambda g, ans, x, y: unbroadcast(g * x, y),
    )

or, when the input gradients share work, one function returning a tuple::

    @split.defvjp
    def _(gs, ans, x, sizes, axis):
        return concat(gs, axis=axis)

Per-input VJPs let the tape skip inputs that need no gradient (constants).
The forward works on raw arrays. The VJP is written with descend ops on
Tensors, so the backward pass is itself recorded by any outer tape, which is
what gives higher-order derivatives. A VJP returns ``None`` for an input that
gets no gradient. An op whose output carries no gradient at all (argmax, ==)
is declared ``differentiable=False`` and never recorded for the backward
pass (a tape only notes where it cut a path, for ``explain_gradient``); an op that *should*
have a gradient but has none raises :class:`NoGradientError` naming itself
when the tape reaches it.

Positional parameters of the forward without a default are the op's tensor
inputs (``*args`` for a variable number); the rest are static attributes.
"""

from __future__ import annotations

import inspect

import numpy as np

from ..errors import InvalidArgumentError
from . import tape as _tape
from . import trace as _trace
from .tape import no_gradient_error
from .tensor import Tensor, to_array
from .variable import Variable

__all__ = ["Op", "defop", "OPS", "execute", "no_gradient_error"]

OPS: dict[str, "Op"] = {}

_active = _tape._active  # the recording tapes; shared list object
_tracing = _trace.active  # the recorders of descend.function traces; shared list object


class Op:
    """A registered primitive. Call it like a function."""

    def __init__(self, forward, *, name: str, differentiable: bool = True, same_dtype=(),
                 view: bool = False, multi_output: bool = False, sparse_grad: bool = False,
                 elementwise: bool = False, register: bool = True):
        self.name = name
        self.forward = forward
        self.vjp = None
        self.vjps = None
        self.differentiable = differentiable
        self.same_dtype = same_dtype if same_dtype == "all" else tuple(same_dtype)
        self.view = view
        self.multi_output = multi_output
        self.sparse_grad = sparse_grad
        self.__doc__ = forward.__doc__
        self.__name__ = name
        self.__wrapped__ = forward
        params = list(inspect.signature(forward).parameters.values())
        if any(p.kind is p.VAR_POSITIONAL for p in params):
            self.num_inputs = None
            self.input_names = ()
        else:
            self.input_names = tuple(
                p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is p.empty
            )
            self.num_inputs = len(self.input_names)
        self.attr_names = tuple(
            p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is not p.empty
        )
        # binary elementwise ops take the fast path in execute(): their forward
        # may receive one operand as a Python scalar
        self.binary = elementwise and self.num_inputs == 2 and self.same_dtype == (0, 1)
        if register:
            if name in OPS:
                raise ValueError(f"An op named '{name}' is already registered")
            OPS[name] = self

    def defvjp(self, *vjps):
        """Attach the vector-Jacobian product(s) ``vjp(g, ans, *inputs, **attrs)``.

        One function returns the gradients of all inputs (a tuple, or the
        gradient itself for a single input); several functions, one per input
        (``None`` for an input without a gradient), are each called only when
        that input needs a gradient.
        """
        if not self.differentiable:
            raise ValueError(f"op '{self.name}' is declared non-differentiable; it takes no VJP")
        if len(vjps) == 1 and self.num_inputs != 1:
            self.vjp = vjps[0]
            self.binary = False  # a tuple VJP may look at every input: convert scalars to Tensors
        else:
            if self.num_inputs is not None and len(vjps) != self.num_inputs:
                raise ValueError(f"op '{self.name}' has {self.num_inputs} inputs; received {len(vjps)} VJPs")
            self.vjps = tuple(vjps)
        return vjps[0]

    def __call__(self, *args, **attrs):
        attrs.pop("name", None)  # TF's ``name=`` of every op: an eager op has no name, so it is accepted and unused
        n = self.num_inputs
        if n is not None and len(args) < n and any(k in attrs for k in self.input_names[len(args):]):
            # tensor inputs passed by keyword, as TF's ops take them (``segment_sum(data=x, segment_ids=ids)``)
            missing = [k for k in self.input_names[len(args):] if k not in attrs]
            if missing:
                raise TypeError(f"{self.name}() missing tensor argument(s): {', '.join(missing)}")
            args = tuple(args) + tuple(attrs.pop(k) for k in self.input_names[len(args):])
        if n is not None and len(args) != n:
            if len(args) < n:
                raise TypeError(f"{self.name}() takes {n} tensor argument(s); received {len(args)}")
            extra = args[n:]
            if len(extra) > len(self.attr_names):
                raise TypeError(f"{self.name}() received {len(args)} positional arguments; expected at most "
                                f"{n + len(self.attr_names)}")
            for k, v in zip(self.attr_names, extra):
                if k in attrs:
                    raise TypeError(f"{self.name}() got multiple values for argument '{k}'")
                attrs[k] = v
            args = args[:n]
        return execute(self, args, attrs)

    def __repr__(self):
        return f"<descend op '{self.name}'>"


def defop(name=None, **options):
    """Register the decorated forward function as an op (see module docs)."""
    def wrap(forward):
        return Op(forward, name=name or forward.__name__, **options)

    if callable(name):  # bare @defop
        fn, name = name, None
        return wrap(fn)
    return wrap


def _dtype_positions(op, n: int):
    return range(n) if op.same_dtype == "all" else [i for i in op.same_dtype if i < n]


_SCALAR_TYPES = (float, int, bool)


def _convert_inputs(op, inputs):
    """Turn Python/NumPy inputs into Tensors; non-tensor values take the dtype of
    a tensor they must match (``x * 2`` with float64 x makes 2 a float64) or, with
    no tensor among them, of the first one (``maximum(0., [1, -1])`` is float32, as TF)."""
    positions = _dtype_positions(op, len(inputs))
    target = None
    for i in positions:
        if isinstance(inputs[i], (Tensor, Variable)):
            target = inputs[i]._value.dtype
            break
    out = list(inputs)
    if target is None and positions:
        first = positions[0]
        out[first] = _convert_one(op, first, inputs[first], None)
        target = out[first]._value.dtype
    for i, x in enumerate(inputs):
        if not isinstance(out[i], (Tensor, Variable)):
            want = target if i in positions else None
            if want is not None and type(x) in _SCALAR_TYPES and (want.kind == "f" or type(x) is not float):
                out[i] = Tensor(np.array(x, dtype=want))
                continue
            out[i] = _convert_one(op, i, x, want)
    return tuple(out)


def _convert_one(op, i, x, dtype):
    try:
        return Tensor(to_array(x, dtype))
    except TypeError as e:
        raise TypeError(f"{op.name}: input {i}: {e}") from None


def _check_dtypes(op, inputs):
    same = op.same_dtype
    if same == (0, 1) and len(inputs) == 2:  # the common binary case, inlined
        if inputs[0]._value.dtype is inputs[1]._value.dtype or inputs[0]._value.dtype == inputs[1]._value.dtype:
            return
    first = None
    for i in _dtype_positions(op, len(inputs)):
        d = inputs[i]._value.dtype
        if first is None:
            first = d
        elif d != first:
            raise TypeError(
                f"{op.name}: expected inputs of one dtype; received {first.name} and {d.name}"
            )


def _weak_scalar_ok(dtype, scalar_type) -> bool:
    """A Python scalar can go to NumPy as is (NEP 50 keeps ``dtype``) when it
    cannot change the result's kind: floats with float tensors, ints with any."""
    return scalar_type is int or (scalar_type is float and dtype.kind in "fc")


def execute(op: Op, inputs: tuple, attrs: dict):
    """Run ``op`` on ``inputs`` and record it on every active tape that watches an input."""
    if op.binary:
        # fast path: Tensor (op) Tensor, or Tensor (op) Python scalar kept raw
        x, y = inputs
        tx, ty = type(x), type(y)
        if (tx is Tensor or tx is Variable) and (ty is Tensor or ty is Variable):
            a, b = x._value, y._value
            if a.dtype != b.dtype:
                raise TypeError(f"{op.name}: expected inputs of one dtype; received {a.dtype.name} and {b.dtype.name}")
            return _run(op, inputs, (a, b), attrs, tx is Variable or ty is Variable)
        if (tx is Tensor or tx is Variable) and _weak_scalar_ok(x._value.dtype, ty):
            return _run(op, inputs, (x._value, y), attrs, tx is Variable)
        if (ty is Tensor or ty is Variable) and _weak_scalar_ok(y._value.dtype, tx):
            return _run(op, inputs, (x, y._value), attrs, ty is Variable)
    has_var = False
    arrays = []
    for x in inputs:
        t = type(x)
        if t is Tensor:
            arrays.append(x._value)
        elif t is Variable:
            arrays.append(x._value)
            has_var = True
        else:
            inputs = _convert_inputs(op, inputs)
            has_var = any(type(x) is Variable for x in inputs)
            arrays = [x._value for x in inputs]
            break
    if op.same_dtype:
        _check_dtypes(op, inputs)
    return _run(op, inputs, arrays, attrs, has_var)


def _run(op, inputs, arrays, attrs, has_var):
    if has_var:  # a Variable with rows an optimizer has not brought up to date yet (exact_lazy)
        for x in inputs:
            if type(x) is Variable and x._before_read is not None:
                x._before_read(x, None)
    try:
        out = op.forward(*arrays, **attrs)
    except (ValueError, IndexError) as e:
        if isinstance(e, InvalidArgumentError):
            raise
        shapes = ", ".join(str(getattr(a, "shape", ())) for a in arrays)
        raise InvalidArgumentError(f"{op.name}: {e} (input shapes: {shapes})") from None
    if op.multi_output:
        if op.view and has_var:
            out = [o.copy() for o in out]
        result = tuple(Tensor(o if type(o) is np.ndarray else np.asarray(o)) for o in out)
    else:
        if type(out) is not np.ndarray:  # a NumPy scalar; a string tensor's element is a Python bytes
            out = np.asarray(out) if type(out) is not bytes else np.array(out, dtype=object)
        elif op.view and has_var:
            out = out.copy()
        result = Tensor(out)
    if _active:  # an op without a gradient is noted too: it may cut a path explain_gradient reports
        _tape.record(op, inputs, result, attrs, has_var)
    if _tracing:  # descend.function is recording a trace
        _trace.record(op, inputs, result, attrs)
    return result
