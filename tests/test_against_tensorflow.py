"""descend's optimizers against TensorFlow's, Keras 3's and Hugging Face's own implementations.

The comparisons of ``tools/compare_with_tensorflow.py`` as a parametrized test: each
(optimizer configuration, dtype, dense/sparse) run steps both implementations 10 times on
the same variables and gradients and compares the variables and slots after every step
(float64: 1e-12 relative; float32: 64 ulp), on descend's NumPy path and, when numba is
installed, on its fused kernels too. A float64 run whose reference rounds its
constants to float32 (TensorFlow-side dtype handling) is held to the wider bound its
case states, a few times the difference measured, and fails above it. Runs where
TensorFlow raises for float64, or that differ by a numerical-library difference the
script verifies by emulation, are skipped with that reason. The Hugging Face runs need
transformers (with tf_keras); without it they are left out.

Skipped where TensorFlow is not installed (as in the test set-up of the README). To run it::

    .venv/bin/pip install tensorflow-cpu && .venv/bin/python -m pytest tests/test_against_tensorflow.py
"""

from __future__ import annotations

import os
import sys

import pytest

pytest.importorskip("tensorflow")
pytest.importorskip("keras", minversion="3")

_TOOLS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tools")
if _TOOLS not in sys.path:
    sys.path.insert(0, _TOOLS)

import compare_with_tensorflow as cwt  # noqa: E402

RUNS = cwt.runs()


@pytest.mark.parametrize("run", RUNS, ids=[r.id for r in RUNS])
def test_trajectory_matches_reference(run):
    res = cwt.compare(run)
    if res.status == "LIMIT":
        pytest.skip(f"documented limitation [{res.limit}]: {res.limit_detail}")
    known = f" Known differences: {', '.join(res.diagnoses)}." if res.diagnoses else ""
    assert res.passed, f"{run.id} vs {run.case.reference}: {'; '.join(res.diff.failures)}.{known}"
    bound = run.case.f64_tol if run.dtype == "float64" else None
    if bound is not None:  # a stated wider float64 bound must be needed, and not lax: within 10x of the difference
        worst = max(res.diff.var_rel, res.diff.slot_rel)
        assert cwt.F64_TOL < worst, f"{run.id}: within {cwt.F64_TOL:g} now: drop its bound {bound:g}"
        assert worst > bound / 10, f"{run.id}: differs by {worst:.1e}, far under its bound {bound:g}: tighten it"


DEFAULTS = cwt.check_defaults()


@pytest.mark.parametrize("pair", DEFAULTS, ids=[f"{d}-vs-{t}" for d, t, _, _ in DEFAULTS])
def test_constructor_defaults_match_reference(pair):
    descend_cls, reference, compared, problems = pair
    assert compared, f"no constructor argument of {descend_cls} matched {reference}'s"
    assert not problems, f"{descend_cls} vs {reference}: {'; '.join(problems)}"


def test_every_optimizer_is_compared():
    """Every optimizer descend ships is in the comparison, except the ones TensorFlow has no reference for."""
    import descend as ds
    from descend.compat.v1 import train as v1

    shipped = {getattr(ds.optimizers, n) for n in ds.optimizers.__all__}
    shipped |= {getattr(v1, n) for n in v1.__all__}
    shipped = {c for c in shipped if isinstance(c, type) and issubclass(c, ds.optimizers.Optimizer)}
    # no TensorFlow reference: the bases, DeepRec's AdagradDecay (not in TensorFlow) and the MultiOptimizer wrapper
    no_reference = {ds.optimizers.Optimizer, v1.Optimizer, ds.optimizers.AdagradDecay, v1.AdagradDecayOptimizer,
                    ds.optimizers.MultiOptimizer}
    compared = {c.descend_cls for c in cwt.cases()}
    if not any(c.family == "hf" for c in cwt.cases()):  # transformers (with tf_keras) is not installed here
        no_reference.add(ds.optimizers.AdamWeightDecay)
    missing = sorted(c.__name__ for c in shipped - no_reference - compared)
    assert not missing, f"optimizers with no comparison against TensorFlow: {missing}"
