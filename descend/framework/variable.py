"""``Variable``: named mutable state, and the name scopes that name it.

Every mutation goes through a method here and bumps ``_version``, so a
gradient tape can tell that a value it recorded has since been overwritten.
Updates are in place: the array object behind a variable never changes, so
it may be a view into a larger buffer (an optimizer's flat arena).
"""

from __future__ import annotations

import contextlib
import os
import re
import threading
import weakref

import numpy as np

from .. import backend
from . import context as _context
from . import trace as _trace
from .indexed_slices import IndexedSlices
from .ops_bridge import FUNCTIONS as _ops
from .tensor import ArrayLike, Tensor, numpy_text, to_array
from .validation import check_index_range

__all__ = ["Variable", "KerasVariable", "name_scope", "no_name_scope", "current_name_scope", "unique_name",
           "clear_session", "live_variables", "overwrites_in_use", "reset_live_variables"]

_NAME_RE = re.compile(r"^[A-Za-z0-9_.\-/]+$")
_state = threading.local()
_taken_names: set[str] = set()
_next_suffix: dict[str, int] = {}  # base name -> the next suffix to try: reserving a name is O(1) amortized
_taken_lock = threading.Lock()
_live: list = []  # weak references to every Variable created since reset_live_variables(), in creation order
_live_lock = threading.Lock()
_tracing = _trace.active  # the recorders of descend.function traces; shared list object


def _scope_stack() -> list[str]:
    s = getattr(_state, "scopes", None)
    if s is None:
        s = _state.scopes = []
    return s


def current_name_scope() -> str:
    """The active scope prefix, e.g. ``"sequential/dense"`` ('' at top level)."""
    return "/".join(_scope_stack())


@contextlib.contextmanager
def name_scope(name: str):
    """Prefix the names of variables created inside with ``name/``.

    Example:
        >>> import descend as ds
        >>> ds.clear_session()
        >>> with ds.name_scope("dense"):
        ...     k = ds.Variable([1.0], name="kernel")
        >>> k.name
        'dense/kernel:0'
    """
    if not isinstance(name, str) or not name or not _NAME_RE.match(name):
        raise ValueError(f"name_scope expects a non-empty name of letters, digits and _.-/. Received: {name!r}")
    stack = _scope_stack()
    parts = name.strip("/").split("/")
    stack.extend(parts)
    try:
        yield current_name_scope()
    finally:
        del stack[len(stack) - len(parts):]


@contextlib.contextmanager
def no_name_scope():
    """Create variables at the top level inside this context, whatever scope is active
    (optimizer slots are named after their variable, not after the caller's scope)."""
    stack = _scope_stack()
    saved = stack[:]
    stack.clear()
    try:
        yield
    finally:
        stack[:] = saved


def unique_name(name: str) -> str:
    """Reserve ``name`` or, if taken, the first free ``name_1``, ``name_2``...

    Names are only released all at once (:func:`clear_session`), so the next free
    suffix of each base name only grows: it is kept per base name, and reserving
    costs O(1) however many names were taken before.
    """
    with _taken_lock:
        if name not in _taken_names:
            _taken_names.add(name)
            return name
        i = _next_suffix.get(name, 1)
        candidate = f"{name}_{i}"
        while candidate in _taken_names:  # taken directly (a name that ends in _<i> itself)
            i += 1
            candidate = f"{name}_{i}"
        _taken_names.add(candidate)
        _next_suffix[name] = i + 1
        return candidate


def to_snake_case(name: str) -> str:
    """``"BatchNormalization"`` -> ``"batch_normalization"``, ``"AdamW"`` -> ``"adam_w"`` (Keras' rule)."""
    name = re.sub(r"\W+", "", name)
    name = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
    if name.startswith("_"):
        name = "private" + name
    return name


clear_session_hooks: list = []  # called by clear_session (the TF 1 graph's collections register theirs)


def clear_session() -> None:
    """Forget every reserved variable name, the Variables created so far (as TF 1's global variables: a
    ``compat.v1.train.Saver()`` made after lists only newer ones; the Variables themselves are not changed)
    and the TF 1 graph's collections (as ``keras.backend.clear_session``, which resets the default graph)."""
    with _taken_lock:
        _taken_names.clear()
        _next_suffix.clear()
    reset_live_variables()  # the graph's variables go with it (a Saver() made after lists only newer ones)
    for hook in clear_session_hooks:
        hook()


def _after_fork_in_child() -> None:
    # a fork while another thread held a lock would leave it locked forever in the child
    global _taken_lock, _live_lock
    _taken_lock = threading.Lock()
    _live_lock = threading.Lock()


def _track(var) -> None:
    _live.append(weakref.ref(var))  # a list append per Variable; pruned when the list doubles
    n = len(_live)
    if n > 64 and n & (n - 1) == 0:
        with _live_lock:
            _live[:] = [r for r in _live if r() is not None]


def live_variables() -> list:
    """Every Variable still alive that was created since the last :func:`reset_live_variables`, in creation
    order (TF 1's global variables: ``compat.v1.global_variables()``, ``Saver()`` without a list)."""
    with _live_lock:
        out = [r() for r in _live]
        _live[:] = [r for r, v in zip(_live, out) if v is not None]
    return [v for v in out if v is not None]


def reset_live_variables() -> None:
    """Forget the Variables created so far (TF 1's ``reset_default_graph``); they are not changed."""
    with _live_lock:
        _live.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class _VariableOp:
    """What ``Variable.op`` gives: the variable's name (TF code reads ``var.op.name``)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return f"<op of variable '{self.name}'>"


def _from_initializer(initializer, shape, dtype):
    """Keras 3: the value of a variable of ``shape`` made by ``initializer`` (a name such as ``"ones"``, an
    initializer or a callable ``(shape, dtype)``), or a value that must already have ``shape``."""
    shape = tuple(int(d) for d in shape)
    if isinstance(initializer, str):
        from ..persistence.registry import builtin_objects  # (the initializers register their names there)

        found = builtin_objects("initializers").get(initializer)
        if found is None:
            raise ValueError(f"Variable: unknown initializer {initializer!r}; expected one of "
                             f"{sorted(builtin_objects('initializers'))}, an initializer or a callable")
        initializer = found() if isinstance(found, type) else found
    if callable(initializer):
        return initializer(shape, dtype=backend.floatx() if dtype is None else dtype)
    value = to_array(initializer, None if dtype is None else backend.np_dtype(dtype))
    if value.shape != shape:
        raise ValueError(f"Variable: the initial value has shape {value.shape} but `shape` is {shape}")
    return value


class _CallableTensor(Tensor):
    """What ``Variable.value`` gives: a Tensor that calling returns (TF spells it ``value()``, Keras 3
    ``value``)."""

    __slots__ = ()

    def __call__(self) -> Tensor:
        self.__class__ = Tensor  # called, it is the plain Tensor TF's ``value()`` returns
        return self


#: whether some Variable was ever given ``overwrite_with_gradient=True`` (until then an optimizer need not look)
_overwrites_in_use = False


def overwrites_in_use() -> bool:
    """Whether some Variable was ever given ``overwrite_with_gradient=True``."""
    return _overwrites_in_use


class Variable(ArrayLike):
    """A named, mutable array that optimizers update in place.

    Args:
        initial_value: the value (anything :func:`descend.constant` accepts) or
            a zero-argument callable returning it.
        name: base name; the active :func:`name_scope` is prefixed and a
            suffix ``_1``, ``_2`` ... added when the name is taken.
        trainable: whether tapes watch it automatically and ``fit`` trains it.
        dtype: cast the initial value to this dtype.
        constraint: a callable ``value -> value`` an optimizer applies after
            each update.

    Example:
        >>> import descend as ds
        >>> v = ds.Variable([1.0, 2.0], name="w")
        >>> _ = v.assign_add([0.5, 0.5])
        >>> v.numpy()
        array([1.5, 2.5], dtype=float32)
    """

    __slots__ = ("_value", "_name", "_path", "_keras", "_trainable", "_constraint", "_version", "_before_read",
                 "_overwrite_with_gradient", "__weakref__")
    __array_priority__ = 100

    def __init__(self, initial_value=None, name: str | None = None, trainable: bool = True, dtype=None,
                 constraint=None, *, initializer=None, shape=None, _own: bool = False, _path: str | None = None,
                 _keras: bool = False):
        if initializer is not None:  # Keras 3's spelling: Variable(initializer=..., shape=..., dtype=...)
            if initial_value is not None:
                raise ValueError("Pass `initial_value` or `initializer`, not both.")
            initial_value = initializer
        if shape is not None:
            initial_value = _from_initializer(initial_value, shape, dtype)
        elif isinstance(initial_value, str):
            raise ValueError(f"Creating a Variable from the initializer {initial_value!r} needs its `shape`. "
                             "Received: shape=None")
        elif callable(initial_value):
            initial_value = initial_value()
        if initial_value is None:
            raise ValueError("Variable needs an initial_value. Received: None")
        if constraint is not None and not callable(constraint):
            raise TypeError(f"constraint must be callable. Received: {constraint!r}")
        dtype = None if dtype is None else backend.np_dtype(dtype)
        if (_own and type(initial_value) is np.ndarray and initial_value.flags.c_contiguous
                and initial_value.flags.writeable and (dtype is None or initial_value.dtype == dtype)):
            arr = initial_value  # internal: the caller hands over an array it just made (an optimizer's new slot)
        elif isinstance(initial_value, (Tensor, Variable)) and dtype is not None:
            arr = np.array(initial_value._value, dtype=dtype, copy=True, order="C")
        else:  # (row-major, as a TF tensor: an initializer's transposed array would keep a variable off the
            # optimizers' one-call kernels, which take C-contiguous arrays only)
            arr = np.array(to_array(initial_value, dtype), copy=True, order="C")
        base = name if name is not None else "Variable"
        if not isinstance(base, str) or not _NAME_RE.match(base):
            raise ValueError(f"Variable name must be letters, digits and _.-/. Received: {name!r}")
        scope = current_name_scope()
        scoped = f"{scope}/{base}" if scope else base
        self._name = unique_name(scoped)  # the key: unique among live names, as TF 1's graph made it
        self._path = scoped if _path is None else _path  # what .name / .path show: not made unique, as TF 2
        self._keras = _keras  # made Keras 3's way (keras.Variable): named as Keras 3 names it
        self._value = arr
        self._trainable = bool(trainable)
        self._constraint = constraint
        self._version = 0
        self._before_read = None
        self._overwrite_with_gradient = False
        _track(self)
        _context.variable_created(self)
        if _tracing:
            _trace.variable_created(self)

    # -- facts ---------------------------------------------------------------
    @property
    def name(self) -> str:
        """TF's name: the scoped name and its output index, ``"x:0"`` (``"Variable:0"`` unnamed). As eager TF 2,
        two variables may share it: descend keys state by :attr:`scoped_name`, which is unique. A Keras 3
        variable's (``add_weight``, ``keras.Variable``): the name given, ``"kernel"`` (its path is :attr:`path`)."""
        return self._path.rsplit("/", 1)[-1] if self._keras else self._path + ":0"

    @property
    def path(self) -> str:
        """A Keras 3 variable's path: the layers' names and its own (``"sequential/dense/kernel"``); a TF
        variable has none (AttributeError, as ``tf.Variable``)."""
        if not self._keras:
            raise AttributeError("'Variable' object has no attribute 'path' (a TF variable's name is `.name`; "
                                 "Keras 3 variables, made by add_weight or keras.Variable, have a path)")
        return self._path

    @property
    def scoped_name(self) -> str:
        """The unique scoped name descend keys the variable's state by, in every file format and checkpoint,
        in optimizer slots and TF 1 collections: ``"dense/kernel"``, ``"x_1"`` for a second ``"x"`` (TF 1's
        ``var.op.name``). :attr:`name` is the name TF 2 or Keras 3 shows."""
        return self._name

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def constraint(self):
        """The callable ``value -> value`` an optimizer applies after each update, or ``None``.

        Settable, as in Keras 3 (``v.constraint = keras.constraints.NonNeg()``).
        """
        return self._constraint

    @constraint.setter
    def constraint(self, value):
        if value is not None and not callable(value):
            raise TypeError(f"constraint of variable '{self._name}' must be callable or None. Received: {value!r}")
        self._constraint = value

    @property
    def overwrite_with_gradient(self) -> bool:
        """Keras 3's flag: when True, an optimizer's update assigns this variable its gradient instead of
        applying its rule (float8 training computes new scales as "gradients"); default False."""
        return getattr(self, "_overwrite_with_gradient", False)

    @overwrite_with_gradient.setter
    def overwrite_with_gradient(self, value: bool) -> None:
        global _overwrites_in_use
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"`overwrite_with_gradient` of variable '{self._name}' must be a bool. Received: {value!r}")
        self._overwrite_with_gradient = bool(value)
        if value:
            _overwrites_in_use = True

    @property
    def initializer(self):
        """``None``, as for a TF 2 variable in eager mode: a descend Variable holds its
        initial value from the moment it is made, so there is no initializer op to run."""
        return None

    @property
    def op(self):
        """TF's ``var.op``, for code that only asks its ``name`` (descend has no graph ops)."""
        return _VariableOp(self._name)

    def read_value(self) -> Tensor:
        """A Tensor snapshot of the current value (later updates do not show in it)."""
        if self._before_read is not None:
            self._before_read(self, None)
        return _ops.read(self)

    @property
    def value(self) -> Tensor:
        """A Tensor snapshot of the current value, as ``read_value``: Keras 3's ``variable.value``, and
        callable as TF's ``variable.value()`` (the call returns the same Tensor)."""
        t = self.read_value()
        t.__class__ = _CallableTensor
        return t

    def numpy(self) -> np.ndarray:
        if _tracing:
            _trace.host_read(self, "numpy")
        if self._before_read is not None:
            self._before_read(self, None)
        return self._value.copy()

    # -- the read hook ------------------------------------------------------------
    def set_before_read(self, callback) -> None:
        """Register ``callback(variable, rows)`` to run before the value is read or written, or None to remove it.

        An optimizer that defers work on some rows (``sparse_updates="exact_lazy"``) registers one
        while rows are behind: ``numpy()``, ``read_value()``, the ``assign*`` and ``scatter_*``
        methods and ``repr`` call it with ``rows=None`` (bring every row up to date); an embedding
        lookup calls :meth:`before_read_rows` with the rows it reads. With no callback (the usual
        case) a read costs one attribute test.
        """
        if callback is not None and not callable(callback):
            raise TypeError(f"the before-read callback of variable '{self._name}' must be callable or None. "
                            f"Received: {callback!r}")
        self._before_read = callback

    def before_read_rows(self, rows) -> None:
        """Run the before-read callback for the rows ``rows`` only (an integer array; a lookup's ids)."""
        if self._before_read is not None:
            self._before_read(self, rows)

    def before_read(self) -> None:
        """Run the before-read callback for the whole value (nothing when none is registered)."""
        if self._before_read is not None:
            self._before_read(self, None)

    def __array__(self, dtype=None, copy=None):
        if self._before_read is not None:
            self._before_read(self, None)
        return super().__array__(dtype, copy)

    # -- mutation (each bumps _version) ----------------------------------------
    def _coerce(self, value, what: str) -> np.ndarray:
        if isinstance(value, (Tensor, Variable)):
            arr = value._value
            if arr.dtype != self._value.dtype:
                raise TypeError(
                    f"{what} to variable '{self._name}': expected dtype {self.dtype.name}, "
                    f"received dtype {arr.dtype.name}"
                )
        else:
            arr = to_array(value, self._value.dtype)
        if arr.shape != self._value.shape:
            raise ValueError(
                f"{what} to variable '{self._name}': expected shape {self.shape}, received shape {arr.shape}"
            )
        return arr

    def assign(self, value, use_locking: bool = False, name=None, read_value: bool = True):
        """Overwrite the value in place; shape and dtype must match (``use_locking``, ``name``: TF's, accepted)."""
        if _tracing and _trace.variable_write(self, "assign", value):
            return self
        if self._before_read is not None:
            self._before_read(self, None)
        arr = self._coerce(value, "assign")
        self._value[...] = arr
        self._version += 1
        return self

    def assign_add(self, delta, use_locking: bool = False, name=None, read_value: bool = True):
        """``var += delta`` in place."""
        if _tracing and _trace.variable_write(self, "assign_add", delta):
            return self
        if self._before_read is not None:
            self._before_read(self, None)
        arr = self._coerce(delta, "assign_add")
        np.add(self._value, arr, out=self._value)
        self._version += 1
        return self

    def assign_sub(self, delta, use_locking: bool = False, name=None, read_value: bool = True):
        """``var -= delta`` in place."""
        if _tracing and _trace.variable_write(self, "assign_sub", delta):
            return self
        if self._before_read is not None:
            self._before_read(self, None)
        arr = self._coerce(delta, "assign_sub")
        np.subtract(self._value, arr, out=self._value)
        self._version += 1
        return self

    def _sparse_parts(self, sparse_delta, what: str):
        if not isinstance(sparse_delta, IndexedSlices):
            raise TypeError(f"{what} expects an IndexedSlices. Received: {type(sparse_delta).__name__}")
        idx = sparse_delta.indices._value
        vals = sparse_delta.values._value
        if vals.dtype != self.dtype:
            raise TypeError(f"{what} to variable '{self._name}': expected dtype {self.dtype.name}, received {vals.dtype.name}")
        if self.ndim == 0 or vals.shape != idx.shape + self.shape[1:]:
            raise ValueError(
                f"{what} to variable '{self._name}' of shape {self.shape}: expected values of shape "
                f"{idx.shape + self.shape[1:]}, received {vals.shape}"
            )
        check_index_range(idx, self.shape[0], f"{what} to variable '{self._name}'")
        return idx, vals

    def scatter_add(self, sparse_delta):
        """Add ``sparse_delta.values`` into the rows ``sparse_delta.indices`` (repeats add up)."""
        idx, vals = self._sparse_parts(sparse_delta, "scatter_add")
        if _tracing and _trace.variable_write(self, "scatter_add", sparse_delta):
            return self
        if self._before_read is not None:
            self._before_read(self, None)
        np.add.at(self._value, idx, vals)
        self._version += 1
        return self

    def scatter_sub(self, sparse_delta):
        """Subtract ``sparse_delta.values`` from the rows ``sparse_delta.indices``."""
        idx, vals = self._sparse_parts(sparse_delta, "scatter_sub")
        if _tracing and _trace.variable_write(self, "scatter_sub", sparse_delta):
            return self
        if self._before_read is not None:
            self._before_read(self, None)
        np.subtract.at(self._value, idx, vals)
        self._version += 1
        return self

    def scatter_update(self, sparse_delta):
        """Overwrite the rows ``sparse_delta.indices`` (for repeats, the last wins)."""
        idx, vals = self._sparse_parts(sparse_delta, "scatter_update")
        if _tracing and _trace.variable_write(self, "scatter_update", sparse_delta):
            return self
        if self._before_read is not None:
            self._before_read(self, None)
        self._value[idx] = vals
        self._version += 1
        return self

    def _mark_updated(self):
        """Record an in-place write made directly to ``_value`` (optimizer kernels)."""
        if _tracing:  # a write a trace cannot see: the recorder gives up the trace (outside a node that owns it)
            _trace.variable_write(self, "direct", None)
        self._version += 1

    # -- Python protocol -------------------------------------------------------
    def _display(self) -> str:
        return self._path if self._keras else self._path + ":0"

    def __repr__(self):
        if self._before_read is not None:
            self._before_read(self, None)
        return (f"<descend.Variable '{self._display()}' shape={self.shape} dtype={self.dtype.name}, "
                f"numpy={numpy_text(self._value, True)}>")


@contextlib.contextmanager
def rows_read(variable, rows):
    """Bring the rows ``rows`` of ``variable`` up to date (its before-read callback), then read it
    without the whole-value callback inside the block (an embedding lookup reads only those rows)."""
    hook = getattr(variable, "_before_read", None)
    if hook is None:
        yield
        return
    hook(variable, rows)
    current = variable._before_read  # the callback may have removed itself (nothing left behind)
    variable._before_read = None
    try:
        yield
    finally:
        if variable._before_read is None:
            variable._before_read = current


class _KerasVariableType(type):
    """``isinstance(v, keras.Variable)``: a Variable made Keras 3's way (one Variable class underneath, so the
    tape's and the ops' ``type(x) is Variable`` fast paths hold for both)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Variable) and obj._keras


class KerasVariable(metaclass=_KerasVariableType):
    """``keras.Variable``: a :class:`Variable` named as Keras 3 names it: ``name`` is the base name
    (``"kernel"``), ``path`` the layers' path and the name (``"dense/kernel"``; an optimizer's slot
    ``"adam/dense_kernel_momentum"``). ``add_weight``, metrics and optimizers make these.

    Example:
        >>> import descend as ds
        >>> ds.clear_session()
        >>> layer = ds.layers.Dense(2)
        >>> layer.build((None, 3))
        >>> layer.kernel.name, layer.kernel.path
        ('kernel', 'dense/kernel')
        >>> isinstance(layer.kernel, ds.keras.Variable), isinstance(ds.Variable(1.0), ds.keras.Variable)
        (True, False)
    """

    def __new__(cls, initializer=None, shape=None, dtype=None, trainable: bool = True, autocast: bool = True,
                aggregation="none", synchronization="auto", name: str | None = None, **kwargs) -> Variable:
        # Keras 3's order of arguments; ``initial_value=`` and ``constraint=`` as tf.Variable's
        if "initial_value" in kwargs:
            if initializer is not None:
                raise ValueError("Pass `initial_value` or `initializer`, not both.")
            initializer = kwargs.pop("initial_value")
        return Variable(initializer, name="variable" if name is None else name, trainable=trainable, dtype=dtype,
                        shape=shape, _keras=True, **kwargs)
