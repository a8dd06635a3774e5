"""``InputSpec``: what a layer accepts (rank, dtype, sizes of given axes), as ``keras.InputSpec``.

A layer that sets ``self.input_spec`` (one spec, or a list with one per input) has every call checked
against it before ``build``/``call`` run; a mismatch is a ``ValueError`` naming the layer, the input,
what was expected and the shape received.

Example:
    >>> import descend as ds
    >>> class Pairs(ds.layers.Layer):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.input_spec = ds.keras.InputSpec(ndim=2, axes={-1: 2})
    ...     def call(self, x):
    ...         return x
    >>> Pairs()(ds.ones((3, 2))).shape
    TensorShape([3, 2])
"""

from __future__ import annotations

from .. import backend

__all__ = ["InputSpec", "assert_input_compatibility"]


class InputSpec:
    """The rank, dtype and axis sizes a layer input must have (None: anything).

    Args:
        dtype: the expected dtype.
        shape: the expected shape (None entries: any size); sets ``ndim``.
        ndim, max_ndim, min_ndim: the expected rank, or its bounds.
        axes: ``{axis: size}`` for the axes whose size is fixed.
        allow_last_axis_squeeze: accept an input whose last axis of size 1 is missing, or an extra one.
        name: the input's name (for a dict of inputs).
        optional: the input may be None.
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None, axes=None,
                 allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = None if dtype is None else backend.as_dtype(dtype).name
        self.shape = None if shape is None else tuple(None if s is None else int(s) for s in shape)
        self.ndim = len(self.shape) if self.shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.name = name
        self.optional = bool(optional)
        self.allow_last_axis_squeeze = bool(allow_last_axis_squeeze)
        self.axes = {int(k): int(v) for k, v in (axes or {}).items()}
        if self.axes and self.ndim is not None:
            too_far = [a for a in self.axes if a >= self.ndim or a < -self.ndim]
            if too_far:
                raise ValueError(f"Axis {too_far[0]} is greater than the maximum allowed value: {self.ndim - 1}")

    def __repr__(self):
        parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape), ("ndim", self.ndim),
                                         ("max_ndim", self.max_ndim), ("min_ndim", self.min_ndim),
                                         ("axes", self.axes or None)) if v is not None]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self) -> dict:
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim, "max_ndim": self.max_ndim,
                "min_ndim": self.min_ndim, "axes": self.axes}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


def _check(spec: InputSpec, shape: tuple, dtype, layer_name: str, index: int) -> None:
    where = f"Input {index} of layer '{layer_name}' is incompatible with the layer"
    rank = len(shape)
    if spec.ndim is not None and not spec.allow_last_axis_squeeze and rank != spec.ndim:
        raise ValueError(f"{where}: expected ndim={spec.ndim}, found ndim={rank}. Full shape received: {shape}")
    if spec.ndim is not None and spec.allow_last_axis_squeeze:
        a = shape[:-1] if shape and shape[-1] == 1 else shape
        if len(a) not in (spec.ndim, spec.ndim - 1) and rank != spec.ndim:
            raise ValueError(f"{where}: expected ndim={spec.ndim}, found ndim={rank}. Full shape received: {shape}")
    if spec.max_ndim is not None and rank > spec.max_ndim:
        raise ValueError(f"{where}: expected max_ndim={spec.max_ndim}, found ndim={rank}. Full shape received: "
                         f"{shape}")
    if spec.min_ndim is not None and rank < spec.min_ndim:
        raise ValueError(f"{where}: expected min_ndim={spec.min_ndim}, found ndim={rank}. Full shape received: "
                         f"{shape}")
    if spec.dtype is not None and dtype is not None and backend.as_dtype(dtype).name != spec.dtype:
        raise ValueError(f"{where}: expected dtype={spec.dtype}, found dtype={backend.as_dtype(dtype).name}")
    for axis, size in spec.axes.items():
        if -rank <= axis < rank and shape[axis] is not None and shape[axis] != size:
            raise ValueError(f"{where}: expected axis {axis} of input shape to have value {size}, but received "
                             f"input with shape {shape}")
    if spec.shape is not None and rank == len(spec.shape):
        for want, got in zip(spec.shape, shape):
            if want is not None and got is not None and want != got:
                raise ValueError(f"{where}: expected shape={spec.shape}, found shape={shape}")


def assert_input_compatibility(input_spec, inputs, layer_name: str) -> None:
    """Raise ``ValueError`` if ``inputs`` (a tensor or a list of them) does not match ``input_spec`` (one spec,
    or one per input)."""
    if input_spec is None:
        return
    specs = list(input_spec) if isinstance(input_spec, (list, tuple)) else [input_spec]
    values = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
    if len(specs) != len(values):
        raise ValueError(f"Layer '{layer_name}' expects {len(specs)} input(s), but it received {len(values)} input "
                         "tensors.")
    for i, (spec, x) in enumerate(zip(specs, values)):
        if spec is None:
            continue
        if x is None:
            if spec.optional:
                continue
            raise ValueError(f"Input {i} of layer '{layer_name}' is None, and its InputSpec is not optional")
        shape = tuple(getattr(x, "shape", ()))
        _check(spec, shape, getattr(x, "dtype", None), layer_name, i)
