"""Keras 3's activation functions by name, built on descend.nn and descend ops (public as ``descend.activations``)."""

from __future__ import annotations

import weakref

from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.variable import Variable
from ..ops import array_ops, math_ops, nn_ops
from ..persistence.registry import register_builtins

__all__ = [
    "linear", "relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "sigmoid", "hard_sigmoid", "hard_silu",
    "hard_swish", "softmax", "log_softmax", "softplus", "softsign", "tanh", "silu", "swish", "exponential", "mish",
    "get", "serialize", "deserialize", "celu", "glu", "hard_tanh", "hard_shrink", "soft_shrink", "tanh_shrink",
    "log_sigmoid", "sparse_plus", "sparse_sigmoid", "squareplus", "threshold", "sparsemax",
]


def _t(x):
    return x if isinstance(x, (Tensor, Variable)) else convert_to_tensor(x)


# ---- the logits behind a softmax or sigmoid output (Keras' ``_keras_logits``) ------------------------------------
_logits: dict = {}


def _forget(key):
    return lambda _ref: _logits.pop(key, None)


def remember_logits(output, logits, kind: str, axis: int = -1):
    """Note that ``output`` is ``kind`` (``"softmax"`` or ``"sigmoid"``) of ``logits`` along ``axis``, so that a
    cross-entropy of ``output`` computed without ``from_logits`` works from ``logits`` instead, as Keras 3 does
    (exact where the probabilities would be clipped at 1e-7); returns ``output``."""
    if isinstance(output, Tensor) and isinstance(logits, (Tensor, Variable)):
        key = id(output)
        _logits[key] = (weakref.ref(output, _forget(key)), logits, kind, axis % max(output.ndim, 1))
    return output


def logits_of(output, kind: str, axis: int = -1):
    """The logits ``output`` was computed from by :func:`softmax` (``kind="softmax"``, along ``axis``) or
    :func:`sigmoid` (``kind="sigmoid"``), or None."""
    entry = _logits.get(id(output))
    if entry is None or entry[0]() is not output or entry[2] != kind:
        return None
    if kind == "softmax" and entry[3] != axis % max(output.ndim, 1):
        return None
    return entry[1]


def linear(x):
    """The identity: ``x``."""
    return _t(x)


def relu(x, negative_slope: float = 0.0, max_value: float | None = None, threshold: float = 0.0):
    """Rectified linear unit, with Keras' optional slope, cap and threshold.

    As Keras: ``y = x`` where ``x > threshold`` else 0 (``relu(x)`` when
    ``threshold == 0``), clipped to ``[0, max_value]`` if ``max_value`` is
    given, minus ``negative_slope * relu(threshold - x)``. With the defaults:
    ``max(x, 0)``.
    """
    x = _t(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return nn_ops.relu(x)
    if threshold != 0.0:
        y = math_ops.where(math_ops.greater(x, float(threshold)), x, math_ops.zeros_like(x))
    else:
        y = nn_ops.relu(x)
    if max_value is not None:
        y = math_ops.clip_by_value(y, 0.0, float(max_value))
    if negative_slope != 0.0:
        # the part below the threshold: negative_slope * (x - threshold)
        y = math_ops.subtract(y, math_ops.multiply(nn_ops.relu(math_ops.subtract(float(threshold), x)),
                                                   float(negative_slope)))
    return y


def relu6(x):
    """``min(max(x, 0), 6)``."""
    return nn_ops.relu6(_t(x))


def leaky_relu(x, negative_slope: float = 0.2):
    """``x`` for ``x > 0``, else ``negative_slope * x``."""
    return nn_ops.leaky_relu(_t(x), alpha=negative_slope)


def elu(x, alpha: float = 1.0):
    """``x`` for ``x > 0``, else ``alpha * (exp(x) - 1)``."""
    x = _t(x)
    if alpha == 1.0:
        return nn_ops.elu(x)
    return math_ops.where(math_ops.greater(x, 0.0), x, math_ops.multiply(math_ops.expm1(x), float(alpha)))


def selu(x):
    """Scaled ELU with the self-normalizing constants (``scale * elu(x, alpha)``)."""
    return nn_ops.selu(_t(x))


def gelu(x, approximate: bool = False):
    """Gaussian error linear unit ``x * Phi(x)`` (tanh approximation with ``approximate=True``)."""
    return nn_ops.gelu(_t(x), approximate=approximate)


def sigmoid(x):
    """``1 / (1 + exp(-x))``; a cross-entropy of the result works from ``x`` (:func:`logits_of`), as Keras'."""
    x = _t(x)
    return remember_logits(nn_ops.sigmoid(x), x, "sigmoid")


def hard_sigmoid(x):
    """Piecewise-linear sigmoid: ``relu6(x + 3) / 6`` (Keras 3)."""
    return math_ops.divide(nn_ops.relu6(math_ops.add(_t(x), 3.0)), 6.0)


def hard_silu(x):
    """``x * hard_sigmoid(x)``."""
    x = _t(x)
    return math_ops.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def softmax(x, axis: int = -1):
    """``exp(x) / sum(exp(x))`` along ``axis`` (the last by default); a cross-entropy of the result works from
    ``x`` (:func:`logits_of`), as Keras'."""
    x = _t(x)
    return remember_logits(nn_ops.softmax(x, axis=axis), x, "softmax", axis)


def log_softmax(x, axis: int = -1):
    """``x - logsumexp(x)`` along ``axis``."""
    return nn_ops.log_softmax(_t(x), axis=axis)


def softplus(x):
    """``log(1 + exp(x))``."""
    return nn_ops.softplus(_t(x))


def softsign(x):
    """``x / (1 + |x|)``."""
    return nn_ops.softsign(_t(x))


def tanh(x):
    """Hyperbolic tangent."""
    return math_ops.tanh(_t(x))


def silu(x):
    """``x * sigmoid(x)`` (also called swish)."""
    return nn_ops.silu(_t(x))


swish = silu


def exponential(x):
    """``exp(x)``."""
    return math_ops.exp(_t(x))


def mish(x):
    """``x * tanh(softplus(x))``."""
    x = _t(x)
    return math_ops.multiply(x, math_ops.tanh(nn_ops.softplus(x)))


# ---- issue 37: Keras 3's other activations, as compositions of descend ops (differentiable through the tape) -----
def _where(cond, a, b):
    return math_ops.where(cond, a, b)


def _full_like(x, value):
    return math_ops.add(math_ops.zeros_like(x), float(value))


def celu(x, alpha: float = 1.0):
    """Continuously differentiable ELU: ``x`` for ``x > 0``, else ``alpha * (exp(x / alpha) - 1)``."""
    x = _t(x)
    return _where(math_ops.greater(x, 0.0), x,
                  math_ops.multiply(math_ops.expm1(math_ops.divide(x, float(alpha))), float(alpha)))


def glu(x, axis: int = -1):
    """Gated linear unit: ``a * sigmoid(b)`` for the two halves ``a, b`` of ``x`` along ``axis``."""
    x = _t(x)
    if x.shape[axis] % 2:
        raise ValueError(f"axis size must be divisible by 2. Received: inputs.shape={tuple(x.shape)}")
    a, b = array_ops.split(x, 2, axis=axis)
    return math_ops.multiply(a, nn_ops.sigmoid(b))


def hard_tanh(x):
    """``clip(x, -1, 1)``."""
    return math_ops.clip_by_value(_t(x), -1.0, 1.0)


def hard_shrink(x, threshold: float = 0.5):
    """``x`` where ``|x| > threshold``, else 0."""
    x = _t(x)
    return _where(math_ops.greater(math_ops.abs(x), float(threshold)), x, math_ops.zeros_like(x))


def soft_shrink(x, threshold: float = 0.5):
    """``x - threshold`` above ``threshold``, ``x + threshold`` below ``-threshold``, else 0."""
    x = _t(x)
    t = float(threshold)
    return _where(math_ops.greater(x, t), math_ops.subtract(x, t),
                  _where(math_ops.less(x, -t), math_ops.add(x, t), math_ops.zeros_like(x)))


def tanh_shrink(x):
    """``x - tanh(x)``."""
    x = _t(x)
    return math_ops.subtract(x, math_ops.tanh(x))


def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``."""
    return math_ops.negative(nn_ops.softplus(math_ops.negative(_t(x))))


def sparse_plus(x):
    """0 for ``x <= -1``, ``x`` for ``x >= 1``, ``(x + 1)**2 / 4`` between."""
    x = _t(x)
    middle = math_ops.multiply(math_ops.square(math_ops.add(x, 1.0)), 0.25)
    return _where(math_ops.less_equal(x, -1.0), math_ops.zeros_like(x),
                  _where(math_ops.greater_equal(x, 1.0), x, middle))


def sparse_sigmoid(x):
    """0 for ``x <= -1``, 1 for ``x >= 1``, ``(x + 1) / 2`` between."""
    x = _t(x)
    middle = math_ops.multiply(math_ops.add(x, 1.0), 0.5)
    return _where(math_ops.less_equal(x, -1.0), math_ops.zeros_like(x),
                  _where(math_ops.greater_equal(x, 1.0), _full_like(x, 1.0), middle))


def squareplus(x, b: float = 4.0):
    """``(x + sqrt(x**2 + b)) / 2``."""
    x = _t(x)
    return math_ops.multiply(math_ops.add(x, math_ops.sqrt(math_ops.add(math_ops.square(x), float(b)))), 0.5)


def threshold(x, threshold, default_value):
    """``x`` where ``x > threshold``, else ``default_value``."""
    x = _t(x)
    return _where(math_ops.greater(x, float(threshold)), x, _full_like(x, default_value))


def sparsemax(x, axis: int = -1):
    """The Euclidean projection of ``x`` onto the simplex along ``axis`` (Martins & Astudillo, 2016):
    ``max(x - tau, 0)`` with ``tau`` chosen so the entries sum to 1; sparse where softmax is not."""
    import numpy as np

    x = _t(x)
    v = np.moveaxis(x.numpy(), axis, -1)
    z = -np.sort(-v, axis=-1)
    k = np.arange(1, z.shape[-1] + 1, dtype=v.dtype)
    support_sorted = 1 + k * z > np.cumsum(z, axis=-1)
    k_max = support_sorted.sum(axis=-1, keepdims=True)
    tau_np = (np.take_along_axis(np.cumsum(z, axis=-1), k_max - 1, axis=-1) - 1) / k_max
    support = np.moveaxis(v > tau_np, -1, axis)  # the entries above tau: the support (a constant)
    count = np.moveaxis(k_max, -1, axis).astype(v.dtype)
    mask = Tensor(support.astype(v.dtype))
    # tau = (sum of the support's entries - 1) / |support|, a differentiable function of x
    tau = math_ops.divide(math_ops.subtract(math_ops.reduce_sum(math_ops.multiply(x, mask), axis=axis, keepdims=True),
                                            1.0), Tensor(count))
    return nn_ops.relu(math_ops.subtract(x, tau))


_BY_NAME = {
    "linear": linear, "relu": relu, "relu6": relu6, "leaky_relu": leaky_relu, "elu": elu, "selu": selu,
    "gelu": gelu, "sigmoid": sigmoid, "hard_sigmoid": hard_sigmoid, "hard_silu": hard_silu,
    "hard_swish": hard_swish, "softmax": softmax, "log_softmax": log_softmax, "softplus": softplus,
    "softsign": softsign, "tanh": tanh, "silu": silu, "swish": swish, "exponential": exponential, "mish": mish,
    "celu": celu, "glu": glu, "hard_tanh": hard_tanh, "hard_shrink": hard_shrink, "soft_shrink": soft_shrink,
    "tanh_shrink": tanh_shrink, "log_sigmoid": log_sigmoid, "sparse_plus": sparse_plus,
    "sparse_sigmoid": sparse_sigmoid, "squareplus": squareplus, "threshold": threshold, "sparsemax": sparsemax,
}
register_builtins("activations", _BY_NAME)
# descend.nn / descend functions given directly serialize to the matching name
_NAME_OF = {id(fn): name for name, fn in _BY_NAME.items() if name not in ("hard_swish", "swish")}
for _name, _fn in (("relu", nn_ops.relu), ("relu6", nn_ops.relu6), ("leaky_relu", nn_ops.leaky_relu),
                   ("elu", nn_ops.elu), ("selu", nn_ops.selu), ("gelu", nn_ops.gelu), ("sigmoid", nn_ops.sigmoid),
                   ("softmax", nn_ops.softmax), ("log_softmax", nn_ops.log_softmax), ("softplus", nn_ops.softplus),
                   ("softsign", nn_ops.softsign), ("silu", nn_ops.silu), ("tanh", math_ops.tanh),
                   ("exponential", math_ops.exp)):
    _NAME_OF.setdefault(id(_fn), _name)


def serialize(activation):
    """The name of a built-in activation (``None`` for None); another function gives Keras 3's
    function config, ``{"module": "builtins", "class_name": "function", "config": <its registered
    name, else its name>, "registered_name": "function"}``, found again through the registry,
    ``custom_objects`` or a ``custom_object_scope``."""
    if activation is None:
        return None
    name = _NAME_OF.get(id(activation))
    if name is not None:
        return name
    from ..persistence.object_config import function_config, serialize_keras_object

    if hasattr(activation, "get_config") and not isinstance(activation, type):
        return serialize_keras_object(activation)
    return function_config(activation)


def deserialize(name, custom_objects: dict | None = None):
    """The activation function a name or a config stands for: ``custom_objects``, an active
    ``custom_object_scope`` and registered functions first, then the built-in activations."""
    from ..persistence.object_config import build_object, find_object

    if isinstance(name, dict):
        if name.get("class_name") == "function" or set(name) <= {"class_name", "config"} and \
                isinstance(name.get("config"), str):  # {"class_name": "function", "config": "relu"}
            name = name.get("config", name.get("class_name"))
        else:  # an activation object's config (a registered class with get_config)
            from ..persistence.object_config import extend_scope

            with extend_scope(custom_objects or {}):
                return build_object(name, "activations", "activation")
    fn = None
    if isinstance(name, str):
        fn = find_object(name, custom_objects, loose=False) or _BY_NAME.get(name) or find_object(name, custom_objects)
    if fn is None:
        raise ValueError(f"Unknown activation: {name!r}. Expected one of {sorted(_BY_NAME)}, a function registered "
                         "with descend.saving.register_serializable or passed in custom_objects, or a callable. "
                         f"Received: {name!r}")
    return fn


def get(identifier, custom_objects: dict | None = None):
    """The activation for ``identifier``: ``None`` (-> :func:`linear`), a name, or a callable.

    Raises:
        ValueError: for an unknown name or a value that is not callable.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier, custom_objects)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation identifier. Expected a name such as 'relu' or a callable. "
                     f"Received: {identifier!r}")
