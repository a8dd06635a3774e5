"""The LSTM layer as one ``lstm_sequence`` op (``descend/ops/rnn_ops.py``, issue 34): its kernels against its NumPy
calls bit for bit, the layer against its general path (one op per step: ``use_cudnn=False``), the compiled step
against the eager one bit for bit in both determinism modes, and when the layer takes which path.

The bits of a matrix product depend on the CPU's BLAS kernel: nothing here compares with a stored value (CI runs
the plan tests under ``OPENBLAS_CORETYPE=Haswell`` too)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import descend as ds
from descend import _native
from descend._native import backend as kb
from descend._native import blas
from descend._native import cpu  # noqa: F401  (registers numba's backend, as the optimizers and plans do)
from descend.compiler.plan import PlanCallbackWarning
from descend.ops import rnn_ops


def _arrays(rng, dtype, steps, batch, units):
    f = lambda *s: rng.standard_normal(s).astype(dtype)  # noqa: E731
    return f(steps, batch, 4 * units), f(batch, units) * 0.5, f(batch, units) * 0.5, f(units, 4 * units) * 0.4


def _run_both(xw, h0, c0, u, gh, gc):
    steps, batch, n = xw.shape
    out = rnn_ops._empty_outputs(steps, batch, n // 4, xw.dtype)
    rnn_ops.forward_into(xw, h0, c0, u, out)
    grads = tuple(np.empty(a.shape, a.dtype) for a in (xw, h0, c0, u))  # (row-major whatever the inputs' layout)
    rnn_ops.backward_into(gh, gc, *out, h0, c0, u, grads)
    return [a.copy() for a in out + grads]


def _kernels_here(dtype):
    if kb.lstm_kernels(np.dtype(dtype)) is None:
        _native.wait_loaded()
        if kb.lstm_kernels(np.dtype(dtype)) is None:
            pytest.skip("no compiled kernels here (numba off or missing, or no BLAS function to call)")


@pytest.mark.parametrize("steps, batch, units", [(1, 1, 1), (5, 3, 7), (4, 9, 16), (3, 70, 8), (2, 64, 16),
                                                 (5, 130, 7)])
def test_the_kernels_give_the_numpy_calls_bits(monkeypatch, steps, batch, units):
    """The whole-sequence kernels, on threads and serial, against the op's NumPy calls: one block of rows and several
    (a batch of 64 or more is cut), an odd and an even number of steps (the backward's two cell-gradient buffers)."""
    _kernels_here(np.float32)
    rng = np.random.default_rng(steps * 100 + units)
    xw, h0, c0, u = _arrays(rng, np.float32, steps, batch, units)
    xw[0, 0, :3] = [0.0, -0.0, 40.0]  # sigmoid's two branches at zero, and a saturated gate
    xw[-1, -1, -2:] = [np.inf, np.nan]  # (non-finite values go through both paths alike)
    gh, gc = rng.standard_normal((2, steps, batch, units)).astype(np.float32)
    assert rnn_ops._native_parts(np.dtype(np.float32), (xw, h0)) is not None  # (the kernels run below)
    previous = _native.set_threads_on(True)
    try:
        threaded = _run_both(xw, h0, c0, u, gh, gc)
        _native.set_threads_on(False)
        serial = _run_both(xw, h0, c0, u, gh, gc)
    finally:
        _native.set_threads_on(previous)
    monkeypatch.setattr(kb, "lstm_kernels", lambda dtype: None)
    numpy = _run_both(xw, h0, c0, u, gh, gc)
    for k, (a, b, c) in enumerate(zip(threaded, serial, numpy)):
        assert a.tobytes() == b.tobytes() == c.tobytes(), k


def test_strided_inputs_and_outputs_take_the_numpy_calls_with_the_same_bits():
    """Arrays the kernels cannot take as they are (a time-major view of batch-major data, outputs that are views
    with gaps) run the op's NumPy calls: the contiguous inputs' bits."""
    _kernels_here(np.float32)
    rng = np.random.default_rng(4)
    xw, h0, c0, u = _arrays(rng, np.float32, 3, 64, 8)
    gh, gc = rng.standard_normal((2, 3, 64, 8)).astype(np.float32)
    plain = _run_both(xw, h0, c0, u, gh, gc)
    batch_major = np.ascontiguousarray(xw.transpose(1, 0, 2)).transpose(1, 0, 2)  # (not C-contiguous)
    assert rnn_ops._native_parts(np.dtype(np.float32), (batch_major,)) is None
    strided = _run_both(batch_major, h0[:, ::1], np.asfortranarray(c0), np.asfortranarray(u), gh, gc)
    wide = np.zeros((3, 64, 16), np.float32)
    out = (wide[:, :, :8], *rnn_ops._empty_outputs(3, 64, 8, np.float32)[1:])
    rnn_ops.forward_into(xw, h0, c0, u, out)
    for a, b in zip(plain, strided):
        assert a.tobytes() == b.tobytes()
    assert np.ascontiguousarray(out[0]).tobytes() == plain[0].tobytes()


def test_a_batch_is_cut_by_its_size_alone():
    assert rnn_ops.batch_cuts(31).tolist() == [0, 31]
    assert rnn_ops.batch_cuts(64).tolist() == [0, 32, 64]
    assert rnn_ops.batch_cuts(130).tolist() == [0, 32, 64, 96, 130]
    assert len(rnn_ops.batch_cuts(10_000)) - 1 == blas.DETERMINISTIC_BLOCKS
    previous = blas.set_threads(1)
    try:
        assert rnn_ops.batch_cuts(64).tolist() == [0, 32, 64]  # (not the thread budget)
    finally:
        blas.set_threads(previous)


def test_float64_and_other_threads_take_the_numpy_calls(monkeypatch):
    """The kernels call NumPy's float32 ``cblas_sgemm`` from the main thread's kernels only: float64, and a thread
    other than the main one, run the op's NumPy calls, with the same results."""
    import threading

    _kernels_here(np.float32)
    calls = []
    real = kb.lstm_kernels
    monkeypatch.setattr(kb, "lstm_kernels", lambda dtype: calls.append(np.dtype(dtype)) or real(dtype))
    rng = np.random.default_rng(0)
    xw, h0, c0, u = _arrays(rng, np.float64, 3, 4, 5)
    gh, gc = rng.standard_normal((2, 3, 4, 5))
    assert rnn_ops._native_parts(np.dtype(np.float64), (xw,)) is None
    main = _run_both(xw.astype(np.float32), h0.astype(np.float32), c0.astype(np.float32), u.astype(np.float32),
                     gh.astype(np.float32), gc.astype(np.float32))
    found = []
    worker = threading.Thread(target=lambda: found.append(rnn_ops._native_parts(np.dtype(np.float32), (xw,))))
    worker.start()
    worker.join()
    assert found == [None]
    other = []
    worker = threading.Thread(target=lambda: other.append(_run_both(
        xw.astype(np.float32), h0.astype(np.float32), c0.astype(np.float32), u.astype(np.float32),
        gh.astype(np.float32), gc.astype(np.float32))))
    worker.start()
    worker.join()
    for a, b in zip(main, other[0]):
        assert a.tobytes() == b.tobytes()
    f64 = _run_both(xw, h0, c0, u, gh, gc)
    np.testing.assert_allclose(f64[0], main[0], rtol=1e-5, atol=1e-6)


def _pair(dtype="float32", **kwargs):
    """The same LSTM twice, with the same weights: fused (``use_cudnn="auto"``) and its general path."""
    fused = ds.layers.LSTM(5, dtype=dtype, seed=3, **kwargs)
    general = ds.layers.LSTM(5, dtype=dtype, seed=3, use_cudnn=False, **kwargs)
    return fused, general


def _call(layer, x, **kwargs):
    xt = ds.constant(x)
    with ds.GradientTape() as tape:
        tape.watch(xt)
        out = layer(xt, **kwargs)
        outs = out if isinstance(out, list) else [out]
        loss = ds.add_n([ds.reduce_sum(ds.square(o) * (k + 1.0)) for k, o in enumerate(outs)])
    grads = tape.gradient(loss, [xt, *layer.trainable_variables])
    return [o.numpy() for o in outs], [g.numpy() for g in grads]


CONFIGS = {
    "last": ({}, {}),
    "sequences": ({"return_sequences": True}, {}),
    "backwards_sequences_state": ({"go_backwards": True, "return_sequences": True, "return_state": True}, {}),
    "backwards_last": ({"go_backwards": True}, {}),
    "initial_state": ({"return_state": True}, {"initial_state": "given"}),
    "input_dropout_training": ({"dropout": 0.4}, {"training": True}),
    "no_bias_no_forget_bias": ({"use_bias": False, "unit_forget_bias": False}, {}),
}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(CONFIGS))
def test_the_fused_layer_gives_the_general_paths_outputs_and_gradients(name, dtype):
    layer_kwargs, call_kwargs = CONFIGS[name]
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 6, 3)).astype(dtype)
    fused, general = _pair(dtype, **layer_kwargs)
    fused.build(x.shape)
    general.build(x.shape)
    general.set_weights(fused.get_weights())
    call_kwargs = dict(call_kwargs)
    if call_kwargs.get("initial_state") == "given":
        call_kwargs["initial_state"] = [ds.constant(rng.standard_normal((4, 5)).astype(dtype)) for _ in range(2)]
    (fo, fg), (go, gg) = _call(fused, x, **call_kwargs), _call(general, x, **call_kwargs)
    assert len(fo) == len(go)
    for a, b in zip(fo, go):  # the forward: the same ops on the same values, the same bits
        assert a.shape == b.shape and a.tobytes() == b.tobytes()
    tol = 2e-6 if dtype == "float32" else 1e-13  # (the backward sums the same terms in another order)
    for a, b in zip(fg, gg):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def _step(model, optimizer, loss_fn):
    def step(x, y):
        with ds.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return loss

    return step


def _train(compiled: bool, steps=3, seed=0):
    """Three AdamW steps of LSTM(64)-Dense(10) on 32 steps x 16 features, batch 64 (benchmark's case: the recurrent
    kernel's gradient is a product large enough to be cut); the losses and the weights' bytes."""
    rng = np.random.default_rng(seed)
    x = ds.constant(rng.standard_normal((64, 32, 16), dtype=np.float32))
    y = ds.constant(rng.integers(0, 10, 64))
    ds.keras.utils.set_random_seed(11)
    model = ds.Sequential([ds.layers.LSTM(64), ds.layers.Dense(10)])
    model(x)
    step = _step(model, ds.optimizers.AdamW(1e-2, weight_decay=0.01),
                 ds.losses.SparseCategoricalCrossentropy(from_logits=True))
    if compiled:
        step = ds.function(step)
    losses = [step(x, y).numpy().tobytes() for _ in range(steps)]
    return losses, [w.numpy().tobytes() for w in model.weights]


@pytest.mark.parametrize("deterministic", [False, True])
def test_the_compiled_step_is_the_eager_step_bit_for_bit_with_no_fallback(determinism, deterministic):
    if deterministic:
        determinism.enable_op_determinism()
    eager = _train(False)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        compiled = _train(True)
    assert compiled == eager
    assert not [w for w in caught if issubclass(w.category, PlanCallbackWarning) and "lstm" in str(w.message)]


def test_the_plan_runs_the_lstm_as_two_calls():
    x = ds.constant(np.ones((2, 3, 4), np.float32))
    layer = ds.layers.LSTM(3)

    @ds.function
    def grads(x):
        with ds.GradientTape() as tape:
            loss = ds.reduce_sum(layer(x))
        return tape.gradient(loss, layer.trainable_variables)

    grads(x)
    plan = grads.get_concrete_function(x).plan()
    called = {getattr(v, "__name__", None) for v in plan._run.__globals__.values()}
    assert {"forward_into", "backward_into"} <= called
    assert "lstm_sequence" not in plan.source  # (no generic call of the op's forward)


def test_under_determinism_the_thread_count_does_not_change_the_bits(determinism, monkeypatch):
    pytest.importorskip("threadpoolctl")
    determinism.enable_op_determinism()
    monkeypatch.setattr(_native, "idle_core", lambda: True)
    runs = []
    for budget, on in [(1, False), (2, True), (2, None)]:
        blas.set_threads(budget)
        previous = _native.set_threads_on(on)
        try:
            runs.append(_train(True, steps=2))
        finally:
            _native.set_threads_on(previous)
    assert runs[1] == runs[0] and runs[2] == runs[0]


# ---------------------------------------------------------------- which path
def _uses_op(layer, x, **kwargs):
    with ds.GradientTape(persistent=True) as tape:
        tape.watch(x)
        layer(x, **kwargs)
    return "lstm_sequence" in {entry[0].name for entry in tape._entries}


@pytest.mark.parametrize("kwargs, call, fused", [
    ({}, {}, True),
    ({"use_cudnn": False}, {}, False),
    ({"activation": "relu"}, {}, False),
    ({"recurrent_activation": "hard_sigmoid"}, {}, False),
    ({"recurrent_dropout": 0.3}, {"training": True}, False),
    ({"recurrent_dropout": 0.3}, {"training": False}, True),
    ({}, {"mask": np.array([[True, True, False]] * 2)}, False),
])
def test_the_layer_is_fused_where_keras_would_use_cudnn(kwargs, call, fused):
    x = ds.constant(np.ones((2, 3, 4), np.float32))
    assert _uses_op(ds.layers.LSTM(3, **kwargs), x, **call) == fused


def test_use_cudnn_true_raises_where_the_call_cannot_be_fused_and_other_values_are_refused():
    x = ds.constant(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match="use_cudnn=True"):
        ds.layers.LSTM(3, use_cudnn=True)(x, mask=np.array([[True, True, False]] * 2))
    assert ds.layers.LSTM(3, use_cudnn=True)(x).shape == (2, 3)
    with pytest.raises(ValueError, match="Received: use_cudnn='yes'"):
        ds.layers.LSTM(3, use_cudnn="yes")


def test_a_second_derivative_needs_the_general_path():
    x = ds.constant(np.linspace(-1, 1, 24).reshape(2, 3, 4))

    def second(layer):
        with ds.GradientTape() as outer:
            outer.watch(x)
            with ds.GradientTape() as inner:
                inner.watch(x)
                y = ds.reduce_sum(ds.square(layer(x)))
            g = inner.gradient(y, x)
            z = ds.reduce_sum(ds.square(g))
        return outer.gradient(z, x)

    assert second(ds.layers.LSTM(3, dtype="float64", use_cudnn=False)) is not None
    with pytest.raises(ds.NoGradientError, match="'lstm_sequence_grad'"):
        second(ds.layers.LSTM(3, dtype="float64"))


def test_an_lstms_orthogonal_recurrent_kernel_takes_the_optimizers_one_call_update():
    """The Orthogonal initializer's array is a transposed one; a Variable keeps a row-major copy, so AdamW updates the
    LSTM's weights in its one batched kernel call (it takes C-contiguous arrays only), not tensor by tensor."""
    from descend.optimizers import batched

    x = ds.constant(np.random.default_rng(0).standard_normal((4, 5, 3)).astype(np.float32))
    y = ds.constant(np.array([0, 1, 2, 0]))
    model = ds.Sequential([ds.layers.LSTM(6), ds.layers.Dense(3)])
    model(x)
    assert all(v.numpy().flags.c_contiguous for v in model.weights)
    step = _step(model, ds.optimizers.AdamW(1e-2), ds.losses.SparseCategoricalCrossentropy(from_logits=True))
    step(x, y)  # (the first step creates the slots on the general path)
    if not batched.enabled():
        pytest.skip("no batched optimizer step here (numba off)")
    before = batched.stats["steps"]
    step(x, y)
    step(x, y)
    assert batched.stats["steps"] == before + 2
