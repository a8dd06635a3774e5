"""tf.signal over real tensors (descend/signal.py): values and gradients against TF."""

from __future__ import annotations

import numpy as np
import pytest

import descend as ds

X = np.linspace(-1, 1, 2 * 3 * 10).reshape(2, 3, 10).astype(np.float32) ** 3
FRAMES = np.linspace(-1, 2, 2 * 4 * 5).reshape(2, 4, 5).astype(np.float32)

CASES = {
    "frame": lambda m, x: m.signal.frame(x, 4, 3),
    "frame_pad": lambda m, x: m.signal.frame(x, 4, 3, pad_end=True, pad_value=0.5),
    "frame_axis": lambda m, x: m.signal.frame(x, 2, 1, axis=1),
    "frame_none": lambda m, x: m.signal.frame(x, 12, 3),
    "overlap_and_add": lambda m, x: m.signal.overlap_and_add(FRAMES if x is X else m.reshape(x, [2, 4, 5])[..., :],
                                                             2),
    **{f"dct{t}{'_ortho' if o else ''}": (lambda t, o: lambda m, x: m.signal.dct(x, type=t, norm=o))(t, o)
       for t in (1, 2, 3, 4) for o in (None, "ortho") if not (t == 1 and o)},
    **{f"idct{t}{'_ortho' if o else ''}": (lambda t, o: lambda m, x: m.signal.idct(x, type=t, norm=o))(t, o)
       for t in (1, 2, 3, 4) for o in (None, "ortho") if not (t == 1 and o)},
    "dct_n_short": lambda m, x: m.signal.dct(x, n=6),
    "dct_n_long": lambda m, x: m.signal.dct(x, n=13, norm="ortho"),
    "mfccs": lambda m, x: m.signal.mfccs_from_log_mel_spectrograms(x),
    "fftshift": lambda m, x: m.signal.fftshift(x),
    "ifftshift_axes": lambda m, x: m.signal.ifftshift(x, axes=[0, 2]),
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients_equal_tensorflows(name, dtype):
    tf = pytest.importorskip("tensorflow")
    x = X.astype(dtype)
    if name == "overlap_and_add":
        x = FRAMES.astype(dtype)
    weights = np.linspace(0.5, 1.5, 1000)

    def run(m, variable):
        with m.GradientTape() as tape:
            out = CASES[name](m, variable) if name != "overlap_and_add" else m.signal.overlap_and_add(variable, 2)
            flat = m.reshape(out, [-1])
            loss = m.reduce_sum(flat * flat * weights[: int(flat.shape[0])].astype(dtype))
        grad = tape.gradient(loss, variable)
        if grad is None:
            return np.asarray(out.numpy()), None
        return np.asarray(out.numpy()), np.asarray(grad.numpy() if m is tf else ds.convert_to_tensor(grad).numpy())

    ours, our_grad = run(ds, ds.Variable(x))
    theirs, their_grad = run(tf, tf.Variable(x))
    tol = 2e-5 if dtype == "float32" else 1e-10
    np.testing.assert_allclose(ours, theirs, rtol=tol, atol=tol * 10)
    if name != "frame_none":  # no frame: TF's gradient is None
        np.testing.assert_allclose(our_grad, their_grad, rtol=tol * 5, atol=tol * 50)


@pytest.mark.parametrize("call", [
    lambda m: m.signal.hann_window(10), lambda m: m.signal.hann_window(9, periodic=False),
    lambda m: m.signal.hamming_window(7), lambda m: m.signal.hamming_window(1),
    lambda m: m.signal.kaiser_window(11, beta=5.0), lambda m: m.signal.kaiser_bessel_derived_window(12),
    lambda m: m.signal.vorbis_window(8), lambda m: m.signal.hann_window(6, dtype=m.float64),
    lambda m: m.signal.inverse_stft_window_fn(3)(8, m.float32),
    lambda m: m.signal.linear_to_mel_weight_matrix(),
    lambda m: m.signal.linear_to_mel_weight_matrix(10, 33, 16000, 20.0, 7000.0, dtype=m.float64),
])
def test_windows_and_filterbanks_equal_tensorflows(call):
    tf = pytest.importorskip("tensorflow")
    ours, theirs = np.asarray(call(ds).numpy()), call(tf).numpy()
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)


def test_inverses_and_errors_without_tensorflow():
    x = ds.constant(X)
    for t in (1, 2, 3, 4):
        scale = 2 * (X.shape[-1] - 1) if t == 1 else 2 * X.shape[-1]
        np.testing.assert_allclose(ds.signal.idct(ds.signal.dct(x, type=t), type=t).numpy() / scale, X, atol=1e-5)
        if t > 1:
            np.testing.assert_allclose(ds.signal.idct(ds.signal.dct(x, type=t, norm="ortho"), type=t,
                                                      norm="ortho").numpy(), X, atol=1e-5)
    np.testing.assert_allclose(ds.signal.overlap_and_add(ds.signal.frame(x, 5, 5), 5).numpy(), X, atol=0)
    with pytest.raises(ValueError, match="type-I"):
        ds.signal.dct(x, type=1, norm="ortho")
    with pytest.raises(ValueError, match="type must be"):
        ds.signal.dct(x, type=5)
    with pytest.raises(TypeError, match="float32 or float64"):
        ds.signal.dct(ds.constant([1, 2]))
    with pytest.raises(ValueError, match="frame_step"):
        ds.signal.frame(x, 2, 0)
    with pytest.raises(ValueError, match="lower_edge_hertz"):
        ds.signal.linear_to_mel_weight_matrix(lower_edge_hertz=5000.0)
