"""Keras 3's initializers: the Initializer classes, their functional aliases and look-up (public as ``descend.initializers``)."""

from __future__ import annotations

import math

import random as _py_random

import numpy as np

from .. import backend
from .. import random as tf_random
from ..persistence.object_config import deserialize_object, serialize_object
from ..persistence.registry import public_names, register_builtins
from ..framework.tensor import Tensor

__all__ = [
    "Initializer", "Zeros", "Ones", "Constant", "Identity", "RandomNormal", "RandomUniform", "TruncatedNormal",
    "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeUniform", "HeNormal", "LecunUniform", "LecunNormal",
    "Orthogonal", "compute_fans", "get", "serialize", "deserialize",
    # Keras 3's other names for the same classes
    "IdentityInitializer", "OrthogonalInitializer", "zeros", "ones", "constant", "identity", "random_normal",
    "random_uniform", "truncated_normal", "variance_scaling", "glorot_uniform", "glorot_normal", "he_uniform",
    "he_normal", "lecun_uniform", "lecun_normal", "orthogonal",
]


# ---------------------------------------------------------------- helpers
def _check_shape(shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    try:
        out = tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise ValueError(f"shape must be a tuple of non-negative integers. Received: shape={shape!r}") from None
    if any(s < 0 for s in out) or any(isinstance(s, bool) for s in shape):
        raise ValueError(f"shape must be a tuple of non-negative integers. Received: shape={shape!r}")
    return out


def _float_dtype(dtype, who: str) -> np.dtype:
    d = backend.floatx() if dtype is None else backend.np_dtype(dtype)
    if d.kind != "f":
        raise ValueError(f"{who} initializes floating-point weights only. Expected a float dtype, "
                         f"received dtype={d.name}")
    return d


def _check_seed(seed):
    if seed is None or isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return int(seed)
    raise ValueError(f"seed must be None, a non-negative int or a numpy.random.Generator. Received: seed={seed!r}")


def draw_seed() -> int:
    """The seed an unseeded random initializer draws with: the next one of the global seed's sequence
    (:func:`descend.random.set_seed` restarts it), else a draw of Python's ``random`` in [1, 1e9], as Keras 3's
    ``make_default_seed`` (``keras.utils.set_random_seed`` reproduces it; NumPy's global state is left alone)."""
    global_seed, op_seed = tf_random.get_seed(None)
    if global_seed is None:
        return _py_random.randint(1, int(1e9))
    return int(np.random.SeedSequence([global_seed % 2**63, op_seed]).generate_state(1)[0])


def _generator(seed) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.default_rng(draw_seed() if seed is None else seed)


def _truncated_standard_normal(rng: np.random.Generator, shape: tuple) -> np.ndarray:
    """Standard normal draws with every value beyond 2 standard deviations redrawn (as TF)."""
    z = rng.standard_normal(shape)
    bad = np.abs(z) > 2.0
    while bad.any():
        z[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(z) > 2.0
    return z


def compute_fans(shape) -> tuple[int, int]:
    """``(fan_in, fan_out)`` of a weight shape (Keras rules).

    Scalars give (1, 1), vectors (n, n), matrices (rows, cols); higher ranks
    are convolution kernels ``(*receptive_field, in, out)`` whose fans are
    multiplied by the receptive field size.
    """
    shape = tuple(shape)
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return int(shape[0]), int(shape[0])
    if len(shape) == 2:
        return int(shape[0]), int(shape[1])
    receptive = int(np.prod(shape[:-2]))
    return int(shape[-2]) * receptive, int(shape[-1]) * receptive


# ---------------------------------------------------------------- base
class Initializer:
    """Base class: ``__call__(shape, dtype=None)`` returns a Tensor of that shape.

    Subclasses implement ``__call__`` and, if they take arguments, ``get_config``
    (a dict of the constructor's arguments, so ``cls(**config)`` rebuilds them).

    Example:
        >>> import descend as ds, numpy as np
        >>> class Halves(ds.initializers.Initializer):
        ...     def __call__(self, shape, dtype=None):
        ...         return ds.constant(np.full(shape, 0.5), dtype=dtype or ds.floatx())
        >>> Halves()((2,)).numpy()
        array([0.5, 0.5], dtype=float32)
    """

    def __call__(self, shape, dtype=None) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} must implement __call__(shape, dtype=None)")

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)

    def clone(self):
        return self.__class__.from_config(self.get_config())

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_config().items())
        return f"{type(self).__name__}({args})"


class Zeros(Initializer):
    """All zeros (any dtype).

    Example:
        >>> import descend as ds
        >>> ds.initializers.Zeros()((2,)).numpy()
        array([0., 0.], dtype=float32)
    """

    def __call__(self, shape, dtype=None) -> Tensor:
        d = backend.floatx() if dtype is None else backend.np_dtype(dtype)
        return Tensor(np.zeros(_check_shape(shape), d))


class Ones(Initializer):
    """All ones (any dtype).

    Example:
        >>> import descend as ds
        >>> ds.initializers.Ones()((2,), "float64").numpy()
        array([1., 1.])
    """

    def __call__(self, shape, dtype=None) -> Tensor:
        d = backend.floatx() if dtype is None else backend.np_dtype(dtype)
        return Tensor(np.ones(_check_shape(shape), d))


class Constant(Initializer):
    """Every element set to ``value`` (a scalar, or an array that broadcasts to the shape).

    Args:
        value: the fill value (default 0.0).

    Example:
        >>> import descend as ds
        >>> ds.initializers.Constant(3.0)((2,)).numpy()
        array([3., 3.], dtype=float32)
    """

    def __init__(self, value=0.0):
        if isinstance(value, (list, tuple)) or hasattr(value, "shape"):
            arr = np.asarray(value)
            if arr.dtype.kind not in "biuf":
                raise ValueError(f"Constant value must be numeric. Received: value={value!r}")
        elif not isinstance(value, (int, float, np.number)):
            raise ValueError(f"Constant value must be a number or an array. Received: value={value!r}")
        self.value = value

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = _check_shape(shape)
        d = backend.floatx() if dtype is None else backend.np_dtype(dtype)
        arr = np.asarray(self.value.numpy() if hasattr(self.value, "numpy") else self.value)
        try:
            return Tensor(np.array(np.broadcast_to(arr, shape), dtype=d))
        except ValueError:
            raise ValueError(f"Constant value of shape {arr.shape} does not broadcast to shape {shape}") from None

    def get_config(self) -> dict:
        v = self.value
        if hasattr(v, "numpy"):
            v = v.numpy()
        if isinstance(v, np.ndarray):
            v = v.tolist()
        elif isinstance(v, np.generic):
            v = v.item()
        return {"value": v}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only; rectangular allowed).

    Example:
        >>> import descend as ds
        >>> ds.initializers.Identity(2.0)((2, 2)).numpy()
        array([[2., 0.],
               [0., 2.]], dtype=float32)
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = _check_shape(shape)
        if len(shape) != 2:
            raise ValueError(f"Identity initializer needs a 2-D shape. Received: shape={shape} of rank {len(shape)}")
        d = _float_dtype(dtype, "Identity")
        return Tensor((self.gain * np.eye(*shape)).astype(d))

    def get_config(self) -> dict:
        return {"gain": self.gain}


class RandomInitializer(Initializer):
    """Base of the random initializers: holds and validates ``seed``."""

    def __init__(self, seed=None):
        self.seed = _check_seed(seed)

    def _rng(self) -> np.random.Generator:
        return _generator(self.seed)

    def get_config(self) -> dict:
        # a Generator cannot be serialized: the config says "unseeded"
        return {"seed": self.seed if not isinstance(self.seed, np.random.Generator) else None}


class _MeanStddev(RandomInitializer):
    """``mean + stddev * z`` for standard draws ``z`` (``_standard(rng, shape)``): RandomNormal, TruncatedNormal."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        if not stddev >= 0:
            raise ValueError(f"stddev must be >= 0. Received: stddev={stddev!r}")
        self.mean = mean
        self.stddev = stddev
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = _check_shape(shape)
        d = _float_dtype(dtype, type(self).__name__)
        return Tensor((self.mean + self.stddev * self._standard(self._rng(), shape)).astype(d))

    def get_config(self) -> dict:
        return {**super().get_config(), "mean": self.mean, "stddev": self.stddev}


class RandomNormal(_MeanStddev):
    """Normal draws: ``mean + stddev * N(0, 1)``.

    Args:
        mean: the mean (default 0.0).
        stddev: the standard deviation (default 0.05).
        seed: see the module docs.

    Example:
        >>> import descend as ds
        >>> ds.initializers.RandomNormal(stddev=1.0, seed=0)((3,)).shape
        TensorShape([3])
    """

    @staticmethod
    def _standard(rng, shape):
        return rng.standard_normal(shape)


class TruncatedNormal(_MeanStddev):
    """Normal draws with values beyond two standard deviations redrawn.

    ``mean + stddev * z``, ``z ~ N(0, 1)`` restricted to ``[-2, 2]``; the
    result's standard deviation is about ``0.88 * stddev``.

    Args:
        mean: the mean (default 0.0).
        stddev: the standard deviation before truncation (default 0.05).
        seed: see the module docs.

    Example:
        >>> import descend as ds
        >>> v = ds.initializers.TruncatedNormal(stddev=1.0, seed=0)((1000,)).numpy()
        >>> bool(abs(v).max() <= 2.0)
        True
    """

    @staticmethod
    def _standard(rng, shape):
        return _truncated_standard_normal(rng, shape)


class RandomUniform(RandomInitializer):
    """Uniform draws in ``[minval, maxval)``.

    Args:
        minval: lower bound (default -0.05).
        maxval: upper bound (default 0.05).
        seed: see the module docs.

    Example:
        >>> import descend as ds
        >>> v = ds.initializers.RandomUniform(0.0, 1.0, seed=0)((100,)).numpy()
        >>> bool((v >= 0).all() and (v < 1).all())
        True
    """

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        if not maxval >= minval:
            raise ValueError(f"maxval must be >= minval. Received: minval={minval!r}, maxval={maxval!r}")
        self.minval = minval
        self.maxval = maxval
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = _check_shape(shape)
        d = _float_dtype(dtype, "RandomUniform")
        return Tensor(self._rng().uniform(self.minval, self.maxval, size=shape).astype(d))

    def get_config(self) -> dict:
        return {**super().get_config(), "minval": self.minval, "maxval": self.maxval}


_MODES = ("fan_in", "fan_out", "fan_avg")
_DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform")
# standard deviation of N(0, 1) truncated to [-2, 2]: dividing by it restores the requested stddev
_TRUNCATED_STDDEV = 0.87962566103423978


class VarianceScaling(RandomInitializer):
    """Draws scaled to the weight's fans.

    With ``n`` = fan_in, fan_out or their average (``mode``) and
    ``s = scale / max(1, n)``:

    * ``"truncated_normal"``: truncated normal with stddev ``sqrt(s) / 0.8796...``
      (so the truncated values have stddev ``sqrt(s)``);
    * ``"untruncated_normal"``: normal with stddev ``sqrt(s)``;
    * ``"uniform"``: uniform in ``[-sqrt(3 s), sqrt(3 s)]``.

    Args:
        scale: positive factor (default 1.0).
        mode: ``"fan_in"`` (default), ``"fan_out"`` or ``"fan_avg"``.
        distribution: ``"truncated_normal"`` (default; ``"normal"`` is an
            alias), ``"untruncated_normal"`` or ``"uniform"``.
        seed: see the module docs.

    Example:
        >>> import descend as ds
        >>> init = ds.initializers.VarianceScaling(2.0, "fan_in", "uniform", seed=3)
        >>> init((4, 5)).shape
        TensorShape([4, 5])
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if not isinstance(scale, (int, float, np.number)) or not scale > 0:
            raise ValueError(f"scale must be a positive float. Received: scale={scale!r}")
        if mode not in _MODES:
            raise ValueError(f"mode must be one of {list(_MODES)}. Received: mode={mode!r}")
        dist = distribution.lower() if isinstance(distribution, str) else distribution
        if dist == "normal":
            dist = "truncated_normal"
        if dist not in _DISTRIBUTIONS:
            raise ValueError(f"distribution must be one of {list(_DISTRIBUTIONS)} (or 'normal'). "
                             f"Received: distribution={distribution!r}")
        self.scale = scale
        self.mode = mode
        self.distribution = dist
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = _check_shape(shape)
        d = _float_dtype(dtype, type(self).__name__)
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        s = self.scale / max(1.0, n)
        rng = self._rng()
        if self.distribution == "truncated_normal":
            values = math.sqrt(s) / _TRUNCATED_STDDEV * _truncated_standard_normal(rng, shape)
        elif self.distribution == "untruncated_normal":
            values = math.sqrt(s) * rng.standard_normal(shape)
        else:
            limit = math.sqrt(3.0 * s)
            values = rng.uniform(-limit, limit, size=shape)
        return Tensor(values.astype(d))

    def get_config(self) -> dict:
        return {**super().get_config(), "scale": self.scale, "mode": self.mode, "distribution": self.distribution}


class _FixedVarianceScaling(VarianceScaling):
    """A VarianceScaling preset: the config holds only the seed."""

    _preset: tuple = ()

    def __init__(self, seed=None):
        scale, mode, distribution = self._preset
        super().__init__(scale=scale, mode=mode, distribution=distribution, seed=seed)

    def get_config(self) -> dict:
        return RandomInitializer.get_config(self)


#: VarianceScaling's presets: name -> (scale, mode, distribution, what it draws)
_PRESETS = {
    "GlorotUniform": (1.0, "fan_avg", "uniform",
                      "Glorot (Xavier) uniform: ``U[-limit, limit]``, ``limit = sqrt(6 / (fan_in + fan_out))``."),
    "GlorotNormal": (1.0, "fan_avg", "truncated_normal",
                     "Glorot (Xavier) normal: truncated normal with stddev ``sqrt(2 / (fan_in + fan_out))``."),
    "HeUniform": (2.0, "fan_in", "uniform", "He uniform: ``U[-limit, limit]``, ``limit = sqrt(6 / fan_in)``."),
    "HeNormal": (2.0, "fan_in", "truncated_normal", "He normal: truncated normal with stddev ``sqrt(2 / fan_in)``."),
    "LecunUniform": (1.0, "fan_in", "uniform", "LeCun uniform: ``U[-limit, limit]``, ``limit = sqrt(3 / fan_in)``."),
    "LecunNormal": (1.0, "fan_in", "truncated_normal",
                    "LeCun normal: truncated normal with stddev ``sqrt(1 / fan_in)``."),
}


def _preset_class(name: str) -> type:
    """The VarianceScaling preset ``name`` of :data:`_PRESETS`, a class of this module."""
    scale, mode, distribution, what = _PRESETS[name]
    doc = (f"{what}\n\n    Example:\n        >>> import descend as ds\n        >>> ds.initializers.{name}(seed=0)"
           f"((3, 3)).shape\n        TensorShape([3, 3])\n    ")
    return type(name, (_FixedVarianceScaling,), {"__module__": __name__, "__qualname__": name, "__doc__": doc,
                                                  "_preset": (scale, mode, distribution)})


GlorotUniform = _preset_class("GlorotUniform")
GlorotNormal = _preset_class("GlorotNormal")
HeUniform = _preset_class("HeUniform")
HeNormal = _preset_class("HeNormal")
LecunUniform = _preset_class("LecunUniform")
LecunNormal = _preset_class("LecunNormal")


class Orthogonal(RandomInitializer):
    """A (semi-)orthogonal matrix times ``gain``, from the QR decomposition of normal draws.

    Shapes of rank > 2 are treated as ``(prod(shape[:-1]), shape[-1])`` and
    reshaped back. With fewer rows than columns the rows are orthonormal,
    otherwise the columns.

    Args:
        gain: multiplicative factor (default 1.0).
        seed: see the module docs.

    Example:
        >>> import descend as ds, numpy as np
        >>> q = ds.initializers.Orthogonal(seed=0)((4, 4), "float64").numpy()
        >>> bool(np.allclose(q.T @ q, np.eye(4)))
        True
    """

    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        super().__init__(seed=seed)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = _check_shape(shape)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializer needs a shape of rank >= 2. Received: shape={shape} of rank "
                             f"{len(shape)}")
        d = _float_dtype(dtype, "Orthogonal")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        a = self._rng().standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))  # a unique Q: the decomposition with diag(R) > 0
        if rows < cols:
            q = q.T
        return Tensor((self.gain * q).reshape(shape).astype(d))

    def get_config(self) -> dict:
        return {**super().get_config(), "gain": self.gain}


# ---------------------------------------------------------------- lookup
register_builtins("initializers", public_names(
    __name__, lambda obj: isinstance(obj, type) and issubclass(obj, Initializer)))
_ALIASES = {
    "zeros": Zeros, "ones": Ones, "constant": Constant, "identity": Identity,
    "random_normal": RandomNormal, "normal": RandomNormal, "random_uniform": RandomUniform, "uniform": RandomUniform,
    "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal, "he_uniform": HeUniform, "he_normal": HeNormal,
    "lecun_uniform": LecunUniform, "lecun_normal": LecunNormal, "orthogonal": Orthogonal,
}

register_builtins("initializers", _ALIASES)  # ("normal", "uniform", "stft": get's other spellings)

IdentityInitializer = Identity
OrthogonalInitializer = Orthogonal
zeros, ones, constant, identity = Zeros, Ones, Constant, Identity
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling, orthogonal = VarianceScaling, Orthogonal
glorot_uniform, glorot_normal, he_uniform, he_normal = GlorotUniform, GlorotNormal, HeUniform, HeNormal
lecun_uniform, lecun_normal = LecunUniform, LecunNormal


def serialize(initializer) -> dict | str | None:
    """``{"class_name": ..., "config": ...}`` for an Initializer; a plain function gives its name."""
    return serialize_object(initializer, Initializer)


def deserialize(config, custom_objects: dict | None = None) -> Initializer:
    """Rebuild an initializer from :func:`serialize`'s output (or a name)."""
    return deserialize_object(config, "initializer", _ALIASES, "initializers", custom_objects)


def get(identifier, custom_objects: dict | None = None):
    """The initializer for ``identifier``: None, a name (``"glorot_uniform"``), a config dict,
    an Initializer instance or any callable ``(shape, dtype) -> values``.

    Raises:
        ValueError: for an unknown name, saying which names are known.
    """
    if identifier is None or isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier, custom_objects)
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier. Expected a name such as 'glorot_uniform', a config "
                     f"dict, an Initializer or a callable. Received: {identifier!r}")


# ---------------------------------------------------------------- STFT (issue 37)
_WINDOWS = ("hann", "hamming", "blackman", "bartlett", "boxcar")
_SYNONYMS = {"hanning": "hann", "han": "hann", "hamm": "hamming", "ham": "hamming", "black": "blackman",
             "blk": "blackman", "bart": "bartlett", "brt": "bartlett", "box": "boxcar", "ones": "boxcar",
             "rect": "boxcar", "rectangular": "boxcar"}


def _window_name(window) -> str:
    name = _SYNONYMS.get(window, window)
    if name not in _WINDOWS:
        raise ValueError(f"STFT: unknown window {window!r}; descend computes the windows {list(_WINDOWS)} (and "
                         "their SciPy synonyms), or pass the window's values as an array")
    return name


def _stft_window(name: str, length: int, periodic: bool) -> np.ndarray:
    """SciPy's ``get_window(name, length, fftbins=periodic)`` for the windows descend knows, in float64."""
    name = _window_name(name)
    if length == 1:
        return np.ones(1)
    m = length + 1 if periodic else length  # a periodic window: the symmetric one of length + 1, last dropped
    n = np.arange(m)
    if name == "boxcar":
        w = np.ones(m)
    elif name == "bartlett":
        w = np.where(n <= (m - 1) / 2.0, 2.0 * n / (m - 1), 2.0 - 2.0 * n / (m - 1))
    else:
        a = {"hann": (0.5, 0.5, 0.0), "hamming": (0.54, 0.46, 0.0), "blackman": (0.42, 0.5, 0.08)}[name]
        fac = 2.0 * np.pi * n / (m - 1)
        w = a[0] - a[1] * np.cos(fac) + a[2] * np.cos(2.0 * fac)
    return w[:length] if periodic else w


class STFT(Initializer):
    """A windowed Fourier basis of shape ``(frame_length, 1, n_fft // 2 + 1)`` (Keras' ``keras.initializers.STFT``).

    The real or imaginary part of a windowed
    discrete Fourier basis, the kernel of a convolution that computes a short-time Fourier transform.

    For ``shape = (T, 1, F)`` (a window of ``T`` samples, ``F = n_fft // 2 + 1`` frequencies), with ``n = 2 (F - 1)``::

        real: w[t] cos(-2 pi t f / n) / scale        imag: w[t] sin(-2 pi t f / n) / scale

    ``w`` is the window (``None``: all ones), ``scale`` is ``sqrt(sum w^2)`` (``scaling="density"``), ``sum |w|``
    (``"spectrum"``) or 1 (``None``). Named windows are SciPy's ``get_window`` ones that descend computes itself:
    ``"hann"``, ``"hamming"``, ``"blackman"``, ``"bartlett"``, ``"boxcar"``, symmetric by default and periodic (DFT-even)
    with ``periodic=True``; a window may also be given as an array of ``T`` values.

    Example:
        >>> import descend as ds, numpy as np
        >>> k = ds.initializers.STFT(side="real", window=None, scaling=None)((4, 1, 3))
        >>> np.round(k.numpy()[:, 0, :], 6).tolist() == [[1, 1, 1], [1, 0, -1], [1, -1, 1], [1, 0, -1]]
        True

    Args:
        side: ``"real"`` (cosines, default) or ``"imag"`` (sines).
        window: a window name (``"hann"``, default), an array of ``frame_length`` values, or None.
        scaling: ``"density"`` (default), ``"spectrum"`` or None.
        periodic: a periodic window instead of a symmetric one (default False).
    """

    def __init__(self, side="real", window="hann", scaling="density", periodic=False):
        if side not in ("real", "imag"):
            raise ValueError(f"STFT: `side` must be 'real' or 'imag'. Received: side={side!r}")
        if isinstance(window, str):
            _window_name(window)
        elif window is not None:
            values = np.asarray(window)
            if values.ndim != 1 or values.dtype.kind not in "iuf":
                raise ValueError(f"STFT: `window` must be a name, None or a 1-D array of numbers. Received: "
                                 f"window={window!r}")
            window = values.tolist()
        if scaling is not None and scaling not in ("density", "spectrum"):
            raise ValueError(f"STFT: `scaling` must be None, 'density' or 'spectrum'. Received: scaling={scaling!r}")
        self.side, self.window, self.scaling, self.periodic = side, window, scaling, bool(periodic)

    def __call__(self, shape, dtype=None) -> Tensor:
        shape = tuple(int(s) for s in shape)
        if len(shape) != 3 or min(shape) <= 0:
            raise ValueError(f"STFT: the shape must be (frame_length, input_channels, fft_bins) of positive sizes. "
                             f"Received: shape={shape}")
        d = backend.floatx() if dtype is None else backend.np_dtype(dtype)
        if np.dtype(d).kind != "f":
            raise ValueError(f"STFT: the dtype must be a float dtype. Received: dtype={dtype!r}")
        frame, _, bins = shape
        n_fft = (bins - 1) * 2
        freq = (np.arange(bins, dtype=d) / np.asarray(n_fft, d)).reshape(1, 1, bins)
        time = np.arange(frame, dtype=d).reshape(frame, 1, 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            args = (np.asarray(-2, d) * time * freq * np.asarray(np.pi, d)).astype(d)  # -2 pi t f / n
        kernel = (np.cos(args) if self.side == "real" else np.sin(args)).astype(d)
        if self.window is not None:
            w = _stft_window(self.window, frame, self.periodic) if isinstance(self.window, str) \
                else np.asarray(self.window, np.float64)
            if w.shape != (frame,):
                raise ValueError(f"STFT: the window must have frame_length={frame} values. Received {w.shape[0]}")
            w = w.astype(d).reshape(frame, 1, 1)
            if self.scaling == "density":
                scale = np.sqrt(np.sum(np.square(w)))
            elif self.scaling == "spectrum":
                scale = np.sum(np.abs(w))
            else:
                scale = np.asarray(1, d)
            kernel = (kernel * w / scale).astype(d)
        return Tensor(np.ascontiguousarray(np.broadcast_to(kernel, shape)).astype(d))

    def get_config(self) -> dict:
        return {"side": self.side, "window": self.window, "periodic": self.periodic, "scaling": self.scaling}


STFTInitializer = stft = STFT
_ALIASES["stft"] = STFT
__all__ += ["STFT", "STFTInitializer", "stft"]
