"""``descend.Module``: TF 2's ``tf.Module``, a named container that finds the Variables and Modules it holds.

A Module's ``variables`` are every Variable reachable from its attributes (through lists, tuples and dicts, and
through the Modules among them), each once, in TF's order: the module's own attributes sorted by name (a dict's
items by key), then each submodule's in turn. ``name_scope`` is the scope fixed when the module was made
(``outer/name``); ``with module.name_scope:`` (or a method decorated with :meth:`Module.with_name_scope`) puts
Variables created there under it, wherever it is entered.

Example:
    >>> import descend as ds
    >>> ds.clear_session()
    >>> class Dense(ds.Module):
    ...     def __init__(self, n_in, n_out, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.w = ds.Variable(ds.ones((n_in, n_out)), name="w")
    ...             self.b = ds.Variable(ds.zeros((n_out,)), name="b", trainable=False)
    ...     @ds.Module.with_name_scope
    ...     def __call__(self, x):
    ...         return ds.matmul(x, self.w) + self.b
    >>> class MLP(ds.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         with self.name_scope:
    ...             self.layers = [Dense(3, 4), Dense(4, 1)]
    >>> m = MLP()
    >>> m.name, m.name_scope.name, [s.name for s in m.submodules]
    ('mlp', 'mlp/', ['dense', 'dense'])
    >>> [v.name for v in m.trainable_variables]
    ['mlp/dense/w:0', 'mlp/dense/w:0']
    >>> m.layers[1](m.layers[0](ds.ones((2, 3)))).shape
    TensorShape([2, 1])
"""

from __future__ import annotations

import functools
import re

from . import nest
from .variable import Variable, current_name_scope, name_scope, no_name_scope

__all__ = ["Module", "register_attribute_hook"]

_attribute_hooks: list = []


def register_attribute_hook(fn) -> None:
    """Call ``fn(module)`` after an attribute holding state (a Variable, a Module, a layer...) is assigned to a
    Module. Modules above this one (checkpoint's deferred restoration: a variable a module creates after a
    restore takes the restored value, as TF's) hook in here instead of the Module importing them. If ``fn``
    raises, the assignment is undone. Registering the same function twice has no effect."""
    if not callable(fn):
        raise TypeError(f"register_attribute_hook expects a callable. Received: {fn!r}")
    if fn not in _attribute_hooks:
        _attribute_hooks.append(fn)

# TF's rule for a module's default name: "MyModule" -> "my_module", "HTTPServer2" -> "http_server2"
_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ModuleNameScope:
    """The name scope of a Module: a context (``with m.name_scope:``) that enters the module's full scope
    (``outer/name``) wherever it is entered, as TF's; ``name`` is the scope with a trailing ``/``."""

    __slots__ = ("_path", "_entered")

    def __init__(self, path: str):
        self._path = path
        self._entered = []  # the contexts of the entries still open, innermost last

    @property
    def name(self) -> str:
        return self._path + "/"

    def __enter__(self) -> str:
        absolute, scope = no_name_scope(), name_scope(self._path)
        absolute.__enter__()
        try:
            scope.__enter__()
        except BaseException:
            absolute.__exit__(None, None, None)
            raise
        self._entered.append((absolute, scope))
        return self.name

    def __exit__(self, *exc):
        absolute, scope = self._entered.pop()
        try:
            scope.__exit__(*exc)
        finally:
            absolute.__exit__(*exc)
        return False

    def __repr__(self):
        return f"<descend.Module name scope {self.name!r}>"


class Module:
    """A named container of Variables and other Modules (``tf.Module``).

    Args:
        name: the module's name, a Python identifier; default: the class name in snake case
            (``MyModule`` -> ``my_module``).

    Raises:
        ValueError: for a name that is not a Python identifier.
    """

    def __init__(self, name: str | None = None):
        if name is None:
            name = _CAMEL_TO_SNAKE.sub(r"_\1", type(self).__name__).lower()
        elif not isinstance(name, str) or not _IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be valid Python identifiers "
                             "(e.g. a valid class name).")
        self._name = name
        outer = current_name_scope()
        self._scope_path = f"{outer}/{name}" if outer else name

    def __setattr__(self, key, value):
        if not _attribute_hooks or not _holds_state(value):
            object.__setattr__(self, key, value)
            return
        missing = object()
        before = self.__dict__.get(key, missing)
        object.__setattr__(self, key, value)
        try:
            for hook in list(_attribute_hooks):
                hook(self)
        except BaseException:  # a hook refused it (a restored value of another shape): the module is as it was
            if before is missing:
                object.__delattr__(self, key)
            else:
                object.__setattr__(self, key, before)
            raise

    @property
    def name(self) -> str:
        """The module's name (without its outer scopes)."""
        return self._name

    @property
    def name_scope(self) -> ModuleNameScope:
        """The scope Variables created ``with module.name_scope:`` are named under (a fresh context each time, so
        threads and nested entries do not share one)."""
        return ModuleNameScope(self._scope_path)

    @property
    def variables(self) -> tuple:
        """Every Variable this module and its submodules hold, each once."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self) -> tuple:
        """The trainable ones of :attr:`variables`."""
        return tuple(self._flatten(predicate=lambda x: _is_variable(x) and x.trainable))

    @property
    def non_trainable_variables(self) -> tuple:
        """The non-trainable ones of :attr:`variables`."""
        return tuple(self._flatten(predicate=lambda x: _is_variable(x) and not x.trainable))

    @property
    def submodules(self) -> tuple:
        """Every Module reachable from this one (not itself), each once."""
        return tuple(self._flatten(predicate=_is_module))

    def _trackable_children(self) -> dict:
        """What a checkpoint saves of this module (TF's tracked attributes): each attribute, by name, that holds
        state (a Variable, a Module, a Keras layer or model, an optimizer, a nested Checkpoint, or a list, tuple or
        dict holding one); plain data (numbers, flags, text, arrays, functions) is not part of it."""
        return {key: value for key, value in sorted(vars(self).items())
                if key not in ("_name", "_scope_path") and _holds_state(value)}

    def _flatten(self, recursive: bool = True, predicate=None):
        """The values reachable from this module's attributes that ``predicate`` accepts, in TF's order."""
        return _walk(self, recursive, predicate or (lambda _: True), {id(self)}, [])

    @classmethod
    def with_name_scope(cls, method):
        """Decorate a method so that it runs inside ``self.name_scope``.

        Example:
            >>> import descend as ds
            >>> ds.clear_session()
            >>> class Scale(ds.Module):
            ...     @ds.Module.with_name_scope
            ...     def make(self):
            ...         return ds.Variable(2.0, name="factor")
            >>> Scale().make().name
            'scale/factor:0'
        """
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)
        return method_with_name_scope


def _is_variable(x) -> bool:
    return isinstance(x, Variable)


def _is_module(x) -> bool:
    return isinstance(x, Module)


def _is_stateful(value) -> bool:
    # layers, models and optimizers live above this module: they are known by what they have
    t = type(value)
    return (isinstance(value, (Variable, Module)) or callable(getattr(t, "_trackable_children", None))
            or hasattr(t, "trainable_weights") or hasattr(t, "apply_gradients"))


def _holds_state(value) -> bool:
    return any(_is_stateful(v) for v in nest.held(value, 4))


def _walk(module, recursive, predicate, seen, stack):
    # a module's own attributes first (sorted by name, nested structures flattened), then each submodule's
    recursive = recursive and id(module) not in stack
    submodules = []
    attributes = vars(module)
    for key in sorted(attributes):
        for leaf in nest.flatten(attributes[key]):
            if id(leaf) in seen:
                continue
            seen.add(id(leaf))
            if predicate(leaf):
                yield leaf
            if recursive and _is_module(leaf):
                submodules.append(leaf)
    stack.append(id(module))
    for sub in submodules:
        yield from _walk(sub, recursive, predicate, seen, stack)
    stack.pop()
