"""JAX, SciPy and PyTorch for the Keras test files that use them to compute expected values (``import scipy.signal``,
``import jax.numpy as jnp`` at module level or in a test): the real modules where installed, else stand-ins whose
first use skips the test, so the files still collect and their other tests run. CI's first pass has neither; its
second installs optax, with JAX and SciPy (JAX's dependency), and reruns the tests that skipped here: the skip
reason says "could not import 'jax'" (tests/conftest.py's mark of such tests) for SciPy too."""

from __future__ import annotations

import pytest

__all__ = ["jax", "jnp", "jnn", "lax", "jax_scipy_special", "scipy", "scipy_special", "torch", "tnn"]


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
