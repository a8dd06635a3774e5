"""``OptimizerMap`` (as Keras 3's ``keras.optimizers.OptimizerMap``): which optimizer updates which variable, by
the variable's path, for :class:`~descend.optimizers.MultiOptimizer`.

A mutable mapping from keys to optimizers with a default: ``optimizer_map[path]`` is the optimizer of an exact key
``path``; else of the one key that matches ``path`` as a regular expression (``re.fullmatch``; two matching keys
are an error); else the default. ``optimizer_map(variable)`` looks the variable's path up (descend's variable
name, ``"dense/kernel"``, is Keras' path). ``MultiOptimizer(optimizer_map)`` routes by it.

Example:
    >>> import descend as ds
    >>> sgd, adam = ds.optimizers.SGD(0.1), ds.optimizers.Adam(0.1)
    >>> routes = ds.optimizers.OptimizerMap(default_optimizer=sgd, optimizer_map={"encoder/.*": adam})
    >>> routes["encoder/dense/kernel"] is adam, routes["decoder/dense/kernel"] is sgd
    (True, True)
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping

from ..persistence import object_config as _serialization
from .optimizer import Optimizer

__all__ = ["OptimizerMap"]


def _check_optimizer(optimizer, what: str) -> None:
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"OptimizerMap: {what} must be a descend Optimizer instance (not a LossScaleOptimizer or a "
                        f"MultiOptimizer). Received: {optimizer!r}")


class OptimizerMap(MutableMapping):
    """Variable paths (exact, or regular expressions matched whole) to optimizers, with a default.

    Args:
        default_optimizer: the optimizer of every variable no key matches.
        optimizer_map: a dict ``{key: optimizer}`` to start from, or None.
    """

    def __init__(self, default_optimizer, optimizer_map=None):
        _check_optimizer(default_optimizer, "default_optimizer")
        if optimizer_map is not None and not isinstance(optimizer_map, dict):
            raise TypeError(f"OptimizerMap: optimizer_map must be a dict. Received: {optimizer_map!r}")
        self._default_optimizer = default_optimizer
        self._optimizer_map: dict = {}
        for key, optimizer in (optimizer_map or {}).items():
            self[key] = optimizer

    @property
    def default_optimizer(self) -> Optimizer:
        return self._default_optimizer

    def __getitem__(self, key):
        if key in self._optimizer_map:
            return self._optimizer_map[key]
        matching = [pattern for pattern in self._optimizer_map if re.fullmatch(pattern, key)]
        if len(matching) > 1:
            raise ValueError(f"Multiple optimizers assigned to variable {key}: the keys {matching} all match it")
        return self._optimizer_map[matching[0]] if matching else self._default_optimizer

    def __setitem__(self, key, optimizer):
        if not isinstance(key, str):
            raise ValueError(f"OptimizerMap: a key must be a string (a path or a regular expression). Received: "
                             f"{key!r}")
        if key in self._optimizer_map:
            raise ValueError(f"OptimizerMap: '{key}' already exists with value {self._optimizer_map[key]!r}; keys "
                             "must not repeat")
        try:
            re.compile(key)
        except re.error as err:
            raise ValueError(f"OptimizerMap: the key {key!r} is not a valid regular expression ({err})") from None
        _check_optimizer(optimizer, f"the optimizer of '{key}'")
        self._optimizer_map[key] = optimizer

    def __delitem__(self, key):
        del self._optimizer_map[key]

    def __len__(self):
        return len(self._optimizer_map)

    def __iter__(self):
        return iter(self._optimizer_map)

    def __call__(self, variable) -> Optimizer:
        return self[getattr(variable, "path", None) or variable.scoped_name]

    @property
    def optimizers(self) -> list:
        """The distinct optimizers of the map (in key order), then the default."""
        out = []
        for optimizer in [*self._optimizer_map.values(), self._default_optimizer]:
            if all(optimizer is not o for o in out):
                out.append(optimizer)
        return out

    def get_config(self) -> dict:
        return {"default_optimizer": _serialization.serialize_keras_object(self._default_optimizer),
                "optimizer_map": {k: _serialization.serialize_keras_object(v) for k, v in self._optimizer_map.items()}}

    @classmethod
    def from_config(cls, config: dict, custom_objects: dict | None = None):
        if not isinstance(config, dict) or "default_optimizer" not in config:
            raise ValueError(f"OptimizerMap.from_config: expected a dict with 'default_optimizer'. Received: "
                             f"{config!r}")
        def build(spec):
            with _serialization.extend_scope(custom_objects):
                return _serialization.build_object(spec, "optimizers", "optimizer")

        mapping = {k: build(v) for k, v in (config.get("optimizer_map") or {}).items()}
        return cls(build(config["default_optimizer"]), mapping)
