"""The kernel backend seam: the pure rewriter (rule -> KernelSpec) on its own, the
numba CPU backend on hand-written specs, and the bounded rule cache.

The rewriter tests need no numba: they inspect the intermediate form, and run
it with NumPy scalars (an interpreter of the body) against the rule on arrays.
"""

from __future__ import annotations

import ast
import gc
import json
import os
import re
import subprocess
import sys
import textwrap
import warnings
import weakref

import numpy as np
import pytest
from optimizer_cases import CASES

import descend as ds
from descend._native.backend import Backend, KernelSpec, RuleKernel
from descend.optimizers.adam import adam_update
from descend.optimizers.rewrite import UnsupportedRule, rewrite

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_TRANSCENDENTAL = re.compile(r"np\.(power|exp|expm1|log|log1p|tanh)\(")
EPSILON = 1e-7  # a module-level number a rule reads


# ---------------------------------------------------------------------------- the intermediate form
def test_adam_rule_becomes_a_loop_body_scalar_arguments_and_no_literals():
    spec = rewrite(adam_update)
    assert spec.name == "adam_update" and spec.qualname == "descend.optimizers.adam.adam_update"
    assert spec.arrays == ("param", "grad", "m", "v") and spec.slots == ("m", "v") and spec.n_slots == 2
    assert spec.coefficients == ("alpha", "beta_1", "beta_2", "epsilon") and spec.defaults == ()
    # 1 - beta is computed once in Python (NumPy's weak scalars: double, rounded once), not per element
    assert spec.prologue == ()
    assert spec.scalars == (("s0", "1 - c_beta_1"), ("s1", "1 - c_beta_2"), ("s2", "c_alpha"), ("s3", "c_epsilon"))
    assert spec.literals == ()
    assert spec.body == (
        "v_m = v_m + (v_grad - v_m) * s0",
        "v_v = v_v + (v_grad * v_grad - v_v) * s1",
        "_o0 = v_param - v_m * s2 / (np.sqrt(v_v) + s3)",
        "_o1 = v_m",
        "_o2 = v_v",
    )
    prologue = spec.make_prologue()
    assert prologue(c_alpha=0.5, c_beta_1=0.9, c_beta_2=0.999, c_epsilon=1e-7) == (1 - 0.9, 1 - 0.999, 0.5, 1e-7)


def scalar_locals_rule(param, grad, acc, *, lr, rho, clip=2.0):
    """A docstring, then scalar locals, a reassigned one, a swap and a branch."""
    keep = 1 - rho
    step = lr * keep
    step = step * 2  # a second version of a scalar local
    a, b = grad, -grad  # both sides first
    acc = acc * rho + a * b * keep
    if acc > clip:
        step = step * 0.5  # assigned in a branch: a loop local from here on
    else:
        pass
    return param - step * grad / np.sqrt(np.abs(acc) + EPSILON), acc


def test_scalar_locals_go_to_the_prologue_and_branches_materialize_them():
    spec = rewrite(scalar_locals_rule)
    assert spec.coefficients == ("lr", "rho", "clip") and spec.defaults == (("clip", 2.0),)
    assert spec.prologue == ("p1_keep = 1 - c_rho", "p1_step = c_lr * p1_keep", "p2_step = p1_step * 2")
    assert spec.scalars == (("s0", "c_rho"), ("s1", "p1_keep"), ("s2", "p2_step"), ("s3", "c_clip"),
                            ("s4", "1e-07"))  # the module-level EPSILON, inlined
    assert spec.literals == (("_L0", 0.5),)
    assert spec.body == (
        "v__t1 = v_grad",
        "v__t2 = -v_grad",
        "v_a = v__t1",
        "v_b = v__t2",
        "v_acc = v_acc * s0 + v_a * v_b * s1",
        "v_step = s2",  # the scalar local becomes a loop local before the branch
        "if v_acc > s3:",
        "    v_step = v_step * _L0",  # (an `else: pass` leaves nothing)
        "_o0 = v_param - v_step * v_grad / np.sqrt(np.abs(v_acc) + s4)",
        "_o1 = v_acc",
    )
    assert spec.make_prologue()(c_lr=0.5, c_rho=0.75, c_clip=2.0) == (0.75, 0.25, 0.25, 2.0, 1e-7)


def rewritten_operators_rule(param, grad, s, *, b):
    x = grad**2 + np.abs(param) ** 0.5 + grad**3
    y = np.where(x > 1, x * b, -x) + 1 + 1.0 + 2
    return param - y * True, np.where(grad < 0, s + 1, s - 1)


def test_powers_where_and_literals_are_rewritten_for_scalar_code():
    spec = rewrite(rewritten_operators_rule)
    # x ** 2 -> np.square, x ** 0.5 -> np.sqrt (NumPy's array forms); other powers stay; np.where -> if-expression
    assert spec.body[0] == "v_x = np.square(v_grad) + np.sqrt(np.abs(v_param)) + v_grad ** _L0"
    assert spec.body[1] == "v_y = (v_x * s0 if v_x > _L1 else -v_x) + _L1 + _L2 + _L3"
    assert spec.body[2] == "_o0 = v_param - v_y * True"  # booleans stay as they are
    assert spec.body[3] == "_o1 = v_s + _L1 if v_grad < _L4 else v_s - _L1"
    # one constant per (type, value): 1 and 1.0 are two constants, so each keeps its type's value
    assert spec.literals == (("_L0", 3), ("_L1", 1), ("_L2", 1.0), ("_L3", 2), ("_L4", 0))
    assert "where" not in " ".join(spec.body) and "**" not in spec.body[1]


def _helper(x):
    return x * 2


def rule_calls_helper(param, grad, *, lr):
    return (param - lr * _helper(grad),)


def rule_reduces(param, grad, *, lr):
    return (param - lr * np.sum(grad),)


def rule_indexes(param, grad, *, lr):
    return (param - lr * grad[0],)


def rule_loops(param, grad, *, lr):
    for _ in range(2):
        param = param - lr * grad
    return (param,)


def rule_returns_a_name(param, grad, *, lr):
    out = (param - lr * grad,)
    return out


def rule_returns_too_few(param, grad, m, *, lr):
    return (param - lr * grad,)


def rule_reads_a_string(param, grad, *, lr):
    return (param - lr * grad * len("ab"),)


def rule_inverts(param, grad, *, lr):
    return (param - lr * ~grad,)


def rule_keyword_call(param, grad, *, lr):
    return (np.maximum(param, grad, out=None),)


def rule_two_argument_where(param, grad, *, lr):
    return (np.where(grad > 0, param),)


def rule_star_args(param, grad, *slots, lr):
    return (param - lr * grad,)


def rule_one_array(param, *, lr):
    return (param * lr,)


def rule_unknown_name(param, grad, *, lr):
    return (param - lr * grad * undefined_number,)  # noqa: F821


def rule_subscript_target(param, grad, *, lr):
    param[0] = 1
    return (param,)


def _decorate(f):
    return f


@_decorate
def rule_decorated(param, grad, *, lr):
    return (param - lr * grad,)


class _Holder:
    def rule(self, param, grad, *, lr):
        return (param - lr * grad,)


@pytest.mark.parametrize("rule, reason", [
    (rule_calls_helper, r"it calls _helper \(only numpy functions are fused\)"),
    (rule_reduces, "it calls np.sum, which is not in ALLOWED_FUNCTIONS"),
    (rule_indexes, r"it uses the expression `grad\[0\]`"),
    (rule_loops, "it uses the statement `for _ in range"),
    (rule_returns_a_name, r"it does not return a literal tuple \(new_param, \*new_slots\)"),
    (rule_returns_too_few, "it returns 1 values for 2 arrays"),
    (rule_reads_a_string, "it calls len"),
    (rule_inverts, "it uses `~`"),
    (rule_keyword_call, "with keyword or starred arguments"),
    (rule_two_argument_where, "np.where without three arguments"),
    (rule_star_args, r"\*args, \*\*kwargs or positional defaults"),
    (rule_one_array, r"it does not take \(param, grad, \*slots\)"),
    (rule_unknown_name, "it reads `undefined_number`, which is neither an argument"),
    (rule_subscript_target, r"it assigns to `param\[0\]`"),
    (rule_decorated, r"it has a decorator \(_decorate\)"),
    (_Holder().rule, "it is a method, not a plain function"),
    (lambda param, grad, *, lr: (param - lr * grad,), "it is a lambda, not a plain function"),
], ids=lambda x: getattr(x, "__name__", None) if callable(x) else None)
def test_what_the_rewrite_does_not_support_is_named(rule, reason):
    with pytest.raises(UnsupportedRule, match=reason) as info:
        rewrite(rule)
    assert isinstance(info.value, ValueError)
    assert str(info.value).startswith(f"cannot fuse {rule.__qualname__}: ")
    assert re.search(reason, info.value.reason) and info.value.rule_name == rule.__qualname__


def test_a_spec_must_name_param_and_grad():
    with pytest.raises(ValueError, match=r"KernelSpec.arrays must name \(param, grad, \*slots\); received \('p',\)"):
        KernelSpec(name="r", qualname="r", arrays=("p",), coefficients=(), defaults=(), prologue=(), scalars=(),
                   literals=(), body=())


# ---------------------------------------------------------------------------- the form, run without numba
def _rules():
    rules = {}
    for case in CASES:
        opt = case.make()
        if not opt.rule.is_hook and not opt.rule.per_tensor:
            rules.setdefault(opt.rule.fn, case.id)
    return rules


def _element_function(spec: KernelSpec):
    """The spec's body as a Python function of one element of each array, the scalar arguments
    and the literals, returning the outputs: what a backend's loop body computes."""
    names = [f"v_{a}" for a in spec.arrays] + [a for a, _ in spec.scalars] + [n for n, _ in spec.literals]
    outs = ", ".join(f"_o{k}" for k in range(len(spec.arrays) - 1))
    src = f"def element({', '.join(names)}):\n" + "".join(f"    {line}\n" for line in spec.body)
    namespace = {"np": np}
    exec(src + f"    return ({outs},)\n", namespace)
    return namespace["element"]


def _interpret(spec: KernelSpec, dtype, arrays: list, coefficients: dict) -> list:
    """Run the spec's body element by element on NumPy scalars of ``dtype``."""
    element = _element_function(spec)
    scalars = RuleKernel(spec).scalars(coefficients, np.dtype(dtype))
    literals = [np.dtype(dtype).type(v) for _, v in spec.literals]
    out = [np.empty_like(arrays[0]) for _ in range(len(spec.arrays) - 1)]
    for j in range(arrays[0].size):
        for o, value in zip(out, element(*[a[j] for a in arrays], *scalars, *literals)):
            o[j] = value
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["f32", "f64"])
def test_every_shipped_rule_interpreted_from_its_spec_matches_the_rule_on_arrays(dtype):
    rules = _rules()
    assert len(rules) >= 15
    rng = np.random.default_rng(5)
    for rule, case_id in rules.items():
        spec = rewrite(rule)
        coefficients = {c: float(rng.uniform(0.1, 0.9)) for c in spec.coefficients}
        arrays = [rng.standard_normal(64).astype(dtype)]  # param
        arrays.append((rng.standard_normal(64) * 0.5).astype(dtype))  # grad
        arrays += [np.abs(rng.standard_normal(64)).astype(dtype) + dtype(0.125) for _ in spec.slots]
        with np.errstate(all="ignore"):
            expected = rule(*[a.copy() for a in arrays], **coefficients)
            got = _interpret(spec, dtype, arrays, coefficients)
        assert len(got) == len(expected), case_id
        for g, e in zip(got, expected):
            e = np.asarray(e, dtype)
            if _TRANSCENDENTAL.search(" ".join(spec.body)):  # NumPy's SIMD pow/exp/log vs its scalar ones
                np.testing.assert_allclose(g, e, rtol=1e-5 if dtype == np.float32 else 1e-12, err_msg=case_id)
            else:  # + - * / sqrt and comparisons: bit for bit
                np.testing.assert_array_equal(g, e, err_msg=case_id)
                assert g.dtype == dtype


def _python(code: str, env: dict | None = None) -> dict:
    base = {k: v for k, v in os.environ.items() if k != "DESCEND_DISABLE_FUSED"}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                         env={**base, "PYTHONPATH": ROOT, **(env or {})}, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_rewriter_runs_without_numba():
    result = _python("""
        import json, sys
        sys.modules["numba"] = None  # import numba fails
        from descend.optimizers.rewrite import rewrite
        from descend.optimizers import adam, ftrl, sgd
        specs = [rewrite(r) for r in (adam.adam_update, ftrl.ftrl_update, sgd.momentum_update)]
        print(json.dumps({"bodies": [len(s.body) for s in specs], "prologue": specs[0].make_prologue()(
            c_alpha=1.0, c_beta_1=0.5, c_beta_2=0.25, c_epsilon=0.0), "numba": sys.modules["numba"] is not None}))
    """)
    assert result["numba"] is False and all(n > 0 for n in result["bodies"]) and result["prologue"] == [0.5, 0.75, 1.0, 0.0]
    # (the numba backend registers itself with backend.register_default when imported)
    for path, top_level in (("descend/optimizers/rewrite.py", False), ("descend/_native/backend.py", True)):
        imported = _imports(path, top_level)
        assert not {m for m in imported if "numba" in m or "jit" in m or "cpu" in m}, (path, imported)


def _imports(path: str, top_level: bool = False) -> set:
    """The modules (and names) ``path`` imports: anywhere, or only when it is imported (``top_level``)."""
    tree = ast.parse(open(os.path.join(ROOT, path)).read())
    nodes = list(ast.iter_child_nodes(tree)) if top_level else list(ast.walk(tree))
    names = {a.name for n in nodes if isinstance(n, ast.Import) for a in n.names}
    for n in nodes:
        if isinstance(n, ast.ImportFrom):
            names |= {f"{'.' * n.level}{n.module or ''}"} | {f"{'.' * n.level}{n.module or ''}.{a.name}" for a in n.names}
    return names


def test_the_optimizers_import_the_backend_never_the_reverse():
    for name in ("backend.py", "cpu.py", "jit.py", "__init__.py"):
        imported = _imports(f"descend/_native/{name}")
        assert not {m for m in imported if "optimizers" in m}, (name, imported)
    assert {".._native.backend", ".._native.cpu"} <= _imports("descend/optimizers/fused.py")


# ---------------------------------------------------------------------------- the numba CPU backend
numba = pytest.importorskip("numba")
from descend._native import cpu  # noqa: E402
from descend.optimizers import fused  # noqa: E402


def _spec(body, scalars=(("s0", "c_lr"),), literals=(), arrays=("param", "grad")):
    return KernelSpec(name="hand_written", qualname="tests.hand_written", arrays=arrays, coefficients=("lr",),
                      defaults=(), prologue=(), scalars=scalars, literals=literals, body=body)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_hand_written_spec_compiles_and_launches_dense_and_rows(dtype):
    # a spec no rule produced: the backend depends on the form only
    spec = _spec(("v_m = v_m * _L0 + v_grad", "_o0 = v_param - v_m * s0", "_o1 = v_m"),
                 literals=(("_L0", 0.5),), arrays=("param", "grad", "m"))
    rule = cpu.NumbaCPU().compile(spec)
    assert rule.n_slots == 1 and rule.coefs == ("lr",)
    p, g, m = np.arange(6, dtype=dtype), np.ones(6, dtype), np.full(6, 2, dtype)
    assert rule.apply_dense([p], [g], [[m]], [0.0], {"lr": 0.25})
    np.testing.assert_array_equal(m, np.full(6, 2.0, dtype))
    np.testing.assert_array_equal(p, np.arange(6, dtype=dtype) - dtype(0.5))
    P, G, M = np.zeros((4, 3), dtype), np.ones((2, 3), dtype), np.zeros((4, 3), dtype)
    assert rule.apply_rows(P, G, [M], {"lr": 1.0}, np.array([3, 1]), 0.0)
    np.testing.assert_array_equal(P[:, 0], [0, -1, 0, -1])
    assert not rule.apply_dense([p], [g.astype(np.float16)], [[m]], [0.0], {"lr": 1.0})  # declined: unchanged
    np.testing.assert_array_equal(p, np.arange(6, dtype=dtype) - dtype(0.5))
    assert not rule.apply_dense([p], [g], [[m]], [0.0], {"rate": 1.0})  # other coefficients: the NumPy path


def test_kernel_text_holds_no_rule_name_nor_prologue():
    spec = rewrite(adam_update)
    text = cpu.kernel_source(spec)
    assert "adam_update" not in text and "def prologue" not in text and "1 - c_beta_1" not in text
    full = fused.generate_source(adam_update)
    assert full.startswith(spec.prologue_source()) and full.endswith(text)


def test_rules_differing_only_in_captured_numbers_share_one_compiled_kernel():
    def make(scale):
        def rule(param, grad, *, learning_rate):
            return (param - learning_rate * grad * scale,)
        return rule

    before = cpu.compiled_modules()
    rules = [make(float(k)) for k in range(1, 6)]
    kernels = [fused.kernel_for(r) for r in rules]
    assert cpu.compiled_modules() - before <= 1
    assert len({id(k.kernel("dense", np.dtype(np.float64))) for k in kernels}) == 1
    for k, kernel in enumerate(kernels, start=1):
        x = np.ones(3)
        assert kernel.apply_dense([x], [np.ones(3)], [[]], [0.0], {"learning_rate": 0.5})
        np.testing.assert_array_equal(x, 1 - 0.5 * k)


def test_the_backend_finds_the_first_nonfinite_array():
    backend = cpu.NumbaCPU()
    assert backend.find_nonfinite([np.ones(3), np.array([1.0, np.inf]), np.array([np.nan])]) == 1
    assert backend.find_nonfinite([np.ones(3, np.float32)]) == -1
    assert backend.find_nonfinite([np.ones(3, np.int32)]) is None


@pytest.mark.parametrize("parts", [1, 2, 3])
def test_a_part_table_gives_each_thread_its_share_of_every_tensor_once(parts):
    pytest.importorskip("numba")
    from descend._native import blas, jit

    shapes = [(784, 256), (256,), (256, 10), (10,), (0, 4), (3,), (70, 3)]
    bounds = np.array([blas.thread_parts(s, parts) for s in shapes], np.int64)
    table = jit.part_table(bounds, 1000)
    assert table.shape[0] % parts == 0
    run = table.shape[0] // parts  # what a static schedule gives each thread
    for t, shape in enumerate(shapes):
        covered = np.zeros(int(np.prod(shape)), np.int64)
        for i in range(parts):
            for tensor, start, stop in table[i * run:(i + 1) * run]:
                if tensor == t and stop > start:
                    assert bounds[t, i] <= start and stop <= bounds[t, i + 1] and stop - start <= 1000
                    covered[start:stop] += 1
        assert (covered == 1).all()
    # the nonfinite check over such a table names the first tensor holding one, whichever part found it
    arrays = [np.ones(s, np.float32) for s in shapes]
    arrays[2][200, 3] = np.nan   # (in the last part)
    arrays[6][1, 1] = np.inf     # (in the first part)
    objects = np.array([id(a) for a in arrays], np.int64)
    assert jit.first_nonfinite(objects, table, 4, False) == 2
    arrays[2][200, 3] = 0
    assert jit.first_nonfinite(objects, table, 4, True) == 6


@pytest.mark.parametrize("shapes", [[(784, 256), (256,), (256, 10), (10,)], [(10000,)] * 1000, [(500000,)] * 20,
                                    [(10_000_000,)], [(3, 0), (0,), (7,)], [(100, 100)] * 50 + [(4096, 64)]])
@pytest.mark.parametrize("parts", [1, 2, 3])
def test_thread_bounds_split_large_weights_at_the_products_cuts_and_keep_small_tensors_whole(shapes, parts):
    from descend._native import blas

    bounds = cpu.thread_bounds(shapes, parts)
    sizes = [int(np.prod(s)) for s in shapes]
    assert bounds.shape == (len(shapes), parts + 1)
    assert (bounds[:, 0] == 0).all() and (bounds[:, -1] == sizes).all() and (np.diff(bounds, axis=1) >= 0).all()
    owner = []  # the part a whole tensor went to, in tensor order
    for shape, size, b in zip(shapes, sizes, bounds.tolist()):
        if parts > 1 and 4 * parts * size > sum(sizes):
            assert b == blas.thread_parts(shape, parts)  # (a weight's rows where a split product cuts them)
        else:
            shares = np.diff(b)
            assert (shares > 0).sum() <= 1
            owner.append(int(np.argmax(shares)))
    assert owner == sorted(owner)  # whole tensors in runs of consecutive tensors
    load = np.diff(bounds, axis=1).sum(axis=0)
    if len(shapes) >= 20:  # many tensors: the threads get about equal shares
        assert load.max() - load.min() <= 0.1 * sum(sizes)


# ---------------------------------------------------------------------------- a second backend through the seam
class _InterpretedRule(RuleKernel):
    """A backend's compiled rule that runs the spec's body per element in Python (NumPy scalars)."""

    def __init__(self, spec, launches):
        super().__init__(spec)
        self.element = _element_function(spec)
        self.launches = launches

    def _ready(self, arrays, dtype):
        return dtype in (np.float32, np.float64) and all(
            a.dtype == dtype and a.flags.c_contiguous and a.flags.writeable for a in arrays)

    def _run(self, p, g, slots, decay, args, literals):
        dtype = p.dtype
        d = dtype.type(decay)
        for j in range(p.shape[0]):
            v = p[j]
            if d != 0:
                v = v - v * d
            outs = self.element(v, g[j], *[s[j] for s in slots], *args, *literals)
            for dst, value in zip((p, *slots), outs):
                dst[j] = value

    def apply_dense(self, params, grads, slots, decays, coefficients):
        dtype = params[0].dtype
        if not all(self._ready([p, g, *ss], dtype) for p, g, ss in zip(params, grads, slots)):
            return False
        args = self.scalars(coefficients, dtype)
        if args is None:
            return False
        literals = [dtype.type(v) for _, v in self.spec.literals]
        for p, g, ss, d in zip(params, grads, slots, decays):
            self._run(p.reshape(-1), g.reshape(-1), [s.reshape(-1) for s in ss], d, args, literals)
        self.launches["dense"] += 1
        return True

    def apply_rows(self, param, grad, slots, coefficients, idx, decay=0.0):
        dtype = param.dtype
        if not self._ready([param, grad, *slots], dtype) or not param.size:
            return False
        args = self.scalars(coefficients, dtype)
        if args is None:
            return False
        literals = [dtype.type(v) for _, v in self.spec.literals]
        width = param.size // param.shape[0]
        P, G = param.reshape(-1, width), grad.reshape(-1, width)
        S = [s.reshape(-1, width) for s in slots]
        for r, row in enumerate(idx):
            self._run(P[row], G[r], [s[row] for s in S], decay, args, literals)
        self.launches["rows"] += 1
        return True


class _Interpreter(Backend):
    name = "python-interpreter"

    def __init__(self):
        self.launches = {"dense": 0, "rows": 0}

    def available(self):
        return True

    def compile(self, spec):
        return _InterpretedRule(spec, self.launches)

    def source(self, spec):
        return spec.prologue_source() + "\n".join(spec.body)

    def find_nonfinite(self, arrays):
        return None  # not taken: the optimizer checks with NumPy


@pytest.mark.parametrize("make", [lambda: ds.optimizers.SGD(0.1, momentum=0.875, weight_decay=0.25),
                                  lambda: ds.optimizers.Adam(0.01, sparse_updates="lazy")], ids=["SGD", "Adam"])
def test_another_backend_plugged_into_the_seam_runs_the_optimizers(make):
    def run(backend, use_fused):
        previous = fused.set_backend(backend)
        try:
            ds.clear_session()
            rng = np.random.default_rng(2)
            var = ds.Variable(rng.standard_normal((6, 4)).astype(np.float32), name="w")
            opt = make()
            opt.use_fused = use_fused
            for _ in range(3):
                opt.apply_gradients([(ds.constant(rng.standard_normal((6, 4)).astype(np.float32)), var)])
                rows = ds.IndexedSlices(ds.constant(rng.standard_normal((2, 4)).astype(np.float32)),
                                        ds.constant([4, 1]), (6, 4))
                if opt.sparse_updates == "lazy":
                    opt.apply_gradients([(rows, var)])
            return [var.numpy()] + [opt.get_slot(var, n).numpy() for n in opt.get_slot_names()], opt
        finally:
            fused.set_backend(previous)

    reference, _ = run(None, False)
    interpreter = _Interpreter()
    got, opt = run(interpreter, True)
    assert interpreter.launches["dense"] == 3
    assert interpreter.launches["rows"] == (3 if opt.sparse_updates == "lazy" else 0)
    for a, b in zip(got, reference):
        np.testing.assert_array_equal(a, b)
    assert fused.kernel_for(opt.rule.fn).__class__.__name__ == "NumbaRule"  # the default is back


def test_set_backend_checks_its_argument():
    with pytest.raises(TypeError, match=r"`backend` must be a descend._native.backend.Backend or None; received 3"):
        fused.set_backend(3)


# ---------------------------------------------------------------------------- the bounded rule cache
def _fresh_rule():
    def rule(param, grad, *, learning_rate):
        return (param - learning_rate * grad,)
    return rule


def test_a_cache_entry_leaves_with_its_rule():
    fused.clear_cache()
    rule = _fresh_rule()
    kernel = fused.kernel_for(rule)
    assert kernel is not None and fused.kernel_for(rule) is kernel
    assert fused.cache_info()["rules"] == 1
    gone = weakref.ref(kernel)
    del rule, kernel
    gc.collect()
    assert fused.cache_info()["rules"] == 0 and gone() is None


def test_the_cache_keeps_at_most_max_rules_least_recently_used_first_out(monkeypatch):
    fused.clear_cache()
    monkeypatch.setattr(fused, "MAX_RULES", 3)
    rules = [_fresh_rule() for _ in range(5)]
    kernels = [fused.kernel_for(r) for r in rules[:3]]
    assert fused.kernel_for(rules[0]) is kernels[0]  # rules[0] is now the most recently used
    fused.kernel_for(rules[3])
    fused.kernel_for(rules[4])
    assert fused.cache_info() == {"rules": 3, "capacity": 3}
    assert fused.kernel_for(rules[0]) is kernels[0]  # kept
    again = fused.kernel_for(rules[1])  # evicted: rebuilt, sharing the compiled kernel
    assert again is not kernels[1]
    assert again.kernel("dense", np.dtype(np.float64)) is kernels[1].kernel("dense", np.dtype(np.float64))


class _NoWeakref:
    __slots__ = ()

    def __call__(self, param, grad):
        return (param,)


def test_an_unfusable_rule_is_cached_as_none_and_warns_once():
    fused.clear_cache()
    with pytest.warns(fused.FusedKernelWarning, match="rule_calls_helper.*_helper"):
        assert fused.kernel_for(rule_calls_helper) is None
    fused.clear_cache()  # forgotten, rebuilt: still one warning per function
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert fused.kernel_for(rule_calls_helper) is None
        assert fused.kernel_for(_NoWeakref()) is None  # cannot be weakly referenced: not fused, no warning
    assert fused.cache_info()["rules"] == 1


_CLASSES = '''
import gc, json, os, sys
import numpy as np
import descend as ds
from descend._native import cpu
from descend.optimizers import Optimizer, Slot, fused


def rss_mb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def make_class(k):
    scale = 1.0 + k / 1000  # a number the rule captures: it reaches the kernel as a scalar argument

    def rule(param, grad, m, *, learning_rate, momentum):
        m = m * momentum + grad * scale
        return param - m * learning_rate, m

    class Scaled(Optimizer):
        slots = (Slot("m", 0.0),)
        update = staticmethod(rule)

        def coefficients(self, step, hyper, dtype):
            return {"learning_rate": hyper["learning_rate"], "momentum": 0.9}

    Scaled.__name__ = Scaled.__qualname__ = f"Scaled{k}"
    return Scaled


def once(k):
    v = ds.Variable(np.ones((64, 8), np.float32), name="w")
    opt = make_class(k)(0.1, sparse_updates="lazy")
    opt.apply_gradients([(ds.constant(np.ones((64, 8), np.float32)), v)])
    rows = ds.IndexedSlices(ds.constant(np.ones((2, 8), np.float32)), ds.constant([1, 5]), (64, 8))
    opt.apply_gradients([(rows, v)])
    ds.clear_session()
    return float(v.numpy()[1, 0])


for k in range(20):  # warm-up: the kernels compile (or load), allocator pools fill
    once(-1 - k)
gc.collect()
before, modules, stats = rss_mb(), cpu.compiled_modules(), dict(fused.stats)
values = [once(k) for k in range(int(sys.argv[1]))]
gc.collect()
print(json.dumps({"before": before, "after": rss_mb(), "new_modules": cpu.compiled_modules() - modules,
                  "dense": fused.stats["dense"] - stats["dense"], "rows": fused.stats["rows"] - stats["rows"],
                  "rules": fused.cache_info()["rules"], "first": values[0], "last": values[-1]}))
'''


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="reads RSS from /proc")
def test_rss_stays_flat_over_200_optimizer_classes_created_and_dropped(tmp_path):
    script = tmp_path / "classes.py"  # a file: a rule's source must be readable to be fused
    script.write_text(_CLASSES)
    base = {k: v for k, v in os.environ.items() if k != "DESCEND_DISABLE_FUSED"}
    out = subprocess.run([sys.executable, str(script), "200"], capture_output=True, text=True,
                         env={**base, "PYTHONPATH": ROOT}, timeout=600)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"RSS {result['before']:.1f} -> {result['after']:.1f} MB over 200 classes")
    assert result["dense"] == result["rows"] == 200  # every class's update was fused
    assert result["new_modules"] == 0  # no compile after the first class
    assert result["rules"] == 0  # dropped classes leave no entry
    # 1 - 0.1 * (1 + k/1000), then the lazy row step: the captured number reached each class's kernel
    assert result["first"] != result["last"]
    assert result["after"] - result["before"] < 10.0


_FORK_WHILE_LOCKED = '''
import json, os, signal, threading
import numpy as np
from descend._native import cpu, modules
from descend.optimizers import fused


def make(scale):
    def rule(param, grad, *, learning_rate):
        return (param - learning_rate * grad * scale,)
    return rule


x = np.ones(3)
fused.kernel_for(make(1.0)).apply_dense([x], [np.ones(3)], [[]], [0.0], {"learning_rate": 0.5})
held, release = threading.Event(), threading.Event()


def hold():  # another thread is building a rule when the main thread forks
    with fused._rules_lock, modules.lock():
        held.set()
        release.wait()


thread = threading.Thread(target=hold)
thread.start()
held.wait()
pid = os.fork()
if pid == 0:
    signal.alarm(60)  # a child that deadlocks dies of SIGALRM
    kernel = fused.kernel_for(make(2.0))
    y = np.ones(3)
    ok = kernel.apply_dense([y], [np.ones(3)], [[]], [0.0], {"learning_rate": 0.5})
    os._exit(0 if ok and y[0] == 0.0 else 3)
release.set()
thread.join()
_, status = os.waitpid(pid, 0)
print(json.dumps({"child_exit": os.waitstatus_to_exitcode(status), "parent": float(x[0])}))
'''


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_child_forked_while_another_thread_builds_a_rule_can_build_rules(tmp_path):
    script = tmp_path / "fork_locked.py"
    script.write_text(_FORK_WHILE_LOCKED)
    base = {k: v for k, v in os.environ.items() if k != "DESCEND_DISABLE_FUSED"}
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         env={**base, "PYTHONPATH": ROOT}, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"child_exit": 0, "parent": 0.5}


def test_specs_compare_by_kernel_not_by_name():
    def make(scale):
        def rule(param, grad, *, learning_rate):
            return (param - learning_rate * grad * scale,)
        return rule

    def other_name(param, grad, *, learning_rate):
        return (param - learning_rate * grad * 2.0,)

    a, b, c = rewrite(make(2.0)), rewrite(make(2.0)), rewrite(make(3.0))
    assert a == b and a != c  # 2.0 against 3.0: another prologue (the kernel text is the same)
    assert cpu.kernel_source(a) == cpu.kernel_source(c)
    d = rewrite(other_name)  # a literal 2.0 in the body: another kernel
    assert d.name == "other_name" and d != a and d.literals == (("_L0", 2.0),)
