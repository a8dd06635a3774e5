"""Core layers: Dense, Activation, Flatten, Dropout, Embedding (Keras 3 arguments and defaults)."""

from __future__ import annotations

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..framework.tensor import Tensor
from ..framework.image_format import resolve_data_format
from ..ops import array_ops, math_ops, nn_ops
from ._seeded import GeneratorState, layer_rng
from .base import Layer, _serialize_activation

__all__ = ["Dense", "Activation", "Flatten", "Dropout", "Embedding"]


def _positive_int(value, what: str, layer: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value <= 0:
        raise ValueError(f"Invalid value for argument `{what}` of {layer}: `{what}` must be a positive integer. "
                         f"Received: {what}={value!r}")
    return int(value)


def _incompatible(layer, expected: str, x) -> ValueError:
    return ValueError(f"Input 0 of layer '{layer.name}' is incompatible with the layer: expected {expected}, "
                      f"found ndim={len(x.shape)}. Full shape received: {tuple(x.shape)}")


class Dense(Layer):
    """A densely connected layer: ``activation(inputs @ kernel + bias)``.

    Inputs of rank > 2 are multiplied on their last axis: ``(batch, ..., d)``
    gives ``(batch, ..., units)``. The kernel has shape ``(d, units)``.

    Args:
        units: the output size (a positive int).
        activation: a name (``"relu"``) or callable; None is linear.
        use_bias: add a bias vector (default True).
        kernel_initializer: default ``"glorot_uniform"``.
        bias_initializer: default ``"zeros"``.
        kernel_regularizer, bias_regularizer: penalties added to ``losses``.
        activity_regularizer: a penalty on the outputs (divided by the batch size).
        kernel_constraint, bias_constraint: projections the optimizer applies after each update.
        **kwargs: the :class:`Layer` arguments (``name``, ``dtype``, ``trainable``).

    Example:
        >>> import descend as ds
        >>> from descend.layers import Dense
        >>> ds.clear_session()
        >>> layer = Dense(3, activation="relu")
        >>> layer(ds.ones((2, 4))).shape
        TensorShape([2, 3])
        >>> [w.path for w in layer.weights]
        ['dense/kernel', 'dense/bias']
    """

    supports_masking = True

    def __init__(self, units, activation=None, use_bias: bool = True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None, activity_regularizer=None,
                 kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = _positive_int(units, "units", "Dense")
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.kernel = None
        self.bias = None

    def build(self, input_shape):
        input_shape = tuple(input_shape)
        if len(input_shape) < 2:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected min_ndim=2, "
                             f"found ndim={len(input_shape)}. Full shape received: {input_shape}")
        if input_shape[-1] is None:
            raise ValueError(f"Layer '{self.name}' needs a known last input dimension. Received: {input_shape}")
        self.kernel = self.add_weight(shape=(int(input_shape[-1]), self.units), initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer, constraint=self.kernel_constraint,
                                      name="kernel")
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.units,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, constraint=self.bias_constraint,
                                        name="bias")

    def call(self, inputs):
        x = self._float_input(inputs)
        d = self.kernel.shape[0]
        if x.ndim < 2:
            raise _incompatible(self, "min_ndim=2", x)
        if x.shape[-1] != d:
            raise ValueError(f"Input 0 of layer '{self.name}' is incompatible with the layer: expected axis -1 of "
                             f"input shape to have value {d}, but received input with shape {tuple(x.shape)}")
        if x.ndim == 2:
            y = math_ops.matmul(x, self.kernel)
        else:  # (batch, ..., d) -> (N, d) @ (d, units) -> (batch, ..., units)
            y = math_ops.matmul(array_ops.reshape(x, shape=(-1, d)), self.kernel)
            y = array_ops.reshape(y, shape=tuple(x.shape[:-1]) + (self.units,))
        if self.bias is not None:
            y = math_ops.add(y, self.bias)
        return y if self.activation is None else self.activation(y)  # None: linear, as Keras

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)[:-1] + (self.units,)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "units": self.units,
            "activation": _serialize_activation(self.activation),
            "use_bias": self.use_bias,
            "kernel_initializer": initializers.serialize(self.kernel_initializer),
            "bias_initializer": initializers.serialize(self.bias_initializer),
            "kernel_regularizer": regularizers.serialize(self.kernel_regularizer),
            "bias_regularizer": regularizers.serialize(self.bias_regularizer),
            "kernel_constraint": constraints.serialize(self.kernel_constraint),
            "bias_constraint": constraints.serialize(self.bias_constraint),
        }


class Activation(Layer):
    """Applies an activation function: ``activation(inputs)``.

    Args:
        activation: a name (``"relu"``, ``"softmax"``...) or a callable.

    Example:
        >>> import descend as ds
        >>> from descend.layers import Activation
        >>> Activation("relu")(ds.constant([-1.0, 2.0])).numpy()
        array([0., 2.], dtype=float32)
    """

    supports_masking = True

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self._build_at_init()

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "activation": _serialize_activation(self.activation)}


def _data_format(value) -> str:
    """``value`` checked, or ``keras.config.image_data_format()`` for None (resolved when a layer is made, as
    Keras: its config then shows the resolved value)."""
    return resolve_data_format(value)



class Flatten(Layer):
    """Flattens every axis but the batch axis: ``(batch, d1, d2...)`` -> ``(batch, d1 * d2 * ...)``.

    A rank-1 input ``(batch,)`` becomes ``(batch, 1)``. With
    ``data_format="channels_first"`` the channel axis is moved last first, so
    the element order matches a channels-last model.

    Args:
        data_format: ``"channels_last"`` (default) or ``"channels_first"``.

    Example:
        >>> import descend as ds
        >>> from descend.layers import Flatten
        >>> Flatten()(ds.ones((2, 3, 4))).shape
        TensorShape([2, 12])
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _data_format(data_format)

    def call(self, inputs):
        x = inputs
        if x.ndim == 0:
            raise ValueError(f"Layer '{self.name}' needs inputs with a batch axis. Received a scalar")
        if self.data_format == "channels_first" and x.ndim > 2:
            x = array_ops.transpose(x, perm=(0, *range(2, x.ndim), 1))
        return array_ops.reshape(x, shape=(x.shape[0], int(np.prod(x.shape[1:], dtype=np.int64))))

    def compute_output_shape(self, input_shape):
        rest = tuple(input_shape)[1:]
        return (tuple(input_shape)[0], int(np.prod(rest)) if all(d is not None for d in rest) else None)

    def get_config(self) -> dict:
        return {**super().get_config(), "data_format": self.data_format}


class Dropout(GeneratorState, Layer):
    """Inverted dropout during training, the identity otherwise.

    With ``training=True`` each element is zeroed with probability ``rate``
    and the others are scaled by ``1 / (1 - rate)``. The layer owns a
    ``numpy.random.Generator`` seeded with ``seed`` that advances on every
    call: two calls draw different masks, and a new layer with the same seed
    draws the same sequence of masks. ``seed=None`` seeds it from NumPy's
    global random state.

    Args:
        rate: the drop probability, in [0, 1].
        noise_shape: the mask's shape, broadcast to the input's (``None``
            entries take the input's size), e.g. ``(batch, 1, features)``.
        seed: an int seed.

    Example:
        >>> import descend as ds
        >>> from descend.layers import Dropout
        >>> layer = Dropout(0.5, seed=0)
        >>> x = ds.ones((2, 4))
        >>> bool((layer(x).numpy() == 1).all())  # inference: identity
        True
        >>> sorted(set(layer(x, training=True).numpy().ravel().tolist()))
        [0.0, 2.0]
    """

    supports_masking = True

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(rate, bool) or not isinstance(rate, (int, float, np.number)) or not 0 <= rate <= 1:
            raise ValueError("Invalid value received for argument `rate`. Expected a float value between 0 and 1. "
                             f"Received: rate={rate!r}")
        self.seed, self._rng = layer_rng(seed, type(self).__name__)
        self.rate = float(rate)
        self.noise_shape = _noise_shape(noise_shape)
        self._build_at_init()

    def call(self, inputs, training=False):
        if not training or self.rate == 0:
            return inputs
        if self.rate == 1:
            return math_ops.multiply(inputs, 0.0)
        return nn_ops.dropout(inputs, self.rate, noise_shape=self.noise_shape, seed=self._rng)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)

    def get_config(self) -> dict:
        return {**super().get_config(), "rate": self.rate, "seed": self.seed,
                "noise_shape": None if self.noise_shape is None else list(self.noise_shape)}


def _noise_shape(noise_shape):
    """Dropout's ``noise_shape`` as a tuple of positive ints and Nones (Keras' checks and wording)."""
    if noise_shape is None:
        return None
    head = "Invalid value received for argument `noise_shape`."
    if isinstance(noise_shape, str):
        raise ValueError(f"{head} Expected a tuple or list of integers. Received: noise_shape={noise_shape}")
    try:
        dims = tuple(noise_shape)
    except TypeError:
        raise ValueError(f"{head} Expected an iterable of integers (e.g., a tuple or list). "
                         f"Received: noise_shape={noise_shape}") from None
    for i, dim in enumerate(dims):
        if dim is None:
            continue
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise ValueError(f"{head} Expected all elements to be integers or None. Received element at index {i}: "
                             f"{dim} (type: {type(dim).__name__})")
        if dim <= 0:
            raise ValueError(f"{head} Expected all dimensions to be positive integers or None. Received negative or "
                             f"zero value at index {i}: {dim}")
    return tuple(None if d is None else int(d) for d in dims)


class Embedding(Layer):
    """Maps integer ids to rows of a trainable table: ``embeddings[inputs]``.

    ``(batch, ...)`` ids give ``(batch, ..., output_dim)`` vectors. The lookup
    is :func:`descend.nn.embedding_lookup`, so the gradient with respect to
    the table is an ``IndexedSlices`` holding only the rows read, and
    optimizers update only those rows (the sparse path). Floating inputs are
    cast to int32.

    Args:
        input_dim: the vocabulary size (ids are in ``[0, input_dim)``).
        output_dim: the embedding size.
        embeddings_initializer: default ``"uniform"`` (``RandomUniform(-0.05, 0.05)``).
        embeddings_regularizer: a penalty on the table added to ``losses``.
        embeddings_constraint: a projection applied after each update.
        mask_zero: whether id 0 is padding; ``compute_mask`` then returns
            ``inputs != 0`` (``input_dim`` should count the padding id).

    Example:
        >>> import descend as ds
        >>> from descend.layers import Embedding
        >>> ds.clear_session()
        >>> layer = Embedding(10, 3)
        >>> with ds.GradientTape() as tape:
        ...     y = ds.reduce_sum(layer(ds.constant([[1, 2], [2, 5]])))
        >>> g = tape.gradient(y, layer.embeddings)
        >>> type(g).__name__, g.indices.numpy().tolist()
        ('IndexedSlices', [1, 2, 2, 5])
    """

    _autocast = False  # ids stay integers

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 embeddings_constraint=None, mask_zero: bool = False, activity_regularizer=None, **kwargs):
        kwargs.pop("input_length", None)  # Keras 2 argument, no longer needed
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.input_dim = _positive_int(input_dim, "input_dim", "Embedding")
        self.output_dim = _positive_int(output_dim, "output_dim", "Embedding")
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.embeddings = None

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint, name="embeddings")

    def call(self, inputs):
        ids = inputs
        if ids.dtype.kind not in "iu":
            ids = Tensor(np.asarray(ids).astype(np.int32))
        return nn_ops.embedding_lookup(self.embeddings, ids)

    @property
    def supports_masking(self) -> bool:
        return self.mask_zero

    def compute_mask(self, inputs, mask=None):
        """``inputs != 0`` when ``mask_zero``, else None."""
        if not self.mask_zero:
            return None
        return math_ops.not_equal(inputs, 0)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self) -> dict:
        return {
            **super().get_config(),
            "input_dim": self.input_dim,
            "output_dim": self.output_dim,
            "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": regularizers.serialize(self.embeddings_regularizer),
            "embeddings_constraint": constraints.serialize(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
        }
