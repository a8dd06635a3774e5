"""TF 1's graph collections, ``variable_scope`` and ``get_variable``, over the Variables that are alive.

TF 1 programs find their variables through collections (``tf.get_collection(
tf.GraphKeys.TRAINABLE_VARIABLES, scope="generator")``) and share them with
``variable_scope(..., reuse=...)`` and ``get_variable``. descend has no graph:

* ``GraphKeys.GLOBAL_VARIABLES`` is every Variable that is still alive, in creation
  order (held by weak references: a Variable nobody refers to any more drops out);
  ``GraphKeys.TRAINABLE_VARIABLES`` the trainable ones among them;
* other collections hold what :func:`add_to_collection` put there (strong references, as TF);
  ``GraphKeys.REGULARIZATION_LOSSES`` also computes, when read, the penalty of each live
  Variable created by :func:`get_variable` with a ``regularizer`` (the current value, so
  it can be differentiated under a tape);
* ``scope=`` filters by ``re.match`` on the item's ``name``, as TF does;
* :func:`variable_scope` prefixes the names of Variables created inside (it is a
  ``name_scope`` for them too); :func:`get_variable` creates ``<scope>/<name>`` or, with
  ``reuse=True`` or ``AUTO_REUSE``, returns the live one of that name;
* :func:`reset_default_graph` forgets all of it.

Example:
    >>> import descend as ds
    >>> v1 = ds.compat.v1
    >>> v1.reset_default_graph()
    >>> with v1.variable_scope("gen"):
    ...     w = v1.get_variable("w", shape=(2,), initializer=v1.zeros_initializer())
    >>> with v1.variable_scope("gen", reuse=True):
    ...     same = v1.get_variable("w")
    >>> same is w, w.name
    (True, 'gen/w:0')
    >>> [v.name for v in v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, scope="gen")]
    ['gen/w:0']
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import weakref

import numpy as np

from ... import backend, initializers
from ...framework.variable import Variable, clear_session_hooks, live_variables, name_scope, no_name_scope, reset_live_variables
from .optimizer import reset_live_optimizers

__all__ = [
    "AUTO_REUSE", "GraphKeys", "VariableScope", "add_to_collection", "add_to_collections", "all_variables",
    "get_collection", "get_collection_ref", "get_variable", "get_variable_scope", "global_variables",
    "reset_default_graph", "trainable_variables", "variable_scope", "zeros_initializer",
]


class _AutoReuse:
    def __repr__(self):
        return "AUTO_REUSE"


#: ``reuse=AUTO_REUSE``: ``get_variable`` returns the variable when it exists and creates it otherwise
AUTO_REUSE = _AutoReuse()


class GraphKeys:
    """The standard collection names (TF 1's ``tf.GraphKeys``)."""

    GLOBAL_VARIABLES = "variables"
    VARIABLES = GLOBAL_VARIABLES
    TRAINABLE_VARIABLES = "trainable_variables"
    LOCAL_VARIABLES = "local_variables"
    MODEL_VARIABLES = "model_variables"
    REGULARIZATION_LOSSES = "regularization_losses"
    LOSSES = "losses"
    UPDATE_OPS = "update_ops"
    SUMMARIES = "summaries"
    GLOBAL_STEP = "global_step"
    TRAIN_OP = "train_op"


_lock = threading.Lock()
_store: dict = {}         # get_variable's full name -> weak reference
_regularized: list = []   # (weak reference, regularizer) of get_variable's variables
_collections: dict = {}   # other collections: name -> list


def _reset_after_fork() -> None:
    # a fork while another thread held the lock would leave it locked in the child
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def _alive() -> list:
    return live_variables()


def reset_default_graph() -> None:
    """Forget every collection, the variables tracked so far and ``get_variable``'s store (TF 1's
    ``tf.reset_default_graph``). The Variables themselves are not changed; neither are the TF 1 optimizers,
    which a ``Saver`` no longer hands restored slots to."""
    reset_live_variables()
    reset_live_optimizers()
    with _lock:
        _store.clear()
        _regularized.clear()
        _collections.clear()


clear_session_hooks.append(reset_default_graph)


def _filter(items, scope):
    if scope is None:
        return list(items)
    if not isinstance(scope, str):
        raise TypeError(f"`scope` must be a string (a regular expression) or None. Received: scope={scope!r}")
    pattern = re.compile(scope)
    return [x for x in items if isinstance(getattr(x, "name", None), str) and pattern.match(x.name)]


def get_collection(key, scope=None) -> list:
    """A copy of the collection ``key`` (items whose ``name`` ``re.match``-es ``scope`` when given)."""
    if key == GraphKeys.GLOBAL_VARIABLES:
        items = _alive()
    elif key == GraphKeys.TRAINABLE_VARIABLES:
        items = [v for v in _alive() if v.trainable]
    elif key == GraphKeys.REGULARIZATION_LOSSES:
        items = list(_collections.get(key, []))
        with _lock:
            pairs = [(r(), reg) for r, reg in _regularized]
        for var, reg in pairs:
            if var is not None and (scope is None or re.match(scope, var.name)):
                items.append(reg(var))
        return items if scope is None else [x for x in items if not hasattr(x, "name") or re.match(scope, x.name)]
    else:
        items = _collections.get(key, [])
    return _filter(items, scope)


def get_collection_ref(key) -> list:
    """The list of collection ``key`` itself (add to it in place). The variable collections are computed
    from the live Variables and have no list to hand out."""
    if key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
        raise ValueError(f"collection {key!r} is computed from the live Variables; use get_collection")
    return _collections.setdefault(key, [])


def add_to_collection(name, value) -> None:
    """Append ``value`` to the collection ``name`` (the variable collections already hold every Variable)."""
    if name in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
        if isinstance(value, Variable):
            return  # already there while it lives
        raise TypeError(f"collection {name!r} holds Variables. Received: {type(value).__name__}")
    _collections.setdefault(name, []).append(value)


def add_to_collections(names, value) -> None:
    """Append ``value`` to each collection in ``names`` (a name or a list of names)."""
    for name in [names] if isinstance(names, str) else list(dict.fromkeys(names)):
        add_to_collection(name, value)


def global_variables(scope=None) -> list:
    """Every live Variable, in creation order (TF 1's ``tf.global_variables``)."""
    return get_collection(GraphKeys.GLOBAL_VARIABLES, scope)


all_variables = global_variables


def trainable_variables(scope=None) -> list:
    """Every live trainable Variable (TF 1's ``tf.trainable_variables``)."""
    return get_collection(GraphKeys.TRAINABLE_VARIABLES, scope)


# ------------------------------------------------------------------------------------------ variable scopes
class VariableScope:
    """A variable scope: its ``name``, ``reuse`` setting, and the defaults of ``get_variable`` inside it."""

    def __init__(self, name: str = "", reuse=None, initializer=None, regularizer=None, dtype=None):
        self.name = name
        self._reuse = reuse
        self.initializer = initializer
        self.regularizer = regularizer
        self.dtype = dtype

    @property
    def reuse(self):
        return self._reuse

    @property
    def original_name_scope(self) -> str:
        return self.name + "/" if self.name else ""

    def reuse_variables(self) -> None:
        """From now on, ``get_variable`` in this scope returns existing variables."""
        self._reuse = True

    def set_initializer(self, initializer) -> None:
        self.initializer = initializer

    def set_regularizer(self, regularizer) -> None:
        self.regularizer = regularizer

    @property
    def partitioner(self):
        """Always None: descend does not partition variables."""
        return None

    def set_partitioner(self, partitioner) -> None:
        if partitioner is not None:
            raise ValueError(f"descend does not partition variables; only None is accepted. Received: {partitioner!r}")

    def __repr__(self):
        return f"<VariableScope {self.name!r} reuse={self._reuse!r}>"


_scopes = threading.local()


def _scope_list() -> list:
    s = getattr(_scopes, "stack", None)
    if s is None:
        s = _scopes.stack = [VariableScope("")]
    return s


def get_variable_scope() -> VariableScope:
    """The innermost active :class:`VariableScope` (the root scope, named '', at top level)."""
    return _scope_list()[-1]


@contextlib.contextmanager
def variable_scope(name_or_scope=None, default_name=None, values=None, initializer=None, regularizer=None,
                   caching_device=None, partitioner=None, custom_getter=None, reuse=None, dtype=None,
                   use_resource=None, constraint=None, auxiliary_name_scope=True):
    """Enter a variable scope: ``get_variable`` (and ``Variable``) names inside get its prefix.

    Args:
        name_or_scope: a name (nested under the current scope) or a :class:`VariableScope` (re-entered by its
            full name).
        default_name: the name when ``name_or_scope`` is None (made unique: ``name``, ``name_1`` ...).
        initializer, regularizer, dtype: defaults for ``get_variable`` inside.
        reuse: True (``get_variable`` only returns existing variables), :data:`AUTO_REUSE` (returns or
            creates) or None (inherit; at top level: only creates). Once True, nested scopes keep it.

    ``values``, ``caching_device``, ``partitioner``, ``custom_getter``, ``use_resource``, ``constraint`` and
    ``auxiliary_name_scope`` are TF 1 graph options; only their default values are accepted.
    """
    for arg, value in (("caching_device", caching_device), ("partitioner", partitioner),
                       ("custom_getter", custom_getter), ("constraint", constraint)):
        if value is not None:
            raise ValueError(f"variable_scope: `{arg}` is not supported by descend (eager, one device). "
                             f"Received: {arg}={value!r}")
    if reuse not in (None, True, False, AUTO_REUSE):
        raise ValueError(f"`reuse` must be True, False, None or AUTO_REUSE. Received: reuse={reuse!r}")
    parent = get_variable_scope()
    if isinstance(name_or_scope, VariableScope):
        full = name_or_scope.name
        base_reuse = name_or_scope.reuse
        initializer = initializer if initializer is not None else name_or_scope.initializer
        regularizer = regularizer if regularizer is not None else name_or_scope.regularizer
        dtype = dtype if dtype is not None else name_or_scope.dtype
    else:
        if name_or_scope is None:
            if default_name is None:
                raise ValueError("variable_scope: give `name_or_scope` or `default_name`")
            prefix = parent.original_name_scope
            taken = {v.scoped_name for v in _alive()}
            name, i = default_name, 0
            while any(t == f"{prefix}{name}" or t.startswith(f"{prefix}{name}/") for t in taken):
                i += 1
                name = f"{default_name}_{i}"
        else:
            if not isinstance(name_or_scope, str) or not name_or_scope:
                raise ValueError("variable_scope: `name_or_scope` must be a non-empty string or a VariableScope. "
                                 f"Received: {name_or_scope!r}")
            name = name_or_scope
        full = parent.original_name_scope + name
        base_reuse = None
        initializer = initializer if initializer is not None else parent.initializer
        regularizer = regularizer if regularizer is not None else parent.regularizer
        dtype = dtype if dtype is not None else parent.dtype
    if parent.reuse is True:
        effective = True
    elif reuse is not None:
        effective = reuse
    elif base_reuse is not None:
        effective = base_reuse
    else:
        effective = parent.reuse
    scope = VariableScope(full, effective, initializer, regularizer, dtype)
    stack = _scope_list()
    stack.append(scope)
    try:
        with no_name_scope(), (name_scope(full) if full else contextlib.nullcontext()):
            yield scope
    finally:
        stack.pop()


def zeros_initializer(dtype=None):
    """TF 1's ``tf.zeros_initializer()``."""
    return initializers.Zeros()


def get_variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=None, collections=None,
                 caching_device=None, partitioner=None, validate_shape=True, use_resource=None, custom_getter=None,
                 constraint=None, synchronization=None, aggregation=None):
    """The Variable ``<current variable scope>/<name>``: created, or with ``reuse`` the live one of that name.

    Args:
        name: the name inside the current scope.
        shape: required to create one unless ``initializer`` is a value (array, number, Tensor).
        dtype: default the scope's, else float32.
        initializer: an initializer (or its name), or a value; default the scope's, else ``glorot_uniform``
            for floats and zeros otherwise (TF 1's defaults).
        regularizer: ``regularizer(var)``, read through ``GraphKeys.REGULARIZATION_LOSSES``.
        trainable: default True.
        collections: extra collection names to add the Variable to.
        constraint: applied by optimizers after each update.

    Raises:
        ValueError: the variable exists and the scope does not reuse (``"... already exists, disallowed"``),
            or it does not exist and the scope has ``reuse=True``, or a reused variable's shape or dtype differs
            from the ones asked for.
    """
    for arg, value in (("caching_device", caching_device), ("partitioner", partitioner),
                       ("custom_getter", custom_getter)):
        if value is not None:
            raise ValueError(f"get_variable: `{arg}` is not supported by descend. Received: {arg}={value!r}")
    if not isinstance(name, str) or not name:
        raise ValueError(f"get_variable: `name` must be a non-empty string. Received: name={name!r}")
    scope = get_variable_scope()
    full = scope.original_name_scope + name
    with _lock:
        ref = _store.get(full)
    existing = ref() if ref is not None else None
    if existing is not None:
        if scope.reuse is not True and scope.reuse is not AUTO_REUSE:
            raise ValueError(f"Variable {full} already exists, disallowed. Did you mean to set reuse=True or "
                             "reuse=tf.AUTO_REUSE in VarScope?")
        if shape is not None and validate_shape and tuple(int(s) for s in shape) != existing.shape:
            raise ValueError(f"Trying to share variable {full}, but specified shape {tuple(shape)} and found shape "
                             f"{existing.shape}.")
        if dtype is not None and backend.np_dtype(dtype) != existing._value.dtype:
            raise ValueError(f"Trying to share variable {full}, but specified dtype {backend.np_dtype(dtype).name} "
                             f"and found dtype {existing._value.dtype.name}.")
        return existing
    if scope.reuse is True:
        raise ValueError(f"Variable {full} does not exist, or was not created with tf.get_variable(). Did you mean "
                         "to set reuse=tf.AUTO_REUSE in VarScope?")
    d = backend.np_dtype(dtype if dtype is not None else (scope.dtype if scope.dtype is not None else "float32"))
    init = initializer if initializer is not None else scope.initializer
    if init is None:
        init = "glorot_uniform" if d.kind == "f" else "zeros"
    if isinstance(init, (str, initializers.Initializer)) or (callable(init) and not isinstance(init, Variable)):
        if shape is None:
            raise ValueError(f"get_variable: the shape of new variable {full} must be fully defined, but is None")
        fn = initializers.get(init) if isinstance(init, str) else init
        shape = tuple(int(s) for s in shape)
        make = lambda: fn(shape, dtype=d)  # noqa: E731 -- evaluated by Variable
    else:
        value = np.asarray(init.numpy() if hasattr(init, "numpy") else init, dtype=d)
        if shape is not None and validate_shape and tuple(int(s) for s in shape) != value.shape:
            raise ValueError(f"get_variable: the initial value of {full} has shape {value.shape}; shape={tuple(shape)}")
        make = value
    with no_name_scope():
        var = Variable(make, name=full, trainable=True if trainable is None else bool(trainable), dtype=d,
                       constraint=constraint)
    reg = regularizer if regularizer is not None else scope.regularizer
    with _lock:
        _store[full] = weakref.ref(var)
        if reg is not None:
            _regularized.append((weakref.ref(var), reg))
    for c in [collections] if isinstance(collections, str) else list(collections or ()):
        if c not in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.TRAINABLE_VARIABLES):
            add_to_collection(c, var)
    return var
