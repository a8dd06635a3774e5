"""Shared test setup: every test starts with a clean name registry and floatx."""

from __future__ import annotations

import os
import sys

import pytest

import descend as ds

# the op-case tables import each other as top-level modules (``from op_case import Case``)
_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)


@pytest.fixture(autouse=True)
def _isolated_session():
    """Forget reserved variable names, restore floatx, unset the global seed and dtype policy; fail if a tape
    is left recording."""
    from descend.framework import tape as tape_module

    floatx = ds.floatx()
    ds.clear_session()
    yield
    ds.set_floatx(floatx)
    ds.random.set_seed(None)  # a global seed would decide later tests' unseeded initializers
    ds.mixed_precision.set_global_policy(None)  # a policy would decide later tests' layer dtypes
    ds.clear_session()
    leaked = list(tape_module._active)
    tape_module._active.clear()
    assert not leaked, f"a GradientTape was left recording after the test: {leaked}"


@pytest.fixture
def determinism():
    """``ds.config.experimental`` for the test to turn op determinism on; after it, op determinism off and the
    BLAS thread budget as it was."""
    from descend._native import blas

    budget = blas.set_threads(None)
    blas.set_threads(budget)
    yield ds.config.experimental
    ds.config.experimental.disable_op_determinism()
    blas.set_threads(budget)


# CI's second pass (.ci/run): with DESCEND_REFERENCE_SKIPS set to a file, the first pass lists there the tests
# that skipped for want of a reference framework (TensorFlow, Keras, PyTorch, optax), and the second pass, with
# those installed, runs just them instead of their whole files again. Under pytest-xdist a worker and the controller
# may both note a test: the list is deduplicated (``sort -u``) before the second pass reads it
_REFERENCE_SKIP = ("could not import 'tensorflow'", "could not import 'keras'", "could not import 'torch'",
                   "could not import 'optax'", "could not import 'jax'")


def _note_reference_skip(report):
    path = os.environ.get("DESCEND_REFERENCE_SKIPS")
    if not path or not report.skipped:
        return
    reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(r in reason for r in _REFERENCE_SKIP):
        with open(path, "a") as f:
            f.write(report.nodeid + "\n")


def pytest_runtest_logreport(report):  # a test that skipped
    _note_reference_skip(report)


def pytest_collectreport(report):  # a whole file that skipped (a module-level importorskip)
    _note_reference_skip(report)
