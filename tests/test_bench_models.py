"""The models of ``benchmarks/bench_e2e.py`` as users write them (a ``Sequential`` MLP, the CNN, the LSTM, the
MultiHeadAttention block), built by their first call: ``fit(jit_compile=True)`` runs no op through its NumPy
forward (no ``PlanCallbackWarning``) and no step eagerly (no ``FunctionEagerWarning``), with the eager numbers bit
for bit; the ``@ds.function`` step over the model built by its first call gives the numbers of the model built
before it. (Timing is the benchmark's business: nothing here times anything.)"""

from __future__ import annotations

import os
import sys
import warnings

import pytest

import descend as ds
from descend.compiler import plan as plan_module
from descend.compiler.function import FunctionEagerWarning

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks"))
import bench_e2e  # noqa: E402

CASES = {key: (kind, in_shape, sizes) for key, _, kind, in_shape, _, sizes in bench_e2e.MODEL_CASES
         if key != "seq_mlp_large"}


def _without_fallback(fn):
    """``fn()`` with an op run through its NumPy forward, or a step run eagerly, an error."""
    plan_module._warned.clear()  # (the warning is once per op name and process)
    with warnings.catch_warnings():
        warnings.simplefilter("error", plan_module.PlanCallbackWarning)
        warnings.simplefilter("error", FunctionEagerWarning)
        return fn()


def _fit(key, jit):
    kind, in_shape, sizes = CASES[key]
    ds.keras.utils.set_random_seed(0)
    model = bench_e2e.keras_model(ds.keras, kind, sizes)
    model.compile(optimizer=ds.keras.optimizers.AdamW(1e-3, weight_decay=0.01),
                  loss=ds.keras.losses.SparseCategoricalCrossentropy(from_logits=True), jit_compile=jit)
    x, y = bench_e2e.make_model_data(in_shape, 8, n=20, seed=2)
    history = model.fit(x, y, batch_size=8, epochs=2, verbose=0, shuffle=False)  # 2 full batches, a short one
    return history.history["loss"], [w.numpy() for w in model.weights]


@pytest.mark.parametrize("key", list(CASES))
def test_the_benchmarks_model_fits_compiled_without_a_fallback_and_with_the_eager_numbers(key, monkeypatch):
    monkeypatch.setattr(plan_module, "_warned", set())
    compiled = _without_fallback(lambda: _fit(key, True))
    eager = _fit(key, False)
    assert compiled[0] == eager[0] and len(compiled[1]) == len(eager[1]) > 0
    for a, b in zip(compiled[1], eager[1]):
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("key", list(CASES))
def test_the_step_over_a_model_built_by_its_first_call_is_the_built_models_step(key, monkeypatch):
    monkeypatch.setattr(plan_module, "_warned", set())
    kind, in_shape, sizes = CASES[key]
    x, y = bench_e2e.make_model_data(in_shape, 8, seed=3)
    losses = {}
    for built_first in (False, True):
        ds.keras.utils.set_random_seed(0)
        step = bench_e2e.make_descend_model_step(kind, sizes, x, y, built_first=built_first)
        losses[built_first] = _without_fallback(lambda: [step().numpy().tobytes() for _ in range(3)])
    assert losses[False] == losses[True]
