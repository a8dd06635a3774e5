"""The compiled plan's runner: what a call of a compiled step costs beyond its ops, with the eager step's bits.

A reduction over the last axis of an array the plan holds calls the backend's row kernel on views made once
(``reduce_last``'s choice made at plan time), and NumPy's reduce where the kernel hands a row back (an infinity, a
NaN, a maximum of zero): the eager op's bits in every case."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend._native import backend as kb
from descend._native import cpu as _cpu  # noqa: F401 - registers numba's backend, whose row kernels these are

from row_values import wide, with_value


def _zero_max(shape, dtype):
    x = -np.abs(wide(shape, dtype)) - 1
    x[..., 3] = -0.0
    x[1, :] = 0.0
    return x


#: name -> (shape, make): rows the kernels take, and rows they hand back to NumPy
ROWS = {
    "under eight": ((33, 5), wide),
    "ten classes": ((64, 10), wide),
    "eight and a rest": ((50, 29), wide),
    "a batch's losses (one row)": ((64,), wide),
    "the longest row": ((6, 128), wide),
    "longer than the kernels take": ((3, 300), wide),
    "an infinity": ((10, 12), with_value(np.inf, 7)),
    "a NaN": ((10, 12), with_value(np.nan, 7)),
    "maxima of zero": ((10, 12), _zero_max),
}


def _reductions(t):
    u = t * 1.0  # a buffer of the plan (the kernels' path; an input is reduced by reduce_last at each call)
    out = [ds.reduce_sum(u, axis=-1), ds.reduce_max(u, axis=-1, keepdims=True), ds.reduce_mean(u, axis=-1)]
    if len(t.shape) == 2:
        out += [ds.nn.softmax(u), ds.nn.log_softmax(u)]
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", list(ROWS))
def test_a_reduction_of_a_plan_buffer_gives_the_eager_bits(name, dtype):
    shape, make = ROWS[name]
    x = ds.constant(make(shape, dtype))
    with np.errstate(all="ignore"):
        eager = _reductions(x)
        fn = ds.function(_reductions)
        compiled = [fn(x) for _ in range(2)][-1]  # (the second call runs the plan the first built)
    for e, c in zip(eager, compiled):
        assert e.numpy().tobytes() == c.numpy().tobytes()
    source = fn.get_concrete_function(x).plan().source
    if kb.row_kernels(dtype) is not None and shape[-1] <= 128:
        assert "if not X" in source  # the row kernel called on the plan's views, NumPy's reduce behind it


@pytest.mark.parametrize("logits", ["wide", "maxima of zero"])
def test_a_compiled_sparse_cross_entropy_step_gives_the_eager_bits(logits):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 20)).astype(np.float32)
    y = rng.integers(0, 10, 64)
    w = rng.standard_normal((20, 10)).astype(np.float32)

    def make():
        v = ds.Variable(w)
        opt = ds.optimizers.AdamW(1e-2, weight_decay=0.01)

        def step(x, y):
            with ds.GradientTape() as tape:
                h = ds.matmul(x, v)
                if logits == "maxima of zero":
                    h = h * 0.0  # (logits of both signed zeros: each row's maximum is NumPy's to give)
                loss = ds.reduce_mean(ds.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=h))
            opt.apply_gradients([(tape.gradient(loss, v), v)])
            return loss
        return v, step

    v_e, eager = make()
    v_c, step = make()
    compiled = ds.function(step)
    xt, yt = ds.constant(x), ds.constant(y)
    for _ in range(4):
        assert eager(xt, yt).numpy().tobytes() == compiled(xt, yt).numpy().tobytes()
    assert v_e.numpy().tobytes() == v_c.numpy().tobytes()


#: name -> what a compiled function returns (of a Tensor ``t`` and a Variable ``v``)
RESULTS = {
    "a Tensor": lambda t, v: t * 2.0,
    "a tuple of one Tensor": lambda t, v: (t * 2.0,),
    "a list of one Tensor": lambda t, v: [t * 2.0],
    "a dict of one Tensor": lambda t, v: {"y": t * 2.0},
    "a Variable": lambda t, v: v,
    "a Python number": lambda t, v: 3.0,
    "None": lambda t, v: None,
}


@pytest.mark.parametrize("name", list(RESULTS))
def test_a_compiled_call_returns_what_the_eager_call_returns(name):
    v = ds.Variable([1.0, 2.0])
    fn = RESULTS[name]
    t = ds.constant([3.0, 4.0])
    want = fn(t, v)
    compiled = ds.function(fn)
    for _ in range(3):  # (the trace's call, then the plan's)
        got = compiled(t, v)
        assert type(got) is (ds.Tensor if isinstance(want, (ds.Variable, float)) else type(want))
        flat_w, flat_g = ds.nest.flatten(want), ds.nest.flatten(got)
        assert len(flat_w) == len(flat_g)
        for w, g in zip(flat_w, flat_g):
            assert type(g) is (type(None) if w is None else ds.Tensor)
            if w is not None:
                assert ds.convert_to_tensor(w).numpy().tobytes() == g.numpy().tobytes()  # (3.0: float32, as TF)


@pytest.mark.parametrize("threads", [True, False])
@pytest.mark.parametrize("shape", [(4096, 32), (7, 3, 128), (130, 5)])
def test_a_plans_softmax_is_one_kernel_call_with_the_eager_bits(shape, threads):
    """A softmax over a short last axis runs as one call of the row kernels' softmax (max, subtract, NumPy's own exp
    loop, sum, divide: a run of rows a thread), with the bits of the eager op's NumPy calls."""
    from descend import _native
    from descend._native import numpy_loops

    _native.wait_loaded()
    kernels = kb.row_kernels(np.float32)
    if kernels is None or numpy_loops.strided_loop(np.exp, np.float32) is None:
        pytest.skip("no compiled kernels or NumPy loop here: the plan makes NumPy's calls")
    x = ds.constant(wide(shape, np.float32))

    def f(t):
        return ds.nn.softmax(t * 1.0)

    fn = ds.function(f)
    previous = _native.set_threads_on(threads)
    try:
        compiled = [fn(x) for _ in range(2)][-1]
    finally:
        _native.set_threads_on(previous)
    assert compiled.numpy().tobytes() == f(x).numpy().tobytes()
    plan = fn.get_concrete_function(x).plan()
    assert any(v is kernels[2] for v in plan._run.__globals__.values())
