"""keras.ops' decompositions, Fourier transforms, framing, unique, argpartition, segment_prod, i0, correlate,
adaptive pooling and sub-namespaces (issue 37; descend/keras/ops_more.py). Values and gradients of each are
compared with Keras in the differential harness (tests/differential_cases.py); this file checks what a
harness row cannot: the partition contract of argpartition, the optional results of unique, the bad inputs,
the round trip of stft/istft, gradients at zeros of segment_prod and the sub-namespaces."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds
from descend.keras import ops


def _keras():
    pytest.importorskip("tensorflow")
    return pytest.importorskip("keras")


@pytest.mark.parametrize("x,kth,axis", [
    (np.array([3.0, -1.0, 2.5, 0.5, 7.0, -2.0]), 2, -1),
    (np.array([3.0, -1.0, 2.5, 0.5, 7.0, -2.0]), 0, -1),
    (np.array([3.0, -1.0, 2.5, 0.5, 7.0, -2.0]), -1, -1),
    (np.array([[4.0, 1.0, 3.0], [0.0, 9.0, -5.0], [2.0, 2.0, 8.0]]), 1, 0),
    (np.array([[4.0, 1.0, 3.0], [0.0, 9.0, -5.0]]), 1, None),
])
def test_argpartition_partitions_around_kth(x, kth, axis):
    idx = ops.argpartition(x, kth, axis=axis).numpy()
    assert idx.dtype == np.int32
    flat = x.reshape(-1) if axis is None else np.moveaxis(x, axis, -1)
    idx = idx if axis is None else np.moveaxis(idx, axis, -1)
    part = np.take_along_axis(flat, idx, axis=-1)
    k = kth % flat.shape[-1]
    np.testing.assert_array_equal(part[..., k], np.sort(flat, axis=-1)[..., k])  # the kth smallest at kth
    assert np.all(part[..., :k] <= part[..., k:k + 1]) and np.all(part[..., k + 1:] >= part[..., k:k + 1])
    np.testing.assert_array_equal(np.sort(idx, axis=-1), np.broadcast_to(np.arange(flat.shape[-1]), idx.shape))


def test_argpartition_kth_element_is_keras():
    keras = _keras()
    x = np.array([3.0, -1.0, 2.5, 0.5, 7.0, -2.0], np.float32)
    for kth in range(6):
        ours, theirs = ops.argpartition(x, kth).numpy(), np.asarray(keras.ops.argpartition(x, kth))
        assert x[ours[kth]] == x[theirs[kth]]


_INTS = np.array([[3, 1, 2], [3, 1, 2], [0, 5, 5]], np.int32)


@pytest.mark.parametrize("kwargs", [
    {}, dict(return_index=True, return_inverse=True, return_counts=True),
    dict(sorted=False, return_index=True, return_inverse=True, return_counts=True), dict(axis=0, return_inverse=True),
    dict(axis=1, return_counts=True, sorted=False), dict(size=6, fill_value=-1, return_index=True, return_counts=True),
    dict(size=2, return_counts=True)])
def test_unique_matches_keras(kwargs):
    keras = _keras()
    ours, theirs = ops.unique(_INTS, **kwargs), keras.ops.unique(_INTS, **kwargs)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        b = np.asarray(b)
        assert a.numpy().dtype == b.dtype
        np.testing.assert_array_equal(a.numpy(), b)


def test_segment_prod_gradient_at_zeros_is_tensorflows():
    tf = pytest.importorskip("tensorflow")
    d = np.array([[1.5, -2.0], [0.0, 3.0], [0.7, 0.0], [2.0, 1.1], [0.0, 0.0]])
    ids = np.array([0, 0, 1, 2, 0])
    x = ds.constant(d)
    with ds.GradientTape() as tape:
        tape.watch(x)
        y = ds.reduce_sum(ds.multiply(ops.segment_prod(x, ids, num_segments=4), np.arange(1.0, 9.0).reshape(4, 2)))
    t = tf.constant(d)
    with tf.GradientTape() as ttape:
        ttape.watch(t)
        z = tf.reduce_sum(tf.math.unsorted_segment_prod(t, ids, 4) * np.arange(1.0, 9.0).reshape(4, 2))
    np.testing.assert_allclose(y.numpy(), z.numpy())
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), ttape.gradient(z, t).numpy())


def test_i0_limits():
    x = np.array([np.inf, -np.inf, 0.0, np.nan, 1e30])
    # TF's bessel_i0 (which keras.ops.i0 is) gives NaN at +-inf, as NumPy's i0 does
    np.testing.assert_array_equal(ops.i0(x).numpy(), [np.nan, np.nan, 1.0, np.nan, np.inf])
    assert ops.i0(np.array([1, 2], np.int32)).numpy().dtype == np.float32


@pytest.mark.parametrize("seq,stride,fft,window,center", [
    (16, 4, 16, "hann", True), (12, 3, 16, "hamming", True), (16, 8, 16, "hann", False)])
def test_istft_inverts_stft(seq, stride, fft, window, center):
    x = np.random.default_rng(3).standard_normal((2, 64))
    y = ops.istft(ops.stft(x, seq, stride, fft, window=window, center=center), seq, stride, fft, length=64 if center
                  else None, window=window, center=center).numpy()
    # the synthesis window assumes every sample lies under all its overlapping frames (TF's and Keras' rule):
    # exact away from the first and last fft_length samples
    lo, hi = fft, min(y.shape[-1], 64) - fft
    np.testing.assert_allclose(y[..., lo:hi], x[..., lo:hi], atol=1e-10)


def test_correlate_is_numpys_in_every_mode():
    a, v = np.array([1.0, -2.0, 0.5, 3.0, 4.0]), np.array([0.5, 1.0, -1.0])
    for mode in ("valid", "same", "full"):
        np.testing.assert_allclose(ops.correlate(a, v, mode).numpy(), np.correlate(a, v, mode))
        np.testing.assert_allclose(ops.correlate(v, a, mode).numpy(), np.correlate(v, a, mode))


@pytest.mark.parametrize("call,error,match", [
    (lambda: ops.fft(np.ones(4)), ValueError, "tuple of two tensors"),
    (lambda: ops.fft((np.ones(4), np.ones(3))), ValueError, "same shape"),
    (lambda: ops.fft((np.ones(4, np.int32), np.ones(4, np.int32))), ValueError, "float tensors"),
    (lambda: ops.fft2((np.ones(4), np.ones(4))), ValueError, "rank >= 2"),
    (lambda: ops.rfft(np.ones(4), 0), ValueError, "fft_length"),
    (lambda: ops.stft(np.ones(20), 8, 4, 4), ValueError, "fft_length"),
    (lambda: ops.stft(np.ones(20), 8, 4, 8, window="boxcar"), ValueError, "must be one of 'hann', 'hamming'"),
    (lambda: ops.stft(np.ones(20, np.int32), 8, 4, 8), TypeError, "Expected `float32` or `float64`"),
    (lambda: ops.stft(np.ones(20), 8, 4, 8, window=np.ones(5)), ValueError, r"`window` must be equal to \[sequence_length\]"),
    (lambda: ops.extract_sequences(np.ones(8), 0, 1), ValueError, "sequence_length"),
    (lambda: ops.qr(np.ones((3, 3)), mode="r"), ValueError, "mode"),
    (lambda: ops.svd(np.ones(3)), ValueError, "rank >= 2"),
    (lambda: ops.lstsq(np.ones((3, 2)), np.ones(4)), ValueError, "leading dimensions"),
    (lambda: ops.lstsq(np.ones((2, 3, 2)), np.ones(3)), TypeError, "two-dimensional"),
    (lambda: ops.argpartition(np.ones(3), 3), ValueError, "kth"),
    (lambda: ops.unique(np.ones((2, 2)), axis=2), ValueError, "axis"),
    (lambda: ops.segment_prod(np.ones(3), [0, 1, 1], num_segments=2, sorted=True), ValueError, "num_segments"),
    (lambda: ops.segment_prod(np.ones(3), [1, 0, 1], sorted=True), ValueError, "sorted"),
    (lambda: ops.segment_prod(np.ones(3), [0, 3, 1], num_segments=2), ValueError, "num_segments"),
    (lambda: ops.correlate(np.ones(3), np.ones(2), mode="middle"), ValueError, "mode"),
    (lambda: ops.correlate(np.ones((2, 3)), np.ones(2)), ValueError, "vectors"),
    (lambda: ops.adaptive_average_pool(np.ones((2, 3)), 2), ValueError, "rank 3, 4 or 5"),
    (lambda: ops.adaptive_max_pool(np.ones((1, 4, 4, 1)), (2, 0)), ValueError, "output_size"),
])
def test_bad_inputs_say_what_was_expected(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_sub_namespaces_hold_kerass_names_with_the_same_functions():
    import importlib

    from descend.keras import _ops_namespaces

    for sub, names in (("linalg", _ops_namespaces.LINALG), ("nn", _ops_namespaces.NN),
                       ("numpy", _ops_namespaces.NUMPY)):
        module = getattr(ops, sub)
        assert importlib.import_module(f"descend.keras.ops.{sub}") is module
        assert module.__all__ and set(module.__all__) <= set(names)
        for name in names:
            if hasattr(ops, name):
                assert getattr(module, name) is getattr(ops, name), (sub, name)
            else:
                assert not hasattr(module, name), (sub, name)
    assert {"qr", "svd", "eigh", "lstsq", "pinv", "matrix_rank", "lu_factor", "solve"} <= set(ops.linalg.__all__)
    assert ops.image.__all__ == list(_ops_namespaces.IMAGE)  # all of keras.ops.image (issue 37)
    assert set(ops.image.__all__) <= set(_ops_namespaces.IMAGE) and not hasattr(ops, "rgb_to_hsv")
    assert {"unique", "argpartition", "correlate", "i0"} <= set(ops.numpy.__all__)


def test_sub_namespace_names_are_kerass():
    keras = _keras()
    from descend.keras import _ops_namespaces

    for sub in ("linalg", "nn", "image", "numpy"):
        want = sorted(n for n in dir(getattr(keras.ops, sub)) if not n.startswith("_"))
        assert sorted(getattr(_ops_namespaces, sub.upper())) == want, sub


# ---------------------------------------------------------------------------------------------- CTC, Circle
def test_ctc_and_circle_losses_match_keras():
    keras = _keras()
    from descend.keras import losses

    rng = np.random.default_rng(5)
    y, logits = np.array([[1, 2, 0], [3, 3, 1], [2, 0, 0]]), rng.standard_normal((3, 6, 4)).astype(np.float32)
    np.testing.assert_allclose(losses.ctc(y, logits).numpy(), np.asarray(keras.losses.ctc(y, logits)), rtol=1e-6)
    for reduction in ("sum_over_batch_size", "sum", None):
        np.testing.assert_allclose(losses.CTC(reduction=reduction)(y, logits).numpy(),
                                   np.asarray(keras.losses.CTC(reduction=reduction)(y, logits)), rtol=1e-6)
    emb = rng.standard_normal((6, 5)).astype(np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    labels = np.array([0, 1, 0, 2, 1, 2])
    for kwargs in ({}, dict(gamma=10.0, margin=0.25), dict(remove_diagonal=False)):
        np.testing.assert_allclose(losses.circle(labels, emb, **kwargs).numpy(),
                                   np.asarray(keras.losses.circle(labels, emb, **kwargs)), rtol=1e-5)
        np.testing.assert_allclose(float(losses.Circle(**kwargs)(labels, emb)),
                                   float(keras.losses.Circle(**kwargs)(labels, emb)), rtol=1e-5)
    # a row without positives has loss 0 and is left out of the mean (the loss' mask), as in Keras
    lonely = np.array([0, 1, 0, 2, 1, 3])
    np.testing.assert_allclose(float(losses.Circle(gamma=10.0)(lonely, emb)),
                               float(keras.losses.Circle(gamma=10.0)(lonely, emb)), rtol=1e-5)
    assert losses.Circle(gamma=3.0).get_config() == keras.losses.Circle(gamma=3.0).get_config()
    assert losses.get("CTC").get_config() == keras.losses.CTC().get_config()


def test_ctc_loss_gradient_matches_tensorflow_with_shorter_sequences():
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(1)
    logits = rng.standard_normal((4, 7, 5)).astype(np.float32)
    labels = np.array([[1, 2, 2], [4, 1, 0], [0, 0, 0], [3, 0, 0]], np.int32)
    lab_len, log_len = np.array([3, 2, 0, 1], np.int32), np.array([7, 5, 3, 1], np.int32)
    w = rng.uniform(0.5, 1.5, 4).astype(np.float32)
    x = ds.constant(logits)
    with ds.GradientTape() as tape:
        tape.watch(x)
        loss = ops.ctc_loss(labels, x, lab_len, log_len)
        total = ds.reduce_sum(ds.multiply(loss, w))
    t = tf.constant(logits)
    with tf.GradientTape() as ttape:
        ttape.watch(t)
        tloss = tf.nn.ctc_loss(labels, t, lab_len, log_len, logits_time_major=False, blank_index=0)
        ttotal = tf.reduce_sum(tloss * w)
    np.testing.assert_allclose(loss.numpy(), tloss.numpy(), rtol=1e-5)
    grad = tape.gradient(total, x).numpy()
    np.testing.assert_allclose(grad, ttape.gradient(ttotal, t).numpy(), atol=1e-5)
    assert np.all(grad[3, 1:] == 0) and np.all(grad[1, 5:] == 0)  # steps past logit_length get no gradient


def test_ctc_second_derivative_raises_as_tensorflows():
    x = ds.constant(np.zeros((1, 3, 3)))
    with ds.GradientTape() as outer:
        outer.watch(x)
        with ds.GradientTape() as inner:
            inner.watch(x)
            loss = ds.reduce_sum(ops.ctc_loss(np.array([[1]]), x, np.array([1]), np.array([3])))
        grad = inner.gradient(loss, x)
        y = ds.reduce_sum(ds.square(grad))
    with pytest.raises(ds.NoGradientError, match="ctc_loss_gradient"):
        outer.gradient(y, x)


@pytest.mark.parametrize("call,error,match", [
    (lambda: ops.ctc_loss(np.array([[1]]), np.zeros((1, 3)), [1], [3]), ValueError, "rank 3"),
    (lambda: ops.ctc_loss(np.array([1]), np.zeros((1, 3, 3)), [1], [3]), ValueError, "labels"),
    (lambda: ops.ctc_loss(np.array([[1]]), np.zeros((1, 3, 3)), [2], [3]), ValueError, "label_length"),
    (lambda: ops.ctc_loss(np.array([[1]]), np.zeros((1, 3, 3)), [1], [4]), ValueError, "logit_length"),
    (lambda: ops.ctc_loss(np.array([[0]]), np.zeros((1, 3, 3)), [1], [3]), ValueError, "other than the blank"),
    (lambda: ops.ctc_loss(np.array([[3]]), np.zeros((1, 3, 3)), [1], [3]), ValueError, r"in \[0, 3\)"),
    (lambda: ops.ctc_loss(np.array([[1.0]]), np.zeros((1, 3, 3)), [1], [3]), TypeError, "integers"),
    (lambda: ops.ctc_loss(np.array([[1]]), np.zeros((1, 3, 3)), [1], [3], mask_index=3), ValueError, "blank_index"),
    (lambda: ops.ctc_decode(np.zeros((1, 3, 3)), [3], strategy="beam_search", beam_width=0), ValueError,
     "beam_width"),
    (lambda: ops.ctc_decode(np.zeros((1, 3, 3)), [3], strategy="best"), ValueError, "strategy"),
    (lambda: ops.ctc_decode(np.zeros((1, 3, 3)), [4]), ValueError, "sequence_lengths"),
])
def test_ctc_bad_inputs(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_ctc_infeasible_alignment_is_infinite():
    # two equal labels need a blank between them: three steps at least
    loss = ops.ctc_loss(np.array([[1, 1]]), np.zeros((1, 2, 3), np.float32), [2], [2]).numpy()
    assert np.isposinf(loss).all()


# ---------------------------------------------------------------------------------------------- functions of functions
def test_vectorize_is_numpys():
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 1)), rng.standard_normal(4)
    np.testing.assert_allclose(ops.vectorize(lambda p, q: p * 2.0 + q)(a, b).numpy(), np.vectorize(
        lambda p, q: p * 2.0 + q)(a, b))
    x, y = rng.standard_normal((2, 3, 5)), rng.standard_normal(5)
    ours = ops.vectorize(lambda p, q: ops.sum(p * q), signature="(n),(n)->()")(x, y)
    np.testing.assert_allclose(ours.numpy(), np.vectorize(lambda p, q: np.sum(p * q), signature="(n),(n)->()")(x, y))
    two = ops.vectorize(lambda p: (ops.sum(p), ops.max(p)), signature="(n)->(),()")(x)
    np.testing.assert_allclose(two[1].numpy(), x.max(-1))
    scaled = ops.vectorize(lambda p, s: p * s, excluded={1})(np.ones((2, 2)), 3.0)
    np.testing.assert_array_equal(scaled.numpy(), np.full((2, 2), 3.0))
    t = ds.constant(x)
    with ds.GradientTape() as tape:
        tape.watch(t)
        total = ds.reduce_sum(ops.vectorize(lambda p: ops.sum(p * p), signature="(n)->()")(t))
    np.testing.assert_allclose(tape.gradient(total, t).numpy(), 2 * x)
    with pytest.raises(ValueError, match="core dimension"):
        ops.vectorize(lambda p, q: p, signature="(n),(n)->()")(np.ones(3), np.ones(4))
    with pytest.raises(ValueError, match="signature"):
        ops.vectorize(lambda p: p, signature="n->")


def test_associative_scan_matches_keras():
    keras = _keras()
    rng = np.random.default_rng(0)
    m = rng.standard_normal((5, 2, 2)).astype(np.float32)
    for reverse in (False, True):  # matrix products: associative, not commutative
        np.testing.assert_allclose(ops.associative_scan(ops.matmul, m, reverse=reverse).numpy(),
                                   np.asarray(keras.ops.associative_scan(keras.ops.matmul, m, reverse=reverse)),
                                   rtol=1e-5, atol=1e-5)
    v = rng.standard_normal((3, 6)).astype(np.float32)
    np.testing.assert_allclose(ops.associative_scan(lambda p, q: p + q, v, axis=1).numpy(),
                               np.cumsum(v, axis=1), rtol=1e-5, atol=1e-6)
    ours = ops.associative_scan(lambda p, q: (p[0] + q[0], ops.maximum(p[1], q[1])), (v, 2 * v), reverse=True)
    theirs = keras.ops.associative_scan(lambda p, q: (p[0] + q[0], keras.ops.maximum(p[1], q[1])), (v, 2 * v),
                                        reverse=True)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.numpy(), np.asarray(b), rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="must have the same first dimension"):
        ops.associative_scan(lambda p, q: p, (np.ones(3), np.ones(4)))


def test_jvp_matches_keras():
    keras = _keras()
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(0)
    x, y, tx, ty = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(4)]
    ours = ops.jvp(lambda a, b: (ops.sin(a) * b, ops.sum(a * a)), (x, y), (tx, ty))
    theirs = keras.ops.jvp(lambda a, b: (keras.ops.sin(a) * b, keras.ops.sum(a * a)),
                           (tf.constant(x), tf.constant(y)), (tf.constant(tx), tf.constant(ty)))
    for a, b in zip(ours[0] + ours[1], theirs[0] + theirs[1]):
        np.testing.assert_allclose(a.numpy(), np.asarray(b), rtol=1e-5, atol=1e-5)
    out, tangent, aux = ops.jvp(lambda a: (ops.tanh(a), ops.exp(a)), (x,), (tx,), has_aux=True)
    np.testing.assert_allclose(tangent.numpy(), (1 - np.tanh(x) ** 2) * tx, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(aux.numpy(), np.exp(x), rtol=1e-6)
    _, constant_tangent = ops.jvp(lambda a: ops.ones((2,)), (x,), (tx,))  # an output that ignores the input
    np.testing.assert_array_equal(constant_tangent.numpy(), np.zeros(2))
    with pytest.raises(ValueError, match="structure of `primals`"):
        ops.jvp(ops.sin, (x,), (tx, ty))


def test_rearrange_bad_patterns():
    x = np.zeros((2, 12, 3))
    for pattern, lengths, match in (("b n -> n b", {}, "rank 3"), ("b (h w) c -> b h w c", {}, "inferred"),
                                    ("b n c -> b n", {}, "same axes"), ("b n c -> b n c", {"q": 2}, "not in the"),
                                    ("b (h w) c -> b h w c", {"h": 5}, "cannot be split"),
                                    ("b n ... -> b n", {}, "axis names"), ("b n c", {}, "->")):
        with pytest.raises(ValueError, match=match):
            ops.rearrange(x, pattern, **lengths)


@pytest.mark.parametrize("call,match", [
    (lambda: ops.unfold(np.zeros((2, 3, 4)), 2), "rank 4"),
    (lambda: ops.unfold(np.zeros((1, 1, 3, 3)), 4), "does not fit"),
    (lambda: ops.unfold(np.zeros((1, 1, 3, 3)), 2, stride=0), "stride"),
    (lambda: ops.fold(np.zeros((1, 4, 5)), (3, 3), 2), r"shape \(N, C \* 4, 4\)"),
])
def test_fold_unfold_bad_inputs(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_fold_of_unfold_counts_the_blocks_covering_each_pixel():
    x = np.ones((1, 2, 5, 4))
    counts = ops.fold(ops.unfold(x, 3, padding=1), (5, 4), 3, padding=1).numpy()
    rows, cols = np.array([2, 3, 3, 3, 2]), np.array([2, 3, 3, 2])
    np.testing.assert_array_equal(counts, np.broadcast_to(rows[:, None] * cols[None, :], (1, 2, 5, 4)))


@pytest.mark.parametrize("name", ["rgb_to_grayscale", "rgb_to_hsv", "hsv_to_rgb"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_image_color_conversions_match_keras_with_gradients(name, dtype):
    keras = _keras()
    tf = pytest.importorskip("tensorflow")
    rng = np.random.default_rng(0)
    x = rng.uniform(0.05, 0.95, (2, 5, 4, 3)).astype(dtype)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    for data_format, images in (("channels_last", x), ("channels_first", np.transpose(x, (0, 3, 1, 2))),
                                ("channels_last", x[0])):
        w = rng.uniform(0.5, 1.5, np.asarray(getattr(keras.ops.image, name)(images, data_format)).shape)
        ours_in, theirs_in = ds.constant(images), tf.constant(images)
        with ds.GradientTape() as tape:
            tape.watch(ours_in)
            ours = getattr(ops.image, name)(ours_in, data_format=data_format)
            total = ds.reduce_sum(ds.multiply(ours, w.astype(dtype)))
        with tf.GradientTape() as ttape:
            ttape.watch(theirs_in)
            theirs = getattr(keras.ops.image, name)(theirs_in, data_format=data_format)
            ttotal = tf.reduce_sum(theirs * w.astype(dtype))
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), **tol)
        want = ttape.gradient(ttotal, theirs_in)
        if want is None:  # TF registers no gradient for HSVToRGB: descend's is checked numerically
            assert name == "hsv_to_rgb"
            assert ds.testing.check_gradients(lambda t, df=data_format: getattr(ops.image, name)(
                t, data_format=df), np.ascontiguousarray(images, np.float64)) < 1e-6
            continue
        np.testing.assert_allclose(tape.gradient(total, ours_in).numpy(), want.numpy(), **tol)
    with pytest.raises(ValueError, match="rank 3"):
        getattr(ops.image, name)(np.zeros((3, 3), dtype))


def test_ctc_beam_search_finds_the_most_probable_label_sequences():
    import itertools

    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 4, 3)) * 2.0
    decoded, scores = ops.ctc_decode(x, np.array([4, 3]), strategy="beam_search", beam_width=200, top_paths=3)
    for b, steps in enumerate((4, 3)):
        logp = x[b, :steps] - np.log(np.exp(x[b, :steps]).sum(-1, keepdims=True))
        exact: dict = {}
        for path in itertools.product(range(3), repeat=steps):  # every alignment, collapsed
            seq = tuple(k for i, k in enumerate(path) if (i == 0 or k != path[i - 1]) and k != 0)
            exact[seq] = np.logaddexp(exact.get(seq, -np.inf), sum(logp[t, path[t]] for t in range(steps)))
        best = sorted(exact.items(), key=lambda kv: -kv[1])[:3]
        for k, (seq, logprob) in enumerate(best):
            got = decoded.numpy()[k, b]
            assert tuple(got[got >= 0]) == seq
            assert scores.numpy()[b, k] == pytest.approx(logprob, rel=1e-12)
    # with fewer label sequences than top_paths, the rest are -1 with score -inf (TF raises)
    few, few_scores = ops.ctc_decode(np.array([[[0.0, 1.0]]]), np.array([1]), strategy="beam_search", top_paths=3)
    assert few.numpy()[:, 0, 0].tolist() == [1, -1, -1]  # "1", then the empty sequence, then none
    assert np.isfinite(few_scores.numpy()[0, :2]).all() and np.isneginf(few_scores.numpy()[0, 2])
    with pytest.raises(ValueError, match="top_paths"):
        ops.ctc_decode(x, np.array([4, 3]), strategy="beam_search", beam_width=2, top_paths=3)


def test_image_color_ops_read_the_global_image_data_format():
    # data_format=None is keras.backend.image_data_format(), as Keras (Keras' image_test sets channels_first)
    from descend.keras import backend as kb

    rgb = np.arange(12, dtype=np.float32).reshape(3, 2, 2) / 12.0  # channels first: 3 channels of 2x2
    want = np.transpose(ops.image.rgb_to_grayscale(np.transpose(rgb, (1, 2, 0))).numpy(), (2, 0, 1))
    old = kb.image_data_format()
    kb.set_image_data_format("channels_first")
    try:
        got = ops.image.rgb_to_grayscale(rgb).numpy()
        hsv = ops.image.rgb_to_hsv(rgb).numpy()
    finally:
        kb.set_image_data_format(old)
    assert got.shape == (1, 2, 2)
    np.testing.assert_allclose(got, want, rtol=1e-6)
    assert hsv.shape == (3, 2, 2)
