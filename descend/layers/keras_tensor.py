"""Symbolic tensors for the functional API: ``KerasTensor``, the ``Node`` a layer call records,
and the symbolic call that infers output shapes.

Calling a layer on a :class:`KerasTensor` (what ``Input`` returns) computes
nothing: it records a :class:`Node` (the layer, its arguments with the
KerasTensors in them, and the output KerasTensors) on the layer, and returns
the outputs. Their dtypes, and their shapes, come from running the layer for
real on two zero-filled probes: an unknown batch dimension (axis 0) is 2 in one
and 3 in the other, any other unknown dimension Keras' own probe lengths, 83
and 89, so that no kernel, pool or window is too long for a probe. A dimension
that differs between the two outputs is unknown (None). Where the layer
defines ``compute_output_shape``, its answer is the output shape wherever it
agrees with the probes (it can say None where two probe lengths happened to
give one length, as a pool of size 10 does for 83 and 89), as Keras takes it.
The first probe call builds the layer, so its weights exist (and are named
``dense/kernel``...) as soon as the graph is written, as in Keras.
"""

from __future__ import annotations

import numpy as np

from .. import backend
from ..framework import nest
from ..framework.tensor import Tensor, get_keras_mask, set_keras_mask
from . import _rebuild

__all__ = ["KerasTensor", "Node", "is_keras_tensor", "any_symbolic", "symbolic_call"]

#: the lengths the two probes give an unknown batch dimension (axis 0): small, since layers work per sample
BATCH_PROBES = (2, 3)
#: the lengths the two probes give any other unknown dimension: Keras' own (its JAX, torch and NumPy backends
#: probe with them), long enough for any kernel or pool, and primes, so that strided lengths rarely coincide
AXIS_PROBES = (83, 89)


class KerasTensor:
    """A symbolic stand-in for a Tensor in a functional model: a shape (None where unknown),
    a dtype, and where it comes from (``layer``, node index, output index).

    Example:
        >>> import descend as ds
        >>> x = ds.keras.Input(shape=(3,), name="features")
        >>> x
        <KerasTensor shape=(None, 3), dtype=float32, name=features>
        >>> ds.layers.Dense(4)(x).shape
        (None, 4)
    """

    def __init__(self, shape, dtype="float32", name: str | None = None, history=None):
        self._shape = tuple(None if d is None else int(d) for d in shape)
        self._dtype = backend.as_dtype(dtype)
        self._name = name
        self._history = history  # (layer, node_index, tensor_index)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    name = property(lambda self: self._name)
    ndim = property(lambda self: len(self._shape))

    @property
    def node(self) -> Node:
        layer, node_index, _ = self._history
        return layer._inbound_nodes[node_index]

    def _probe(self, which: int) -> Tensor:
        """Zeros of this shape, unknown dimensions filled with the ``which``-th (0 or 1) probe length."""
        shape = tuple(d if d is not None else (BATCH_PROBES if axis == 0 else AXIS_PROBES)[which]
                      for axis, d in enumerate(self._shape))
        _rebuild.check_probe(shape, self._dtype.dtype)  # a model rebuilt from a file: a bounded probe
        value = np.zeros(shape, dtype=self._dtype.dtype)
        if value.dtype.kind == "O":  # a string input: empty strings
            value[...] = b""
        return Tensor(value)

    def __repr__(self):
        return f"<KerasTensor shape={self._shape}, dtype={self._dtype.name}, name={self._name}>"

    def _symbolic_error(self, what: str):
        raise TypeError(f"A KerasTensor (from keras.Input) is symbolic: it has no value, so {what} is not "
                        f"possible. Pass it to layers to build a functional model, then call the model on data. "
                        f"Received: {self!r}")

    def numpy(self):
        self._symbolic_error("numpy()")

    def __array__(self, dtype=None, copy=None):
        self._symbolic_error("converting it to a NumPy array")

    def __bool__(self):
        self._symbolic_error("using it as a Python bool")

    def __len__(self):
        self._symbolic_error("len()")

    def __iter__(self):
        self._symbolic_error("iterating over it")

    __hash__ = object.__hash__

    # operators record an OpLambda layer (Keras' TFOpLambda), so ``x + y`` builds a graph
    def _op(self, name, *args):
        return _OPERATOR_LAYER[0](name)(self, *args)

    def __add__(self, other):
        return self._op("add", other)

    def __radd__(self, other):
        return self._op("radd", other)

    def __sub__(self, other):
        return self._op("subtract", other)

    def __rsub__(self, other):
        return self._op("rsubtract", other)

    def __mul__(self, other):
        return self._op("multiply", other)

    def __rmul__(self, other):
        return self._op("rmultiply", other)

    def __truediv__(self, other):
        return self._op("truediv", other)

    def __rtruediv__(self, other):
        return self._op("rtruediv", other)

    def __floordiv__(self, other):
        return self._op("floordiv", other)

    def __rfloordiv__(self, other):
        return self._op("rfloordiv", other)

    def __mod__(self, other):
        return self._op("mod", other)

    def __rmod__(self, other):
        return self._op("rmod", other)

    def __pow__(self, other):
        return self._op("pow", other)

    def __rpow__(self, other):
        return self._op("rpow", other)

    def __matmul__(self, other):
        return self._op("matmul", other)

    def __rmatmul__(self, other):
        return self._op("rmatmul", other)

    def __neg__(self):
        return self._op("negative")

    def __abs__(self):
        return self._op("abs")

    def __getitem__(self, key):
        return self._op("getitem", key)

    # comparisons and logic (== and != stay identity: KerasTensors are dict keys in graphs)
    def __gt__(self, other):
        return self._op("greater", other)

    def __ge__(self, other):
        return self._op("greater_equal", other)

    def __lt__(self, other):
        return self._op("less", other)

    def __le__(self, other):
        return self._op("less_equal", other)

    def __and__(self, other):
        return self._op("logical_and", other)

    def __or__(self, other):
        return self._op("logical_or", other)

    def __invert__(self):
        return self._op("logical_not")


def is_keras_tensor(x) -> bool:
    """Whether ``x`` is a symbolic :class:`KerasTensor`."""
    return isinstance(x, KerasTensor)


def any_symbolic(structure) -> bool:
    """Whether a nest of lists/tuples/dicts holds a KerasTensor."""
    if isinstance(structure, KerasTensor):
        return True
    if isinstance(structure, (list, tuple)):
        return any(any_symbolic(v) for v in structure)
    if isinstance(structure, dict):
        return any(any_symbolic(v) for v in structure.values())
    return False


def map_symbolic(structure, fn):
    """``structure`` with every KerasTensor ``k`` replaced by ``fn(k)`` (lists, tuples, dicts rebuilt)."""
    if isinstance(structure, KerasTensor):
        return fn(structure)
    if isinstance(structure, (list, tuple)):
        items = [map_symbolic(v, fn) for v in structure]
        if isinstance(structure, tuple) and hasattr(structure, "_fields"):
            return type(structure)(*items)
        return type(structure)(items)
    if isinstance(structure, dict):
        return type(structure)((k, map_symbolic(v, fn)) for k, v in structure.items())
    return structure


def _symbolic_leaves(structure) -> list:
    out = []
    map_symbolic(structure, out.append)
    return out


class Node:
    """One call of a layer in a functional graph: its arguments (KerasTensors inside) and outputs."""

    def __init__(self, layer, call_args: tuple, call_kwargs: dict, outputs):
        self.layer = layer
        self.call_args = call_args
        self.call_kwargs = call_kwargs
        self.outputs = outputs
        self.input_tensors = _symbolic_leaves((call_args, call_kwargs))
        self.output_tensors = nest.flatten(outputs)

    @property
    def parent_nodes(self) -> list:
        return [t.node for t in self.input_tensors]

    def __repr__(self):
        return f"<Node {self.layer.name}: {len(self.input_tensors)} input(s) -> {len(self.output_tensors)} output(s)>"


def _add_node(layer, node: Node) -> int:
    nodes = layer.__dict__.get("_inbound_nodes")
    if nodes is None:
        nodes = []
        object.__setattr__(layer, "_inbound_nodes", nodes)  # not a tracked attribute
    nodes.append(node)
    return len(nodes) - 1


def _masked_probe(k: KerasTensor, which: int) -> Tensor:
    """``k``'s probe, carrying a mask that keeps every step where ``k`` has a Keras mask (so that the layer
    passes one on, or not, as it would a real one)."""
    probe = k._probe(which)
    mask = getattr(k, "_keras_mask", None)
    if isinstance(mask, KerasTensor):
        set_keras_mask(probe, Tensor(np.ones(mask._probe(which).shape, bool)))
    return probe


def symbolic_call(layer, args: tuple, kwargs: dict):
    """Record ``layer(*args, **kwargs)`` on KerasTensors as a Node; return the output KerasTensors."""
    probes = []
    # with every dimension known the two probes are the same zeros: one call answers for both
    known = all(d is not None for k in _symbolic_leaves((args, kwargs)) for d in k.shape)
    try:
        for which in ((0,) if known else (0, 1)):
            cargs = map_symbolic(args, lambda k, n=which: _masked_probe(k, n))
            ckwargs = map_symbolic(kwargs, lambda k, n=which: _masked_probe(k, n))
            ckwargs["training"] = False  # a probe must not draw dropout masks or move statistics
            probes.append(layer(*cargs, **ckwargs))
        if known:
            probes.append(probes[0])
    except (ValueError, TypeError, IndexError) as probe_error:
        # no probe length suits the layer (a Reshape to (3, 5) of an unknown axis needs 15 exactly): its own
        # compute_output_shape says what the output is, as Keras asks it. Only where a probe length was made up
        # for an unknown non-batch axis: with every such axis known the probe is the real shape, and its error
        # (a Dense given the wrong features, a merge given one input) is the user's
        invented = any(d is None for k in _symbolic_leaves((args, kwargs)) for d in k.shape[1:])
        if not invented:
            raise
        return _declared_call(layer, args, kwargs, probe_error)
    flat_a, flat_b = nest.flatten(probes[0]), nest.flatten(probes[1])
    declared = _declared_shapes(layer, args, len(flat_a))
    node_index = len(layer.__dict__.get("_inbound_nodes") or [])
    outputs = []
    for i, (a, b) in enumerate(zip(flat_a, flat_b)):
        if not isinstance(a, Tensor):
            raise TypeError(f"Layer '{layer.name}' returned {type(a).__name__} in a functional model; its outputs "
                            f"must be Tensors (or lists/tuples/dicts of Tensors)")
        shape = tuple(d if d == e else None for d, e in zip(a.shape, b.shape))
        if declared is not None:
            shape = _merge(declared[i], shape, a.shape, b.shape)
        name = layer.name if len(flat_a) == 1 else f"{layer.name}_{i}"
        out = KerasTensor(shape, a.dtype, name=name, history=(layer, node_index, i))
        mask_a, mask_b = get_keras_mask(a), get_keras_mask(b)
        if mask_a is not None and mask_b is not None:  # the layer attached a mask (Keras' ``x._keras_mask``)
            out._keras_mask = KerasTensor(tuple(d if d == e else None for d, e in zip(mask_a.shape, mask_b.shape)),
                                          mask_a.dtype, name=f"{name}_mask")
        outputs.append(out)
    structure = nest.pack_like(probes[0], outputs)
    _add_node(layer, Node(layer, args, kwargs, structure))
    return structure


def _is_shape(x) -> bool:
    return isinstance(x, (tuple, list)) and all(d is None or (isinstance(d, (int, np.integer))
                                                              and not isinstance(d, bool)) for d in x)


#: the layer class an operator on KerasTensors records (``OpLambda``; it registers itself, being a Layer, which
#: sits above this module)
_OPERATOR_LAYER: list = [None]


def register_operator_layer(cls) -> None:
    """Make ``cls(op_name)`` the layer that ``x + y``, ``x[:, 0]``, ... on KerasTensors record (``OpLambda``)."""
    _OPERATOR_LAYER[0] = cls


def _declared_shapes(layer, args: tuple, count: int):
    """The output shapes the layer's own ``compute_output_shape`` gives for the symbolic ``args`` (flat, one per
    output), or None where the layer has none or its answer does not fit this call (another signature, another
    number of outputs)."""
    shapes = map_symbolic(args, lambda k: k.shape)
    try:
        out = layer.compute_output_shape(*shapes)
    except (NotImplementedError, TypeError, ValueError, IndexError, AttributeError):
        return None  # a compute_output_shape written for another call convention: the probes decide
    if _is_shape(out):
        out = [tuple(out)]
    elif isinstance(out, dict):
        out = [out[k] for k in sorted(out)]
    elif isinstance(out, (list, tuple)):
        out = [o for o in out]
    else:
        return None
    if len(out) != count or not all(_is_shape(o) for o in out):
        return None
    return [tuple(None if d is None else int(d) for d in o) for o in out]


def _merge(declared: tuple, probed: tuple, first: tuple, second: tuple) -> tuple:
    """Each dimension as ``compute_output_shape`` declares it where the probes agree with it (it may say None where
    the probes coincide), else as the probes found it (a declaration the real call contradicts loses)."""
    if len(declared) != len(probed):
        return probed
    return tuple(d if d is None or (d == a == b) else p for d, p, a, b in zip(declared, probed, first, second))


def _declared_call(layer, args: tuple, kwargs: dict, probe_error: Exception):
    """Record a call whose probes failed, with the output shapes ``compute_output_shape`` declares (one output,
    of the first input's dtype when that is not a float, else the layer's compute dtype); re-raise the probe's
    error when the layer declares none."""
    try:  # Layer's own compute_output_shape raises NotImplementedError: the probe's error stands
        shape = layer.compute_output_shape(*map_symbolic(args, lambda k: k.shape))
    except Exception:  # noqa: BLE001 - the probe's error says more
        raise probe_error from None
    if not _is_shape(shape):
        raise probe_error
    first = _symbolic_leaves(args)[0]
    if not layer.built:
        layer.build(first.shape if len(_symbolic_leaves(args)) == 1 else [k.shape for k in _symbolic_leaves(args)])
    dtype = first.dtype if not first.dtype.is_floating else layer._compute_dtype
    node_index = len(layer.__dict__.get("_inbound_nodes") or [])
    out = KerasTensor(tuple(shape), dtype, name=layer.name, history=(layer, node_index, 0))
    _add_node(layer, Node(layer, args, kwargs, out))
    return out
