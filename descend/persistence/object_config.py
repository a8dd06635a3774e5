"""Configs and names: how descend writes objects as configs and finds them again (Keras 3's
``keras.saving`` registry and config format). :mod:`descend.saving` and ``descend.keras.saving``
publish these functions; there is one registry.

What a name in a config can resolve to, and nothing else:

* an entry of the ``custom_objects`` passed to the loading function, or of an active
  :class:`custom_object_scope`;
* an object registered with :func:`register_serializable` (``register_keras_serializable``) or
  put into :func:`get_custom_objects` by the program;
* one of descend's built-in classes and functions of the kind expected (layers, activations,
  initializers, regularizers, constraints, losses, metrics, optimizers, dtype policies).

Nothing named in a config is imported: the ``module`` field a config carries (Keras writes
``"keras.layers"``) only picks which of descend's built-in namespaces is searched first. A
``lambda`` written as Python bytecode (``"__lambda__"``) is refused unless the program passes
``safe_mode=False``.

Example:
    >>> import descend as ds
    >>> config = ds.saving.serialize_keras_object(ds.layers.Dense(2, name="d"))
    >>> config["module"], config["class_name"], config["config"]["units"]
    ('keras.layers', 'Dense', 2)
    >>> ds.saving.deserialize_keras_object(config).units
    2
"""

from __future__ import annotations

import base64
import contextlib
import inspect
import marshal
import threading
import types

import numpy as np

from .registry import KINDS, builtin_objects

__all__ = [
    "register_serializable", "get_custom_objects", "CustomObjectScope", "custom_object_scope",
    "get_registered_name", "get_registered_object", "serialize_keras_object", "deserialize_keras_object",
    "find_object", "safe_mode_scope", "in_safe_mode", "function_config", "builtin_objects", "get_object",
    "serialize_object", "deserialize_object",
]

#: "package>Name" -> the registered class or function (what :func:`get_custom_objects` returns, live)
_REGISTRY: dict = {}
#: the registered class or function -> its "package>Name"
_NAMES: dict = {}
_local = threading.local()  # the active custom_object_scope's dict and safe-mode flag, per thread

_MAX_NAME = 300  # the longest class, function or module name looked up
_NUMERIC = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
                      "float32", "float64"})


def _short(value, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------------------------------------------------------
# the registry
# ---------------------------------------------------------------------------------------------------------------
def register_serializable(package: str = "Custom", name: str | None = None):
    """A decorator registering a custom class (layer, model, loss, metric, optimizer, initializer...)
    or function under ``"<package>>Name"`` (Keras' ``register_keras_serializable``), so
    ``load_model`` and ``from_config`` find it without ``custom_objects``.

    Example:
        >>> import descend as ds
        >>> @ds.saving.register_serializable(package="demo")
        ... class Twice(ds.layers.Layer):
        ...     def call(self, x):
        ...         return x * 2
        >>> ds.saving.get_registered_name(Twice)
        'demo>Twice'
        >>> ds.saving.get_registered_object("demo>Twice") is Twice
        True
    """
    if not isinstance(package, str) or not package or ">" in package:
        raise ValueError(f"`package` must be a non-empty string without '>'. Received: package={package!r}")
    if name is not None and (not isinstance(name, str) or not name or ">" in name):
        raise ValueError(f"`name` must be None or a non-empty string without '>'. Received: name={name!r}")

    def decorate(obj):
        if not (inspect.isclass(obj) or inspect.isfunction(obj)):
            raise TypeError(f"register_serializable decorates classes and functions. Received: {obj!r}")
        if inspect.isclass(obj) and not hasattr(obj, "get_config"):
            raise ValueError(f"Cannot register the class {obj.__name__}: it has no get_config() method")
        key = f"{package}>{name or obj.__name__}"
        if key in _REGISTRY and _REGISTRY[key] is not obj and _same_definition(_REGISTRY[key], obj) is False:
            raise ValueError(f"'{key}' is already registered to {_REGISTRY[key]!r}")
        old = _REGISTRY.get(key)
        if old is not None:
            _NAMES.pop(old, None)
        _REGISTRY[key] = obj
        _NAMES[obj] = key
        return obj
    return decorate


def _same_definition(old, new) -> bool:
    """A notebook cell or a reloaded module defining the same class or function again may register it
    again (as Keras allows); two different definitions under one name may not."""
    return getattr(old, "__module__", None) == getattr(new, "__module__", None) and \
        getattr(old, "__qualname__", None) == getattr(new, "__qualname__", None)


def get_custom_objects() -> dict:
    """The registry itself, live: ``"package>Name"`` -> class or function. A program may add entries
    (``get_custom_objects()["MyLayer"] = MyLayer``), as in Keras; objects of a
    :class:`custom_object_scope` are not in it."""
    return _REGISTRY


def get_registered_name(obj) -> str:
    """The name ``obj`` (a class or function) is registered under, else its ``__name__`` (Keras' rule).

    Example:
        >>> import descend as ds
        >>> ds.saving.get_registered_name(ds.layers.Dense)
        'Dense'
    """
    try:
        key = _NAMES.get(obj)
    except TypeError:  # an unhashable object
        key = None
    if key is not None and _REGISTRY.get(key) is obj:
        return key
    return getattr(obj, "__name__", type(obj).__name__)


def _scope_dict() -> dict:
    return getattr(_local, "scope", None) or {}


class CustomObjectScope:
    """``with custom_object_scope({"Name": obj}):`` makes these classes and functions known to every
    ``from_config``, ``deserialize`` and ``load_model`` inside the block (this thread), as Keras'
    ``keras.saving.custom_object_scope``.

    Example:
        >>> import descend as ds
        >>> def twice(x):
        ...     return x * 2
        >>> config = ds.layers.Dense(1, activation=twice).get_config()
        >>> with ds.saving.custom_object_scope({"twice": twice}):
        ...     layer = ds.layers.Dense.from_config(config)
        >>> layer.activation is twice
        True
    """

    def __init__(self, custom_objects=None, *more):
        merged = {}
        for objects in (custom_objects, *more):
            if objects is None:
                continue
            if not isinstance(objects, dict):
                raise TypeError(f"custom_object_scope expects dicts of name -> object. Received: {_short(objects)}")
            merged.update(objects)
        self.custom_objects = merged
        self._backup = None

    def __enter__(self):
        self._backup = getattr(_local, "scope", None)
        _local.scope = dict(self.custom_objects)
        return self

    def __exit__(self, *exc):
        _local.scope = self._backup
        return False


custom_object_scope = CustomObjectScope


def extend_scope(custom_objects: dict | None) -> CustomObjectScope:
    """A scope holding the active scope's objects and ``custom_objects`` (which win)."""
    return CustomObjectScope(_scope_dict(), custom_objects or {})


def get_registered_object(name, custom_objects: dict | None = None, module_objects: dict | None = None):
    """The class or function ``name`` refers to, looked up as Keras does: the active
    :class:`custom_object_scope`, the registry, ``custom_objects``, then ``module_objects``; None if none has it."""
    if not isinstance(name, str):
        return None
    for table in (_scope_dict(), _REGISTRY, custom_objects or {}, module_objects or {}):
        if name in table:
            return table[name]
    return None


def find_object(name, custom_objects: dict | None = None, *, loose: bool = True):
    """A user's class or function for ``name``: :func:`get_registered_object`; then, with ``loose``,
    for a plain name the one registered entry ``"<package>>name"`` (configs of older versions name
    registered objects without their package), or for ``"package>name"`` the entry ``"name"``."""
    found = get_registered_object(name, custom_objects)
    if found is not None or not loose or not isinstance(name, str):
        return found
    tables = (_scope_dict(), _REGISTRY, custom_objects or {})
    if ">" in name:
        plain = name.rsplit(">", 1)[-1]
        for table in tables:
            if plain in table:
                return table[plain]
        return None
    matches = {id(v): v for table in tables for k, v in table.items() if k.endswith(">" + name)}
    return next(iter(matches.values())) if len(matches) == 1 else None


# ---------------------------------------------------------------------------------------------------------------
# safe mode
# ---------------------------------------------------------------------------------------------------------------
@contextlib.contextmanager
def safe_mode_scope(safe_mode: bool):
    """Inside the block, configs are rebuilt with ``safe_mode`` (this thread)."""
    before = getattr(_local, "safe_mode", None)
    _local.safe_mode = bool(safe_mode)
    try:
        yield
    finally:
        _local.safe_mode = before


def in_safe_mode(explicit=None) -> bool:
    """``explicit`` when given, else the active :func:`safe_mode_scope`'s flag, else True (safe)."""
    if explicit is not None:
        return bool(explicit)
    ambient = getattr(_local, "safe_mode", None)
    return True if ambient is None else ambient


_UNSAFE = ("Requested the deserialization of a Python lambda (a Lambda layer's function, or another object's; its "
           "bytecode is in the config): running code from a "
           "config can do anything, so it is refused by default. If you trust the source of this config, pass "
           "safe_mode=False to the loading function (load_model, model_from_json, deserialize_keras_object, "
           "from_config); or define the function with `def`, register it with "
           "descend.saving.register_serializable, or pass it in custom_objects")


def dump_lambda(fn) -> dict:
    """The config of a ``lambda``: its bytecode (reloaded only with ``safe_mode=False``)."""
    if fn.__closure__:
        raise ValueError(f"cannot write the lambda {fn.__qualname__} in a config: it reads variables of an enclosing "
                         f"function ({', '.join(fn.__code__.co_freevars)}); pass them as arguments instead, or "
                         "define the function with `def` at module level and register it")
    return {"class_name": "__lambda__",
            "config": {"code": base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii"),
                       "defaults": list(fn.__defaults__) if fn.__defaults__ else None, "closure": None}}


def load_lambda(config, safe_mode=None):
    """The function :func:`dump_lambda` wrote; refused unless safe mode is off."""
    if in_safe_mode(safe_mode):
        raise ValueError(_UNSAFE)
    inner = config.get("config") if isinstance(config, dict) else None
    if not isinstance(inner, dict) or not isinstance(inner.get("code"), str):
        raise ValueError(f"A __lambda__ config needs a 'code' string. Received: {_short(config)}")
    if inner.get("closure"):
        raise ValueError("A __lambda__ config with a closure cannot be loaded by descend")
    try:
        code = marshal.loads(base64.b64decode(inner["code"]))
    except (ValueError, TypeError, EOFError) as e:
        raise ValueError(f"A __lambda__ config holds malformed bytecode ({type(e).__name__}: {e})") from None
    if not isinstance(code, types.CodeType):
        raise ValueError("A __lambda__ config's 'code' is not Python bytecode")
    defaults = inner.get("defaults")
    return types.FunctionType(code, {"__builtins__": __builtins__}, code.co_name,
                              tuple(defaults) if defaults else None)


# ---------------------------------------------------------------------------------------------------------------
# descend's built-in objects, by kind
# ---------------------------------------------------------------------------------------------------------------
def _kind_of_module(module) -> str | None:
    """Which built-in namespace a config's ``module`` field points at (it is never imported)."""
    if not isinstance(module, str) or len(module) > _MAX_NAME:
        return None
    if module == "keras":  # Keras writes Sequential and DTypePolicy with module "keras"
        return None
    for part in module.split("."):
        if part in KINDS:
            return part
        if part in ("models", "functional", "sequential"):
            return "layers"
        if part == "mixed_precision":
            return "dtype_policies"
    return None


def _kind_of_object(obj) -> str | None:
    for kind in KINDS:
        table = builtin_objects(kind)
        name = getattr(obj, "__name__", None)
        if name is not None and table.get(name) is obj:
            return kind
    return None


def resolve(name, kind: str | None = None, module=None, custom_objects: dict | None = None):
    """The class or function a config's name stands for (see the module's docstring), or None."""
    if not isinstance(name, str) or not name or len(name) > _MAX_NAME:
        return None
    found = find_object(name, custom_objects, loose=False)
    if found is not None:
        return found
    hint = _kind_of_module(module)
    kinds = [kind] if kind is not None else ([hint] if hint else []) + [k for k in KINDS if k != hint]
    for k in kinds:
        obj = builtin_objects(k).get(name)
        if obj is not None:
            return obj
    return find_object(name, custom_objects)


# ---------------------------------------------------------------------------------------------------------------
# serializing
# ---------------------------------------------------------------------------------------------------------------
def function_name(fn, builtins: dict) -> str:
    """A function's name in a config: its built-in name when ``builtins`` has it, else its registered
    name, else its ``__name__``."""
    name = getattr(fn, "__name__", None)
    if name is not None and builtins.get(name) is fn:
        return name
    return get_registered_name(fn) if name is not None else repr(fn)


def find_function(name, builtins: dict):
    """The function a name (or Keras' function config) stands for: a user's (exact name), then
    ``builtins``, then a registered one by its plain name; None when unknown (classes are not functions)."""
    if isinstance(name, dict):
        name = name.get("config") if name.get("class_name") == "function" else None
    if not isinstance(name, str) or len(name) > _MAX_NAME:
        return None
    found = find_object(name, loose=False) or builtins.get(name) or find_object(name)
    return None if found is None or inspect.isclass(found) else found


def function_config(fn) -> dict:
    """Keras' config of a named function: found again by its registered name or its name."""
    return {"module": "builtins", "class_name": "function", "config": get_registered_name(fn),
            "registered_name": "function"}


def _class_config(obj, inner) -> dict:
    cls = type(obj)
    if isinstance(obj, tuple(builtin_objects("dtype_policies").values())):
        return {"module": "keras", "class_name": "DTypePolicy", "config": {"name": obj.name}, "registered_name": None}
    class_name = cls.__name__
    if class_name == "Model" and isinstance(inner, dict) and "input_layers" in inner:
        class_name = "Functional"  # a graph of layers (Keras' class name for it)
    kind = _kind_of_object(cls)
    if kind is not None and cls in _NAMES:
        kind = None
    if kind is not None:
        module = "keras" if class_name == "Sequential" else (
            "keras.src.models.functional" if class_name == "Functional" else f"keras.{kind}")
        registered = "Functional" if class_name == "Functional" else None
        return {"module": module, "class_name": class_name, "config": inner, "registered_name": registered}
    return {"module": cls.__module__, "class_name": class_name, "config": inner,
            "registered_name": get_registered_name(cls)}


def serialize_keras_object(obj):
    """A JSON-able config of ``obj`` (Keras 3's format): plain values as they are, lists and dicts
    item by item, NumPy arrays tagged, objects with ``get_config`` as ``{"module", "class_name",
    "config", "registered_name"}`` with their config serialized too (so a layer a custom layer's
    ``get_config`` returns becomes its config), named functions by their registered name, a
    ``lambda`` as bytecode (reloaded only with ``safe_mode=False``)."""
    return _serialize(obj, 0)


def _serialize(obj, depth: int):
    if depth > 48:
        raise ValueError("serialize_keras_object: the object's config nests more than 48 levels")
    if obj is None or isinstance(obj, (str, bool, int, float)):
        return obj
    if isinstance(obj, (list, tuple)):
        out = [_serialize(v, depth + 1) for v in obj]
        return tuple(out) if isinstance(obj, tuple) else out
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise TypeError(f"serialize_keras_object: config keys must be strings. Received key {_short(k)}")
            out[k] = _serialize(v, depth + 1)
        return out
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        if obj.dtype.kind not in "biuf":
            raise TypeError(f"serialize_keras_object: cannot write an array of dtype {obj.dtype}")
        return {"class_name": "__numpy__", "config": {"value": obj.tolist(), "dtype": obj.dtype.name}}
    if isinstance(obj, bytes):
        return {"class_name": "__bytes__", "config": {"value": obj.decode("utf-8")}}
    if isinstance(obj, slice):
        return {"class_name": "__slice__", "config": {"start": _serialize(obj.start, depth + 1),
                                                      "stop": _serialize(obj.stop, depth + 1),
                                                      "step": _serialize(obj.step, depth + 1)}}
    if obj is Ellipsis:
        return {"class_name": "__ellipsis__", "config": {}}
    from ..framework.tensor import Tensor
    from ..framework.variable import Variable

    if isinstance(obj, (Tensor, Variable)):
        value = obj.numpy()
        return {"class_name": "__tensor__", "config": {"value": value.tolist(), "dtype": value.dtype.name}}
    if isinstance(obj, types.FunctionType) and obj.__name__ == "<lambda>":
        return dump_lambda(obj)
    if inspect.isclass(obj):
        raise TypeError(f"serialize_keras_object: cannot write the class {obj.__name__} itself; pass an instance")
    if hasattr(obj, "get_config"):
        inner = obj.get_config()
        if not isinstance(inner, dict):
            raise TypeError(f"{type(obj).__name__}.get_config() must return a dict. Received: {_short(inner)}")
        out = _class_config(obj, _serialize(inner, depth + 1))
        build = obj.get_build_config() if callable(getattr(obj, "get_build_config", None)) else None
        if build is not None:  # a layer's build arguments (Keras 3): loading calls its build_from_config
            out["build_config"] = _serialize(build, depth + 1)
        return out
    if callable(obj) and hasattr(obj, "__name__"):
        return function_config(obj)
    raise TypeError(f"Cannot serialize {_short(obj)} of type {type(obj).__name__}: give its class a get_config() "
                    "method (and register it), or use numbers, strings, lists and dicts")


# ---------------------------------------------------------------------------------------------------------------
# deserializing
# ---------------------------------------------------------------------------------------------------------------
def deserialize_keras_object(config, custom_objects: dict | None = None, safe_mode: bool = True, **kwargs):
    """The object :func:`serialize_keras_object` described (Keras 3's function).

    Names resolve as the module's docstring says; a ``lambda``'s bytecode only with
    ``safe_mode=False``. Keras' ``module_objects`` keyword (a dict of extra names) is accepted.

    Raises:
        TypeError: a name that no registered, custom or built-in object has, or a malformed config.
        ValueError: a lambda under safe mode.
    """
    module_objects = kwargs.pop("module_objects", None)
    if kwargs:
        raise TypeError(f"deserialize_keras_object got unexpected keyword arguments: {sorted(kwargs)}")
    objects = {**(module_objects or {}), **(custom_objects or {})}
    ambient = getattr(_local, "safe_mode", None)  # as Keras: a loading function's scope decides for nested calls
    with extend_scope(objects), safe_mode_scope(safe_mode if ambient is None else ambient):
        return _deserialize(config, None, 0)


def _deserialize(config, kind, depth: int):
    if depth > 48:
        raise ValueError("deserialize_keras_object: the config nests more than 48 levels")
    if config is None or isinstance(config, (bool, int, float)):
        return config
    if isinstance(config, str):
        found = find_object(config, loose=False)
        return found if found is not None else config
    if isinstance(config, (list, tuple)):
        return [_deserialize(v, kind, depth + 1) for v in config]
    if not isinstance(config, dict):
        raise TypeError(f"Could not parse config: {_short(config)}")
    if "class_name" not in config or "config" not in config:
        return {k: _deserialize(v, kind, depth + 1) for k, v in config.items()}
    return build_object(config, kind)


def build_object(config: dict, kind: str | None = None, what: str | None = None):
    """The object a ``{"class_name", "config", ...}`` dict describes; ``kind`` restricts the built-in
    names searched (e.g. ``"layers"``)."""
    what = what or (kind.rstrip("s").replace("_", " ") if kind else "object")
    class_name = config.get("class_name")
    inner = config.get("config")
    if not isinstance(class_name, str):
        raise TypeError(f"A {what} config needs a string 'class_name'. Received: {_short(config)}")
    if class_name == "__numpy__" or class_name == "__tensor__":
        value = inner.get("value") if isinstance(inner, dict) else None
        dtype = inner.get("dtype") if isinstance(inner, dict) else None
        if dtype not in _NUMERIC:
            raise TypeError(f"A {class_name} config needs a numeric 'dtype'. Received: {_short(inner)}")
        arr = np.array(value, dtype=np.dtype(dtype))
        if class_name == "__tensor__":
            from ..framework.tensor import Tensor

            return Tensor(arr)
        return arr
    if class_name == "__bytes__":
        return str(inner.get("value", "")).encode("utf-8") if isinstance(inner, dict) else b""
    if class_name == "__ellipsis__":
        return Ellipsis
    if class_name == "__slice__":
        inner = inner if isinstance(inner, dict) else {}
        return slice(*(_deserialize(inner.get(k), None, 1) for k in ("start", "stop", "step")))
    if class_name == "__lambda__":
        return load_lambda(config)
    if class_name.startswith("__"):
        raise TypeError(f"A config of kind {_short(class_name)} cannot be rebuilt by descend")
    registered = config.get("registered_name")
    module = config.get("module")
    if class_name == "function":
        if not isinstance(inner, str):
            raise TypeError(f"A function config needs the function's name as its 'config'. Received: "
                            f"{_short(config)}")
        fn = resolve(inner, None if kind in (None, "layers") else kind, module)
        if fn is None or inspect.isclass(fn):
            raise TypeError(f"unknown function {_short(inner)}: descend calls only functions it knows "
                            "(its own activations, losses and metrics) and those registered with "
                            "descend.saving.register_serializable or passed in custom_objects")
        return fn
    cls = None
    if isinstance(registered, str) and registered not in ("function", class_name):
        cls = find_object(registered)
    if cls is None:
        cls = resolve(class_name, kind, module)
    if cls is None:
        raise TypeError(f"unknown {what} class {_short(class_name)}: descend builds only its own "
                        "classes and those registered with descend.saving.register_serializable (Keras' "
                        "register_keras_serializable) or passed in custom_objects")
    if inspect.isfunction(cls):
        return cls
    if not inspect.isclass(cls) or not hasattr(cls, "from_config"):
        raise TypeError(f"{_short(class_name)} names {_short(cls)}, which has no from_config()")
    if inner is None:
        inner = {}
    if not isinstance(inner, dict):
        raise TypeError(f"The config of {_short(class_name)} must be a dict. Received: {_short(inner)}")
    obj = cls.from_config(dict(inner))
    build = config.get("build_config")
    if build and getattr(obj, "built", True) is False and callable(getattr(obj, "build_from_config", None)):
        obj.build_from_config(build)
    return obj


# ---------------------------------------------------------------------------------------------------------------
# the `get`, `serialize` and `deserialize` functions of descend's modules (Keras' per-module look-ups)
# ---------------------------------------------------------------------------------------------------------------
def get_object(identifier, kind: str, base: type, what: str, deserialize):
    """Keras' ``get`` of a module (``losses.get``, ``metrics.get``): ``identifier`` resolved -- None, a config
    dict (through ``deserialize``), a name of the built-ins of ``kind`` (:func:`builtin_objects`), a class of
    ``base`` (instantiated) or a callable. ``what`` names the object in errors (``"loss"``)."""
    registry = builtin_objects(kind)
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        obj = registry.get(identifier)
        if obj is None:
            raise ValueError(f"Unknown {what} {identifier!r}. Known names: {', '.join(sorted(registry))}")
    else:
        obj = identifier
    if inspect.isclass(obj):
        if not issubclass(obj, base):
            raise ValueError(f"Could not interpret {what} identifier: {identifier!r} (not a {base.__name__} subclass)")
        obj = obj()
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret {what} identifier: {identifier!r}")


def serialize_object(obj, base: type):
    """Keras 3's config of an instance of ``base`` (``{"module", "class_name", "config",
    "registered_name"}``); a function gives Keras' function config (found again by its registered
    name or its name)."""
    if obj is None:
        return None
    if isinstance(obj, base) or hasattr(obj, "get_config") and not isinstance(obj, type):
        return serialize_keras_object(obj)
    if hasattr(obj, "__name__"):
        return function_config(obj)
    return repr(obj)


def deserialize_object(config, kind: str, aliases: dict, table: str, custom_objects: dict | None = None):
    """Rebuild an object from :func:`serialize_object`'s output or a name: ``custom_objects``, an active
    ``custom_object_scope`` and registered objects first, then ``aliases`` (the module's lower-case names)
    and the built-ins of ``table`` (one of :data:`~descend.persistence.registry.KINDS`)."""
    classes = builtin_objects(table)
    from .object_config import extend_scope, find_object

    custom_objects = custom_objects or {}
    article = "An" if kind[0] in "aeiou" else "A"
    if isinstance(config, str):
        # a user's class is instantiated, a user's function used as it is; built-ins are zero-argument factories
        make = find_object(config, custom_objects, loose=False) or aliases.get(config) or classes.get(config) or \
            find_object(config, custom_objects)
        if make is None:
            raise ValueError(f"Unknown {kind}: {config!r}. Expected one of {sorted(aliases)} (or a class name, "
                             f"a config dict, a registered name or a callable). Received: {config!r}")
        return make() if isinstance(make, type) or any(make is v for v in aliases.values()) else make
    if isinstance(config, dict):
        name = config.get("class_name")
        if not isinstance(name, str):
            raise ValueError(f"{article} {kind} config needs a string 'class_name'. Received: {_short(config, 200)}")
        inner = config.get("config")
        if name == "function":  # Keras' config of a function: its registered name or its name
            fn = find_object(inner, custom_objects) if isinstance(inner, str) else None
            if fn is None:
                raise ValueError(f"Unknown {kind} function {_short(inner, 200)}: register it with "
                                 "descend.saving.register_serializable or pass it in custom_objects")
            return fn
        registered = config.get("registered_name")
        cls = None
        if isinstance(registered, str) and registered not in (name, "function"):
            cls = find_object(registered, custom_objects)
        cls = cls or find_object(name, custom_objects, loose=False) or classes.get(name) or aliases.get(name) or \
            find_object(name, custom_objects)
        if cls is None:
            raise ValueError(f"Unknown {kind} class: {name!r}. Expected one of {sorted(classes)} or an entry "
                             f"of custom_objects. Received: {_short(config, 200)}")
        if not isinstance(cls, type):
            return cls
        if inner is not None and not isinstance(inner, dict):
            raise ValueError(f"The config of {kind} {name!r} must be a dict. Received: {_short(inner, 200)}")
        with extend_scope(custom_objects):
            return cls.from_config(dict(inner or {}))
    raise TypeError(f"Cannot deserialize {article.lower()} {kind} from {type(config).__name__}: {_short(config, 200)}")


def deserialize_builtin(config, custom_objects, what: str, builtins: dict, functions: dict, get):
    """Keras' ``deserialize`` of losses and metrics: a name (through ``get`` unless a custom or registered object
    has it), a ``{"class_name", "config"}`` dict (the registered name first, then custom and registered objects,
    then ``builtins``) or Keras' function config (looked up in ``functions``). ``what`` names the object in errors
    (``"loss"``)."""
    with extend_scope(custom_objects):
        if isinstance(config, str):
            found = find_object(config, loose=False)
            return found if found is not None else get(config)
        if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
            raise ValueError(f"A {what} config must be a dict with 'class_name' and 'config'. Received: "
                             f"{str(config)[:200]}")
        name = config["class_name"]
        if name == "function":
            fn = find_function(config, functions)
            if fn is None:
                known = sorted(k for k, v in functions.items() if not inspect.isclass(v))
                raise ValueError(f"Unknown {what} function {str(config.get('config'))[:200]!r}. Known functions: "
                                 f"{', '.join(known)}, or one registered or passed in custom_objects")
            return fn
        registered = config.get("registered_name")
        cls = find_object(registered) if isinstance(registered, str) and registered != name else None
        cls = cls or find_object(name, loose=False) or builtins.get(name) or find_object(name)
        if cls is None or not inspect.isclass(cls):
            known = sorted(k for k, v in builtins.items() if inspect.isclass(v))
            raise ValueError(f"Unknown {what} class {name[:200]!r}. Known classes: {', '.join(known)}, or one "
                             "registered with descend.saving.register_serializable or passed in custom_objects")
        inner = config.get("config") or {}
        if not isinstance(inner, dict):
            raise ValueError(f"The config of {what} {name!r} must be a dict. Received: {str(inner)[:200]}")
        return cls.from_config(dict(inner))
