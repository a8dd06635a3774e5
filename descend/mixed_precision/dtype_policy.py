"""Dtype policies (a layer's compute and variable dtypes) and the global policy (public as ``descend.mixed_precision``, with LossScaleOptimizer)."""

from __future__ import annotations

import numpy as np

from .. import backend
from ..persistence.registry import register_builtins

__all__ = ["DTypePolicy", "Policy", "dtype_policy", "global_policy", "set_dtype_policy",
           "set_global_policy"]

_MIXED = {"mixed_float16": ("float16", "float32")}
_UNSUPPORTED = ("mixed_bfloat16", "bfloat16")


class Policy:
    """A layer's compute and variable dtypes, by name.

    Args:
        name: ``"mixed_float16"`` (float16 compute, float32 variables) or a floating dtype name
            (``"float16"``, ``"float32"``, ``"float64"``: both dtypes the same). None: the global policy's name.
    """

    def __init__(self, name=None):
        if name is None:
            name = global_policy().name
        if isinstance(name, Policy):
            name = name.name
        if not isinstance(name, str):
            raise TypeError(f"`name` must be a string such as 'mixed_float16' or 'float32'. Received: name={name!r}")
        if name in _UNSUPPORTED:
            raise ValueError(f"Policy {name!r} needs bfloat16, which NumPy (descend's array library) does not have; "
                             "use 'mixed_float16'")
        if name in _MIXED:
            compute, variable = _MIXED[name]
        else:
            try:
                d = backend.np_dtype(name)
            except (TypeError, ValueError):
                d = None
            if d is None or d.kind != "f":
                raise ValueError(f"Cannot convert {name!r} to a mixed precision Policy: expected 'mixed_float16' or "
                                 "a floating dtype name such as 'float32'")
            compute = variable = d.name
        self._name = name
        self._compute = np.dtype(compute)
        self._variable = np.dtype(variable)

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self) -> str:
        """The dtype layers compute in (a name, as Keras gives it)."""
        return self._compute.name

    @property
    def variable_dtype(self) -> str:
        """The dtype of the layers' weights (a name)."""
        return self._variable.name

    def get_config(self) -> dict:
        return {"name": self._name}

    @classmethod
    def from_config(cls, config: dict) -> Policy:
        return cls(**config)

    def __eq__(self, other):
        return isinstance(other, Policy) and other._name == self._name

    def __hash__(self):
        return hash(self._name)

    def __repr__(self):
        return f'<Policy "{self._name}">'


DTypePolicy = Policy  # Keras 3's name
register_builtins("dtype_policies", {"DTypePolicy": Policy, "FloatDTypePolicy": Policy, "Policy": Policy})
_GLOBAL: Policy | None = None


def global_policy() -> Policy:
    """The policy of layers created without a ``dtype`` (default: ``floatx()``'s name)."""
    return _GLOBAL if _GLOBAL is not None else Policy(backend.floatx().name)


def set_global_policy(policy) -> None:
    """Set the global policy: a :class:`Policy`, a name (``"mixed_float16"``), or None (back to ``floatx()``).

    Layers created afterwards use it; existing layers keep theirs."""
    global _GLOBAL
    if policy is None:
        _GLOBAL = None
        return
    _GLOBAL = policy if isinstance(policy, Policy) else Policy(policy)


set_dtype_policy = set_global_policy  # Keras 3's names
dtype_policy = global_policy


def layer_dtypes(dtype) -> tuple:
    """``(policy, variable NumPy dtype, compute NumPy dtype)`` of a layer given ``dtype=`` (None: the global
    policy): how layers consult the policy."""
    if dtype is None:
        policy = global_policy()
    elif isinstance(dtype, Policy):
        policy = dtype
    elif isinstance(dtype, str) and dtype in _MIXED:
        policy = Policy(dtype)
    else:
        d = backend.np_dtype(dtype)
        return None, d, d
    return policy, policy._variable, policy._compute
