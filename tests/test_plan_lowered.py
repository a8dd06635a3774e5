"""Every op the built-in layers use has a compiled form: ``fit(jit_compile=True)`` runs no op through its NumPy
forward (no ``PlanCallbackWarning``) and no step eagerly (no ``FunctionEagerWarning``), with the eager losses
bit for bit; the lowered array ops (concat, split, getitem and its gradient, gather, einsum, im2col, col2im)
give the op's own bits and errors."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import descend as ds
from descend.compiler import plan as plan_module
from descend.compiler.function import FunctionEagerWarning
from descend.errors import InvalidArgumentError

L = ds.layers


def _mha():
    inp = ds.keras.Input((6, 8))
    x = L.MultiHeadAttention(num_heads=2, key_dim=4)(inp, inp)
    return ds.keras.Model(inp, L.Dense(3)(L.Flatten()(x)))


MODELS = {
    "dense_dropout": ((16,), lambda: [L.Dense(16, activation="relu"), L.Dropout(0.3), L.Dense(3)]),
    "conv1d": ((12, 3), lambda: [L.Conv1D(4, 3, activation="relu"), L.Flatten(), L.Dense(3)]),
    "conv2d_maxpool": ((8, 8, 2), lambda: [L.Conv2D(4, 3, activation="relu"), L.MaxPooling2D(), L.Flatten(),
                                           L.Dense(3)]),
    "conv2d_same_strided_avgpool": ((9, 9, 2), lambda: [L.Conv2D(4, 3, strides=2, padding="same"),
                                                        L.AveragePooling2D(), L.Flatten(), L.Dense(3)]),
    "lstm": ((5, 3), lambda: [L.LSTM(6), L.Dense(3)]),
    "gru": ((5, 3), lambda: [L.GRU(6, dropout=0.2), L.Dense(3)]),
    "simplernn": ((5, 3), lambda: [L.SimpleRNN(6), L.Dense(3)]),
    "embedding": ((7,), lambda: [L.Embedding(20, 4), L.Flatten(), L.Dense(3)]),
    "mha": ((6, 8), None),
    "layernorm": ((16,), lambda: [L.Dense(8), L.LayerNormalization(), L.Dense(3)]),
    "batchnorm": ((16,), lambda: [L.Dense(8), L.BatchNormalization(), L.Dense(3)]),
}


def _fit(name, jit):
    shape, make = MODELS[name]
    ds.keras.utils.set_random_seed(0)
    rng = np.random.default_rng(1)
    x = rng.integers(0, 20, (40,) + shape) if name == "embedding" else rng.standard_normal((40,) + shape).astype(
        np.float32)
    y = rng.integers(0, 3, 40)
    model = _mha() if make is None else ds.Sequential([ds.keras.Input(shape)] + make())
    model.compile(optimizer=ds.optimizers.Adam(1e-2), loss=ds.losses.SparseCategoricalCrossentropy(from_logits=True),
                  jit_compile=jit)
    history = model.fit(x, y, batch_size=16, epochs=3, verbose=0)  # 2 full batches and a short one per epoch
    return history.history["loss"], [w.numpy() for w in model.weights]


@pytest.mark.parametrize("name", list(MODELS))
def test_a_built_in_layer_fits_compiled_without_a_fallback_and_with_the_eager_numbers(name, monkeypatch):
    monkeypatch.setattr(plan_module, "_warned", set())  # (the warning is once per op name and process)
    with warnings.catch_warnings():
        warnings.simplefilter("error", plan_module.PlanCallbackWarning)
        warnings.simplefilter("error", FunctionEagerWarning)
        compiled = _fit(name, True)
    eager = _fit(name, False)
    np.testing.assert_allclose(compiled[0], eager[0], rtol=1e-5)
    assert compiled[0] == eager[0]  # bitwise: every lowered op is the op's own arithmetic
    for a, b in zip(compiled[1], eager[1]):
        np.testing.assert_array_equal(a, b)


def _both(fn, *args):
    """``fn``'s eager result and its compiled plan's (the third call), with no callback warning."""
    plan_module._warned.clear()
    eager = fn(*args)
    f = ds.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error", plan_module.PlanCallbackWarning)
        warnings.simplefilter("error", FunctionEagerWarning)
        for _ in range(3):
            out = f(*args)
    assert f.get_concrete_function(*args).plan() is not None
    return eager, out


_rng = np.random.default_rng(3)
_X4 = _rng.standard_normal((2, 7, 6, 3)).astype(np.float32)
_COLS = _rng.standard_normal((2, 3, 3, 2, 3, 3)).astype(np.float32)
#: an image to pool with ties, NaNs and a corner of -inf (its padded windows hold nothing larger than -inf): the
#: first maximum of each window is argmax's, never the padding
_TIES = _rng.integers(-2, 2, (2, 7, 6, 5)).astype(np.float32)
_TIES[0, 0, 0, 0] = _TIES[0, 1, 1, 0] = np.nan
_TIES[1, :3, :3, 4] = -np.inf
_TIES[1, 4, 2, 1] = np.nan
#: pooling windows: overlapping and padded, overlapping at stride 1, apart (the last row and column in none), tiling
#: the image with its padding (each element in one window: the gradient's kernel writes each window whole)
_POOLS = {"overlapping_padded": dict(ksize=(3, 3), strides=(2, 2), pads=((1, 1), (1, 1))),
          "stride1": dict(ksize=(2, 3), strides=(1, 1), pads=((0, 1), (1, 1))),
          "apart": dict(ksize=(2, 2), strides=(3, 2), pads=((0, 0), (0, 0))),
          "tiled_padded": dict(ksize=(2, 2), strides=(2, 2), pads=((0, 1), (0, 0)))}


def _pooled(name, x=_TIES):
    """``(values, offsets, a gradient of the values' shape)`` of max pooling ``x`` with ``_POOLS[name]`` (no padding
    for an image of 6 rows)."""
    attrs = dict(_POOLS[name], pads=((0, 0), (0, 0))) if x.shape[1] == 6 else _POOLS[name]
    values, offsets = ds.ops.conv_ops.max_pool_windows.forward(x, **attrs)
    return values, offsets, _rng.standard_normal(values.shape).astype(x.dtype)


def _pool_cases():
    """``(id, fn, args)``: max pooling, its scatter (the gradient) and gather, for each of ``_POOLS``."""
    out = []
    for name, attrs in _POOLS.items():
        values, offsets, g = _pooled(name)
        off = ds.constant(offsets)
        out += [(f"max_pool_windows_{name}", lambda x, a=attrs: list(ds.ops.conv_ops.max_pool_windows(x * 1.0, **a)),
                 (_TIES,)),
                (f"max_pool_scatter_{name}", lambda g, o=off, a=attrs: ds.ops.conv_ops.max_pool_scatter(
                    g * 1.0, o, shape=_TIES.shape, **a), (g,)),
                (f"max_pool_gather_{name}", lambda x, o=off, a=attrs: ds.ops.conv_ops.max_pool_gather(x * 1.0, o, **a),
                 (_TIES,))]
    out.append(("max_pool_windows_float64", lambda x: list(ds.ops.conv_ops.max_pool_windows(x * 1.0, **_POOLS["stride1"])),
                (_TIES.astype(np.float64),)))
    return out


@pytest.mark.parametrize("fn,args", [
    (lambda x: ds.concat([x, x * 2.0, -x], axis=1), (_X4[0],)),
    (lambda x: [p * 1.0 for p in ds.split(x * 1.0, [2, 1, 3], axis=0)], (_X4[0, 0],)),
    (lambda x: x[1:, ::2] * 1.0, (_X4[0, :, :, 0],)),
    (lambda x: (x * 1.0)[:, [0, 2, 2]], (_X4[0, :, :, 0],)),
    (lambda x: ds.gather(x * 1.0, ds.constant([[0, 3], [3, 1]]), axis=1), (_X4[0, :, :, 0],)),
    (lambda x: ds.einsum("bij,bkj->bik", x * 1.0, x), (_X4[0],)),
    (lambda x: ds.ops.conv_ops.im2col(x * 1.0, ksize=(2, 3), strides=(2, 1), dilations=(1, 2),
                                      pads=((1, 0), (2, 1)), pad_value=-1.5), (_X4,)),
    (lambda c: ds.ops.conv_ops.col2im(c * 1.0, shape=(2, 6, 7, 3), ksize=(2, 3), strides=(2, 2), dilations=(1, 1),
                                      pads=((0, 1), (1, 1))), (_COLS,)),
    (lambda c: ds.ops.conv_ops.col2im(c * 1.0, shape=(2, 9, 8, 3), ksize=(2, 3), strides=(1, 2), dilations=(2, 1),
                                      pads=((1, 1), (0, 0))), (_COLS,)),
    *[(fn, args) for _, fn, args in _pool_cases()],
    (lambda x: ds.einsum("abc,cde->abde", x[0] * 1.0, x[1, :3, :3, :2]), (_X4,)),
    (lambda x: ds.einsum("aecd,abcd->acbe", x * 1.0, x), (_X4,)),
    (lambda x: ds.einsum("ij,kj->ki", x * 1.0, x), (_X4[0, :, :, 0].astype(np.float64),)),
    (lambda x: ds.einsum("i,i->", x * 1.0, x), (_X4[0, 0, :, 0],)),
    (lambda x: ds.einsum("ij,kj->ik", x * 1.0, x[:1]), (_X4[0, :, :, 0],)),
    (lambda x: ds.einsum("ij,kl->ik", x * 1.0, x), (_X4[0, :, :, 0],)),
], ids=["concat", "split", "getitem_view", "getitem_array", "gather_axis1", "einsum", "im2col_padded",
        "col2im_padded", "col2im_dilated_overlapping", *[name for name, _, _ in _pool_cases()],
        "einsum_dense_projection", "einsum_attention_scores", "einsum_2d_transposed_out", "einsum_dot",
        "einsum_broadcast_row", "einsum_summed_in_one_operand"])
def test_a_lowered_array_op_gives_the_ops_bits(fn, args):
    eager, out = _both(fn, *args)
    for a, b in zip(eager if isinstance(eager, list) else [eager], out if isinstance(out, list) else [out]):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype
        assert b.tobytes() == a.tobytes()  # bit for bit (NaNs and signed zeros included)


@pytest.mark.parametrize("equation,shapes", [
    ("abc,cde->abde", [(2, 5, 8), (8, 3, 4)]),
    ("aecd,abcd->acbe", [(2, 6, 3, 4), (2, 5, 3, 4)]),
    ("acbe,aecd->abcd", [(2, 3, 5, 6), (2, 6, 3, 4)]),
    ("ij,jk->ki", [(4, 5), (5, 3)]),
    ("i,i->", [(7,), (7,)]),
    ("bij,bkj->bik", [(3, 4, 5), (3, 6, 5)]),
    ("ij,kl->ik", [(3, 4), (5, 6)]),
    ("ij,kj->ikj", [(3, 4), (1, 4)]),
])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_einsum_of_two_operands_is_numpys_sum_within_rounding(equation, shapes, dtype):
    rng = np.random.default_rng(5)
    ops = [rng.standard_normal(s).astype(dtype) for s in shapes]
    got = ds.einsum(equation, *[ds.constant(o) for o in ops]).numpy()
    want = np.einsum(equation, *[o.astype(np.float64) for o in ops])
    assert got.dtype == dtype and got.shape == want.shape and got.flags.c_contiguous
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_the_parts_of_a_split_variable_are_copies_of_each_call(monkeypatch):
    monkeypatch.setattr(plan_module, "_warned", set())
    v = ds.Variable(_X4[0, 0])
    f = ds.function(lambda: [p * 1.0 if k else p for k, p in enumerate(ds.split(v, [4, 2], axis=0))])
    with warnings.catch_warnings():
        warnings.simplefilter("error", plan_module.PlanCallbackWarning)
        warnings.simplefilter("error", FunctionEagerWarning)
        for _ in range(2):
            f()
        assert f.get_concrete_function().plan() is not None
        first, second = f()
        kept = first.numpy().copy()
        v.assign_add(np.ones_like(_X4[0, 0]))
        again = f()
    np.testing.assert_array_equal(first.numpy(), kept)  # (not a view of the Variable)
    np.testing.assert_array_equal(again[0].numpy(), v.numpy()[:4])
    np.testing.assert_array_equal(again[1].numpy(), v.numpy()[4:])


def test_a_variable_cast_to_another_dtype_is_lowered():
    v = ds.Variable(_X4[0, 0])
    eager, out = _both(lambda: ds.cast(v, ds.float16) * 2.0)
    assert out.dtype == ds.float16
    np.testing.assert_array_equal(out.numpy(), eager.numpy())
    f = ds.function(lambda: ds.cast(v, ds.float16))
    for _ in range(2):
        f()
    v.assign_add(np.ones_like(_X4[0, 0]))  # the plan reads the Variable at each call
    np.testing.assert_array_equal(f().numpy(), v.numpy().astype(np.float16))


def test_getitem_gradient_with_repeated_indices_is_the_ops_sum():
    x = ds.Variable(_X4[0, :, :, 0])

    def grad(idx):
        with ds.GradientTape() as tape:
            y = ds.reduce_sum(ds.square(x[:, [0, 2, 2]]) * idx)
        return tape.gradient(y, x)

    eager, out = _both(grad, ds.constant(np.float32(1.5)))
    np.testing.assert_array_equal(out.numpy(), eager.numpy())


def test_a_compiled_gather_refuses_an_index_out_of_range_as_the_op():
    f = ds.function(lambda x, i: ds.gather(x * 1.0, i))
    x = ds.constant([1.0, 2.0, 3.0])
    for _ in range(2):
        f(x, ds.constant([0, 2]))
    for bad in ([0, 3], [-1, 0]):
        with pytest.raises(InvalidArgumentError, match=r"gather: indices\[1\]|gather: indices\[0\]"):
            f(x, ds.constant(bad))


def test_a_convolutions_bias_gradient_is_summed_inside_the_relu_gradients_loop():
    """The sum over every axis but the last of a rank-4 value is NumPy's sum of its rows in order (the reduced
    axes of a contiguous array coalesce), so the fused loop computes it: the eager bits, one pass fewer."""
    from descend._native import enabled, ready

    if not (enabled() and ready(exact=False)):
        pytest.skip("the kernel backend is not available")
    rng = np.random.default_rng(0)
    x = ds.constant(rng.standard_normal((4, 6, 6, 2)).astype(np.float32))
    w = ds.Variable(rng.standard_normal((3, 3, 2, 5)).astype(np.float32))
    b = ds.Variable(rng.standard_normal(5).astype(np.float32))

    def grads(x):
        with ds.GradientTape() as tape:
            y = ds.reduce_sum(ds.square(ds.nn.relu(ds.nn.conv2d(x, w, 1, "VALID") + b)))
        return tape.gradient(y, [w, b])

    eager, out = _both(grads, x)
    for a, c in zip(eager, out):
        np.testing.assert_array_equal(c.numpy(), a.numpy())
    source = ds.function(grads).get_concrete_function(x).plan().source
    assert "_colsum" in source and "axis=(0, 1, 2)" not in source


_WINDOW_OPS = {
    "im2col_padded_dilated": (lambda x: ds.ops.conv_ops.im2col(x, ksize=(2, 3), strides=(2, 1), dilations=(1, 2),
                                                               pads=((1, 0), (2, 1)), pad_value=-1.5), _X4),
    "im2col_float64": (lambda x: ds.ops.conv_ops.im2col(x, ksize=(3, 3), strides=(1, 1)), _X4.astype(np.float64)),
    "im2col_fortran_order": (lambda x: ds.ops.conv_ops.im2col(x, ksize=(2, 2), strides=(1, 1)), np.asfortranarray(_X4)),
    "col2im_padded": (lambda c: ds.ops.conv_ops.col2im(c, shape=(2, 6, 7, 3), ksize=(2, 3), strides=(2, 2),
                                                       pads=((0, 1), (1, 1))), _COLS),
    "col2im_dilated_overlapping": (lambda c: ds.ops.conv_ops.col2im(c, shape=(2, 9, 8, 3), ksize=(2, 3), strides=(1, 2),
                                                                    dilations=(2, 1), pads=((1, 1), (0, 0))), _COLS),
    **{f"max_pool_windows_{name}": (lambda x, a=a: ds.ops.conv_ops.max_pool_windows(x, **a), _TIES)
       for name, a in _POOLS.items()},
    "max_pool_windows_float64": (lambda x: ds.ops.conv_ops.max_pool_windows(x, **_POOLS["overlapping_padded"]),
                                 _TIES.astype(np.float64)),
    "max_pool_windows_strided_view": (lambda x: ds.ops.conv_ops.max_pool_windows(x, **_POOLS["stride1"]),
                                      _TIES[:, :, ::2]),
    "max_pool_scatter_tiled": (lambda g: ds.ops.conv_ops.max_pool_scatter(
        g, ds.constant(_pooled("tiled_padded", _TIES[:, :6])[1]), shape=(2, 6, 6, 5), ksize=(2, 2), strides=(2, 2)),
        _pooled("tiled_padded", _TIES[:, :6])[2]),
    **{f"max_pool_scatter_{name}": (lambda g, name=name: ds.ops.conv_ops.max_pool_scatter(
        g, ds.constant(_pooled(name)[1]), shape=_TIES.shape, **_POOLS[name]), _pooled(name)[2]) for name in _POOLS},
    **{f"max_pool_gather_{name}": (lambda x, name=name: ds.ops.conv_ops.max_pool_gather(
        x, ds.constant(_pooled(name)[1]), **_POOLS[name]), _TIES[::-1].copy()) for name in _POOLS},
}


@pytest.mark.parametrize("name", list(_WINDOW_OPS))
def test_the_window_ops_kernels_give_numpys_bits(name):
    """Eager convolution and pooling run the exact window kernels the plan runs (where numba is): their results are
    the NumPy calls' bit for bit, so a machine without numba computes the same numbers."""
    from descend import _native
    from descend._native import backend as kb

    _native.wait_loaded()
    fn, x = _WINDOW_OPS[name]
    if kb.window_kernels(x.dtype) is None:
        pytest.skip("descend's kernels do not run here (no numba)")
    with_kernels = fn(x)
    previous = _native.set_enabled(False)
    try:
        assert kb.window_kernels(x.dtype) is None
        numpy_calls = fn(x)
    finally:
        _native.set_enabled(previous)
    for a, b in zip(with_kernels if isinstance(with_kernels, tuple) else [with_kernels],
                    numpy_calls if isinstance(numpy_calls, tuple) else [numpy_calls]):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape and a.dtype == b.dtype
        assert a.tobytes() == b.tobytes()


@pytest.mark.parametrize("op", ["max_pool_scatter", "max_pool_gather"])
@pytest.mark.parametrize("bad", [4, -1, 3])  # outside a 2x2 window; negative; in the padding (the padded last row)
def test_an_offset_outside_its_window_is_an_error_eager_and_compiled(op, bad):
    attrs = dict(ksize=(2, 2), strides=(2, 2), pads=((0, 1), (0, 0)))
    x = _TIES[:, :, :6, :]  # 7 x 6: the last row of windows has a padded row below the image
    _, offsets = ds.ops.conv_ops.max_pool_windows.forward(x, **attrs)
    offsets = offsets.copy()
    offsets[1, -1, 2, 3] = bad if bad != 3 else 2  # offset 2 or 3 of the last row of windows: the padding
    flat = int(np.ravel_multi_index((1, offsets.shape[1] - 1, 2, 3), offsets.shape))
    g = np.ones(offsets.shape, np.float32)
    if op == "max_pool_scatter":
        def fn(g):
            return ds.ops.conv_ops.max_pool_scatter(g * 1.0, ds.constant(offsets), shape=x.shape, **attrs)
        arg = g
    else:
        def fn(x):
            return ds.ops.conv_ops.max_pool_gather(x * 1.0, ds.constant(offsets), **attrs)
        arg = x
    for f in (fn, ds.function(fn)):
        for _ in range(2):
            with pytest.raises(InvalidArgumentError, match=f"offset {offsets.reshape(-1)[flat]} at flat index {flat}"):
                f(ds.constant(arg))


def test_a_value_per_row_of_a_higher_rank_run_fuses_and_keeps_the_eager_bits():
    # softmax's gradient over attention scores: (g - sum(g * s, -1)) * s, a (batch, heads, query, key) run with a
    # kept sum of shape (batch, heads, query, 1): one loop, read as one value per row
    rng = np.random.default_rng(3)
    g, s = (ds.constant(rng.standard_normal((2, 3, 5, 7)).astype(np.float32)) for _ in range(2))

    def f(g, s):
        return (g - ds.reduce_sum(g * s, axis=-1, keepdims=True)) * s

    fn = ds.function(f)
    eager, compiled = f(g, s), fn(g, s)
    assert eager.numpy().tobytes() == compiled.numpy().tobytes()
    if ds._native.enabled():
        assert fn.get_concrete_function(g, s).plan().fused >= 1
