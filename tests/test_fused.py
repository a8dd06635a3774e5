"""Fused numba kernels (descend/optimizers/fused.py) against the NumPy reference path.

Kernels are compiled once per rule and dtype and cached on disk (the default
cache directory, or $DESCEND_CACHE_DIR), so only the first run on a machine
pays numba's compile time; the cache-hit test uses its own directory.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest
from optimizer_cases import CASES

import descend as ds
from descend import _native
from descend.optimizers import Optimizer, Slot, fused

numba = pytest.importorskip("numba")

IDS = [c.id for c in CASES]
_TRANSCENDENTAL = re.compile(r"np\.(power|exp|expm1|log|log1p|tanh)\(")
SHAPE = (30, 40)
STEPS = 10
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(autouse=True)
def _restore_switches(monkeypatch):
    monkeypatch.setattr(_native, "idle_core", lambda: True)  # (parallel loops run whatever the machine's load)
    previous = fused.set_enabled(None)
    saved = _native.SERIAL_BELOW, _native.CHUNK, _native.SEGMENT_SUM_BELOW
    yield
    fused.set_enabled(previous)
    _native.SERIAL_BELOW, _native.CHUNK, _native.SEGMENT_SUM_BELOW = saved


def ulps(a, b, *, per_element: bool = True) -> float:
    """The largest distance between ``a`` and ``b`` in units in the last place of the larger
    magnitude: of each element, or (``per_element=False``) of the largest element of the array."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    same = (a == b) | (np.isnan(a) & np.isnan(b))
    if same.all():
        return 0.0
    big = np.maximum(np.abs(a), np.abs(b))
    spacing = np.spacing(big if per_element else big.max()).astype(np.float64)
    d = np.abs(a.astype(np.float64) - b.astype(np.float64)) / spacing
    return float(np.where(same, 0.0, d).max())


def _steps(sparse: bool, seed=0):
    rng = np.random.default_rng(seed)
    v0 = rng.standard_normal(SHAPE)
    out = []
    for _ in range(STEPS):
        if sparse:
            idx = np.sort(rng.choice(SHAPE[0] - 3, size=12, replace=False))  # the last rows never change
            out.append((idx, rng.standard_normal((12,) + SHAPE[1:])))
        else:
            out.append((None, rng.standard_normal(SHAPE)))
    return v0, out


def _run(case, dtype, sparse: bool, use_fused: bool):
    ds.clear_session()
    fused.set_enabled(use_fused)
    opt = case.make(sparse_updates="lazy") if sparse else case.make()
    v0, steps = _steps(sparse)
    var = ds.Variable(v0.astype(dtype), name="v")
    for idx, g in steps:
        g = ds.constant(g.astype(dtype))
        opt.apply_gradients([(ds.IndexedSlices(g, ds.constant(idx), SHAPE) if sparse else g, var)])
    return opt, var, {n: opt.get_slot(var, n).numpy() for n in opt.get_slot_names()}


def _uses_rule(opt) -> bool:
    """Whether the optimizer's rule runs as a fused kernel (not Lamb's per-tensor rule or a hook)."""
    return not opt.rule.is_hook and not opt.rule.per_tensor


@pytest.mark.parametrize("mode", ["serial", "parallel"])
@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "lazy_rows"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_fused_matches_reference(case, dtype, sparse, mode):
    if mode == "serial":
        _native.SERIAL_BELOW = 1 << 62
    else:  # every element through the prange loop, rows cut into several chunks
        _native.SERIAL_BELOW, _native.CHUNK = 0, 16
    _, ref_var, ref_slots = _run(case, dtype, sparse, use_fused=False)
    before = dict(fused.stats)
    opt, var, slots = _run(case, dtype, sparse, use_fused=True)
    used = {k: fused.stats[k] - before.get(k, 0) for k in ("dense", "rows")}
    if _uses_rule(opt):
        assert used["rows" if sparse else "dense"] == STEPS, f"the fused kernel was not used: {used}"
    else:  # Lamb applies its own update
        assert used == {"dense": 0, "rows": 0}
    # + - * / and sqrt are IEEE in both paths; NumPy's SIMD pow/exp/log differ from libm's by an ulp
    # here and there, which FTRL's n_new^p - n^p cancellation amplifies: those rules are measured
    # in ulps of the array's largest element
    exact = not (_uses_rule(opt) and _TRANSCENDENTAL.search(fused.kernel_for(opt.rule.fn).source))
    assert ulps(var.numpy(), ref_var.numpy(), per_element=exact) <= 4, "variable"
    for name, ref in ref_slots.items():
        assert ulps(slots[name], ref, per_element=exact) <= 4, f"slot {name}"
    if sparse:  # untouched rows stay bit for bit
        np.testing.assert_array_equal(var.numpy()[-3:], _steps(True)[0][-3:].astype(dtype))


# ---------------------------------------------------------------------------- float32 stays float32
def _distinct_rules():
    rules = {}
    for case in CASES:
        opt = case.make()
        if _uses_rule(opt):
            rules.setdefault(opt.rule.fn, case.id)
    return rules


def _float32_typing(fn):
    """numba's type inference of a generated float32 kernel: (typemap, calltypes) as strings."""
    from numba.core import types
    from numba.core.compiler import run_frontend
    from numba.core.registry import cpu_target
    from numba.core.typed_passes import type_inference_stage

    names = fn.__code__.co_varnames[:fn.__code__.co_argcount]
    arr = types.Array(types.float32, 2, "C")
    kinds = {"_idx": types.Array(types.intp, 1, "C"), "_B": types.intp, "_serial": types.boolean,
             "_objs": types.Array(types.int64, 2, "C"), "_chunks": types.Array(types.int64, 2, "C"),
             "_decay": types.Array(types.float32, 1, "C")}
    argtypes = tuple(arr if n in ("_P", "_G") or n.startswith("_S") else kinds.get(n, types.float32) for n in names)
    cpu_target.typing_context.refresh()
    cpu_target.target_context.refresh()
    res = type_inference_stage(cpu_target.typing_context, cpu_target.target_context, run_frontend(fn), argtypes,
                               None)
    return [f"{k}: {v}" for k, v in res.typemap.items()], [str(s) for s in res.calltypes.values() if s is not None]


@pytest.mark.parametrize("kind", ["dense", "rows"])
def test_float32_kernels_have_no_float64_arithmetic(kind):
    rules = _distinct_rules()
    assert len(rules) >= 15
    for rule, case_id in rules.items():
        kernel = fused.kernel_for(rule)
        assert kernel is not None, case_id
        typemap, calls = _float32_typing(getattr(kernel.module, f"{kind}_float32"))
        bad = [t for t in typemap + calls if "float64" in t]
        assert not bad, f"{case_id} ({rule.__name__}): float64 in the float32 {kind} kernel: {bad}"


def test_compiled_float32_signatures_are_float32():
    # the kernels the earlier tests compiled (or loaded): every scalar argument is float32
    for rule, case_id in _distinct_rules().items():
        for kind in ("dense", "rows"):
            k = fused.kernel_for(rule).kernel(kind, np.dtype(np.float32))
            for sig in k.nopython_signatures:
                assert "float64" not in str(sig.args), f"{case_id}: {sig}"


# ---------------------------------------------------------------------------- many tensors, one call
def _many(opt_factory, use_fused, sizes, dtypes, excluded=()):
    rng = np.random.default_rng(7)
    vs = [ds.Variable(rng.standard_normal(n).astype(dt).reshape(_shape(n)), name=f"w{k}")
          for k, (n, dt) in enumerate(zip(sizes, dtypes))]
    opt = opt_factory()
    opt.use_fused = use_fused
    opt.exclude_from_weight_decay(var_names=list(excluded))
    for _ in range(3):
        grads = [ds.constant((rng.standard_normal(v.shape) * 0.1).astype(v.dtype.name)) for v in vs]
        opt.apply_gradients(zip(grads, vs))
    return [v.numpy() for v in vs], [s.numpy() for s in opt.variables()[1:]]


def _shape(n):
    return (n // 4, 4) if n % 4 == 0 and n else (n,)


@pytest.mark.parametrize("make", [lambda: ds.optimizers.AdamW(0.01, weight_decay=0.1),
                                  lambda: ds.optimizers.SGD(0.1, momentum=0.9, nesterov=True),
                                  lambda: ds.optimizers.Lion(0.01, weight_decay=0.5)],
                         ids=["AdamW", "nesterov", "Lion"])
def test_many_tensors_of_mixed_sizes_dtypes_and_decay_match_the_reference_in_one_call_per_dtype(make):
    _native.CHUNK = 16  # tensors cut into several chunks, the last one short
    sizes = [1, 0, 37, 16, 4000, 3, 64, 1000, 17]
    dtypes = [np.float32, np.float64] * 4 + [np.float32]
    excluded = ("w3", "w7")  # weight decay 0 for these: the kernel's undecayed loop
    ref_vars, ref_slots = _many(make, False, sizes, dtypes, excluded)
    before = fused.stats["dense"]
    got_vars, got_slots = _many(make, True, sizes, dtypes, excluded)
    assert fused.stats["dense"] - before == 3 * 2  # one call per step and dtype
    for a, b in zip(got_vars + got_slots, ref_vars + ref_slots):
        np.testing.assert_array_equal(a, b)


def test_the_fused_nonfinite_check_finds_the_first_bad_array():
    _native.CHUNK = 16
    arrays = [np.ones(n, np.float32) for n in (5, 40, 3, 33)]
    assert fused.find_nonfinite(arrays) == -1
    for k, j, bad in [(3, 32, np.inf), (1, 17, np.nan), (0, 0, -np.inf), (2, 2, np.nan)]:
        arrays[k][j] = bad
        assert fused.find_nonfinite(arrays) == min(k, *(i for i, a in enumerate(arrays) if not np.isfinite(a).all()))
    big = np.float32(3e38)
    assert fused.find_nonfinite([np.array([big, big, -big], np.float32)]) == -1  # large but finite
    assert fused.find_nonfinite([np.array([1.0, np.nan])]) == 0  # float64
    assert fused.find_nonfinite([np.ones(3, np.float32), np.ones(3)]) is None  # mixed dtypes: the NumPy check
    assert fused.find_nonfinite([np.ones((4, 4), np.float32).T]) is None  # not contiguous


def every_function_rule(param, grad, s, *, a, b):
    # each allowed function, literals of both kinds, and a scalar-only subexpression
    x = np.sqrt(np.abs(grad) + 1) * np.maximum(param, -0.5) + np.minimum(s, 2.0) * np.sign(grad)
    x = x + np.square(grad) * np.exp(-np.abs(param)) + np.log(np.abs(grad) + 0.5) - np.power(np.abs(s) + 1, a)
    x = x + np.fmax(param, s) - np.fmin(param, s) + np.fabs(grad) + np.absolute(s) + np.expm1(grad * 0.5)
    x = x + np.log1p(np.abs(param)) + np.tanh(grad) + np.negative(s) + grad**2 + np.abs(param) ** 0.5
    x = x + abs(s) + grad // 3 + (param % 2) * (1 - b) / (b * 2 + 1)
    return param - np.where(x > 0, x * b, -x) * 1e-3, np.where(grad < 0, s + 1, s - 1)


class EveryFunction(Optimizer):
    slots = (Slot("s", 0.5),)
    update = staticmethod(every_function_rule)

    def coefficients(self, step, hyper, dtype):
        return {"a": dtype.type(0.75), "b": 0.25}


def test_every_allowed_function_keeps_float32_and_matches_numpy():
    names = {n for n in fused.ALLOWED_FUNCTIONS if n != "where"}
    src = fused.generate_source(every_function_rule)
    assert all(f"np.{n}(" in src for n in names), names - {n for n in names if f"np.{n}(" in src}
    assert "np.where" not in src and "= _T_float32(1)\n" in src and "= _T_float32(0.5)\n" in src
    typemap, calls = _float32_typing(fused.kernel_for(every_function_rule).module.dense_float32)
    assert not [t for t in typemap + calls if "float64" in t]
    for dtype in (np.float32, np.float64):
        results = []
        for on in (False, True):
            ds.clear_session()
            fused.set_enabled(on)
            opt, var = EveryFunction(), ds.Variable(np.linspace(-2, 2, 60).astype(dtype), name="w")
            for k in range(4):
                opt.apply_gradients([(ds.constant(np.cos(np.arange(60.0) + k).astype(dtype)), var)])
            results.append((var.numpy(), opt.get_slot(var, "s").numpy()))
        (a, sa), (b, sb) = results
        assert a.dtype == b.dtype == dtype
        assert ulps(a, b, per_element=False) <= 4 and ulps(sa, sb) == 0


# ---------------------------------------------------------------------------- the rewrite
def test_scalar_subexpressions_are_computed_with_numpy_rules():
    from descend.optimizers.adam import adam_update

    src = fused.generate_source(adam_update)
    # 1 - beta_1 is computed once in Python (double, as NumPy's weak scalars), not in the kernel
    assert "return (1 - c_beta_1, 1 - c_beta_2, c_alpha, c_epsilon)" in src
    assert "1 - " not in src.split("def dense_float32")[1]
    fn = fused.kernel_for(adam_update).prologue
    assert fn(c_alpha=np.float32(0.1), c_beta_1=0.9, c_beta_2=0.999, c_epsilon=1e-7)[0] == 1 - 0.9


def _helper(x):
    return x * 2


def unfusable_rule(param, grad, *, learning_rate):
    return (param - learning_rate * _helper(grad),)


class Unfusable(Optimizer):
    update = staticmethod(unfusable_rule)


def test_unfusable_rule_warns_once_and_uses_numpy():
    with pytest.raises(ValueError, match="_helper"):
        fused.generate_source(unfusable_rule)
    fused.set_enabled(True)
    var = ds.Variable(np.ones(3, np.float32), name="w")
    with pytest.warns(fused.FusedKernelWarning, match="unfusable_rule.*_helper"):
        Unfusable(0.5).apply_gradients([(ds.constant(np.ones(3, np.float32)), var)])
    np.testing.assert_array_equal(var.numpy(), [0.0, 0.0, 0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Unfusable(0.5).apply_gradients([(ds.constant(np.ones(3, np.float32)), var)])  # no second warning
    np.testing.assert_array_equal(var.numpy(), [-1.0, -1.0, -1.0])


def test_disabled_uses_the_reference_path():
    fused.set_enabled(False)
    assert not fused.enabled()
    before = dict(fused.stats)
    var = ds.Variable(np.ones((4, 2), np.float32), name="w")
    opt = ds.optimizers.Adam(0.1, sparse_updates="lazy")
    opt.apply_gradients([(ds.constant(np.ones((4, 2), np.float32)), var)])
    opt.apply_gradients([(ds.IndexedSlices(ds.constant(np.ones((1, 2), np.float32)), ds.constant([2]), (4, 2)), var)])
    assert dict(fused.stats) == before
    np.testing.assert_allclose(var.numpy()[[0, 1, 3]], 0.9, rtol=1e-5)
    fused.set_enabled(True)
    opt.use_fused = False  # the per-optimizer switch
    opt.apply_gradients([(ds.constant(np.ones((4, 2), np.float32)), var)])
    assert dict(fused.stats) == before


def test_non_contiguous_or_other_dtypes_take_the_reference_path():
    fused.set_enabled(True)
    before = dict(fused.stats)
    var = ds.Variable(np.ones(5, np.float16), name="h")
    ds.optimizers.SGD(0.5).apply_gradients([(ds.constant(np.ones(5, np.float16)), var)])
    np.testing.assert_array_equal(var.numpy(), np.full(5, 0.5, np.float16))
    assert dict(fused.stats) == before


def _python(code: str, env: dict) -> dict:
    base = {k: v for k, v in os.environ.items() if k != "DESCEND_DISABLE_FUSED"}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env={**base, "PYTHONPATH": ROOT, **env}, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_fallback_without_numba_in_a_fresh_process():
    result = _python("""
        import sys, json, warnings
        warnings.simplefilter("error")
        sys.modules["numba"] = None  # import numba fails
        import numpy as np
        import descend as ds
        from descend.optimizers import fused
        var = ds.Variable(np.ones(3, np.float32), name="w")
        ds.optimizers.Adam(0.1).apply_gradients([(ds.constant(np.ones(3, np.float32)), var)])
        print(json.dumps({"enabled": fused.enabled(), "stats": dict(fused.stats), "w": var.numpy().tolist()}))
    """, {})
    assert result["enabled"] is False and result["stats"] == {}
    np.testing.assert_allclose(result["w"], 0.9, rtol=1e-5)


def test_environment_variable_disables_fusion():
    result = _python("""
        import sys, json
        import numpy as np
        import descend as ds
        from descend.optimizers import fused
        var = ds.Variable(np.ones(3, np.float32), name="w")
        ds.optimizers.Adam(0.1).apply_gradients([(ds.constant(np.ones(3, np.float32)), var)])
        print(json.dumps({"enabled": fused.enabled(), "stats": dict(fused.stats), "numba": "numba" in sys.modules}))
    """, {"DESCEND_DISABLE_FUSED": "1"})
    assert result == {"enabled": False, "stats": {}, "numba": False}


_FIRST_STEP = """
    import json, time
    t0 = time.perf_counter()
    import numpy as np
    import descend as ds
    from descend.optimizers import fused
    from descend.optimizers.adam import adam_update
    var = ds.Variable(np.ones(1000, np.float32), name="w")
    opt = ds.optimizers.Adam(0.1)
    t1 = time.perf_counter()
    opt.apply_gradients([(ds.constant(np.ones(1000, np.float32)), var)])
    t2 = time.perf_counter()
    stats = fused.kernel_for(adam_update).kernel("dense", np.dtype(np.float32)).stats
    print(json.dumps({"hits": sum(stats.cache_hits.values()), "misses": sum(stats.cache_misses.values()),
                      "fused": fused.stats["dense"], "first_step_s": t2 - t1, "import_s": t1 - t0}))
"""


def test_second_process_loads_kernels_from_the_cache(tmp_path):
    env = {"DESCEND_CACHE_DIR": str(tmp_path / "kernels")}
    cold = _python(_FIRST_STEP, env)
    warm = _python(_FIRST_STEP, env)
    assert cold["fused"] == warm["fused"] == 1
    assert cold["misses"] == 1 and cold["hits"] == 0  # compiled, then saved
    assert warm["misses"] == 0 and warm["hits"] == 1, warm  # loaded: nothing compiled
    files = sorted(p.name for p in (tmp_path / "kernels").iterdir())
    assert any(f.startswith("descend_kernel_adam_update_") and f.endswith(".py") for f in files), files
    print(f"first step: cold {cold['first_step_s']:.3f} s, warm {warm['first_step_s']:.3f} s")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_child_forked_after_a_parallel_update_still_updates():
    # GNU OpenMP cannot start threads in a forked child (numba aborts it): the child runs serial loops
    result = _python("""
        import json, os
        import numpy as np
        import descend as ds
        from descend.optimizers import fused

        def step():
            v = ds.Variable(np.ones(100_000, np.float32), name="w")
            ds.optimizers.Adam(0.1).apply_gradients([(ds.constant(np.ones(100_000, np.float32)), v)])
            return abs(float(v.numpy()[0]) - 0.9) < 1e-5

        parent = step()
        pid = os.fork()
        if pid == 0:
            os._exit(0 if step() and fused.stats["dense"] == 2 else 3)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"parent": parent, "child_exit": os.waitstatus_to_exitcode(status)}))
    """, {})
    assert result == {"parent": True, "child_exit": 0}


def test_closures_with_the_same_source_share_one_compiled_kernel():
    def make(scale):
        def rule(param, grad, *, learning_rate):
            return (param - learning_rate * grad * scale,)
        return rule

    a, b, c = make(2.0), make(2.0), make(3.0)
    ka, kb, kc = fused.kernel_for(a), fused.kernel_for(b), fused.kernel_for(c)
    assert ka is not kb and ka.module is kb.module  # one generated module for one source
    assert kc.module is not ka.module and kc.prologue(c_learning_rate=1.0)[-1] == 3.0  # captured numbers inlined
    x, g = np.ones(4), np.ones(4)
    assert ka.apply_dense([x], [g], [[]], [0.0], {"learning_rate": 0.25})
    assert kb.apply_dense([x], [g], [[]], [0.0], {"learning_rate": 0.25})
    assert ka.kernel("dense", np.dtype(np.float64)) is kb.kernel("dense", np.dtype(np.float64))
    np.testing.assert_array_equal(x, 0.0)


def test_methods_and_lambdas_are_not_fused():
    class Holder:
        def rule(self, param, grad, *, learning_rate):
            return (param - learning_rate * grad,)

    for rule in (Holder().rule, lambda param, grad, *, learning_rate: (param - learning_rate * grad,)):
        with pytest.raises(ValueError, match="not a plain function"):
            fused.generate_source(rule)


# ---------------------------------------------------------------------------- segment sums (sparse de-duplication)
def _segment_sum_both_ways(data, ids, n):
    fast = ds.unsorted_segment_sum(data, ids, n).numpy()
    previous = fused.set_enabled(False)
    try:
        reference = ds.unsorted_segment_sum(data, ids, n).numpy()  # np.add.at
    finally:
        fused.set_enabled(previous)
    return fast, reference


@pytest.mark.parametrize("mode", ["serial", "parallel"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("row_shape", [(), (7,), (3, 5)], ids=["scalars", "rows", "blocks"])
def test_segment_sum_kernel_is_bit_for_bit_np_add_at(mode, dtype, row_shape):
    _native.SERIAL_BELOW = 1 << 62 if mode == "serial" else 0
    _native.SEGMENT_SUM_BELOW = 0
    rng = np.random.default_rng(3)
    ids = rng.integers(0, 50, 400)
    scale = 10 ** rng.uniform(-3, 3, (400,) + (1,) * len(row_shape))  # magnitudes that make the order matter
    data = ds.constant((rng.standard_normal((400,) + row_shape) * scale).astype(dtype))
    fast, reference = _segment_sum_both_ways(data, ds.constant(ids), 60)  # segments 50..59 stay empty
    assert fast.dtype == reference.dtype and fast.shape == reference.shape == (60,) + row_shape
    np.testing.assert_array_equal(fast, reference)
    # 2-D segment ids (a prefix of the data's shape)
    fast, reference = _segment_sum_both_ways(ds.reshape(data, (20, 20) + row_shape),
                                             ds.constant(ids.reshape(20, 20)), 50)
    np.testing.assert_array_equal(fast, reference)
    # and de-duplication of a sparse gradient, which sums with it
    slices = ds.IndexedSlices(data, ds.constant(ids), (60,) + row_shape)
    got = ds.deduplicate(slices)
    np.testing.assert_array_equal(got.indices.numpy(), np.unique(ids))
    np.testing.assert_array_equal(got.values.numpy(), reference[np.unique(ids)])


def test_segment_sum_kernel_declines_what_it_does_not_take():
    _native.SEGMENT_SUM_BELOW = 0
    out = np.zeros((3, 2), np.float16)
    assert not _native.segment_sum(out, np.array([0, 2, 0]), np.ones((3, 2), np.float16))
    assert not _native.segment_sum(np.zeros(3, np.int64), np.array([0, 2, 0]), np.ones(3, np.int64))
    fused.set_enabled(False)
    assert not _native.segment_sum(np.zeros(3), np.array([0, 2, 0]), np.ones(3))
    assert (out == 0).all()
