"""``descend.TensorSpec``: the shape and dtype a ``function(input_signature=...)`` argument has."""

from __future__ import annotations

from . import backend
from .framework.tensor import ArrayLike
from .composites.type_spec import IndexedSlicesSpec, NoneTensorSpec, RaggedTensorSpec, SparseTensorSpec, TypeSpec

__all__ = ["TensorSpec", "type_spec_from_value"]


class TensorSpec(TypeSpec):
    """A description of a Tensor: ``shape`` (``None`` for an unknown dimension, or an unknown
    rank) and ``dtype``, as ``tf.TensorSpec``.

    Args:
        shape: a tuple/list of ints and Nones, or None (any rank).
        dtype: default float32.
        name: an optional name.

    Example:
        >>> import descend as ds
        >>> spec = ds.TensorSpec(shape=(None, 3), dtype=ds.float32)
        >>> spec.is_compatible_with(ds.ones((5, 3))), spec.is_compatible_with(ds.ones((5, 4)))
        (True, False)
        >>> ds.TensorSpec.from_tensor(ds.ones((2,), dtype="int32"))
        TensorSpec(shape=(2,), dtype=int32, name=None)
    """

    def __init__(self, shape, dtype="float32", name=None):
        if shape is not None:
            try:
                shape = tuple(None if d is None else int(d) for d in shape)
            except (TypeError, ValueError):
                raise TypeError(f"TensorSpec: `shape` must be None or a sequence of ints and Nones. "
                                f"Received: shape={shape!r}") from None
        self._shape = shape
        self._dtype = backend.as_dtype(dtype)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"TensorSpec: `name` must be None or a string. Received: name={name!r}")
        self._name = name

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @classmethod
    def from_tensor(cls, tensor, name=None) -> TensorSpec:
        return cls(tuple(tensor.shape), tensor.dtype, name)

    def is_compatible_with(self, spec_or_value) -> bool:
        """Whether a Tensor, array or TensorSpec has this dtype and a shape this spec allows."""
        if isinstance(spec_or_value, TensorSpec):
            shape, dtype = spec_or_value.shape, spec_or_value.dtype
        elif isinstance(spec_or_value, ArrayLike) or hasattr(spec_or_value, "dtype"):
            shape, dtype = tuple(spec_or_value.shape), backend.as_dtype(spec_or_value.dtype)
        else:
            return False
        if dtype != self._dtype:
            return False
        if self._shape is None or shape is None:
            return True
        return len(shape) == len(self._shape) and all(a is None or b is None or a == b
                                                      for a, b in zip(self._shape, shape))

    def _parts(self) -> tuple:  # TypeSpec's view: (shape, dtype, name), the constructor's arguments
        from .framework.tensor_shape import TensorShape

        return (TensorShape(self._shape), self._dtype, self._name)

    def __eq__(self, other):
        return (isinstance(other, TensorSpec) and self._shape == other._shape and self._dtype == other._dtype
                and self._name == other._name)

    def __hash__(self):
        return hash((self._shape, self._dtype.name, self._name))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype.name}, name={self._name!r})"


def type_spec_from_value(value) -> TypeSpec:
    """The spec describing ``value`` (``tf.type_spec_from_value``): a :class:`TensorSpec` for a tensor, array or
    Python number/string/list, a ``SparseTensorSpec``/``IndexedSlicesSpec``/``RaggedTensorSpec`` for those
    values, ``NoneTensorSpec`` for None, the value itself for a spec."""
    from .framework.tensor import convert_to_tensor

    if isinstance(value, TypeSpec):
        return value
    if value is None:
        return NoneTensorSpec()
    for kind in (SparseTensorSpec, IndexedSlicesSpec, RaggedTensorSpec):
        spec = kind._spec_of(value)
        if spec is not None:
            return spec
    try:
        t = convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"type_spec_from_value: could not build a TypeSpec for {value!r} of type "
                        f"{type(value).__name__}") from None
    return TensorSpec(tuple(t.shape), t.dtype)
