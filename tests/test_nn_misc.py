"""tf.nn.isotonic_regression (values, segments, gradients) and tf.nn.ctc_unique_labels against TF (issue 37)."""

import numpy as np
import pytest

import descend as ds

_RNG = np.random.default_rng(4)
ISOTONIC = [  # (input, decreasing, axis)
    (np.array([3.0, 1.0, 2.0]), True, -1),
    (np.array([1.0, 1.0, 1.0]), True, -1),  # ties stay separate blocks
    (np.array([1.0, 2.0, 2.0, 1.0]), False, 0),
    (_RNG.normal(size=(4, 7)), True, 1),
    (_RNG.normal(size=(5, 3, 4)), False, -1),
    (_RNG.normal(size=(7, 4)), False, 0),
    (_RNG.integers(0, 4, (3, 6)).astype(np.float64), True, -1),  # many ties
    (np.array([[3, 1, 2], [1, 3, 4]]), True, 1),  # integers: float64 out
]


@pytest.mark.parametrize("x,decreasing,axis", ISOTONIC)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_isotonic_regression_matches_tensorflow(x, decreasing, axis, dtype):
    tf = pytest.importorskip("tensorflow")
    if x.dtype.kind == "f":
        x = x.astype(dtype)
    w = np.linspace(-1, 2, x.size).reshape(x.shape)
    out = []
    for lib in (ds, tf):
        t = lib.constant(x)
        with lib.GradientTape() as tape:
            tape.watch(t)
            y, seg = lib.nn.isotonic_regression(t, decreasing=decreasing, axis=axis)
            loss = lib.reduce_sum(y * w.astype(y.numpy().dtype))
        g = tape.gradient(loss, t) if x.dtype.kind == "f" else None
        out.append((y.numpy(), seg.numpy(), None if g is None else np.asarray(g)))
    (y, seg, g), (ty, tseg, tg) = out
    assert y.dtype == ty.dtype and seg.dtype == tseg.dtype == np.int32
    tol = 1e-6 if y.dtype == np.float32 else 1e-14
    np.testing.assert_allclose(y, ty, rtol=tol, atol=tol)
    np.testing.assert_array_equal(seg, tseg)
    if tg is not None and x.ndim == 2:  # TF's gradient has the right shape for matrices only (a TF bug)
        np.testing.assert_allclose(g, tg, rtol=tol, atol=tol)
    if g is not None:  # the rule itself: the block mean of the upstream gradient
        wm = np.moveaxis(w, axis, -1).reshape(-1, x.shape[axis])
        sm = np.moveaxis(seg, axis, -1).reshape(wm.shape)
        want = np.stack([(np.bincount(s_, weights=w_) / np.bincount(s_))[s_] for w_, s_ in zip(wm, sm)])
        np.testing.assert_allclose(np.moveaxis(g, axis, -1).reshape(wm.shape), want, rtol=tol, atol=tol)


def test_isotonic_fit_is_monotone_and_optimal_without_tf():
    x = _RNG.normal(size=12)
    y = ds.nn.isotonic_regression(x)[0].numpy()
    assert np.all(np.diff(y) <= 1e-15)
    # the fit is the projection on the monotone cone: <x - y, y> = 0 and <x - y, z - y> <= 0 for monotone z
    assert abs(np.dot(x - y, y)) < 1e-12
    for z in (np.sort(_RNG.normal(size=12))[::-1] for _ in range(20)):
        assert np.dot(x - y, z - y) <= 1e-12


def test_ctc_unique_labels_match_tensorflow():
    tf = pytest.importorskip("tensorflow")
    labels = np.array([[3, 4, 4, 3], [1, 1, 1, 0], [7, 2, 9, 5]], np.int32)
    for got, want in zip(ds.nn.ctc_unique_labels(labels), tf.nn.ctc_unique_labels(labels)):
        assert got.dtype.name == want.dtype.name
        np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_bad_arguments():
    with pytest.raises(ValueError, match="axis"):
        ds.nn.isotonic_regression(np.ones((2, 3)), axis=2)
    with pytest.raises(ValueError, match="integer"):
        ds.nn.ctc_unique_labels(np.ones((2, 3)))


# ---------------------------------------------------------------- with_space_to_batch
def _conv(lib, k):
    return lambda v, n, p: lib.nn.convolution(v, k, padding=p)


@pytest.mark.parametrize("shape,rate,padding,spatial_dims", [
    ((2, 9, 8, 3), [2, 2], "SAME", None),
    ((2, 9, 8, 3), [3, 2], "VALID", None),
    ((1, 7, 10, 2), [1, 1], "SAME", None),
    ((2, 3, 9, 8), [2, 3], "SAME", [2, 3]),  # channels first: the op sees (N, C, H, W) blocks of H, W
])
def test_with_space_to_batch_matches_tensorflow(shape, rate, padding, spatial_dims):
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(2)
    x = rng.normal(size=shape)
    if spatial_dims is None:
        k = rng.normal(size=(3, 2, shape[-1], 4))
        make = _conv
    else:  # an op of the last two axes: a max-pool of the (H, W) plane of each channel
        k = None
        make = (lambda lib, _k: lambda v, n, p: lib.transpose(lib.nn.max_pool2d(
            lib.transpose(v, [0, 2, 3, 1]), [2, 3], 1, p), [0, 3, 1, 2]))
    out = []
    for lib in (ds, tf):
        t = lib.constant(x)
        with lib.GradientTape() as tape:
            tape.watch(t)
            y = lib.nn.with_space_to_batch(t, rate, padding, make(lib, k), filter_shape=[3, 2] if k is not None
                                           else [2, 3], spatial_dims=spatial_dims)
            loss = lib.reduce_sum(y * y)
        out.append((y.numpy(), np.asarray(tape.gradient(loss, t))))
    np.testing.assert_allclose(out[0][0], out[1][0], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out[0][1], out[1][1], rtol=1e-12, atol=1e-12)


def test_with_space_to_batch_bad_arguments():
    with pytest.raises(ValueError, match="filter_shape"):
        ds.nn.with_space_to_batch(np.ones((1, 4, 4, 1)), [2, 2], "SAME", lambda v, n, p: v)
    with pytest.raises(ValueError, match="dilation_rate"):
        ds.nn.with_space_to_batch(np.ones((1, 4, 4, 1)), [0, 2], "VALID", lambda v, n, p: v)


# ---------------------------------------------------------------- tf.nn.experimental
@pytest.mark.parametrize("rate,noise_shape,dtype", [(0.3, None, "float32"), (0.5, [1, 4], "float64"),
                                                    (0.0, None, "float32"), (0.7, [3, 1], "float16")])
def test_general_dropout_matches_tensorflow_given_the_sampler(rate, noise_shape, dtype):
    tf = pytest.importorskip("tensorflow")
    x = np.random.default_rng(1).normal(size=(3, 4)).astype(dtype)

    def sampler(lib):
        return lambda shape, dtype: lib.constant(
            np.linspace(0.01, 0.99, int(np.prod(shape))).reshape(shape)[::-1].copy(), dtype=dtype)

    out = []
    for lib in (ds, tf):
        t = lib.constant(x)
        with lib.GradientTape() as tape:
            tape.watch(t)
            y = lib.nn.experimental.general_dropout(t, rate, sampler(lib), noise_shape=noise_shape)
            loss = lib.reduce_sum(y * y)
        out.append((y.numpy(), np.asarray(tape.gradient(loss, t))))
    for g, w in zip(out[0], out[1]):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g, w)


def test_stateless_dropout_depends_on_the_seed_only():
    x = np.ones((200, 50))
    a = ds.nn.experimental.stateless_dropout(x, 0.25, seed=[1, 2]).numpy()
    b = ds.nn.experimental.stateless_dropout(x, 0.25, seed=[1, 2]).numpy()
    c = ds.nn.experimental.stateless_dropout(x, 0.25, seed=[1, 3]).numpy()
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()
    assert set(np.unique(a).tolist()) == {0.0, 1 / 0.75}
    assert abs((a == 0).mean() - 0.25) < 0.01  # 10,000 draws: 4.3 standard deviations
    m = ds.nn.experimental.stateless_dropout(x, 0.5, seed=[4, 4], noise_shape=[1, 50]).numpy()
    assert (m == m[:1]).all()  # one mask per column, shared by every row
    with pytest.raises(ValueError, match="rate"):
        ds.nn.experimental.stateless_dropout(x, 1.0, seed=[1, 2])
    with pytest.raises(ValueError, match="seed"):
        ds.nn.experimental.stateless_dropout(x, 0.5, seed=[1, 2, 3])
