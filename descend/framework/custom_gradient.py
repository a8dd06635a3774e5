"""``custom_gradient``: a function with a gradient of its own, recorded on the tape as one op."""

from __future__ import annotations

import functools
import inspect

from . import tape as _tape
from . import trace as _trace
from .op import Op
from .tape import GradientTape
from .tensor import Tensor, to_array
from .variable import Variable

__all__ = ["custom_gradient"]


def custom_gradient(f=None):
    """Give a function its own gradient, like ``tf.custom_gradient``.

    ``f(*tensors)`` returns ``(output, grad_fn)``; ``grad_fn(upstream)`` returns
    one gradient per positional input. If ``f`` reads trainable Variables,
    ``grad_fn`` must take a ``variables`` keyword and return
    ``(input_grads, variable_grads)``.

    Example:
        >>> import descend as ds
        >>> @ds.custom_gradient
        ... def clip_grad(x):
        ...     return ds.identity(x), lambda g: ds.clip_by_value(g, -1.0, 1.0)
    """
    if f is None:
        return custom_gradient

    accepts_vars = None

    @functools.wraps(f)
    def wrapper(*args):
        nonlocal accepts_vars
        inputs = tuple(a if isinstance(a, (Tensor, Variable)) else Tensor(to_array(a)) for a in args)
        # f's own ops are recorded by the outer tapes (so a grad_fn that uses values f computed can itself
        # be differentiated); the probe tape only notes which variables f reads
        probe = GradientTape(watch_accessed_variables=True)
        _tape._active.append(probe)
        try:
            out, grad_fn = f(*inputs)
        finally:
            probe._stop()
        if _trace.active:  # a trace records f's forward ops only: it notes the rule it cannot hold
            _trace.custom_gradient_called(f.__name__)
        variables = [v for v in probe.watched_variables() if all(v is not x for x in inputs)]
        if accepts_vars is None:
            accepts_vars = "variables" in inspect.signature(grad_fn).parameters
        if variables and not accepts_vars:
            raise TypeError(
                f"custom_gradient function '{f.__name__}' reads variables "
                f"({', '.join(v.name for v in variables)}); its grad_fn must accept a `variables` keyword"
            )
        multi = isinstance(out, (list, tuple))
        # new Tensor objects for the outputs: the tape links them to the inputs through grad_fn only
        # (a Python number converts as TF does: a float to floatx, not NumPy's float64)
        fresh = [Tensor(to_array(o)) for o in (out if multi else [out])]
        out = type(out)(fresh) if multi else fresh[0]
        outs = tuple(fresh) if multi else fresh[0]

        def vjp(g, ans, *xs):
            gs = g if multi else [g]
            if variables:
                gx, gv = grad_fn(*gs, variables=variables)
            else:
                gx, gv = grad_fn(*gs), []
            gx = list(gx) if isinstance(gx, (list, tuple)) else [gx]
            if len(gx) != len(inputs):
                raise ValueError(f"custom_gradient '{f.__name__}': grad_fn returned {len(gx)} gradients for "
                                 f"{len(inputs)} inputs")
            return tuple(gx) + tuple(gv)

        op = Op(lambda *a: None, name=f"custom_gradient/{f.__name__}", multi_output=multi, register=False)
        op.vjp = vjp
        if _tape._active:
            all_inputs = inputs + tuple(variables)
            _tape.record(op, all_inputs, outs, {}, any(type(x) is Variable for x in all_inputs))
        return out

    return wrapper
