"""JAX, SciPy and PyTorch for the Keras test files that use them to compute expected values (``import scipy.signal``,
``import jax.numpy as jnp`` at module level or in a test): the real modules where installed, else stand-ins whose
first use skips the test, so the files still collect and their other tests run. CI's first pass has neither; its
second installs optax, with JAX and SciPy (JAX's dependency), and reruns the tests that skipped here: the skip
reason says "could not import 'jax'" (tests/conftest.py's mark of such tests) for SciPy too."""

from __future__ import annotations

import numpy as np
import pytest

__all__ = ["jax", "jnp", "jnp_dtypes", "jnn", "lax", "jax_scipy_special", "scipy", "scipy_special", "torch", "tnn"]


class _Missing:
    def __init__(self, name, why):
        self._name, self._why = name, why

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("pytestmark",):  # (pytest's collection looks these up)
            raise AttributeError(attr)
        pytest.skip(f"{self._why}: the test computes its expected values with {self._name}.{attr}")


try:
    import jax
    import jax.lax as lax
    import jax.nn as jnn
    import jax.numpy as jnp
    import jax.scipy.special as jax_scipy_special
except ImportError:  # (CI's first pass)
    _why = "could not import 'jax'"
    jax, lax, jnn, jnp, jax_scipy_special = (_Missing(n, _why) for n in ("jax", "jax.lax", "jax.nn", "jax.numpy",
                                                                        "jax.scipy.special"))
    jnp_dtypes = _Missing("jax.numpy", _why)

try:
    import scipy
    import scipy.ndimage
    import scipy.signal
    import scipy.special
    scipy_special = scipy.special
except ImportError:
    scipy = _Missing("scipy", "could not import 'scipy' (CI installs it with JAX: could not import 'jax')")
    scipy_special = _Missing("scipy.special", "could not import 'scipy' (CI installs it with JAX: could not import 'jax')")

try:
    import torch
    import torch.nn.functional as tnn
except ImportError:
    torch, tnn = (_Missing(n, "could not import 'torch'") for n in ("torch", "torch.nn.functional"))


class _Abstract:
    """An array of ``jnp_dtypes``: its shape and dtype, from JAX's tracing; its values are computed (compiled) only when
    something other than ``dtype``/``shape``/``ndim``/``size`` is asked of it."""

    __slots__ = ("_aval", "_make", "_value")

    def __init__(self, aval, make):
        self._aval, self._make, self._value = aval, make, None

    dtype = property(lambda self: self._aval.dtype)
    shape = property(lambda self: self._aval.shape)
    ndim = property(lambda self: len(self._aval.shape))
    size = property(lambda self: int(np.prod(self._aval.shape, dtype=np.int64)))
    weak_type = property(lambda self: self._aval.weak_type)

    def concrete(self):
        if self._value is None:
            self._value = self._make()
        return self._value

    def __getattr__(self, name):
        return getattr(self.concrete(), name)

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.concrete(), dtype=dtype)

    def __repr__(self):
        return f"<jnp_dtypes array shape={self.shape} dtype={self.dtype}>"


def _forward(name):
    return lambda self, *args: getattr(self.concrete(), name)(*(_concrete(a) for a in args))


for _name in ("__getitem__", "__len__", "__iter__", "__bool__", "__int__", "__float__", "__index__", "__add__",
              "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__", "__rtruediv__", "__neg__",
              "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__"):
    setattr(_Abstract, _name, _forward(_name))
_Abstract.__hash__ = None


def _concrete(x):
    return x.concrete() if isinstance(x, _Abstract) else x


def _abstract_call(fn):
    """``fn`` (a jax.numpy function) computing its result's shape and dtype with ``jax.eval_shape``: the same dtype
    rules (they are applied while tracing), without compiling a kernel for each dtype as an eager call does. Only
    JAX arrays are traced; every other argument (Python numbers, NumPy arrays, axes, dtypes) is passed as given, so a
    Python scalar stays weakly typed as in the eager call. A function whose result depends on values (nonzero,
    unique...), or that returns no array, runs eagerly."""
    import functools

    @functools.wraps(fn)
    def call(*args, **kwargs):
        leaves, tree = jax.tree_util.tree_flatten((args, kwargs), is_leaf=lambda x: isinstance(x, _Abstract))
        where = [i for i, x in enumerate(leaves) if isinstance(x, (_Abstract, jax.Array))]

        def eager():
            a, k = jax.tree_util.tree_unflatten(tree, [_concrete(x) for x in leaves])
            return fn(*a, **k)

        def traced(*dynamic):
            filled = list(leaves)
            for i, x in zip(where, dynamic):
                filled[i] = x
            a, k = jax.tree_util.tree_unflatten(tree, filled)
            return fn(*a, **k)

        try:
            out = jax.eval_shape(traced, *(leaves[i]._aval if isinstance(leaves[i], _Abstract)
                                           else jax.ShapeDtypeStruct(leaves[i].shape, leaves[i].dtype,
                                                                     weak_type=leaves[i].weak_type) for i in where))
        except Exception:  # value-dependent shapes, non-array results: the eager call (whose error, if any, is JAX's)
            return eager()
        out_leaves, out_tree = jax.tree_util.tree_flatten(out)
        results = []

        def value(i):
            if not results:
                results.append(jax.tree_util.tree_leaves(eager()))
            return results[0][i]

        return jax.tree_util.tree_unflatten(out_tree, [
            _Abstract(x, functools.partial(value, i)) if isinstance(x, jax.ShapeDtypeStruct) else x
            for i, x in enumerate(out_leaves)])

    return call


class _AbstractNumpy:
    """``jax.numpy`` for tests that compare dtypes only (numpy_test.py's NumpyDtypeTest, "the dtype ... matches JAX"):
    each function's result carries JAX's shape and dtype, found by tracing, and computes its values only if asked.
    An eager jax.numpy call compiles an XLA kernel for each new dtype combination (~0.1 s each, most of that class's
    time); tracing gives the same dtype without it. Types and constants (jnp.float32, jnp.ndarray, jnp.pi) are JAX's."""

    def __getattr__(self, name):
        attr = getattr(jnp, name)
        if callable(attr) and not isinstance(attr, type):
            attr = _abstract_call(attr)
        object.__setattr__(self, name, attr)
        return attr


if not isinstance(jnp, _Missing):
    jnp_dtypes = _AbstractNumpy()
