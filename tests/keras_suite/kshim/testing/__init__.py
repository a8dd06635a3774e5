"""Keras' ``testing`` package over descend: ``TestCase`` (with ``run_layer_test``), ``test_utils``."""

import pytest

from . import test_case, test_utils  # noqa: F401
from .test_case import TestCase, jax_uses_gpu, jax_uses_tpu, tensorflow_uses_gpu, torch_uses_gpu, uses_gpu, uses_tpu  # noqa: F401


def skip_if_backend(given_backend, reason):
    """Keras' conftest helper: skip when the backend is ``given_backend`` (descend's is ``"descend"``)."""
    return pytest.mark.skipif(given_backend == "descend", reason=reason)
