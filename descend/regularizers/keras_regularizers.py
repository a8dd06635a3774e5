"""Keras 3's weight regularizers (public as ``descend.regularizers``)."""

from __future__ import annotations

import math

import numpy as np

from ..persistence.object_config import deserialize_object, serialize_object
from ..persistence.registry import public_names, register_builtins
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from ..ops import math_ops

__all__ = ["Regularizer", "L1", "L2", "L1L2", "OrthogonalRegularizer", "l1", "l2", "l1_l2", "orthogonal_regularizer",
           "get", "serialize", "deserialize"]


def _tensor(x):
    return x if isinstance(x, (Tensor, Variable)) else convert_to_tensor(x)


def _factor(value, name: str) -> float:
    if (isinstance(value, bool) or not isinstance(value, (int, float, np.number))
            or math.isinf(value) or math.isnan(value) or value < 0):
        raise ValueError(f"Invalid value for argument {name}: expected a non-negative float. "
                         f"Received: {name}={value!r}")
    return float(value)


class Regularizer:
    """Base class of regularizers.

    Subclass it and implement ``__call__(self, x)`` (or ``call(self, x)``, as
    some TF tutorials do: the base ``__call__`` forwards to it), returning a
    scalar Tensor, plus ``get_config`` if the regularizer should serialize.
    The base penalty, when neither is implemented, is zero.

    Example:
        >>> import descend as ds
        >>> class AbsSum(ds.regularizers.Regularizer):
        ...     def __init__(self, factor):
        ...         super().__init__()
        ...         self.factor = factor
        ...     def call(self, weights):
        ...         return ds.reduce_sum(ds.abs(self.factor * weights))
        ...     def get_config(self):
        ...         return {"factor": self.factor}
        >>> float(AbsSum(0.5)(ds.constant([1.0, -3.0])))
        2.0
    """

    def __call__(self, x) -> Tensor:
        call = getattr(type(self), "call", None)
        if call is not None:
            return call(self, x)
        x = _tensor(x)
        return Tensor(np.zeros((), x.dtype))

    def get_config(self) -> dict:
        raise NotImplementedError(f"{type(self).__name__} does not implement get_config()")

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def __repr__(self):
        try:
            args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        except NotImplementedError:
            args = "..."
        return f"{type(self).__name__}({args})"


class L1(Regularizer):
    """``l1 * reduce_sum(abs(x))``.

    Args:
        l1: non-negative factor (default 0.01).

    Example:
        >>> import descend as ds
        >>> float(ds.regularizers.L1(0.5)(ds.constant([1.0, -3.0])))
        2.0
    """

    def __init__(self, l1=0.01):
        self.l1 = _factor(0.01 if l1 is None else l1, "l1")

    def __call__(self, x) -> Tensor:
        # l1 * sum |x|
        return math_ops.multiply(math_ops.reduce_sum(math_ops.abs(_tensor(x))), self.l1)

    def get_config(self) -> dict:
        return {"l1": self.l1}


class L2(Regularizer):
    """``l2 * reduce_sum(square(x))`` (no 1/2 factor, as Keras).

    Args:
        l2: non-negative factor (default 0.01).

    Example:
        >>> import descend as ds
        >>> float(ds.regularizers.L2(0.5)(ds.constant([1.0, -3.0])))
        5.0
    """

    def __init__(self, l2=0.01):
        self.l2 = _factor(0.01 if l2 is None else l2, "l2")

    def __call__(self, x) -> Tensor:
        # l2 * sum x^2
        return math_ops.multiply(math_ops.reduce_sum(math_ops.square(_tensor(x))), self.l2)

    def get_config(self) -> dict:
        return {"l2": self.l2}


class L1L2(Regularizer):
    """``l1 * reduce_sum(abs(x)) + l2 * reduce_sum(square(x))``.

    The constructor's defaults are 0 (Keras 3: ``L1L2(l2=0.1)`` has no L1
    term); the string ``"l1_l2"`` gives ``l1=0.01, l2=0.01``.

    Args:
        l1: non-negative L1 factor (default 0.0).
        l2: non-negative L2 factor (default 0.0).

    Example:
        >>> import descend as ds
        >>> float(ds.regularizers.L1L2(l1=1.0, l2=1.0)(ds.constant([1.0, -3.0])))
        14.0
    """

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _factor(0.0 if l1 is None else l1, "l1")
        self.l2 = _factor(0.0 if l2 is None else l2, "l2")

    def __call__(self, x) -> Tensor:
        x = _tensor(x)
        terms = []
        if self.l1:
            terms.append(math_ops.multiply(math_ops.reduce_sum(math_ops.abs(x)), self.l1))
        if self.l2:
            terms.append(math_ops.multiply(math_ops.reduce_sum(math_ops.square(x)), self.l2))
        if not terms:
            return Tensor(np.zeros((), x.dtype))
        return terms[0] if len(terms) == 1 else math_ops.add(terms[0], terms[1])

    def get_config(self) -> dict:
        return {"l1": self.l1, "l2": self.l2}


class OrthogonalRegularizer(Regularizer):
    """Penalizes non-orthogonal rows (or columns) of a 2-D weight.

    With ``u_i`` the L2-normalized rows (``mode="rows"``) or columns:
    ``factor * 0.5 * sum_{i != j} |u_i . u_j| / (n (n - 1) / 2)``.

    Args:
        factor: non-negative factor (default 0.01).
        mode: ``"rows"`` (default) or ``"columns"``.

    Example:
        >>> import descend as ds, numpy as np
        >>> float(ds.regularizers.OrthogonalRegularizer(1.0)(ds.constant(np.eye(3))))
        0.0
    """

    def __init__(self, factor=0.01, mode="rows"):
        self.factor = _factor(factor, "factor")
        if mode not in ("rows", "columns"):
            raise ValueError(f"mode must be one of ['rows', 'columns']. Received: mode={mode!r}")
        self.mode = mode

    def __call__(self, x) -> Tensor:
        x = _tensor(x)
        if x.ndim != 2:
            raise ValueError(f"OrthogonalRegularizer expects a rank-2 weight. Received: shape={tuple(x.shape)}")
        axis = 1 if self.mode == "rows" else 0
        # u = x / ||x||, with 1/||x|| capped at 1/eps for zero vectors
        inv = math_ops.minimum(math_ops.rsqrt(math_ops.reduce_sum(math_ops.square(x), axis=axis, keepdims=True)),
                               1e7)
        u = math_ops.multiply(x, inv)
        if self.mode == "rows":
            product = math_ops.matmul(u, u, transpose_b=True)
        else:
            product = math_ops.matmul(u, u, transpose_a=True)
        n = product.shape[0]
        off_diagonal = math_ops.multiply(product, Tensor((1.0 - np.eye(n)).astype(x.dtype)))
        pairs = max(n * (n - 1) / 2.0, 1.0)
        return math_ops.multiply(math_ops.reduce_sum(math_ops.abs(off_diagonal)), self.factor * 0.5 / pairs)

    def get_config(self) -> dict:
        return {"factor": self.factor, "mode": self.mode}


# Keras 3's lower-case names are the classes themselves (``keras.regularizers.l2 is keras.regularizers.L2``),
# so ``l2(0.01)`` serializes as "L2" and ``l1_l2(l1=0.01)`` has Keras 3's default l2=0
l1 = L1
l2 = L2
l1_l2 = L1L2
orthogonal_regularizer = OrthogonalRegularizer

# ---------------------------------------------------------------- lookup
register_builtins("regularizers", public_names(
    __name__, lambda obj: isinstance(obj, type) and issubclass(obj, Regularizer)))
_ALIASES = {
    "l1": L1,
    "l2": L2,
    "l1_l2": lambda: L1L2(l1=0.01, l2=0.01),
    "orthogonal_regularizer": OrthogonalRegularizer,
}


def serialize(regularizer) -> dict | str | None:
    """``{"class_name": ..., "config": ...}`` for a Regularizer; a plain function gives its name."""
    return serialize_object(regularizer, Regularizer)


def deserialize(config, custom_objects: dict | None = None):
    """Rebuild a regularizer from :func:`serialize`'s output (or a name)."""
    return deserialize_object(config, "regularizer", _ALIASES, "regularizers", custom_objects)


def get(identifier, custom_objects: dict | None = None):
    """The regularizer for ``identifier``: None, a name (``"l2"``), a config dict, a Regularizer
    or any callable ``weight -> scalar``.

    Raises:
        ValueError: for an unknown name, saying which names are known.
    """
    if identifier is None or isinstance(identifier, Regularizer):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier, custom_objects)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret regularizer identifier. Expected a name such as 'l2', a config dict, a "
                     f"Regularizer or a callable. Received: {identifier!r}")
