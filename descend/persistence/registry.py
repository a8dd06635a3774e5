"""Name lookup shared by ``losses.get``, ``metrics.get`` and friends (Keras's ``get`` functions)."""

from __future__ import annotations

import inspect

__all__ = ["deserialize_object", "get_object", "serialize_object"]


def get_object(identifier, registry: dict, base: type, kind: str, deserialize):
    """Resolve ``identifier``: None, a config dict, a registered name, a class (instantiated) or a callable."""
    if identifier is None:
        return None
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        obj = registry.get(identifier)
        if obj is None:
            raise ValueError(f"Unknown {kind} {identifier!r}. Known names: {', '.join(sorted(registry))}")
    else:
        obj = identifier
    if inspect.isclass(obj):
        if not issubclass(obj, base):
            raise ValueError(f"Could not interpret {kind} identifier: {identifier!r} (not a {base.__name__} subclass)")
        obj = obj()
    if callable(obj):
        return obj
    raise ValueError(f"Could not interpret {kind} identifier: {identifier!r}")


def serialize_object(obj, base: type):
    """Keras 3's config of an instance of ``base`` (``{"module", "class_name", "config",
    "registered_name"}``); a function gives Keras' function config (found again by its registered
    name or its name)."""
    if obj is None:
        return None
    from .serialization import function_config, serialize_keras_object

    if isinstance(obj, base) or hasattr(obj, "get_config") and not isinstance(obj, type):
        return serialize_keras_object(obj)
    if hasattr(obj, "__name__"):
        return function_config(obj)
    return repr(obj)


def deserialize_object(config, kind: str, aliases: dict, classes: dict, custom_objects: dict | None = None):
    """Rebuild an object from :func:`serialize_object`'s output or a name: ``custom_objects``, an active
    ``custom_object_scope`` and registered objects first, then ``aliases`` and ``classes``."""
    from .serialization import extend_scope, find_object

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
            raise ValueError(f"{article} {kind} config needs a string 'class_name'. Received: {_short(config)}")
        inner = config.get("config")
        if name == "function":  # Keras' config of a function: its registered name or its name
            fn = find_object(inner, custom_objects) if isinstance(inner, str) else None
            if fn is None:
                raise ValueError(f"Unknown {kind} function {_short(inner)}: register it with "
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
                             f"of custom_objects. Received: {_short(config)}")
        if not isinstance(cls, type):
            return cls
        if inner is not None and not isinstance(inner, dict):
            raise ValueError(f"The config of {kind} {name!r} must be a dict. Received: {_short(inner)}")
        with extend_scope(custom_objects):
            return cls.from_config(dict(inner or {}))
    raise TypeError(f"Cannot deserialize {article.lower()} {kind} from {type(config).__name__}: {_short(config)}")


def _short(value, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."
