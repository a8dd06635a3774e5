"""``keras.dtype_policies``: dtype policies (descend's :class:`~descend.mixed_precision.Policy`) and their
Keras 3 serialization (``{"module": "keras", "class_name": "DTypePolicy", "config": {"name": ...}}``).
Keras' quantized policies (int8/int4/float8/GPTQ/AWQ) are a quantization back end descend leaves out.

Example:
    >>> from descend.keras import dtype_policies
    >>> p = dtype_policies.get("mixed_float16")
    >>> p.compute_dtype, p.variable_dtype
    ('float16', 'float32')
    >>> dtype_policies.serialize(p)["config"]
    {'name': 'mixed_float16'}
"""

from __future__ import annotations

from ..mixed_precision import DTypePolicy

__all__ = ["DTypePolicy", "FloatDTypePolicy", "deserialize", "get", "serialize"]

FloatDTypePolicy = DTypePolicy  # Keras 3's name for a policy of float dtypes


def serialize(dtype_policy) -> dict:
    """The Keras 3 config of ``dtype_policy``."""
    if not isinstance(dtype_policy, DTypePolicy):
        raise TypeError(f"serialize: expected a DTypePolicy. Received {type(dtype_policy).__name__}")
    return {"module": "keras", "class_name": "DTypePolicy", "config": dtype_policy.get_config(),
            "registered_name": None}


def deserialize(config, custom_objects=None) -> DTypePolicy:
    """The policy a :func:`serialize` config describes."""
    if not isinstance(config, dict) or "config" not in config:
        raise ValueError(f"deserialize: expected a dict with 'class_name' and 'config'. Received {config!r}")
    name = config.get("class_name")
    if name not in ("DTypePolicy", "FloatDTypePolicy", "Policy"):
        raise ValueError(f"deserialize: unknown dtype policy class {name!r} (descend has DTypePolicy and "
                         "FloatDTypePolicy; quantized policies are left out)")
    return DTypePolicy.from_config(config["config"])


def get(identifier) -> DTypePolicy:
    """A policy from a policy, a name (``"float32"``, ``"mixed_float16"``) or a config dict."""
    if isinstance(identifier, DTypePolicy):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return DTypePolicy(identifier)
    raise ValueError(f"Cannot interpret `dtype_policy` argument: {identifier!r}. Expected a DTypePolicy, a name or "
                     "a config dict")
