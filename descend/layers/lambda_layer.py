"""``Lambda``: a layer around a function of its inputs.

Its config names the function: a ``def`` function by its registered name (or its name), found
again only among functions registered with :func:`descend.saving.register_serializable`, passed in
``custom_objects`` or a ``custom_object_scope``, and descend's own activations, losses and metrics;
nothing a config names is imported. A ``lambda`` is written as bytecode and reloaded only with
``safe_mode=False``, as in Keras.
"""

from __future__ import annotations

import inspect
import types

from ..persistence import object_config as _serialization
from .base import Layer

__all__ = ["Lambda"]


def _serialize_function(fn):
    if isinstance(fn, types.FunctionType) and fn.__name__ == "<lambda>":
        return _serialization.dump_lambda(fn)
    if not callable(fn) or not hasattr(fn, "__name__"):
        raise ValueError(f"Lambda.get_config: cannot write {fn!r} in a config (a named function or a lambda is "
                         "needed)")
    return _serialization.function_config(fn)


def _deserialize_function(config, custom_objects, safe_mode):
    if callable(config):
        return config
    if isinstance(config, str):  # a bare name
        config = {"class_name": "function", "config": config}
    if not isinstance(config, dict) or not isinstance(config.get("class_name"), str):
        raise ValueError(f"Lambda.from_config: not a serialized function: {str(config)[:200]}")
    if config["class_name"] == "__lambda__":
        return _serialization.load_lambda(config, safe_mode)
    if config["class_name"] != "function":
        raise ValueError(f"Lambda.from_config: unknown function kind {config['class_name'][:100]!r}")
    name = config.get("config")
    if isinstance(config.get("registered_name"), str) and config["registered_name"] not in ("function", name):
        name = config["registered_name"]
    fn = None
    if isinstance(name, str):
        fn = _serialization.find_object(name, custom_objects, loose=False)
        for kind in ("activations", "losses", "metrics"):
            fn = fn or _serialization.builtin_objects(kind).get(name)
        fn = fn or _serialization.find_object(name, custom_objects)
    if fn is None or inspect.isclass(fn) or not callable(fn):
        module = config.get("module")
        where = f"{str(module)[:100]}." if isinstance(module, str) and module != "builtins" else ""
        raise ValueError(f"Lambda.from_config: unknown function '{where}{str(name)[:200]}'. A Lambda's function is "
                         "looked up, never imported: register it with descend.saving.register_serializable, or pass "
                         "it in custom_objects (or a custom_object_scope)")
    return fn


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
    def from_config(cls, config: dict, custom_objects: dict | None = None, safe_mode: bool | None = None):
        """Rebuild the layer; ``safe_mode`` (default: the loading function's, else True) refuses a lambda's
        bytecode."""
        config = dict(config)
        if "function" not in config:
            raise ValueError("Lambda.from_config: the config has no 'function'")
        config["function"] = _deserialize_function(config["function"], custom_objects, safe_mode)
        if isinstance(config.get("arguments"), dict):  # arrays and objects in it were written as configs
            config["arguments"] = _serialization.deserialize_keras_object(
                config["arguments"], custom_objects, safe_mode=_serialization.in_safe_mode(safe_mode))
        return cls(**config)


def _has_signature(fn) -> bool:
    try:
        inspect.signature(fn)
        return True
    except (TypeError, ValueError):
        return False
