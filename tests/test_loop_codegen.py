"""The one description of an elementwise loop (``LoopSpec``) and the one generator of its source
(``descend._native.codegen``), which the optimizers' kernels (through ``KernelSpec.loop``) and the compiled plan's
fused loops both use."""

import numpy as np
import pytest

from descend._native import codegen, cpu, loops, modules
from descend._native.backend import KernelSpec, LoopSpec


def _spec(**kw):
    base = dict(name="t", inputs=(("x", "full"),), literals=(), body=("v_y = v_x",), outputs=(("y", "v_y"),), sums=())
    base.update(kw)
    return LoopSpec(**base)


def _read(k, name, layout):
    return f"R{k}<{name},{layout}>"


def _write(k, name):
    return f"W{k}<{name}>"


@pytest.mark.parametrize("spec, options, expected", [
    # each input read once, in order, with the reader's expression
    (_spec(inputs=(("x", "full"), ("b", "row"), ("c", "col"), ("s", "scalar"))), {},
     ["v_x = R0<x,full>", "v_b = R1<b,row>", "v_c = R2<c,col>", "v_s = R3<s,scalar>", "v_y = v_x", "W0<y> = v_y"]),
    # after_read: statements right after an input's read (an optimizer's weight decay on its parameter)
    (_spec(inputs=(("p", "full"), ("g", "full"))), {"after_read": {"p": ["v_p = v_p - v_p * _d"]}},
     ["v_p = R0<p,full>", "v_p = v_p - v_p * _d", "v_g = R1<g,full>", "v_y = v_x", "W0<y> = v_y"]),
    # literals of the kernel's dtype are named for it, whole words only; fixed-dtype literals keep their name
    (_spec(literals=(("_L0", None, 0.5), ("_L1", None, 2), ("_z", "float32", 0.0)),
           body=("v_y = v_x * _L0 + _L1 - _z + _L10x",)), {"dtype": "float64"},
     ["v_x = R0<x,full>", "v_y = v_x * _L0_float64 + _L1_float64 - _z + _L10x", "W0<y> = v_y"]),
    # outputs: the value written is the named one (an optimizer's _o<k>), in output order
    (_spec(outputs=(("p", "_o0"), ("m", "_o1"))), {},
     ["v_x = R0<x,full>", "v_y = v_x", "W0<p> = _o0", "W1<m> = _o1"]),
    # column sums: the first row starts each sum, the others add in order
    (_spec(outputs=(), sums=(("db", "v_x"), ("dc", "v_y"))), {"sum_target": lambda k: f"S{k}[_j]"},
     ["v_x = R0<x,full>", "v_y = v_x", "if _i == 0:", "    S0[_j] = v_x", "    S1[_j] = v_y", "else:",
      "    S0[_j] += v_x", "    S1[_j] += v_y"]),
])
def test_element_lines(spec, options, expected):
    assert codegen.element_lines(spec, _read, _write, **options) == expected


@pytest.mark.parametrize("spec, options, message", [
    (_spec(literals=(("_L0", None, 1.0),)), {},
     r"LoopSpec 't' has literals of the kernel's dtype \(_L0\): element_lines needs the dtype of the kernel; "
     r"received dtype=None"),
    (_spec(sums=(("db", "v_x"),)), {},
     r"LoopSpec 't' has column sums \(db\): element_lines needs their sum_target; received None"),
])
def test_element_lines_refuses(spec, options, message):
    with pytest.raises(ValueError, match=message):
        codegen.element_lines(spec, _read, _write, **options)


def test_nest_and_constants():
    assert codegen.nest(["for a:", "for b:"], ["x", "y"]) == ["for a:", "    for b:", "        x", "        y"]
    spec = _spec(literals=(("_L0", None, 0.5), ("_z", "float32", 0.0)))
    assert codegen.constant_lines(spec, ["float32", "float64"]) == [
        "_L0_float32 = _T_float32(0.5)", "_L0_float64 = _T_float64(0.5)", "_z = np.float32(0.0)"]


ADAM_LIKE = KernelSpec(name="r", qualname="tests.r", arrays=("param", "grad", "m"), coefficients=("lr",), defaults=(),
                       prologue=(), scalars=(("s0", "c_lr"), ("s1", "1 - c_lr")), literals=(("_L0", 0.5),),
                       body=("v_a = v_m * s1 + v_grad * _L0", "_o0 = v_param - s0 * v_a", "_o1 = v_a"))


def test_kernel_spec_loop():
    """A rule's loop: its arrays read per element, its literals of the kernel's dtype, _o0 -> param, _o1 -> slot."""
    loop = ADAM_LIKE.loop
    assert loop == LoopSpec(name="r", inputs=(("param", "full"), ("grad", "full"), ("m", "full")),
                            literals=(("_L0", None, 0.5),), body=ADAM_LIKE.body,
                            outputs=(("param", "_o0"), ("m", "_o1")), sums=(), scalars=("s0", "s1"))


def test_optimizer_element_is_the_generators():
    """The dense chunk's element loop, with and without the weight decay, exactly (the text the kernels had
    before the two generators became one: their bits depend on it)."""
    assert cpu._elementwise(ADAM_LIKE, "float32", True) == [
        "for _j in range(_p.shape[0]):",
        "    v_param = _p[_j]",
        "    v_param = v_param - v_param * _d",
        "    v_grad = _g[_j]",
        "    v_m = _s0[_j]",
        "    v_a = v_m * s1 + v_grad * _L0_float32",
        "    _o0 = v_param - s0 * v_a",
        "    _o1 = v_a",
        "    _p[_j] = _o0",
        "    _s0[_j] = _o1",
    ]
    assert cpu._elementwise(ADAM_LIKE, "float64", False)[1:4] == [
        "    v_param = _p[_j]", "    v_grad = _g[_j]", "    v_m = _s0[_j]"]
    text = cpu.kernel_source(ADAM_LIKE)
    assert "_L0_float32 = _T_float32(0.5)" in text and "_L0_float64 = _T_float64(0.5)" in text
    for kind in ("dense", "rows", "replay"):
        for t in ("float32", "float64"):
            assert f"def {kind}_{t}(" in text


def test_plan_loop_source():
    spec = LoopSpec(name="bias_relu_colsum", inputs=(("x", "full"), ("b", "row")),
                    literals=(("_L0", "float32", 0.0),),
                    body=("v_a = v_x + v_b", "v_y = v_a if (v_a > _L0 or v_a != v_a) else _L0"),
                    outputs=(("y", "v_y"),), sums=(("db", "v_a"),))
    text = loops.loop_source(spec)
    assert text.endswith("\n".join([
        "_L0 = np.float32(0.0)",
        "",
        "",
        "def loop(_R, _C, _I0, _I1, _O0, _S0):",
        "    for _i in range(_R):",
        "        for _j in range(_C):",
        "            v_x = _I0[_i, _j]",
        "            v_b = _I1[_j]",
        "            v_a = v_x + v_b",
        "            v_y = v_a if (v_a > _L0 or v_a != v_a) else _L0",
        "            _O0[_i, _j] = v_y",
        "            if _i == 0:",
        "                _S0[_j] = v_a",
        "            else:",
        "                _S0[_j] += v_a",
    ]) + "\n")
    assert "Outputs: _O0 = y" in text and "Column sums: _S0 = db" in text


def test_plan_loop_runs():
    pytest.importorskip("numba")
    spec = LoopSpec(name="scale_colsum", inputs=(("x", "full"), ("c", "col"), ("s", "scalar")),
                    literals=(("_L0", "float64", 2.0),), body=("v_y = (v_x * v_c + v_s) * _L0",),
                    outputs=(("y", "v_y"),), sums=(("t", "v_y"),))
    x = np.arange(12, dtype=np.float64).reshape(4, 3)
    c, s = np.array([1.0, -1.0, 0.5, 3.0]), np.array([0.25])
    y, t = np.empty_like(x), np.empty(3)
    loops.compile_loop(spec)(4, 3, x, c, s, y, t)
    want = (x * c[:, None] + s[0]) * 2.0
    np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(t, ((want[0] + want[1]) + want[2]) + want[3])


def test_one_version_keys_every_generated_module(monkeypatch):
    """Both kinds of module name the one generator's version in their text and load under it (the disk cache key)."""
    seen = []
    monkeypatch.setattr(codegen, "CODEGEN_VERSION", 987)
    monkeypatch.setattr(modules, "load", lambda source, name, version: seen.append((version, source)) or (None, False))
    assert "(code generation version 987)" in cpu.kernel_source(ADAM_LIKE)
    assert "(code generation version 987)" in loops.loop_source(_spec())
    cpu._load_module("text", "name")
    assert seen == [(987, "text")]
