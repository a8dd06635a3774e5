"""``Layer``: the Keras-style building block (weights, build-on-first-call, losses, config).

Naming and scoping
    A layer without an explicit ``name`` takes the snake-case class name made
    unique per session: the first ``Dense`` is ``"dense"``, then ``"dense_1"``...
    (:func:`descend.framework.unique_name`, so :func:`descend.clear_session`
    resets the counters with the variable names). A layer opens
    ``descend.name_scope(self.name)`` around ``build``, ``call`` and
    ``add_weight``; since a Variable prefixes the active scope, weights are
    named ``"dense/kernel"`` and, when a model opens its own scope around the
    call, ``"sequential/dense_1/kernel"``. Sublayers called inside a layer's
    ``call`` nest the same way (``"block/dense/kernel"``). The scope is opened
    once per layer even when ``build`` calls ``add_weight``.

Tracking
    Weights made by ``add_weight``, Variables assigned as attributes and the
    weights of sublayers (Layers assigned as attributes, or kept in lists,
    tuples and dicts) are found when ``weights`` is read, recursively,
    deduplicated, own weights first, then sublayers in attribute order.

Masks
    As Keras, a layer whose ``supports_masking`` is True attaches the mask
    ``compute_mask(inputs, mask)`` returns to the Tensors it outputs
    (``Embedding(mask_zero=True)``: ``ids != 0``), and a later call on such a
    Tensor receives it as ``mask=`` when its ``call`` takes one, in any model
    (Sequential, functional or subclassed). :func:`get_mask` reads it.

Functional API
    Called on a :class:`~descend.layers.keras_tensor.KerasTensor` (from
    ``Input``), a layer records a node instead of computing
    (:mod:`descend.layers.keras_tensor`).

Losses
    ``losses`` holds the tensors given to ``add_loss`` during the latest
    outermost call (the activity regularizer's among them) and the weight
    regularization penalties, computed from the *current* weights on every
    read: read it inside the GradientTape to differentiate it.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import re
import sys
import threading
import weakref

import numpy as np

from .. import activations, backend, constraints, initializers, mixed_precision, regularizers
from ..framework import nest
from ..framework.tensor import Tensor, convert_to_tensor, has_keras_masks
from ..framework.tensor import get_keras_mask as get_mask
from ..framework.tensor import set_keras_mask as set_mask
from ..framework.variable import KerasVariable, Variable, name_scope, to_snake_case, unique_name
from ..ops import math_ops
from . import _rebuild
from .keras_tensor import KerasTensor, any_symbolic, symbolic_call

__all__ = ["Layer", "to_snake_case", "register_weight_hook", "get_mask", "set_mask"]

_LAYER_NAME_RE = re.compile(r"^[A-Za-z0-9_.\-]+$")
_ALLOWED_KWARGS = {"input_shape", "input_dim", "batch_size", "batch_input_shape"}
_context = threading.local()
_weight_hooks: list = []
_build_hooks: list = []
_KERAS3_ADD_WEIGHT = ("shape", "initializer", "dtype", "trainable", "autocast", "regularizer", "constraint",
                      "aggregation", "name")
_KERAS2_ADD_WEIGHT = ("name", "shape", "dtype", "initializer", "regularizer", "trainable", "constraint")
# accepted for ported code; they mean nothing on one CPU process
_IGNORED_ADD_WEIGHT = ("autocast", "aggregation", "synchronization", "use_resource", "partitioner",
                       "caching_device", "experimental_autocast", "overwrite_with_gradient")
_TRACKABLE = (list, tuple, dict)  # attribute values scanned for sublayers and Variables
# layers holding add_loss terms of a call: an outermost call only walks its sublayers to clear
# them when some layer has any
_layers_with_call_losses: weakref.WeakSet = weakref.WeakSet()


def attention_masks(query, value, key, query_mask, value_mask, key_mask) -> tuple:
    """``(query_mask, value_mask, key_mask)`` of an attention layer's call: each one given, else the Keras mask
    its tensor carries (none for an absent ``key``)."""
    if query_mask is None:
        query_mask = get_mask(query)
    if value_mask is None:
        value_mask = get_mask(value)
    if key_mask is None and key is not None:
        key_mask = get_mask(key)
    return query_mask, value_mask, key_mask


def _find_mask(inputs):
    if isinstance(inputs, (list, tuple)):
        found = [get_mask(x) for x in inputs]
        return None if all(m is None for m in found) else found
    return get_mask(inputs)


def register_weight_hook(fn) -> None:
    """Call ``fn(variable)`` after every weight a layer creates with ``add_weight``.

    Modules above the layers (checkpoint's deferred restoration of a model that
    was restored before it was built) hook in here instead of the layers
    importing them. Registering the same function twice has no effect.
    """
    if not callable(fn):
        raise TypeError(f"register_weight_hook expects a callable. Received: {fn!r}")
    if fn not in _weight_hooks:
        _weight_hooks.append(fn)


def register_build_hook(fn) -> None:
    """Call ``fn(layer)`` after every ``build`` (as :func:`register_weight_hook`, for Variables a
    build assigns as attributes rather than creating with ``add_weight``)."""
    if not callable(fn):
        raise TypeError(f"register_build_hook expects a callable. Received: {fn!r}")
    if fn not in _build_hooks:
        _build_hooks.append(fn)


def _training_stack() -> list:
    s = getattr(_context, "training", None)
    if s is None:
        s = _context.training = []
    return s


def _shape_of(x):
    if isinstance(x, (Tensor, Variable)):
        return tuple(x.shape)
    if isinstance(x, (list, tuple)):
        return type(x)(_shape_of(v) for v in x)
    if isinstance(x, dict):
        return {k: _shape_of(v) for k, v in x.items()}
    return None


def _has_tensor(x) -> bool:
    if isinstance(x, (Tensor, Variable, np.ndarray)):
        return True
    if isinstance(x, (list, tuple)):
        return any(_has_tensor(v) for v in x)
    if isinstance(x, dict):
        return True
    return False


def _has_layer(container) -> bool:
    values = container.values() if isinstance(container, dict) else container
    return any(isinstance(v, Layer) for v in values)


#: marks a layer call whose inputs came by keyword
_NO_INPUTS = object()


def _accepted(fn) -> tuple[set, bool]:
    params = inspect.signature(fn).parameters
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
    return set(params), var_kw


class Layer:
    """Base class of layers: state (weights) plus a computation (``call``).

    Subclass it: create weights in ``build(input_shape)`` with
    :meth:`add_weight` (or in ``__init__`` when the shape is known), compute in
    ``call(inputs, training=None)``, and return the constructor's arguments
    from ``get_config`` so that ``from_config`` can rebuild the layer.

    Args:
        trainable: whether the layer's weights are trained (``trainable_weights``).
        name: the layer's name (letters, digits and ``_.-``); defaults to the
            snake-case class name made unique (``dense``, ``dense_1``...).
        dtype: the dtype of the weights and computations (default
            :func:`descend.floatx`); floating inputs of another dtype are cast.
        activity_regularizer: a regularizer applied to the outputs of each
            call, divided by the batch size, and added to ``losses``.
        autocast: cast floating inputs to ``dtype`` (default True).

    Example:
        >>> import descend as ds
        >>> from descend.layers import Layer
        >>> class Scale(Layer):
        ...     def build(self, input_shape):
        ...         self.w = self.add_weight(shape=(input_shape[-1],), initializer="ones", name="w")
        ...     def call(self, inputs):
        ...         return inputs * self.w
        >>> ds.clear_session()
        >>> layer = Scale()
        >>> layer(ds.constant([[1.0, 2.0]])).numpy()
        array([[1., 2.]], dtype=float32)
        >>> [(w.name, w.path) for w in layer.weights]
        [('w', 'scale/w')]
    """

    _autocast = True
    @property
    def supports_masking(self) -> bool:
        """Whether the layer attaches ``compute_mask``'s mask to its outputs (passing its input's on by default):
        as set, else (Keras 3) True for a layer whose class overrides ``compute_mask``."""
        value = self.__dict__.get("_supports_masking")
        return type(self).compute_mask is not Layer.compute_mask if value is None else value

    @supports_masking.setter
    def supports_masking(self, value) -> None:
        object.__setattr__(self, "_supports_masking", bool(value))

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        # state that exists even before (or without) Layer.__init__
        object.__setattr__(self, "_own_weights", [])
        object.__setattr__(self, "_weight_names", {})  # id(weight) -> the name given to add_weight (checkpoint paths)
        object.__setattr__(self, "_regularized", [])
        object.__setattr__(self, "_call_losses", [])
        object.__setattr__(self, "_loss_fns", [])
        object.__setattr__(self, "_scope_depth", 0)
        object.__setattr__(self, "_tracked", {})  # attribute names that may hold layers/Variables, in order
        object.__setattr__(self, "_subtree_built", False)
        object.__setattr__(self, "built", False)
        return self

    def __setattr__(self, name, value):
        if isinstance(value, (Layer, Variable)) or (type(value) in _TRACKABLE and name != "_tracked"):
            self._tracked[name] = None
            if isinstance(value, Layer) or (type(value) in (list, dict) and _has_layer(value)):
                object.__setattr__(self, "_subtree_built", False)  # a new sublayer may need building in scope
        object.__setattr__(self, name, value)

    def __delattr__(self, name):
        self._tracked.pop(name, None)
        object.__delattr__(self, name)

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        build = cls.__dict__.get("build")
        if build is not None and not getattr(build, "_descend_build", False):
            cls.build = _wrap_build(build)
        cls._call_params = None  # per class: which keyword arguments `call` accepts

    def __init__(self, *, activity_regularizer=None, trainable: bool = True, dtype=None, autocast: bool = True,
                 name: str | None = None, **kwargs):
        unknown = set(kwargs) - _ALLOWED_KWARGS
        if unknown:
            raise TypeError(f"Unrecognized keyword arguments passed to {type(self).__name__}: "
                            f"{ {k: kwargs[k] for k in sorted(unknown)} }")
        if name is None:
            name = unique_name(to_snake_case(type(self).__name__))
        elif not isinstance(name, str) or not (name == "" or _LAYER_NAME_RE.match(name)):
            # (an empty name is Keras 3's too: a model named '' is the custom layers tutorial's)
            raise ValueError(f"A layer name must be a string of letters, digits and _.- (no '/'). "
                             f"Received: name={name!r}")
        self._name = name
        if isinstance(dtype, dict):  # the dtype-policy config Keras 3 (and get_config) writes
            dtype = dtype_from_config(dtype)
        # the mixed precision policy: weights in self._dtype, inputs cast to and computed in self._compute_dtype
        self._dtype_policy, self._dtype, self._compute_dtype = mixed_precision.layer_dtypes(dtype)
        self._trainable = bool(trainable)
        self._autocast_inputs = bool(autocast) and type(self)._autocast
        self.activity_regularizer = regularizers.get(activity_regularizer)
        shape_arg = kwargs.get("input_shape")
        if kwargs.get("input_dim") is not None:
            shape_arg = (int(kwargs["input_dim"]),)
        elif kwargs.get("batch_input_shape") is not None:
            shape_arg = tuple(kwargs["batch_input_shape"])[1:]
        self._input_shape_arg = None if shape_arg is None else tuple(shape_arg)
        self._batch_size_arg = kwargs.get("batch_size")

    # -- facts -----------------------------------------------------------------
    @property
    def name(self) -> str:
        return self._name

    @property
    def dtype(self) -> backend.DType:
        """The dtype of the layer's weights and computations (compares equal to its name)."""
        return backend.dtype_of(self._dtype)

    variable_dtype = dtype

    @property
    def compute_dtype(self) -> backend.DType:
        """The dtype the layer computes in (the policy's; its weights are cast to it where read)."""
        return backend.dtype_of(self._compute_dtype)

    @property
    def dtype_policy(self):
        """The layer's :class:`descend.mixed_precision.Policy`."""
        return self._dtype_policy or mixed_precision.Policy(self._dtype.name)

    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        """Freeze (False) or unfreeze the layer and, as Keras, all its sublayers."""
        value = bool(value)
        for layer in self._flatten_layers():
            layer._trainable = value

    # -- the functional graph (Keras' ``layer.input`` / ``layer.output``) ------------------
    def _node_attribute(self, attr: str, what: str):
        nodes = self.__dict__.get("_inbound_nodes")
        if not nodes:
            raise AttributeError(f"The layer {self.name} has never been called and thus has no defined {what}.")
        values = getattr(nodes[0], attr)
        return values[0] if isinstance(values, list) and len(values) == 1 else values

    @property
    def input(self):
        """The symbolic input(s) of the layer's first call on KerasTensors (a functional graph, or a Sequential
        model with an ``Input``), as Keras' ``layer.input``."""
        return self._node_attribute("input_tensors", "input")

    @property
    def output(self):
        """The symbolic output(s) of the layer's first call on KerasTensors, as Keras' ``layer.output``: for
        feature extraction, ``Model(model.inputs, [layer.output for layer in model.layers])``."""
        return self._node_attribute("output_tensors", "output")

    # -- sublayers and weights -------------------------------------------------------
    def _flatten_layers(self, include_self: bool = True, recursive: bool = True) -> list:
        """This layer and its sublayers (attributes, and inside lists/tuples/dicts), depth first, each once."""
        out, seen = [], set()

        def visit(layer, top):
            if id(layer) in seen:
                return
            seen.add(id(layer))
            if include_self or not top:
                out.append(layer)
            if top or recursive:
                for child in layer._direct_sublayers():
                    visit(child, False)

        visit(self, True)
        return out

    def _direct_sublayers(self) -> list:
        d = self.__dict__
        return [v for key in self._tracked if key in d for v in nest.held(d[key], 3)
                if isinstance(v, Layer) and v is not self]

    def _own_variables(self) -> list:
        out = list(self._own_weights)
        seen = {id(v) for v in out}
        d = self.__dict__
        for key in self._tracked:
            value = d.get(key)
            if isinstance(value, Variable) and id(value) not in seen:
                seen.add(id(value))
                out.append(value)
        return out

    def _collect(self, which: str) -> list:
        """Weights of this layer and its sublayers, each once; a weight is trainable when it is and
        every layer on the way down to it is (a frozen layer freezes its sublayers, as Keras)."""
        out, seen_vars, seen_layers = [], set(), set()

        def visit(layer, parent_trainable):
            if id(layer) in seen_layers:
                return
            seen_layers.add(id(layer))
            t = parent_trainable and layer._trainable
            for v in layer._own_variables():
                if id(v) in seen_vars:
                    continue
                seen_vars.add(id(v))
                is_trainable = t and v.trainable
                if which == "all" or (which == "trainable") == is_trainable:
                    out.append(v)
            for child in layer._direct_sublayers():
                visit(child, t)

        visit(self, True)
        return out

    @property
    def weights(self) -> list:
        """Every weight of the layer and its sublayers, each once, own weights first."""
        return self._collect("all")

    @property
    def trainable_weights(self) -> list:
        """The weights a training step updates (none when ``trainable`` is False)."""
        return self._collect("trainable")

    @property
    def non_trainable_weights(self) -> list:
        """The other weights (moving statistics, and all weights of a frozen layer)."""
        return self._collect("non_trainable")

    variables = weights
    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights

    def get_weights(self) -> list:
        """The weights' values as NumPy arrays (copies), in ``weights`` order."""
        return [v.numpy() for v in self.weights]

    def set_weights(self, weights) -> None:
        """Assign NumPy arrays to the weights, in ``weights`` order (shapes must match)."""
        params = self.weights
        weights = list(weights)
        if len(weights) != len(params):
            raise ValueError(f"Layer '{self.name}' expects {len(params)} weight arrays; received {len(weights)}")
        for v, w in zip(params, weights):
            arr = np.asarray(w)
            if arr.shape != tuple(v.shape):
                raise ValueError(f"Layer '{self.name}' weight '{v.name}' has shape {tuple(v.shape)}; received an "
                                 f"array of shape {arr.shape}")
        for v, w in zip(params, weights):
            v.assign(np.asarray(w, dtype=v.dtype.dtype))

    def count_params(self) -> int:
        """The number of scalars in the layer's weights (the layer must be built)."""
        if not self.built:
            raise ValueError(f"Layer '{self.name}' is not built yet: call it on an input (or build it) before "
                             "count_params()")
        return int(sum(v.size for v in self.weights))

    # -- weight creation ------------------------------------------------------------
    @contextlib.contextmanager
    def _own_name_scope(self):
        """Open ``name_scope(self.name)`` unless this layer's scope is already open."""
        if self._scope_depth:
            self._scope_depth += 1
            try:
                yield
            finally:
                self._scope_depth -= 1
            return
        with name_scope(self.name) if self.name else contextlib.nullcontext():  # (a layer named '' adds none)
            self._scope_depth = 1
            try:
                yield
            finally:
                self._scope_depth = 0

    def add_weight(self, *args, **kwargs) -> Variable:
        """Create a weight Variable named ``<layer scope>/<name>`` and track it.

        Positional arguments follow Keras 3 (``shape, initializer, dtype,
        trainable, autocast, regularizer, constraint, aggregation, name``) or,
        when the first one is a string, Keras 2 / tf.keras (``name, shape,
        dtype, initializer, regularizer, trainable, constraint``), so
        ``add_weight("kernel", shape=(3, 4))`` works as in TF 2 code.

        Args:
            shape: the weight's shape (default ``()``).
            initializer: a name (``"glorot_uniform"``), Initializer or callable
                ``(shape, dtype)``; defaults to ``"glorot_uniform"`` for float
                dtypes and ``"zeros"`` otherwise.
            dtype: defaults to the layer's dtype.
            trainable: whether training updates it (default True).
            regularizer: a name, Regularizer or callable ``weight -> scalar``;
                its penalty is added to ``losses`` (trainable weights only).
            constraint: a name, Constraint or callable ``value -> value`` the
                optimizer applies after each update.
            name: the weight's base name (default ``"variable"``).

        Returns:
            The new Variable.
        """
        order = _KERAS2_ADD_WEIGHT if args and isinstance(args[0], str) else _KERAS3_ADD_WEIGHT
        if len(args) > len(order):
            raise TypeError(f"add_weight() takes at most {len(order)} positional arguments; received {len(args)}")
        for key, value in zip(order, args):
            if key in kwargs:
                raise TypeError(f"add_weight() got multiple values for argument '{key}'")
            kwargs[key] = value
        return self._add_weight(**kwargs)

    def _add_weight(self, shape=None, initializer=None, dtype=None, trainable=True, regularizer=None,
                    constraint=None, name=None, **kwargs) -> Variable:
        for ignored in _IGNORED_ADD_WEIGHT:
            kwargs.pop(ignored, None)
        if kwargs:
            raise TypeError(f"add_weight() got unexpected keyword arguments: {sorted(kwargs)}")
        if trainable is None:
            trainable = True
        shape = () if shape is None else shape
        try:
            shape = tuple(int(s) for s in ((shape,) if isinstance(shape, (int, np.integer)) else shape))
        except (TypeError, ValueError):
            raise ValueError(f"add_weight: shape must be a tuple of non-negative integers. Received: "
                             f"shape={shape!r}") from None
        if any(s < 0 for s in shape):
            raise ValueError(f"add_weight: shape must be a tuple of non-negative integers. Received: shape={shape}")
        d = self._dtype if dtype is None else backend.np_dtype(dtype)
        if initializer is None:
            initializer = "glorot_uniform" if d.kind == "f" else "zeros"
        init = initializers.get(initializer)
        reg = regularizers.get(regularizer)
        con = constraints.get(constraint)
        _rebuild.charge_weight(self, name or "variable", shape, d)  # a model rebuilt from a file: bounded
        with self._own_name_scope():
            var = KerasVariable(lambda: init(shape, dtype=d), name=name or "variable", trainable=trainable, dtype=d,
                                constraint=con)
        self._own_weights.append(var)
        self._weight_names[id(var)] = name or "variable"
        if reg is not None:
            self._regularized.append((var, reg))
        try:
            for hook in list(_weight_hooks):
                hook(var)
        except BaseException:  # a hook refused it (a restored value of another shape): the layer keeps nothing
            self._own_weights[:] = [v for v in self._own_weights if v is not var]
            self._weight_names.pop(id(var), None)
            self._regularized[:] = [(v, r) for v, r in self._regularized if v is not var]
            raise
        return var

    # -- losses ---------------------------------------------------------------------
    def add_loss(self, loss) -> None:
        """Add a loss term: a Tensor (kept until the next outermost call) or a zero-argument
        callable (evaluated each time ``losses`` is read)."""
        if callable(loss) and not isinstance(loss, (Tensor, Variable)):
            self._loss_fns.append(loss)
            return
        if not isinstance(loss, (Tensor, Variable)):
            loss = convert_to_tensor(np.asarray(loss, dtype=self._dtype))
        self._call_losses.append(loss)
        _layers_with_call_losses.add(self)

    @property
    def losses(self) -> list:
        """Scalar loss terms: ``add_loss`` terms of the latest call, then weight penalties from the
        current values of the trainable weights (recomputed on every read)."""
        out = []
        layers = self._flatten_layers()
        for layer in layers:
            out.extend(layer._call_losses)
            for fn in layer._loss_fns:
                value = fn()
                out.append(value if isinstance(value, (Tensor, Variable)) else convert_to_tensor(value))
        trainable = {id(v) for v in self.trainable_weights}
        for layer in layers:
            for var, reg in layer._regularized:
                if id(var) in trainable:
                    penalty = reg(var)
                    if not isinstance(penalty, (Tensor, Variable)):
                        penalty = Tensor(np.asarray(penalty, dtype=var.dtype.dtype))
                    out.append(penalty)
        return out

    def _clear_losses(self) -> None:
        if not _layers_with_call_losses:
            return
        for layer in self._flatten_layers():
            if layer._call_losses:
                layer._call_losses.clear()
                _layers_with_call_losses.discard(layer)

    # -- calling ------------------------------------------------------------------
    def build(self, input_shape) -> None:
        """Create the weights for inputs of ``input_shape`` (a tuple; lists for several inputs)."""
        self.built = True

    def _build_at_init(self) -> None:
        """Mark a layer that has no weights built as soon as it is made (Keras 3 does so for its stateless
        layers: activations, pooling, dropout, masking), unless a subclass defines its own ``build``."""
        if type(self).build is Layer.build:
            self.built = True

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError(f"Layer {type(self).__name__} does not implement call()")

    def _first_input(self, kwargs: dict):
        """Take the first argument of ``call`` (its inputs) out of ``kwargs``, where a caller named it."""
        params = [p for p in inspect.signature(type(self).call).parameters.values()][1:]
        first = params[0].name if params and params[0].kind in (params[0].POSITIONAL_ONLY,
                                                                params[0].POSITIONAL_OR_KEYWORD) else None
        if first is None or first not in kwargs:
            raise TypeError(f"Layer '{self.name}' ({type(self).__name__}) was called without inputs: pass them "
                            f"first, or by the name `call` gives them ({first!r}). Received keyword arguments "
                            f"{sorted(kwargs)}")
        return kwargs.pop(first)

    def _accepts(self, arg: str) -> bool:
        cls = type(self)
        params = cls.__dict__.get("_call_params")
        if params is None:
            params = _accepted(cls.call)
            cls._call_params = params
        names, var_kw = params
        return arg in names or var_kw

    def _convert_inputs(self, x):
        if isinstance(x, (list, tuple)) and _has_tensor(x):
            return type(x)(self._convert_inputs(v) for v in x)
        if isinstance(x, dict):
            return {k: self._convert_inputs(v) for k, v in x.items()}
        if x is None:
            return x
        if not isinstance(x, (Tensor, Variable)):
            if isinstance(x, (np.ndarray, np.generic)):
                x = convert_to_tensor(x)
            else:
                try:
                    x = convert_to_tensor(x, self._compute_dtype if self._autocast_inputs else None)
                except TypeError:
                    x = convert_to_tensor(x)
        if self._autocast_inputs and x.dtype.kind == "f" and x.dtype != self._compute_dtype:
            x = math_ops.cast(x, dtype=self._compute_dtype)
        return x

    def __call__(self, inputs=_NO_INPUTS, *args, training=None, mask=None, **kwargs):
        if inputs is _NO_INPUTS:  # the first input by its name, as Keras allows: mha(query=q, value=v)
            inputs = self._first_input(kwargs)
        if type(inputs) is not Tensor and (any_symbolic(inputs) or any_symbolic(args) or any_symbolic(kwargs)
                                           or isinstance(mask, KerasTensor)):
            if training is not None:
                kwargs["training"] = training
            if mask is not None:
                kwargs["mask"] = mask
            return symbolic_call(self, (inputs, *args), kwargs)
        if mask is None and has_keras_masks():
            mask = _find_mask(inputs)
        stack = _training_stack()
        if not stack:  # an outermost call: forget the previous call's add_loss terms
            self._clear_losses()
        if training is None and stack:
            training = stack[-1]  # inherit the caller's mode, as Keras
        if type(inputs) is not Tensor or (self._autocast_inputs and inputs._value.dtype != self._compute_dtype
                                          and inputs._value.dtype.kind == "f"):
            inputs = self._convert_inputs(inputs)
        if training is not None and self._accepts("training"):
            kwargs["training"] = bool(training)
        if mask is not None and self._accepts("mask"):
            kwargs["mask"] = mask
        # the scope is needed while weights may be created: until this layer and every sublayer is built
        scoped = not self._subtree_built
        if scoped:
            scope = self._own_name_scope()
            scope.__enter__()
        stack.append(training)
        try:
            spec = self.__dict__.get("input_spec")
            if spec is not None:  # a layer that declares what it accepts (keras.InputSpec)
                from .input_spec import assert_input_compatibility

                assert_input_compatibility(spec, inputs, self.name)
            if not self.built:
                if _rebuild.current() is not None:
                    _rebuild.note_layer(self)
                shape = _shape_of(inputs)
                self.build(shape)
                self.built = True
                self.__dict__.setdefault("_build_shapes_dict", {"input_shape": shape})  # get_build_config
            if self._compute_dtype != self._dtype:  # mixed precision: the weights read in the compute dtype
                with _autocast_weights(self):
                    outputs = self.call(inputs, *args, **kwargs)
            else:
                outputs = self.call(inputs, *args, **kwargs)
        except BaseException:
            stack.pop()
            if scoped:
                scope.__exit__(*sys.exc_info())
            raise
        stack.pop()
        if scoped:
            scope.__exit__(None, None, None)
            object.__setattr__(self, "_subtree_built", all(layer.built for layer in self._flatten_layers()))
        if self.supports_masking and (mask is not None or type(self).compute_mask is not Layer.compute_mask):
            out_mask = self.compute_mask(inputs, mask)
            if isinstance(out_mask, list) and isinstance(outputs, (list, tuple)) and len(out_mask) == len(outputs):
                for out, m in zip(outputs, out_mask):  # one mask per output (an RNN's sequence and states)
                    if m is not None:
                        set_mask(out, m)
            elif out_mask is not None:
                for out in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
                    set_mask(out, out_mask)
        # the output shapes of the last call, for summary() (Keras 3 records a node per call)
        if isinstance(outputs, Tensor):
            self.__dict__["_last_output_shapes"] = outputs.shape
        elif isinstance(outputs, (list, tuple)) and all(isinstance(o, Tensor) for o in outputs):
            self.__dict__["_last_output_shapes"] = [o.shape for o in outputs]
        if self.activity_regularizer is not None:
            for out in outputs if isinstance(outputs, (list, tuple)) else [outputs]:
                if isinstance(out, Tensor) and out.dtype.kind == "f":
                    batch = out.shape[0] if out.ndim else 1
                    # penalty / batch size, so that its weight does not grow with the batch
                    self.add_loss(math_ops.divide(self.activity_regularizer(out), float(max(batch, 1))))
        return outputs

    def _float_input(self, x):
        """``x`` as a floating Tensor of the layer's dtype (integer inputs are cast)."""
        if x.dtype.kind != "f":
            x = math_ops.cast(x, dtype=self._compute_dtype)
        return x

    def compute_output_shape(self, input_shape):
        raise NotImplementedError(f"Layer {type(self).__name__} does not implement compute_output_shape()")

    def compute_mask(self, inputs, mask=None):
        """The Keras mask of the output: the input's mask when ``supports_masking``, else None."""
        return mask if self.supports_masking else None

    # -- config ---------------------------------------------------------------------
    def get_config(self) -> dict:
        """The constructor arguments: ``cls.from_config(layer.get_config())`` makes an equivalent layer.

        ``dtype`` is the dtype-policy config Keras 3 writes (``{"module": "keras", "class_name":
        "DTypePolicy", "config": {"name": "float32"}, "registered_name": None}``); ``from_config``
        and the constructor accept it as well as a dtype name. A layer or other object that a
        subclass's ``get_config`` returns is written as its own config by ``serialize_keras_object``
        (``model.save``, ``to_json``); its ``from_config`` rebuilds it with
        :func:`descend.layers.deserialize`."""
        name = self._dtype_policy.name if self._compute_dtype != self._dtype else self._dtype.name
        config = {"name": self.name, "trainable": self.trainable,
                  "dtype": {"module": "keras", "class_name": "DTypePolicy", "config": {"name": name},
                            "registered_name": None}}
        if self.activity_regularizer is not None:
            config["activity_regularizer"] = regularizers.serialize(self.activity_regularizer)
        return config

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    # -- saving hooks (Keras 3's): model.save / load_model, save_weights / load_weights call them -----------
    def _saved_variables(self) -> list:
        own = self._own_variables()
        return [v for v in own if v.trainable] + [v for v in own if not v.trainable]

    def save_own_variables(self, store) -> None:
        """Write the layer's own variables (not its sublayers') into ``store``, a dict-like object
        (``store[key] = array``): as ``"0"``, ``"1"``, ..., trainable ones first, each kind in creation
        order, Keras 3's keys and order in the weights file. Override it (with :meth:`load_own_variables`)
        to store other state, or under other names; the file then holds what the override stores."""
        for i, v in enumerate(self._saved_variables()):
            store[str(i)] = v.numpy()

    def load_own_variables(self, store) -> None:
        """Assign the layer's own variables from ``store`` (what :meth:`save_own_variables` wrote): the keys
        and every shape are checked before any variable is assigned.

        Raises:
            ValueError: the store holds other keys than ``"0"``, ``"1"``, ... for each variable, or a value
                of another shape.
        """
        variables = self._saved_variables()
        keys = sorted(store.keys())
        expected = [str(i) for i in range(len(variables))]
        names = [v.name for v in variables]
        if keys != sorted(expected):
            raise ValueError(f"Layer '{self.name}' expected {len(variables)} variables {names} under the keys "
                             f"{expected}; received {len(keys)}: {keys[:20]}")
        values, bad = [], []
        for i, v in enumerate(variables):
            arr = np.asarray(store[str(i)])
            if arr.shape != tuple(v.shape):
                bad.append(f"'{i}' (variable '{v.name}') has shape {arr.shape}; expected {tuple(v.shape)}")
            values.append(arr)
        if bad:
            raise ValueError(f"Layer '{self.name}': " + "; ".join(bad))
        for v, arr in zip(variables, values):
            v.assign(arr)

    def get_build_config(self) -> dict | None:
        """Keras 3's: what :meth:`build_from_config` needs to build the layer again, by default the
        arguments its ``build`` was last called with (``{"input_shape": ...}``, or ``{"shapes_dict": ...}``
        for several); None before it was built by a ``build``. ``model.save`` writes it in the layer's
        config; loading calls :meth:`build_from_config` with it."""
        shapes = self.__dict__.get("_build_shapes_dict")
        if shapes is None:
            return None
        if len(shapes) == 1:
            return {"input_shape": next(iter(shapes.values()))}
        return {"shapes_dict": dict(shapes)}

    def build_from_config(self, config) -> None:
        """Build the layer from :meth:`get_build_config`'s dict: ``build(input_shape)``, or
        ``build(**shapes_dict)``. Override both to build with other arguments."""
        if not config:
            return
        if not isinstance(config, dict):
            raise ValueError(f"Layer '{self.name}': a build config must be a dict. Received: {str(config)[:200]}")
        if "input_shape" in config:
            arguments = {"input_shape": _checked_shape(config["input_shape"],
                                                       f"layer '{self.name}' build_config input_shape")}
            self.build(arguments["input_shape"])
        elif "shapes_dict" in config:
            shapes = config["shapes_dict"]
            if not isinstance(shapes, dict) or not all(isinstance(k, str) for k in shapes):
                raise ValueError(f"Layer '{self.name}': build_config shapes_dict must be a dict of shapes. "
                                 f"Received: {str(shapes)[:200]}")
            arguments = {k: _checked_shape(v, f"layer '{self.name}' build_config shapes_dict['{k}']")
                         for k, v in shapes.items()}
            self.build(**arguments)
        else:
            return
        self.__dict__.setdefault("_build_shapes_dict", arguments)  # a build of the base class records nothing

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


_POLICY_CLASSES = ("DTypePolicy", "FloatDTypePolicy", "Policy")


def dtype_from_config(config) -> str:
    """The policy name in a dtype-policy config (``{"class_name": "DTypePolicy", "config": {"name": ...}}``)."""
    inner = config.get("config") if isinstance(config, dict) else None
    name = inner.get("name") if isinstance(inner, dict) else None
    if config.get("class_name") not in _POLICY_CLASSES or not isinstance(name, str):
        text = repr(config)
        raise ValueError(f"`dtype` must be a dtype name or a DTypePolicy config ({{'class_name': 'DTypePolicy', "
                         f"'config': {{'name': 'float32'}}}}). Received: {text if len(text) < 200 else text[:197] + '...'}")
    return name


def _checked_shape(shape, what: str):
    """A shape from a build config (a file): a list of at most 32 sizes (non-negative ints or None), a tuple
    of them back; nested lists for several inputs (at most 64 shapes)."""
    def sizes(s):
        return (isinstance(s, (list, tuple)) and len(s) <= 32
                and all(d is None or (isinstance(d, int) and not isinstance(d, bool) and d >= 0) for d in s))

    if shape is None or sizes(shape):
        return None if shape is None else tuple(shape)
    if isinstance(shape, (list, tuple)) and 0 < len(shape) <= 64 and all(sizes(s) for s in shape):
        return [tuple(s) for s in shape]
    raise ValueError(f"{what} must be a list of at most 32 sizes (non-negative ints or null), or a list of such "
                     f"lists. Received: {str(shape)[:200]}")


def _wrap_build(build):
    """Run a subclass's ``build`` inside the layer's name scope, mark the layer built and record its
    arguments (:meth:`Layer.get_build_config`)."""
    signature = inspect.signature(build)

    @functools.wraps(build)
    def wrapped(self, *args, **kwargs):
        with self._own_name_scope():
            result = build(self, *args, **kwargs)
        self.built = True
        try:
            arguments = dict(signature.bind(self, *args, **kwargs).arguments)
        except TypeError:
            arguments = None
        if arguments is not None:
            arguments.pop(next(iter(signature.parameters)), None)  # self
            object.__setattr__(self, "_build_shapes_dict", arguments)
        for hook in list(_build_hooks):  # e.g. checkpoint values waiting for Variables made in build
            hook(self)
        return result

    wrapped._descend_build = True
    return wrapped


# serialization helpers shared by the layer modules
def _serialize_activation(fn):
    return activations.serialize(fn) or "linear"


@contextlib.contextmanager
def _autocast_weights(layer):
    """While ``layer.call`` runs under a mixed policy, its floating Variable attributes, and those of its
    sublayers of a mixed policy (an RNN's cell, whose methods the RNN calls directly), read as casts to the compute
    dtype (recorded on tapes, so their gradients reach the variables in the variable dtype)."""
    swapped = [(owner, k, v) for owner in layer._flatten_layers()
               if owner._compute_dtype != owner._dtype and not getattr(type(owner), "_float32_weights", False)
               for k, v in vars(owner).items()
               if type(v) is Variable and v._value.dtype == owner._dtype and v._value.dtype.kind == "f"]
    for owner, k, v in swapped:
        object.__setattr__(owner, k, math_ops.cast(v, dtype=owner._compute_dtype))
    try:
        yield
    finally:
        for owner, k, v in swapped:
            object.__setattr__(owner, k, v)
