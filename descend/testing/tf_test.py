"""``tf.test``: ``TestCase`` with TF's array assertions, ``main``, ``compute_gradient`` (theoretical and
numerical Jacobians, as TF's gradient checker) and the build queries, answered for descend (no GPU, CUDA,
ROCm or XLA build: it runs NumPy/numba on the host).

Example:
    >>> import descend as ds
    >>> theoretical, numerical = ds.test.compute_gradient(lambda x: x * x, [ds.constant([1.0, 3.0])])
    >>> theoretical[0]
    array([[2., 0.],
           [0., 6.]], dtype=float32)
"""

from __future__ import annotations

import contextlib
import re
import unittest

import numpy as np

from .. import nest
from ..errors import InvalidArgumentError
from ..framework import GradientTape
from ..framework.tensor import Tensor, convert_to_tensor

__all__ = ["TestCase", "compute_gradient", "gpu_device_name", "is_built_with_cuda", "is_built_with_gpu_support",
           "is_built_with_rocm", "is_built_with_xla", "is_gpu_available", "main"]


def _numpy(x):
    if isinstance(x, Tensor) or hasattr(x, "numpy"):
        return np.asarray(x.numpy())
    return np.asarray(x)


class TestCase(unittest.TestCase):
    """``unittest.TestCase`` with TF's assertions over tensors, arrays and nested structures of them."""

    def evaluate(self, tensors):
        """The NumPy values of ``tensors`` (a structure of tensors)."""
        return nest.map_structure(lambda t: _numpy(t) if isinstance(t, Tensor) else t, tensors)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802 - TF's names
        """Every element of ``a`` within ``atol + rtol * |b|`` of ``b`` (NaNs in the same places). As TF's: dicts
        compare key by key; lists and tuples compare as one array where both convert to one (``[[[-1.]]]`` against
        a tuple of one 1x1 Jacobian), else item by item."""
        if isinstance(a, dict) or isinstance(b, dict):
            self.assertIsInstance(a, dict, msg)
            self.assertIsInstance(b, dict, msg)
            self.assertEqual(set(a), set(b), msg or "the dicts have different keys")
            for key in a:
                self.assertAllClose(a[key], b[key], rtol=rtol, atol=atol, msg=msg)
            return
        if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
            try:
                x, y = self._array(a), self._array(b)
            except (ValueError, TypeError):
                self.assertEqual(len(a), len(b), msg or f"lengths differ: {len(a)} and {len(b)}")
                for u, v in zip(a, b):
                    self.assertAllClose(u, v, rtol=rtol, atol=atol, msg=msg)
                return
            return self._close(x, y, rtol, atol, msg)
        self._close(_numpy(a), _numpy(b), rtol, atol, msg)

    @staticmethod
    def _array(x):
        """``x`` as one numeric array (ValueError for ragged or non-numeric structures)."""
        if isinstance(x, (list, tuple)):
            x = [_numpy(v) if isinstance(v, Tensor) else v for v in x]
        out = np.asarray(x)
        if out.dtype == object:
            raise ValueError("not one numeric array")
        return out

    def _close(self, x, y, rtol, atol, msg):
        self.assertEqual(x.shape, y.shape, msg or f"shapes differ: {x.shape} and {y.shape}")
        np.testing.assert_allclose(x, y, rtol=rtol, atol=atol, err_msg=msg or "", equal_nan=True)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6, float_atol=1e-6,  # noqa: N802
                                      half_rtol=1e-3, half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """:meth:`assertAllClose` with the tolerance of the values' dtypes, as TF's: float32 (in either) at least
        ``float_*``, else float16 (in either) at least ``half_*``."""
        dtypes = {_numpy(a).dtype, _numpy(b).dtype}
        if dtypes & {np.dtype(np.float32), np.dtype(np.complex64)}:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        elif np.dtype(np.float16) in dtypes:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        raise AssertionError(msg or "the two values are all close")

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=True, force_gpu=False):
        """TF's session context, as TF 2 gives it where it executes eagerly: no graph, and a session whose ``run``
        evaluates what it is given (descend has no graph mode, so the arguments change nothing)."""
        yield _EagerSession(self)

    session = cached_session

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        x, y = _numpy(a), _numpy(b)
        self.assertEqual(x.shape, y.shape, msg or f"shapes differ: {x.shape} and {y.shape}")
        np.testing.assert_array_equal(x, y, err_msg=msg or "")

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        x, y = _numpy(a), _numpy(b)
        if x.shape == y.shape and np.array_equal(x, y):
            raise AssertionError(msg or "the two values are all equal")

    def _all(self, a, test, what, msg):
        x = _numpy(a)
        if not np.all(test(x)):
            raise AssertionError(msg or f"not all elements are {what}: {x}")

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        self._all(a, lambda x: x > comparison_target, f"> {comparison_target}", None)

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        self._all(a, lambda x: x >= comparison_target, f">= {comparison_target}", None)

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        self._all(a, lambda x: x < comparison_target, f"< {comparison_target}", None)

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        self._all(a, lambda x: x <= comparison_target, f"<= {comparison_target}", None)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,  # noqa: N802
                         open_upper_bound=False):
        def test(x):
            low = x > lower_bound if open_lower_bound else x >= lower_bound
            high = x < upper_bound if open_upper_bound else x <= upper_bound
            return low & high

        self._all(target, test, f"in the range {lower_bound}..{upper_bound}", None)

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        allowed = set(_numpy(list(expected_set)).tolist())
        self._all(target, lambda x: np.isin(x, list(allowed)), f"in {sorted(allowed)}", None)

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        if not abs(float(f1) - float(f2)) <= err:
            raise AssertionError(msg or f"{f1} != {f2} +/- {err}")

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(f1, f2, err, msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        if not np.allclose(_numpy(ndarray1), _numpy(ndarray2), atol=err, rtol=0):
            raise AssertionError(msg or f"the arrays differ by more than {err}")

    def assertShapeEqual(self, input_a, input_b, msg=None):  # noqa: N802
        self.assertEqual(tuple(np.shape(_numpy(input_a))), tuple(np.shape(_numpy(input_b))), msg)

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        from .. import backend

        want = backend.np_dtype(expected_dtype)
        for x in nest.flatten(target):
            self.assertEqual(_numpy(x).dtype, want)

    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):  # noqa: N802
        """A context: the block must raise ``exception_type`` whose message matches the regex (or for which
        the predicate is true)."""
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            pattern = expected_err_re_or_predicate
            predicate = lambda e: re.search(pattern, str(e)) is not None  # noqa: E731
        return _RaisesMatching(self, exception_type, predicate)

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        """A context: the block must raise descend's ``InvalidArgumentError`` (TF's ``OpError``) matching."""
        return self.assertRaisesWithPredicateMatch(InvalidArgumentError, expected_err_re_or_predicate)


class _EagerSession:
    """What :meth:`TestCase.cached_session` yields: ``run(fetches)`` is ``evaluate(fetches)``; there are no
    placeholders to feed."""

    def __init__(self, case):
        self._case = case

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if feed_dict:
            raise RuntimeError("session.run: feed_dict needs graph mode (placeholders), and descend executes "
                               "eagerly; here run(t) is t.numpy()")
        return self._case.evaluate(fetches)


class _RaisesMatching:
    def __init__(self, case, exception_type, predicate):
        self._case, self._type, self._predicate = case, exception_type, predicate

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            raise AssertionError(f"{self._type.__name__} was not raised")
        if not issubclass(exc_type, self._type):
            return False
        if not self._predicate(exc):
            raise AssertionError(f"the exception does not match: {exc}")
        return True


def main(argv=None):
    """Run the test cases of ``__main__`` (``unittest.main``)."""
    return unittest.main(argv=argv)


def compute_gradient(f, x, delta=None):
    """``(theoretical, numerical)``: for each argument of ``f`` in the list ``x``, the Jacobian of ``f``'s result
    with respect to it as a 2-D array ``[y_size, x_size]``, from the tape and from central differences of step
    ``delta`` (1/1024 when None, exactly representable as TF's)."""
    if not isinstance(x, (list, tuple)):
        raise ValueError(f"compute_gradient: `x` must be a list or tuple of values (the arguments of `f`), not a "
                         f"{type(x).__name__}")
    delta = 1.0 / 1024 if delta is None else float(delta)
    # C order: the perturbation below writes through a flat view, which a Fortran-ordered copy would not give
    xs = [np.array(_numpy(convert_to_tensor(v)), copy=True, order="C") for v in x]
    y0 = _numpy(f(*[convert_to_tensor(v) for v in xs]))
    theoretical, numerical = [], []
    for i, xi in enumerate(xs):
        jac_t = np.zeros((y0.size, xi.size), xi.dtype)
        for row in range(y0.size):
            args = [convert_to_tensor(v) for v in xs]
            seed = np.zeros(y0.size, y0.dtype)
            seed[row] = 1
            with GradientTape() as tape:
                tape.watch(args[i])
                y = f(*args)
            g = tape.gradient(y, args[i], output_gradients=convert_to_tensor(seed.reshape(y0.shape)))
            if g is not None:
                jac_t[row] = _numpy(convert_to_tensor(g)).reshape(-1)
        jac_n = np.zeros((y0.size, xi.size), xi.dtype)
        flat = xi.reshape(-1)
        for col in range(xi.size):
            original = flat[col]
            flat[col] = original + delta
            y_pos = _numpy(f(*[convert_to_tensor(v) for v in xs]))
            flat[col] = original - delta
            y_neg = _numpy(f(*[convert_to_tensor(v) for v in xs]))
            flat[col] = original
            jac_n[:, col] = ((y_pos - y_neg) / np.asarray(2 * delta, y0.dtype)).reshape(-1)
        theoretical.append(jac_t)
        numerical.append(jac_n)
    return tuple(theoretical), tuple(numerical)


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None) -> bool:
    """False: descend computes on the host."""
    return False


def gpu_device_name() -> str:
    """``""``: descend has no GPU device."""
    return ""


def is_built_with_cuda() -> bool:
    return False


def is_built_with_rocm() -> bool:
    return False


def is_built_with_gpu_support() -> bool:
    return False


def is_built_with_xla() -> bool:
    return False

