"""Normalization layers: LayerNormalization and BatchNormalization (Keras 3 arguments and defaults)."""

from __future__ import annotations

import numpy as np

from .. import constraints, initializers, regularizers
from ..framework.tensor import convert_to_tensor
from ..ops import array_ops, math_ops
from .base import Layer

__all__ = ["LayerNormalization", "BatchNormalization", "moments"]

_EPSILON = 1e-7  # Keras' backend epsilon, in the masked moments' denominators


def moments(x, axes, keepdims: bool = False):
    """Mean and (biased) variance of ``x`` over ``axes``, as ``tf.nn.moments``.

    ``variance = mean((x - mean)^2)``, the two-pass form (no cancellation).
    """
    mean = math_ops.reduce_mean(x, axis=axes, keepdims=True)
    variance = math_ops.reduce_mean(math_ops.squared_difference(x, mean), axis=axes, keepdims=True)
    if not keepdims:
        mean = array_ops.squeeze(mean, axis=axes)
        variance = array_ops.squeeze(variance, axis=axes)
    return mean, variance


def _axes(axis, ndim: int, layer) -> tuple:
    axes = axis if isinstance(axis, (list, tuple)) else [axis]
    out = []
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"Layer '{layer.name}': axis must be an int or a list of ints. Received: axis={axis!r}")
        if not -ndim <= a < ndim:
            raise ValueError(f"Layer '{layer.name}': axis {a} is out of range for inputs of rank {ndim}. "
                             f"Received: axis={axis!r}")
        out.append(int(a) % ndim)
    if len(set(out)) != len(out):
        raise ValueError(f"Layer '{layer.name}': duplicate axes in axis={axis!r}")
    return tuple(sorted(out))


def _check_epsilon(epsilon):
    if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float, np.number)) or not epsilon > 0:
        raise ValueError(f"epsilon must be a positive float. Received: epsilon={epsilon!r}")
    return float(epsilon)


def _masked_moments(x, mask, axes):
    """Mean and variance over ``axes`` of the entries a Keras mask keeps (the mask covers every axis but the
    last), as Keras 3's BatchNormalization: ``sum(w x) / (sum(w) + eps)`` and ``sum(w (x - mean)^2) / (sum(w) +
    eps)``, so batch statistics ignore padding."""
    w = math_ops.cast(convert_to_tensor(np.asarray(mask)), dtype=x.dtype.dtype)
    while w.ndim < x.ndim:
        w = array_ops.expand_dims(w, -1)
    w = array_ops.broadcast_to(w, shape=tuple(x.shape))
    total = math_ops.add(math_ops.reduce_sum(w, axis=axes, keepdims=True), _EPSILON)
    mean = math_ops.divide(math_ops.reduce_sum(math_ops.multiply(w, x), axis=axes, keepdims=True), total)
    spread = math_ops.multiply(w, math_ops.square(math_ops.subtract(math_ops.multiply(w, x), mean)))
    return mean, math_ops.divide(math_ops.reduce_sum(spread, axis=axes, keepdims=True), total)


class LayerNormalization(Layer):
    """Normalizes each example over ``axis``: ``(x - mean) / sqrt(var + epsilon) * gamma + beta``.

    Mean and (biased) variance are taken over ``axis`` (the last by default)
    for each example separately; ``gamma`` and ``beta`` have the shape of the
    normalized axes. Training and inference compute the same thing.

    Args:
        axis: an int or list of ints (default -1).
        epsilon: added to the variance (default 1e-3).
        center: learn an offset ``beta`` (default True).
        scale: learn a scale ``gamma`` (default True).
        beta_initializer, gamma_initializer: defaults ``"zeros"`` and ``"ones"``.
        beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: as for Dense.

    Example:
        >>> import descend as ds
        >>> from descend.layers import LayerNormalization
        >>> y = LayerNormalization(epsilon=0.0)(ds.constant([[1.0, 3.0]]))
        >>> y.numpy()
        array([[-1.,  1.]], dtype=float32)
    """

    supports_masking = True  # the mask passes through (BatchNormalization also leaves masked entries out of its
    # batch statistics), as Keras 3

    def __init__(self, axis=-1, epsilon=1e-3, center: bool = True, scale: bool = True, beta_initializer="zeros",
                 gamma_initializer="ones", beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, (list, tuple)):
            axis = list(axis)
        elif isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError("Expected an int or a list/tuple of ints for the argument 'axis', but received: "
                            f"{axis!r}")
        self.axis = axis
        self.epsilon = float(epsilon) if epsilon == 0 else _check_epsilon(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.gamma = None
        self.beta = None
        self._norm_axes = None
        self._built_param_shape = None

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        axes = _axes(self.axis, len(input_shape), self)
        param_shape = tuple(int(input_shape[a]) for a in axes)
        self._norm_axes = axes
        self._built_param_shape = param_shape
        if self.scale:
            self.gamma = self.add_weight(shape=param_shape, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                         name="gamma")
        if self.center:
            self.beta = self.add_weight(shape=param_shape, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                        name="beta")

    @staticmethod
    def _broadcast(param, axes, ndim):
        shape = [1] * ndim
        for a, n in zip(axes, param.shape):
            shape[a] = n
        return array_ops.reshape(param, shape=tuple(shape))

    def call(self, inputs):
        x = self._float_input(inputs)
        # the axes are taken for this input's rank (a negative axis counts from the end, so a layer built for
        # (batch, t, features) normalizes (batch, h, w, features) as Keras' does); their sizes must be the built ones
        axes = _axes(self.axis, x.ndim, self)
        if tuple(x.shape[a] for a in axes) != self._built_param_shape:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: it was built for "
                             f"normalized axes {self._norm_axes} of sizes {self._built_param_shape}; received input "
                             f"of shape {tuple(x.shape)}")
        mean, variance = moments(x, axes, keepdims=True)
        # y = (x - mean) * rsqrt(var + eps) * gamma + beta
        inv = math_ops.rsqrt(math_ops.add(variance, self.epsilon))
        if self.gamma is not None:
            inv = math_ops.multiply(inv, self._broadcast(self.gamma, axes, x.ndim))
        y = math_ops.multiply(math_ops.subtract(x, mean), inv)
        if self.beta is not None:
            y = math_ops.add(y, self._broadcast(self.beta, axes, x.ndim))
        return y

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "axis": self.axis,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint),
        }


class BatchNormalization(Layer):
    """Normalizes with batch statistics in training and moving statistics in inference.

    For the feature axis ``axis`` (the last by default):

    * ``training=True`` (and the layer trainable): ``mean``, ``var`` are the
      batch mean and biased variance over every other axis;
      ``y = (x - mean) / sqrt(var + epsilon) * gamma + beta``, and then
      ``moving_mean <- moving_mean * momentum + mean * (1 - momentum)`` (the
      same for ``moving_variance``, with the biased batch variance, as Keras 3);
    * otherwise: the same formula with ``moving_mean`` and ``moving_variance``.

    ``moving_mean`` and ``moving_variance`` are non-trainable weights. The
    update is an ``assign`` made after the output is computed, from the batch
    statistics' values; the moving statistics are never inputs of the
    training-mode computation, so a tape recording it is not invalidated by
    the update (and inference reads a snapshot of them).

    Args:
        axis: the feature axis (default -1; 1 for channels-first images).
        momentum: of the moving averages (default 0.99).
        epsilon: added to the variance (default 1e-3).
        center: learn ``beta`` (default True).
        scale: learn ``gamma`` (default True).
        beta_initializer, gamma_initializer: defaults ``"zeros"``, ``"ones"``.
        moving_mean_initializer, moving_variance_initializer: defaults
            ``"zeros"``, ``"ones"``.
        beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint: as for Dense.

    Example:
        >>> import descend as ds, numpy as np
        >>> from descend.layers import BatchNormalization
        >>> bn = BatchNormalization(momentum=0.5)
        >>> x = ds.constant([[1.0], [3.0]])
        >>> bn(x, training=True).numpy().round(3)
        array([[-1.],
               [ 1.]], dtype=float32)
        >>> bn.moving_mean.numpy(), bn.moving_variance.numpy()
        (array([1.], dtype=float32), array([1.], dtype=float32))
    """

    _float32_weights = True  # under a mixed policy its weights are read in float32 (it computes in float32)
    supports_masking = True  # the mask passes through (BatchNormalization also leaves masked entries out of its
    # batch statistics), as Keras 3

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center: bool = True, scale: bool = True,
                 beta_initializer="zeros", gamma_initializer="ones", moving_mean_initializer="zeros",
                 moving_variance_initializer="ones", beta_regularizer=None, gamma_regularizer=None,
                 beta_constraint=None, gamma_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axis, bool) or not isinstance(axis, (int, np.integer)):
            raise TypeError(f"BatchNormalization axis must be an int. Received: axis={axis!r}")
        if isinstance(momentum, bool) or not isinstance(momentum, (int, float, np.number)) or not 0 <= momentum <= 1:
            raise ValueError(f"momentum must be in [0, 1]. Received: momentum={momentum!r}")
        self.axis = int(axis)
        self.momentum = float(momentum)
        self.epsilon = _check_epsilon(epsilon)
        self.center = bool(center)
        self.scale = bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.gamma = None
        self.beta = None
        self.moving_mean = None
        self.moving_variance = None

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        (axis,) = _axes(self.axis, len(input_shape), self)
        n = input_shape[axis]
        if n is None:
            raise ValueError(f"Layer '{self.name}' needs a known size for axis {self.axis}. Received: {input_shape}")
        shape = (int(n),)
        if self.scale:
            self.gamma = self.add_weight(shape=shape, initializer=self.gamma_initializer,
                                         regularizer=self.gamma_regularizer, constraint=self.gamma_constraint,
                                         name="gamma")
        if self.center:
            self.beta = self.add_weight(shape=shape, initializer=self.beta_initializer,
                                        regularizer=self.beta_regularizer, constraint=self.beta_constraint,
                                        name="beta")
        self.moving_mean = self.add_weight(shape=shape, initializer=self.moving_mean_initializer, trainable=False,
                                           name="moving_mean")
        self.moving_variance = self.add_weight(shape=shape, initializer=self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")

    def call(self, inputs, training=None, mask=None):
        x = self._float_input(inputs)
        half = x.dtype.dtype == np.float16
        if half:  # float16 batch statistics overflow: computed in float32, the output cast back (Keras 3)
            x = math_ops.cast(x, dtype="float32")
        (axis,) = _axes(self.axis, x.ndim, self)
        n = self.moving_mean.shape[0]
        if x.shape[axis] != n:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected axis "
                             f"{self.axis} of input shape to have value {n}, but received input with shape "
                             f"{tuple(x.shape)}")
        reduce_axes = tuple(a for a in range(x.ndim) if a != axis)
        bshape = tuple(n if a == axis else 1 for a in range(x.ndim))
        if training and self.trainable:
            if mask is None:
                mean, variance = moments(x, reduce_axes, keepdims=True)
            else:
                mean, variance = _masked_moments(x, mask, reduce_axes)
        else:
            # snapshots: later updates of the moving statistics do not invalidate a recording tape
            mean = array_ops.reshape(self.moving_mean.read_value(), shape=bshape)
            variance = array_ops.reshape(self.moving_variance.read_value(), shape=bshape)
        # y = (x - mean) * rsqrt(var + eps) * gamma + beta
        inv = math_ops.rsqrt(math_ops.add(variance, self.epsilon))
        if self.gamma is not None:
            inv = math_ops.multiply(inv, array_ops.reshape(self.gamma, shape=bshape))
        y = math_ops.multiply(math_ops.subtract(x, mean), inv)
        if self.beta is not None:
            y = math_ops.add(y, array_ops.reshape(self.beta, shape=bshape))
        if training and self.trainable:
            self._update_moving(self.moving_mean, array_ops.reshape(math_ops.stop_gradient(mean), shape=(n,)))
            self._update_moving(self.moving_variance,
                                array_ops.reshape(math_ops.stop_gradient(variance), shape=(n,)))
        return math_ops.cast(y, dtype="float16") if half else y

    def _update_moving(self, var, batch_value) -> None:
        # moving <- moving * momentum + batch * (1 - momentum), in the variable's dtype, with ops (a compiled
        # step records them: no read of a computed value, which would make the step run eagerly)
        dt = var.dtype.dtype
        m = dt.type(self.momentum)
        batch = math_ops.cast(batch_value, dtype=dt)
        var.assign(math_ops.add(math_ops.multiply(var.read_value(), m), math_ops.multiply(batch, dt.type(1) - m)))

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "axis": self.axis,
            "momentum": self.momentum,
            "epsilon": self.epsilon,
            "center": self.center,
            "scale": self.scale,
            "beta_initializer": initializers.serialize(self.beta_initializer),
            "gamma_initializer": initializers.serialize(self.gamma_initializer),
            "moving_mean_initializer": initializers.serialize(self.moving_mean_initializer),
            "moving_variance_initializer": initializers.serialize(self.moving_variance_initializer),
            "beta_regularizer": regularizers.serialize(self.beta_regularizer),
            "gamma_regularizer": regularizers.serialize(self.gamma_regularizer),
            "beta_constraint": constraints.serialize(self.beta_constraint),
            "gamma_constraint": constraints.serialize(self.gamma_constraint),
        }
