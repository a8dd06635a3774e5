"""``tf.test``: ``TestCase`` with TF's array assertions, ``main``, ``compute_gradient`` (theoretical and

The public namespace; the implementation is :mod:`descend.testing.tf_test`."""

from .testing.tf_test import (  # noqa: F401
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

__all__ = ['TestCase', 'compute_gradient', 'gpu_device_name', 'is_built_with_cuda', 'is_built_with_gpu_support', 'is_built_with_rocm', 'is_built_with_xla', 'is_gpu_available', 'main']
