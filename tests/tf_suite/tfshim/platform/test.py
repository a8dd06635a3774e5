"""TF's ``tensorflow.python.platform.test``: descend's ``tf.test`` (``TestCase`` with TF's assertions and eager
``cached_session``, the build queries, ``main``), with the module's extras the test files use (``mock``, the
``Benchmark`` base of benchmark classes, which hold no tests)."""

from unittest import mock  # noqa: F401  (TF's test.mock)

from descend.test import (  # noqa: F401
    TestCase,
    compute_gradient,
    gpu_device_name,
    is_built_with_cuda,
    is_built_with_gpu_support,
    is_built_with_rocm,
    is_built_with_xla,
    is_gpu_available,
    main,
)


class Benchmark:
    """TF's base of benchmark classes: not a test case, so pytest collects nothing from its subclasses."""
