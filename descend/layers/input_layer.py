"""``Input`` and ``InputLayer``: the entry points of a functional model."""

from __future__ import annotations

from .. import backend
from .base import Layer
from .keras_tensor import KerasTensor, Node, _add_node

__all__ = ["Input", "InputLayer"]


class InputLayer(Layer):
    """The layer behind :func:`Input`: it holds the input's shape and dtype and passes data through.

    Args:
        shape: the shape of one example (without the batch axis).
        batch_size: a fixed batch size (default unknown).
        dtype: default :func:`descend.floatx`.
        batch_shape: the full shape, batch axis first (instead of ``shape``/``batch_size``).
        name: default ``input_layer`` made unique.
    """

    def __init__(self, shape=None, batch_size=None, dtype=None, batch_shape=None, name=None, sparse=False,
                 input_shape=None, ragged=False, optional=False, **kwargs):
        kwargs.pop("trainable", None)
        if sparse:
            raise ValueError("`sparse=True` is not supported: descend has no sparse input tensors (pass sparse=False, "
                             "the default)")
        if ragged:
            raise ValueError("descend has no ragged input tensors: pass ragged=False (the default)")
        if optional:
            raise ValueError("descend has no optional inputs: pass optional=False (the default)")
        if isinstance(dtype, dict):  # a dtype-policy config
            from .base import dtype_from_config

            dtype = dtype_from_config(dtype)
        if shape is None and input_shape is not None:
            shape = input_shape
        if batch_shape is not None and shape is not None:
            raise ValueError(f"You cannot pass both `shape` and `batch_shape` at the same time. Received: shape={shape}, "
                             f"batch_shape={batch_shape}")
        if batch_shape is not None and batch_size is not None:
            raise ValueError(f"You cannot pass both `batch_size` and `batch_shape` at the same time. Received: "
                             f"batch_size={batch_size}, batch_shape={batch_shape}")
        if batch_shape is None:
            if shape is None:
                raise ValueError("You must pass a `shape` argument (the shape without the batch axis), or a "
                                 "`batch_shape`.")
            if isinstance(shape, int):
                shape = (shape,)
            batch_shape = (batch_size, *tuple(shape))
        try:
            batch_shape = tuple(None if d is None else int(d) for d in batch_shape)
        except (TypeError, ValueError):
            raise TypeError(f"Input: the shape must be a tuple of ints and Nones. Received: {batch_shape!r}") from None
        if any(d is not None and d < 0 for d in batch_shape):
            raise ValueError(f"Input: dimensions must be non-negative. Received: {batch_shape}")
        super().__init__(name=name, dtype=dtype, **kwargs)
        self._batch_shape = batch_shape
        self._input_shape_arg = batch_shape[1:]  # what Sequential.build reads
        self._input_dtype = backend.floatx() if dtype is None else backend.np_dtype(dtype)
        self.built = True
        tensor = KerasTensor(batch_shape, self._input_dtype, name=self.name, history=(self, 0, 0))
        _add_node(self, Node(self, (), {}, tensor))  # ``self.output`` is this tensor (Layer.output)

    @property
    def batch_shape(self) -> tuple:
        return self._batch_shape

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return self._batch_shape

    def get_config(self) -> dict:
        return {"batch_shape": list(self._batch_shape), "dtype": backend.dtype_of(self._input_dtype).name, "sparse": False,
                "ragged": False, "name": self.name, "optional": False}


def Input(shape=None, batch_size=None, dtype=None, name=None, batch_shape=None, sparse=False):  # noqa: N802
    """A symbolic input of a functional model (``keras.Input``).

    Args:
        shape: the shape of one example, e.g. ``(32,)`` or ``(None,)`` for
            sequences of any length.
        batch_size: a fixed batch size (default unknown).
        dtype: the input's dtype (default float32; ``"int32"`` for ids).
        name: the input's name, used to match dict inputs and in ``summary()``.
        batch_shape: the full shape including the batch axis.

    Returns:
        A :class:`~descend.layers.keras_tensor.KerasTensor`.

    Example:
        >>> import descend as ds
        >>> ds.clear_session()
        >>> inputs = ds.keras.Input(shape=(4,))
        >>> outputs = ds.layers.Dense(2)(inputs)
        >>> model = ds.keras.Model(inputs, outputs)
        >>> model(ds.ones((3, 4))).shape
        TensorShape([3, 2])
    """
    layer = InputLayer(shape=shape, batch_size=batch_size, dtype=dtype, batch_shape=batch_shape, name=name,
                       sparse=sparse)
    return layer.output
