"""Activations, softmax, dropout, embeddings and the cross-entropy losses (``descend.nn``).

Each registered op is its NumPy forward followed by its VJP, written with
descend ops so that second derivatives work. Where the forward's output makes
the derivative cheaper, the VJP uses it (``sigmoid' = s * (1 - s)``).
Everything that exponentiates is written to stay finite for large inputs:
softmax subtracts the row maximum, softplus and the sigmoid cross-entropy use
``max(x, 0) + log(1 + exp(-|x|))``. Constants are Python floats, so float32
inputs give float32 results (NumPy 2 treats Python scalars as weak).

The public functions follow ``tf.nn``: the same names, argument names and
defaults.
"""

from __future__ import annotations

import contextlib
import math

import numpy as np

from ..errors import InvalidArgumentError
from ..framework.op import defop
from ..framework.tensor import Tensor, convert_to_tensor
from ..framework.validation import check_axis, check_index_range, check_number
from ..framework.variable import Variable, rows_read
from .array_ops import broadcast_to, concat, expand_dims, gather, one_hot, reshape
from .core_ops import unbroadcast
from .row_reduce import reduce_last
from .math_ops import abs as abs_
from .math_ops import (
    add,
    cast,
    divide,
    erf,
    exp,
    greater,
    identity,
    less,
    logical_and,
    maximum,
    multiply,
    negative,
    reduce_sum,
    sqrt,
    square,
    subtract,
    tanh,
    where,
)
from .random_draw import draw

__all__ = [
    "dropout", "elu", "embedding_lookup", "gelu", "l2_loss", "leaky_relu", "log_softmax", "relu", "relu6",
    "selu", "sigmoid", "sigmoid_cross_entropy_with_logits", "silu", "softmax",
    "softmax_cross_entropy_with_logits", "softplus", "softsign", "sparse_softmax_cross_entropy_with_logits",
    "swish",
]

TensorLike = Tensor | Variable | np.ndarray | float | int | list

_SELU_SCALE = 1.0507009873554804934193349852946
_SELU_ALPHA = 1.6732632423543772848170429916717
_SQRT_HALF = math.sqrt(0.5)                   # 1/sqrt(2)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_GELU_C = math.sqrt(2.0 / math.pi)            # tanh approximation: sqrt(2/pi)
_GELU_K = 0.044715                            # tanh approximation: cubic coefficient


def _require_float(name: str, x: np.ndarray) -> None:
    if x.dtype.kind != "f":
        raise TypeError(f"{name}: expected a floating-point tensor; received dtype {x.dtype.name}")


def _as_tensor(x):
    """``x`` itself when it is a Tensor or Variable (the tape follows it), else a Tensor."""
    return x if isinstance(x, (Tensor, Variable)) else convert_to_tensor(x)


def _like(x, ref):
    """``x`` as a Tensor of ``ref``'s dtype (Python/NumPy values are converted, Tensors kept)."""
    if isinstance(x, (Tensor, Variable)):
        return x
    return convert_to_tensor(np.asarray(x, dtype=ref._value.dtype))


def _class_axis(axis, ndim: int, name: str) -> int:
    """A single class axis as a negative number (valid for every broadcast operand)."""
    a = -1 if axis is None else axis
    if ndim == 0:  # no class axis at all
        raise InvalidArgumentError(f"{name}: axis {a} is out of range for a tensor of rank 0")
    return check_axis(a, ndim, name) - ndim


# ================================================================ activations
@defop("relu")
def _relu(features):
    return np.maximum(features, 0)


@_relu.defvjp
def _(g, ans, x):
    # d relu = g * (x > 0): 0 at the kink and a NaN gradient stays NaN, as TF's ReluGrad
    # (a multiply by the mask is also ~15x faster than np.where on float32)
    return multiply(g, cast(greater(x, 0), g.dtype))


def relu(features: TensorLike, name=None) -> Tensor:
    """Rectified linear unit: ``max(features, 0)``.

    The gradient at 0 is 0, as in TensorFlow.

    Args:
        features: a Tensor (float or integer).

    Returns:
        A Tensor of the same shape and dtype.
    """
    return _relu(features)


@defop("relu6")
def _relu6(features):
    return np.minimum(np.maximum(features, 0), 6)


@_relu6.defvjp
def _(g, ans, x):
    # d relu6 = g * (0 < x < 6), as TF's Relu6Grad
    return multiply(g, cast(logical_and(greater(x, 0), less(x, 6)), g.dtype))


def relu6(features: TensorLike, name=None) -> Tensor:
    """Rectified linear 6: ``min(max(features, 0), 6)``.

    Args:
        features: a Tensor (float or integer).

    Returns:
        A Tensor of the same shape and dtype.
    """
    return _relu6(features)


@defop("leaky_relu")
def _leaky_relu(features, alpha=0.2):
    _require_float("leaky_relu", features)
    return np.where(features > 0, features, features * alpha)


@_leaky_relu.defvjp
def _(g, ans, x, alpha=0.2):
    # d = 1 where x > 0, else alpha
    return where(greater(x, 0), g, multiply(g, alpha))


def leaky_relu(features: TensorLike, alpha: float = 0.2, name=None) -> Tensor:
    """Leaky ReLU: ``features`` where ``features > 0``, else ``alpha * features``.

    Integer features are cast to float32 first, as TF does.

    Args:
        features: a Tensor.
        alpha: the slope for negative inputs.

    Returns:
        A float Tensor of the same shape.
    """
    features = _as_tensor(features)
    if features.dtype.kind != "f":
        features = cast(features, np.float32)  # an op: a trace of descend.function records it
    return _leaky_relu(features, alpha=float(alpha))


@defop("elu")
def _elu(features):
    _require_float("elu", features)
    # exp(x) - 1 for x < 0 (min() keeps exp from overflowing on the unused branch)
    return np.where(features < 0, np.expm1(np.minimum(features, 0)), features)


@_elu.defvjp
def _(g, ans, x):
    # d elu = exp(x) = elu(x) + 1 where x < 0, else 1
    return where(less(ans, 0), multiply(g, add(ans, 1)), g)


def elu(features: TensorLike, name=None) -> Tensor:
    """Exponential linear unit: ``exp(features) - 1`` if ``features < 0``, else ``features``.

    Args:
        features: a float Tensor.

    Returns:
        A Tensor of the same shape and dtype.
    """
    return _elu(features)


@defop("selu")
def _selu(features):
    _require_float("selu", features)
    neg = (_SELU_SCALE * _SELU_ALPHA) * np.expm1(np.minimum(features, 0))
    return np.where(features < 0, neg, _SELU_SCALE * features)


@_selu.defvjp
def _(g, ans, x):
    # d selu = scale * alpha * exp(x) = selu(x) + scale * alpha where x < 0, else scale
    return where(less(ans, 0), multiply(g, add(ans, _SELU_SCALE * _SELU_ALPHA)), multiply(g, _SELU_SCALE))


def selu(features: TensorLike, name=None) -> Tensor:
    """Scaled ELU: ``scale * alpha * (exp(features) - 1)`` if ``features < 0``, else ``scale * features``.

    ``alpha = 1.6732632423543772`` and ``scale = 1.0507009873554805``
    (Klambauer et al., 2017).

    Args:
        features: a float Tensor.

    Returns:
        A Tensor of the same shape and dtype.
    """
    return _selu(features)


_scipy_erfc = None  # resolved on first use: scipy.special.erfc, or False when SciPy is missing


def _erfc_np(x: np.ndarray) -> np.ndarray:
    global _scipy_erfc
    if _scipy_erfc is None:
        try:
            from scipy.special import erfc as _scipy_erfc  # optional: vectorised
        except ImportError:
            _scipy_erfc = False
    if _scipy_erfc:
        return _scipy_erfc(x).astype(x.dtype, copy=False)
    # math.erfc element by element: exact to double precision, but slow (~0.1 us per element)
    return np.vectorize(math.erfc, otypes=[x.dtype])(x) if x.size else x.copy()


@defop("gelu")
def _gelu(features, approximate=False):
    _require_float("gelu", features)
    x = features
    if approximate:
        # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        return 0.5 * x * (1 + np.tanh(_GELU_C * (x + _GELU_K * x * x * x)))
    # 0.5 x erfc(-x / sqrt(2)) = x Phi(x); erfc keeps precision for negative x
    return 0.5 * x * _erfc_np(-_SQRT_HALF * x)


@_gelu.defvjp
def _(g, ans, x, approximate=False):
    if approximate:
        # u = c (x + k x^3), t = tanh(u):  d = 0.5 (1 + t) + 0.5 x (1 - t^2) c (1 + 3 k x^2)
        x2 = square(x)
        t = tanh(multiply(multiply(x, add(multiply(x2, _GELU_K), 1)), _GELU_C))
        du = multiply(add(multiply(x2, 3 * _GELU_K), 1), _GELU_C)
        d = multiply(add(add(multiply(x, multiply(subtract(1, square(t)), du)), t), 1), 0.5)
        return multiply(g, d)
    # d (x Phi(x)) = Phi(x) + x phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2, phi(x) = exp(-x^2/2) / sqrt(2 pi)
    cdf = multiply(add(erf(multiply(x, _SQRT_HALF)), 1), 0.5)
    pdf = multiply(exp(multiply(square(x), -0.5)), _INV_SQRT_2PI)
    return multiply(g, add(cdf, multiply(x, pdf)))


def gelu(features: TensorLike, approximate: bool = False, name=None) -> Tensor:
    """Gaussian error linear unit: ``x * Phi(x)`` with ``Phi`` the standard normal CDF.

    Exact: ``0.5 * x * (1 + erf(x / sqrt(2)))``. With ``approximate=True``:
    ``0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x**3)))``.

    Args:
        features: a float Tensor.
        approximate: use the tanh approximation.

    Returns:
        A Tensor of the same shape and dtype.
    """
    return _gelu(features, approximate=bool(approximate))


@defop("sigmoid")
def _sigmoid(x):
    _require_float("sigmoid", x)
    # e = exp(-|x|) <= 1 never overflows: 1/(1+e) for x >= 0, e/(1+e) for x < 0
    e = np.exp(-np.abs(x))
    r = 1 / (1 + e)
    return np.where(x >= 0, r, e * r)


@_sigmoid.defvjp
def _(g, ans, x):
    # d sigmoid = s (1 - s)
    return multiply(g, multiply(ans, subtract(1, ans)))


def sigmoid(x: TensorLike, name=None) -> Tensor:
    """Logistic sigmoid: ``1 / (1 + exp(-x))``, finite for any input.

    Args:
        x: a float Tensor.

    Returns:
        A Tensor of the same shape and dtype, in [0, 1].
    """
    return _sigmoid(x)


@defop("softplus")
def _softplus(features):
    _require_float("softplus", features)
    # log(1 + e^x) = max(x, 0) + log(1 + e^-|x|)
    return np.maximum(features, 0) + np.log1p(np.exp(-np.abs(features)))


@_softplus.defvjp
def _(g, ans, x):
    # d softplus = sigmoid(x)
    return multiply(g, _sigmoid(x))


def softplus(features: TensorLike, name=None) -> Tensor:
    """Softplus: ``log(exp(features) + 1)``, computed without overflow.

    Args:
        features: a float Tensor.

    Returns:
        A Tensor of the same shape and dtype.
    """
    return _softplus(features)


@defop("softsign")
def _softsign(features):
    _require_float("softsign", features)
    return features / (1 + np.abs(features))


@_softsign.defvjp
def _(g, ans, x):
    # d softsign = 1 / (1 + |x|)^2
    return divide(g, square(add(abs_(x), 1)))


def softsign(features: TensorLike, name=None) -> Tensor:
    """Softsign: ``features / (abs(features) + 1)``.

    Args:
        features: a float Tensor.

    Returns:
        A Tensor of the same shape and dtype.
    """
    return _softsign(features)


def silu(features: TensorLike, beta: float = 1.0) -> Tensor:
    """SiLU / swish: ``features * sigmoid(beta * features)``.

    A composite of ``sigmoid`` and ``multiply``; ``beta`` may be a Tensor, in
    which case it gets a gradient too.

    Args:
        features: a float Tensor.
        beta: the sigmoid's slope.

    Returns:
        A Tensor of the same shape and dtype.
    """
    features = _as_tensor(features)
    if not isinstance(beta, (Tensor, Variable)):
        beta = float(beta)
        if beta == 1.0:
            return multiply(features, _sigmoid(features))
    return multiply(features, _sigmoid(multiply(features, beta)))


swish = silu


# ================================================================ softmax
@defop("softmax")
def _softmax(logits, axis=-1):
    _require_float("softmax", logits)
    if logits.size == 0:  # no row to normalise (TF: an empty result of the input's shape)
        return np.empty_like(logits)
    # exp(x - max) / sum(exp(x - max)): the largest term is exp(0) = 1
    e = np.exp(logits - _reduce_along(np.maximum, logits, axis))
    return e / _reduce_along(np.add, e, axis)


@_softmax.defvjp
def _(g, ans, x, axis=-1):
    # J^T g = s * (g - sum(g * s))
    return multiply(ans, subtract(g, reduce_sum(multiply(g, ans), axis=axis, keepdims=True)))


def softmax(logits: TensorLike, axis: int = -1, name=None) -> Tensor:
    """Softmax along ``axis``: ``exp(logits) / reduce_sum(exp(logits), axis)``.

    The row maximum is subtracted first, so large logits do not overflow.

    Args:
        logits: a float Tensor (an empty one gives an empty result, as TF).
        axis: the class axis (``None`` means -1, as TF).

    Returns:
        A Tensor of the same shape and dtype whose slices along ``axis`` sum to 1.
    """
    logits = _as_tensor(logits)
    return _softmax(logits, axis=_class_axis(axis, logits.ndim, "softmax"))


def _log_softmax_np(x: np.ndarray, axis: int) -> np.ndarray:
    if x.size == 0:  # no row (or no class): nothing to normalise, as TF
        return np.empty_like(x)
    shifted = x - _reduce_along(np.maximum, x, axis)
    return shifted - np.log(_reduce_along(np.add, np.exp(shifted), axis))


def _reduce_along(ufunc, x: np.ndarray, axis) -> np.ndarray:
    """``ufunc.reduce(x, axis, keepdims=True)`` (np.max's and np.sum's arrays), short last-axis rows by the row
    kernels (NumPy's bits: :func:`descend.ops.row_reduce.reduce_last`)."""
    if isinstance(axis, (int, np.integer)) and x.ndim >= 2 and axis % x.ndim == x.ndim - 1:
        return reduce_last(ufunc, x, keepdims=True)
    return ufunc.reduce(x, axis=axis, keepdims=True)


@defop("log_softmax")
def _log_softmax(logits, axis=-1):
    _require_float("log_softmax", logits)
    # (x - max) - log(sum(exp(x - max)))
    return _log_softmax_np(logits, axis)


@_log_softmax.defvjp
def _(g, ans, x, axis=-1):
    # J^T g = g - softmax(x) * sum(g), softmax = exp(log_softmax)
    return subtract(g, multiply(exp(ans), reduce_sum(g, axis=axis, keepdims=True)))


def log_softmax(logits: TensorLike, axis: int = -1, name=None) -> Tensor:
    """Log-softmax along ``axis``: ``logits - log(reduce_sum(exp(logits), axis))``.

    Computed with the log-sum-exp trick, so it is finite for large logits.

    Args:
        logits: a float Tensor (an empty one gives an empty result, as TF).
        axis: the class axis (``None`` means -1, as TF).

    Returns:
        A Tensor of the same shape and dtype.
    """
    logits = _as_tensor(logits)
    return _log_softmax(logits, axis=_class_axis(axis, logits.ndim, "log_softmax"))


# ================================================================ dropout
def dropout(x: TensorLike, rate: float, noise_shape=None, seed=None, name=None) -> Tensor:
    """Inverted dropout: zero each element with probability ``rate``, scale the rest by ``1 / (1 - rate)``.

    ``out = x * keep / (1 - rate)`` with ``keep = uniform(noise_shape) >= rate``;
    the gradient is ``g * keep / (1 - rate)`` (the same mask). The mask is
    drawn from ``numpy.random.default_rng(seed)``, so one seed gives one mask
    (the same for float32 and float64 inputs); ``seed=None`` draws fresh
    entropy. ``rate == 0`` returns ``x`` unchanged, as TF.

    Args:
        x: a float Tensor.
        rate: the probability of dropping an element, in [0, 1).
        noise_shape: the shape of the keep/drop mask, broadcastable to
            ``x.shape`` (a ``None`` entry means ``x``'s dimension); defaults
            to ``x.shape``. E.g. ``[batch, 1, features]`` drops whole
            features for every time step.
        seed: an int seed, or a ``numpy.random.Generator`` to draw from.

    Returns:
        A Tensor of the same shape and dtype as ``x``.

    Raises:
        ValueError: if ``rate`` is not in [0, 1) or ``noise_shape`` does
            not broadcast to ``x.shape``.
        TypeError: if ``x`` is not floating-point.

    Example:
        >>> import descend as ds, numpy as np
        >>> y = ds.nn.dropout(np.ones(4, np.float32), 0.5, seed=0)
        >>> sorted(set(y.numpy().tolist())) in ([0.0, 2.0], [0.0], [2.0])
        True
    """
    x = _as_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"dropout: x must be a floating-point tensor since it is scaled; received dtype {x.dtype.name}")
    r = check_number(rate, "rate", low=0.0, high=1.0, high_open=True, owner="dropout")
    if r == 0.0:
        return x if type(x) is Tensor else identity(x)
    shape = x.shape
    if noise_shape is None:
        ns = shape
    else:
        dims = list(noise_shape._value.tolist() if hasattr(noise_shape, "_value") else noise_shape)
        if len(dims) > len(shape):
            raise ValueError(f"dropout: noise_shape {tuple(dims)} has a higher rank than x (shape {shape})")
        trailing = shape[len(shape) - len(dims):]  # aligned from the right, as broadcasting
        ns = tuple(int(s) if s is not None else d for s, d in zip(dims, trailing))
        if any(n not in (1, d) for n, d in zip(ns, trailing)):
            raise ValueError(f"dropout: noise_shape {ns} is not broadcastable to x's shape {shape}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    dt = x._value.dtype
    # float64 draws (the mask does not depend on x's dtype); keep * scale in x's dtype, as TF: scale =
    # 1 / (1 - rate) rounded to x's dtype. A draw op: descend.function draws a new mask on every call
    mask = draw(fn=lambda: np.where(rng.random(ns) >= r, dt.type(1.0 / (1.0 - r)), dt.type(0)))
    return multiply(x, mask)


# ================================================================ l2_loss
@defop("l2_loss")
def _l2_loss(t):
    _require_float("l2_loss", t)
    return np.sum(t * t) / 2


@_l2_loss.defvjp
def _(g, ans, t):
    # d (sum t^2 / 2) = t
    return multiply(g, t)


def l2_loss(t: TensorLike, name=None) -> Tensor:
    """Half the squared L2 norm, without the square root: ``sum(t ** 2) / 2``.

    Args:
        t: a float Tensor.

    Returns:
        A scalar Tensor of ``t``'s dtype.
    """
    return _l2_loss(t)


# ================================================================ embedding_lookup
def _ids_array(ids) -> np.ndarray:
    arr = ids._value if isinstance(ids, (Tensor, Variable)) else np.asarray(ids)
    if arr.dtype.kind not in "iu":
        raise TypeError(f"embedding_lookup: ids must be integers (int32 or int64). Received dtype {arr.dtype.name}")
    return arr


def _clip_rows(rows, max_norm: float, first_axis: int):
    # TF's clip_by_norm over each embedding: rows * max_norm / max(||row||, max_norm)
    axes = tuple(range(first_axis, rows.ndim))
    l2sum = reduce_sum(square(rows), axis=axes, keepdims=True)
    nonzero = greater(l2sum, 0)
    # sqrt only where the sum is positive: a zero row has norm 0 and a finite gradient
    norm = where(nonzero, sqrt(where(nonzero, l2sum, 1)), l2sum)
    return divide(multiply(rows, max_norm), maximum(norm, max_norm))


def embedding_lookup(params, ids, max_norm: float | None = None, name=None) -> Tensor:
    """Rows ``ids`` of an embedding table: ``params[ids]``, of shape ``ids.shape + params.shape[1:]``.

    Built on :func:`descend.gather`, so the gradient with respect to the table
    (a Variable, say) is an ``IndexedSlices`` holding only the rows read.

    ``params`` may also be a list of shards (Tensors/Variables/arrays with the
    same trailing shape) that split the table into consecutive row ranges, in
    order: TF's ``"div"`` partition strategy. Each shard's gradient is then an
    ``IndexedSlices`` of that shard.

    Args:
        params: the table, shape ``[vocab, ...]``, or a list of shards.
        ids: integer ids of any shape, each in ``[0, vocab)``.
        max_norm: if given, each looked-up embedding whose L2 norm exceeds
            it is scaled down to norm ``max_norm``.

    Returns:
        A Tensor of shape ``ids.shape + params.shape[1:]``.

    Raises:
        InvalidArgumentError: if an id is out of range (the message names it).
        TypeError: if ``ids`` is not integer.

    Example:
        >>> import descend as ds, numpy as np
        >>> table = ds.Variable(np.arange(6.0).reshape(3, 2), name="table")
        >>> with ds.GradientTape() as tape:
        ...     y = ds.reduce_sum(ds.nn.embedding_lookup(table, [[2, 0]]))
        >>> tape.gradient(y, table).indices.numpy()
        array([2, 0])
    """
    if isinstance(params, (list, tuple)) and params and all(
            isinstance(p, (Tensor, Variable, np.ndarray)) for p in params):
        shards = [_as_tensor(p) for p in params]
    else:
        shards = [_as_tensor(params)]
    ids_arr = _ids_array(ids)
    for k, s in enumerate(shards):
        if s.ndim < 1:
            raise InvalidArgumentError(f"embedding_lookup: params must have rank >= 1; shard {k} is a scalar")
        if s.shape[1:] != shards[0].shape[1:] or s.dtype != shards[0].dtype:
            raise InvalidArgumentError(
                f"embedding_lookup: shards must share dtype and trailing shape; shard 0 is "
                f"{shards[0].dtype.name}{list(shards[0].shape)}, shard {k} is {s.dtype.name}{list(s.shape)}"
            )
    sizes = [s.shape[0] for s in shards]
    check_index_range(ids_arr, sum(sizes), "embedding_lookup", name="ids", hint=f"the table has {sum(sizes)} rows")
    with contextlib.ExitStack() as reads:  # rows an optimizer deferred (exact_lazy): only the rows read
        flat, start = ids_arr.reshape(-1), 0
        for s in shards:
            if isinstance(s, Variable) and s._before_read is not None:
                mine = flat[(flat >= start) & (flat < start + s.shape[0])] - start
                reads.enter_context(rows_read(s, mine))
            start += s.shape[0]
        if len(shards) == 1 or ids_arr.size == 0:
            out = gather(shards[0], ids_arr)
        else:
            out = _sharded_lookup(shards, sizes, ids_arr)
    if max_norm is not None:
        max_norm = check_number(max_norm, "max_norm", low=0.0, low_open=True, owner="embedding_lookup")
        out = _clip_rows(out, max_norm, ids_arr.ndim)
    return out


def _sharded_lookup(shards, sizes, ids: np.ndarray):
    flat = ids.reshape(-1)
    offsets = np.cumsum([0] + sizes)
    owner = np.searchsorted(offsets[1:], flat, side="right")  # shard p holds rows [offsets[p], offsets[p+1])
    pieces, order = [], []
    for p, shard in enumerate(shards):
        pos = np.flatnonzero(owner == p)
        if pos.size:
            pieces.append(gather(shard, flat[pos] - offsets[p]))
            order.append(pos)
    rows = pieces[0] if len(pieces) == 1 else concat(pieces, axis=0)
    order = np.concatenate(order)
    if np.any(order != np.arange(order.size)):
        inverse = np.empty_like(order)
        inverse[order] = np.arange(order.size)
        rows = gather(rows, inverse)  # back to the order of ids
    return reshape(rows, shape=ids.shape + tuple(shards[0].shape[1:]))


# ================================================================ cross-entropy losses
@defop("sparse_softmax_cross_entropy_with_logits")
def _sparse_xent(labels, logits):
    name = "sparse_softmax_cross_entropy_with_logits"
    _require_float(name, logits)
    if labels.dtype.kind not in "iu":
        raise TypeError(f"{name}: labels must be integer class indices. Received dtype {labels.dtype.name}")
    if logits.ndim < 1:
        raise InvalidArgumentError(f"{name}: logits must have rank >= 1; received a scalar")
    if labels.shape != logits.shape[:-1]:
        raise InvalidArgumentError(
            f"{name}: labels must have the shape of logits without its last axis: expected {logits.shape[:-1]}, "
            f"received labels of shape {labels.shape} (logits shape {logits.shape})"
        )
    n = logits.shape[-1]
    check_index_range(labels, n, name, name="labels", hint="a label value outside the valid range of class indices")
    # loss = logsumexp(x) - x[label], with the row max subtracted from both
    # (np.maximum.reduce and np.add.reduce are what np.max and np.sum call, without their Python wrappers)
    shifted = logits - np.maximum.reduce(logits, axis=-1, keepdims=True)
    lse = np.log(np.add.reduce(np.exp(shifted), axis=-1))
    if shifted.ndim == 2:  # the label's entry of each row (take_along_axis's values, without its index arrays)
        picked = shifted[np.arange(shifted.shape[0]), labels]
    else:
        picked = np.take_along_axis(shifted, labels[..., None].astype(np.intp), axis=-1)[..., 0]
    return lse - picked


_sparse_xent.defvjp(
    None,
    # d loss / d logits = g * (softmax(logits) - one_hot(labels)), one op (below)
    lambda g, ans, labels, logits: _sparse_xent_grad(g, labels, logits),
)


@defop("sparse_softmax_cross_entropy_with_logits_grad")
def _sparse_xent_grad(g, labels, logits):
    # g[..., None] * (softmax(logits) - one_hot(labels)) in one op: the bits of softmax, one_hot,
    # subtract and multiply run one by one (s - 0 is s; s - 1 at the label), without their five
    # dispatches on the backward pass of every classifier
    e = np.exp(logits - np.maximum.reduce(logits, axis=-1, keepdims=True))
    d = e / np.add.reduce(e, axis=-1, keepdims=True)
    if d.ndim == 2:
        rows = np.arange(d.shape[0])
        d[rows, labels] = d[rows, labels] - np.ones((), d.dtype)
    else:
        at = labels[..., None].astype(np.intp)
        np.put_along_axis(d, at, np.take_along_axis(d, at, axis=-1) - np.ones((), d.dtype), axis=-1)
    return np.multiply(g[..., None], d)


def _sparse_xent_grad_g(gg, ans, g, labels, logits):
    # d/dg: sum over classes of gg * (softmax - one_hot)
    diff = subtract(_softmax(logits, axis=-1), one_hot(labels, depth=logits.shape[-1], dtype=logits.dtype))
    return reduce_sum(multiply(gg, diff), axis=-1)


def _sparse_xent_grad_logits(gg, ans, g, labels, logits):
    # d/dlogits: softmax's VJP of v = gg * g[..., None] (one_hot is constant): s * (v - sum(v * s))
    s = _softmax(logits, axis=-1)
    v = multiply(gg, expand_dims(g, axis=-1))
    return multiply(s, subtract(v, reduce_sum(multiply(v, s), axis=-1, keepdims=True)))


_sparse_xent_grad.defvjp(_sparse_xent_grad_g, None, _sparse_xent_grad_logits)


def sparse_softmax_cross_entropy_with_logits(labels, logits: TensorLike, name=None) -> Tensor:
    """Softmax cross-entropy with integer labels: ``logsumexp(logits) - logits[label]`` per row.

    Equivalent to ``-log(softmax(logits)[..., labels])``, computed with the
    log-sum-exp trick (finite for logits of any size). Labels get no gradient;
    the gradient with respect to ``logits`` is ``softmax(logits) - one_hot(labels)``.

    Args:
        labels: integer class indices of shape ``logits.shape[:-1]``, each in
            ``[0, num_classes)``.
        logits: float Tensor of shape ``[..., num_classes]``.

    Returns:
        The loss per example, shape ``labels.shape``, of ``logits``' dtype.

    Raises:
        InvalidArgumentError: if a label is out of range or the shapes disagree.
    """
    return _sparse_xent(labels, logits)


@defop("softmax_cross_entropy_with_logits", same_dtype=(0, 1))
def _softmax_xent(labels, logits, axis=-1):
    name = "softmax_cross_entropy_with_logits"
    _require_float(name, logits)
    try:
        np.broadcast_shapes(labels.shape, logits.shape)
    except ValueError:
        raise InvalidArgumentError(
            f"{name}: labels and logits must have broadcast-compatible shapes; received labels {labels.shape} "
            f"and logits {logits.shape}"
        ) from None
    if -axis > min(labels.ndim, logits.ndim):
        raise InvalidArgumentError(
            f"{name}: class axis {axis} is missing from labels {labels.shape} or logits {logits.shape}"
        )
    # loss = -sum(labels * log_softmax(logits))
    return -np.sum(labels * _log_softmax_np(logits, axis), axis=axis)


def _softmax_xent_full(labels, logits):
    shape = tuple(np.broadcast_shapes(labels.shape, logits.shape))
    return labels if labels.shape == shape else broadcast_to(labels, shape=shape)


_softmax_xent.defvjp(
    # d loss / d labels = -log_softmax(logits)
    lambda g, ans, labels, logits, axis=-1: unbroadcast(
        negative(multiply(expand_dims(g, axis=axis), _log_softmax(logits, axis=axis))), labels),
    # d loss / d logits = softmax(logits) * sum(labels) - labels   (softmax - labels when labels sum to 1)
    lambda g, ans, labels, logits, axis=-1: unbroadcast(
        multiply(expand_dims(g, axis=axis), subtract(
            multiply(_softmax(logits, axis=axis),
                     reduce_sum(_softmax_xent_full(labels, logits), axis=axis, keepdims=True)),
            labels)),
        logits),
)


def softmax_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike, axis: int = -1, name=None) -> Tensor:
    """Softmax cross-entropy with probability labels: ``-sum(labels * log_softmax(logits), axis)``.

    Finite for logits of any size (log-sum-exp). Both arguments get gradients:
    ``-log_softmax(logits)`` for ``labels`` and ``softmax(logits) * sum(labels) - labels``
    for ``logits`` (``softmax - labels`` when each label row sums to 1, as TF
    assumes). ``labels`` and ``logits`` broadcast against each other.

    Args:
        labels: a distribution over classes along ``axis`` per example.
        logits: float Tensor of unnormalised log-probabilities.
        axis: the class axis (``None`` means -1).

    Returns:
        The loss per example: the broadcast shape without ``axis``.
    """
    logits = _as_tensor(logits)
    labels = _like(labels, logits)
    ndim = max(logits.ndim, labels.ndim)
    return _softmax_xent(labels, logits, axis=_class_axis(axis, ndim, "softmax_cross_entropy_with_logits"))


@defop("sigmoid_cross_entropy_with_logits", same_dtype=(0, 1))
def _sigmoid_xent(labels, logits):
    name = "sigmoid_cross_entropy_with_logits"
    _require_float(name, logits)
    if labels.shape != logits.shape:
        raise InvalidArgumentError(
            f"{name}: logits and labels must have the same shape; received labels {labels.shape} and "
            f"logits {logits.shape}"
        )
    # z = labels, x = logits: max(x, 0) - x z + log(1 + exp(-|x|))
    return np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))


_sigmoid_xent.defvjp(
    # d loss / d labels = -x
    lambda g, ans, labels, logits: negative(multiply(g, logits)),
    # d loss / d logits = sigmoid(x) - z
    lambda g, ans, labels, logits: multiply(g, subtract(_sigmoid(logits), labels)),
)


def sigmoid_cross_entropy_with_logits(labels: TensorLike, logits: TensorLike, name=None) -> Tensor:
    """Elementwise logistic loss: ``-z log(sigmoid(x)) - (1 - z) log(1 - sigmoid(x))``.

    With ``x = logits`` and ``z = labels`` it is computed as
    ``max(x, 0) - x * z + log(1 + exp(-|x|))``, finite for any ``x``.
    Gradients: ``sigmoid(x) - z`` for logits and ``-x`` for labels.

    Args:
        labels: targets in [0, 1], the same shape as ``logits``.
        logits: float Tensor.

    Returns:
        The elementwise loss, shape and dtype of ``logits``.

    Raises:
        InvalidArgumentError: if the shapes differ.
    """
    logits = _as_tensor(logits)
    return _sigmoid_xent(_like(labels, logits), logits)
