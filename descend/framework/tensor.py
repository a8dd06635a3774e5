"""``Tensor``: an immutable wrapper around one array, and value conversion.

A Tensor never changes after it is made. Its operators (``+``, ``@``, ``[]``
...) are installed by :mod:`descend.ops` at import time, the same way
TensorFlow's ``math_ops`` overloads its ``Tensor``: the framework layer does
not import the ops layer.
"""

from __future__ import annotations

import weakref

import numpy as np

from .. import backend
from ..backend import xp
from . import trace as _trace
from .tensor_shape import TensorShape, known_shape

_tracing = _trace.active  # the recorders of descend.function traces; shared list object

__all__ = ["ArrayLike", "Reference", "Tensor", "constant", "convert_to_tensor"]


class Reference:
    """A hashable handle to a Tensor or Variable (``x.ref()``), like TF's."""

    __slots__ = ("_obj",)

    def __init__(self, obj):
        self._obj = obj

    def deref(self):
        return self._obj

    def __hash__(self):
        return id(self._obj)

    def __eq__(self, other):
        return isinstance(other, Reference) and other._obj is self._obj

    def __repr__(self):
        return f"<Reference to {self._obj!r}>"


class ArrayLike:
    """What Tensor and Variable share: array facts and the Python number/sequence protocol.

    Subclasses hold their array in ``_value``.
    """

    __slots__ = ()

    @property
    def shape(self) -> TensorShape:
        """The static shape as a :class:`TensorShape` (prints as TF's: ``TensorShape([2, 3])``); it compares
        equal to the tuple or list of its dimensions, indexes and unpacks as one."""
        return known_shape(self._value.shape)

    @property
    def dtype(self) -> backend.DType:
        return backend.dtype_of(self._value.dtype)

    @property
    def ndim(self) -> int:
        return self._value.ndim

    @property
    def device(self) -> str:
        """Where the value lives, as TF names it: always the host's CPU (``tf.device`` places nothing)."""
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    def get_shape(self) -> TensorShape:
        """The shape (TF's older spelling of :attr:`shape`)."""
        return known_shape(self._value.shape)

    @property
    def size(self) -> int:
        return self._value.size

    def __array__(self, dtype=None, copy=None):
        if _tracing:
            _trace.host_read(self, "numpy")
        v = self._value
        if dtype is not None and v.dtype != dtype:
            return v.astype(dtype)
        if copy:
            return v.copy()
        view = v.view()  # no copy, but read-only: the value must not change behind descend's back
        view.flags.writeable = False
        return view

    def ref(self) -> Reference:
        return Reference(self)

    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError(f"len() of a scalar {type(self).__name__}")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError(f"Cannot iterate over a scalar {type(self).__name__}")
        for i in range(self._value.shape[0]):
            yield self[i]

    def __bool__(self):
        if _tracing:
            _trace.host_read(self, "bool")
        return bool(self._value)

    def __float__(self):
        if _tracing:
            _trace.host_read(self, "float")
        return float(self._value)

    def __format__(self, format_spec: str) -> str:
        """Format a scalar like the NumPy scalar it holds (``f"{loss:.4f}"``), as TF's EagerTensor.

        An empty spec gives the value as NumPy formats it for a Tensor (``f"{loss}"`` is ``0.5``, as TF) and
        ``str(self)`` for a Variable; a non-empty spec needs a scalar.
        """
        if not format_spec:
            if _tracing or not isinstance(self, Tensor):  # a traced value has no number to show yet
                return str(self)
            return format(self._value, "")
        if _tracing:
            _trace.host_read(self, "format")
        v = self._value
        if v.ndim != 0:
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__: a format spec "
                            f"({format_spec!r}) needs a scalar; received shape {tuple(v.shape)}")
        return format(v[()], format_spec)

    def __int__(self):
        if _tracing:
            _trace.host_read(self, "int")
        return int(self._value)

    __hash__ = None  # == is elementwise, as in TensorFlow 2: use .ref() as a key


class Tensor(ArrayLike):
    """An immutable n-dimensional array that the gradient tape can follow.

    Make one with :func:`descend.constant` or :func:`descend.convert_to_tensor`;
    ops return them.

    Example:
        >>> import descend as ds
        >>> x = ds.constant([1.0, 2.0])
        >>> (x * 3.0 + 1.0).numpy()
        array([4., 7.], dtype=float32)
    """

    __slots__ = ("_value", "__weakref__")
    __array_priority__ = 100  # numpy defers to our reflected operators

    def __init__(self, value):
        self._value = value

    def numpy(self) -> np.ndarray:
        """A copy of the value as a NumPy array (a string scalar as its ``bytes``, as TF)."""
        if _tracing:
            _trace.host_read(self, "numpy")
        v = self._value
        if v.ndim == 0 and v.dtype.kind == "O":
            return v.item()
        return np.array(v, copy=True)

    # -- Python protocol -----------------------------------------------------
    def __index__(self):
        if not backend.is_integer(self._value.dtype):
            raise TypeError(f"Only integer Tensors can be used as an index. Received dtype {self.dtype}")
        if _tracing:
            _trace.host_read(self, "index")
        return int(self._value)

    def __repr__(self):
        symbolic = self._symbolic_text()
        if symbolic is not None:
            return symbolic
        return f"<descend.Tensor: shape={self.shape}, dtype={self.dtype.name}, numpy={numpy_text(self._value, True)}>"

    def __str__(self):
        symbolic = self._symbolic_text()
        if symbolic is not None:
            return symbolic
        return f"descend.Tensor({numpy_text(self._value, False)}, shape={self.shape}, dtype={self.dtype.name})"

    @property
    def _keras_mask(self):
        """Keras' mask attribute: the mask the layer that made this Tensor attached to it
        (``Embedding(mask_zero=True)``: ``ids != 0``); AttributeError where it has none, as TensorFlow's."""
        mask = get_keras_mask(self)
        if mask is None:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '_keras_mask'")
        return mask

    @_keras_mask.setter
    def _keras_mask(self, mask):
        set_keras_mask(self, mask)

    def _symbolic_text(self):
        """A Tensor of a function being traced prints as TF's graph tensor: its shape as the function's code sees
        it and its dtype, no value (printing neither reads its value nor ties the trace to its shape)."""
        if not _tracing:
            return None
        shape = _trace.traced_shape(self)
        if shape is None:
            return None
        dims = ", ".join("None" if d is None else str(d) for d in shape)
        return f"descend.Tensor(traced, shape=({dims}{',' if len(shape) == 1 else ''}), dtype={self.dtype.name})"


def numpy_text(value: np.ndarray, is_repr: bool) -> str:
    """The value part of a Tensor's or Variable's ``repr``/``str``, as TF writes it: a scalar's ``repr`` is its
    Python number's (``1.0``, not ``array(1., dtype=float32)``), an array's is NumPy's; a value printed on
    several lines starts on a line of its own."""
    if is_repr:
        text = repr(value.item()) if value.ndim == 0 else repr(value)
    else:
        text = str(value)
    return "\n" + text if "\n" in text else text


def string_array(value) -> np.ndarray:
    """An object array of ``bytes`` (a ``descend.string`` value) from str/bytes elements, as TF keeps them:
    ``str`` is UTF-8 encoded; anything else is a TypeError."""
    arr = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, s in enumerate(arr.reshape(-1).tolist()):
        if isinstance(s, str):
            s = s.encode("utf-8")
        elif not isinstance(s, bytes):
            raise TypeError(f"Cannot convert {value!r} to a string Tensor: expected str or bytes elements; "
                            f"received {type(s).__name__} {s!r}")
        flat[i] = s
    return out


def _python_to_array(value, dtype):
    """Convert a Python scalar or nested list, TensorFlow style (str/bytes give a string tensor)."""
    if dtype is not None:
        if dtype.kind == "O":
            return string_array(value)
        arr = xp.asarray(value)
        if arr.dtype.kind == "f" and backend.is_integer(dtype) and not np.all(np.equal(np.mod(arr, 1), 0)):
            raise TypeError(f"Cannot convert {value!r} to a Tensor of dtype {np.dtype(dtype).name}: it has a fractional part")
        if arr.dtype.kind in "OUS":
            raise TypeError(f"Cannot convert {value!r} to a Tensor of dtype {np.dtype(dtype).name}")
        return arr.astype(dtype, copy=False)
    arr = xp.asarray(value)
    k = arr.dtype.kind
    if k == "f":
        # Python floats (float64 to NumPy) become floatx; a list of NumPy float16/float32 scalars keeps their
        # dtype, as TF's conversion does
        return arr.astype(backend.floatx(), copy=False) if arr.dtype == np.float64 else arr
    if k in "iu":
        # TF's rule: int32, or int64 for values int32 cannot hold (a silent wrap would change them)
        if arr.size == 0 or (arr.min() >= -(2 ** 31) and arr.max() < 2 ** 31):
            return arr.astype(backend.int32, copy=False)
        if k == "u":  # NumPy's uint64: above int64's range
            raise ValueError(f"Cannot convert {value!r} to a Tensor: an integer exceeds int64's range")
        return arr.astype(np.int64, copy=False)
    if k == "U" or k == "S":
        return string_array(value)  # the Python value: NumPy would have made a mixed list's numbers text
    if k == "O":
        try:
            return string_array(value)
        except TypeError:
            pass
        raise TypeError(f"Cannot convert {value!r} to a numeric Tensor (inferred dtype {arr.dtype})")
    return arr


def to_array(value, dtype=None) -> np.ndarray:
    """The array behind ``value`` (no copy for Tensors), converted to ``dtype``.

    Tensors and Variables must already have ``dtype``; NumPy values are cast
    to it; Python values are converted TensorFlow style (floats to floatx,
    ints to int32, or int64 where a value does not fit int32).
    """
    v = getattr(value, "_value", None)
    if v is not None and isinstance(value, ArrayLike):  # a Tensor or a Variable
        if dtype is not None and v.dtype != dtype:
            raise TypeError(
                f"Tensor conversion requested dtype {np.dtype(dtype).name} for a value of dtype {v.dtype.name}"
            )
        return v
    if isinstance(value, (np.ndarray, np.generic)):
        arr = xp.asarray(value)
        k = arr.dtype.kind
        if k in "US" or (k == "O" and dtype is None) or getattr(dtype, "kind", None) == "O":
            return _numpy_strings(arr, dtype)
        return arr if dtype is None else arr.astype(dtype, copy=False)
    if hasattr(value, "_to_dense"):  # IndexedSlices
        t = value._to_dense()
        return to_array(t, dtype)
    return _python_to_array(value, None if dtype is None else np.dtype(dtype))


def constant(value, dtype=None, shape=None, name=None) -> Tensor:
    """A Tensor holding a copy of ``value``.

    Args:
        value: a Python scalar, nested list, NumPy array or Tensor.
        dtype: the result's dtype; Python floats default to float32 and ints
            to int32 (int64 where a value does not fit int32, as TF), NumPy arrays keep theirs.
        shape: optional shape to broadcast a scalar to (or reshape to).
        name: TF's op name; accepted and unused, as by TF's eager tensors.
    """
    arr = np.array(to_array(value, None if dtype is None else backend.np_dtype(dtype)), copy=True)
    if dtype is not None:
        arr = arr.astype(backend.np_dtype(dtype), copy=False)
    if shape is not None:
        shape = tuple(int(s) for s in shape)
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == int(np.prod(shape)):
            arr = arr.reshape(shape)
        else:
            raise ValueError(f"constant: cannot make shape {shape} from a value of shape {arr.shape}")
    return Tensor(arr)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None) -> Tensor:
    """Return ``value`` as a Tensor (itself when it already is one).

    ``name`` is accepted and unused (TF's eager tensors have none). ``dtype_hint``
    is the dtype to try when ``dtype`` is not given and ``value`` has none of its
    own (a Python number or list); a value it cannot hold keeps its own dtype.

    A Variable gives a snapshot of its current value; an ``IndexedSlices``
    gives its dense equivalent.
    """
    if dtype is not None:
        dtype = backend.np_dtype(dtype)
    if type(value) is Tensor:
        if dtype is not None and value.dtype != dtype:
            raise TypeError(
                f"Tensor conversion requested dtype {dtype.name} for a Tensor of dtype {value.dtype.name}"
            )
        return value
    if isinstance(value, ArrayLike) and not isinstance(value, Tensor):  # a Variable: a recorded snapshot
        return value.read_value() if dtype is None or dtype == value.dtype else _dtype_error(value, dtype)
    if hasattr(value, "_to_dense"):
        t = value._to_dense()
        return convert_to_tensor(t, dtype)
    if isinstance(value, (np.ndarray, np.generic)):
        k = value.dtype.kind
        if k in "US" or (k == "O" and dtype is None) or (dtype is not None and dtype.kind == "O"):  # strings
            return Tensor(_numpy_strings(np.asarray(value), dtype))
        return Tensor(np.array(value, dtype=dtype, copy=True))
    if dtype is None and dtype_hint is not None:
        try:
            return Tensor(_python_to_array(value, backend.np_dtype(dtype_hint)))
        except (TypeError, ValueError, OverflowError):  # the hint cannot hold it: the value's own dtype
            pass
    return Tensor(_python_to_array(value, dtype))


def _numpy_strings(arr: np.ndarray, dtype) -> np.ndarray:
    """A NumPy array of str/bytes (``U``, ``S`` or object) as a string value; a numeric ``dtype`` for it, or
    ``string`` for a numeric array, is a TypeError, as TF (no parsing: use ``strings.to_number``)."""
    want_string = dtype is None or np.dtype(dtype).kind == "O"
    if not want_string or arr.dtype.kind not in "USO":
        raise TypeError(f"Cannot convert a NumPy array of dtype {arr.dtype} to a Tensor of dtype "
                        f"{'string' if want_string else np.dtype(dtype).name}")
    return string_array(arr)


def _dtype_error(value, dtype):
    raise TypeError(f"Tensor conversion requested dtype {dtype.name} for a Variable of dtype {value.dtype.name}")


# Keras masks: the mask a layer computes for an output Tensor (Embedding(mask_zero=True)), found again when that
# Tensor is passed to the next layer (Keras' ``_keras_mask`` attribute; a Tensor has no attribute dict).
# id(tensor) -> (weakref to the tensor, mask)
_keras_masks: dict = {}


def _forget_mask(key):
    return lambda _ref: _keras_masks.pop(key, None)


def set_keras_mask(tensor, mask) -> None:
    """Attach the Keras mask ``mask`` to ``tensor`` (Keras 3's ``backend.set_keras_mask``): layers and losses
    that read masks find it; None removes it."""
    if mask is None:
        _keras_masks.pop(id(tensor), None)
        return
    if isinstance(tensor, Tensor):
        key = id(tensor)
        _keras_masks[key] = (weakref.ref(tensor, _forget_mask(key)), mask)


def get_keras_mask(tensor):
    """The Keras mask attached to ``tensor`` by the layer that produced it (None when it has none)."""
    entry = _keras_masks.get(id(tensor))
    if entry is not None and entry[0]() is tensor:
        return entry[1]
    return None


def has_keras_masks() -> bool:
    """Whether any live Tensor has a Keras mask (a layer call looks for its input's mask only then)."""
    return bool(_keras_masks)
