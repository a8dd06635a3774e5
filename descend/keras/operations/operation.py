"""``Operation``: Keras 3's operation object (``keras.Operation``), and the one way descend makes Keras' op classes
(``keras.ops.image.Resize``, ``keras.ops.nn.Softmax``...) from its ``keras.ops`` functions (issue 37).

Keras' convention, which :func:`operation_class` follows: the tensor arguments of an op go to ``call`` (``__call__``),
the others to ``__init__``, so ``Resize((4, 4), interpolation="nearest")(images)`` is
``resize(images, (4, 4), interpolation="nearest")``. Each class's split is a row of the family's table
(``*_table.py`` here), read from Keras' own class signatures.

What descend's Operation has of Keras': ``__init__(..., name=None)``, ``__call__(*args, **kwargs)``, ``call``,
``name``, the ``__init__`` arguments as attributes (``op.axis``), ``get_config``/``from_config`` (those
arguments, defaults included, and ``name``),
``symbolic_call``/``compute_output_spec`` on descend's ``KerasTensor``s. The output spec comes from running the op
on two zero-filled probes of the inputs' shapes (an unknown dimension is 2 then 3 on axis 0, 83 then 89 elsewhere,
as descend's layers probe); an output dimension that differs between the probes is unknown (None). Ops whose
output shape depends on the input values (``Nonzero``, ``Unique``...) raise ``NotImplementedError`` there. A
symbolic call records no node: an Operation's output is not a functional model's graph (call the op inside a
layer, or ``keras.layers.Lambda``, for that). Not here: Keras' remat and quantized calls, the node graph.

Example:
    >>> import numpy as np
    >>> from descend.keras import ops
    >>> op = ops.nn.Softmax(axis=-1, name="probabilities")  # (unnamed: softmax, softmax_1, ... as Keras)
    >>> op.get_config()
    {'name': 'probabilities', 'axis': -1}
    >>> np.round(np.asarray(op(np.array([0.0, 0.0]))), 2).tolist()
    [0.5, 0.5]
"""

from __future__ import annotations

import inspect
import itertools
import re

import numpy as np

from ...framework import Tensor
from ...layers.keras_tensor import AXIS_PROBES, BATCH_PROBES, KerasTensor, any_symbolic, map_symbolic

__all__ = ["Operation", "operation_class"]

_NAME_COUNTS: dict = {}
_UNSHOWN = object()  # the default of a parameter the function takes through **kwargs


def _auto_name(class_name: str) -> str:
    """``softmax``, then ``softmax_1``, ``softmax_2``... (Keras' auto_name: the class name in snake case)."""
    base = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", class_name)).lower()
    count = _NAME_COUNTS.get(base, 0)
    _NAME_COUNTS[base] = count + 1
    return base if count == 0 else f"{base}_{count}"


class Operation:
    """Keras 3's ``keras.Operation``: an op as an object. Subclasses define ``call``; calling the object on
    tensors runs ``call``, on KerasTensors ``symbolic_call`` (the output spec, :meth:`compute_output_spec`).

    Args:
        name: the op's name (a string without ``/``); ``None``: the class name in snake case, numbered.
    """

    #: whether the output's shape depends on the input's values (then no output spec from probes)
    value_dependent_shape = False
    #: the call argument whose spec is the output's (a loop's state), where running the op on probes may not end
    spec_argument = None

    def __init__(self, name: str | None = None):
        if name is None:
            name = _auto_name(type(self).__name__)
        if not isinstance(name, str) or "/" in name:
            raise ValueError(f"{type(self).__name__}: argument `name` must be a string without the character '/'. "
                             f"Received: name={name!r} (of type {type(name).__name__})")
        self.name = name

    def __call__(self, *args, **kwargs):
        if any_symbolic((args, kwargs)):
            return self.symbolic_call(*args, **kwargs)
        return self.call(*args, **kwargs)

    def call(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} defines no call(): an Operation subclass must.")

    def symbolic_call(self, *args, **kwargs):
        """The output spec (KerasTensors) of a call on KerasTensors (no node is recorded)."""
        return self.compute_output_spec(*args, **kwargs)

    def compute_output_spec(self, *args, **kwargs):
        """KerasTensors with the shape and dtype ``call`` gives on these KerasTensor arguments, found by running
        ``call`` on two zero-filled probes of each (a dimension that differs between the two results is None)."""
        if self.spec_argument is not None:  # the output has the spec of this argument (as in Keras)
            bound = dict(zip(self.call_parameters, args), **kwargs)
            return map_symbolic(bound[self.spec_argument], lambda k: KerasTensor(k.shape, dtype=k.dtype))
        if self.value_dependent_shape:
            raise NotImplementedError(
                f"{type(self).__name__}.compute_output_spec: the output's shape depends on the input's values, so "
                f"descend cannot infer it from the inputs' shapes; call the op on values.")
        results = []
        for which in (0, 1):
            def probe(k: KerasTensor, which=which):
                shape = tuple(d if d is not None else (BATCH_PROBES if axis == 0 else AXIS_PROBES)[which]
                              for axis, d in enumerate(k.shape))
                return Tensor(np.zeros(shape, dtype=k.dtype.dtype))

            p_args, p_kwargs = map_symbolic((args, kwargs), probe)
            try:
                results.append(self.call(*p_args, **p_kwargs))
            except Exception as e:
                raise NotImplementedError(
                    f"{type(self).__name__}.compute_output_spec: descend infers output specs by running the op on "
                    f"zero-filled inputs of the KerasTensors' shapes, and this op failed on them "
                    f"({type(e).__name__}: {e})") from e
        return _merge_specs(results[0], results[1])

    def get_config(self) -> dict:
        return {"name": self.name}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self):
        return f"<Operation name={self.name}>"


def _merge_specs(first, second):
    """The KerasTensor spec of two probe results of one structure."""
    if isinstance(first, (list, tuple)) and not hasattr(first, "_fields"):
        return type(first)(_merge_specs(a, b) for a, b in zip(first, second))
    if isinstance(first, tuple):  # a named tuple
        return type(first)(*(_merge_specs(a, b) for a, b in zip(first, second)))
    if isinstance(first, dict):
        return {k: _merge_specs(first[k], second[k]) for k in first}
    if isinstance(first, (Tensor, np.ndarray, np.generic)):
        a, b = np.shape(first), np.shape(second)
        if len(a) != len(b):
            raise NotImplementedError(f"compute_output_spec: the output's rank depends on the input's shape "
                                      f"({len(a)} and {len(b)} on two probes)")
        return KerasTensor(tuple(x if x == y else None for x, y in zip(a, b)), dtype=first.dtype)
    return first  # a Python value (ndim, size): the same for any values of the inputs


def operation_class(class_name: str, function, init_params: tuple, call_params: tuple, module: str,
                    value_dependent_shape: bool = False, spec_argument: str | None = None) -> type:
    """Keras' op class ``class_name`` over ``function``: ``__init__`` takes ``init_params`` (positionally in this
    order, or by name) and ``name``; ``call`` takes ``call_params`` (one ``*name``: the rest of the positional
    arguments) and calls ``function`` with them all, by name. A parameter ``"x:x1"`` is Keras' ``x``, passed as
    ``function``'s ``x1``. Each parameter must be one of ``function``'s, or go to its ``**kwargs``; one whose default
    ``function``'s signature does not show (it goes to ``**kwargs``) is passed, and in the config, only if given.
    ``spec_argument``: the call argument whose spec is the output's (a loop's state), for compute_output_spec."""
    signature = inspect.signature(function)
    params = signature.parameters
    variadic = [p.name for p in params.values() if p.kind is p.VAR_POSITIONAL]
    takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params.values())

    def split(specs):
        return tuple(s.split(":")[0] for s in specs), {s.split(":")[0].lstrip("*"): s.split(":")[-1].lstrip("*")
                                                        for s in specs}

    init_params, init_target = split(init_params)
    call_params, call_target = split(call_params)
    call_names = tuple(p.lstrip("*") for p in call_params)
    target = {**init_target, **call_target}
    unknown = [p for p in init_params + call_names if target[p] not in params and not takes_kwargs]
    if unknown:
        raise TypeError(f"{class_name}: {function.__name__}() has no parameter {unknown} (its parameters: "
                        f"{list(params)})")
    defaults = {p: params[target[p]].default if target[p] in params else _UNSHOWN for p in init_params}

    def __init__(self, *args, name=None, **kwargs):
        if len(args) > len(init_params):
            raise TypeError(f"{class_name}() takes at most {len(init_params)} positional arguments "
                            f"{init_params}; received {len(args)}")
        given = dict(zip(init_params, args))
        for key, value in kwargs.items():
            if key not in init_params:
                raise TypeError(f"{class_name}() got an unexpected keyword argument {key!r}; expected one of "
                                f"{init_params + ('name',)}")
            if key in given:
                raise TypeError(f"{class_name}() got multiple values for argument {key!r}")
            given[key] = value
        missing = [p for p in init_params if p not in given and defaults[p] is inspect.Parameter.empty]
        if missing:
            raise TypeError(f"{class_name}() missing required argument(s) {missing}")
        Operation.__init__(self, name=name)
        self._arguments = {p: given.get(p, defaults[p]) for p in init_params if p in given or
                           defaults[p] is not _UNSHOWN}
        for key, value in self._arguments.items():  # Keras' classes keep them as attributes (op.axis)
            setattr(self, key, value)

    def call(self, *args, **kwargs):
        bound = {}
        rest = ()
        for i, p in enumerate(call_params):
            if p.startswith("*"):
                rest = args[i:]
                break
            if i < len(args):
                bound[p] = args[i]
        else:
            if len(args) > len(call_params):
                raise TypeError(f"{class_name}.call() takes at most {len(call_params)} positional arguments "
                                f"{call_params}; received {len(args)}")
        for key, value in kwargs.items():
            if key not in call_names or key in bound or f"*{key}" in call_params:
                raise TypeError(f"{class_name}.call() got an unexpected or repeated argument {key!r}; its "
                                f"arguments are {call_params} (the others, {init_params}, go to __init__)")
            bound[key] = value
        bound.update(self._arguments)
        bound = {target[k]: v for k, v in bound.items()}
        if not variadic:
            return function(**bound)
        positional = []  # the parameters before *args go positionally, then *args, the rest by name
        for p in itertools.takewhile(lambda q: q.kind is not q.VAR_POSITIONAL, params.values()):
            positional.append(bound.pop(p.name) if p.name in bound else p.default)
        return function(*positional, *rest, **bound)

    def get_config(self) -> dict:
        return {"name": self.name, **self._arguments}

    def __repr__(self):
        return f"<{class_name} name={self.name}>"

    init_sig = ", ".join(init_params + ("name=None",))
    return type(class_name, (Operation,), {
        "__init__": __init__, "call": call, "get_config": get_config, "__repr__": __repr__,
        "__module__": module, "__qualname__": class_name,
        "__doc__": f"Keras' ``{class_name}`` operation: ``{class_name}({init_sig})({', '.join(call_params)})`` "
                   f"is ``{function.__name__}`` of them all.",
        "op_function": staticmethod(function), "init_parameters": init_params, "call_parameters": call_params,
        "value_dependent_shape": value_dependent_shape, "spec_argument": spec_argument,
    })
