"""``Lambda``: a layer around a function of its inputs."""

from __future__ import annotations

import base64
import importlib
import inspect
import marshal
import types

from .base import Layer

__all__ = ["Lambda"]

_UNSAFE = ("Requested the deserialization of a Lambda layer whose `function` is a Python lambda: running code "
           "from a config can execute anything, so it is refused by default. If you trust the source of the "
           "config, pass safe_mode=False to Lambda.from_config, or define the function with `def` in a module "
           "(or pass it in custom_objects)")


def _serialize_function(fn) -> dict:
    name = getattr(fn, "__qualname__", "")
    if isinstance(fn, types.FunctionType) and fn.__name__ != "<lambda>" and "<locals>" not in name:
        return {"class_name": "function", "module": fn.__module__, "config": name}
    if not isinstance(fn, types.FunctionType):
        raise ValueError(f"Lambda.get_config: cannot write {fn!r} in a config (a function or lambda is needed)")
    if fn.__closure__:
        raise ValueError(f"Lambda.get_config: the function {name} reads variables of an enclosing function "
                         f"({', '.join(fn.__code__.co_freevars)}); pass them in `arguments` instead, or define "
                         "the function at module level")
    return {"class_name": "__lambda__",
            "config": {"code": base64.b64encode(marshal.dumps(fn.__code__)).decode("ascii"),
                       "defaults": list(fn.__defaults__) if fn.__defaults__ else None}}


def _deserialize_function(config, custom_objects, safe_mode: bool):
    if callable(config):
        return config
    if not isinstance(config, dict) or "class_name" not in config:
        raise ValueError(f"Lambda.from_config: not a serialized function: {config!r}")
    if config["class_name"] == "function":
        name = config["config"]
        if custom_objects and name in custom_objects:
            return custom_objects[name]
        obj = importlib.import_module(config["module"])
        for part in name.split("."):
            obj = getattr(obj, part)
        return obj
    if config["class_name"] == "__lambda__":
        if safe_mode:
            raise ValueError(_UNSAFE)
        code = marshal.loads(base64.b64decode(config["config"]["code"]))
        defaults = config["config"].get("defaults")
        return types.FunctionType(code, globals(), code.co_name, tuple(defaults) if defaults else None)
    raise ValueError(f"Lambda.from_config: unknown function kind {config['class_name']!r}")


class Lambda(Layer):
    """Wraps ``function(inputs, **arguments)`` as a layer (no weights).

    The function receives ``mask`` and ``training`` too when its signature
    names them. For a config that can be reloaded, use a ``def`` function at
    module level; a ``lambda`` is written as bytecode and only reloaded with
    ``safe_mode=False`` (as Keras).

    Args:
        function: a callable of the inputs (a Tensor or a list of Tensors).
        output_shape: accepted for Keras compatibility (shapes are inferred).
        mask: None, or a callable ``(inputs, mask) -> mask`` for the output's Keras mask.
        arguments: a dict of extra keyword arguments for ``function``.

    Example:
        >>> import descend as ds
        >>> ds.layers.Lambda(lambda x: x * 2.0)(ds.constant([[1.0, 2.0]])).numpy()
        array([[2., 4.]], dtype=float32)
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise TypeError(f"Lambda: `function` must be callable. Received: {function!r}")
        if arguments is not None and not isinstance(arguments, dict):
            raise TypeError(f"Lambda: `arguments` must be a dict. Received: {arguments!r}")
        self.function = function
        self.output_shape = output_shape
        self.mask = mask
        self.arguments = dict(arguments or {})
        params = inspect.signature(function).parameters if _has_signature(function) else {}
        self._fn_mask = "mask" in params
        self._fn_training = "training" in params
        self.supports_masking = mask is not None

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_mask:
            kwargs["mask"] = mask
        if self._fn_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def get_config(self) -> dict:
        return {**super().get_config(), "function": _serialize_function(self.function),
                "output_shape": self.output_shape, "arguments": self.arguments}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None, safe_mode: bool = True):
        config = dict(config)
        config["function"] = _deserialize_function(config["function"], custom_objects, safe_mode)
        return cls(**config)


def _has_signature(fn) -> bool:
    try:
        inspect.signature(fn)
        return True
    except (TypeError, ValueError):
        return False
